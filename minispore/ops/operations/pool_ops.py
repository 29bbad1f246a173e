"""Pooling primitives on NCHW arrays, and the sliding-window geometry that convolution shares.

Pooling reduces a strided window view, without Python loops over pixels or batch. Both poolings'
gradients are WindowScatter (each output gradient spread over its window with constant weights:
1/divisor for the mean, the maxima's mask for the max), whose adjoint is WindowGather.
"""
import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..._autodiff.tape import apply, const
from ..._validator import check_one_of
from ..primitive import Primitive, data_function, register, shared


# ---- window geometry (shared with conv_ops) ------------------------------------------------------

def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def ntuple(v, n, name, op):
    """n ints from an int or a sequence of n ints."""
    if _is_int(v):
        return (int(v),) * n
    if isinstance(v, (tuple, list)) and len(v) == n and all(_is_int(e) for e in v):
        return tuple(int(e) for e in v)
    raise TypeError(f"For '{op}', '{name}' must be an int or a tuple of {n} ints, but got {v!r}")


def pair(v, name, op):
    """(a, b) from an int or a pair of ints."""
    return ntuple(v, 2, name, op)


def out_size(n, k, s, d, pad_total):
    return (n + pad_total - d * (k - 1) - 1) // s + 1


def same_padding(n, k, s, d):
    """TF-style 'same' padding (before, after): the odd extra goes after (bottom/right)."""
    total = max((math.ceil(n / s) - 1) * s + (k - 1) * d + 1 - n, 0)
    return total // 2, total - total // 2


def _windows(xp, kh, kw, sh, sw, dh, dw, ho, wo):
    """View of padded NCHW `xp` as (N, C, Ho, Wo, kh, kw) sliding windows (no copy)."""
    n, c = xp.shape[:2]
    s0, s1, s2, s3 = xp.strides
    return as_strided(xp, (n, c, ho, wo, kh, kw), (s0, s1, s2 * sh, s3 * sw, s2 * dh, s3 * dw),
                      writeable=False)


def _pad(x, pad, value=0.0):
    top, bottom, left, right = pad
    if not (top or bottom or left or right):
        return x
    return np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=value)



def _crop(xp, pad, h, w):
    top, _, left, _ = pad
    return xp[:, :, top:top + h, left:left + w]


def _pad_n(pad, n, op, name="pad"):
    """2n non-negative ints (before, after per spatial dim) from an int or 2n ints."""
    if _is_int(pad):
        pads = (int(pad),) * (2 * n)
    elif isinstance(pad, (tuple, list)) and len(pad) == 2 * n and all(_is_int(p) for p in pad):
        pads = tuple(int(p) for p in pad)
    else:
        raise ValueError(f"For '{op}', '{name}' must be an int or {2 * n} ints, but got {pad!r}")
    if min(pads) < 0:
        raise ValueError(f"For '{op}', '{name}' must be non-negative, but got {pad!r}")
    return pads


def _pad4(pad, op):
    return _pad_n(pad, 2, op)



# ---- pooling ---------------------------------------------------------------------------------------

