"""Scatter, gather, segment, index and search primitives: the segment reductions
(UnsortedSegmentSum/Prod/Max/Min) and the max/min N-D scatters (TensorScatterMax/Min). The other
names of the family are composites of these and of array_ops (ops/function/scatter_func.py).

Ties in max/min split the gradient evenly among the tied elements (the library's convention,
and MindSpore's rule for these ops)."""
import numpy as np

from ..._autodiff.tape import apply, const, wrap
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..primitive import Primitive, data_function, register
from . import array_ops as A
from . import reduce_ops as R

PRIMITIVE_CLASSES = ()


def _array(v):
    return v._data if isinstance(v, Tensor) else np.asarray(v)


def _traced(v):
    """A Tensor operand as it is (a traced value under graph capture), anything else as a
    constant array."""
    return v if isinstance(v, Tensor) else const(np.asarray(v))


def _dtype_name(dt):
    try:
        return str(mstype.from_np(dt))
    except (TypeError, KeyError, ValueError):
        return str(dt)


def check_index_dtype(idx, op, arg, allowed=("int32", "int64")):
    """TypeError unless the index array has one of the `allowed` integer dtypes."""
    if idx.dtype.name not in allowed:
        kinds = ", ".join(f"Tensor[{a.capitalize()}]" for a in allowed)
        raise TypeError(f"For '{op}', '{arg}' must be one of {{{kinds}}}, but got "
                        f"Tensor[{_dtype_name(idx.dtype).capitalize()}]")
    return idx


def _check_data(x, op, arg="input_x"):
    if x.dtype.kind not in "iuf":
        raise TypeError(f"For '{op}', '{arg}' must be a numeric (not bool or complex) Tensor, "
                        f"but got dtype {_dtype_name(x.dtype)}")


def segment_ids_array(x_shape, ids, num_segments, op, allowed=("int16", "int32", "int64")):
    """(flat int64 ids, num_segments) of an unsorted segment reduction, with MindSpore's errors:
    the ids' shape must lead x's, and every id lie in [0, num_segments)."""
    ids = check_index_dtype(_array(ids), op, "segment_ids", allowed)
    n = _array(num_segments)
    if n.ndim != 0 or n.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', 'num_segments' must be an int or a 0-D integer Tensor, "
                        f"but got {num_segments!r}")
    n = int(n)
    if n <= 0:
        raise ValueError(f"For '{op}', 'num_segments' must be greater than 0, but got {n}")
    if ids.ndim > len(x_shape) or tuple(x_shape[:ids.ndim]) != ids.shape:
        raise ValueError(f"For '{op}', the shape of 'segment_ids' {ids.shape} must lead the "
                         f"shape of 'input_x' {tuple(x_shape)}")
    flat = ids.reshape(-1).astype(np.int64)
    if flat.size and (flat.min() < 0 or flat.max() >= n):
        bad = flat[(flat < 0) | (flat >= n)][0]
        raise RuntimeError(f"For '{op}', segment_ids values must be in [0, {n}), but got {bad}")
    return flat, n


def _reduce_into(x, flat, n, id_ndim, fill, ufunc):
    rest = x.shape[id_ndim:]
    out = np.full((n,) + rest, fill, x.dtype)
    ufunc.at(out, flat, x.reshape((flat.size,) + rest))
    return out


def _segment_rows(t, flat, id_ndim):
    """Tensor t (shape ids.shape + rest) as (N, *rest)."""
    return A.reshape(t, (flat.size,) + tuple(t.shape[id_ndim:]))


class _SegmentReduce(Primitive):
    inputs = ("input_x", "segment_ids", "num_segments")
    id_dtypes = ("int32", "int64")

    def __init__(self):
        super().__init__()

    def __call__(self, input_x, segment_ids, num_segments):
        return apply(self, (input_x, segment_ids, num_segments))

    def _args(self, x, segment_ids, num_segments):
        _check_data(x, self.name)
        flat, n = segment_ids_array(x.shape, segment_ids, num_segments, self.name,
                                    self.id_dtypes)
        return flat, n, np.ndim(segment_ids)


@register
class UnsortedSegmentSum(_SegmentReduce):
    """out[k] = sum of input_x[i] over the i with segment_ids[i] == k (zeros where none).
    d input_x = dout[segment_ids]."""

    saves = ("segment_ids", "num_segments")
    id_dtypes = ("int16", "int32", "int64")

    def forward(self, x, segment_ids, num_segments):
        flat, n, k = self._args(x, segment_ids, num_segments)
        return _reduce_into(x, flat, n, k, 0, np.add)

    def bprop(self, saved, dout, needs):
        return A.gather(dout, _traced(saved[0]), 0), None, None


@register
class UnsortedSegmentProd(_SegmentReduce):
    """out[k] = product of input_x[i] over the i with segment_ids[i] == k (ones where none).
    d input_x[i] = dout[segment_ids[i]] * (product of the other elements of i's segment),
    computed without division (exact with zeros, at every order)."""

    saves = ("input_x", "segment_ids", "num_segments")

    def forward(self, x, segment_ids, num_segments):
        flat, n, k = self._args(x, segment_ids, num_segments)
        return _reduce_into(x, flat, n, k, 1, np.multiply)

    def bprop(self, saved, dout, needs):
        x, ids, n = saved
        ids = _array(ids)
        flat = ids.reshape(-1).astype(np.int64)
        n = int(_array(n))
        rows = _segment_rows(x, flat, ids.ndim)
        others = _segment_others(rows, flat, n)
        dx = A.getitem(dout, (flat,)) * others
        return A.reshape(dx, x.shape), None, None


