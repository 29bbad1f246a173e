"""Loss cells."""
from ...ops.function import math_func as F
from ...ops.function import nn_func as NF
from ..cell import Cell

__all__ = ["LossBase", "BCEWithLogitsLoss"]


class LossBase(Cell):
    """Base of loss cells: `get_loss(x, weights=1.0)` applies weights and the reduction."""

    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"For '{type(self).__name__}', 'reduction' must be 'mean', 'sum' or "
                             f"'none', but got {reduction!r}")
        self.reduction = reduction

    def get_loss(self, x, weights=1.0):
        """x * weights reduced by `reduction`."""
        if not (isinstance(weights, float) and weights == 1.0):
            x = x * weights
        if self.reduction == "mean":
            return F.mean(x)
        if self.reduction == "sum":
            return F.sum(x)
        return x

    def construct(self, logits, labels):
        raise NotImplementedError(f"'{type(self).__name__}' must define construct()")


class BCEWithLogitsLoss(LossBase):
    """Binary cross-entropy on logits, stable for any logit.

    Args:
        reduction (str): 'mean' (default), 'sum' or 'none'.
        weight (Tensor): per-element rescaling, broadcast to the logits.
        pos_weight (Tensor): weight of the positive term, broadcast to the logits.
    """

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, logits, labels):
        return NF.binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight,
                                                   self.reduction)
