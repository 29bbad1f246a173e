"""jacfwd, jacrev, Hessians and hvp: MindSpore 2.10's nesting of results, values against closed
forms and central differences, 4th derivatives by every composition of transforms, the cost
(one forward per Jacobian) and misuse errors."""
import math

import numpy as np
import pytest
from hypothesis import given, settings

import minispore as ms
from minispore import Tensor, ops
from minispore._autodiff import tape as _tape
from minispore.testing.strategies import Domain, arrays

JACOBIANS = [ms.jacfwd, ms.jacrev]
X3 = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
Y12 = Tensor(np.array([[4.0, 5.0]], np.float32))


def close(t, expected, rtol=1e-12, atol=0.0):
    np.testing.assert_allclose(t.asnumpy(), np.asarray(expected), rtol=rtol, atol=atol)


def one_out(a, b):
    return a * b.sum()


def two_out(a, b):
    return a * b.sum(), b * 2


def shapes(r):
    if isinstance(r, Tensor):
        return r.shape
    return tuple(shapes(x) for x in r)


# ---- structures, as MindSpore 2.10 returns them -------------------------------------------------

@pytest.mark.parametrize("jac", JACOBIANS, ids=lambda j: j.__name__)
@pytest.mark.parametrize("fn,pos,aux,expected", [
    (one_out, 0, False, (3, 3)),
    (one_out, 1, False, (3, 1, 2)),
    (one_out, (0,), False, (3, 3)),
    (one_out, (0, 1), False, ((3, 3), (3, 1, 2))),
    (one_out, (1, 0), False, ((3, 1, 2), (3, 3))),
    (two_out, 0, False, ((3, 3), (1, 2, 3))),
    (two_out, (0, 1), False, (((3, 3), (3, 1, 2)), ((1, 2, 3), (1, 2, 1, 2)))),
    (lambda a, b: (a * a).sum() * b.sum(), 0, False, (3,)),
    (lambda a, b: (a * a).sum() * b.sum(), (0, 1), False, ((3,), (1, 2))),
])
def test_result_nesting(jac, fn, pos, aux, expected):
    assert shapes(jac(fn, pos, aux)(X3, Y12)) == expected


@pytest.mark.parametrize("jac", JACOBIANS, ids=lambda j: j.__name__)
def test_has_aux(jac):
    j, aux = jac(two_out, 0, True)(X3, Y12)
    assert j.shape == (3, 3) and isinstance(aux, Tensor)
    close(aux, Y12.asnumpy() * 2)
    j, aux = jac(lambda a, b: (a * b.sum(), b * 2, a), (0, 1), True)(X3, Y12)
    assert shapes(j) == ((3, 3), (3, 1, 2))
    assert isinstance(aux, tuple) and len(aux) == 2


@pytest.mark.parametrize("jac", JACOBIANS, ids=lambda j: j.__name__)
def test_values_of_mindspores_example(jac):
    x = Tensor(np.array([[1, 2], [3, 4]], np.float32))
    z = Tensor(np.ones((2, 2), np.float32))
    j, aux = jac(lambda a, b, c: (a ** 2 + b ** 2 + c ** 2, a * b * c), 0, True)(x, x, z)
    want = np.zeros((2, 2, 2, 2))
    for i in np.ndindex(2, 2):
        want[i + i] = 2 * x.asnumpy()[i]
    close(j, want)
    close(aux, x.asnumpy() ** 2)
    jy = jac(lambda a, b: (a * b.sum(), b * 2), (0, 1))(X3, Y12)
    close(jy[0][0], 9 * np.eye(3))
    close(jy[0][1], np.broadcast_to(X3.asnumpy()[:, None, None], (3, 1, 2)))
    close(jy[1][0], np.zeros((1, 2, 3)))
    close(jy[1][1], 2 * np.eye(2).reshape(1, 2, 1, 2))


# ---- values against central differences ---------------------------------------------------------

A = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
VECTOR_FUNCTIONS = {
    "sin_times_sum": lambda x: ops.sin(x) * x.sum(),
    "softmax": lambda x: ops.softmax(x, -1),
    "tanh_affine": lambda x: ops.tanh(ops.matmul(Tensor(A), x) + 0.1),
    "cumsum_exp": lambda x: ops.cumsum(ops.exp(x * 0.5), 0),
    "outer": lambda x: (x.reshape(3, 1) * x.reshape(1, 3)).transpose(1, 0),
    "norm_and_prod": lambda x: (ops.sqrt((x * x).sum() + 1.0), x.prod()),
}


