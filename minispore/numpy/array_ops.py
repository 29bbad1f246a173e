"""Array manipulation: shapes and axes, joining and splitting, tiling, flipping, indexing,
selection, sets."""
import itertools

import numpy as np

from .. import ops
from ..common import dtype as mstype
from ..common.tensor import Tensor
from .utils import (
    _SCALARS,
    _axes,
    _axis,
    _cast,
    _int,
    _is_bool,
    _operands,
    _promote,
    _shape_of,
    _to_tensor,
)

__all__ = [
    "append",
    "apply_along_axis",
    "apply_over_axes",
    "argwhere",
    "array_split",
    "array_str",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_arrays",
    "broadcast_to",
    "choose",
    "column_stack",
    "concatenate",
    "dsplit",
    "dstack",
    "expand_dims",
    "flip",
    "fliplr",
    "flipud",
    "hsplit",
    "hstack",
    "intersect1d",
    "moveaxis",
    "piecewise",
    "ravel",
    "repeat",
    "reshape",
    "roll",
    "rollaxis",
    "rot90",
    "select",
    "size",
    "split",
    "squeeze",
    "stack",
    "swapaxes",
    "take",
    "take_along_axis",
    "tile",
    "transpose",
    "unique",
    "unravel_index",
    "vsplit",
    "vstack",
    "where",
]


def reshape(x, new_shape):
    """`x` with a new shape (one entry may be -1)."""
    t = _to_tensor(x)
    shape = _shape_of(new_shape, "reshape")
    known = int(np.prod([s for s in shape if s != -1]))
    if shape.count(-1) > 1 or (-1 not in shape and known != t.size) or \
            (-1 in shape and (known == 0 or t.size % known)):
        raise ValueError(f"For 'reshape', cannot reshape array of size {t.size} into shape "
                         f"{shape}")
    return t.reshape(shape)


def ravel(x):
    """The flattened array."""
    return _to_tensor(x).reshape(-1)


def transpose(a, axes=None):
    """`a` with its axes permuted (reversed by default)."""
    t = _to_tensor(a)
    if axes is None:
        perm = tuple(range(t.ndim))[::-1]
    else:
        perm = tuple(_axis(p, t.ndim, "transpose") for p in axes)
        if sorted(perm) != list(range(t.ndim)):
            raise ValueError(f"For 'transpose', 'axes' {tuple(axes)} is not a permutation")
    return ops.transpose(t, perm)


