"""Functional linear algebra: matrix products (`matmul`, `bmm`, `mm`, `dot`, `inner`, `outer`,
`addmm`, ...), `tensor_dot` and `einsum`; decompositions, solvers, determinants, inverses,
norms and distances, and the diagonal and band helpers, with the composite MindSpore classes
built on them (PRIMITIVE_CLASSES)."""
import builtins
import math

import numpy as np

from ..._autodiff.tape import apply, binary, const, wrap
from ..._validator import check_int, check_type
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import linalg_ops as L
from ..operations import math_ops as M
from ..operations import reduce_ops as R
from ..operations._kernels import normalize_axis
from ..operations.einsum_ops import Einsum
from ..primitive import Primitive, data_function, shared
from . import array_func as AF
from . import fft_func as FF
from ._checks import _tensor

__all__ = [
    "einsum_ext",
    "addbmm",
    "addmm",
    "addmv",
    "addr",
    "adjoint",
    "baddbmm",
    "baddbmm_ext",
    "batch_dot",
    "block_diag",
    "bmm",
    "cdist",
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "cond",
    "cov",
    "cross",
    "det",
    "diag_embed",
    "diagflat",
    "diagonal_scatter",
    "dist",
    "dot",
    "eig",
    "eigvals",
    "einsum",
    "geqrf",
    "ger",
    "inner",
    "inverse",
    "kron",
    "log_matrix_determinant",
    "logdet",
    "lstsq",
    "lu_solve",
    "lu_unpack",
    "matmul",
    "matrix_band_part",
    "matrix_determinant",
    "matrix_diag",
    "matrix_diag_part",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_set_diag",
    "matrix_solve",
    "mm",
    "mv",
    "orgqr",
    "ormqr",
    "outer",
    "pdist",
    "pinv",
    "qr",
    "renorm",
    "slogdet",
    "svd",
    "tensor_dot",
    "trace",
    "tril_indices",
    "triu_indices",
    "vander",
    "vecdot",
    "vector_norm",
]


def _mul(x, y):
    return binary(M._MUL, x, y)


_MATMUL = L.MatMul()
_BATCH_MATMUL = L.BatchMatMul()


def matmul(input, other):
    """Matrix product with NumPy's shape rules: 1-D operands are promoted (and the added axis
    removed), batch dimensions broadcast; (2, 0) @ (0, 3) is zeros. Mixed dtypes are a TypeError,
    as in MindSpore (inside a to_float / amp cell both take the cell's compute dtype)."""
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
        a, b = L._matmul_operands("matmul", a, b)  # MindSpore's TypeError outside amp cells
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
        ax1, ax2 = ((a,) if isinstance(a, (int, np.integer)) else tuple(a) for a in axes)
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


# ---- products ------------------------------------------------------------------------------------

def _scaled_sum(input, product, beta, alpha, op):
    """beta * input + alpha * product (as MindSpore, beta = 0 still propagates NaN in input)."""
    _tensor(input, op)
    scaled = _mul(product, alpha) if alpha != 1 else product
    return binary(M._ADD, _mul(input, beta) if beta != 1 else input, scaled)


def mv(mat, vec):
    """The product of a matrix (m, n) and a vector (n,): shape (m,)."""
    _tensor(mat, "mv", "mat")
    _tensor(vec, "mv", "vec")
    if mat.ndim != 2 or vec.ndim != 1 or mat.shape[1] != vec.shape[0]:
        raise ValueError(f"For 'mv', 'mat' must be 2-D and 'vec' 1-D with matching sizes, but "
                         f"got shapes {mat.shape} and {vec.shape}")
    return matmul(mat, vec)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec), `input` broadcast to (m,)."""
    return _scaled_sum(input, mv(mat, vec), beta, alpha, "addmv")


def ger(input, vec2):
    """The outer product of two 1-D float tensors: out[i, j] = input[i] * vec2[j]."""
    for name, v in (("input", input), ("vec2", vec2)):
        _tensor(v, "ger", name)
        if v._data.dtype.kind != "f":
            raise TypeError(f"For 'ger', '{name}' must be a float tensor, but got {v.dtype}")
        if v.ndim != 1:
            raise ValueError(f"For 'ger', '{name}' must be 1-D, but got shape {v.shape}")
    return _mul(A.reshape(input, (-1, 1)), A.reshape(vec2, (1, -1)))


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """beta * x + alpha * outer(vec1, vec2), `x` broadcast to (n, m)."""
    for name, v in (("x", x), ("vec1", vec1), ("vec2", vec2)):
        _tensor(v, "addr", name)
        if v._data.dtype.kind not in "iuf":
            raise TypeError(f"For 'addr', '{name}' must be a float or integer tensor, but got "
                            f"{v.dtype}")
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise ValueError(f"For 'addr', 'vec1' and 'vec2' must be 1-D, but got shapes "
                         f"{vec1.shape} and {vec2.shape}")
    return _scaled_sum(x, _mul(A.reshape(vec1, (-1, 1)), A.reshape(vec2, (1, -1))), beta,
                       alpha, "addr")


def _batches(b1, b2, op):
    _tensor(b1, op, "batch1")
    _tensor(b2, op, "batch2")
    if b1.ndim != 3 or b2.ndim != 3 or b1.shape[0] != b2.shape[0] or b1.shape[2] != b2.shape[1]:
        raise ValueError(f"For '{op}', 'batch1' (b, n, m) and 'batch2' (b, m, p) must be 3-D "
                         f"with matching sizes, but got shapes {b1.shape} and {b2.shape}")
    return matmul(b1, b2)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * sum_b batch1[b] @ batch2[b] (integer sums are int64)."""
    prod = _batches(batch1, batch2, "addbmm")
    return _scaled_sum(input, R.reduce_sum(prod, 0), beta, alpha, "addbmm")


def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    return _scaled_sum(input, _batches(batch1, batch2, "baddbmm"), beta, alpha, "baddbmm")


def baddbmm_ext(input, batch1, batch2, *, beta=1, alpha=1):
    """`baddbmm` with keyword-only beta and alpha (MindSpore's Ascend form)."""
    return _scaled_sum(input, _batches(batch1, batch2, "baddbmm_ext"), beta, alpha, "baddbmm_ext")


def batch_dot(x1, x2, axes=None):
    """The dot product of x1[b] and x2[b] over `axes` (an int: that axis of both; a pair: one
    axis of each; None: the last axis of x1 and the second-to-last of x2, or the last one for a
    2-D x2). Both have a batch axis 0 of one size; a 2-D result gains a trailing axis of 1."""
    _tensor(x1, "batch_dot", "x1")
    _tensor(x2, "batch_dot", "x2")
    if x1.ndim < 2 or x2.ndim < 2 or x1.shape[0] != x2.shape[0]:
        raise ValueError(f"For 'batch_dot', the inputs must be at least 2-D with one batch size, "
                         f"but got shapes {x1.shape} and {x2.shape}")
    if axes is None:
        axes = (x1.ndim - 1, x2.ndim - 1 if x2.ndim == 2 else x2.ndim - 2)
    elif isinstance(axes, (int, np.integer)):
        axes = (axes, axes)
    a1, a2 = (normalize_axis(int(a), t.ndim, "batch_dot") for a, t in zip(axes, (x1, x2)))
    if a1 == 0 or a2 == 0:
        raise ValueError(f"For 'batch_dot', 'axes' may not name the batch axis 0, but got {axes}")
    if x1.shape[a1] != x2.shape[a2]:
        raise ValueError(f"For 'batch_dot', axis {a1} of x1 {x1.shape} and axis {a2} of x2 "
                         f"{x2.shape} differ in size")
    b = x1.shape[0]
    free1 = [i for i in range(1, x1.ndim) if i != a1]
    free2 = [i for i in range(1, x2.ndim) if i != a2]
    left = A.reshape(A.transpose(x1, (0, *free1, a1)), (b, -1, x1.shape[a1]))
    right = A.reshape(A.transpose(x2, (0, a2, *free2)), (b, x2.shape[a2], -1))
    out = matmul(left, right)
    shape = (b,) + tuple(x1.shape[i] for i in free1) + tuple(x2.shape[i] for i in free2)
    return A.reshape(out, shape if len(shape) > 1 else (b, 1))


def kron(input, other):
    """The Kronecker product: the block tensor of input[i] * other (ranks padded with leading
    ones to the larger)."""
    _tensor(input, "kron")
    _tensor(other, "kron", "other")
    nd = builtins.max(input.ndim, other.ndim)
    a = A.reshape(input, (1,) * (nd - input.ndim) + input.shape)
    b = A.reshape(other, (1,) * (nd - other.ndim) + other.shape)
    a = A.reshape(a, tuple(v for n in a.shape for v in (n, 1)))
    b = A.reshape(b, tuple(v for n in b.shape for v in (1, n)))
    return A.reshape(_mul(a, b), tuple(p * q for p, q in zip(a.shape[::2], b.shape[1::2])))


