"""`Tensor(shape=..., dtype=..., init=...)` and `initializer(...)` are lazy as in MindSpore 2.10:
they print `<uninitialized>` and draw their values when `init_data()` runs or the values are
first read. A user Initializer overrides `_initialize(arr)`, MindSpore's extension point."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, ops
from minispore.common.initializer import Initializer, Normal, One, initializer


class Fives(Initializer):
    def __init__(self, value=5.0):
        super().__init__(value=value)
        self.value = value

    def _initialize(self, arr):
        arr[:] = self.value


def test_lazy_tensor_prints_uninitialized_then_materialises():
    t = Tensor(shape=(2, 3), dtype=ms.float32, init=One())
    text = "Tensor(shape=[2, 3], dtype=Float32, value=\n<uninitialized>)"
    assert repr(t) == str(t) == text
    assert t.shape == (2, 3) and t.dtype == ms.float32 and t.size == 6 and t.has_init
    assert t.init_data() is t
    assert not t.has_init and type(t) is Tensor
    np.testing.assert_array_equal(t.asnumpy(), np.ones((2, 3), np.float32))


def test_any_read_materialises():
    t = Tensor(shape=(2,), dtype=ms.float32, init=One())
    np.testing.assert_array_equal((t + 1).asnumpy(), [2.0, 2.0])
    assert "uninitialized" not in repr(t)


def test_values_are_drawn_when_materialised():
    ms.set_seed(7)
    first = initializer(Normal(), [3], ms.float32).asnumpy()
    second = initializer(Normal(), [3], ms.float32).asnumpy()
    ms.set_seed(7)
    lazy = initializer(Normal(), [3], ms.float32)
    eager = initializer(Normal(), [3], ms.float32).asnumpy()  # drawn before `lazy`
    np.testing.assert_array_equal(eager, first)
    np.testing.assert_array_equal(lazy.init_data().asnumpy(), second)


def test_user_initializer_subclass():
    assert "uninitialized" in repr(initializer(Fives(3.0), [2, 2], ms.float32))
    np.testing.assert_array_equal(initializer(Fives(3.0), [2, 2], ms.float32).asnumpy(),
                                  np.full((2, 2), 3.0, np.float32))
    p = Parameter(Tensor(shape=(2,), dtype=ms.float32, init=Fives()), name="p")
    np.testing.assert_array_equal(p.asnumpy(), [5.0, 5.0])
    g = ms.grad(lambda q: (q * q).sum(), 0)(p)
    np.testing.assert_array_equal(g.asnumpy(), [10.0, 10.0])
    arr = np.zeros(3, np.float32)
    Fives(2.0)(arr)  # the call form fills a NumPy array in place
    np.testing.assert_array_equal(arr, [2.0, 2.0, 2.0])


def test_bad_init_fails_at_once():
    with pytest.raises(ValueError, match="unknown initializer name"):
        initializer("no_such_init", [2])
    with pytest.raises(TypeError, match="'init' must be"):
        initializer(object(), [2])


def test_lazy_tensor_in_an_op_and_a_layer():
    w = Tensor(shape=(3, 2), dtype=ms.float32, init=One())
    out = ops.matmul(Tensor(np.ones((1, 3), np.float32)), w)
    np.testing.assert_array_equal(out.asnumpy(), [[3.0, 3.0]])
