"""Scatter, gather, segment, index and search functions: ops.scatter_add, ops.tensor_scatter_max,
ops.index_add, ops.unsorted_segment_sum, ops.bincount, ops.searchsorted, ...

MindSpore's `scatter_*`, `scatter_nd_*`, `index_add`, `inplace_index_add` (and their classes)
write into `input_x` in place and return it; the write goes through `Tensor.__setitem__`, so it
bumps the tensor's version like any other in-place write. `tensor_scatter_*`, `inplace_add`,
`inplace_sub` and `inplace_update` return new tensors (MindSpore 2.10 leaves x unchanged) and are
differentiable."""
import builtins
import math

import numpy as np

from ..._autodiff.tape import apply, const, wrap
from ..._validator import check_bool, check_int, check_one_of, check_positive_int, check_type
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import math_ops as M
from ..operations import scatter_ops as S
from ..operations._kernels import normalize_axis
from ..primitive import Primitive, data_function
from . import array_func as AF
from ._checks import _tensor

__all__ = [
    "scatter_add", "scatter_mul", "scatter_div", "scatter_max", "scatter_min",
    "scatter_update", "scatter_nd_add", "scatter_nd_sub", "scatter_nd_mul", "scatter_nd_div",
    "scatter_nd_max", "scatter_nd_min", "scatter_nd_update", "tensor_scatter_sub",
    "tensor_scatter_mul", "tensor_scatter_div", "tensor_scatter_max", "tensor_scatter_min",
    "tensor_scatter_elements", "gather_nd", "take", "index_add", "inplace_index_add",
    "index_fill", "inplace_add", "inplace_sub", "inplace_update", "unsorted_segment_sum",
    "unsorted_segment_prod", "unsorted_segment_max", "unsorted_segment_min", "bincount",
    "bucketize", "searchsorted", "histc", "unique_consecutive", "unique_with_pad", "argwhere",
    "select_scatter", "slice_scatter", "intopk", "msort", "top_k",
]

PRIMITIVE_CLASSES = (
    "ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv", "ScatterMax", "ScatterMin",
    "ScatterUpdate", "ScatterNdAdd", "ScatterNdSub", "ScatterNdMul", "ScatterNdDiv",
    "ScatterNdMax", "ScatterNdMin", "ScatterNdUpdate", "ScatterNonAliasingAdd",
    "ScatterAddWithAxis", "TensorScatterSub", "TensorScatterMul", "TensorScatterDiv",
    "TensorScatterElements", "GatherNd", "GatherV2", "SparseGatherV2", "IndexAdd", "IndexFill",
    "IndexPut", "InplaceAdd", "InplaceSub", "InplaceUpdate", "InplaceUpdateV2",
    "InplaceIndexAdd", "MaskedFill", "MaskedSelect", "MaskedScatter", "NonZero", "SegmentSum",
    "SegmentProd", "SegmentMax", "SegmentMin", "SegmentMean", "UniqueConsecutive",
    "UniqueWithPad", "Bincount", "Bucketize", "SearchSorted", "Histogram",
    "HistogramFixedWidth", "InvertPermutation", "UnravelIndex", "LowerBound", "UpperBound",
    "NthElement", "ListDiff", "FillDiagonal", "EmbeddingLookup", "InTopK",
)


def _array(v):
    return v._data if isinstance(v, Tensor) else np.asarray(v)


def _dtype_name(dt):
    return str(mstype.from_np(np.dtype(dt)))


def _write_into(target, value):
    """target[...] = value (a recorded in-place write); returns target."""
    target[...] = value
    return target


def _same_dtype(x, other, op, arg):
    if other._data.dtype != x._data.dtype:
        raise TypeError(f"For '{op}', '{arg}' must have the dtype of the input "
                        f"{_dtype_name(x._data.dtype)}, but got {_dtype_name(other._data.dtype)}")


def _numeric(x, op, arg="input_x"):
    if x._data.dtype.kind not in "iuf":
        raise TypeError(f"For '{op}', '{arg}' must be a numeric (not bool or complex) Tensor, "
                        f"but got dtype {x.dtype}")


# ---- N-D scatter, out of place ---------------------------------------------------------------

def _scatter_product(updates, index, shape):
    """Ones of `shape` with every update multiplied in at its coordinates (repeats multiply)."""
    depth = len(index)
    lead = shape[:depth]
    rows = math.prod(lead)
    lin = np.ravel_multi_index(index, lead).reshape(-1)
    flat = A.reshape(updates, (lin.size,) + tuple(shape[depth:]))
    return A.reshape(apply(S.UnsortedSegmentProd(), (flat, lin, rows)), shape)


def _int_div(x, d, op):
    """C integer division (toward zero) of x by d; ValueError where d is 0."""
    if np.any(d == 0):
        raise ValueError(f"For '{op}', 'updates' must not contain 0")
    q = np.abs(x) // np.abs(d)
    return np.where((x < 0) != (d < 0), -q, q).astype(x.dtype)


def _nd_scatter(kind, input_x, indices, updates, op):
    _tensor(input_x, op, "input_x")
    _tensor(updates, op, "updates")
    if input_x._data.dtype.kind == "b" and kind != "update":
        raise TypeError(f"For '{op}', 'input_x' must be numeric, but got dtype bool")
    index, lead = S.nd_index(indices, input_x.shape, op)
    S.check_nd_updates(input_x.shape, input_x._data.dtype, updates._data, index, lead, op)
    return _nd_apply(kind, input_x, index, updates, op)


def _nd_apply(kind, x, index, updates, op):
    if index[0].size == 0:
        return AF.identity(x)
    shape = x.shape
    if kind == "update":
        return A.setitem(x, index, updates)
    if kind in ("add", "sub"):
        spread = A.getitem_grad(updates, index, shape)
        return M.add(x, spread) if kind == "add" else x - spread
    if kind == "max":
        return apply(S.TensorScatterMax(), (x, _stack_index(index), updates))
    if kind == "min":
        return apply(S.TensorScatterMin(), (x, _stack_index(index), updates))
    product = _scatter_product(updates, index, shape)
    if kind == "mul":
        return x * product
    if x._data.dtype.kind in "iu":
        return wrap(_int_div(x._data, product._data, op))
    return x / product


def _stack_index(index):
    return np.stack(index, axis=-1)


def tensor_scatter_sub(input_x, indices, updates):
    """input_x minus `updates` at the coordinates in `indices` (repeats accumulate)."""
    return _nd_scatter("sub", input_x, indices, updates, "tensor_scatter_sub")


def tensor_scatter_mul(input_x, indices, updates):
    """input_x times `updates` at the coordinates in `indices` (repeats multiply)."""
    return _nd_scatter("mul", input_x, indices, updates, "tensor_scatter_mul")


def tensor_scatter_div(input_x, indices, updates):
    """input_x divided by `updates` at the coordinates in `indices` (repeats divide again;
    integers divide toward zero)."""
    return _nd_scatter("div", input_x, indices, updates, "tensor_scatter_div")


def tensor_scatter_max(input_x, indices, updates):
    """input_x with the maximum of each entry and the updates at its coordinates."""
    return _nd_scatter("max", input_x, indices, updates, "tensor_scatter_max")


