"""3-D normalisation and pooling cells, and the 1-D/3-D adaptive pools: BatchNorm3d,
InstanceNorm3d, AvgPool3d, MaxPool3d, AdaptiveMaxPool1d, AdaptiveAvgPool3d, AdaptiveMaxPool3d.

The 3-D pools are separable: a 2-D pool over (H, W) of each depth slice, then a (kd, 1) pool over
depth, both with the 2-D primitives (so gradients, and MaxPool's first-maximum rule for ties, come
from them: the first maximum over (h, w), then over d, is the first in (d, h, w) order).
"""
import numpy as np

from ..._autodiff.tape import apply, const
from ..._validator import check_bool, check_int_range, check_one_of, check_type
from ...common import dtype as mstype
from ...ops.function import layer_func as LF
from ...ops.operations import array_ops as A
from ...ops.operations import conv_ops as C
from ...ops.operations import reduce_ops as R
from ...ops.primitive import data_function, shared
from ..cell import Cell
from .normalization import BatchNorm2d, _InstanceNorm

__all__ = ["BatchNorm3d", "InstanceNorm3d", "AvgPool3d", "MaxPool3d", "AdaptiveMaxPool1d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool3d"]


# ---- normalisation ---------------------------------------------------------------------------------

class BatchNorm3d(Cell):
    """Batch normalisation of (N, C, D, H, W) input: MindSpore's BatchNorm2d child `bn2d` on the
    input seen as (N, C, D * H, W), so the parameters are `bn2d.gamma`, `bn2d.beta`,
    `bn2d.moving_mean`, `bn2d.moving_variance` (see BatchNorm1d for the conventions)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, dtype=mstype.float32):
        super().__init__()
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init,
                                moving_mean_init, moving_var_init, use_batch_statistics,
                                "NCHW", dtype)

    def construct(self, x):
        if x.ndim != 5:
            raise ValueError(f"For 'BatchNorm3d', the in_shape must have 5 dims, but got "
                             f"{x.ndim}.")
        n, c, d, h, w = x.shape
        return A.reshape(self.bn2d(A.reshape(x, (n, c, d * h, w))), x.shape)


class InstanceNorm3d(_InstanceNorm):
    """Normalisation over D, H and W of each channel of each sample (N, C, D, H, W)."""

    _rank = 5


# ---- pooling geometry ------------------------------------------------------------------------------

def _triple(v, name, cls):
    """Three positive ints from an int or a tuple of 1 or 3 ints (MindSpore's _PoolNd check)."""
    check_type(v, (int, tuple), name, cls, "an int or a tuple")
    vals = (v,) * 3 if isinstance(v, int) else tuple(v) * 3 if len(v) == 1 else tuple(v)
    if len(vals) != 3 or not all(isinstance(e, int) and not isinstance(e, bool) and e > 0
                                 for e in vals):
        raise ValueError(f"For '{cls}', the '{name}' must be a positive int or a tuple of 1 or 3 "
                         f"positive ints, but got {v!r}")
    return vals


def _padding3(padding, cls):
    """(pd, ph, pw) from an int or 1 or 3 non-negative ints."""
    check_type(padding, (int, tuple, list), "padding", cls, "an int, tuple or list")
    vals = (padding,) * 3 if isinstance(padding, int) else \
        tuple(padding) * 3 if len(padding) == 1 else tuple(padding)
    if not all(isinstance(e, int) and not isinstance(e, bool) and e >= 0 for e in vals):
        raise ValueError(f"For '{cls}', the 'padding' must be non-negative ints, but got "
                         f"{padding!r}")
    if len(vals) != 3:
        raise ValueError(f"For '{cls}', the 'padding' must be an int or a tuple/list of 1 or 3 "
                         f"ints, but got length {len(padding)}.")
    return vals


class _Pool3d(Cell):
    def __init__(self, cls, kernel_size, stride, pad_mode, padding, dilation, ceil_mode):
        super().__init__()
        check_type(pad_mode, str, "pad_mode", cls)
        self.pad_mode = check_one_of(pad_mode.upper(), ("VALID", "SAME", "PAD"), "pad_mode", cls)
        self.kernel_size = _triple(kernel_size, "kernel_size", cls)
        self.stride = _triple(stride, "stride", cls)
        self.dilation = _triple(dilation, "dilation", cls)
        self.padding = _padding3(padding, cls)
        if self.pad_mode != "PAD" and any(self.padding):
            raise ValueError(f"For '{cls}', the 'padding' must be 0 when pad_mode is not 'pad', "
                             f"but got {padding!r}.")
        self.ceil_mode = check_bool(ceil_mode, "ceil_mode", cls)
        self._cls = cls

    def _pads(self, spatial):
        """Per axis (d, h, w): (before, after, ceil_extra)."""
        out = []
        for n, k, s, d, p in zip(spatial, self.kernel_size, self.stride, self.dilation,
                                 self.padding):
            if self.pad_mode == "SAME":
                out.append(C.same_padding(n, k, s, d) + (0,))
                continue
            extra = LF._ceil_extra(n, k, s, d, p) if self.ceil_mode else 0
            if C.out_size(n, k, s, d, 2 * p + extra) <= 0:
                raise ValueError(f"For '{self._cls}', the window {self.kernel_size} is larger "
                                 f"than the padded input of spatial shape {tuple(spatial)}")
            out.append((p, p, extra))
        return out

    def _batched(self, x):
        if x.ndim == 5:
            return x, False
        if x.ndim == 4:
            return A.expand_dims(x, 0), True
        raise ValueError(f"For '{self._cls}', the input must be 4-D or 5-D, but got shape "
                         f"{x.shape}")

    def _separable(self, x, make_prim):
        """Pool (H, W) of each depth slice, then depth, with the 2-D primitive that
        make_prim(kernel, stride, dilation, pads_a, pads_b, first_pass) returns."""
        x, unbatched = self._batched(x)
        n, c, d, h, w = x.shape
        (pd, ph, pw) = self._pads((d, h, w))
        k, s, dl = self.kernel_size, self.stride, self.dilation
        hw = apply(make_prim(k[1:], s[1:], dl[1:], ph, pw, True),
                   (A.reshape(x, (n, c * d, h, w)),))
        ho, wo = hw.shape[2:]
        out = apply(make_prim((k[0], 1), (s[0], 1), (dl[0], 1), pd, (0, 0, 0), False),
                    (A.reshape(hw, (n, c, d, ho * wo)),))
        out = A.reshape(out, (n, c, out.shape[2], ho, wo))
        return A.reshape(out, out.shape[1:]) if unbatched else out

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool3d(_Pool3d):
    """Max over kernel_size windows of (N, C, D, H, W) or (C, D, H, W) input; padding is -inf,
    ties send the gradient to the first maximum in (d, h, w) order. With `return_indices`
    (pad_mode 'pad' only, as in MindSpore) also the flat index of each max in its D*H*W volume."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        super().__init__("MaxPool3d", kernel_size, stride, pad_mode, padding, dilation, ceil_mode)
        self.return_indices = check_bool(return_indices, "return_indices", "MaxPool3d")
        if (self.dilation != (1, 1, 1) or self.return_indices) and self.pad_mode != "PAD":
            raise ValueError(f"For MaxPool3d, the pad_mode must be 'pad' when dilation is not 1 "
                             f"or return_indices is True, but got pad_mode:{pad_mode}.")
        if self.ceil_mode and self.pad_mode != "PAD":
            raise ValueError("For MaxPool3d, when the 'pad_mode' is 'same' or 'valid', the "
                             "'ceil_mode' only supports False.")

    @staticmethod
    def _prim(k, s, dl, pa, pb, _first):
        pad = (pa[0], pa[1] + pa[2], pb[0], pb[1] + pb[2])
        return shared(C.MaxPool, k, s, pad=pad, dilation=dl)

    def construct(self, x):
        values = self._separable(x, self._prim)
        if not self.return_indices:
            return values
        pads = self._pads((x if x.ndim == 5 else x[None]).shape[2:])
        # a recorded node: a graph-mode replay finds the maxima of the new data
        return values, data_function(_first_max_indices, x, static=(
            tuple(pads), self.kernel_size, self.stride, self.dilation))


def _first_max_indices(x, pads, k, s, dl):
    """The flat D*H*W index of each window's first maximum (a DataFunction), batched or not."""
    if x.ndim == 5:
        return LF.argmax3d(x, pads, k, s, dl)
    return LF.argmax3d(x[None], pads, k, s, dl)[0]


class AvgPool3d(_Pool3d):
    """Mean over kernel_size windows of (N, C, D, H, W) or (C, D, H, W) input. Padding counts in
    the divisor when `count_include_pad` (pad mode 'pad'); `divisor_override` replaces it."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__("AvgPool3d", kernel_size, stride, pad_mode, padding, 1, ceil_mode)
        if divisor_override is not None and divisor_override <= 0:
            raise ValueError(f"For 'AvgPool3d', the 'divisor_override' must be > 0, but got "
                             f"{divisor_override}.")
        self.count_include_pad = check_bool(count_include_pad, "count_include_pad", "AvgPool3d")
        self.divisor_override = divisor_override

    def _prim(self, k, s, dl, pa, pb, first):
        include = self.count_include_pad and self.pad_mode != "VALID"  # MindSpore counts "same" pads
        override = self.divisor_override and (1 if first else self.divisor_override)
        return shared(C.AvgPool, k, s, pad=(pa[0], pa[1], pb[0], pb[1]),
                      count_include_pad=include, divisor_override=override or None,
                      ceil_extra=(pa[2], pb[2]))

    def construct(self, x):
        return self._separable(x, self._prim)


# ---- adaptive pools --------------------------------------------------------------------------------

class AdaptiveMaxPool1d(Cell):
    """Max over equal windows of (N, C, L) input giving `output_size` columns; L must divide by
    output_size (MindSpore's rule). Ties send the gradient to the first maximum."""

    def __init__(self, output_size):
        super().__init__()
        check_type(output_size, int, "output_size", "AdaptiveMaxPool1d", "an int")
        self.output_size = check_int_range(output_size, "output_size", "AdaptiveMaxPool1d", 1)

    def construct(self, x):
        if x.ndim != 3:
            raise ValueError(f"For AdaptiveMaxPool1d, the input must has 3 dim, but got "
                             f"{x.ndim}.")
        width, out = x.shape[2], self.output_size
        if width < out or width % out:
            raise ValueError(f"For AdaptiveMaxPool1d, the input's last dimension must be "
                             f"divisible by and at least output size {out}, but got {width}.")
        k = width // out
        values = apply(shared(C.MaxPool, (1, k), (1, k), pad=(0, 0, 0, 0)),
                       (A.expand_dims(x, 2),))
        return A.reshape(values, values.shape[:2] + values.shape[3:])


def _sizes3(output_size, dhw, cls):
    """(od, oh, ow) from an int or 3 positive ints (None keeps the input's size); ValueError
    otherwise, as MindSpore's primitives raise at call time."""
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = (output_size,) * 3
    if not isinstance(output_size, (tuple, list)) or len(output_size) != 3:
        raise ValueError(f"For '{cls}', the 'output_size' must be an int or 3 ints, but got "
                         f"{output_size!r}")
    out = tuple(n if v is None else v for v, n in zip(output_size, dhw))
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in out):
        raise ValueError(f"For '{cls}', the 'output_size' must be positive ints, but got "
                         f"{output_size!r}")
    return out


def _check_5d(x, cls):
    if x.ndim not in (4, 5):
        raise ValueError(f"For '{cls}', the input must be 4-D or 5-D, but got shape {x.shape}")


class AdaptiveAvgPool3d(Cell):
    """Mean over adaptive windows of (N, C, D, H, W) or (C, D, H, W) input giving `output_size`
    (an int, or (D, H, W) with None to keep a size). An output size of 0, which MindSpore turns
    into an empty result, is refused here."""

    def __init__(self, output_size):
        super().__init__()
        check_type(output_size, (int, tuple), "output_size", "AdaptiveAvgPool3d",
                   "an int or a tuple")
        if any(v is not None and v < 0 for v in
               (output_size if isinstance(output_size, tuple) else (output_size,))):
            raise ValueError(f"For 'AdaptiveAvgPool3d', the 'output_size' must be >= 0, but got "
                             f"{output_size!r}")
        self.output_size = output_size

    def construct(self, input):
        _check_5d(input, "AdaptiveAvgPool3d")
        lead, (d, h, w) = input.shape[:-3], input.shape[-3:]
        od, oh, ow = _sizes3(self.output_size, (d, h, w), "AdaptiveAvgPool3d")
        m = int(np.prod(lead))
        hw = LF.adaptive_avg_pool2d(A.reshape(input, (m * d, h, w)), (oh, ow))
        out = LF.adaptive_avg_pool2d(A.reshape(hw, (m, d, oh * ow)), (od, oh * ow))
        return A.reshape(out, lead + (od, oh, ow))


class AdaptiveMaxPool3d(Cell):
    """Max over adaptive windows of (N, C, D, H, W) or (C, D, H, W) input giving `output_size`
    (an int or 3 ints; MindSpore takes no None here), ties splitting the gradient evenly as
    AdaptiveMaxPool2d; with `return_indices` also the int32 flat index of the first max in each
    D*H*W volume."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        if isinstance(output_size, (tuple, list)) and None in output_size:
            raise TypeError(f"For 'AdaptiveMaxPool3d', the 'output_size' must be ints (no None), "
                            f"but got {output_size!r}")
        self.output_size = output_size
        self.return_indices = check_bool(return_indices, "return_indices", "AdaptiveMaxPool3d")

    def construct(self, input):
        _check_5d(input, "AdaptiveMaxPool3d")
        dhw = input.shape[-3:]
        outs = _sizes3(self.output_size, dhw, "AdaptiveMaxPool3d")
        pos = const(LF.adaptive_windows(tuple(dhw), tuple(outs)))  # (od, oh, ow, kd, kh, kw)
        win = LF._windows(input, pos, 3)
        r = win.ndim
        values = apply(R.ReduceMax(False), (win, (r - 3, r - 2, r - 1)))
        if not self.return_indices:
            return values
        # MindSpore returns int32 here
        return values, data_function(LF.first_in_window, win, pos,
                                     static=(3, np.dtype(np.int32)))
