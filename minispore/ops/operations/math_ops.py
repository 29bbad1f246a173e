"""Math primitives: elementwise arithmetic and functions, comparisons, reductions, matmul, cast.

Conventions at kinks and ties (one for the whole library): max/min and maximum/minimum split the
gradient evenly among tied elements; relu'(0) = abs'(0) = sign'(x) = 0; clip passes the gradient
on the closed interval [min, max]; floor, ceil, round, sign and floor division have zero gradient.
"""
import math

import numpy as np

from ..._autodiff import tape as _tape
from ..._autodiff.tape import apply, binary, call1, call2, recording, wrap
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..primitive import Binary, Primitive, Unary, register
from . import array_ops as A
from ._kernels import erf as _erf, erfc as _erfc, erfinv as _erfinv, keep_shape, \
    normalize_axes, normalize_axis, quiet

_f32 = np.dtype(np.float32)


def _const(arr):
    return wrap(arr)


def _writable(a):
    """`a` as an ndarray we may write into (NumPy returns scalars for 0-d results)."""
    return a if type(a) is np.ndarray else np.array(a)


def _data(v):
    return v._data if isinstance(v, Tensor) else v


# ================================ binary arithmetic ==============================================

@register
class Add(Binary):
    """x + y.  dx = dout;  dy = dout."""

    forward = staticmethod(np.add)

    def bprop(self, saved, dout, needs):
        return dout, dout


@register
class Sub(Binary):
    """x - y.  dx = dout;  dy = -dout."""

    forward = staticmethod(np.subtract)

    def bprop(self, saved, dout, needs):
        return dout, (-dout if needs[1] else None)


@register
class Mul(Binary):
    """x * y.  dx = dout * y;  dy = dout * x."""

    saves = ("x", "y")
    forward = staticmethod(np.multiply)

    def bprop(self, saved, dout, needs):
        x, y = saved
        return (dout * y if needs[0] else None), (dout * x if needs[1] else None)


def _true_divide(x, y):
    if x.dtype.kind not in "fc":  # int / int is float32 in MindSpore
        x = x.astype(_f32)
        if y.dtype.kind not in "fc":
            y = y.astype(_f32)
    return np.true_divide(x, y)


@register
class RealDiv(Binary):
    """x / y (true division; int / int gives float32).  dx = dout / y;  dy = -dout * out / y."""

    saves = ("y", "out")

    def forward(self, x, y):
        return quiet(_true_divide, x, y)

    def bprop(self, saved, dout, needs):
        y, out = saved
        dx = dout / y
        return (dx if needs[0] else None), (-dx * out if needs[1] else None)


Div = RealDiv


@register
class FloorDiv(Binary):
    """floor(x / y).  Zero gradient: piecewise constant."""

    def forward(self, x, y):
        return quiet(np.floor_divide, x, y)

    def bprop(self, saved, dout, needs):
        return None, None


