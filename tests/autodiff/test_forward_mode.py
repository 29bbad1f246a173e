"""jvp, vjp, linearize (docs/forward_mode.md): MindSpore 2.10's result structures, values,
the transposition identity <w, J u> = <J^T w, u> over the primitive registry, composition with
grad, misuse errors and tape hygiene."""
import gc
import threading
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore._autodiff import tape as _tape
from minispore.testing import check_grads

from ..ops.spec_table import SPECS

X = Tensor(np.array([[1, 2], [3, 4]], np.float32))
Y = Tensor(np.array([[1, 2], [3, 4]], np.float32))
ONES = Tensor(np.ones((2, 2), np.float32))


def cube_plus(x, y):
    return x ** 3 + y


def close(t, expected, rtol=1e-6):
    np.testing.assert_allclose(t.asnumpy(), np.asarray(expected), rtol=rtol)


def no_transform_left():
    return _tape._state.tape is None and _tape._active == 0


# ---- jvp: structures and values (MindSpore's documented example) ---------------------------------

def test_jvp_of_mindsporess_example():
    out, jv = ms.jvp(cube_plus, (X, Y), (ONES, ONES))
    close(out, [[2, 10], [30, 68]])
    close(jv, [[4, 13], [28, 49]])


def test_jvp_accepts_a_bare_tensor_and_lists():
    out, jv = ms.jvp(lambda x: x * x, X, ONES)
    assert isinstance(out, Tensor) and isinstance(jv, Tensor)
    close(jv, 2 * X.asnumpy())
    _, jv = ms.jvp(cube_plus, [X, Y], [ONES, ONES])
    close(jv, [[4, 13], [28, 49]])
    # MindSpore 2.10 fails to compile one input given as a 1-tuple; here it is one input.
    _, jv = ms.jvp(lambda x: x * x, (X,), (ONES,))
    close(jv, 2 * X.asnumpy())


def test_jvp_outputs_mirror_the_function_outputs():
    out, jv = ms.jvp(lambda x, y: (x * y, x + y), (X, Y), (ONES, ONES))
    assert isinstance(out, tuple) and isinstance(jv, tuple) and len(jv) == 2
    close(jv[0], X.asnumpy() + Y.asnumpy())
    close(jv[1], 2 * np.ones((2, 2)))
    _, jv = ms.jvp(lambda x: [x * 2, (x * 3, x)], X, ONES)
    assert isinstance(jv, list) and isinstance(jv[1], tuple)
    close(jv[1][0], 3 * np.ones((2, 2)))


def test_jvp_has_aux_is_a_flat_triple():
    out, jv, aux = ms.jvp(lambda x, y: (x ** 3 + y, y), (X, Y), (ONES, ONES), has_aux=True)
    close(out, [[2, 10], [30, 68]])
    close(jv, [[4, 13], [28, 49]])
    assert isinstance(aux, Tensor)
    close(aux, Y.asnumpy())
    _, _, aux = ms.jvp(lambda x: (x, x * 2, x * 3), X, ONES, has_aux=True)
    assert isinstance(aux, tuple) and len(aux) == 2


def test_jvp_of_an_output_that_ignores_the_inputs_is_zero():
    c = Tensor(np.array([1.0, 2.0]))
    _, jv = ms.jvp(lambda x: (x * 2, c * 3), Tensor(np.array([1.0, 1.0])),
                   Tensor(np.array([1.0, 1.0])))
    close(jv[1], [0.0, 0.0])


def test_jvp_only_counts_the_given_tangents():
    x, y = Tensor(np.array([2.0])), Tensor(np.array([5.0]))
    _, jv = ms.jvp(lambda a, b: a * b, (x, y), (Tensor(np.array([1.0])), Tensor(np.array([0.0]))))
    close(jv, [5.0])


def test_jvp_of_a_cell():
    net = nn.Dense(3, 2)
    x = Tensor(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32))
    v = Tensor(np.ones((4, 3), np.float32))
    _, jv = ms.jvp(net, x, v)
    close(jv, v.asnumpy() @ net.weight.asnumpy().T, rtol=1e-5)


