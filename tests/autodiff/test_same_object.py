"""One object is one variable (MindSpore and PyTorch identify inputs by object): a tensor passed
at several positions, or a Parameter passed as an argument and used through its Cell, gets the
total derivative at every position it is asked for. Values from MindSpore 2.10 (CPU)."""
import numpy as np

import minispore as ms
from minispore import Parameter, Tensor

X = np.array([1.0, 2.0], np.float32)


def f(a, b):
    return (a * b * b).sum()


def test_the_same_tensor_at_two_positions_is_one_variable():
    x = Tensor(X)
    total = 3 * X ** 2  # d/dx of sum(x^3)
    for pos in (0, 1):
        np.testing.assert_allclose(ms.grad(f, pos)(x, x).asnumpy(), total)
    ga, gb = ms.grad(f, (0, 1))(x, x)
    np.testing.assert_allclose(ga.asnumpy(), total)
    np.testing.assert_allclose(gb.asnumpy(), total)
    ga[0] = 100.0  # the two results never share memory
    assert gb.asnumpy()[0] == total[0]


def test_equal_but_distinct_tensors_stay_separate():
    x, y = Tensor(X), Tensor(X.copy())
    ga, gb = ms.grad(f, (0, 1))(x, y)
    np.testing.assert_allclose(ga.asnumpy(), X ** 2)
    np.testing.assert_allclose(gb.asnumpy(), 2 * X * X)


def test_a_parameter_as_argument_and_weight_is_one_variable():
    w = Parameter(Tensor(X), name="w")
    gx, (gw,) = ms.grad(lambda a: (a * w).sum(), 0, [w])(w)
    np.testing.assert_allclose(gx.asnumpy(), 2 * X)
    np.testing.assert_allclose(gw.asnumpy(), 2 * X)


def test_second_order_through_a_shared_argument():
    x = Tensor(np.array([1.0, 2.0]))
    inner = ms.grad(lambda a, b: (a * a * b).sum(), 0)  # total: d/dx sum(x^3) = 3x^2
    np.testing.assert_allclose(ms.grad(inner, 0)(x, x).asnumpy(), 6 * x.asnumpy())
