"""Elementwise math, reductions and statistics, products, sequences, polynomials and histograms,
composed of minispore ops so that gradients flow through the tape."""
import builtins
import math

import numpy as np

from .. import ops
from ..common import dtype as mstype
from ..common.tensor import Tensor
from .array_creations import histogram_bin_edges
from .dtypes import _as_dtype
from .utils import (
    _axes,
    _axis,
    _cast,
    _const,
    _int,
    _is_bool,
    _is_float,
    _is_int,
    _operands,
    _out,
    _promote,
    _to_float,
    _to_tensor,
)

__all__ = [
    "abs",
    "absolute",
    "add",
    "amax",
    "amin",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "argmax",
    "argmin",
    "average",
    "bincount",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "cbrt",
    "ceil",
    "clip",
    "convolve",
    "copysign",
    "corrcoef",
    "correlate",
    "cos",
    "cosh",
    "count_nonzero",
    "cov",
    "cross",
    "cumprod",
    "cumsum",
    "deg2rad",
    "diff",
    "digitize",
    "divide",
    "divmod",
    "dot",
    "ediff1d",
    "exp",
    "exp2",
    "expm1",
    "fabs",
    "fix",
    "float_power",
    "floor",
    "floor_divide",
    "fmod",
    "gcd",
    "gradient",
    "heaviside",
    "histogram",
    "histogram2d",
    "histogramdd",
    "hypot",
    "inner",
    "interp",
    "invert",
    "kron",
    "lcm",
    "log",
    "log1p",
    "log2",
    "log10",
    "logaddexp",
    "logaddexp2",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mod",
    "multi_dot",
    "multiply",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmin",
    "nanstd",
    "nansum",
    "nanvar",
    "negative",
    "norm",
    "outer",
    "polyadd",
    "polyder",
    "polyint",
    "polymul",
    "polysub",
    "polyval",
    "positive",
    "power",
    "ptp",
    "rad2deg",
    "radians",
    "ravel_multi_index",
    "reciprocal",
    "remainder",
    "rint",
    "searchsorted",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "std",
    "subtract",
    "sum",
    "tan",
    "tanh",
    "tensordot",
    "trapz",
    "true_divide",
    "trunc",
    "unwrap",
    "var",
]

_LN2 = math.log(2.0)


def _unary_float(fn, x, dtype):
    """fn on `x` made floating (integers become float32, bools float16 as in NumPy and
    MindSpore)."""
    t = _to_tensor(x)
    return _out(fn(_to_float(t, mstype.float16 if _is_bool(t) else mstype.float32)), dtype)


def absolute(x, dtype=None):
    """|x| (a bool input stays bool)."""
    t = _to_tensor(x)
    return _out(t if _is_bool(t) else ops.abs(t), dtype)


abs = absolute


def fabs(x, dtype=None):
    """|x|, keeping an integer input's dtype (as MindSpore's)."""
    return absolute(x, dtype)


def positive(a, dtype=None):
    """+a (a copy)."""
    return _out(_to_tensor(a) * 1, dtype)


def negative(a, dtype=None):
    """-a; bool input raises TypeError."""
    t = _to_tensor(a)
    if _is_bool(t):
        raise TypeError("For 'negative', the input cannot be bool")
    return _out(ops.neg(t), dtype)


def sign(x, dtype=None):
    """-1, 0 or 1 by the sign of x, as a float Tensor (MindSpore's dtype for integer input too)."""
    return _unary_float(ops.sign, x, dtype)


def sqrt(x, dtype=None):
    """The square root."""
    return _unary_float(ops.sqrt, x, dtype)


def _cbrt(t):
    return ops.sign(t) * ops.pow(ops.abs(t), 1.0 / 3.0)


def cbrt(x, dtype=None):
    """The cube root (negative for negative x)."""
    return _unary_float(_cbrt, x, dtype)


def square(x, dtype=None):
    """x * x, in x's dtype."""
    t = _to_tensor(x)
    if _is_bool(t):
        raise TypeError("For 'square', the input cannot be bool")
    return _out(t * t, dtype)


def reciprocal(x, dtype=None):
    """1 / x (truncated to an integer for integer x)."""
    return _int_back(ops.reciprocal)(x, dtype)


def exp(x, dtype=None):
    """e ** x."""
    return _unary_float(ops.exp, x, dtype)


def _int_back(fn):
    """fn computed in floating point; integer inputs get an integer result (truncated), as
    MindSpore's exp2 and reciprocal do."""
    def run(x, dtype):
        t = _to_tensor(x)
        out = _unary_float(fn, t, None)
        return _out(_cast(out, t.dtype) if _is_int(t) else out, dtype)
    return run


def exp2(x, dtype=None):
    """2 ** x (an integer result for integer x)."""
    return _int_back(lambda t: ops.exp(t * _LN2))(x, dtype)


def expm1(x, dtype=None):
    """e ** x - 1, accurate near 0."""
    return _unary_float(ops.expm1, x, dtype)


def log(x, dtype=None):
    """The natural logarithm."""
    return _unary_float(ops.log, x, dtype)


def log2(x, dtype=None):
    """The base-2 logarithm."""
    return _unary_float(lambda t: ops.log(t) / _LN2, x, dtype)


def log10(x, dtype=None):
    """The base-10 logarithm."""
    return _unary_float(lambda t: ops.log(t) / math.log(10.0), x, dtype)


def log1p(x, dtype=None):
    """log(1 + x), accurate near 0."""
    return _unary_float(ops.log1p, x, dtype)


def _float_pair(x1, x2):
    t1, t2 = _operands(x1, x2)
    return _to_float(t1), _to_float(t2)


def _logaddexp(t1, t2):
    top = ops.stop_gradient(ops.maximum(t1, t2))
    top = ops.where(ops.isfinite(top), top, ops.zeros_like(top))
    return top + ops.log(ops.exp(t1 - top) + ops.exp(t2 - top))


def logaddexp(x1, x2, dtype=None):
    """log(exp(x1) + exp(x2)), computed without overflow."""
    return _out(_logaddexp(*_float_pair(x1, x2)), dtype)


def logaddexp2(x1, x2, dtype=None):
    """log2(2 ** x1 + 2 ** x2), computed without overflow."""
    t1, t2 = _float_pair(x1, x2)
    return _out(_logaddexp(t1 * _LN2, t2 * _LN2) / _LN2, dtype)


def sin(x, dtype=None):
    """The sine."""
    return _unary_float(ops.sin, x, dtype)


def cos(x, dtype=None):
    """The cosine."""
    return _unary_float(ops.cos, x, dtype)


def tan(x, dtype=None):
    """The tangent."""
    return _unary_float(ops.tan, x, dtype)


def arcsin(x, dtype=None):
    """The inverse sine."""
    return _unary_float(ops.asin, x, dtype)


def arccos(input, dtype=None):
    """The inverse cosine."""
    return _unary_float(ops.acos, input, dtype)


def arctan(x, dtype=None):
    """The inverse tangent."""
    return _unary_float(ops.atan, x, dtype)


def sinh(x, dtype=None):
    """The hyperbolic sine."""
    return _unary_float(ops.sinh, x, dtype)