# ---- vjp -----------------------------------------------------------------------------------------

def test_vjp_of_mindspores_example():
    out, vjp_fn = ms.vjp(cube_plus, X, Y)
    close(out, [[2, 10], [30, 68]])
    g = vjp_fn(ONES)
    assert isinstance(g, tuple) and len(g) == 2
    close(g[0], [[3, 12], [27, 48]])
    close(g[1], np.ones((2, 2)))


def test_vjp_of_one_input_is_a_one_tuple():
    _, vjp_fn = ms.vjp(lambda x: x * x, X)
    g = vjp_fn(ONES)
    assert isinstance(g, tuple) and len(g) == 1
    close(g[0], 2 * X.asnumpy())


def test_vjp_has_aux():
    out, vjp_fn, aux = ms.vjp(lambda x, y: (2 * x + y, y ** 3), X, Y, has_aux=True)
    close(out, [[3, 6], [9, 12]])
    close(aux, [[1, 8], [27, 64]])
    gx, gy = vjp_fn(ONES)
    close(gx, 2 * np.ones((2, 2)))
    close(gy, np.ones((2, 2)))
    _, _, aux = ms.vjp(lambda x: (x, x, x), X, has_aux=True)
    assert isinstance(aux, tuple) and len(aux) == 2


def test_vjp_cotangents_separately_or_as_one_tuple():
    _, vjp_fn = ms.vjp(lambda x, y: (x * 2, y * 3), X, Y)
    a = vjp_fn(ONES, ONES)
    b = vjp_fn((ONES, ONES))
    c = vjp_fn([ONES, ONES])
    for g in (a, b, c):
        close(g[0], 2 * np.ones((2, 2)))
        close(g[1], 3 * np.ones((2, 2)))


def test_vjp_with_weights():
    w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))

    def h(a):
        return a[:2] * w
    _, vjp_fn = ms.vjp(h, x, weights=w)
    gx, gw = vjp_fn(Tensor(np.ones(2, np.float32)))
    assert isinstance(gx, tuple) and isinstance(gw, Tensor)
    close(gx[0], [2, 3, 0])
    close(gw, [1, 2])
    _, vjp_fn = ms.vjp(h, x, weights=[w])
    gx, gw = vjp_fn(Tensor(np.ones(2, np.float32)))
    assert isinstance(gw, tuple) and len(gw) == 1
    close(gw[0], [1, 2])


def test_vjp_fn_reuses_one_forward():
    calls = []

    def f(x):
        calls.append(1)
        return ops.sin(x) * x
    x = Tensor(np.array([0.3, -1.2, 2.0]))
    _, vjp_fn = ms.vjp(f, x)
    for k in range(3):
        u = Tensor(np.array([1.0, -2.0, 0.5]) * (k + 1))
        (g,) = vjp_fn(u)
        xv = x.asnumpy()
        close(g, u.asnumpy() * (np.cos(xv) * xv + np.sin(xv)), rtol=1e-13)
    assert len(calls) == 1


def test_vjp_fn_keeps_its_record_alive_until_dropped():
    refs = []

    def f(x):
        y = ops.exp(x)
        refs.append(weakref.ref(y))
        return y * x
    _, vjp_fn = ms.vjp(f, Tensor(np.array([1.0, 2.0])))
    vjp_fn(Tensor(np.array([1.0, 1.0])))
    assert refs[0]() is not None  # saved for further calls
    del vjp_fn
    assert refs[0]() is None


def test_vjp_fn_is_differentiable_in_the_cotangent_and_inside_grad():
    x = Tensor(np.array([0.5, 1.5]))
    _, vjp_fn = ms.vjp(lambda a: a ** 3, x)
    # d/du sum(vjp_fn(u)) = 3 x^2
    g = ms.grad(lambda u: vjp_fn(u)[0].sum())(Tensor(np.array([1.0, 1.0])))
    close(g, 3 * x.asnumpy() ** 2, rtol=1e-13)

    def grad_norm(a):
        _, f = ms.vjp(lambda t: ops.sin(t) * t, a)
        return (f(Tensor(np.ones(2)))[0] ** 2).sum()
    xv = x.asnumpy()
    d1 = np.cos(xv) * xv + np.sin(xv)
    d2 = -np.sin(xv) * xv + 2 * np.cos(xv)
    close(ms.grad(grad_norm)(x), 2 * d1 * d2, rtol=1e-12)


