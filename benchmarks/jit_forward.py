"""W1 forward under `jit`: per-primitive time of the op_overhead forward (x: float32 (16,);
200 times y = tanh(y * 1.01 + 0.1); loss = y.sum()) eager, jitted (capture once, then replay),
jitted with the numba backend when numba is installed (the chain is one fused kernel), and
written by hand in NumPy, timed in alternation in one run. Also the first two calls (the first
captures; with numba it compiles the kernel or loads it from the kernel cache, `$MINISPORE_JIT_CACHE`).

Run: python benchmarks/jit_forward.py [--repeat N]
"""
import argparse
import os
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import minispore as ms
from minispore import ops

from _harness import first_calls, numba_or_none

STEPS = 200
PRIMS = 3 * STEPS
SCALE, SHIFT = np.float32(1.01), np.float32(0.1)


def numpy_forward(x):
    y = x
    for _ in range(STEPS):
        y = np.tanh(y * SCALE + SHIFT)
    return y.sum()


def ms_forward(x):
    y = x
    for _ in range(STEPS):
        y = ops.tanh(y * 1.01 + 0.1)
    return y.sum()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    repeat = parser.parse_args().repeat
    x_np = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    x = ms.Tensor(x_np)
    jitted = ms.jit(ms_forward, backend="numpy")
    firsts = [("jit", first_calls(jitted, x))]
    assert np.array_equal(jitted(x).asnumpy(), ms_forward(x).asnumpy())
    cases = [("numpy", numpy_forward, x_np), ("eager", ms_forward, x), ("jit", jitted, x)]
    if numba_or_none() is not None:
        fused = ms.jit(ms_forward, backend="numba")
        firsts.append(("jit numba", first_calls(fused, x)))
        assert np.allclose(fused(x).asnumpy(), ms_forward(x).asnumpy(), rtol=1e-5)
        cases.append(("jit numba", fused, x))
    best = [float("inf")] * len(cases)
    for _ in range(repeat):
        for k, (_, fn, arg) in enumerate(cases):
            t = time.perf_counter()
            fn(arg)
            best[k] = min(best[k], time.perf_counter() - t)
    print(f"W1 forward, {PRIMS} primitives, us/op (best of {repeat}):")
    for (name, _, _), b in zip(cases, best):
        print(f"  {name:9s} {b / PRIMS * 1e6:7.3f}   ({b / best[0]:.2f}x numpy)")
    for name, (first, second, groups) in firsts:
        print(f"  {name}: first call (capture, passes, fusion, kernels) {first * 1e3:.0f} ms, "
              f"second (first replay) {second * 1e3:.2f} ms, fused groups {groups}")

if __name__ == "__main__":
    main()
