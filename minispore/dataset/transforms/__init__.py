"""`mindspore.dataset.transforms`: general transforms for `map` or eager use."""
from . import transforms
from .transforms import (Compose, Concatenate, Duplicate, Fill, Mask, OneHot, PadEnd, RandomApply,
                         RandomChoice, RandomOrder, Relational, Slice, TensorOperation, TypeCast,
                         Unique, not_random)

__all__ = ["transforms", "Compose", "Concatenate", "Duplicate", "Fill", "Mask", "OneHot",
           "PadEnd", "RandomApply", "RandomChoice", "RandomOrder", "Relational", "Slice",
           "TensorOperation", "TypeCast", "Unique", "not_random"]