@register
class FloorMod(Binary):
    """x - floor(x / y) * y (sign of y, as Python's %).  dx = dout;  dy = -dout * floor(x / y)."""

    saves = ("x", "y")

    def forward(self, x, y):
        return quiet(np.remainder, x, y)

    def bprop(self, saved, dout, needs):
        x, y = saved
        return (dout if needs[0] else None), (-dout * (x // y) if needs[1] else None)


@register
class Pow(Binary):
    """x ** y.  dx = dout * y * x ** (y - 1);  dy = dout * out * log(x) (0 where x == 0)."""

    amp_auto = "full"
    saves = ("x", "y", "out")

    def forward(self, x, y):
        if x.dtype.kind in "iu" and y.dtype.kind in "iu" and (y < 0).any():
            return _int_power(x, y)
        return quiet(np.power, x, y)

    def bprop(self, saved, dout, needs):
        x, y, out = saved
        dx = dout * y * x ** (y - 1) if needs[0] else None
        dy = None
        if needs[1]:
            if isinstance(x, Tensor):
                dy = dout * out * log(select(x == 0, 1.0, x))
            else:
                dy = dout * out * (math.log(x) if x > 0 else 0.0 if x == 0 else math.nan)
        return dx, dy


def _int_power(x, y):
    """Integer x ** y with negative exponents as C computes them (MindSpore's result): 1 for
    base 1, +-1 by parity for base -1, 0 otherwise."""
    pos = np.power(x, np.maximum(y, 0))
    one = np.ones((), pos.dtype)
    neg = np.where(x == 1, one, np.where(x == -1, np.where(y % 2 == 0, one, -one), 0 * one))
    return np.where(y < 0, neg, pos).astype(pos.dtype, copy=False)


def _tie_weights(x, y, dt):
    """Weights of x in max(x, y): 1 where x wins, 0.5 on ties, 0 where y wins (constant)."""
    a, b = np.broadcast_arrays(_data(x), _data(y))
    w = _writable((a > b).astype(dt))
    w[a == b] = 0.5
    return _const(w)


@register
class Maximum(Binary):
    """max(x, y), NaN-propagating.  Ties split the gradient evenly."""

    saves = ("x", "y")
    forward = staticmethod(np.maximum)

    def bprop(self, saved, dout, needs):
        x, y = saved
        wx = _tie_weights(x, y, dout._data.dtype)
        return (dout * wx if needs[0] else None), (dout * (1 - wx) if needs[1] else None)


@register
class Minimum(Binary):
    """min(x, y), NaN-propagating.  Ties split the gradient evenly."""

    saves = ("x", "y")
    forward = staticmethod(np.minimum)

    def bprop(self, saved, dout, needs):
        x, y = saved
        wy = _tie_weights(x, y, dout._data.dtype)  # y is the minimum where x > y
        return (dout * (1 - wy) if needs[0] else None), (dout * wy if needs[1] else None)


@register
class Atan2(Binary):
    """atan2(x, y).  dx = dout * y / (x^2 + y^2);  dy = -dout * x / (x^2 + y^2)."""

    saves = ("x", "y")

    def forward(self, x, y):
        if x.dtype.kind not in "fc":
            x, y = x.astype(_f32), y.astype(_f32)
        return np.arctan2(x, y)

    def bprop(self, saved, dout, needs):
        x, y = saved
        r = dout / (x * x + y * y)
        return (r * y if needs[0] else None), (-r * x if needs[1] else None)


# ================================ comparisons and logic (no gradient) =============================

class _Compare(Binary):
    differentiable = False

    def bprop(self, saved, dout, needs):
        return None, None


def _compare(name, ufunc):
    cls = type(name, (_Compare,), {"forward": staticmethod(ufunc),
                                   "__doc__": f"Elementwise {ufunc.__name__}; bool result."})
    cls.__module__ = __name__
    return register(cls)


Equal = _compare("Equal", np.equal)
NotEqual = _compare("NotEqual", np.not_equal)
Greater = _compare("Greater", np.greater)
GreaterEqual = _compare("GreaterEqual", np.greater_equal)
Less = _compare("Less", np.less)
LessEqual = _compare("LessEqual", np.less_equal)


def _logical(name, fn, doc):
    def forward(self, x, y):
        if x.dtype.kind != "b" or y.dtype.kind != "b":
            raise TypeError(f"For '{name}', the inputs must be bool tensors, but got "
                            f"{mstype.from_np(x.dtype)} and {mstype.from_np(y.dtype)}")
        return fn(x, y)
    cls = type(name, (_Compare,), {"forward": forward, "__doc__": doc})
    cls.__module__ = __name__
    return register(cls)


LogicalAnd = _logical("LogicalAnd", np.logical_and, "x and y on bool tensors.")
LogicalOr = _logical("LogicalOr", np.logical_or, "x or y on bool tensors.")
LogicalXor = _logical("LogicalXor", np.logical_xor, "x xor y on bool tensors.")


def _bitwise(name, ufunc):
    def forward(self, x, y):
        if x.dtype.kind not in "biu" or y.dtype.kind not in "biu":
            raise TypeError(f"For '{name}', the inputs must be bool or integer tensors, but got "
                            f"{mstype.from_np(x.dtype)} and {mstype.from_np(y.dtype)}")
        return ufunc(x, y)
    cls = type(name, (_Compare,), {"forward": forward,
                                   "__doc__": f"Elementwise {ufunc.__name__} on integers/bools."})
    cls.__module__ = __name__
    return register(cls)


BitwiseAnd = _bitwise("BitwiseAnd", np.bitwise_and)
BitwiseOr = _bitwise("BitwiseOr", np.bitwise_or)
BitwiseXor = _bitwise("BitwiseXor", np.bitwise_xor)


@register
class LogicalNot(Unary):
    """not x on bool tensors (bitwise not on integers)."""

    differentiable = False

    def forward(self, x):
        if x.dtype.kind not in "biu":
            raise TypeError(f"For 'LogicalNot', the input must be a bool or integer tensor, "
                            f"but got {mstype.from_np(x.dtype)}")
        return np.invert(x)


class _Predicate(Unary):
    differentiable = False


def _predicate(name, ufunc):
    cls = type(name, (_Predicate,), {"forward": staticmethod(ufunc),
                                     "__doc__": f"Elementwise {ufunc.__name__}; bool result."})
    cls.__module__ = __name__
    return register(cls)


IsNan = _predicate("IsNan", np.isnan)
IsInf = _predicate("IsInf", np.isinf)
IsFinite = _predicate("IsFinite", np.isfinite)


# ================================ unary functions ================================================

def _float_input(name, x):
    if x.dtype.kind not in "fc":
        if x.dtype.kind in "biu":
            return x.astype(_f32)  # sqrt(int) is float32 in MindSpore
        raise TypeError(f"For '{name}', the input must be a number tensor, got {x.dtype}")
    return x


class _FloatUnary(Unary):
    """An elementwise function that is computed in floating point (ints become float32)."""

    kernel = None

    def forward(self, x):
        return quiet(self.kernel, _float_input(self.name, x))


@register
class Neg(Unary):
    """-x.  dx = -dout."""

    forward = staticmethod(np.negative)

    def bprop(self, saved, dout, needs):
        return (-dout,)


@register
class Exp(_FloatUnary):
    """exp(x).  dx = dout * out."""

    amp_auto = "full"
    saves = ("out",)
    kernel = staticmethod(np.exp)

    def bprop(self, saved, dout, needs):
        return (dout * saved[0],)


@register
class Expm1(_FloatUnary):
    """exp(x) - 1.  dx = dout * (out + 1)."""

    amp_auto = "full"
    saves = ("out",)
    kernel = staticmethod(np.expm1)

    def bprop(self, saved, dout, needs):
        return (dout * (saved[0] + 1),)


@register
class Log(_FloatUnary):
    """log(x) (log(0) = -inf, log(x < 0) = nan).  dx = dout / x."""

    amp_auto = "full"
    saves = ("x",)
    kernel = staticmethod(np.log)

    def bprop(self, saved, dout, needs):
        return (dout / saved[0],)


@register
class Log1p(_FloatUnary):
    """log(1 + x).  dx = dout / (1 + x)."""

    amp_auto = "full"
    saves = ("x",)
    kernel = staticmethod(np.log1p)

    def bprop(self, saved, dout, needs):
        return (dout / (saved[0] + 1),)


@register
class Sqrt(_FloatUnary):
    """sqrt(x).  dx = dout / (2 * out) (inf at 0)."""

    saves = ("out",)
    kernel = staticmethod(np.sqrt)

    def bprop(self, saved, dout, needs):
        return (dout / (saved[0] * 2),)


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


@register
class Rsqrt(_FloatUnary):
    """1 / sqrt(x).  dx = -0.5 * dout * out^3."""

    amp_auto = "full"
    saves = ("out",)
    kernel = staticmethod(_rsqrt)

    def bprop(self, saved, dout, needs):
        out = saved[0]
        return (dout * (out * out * out) * -0.5,)


@register
class Reciprocal(_FloatUnary):
    """1 / x.  dx = -dout * out^2."""

    amp_auto = "full"
    saves = ("out",)
    kernel = staticmethod(np.reciprocal)

    def bprop(self, saved, dout, needs):
        out = saved[0]
        return (-dout * (out * out),)


@register
class Square(Unary):
    """x * x.  dx = 2 * dout * x."""

    saves = ("x",)

    @staticmethod
    def forward(x):
        return quiet(np.square, x)  # overflow (routine in float16) without NumPy's warning

    def bprop(self, saved, dout, needs):
        return (dout * (saved[0] * 2),)


@register
class Abs(Unary):
    """|x|.  dx = dout * sign(x) (0 at 0)."""

    saves = ("x",)
    forward = staticmethod(np.abs)

    def bprop(self, saved, dout, needs):
        return (dout * sign(saved[0]),)


class _PiecewiseConstant(Unary):
    """Zero gradient almost everywhere: recorded so that the gradient is an exact zero."""

    def bprop(self, saved, dout, needs):
        return (None,)


def _piecewise(name, ufunc, doc):
    cls = type(name, (_PiecewiseConstant,), {"forward": staticmethod(ufunc), "__doc__": doc})
    cls.__module__ = __name__
    return register(cls)


Sign = _piecewise("Sign", np.sign, "sign(x) in {-1, 0, 1}.  Zero gradient.")
Floor = _piecewise("Floor", np.floor, "floor(x).  Zero gradient.")
Ceil = _piecewise("Ceil", np.ceil, "ceil(x).  Zero gradient.")


def _rint(x):
    # np.rint turns integers into float64; integers are already whole, as MindSpore keeps them.
    return np.rint(x) if x.dtype.kind in "fc" else x.copy()


Round = _piecewise("Round", _rint, "Round half to even (integers unchanged).  Zero gradient.")
Trunc = _piecewise("Trunc", np.trunc, "Round toward zero.  Zero gradient.")


@register
class Sin(_FloatUnary):
    """sin(x).  dx = dout * cos(x)."""

    saves = ("x",)
    kernel = staticmethod(np.sin)

    def bprop(self, saved, dout, needs):
        return (dout * cos(saved[0]),)


@register
class Cos(_FloatUnary):
    """cos(x).  dx = -dout * sin(x)."""

    saves = ("x",)
    kernel = staticmethod(np.cos)

    def bprop(self, saved, dout, needs):
        return (-dout * sin(saved[0]),)


@register
class Tan(_FloatUnary):
    """tan(x).  dx = dout * (1 + out^2)."""

    amp_auto = "full"
    saves = ("out",)
    kernel = staticmethod(np.tan)

    def bprop(self, saved, dout, needs):
        out = saved[0]
        return (dout * (out * out + 1),)


@register
class Sinh(_FloatUnary):
    """sinh(x).  dx = dout * cosh(x)."""

    amp_auto = "full"
    saves = ("x",)
    kernel = staticmethod(np.sinh)

    def bprop(self, saved, dout, needs):
        return (dout * cosh(saved[0]),)


@register
class Cosh(_FloatUnary):
    """cosh(x).  dx = dout * sinh(x)."""

    amp_auto = "full"
    saves = ("x",)
    kernel = staticmethod(np.cosh)

    def bprop(self, saved, dout, needs):
        return (dout * sinh(saved[0]),)


@register
class Asin(_FloatUnary):
    """arcsin(x).  dx = dout / sqrt(1 - x^2)."""

    amp_auto = "full"
    saves = ("x",)
    kernel = staticmethod(np.arcsin)

    def bprop(self, saved, dout, needs):
        x = saved[0]
        return (dout * rsqrt(1 - x * x),)


@register
class ACos(_FloatUnary):
    """arccos(x).  dx = -dout / sqrt(1 - x^2)."""

    amp_auto = "full"
    saves = ("x",)
    kernel = staticmethod(np.arccos)

    def bprop(self, saved, dout, needs):
        x = saved[0]
        return (-dout * rsqrt(1 - x * x),)


@register
class Atan(_FloatUnary):
    """arctan(x).  dx = dout / (1 + x^2)."""

    saves = ("x",)
    kernel = staticmethod(np.arctan)

    def bprop(self, saved, dout, needs):
        x = saved[0]
        return (dout / (x * x + 1),)


@register
class Asinh(_FloatUnary):
    """arcsinh(x).  dx = dout / sqrt(x^2 + 1)."""

    saves = ("x",)
    kernel = staticmethod(np.arcsinh)

    def bprop(self, saved, dout, needs):
        x = saved[0]
        return (dout * rsqrt(x * x + 1),)


@register
class Acosh(_FloatUnary):
    """arccosh(x).  dx = dout / sqrt(x^2 - 1)."""

    saves = ("x",)
    kernel = staticmethod(np.arccosh)

    def bprop(self, saved, dout, needs):
        x = saved[0]
        return (dout * rsqrt(x * x - 1),)


@register
class Atanh(_FloatUnary):
    """arctanh(x).  dx = dout / (1 - x^2)."""

    saves = ("x",)
    kernel = staticmethod(np.arctanh)

    def bprop(self, saved, dout, needs):
        x = saved[0]
        return (dout / (1 - x * x),)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@register
class Erf(_FloatUnary):
    """erf(x).  dx = dout * 2 / sqrt(pi) * exp(-x^2)."""

    saves = ("x",)
    kernel = staticmethod(_erf)

    def bprop(self, saved, dout, needs):
        x = saved[0]
        return (dout * exp(-(x * x)) * _TWO_OVER_SQRT_PI,)


@register
class Erfc(_FloatUnary):
    """1 - erf(x).  dx = -dout * 2 / sqrt(pi) * exp(-x^2)."""

    saves = ("x",)

    kernel = staticmethod(_erfc)

    def bprop(self, saved, dout, needs):
        x = saved[0]
        return (dout * exp(-(x * x)) * -_TWO_OVER_SQRT_PI,)


_SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2


@register
class Erfinv(_FloatUnary):
    """The inverse of erf on [-1, 1].  dx = dout * sqrt(pi) / 2 * exp(out^2)."""

    amp_auto = "full"
    saves = ("out",)
    kernel = staticmethod(_erfinv)

    def bprop(self, saved, dout, needs):
        out = saved[0]
        return (dout * exp(out * out) * _SQRT_PI_OVER_2,)


# ---- activations with fused gradients: one primitive call forward, one backward ----------------

@register
class Tanh(_FloatUnary):
    """tanh(x).  dx = TanhGrad(out, dout) = dout * (1 - out^2)."""

    saves = ("out",)
    kernel = staticmethod(np.tanh)

    def forward(self, x):  # perf: tanh never raises floating-point flags, so no `quiet`
        return np.tanh(x) if x.dtype.kind in "fc" else np.tanh(_float_input("Tanh", x))

    def bprop(self, saved, dout, needs):
        return (call2(_TANH_GRAD, saved[0], dout),)


@register
class TanhGrad(Primitive):
    """dy * (1 - y^2), y = tanh(x).  d_y = -2 * g * dy * y;  d_dy = TanhGrad(y, g)."""

    inputs = ("y", "dy")
    saves = ("y", "dy")

    def forward(self, y, dy):
        t = np.multiply(y, y)  # dy - dy * y^2: array operands only (no slow scalar path)
        if type(t) is not np.ndarray:
            t = np.array(t)
        np.multiply(t, dy, out=t)
        np.subtract(dy, t, out=t)
        return t

    def bprop(self, saved, g, needs):
        y, dy = saved
        return ((g * dy * y * -2) if needs[0] else None,
                tanh_grad(y, g) if needs[1] else None)


def _sigmoid(x):
    # exp of a non-positive argument only: no overflow for large |x|.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0, e) / (1.0 + e)


@register
class Sigmoid(_FloatUnary):
    """1 / (1 + exp(-x)), without overflow.  dx = SigmoidGrad(out, dout) = dout * out * (1 - out)."""

    saves = ("out",)
    kernel = staticmethod(_sigmoid)

    def bprop(self, saved, dout, needs):
        return (sigmoid_grad(saved[0], dout),)


@register
class SigmoidGrad(Primitive):
    """dy * y * (1 - y), y = sigmoid(x).  d_y = g * dy * (1 - 2 y);  d_dy = SigmoidGrad(y, g)."""

    inputs = ("y", "dy")
    saves = ("y", "dy")

    def forward(self, y, dy):
        t = _writable(np.subtract(1, y))
        np.multiply(t, y, out=t)
        np.multiply(t, dy, out=t)
        return t

    def bprop(self, saved, g, needs):
        y, dy = saved
        return ((g * dy * (1 - y * 2)) if needs[0] else None,
                sigmoid_grad(y, g) if needs[1] else None)


# ================================ where, clip, cast ==============================================

@register
class Select(Primitive):
    """where(condition, x, y).  dx = where(condition, dout, 0);  dy = where(condition, 0, dout)."""

    inputs = ("condition", "x", "y")
    saves = ("condition",)
    broadcasts = True

    def forward(self, condition, x, y):
        if not isinstance(condition, np.ndarray) or condition.dtype.kind != "b":
            raise TypeError(f"For 'Select', 'condition' must be a bool Tensor, "
                            f"got {getattr(condition, 'dtype', type(condition).__name__)}")
        x, y = _promote_pair(x, y)
        try:
            return np.where(condition, x, y)
        except ValueError:
            raise ValueError(f"For 'Select', the shapes of 'condition' {condition.shape}, 'x' "
                             f"{np.shape(x)} and 'y' {np.shape(y)} cannot be broadcast "
                             "together") from None

    def bprop(self, saved, dout, needs):
        cond = saved[0]
        zero = A.zeros_like(dout)
        return (None,
                select(cond, dout, zero) if needs[1] else None,
                select(cond, zero, dout) if needs[2] else None)


_SCALAR_PYTYPE = {"b": bool, "i": int, "u": int, "f": float}


def _promote_pair(x, y):
    if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
        if x.dtype != y.dtype:
            dt = mstype.promote(x.dtype, y.dtype)
            return x.astype(dt, copy=False), y.astype(dt, copy=False)
        return x, y
    if isinstance(x, np.ndarray):
        dt = mstype.promote_scalar(x.dtype, type(y))
        return x.astype(dt, copy=False), np.asarray(y, dt)
    if isinstance(y, np.ndarray):
        dt = mstype.promote_scalar(y.dtype, type(x))
        return np.asarray(x, dt), y.astype(dt, copy=False)
    return np.asarray(x, _f32), np.asarray(y, _f32)


@register
class ClipByValue(Primitive):
    """min(max(x, clip_value_min), clip_value_max).  The gradient passes on the closed interval:
    dx = dout where min <= x <= max; d_min = dout where x < min; d_max = dout where x > max."""

    inputs = ("x", "clip_value_min", "clip_value_max")
    saves = ("x", "clip_value_min", "clip_value_max")
    broadcasts = True

    def forward(self, x, lo, hi):
        if x.dtype.kind == "b":
            raise TypeError("For 'ClipByValue', the input must be a number tensor, but got Bool")
        # The bounds take part in type promotion as operands of a binary op would: an int tensor
        # clipped to float bounds gives float32, float32 clipped by float64 tensors float64.
        dt = x.dtype
        for b in (lo, hi):
            if isinstance(b, np.ndarray):
                dt = mstype.promote(dt, b.dtype)
            elif b is not None:
                dt = mstype.promote_scalar(dt, _SCALAR_PYTYPE.get(np.asarray(b).dtype.kind, float))
        out = x.astype(dt, copy=False)
        if lo is not None:
            out = np.maximum(out, np.asarray(lo, dt))
        if hi is not None:
            out = np.minimum(out, np.asarray(hi, dt))
        return out.copy() if out is x else out

    def bprop(self, saved, dout, needs):
        x, lo, hi = saved
        xd = x._data
        below = xd < _data(lo) if lo is not None else np.zeros(xd.shape, bool)
        above = xd > _data(hi) if hi is not None else np.zeros(xd.shape, bool)
        inside = ~(below | above)
        dt = dout._data.dtype
        return (dout * _const(inside.astype(dt)) if needs[0] else None,
                dout * _const(below.astype(dt)) if needs[1] else None,
                dout * _const(above.astype(dt)) if needs[2] else None)


@register
class Cast(Primitive):
    """x cast to `dtype` (float to int truncates).  dx = Cast(dout, x.dtype); no gradient into
    integer or bool results."""

    keeps_inputs = True
    inputs = ("x", "dtype")
    saves = ("x.dtype",)

    def forward(self, x, dtype):
        return x.astype(mstype.to_np(dtype))

    def bprop(self, saved, dout, needs):
        return cast(dout, saved[0]), None


# ================================ reductions ======================================================

class _Reduce(Primitive):
    """Base of ReduceSum-style primitives: `keep_dims` is an attribute, `axis` a call input."""

    inputs = ("x", "axis")

    def __init__(self, keep_dims=False):
        super().__init__()
        if not isinstance(keep_dims, bool):
            raise TypeError(f"For '{type(self).__name__}', 'keep_dims' must be a bool, "
                            f"but got {type(keep_dims).__name__}")
        self.keep_dims = keep_dims

    def __call__(self, x, axis=()):
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{self.name}', the input must be a Tensor, but got "
                            f"{type(x).__name__}")
        return apply(self, (x, axis))

    def _axes(self, x, axis):
        return normalize_axes(axis, x.ndim, self.name)


def _expand_back(g, x_shape, axes):
    """Gradient of a reduction: g (reduced) reshaped to keep-dims and broadcast to x_shape."""
    return A.broadcast_to(A.reshape(g, keep_shape(x_shape, axes)), x_shape)


@register
class ReduceSum(_Reduce):
    """Sum over `axis` (all for `()`, or none with `skip_mode=True`); bool and int32 sum to int64.
    dx = broadcast(dout)."""

    saves = ("x.shape", "axis")

    def __init__(self, keep_dims=False, skip_mode=False):
        super().__init__(keep_dims)
        if not isinstance(skip_mode, bool):
            raise TypeError(f"For 'ReduceSum', 'skip_mode' must be a bool, but got "
                            f"{type(skip_mode).__name__}")
        self.skip_mode = skip_mode

    def _skips(self, axis):
        return self.skip_mode and (axis is None or isinstance(axis, (tuple, list)) and not axis)

    def forward(self, x, axis):
        if self._skips(axis):
            return x.astype(_sum_dtype(x.dtype) or x.dtype)
        axes = self._axes(x, axis)
        return np.sum(x, axis=axes, keepdims=self.keep_dims, dtype=_sum_dtype(x.dtype))

    def bprop(self, saved, dout, needs):
        shape, axis = saved
        if self._skips(axis):
            return dout, None
        return _expand_back(dout, shape, normalize_axes(axis, len(shape), self.name)), None


def _sum_dtype(dt):
    """bool and integers narrower than 64 bits accumulate (and return) int64, as MindSpore."""
    return np.int64 if dt.kind == "b" or (dt.kind in "iu" and dt.itemsize < 8) else None


def _count(shape, axes):
    return math.prod(shape) if axes is None else math.prod(shape[a] for a in axes)


@register
class ReduceMean(_Reduce):
    """Mean over `axis` (integer inputs give float32; the mean of nothing is nan).
    dx = broadcast(dout) / n."""

    saves = ("x.shape", "axis")

    def forward(self, x, axis):
        axes = self._axes(x, axis)
        if x.dtype.kind not in "fc":
            x = x.astype(_f32)
        n = _count(x.shape, axes)
        s = np.sum(x, axis=axes, keepdims=self.keep_dims)
        return quiet(np.divide, s, np.asarray(n, s.dtype))

    def bprop(self, saved, dout, needs):
        shape, axis = saved
        axes = normalize_axes(axis, len(shape), self.name)
        n = _count(shape, axes)
        return _expand_back(dout / n if n else dout * math.nan, shape, axes), None


@register
class ReduceProd(_Reduce):
    """Product over `axis`.  dx = broadcast(dout) * (product of the other elements), exact when
    x has zeros."""

    amp_auto = "full"
    saves = ("x", "axis")

    def forward(self, x, axis):
        return np.prod(x, axis=self._axes(x, axis), keepdims=self.keep_dims)

    def bprop(self, saved, dout, needs):
        x, axis = saved
        axes = normalize_axes(axis, x.ndim, self.name)
        return _expand_back(dout, x.shape, axes) * prod_others(x, axes), None


def _move_to_end(a, axes):
    """a with `axes` moved last and flattened into one: (rest..., n), and the permutation."""
    nd = a.ndim
    axes = tuple(range(nd)) if axes is None else axes
    rest = [i for i in range(nd) if i not in axes]
    perm = rest + list(axes)
    moved = np.transpose(a, perm)
    n = math.prod(moved.shape[len(rest):])  # not -1: ambiguous when the other axes are empty
    return moved.reshape(moved.shape[:len(rest)] + (n,)), perm, moved.shape


@register
class ProdOthers(Primitive):
    """For each element, the product of the other elements of its reduction group.
    Second-order rule holds where the group has no zeros (else a clear error)."""

    internal = True
    inputs = ("x", "axes")
    saves = ("x", "axes", "out")

    def forward(self, x, axes):
        flat, perm, moved_shape = _move_to_end(x, axes)
        n = flat.shape[-1]
        ones = np.ones(flat.shape[:-1] + (1,), x.dtype)
        left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
        right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
        others = (left * right)[..., :n].reshape(moved_shape)
        return np.transpose(others, np.argsort(perm))

    def bprop(self, saved, g, needs):
        x, axes, out = saved
        if (x._data == 0).any():
            raise RuntimeError("For 'ReduceProd', the second derivative at an input containing "
                               "zeros is not implemented")
        # d(others_i)/dx_j = P / (x_i x_j) for j != i:  dx_j = (P / x_j) * (S - g_j / x_j),
        # S = sum_i g_i / x_i, P = x_j * others_j.
        r = g / x
        s = reduce_sum(r, axes, True)
        return (out * (s - r) if needs[0] else None), None


class _ReduceExtreme(_Reduce):
    saves = ("x", "axis", "out")
    _ufunc = None

    def forward(self, x, axis):
        axes = self._axes(x, axis)
        if x.size == 0 and (axes is None or any(x.shape[a] == 0 for a in axes)):
            raise ValueError(f"For '{self.name}', cannot reduce an empty tensor of shape "
                             f"{x.shape} over axis {axis!r}: the result has no value")
        return self._ufunc.reduce(x, axis=axes, keepdims=self.keep_dims)

    def bprop(self, saved, dout, needs):
        x, axis, out = saved
        axes = normalize_axes(axis, x.ndim, self.name)
        return _extreme_grad(x, axes, out, dout), None


def _extreme_grad(x, axes, out, dout):
    """Gradient of a max/min reduction: split evenly among the elements equal to the result."""
    ks = keep_shape(x.shape, axes)
    hit = x._data == out._data.reshape(ks)
    w = hit / hit.sum(axis=axes, keepdims=True)
    return _expand_back(dout, x.shape, axes) * _const(w.astype(dout._data.dtype))


@register
class ReduceMax(_ReduceExtreme):
    """Maximum over `axis`.  Ties split the gradient evenly."""

    _ufunc = np.maximum


@register
class ReduceMin(_ReduceExtreme):
    """Minimum over `axis`.  Ties split the gradient evenly."""

    _ufunc = np.minimum


class _ArgExtremeWithValue(Primitive):
    """(index, value) along `axis`, MindSpore's order. The value's gradient splits ties evenly
    (the library's convention; MindSpore routes it all to the returned index)."""

    inputs = ("x",)
    saves = ("x", "out")
    _arg = _val = None

    def __init__(self, axis=0, keep_dims=False):
        super().__init__()
        self.axis = axis
        self.keep_dims = keep_dims

    def forward(self, x):
        axis = normalize_axis(self.axis, max(x.ndim, 1), self.name) if x.ndim else None
        if x.size == 0 and (axis is None or x.shape[axis] == 0):
            raise ValueError(f"For '{self.name}', the input of shape {x.shape} is empty along "
                             f"axis {self.axis}: the result has no value")
        idx = self._arg(x, axis=axis, keepdims=self.keep_dims).astype(np.int64)
        val = self._val(x, axis=axis, keepdims=self.keep_dims)
        return idx, val

    def bprop(self, saved, dout, needs):
        x, out = saved
        axes = None if x.ndim == 0 else (normalize_axis(self.axis, x.ndim, self.name),)
        return (_extreme_grad(x, axes, out[1], dout[1]),)


@register
class ArgMaxWithValue(_ArgExtremeWithValue):
    _arg, _val = staticmethod(np.argmax), staticmethod(np.max)


@register
class ArgMinWithValue(_ArgExtremeWithValue):
    _arg, _val = staticmethod(np.argmin), staticmethod(np.min)


class _ArgExtreme(Primitive):
    inputs = ("x",)
    differentiable = False
    _arg = None

    def __init__(self, axis=-1, output_type=mstype.int32, keep_dims=False):
        super().__init__()
        self.axis = axis
        self.output_type = output_type
        self.keep_dims = keep_dims

    def forward(self, x):
        if x.size == 0 and (self.axis is None or x.ndim == 0 or
                            x.shape[normalize_axis(self.axis, x.ndim, self.name)] == 0):
            raise ValueError(f"For '{self.name}', the input of shape {x.shape} is empty along "
                             f"axis {self.axis}: the result has no value")
        if self.axis is None:
            r = self._arg(x.reshape(-1))
            r = np.asarray(r).reshape((1,) * x.ndim) if self.keep_dims else np.asarray(r)
        else:
            axis = normalize_axis(self.axis, max(x.ndim, 1), self.name)
            r = self._arg(x, axis=axis, keepdims=self.keep_dims) if x.ndim else np.asarray(0)
        return r.astype(mstype.to_np(self.output_type))


@register
class Argmax(_ArgExtreme):
    """Index of the maximum along `axis` (first one on ties); no gradient."""

    _arg = staticmethod(np.argmax)


@register
class Argmin(_ArgExtreme):
    """Index of the minimum along `axis` (first one on ties); no gradient."""

    _arg = staticmethod(np.argmin)


@register
class ReduceLogSumExp(_Reduce):
    """log(sum(exp(x))) over `axis`, shifted by the max so it stays finite (and -inf rows stay
    -inf).  dx = broadcast(dout) * exp(x - out)."""

    saves = ("x", "axis", "out")

    def forward(self, x, axis):
        axes = self._axes(x, axis)
        return quiet(_logsumexp, x, axes, self.keep_dims)

    def bprop(self, saved, dout, needs):
        x, axis, out = saved
        axes = normalize_axes(axis, x.ndim, self.name)
        soft = exp(x - A.reshape(out, keep_shape(x.shape, axes)))
        return _expand_back(dout, x.shape, axes) * soft, None


def _logsumexp(x, axes, keep_dims):
    m = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros(keep_shape(x.shape, axes),
                                                                      x.dtype)
    m = np.where(np.isfinite(m), m, 0)
    s = np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True)) + m
    return s if keep_dims else np.squeeze(s, axis=axes)


