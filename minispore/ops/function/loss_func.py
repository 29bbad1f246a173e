"""Functional losses beyond nn_func's: `ops.ctc_loss` (over the CTCLossV2 primitive) and
`ops.multilabel_margin_loss`, with MindSpore 2.10's signatures and defaults."""
import numpy as np

from ..._autodiff.tape import apply, wrap
from ..._validator import check_bool, check_int, check_reduction, check_sequence
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import loss_ops as LO
from ..operations import math_ops as M
from ..operations import reduce_ops as R
from ..primitive import shared
from . import math_func as F
from . import nn_func as NF
from ._checks import _tensor

__all__ = ["ctc_loss", "multilabel_margin_loss"]


def _lengths(value, op, arg):
    """input_lengths / target_lengths: an int Tensor, or a tuple or list of ints."""
    if isinstance(value, Tensor):
        return value
    value = check_sequence(value, arg, op, check_int, expected="a Tensor or a tuple of ints")
    return wrap(np.asarray(value, np.int64).reshape(len(value)))


def _padded_targets(targets, target_lengths, n, op):
    """Concatenated targets (sum(target_lengths),) as padded (N, max(target_lengths))."""
    tl = target_lengths._data
    if tl.dtype.kind not in "iu" or tl.shape != (n,):
        return targets  # CTCLossV2 reports the bad lengths
    total = int(tl.sum()) if n else 0
    if targets.shape[0] != total or (n and tl.min() < 0):
        raise ValueError(f"For '{op}', 1-D (concatenated) 'targets' must have sum("
                         f"target_lengths) = {total} elements, but got shape {targets.shape}")
    width = int(tl.max()) if n else 0
    flat = targets._data
    padded = np.zeros((n, width), flat.dtype)
    padded[np.arange(width) < tl[:, None]] = flat
    return wrap(padded)


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
    log_alpha = wrap(log_alpha._data)  # a constant: MindSpore gives it no gradient either
    if reduction == "mean":
        dtype = log_probs._data.dtype
        lengths = np.maximum(target_lengths._data, 1).astype(dtype)
        return R.reduce_mean(loss / wrap(lengths)), log_alpha
    return NF._reduce(loss, reduction), log_alpha


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
    t2 = t.reshape(x2.shape)
    n, c = x2.shape
    if t2.size and (t2.min() < -1 or t2.max() >= c):
        bad = t2[(t2 < -1) | (t2 >= c)][0]
        raise IndexError(f"For '{op}', target class {bad} is out of range [-1, {c})")
    # the listed classes: every entry before each row's first -1
    listed = np.cumprod(t2 != -1, axis=1).astype(bool)
    is_target = np.zeros((n, c), bool)
    rows = np.broadcast_to(np.arange(n)[:, None], t2.shape)
    is_target[rows[listed], t2[listed]] = True
    # pairs (j listed in target order, i any class not a target); repeated targets count again
    dt = x2._data.dtype
    pick = wrap(np.where(listed, t2, 0))
    xj = A.getitem(x2, (np.arange(n)[:, None], pick._data))               # (N, C)
    margins = 1.0 - (A.reshape(xj, (n, c, 1)) - A.reshape(x2, (n, 1, c)))  # (N, j, i)
    mask = wrap((listed[:, :, None] & ~is_target[:, None, :]).astype(dt))
    loss = NF._sum_div(NF.relu(margins) * mask, float(max(c, 1)), (1, 2))
    if input.ndim == 1:
        loss = A.reshape(loss, ())
    return NF._reduce(loss, reduction)
