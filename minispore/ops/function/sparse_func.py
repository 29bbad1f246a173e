"""Sparse tensors: `COOTensor` (indices (nnz, ndim) and values), `CSRTensor` (2-D: indptr,
column indices and values) and `RowTensor` (a slice of rows of a dense tensor), with MindSpore's
coo_* / csr_* functions.

The sparsity pattern (indices, indptr) is integer data; the values are a Tensor, and every
operation computes the new values with differentiable ops, so gradients flow to the values. A
unary `coo_sin(x)` applies to the stored values only, as MindSpore does (coo_cos of a stored
entry is cos of it; the implicit zeros stay zeros even where f(0) != 0).
"""
import numpy as np

from ..._validator import type_name
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations.math_ops import cast
from ..primitive import Primitive
from . import array_func as A
from . import math_func as M
from . import nn_func as N
from . import special_func as S

__all__ = [
    "coo2csr", "csr2coo", "coo_add", "coo_concat", "coo_tensor_get_dense_shape",
    "coo_tensor_get_indices", "coo_tensor_get_values", "csr_add", "csr_div", "csr_gather",
    "csr_mm", "csr_mul", "csr_mv", "csr_reduce_sum", "csr_softmax", "csr_tensor_get_dense_shape",
    "csr_tensor_get_indices", "csr_tensor_get_indptr", "csr_tensor_get_values", "csr_to_coo",
    "csr_to_dense", "dense_to_sparse_coo", "dense_to_sparse_csr", "coalesce", "make_coo_tensor",
    "make_csr_tensor", "make_row_tensor", "make_sparse_tensor", "row_tensor_add",
    "row_tensor_get_dense_shape", "row_tensor_get_indices", "row_tensor_get_values",
    "sparse_segment_mean",
]
PRIMITIVE_CLASSES = ("Coalesce", "SparseToDense", "SparseTensorDenseMatmul",
                     "SparseTensorDenseAdd", "SparseSlice")


def _tensor(name, arg, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type_name(value)}")
    return value


def _int_tensor(name, arg, value, ndim):
    _tensor(name, arg, value)
    if value._data.dtype.kind not in "iu" or value.ndim != ndim:
        raise TypeError(f"For '{name}', '{arg}' must be a {ndim}-D integer Tensor, but got "
                        f"{value.dtype} of shape {value.shape}")
    return value._data


def _shape(name, shape):
    if isinstance(shape, Tensor):
        shape = tuple(int(s) for s in shape.tolist())
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s > 0 for s in shape):
        raise ValueError(f"For '{name}', 'shape' must be a tuple of positive ints, but got {shape}")
    return tuple(int(s) for s in shape)


def _flat_positions(idx, shape):
    """Row-major positions of the (nnz, ndim) indices `idx` in a dense tensor of `shape`."""
    return np.ravel_multi_index(tuple(idx.T), shape) if idx.size else np.zeros(0, np.int64)


def _scatter(positions, values, shape):
    """A dense tensor of `shape` with `values` (a Tensor of shape (nnz,) + rest) added at the
    flat `positions`; differentiable in `values`."""
    size = int(np.prod(shape[:len(shape) - values.ndim + 1]))
    dense = A.scatter_nd(Tensor(positions.reshape(-1, 1).astype(np.int64)), values,
                         (size,) + values.shape[1:])
    return A.reshape(dense, shape)


def _gather(dense, positions):
    """The entries of `dense` at the flat positions (differentiable in `dense`)."""
    return A.gather(A.reshape(dense, (-1,)), Tensor(positions.astype(np.int64)), 0)


