"""Array creation: `array`, `zeros`, `arange`, `linspace`, `eye`, `diag`, `pad`, windows, grids."""
import numpy as np

from .. import ops
from ..common import dtype as mstype
from ..common.tensor import Tensor
from .dtypes import _as_dtype
from .utils import _SCALARS, _axis, _cast, _const, _int, _out, _shape_of, _to_float, _to_tensor

__all__ = [
    "arange",
    "array",
    "asarray",
    "asfarray",
    "bartlett",
    "blackman",
    "diag",
    "diag_indices",
    "diagflat",
    "diagonal",
    "empty",
    "empty_like",
    "eye",
    "full",
    "full_like",
    "geomspace",
    "hamming",
    "hanning",
    "histogram_bin_edges",
    "identity",
    "indices",
    "ix_",
    "linspace",
    "logspace",
    "meshgrid",
    "mgrid",
    "ogrid",
    "ones",
    "ones_like",
    "pad",
    "rand",
    "randint",
    "randn",
    "trace",
    "tri",
    "tril",
    "tril_indices",
    "tril_indices_from",
    "triu",
    "triu_indices",
    "triu_indices_from",
    "vander",
    "zeros",
    "zeros_like",
]


def array(obj, dtype=None, copy=True, ndmin=0):
    """A Tensor from array-like `obj` (Python ints become int32, floats float32), at least
    `ndmin`-dimensional."""
    t = _to_tensor(obj, dtype)
    if copy and t is obj:
        t = ops.identity(t)
    ndmin = _int(ndmin, "array", "ndmin")
    if t.ndim < ndmin:
        t = t.reshape((1,) * (ndmin - t.ndim) + tuple(t.shape))
    return t


def asarray(a, dtype=None):
    """`a` as a Tensor (itself when it already is one of `dtype`)."""
    return _to_tensor(a, dtype)


def asfarray(a, dtype=mstype.float32):
    """`a` as a floating Tensor; a non-float `dtype` falls back to float32."""
    dtype = _as_dtype(dtype)
    if mstype.to_np(dtype).kind != "f":
        dtype = mstype.float32
    return _to_tensor(a, dtype)


def _filled(shape, value, dtype, name):
    shape = _shape_of(shape, name)
    return Tensor(np.full(shape, value, dtype=mstype.to_np(_as_dtype(dtype))))


def zeros(shape, dtype=mstype.float32):
    """A Tensor of zeros."""
    return _filled(shape, 0, dtype, "zeros")


def ones(shape, dtype=mstype.float32):
    """A Tensor of ones."""
    return _filled(shape, 1, dtype, "ones")


def empty(shape, dtype=mstype.float32):
    """A Tensor of the shape; its values are unspecified (zeros here)."""
    return _filled(shape, 0, dtype, "empty")


def full(shape, fill_value, dtype=None):
    """A Tensor of `shape` filled with `fill_value` (a scalar, or an array broadcast to shape)."""
    shape = _shape_of(shape, "full")
    if isinstance(fill_value, _SCALARS) and not isinstance(fill_value, Tensor):
        value = _to_tensor(fill_value)
        dtype = value.dtype if dtype is None else _as_dtype(dtype)
        return Tensor(np.full(shape, fill_value, dtype=mstype.to_np(dtype)))
    value = _to_tensor(fill_value, dtype)
    return ops.broadcast_to(value, shape)


def _like(a, dtype, shape, value):
    a = _to_tensor(a)
    shape = a.shape if shape is None else _shape_of(shape, "like")
    dtype = a.dtype if dtype is None else _as_dtype(dtype)
    if isinstance(value, Tensor):
        return ops.broadcast_to(_cast(value, dtype), shape)
    return Tensor(np.full(shape, value, dtype=mstype.to_np(dtype)))


def zeros_like(a, dtype=None, shape=None):
    """Zeros with the shape and dtype of `a` (or those given)."""
    return _like(a, dtype, shape, 0)


def ones_like(a, dtype=None, shape=None):
    """Ones with the shape and dtype of `a` (or those given)."""
    return _like(a, dtype, shape, 1)


