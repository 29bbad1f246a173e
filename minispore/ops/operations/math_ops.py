"""Math primitives: elementwise arithmetic and functions, comparisons, select, clip, cast
(reductions are in reduce_ops, matmul in linalg_ops, tanh and sigmoid in nn_ops).

Conventions at kinks and ties (one for the whole library): max/min and maximum/minimum split the
gradient evenly among tied elements; relu'(0) = abs'(0) = sign'(x) = 0; clip passes the gradient
on the closed interval [min, max]; floor, ceil, round, sign and floor division have zero gradient.
"""
import math

import numpy as np

from ..._autodiff import tape as _tape
from ..._autodiff.tape import (_ONE_IDS, NEEDS_TT, apply, binary, call1, const,
                                recorded_copy, wrap)
from ..._quiet import _IGNORE
from ..._quiet import _reset as _quiet_reset
from ..._quiet import _set as _quiet_set
from ...common import dtype as mstype
from ...common.tensor import StorageTensor, Tensor
from ..primitive import Binary, Primitive, Unary, data_function, register
from . import array_ops as A
from ._kernels import LEGACY_PROMOTION, keep_dtype, quiet
from ._kernels import erf as _erf
from ._kernels import erfc as _erfc
from ._kernels import erfinv as _erfinv

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


_conj = None  # fft_ops gives its Conj primitive (use_conj): fft_ops imports this module


def use_conj(prim):
    global _conj
    _conj = prim


def _same(t):
    return t


def _conj_of(t):
    """conj(t) for a complex Tensor, else t. Complex gradients follow MindSpore's convention
    (dL/dRe + i dL/dIm), so the chain rule through a product conjugates the other factor."""
    return apply(_conj, (t,)) if isinstance(t, Tensor) and t._data.dtype.kind == "c" else t


@register
class Mul(Binary):
    """x * y.  dx = dout * y;  dy = dout * x (conj(y), conj(x) for complex values)."""

    saves = ("x", "y")
    saves_for = {0: ("y",), 1: ("x",)}
    forward = staticmethod(np.multiply)

    def bprop(self, saved, dout, needs):
        x, y = saved
        if needs is NEEDS_TT and id(dout._data) in _ONE_IDS and \
                not (_tape._capturing or _tape._casting):
            return _product(dout, y), _product(dout, x)  # two tracked factors by the ones
        if dout._data.dtype.kind == "c":
            x, y = _conj_of(x), _conj_of(y)
        return (dout * y if needs[0] else None), (dout * x if needs[1] else None)


# ---- products with the default sensitivity ------------------------------------------------------
# Nested `grad` multiplies by its ones sensitivity (tape.ones_sensitivity), and every later order
# differentiates those products again: a fourth derivative of sin(x) exp(x) records 24 products
# by one out of 59 nodes. x * 1 is x bit for bit, so such a product is made a MulByOne copy: a
# node of the same inputs and output slot (every later walk adds the same terms in the same
# order, so results keep their bits) at a copy's cost, whose own bprop is again a MulByOne.
# Graph-mode capture keeps the products (its `simplify` pass removes them).

def _is_unit(t, other):
    """Whether Tensor `t` is the shared ones sensitivity, untracked, of `other`'s shape and
    dtype, with `other` C-contiguous: `other * t` is then `other`'s bits in `other`'s layout."""
    if type(t) is not Tensor or id(t._data) not in _ONE_IDS or t._tape is not None or \
            not isinstance(other, Tensor):
        return False
    a, b = t._data, other._data
    return a.shape == b.shape and a.dtype == b.dtype and b.flags.c_contiguous


def _product(ones, v):
    """ones * v for a Mul gradient: a MulByOne copy where that is the product's bits and layout
    (a copy, not v: v is a forward value the caller may hold)."""
    if not _is_unit(ones, v):
        return ones * v
    t = recorded_copy(_MUL_BY_ONE, v)
    return wrap(v._data.copy()) if t is None else t


def _unit_gradient(g):
    """g * 1 for C-contiguous gradient g: a recorded MulByOne where the product would have been
    recorded, else g itself (unrecorded, the product is only a value, and gradients may share
    memory: the engine writes only into buffers it made)."""
    t = recorded_copy(_MUL_BY_ONE, g)
    return g if t is None else t


@register
class MulByOne(Unary):
    """x * ones(x.shape, x.dtype) for floating-point C-contiguous x: a copy of x (the product's
    bits and layout). Made by the Mul bprop in place of products by the default sensitivity.
    dx = dout * 1: again a MulByOne."""

    internal = True

    def forward(self, x):
        return x.copy()

    def bprop(self, saved, dout, needs):
        d = dout._data
        if d.flags.c_contiguous and not (_tape._capturing or _tape._casting):
            return (_unit_gradient(dout),)
        return (dout * _tape.ones_sensitivity(d.shape, d.dtype),)


