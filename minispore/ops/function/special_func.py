"""Special functions and the remaining elementwise math: ops.lgamma, ops.bessel_j0, ops.igamma,
ops.zeta, ops.gcd, ops.hypot, ops.xlogy, ops.nan_to_num, ops.nansum, ops.median, ops.quantile, ...
and MindSpore's other names of existing ops (ops.arctan2, ops.multiply, ops.tensor_add, ...)."""
import math

import numpy as np

from ..._autodiff.tape import apply, binary, call1, const, wrap
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import math_ops as M
from ..operations import reduce_ops as R
from ..operations import special_ops as S
from ..operations._kernels import normalize_axes, normalize_axis
from ..primitive import Primitive, data_flag, data_function
from . import array_func as AF
from . import math_func as MF
from ._checks import _tensor

__all__ = [
    "accumulate_n", "addn", "aminmax", "approximate_equal", "arccosh", "arcsinh", "arctan2",
    "arctanh", "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1",
    "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1",
    "bitwise_left_shift", "bitwise_right_shift", "copysign", "cummax", "cummin", "deg2rad",
    "digamma", "divide", "eps", "erfinv_", "fills", "float_power", "float_power_ext", "floor_mod",
    "floordiv", "floormod", "fmax", "fmin", "frac", "gcd", "heaviside", "hypot", "i0", "igamma",
    "igammac", "inv", "invert", "is_floating_point", "is_nonzero", "is_tensor", "isnan_ext",
    "isneginf", "isposinf", "lcm", "ldexp", "lgamma", "logaddexp", "logaddexp2", "logcumsumexp",
    "logit", "median", "multiply", "mvlgamma", "nan_to_num", "nanmean", "nanmedian", "nanquantile",
    "nansum", "nextafter", "polygamma", "population_count", "positive", "pows", "quantile",
    "rad2deg", "reduce_max", "reduce_min", "sgn", "signbit", "sinc", "subtract", "tensor_add",
    "tensor_div", "tensor_exp", "tensor_expm1", "tensor_floordiv", "tensor_ge", "tensor_gt",
    "tensor_le", "tensor_lt", "tensor_mod", "tensor_mul", "tensor_muls", "tensor_sub", "trapz",
    "truncate_div", "truncate_mod", "xdivy", "xlogy", "zeta"
]

# User-facing Primitive classes defined here (MindSpore classes that are composites), exported
# by ops.operations.
PRIMITIVE_CLASSES = ("Mvlgamma", "SquareSumAll", "CumProd", "Quantile", "IsClose",
                     "CheckNumerics", "AccumulateNV2", "AddN", "Addcdiv", "Addcmul", "EqualCount",
                     "CountNonZero", "Eps", "Fills", "TensorAdd", "Lerp", "LerpScalar")