def cosh(x, dtype=None):
    """The hyperbolic cosine."""
    return _unary_float(ops.cosh, x, dtype)


def tanh(x, dtype=None):
    """The hyperbolic tangent."""
    return _unary_float(ops.tanh, x, dtype)


def arcsinh(x, dtype=None):
    """The inverse hyperbolic sine."""
    return _unary_float(ops.asinh, x, dtype)


def arccosh(x, dtype=None):
    """The inverse hyperbolic cosine."""
    return _unary_float(ops.acosh, x, dtype)


def arctanh(x, dtype=None):
    """The inverse hyperbolic tangent."""
    return _unary_float(ops.atanh, x, dtype)


def arctan2(x1, x2, dtype=None):
    """The angle of the point (x2, x1), in (-pi, pi]."""
    return _out(ops.atan2(*_float_pair(x1, x2)), dtype)


def hypot(x1, x2, dtype=None):
    """sqrt(x1 ** 2 + x2 ** 2)."""
    t1, t2 = _float_pair(x1, x2)
    return _out(ops.sqrt(t1 * t1 + t2 * t2), dtype)


def deg2rad(x, dtype=None):
    """Degrees to radians."""
    return _unary_float(lambda t: t * (math.pi / 180.0), x, dtype)


radians = deg2rad


def rad2deg(x, dtype=None):
    """Radians to degrees."""
    return _unary_float(lambda t: t * (180.0 / math.pi), x, dtype)


def ceil(x, dtype=None):
    """The smallest integer >= x, as a float."""
    return _unary_float(ops.ceil, x, dtype)


def floor(x, dtype=None):
    """The largest integer <= x, as a float."""
    return _unary_float(ops.floor, x, dtype)


def trunc(x, dtype=None):
    """x rounded toward zero, as a float."""
    return _unary_float(ops.trunc, x, dtype)


def fix(x):
    """x rounded toward zero, as a float."""
    return _unary_float(ops.trunc, x, None)


def rint(x, dtype=None):
    """x rounded to the nearest integer (halves to even), as a float."""
    return _unary_float(ops.round, x, dtype)


def clip(x, xmin, xmax, dtype=None):
    """x limited to [xmin, xmax] (either bound may be None, not both); x's dtype is kept, also
    for integer x with float bounds (as MindSpore's)."""
    if xmin is None and xmax is None:
        raise ValueError("For 'clip', 'xmin' and 'xmax' cannot both be None")
    t = _to_tensor(x)
    out = t
    for bound, fn in ((xmin, ops.maximum), (xmax, ops.minimum)):
        if bound is not None:
            lo, hi = _operands(out, bound)
            out = fn(lo, hi)
    return _out(_cast(out, t.dtype), dtype)


def _binary(fn, x1, x2, dtype):
    t1, t2 = _operands(x1, x2)
    return _out(fn(t1, t2), dtype)


def add(x1, x2, dtype=None):
    """x1 + x2."""
    return _binary(lambda a, b: (ops.logical_or(a, b) if _is_bool(a) else a + b), x1, x2, dtype)


def subtract(x1, x2, dtype=None):
    """x1 - x2."""
    return _binary(lambda a, b: a - b, x1, x2, dtype)


def multiply(x1, x2, dtype=None):
    """x1 * x2."""
    return _binary(lambda a, b: (ops.logical_and(a, b) if _is_bool(a) else a * b), x1, x2,
                   dtype)


def divide(x1, x2, dtype=None):
    """x1 / x2 (true division: integers give float32)."""
    return _binary(lambda a, b: _to_float(a) / _to_float(b), x1, x2, dtype)


true_divide = divide


def _floor_div(a, b):
    if _is_float(a):
        with np.errstate(divide="ignore", invalid="ignore"):
            return Tensor(np.floor_divide(a.asnumpy(), b.asnumpy()))
    return ops.floor_divide(a, b)


def floor_divide(x1, x2, dtype=None):
    """The floor of x1 / x2."""
    return _binary(_floor_div, x1, x2, dtype)


def _exact_quotient(a, b, np_mod):
    """The integral quotient q with a - q * b == np_mod(a, b), NumPy's exact modulo; q is
    piecewise constant, so the gradient is 1 for a and -q for b."""
    an, bn = a.asnumpy(), b.asnumpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.round((an - np_mod(an, bn)) / bn)
    return Tensor(np.where(np.isfinite(q), q, 0).astype(an.dtype))


def _remainder(a, b):
    if _is_float(a):
        return a - _exact_quotient(a, b, np.remainder) * b
    return ops.remainder(a, b)


def _fmod(a, b):
    if _is_float(a):
        return a - _exact_quotient(a, b, np.fmod) * b
    return ops.fmod(a, b)


def remainder(x1, x2, dtype=None):
    """x1 modulo x2, with the sign of x2."""
    return _binary(_remainder, x1, x2, dtype)


mod = remainder


def fmod(x1, x2, dtype=None):
    """x1 modulo x2, with the sign of x1."""
    return _binary(_fmod, x1, x2, dtype)


def divmod(x1, x2, dtype=None):
    """(floor_divide(x1, x2), remainder(x1, x2))."""
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)


def power(x1, x2, dtype=None):
    """x1 ** x2."""
    return _binary(ops.pow, x1, x2, dtype)


def float_power(x1, x2, dtype=None):
    """x1 ** x2 computed in floating point (float32 unless an input is float64)."""
    return _out(ops.pow(*_float_pair(x1, x2)), dtype)


def maximum(x1, x2, dtype=None):
    """The elementwise maximum (NaN if either is NaN)."""
    return _binary(_nan_aware(ops.maximum), x1, x2, dtype)


def minimum(x1, x2, dtype=None):
    """The elementwise minimum (NaN if either is NaN)."""
    return _binary(_nan_aware(ops.minimum), x1, x2, dtype)


def _nan_aware(fn):
    def run(a, b):
        out = fn(a, b)
        if not _is_float(a):
            return out
        return ops.where(ops.isnan(a), a, ops.where(ops.isnan(b), b, out))
    return run


def copysign(x1, x2, dtype=None):
    """|x1| with the sign of x2."""
    def run(a, b):
        neg = _signbit(b)
        mag = ops.abs(a)
        return ops.where(neg, -mag, mag)
    return _binary(run, x1, x2, dtype)


def _signbit(t):
    if _is_float(t):
        arr = np.signbit(t.asnumpy())
        return Tensor(arr)
    if _is_bool(t) or mstype.to_np(t.dtype).kind == "u":
        return ops.zeros_like(t).astype(mstype.bool_)
    return t < 0


