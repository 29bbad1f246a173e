"""Specs of the special primitives (same format as specs.py): SciPy's special functions are the
references of the SciPy-backed ones (the specs skip without SciPy)."""
import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minispore import Tensor
from minispore._autodiff.tape import apply
from minispore.ops.operations import special_ops as P

from ..helpers import strategies as S
from .specs import _draw_off_jumps, _draw_untied, arr, away_from_integers, distinct, one, spec, two

try:  # the references (and the primitives themselves) use SciPy, the `special` extra
    from scipy import special as sp
except ImportError:
    sp = None


def _needs_scipy(draw):
    """The draw of a SciPy-backed spec: skips without SciPy (the primitives need it)."""
    def drawn(data):
        if sp is None:
            pytest.skip("needs SciPy (minispore[special])")
        return draw(data)
    return drawn

NONZERO = S.Domain(-3, 3, avoid=(0.0,), gap=0.5)

# ---- gamma family -------------------------------------------------------------------------------

spec("Lgamma", _needs_scipy(one(S.POSITIVE)), lambda a, x: P.Lgamma()(x),
     lambda a, x: sp.gammaln(x), rtol=1e-12, atol=1e-13)
spec("Digamma", _needs_scipy(one(S.POSITIVE)), lambda a, x: P.Digamma()(x), lambda a, x: sp.psi(x),
     rtol=1e-12, atol=1e-13)


def _draw_polygamma(data):
    n = data.draw(st.integers(0, 3))
    shape = data.draw(S.shapes())
    return [np.array(n, np.int64), arr(data, shape, S.Domain(0.3, 4))], {}


spec("Polygamma", _needs_scipy(_draw_polygamma), lambda a, n, x: P.Polygamma()(Tensor(n), x),
     lambda a, n, x: sp.polygamma(int(n), x), rtol=1e-12, atol=1e-12)


def _draw_igamma(data):
    sa, sx = data.draw(S.broadcastable_shapes(2))
    return [arr(data, sa, S.Domain(0.5, 4)), arr(data, sx, S.Domain(0.2, 5))], {}


spec("Igamma", _needs_scipy(_draw_igamma), lambda a, s, x: P.Igamma()(s, x),
     lambda a, s, x: sp.gammainc(s, x), rtol=1e-12, atol=1e-14)
spec("Igammac", _needs_scipy(_draw_igamma), lambda a, s, x: P.Igammac()(s, x),
     lambda a, s, x: sp.gammaincc(s, x), rtol=1e-12, atol=1e-14)


def _igamma_da(s, x, h=1e-5):
    return (sp.gammainc(s + h, x) - sp.gammainc(s - h, x)) / (2 * h)


spec("IgammaGradA", _needs_scipy(_draw_igamma), lambda a, s, x: apply(P.IgammaGradA(1), (s, x)),
     lambda a, s, x: _igamma_da(s, x), rtol=1e-6, atol=1e-8, order=1,
     notes="order 1: the second a-derivative (IgammaGradA(2)) has no a-gradient of its own; the "
           "reference is a central difference of scipy's gammainc")


def _draw_betainc(data):
    shape = data.draw(S.shapes())
    return [arr(data, shape, S.Domain(0.5, 3)), arr(data, shape, S.Domain(0.5, 3)),
            arr(data, shape, S.Domain(0.1, 0.9))], {}


spec("Betainc", _needs_scipy(_draw_betainc), lambda a, p, q, x: P.Betainc()(p, q, x),
     lambda a, p, q, x: sp.betainc(p, q, x), diff=(2,), rtol=1e-12, atol=1e-14,
     notes="a and b have no gradient (as MindSpore's)")
spec("Zeta", _needs_scipy(two(S.Domain(1.5, 4), S.Domain(0.5, 3))), lambda a, x, q: P.Zeta()(x, q),
     lambda a, x, q: sp.zeta(x, q), diff=(1,), rtol=1e-12, atol=1e-14,
     notes="x has no gradient (as MindSpore's)")

# ---- Bessel functions ---------------------------------------------------------------------------

def _unary_call(cls):
    return lambda a, x: cls()(x)


def _scipy_ref(fn_name):
    return lambda a, x: getattr(sp, fn_name)(x)


for _name, _fn, _dom in [("BesselI0", "i0", S.REALS), ("BesselI0e", "i0e", S.AWAY_FROM_ZERO),
                         ("BesselI1", "i1", S.REALS), ("BesselI1e", "i1e", S.AWAY_FROM_ZERO),
                         ("BesselJ0", "j0", S.REALS), ("BesselJ1", "j1", S.REALS),
                         ("BesselY0", "y0", S.POSITIVE), ("BesselY1", "y1", S.POSITIVE),
                         ("BesselK0", "k0", S.POSITIVE), ("BesselK0e", "k0e", S.POSITIVE),
                         ("BesselK1", "k1", S.POSITIVE), ("BesselK1e", "k1e", S.POSITIVE)]:
    spec(_name, _needs_scipy(one(_dom)), _unary_call(getattr(P, _name)), _scipy_ref(_fn),
         rtol=1e-12, atol=1e-14)

