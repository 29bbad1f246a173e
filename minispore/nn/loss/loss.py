"""Loss cells: `nn.CrossEntropyLoss`, `nn.SoftmaxCrossEntropyWithLogits`, `nn.MSELoss`, ... over
the functional losses of `ops`, with MindSpore 2.10's signatures and defaults."""
import numpy as np

from ..._autodiff.tape import const
from ..._validator import (check_bool, check_callable, check_float, check_float_range, check_int,
                           check_non_negative_float, check_non_negative_int, check_one_of,
                           check_positive_float, check_reduction, check_type)
from ...common.tensor import Tensor
from ...ops import operations as P
from ...ops.function import loss_func as LF
from ...ops.function import math_func as F
from ...ops.function import nn_func as NF
from ...ops.operations import array_ops as A
from ...ops.operations import loss_ops as LO
from ...ops.operations import math_ops as M
from ...ops.operations import reduce_ops as R
from ...ops.primitive import data_function
from ..cell import Cell
from ..layer.activation import get_activation

__all__ = [
    "LossBase", "CrossEntropyLoss", "SoftmaxCrossEntropyWithLogits", "NLLLoss", "BCELoss",
    "BCEWithLogitsLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "KLDivLoss",
    "CosineEmbeddingLoss", "MarginRankingLoss", "SoftMarginLoss", "HingeEmbeddingLoss",
    "MultiMarginLoss", "MultiLabelSoftMarginLoss", "TripletMarginLoss", "GaussianNLLLoss",
    "MAELoss", "RMSELoss", "FocalLoss", "DiceLoss",
]


def _optional_tensor(owner, name, value):
    return check_type(value, (Tensor, type(None)), name, owner, "a Tensor or None")


class LossBase(Cell):
    """Base of loss cells: `get_loss(x, weights=1.0)` multiplies by `weights` and applies the
    reduction ('mean' over all elements, 'sum', or 'none').

    Args:
        reduction (str): 'mean' (default), 'sum' or 'none'.
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = check_reduction(reduction, type(self).__name__)
        # MindSpore's LossBase attributes, which subclasses in user code rely on.
        self.average = reduction == "mean"
        self.reduce = reduction != "none"
        self.reduce_mean = P.ReduceMean()
        self.reduce_sum = P.ReduceSum()
        self.mul = P.Mul()
        self.cast = P.Cast()

    def get_axis(self, x):
        """All the axes of `x`, as a tuple."""
        return tuple(range(x.ndim))

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


# ---- classification ------------------------------------------------------------------------------

class CrossEntropyLoss(LossBase):
    """Cross-entropy of logits (N, C, ...) against class indices (N, ...) (int32 or int64) or
    class probabilities (the logits' shape): `ops.cross_entropy`. Finite for logits of any size
    and with -inf entries (masked classes); an out-of-range class is an IndexError.

    Args:
        weight (Tensor): per-class rescaling, shape (C,). Default: None.
        ignore_index (int): class index that contributes nothing (index targets). Default: -100.
        reduction (str): 'mean' (default; weighted by the targets' weights), 'sum' or 'none'.
        label_smoothing (float): in [0, 1]. Default: 0.0.
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        owner = type(self).__name__
        self.weight = _optional_tensor(owner, "weight", weight)
        self.ignore_index = check_int(ignore_index, "ignore_index", owner)
        self.label_smoothing = check_float_range(label_smoothing, "label_smoothing", owner, 0.0,
                                                 1.0)

    def construct(self, logits, labels):
        return NF.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction,
                                self.label_smoothing)


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Softmax cross-entropy of logits (N, C) (classes on the last axis) against one-hot or
    probability labels (N, C) or, with `sparse=True`, class indices (N,).

    Note MindSpore's defaults: `sparse=False` (dense labels) and `reduction='none'` (one loss
    per sample). Finite for logits of any size and with -inf entries; an out-of-range class
    index is an IndexError (MindSpore 2.10 returns a garbage value).

    Args:
        sparse (bool): labels are class indices. Default: False.
        reduction (str): 'none' (default), 'mean' or 'sum'.
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        self.sparse = check_bool(sparse, "sparse", type(self).__name__)

    def construct(self, logits, labels):
        if NF._reduced16(self.reduction, logits, labels):  # see ops.function.nn_func
            return F._wide16(self.construct, logits, labels)
        owner = type(self).__name__
        check_type(logits, Tensor, "logits", owner)
        check_type(labels, Tensor, "labels", owner)
        if logits.ndim == 0:
            raise ValueError(f"For '{owner}', 'logits' must have a class axis, but got a 0-d "
                             "Tensor")
        if self.sparse:
            _check_class_indices(logits, labels, owner)
            if logits.ndim == 2:  # the fused primitive: one pass forward, one backward
                return self.get_loss(LO.sparse_softmax_cross_entropy(logits, labels))
            logp = NF.log_softmax(logits, -1)
            flat = A.reshape(logp, (-1, logits.shape[-1]))
            t = labels._data.reshape(-1)
            picked = A.getitem(flat, (np.arange(t.size), t))
            return self.get_loss(-A.reshape(picked, labels.shape))
        if labels.shape != logits.shape:
            raise ValueError(f"For '{owner}', dense 'labels' must have the logits' shape "
                             f"{logits.shape}, but got {labels.shape} (sparse=False)")
        logp = NF.log_softmax(logits, -1)
        probs = M.cast(labels, logp._data.dtype)
        return self.get_loss(-R.reduce_sum(NF._target_times_logp(probs, logp), -1))


