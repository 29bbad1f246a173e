"""MindSpore 2.10's math and matrix cells (DiGamma, IGamma, LGamma, LBeta, MatDet, MatInverse,
MatMul, ReduceLogSumExp, MatrixDiag, MatrixDiagPart, MatrixSetDiag), built from minispore ops so
that their gradients come from the tape."""

from ..._validator import check_bool, check_type, type_name
from ...common.tensor import Tensor
from ...ops.function import array_func as AF
from ...ops.function import linalg_func as LA
from ...ops.function import math_func as F
from ...ops.function import special_func as SF
from ..cell import Cell

__all__ = [
    "DiGamma",
    "IGamma",
    "LBeta",
    "LGamma",
    "MatDet",
    "MatInverse",
    "MatMul",
    "MatrixDiag",
    "MatrixDiagPart",
    "MatrixSetDiag",
    "ReduceLogSumExp",
]


def _float_tensor(x, arg, owner):
    """A TypeError unless `x` is a float Tensor (float16/32, and float64 for gradient checks)."""
    check_type(x, Tensor, arg, owner)
    if x._data.dtype.kind != "f":
        raise TypeError(f"For '{owner}', the '{arg}' must be a float Tensor, but got {x.dtype}")
    return x


class DiGamma(Cell):
    """The digamma function psi(x) = d/dx log Gamma(x), elementwise."""

    def __init__(self):
        super().__init__()

    def construct(self, x):
        return SF.digamma(_float_tensor(x, "x", "DiGamma"))


class LGamma(Cell):
    """log |Gamma(x)|, elementwise."""

    def __init__(self):
        super().__init__()

    def construct(self, x):
        return SF.lgamma(_float_tensor(x, "x", "LGamma"))


class IGamma(Cell):
    """The regularized lower incomplete gamma function P(a, x), broadcast."""

    def __init__(self):
        super().__init__()

    def construct(self, a, x):
        _float_tensor(a, "a", "IGamma")
        _float_tensor(x, "x", "IGamma")
        if a._data.dtype != x._data.dtype:
            raise TypeError(f"For 'IGamma', the 'x' must have the dtype of 'a' ({a.dtype}), but "
                            f"got {x.dtype}")
        return SF.igamma(a, x)


class LBeta(Cell):
    """log |Beta(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y), broadcast."""

    def __init__(self):
        super().__init__()

    def construct(self, x, y):
        _float_tensor(x, "x", "LBeta")
        _float_tensor(y, "y", "LBeta")
        if x._data.dtype != y._data.dtype:
            raise TypeError(f"For 'LBeta', the 'y' must have the dtype of 'x' ({x.dtype}), but "
                            f"got {y.dtype}")
        return SF.lgamma(x) + SF.lgamma(y) - SF.lgamma(x + y)


def _square_batch(a, owner):
    _float_tensor(a, "a", owner)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"For '{owner}', the 'a' must be a batch of square matrices, but got "
                         f"shape {a.shape}")
    return a


class MatDet(Cell):
    """Determinants of a batch of symmetric positive-definite matrices (..., M, M) -> (...)."""

    def __init__(self):
        super().__init__()

    def construct(self, a):
        return LA.det(_square_batch(a, "MatDet"))


class MatInverse(Cell):
    """Inverses of a batch of symmetric positive-definite matrices (..., M, M)."""

    def __init__(self):
        super().__init__()

    def construct(self, a):
        return LA.inverse(_square_batch(a, "MatInverse"))


class MatMul(Cell):
    """Batched matrix product with broadcasting of the leading axes; a 1-d operand is a vector
    (its added axis is removed again); `transpose_x1`/`transpose_x2` swap the last two axes."""

    def __init__(self, transpose_x1=False, transpose_x2=False):
        super().__init__()
        self.transpose_x1 = check_bool(transpose_x1, "transpose_x1", "MatMul")
        self.transpose_x2 = check_bool(transpose_x2, "transpose_x2", "MatMul")

    def construct(self, x1, x2):
        check_type(x1, Tensor, "x1", "MatMul")
        check_type(x2, Tensor, "x2", "MatMul")
        if self.transpose_x1 and x1.ndim > 1:
            x1 = AF.swapaxes(x1, -1, -2)
        if self.transpose_x2 and x2.ndim > 1:
            x2 = AF.swapaxes(x2, -1, -2)
        k1 = x1.shape[-1]
        k2 = x2.shape[0] if x2.ndim == 1 else x2.shape[-2]
        if k1 != k2:
            raise ValueError(f"For 'MatMul', the column of 'x1' must equal the row of 'x2', but "
                             f"got {k1} and {k2} (shapes {x1.shape} and {x2.shape})")
        return LA.matmul(x1, x2)

    def extend_repr(self):
        return f"transpose_x1={self.transpose_x1}, transpose_x2={self.transpose_x2}"


class ReduceLogSumExp(Cell):
    """log(sum(exp(x))) over `axis` (an int, or a tuple/list; () for every axis)."""

    def __init__(self, axis, keep_dims=False):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, (int, list, tuple)):
            raise TypeError(f"For 'ReduceLogSumExp', the 'axis' must be an int, list or tuple, "
                            f"but got {type_name(axis)}")
        self.axis = axis
        self.keep_dims = check_bool(keep_dims, "keep_dims", "ReduceLogSumExp")

    def construct(self, x):
        _float_tensor(x, "x", "ReduceLogSumExp")
        axis = self.axis
        if isinstance(axis, (list, tuple)):
            axis = tuple(range(x.ndim)) if len(axis) == 0 else tuple(axis)
        return F.logsumexp(x, axis, self.keep_dims)

    def extend_repr(self):
        return f"axis={self.axis}, keep_dims={self.keep_dims}"


class MatrixDiag(Cell):
    """A batch of diagonal matrices from the last axis of x: (..., N) -> (..., N, N)."""

    def __init__(self):
        super().__init__()

    def construct(self, input_x):
        check_type(input_x, Tensor, "input_x", "MatrixDiag")
        return LA.matrix_diag(input_x)


def _check_matrix(x, owner):
    check_type(x, Tensor, "input_x", owner)
    if x.ndim < 2:
        raise ValueError(f"For '{owner}', the 'input_x' must have at least 2 dims, but got "
                         f"shape {x.shape}")


class MatrixDiagPart(Cell):
    """The main diagonals of a batch of matrices: (..., M, N) -> (..., min(M, N))."""

    def __init__(self):
        super().__init__()

    def construct(self, input_x):
        _check_matrix(input_x, "MatrixDiagPart")
        return AF.diagonal(input_x, 0, -2, -1)


class MatrixSetDiag(Cell):
    """A batch of matrices (..., M, N) with their main diagonals replaced by `diagonal`
    (..., min(M, N))."""

    def __init__(self):
        super().__init__()

    def construct(self, input_x, diagonal):
        _check_matrix(input_x, "MatrixSetDiag")
        check_type(diagonal, Tensor, "diagonal", "MatrixSetDiag")
        expected = input_x.shape[:-2] + (min(input_x.shape[-2:]),)
        if diagonal.shape != expected:
            raise ValueError(f"For 'MatrixSetDiag', the 'diagonal' must have shape {expected}, "
                             f"but got {diagonal.shape}")
        return LA.matrix_set_diag(input_x, diagonal)