def heaviside(x1, x2, dtype=None):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0."""
    def run(a, b):
        a = ops.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape))
        zero, one = ops.zeros_like(a), ops.ones_like(a)
        return ops.where(a < 0, zero, ops.where(a > 0, one, ops.broadcast_to(b, a.shape)))
    return _binary(run, x1, x2, dtype)


def _integer_pair(x1, x2, name):
    t1, t2 = _operands(x1, x2)
    if not (_is_int(t1) or _is_bool(t1)):
        raise TypeError(f"For '{name}', the inputs must be integers or bools, but got "
                        f"{t1.dtype}")
    return t1, t2


def _integer_result(fn, x1, x2, dtype, name):
    t1, t2 = _integer_pair(x1, x2, name)
    out = fn(t1.asnumpy(), t2.asnumpy())
    return _out(Tensor(np.asarray(out).astype(mstype.to_np(t1.dtype))), dtype)


def gcd(x1, x2, dtype=None):
    """The greatest common divisor of |x1| and |x2| (not differentiable)."""
    return _integer_result(np.gcd, x1, x2, dtype, "gcd")


def lcm(x1, x2, dtype=None):
    """The least common multiple of |x1| and |x2| (not differentiable)."""
    return _integer_result(np.lcm, x1, x2, dtype, "lcm")


def bitwise_and(x1, x2, dtype=None):
    """The bitwise AND of integers or bools."""
    return _out(ops.bitwise_and(*_integer_pair(x1, x2, "bitwise_and")), dtype)


def bitwise_or(x1, x2, dtype=None):
    """The bitwise OR of integers or bools."""
    return _out(ops.bitwise_or(*_integer_pair(x1, x2, "bitwise_or")), dtype)


def bitwise_xor(x1, x2, dtype=None):
    """The bitwise XOR of integers or bools."""
    return _out(ops.bitwise_xor(*_integer_pair(x1, x2, "bitwise_xor")), dtype)


def invert(x, dtype=None):
    """The bitwise NOT of integers (logical NOT of bools)."""
    t = _to_tensor(x)
    if _is_bool(t):
        return _out(ops.logical_not(t), dtype)
    if not _is_int(t):
        raise TypeError(f"For 'invert', the input must be integers or bools, but got {t.dtype}")
    return _out(Tensor(np.invert(t.asnumpy())), dtype)


bitwise_not = invert


# ---- reductions ----------------------------------------------------------------------------

def _reduce_axes(t, axis, name):
    return None if axis is None else _axes(axis, t.ndim, name)


def sum(a, axis=None, dtype=None, keepdims=False, initial=None):
    """The sum over `axis` (bools and integers sum to int64, as MindSpore's), plus `initial`."""
    t = _to_tensor(a)
    if dtype is not None:
        t = _cast(t, _as_dtype(dtype))
    elif _is_bool(t) or _is_int(t):
        t = _cast(t, mstype.int64)
    axes = _reduce_axes(t, axis, "sum")
    out = ops.sum(t, axes, keepdims) if t.ndim else t
    if initial is not None:
        out = out + initial
    return out


def _int_mean_dtype(t):
    return t.dtype if _is_int(t) else None


def mean(a, axis=None, keepdims=False, dtype=None):
    """The mean over `axis` (integer inputs give their own dtype, truncated, as MindSpore's)."""
    t = _to_tensor(a)
    back = _int_mean_dtype(t)
    out = ops.mean(_to_float(t), _reduce_axes(t, axis, "mean"), keepdims)
    if dtype is not None:
        return _cast(out, _as_dtype(dtype))
    return _cast(out, back) if back is not None else out


def _extreme(fn, a, axis, keepdims, initial, where, name):
    t = _to_tensor(a)
    axes = _reduce_axes(t, axis, name)
    kwargs = {}
    if initial is not None:
        kwargs["initial"] = initial
    if where is not True and where is not None:
        kwargs["where"] = _to_tensor(where)
        if initial is None:
            raise ValueError(f"For '{name}', reduction operation {name} does not have an "
                             f"identity, so to use a where mask one has to specify 'initial'")
    if t.size == 0 and initial is None:
        raise ValueError(f"For '{name}', zero-size array to reduction operation which has no "
                         f"identity")
    return fn(t, axes, keepdims, **kwargs)


def amax(a, axis=None, keepdims=False, initial=None, where=True):
    """The maximum over `axis` (at least `initial`, over the elements `where` selects)."""
    return _extreme(ops.amax, a, axis, keepdims, initial, where, "amax")


def amin(a, axis=None, keepdims=False, initial=None, where=True):
    """The minimum over `axis` (at most `initial`, over the elements `where` selects)."""
    return _extreme(ops.amin, a, axis, keepdims, initial, where, "amin")


max = amax
min = amin


def argmax(a, axis=None):
    """The index of the maximum (of the flattened array for axis None), int64."""
    t = _to_tensor(a)
    if axis is None:
        t, axis = t.reshape(-1), 0
    return _cast(ops.argmax(t, _axis(axis, t.ndim, "argmax")), mstype.int64)


def argmin(a, axis=None):
    """The index of the minimum (of the flattened array for axis None), int32 (MindSpore's)."""
    t = _to_tensor(a)
    if axis is None:
        t, axis = t.reshape(-1), 0
    return _cast(ops.argmin(t, _axis(axis, t.ndim, "argmin")), mstype.int32)


def var(x, axis=None, ddof=0, keepdims=False):
    """The variance over `axis` with `ddof` delta degrees of freedom."""
    t = _to_float(_to_tensor(x))
    axes = _reduce_axes(t, axis, "var")
    mu = ops.mean(t, axes, True)
    dev = t - mu
    count = int(np.prod([t.shape[i] for i in (axes if axes is not None else range(t.ndim))]))
    return ops.sum(dev * dev, axes, keepdims) / _const(count - ddof, t.dtype)


def std(x, axis=None, ddof=0, keepdims=False):
    """The standard deviation over `axis` with `ddof` delta degrees of freedom."""
    return ops.sqrt(var(x, axis, ddof, keepdims))


def ptp(x, axis=None, keepdims=False):
    """max - min over `axis`."""
    t = _to_tensor(x)
    if _is_bool(t):
        raise TypeError("For 'ptp', the input cannot be bool")
    axes = _reduce_axes(t, axis, "ptp")
    return ops.amax(t, axes, keepdims) - ops.amin(t, axes, keepdims)


def average(x, axis=None, weights=None, returned=False):
    """The weighted mean over `axis`; with `returned`, also the sum of the weights. Integer x
    without weights gives its own dtype, truncated (as MindSpore's)."""
    t = _to_tensor(x)
    back = _int_mean_dtype(t)
    xf = _to_float(t)
    axes = _reduce_axes(t, axis, "average")
    if weights is None:
        avg = ops.mean(xf, axes)
        count = t.size if axes is None else int(np.prod([t.shape[i] for i in axes]))
        wsum = ops.fill(avg.dtype, avg.shape, float(count))
    else:
        w = _to_float(_to_tensor(weights))
        if w.shape != t.shape:
            if axes is None or len(axes) != 1 or w.ndim != 1 or w.shape[0] != t.shape[axes[0]]:
                raise ValueError("For 'average', the weights must have the shape of 'x', or be "
                                 "1-D with the length of 'x' along 'axis'")
            shape = [1] * t.ndim
            shape[axes[0]] = w.shape[0]
            w = ops.broadcast_to(w.reshape(tuple(shape)), t.shape)
        wsum = ops.sum(w, axes)
        avg = ops.sum(xf * w, axes) / wsum
        wsum = ops.broadcast_to(wsum, avg.shape)
        back = None
    if back is not None:
        avg = _cast(avg, back)
    return (avg, wsum) if returned else avg


def count_nonzero(x, axis=None, keepdims=False):
    """The number of non-zero elements over `axis`, int32."""
    t = _to_tensor(x)
    nz = _cast(t != 0, mstype.int32)
    axes = _reduce_axes(t, axis, "count_nonzero")
    return _cast(ops.sum(nz, axes, keepdims), mstype.int32)


def _scan_dtype(t, dtype):
    if dtype is not None:
        return _as_dtype(dtype)
    if _is_bool(t) or (_is_int(t) and mstype.to_np(t.dtype).itemsize < 4):
        return mstype.int32
    return t.dtype


def cumsum(a, axis=None, dtype=None):
    """The running sum along `axis` (of the flattened array for None); small ints and bools
    accumulate in int32."""
    t = _to_tensor(a)
    if axis is None:
        t, axis = t.reshape(-1), 0
    t = _cast(t, _scan_dtype(t, dtype))
    return ops.cumsum(t, _axis(axis, t.ndim, "cumsum"))


def cumprod(a, axis=None, dtype=None):
    """The running product along `axis` (of the flattened array for None)."""
    t = _to_tensor(a)
    if axis is None:
        t, axis = t.reshape(-1), 0
    dt = _scan_dtype(t, dtype)
    return _cast(ops.cumprod(_cast(t, dt), _axis(axis, t.ndim, "cumprod")), dt)


def _nan_filled(a, value):
    t = _to_tensor(a)
    if not _is_float(t):
        return t, None
    nan = ops.isnan(t)
    return ops.where(nan, ops.fill(t.dtype, t.shape, value), t), nan


def nansum(a, axis=None, dtype=None, keepdims=False):
    """The sum over `axis` treating NaNs as zero."""
    t, _ = _nan_filled(a, 0.0)
    if dtype is not None:
        t = _cast(t, _as_dtype(dtype))
    return _cast(ops.sum(t, _reduce_axes(t, axis, "nansum"), keepdims), t.dtype)


def _nan_count(t, nan, axes, keepdims):
    valid = ops.ones_like(t) if nan is None else _cast(ops.logical_not(nan), t.dtype)
    return ops.sum(valid, axes, keepdims)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    """The mean over `axis` ignoring NaNs."""
    t, nan = _nan_filled(_to_float(_to_tensor(a)), 0.0)
    axes = _reduce_axes(t, axis, "nanmean")
    out = ops.sum(t, axes, keepdims) / _nan_count(t, nan, axes, keepdims)
    return _out(out, dtype)


def _nan_extreme(a, axis, dtype, keepdims, fill, fn, name):
    t = _to_tensor(a)
    filled, nan = _nan_filled(t, fill)
    axes = _reduce_axes(t, axis, name)
    out = fn(filled, axes, keepdims)
    if nan is not None:
        all_nan = ops.all(nan, axes, keepdims) if axes is not None else ops.all(nan)
        out = ops.where(all_nan, ops.fill(out.dtype, out.shape, float("nan")), out)
    return _out(out, dtype)


def nanmax(a, axis=None, dtype=None, keepdims=False):
    """The maximum over `axis` ignoring NaNs (NaN where all are NaN)."""
    return _nan_extreme(a, axis, dtype, keepdims, -float("inf"), ops.amax, "nanmax")


def nanmin(a, axis=None, dtype=None, keepdims=False):
    """The minimum over `axis` ignoring NaNs (NaN where all are NaN)."""
    return _nan_extreme(a, axis, dtype, keepdims, float("inf"), ops.amin, "nanmin")


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """The variance over `axis` ignoring NaNs."""
    t, nan = _nan_filled(_to_float(_to_tensor(a)), 0.0)
    axes = _reduce_axes(t, axis, "nanvar")
    count = _nan_count(t, nan, axes, True)
    mu = ops.sum(t, axes, True) / count
    dev = t - mu
    if nan is not None:
        dev = ops.where(nan, ops.zeros_like(dev), dev)
    out = ops.sum(dev * dev, axes, keepdims) / (_nan_count(t, nan, axes, keepdims) - ddof)
    return _out(out, dtype)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """The standard deviation over `axis` ignoring NaNs."""
    return _out(ops.sqrt(nanvar(a, axis, None, ddof, keepdims)), dtype)


def nancumsum(a, axis=None, dtype=None):
    """The running sum treating NaNs as zero."""
    t, _ = _nan_filled(a, 0.0)
    return cumsum(t, axis, dtype)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """The covariance matrix of the variables in the rows (columns when not `rowvar`) of m,
    float32 unless `dtype` says otherwise (MindSpore's default)."""
    x = _to_float(_to_tensor(m))
    if dtype is not None:
        x = _cast(x, _as_dtype(dtype))
    if x.ndim > 2:
        raise ValueError("For 'cov', 'm' has more than 2 dimensions")
    x = x.reshape(1, -1) if x.ndim < 2 else x
    if not rowvar and x.shape[0] != 1:
        x = x.T
    if y is not None:
        yt = _to_float(_to_tensor(y))
        yt = yt.reshape(1, -1) if yt.ndim < 2 else yt
        if not rowvar and yt.shape[0] != 1:
            yt = yt.T
        dt = _promote(x.dtype, yt.dtype)
        x = ops.concat([_cast(x, dt), _cast(yt, dt)], 0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = x.shape[1]
    w = None
    if fweights is not None:
        fw = _to_tensor(fweights)
        if _is_float(fw) and bool((ops.floor(fw) != fw).any().asnumpy()):
            raise TypeError("For 'cov', 'fweights' must be integer")
        w = _cast(fw, x.dtype)
    if aweights is not None:
        aw = _cast(_to_tensor(aweights), x.dtype)
        w = aw if w is None else w * aw
    if w is None:
        avg = ops.mean(x, 1, True)
        fact = _const(n - ddof, x.dtype)
        xc = x - avg
        c = ops.matmul(xc, xc.T) / fact
    else:
        wsum = ops.sum(w)
        avg = ops.sum(x * w, 1, True) / wsum
        if ddof == 0:
            fact = wsum
        elif aweights is None:
            fact = wsum - ddof
        else:
            fact = wsum - ddof * ops.sum(w * _cast(_to_tensor(aweights), x.dtype)) / wsum
        xc = x - avg
        c = ops.matmul(xc * w, xc.T) / fact
    if c.shape == (1, 1):
        c = c.reshape(())
    return _cast(c, mstype.float32 if dtype is None else _as_dtype(dtype))


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """The Pearson correlation coefficients of the variables in the rows of x (float32 unless
    `dtype` says otherwise)."""
    c = cov(x, y, rowvar, dtype=mstype.float64 if dtype is None else dtype)
    if c.ndim == 0:
        c = c / c
    else:
        d = ops.sqrt(ops.diagonal(c))
        c = ops.clamp(c / d.reshape(-1, 1) / d.reshape(1, -1), -1.0, 1.0)
    return _cast(c, mstype.float32 if dtype is None else _as_dtype(dtype))


def _vector_norm(t, ord, axes, keepdims):
    a = ops.abs(t)
    if ord is None or ord == 2:
        return ops.sqrt(ops.sum(t * t, axes, keepdims))
    if ord == float("inf"):
        return ops.amax(a, axes, keepdims)
    if ord == -float("inf"):
        return ops.amin(a, axes, keepdims)
    if ord == 0:
        return ops.sum(_cast(t != 0, t.dtype), axes, keepdims)
    if ord == 1:
        return ops.sum(a, axes, keepdims)
    if isinstance(ord, str):
        raise ValueError(f"For 'norm', invalid norm order {ord!r} for vectors")  # noqa: TRY004
    return ops.pow(ops.sum(ops.pow(a, float(ord)), axes, keepdims), 1.0 / float(ord))


def _matrix_norm(t, ord, axes, keepdims):
    r, c = axes
    if ord in (None, "fro"):
        out = ops.sqrt(ops.sum(t * t, axes, True))
    elif ord in (1, -1):
        col = ops.sum(ops.abs(t), r, True)
        out = (ops.amax if ord == 1 else ops.amin)(col, c, True)
    elif ord in (float("inf"), -float("inf")):
        row = ops.sum(ops.abs(t), c, True)
        out = (ops.amax if ord > 0 else ops.amin)(row, r, True)
    elif ord in (2, -2, "nuc"):
        moved = ops.moveaxis(ops.moveaxis(t, r, -2), c if c > r else c + 1, -1) \
            if (r, c) != (t.ndim - 2, t.ndim - 1) else t
        s = ops.Svd(compute_uv=True)(moved)[0]
        red = ops.amax(s, -1) if ord == 2 else ops.amin(s, -1) if ord == -2 else ops.sum(s, -1)
        out = red
        for ax in sorted((r, c)):
            out = ops.expand_dims(out, ax)
    else:
        raise ValueError(f"For 'norm', invalid norm order {ord!r} for matrices")
    return out if keepdims else ops.squeeze(out, tuple(sorted((r, c))))


def norm(x, ord=None, axis=None, keepdims=False):
    """The vector norm (1 axis) or matrix norm (2 axes) of `ord` over `axis`."""
    t = _to_float(_to_tensor(x))
    if axis is None:
        if ord is None:
            out = ops.sqrt(ops.sum(t * t))
            return out.reshape((1,) * t.ndim) if keepdims else out
        if t.ndim > 2:
            raise ValueError("For 'norm', improper number of dimensions to norm")
        axes = tuple(range(t.ndim))
    else:
        axes = _axes(axis, t.ndim, "norm")
        if isinstance(axis, (list, tuple)):
            axes = tuple(_axis(a, t.ndim, "norm") for a in axis)
    if len(axes) == 1:
        return _vector_norm(t, ord, axes, keepdims)
    if len(axes) == 2:
        return _matrix_norm(t, ord, axes, keepdims)
    raise ValueError("For 'norm', improper number of dimensions to norm")


# ---- products ------------------------------------------------------------------------------

def matmul(x1, x2, dtype=None):
    """The matrix product (1-D operands are promoted as in NumPy)."""
    t1, t2 = _operands(x1, x2)
    if t1.ndim == 0 or t2.ndim == 0:
        raise ValueError("For 'matmul', the inputs cannot be scalars")
    return _out(ops.matmul(t1, t2), dtype)


def dot(a, b):
    """The dot product: inner for 1-D, matmul for 2-D, a sum over the last axis of `a` and the
    second-to-last of `b` otherwise."""
    ta, tb = _operands(a, b)
    if ta.ndim == 0 or tb.ndim == 0:
        return ta * tb
    if tb.ndim == 1:
        return ops.sum(ta * tb, -1) if ta.shape[-1] == tb.shape[0] else _mismatch("dot", ta, tb)
    return tensordot(ta, tb, ([ta.ndim - 1], [tb.ndim - 2]))


def _mismatch(name, ta, tb):
    raise ValueError(f"For '{name}', shapes {tuple(ta.shape)} and {tuple(tb.shape)} are not "
                     f"aligned")


def inner(a, b):
    """The sum of products over the last axes."""
    ta, tb = _operands(a, b)
    if ta.ndim == 0 or tb.ndim == 0:
        return ta * tb
    return tensordot(ta, tb, ([ta.ndim - 1], [tb.ndim - 1]))


def outer(a, b):
    """The outer product of the flattened inputs."""
    ta, tb = _operands(a, b)
    return ta.reshape(-1, 1) * tb.reshape(1, -1)


def tensordot(a, b, axes=2):
    """The sum of products over `axes` (an int: the last of `a` with the first of `b`; or two
    sequences of axes)."""
    ta, tb = _operands(a, b)
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0 or n > ta.ndim or n > tb.ndim:
            raise ValueError(f"For 'tensordot', 'axes' {n} exceeds the inputs' ranks")
        ax_a, ax_b = list(range(ta.ndim - n, ta.ndim)), list(range(n))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, int) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, int) else list(ax_b)
        ax_a = [_axis(x, ta.ndim, "tensordot") for x in ax_a]
        ax_b = [_axis(x, tb.ndim, "tensordot") for x in ax_b]
    if len(ax_a) != len(ax_b) or any(ta.shape[i] != tb.shape[j] for i, j in zip(ax_a, ax_b)):
        raise ValueError(f"For 'tensordot', shape-mismatch for sum: {tuple(ta.shape)} and "
                         f"{tuple(tb.shape)} over axes {ax_a} and {ax_b}")
    free_a = [i for i in range(ta.ndim) if i not in ax_a]
    free_b = [i for i in range(tb.ndim) if i not in ax_b]
    k = int(np.prod([ta.shape[i] for i in ax_a]))
    ma = ops.transpose(ta, tuple(free_a + ax_a)).reshape(-1, k)
    mb = ops.transpose(tb, tuple(ax_b + free_b)).reshape(k, -1)
    out_shape = tuple(ta.shape[i] for i in free_a) + tuple(tb.shape[i] for i in free_b)
    return ops.matmul(ma, mb).reshape(out_shape)


