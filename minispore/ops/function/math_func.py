"""Functional math ops under MindSpore's names and argument names (which mix `axis`/`dim` and
`keep_dims`/`keepdims`/`keepdim` from op to op, as MindSpore's do): elementwise arithmetic and
functions, comparisons and logic, reductions, norms. Clipping is in clip_func, matrix products
in linalg_func."""
import builtins
import math

import numpy as np

from ..._autodiff.tape import apply, binary, call1, wrap
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import math_ops as M
from ..operations import reduce_ops as R
from ..operations import linalg_ops as L
from ..operations import nn_ops as N
from ..operations._kernels import normalize_axes, normalize_axis
from ..primitive import data_function
from ._checks import _tensor
# Read from this module by nn_func (`F.clamp`) and the nn layers (`matmul`); defined in the family
# modules and exported by ops.function from there.
from .clip_func import clamp  # noqa: F401
from .linalg_func import matmul  # noqa: F401

__all__ = [
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "floor_div", "remainder",
    "fmod", "pow", "tensor_pow", "neg", "negative", "exp", "log", "log1p", "expm1", "sqrt",
    "rsqrt", "square", "abs", "absolute", "sign", "sin", "cos", "tan", "tanh", "sigmoid",
    "erf", "erfc", "erfinv", "maximum", "minimum", "cast", "floor", "ceil", "round", "trunc",
    "reciprocal", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh",
    "arcsin", "arccos", "arctan", "isnan", "isinf", "isfinite", "isclose", "equal", "ne", "gt",
    "ge", "lt", "le", "eq", "greater", "greater_equal", "less", "less_equal", "not_equal",
    "logical_and", "logical_or", "logical_not", "logical_xor", "bitwise_and", "bitwise_or",
    "bitwise_xor", "lerp", "addcmul", "addcdiv", "log2", "log10", "exp2", "sum", "reduce_sum",
    "mean", "reduce_mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "std",
    "var", "std_mean", "var_mean", "logsumexp", "cumsum", "cumprod", "all", "any",
    "count_nonzero", "norm",
]

_NUMBERS = (bool, int, float, np.bool_, np.integer, np.floating)
_F16, _WIDE = np.dtype(np.float16), R._WIDE


def _all16(*args):
    """True when the floating Tensors among args are all float16 (and there is one)."""
    dts = [a._data.dtype for a in args if isinstance(a, Tensor) and a._data.dtype.kind == "f"]
    return bool(dts) and builtins.all(dt == _F16 for dt in dts)


def _wide16(fn, *args):
    """fn(*args) with its float16 Tensor arguments widened to float64 (`_WIDE`, reduce_ops') and
    the result rounded once to float16, when the floating Tensors among args are all float16
    (`_all16`); fn(*args) itself otherwise. For composites whose float16 sums pass 65,504 while
    their answer does not (norms, distances, cosines, ratios of sums) and float16 losses reduced
    to one number, as MindSpore's float16 kernels accumulate wide (in float32). The casts carry
    the gradient, so it too is computed wide and rounded once."""
    if not _all16(*args):
        return fn(*args)
    wide = (M.cast(a, _WIDE) if isinstance(a, Tensor) and a._data.dtype == _F16 else a
            for a in args)
    return M.cast(fn(*wide), _F16)


def _floating(x):
    """x itself when floating point, else x as float32 (MindSpore's dtype for exp(int) and the
    like, which its CPU kernels reject; minispore computes them)."""
    return x if x._data.dtype.kind in "fc" else M.cast(x, np.float32)


# ---- elementwise binary ---------------------------------------------------------------------------

def _binary_fn(prim, name, doc):
    """A functional binary op: Tensors or numbers, broadcasting, MindSpore's type promotion. Two
    plain numbers give a 0-d Tensor (`ops.add(1, 2)` is `Tensor(3)`, as in MindSpore)."""

    def fn(input, other):
        try:
            return binary(prim, input, other)
        except TypeError as e:
            return _numbers_or_raise(prim, name, input, other, e)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _numbers_or_raise(prim, name, x, y, error):
    if isinstance(x, _NUMBERS) and isinstance(y, _NUMBERS):
        return binary(prim, Tensor(x), y)
    for arg, v in (("input", x), ("other", y)):
        if not isinstance(v, (Tensor, np.ndarray) + _NUMBERS):
            raise TypeError(f"For '{name}', '{arg}' must be a Tensor or a number, but got "
                            f"{type(v).__name__}") from None
    raise error  # the primitive's own TypeError (e.g. a bitwise op on floats)