class COOTensor:
    """A sparse tensor in coordinate format: `COOTensor(indices, values, shape)` with indices an
    integer Tensor of shape (nnz, ndim), values a Tensor of shape (nnz,) and shape the dense
    shape. `coo_tensor=` copies another COOTensor."""

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None):
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise TypeError(f"For 'COOTensor', 'coo_tensor' must be a COOTensor, but got "
                                f"{type_name(coo_tensor)}")
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        shape = _shape("COOTensor", shape)
        idx = _int_tensor("COOTensor", "indices", indices, 2)
        _tensor("COOTensor", "values", values)
        if values.ndim != 1 or idx.shape != (values.shape[0], len(shape)):
            raise ValueError(f"For 'COOTensor', 'indices' must have shape (nnz, {len(shape)}) "
                             f"and 'values' shape (nnz,), but got {idx.shape} and {values.shape}")
        if idx.size and ((idx < 0).any() or (idx >= np.array(shape)).any()):
            raise ValueError(f"For 'COOTensor', 'indices' must lie inside the shape {shape}")
        self.indices, self.values, self.shape = indices, values, shape

    dtype = property(lambda self: self.values.dtype)
    size = property(lambda self: self.values.size)
    itemsize = property(lambda self: self.values.itemsize)
    ndim = property(lambda self: len(self.shape))

    def to_tuple(self):
        return self.indices, self.values, self.shape

    def to_dense(self):
        return _scatter(_flat_positions(self.indices._data, self.shape), self.values, self.shape)

    def to_csr(self):
        """The same matrix as a CSRTensor (2-D; the entries sorted by row, then column)."""
        if self.ndim != 2:
            raise ValueError(f"For 'COOTensor.to_csr', the tensor must be 2-D, but got shape "
                             f"{self.shape}")
        idx = self.indices._data
        order = np.lexsort((idx[:, 1], idx[:, 0]))
        indptr = np.searchsorted(idx[order, 0], np.arange(self.shape[0] + 1)).astype(np.int32)
        values = A.gather(self.values, Tensor(order.astype(np.int64)), 0)
        return CSRTensor(Tensor(indptr), Tensor(idx[order, 1].astype(np.int32)), values,
                         self.shape)

    def astype(self, dtype):
        return COOTensor(self.indices, cast(self.values, dtype), self.shape)

    def abs(self):
        return COOTensor(self.indices, M.abs(self.values), self.shape)

    def add(self, other, thresh):
        return coo_add(self, other, thresh)

    def coalesce(self):
        """Duplicate indices merged (their values summed), sorted row-major."""
        idx, values, _ = coalesce(Tensor(self.indices._data.T.astype(np.int64)), self.values,
                                  Tensor(np.array(self.shape, np.int64)))
        return COOTensor(Tensor(idx._data.T), values, self.shape)

    def __neg__(self):
        return COOTensor(self.indices, M.neg(self.values), self.shape)

    def __repr__(self):
        return (f"COOTensor(shape={list(self.shape)}, dtype={self.dtype}, "
                f"indices={self.indices!r}, values={self.values!r})")


