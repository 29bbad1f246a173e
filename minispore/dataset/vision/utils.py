"""Enums of `mindspore.dataset.vision`: interpolation (`Inter`) and border (`Border`) modes."""
from enum import Enum, IntEnum

__all__ = ["Border", "Inter"]


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