def _check_class_indices(logits, labels, owner):
    """Integer labels of shape logits.shape[:-1], each in [0, C)."""
    t = labels._data
    if t.dtype.kind not in "iu":
        raise TypeError(f"For '{owner}', sparse 'labels' must be int32 or int64 class indices, "
                        f"but got {labels.dtype}")
    if t.shape != logits.shape[:-1]:
        raise ValueError(f"For '{owner}', sparse 'labels' must have shape {logits.shape[:-1]} "
                         f"for logits {logits.shape}, but got {t.shape}")
    c = logits.shape[-1]
    if t.size and (t.min() < 0 or t.max() >= c):
        bad = t[(t < 0) | (t >= c)]
        raise IndexError(f"For '{owner}', label class {bad.ravel()[0]} is out of range "
                         f"[0, {c})")


class NLLLoss(LossBase):
    """Negative log-likelihood of log-probabilities (N, C, ...) at class indices (N, ...):
    `ops.nll_loss`. Out-of-range classes are an IndexError.

    Args:
        weight (Tensor): per-class rescaling, shape (C,). Default: None.
        ignore_index (int): class index that contributes nothing. Default: -100.
        reduction (str): 'mean' (default; weighted by the targets' weights), 'sum' or 'none'.
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight = _optional_tensor(type(self).__name__, "weight", weight)
        self.ignore_index = ignore_index

    def construct(self, logits, labels):
        return NF.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class BCELoss(LossBase):
    """Binary cross-entropy of probabilities `logits` in [0, 1] against `labels`:
    `ops.binary_cross_entropy` (log terms clipped by eps = 1e-12).

    Args:
        weight (Tensor): rescaling broadcast to the inputs. Default: None.
        reduction (str): 'mean' (default), 'sum' or 'none'.
    """

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = _optional_tensor(type(self).__name__, "weight", weight)

    def construct(self, logits, labels):
        return NF.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """Binary cross-entropy on logits, stable for any logit: `ops.binary_cross_entropy_with_logits`.

    Args:
        reduction (str): 'mean' (default), 'sum' or 'none'.
        weight (Tensor): per-element rescaling, broadcast to the logits. Default: None.
        pos_weight (Tensor): weight of the positive term, broadcast to the logits. Default: None.
    """

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        owner = type(self).__name__
        self.weight = _optional_tensor(owner, "weight", weight)
        self.pos_weight = _optional_tensor(owner, "pos_weight", pos_weight)

    def construct(self, input, target):
        return NF.binary_cross_entropy_with_logits(input, target, self.weight, self.pos_weight,
                                                   self.reduction)


def _focal_index(labels, n, c, owner):
    """FocalLoss's class labels (N, 1, ...) as indices (N, H*W) in [0, c) and their flat
    positions in the (N, C, H*W) log-probabilities (a DataFunction)."""
    index = labels.reshape(n, -1)
    if index.dtype.kind == "f":
        index = index.astype(np.int64)  # MindSpore casts float class labels to int
    bad = (index < -c) | (index >= c)
    if bad.any():
        raise IndexError(f"For '{owner}', label class {index[bad][0]} is out of range "
                         f"[-{c}, {c})")
    index = index % c
    hw = index.shape[1]
    rows = np.arange(n)[:, None]
    cols = np.arange(hw)[None, :]
    return index, (rows * c + index) * hw + cols


class FocalLoss(LossBase):
    """Focal loss (Lin et al.): -(1 - p)^gamma * log(p) with p the softmax probability over
    axis 1 of logits (N, C) or (N, C, H[, W]) (deprecated in MindSpore since 2.8, still there).

    `labels` are class indices with one channel, (N, 1, ...), giving one loss per sample
    (averaged over the spatial positions), or one-hot / probability maps of the logits' shape,
    giving one loss per sample and class (averaged over the positions); `get_loss` then reduces.

    Args:
        weight (Tensor): per-class weights (C,), multiplying log(p). Default: None.
        gamma (float): focusing exponent. Default: 2.0.
        reduction (str): 'mean' (default), 'sum' or 'none'.
    """

    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__(reduction)
        owner = type(self).__name__
        check_float(gamma, "gamma", owner, allow_int=False)
        self.weight = _optional_tensor(owner, "weight", weight)
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"For '{owner}', 'weight' must be 1-D, but got shape {weight.shape}")
        self.gamma = gamma

    def construct(self, logits, labels):
        if NF._reduced16(self.reduction, logits, labels):  # see ops.function.nn_func
            return F._wide16(self.construct, logits, labels)
        owner = type(self).__name__
        check_type(logits, Tensor, "logits", owner)
        check_type(labels, Tensor, "labels", owner)
        if not 2 <= logits.ndim <= 4 or labels.ndim != logits.ndim:
            raise ValueError(f"For '{owner}', 'logits' and 'labels' must have the same rank in "
                             f"[2, 4], but got shapes {logits.shape} and {labels.shape}")
        n, c = logits.shape[:2]
        if c == 1 or labels.shape[1] not in (1, c) or labels.shape[2:] != logits.shape[2:]:
            raise ValueError(f"For '{owner}', 'logits' (N, C > 1, ...) and 'labels' (N, 1 or C, "
                             f"...) do not match: {logits.shape} and {labels.shape}")
        logp = NF.log_softmax(A.reshape(logits, (n, c, -1)), 1)
        dt = logp._data.dtype
        if labels.shape[1] == 1:
            # computed from the labels' data by a recorded node, so a graph-mode replay redoes it
            index, flat = data_function(_focal_index, labels, static=(n, c, owner))
            logp = A.gather(A.reshape(logp, (-1,)), flat, 0)  # (N, H*W)
            focus = (1.0 - F.exp(logp)) ** self.gamma  # from the unweighted probability
            if self.weight is not None:
                logp = logp * A.gather(M.cast(self.weight, dt), index, 0)
            return self.get_loss(F.mean(-focus * logp, 1))
        focus = (1.0 - F.exp(logp)) ** self.gamma
        if self.weight is not None:
            logp = logp * A.reshape(M.cast(self.weight, dt), (1, c, 1))
        target = M.cast(A.reshape(labels, (n, c, -1)), dt)
        return self.get_loss(F.mean(-focus * target * logp, -1))


class DiceLoss(LossBase):
    """1 - 2 * sum(logits * label) / (sum(logits^2) + sum(label^2) + smooth), over all elements
    (a scalar; no reduction argument, as in MindSpore).

    Args:
        smooth (float): added to the denominator, > 0. Default: 1e-5.
    """

    def __init__(self, smooth=1e-5):
        super().__init__()
        self.smooth = check_positive_float(smooth, "smooth", type(self).__name__)

    def construct(self, logits, label):
        owner = type(self).__name__
        check_type(logits, Tensor, "logits", owner)
        check_type(label, Tensor, "label", owner)
        if logits.shape != label.shape:
            raise ValueError(f"For '{owner}', 'logits' and 'label' must have the same shape, but "
                             f"got {logits.shape} and {label.shape}")
        label = M.cast(label, logits._data.dtype)
        # float16 in float64, rounded once: the sums pass 65,504 long before their ratio does
        return F._wide16(_dice, logits, label, self.smooth)


def _dice(logits, label, smooth):
    intersection = F.sum(logits * label)
    union = F.sum(logits * logits) + F.sum(label * label)
    return 1.0 - intersection * 2.0 / (union + smooth)


class MultiMarginLoss(LossBase):
    """Multi-class hinge loss of scores (N, C) at class indices (N,): `ops.multi_margin_loss`.

    Args:
        p (int): 1 (default) or 2.
        margin (float): Default: 1.0.
        reduction (str): 'mean' (default), 'sum' or 'none'.
        weight (Tensor): per-class weights (C,); when set it takes precedence over the `weight`
            passed to the call (MindSpore's rule). Default: None.
    """

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__(reduction)
        self.p = check_one_of(p, (1, 2), "p", type(self).__name__)
        self.margin = margin
        self.weight = _optional_tensor(type(self).__name__, "weight", weight)

    def construct(self, x, target, weight=None):
        if self.weight is not None:
            weight = self.weight
        return NF.multi_margin_loss(x, target, self.p, self.margin, weight, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    """`ops.multilabel_soft_margin_loss` as a cell.

    Args:
        weight (Tensor): per-class weights, broadcast to (N, C). Default: None.
        reduction (str): 'mean' (default), 'sum' or 'none'.
    """

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = _optional_tensor(type(self).__name__, "weight", weight)

    def construct(self, x, target):
        return NF.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


# ---- regression ----------------------------------------------------------------------------------

class MSELoss(LossBase):
    """(logits - labels)^2, broadcasting, reduced ('mean' by default)."""

    def construct(self, logits, labels):
        return NF.mse_loss(logits, labels, self.reduction)


class L1Loss(LossBase):
    """|logits - labels|, broadcasting, reduced ('mean' by default)."""

    def construct(self, logits, labels):
        return NF.l1_loss(logits, labels, self.reduction)


class MAELoss(LossBase):
    """Mean absolute error |logits - label|, reduced ('mean' by default)."""

    def construct(self, logits, label):
        return NF.l1_loss(logits, label, self.reduction)


class RMSELoss(LossBase):
    """sqrt(mean((logits - label)^2)): a scalar (no reduction argument, as in MindSpore)."""

    def __init__(self):
        super().__init__()

    def construct(self, logits, label):
        # float16: the square root too in float64, one rounding (see nn_func._reduced16)
        return F._wide16(lambda a, b: F.sqrt(NF.mse_loss(a, b, "mean")), logits, label)


class SmoothL1Loss(LossBase):
    """`ops.smooth_l1_loss` as a cell. Note MindSpore's default `reduction='none'`.

    Args:
        beta (float): where the loss turns from quadratic to linear, >= 0. Default: 1.0.
        reduction (str): 'none' (default), 'mean' or 'sum'.
    """

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        self.beta = check_non_negative_float(beta, "beta", type(self).__name__)

    def construct(self, logits, labels):
        return NF.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class HuberLoss(LossBase):
    """`ops.huber_loss` as a cell: 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta).

    Args:
        reduction (str): 'mean' (default), 'sum' or 'none'.
        delta (float): > 0. Default: 1.0.
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = check_positive_float(delta, "delta", type(self).__name__)

    def construct(self, logits, labels):
        return NF.huber_loss(logits, labels, self.reduction, self.delta)


