"""Array primitives: shape changes, broadcasting and its adjoint, joining and splitting, indexing.

Each view-like forward (reshape, transpose, broadcast_to) returns a NumPy view; nothing here writes
into an input, and in-place writes under a gradient transform copy first (see Tensor.__setitem__).
"""
import math

import numpy as np

from ..._autodiff.tape import apply, call1, const, wrap
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..primitive import Primitive, register
from ._kernels import normalize_axis, sum_to_array


def _check_shape(shape, op):
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"For '{op}', 'shape' must be a tuple of ints, but got "
                        f"{type(shape).__name__}")
    out = []
    for d in shape:
        if isinstance(d, Tensor) and d._data.ndim == 0 and d._data.dtype.kind in "iu":
            d = int(d)
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise TypeError(f"For '{op}', 'shape' must hold ints, but got {shape!r}")
        out.append(int(d))
    return tuple(out)


# ================================ reshape-like ====================================================

@register
class Reshape(Primitive):
    """x with a new shape of the same size (one -1 is inferred).  dx = reshape(dout, x.shape)."""

    view_op = True
    inputs = ("x", "shape")
    saves = ("x.shape",)

    def forward(self, x, shape):
        shape = _check_shape(shape, "Reshape")
        if shape.count(-1) > 1 or any(d < -1 for d in shape):
            raise ValueError(f"For 'Reshape', 'shape' may hold one -1 and no other negative "
                             f"size, but got {shape}")
        known = math.prod(d for d in shape if d != -1)
        if (-1 in shape and (known == 0 or x.size % known)) or (-1 not in shape and known != x.size):
            raise ValueError(f"For 'Reshape', cannot reshape a tensor of shape {x.shape} "
                             f"(size {x.size}) to {shape}")
        return x.reshape(shape)

    def bprop(self, saved, dout, needs):
        return reshape(dout, saved[0]), None


@register
class ExpandDims(Primitive):
    """x with a size-1 axis inserted at `axis`.  dx = reshape(dout, x.shape)."""

    view_op = True
    inputs = ("x", "axis")
    saves = ("x.shape",)

    def forward(self, x, axis):
        return np.expand_dims(x, normalize_axis(axis, x.ndim, "ExpandDims", extra=1))

    def bprop(self, saved, dout, needs):
        return reshape(dout, saved[0]), None


@register
class Squeeze(Primitive):
    """x without the size-1 axes in `axis` (all size-1 axes for `()`); a named axis of another
    size is left alone, as MindSpore does.  dx = reshape(dout, x.shape)."""

    view_op = True
    saves = ("x.shape",)

    def __init__(self, axis=()):
        super().__init__()
        # MindSpore keeps the axes as a tuple: Squeeze(1).axis == (1,).
        self.axis = () if axis is None else (axis,) if isinstance(axis, (int, np.integer)) \
            else tuple(axis)

    def forward(self, x):
        axes = self.axis
        if not axes:
            return np.squeeze(x)
        axes = tuple(a for a in (normalize_axis(a, x.ndim, "Squeeze") for a in axes)
                     if x.shape[a] == 1)
        return np.squeeze(x, axis=axes)

    def bprop(self, saved, dout, needs):
        return (reshape(dout, saved[0]),)


@register
class Transpose(Primitive):
    """x with axes permuted by `perm`.  dx = transpose(dout, inverse(perm))."""

    view_op = True
    inputs = ("x", "perm")
    saves = ("perm",)

    def forward(self, x, perm):
        perm = _check_shape(perm, "Transpose")
        if sorted(perm) != list(range(x.ndim)):
            raise ValueError(f"For 'Transpose', 'perm' must be a permutation of "
                             f"range({x.ndim}), but got {perm}")
        return np.transpose(x, perm)

    def bprop(self, saved, dout, needs):
        perm = _check_shape(saved[0], "Transpose")
        return transpose(dout, tuple(np.argsort(perm).tolist())), None


