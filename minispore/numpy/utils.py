"""Conversions and checks shared by the `minispore.numpy` modules (MindSpore's array-like rules:
a Python int is int32, a float float32, nested lists become int32/float32/bool Tensors)."""
import numpy as np

from .. import ops
from ..common import dtype as mstype
from ..common.tensor import Tensor
from .dtypes import _as_dtype

_NARROW = {np.dtype(np.int64): np.int32, np.dtype(np.float64): np.float32}
_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


def _array_from(obj):
    """An ndarray of a Python scalar or a nested list/tuple, with MindSpore's default dtypes."""
    arr = np.asarray(obj)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"For 'mindspore.numpy', the input must be array like (numbers, lists, "
                        f"tuples or Tensors), but got {type(obj).__name__}")
    if isinstance(obj, (np.ndarray, np.generic)):
        return arr
    return arr.astype(_NARROW.get(arr.dtype, arr.dtype))


def _has_tensor(obj):
    return isinstance(obj, Tensor) or (isinstance(obj, (list, tuple)) and
                                       any(_has_tensor(o) for o in obj))


def _to_tensor(obj, dtype=None):
    """`obj` as a Tensor (the same Tensor when it is one), cast to `dtype` when given."""
    if isinstance(obj, Tensor):
        t = obj
    elif isinstance(obj, (list, tuple)) and _has_tensor(obj):
        parts = [_to_tensor(o) for o in obj]
        if not parts:
            t = Tensor(np.zeros(0, np.float32))
        else:
            dt = parts[0].dtype
            for p in parts[1:]:
                dt = _promote(dt, p.dtype)
            t = ops.stack([_cast(p, dt) for p in parts])
    elif obj is None:
        raise TypeError("For 'mindspore.numpy', the input must be array like, but got None")
    else:
        t = Tensor(_array_from(obj))
    return t if dtype is None else _cast(t, _as_dtype(dtype))


def _to_tensors(*objs):
    return [_to_tensor(o) for o in objs]


def _promote(d1, d2):
    return mstype.from_np(mstype.promote(mstype.to_np(d1), mstype.to_np(d2)))


def _cast(t, dtype):
    return t if dtype is None or t.dtype == dtype else ops.cast(t, dtype)


def _out(t, dtype):
    """The result, cast to the `dtype` argument when one is given."""
    return t if dtype is None else _cast(t, _as_dtype(dtype))


def _is_float(t):
    return mstype.to_np(t.dtype).kind == "f"


def _is_int(t):
    return mstype.to_np(t.dtype).kind in "iu"


def _is_bool(t):
    return t.dtype == mstype.bool_


def _to_float(t, dtype=mstype.float32):
    """A Tensor of a floating dtype: integer and bool Tensors become float32."""
    return t if _is_float(t) else ops.cast(t, dtype)


def _operands(x1, x2):
    """Both operands as Tensors: two Tensors are cast to their promoted dtype; a Python scalar
    becomes a 0-d Tensor of the other operand's dtype, or of float32 (int32) when it is a float
    (int) beside an integer (bool) Tensor, so it never widens the Tensor (MindSpore's rule)."""
    s1, s2 = isinstance(x1, _SCALARS), isinstance(x2, _SCALARS)
    if s1 and not s2:
        t2 = _to_tensor(x2)
        return _scalar_like(x1, t2.dtype), t2
    if s2 and not s1:
        t1 = _to_tensor(x1)
        return t1, _scalar_like(x2, t1.dtype)
    t1, t2 = _to_tensor(x1), _to_tensor(x2)
    dt = _promote(t1.dtype, t2.dtype)
    return _cast(t1, dt), _cast(t2, dt)


def _scalar_like(value, dtype):
    kind = mstype.to_np(dtype).kind
    if isinstance(value, (bool, np.bool_)):
        rank = 0
    elif isinstance(value, (int, np.integer)):
        rank = 1
    else:
        rank = 2
    own = {"b": 0, "u": 1, "i": 1, "f": 2}[kind]
    if rank > own:
        dtype = mstype.float32 if rank == 2 else mstype.int32
    return Tensor(np.asarray(value, dtype=mstype.to_np(dtype)))


def _shape_of(shape, name):
    """A shape tuple from an int, a list/tuple of ints or an int Tensor."""
    if isinstance(shape, Tensor):
        shape = shape.asnumpy().tolist()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    if isinstance(shape, (list, tuple)) and all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in shape):
        return tuple(int(s) for s in shape)
    raise TypeError(f"For '{name}', only int, tuple, list and tensor are allowed for shape, "
                    f"but got {type(shape).__name__}")


def _int(value, name, arg):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{name}', '{arg}' must be an int, but got "
                        f"{type(value).__name__}")
    return int(value)


def _axis(axis, ndim, name):
    """A normalized axis; ValueError when out of range."""
    axis = _int(axis, name, "axis")
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"For '{name}', axis {axis} is out of bounds for array of dimension "
                         f"{ndim}")
    return axis % max(ndim, 1)


def _axes(axis, ndim, name):
    """A sorted tuple of normalized axes (all of them for None); ValueError on repeats."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        out = tuple(_axis(a, ndim, name) for a in axis)
    else:
        out = (_axis(axis, ndim, name),)
    if len(set(out)) != len(out):
        raise ValueError(f"For '{name}', duplicate value in 'axis'")
    return out


def _const(values, dtype):
    """A constant Tensor (no gradient) of NumPy values."""
    return Tensor(np.asarray(values, dtype=mstype.to_np(dtype)))
