"""The special functions and remaining elementwise math against MindSpore 2.10 (values, dtypes and
gradients recorded by data/make_mindspore_special.py), their signatures, and what MindSpore's CPU
kernels cannot show (fmin, quantile, fills, ... and the cummax/cummin gradients) against NumPy."""
import importlib.util
import inspect
import json
import math
import os
import sys

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.ops.operations import special_ops
from minispore.testing import check_grads

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_special.npz"))
CASES = json.loads(str(DATA["__cases__"]))
SIGNATURES = json.loads(str(DATA["__signatures__"]))
HAS_SCIPY = importlib.util.find_spec("scipy") is not None
SCIPY_CASES = ("bessel", "i0", "lgamma", "digamma", "polygamma", "mvlgamma", "Mvlgamma", "igamma",
               "betainc", "zeta")


def _run(case, overrides=None):
    env = {"ops": ops, "ms": ms}
    env.update({f"x{i}": Tensor(DATA[f"{case['name']}/in{i}"]) for i in range(case["n_in"])})
    env.update(overrides or {})
    out = eval(case["expr"], env)  # the fixture's expressions
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _value(v):
    return v.asnumpy() if isinstance(v, Tensor) else np.asarray(v)


def _close(got, want, what):
    assert got.shape == want.shape, f"{what}: shape {got.shape}, MindSpore {want.shape}"
    if want.dtype.kind == "f":
        # float64: MindSpore's float64 igamma and rad2deg agree to ~1e-8 only
        tol = {2: 2e-3, 4: 2e-5, 8: 1e-7}[want.dtype.itemsize]
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol,
                                   atol=tol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_matches_mindspore(case):
    if not HAS_SCIPY and case["name"].startswith(SCIPY_CASES):
        pytest.skip("needs SciPy (minispore[special])")
    name = case["name"]
    outs = _run(case)
    assert len(outs) == case["n_out"]
    for k, o in enumerate(outs):
        want = DATA[f"{name}/out{k}"]
        got = _value(o)
        assert got.dtype == want.dtype, f"{name} output {k}: {got.dtype}, MindSpore {want.dtype}"
        _close(got, want, f"{name} output {k}")
    if not case["diff"]:
        return
    diff = case["diff"]
    xs = [Tensor(DATA[f"{name}/in{i}"]) for i in diff]

    def loss(*args):
        total = 0
        for k, o in enumerate(_run(case, {f"x{i}": a for i, a in zip(diff, args)})):
            key = f"{name}/cot{k}"
            if key in DATA:
                total = total + (o * Tensor(DATA[key])).sum()
        return total

    grads = ops.grad(loss, grad_position=tuple(range(len(diff))))(*xs)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for i, g in zip(diff, grads):
        _close(_value(g), DATA[f"{name}/d{i}"], f"{name} gradient of x{i}")


def _signature_of(name):
    obj = getattr(ops, name)
    return str(inspect.signature(obj.__init__ if isinstance(obj, type) else obj))


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signature_matches_mindspore(name):
    assert _signature_of(name) == SIGNATURES[name]


# ---- what MindSpore's CPU kernels cannot show ----------------------------------------------------

def f32(*values):
    return Tensor(np.array(values, np.float32))


V = np.array([[1., 3., 3., 2., 5., 5.], [4., 2., 2., 1., 7., 0.]])


def test_fmin_is_nan_ignoring_min():
    """MindSpore 2.10's CPU Fmin kernel fails; NumPy's fmin is the reference."""
    x = np.array([np.nan, 1., np.nan, 2., -1.], np.float32)
    y = np.array([2., np.nan, np.nan, 3., -2.], np.float32)
    np.testing.assert_array_equal(ops.fmin(Tensor(x), Tensor(y)).asnumpy(), np.fmin(x, y))
    dx, dy = ops.grad(lambda a, b: ops.fmin(a, b).sum(), (0, 1))(Tensor(x), Tensor(y))
    np.testing.assert_array_equal(dx.asnumpy(), [0, 1, 1, 1, 0])     # two NaNs: to x
    np.testing.assert_array_equal(dy.asnumpy(), [1, 0, 0, 0, 1])


def test_fmax_fmin_split_ties():
    dx, dy = ops.grad(lambda a, b: ops.fmax(a, b).sum(), (0, 1))(f32(1., 2.), f32(1., 3.))
    np.testing.assert_array_equal(dx.asnumpy(), [0.5, 0])
    np.testing.assert_array_equal(dy.asnumpy(), [0.5, 1])