def numeric_jacobian(f, x, eps=1e-6):
    base = f(Tensor(x))
    outs = base if isinstance(base, tuple) else (base,)
    cols = [np.zeros(o.shape + x.shape) for o in outs]
    for idx in np.ndindex(x.shape):
        p, m = x.copy(), x.copy()
        p[idx] += eps
        m[idx] -= eps
        fp, fm = f(Tensor(p)), f(Tensor(m))
        fp = fp if isinstance(fp, tuple) else (fp,)
        fm = fm if isinstance(fm, tuple) else (fm,)
        for c, a, b in zip(cols, fp, fm):
            c[(Ellipsis,) + idx] = (a.asnumpy() - b.asnumpy()) / (2 * eps)
    return cols


@pytest.mark.parametrize("name", sorted(VECTOR_FUNCTIONS))
@settings(max_examples=5)
@given(x=arrays((3,), Domain(-1.5, 1.5, avoid=(0.0,), gap=0.1)))
def test_jacobians_match_central_differences(name, x):
    f = VECTOR_FUNCTIONS[name]
    want = numeric_jacobian(f, x)
    for jac in JACOBIANS:
        got = jac(f)(Tensor(x))
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            close(g, w, rtol=1e-6, atol=1e-8)


@settings(max_examples=5)
@given(x=arrays((2, 3)), y=arrays((3,)))
def test_jacfwd_equals_jacrev_for_two_inputs(x, y):
    def f(a, b):
        return ops.tanh(a * b) + ops.sin(b).sum(), (a.sum(axis=0) * b)
    fwd = ms.jacfwd(f, (0, 1))(Tensor(x), Tensor(y))
    rev = ms.jacrev(f, (0, 1))(Tensor(x), Tensor(y))
    for jf, jr in zip(fwd, rev):
        for a, b in zip(jf, jr):
            close(a, b.asnumpy(), rtol=1e-12, atol=1e-15)


# ---- Hessians and mixed partials of closed forms ------------------------------------------------

M = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, -1.0], [0.0, 1.0, 1.0]])


def quadratic_plus_sin(x):
    return 0.5 * (x * ops.matmul(Tensor(M), x)).sum() + ops.sin(x).sum()


@pytest.mark.parametrize("outer", JACOBIANS, ids=lambda j: j.__name__)
@pytest.mark.parametrize("inner", JACOBIANS + [ms.grad], ids=lambda j: j.__name__)
def test_hessian_by_every_composition(outer, inner):
    x = np.array([0.3, -0.5, 1.2])
    h = outer(inner(quadratic_plus_sin))(Tensor(x))
    close(h, 0.5 * (M + M.T) - np.diag(np.sin(x)), rtol=1e-12, atol=1e-15)


def test_hessian_of_squared_sum_keeps_the_cross_term():
    h = ms.jacfwd(ms.jacrev(lambda t: t.sum() ** 2))(Tensor(np.array([1.0, 2.0, -0.5])))
    close(h, 2 * np.ones((3, 3)))


def test_mixed_partials_of_a_closed_form():
    def f(x, y):
        return (x * x * y * y * y).sum()
    x, y = Tensor(np.array([1.5, 0.5])), Tensor(np.array([-0.5, 2.0]))
    xv, yv = x.asnumpy(), y.asnumpy()
    dxdy = ms.jacfwd(ms.jacrev(f, 0), 1)(x, y)
    dydx = ms.jacrev(ms.jacfwd(f, 1), 0)(x, y)
    close(dxdy, np.diag(6 * xv * yv ** 2))
    close(dydx, np.diag(6 * xv * yv ** 2))
    blocks = ms.jacfwd(ms.jacrev(f, (0, 1)), (0, 1))(x, y)
    close(blocks[0][0], np.diag(2 * yv ** 3))
    close(blocks[0][1], np.diag(6 * xv * yv ** 2))
    close(blocks[1][0], np.diag(6 * xv * yv ** 2))
    close(blocks[1][1], np.diag(6 * xv ** 2 * yv))


# ---- 4th derivatives ----------------------------------------------------------------------------

FOURTH = [(ops.sin, math.sin), (ops.exp, math.exp),
          (lambda t: ops.sin(t) * ops.exp(t), lambda v: -4 * math.exp(v) * math.sin(v))]


@pytest.mark.parametrize("fn,d4", FOURTH, ids=["sin", "exp", "sin_exp"])
@pytest.mark.parametrize("chain", [
    (ms.grad, ms.grad, ms.grad, ms.grad),
    (ms.jacfwd, ms.jacfwd, ms.jacfwd, ms.jacfwd),
    (ms.jacrev, ms.jacfwd, ms.grad, ms.jacrev),
    (ms.jacfwd, ms.jacrev, ms.jacfwd, ms.grad),
], ids=["grad4", "jacfwd4", "rev_fwd_grad_rev", "fwd_rev_fwd_grad"])
def test_fourth_derivatives(fn, d4, chain):
    g = fn
    for transform in chain:
        g = transform(g)
    for x in (-1.3, 0.5, 2.0):
        close(g(Tensor(np.float64(x))), d4(x), rtol=1e-12, atol=1e-14)