def _unary(prim, name, arg="x"):
    def fn(x):
        if not isinstance(x, Tensor):
            _tensor(x, name, arg)
        return call1(prim, x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (prim.__doc__ or "").split("\n")[0]
    return fn


# ---- special functions ---------------------------------------------------------------------------

bessel_i0 = _unary(S._I0, "bessel_i0")
bessel_i0e = _unary(S._I0E, "bessel_i0e")
bessel_i1 = _unary(S._I1, "bessel_i1")
bessel_i1e = _unary(S._I1E, "bessel_i1e")
bessel_j0 = _unary(S._J0, "bessel_j0")
bessel_j1 = _unary(S._J1, "bessel_j1")
bessel_k0 = _unary(S._K0, "bessel_k0")
bessel_k0e = _unary(S._K0E, "bessel_k0e")
bessel_k1 = _unary(S._K1, "bessel_k1")
bessel_k1e = _unary(S._K1E, "bessel_k1e")
bessel_y0 = _unary(S._Y0, "bessel_y0")
bessel_y1 = _unary(S._Y1, "bessel_y1")
_i0 = _unary(S._I0, "i0", "input")
_digamma = _unary(S._DIGAMMA, "digamma", "input")
_lgamma = _unary(S._LGAMMA, "lgamma", "input")
_sinc = _unary(S.Sinc(), "sinc", "input")


def digamma(input):
    """The logarithmic derivative of gamma (float tensors)."""
    return _digamma(input)


def lgamma(input):
    """log|gamma(input)| (integers give float32)."""
    return _lgamma(input)


def i0(input):
    """The modified Bessel function I0 (as bessel_i0)."""
    return _i0(input)


def sinc(input):
    """sin(pi x) / (pi x), 1 at 0 (integers give float32)."""
    return _sinc(input)


def polygamma(n, input):
    """The n-th derivative of digamma at input; `n` a 0-d int32/int64 Tensor."""
    _tensor(n, "polygamma", "n")
    _tensor(input, "polygamma")
    return apply(S._POLYGAMMA, (n, input))


def mvlgamma(input, p):
    """The multivariate log-gamma of dimension p: sum_i lgamma(input - i/2) + p(p-1)/4 log(pi);
    every element must exceed (p - 1) / 2."""
    _tensor(input, "mvlgamma")
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError(f"For 'mvlgamma', 'p' must be an int, but got {type(p).__name__}")
    if p < 1:
        raise ValueError(f"For 'mvlgamma', 'p' must be positive, but got {p}")
    if input._data.dtype not in (np.float32, np.float64):
        raise TypeError(f"For 'mvlgamma', 'input' must be a float32 or float64 tensor, but got "
                        f"{mstype.from_np(input._data.dtype)}")
    # a guarded flag: a graph-mode replay checks the domain again (and raises by running eagerly)
    if data_flag(_outside_domain, input, static=((p - 1) / 2,)):
        raise ValueError(f"For 'mvlgamma', all elements of 'input' must be greater than "
                         f"(p-1)/2 = {(p - 1) / 2}")
    total = lgamma(input)
    for i in range(1, p):
        total = total + lgamma(input - i / 2)
    return total + p * (p - 1) / 4 * math.log(math.pi)


def _outside_domain(x, bound):
    return np.array(not np.all(x > bound))


class Mvlgamma(Primitive):
    """`Mvlgamma(p)(x)`: the multivariate log-gamma of dimension p."""

    def __init__(self, p):
        super().__init__()
        self.p = p

    def __call__(self, x):
        return mvlgamma(x, self.p)


_IGAMMA, _IGAMMAC, _ZETA = S.Igamma(), S.Igammac(), S.Zeta()


def igamma(input, other):
    """The regularized lower incomplete gamma P(input, other)."""
    return _two_tensors(_IGAMMA, "igamma", input, other)


def igammac(input, other):
    """The regularized upper incomplete gamma Q(input, other) = 1 - P."""
    return _two_tensors(_IGAMMAC, "igammac", input, other)


def zeta(input, other):
    """The Hurwitz zeta function sum_k (k + other)^-input."""
    return _two_tensors(_ZETA, "zeta", input, other)


def _two_tensors(prim, name, x, y):
    _tensor(x, name)
    _tensor(y, name, "other")
    return prim(x, y)


# ---- elementwise ---------------------------------------------------------------------------------

_XLOGY, _HYPOT, _FMAX, _FMIN = S.Xlogy(), S.Hypot(), S.Fmax(), S.Fmin()
_NEXTAFTER, _HEAVISIDE, _GCD, _LCM = S.NextAfter(), S.Heaviside(), S.Gcd(), S.Lcm()
_TRUNC_DIV, _TRUNC_MOD = S.TruncateDiv(), S.TruncateMod()
_LSHIFT, _RSHIFT = S.LeftShift(), S.RightShift()



def xlogy(input, other):
    """input * log(other), 0 where input == 0."""
    return _either(_XLOGY, "xlogy", input, other)


def hypot(input, other):
    """sqrt(input^2 + other^2) without overflow (float tensors)."""
    return _either(_HYPOT, "hypot", input, other)


def fmax(input, other):
    """Elementwise max ignoring NaN (NaN only where both are)."""
    return _either(_FMAX, "fmax", input, other)


def fmin(input, other):
    """Elementwise min ignoring NaN (NaN only where both are)."""
    return _either(_FMIN, "fmin", input, other)


def nextafter(input, other):
    """The next float after input toward other (same float dtypes)."""
    return _two_tensors(_NEXTAFTER, "nextafter", input, other)


def gcd(input, other):
    """Greatest common divisor of integer tensors."""
    return _either(_GCD, "gcd", input, other)


def lcm(input, other):
    """Least common multiple of integer tensors."""
    return _either(_LCM, "lcm", input, other)


def bitwise_left_shift(input, other):
    """input << other on integers."""
    return _either(_LSHIFT, "bitwise_left_shift", input, other)


def bitwise_right_shift(input, other):
    """input >> other on integers (arithmetic for signed ones)."""
    return _either(_RSHIFT, "bitwise_right_shift", input, other)


def _either(prim, name, x, y, args=("input", "other")):
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        raise TypeError(f"For '{name}', '{args[0]}' or '{args[1]}' must be a Tensor, but got "
                        f"{type(x).__name__} and {type(y).__name__}")
    return binary(prim, x, y)


def xdivy(x, y):
    """x / y, 0 where x == 0."""
    return _either(S._XDIVY, "xdivy", x, y, ("x", "y"))


def truncate_div(x, y):
    """x / y rounded toward zero (integers stay integers; zero gradient)."""
    return _either(_TRUNC_DIV, "truncate_div", x, y, ("x", "y"))


def truncate_mod(x, y):
    """x - truncate_div(x, y) * y: the remainder with the sign of x."""
    return _either(_TRUNC_MOD, "truncate_mod", x, y, ("x", "y"))


def heaviside(input, values):
    """0 where input < 0, `values` where input == 0, 1 where input > 0 (same dtypes)."""
    _tensor(input, "heaviside")
    _tensor(values, "heaviside", "values")
    return _HEAVISIDE(input, values)


def logit(input, eps=None):
    """log(input / (1 - input)); with `eps`, input is first clipped to [eps, 1 - eps]."""
    _tensor(input, "logit")
    return call1(S.Logit(-1.0 if eps is None else eps), input)


def nan_to_num(input, nan=None, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced by `nan` (0), `posinf` and `neginf` (by default the dtype's
    largest and lowest finite values)."""
    _tensor(input, "nan_to_num")
    return call1(S.NanToNum(nan, posinf, neginf), input)


def _float_tensor(x, name, arg="input"):
    _tensor(x, name, arg)
    if x._data.dtype.kind != "f":
        raise TypeError(f"For '{name}', '{arg}' must be a float16, float32 or float64 tensor, "
                        f"but got {mstype.from_np(x._data.dtype)}")
    return x


def _as_float32(x):
    return x if x._data.dtype.kind in "fc" else M.cast(x, np.float32)


def copysign(x, other):
    """|x| with the sign of `other` (a Tensor or a number; -0.0 counts as negative). Integer x
    gives float32. The gradient in x is sign(x) * sign(result); none in other."""
    _tensor(x, "copysign", "x")
    x = _as_float32(x)
    o = other._data if isinstance(other, Tensor) else np.asarray(other)
    negative = np.broadcast_to(np.signbit(o.astype(np.float64)),
                               np.broadcast_shapes(x.shape, o.shape))
    magnitude = MF.abs(x)
    if magnitude.shape != negative.shape:
        magnitude = AF.broadcast_to(magnitude, negative.shape)
    return M.select(wrap(negative), -magnitude, magnitude)


def ldexp(x, other):
    """x * 2 ** other (integer inputs give float32)."""
    _tensor(x, "ldexp", "x")
    return MF.mul(_as_float32(x), MF.pow(2.0, _as_float32(other) if isinstance(other, Tensor)
                                         else float(other)))


def frac(x):
    """The fractional part x - trunc(x), the sign of x (integers give zeros)."""
    _tensor(x, "frac", "x")
    if x._data.dtype.kind not in "fc":
        return const(np.zeros_like(x._data))
    return MF.sub(x, MF.trunc(x))


def float_power(input, exponent):
    """input ** exponent computed and returned in float64."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("For 'float_power', 'input' or 'exponent' must be a Tensor, but got "
                        f"{type(input).__name__} and {type(exponent).__name__}")
    wide = [M.cast(v, np.float64) if isinstance(v, Tensor) else float(v)
            for v in (input, exponent)]
    if not isinstance(wide[0], Tensor):
        wide[0] = Tensor(np.asarray(wide[0], np.float64))
    return MF.pow(wide[0], wide[1])


def float_power_ext(input, exponent):
    """input ** exponent in float64 (as float_power)."""
    return float_power(input, exponent)


def deg2rad(x):
    """Degrees to radians (float tensors)."""
    return MF.mul(_float_tensor(x, "deg2rad", "x"), math.pi / 180)


def rad2deg(x):
    """Radians to degrees (float tensors)."""
    return MF.mul(_float_tensor(x, "rad2deg", "x"), 180 / math.pi)


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """The trapezoidal rule along `dim`: sample points `x` (1-D along `dim`, or y's shape), or
    the constant spacing `dx`. Integers give float32."""
    _tensor(y, "trapz", "y")
    y = _as_float32(y)
    d = normalize_axis(dim, y.ndim, "trapz")
    n = y.shape[d]
    if n == 0:
        return MF.sum(y, d)
    left, right = AF.narrow(y, d, 0, n - 1), AF.narrow(y, d, 1, n - 1)
    heights = MF.add(left, right)
    if x is None:
        return MF.mul(MF.sum(heights, d), dx / 2)
    _tensor(x, "trapz", "x")
    x = _as_float32(x)
    if x.ndim == 1:
        if x.shape[0] != n:
            raise ValueError(f"For 'trapz', 1-D 'x' must have {n} elements, but got {x.shape[0]}")
        shape = [1] * y.ndim
        shape[d] = n
        x = AF.reshape(x, shape)
        steps = MF.sub(AF.narrow(x, d, 1, n - 1), AF.narrow(x, d, 0, n - 1))
    else:
        xd = normalize_axis(dim, x.ndim, "trapz")
        steps = MF.sub(AF.narrow(x, xd, 1, n - 1), AF.narrow(x, xd, 0, n - 1))
    return MF.mul(MF.sum(MF.mul(heights, steps), d), 0.5)


def sgn(input):
    """sign(input) for real tensors; input / |input| (0 at 0) for complex ones."""
    _tensor(input, "sgn")
    if input._data.dtype.kind != "c":
        return MF.sign(input)
    a = input._data
    mag = np.abs(a)
    return wrap(np.where(mag == 0, 0, a / np.where(mag == 0, 1, mag)).astype(a.dtype))


def signbit(input):
    """True where input < 0 (bool; -0.0 and NaN are not negative, as MindSpore's)."""
    _tensor(input, "signbit")
    return wrap(np.less(input._data, 0))


def isposinf(input):
    """True where input is +inf (bool; integers are never infinite)."""
    _tensor(input, "isposinf")
    return wrap(np.isposinf(input._data) if input._data.dtype.kind == "f"
                else np.zeros(input.shape, bool))


def isneginf(input):
    """True where input is -inf (bool; integers are never infinite)."""
    _tensor(input, "isneginf")
    return wrap(np.isneginf(input._data) if input._data.dtype.kind == "f"
                else np.zeros(input.shape, bool))


def floor_mod(x, y):
    """x - floor(x / y) * y, the sign of y (as Python's %)."""
    return MF.remainder(x, y)


floormod = floor_mod


def floordiv(input, other):
    """floor(input / other) (zero gradient)."""
    return MF.floor_divide(input, other)


def arccosh(input):
    """Inverse hyperbolic cosine (acosh)."""
    return MF.acosh(input)


def arcsinh(input):
    """Inverse hyperbolic sine (asinh)."""
    return MF.asinh(input)


def arctanh(input):
    """Inverse hyperbolic tangent (atanh)."""
    return MF.atanh(input)


def arctan2(input, other):
    """The angle of the point (other, input) (atan2)."""
    return MF.atan2(input, other)


def divide(input, other, *, rounding_mode=None):
    """input / other; `rounding_mode` None, 'floor' or 'trunc' (as div)."""
    return MF.div(input, other, rounding_mode=rounding_mode)


def multiply(input, other):
    """input * other (mul)."""
    return MF.mul(input, other)


def subtract(input, other, *, alpha=1):
    """input - alpha * other."""
    return MF.sub(input, other if alpha == 1 else MF.mul(other, alpha))


def positive(input):
    """input itself."""
    _tensor(input, "positive")
    return input


def _logaddexp(input, other, name, exp, log):
    _tensor(input, name)
    _tensor(other, name, "other")
    for v, arg in ((input, "input"), (other, "other")):
        if v._data.dtype.kind != "f":
            raise TypeError(f"For {name}, the dtype of '{arg}' must be float, but got "
                            f"{mstype.from_np(v._data.dtype)}")
    a, b = np.broadcast_arrays(input._data, other._data)
    peak = np.maximum(a, b)
    peak = wrap(np.where(np.isfinite(peak), peak, 0).astype(np.result_type(a, b)))
    return MF.add(log(MF.add(exp(MF.sub(input, peak)), exp(MF.sub(other, peak)))), peak)


def logaddexp(input, other):
    """log(exp(input) + exp(other)) without overflow."""
    return _logaddexp(input, other, "logaddexp", MF.exp, MF.log)


def logaddexp2(input, other):
    """log2(2 ** input + 2 ** other) without overflow."""
    return _logaddexp(input, other, "logaddexp2", MF.exp2, MF.log2)


def logcumsumexp(input, axis):
    """log(cumsum(exp(input))) along `axis`, without overflow."""
    _tensor(input, "logcumsumexp")
    return apply(_CUM_LSE, (input, axis))


_CUM_LSE = S.CumulativeLogsumexp()


def cummax(input, axis):
    """(running max, int64 index) along `axis`; ties take the latest index."""
    _tensor(input, "cummax")
    return apply(S.Cummax(axis), (input,))


def cummin(input, axis):
    """(running min, int32 index) along `axis`; ties take the latest index."""
    _tensor(input, "cummin")
    return apply(S.Cummin(axis), (input,))


# ---- order statistics and NaN-ignoring reductions ------------------------------------------------

def median(input, axis=-1, keepdims=False):
    """(lower median along `axis`, its int64 index); NaN where the slice has a NaN."""
    _tensor(input, "median")
    return apply(S.Median(False, axis, keepdims, False), (input,))


def nanmedian(input, axis=-1, keepdims=False):
    """(lower median along `axis` ignoring NaN, its int64 index); NaN for an all-NaN slice."""
    _tensor(input, "nanmedian")
    return apply(S.Median(False, axis, keepdims, True), (input,))


def _quantile(input, q, axis, keepdims, ignore_nan, name):
    _tensor(input, name)
    dt = input._data.dtype
    if dt not in (np.float32, np.float64):
        raise TypeError(f"For '{name}', 'input' must be a float32 or float64 tensor, but got "
                        f"{mstype.from_np(dt)}")
    if isinstance(q, Tensor):
        if q._data.dtype != dt:
            raise TypeError(f"For '{name}', 'q' must have the dtype of 'input' "
                            f"({mstype.from_np(dt)}), but got {mstype.from_np(q._data.dtype)}")
        if q.ndim > 1:
            raise ValueError(f"For '{name}', 'q' must be a scalar or 1-D, but got shape {q.shape}")
        qs, scalar_q = q._data.astype(np.float64).reshape(-1), q.ndim == 0
    elif isinstance(q, float) and not isinstance(q, bool):
        qs, scalar_q = np.array([q]), True
    else:
        raise TypeError(f"For '{name}', 'q' must be a float or a Tensor, but got "
                        f"{type(q).__name__}")
    if np.any((qs < 0) | (qs > 1)) or np.any(np.isnan(qs)):
        raise ValueError(f"For '{name}', 'q' must be in [0, 1], but got {qs.tolist()}")
    x = input
    if axis is None:
        x, d = AF.reshape(x, (-1,)), 0
    else:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"For '{name}', 'axis' must be None or an int, but got {axis!r}")
        d = normalize_axis(axis, max(x.ndim, 1), name)
        if x.ndim == 0:
            x = AF.reshape(x, (1,))
    perm = [i for i in range(x.ndim) if i != d] + [d]
    moved = x if perm == list(range(x.ndim)) else AF.transpose(x, perm)
    ordered = AF.sort(moved, -1)[0]                         # NaN sort last
    n = ordered.shape[-1]
    nan = np.isnan(moved._data)
    valid = (n - nan.sum(-1)) if ignore_nan else np.full(moved.shape[:-1], n)
    pos = qs * (np.maximum(valid, 1) - 1)[..., None]        # (..., m)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(valid - 1, 0)[..., None])
    w = (pos - lo).astype(dt)
    low = AF.gather_elements(ordered, -1, lo)
    high = AF.gather_elements(ordered, -1, hi)
    out = MF.add(low, MF.mul(MF.sub(high, low), wrap(w)))
    undefined = (valid == 0) if ignore_nan else nan.any(-1)
    if undefined.any():
        out = M.select(wrap(np.broadcast_to(undefined[..., None], out.shape)),
                       wrap(np.array(np.nan, dt)), out)
    out = AF.movedim(out, -1, 0)                             # (m, ...)
    if keepdims:
        kept = [1] * input.ndim if axis is None else list(input.shape)
        if axis is not None and input.ndim:
            kept[d] = 1
        out = AF.reshape(out, [len(qs)] + kept)
    if scalar_q:
        out = AF.reshape(out, out.shape[1:])
    return out


