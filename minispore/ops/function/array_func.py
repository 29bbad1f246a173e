"""Functional array ops: shape changes, joining, splitting, indexing, padding, creation."""
import builtins
import math

import numpy as np

from ..._autodiff.tape import apply, wrap
from ...common import dtype as mstype
from ...common.tensor import Tensor, _to_array
from ..operations import array_ops as A
from ..operations import math_ops as M
from ..operations._kernels import normalize_axis

__all__ = [
    "reshape", "transpose", "permute", "concat", "cat", "stack", "unstack", "squeeze",
    "unsqueeze", "expand_dims", "flatten", "gather", "split", "chunk", "unbind", "tile",
    "broadcast_to", "where", "select", "pad", "flip", "roll", "gather_elements", "gather_d",
    "index_select", "masked_fill", "masked_select", "narrow", "slice", "movedim", "swapaxes",
    "tril", "triu", "diag", "diagonal", "nonzero", "meshgrid", "repeat_interleave",
    "ones", "zeros", "ones_like", "zeros_like", "full", "full_like", "fill", "arange", "eye",
    "linspace", "shape", "size", "rank", "numel", "scalar_to_tensor", "tuple_to_array",
    "topk", "sort", "argsort", "identity",
]


def _tensor(x, op, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def reshape(input, shape):
    """input with a new shape (one -1 inferred)."""
    _tensor(input, "reshape")
    return apply(A._RESHAPE, (input, A._check_shape(shape, "Reshape")))


def transpose(input, dims):
    """input with its axes permuted by `dims`."""
    _tensor(input, "transpose")
    return apply(A._TRANSPOSE, (input, tuple(dims)))


def permute(input, axis):
    return transpose(input, axis)


def swapaxes(input, axis0, axis1):
    _tensor(input, "swapaxes")
    perm = list(range(input.ndim))
    a, b = (normalize_axis(v, input.ndim, "swapaxes") for v in (axis0, axis1))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(input, perm)


def movedim(x, source, destination):
    _tensor(x, "movedim", "x")
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    perm = np.moveaxis(np.arange(x.ndim), src, dst).tolist()
    return transpose(x, perm)


def concat(tensors, axis=0):
    """Tensors joined along `axis`."""
    return A.Concat(axis)(tensors)


cat = concat


def stack(tensors, axis=0):
    """Tensors of one shape stacked along a new `axis`."""
    return A.Stack(axis)(tensors)


def unstack(input_x, axis=0):
    return apply(A.Unstack(axis), (_tensor(input_x, "unstack", "input_x"),))


def unbind(input, dim=0):
    return unstack(input, dim)


def squeeze(input, axis=None):
    """input without its size-1 axes (only those in `axis` when given)."""
    _tensor(input, "squeeze")
    return apply(A.Squeeze(() if axis is None else axis), (input,))


def expand_dims(input_x, axis):
    """input_x with a new size-1 axis at `axis`."""
    _tensor(input_x, "expand_dims", "input_x")
    return apply(A._EXPAND_DIMS, (input_x, axis))


def unsqueeze(input, dim):
    return expand_dims(input, dim)


def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """input with axes start_dim..end_dim merged (the batch axis kept by default)."""
    _tensor(input, "flatten")
    if order not in ("C", "F"):
        raise ValueError(f"For 'flatten', 'order' must be 'C' or 'F', but got {order!r}")
    nd = input.ndim
    if nd == 0:
        return reshape(input, (1,))
    s = normalize_axis(start_dim, nd, "flatten")
    e = normalize_axis(end_dim, nd, "flatten")
    if s > e:
        raise ValueError(f"For 'flatten', 'start_dim' {start_dim} must not come after "
                         f"'end_dim' {end_dim}")
    if order == "F":
        input = transpose(input, tuple(range(nd))[::-1])
    shape = input.shape
    return reshape(input, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


def gather(input_params, input_indices, axis, batch_dims=0):
    """Slices of input_params along `axis` at `input_indices`; out-of-range indices are an
    IndexError."""
    _tensor(input_params, "gather", "input_params")
    if batch_dims != 0:
        raise ValueError("For 'gather', only batch_dims=0 is supported")
    idx = input_indices._data if isinstance(input_indices, Tensor) else np.asarray(input_indices)
    return apply(A._GATHER, (input_params, idx, axis))


def index_select(input, axis, index):
    return gather(input, index, axis)


def gather_elements(input, dim, index):
    """out[i][j] = input[index[i][j]][j] (dim 0), etc.: NumPy's take_along_axis."""
    _tensor(input, "gather_elements")
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    dim = normalize_axis(dim, input.ndim, "gather_elements")
    if idx.ndim != input.ndim:
        raise ValueError(f"For 'gather_elements', 'index' must have the input's rank "
                         f"{input.ndim}, but got shape {idx.shape}")
    A._check_indices(idx, input.shape[dim], "gather_elements", "index")
    grids = np.ogrid[tuple(builtins.slice(0, n) for n in idx.shape)]
    grids[dim] = idx
    return A.getitem(input, tuple(grids))


def gather_d(x, dim, index):
    return gather_elements(x, dim, index)


def split(tensor, split_size_or_sections, axis=0):
    """A tuple of pieces along `axis`: equal pieces of the given size (the last may be
    smaller), or pieces of the listed sizes."""
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
    return apply(A.Split(ax, sizes or [0]), (tensor,))


def chunk(input, chunks, axis=0):
    """`chunks` pieces along `axis` (ceil(n / chunks) each, the last smaller)."""
    _tensor(input, "chunk")
    if chunks <= 0:
        raise ValueError(f"For 'chunk', 'chunks' must be positive, got {chunks}")
    n = input.shape[normalize_axis(axis, input.ndim, "chunk")]
    return split(input, builtins.max(1, -(-n // chunks)), axis)


def tile(input, dims):
    """input repeated `dims` times per axis."""
    _tensor(input, "tile")
    return apply(A.Tile(), (input, tuple(dims)))


def repeat_interleave(input, repeats, axis=None):
    """Each element repeated `repeats` times along `axis` (flattened first for None)."""
    _tensor(input, "repeat_interleave")
    if axis is None:
        input, axis = reshape(input, (-1,)), 0
    ax = normalize_axis(axis, input.ndim, "repeat_interleave")
    r = repeats._data if isinstance(repeats, Tensor) else repeats
    idx = np.repeat(np.arange(input.shape[ax]), r)
    return gather(input, idx, ax)


def broadcast_to(input, shape):
    """input broadcast to `shape` (-1 keeps a dimension)."""
    _tensor(input, "broadcast_to")
    return apply(A._BROADCAST_TO, (input, tuple(shape)))


def where(condition, input, other):
    """input where condition is True, else other (Tensors or numbers)."""
    cond = condition if isinstance(condition, Tensor) else Tensor(np.asarray(condition, bool))
    return M.select(cond, input, other)


select = where


def masked_fill(input_x, mask, value):
    """input_x with `value` where `mask` is True."""
    _tensor(input_x, "masked_fill", "input_x")
    v = value if not isinstance(value, Tensor) else M.cast(value, input_x._data.dtype)
    return M.select(mask, v, input_x)


def masked_select(input, mask):
    """1-D tensor of the elements where `mask` (broadcast) is True."""
    _tensor(input, "masked_select")
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.shape != input.shape:
        input = broadcast_to(input, np.broadcast_shapes(m.shape, input.shape))
        m = np.broadcast_to(m, input.shape)
    return A.getitem(input, (m,))


def narrow(input, axis, start, length):
    """The `length` elements from `start` along `axis`."""
    _tensor(input, "narrow")
    ax = normalize_axis(axis, input.ndim, "narrow")
    if start < 0 or start + length > input.shape[ax]:
        raise ValueError(f"For 'narrow', [{start}, {start + length}) is out of range for axis "
                         f"{ax} of size {input.shape[ax]}")
    idx = (builtins.slice(None),) * ax + (builtins.slice(start, start + length),)
    return A.getitem(input, idx)


def slice(input_x, begin, size):
    """The block starting at `begin` with `size` (-1: to the end) per axis."""
    _tensor(input_x, "slice", "input_x")
    if len(begin) != input_x.ndim or len(size) != input_x.ndim:
        raise ValueError(f"For 'slice', 'begin' and 'size' need {input_x.ndim} entries")
    idx = tuple(builtins.slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    for b, s, n in zip(begin, size, input_x.shape):
        if b < 0 or (s != -1 and b + s > n):
            raise ValueError(f"For 'slice', begin {begin} and size {size} exceed shape "
                             f"{input_x.shape}")
    return A.getitem(input_x, idx)


def flip(input, dims):
    """input reversed along `dims`."""
    _tensor(input, "flip")
    dims = [dims] if isinstance(dims, int) else dims
    idx = [builtins.slice(None)] * input.ndim
    for d in dims:
        idx[normalize_axis(d, input.ndim, "flip")] = builtins.slice(None, None, -1)
    return A.getitem(input, tuple(idx))


def roll(input, shifts, dims=None):
    """input with elements shifted by `shifts` along `dims` (flattened for None)."""
    _tensor(input, "roll")
    if dims is None:
        return reshape(roll(reshape(input, (-1,)), shifts, 0), input.shape)
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    out = input
    for s, d in zip(shifts, dims):
        d = normalize_axis(d, input.ndim, "roll")
        n = input.shape[d]
        idx = (np.arange(n) - s) % n if n else np.arange(0)
        out = gather(out, idx, d)
    return out


def tril(input, diagonal=0):
    """Lower triangle of the last two axes (the rest zero)."""
    _tensor(input, "tril")
    mask = np.tril(np.ones(input.shape[-2:], bool), diagonal)
    return M.select(wrap(mask), input, 0)


def triu(input, diagonal=0):
    """Upper triangle of the last two axes (the rest zero)."""
    _tensor(input, "triu")
    mask = np.triu(np.ones(input.shape[-2:], bool), diagonal)
    return M.select(wrap(mask), input, 0)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the (dim1, dim2) planes, as the last axis."""
    _tensor(input, "diagonal")
    d1, d2 = (normalize_axis(d, input.ndim, "diagonal") for d in (dim1, dim2))
    n1, n2 = input.shape[d1], input.shape[d2]
    i = np.arange(builtins.max(0, builtins.min(n1, n2 - offset) if offset >= 0
                               else builtins.min(n1 + offset, n2)))
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    moved = movedim(input, (d1, d2), (-2, -1))
    return A.getitem(moved, (Ellipsis, rows, cols))


def diag(input):
    """1-D input: a square matrix with it on the diagonal. 2-D: its diagonal."""
    _tensor(input, "diag")
    if input.ndim == 1:
        n = input.shape[0]
        return A.getitem_grad(input, (np.arange(n), np.arange(n)), (n, n))
    if input.ndim == 2:
        return diagonal(input)
    raise ValueError(f"For 'diag', the input must be 1-D or 2-D, but got shape {input.shape}")


def nonzero(input, *, as_tuple=False):
    """Indices of the nonzero elements: shape (n, ndim) int64, or a tuple of 1-D tensors."""
    _tensor(input, "nonzero")
    idx = np.nonzero(input._data)
    if as_tuple:
        return tuple(wrap(i.astype(np.int64)) for i in idx)
    return wrap(np.stack(idx, axis=1).astype(np.int64) if idx else np.zeros((0, 0), np.int64))


def meshgrid(*inputs, indexing="xy"):
    """Coordinate grids from 1-D tensors ('xy' or 'ij' indexing)."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For 'meshgrid', 'indexing' must be 'xy' or 'ij', got {indexing!r}")
    n = len(inputs)
    sizes = [t.shape[0] for t in inputs]
    out_shape = list(sizes)
    if indexing == "xy" and n >= 2:
        out_shape[0], out_shape[1] = out_shape[1], out_shape[0]
    outs = []
    for k, t in enumerate(inputs):
        shape = [1] * n
        pos = k if indexing == "ij" or n < 2 else {0: 1, 1: 0}.get(k, k)
        shape[pos] = sizes[k]
        outs.append(broadcast_to(reshape(t, tuple(shape)), tuple(out_shape)))
    return tuple(outs)


_PAD_MODES = {"constant", "reflect", "replicate", "circular"}


def pad(input_x, padding, mode="constant", value=None):
    """input_x padded torch-style: `padding` = (left, right, top, bottom, ...) from the last axis
    backwards; negative amounts crop. Modes 'constant' (with `value`), 'reflect', 'replicate',
    'circular'."""
    _tensor(input_x, "pad", "input_x")
    if mode not in _PAD_MODES:
        raise ValueError(f"For 'pad', 'mode' must be one of {sorted(_PAD_MODES)}, got {mode!r}")
    padding = tuple(int(p) for p in padding)
    if len(padding) % 2 or len(padding) // 2 > input_x.ndim:
        raise ValueError(f"For 'pad', 'padding' must have an even length of at most "
                         f"{2 * input_x.ndim}, but got {len(padding)}")
    pairs = [(0, 0)] * input_x.ndim
    for k in range(len(padding) // 2):
        pairs[input_x.ndim - 1 - k] = (padding[2 * k], padding[2 * k + 1])
    if mode == "constant":
        return A.pad(input_x, pairs, 0 if value is None else value)
    out = input_x
    for axis, (before, after) in enumerate(pairs):
        if before == 0 and after == 0:
            continue
        n = out.shape[axis]
        idx = np.arange(-before, n + after)
        if mode == "reflect":
            if builtins.max(before, after) >= n:
                raise ValueError(f"For 'pad' in 'reflect' mode, padding ({before}, {after}) "
                                 f"must be smaller than the axis size {n}")
            period = 2 * (n - 1)
            idx = np.abs(idx % period if period else idx * 0)
            idx = np.where(idx >= n, period - idx, idx)
        elif mode == "replicate":
            idx = np.clip(idx, 0, n - 1)
        else:
            idx = idx % n
        out = gather(out, idx, axis)
    return out


def _sorted_indices(x, axis, descending):
    a = x._data
    key = -a if descending and a.dtype.kind != "b" else a
    idx = np.argsort(key, axis=axis, kind="stable")
    return idx


def topk(input, k, dim=None, largest=True, sorted=True):
    """(values, int32 indices) of the k largest (or smallest) entries along `dim` (last by
    default). Values are differentiable."""
    _tensor(input, "topk")
    axis = normalize_axis(-1 if dim is None else dim, input.ndim, "topk")
    if not 0 <= k <= input.shape[axis]:
        raise ValueError(f"For 'topk', 'k' {k} is out of range for an axis of size "
                         f"{input.shape[axis]}")
    idx = np.take(_sorted_indices(input, axis, largest), np.arange(k), axis=axis)
    return gather_elements(input, axis, idx), wrap(idx.astype(np.int32))


def sort(input_x, axis=-1, descending=False):
    """(values, int32 indices) sorted along `axis` (stable)."""
    _tensor(input_x, "sort", "input_x")
    axis = normalize_axis(axis, input_x.ndim, "sort")
    idx = _sorted_indices(input_x, axis, descending)
    return gather_elements(input_x, axis, idx), wrap(idx.astype(np.int32))


def argsort(input, axis=-1, descending=False):
    _tensor(input, "argsort")
    axis = normalize_axis(axis, input.ndim, "argsort")
    return wrap(_sorted_indices(input, axis, descending).astype(np.int64))


def identity(input):
    """A copy of input (differentiable)."""
    _tensor(input, "identity")
    return apply(A._IDENTITY, (input,))


# ---- creation -------------------------------------------------------------------------------------

def _shape_arg(shape, op):
    if isinstance(shape, Tensor):
        shape = shape._data.tolist()
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = A._check_shape(tuple(shape), op)
    if any(d < 0 for d in shape):
        raise ValueError(f"For '{op}', the shape must not have negative sizes, but got {shape}")
    return shape


def _dtype_arg(dtype, default=np.float32):
    return np.dtype(default) if dtype is None else mstype.to_np(dtype)


def ones(shape, dtype=None):
    """A tensor of ones (float32 by default)."""
    return wrap(np.ones(_shape_arg(shape, "ones"), _dtype_arg(dtype)))


def zeros(size, dtype=None):
    """A tensor of zeros (float32 by default)."""
    return wrap(np.zeros(_shape_arg(size, "zeros"), _dtype_arg(dtype)))


def ones_like(input, *, dtype=None):
    _tensor(input, "ones_like")
    return wrap(np.ones(input._data.shape, _dtype_arg(dtype, input._data.dtype)))


def zeros_like(input, *, dtype=None):
    _tensor(input, "zeros_like")
    return wrap(np.zeros(input._data.shape, _dtype_arg(dtype, input._data.dtype)))


def _fill_dtype(fill_value):
    """Default dtype of a fill: MindSpore 2.10 truncates float fills to int64 (a bug); here a
    float fill gives float32, an int int64, a bool bool."""
    if isinstance(fill_value, Tensor):
        return fill_value._data.dtype
    if isinstance(fill_value, bool):
        return np.dtype(np.bool_)
    if isinstance(fill_value, (int, np.integer)):
        return np.dtype(np.int64)
    return np.dtype(np.float32)


def full(size, fill_value, *, dtype=None):
    """A tensor of `size` filled with `fill_value`."""
    dt = _fill_dtype(fill_value) if dtype is None else mstype.to_np(dtype)
    v = fill_value._data if isinstance(fill_value, Tensor) else fill_value
    return wrap(np.full(_shape_arg(size, "full"), v, dt))


def full_like(input, fill_value, *, dtype=None):
    _tensor(input, "full_like")
    dt = input._data.dtype if dtype is None else mstype.to_np(dtype)
    v = fill_value._data if isinstance(fill_value, Tensor) else fill_value
    return wrap(np.full(input._data.shape, v, dt))


def fill(type, shape, value):
    """MindSpore's older spelling: fill(dtype, shape, value)."""
    return full(shape, value, dtype=type)


def arange(start=0, end=None, step=1, *, dtype=None):
    """Values in [start, end) by `step`: int64 for integer arguments, float32 otherwise."""
    if end is None:
        start, end = 0, start
    vals = [v._data.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if vals[2] == 0:
        raise ValueError("For 'arange', 'step' must not be 0")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise ValueError(f"For 'arange', 'end' {vals[1]} cannot be reached from 'start' "
                         f"{vals[0]} with step {vals[2]}")
    ints = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals)
    dt = _dtype_arg(dtype, np.int64 if ints else np.float32)
    return wrap(np.arange(*vals).astype(dt))


def eye(n, m=None, dtype=None):
    """An n x m identity matrix (float32 by default)."""
    return wrap(np.eye(n, m, dtype=_dtype_arg(dtype)))


def linspace(start, end, steps):
    """`steps` evenly spaced float32 values from start to end inclusive."""
    vals = [v._data.item() if isinstance(v, Tensor) else v for v in (start, end)]
    if not isinstance(steps, (int, np.integer)) or steps < 0:
        raise ValueError(f"For 'linspace', 'steps' must be a non-negative int, got {steps!r}")
    return wrap(np.linspace(vals[0], vals[1], int(steps)).astype(np.float32))


def shape(input_x):
    """The shape as a tuple."""
    return _tensor(input_x, "shape", "input_x").shape


def size(input_x):
    return _tensor(input_x, "size", "input_x").size


numel = size


def rank(input_x):
    return _tensor(input_x, "rank", "input_x").ndim


def scalar_to_tensor(input_x, dtype=mstype.float32):
    return wrap(np.asarray(input_x, mstype.to_np(dtype)))


def tuple_to_array(input_x):
    return wrap(_to_array(tuple(input_x), None))