def vecdot(x, y, *, axis=-1):
    """sum(conj(x) * y) over `axis`, x and y broadcast."""
    _tensor(x, "vecdot", "x")
    _tensor(y, "vecdot", "y")
    if x._data.dtype.kind == "c":
        x = FF.conj(x)
    return R.reduce_sum(_mul(x, y), axis)


def adjoint(x):
    """The conjugate transpose of the last two axes."""
    _tensor(x, "adjoint", "x")
    if x.ndim < 2:
        raise ValueError(f"For 'adjoint', 'x' must be at least 2-D, but got shape {x.shape}")
    out = L._mT(x)
    return FF.conj(out) if x._data.dtype.kind == "c" else out


# ---- decompositions, determinants, inverses, solvers ---------------------------------------------

def _bool_arg(v, name, op):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"For '{op}', '{name}' must be a bool, but got {type(v).__name__}")
    return bool(v)


def cholesky(input_x, upper=False):
    """The Cholesky factor of symmetric positive-definite matrices (batched): lower L with
    A = L L^T, or upper U = L^T with `upper`."""
    _tensor(input_x, "cholesky", "input_x")
    return shared(L.Cholesky, _bool_arg(upper, "upper", "cholesky"))(input_x)


def _factor(x, upper, op, name="input_x"):
    _tensor(x, op, name)
    if x._data.dtype.kind != "f":
        raise TypeError(f"For '{op}', '{name}' must be a float tensor, but got {x.dtype}")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"For '{op}', '{name}' must be a batch of square matrices, but got "
                         f"shape {x.shape}")
    return _bool_arg(upper, "upper", op)


def _identity_like(x):
    n = x.shape[-1]
    return wrap(np.broadcast_to(np.eye(n, dtype=x._data.dtype), x.shape).copy())


def cholesky_inverse(input_x, upper=False):
    """The inverse of A = L L^T (U^T U with `upper`) from its Cholesky factor."""
    upper = _factor(input_x, upper, "cholesky_inverse")
    inv = L._trsm(not upper, False)(input_x, _identity_like(input_x))
    return L._bmm(inv, inv, tb=True) if upper else L._bmm(inv, inv, ta=True)


def cholesky_solve(input, input2, upper=False):
    """X solving A X = input, A = L L^T (U^T U with `upper`) given by its Cholesky factor
    `input2`."""
    upper = _factor(input2, upper, "cholesky_solve", "input2")
    _tensor(input, "cholesky_solve")
    if upper:  # (U^T U)^-1 b = U^-1 (U^-T b)
        return L._trsm(False, False)(input2, L._trsm(False, True)(input2, input))
    return L._trsm(True, True)(input2, L._trsm(True, False)(input2, input))


def det(input):
    """The determinant of square matrices (batched)."""
    _tensor(input, "det")
    return apply(shared(L.MatrixDeterminant), (input,))


matrix_determinant = det


def slogdet(input):
    """(sign, log|det|) of square matrices (batched)."""
    _tensor(input, "slogdet")
    return apply(shared(L.LogMatrixDeterminant), (input,))


log_matrix_determinant = slogdet


def logdet(input):
    """log(det): nan where the determinant is negative, -inf where it is 0."""
    sign, logabs = slogdet(input)
    return logabs + M.log(sign)


def inverse(input):
    """The inverse of square matrices (batched)."""
    _tensor(input, "inverse")
    return apply(shared(L.MatrixInverse, False), (input,))


def matrix_solve(matrix, rhs, adjoint=False):
    """X solving matrix X = rhs (matrix^T X = rhs with `adjoint`), batched."""
    _tensor(matrix, "matrix_solve", "matrix")
    _tensor(rhs, "matrix_solve", "rhs")
    return shared(L.MatrixSolve, _bool_arg(adjoint, "adjoint", "matrix_solve"))(matrix, rhs)


def qr(input, mode="reduced"):
    """(Q, R) of the QR decomposition: mode 'reduced' (Q: m x k, R: k x n, k = min(m, n)) or
    'complete' (Q: m x m)."""
    _tensor(input, "qr")
    if mode not in ("reduced", "complete"):
        raise TypeError(f"For 'qr', the arg mode must be 'reduced' or 'complete', but got "
                        f"{mode!r}")
    return shared(L.Qr, mode == "complete")(input)


def svd(input, full_matrices=False, compute_uv=True):
    """The singular value decomposition input = u diag(s) v^T: (s, u, v), or s alone without
    `compute_uv`."""
    _tensor(input, "svd")
    full = _bool_arg(full_matrices, "full_matrices", "svd")
    if not _bool_arg(compute_uv, "compute_uv", "svd"):
        return shared(L.Svd, False, False)(input)[0]
    return shared(L.Svd, full, True)(input)


def eig(A):
    """(eigenvalues, eigenvectors) of square matrices, complex (complex64 for float32)."""
    _tensor(A, "eig", "A")
    return shared(L.Eig, True)(A)


def eigvals(A):
    """The eigenvalues of square matrices, complex (complex64 for float32)."""
    _tensor(A, "eigvals", "A")
    return shared(L.Eig, False)(A)[0]


def geqrf(input):
    """(y, tau): the QR decomposition in LAPACK's Householder form (see `orgqr`)."""
    _tensor(input, "geqrf")
    return apply(shared(L.Geqrf), (input,))


def matrix_exp(input):
    """The matrix exponential of square matrices (batched)."""
    _tensor(input, "matrix_exp")
    return apply(shared(L.MatrixExp), (input,))


def matrix_power(input, n):
    """input to the integer power n (batched square matrices): n = 0 is the identity, n < 0
    a power of the inverse. Integers stay integers for n >= 0."""
    _tensor(input, "matrix_power")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"For 'matrix_power', 'n' must be an int, but got {type(n).__name__}")
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise ValueError(f"For 'matrix_power', 'input' must be a batch of square matrices, but "
                         f"got shape {input.shape}")
    if n == 0:
        return _identity_like(input)
    if n < 0 and input._data.dtype.kind not in "fc":
        raise ValueError(f"For 'matrix_power', integer inputs need n >= 0, but got n = {n}")
    x = inverse(input) if n < 0 else input
    n = builtins.abs(int(n))
    out = None
    while n:
        if n & 1:
            out = x if out is None else matmul(out, x)
        n >>= 1
        if n:
            x = matmul(x, x)
    return out


def _check_square(x, op, name="input"):
    _tensor(x, op, name)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"For '{op}', '{name}' must be a batch of square matrices, but got "
                         f"shape {x.shape}")


def trace(input):
    """The sum of the main diagonal of a 2-D tensor."""
    _tensor(input, "trace")
    if input.ndim != 2:
        raise ValueError(f"For 'trace', the input must be 2-D, but got shape {input.shape}")
    out = R.reduce_sum(AF.diagonal(input))
    return M.cast(out, input._data.dtype) if out._data.dtype != input._data.dtype else out


# ---- least squares, LU, Householder products -----------------------------------------------------

def _solve_ls(matrix, rhs, l2, op):
    """The (l2-regularised) least-squares solution by the normal equations: tall or square
    (A^T A + l2 I)^-1 A^T B; wide: the minimum-norm A^T (A A^T + l2 I)^-1 B."""
    m, n = matrix.shape[-2:]
    if m >= n:
        gram = L._bmm(matrix, matrix, ta=True)
        if l2:
            gram = gram + _mul(_identity_like(gram), l2)
        return L._solve(False)(gram, L._bmm(matrix, rhs, ta=True))
    gram = L._bmm(matrix, matrix, tb=True)
    if l2:
        gram = gram + _mul(_identity_like(gram), l2)
    return L._bmm(matrix, L._solve(False)(gram, rhs), ta=True)


def _ls_args(matrix, rhs, op):
    _tensor(matrix, op, "matrix")
    _tensor(rhs, op, "rhs")
    for name, v in (("matrix", matrix), ("rhs", rhs)):
        if v._data.dtype.kind not in "fc":
            raise TypeError(f"For '{op}', '{name}' must be a float tensor, but got {v.dtype}")
    rows = rhs.shape[0] if rhs.ndim == 1 else rhs.shape[-2] if rhs.ndim else -1
    if matrix.ndim < 2 or rows != matrix.shape[-2]:
        raise ValueError(f"For '{op}', 'rhs' must have as many rows as 'matrix', but got shapes "
                         f"{matrix.shape} and {rhs.shape}")


def lstsq(input, A):
    """X minimising ||input X - A|| for a full-rank 2-D `input` (m, n) and `A` (m, k) or (m,)
    (the minimum-norm solution when m < n): shape (n, k) or (n,)."""
    return _lstsq(input, A)


