"""Functional losses beyond nn_func's: `ops.ctc_loss` (over the CTCLossV2 primitive) and
`ops.multilabel_margin_loss`, with MindSpore 2.10's signatures and defaults."""
import numpy as np

from ..._autodiff.tape import apply, const, wrap
from ..._validator import (check_bool, check_float, check_int, check_one_of, check_reduction,
                           check_sequence)
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import loss_ops as LO
from ..operations import math_ops as M
from ..operations import nn_ops as N
from ..operations import reduce_ops as R
from ..primitive import Primitive, data_function, shared
from . import math_func as F
from . import nn_func as NF
from ._checks import _tensor

__all__ = ["ctc_loss", "multilabel_margin_loss"]


def _lengths(value, op, arg):
    """input_lengths / target_lengths: an int Tensor, or a tuple or list of ints."""
    if isinstance(value, Tensor):
        return value
    value = check_sequence(value, arg, op, check_int, expected="a Tensor or a tuple of ints")
    return const(np.asarray(value, np.int64).reshape(len(value)))


def _padded_targets(targets, target_lengths, n, op):
    """Concatenated targets (sum(target_lengths),) as padded (N, max(target_lengths))."""
    tl = target_lengths._data
    if tl.dtype.kind not in "iu" or tl.shape != (n,):
        return targets  # CTCLossV2 reports the bad lengths
    # a recorded node: a graph-mode replay pads the new targets (a new width is a guard miss)
    return data_function(_pad_targets, targets, target_lengths, static=(op,))


def _pad_targets(flat, tl, op):
    n = tl.shape[0]
    total = int(tl.sum()) if n else 0
    if flat.shape[0] != total or (n and tl.min() < 0):
        raise ValueError(f"For '{op}', 1-D (concatenated) 'targets' must have sum("
                         f"target_lengths) = {total} elements, but got shape {flat.shape}")
    width = int(tl.max()) if n else 0
    padded = np.zeros((n, width), flat.dtype)
    padded[np.arange(width) < tl[:, None]] = flat
    return padded


