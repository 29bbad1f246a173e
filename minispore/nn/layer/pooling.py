"""Pooling layers: MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d, AdaptiveMaxPool2d."""
from ..._autodiff.tape import apply
from ..._validator import check_bool, check_one_of, check_type
from ...ops.function import layer_func as LF
from ...ops.operations import array_ops as A
from ...ops.operations import conv_ops as C
from ...ops.primitive import shared
from ..cell import Cell

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool2d"]


def _pad_mode(pad_mode, cls):
    check_type(pad_mode, str, "pad_mode", cls)
    return check_one_of(pad_mode.lower(), ("valid", "same", "pad"), "pad_mode", cls).upper()


def _pool_pad(mode, padding, h, w, k, s, d, cls):
    if mode == "VALID":
        return (0, 0, 0, 0)
    if mode == "SAME":
        return C.same_padding(h, k[0], s[0], d[0]) + C.same_padding(w, k[1], s[1], d[1])
    if isinstance(padding, int):
        return (padding,) * 4
    if len(padding) == 2:
        return (padding[0], padding[0], padding[1], padding[1])
    if len(padding) == 4:
        return tuple(padding)
    raise ValueError(f"For '{cls}', 'padding' must be an int or 2 or 4 ints, got {padding!r}")


def _batched(x, cls, rank=4):
    """x with a batch axis (3-D inputs are unbatched)."""
    if x.ndim == rank:
        return x, False
    if x.ndim == rank - 1:
        return A.expand_dims(x, 0), True
    raise ValueError(f"For '{cls}', the input must be {rank - 1}-D or {rank}-D, but got shape "
                     f"{x.shape}")


class _Pool2d(Cell):
    def __init__(self, cls, kernel_size, stride, pad_mode, padding, dilation=1, ceil_mode=False):
        super().__init__()
        self.kernel_size = C.pair(kernel_size, "kernel_size", cls)
        self.stride = C.pair(stride, "stride", cls)
        self.dilation = C.pair(dilation, "dilation", cls)
        if min(self.kernel_size + self.stride + self.dilation) < 1:
            raise ValueError(f"For '{cls}', kernel_size, stride and dilation must be positive")
        self.pad_mode = _pad_mode(pad_mode, cls)
        if self.pad_mode != "PAD" and padding not in (0, (0, 0), (0, 0, 0, 0)):
            raise ValueError(f"For '{cls}', 'padding' must be 0 unless pad_mode is 'pad', but got "
                             f"{padding!r}")
        self.padding = padding
        self.ceil_mode = check_bool(ceil_mode, "ceil_mode", cls)
        self._cls = cls

    def _pads(self, x):
        t, b, l, r = _pool_pad(self.pad_mode, self.padding, x.shape[2], x.shape[3],
                               self.kernel_size, self.stride, self.dilation, self._cls)
        eb = er = 0
        if self.ceil_mode and self.pad_mode != "SAME":  # 'same' already rounds up; t == b here
            eb = LF._ceil_extra(x.shape[2], self.kernel_size[0], self.stride[0],
                                self.dilation[0], t)
            er = LF._ceil_extra(x.shape[3], self.kernel_size[1], self.stride[1],
                                self.dilation[1], l)
        return (t, b, l, r), (eb, er)

    def extend_repr(self):
        k = self.kernel_size[0] if self.kernel_size[0] == self.kernel_size[1] else self.kernel_size
        s = self.stride[0] if self.stride[0] == self.stride[1] else self.stride
        return f"kernel_size={k}, stride={s}, pad_mode={self.pad_mode}"


class MaxPool2d(_Pool2d):
    """Max over kernel_size windows of (N, C, H, W) or (C, H, W) input; padding is -inf.

    Args: kernel_size=1, stride=1 (always pass both: MindSpore's defaults), pad_mode 'valid',
    'same' or 'pad' (with `padding`), dilation, return_indices, ceil_mode."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__("MaxPool2d", kernel_size, stride, pad_mode, padding, dilation, ceil_mode)
        self.return_indices = return_indices

    def construct(self, x):
        x, unbatched = _batched(x, "MaxPool2d")
        (t, b, l, r), (eb, er) = self._pads(x)
        pad = (t, b + eb, l, r + er)
        if not self.return_indices:
            values = apply(shared(C.MaxPool, self.kernel_size, self.stride, pad=pad,
                                  dilation=self.dilation), (x,))
            return A.reshape(values, values.shape[1:]) if unbatched else values
        values, idx = apply(shared(C.MaxPoolWithArgmax, self.kernel_size, self.stride,
                                   pad=pad, dilation=self.dilation), (x,))
        if unbatched:
            values, idx = A.reshape(values, values.shape[1:]), A.reshape(idx, idx.shape[1:])
        return values, idx


class AvgPool2d(_Pool2d):
    """Mean over kernel_size windows of (N, C, H, W) or (C, H, W) input.

    Padding counts in the divisor when `count_include_pad` (pad mode 'pad'); pad mode 'same'
    never counts it (TensorFlow's rule); `divisor_override` replaces the divisor."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__("AvgPool2d", kernel_size, stride, pad_mode, padding, 1, ceil_mode)
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def construct(self, x):
        x, unbatched = _batched(x, "AvgPool2d")
        pad, extra = self._pads(x)
        include = self.count_include_pad and self.pad_mode == "PAD"
        prim = shared(C.AvgPool, self.kernel_size, self.stride, pad=pad,
                      count_include_pad=include, divisor_override=self.divisor_override,
                      ceil_extra=extra)
        out = apply(prim, (x,))
        return A.reshape(out, out.shape[1:]) if unbatched else out


class _Pool1d(Cell):
    """A 1-D pool as the 2-D pool with a size-1 height."""

    def __init__(self, pool2d, kernel_size, stride):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride
        self.__dict__["pool"] = pool2d  # not a registered child: an implementation detail

    def construct(self, x):
        if x.ndim not in (2, 3):
            raise ValueError(f"For '{type(self).__name__}', the input must be 2-D or 3-D, but "
                             f"got shape {x.shape}")
        out = self.pool(A.expand_dims(x, -2))
        if isinstance(out, tuple):
            return tuple(A.reshape(o, o.shape[:-2] + o.shape[-1:]) for o in out)
        return A.reshape(out, out.shape[:-2] + out.shape[-1:])

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pool.pad_mode}"


class MaxPool1d(_Pool1d):
    """Max over windows of (N, C, L) or (C, L) input."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        pad = (0, 0, padding, padding) if isinstance(padding, int) else (0, 0) + tuple(padding)
        pool = MaxPool2d((1, kernel_size), (1, stride), pad_mode, pad, (1, dilation),
                         return_indices, ceil_mode)
        super().__init__(pool, kernel_size, stride)


class AvgPool1d(_Pool1d):
    """Mean over windows of (N, C, L) or (C, L) input."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True):
        pad = (0, 0, padding, padding) if isinstance(padding, int) else (0, 0) + tuple(padding)
        pool = AvgPool2d((1, kernel_size), (1, stride), pad_mode, pad, ceil_mode,
                         count_include_pad)
        super().__init__(pool, kernel_size, stride)


class AdaptiveAvgPool2d(Cell):
    """Mean over adaptive windows giving `output_size` (int, or (H, W) with None to keep)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, input):
        return LF.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool1d(Cell):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, input):
        return LF.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(Cell):
    """Max over adaptive windows giving `output_size`; ties split the gradient evenly."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def construct(self, input):
        return LF.adaptive_max_pool2d(input, self.output_size, self.return_indices)