def quantile(input, q, axis=None, keepdims=False):
    """The q-th quantiles (linear interpolation) along `axis` (None: of all elements); `q` a
    float or a 0-d/1-D Tensor in [0, 1] (1-D: a leading axis of len(q)). NaN where the slice has
    a NaN."""
    return _quantile(input, q, axis, keepdims, False, "quantile")


def nanquantile(input, q, axis=None, keepdims=False):
    """quantile ignoring NaN (NaN for an all-NaN slice)."""
    return _quantile(input, q, axis, keepdims, True, "nanquantile")


class Quantile(Primitive):
    """`Quantile(dim=None, keep_dims=False, ignore_nan=False)(input, q)`."""

    def __init__(self, dim=None, keep_dims=False, ignore_nan=False):
        super().__init__()
        self.dim, self.keep_dims, self.ignore_nan = dim, keep_dims, ignore_nan

    def __call__(self, input, q):
        return _quantile(input, q, self.dim, self.keep_dims, self.ignore_nan, "Quantile")


def _without_nan(input, name):
    _tensor(input, name)
    if input._data.dtype.kind not in "fc":
        return input, None
    nan = data_function(np.isnan, input)  # a node and a guard under graph capture
    return (M.select(nan, const(np.zeros((), input._data.dtype)), input) if nan.any()
            else input), nan


