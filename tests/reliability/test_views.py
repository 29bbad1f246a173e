"""Views and in-place writes (docs/reliability.md §2): a write into a view writes its base and
shows in every other view, in eager execution and under every transform alike, with exact
gradients; a write into the memory of a value saved for backward, through any view of it,
makes backward refuse; every returned gradient is its own array; integer Parameters never
receive a truncated gradient.

Random programs: views of views (reshape/view, transpose/permute/T, squeeze, unsqueeze, narrow,
movedim, swapaxes, diagonal, unbind, basic indexing) with writes at random points (setitem,
in-place methods), each run eagerly, under value_and_grad, and checked against central
differences of the eager run.
"""
import random

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.testing import check_grads


def t(*values):
    return Tensor(np.array(values, np.float64))


# ---- the examples ----------------------------------------------------------------------

def test_write_through_view_inside_value_and_grad():
    def f(w):
        base = w * 1.0
        v = base.view(6)
        v[0] = 0.0
        return (base * base).sum()

    w = Tensor(np.arange(1.0, 7.0).reshape(2, 3))
    value, grad = ms.value_and_grad(f)(w)
    assert float(f(w)) == float(value) == 90.0
    np.testing.assert_array_equal(grad.asnumpy(), [[0.0, 4.0, 6.0], [8.0, 10.0, 12.0]])


def test_row_slice_assignment_inside_grad():
    def f(w):
        out = w * 2.0
        row = out[0]
        row[:] = w[1] * 3.0
        return (out * out).sum()

    w = Tensor(np.arange(1.0, 7.0).reshape(2, 3))
    assert float(ms.value_and_grad(f)(w)[0]) == float(f(w))
    check_grads(f, (w,), order=2)


def test_scaling_a_slice_in_place_keeps_exact_gradients():
    def f(x):
        y = x * 2.0
        y[0:2] = y[0:2] * 3.0
        y[1:] *= 0.5
        return (y * y).sum()

    x = t(1.0, 2.0, 3.0)
    assert float(ms.value_and_grad(f)(x)[0]) == float(f(x))
    check_grads(f, (x,), order=2)


def test_diagonal_and_unbind_are_views_outside_transforms():
    x = Tensor(np.arange(9.0).reshape(3, 3))
    d = x.diagonal()
    d[0] = 100.0
    rows = x.unbind(0)
    rows[1][0] = -5.0
    ops.diagonal(x, 1)[0] = 7.0
    np.testing.assert_array_equal(x.asnumpy(), [[100, 7, 2], [-5, 4, 5], [6, 7, 8]])
    np.testing.assert_array_equal(d.asnumpy(), [100, 4, 8])  # the base's writes show too


def test_a_write_to_the_base_shows_in_its_views_under_a_transform():
    def f(x):
        base = x * 1.0
        head = base[:2]
        col = base.reshape(3, 1)
        base[1] = x[2] ** 2  # after the views were made
        return (head * col[:2, 0]).sum() + head.sum()

    x = t(1.0, 2.0, 3.0)
    value, grad = ms.value_and_grad(f)(x)
    assert float(value) == float(f(x)) == 1.0 + 81.0 + 10.0
    check_grads(f, (x,), order=2)


def test_a_view_of_a_differentiated_parameter_cannot_be_written():
    p = Parameter(t(1.0, 2.0, 3.0), name="p")

    def f(x):
        v = p[1:]
        v[0] = 5.0
        return (p * x).sum()

    with pytest.raises(RuntimeError, match="view of Parameter 'p'"):
        ms.grad(f, None, [p])(t(1.0, 1.0, 1.0))
    np.testing.assert_array_equal(p.asnumpy(), [1.0, 2.0, 3.0])


# ---- random programs: views and writes ---------------------------------------------------------

_VIEW_KINDS = ["view", "transpose", "squeeze", "unsqueeze", "narrow", "movedim", "swapaxes",
               "diagonal", "unbind", "index"]
