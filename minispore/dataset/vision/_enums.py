"""Enums of `mindspore.dataset.vision`: interpolation (`Inter`), border (`Border`), colour
conversion, batch layout, read and slice modes, auto-augment policies."""
from enum import Enum, IntEnum

__all__ = ["AutoAugmentPolicy", "Border", "ConvertMode", "ImageBatchFormat", "ImageReadMode",
           "Inter", "SliceMode"]


class Inter(IntEnum):
    """Interpolation modes; `LINEAR` is an alias of `BILINEAR`, `CUBIC` of `BICUBIC`."""

    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = 2
    LINEAR = 2
    BICUBIC = 3
    CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str, Enum):
    """Padding modes: a constant, the edge pixel repeated, a reflection without the edge
    (`REFLECT`: 3 2 | 1 2 3) or with it (`SYMMETRIC`: 2 1 | 1 2 3)."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class ConvertMode(IntEnum):
    """Colour conversions of `ConvertColor` (OpenCV's names; RGB and BGR twins share a value)."""

    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = 1
    COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = 2
    COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = 3
    COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = 4
    COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = 5
    COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = 9
    COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


class ImageBatchFormat(IntEnum):
    """Layout of an image batch: NHWC or NCHW."""

    NHWC = 0
    NCHW = 1


class ImageReadMode(IntEnum):
    """How `read_image` / `decode_image` return channels: as stored, grey, or RGB."""

    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


class SliceMode(IntEnum):
    """What `SlicePatches` does with a remainder: pad the image up, or drop it."""

    PAD = 0
    DROP = 1


class AutoAugmentPolicy(str, Enum):
    """The learned policies of `AutoAugment`."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"