class CSRTensor:
    """A 2-D sparse matrix in compressed-row format: `CSRTensor(indptr, indices, values,
    shape)`; row i holds the entries indptr[i]:indptr[i+1] of `indices` (their columns) and
    `values`. `csr_tensor=` copies another CSRTensor."""

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise TypeError(f"For 'CSRTensor', 'csr_tensor' must be a CSRTensor, but got "
                                f"{type_name(csr_tensor)}")
            indptr, indices, values, shape = csr_tensor.to_tuple()
        shape = _shape("CSRTensor", shape)
        if len(shape) != 2:
            raise ValueError(f"For 'CSRTensor', the shape must be 2-D, but got {shape}")
        ptr = _int_tensor("CSRTensor", "indptr", indptr, 1)
        cols = _int_tensor("CSRTensor", "indices", indices, 1)
        _tensor("CSRTensor", "values", values)
        if values.ndim != 1 or values.shape[0] != cols.shape[0]:
            raise ValueError(f"For 'CSRTensor', 'values' must have shape (nnz,) = "
                             f"{cols.shape}, but got {values.shape}")
        if ptr.shape[0] != shape[0] + 1 or ptr[0] != 0 or ptr[-1] != cols.shape[0] or \
                (np.diff(ptr) < 0).any():
            raise ValueError(f"For 'CSRTensor', 'indptr' must rise from 0 to nnz = "
                             f"{cols.shape[0]} in {shape[0] + 1} steps, but got {ptr.tolist()}")
        if cols.size and ((cols < 0).any() or (cols >= shape[1]).any()):
            raise ValueError(f"For 'CSRTensor', the column 'indices' must lie in [0, {shape[1]})")
        self.indptr, self.indices, self.values, self.shape = indptr, indices, values, shape

    dtype = property(lambda self: self.values.dtype)
    size = property(lambda self: self.values.size)
    itemsize = property(lambda self: self.values.itemsize)
    ndim = property(lambda self: 2)

    def _rows(self):
        return np.repeat(np.arange(self.shape[0]), np.diff(self.indptr._data))

    def _positions(self):
        return self._rows() * self.shape[1] + self.indices._data.astype(np.int64)

    def to_tuple(self):
        return self.indptr, self.indices, self.values, self.shape

    def to_dense(self):
        return _scatter(self._positions(), self.values, self.shape)

    def to_coo(self):
        idx = np.stack([self._rows(), self.indices._data.astype(np.int64)], 1).astype(np.int32)
        return COOTensor(Tensor(idx), self.values, self.shape)

    def astype(self, dtype):
        return CSRTensor(self.indptr, self.indices, cast(self.values, dtype), self.shape)

    def abs(self):
        return _csr_like(self, M.abs(self.values))

    def add(self, b, alpha, beta):
        return csr_add(self, b, alpha, beta)

    def mv(self, dense_vector):
        return csr_mv(self, dense_vector)

    def mm(self, dense_matrix):
        """This matrix times a dense matrix (a dense result)."""
        return csr_mv(self, dense_matrix)

    def sum(self, axis):
        return csr_reduce_sum(self, axis)

    def __repr__(self):
        return (f"CSRTensor(shape={list(self.shape)}, dtype={self.dtype}, "
                f"indptr={self.indptr!r}, indices={self.indices!r}, values={self.values!r})")


class RowTensor:
    """Rows of a dense tensor of `dense_shape`: `values[i]` is row `indices[i]` (the form of an
    embedding's gradient)."""

    def __init__(self, indices=None, values=None, dense_shape=None, row_tensor=None):
        if row_tensor is not None:
            if not isinstance(row_tensor, RowTensor):
                raise TypeError(f"For 'RowTensor', 'row_tensor' must be a RowTensor, but got "
                                f"{type_name(row_tensor)}")
            indices, values, dense_shape = row_tensor.indices, row_tensor.values, \
                row_tensor.dense_shape
        dense_shape = _shape("RowTensor", dense_shape)
        idx = _int_tensor("RowTensor", "indices", indices, 1)
        _tensor("RowTensor", "values", values)
        if values.shape != idx.shape + dense_shape[1:]:
            raise ValueError(f"For 'RowTensor', 'values' must have shape "
                             f"{idx.shape + dense_shape[1:]}, but got {values.shape}")
        self.indices, self.values, self.dense_shape = indices, values, dense_shape

    def to_dense(self):
        rows = self.indices._data.astype(np.int64)
        return A.scatter_nd(Tensor(rows.reshape(-1, 1)), self.values, self.dense_shape)

    def __repr__(self):
        return (f"RowTensor(dense_shape={list(self.dense_shape)}, indices={self.indices!r}, "
                f"values={self.values!r})")


def _csr_like(x, values):
    return CSRTensor(x.indptr, x.indices, values, x.shape)


def _coo(name, x):
    if not isinstance(x, COOTensor):
        raise TypeError(f"For '{name}', the input must be a COOTensor, but got {type_name(x)}")
    return x


def _csr(name, x):
    if not isinstance(x, CSRTensor):
        raise TypeError(f"For '{name}', the input must be a CSRTensor, but got {type_name(x)}")
    return x