@pytest.mark.parametrize("fn", [ops.cummax, ops.cummin])
def test_cummax_cummin_gradients(fn):
    """MindSpore 2.10 has no CPU gradient for cummax/cummin: the gradient of each running value
    goes to the element at its index."""
    x = Tensor(V)
    g = np.arange(12.).reshape(2, 6)
    index = fn(x, 1)[1]
    expected = np.zeros_like(V)
    for r in range(2):
        for j in range(6):
            expected[r, index.asnumpy()[r, j]] += g[r, j]
    dx = ops.grad(lambda t: (fn(t, 1)[0] * Tensor(g)).sum())(x)
    np.testing.assert_array_equal(dx.asnumpy(), expected)
    shuffled = np.random.default_rng(1).permutation(12).astype(float).reshape(3, 4)
    check_grads(lambda t: fn(t, -1)[0], [Tensor(shuffled)], order=2)


QUANTILE_X = np.array([[1., 3., 3., 2., 5., 5.], [4., 2., 2., 1., 7., 0.]])


@pytest.mark.parametrize("q,axis,keepdims", [(0.3, None, False), (0.3, 1, True),
                                             (np.array([0.25, 0.5, 1.0]), 1, False),
                                             (np.array(0.4), 0, True), (0.0, -1, False)])