def _lstsq(matrix, rhs):
    _ls_args(matrix, rhs, "lstsq")
    if matrix.ndim != 2 or rhs.ndim > 2:
        raise ValueError(f"For 'lstsq', 'input' must be 2-D and 'A' 1-D or 2-D, but got shapes "
                         f"{matrix.shape} and {rhs.shape}")
    if rhs._data.dtype != matrix._data.dtype:
        rhs = M.cast(rhs, mstype.promote(rhs._data.dtype, matrix._data.dtype))
        matrix = M.cast(matrix, rhs._data.dtype)
    if rhs.ndim == 1:
        return A.reshape(_solve_ls(matrix, A.reshape(rhs, (-1, 1)), 0, "lstsq"), (-1,))
    return _solve_ls(matrix, rhs, 0, "lstsq")


def _unpack_pivots(pivots, m, op):
    """The row permutation perm (A = P L U with P[perm[i], i] = 1) of LAPACK's 1-based row
    swaps, batched: an int64 array (..., m)."""
    piv = np.asarray(pivots._data if isinstance(pivots, Tensor) else pivots)
    if piv.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', 'LU_pivots' must be an integer tensor, but got "
                        f"{piv.dtype}")
    if piv.size and (piv.min() < 1 or piv.max() > m):
        raise ValueError(f"For '{op}', 'LU_pivots' must be in [1, {m}], but got values from "
                         f"{piv.min()} to {piv.max()}")
    flat = piv.reshape((-1, piv.shape[-1] if piv.ndim else 1))
    perms = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for i in range(flat.shape[1]):
        j = flat[:, i].astype(np.int64) - 1
        a, b = perms[rows, i].copy(), perms[rows, j].copy()
        perms[rows, i], perms[rows, j] = b, a
    return perms.reshape(piv.shape[:-1] + (m,))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) from a packed LU factorisation (as LAPACK's getrf, 1-based row-swap pivots):
    A = P L U, L unit lower triangular (m x k), U upper triangular (k x n), k = min(m, n). The
    parts not asked for are None."""
    _tensor(LU_data, "lu_unpack", "LU_data")
    if LU_data.ndim < 2:
        raise ValueError(f"For 'lu_unpack', 'LU_data' must be at least 2-D, but got shape "
                         f"{LU_data.shape}")
    m, n = LU_data.shape[-2:]
    k = builtins.min(m, n)
    perm = _unpack_pivots(LU_pivots, m, "lu_unpack")
    p = l_part = u_part = None
    if unpack_pivots:
        eye = np.eye(m, dtype=LU_data._data.dtype)
        # P[perm[i], i] = 1: column i of P is the unit vector e_perm[i]
        p = wrap(np.ascontiguousarray(np.swapaxes(eye[perm], -1, -2)))
        p = A.broadcast_to(p, LU_data.shape[:-2] + (m, m)) if p.shape[:-2] != \
            LU_data.shape[:-2] else p
    if unpack_data:
        lower = A.getitem(LU_data, (Ellipsis, slice(None), slice(0, k)))
        l_part = L._masked(lower, np.tril(np.ones((m, k)), -1)) + \
            wrap(np.eye(m, k, dtype=LU_data._data.dtype))
        upper = A.getitem(LU_data, (Ellipsis, slice(0, k), slice(None)))
        u_part = L._masked(upper, np.triu(np.ones((k, n))))
    return p, l_part, u_part


def lu_solve(b, LU_data, LU_pivots):
    """X solving A X = b from A's packed LU factorisation (as `lu_unpack` reads it)."""
    _tensor(b, "lu_solve", "b")
    _check_square(LU_data, "lu_solve", "LU_data")
    n = LU_data.shape[-1]
    perm = _unpack_pivots(LU_pivots, n, "lu_solve")
    # P^T b: row i of the result is row perm[i] of b
    batch = np.broadcast_shapes(perm.shape[:-1], b.shape[:-2])
    idx = np.broadcast_to(perm, batch + (n,))[..., None]
    bb = A.broadcast_to(b, batch + b.shape[-2:]) if b.shape[:-2] != batch else b
    pb = AF.gather_elements(bb, -2, wrap(np.broadcast_to(idx, batch + b.shape[-2:]).copy()))
    _, lower, upper = lu_unpack(LU_data, LU_pivots, True, False)
    return L._trsm(False, False)(upper, L._trsm(True, False)(lower, pb))


def _householder_vectors(x, k):
    """The first k Householder vectors of geqrf's packed output (m x n): v_i = e_i + the part
    of column i below the diagonal, as the columns of an (m x k) tensor."""
    m = x.shape[-2]
    cols = A.getitem(x, (Ellipsis, slice(None), slice(0, k)))
    return L._masked(cols, np.tril(np.ones((m, k)), -1)) + wrap(np.eye(m, k,
                                                                       dtype=x._data.dtype))


def _householder_product(x, tau, m_out):
    """Q = H_1 ... H_k (H_i = I - tau_i v_i v_i^T) applied to the first `m_out` columns of the
    m x m identity."""
    m = x.shape[-2]
    k = tau.shape[-1]
    v = _householder_vectors(x, k)
    q = wrap(np.broadcast_to(np.eye(m, m_out, dtype=x._data.dtype),
                             x.shape[:-2] + (m, m_out)).copy())
    for i in reversed(range(k)):
        vi = A.getitem(v, (Ellipsis, slice(None), slice(i, i + 1)))
        ti = A.expand_dims(A.expand_dims(A.getitem(tau, (Ellipsis, i)), -1), -1)
        q = q - _mul(ti, L._bmm(vi, L._bmm(vi, q, ta=True)))
    return q


def _qr_pair(x, tau, op):
    _tensor(x, op, "input")
    _tensor(tau, op, "tau")
    for name, v in (("input", x), ("tau", tau)):
        if v._data.dtype.kind not in "fc":
            raise TypeError(f"For '{op}', '{name}' must be a float tensor, but got {v.dtype}")
    if x.ndim < 2 or tau.ndim != x.ndim - 1 or tau.shape[:-1] != x.shape[:-2] or \
            tau.shape[-1] > builtins.min(x.shape[-2:]):
        raise ValueError(f"For '{op}', 'input' (..., m, n) and 'tau' (..., k) need k <= "
                         f"min(m, n) and one batch shape, but got shapes {x.shape} and "
                         f"{tau.shape}")


def orgqr(input, input2):
    """The first n columns of Q = H_1 ... H_k from geqrf's (input (m x n), tau = input2 (k,)):
    shape (m, n), needs m >= n."""
    _qr_pair(input, input2, "orgqr")
    m, n = input.shape[-2:]
    if m < n:
        raise ValueError(f"For 'orgqr', 'input' must have at least as many rows as columns, but "
                         f"got shape {input.shape}")
    return _householder_product(input, input2, n)


def ormqr(input, tau, other, left=True, transpose=False):
    """Q @ other (other @ Q with left=False; Q^T with `transpose`), Q = H_1 ... H_k (m x m)
    from geqrf's (input, tau)."""
    _qr_pair(input, tau, "ormqr")
    _tensor(other, "ormqr", "other")
    m = input.shape[-2]
    if other.ndim != input.ndim or other.shape[-2 if left else -1] != m:
        raise ValueError(f"For 'ormqr', 'other' must have {m} {'rows' if left else 'columns'} "
                         f"and the rank of 'input', but got shapes {input.shape} and "
                         f"{other.shape}")
    q = _householder_product(input, tau, m)
    if left:
        return L._bmm(q, other, ta=transpose)
    return L._bmm(other, q, tb=transpose)


# ---- norms and distances -------------------------------------------------------------------------
# (math_func imports this module, so its `norm` cannot be imported here: these are the vector and
# matrix norms of the linalg names, the matrix ones differentiable to any order through Svd.)

def _floating(x):
    return x if x._data.dtype.kind in "fc" else M.cast(x, np.float32)


def _abs(x):
    return apply(shared(M.Abs), (x,))


def _extreme(x, dims, keepdim, largest):
    cls = R.ReduceMax if largest else R.ReduceMin
    return apply(shared(cls, bool(keepdim)), (x, () if dims is None else dims))


def _safe_sqrt(ssq):
    """sqrt with gradient 0 (not inf) at 0: the subgradient of a norm there."""
    zero = data_function(np.equal, ssq, static=(0,))  # a node and a guard under graph capture
    if not zero.any():
        return M.sqrt(ssq)
    safe = M.select(zero, const(np.ones((), ssq._data.dtype)), ssq)
    return M.select(zero, const(np.zeros((), ssq._data.dtype)), M.sqrt(safe))


def _count_nonzero(x, dims, keepdim):
    return R.reduce_sum(M.cast(binary(shared(M.NotEqual), x, 0), x._data.dtype), dims, keepdim)


def _vnorm(x, ord, dims, keepdim):
    """The vector ord-norm of a floating x over `dims` (None: all axes)."""
    if ord == 2:
        return _safe_sqrt(R.reduce_sum(x * x, dims, keepdim))
    if ord in (math.inf, -math.inf):
        return _extreme(_abs(x), dims, keepdim, ord > 0)
    if ord == 0:
        return _count_nonzero(x, dims, keepdim)
    if ord == 1:
        return R.reduce_sum(_abs(x), dims, keepdim)
    return binary(shared(M.Pow), R.reduce_sum(binary(shared(M.Pow), _abs(x), float(ord)), dims,
                                              keepdim), 1.0 / ord)


def _mnorm(x, ord, dims, keepdim):
    """The matrix ord-norm of a floating x over the two axes `dims`."""
    d0, d1 = dims
    if ord == "fro":
        return _safe_sqrt(R.reduce_sum(x * x, dims, keepdim))
    if ord in ("nuc", 2, -2):
        moved = A.transpose(x, [i for i in range(x.ndim) if i not in dims] + [d0, d1])
        sv = shared(L.Svd, False, False)(moved)[0]
        out = R.reduce_sum(sv, -1) if ord == "nuc" else _extreme(sv, -1, False, ord == 2)
        if keepdim:
            for d in sorted(dims):
                out = A.expand_dims(out, d)
        return out
    if ord in (1, -1, math.inf, -math.inf):
        # 1: the largest column sum (the sum over rows d0, then the extreme over d1); inf: rows
        inner, outer = (d0, d1) if ord in (1, -1) else (d1, d0)
        out = _extreme(R.reduce_sum(_abs(x), inner, True), outer, True, ord > 0)
        return out if keepdim else A.reshape(out, tuple(
            n for i, n in enumerate(out.shape) if i not in dims))
    raise ValueError(f"For 'matrix_norm', 'ord' {ord!r} is not a matrix norm order: use 'fro', "
                     "'nuc', 1, -1, 2, -2, inf or -inf")

def _float_tensor(x, op, name="input"):
    _tensor(x, op, name)
    if x._data.dtype.kind not in "fc":
        raise TypeError(f"For '{op}', '{name}' must be a float tensor, but got {x.dtype}")
    return x


def _pnorm_last(d, p):
    """The p-norm of d over its last axis (p = 0: the count of nonzeros; inf: the largest |d|);
    the gradient at 0 is 0."""
    return _vnorm(d, p, (d.ndim - 1,), False)


def cdist(x1, x2, p=2.0):
    """The p-norm distances between the rows of x1 (..., P, M) and of x2 (..., R, M): shape
    (..., P, R), batch axes broadcast. p >= 0; inf is the largest coordinate difference."""
    _float_tensor(x1, "cdist", "x1")
    _float_tensor(x2, "cdist", "x2")
    p = _p_value(p, "cdist")
    if x1.ndim < 2 or x2.ndim < 2 or x1.shape[-1] != x2.shape[-1]:
        raise ValueError(f"For 'cdist', the inputs must be at least 2-D with one number of "
                         f"columns, but got shapes {x1.shape} and {x2.shape}")
    if x1._data.dtype != x2._data.dtype:
        raise TypeError(f"For 'cdist', the inputs must have one dtype, but got {x1.dtype} and "
                        f"{x2.dtype}")
    d = binary(M._SUB, A.expand_dims(x1, -2), A.expand_dims(x2, -3))
    return _pnorm_last(d, p)


def _p_value(p, op):
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"For '{op}', 'p' must be a number, but got {type(p).__name__}")
    if p < 0:
        raise ValueError(f"For '{op}', 'p' must be non-negative, but got {p}")
    return float(p)