class _PoolGeometry(Primitive):
    """Pooling configuration in MindSpore's form (kernel_size, strides, pad_mode 'valid' or
    'same'), plus explicit keyword-only `pad` (top, bottom, left, right) and `dilation` that the
    layers use (an explicit `pad` overrides `pad_mode`)."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW", *,
                 pad=None, dilation=1):
        super().__init__()
        self.kernel_size = pair(kernel_size, "kernel_size", self.name)
        self.strides = pair(strides, "strides", self.name)
        pad_mode = pad_mode.upper() if isinstance(pad_mode, str) else pad_mode
        self.pad_mode = check_one_of(pad_mode, ("VALID", "SAME"), "pad_mode", self.name)
        self.data_format = data_format
        self._explicit_pad = None if pad is None else _pad4(pad, self.name)
        self.dilation = pair(dilation, "dilation", self.name)
        if min(self.kernel_size + self.strides + self.dilation) < 1:
            raise ValueError(f"For '{self.name}', kernel_size, strides and dilation must be "
                             "positive")

    @property
    def stride(self):
        return self.strides

    def _pad_for(self, h, w):
        if self._explicit_pad is not None:
            return self._explicit_pad
        if self.pad_mode == "SAME":
            (kh, kw), (sh, sw), (dh, dw) = self.kernel_size, self.strides, self.dilation
            return same_padding(h, kh, sh, dh) + same_padding(w, kw, sw, dw)
        return (0, 0, 0, 0)

    def _geometry(self, x):
        if x.ndim != 4:
            raise ValueError(f"For '{self.name}', the input must be 4-D (NCHW), but got shape "
                             f"{x.shape}")
        (kh, kw), (sh, sw), (dh, dw) = self.kernel_size, self.strides, self.dilation
        t, b, l, r = self._full_pad(x.shape)
        ho = out_size(x.shape[2], kh, sh, dh, t + b)
        wo = out_size(x.shape[3], kw, sw, dw, l + r)
        if ho <= 0 or wo <= 0:
            raise ValueError(f"For '{self.name}', the window {kh}x{kw} is larger than the padded "
                             f"input of shape {x.shape}")
        return kh, kw, sh, sw, dh, dw, ho, wo

    def _full_pad(self, shape):
        return self._pad_for(shape[2], shape[3])


def _pool_windows(prim, x, fill=0.0):
    """(N, C, Ho, Wo, kh, kw) view of x padded per `prim`'s geometry, and the padding."""
    kh, kw, sh, sw, dh, dw, ho, wo = prim._geometry(x)
    pads = prim._full_pad(x.shape)
    return _windows(_pad(x, pads, fill), kh, kw, sh, sw, dh, dw, ho, wo), pads


def _tiles(prim, shape):
    """True when the windows tile the input exactly (stride = kernel, no padding or dilation):
    pooling is then a reshape, with no window copied or looped over."""
    (kh, kw), (sh, sw), (dh, dw) = prim.kernel_size, prim.strides, prim.dilation
    return ((kh, kw) == (sh, sw) and (dh, dw) == (1, 1) and not any(prim._full_pad(shape))
            and shape[2] % kh == 0 and shape[3] % kw == 0)


def _channels_last(a):
    """True when NCHW `a` is laid out channels-last in memory, as convolution outputs are."""
    return not a.flags.c_contiguous and a.transpose(0, 2, 3, 1).flags.c_contiguous


def _channels_outer(a):
    """True when NCHW `a` is laid out (C, N, H, W) in memory, as a one-channel convolution's
    output is. Tiled pooling works per (H, W) plane, so such an array is pooled as the
    C-contiguous (C, N, H, W) array it is in memory, and the results swapped back."""
    return not a.flags.c_contiguous and a.swapaxes(0, 1).flags.c_contiguous


def _tiles_in_memory_order(a, kh, kw, channels_last):
    """A tiled (N, C, H, W) array as a view in its memory order: (N, Ho, kh, Wo, kw, C) when
    channels-last, else (N, C, Ho, kh, Wo, kw) (copied to C order if it is neither)."""
    if channels_last:
        return a.transpose(0, 2, 3, 1).reshape(_tiled_shape(a.shape, kh, kw, True))
    return a.reshape(_tiled_shape(a.shape, kh, kw, False))


def _per_tile(a, channels_last):
    """(N, C, Ho, Wo) `a` broadcast against _tiles_in_memory_order's layout."""
    if channels_last:
        return a.transpose(0, 2, 3, 1)[:, :, None, :, None, :]
    return a[:, :, :, None, :, None]


def _as_window_weights(tiled, channels_last):
    """The (N, C, Ho, Wo, kh, kw) view of a memory-order tiled array."""
    return tiled.transpose((0, 5, 1, 3, 2, 4) if channels_last else (0, 1, 2, 4, 3, 5))


