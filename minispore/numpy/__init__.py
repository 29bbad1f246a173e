"""MindSpore's `mindspore.numpy`: a NumPy-like API over minispore Tensors, with MindSpore's dtype
rules (Python ints are int32, floats float32) and gradients through the tape."""
from . import array_creations, array_ops, dtypes, logic_ops, math_ops
from .array_creations import *
from .array_ops import *
from .dtypes import *
from .logic_ops import *
from .math_ops import *

__all__ = (array_creations.__all__ + array_ops.__all__ + dtypes.__all__ + logic_ops.__all__
           + math_ops.__all__)
