"""`mindspore.dataset.transforms`: general transforms for `map` or eager use."""
from . import transforms
from .transforms import (Compose, Duplicate, Fill, OneHot, RandomApply, RandomChoice,
                         TensorOperation, TypeCast)

__all__ = ["transforms", "Compose", "Duplicate", "Fill", "OneHot", "RandomApply",
           "RandomChoice", "TensorOperation", "TypeCast"]