def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """The sum over `axis` (None: all) treating NaN as 0; `dtype` casts the input first."""
    x, _ = _without_nan(input, "nansum")
    if dtype is not None:
        x = M.cast(x, dtype)
    out = R.reduce_sum(x, normalize_axes(axis, x.ndim, "nansum") if axis is not None else None,
                       bool(keepdims))
    return M.cast(out, x._data.dtype)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):
    """The mean over `axis` (None: all) of the non-NaN elements (NaN where there are none)."""
    _float_tensor(input, "nanmean")
    x, nan = _without_nan(input, "nanmean")
    if dtype is not None:
        x = M.cast(x, dtype)
    axes = normalize_axes(axis, x.ndim, "nanmean") if axis is not None else None
    dt = x._data.dtype
    if nan is None:
        count = const(_valid_count(np.zeros(x.shape, bool), axes, bool(keepdims), dt))
    else:
        count = data_function(_valid_count, nan, static=(axes, bool(keepdims), dt))
    return MF.div(R.reduce_sum(x, axes, bool(keepdims)), count)


def _valid_count(nan, axes, keepdims, dtype):
    return np.asarray((~nan).sum(axis=axes, keepdims=keepdims), dtype)


# ---- reductions and sums of lists ----------------------------------------------------------------

def _same_tensors(x, name):
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"For '{name}', 'x' must be a non-empty list or tuple of Tensors, but "
                        f"got {x!r}")
    for t in x:
        _tensor(t, name, "x")
    first = x[0]
    for t in x[1:]:
        if t._data.dtype != first._data.dtype:
            raise TypeError(f"For '{name}', the input types must be the same, but got "
                            f"{mstype.from_np(first._data.dtype)} and "
                            f"{mstype.from_np(t._data.dtype)}")
        if t.shape != first.shape:
            raise ValueError(f"For '{name}', the input shapes must be the same, but got "
                             f"{first.shape} and {t.shape}")
    return x