def kron(a, b):
    """The Kronecker product."""
    ta, tb = _operands(a, b)
    nd = builtins.max(ta.ndim, tb.ndim)
    sa = (1,) * (nd - ta.ndim) + tuple(ta.shape)
    sb = (1,) * (nd - tb.ndim) + tuple(tb.shape)
    ia = ta.reshape(tuple(v for s in sa for v in (s, 1)))
    ib = tb.reshape(tuple(v for s in sb for v in (1, s)))
    return (ia * ib).reshape(tuple(x * y for x, y in zip(sa, sb)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of vectors of 2 or 3 components along `axisa`/`axisb`."""
    ta, tb = _operands(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    ta = ops.moveaxis(ta, _axis(axisa, ta.ndim, "cross"), -1)
    tb = ops.moveaxis(tb, _axis(axisb, tb.ndim, "cross"), -1)
    na, nb = ta.shape[-1], tb.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("For 'cross', incompatible dimensions for cross product (dimension "
                         "must be 2 or 3)")
    a0, a1 = ta[..., 0], ta[..., 1]
    b0, b1 = tb[..., 0], tb[..., 1]
    if na == 2 and nb == 2:
        return a0 * b1 - a1 * b0
    a2 = ta[..., 2] if na == 3 else ops.zeros_like(a0)
    b2 = tb[..., 2] if nb == 3 else ops.zeros_like(b0)
    out = ops.stack(_broadcast_all(a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), -1)
    return ops.moveaxis(out, -1, _axis(axisc, out.ndim, "cross"))


def _broadcast_all(*ts):
    shape = np.broadcast_shapes(*(t.shape for t in ts))
    return [ops.broadcast_to(t, shape) for t in ts]


def multi_dot(arrays):
    """The chained matrix product of the sequence (a 1-D first/last operand is a row/column)."""
    ts = [_to_tensor(t) for t in arrays]
    if len(ts) < 2:
        raise ValueError("For 'multi_dot', at least two arrays are required")
    first_1d, last_1d = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_1d:
        ts[0] = ts[0].reshape(1, -1)
    if last_1d:
        ts[-1] = ts[-1].reshape(-1, 1)
    out = ts[0]
    for t in ts[1:]:
        out = matmul(out, t)
    if first_1d and last_1d:
        return out.reshape(())
    if first_1d:
        return out.reshape(-1)
    if last_1d:
        return out.reshape(-1)
    return out


# ---- sequences -----------------------------------------------------------------------------

def _along(t, axis, start, stop):
    return ops.narrow(t, axis, start, stop - start)


def _edge_piece(value, t, axis):
    v = _cast(_to_tensor(value), t.dtype)
    shape = list(t.shape)
    if v.ndim == 0:
        shape[axis] = 1
        return ops.broadcast_to(v, tuple(shape))
    if v.ndim != t.ndim:
        raise ValueError("For 'diff', 'prepend'/'append' must be scalars or have the input's "
                         "rank")
    return v


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The n-th discrete difference along `axis`."""
    t = _to_tensor(a)
    n = _int(n, "diff", "n")
    if n < 0:
        raise ValueError(f"For 'diff', order must be non-negative but got {n}")
    if t.ndim == 0:
        raise ValueError("For 'diff', the input must be at least 1-D")
    axis = _axis(axis, t.ndim, "diff")
    parts = []
    if prepend is not None:
        parts.append(_edge_piece(prepend, t, axis))
    parts.append(t)
    if append is not None:
        parts.append(_edge_piece(append, t, axis))
    if len(parts) > 1:
        t = ops.concat(parts, axis)
    for _ in range(n):
        m = t.shape[axis]
        if m == 0:
            break
        hi, lo = _along(t, axis, 1, m), _along(t, axis, 0, m - 1)
        t = ops.logical_xor(hi, lo) if _is_bool(t) else hi - lo
    return t


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences between consecutive elements of the flattened array, with `to_begin`
    and `to_end` attached."""
    t = _to_tensor(ary).reshape(-1)
    if _is_bool(t):
        t = _cast(t, mstype.int32)
    parts = []
    if to_begin is not None:
        parts.append(_cast(_to_tensor(to_begin), t.dtype).reshape(-1))
    parts.append(t[1:] - t[:-1])
    if to_end is not None:
        parts.append(_cast(_to_tensor(to_end), t.dtype).reshape(-1))
    return ops.concat(parts, 0) if len(parts) > 1 else parts[0]


def _spacing(value, n, name):
    """A scalar step, or the coordinates' differences as a float64 ndarray."""
    if isinstance(value, Tensor):
        value = value.asnumpy()
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim == 0:
        return float(arr)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"For '{name}', the coordinates must be 1-D with the length of the "
                         f"axis")
    return np.diff(arr)


def _gradient_axis(t, axis, h, edge_order):
    n = t.shape[axis]
    if n < edge_order + 1:
        raise ValueError("For 'gradient', shape of array too small to calculate a numerical "
                         "gradient, at least (edge_order + 1) elements are required")

    def f(i, j=None):
        return _along(t, axis, i, (i + 1) if j is None else j)

    def c(values, lo, hi):
        shape = [1] * t.ndim
        shape[axis] = hi - lo
        return _const(np.asarray(values, np.float64).reshape(shape), t.dtype)

    if isinstance(h, float):
        inner = (f(2, n) - f(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first, last = (f(1) - f(0)) / h, (f(n - 1) - f(n - 2)) / h
        else:
            first = (-1.5 * f(0) + 2 * f(1) - 0.5 * f(2)) / h
            last = (0.5 * f(n - 3) - 2 * f(n - 2) + 1.5 * f(n - 1)) / h
    else:
        dx1, dx2 = h[:-1], h[1:]
        ca = -dx2 / (dx1 * (dx1 + dx2))
        cb = (dx2 - dx1) / (dx1 * dx2)
        cc = dx1 / (dx2 * (dx1 + dx2))
        inner = c(ca, 1, n - 1) * f(0, n - 2) + c(cb, 1, n - 1) * f(1, n - 1) + \
            c(cc, 1, n - 1) * f(2, n)
        if edge_order == 1:
            first, last = (f(1) - f(0)) / float(h[0]), (f(n - 1) - f(n - 2)) / float(h[-1])
        else:
            d1, d2 = h[0], h[1]
            first = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * f(0) + (d1 + d2) / (d1 * d2) * f(1)
                     - d1 / (d2 * (d1 + d2)) * f(2))
            d1, d2 = h[-2], h[-1]
            last = (d2 / (d1 * (d1 + d2)) * f(n - 3) - (d2 + d1) / (d1 * d2) * f(n - 2)
                    + (2 * d2 + d1) / (d2 * (d1 + d2)) * f(n - 1))
    return ops.concat([first, inner, last], axis) if n > 2 else ops.concat([first, last], axis)


def gradient(f, *varargs, axis=None, edge_order=1):
    """The gradient by second-order central differences inside and one-sided differences of
    `edge_order` (1 or 2) at the edges; spacing by scalars or coordinate arrays."""
    t = _to_float(_to_tensor(f))
    if edge_order not in (1, 2):
        raise ValueError("For 'gradient', 'edge_order' must be 1 or 2")
    axes = tuple(range(t.ndim)) if axis is None else (
        tuple(_axis(a, t.ndim, "gradient") for a in axis) if isinstance(axis, (list, tuple))
        else (_axis(axis, t.ndim, "gradient"),))
    if not varargs:
        steps = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0].asnumpy() if isinstance(varargs[0], Tensor)
                                        else varargs[0]) == 0:
        steps = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        steps = list(varargs)
    else:
        raise TypeError("For 'gradient', invalid number of arguments")
    outs = [_gradient_axis(t, ax, _spacing(s, t.shape[ax], "gradient"), edge_order)
            for ax, s in zip(axes, steps)]
    return outs[0] if len(outs) == 1 else outs


