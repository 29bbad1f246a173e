"""Loss cells: `nn.CrossEntropyLoss`, `nn.SoftmaxCrossEntropyWithLogits`, `nn.MSELoss`, ... over
the functional losses of `ops`, with MindSpore 2.10's signatures and defaults."""
import numpy as np

from ...common.tensor import Tensor
from ...ops import operations as P
from ...ops.function import math_func as F
from ...ops.function import nn_func as NF
from ...ops.operations import array_ops as A
from ...ops.operations import loss_ops as LO
from ...ops.operations import math_ops as M
from ..cell import Cell

__all__ = [
    "LossBase", "CrossEntropyLoss", "SoftmaxCrossEntropyWithLogits", "NLLLoss", "BCELoss",
    "BCEWithLogitsLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "KLDivLoss",
    "CosineEmbeddingLoss", "MarginRankingLoss", "SoftMarginLoss", "HingeEmbeddingLoss",
    "MultiMarginLoss", "MultiLabelSoftMarginLoss", "TripletMarginLoss", "GaussianNLLLoss",
    "MAELoss", "RMSELoss", "FocalLoss", "DiceLoss",
]


def _check_reduction(owner, reduction, allowed=("mean", "sum", "none")):
    if reduction not in allowed:
        raise ValueError(f"For '{owner}', 'reduction' must be one of {list(allowed)}, but got "
                         f"{reduction!r}")


def _check_tensor(owner, name, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{owner}', '{name}' must be a Tensor, but got "
                        f"{type(value).__name__}")
    return value


def _optional_tensor(owner, name, value):
    return value if value is None else _check_tensor(owner, name, value)


class LossBase(Cell):
    """Base of loss cells: `get_loss(x, weights=1.0)` multiplies by `weights` and applies the
    reduction ('mean' over all elements, 'sum', or 'none').

    Args:
        reduction (str): 'mean' (default), 'sum' or 'none'.
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        _check_reduction(type(self).__name__, reduction)
        self.reduction = reduction
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
        if isinstance(ignore_index, bool) or not isinstance(ignore_index, (int, np.integer)):
            raise TypeError(f"For '{owner}', 'ignore_index' must be an int, but got "
                            f"{type(ignore_index).__name__}")
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"For '{owner}', 'label_smoothing' must be in [0, 1], but got "
                             f"{label_smoothing}")
        self.ignore_index = int(ignore_index)
        self.label_smoothing = float(label_smoothing)

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
        if not isinstance(sparse, bool):
            raise TypeError(f"For '{type(self).__name__}', 'sparse' must be a bool, but got "
                            f"{type(sparse).__name__}")
        self.sparse = sparse

    def construct(self, logits, labels):
        owner = type(self).__name__
        _check_tensor(owner, "logits", logits)
        _check_tensor(owner, "labels", labels)
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
        return self.get_loss(-M.reduce_sum(NF._target_times_logp(probs, logp), -1))


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
        if not isinstance(gamma, float):
            raise TypeError(f"For '{owner}', 'gamma' must be a float, but got "
                            f"{type(gamma).__name__}")
        self.weight = _optional_tensor(owner, "weight", weight)
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"For '{owner}', 'weight' must be 1-D, but got shape {weight.shape}")
        self.gamma = gamma

    def construct(self, logits, labels):
        owner = type(self).__name__
        _check_tensor(owner, "logits", logits)
        _check_tensor(owner, "labels", labels)
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
            index = labels._data.reshape(n, -1)
            if index.dtype.kind == "f":
                index = index.astype(np.int64)  # MindSpore casts float class labels to int
            bad = (index < -c) | (index >= c)
            if bad.any():
                raise IndexError(f"For '{owner}', label class {index[bad][0]} is out of range "
                                 f"[-{c}, {c})")
            index = index % c
            rows = np.arange(n)[:, None]
            cols = np.arange(index.shape[1])[None, :]
            logp = A.getitem(logp, (rows, index, cols))  # (N, H*W)
            focus = (1.0 - F.exp(logp)) ** self.gamma  # from the unweighted probability
            if self.weight is not None:
                logp = logp * A.getitem(M.cast(self.weight, dt), index)
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
        if isinstance(smooth, bool) or not isinstance(smooth, (int, float)) or smooth <= 0:
            raise ValueError(f"For '{type(self).__name__}', 'smooth' must be a positive float, "
                             f"but got {smooth!r}")
        self.smooth = float(smooth)

    def construct(self, logits, label):
        owner = type(self).__name__
        _check_tensor(owner, "logits", logits)
        _check_tensor(owner, "label", label)
        if logits.shape != label.shape:
            raise ValueError(f"For '{owner}', 'logits' and 'label' must have the same shape, but "
                             f"got {logits.shape} and {label.shape}")
        label = M.cast(label, logits._data.dtype)
        intersection = F.sum(logits * label)
        union = F.sum(logits * logits) + F.sum(label * label)
        return 1.0 - intersection * 2.0 / (union + self.smooth)


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
        if p not in (1, 2) or isinstance(p, bool):
            raise ValueError(f"For '{type(self).__name__}', 'p' must be 1 or 2, but got {p!r}")
        self.p = p
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
        return F.sqrt(NF.mse_loss(logits, label, "mean"))


class SmoothL1Loss(LossBase):
    """`ops.smooth_l1_loss` as a cell. Note MindSpore's default `reduction='none'`.

    Args:
        beta (float): where the loss turns from quadratic to linear, >= 0. Default: 1.0.
        reduction (str): 'none' (default), 'mean' or 'sum'.
    """

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta < 0:
            raise ValueError(f"For '{type(self).__name__}', 'beta' must be a non-negative "
                             f"number, but got {beta!r}")
        self.beta = beta

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
        if isinstance(delta, bool) or not isinstance(delta, (int, float)) or delta <= 0:
            raise ValueError(f"For '{type(self).__name__}', 'delta' must be a positive number, "
                             f"but got {delta!r}")
        self.delta = delta

    def construct(self, logits, labels):
        return NF.huber_loss(logits, labels, self.reduction, self.delta)


class KLDivLoss(LossBase):
    """`ops.kl_div` as a cell: `logits` are log-probabilities, `labels` probabilities.

    Args:
        reduction (str): 'mean' (default, over all elements), 'batchmean', 'sum' or 'none'.
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        _check_reduction(type(self).__name__, reduction, ("mean", "batchmean", "sum", "none"))
        self.reduction = reduction
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
        if eps <= 0:
            raise ValueError(f"For '{type(self).__name__}', 'eps' must be positive, but got "
                             f"{eps}")
        self.full = full
        self.eps = eps

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
        if not isinstance(margin, float):
            raise TypeError(f"For '{owner}', 'margin' must be a float, but got "
                            f"{type(margin).__name__}")
        if not -1.0 <= margin <= 1.0:
            raise ValueError(f"For '{owner}', 'margin' must be in [-1, 1], but got {margin}")
        self.margin = margin

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