def addn(x):
    """The elementwise sum of a list of Tensors of one shape and dtype."""
    total = _same_tensors(x, "addn")[0]
    for t in x[1:]:
        total = MF.add(total, t)
    return total if len(x) > 1 else AF.identity(total)


def accumulate_n(x):
    """The elementwise sum of a list of Tensors of one shape and dtype (as addn)."""
    _same_tensors(x, "accumulate_n")
    return addn(x)


def aminmax(input, *, axis=0, keepdims=False):
    """(min, max) along `axis` (ties split the gradient evenly, the library's convention)."""
    _tensor(input, "aminmax")
    return MF.amin(input, axis, keepdims), MF.amax(input, axis, keepdims)


def reduce_max(x, axis=()):
    """The maximum over `axis` (() for all), dimensions dropped."""
    _tensor(x, "reduce_max", "x")
    return apply(_REDUCE_MAX, (x, axis))


def reduce_min(x, axis=()):
    """The minimum over `axis` (() for all), dimensions dropped."""
    _tensor(x, "reduce_min", "x")
    return apply(_REDUCE_MIN, (x, axis))


_REDUCE_MAX, _REDUCE_MIN = R.ReduceMax(False), R.ReduceMin(False)


# ---- integers and predicates ---------------------------------------------------------------------

