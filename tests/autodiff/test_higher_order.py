"""Gradients of gradients: exact to 4th order, mixed partials, no perturbation confusion."""
import math

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, ops
from minispore.testing import check_grads


def nth(f, n):
    for _ in range(n):
        f = ms.grad(f)
    return f


@pytest.mark.parametrize("x", [-1.3, 0.0, 0.5, 2.0])
def test_fourth_derivative_of_sin_times_exp(x):
    g4 = nth(lambda t: ops.sin(t) * ops.exp(t), 4)(Tensor(np.float64(x)))
    np.testing.assert_allclose(g4.asnumpy(), -4 * math.exp(x) * math.sin(x), rtol=1e-12,
                               atol=1e-14)


@pytest.mark.parametrize("fn,d4", [(ops.sin, math.sin), (ops.exp, math.exp),
                                   (ops.cos, math.cos)])
def test_fourth_derivatives_of_sin_exp_cos(fn, d4):
    x = 0.7
    np.testing.assert_allclose(nth(fn, 4)(Tensor(np.float64(x))).asnumpy(), d4(x), rtol=1e-13)


def test_fifth_and_sixth_order():
    x = Tensor(np.float64(0.3))
    np.testing.assert_allclose(nth(lambda t: t ** 6, 5)(x).asnumpy(), 720 * 0.3, rtol=1e-12)
    np.testing.assert_allclose(nth(lambda t: t ** 6, 6)(x).asnumpy(), 720, rtol=1e-12)


def test_mixed_partials():
    f = lambda x, y: (x * x * y * y * y).sum()  # noqa: E731
    x, y = Tensor(np.float64(1.5)), Tensor(np.float64(-0.5))
    dxdy = ms.grad(lambda a, b: ms.grad(f, 0)(a, b), 1)(x, y)
    np.testing.assert_allclose(dxdy.asnumpy(), 6 * 1.5 * 0.25, rtol=1e-13)
    dydx = ms.grad(lambda a, b: ms.grad(f, 1)(a, b), 0)(x, y)
    np.testing.assert_allclose(dydx.asnumpy(), dxdy.asnumpy(), rtol=1e-14)


def hessian(f, x):
    n = x.size
    rows = []
    for i in range(n):
        e = np.zeros(n)
        e[i] = 1.0
        row = ms.grad(lambda t: (ms.grad(f)(t) * Tensor(e.reshape(x.shape))).sum())(x)
        rows.append(row.asnumpy().reshape(-1))
    return np.array(rows)


def test_hessian_of_squared_sum_is_not_dropped():
    # MindSpore 2.10 returns 0 here: second order drops the product's cross term.
    x = Tensor(np.array([1.0, 2.0, -0.5]))
    np.testing.assert_allclose(hessian(lambda t: t.sum() ** 2, x), 2 * np.ones((3, 3)))
    np.testing.assert_allclose(hessian(lambda t: t.sum() * t.sum(), x), 2 * np.ones((3, 3)))


def test_second_derivative_of_a_product_of_dependent_operands():
    x = Tensor(np.float64(1.3))
    np.testing.assert_allclose(nth(lambda t: t * t * t, 2)(x).asnumpy(), 6 * 1.3, rtol=1e-14)
    np.testing.assert_allclose(nth(lambda t: ops.sin(t) * ops.cos(t), 2)(x).asnumpy(),
                               -2 * math.sin(2 * 1.3), rtol=1e-13)


def test_no_perturbation_confusion():
    # d/dx [ d/dy (x * y) at y = x ] = d/dx x = 1, not 2.
    x = Tensor(np.float64(3.0))
    g = ms.grad(lambda a: ms.grad(lambda b: a * b)(a))(x)
    np.testing.assert_allclose(g.asnumpy(), 1.0)


def test_value_and_grad_inside_grad():
    def f(x):
        v, g = ms.value_and_grad(lambda t: (t ** 3).sum())(x)
        return v + g.sum()  # x^3 + 3 x^2
    x = Tensor(np.array([0.5, -1.0]))
    np.testing.assert_allclose(ms.grad(f)(x).asnumpy(), 3 * x.asnumpy() ** 2 + 6 * x.asnumpy())


def test_gradient_penalty_through_dense_and_tanh():
    rng = np.random.default_rng(1)
    w = Parameter(Tensor(rng.standard_normal((3, 4))), name="w")
    x = Tensor(rng.standard_normal((5, 4)))

    def critic(inp):
        return ops.tanh(ops.matmul(inp, ops.transpose(w, (1, 0)))).sum()

    def penalty(inp):
        g = ms.grad(critic)(inp)
        return ((g * g).sum(axis=1) - 1.0).square().sum()

    gw = ms.grad(penalty, None, w)(x)

    def penalty_of_w(wv):
        def crit(inp):
            return ops.tanh(ops.matmul(inp, ops.transpose(wv, (1, 0)))).sum()
        g = ms.grad(crit)(x)
        return ((g * g).sum(axis=1) - 1.0).square().sum()

    eps = 1e-6
    num = np.zeros((3, 4))
    base = w.asnumpy()
    for idx in np.ndindex(3, 4):
        p, m = base.copy(), base.copy()
        p[idx] += eps
        m[idx] -= eps
        num[idx] = (penalty_of_w(Tensor(p)).asnumpy() - penalty_of_w(Tensor(m)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(gw.asnumpy(), num, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name,fn", [
    ("softmax", lambda x: ops.softmax(x, -1) * x),
    ("log_softmax", lambda x: ops.log_softmax(x, 0)),
    ("logsumexp", lambda x: ops.logsumexp(x, 1)),
    ("broadcast chain", lambda x: (x * x.sum(axis=0, keepdims=True) / (x.mean() + 3.0)).tanh()),
    ("getitem chain", lambda x: x[::-1, 1:] * x[0, 1:]),
    ("matmul", lambda x: ops.matmul(x, x.T)),
    ("norm", lambda x: ops.norm(x) * x),
])
def test_third_order_through_composites(name, fn):
    x = Tensor(np.random.default_rng(2).standard_normal((3, 3)))
    check_grads(fn, [x], order=3)
