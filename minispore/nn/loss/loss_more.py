"""L1LossExt and SampledSoftmaxLoss."""
import numpy as np

from ..._autodiff.tape import const
from ..._validator import check_type
from ...common.tensor import Tensor
from ...ops.function import array_func as AF
from ...ops.function import math_func as F
from ...ops.function import nn_func as NF
from ...ops.function.linalg_func import matmul
from ...ops.function.random_func import uniform_candidate_sampler
from ...ops.operations import math_ops as M
from .loss import LossBase

__all__ = ["L1LossExt", "SampledSoftmaxLoss"]


class L1LossExt(LossBase):
    """|logits - labels|, broadcasting, reduced ('mean' by default)."""

    def construct(self, logits, labels):
        return NF.l1_loss(logits, labels, self.reduction)


class SampledSoftmaxLoss(LossBase):
    """Softmax cross-entropy over each example's `num_true` true classes and `num_sampled`
    classes drawn uniformly (without the true ones when `remove_accidental_hits`), every logit
    corrected by minus the log of its expected count; the training-time stand-in for a full
    softmax over `num_classes`.

    construct(weights (num_classes, dim), biases (num_classes,), labels (batch, num_true) int,
    logits (batch, dim)) -> (batch,) losses, reduced by `reduction` ('none' by default).
    `sampled_values` = (sampled, true_expected_count, sampled_expected_count) fixes the draw.
    """

    def __init__(self, num_sampled, num_classes, num_true=1, sampled_values=None,
                 remove_accidental_hits=True, seed=0, reduction="none"):
        super().__init__(reduction)
        owner = "SampledSoftmaxLoss"
        if num_true < 1:
            raise ValueError(f"For '{owner}', the 'num_true' must be greater than or equal to "
                             f"1, but got {num_true}.")
        if seed < 0:
            raise ValueError(f"For '{owner}', the 'seed' must be greater than or equal to 0, "
                             f"but got {seed}.")
        if num_sampled > num_classes:
            raise ValueError(f"For '{owner}', the 'num_sampled' must be smaller than or equal "
                             f"to 'num_classes', but got 'num_sampled': {num_sampled} and "
                             f"'num_classes': {num_classes}.")
        if num_true > num_classes:
            raise ValueError(f"For '{owner}', the 'num_true' must be smaller than or equal to "
                             f"'num_classes', but got 'num_true': {num_true} and "
                             f"'num_classes': {num_classes}.")
        if sampled_values is not None:
            check_type(sampled_values, (list, tuple), "sampled_values", owner)
            if len(sampled_values) != 3:
                raise ValueError(f"For '{owner}', the length of 'sampled_values' must be equal "
                                 f"to 3, but got {len(sampled_values)}.")
        self.num_sampled, self.num_classes, self.num_true = num_sampled, num_classes, num_true
        self.sampled_values = sampled_values
        self.remove_accidental_hits = remove_accidental_hits
        self.seed = seed

    def construct(self, weights, biases, labels, logits):
        owner = "SampledSoftmaxLoss"
        for arg, x in (("weights", weights), ("biases", biases), ("labels", labels),
                       ("logits", logits)):
            check_type(x, Tensor, arg, owner)
        if labels._data.dtype not in (np.int32, np.int64):
            raise TypeError(f"For '{owner}', the 'labels' must be int32 or int64, but got "
                            f"{labels.dtype}")
        labels = AF.reshape(M.cast(labels, np.int32), (-1, self.num_true))
        sampled_values = self.sampled_values
        if sampled_values is None:
            sampled_values = uniform_candidate_sampler(labels, self.num_true, self.num_sampled,
                                                       True, self.num_classes, self.seed,
                                                       self.remove_accidental_hits)
        sampled, true_expected, sampled_expected = sampled_values
        sampled_ids = M.cast(sampled, np.int32) if isinstance(sampled, Tensor) else \
            const(np.asarray(sampled, np.int32))
        true_ids = AF.reshape(labels, (-1,))
        dim = weights.shape[1]
        true_w = AF.gather(weights, true_ids, 0)
        sampled_w = AF.gather(weights, sampled_ids, 0)
        true_b = AF.reshape(AF.gather(biases, true_ids, 0), (-1, self.num_true))
        sampled_b = AF.gather(biases, sampled_ids, 0)
        true_logits = F.sum(AF.expand_dims(logits, 1) *
                            AF.reshape(true_w, (-1, self.num_true, dim)), 2) + true_b
        sampled_logits = matmul(logits, AF.swapaxes(sampled_w, 0, 1)) + sampled_b
        true_logits = true_logits - F.log(_as_tensor(true_expected, true_logits))
        sampled_logits = sampled_logits - F.log(_as_tensor(sampled_expected, sampled_logits))
        out_logits = AF.concat((true_logits, sampled_logits), 1)
        targets = const(np.concatenate(
            [np.full(true_logits.shape, 1.0 / self.num_true),
             np.zeros(sampled_logits.shape)], 1).astype(out_logits._data.dtype))
        shifted = out_logits - F.amax(out_logits, 1, True)
        exp = F.exp(shifted)
        pred = exp / F.sum(exp, 1, True)
        loss = -F.sum(targets * F.log(pred + 1.0e-20), 1)
        return self.get_loss(loss)


def _as_tensor(value, like):
    if isinstance(value, Tensor):
        return NF.stop_gradient(M.cast(value, like._data.dtype))  # a constant, as in MindSpore
    return const(np.asarray(value).astype(like._data.dtype))
