"""`mindspore.dataset.vision`: image transforms, the enums of their modes, and image I/O."""
from . import transforms, utils
from .transforms import *
from .utils import *

__all__ = ["transforms", "utils"] + transforms.__all__ + utils.__all__