def test_vjp_fn_after_its_transform_ended_is_an_error():
    kept = []

    def f(a):
        out, vjp_fn = ms.vjp(lambda t: t * t, a)
        kept.append(vjp_fn)
        return out.sum()
    ms.grad(f)(Tensor(np.array([1.0, 2.0])))
    with pytest.raises(RuntimeError, match="after the transform"):
        kept[0](Tensor(np.array([1.0, 1.0])))
    assert no_transform_left()


# ---- linearize -----------------------------------------------------------------------------------

def test_linearize_matches_jvp_for_many_tangents():
    x, y = Tensor(np.array([0.2, -0.7])), Tensor(np.array([1.1, 0.4]))

    def f(a, b):
        return ops.tanh(a * b), a + ops.exp(b)
    calls = []
    _, jvp_fn = ops.linearize(lambda a, b: calls.append(1) or f(a, b), (x, y))
    rng = np.random.default_rng(3)
    for _ in range(3):
        v = (Tensor(rng.standard_normal(2)), Tensor(rng.standard_normal(2)))
        got = jvp_fn(v)
        _, want = ms.jvp(f, (x, y), v)
        for g, w in zip(got, want):
            close(g, w.asnumpy(), rtol=1e-13)
    assert len(calls) == 1
    _, jvp_fn = ops.linearize(lambda a: a * a, x)
    close(jvp_fn(Tensor(np.array([1.0, 1.0]))), 2 * x.asnumpy())


# ---- composition with grad -----------------------------------------------------------------------

def test_forward_over_reverse_and_reverse_over_forward_hvp():
    a = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, -1.0], [0.0, 1.0, 1.0]])
    A = Tensor(a)

    def f(x):
        return 0.5 * (x * ops.matmul(A, x)).sum() + ops.sin(x).sum()
    x = Tensor(np.array([0.3, -0.5, 1.2]))
    v = Tensor(np.array([1.0, 2.0, -1.0]))
    hess = 0.5 * (a + a.T) - np.diag(np.sin(x.asnumpy()))
    _, hv = ms.jvp(ms.grad(f), x, v)                      # forward over reverse
    close(hv, hess @ v.asnumpy(), rtol=1e-12)
    hv2 = ms.grad(lambda t: ms.jvp(f, t, v)[1])(x)        # reverse over forward
    close(hv2, hess @ v.asnumpy(), rtol=1e-12)
    _, hv3 = ops.hvp(f, x, v)                             # reverse over reverse
    close(hv3, hess @ v.asnumpy(), rtol=1e-12)


def test_jvp_of_jvp_is_the_second_directional_derivative():
    x, v = Tensor(np.array([0.4, 1.3])), Tensor(np.array([0.7, -0.2]))

    def f(t):
        return ops.exp(t[0]) * ops.sin(t[1])
    _, d2 = ms.jvp(lambda t: ms.jvp(f, t, v)[1], x, v)
    a, b = x.asnumpy()
    p, q = v.asnumpy()
    want = np.exp(a) * (np.sin(b) * p * p + 2 * np.cos(b) * p * q - np.sin(b) * q * q)
    close(d2, want, rtol=1e-12)


def test_fourth_derivative_of_sin_times_exp_by_nested_jvp():
    one = Tensor(np.float64(1.0))

    def d(f):
        return lambda t: ms.jvp(f, t, one)[1]
    g = d(d(d(d(lambda t: ops.sin(t) * ops.exp(t)))))
    close(g(Tensor(np.float64(0.5))), -4 * np.exp(0.5) * np.sin(0.5), rtol=1e-12)


# ---- the transposition identity over the registry ------------------------------------------------

FORWARD_SPECS = [s for s in SPECS if s.order >= 2]