def empty_like(prototype, dtype=None, shape=None):
    """A Tensor with the shape and dtype of `prototype`; its values are unspecified (zeros)."""
    return _like(prototype, dtype, shape, 0)


def full_like(a, fill_value, dtype=None, shape=None):
    """`fill_value` in the shape and dtype of `a` (or those given)."""
    if not isinstance(fill_value, _SCALARS):
        fill_value = _to_tensor(fill_value)
    return _like(a, dtype, shape, fill_value)


def _number(x, name):
    if isinstance(x, Tensor):
        if x.size != 1:
            raise TypeError(f"For '{name}', a Tensor bound must hold one value")
        return x.asnumpy().item(), True
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"For '{name}', the bounds must be numbers, but got "
                        f"{type(x).__name__}")
    return x, False


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in [start, stop): int32 when all bounds are ints, float32 otherwise."""
    values, tensors = zip(*(_number(v, "arange") for v in (start, stop, step) if v is not None))
    if stop is None:
        start, stop = 0, values[0]
        step = values[1] if len(values) > 1 else 1
    else:
        start, stop = values[0], values[1]
        step = values[2] if len(values) > 2 else 1
    if step == 0:
        raise ValueError("For 'arange', 'step' cannot be 0")
    floaty = any(tensors) or any(isinstance(v, (float, np.floating)) for v in (start, stop, step))
    if dtype is None:
        dtype = mstype.float32 if floaty else mstype.int32
    return Tensor(np.arange(start, stop, step).astype(mstype.to_np(_as_dtype(dtype))))


def _bound(x):
    t = _to_tensor(x)
    return _to_float(t)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced samples from start to stop (Tensors of bounds give a grid along
    `axis`), float32 unless `dtype` says otherwise; differentiable in the bounds."""
    num = _int(num, "linspace", "num")
    if num < 0:
        raise ValueError(f"For 'linspace', 'num' must be non-negative, but got {num}")
    lo, hi = _bound(start), _bound(stop)
    if lo.dtype != hi.dtype:
        lo, hi = _cast(lo, mstype.float32), _cast(hi, mstype.float32)
    shape = np.broadcast_shapes(lo.shape, hi.shape)
    div = (num - 1) if endpoint else num
    steps = np.arange(num, dtype=np.float64)
    frac = steps / div if div > 0 else steps * 0.0
    grid = _const(frac.reshape((num,) + (1,) * len(shape)), lo.dtype)
    delta = hi - lo
    out = lo + delta * grid
    if endpoint and num > 1:
        out = ops.concat([out[:-1], ops.expand_dims(ops.broadcast_to(hi, shape), 0)], 0)
    if len(shape):
        out = ops.moveaxis(out, 0, _axis(axis, len(shape) + 1, "linspace"))
    out = _cast(out, mstype.float32 if dtype is None else _as_dtype(dtype))
    if retstep:
        if div > 0 and num > 1:
            return out, _cast(delta / div, out.dtype)
        return out, float("nan")
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """`base ** linspace(start, stop, ...)`."""
    exps = linspace(start, stop, num, endpoint, axis=axis, dtype=mstype.float64)
    out = ops.pow(_const(base, exps.dtype), exps)
    return _cast(out, mstype.float32 if dtype is None else _as_dtype(dtype))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Samples evenly spaced on a log scale from start to stop."""
    lo, hi = _bound(start), _bound(stop)
    out = ops.exp(linspace(ops.log(_cast(lo, mstype.float64)), ops.log(_cast(hi, mstype.float64)),
                           num, endpoint, dtype=mstype.float64, axis=axis))
    return _cast(out, mstype.float32 if dtype is None else _as_dtype(dtype))


def eye(N, M=None, k=0, dtype=mstype.float32):
    """An N x M matrix with ones on the k-th diagonal."""
    n = _int(N, "eye", "N")
    m = n if M is None else _int(M, "eye", "M")
    return Tensor(np.eye(n, m, _int(k, "eye", "k"), dtype=mstype.to_np(_as_dtype(dtype))))


def identity(n, dtype=mstype.float32):
    """The n x n identity matrix."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=mstype.float32):
    """An N x M matrix with ones at and below the k-th diagonal."""
    n = _int(N, "tri", "N")
    m = n if M is None else _int(M, "tri", "M")
    return Tensor(np.tri(n, m, _int(k, "tri", "k"), dtype=mstype.to_np(_as_dtype(dtype))))


