"""Functional tensor creation: `ones`, `zeros`, `full`, `fill`, their `_like` forms, `arange`,
`range`, `eye`, `linspace`, `logspace`, `scalar_to_tensor`, `tuple_to_array`, and
the creation classes of MindSpore's names (`Range`, `LinSpace`, `LogSpace`, `FillV2`, ...)."""
import builtins

import numpy as np

from ..._autodiff.tape import const, wrap
from ..._validator import check_int, check_non_negative_int, check_number, check_type
from ...common import dtype as mstype
from ...common.tensor import Tensor, _to_array
from ..operations import array_ops as A
from ..primitive import Primitive
from ._checks import _tensor

__all__ = [
    "tensor_range","ones", "zeros", "ones_like", "zeros_like", "full", "full_like", "fill", "arange",
           "eye", "linspace", "scalar_to_tensor", "tuple_to_array", "range", "logspace",
           "scalar_to_array"]


def _shape_arg(shape, op):
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    shape = A._check_shape(shape, op)
    if builtins.any(d < 0 for d in shape):
        raise ValueError(f"For '{op}', the shape must not have negative sizes, but got {shape}")
    return shape


def _dtype_arg(dtype, default=np.float32):
    return np.dtype(default) if dtype is None else mstype.to_np(dtype)


def ones(shape, dtype=None):
    """A tensor of ones (float32 by default)."""
    return const(np.ones(_shape_arg(shape, "ones"), _dtype_arg(dtype)))


def zeros(size, dtype=None):
    """A tensor of zeros (float32 by default)."""
    return const(np.zeros(_shape_arg(size, "zeros"), _dtype_arg(dtype)))


def ones_like(input, *, dtype=None):
    """Ones of input's shape (and dtype, unless `dtype`)."""
    _tensor(input, "ones_like")
    return const(np.ones(input._data.shape, _dtype_arg(dtype, input._data.dtype)))


def zeros_like(input, *, dtype=None):
    """Zeros of input's shape (and dtype, unless `dtype`)."""
    _tensor(input, "zeros_like")
    return const(np.zeros(input._data.shape, _dtype_arg(dtype, input._data.dtype)))