def moveaxis(a, source, destination):
    """`a` with the axes `source` moved to `destination`, the others in order."""
    t = _to_tensor(a)
    src = _axes(source, t.ndim, "moveaxis") if isinstance(source, (list, tuple)) else \
        (_axis(source, t.ndim, "moveaxis"),)
    dst = _axes(destination, t.ndim, "moveaxis") if isinstance(destination, (list, tuple)) \
        else (_axis(destination, t.ndim, "moveaxis"),)
    if isinstance(source, (list, tuple)):
        src = tuple(_axis(s, t.ndim, "moveaxis") for s in source)
    if isinstance(destination, (list, tuple)):
        dst = tuple(_axis(d, t.ndim, "moveaxis") for d in destination)
    if len(src) != len(dst):
        raise ValueError("For 'moveaxis', 'source' and 'destination' must have the same "
                         "number of elements")
    order = [n for n in range(t.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return ops.transpose(t, tuple(order))


def rollaxis(x, axis, start=0):
    """`x` with `axis` rolled back until it lies before position `start`."""
    t = _to_tensor(x)
    axis = _axis(axis, t.ndim, "rollaxis")
    start = _int(start, "rollaxis", "start")
    if not -t.ndim <= start <= t.ndim:
        raise ValueError(f"For 'rollaxis', 'start' {start} is out of range")
    start %= t.ndim + 1
    if axis < start:
        start -= 1
    if axis == start:
        return t
    order = [n for n in range(t.ndim) if n != axis]
    order.insert(start, axis)
    return ops.transpose(t, tuple(order))


def swapaxes(x, axis1, axis2):
    """`x` with two axes interchanged."""
    t = _to_tensor(x)
    a1, a2 = _axis(axis1, t.ndim, "swapaxes"), _axis(axis2, t.ndim, "swapaxes")
    order = list(range(t.ndim))
    order[a1], order[a2] = order[a2], order[a1]
    return ops.transpose(t, tuple(order))


def expand_dims(a, axis):
    """`a` with length-1 axes inserted at `axis` (an int or a tuple of ints)."""
    t = _to_tensor(a)
    axes = axis if isinstance(axis, (list, tuple)) else (axis,)
    out_nd = t.ndim + len(axes)
    where_ = sorted(_axis(x, out_nd, "expand_dims") for x in axes)
    if len(set(where_)) != len(where_):
        raise ValueError("For 'expand_dims', repeated axis")
    shape = list(t.shape)
    for w in where_:
        shape.insert(w, 1)
    return t.reshape(tuple(shape))


def squeeze(a, axis=None):
    """`a` without its length-1 axes (only those in `axis` when given)."""
    t = _to_tensor(a)
    if axis is None:
        return t.reshape(tuple(s for s in t.shape if s != 1))
    axes = _axes(axis, t.ndim, "squeeze")
    for ax in axes:
        if t.shape[ax] != 1:
            raise ValueError("For 'squeeze', cannot select an axis to squeeze out which has "
                             "size not equal to one")
    return t.reshape(tuple(s for i, s in enumerate(t.shape) if i not in axes))


def broadcast_to(array, shape):
    """`array` broadcast to `shape`."""
    t = _to_tensor(array)
    shape = _shape_of(shape, "broadcast_to")
    try:
        np.broadcast_shapes(t.shape, shape)
    except ValueError:
        raise ValueError(f"For 'broadcast_to', cannot broadcast shape {tuple(t.shape)} to "
                         f"{shape}") from None
    return ops.broadcast_to(t, shape)


def broadcast_arrays(*args):
    """The arguments broadcast against each other."""
    ts = [_to_tensor(a) for a in args]
    shape = np.broadcast_shapes(*(t.shape for t in ts))
    return [ops.broadcast_to(t, shape) for t in ts]


def _at_least(arys, n, layout):
    out = []
    for a in arys:
        t = _to_tensor(a)
        if t.ndim < n:
            t = t.reshape(layout(tuple(t.shape)))
        out.append(t)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """The arguments with at least one dimension."""
    return _at_least(arys, 1, lambda s: (1,) if not s else s)


def atleast_2d(*arys):
    """The arguments with at least two dimensions (1-D becomes a row)."""
    return _at_least(arys, 2, lambda s: (1, 1) if not s else (1,) + s)


def atleast_3d(*arys):
    """The arguments with at least three dimensions (1-D (N) becomes (1, N, 1), 2-D (M, N)
    becomes (M, N, 1))."""
    return _at_least(arys, 3, lambda s: (1, 1, 1) if not s else (1,) + s + (1,) if len(s) == 1
                     else s + (1,))


def _same_dtype(ts):
    dt = ts[0].dtype
    for t in ts[1:]:
        dt = _promote(dt, t.dtype)
    return [_cast(t, dt) for t in ts]


def _sequence(arrays, name):
    if isinstance(arrays, Tensor):
        return [arrays[i] for i in range(arrays.shape[0])]
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise TypeError(f"For '{name}', the input must be a non-empty list or tuple of arrays")
    return _same_dtype([_to_tensor(a) for a in arrays])


def concatenate(arrays, axis=0):
    """The arrays joined along an existing axis (flattened first when axis is None)."""
    ts = _sequence(arrays, "concatenate")
    if axis is None:
        ts = [t.reshape(-1) for t in ts]
        axis = 0
    nd = ts[0].ndim
    if any(t.ndim != nd for t in ts):
        raise ValueError("For 'concatenate', all the input arrays must have the same number "
                         "of dimensions")
    return ops.concat(ts, _axis(axis, nd, "concatenate"))


def stack(arrays, axis=0):
    """The arrays joined along a new axis."""
    ts = _sequence(arrays, "stack")
    if any(t.shape != ts[0].shape for t in ts):
        raise ValueError("For 'stack', all input arrays must have the same shape")
    return ops.stack(ts, _axis(axis, ts[0].ndim + 1, "stack"))


def hstack(tup):
    """The arrays joined column-wise (along axis 1; axis 0 for 1-D arrays)."""
    ts = _sequence(tup, "hstack")
    ts = [t.reshape(1) if t.ndim == 0 else t for t in ts]
    return ops.concat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tup):
    """The arrays joined row-wise (1-D arrays become rows)."""
    ts = _sequence(tup, "vstack")
    ts = [t.reshape(1, -1) if t.ndim < 2 else t for t in ts]
    return ops.concat(ts, 0)


def dstack(tup):
    """The arrays joined along the third axis."""
    ts = _sequence(tup, "dstack")
    ts = atleast_3d(*ts)
    ts = [ts] if isinstance(ts, Tensor) else ts
    return ops.concat(ts, 2)


def column_stack(tup):
    """1-D arrays as columns of a 2-D array (2-D arrays are joined as they are)."""
    ts = _sequence(tup, "column_stack")
    ts = [t.reshape(-1, 1) if t.ndim < 2 else t for t in ts]
    return ops.concat(ts, 1)


def append(arr, values, axis=None):
    """`values` appended to `arr` (both flattened when axis is None)."""
    a, v = _to_tensor(arr), _to_tensor(values)
    if axis is None:
        a, v = a.reshape(-1), v.reshape(-1)
        axis = 0
    a, v = _same_dtype([a, v])
    if a.ndim != v.ndim:
        raise ValueError("For 'append', 'values' must have the same number of dimensions as "
                         "'arr'")
    return ops.concat([a, v], _axis(axis, a.ndim, "append"))


def _pieces(t, bounds, axis):
    return tuple(ops.narrow(t, axis, lo, hi - lo) if hi > lo else
                 Tensor(np.zeros(tuple(0 if i == axis else s for i, s in enumerate(t.shape)),
                                 mstype.to_np(t.dtype)))
                 for lo, hi in itertools.pairwise(bounds))


def _split(x, indices_or_sections, axis, name, even):
    t = _to_tensor(x)
    axis = _axis(axis, t.ndim, name)
    n = t.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(
            indices_or_sections, bool):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"For '{name}', number sections must be larger than 0")
        if even and n % k:
            raise ValueError(f"For '{name}', array split does not result in an equal "
                             f"division: {n} by {k}")
        size, extra = divmod(n, k)
        sizes = [size + 1] * extra + [size] * (k - extra)
        bounds = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    elif isinstance(indices_or_sections, (list, tuple, Tensor)):
        idx = (indices_or_sections.asnumpy().tolist() if isinstance(indices_or_sections, Tensor)
               else list(indices_or_sections))
        bounds = [0] + [min(max(int(i) + (n if i < 0 else 0), 0), n) for i in idx] + [n]
        bounds = [bounds[0]] + [max(b, a) for a, b in itertools.pairwise(bounds)]
    else:
        raise TypeError(f"For '{name}', 'indices_or_sections' must be an int, a list or a "
                        f"tuple, but got {type(indices_or_sections).__name__}")
    return _pieces(t, bounds, axis)