@register
class Identity(Primitive):
    """A copy of x.  dx = dout."""

    def forward(self, x):
        return x.copy()

    def bprop(self, saved, dout, needs):
        return (dout,)


# ================================ views: the diagonal, and writes through a view ==================

@register
class Diagonal(Primitive):
    """The diagonal at `offset` of the (dim1, dim2) planes of x, as a new last axis: a view.
    dx = zeros of x's shape holding dout on that diagonal."""

    internal = True
    view_op = True
    saves = ("x.shape", "x.dtype")

    def __init__(self, offset=0, dim1=0, dim2=1):
        super().__init__()
        self.offset, self.dim1, self.dim2 = int(offset), int(dim1), int(dim2)

    def forward(self, x):
        d = np.diagonal(x, self.offset, self.dim1, self.dim2)
        if x.flags.writeable:  # NumPy hands out the diagonal read-only; it is memory of x
            d.flags.writeable = True
        return d

    def bprop(self, saved, dout, needs):
        shape, dtype = saved
        zeros = const(np.zeros(shape, dout._data.dtype))
        return (apply(ViewScatter(((self, ()),)), (zeros, dout)),)


def replay_view(x, steps):
    """The view of Tensor x that `steps` ((primitive, other arguments), ...) make (recorded)."""
    for prim, rest in steps:
        x = apply(prim, (x, *rest))
    return x


def _replay_arrays(a, steps):
    for prim, rest in steps:
        a = prim.forward(a, *rest)
    return a


@register
class ViewScatter(Primitive):
    """A copy of `base` whose view made by `steps` holds `value`: a write through a view, seen
    from its base.  d_base = dout with that view zeroed;  d_value = that view of dout."""

    internal = True
    inputs = ("base", "value")
    saves = ("value.shape",)

    def __init__(self, steps):
        super().__init__()
        self.steps = tuple(steps)

    def forward(self, base, value):
        out = base.copy(order="K")
        region = _replay_arrays(out, self.steps)
        if isinstance(region, np.ndarray) and region.flags.writeable and \
                np.shares_memory(region, out):
            region[...] = value
        else:  # the steps made a copy here: address the region by flat positions instead
            where = _replay_arrays(np.arange(out.size).reshape(out.shape), self.steps)
            np.put(out, where, np.broadcast_to(value, np.shape(where)))
        return out

    def bprop(self, saved, dout, needs):
        shape = saved[0]
        d_base = d_value = None
        if needs[0]:
            d_base = apply(self, (dout, const(np.zeros(shape, dout._data.dtype))))
        if needs[1]:
            d_value = replay_view(dout, self.steps)
        return d_base, d_value


# ================================ broadcasting and its adjoint ====================================

@register
class DynamicBroadcastTo(Primitive):
    """x broadcast to `shape` (-1 keeps a dimension).  dx = sum_to(dout, x.shape)."""

    internal = True  # the user-facing class of MindSpore's name adapts the call
    inputs = ("x", "shape")
    saves = ("x.shape",)

    def forward(self, x, shape):
        shape = _check_shape(shape, "BroadcastTo")
        lead = len(shape) - x.ndim
        if lead < 0:
            raise ValueError(f"For 'BroadcastTo', cannot broadcast shape {x.shape} to {shape}")
        shape = tuple(x.shape[i - lead] if d == -1 and i >= lead else d
                      for i, d in enumerate(shape))
        try:
            return np.broadcast_to(x, shape)
        except ValueError:
            raise ValueError(f"For 'BroadcastTo', cannot broadcast shape {x.shape} to "
                             f"{shape}") from None

    def bprop(self, saved, dout, needs):
        return sum_to(dout, saved[0]), None


@register
class SumTo(Primitive):
    """x summed down to `shape` (the adjoint of broadcasting).  dx = broadcast_to(dout, x.shape)."""

    internal = True
    inputs = ("x", "shape")
    saves = ("x.shape",)

    def forward(self, x, shape):
        return sum_to_array(x, tuple(shape))

    def bprop(self, saved, dout, needs):
        return broadcast_to(dout, saved[0]), None