def interp(x, xp, fp, left=None, right=None):
    """Piecewise-linear interpolation of (xp, fp) at x (xp increasing); `left`/`right` outside.
    Differentiable in x and fp."""
    xt = _to_float(_to_tensor(x))
    xpt = _cast(_to_tensor(xp), xt.dtype)
    fpt = _cast(_to_tensor(fp), xt.dtype)
    if xpt.ndim != 1 or fpt.ndim != 1 or xpt.shape[0] != fpt.shape[0] or not xpt.shape[0]:
        raise ValueError("For 'interp', 'xp' and 'fp' must be 1-D and of one non-zero length")
    n = xpt.shape[0]
    if n == 1:
        out = ops.broadcast_to(fpt[0], xt.shape)
    else:
        pos = np.searchsorted(xpt.asnumpy(), xt.asnumpy(), side="right") - 1
        idx = Tensor(np.clip(pos, 0, n - 2).astype(np.int32))
        x0, x1 = ops.gather(xpt, idx, 0), ops.gather(xpt, idx + 1, 0)
        y0, y1 = ops.gather(fpt, idx, 0), ops.gather(fpt, idx + 1, 0)
        out = y0 + (xt - x0) * (y1 - y0) / (x1 - x0)
    lo = fpt[0] if left is None else _cast(_to_tensor(left), xt.dtype)
    hi = fpt[-1] if right is None else _cast(_to_tensor(right), xt.dtype)
    out = ops.where(xt < xpt[0], ops.broadcast_to(lo, xt.shape), out)
    return ops.where(xt > xpt[-1], ops.broadcast_to(hi, xt.shape), out)