def _length_divisors(tl, dtype):
    return np.maximum(tl, 1).astype(dtype)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist temporal classification loss.

    Args:
        log_probs (Tensor): log-probabilities (T, N, C), float32 or float64.
        targets (Tensor): int32/int64 target sequences, padded (N, S) or concatenated
            (sum(target_lengths),); no target may be `blank`.
        input_lengths (Union[tuple, Tensor]): (N,) frames used per sequence, each <= T.
        target_lengths (Union[tuple, Tensor]): (N,) target length per sequence, each in
            [0, input_lengths[n]].
        blank (int): the blank class, in [0, C). Default: 0.
        reduction (str): 'mean' (default: each loss divided by its target length (at least 1),
            then averaged), 'sum' or 'none'.
        zero_infinity (bool): infinite losses (impossible alignments) and their gradients become
            0. Default: False (their gradients are NaN, as in MindSpore).

    Returns:
        (neg_log_likelihood, log_alpha): the loss ((N,) with 'none', else a scalar) and the
        log forward variables (N, T, 2S+1), which carry no gradient.

    Unlike MindSpore 2.10, 'mean' keeps float64 inputs in float64, zero_infinity also zeroes
    the loss, and the gradient is the exact one with respect to log_probs (see CTCLossV2).
    """
    op = "ctc_loss"
    check_reduction(reduction, op)
    zero_infinity = check_bool(zero_infinity, "zero_infinity", op)
    blank = check_int(blank, "blank", op)
    _tensor(log_probs, op, "log_probs")
    _tensor(targets, op, "targets")
    input_lengths = _lengths(input_lengths, op, "input_lengths")
    target_lengths = _lengths(target_lengths, op, "target_lengths")
    if targets.ndim == 1 and log_probs.ndim == 3:
        targets = _padded_targets(targets, target_lengths, log_probs.shape[1], op)
    prim = shared(LO.CTCLossV2, blank, "none", zero_infinity)
    loss, log_alpha = apply(prim, (log_probs, targets, input_lengths, target_lengths))
    log_alpha = N.stop_gradient(log_alpha)  # MindSpore gives it no gradient either
    if reduction == "mean":
        lengths = data_function(_length_divisors, target_lengths,
                                static=(log_probs._data.dtype,))
        return R.reduce_mean(loss / lengths), log_alpha
    return NF._reduce(loss, reduction), log_alpha


def _multilabel_pairs(t, n, c, dt, op):
    """For multilabel_margin_loss's targets: the flat positions in the (N, C) scores of each
    listed class (0 past a row's first -1), and the (N, j, i) mask, of dtype dt, of the pairs
    (j listed in target order, i any class not a target)."""
    t2 = t.reshape(n, c)
    if t2.size and (t2.min() < -1 or t2.max() >= c):
        bad = t2[(t2 < -1) | (t2 >= c)][0]
        raise IndexError(f"For '{op}', target class {bad} is out of range [-1, {c})")
    # the listed classes: every entry before each row's first -1
    listed = np.cumprod(t2 != -1, axis=1).astype(bool)
    is_target = np.zeros((n, c), bool)
    rows = np.broadcast_to(np.arange(n)[:, None], t2.shape)
    is_target[rows[listed], t2[listed]] = True
    # repeated targets count again
    pick = np.arange(n)[:, None] * c + np.where(listed, t2, 0)
    return pick, (listed[:, :, None] & ~is_target[:, None, :]).astype(dt)


def multilabel_margin_loss(input, target, reduction="mean"):
    """Multi-label hinge loss of scores (C,) or (N, C) against int32/int64 `target` of the same
    shape listing each sample's classes, ended by the first -1:
    sum over listed j and unlisted i of max(0, 1 - (input[j] - input[i])) / C.

    Args:
        input (Tensor): scores (C,) or (N, C).
        target (Tensor): class indices in [-1, C) with the input's shape.
        reduction (str): 'mean' (default), 'sum' or 'none'.
    """
    if NF._reduced16(reduction, input, target):
        return F._wide16(multilabel_margin_loss, input, target, reduction)
    op = "multilabel_margin_loss"
    check_reduction(reduction, op)
    _tensor(input, op)
    _tensor(target, op, "target")
    if input.ndim not in (1, 2) or target.shape != input.shape:
        raise ValueError(f"For '{op}', 'input' must be (C,) or (N, C) and 'target' of the same "
                         f"shape, but got {input.shape} and {target.shape}")
    t = target._data
    if t.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', 'target' must be int32 or int64, but got {target.dtype}")
    x = input if input._data.dtype.kind == "f" else M.cast(input, np.float32)
    x2 = A.reshape(x, (1, -1)) if x.ndim == 1 else x
    n, c = x2.shape
    # computed from the targets' data by a recorded node, so a graph-mode replay redoes it
    pick, mask = data_function(_multilabel_pairs, target, static=(n, c, x2._data.dtype, op))
    xj = A.gather(A.reshape(x2, (n * c,)), pick, 0)                        # (N, C)
    margins = 1.0 - (A.reshape(xj, (n, c, 1)) - A.reshape(x2, (n, 1, c)))  # (N, j, i)
    loss = NF._sum_div(NF.relu(margins) * mask, float(max(c, 1)), (1, 2))
    if input.ndim == 1:
        loss = A.reshape(loss, ())
    return NF._reduce(loss, reduction)


# ---- MindSpore's loss Primitive classes ----------------------------------------------------------

class _ReducedLoss(Primitive):
    _reductions = ("mean", "sum", "none")

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = check_reduction(reduction, self.name, self._reductions)


class BCEWithLogitsLoss(_ReducedLoss):
    """`BCEWithLogitsLoss(reduction='mean')(input, target, weight=None, posWeight=None)`: as
    `ops.binary_cross_entropy_with_logits` (weights broadcast)."""

    def __call__(self, input, target, weight=None, posWeight=None):
        return NF.binary_cross_entropy_with_logits(input, target, weight, posWeight,
                                                   self.reduction)


class BinaryCrossEntropy(_ReducedLoss):
    """`BinaryCrossEntropy(reduction='mean')(input, target, weight=None)`: as
    `ops.binary_cross_entropy` of probabilities."""

    def __call__(self, input, target, weight=None):
        return NF.binary_cross_entropy(input, target, weight, self.reduction)


class KLDivLoss(_ReducedLoss):
    """`KLDivLoss(reduction='mean')(logits, labels)`: as `ops.kl_div` ('mean' averages over
    every element; 'batchmean' divides the sum by the batch size)."""

    _reductions = ("mean", "batchmean", "sum", "none")

    def __call__(self, logits, labels):
        return NF.kl_div(logits, labels, self.reduction)


class L2Loss(Primitive):
    """`L2Loss()(input)`: sum(input^2) / 2, a scalar of the input's dtype."""

    def __init__(self):
        super().__init__()

    def __call__(self, input):
        _tensor(input, "L2Loss")
        if input._data.dtype.kind != "f":
            raise TypeError(f"For 'L2Loss', the input must be a float16, float32 or float64 "
                            f"Tensor, but got {input.dtype}")
        return F.sum(input * input) * 0.5


class MultiMarginLoss(_ReducedLoss):
    """`MultiMarginLoss(p=1, margin=1.0, reduction='mean')(x, target, weight=None)`: as
    `ops.multi_margin_loss`."""

    def __init__(self, p=1, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        self.p = check_one_of(check_int(p, "p", "MultiMarginLoss"), (1, 2), "p",
                              "MultiMarginLoss")
        self.margin = check_float(margin, "margin", "MultiMarginLoss")

    def __call__(self, x, target, weight=None):
        return NF.multi_margin_loss(x, target, self.p, self.margin, weight, self.reduction)


class MultilabelMarginLoss(_ReducedLoss):
    """`MultilabelMarginLoss(reduction='mean')(x, target)` -> (loss, is_target): the loss of
    `ops.multilabel_margin_loss` and the int32 map (target's shape) of each sample's target
    classes. MindSpore 2.10 has no CPU kernel for it."""

    def __call__(self, x, target):
        loss = multilabel_margin_loss(x, target, self.reduction)
        t = target._data.reshape(-1, target.shape[-1])
        listed = np.cumprod(t != -1, axis=1).astype(bool)
        is_target = np.zeros(t.shape, np.int32)
        rows = np.broadcast_to(np.arange(t.shape[0])[:, None], t.shape)
        is_target[rows[listed], t[listed]] = 1
        return loss, wrap(is_target.reshape(target.shape))


class NLLLoss(_ReducedLoss):
    """`NLLLoss(reduction='mean', ignore_index=-100)(logits, labels, weight)` -> (loss,
    total_weight): the weighted negative log-likelihood of log-probabilities (N, C) at
    `labels`, and the sum of the weights of the labels not ignored."""

    def __init__(self, reduction="mean", ignore_index=-100):
        super().__init__(reduction)
        self.ignore_index = check_int(ignore_index, "ignore_index", "NLLLoss")

    def __call__(self, logits, labels, weight):
        _tensor(weight, "NLLLoss", "weight")
        loss = NF.nll_loss(logits, labels, weight, self.ignore_index, self.reduction)
        t = labels._data.reshape(-1)
        keep = t != self.ignore_index
        w = weight._data[np.where(keep, t, 0)] * keep
        return loss, wrap(np.asarray(w.sum(), loss._data.dtype))


class SigmoidCrossEntropyWithLogits(Primitive):
    """`SigmoidCrossEntropyWithLogits()(logits, label)`: the elementwise binary cross-entropy
    of sigmoid(logits) against `label`, computed stably; as in MindSpore, `label` gets no
    gradient."""

    def __init__(self):
        super().__init__()

    def __call__(self, logits, label):
        return NF.binary_cross_entropy_with_logits(logits, NF.stop_gradient(label),
                                                   reduction="none")


class SmoothL1Loss(_ReducedLoss):
    """`SmoothL1Loss(beta=1.0, reduction='none')(prediction, target)`: as
    `ops.smooth_l1_loss`."""

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        self.beta = check_float(beta, "beta", "SmoothL1Loss")

    def __call__(self, prediction, target):
        return NF.smooth_l1_loss(prediction, target, self.beta, self.reduction)


class SoftMarginLoss(_ReducedLoss):
    """`SoftMarginLoss(reduction='mean')(input, target)`: log(1 + exp(-target * input)),
    reduced. MindSpore 2.10 has no CPU kernel for it."""

    def __call__(self, input, target):
        return NF.soft_margin_loss(input, target, self.reduction)


class TripletMarginLoss(_ReducedLoss):
    """`TripletMarginLoss(p=2, swap=False, eps=1e-6, reduction='mean')(x, positive, negative,
    margin)`: as `ops.triplet_margin_loss`, `margin` a scalar Tensor or number. MindSpore 2.10
    has no CPU kernel for it."""

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean"):
        super().__init__(reduction)
        self.p = check_int(p, "p", "TripletMarginLoss")
        self.swap = check_bool(swap, "swap", "TripletMarginLoss")
        self.eps = check_float(eps, "eps", "TripletMarginLoss")

    def __call__(self, x, positive, negative, margin):
        if isinstance(margin, Tensor):
            if margin.size != 1:
                raise ValueError(f"For 'TripletMarginLoss', 'margin' must be a scalar, but got "
                                 f"shape {margin.shape}")
            margin = float(margin)
        return NF.triplet_margin_loss(x, positive, negative, margin, self.p, self.eps,
                                      self.swap, self.reduction)


def _log_add(a, b):
    top = np.maximum(a, b)
    with np.errstate(invalid="ignore"):
        out = top + np.log1p(np.exp(-np.abs(a - b)))
    return np.where(np.isneginf(top), -np.inf, out)


def _ctc_sequence(logp, labels, merge_repeated):
    """(-log p(labels | logp), d/d logits) for one sequence: logp (T, C) log-softmax of the
    logits, the blank the last class."""
    t_len, classes = logp.shape
    blank = classes - 1
    ext = np.full(2 * len(labels) + 1, blank)
    ext[1::2] = labels
    s_len = ext.size
    stay = merge_repeated | (ext == blank)
    skip = np.zeros(s_len, bool)
    skip[2:] = (ext[2:] != blank) & ~(merge_repeated & (ext[2:] == ext[:-2]))
    emit = logp[:, ext]
    alpha = np.full((t_len, s_len), -np.inf)
    beta = np.full((t_len, s_len), -np.inf)
    alpha[0, :2] = emit[0, :2]
    for t in range(1, t_len):
        a = np.where(stay, alpha[t - 1], -np.inf)
        a[1:] = _log_add(a[1:], alpha[t - 1, :-1])
        a[2:] = _log_add(a[2:], np.where(skip[2:], alpha[t - 1, :-2], -np.inf))
        alpha[t] = a + emit[t]
    beta[-1, -2:] = emit[-1, -2:]
    for t in range(t_len - 2, -1, -1):
        b = np.where(stay, beta[t + 1], -np.inf)
        b[:-1] = _log_add(b[:-1], beta[t + 1, 1:])
        b[:-2] = _log_add(b[:-2], np.where(skip[2:], beta[t + 1, 2:], -np.inf))
        beta[t] = b + emit[t]
    loglik = _log_add(alpha[-1, -1], alpha[-1, -2]) if s_len > 1 else alpha[-1, -1]
    through = alpha + beta - emit
    occupancy = np.full((t_len, classes), -np.inf)
    for s in range(s_len):
        occupancy[:, ext[s]] = _log_add(occupancy[:, ext[s]], through[:, s])
    with np.errstate(invalid="ignore", over="ignore"):
        grad = np.exp(logp) - np.exp(occupancy - loglik)
    return -loglik, grad


class CTCLoss(Primitive):
    """`CTCLoss(preprocess_collapse_repeated=False, ctc_merge_repeated=True,
    ignore_longer_outputs_than_inputs=False)(x, labels_indices, labels_values,
    sequence_length)` -> (loss (N,), gradient (T, N, C)).

    `x` holds logits (max_time, N, C) (softmax is applied inside; the blank is class C - 1),
    labels are sparse: `labels_values[i]` is the label of sample `labels_indices[i, 0]` at
    position `labels_indices[i, 1]`. `preprocess_collapse_repeated` merges repeated labels
    first; with `ctc_merge_repeated=False` repeated frames of one label count as separate
    labels. `gradient` is d loss / d x; the loss's own gradient is `gradient` times its
    cotangent (first order, as MindSpore's)."""

    def __init__(self, preprocess_collapse_repeated=False, ctc_merge_repeated=True,
                 ignore_longer_outputs_than_inputs=False):
        super().__init__()
        op = "CTCLoss"
        self.preprocess_collapse_repeated = check_bool(preprocess_collapse_repeated,
                                                       "preprocess_collapse_repeated", op)
        self.ctc_merge_repeated = check_bool(ctc_merge_repeated, "ctc_merge_repeated", op)
        self.ignore_longer_outputs_than_inputs = check_bool(
            ignore_longer_outputs_than_inputs, "ignore_longer_outputs_than_inputs", op)

    def _labels(self, labels_indices, labels_values, batch, op):
        idx, val = labels_indices._data, labels_values._data
        if idx.ndim != 2 or idx.shape[1] != 2 or val.shape != (idx.shape[0],):
            raise ValueError(f"For '{op}', 'labels_indices' must be (L, 2) and 'labels_values' "
                             f"(L,), but got {idx.shape} and {val.shape}")
        if idx.dtype.kind not in "iu" or val.dtype.kind not in "iu":
            raise TypeError(f"For '{op}', 'labels_indices' and 'labels_values' must be integer "
                            f"Tensors, but got {labels_indices.dtype} and {labels_values.dtype}")
        if idx.size and (idx[:, 0].min() < 0 or idx[:, 0].max() >= batch):
            raise ValueError(f"For '{op}', the batch indices in 'labels_indices' must be in "
                             f"[0, {batch})")
        labels = []
        for b in range(batch):
            rows = idx[:, 0] == b
            seq = val[rows][np.argsort(idx[rows, 1], kind="stable")]
            if self.preprocess_collapse_repeated and seq.size:
                seq = seq[np.r_[True, seq[1:] != seq[:-1]]]
            labels.append(seq)
        return labels

    def __call__(self, x, labels_indices, labels_values, sequence_length):
        op = "CTCLoss"
        for name, t in (("x", x), ("labels_indices", labels_indices),
                        ("labels_values", labels_values), ("sequence_length", sequence_length)):
            _tensor(t, op, name)
        if x._data.dtype.kind != "f":
            raise TypeError(f"For '{op}', 'x' must be float16, float32 or float64, but got "
                            f"{x.dtype}")
        if x.ndim != 3:
            raise ValueError(f"For '{op}', 'x' must be 3-D (max_time, batch, classes), but got "
                             f"shape {x.shape}")
        t_max, batch, classes = x.shape
        lengths = sequence_length._data
        if lengths.shape != (batch,) or lengths.dtype.kind not in "iu":
            raise ValueError(f"For '{op}', 'sequence_length' must be an integer Tensor of shape "
                             f"({batch},), but got {sequence_length.dtype} {lengths.shape}")
        if batch and (lengths.min() < 1 or lengths.max() > t_max):
            raise ValueError(f"For '{op}', each 'sequence_length' must be in [1, {t_max}], but "
                             f"got {lengths.tolist()}")
        labels = self._labels(labels_indices, labels_values, batch, op)
        for b, seq in enumerate(labels):
            if seq.size and (seq.min() < 0 or seq.max() >= classes - 1):
                raise ValueError(f"For '{op}', labels must be in [0, {classes - 1}) (class "
                                 f"{classes - 1} is the blank), but sample {b} has "
                                 f"{seq.tolist()}")
            if seq.size > lengths[b] and not self.ignore_longer_outputs_than_inputs:
                raise ValueError(f"For '{op}', sample {b} has {seq.size} labels but only "
                                 f"{lengths[b]} frames")
        a = x._data.astype(np.float64)
        logp = a - a.max(-1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(-1, keepdims=True))
        loss = np.zeros(batch)
        grad = np.zeros(a.shape)
        for b, seq in enumerate(labels):
            n = int(lengths[b])
            if seq.size > n:
                continue
            loss[b], grad[:n, b] = _ctc_sequence(logp[:n, b], seq, self.ctc_merge_repeated)
        dtype = x._data.dtype
        gradient = wrap(grad.astype(dtype))
        moved = F.sum(F.sum((x - NF.stop_gradient(x)) * gradient, 2), 0)
        return wrap(loss.astype(dtype)) + moved, gradient


PRIMITIVE_CLASSES = ("BCEWithLogitsLoss", "BinaryCrossEntropy", "CTCLoss", "KLDivLoss", "L2Loss",
                     "MultiMarginLoss", "MultilabelMarginLoss", "NLLLoss",
                     "SigmoidCrossEntropyWithLogits", "SmoothL1Loss", "SoftMarginLoss",
                     "TripletMarginLoss")