@register
class Tile(Primitive):
    """x repeated `multiples` times per axis.  dx = dout summed over the repeats."""

    inputs = ("x", "multiples")
    saves = ("x.shape", "multiples")

    def forward(self, x, multiples):
        multiples = _check_shape(multiples, "Tile")
        if any(m < 0 for m in multiples):
            raise ValueError(f"For 'Tile', 'multiples' must be non-negative, got {multiples}")
        if len(multiples) < x.ndim:
            multiples = (1,) * (x.ndim - len(multiples)) + multiples
        return np.tile(x, multiples)

    def bprop(self, saved, dout, needs):
        shape, multiples = saved
        multiples = _check_shape(multiples, "Tile")
        nd = max(len(shape), len(multiples))
        full = (1,) * (nd - len(shape)) + tuple(shape)
        reps = (1,) * (nd - len(multiples)) + tuple(multiples)
        split = reshape(dout, tuple(v for pair in zip(reps, full) for v in pair))
        summed = sum_to(split, tuple(v for n in full for v in (1, n)))  # over the repeats
        return reshape(summed, shape), None


# ================================ joining and splitting ===========================================

def _promoted_arrays(arrays, op):
    if not arrays:
        raise ValueError(f"For '{op}', the input sequence must not be empty")
    dt = arrays[0].dtype
    for a in arrays[1:]:
        if a.dtype != dt:
            dt = mstype.promote(dt, a.dtype)
    return [a.astype(dt, copy=False) for a in arrays]


@register
class Concat(Primitive):
    """Tensors joined along `axis`.  Each input's gradient is its slice of dout."""

    amp_auto = "promote"
    inputs = "*"
    broadcasts = True  # inputs of different dtypes are promoted

    def __init__(self, axis=0):
        super().__init__()
        self.axis = axis

    def __call__(self, tensors):
        return apply(self, _tensor_sequence(tensors, self.name))

    def forward(self, *xs):
        xs = _promoted_arrays(xs, "Concat")
        axis = normalize_axis(self.axis, xs[0].ndim, "Concat")
        for x in xs[1:]:
            if x.ndim != xs[0].ndim or any(a != b for i, (a, b) in enumerate(zip(x.shape, xs[0].shape))
                                           if i != axis):
                raise ValueError(f"For 'Concat', all inputs must have the same shape except on "
                                 f"axis {axis}, but got {[v.shape for v in xs]}")
        return np.concatenate(xs, axis=axis)

    def save(self, args, out):
        axis = normalize_axis(self.axis, out.ndim, "Concat")
        return (tuple(a._data.shape[axis] if isinstance(a, Tensor) else 1 for a in args),)

    def bprop(self, saved, dout, needs):
        sizes = saved[0]
        return SplitSizes(self.axis, sizes)(dout)


@register
class Stack(Primitive):
    """Tensors of one shape stacked along a new `axis`.  dx_i = dout[..., i, ...]."""

    amp_auto = "promote"
    inputs = "*"
    broadcasts = True  # inputs of different dtypes are promoted

    def __init__(self, axis=0):
        super().__init__()
        self.axis = axis

    def __call__(self, tensors):
        return apply(self, _tensor_sequence(tensors, self.name))

    def forward(self, *xs):
        xs = _promoted_arrays(xs, "Stack")
        if any(x.shape != xs[0].shape for x in xs):
            raise ValueError(f"For 'Stack', all inputs must have the same shape, but got "
                             f"{[x.shape for x in xs]}")
        return np.stack(xs, axis=normalize_axis(self.axis, xs[0].ndim, "Stack", extra=1))

    def save(self, args, out):
        return ()

    def bprop(self, saved, dout, needs):
        return Unstack(self.axis)(dout)


