"""`mindspore.dataset.vision.transforms`: every image transform, gathered from the family
modules (core resize / crop / pad / normalize, colour, geometry, random and batch ops)."""
from . import _augment, _batch, _bbox, _color, _core, _geometry, _random
from ._augment import *
from ._batch import *
from ._bbox import *
from ._color import *
from ._core import *
from ._geometry import *
from ._random import *
from ._video import DecodeVideo
from .utils import Border, ConvertMode, ImageBatchFormat, Inter, SliceMode  # noqa: F401

__all__ = (_core.__all__ + _color.__all__ + _geometry.__all__ + _random.__all__ + _batch.__all__
           + _augment.__all__ + _bbox.__all__ + ["DecodeVideo"])