def _tile_memory(x, kh, kw):
    """A tiled NCHW x's memory as a flat array and its geometry (R, kh, Wo, kw, B): the memory
    order is R tile rows of kh input rows, each Wo tiles of kw pixels of B contiguous elements
    (B = C when x is channels-last, else 1; x is copied to C order if it is neither). The tap
    (p, q) of the tile anchored at flat index a (its tap (0, 0)) is at a + p*Wo*kw*B + q*B."""
    n, c, h, w = x.shape
    cl = _channels_last(x)
    mem = x.transpose(0, 2, 3, 1) if cl else x
    if not mem.flags.c_contiguous:
        mem = np.ascontiguousarray(mem)
    geometry = (n * (h // kh) * (1 if cl else c), kh, w // kw, kw, c if cl else 1)
    return mem.reshape(-1), geometry, cl


def _tap_offsets(geometry):
    """Each tap's flat offset from its tile's anchor, in row-major window order."""
    _, kh, wo, kw, b = geometry
    return [p * wo * kw * b + q * b for p in range(kh) for q in range(kw)]


def _anchored_max(flat, geometry):
    """m (len(flat) - the last tap's offset,) whose element at each tile's anchor is the tile's
    maximum (elsewhere a maximum over some other elements). Whole contiguous arrays shifted by
    the taps' offsets: NumPy runs these at memory speed, where the taps as strided views have
    inner runs of one pixel (C elements, 6 at LeNet's first layer) and cost ~10x more per
    element. Each row's maximum, then the rows': np.maximum keeps the first of equal operands
    (and the first NaN), so this is the first maximum in window order, bit for bit the result
    of taking the taps' maxima one by one in that order, in kh + kw - 2 passes, not kh*kw - 1."""
    _, kh, wo, kw, b = geometry
    row = wo * kw * b
    lt = len(flat) - (kh - 1) * row - (kw - 1) * b
    rows = flat[:lt + (kh - 1) * row]
    for q in range(1, kw):
        rows = np.maximum(rows, flat[q * b:q * b + len(rows)], out=None if q == 1 else rows)
    if kh == 1:
        return rows.copy() if kw == 1 else rows
    m = np.maximum(rows[:lt], rows[row:row + lt])
    for p in range(2, kh):
        np.maximum(m, rows[p * row:p * row + lt], out=m)
    return m


def _anchors(geometry, length):
    """(length,) bool: True at the tiles' anchors, in _tile_memory's flat order."""
    rows, kh, wo, kw, b = geometry
    row = np.zeros((kh, wo, kw, b), bool)
    row[0, :, 0] = True
    return np.tile(row.reshape(-1), rows)[:length]


def _tile_max(x, kh, kw):
    """The maximum of each kh x kw tile, laid out as x (NCHW, or a channels-last view)."""
    if x.size == 0:
        return np.empty(x.shape[:2] + (x.shape[2] // kh, x.shape[3] // kw), x.dtype)
    if _channels_outer(x):
        return _tile_max(x.swapaxes(0, 1), kh, kw).swapaxes(0, 1)
    flat, geometry, cl = _tile_memory(x, kh, kw)
    m = np.empty_like(flat)
    m[:len(flat) - _tap_offsets(geometry)[-1]] = _anchored_max(flat, geometry)
    out = _pixels(m.reshape(geometry)[:, 0, :, 0])  # the anchors
    n, c, h, w = x.shape
    if cl:
        return out.reshape(n, h // kh, w // kw, c).transpose(0, 3, 1, 2)
    return out.reshape(n, c, h // kh, w // kw)


def _pixels(a):
    """A C-contiguous copy of a (..., B) view whose last axis is contiguous: copied pixel by
    pixel as one B-element block each (a void element), ~2x faster than NumPy's float copy for
    short B."""
    pixel = np.dtype((np.void, a.shape[-1] * a.itemsize))
    if a.strides[-1] != a.itemsize or a.shape[-1] == 1:
        return np.ascontiguousarray(a)
    out = np.empty(a.shape, a.dtype)
    out.view(pixel)[..., 0] = a.view(pixel)[..., 0]
    return out


def _hits(candidates, maxima):
    """candidates == maxima, a NaN matching a NaN maximum (a window holding a NaN has NaN for its
    maximum, as np.maximum makes it, and its gradient goes to that NaN)."""
    hit = candidates == maxima
    if maxima.dtype.kind in "fc" and np.isnan(maxima).any():
        hit |= np.isnan(candidates) & np.isnan(maxima)
    return hit


def _max_mask(x, out, prim):
    """Where each window's gradient goes: its first maximum in row-major window order
    (MindSpore's and PyTorch's convention for pooling), as a bool mask (N, C, Ho, Wo, kh, kw), a
    view of an array in x's memory order when tiling. A constant: the mask is piecewise constant
    in x."""
    if _tiles(prim, x.shape):
        return _tile_first_max_mask(x, out, *prim.kernel_size)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win, _ = _pool_windows(prim, x, fill)
    hit = _hits(win, out[..., None, None])
    if np.count_nonzero(hit) != out.size:  # every window has a hit: more hits are ties
        first = hit.reshape(hit.shape[:4] + (-1,)).argmax(-1)
        hit = (np.arange(hit.shape[4] * hit.shape[5]) == first[..., None]).reshape(hit.shape)
    return hit


def _tile_first_max_mask(x, out, kh, kw):
    """_max_mask of tiles, in x's memory order, by whole-array operations on taps shifted to
    their tiles' anchors (see _anchored_max): each tap's hits, cleared where an earlier tap of
    the window hit, then shifted back to the tap's place."""
    if x.size == 0:
        return np.zeros(out.shape + (kh, kw), bool)
    if _channels_outer(x):
        return _tile_first_max_mask(x.swapaxes(0, 1), out.swapaxes(0, 1), kh, kw).swapaxes(0, 1)
    flat, geometry, cl = _tile_memory(x, kh, kw)
    offsets = _tap_offsets(geometry)
    maxima = _anchored_max(flat, geometry)
    lt = len(maxima)
    nan = x.dtype.kind in "fc" and np.isnan(out).any()
    taken = ~_anchors(geometry, lt)  # what is not an anchor counts as taken
    mask = np.zeros(len(flat), bool)
    for i, o in enumerate(offsets):
        if i == len(offsets) - 1:  # every window has a hit: the last tap's is what is left
            first = np.logical_not(taken, out=taken)
        else:
            first = np.equal(flat[o:o + lt], maxima)
            if nan:  # a NaN is its window's maximum (see _hits)
                first |= np.isnan(flat[o:o + lt]) & np.isnan(maxima)
            np.greater(first, taken, out=first)  # a hit, and no earlier one
            taken |= first
        mask[o:o + lt] |= first
    return _as_window_weights(mask.reshape(_tiled_shape(x.shape, kh, kw, cl)), cl)


def _tiled_shape(shape, kh, kw, channels_last):
    """_tiles_in_memory_order's shape."""
    n, c, h, w = shape
    if channels_last:
        return (n, h // kh, kh, w // kw, kw, c)
    return (n, c, h // kh, kh, w // kw, kw)


def _weights_channels_last(weights, g):
    """Whether a tiled scatter lays its result out channels-last: as the (N, C, Ho, Wo, kh, kw)
    weights are laid out when they hold one weight per input element (max pooling), else as
    g is."""
    if weights.transpose(0, 2, 4, 3, 5, 1).flags.c_contiguous:
        return True
    if weights.transpose(0, 1, 2, 4, 3, 5).flags.c_contiguous:
        return False
    return _channels_last(g)


class _MaxPoolBase(_PoolGeometry):
    def _values(self, x):
        if _tiles(self, x.shape):
            return _tile_max(x, *self.kernel_size)
        fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        win, _ = _pool_windows(self, x, fill)
        return win.max(axis=(4, 5))

    def _grad(self, x, out, dvalues):
        return window_scatter(self, dvalues, data_function(_max_mask, x, out, static=(self,)),
                              x.shape)


@register
class MaxPool(_MaxPoolBase):
    """The maximum of each window of NCHW x (padding is -inf).  dx = each output gradient routed
    to its window's first maximum (MindSpore's convention for ties): WindowScatter(dout, mask)."""

    saves = ("x", "out")

    def forward(self, x):
        return self._values(x)

    def bprop(self, saved, dout, needs):
        x, out = saved
        return (self._grad(x, out, dout),)


@register
class MaxPoolWithArgmax(_MaxPoolBase):
    """(the max of each window, the flat index of the first max within its (H * W) plane), as
    MindSpore returns them; the value's gradient is MaxPool's."""

    saves = ("x", "out")

    def forward(self, x):
        values = self._values(x)
        kh, kw, sh, sw, dh, dw, ho, wo = self._geometry(x)
        fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        win, (t, _, l, _) = _pool_windows(self, x, fill)
        k = _hits(win, values[..., None, None]).reshape(win.shape[:4] + (kh * kw,)).argmax(-1)
        rows = np.arange(ho)[:, None] * sh + (k // kw) * dh - t
        cols = np.arange(wo)[None, :] * sw + (k % kw) * dw - l
        return values, (rows * x.shape[3] + cols).astype(np.int64)

    def bprop(self, saved, dout, needs):
        x, out = saved
        return (self._grad(x, out[0], dout[0]),)


@register
class AvgPool(_PoolGeometry):
    """Mean over each window; `count_include_pad` decides whether padded positions count in the
    divisor (`divisor_override` replaces it).  dx = WindowScatter(dout, 1 / divisor)."""

    saves = ("x.shape",)

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", data_format="NCHW", *,
                 pad=None, count_include_pad=True, divisor_override=None, ceil_extra=(0, 0)):
        super().__init__(kernel_size, strides, pad_mode, data_format, pad=pad)
        # TF's 'same' never counts the padding; explicit padding counts unless told otherwise.
        self.count_include_pad = count_include_pad and pad is not None
        self.divisor_override = divisor_override
        # ceil_mode: zero rows/columns past the bottom/right padding, never counted
        self.ceil_extra = tuple(int(e) for e in ceil_extra)

    def _full_pad(self, shape):
        t, b, l, r = self._pad_for(shape[2], shape[3])
        eb, er = self.ceil_extra
        return t, b + eb, l, r + er

    def divisor(self, shape):
        """The divisor of each output position, (Ho, Wo)."""
        kh, kw, sh, sw, dh, dw, ho, wo = self._geometry(np.empty((1, 1) + tuple(shape[2:])))
        if self.divisor_override:
            return np.full((ho, wo), float(self.divisor_override))
        if self.count_include_pad:
            t, b, l, r = self._pad_for(shape[2], shape[3])
            h, w = shape[2], shape[3]
            rows = np.minimum(np.arange(ho) * sh + kh, h + t + b) - np.arange(ho) * sh
            cols = np.minimum(np.arange(wo) * sw + kw, w + l + r) - np.arange(wo) * sw
            return np.outer(rows, cols).astype(np.float64)
        ones = np.ones((1, 1) + tuple(shape[2:]))
        win = _windows(_pad(ones, self._full_pad(shape)), kh, kw, sh, sw, dh, dw, ho, wo)
        return win.sum(axis=(4, 5))[0, 0]

    def forward(self, x):
        win, _ = _pool_windows(self, x)
        total = win.sum(axis=(4, 5))
        return (total / self.divisor(x.shape)).astype(x.dtype, copy=False)

    def bprop(self, saved, dout, needs):
        shape = saved[0]
        weights = (1.0 / self.divisor(shape))[:, :, None, None].astype(dout._data.dtype)
        return (window_scatter(self, dout, const(weights), shape),)


# ---- the linear pair behind pooling gradients ----------------------------------------------------

@register
class WindowScatter(Primitive):
    """Each output position's g spread over its window with `weights` (N|1, C|1, Ho, Wo, kh, kw),
    summed into zeros of x_shape: the gradient of max and average pooling.
    dg = WindowGather(out_bar, weights) (its adjoint)."""

    inputs = ("g", "weights", "x_shape")
    saves = ("weights",)

    def __init__(self, pool):
        super().__init__()
        self.pool = pool

    def forward(self, g, weights, x_shape):
        pool = self.pool
        kh, kw, sh, sw, dh, dw, ho, wo = pool._geometry(np.empty((1, 1) + tuple(x_shape[2:])))
        n, c, h, w = x_shape
        if _tiles(pool, x_shape):  # one broadcast multiply into x's shape, in memory order
            weights = np.broadcast_to(weights, (n, c, ho, wo, kh, kw))
            if g.size and weights.swapaxes(0, 1).transpose(0, 1, 2, 4, 3, 5).flags.c_contiguous \
                    and not weights.transpose(0, 1, 2, 4, 3, 5).flags.c_contiguous:
                # a max-pooling mask laid out (C, N, ...) (see _channels_outer)
                return self.forward(g.swapaxes(0, 1), weights.swapaxes(0, 1),
                                    (c, n, h, w)).swapaxes(0, 1)
            cl = _weights_channels_last(weights, g)
            w_tiled = weights.transpose((0, 2, 4, 3, 5, 1) if cl else (0, 1, 2, 4, 3, 5))
            if w_tiled.flags.c_contiguous and g.size:  # one weight per element: max pooling
                return _scatter_tiles(g, w_tiled, x_shape, cl)
            tiled = np.empty((n, ho, kh, wo, kw, c) if cl else (n, c, ho, kh, wo, kw), g.dtype)
            np.multiply(_per_tile(g, cl), w_tiled, out=tiled, casting="unsafe")
            if cl:
                return tiled.reshape(n, h, w, c).transpose(0, 3, 1, 2)
            return tiled.reshape(x_shape)
        t, b, l, r = pads = pool._full_pad(x_shape)
        spread = np.broadcast_to(g[..., None, None] * weights, g.shape + (kh, kw))
        xp = np.zeros((n, c, h + t + b, w + l + r), spread.dtype)
        for p in range(kh):
            for q in range(kw):
                xp[:, :, p * dh:p * dh + sh * (ho - 1) + 1:sh,
                   q * dw:q * dw + sw * (wo - 1) + 1:sw] += spread[..., p, q]
        return np.ascontiguousarray(_crop(xp, pads, h, w)).astype(g.dtype, copy=False)

    def bprop(self, saved, out_bar, needs):
        return apply(shared(WindowGather, self.pool), (out_bar, saved[0])), None, None


@register
class WindowGather(Primitive):
    """Per output position, the sum over its window of x times `weights`: the adjoint of
    WindowScatter.  dx = WindowScatter(dout, weights, x.shape)."""

    inputs = ("x", "weights")
    saves = ("x.shape", "weights")

    def __init__(self, pool):
        super().__init__()
        self.pool = pool

    def forward(self, x, weights):
        if _tiles(self.pool, x.shape):
            kh, kw = self.pool.kernel_size
            x6 = _tiles_in_memory_order(x, kh, kw, False)
            w6 = np.broadcast_to(weights, x6.shape[:3] + (x6.shape[4], kh, kw)).transpose(
                0, 1, 2, 4, 3, 5)
            return np.sum(x6 * w6, axis=(3, 5)).astype(x.dtype, copy=False)
        win, _ = _pool_windows(self.pool, x)
        return np.sum(win * weights, axis=(4, 5)).astype(x.dtype, copy=False)

    def bprop(self, saved, dout, needs):
        shape, weights = saved
        return window_scatter(self.pool, dout, weights, shape), None


def _scatter_tiles(g, w_tiled, x_shape, channels_last):
    """WindowScatter of tiles with one weight per element of x, the weights laid out in memory
    as _tiles_in_memory_order lays x: g repeated over each tile row's kw pixels (whole pixels
    copied, see _pixels), then one multiply with g broadcast over the tile's kh rows, an outer
    axis, so that NumPy's inner loops run over whole rows instead of single pixels."""
    n, c, h, w = x_shape
    gm = g.transpose(0, 2, 3, 1) if channels_last else g
    b = c if channels_last else 1
    kh, kw = (w_tiled.shape[2], w_tiled.shape[4]) if channels_last else w_tiled.shape[3::2]
    rows = n * (h // kh) * (1 if channels_last else c)
    pixels = np.ascontiguousarray(gm).reshape(-1, 1, b)
    if b == 1:  # kw strided stores: a broadcast copy would run 1-element inner loops
        spread = np.empty((len(pixels), kw, 1), g.dtype)
        for q in range(kw):
            spread[:, q] = pixels[:, 0]
    else:
        spread = _pixels(np.broadcast_to(pixels, (len(pixels), kw, b)))
    out = np.empty((rows, kh, w * b), g.dtype)
    np.multiply(spread.reshape(rows, 1, w * b), w_tiled.reshape(rows, kh, w * b), out=out,
                casting="unsafe")
    if channels_last:
        return out.reshape(n, h, w, c).transpose(0, 3, 1, 2)
    return out.reshape(x_shape)


def window_scatter(pool, g, weights, x_shape):
    return apply(shared(WindowScatter, pool), (g, weights, tuple(x_shape)))
