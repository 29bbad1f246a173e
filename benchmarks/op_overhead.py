"""W1: per-primitive overhead on tiny tensors.

x: float32 (16,); 200 times y = tanh(y * 1.01 + 0.1) (600 primitive calls); loss = y.sum();
gradient w.r.t. x. Prints microseconds per primitive for the forward alone (no transform active)
and for forward + backward under value_and_grad, beside a hand-written NumPy forward + backward
of the same math (the floor) and PyTorch CPU eager when torch is installed, all in one run.

The floor multiplies by float32 0-d arrays made once: NumPy serves a 0-d array operand fastest
(here ~290 ns for `y * s` on 16 floats, against ~440 ns for a NumPy float32 scalar and ~560 ns
for a Python float, which NumPy 2 converts on every call). minispore and PyTorch are written as
their users write them, with Python floats.

Run: python benchmarks/op_overhead.py [--repeat N]
"""
import argparse
import os
import sys

# One BLAS thread for every contender: on 2 shared cores threads add noise, not information.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import minispore as ms  # noqa: E402
from minispore import ops  # noqa: E402

from _harness import malloc_setup  # noqa: E402

STEPS = 200
PRIMS = 3 * STEPS  # mul, add, tanh per step (the final sum is not counted)


SCALE, SHIFT, ONE = (np.asarray(v, np.float32) for v in (1.01, 0.1, 1.0))


def numpy_forward(x):
    y = x
    for _ in range(STEPS):
        y = np.tanh(y * SCALE + SHIFT)
    return y.sum()


def numpy_forward_backward(x):
    ys = []
    y = x
    for _ in range(STEPS):
        y = np.tanh(y * SCALE + SHIFT)
        ys.append(y)
    loss = y.sum()
    g = np.ones_like(y)
    for y in reversed(ys):
        g = g * (ONE - y * y) * SCALE
    return loss, g


def ms_forward(x):
    y = x
    for _ in range(STEPS):
        y = ops.tanh(y * 1.01 + 0.1)
    return y.sum()


ms_value_and_grad = ms.value_and_grad(ms_forward)


def interleaved_best(cases, repeat):
    """Min time of each (fn, arg) case, timed in alternation: one run of each per round, so a
    slow spell of the shared machine hits every case alike and the ratios stay meaningful."""
    for fn, arg in cases:
        fn(arg)  # warm up
    best = [float("inf")] * len(cases)
    for _ in range(repeat):
        for k, (fn, arg) in enumerate(cases):
            t0 = time.perf_counter()
            fn(arg)
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def torch_cases(x_np):
    try:
        import torch
    except ImportError:
        return []
    torch.set_num_threads(1)

    def fwd(x):
        with torch.no_grad():
            y = x
            for _ in range(STEPS):
                y = torch.tanh(y * 1.01 + 0.1)
            return y.sum()

    def fwd_bwd(x):
        x = x.detach().requires_grad_(True)
        y = x
        for _ in range(STEPS):
            y = torch.tanh(y * 1.01 + 0.1)
        y.sum().backward()
        return x.grad

    xt = torch.from_numpy(x_np.copy())
    return [("pytorch eager", (fwd, xt), (fwd_bwd, xt))]


def check_same_math(x_np):
    loss, g = numpy_forward_backward(x_np)
    v, gm = ms_value_and_grad(ms.Tensor(x_np))
    assert np.allclose(v.asnumpy(), loss, rtol=1e-5), (v, loss)
    assert np.allclose(gm.asnumpy(), g, rtol=1e-4, atol=1e-6), (gm, g)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    malloc = malloc_setup()
    x_np = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    x = ms.Tensor(x_np)
    check_same_math(x_np)

    named = [("numpy (floor)", (numpy_forward, x_np), (numpy_forward_backward, x_np)),
             ("minispore", (ms_forward, x), (ms_value_and_grad, x))] + torch_cases(x_np)
    cases = [c for _, f, fb in named for c in (f, fb)]
    times = interleaved_best(cases, args.repeat)
    rows = {name: (times[2 * k], times[2 * k + 1]) for k, (name, _, _) in enumerate(named)}
    floor_f, floor_fb = rows["numpy (floor)"]
    print(f"W1: {STEPS} x tanh(y * 1.01 + 0.1) on float32 (16,), {PRIMS} primitives, "
          f"malloc {malloc}")
    print(f"{'':16s} {'fwd us/prim':>12s} {'x floor':>8s} {'fwd+bwd us/prim':>16s} {'x floor':>8s}")
    for name, (f, fb) in rows.items():
        print(f"{name:16s} {f / PRIMS * 1e6:12.2f} {f / floor_f:8.2f} "
              f"{fb / PRIMS * 1e6:16.2f} {fb / floor_fb:8.2f}")


if __name__ == "__main__":
    main()