class KLDivLoss(LossBase):
    """`ops.kl_div` as a cell: `logits` are log-probabilities, `labels` probabilities.

    Args:
        reduction (str): 'mean' (default, over all elements), 'batchmean', 'sum' or 'none'.
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = check_reduction(reduction, type(self).__name__,
                                         ("mean", "batchmean", "sum", "none"))
        self.average = reduction in ("mean", "batchmean")
        self.reduce = reduction != "none"

    def construct(self, logits, labels):
        return NF.kl_div(logits, labels, self.reduction)


class GaussianNLLLoss(LossBase):
    """`ops.gaussian_nll_loss` as a cell; called as `loss(logits, labels, var)`.

    Args:
        full (bool): add the constant 0.5 * log(2 pi). Default: False.
        eps (float): lower bound of the variance. Default: 1e-6.
        reduction (str): 'mean' (default), 'sum' or 'none'.
    """

    def __init__(self, *, full=False, eps=1e-06, reduction="mean"):
        super().__init__(reduction)
        self.full = check_bool(full, "full", type(self).__name__)
        self.eps = check_positive_float(eps, "eps", type(self).__name__)

    def construct(self, logits, labels, var):
        return NF.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


# ---- embeddings and ranking ----------------------------------------------------------------------

class CosineEmbeddingLoss(LossBase):
    """`ops.cosine_embedding_loss` as a cell: 1 - cos where labels is 1, max(0, cos - margin)
    where it is -1 (cosine along axis 1).

    Args:
        margin (float): in [-1, 1]. Default: 0.0.
        reduction (str): 'mean' (default), 'sum' or 'none'.
    """

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        owner = type(self).__name__
        self.margin = check_float_range(margin, "margin", owner, -1.0, 1.0, allow_int=False)

    def construct(self, logits_x1, logits_x2, labels):
        return NF.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin, self.reduction)


class MarginRankingLoss(LossBase):
    """`ops.margin_ranking_loss` as a cell: max(0, -target * (input1 - input2) + margin).

    Args:
        margin (float): Default: 0.0.
        reduction (str): 'mean' (default), 'sum' or 'none'.
    """

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, input1, input2, target):
        return NF.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class SoftMarginLoss(LossBase):
    """`ops.soft_margin_loss` as a cell: log(1 + exp(-labels * logits)), stable for any logit."""

    def construct(self, logits, labels):
        return NF.soft_margin_loss(logits, labels, self.reduction)


class HingeEmbeddingLoss(LossBase):
    """`ops.hinge_embedding_loss` as a cell: logits where labels is 1, max(0, margin - logits)
    where it is -1.

    Args:
        margin (float): Default: 1.0.
        reduction (str): 'mean' (default), 'sum' or 'none'.
    """

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, logits, labels):
        return NF.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class TripletMarginLoss(LossBase):
    """`ops.triplet_margin_loss` as a cell, called as `loss(x, positive, negative, margin=1.0)`.

    MindSpore's rule for the two margins: the constructor's `margin` is used when it differs
    from 1.0, otherwise the one passed to the call.

    Args:
        p (int): norm degree of the distances. Default: 2.
        swap (bool): use min(d(x, negative), d(positive, negative)). Default: False.
        eps (float): added inside the distances. Default: 1e-6.
        reduction (str): 'mean' (default), 'sum' or 'none'.
        margin (float): Default: 1.0.
    """

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean", margin=1.0):
        super().__init__(reduction)
        self.p = p
        self.swap = swap
        self.eps = eps
        self.margin = margin

    def construct(self, x, positive, negative, margin=1.0):
        if self.margin != 1.0:
            margin = self.margin
        return NF.triplet_margin_loss(x, positive, negative, margin, self.p, self.eps, self.swap,
                                      self.reduction)


# ---- sequences, segmentation, counts -------------------------------------------------------------

__all__ += ["CTCLoss", "MultiClassDiceLoss", "MultilabelMarginLoss", "PoissonNLLLoss",
            "TripletMarginWithDistanceLoss"]


class CTCLoss(LossBase):
    """Connectionist temporal classification loss: `ops.ctc_loss` without log_alpha.

    Called as `loss(log_probs, targets, input_lengths, target_lengths)` with log_probs (T, N, C)
    and targets padded (N, S) or concatenated (sum(target_lengths),), or one unbatched sequence:
    log_probs (T, C) with targets (S,) or (1, S), giving a loss without the batch axis.

    Args:
        blank (int): the blank class, in [0, C). Default: 0.
        reduction (str): 'mean' (default: each loss divided by its target length, then
            averaged), 'sum' or 'none'.
        zero_infinity (bool): infinite losses and their gradients become 0. Default: False.
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction)
        owner = type(self).__name__
        self.blank = check_non_negative_int(blank, "blank", owner)
        self.zero_infinity = check_bool(zero_infinity, "zero_infinity", owner)

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        owner = type(self).__name__
        check_type(log_probs, Tensor, "log_probs", owner)
        check_type(targets, Tensor, "targets", owner)
        if log_probs.ndim == 2:
            if targets.ndim not in (1, 2) or (targets.ndim == 2 and targets.shape[0] != 1):
                raise ValueError(f"For '{owner}', with 2-D log_probs (T, C) the targets must be "
                                 f"(S,) or (1, S), but got {targets.shape}")
            if targets.ndim == 1:
                targets = A.reshape(targets, (1, -1))
            log_probs = A.reshape(log_probs, (log_probs.shape[0], 1, log_probs.shape[1]))
            loss, _ = LF.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                                  self.reduction, self.zero_infinity)
            return A.reshape(loss, ()) if self.reduction == "none" else loss
        loss, _ = LF.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                              self.reduction, self.zero_infinity)
        return loss