_INVERT, _INV, _POPCOUNT = S.Invert(), S.Inv(), S.PopulationCount()
invert = _unary(_INVERT, "invert")
inv = _unary(_INV, "inv")
_popcount = _unary(_POPCOUNT, "population_count", "input_x")


def population_count(input_x):
    """The number of set bits of each integer, as uint8."""
    return _popcount(input_x)


def approximate_equal(x, y, tolerance=1e-05):
    """|x - y| < tolerance, elementwise (bool; float tensors)."""
    _tensor(x, "approximate_equal", "x")
    _tensor(y, "approximate_equal", "y")
    return binary(S.ApproximateEqual(tolerance), x, y)


def isnan_ext(tensor):
    """True where NaN."""
    return MF.isnan(tensor)


def is_floating_point(input):
    """Whether input's dtype is a floating point one (a Python bool)."""
    _tensor(input, "is_floating_point")
    return input._data.dtype.kind == "f" or mstype.from_np(input._data.dtype) == mstype.bfloat16


def is_tensor(obj):
    """Whether obj is a Tensor."""
    return isinstance(obj, Tensor)


def is_nonzero(input):
    """Whether the one element of input is nonzero (a Python bool)."""
    _tensor(input, "is_nonzero")
    if input._data.size != 1:
        raise ValueError(f"For is_nonzero, the numel of input must be 1, but got "
                         f"{input._data.size}.")
    return bool(input._data.reshape(-1)[0] != 0)