def _valuewise(fn_name):
    fn = next(getattr(m, fn_name) for m in (M, N, S) if hasattr(m, fn_name))

    def coo_fn(x):
        x = _coo(f"coo_{fn_name}", x)
        return COOTensor(x.indices, fn(x.values), x.shape)

    def csr_fn(x):
        return _csr_like(_csr(f"csr_{fn_name}", x), fn(x.values))
    for f, kind in ((coo_fn, "COOTensor"), (csr_fn, "CSRTensor")):
        f.__doc__ = f"`{fn_name}` of the stored values of a {kind} (the pattern is kept)."
    coo_fn.__name__, csr_fn.__name__ = f"coo_{fn_name}", f"csr_{fn_name}"
    return coo_fn, csr_fn


_VALUEWISE = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh",
              "exp", "expm1", "floor", "inv", "isfinite", "isinf", "isnan", "log", "log1p", "neg",
              "relu", "relu6", "round", "sigmoid", "sin", "sinh", "softsign", "sqrt", "square",
              "tan", "tanh")


def _make_valuewise():
    for name in _VALUEWISE:
        globals()[f"coo_{name}"], globals()[f"csr_{name}"] = _valuewise(name)
        __all__.extend((f"coo_{name}", f"csr_{name}"))


_make_valuewise()


def coo_tensor_get_indices(x):
    return _coo("coo_tensor_get_indices", x).indices


def coo_tensor_get_values(x):
    return _coo("coo_tensor_get_values", x).values


def coo_tensor_get_dense_shape(x):
    return _coo("coo_tensor_get_dense_shape", x).shape


def csr_tensor_get_indptr(x):
    return _csr("csr_tensor_get_indptr", x).indptr


def csr_tensor_get_indices(x):
    return _csr("csr_tensor_get_indices", x).indices


def csr_tensor_get_values(x):
    return _csr("csr_tensor_get_values", x).values


def csr_tensor_get_dense_shape(x):
    return _csr("csr_tensor_get_dense_shape", x).shape


def row_tensor_get_indices(x):
    return x.indices


def row_tensor_get_values(x):
    return x.values


def row_tensor_get_dense_shape(x):
    return x.dense_shape


def make_coo_tensor(indices, values, dense_shape):
    return COOTensor(indices, values, dense_shape)


def make_csr_tensor(indptr, indices, values, dense_shape):
    return CSRTensor(indptr, indices, values, dense_shape)


def make_row_tensor(indices, values, dense_shape):
    return RowTensor(indices, values, dense_shape)


def make_sparse_tensor(indices, values, dense_shape):
    return COOTensor(indices, values, dense_shape)


def row_tensor_add(x, y):
    """A RowTensor with `y` added to the values of `x`."""
    if not isinstance(x, RowTensor):
        raise TypeError(f"For 'RowTensorAdd', input[0] must be a RowTensor, but got "
                        f"{type_name(x)}")
    return RowTensor(x.indices, x.values + y, x.dense_shape)


def coo2csr(row_indices, height):
    """The CSR row pointer (int32, length height + 1) of sorted COO row indices."""
    rows = _int_tensor("coo2csr", "row_indices", row_indices, 1)
    if rows.size and ((np.diff(rows) < 0).any() or rows[0] < 0 or rows[-1] >= height):
        raise ValueError(f"For 'coo2csr', 'row_indices' must be sorted and lie in [0, {height})")
    return Tensor(np.searchsorted(rows, np.arange(height + 1)).astype(np.int32))


def csr2coo(indptr, nnz):
    """The COO row index of each of the `nnz` entries of a CSR row pointer."""
    ptr = _int_tensor("csr2coo", "indptr", indptr, 1)
    if ptr[-1] != nnz:
        raise ValueError(f"For 'csr2coo', 'nnz' {nnz} differs from indptr[-1] = {ptr[-1]}")
    return Tensor(np.repeat(np.arange(ptr.shape[0] - 1), np.diff(ptr)).astype(ptr.dtype))


def csr_to_coo(tensor):
    return _csr("csr_to_coo", tensor).to_coo()