def tensor_scatter_min(input_x, indices, updates):
    """input_x with the minimum of each entry and the updates at its coordinates."""
    return _nd_scatter("min", input_x, indices, updates, "tensor_scatter_min")


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """A copy of input_x with input_x[indices[i][j]][j] = updates[i][j] along `axis` (and so on;
    negative indices count from the end); reduction 'add' adds instead (repeats accumulate),
    'none' writes (the last repeat wins)."""
    op = "tensor_scatter_elements"
    _tensor(input_x, op, "input_x")
    _tensor(updates, op, "updates")
    check_one_of(reduction, ("none", "add"), "reduction", op)
    idx = S.check_index_dtype(_array(indices), op, "indices")
    if idx.shape != updates.shape:
        raise ValueError(f"For '{op}', 'indices' {idx.shape} and 'updates' {updates.shape} must "
                         "have the same shape")
    _same_dtype(input_x, updates, op, "updates")
    ax = normalize_axis(axis, input_x.ndim, op)
    n = input_x.shape[ax]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)].flat[0]
        raise RuntimeError(f"For '{op}', index {bad} in 'indices' is out of range [-{n}, {n}) "
                           f"for axis {ax}")
    index, ax = AF._along_axis_args(input_x, ax, np.where(idx < 0, idx + n, idx), op)
    where = AF._along_axis_index(index, ax)
    if reduction == "add":
        return M.add(input_x, A.getitem_grad(updates, where, input_x.shape))
    return A.setitem(input_x, where, updates)


# ---- scatter into a Parameter, in place --------------------------------------------------------

def _row_index(input_x, indices, updates, op):
    """The N-D index of the row scatters: each entry of `indices` names a row of input_x."""
    _tensor(input_x, op, "input_x")
    _tensor(updates, op, "updates")
    idx = S.check_index_dtype(_array(indices), op, "indices")
    expected = idx.shape + tuple(input_x.shape[1:])
    if tuple(updates.shape) != expected:
        raise ValueError(f"For '{op}', 'updates' must have shape indices.shape + "
                         f"input_x.shape[1:] = {expected}, but got {updates.shape}")
    _same_dtype(input_x, updates, op, "updates")
    n = input_x.shape[0] if input_x.ndim else 0
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)].flat[0]
        raise RuntimeError(f"For '{op}', the value of indices should be in [0, {n}), but got "
                           f"{bad}")
    return (idx,)


def _row_scatter(kind, input_x, indices, updates, op):
    index = _row_index(input_x, indices, updates, op)
    if kind == "div" and input_x._data.dtype.kind in "iu" and np.any(updates._data == 0):
        raise ValueError(f"For '{op}', updates must not contain 0")
    if input_x._data.dtype.kind == "b" and kind != "update":
        raise TypeError(f"For '{op}', 'input_x' must be numeric, but got dtype bool")
    return _write_into(input_x, _nd_apply(kind, input_x, index, updates, op))


def scatter_add(input_x, indices, updates):
    """input_x[indices[i]] += updates[i] in place (repeats accumulate); returns input_x."""
    return _row_scatter("add", input_x, indices, updates, "scatter_add")


def _scatter_sub(input_x, indices, updates):
    """input_x[indices[i]] -= updates[i] in place; returns input_x (ScatterSub's function:
    MindSpore has no ops.scatter_sub)."""
    return _row_scatter("sub", input_x, indices, updates, "scatter_sub")


def scatter_mul(input_x, indices, updates):
    """input_x[indices[i]] *= updates[i] in place; returns input_x."""
    return _row_scatter("mul", input_x, indices, updates, "scatter_mul")


def scatter_div(input_x, indices, updates):
    """input_x[indices[i]] /= updates[i] in place (integers divide toward zero); returns
    input_x."""
    return _row_scatter("div", input_x, indices, updates, "scatter_div")


def scatter_max(input_x, indices, updates):
    """input_x[indices[i]] = max(input_x[indices[i]], updates[i]) in place; returns input_x."""
    return _row_scatter("max", input_x, indices, updates, "scatter_max")


def scatter_min(input_x, indices, updates):
    """input_x[indices[i]] = min(input_x[indices[i]], updates[i]) in place; returns input_x."""
    return _row_scatter("min", input_x, indices, updates, "scatter_min")


def scatter_update(input_x, indices, updates):
    """input_x[indices[i]] = updates[i] in place (the last repeat wins); returns input_x."""
    return _row_scatter("update", input_x, indices, updates, "scatter_update")


def _nd_in_place(kind, input_x, indices, updates, op):
    if kind == "div" and input_x._data.dtype.kind in "iu" and np.any(updates._data == 0):
        raise ValueError(f"For '{op}', updates must not contain 0")
    return _write_into(input_x, _nd_scatter(kind, input_x, indices, updates, op))


def scatter_nd_add(input_x, indices, updates, use_locking=False):
    """input_x[indices[i]] += updates[i] in place, `indices` (..., d) naming coordinates of the
    first d axes (repeats accumulate); returns input_x."""
    return _nd_in_place("add", input_x, indices, updates, "scatter_nd_add")


def scatter_nd_sub(input_x, indices, updates, use_locking=False):
    """input_x[indices[i]] -= updates[i] in place (N-D coordinates); returns input_x."""
    return _nd_in_place("sub", input_x, indices, updates, "scatter_nd_sub")


def scatter_nd_mul(input_x, indices, updates, use_locking=False):
    """input_x[indices[i]] *= updates[i] in place (N-D coordinates); returns input_x."""
    return _nd_in_place("mul", input_x, indices, updates, "scatter_nd_mul")


def scatter_nd_div(input_x, indices, updates, use_locking=False):
    """input_x[indices[i]] /= updates[i] in place (N-D coordinates); returns input_x."""
    return _nd_in_place("div", input_x, indices, updates, "scatter_nd_div")


def scatter_nd_max(input_x, indices, updates, use_locking=False):
    """input_x[indices[i]] = max(input_x[indices[i]], updates[i]) in place; returns input_x."""
    return _nd_in_place("max", input_x, indices, updates, "scatter_nd_max")


def scatter_nd_min(input_x, indices, updates, use_locking=False):
    """input_x[indices[i]] = min(input_x[indices[i]], updates[i]) in place; returns input_x."""
    return _nd_in_place("min", input_x, indices, updates, "scatter_nd_min")


def scatter_nd_update(input_x, indices, updates, use_locking=True):
    """input_x[indices[i]] = updates[i] in place (N-D coordinates; the last repeat wins);
    returns input_x."""
    return _nd_in_place("update", input_x, indices, updates, "scatter_nd_update")


# ---- gather ------------------------------------------------------------------------------------

def gather_nd(input_x, indices):
    """The entries (or slices) of input_x at the coordinates on the last axis of `indices`:
    shape indices.shape[:-1] + input_x.shape[indices.shape[-1]:]."""
    _tensor(input_x, "gather_nd", "input_x")
    index, _ = S.nd_index(indices, input_x.shape, "gather_nd", ("int16", "int32", "int64"))
    return A.getitem(input_x, index)


def take(input, index):
    """The elements of the flattened input at the int64 `index` (negative counts from the end),
    in index's shape."""
    _tensor(input, "take")
    idx = S.check_index_dtype(_array(index), "take", "index", ("int64",))
    n = input.size
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)].flat[0]
        raise IndexError(f"For 'take', index {bad} is out of range for {n} elements")
    return A.gather(A.reshape(input, (n,)), idx, 0)


# ---- index add / fill / put -------------------------------------------------------------------