@register
class Unstack(Primitive):
    """The slices of x along `axis`, as a tuple (`num`, when given, must be their number).
    dx = stack(douts, axis)."""

    view_op = True
    def __init__(self, axis=0, num=None):
        super().__init__()
        self.axis, self.num = axis, num

    def forward(self, x):
        axis = normalize_axis(self.axis, x.ndim, "Unstack")
        if self.num is not None and self.num != x.shape[axis]:
            raise ValueError(f"For 'Unstack', 'num' {self.num} differs from the size "
                             f"{x.shape[axis]} of axis {axis} of shape {x.shape}")
        lead = (slice(None),) * axis
        return tuple(x[(*lead, i, Ellipsis)] for i in range(x.shape[axis]))

    def bprop(self, saved, dout, needs):
        return (Stack(self.axis)(dout),)

    def view_step(self, k, rest, x):
        """Output k is x[..., k, ...]: a view made again by basic indexing."""
        axis = normalize_axis(self.axis, x.ndim, "Unstack")
        return _GETITEM, ((slice(None),) * axis + (k, Ellipsis),)


@register
class SplitSizes(Primitive):
    """x cut along `axis` into pieces of the given `sizes` (a tuple).  dx = concat(douts)."""

    internal = True  # the user-facing class of MindSpore's name adapts the call

    def __init__(self, axis=0, sizes=(1,)):
        super().__init__()
        self.axis, self.sizes = axis, tuple(int(s) for s in sizes)

    def forward(self, x):
        axis = normalize_axis(self.axis, x.ndim, "Split")
        if sum(self.sizes) != x.shape[axis] or any(s < 0 for s in self.sizes):
            raise ValueError(f"For 'Split', sizes {self.sizes} do not add up to the length "
                             f"{x.shape[axis]} of axis {axis} of shape {x.shape}")
        bounds = np.cumsum(self.sizes)[:-1].tolist()
        return tuple(np.split(x, bounds, axis=axis))

    def bprop(self, saved, dout, needs):
        return (Concat(self.axis)(dout),)


def _tensor_sequence(tensors, op):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (tuple, list)):
        raise TypeError(f"For '{op}', the input must be a tuple or list of Tensors, but got "
                        f"{type(tensors).__name__}")
    for k, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{op}', element {k} of the input is a {type(t).__name__}, "
                            "not a Tensor")
    return tuple(tensors)


# ================================ gather and indexing =============================================

def _check_indices(indices, size, op, what="indices"):
    if indices.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', '{what}' must be an integer tensor, got dtype "
                        f"{indices.dtype}")
    if indices.size and (indices.min() < -size or indices.max() >= size):
        bad = indices[(indices < -size) | (indices >= size)].flat[0]
        raise IndexError(f"For '{op}', index {bad} is out of range for an axis of size {size}")


@register
class Take(Primitive):
    """x[..., indices, ...] along `axis` (negative indices count from the end; out of range is
    an IndexError).  dx = scatter-add of dout (repeated indices accumulate)."""

    internal = True  # the user-facing class of MindSpore's name adapts the call
    inputs = ("x", "indices", "axis")
    saves = ("x.shape", "indices", "axis")

    def __call__(self, x, indices, axis=0):
        return apply(self, (x, indices, axis))

    def forward(self, x, indices, axis):
        indices = np.asarray(indices)
        axis = normalize_axis(axis, x.ndim, "Gather")
        _check_indices(indices, x.shape[axis], "Gather", "input_indices")
        return np.take(x, indices, axis=axis)

    def bprop(self, saved, dout, needs):
        shape, indices, axis = saved
        return gather_grad(dout, indices, axis, shape), None, None