@register
class StdDev(Primitive):
    """Standard deviation over `axis` with `ddof` (0: population, MindSpore's default).
    dx = dout * (x - mean) / ((n - ddof) * out), 0 where out == 0 (a subgradient)."""

    internal = True  # the user-facing class of MindSpore's name adapts the call
    inputs = ("x",)
    saves = ("x", "out")

    def __init__(self, axis=(), ddof=0, keep_dims=False):
        super().__init__()
        self.axis, self.ddof, self.keep_dims = axis, ddof, keep_dims

    def forward(self, x):
        axes = normalize_axes(self.axis, x.ndim, self.name)
        return quiet(lambda: np.sqrt(_var(x, axes, self.ddof, self.keep_dims)))

    def bprop(self, saved, dout, needs):
        x, out = saved
        axes = normalize_axes(self.axis, x.ndim, self.name)
        ks = keep_shape(x.shape, axes)
        centered = x - reduce_mean(x, axes, True)
        denom = A.reshape(out, ks) * (_count(x.shape, axes) - self.ddof)
        safe = select(denom == 0, 1.0, denom)
        g = _expand_back(dout, x.shape, axes) * centered / safe
        return (select(A.broadcast_to(denom == 0, x.shape), 0.0, g),)


@register
class ReduceVar(Primitive):
    """Variance over `axis` with `ddof`.  dx = 2 * dout * (x - mean) / (n - ddof)."""

    inputs = ("x",)
    saves = ("x",)

    def __init__(self, axis=(), ddof=0, keep_dims=False):
        super().__init__()
        self.axis, self.ddof, self.keep_dims = axis, ddof, keep_dims

    def forward(self, x):
        axes = normalize_axes(self.axis, x.ndim, self.name)
        return quiet(_var, x, axes, self.ddof, self.keep_dims)

    def bprop(self, saved, dout, needs):
        x = saved[0]
        axes = normalize_axes(self.axis, x.ndim, self.name)
        centered = x - reduce_mean(x, axes, True)
        dof = _count(x.shape, axes) - self.ddof
        scale = 2.0 / dof if dof > 0 else math.inf  # the forward divided by 0 too
        return (_expand_back(dout, x.shape, axes) * centered * scale,)


