"""Derivatives of `prod` and `cumprod` are exact at every order where the input has zeros.

The product P of a group is multilinear, so its derivatives are products over what is left:
d P / d x_i = prod_{k != i} x_k, d2 P / d x_i d x_j = prod_{k != i, j} x_k (0 for i == j), and
so on. Every test here puts 0, 1, 2 or 3 zeros in each group (where division-based rules and
"not implemented" errors used to be) and checks reverse and forward mode against float64 central
differences (`check_grads`), plus the exact Hessian-vector product against that formula.
"""
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minispore as ms
from minispore import Tensor, ops

from ..helpers import strategies as S
from ..helpers.gradcheck import check_grads

# Magnitudes in [0.5, 2] apart from the planted zeros: products of up to 64 such values stay in
# a range where central differences resolve 1e-6 relative.
_NONZERO = S.Domain(-2, 2, avoid=(0.0,), gap=0.5)
_ZEROS = st.sampled_from([0, 1, 2, 3])
_FEW = settings(max_examples=8, deadline=None)


def _axes_tuple(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(a % ndim for a in ((axis,) if isinstance(axis, int) else axis)))


def _plant_zeros(data, x, axes, zeros):
    """x with `zeros` zeros (all, in groups smaller than that) at random places in each group
    along `axes`."""
    rest = [i for i in range(x.ndim) if i not in axes]
    perm = rest + list(axes)
    moved = np.transpose(x, perm).copy()
    flat = moved.reshape(-1, math.prod(moved.shape[len(rest):]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1), label="seed"))
    for row in flat:
        row[rng.choice(row.size, min(zeros, row.size), replace=False)] = 0.0
    return np.transpose(flat.reshape(moved.shape), np.argsort(perm))


def _draw_prod_case(data, max_side=4):
    shape = data.draw(S.shapes(0, 3, max_side=max_side), label="shape")
    axis = data.draw(S.axes(len(shape)), label="axis")
    keep_dims = data.draw(st.booleans(), label="keep_dims")
    zeros = data.draw(_ZEROS, label="zeros")
    x = data.draw(S.arrays(shape, _NONZERO), label="x")
    x = _plant_zeros(data, x, _axes_tuple(axis, len(shape)), zeros)
    return x, (() if axis is None else axis), keep_dims


def _draw_cumprod_case(data, max_side=4):
    shape = data.draw(S.shapes(1, 3, max_side=max_side), label="shape")
    dim = data.draw(st.integers(-len(shape), len(shape) - 1), label="dim")
    zeros = data.draw(_ZEROS, label="zeros")
    x = data.draw(S.arrays(shape, _NONZERO), label="x")
    return _plant_zeros(data, x, (dim % len(shape),), zeros), dim


def _hessian_of_product(v):
    """d2 prod(v) / d v_i d v_j by the formula, one product per entry (no division)."""
    n = v.size
    h = np.zeros((n, n))
    for i, j in itertools.permutations(range(n), 2):
        h[i, j] = np.prod(np.delete(v, [i, j]))
    return h


# ---- the issue's example ------------------------------------------------------------------------

def test_issue_example_second_derivative_of_prod_at_a_zero():
    """For x = [0, 2, 3], P = x0 x1 x2 has Hessian [[0, x2, x1], [x2, 0, x0], [x1, x0, 0]] =
    [[0, 3, 2], [3, 0, 0], [2, 0, 0]]: the gradient of sum(grad P) is H @ ones = [5, 3, 2]."""
    x = Tensor(np.array([0.0, 2.0, 3.0]))
    grad_prod = ms.grad(lambda y: ops.prod(y))
    hvp = ms.grad(lambda y: ops.sum(grad_prod(y)))(x)
    np.testing.assert_array_equal(hvp.asnumpy(), [5.0, 3.0, 2.0])
    assert _hessian_of_product(x.asnumpy()) @ np.ones(3) == pytest.approx([5.0, 3.0, 2.0])
    # forward mode over reverse: the same H @ ones
    _, jv = ms.jvp(grad_prod, x, Tensor(np.ones(3)))
    np.testing.assert_array_equal(jv.asnumpy(), [5.0, 3.0, 2.0])
    # third order: d/dx (ones^T H ones) = 2 for a product of three (each ordered pair of others)
    third = ms.grad(lambda y: ops.sum(ms.grad(lambda z: ops.sum(grad_prod(z)))(y)))(x)
    np.testing.assert_array_equal(third.asnumpy(), [2.0, 2.0, 2.0])
    check_grads(lambda y: ops.prod(y), [x], order=3)


# ---- prod: random groups with random zeros -------------------------------------------------------

@given(data=st.data())
def test_prod_orders_1_and_2_with_zeros(data):
    x, axis, keep_dims = _draw_prod_case(data)
    check_grads(lambda t: ops.prod(t, axis, keep_dims), [Tensor(x)], order=2)