def _diff_positions(spec, args):
    return spec.diff if spec.diff is not None else tuple(
        i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype == np.float64)


@pytest.mark.parametrize("spec", FORWARD_SPECS, ids=lambda s: s.name)
@settings(max_examples=6)
@given(data=st.data())
def test_jvp_is_the_transpose_of_vjp(spec, data):
    """<w, J u> by jvp equals <J^T w, u> by vjp, and both match central differences."""
    args, attrs = spec.draw(data)
    diff = _diff_positions(spec, args)
    if not diff:
        return
    full = [Tensor(a) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a
            for a in args]

    def f(*xs):
        call = list(full)
        for i, x in zip(diff, xs):
            call[i] = x
        return spec.call(attrs, *call)
    primals = tuple(full[i] for i in diff)
    rng = np.random.default_rng(0)
    us = tuple(Tensor(rng.standard_normal(p.shape)) for p in primals)
    out, jv = ms.jvp(f, primals, us)
    outs = list(out) if isinstance(out, tuple) else [out]
    jvs = list(jv) if isinstance(jv, tuple) else [jv]
    keep = [k for k, o in enumerate(outs) if o.asnumpy().dtype.kind == "f"]
    ws = [Tensor(rng.standard_normal(outs[k].shape)) for k in keep]
    _, vjp_fn = ms.vjp(lambda *xs: tuple(
        o for k, o in enumerate(_as_list(f(*xs))) if k in keep), *primals)
    gs = vjp_fn(*ws)
    lhs = sum(float(np.sum(w.asnumpy() * jvs[k].asnumpy())) for w, k in zip(ws, keep))
    rhs = sum(float(np.sum(g.asnumpy() * u.asnumpy())) for g, u in zip(gs, us))
    assert abs(lhs - rhs) <= 1e-9 * max(1.0, abs(lhs)), (lhs, rhs)
    check_grads(lambda *a: spec.call(attrs, *a), full, order=1, modes=("fwd",),
                diff_argnums=diff)


def _as_list(out):
    return list(out) if isinstance(out, tuple) else [out]


def test_a_first_order_only_rule_refuses_forward_mode_clearly():
    x = Tensor(np.array([[3.0, 0.5], [0.2, 1.0]]))
    with pytest.raises(RuntimeError, match="second derivatives"):
        ms.jvp(lambda t: ops.operations.linalg_ops.SingularValues()(t), x, x)
    assert no_transform_left()


# ---- errors leave nothing behind -----------------------------------------------------------------