@register
class GatherGrad(Primitive):
    """Zeros of `shape` with dout added at `indices` along `axis` (Gather's adjoint).
    d_dout = gather(g, indices, axis)."""

    inputs = ("dout", "indices", "axis", "shape")
    saves = ("indices", "axis")

    def forward(self, dout, indices, axis, shape):
        indices = np.asarray(indices)
        axis = normalize_axis(axis, len(shape), "GatherGrad")
        g = np.zeros(shape, dout.dtype)
        moved = np.moveaxis(g, axis, 0)
        src = np.moveaxis(dout, tuple(range(axis, axis + indices.ndim)),
                          tuple(range(indices.ndim)))
        np.add.at(moved, indices, src)
        return g

    def bprop(self, saved, g, needs):
        indices, axis = saved
        return gather(g, indices, axis), None, None, None


def _is_basic(index):
    if type(index) is not tuple:
        index = (index,)
    return all(isinstance(i, (int, slice)) or i is None or i is Ellipsis for i in index)


@register
class Getitem(Primitive):
    """x[index] with NumPy semantics (ints, slices of any step, ..., None, bool masks, integer
    arrays).  dx = zeros of x.shape with dout added at index (repeats accumulate)."""

    internal = True
    view_op = True  # with a basic index (ints, slices, ..., None) the result is a view of x
    inputs = ("x", "index")
    saves = ("x.shape", "index")

    def forward(self, x, index):
        try:
            out = x[index]
            if type(out) is not np.ndarray:  # ints only: a 0-d view instead of a NumPy scalar
                out = x[(*index, Ellipsis) if type(index) is tuple else (index, Ellipsis)]
            return out
        except IndexError as e:
            raise IndexError(f"For 'Tensor.__getitem__', {e} (tensor shape {x.shape})") from None

    def bprop(self, saved, dout, needs):
        shape, index = saved
        return getitem_grad(dout, index, shape), None


@register
class GetitemGrad(Primitive):
    """Zeros of `shape` with dout added at `index` (Getitem's adjoint). d_dout = g[index]."""

    inputs = ("dout", "index", "shape")
    saves = ("index",)

    def forward(self, dout, index, shape):
        g = np.zeros(shape, dout.dtype)
        if _is_basic(index):
            g[index] = dout
        else:
            np.add.at(g, index, dout)
        return g

    def bprop(self, saved, g, needs):
        return getitem(g, saved[0]), None, None


def write_at(a, index, value):
    """a[index] = value in place, with `Tensor.__setitem__`'s errors (a Python int out of the
    dtype's range wraps, as a C cast does)."""
    try:
        try:
            a[index] = value
        except OverflowError:
            a[index] = np.asarray(value).astype(a.dtype)
    except OverflowError:
        raise ValueError(f"For 'Tensor.__setitem__', the value {value} is out of range for "
                         f"{mstype.from_np(a.dtype)}") from None
    except IndexError as e:
        raise IndexError(f"For 'Tensor.__setitem__', {e} (tensor shape {a.shape})") from None
    except ValueError as e:
        raise ValueError(f"For 'Tensor.__setitem__', cannot write a value of shape "
                         f"{np.shape(value)} into a tensor of shape {a.shape} at this index: "
                         f"{e}") from None


@register
class Setitem(Primitive):
    """A copy of x with x[index] = value.  dx = dout with dout[index] = 0;
    dvalue = dout[index] (where a repeated index is written twice, only the last write counts)."""

    keeps_inputs = True
    internal = True
    inputs = ("x", "index", "value")
    saves = ("x.shape", "index", "value.shape")
    broadcasts = True  # the value broadcasts into the indexed region

    def forward(self, x, index, value):
        out = x.copy()
        write_at(out, index, value)
        return out

    def bprop(self, saved, dout, needs):
        shape, index, value_shape = saved
        dx = setitem(dout, index, 0.0) if needs[0] else None
        dvalue = None
        if needs[2]:
            dvalue = getitem(dout, index)
            winners = _last_write_mask(shape, index)
            if winners is not None:
                dvalue = dvalue * wrap(winners.astype(dout._data.dtype))
        return dx, None, dvalue