def _axis_add(x, indices, y, axis, op):
    """x plus y added at `indices` along `axis` (int32 indices in [0, n); repeats accumulate)."""
    _tensor(x, op, "x")
    _tensor(y, op, "y")
    idx = S.check_index_dtype(_array(indices), op, "indices", ("int32",))
    if idx.ndim != 1:
        raise ValueError(f"For '{op}', 'indices' must be 1-D, but got shape {idx.shape}")
    ax = normalize_axis(check_int(axis, "axis", op), x.ndim, op)
    expected = x.shape[:ax] + (idx.size,) + x.shape[ax + 1:]
    if tuple(y.shape) != expected:
        raise ValueError(f"For '{op}', 'y' must have shape {expected} (x's shape with "
                         f"len(indices) on axis {ax}), but got {y.shape}")
    _same_dtype(x, y, op, "y")
    n = x.shape[ax]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)][0]
        raise RuntimeError(f"For '{op}', the value of 'indices' must be in [0, {n}), but got "
                           f"{bad}")
    return M.add(x, A.gather_grad(y, idx, ax, x.shape))


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """x[..., indices[i], ...] += y[..., i, ...] along `axis`, in place; returns x."""
    return _write_into(x, _axis_add(x, indices, y, axis, "index_add"))


def inplace_index_add(var, indices, updates, axis):
    """var[..., indices[i], ...] += updates[..., i, ...] along `axis`, in place; returns var."""
    return _write_into(var, _axis_add(var, indices, updates, axis, "inplace_index_add"))


def index_fill(x, axis, index, value):
    """A copy of x with the slices at the int32 `index` along `axis` set to `value` (a number or
    a 0-D Tensor, cast to x's dtype; negative indices count from the end)."""
    op = "index_fill"
    _tensor(x, op, "x")
    _numeric(x, op, "x")
    ax = _array(axis)
    if ax.ndim or ax.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', 'axis' must be an int or a 0-D integer Tensor, but got "
                        f"{axis!r}")
    ax = normalize_axis(int(ax), builtins.max(x.ndim, 1), op)
    idx = S.check_index_dtype(_array(index), op, "index", ("int32",))
    if idx.ndim > 1:
        raise ValueError(f"For '{op}', 'index' must be 0-D or 1-D, but got shape {idx.shape}")
    n = x.shape[ax] if x.ndim else 1
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)].flat[0]
        raise RuntimeError(f"For '{op}', 'index' {bad} is out of range [-{n}, {n - 1}]")
    if isinstance(value, Tensor):
        if value.ndim:
            raise ValueError(f"For '{op}', 'value' must be a number or a 0-D Tensor, but got "
                             f"shape {value.shape}")
        v = M.cast(value, x._data.dtype)
    else:
        v = wrap(np.asarray(value).astype(x._data.dtype))
    hit = np.zeros(n, bool)
    hit[idx.reshape(-1)] = True
    mask = hit.reshape((n,) + (1,) * (x.ndim - ax - 1)) if x.ndim else hit.reshape(())
    return M.select(wrap(np.broadcast_to(mask, x.shape)), v, x)


def _index_put(x1, x2, indices, accumulate, op):
    _tensor(x1, op, "x1")
    _tensor(x2, op, "x2")
    if isinstance(indices, Tensor) or not isinstance(indices, (tuple, list)):
        raise TypeError(f"For '{op}', 'indices' must be a tuple or list of Tensors, but got "
                        f"{type(indices).__name__}")
    if not 1 <= len(indices) <= x1.ndim:
        raise ValueError(f"For '{op}', 'indices' must hold 1 to {x1.ndim} index Tensors, but "
                         f"got {len(indices)}")
    index = []
    for k, t in enumerate(indices):
        a = S.check_index_dtype(_array(t), op, f"indices[{k}]")
        n = x1.shape[k]
        if a.size and (a.min() < -n or a.max() >= n):
            bad = a[(a < -n) | (a >= n)].flat[0]
            raise RuntimeError(f"For '{op}', index {bad} in 'indices[{k}]' is out of range "
                               f"[-{n}, {n}) for axis {k}")
        index.append(np.where(a < 0, a + n, a))
    _same_dtype(x1, x2, op, "x2")
    if x2.ndim > 1:
        raise ValueError(f"For '{op}', 'x2' must be 0-D or 1-D, but got shape {x2.shape}")
    index = tuple(index)
    region = np.empty(x1.shape, bool)[index].shape
    try:
        np.broadcast_shapes(x2.shape, region)
    except ValueError:
        raise ValueError(f"For '{op}', 'x2' of shape {x2.shape} does not broadcast to the "
                         f"indexed shape {region}") from None
    if accumulate:
        return M.add(x1, A.getitem_grad(A.broadcast_to(x2, region), index, x1.shape))
    return A.setitem(x1, index, x2)


# ---- inplace_add / sub / update: rows, out of place --------------------------------------------

def _rows(indices, x, v, op, tensor_ok=False):
    if isinstance(indices, Tensor):
        if not tensor_ok:
            raise TypeError(f"For '{op}', the type of 'indices' should be one of "
                            f"['tuple', 'int'], but got type 'Tensor'")
        idx = S.check_index_dtype(indices._data, op, "indices").reshape(-1)
    elif isinstance(indices, (tuple, list)):
        idx = np.array([check_int(i, "indices", op) for i in indices], np.int64)
    else:
        idx = np.array([check_int(indices, "indices", op)], np.int64)
    _tensor(x, op, "x")
    _tensor(v, op, "v")
    n = x.shape[0] if x.ndim else 0
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)][0]
        raise ValueError(f"For '{op}', the value of indices must be in [0,{n}), but got {bad}")
    expected = (idx.size,) + tuple(x.shape[1:])
    if tuple(v.shape) != expected:
        raise ValueError(f"For '{op}', 'v' must have shape {expected}, but got {v.shape}")
    _same_dtype(x, v, op, "v")
    return idx


def inplace_add(x, v, indices):
    """x with v[i] added to row indices[i] (an int or a tuple of ints; repeats accumulate)."""
    idx = _rows(indices, x, v, "inplace_add")
    return M.add(x, A.gather_grad(v, idx, 0, x.shape))


def inplace_sub(x, v, indices):
    """x with v[i] subtracted from row indices[i] (an int or a tuple of ints)."""
    idx = _rows(indices, x, v, "inplace_sub")
    return x - A.gather_grad(v, idx, 0, x.shape)


def inplace_update(x, v, indices):
    """x with row indices[i] replaced by v[i] (an int, a tuple of ints or an integer Tensor; the
    last repeat wins)."""
    idx = _rows(indices, x, v, "inplace_update", tensor_ok=True)
    return A.setitem(x, (idx,), v)


# ---- segment reductions ----------------------------------------------------------------------

def unsorted_segment_sum(input_x, segment_ids, num_segments):
    """out[k] = sum of input_x[i] over the i with segment_ids[i] == k (ids lead x's shape)."""
    _tensor(input_x, "unsorted_segment_sum", "input_x")
    return apply(S.UnsortedSegmentSum(), (input_x, segment_ids, num_segments))


def unsorted_segment_prod(x, segment_ids, num_segments):
    """out[k] = product of x[i] over the i with segment_ids[i] == k (1 where none)."""
    _tensor(x, "unsorted_segment_prod", "x")
    return apply(S.UnsortedSegmentProd(), (x, segment_ids, num_segments))


def unsorted_segment_max(x, segment_ids, num_segments):
    """out[k] = max of x[i] over segment k (the dtype's lowest value where none)."""
    _tensor(x, "unsorted_segment_max", "x")
    return apply(S.UnsortedSegmentMax(), (x, segment_ids, num_segments))


