"""Convolution layers: Conv1d, Conv2d, Conv3d, Conv2dTranspose, Conv3dTranspose (channels
first)."""
import math

import numpy as np

from ..._validator import check_bool, check_int, check_one_of, check_positive_int
from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform, initializer
from ...common.tensor import Tensor
from ...ops.function import layer_func as LF
from ...ops.operations import array_ops as A
from ...ops.operations import conv_ops as C
from ...ops.operations.linalg_ops import _matmul_operands
from ..cell import Cell
from .basic import cast_params, new_parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose"]

_PAD_MODES = ("same", "valid", "pad")


def _padding_n(padding, nd, cls):
    """(before, after) per spatial dim, flat, from an int or 2 * nd ints."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        pads = (padding,) * (2 * nd)
    elif isinstance(padding, (tuple, list)) and len(padding) == 2 * nd:
        pads = tuple(padding)
    else:
        raise ValueError(f"For '{cls}', 'padding' must be an int or a tuple of {2 * nd} ints, "
                         f"but got {padding!r}")
    if any(not isinstance(p, int) or isinstance(p, bool) or p < 0 for p in pads):
        raise ValueError(f"For '{cls}', 'padding' must be non-negative, but got {padding!r}")
    return pads


def _output_padding(cls, output_padding, stride, dilation, pad_mode):
    """output_padding as one int per spatial dim: below the stride or below the dilation on
    each axis, and 0 unless pad_mode is 'pad' (MindSpore's rules)."""
    ops_ = C.output_padding_ntuple(output_padding, stride, dilation, cls)
    if pad_mode != "pad" and any(ops_):
        raise ValueError(f"For '{cls}', the 'output_padding' must be 0 unless pad_mode is 'pad', "
                         f"but got {ops_} with pad_mode {pad_mode!r}")
    return ops_


def _geometry(cls, nd, kernel_size, stride, dilation, pad_mode, padding, data_format=None):
    """kernel_size, stride and dilation as nd ints, after checking `data_format` and, for
    pad_mode 'pad', `padding`."""
    layout = "NCDHW" if nd == 3 else "NCHW"
    if data_format is not None and data_format != layout:
        raise ValueError(f"For '{cls}', only data_format='{layout}' is supported, got "
                         f"{data_format!r}")
    if pad_mode == "pad":
        _padding_n(padding, nd, cls)
    return tuple(C.ntuple(v, nd, name, cls) for v, name in (
        (kernel_size, "kernel_size"), (stride, "stride"), (dilation, "dilation")))


class _Conv(Cell):
    def __init__(self, cls, in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                 dilation, group, has_bias, weight_init, bias_init, dtype, transposed=False):
        super().__init__()
        self.in_channels = check_positive_int(in_channels, "in_channels", cls)
        self.out_channels = check_positive_int(out_channels, "out_channels", cls)
        self.group = check_positive_int(group, "group", cls)
        if in_channels % group or out_channels % group:
            raise ValueError(f"For '{cls}', in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must divide by group ({group})")
        check_one_of(pad_mode, _PAD_MODES, "pad_mode", cls)
        if pad_mode != "pad" and padding not in (0, (0, 0), (0, 0, 0, 0), (0,) * 6):
            raise ValueError(f"For '{cls}', 'padding' must be 0 when pad_mode is "
                             f"'{pad_mode}' (use pad_mode='pad'), but got {padding!r}")
        self.kernel_size, self.stride, self.dilation = kernel_size, stride, dilation
        for name, v in (("kernel_size", kernel_size), ("stride", stride), ("dilation", dilation)):
            if min(v) < 1:
                raise ValueError(f"For '{cls}', '{name}' must be positive, but got {v}")
        self.pad_mode, self.padding = pad_mode, padding
        self.has_bias = check_bool(has_bias, "has_bias", cls)
        self.format = "NCDHW" if len(kernel_size) == 3 else "NCHW"
        self.weight_init = HeUniform(math.sqrt(5)) if weight_init is None else weight_init
        # the weight is (out, in/group, k...), or (in, out/group, k...) when transposed
        rows, cols = (in_channels, out_channels) if transposed else (out_channels, in_channels)
        weight_shape = (rows, cols // group) + tuple(kernel_size)
        fan_in = cols // group * math.prod(kernel_size)
        self.weight = new_parameter(initializer(self.weight_init, weight_shape, dtype), "weight")
        if self.has_bias:
            self.bias_init = Uniform(1 / math.sqrt(fan_in)) if bias_init is None else bias_init
            self.bias = new_parameter(initializer(self.bias_init, (out_channels,), dtype), "bias")
        else:
            self.bias_init = None
            self.bias = None

    def _convolve(self, x, conv):
        """`conv` (LF.conv2d or LF.conv3d) of x with this cell's weight, bias and geometry."""
        nd, cls = len(self.kernel_size), type(self).__name__
        if x.ndim != nd + 2 or x.shape[1] != self.in_channels:
            raise ValueError(f"For '{cls}', the input must be (N, {self.in_channels}, "
                             f"{', '.join('DHW'[3 - nd:])}), but got shape {x.shape}")
        w, b = cast_params(self, self.weight, self.bias)
        padding = _padding_n(self.padding, nd, cls) if self.pad_mode == "pad" else 0
        return conv(x, w, b, self.stride, self.pad_mode, padding, self.dilation, self.group)

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}, weight_init={self.weight_init!r},"
                f" bias_init={self.bias_init!r}, format={self.format}")


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
        k, s, d = _geometry("Conv2d", 2, kernel_size, stride, dilation, pad_mode, padding,
                            data_format)
        super().__init__("Conv2d", in_channels, out_channels, k, s, pad_mode, padding, d, group,
                         has_bias, weight_init, bias_init, dtype)

    def construct(self, x):
        return self._convolve(x, LF.conv2d)