def _last_write_mask(shape, index):
    """For an advanced index that names some element twice, a mask over x[index] that is 1 at
    the last write to each element; None when no element is named twice."""
    if _is_basic(index):
        return None
    pos = np.arange(math.prod(shape)).reshape(shape)[index]
    flat = pos.ravel()
    if np.unique(flat).size == flat.size:
        return None
    mask = np.zeros(flat.size, bool)
    _, last_from_end = np.unique(flat[::-1], return_index=True)
    mask[flat.size - 1 - last_from_end] = True
    return mask.reshape(pos.shape)


@register
class PadConstant(Primitive):
    """x padded with the constant `value`; `paddings` is ((before, after), ...) per axis, and
    negative amounts crop.  dx = the unpadded part of dout."""

    internal = True  # the user-facing class of MindSpore's name adapts the call
    inputs = ("x", "paddings", "value")
    saves = ("paddings",)

    def forward(self, x, paddings, value):
        for i, (b, a) in enumerate(paddings):
            if x.shape[i] + min(b, 0) + min(a, 0) < 0:
                raise ValueError(f"For 'Pad', the paddings ({b}, {a}) crop more than the "
                                 f"size {x.shape[i]} of axis {i} of shape {x.shape}")
        crop = tuple(slice(max(-b, 0), x.shape[i] - max(-a, 0) if a < 0 else None)
                     for i, (b, a) in enumerate(paddings))
        pos = tuple((max(b, 0), max(a, 0)) for b, a in paddings)
        if not pos:
            return x.copy()
        return np.pad(x[crop], pos, mode="constant", constant_values=value)

    def bprop(self, saved, dout, needs):
        paddings = saved[0]
        # The inverse: crop what was padded, pad back (with zeros) what was cropped.
        return pad(dout, tuple((-b, -a) for b, a in paddings), 0), None, None


# ================================ internal functional forms =======================================

_RESHAPE, _TRANSPOSE, _BROADCAST_TO, _SUM_TO = Reshape(), Transpose(), DynamicBroadcastTo(), SumTo()
_GATHER, _GATHER_GRAD, _GETITEM, _GETITEM_GRAD = Take(), GatherGrad(), Getitem(), GetitemGrad()
_SETITEM, _PAD, _EXPAND_DIMS, _IDENTITY = Setitem(), PadConstant(), ExpandDims(), Identity()


def reshape(x, shape):
    if x._data.shape == tuple(shape):
        return x
    return apply(_RESHAPE, (x, tuple(shape)))


def transpose(x, perm):
    return apply(_TRANSPOSE, (x, tuple(perm)))


def expand_dims(x, axis):
    return apply(_EXPAND_DIMS, (x, axis))


def broadcast_to(x, shape):
    if x._data.shape == tuple(shape):
        return x
    return apply(_BROADCAST_TO, (x, tuple(shape)))


def sum_to(x, shape):
    """x summed down to `shape` (what the engine applies to broadcast gradients)."""
    return apply(_SUM_TO, (x, tuple(shape)))


def gather(x, indices, axis):
    return apply(_GATHER, (x, indices, axis))


def gather_grad(dout, indices, axis, shape):
    return apply(_GATHER_GRAD, (dout, indices, axis, tuple(shape)))


def getitem(x, index):
    return apply(_GETITEM, (x, index))


def getitem_grad(dout, index, shape):
    return apply(_GETITEM_GRAD, (dout, index, tuple(shape)))


def setitem(x, index, value):
    return apply(_SETITEM, (x, index, value))


def pad(x, paddings, value=0):
    return apply(_PAD, (x, tuple(tuple(p) for p in paddings), value))


def zeros_like(x):
    """Untracked zeros of x's shape and dtype."""
    return const(np.zeros(x._data.shape, x._data.dtype))


def ones_like(x):
    return const(np.ones(x._data.shape, x._data.dtype))


def unary(prim, x):
    return call1(prim, x)
