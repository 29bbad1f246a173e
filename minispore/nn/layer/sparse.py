"""The sparse cells: SparseToDense (a COOTensor to its dense Tensor) and
SparseTensorDenseMatmul (a COO matrix times a dense one)."""
from ..._validator import check_bool, check_type
from ...ops.function.sparse_func import COOTensor
from ...ops.function.sparse_func import SparseTensorDenseMatmul as _SparseDenseMatmul
from ..cell import Cell

__all__ = ["SparseTensorDenseMatmul", "SparseToDense"]


class SparseToDense(Cell):
    """The dense Tensor of a COOTensor (zeros where it has no entry)."""

    def __init__(self):
        super().__init__()

    def construct(self, sparse_tensor):
        check_type(sparse_tensor, COOTensor, "sparse_tensor", "SparseToDense")
        return sparse_tensor.to_dense()


class SparseTensorDenseMatmul(Cell):
    """A @ B for the sparse (rows, cols) matrix A given as (indices, values, sparse_shape) and a
    dense B; `adjoint_st` / `adjoint_dt` transpose A / B first."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        self.adjoint_st = check_bool(adjoint_st, "adjoint_st", "SparseTensorDenseMatmul")
        self.adjoint_dt = check_bool(adjoint_dt, "adjoint_dt", "SparseTensorDenseMatmul")
        self._matmul = _SparseDenseMatmul(adjoint_st, adjoint_dt)

    def construct(self, indices, values, sparse_shape, dense):
        return self._matmul(indices, values, sparse_shape, dense)
