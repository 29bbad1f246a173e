"""Convolution layers: Conv1d, Conv2d, Conv2dTranspose (NCHW)."""
import math

from ..._autodiff.tape import apply
from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform, initializer
from ...common.parameter import Parameter
from ...ops.function import layer_func as LF
from ...ops.operations import array_ops as A
from ...ops.operations import conv_ops as C
from ...ops.operations.math_ops import _matmul_operands
from ..cell import Cell
from .basic import cast_params, check_positive_int

__all__ = ["Conv1d", "Conv2d", "Conv2dTranspose"]

_PAD_MODES = ("same", "valid", "pad")


def _padding4(padding, cls):
    """(top, bottom, left, right) from an int or 4 ints."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        pads = (padding,) * 4
    elif isinstance(padding, (tuple, list)) and len(padding) == 4:
        pads = tuple(padding)
    else:
        raise ValueError(f"For '{cls}', 'padding' must be an int or a tuple of 4 ints, but got "
                         f"{padding!r}")
    if any(not isinstance(p, int) or p < 0 for p in pads):
        raise ValueError(f"For '{cls}', 'padding' must be non-negative, but got {padding!r}")
    return pads


class _Conv(Cell):
    def __init__(self, cls, in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                 dilation, group, has_bias, weight_init, bias_init, weight_shape, fan_in, dtype):
        super().__init__()
        self.in_channels = check_positive_int(in_channels, "in_channels", cls)
        self.out_channels = check_positive_int(out_channels, "out_channels", cls)
        self.group = check_positive_int(group, "group", cls)
        if in_channels % group or out_channels % group:
            raise ValueError(f"For '{cls}', in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must divide by group ({group})")
        if pad_mode not in _PAD_MODES:
            raise ValueError(f"For '{cls}', 'pad_mode' must be one of {_PAD_MODES}, but got "
                             f"{pad_mode!r}")
        if pad_mode != "pad" and padding not in (0, (0, 0), (0, 0, 0, 0)):
            raise ValueError(f"For '{cls}', 'padding' must be 0 when pad_mode is "
                             f"'{pad_mode}' (use pad_mode='pad'), but got {padding!r}")
        self.kernel_size, self.stride, self.dilation = kernel_size, stride, dilation
        for name, v in (("kernel_size", kernel_size), ("stride", stride), ("dilation", dilation)):
            if min(v) < 1:
                raise ValueError(f"For '{cls}', '{name}' must be positive, but got {v}")
        self.pad_mode, self.padding, self.has_bias = pad_mode, padding, bool(has_bias)
        self.weight_init = HeUniform(math.sqrt(5)) if weight_init is None else weight_init
        self.weight = Parameter(initializer(self.weight_init, weight_shape, dtype), name="weight")
        if self.has_bias:
            self.bias_init = Uniform(1 / math.sqrt(fan_in)) if bias_init is None else bias_init
            self.bias = Parameter(initializer(self.bias_init, (out_channels,), dtype),
                                  name="bias")
        else:
            self.bias_init = None
            self.bias = None

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}, weight_init={self.weight_init!r},"
                f" bias_init={self.bias_init!r}, format=NCHW")


class Conv2d(_Conv):
    """2-D convolution over NCHW input.

    Args:
        in_channels, out_channels (int), kernel_size, stride, dilation (int or pair).
        pad_mode (str): 'same' (default; TF-style, extra row/column at the bottom/right),
            'valid' or 'pad' (explicit `padding`: an int or (top, bottom, left, right)).
        group (int), has_bias (bool, default False), weight_init, bias_init, data_format
            ('NCHW'), dtype.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCHW", dtype=mstype.float32):
        if data_format != "NCHW":
            raise ValueError(f"For 'Conv2d', only data_format='NCHW' is supported, got "
                             f"{data_format!r}")
        k = C.pair(kernel_size, "kernel_size", "Conv2d")
        s = C.pair(stride, "stride", "Conv2d")
        d = C.pair(dilation, "dilation", "Conv2d")
        if pad_mode == "pad":
            _padding4(padding, "Conv2d")
        super().__init__("Conv2d", in_channels, out_channels, k, s, pad_mode, padding, d, group,
                         has_bias, weight_init, bias_init,
                         (out_channels, in_channels // group) + k,
                         in_channels // group * k[0] * k[1], dtype)

    def construct(self, x):
        if x.ndim != 4 or x.shape[1] != self.in_channels:
            raise ValueError(f"For 'Conv2d', the input must be (N, {self.in_channels}, H, W), but "
                             f"got shape {x.shape}")
        w, b = cast_params(self, self.weight, self.bias)
        padding = _padding4(self.padding, "Conv2d") if self.pad_mode == "pad" else 0
        return LF.conv2d(x, w, b, self.stride, self.pad_mode, padding, self.dilation, self.group)


class Conv1d(_Conv):
    """1-D convolution over NCL input; the weight is (out, in/group, 1, kernel_size) as in
    MindSpore. `padding` is an int or (left, right)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=mstype.float32):
        for name, v in (("kernel_size", kernel_size), ("stride", stride), ("dilation", dilation)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'Conv1d', '{name}' must be an int, but got {v!r}")
        if isinstance(padding, int):
            pad4 = (0, 0, padding, padding)
        elif isinstance(padding, (tuple, list)) and len(padding) == 2:
            pad4 = (0, 0) + tuple(padding)
        else:
            raise ValueError(f"For 'Conv1d', 'padding' must be an int or 2 ints, got {padding!r}")
        super().__init__("Conv1d", in_channels, out_channels, (1, kernel_size), (1, stride),
                         pad_mode, pad4 if pad_mode == "pad" else padding, (1, dilation), group,
                         has_bias, weight_init, bias_init,
                         (out_channels, in_channels // group, 1, kernel_size),
                         in_channels // group * kernel_size, dtype)

    def construct(self, x):
        if x.ndim != 3 or x.shape[1] != self.in_channels:
            raise ValueError(f"For 'Conv1d', the input must be (N, {self.in_channels}, L), but "
                             f"got shape {x.shape}")
        w, b = cast_params(self, self.weight, self.bias)
        pad = self.padding if self.pad_mode == "pad" else 0
        out = LF.conv2d(A.expand_dims(x, 2), w, b, self.stride, self.pad_mode, pad,
                        self.dilation, self.group)
        return A.reshape(out, (out.shape[0], out.shape[1], out.shape[3]))


class Conv2dTranspose(_Conv):
    """Transposed 2-D convolution (the gradient of Conv2d w.r.t. its input) over NCHW input;
    the weight is (in_channels, out_channels/group, kh, kw). Output size: H * stride for
    pad_mode 'same', (H - 1) * stride + dilation * (k - 1) + 1 for 'valid', and
    (H - 1) * stride - (top + bottom) + dilation * (k - 1) + output_padding + 1 for 'pad'."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init=None, bias_init=None, dtype=mstype.float32):
        k = C.pair(kernel_size, "kernel_size", "Conv2dTranspose")
        s = C.pair(stride, "stride", "Conv2dTranspose")
        d = C.pair(dilation, "dilation", "Conv2dTranspose")
        if pad_mode == "pad":
            _padding4(padding, "Conv2dTranspose")
        output_padding = C.pair(output_padding, "output_padding", "Conv2dTranspose")
        super().__init__("Conv2dTranspose", in_channels, out_channels, k, s, pad_mode, padding,
                         d, group, has_bias, weight_init, bias_init,
                         (in_channels, out_channels // group) + k,
                         out_channels // group * k[0] * k[1], dtype)
        self.output_padding = output_padding

    def construct(self, x):
        if x.ndim != 4 or x.shape[1] != self.in_channels:
            raise ValueError(f"For 'Conv2dTranspose', the input must be (N, {self.in_channels}, "
                             f"H, W), but got shape {x.shape}")
        w, b = cast_params(self, self.weight, self.bias)
        n, _, h, wd = x.shape
        (kh, kw), (sh, sw), (dh, dw) = self.kernel_size, self.stride, self.dilation
        if self.pad_mode == "same":
            ho, wo = h * sh, wd * sw
            pad = C.same_padding(ho, kh, sh, dh) + C.same_padding(wo, kw, sw, dw)
        elif self.pad_mode == "valid":
            ho, wo = (h - 1) * sh + dh * (kh - 1) + 1, (wd - 1) * sw + dw * (kw - 1) + 1
            pad = (0, 0, 0, 0)
        else:
            pad = _padding4(self.padding, "Conv2dTranspose")
            oph, opw = self.output_padding
            ho = (h - 1) * sh - pad[0] - pad[1] + dh * (kh - 1) + oph + 1
            wo = (wd - 1) * sw - pad[2] - pad[3] + dw * (kw - 1) + opw + 1
        prim = C.Conv2DBackpropInput(self.in_channels, (kh, kw), "pad", pad, None, 1, (sh, sw),
                                     (dh, dw), self.group)
        x, w = _matmul_operands("Conv2dTranspose", x, w)
        out = apply(prim, (x, w, (n, self.out_channels, ho, wo)))
        return out if b is None else out + A.reshape(b, (1, -1, 1, 1))
