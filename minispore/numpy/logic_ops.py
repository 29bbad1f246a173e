"""Comparisons, logical functions, floating-point classification and set membership."""
import numpy as np

from .. import ops
from ..common import dtype as mstype
from ..common.tensor import Tensor
from .utils import _axes, _cast, _is_bool, _is_float, _operands, _out, _to_tensor

__all__ = [
    "array_equal",
    "array_equiv",
    "equal",
    "greater",
    "greater_equal",
    "in1d",
    "isclose",
    "isfinite",
    "isin",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "isscalar",
    "less",
    "less_equal",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "not_equal",
    "setdiff1d",
    "signbit",
    "sometrue",
]


def _compare(fn, x1, x2, dtype):
    t1, t2 = _operands(x1, x2)
    return _out(fn(t1, t2), dtype)


def equal(x1, x2, dtype=None):
    """x1 == x2."""
    return _compare(lambda a, b: a == b, x1, x2, dtype)


def not_equal(x1, x2, dtype=None):
    """x1 != x2."""
    return _compare(lambda a, b: a != b, x1, x2, dtype)


def less(x1, x2, dtype=None):
    """x1 < x2."""
    return _compare(lambda a, b: a < b, x1, x2, dtype)


def less_equal(x1, x2, dtype=None):
    """x1 <= x2."""
    return _compare(lambda a, b: a <= b, x1, x2, dtype)


def greater(x1, x2, dtype=None):
    """x1 > x2."""
    return _compare(lambda a, b: a > b, x1, x2, dtype)


def greater_equal(x1, x2, dtype=None):
    """x1 >= x2."""
    return _compare(lambda a, b: a >= b, x1, x2, dtype)


def _truth(t):
    return t if _is_bool(t) else t != 0


def logical_and(x1, x2, dtype=None):
    """The truth of x1 AND x2 (non-zero is true)."""
    return _compare(lambda a, b: ops.logical_and(_truth(a), _truth(b)), x1, x2, dtype)


def logical_or(x1, x2, dtype=None):
    """The truth of x1 OR x2."""
    return _compare(lambda a, b: ops.logical_or(_truth(a), _truth(b)), x1, x2, dtype)


def logical_xor(x1, x2, dtype=None):
    """The truth of x1 XOR x2."""
    return _compare(lambda a, b: ops.logical_xor(_truth(a), _truth(b)), x1, x2, dtype)


def logical_not(a, dtype=None):
    """The truth of NOT a."""
    return _out(ops.logical_not(_truth(_to_tensor(a))), dtype)


def isfinite(x, dtype=None):
    """True where x is neither infinite nor NaN."""
    return _out(ops.isfinite(_to_tensor(x)), dtype)


def isnan(x, dtype=None):
    """True where x is NaN."""
    return _out(ops.isnan(_to_tensor(x)), dtype)


def isinf(x, dtype=None):
    """True where x is positive or negative infinity."""
    return _out(ops.isinf(_to_tensor(x)), dtype)


def isposinf(x):
    """True where x is positive infinity."""
    t = _to_tensor(x)
    return ops.logical_and(ops.isinf(t), t > 0)


def isneginf(x):
    """True where x is negative infinity."""
    t = _to_tensor(x)
    return ops.logical_and(ops.isinf(t), t < 0)


def signbit(x, dtype=None):
    """True where the sign bit is set (negative numbers and -0.0)."""
    t = _to_tensor(x)
    if _is_float(t):
        return _out(Tensor(np.signbit(t.asnumpy())), dtype)
    if _is_bool(t) or mstype.to_np(t.dtype).kind == "u":
        return _out(ops.zeros_like(t) != 0, dtype)
    return _out(t < 0, dtype)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b|, elementwise (NaNs equal when `equal_nan`)."""
    ta, tb = _operands(a, b)
    if not _is_float(ta):
        ta, tb = _cast(ta, mstype.float32), _cast(tb, mstype.float32)
    close = ops.abs(ta - tb) <= atol + rtol * ops.abs(tb)
    close = ops.logical_or(close, ta == tb)
    if equal_nan:
        close = ops.logical_or(close, ops.logical_and(ops.isnan(ta), ops.isnan(tb)))
    return close


def array_equal(a1, a2, equal_nan=False):
    """True when the arrays have one shape and equal elements, as a bool Tensor."""
    t1, t2 = _to_tensor(a1), _to_tensor(a2)
    if t1.shape != t2.shape:
        return Tensor(np.array(False))
    t1, t2 = _operands(t1, t2)
    same = t1 == t2
    if equal_nan and _is_float(t1):
        same = ops.logical_or(same, ops.logical_and(ops.isnan(t1), ops.isnan(t2)))
    return ops.all(same)


def array_equiv(a1, a2):
    """True when the arrays broadcast to one shape and are equal there, as a bool Tensor."""
    t1, t2 = _to_tensor(a1), _to_tensor(a2)
    try:
        np.broadcast_shapes(t1.shape, t2.shape)
    except ValueError:
        return Tensor(np.array(False))
    t1, t2 = _operands(t1, t2)
    return ops.all(t1 == t2)


def _membership(element, test_elements):
    e = _to_tensor(element)
    tests = _to_tensor(test_elements).asnumpy().reshape(-1)
    return e, np.isin(e.asnumpy(), tests)


def in1d(ar1, ar2, invert=False):
    """For each element of the flattened ar1, whether it occurs in ar2."""
    _, hit = _membership(ar1, ar2)
    hit = hit.reshape(-1)
    return Tensor(~hit if invert else hit)


def isin(element, test_elements, invert=False):
    """For each element, whether it occurs in `test_elements` (element's shape)."""
    _, hit = _membership(element, test_elements)
    return Tensor(np.asarray(~hit if invert else hit))


def isscalar(element):
    """True for Python and NumPy scalars (not for Tensors or lists)."""
    return isinstance(element, (bool, int, float, complex, str, bytes, np.generic))


def sometrue(a, axis=None, keepdims=False):
    """Whether any element over `axis` is true."""
    t = _to_tensor(a)
    t = t if _is_bool(t) else t != 0
    if axis is None:
        out = ops.any(t)
        return out.reshape((1,) * t.ndim) if keepdims else out
    return ops.any(t, _axes(axis, t.ndim, "sometrue"), keepdims)


def setdiff1d(ar1, ar2, assume_unique=False):
    """The values of ar1 not in ar2: sorted and unique, or in ar1's order when
    `assume_unique`."""
    t1 = _to_tensor(ar1)
    a = t1.asnumpy().reshape(-1)
    b = _to_tensor(ar2).asnumpy().reshape(-1)
    if assume_unique:
        out = a[~np.isin(a, b)]
    else:
        out = np.setdiff1d(a, b)
    return Tensor(out.astype(a.dtype))