# ---- elementwise --------------------------------------------------------------------------------

spec("Sinc", one(), lambda a, x: P.Sinc()(x), lambda a, x: np.sinc(x), rtol=1e-12, atol=1e-14)
spec("Rint", _draw_off_jumps(0.5), lambda a, x: P.Rint()(x), lambda a, x: np.rint(x))
spec("Inv", one(NONZERO), lambda a, x: P.Inv()(x), lambda a, x: 1 / x)


def _draw_nan_to_num(data):
    (x,), _ = one()(data)
    attrs = {"nan": data.draw(st.sampled_from([None, 1.5])),
             "posinf": data.draw(st.sampled_from([None, 7.0])),
             "neginf": data.draw(st.sampled_from([None, -7.0]))}
    return [x], attrs


spec("NanToNum", _draw_nan_to_num,
     lambda a, x: P.NanToNum(a["nan"], a["posinf"], a["neginf"])(x),
     lambda a, x: np.nan_to_num(x, nan=a["nan"] or 0.0, posinf=a["posinf"], neginf=a["neginf"]),
     notes="finite draws (the gradient checks need them); NaN and inf in test_special_family")


def _draw_logit(data):
    shape = data.draw(S.shapes())
    eps = data.draw(st.sampled_from([-1.0, 0.2]))
    return [arr(data, shape, S.Domain(0.05, 0.95, avoid=(0.2, 0.8), gap=0.03))], {"eps": eps}


def _logit_ref(a, x):
    if a["eps"] >= 0:
        x = np.clip(x, a["eps"], 1 - a["eps"])
    return np.log(x / (1 - x))


spec("Logit", _draw_logit, lambda a, x: P.Logit(a["eps"])(x), _logit_ref, rtol=1e-12)


# ---- elementwise binary -------------------------------------------------------------------------

spec("Xlogy", two(S.REALS, S.POSITIVE), lambda a, x, y: P.Xlogy()(x, y),
     lambda a, x, y: x * np.log(y), rtol=1e-12)
spec("Xdivy", two(S.REALS, NONZERO), lambda a, x, y: P.Xdivy()(x, y),
     lambda a, x, y: x / y, rtol=1e-12)
spec("Hypot", two(S.AWAY_FROM_ZERO, S.AWAY_FROM_ZERO), lambda a, x, y: P.Hypot()(x, y),
     lambda a, x, y: np.hypot(x, y))
spec("Fmax", _draw_untied, lambda a, x, y: P.Fmax()(x, y), lambda a, x, y: np.fmax(x, y))
spec("Fmin", _draw_untied, lambda a, x, y: P.Fmin()(x, y), lambda a, x, y: np.fmin(x, y))
spec("NextAfter", _draw_untied, lambda a, x, y: P.NextAfter()(x, y),
     lambda a, x, y: np.nextafter(x, y), notes="dx = dout (the step is below resolution)")
spec("DivNoNan", two(S.REALS, NONZERO), lambda a, x, y: P.DivNoNan()(x, y),
     lambda a, x, y: x / y, rtol=1e-12)
spec("MulNoNan", two(), lambda a, x, y: P.MulNoNan()(x, y),
     lambda a, x, y: np.where(y == 0, 0.0, x * y))
spec("SquaredDifference", two(), lambda a, x, y: P.SquaredDifference()(x, y),
     lambda a, x, y: (x - y) ** 2, rtol=1e-12)


def _draw_trunc_pair(data):
    (x, y), _ = two(S.REALS, NONZERO)(data)
    x = np.asarray(away_from_integers(x / y) * y)
    return [x, y], {}


spec("TruncateDiv", _draw_trunc_pair, lambda a, x, y: P.TruncateDiv()(x, y),
     lambda a, x, y: np.trunc(x / y))
spec("TruncateMod", _draw_trunc_pair, lambda a, x, y: P.TruncateMod()(x, y),
     lambda a, x, y: np.fmod(x, y), rtol=1e-9, atol=1e-12)
spec("Mod", _draw_trunc_pair, lambda a, x, y: P.Mod()(x, y), lambda a, x, y: np.fmod(x, y),
     rtol=1e-9, atol=1e-12)


def _draw_heaviside(data):
    sx, sv = data.draw(S.broadcastable_shapes(2))
    x = np.round(arr(data, sx) * 2) / 2     # exact zeros appear
    return [x, arr(data, sv)], {}


spec("Heaviside", _draw_heaviside, lambda a, x, v: P.Heaviside()(x, v),
     lambda a, x, v: np.heaviside(x, v), order=0)


def _draw_approx(data):
    (x, y), _ = two()(data)
    return [x, y], {"tol": data.draw(st.sampled_from([1e-5, 0.5, 2.0]))}