def csr_to_dense(csr_tensor):
    return _csr("csr_to_dense", csr_tensor).to_dense()


def _nonzero_index(name, tensor):
    _tensor(name, "tensor", tensor)
    if tensor.ndim != 2:
        raise ValueError(f"For '{name}', the tensor must be 2-D, but got shape {tensor.shape}")
    return np.argwhere(tensor._data != 0)


def dense_to_sparse_coo(tensor):
    """The nonzero entries of a 2-D Tensor as a COOTensor (int32 indices, row-major)."""
    idx = _nonzero_index("dense_to_sparse_coo", tensor)
    values = _gather(tensor, _flat_positions(idx, tensor.shape))
    return COOTensor(Tensor(idx.astype(np.int32)), values, tensor.shape)


def dense_to_sparse_csr(tensor):
    """The nonzero entries of a 2-D Tensor as a CSRTensor (int32 indptr and indices)."""
    return dense_to_sparse_coo(tensor).to_csr()


def csr_mv(csr_tensor, dense):
    """The CSR matrix (M, N) times a dense (N,) or (N, K) tensor: a dense result."""
    x = _csr("csr_mv", csr_tensor)
    _tensor("csr_mv", "dense", dense)
    if dense.ndim not in (1, 2) or dense.shape[0] != x.shape[1]:
        raise ValueError(f"For 'csr_mv', 'dense' must have {x.shape[1]} rows, but got shape "
                         f"{dense.shape}")
    cols = Tensor(x.indices._data.astype(np.int64))
    picked = A.gather(dense, cols, 0)  # (nnz,) or (nnz, K)
    weights = x.values if dense.ndim == 1 else A.reshape(x.values, (-1, 1))
    rows = Tensor(x._rows().reshape(-1, 1))
    return A.scatter_nd(rows, picked * weights, (x.shape[0],) + dense.shape[1:])


def csr_reduce_sum(csr_tensor, axis):
    """Sum over `axis` (0 or 1, or -1/-2) of a CSR matrix, kept as a dim: (1, N) or (M, 1)."""
    x = _csr("csr_reduce_sum", csr_tensor)
    if isinstance(axis, bool) or axis not in (0, 1, -1, -2):
        raise ValueError(f"For 'csr_reduce_sum', 'axis' must be 0 or 1, but got {axis}")
    axis %= 2
    keep = x._rows() if axis == 1 else x.indices._data.astype(np.int64)
    n = x.shape[1 - axis]
    summed = A.scatter_nd(Tensor(keep.reshape(-1, 1)), x.values, (n,))
    return A.reshape(summed, (n, 1) if axis == 1 else (1, n))


def _dense_at(name, x, y):
    _tensor(name, "y", y)
    try:
        np.broadcast_shapes(y.shape, x.shape)
    except ValueError:
        raise ValueError(f"For '{name}', 'y' of shape {y.shape} does not broadcast to the sparse "
                         f"shape {x.shape}") from None
    return _gather(A.broadcast_to(y, x.shape), x._positions())


def csr_mul(x, y):
    """Elementwise product of a CSR matrix and a dense tensor broadcast to its shape: a CSR
    with the same pattern."""
    x = _csr("csr_mul", x)
    return _csr_like(x, x.values * _dense_at("csr_mul", x, y))


def csr_div(x, y):
    """Elementwise quotient of a CSR matrix by a dense tensor broadcast to its shape: a CSR
    with the same pattern."""
    x = _csr("csr_div", x)
    return _csr_like(x, x.values / _dense_at("csr_div", x, y))


def csr_gather(indptr, indices, dense, shape):
    """The entries of `dense` at the positions of a CSR pattern, as a (nnz,) Tensor."""
    pattern = CSRTensor(indptr, indices, Tensor(np.zeros(indices.shape[0], np.float32)), shape)
    _tensor("csr_gather", "dense", dense)
    if dense.shape != pattern.shape:
        raise ValueError(f"For 'csr_gather', 'dense' must have shape {pattern.shape}, but got "
                         f"{dense.shape}")
    return _gather(dense, pattern._positions())