def _var(x, axes, ddof, keep_dims):
    if x.dtype.kind not in "fc":
        x = x.astype(_f32)
    n = _count(x.shape, axes)
    mean = np.sum(x, axis=axes, keepdims=True) / np.asarray(n, x.dtype)
    d = x - mean
    ss = np.sum(d * d, axis=axes, keepdims=keep_dims)
    # NumPy's convention: with ddof >= n the divisor is 0 (nan or inf, never a negative variance)
    return ss / np.asarray(max(n - ddof, 0), x.dtype)


@register
class CumSum(Primitive):
    """Cumulative sum along `axis` (`exclusive`, `reverse` as MindSpore).  dx = reverse cumsum."""

    amp_auto = "full"
    inputs = ("x", "axis")
    saves = ("axis",)

    def __init__(self, exclusive=False, reverse=False):
        super().__init__()
        self.exclusive, self.reverse = exclusive, reverse

    def forward(self, x, axis):
        axis = normalize_axis(axis, max(x.ndim, 1), self.name)
        if x.ndim == 0:
            return x.copy()
        src = np.flip(x, axis) if self.reverse else x
        out = np.cumsum(src, axis=axis, dtype=np.int64 if x.dtype.kind == "b" else x.dtype)
        if self.exclusive:  # shift by one along axis, zero first
            shifted = np.zeros_like(out)
            lead = (slice(None),) * axis
            shifted[lead + (slice(1, None),)] = out[lead + (slice(None, -1),)]
            out = shifted
        return np.flip(out, axis) if self.reverse else out

    def bprop(self, saved, dout, needs):
        axis = saved[0]
        return CumSum(self.exclusive, not self.reverse)(dout, axis), None