def unsorted_segment_min(x, segment_ids, num_segments):
    """out[k] = min of x[i] over segment k (the dtype's highest value where none)."""
    _tensor(x, "unsorted_segment_min", "x")
    return apply(S.UnsortedSegmentMin(), (x, segment_ids, num_segments))


def _sorted_segments(input_x, segment_ids, op):
    _tensor(input_x, op, "input_x")
    _numeric(input_x, op)
    ids = S.check_index_dtype(_array(segment_ids), op, "segment_ids")
    if ids.ndim != 1:
        raise ValueError(f"For '{op}', the rank of 'segment_ids' must be 1, but got {ids.ndim}")
    if input_x.ndim == 0 or ids.size != input_x.shape[0]:
        raise ValueError(f"For '{op}', 'segment_ids' must have one id per row of 'input_x' "
                         f"{input_x.shape}, but got {ids.size}")
    if ids.size and ids.min() < 0:
        raise ValueError(f"For '{op}', the values of segment_ids must be nonnegative, but got "
                         f"{ids.min()}")
    if np.any(np.diff(ids) < 0):
        raise ValueError(f"For '{op}', segment_ids must be sorted in ascending order")
    n = int(ids[-1]) + 1 if ids.size else 0
    return ids, n


def _segment(kind, input_x, segment_ids, op):
    ids, n = _sorted_segments(input_x, segment_ids, op)
    if n == 0:
        return const(np.zeros((0,) + tuple(input_x.shape[1:]), input_x._data.dtype))
    prim = {"sum": S.UnsortedSegmentSum, "prod": S.UnsortedSegmentProd,
            "max": S.UnsortedSegmentMax, "min": S.UnsortedSegmentMin, "mean": S.UnsortedSegmentSum}
    out = apply(prim[kind](), (input_x, ids, n))
    counts = np.bincount(ids, minlength=n).reshape((n,) + (1,) * (input_x.ndim - 1))
    if kind in ("max", "min"):  # a node and a guard under graph capture
        ids_t = segment_ids if isinstance(segment_ids, Tensor) else const(ids)
        empty = data_function(_empty_segments, ids_t, static=(n, out.shape))
        if empty.any():
            out = M.select(empty, const(np.zeros((), out._data.dtype)), out)
    elif kind == "mean":
        if out._data.dtype.kind in "iu":
            return wrap(_int_div(out._data, np.maximum(counts, 1).astype(out._data.dtype), op))
        out = out / wrap(np.maximum(counts, 1).astype(out._data.dtype))
    return out


def _empty_segments(ids, n, shape):
    counts = np.bincount(ids.astype(np.int64), minlength=n)
    return np.broadcast_to((counts == 0).reshape((n,) + (1,) * (len(shape) - 1)), shape)


# ---- counting and searching --------------------------------------------------------------------

def bincount(input, weights=None, minlength=0):
    """float32 counts (or sums of `weights`) of each value of the 1-D non-negative `input`,
    of length max(input.max() + 1, minlength); negative values are not counted (as
    MindSpore's CPU kernel)."""
    _tensor(input, "bincount")
    a = input._data
    if a.dtype.kind not in "iuf":
        raise TypeError(f"For 'bincount', 'input' must be an integer Tensor, but got "
                        f"{input.dtype}")
    a = a.astype(np.int64)  # MindSpore truncates float input
    if a.ndim != 1:
        raise ValueError(f"For 'bincount', 'input' must be 1-D, but got shape {a.shape}")
    minlength = check_int(minlength, "minlength", "bincount")
    if minlength < 0:
        raise ValueError(f"For 'bincount', 'minlength' must be non-negative, but got {minlength}")
    w = None
    if weights is not None:
        w = _array(weights)
        if w.shape != a.shape:
            raise ValueError(f"For 'bincount', 'weights' {w.shape} must have the shape of "
                             f"'input' {a.shape}")
    keep = a >= 0
    length = builtins.max(int(a.max()) + 1 if a.size else 0, minlength)
    counts = np.bincount(a[keep], None if w is None else w[keep].astype(np.float64), length)
    return wrap(counts.astype(np.float32))


def bucketize(input, boundaries, *, right=False):
    """int32 bucket of each element among the sorted `boundaries` (a list, tuple or 1-D Tensor):
    boundaries[i-1] < x <= boundaries[i], or with `right` boundaries[i-1] <= x < boundaries[i]."""
    _tensor(input, "bucketize")
    b = _array(check_type(boundaries, (list, tuple, Tensor), "boundaries", "bucketize"))
    if b.ndim != 1:
        raise ValueError(f"For 'bucketize', 'boundaries' must be 1-D, but got shape {b.shape}")
    side = "right" if check_bool(right, "right", "bucketize") else "left"
    return wrap(np.searchsorted(b, input._data, side=side).astype(np.int32))