class MultiClassDiceLoss(LossBase):
    """The mean over classes (axis 1) of `DiceLoss` between activation(logits)[:, i] and
    label[:, i], for logits and label (N, C, ...) (deprecated in MindSpore since 2.8, still
    there). As in MindSpore, the 'softmax' activation runs over the last axis, and a weight
    row `weights[i]` (D,) multiplies class i's loss, making the result (D,).

    Args:
        weights (Tensor): (C, D) per-class weights. Default: None.
        ignore_indiex (int): a class left out of the sum (MindSpore's spelling); the divisor
            stays C. Default: None.
        activation (Union[str, Cell]): 'softmax' (default), 'logsoftmax', 'relu', 'relu6',
            'tanh', 'sigmoid', a Cell, or None.
    """

    _ACTIVATIONS = ("softmax", "logsoftmax", "relu", "relu6", "tanh", "sigmoid")

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax"):
        super().__init__()
        owner = type(self).__name__
        self.weights = _optional_tensor(owner, "weights", weights)
        if weights is not None and weights.ndim != 2:
            raise ValueError(f"For '{owner}', 'weights' must be 2-D (C, D), but got shape "
                             f"{weights.shape}")
        if ignore_indiex is not None:
            check_int(ignore_indiex, "ignore_indiex", owner)
        if isinstance(activation, str):
            activation = get_activation(check_one_of(activation, self._ACTIVATIONS,
                                                     "activation", owner))
        else:
            check_type(activation, (Cell, type(None)), "activation", owner,
                       "a str, a Cell or None")
        self.ignore_indiex = ignore_indiex
        self.activation = activation
        self.binarydiceloss = DiceLoss(smooth=1e-5)

    def construct(self, logits, label):
        if NF._reduced16("mean", logits, label, self.weights):  # see ops.function.nn_func
            return F._wide16(self.construct, logits, label)
        owner = type(self).__name__
        check_type(logits, Tensor, "logits", owner)
        check_type(label, Tensor, "label", owner)
        if logits.shape != label.shape or logits.ndim < 2:
            raise ValueError(f"For '{owner}', 'logits' and 'label' must have the same shape "
                             f"(N, C, ...), but got {logits.shape} and {label.shape}")
        c = label.shape[1]
        if self.weights is not None and self.weights.shape[0] != c:
            raise ValueError(f"For '{owner}', 'weights' must have {c} rows (the classes of "
                             f"'label' {label.shape}), but got shape {self.weights.shape}")
        if self.activation is not None:
            logits = self.activation(logits)
        total = 0.0
        for i in range(c):
            if i != self.ignore_indiex:
                loss = self.binarydiceloss(logits[:, i], label[:, i])
                if self.weights is not None:
                    loss = loss * self.weights[i]
                total = total + loss
        if isinstance(total, float):  # every class ignored
            total = M.cast(const(np.array(total)), logits._data.dtype)
        return total / float(c)