_FLOOR_DIV, _MOD, _POW = M.FloorDiv(), M.FloorMod(), M.Pow()
_MAXIMUM, _MINIMUM, _ATAN2 = M.Maximum(), M.Minimum(), M.Atan2()

add = _binary_fn(M._ADD, "add", "input + other, broadcasting, with MindSpore's type promotion.")
sub = _binary_fn(M._SUB, "sub", "input - other.")
mul = _binary_fn(M._MUL, "mul", "input * other.")
floor_divide = _binary_fn(_FLOOR_DIV, "floor_divide", "floor(input / other) (zero gradient).")
remainder = _binary_fn(_MOD, "remainder",
                       "input - floor(input / other) * other (the sign of `other`, as Python %).")
maximum = _binary_fn(_MAXIMUM, "maximum",
                     "Elementwise max, NaN-propagating; ties split the gradient evenly.")
minimum = _binary_fn(_MINIMUM, "minimum",
                     "Elementwise min, NaN-propagating; ties split the gradient evenly.")
atan2 = _binary_fn(_ATAN2, "atan2", "The angle of the point (other, input): arctan(input / "
                                    "other) in the right quadrant.")
_true_div = _binary_fn(M._DIV, "div", "input / other (true division; int / int is float32).")
_pow = _binary_fn(_POW, "pow", "input ** exponent.")


def pow(input, exponent):
    """input ** exponent (either may be a number)."""
    return _pow(input, exponent)


tensor_pow = pow


def div(input, other, *, rounding_mode=None):
    """input / other. `rounding_mode` None (true division: int / int is float32), 'floor' or
    'trunc' (both keep integer inputs integer)."""
    if rounding_mode is None:
        return _true_div(input, other)
    if rounding_mode == "floor":
        return floor_divide(input, other)
    if rounding_mode == "trunc":
        if _is_integral(input) and _is_integral(other):
            a, b = _integer_operands(input, other, "div")
            return wrap(_trunc_div(a, b))
        return trunc(_true_div(input, other))
    raise ValueError(f"For 'div', 'rounding_mode' must be None, 'floor' or 'trunc', but got "
                     f"{rounding_mode!r}")


def _is_integral(v):
    if isinstance(v, Tensor):
        return v._data.dtype.kind in "biu"
    return isinstance(v, (bool, int, np.bool_, np.integer))


def _integer_operands(x, y, op):
    """Integer operands as arrays of their promoted dtype (integers have no gradient, so these
    ops compute on arrays, exactly: true division would round large int64 values)."""
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = Tensor(x)
    a = x._data if isinstance(x, Tensor) else None
    b = y._data if isinstance(y, Tensor) else None
    if a is not None and b is not None:
        dt = mstype.promote(a.dtype, b.dtype)
    else:
        t = a if a is not None else b
        dt = mstype.promote_scalar(t.dtype, int)
    a = np.asarray(x if a is None else a, dt)
    b = np.asarray(y if b is None else b, dt)
    if np.any(b == 0):
        raise ValueError(f"For '{op}', integer division by zero")
    return a, b


def _trunc_div(a, b):
    return (a - np.fmod(a, b)) // b


def true_divide(dividend, divisor):
    """dividend / divisor (true division)."""
    return _true_div(dividend, divisor)


def floor_div(x, y):
    """floor(x / y); MindSpore's older name of `floor_divide`."""
    return floor_divide(x, y)


def fmod(input, other):
    """input - trunc(input / other) * other: the remainder with the sign of `input` (integer
    inputs stay integer)."""
    if _is_integral(input) and _is_integral(other):
        return wrap(np.fmod(*_integer_operands(input, other, "fmod")))
    return sub(input, mul(div(input, other, rounding_mode="trunc"), other))


def lerp(input, end, weight):
    """input + weight * (end - input); `weight` a number or a Tensor (broadcast)."""
    _tensor(input, "lerp")
    _tensor(end, "lerp", "end")
    return add(input, mul(weight, sub(end, input)))