def _full_convolution(ta, tv):
    n, m = ta.shape[0], tv.shape[0]
    padded = ops.concat([ops.zeros(m - 1, ta.dtype), ta, ops.zeros(m - 1, ta.dtype)], 0) \
        if m > 1 else ta
    windows = np.arange(n + m - 1)[:, None] + np.arange(m)[None, :]
    gathered = ops.gather(padded, Tensor(windows.astype(np.int32)), 0)
    return _cast(ops.sum(gathered * ops.flip(tv, (0,)).reshape(1, -1), 1), ta.dtype)


def _mode_slice(full, n, m, mode, name):
    if mode == "full":
        return full
    if mode == "same":
        start = (builtins.min(n, m) - 1) // 2
        return full[start:start + builtins.max(n, m)]
    if mode == "valid":
        return full[builtins.min(n, m) - 1:builtins.max(n, m)]
    raise ValueError(f"For '{name}', 'mode' must be 'full', 'same' or 'valid', but got "
                     f"{mode!r}")


def _signal_pair(a, v, name):
    ta, tv = _operands(a, v)
    if ta.ndim != 1 or tv.ndim != 1 or not ta.shape[0] or not tv.shape[0]:
        raise ValueError(f"For '{name}', the inputs must be non-empty 1-D arrays")
    if _is_bool(ta):
        ta, tv = _cast(ta, mstype.int32), _cast(tv, mstype.int32)
    return ta, tv


