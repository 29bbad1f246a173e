"""Functional array ops: shape changes, joining, splitting, indexing, scatter, padding, sorting,
introspection (tensor creation is in creation_func)."""
import builtins
import math

import numpy as np

from ..._autodiff.tape import apply, const, wrap
from ..._validator import check_int, check_one_of, check_positive_int
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import math_ops as M
from ..operations._kernels import normalize_axis
from ..primitive import data_function
from ._checks import _tensor
# Read from this module by the primitive classes (`array_func._shape_arg`) and the Transformer
# layers (`zeros`); defined in creation_func and exported by ops.function from there.
from .creation_func import _shape_arg, zeros  # noqa: F401

__all__ = [
    "reshape", "transpose", "permute", "concat", "cat", "stack", "unstack", "squeeze",
    "unsqueeze", "expand_dims", "flatten", "gather", "split", "chunk", "unbind", "tile",
    "broadcast_to", "where", "select", "pad", "flip", "roll", "gather_elements", "gather_d",
    "index_select", "masked_fill", "masked_select", "scatter", "scatter_nd", "tensor_scatter_add",
    "tensor_scatter_update", "narrow", "slice", "movedim", "swapaxes", "tril", "triu", "diag",
    "diagonal", "nonzero", "meshgrid", "repeat_interleave", "shape", "size", "rank", "numel",
    "topk", "sort", "argsort", "unique", "identity",
]


def _index_array(index, op, arg="index"):
    """An integer index (Tensor, array or list) as a NumPy array; TypeError for other dtypes."""
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', '{arg}' must be an integer Tensor, but got dtype "
                        f"{mstype.from_np(idx.dtype) if idx.dtype.kind in 'biuf' else idx.dtype}")
    return idx


def _bool_mask(mask, op):
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype.kind != "b":
        raise TypeError(f"For '{op}', 'mask' must be a bool Tensor, but got dtype "
                        f"{mstype.from_np(m.dtype) if m.dtype.kind in 'iuf' else m.dtype}")
    return m


def _axes_list(dims, ndim, op):
    dims = [dims] if isinstance(dims, (int, np.integer)) else list(dims)
    out = [normalize_axis(d, ndim, op) for d in dims]
    if len(set(out)) != len(out):
        raise ValueError(f"For '{op}', the axes {tuple(dims)} repeat an axis")
    return out


# ---- shape changes --------------------------------------------------------------------------------

def reshape(input, shape):
    """input with a new shape of the same size (one -1 is inferred)."""
    _tensor(input, "reshape")
    return apply(A._RESHAPE, (input, A._check_shape(shape, "reshape")))


def transpose(input, dims):
    """input with its axes permuted by `dims`."""
    _tensor(input, "transpose")
    return apply(A._TRANSPOSE, (input, tuple(dims)))


def permute(input, axis):
    """input with its axes permuted by `axis` (as `transpose`)."""
    return transpose(input, axis)


def swapaxes(input, axis0, axis1):
    """input with axes `axis0` and `axis1` exchanged."""
    _tensor(input, "swapaxes")
    perm = list(range(input.ndim))
    a, b = (normalize_axis(v, input.ndim, "swapaxes") for v in (axis0, axis1))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(input, perm)


def movedim(x, source, destination):
    """x with the axes `source` moved to the positions `destination` (ints or sequences); the
    other axes keep their order."""
    _tensor(x, "movedim", "x")
    src = _axes_list(source, x.ndim, "movedim")
    dst = _axes_list(destination, x.ndim, "movedim")
    if len(src) != len(dst):
        raise ValueError(f"For 'movedim', 'source' {source!r} and 'destination' "
                         f"{destination!r} must name as many axes")
    rest = iter(i for i in range(x.ndim) if i not in src)
    placed = dict(zip(dst, src))
    return transpose(x, [placed[i] if i in placed else next(rest) for i in range(x.ndim)])