def _search(sorted_sequence, values, right, sorter, out_dtype, op):
    _tensor(sorted_sequence, op, "sorted_sequence")
    _tensor(values, op, "values")
    seq, v = sorted_sequence._data, values._data
    if sorter is not None:
        order = S.check_index_dtype(_array(sorter), op, "sorter")
        if order.shape != seq.shape:
            raise ValueError(f"For '{op}', 'sorter' {order.shape} must have the shape of "
                             f"'sorted_sequence' {seq.shape}")
        seq = np.take_along_axis(seq, order, axis=-1)
    side = "right" if right else "left"
    if seq.ndim <= 1:
        out = np.searchsorted(seq.reshape(-1), v, side=side)
    else:
        if v.ndim != seq.ndim or v.shape[:-1] != seq.shape[:-1]:
            raise ValueError(f"For '{op}', 'values' {v.shape} must share the leading axes of "
                             f"'sorted_sequence' {seq.shape}")
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = v.reshape(-1, v.shape[-1])
        out = np.stack([np.searchsorted(s, r, side=side) for s, r in zip(rows_s, rows_v)]
                       ).reshape(v.shape) if rows_s.shape[0] else np.zeros(v.shape, np.int64)
    return wrap(np.asarray(out).astype(out_dtype))


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Insertion positions of `values` in the last axis of `sorted_sequence` (1-D, or with the
    leading axes of values): the first position (or the last, with right=True or side='right')
    that keeps the order. int64, or int32 with `out_int32`. `sorter` sorts the sequence."""
    if side is not None:
        check_one_of(side, ("left", "right"), "side", "searchsorted")
        if right and side == "left":
            raise ValueError("For 'searchsorted', 'side' 'left' contradicts right=True")
        right = side == "right"
    return _search(sorted_sequence, values, bool(right), sorter,
                   np.int32 if out_int32 else np.int64, "searchsorted")


def _histogram(input, bins, min, max, op):
    _tensor(input, op)
    bins = check_positive_int(bins, "bins", op)
    a = input._data
    if a.dtype.kind not in "iuf":
        raise TypeError(f"For '{op}', the input must be numeric, but got {input.dtype}")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise ValueError(f"For '{op}', 'min' {lo} must not exceed 'max' {hi}")
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = np.histogram(a.astype(np.float64).reshape(-1), bins=bins, range=(lo, hi))
    return wrap(counts.astype(np.int32 if a.dtype.kind in "iu" else a.dtype))


def histc(input, bins=100, min=0.0, max=0.0):
    """Counts of the elements in `bins` equal-width bins over [min, max] (elements outside are
    not counted; min == max == 0 takes the data's range), in input's dtype (int32 for ints)."""
    return _histogram(input, bins, min, max, "histc")


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The input with runs of equal consecutive elements (or slices along `dim`) collapsed to
    one; with the flags also the int64 run number of each element and the run lengths."""
    op = "unique_consecutive"
    _tensor(input, op)
    out, inverse, counts = _unique_runs(input, dim, op)
    result = (out,)
    if return_inverse:
        result += (inverse,)
    if return_counts:
        result += (counts,)
    return result[0] if len(result) == 1 else result


def _unique_runs(input, dim, op):
    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        starts = np.ones(flat.size, bool)
        if flat.size:
            starts[1:] = flat[1:] != flat[:-1]
        runs = np.cumsum(starts) - 1
        out = A.gather(A.reshape(input, (flat.size,)), np.flatnonzero(starts), 0)
        inverse = runs.reshape(a.shape)
    else:
        ax = normalize_axis(check_int(dim, "dim", op), builtins.max(a.ndim, 1), op)
        moved = np.moveaxis(a, ax, 0).reshape(a.shape[ax], -1)
        starts = np.ones(moved.shape[0], bool)
        if moved.shape[0]:
            starts[1:] = np.any(moved[1:] != moved[:-1], axis=1)
        runs = np.cumsum(starts) - 1
        out = A.gather(input, np.flatnonzero(starts), ax)
        inverse = runs
    counts = np.bincount(runs, minlength=int(starts.sum())) if runs.size else \
        np.zeros(0, np.int64)
    return out, wrap(inverse.astype(np.int64)), wrap(counts.astype(np.int64))


def unique_with_pad(x, pad_num):
    """(the distinct elements of the 1-D x in order of first appearance, padded with `pad_num`
    to x's length; each element's position among them), int64 positions for int64 x, else
    int32."""
    _tensor(x, "unique_with_pad", "x")
    if x.ndim != 1:
        raise ValueError(f"For 'unique_with_pad', 'x' must be 1-D, but got shape {x.shape}")
    values, idx = AF.unique(x)
    n, k = x.shape[0], values.shape[0]
    pad = _array(pad_num).astype(x._data.dtype)
    padded = A.pad(values, ((0, n - k),), pad.item()) if n > k else values
    return padded, M.cast(idx, np.int64 if x._data.dtype == np.int64 else np.int32)


def argwhere(input):
    """int64 coordinates (n, ndim) of the nonzero elements of input (at least 1-D)."""
    _tensor(input, "argwhere")
    if input.ndim == 0:
        raise RuntimeError("For 'argwhere', the dimension of 'input' must be greater than or "
                           "equal to 1, but got 0")
    return AF.nonzero(input)


# ---- slice scatters, sorting -------------------------------------------------------------------

def select_scatter(input, src, axis, index):
    """A copy of input with its slice at `index` along `axis` replaced by src (input's shape
    without that axis)."""
    _tensor(input, "select_scatter")
    _tensor(src, "select_scatter", "src")
    ax = normalize_axis(check_int(axis, "axis", "select_scatter"), input.ndim, "select_scatter")
    n = input.shape[ax]
    i = check_int(index, "index", "select_scatter")
    if not -n <= i < n:
        raise ValueError(f"For 'select_scatter', 'index' {i} is out of range [-{n}, {n})")
    expected = input.shape[:ax] + input.shape[ax + 1:]
    if tuple(src.shape) != expected:
        raise ValueError(f"For 'select_scatter', 'src' must have shape {expected}, but got "
                         f"{src.shape}")
    _same_dtype(input, src, "select_scatter", "src")
    where = (builtins.slice(None),) * ax + (i % n,)
    return A.setitem(input, where, src)


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):
    """A copy of input with input[..., start:end:step, ...] along `axis` replaced by src."""
    _tensor(input, "slice_scatter")
    _tensor(src, "slice_scatter", "src")
    ax = normalize_axis(check_int(axis, "axis", "slice_scatter"), input.ndim, "slice_scatter")
    step = check_positive_int(step, "step", "slice_scatter")
    where = (builtins.slice(None),) * ax + (builtins.slice(start, end, step),)
    region = np.empty(input.shape, bool)[where].shape
    if tuple(src.shape) != region:
        raise ValueError(f"For 'slice_scatter', 'src' must have the sliced shape {region}, but "
                         f"got {src.shape}")
    _same_dtype(input, src, "slice_scatter", "src")
    return A.setitem(input, where, src)


def intopk(x1, x2, k):
    """For each row of x1 (N, C): whether its entry at the target x2[i] is among the k largest
    (fewer than k entries are strictly larger; a non-finite target is never in)."""
    _tensor(x1, "intopk", "x1")
    _tensor(x2, "intopk", "x2")
    k = check_int(k, "k", "intopk")
    a, t = x1._data, S.check_index_dtype(x2._data, "intopk", "x2")
    if a.ndim != 2 or t.ndim != 1 or t.shape[0] != a.shape[0]:
        raise ValueError(f"For 'intopk', 'x1' must be 2-D and 'x2' 1-D with one target per "
                         f"row, but got {a.shape} and {t.shape}")
    if a.dtype not in (np.float16, np.float32):
        raise TypeError(f"For 'intopk', 'x1' must be a float16 or float32 Tensor, but got "
                        f"{x1.dtype}")
    ok = (t >= 0) & (t < a.shape[1])
    target = a[np.arange(a.shape[0]), np.where(ok, t, 0)]
    larger = (a > target[:, None]).sum(axis=1)
    return wrap(ok & np.isfinite(target) & (larger < k))


def msort(input):
    """input sorted along axis 0 (ascending; differentiable)."""
    _tensor(input, "msort")
    return AF.sort(input, axis=0)[0]


def top_k(input_x, k, sorted=True):
    """(values, int32 indices) of the k largest entries along the last axis."""
    return AF.topk(input_x, k, None, True, sorted)


# ==== user-facing classes (MindSpore's Primitive names) =========================================

class _Plain(Primitive):
    """A class configured by nothing: `Name()`."""

    def __init__(self):
        super().__init__()


class _Locking(Primitive):
    fn = None

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    def __call__(self, input_x, indices, updates):
        return type(self).fn(input_x, indices, updates)


def _class(name, fn, doc, base=_Locking, init_default=None):
    body = {"fn": staticmethod(fn), "__doc__": doc, "__module__": __name__}
    if init_default is not None:
        def __init__(self, use_locking=init_default):
            base.__init__(self, use_locking)
        body["__init__"] = __init__
    return type(name, (base,), body)


ScatterAdd = _class("ScatterAdd", scatter_add, "`ScatterAdd(use_locking=False)(input_x, "
                    "indices, updates)`: ops.scatter_add, in place.")
ScatterSub = _class("ScatterSub", _scatter_sub, "`ScatterSub(use_locking=False)`: "
                    "input_x[indices[i]] -= updates[i], in place.")
ScatterMul = _class("ScatterMul", scatter_mul, "`ScatterMul(use_locking=False)`: "
                    "ops.scatter_mul, in place.")
ScatterDiv = _class("ScatterDiv", scatter_div, "`ScatterDiv(use_locking=False)`: "
                    "ops.scatter_div, in place.")
ScatterMax = _class("ScatterMax", scatter_max, "`ScatterMax(use_locking=False)`: "
                    "ops.scatter_max, in place.")
ScatterMin = _class("ScatterMin", scatter_min, "`ScatterMin(use_locking=False)`: "
                    "ops.scatter_min, in place.")
ScatterUpdate = _class("ScatterUpdate", scatter_update, "`ScatterUpdate(use_locking=True)`: "
                       "ops.scatter_update, in place.", init_default=True)
