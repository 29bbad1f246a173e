"""Convolution (2-D and 3-D), im2col/col2im and pooling primitives on channels-first arrays,
without Python loops over pixels or batch.

Convolution is im2col through a strided view and one GEMM, for any number of spatial dims. Its
three primitives are each other's adjoints: Conv2D(x, w), Conv2DBackpropInput(g, w) (the
gradient w.r.t. x, and the transposed convolution) and Conv2DBackpropFilter(g, x) (the gradient
w.r.t. w), so gradients of any order stay inside the family; Conv3D and its two adjoints are the
same classes over three spatial dims. Im2Col and Col2Im (`ops.unfold`, `ops.fold`) are each
other's adjoints too. Pooling reduces a strided window view; both poolings' gradients are
WindowScatter (each output gradient spread over its window with constant weights: 1/divisor for
the mean, the maxima's mask for the max), whose adjoint is WindowGather.
"""
import itertools
import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..._autodiff import tape as _tape
from ..._autodiff.tape import apply
from ..primitive import Primitive, register, shared


# ---- geometry --------------------------------------------------------------------------------------

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


def _pad_channels_last(x, pads):
    """Channels-first x as a C-contiguous channels-last array, zero-padded by `pads` (before,
    after per spatial dim; a view when x is already channels-last and needs no padding)."""
    nd = x.ndim - 2
    xh = x.transpose(0, *range(2, nd + 2), 1)
    if any(pads):
        return np.pad(xh, ((0, 0),) + tuple(zip(pads[::2], pads[1::2])) + ((0, 0),))
    return xh if xh.flags.c_contiguous else np.ascontiguousarray(xh)


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
        if pad_mode not in ("valid", "same", "pad"):
            raise ValueError(f"For '{self.name}', 'pad_mode' must be 'valid', 'same' or 'pad', "
                             f"but got {pad_mode!r}")
        self.pad_mode = pad_mode
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
        self.group = int(group)
        if self.group < 1:
            raise ValueError(f"For '{self.name}', 'group' must be positive, got {group!r}")
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
        n, c = x.shape[:2]
        outs = self._out_sizes(x.shape[2:], ks)
        xh = _pad_channels_last(x, self._pads(x.shape[2:], ks))
        cg = c // self.groups
        st = xh.strides
        sp = st[1:-1]
        # perf: an ndarray over xh's buffer is the same view as as_strided's, ~10x cheaper
        win = np.ndarray((n, *outs, self.groups, *ks, cg), xh.dtype, xh, 0,
                         (st[0], *(a * s for a, s in zip(sp, self.stride)), st[-1] * cg,
                          *(a * d for a, d in zip(sp, self.dilation)), st[-1]))
        return win.reshape(n * math.prod(outs), self.groups, math.prod(ks) * cg), outs

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
            raise TypeError(f"For '{self.name}', the input and weight must be Tensors, but got "
                            f"{type(x).__name__} and {type(w).__name__}")
        if _tape._casting:  # inside a to_float cell or amp 'auto': the patches of the cast x
            x, w = _tape._compute_args(self, (x, w))
        self._check(x._data, w._data, self.name)
        ks = w._data.shape[2:]
        outs = self._out_sizes(x._data.shape[2:], ks)
        cols = self._im2col(x._data, ks)[0] if min(outs) > 0 else None
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
        out = _gemm_groups(cols, self._weight_matrix(w))  # (N*prod(outs), O)
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
        g2 = np.ascontiguousarray(g.transpose(0, *range(2, self._nd + 2), 1)).reshape(-1, o)
        return self._col2im(self._patch_gradients(g2, w), tuple(x_shape), w.shape[2:], outs)

    def _patch_gradients(self, g2, w):
        """(prod(k), M, C) gradients of the im2col patches, tap by tap, from g2 (M, O): one
        batched GEMM whose taps come out contiguous for _col2im."""
        o, cg = w.shape[:2]
        taps = math.prod(w.shape[2:])
        g = self.groups
        c = cg * g
        if c == 1:  # one output column per tap: a single GEMM, (T, O) @ (O, M)
            return (w.reshape(o, taps).T @ g2.T)[:, :, None]
        if g == 1:
            return np.matmul(g2, w.reshape(o, cg, taps).transpose(2, 0, 1))
        w_taps = w.reshape(g, o // g, cg, taps).transpose(3, 0, 1, 2)  # (T, G, O/G, C/G)
        per_group = np.matmul(g2.reshape(-1, g, o // g).transpose(1, 0, 2), w_taps)
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
        g2 = np.ascontiguousarray(g.transpose(0, *range(2, self._nd + 2), 1)).reshape(
            -1, self.groups, o // self.groups)
        dw = np.matmul(g2.transpose(1, 2, 0), cols.transpose(1, 0, 2))  # (G, O/G, T*C/G)
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
    from ...common.tensor import Tensor
    if isinstance(size, Tensor):
        if size._data.dtype.kind not in "iu" or size._data.size != 2:
            raise TypeError(f"For '{op}', 'output_size' must hold 2 ints, but got a Tensor of "
                            f"shape {size.shape} and dtype {size.dtype}")
        size = tuple(int(v) for v in size._data.reshape(-1))
    size = pair(size, "output_size", op)
    if min(size) < 1:
        raise ValueError(f"For '{op}', 'output_size' must be positive, but got {size}")
    return size


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
