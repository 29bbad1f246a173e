"""Functional clipping: `clamp` and its aliases `clip`, `clip_by_value`, and clipping by norm
(`clip_by_norm`, `clip_by_global_norm`) (MindSpore's `ops/function/clip_func.py`)."""
import math

from ..._autodiff.tape import apply
from ..._validator import check_bool, check_positive_float
from ..operations import math_ops as M
from ._checks import _tensor

__all__ = ["clamp", "clip", "clip_by_value", "clip_by_norm", "clip_by_global_norm"]

_CLIP = M.ClipByValue()
_MAXIMUM = M.Maximum()


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


def _total_norm(tensors, norm_type, what):
    """The `norm_type`-norm of all the tensors' elements together."""
    p = float(norm_type)
    if p <= 0:
        raise ValueError(f"For '{what}', 'norm_type' must be positive or inf, but got {norm_type}")
    if math.isinf(p):
        total = tensors[0].abs().max()
        for t in tensors[1:]:
            total = apply(_MAXIMUM, (total, t.abs().max()))
        return total
    total = (tensors[0].abs() ** p).sum()
    for t in tensors[1:]:
        total = total + (t.abs() ** p).sum()
    return total ** (1.0 / p)


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """`x` (a Tensor, or a tuple/list of Tensors sharing one total norm) scaled by
    max_norm / (total_norm + 1e-6) when the total `norm_type`-norm exceeds `max_norm`."""
    tensors = list(x) if isinstance(x, (tuple, list)) else [x]
    for t in tensors:
        _tensor(t, "clip_by_norm")
    check_bool(error_if_nonfinite, "error_if_nonfinite", "clip_by_norm")
    total = _total_norm(tensors, norm_type, "clip_by_norm")
    if error_if_nonfinite and not math.isfinite(float(total.asnumpy())):
        raise RuntimeError(f"For 'clip_by_norm', the total norm of order {norm_type} is "
                           f"non-finite, so it cannot be clipped")
    scale = clamp(max_norm / (total + 1e-6), max=1.0)
    out = [t * scale.astype(t.dtype) for t in tensors]
    return type(x)(out) if isinstance(x, (tuple, list)) else out[0]


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """The tensors of `x` scaled by clip_norm / max(global_norm, clip_norm), global_norm the
    2-norm of all of them together (or `use_norm` when given)."""
    if not isinstance(x, (tuple, list)) or not x:
        raise TypeError("For 'clip_by_global_norm', 'x' must be a non-empty tuple or list of "
                        "Tensors")
    for t in x:
        _tensor(t, "clip_by_global_norm")
    clip_norm = check_positive_float(float(clip_norm), "clip_norm", "clip_by_global_norm")
    if use_norm is None:
        scale = clip_norm / clamp(_total_norm(x, 2.0, "clip_by_global_norm"), min=clip_norm)
        return tuple(t * scale.astype(t.dtype) for t in x)
    scale = clip_norm / max(float(use_norm), clip_norm)
    return tuple(t * scale for t in x)