ScatterNdAdd = _class("ScatterNdAdd", scatter_nd_add, "`ScatterNdAdd(use_locking=False)`: "
                      "ops.scatter_nd_add, in place.")
ScatterNdSub = _class("ScatterNdSub", scatter_nd_sub, "`ScatterNdSub(use_locking=False)`: "
                      "ops.scatter_nd_sub, in place.")
ScatterNdMul = _class("ScatterNdMul", scatter_nd_mul, "`ScatterNdMul(use_locking=False)`: "
                      "ops.scatter_nd_mul, in place.")
ScatterNdDiv = _class("ScatterNdDiv", scatter_nd_div, "`ScatterNdDiv(use_locking=False)`: "
                      "ops.scatter_nd_div, in place.")
ScatterNdMax = _class("ScatterNdMax", scatter_nd_max, "`ScatterNdMax(use_locking=False)`: "
                      "ops.scatter_nd_max, in place.")
ScatterNdMin = _class("ScatterNdMin", scatter_nd_min, "`ScatterNdMin(use_locking=False)`: "
                      "ops.scatter_nd_min, in place.")
ScatterNdUpdate = _class("ScatterNdUpdate", scatter_nd_update, "`ScatterNdUpdate("
                         "use_locking=True)`: ops.scatter_nd_update, in place.",
                         init_default=True)


class ScatterNonAliasingAdd(_Plain):
    """`ScatterNonAliasingAdd()(input_x, indices, updates)`: ops.scatter_nd_add, in place."""

    def __call__(self, input_x, indices, updates):
        return _nd_in_place("add", input_x, indices, updates, "ScatterNonAliasingAdd")


class ScatterAddWithAxis(Primitive):
    """`ScatterAddWithAxis(axis=0)(input_x, indices, updates)`: tensor_scatter_elements with
    reduction 'add' (a new tensor: MindSpore 2.10 leaves input_x unchanged)."""

    def __init__(self, axis=0):
        super().__init__()
        self.axis = check_int(axis, "axis", "ScatterAddWithAxis")

    def __call__(self, input_x, indices, updates):
        return tensor_scatter_elements(input_x, indices, updates, self.axis, "add")


class _TensorScatter(_Plain):
    fn = None

    def __call__(self, input_x, indices, updates):
        return type(self).fn(input_x, indices, updates)


TensorScatterSub = type("TensorScatterSub", (_TensorScatter,), {
    "fn": staticmethod(tensor_scatter_sub), "__module__": __name__,
    "__doc__": "`TensorScatterSub()(input_x, indices, updates)`: ops.tensor_scatter_sub."})
TensorScatterMul = type("TensorScatterMul", (_TensorScatter,), {
    "fn": staticmethod(tensor_scatter_mul), "__module__": __name__,
    "__doc__": "`TensorScatterMul()(input_x, indices, updates)`: ops.tensor_scatter_mul."})
TensorScatterDiv = type("TensorScatterDiv", (_TensorScatter,), {
    "fn": staticmethod(tensor_scatter_div), "__module__": __name__,
    "__doc__": "`TensorScatterDiv()(input_x, indices, updates)`: ops.tensor_scatter_div."})


class TensorScatterElements(Primitive):
    """`TensorScatterElements(axis=0, reduction='none')(data, indices, updates)`."""

    def __init__(self, axis=0, reduction="none"):
        super().__init__()
        self.axis = check_int(axis, "axis", "TensorScatterElements")
        self.reduction = check_one_of(reduction, ("none", "add"), "reduction",
                                      "TensorScatterElements")

    def __call__(self, data, indices, updates):
        return tensor_scatter_elements(data, indices, updates, self.axis, self.reduction)


class GatherNd(_Plain):
    """`GatherNd()(input_x, indices)`: ops.gather_nd."""

    def __call__(self, input_x, indices):
        return gather_nd(input_x, indices)


class GatherV2(_Plain):
    """`GatherV2()(input_params, input_indices, axis, batch_dims=0)`: ops.gather."""

    def __call__(self, input_params, input_indices, axis, batch_dims=0):
        return AF.gather(input_params, input_indices, axis, batch_dims)


class SparseGatherV2(_Plain):
    """`SparseGatherV2()(input_params, input_indices, axis)`: ops.gather (dense gradients)."""

    def __call__(self, input_params, input_indices, axis):
        return AF.gather(input_params, input_indices, axis)


class IndexAdd(Primitive):
    """`IndexAdd(axis, use_lock=True, check_index_bound=True)(input_x, indices, input_y)`:
    ops.index_add, in place."""

    def __init__(self, axis, use_lock=True, check_index_bound=True):
        super().__init__()
        self.axis = check_int(axis, "axis", "IndexAdd")
        self.use_lock = check_bool(use_lock, "use_lock", "IndexAdd")
        self.check_index_bound = check_bool(check_index_bound, "check_index_bound", "IndexAdd")

    def __call__(self, input_x, indices, input_y):
        return _write_into(input_x, _axis_add(input_x, indices, input_y, self.axis, "IndexAdd"))


class InplaceIndexAdd(Primitive):
    """`InplaceIndexAdd(axis)(var, indices, updates)`: ops.inplace_index_add, in place."""

    def __init__(self, axis):
        super().__init__()
        self.axis = check_int(axis, "axis", "InplaceIndexAdd")

    def __call__(self, var, indices, updates):
        return _write_into(var, _axis_add(var, indices, updates, self.axis, "InplaceIndexAdd"))


class IndexFill(_Plain):
    """`IndexFill()(x, dim, index, value)`: ops.index_fill."""

    def __call__(self, x, dim, index, value):
        return index_fill(x, dim, index, value)


class IndexPut(Primitive):
    """`IndexPut(accumulate=0)(x1, x2, indices)`: a copy of x1 with x1[indices] = x2 (or += x2,
    repeats accumulating, with accumulate=1); x2 broadcasts."""

    def __init__(self, accumulate=0):
        super().__init__()
        self.accumulate = check_int(accumulate, "accumulate", "IndexPut")
        if self.accumulate not in (0, 1):
            raise ValueError(f"For 'IndexPut', 'accumulate' must be 0 or 1, but got "
                             f"{accumulate}")

    def __call__(self, x1, x2, indices):
        return _index_put(x1, x2, indices, self.accumulate, "IndexPut")


class _Rows(Primitive):
    fn = None

    def __init__(self, indices):
        super().__init__()
        if isinstance(indices, (list, tuple)):
            indices = tuple(check_int(i, "indices", self.name) for i in indices)
        else:
            indices = check_int(indices, "indices", self.name)
        self.indices = indices

    def __call__(self, x, v):
        return type(self).fn(x, v, self.indices)


InplaceAdd = type("InplaceAdd", (_Rows,), {
    "fn": staticmethod(inplace_add), "__module__": __name__,
    "__doc__": "`InplaceAdd(indices)(x, v)`: ops.inplace_add (a new tensor)."})
InplaceSub = type("InplaceSub", (_Rows,), {
    "fn": staticmethod(inplace_sub), "__module__": __name__,
    "__doc__": "`InplaceSub(indices)(x, v)`: ops.inplace_sub (a new tensor)."})
InplaceUpdate = type("InplaceUpdate", (_Rows,), {
    "fn": staticmethod(inplace_update), "__module__": __name__,
    "__doc__": "`InplaceUpdate(indices)(x, v)`: ops.inplace_update (a new tensor)."})