def split(x, indices_or_sections, axis=0):
    """`x` split along `axis` into equal sections or at the given indices."""
    return _split(x, indices_or_sections, axis, "split", True)


def array_split(x, indices_or_sections, axis=0):
    """As `split`, but a number of sections need not divide the axis."""
    return _split(x, indices_or_sections, axis, "array_split", False)


def hsplit(x, indices_or_sections):
    """`x` split column-wise (axis 1; axis 0 for 1-D)."""
    t = _to_tensor(x)
    return split(t, indices_or_sections, 0 if t.ndim == 1 else 1)


def vsplit(x, indices_or_sections):
    """`x` split row-wise (axis 0)."""
    t = _to_tensor(x)
    if t.ndim < 2:
        raise ValueError("For 'vsplit', the input must be at least 2-D")
    return split(t, indices_or_sections, 0)


def dsplit(x, indices_or_sections):
    """`x` split along the third axis."""
    t = _to_tensor(x)
    if t.ndim < 3:
        raise ValueError("For 'dsplit', the input must be at least 3-D")
    return split(t, indices_or_sections, 2)


def tile(a, reps):
    """`a` repeated `reps` times along each axis."""
    t = _to_tensor(a)
    reps = _shape_of(reps, "tile")
    if any(r < 0 for r in reps):
        raise ValueError("For 'tile', 'reps' cannot be negative")
    nd = max(t.ndim, len(reps))
    t = t.reshape((1,) * (nd - t.ndim) + tuple(t.shape))
    reps = (1,) * (nd - len(reps)) + reps
    if 0 in reps or t.size == 0:
        return Tensor(np.zeros(tuple(s * r for s, r in zip(t.shape, reps)),
                               mstype.to_np(t.dtype)))
    return ops.tile(t, reps)


