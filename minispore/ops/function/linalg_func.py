"""Functional linear algebra: matrix products (`matmul`, `bmm`, `mm`, `dot`, `inner`, `outer`,
`addmm`), `tensor_dot` and `einsum`."""
import builtins
import math

import numpy as np

from ..._autodiff.tape import apply, binary
from ..._validator import check_type
from ...common import dtype as mstype
from ..operations import array_ops as A
from ..operations import math_ops as M
from ..operations import linalg_ops as L
from ..operations._kernels import normalize_axis
from ..operations.einsum_ops import Einsum
from ..primitive import shared
from ._checks import _tensor

__all__ = ["matmul", "bmm", "mm", "dot", "outer", "inner", "addmm", "tensor_dot", "einsum"]


def _mul(x, y):
    return binary(M._MUL, x, y)


_MATMUL = L.MatMul()
_BATCH_MATMUL = L.BatchMatMul()


def matmul(input, other):
    """Matrix product with NumPy's rules: 1-D operands are promoted (and the added axis removed),
    batch dimensions broadcast, mixed dtypes promote. (2, 0) @ (0, 3) is zeros."""
    a = _tensor(input, "matmul")
    b = _tensor(other, "matmul", "other")
    ad, bd = a._data, b._data
    if ad.ndim == 0 or bd.ndim == 0:
        raise ValueError(f"For 'matmul', the inputs must not be 0-D, but got shapes {ad.shape} "
                         f"and {bd.shape}")
    k_a = ad.shape[-1]
    k_b = bd.shape[0] if bd.ndim == 1 else bd.shape[-2]
    if k_a != k_b:
        raise ValueError(f"For 'matmul', the last axis of 'input' must match the "
                         f"{'only' if bd.ndim == 1 else 'second-to-last'} axis of 'other', but "
                         f"got shapes {ad.shape} and {bd.shape}")
    batch_a, batch_b = ad.shape[:-2], bd.shape[:-2]
    if batch_a and batch_b and batch_a != batch_b:
        try:
            np.broadcast_shapes(batch_a, batch_b)
        except ValueError:
            raise ValueError(f"For 'matmul', the batch dimensions of shapes {ad.shape} and "
                             f"{bd.shape} cannot be broadcast together") from None
    if ad.dtype != bd.dtype:
        dt = mstype.promote(ad.dtype, bd.dtype)
        a, b = M.cast(a, dt), M.cast(b, dt)
    if ad.ndim == 2 and bd.ndim == 2:
        return apply(_MATMUL, (a, b))
    if ad.ndim == 1:
        a = A.reshape(a, (1, ad.shape[0]))
    if bd.ndim == 1:
        b = A.reshape(b, (bd.shape[0], 1))
    out = apply(_BATCH_MATMUL if a.ndim > 2 or b.ndim > 2 else _MATMUL, (a, b))
    if ad.ndim == 1 or bd.ndim == 1:
        shape = out.shape[:-2] + (() if ad.ndim == 1 else out.shape[-2:-1]) + \
            (() if bd.ndim == 1 else out.shape[-1:])
        out = A.reshape(out, shape)
    return out


def bmm(input_x, mat2):
    """Batched matrix product of 3-D (or higher) tensors; batch dimensions broadcast."""
    _tensor(input_x, "bmm", "input_x")
    _tensor(mat2, "bmm", "mat2")
    if input_x.ndim < 3 or mat2.ndim < 3:
        raise ValueError(f"For 'bmm', the inputs must be at least 3-D, but got shapes "
                         f"{input_x.shape} and {mat2.shape}")
    return matmul(input_x, mat2)


def mm(input, mat2):
    """2-D matrix product."""
    _tensor(input, "mm")
    _tensor(mat2, "mm", "mat2")
    if input.ndim != 2 or mat2.ndim != 2:
        raise ValueError(f"For 'mm', the inputs must be 2-D, but got shapes {input.shape} and "
                         f"{mat2.shape}")
    return matmul(input, mat2)