@_FEW
@given(data=st.data())
def test_prod_order_3_with_zeros(data):
    x, axis, keep_dims = _draw_prod_case(data, max_side=3)
    check_grads(lambda t: ops.prod(t, axis, keep_dims), [Tensor(x)], order=3)


@given(data=st.data())
def test_prod_hessian_vector_product_is_exact(data):
    """grad of <grad prod, t> in reverse mode and jvp of grad prod along t, against the formula
    applied group by group."""
    x, axis, _ = _draw_prod_case(data)
    t = data.draw(S.arrays(x.shape), label="t")
    grad_prod = ms.grad(lambda y: ops.sum(ops.prod(y, axis)))
    axes = _axes_tuple(axis if axis != () else None, x.ndim)
    rest = [i for i in range(x.ndim) if i not in axes]
    perm = rest + list(axes)
    n = math.prod(x.shape[a] for a in axes)
    groups = np.transpose(x, perm).reshape(-1, n)
    dirs = np.transpose(t, perm).reshape(-1, n)
    want = np.stack([_hessian_of_product(g) @ d for g, d in zip(groups, dirs)])
    want = np.transpose(want.reshape(np.transpose(x, perm).shape), np.argsort(perm))
    rev = ms.grad(lambda y: ops.sum(grad_prod(y) * Tensor(t)))(Tensor(x))
    _, fwd = ms.jvp(grad_prod, Tensor(x), Tensor(t))
    np.testing.assert_allclose(rev.asnumpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fwd.asnumpy(), want, rtol=1e-12, atol=1e-12)


# ---- cumprod -------------------------------------------------------------------------------------

@given(data=st.data())
def test_cumprod_orders_1_and_2_with_zeros(data):
    x, dim = _draw_cumprod_case(data)
    check_grads(lambda t: ops.cumprod(t, dim), [Tensor(x)], order=2)


@_FEW
@given(data=st.data())
def test_cumprod_order_3_with_zeros(data):
    x, dim = _draw_cumprod_case(data, max_side=3)
    check_grads(lambda t: ops.cumprod(t, dim), [Tensor(x)], order=3)


@pytest.mark.parametrize("x", [[0.0, 2.0, 3.0], [2.0, 0.0, 0.0, 3.0], [0.0, 0.0, 0.0],
                               [1.5, -2.0, 0.0, 0.7, 0.0, 4.0]])
def test_cumprod_hessian_is_exact(x):
    """cumprod_j is the product of the first j + 1 elements: its Hessian contracted with the
    cotangent v is sum_{j >= max(a, b)} v_j * (product of the first j + 1 but a and b)."""
    x = np.array(x)
    n = x.size
    v, t = np.linspace(0.5, 1.5, n), np.linspace(-1.0, 2.0, n)
    want = sum(v[j] * np.pad(_hessian_of_product(x[:j + 1]), (0, n - j - 1)) for j in range(n)) @ t
    vjp = ms.grad(lambda y: ops.sum(ops.cumprod(y, 0) * Tensor(v)))
    got = ms.grad(lambda y: ops.sum(vjp(y) * Tensor(t)))(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12, atol=1e-12)


# ---- edges: empty groups, 0-d input --------------------------------------------------------------

@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("shape, axis", [((2, 0, 3), 1), ((0, 3), 0), ((0, 3), 1), ((0,), ()),
                                         ((2, 0), (0, 1))])
def test_prod_of_empty_groups(shape, axis, keep_dims):
    x = Tensor(np.zeros(shape))
    out = ops.prod(x, axis, keep_dims)
    want = np.prod(x.asnumpy(), axis=None if axis == () else axis, keepdims=keep_dims)
    np.testing.assert_array_equal(out.asnumpy(), want)
    g1 = ms.grad(lambda y: ops.sum(ops.prod(y, axis, keep_dims)))
    g2 = ms.grad(lambda y: ops.sum(g1(y)))
    g3 = ms.grad(lambda y: ops.sum(g2(y)))
    for g in (g1, g2, g3):
        got = g(x)
        assert got.shape == shape
        np.testing.assert_array_equal(got.asnumpy(), np.zeros(shape))


def test_cumprod_along_an_empty_axis():
    x = Tensor(np.zeros((2, 0)))
    assert ops.cumprod(x, 1).shape == (2, 0)
    g = ms.grad(lambda y: ops.sum(ms.grad(lambda z: ops.sum(ops.cumprod(z, 1)))(y)))(x)
    assert g.shape == (2, 0)


@pytest.mark.parametrize("value", [0.0, -1.5])
def test_zero_dimensional_input(value):
    x = Tensor(np.array(value))
    check_grads(lambda t: ops.prod(t), [x], order=3)
    check_grads(lambda t: ops.prod(t, (), True), [x], order=3)
    check_grads(lambda t: ops.cumprod(t, 0), [x], order=3)
    np.testing.assert_array_equal(ms.grad(lambda t: ops.prod(t))(x).asnumpy(), 1.0)