def addcmul(input, tensor1, tensor2, value=1):
    """input + value * tensor1 * tensor2."""
    _tensor(input, "addcmul")
    return add(input, mul(mul(tensor1, tensor2), value))


def addcdiv(input, tensor1, tensor2, value=1):
    """input + value * tensor1 / tensor2."""
    _tensor(input, "addcdiv")
    return add(input, mul(div(tensor1, tensor2), value))


# ---- elementwise unary ----------------------------------------------------------------------------

def _unary(prim_cls, name, doc):
    prim = prim_cls()

    def fn(input):
        if not isinstance(input, Tensor):  # perf: checked inline, the message from the validator
            _tensor(input, name)
        return call1(prim, input)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


neg = _unary(M.Neg, "neg", "-input.")
negative = neg
exp = _unary(M.Exp, "exp", "e ** input (integers give float32).")
log = _unary(M.Log, "log", "Natural log (log(0) = -inf).")
log1p = _unary(M.Log1p, "log1p", "log(1 + input), exact for small input.")
expm1 = _unary(M.Expm1, "expm1", "exp(input) - 1, exact for small input.")
_sqrt = _unary(M.Sqrt, "sqrt", "Square root (integers give float32).")
rsqrt = _unary(M.Rsqrt, "rsqrt", "1 / sqrt(input).")
square = _unary(M.Square, "square", "input * input.")
abs = _unary(M.Abs, "abs", "|input|; abs'(0) = 0.")
absolute = abs
sign = _unary(M.Sign, "sign", "-1, 0 or 1 (zero gradient).")
sin = _unary(M.Sin, "sin", "Sine.")
cos = _unary(M.Cos, "cos", "Cosine.")
tan = _unary(M.Tan, "tan", "Tangent.")
tanh = _unary(N.Tanh, "tanh", "Hyperbolic tangent.")
sigmoid = _unary(N.Sigmoid, "sigmoid", "1 / (1 + exp(-input)), without overflow.")
erf = _unary(M.Erf, "erf", "The error function.")
erfc = _unary(M.Erfc, "erfc", "1 - erf(input), without cancellation.")
erfinv = _unary(M.Erfinv, "erfinv", "The inverse error function on [-1, 1] (+-inf at +-1, NaN "
                                    "outside).")
floor = _unary(M.Floor, "floor", "Round down (zero gradient).")
ceil = _unary(M.Ceil, "ceil", "Round up (zero gradient).")
trunc = _unary(M.Trunc, "trunc", "Round toward zero (zero gradient).")
reciprocal = _unary(M.Reciprocal, "reciprocal", "1 / input.")
asin = _unary(M.Asin, "asin", "Inverse sine.")
acos = arccos = _unary(M.ACos, "acos", "Inverse cosine.")
atan = arctan = _unary(M.Atan, "atan", "Inverse tangent.")
sinh = _unary(M.Sinh, "sinh", "Hyperbolic sine.")
cosh = _unary(M.Cosh, "cosh", "Hyperbolic cosine.")
asinh = _unary(M.Asinh, "asinh", "Inverse hyperbolic sine.")
acosh = _unary(M.Acosh, "acosh", "Inverse hyperbolic cosine.")
atanh = _unary(M.Atanh, "atanh", "Inverse hyperbolic tangent.")
isnan = _unary(M.IsNan, "isnan", "True where NaN.")
isinf = _unary(M.IsInf, "isinf", "True where +-inf.")
isfinite = _unary(M.IsFinite, "isfinite", "True where finite.")
_ROUND = M.Round()


def sqrt(x):
    """Square root (integers give float32)."""
    return _sqrt(x)


def arcsin(x):
    """Inverse sine (`asin`)."""
    return asin(x)


def round(input, *, decimals=0):
    """Round half to even, to `decimals` decimal places (integers are returned unchanged)."""
    _tensor(input, "round")
    if decimals == 0 or input._data.dtype.kind in "biu":
        return call1(_ROUND, input)
    scale = 10.0 ** decimals
    return div(call1(_ROUND, mul(input, scale)), scale)


def log2(input):
    """Base-2 logarithm."""
    return div(log(_tensor(input, "log2")), math.log(2.0))


def log10(input):
    """Base-10 logarithm."""
    return div(log(_tensor(input, "log10")), math.log(10.0))


def exp2(input):
    """2 ** input."""
    return pow(2.0, _floating(_tensor(input, "exp2")))