def eps(x):
    """A tensor like x filled with its dtype's machine epsilon (float tensors)."""
    _float_tensor(x, "eps", "x")
    return wrap(np.full(x.shape, np.finfo(x._data.dtype).eps, x._data.dtype))


def fills(x, value):
    """A tensor like x (shape and dtype) filled with `value` (a number or a 0-d Tensor)."""
    _tensor(x, "fills", "x")
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ValueError(f"For 'fills', a Tensor 'value' must be 0-d, but got shape "
                             f"{value.shape}")
        value = value.item()
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For 'fills', 'value' must be an int, a float or a 0-d Tensor, but got "
                        f"{type(value).__name__}")
    dt = x._data.dtype
    if dt.kind == "f" and np.isfinite(value) and abs(value) > float(np.finfo(dt).max):
        raise ValueError(f"For 'fills', 'value' {value} overflows {mstype.from_np(dt)}")
    return wrap(np.full(x.shape, value, dt))


# ---- MindSpore's other names of existing ops -----------------------------------------------------

def tensor_add(input, other):
    """input + other."""
    return MF.add(input, other)


def tensor_sub(*args):
    """input - other."""
    return MF.sub(*args)


def tensor_mul(input, other):
    """input * other."""
    return MF.mul(input, other)


def tensor_div(x, y):
    """x / y (true division)."""
    return MF.true_divide(x, y)


def tensor_exp(input):
    """e ** input."""
    return MF.exp(input)


def tensor_expm1(input):
    """exp(input) - 1."""
    return MF.expm1(input)


def tensor_floordiv(input, other):
    """floor(input / other)."""
    return MF.floor_divide(input, other)


def tensor_ge(input, other):
    """input >= other (bool)."""
    return MF.ge(input, other)


def tensor_gt(input, other):
    """input > other (bool)."""
    return MF.gt(input, other)


def tensor_le(input, other):
    """input <= other (bool)."""
    return MF.le(input, other)


def tensor_lt(*args, **kwargs):
    """input < other (bool)."""
    return MF.lt(*args, **kwargs)


def tensor_mod(x, y):
    """x - floor(x / y) * y (floor_mod)."""
    return MF.remainder(x, y)


def tensor_muls(input, other):
    """input * other (other a number)."""
    return MF.mul(input, other)


def pows(input, exponent):
    """input ** exponent."""
    return MF.pow(input, exponent)


def erfinv_(input):
    """erfinv(input) written into input in place (Tensor.erfinv_); returns input."""
    _tensor(input, "erfinv_")
    return input.erfinv_()


# ---- user-facing classes that are composites -----------------------------------------------------

class SquareSumAll(Primitive):
    """`SquareSumAll()(x, y)`: (sum(x^2), sum(y^2)) of two float tensors of one shape."""

    def __call__(self, x, y):
        _float_tensor(x, "SquareSumAll", "x")
        _float_tensor(y, "SquareSumAll", "y")
        if x.shape != y.shape:
            raise ValueError(f"For 'SquareSumAll', 'x' and 'y' must have the same shape, but got "
                             f"{x.shape} and {y.shape}")
        return R.reduce_sum(MF.square(x)), R.reduce_sum(MF.square(y))


class CumProd(Primitive):
    """`CumProd(exclusive=False, reverse=False)(x, axis)`: the cumulative product along `axis`
    (exclusive: the product of the elements before, 1 for the first)."""

    def __init__(self, exclusive=False, reverse=False):
        super().__init__()
        self.exclusive, self.reverse = bool(exclusive), bool(reverse)

    def __call__(self, x, axis):
        _tensor(x, "CumProd", "x")
        if x.ndim == 0:
            return MF.cumprod(x, 0)
        d = normalize_axis(int(axis) if isinstance(axis, Tensor) else axis, x.ndim,
                           "CumProd")
        n = x.shape[d]
        if self.reverse:
            x = AF.flip(x, (d,))
        if self.exclusive and n:
            ones = [(0, 0)] * x.ndim
            ones[d] = (1, 0)
            x = A.pad(AF.narrow(x, d, 0, n - 1), ones, 1)
        out = MF.cumprod(x, d)
        return AF.flip(out, (d,)) if self.reverse else out