_WRITE_KINDS = ["setitem_scalar", "setitem_value", "mul_", "add_", "fill_", "copy_"]


@st.composite
def programs(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    ops_ = []
    for _ in range(draw(st.integers(2, 6))):
        if draw(st.booleans()):
            ops_.append(("view", draw(st.sampled_from(_VIEW_KINDS)), draw(st.integers(0, 2**31))))
        else:
            ops_.append(("write", draw(st.sampled_from(_WRITE_KINDS)), draw(st.integers(0, 2**31))))
    weights = draw(st.lists(st.floats(-2, 2, allow_nan=False), min_size=8, max_size=8))
    x = draw(hnp.arrays(np.float64, shape, elements=st.floats(-2, 2, allow_nan=False,
                                                              allow_subnormal=False)))
    return shape, ops_, weights, x


def _make_view(kind, rng, v):
    nd = v.ndim
    if kind == "view":
        return v.view(int(np.prod(v.shape))) if rng.random() < 0.5 else v.view(v.shape[::-1]) \
            if nd and v.shape[::-1] == v.shape else v.view(-1)
    if kind == "transpose":
        return v.T if rng.random() < 0.5 else v.permute(*rng.sample(range(nd), nd))
    if kind == "squeeze":
        return v.squeeze()
    if kind == "unsqueeze":
        return v.unsqueeze(rng.randint(0, nd))
    if kind == "narrow" and nd and v.shape[0]:
        axis = 0
        start = rng.randrange(v.shape[axis])
        return v.narrow(axis, start, rng.randint(0, v.shape[axis] - start))
    if kind == "movedim" and nd:
        return v.movedim(rng.randrange(nd), rng.randrange(nd)) if hasattr(v, "movedim") \
            else ops.movedim(v, rng.randrange(nd), rng.randrange(nd))
    if kind == "swapaxes" and nd >= 2:
        return v.swapaxes(rng.randrange(nd), rng.randrange(nd))
    if kind == "diagonal" and nd >= 2:
        return v.diagonal(rng.randint(-1, 1))
    if kind == "unbind" and nd and v.shape[0]:
        return v.unbind(0)[rng.randrange(v.shape[0])]
    if kind == "index" and nd and v.shape[0]:
        return v[rng.randrange(v.shape[0])] if rng.random() < 0.5 else v[..., ::2]
    return v


def _write(kind, rng, v, x):
    if v.size == 0:
        return
    if kind == "setitem_scalar":
        v[...] = rng.uniform(-1, 1) if v.ndim == 0 or rng.random() < 0.3 else v
        if v.ndim:
            v[(rng.randrange(v.shape[0]),)] = rng.uniform(-1, 1)
    elif kind == "setitem_value":  # a value that depends on x: the gradient must reach it
        v[...] = ops.sin(x.sum() * rng.uniform(0.1, 1.0))
    elif kind == "mul_":
        v.mul_(rng.uniform(0.5, 2.0))
    elif kind == "add_":
        v.add_(x.mean() * rng.uniform(-1, 1))
    elif kind == "fill_":
        v.fill_(rng.uniform(-1, 1))
    elif kind == "copy_":
        v.copy_(ops.cos(ops.ones(v.shape, ms.float64) * x.sum()))


def _run(program, x):
    _, steps, weights, _ = program
    pool = [x * 1.0]
    for what, kind, seed in steps:
        rng = random.Random(seed)  # the same draws on every run of the program
        target = pool[int(rng.random() * len(pool))]
        if what == "view":
            pool.append(_make_view(kind, rng, target))
        else:
            _write(kind, rng, target, x)
    total = pool[0].sum() * 0.0
    for k, v in enumerate(pool):
        total = total + (v * v).sum() * weights[k % len(weights)]
    return total


@given(programs())
def test_random_view_programs_agree_eagerly_and_under_value_and_grad(program):
    x = Tensor(program[3])
    eager = _run(program, x)
    value, grad = ms.value_and_grad(lambda a: _run(program, a))(x)
    np.testing.assert_allclose(value.asnumpy(), eager.asnumpy(), rtol=1e-12, atol=1e-12)
    # central differences of the eager program
    x0 = program[3]
    num = np.zeros_like(x0)
    h = 1e-6
    for i in np.ndindex(x0.shape):
        e = np.zeros_like(x0)
        e[i] = h
        num[i] = (float(_run(program, Tensor(x0 + e))) -
                  float(_run(program, Tensor(x0 - e)))) / (2 * h)
    np.testing.assert_allclose(grad.asnumpy(), num, rtol=1e-5, atol=1e-6)


# ---- in-place writes to Parameters and their views between forward and backward ---------------

def _sgd_step(p):
    nn.SGD([p], 0.1)((Tensor(np.ones(p.shape)),))


def _adam_step(p):
    nn.Adam([p], 0.1)((Tensor(np.ones(p.shape)),))


_PARAM_WRITES = {
    "assign": lambda p: ops.assign(p, Tensor(np.full(p.shape, 2.0))),
    "assign_value": lambda p: p.assign_value(Tensor(np.full(p.shape, 3.0))),
    "copy_": lambda p: p.copy_(Tensor(np.full(p.shape, 4.0))),
    "setitem": lambda p: p.__setitem__(slice(None), 5.0),
    "set_data": lambda p: p.set_data(Tensor(np.full(p.shape, 6.0))),
    "sgd": _sgd_step,
    "adam": _adam_step,
    "through_reshape": lambda p: p.reshape(-1).__setitem__(0, 7.0),
    "through_view": lambda p: p.view(p.shape)[...].__setitem__(0, 8.0),
    "through_diagonal": lambda p: p.reshape(2, 3).diagonal().__setitem__(0, 9.0),
}
_SAVED_VIEWS = {
    "slice": lambda p: p[1:],
    "reshape": lambda p: p.reshape(3, 2)[:, 0],
    "transpose": lambda p: p.reshape(2, 3).T[0],
    "diagonal": lambda p: p.reshape(2, 3).diagonal(),
    "unbind": lambda p: p.reshape(2, 3).unbind(1)[1],
    "whole": lambda p: p * 1.0,  # no view: a product, saved by value (control)
}


@pytest.mark.parametrize("write", sorted(_PARAM_WRITES))
@pytest.mark.parametrize("view", sorted(_SAVED_VIEWS))
def test_a_write_after_a_view_was_saved_is_exact_or_loud(view, write, record_property):
    p = Parameter(Tensor(np.arange(1.0, 7.0)), name="p")
    saved = _SAVED_VIEWS[view]
    x = Tensor(np.linspace(0.5, 1.5, saved(p).shape[0]))
    out, vjp_fn = ms.vjp(lambda a: a * saved(p), x)
    expected = saved(p).asnumpy().copy()  # d(a * s)/da = s, with s as it was in the forward
    _PARAM_WRITES[write](p)
    try:
        (grad,) = vjp_fn(Tensor(np.ones(out.shape)))
    except RuntimeError as e:
        assert "modified in place" in str(e)
        assert view != "whole", "a saved product does not share the Parameter's memory"
        record_property("outcome", "loud")
    else:
        np.testing.assert_array_equal(grad.asnumpy(), expected)
        record_property("outcome", "exact")


def test_a_parameter_view_saved_then_untouched_gives_the_exact_gradient():
    p = Parameter(Tensor(np.arange(1.0, 7.0)), name="p")
    out, vjp_fn = ms.vjp(lambda a: a * p[1:4], t(1.0, 1.0, 1.0))
    other = Parameter(Tensor(np.zeros(3)), name="other")
    ops.assign(other, t(1.0, 2.0, 3.0))  # another Parameter's memory
    np.testing.assert_array_equal(vjp_fn(t(1.0, 1.0, 1.0))[0].asnumpy(), [2.0, 3.0, 4.0])


# ---- every returned gradient is its own array -----------------------------------------------

def _arrays(result):
    if isinstance(result, Tensor):
        return [result.asnumpy()]
    if isinstance(result, (tuple, list)):
        return [a for r in result for a in _arrays(r)]
    return []


def _assert_distinct(results, others=()):
    arrays = _arrays(results)
    for i, a in enumerate(arrays):
        for b in arrays[i + 1:] + [o.asnumpy() for o in others]:
            assert not np.shares_memory(a, b)


_FNS = [
    lambda a, b: (a + b).sum(),
    lambda a, b: (a + b.reshape(a.shape)).sum(),
    lambda a, b: (a * 1.0 + b[...]).sum(),
    lambda a, b: ((a - b) * 2.0).sum(),
    lambda a, b: (ops.concat((a, b)) * 1.0).sum(),
]


@pytest.mark.parametrize("k", range(len(_FNS)))
def test_gradients_of_every_transform_are_distinct_arrays(k):
    fn = _FNS[k]
    a, b = t(1.0, 2.0), t(3.0, 4.0)
    p = Parameter(t(0.5, 0.5), name="p")

    def with_p(x, y):
        return fn(x, y) + (p * x).sum()

    _assert_distinct(ms.grad(fn, (0, 1))(a, b), (a, b))
    _assert_distinct(ms.value_and_grad(fn, (0, 1))(a, b)[1], (a, b))
    _assert_distinct(ms.grad(with_p, (0, 1), [p, p])(a, b), (a, b, p))
    _assert_distinct(ms.grad(fn, (0, 1))(a, a), (a,))  # the same tensor passed twice
    sens = Tensor(np.float64(1.0))
    _assert_distinct(ms.grad(fn, (0, 1), sens_param=True)(a, b, sens), (a, b, sens))
    _assert_distinct(ops.GradOperation(get_all=True)(fn)(a, b), (a, b))
    out, vjp_fn = ms.vjp(lambda x, y: (x + y, x * 1.0), a, b)
    cot = (t(1.0, 1.0), t(1.0, 1.0))
    _assert_distinct(vjp_fn(cot), (a, b, *cot))
    v = t(1.0, -1.0)
    _, jv = ms.jvp(lambda x: (x, x * 1.0, x), a, v)
    _assert_distinct(jv, (a, v))
    _, lin = ops.linearize(lambda x: (x, x), a)
    _assert_distinct(lin(v), (a, v))
    _assert_distinct(ops.jacrev(lambda x, y: x + y, (0, 1))(a, b), (a, b))
    _assert_distinct(ops.jacfwd(lambda x, y: x + y, (0, 1))(a, b), (a, b))
    _assert_distinct(ops.hvp(lambda x: (x * x).sum(), a, v), (a, v))


# ---- integer Parameters in `weights` ------------------------------------------------------------

def test_an_integer_parameter_that_receives_a_gradient_is_refused():
    p = Parameter(Tensor(np.array([1, 2], np.int64)), name="counts")
    with pytest.raises(TypeError, match="counts.*floating-point"):
        ms.grad(lambda: (p * 2.5).sum(), None, [p])()
    with pytest.raises(TypeError, match="counts"):
        ms.value_and_grad(lambda x: (p * x).sum(), 0, [p])(t(1.0, 1.0))
    out, vjp_fn = ms.vjp(lambda x: (p * x).sum(), t(1.0, 1.0), weights=[p])
    with pytest.raises(TypeError, match="counts"):
        vjp_fn(Tensor(np.float64(1.0)))


def test_an_unused_integer_parameter_gets_zeros_like_any_unused_weight():
    step = Parameter(Tensor(np.array(3, np.int32)), name="step")
    w = Parameter(t(1.0, 2.0), name="w")
    g_step, g_w = ms.grad(lambda x: (w * x).sum(), None, [step, w])(t(2.0, 3.0))
    assert g_step.dtype == ms.int32 and int(g_step) == 0
    np.testing.assert_array_equal(g_w.asnumpy(), [2.0, 3.0])