def cast(input, dtype):
    """input converted to `dtype` (float to int truncates toward zero)."""
    _tensor(input, "cast")
    return M.cast(input, dtype)


# ---- comparisons and logic ------------------------------------------------------------------------

_BOOL = np.dtype(np.bool_)

equal = _binary_fn(M.Equal(), "equal", "input == other, elementwise (bool).")
ne = _binary_fn(M.NotEqual(), "ne", "input != other, elementwise (bool).")
gt = _binary_fn(M.Greater(), "gt", "input > other, elementwise (bool).")
ge = _binary_fn(M.GreaterEqual(), "ge", "input >= other, elementwise (bool).")
lt = _binary_fn(M.Less(), "lt", "input < other, elementwise (bool).")
le = _binary_fn(M.LessEqual(), "le", "input <= other, elementwise (bool).")
eq, not_equal, greater, greater_equal, less, less_equal = equal, ne, gt, ge, lt, le
bitwise_and = _binary_fn(M.BitwiseAnd(), "bitwise_and", "Bitwise and of int or bool tensors.")
bitwise_or = _binary_fn(M.BitwiseOr(), "bitwise_or", "Bitwise or of int or bool tensors.")
bitwise_xor = _binary_fn(M.BitwiseXor(), "bitwise_xor", "Bitwise xor of int or bool tensors.")
_LAND, _LOR, _LXOR, _LNOT = M.LogicalAnd(), M.LogicalOr(), M.LogicalXor(), M.LogicalNot()


def _truth(v):
    """v as bool: Tensors of any dtype and numbers are true where nonzero."""
    if isinstance(v, Tensor):
        return v if v._data.dtype == _BOOL else wrap(v._data != 0)
    return bool(v)


def logical_and(input, other):
    """input and other, elementwise; any dtype counts as true where nonzero (bool result)."""
    return binary(_LAND, _truth(input), _truth(other))


def logical_or(input, other):
    """input or other, elementwise (bool result)."""
    return binary(_LOR, _truth(input), _truth(other))


def logical_xor(input, other):
    """input xor other, elementwise (bool result)."""
    return binary(_LXOR, _truth(input), _truth(other))


def logical_not(input):
    """not input, elementwise: True where input is False or zero."""
    return call1(_LNOT, _truth(_tensor(input, "logical_not")))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (bool)."""
    _tensor(input, "isclose")
    b = other._data if isinstance(other, Tensor) else other
    return wrap(np.isclose(input._data, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


# ---- reductions -----------------------------------------------------------------------------------

def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over `dim` (int or tuple; None for all). bool and int32 sum to int64; `dtype` casts
    the input first (and the result to it)."""
    _tensor(input, "sum")
    if dtype is not None:
        input = M.cast(input, dtype)
    out = R.reduce_sum(input, dim, keepdim)
    return out if dtype is None else M.cast(out, dtype)


def reduce_sum(x, axis=()):
    """Sum over `axis` (`()` for all): MindSpore's older form of `sum`."""
    return sum(x, axis)


def mean(x, axis=None, keep_dims=False):
    """Mean over `axis` (None for all). Integer inputs give float32 (MindSpore floors to an
    integer, which its own docs do not promise); the mean of nothing is NaN."""
    _tensor(x, "mean", "x")
    return R.reduce_mean(x, axis, keep_dims)


def reduce_mean(x, axis=()):
    """Mean over `axis` (`()` for all): MindSpore's older form of `mean`."""
    return mean(x, axis)


_PROD = {False: R.ReduceProd(False), True: R.ReduceProd(True)}


def prod(input, axis=None, keep_dims=False, dtype=None):
    """Product over `axis` (None for all); exact gradients with zeros. The product of nothing
    is 1."""
    _tensor(input, "prod")
    if dtype is not None:
        input = M.cast(input, dtype)
    return apply(_PROD[bool(keep_dims)], (input, () if axis is None else axis))


_RMAX = {False: R.ReduceMax(False), True: R.ReduceMax(True)}
_RMIN = {False: R.ReduceMin(False), True: R.ReduceMin(True)}


def _identity_element(dt, is_max):
    """The value that never wins a max (or min) of dtype dt: what masked-out elements become."""
    if dt.kind in "fc":
        return -np.inf if is_max else np.inf
    if dt.kind == "b":
        return not is_max
    info = np.iinfo(dt)
    return info.min if is_max else info.max