def repeat(a, repeats, axis=None):
    """Each element of `a` repeated `repeats` times (an int or one count per element)."""
    t = _to_tensor(a)
    if axis is None:
        t, axis = t.reshape(-1), 0
    axis = _axis(axis, t.ndim, "repeat")
    counts = repeats.asnumpy() if isinstance(repeats, Tensor) else np.asarray(repeats)
    if counts.dtype.kind not in "iu" or (counts < 0).any():
        raise ValueError("For 'repeat', 'repeats' must be non-negative integers")
    idx = np.repeat(np.arange(t.shape[axis]), counts)
    return ops.gather(t, Tensor(idx.astype(np.int32)), axis)


def flip(m, axis=None):
    """`m` with the order of elements reversed along `axis` (all axes by default)."""
    t = _to_tensor(m)
    axes = _axes(axis, t.ndim, "flip")
    return ops.flip(t, axes) if axes else t


def fliplr(m):
    """`m` flipped left-right (axis 1)."""
    t = _to_tensor(m)
    if t.ndim < 2:
        raise ValueError("For 'fliplr', the input must be at least 2-D")
    return ops.flip(t, (1,))


def flipud(m):
    """`m` flipped up-down (axis 0)."""
    t = _to_tensor(m)
    if t.ndim < 1:
        raise ValueError("For 'flipud', the input must be at least 1-D")
    return ops.flip(t, (0,))


def roll(a, shift, axis=None):
    """`a` rolled by `shift` along `axis` (the flattened array when None)."""
    t = _to_tensor(a)
    if axis is None:
        return ops.roll(t.reshape(-1), _int(shift, "roll", "shift"), 0).reshape(t.shape)
    shifts = list(shift) if isinstance(shift, (list, tuple)) else [shift]
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(axes) != len(shifts):
        raise ValueError("For 'roll', 'shift' and 'axis' must have the same length")
    for s, ax in zip(shifts, axes):
        ax = _axis(ax, t.ndim, "roll")
        n = t.shape[ax]
        if n:
            t = ops.roll(t, _int(s, "roll", "shift") % n, ax)
    return t


def rot90(a, k=1, axes=(0, 1)):
    """`a` rotated by 90 degrees k times in the plane of `axes` (from the first axis toward
    the second)."""
    t = _to_tensor(a)
    if len(axes) != 2:
        raise ValueError("For 'rot90', len(axes) must be 2")
    a0, a1 = _axis(axes[0], t.ndim, "rot90"), _axis(axes[1], t.ndim, "rot90")
    if a0 == a1:
        raise ValueError("For 'rot90', Axes must be different")
    k = _int(k, "rot90", "k") % 4
    if k == 0:
        return t
    if k == 2:
        return ops.flip(t, (a0, a1))
    if k == 1:
        return swapaxes(ops.flip(t, (a1,)), a0, a1)
    return ops.flip(swapaxes(t, a0, a1), (a1,))


def where(condition, x=None, y=None):
    """Elements of x where `condition` holds, of y elsewhere; with only `condition`, the
    indices of its true elements (one Tensor per axis)."""
    cond = _to_tensor(condition)
    if x is None and y is None:
        return tuple(Tensor(i.astype(np.int64)) for i in np.nonzero(cond.asnumpy()))
    if x is None or y is None:
        raise ValueError("For 'where', either both or neither of 'x' and 'y' should be given")
    cond = cond if _is_bool(cond) else cond != 0
    tx, ty = _operands(x, y)
    shape = np.broadcast_shapes(cond.shape, tx.shape, ty.shape)
    return ops.where(ops.broadcast_to(cond, shape), ops.broadcast_to(tx, shape),
                     ops.broadcast_to(ty, shape))


def argwhere(a):
    """The indices of the non-zero elements, one row each, int64."""
    return Tensor(np.argwhere(_to_tensor(a).asnumpy()).astype(np.int64))


def _index_array(indices, name):
    idx = _to_tensor(indices)
    if idx.dtype not in (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8,
                         mstype.uint16, mstype.uint32, mstype.uint64):
        raise TypeError(f"For '{name}', the indices must be integers, but got {idx.dtype}")
    return idx.asnumpy().astype(np.int64)


