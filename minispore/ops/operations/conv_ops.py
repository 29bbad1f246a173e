"""Convolution (2-D and 3-D) and im2col/col2im primitives on channels-first arrays, without
Python loops over pixels or batch (pooling is in pool_ops).

Convolution is im2col through a strided view and one GEMM, for any number of spatial dims. Its
three primitives are each other's adjoints: Conv2D(x, w), Conv2DBackpropInput(g, w) (the
gradient w.r.t. x, and the transposed convolution) and Conv2DBackpropFilter(g, x) (the gradient
w.r.t. w), so gradients of any order stay inside the family; Conv3D and its two adjoints are the
same classes over three spatial dims. Im2Col and Col2Im (`ops.unfold`, `ops.fold`) are each
other's adjoints too.
"""
import itertools
import math

import numpy as np

from ..._autodiff import tape as _tape
from ..._validator import check_one_of, check_positive_int
from ..._autodiff.tape import apply, const
from ...common.tensor import Tensor
from ..primitive import Primitive, data_function, register, shared
from . import array_ops as A
from ._kernels import gemm
from .pool_ops import _pad, _pad_n, _windows, ntuple, out_size, pair, same_padding
# Importing pool_ops registers the pooling primitives; they stay reachable from this module too
# (`conv_ops.MaxPool`), as they were before pooling moved out.
from .pool_ops import (AvgPool, MaxPool, MaxPoolWithArgmax, WindowGather,  # noqa: F401
                       WindowScatter, window_scatter)


# ---- geometry --------------------------------------------------------------------------------------

def _pad_channels_last(x, pads):
    """Channels-first x as a C-contiguous channels-last array, zero-padded by `pads` (before,
    after per spatial dim; a view when x is already channels-last and needs no padding)."""
    nd = x.ndim - 2
    xh = x.transpose(0, *range(2, nd + 2), 1)
    if any(pads):  # (np.pad keeps its input's memory order: not channels-last from NCHW)
        sizes = tuple(s + b + a for s, b, a in zip(xh.shape[1:-1], pads[::2], pads[1::2]))
        xp = np.zeros((xh.shape[0], *sizes, xh.shape[-1]), x.dtype)
        xp[(slice(None), *(slice(b, b + s) for b, s in zip(pads[::2], xh.shape[1:-1])))] = xh
        return xp
    return xh if xh.flags.c_contiguous else np.ascontiguousarray(xh)


def _tap_slices(tap, dilation, stride, outs):
    """Per spatial dim, the positions that kernel tap `tap` reads for each output position."""
    return tuple(slice(p * d, p * d + s * (o - 1) + 1, s)
                 for p, d, s, o in zip(tap, dilation, stride, outs))


