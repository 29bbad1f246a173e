"""More MindSpore 2.10 `nn` cells built from minispore ops (gradients come free): Threshold,
SoftShrink, HShrink, Softmax2d, Roll, Tril, Triu, OneHot, Range, Norm, Moments, ClipByNorm,
RReLU, and the CosineSimilarity metric (MindSpore 2.10 exports that name from `nn` as a metric)."""
import numpy as np

from ..._autodiff.tape import apply, const
from ..._validator import (
    check_bool,
    check_int,
    check_non_negative_int,
    check_type,
    type_name,
)
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...ops.function import array_func as AF
from ...ops.function import math_func as F
from ...ops.function import nn_func as NF
from ...ops.operations import math_ops as M
from ...ops.operations import random_ops as RO
from ...ops.primitive import data_function, shared
from ..cell import Cell

__all__ = [
    "ClipByNorm",
    "HShrink",
    "Moments",
    "Norm",
    "OneHot",
    "RReLU",
    "Range",
    "Roll",
    "SoftShrink",
    "Softmax2d",
    "Threshold",
    "Tril",
    "Triu",
]


def _is_number(v):
    return isinstance(v, (int, float, np.integer, np.floating))


def _check_number(value, arg, owner):
    """MindSpore's check_value_type(value, [bool, int, float]): a TypeError otherwise."""
    if not _is_number(value):
        raise TypeError(f"For '{owner}', the '{arg}' must be a bool, int or float, but got "
                        f"{type_name(value)}")
    return value


def _check_float_input(x, owner, arg="x"):
    """A TypeError unless `x` is a float Tensor (MindSpore takes float16/float32; float64 is
    accepted too, for gradient checks)."""
    check_type(x, Tensor, arg, owner)
    if x._data.dtype.kind != "f":
        raise TypeError(f"For '{owner}', the '{arg}' must be a float Tensor, but got {x.dtype}")
    return x


def _check_axes(axis, arg, owner, types=(int, tuple, list), expected="an int, tuple or list"):
    """`axis` as given; a TypeError unless it is one of `types` holding ints only."""
    if isinstance(axis, bool) or not isinstance(axis, types):
        raise TypeError(f"For '{owner}', the '{arg}' must be {expected}, but got "
                        f"{type_name(axis)}")
    if isinstance(axis, (tuple, list)):
        for i, a in enumerate(axis):
            check_int(a, f"{arg}[{i}]", owner)
    return axis


def _reduce_axes(axis):
    """minispore's reduction axis for MindSpore's `axis` (() or None: every axis)."""
    if axis is None or (isinstance(axis, (tuple, list)) and len(axis) == 0):
        return None
    return tuple(axis) if isinstance(axis, (tuple, list)) else axis


def _abs_greater(a, bound):
    return np.abs(a) > bound


def _const(value, dtype):
    return const(np.asarray(value, dtype))


class Threshold(Cell):
    """x where x > threshold, else value."""

    def __init__(self, threshold, value):
        super().__init__()
        if not _is_number(threshold) or isinstance(threshold, bool):
            raise TypeError(f"For 'Threshold', the 'threshold' must be a float or int, but got "
                            f"{type_name(threshold)}")
        if not _is_number(value) or isinstance(value, bool):
            raise TypeError(f"For 'Threshold', the 'value' must be a float or int, but got "
                            f"{type_name(value)}")
        self.threshold, self.value = threshold, value

    def construct(self, input_x):
        check_type(input_x, Tensor, "input_x", "Threshold")
        dt = input_x._data.dtype
        return AF.where(data_function(np.greater, input_x, static=(self.threshold,)), input_x, _const(self.value, dt))

    def extend_repr(self):
        return f"threshold={self.threshold}, value={self.value}"


class SoftShrink(Cell):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        _check_number(lambd, "lambd", "SoftShrink")
        if lambd < 0:
            # MindSpore's kernel reports this as a RuntimeError.
            raise RuntimeError(f"For 'SoftShrink', the 'lambd' must be >= 0, but got {lambd}")
        self.lambd = float(lambd)

    def construct(self, input):
        _check_float_input(input, "SoftShrink", "input")
        dt = input._data.dtype
        lam = _const(self.lambd, dt)
        zero = _const(0, dt)
        inner = AF.where(data_function(np.less, input, static=(-self.lambd,)), input + lam, zero)
        return AF.where(data_function(np.greater, input, static=(self.lambd,)), input - lam, inner)

    def extend_repr(self):
        return f"lambd={self.lambd}"