def pdist(input, p=2.0):
    """The p-norm distances between the rows of a 2-D input (N, M), for the pairs i < j in
    row-major order: shape (N (N - 1) / 2,)."""
    _float_tensor(input, "pdist")
    p = _p_value(p, "pdist")
    if input.ndim != 2:
        raise ValueError(f"For 'pdist', the input must be 2-D, but got shape {input.shape}")
    i, j = np.triu_indices(input.shape[0], 1)
    d = binary(M._SUB, A.gather(input, i, 0), A.gather(input, j, 0))
    return _pnorm_last(d, p)


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast), over all elements; p an int (0 counts the
    nonzeros)."""
    _float_tensor(input, "dist")
    _float_tensor(other, "dist", "other")
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(f"For 'dist', 'p' must be an int, but got {type(p).__name__}")
    if p < 0:
        raise ValueError(f"For 'dist', 'p' must be non-negative, but got {p}")
    d = A.reshape(binary(M._SUB, input, other), (-1,))
    return _pnorm_last(d, p)


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):
    """The vector ord-norm over `axis` (an int, a tuple, or None for all elements): ord a
    number, inf or -inf (0 counts the nonzeros). Integers are computed in float32."""
    _tensor(x, "vector_norm", "x")
    if dtype is not None:
        x = M.cast(x, dtype)
    x = _floating(x)
    if axis is None:
        dims = None
    else:
        dims = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        dims = tuple(normalize_axis(d, builtins.max(x.ndim, 1), "vector_norm") for d in dims)
    if isinstance(ord, bool) or not isinstance(ord, (int, float, np.integer, np.floating)):
        raise TypeError(f"For 'vector_norm', 'ord' must be a number, but got {ord!r}")
    if x._data.dtype == np.float16:
        return M.cast(vector_norm(M.cast(x, np.float64), ord, axis, keepdims), np.float16)
    return _vnorm(x, ord, dims, keepdims)


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):
    """The matrix ord-norm over the two axes `axis`: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf
    (integers are computed in float32)."""
    return _matrix_norm(A, ord, axis, keepdims, dtype, "matrix_norm")


def _matrix_norm(x, ord, axis, keepdims, dtype, op):
    _tensor(x, op, "A")
    if dtype is not None:
        x = M.cast(x, dtype)
    x = _floating(x)
    if x.ndim < 2 or len(tuple(axis)) != 2:
        raise ValueError(f"For '{op}', the norm is over two axes of an input of at least 2-D, "
                         f"but got axis {axis} and shape {x.shape}")
    dims = tuple(normalize_axis(d, x.ndim, op) for d in axis)
    if dims[0] == dims[1]:
        raise ValueError(f"For '{op}', 'axis' must name two axes, but got {axis}")
    if x._data.dtype == np.float16:
        return M.cast(_mnorm(M.cast(x, np.float64), ord, dims, keepdims), np.float16)
    return _mnorm(x, ord, dims, keepdims)


def cond(A, p=None):
    """The condition number of square matrices in the p-norm: None or 2 (largest / smallest
    singular value), -2 (the reciprocal), 'fro', 'nuc', 1, -1, inf, -inf (norm(A) *
    norm(A^-1))."""
    _float_tensor(A, "cond", "A")
    if p is None or p in (2, -2):
        s = shared(L.Svd, False, False)(A)[0]
        big, small = _extreme(s, -1, False, True), _extreme(s, -1, False, False)
        return big / small if p != -2 else small / big
    dims = (-2, -1)
    return _matrix_norm(A, p, dims, False, None, "cond") * \
        _matrix_norm(inverse(A), p, dims, False, None, "cond")


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of the variables in the rows of `input` (observations in the columns; a
    1-D input is one variable): frequency weights `fweights` (integers) and observation weights
    `aweights`, normalised with `correction` (1: unbiased). Integers are computed in float32."""
    _tensor(input, "cov")
    if input.ndim > 2:
        raise ValueError(f"For 'cov', the input must be 0-D, 1-D or 2-D, but got shape "
                         f"{input.shape}")
    x = _floating(input)
    x = A.reshape(x, (1, -1)) if x.ndim < 2 else x
    n = x.shape[1]
    w = None
    if fweights is not None:
        _tensor(fweights, "cov", "fweights")
        if fweights._data.dtype.kind not in "iu":
            raise TypeError(f"For 'cov', 'fweights' must be an integer tensor, but got "
                            f"{fweights.dtype}")
        w = M.cast(fweights, x._data.dtype)
    if aweights is not None:
        _float_tensor(aweights, "cov", "aweights")
        aw = M.cast(aweights, x._data.dtype)
        w = aw if w is None else w * aw
    for name, v in (("fweights", fweights), ("aweights", aweights)):
        if v is not None and v.shape != (n,):
            raise ValueError(f"For 'cov', '{name}' must have shape ({n},), but got {v.shape}")
    if w is None:
        w_sum = float(n)
        avg = R.reduce_mean(x, -1, True)
        norm = w_sum - correction
    else:
        w_sum = R.reduce_sum(w)
        avg = R.reduce_sum(x * w, -1, True) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * R.reduce_sum(w * M.cast(aweights, x._data.dtype)) / w_sum
    xc = x - avg
    xw = xc if w is None else xc * w
    c = matmul(xw, L._mT(xc)) / norm
    return A.reshape(c, ()) if input.ndim < 2 else c