# ================================ matmul ==========================================================

@register
class MatMul(Primitive):
    """2-D op(a) @ op(b), op = transpose when `transpose_a`/`transpose_b`.
    With no transposes: da = dout @ b^T;  db = a^T @ dout."""

    amp_auto = "low"
    inputs = ("a", "b")
    saves = ("a", "b")

    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__()
        self.transpose_a, self.transpose_b = bool(transpose_a), bool(transpose_b)

    def __call__(self, a, b):
        return apply(self, _matmul_operands(self.name, a, b))

    def forward(self, a, b):
        if a.ndim != 2 or b.ndim != 2:
            raise ValueError(f"For '{self.name}', the inputs must be 2-D, but got shapes "
                             f"{a.shape} and {b.shape}")
        return _matmul_nd(self, a, b)

    def bprop(self, saved, dout, needs):
        a, b = saved
        return _matmul_grads(type(self), self.transpose_a, self.transpose_b, a, b, dout, needs)


@register
class BatchMatMul(MatMul):
    """Batched op(a) @ op(b) on the last two dims; batch dims broadcast."""

    amp_auto = "low"
    broadcasts = True

    def forward(self, a, b):
        if a.ndim < 2 or b.ndim < 2:
            raise ValueError(f"For '{self.name}', the inputs must be at least 2-D, but got "
                             f"shapes {a.shape} and {b.shape}")
        return _matmul_nd(self, a, b)