class HShrink(Cell):
    """x where |x| > lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = float(_check_number(lambd, "lambd", "HShrink"))

    def construct(self, input):
        _check_float_input(input, "HShrink", "input")
        a = input._data
        return AF.where(data_function(_abs_greater, input, static=(self.lambd,)), input,
                        _const(0, a.dtype))

    def extend_repr(self):
        return f"lambd={self.lambd}"


class Softmax2d(Cell):
    """Softmax over the channel axis of a (C, H, W) or (N, C, H, W) input."""

    def __init__(self):
        super().__init__()

    def construct(self, x):
        check_type(x, Tensor, "x", "Softmax2d")
        if x.ndim not in (3, 4):
            raise ValueError(f"For 'Softmax2d', the in_shape must have 3 or 4 dims, but got "
                             f"{x.ndim}")
        return NF.softmax(x, -3)


class Roll(Cell):
    """Elements shifted by `shift` along `axis` (ints, or tuples/lists of the same length);
    elements leaving one end come back at the other."""

    def __init__(self, shift, axis):
        super().__init__()
        _check_axes(shift, "shift", "Roll")
        _check_axes(axis, "axis", "Roll")
        shifts = [int(shift)] if isinstance(shift, int) else [int(s) for s in shift]
        axes = [int(axis)] if isinstance(axis, int) else [int(a) for a in axis]
        if len(shifts) != len(axes):
            raise ValueError(f"For 'Roll', the shape of 'shift' and the shape of 'axis' must be "
                             f"the same, but got the length of 'shift' {len(shifts)} and the "
                             f"length of 'axis' {len(axes)}")
        self.shift, self.axis = shifts, axes

    def construct(self, input_x):
        check_type(input_x, Tensor, "input_x", "Roll")
        n = input_x.ndim
        for a in self.axis:
            if not -n <= a < n:
                raise ValueError(f"For 'Roll', the 'axis' must be in range of [{-n}, {n}), but "
                                 f"got {a}")
        return AF.roll(input_x, self.shift, [a % n for a in self.axis])

    def extend_repr(self):
        return f"shift={self.shift}, axis={self.axis}"


def _check_k(k, op):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"For '{op}', the 'k' must be an int, but got {type_name(k)}")
    return int(k)


class Tril(Cell):
    """The lower triangle of the last two axes of x (entries above diagonal `k` zeroed)."""

    def __init__(self):
        super().__init__()

    def construct(self, x, k=0):
        check_type(x, Tensor, "x", "Tril")
        return AF.tril(x, _check_k(k, "Tril"))


class Triu(Cell):
    """The upper triangle of the last two axes of x (entries below diagonal `k` zeroed)."""

    def __init__(self):
        super().__init__()

    def construct(self, x, k=0):
        check_type(x, Tensor, "x", "Triu")
        return AF.triu(x, _check_k(k, "Triu"))


class OneHot(Cell):
    """One-hot encoding of int32/int64 `indices` along a new `axis` of size `depth`, with
    `on_value` at the index and `off_value` elsewhere, in `dtype` (an index outside
    [0, depth) gives all `off_value`)."""

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=mstype.float32):
        super().__init__()
        self.axis = check_int(axis, "axis", "OneHot")
        self.depth = check_non_negative_int(depth, "depth", "OneHot")
        _check_number(on_value, "on_value", "OneHot")
        _check_number(off_value, "off_value", "OneHot")
        self.on_value, self.off_value, self.dtype = on_value, off_value, dtype

    def construct(self, indices):
        check_type(indices, Tensor, "indices", "OneHot")
        if indices._data.dtype not in (np.int32, np.int64):
            raise TypeError(f"For 'OneHot', the 'indices' must be a Tensor of int32 or int64, "
                            f"but got {indices.dtype}")
        if not -1 <= self.axis <= indices.ndim:
            raise ValueError(f"For 'OneHot', the 'axis' must be in [-1, {indices.ndim}], but got "
                             f"{self.axis}")
        dt = mstype.to_np(self.dtype)
        out = NF.one_hot(indices, self.depth, _const(self.on_value, dt),
                         _const(self.off_value, dt), -1)
        if self.axis != -1:
            out = AF.movedim(out, -1, self.axis)
        return out

    def extend_repr(self):
        return (f"axis={self.axis}, depth={self.depth}, on_value={self.on_value}, "
                f"off_value={self.off_value}, dtype={self.dtype}")


class Range(Cell):
    """The constant Tensor np.arange(start, limit, delta): float32 when any bound is a float,
    else int32 (computed once, in the constructor)."""

    def __init__(self, start, limit=None, delta=1):
        super().__init__()
        if _is_number(delta) and delta == 0:
            raise ValueError("For 'Range', the 'delta' can not be zero.")
        for arg, v in (("start", start), ("limit", limit), ("delta", delta)):
            if v is not None and not _is_number(v):
                raise TypeError(f"For 'Range', the '{arg}' must be an int or float, but got "
                                f"{type_name(v)}")
        data = np.arange(start, limit, delta)
        self.result_tensor = Tensor(data.astype(np.float32 if data.dtype.kind == "f"
                                                else np.int32))

    def construct(self):
        return AF.identity(self.result_tensor)  # a new Tensor at each call, as an op gives


class Norm(Cell):
    """sqrt(sum(x ** 2)) over `axis` (() for every axis)."""

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        self.keep_dims = check_bool(keep_dims, "keep_dims", "Norm")
        self.axis = _check_axes(axis, "axis", "Norm")

    def construct(self, x):
        _check_float_input(x, "Norm")
        return F.sqrt(F.sum(F.square(x), _reduce_axes(self.axis), self.keep_dims))

    def extend_repr(self):
        return f"axis={self.axis}, keep_dims={self.keep_dims}"


class Moments(Cell):
    """(mean, variance) of x over `axis` (None: every axis); float16 is computed in float32.

    MindSpore stops the gradient through the mean inside the variance; that changes no first
    derivative (the mean's term sums to zero) but gives wrong second ones, so it is left out."""

    def __init__(self, axis=None, keep_dims=None):
        super().__init__()
        if axis is None:
            axis = ()
        self.axis = _check_axes(axis, "axis", "Moments", (int, tuple), "an int or tuple")
        self.keep_dims = False if keep_dims is None else check_bool(keep_dims, "keep_dims",
                                                                    "Moments")

    def construct(self, x):
        _check_float_input(x, "Moments")
        half = x._data.dtype == np.float16
        if half:
            x = M.cast(x, mstype.float32)
        axes = _reduce_axes(self.axis)
        mean = F.mean(x, axes, True)
        var = F.mean(F.square(x - mean), axes, self.keep_dims)
        if not self.keep_dims:
            mean = AF.reshape(mean, var.shape)
        if half:
            mean, var = M.cast(mean, mstype.float16), M.cast(var, mstype.float16)
        return mean, var

    def extend_repr(self):
        return f"axis={self.axis}, keep_dims={self.keep_dims}"


class ClipByNorm(Cell):
    """x * clip_norm / max(||x||_2, clip_norm), the L2 norm taken over `axis` (None: all axes)
    and kept for broadcasting; float16 input gives float32 (as MindSpore).

    MindSpore 2.10's CPU kernel rescales only the first slice correctly when `axis` is set;
    this follows the documented formula for every slice."""

    def __init__(self, axis=None):
        super().__init__()
        if axis is not None:
            _check_axes(axis, "axis", "ClipByNorm", expected="None, an int, tuple or list")
        self.axis = axis

    def construct(self, x, clip_norm):
        _check_float_input(x, "ClipByNorm")
        if not isinstance(clip_norm, Tensor):
            raise TypeError(f"For 'ClipByNorm', the 'clip_norm' must be a Tensor, but got "
                            f"{type_name(clip_norm)}")
        if x._data.dtype == np.float16:
            x = M.cast(x, mstype.float32)
        dt = x._data.dtype
        clip_norm = M.cast(clip_norm, mstype.from_np(dt))
        sq = F.sum(F.square(x), _reduce_axes(self.axis), True)
        # sqrt only where positive, so an all-zero slice has a finite (zero) gradient
        pos = data_function(np.greater, sq, static=(0,))
        one = _const(1, dt)
        l2 = AF.where(pos, F.sqrt(AF.where(pos, sq, one)), _const(0, dt))
        return x * clip_norm / F.maximum(l2, clip_norm)

    def extend_repr(self):
        return f"axis={self.axis}"


class RReLU(Cell):
    """x where x >= 0, else a * x with a slope a ~ U(lower, upper) drawn per element from the
    framework generator (so `set_seed` repeats it) in training mode, and the mean slope
    (lower + upper) / 2 in eval mode.

    MindSpore 2.10's nn.RReLU draws random slopes in both modes; the eval-mode mean slope here
    (PyTorch's RReLU behaviour) makes evaluation deterministic."""

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        for arg, v in (("upper", upper), ("lower", lower)):
            if isinstance(v, bool) or not _is_number(v):
                raise TypeError(f"For 'RReLU', the '{arg}' must be a float or int, but got "
                                f"{type_name(v)}")
        if lower > upper:
            raise ValueError(f"For RReLU, the value of 'upper' must be greater than or equal to "
                             f"'lower', but got upper: {upper}, lower: {lower}. ")
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'rrelu', the input must be a Tensor, but got {type(x)}.")
        _check_float_input(x, "RReLU")
        a = x._data
        if self.training:
            # a random node: a graph-mode replay draws new slopes, as eager does
            slope = apply(shared(RO.UniformDraw, a.shape, a.dtype, self.lower, self.upper), ())
        else:
            slope = _const((self.lower + self.upper) / 2, a.dtype)
        return AF.where(data_function(np.greater_equal, x, static=(0,)), x, x * slope)

    def extend_repr(self):
        return f"lower={self.lower}, upper={self.upper}"