def _fill_dtype(fill_value, op):
    """Default dtype of a fill: MindSpore 2.10 truncates float fills to int64 (a bug); here a
    float fill gives float32, an int int64, a bool bool, a Tensor its dtype."""
    if isinstance(fill_value, Tensor):
        return fill_value._data.dtype
    if isinstance(fill_value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(fill_value, (int, np.integer)):
        return np.dtype(np.int64)
    if isinstance(fill_value, (float, np.floating)):
        return np.dtype(np.float32)
    raise TypeError(f"For '{op}', 'fill_value' must be a number or a Tensor, but got "
                    f"{type(fill_value).__name__}")


def _fill_value(fill_value, op):
    if isinstance(fill_value, Tensor):
        if fill_value._data.size != 1:
            raise ValueError(f"For '{op}', a Tensor 'fill_value' must have one element, but got "
                             f"shape {fill_value.shape}")
        return fill_value._data.reshape(())
    return fill_value


def full(size, fill_value, *, dtype=None):
    """A tensor of shape `size` filled with `fill_value` (dtype: int64 for ints, float32 for
    floats, bool for bools, unless `dtype`)."""
    dt = _fill_dtype(fill_value, "full") if dtype is None else mstype.to_np(dtype)
    return wrap(np.full(_shape_arg(size, "full"), _fill_value(fill_value, "full"), dt))


def full_like(input, fill_value, *, dtype=None):
    """A tensor of input's shape (and dtype, unless `dtype`) filled with `fill_value`."""
    _tensor(input, "full_like")
    _fill_dtype(fill_value, "full_like")
    dt = input._data.dtype if dtype is None else mstype.to_np(dtype)
    return wrap(np.full(input._data.shape, _fill_value(fill_value, "full_like"), dt))


def fill(type, shape, value):
    """A tensor of `shape` and dtype `type` filled with `value` (MindSpore's older `full`)."""
    return full(shape, value, dtype=type)


def _number(v, op, arg):
    if isinstance(v, Tensor):
        if v._data.size != 1:
            raise ValueError(f"For '{op}', '{arg}' must be a number or a one-element Tensor, but "
                             f"got shape {v.shape}")
        return v._data.reshape(()).item()
    return check_number(v, arg, op)


def arange(start=0, end=None, step=1, *, dtype=None):
    """Values in [start, end) by `step`: int64 when all arguments are ints, float32 otherwise
    (unless `dtype`). `arange(n)` counts from 0."""
    if end is None:
        start, end = 0, start
    vals = [_number(v, "arange", k) for k, v in (("start", start), ("end", end), ("step", step))]
    if vals[2] == 0:
        raise ValueError("For 'arange', 'step' must not be 0")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise ValueError(f"For 'arange', 'end' {vals[1]} cannot be reached from 'start' "
                         f"{vals[0]} with step {vals[2]}")
    ints = builtins.all(isinstance(v, int) for v in vals)
    dt = _dtype_arg(dtype, np.int64 if ints else np.float32)
    return wrap(np.arange(*vals).astype(dt))


def eye(n, m=None, dtype=None):
    """An n x m identity matrix (float32 by default; m defaults to n)."""
    for arg, v in (("n", n), ("m", m)):
        if v is not None:
            check_non_negative_int(v, arg, "eye")
    return wrap(np.eye(n, m, dtype=_dtype_arg(dtype)))


def linspace(start, end, steps):
    """`steps` evenly spaced values from start to end inclusive: float32, or the dtype of a
    floating-point Tensor `start`."""
    vals = [_number(v, "linspace", k) for k, v in (("start", start), ("end", end))]
    steps = check_non_negative_int(steps, "steps", "linspace")
    dt = np.float32
    if isinstance(start, Tensor) and start._data.dtype.kind == "f":
        dt = start._data.dtype
    return wrap(np.linspace(vals[0], vals[1], steps).astype(dt))


def scalar_to_tensor(input_x, dtype=mstype.float32):
    """A 0-d Tensor of the number (or bool) `input_x` (float32 by default)."""
    if isinstance(input_x, (bool, np.bool_)):
        return wrap(np.asarray(input_x, mstype.to_np(dtype)))
    return wrap(np.asarray(_number(input_x, "scalar_to_tensor", "input_x"), mstype.to_np(dtype)))


def tuple_to_array(input_x):
    """A 1-D Tensor of a tuple of numbers (int32 for ints, as MindSpore; float32 with any
    float)."""
    check_type(input_x, (tuple, list), "input_x", "tuple_to_array", "a tuple")
    out = _to_array(tuple(input_x), None)
    return wrap(out.astype(np.int32) if out.dtype == np.int64 else out)


def _scalar_of(v, op, arg):
    """(value, numpy dtype or None) of a number or a one-element Tensor."""
    if isinstance(v, Tensor):
        if v._data.size != 1:
            raise ValueError(f"For '{op}', '{arg}' must be a number or a one-element Tensor, but "
                             f"got shape {v.shape}")
        return v._data.reshape(()).item(), v._data.dtype
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"For '{op}', '{arg}' must be a number or a Tensor, but got "
                        f"{type(v).__name__}")
    return v, None


def range(start, end, step, maxlen=1000000):
    """Values from `start` towards `end` (exclusive) by `step`: int64 when all three are
    integers, float32 when all are floating (mixing the two is a TypeError, as MindSpore)."""
    vals = [_scalar_of(v, "range", k) for k, v in (("start", start), ("end", end),
                                                    ("step", step))]
    check_int(maxlen, "maxlen", "range")
    if maxlen <= 0:
        raise ValueError(f"For 'range', 'maxlen' must be positive, but got {maxlen}")
    kinds = {("f" if (dt is not None and dt.kind == "f") or isinstance(v, (float, np.floating))
              else "i") for v, dt in vals}
    if len(kinds) > 1:
        raise TypeError(f"For 'range', 'start', 'end' and 'step' must all be integers or all "
                        f"floating-point, but got {[type(v).__name__ for v, _ in vals]}")
    (a, _), (b, _), (d, _) = vals
    if d == 0:
        raise ValueError("For 'range', 'step' must not be 0")
    if (b - a) * d < 0:
        raise ValueError(f"For 'range', 'end' {b} cannot be reached from 'start' {a} with "
                         f"step {d}")
    dt = np.int64 if kinds == {"i"} else np.float32
    return wrap(np.arange(a, b, d).astype(dt))


def _float_scalar(v, op, arg):
    value, dt = _scalar_of(v, op, arg)
    if dt is not None and dt.kind != "f":
        raise TypeError(f"For '{op}', '{arg}' must be a floating-point Tensor, but got "
                        f"{mstype.from_np(dt)}")
    return value, dt