def test_quantile_against_numpy(q, axis, keepdims):
    """MindSpore 2.10's CPU Quantile kernel fails; NumPy's linear quantile is the reference."""
    qt = Tensor(q) if isinstance(q, np.ndarray) else q
    got = ops.quantile(Tensor(QUANTILE_X), qt, axis, keepdims).asnumpy()
    want = np.quantile(QUANTILE_X, q, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    check_grads(lambda t: ops.quantile(t, qt, axis, keepdims),
                [Tensor(np.random.default_rng(2).permutation(12).astype(float).reshape(2, 6))],
                order=2)


def test_nanquantile_and_quantile_with_nan():
    x = np.array([[1., np.nan, 3., 2.], [np.nan] * 4, [4., 1., 2., 6.]])
    got = ops.nanquantile(Tensor(x), Tensor(np.array([0.4, 0.9])), 1).asnumpy()
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.nanquantile(x, [0.4, 0.9], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    plain = ops.quantile(Tensor(x), 0.5, 1).asnumpy()
    np.testing.assert_allclose(plain, [np.nan, np.nan, 3.0])
    cls = ops.Quantile(dim=1, ignore_nan=True)(Tensor(x), Tensor(np.array(0.4)))
    np.testing.assert_allclose(cls.asnumpy(), want[0], rtol=1e-12)


def test_quantile_rejects_bad_q():
    with pytest.raises(ValueError, match="quantile"):
        ops.quantile(f32(1., 2.), 1.5)
    with pytest.raises(TypeError, match="quantile"):
        ops.quantile(f32(1., 2.), Tensor(np.array([0.5])))     # float64 q, float32 input
    with pytest.raises(TypeError, match="quantile"):
        ops.quantile(Tensor(np.array([1, 2], np.int32)), 0.5)


def test_fills_accumulate_countnonzero_lerpscalar():
    """MindSpore 2.10's CPU kernels for these fail (or take the wrong inputs)."""
    x = Tensor(np.array([1, 2], np.int32))
    out = ops.fills(x, Tensor(np.array(3.0, np.float32)))
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [3, 3]
    assert ops.Fills()(f32(1., 2.), 2.5).asnumpy().tolist() == [2.5, 2.5]
    with pytest.raises(ValueError, match="fills"):
        ops.fills(Tensor(np.zeros(2, np.float16)), 1e10)
    a, b = f32(1., 2.), f32(3., 4.)
    np.testing.assert_array_equal(ops.accumulate_n([a, b]).asnumpy(), [4., 6.])
    np.testing.assert_array_equal(ops.AccumulateNV2()([a, b]).asnumpy(), [4., 6.])
    with pytest.raises(ValueError, match="addn"):
        ops.addn([a, f32(1.)])
    with pytest.raises(TypeError, match="addn"):
        ops.addn([a, Tensor(np.array([1, 2], np.int32))])
    m = Tensor(np.array([[1., 0.], [2., 3.]]))
    assert ops.CountNonZero()(m).asnumpy() == 3
    np.testing.assert_array_equal(ops.CountNonZero(dims=1)(m).asnumpy(), [1, 2])
    assert ops.CountNonZero(dims=[0, 1])(m).dtype == ms.int64
    np.testing.assert_array_equal(ops.LerpScalar()(a, b, 0.5).asnumpy(), [2., 3.])


def test_check_numerics_raises():
    with pytest.raises(RuntimeError, match="NaN"):
        ops.CheckNumerics()(f32(1., np.nan))
    with pytest.raises(RuntimeError, match="Inf"):
        ops.CheckNumerics()(f32(1., np.inf))


def test_integer_inputs_refused_like_mindspore():
    i = Tensor(np.array([1, 2], np.int32))
    for fn in (ops.bessel_j0, ops.digamma, ops.deg2rad, ops.eps, ops.nan_to_num, ops.logit,
               ops.Rint()):
        if not HAS_SCIPY and fn in (ops.bessel_j0, ops.digamma):
            continue
        with pytest.raises(TypeError):
            fn(i)
    with pytest.raises(TypeError):
        ops.gcd(f32(1.), f32(2.))
    with pytest.raises(TypeError):
        ops.bitwise_left_shift(f32(1.), f32(2.))
    with pytest.raises(TypeError):
        ops.invert(Tensor(np.array([True])))
    with pytest.raises(TypeError):
        ops.logaddexp(i, i)
    with pytest.raises(TypeError):
        ops.nextafter(f32(1.), Tensor(np.array([1.])))
    with pytest.raises(TypeError):
        ops.gcd(Tensor(np.array([6], np.int8)), Tensor(np.array([4], np.int8)))
    with pytest.raises(TypeError):
        ops.lcm(Tensor(np.array([6], np.int16)), Tensor(np.array([4], np.int16)))
    half = Tensor(np.array([3.], np.float16))
    for fn in (ops.hypot, ops.nextafter, ops.fmax):
        if fn is ops.fmax:
            half = Tensor(np.array([True]))
        with pytest.raises(TypeError):
            fn(half, half)
    with pytest.raises(TypeError):
        ops.median(Tensor(np.array([1., 2.], np.float16)))
    with pytest.raises(TypeError):
        ops.nanmean(i)


@pytest.mark.skipif(not HAS_SCIPY, reason="needs SciPy")
def test_special_argument_errors():
    with pytest.raises(ValueError, match="mvlgamma"):
        ops.mvlgamma(f32(0.5, 3.), 3)
    with pytest.raises(ValueError, match="Polygamma"):
        ops.polygamma(Tensor(np.array([1, 2])), f32(1., 2.))
    with pytest.raises(TypeError, match="Polygamma"):
        ops.polygamma(Tensor(np.array(1.0, np.float32)), f32(1., 2.))
    with pytest.raises(TypeError, match="Igamma"):
        ops.igamma(f32(1.), Tensor(np.array([1.])))


def test_is_nonzero_and_predicates():
    assert ops.is_nonzero(f32(0.5)) is True and ops.is_nonzero(f32(0.)) is False
    with pytest.raises(ValueError, match="numel"):
        ops.is_nonzero(f32(1., 2.))
    assert ops.is_tensor(f32(1.)) and not ops.is_tensor(3)
    assert ops.is_floating_point(f32(1.)) and not ops.is_floating_point(
        Tensor(np.array([1], np.int32)))
    assert ops.isneginf(Tensor(np.array([1, 2], np.int32))).asnumpy().tolist() == [False, False]


@pytest.mark.skipif(not HAS_SCIPY, reason="needs SciPy")
def test_special_gradients_of_second_order():
    rng = np.random.default_rng(3)
    pos = Tensor(rng.uniform(0.5, 3, (3,)))
    pos2 = Tensor(rng.uniform(0.5, 3, (3,)))
    unit = Tensor(rng.uniform(0.1, 0.9, (3,)))
    check_grads(lambda t: ops.mvlgamma(t, 3), [Tensor(rng.uniform(1.2, 3, (3,)))], order=2)
    check_grads(lambda a, x: ops.igamma(a, x), [pos, pos2], order=2)
    check_grads(lambda a, x: ops.igammac(a, x), [pos, pos2], order=2)
    check_grads(lambda x: ops.Betainc()(pos, pos2, x), [unit], order=2)
    check_grads(lambda q: ops.zeta(pos + 1, q), [pos2], order=2)
    check_grads(lambda x: ops.polygamma(Tensor(np.array(1)), x), [pos], order=2)


def test_composites_second_order():
    rng = np.random.default_rng(4)
    x, y = Tensor(rng.uniform(-2, 2, (3, 4))), Tensor(rng.uniform(-2, 2, (4,)))
    check_grads(ops.logaddexp, [x, y], order=2)
    check_grads(ops.logaddexp2, [x, y], order=2)
    check_grads(lambda a, b: ops.copysign(a, b), [x, y], order=2, diff_argnums=(0,))
    check_grads(lambda a, b: ops.ldexp(a, b), [x, y], order=2)
    check_grads(ops.float_power, [Tensor(rng.uniform(0.5, 2, (4,))), y], order=2)
    check_grads(lambda a, b: ops.trapz(a, b), [x, Tensor(np.sort(rng.uniform(-2, 2, (4,))))],
                order=2)
    check_grads(lambda a: ops.logcumsumexp(a, 0), [x], order=2)
    check_grads(lambda a: ops.CumulativeLogsumexp(True, True)(a, 1)[:, :-1], [x], order=2)
    check_grads(lambda a: ops.CumProd(True, True)(a, 1), [x], order=2)
    check_grads(lambda a: ops.nansum(a, 1), [x], order=2)
    check_grads(lambda a: ops.nanmean(a, 0), [x], order=2)
    check_grads(lambda a: ops.frac(a), [x], order=2)
    check_grads(lambda a: ops.SquareSumAll()(a, a * 2), [x], order=2)
    check_grads(lambda a: ops.median(a, 0)[0],
                [Tensor(rng.permutation(12).astype(float).reshape(3, 4))], order=2)
    check_grads(lambda a: ops.aminmax(a, axis=1)[1],
                [Tensor(rng.permutation(12).astype(float).reshape(3, 4))], order=2)


def test_nan_and_zero_conventions():
    nan_x = f32(np.nan, np.inf, -np.inf, 1.5)
    g = ops.grad(lambda t: ops.nan_to_num(t, 0.0, 9.0, -9.0).sum())(nan_x)
    np.testing.assert_array_equal(g.asnumpy(), [0, 0, 0, 1])
    np.testing.assert_array_equal(ops.xlogy(f32(0., 0., 1.), f32(0., 2., 0.)).asnumpy(),
                                  [0., 0., -np.inf])
    dx = ops.grad(lambda a: ops.xlogy(a, f32(0., 2.)).sum())(f32(0., 0.))
    np.testing.assert_allclose(dx.asnumpy(), [0., math.log(2.)], rtol=1e-6)
    q = ops.DivNoNan()(f32(1., 0.), f32(0., 0.))
    np.testing.assert_array_equal(q.asnumpy(), [0., 0.])
    with pytest.raises(ValueError, match="TruncateDiv"):
        ops.truncate_div(Tensor(np.array([1])), Tensor(np.array([0])))


def test_mod_gradient_is_the_derivative():
    """MindSpore's CPU Mod gradient in y is -floor(x / y) (wrong where x / y < 0); minispore's is
    -trunc(x / y), the derivative of fmod."""
    x, y = f32(-7.5, 7.5), f32(3., -3.)
    dx, dy = ops.grad(lambda a, b: ops.Mod()(a, b).sum(), (0, 1))(x, y)
    np.testing.assert_array_equal(dx.asnumpy(), [1., 1.])
    np.testing.assert_array_equal(dy.asnumpy(), [2., 2.])


def test_classes_are_exported():
    from minispore.ops import operations as P
    for name in ("BesselJ0", "Igamma", "Cummax", "Median", "Mvlgamma", "CumProd", "Quantile",
                 "AddN", "TensorAdd", "Lerp", "LerpScalar", "Eps", "Fills", "SquareSumAll"):
        assert getattr(ops, name) is getattr(P, name)


def test_erfinv_in_place():
    """MindSpore 2.10 has no CPU kernel for InplaceErfinv; the values are erfinv's."""
    x = f32(0.5, -0.2, 0.0)
    out = ops.erfinv_(x)
    assert out is x
    np.testing.assert_allclose(x.asnumpy(), [0.4769362762, -0.1791434546, 0.0], rtol=1e-6)


def test_without_scipy_the_special_functions_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)  # `from scipy import ...` now fails
    needs = r"ops.bessel_j0 needs SciPy: pip install 'minispore\[special\]'"
    with pytest.raises(ImportError, match=needs):
        ops.bessel_j0(f32(1.))
    with pytest.raises(ImportError, match="igamma"):
        ops.igamma(f32(1.), f32(1.))
    assert ops.hypot(f32(3.), f32(4.)).asnumpy().tolist() == [5.0]   # NumPy-only ops still run