class IsClose(Primitive):
    """`IsClose(rtol=1e-05, atol=1e-08, equal_nan=False)(input, other)`."""

    def __init__(self, rtol=1e-05, atol=1e-08, equal_nan=False):
        super().__init__()
        self.rtol, self.atol, self.equal_nan = rtol, atol, equal_nan

    def __call__(self, input, other):
        return MF.isclose(input, other, self.rtol, self.atol, self.equal_nan)


class CheckNumerics(Primitive):
    """`CheckNumerics()(x)`: x itself, or a RuntimeError if it holds NaN or inf."""

    def __call__(self, x):
        _float_tensor(x, "CheckNumerics", "x")
        a = x._data
        if np.isnan(a).any():
            raise RuntimeError("For 'CheckNumerics', the tensor had NaN values")
        if np.isinf(a).any():
            raise RuntimeError("For 'CheckNumerics', the tensor had Inf values")
        return AF.identity(x)


class AddN(Primitive):
    """`AddN()(x)`: the elementwise sum of a list of Tensors."""

    def __call__(self, x):
        return addn(x)


class AccumulateNV2(Primitive):
    """`AccumulateNV2()(x)`: the elementwise sum of a list of Tensors."""

    def __call__(self, x):
        return accumulate_n(x)


class Addcdiv(Primitive):
    """`Addcdiv()(input, tensor1, tensor2, value)`: input + value * tensor1 / tensor2 (`value`
    a Tensor)."""

    def __call__(self, input, tensor1, tensor2, value):
        _tensor(value, "Addcdiv", "value")
        return MF.addcdiv(input, tensor1, tensor2, value)


class Addcmul(Primitive):
    """`Addcmul()(input, tensor1, tensor2, value)`: input + value * tensor1 * tensor2 (`value`
    a Tensor)."""

    def __call__(self, input, tensor1, tensor2, value):
        _tensor(value, "Addcmul", "value")
        return MF.addcmul(input, tensor1, tensor2, value)


class Lerp(Primitive):
    """`Lerp()(input, end, weight)`: input + weight * (end - input)."""

    def __call__(self, input, end, weight):
        return MF.lerp(input, end, weight)


class LerpScalar(Primitive):
    """`LerpScalar()(input, end, weight)`: lerp with a float `weight`."""

    def __call__(self, input, end, weight):
        if isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise TypeError(f"For 'LerpScalar', 'weight' must be a float, but got "
                            f"{type(weight).__name__}")
        return MF.lerp(input, end, float(weight))


class EqualCount(Primitive):
    """`EqualCount()(x, y)`: the number of equal elements, shape (1,), x's dtype."""

    def __call__(self, x, y):
        _tensor(x, "EqualCount", "x")
        _tensor(y, "EqualCount", "y")
        if x._data.dtype != y._data.dtype:
            raise TypeError(f"For 'EqualCount', 'x' and 'y' must have the same dtype, but got "
                            f"{mstype.from_np(x._data.dtype)} and {mstype.from_np(y._data.dtype)}")
        if x.shape != y.shape:
            raise ValueError(f"For 'EqualCount', 'x' and 'y' must have the same shape, but got "
                             f"{x.shape} and {y.shape}")
        return wrap(np.array([np.count_nonzero(x._data == y._data)], x._data.dtype))


class CountNonZero(Primitive):
    """`CountNonZero(dims=None)(x)`: the int64 number of nonzero elements over `dims` (None:
    all)."""

    def __init__(self, dims=None):
        super().__init__()
        self.dims = dims

    def __call__(self, x):
        _tensor(x, "CountNonZero", "x")
        axes = normalize_axes(self.dims, x.ndim, "CountNonZero") if self.dims is not None \
            else None
        return wrap(np.asarray(np.count_nonzero(x._data, axis=axes), np.int64))


class Eps(Primitive):
    """`Eps()(x)`: a tensor like x filled with its dtype's machine epsilon."""

    def __call__(self, x):
        return eps(x)


class Fills(Primitive):
    """`Fills()(x, value)`: a tensor like x filled with `value`."""

    def __call__(self, x, value):
        return fills(x, value)


class TensorAdd(M.Add):
    """`TensorAdd()(x, y)`: x + y (MindSpore's deprecated name of Add)."""