_MUL_BY_ONE = MulByOne()


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
    saves_for = {0: ("y",), 1: ("y", "out")}

    def forward(self, x, y):
        return quiet(_true_divide, x, y)

    def bprop(self, saved, dout, needs):
        y, out = saved
        if dout._data.dtype.kind == "c":
            y, out = _conj_of(y), _conj_of(out)
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
        conj = _conj_of if dout._data.dtype.kind == "c" else _same
        dx = dy = None
        if needs[0]:
            dx = dout * conj(y * x ** (y - 1))
        if needs[1]:
            if isinstance(x, Tensor):
                dy = dout * conj(out * log(select(x == 0, 1.0, x)))
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


def _in_dtype(v, dt):
    """Operand `v` (a Tensor or a Python scalar) as a Tensor a DataFunction can take, its data in
    the result dtype `dt` as the forward computed it (scalars became 0-d arrays of `dt`)."""
    return v if isinstance(v, Tensor) else const(np.asarray(v, dt))


def _tie_weights_of(a, b, dt):
    a, b = np.broadcast_arrays(a.astype(dt, copy=False), b.astype(dt, copy=False))
    w = np.array(a > b, dt)  # an array even for 0-d operands
    w[a == b] = 0.5
    return w


def _tie_weights(x, y, dt):
    """Weights of x in max(x, y): 1 where x wins, 0.5 on ties, 0 where y wins; a DataFunction
    node, so a graph-mode replay computes them from the new data."""
    return data_function(_tie_weights_of, _in_dtype(x, dt), _in_dtype(y, dt), static=(dt,))


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

    if LEGACY_PROMOTION:  # perf: NumPy 2 pays nothing for NumPy 1.x's 0-d promotion
        def forward(self, x):
            x = _float_input(self.name, x)
            return keep_dtype(quiet(self.kernel, x), x.dtype)
    else:
        def forward(self, x):  # perf: `quiet` inlined; the name looked up only for ints
            if x.dtype.kind not in "fc":
                x = _float_input(self.name, x)
            token = _quiet_set(_IGNORE)
            try:
                return self.kernel(x)
            finally:
                _quiet_reset(token)


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
    """|x|.  dx = dout * sign(x) (0 at 0); for complex x, dout * x / |x| (0 at 0)."""

    saves = ("x",)
    forward = staticmethod(np.abs)

    def bprop(self, saved, dout, needs):
        x = saved[0]
        if x._data.dtype.kind == "c":
            r = apply(self, (x,))
            return (cast(dout, x._data.dtype) * x / select(r == 0, r + 1, r),)  # x = 0 there
        return (dout * sign(x),)


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
        dt = dout._data.dtype
        bounds = [_in_dtype(b, dt) for b in (lo, hi) if b is not None]
        inside, below, above = data_function(_clip_masks, x, *bounds,
                                             static=(lo is not None, hi is not None, dt))
        return (dout * inside if needs[0] else None, dout * below if needs[1] else None,
                dout * above if needs[2] else None)


def _clip_masks(x, *rest):
    """(inside, below, above) as 0/1 arrays of dtype dt, for ClipByValue's gradients."""
    *bounds, has_lo, has_hi, dt = rest
    bounds = iter(bounds)
    below = x < next(bounds) if has_lo else np.zeros(x.shape, bool)
    above = x > next(bounds) if has_hi else np.zeros(x.shape, bool)
    return (~(below | above)).astype(dt), below.astype(dt), above.astype(dt)


@register
class Cast(Primitive):
    """x cast to `dtype` (float to int truncates).  dx = Cast(dout, x.dtype); no gradient into
    integer or bool results."""

    keeps_inputs = True
    inputs = ("x", "dtype")
    saves = ("x.dtype",)

    def forward(self, x, dtype):
        to = mstype.to_np(dtype)
        if x.dtype.kind == "c" and to.kind != "c":
            x = x.real  # the real part, as MindSpore's Cast (without NumPy's ComplexWarning)
        return x.astype(to)

    def bprop(self, saved, dout, needs):
        return cast(dout, saved[0]), None


# ================================ internal functional forms (used by bprops and ops) ===============

_ADD, _SUB, _MUL, _DIV = Add(), Sub(), Mul(), RealDiv()
_FLOORDIV, _MOD, _POW = FloorDiv(), FloorMod(), Pow()
_EXP, _LOG, _SQRT, _RSQRT, _SIGN = Exp(), Log(), Sqrt(), Rsqrt(), Sign()
_SIN, _COS, _SINH, _COSH = Sin(), Cos(), Sinh(), Cosh()
_SELECT, _CAST = Select(), Cast()
_tape.use_cast(_CAST)  # for `to_float` cells, whose casts the tape records


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




def select(condition, x, y):
    return apply(_SELECT, (condition, x, y))


def cast(x, dtype):
    """x cast to a MindSpore or NumPy dtype (no-op when it already has it). A conversion to or
    from a storage-only dtype (float8) is a copy without gradient."""
    try:
        np_dtype = mstype.to_np(dtype)
    except TypeError as e:
        if mstype.storage_np(dtype) is not None:
            return Tensor(x, dtype)
        raise TypeError(f"For 'Cast', the 'dtype' is not a dtype: {e}") from None
    if type(x) is StorageTensor:
        return Tensor(x, dtype)
    if x._data.dtype == np_dtype:
        return x
    return apply(_CAST, (x, np_dtype))





def add(x, y):
    return binary(_ADD, x, y)


def mul(x, y):
    return binary(_MUL, x, y)
