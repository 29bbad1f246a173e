"""Shape and layout functions: ops.hstack, ops.atleast_2d, ops.rot90, ops.moveaxis,
ops.space_to_batch_nd, ops.strided_slice, ops.tensor_split, ...

Everything here is composed from the differentiable array primitives (reshape, transpose,
getitem, gather, pad, concat), so gradients of any order come with them."""
import builtins
import itertools
import math

import numpy as np

from ..._autodiff.tape import const, wrap
from ..._validator import check_bool, check_int, check_one_of, check_positive_int, check_type
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations._kernels import normalize_axis
from ..primitive import Primitive
from . import array_func as AF
from ._checks import _tensor

__all__ = [
    "tensor_slice",
    "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack",
    "column_stack", "tensor_split", "hsplit", "vsplit", "dsplit", "rot90", "t", "ravel",
    "moveaxis", "swapdims", "fliplr", "flipud", "reverse", "expand", "expand_as", "view_as",
    "repeat_elements", "cartesian_prod", "combinations", "channel_shuffle", "space_to_batch_nd",
    "batch_to_space_nd", "mirror_pad", "padding", "reverse_sequence", "strided_slice",
    "sequence_mask", "dyn_shape",
]


# ---- at-least-n-d and stacking -------------------------------------------------------------------

def _atleast(inputs, ndim, op):
    def lift(x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{op}', each element of 'inputs' must be a Tensor, but got "
                            f"{type(x).__name__}")
        if x.ndim >= ndim:
            return x
        if ndim == 3 and x.ndim == 2:
            return A.reshape(x, x.shape + (1,))
        if ndim == 3 and x.ndim == 1:
            return A.reshape(x, (1,) + x.shape + (1,))
        return A.reshape(x, (1,) * (ndim - x.ndim) + x.shape)
    if isinstance(inputs, (tuple, list)):
        return tuple(lift(x) for x in inputs)
    return lift(inputs)


def atleast_1d(inputs):
    """A Tensor (or each of a sequence of Tensors) with at least one axis: a 0-D one becomes
    shape (1,)."""
    return _atleast(inputs, 1, "atleast_1d")


def atleast_2d(inputs):
    """A Tensor (or each of a sequence) with at least two axes: new axes go in front."""
    return _atleast(inputs, 2, "atleast_2d")


def atleast_3d(inputs):
    """A Tensor (or each of a sequence) with at least three axes: (n,) becomes (1, n, 1) and
    (m, n) becomes (m, n, 1)."""
    return _atleast(inputs, 3, "atleast_3d")


def _tensor_list(tensors, op):
    if not isinstance(tensors, (tuple, list)) or not tensors:
        raise TypeError(f"For '{op}', 'tensors' must be a non-empty tuple or list of Tensors, "
                        f"but got {type(tensors).__name__}")
    for k, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{op}', 'tensors[{k}]' must be a Tensor, but got "
                            f"{type(x).__name__}")
    return list(tensors)


def hstack(tensors):
    """Tensors joined column-wise: along axis 0 for 1-D tensors, else along axis 1."""
    ts = _atleast(_tensor_list(tensors, "hstack"), 1, "hstack")
    return AF.concat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(inputs):
    """Tensors joined row-wise (1-D tensors become rows first)."""
    return AF.concat(_atleast(_tensor_list(inputs, "vstack"), 2, "vstack"), 0)


def row_stack(tensors):
    """Alias of `vstack`."""
    return AF.concat(_atleast(_tensor_list(tensors, "row_stack"), 2, "row_stack"), 0)


def dstack(tensors):
    """Tensors joined depth-wise, along a third axis (lower-rank tensors lifted as atleast_3d)."""
    return AF.concat(_atleast(_tensor_list(tensors, "dstack"), 3, "dstack"), 2)


def column_stack(tensors):
    """1-D (and 0-D) tensors as columns, joined with 2-D ones along axis 1."""
    ts = []
    for x in _tensor_list(tensors, "column_stack"):
        ts.append(A.reshape(x, (x.size, 1)) if x.ndim < 2 else x)
    return AF.concat(ts, 1)


# ---- splitting -----------------------------------------------------------------------------------

def _pieces(x, bounds, axis):
    lead = (builtins.slice(None),) * axis
    return tuple(A.getitem(x, lead + (builtins.slice(b, e),)) for b, e in bounds)


def tensor_split(input, indices_or_sections, axis=0):
    """Pieces along `axis`: an int n gives n pieces as equal as can be (the first ones one
    longer); a sequence of indices gives the pieces between them."""
    _tensor(input, "tensor_split")
    if input.ndim == 0:
        raise ValueError("For 'tensor_split', the input must have at least one axis")
    ax = normalize_axis(check_int(axis, "axis", "tensor_split"), input.ndim, "tensor_split")
    n = input.shape[ax]
    if isinstance(indices_or_sections, (int, np.integer)) and \
            not isinstance(indices_or_sections, bool):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"For 'tensor_split', 'indices_or_sections' must be positive, but "
                             f"got {k}")
        size, extra = divmod(n, k)
        sizes = [size + 1] * extra + [size] * (k - extra)
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        bounds = list(zip(starts[:-1].tolist(), starts[1:].tolist()))
    elif isinstance(indices_or_sections, (tuple, list)):
        idx = [check_int(i, "indices_or_sections", "tensor_split")
               for i in indices_or_sections]
        edges = [0] + idx + [n]
        bounds = list(itertools.pairwise(edges))
    else:
        raise TypeError(f"For 'tensor_split', 'indices_or_sections' must be an int, tuple or "
                        f"list, but got {type(indices_or_sections).__name__}")
    return _pieces(input, bounds, ax)