class MultilabelMarginLoss(LossBase):
    """`ops.multilabel_margin_loss` as a cell, called as `loss(x, target)`.

    Args:
        reduction (str): 'mean' (default), 'sum' or 'none'.
    """

    def construct(self, x, target):
        return LF.multilabel_margin_loss(x, target, self.reduction)


def _stirling(t, eps, dt):
    """PoissonNLLLoss's Stirling term of the target (only where target > 1), in dtype dt."""
    t = np.maximum(t, eps)
    safe = np.where(t > 1, t, 1.0)
    stirling = np.where(t > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * np.pi * safe), 0.0)
    return stirling.astype(dt)


class PoissonNLLLoss(LossBase):
    """Negative log-likelihood of a Poisson distribution: exp(input) - target * input with
    `log_input`, else input - target * log(input + eps); with `full`, Stirling's term
    target * log(target) - target + 0.5 * log(2 pi target) is added where target > 1.

    Args:
        log_input (bool): the input is the log of the rate. Default: True.
        full (bool): add Stirling's approximation term. Default: False.
        eps (float): added inside the log when `log_input` is False. Default: 1e-08.
        reduction (str): 'mean' (default), 'sum' or 'none'.
    """

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__(reduction)
        self.log_input = check_bool(log_input, "log_input", type(self).__name__)
        self.full = check_bool(full, "full", type(self).__name__)
        self.eps = eps

    def construct(self, input, target):
        if NF._reduced16(self.reduction, input, target):  # see ops.function.nn_func
            return F._wide16(self.construct, input, target)
        owner = type(self).__name__
        check_type(input, Tensor, "input", owner)
        check_type(target, Tensor, "target", owner)
        target = M.cast(target, input._data.dtype)
        if self.log_input:
            loss = F.exp(input) - target * input
        else:
            loss = input - target * F.log(input + self.eps)
        if self.full:
            # a constant of the target (no gradient), made by a recorded node: a graph-mode replay
            # computes it again from the new target
            loss = loss + data_function(_stirling, target, static=(self.eps, input._data.dtype))
        return self.get_loss(loss)


