"""Convolution and pooling primitives on NCHW arrays, without Python loops over pixels or batch.

Convolution is im2col through a strided view and one GEMM. Its three primitives are each other's
adjoints: Conv2D(x, w), Conv2DBackpropInput(g, w) (the gradient w.r.t. x, and the transposed
convolution) and Conv2DBackpropFilter(g, x) (the gradient w.r.t. w), so gradients of any order
stay inside the family. Pooling reduces a strided window view; both poolings' gradients are
WindowScatter (each output gradient spread over its window with constant weights: 1/divisor for
the mean, the maxima's mask for the max), whose adjoint is WindowGather.
"""
import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..._autodiff.tape import apply
from ..primitive import Primitive, register, shared
from . import array_ops as A


# ---- geometry --------------------------------------------------------------------------------------

def pair(v, name, op):
    """(a, b) from an int or a pair of ints."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return int(v), int(v)
    if isinstance(v, (tuple, list)) and len(v) == 2 and all(
            isinstance(e, (int, np.integer)) and not isinstance(e, bool) for e in v):
        return int(v[0]), int(v[1])
    raise TypeError(f"For '{op}', '{name}' must be an int or a pair of ints, but got {v!r}")


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


def _pad_channels_last(x, pad):
    """NCHW x as a C-contiguous (N, H, W, C) array, zero-padded by (top, bottom, left, right)
    (a view when x is already channels-last and needs no padding)."""
    top, bottom, left, right = pad
    xh = x.transpose(0, 2, 3, 1)
    if top or bottom or left or right:
        return np.pad(xh, ((0, 0), (top, bottom), (left, right), (0, 0)))
    return xh if xh.flags.c_contiguous else np.ascontiguousarray(xh)


def _crop(xp, pad, h, w):
    top, _, left, _ = pad
    return xp[:, :, top:top + h, left:left + w]


def _pad4(pad, op):
    if isinstance(pad, (int, np.integer)) and not isinstance(pad, bool):
        pads = (int(pad),) * 4
    elif isinstance(pad, (tuple, list)) and len(pad) == 4:
        pads = tuple(int(p) for p in pad)
    else:
        raise ValueError(f"For '{op}', 'pad' must be an int or 4 ints (top, bottom, left, "
                         f"right), but got {pad!r}")
    if min(pads) < 0:
        raise ValueError(f"For '{op}', 'pad' must be non-negative, but got {pad!r}")
    return pads


class _ConvGeometry(Primitive):
    """The convolution family's configuration, in MindSpore's form: out_channel, kernel_size,
    mode, pad_mode ('valid', 'same' (TF-style, resolved per input) or 'pad' with `pad`: an int
    or (top, bottom, left, right)), stride, dilation, group."""

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
                 dilation=1, group=1, data_format="NCHW"):
        super().__init__()
        self.out_channel = out_channel
        self.kernel_size = pair(kernel_size, "kernel_size", self.name)
        self.mode = mode
        pad_mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
        if pad_mode not in ("valid", "same", "pad"):
            raise ValueError(f"For '{self.name}', 'pad_mode' must be 'valid', 'same' or 'pad', "
                             f"but got {pad_mode!r}")
        self.pad_mode = pad_mode
        self.pad = _pad4(pad, self.name)
        if pad_mode != "pad" and any(self.pad):
            raise ValueError(f"For '{self.name}', 'pad' must be 0 unless pad_mode is 'pad', but "
                             f"got {pad!r}")
        self.stride = pair(stride, "stride", self.name)
        self.dilation = pair(dilation, "dilation", self.name)
        if min(self.stride + self.dilation) < 1:
            raise ValueError(f"For '{self.name}', 'stride' and 'dilation' must be positive")
        self.group = int(group)
        if self.group < 1:
            raise ValueError(f"For '{self.name}', 'group' must be positive, got {group!r}")
        self.data_format = data_format

    @property
    def groups(self):
        return self.group

    def _pads(self, h, w, kh, kw):
        """(top, bottom, left, right) for an input of height h and width w."""
        if self.pad_mode == "same":
            return (same_padding(h, kh, self.stride[0], self.dilation[0]) +
                    same_padding(w, kw, self.stride[1], self.dilation[1]))
        return self.pad

    def _out_hw(self, h, w, kh, kw):
        (sh, sw), (dh, dw) = self.stride, self.dilation
        t, b, l, r = self._pads(h, w, kh, kw)
        return out_size(h, kh, sh, dh, t + b), out_size(w, kw, sw, dw, l + r)

    def _im2col(self, x, kh, kw):
        """(N*Ho*Wo, G, kh*kw*C/G) patches of x, and (Ho, Wo): one copy from a strided view of
        x channels-last, each patch laid out (kh, kw, C/G) so that the copy reads memory in
        runs of whole pixels (a (C/G, kh, kw) order reads it element by element, 5x slower)."""
        n, c, h, w = x.shape
        ho, wo = self._out_hw(h, w, kh, kw)
        (sh, sw), (dh, dw) = self.stride, self.dilation
        xh = _pad_channels_last(x, self._pads(h, w, kh, kw))
        g = self.groups
        s0, s1, s2, s3 = xh.strides
        win = as_strided(xh, (n, ho, wo, g, kh, kw, c // g),
                         (s0, s1 * sh, s2 * sw, s3 * (c // g), s1 * dh, s2 * dw, s3),
                         writeable=False)
        return win.reshape(n * ho * wo, g, kh * kw * (c // g)), ho, wo

    def _col2im(self, taps, x_shape, kh, kw, ho, wo):
        """The adjoint of _im2col, from per-tap patch gradients `taps` (kh*kw, N*Ho*Wo, C):
        each tap is one strided add of a contiguous block into a channels-last buffer.
        Returns an NCHW view of channels-last memory, as Conv2D's output is."""
        n, c, h, w = x_shape
        (sh, sw), (dh, dw) = self.stride, self.dilation
        t, b, l, r = self._pads(h, w, kh, kw)
        xp = np.zeros((n, h + t + b, w + l + r, c), taps.dtype)
        for p in range(kh):
            for q in range(kw):
                xp[:, p * dh:p * dh + sh * (ho - 1) + 1:sh,
                   q * dw:q * dw + sw * (wo - 1) + 1:sw, :] += taps[p * kw + q].reshape(
                    n, ho, wo, c)
        return xp[:, t:t + h, l:l + w, :].transpose(0, 3, 1, 2)

    def _weight_matrix(self, w):
        """w (O, C/G, kh, kw) as (G, O/G, kh*kw*C/G), in _im2col's patch order."""
        o, cg, kh, kw = w.shape
        g = self.groups
        return w.reshape(g, o // g, cg, kh, kw).transpose(0, 1, 3, 4, 2).reshape(
            g, o // g, kh * kw * cg)

    def _check(self, x, w, op):
        if x.ndim != 4 or w.ndim != 4:
            raise ValueError(f"For '{op}', the input and weight must be 4-D (NCHW, OIHW), but got "
                             f"shapes {x.shape} and {w.shape}")
        if x.dtype != w.dtype:
            raise TypeError(f"For '{op}', the input and weight dtypes differ: {x.dtype} and "
                            f"{w.dtype}")


def _gemm_groups(cols, w2):
    """cols (M, G, K) times w2 (G, O/G, K)^T -> (M, G * O/G)."""
    if cols.shape[1] == 1:
        return cols[:, 0, :] @ w2[0].T
    out = np.matmul(cols.transpose(1, 0, 2), w2.transpose(0, 2, 1))  # (G, M, O/G)
    return out.transpose(1, 0, 2).reshape(cols.shape[0], -1)


@register
class Conv2D(_ConvGeometry):
    """2-D cross-correlation of x (N, C, H, W) with w (O, C/groups, kh, kw), after `pad`
    (top, bottom, left, right).  dx = Conv2DBackpropInput(dout, w);
    dw = Conv2DBackpropFilter(dout, x)."""

    inputs = ("x", "w", "cols")
    saves = ("x", "w", "cols")

    def __call__(self, x, w):
        """Run on Tensors x and w; the im2col patches of x are made once here and enter as a
        constant input, so the weight gradient reuses them instead of rebuilding them."""
        from ...common.tensor import Tensor
        if not isinstance(x, Tensor) or not isinstance(w, Tensor):
            raise TypeError(f"For 'Conv2D', the input and weight must be Tensors, but got "
                            f"{type(x).__name__} and {type(w).__name__}")
        self._check(x._data, w._data, "Conv2D")
        kh, kw = w._data.shape[2:]
        ho, wo = self._out_hw(x._data.shape[2], x._data.shape[3], kh, kw)
        cols = self._im2col(x._data, kh, kw)[0] if ho > 0 and wo > 0 else None
        return apply(self, (x, w, cols))

    def forward(self, x, w, cols=None):
        self._check(x, w, "Conv2D")
        n, c = x.shape[:2]
        o, cg, kh, kw = w.shape
        if (kh, kw) != self.kernel_size or o != self.out_channel:
            raise ValueError(f"For 'Conv2D', the weight of shape {w.shape} does not match "
                             f"out_channel={self.out_channel} and kernel_size={self.kernel_size}")
        if c != cg * self.groups or o % self.groups:
            raise ValueError(f"For 'Conv2D', input channels {c} and weight {w.shape} do not match "
                             f"groups={self.groups}")
        ho, wo = self._out_hw(x.shape[2], x.shape[3], kh, kw)
        if ho <= 0 or wo <= 0:
            raise ValueError(f"For 'Conv2D', the kernel {kh}x{kw} (dilation {self.dilation}) is "
                             f"larger than the padded input of shape {x.shape}")
        if cols is None:
            cols = self._im2col(x, kh, kw)[0]
        out = _gemm_groups(cols, self._weight_matrix(w))  # (N*Ho*Wo, O)
        return out.reshape(n, ho, wo, o).transpose(0, 3, 1, 2)  # NCHW view of NHWC memory

    def bprop(self, saved, dout, needs):
        x, w, cols = saved
        dx = conv_backprop_input(self, dout, w, x.shape) if needs[0] else None
        dw = conv_backprop_filter(self, dout, x, w.shape, cols) if needs[1] else None
        return dx, dw, None


@register
class Conv2DBackpropInput(_ConvGeometry):
    """The adjoint of Conv2D w.r.t. its input: g (N, O, Ho, Wo) and w (O, C/groups, kh, kw) to
    x_shape.  It is also the transposed convolution.  dg = Conv2D(dx_bar, w);
    dw = Conv2DBackpropFilter(g, dx_bar)."""

    inputs = ("g", "w", "x_shape")
    saves = ("g", "w", "x_shape")

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1,
                 stride=1, dilation=1, group=1, data_format="NCHW"):
        super().__init__(out_channel, kernel_size, mode, pad_mode,
                         pad_list if pad_list is not None else pad, stride, dilation, group,
                         data_format)

    def __call__(self, g, w, x_shape):
        return apply(self, (g, w, tuple(x_shape)))

    def forward(self, g, w, x_shape):
        self._check(g, w, "Conv2DBackpropInput")
        n, o, ho, wo = g.shape
        _, cg, kh, kw = w.shape
        if o != w.shape[0]:
            raise ValueError(f"For 'Conv2DBackpropInput', the gradient has {o} channels but the "
                             f"weight {w.shape} has {w.shape[0]} outputs")
        g2 = np.ascontiguousarray(g.transpose(0, 2, 3, 1)).reshape(n * ho * wo, o)
        return self._col2im(self._patch_gradients(g2, w), tuple(x_shape), kh, kw, ho, wo)

    def _patch_gradients(self, g2, w):
        """(kh*kw, M, C) gradients of the im2col patches, tap by tap, from g2 (M, O): one
        batched GEMM whose taps come out contiguous for _col2im."""
        o, cg, kh, kw = w.shape
        g = self.groups
        c = cg * g
        if c == 1:  # one output column per tap: a single GEMM, (kh*kw, O) @ (O, M)
            return (w.reshape(o, kh * kw).T @ g2.T)[:, :, None]
        if g == 1:
            return np.matmul(g2, w.transpose(2, 3, 0, 1).reshape(kh * kw, o, cg))
        w_taps = w.reshape(g, o // g, cg, kh * kw).transpose(3, 0, 1, 2)  # (T, G, O/G, C/G)
        per_group = np.matmul(g2.reshape(-1, g, o // g).transpose(1, 0, 2), w_taps)
        return per_group.transpose(0, 2, 1, 3).reshape(kh * kw, -1, c)  # (T, M, C)

    def bprop(self, saved, dx_bar, needs):
        g, w, _ = saved
        dg = _conv_like(self, Conv2D)(dx_bar, w) if needs[0] else None
        dw = conv_backprop_filter(self, g, dx_bar, w.shape) if needs[1] else None
        return dg, dw, None


@register
class Conv2DBackpropFilter(_ConvGeometry):
    """The adjoint of Conv2D w.r.t. its weight: g (N, O, Ho, Wo) and x (N, C, H, W) to w_shape.
    dg = Conv2D(x, dw_bar);  dx = Conv2DBackpropInput(g, dw_bar)."""

    inputs = ("g", "x", "w_shape", "cols")
    saves = ("g", "x")

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1,
                 stride=1, dilation=1, group=1, data_format="NCHW"):
        super().__init__(out_channel, kernel_size, mode, pad_mode,
                         pad_list if pad_list is not None else pad, stride, dilation, group,
                         data_format)

    def forward(self, g, x, w_shape, cols=None):
        o, cg, kh, kw = w_shape
        ho, wo = g.shape[2:]
        if cols is None:
            cols = self._im2col(x, kh, kw)[0]  # (M, G, C/G*kh*kw)
        n = x.shape[0]
        g2 = np.ascontiguousarray(g.transpose(0, 2, 3, 1)).reshape(n * ho * wo, self.groups,
                                                                   o // self.groups)
        dw = np.matmul(g2.transpose(1, 2, 0), cols.transpose(1, 0, 2))  # (G, O/G, kh*kw*C/G)
        return np.ascontiguousarray(dw.reshape(o, kh, kw, cg).transpose(0, 3, 1, 2))

    def bprop(self, saved, dw_bar, needs):
        g, x = saved
        dg = _conv_like(self, Conv2D)(x, dw_bar) if needs[0] else None
        dx = conv_backprop_input(self, g, dw_bar, x.shape) if needs[1] else None
        return dg, dx, None, None


def _conv_like(prim, cls):
    """A member of the family with prim's geometry (its 'same' padding resolves alike, since
    every member pads by the input x's size), made once per primitive and kept."""
    family = prim.__dict__.setdefault("_family", {})
    member = family.get(cls)
    if member is None:
        if cls is Conv2D:
            member = Conv2D(prim.out_channel, prim.kernel_size, prim.mode, prim.pad_mode,
                            prim.pad, prim.stride, prim.dilation, prim.group)
        else:
            member = cls(prim.out_channel, prim.kernel_size, prim.pad_mode, prim.pad, None,
                         prim.mode, prim.stride, prim.dilation, prim.group)
        family[cls] = member
    return member


def conv_backprop_input(prim, g, w, x_shape):
    return apply(_conv_like(prim, Conv2DBackpropInput), (g, w, tuple(x_shape)))


def conv_backprop_filter(prim, g, x, w_shape, cols=None):
    return apply(_conv_like(prim, Conv2DBackpropFilter), (g, x, tuple(w_shape), cols))


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
        if pad_mode not in ("VALID", "SAME"):
            raise ValueError(f"For '{self.name}', 'pad_mode' must be 'valid' or 'same', but got "
                             f"{pad_mode!r}")
        self.pad_mode = pad_mode
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


def _tiles_in_memory_order(a, kh, kw, channels_last):
    """A tiled (N, C, H, W) array as a view in its memory order: (N, Ho, kh, Wo, kw, C) when
    channels-last, else (N, C, Ho, kh, Wo, kw) (copied to C order if it is neither)."""
    n, c, h, w = a.shape
    if channels_last:
        return a.transpose(0, 2, 3, 1).reshape(n, h // kh, kh, w // kw, kw, c)
    return a.reshape(n, c, h // kh, kh, w // kw, kw)


def _per_tile(a, channels_last):
    """(N, C, Ho, Wo) `a` broadcast against _tiles_in_memory_order's layout."""
    if channels_last:
        return a.transpose(0, 2, 3, 1)[:, :, None, :, None, :]
    return a[:, :, :, None, :, None]


def _as_window_weights(tiled, channels_last):
    """The (N, C, Ho, Wo, kh, kw) view of a memory-order tiled array."""
    return tiled.transpose((0, 5, 1, 3, 2, 4) if channels_last else (0, 1, 2, 4, 3, 5))


def _tile_max(x, kh, kw):
    """The maximum of each kh x kw tile: elementwise maxima of the kh*kw strided taps, laid out
    as x (NumPy's reductions over short strided axes are several times slower)."""
    taps = [x[:, :, p::kh, q::kw] for p in range(kh) for q in range(kw)]
    if len(taps) == 1:
        return taps[0].copy()
    out = np.maximum(taps[0], taps[1])
    for tap in taps[2:]:
        np.maximum(out, tap, out=out)
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
    view when tiling. A constant: the mask is piecewise constant in x. Every window has at least
    one hit, so as many hits as windows means no ties."""
    if _tiles(prim, x.shape):
        kh, kw = prim.kernel_size
        cl = _channels_last(x)
        hit = _hits(_tiles_in_memory_order(x, kh, kw, cl), _per_tile(out, cl))
        if np.count_nonzero(hit) != out.size:
            _keep_first([hit[:, :, p, :, q, :] if cl else hit[:, :, :, p, :, q]
                         for p in range(kh) for q in range(kw)])
        return _as_window_weights(hit, cl)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win, _ = _pool_windows(prim, x, fill)
    hit = _hits(win, out[..., None, None])
    if np.count_nonzero(hit) != out.size:
        first = hit.reshape(hit.shape[:4] + (-1,)).argmax(-1)
        hit = (np.arange(hit.shape[4] * hit.shape[5]) == first[..., None]).reshape(hit.shape)
    return hit


def _keep_first(taps):
    """Clear, in place, each tap's hits that an earlier tap of the same window already has."""
    taken = taps[0].copy()
    for tap in taps[1:]:
        np.greater(tap, taken, out=tap)  # tap and not taken
        taken |= tap


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
        return window_scatter(self, dvalues, _max_mask(x._data, out._data, self), x.shape)


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
        return (window_scatter(self, dout, weights, shape),)


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
            cl = _weights_channels_last(weights, g)
            tiled = np.empty((n, ho, kh, wo, kw, c) if cl else (n, c, ho, kh, wo, kw), g.dtype)
            w_tiled = weights.transpose((0, 2, 4, 3, 5, 1) if cl else (0, 1, 2, 4, 3, 5))
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


def window_scatter(pool, g, weights, x_shape):
    return apply(shared(WindowScatter, pool), (g, weights, tuple(x_shape)))