def squeeze(input, axis=None):
    """input without its size-1 axes; with `axis`, only those of the named axes that have size 1
    (a named axis of another size is left alone, as in MindSpore)."""
    _tensor(input, "squeeze")
    if axis is None or axis == () or axis == []:
        return apply(A.Squeeze(()), (input,)) if 1 in input.shape else input
    axes = [a for a in _axes_list(axis, input.ndim, "squeeze") if input.shape[a] == 1]
    return apply(A.Squeeze(tuple(axes)), (input,)) if axes else input


def expand_dims(input_x, axis):
    """input_x with a new size-1 axis at `axis`."""
    _tensor(input_x, "expand_dims", "input_x")
    return apply(A._EXPAND_DIMS, (input_x, axis))


def unsqueeze(input, dim):
    """input with a new size-1 axis at `dim`."""
    return expand_dims(input, dim)


def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """input with axes start_dim..end_dim merged (the batch axis kept by default); 0-D input
    becomes shape (1,), 1-D input is returned as is."""
    _tensor(input, "flatten")
    if order not in ("C", "F"):
        raise ValueError(f"For 'flatten', 'order' must be 'C' or 'F', but got {order!r}")
    nd = input.ndim
    if nd == 0:
        return reshape(input, (1,))
    if nd == 1:
        return input
    s = normalize_axis(start_dim, nd, "flatten")
    e = normalize_axis(end_dim, nd, "flatten")
    if s > e:
        raise ValueError(f"For 'flatten', 'start_dim' {start_dim} must not come after "
                         f"'end_dim' {end_dim}")
    if order == "F":
        input = transpose(input, tuple(range(nd))[::-1])
    shape = input.shape
    return reshape(input, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


def broadcast_to(input, shape):
    """input broadcast to `shape` (-1 keeps a dimension)."""
    _tensor(input, "broadcast_to")
    return apply(A._BROADCAST_TO, (input, tuple(shape)))


def tile(input, dims):
    """input repeated `dims` times per axis (missing leading entries count as 1)."""
    _tensor(input, "tile")
    return apply(A.Tile(), (input, tuple(dims)))


def identity(x):
    """A copy of x (differentiable)."""
    _tensor(x, "identity", "x")
    return apply(A._IDENTITY, (x,))


# ---- joining and splitting ------------------------------------------------------------------------

def concat(tensors, axis=0):
    """Tensors joined along `axis` (mixed dtypes promote)."""
    return A.Concat(axis)(tensors)


def cat(tensors, axis=0):
    """Alias of `concat`."""
    return concat(tensors, axis)


def stack(tensors, axis=0):
    """Tensors of one shape stacked along a new `axis`."""
    return A.Stack(axis)(tensors)


def unstack(input_x, axis=0):
    """The slices of input_x along `axis`, as a tuple."""
    return apply(A.Unstack(axis), (_tensor(input_x, "unstack", "input_x"),))


def unbind(input, dim=0):
    """The slices of input along `dim`, as a tuple."""
    return apply(A.Unstack(dim), (_tensor(input, "unbind"),))


def split(tensor, split_size_or_sections, axis=0):
    """A tuple of pieces along `axis`: equal pieces of an int size (the last may be smaller), or
    pieces of the listed sizes (which must add up to the axis length)."""
    _tensor(tensor, "split", "tensor")
    ax = normalize_axis(axis, tensor.ndim, "split")
    n = tensor.shape[ax]
    if isinstance(split_size_or_sections, (int, np.integer)):
        size = int(split_size_or_sections)
        if size <= 0:
            raise ValueError(f"For 'split', 'split_size_or_sections' must be positive, got {size}")
        sizes = [size] * (n // size) + ([n % size] if n % size else [])
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != n or builtins.any(s < 0 for s in sizes):
            raise ValueError(f"For 'split', the sections {sizes} must be non-negative and add up "
                             f"to the length {n} of axis {ax} of shape {tensor.shape}")
    return apply(A.SplitSizes(ax, sizes or [0]), (tensor,))


def chunk(input, chunks, axis=0):
    """Up to `chunks` pieces along `axis`, ceil(n / chunks) long each (the last smaller)."""
    _tensor(input, "chunk")
    chunks = check_positive_int(chunks, "chunks", "chunk")
    n = input.shape[normalize_axis(axis, input.ndim, "chunk")]
    return split(input, builtins.max(1, -(-n // chunks)), axis)


def repeat_interleave(input, repeats, axis=None):
    """Each element repeated `repeats` times (an int, or one count per element) along `axis`
    (of the flattened input for None)."""
    _tensor(input, "repeat_interleave")
    if axis is None:
        input, axis = reshape(input, (-1,)), 0
    ax = normalize_axis(axis, input.ndim, "repeat_interleave")
    r = repeats._data if isinstance(repeats, Tensor) else np.asarray(repeats)
    if r.dtype.kind not in "iu" or np.any(r < 0):
        raise ValueError(f"For 'repeat_interleave', 'repeats' must be non-negative integers, "
                         f"but got {repeats!r}")
    if r.ndim and r.size != input.shape[ax]:
        raise ValueError(f"For 'repeat_interleave', 'repeats' must have one count per element "
                         f"({input.shape[ax]}) of axis {ax}, but got {r.size}")
    return A.gather(input, np.repeat(np.arange(input.shape[ax]), r), ax)


def meshgrid(*inputs, indexing="xy"):
    """Coordinate grids from 1-D tensors: 'xy' (Cartesian: the first two axes swapped) or 'ij'
    (matrix) indexing."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For 'meshgrid', 'indexing' must be 'xy' or 'ij', got {indexing!r}")
    for k, t in enumerate(inputs):
        _tensor(t, "meshgrid", f"inputs[{k}]")
        if t.ndim != 1:
            raise ValueError(f"For 'meshgrid', the inputs must be 1-D, but input {k} has shape "
                             f"{t.shape}")
    n = len(inputs)
    sizes = [t.shape[0] for t in inputs]
    swap = indexing == "xy" and n >= 2
    out_shape = list(sizes)
    if swap:
        out_shape[0], out_shape[1] = out_shape[1], out_shape[0]
    outs = []
    for k, t in enumerate(inputs):
        pos = {0: 1, 1: 0}.get(k, k) if swap else k
        shape = [1] * n
        shape[pos] = sizes[k]
        outs.append(broadcast_to(reshape(t, tuple(shape)), tuple(out_shape)))
    return tuple(outs)


# ---- selection and masks --------------------------------------------------------------------------

def where(condition, input, other):
    """input where condition is True, else other (Tensors or numbers, broadcasting)."""
    cond = condition if isinstance(condition, Tensor) else Tensor(np.asarray(condition))
    if cond._data.dtype.kind != "b":
        raise TypeError(f"For 'where', 'condition' must be a bool Tensor, but got "
                        f"{cond.dtype}")
    return M.select(cond, input, other)


def select(condition, input, other):
    """Alias of `where`."""
    return where(condition, input, other)


def masked_fill(input_x, mask, value):
    """input_x with `value` (a number or 0-d Tensor, cast to input_x's dtype) where the bool
    `mask` (broadcast) is True."""
    _tensor(input_x, "masked_fill", "input_x")
    m = _bool_mask(mask, "masked_fill")
    dt = input_x._data.dtype
    if isinstance(value, Tensor):
        v = M.cast(value, dt)
    else:
        v = wrap(np.asarray(value, dt))
    return M.select(wrap(m), v, input_x)


def masked_select(input, mask):
    """1-D tensor of the elements where the bool `mask` (broadcast with input) is True."""
    _tensor(input, "masked_select")
    m = _bool_mask(mask, "masked_select")
    if m.shape != input.shape:
        shape = np.broadcast_shapes(m.shape, input.shape)
        input = broadcast_to(input, shape)
        m = np.broadcast_to(m, shape)
    return A.getitem(input, (m,))


def narrow(input, axis, start, length):
    """The `length` elements from `start` along `axis`."""
    _tensor(input, "narrow")
    ax = normalize_axis(axis, input.ndim, "narrow")
    if start < 0 or length < 0 or start + length > input.shape[ax]:
        raise ValueError(f"For 'narrow', [{start}, {start + length}) is out of range for axis "
                         f"{ax} of size {input.shape[ax]}")
    idx = (builtins.slice(None),) * ax + (builtins.slice(start, start + length),)
    return A.getitem(input, idx)


def slice(input_x, begin, size):
    """The block starting at `begin` with `size` (-1: to the end) per axis."""
    _tensor(input_x, "slice", "input_x")
    if len(begin) != input_x.ndim or len(size) != input_x.ndim:
        raise ValueError(f"For 'slice', 'begin' and 'size' need {input_x.ndim} entries, but got "
                         f"{begin} and {size}")
    for b, s, n in zip(begin, size, input_x.shape):
        if b < 0 or s < -1 or (s != -1 and b + s > n) or b > n:
            raise ValueError(f"For 'slice', begin {tuple(begin)} and size {tuple(size)} exceed "
                             f"shape {input_x.shape}")
    idx = tuple(builtins.slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    return A.getitem(input_x, idx)


def flip(input, dims):
    """input reversed along `dims`."""
    _tensor(input, "flip")
    idx = [builtins.slice(None)] * input.ndim
    for d in _axes_list(dims, input.ndim, "flip"):
        idx[d] = builtins.slice(None, None, -1)
    return A.getitem(input, tuple(idx))


def roll(input, shifts, dims=None):
    """input with elements shifted by `shifts` along `dims` (of the flattened input for None);
    elements leaving one end come back at the other."""
    _tensor(input, "roll")
    if dims is None:
        if not isinstance(shifts, (int, np.integer)):
            raise ValueError(f"For 'roll', without 'dims' 'shifts' must be an int, got {shifts!r}")
        return reshape(roll(reshape(input, (-1,)), shifts, 0), input.shape)
    shifts = [shifts] if isinstance(shifts, (int, np.integer)) else list(shifts)
    dims = [dims] if isinstance(dims, (int, np.integer)) else list(dims)
    if len(shifts) != len(dims):
        raise ValueError(f"For 'roll', 'shifts' {shifts} and 'dims' {dims} must have the same "
                         "length")
    out = input
    for s, d in zip(shifts, dims):
        d = normalize_axis(d, input.ndim, "roll")
        n = input.shape[d]
        if n:
            out = A.gather(out, const((np.arange(n) - s) % n), d)
    return out


def _triangle(input, diagonal, lower, op):
    _tensor(input, op)
    if input.ndim < 2:
        raise ValueError(f"For '{op}', the input must be at least 2-D, but got shape "
                         f"{input.shape}")
    ones = np.ones(input.shape[-2:], bool)
    mask = np.tril(ones, diagonal) if lower else np.triu(ones, diagonal)
    zero = const(np.zeros((), input._data.dtype))
    return M.select(const(mask), input, zero)


def tril(input, diagonal=0):
    """Lower triangle of the last two axes (entries above `diagonal` zeroed)."""
    return _triangle(input, diagonal, True, "tril")


def triu(input, diagonal=0):
    """Upper triangle of the last two axes (entries below `diagonal` zeroed)."""
    return _triangle(input, diagonal, False, "triu")


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal at `offset` of the (dim1, dim2) planes, as a new last axis: a view of
    input (a write into it writes input)."""
    _tensor(input, "diagonal")
    if input.ndim < 2:
        raise ValueError(f"For 'diagonal', the input must be at least 2-D, but got shape "
                         f"{input.shape}")
    d1, d2 = _axes_list((dim1, dim2), input.ndim, "diagonal")
    if d1 == d2:
        raise ValueError(f"For 'diagonal', 'dim1' and 'dim2' must name two axes, but both are "
                         f"axis {d1}")
    return apply(A.Diagonal(check_int(offset, "offset", "diagonal"), d1, d2), (input,))


def diag(input):
    """A tensor with `input` on its diagonal: shape input.shape + input.shape, out[i..., i...] =
    input[i...] (a 1-D input gives a square matrix)."""
    _tensor(input, "diag")
    if input.ndim == 0:
        raise ValueError("For 'diag', the input must have at least 1 dimension, but got a 0-D "
                         "tensor")
    n = input.size
    flat = reshape(input, (n,))
    square = A.getitem_grad(flat, (np.arange(n), np.arange(n)), (n, n))
    return reshape(square, input.shape + input.shape)


# ---- gather and scatter ---------------------------------------------------------------------------

def gather(input_params, input_indices, axis, batch_dims=0):
    """Slices of input_params along `axis` at `input_indices` (negative indices count from the
    end; out of range is an IndexError). With `batch_dims` b, the first b axes of both are batch
    axes: out[B, ..., I, ...] = input_params[B, ..., indices[B, I], ...]."""
    _tensor(input_params, "gather", "input_params")
    idx = _index_array(input_indices, "gather", "input_indices")
    if batch_dims == 0:  # a Tensor index stays a traced value under graph capture
        return A.gather(input_params, input_indices if isinstance(input_indices, Tensor) else idx,
                        axis)
    return _batched_gather(input_params, idx, axis, batch_dims)


def _batched_gather(x, idx, axis, batch_dims):
    b = batch_dims + idx.ndim if batch_dims < 0 else batch_dims
    ax = normalize_axis(axis, x.ndim, "gather")
    if not 0 < b <= builtins.min(idx.ndim, ax):
        raise ValueError(f"For 'gather', 'batch_dims' {batch_dims} must be in [-{idx.ndim}, "
                         f"{builtins.min(idx.ndim, ax)}] for indices of rank {idx.ndim} and "
                         f"axis {ax}")
    if idx.shape[:b] != x.shape[:b]:
        raise ValueError(f"For 'gather', the batch axes of 'input_params' {x.shape} and "
                         f"'input_indices' {idx.shape} differ")
    A._check_indices(idx, x.shape[ax], "gather", "input_indices")
    # Every axis of x gets an integer index broadcast into the output layout
    # (batch..., x's axes before `axis`, idx's own axes, x's axes after `axis`).
    k = idx.ndim - b
    out_nd = ax + k + x.ndim - ax - 1

    def placed(values, pos):
        shape = [1] * out_nd
        shape[pos] = values.size
        return values.reshape(shape)

    index = [placed(np.arange(x.shape[d]), d) for d in range(ax)]
    index.append(idx.reshape(idx.shape[:b] + (1,) * (ax - b) + idx.shape[b:] +
                             (1,) * (x.ndim - ax - 1)))
    index += [placed(np.arange(x.shape[d]), ax + k + d - ax - 1) for d in range(ax + 1, x.ndim)]
    return A.getitem(x, tuple(index))


def index_select(input, axis, index):
    """The slices of input along `axis` at the 1-D `index`."""
    idx = _index_array(index, "index_select")
    if idx.ndim != 1:
        raise ValueError(f"For 'index_select', 'index' must be 1-D, but got shape {idx.shape}")
    return gather(_tensor(input, "index_select"), index if isinstance(index, Tensor) else idx,
                  axis)


def _along_axis_index(idx, dim):
    """The advanced index selecting idx[i, j, ...] along `dim` and the position elsewhere
    (NumPy's take_along_axis)."""
    grids = list(np.ogrid[tuple(builtins.slice(0, n) for n in idx.shape)])
    grids[dim] = idx
    return tuple(grids)


def _along_axis_args(input, axis, index, op):
    """(index array, axis) of `gather_elements` and `scatter`: `index` has the input's rank, no
    larger sizes off `axis`, and indices in range along it."""
    _tensor(input, op)
    idx = _index_array(index, op)
    axis = normalize_axis(axis, input.ndim, op)
    if idx.ndim != input.ndim or builtins.any(
            i != axis and m > n for i, (m, n) in enumerate(zip(idx.shape, input.shape))):
        raise ValueError(f"For '{op}', 'index' must have the input's rank and no larger sizes "
                         f"off axis {axis}: input {input.shape}, index {idx.shape}")
    A._check_indices(idx, input.shape[axis], op, "index")
    return idx, axis


def gather_elements(input, dim, index):
    """out[i][j] = input[index[i][j]][j] for dim 0 (and so on): NumPy's take_along_axis. `index`
    has input's rank and no larger sizes on the other axes."""
    idx, dim = _along_axis_args(input, dim, index, "gather_elements")
    if not isinstance(index, Tensor):
        return A.getitem(input, _along_axis_index(idx, dim))
    # a Tensor index: its flat positions in input are a recorded node (a graph-mode replay
    # checks and places the new indices), picked by a gather that adds back in the same order
    pos = data_function(_along_axis_positions, index, static=(input.shape, dim))
    return A.gather(A.reshape(input, (-1,)), pos, 0)


def _along_axis_positions(idx, shape, dim):
    """Flat positions in an array of `shape` of gather_elements' picks (a DataFunction)."""
    A._check_indices(idx, shape[dim], "gather_elements", "index")
    grids = list(_along_axis_index(np.where(idx < 0, idx + shape[dim], idx), dim))
    pos = 0
    for g, n in zip(grids, shape):
        pos = pos * n + g
    return pos


def gather_d(x, dim, index):
    """Alias of `gather_elements`."""
    return gather_elements(x, dim, index)


def scatter(input, axis, index, src):
    """A copy of input with input[index[i][j]][j] = src[i][j] along `axis` (and so on), the
    adjoint layout of `gather_elements`. `src` is a Tensor at least as large as `index` on every
    axis, or a number. Where an index repeats, the last write wins."""
    idx, ax = _along_axis_args(input, axis, index, "scatter")
    if isinstance(src, Tensor):
        if src.ndim != idx.ndim or builtins.any(m > n for m, n in zip(idx.shape, src.shape)):
            raise ValueError(f"For 'scatter', 'src' {src.shape} must have the rank of 'index' "
                             f"{idx.shape} and sizes at least as large")
        if src.shape != idx.shape:
            src = A.getitem(src, tuple(builtins.slice(0, n) for n in idx.shape))
        src = M.cast(src, input._data.dtype)
    return A.setitem(input, _along_axis_index(idx, ax), src)


def _nd_index(indices, shape, op):
    """The advanced index of MindSpore's N-D scatters: the last axis of `indices` holds
    coordinates into the first indices.shape[-1] axes of `shape`."""
    idx = _index_array(indices, op, "indices")
    if idx.ndim < 1 or idx.shape[-1] > len(shape) or idx.shape[-1] < 1:
        raise ValueError(f"For '{op}', 'indices' must end with an axis of 1 to {len(shape)} "
                         f"coordinates, but got shape {idx.shape}")
    for k in range(idx.shape[-1]):
        col = idx[..., k]
        if col.size and (col.min() < 0 or col.max() >= shape[k]):
            bad = col[(col < 0) | (col >= shape[k])].flat[0]
            raise IndexError(f"For '{op}', index {bad} is out of range [0, {shape[k]}) for "
                             f"axis {k} of shape {tuple(shape)}")
    return tuple(idx[..., k] for k in range(idx.shape[-1])), idx.shape[:-1]


def _check_updates(updates, lead, shape, depth, op):
    expected = tuple(lead) + tuple(shape[depth:])
    if updates.shape != expected:
        raise ValueError(f"For '{op}', 'updates' must have shape indices.shape[:-1] + "
                         f"shape[{depth}:] = {expected}, but got {updates.shape}")


def scatter_nd(indices, updates, shape):
    """Zeros of `shape` with `updates` added at the coordinates in `indices` (the last axis of
    `indices` indexes the first axes of `shape`; repeated coordinates accumulate)."""
    _tensor(updates, "scatter_nd", "updates")
    shape = tuple(A._check_shape(shape, "scatter_nd"))
    index, lead = _nd_index(indices, shape, "scatter_nd")
    depth = len(index)
    _check_updates(updates, lead, shape, depth, "scatter_nd")
    if not isinstance(indices, Tensor):
        return A.getitem_grad(updates, index, shape)
    # a Tensor index: flat positions over shape[:depth] from a recorded node (a graph-mode
    # replay checks and places the new indices), added by gather_grad in the same order
    pos = data_function(_nd_positions, indices, static=(shape, "scatter_nd"))
    block = (math.prod(shape[:depth]),) + shape[depth:]
    return A.reshape(A.gather_grad(updates, pos, 0, block), shape)


def _nd_positions(indices, shape, op):
    """Flat positions in shape[:depth] of the coordinates on the last axis of `indices`."""
    index, _ = _nd_index(indices, shape, op)
    pos = 0
    for col, n in zip(index, shape):
        pos = pos * n + col
    return np.asarray(pos, np.int64)


def tensor_scatter_add(input_x, indices, updates):
    """input_x plus `updates` added at the coordinates in `indices` (repeats accumulate)."""
    _tensor(input_x, "tensor_scatter_add", "input_x")
    _tensor(updates, "tensor_scatter_add", "updates")
    index, lead = _nd_index(indices, input_x.shape, "tensor_scatter_add")
    _check_updates(updates, lead, input_x.shape, len(index), "tensor_scatter_add")
    updates = M.cast(updates, input_x._data.dtype)
    return M.add(input_x, A.getitem_grad(updates, index, input_x.shape))


def tensor_scatter_update(input_x, indices, updates):
    """A copy of input_x with the entries at the coordinates in `indices` replaced by `updates`
    (where a coordinate repeats, the last update wins)."""
    _tensor(input_x, "tensor_scatter_update", "input_x")
    _tensor(updates, "tensor_scatter_update", "updates")
    index, lead = _nd_index(indices, input_x.shape, "tensor_scatter_update")
    _check_updates(updates, lead, input_x.shape, len(index), "tensor_scatter_update")
    return A.setitem(input_x, index, M.cast(updates, input_x._data.dtype))


def nonzero(input, *, as_tuple=False):
    """Indices of the nonzero elements: an int64 tensor of shape (n, ndim), or with `as_tuple`
    one 1-D tensor per axis."""
    _tensor(input, "nonzero")
    a = input._data
    if a.ndim == 0:  # as PyTorch: a 0-d input has one position, with no coordinates
        n = int(bool(a))
        return (const(np.zeros(n, np.int64)),) if as_tuple else const(np.zeros((n, 0), np.int64))
    idx = np.nonzero(a)
    if as_tuple:
        return tuple(wrap(i.astype(np.int64)) for i in idx)
    return wrap(np.stack(idx, axis=1).astype(np.int64))


# ---- padding --------------------------------------------------------------------------------------

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(input_x, padding, mode="constant", value=None):
    """input_x padded torch-style: `padding` = (left, right, top, bottom, ...) from the last axis
    backwards; negative amounts crop. Modes 'constant' (with `value`, default 0), 'reflect'
    (mirror without repeating the edge), 'replicate' (repeat the edge), 'circular' (wrap)."""
    _tensor(input_x, "pad", "input_x")
    check_one_of(mode, _PAD_MODES, "mode", "pad")
    padding = tuple(int(p) for p in padding)
    if len(padding) % 2 or len(padding) // 2 > input_x.ndim:
        raise ValueError(f"For 'pad', 'padding' must have an even length of at most "
                         f"{2 * input_x.ndim} for shape {input_x.shape}, but got {padding}")
    pairs = [(0, 0)] * input_x.ndim
    for k in range(len(padding) // 2):
        pairs[input_x.ndim - 1 - k] = (padding[2 * k], padding[2 * k + 1])
    if mode == "constant":
        if isinstance(value, Tensor):
            value = value.item()  # the method: a graph capture guards the value it reads
        return A.pad(input_x, pairs, 0 if value is None else value)
    out = input_x
    for axis, (before, after) in enumerate(pairs):
        if before == 0 and after == 0:
            continue
        n = out.shape[axis]
        if n == 0:
            raise ValueError(f"For 'pad' in {mode!r} mode, axis {axis} of shape "
                             f"{input_x.shape} is empty")
        idx = np.arange(-before, n + after)
        if mode == "reflect":
            if builtins.max(before, after) >= n:
                raise ValueError(f"For 'pad' in 'reflect' mode, padding ({before}, {after}) "
                                 f"must be smaller than the size {n} of axis {axis}")
            period = 2 * (n - 1)
            idx = np.abs(idx % period) if period else np.zeros_like(idx)
            idx = np.where(idx >= n, period - idx, idx)
        elif mode == "replicate":
            idx = np.clip(idx, 0, n - 1)
        else:
            if builtins.max(before, after) > n:
                raise ValueError(f"For 'pad' in 'circular' mode, padding ({before}, {after}) "
                                 f"must not exceed the size {n} of axis {axis}")
            idx = idx % n
        out = A.gather(out, const(idx), axis)
    return out


# ---- sorting --------------------------------------------------------------------------------------

def _sorted_indices(a, axis, descending):
    """Stable sort order along `axis`; descending keeps equal elements in their original order."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    rev = np.flip(np.argsort(np.flip(a, axis), axis=axis, kind="stable"), axis)
    return (n - 1) - rev


def topk(input, k, dim=None, largest=True, sorted=True):
    """(values, int32 indices) of the k largest (or smallest) entries along `dim` (the last axis
    by default), in sorted order; among equal values the lower index comes first. The values are
    differentiable."""
    _tensor(input, "topk")
    axis = normalize_axis(-1 if dim is None else dim, builtins.max(input.ndim, 1), "topk")
    a = input._data if input.ndim else input._data.reshape(1)
    k = check_int(k, "k", "topk")
    if not 0 <= k <= a.shape[axis]:
        raise ValueError(f"For 'topk', 'k' {k} is out of range [0, {a.shape[axis]}] for axis "
                         f"{axis} of shape {input.shape}")
    idx = np.take(_sorted_indices(a, axis, largest), np.arange(k), axis=axis)
    if input.ndim == 0:
        return reshape(input, (k,)), wrap(idx.astype(np.int32))
    return gather_elements(input, axis, idx), wrap(idx.astype(np.int32))


def sort(input_x, axis=-1, descending=False):
    """(values, int32 indices) sorted along `axis` (stable: equal values keep their order). The
    values are differentiable."""
    _tensor(input_x, "sort", "input_x")
    if input_x.ndim == 0:
        return identity(input_x), const(np.zeros((), np.int32))
    axis = normalize_axis(axis, input_x.ndim, "sort")
    idx = _sorted_indices(input_x._data, axis, descending)
    return gather_elements(input_x, axis, idx), wrap(idx.astype(np.int32))


def argsort(input, axis=-1, descending=False):
    """int32 indices that sort input along `axis` (stable)."""
    _tensor(input, "argsort")
    if input.ndim == 0:
        return const(np.zeros((), np.int32))
    axis = normalize_axis(axis, input.ndim, "argsort")
    return wrap(_sorted_indices(input._data, axis, descending).astype(np.int32))


def unique(input):
    """(values, inverse indices): the distinct elements of the flattened input in order of first
    appearance, and for every input element the position of its value (input's shape; int64 for
    int64 input, else int32, as MindSpore)."""
    _tensor(input, "unique")
    flat = input._data.reshape(-1)
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    values = A.gather(reshape(input, (-1,)), first[order], 0)
    idx_dtype = np.int64 if input._data.dtype == np.int64 else np.int32
    return values, wrap(rank[inverse.reshape(-1)].reshape(input.shape).astype(idx_dtype))


# ---- introspection --------------------------------------------------------------------------------

def shape(input_x):
    """The shape as a tuple."""
    return _tensor(input_x, "shape", "input_x").shape


def size(input_x):
    """The number of elements."""
    return _tensor(input_x, "size", "input_x").size


def numel(input):
    """The number of elements."""
    return _tensor(input, "numel").size


def rank(input_x):
    """The number of dimensions."""
    return _tensor(input_x, "rank", "input_x").ndim