def renorm(input, p, axis, maxnorm):
    """input with each slice along `axis` whose p-norm (p an int, over the other axes) passes
    `maxnorm` scaled down to norm `maxnorm`."""
    _float_tensor(input, "renorm")
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(f"For 'renorm', the type of 'p' should be 'int', but got "
                        f"{type(p).__name__}")
    if p <= 0:
        raise ValueError(f"For 'renorm', 'p' must be positive, but got {p}")
    axis = normalize_axis(check_int(axis, "axis", "renorm"), input.ndim, "renorm")
    if isinstance(maxnorm, bool) or not isinstance(maxnorm, (int, float, np.integer,
                                                             np.floating)) or maxnorm < 0:
        raise ValueError(f"For 'renorm', 'maxnorm' must be a non-negative number, but got "
                         f"{maxnorm!r}")
    others = tuple(i for i in range(input.ndim) if i != axis)
    norms = _vnorm(input, p, others, True)
    over = norms._data > maxnorm
    scale = M.select(wrap(over), maxnorm / (norms + 1e-7), const(np.ones((), input._data.dtype)))
    return input * scale


def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse (batched) from the SVD, singular values below
    max(atol, rtol * largest) dropped; rtol defaults to eps * max(m, n) when neither is given
    (0 when only atol is). Gradients need distinct singular values."""
    _float_tensor(x, "pinv", "x")
    _bool_arg(hermitian, "hermitian", "pinv")
    if x.ndim < 2:
        raise ValueError(f"For 'pinv', 'x' must be at least 2-D, but got shape {x.shape}")
    s, u, v = shared(L.Svd, False, True)(x)
    smax = s._data.max(axis=-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    if rtol is None:
        rtol = np.finfo(x._data.dtype).eps * builtins.max(x.shape[-2:]) if atol is None else 0.0
    cutoff = np.maximum(_tolerance(0.0 if atol is None else atol), _tolerance(rtol) * smax)
    keep = s._data > cutoff
    safe = M.select(wrap(keep), s, const(np.ones((), s._data.dtype)))
    inv_s = M.select(wrap(keep), 1.0 / safe, const(np.zeros((), s._data.dtype)))
    return L._bmm(v * A.expand_dims(inv_s, -2), u, tb=True)


def _tolerance(v):
    """A pinv tolerance (a number or a Tensor of the batch shape) against (..., k) values."""
    a = np.asarray(v._data if isinstance(v, Tensor) else v, np.float64)
    return a[..., None] if a.ndim else a


# ---- cross products, Vandermonde, blocks ---------------------------------------------------------

def cross(input, other, dim=None):
    """The cross product of 3-vectors along `dim` (None: the first axis of size 3), the inputs
    broadcast."""
    _tensor(input, "cross")
    _tensor(other, "cross", "other")
    if input.ndim != other.ndim:
        raise ValueError(f"For 'cross', the inputs must have one rank, but got shapes "
                         f"{input.shape} and {other.shape}")
    try:
        shape = np.broadcast_shapes(input.shape, other.shape)
    except ValueError:
        raise ValueError(f"For 'cross', the shapes {input.shape} and {other.shape} do not "
                         "broadcast") from None
    if dim is None or dim == -65530:
        dims = [i for i, n in enumerate(shape) if n == 3]
        if not dims:
            raise ValueError(f"For 'cross', no axis of the inputs has size 3: {input.shape}")
        dim = dims[0]
    dim = normalize_axis(check_int(dim, "dim", "cross"), len(shape), "cross")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise ValueError(f"For 'Cross', the size of inputs dim must contain 3, but got shapes "
                         f"{input.shape} and {other.shape} at axis {dim}")
    a = [A.getitem(input, (slice(None),) * dim + (i,)) for i in range(3)]
    b = [A.getitem(other, (slice(None),) * dim + (i,)) for i in range(3)]
    parts = [binary(M._SUB, _mul(a[1], b[2]), _mul(a[2], b[1])),
             binary(M._SUB, _mul(a[2], b[0]), _mul(a[0], b[2])),
             binary(M._SUB, _mul(a[0], b[1]), _mul(a[1], b[0]))]
    return A.Stack(dim)(parts)


def vander(x, N=None):
    """The Vandermonde matrix of a 1-D x with decreasing powers: out[i, j] = x[i] ** (N - 1 - j),
    N columns (default len(x)). Integers give int64."""
    _tensor(x, "vander", "x")
    if x.ndim != 1:
        raise ValueError(f"For 'vander', 'x' must be 1-D, but got shape {x.shape}")
    if N is None:
        N = x.shape[0]
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 0:
        raise ValueError(f"For 'vander', 'N' must be a non-negative int, but got {N!r}")
    if x._data.dtype.kind in "biu":
        x = M.cast(x, np.int64)
    col = A.reshape(x, (-1, 1))
    if N == 0:
        return const(np.zeros((x.shape[0], 0), x._data.dtype))
    powers = [A.ones_like(col)]
    for _ in range(N - 1):
        powers.append(_mul(powers[-1], col))
    return A.Concat(1)(powers[::-1])


def block_diag(*inputs):
    """The block-diagonal matrix of the inputs (0-D as 1 x 1, 1-D as one row), dtypes
    promoted."""
    if not inputs:
        raise ValueError("For 'block_diag', at least one input is needed")
    mats = []
    for k, t in enumerate(inputs):
        _tensor(t, "block_diag", f"inputs[{k}]")
        if t.ndim > 2:
            raise ValueError(f"For 'block_diag', the inputs must be at most 2-D, but input {k} "
                             f"has shape {t.shape}")
        mats.append(A.reshape(t, (1, 1)) if t.ndim == 0 else
                    A.reshape(t, (1, -1)) if t.ndim == 1 else t)
    dt = mats[0]._data.dtype
    for t in mats[1:]:
        dt = mstype.promote(dt, t._data.dtype)
    cols = builtins.sum(t.shape[1] for t in mats)
    rows, left = [], 0
    for t in mats:
        t = M.cast(t, dt)
        rows.append(A.pad(t, ((0, 0), (left, cols - left - t.shape[1]))))
        left += t.shape[1]
    return A.Concat(0)(rows)


def tril_indices(row, col, offset=0, *, dtype=mstype.int64):
    """The (2, N) row and column indices of the lower triangle (below diagonal `offset`) of a
    row x col matrix, row by row."""
    return _triangle_indices(np.tril_indices, row, col, offset, dtype, "tril_indices")


def triu_indices(row, col, offset=0, *, dtype=mstype.int64):
    """The (2, N) row and column indices of the upper triangle (from diagonal `offset`) of a
    row x col matrix, row by row."""
    return _triangle_indices(np.triu_indices, row, col, offset, dtype, "triu_indices")


def _triangle_indices(fn, row, col, offset, dtype, op):
    for name, v in (("row", row), ("col", col), ("offset", offset)):
        check_int(v, name, op)
    if row < 0 or col < 0:
        raise ValueError(f"For '{op}', 'row' and 'col' must be non-negative, but got {row} and "
                         f"{col}")
    np_dt = mstype.to_np(dtype)
    if np_dt not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"For '{op}', 'dtype' must be int32 or int64, but got {dtype}")
    return wrap(np.stack(fn(row, offset, col)).astype(np_dt).reshape(2, -1))


# ---- diagonals and bands -------------------------------------------------------------------------

def _gather_last(x, index):
    """out[..., *index.shape] = x[..., index]: x's last axis gathered by a constant index."""
    flat = np.asarray(index).reshape(-1)
    out = A.gather(x, const(flat.astype(np.int64)), x.ndim - 1) if flat.size else \
        const(np.zeros(x.shape[:-1] + (0,), x._data.dtype))
    return A.reshape(out, x.shape[:-1] + np.shape(index))


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor with the last axis of `input` on the diagonal `offset` of the planes (dim1,
    dim2) of the result (input.ndim + 1 axes), zeros elsewhere."""
    _tensor(input, "diag_embed")
    offset = check_int(offset, "offset", "diag_embed")
    nd = input.ndim + 1
    d1, d2 = (normalize_axis(check_int(d, name, "diag_embed"), nd, "diag_embed")
              for d, name in ((dim1, "dim1"), (dim2, "dim2")))
    if d1 == d2:
        raise ValueError(f"For 'diag_embed', 'dim1' and 'dim2' must differ, but both are {d1}")
    n = input.shape[-1] if input.ndim else 1
    x = input if input.ndim else A.reshape(input, (1,))
    m = n + builtins.abs(offset)
    index = np.full((m, m), n, np.int64)  # n: the padding zero appended below
    t = np.arange(n)
    index[t + builtins.max(-offset, 0), t + builtins.max(offset, 0)] = t
    padded = A.Concat(-1)((x, const(np.zeros(x.shape[:-1] + (1,), x._data.dtype))))
    out = _gather_last(padded, index)
    rest = [i for i in range(nd) if i not in (d1, d2)]
    perm = [0] * nd
    for src, dst in enumerate(rest + [d1, d2]):
        perm[dst] = src
    return A.transpose(out, tuple(perm))


def diagflat(input, offset=0):
    """A 2-D tensor with the flattened input on the diagonal `offset`."""
    _tensor(input, "diagflat")
    return diag_embed(A.reshape(input, (-1,)), check_int(offset, "offset", "diagflat"))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of `input` with its diagonal `offset` of the planes (dim1, dim2) replaced by `src`
    (shaped as `ops.diagonal(input, offset, dim1, dim2)`)."""
    _tensor(input, "diagonal_scatter")
    _tensor(src, "diagonal_scatter", "src")
    diag_shape = AF.diagonal(input, offset, dim1, dim2).shape
    if src.shape != diag_shape:
        raise ValueError(f"For 'diagonal_scatter', the shape of src should equal to the shape of "
                         f"input diagonal, but got src.shape {src.shape} and diagonal shape "
                         f"{diag_shape}")
    d1, d2 = (normalize_axis(d, input.ndim, "diagonal_scatter") for d in (dim1, dim2))
    rest = [i for i in range(input.ndim) if i not in (d1, d2)]
    moved = A.transpose(input, tuple(rest + [d1, d2]))
    r, c = moved.shape[-2:]
    length = diag_shape[-1]
    t = np.arange(length)
    rows, cols = t + builtins.max(-offset, 0), t + builtins.max(offset, 0)
    # one gather from [moved flattened | src]: the diagonal reads src, the rest moved
    index = np.arange(r * c).reshape(r, c)
    index[rows, cols] = r * c + t
    both = A.Concat(-1)((A.reshape(moved, moved.shape[:-2] + (r * c,)),
                         M.cast(src, input._data.dtype)))
    out = _gather_last(both, index)
    perm = [0] * input.ndim
    for k, d in enumerate(rest + [d1, d2]):
        perm[d] = k
    return A.transpose(out, tuple(perm))


