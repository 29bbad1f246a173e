"""Fused groups under `jit`: the NumPy backend (the group's primitives, memory plan) against the
numba backend (one generated kernel) for small fused functions at the W1 size (16 floats), a W2
activation (128 x 512) and a W6 FFN activation (16 x 64 x 512); then the two kernel shapes the
numba backend could generate for an elementwise chain, nested loops (what kernels.py writes) and
`numba.vectorize`, beside NumPy. Needs numba (the `jit` extra).

Run: python benchmarks/jit_kernels.py [--repeat N]
"""
import argparse
import os
import sys
import timeit

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import minispore as ms  # noqa: E402
from minispore import Tensor, ops  # noqa: E402

from _harness import numba_or_none  # noqa: E402

SHAPES = [(16,), (128, 512), (16, 64, 512)]
CASES = [
    ("bias + relu", lambda x, b: ops.relu(x + b), lambda s: [s, s[-1:]]),
    ("(x * 2 + y - x * y) * 0.5", lambda x, y: (x * 2 + y - x * y) * 0.5, lambda s: [s, s]),
    ("sigmoid", ops.sigmoid, lambda s: [s]),
    ("gelu (erf)", lambda x: ops.gelu(x, approximate="none"), lambda s: [s]),
    ("3 x tanh(x * 1.01 + 0.1)", lambda x: ops.tanh(ops.tanh(ops.tanh(
        x * 1.01 + 0.1) * 1.01 + 0.1) * 1.01 + 0.1), lambda s: [s]),
    ("sum(exp(x - m), -1)", lambda x, m: ops.exp(x - m).sum(-1, keepdims=True),
     lambda s: [s, s[:-1] + (1,)]),
    ("layer norm written as ops", lambda x, g: layer_norm(x) * g, lambda s: [s, s[-1:]]),
    ("softmax written as ops", lambda x: softmax(x), lambda s: [s]),
]


def layer_norm(x):
    d = x - x.mean(-1, keep_dims=True)
    return d / ops.sqrt((d * d).mean(-1, keep_dims=True) + 1e-5)


def softmax(x):
    e = ops.exp(x - ops.amax(x, -1, True))
    return e / e.sum(-1, keepdims=True)


def best_us(fn, args, repeat, number=20):
    return min(timeit.repeat(lambda: fn(*args), number=number, repeat=repeat)) / number * 1e6


def backends(repeat):
    rng = np.random.default_rng(0)
    print(f"jit backends, us per call (best of {repeat} x 20):")
    print(f"  {'function':28s} {'shape':16s} {'numpy':>10s} {'numba':>10s}  speed-up")
    for name, fn, shapes in CASES:
        for shape in SHAPES:
            args = [Tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes(shape)]
            times = []
            for backend in ("numpy", "numba"):
                jitted = ms.jit(fn, backend=backend)
                jitted(*args)
                jitted(*args)
                times.append(best_us(jitted, args, repeat))
            print(f"  {name:28s} {shape!s:16s} {times[0]:10.1f} {times[1]:10.1f}  "
                  f"{times[0] / times[1]:.2f}x")


def kernel_shapes(repeat):
    import numba

    f32 = np.float32

    @numba.vectorize(["float32(float32, float32)"])
    def vectorized(x, y):
        return f32(f32(f32(x * f32(2.0)) + y) - f32(x * y)) * f32(0.5)

    @numba.njit(error_model="numpy")
    def loops(a0, a1):
        n0, n1 = a0.shape[0], a0.shape[1]
        o = np.empty((n0, n1), np.float32)
        for i0 in range(n0):
            for i1 in range(n1):
                x, y = a0[i0, i1], a1[i0, i1]
                o[i0, i1] = f32(f32(f32(x * f32(2.0)) + y) - f32(x * y)) * f32(0.5)
        return o

    print(f"kernel shapes for (x * 2 + y - x * y) * 0.5 in float32, us (best of {repeat} x 20):")
    rng = np.random.default_rng(0)
    for shape in [(1, 16), (128, 512), (1024, 512)]:
        x, y = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
        row = [best_us(f, (x, y), repeat) for f in
               (loops, vectorized, lambda a, b: (a * 2 + b - a * b) * 0.5)]
        print(f"  {shape!s:12s} loops {row[0]:8.2f}  vectorize {row[1]:8.2f}  "
              f"numpy {row[2]:8.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    if numba_or_none() is None:
        sys.exit("numba is not installed (pip install minispore[jit])")
    backends(repeat)
    kernel_shapes(repeat)


if __name__ == "__main__":
    main()
