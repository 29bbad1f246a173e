"""`minispore.numpy` against NumPy on random shapes and values in float64 and float32 (one
Hypothesis test per family), and float64 gradchecks at orders 1 and 2 of the differentiable
functions."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minispore.numpy as mnp
from minispore import Tensor
from minispore.testing import check_grads
from minispore.testing import strategies as S

FLOATS = [np.float64, np.float32]
SETTINGS = settings(max_examples=10, deadline=None)
TRAPZ = getattr(np, "trapezoid", None) or np.trapz


def close(got, want, dtype):
    tol = 1e-9 if np.dtype(dtype) == np.float64 else 2e-5
    assert isinstance(got, Tensor)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    assert got.asnumpy().dtype == np.dtype(dtype), (got.dtype, dtype)
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want, dtype=np.float64), rtol=tol,
                               atol=tol)


UNARY = {
    "sin": S.REALS, "cos": S.REALS, "tan": S.UNIT, "arcsin": S.UNIT, "arccos": S.UNIT,
    "arctan": S.REALS, "sinh": S.REALS, "cosh": S.REALS, "tanh": S.REALS,
    "arcsinh": S.REALS, "arccosh": S.ABOVE_ONE, "arctanh": S.UNIT, "exp": S.REALS,
    "exp2": S.REALS, "expm1": S.REALS, "log": S.POSITIVE, "log2": S.POSITIVE,
    "log10": S.POSITIVE, "log1p": S.POSITIVE, "sqrt": S.POSITIVE, "cbrt": S.AWAY_FROM_ZERO,
    "square": S.REALS, "reciprocal": S.AWAY_FROM_ZERO, "absolute": S.REALS, "fabs": S.REALS,
    "negative": S.REALS, "positive": S.REALS, "sign": S.AWAY_FROM_ZERO, "deg2rad": S.REALS,
    "rad2deg": S.REALS, "ceil": S.REALS, "floor": S.REALS, "trunc": S.REALS, "rint": S.REALS,
    "fix": S.REALS,
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(data=st.data())
def test_unary(name, dtype, data):
    x = data.draw(S.arrays(data.draw(S.shapes()), UNARY[name], dtype))
    close(getattr(mnp, name)(Tensor(x)), getattr(np, name)(x), dtype)


BINARY = {
    "add": (S.REALS, S.REALS), "subtract": (S.REALS, S.REALS),
    "multiply": (S.REALS, S.REALS), "divide": (S.REALS, S.AWAY_FROM_ZERO),
    "true_divide": (S.REALS, S.AWAY_FROM_ZERO), "power": (S.POSITIVE, S.REALS),
    "float_power": (S.POSITIVE, S.REALS), "maximum": (S.REALS, S.REALS),
    "minimum": (S.REALS, S.REALS), "arctan2": (S.REALS, S.AWAY_FROM_ZERO),
    "hypot": (S.REALS, S.REALS), "logaddexp": (S.REALS, S.REALS),
    "logaddexp2": (S.REALS, S.REALS), "copysign": (S.REALS, S.AWAY_FROM_ZERO),
    "remainder": (S.REALS, S.AWAY_FROM_ZERO), "fmod": (S.REALS, S.AWAY_FROM_ZERO),
    "floor_divide": (S.REALS, S.AWAY_FROM_ZERO), "heaviside": (S.REALS, S.REALS),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(data=st.data())
def test_binary_broadcast(name, dtype, data):
    s1, s2 = data.draw(S.broadcastable_shapes())
    d1, d2 = BINARY[name]
    x, y = data.draw(S.arrays(s1, d1, dtype)), data.draw(S.arrays(s2, d2, dtype))
    got = getattr(mnp, name)(Tensor(x), Tensor(y))
    want = getattr(np, name)(x, y)
    if name in ("remainder", "floor_divide"):  # a quotient on an integer boundary may round
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-4)
        return
    close(got, want, dtype)


REDUCTIONS = {
    "sum": {}, "mean": {}, "amax": {}, "amin": {}, "max": {}, "min": {}, "ptp": {},
    "std": {"ddof": 1}, "var": {"ddof": 0}, "nansum": {}, "nanmean": {}, "nanmax": {},
    "nanmin": {}, "nanvar": {}, "nanstd": {}, "count_nonzero": {}, "average": {},
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@SETTINGS
@given(data=st.data())
def test_reductions(name, dtype, data):
    shape = data.draw(S.shapes(min_dims=1, max_side=4).filter(lambda s: max(s) > 1))
    x = data.draw(S.arrays(shape, S.REALS, dtype))
    axis = data.draw(S.axes(len(shape)))
    kwargs = dict(REDUCTIONS[name])
    if name.startswith("nan") and x.size > 1:
        x = x.copy()
        x.reshape(-1)[0] = np.nan
    if name == "std" and (x.size if axis is None else np.prod(
            [shape[a] for a in np.atleast_1d(axis)])) < 2:
        kwargs["ddof"] = 0
    if name == "average" and isinstance(axis, tuple):
        axis = axis[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(np, name)(x, axis=axis, **kwargs)
    got = getattr(mnp, name)(Tensor(x), axis=axis, **kwargs)
    if name == "count_nonzero":
        np.testing.assert_array_equal(got.asnumpy(), want)
        return
    close(got, want, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@SETTINGS
@given(data=st.data())
def test_scans_and_differences(dtype, data):
    shape = data.draw(S.shapes(min_dims=1, max_side=5))
    x = data.draw(S.arrays(shape, S.Domain(0.5, 1.5), dtype))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    close(mnp.cumsum(Tensor(x), axis), np.cumsum(x, axis), dtype)
    close(mnp.cumprod(Tensor(x), axis), np.cumprod(x, axis), dtype)
    close(mnp.cumsum(Tensor(x)), np.cumsum(x), dtype)
    n = data.draw(st.integers(0, 2))
    close(mnp.diff(Tensor(x), n, axis), np.diff(x, n, axis), dtype)
    if x.shape[axis] > 2:
        close(mnp.gradient(Tensor(x), axis=axis), np.gradient(x, axis=axis), dtype)
        close(mnp.gradient(Tensor(x), 0.5, axis=axis, edge_order=2),
              np.gradient(x, 0.5, axis=axis, edge_order=2), dtype)
    close(mnp.trapz(Tensor(x), axis=axis), TRAPZ(x, axis=axis), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@SETTINGS
@given(data=st.data())
def test_manipulation(dtype, data):
    shape = data.draw(S.shapes(min_dims=1, max_side=4))
    x = data.draw(S.arrays(shape, S.REALS, dtype))
    nd = len(shape)
    ax = data.draw(st.integers(-nd, nd - 1))
    ax2 = data.draw(st.integers(-nd, nd - 1))
    t = Tensor(x)
    close(mnp.flip(t, ax), np.flip(x, ax), dtype)
    close(mnp.roll(t, 3, ax), np.roll(x, 3, ax), dtype)
    close(mnp.roll(t, -2), np.roll(x, -2), dtype)
    close(mnp.moveaxis(t, ax, ax2), np.moveaxis(x, ax, ax2), dtype)
    close(mnp.swapaxes(t, ax, ax2), np.swapaxes(x, ax, ax2), dtype)
    close(mnp.rollaxis(t, ax, 0), np.rollaxis(x, ax, 0), dtype)
    close(mnp.transpose(t), np.transpose(x), dtype)
    close(mnp.repeat(t, 2, ax), np.repeat(x, 2, ax), dtype)
    reps = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=4)))
    close(mnp.tile(t, reps), np.tile(x, reps), dtype)
    close(mnp.expand_dims(t, ax), np.expand_dims(x, ax), dtype)
    close(mnp.concatenate([t, t], ax), np.concatenate([x, x], ax), dtype)
    close(mnp.stack([t, t], ax), np.stack([x, x], ax), dtype)
    close(mnp.append(t, t, ax), np.append(x, x, ax), dtype)
    for got, want in zip(mnp.array_split(t, 3, ax), np.array_split(x, 3, ax)):
        close(got, want, dtype)
    if nd >= 2:
        k = data.draw(st.integers(-5, 5))
        close(mnp.rot90(t, k, (ax, (ax + 1) % nd)), np.rot90(x, k, (ax, (ax + 1) % nd)), dtype)
        off = data.draw(st.integers(-2, 2))
        close(mnp.diagonal(t, off), np.diagonal(x, off), dtype)
        close(mnp.trace(t, off), np.trace(x, off), dtype)
        close(mnp.tril(t, off), np.tril(x, off), dtype)
        close(mnp.triu(t, off), np.triu(x, off), dtype)
    width = data.draw(st.integers(0, 3))
    for mode in ("constant", "edge", "reflect", "symmetric", "wrap", "maximum", "minimum",
                 "mean", "median", "linear_ramp"):
        if mode == "reflect" and min(shape) < 2:
            continue
        close(mnp.pad(t, width, mode=mode), np.pad(x, width, mode=mode), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@SETTINGS
@given(data=st.data())
def test_products(dtype, data):
    m, k, n = (data.draw(st.integers(1, 4)) for _ in range(3))
    a = data.draw(S.arrays((m, k), S.REALS, dtype))
    b = data.draw(S.arrays((k, n), S.REALS, dtype))
    v = data.draw(S.arrays((k,), S.REALS, dtype))
    c = data.draw(S.arrays((2, m, k), S.REALS, dtype))
    close(mnp.matmul(Tensor(a), Tensor(b)), a @ b, dtype)
    close(mnp.dot(Tensor(a), Tensor(v)), np.dot(a, v), dtype)
    close(mnp.dot(Tensor(c), Tensor(b)), np.dot(c, b), dtype)
    close(mnp.inner(Tensor(a), Tensor(c)), np.inner(a, c), dtype)
    close(mnp.outer(Tensor(a), Tensor(v)), np.outer(a, v), dtype)
    close(mnp.tensordot(Tensor(c), Tensor(b), 1), np.tensordot(c, b, 1), dtype)
    close(mnp.tensordot(Tensor(c), Tensor(a), ([1, 2], [0, 1])),
          np.tensordot(c, a, ([1, 2], [0, 1])), dtype)
    close(mnp.kron(Tensor(a), Tensor(b)), np.kron(a, b), dtype)
    close(mnp.kron(Tensor(v), Tensor(c)), np.kron(v, c), dtype)
    close(mnp.multi_dot([Tensor(v), Tensor(b), Tensor(b.T)]), np.linalg.multi_dot([v, b, b.T]),
          dtype)
    p = data.draw(S.arrays((m, data.draw(st.sampled_from([2, 3]))), S.REALS, dtype))
    q = data.draw(S.arrays((m, data.draw(st.sampled_from([2, 3]))), S.REALS, dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        want = np.cross(p, q)
    close(mnp.cross(Tensor(p), Tensor(q)), want, dtype)
    for ord_ in (None, 1, 2, np.inf, -np.inf, 3):
        close(mnp.norm(Tensor(v), ord_), np.linalg.norm(v, ord_), dtype)
    for ord_ in (None, "fro", 1, -1, np.inf, -np.inf, 2, -2, "nuc"):
        close(mnp.norm(Tensor(a), ord_), np.linalg.norm(a, ord_), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@SETTINGS
@given(data=st.data())
def test_signals_and_polynomials(dtype, data):
    n, m = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    a = data.draw(S.arrays((n,), S.REALS, dtype))
    v = data.draw(S.arrays((m,), S.REALS, dtype))
    for mode in ("full", "same", "valid"):
        close(mnp.convolve(Tensor(a), Tensor(v), mode), np.convolve(a, v, mode), dtype)
        close(mnp.correlate(Tensor(a), Tensor(v), mode), np.correlate(a, v, mode), dtype)
    close(mnp.polyadd(Tensor(a), Tensor(v)), np.polyadd(a, v), dtype)
    close(mnp.polysub(Tensor(a), Tensor(v)), np.polysub(a, v), dtype)
    close(mnp.polymul(Tensor(a), Tensor(v)), np.convolve(a, v), dtype)  # no leading-zero trim
    close(mnp.polyval(Tensor(a), Tensor(v)), np.polyval(a, v), dtype)
    close(mnp.polyder(Tensor(a), 2), np.polyder(a, 2), dtype)
    close(mnp.polyint(Tensor(a), 2, [1.0, -1.0]), np.polyint(a, 2, [1.0, -1.0]), dtype)
    close(mnp.vander(Tensor(a), 4), np.vander(a, 4), dtype)
    xp = np.sort(a) + np.arange(n, dtype=dtype)
    fp = np.asarray(a[::-1])
    x = data.draw(S.arrays((m,), S.Domain(-4, 9), dtype))
    close(mnp.interp(Tensor(x), Tensor(xp), Tensor(fp)), np.interp(x, xp, fp), dtype)
    ph = np.cumsum(np.abs(a) * 3).astype(dtype)
    close(mnp.unwrap(Tensor(ph)), np.unwrap(ph), dtype)
    close(mnp.ediff1d(Tensor(a), to_begin=Tensor(v)), np.ediff1d(a, to_begin=v), dtype)
    if n > 1:
        close(mnp.cov(Tensor(np.stack([a, a * a])), dtype=dtype), np.cov(np.stack([a, a * a])),
              dtype)


@SETTINGS
@given(data=st.data())
def test_histograms_and_indices(data):
    x = data.draw(S.arrays((data.draw(st.integers(1, 12)),), S.REALS, np.float32))
    bins = data.draw(st.integers(1, 5))
    h, e = mnp.histogram(Tensor(x), bins)
    wh, we = np.histogram(x, bins)
    np.testing.assert_allclose(h.asnumpy(), wh)
    np.testing.assert_allclose(e.asnumpy(), we, rtol=1e-5, atol=1e-6)
    edges = np.sort(data.draw(S.arrays((bins + 1,), S.REALS, np.float32)))
    for right in (False, True):
        np.testing.assert_array_equal(mnp.digitize(Tensor(x), Tensor(edges), right).asnumpy(),
                                      np.digitize(x, edges, right))
    for side in ("left", "right"):
        np.testing.assert_array_equal(
            mnp.searchsorted(Tensor(edges), Tensor(x), side).asnumpy(),
            np.searchsorted(edges, x, side))
    ints = (np.abs(x) * 3).astype(np.int32)
    np.testing.assert_allclose(mnp.bincount(Tensor(ints)).asnumpy(), np.bincount(ints))
    h2 = mnp.histogram2d(Tensor(x), Tensor(x[::-1].copy()), bins)[0]
    np.testing.assert_allclose(h2.asnumpy(), np.histogram2d(x, x[::-1], bins)[0], atol=1e-6)


def _t(*shape, low=-1.5, high=1.5, seed=0):
    return Tensor(np.random.default_rng(seed).uniform(low, high, shape))


GRADS = {
    "std_var": (lambda x: mnp.std(x, 1, ddof=1).sum() + mnp.var(x, 0), [_t(3, 4)]),
    "average": (lambda x, w: mnp.average(x, 1, weights=w), [_t(3, 4), _t(4, low=0.5, high=2)]),
    "cov_corrcoef": (lambda x: mnp.cov(x, dtype=mnp.float64) + mnp.corrcoef(x, dtype=mnp.float64),
                     [_t(3, 5)]),
    "norms": (lambda x: mnp.norm(x, axis=1) + mnp.norm(x, 3, 0)[:3]
              + mnp.norm(x, "fro") + mnp.norm(x, 2), [_t(3, 4)]),
    "logaddexp": (lambda x, y: mnp.logaddexp(x, y) + mnp.logaddexp2(x, y),
                  [_t(3, 4), _t(3, 4, seed=1)]),
    "hypot_arctan2": (lambda x, y: mnp.hypot(x, y) * mnp.arctan2(x, y),
                      [_t(2, 3, low=0.5, high=2), _t(2, 3, low=0.5, high=2, seed=1)]),
    "cbrt_exp2_log2": (lambda x: mnp.cbrt(x) + mnp.exp2(x) + mnp.log2(x) + mnp.log10(x),
                       [_t(5, low=0.5, high=2)]),
    "cumsum_cumprod": (lambda x: mnp.cumsum(x, 1) * mnp.cumprod(x, 0), [_t(3, 4)]),
    "diff_gradient": (lambda x: mnp.diff(x, 2, 0).sum() + mnp.gradient(x, axis=1).sum()
                      + mnp.gradient(x, mnp.array([0.0, 1.0, 3.0, 3.5]), axis=1,
                                     edge_order=2).sum(), [_t(4, 4)]),
    "products": (lambda a, b: mnp.tensordot(a, b, 1).sum() + mnp.kron(a, b).sum()
                 + mnp.inner(a, a).sum() + mnp.outer(a, b).sum() + mnp.dot(a, b).sum(),
                 [_t(3, 4), _t(4, 2, seed=1)]),
    "cross": (lambda a, b: mnp.cross(a, b), [_t(4, 3), _t(4, 3, seed=1)]),
    "multi_dot": (lambda a, b: mnp.multi_dot([a, b, b.T]), [_t(3, 4), _t(4, 2, seed=1)]),
    "convolve_correlate": (lambda a, v: mnp.convolve(a, v).sum() + mnp.correlate(a, v, "same")
                           .sum(), [_t(6), _t(3, seed=1)]),
    "polys": (lambda p, x: mnp.polyval(p, x) + mnp.polyval(mnp.polyint(p), x)
              + mnp.polyval(mnp.polyder(p), x), [_t(4), _t(3, seed=1)]),
    "trapz": (lambda y, x: mnp.trapz(y, x), [_t(3, 5), Tensor(np.arange(5.0) ** 1.5)]),
    "interp": (lambda x, fp: mnp.interp(x, mnp.array([-1.0, 0.0, 1.0, 2.0]), fp),
               [Tensor(np.array([-0.5, 0.3, 1.7])), _t(4, seed=2)]),
    "pad_modes": (lambda x: mnp.pad(x, 2, mode="reflect").sum() * mnp.pad(x, 1, mode="mean")
                  .sum() + (mnp.pad(x, (1, 2), mode="linear_ramp", end_values=1.0) ** 2).sum()
                  + (mnp.pad(x, 1, mode="maximum") ** 2).sum(), [_t(3, 4)]),
    "manipulation": (lambda x: (mnp.rot90(x) * mnp.arange(12.0).reshape(4, 3)).sum()
                     + (mnp.roll(x, 2) * mnp.tile(x, (1, 1))).sum()
                     + mnp.take(x, mnp.array([0, 5, 5, 11])).sum()
                     + mnp.take_along_axis(x, mnp.array([[0], [3], [1]]), 1).sum(), [_t(3, 4)]),
    "select_choose": (lambda x, y: mnp.select([x > 0.5, x < -0.5], [x, y], 0.0)
                      + mnp.choose(mnp.array([[0, 1, 0, 1]]), (x, y)) + mnp.where(x > 0, x, y),
                      [_t(3, 4), _t(3, 4, seed=1)]),
    "diag_linspace": (lambda v, s: mnp.diag(v, 1).sum() * mnp.diagflat(v, -1)[1:, :].sum()
                      + mnp.linspace(s, v, 4, dtype=mnp.float64).sum() + mnp.trace(mnp.outer(v, v)),
                      [_t(3), _t(3, seed=3)]),
    "nan_reductions": (lambda x: mnp.nansum(x, 0) + mnp.nanmean(x, 0) + mnp.nanvar(x, 0)
                       + mnp.nanstd(x, 0, ddof=1), [_t(3, 4)]),
    "clip_heaviside_abs": (lambda x, y: mnp.clip(x, -0.5, y) + mnp.heaviside(x, y) + mnp.abs(x)
                           + mnp.radians(x) + mnp.mod(x, 0.7) + mnp.divmod(x, 0.9)[1],
                           [_t(3, 4), _t(4, low=0.1, high=1, seed=1)]),
    "matmul": (lambda a, b: mnp.matmul(a, b) + mnp.matmul(a[0], b), [_t(3, 4), _t(4, 2, seed=1)]),
    "poly_arith": (lambda p, q: mnp.polyadd(p, q) * mnp.polysub(q, p) + mnp.polymul(p, q)[3:],
                   [_t(4), _t(5, seed=1)]),
    "unwrap": (lambda p: mnp.unwrap(p * 3, axis=0), [_t(5, 2)]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradcheck(name):
    fn, args = GRADS[name]
    check_grads(fn, args, order=2)


@SETTINGS
@given(data=st.data())
def test_logic_and_sets(data):
    s1, s2 = data.draw(S.broadcastable_shapes())
    x = np.round(data.draw(S.arrays(s1, S.REALS, np.float32)), 1)
    y = np.round(data.draw(S.arrays(s2, S.REALS, np.float32)), 1)
    tx, ty = Tensor(x), Tensor(y)
    for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                 "logical_and", "logical_or", "logical_xor"):
        got = getattr(mnp, name)(tx, ty)
        assert got.dtype == mnp.bool_
        np.testing.assert_array_equal(got.asnumpy(), getattr(np, name)(x, y), err_msg=name)
    np.testing.assert_array_equal(mnp.logical_not(tx).asnumpy(), np.logical_not(x))
    np.testing.assert_array_equal(mnp.isclose(tx, ty, rtol=0.1, atol=0.2).asnumpy(),
                                  np.isclose(x, y, rtol=0.1, atol=0.2))
    np.testing.assert_array_equal(mnp.signbit(tx).asnumpy(), np.signbit(x))
    assert bool(mnp.array_equal(tx, tx).asnumpy()) and bool(mnp.array_equiv(tx, tx).asnumpy())
    ints = (x * 10).astype(np.int32).reshape(-1)
    other = (y * 10).astype(np.int32).reshape(-1)
    ti, to = Tensor(ints), Tensor(other)
    np.testing.assert_array_equal(mnp.in1d(ti, to).asnumpy(), np.isin(ints, other))
    np.testing.assert_array_equal(mnp.isin(ti, to, invert=True).asnumpy(),
                                  np.isin(ints, other, invert=True))
    np.testing.assert_array_equal(mnp.setdiff1d(ti, to).asnumpy(), np.setdiff1d(ints, other))
    np.testing.assert_array_equal(mnp.intersect1d(ti, to).asnumpy(),
                                  np.intersect1d(ints, other))
    uniq, inverse = mnp.unique(ti, return_inverse=True)
    np.testing.assert_array_equal(np.sort(uniq.asnumpy()), np.unique(ints))
    np.testing.assert_array_equal(uniq.asnumpy()[inverse.asnumpy()], ints)
    np.testing.assert_array_equal(mnp.sometrue(tx > 0).asnumpy(), np.any(x > 0))


SMOOTH_UNARY = sorted(set(UNARY) - {"ceil", "floor", "trunc", "rint", "fix", "sign"})


@pytest.mark.parametrize("name", SMOOTH_UNARY)
def test_gradcheck_unary(name):
    x = np.random.default_rng(1).uniform(0.0, 1.0, (2, 3))
    dom = UNARY[name]
    x = Tensor(dom.fix(dom.low + (dom.high - dom.low) * x))
    check_grads(getattr(mnp, name), [x], order=2)


SMOOTH_BINARY = sorted(set(BINARY) - {"floor_divide", "heaviside", "remainder", "fmod",
                                       "copysign"})


@pytest.mark.parametrize("name", SMOOTH_BINARY)
def test_gradcheck_binary(name):
    rng = np.random.default_rng(2)
    d1, d2 = BINARY[name]
    x = Tensor(d1.fix(rng.uniform(d1.low, d1.high, (2, 3))))
    y = Tensor(d2.fix(rng.uniform(d2.low, d2.high, (3,))))
    check_grads(getattr(mnp, name), [x, y], order=2)


def test_gradcheck_remainder_fmod_copysign():
    x = Tensor(np.array([[0.3, 1.7, -2.2], [2.6, -0.4, 1.1]]))
    y = Tensor(np.array([0.7, -1.3, 0.9]))
    for fn in (mnp.remainder, mnp.fmod, mnp.copysign):
        check_grads(fn, [x, y], order=2)


@pytest.mark.parametrize("name", sorted(set(REDUCTIONS) - {"count_nonzero"}))
def test_gradcheck_reductions(name):
    x = Tensor(np.random.default_rng(3).uniform(-2, 2, (3, 4)))
    kwargs = dict(REDUCTIONS[name])
    check_grads(lambda t: getattr(mnp, name)(t, axis=1, **kwargs), [x], order=2)
    check_grads(lambda t: getattr(mnp, name)(t, **kwargs), [x], order=2)


MANIPULATION = {
    "reshape": lambda t: mnp.reshape(t, (4, 3)), "ravel": mnp.ravel,
    "transpose": mnp.transpose, "moveaxis": lambda t: mnp.moveaxis(t, 0, 1),
    "rollaxis": lambda t: mnp.rollaxis(t, 1), "swapaxes": lambda t: mnp.swapaxes(t, 0, 1),
    "expand_dims": lambda t: mnp.expand_dims(t, 1), "squeeze": lambda t: mnp.squeeze(t[None]),
    "broadcast_to": lambda t: mnp.broadcast_to(t, (2, 3, 4)),
    "broadcast_arrays": lambda t: mnp.broadcast_arrays(t, t[:1])[1],
    "atleast_3d": mnp.atleast_3d, "concatenate": lambda t: mnp.concatenate((t, t * t), 1),
    "stack": lambda t: mnp.stack((t, t * t), 2), "hstack": lambda t: mnp.hstack((t, t)),
    "vstack": lambda t: mnp.vstack((t, t)), "dstack": lambda t: mnp.dstack((t, t)),
    "column_stack": lambda t: mnp.column_stack((t, t[:, 0])),
    "append": lambda t: mnp.append(t, t * 2, 0), "split": lambda t: mnp.split(t, 2, 1)[1],
    "array_split": lambda t: mnp.array_split(t, 3, 1)[0], "hsplit": lambda t: mnp.hsplit(t, 2)[0],
    "vsplit": lambda t: mnp.vsplit(t, [1])[1], "dsplit": lambda t: mnp.dsplit(t[..., None], 1)[0],
    "tile": lambda t: mnp.tile(t, (2, 1)), "repeat": lambda t: mnp.repeat(t, [1, 0, 2], 0),
    "flip": mnp.flip, "fliplr": mnp.fliplr, "flipud": mnp.flipud,
    "roll": lambda t: mnp.roll(t, (1, 2), (0, 1)), "rot90": lambda t: mnp.rot90(t, 3),
    "where": lambda t: mnp.where(t > 0, t, t * t), "take": lambda t: mnp.take(t, mnp.array([1, 1]), 1),
    "take_along_axis": lambda t: mnp.take_along_axis(t, mnp.array([[2], [0], [1]]), 1),
    "choose": lambda t: mnp.choose(mnp.array([1, 0, 1, 0]), (t, t * t)),
    "select": lambda t: mnp.select([t > 0], [t * 3], -1.0),
    "piecewise": lambda t: mnp.piecewise(t, [t < 0], [lambda s: s * s, lambda s: s * 3]),
    "apply_along_axis": lambda t: mnp.apply_along_axis(lambda r: r * r.sum(), 1, t),
    "apply_over_axes": lambda t: mnp.apply_over_axes(mnp.sum, t, [0, 1]),
    "pad": lambda t: mnp.pad(t, ((1, 2), (2, 1)), mode="symmetric"),
    "tril": mnp.tril, "triu": lambda t: mnp.triu(t, 1), "diagonal": mnp.diagonal,
    "trace": mnp.trace, "diag": lambda t: mnp.diag(t) + mnp.diag(mnp.diag(t))[0],
    "diagflat": mnp.diagflat, "array": lambda t: mnp.array(t, ndmin=3),
    "asarray": mnp.asarray, "asfarray": lambda t: mnp.asfarray(t, mnp.float64),
    "full": lambda t: mnp.full((2, 3, 4), t), "full_like": lambda t: mnp.full_like(t, t[0]),
    "meshgrid": lambda t: mnp.meshgrid(t[0], t[1])[1], "ix_": lambda t: mnp.ix_(t[0], t[1])[0],
    "vander": lambda t: mnp.vander(t[0]), "atleast_2d": lambda t: mnp.atleast_2d(t[0]),
    "linspace": lambda t: mnp.linspace(t[0], t[1], 5, dtype=mnp.float64),
    "logspace": lambda t: mnp.logspace(t[0], t[1], 3, dtype=mnp.float64),
    "geomspace": lambda t: mnp.geomspace(t[0] + 3, t[1] + 3, 3, dtype=mnp.float64),
    "nancumsum": lambda t: mnp.nancumsum(t, 1), "ediff1d": mnp.ediff1d,
    "histogram_bin_edges": lambda t: mnp.histogram_bin_edges(t[0], bins=t[1]),
}


@pytest.mark.parametrize("name", sorted(MANIPULATION))
def test_gradcheck_manipulation_and_creation(name):
    x = Tensor(np.random.default_rng(4).uniform(-2, 2, (3, 4)))
    check_grads(MANIPULATION[name], [x], order=2)


INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8]


@pytest.mark.parametrize("dtype", INTS)
@SETTINGS
@given(data=st.data())
def test_integer_dtype_rules(dtype, data):
    """Integer inputs against NumPy, with the results cast to MindSpore's dtypes."""
    shape = data.draw(S.shapes(min_dims=1, max_side=4))
    x = data.draw(st.builds(lambda s: np.random.default_rng(s).integers(0, 9, shape),
                            st.integers(0, 2 ** 16))).astype(dtype)
    y = (x[..., ::-1] % 4 + 1).astype(dtype)
    t, u = Tensor(x), Tensor(y)
    own = t.dtype

    def same(got, want, ms_dtype):
        assert got.dtype == ms_dtype, (got.dtype, ms_dtype)
        np.testing.assert_allclose(got.asnumpy().astype(np.float64),
                                   np.asarray(want).astype(np.float64), rtol=1e-6, atol=1e-6)

    same(mnp.add(t, u), x + y, own)
    same(mnp.multiply(t, 3), x * dtype(3), own)
    same(mnp.floor_divide(t, u), x // y, own)
    same(mnp.remainder(t, u), x % y, own)
    same(mnp.maximum(t, u), np.maximum(x, y), own)
    same(mnp.square(t), x * x, own)
    same(mnp.absolute(t), np.abs(x), own)
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    same(mnp.divide(t, u), (xf / yf).astype(np.float32), mnp.float32)
    same(mnp.sqrt(t), np.sqrt(xf).astype(np.float32), mnp.float32)
    same(mnp.sin(t), np.sin(xf).astype(np.float32), mnp.float32)
    same(mnp.sum(t), np.sum(x.astype(np.int64)), mnp.int64)
    same(mnp.cumsum(t), np.cumsum(x.astype(np.int64)),
         own if np.dtype(dtype).itemsize >= 4 else mnp.int32)
    same(mnp.mean(t, 0), np.trunc(np.mean(x, 0)), own)
    same(mnp.amax(t), np.max(x), own)
    same(mnp.var(t), np.var(xf).astype(np.float32), mnp.float32)
    same(mnp.count_nonzero(t), np.count_nonzero(x), mnp.int32)
    same(mnp.argmax(t), np.argmax(x), mnp.int64)
    same(mnp.argmin(t), np.argmin(x), mnp.int32)
    same(mnp.bitwise_xor(t, u), x ^ y, own)
    same(mnp.gcd(t, u), np.gcd(x, y), own)
    same(mnp.equal(t, u), x == y, mnp.bool_)
    same(mnp.add(t, 1.5), (xf + 1.5).astype(np.float32), mnp.float32)


@SETTINGS
@given(data=st.data())
def test_creation(data):
    n = data.draw(st.integers(1, 6))
    m = data.draw(st.integers(1, 6))
    k = data.draw(st.integers(-3, 3))
    lo, hi = data.draw(st.floats(-3, 3)), data.draw(st.floats(-3, 3))
    endpoint = data.draw(st.booleans())

    def same(got, want, dtype=np.float32):
        assert got.asnumpy().dtype == dtype
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)

    same(mnp.linspace(lo, hi, n, endpoint), np.linspace(lo, hi, n, endpoint))
    same(mnp.logspace(lo, hi, n, endpoint, base=2.0), np.logspace(lo, hi, n, endpoint, base=2.0))
    same(mnp.geomspace(abs(lo) + 0.5, abs(hi) + 0.5, n, endpoint),
         np.geomspace(abs(lo) + 0.5, abs(hi) + 0.5, n, endpoint))
    same(mnp.eye(n, m, k), np.eye(n, m, k))
    same(mnp.tri(n, m, k, mnp.int32), np.tri(n, m, k), np.int32)
    step = data.draw(st.sampled_from([1, 2, -1]))
    same(mnp.arange(k, k + 5 * step, step), np.arange(k, k + 5 * step, step), np.int32)
    same(mnp.arange(lo, lo + 3, 0.5), np.arange(lo, lo + 3, 0.5))
    v = data.draw(S.arrays((n,), S.REALS, np.float32))
    same(mnp.diag(Tensor(v), k), np.diag(v, k))
    same(mnp.diagflat(Tensor(v), k), np.diagflat(v, k))
    same(mnp.vander(Tensor(v), m, increasing=True), np.vander(v, m, increasing=True))
    w = data.draw(S.arrays((m,), S.REALS, np.float32))
    for got, want in zip(mnp.meshgrid(Tensor(v), Tensor(w), indexing="ij"),
                         np.meshgrid(v, w, indexing="ij")):
        same(got, want)
    for got, want in zip(mnp.tril_indices(n, k, m), np.tril_indices(n, k, m)):
        same(got, want, np.int32)
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        same(getattr(mnp, name)(n), getattr(np, name)(n))
    same(mnp.full((n, m), lo), np.full((n, m), lo))
    same(mnp.identity(n, mnp.float64), np.identity(n), np.float64)