class InplaceUpdateV2(_Plain):
    """`InplaceUpdateV2()(x, indices, v)`: ops.inplace_update with the indices as an input."""

    def __call__(self, x, indices, v):
        return inplace_update(x, v, indices)


class MaskedFill(_Plain):
    """`MaskedFill()(input_x, mask, value)`: ops.masked_fill."""

    def __call__(self, input_x, mask, value):
        return AF.masked_fill(input_x, mask, value)


class MaskedSelect(_Plain):
    """`MaskedSelect()(input, mask)`: ops.masked_select."""

    def __call__(self, input, mask):
        return AF.masked_select(input, mask)


class MaskedScatter(_Plain):
    """`MaskedScatter()(input, mask, source)`: a copy of input with the elements where the bool
    `mask` (broadcast to input) is True replaced, in order, by the first elements of source."""

    def __call__(self, input, mask, source):
        op = "MaskedScatter"
        _tensor(input, op)
        _tensor(source, op, "source")
        m = AF._bool_mask(mask, op)
        try:
            m = np.broadcast_to(m, input.shape)
        except ValueError:
            raise ValueError(f"For '{op}', 'mask' {m.shape} does not broadcast to the input's "
                             f"shape {input.shape}") from None
        k = int(m.sum())
        if source.size < k:
            raise ValueError(f"For '{op}', number of elements of source {source.size} < number "
                             f"of ones in mask {k}")
        _same_dtype(input, source, op, "source")
        taken = A.getitem(A.reshape(source, (source.size,)), builtins.slice(0, k))
        return A.setitem(input, (m,), taken)


class NonZero(_Plain):
    """`NonZero()(input)`: int64 coordinates (n, ndim) of the nonzero elements."""

    def __call__(self, input):
        return argwhere(input)


class _Segment(_Plain):
    kind = None

    def __call__(self, input_x, segment_ids):
        return _segment(self.kind, input_x, segment_ids, self.name)


SegmentSum = type("SegmentSum", (_Segment,), {
    "kind": "sum", "__module__": __name__,
    "__doc__": "`SegmentSum()(input_x, segment_ids)`: sums over runs of the sorted 1-D ids "
               "(num_segments = ids[-1] + 1; zeros where a segment is empty)."})
SegmentProd = type("SegmentProd", (_Segment,), {
    "kind": "prod", "__module__": __name__,
    "__doc__": "`SegmentProd()(input_x, segment_ids)`: products over sorted segments (1 where "
               "empty)."})
SegmentMax = type("SegmentMax", (_Segment,), {
    "kind": "max", "__module__": __name__,
    "__doc__": "`SegmentMax()(input_x, segment_ids)`: maxima over sorted segments (0 where "
               "empty)."})
SegmentMin = type("SegmentMin", (_Segment,), {
    "kind": "min", "__module__": __name__,
    "__doc__": "`SegmentMin()(input_x, segment_ids)`: minima over sorted segments (0 where "
               "empty)."})
SegmentMean = type("SegmentMean", (_Segment,), {
    "kind": "mean", "__module__": __name__,
    "__doc__": "`SegmentMean()(input_x, segment_ids)`: means over sorted segments (0 where "
               "empty; integers divide toward zero)."})


class UniqueConsecutive(Primitive):
    """`UniqueConsecutive(return_inverse=False, return_counts=False, dim=None)(input)`:
    (output, inverse, counts), as ops.unique_consecutive with both flags."""

    def __init__(self, return_inverse=False, return_counts=False, dim=None):
        super().__init__()
        self.return_inverse = check_bool(return_inverse, "return_inverse", "UniqueConsecutive")
        self.return_counts = check_bool(return_counts, "return_counts", "UniqueConsecutive")
        self.dim = dim if dim is None else check_int(dim, "dim", "UniqueConsecutive")

    def __call__(self, input):
        _tensor(input, "UniqueConsecutive")
        return _unique_runs(input, self.dim, "UniqueConsecutive")


class UniqueWithPad(_Plain):
    """`UniqueWithPad()(x, pad_num)`: ops.unique_with_pad."""

    def __call__(self, x, pad_num):
        return unique_with_pad(x, pad_num)


class Bincount(_Plain):
    """`Bincount()(array, size, weights)`: counts of the int32 values of `array` below `size`
    (values outside [0, size) are not counted), weighted by `weights` (of array's shape) or by
    1 when weights is empty; weights' dtype."""

    def __call__(self, array, size, weights):
        op = "Bincount"
        _tensor(array, op, "array")
        _tensor(weights, op, "weights")
        a = S.check_index_dtype(array._data, op, "array", ("int32",))
        n = int(_array(size))
        if n < 0:
            raise ValueError(f"For '{op}', 'size' must be non-negative, but got {n}")
        w = weights._data
        if w.size and w.shape != a.shape:
            raise ValueError(f"For '{op}', 'weights' {w.shape} must be empty or have the shape "
                             f"of 'array' {a.shape}")
        keep = (a >= 0) & (a < n)
        vals = a[keep]
        counts = np.bincount(vals, w[keep].astype(np.float64) if w.size else None, n)
        return wrap(counts[:n].astype(w.dtype))


class Bucketize(Primitive):
    """`Bucketize(boundaries)(input)`: int32 index of the first boundary greater than each
    element (boundaries[i-1] <= x < boundaries[i])."""

    def __init__(self, boundaries):
        super().__init__()
        self.boundaries = [float(b) for b in check_type(boundaries, (list, tuple),
                                                        "boundaries", "Bucketize")]

    def __call__(self, input):
        return bucketize(input, self.boundaries, right=True)


class SearchSorted(Primitive):
    """`SearchSorted(dtype=mstype.int64, right=False)(sorted_sequence, values, sorter=None)`:
    ops.searchsorted with the result in `dtype` (int32 or int64)."""

    def __init__(self, dtype=mstype.int64, right=False):
        super().__init__()
        check_one_of(dtype, (mstype.int32, mstype.int64), "dtype", "SearchSorted")
        self.dtype = dtype
        self.right = check_bool(right, "right", "SearchSorted")

    def __call__(self, sorted_sequence, values, sorter=None):
        return _search(sorted_sequence, values, self.right, sorter, mstype.to_np(self.dtype),
                       "SearchSorted")


class Histogram(Primitive):
    """`Histogram(bins=100, min=0.0, max=0.0)(x)`: ops.histc."""

    def __init__(self, bins=100, min=0.0, max=0.0):
        super().__init__()
        self.bins = check_positive_int(bins, "bins", "Histogram")
        self.min, self.max = float(min), float(max)

    def __call__(self, x):
        return _histogram(x, self.bins, self.min, self.max, "Histogram")


class HistogramFixedWidth(Primitive):
    """`HistogramFixedWidth(nbins, dtype='int32')(x, range)`: int32 counts of x in `nbins`
    equal bins over range = [lo, hi); values below lo count in the first bin, values at or above
    hi in the last."""

    def __init__(self, nbins, dtype="int32"):
        super().__init__()
        self.nbins = check_positive_int(nbins, "nbins", "HistogramFixedWidth")
        self.dtype = check_one_of(dtype, ("int32",), "dtype", "HistogramFixedWidth")

    def __call__(self, x, range):
        op = "HistogramFixedWidth"
        _tensor(x, op, "x")
        r = _array(range).astype(np.float64)
        if r.shape != (2,) or not r[0] < r[1]:
            raise ValueError(f"For '{op}', 'range' must be [lo, hi] with lo < hi, but got {r}")
        a = x._data.astype(np.float64).reshape(-1)
        bins = np.floor((a - r[0]) / (r[1] - r[0]) * self.nbins)
        bins = np.clip(bins, 0, self.nbins - 1).astype(np.int64)
        return wrap(np.bincount(bins, minlength=self.nbins).astype(np.int32))