def _union(pos_a, pos_b):
    union = np.union1d(pos_a, pos_b)
    return union, np.searchsorted(union, pos_a), np.searchsorted(union, pos_b)


def csr_add(a, b, alpha, beta):
    """alpha * a + beta * b for two CSR matrices of one shape: a CSR on the union of their
    patterns."""
    a, b = _csr("csr_add", a), _csr("csr_add", b)
    if a.shape != b.shape:
        raise ValueError(f"For 'csr_add', the shapes differ: {a.shape} and {b.shape}")
    union, ia, ib = _union(a._positions(), b._positions())
    n = (union.size,)
    values = alpha * A.scatter_nd(Tensor(ia.reshape(-1, 1)), a.values, n) + \
        beta * A.scatter_nd(Tensor(ib.reshape(-1, 1)), b.values, n)
    rows, cols = np.divmod(union, a.shape[1])
    indptr = np.searchsorted(rows, np.arange(a.shape[0] + 1)).astype(np.int32)
    return CSRTensor(Tensor(indptr), Tensor(cols.astype(np.int32)), cast(values, a.values.dtype),
                     a.shape)


def coo_add(x1, x2, thresh):
    """The sum of two COOTensors of one shape, on the union of their patterns; an entry whose
    sum has an absolute value below `thresh` is dropped."""
    x1, x2 = _coo("coo_add", x1), _coo("coo_add", x2)
    if x1.shape != x2.shape:
        raise ValueError(f"For 'coo_add', the shapes differ: {x1.shape} and {x2.shape}")
    p1 = _flat_positions(x1.indices._data, x1.shape)
    p2 = _flat_positions(x2.indices._data, x2.shape)
    union, i1, i2 = _union(p1, p2)
    n = (union.size,)
    summed = A.scatter_nd(Tensor(i1.reshape(-1, 1)), x1.values, n) + \
        A.scatter_nd(Tensor(i2.reshape(-1, 1)), x2.values, n)
    limit = thresh._data if isinstance(thresh, Tensor) else thresh
    keep = np.flatnonzero(np.abs(summed._data) >= limit)
    idx = np.stack(np.unravel_index(union[keep], x1.shape), 1).astype(x1.indices._data.dtype)
    return COOTensor(Tensor(idx), A.gather(summed, Tensor(keep), 0), x1.shape)


def coo_concat(sp_input, concat_dim=0):
    """COOTensors of one rank joined along `concat_dim` (the other dims must agree)."""
    if not isinstance(sp_input, (tuple, list)) or not sp_input:
        raise ValueError("For 'coo_concat', 'sp_input' must be a non-empty tuple of COOTensors")
    parts = [_coo("coo_concat", x) for x in sp_input]
    rank = parts[0].ndim
    if not -rank <= concat_dim < rank:
        raise ValueError(f"For 'coo_concat', 'concat_dim' {concat_dim} is out of range for rank "
                         f"{rank}")
    d = concat_dim % rank
    for x in parts:
        if x.ndim != rank or x.shape[:d] + x.shape[d + 1:] != parts[0].shape[:d] + \
                parts[0].shape[d + 1:]:
            raise ValueError(f"For 'coo_concat', the shapes {[p.shape for p in parts]} do not "
                             f"agree outside dim {d}")
    offset, idx = 0, []
    for x in parts:
        i = x.indices._data.astype(np.int64).copy()
        i[:, d] += offset
        idx.append(i)
        offset += x.shape[d]
    shape = parts[0].shape[:d] + (offset,) + parts[0].shape[d + 1:]
    return COOTensor(Tensor(np.concatenate(idx).astype(parts[0].indices._data.dtype)),
                     A.concat([x.values for x in parts]), shape)