def _matmul_operands(name, a, b):
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError(f"For '{name}', the inputs must be Tensors, but got "
                        f"{type(a).__name__} and {type(b).__name__}")
    if a._data.dtype != b._data.dtype:
        dt = mstype.promote(a._data.dtype, b._data.dtype)
        a, b = cast(a, dt), cast(b, dt)
    return a, b


def _matmul_nd(prim, a, b):
    if prim.transpose_a:
        a = np.swapaxes(a, -1, -2)
    if prim.transpose_b:
        b = np.swapaxes(b, -1, -2)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"For '{prim.name}', the contracted dimensions differ: shapes "
                         f"{a.shape} and {b.shape} (after transposes) cannot be multiplied")
    try:
        return np.matmul(a, b)
    except ValueError:
        raise ValueError(f"For '{prim.name}', the batch dimensions of {a.shape} and {b.shape} "
                         "do not broadcast") from None


_MATMUL_CACHE = {}


def _mm(cls, ta, tb):
    key = (cls, ta, tb)
    p = _MATMUL_CACHE.get(key)
    if p is None:
        p = _MATMUL_CACHE[key] = cls(ta, tb)
    return p


def _matmul_grads(cls, ta, tb, a, b, dout, needs):
    """da, db for out = op_a(a) @ op_b(b), each one matmul with transpose flags, no copies."""
    if not ta and not tb:
        da = _mm(cls, False, True)(dout, b) if needs[0] else None
        db = _mm(cls, True, False)(a, dout) if needs[1] else None
    elif ta and not tb:
        da = _mm(cls, False, True)(b, dout) if needs[0] else None
        db = _mm(cls, False, False)(a, dout) if needs[1] else None
    elif not ta and tb:
        da = _mm(cls, False, False)(dout, b) if needs[0] else None
        db = _mm(cls, True, False)(dout, a) if needs[1] else None
    else:
        da = _mm(cls, True, True)(b, dout) if needs[0] else None
        db = _mm(cls, True, True)(dout, a) if needs[1] else None
    return da, db


