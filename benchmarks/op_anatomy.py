"""What one eager primitive costs beyond its NumPy kernel: `y * 1.01` on float32 (16,).

Builds the operator up from the bare ufunc one piece at a time, each line adding one piece
minispore's `Tensor.__mul__` pays, and times every line in alternation (best of rounds, ns per
call). The last line is minispore itself; the lines above it are hand-written imitations of its
fast path (tape.binary_operator), so the differences between consecutive lines say where the
overhead over the floor goes. `--grad` adds the same breakdown for recording the call on a tape.

Run: python benchmarks/op_anatomy.py [--repeat N]
"""
import argparse
import os
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import minispore as ms  # noqa: E402
from minispore import ops  # noqa: E402
from minispore._autodiff import tape as _tape  # noqa: E402
from minispore._quiet import _IGNORE, _reset, _set  # noqa: E402
from minispore.common.tensor import Tensor  # noqa: E402

_new = object.__new__
a = np.random.default_rng(0).standard_normal(16).astype(np.float32)
y = Tensor(a)
S = np.asarray(1.01, np.float32)
SCALARS = _tape._FLOAT_SCALARS
y * 1.01  # puts 1.01 in minispore's scalar cache


def quiet_ufunc(a):
    token = _set(_IGNORE)
    try:
        return np.multiply(a, S)
    finally:
        _reset(token)


def cached_scalar(a, v=1.01):
    b = SCALARS[a.dtype][v]
    token = _set(_IGNORE)
    try:
        return np.multiply(a, b)
    finally:
        _reset(token)


def with_tensor(t, v=1.01):
    a = t._data
    b = SCALARS[a.dtype][v]
    token = _set(_IGNORE)
    try:
        out = np.multiply(a, b)
    finally:
        _reset(token)
    r = _new(Tensor)
    r._data = out
    r._tape = None
    r._version = 0
    return r


class Imitation:
    """A slotted class whose `*` is `with_tensor`: the operator dispatch added."""
    __slots__ = ("_data", "_tape", "_version")
    __mul__ = with_tensor


imitation = Imitation()
imitation._data = a

LINES = [
    ("NumPy ufunc, 0-d float32 operand (the floor)", lambda: np.multiply(a, S)),
    ("+ errstate off and back (IEEE results, no warnings)", lambda: quiet_ufunc(a)),
    ("+ Python float -> cached 0-d array", lambda: cached_scalar(a)),
    ("+ reading the Tensor, making the result Tensor", lambda: with_tensor(y)),
    ("+ dispatch through a slotted class's __mul__", lambda: imitation * 1.01),
    ("minispore y * 1.01 (flag checks, dtype and type tests)", lambda: y * 1.01),
    ("NumPy tanh (the floor)", lambda: np.tanh(a)),
    ("minispore ops.tanh(y)", lambda: ops.tanh(y)),
]


def grad_lines():
    """Recording one call: the forward under value_and_grad of a one-op function, minus the
    same function's cost without a transform, are not separable; time whole one-op calls."""
    f = ms.value_and_grad(lambda t: (t * 1.01).sum())
    g = ms.value_and_grad(lambda t: t.sum())
    return [("value_and_grad of sum(t): transform, sum, backward", lambda: g(y)),
            ("value_and_grad of sum(t * 1.01): + one recorded op and its bprop", lambda: f(y))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--grad", action="store_true")
    args = parser.parse_args()
    lines = LINES + (grad_lines() if args.grad else [])
    number = 20000
    best = [float("inf")] * len(lines)
    for _ in range(args.repeat):
        for k, (_, fn) in enumerate(lines):
            best[k] = min(best[k], timeit.timeit(fn, number=number) / number)
    print("One eager primitive on float32 (16,), ns per call (best of rounds; timeit's lambda "
          "call included in every line)")
    prev = None
    for (name, _), t in zip(lines, best):
        step = "" if prev is None or name.startswith(("NumPy", "value_and_grad of sum(t):")) \
            else f"{(t - prev) * 1e9:+8.0f}"
        print(f"{name:66s} {t * 1e9:8.0f} {step}")
        prev = t


if __name__ == "__main__":
    main()