def _int_scalar(v, name, op):
    if isinstance(v, Tensor):
        if v._data.dtype.kind not in "iu" or v._data.size != 1:
            raise TypeError(f"For '{op}', '{name}' must be an integer scalar, but got {v.dtype} "
                            f"of shape {v.shape}")
        return int(v)
    return check_int(v, name, op)


def matrix_band_part(x, lower, upper):
    """x with the entries outside the band zeroed: kept where i - j <= lower (all below when
    lower < 0) and j - i <= upper (all above when upper < 0)."""
    _tensor(x, "matrix_band_part", "x")
    if x.ndim < 2:
        raise ValueError(f"For 'matrix_band_part', 'x' must be at least 2-D, but got shape "
                         f"{x.shape}")
    lo, up = _int_scalar(lower, "lower", "matrix_band_part"), \
        _int_scalar(upper, "upper", "matrix_band_part")
    m, n = x.shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((lo < 0) | (i - j <= lo)) & ((up < 0) | (j - i <= up))
    return M.select(wrap(keep), x, const(np.zeros((), x._data.dtype)))


_ALIGNS = ("LEFT_RIGHT", "LEFT_LEFT", "RIGHT_LEFT", "RIGHT_RIGHT")


def _diag_range(k, op):
    if isinstance(k, Tensor):
        vals = k._data.reshape(-1).tolist()
        if k._data.dtype.kind not in "iu":
            raise TypeError(f"For '{op}', 'k' must be an integer tensor, but got {k.dtype}")
    elif isinstance(k, (tuple, list)):
        vals = [check_int(v, "k", op) for v in k]
    else:
        vals = [check_int(k, "k", op)]
    if len(vals) not in (1, 2) or vals[0] > vals[-1]:
        raise ValueError(f"For '{op}', 'k' must be one diagonal or a pair k[0] <= k[1], but "
                         f"got {vals}")
    return int(vals[0]), int(vals[-1]), len(vals) == 2 and vals[0] != vals[1]


def _diag_offset(d, diag_len, max_len, align):
    """Where diagonal d starts in its row of the packed (num_diags, max_len) layout."""
    sup, sub = align.split("_")
    left = (d >= 0 and sup == "LEFT") or (d <= 0 and sub == "LEFT")
    return 0 if left else max_len - diag_len


def _check_align(align, op):
    if align not in _ALIGNS:
        raise ValueError(f"For '{op}', 'align' must be one of {_ALIGNS}, but got {align!r}")


def _diag_len(d, rows, cols):
    return builtins.min(rows + builtins.min(d, 0), cols - builtins.max(d, 0))


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """A batch of matrices with the diagonals k (one int, or a range [k0, k1]: then x holds
    k1 - k0 + 1 diagonals, from k1 down) taken from x's last axis (axes), `padding_value`
    elsewhere. Shorter diagonals are packed by `align` (superdiagonals first, then
    subdiagonals: 'RIGHT_LEFT' right-aligns the former and left-aligns the latter)."""
    _tensor(x, "matrix_diag", "x")
    _check_align(align, "matrix_diag")
    k0, k1, ranged = _diag_range(k, "matrix_diag")
    if x.ndim < (2 if ranged else 1):
        raise ValueError(f"For 'matrix_diag', 'x' has too few axes for k = {[k0, k1]}: shape "
                         f"{x.shape}")
    diags = x if ranged else A.expand_dims(x, -2)
    num = k1 - k0 + 1
    if diags.shape[-2] != num:
        raise ValueError(f"For 'matrix_diag', 'x' must hold {num} diagonals, but got shape "
                         f"{x.shape}")
    max_len = diags.shape[-1]
    min_rows, min_cols = max_len - builtins.min(k1, 0), max_len + builtins.max(k0, 0)
    rows = _int_scalar(num_rows, "num_rows", "matrix_diag")
    cols = _int_scalar(num_cols, "num_cols", "matrix_diag")
    if rows == -1 and cols == -1:
        rows = cols = builtins.max(min_rows, min_cols)
    rows = min_rows if rows == -1 else rows
    cols = min_cols if cols == -1 else cols
    if rows < min_rows or cols < min_cols:
        raise ValueError(f"For 'matrix_diag', the number of rows or columns ({rows}, {cols}) is "
                         f"not consistent with k = {[k0, k1]} and x of shape {x.shape}")
    pad_slot = num * max_len
    index = np.full((rows, cols), pad_slot, np.int64)
    for d in range(k0, k1 + 1):
        length = _diag_len(d, rows, cols)
        if length <= 0:
            continue
        start = _diag_offset(d, length, max_len, align)
        t = np.arange(length)
        index[t + builtins.max(-d, 0), t + builtins.max(d, 0)] = (k1 - d) * max_len + start + t
    flat = A.reshape(diags, diags.shape[:-2] + (pad_slot,))
    pad = padding_value if isinstance(padding_value, Tensor) else \
        const(np.asarray(padding_value, x._data.dtype))
    pad = A.broadcast_to(A.reshape(M.cast(pad, x._data.dtype), (1,) * flat.ndim),
                         flat.shape[:-1] + (1,))
    return _gather_last(A.Concat(-1)((flat, pad)), index)


def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT"):
    """The diagonals k (one int, or a range [k0, k1], packed from k1 down as `matrix_diag`
    reads them) of the matrices in x's last two axes, short ones filled with
    `padding_value`."""
    _tensor(x, "matrix_diag_part", "x")
    _check_align(align, "matrix_diag_part")
    if x.ndim < 2:
        raise ValueError(f"For 'matrix_diag_part', 'x' must be at least 2-D, but got shape "
                         f"{x.shape}")
    k0, k1, ranged = _diag_range(k, "matrix_diag_part")
    rows, cols = x.shape[-2:]
    if not (-rows < k0 <= k1 < cols) and rows * cols:
        raise ValueError(f"For 'matrix_diag_part', k = {[k0, k1]} is out of range for "
                         f"matrices {rows} x {cols}")
    lens = [_diag_len(d, rows, cols) for d in range(k0, k1 + 1)]
    max_len = builtins.max(lens)
    pad_slot = rows * cols
    index = np.full((k1 - k0 + 1, max_len), pad_slot, np.int64)
    for d, length in zip(range(k0, k1 + 1), lens):
        start = _diag_offset(d, length, max_len, align)
        t = np.arange(length)
        index[k1 - d, start + t] = (t + builtins.max(-d, 0)) * cols + t + builtins.max(d, 0)
    flat = A.reshape(x, x.shape[:-2] + (pad_slot,))
    pad = padding_value if isinstance(padding_value, Tensor) else \
        const(np.asarray(padding_value, x._data.dtype))
    pad = A.broadcast_to(A.reshape(M.cast(pad, x._data.dtype), (1,) * flat.ndim),
                         flat.shape[:-1] + (1,))
    out = _gather_last(A.Concat(-1)((flat, pad)), index)
    return out if ranged else A.reshape(out, out.shape[:-2] + (max_len,))