def _fit(idx, n, mode, name):
    if mode == "wrap":
        return np.mod(idx, n) if n else idx
    if mode == "clip":
        return np.clip(np.where(idx < 0, idx + n, idx), 0, max(n - 1, 0))
    if mode == "raise":
        if ((idx < -n) | (idx >= n)).any():
            raise ValueError(f"For '{name}', index out of range")
        return np.where(idx < 0, idx + n, idx)
    raise ValueError(f"For '{name}', 'mode' must be 'raise', 'wrap' or 'clip', but got "
                     f"{mode!r}")


def take(a, indices, axis=None, mode="clip"):
    """Elements of `a` at `indices` along `axis` (of the flattened `a` when None);
    out-of-range indices are clipped (after negative ones count from the end) or wrapped."""
    t = _to_tensor(a)
    if axis is None:
        t, axis = t.reshape(-1), 0
    axis = _axis(axis, t.ndim, "take")
    idx = _fit(_index_array(indices, "take"), t.shape[axis], mode, "take")
    flat = ops.gather(t, Tensor(idx.reshape(-1).astype(np.int32)), axis)
    shape = tuple(t.shape[:axis]) + idx.shape + tuple(t.shape[axis + 1:])
    return flat.reshape(shape)


def take_along_axis(arr, indices, axis):
    """Values of `arr` at `indices` along `axis` (indices broadcast with arr's other axes)."""
    t = _to_tensor(arr)
    idx = _index_array(indices, "take_along_axis")
    if axis is None:
        t, axis = t.reshape(-1), 0
    if idx.ndim != t.ndim:
        raise ValueError("For 'take_along_axis', 'indices' and 'arr' must have the same "
                         "number of dimensions")
    axis = _axis(axis, t.ndim, "take_along_axis")
    idx = np.where(idx < 0, idx + t.shape[axis], idx)
    shape = list(np.broadcast_shapes(tuple(s if i != axis else 1 for i, s in enumerate(t.shape)),
                                     tuple(s if i != axis else 1 for i, s in enumerate(idx.shape))))
    t_shape = list(shape)
    t_shape[axis] = t.shape[axis]
    i_shape = list(shape)
    i_shape[axis] = idx.shape[axis]
    src = ops.broadcast_to(t, tuple(t_shape))
    index = Tensor(np.broadcast_to(idx, tuple(i_shape)).astype(np.int32))
    return ops.gather_elements(src, axis, index)


def choose(a, choices, mode="clip"):
    """Per position, the element of the choice array that `a` names there."""
    idx = _index_array(a, "choose")
    ts = _same_dtype([_to_tensor(c) for c in choices])
    n = len(ts)
    idx = _fit(idx, n, mode, "choose") if mode != "clip" else np.clip(idx, 0, n - 1)
    shape = np.broadcast_shapes(idx.shape, *(t.shape for t in ts))
    stacked = ops.stack([ops.broadcast_to(t, shape) for t in ts], 0)
    index = Tensor(np.broadcast_to(idx, shape)[None].astype(np.int32))
    return ops.gather_elements(stacked, 0, index)[0]


def select(condlist, choicelist, default=0):
    """Per position, the element of the first choice whose condition holds (`default` where
    none does)."""
    if len(condlist) != len(choicelist):
        raise ValueError("For 'select', list of cases must be same length as list of "
                         "conditions")
    if not condlist:
        raise ValueError("For 'select', select with an empty condition list is not possible")
    conds = [_to_tensor(c) for c in condlist]
    choices = _same_dtype([_to_tensor(c) for c in choicelist])
    dt = choices[0].dtype
    shape = np.broadcast_shapes(*(c.shape for c in conds), *(c.shape for c in choices))
    out = ops.broadcast_to(_to_tensor(default, dt), shape)
    for cond, choice in zip(conds[::-1], choices[::-1]):
        cond = cond if _is_bool(cond) else cond != 0
        out = ops.where(ops.broadcast_to(cond, shape), ops.broadcast_to(choice, shape), out)
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """Per position, the function (or constant) of the last condition that holds there,
    applied to x; an extra function covers where no condition holds. The result's dtype is
    the pieces' (MindSpore's rule), not necessarily x's."""
    t = _to_tensor(x)
    if isinstance(condlist, Tensor) or (isinstance(condlist, (list, tuple)) and condlist
                                        and isinstance(condlist[0], _SCALARS)):
        condlist = [condlist]
    conds = [_to_tensor(c) for c in condlist]
    conds = [c if _is_bool(c) else c != 0 for c in conds]
    n = len(conds)
    if len(funclist) not in (n, n + 1):
        raise ValueError(f"For 'piecewise', with {n} condition(s), either {n} or {n + 1} "
                         f"functions are expected")
    if len(funclist) == n + 1:
        rest = ops.logical_not(ops.any(ops.stack([ops.broadcast_to(c, t.shape)
                                                  for c in conds], 0), 0))
        conds = conds + [rest]
    pieces = [_to_tensor(f(t, *args, **kw) if callable(f) else f) for f in funclist]
    pieces = _same_dtype(pieces)
    out = ops.zeros(t.shape, pieces[0].dtype)
    for cond, piece in zip(conds, pieces):
        out = ops.where(ops.broadcast_to(cond, t.shape), ops.broadcast_to(piece, t.shape), out)
    return out