def _split_along(input, indices_or_sections, axis, min_ndim, op):
    _tensor(input, op)
    if input.ndim < min_ndim:
        raise ValueError(f"For '{op}', the input must have at least {min_ndim} axes, but got "
                         f"shape {input.shape}")
    return tensor_split(input, indices_or_sections, axis)


def hsplit(input, indices_or_sections):
    """`tensor_split` along axis 1 (the input needs two axes at least)."""
    return _split_along(input, indices_or_sections, 1, 2, "hsplit")


def vsplit(input, indices_or_sections):
    """`tensor_split` along axis 0."""
    return _split_along(input, indices_or_sections, 0, 1, "vsplit")


def dsplit(input, indices_or_sections):
    """`tensor_split` along axis 2 (the input needs three axes at least)."""
    return _split_along(input, indices_or_sections, 2, 3, "dsplit")


# ---- reordering axes and elements ----------------------------------------------------------------

def rot90(input, k, dims):
    """input rotated by k quarter turns in the plane of `dims`, from dims[0] towards dims[1]."""
    _tensor(input, "rot90")
    k = check_int(k, "k", "rot90")
    check_type(dims, (tuple, list), "dims", "rot90")
    if len(dims) != 2:
        raise ValueError(f"For 'rot90', 'dims' must name two axes, but got {dims!r}")
    d0, d1 = (normalize_axis(check_int(d, "dims", "rot90"), input.ndim, "rot90") for d in dims)
    if d0 == d1:
        raise RuntimeError(f"For 'rot90', the rotation dims must be different, but got "
                           f"dim0={d0}, dim1={d1}")
    k %= 4
    if k == 0:
        return AF.identity(input)
    if k == 2:
        return AF.flip(input, (d0, d1))
    if k == 1:
        return AF.swapaxes(AF.flip(input, (d1,)), d0, d1)
    return AF.flip(AF.swapaxes(input, d0, d1), (d1,))


def t(input):
    """A 2-D tensor transposed; a 0-D or 1-D one unchanged."""
    _tensor(input, "t")
    if input.ndim > 2:
        raise ValueError(f"For 't', the input must be 0-D, 1-D or 2-D, but got shape "
                         f"{input.shape}")
    return AF.transpose(input, (1, 0)) if input.ndim == 2 else input


def ravel(input):
    """input flattened to 1-D."""
    _tensor(input, "ravel")
    return A.reshape(input, (input.size,))


def moveaxis(x, source, destination):
    """Alias of `movedim`."""
    return AF.movedim(x, source, destination)


def swapdims(input, dim0, dim1):
    """Alias of `swapaxes`."""
    return AF.swapaxes(input, dim0, dim1)


def fliplr(input):
    """input reversed along axis 1 (it needs two axes at least)."""
    _tensor(input, "fliplr")
    if input.ndim < 2:
        raise ValueError(f"For 'fliplr', the input must have at least 2 axes, but got shape "
                         f"{input.shape}")
    return AF.flip(input, (1,))


def flipud(input):
    """input reversed along axis 0."""
    _tensor(input, "flipud")
    if input.ndim < 1:
        raise ValueError("For 'flipud', the input must have at least 1 axis, but got a 0-D "
                         "tensor")
    return AF.flip(input, (0,))


def reverse(x, axis):
    """x reversed along the axes in `axis`."""
    _tensor(x, "reverse", "x")
    return AF.flip(x, axis)


# ---- broadcasting and repeating ------------------------------------------------------------------

def expand(input_x, size):
    """input_x broadcast to the shape held by the integer Tensor `size` (-1 keeps a size)."""
    _tensor(input_x, "expand", "input_x")
    if not isinstance(size, Tensor) or size._data.dtype.kind not in "iu":
        raise TypeError(f"For 'expand', 'size' must be an integer Tensor, but got "
                        f"{type(size).__name__ if not isinstance(size, Tensor) else size.dtype}")
    target = [int(v) for v in size._data.reshape(-1)]
    lead = len(target) - input_x.ndim
    if lead < 0:
        raise ValueError(f"For 'expand', 'size' {target} has fewer entries than the input's "
                         f"shape {input_x.shape}")
    if builtins.any(v == -1 for v in target[:lead]):
        raise ValueError(f"For 'expand', -1 in 'size' {target} is not allowed in a leading, "
                         f"new axis")
    shape = tuple(input_x.shape[i - lead] if v == -1 else v for i, v in enumerate(target))
    return AF.broadcast_to(input_x, shape)


def expand_as(input, other):
    """input broadcast to the shape of `other`."""
    _tensor(input, "expand_as")
    _tensor(other, "expand_as", "other")
    return AF.broadcast_to(input, other.shape)


def view_as(input, other):
    """input reshaped to the shape of `other`."""
    _tensor(input, "view_as")
    _tensor(other, "view_as", "other")
    return AF.reshape(input, other.shape)


def repeat_elements(x, rep, axis=0):
    """Each slice of x along `axis` repeated `rep` times in place."""
    _tensor(x, "repeat_elements", "x")
    rep = check_int(rep, "rep", "repeat_elements")
    if rep <= 0:
        raise ValueError(f"For 'repeat_elements', the 'rep' must be positive, but got {rep}")
    ax = normalize_axis(check_int(axis, "axis", "repeat_elements"), x.ndim, "repeat_elements")
    return A.gather(x, np.repeat(np.arange(x.shape[ax]), rep), ax)


