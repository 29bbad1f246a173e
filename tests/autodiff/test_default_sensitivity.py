"""The default sensitivity of `grad` (one shared read-only ones array per small float shape and
dtype) and the MulByOne copies that stand for products by it (docs/performance.md): the
results keep the bits of the same walks seeded with a fresh ones tensor, and nothing the user
gets back shares memory with the shared array."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.ops.operations import math_ops as M

FUNCTIONS = {
    "sin_exp": lambda t: ops.sin(t) * ops.exp(t),
    "poly": lambda t: t * t * t + 2.0 * t * t - t,
    "tanh": lambda t: ops.tanh(t * 1.3) * t,
    "mixed": lambda t: ops.exp(ops.sin(t) * t) / (t * t + 1.0),
    "cos_sq": lambda t: ops.cos(t) * t * t,
    "log_sqrt": lambda t: ops.log(t * t + 2.0) * ops.sqrt(t + 3.0),
}


def nested(f, n):
    for _ in range(n):
        f = ms.grad(f)
    return f


def nested_fresh_ones(f, n, shape, dtype):
    """The same derivatives, each level seeded with a ones Tensor of its own (no MulByOne)."""
    for _ in range(n):
        f = (lambda g: lambda t: g(t, Tensor(np.ones(shape, dtype))))(
            ms.grad(f, sens_param=True))
    return f


@pytest.fixture
def mul_by_one_calls(monkeypatch):
    """The gradients that MulByOne nodes' bprops were given."""
    calls = []
    bprop = M.MulByOne.bprop

    def counted(self, saved, dout, needs):
        calls.append(dout.shape)
        return bprop(self, saved, dout, needs)
    monkeypatch.setattr(M.MulByOne, "bprop", counted)
    return calls


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_derivatives_keep_their_bits(name, dtype, shape):
    x = Tensor(np.linspace(0.3, 1.1, int(np.prod(shape))).reshape(shape).astype(dtype))
    f = FUNCTIONS[name]
    for order in range(1, 5):
        got = nested(f, order)(x).asnumpy()
        want = nested_fresh_ones(f, order, shape, dtype)(x).asnumpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), (name, order)


def test_products_by_the_ones_are_copies(mul_by_one_calls):
    x = Tensor(np.float64(0.5))
    nested(FUNCTIONS["sin_exp"], 4)(x)
    assert len(mul_by_one_calls) == 32
    mul_by_one_calls.clear()
    nested_fresh_ones(FUNCTIONS["sin_exp"], 4, (), np.float64)(x)
    assert mul_by_one_calls == []


def test_graph_capture_keeps_the_products(mul_by_one_calls):
    x = Tensor(np.float64(0.5))
    eager = nested(FUNCTIONS["sin_exp"], 4)(x).asnumpy()
    mul_by_one_calls.clear()
    jitted = ms.jit(nested(FUNCTIONS["sin_exp"], 4))
    assert jitted(x).asnumpy().tobytes() == eager.tobytes()
    assert jitted(x).asnumpy().tobytes() == eager.tobytes()
    assert mul_by_one_calls == []


@pytest.mark.parametrize("fn", [lambda t: t, lambda t: t * t, lambda t: ops.exp(t),
                                lambda t: (t, t * 1.0)])
def test_returned_gradients_are_writable_arrays_of_their_own(fn):
    x = Tensor(np.asarray([0.25, 0.5], np.float64))
    value, g = ms.value_and_grad(fn)(x)
    values = value if isinstance(value, tuple) else (value,)
    assert g._data.flags.writeable
    for other in (x, *values):
        assert not np.shares_memory(g._data, other._data)
    g.asnumpy()[...] = 7.0  # writing into one result changes no later call's
    np.testing.assert_array_equal(ms.grad(lambda t: t)(x).asnumpy(), [1.0, 1.0])


def test_the_shared_ones_cannot_be_written():
    seen = []
    x = Tensor(np.float64(2.0))

    def f(t):
        y = t * t
        y.register_hook(lambda g: seen.append(g))
        return y
    np.testing.assert_array_equal(ms.grad(f)(x).asnumpy(), 4.0)
    (ones,) = seen
    with pytest.raises(ValueError):
        ones._data[...] = 3.0
    np.testing.assert_array_equal(ms.grad(f)(x).asnumpy(), 4.0)
