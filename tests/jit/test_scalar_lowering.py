"""0-d nodes replayed on NumPy scalars (lower._scalar_form): the same bits, NaN signs and
warnings as eager, and arrays wherever something reads the value as one."""
import warnings

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import minispore as ms
from minispore import Tensor, ops

from .test_capture import same

UNARY = [ops.sin, ops.cos, ops.exp, ops.log, ops.sqrt, ops.tanh, ops.neg, ops.abs, ops.floor,
         ops.expm1, ops.log1p, ops.reciprocal, ops.atan, ops.sinh]
BINARY = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
          lambda a, b: a * 1.5, lambda a, b: 2.0 - a, lambda a, b: a / 0.0]
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-300, -1e-45, 3e38, -3e38, 1e308, 710.0, -750.0,
           np.inf, -np.inf, np.nan, -np.nan, 2.5e-324]


def scalar_program(drawn):
    def fn(x, y):
        pool = [x, y]
        for kind, k, i, j in drawn:
            a, b = pool[i % len(pool)], pool[j % len(pool)]
            r = UNARY[k % len(UNARY)](a) if kind == 0 else BINARY[k % len(BINARY)](a, b)
            pool.append(r)
        return tuple(pool[2:])
    return fn


def scalar_lines(jitted):
    return [line for line in jitted.compiled.stages[0]["run"].source.splitlines()
            if line.strip().startswith("x")]


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 30), st.integers(0, 20),
                          st.integers(0, 20)), min_size=1, max_size=12),
       st.sampled_from([np.float32, np.float64]),
       st.lists(st.sampled_from(SPECIAL) | st.floats(-5, 5), min_size=6, max_size=6))
def test_scalar_programs_replay_bitwise_and_as_quietly(drawn, dtype, values):
    fn = scalar_program(drawn)
    jitted = ms.jit(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = [Tensor(np.asarray(v).astype(dtype)) for v in values]
    for x, y in zip(args[::2], args[1::2]):
        with warnings.catch_warnings(record=True) as eager_warned:
            warnings.simplefilter("always")
            want = fn(x, y)
        with warnings.catch_warnings(record=True) as jit_warned:
            warnings.simplefilter("always")
            got = jitted(x, y)
        assert same(want, got)
        assert [str(w.message) for w in jit_warned] == [str(w.message) for w in eager_warned]
    assert jitted.stats["replays"] == 2 and scalar_lines(jitted)


def test_fourth_derivative_replays_on_scalars_with_eagers_bits():
    g = lambda x: ops.sin(x) * ops.exp(x)  # noqa: E731
    for _ in range(4):
        g = ms.grad(g)
    jitted = ms.jit(g)
    for dtype in (np.float64, np.float32):
        for v in (0.5, -2.0, 30.0, np.inf):
            x = Tensor(dtype(v))
            assert same(g(x), jitted(x))
    source = jitted.compiled.stages[0]["run"].source
    assert "_asarray(x" in source and " = w" not in source  # no ufunc call into a buffer


def test_a_scalar_read_as_an_array_is_made_one_once():
    def fn(s, v):
        t = ops.exp(s) * 2.0 + s  # 0-d, on scalars
        return v * t, t * 3.0  # t read by a (3,) node, and by a scalar one

    jitted = ms.jit(fn)
    s, v = Tensor(np.float32(0.25)), Tensor(np.arange(3, dtype=np.float32))
    for _ in range(3):
        assert same(fn(s, v), jitted(s, v))
    source = jitted.compiled.stages[0]["run"].source
    made = [line.split("=")[0].strip() for line in source.splitlines() if "= _asarray(x" in line]
    assert len(made) == 2  # t (read by the (3,) node) and t * 3.0 (returned), once each
    assert all(source.count(f"{name} = ") == 1 for name in made)


def test_mixed_dtypes_and_non_0d_values_keep_array_calls():
    def fn(a, b, v):
        return a * b, v * 2.0  # float32 * float64 (a cast on the call path); a (4,) node

    jitted = ms.jit(fn)
    args = Tensor(np.float32(1.5)), Tensor(np.float64(2.0)), Tensor(np.ones(4, np.float32))
    for _ in range(2):
        assert same(fn(*args), jitted(*args))
    assert not [line for line in scalar_lines(jitted) if "*" in line]