@pytest.mark.parametrize("call,exc,match", [
    (lambda: ms.jvp(cube_plus, (X, Y), (ONES,)), ValueError, "invalid length"),
    (lambda: ms.jvp(cube_plus, (X, Y), (ONES, Tensor(np.ones(3, np.float32)))), ValueError,
     "shape"),
    (lambda: ms.jvp(cube_plus, (X, Y), (ONES, Tensor(np.ones((2, 2))))), TypeError, "dtype"),
    (lambda: ms.jvp(cube_plus, (X, 2.0), (ONES, 1.0)), TypeError, "Tensor"),
    (lambda: ms.jvp(cube_plus, 3.0, ONES), TypeError, "inputs"),
    (lambda: ms.jvp(lambda x: x, X, "v"), TypeError, "'v'"),
    (lambda: ms.jvp(lambda x: x * 2, Tensor(np.array([1, 2])), Tensor(np.array([1, 1]))),
     TypeError, "floating-point"),
    (lambda: ms.jvp(lambda x: x, X, ONES, has_aux=True), ValueError, "more than one"),
    (lambda: ms.jvp(lambda x: None, X, ONES), TypeError, "None"),
    (lambda: ms.jvp(lambda x: x.argmax(), X, ONES), TypeError, "floating point"),
    (lambda: ms.jvp(lambda x: x, X, ONES, has_aux=1), TypeError, "has_aux"),
    (lambda: ms.jvp(3, X, ONES), TypeError, "callable"),
    (lambda: ms.vjp(lambda x: x, 2.0), TypeError, "Tensor"),
    (lambda: ms.vjp(lambda x: x, X, weights=[X]), TypeError, "Parameters"),
    (lambda: ms.vjp(lambda x: x, X)[1](ONES, ONES), ValueError, "one cotangent per output"),
    (lambda: ms.vjp(lambda x: x, X)[1](Tensor(np.ones(3, np.float32))), ValueError, "shape"),
    (lambda: ms.vjp(lambda x: x, X)[1](Tensor(np.ones((2, 2)))), TypeError, "dtype"),
    (lambda: ms.vjp(lambda x: x, X)[1]("u"), TypeError, "Tensor"),
    (lambda: ops.linearize(lambda x: x, X)[1]((ONES, ONES)), ValueError, "invalid length"),
])
def test_misuse_is_a_clear_error_and_leaves_no_transform(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
    assert no_transform_left()
    _, jv = ms.jvp(lambda x: x * x, X, ONES)  # and the next call works
    close(jv, 2 * X.asnumpy())


def test_an_exception_inside_fn_leaves_no_transform():
    def bad(x):
        _ = x * 2
        raise KeyError("boom")
    for call in (lambda: ms.jvp(bad, X, ONES), lambda: ms.vjp(bad, X),
                 lambda: ms.grad(lambda t: ms.jvp(bad, t, ONES)[1].sum())(X)):
        with pytest.raises(KeyError):
            call()
        assert no_transform_left()


def test_jvp_frees_everything_it_recorded():
    refs = []

    def f(x):
        y = ops.exp(x)
        refs.append(weakref.ref(y))
        return ops.sin(y) * x
    out, jv = ms.jvp(f, Tensor(np.array([1.0, 2.0])), Tensor(np.array([1.0, 0.5])))
    assert refs[0]() is None
    del out, jv
    gc.collect()
    assert refs[0]() is None


def test_jvp_in_threads_is_exact():
    results, errors = {}, []

    def work(k):
        try:
            x = Tensor(np.linspace(-1, 1, 5) * (k + 1))
            v = Tensor(np.ones(5))
            for _ in range(20):
                _, jv = ms.jvp(lambda t: ops.sin(t) * t, x, v)
            results[k] = (x.asnumpy(), jv.asnumpy())
        except Exception as e:
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for xv, jv in results.values():
        np.testing.assert_allclose(jv, np.cos(xv) * xv + np.sin(xv), rtol=1e-13)


def test_a_failed_call_rolls_back_in_place_writes():
    p = Parameter(Tensor(np.array([1.0, 2.0])), name="p")
    x = Tensor(np.array([0.5, 1.5]))

    def writes_then_fails(t):
        p[0] = 5.0
        return t * p * Tensor(np.ones(3))  # shapes that do not broadcast: fails after the write

    calls = [lambda: ms.jvp(lambda t: writes_then_fails(t) + t, x, x),
             lambda: ms.vjp(lambda t: writes_then_fails(t) + t, x),
             lambda: ms.jacfwd(lambda t: writes_then_fails(t) + t)(x),
             lambda: ms.jacrev(lambda t: writes_then_fails(t) + t)(x),
             lambda: ops.linearize(lambda t: writes_then_fails(t) + t, x),
             lambda: ops.hvp(lambda t: (writes_then_fails(t) + t).sum(), x, x)]
    for call in calls:
        with pytest.raises(ValueError):
            call()
        np.testing.assert_array_equal(p.asnumpy(), [1.0, 2.0])
        assert no_transform_left()


def test_tensor_hooks_apply_to_vjp_and_jacrev_as_to_grad():
    x = Tensor(np.array([1.0, 2.0]))
    x.register_hook(lambda g: g * 10)
    want = ms.grad(lambda t: (t * t).sum())(x).asnumpy()
    np.testing.assert_allclose(want, 20 * x.asnumpy())
    (g,) = ms.vjp(lambda t: t * t, x)[1](Tensor(np.ones(2)))
    np.testing.assert_allclose(g.asnumpy(), want)
    np.testing.assert_allclose(ms.jacrev(lambda t: (t * t).sum())(x).asnumpy(), want)