def _matrix_mask(m, k, lower):
    m = _to_tensor(m)
    if m.ndim < 1:
        raise ValueError("For 'tril'/'triu', the input must be at least 1-D")
    if m.ndim == 1:
        m = ops.broadcast_to(m, (m.shape[0], m.shape[0]))
    rows, cols = m.shape[-2:]
    mask = np.tri(rows, cols, k if lower else k - 1, dtype=bool)
    if not lower:
        mask = ~mask
    return ops.where(Tensor(mask), m, ops.zeros_like(m))


def tril(m, k=0):
    """`m` with the elements above the k-th diagonal zeroed."""
    return _matrix_mask(m, _int(k, "tril", "k"), True)


def triu(m, k=0):
    """`m` with the elements below the k-th diagonal zeroed."""
    return _matrix_mask(m, _int(k, "triu", "k"), False)


def _index_pair(rows, cols):
    return Tensor(rows.astype(np.int32)), Tensor(cols.astype(np.int32))


def tril_indices(n, k=0, m=None):
    """Row and column indices of the lower triangle of an n x m matrix."""
    return _index_pair(*np.tril_indices(_int(n, "tril_indices", "n"), k, m))


def triu_indices(n, k=0, m=None):
    """Row and column indices of the upper triangle of an n x m matrix."""
    return _index_pair(*np.triu_indices(_int(n, "triu_indices", "n"), k, m))


def _matrix_shape(arr, name):
    shape = _to_tensor(arr).shape
    if len(shape) != 2:
        raise ValueError(f"For '{name}', the input must be 2-D, but got shape {tuple(shape)}")
    return shape


def tril_indices_from(arr, k=0):
    """Indices of the lower triangle of the 2-D `arr`."""
    rows, cols = _matrix_shape(arr, "tril_indices_from")
    return tril_indices(rows, k, cols)


def triu_indices_from(arr, k=0):
    """Indices of the upper triangle of the 2-D `arr`."""
    rows, cols = _matrix_shape(arr, "triu_indices_from")
    return triu_indices(rows, k, cols)


def diag(v, k=0):
    """The k-th diagonal of a 2-D `v`, or a square matrix with the 1-D `v` on its k-th diagonal."""
    v = _to_tensor(v)
    k = _int(k, "diag", "k")
    if v.ndim == 1:
        n = v.shape[0]
        square = ops.expand_dims(v, 0) * _const(np.eye(n), v.dtype) if n else v.reshape(0, 0)
        if k >= 0:
            return ops.pad(square, (k, 0, 0, k))
        return ops.pad(square, (0, -k, -k, 0))
    if v.ndim == 2:
        return diagonal(v, k)
    raise ValueError("For 'diag', the input must be 1- or 2-d")


def diagflat(v, k=0):
    """A 2-D Tensor with the flattened `v` on its k-th diagonal."""
    return diag(_to_tensor(v).reshape(-1), k)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal at `offset` of the planes given by `axis1` and `axis2`, as the last axis."""
    a = _to_tensor(a)
    if a.ndim < 2:
        raise ValueError("For 'diagonal', the input must be at least 2-D")
    ax1, ax2 = _axis(axis1, a.ndim, "diagonal"), _axis(axis2, a.ndim, "diagonal")
    if ax1 == ax2:
        raise ValueError("For 'diagonal', 'axis1' and 'axis2' cannot be the same")
    return ops.diagonal(a, _int(offset, "diagonal", "offset"), ax1, ax2)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum along a diagonal (integer inputs sum to int64, as MindSpore's)."""
    d = diagonal(a, offset, axis1, axis2)
    out = ops.sum(d, -1) if d.shape[-1] else ops.sum(ops.zeros_like(d), -1)
    return _out(out, dtype)


def diag_indices(n, ndim=2):
    """Indices of the main diagonal of an n x ... x n array: `ndim` copies of arange(n)."""
    idx = np.arange(_int(n, "diag_indices", "n"), dtype=np.int32)
    return tuple(Tensor(idx.copy()) for _ in range(_int(ndim, "diag_indices", "ndim")))