class Conv1d(_Conv):
    """1-D convolution over NCL input; the weight is (out, in/group, 1, kernel_size) as in
    MindSpore. `padding` is an int or (left, right)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=mstype.float32):
        kernel_size, stride, dilation = (check_int(v, name, "Conv1d") for v, name in (
            (kernel_size, "kernel_size"), (stride, "stride"), (dilation, "dilation")))
        weight_init = _weight_3d_to_4d(weight_init, "Conv1d")
        if isinstance(padding, int):
            pad4 = (0, 0, padding, padding)
        elif isinstance(padding, (tuple, list)) and len(padding) == 2:
            pad4 = (0, 0) + tuple(padding)
        else:
            raise ValueError(f"For 'Conv1d', 'padding' must be an int or 2 ints, got {padding!r}")
        super().__init__("Conv1d", in_channels, out_channels, (1, kernel_size), (1, stride),
                         pad_mode, pad4 if pad_mode == "pad" else padding, (1, dilation), group,
                         has_bias, weight_init, bias_init, dtype)

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
    (H - 1) * stride - (top + bottom) + dilation * (k - 1) + output_padding + 1 for 'pad'
    (output_padding below the stride or below the dilation on each axis; 'pad' mode only)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init=None, bias_init=None, dtype=mstype.float32):
        k, s, d = _geometry("Conv2dTranspose", 2, kernel_size, stride, dilation, pad_mode,
                            padding)
        super().__init__("Conv2dTranspose", in_channels, out_channels, k, s, pad_mode, padding,
                         d, group, has_bias, weight_init, bias_init, dtype, transposed=True)
        self.output_padding = _output_padding("Conv2dTranspose", output_padding, s, d, pad_mode)

    def construct(self, x):
        nd, cls = len(self.kernel_size), type(self).__name__
        if x.ndim != nd + 2 or x.shape[1] != self.in_channels:
            raise ValueError(f"For '{cls}', the input must be (N, {self.in_channels}, "
                             f"{', '.join('DHW'[3 - nd:])}), but got shape {x.shape}")
        w, b = cast_params(self, self.weight, self.bias)
        sizes = x.shape[2:]
        ks, st, dil = self.kernel_size, self.stride, self.dilation
        if self.pad_mode == "same":
            outs = tuple(n * s for n, s in zip(sizes, st))
            pad = sum((C.same_padding(o, k, s, d) for o, k, s, d in zip(outs, ks, st, dil)), ())
        elif self.pad_mode == "valid":
            outs = tuple((n - 1) * s + d * (k - 1) + 1 for n, k, s, d in zip(sizes, ks, st, dil))
            pad = (0,) * (2 * nd)
        else:
            pad = _padding_n(self.padding, nd, cls)
            outs = C.transposed_sizes(sizes, ks, st, dil, pad, self.output_padding)
        if min(outs) < 1:
            raise ValueError(f"For '{cls}', the output size {outs} is not positive for an input "
                             f"of shape {x.shape}")
        x, w = _matmul_operands(cls, x, w)
        out = C.conv_transpose(x, w, (x.shape[0], self.out_channels) + outs, pad, st, dil,
                               self.group, self.output_padding)
        return out if b is None else out + A.reshape(b, (1, -1) + (1,) * nd)


class Conv3d(_Conv):
    """3-D convolution over NCDHW input; the weight is (out, in/group, kd, kh, kw).

    Args:
        in_channels, out_channels (int), kernel_size, stride, dilation (int or 3 ints).
        pad_mode (str): 'same' (default; TF-style, the odd extra at the tail/bottom/right),
            'valid' or 'pad' (explicit `padding`: an int or (head, tail, top, bottom, left,
            right)).
        group (int), has_bias (bool, default False), weight_init, bias_init, data_format
            ('NCDHW'), dtype.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCDHW", dtype=mstype.float32):
        k, s, d = _geometry("Conv3d", 3, kernel_size, stride, dilation, pad_mode, padding,
                            data_format)
        super().__init__("Conv3d", in_channels, out_channels, k, s, pad_mode, padding, d, group,
                         has_bias, weight_init, bias_init, dtype)

    def construct(self, x):
        return self._convolve(x, LF.conv3d)


