"""Padding cells (ConstantPad, ReflectionPad, ReplicationPad in 1d/2d/3d) and the channel
rearranging cells PixelShuffle, PixelUnshuffle and ChannelShuffle.

All are compositions of `ops.pad`, `reshape` and `transpose`, so their gradients come free.
`padding` is MindSpore's (and torch's): (left, right, top, bottom, front, back), from the last
axis backwards. `nn.ZeroPad2d` lives in basic.py; MindSpore 2.10 has no ZeroPad1d/ZeroPad3d.
"""
from ..._validator import check_positive_int, check_type, is_int, type_name
from ...common.tensor import Tensor
from ...ops.function import array_func as AF
from ...ops.function import layer_func as LF
from ..cell import Cell

__all__ = ["ChannelShuffle", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "PixelShuffle",
           "PixelUnshuffle", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d"]


def _padding_tuple(padding, dims, owner, max_len):
    """`padding` (an int, or a tuple of ints of even length at most `max_len`) as a tuple; an
    int pads both sides of each of the last `dims` axes. TypeError for a wrong kind of value,
    ValueError for a wrong length (as MindSpore)."""
    if is_int(padding):
        return (int(padding),) * (2 * dims)
    if not isinstance(padding, tuple):
        raise TypeError(f"For '{owner}', the 'padding' must be an int or a tuple of ints, but got "
                        f"{type_name(padding)}")
    if not all(is_int(p) for p in padding):
        raise TypeError(f"For '{owner}', every element of 'padding' must be an int, but got "
                        f"{padding!r}")
    if len(padding) % 2:
        raise ValueError(f"For '{owner}', the length of 'padding' must be a multiple of 2, but got "
                         f"{len(padding)}")
    if max_len is not None and len(padding) > max_len:
        raise ValueError(f"For '{owner}', the length of 'padding' must be at most {max_len}, but "
                         f"got {len(padding)}")
    return tuple(int(p) for p in padding)


def _check_input(x, padding, owner):
    """A TypeError unless `x` is a Tensor; a ValueError when `padding` names more axes than `x`
    has or would leave an axis empty."""
    check_type(x, Tensor, "x", owner, "a Tensor")
    k = len(padding) // 2
    if k > x.ndim:
        raise ValueError(f"For '{owner}', a 'padding' of length {len(padding)} needs an input of "
                         f"rank at least {k}, but got shape {x.shape}")
    for j in range(k):
        size = x.shape[x.ndim - 1 - j]
        if size + padding[2 * j] + padding[2 * j + 1] <= 0:
            raise ValueError(f"For '{owner}', the output shape must be positive, but axis "
                             f"{x.ndim - 1 - j} of shape {x.shape} padded by "
                             f"({padding[2 * j]}, {padding[2 * j + 1]}) is empty")


class _ConstantPadNd(Cell):
    """Pad the last axes with `value` (negative amounts crop)."""

    _dims = 1
    _max_len = None

    def __init__(self, padding, value):
        super().__init__()
        owner = type(self).__name__
        self.padding = _padding_tuple(padding, self._dims, owner, self._max_len)
        self.value = check_type(value, (int, float), "value", owner, "an int or a float")

    def construct(self, x):
        _check_input(x, self.padding, type(self).__name__)
        return AF.pad(x, self.padding, "constant", self.value)

    def extend_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last axis with `value`: `padding` an int or (left, right)."""

    _max_len = 2

    def __init__(self, padding, value):
        if isinstance(padding, tuple) and len(padding) % 2 == 0 and len(padding) != 2:
            raise ValueError(f"For 'ConstantPad1d', the length of 'padding' must be 2, but got "
                             f"{len(padding)}")
        super().__init__(padding, value)


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two axes with `value`: `padding` an int or (left, right, top, bottom)."""

    _dims, _max_len = 2, 4


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three axes with `value`: `padding` an int or
    (left, right, top, bottom, front, back)."""

    _dims, _max_len = 3, 6


class _ReflectionPadNd(Cell):
    """Mirror padding without repeating the edge; every amount must be >= 0 and smaller than the
    axis it pads. Any input rank of at least len(padding) / 2 is accepted (as in MindSpore)."""

    _dims = 1

    def __init__(self, padding):
        super().__init__()
        owner = type(self).__name__
        self.padding = _padding_tuple(padding, self._dims, owner, None)
        if any(p < 0 for p in self.padding):
            raise ValueError(f"For '{owner}', every element of 'padding' must be >= 0, but got "
                             f"{self.padding}")

    def construct(self, x):
        owner = type(self).__name__
        _check_input(x, self.padding, owner)
        for j in range(len(self.padding) // 2):
            size = x.shape[x.ndim - 1 - j]
            if max(self.padding[2 * j], self.padding[2 * j + 1]) >= size:
                raise ValueError(f"For '{owner}', the padding of axis {x.ndim - 1 - j} must be "
                                 f"smaller than its size {size}, but got "
                                 f"({self.padding[2 * j]}, {self.padding[2 * j + 1]})")
        if not any(self.padding):
            return x
        return AF.pad(x, self.padding, "reflect")

    def extend_repr(self):
        return f"padding={self.padding}"


class ReflectionPad1d(_ReflectionPadNd):
    """Reflection padding of the last axis: `padding` an int or (left, right)."""


class ReflectionPad2d(_ReflectionPadNd):
    """Reflection padding of the last two axes: `padding` an int or (left, right, top, bottom)."""

    _dims = 2


class ReflectionPad3d(_ReflectionPadNd):
    """Reflection padding of the last three axes: `padding` an int or
    (left, right, top, bottom, front, back)."""

    _dims = 3


class _ReplicationPadNd(Cell):
    """Padding that repeats the edge element (negative amounts crop). As MindSpore's PadV3, a
    padding of length 2k needs an input of rank k + 2, or of rank k + 1 when k is the cell's
    own dimension (an unbatched input)."""

    _dims = 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _padding_tuple(padding, self._dims, type(self).__name__, None)

    def construct(self, x):
        owner = type(self).__name__
        check_type(x, Tensor, "x", owner, "a Tensor")
        k = len(self.padding) // 2
        ranks = (k + 1, k + 2) if k == self._dims else (k + 2,)
        if x.ndim not in ranks:
            raise ValueError(f"For '{owner}', a 'padding' of length {len(self.padding)} needs an "
                             f"input of rank {' or '.join(map(str, ranks))}, but got shape "
                             f"{x.shape}")
        _check_input(x, self.padding, owner)
        return AF.pad(x, self.padding, "replicate")

    def extend_repr(self):
        return f"padding={self.padding}"


class ReplicationPad1d(_ReplicationPadNd):
    """Edge padding of the last axis of a (C, W) or (N, C, W) input: `padding` an int or
    (left, right)."""


class ReplicationPad2d(_ReplicationPadNd):
    """Edge padding of the last two axes of a (C, H, W) or (N, C, H, W) input: `padding` an int
    or (left, right, top, bottom)."""

    _dims = 2


class ReplicationPad3d(_ReplicationPadNd):
    """Edge padding of the last three axes of a (C, D, H, W) or (N, C, D, H, W) input: `padding`
    an int or (left, right, top, bottom, front, back)."""

    _dims = 3


# ---- channel rearranging ---------------------------------------------------------------------

class PixelShuffle(Cell):
    """(*, C * r * r, H, W) -> (*, C, H * r, W * r) with r = `upscale_factor`.

    `upscale_factor` is checked here, at construction (MindSpore checks it on the first call)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = check_positive_int(upscale_factor, "upscale_factor", "PixelShuffle")

    def construct(self, input):
        check_type(input, Tensor, "input", "PixelShuffle", "a Tensor")
        if input.ndim < 3:
            raise ValueError(f"For 'PixelShuffle', the rank of 'input' must be at least 3, but got "
                             f"shape {input.shape}")
        r = self.upscale_factor
        if input.shape[-3] % (r * r):
            raise ValueError(f"For 'PixelShuffle', the third to last axis of 'input' must be "
                             f"divisible by upscale_factor ** 2 = {r * r}, but got shape "
                             f"{input.shape}")
        return LF.pixel_shuffle(input, r)

    def extend_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Cell):
    """(*, C, H * r, W * r) -> (*, C * r * r, H, W) with r = `downscale_factor`, the inverse of
    PixelShuffle. `downscale_factor` is checked at construction."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = check_positive_int(downscale_factor, "downscale_factor",
                                                   "PixelUnshuffle")

    def construct(self, input):
        check_type(input, Tensor, "input", "PixelUnshuffle", "a Tensor")
        if input.ndim < 3:
            raise ValueError(f"For 'PixelUnshuffle', the rank of 'input' must be at least 3, but "
                             f"got shape {input.shape}")
        r = self.downscale_factor
        if input.shape[-2] % r or input.shape[-1] % r:
            raise ValueError(f"For 'PixelUnshuffle', the last two axes of 'input' must be "
                             f"divisible by downscale_factor = {r}, but got shape {input.shape}")
        return LF.pixel_unshuffle(input, r)

    def extend_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Cell):
    """Split the C channels of an (N, C, *) input into `groups` groups and interleave them:
    view as (N, groups, C / groups, -1), swap the two middle axes, restore the shape."""

    def __init__(self, groups):
        super().__init__()
        self.groups = check_positive_int(groups, "groups", "ChannelShuffle")

    def construct(self, x):
        check_type(x, Tensor, "x", "ChannelShuffle", "a Tensor")
        if x.ndim < 2:
            raise ValueError(f"For 'ChannelShuffle', the rank of 'x' must be at least 2, but got "
                             f"shape {x.shape}")
        shape = x.shape
        n, c = shape[0], shape[1]
        g = self.groups
        if c % g:
            raise ValueError(f"For 'ChannelShuffle', the channels (axis 1) of 'x' must be "
                             f"divisible by groups = {g}, but got shape {shape}")
        out = AF.reshape(x, (n, g, c // g, -1))
        out = AF.transpose(out, (0, 2, 1, 3))
        return AF.reshape(out, shape)

    def extend_repr(self):
        return f"groups={self.groups}"