def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-D sequences."""
    ta, tv = _signal_pair(a, v, "convolve")
    n, m = ta.shape[0], tv.shape[0]
    if n < m:
        ta, tv = tv, ta
    return _mode_slice(_full_convolution(ta, tv), n, m, mode, "convolve")


def correlate(a, v, mode="valid"):
    """The cross-correlation of two 1-D sequences."""
    ta, tv = _signal_pair(a, v, "correlate")
    n, m = ta.shape[0], tv.shape[0]
    if n < m:
        out = _mode_slice(_full_convolution(tv, ops.flip(ta, (0,))), n, m, mode, "correlate")
        return ops.flip(out, (0,))
    return _mode_slice(_full_convolution(ta, ops.flip(tv, (0,))), n, m, mode, "correlate")


# ---- polynomials ---------------------------------------------------------------------------

def _poly(p, name):
    t = _to_tensor(p)
    if t.ndim > 1:
        raise ValueError(f"For '{name}', the polynomial must be 1-D")
    return t.reshape(-1)


def _front_pad(t, n):
    if t.shape[0] == n:
        return t
    return ops.concat([ops.zeros(n - t.shape[0], t.dtype), t], 0)


def polyadd(a1, a2):
    """The sum of two polynomials (highest power first)."""
    p1, p2 = _poly(a1, "polyadd"), _poly(a2, "polyadd")
    p1, p2 = _operands(p1, p2)
    n = builtins.max(p1.shape[0], p2.shape[0])
    return _front_pad(p1, n) + _front_pad(p2, n)


def polysub(a1, a2):
    """The difference of two polynomials."""
    p1, p2 = _poly(a1, "polysub"), _poly(a2, "polysub")
    p1, p2 = _operands(p1, p2)
    n = builtins.max(p1.shape[0], p2.shape[0])
    return _front_pad(p1, n) - _front_pad(p2, n)


def polymul(a1, a2):
    """The product of two polynomials."""
    return convolve(_poly(a1, "polymul"), _poly(a2, "polymul"))


def polyval(p, x):
    """The polynomial p (highest power first) at x, by Horner's rule."""
    pt = _to_float(_poly(p, "polyval"))
    xt = _to_float(_to_tensor(x))
    dt = _promote(pt.dtype, xt.dtype)
    pt, xt = _cast(pt, dt), _cast(xt, dt)
    out = ops.zeros_like(xt)
    for i in range(pt.shape[0]):
        out = out * xt + pt[i]
    return out


def polyder(p, m=1):
    """The m-th derivative of a polynomial."""
    t = _poly(p, "polyder")
    m = _int(m, "polyder", "m")
    if m < 0:
        raise ValueError("For 'polyder', order of derivative must be positive")
    for _ in range(m):
        n = t.shape[0] - 1
        if n < 0:
            break
        t = t[:-1] * _const(np.arange(n, 0, -1), t.dtype)
    return t


def polyint(p, m=1, k=None):
    """The m-th antiderivative of a polynomial with integration constants `k`."""
    t = _to_float(_poly(p, "polyint"))
    m = _int(m, "polyint", "m")
    if m < 0:
        raise ValueError("For 'polyint', order of integral must be positive")
    consts = np.zeros(m) if k is None else np.broadcast_to(
        np.asarray(k.asnumpy() if isinstance(k, Tensor) else k, np.float64).reshape(-1), (m,))
    for i in range(m):
        n = t.shape[0]
        t = ops.concat([t / _const(np.arange(n, 0, -1), t.dtype),
                        _const([consts[i]], t.dtype)], 0)
    return t


def trapz(y, x=None, dx=1.0, axis=-1):
    """The integral of y along `axis` by the trapezoidal rule (sample points x, or spacing dx)."""
    t = _to_float(_to_tensor(y))
    axis = _axis(axis, t.ndim, "trapz")
    n = t.shape[axis]
    mid = (_along(t, axis, 1, n) + _along(t, axis, 0, n - 1)) / 2
    if x is None:
        return ops.sum(mid, axis) * dx
    xt = _cast(_to_tensor(x), t.dtype)
    if xt.ndim == 1:
        d = xt[1:] - xt[:-1]
        shape = [1] * t.ndim
        shape[axis] = n - 1
        d = d.reshape(tuple(shape))
    else:
        d = diff(xt, axis=axis)
    return ops.sum(mid * d, axis)