def _masked(input, where, is_max, op):
    if where is None:
        return input
    if not isinstance(where, Tensor) or where._data.dtype != _BOOL:
        raise TypeError(f"For '{op}', 'where' must be a bool Tensor, but got "
                        f"{getattr(where, 'dtype', type(where).__name__)}")
    fill = np.asarray(_identity_element(input._data.dtype, is_max), input._data.dtype)
    return M.select(where, input, wrap(fill))


def _extreme_values(input, axis, keepdims, initial, where, op):
    is_max = op in ("amax", "max")
    x = _masked(input, where, is_max, op)
    axes = normalize_axes(axis, x.ndim, op)
    empty = x._data.size == 0 and (axes is None or builtins.any(x.shape[a] == 0 for a in axes))
    if empty:
        if initial is None:
            raise ValueError(f"For '{op}', cannot reduce an empty tensor of shape {x.shape} "
                             f"over axis {axis!r} without 'initial'")
        ufunc = np.max if is_max else np.min
        return wrap(ufunc(x._data, axis=axes, keepdims=keepdims, initial=initial))
    table = _RMAX if is_max else _RMIN
    out = apply(table[bool(keepdims)], (x, () if axis is None else axis))
    if initial is None:
        return out
    return binary(_MAXIMUM if is_max else _MINIMUM, out, initial)


def amax(input, axis=None, keepdims=False, *, initial=None, where=None):
    """Maximum values over `axis` (None for all), at least `initial`, over the elements where
    `where` is True. Ties split the gradient evenly."""
    _tensor(input, "amax")
    return _extreme_values(input, axis, keepdims, initial, where, "amax")


def amin(input, axis=None, keepdims=False, *, initial=None, where=None):
    """Minimum values over `axis` (None for all); see `amax`."""
    _tensor(input, "amin")
    return _extreme_values(input, axis, keepdims, initial, where, "amin")


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """(values, int64 indices) of the maximum along `axis`; over all elements for None, with the
    index into the flattened input. With `where`, the index is that of the largest allowed
    element. Ties split the value's gradient evenly."""
    return _extreme(input, axis, keepdims, initial, where, R.ArgMaxWithValue, "max")


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """(values, int64 indices) of the minimum along `axis`; see `max`."""
    return _extreme(input, axis, keepdims, initial, where, R.ArgMinWithValue, "min")


def _extreme(input, axis, keepdims, initial, where, prim_cls, op):
    _tensor(input, op)
    if initial is not None or where is not None:
        values = _extreme_values(input, axis, keepdims, initial, where, op)
        return values, _arg_extreme(input, axis, keepdims, where, op)
    if axis is None:
        flat = A.reshape(input, (-1,)) if input.ndim != 1 else input
        idx, val = apply(prim_cls(0, False), (flat,))
        if keepdims:
            shape = (1,) * input.ndim
            return A.reshape(val, shape), A.reshape(idx, shape)
        return val, idx
    idx, val = apply(prim_cls(axis, keepdims), (input,))
    return val, idx


def _arg_extreme(input, axis, keepdims, where, op):
    a = input._data
    if where is not None:
        a = np.where(where._data, a, _identity_element(a.dtype, op == "max"))
    fn = np.argmax if op == "max" else np.argmin
    if axis is None:
        r = np.asarray(fn(a.reshape(-1)))
        return wrap(r.reshape((1,) * a.ndim) if keepdims else r)
    return wrap(fn(a, axis=normalize_axis(axis, a.ndim, op), keepdims=keepdims))


def argmax(input, dim=None, keepdim=False):
    """int64 index of the maximum along `dim` (into the flattened input for None)."""
    _tensor(input, "argmax")
    return apply(R.Argmax(dim, mstype.int64, keepdim), (input,))


def argmin(input, axis=None, keepdims=False):
    """int64 index of the minimum along `axis` (MindSpore 2.10 gives int32 here but int64 from
    argmax; minispore gives int64 from both)."""
    _tensor(input, "argmin")
    return apply(R.Argmin(axis, mstype.int64, keepdims), (input,))