class InvertPermutation(_Plain):
    """`InvertPermutation()(input_x)`: the inverse of a permutation given as a tuple or list of
    ints (a constant, not a Tensor), of the same type."""

    def __call__(self, input_x):
        op = "InvertPermutation"
        if isinstance(input_x, Tensor) or not isinstance(input_x, (tuple, list)):
            raise ValueError(f"For '{op}', 'input_x' must be a tuple or list of ints, but got "
                             f"{type(input_x).__name__}")
        perm = [check_int(v, "input_x", op) for v in input_x]
        if sorted(perm) != list(builtins.range(len(perm))):
            raise ValueError(f"For '{op}', 'input_x' must be a permutation of 0..{len(perm) - 1}"
                             f", but got {input_x}")
        inverse = [0] * len(perm)
        for i, p in enumerate(perm):
            inverse[p] = i
        return type(input_x)(inverse)


class UnravelIndex(_Plain):
    """`UnravelIndex()(indices, dims)`: the coordinates in a tensor of shape `dims` of each flat
    index: shape (len(dims),) + indices.shape, in indices' dtype."""

    def __call__(self, indices, dims):
        op = "UnravelIndex"
        idx = S.check_index_dtype(_array(indices), op, "indices")
        d = S.check_index_dtype(_array(dims), op, "dims")
        if d.ndim != 1 or np.any(d <= 0):
            raise ValueError(f"For '{op}', 'dims' must be 1-D and positive, but got {d}")
        total = int(np.prod(d))
        if idx.size and (idx.min() < 0 or idx.max() >= total):
            raise ValueError(f"For '{op}', 'indices' must be in [0, {total}), but got "
                             f"{idx[(idx < 0) | (idx >= total)].flat[0]}")
        return wrap(np.stack(np.unravel_index(idx, tuple(int(v) for v in d))).astype(idx.dtype))


class _Bound(Primitive):
    right = False

    def __init__(self, out_type=mstype.int32):
        super().__init__()
        check_one_of(out_type, (mstype.int32, mstype.int64), "out_type", self.name)
        self.out_type = out_type

    def __call__(self, sorted_x, values):
        _tensor(sorted_x, self.name, "sorted_x")
        _tensor(values, self.name, "values")
        if sorted_x.ndim != 2 or values.ndim != 2 or sorted_x.shape[0] != values.shape[0]:
            raise ValueError(f"For '{self.name}', 'sorted_x' and 'values' must be 2-D with the "
                             f"same number of rows, but got {sorted_x.shape} and "
                             f"{values.shape}")
        return _search(sorted_x, values, self.right, None, mstype.to_np(self.out_type),
                       self.name)


class LowerBound(_Bound):
    """`LowerBound(out_type=mstype.int32)(sorted_x, values)`: per row, the first position in
    sorted_x not less than each value."""


class UpperBound(_Bound):
    """`UpperBound(out_type=mstype.int32)(sorted_x, values)`: per row, the first position in
    sorted_x greater than each value."""

    right = True


class NthElement(Primitive):
    """`NthElement(reverse=False)(input, n)`: the n-th smallest (n-th largest with `reverse`)
    entry along the last axis (differentiable)."""

    def __init__(self, reverse=False):
        super().__init__()
        self.reverse = check_bool(reverse, "reverse", "NthElement")

    def __call__(self, input, n):
        op = "NthElement"
        _tensor(input, op)
        k = np.asarray(check_int(n, "n", op)) if not isinstance(n, Tensor) else \
            S.check_index_dtype(n._data, op, "n", ("int32",))
        if k.ndim:
            raise ValueError(f"For '{op}', 'n' must be an int or a 0-D Tensor, but got shape "
                             f"{k.shape}")
        k = int(k)
        size = input.shape[-1] if input.ndim else 0
        if not 0 <= k < size:
            raise ValueError(f"For '{op}', 'n' must be in [0, {size}) for the last axis of shape "
                             f"{input.shape}, but got {k}")
        order = AF._sorted_indices(input._data, input.ndim - 1, self.reverse)
        pick = np.take(order, [k], axis=-1)
        return AF.squeeze(AF.gather_elements(input, input.ndim - 1, pick), input.ndim - 1)


class ListDiff(Primitive):
    """`ListDiff(out_idx=mstype.int32)(x, y)`: (the values of the 1-D x not in y, in order, and
    their positions in x)."""

    def __init__(self, out_idx=mstype.int32):
        super().__init__()
        check_one_of(out_idx, (mstype.int32, mstype.int64), "out_idx", "ListDiff")
        self.out_idx = out_idx

    def __call__(self, x, y):
        _tensor(x, "ListDiff", "x")
        _tensor(y, "ListDiff", "y")
        if x.ndim != 1 or y.ndim != 1:
            raise ValueError(f"For 'ListDiff', 'x' and 'y' must be 1-D, but got {x.shape} and "
                             f"{y.shape}")
        _same_dtype(x, y, "ListDiff", "y")
        keep = np.flatnonzero(~np.isin(x._data, y._data))
        return wrap(x._data[keep]), wrap(keep.astype(mstype.to_np(self.out_idx)))


class FillDiagonal(Primitive):
    """`FillDiagonal(fill_value, wrap=False)(input_x)`: a copy with the main diagonal (all
    indices equal; a tall matrix restarts it every cols + 1 rows with `wrap`) set to
    fill_value."""

    def __init__(self, fill_value, wrap=False):
        super().__init__()
        self.fill_value = float(fill_value)
        self.wrap = check_bool(wrap, "wrap", "FillDiagonal")

    def __call__(self, input_x):
        _tensor(input_x, "FillDiagonal", "input_x")
        shape = input_x.shape
        if len(shape) < 2 or (len(shape) > 2 and len(set(shape)) != 1):
            raise ValueError(f"For 'FillDiagonal', 'input_x' must be 2-D, or N-D with all "
                             f"dimensions equal, but got shape {shape}")
        mask = np.zeros(shape, bool)
        np.fill_diagonal(mask, True, wrap=self.wrap)
        value = wrap(np.asarray(self.fill_value).astype(input_x._data.dtype))
        return M.select(wrap(mask), value, input_x)


class EmbeddingLookup(_Plain):
    """`EmbeddingLookup()(input_params, input_indices, offset)`: rows input_params[i - offset]
    for each index i, zeros where i - offset falls outside the table."""

    def __call__(self, input_params, input_indices, offset):
        op = "EmbeddingLookup"
        _tensor(input_params, op, "input_params")
        idx = S.check_index_dtype(_array(input_indices), op, "input_indices") - \
            check_int(offset, "offset", op)
        rows = input_params.shape[0]
        inside = (idx >= 0) & (idx < rows)
        picked = A.gather(input_params, np.where(inside, idx, 0), 0)
        mask = inside.reshape(inside.shape + (1,) * (input_params.ndim - 1))
        zero = const(np.zeros((), input_params._data.dtype))
        return M.select(wrap(np.broadcast_to(mask, picked.shape)), picked, zero)


class InTopK(Primitive):
    """`InTopK(k)(x1, x2)`: ops.intopk."""

    def __init__(self, k):
        super().__init__()
        self.k = check_int(k, "k", "InTopK")

    def __call__(self, x1, x2):
        return intopk(x1, x2, self.k)
