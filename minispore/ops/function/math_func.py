"""Functional math ops under MindSpore's names and argument names (which mix `axis`/`dim` and
`keep_dims`/`keepdims`/`keepdim` from op to op, as MindSpore's do)."""
import math

import numpy as np

from ..._autodiff.tape import apply, binary, call1, wrap
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import math_ops as M

__all__ = [
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "floor_div", "remainder", "fmod",
    "pow", "tensor_pow", "neg", "negative", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt",
    "square", "abs", "absolute", "sign", "sin", "cos", "tan", "tanh", "sigmoid", "erf", "erfc",
    "maximum", "minimum", "clamp", "clip", "clip_by_value", "cast", "floor", "ceil", "round",
    "trunc", "reciprocal", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh",
    "atanh", "arcsin", "arccos", "arctan", "isnan", "isinf", "isfinite", "isclose", "equal",
    "ne", "gt", "ge", "lt", "le", "eq", "greater", "greater_equal", "less", "less_equal",
    "not_equal", "logical_and", "logical_or", "logical_not", "logical_xor", "bitwise_and",
    "bitwise_or", "bitwise_xor", "lerp", "addcmul", "addcdiv", "log2", "log10", "exp2",
    "sum", "reduce_sum", "mean", "reduce_mean", "prod", "max", "min", "amax", "amin", "argmax",
    "argmin", "std", "var", "std_mean", "var_mean", "logsumexp", "cumsum", "all", "any", "norm",
    "matmul", "bmm", "mm", "dot", "outer", "inner", "addmm", "tensor_dot", "square_sum",
]