class Conv3dTranspose(Conv2dTranspose):
    """Transposed 3-D convolution (the gradient of Conv3d w.r.t. its input) over NCDHW input;
    the weight is (in_channels, out_channels/group, kd, kh, kw) and `padding` an int or
    (head, tail, top, bottom, left, right). Output sizes as Conv2dTranspose's, per dim."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, output_padding=0, has_bias=False,
                 weight_init=None, bias_init=None, data_format="NCDHW", dtype=mstype.float32):
        cls = "Conv3dTranspose"
        k, s, d = _geometry(cls, 3, kernel_size, stride, dilation, pad_mode, padding,
                            data_format)
        _Conv.__init__(self, cls, in_channels, out_channels, k, s, pad_mode, padding, d, group,
                       has_bias, weight_init, bias_init, dtype, transposed=True)
        self.output_padding = _output_padding(cls, output_padding, s, d, pad_mode)


def _weight_3d_to_4d(weight_init, cls):
    """A Tensor `weight_init` of a 1-d convolution, (rows, cols, k), as (rows, cols, 1, k)."""
    if not isinstance(weight_init, Tensor):
        return weight_init
    if weight_init.ndim != 3:
        raise ValueError(f"For '{cls}', the 'weight_init_shape' must be int and must = 3, but "
                         f"got '{weight_init.ndim}' with type 'int'.")
    return Tensor(np.expand_dims(weight_init.asnumpy(), 2))


class Conv1dTranspose(Conv2dTranspose):
    """Transposed 1-D convolution (the gradient of Conv1d w.r.t. its input) over NCL input;
    the weight is (in_channels, out_channels/group, 1, kernel_size) as in MindSpore and
    `padding` an int or (left, right). Output length as Conv2dTranspose's along W."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, dtype=mstype.float32):
        cls = "Conv1dTranspose"
        kernel_size, stride, dilation = (check_int(v, name, cls) for v, name in (
            (kernel_size, "kernel_size"), (stride, "stride"), (dilation, "dilation")))
        if isinstance(padding, int) and not isinstance(padding, bool):
            pad4 = (0, 0, padding, padding)
        elif isinstance(padding, (tuple, list)) and len(padding) == 2:
            pad4 = (0, 0) + tuple(padding)
        else:
            raise ValueError(f"For '{cls}', 'padding' must be an int or 2 ints, got {padding!r}")
        check_one_of(pad_mode, _PAD_MODES, "pad_mode", cls)
        if pad_mode == "pad":
            _padding_n(pad4, 2, cls)
        weight_init = _weight_3d_to_4d(weight_init, cls)
        _Conv.__init__(self, cls, in_channels, out_channels, (1, kernel_size), (1, stride),
                       pad_mode, pad4 if pad_mode == "pad" else padding, (1, dilation), group,
                       has_bias, weight_init, bias_init, dtype, transposed=True)
        self.output_padding = (0, 0)

    def construct(self, x):
        if x.ndim != 3 or x.shape[1] != self.in_channels:
            raise ValueError(f"For 'Conv1dTranspose', the input must be (N, {self.in_channels}, "
                             f"L), but got shape {x.shape}")
        out = super().construct(A.expand_dims(x, 2))
        return A.reshape(out, (out.shape[0], out.shape[1], out.shape[3]))