def unwrap(p, discont=math.pi, axis=-1):
    """Unwraps phase angles: jumps over `discont` become their 2*pi complements."""
    t = _to_float(_to_tensor(p))
    axis = _axis(axis, t.ndim, "unwrap")
    n = t.shape[axis]
    if n < 2:
        return t
    dd = _along(t, axis, 1, n) - _along(t, axis, 0, n - 1)
    two_pi = 2 * math.pi
    ddmod = ops.stop_gradient(_remainder(dd + math.pi, _const(two_pi, t.dtype)) - math.pi)
    ddmod = ops.where((ddmod == -math.pi) & (dd > 0),
                      ops.fill(t.dtype, ddmod.shape, math.pi), ddmod)
    correct = ddmod - ops.stop_gradient(dd)
    correct = ops.where(ops.abs(dd) < discont, ops.zeros_like(correct), correct)
    shape = list(t.shape)
    shape[axis] = 1
    steps = ops.concat([ops.zeros(tuple(shape), t.dtype), ops.cumsum(correct, axis)], axis)
    return t + steps


# ---- histograms, bins, indices ---------------------------------------------------------------

def _bin_index(values, edges):
    """Per value, its bin in `edges` (the last bin closed), -1 outside."""
    n_bins = len(edges) - 1
    idx = np.searchsorted(edges, values, side="right") - 1
    idx = np.where(values == edges[-1], n_bins - 1, idx)
    return np.where((values < edges[0]) | (values > edges[-1]) | np.isnan(values), -1, idx)


def _weighted_counts(flat_idx, n, weights, dtype):
    onehot = _const(flat_idx.reshape(-1, 1) == np.arange(n).reshape(1, -1), dtype)
    if weights is None:
        return ops.sum(onehot, 0)
    w = _cast(_to_tensor(weights), dtype).reshape(-1, 1)
    return ops.sum(onehot * w, 0)


def histogram(a, bins=10, range=None, weights=None, density=False):
    """The histogram of `a` (float32 counts, differentiable in `weights`) and its float32 bin
    edges."""
    t = _to_float(_to_tensor(a))
    dtype = mstype.float32
    edges = _cast(histogram_bin_edges(t, bins, range), dtype)
    idx = _bin_index(t.asnumpy().reshape(-1), edges.asnumpy())
    n = edges.shape[0] - 1
    if weights is not None and _to_tensor(weights).shape != t.shape:
        raise ValueError("For 'histogram', 'weights' must have the shape of 'a'")
    hist = _weighted_counts(idx, n, weights, dtype)
    if density:
        hist = hist / ops.sum(hist) / _cast(edges[1:] - edges[:-1], dtype)
    return hist, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=False):
    """The D-dimensional histogram of the (N, D) `sample` and the edges of each dimension."""
    if isinstance(sample, (list, tuple)):
        s = ops.stack([_to_float(_to_tensor(c)) for c in sample], 1)
    else:
        s = _to_float(_to_tensor(sample))
    if s.ndim == 1:
        s = s.reshape(-1, 1)
    dims = s.shape[1]
    bins_list = list(bins) if isinstance(bins, (list, tuple)) else [bins] * dims
    ranges = list(range) if range is not None else [None] * dims
    if len(bins_list) != dims or len(ranges) != dims:
        raise ValueError("For 'histogramdd', 'bins' and 'range' need one entry per dimension")
    dtype = mstype.float32
    edges = [_cast(histogram_bin_edges(s[:, d], bins_list[d], ranges[d]), dtype)
             for d in builtins.range(dims)]
    values = s.asnumpy()
    sizes = [e.shape[0] - 1 for e in edges]
    flat = np.zeros(values.shape[0], np.int64)
    outside = np.zeros(values.shape[0], bool)
    for d in builtins.range(dims):
        idx = _bin_index(values[:, d], edges[d].asnumpy())
        outside |= idx < 0
        flat = flat * sizes[d] + np.maximum(idx, 0)
    flat = np.where(outside, -1, flat)
    hist = _weighted_counts(flat, int(np.prod(sizes)), weights, dtype).reshape(tuple(sizes))
    if density:
        volume = None
        for d in builtins.range(dims):
            width = edges[d][1:] - edges[d][:-1]
            shape = [1] * dims
            shape[d] = sizes[d]
            width = width.reshape(tuple(shape))
            volume = width if volume is None else volume * width
        hist = hist / ops.sum(hist) / volume
    return hist, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=False):
    """The 2-D histogram of points (x, y) and its x and y edges."""
    hist, edges = histogramdd([x, y], bins, range, weights, density)
    return hist, edges[0], edges[1]


def _values(obj):
    return _to_tensor(obj).asnumpy()


def digitize(x, bins, right=False):
    """The index of the bin of each value of x (bins increasing or decreasing), int32."""
    xs, edges = _values(x), _values(bins)
    if edges.ndim != 1:
        raise ValueError("For 'digitize', 'bins' must be 1-D")
    if edges.size > 1 and edges[0] > edges[-1]:
        out = edges.size - np.searchsorted(edges[::-1], xs, side="left" if right else "right")
    else:
        out = np.searchsorted(edges, xs, side="left" if right else "right")
    return Tensor(np.asarray(out).astype(np.int32))


def bincount(x, weights=None, minlength=0, length=None):
    """How often each value of the non-negative integer array x occurs (weighted by `weights`),
    as float32 (MindSpore's dtype); `length` fixes the output length."""
    t = _to_tensor(x)
    if t.ndim != 1 or not (_is_int(t) or _is_bool(t)):
        raise TypeError("For 'bincount', 'x' must be a 1-D array of integers")
    values = t.asnumpy().astype(np.int64)
    if values.size and values.min() < 0:
        raise ValueError("For 'bincount', 'x' must be non-negative")
    minlength = _int(minlength, "bincount", "minlength")
    if minlength < 0:
        raise ValueError("For 'bincount', 'minlength' must be non-negative")
    n = builtins.max(int(values.max()) + 1 if values.size else 0, minlength)
    if length is not None:
        n = _int(length, "bincount", "length")
    idx = np.where(values < n, values, -1)
    return _weighted_counts(idx, n, weights, mstype.float32)


def searchsorted(a, v, side="left", sorter=None):
    """Indices at which inserting v keeps the 1-D `a` sorted, int32."""
    if side not in ("left", "right"):
        raise ValueError(f"For 'searchsorted', invalid value for keyword 'side': {side!r}")
    arr = _values(a)
    if arr.ndim != 1:
        raise ValueError("For 'searchsorted', 'a' must be 1-D")
    srt = None if sorter is None else _values(sorter)
    return Tensor(np.asarray(np.searchsorted(arr, _values(v), side, srt)).astype(np.int32))


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    """Flat indices of the coordinate arrays in `multi_index` into an array of shape `dims`
    ('clip', 'wrap' or 'raise' for out-of-range coordinates), as float32 (MindSpore's dtype)."""
    coords = [_values(c).astype(np.int64) for c in multi_index]
    dims = tuple(int(d) for d in dims)
    if mode not in ("clip", "wrap", "raise"):
        raise ValueError(f"For 'ravel_multi_index', invalid mode {mode!r}")
    if order not in ("C", "F"):
        raise ValueError("For 'ravel_multi_index', 'order' must be 'C' or 'F'")
    try:
        out = np.ravel_multi_index(coords, dims, mode=mode, order=order)
    except ValueError as exc:
        raise ValueError(f"For 'ravel_multi_index', {exc}") from None
    return Tensor(np.asarray(out).astype(np.float32))