def meshgrid(*xi, sparse=False, indexing="xy"):
    """Coordinate matrices from coordinate vectors (`indexing` 'xy' or 'ij')."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For 'meshgrid', 'indexing' must be 'xy' or 'ij', but got {indexing!r}")
    vecs = [_to_tensor(x).reshape(-1) for x in xi]
    n = len(vecs)
    shapes = [[1] * n for _ in vecs]
    for i, v in enumerate(vecs):
        shapes[i][i] = v.shape[0]
    if indexing == "xy" and n > 1:
        for s in shapes:
            s[0], s[1] = s[1], s[0]
    out = [v.reshape(tuple(s)) for v, s in zip(vecs, shapes)]
    if not sparse:
        full_shape = tuple(max(s[d] for s in shapes) for d in range(n))
        out = [ops.broadcast_to(o, full_shape) for o in out]
    return tuple(out)


def _grid_dtype(keys):
    steps = [getattr(k, name) for k in keys for name in ("start", "stop", "step")]
    if any(isinstance(s, (float, complex)) for s in steps):
        return np.float32
    return np.int32


class _Grid:
    def __init__(self, sparse):
        self._sparse = sparse

    def __getitem__(self, keys):
        single = isinstance(keys, slice)
        keys = (keys,) if single else tuple(keys)
        if not all(isinstance(k, slice) for k in keys):
            raise TypeError("the grid's index must be slices")
        dt = _grid_dtype(keys)
        grid = (np.ogrid if self._sparse else np.mgrid)[keys if not single else keys[0]]
        if self._sparse:
            if single:
                return Tensor(np.asarray(grid).astype(dt))
            return tuple(Tensor(np.asarray(g).astype(dt)) for g in grid)
        return Tensor(np.asarray(grid).astype(dt))


class MGridClass(_Grid):
    """`mgrid[0:3, 0:2]`: a dense multi-dimensional grid as one Tensor."""

    def __init__(self):
        super().__init__(False)


class OGridClass(_Grid):
    """`ogrid[0:3, 0:2]`: an open grid, a tuple of Tensors that broadcast together."""

    def __init__(self):
        super().__init__(True)


mgrid = MGridClass()
ogrid = OGridClass()


def indices(dimensions, dtype=mstype.int32, sparse=False):
    """The index grid of an array of shape `dimensions`, one Tensor per dimension."""
    dims = _shape_of(dimensions, "indices")
    grid = np.indices(dims, sparse=sparse)
    np_dt = mstype.to_np(_as_dtype(dtype))
    return tuple(Tensor(np.asarray(g).astype(np_dt)) for g in grid)


def ix_(*args):
    """An open mesh from 1-D index sequences."""
    out = []
    for i, a in enumerate(args):
        t = _to_tensor(a)
        if t.ndim != 1:
            raise ValueError("For 'ix_', the arguments must be 1-D")
        shape = [1] * len(args)
        shape[i] = t.shape[0]
        out.append(t.reshape(tuple(shape)))
    return tuple(out)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D `x`: columns x**(N-1), ..., x**0 (reversed when
    `increasing`)."""
    x = _to_tensor(x)
    if x.ndim != 1:
        raise ValueError("For 'vander', 'x' must be 1-D")
    n = x.shape[0] if N is None else _int(N, "vander", "N")
    cols = []
    if n:
        cols.append(ops.ones_like(x))
    for _ in range(1, n):
        cols.append(cols[-1] * x)
    if not increasing:
        cols = cols[::-1]
    if not cols:
        return Tensor(np.zeros((x.shape[0], 0), mstype.to_np(x.dtype)))
    return ops.stack(cols, 1)


def _window(M, fn):
    m = _int(M, "window", "M")
    if m < 1:
        return Tensor(np.zeros(0, np.float32))
    if m == 1:
        return Tensor(np.ones(1, np.float32))
    return Tensor(fn(m).astype(np.float32))


def bartlett(M):
    """The Bartlett (triangular) window of M points."""
    return _window(M, lambda m: 1 - np.abs(2 * np.arange(m) / (m - 1) - 1))