def _pairwise_distance(x, y):
    d = F.abs(x - y)
    if d.ndim == 0:
        raise ValueError("For 'TripletMarginWithDistanceLoss', the inputs must have at least one "
                         "axis, but got 0-d Tensors")
    # float16 in float64, rounded once: the sum of squares passes 65,504 before the distance
    return F._wide16(lambda d: F.sqrt(F.sum(d * d, 1)), d)


class TripletMarginWithDistanceLoss(LossBase):
    """max(d(x, positive) - d(x, negative) + margin, 0), reduced, with a distance function
    (default: the Euclidean distance along axis 1).

    Args:
        distance_function (callable): d(a, b) -> Tensor. Default: None (Euclidean, axis 1).
        swap (bool): use min(d(x, negative), d(positive, negative)). Default: False.
        reduction (str): 'mean' (default), 'sum' or 'none'.
        margin (float): Default: 1.0.
    """

    def __init__(self, distance_function=None, swap=False, reduction="mean", margin=1.0):
        super().__init__(reduction)
        owner = type(self).__name__
        self.margin = check_float(margin, "margin", owner, allow_int=False)
        self.swap = check_bool(swap, "swap", owner)
        if distance_function is not None:
            check_callable(distance_function, "distance_function", owner)
        self.distance_function = distance_function or _pairwise_distance

    def construct(self, x, positive, negative):
        if (self.distance_function is _pairwise_distance  # float16: see ops.function.nn_func
                and NF._reduced16(self.reduction, x, positive, negative)):
            return F._wide16(self.construct, x, positive, negative)
        owner = type(self).__name__
        check_type(x, Tensor, "x", owner)
        check_type(positive, Tensor, "positive", owner)
        check_type(negative, Tensor, "negative", owner)
        d1 = self.distance_function(x, positive)
        d2 = self.distance_function(x, negative)
        if self.swap:
            d2 = F.minimum(d2, self.distance_function(positive, negative))
        return self.get_loss(NF.relu(d1 - d2 + self.margin))