def test_fourth_derivative_in_float32():
    g = ms.grad(ms.grad(ms.grad(ms.grad(lambda t: ops.sin(t) * ops.exp(t)))))
    r = g(Tensor(np.float32(0.5)))
    assert r.dtype == ms.float32
    close(r, -4 * math.exp(0.5) * math.sin(0.5), rtol=1e-6)


# ---- hvp -----------------------------------------------------------------------------------------

def test_hvp_of_a_closed_form_and_of_several_inputs():
    x = np.array([0.3, -0.5, 1.2])
    v = np.array([1.0, 2.0, -1.0])
    out, hv = ops.hvp(quadratic_plus_sin, Tensor(x), Tensor(v))
    close(out, 0.5 * x @ M @ x + np.sin(x).sum())
    close(hv, (0.5 * (M + M.T) - np.diag(np.sin(x))) @ v)

    def f(a, b):
        return (a * a * b).sum()
    a, b = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    va, vb = np.array([0.5, 1.0]), np.array([2.0, 0.0])
    _, (ha, hb) = ops.hvp(f, (Tensor(a), Tensor(b)), (Tensor(va), Tensor(vb)))
    close(ha, 2 * b * va + 2 * a * vb)
    close(hb, 2 * a * va)


def test_hvp_inside_grad_is_a_third_derivative():
    # d/dx [f''(x) v] for f = sin: -cos(x) v
    v = Tensor(np.float64(2.0))
    g = ms.grad(lambda t: ops.hvp(ops.sin, t, v)[1])(Tensor(np.float64(0.7)))
    close(g, -math.cos(0.7) * 2.0)


def test_hvp_of_a_constant_function_is_zero_and_needs_a_scalar():
    _, hv = ops.hvp(lambda t: Tensor(np.float64(3.0)), Tensor(np.ones(2)), Tensor(np.ones(2)))
    close(hv, [0.0, 0.0])
    with pytest.raises(ValueError, match="one element"):
        ops.hvp(lambda t: t * 2, Tensor(np.ones(2)), Tensor(np.ones(2)))
    assert _tape._state.tape is None and _tape._active == 0


# ---- cost: one forward per Jacobian --------------------------------------------------------------

@pytest.mark.parametrize("jac", JACOBIANS, ids=lambda j: j.__name__)
def test_one_forward_per_jacobian(jac):
    calls = []

    def f(x):
        calls.append(1)
        return ops.tanh(x) * 2.0
    j = jac(f)(Tensor(np.linspace(-1, 1, 7)))
    assert j.shape == (7, 7) and len(calls) == 1


def test_jacobian_of_empty_and_constant_outputs():
    x = Tensor(np.ones(3))
    for jac in JACOBIANS:
        close(jac(lambda t: Tensor(np.ones(2)) * 5.0)(x), np.zeros((2, 3)))
        assert jac(lambda t: t[:0] * 2.0)(x).shape == (0, 3)
        assert jac(lambda t, e: t.sum() * 2.0, 1)(x, Tensor(np.ones(0))).shape == (0,)


# ---- misuse --------------------------------------------------------------------------------------

@pytest.mark.parametrize("jac", JACOBIANS, ids=lambda j: j.__name__)
@pytest.mark.parametrize("make,args,exc,match", [
    (lambda j: j(one_out, -1), (X3, Y12), ValueError, "non-negative"),
    (lambda j: j(one_out, 2), (X3, Y12), ValueError, "out of range"),
    (lambda j: j(one_out, (0, 0)), (X3, Y12), ValueError, "repeat"),
    (lambda j: j(one_out, None), (X3, Y12), TypeError, "grad_position"),
    (lambda j: j(one_out, 1), (X3, 2.0), TypeError, "Tensor"),
    (lambda j: j(one_out, 0), (Tensor(np.array([1, 2])), Y12), TypeError, "floating-point"),
    (lambda j: j(one_out, 0, True), (X3, Y12), ValueError, "more than one"),
    (lambda j: j(lambda a, b: None), (X3, Y12), TypeError, "None"),
])
def test_misuse(jac, make, args, exc, match):
    with pytest.raises(exc, match=match):
        make(jac)(*args)
    assert _tape._state.tape is None and _tape._active == 0
