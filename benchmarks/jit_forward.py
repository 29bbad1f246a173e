"""W1 under `jit`: per-primitive time of the op_overhead forward (x: float32 (16,); 200 times
y = tanh(y * 1.01 + 0.1); loss = y.sum()) and of forward + backward (value_and_grad inside the
jitted function), eager, jitted (capture once, then replay), jitted with the numba backend when
numba is installed (the chain is fused into kernels), and written by hand in NumPy (0-d float32
operands, NumPy's fastest), timed in alternation in one run. Also the first two calls (the
first captures; with numba it compiles the kernels or loads them from the kernel cache,
`$MINISPORE_JIT_CACHE`).

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
from _harness import first_calls, numba_or_none
from op_overhead import PRIMS, ms_forward, numpy_forward, numpy_forward_backward

import minispore as ms


def _time(cases, repeat):
    best = [float("inf")] * len(cases)
    for _ in range(repeat):
        for k, (_, fn, arg) in enumerate(cases):
            t = time.perf_counter()
            fn(arg)
            best[k] = min(best[k], time.perf_counter() - t)
    return best


def _contenders(label, floor, eager, x_np, x, same):
    """(cases, first-call rows) for one workload: the floor, eager, jit, jit numba."""
    jitted = ms.jit(eager, backend="numpy")
    firsts = [(f"{label} jit", first_calls(jitted, x))]
    same(jitted(x), eager(x), exact=True)
    cases = [("numpy", floor, x_np), ("eager", eager, x), ("jit", jitted, x)]
    if numba_or_none() is not None:
        fused = ms.jit(eager, backend="numba")
        firsts.append((f"{label} jit numba", first_calls(fused, x)))
        same(fused(x), eager(x), exact=False)
        cases.append(("jit numba", fused, x))
    return cases, firsts


def _same(a, b, exact):
    for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        u, v = u.asnumpy(), v.asnumpy()
        assert np.array_equal(u, v) if exact else np.allclose(u, v, rtol=1e-5, atol=1e-7)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    repeat = parser.parse_args().repeat
    x_np = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    x = ms.Tensor(x_np)
    firsts = []
    for label, floor, eager in [("forward", numpy_forward, ms_forward),
                                ("forward + backward", numpy_forward_backward,
                                 ms.value_and_grad(ms_forward))]:
        cases, rows = _contenders(label, floor, eager, x_np, x, _same)
        firsts += rows
        best = _time(cases, repeat)
        print(f"W1 {label}, {PRIMS} primitives, us/primitive (best of {repeat}):")
        for (name, _, _), b in zip(cases, best):
            print(f"  {name:9s} {b / PRIMS * 1e6:7.3f}   ({b / best[0]:.3f}x numpy)")
    for name, (first, second, groups) in firsts:
        print(f"  {name}: first call (capture, passes, fusion, kernels) {first * 1e3:.0f} ms, "
              f"second (first replay) {second * 1e3:.2f} ms, fused groups {groups}")


if __name__ == "__main__":
    main()