# ================================ linear-algebra helpers ==========================================

@register
class SingularValues(Primitive):
    """The singular values of the matrices in the last two axes, descending (for the spectral
    and nuclear norms).  dx = U diag(dout) V^T from x's thin SVD. Only first derivatives: the
    second needs the derivatives of U and V, which this rule does not build, so it refuses to
    run under an outer gradient transform instead of giving a wrong answer."""

    internal = True
    saves = ("x",)

    def forward(self, x):
        if x.ndim < 2:
            raise ValueError(f"For '{self.name}', the input must be at least 2-D, but got shape "
                             f"{x.shape}")
        return np.linalg.svd(x.astype(_f32) if x.dtype.kind not in "fc" else x,
                             compute_uv=False)

    def bprop(self, saved, dout, needs):
        if recording() is not None:
            raise RuntimeError("For 'norm', second derivatives of the spectral and nuclear "
                               "norms (ord=2, -2, 'nuc') are not implemented")
        x = saved[0]._data
        u, _, vt = np.linalg.svd(x, full_matrices=False)
        return (_const(np.matmul(u * dout._data[..., None, :], vt).astype(x.dtype, copy=False)),)


# ================================ internal functional forms (used by bprops and ops) ===============

_ADD, _SUB, _MUL, _DIV = Add(), Sub(), Mul(), RealDiv()
_FLOORDIV, _MOD, _POW = FloorDiv(), FloorMod(), Pow()
_EXP, _LOG, _SQRT, _RSQRT, _SIGN = Exp(), Log(), Sqrt(), Rsqrt(), Sign()
_SIN, _COS, _SINH, _COSH = Sin(), Cos(), Sinh(), Cosh()
_SELECT, _CAST = Select(), Cast()
_tape.use_cast(_CAST)  # for `to_float` cells, whose casts the tape records
_TANH_GRAD, _SIGMOID_GRAD, _PROD_OTHERS = TanhGrad(), SigmoidGrad(), ProdOthers()
_REDUCE_SUM = {False: ReduceSum(False), True: ReduceSum(True)}
_REDUCE_MEAN = {False: ReduceMean(False), True: ReduceMean(True)}