def cartesian_prod(*inputs):
    """Every tuple of one element from each 1-D input, as the rows of a 2-D tensor."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    ts = _tensor_list(inputs, "cartesian_prod")
    for k, x in enumerate(ts):
        if x.ndim != 1:
            raise ValueError(f"For 'cartesian_prod', each input must be 1-D, but input {k} has "
                             f"shape {x.shape}")
    grids = AF.meshgrid(*ts, indexing="ij")
    return AF.stack([ravel(g) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The length-r combinations of the elements of a 1-D tensor, one per row, in order (with
    repeated elements when `with_replacement`)."""
    _tensor(input, "combinations")
    if input.ndim != 1:
        raise ValueError(f"For 'combinations', the input must be 1-D, but got shape "
                         f"{input.shape}")
    r = check_int(r, "r", "combinations")
    with_replacement = check_bool(with_replacement, "with_replacement", "combinations")
    if r <= 0:
        raise ValueError(f"For 'combinations', 'r' must be positive, but got {r}")
    pick = itertools.combinations_with_replacement if with_replacement \
        else itertools.combinations
    idx = np.asarray(list(pick(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    if idx.shape[0] == 0:
        return A.reshape(A.gather(input, idx.reshape(-1), 0), (0,))
    return A.reshape(A.gather(input, idx.reshape(-1), 0), idx.shape)


def channel_shuffle(x, groups):
    """The channels (axis 1) of x, split into `groups` groups, interleaved: channel g * (C /
    groups) + i goes to position i * groups + g."""
    _tensor(x, "channel_shuffle", "x")
    groups = check_int(groups, "groups", "channel_shuffle")
    if x.ndim <= 3:
        raise TypeError(f"For 'channel_shuffle', the input must have more than 3 axes, but got "
                        f"shape {x.shape}")
    if groups <= 0 or x.shape[1] % groups:
        raise ValueError(f"For 'channel_shuffle', 'groups' ({groups}) must be positive and "
                         f"divide the {x.shape[1]} channels")
    n, c, rest = x.shape[0], x.shape[1], x.shape[2:]
    y = A.reshape(x, (n, groups, c // groups) + rest)
    perm = (0, 2, 1) + tuple(range(3, y.ndim))
    return A.reshape(AF.transpose(y, perm), x.shape)


# ---- space, batch and depth ----------------------------------------------------------------------

def _int_pairs(value, count, op, arg):
    if isinstance(value, Tensor):
        value = value.tolist()
    try:
        pairs = [tuple(int(check_int(v, arg, op)) for v in p) for p in value]
    except TypeError:
        raise TypeError(f"For '{op}', '{arg}' must be a sequence of (begin, end) int pairs, "
                        f"but got {value!r}") from None
    if len(pairs) != count or builtins.any(len(p) != 2 or min(p) < 0 for p in pairs):
        raise ValueError(f"For '{op}', '{arg}' must hold {count} non-negative (begin, end) "
                         f"pairs, but got {value!r}")
    return pairs


def _block(block, op, arg, default_dims=2):
    if isinstance(block, Tensor):
        block = block.tolist()
    if isinstance(block, (int, np.integer)) and not isinstance(block, bool):
        block = [int(block)] * default_dims
    check_type(block, (tuple, list), arg, op)
    block = [check_int(b, arg, op) for b in block]
    if not block or builtins.any(b < 1 for b in block):
        raise ValueError(f"For '{op}', '{arg}' must hold positive ints, but got {block}")
    return block


def space_to_batch_nd(input_x, block_size, paddings):
    """The last M spatial axes of input_x (N, C, *spatial) padded, cut into blocks of
    `block_size`, and the offsets within a block moved into the batch: the output batch is
    (offset, n) flattened, offset-major."""
    op = "space_to_batch_nd"
    _tensor(input_x, op, "input_x")
    block = _block(block_size, op, "block_size")
    m = len(block)
    if input_x.ndim < m + 1:
        raise ValueError(f"For '{op}', the input needs at least {m + 1} axes for a block of "
                         f"{m}, but got shape {input_x.shape}")
    pads = _int_pairs(paddings, m, op, "paddings")
    lead = input_x.ndim - m
    padded = A.pad(input_x, [(0, 0)] * lead + pads)
    spatial = padded.shape[lead:]
    for s, b in zip(spatial, block):
        if s % b:
            raise ValueError(f"For '{op}', the padded spatial shape {spatial} must be divisible "
                             f"by 'block_size' {block}")
    n, mid = padded.shape[0], padded.shape[1:lead]
    split = sum(((s // b, b) for s, b in zip(spatial, block)), ())
    y = A.reshape(padded, (n,) + mid + split)
    k = len(mid)
    offsets = tuple(1 + k + 2 * i + 1 for i in range(m))
    outer = tuple(1 + k + 2 * i for i in range(m))
    y = AF.transpose(y, offsets + (0,) + tuple(range(1, 1 + k)) + outer)
    return A.reshape(y, (n * math.prod(block),) + mid + tuple(s // b for s, b in
                                                              zip(spatial, block)))


def batch_to_space_nd(input_x, block_shape, crops):
    """The inverse of `space_to_batch_nd`: the batch (offset-major) spread back over the last M
    axes, then `crops` cut from each end of them."""
    op = "batch_to_space_nd"
    _tensor(input_x, op, "input_x")
    block = _block(block_shape, op, "block_shape")
    m = len(block)
    if input_x.ndim < m + 1:
        raise ValueError(f"For '{op}', the input needs at least {m + 1} axes for a block of "
                         f"{m}, but got shape {input_x.shape}")
    crop = _int_pairs(crops, m, op, "crops")
    prod = math.prod(block)
    if input_x.shape[0] % prod:
        raise ValueError(f"For '{op}', the batch {input_x.shape[0]} must be divisible by the "
                         f"product {prod} of 'block_shape' {block}")
    lead = input_x.ndim - m
    n, mid, spatial = input_x.shape[0] // prod, input_x.shape[1:lead], input_x.shape[lead:]
    k = len(mid)
    for s, b, (c0, c1) in zip(spatial, block, crop):
        if c0 + c1 > s * b:
            raise ValueError(f"For '{op}', 'crops' {crop} cut more than the spatial shape "
                             f"{tuple(s * b for s, b in zip(spatial, block))}")
    y = A.reshape(input_x, tuple(block) + (n,) + mid + spatial)
    perm = (m,) + tuple(range(m + 1, m + 1 + k))
    perm += sum(((m + 1 + k + i, i) for i in range(m)), ())
    y = A.reshape(AF.transpose(y, perm), (n,) + mid + tuple(s * b for s, b in zip(spatial, block)))
    index = (builtins.slice(None),) * lead + tuple(
        builtins.slice(c0, s * b - c1) for s, b, (c0, c1) in zip(spatial, block, crop))
    return A.getitem(y, index)


def _space_to_depth(x, block, op):
    _tensor(x, op, "x")
    if x.ndim != 4:
        raise ValueError(f"For '{op}', the input must be 4-D (N, C, H, W), but got shape "
                         f"{x.shape}")
    n, c, h, w = x.shape
    if h % block or w % block:
        raise ValueError(f"For '{op}', the height and width of shape {x.shape} must be "
                         f"divisible by 'block_size' {block}")
    y = A.reshape(x, (n, c, h // block, block, w // block, block))
    y = AF.transpose(y, (0, 3, 5, 1, 2, 4))
    return A.reshape(y, (n, c * block * block, h // block, w // block))


def _depth_to_space(x, block, op):
    _tensor(x, op, "x")
    if x.ndim != 4:
        raise ValueError(f"For '{op}', the input must be 4-D (N, C, H, W), but got shape "
                         f"{x.shape}")
    n, c, h, w = x.shape
    if c % (block * block):
        raise ValueError(f"For '{op}', the channels {c} must be divisible by 'block_size' "
                         f"squared ({block * block})")
    y = A.reshape(x, (n, block, block, c // (block * block), h, w))
    y = AF.transpose(y, (0, 3, 4, 1, 5, 2))
    return A.reshape(y, (n, c // (block * block), h * block, w * block))


# ---- padding -------------------------------------------------------------------------------------

def _mirror_indices(n, before, after, symmetric):
    idx = np.arange(-before, n + after)
    if symmetric:
        period = 2 * n
        idx = idx % period
        return np.where(idx >= n, period - 1 - idx, idx)
    period = 2 * (n - 1)
    if period == 0:
        return np.zeros_like(idx)
    idx = idx % period
    return np.where(idx >= n, period - idx, idx)


def _mirror_pad(x, pairs, mode, op):
    symmetric = mode == "SYMMETRIC"
    out = x
    for axis, (before, after) in enumerate(pairs):
        if before == 0 and after == 0:
            continue
        n = x.shape[axis]
        limit = n if symmetric else n - 1
        if builtins.max(before, after) > limit:
            raise ValueError(f"For '{op}', in {mode} mode the paddings ({before}, {after}) of "
                             f"axis {axis} must not exceed {limit} (axis size {n})")
        out = A.gather(out, _mirror_indices(n, before, after, symmetric), axis)
    return out


def mirror_pad(input_x, paddings, mode):
    """input_x padded by mirroring: 'REFLECT' leaves out the edge, 'SYMMETRIC' repeats it.
    `paddings` is an integer Tensor of shape (ndim, 2) of (before, after) amounts."""
    _tensor(input_x, "mirror_pad", "input_x")
    check_one_of(mode, ("REFLECT", "SYMMETRIC"), "mode", "mirror_pad")
    if not isinstance(paddings, Tensor) or paddings._data.dtype.kind not in "iu":
        raise TypeError(f"For 'mirror_pad', 'paddings' must be an int32 or int64 Tensor, but "
                        f"got {type(paddings).__name__}")
    pairs = _int_pairs(paddings, input_x.ndim, "mirror_pad", "paddings")
    return _mirror_pad(input_x, pairs, mode, "mirror_pad")


def padding(x, pad_dim_size=8):
    """x, whose last axis has size 1, widened to `pad_dim_size` with zeros after the value."""
    _tensor(x, "padding", "x")
    pad_dim_size = check_int(pad_dim_size, "pad_dim_size", "padding")
    if pad_dim_size <= 0:
        raise ValueError(f"For 'padding', 'pad_dim_size' must be positive, but got "
                         f"{pad_dim_size}")
    if x.ndim == 0 or x.shape[-1] != 1:
        raise ValueError(f"For 'padding', the last axis of 'x' must have size 1, but got shape "
                         f"{x.shape}")
    return A.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, pad_dim_size - 1)])


# ---- sequences -----------------------------------------------------------------------------------

def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """For each batch entry b (along `batch_dim`), its first seq_lengths[b] elements along
    `seq_dim` reversed, the rest kept."""
    op = "reverse_sequence"
    _tensor(x, op, "x")
    if not isinstance(seq_lengths, Tensor) or seq_lengths._data.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', 'seq_lengths' must be an int32 or int64 Tensor")
    sd = normalize_axis(check_int(seq_dim, "seq_dim", op), x.ndim, op)
    bd = normalize_axis(check_int(batch_dim, "batch_dim", op), x.ndim, op)
    if sd == bd:
        raise ValueError(f"For '{op}', 'batch_dim' must differ from 'seq_dim' ({seq_dim})")
    lengths = seq_lengths._data.reshape(-1).astype(np.int64)
    if lengths.size != x.shape[bd]:
        raise ValueError(f"For '{op}', 'seq_lengths' must have one entry per batch entry "
                         f"({x.shape[bd]}), but got {lengths.size}")
    n = x.shape[sd]
    if np.any(lengths < 0) or np.any(lengths > n):
        raise ValueError(f"For '{op}', 'seq_lengths' must lie in [0, {n}], but got "
                         f"{lengths.tolist()}")
    pos = np.arange(n)
    src = np.where(pos[None, :] < lengths[:, None], lengths[:, None] - 1 - pos[None, :],
                   pos[None, :])
    shape = [1] * x.ndim
    index = list(np.indices(x.shape, sparse=True))
    shape[bd], shape[sd] = x.shape[bd], n
    src = src if bd < sd else src.T
    index[sd] = src.reshape(shape)
    return A.getitem(x, tuple(index))


def sequence_mask(lengths, maxlen=None):
    """Bool mask of shape lengths.shape + (maxlen,): True at positions below each length
    (`maxlen` defaults to the largest length)."""
    _tensor(lengths, "sequence_mask", "lengths")
    if lengths._data.dtype not in (np.int32, np.int64):
        raise TypeError(f"For 'sequence_mask', 'lengths' must be int32 or int64, but got "
                        f"{lengths.dtype}")
    data = lengths._data
    if maxlen is None:
        maxlen = int(data.max()) if data.size else 0
    maxlen = check_int(maxlen, "maxlen", "sequence_mask")
    if maxlen <= 0:
        raise ValueError(f"For 'sequence_mask', 'maxlen' must be positive, but got {maxlen}")
    return wrap(np.arange(maxlen) < data[..., None])


def dyn_shape(input_x):
    """The shape of input_x as a 1-D int64 Tensor."""
    _tensor(input_x, "dyn_shape", "input_x")
    return wrap(np.asarray(input_x.shape, np.int64))


# ---- strided slicing -----------------------------------------------------------------------------

def _ints(v, op, arg):
    if isinstance(v, Tensor):
        v = v._data.reshape(-1).tolist()
    check_type(v, (tuple, list), arg, op)
    return [check_int(i, arg, op) for i in v]


def _strided_index(shape, begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                   new_axis_mask, shrink_axis_mask, op="StridedSlice"):
    """The NumPy basic index that MindSpore's StridedSlice of `shape` takes."""
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"For '{op}', 'begin', 'end' and 'strides' must have the same length, "
                         f"but got {len(begin)}, {len(end)} and {len(strides)}")
    if 0 in strides:
        raise ValueError(f"For '{op}', 'strides' must not contain 0, but got {strides}")
    if len(begin) > len(shape):
        raise ValueError(f"For '{op}', 'begin', 'end' and 'strides' may have at most "
                         f"{len(shape)} entries for shape {shape}, but got {len(begin)}")
    spec_dims = [i for i in range(len(begin)) if not (new_axis_mask >> i) & 1
                 and not (ellipsis_mask >> i) & 1]
    has_ellipsis = builtins.any((ellipsis_mask >> i) & 1 for i in range(len(begin)))
    if (ellipsis_mask & ((1 << len(begin)) - 1)).bit_count() > 1:
        raise ValueError(f"For '{op}', 'ellipsis_mask' may set one bit only, but got "
                         f"{ellipsis_mask}")
    index, dim = [], 0
    for i in range(len(begin)):
        if (ellipsis_mask >> i) & 1:
            covered = len(shape) - (len(spec_dims) - builtins.sum(1 for j in spec_dims if j < i))
            index.append(Ellipsis)
            dim = covered
            continue
        if (new_axis_mask >> i) & 1:
            index.append(None)
            continue
        n = shape[dim]
        b, e, s = begin[i], end[i], strides[i]
        if (shrink_axis_mask >> i) & 1:
            if (begin_mask >> i) & 1:
                b = 0
            if s < 0 or b < -n or b >= n:
                raise IndexError(f"For '{op}', where 'shrink_axis_mask' is set 'strides[{i}]' "
                                 f"({s}) must be positive and 'begin[{i}]' ({b}) lie in "
                                 f"[{-n}, {n})")
            index.append(b % n)
        else:
            index.append(builtins.slice(None if (begin_mask >> i) & 1 else b,
                                        None if (end_mask >> i) & 1 else e, s))
        dim += 1
    if not has_ellipsis:
        index.append(Ellipsis)
    return tuple(index)


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    """input_x[begin:end:strides] per axis, with TensorFlow-style masks: bit i of `begin_mask` /
    `end_mask` ignores begin[i] / end[i], of `ellipsis_mask` makes entry i an ellipsis, of
    `new_axis_mask` inserts an axis, of `shrink_axis_mask` takes the single index begin[i] (0
    where begin[i] is masked, as MindSpore). Out-of-range bounds clamp as in Python slicing."""
    op = "StridedSlice"
    _tensor(input_x, "strided_slice", "input_x")
    masks = [check_int(m, name, op) for m, name in
             ((begin_mask, "begin_mask"), (end_mask, "end_mask"),
              (ellipsis_mask, "ellipsis_mask"), (new_axis_mask, "new_axis_mask"),
              (shrink_axis_mask, "shrink_axis_mask"))]
    if builtins.any(m < 0 for m in masks):
        raise ValueError(f"For '{op}', the masks must be non-negative, but got {masks}")
    index = _strided_index(input_x.shape, _ints(begin, op, "begin"), _ints(end, op, "end"),
                           _ints(strides, op, "strides"), *masks)
    return A.getitem(input_x, index)


# ---- patches -------------------------------------------------------------------------------------

def _same_pads(size, k, stride):
    out = -(-size // stride)
    total = builtins.max((out - 1) * stride + k - size, 0)
    return out, total // 2, total - total // 2


def _extract_patches(x, ksize, strides, rates, padding_mode, op):
    """Patches of the spatial axes (x is (N, C, *spatial)) gathered into the channel axis:
    (N, prod(ksize) * C, *out), channel index (kernel offset) * C + c."""
    spatial = x.shape[2:]
    eff = [(k - 1) * r + 1 for k, r in zip(ksize, rates)]
    outs, pads = [], []
    for s, k, st in zip(spatial, eff, strides):
        if padding_mode == "SAME":
            o, p0, p1 = _same_pads(s, k, st)
        else:
            if s < k:
                raise ValueError(f"For '{op}', the kernel (effective size {k}) is larger than "
                                 f"the input size {s} in VALID mode")
            o, p0, p1 = (s - k) // st + 1, 0, 0
        outs.append(o)
        pads.append((p0, p1))
    xp = A.pad(x, [(0, 0), (0, 0)] + pads) if builtins.any(p != (0, 0) for p in pads) else x
    d = len(spatial)
    grids = []
    for i, (k, r, st, o) in enumerate(zip(ksize, rates, strides, outs)):
        pos = np.arange(k)[:, None] * r + np.arange(o)[None, :] * st
        grids.append(pos)
    # flat positions in xp's (C, *padded) block over (kernel offsets..., C, outputs...): they
    # depend on the shape only (a constant of a graph-mode trace)
    n_k, c = d, x.shape[1]
    total = 2 * d + 1
    padded = xp.shape[2:]
    pos = np.arange(c).reshape((1,) * d + (c,) + (1,) * d) * math.prod(padded)
    for i, grid in enumerate(grids):
        shape = [1] * total
        shape[i] = grid.shape[0]
        shape[n_k + 1 + i] = grid.shape[1]
        pos = pos + grid.reshape(shape) * math.prod(padded[i + 1:])
    y = A.gather(A.reshape(xp, (x.shape[0], -1)), const(pos), 1)
    return A.reshape(y, (x.shape[0], math.prod(ksize) * c) + tuple(outs))


def _window(value, op, arg, d):
    check_type(value, (tuple, list), arg, op)
    vals = [check_int(v, arg, op) for v in value]
    if len(vals) == d + 2:
        if vals[0] != 1 or vals[1] != 1:
            raise ValueError(f"For '{op}', '{arg}' must be (1, 1, ...) in its batch and channel "
                             f"entries, but got {tuple(vals)}")
        vals = vals[2:]
    if len(vals) != d or builtins.any(v < 1 for v in vals):
        raise ValueError(f"For '{op}', '{arg}' must hold {d} (or {d + 2}) positive ints, but "
                         f"got {tuple(value)}")
    return vals


# ---- the user-facing classes of MindSpore's names ------------------------------------------------

class _Composite(Primitive):
    """A MindSpore primitive class whose call runs the composite function of this module; one
    configured by nothing has MindSpore's `__init__(self)`."""

    def __init__(self):
        super().__init__()

    def _configure(self, **attrs):
        Primitive.__init__(self)
        for k, v in attrs.items():
            setattr(self, k, v)


class BatchToSpace(_Composite):
    """`BatchToSpace(block_size, crops)(x)`: `batch_to_space_nd` of a 4-D x with a square
    block."""

    def __init__(self, block_size, crops):
        check_int(block_size, "block_size", "BatchToSpace")
        if block_size < 2:
            raise ValueError(f"For 'BatchToSpace', 'block_size' must be at least 2, but got "
                             f"{block_size}")
        self._configure(block_size=block_size, crops=crops)
        _int_pairs(crops, 2, "BatchToSpace", "crops")

    def __call__(self, input_x):
        return batch_to_space_nd(input_x, [self.block_size] * 2, self.crops)


class BatchToSpaceND(_Composite):
    """`BatchToSpaceND(block_shape, crops)(input_x)`: `batch_to_space_nd`."""

    def __init__(self, block_shape, crops):
        self._configure(block_shape=block_shape, crops=crops)

    def __call__(self, input_x):
        return batch_to_space_nd(input_x, self.block_shape, self.crops)


class BatchToSpaceNDV2(_Composite):
    """`BatchToSpaceNDV2()(input_x, block_shape, crops)`: `batch_to_space_nd` with the block
    and crops given as integer Tensors."""

    def __call__(self, input_x, block_shape, crops):
        return batch_to_space_nd(input_x, block_shape, crops)


class SpaceToBatch(_Composite):
    """`SpaceToBatch(block_size, paddings)(input_x)`: `space_to_batch_nd` of a 4-D x with a
    square block."""

    def __init__(self, block_size, paddings):
        check_int(block_size, "block_size", "SpaceToBatch")
        if block_size < 2:
            raise ValueError(f"For 'SpaceToBatch', 'block_size' must be at least 2, but got "
                             f"{block_size}")
        self._configure(block_size=block_size, paddings=paddings)
        _int_pairs(paddings, 2, "SpaceToBatch", "paddings")

    def __call__(self, input_x):
        return space_to_batch_nd(input_x, [self.block_size] * 2, self.paddings)


class SpaceToBatchND(_Composite):
    """`SpaceToBatchND(block_shape, paddings)(input_x)`: `space_to_batch_nd`."""

    def __init__(self, block_shape, paddings):
        self._configure(block_shape=block_shape, paddings=paddings)

    def __call__(self, input_x):
        return space_to_batch_nd(input_x, self.block_shape, self.paddings)


class SpaceToDepth(_Composite):
    """`SpaceToDepth(block_size)(x)`: each block_size x block_size spatial block of an NCHW x
    moved into the channels (channel (bh * block + bw) * C + c)."""

    def __init__(self, block_size):
        check_int(block_size, "block_size", "SpaceToDepth")
        if block_size < 2:
            raise ValueError(f"For 'SpaceToDepth', 'block_size' must be at least 2, but got "
                             f"{block_size}")
        self._configure(block_size=block_size)

    def __call__(self, x):
        return _space_to_depth(x, self.block_size, "SpaceToDepth")


class DepthToSpace(_Composite):
    """`DepthToSpace(block_size)(x)`: the inverse of SpaceToDepth."""

    def __init__(self, block_size):
        check_int(block_size, "block_size", "DepthToSpace")
        if block_size < 2:
            raise ValueError(f"For 'DepthToSpace', 'block_size' must be at least 2, but got "
                             f"{block_size}")
        self._configure(block_size=block_size)

    def __call__(self, x):
        return _depth_to_space(x, self.block_size, "DepthToSpace")


class ChannelShuffle(_Composite):
    """`ChannelShuffle(group)(x)`: `channel_shuffle(x, group)`."""

    def __init__(self, group):
        check_int(group, "group", "ChannelShuffle")
        self._configure(group=group)

    def __call__(self, x):
        return channel_shuffle(x, self.group)


class Expand(_Composite):
    """`Expand()(x, shape)`: `expand` (shape an integer Tensor)."""

    def __call__(self, x, shape):
        return expand(x, shape)


class Flatten(_Composite):
    """`Flatten()(input_x)`: input_x reshaped to (batch, -1), the batch axis kept."""

    def __call__(self, input_x):
        _tensor(input_x, "Flatten", "input_x")
        if input_x.ndim == 0:
            raise ValueError("For 'Flatten', the input must have at least one axis")
        n = input_x.shape[0]
        return A.reshape(input_x, (n, input_x.size // n if n else math.prod(input_x.shape[1:])))


class IdentityN(_Composite):
    """`IdentityN()(x)`: a copy of each Tensor of the sequence x."""

    def __call__(self, x):
        check_type(x, (tuple, list), "x", "IdentityN")
        return tuple(AF.identity(_tensor(v, "IdentityN", "x")) for v in x)


class Meshgrid(_Composite):
    """`Meshgrid(indexing='xy')(inputs)`: `meshgrid(*inputs, indexing=indexing)`."""

    def __init__(self, indexing="xy"):
        check_one_of(indexing, ("xy", "ij"), "indexing", "Meshgrid")
        self._configure(indexing=indexing)

    def __call__(self, inputs):
        check_type(inputs, (tuple, list), "inputs", "Meshgrid")
        return AF.meshgrid(*inputs, indexing=self.indexing)


class MirrorPad(_Composite):
    """`MirrorPad(mode='REFLECT')(input_x, paddings)`: `mirror_pad`."""

    def __init__(self, mode="REFLECT"):
        check_one_of(mode, ("REFLECT", "SYMMETRIC"), "mode", "MirrorPad")
        self._configure(mode=mode)

    def __call__(self, input_x, paddings):
        return mirror_pad(input_x, paddings, self.mode)


class Pack(_Composite):
    """`Pack(axis=0)(x)`: the Tensors of x stacked along a new `axis` (the old name of Stack)."""

    def __init__(self, axis=0):
        self._configure(axis=check_int(axis, "axis", "Pack"))

    def __call__(self, x):
        return AF.stack(x, self.axis)


class Unpack(_Composite):
    """`Unpack(axis=0)(x)`: the slices of x along `axis` (the old name of Unstack)."""

    def __init__(self, axis=0):
        self._configure(axis=check_int(axis, "axis", "Unpack"))

    def __call__(self, x):
        return AF.unstack(x, self.axis)


_PADV3_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate",
                "circular": "circular"}


class PadV3(_Composite):
    """`PadV3(mode='constant', paddings_contiguous=True)(x, paddings, constant_value=None)`:
    x padded from its last axis backwards; contiguous `paddings` are (before, after) per axis,
    otherwise all the befores then all the afters. Modes 'constant', 'reflect', 'edge',
    'circular'; negative amounts crop in 'constant' mode."""

    def __init__(self, mode="constant", paddings_contiguous=True):
        check_one_of(mode, tuple(_PADV3_MODES), "mode", "PadV3")
        check_bool(paddings_contiguous, "paddings_contiguous", "PadV3")
        self._configure(mode=mode, paddings_contiguous=paddings_contiguous)

    def __call__(self, x, paddings, constant_value=None):
        _tensor(x, "PadV3", "x")
        pads = _ints(paddings, "PadV3", "paddings")
        if len(pads) % 2 or len(pads) // 2 > x.ndim:
            raise ValueError(f"For 'PadV3', 'paddings' must have an even length of at most "
                             f"{2 * x.ndim}, but got {pads}")
        if not self.paddings_contiguous:
            half = len(pads) // 2
            pads = [v for pair in zip(pads[:half], pads[half:]) for v in pair]
        if self.mode == "constant":
            if constant_value is None:
                raise ValueError("For 'PadV3', 'constant' mode needs a 'constant_value'")
            value = constant_value.item() if isinstance(constant_value, Tensor) \
                else constant_value
            return AF.pad(x, pads, "constant", value)
        if x.ndim < 3 or len(pads) != 2 * (x.ndim - 2):
            raise ValueError(f"For 'PadV3', in {self.mode!r} mode the input must have 3 to 5 "
                             f"axes and 'paddings' two entries per spatial axis, but got shape "
                             f"{x.shape} and paddings {pads}")
        if builtins.any(p < 0 for p in pads):
            raise ValueError(f"For 'PadV3', in {self.mode!r} mode the paddings must be "
                             f"non-negative, but got {pads}")
        return AF.pad(x, pads, _PADV3_MODES[self.mode])


class Padding(_Composite):
    """`Padding(pad_dim_size=8)(x)`: `padding(x, pad_dim_size)`."""

    def __init__(self, pad_dim_size=8):
        self._configure(pad_dim_size=check_positive_int(pad_dim_size, "pad_dim_size",
                                                          "Padding"))

    def __call__(self, x):
        return padding(x, self.pad_dim_size)


class ParallelConcat(_Composite):
    """`ParallelConcat()(values)`: Tensors of one shape joined along axis 0."""

    def __call__(self, values):
        ts = _tensor_list(values, "ParallelConcat")
        if builtins.any(v.shape != ts[0].shape or v.dtype != ts[0].dtype for v in ts):
            raise ValueError(f"For 'ParallelConcat', the tensors must share one shape and "
                             f"dtype, but got {[(v.shape, v.dtype) for v in ts]}")
        return AF.concat(ts, 0)


class ReverseSequence(_Composite):
    """`ReverseSequence(seq_dim, batch_dim=0)(x, seq_lengths)`: `reverse_sequence`."""

    def __init__(self, seq_dim, batch_dim=0):
        self._configure(seq_dim=check_int(seq_dim, "seq_dim", "ReverseSequence"),
                         batch_dim=check_int(batch_dim, "batch_dim", "ReverseSequence"))

    def __call__(self, x, seq_lengths):
        return reverse_sequence(x, seq_lengths, self.seq_dim, self.batch_dim)


class ReverseV2(_Composite):
    """`ReverseV2(axis)(input)`: input reversed along the axes in `axis`."""

    def __init__(self, axis):
        check_type(axis, (tuple, list), "axis", "ReverseV2")
        self._configure(axis=tuple(check_int(a, "axis", "ReverseV2") for a in axis))

    def __call__(self, input):
        return AF.flip(input, self.axis)


class Roll(_Composite):
    """`Roll(shifts, dims=None)(input)`: `roll(input, shifts, dims)`."""

    def __init__(self, shifts, dims=None):
        self._configure(shifts=shifts, dims=dims)

    def __call__(self, input):
        return AF.roll(input, self.shifts, self.dims)


class Slice(_Composite):
    """`Slice()(input, begin, size)`: the block at `begin` of `size` (-1: to the end)."""

    def __call__(self, input, begin, size):
        return AF.slice(input, _ints(begin, "Slice", "begin"), _ints(size, "Slice", "size"))


class StridedSlice(_Composite):
    """`StridedSlice(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
    shrink_axis_mask=0)(input_x, begin, end, strides)`: `strided_slice`."""

    def __init__(self, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0):
        masks = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
                     "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask}
        for name, v in masks.items():
            if check_int(v, name, "StridedSlice") < 0:
                raise ValueError(f"For 'StridedSlice', '{name}' must be non-negative, but got "
                                 f"{v}")
        self._configure(**masks)

    def __call__(self, input_x, begin, end, strides):
        return strided_slice(input_x, begin, end, strides, self.begin_mask, self.end_mask,
                             self.ellipsis_mask, self.new_axis_mask, self.shrink_axis_mask)


class TensorShape(_Composite):
    """`TensorShape()(input_x)`: the shape of input_x as a 1-D int64 Tensor."""

    def __call__(self, input_x):
        return dyn_shape(input_x)


class DType(_Composite):
    """`DType()(x)`: the dtype of the Tensor x."""

    def __call__(self, x):
        return _tensor(x, "DType", "x").dtype


class ExtractImagePatches(_Composite):
    """`ExtractImagePatches(ksizes, strides, rates, padding='VALID')(input_x)`: the kh x kw
    patches of an NCHW input (dilated by `rates`, `strides` apart) laid out in the channels:
    output (N, kh * kw * C, out_h, out_w), channel (i * kw + j) * C + c. The window arguments
    are (1, 1, h, w) or (h, w)."""

    def __init__(self, ksizes, strides, rates, padding="VALID"):
        op = "ExtractImagePatches"
        padding = check_type(padding, str, "padding", op).upper()
        check_one_of(padding, ("SAME", "VALID"), "padding", op)
        self._configure(ksizes=_window(ksizes, op, "ksizes", 2),
                         strides=_window(strides, op, "strides", 2),
                         rates=_window(rates, op, "rates", 2), padding=padding)

    def __call__(self, input_x):
        _tensor(input_x, "ExtractImagePatches", "input_x")
        if input_x.ndim != 4:
            raise ValueError(f"For 'ExtractImagePatches', the input must be 4-D, but got shape "
                             f"{input_x.shape}")
        return _extract_patches(input_x, self.ksizes, self.strides, self.rates, self.padding,
                                "ExtractImagePatches")


class ExtractVolumePatches(_Composite):
    """`ExtractVolumePatches(kernel_size, strides, padding)(input_x)`: the kd x kh x kw patches
    of an NCDHW input, `strides` apart, laid out in the channels: output (N, kd * kh * kw * C,
    out_d, out_h, out_w)."""

    def __init__(self, kernel_size, strides, padding):
        op = "ExtractVolumePatches"
        padding = check_type(padding, str, "padding", op).upper()
        check_one_of(padding, ("SAME", "VALID"), "padding", op)
        if isinstance(kernel_size, (int, np.integer)):
            kernel_size = (kernel_size,) * 3
        if isinstance(strides, (int, np.integer)):
            strides = (strides,) * 3
        self._configure(kernel_size=_window(kernel_size, op, "kernel_size", 3),
                         strides=_window(strides, op, "strides", 3), padding=padding)

    def __call__(self, input_x):
        _tensor(input_x, "ExtractVolumePatches", "input_x")
        if input_x.ndim != 5:
            raise ValueError(f"For 'ExtractVolumePatches', the input must be 5-D, but got "
                             f"shape {input_x.shape}")
        return _extract_patches(input_x, self.kernel_size, self.strides, [1, 1, 1],
                                self.padding, "ExtractVolumePatches")


PRIMITIVE_CLASSES = (
    "BatchToSpace", "BatchToSpaceND", "BatchToSpaceNDV2", "SpaceToBatch", "SpaceToBatchND",
    "SpaceToDepth", "DepthToSpace", "ChannelShuffle", "Expand", "Flatten", "IdentityN",
    "Meshgrid", "MirrorPad", "Pack", "Unpack", "PadV3", "Padding", "ParallelConcat",
    "ReverseSequence", "ReverseV2", "Roll", "Slice", "StridedSlice", "TensorShape", "DType",
    "ExtractImagePatches", "ExtractVolumePatches",
)


def tensor_slice(input, begin, size):
    """The block of `input` starting at `begin` with `size` elements per axis (-1: to the end);
    MindSpore's functional name of `Slice`."""
    return Slice()(input, begin, size)
