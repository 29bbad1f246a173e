"""More of MindSpore 2.10's pooling cells: LPPool1d/2d, MaxUnpool1d/2d/3d,
FractionalMaxPool2d/3d and the PyTorch-style AvgPool1dExt/2dExt/3dExt and MaxPool2dExt."""
from ..._validator import check_bool, check_type
from ...common.tensor import Tensor
from ...ops.function import layer_func as LF
from ..cell import Cell

__all__ = [
    "AvgPool1dExt",
    "AvgPool2dExt",
    "AvgPool3dExt",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "MaxPool2dExt",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]


class _LPPool(Cell):
    _pool = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def construct(self, x):
        return type(self)._pool(x, self.norm_type, self.kernel_size, self.stride,
                                self.ceil_mode)

    def extend_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPool):
    """(sum of x^p over each window) ** (1/p) along the last axis of (N, C, L) or (C, L)."""

    _pool = staticmethod(LF.lp_pool1d)


class LPPool2d(_LPPool):
    """(sum of x^p over each window) ** (1/p) over the last two axes of (N, C, H, W)."""

    _pool = staticmethod(LF.lp_pool2d)


class _MaxUnpool(Cell):
    _unpool = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding

    def construct(self, x, indices, output_size=None):
        name = type(self).__name__
        if output_size is None:
            output_size = ()
        elif not isinstance(output_size, tuple):
            raise ValueError(f"For '{name}', the 'output_size' must be a tuple, but got "
                             f"{type(output_size).__name__}")
        elif not output_size:
            raise ValueError(f"For '{name}', the 'output_size' can not be empty")
        return type(self)._unpool(x, indices, self.kernel_size, self.stride, self.padding,
                                  output_size if output_size else None)

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    """The partial inverse of MaxPool1d: each value written at its flat `indices` position of
    a zero output."""

    _unpool = staticmethod(LF.max_unpool1d)


class MaxUnpool2d(_MaxUnpool):
    """The partial inverse of MaxPool2d: each value written at its flat `indices` position of
    a zero (H, W) output."""

    _unpool = staticmethod(LF.max_unpool2d)


class MaxUnpool3d(_MaxUnpool):
    """The partial inverse of MaxPool3d: each value written at its flat `indices` position of
    a zero (D, H, W) output."""

    _unpool = staticmethod(LF.max_unpool3d)


class _FractionalMaxPool(Cell):
    _pool = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        self.kernel_size, self.output_size = kernel_size, output_size
        self.output_ratio = output_ratio
        self.return_indices = check_bool(return_indices, "return_indices", type(self).__name__)
        self._random_samples = _random_samples

    def construct(self, input):
        return type(self)._pool(input, self.kernel_size, self.output_size, self.output_ratio,
                                self.return_indices, self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """Max pooling over pseudo-random windows that shrink (N, C, H, W) to `output_size` (or
    `output_ratio` of it); `_random_samples` (N, C, 2) in [0, 1) fix the windows."""

    _pool = staticmethod(LF.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPool):
    """Max pooling over pseudo-random windows that shrink (N, C, D, H, W) to `output_size` (or
    `output_ratio` of it); `_random_samples` (N, C, 3) in [0, 1) fix the windows."""

    _pool = staticmethod(LF.fractional_max_pool3d)


def _avg_stride(kernel_size, stride):
    return kernel_size if stride is None or stride == () or stride == [] else stride


class AvgPool1dExt(Cell):
    """Average pooling along the last axis (PyTorch's AvgPool1d): `stride` defaults to
    `kernel_size`; `padding` zeros on each side; `count_include_pad` counts them in the
    divisor."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def construct(self, input):
        check_type(input, Tensor, "input", "AvgPool1dExt")
        return LF.avg_pool1d(input, self.kernel_size, _avg_stride(self.kernel_size, self.stride),
                             self.padding, self.ceil_mode, self.count_include_pad)


class _AvgPoolNdExt(Cell):
    _pool = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    def construct(self, input):
        check_type(input, Tensor, "input", type(self).__name__)
        return type(self)._pool(input, self.kernel_size,
                                _avg_stride(self.kernel_size, self.stride), self.padding,
                                self.ceil_mode, self.count_include_pad,
                                self.divisor_override or 0)


class AvgPool2dExt(_AvgPoolNdExt):
    """Average pooling over the last two axes (PyTorch's AvgPool2d); `divisor_override`
    replaces the window size as divisor."""

    _pool = staticmethod(LF.avg_pool2d)


class AvgPool3dExt(_AvgPoolNdExt):
    """Average pooling over the last three axes (PyTorch's AvgPool3d); `divisor_override`
    replaces the window size as divisor."""

    _pool = staticmethod(LF.avg_pool3d)


class MaxPool2dExt(Cell):
    """Max pooling over the last two axes (PyTorch's MaxPool2d) with `padding` (-inf),
    `dilation`, `ceil_mode`; with `return_indices`, (output, flat argmax indices)."""

    def __init__(self, kernel_size=1, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def construct(self, input):
        return LF.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                             self.return_indices, self.ceil_mode)