spec("ApproximateEqual", _draw_approx, lambda a, x, y: P.ApproximateEqual(a["tol"])(x, y),
     lambda a, x, y: np.abs(x - y) < a["tol"], order=0)


# ---- integers -----------------------------------------------------------------------------------

def _ints(low, high, dtype=np.int64, count=2):
    def draw(data):
        shapes = data.draw(S.broadcastable_shapes(count))
        return [data.draw(hnp.arrays(dtype, s, elements=st.integers(low, high)))
                for s in shapes], {}
    return draw


spec("Gcd", _ints(-60, 60), lambda a, x, y: P.Gcd()(Tensor(x), Tensor(y)),
     lambda a, x, y: np.gcd(x, y), order=0)
spec("Lcm", _ints(-60, 60), lambda a, x, y: P.Lcm()(Tensor(x), Tensor(y)),
     lambda a, x, y: np.lcm(x, y), order=0)
spec("LeftShift", _ints(0, 20), lambda a, x, y: P.LeftShift()(Tensor(x), Tensor(y)),
     lambda a, x, y: x << y, order=0)
spec("RightShift", _ints(-5000, 5000), lambda a, x, y: P.RightShift()(Tensor(x),
                                                                      Tensor(np.abs(y) % 14)),
     lambda a, x, y: x >> (np.abs(y) % 14), order=0)
spec("Invert", _ints(-100, 100, count=1), lambda a, x: P.Invert()(Tensor(x)),
     lambda a, x: ~x, order=0)
spec("PopulationCount", _ints(-2 ** 40, 2 ** 40, count=1),
     lambda a, x: P.PopulationCount()(Tensor(x)),
     lambda a, x: np.array([(int(v) & (2 ** 64 - 1)).bit_count() for v in x.reshape(-1)],
                           np.uint8).reshape(x.shape), order=0)


# ---- scans and order statistics -----------------------------------------------------------------

def _draw_axis_distinct(data, min_dims=1):
    shape = data.draw(S.shapes(min_dims=min_dims))
    x = distinct(arr(data, shape))
    return x, data.draw(st.integers(-len(shape), len(shape) - 1)) if shape else 0


def _draw_cum(data):
    x, axis = _draw_axis_distinct(data)
    return [x], {"axis": axis}


def _cum_ref(ufunc):
    return lambda a, x: ufunc.accumulate(x, axis=a["axis"])


spec("Cummax", _draw_cum, lambda a, x: P.Cummax(a["axis"])(x)[0], _cum_ref(np.maximum))
spec("Cummin", _draw_cum, lambda a, x: P.Cummin(a["axis"])(x)[0], _cum_ref(np.minimum))


def _draw_cum_lse(data):
    shape = data.draw(S.shapes(min_dims=1))
    attrs = {"axis": data.draw(st.integers(-len(shape), len(shape) - 1)),
             "exclusive": data.draw(st.booleans()), "reverse": data.draw(st.booleans())}
    return [arr(data, shape)], attrs


def _defined_part(a, out):
    """The outputs that sum something: an exclusive sum over nothing is the dtype's lowest
    value, which differs between float32 and float64."""
    if not a["exclusive"]:
        return out
    axis = a["axis"] % out.ndim
    n = out.shape[axis]
    keep = slice(0, n - 1) if a["reverse"] else slice(1, n)
    return out[(slice(None),) * axis + (keep,)]


def _cum_lse_ref(a, x):
    v = np.moveaxis(x, a["axis"], -1)
    if a["reverse"]:
        v = v[..., ::-1]
    out = np.log(np.cumsum(np.exp(v), axis=-1))
    if a["exclusive"]:
        out = np.concatenate([np.full(out.shape[:-1] + (1,), -np.inf), out[..., :-1]], -1)
    if a["reverse"]:
        out = out[..., ::-1]
    return _defined_part(a, np.moveaxis(out, -1, a["axis"]))


spec("CumulativeLogsumexp", _draw_cum_lse,
     lambda a, x: _defined_part(a, P.CumulativeLogsumexp(a["exclusive"], a["reverse"])(
         x, a["axis"])), _cum_lse_ref, rtol=1e-12)


def _draw_median(data):
    x, axis = _draw_axis_distinct(data, min_dims=0)
    return [x], {"global": data.draw(st.booleans()), "axis": axis,
                 "keep": data.draw(st.booleans())}


def _median_ref(a, x):
    if a["global"]:
        v = np.sort(x.reshape(-1))
        return v[(v.size - 1) // 2]
    if x.ndim == 0:
        return x
    v = np.sort(x, axis=a["axis"])
    k = (x.shape[a["axis"]] - 1) // 2
    return np.take(v, [k] if a["keep"] else k, axis=a["axis"])


spec("Median", _draw_median,
     lambda a, x: P.Median(a["global"], a["axis"], a["keep"])(x)[0], _median_ref)