def exp(x):
    return call1(_EXP, x)


def log(x):
    return call1(_LOG, x)


def sqrt(x):
    return call1(_SQRT, x)


def rsqrt(x):
    return call1(_RSQRT, x)


def sign(x):
    return call1(_SIGN, x)


def sin(x):
    return call1(_SIN, x)


def cos(x):
    return call1(_COS, x)


def sinh(x):
    return call1(_SINH, x)


def cosh(x):
    return call1(_COSH, x)


def tanh_grad(y, dy):
    return call2(_TANH_GRAD, y, dy)


def sigmoid_grad(y, dy):
    return call2(_SIGMOID_GRAD, y, dy)


def prod_others(x, axes):
    return apply(_PROD_OTHERS, (x, axes))


def select(condition, x, y):
    return apply(_SELECT, (condition, x, y))


def cast(x, dtype):
    """x cast to a MindSpore or NumPy dtype (no-op when it already has it)."""
    try:
        np_dtype = mstype.to_np(dtype)
    except TypeError as e:
        raise TypeError(f"For 'Cast', the 'dtype' is not a dtype: {e}") from None
    if x._data.dtype == np_dtype:
        return x
    return apply(_CAST, (x, np_dtype))



def reduce_sum(x, axis=None, keep_dims=False):
    return apply(_REDUCE_SUM[keep_dims], (x, () if axis is None else axis))


def reduce_mean(x, axis=None, keep_dims=False):
    return apply(_REDUCE_MEAN[keep_dims], (x, () if axis is None else axis))


def add(x, y):
    return binary(_ADD, x, y)


def mul(x, y):
    return binary(_MUL, x, y)