def coalesce(x_indices, x_values, x_shape):
    """Duplicate coordinates merged: `x_indices` (ndim, nnz) int64, `x_values` (nnz,), `x_shape`
    (ndim,) int64. Returns (indices, values, shape) with the indices sorted row-major and each
    duplicate's values summed."""
    idx = _int_tensor("coalesce", "x_indices", x_indices, 2)
    _tensor("coalesce", "x_values", x_values)
    shape = tuple(int(s) for s in _int_tensor("coalesce", "x_shape", x_shape, 1))
    if idx.shape[0] != len(shape) or x_values.shape != (idx.shape[1],):
        raise ValueError(f"For 'coalesce', 'x_indices' must be (ndim, nnz) = ({len(shape)}, "
                         f"{x_values.shape[0] if x_values.ndim else '?'}), but got {idx.shape}")
    if idx.size and ((idx < 0).any() or (idx >= np.array(shape)[:, None]).any()):
        raise ValueError(f"For 'coalesce', 'x_indices' must lie inside the shape {shape}")
    positions = _flat_positions(idx.T, shape)
    unique, where = np.unique(positions, return_inverse=True)
    values = A.scatter_nd(Tensor(where.reshape(-1, 1).astype(np.int64)), x_values,
                          (unique.size,))
    out_idx = np.stack(np.unravel_index(unique, shape)).astype(idx.dtype)
    return Tensor(out_idx), values, Tensor(np.array(shape, np.int64))


def csr_mm(a, b, trans_a=False, trans_b=False, adjoint_a=False, adjoint_b=False):
    """The product of two CSR matrices (transposed first where asked; adjoint is the transpose
    for real values), as a CSR matrix on the product's structural pattern."""
    a, b = _csr("csr_mm", a), _csr("csr_mm", b)
    da, db = a.to_dense(), b.to_dense()
    if trans_a or adjoint_a:
        da = A.transpose(da, (1, 0))
    if trans_b or adjoint_b:
        db = A.transpose(db, (1, 0))
    if da.shape[1] != db.shape[0]:
        raise ValueError(f"For 'csr_mm', the shapes {da.shape} and {db.shape} cannot be "
                         f"multiplied")
    pattern = (da._data != 0).astype(np.int64) @ (db._data != 0).astype(np.int64)
    idx = np.argwhere(pattern != 0)
    shape = (da.shape[0], db.shape[1])
    product = da @ db
    values = _gather(product, _flat_positions(idx, shape))
    return COOTensor(Tensor(idx.astype(np.int32)), values, shape).to_csr()


def csr_softmax(logits, dtype):
    """Softmax over the stored entries of each row of a CSR matrix (rows without entries stay
    empty)."""
    x = _csr("csr_softmax", logits)
    if dtype not in (mstype.float32, mstype.float64):
        raise TypeError(f"For 'csr_softmax', 'dtype' must be float32 or float64, but got {dtype}")
    values = cast(x.values, dtype)
    rows = x._rows()
    m = x.shape[0]
    top = np.full(m, -np.inf)
    np.maximum.at(top, rows, values._data)
    shifted = M.exp(values - Tensor(top[rows].astype(values._data.dtype)))
    rows_t = Tensor(rows.reshape(-1, 1))
    total = A.scatter_nd(rows_t, shifted, (m,))
    return _csr_like(x, shifted / A.gather(total, Tensor(rows), 0))


def sparse_segment_mean(x, indices, segment_ids):
    """out[s] = mean of x[indices[j]] over the j with segment_ids[j] == s (segment ids sorted;
    out has max(segment_ids) + 1 rows, empty segments 0)."""
    _tensor("sparse_segment_mean", "x", x)
    idx = _int_tensor("sparse_segment_mean", "indices", indices, 1)
    seg = _int_tensor("sparse_segment_mean", "segment_ids", segment_ids, 1)
    if idx.shape != seg.shape:
        raise ValueError(f"For 'sparse_segment_mean', 'indices' and 'segment_ids' must have one "
                         f"shape, but got {idx.shape} and {seg.shape}")
    if seg.size and (np.diff(seg) < 0).any():
        raise ValueError("For 'sparse_segment_mean', 'segment_ids' must be sorted")
    if idx.size and ((idx < 0).any() or (idx >= x.shape[0]).any()):
        raise ValueError(f"For 'sparse_segment_mean', 'indices' must lie in [0, {x.shape[0]})")
    n = int(seg[-1]) + 1 if seg.size else 0
    counts = np.maximum(np.bincount(seg, minlength=n), 1).astype(x._data.dtype)
    rows = A.gather(x, Tensor(idx.astype(np.int64)), 0)
    summed = A.scatter_nd(Tensor(seg.reshape(-1, 1).astype(np.int64)), rows,
                          (n,) + x.shape[1:])
    return summed / Tensor(counts.reshape((n,) + (1,) * (x.ndim - 1)))