def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """x with its diagonals k (one int, or a range [k0, k1]) replaced by `diagonal`, packed as
    `matrix_diag_part` returns them."""
    _tensor(x, "matrix_set_diag", "x")
    _tensor(diagonal, "matrix_set_diag", "diagonal")
    _check_align(align, "matrix_set_diag")
    if x.ndim < 2:
        raise ValueError(f"For 'matrix_set_diag', 'x' must be at least 2-D, but got shape "
                         f"{x.shape}")
    k0, k1, ranged = _diag_range(k, "matrix_set_diag")
    rows, cols = x.shape[-2:]
    lens = [_diag_len(d, rows, cols) for d in range(k0, k1 + 1)]
    max_len = builtins.max(lens)
    want = x.shape[:-2] + ((k1 - k0 + 1, max_len) if ranged else (max_len,))
    if diagonal.shape != want:
        raise ValueError(f"For 'matrix_set_diag', 'diagonal' must have shape {want}, but got "
                         f"{diagonal.shape}")
    index = np.arange(rows * cols).reshape(rows, cols)
    for d, length in zip(range(k0, k1 + 1), lens):
        start = _diag_offset(d, length, max_len, align)
        t = np.arange(length)
        index[t + builtins.max(-d, 0), t + builtins.max(d, 0)] = \
            rows * cols + (k1 - d) * max_len + start + t
    flat_x = A.reshape(x, x.shape[:-2] + (rows * cols,))
    flat_d = A.reshape(M.cast(diagonal, x._data.dtype), x.shape[:-2] + (-1,))
    return _gather_last(A.Concat(-1)((flat_x, flat_d)), index)


# ---- MindSpore's composite classes ---------------------------------------------------------------

class _Composite(Primitive):
    """A MindSpore class whose call runs the functional op above (one implementation, its
    gradients from the primitives it is built of)."""


class CholeskyInverse(_Composite):
    """`CholeskyInverse(upper=False)(input_x)`: see `cholesky_inverse`."""

    def __init__(self, upper=False):
        super().__init__()
        self.upper = _bool_arg(upper, "upper", "CholeskyInverse")

    def __call__(self, input_x):
        return cholesky_inverse(input_x, self.upper)


class CholeskySolve(_Composite):
    """`CholeskySolve(upper=False)(x1, x2)`: X solving (x2 x2^T) X = x1 (see
    `cholesky_solve`)."""

    def __init__(self, upper=False):
        super().__init__()
        self.upper = _bool_arg(upper, "upper", "CholeskySolve")

    def __call__(self, x1, x2):
        return cholesky_solve(x1, x2, self.upper)


class Cdist(_Composite):
    """`Cdist(p=2.0)(x1, x2)`: see `cdist`."""

    def __init__(self, p=2.0):
        super().__init__()
        self.p = _p_value(p, "Cdist")

    def __call__(self, x1, x2):
        return cdist(x1, x2, self.p)


class Pdist(_Composite):
    """`Pdist(p=2.0)(x)`: see `pdist`."""

    def __init__(self, p=2.0):
        super().__init__()
        self.p = _p_value(p, "Pdist")

    def __call__(self, x):
        return pdist(x, self.p)


class Cross(_Composite):
    """`Cross(dim=-65530)(input, other)`: see `cross` (the default picks the first axis of
    size 3)."""

    def __init__(self, dim=-65530):
        super().__init__()
        self.dim = check_int(dim, "dim", "Cross")

    def __call__(self, input, other):
        return cross(input, other, self.dim)


class Diag(_Composite):
    """`Diag()(input)`: see `ops.diag`."""

    def __init__(self):
        super().__init__()

    def __call__(self, input):
        return AF.diag(input)


class DiagPart(_Composite):
    """`DiagPart()(input)`: out[i...] = input[i..., i...] for an input of shape s + s."""

    def __init__(self):
        super().__init__()

    def __call__(self, input):
        _tensor(input, "DiagPart")
        half = input.ndim // 2
        if input.ndim == 0 or input.ndim % 2 or input.shape[:half] != input.shape[half:]:
            raise ValueError(f"For 'DiagPart', the input must have shape s + s, but got "
                             f"{input.shape}")
        n = math.prod(input.shape[:half])
        return A.reshape(AF.diagonal(A.reshape(input, (n, n))), input.shape[:half])


class Ger(_Composite):
    """`Ger()(x1, x2)`: see `ger`."""

    def __init__(self):
        super().__init__()

    def __call__(self, x1, x2):
        return ger(x1, x2)


class Tril(_Composite):
    """`Tril(diagonal=0)(x)`: see `ops.tril`."""

    def __init__(self, diagonal=0):
        super().__init__()
        self.diagonal = check_int(diagonal, "diagonal", "Tril")

    def __call__(self, x):
        return AF.tril(x, self.diagonal)


class Triu(_Composite):
    """`Triu(diagonal=0)(input)`: see `ops.triu`."""

    def __init__(self, diagonal=0):
        super().__init__()
        self.diagonal = check_int(diagonal, "diagonal", "Triu")

    def __call__(self, input):
        return AF.triu(input, self.diagonal)


class Trace(_Composite):
    """`Trace()(input)`: see `trace`."""

    def __init__(self):
        super().__init__()

    def __call__(self, input):
        return trace(input)


class MatrixPower(_Composite):
    """`MatrixPower(n)(x)`: see `matrix_power`."""

    def __init__(self, n):
        super().__init__()
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"For 'MatrixPower', 'n' must be an int, but got {type(n).__name__}")
        self.n = int(n)

    def __call__(self, x):
        return matrix_power(x, self.n)


class MatrixBandPart(_Composite):
    """`MatrixBandPart()(x, lower, upper)`: see `matrix_band_part`."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, lower, upper):
        return matrix_band_part(x, lower, upper)


class MatrixDiagV3(_Composite):
    """`MatrixDiagV3(align='RIGHT_LEFT')(x, k, num_rows, num_cols, padding_value)`: see
    `matrix_diag`."""

    def __init__(self, align="RIGHT_LEFT"):
        super().__init__()
        _check_align(align, "MatrixDiagV3")
        self.align = align

    def __call__(self, x, k, num_rows, num_cols, padding_value):
        return matrix_diag(x, k, num_rows, num_cols, padding_value, self.align)


class MatrixDiagPartV3(_Composite):
    """`MatrixDiagPartV3(align='RIGHT_LEFT')(x, k, padding_value)`: see `matrix_diag_part`."""

    def __init__(self, align="RIGHT_LEFT"):
        super().__init__()
        _check_align(align, "MatrixDiagPartV3")
        self.align = align

    def __call__(self, x, k, padding_value):
        return matrix_diag_part(x, k, padding_value, self.align)


class MatrixSetDiagV3(_Composite):
    """`MatrixSetDiagV3(align='RIGHT_LEFT')(x, diagonal, k)`: see `matrix_set_diag`."""

    def __init__(self, align="RIGHT_LEFT"):
        super().__init__()
        _check_align(align, "MatrixSetDiagV3")
        self.align = align

    def __call__(self, x, diagonal, k):
        return matrix_set_diag(x, diagonal, k, self.align)


class Lstsq(_Composite):
    """`Lstsq(fast=True, l2_regularizer=0.0)(matrix, rhs)`: see `lstsq` (MindSpore accepts no
    regulariser here: see `MatrixSolveLs`)."""

    def __init__(self, fast=True, l2_regularizer=0.0):
        super().__init__()
        self.fast = _bool_arg(fast, "fast", "Lstsq")
        if l2_regularizer != 0.0:
            raise TypeError(f"For 'Lstsq', the 'l2_regularizer' should be 0.0, but got "
                            f"{l2_regularizer!r}")
        self.l2_regularizer = 0.0

    def __call__(self, matrix, rhs):
        return lstsq(matrix, rhs)


class MatrixSolveLs(_Composite):
    """`MatrixSolveLs(fast=True)(matrix, rhs, l2_regularizer)`: the (batched) regularised
    least-squares solution min ||matrix X - rhs||^2 + l2 ||X||^2, by the normal equations
    (the minimum-norm form for wide matrices). `fast=False` takes the pseudo-inverse and
    ignores the regulariser, for rank-deficient matrices."""

    def __init__(self, fast=True):
        super().__init__()
        self.fast = _bool_arg(fast, "fast", "MatrixSolveLs")

    def __call__(self, matrix, rhs, l2_regularizer):
        _ls_args(matrix, rhs, "MatrixSolveLs")
        if rhs.ndim < 2 or matrix.shape[:-2] != rhs.shape[:-2]:
            raise ValueError(f"For 'MatrixSolveLs', 'matrix' (..., m, n) and 'rhs' (..., m, k) "
                             f"need one batch shape, but got {matrix.shape} and {rhs.shape}")
        if not self.fast:
            return L._bmm(pinv(matrix), rhs)
        l2 = float(l2_regularizer._data if isinstance(l2_regularizer, Tensor)
                   else l2_regularizer)
        if l2 < 0:
            raise ValueError(f"For 'MatrixSolveLs', 'l2_regularizer' must be non-negative, but "
                             f"got {l2}")
        return _solve_ls(matrix, rhs, l2, "MatrixSolveLs")


class LuSolve(_Composite):
    """`LuSolve()(x, lu_data, lu_pivots)`: see `lu_solve`."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, lu_data, lu_pivots):
        return lu_solve(x, lu_data, lu_pivots)