def unique(x, return_inverse=False):
    """The unique elements of the flattened x, in order of first occurrence (MindSpore's
    order); with `return_inverse`, each element's index into them."""
    t = _to_tensor(x)
    flat = t.asnumpy().reshape(-1)
    values, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    out = Tensor(values[order].astype(flat.dtype))
    if return_inverse:
        return out, Tensor(rank[inverse.reshape(-1)].astype(np.int32))
    return out


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted unique values in both arrays (and, with `return_indices`, their first
    indices in each)."""
    a = _to_tensor(ar1).asnumpy().reshape(-1)
    b = _to_tensor(ar2).asnumpy().reshape(-1)
    res = np.intersect1d(a, b, assume_unique, return_indices)
    if return_indices:
        vals, ia, ib = res
        return (Tensor(vals.astype(a.dtype)), Tensor(ia.astype(np.int32)),
                Tensor(ib.astype(np.int32)))
    return Tensor(res.astype(a.dtype))


def unravel_index(indices, shape, order="C"):
    """The coordinates of flat `indices` in an array of `shape`, one int32 Tensor per axis."""
    idx = _to_tensor(indices).asnumpy()
    if idx.dtype.kind not in "iu":
        raise TypeError("For 'unravel_index', 'indices' must be integers")
    shape = _shape_of(shape, "unravel_index")
    if order not in ("C", "F"):
        raise ValueError("For 'unravel_index', 'order' must be 'C' or 'F'")
    size = int(np.prod(shape))
    idx = np.where(idx < 0, idx + size, idx)
    if ((idx < 0) | (idx >= size)).any():
        raise ValueError(f"For 'unravel_index', index out of bounds for size {size}")
    return tuple(Tensor(np.asarray(c).astype(np.int32))
                 for c in np.unravel_index(idx, shape, order=order))


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d applied to the 1-D slices of `arr` along `axis`; its result's axes take the
    place of `axis`."""
    t = _to_tensor(arr)
    axis = _axis(axis, t.ndim, "apply_along_axis")
    moved = moveaxis(t, axis, -1)
    outer = moved.shape[:-1]
    flat = moved.reshape(-1, moved.shape[-1]) if moved.size or outer else moved
    results = [_to_tensor(func1d(flat[i], *args, **kwargs)) for i in range(flat.shape[0])]
    if not results:
        raise ValueError("For 'apply_along_axis', cannot apply to an empty array")
    res = ops.stack(_same_dtype(results), 0)
    res = res.reshape(tuple(outer) + tuple(res.shape[1:]))
    extra = res.ndim - len(outer)
    if extra == 0:
        return res
    src = list(range(len(outer), res.ndim))
    dst = list(range(axis, axis + extra))
    return moveaxis(res, src, dst)


def apply_over_axes(func, a, axes):
    """func(a, axis) applied over each axis in turn, keeping the number of dimensions."""
    t = _to_tensor(a)
    for ax in (axes if isinstance(axes, (list, tuple)) else [axes]):
        ax = _axis(ax, t.ndim, "apply_over_axes")
        res = _to_tensor(func(t, ax))
        if res.ndim == t.ndim - 1:
            res = ops.expand_dims(res, ax)
        elif res.ndim != t.ndim:
            raise ValueError("For 'apply_over_axes', function is not returning an array of "
                             "the correct shape")
        t = res
    return t


def size(a, axis=None):
    """The number of elements (along `axis` when given), a Python int."""
    t = _to_tensor(a)
    if axis is None:
        return t.size
    return t.shape[_axis(axis, t.ndim, "size")]


def array_str(a):
    """The NumPy-style text of the array's values."""
    return np.array_str(_to_tensor(a).asnumpy())