def dot(input, other):
    """NumPy's dot: the sum over the last axis of `input` and the second-to-last of `other` (its
    only axis when 1-D); the free axes of `input` come first, then those of `other`."""
    _tensor(input, "dot")
    _tensor(other, "dot", "other")
    if input.ndim == 0 or other.ndim == 0:
        return _mul(input, other)
    if input.ndim <= 2 and other.ndim <= 2:
        return matmul(input, other)
    return tensor_dot(input, other, ((-1,), (-1 if other.ndim == 1 else -2,)))


def inner(input, other):
    """Sum of products over the last axes: shape input.shape[:-1] + other.shape[:-1] (a 0-d
    operand multiplies)."""
    _tensor(input, "inner")
    _tensor(other, "inner", "other")
    if input.ndim == 0 or other.ndim == 0:
        return _mul(input, other)
    return tensor_dot(input, other, ((-1,), (-1,)))


def outer(input, vec2):
    """Outer product of two 1-D tensors (higher-rank inputs are flattened)."""
    _tensor(input, "outer")
    _tensor(vec2, "outer", "vec2")
    return _mul(A.reshape(input, (-1, 1)), A.reshape(vec2, (1, -1)))


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2), `input` broadcast."""
    _tensor(input, "addmm")
    return binary(M._ADD, _mul(input, beta), _mul(mm(mat1, mat2), alpha))


def tensor_dot(x1, x2, axes):
    """Sum of products over `axes`: an int n (the last n axes of x1 with the first n of x2), or
    a pair of axis sequences (or ints). The free axes of x1 come first, then those of x2."""
    _tensor(x1, "tensor_dot", "x1")
    _tensor(x2, "tensor_dot", "x2")
    if isinstance(axes, (int, np.integer)):
        if not 0 <= axes <= builtins.min(x1.ndim, x2.ndim):
            raise ValueError(f"For 'tensor_dot', 'axes' {axes} is out of range for shapes "
                             f"{x1.shape} and {x2.shape}")
        ax1 = tuple(range(x1.ndim - axes, x1.ndim))
        ax2 = tuple(range(axes))
    else:
        if len(axes) != 2:
            raise ValueError(f"For 'tensor_dot', 'axes' must be an int or a pair of axis lists, "
                             f"but got {axes!r}")
        ax1, ax2 = (tuple([a]) if isinstance(a, (int, np.integer)) else tuple(a) for a in axes)
    ax1 = tuple(normalize_axis(a, x1.ndim, "tensor_dot") for a in ax1)
    ax2 = tuple(normalize_axis(a, x2.ndim, "tensor_dot") for a in ax2)
    if len(ax1) != len(ax2) or builtins.any(x1.shape[i] != x2.shape[j] for i, j in zip(ax1, ax2)):
        raise ValueError(f"For 'tensor_dot', the contracted axes {ax1} of shape {x1.shape} and "
                         f"{ax2} of shape {x2.shape} differ")
    free1 = [i for i in range(x1.ndim) if i not in ax1]
    free2 = [i for i in range(x2.ndim) if i not in ax2]
    a = A.transpose(x1, tuple(free1) + ax1)
    b = A.transpose(x2, ax2 + tuple(free2))
    k = math.prod(x1.shape[i] for i in ax1)
    out = matmul(A.reshape(a, (math.prod(x1.shape[i] for i in free1), k)),
                 A.reshape(b, (k, math.prod(x2.shape[i] for i in free2))))
    return A.reshape(out, tuple(x1.shape[i] for i in free1) + tuple(x2.shape[i] for i in free2))


def einsum(equation, *operands):
    """Einstein summation of `operands` (Tensors of one dtype) by `equation`, e.g.
    ``einsum("bij,bjk->bik", x, y)``: NumPy's rules (implicit output = the labels used once,
    sorted; '...' broadcasts; a label repeated in one operand takes the diagonal).

    MindSpore 2.10 has no CPU kernel for it; this follows its documented semantics. A single
    tuple or list of Tensors is also accepted in place of the operands."""
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = tuple(operands[0])
    for k, x in enumerate(operands):
        _tensor(x, "einsum", f"operands[{k}]")
    check_type(equation, str, "equation", "einsum")
    return shared(Einsum, equation)(operands)