def blackman(M):
    """The Blackman window of M points."""
    return _window(M, lambda m: (0.42 - 0.5 * np.cos(2 * np.pi * np.arange(m) / (m - 1))
                                 + 0.08 * np.cos(4 * np.pi * np.arange(m) / (m - 1))))


def hamming(M):
    """The Hamming window of M points."""
    return _window(M, lambda m: 0.54 - 0.46 * np.cos(2 * np.pi * np.arange(m) / (m - 1)))


def hanning(M):
    """The Hann window of M points."""
    return _window(M, lambda m: 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(m) / (m - 1)))


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The bin edges `histogram` uses: `bins` equal bins over `range` (the data's min and max by
    default), or the given edges."""
    a = _to_float(_to_tensor(a))
    if isinstance(bins, (list, tuple, Tensor)):
        edges = _to_float(_to_tensor(bins))
        if edges.ndim != 1:
            raise ValueError("For 'histogram_bin_edges', 'bins' must be 1-D")
        return edges
    bins = _int(bins, "histogram_bin_edges", "bins")
    if bins < 1:
        raise ValueError("For 'histogram_bin_edges', 'bins' must be positive")
    if range is None:
        lo, hi = (ops.amin(a), ops.amax(a)) if a.size else (_const(0, a.dtype),
                                                               _const(1, a.dtype))
    else:
        lo, hi = (_const(float(r), a.dtype) for r in range)
        if float(range[0]) > float(range[1]):
            raise ValueError("For 'histogram_bin_edges', max must be larger than min in "
                             "'range'")
    lo, hi = ops.stop_gradient(lo), ops.stop_gradient(hi)
    same = (hi - lo).asnumpy() == 0
    if same:
        lo, hi = lo - 0.5, hi + 0.5
    return linspace(lo, hi, bins + 1)


_PAD_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
              "reflect", "symmetric", "wrap", "empty")


def _pairs(value, ndim, name, kind=int):
    arr = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
    try:
        arr = np.broadcast_to(arr, (ndim, 2))
    except ValueError:
        raise ValueError(f"For 'pad', '{name}' cannot be broadcast to ({ndim}, 2)") from None
    return [(kind(p[0]), kind(p[1])) for p in arr]


def _stat_pad(x, axis, before, after, length, mode):
    n = x.shape[axis]
    reduce = {"maximum": ops.amax, "minimum": ops.amin}

    def stat(part):
        if mode in reduce:
            return reduce[mode](part, axis, True)
        if mode == "mean":
            return ops.mean(_to_float(part), axis, True)
        return _median_keep(part, axis)

    def take(start, stop):
        return ops.narrow(x, axis, start, stop - start)

    parts = []
    if before:
        sl = n if length[0] is None else max(1, min(length[0], n))
        parts.append(_repeat_axis(_cast(stat(take(0, sl)), x.dtype), axis, before))
    parts.append(x)
    if after:
        sl = n if length[1] is None else max(1, min(length[1], n))
        parts.append(_repeat_axis(_cast(stat(take(n - sl, n)), x.dtype), axis, after))
    return ops.concat(parts, axis)


def _median_keep(part, axis):
    srt = ops.sort(_to_float(part), axis)[0]
    n = srt.shape[axis]
    lo = ops.narrow(srt, axis, (n - 1) // 2, 1)
    hi = ops.narrow(srt, axis, n // 2, 1)
    return (lo + hi) / 2


def _repeat_axis(piece, axis, times):
    shape = list(piece.shape)
    shape[axis] = times
    return ops.broadcast_to(piece, tuple(shape))


def _ramp_pad(x, axis, before, after, ends):
    n = x.shape[axis]
    work = _to_float(x)

    def ramp(count, frac, edge, end):
        shape = [1] * x.ndim
        shape[axis] = count
        grid = _const(frac.reshape(shape), work.dtype)
        end = _const(end, work.dtype)
        return _cast(end + (edge - end) * grid, x.dtype)

    parts = []
    if before:
        edge = ops.narrow(work, axis, 0, 1)
        parts.append(ramp(before, np.arange(before) / before, edge, ends[0]))
    parts.append(x)
    if after:
        edge = ops.narrow(work, axis, n - 1, 1)
        parts.append(ramp(after, 1 - np.arange(1, after + 1) / after, edge, ends[1]))
    return ops.concat(parts, axis)


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type="even", **kwargs):
    """`arr` padded by `pad_width` ((before, after) per axis) in one of NumPy's modes
    (a callable `mode` is not supported)."""
    x = _to_tensor(arr)
    if callable(mode) or mode not in _PAD_MODES:
        raise ValueError(f"For 'pad', 'mode' must be one of {_PAD_MODES}, but got {mode!r}")
    if reflect_type not in ("even", "odd"):
        raise ValueError("For 'pad', 'reflect_type' must be 'even' or 'odd'")
    if reflect_type == "odd" and mode in ("reflect", "symmetric"):
        raise ValueError("For 'pad', reflect_type='odd' is not supported")
    if x.ndim == 0:
        return x
    widths = _pairs(pad_width, x.ndim, "pad_width")
    if any(b < 0 or a < 0 for b, a in widths):
        raise ValueError("For 'pad', 'pad_width' cannot be negative")
    if mode in ("maximum", "minimum", "mean", "median"):
        lengths = ([(None, None)] * x.ndim if stat_length is None
                   else _pairs(stat_length, x.ndim, "stat_length"))
    values = _pairs(constant_values, x.ndim, "constant_values", float)
    ends = _pairs(end_values, x.ndim, "end_values", float)
    for axis, (before, after) in enumerate(widths):
        if not before and not after:
            continue
        n = x.shape[axis]
        if mode in ("constant", "empty"):
            fill = values[axis] if mode == "constant" else (0, 0)
            parts = []
            for count, value in ((before, fill[0]), (0, None), (after, fill[1])):
                if value is None:
                    parts.append(x)
                elif count:
                    shape = list(x.shape)
                    shape[axis] = count
                    parts.append(Tensor(np.full(shape, value, mstype.to_np(x.dtype))))
            x = ops.concat(parts, axis)
        elif mode in ("maximum", "minimum", "mean", "median"):
            x = _stat_pad(x, axis, before, after, lengths[axis], mode)
        elif mode == "linear_ramp":
            x = _ramp_pad(x, axis, before, after, ends[axis])
        else:
            if n == 0:
                raise ValueError(f"For 'pad', mode {mode!r} cannot pad an empty axis")
            np_mode = {"edge": "edge", "reflect": "reflect", "symmetric": "symmetric",
                       "wrap": "wrap"}[mode]
            idx = np.pad(np.arange(n), (before, after), mode=np_mode)
            x = ops.gather(x, Tensor(idx.astype(np.int32)), axis)
    return x


def _random_shape(shape, name):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    return _shape_of(tuple(shape), name)


def rand(*shape, dtype=mstype.float32):
    """Samples from the uniform distribution on [0, 1)."""
    dtype = _as_dtype(dtype)
    if mstype.to_np(dtype).kind != "f":
        raise TypeError(f"For 'rand', 'dtype' must be a float type, but got {dtype}")
    return ops.rand(*_random_shape(shape, "rand"), dtype=dtype)


def randn(*shape, dtype=mstype.float32):
    """Samples from the standard normal distribution."""
    dtype = _as_dtype(dtype)
    if mstype.to_np(dtype).kind != "f":
        raise TypeError(f"For 'randn', 'dtype' must be a float type, but got {dtype}")
    return ops.randn(*_random_shape(shape, "randn"), dtype=dtype)


def randint(minval, maxval=None, shape=None, dtype=mstype.int32):
    """Random integers in [minval, maxval) ([0, minval) when `maxval` is None)."""
    lo = _int(minval, "randint", "minval")
    if maxval is None:
        lo, hi = 0, lo
    else:
        hi = _int(maxval, "randint", "maxval")
    if hi <= lo:
        raise ValueError(f"For 'randint', 'maxval' must be greater than 'minval', but got "
                         f"{lo} and {hi}")
    dtype = _as_dtype(dtype)
    if mstype.to_np(dtype).kind not in "iu":
        raise TypeError(f"For 'randint', 'dtype' must be an int type, but got {dtype}")
    size = () if shape is None else _shape_of(shape, "randint")
    return ops.randint(lo, hi, size, dtype=dtype)