def _segment_others(rows, flat, n):
    """For each row, the product of the other rows of its segment: the segment's rows are laid
    out along a padded axis of ones and reduced by ProdOthers."""
    counts = np.bincount(flat, minlength=n)
    starts = np.cumsum(counts) - counts
    order = np.argsort(flat, kind="stable")
    pos = np.empty_like(flat)
    pos[order] = np.arange(flat.size) - starts[flat[order]]
    width = max(int(counts.max()) if counts.size else 1, 1)
    rest = tuple(rows.shape[1:])
    ones = const(np.ones((n, width) + rest, rows._data.dtype))
    padded = A.setitem(ones, (flat, pos), rows)
    return A.getitem(R.prod_others(padded, (1,)), (flat, pos))


class _SegmentExtreme(_SegmentReduce):
    saves = ("input_x", "segment_ids", "out")
    ufunc = None

    def forward(self, x, segment_ids, num_segments):
        flat, n, k = self._args(x, segment_ids, num_segments)
        info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
        fill = info.min if self.ufunc is np.maximum else info.max
        return _reduce_into(x, flat, n, k, fill, self.ufunc)

    def bprop(self, saved, dout, needs):
        x, ids, out = saved
        ids = _traced(ids)
        # a recorded node: a graph-mode replay finds the new maxima and ties
        weight = data_function(_extreme_weights, x, out, ids, static=(dout._data.dtype,))
        return A.gather(dout, ids, 0) * weight, None, None


def _extreme_weights(x, out, ids, dt):
    """1 / (number of ties) where an element equals its segment's extreme, else 0."""
    hit = (x == out[ids]).astype(dt)
    count = np.zeros(out.shape, dt)
    np.add.at(count, ids, hit)
    return hit / np.where(count == 0, 1, count)[ids]


@register
class UnsortedSegmentMax(_SegmentExtreme):
    """out[k] = max of input_x[i] over segment k (the dtype's lowest value where empty).
    d input_x = dout[segment_ids] at the segment's maximum (split evenly among ties), else 0."""

    ufunc = np.maximum


@register
class UnsortedSegmentMin(_SegmentExtreme):
    """out[k] = min of input_x[i] over segment k (the dtype's highest value where empty).
    d input_x = dout[segment_ids] at the segment's minimum (split evenly among ties), else 0."""

    ufunc = np.minimum


# ---- N-D scatter -------------------------------------------------------------------------------

def nd_index(indices, shape, op, allowed=("int32", "int64")):
    """The advanced index of an N-D scatter: the last axis of `indices` (of an `allowed` dtype)
    holds coordinates into the first indices.shape[-1] axes of `shape`; RuntimeError out of
    range."""
    idx = check_index_dtype(_array(indices), op, "indices", allowed)
    if idx.ndim < 1 or not 1 <= idx.shape[-1] <= len(shape):
        raise ValueError(f"For '{op}', 'indices' must end with an axis of 1 to {len(shape)} "
                         f"coordinates, but got shape {idx.shape}")
    for k in range(idx.shape[-1]):
        col = idx[..., k]
        if col.size and (col.min() < 0 or col.max() >= shape[k]):
            bad = col[(col < 0) | (col >= shape[k])].flat[0]
            raise RuntimeError(f"For '{op}', index {bad} in 'indices' is out of range "
                               f"[0, {shape[k]}) for axis {k} of shape {tuple(shape)}")
    return tuple(idx[..., k] for k in range(idx.shape[-1])), idx.shape[:-1]


def check_nd_updates(x_shape, x_dtype, updates, index, lead, op):
    """ValueError unless updates.shape == indices.shape[:-1] + x_shape[depth:]; TypeError unless
    updates has x's dtype."""
    expected = tuple(lead) + tuple(x_shape[len(index):])
    if tuple(updates.shape) != expected:
        raise ValueError(f"For '{op}', 'updates' must have shape indices.shape[:-1] + "
                         f"input_x.shape[{len(index)}:] = {expected}, but got "
                         f"{tuple(updates.shape)}")
    if updates.dtype != x_dtype:
        raise TypeError(f"For '{op}', 'updates' must have the dtype of 'input_x' "
                        f"{_dtype_name(x_dtype)}, but got {_dtype_name(updates.dtype)}")


class _TensorScatterExtreme(Primitive):
    inputs = ("input_x", "indices", "updates")
    saves = ("input_x", "indices", "updates", "out")
    ufunc = None

    def __init__(self):
        super().__init__()

    def forward(self, x, indices, updates):
        _check_data(x, self.name)
        index, lead = nd_index(indices, x.shape, self.name)
        check_nd_updates(x.shape, x.dtype, updates, index, lead, self.name)
        out = x.copy()
        self.ufunc.at(out, index, updates)
        return out

    def bprop(self, saved, dout, needs):
        x, indices, updates, out = saved
        index, _ = nd_index(indices, out.shape, self.name)
        dt = dout._data.dtype
        x_hit = (_array(x) == out._data).astype(dt)
        u_hit = (_array(updates) == out._data[index]).astype(dt)
        count = x_hit.copy()
        np.add.at(count, index, u_hit)
        count[count == 0] = 1
        dx = dout * wrap(x_hit / count) if needs[0] else None
        du = A.getitem(dout, index) * wrap(u_hit / count[index]) if needs[2] else None
        return dx, None, du


@register
class TensorScatterMax(_TensorScatterExtreme):
    """A copy of input_x with out[indices[k]] = max(out[indices[k]], updates[k]) for every k.
    The gradient goes to the winners (x's element and the updates equal to the result), split
    evenly among ties."""

    ufunc = np.maximum


@register
class TensorScatterMin(_TensorScatterExtreme):
    """A copy of input_x with out[indices[k]] = min(out[indices[k]], updates[k]) for every k.
    The gradient goes to the winners, split evenly among ties."""

    ufunc = np.minimum

