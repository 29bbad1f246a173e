"""`mindspore.dataset.vision`: image transforms and the `Inter` / `Border` modes."""
from . import transforms, utils
from .transforms import (HWC2CHW, CenterCrop, Decode, Normalize, Pad, RandomCrop,
                         RandomHorizontalFlip, RandomVerticalFlip, Rescale, Resize, ToTensor)
from .utils import Border, Inter

__all__ = ["transforms", "utils", "HWC2CHW", "Border", "CenterCrop", "Decode", "Inter",
           "Normalize", "Pad", "RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip",
           "Rescale", "Resize", "ToTensor"]