def std(input, axis=None, ddof=0, keepdims=False):
    """Standard deviation (ddof=0: population). The gradient at zero spread is 0."""
    _tensor(input, "std")
    return apply(R.StdDev(() if axis is None else axis, int(ddof), keepdims), (input,))


def var(input, axis=None, ddof=0, keepdims=False):
    """Variance (ddof=0: population)."""
    _tensor(input, "var")
    return apply(R.ReduceVar(() if axis is None else axis, int(ddof), keepdims), (input,))


def std_mean(input, axis=None, ddof=0, keepdims=False):
    """(std, mean) over `axis`."""
    return std(input, axis, ddof, keepdims), mean(input, axis, keepdims)


def var_mean(input, axis=None, ddof=0, keepdims=False):
    """(var, mean) over `axis`."""
    return var(input, axis, ddof, keepdims), mean(input, axis, keepdims)


_LSE = {False: R.ReduceLogSumExp(False), True: R.ReduceLogSumExp(True)}


def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) over `dim`, finite for large inputs."""
    _tensor(input, "logsumexp")
    return apply(_LSE[bool(keepdim)], (_floating(input), dim))


_CUMSUM = R.CumSum()


def cumsum(x, axis, dtype=None):
    """Cumulative sum along `axis`."""
    _tensor(x, "cumsum", "x")
    if dtype is not None:
        x = M.cast(x, dtype)
    return apply(_CUMSUM, (x, axis))


def cumprod(input, dim, dtype=None):
    """Cumulative product along `dim`, with exact gradients of every order when the input has
    zeros (integer inputs accumulate as `numpy.cumprod` does, without gradients).

    Built as the recurrence out_j = x_j out_{j-1} (out_0 = x_0): R.linear_scan, whose gradients
    are recurrences again (products and sums, no division by x), in O(n log n) work along `dim`.
    """
    _tensor(input, "cumprod")
    if dtype is not None:
        input = M.cast(input, dtype)
    if input.ndim == 0:
        return apply(A._IDENTITY, (input,))
    d = normalize_axis(dim, input.ndim, "cumprod")
    if input._data.dtype.kind not in "fc":
        return wrap(np.cumprod(input._data, axis=d))
    last = input.ndim - 1
    perm = [i for i in range(input.ndim) if i != d] + [d]
    x = input if d == last else A.transpose(input, perm)
    first = np.zeros(x.shape, x._data.dtype)
    first[..., :1] = 1
    out = R.linear_scan(x, x * wrap(first))  # b = (x_0, 0, ...): the start; c_0 is unused
    return out if d == last else A.transpose(out, np.argsort(perm).tolist())


def _np_all(x, axis, keepdims):
    return np.asarray(np.all(x, axis=axis, keepdims=keepdims))


def _np_any(x, axis, keepdims):
    return np.asarray(np.any(x, axis=axis, keepdims=keepdims))


def all(input, axis=None, keep_dims=False):
    """True where every element along `axis` is nonzero (a bool Tensor; True for nothing)."""
    _tensor(input, "all")
    return data_function(_np_all, input, static=(normalize_axes(axis, input.ndim, "all"),
                                                 bool(keep_dims)))


def any(input, axis=None, keep_dims=False):
    """True where some element along `axis` is nonzero (a bool Tensor; False for nothing)."""
    _tensor(input, "any")
    return data_function(_np_any, input, static=(normalize_axes(axis, input.ndim, "any"),
                                                 bool(keep_dims)))


def count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32):
    """The number of nonzero elements over `axis` (`()` for all), as `dtype` (int32)."""
    _tensor(x, "count_nonzero", "x")
    counts = np.count_nonzero(x._data, axis=normalize_axes(axis, x.ndim, "count_nonzero"),
                              keepdims=keep_dims)
    return wrap(np.asarray(counts, mstype.to_np(dtype)))


# ---- norms ----------------------------------------------------------------------------------------

def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """Vector or matrix norm, as `numpy.linalg.norm` / `torch.linalg.norm`.

    Args:
        A (Tensor): the input (integers are computed in float32).
        ord: None (2-norm of the flattened input, or over `dim`), a number, inf, -inf, or for
            matrices 'fro', 'nuc', 1, -1, 2, -2, inf, -inf.
        dim (int or tuple): one axis for a vector norm, two for a matrix norm. None: the whole
            input (1-D: a vector norm; 2-D with `ord`: a matrix norm).
        keepdim (bool): keep the reduced axes as size 1.
        dtype: cast the input to this dtype first.

    The gradient of the 2-norm at 0 is 0 (a subgradient); spectral and nuclear norms have first
    derivatives only. float16 is computed in float64 and rounded once (its sum of squares
    passes 65,504 long before the norm does).
    """
    x = _tensor(A, "norm", "A")
    if dtype is not None:
        x = M.cast(x, dtype)
    x = _floating(x)
    if x._data.dtype == _F16:  # sums of squares or powers: see _wide16
        return _wide16(norm, x, ord, dim, keepdim)
    if dim is None:
        if ord is None:
            return _vector_norm(x, 2, None, keepdim)
        if x.ndim == 2:
            return _matrix_norm(x, ord, (0, 1), keepdim)
        if x.ndim > 2:
            raise ValueError(f"For 'norm', with 'ord' {ord!r} and no 'dim' the input must be 1-D "
                             f"or 2-D, but got shape {x.shape}")
        dims = None
    else:
        dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        dims = tuple(normalize_axis(d, builtins.max(x.ndim, 1), "norm") for d in dims)
        if len(set(dims)) != len(dims):
            raise ValueError(f"For 'norm', 'dim' repeats an axis: {dim!r}")
        if ord is None:
            return _vector_norm(x, 2, dims, keepdim)
        if len(dims) == 2:
            return _matrix_norm(x, ord, dims, keepdim)
        if len(dims) != 1:
            raise ValueError(f"For 'norm', 'dim' must name 1 or 2 axes when 'ord' is given, "
                             f"but got {dim!r}")
    if isinstance(ord, str):
        raise ValueError(f"For 'norm', 'ord' {ord!r} is a matrix norm: it needs 2 axes")
    return _vector_norm(x, ord, dims, keepdim)


def _vector_norm(x, ord, dims, keepdim):
    if isinstance(ord, bool) or not isinstance(ord, (int, float, np.integer, np.floating)):
        raise ValueError(f"For 'norm', 'ord' {ord!r} is not a vector norm order")
    if ord == 2:
        return _safe_sqrt(sum(mul(x, x), dims, keepdim))
    if ord == math.inf:
        return amax(abs(x), dims, keepdim)
    if ord == -math.inf:
        return amin(abs(x), dims, keepdim)
    if ord == 0:
        return sum(M.cast(ne(x, 0), x._data.dtype), dims, keepdim)
    if ord == 1:
        return sum(abs(x), dims, keepdim)
    return pow(sum(pow(abs(x), ord), dims, keepdim), 1.0 / ord)


def _matrix_norm(x, ord, dims, keepdim):
    d0, d1 = dims
    if ord == "fro":
        return _safe_sqrt(sum(mul(x, x), dims, keepdim))
    if ord in ("nuc", 2, -2):
        sv = apply(_SINGULAR_VALUES, (A.transpose(x, _last_two(x.ndim, d0, d1)),))
        out = sum(sv, -1) if ord == "nuc" else (amax(sv, -1) if ord == 2 else amin(sv, -1))
        if keepdim:
            for d in sorted(dims):
                out = A.expand_dims(out, d)
        return out
    if ord in (1, -1, math.inf, -math.inf):
        # 1: the largest column sum (sum down the rows d0, then max across d1); inf: rows.
        inner, outer = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = sum(abs(x), inner, True)
        out = (amax if ord > 0 else amin)(sums, outer, True)
        return out if keepdim else A.reshape(out, tuple(
            n for i, n in enumerate(out.shape) if i not in dims))
    raise ValueError(f"For 'norm', 'ord' {ord!r} is not a matrix norm order: use 'fro', 'nuc', "
                     "1, -1, 2, -2, inf or -inf")


_SINGULAR_VALUES = L.SingularValues()


def _last_two(ndim, d0, d1):
    return [i for i in range(ndim) if i not in (d0, d1)] + [d0, d1]


def _safe_sqrt(ssq):
    """sqrt with gradient 0 (not inf) at 0: norms have a defined subgradient there."""
    zero = data_function(np.equal, ssq, static=(0,))  # a node and a guard under graph capture
    if not zero.any():
        return sqrt(ssq)
    safe = M.select(zero, 1.0, ssq)
    return M.select(zero, 0.0, sqrt(safe))