class _ConvGeometry(Primitive):
    """The convolution family's configuration, in MindSpore's form: out_channel, kernel_size,
    mode, pad_mode ('valid', 'same' (TF-style, resolved per input) or 'pad' with `pad`: an int
    or (before, after) per spatial dim: (top, bottom, left, right) in 2-D, (head, tail, top,
    bottom, left, right) in 3-D), stride, dilation, group. `_nd` is the number of spatial dims.
    """

    _nd = 2
    _layout = "NCHW"

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
                 dilation=1, group=1, data_format=None):
        super().__init__()
        nd = self._nd
        self.out_channel = out_channel
        self.kernel_size = ntuple(kernel_size, nd, "kernel_size", self.name)
        self.mode = mode
        pad_mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
        self.pad_mode = check_one_of(pad_mode, ("valid", "same", "pad"), "pad_mode", self.name)
        self.pad = _pad_n(pad, nd, self.name)
        if pad_mode != "pad" and any(self.pad):
            raise ValueError(f"For '{self.name}', 'pad' must be 0 unless pad_mode is 'pad', but "
                             f"got {pad!r}")
        self.stride = ntuple(stride, nd, "stride", self.name)
        self.dilation = ntuple(dilation, nd, "dilation", self.name)
        if min(self.stride + self.dilation + self.kernel_size) < 1:
            raise ValueError(f"For '{self.name}', 'kernel_size', 'stride' and 'dilation' must be "
                             f"positive, but got {self.kernel_size}, {self.stride} and "
                             f"{self.dilation}")
        self.group = check_positive_int(group, "group", self.name)
        data_format = self._layout if data_format is None else data_format
        if data_format != self._layout:
            raise ValueError(f"For '{self.name}', only data_format '{self._layout}' is "
                             f"supported, but got {data_format!r}")
        self.data_format = data_format

    @property
    def groups(self):
        return self.group

    def _fit(self, sizes, ks):
        """(pads, output sizes) for spatial input `sizes` and kernel `ks`: the padding as
        (before, after) per spatial dim, flat. Cached per instance (shared primitives see the
        same few input sizes on every call)."""
        fits = self.__dict__.setdefault("_fits", {})
        key = (tuple(sizes), tuple(ks))
        fit = fits.get(key)
        if fit is None:
            if self.pad_mode == "same":
                pads = sum((same_padding(n, k, s, d) for n, k, s, d in
                            zip(sizes, ks, self.stride, self.dilation)), ())
            else:
                pads = self.pad
            outs = tuple(out_size(n, k, s, d, pads[2 * i] + pads[2 * i + 1]) for i, (n, k, s, d)
                         in enumerate(zip(sizes, ks, self.stride, self.dilation)))
            if len(fits) >= 64:
                fits.clear()
            fit = fits[key] = (pads, outs)
        return fit

    def _pads(self, sizes, ks):
        return self._fit(sizes, ks)[0]

    def _out_sizes(self, sizes, ks):
        return self._fit(sizes, ks)[1]

    def _im2col(self, x, ks):
        """(N*prod(outs), G, prod(ks)*C/G) patches of x, and the output sizes: one copy from a
        strided view of x channels-last, each patch laid out (k..., C/G) so that the copy reads
        memory in runs of whole pixels (a (C/G, k...) order reads it element by element, 5x
        slower)."""
        outs = self._out_sizes(x.shape[2:], ks)
        if x.shape[1] == 1:
            return self._im2col_single_channel(x, ks, outs), outs
        return self._im2col_windows(x, ks, outs), outs

    def _im2col_windows(self, x, ks, outs):
        """_im2col by one copy of the window view (any channel count)."""
        n, c = x.shape[:2]
        xh = _pad_channels_last(x, self._pads(x.shape[2:], ks))
        cg = c // self.groups
        st = xh.strides
        sp = st[1:-1]
        if self.groups == 1 and self.dilation[-1] == 1 and xh.flags.c_contiguous and c:
            # a window's last kernel row (kw whole pixels) is one contiguous run of xh: copied
            # as one void element, NumPy's float copy runs one inner loop per run (2x slower
            # at LeNet's second layer)
            run = np.dtype((np.void, ks[-1] * c * xh.itemsize))
            cols = np.empty((n * math.prod(outs), math.prod(ks) * c), xh.dtype)
            lead = (n, *outs, *ks[:-1])
            cols.view(run).reshape(lead)[...] = np.ndarray(
                lead, run, xh, 0, (st[0], *(a * s for a, s in zip(sp, self.stride)),
                                   *(a * d for a, d in zip(sp[:-1], self.dilation[:-1]))))
            return cols.reshape(len(cols), 1, cols.shape[1])
        # perf: an ndarray over xh's buffer is the same view as as_strided's, ~10x cheaper
        win = np.ndarray((n, *outs, self.groups, *ks, cg), xh.dtype, xh, 0,
                         (st[0], *(a * s for a, s in zip(sp, self.stride)), st[-1] * cg,
                          *(a * d for a, d in zip(sp, self.dilation)), st[-1]))
        return win.reshape(n * math.prod(outs), self.groups, math.prod(ks) * cg)

    def _im2col_single_channel(self, x, ks, outs):
        """_im2col of a one-channel x: the patches filled tap by tap into a (prod(ks), M)
        buffer, each tap one copy of a strided slice of x (rows of whole output lines, ~3x
        faster than copying the window view, whose runs are only a kernel row long), returned
        as its (M, 1, prod(ks)) transposed view, which the GEMMs take as it is."""
        n = x.shape[0]
        plane = x[:, 0]
        pads = self._pads(x.shape[2:], ks)
        if any(pads):
            plane = np.pad(plane, ((0, 0),) + tuple(zip(pads[::2], pads[1::2])))
        taps = np.empty((math.prod(ks), n, *outs), x.dtype)
        if self.stride[-1] == 1 and plane.flags.c_contiguous:
            self._copy_tap_rows(plane, taps, ks, outs)
        else:
            whole = slice(None)
            for t, tap in enumerate(itertools.product(*map(range, ks))):
                taps[t] = plane[(whole, *_tap_slices(tap, self.dilation, self.stride, outs))]
        return taps.reshape(len(taps), -1).T[:, None, :]

    def _copy_tap_rows(self, plane, taps, ks, outs):
        """taps[t] = tap t's strided slice of the C-contiguous `plane`, in one copy whose
        elements are output rows (a row of the last output dim is contiguous in plane when its
        stride is 1): NumPy's float copy of each tap runs one inner loop per row (0.28 ms at
        LeNet's first layer, against 0.10 ms)."""
        row = np.dtype((np.void, outs[-1] * plane.itemsize))
        lead = (*ks, plane.shape[0], *outs[:-1])
        st = plane.strides
        taps.view(row).reshape(lead)[...] = np.ndarray(
            lead, row, plane, 0, (*(a * d for a, d in zip(st[1:], self.dilation)), st[0],
                                  *(a * s for a, s in zip(st[1:-1], self.stride[:-1]))))

    def _col2im(self, taps, x_shape, ks, outs):
        """The adjoint of _im2col, from per-tap patch gradients `taps` (prod(ks), M, C): each
        tap is one strided add of a contiguous block into a channels-last buffer. Returns a
        channels-first view of channels-last memory, as the convolution's output is."""
        n, c = x_shape[:2]
        sizes = x_shape[2:]
        pads = self._pads(sizes, ks)
        padded = tuple(s + b + a for s, b, a in zip(sizes, pads[::2], pads[1::2]))
        xp = np.zeros((n, *padded, c), taps.dtype)
        whole = slice(None)
        for t, tap in enumerate(itertools.product(*map(range, ks))):
            xp[(whole, *_tap_slices(tap, self.dilation, self.stride, outs), whole)] += \
                taps[t].reshape(n, *outs, c)
        crop = tuple(slice(b, b + s) for b, s in zip(pads[::2], sizes))
        return xp[(whole, *crop, whole)].transpose(0, self._nd + 1, *range(1, self._nd + 1))

    def _weight_matrix(self, w):
        """w (O, C/G, k...) as (G, O/G, prod(k)*C/G), in _im2col's patch order."""
        o, cg = w.shape[:2]
        g, nd = self.groups, self._nd
        return w.reshape(g, o // g, *w.shape[1:]).transpose(
            0, 1, *range(3, nd + 3), 2).reshape(g, o // g, -1)

    def _check(self, x, w, op):
        rank = self._nd + 2
        if x.ndim != rank or w.ndim != rank:
            raise ValueError(f"For '{op}', the input and weight must be {rank}-D "
                             f"({self._layout}, and (O, C/group, k...)), but got shapes "
                             f"{x.shape} and {w.shape}")
        if x.dtype != w.dtype:
            raise TypeError(f"For '{op}', the input and weight dtypes differ: {x.dtype} and "
                            f"{w.dtype}")


_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_BAND_LIMIT = 1 << 18  # elements of _banded_rows' band matrix (1 MiB in float32)


def _patches(x, prim, ks):
    return prim._im2col(x, ks)[0]


def _gemm_groups(cols, w2):
    """cols (M, G, K) times w2 (G, O/G, K)^T -> (M, G * O/G)."""
    if cols.shape[1] == 1:
        return gemm(cols[:, 0, :], w2[0].T)
    out = gemm(cols.transpose(1, 0, 2), w2.transpose(0, 2, 1))  # (G, M, O/G)
    return out.transpose(1, 0, 2).reshape(cols.shape[0], -1)


@register
class Conv2D(_ConvGeometry):
    """2-D cross-correlation of x (N, C, H, W) with w (O, C/groups, kh, kw), after `pad`
    (top, bottom, left, right).  dx = Conv2DBackpropInput(dout, w);
    dw = Conv2DBackpropFilter(dout, x)."""

    inputs = ("x", "w", "cols")
    saves = ("x", "w", "cols")
    derived_inputs = (2,)

    def __call__(self, x, w):
        """Run on Tensors x and w; the im2col patches of x are made once here and enter as a
        constant input, so the weight gradient reuses them instead of rebuilding them."""
        if not isinstance(x, Tensor) or not isinstance(w, Tensor):
            raise TypeError(f"For '{self.name}', the input and weight must be Tensors, but got "
                            f"{type(x).__name__} and {type(w).__name__}")
        if _tape._casting:  # inside a to_float cell or amp 'auto': the patches of the cast x
            x, w = _tape._compute_args(self, (x, w))
        self._check(x._data, w._data, self.name)
        ks = w._data.shape[2:]
        outs = self._out_sizes(x._data.shape[2:], ks)
        if min(outs) <= 0:
            cols = None
        elif _tape._capturing and getattr(_tape._state.capture, "derived_as_nodes", False):
            # a graph-mode capture: the patches a node of the trace, so the replay makes them
            # once for the forward and the filter gradient, as eager does
            cols = data_function(_patches, x, static=(self, ks))._data
        else:
            cols = self._im2col(x._data, ks)[0]
        return apply(self, (x, w, cols))

    def forward(self, x, w, cols=None):
        op = self.name
        self._check(x, w, op)
        n, c = x.shape[:2]
        o, cg = w.shape[:2]
        ks = w.shape[2:]
        if ks != self.kernel_size or o != self.out_channel:
            raise ValueError(f"For '{op}', the weight of shape {w.shape} does not match "
                             f"out_channel={self.out_channel} and kernel_size={self.kernel_size}")
        if c != cg * self.groups or o % self.groups:
            raise ValueError(f"For '{op}', input channels {c} and weight {w.shape} do not match "
                             f"groups={self.groups}")
        outs = self._out_sizes(x.shape[2:], ks)
        if min(outs) <= 0:
            raise ValueError(f"For '{op}', the kernel {ks} (dilation {self.dilation}) is larger "
                             f"than the padded input of shape {x.shape}")
        if cols is None:
            cols = self._im2col(x, ks)[0]
        w2 = self._weight_matrix(w)
        if c == 1:
            # the one-channel patches are stored (T, M): W (O, T) @ (T, M) runs ~1.3x faster
            # than (M, T) @ (T, O) at LeNet's first layer, and its (O, M) result, a
            # channels-first view of (C, N, H, W) memory, takes a per-channel bias and ReLU
            # in runs of whole images (channels-last runs are only C long)
            return gemm(w2[0], cols[:, 0, :].T).reshape(o, n, *outs).swapaxes(0, 1)
        out = _gemm_groups(cols, w2)  # (N*prod(outs), O)
        # a channels-first view of channels-last memory
        return out.reshape(n, *outs, o).transpose(0, self._nd + 1, *range(1, self._nd + 1))

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
                 stride=1, dilation=1, group=1, data_format=None):
        super().__init__(out_channel, kernel_size, mode, pad_mode,
                         pad_list if pad_list is not None else pad, stride, dilation, group,
                         data_format)

    def __call__(self, g, w, x_shape):
        return apply(self, (g, w, tuple(x_shape)))

    def forward(self, g, w, x_shape):
        op = self.name
        self._check(g, w, op)
        n, o = g.shape[:2]
        outs = g.shape[2:]
        if o != w.shape[0]:
            raise ValueError(f"For '{op}', the gradient has {o} channels but the weight "
                             f"{w.shape} has {w.shape[0]} outputs")
        if len(x_shape) != self._nd + 2 or x_shape[1] != w.shape[1] * self.groups:
            raise ValueError(f"For '{op}', the input shape {tuple(x_shape)} does not match the "
                             f"weight {w.shape} with groups={self.groups}")
        if self._out_sizes(x_shape[2:], w.shape[2:]) != outs or x_shape[0] != n:
            raise ValueError(f"For '{op}', the gradient of shape {g.shape} does not match the "
                             f"input shape {tuple(x_shape)}")
        x_shape = tuple(x_shape)
        banded = self._banded_rows(g, w, x_shape)
        if banded is not None:
            return banded
        g2 = np.ascontiguousarray(g.transpose(0, *range(2, self._nd + 2), 1)).reshape(-1, o)
        return self._col2im(self._patch_gradients(g2, w), x_shape, w.shape[2:], outs)

    def _banded_rows(self, g, w, x_shape):
        """The 2-D input gradient by GEMMs of g's rows, (N*Ho, J*O) for each part of J output
        columns, with one band matrix (J*O, kh*S*C) that holds w at (j, o) x (p, j*sw + q*dw,
        c), S = (J-1)*sw + (kw-1)*dw + 1 the input columns a part reaches: each product row is
        a padded input row's gradient from kernel row p, added as one block, so _col2im's
        kh*kw strided adds of narrow per-tap GEMMs become kh block adds per part of one
        well-shaped GEMM that does S/kw times their multiplications (J: `_band_part`; LeNet's
        second layer: 0.89 -> 0.54 ms). Taken when the padded width is at most 3 kernel widths
        and the band is small; None otherwise, and when g holds a non-finite value (the band's
        zeros would turn it into NaN beyond its windows)."""
        if self._nd != 2 or self.groups != 1 or g.dtype not in _BLAS_FLOATS or not g.size:
            return None
        n, o, ho, wo = g.shape
        c = x_shape[1]
        kh, kw = w.shape[2:]
        (top, _, left, _), (hp, wp) = self._padded(x_shape[2:], (kh, kw))
        if c == 1 or wp > 3 * kw:
            return None
        (sh, sw), (dh, dw) = self.stride, self.dilation
        part = self._band_part(n * ho, o, c, kh, kw, wo)
        span = (part - 1) * sw + (kw - 1) * dw + 1
        if part * o * kh * span * c > _BAND_LIMIT:
            return None
        rows = np.ascontiguousarray(g.transpose(0, 2, 3, 1)).reshape(n * ho, wo * o)
        if not np.isfinite(rows).all():
            return None
        band = np.zeros(part * o * kh * span * c, g.dtype)
        to, src = self._band_indices(o, c, kh, kw, part, span)
        band[to] = w.reshape(-1)[src]
        band = band.reshape(part, o, kh, span, c)
        xp = np.zeros((n, hp, wp * c), g.dtype)
        for j0 in range(0, wo, part):
            jn = min(part, wo - j0)  # the last part may be narrower: its corner of the band
            reach = (jn - 1) * sw + (kw - 1) * dw + 1
            blocks = gemm(rows[:, j0 * o:(j0 + jn) * o],
                          band[:jn, :, :, :reach].reshape(jn * o, kh * reach * c)).reshape(
                n, ho, kh, reach * c)
            x0 = j0 * sw * c
            for p in range(kh):
                xp[:, p * dh:p * dh + sh * (ho - 1) + 1:sh, x0:x0 + reach * c] += blocks[:, :, p]
        h, wd = x_shape[2:]
        return xp.reshape(n, hp, wp, c)[:, top:top + h, left:left + wd].transpose(0, 3, 1, 2)

    def _band_part(self, rows, o, c, kh, kw, wo):
        """_banded_rows' output columns per part: the J that minimises an estimated cost, the
        GEMMs' multiplications (rows * Wo*O * kh*S*C) plus 30 per element of the block adds
        and 250,000 per NumPy call (ratios of their times on this machine's BLAS and NumPy)."""
        (_, sw), (_, dw) = self.stride, self.dilation

        def cost(part):
            parts = -(-wo // part)
            span = (part - 1) * sw + (kw - 1) * dw + 1
            return (rows * wo * o * kh * span * c + 30 * parts * kh * rows * span * c
                    + 250_000 * parts * (1 + kh))
        return min(range(1, wo + 1), key=cost)

    def _padded(self, sizes, ks):
        """(pads, padded spatial sizes)."""
        pads = self._pads(sizes, ks)
        return pads, tuple(s + b + a for s, b, a in zip(sizes, pads[::2], pads[1::2]))

    def _band_indices(self, o, c, kh, kw, part, span):
        """Flat positions in _banded_rows' band and in w (O, C, kh, kw) of each weight it
        holds, cached per geometry."""
        cache = self.__dict__.setdefault("_bands", {})
        key = (o, c, kh, kw, part, span)
        found = cache.get(key)
        if found is None:
            (_, sw), (_, dw) = self.stride, self.dilation
            j, oo, p, q, cc = np.meshgrid(np.arange(part), np.arange(o), np.arange(kh),
                                          np.arange(kw), np.arange(c), indexing="ij")
            to = ((j * o + oo) * kh + p) * (span * c) + (j * sw + q * dw) * c + cc
            src = ((oo * c + cc) * kh + p) * kw + q
            if len(cache) >= 16:
                cache.clear()
            found = cache[key] = (to.reshape(-1), src.reshape(-1))
        return found

    def _patch_gradients(self, g2, w):
        """(prod(k), M, C) gradients of the im2col patches, tap by tap, from g2 (M, O): one
        batched GEMM whose taps come out contiguous for _col2im."""
        o, cg = w.shape[:2]
        taps = math.prod(w.shape[2:])
        g = self.groups
        c = cg * g
        if c == 1:  # one output column per tap: a single GEMM, (T, O) @ (O, M)
            return gemm(w.reshape(o, taps).T, g2.T)[:, :, None]
        if g == 1:
            return gemm(g2, w.reshape(o, cg, taps).transpose(2, 0, 1))
        w_taps = w.reshape(g, o // g, cg, taps).transpose(3, 0, 1, 2)  # (T, G, O/G, C/G)
        per_group = gemm(g2.reshape(-1, g, o // g).transpose(1, 0, 2), w_taps)
        return per_group.transpose(0, 2, 1, 3).reshape(taps, -1, c)  # (T, M, C)

    def bprop(self, saved, dx_bar, needs):
        g, w, _ = saved
        dg = _conv_like(self, "conv")(dx_bar, w) if needs[0] else None
        dw = conv_backprop_filter(self, g, dx_bar, w.shape) if needs[1] else None
        return dg, dw, None


@register
class Conv2DBackpropFilter(_ConvGeometry):
    """The adjoint of Conv2D w.r.t. its weight: g (N, O, Ho, Wo) and x (N, C, H, W) to w_shape.
    dg = Conv2D(x, dw_bar);  dx = Conv2DBackpropInput(g, dw_bar)."""

    inputs = ("g", "x", "w_shape", "cols")
    derived_inputs = (3,)
    saves = ("g", "x")

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1,
                 stride=1, dilation=1, group=1, data_format=None):
        super().__init__(out_channel, kernel_size, mode, pad_mode,
                         pad_list if pad_list is not None else pad, stride, dilation, group,
                         data_format)

    def forward(self, g, x, w_shape, cols=None):
        o, cg = w_shape[:2]
        ks = tuple(w_shape[2:])
        if cols is None:
            cols = self._im2col(x, ks)[0]  # (M, G, prod(ks)*C/G)
        # (M, G, O/G) rows of g by channel: a view of channels-last or channels-outer memory
        g2 = g.transpose(0, *range(2, self._nd + 2), 1).reshape(-1, self.groups, o // self.groups)
        # (G, T*C/G, M) @ (G, M, O/G), transposed: the one-channel patches are stored (T, M), and
        # a GEMM with them as its left operand runs 1.7x faster at LeNet's first layer (O = 6)
        dw = gemm(cols.transpose(1, 2, 0), g2.transpose(1, 0, 2)).transpose(0, 2, 1)
        return np.ascontiguousarray(
            dw.reshape(o, *ks, cg).transpose(0, self._nd + 1, *range(1, self._nd + 1)))

    def bprop(self, saved, dw_bar, needs):
        g, x = saved
        dg = _conv_like(self, "conv")(x, dw_bar) if needs[0] else None
        dx = conv_backprop_input(self, g, dw_bar, x.shape) if needs[1] else None
        return dg, dx, None, None


class _Conv3DGeometry:
    """Mixed in first: the same convolution over (D, H, W), NCDHW, with `pad` as (head, tail,
    top, bottom, left, right)."""

    _nd = 3
    _layout = "NCDHW"


@register
class Conv3D(_Conv3DGeometry, Conv2D):
    """3-D cross-correlation of x (N, C, D, H, W) with w (O, C/groups, kd, kh, kw), after `pad`
    (head, tail, top, bottom, left, right).  dx = Conv3DBackpropInput(dout, w);
    dw = Conv3DBackpropFilter(dout, x)."""


@register
class Conv3DBackpropInput(_Conv3DGeometry, Conv2DBackpropInput):
    """The adjoint of Conv3D w.r.t. its input (and the 3-D transposed convolution).
    dg = Conv3D(dx_bar, w);  dw = Conv3DBackpropFilter(g, dx_bar)."""


@register
class Conv3DBackpropFilter(_Conv3DGeometry, Conv2DBackpropFilter):
    """The adjoint of Conv3D w.r.t. its weight.  dg = Conv3D(x, dw_bar);
    dx = Conv3DBackpropInput(g, dw_bar)."""


_FAMILIES = {2: {"conv": Conv2D, "input": Conv2DBackpropInput, "filter": Conv2DBackpropFilter},
             3: {"conv": Conv3D, "input": Conv3DBackpropInput, "filter": Conv3DBackpropFilter}}


def _conv_like(prim, role):
    """The family member ('conv', 'input' or 'filter') with prim's geometry (its 'same' padding
    resolves alike, since every member pads by the input x's size), made once and kept."""
    family = prim.__dict__.setdefault("_family", {})
    member = family.get(role)
    if member is None:
        cls = _FAMILIES[prim._nd][role]
        if role == "conv":
            member = cls(prim.out_channel, prim.kernel_size, prim.mode, prim.pad_mode,
                         prim.pad, prim.stride, prim.dilation, prim.group)
        else:
            member = cls(prim.out_channel, prim.kernel_size, prim.pad_mode, prim.pad, None,
                         prim.mode, prim.stride, prim.dilation, prim.group)
        family[role] = member
    return member


def conv_backprop_input(prim, g, w, x_shape):
    return apply(_conv_like(prim, "input"), (g, w, tuple(x_shape)))


def conv_backprop_filter(prim, g, x, w_shape, cols=None):
    return apply(_conv_like(prim, "filter"), (g, x, tuple(w_shape), cols))


# ---- transposed convolution (ops.conv_transpose2d, nn.Conv2dTranspose, nn.Conv3dTranspose) ---

def output_padding_ntuple(output_padding, stride, dilation, op):
    """`output_padding` as one int per spatial dim, each within MindSpore's rule: non-negative
    and smaller than the stride or the dilation of its axis."""
    ops_ = ntuple(output_padding, len(stride), "output_padding", op)
    if any(p < 0 or p >= max(s, d) for p, s, d in zip(ops_, stride, dilation)):
        raise ValueError(f"For '{op}', the 'output_padding' must be non-negative and smaller "
                         f"than 'stride' or 'dilation' on each axis, but got output_padding "
                         f"{ops_} with stride {tuple(stride)} and dilation {tuple(dilation)}")
    return ops_


def transposed_sizes(sizes, ks, stride, dilation, pads, output_padding):
    """Spatial output sizes of a transposed convolution: per dim
    (n - 1) * stride - (before + after) + dilation * (k - 1) + output_padding + 1."""
    return tuple((n - 1) * s - b - a + d * (k - 1) + op + 1 for n, k, s, d, b, a, op in
                 zip(sizes, ks, stride, dilation, pads[::2], pads[1::2], output_padding))


def conv_transpose(g, w, out_shape, pads, stride, dilation, group, output_padding):
    """The transposed convolution of g (N, C_in, ...) with w (C_in, C_out/group, k...) into
    `out_shape`, whose spatial sizes are `transposed_sizes(...)`: the adjoint of a convolution
    of an `out_shape` input padded by `pads` (before, after per dim).

    Output row i is full row i + before of the unpadded transposed convolution, so the
    output_padding rows are full rows that `after` would crop (while output_padding <= after)
    and zeros past the full size. Conv{2,3}DBackpropInput computes the rows that are full rows,
    as the adjoint of a convolution padded by (before, max(after - output_padding, 0)) (so
    consistent for any output_padding, also one at or above the stride), and the zero rows are
    padded on at the end."""
    tails = tuple(max(op - a, 0) for op, a in zip(output_padding, pads[1::2]))
    inner = sum(((b, max(a - op, 0)) for b, a, op in zip(pads[::2], pads[1::2], output_padding)),
                ())
    full = tuple(o - t for o, t in zip(out_shape[2:], tails))
    if min(full) <= 0:  # every output row lies past the full size: all zeros
        return const(np.zeros(out_shape, g._data.dtype))
    prim = shared(Conv3DBackpropInput if len(stride) == 3 else Conv2DBackpropInput, w.shape[0],
                  tuple(w.shape[2:]), "pad", inner, None, 1, tuple(stride), tuple(dilation),
                  group)
    out = apply(prim, (g, w, tuple(out_shape[:2]) + full))
    if any(tails):
        out = A.pad(out, ((0, 0), (0, 0)) + tuple((0, t) for t in tails))
    return out


# ---- im2col and col2im as ops (ops.unfold, ops.fold) ---------------------------------------------

class _PatchGeometry(Primitive):
    """Sliding-block geometry over NCHW: kernel_size, dilation, padding (symmetric: an int or
    (pad_h, pad_w)) and stride, each an int or a pair."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        op = self.name
        self.kernel_size = pair(kernel_size, "kernel_size", op)
        self.dilation = pair(dilation, "dilation", op)
        self.padding = pair(padding, "padding", op)
        self.stride = pair(stride, "stride", op)
        if min(self.kernel_size + self.dilation + self.stride) < 1 or min(self.padding) < 0:
            raise ValueError(f"For '{op}', 'kernel_size', 'dilation' and 'stride' must be "
                             f"positive and 'padding' non-negative, but got {self.kernel_size}, "
                             f"{self.dilation}, {self.stride} and {self.padding}")

    def _blocks(self, h, w, shape):
        """(Ho, Wo): the number of blocks along each spatial dim of an (h, w) input."""
        (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (self.kernel_size, self.dilation, self.padding,
                                                  self.stride)
        ho, wo = out_size(h, kh, sh, dh, 2 * ph), out_size(w, kw, sw, dw, 2 * pw)
        if ho <= 0 or wo <= 0:
            raise ValueError(f"For '{self.name}', the kernel {self.kernel_size} (dilation "
                             f"{self.dilation}) is larger than the padded input of spatial size "
                             f"{(h, w)} (shape {shape})")
        return ho, wo


@register
class Im2Col(_PatchGeometry):
    """The sliding blocks of x (N, C, H, W) as (N, C, kh*kw, L), L blocks in row-major order,
    each block's taps row-major (MindSpore's layout).  dx = Col2Im(dout, (H, W))."""

    saves = ("x.shape",)

    def __init__(self, ksizes, strides=1, dilations=1, pads=0):
        super().__init__(ksizes, dilations, pads, strides)

    def forward(self, x):
        if x.ndim != 4:
            raise ValueError(f"For '{self.name}', the input must be 4-D (NCHW), but got shape "
                             f"{x.shape}")
        n, c, h, w = x.shape
        ho, wo = self._blocks(h, w, x.shape)
        (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (self.kernel_size, self.dilation, self.padding,
                                                  self.stride)
        win = _windows(_pad(x, (ph, ph, pw, pw)), kh, kw, sh, sw, dh, dw, ho, wo)
        return win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c, kh * kw, ho * wo)

    def bprop(self, saved, dout, needs):
        return (apply(shared(Col2Im, self.kernel_size, self.dilation, self.padding, self.stride),
                      (dout, tuple(saved[0][2:]))),)


@register
class Col2Im(_PatchGeometry):
    """The adjoint of Im2Col: blocks x (N, C, kh*kw, L) summed back into an (N, C, *output_size)
    array, overlaps adding up.  dx = Im2Col(dout)."""

    inputs = ("x", "output_size")

    def __call__(self, x, output_size):
        return apply(self, (x, _size_pair(output_size, self.name)))

    def forward(self, x, output_size):
        h, w = output_size
        (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (self.kernel_size, self.dilation, self.padding,
                                                  self.stride)
        ho, wo = self._blocks(h, w, (h, w))
        if x.ndim != 4 or x.shape[2] != kh * kw or x.shape[3] != ho * wo:
            raise ValueError(f"For '{self.name}', the input must be (N, C, {kh * kw}, {ho * wo}) "
                             f"for kernel_size {self.kernel_size} and output_size {(h, w)}, but "
                             f"got shape {x.shape}")
        n, c = x.shape[:2]
        cols = x.reshape(n, c, kh, kw, ho, wo)
        xp = np.zeros((n, c, h + 2 * ph, w + 2 * pw), x.dtype)
        for p in range(kh):
            for q in range(kw):
                xp[(slice(None), slice(None)) + _tap_slices((p, q), (dh, dw), (sh, sw),
                                                            (ho, wo))] += cols[:, :, p, q]
        return np.ascontiguousarray(xp[:, :, ph:ph + h, pw:pw + w])

    def bprop(self, saved, dout, needs):
        (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (self.kernel_size, self.dilation, self.padding,
                                                  self.stride)
        return apply(shared(Im2Col, (kh, kw), (sh, sw), (dh, dw), (ph, pw)), (dout,)), None


def _size_pair(size, op):
    """(H, W) from a pair of ints or an int Tensor of 2 elements (MindSpore passes a Tensor)."""
    if isinstance(size, Tensor):
        if size._data.dtype.kind not in "iu" or size._data.size != 2:
            raise TypeError(f"For '{op}', 'output_size' must hold 2 ints, but got a Tensor of "
                            f"shape {size.shape} and dtype {size.dtype}")
        size = tuple(int(v) for v in size._data.reshape(-1))
    size = pair(size, "output_size", op)
    if min(size) < 1:
        raise ValueError(f"For '{op}', 'output_size' must be positive, but got {size}")
    return size