def _tensor(x, op, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


# ---- elementwise binary ---------------------------------------------------------------------------

def add(input, other):
    """input + other, broadcasting, with MindSpore's type promotion."""
    return binary(M._ADD, input, other)


def sub(input, other):
    """input - other."""
    return binary(M._SUB, input, other)


def mul(input, other):
    """input * other."""
    return binary(M._MUL, input, other)


_FLOOR_DIV, _MOD, _POW = M.FloorDiv(), M.FloorMod(), M.Pow()
_MAXIMUM, _MINIMUM, _ATAN2 = M.Maximum(), M.Minimum(), M.Atan2()


def div(input, other, *, rounding_mode=None):
    """input / other; `rounding_mode` None (true division), 'floor' or 'trunc'."""
    if rounding_mode is None:
        return binary(M._DIV, input, other)
    if rounding_mode == "floor":
        return binary(_FLOOR_DIV, input, other)
    if rounding_mode == "trunc":
        q = binary(M._DIV, input, other)
        out = trunc(q)
        dt = _result_dtype(input, other)
        return M.cast(out, dt) if dt.kind in "iu" else out
    raise ValueError(f"For 'div', 'rounding_mode' must be None, 'floor' or 'trunc', but got "
                     f"{rounding_mode!r}")


def _result_dtype(x, y):
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        return mstype.promote(x._data.dtype, y._data.dtype)
    t, s = (x, y) if isinstance(x, Tensor) else (y, x)
    return mstype.promote_scalar(t._data.dtype, type(s) if type(s) in (bool, int, float) else float)


def true_divide(dividend, divisor):
    return binary(M._DIV, dividend, divisor)


def floor_divide(input, other):
    """floor(input / other)."""
    return binary(_FLOOR_DIV, input, other)


floor_div = floor_divide


def remainder(input, other):
    """input - floor(input / other) * other (the sign of `other`, as Python's %)."""
    return binary(_MOD, input, other)


def fmod(input, other):
    """input - trunc(input / other) * other (the sign of `input`)."""
    return sub(input, mul(trunc(div(input, other)), other))


def pow(input, exponent):
    """input ** exponent (tensor or scalar exponent)."""
    return binary(_POW, input, exponent)


tensor_pow = pow


def maximum(input, other):
    """Elementwise max; ties split the gradient evenly."""
    return binary(_MAXIMUM, input, other)


def minimum(input, other):
    """Elementwise min; ties split the gradient evenly."""
    return binary(_MINIMUM, input, other)


def atan2(input, other):
    return binary(_ATAN2, input, other)


def lerp(input, end, weight):
    """input + weight * (end - input)."""
    return add(input, mul(weight, sub(end, input)))


def addcmul(input, tensor1, tensor2, value=1):
    """input + value * tensor1 * tensor2."""
    return add(input, mul(mul(tensor1, tensor2), value))


def addcdiv(input, tensor1, tensor2, value=1):
    """input + value * tensor1 / tensor2."""
    return add(input, mul(div(tensor1, tensor2), value))


# ---- elementwise unary ----------------------------------------------------------------------------

def _unary(prim_cls, name, doc):
    prim = prim_cls()

    def fn(input):
        if not isinstance(input, Tensor):
            raise TypeError(f"For '{name}', 'input' must be a Tensor, but got "
                            f"{type(input).__name__}")
        return call1(prim, input)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


neg = _unary(M.Neg, "neg", "-input.")
negative = neg
exp = _unary(M.Exp, "exp", "e ** input.")
log = _unary(M.Log, "log", "Natural log (log(0) = -inf).")
log1p = _unary(M.Log1p, "log1p", "log(1 + input), exact for small input.")
expm1 = _unary(M.Expm1, "expm1", "exp(input) - 1, exact for small input.")
sqrt = _unary(M.Sqrt, "sqrt", "Square root (ints give float32).")
rsqrt = _unary(M.Rsqrt, "rsqrt", "1 / sqrt(input).")
square = _unary(M.Square, "square", "input * input.")
abs = _unary(M.Abs, "abs", "|input|; abs'(0) = 0.")
absolute = abs
sign = _unary(M.Sign, "sign", "-1, 0 or 1.")
sin = _unary(M.Sin, "sin", "Sine.")
cos = _unary(M.Cos, "cos", "Cosine.")
tan = _unary(M.Tan, "tan", "Tangent.")
tanh = _unary(M.Tanh, "tanh", "Hyperbolic tangent.")
sigmoid = _unary(M.Sigmoid, "sigmoid", "1 / (1 + exp(-input)), without overflow.")
erf = _unary(M.Erf, "erf", "The error function.")
erfc = _unary(M.Erfc, "erfc", "1 - erf(input), without cancellation.")
floor = _unary(M.Floor, "floor", "Round down (zero gradient).")
ceil = _unary(M.Ceil, "ceil", "Round up (zero gradient).")
trunc = _unary(M.Trunc, "trunc", "Round toward zero (zero gradient).")
reciprocal = _unary(M.Reciprocal, "reciprocal", "1 / input.")
asin = arcsin = _unary(M.Asin, "asin", "Inverse sine.")
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
logical_not = _unary(M.LogicalNot, "logical_not", "not input (bool tensors).")
_ROUND = M.Round()


def round(input, *, decimals=0):
    """Round half to even, to `decimals` decimal places."""
    _tensor(input, "round")
    if decimals == 0:
        return call1(_ROUND, input)
    scale = 10.0 ** decimals
    return div(call1(_ROUND, mul(input, scale)), scale)


def log2(input):
    return div(log(input), math.log(2.0))


def log10(input):
    return div(log(input), math.log(10.0))


def exp2(input):
    return pow(2.0, input)


def clamp(input, min=None, max=None):
    """input limited to [min, max] (either may be None; Tensors or numbers). The gradient passes
    on the closed interval."""
    _tensor(input, "clamp")
    if min is None and max is None:
        raise ValueError("For 'clamp', 'min' and 'max' must not both be None")
    return apply(_CLIP, (input, min, max))


_CLIP = M.ClipByValue()
clip = clamp


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    return clamp(x, clip_value_min, clip_value_max)


def cast(input, dtype):
    """input converted to `dtype` (float to int truncates toward zero)."""
    _tensor(input, "cast")
    return M.cast(input, dtype)


# ---- comparisons and logic ------------------------------------------------------------------------

_EQ, _NE, _GT, _GE = M.Equal(), M.NotEqual(), M.Greater(), M.GreaterEqual()
_LT, _LE = M.Less(), M.LessEqual()
_LAND, _LOR, _LXOR = M.LogicalAnd(), M.LogicalOr(), M.LogicalXor()
_BAND, _BOR, _BXOR = M.BitwiseAnd(), M.BitwiseOr(), M.BitwiseXor()


def equal(input, other):
    return binary(_EQ, input, other)


def ne(input, other):
    return binary(_NE, input, other)


def gt(input, other):
    return binary(_GT, input, other)


def ge(input, other):
    return binary(_GE, input, other)


def lt(input, other):
    return binary(_LT, input, other)


def le(input, other):
    return binary(_LE, input, other)


eq, not_equal, greater, greater_equal, less, less_equal = equal, ne, gt, ge, lt, le


def logical_and(input, other):
    return binary(_LAND, input, other)


def logical_or(input, other):
    return binary(_LOR, input, other)


def logical_xor(input, other):
    return binary(_LXOR, input, other)


def bitwise_and(input, other):
    return binary(_BAND, input, other)


def bitwise_or(input, other):
    return binary(_BOR, input, other)


def bitwise_xor(input, other):
    return binary(_BXOR, input, other)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise."""
    a = input._data if isinstance(input, Tensor) else input
    b = other._data if isinstance(other, Tensor) else other
    return wrap(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


# ---- reductions -----------------------------------------------------------------------------------

def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over `dim` (int or tuple; None for all). bool and int32 sum to int64."""
    _tensor(input, "sum")
    out = M.reduce_sum(input, dim, keepdim)
    return out if dtype is None else M.cast(out, dtype)


def reduce_sum(x, axis=None, keep_dims=False):
    return sum(x, axis, keep_dims)


def mean(x, axis=None, keep_dims=False):
    """Mean over `axis` (None for all). Integer inputs give float32 (MindSpore floors to an
    integer, which its own docs do not promise)."""
    _tensor(x, "mean", "x")
    return M.reduce_mean(x, axis, keep_dims)


reduce_mean = mean
_PROD = {False: M.ReduceProd(False), True: M.ReduceProd(True)}


def prod(input, axis=None, keep_dims=False, dtype=None):
    """Product over `axis` (None for all); exact gradients with zeros."""
    _tensor(input, "prod")
    out = apply(_PROD[bool(keep_dims)], (input, () if axis is None else axis))
    return out if dtype is None else M.cast(out, dtype)


_RMAX = {False: M.ReduceMax(False), True: M.ReduceMax(True)}
_RMIN = {False: M.ReduceMin(False), True: M.ReduceMin(True)}


def _with_initial(out, initial, ufunc):
    if initial is None:
        return out
    return binary(ufunc, out, initial)


def amax(input, axis=None, keepdims=False, *, initial=None, where=None):
    """Maximum values over `axis` (None for all); ties split the gradient evenly."""
    _tensor(input, "amax")
    if where is not None:
        input = M.select(_as_bool(where, "amax"), input, float("-inf"))
    return _with_initial(apply(_RMAX[bool(keepdims)], (input, () if axis is None else axis)),
                         initial, _MAXIMUM)


def amin(input, axis=None, keepdims=False, *, initial=None, where=None):
    """Minimum values over `axis` (None for all); ties split the gradient evenly."""
    _tensor(input, "amin")
    if where is not None:
        input = M.select(_as_bool(where, "amin"), input, float("inf"))
    return _with_initial(apply(_RMIN[bool(keepdims)], (input, () if axis is None else axis)),
                         initial, _MINIMUM)


def _as_bool(t, op):
    if not isinstance(t, Tensor) or t._data.dtype.kind != "b":
        raise TypeError(f"For '{op}', 'where' must be a bool Tensor")
    return t


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """(values, indices) of the maximum along `axis` (over all elements for None, with the flat
    index). Ties split the value's gradient evenly."""
    return _extreme(input, axis, keepdims, initial, where, M.ArgMaxWithValue, amax, "max")


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """(values, indices) of the minimum along `axis`; see `max`."""
    return _extreme(input, axis, keepdims, initial, where, M.ArgMinWithValue, amin, "min")


def _extreme(input, axis, keepdims, initial, where, prim_cls, values_fn, op):
    _tensor(input, op)
    if initial is not None or where is not None:
        values = values_fn(input, axis, keepdims, initial=initial, where=where)
        return values, _argextreme(input, axis, keepdims, op)
    if axis is None:
        flat = A.reshape(input, (-1,)) if input.ndim != 1 else input
        idx, val = apply(prim_cls(0, False), (flat,))
        if keepdims:
            shape = (1,) * input.ndim
            return A.reshape(val, shape), A.reshape(idx, shape)
        return val, idx
    idx, val = apply(prim_cls(axis, keepdims), (input,))
    return val, idx


def _argextreme(input, axis, keepdims, op):
    fn = np.argmax if op == "max" else np.argmin
    a = input._data
    if axis is None:
        r = np.asarray(fn(a.reshape(-1)))
        return wrap(r.reshape((1,) * a.ndim) if keepdims else r)
    return wrap(fn(a, axis=axis, keepdims=keepdims))


def argmax(input, dim=None, keepdim=False):
    """int64 index of the maximum along `dim` (of the flattened input for None)."""
    _tensor(input, "argmax")
    return apply(M.Argmax(dim, mstype.int64, keepdim), (input,))


def argmin(input, axis=None, keepdims=False):
    """int64 index of the minimum along `axis` (MindSpore's Tensor.argmin gives int32)."""
    _tensor(input, "argmin")
    return apply(M.Argmin(axis, mstype.int64, keepdims), (input,))


def std(input, axis=None, ddof=0, keepdims=False):
    """Standard deviation (ddof=0: population). The gradient at zero spread is 0."""
    _tensor(input, "std")
    ddof = int(ddof) if not isinstance(ddof, bool) else int(ddof)
    return apply(M.ReduceStd(() if axis is None else axis, ddof, keepdims), (input,))


def var(input, axis=None, ddof=0, keepdims=False):
    """Variance (ddof=0: population)."""
    _tensor(input, "var")
    ddof = int(ddof)
    return apply(M.ReduceVar(() if axis is None else axis, ddof, keepdims), (input,))


def std_mean(input, axis=None, ddof=0, keepdims=False):
    return std(input, axis, ddof, keepdims), mean(input, axis, keepdims)


def var_mean(input, axis=None, ddof=0, keepdims=False):
    return var(input, axis, ddof, keepdims), mean(input, axis, keepdims)


_LSE = {False: M.ReduceLogSumExp(False), True: M.ReduceLogSumExp(True)}


def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) over `dim`, finite for large inputs."""
    _tensor(input, "logsumexp")
    return apply(_LSE[bool(keepdim)], (input, dim))


_CUMSUM = M.CumSum()


def cumsum(x, axis, dtype=None):
    """Cumulative sum along `axis`."""
    _tensor(x, "cumsum", "x")
    if dtype is not None:
        x = M.cast(x, dtype)
    return apply(_CUMSUM, (x, axis))


def all(input, axis=None, keep_dims=False):
    """True where every element along `axis` is nonzero (a bool Tensor)."""
    _tensor(input, "all")
    from ..operations._kernels import normalize_axes
    return wrap(np.all(input._data, axis=normalize_axes(axis, input.ndim, "all"),
                       keepdims=keep_dims))


def any(input, axis=None, keep_dims=False):
    """True where some element along `axis` is nonzero (a bool Tensor)."""
    _tensor(input, "any")
    from ..operations._kernels import normalize_axes
    return wrap(np.any(input._data, axis=normalize_axes(axis, input.ndim, "any"),
                       keepdims=keep_dims))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """Vector or matrix norm: 2-norm / Frobenius by default, `ord` a number, inf, -inf or 'fro'.
    The gradient of the 2-norm at 0 is 0 (a subgradient)."""
    x = _tensor(A, "norm", "A")
    if dtype is not None:
        x = M.cast(x, dtype)
    if ord is None or ord == "fro" or ord == 2 and (dim is None or isinstance(dim, int)):
        ssq = sum(mul(x, x), dim, keepdim)
        return _safe_sqrt(ssq)
    if ord == float("inf"):
        return amax(abs(x), dim, keepdim)
    if ord == float("-inf"):
        return amin(abs(x), dim, keepdim)
    if ord == 0:
        return sum(M.cast(ne(x, 0), x.dtype), dim, keepdim)
    if ord == 1:
        return sum(abs(x), dim, keepdim)
    if isinstance(ord, (int, float)):
        return pow(sum(pow(abs(x), ord), dim, keepdim), 1.0 / ord)
    raise ValueError(f"For 'norm', unsupported 'ord' {ord!r}")


def _safe_sqrt(ssq):
    """sqrt with gradient 0 (not inf) at 0: norms have a defined subgradient there."""
    zero = ssq._data == 0
    if not zero.any():
        return sqrt(ssq)
    safe = M.select(wrap(zero), 1.0, ssq)
    return M.select(wrap(zero), 0.0, sqrt(safe))


def square_sum(x, axis=None, keep_dims=False):
    return sum(mul(x, x), axis, keep_dims)


# ---- linear algebra -------------------------------------------------------------------------------

_MATMUL = M.MatMul()
_BATCH_MATMUL = M.BatchMatMul()


def matmul(input, other):
    """Matrix product with NumPy's rules: 1-D operands are promoted and the added axis removed,
    batch dimensions broadcast."""
    a = _tensor(input, "matmul")
    b = _tensor(other, "matmul", "other")
    ad, bd = a._data, b._data
    if ad.ndim == 0 or bd.ndim == 0:
        raise ValueError(f"For 'matmul', the inputs must not be 0-D, but got shapes {ad.shape} "
                         f"and {bd.shape}")
    if ad.dtype != bd.dtype:
        dt = mstype.promote(ad.dtype, bd.dtype)
        a, b = M.cast(a, dt), M.cast(b, dt)
    if ad.ndim == 2 and bd.ndim == 2:
        return apply(_MATMUL, (a, b))
    squeeze = []
    if ad.ndim == 1:
        a = A.reshape(a, (1, ad.shape[0]))
        squeeze.append(-2)
    if bd.ndim == 1:
        b = A.reshape(b, (bd.shape[0], 1))
        squeeze.append(-1)
    out = apply(_BATCH_MATMUL if a.ndim > 2 or b.ndim > 2 else _MATMUL, (a, b))
    if squeeze:
        shape = list(out.shape)
        for ax in sorted(squeeze):
            shape.pop(ax if ax == -1 else len(shape) - 2)
        out = A.reshape(out, tuple(shape))
    return out


def bmm(input_x, mat2):
    """Batched matrix product of 3-D (or higher) tensors."""
    _tensor(input_x, "bmm", "input_x")
    _tensor(mat2, "bmm", "mat2")
    if input_x.ndim < 3 or mat2.ndim < 3:
        raise ValueError(f"For 'bmm', the inputs must be at least 3-D, but got shapes "
                         f"{input_x.shape} and {mat2.shape}")
    return _BATCH_MATMUL(input_x, mat2)


def mm(input, mat2):
    """2-D matrix product."""
    _tensor(input, "mm")
    _tensor(mat2, "mm", "mat2")
    return _MATMUL(input, mat2)


def dot(input, other):
    """Product over the last axis of `input` and the first of `other` (1-D: the inner
    product)."""
    return matmul(input, other)


def inner(input, other):
    """Sum of products over the last axes."""
    if other.ndim == 1:
        return matmul(input, other)
    return matmul(input, A.transpose(other, tuple(range(other.ndim - 2)) +
                                     (other.ndim - 1, other.ndim - 2)))


def outer(input, vec2):
    """Outer product of two 1-D tensors."""
    return mul(A.reshape(input, (-1, 1)), A.reshape(vec2, (1, -1)))


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2)."""
    return add(mul(input, beta), mul(mm(mat1, mat2), alpha))


def tensor_dot(x1, x2, axes):
    """Sum of products over `axes` (an int n: last n of x1 with first n of x2; or two sequences)."""
    if isinstance(axes, int):
        ax1 = tuple(range(x1.ndim - axes, x1.ndim))
        ax2 = tuple(range(axes))
    else:
        ax1, ax2 = (tuple([a]) if isinstance(a, int) else tuple(a) for a in axes)
    ax1 = tuple(a % x1.ndim for a in ax1)
    ax2 = tuple(a % x2.ndim for a in ax2)
    free1 = [i for i in range(x1.ndim) if i not in ax1]
    free2 = [i for i in range(x2.ndim) if i not in ax2]
    a = A.transpose(x1, tuple(free1) + ax1)
    b = A.transpose(x2, ax2 + tuple(free2))
    k = math.prod(x1.shape[i] for i in ax1)
    a2 = A.reshape(a, (-1, k) if free1 else (1, k))
    b2 = A.reshape(b, (k, -1) if free2 else (k, 1))
    out = matmul(a2, b2)
    return A.reshape(out, tuple(x1.shape[i] for i in free1) + tuple(x2.shape[i] for i in free2))