class LuUnpack(_Composite):
    """`LuUnpack(unpack_data=True, unpack_pivots=True)(LU_data, LU_pivots)`: see
    `lu_unpack`."""

    def __init__(self, unpack_data=True, unpack_pivots=True):
        super().__init__()
        self.unpack_data = _bool_arg(unpack_data, "unpack_data", "LuUnpack")
        self.unpack_pivots = _bool_arg(unpack_pivots, "unpack_pivots", "LuUnpack")

    def __call__(self, LU_data, LU_pivots):
        return lu_unpack(LU_data, LU_pivots, self.unpack_data, self.unpack_pivots)


class Orgqr(_Composite):
    """`Orgqr()(x, tau)`: see `orgqr`."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, tau):
        return orgqr(x, tau)


class Ormqr(_Composite):
    """`Ormqr(left=True, transpose=False)(x, tau, other)`: see `ormqr`."""

    def __init__(self, left=True, transpose=False):
        super().__init__()
        self.left = _bool_arg(left, "left", "Ormqr")
        self.transpose = _bool_arg(transpose, "transpose", "Ormqr")

    def __call__(self, x, tau, other):
        return ormqr(x, tau, other, self.left, self.transpose)


class TridiagonalMatMul(_Composite):
    """`TridiagonalMatMul()(superdiag, maindiag, subdiag, rhs)`: the tridiagonal matrix with
    these diagonals (each (..., 1, M); the last superdiagonal and the first subdiagonal entry
    unused) times rhs (..., M, N)."""

    def __init__(self):
        super().__init__()

    def __call__(self, superdiag, maindiag, subdiag, rhs):
        for name, v in (("superdiag", superdiag), ("maindiag", maindiag), ("subdiag", subdiag),
                        ("rhs", rhs)):
            _tensor(v, "TridiagonalMatMul", name)
        if rhs.ndim < 2:
            raise ValueError(f"For 'TridiagonalMatMul', 'rhs' must be at least 2-D, but got "
                             f"shape {rhs.shape}")
        m = rhs.shape[-2]
        want = rhs.shape[:-2] + (1, m)
        for name, v in (("superdiag", superdiag), ("maindiag", maindiag), ("subdiag", subdiag)):
            if v.shape != want:
                raise ValueError(f"For 'TridiagonalMatMul', '{name}' must have shape {want}, but "
                                 f"got {v.shape}")
        cols = [L._mT(v) for v in (superdiag, maindiag, subdiag)]
        zero = A.zeros_like(A.getitem(rhs, (Ellipsis, slice(0, 1), slice(None))))
        below = A.Concat(-2)((A.getitem(rhs, (Ellipsis, slice(1, None), slice(None))), zero))
        above = A.Concat(-2)((zero, A.getitem(rhs, (Ellipsis, slice(0, m - 1), slice(None)))))
        return cols[1] * rhs + cols[0] * below + cols[2] * above


class TrilIndices(_Composite):
    """`TrilIndices(row, col, offset=0, dtype=int32)()`: see `tril_indices`."""

    def __init__(self, row, col, offset=0, dtype=mstype.int32):
        super().__init__()
        self.row, self.col, self.offset, self.dtype = row, col, offset, dtype

    def __call__(self):
        return tril_indices(self.row, self.col, self.offset, dtype=self.dtype)


class TriuIndices(_Composite):
    """`TriuIndices(row, col, offset=0, dtype=int32)()`: see `triu_indices`."""

    def __init__(self, row, col, offset=0, dtype=mstype.int32):
        super().__init__()
        self.row, self.col, self.offset, self.dtype = row, col, offset, dtype

    def __call__(self):
        return triu_indices(self.row, self.col, self.offset, dtype=self.dtype)


def _axes_arg(axes, op):
    if isinstance(axes, Tensor):
        return tuple(int(a) for a in axes._data.reshape(-1))
    if isinstance(axes, (int, np.integer)):
        return (int(axes),)
    return tuple(check_int(a, "axes", op) for a in axes)


class EuclideanNorm(_Composite):
    """`EuclideanNorm(keep_dims=False)(x, axes)`: sqrt(sum(x^2)) over `axes` (an int, a
    sequence or an integer Tensor); integers keep their dtype (the root truncated)."""

    def __init__(self, keep_dims=False):
        super().__init__()
        self.keep_dims = _bool_arg(keep_dims, "keep_dims", "EuclideanNorm")

    def __call__(self, x, axes):
        _tensor(x, "EuclideanNorm", "x")
        dims = tuple(normalize_axis(a, builtins.max(x.ndim, 1), "EuclideanNorm")
                     for a in _axes_arg(axes, "EuclideanNorm"))
        out = _vnorm(_floating(x), 2, dims, self.keep_dims)
        return M.cast(out, x._data.dtype) if x._data.dtype.kind in "iu" else out


class LpNorm(_Composite):
    """`LpNorm(axis, p=2, keep_dims=False, epsilon=1e-12)(input)`: the p-norm over `axis` (an
    int or a tuple)."""

    def __init__(self, axis, p=2, keep_dims=False, epsilon=1e-12):
        super().__init__()
        self.axis = (check_int(axis, "axis", "LpNorm"),) if isinstance(axis, (int, np.integer)) \
            else tuple(check_int(a, "axis", "LpNorm") for a in axis)
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 0:
            raise TypeError(f"For 'LpNorm', 'p' must be a non-negative int, but got {p!r}")
        self.p, self.keep_dims = int(p), _bool_arg(keep_dims, "keep_dims", "LpNorm")
        self.epsilon = float(epsilon)

    def __call__(self, input):
        _float_tensor(input, "LpNorm")
        dims = tuple(normalize_axis(a, builtins.max(input.ndim, 1), "LpNorm") for a in self.axis)
        return _vnorm(input, self.p, dims, self.keep_dims)


class NuclearNorm(_Composite):
    """`NuclearNorm(dim=None, keepdim=False)(input)`: the sum of the singular values over the
    two axes `dim` (None: a 2-D input)."""

    def __init__(self, dim=None, keepdim=False):
        super().__init__()
        self.dim = None if dim is None else tuple(check_int(d, "dim", "NuclearNorm") for d in dim)
        self.keepdim = _bool_arg(keepdim, "keepdim", "NuclearNorm")

    def __call__(self, input):
        _float_tensor(input, "NuclearNorm")
        if self.dim is None:
            if input.ndim != 2:
                raise ValueError(f"For 'NuclearNorm', when dim is not set, the input must be "
                                 f"2-D, but got shape {input.shape}")
            dims = (0, 1)
        else:
            if len(self.dim) != 2:
                raise ValueError(f"For 'NuclearNorm', 'dim' must name two axes, but got "
                                 f"{self.dim}")
            dims = tuple(normalize_axis(d, input.ndim, "NuclearNorm") for d in self.dim)
            if dims[0] == dims[1]:
                raise ValueError(f"For 'NuclearNorm', 'dim' must name two axes, but got "
                                 f"{self.dim}")
        return _mnorm(input, "nuc", dims, self.keepdim)


class Renorm(_Composite):
    """`Renorm(p, dim, maxnorm)(input)`: see `renorm`."""

    def __init__(self, p, dim, maxnorm):
        super().__init__()
        self.p, self.dim, self.maxnorm = p, dim, maxnorm

    def __call__(self, input):
        return renorm(input, self.p, self.dim, self.maxnorm)


PRIMITIVE_CLASSES = (
    "CholeskyInverse", "CholeskySolve", "Cdist", "Pdist", "Cross", "Diag", "DiagPart", "Ger",
    "Tril", "Triu", "Trace", "MatrixPower", "MatrixBandPart", "MatrixDiagV3", "MatrixDiagPartV3",
    "MatrixSetDiagV3", "Lstsq", "MatrixSolveLs", "LuSolve", "LuUnpack", "Orgqr", "Ormqr",
    "TridiagonalMatMul", "TrilIndices", "TriuIndices", "EuclideanNorm", "LpNorm", "NuclearNorm",
    "Renorm",
)


def einsum_ext(equation, *operands):
    """`einsum` under MindSpore's newer name (the same contraction and gradients)."""
    return einsum(equation, *operands)