class SparseToDense(Primitive):
    """`SparseToDense()(indices, values, sparse_shape)`: the dense tensor of a COO triple."""

    def __call__(self, indices, values, sparse_shape):
        return COOTensor(indices, values, sparse_shape).to_dense()


class SparseTensorDenseMatmul(Primitive):
    """`SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices, values,
    sparse_shape, dense)`: the 2-D COO matrix (transposed with `adjoint_st`) times `dense`
    (transposed with `adjoint_dt`)."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        self.adjoint_st, self.adjoint_dt = bool(adjoint_st), bool(adjoint_dt)

    def __call__(self, indices, values, sparse_shape, dense):
        sparse = COOTensor(indices, values, sparse_shape).to_dense()
        if self.adjoint_st:
            sparse = A.transpose(sparse, (1, 0))
        if self.adjoint_dt:
            dense = A.transpose(dense, (1, 0))
        return sparse @ dense


class SparseTensorDenseAdd(Primitive):
    """`SparseTensorDenseAdd()(x1_indices, x1_values, x1_shape, x2)`: the COO tensor plus the
    dense `x2` of the same shape (x1_shape a Tensor, as MindSpore requires)."""

    def __call__(self, x1_indices, x1_values, x1_shape, x2):
        if not isinstance(x1_shape, Tensor):
            raise TypeError(f"For 'SparseTensorDenseAdd', 'x1_shape' must be a Tensor, but got "
                            f"{type_name(x1_shape)}")
        sparse = COOTensor(x1_indices, x1_values, x1_shape)
        _tensor("SparseTensorDenseAdd", "x2", x2)
        if x2.shape != sparse.shape:
            raise ValueError(f"For 'SparseTensorDenseAdd', 'x2' must have shape {sparse.shape}, "
                             f"but got {x2.shape}")
        return sparse.to_dense() + x2


class SparseSlice(Primitive):
    """`SparseSlice()(indices, values, shape, start, size)`: the entries of a COO triple inside
    the box [start, start + size), re-based to it; returns (indices, values, shape)."""

    def __call__(self, indices, values, shape, start, size):
        full = tuple(int(s) for s in _int_tensor("SparseSlice", "shape", shape, 1))
        lo = _int_tensor("SparseSlice", "start", start, 1).astype(np.int64)
        n = _int_tensor("SparseSlice", "size", size, 1).astype(np.int64)
        if not len(full) == lo.size == n.size or (lo < 0).any() or (n < 0).any():
            raise ValueError(f"For 'SparseSlice', 'start' and 'size' must be non-negative with "
                             f"one entry per dim of {full}")
        hi = np.minimum(lo + n, full)
        idx = _int_tensor("SparseSlice", "indices", indices, 2)
        inside = np.flatnonzero(((idx >= lo) & (idx < hi)).all(1))
        out_shape = np.maximum(hi - lo, 0)
        return (Tensor((idx[inside] - lo).astype(idx.dtype)),
                A.gather(values, Tensor(inside.astype(np.int64)), 0), Tensor(out_shape))


class Coalesce(Primitive):
    """`Coalesce()(x_indices, x_values, x_shape)`: see `coalesce`."""

    def __call__(self, x_indices, x_values, x_shape):
        return coalesce(x_indices, x_values, x_shape)
