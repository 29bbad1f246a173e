"""The dtype objects and constants `mindspore.numpy` exposes, and its type promotion helpers."""
import math

import numpy as np

from ..common import dtype as mstype
from ..common.tensor import Tensor

__all__ = [
    "bool_",
    "e",
    "float16",
    "float32",
    "float64",
    "float_",
    "inf",
    "int8",
    "int16",
    "int32",
    "int64",
    "int_",
    "nan",
    "newaxis",
    "pi",
    "promote_types",
    "result_type",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]

bool_ = mstype.bool_
int8, int16, int32, int64 = mstype.int8, mstype.int16, mstype.int32, mstype.int64
uint8, uint16, uint32, uint64 = mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64
float16, float32, float64 = mstype.float16, mstype.float32, mstype.float64
int_ = mstype.int32
float_ = mstype.float32

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None

_RANK = [bool_, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16, float32, float64]


_PY_DEFAULT = {bool: bool_, int: int32, float: float32}


def _as_dtype(obj):
    """A dtype from a dtype, a NumPy dtype or its name, or a Python type (int -> int32,
    float -> float32)."""
    if isinstance(obj, mstype.Type):
        mstype.to_np(obj)
        return obj
    if obj in _PY_DEFAULT:
        return _PY_DEFAULT[obj]
    return mstype.from_np(mstype.to_np(obj))


def promote_types(type1, type2):
    """The dtype a binary op gives two dtypes (MindSpore's promotion: int8 with uint8 gives
    int16; an integer with a float gives that float, whatever their widths)."""
    t1, t2 = _as_dtype(type1), _as_dtype(type2)
    return mstype.from_np(mstype.promote(mstype.to_np(t1), mstype.to_np(t2)))


def result_type(*arrays_and_dtypes):
    """The dtype of a result computed from these Tensors, dtypes and Python scalars (a Python
    int counts as int32, a float as float32, a bool as bool)."""
    if not arrays_and_dtypes:
        raise ValueError("For 'result_type', at least one array or dtype is required")
    out = None
    for item in arrays_and_dtypes:
        if isinstance(item, Tensor):
            dt = item.dtype
        elif isinstance(item, bool):
            dt = bool_
        elif isinstance(item, int):
            dt = int32
        elif isinstance(item, float):
            dt = float32
        elif isinstance(item, np.ndarray):
            dt = mstype.from_np(item.dtype)
        else:
            dt = _as_dtype(item)
        out = dt if out is None else promote_types(out, dt)
    return out