def logspace(start, end, steps, base=10, *, dtype=mstype.float32):
    """`steps` values base ** t for t evenly spaced from start to end inclusive (a
    floating-point dtype, float32 by default)."""
    (a, _), (b, _) = _float_scalar(start, "logspace", "start"), _float_scalar(end, "logspace",
                                                                              "end")
    steps = check_non_negative_int(steps, "steps", "logspace")
    base = check_int(base, "base", "logspace")
    if base < 0:
        raise ValueError(f"For 'logspace', 'base' must be non-negative, but got {base}")
    dt = mstype.to_np(dtype)
    if dt.kind != "f":
        raise TypeError(f"For 'logspace', 'dtype' must be float16, float32 or float64, but got "
                        f"{dtype}")
    with np.errstate(divide="ignore"):
        return wrap(np.power(float(base), np.linspace(a, b, steps)).astype(dt))


def scalar_to_array(input_x):
    """A 0-D Tensor of the number `input_x` (int64 for an int, float32 for a float, bool for a
    bool)."""
    if isinstance(input_x, (bool, np.bool_)):
        return wrap(np.asarray(bool(input_x)))
    if isinstance(input_x, (int, np.integer)):
        return wrap(np.asarray(input_x, np.int64))
    if isinstance(input_x, (float, np.floating)):
        return wrap(np.asarray(input_x, np.float32))
    raise TypeError(f"For 'scalar_to_array', 'input_x' must be a number, but got "
                    f"{type(input_x).__name__}")


# ---- the creation classes of MindSpore's names -----------------------------------------------------

class Range(Primitive):
    """`Range(maxlen=1000000)(start, end, step)`: `range(start, end, step, maxlen)`."""

    def __init__(self, maxlen=1000000):
        super().__init__()
        check_int(maxlen, "maxlen", "Range")
        if maxlen <= 0:
            raise ValueError(f"For 'Range', 'maxlen' must be positive, but got {maxlen}")
        self.maxlen = maxlen

    def __call__(self, start, end, step):
        return range(start, end, step, self.maxlen)


class _NoAttrs(Primitive):
    """A creation class configured by nothing: MindSpore's `__init__(self)`."""

    def __init__(self):
        super().__init__()


class LinSpace(_NoAttrs):
    """`LinSpace()(start, stop, num)`: `num` evenly spaced values from start to stop inclusive,
    in the floating dtype of the Tensor `start`."""

    def __call__(self, start, stop, num):
        (a, dt), (b, _) = _float_scalar(start, "LinSpace", "start"), _float_scalar(
            stop, "LinSpace", "stop")
        if isinstance(num, Tensor):
            num = num._data.reshape(()).item()
        num = check_int(num, "num", "LinSpace")
        if num <= 0:
            raise ValueError(f"For 'LinSpace', 'num' must be positive, but got {num}")
        return wrap(np.linspace(a, b, num).astype(dt or np.float32))


class LogSpace(Primitive):
    """`LogSpace(steps=10, base=10, dtype=float32)(start, end)`: `logspace(start, end, steps,
    base, dtype=dtype)`."""

    def __init__(self, steps=10, base=10, dtype=mstype.float32):
        super().__init__()
        self.steps = check_non_negative_int(steps, "steps", "LogSpace")
        self.base = check_int(base, "base", "LogSpace")
        if self.base < 0:
            raise ValueError(f"For 'LogSpace', the 'base' must be non-negative, but got {base}")
        self.dtype = dtype

    def __call__(self, start, end):
        for arg, v in (("start", start), ("end", end)):
            _tensor(v, "LogSpace", arg)
        return logspace(start, end, self.steps, self.base, dtype=self.dtype)


class FillV2(_NoAttrs):
    """`FillV2()(shape, value)`: a Tensor of `shape` (a tuple or an integer Tensor) filled with
    the one-element Tensor `value`, in its dtype."""

    def __call__(self, shape, value):
        _tensor(value, "FillV2", "value")
        return full(shape, value)


class TupleToArray(_NoAttrs):
    """`TupleToArray()(input_x)`: `tuple_to_array`."""

    def __call__(self, input_x):
        check_type(input_x, tuple, "input_x", "TupleToArray", "a tuple")
        return tuple_to_array(input_x)


class ScalarToArray(_NoAttrs):
    """`ScalarToArray()(input_x)`: `scalar_to_array`."""

    def __call__(self, input_x):
        return scalar_to_array(input_x)


class ScalarToTensor(_NoAttrs):
    """`ScalarToTensor()(input_x, dtype=float32)`: `scalar_to_tensor`."""

    def __call__(self, input_x, dtype=mstype.float32):
        return scalar_to_tensor(input_x, dtype)


PRIMITIVE_CLASSES = ("Range", "LinSpace", "LogSpace", "FillV2", "TupleToArray", "ScalarToArray",
                     "ScalarToTensor")


def tensor_range(start, end, step):
    """[start, end) by `step`, MindSpore's functional name of `Range`."""
    return Range()(start, end, step)
