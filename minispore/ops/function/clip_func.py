"""Functional clipping: `clamp` and its aliases `clip`, `clip_by_value` (MindSpore's
`ops/function/clip_func.py`)."""
from ..._autodiff.tape import apply
from ..operations import math_ops as M
from ._checks import _tensor

__all__ = ["clamp", "clip", "clip_by_value"]

_CLIP = M.ClipByValue()


def clamp(input, min=None, max=None):
    """input limited to [min, max] (either may be None; Tensors or numbers, which take part in
    type promotion: an int Tensor clamped to float bounds is float32). The gradient passes on the
    closed interval."""
    _tensor(input, "clamp")
    if min is None and max is None:
        raise ValueError("For 'clamp', 'min' and 'max' must not both be None")
    return apply(_CLIP, (input, min, max))


def clip(input, min=None, max=None):
    """Alias of `clamp`."""
    return clamp(input, min, max)


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """x limited to [clip_value_min, clip_value_max] (MindSpore's older name of `clamp`)."""
    return clamp(x, clip_value_min, clip_value_max)
