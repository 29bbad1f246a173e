"""Functional neural-network ops: activations, softmax family, losses, dense, one_hot."""
import numpy as np

from ..._autodiff.tape import apply, call1, wrap
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import math_ops as M
from ..operations import nn_ops as N
from . import math_func as F

__all__ = [
    "relu", "softmax", "log_softmax", "softplus", "stop_gradient", "dense", "one_hot",
    "binary_cross_entropy_with_logits", "binary_cross_entropy", "cross_entropy", "nll_loss",
    "mse_loss", "l1_loss",
]

_RELU = N.ReLU()


def _tensor(x, op, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def relu(input, inplace=False):
    """max(input, 0); relu'(0) = 0."""
    _tensor(input, "relu")
    return call1(_RELU, input)


def softplus(input, beta=1, threshold=20):
    """log(1 + exp(beta * input)) / beta, linear above `threshold` (as MindSpore and PyTorch)."""
    _tensor(input, "softplus")
    if beta == 1 and threshold is None:
        return N.softplus(input)
    scaled = input * beta if beta != 1 else input
    soft = N.softplus(scaled)
    if beta != 1:
        soft = soft / beta
    if threshold is None:
        return soft
    return M.select(scaled > threshold, input, soft)


def softmax(input, axis=-1, *, dtype=None):
    """exp(input) / sum(exp(input)) along `axis`, finite for large inputs and -inf masks."""
    _tensor(input, "softmax")
    if dtype is not None:
        input = M.cast(input, dtype)
    return apply(N.Softmax(axis), (input,))


def log_softmax(logits, axis=-1):
    """logits - logsumexp(logits) along `axis`."""
    _tensor(logits, "log_softmax", "logits")
    return apply(N.LogSoftmax(axis), (logits,))


stop_gradient = N.stop_gradient
_DENSE_MATMUL = M.MatMul(transpose_b=True)


def dense(input, weight, bias=None):
    """input @ weight^T + bias, for any number of leading dims of `input`."""
    _tensor(input, "dense")
    _tensor(weight, "dense", "weight")
    if input.ndim == 2:
        out = _DENSE_MATMUL(input, weight)
    else:
        lead = input.shape[:-1]
        out = A.reshape(_DENSE_MATMUL(A.reshape(input, (-1, input.shape[-1])), weight),
                        lead + (weight.shape[0],))
    return out if bias is None else out + bias


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """One-hot encoding of integer `indices` along a new `axis` of size `depth`."""
    idx = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"For 'one_hot', 'indices' must be an integer tensor, got {idx.dtype}")
    on = on_value._data if isinstance(on_value, Tensor) else np.asarray(on_value)
    off = off_value._data if isinstance(off_value, Tensor) else np.asarray(off_value)
    dt = np.result_type(on, off)
    if dt.kind in "iu":
        dt = np.dtype(np.int64)
    elif dt == np.float64 and not (isinstance(on_value, Tensor) or isinstance(off_value, Tensor)):
        dt = np.dtype(np.float32)
    hit = idx[..., None] == np.arange(depth)
    out = np.where(hit, on.astype(dt), off.astype(dt))
    if axis != -1:
        out = np.moveaxis(out, -1, axis)
    return wrap(out)


# ---- losses ---------------------------------------------------------------------------------------

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(reduction, op):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"For '{op}', 'reduction' must be 'mean', 'sum' or 'none', but got "
                         f"{reduction!r}")


def _reduce(loss, reduction):
    if reduction == "mean":
        return M.reduce_mean(loss)
    if reduction == "sum":
        return M.reduce_sum(loss)
    return loss


_BCE_LOGITS = N.BCEWithLogits()


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction="mean"):
    """Binary cross-entropy of sigmoid(input) against `target`, computed stably from logits:
    finite values and gradients at any logit. `weight` scales each element, `pos_weight` the
    positive term (both broadcast)."""
    _tensor(input, "binary_cross_entropy_with_logits")
    _tensor(target, "binary_cross_entropy_with_logits", "target")
    _check_reduction(reduction, "binary_cross_entropy_with_logits")
    if input.shape != target.shape:
        raise ValueError(f"For 'binary_cross_entropy_with_logits', 'input' and 'target' must "
                         f"have the same shape, but got {input.shape} and {target.shape}")
    dt = input._data.dtype
    target = M.cast(target, dt)
    w = 1.0 if weight is None else M.cast(_tensor(weight, "bce", "weight"), dt)
    pw = 1.0 if pos_weight is None else M.cast(_tensor(pos_weight, "bce", "pos_weight"), dt)
    return _reduce(apply(_BCE_LOGITS, (input, target, w, pw)), reduction)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """Binary cross-entropy of probabilities `logits` against `labels`; log terms are clamped at
    -100 so probabilities of exactly 0 or 1 stay finite."""
    _tensor(logits, "binary_cross_entropy", "logits")
    _tensor(labels, "binary_cross_entropy", "labels")
    _check_reduction(reduction, "binary_cross_entropy")
    log_p = F.maximum(F.log(logits), -100.0)
    log_1p = F.maximum(F.log(1 - logits), -100.0)
    loss = -(labels * log_p + (1 - labels) * log_1p)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _class_axis_last(x):
    """(N, C, d1, ...) -> (N * d1 * ..., C); (C,) -> (1, C)."""
    if x.ndim == 1:
        return A.reshape(x, (1, x.shape[0]))
    if x.ndim == 2:
        return x
    perm = (0,) + tuple(range(2, x.ndim)) + (1,)
    return A.reshape(A.transpose(x, perm), (-1, x.shape[1]))


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean",
             label_smoothing=0.0):
    """Negative log-likelihood of log-probabilities `inputs` (N, C, ...) at class indices
    `target` (N, ...). Out-of-range classes are an IndexError; `ignore_index` entries count
    neither in the loss nor in the mean's denominator."""
    return _nll(inputs, target, weight, ignore_index, reduction, label_smoothing, "nll_loss")


def _nll(logp, target, weight, ignore_index, reduction, label_smoothing, op):
    _tensor(logp, op, "input")
    _check_reduction(reduction, op)
    t = target._data if isinstance(target, Tensor) else np.asarray(target)
    if t.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', class-index targets must be integers, got {t.dtype}")
    c = logp.shape[1] if logp.ndim > 1 else logp.shape[0]
    batch_shape = (logp.shape[0],) + logp.shape[2:] if logp.ndim > 1 else ()
    if t.shape != batch_shape:
        raise ValueError(f"For '{op}', 'target' must have shape {batch_shape} for input of "
                         f"shape {logp.shape}, but got {t.shape}")
    t = t.reshape(-1)
    keep = t != ignore_index
    bad = keep & ((t < 0) | (t >= c))
    if bad.any():
        raise IndexError(f"For '{op}', target class {t[bad][0]} is out of range [0, {c})")
    flat = _class_axis_last(logp)
    rows = np.arange(t.size)
    safe_t = np.where(keep, t, 0)
    dt = logp._data.dtype
    w_class = np.ones(c, dt) if weight is None else np.asarray(_tensor(weight, op, "weight")._data,
                                                              dt)
    w_sample = np.where(keep, w_class[safe_t], 0).astype(dt)
    picked = A.getitem(flat, (rows, safe_t))
    loss = -picked * wrap(w_sample)
    if label_smoothing:
        smooth = -F.sum(flat * wrap(w_class), 1) * wrap(keep.astype(dt))
        loss = loss * (1 - label_smoothing) + smooth * (label_smoothing / c)
    if reduction == "none":
        return A.reshape(loss, batch_shape)
    if reduction == "sum":
        return F.sum(loss)
    return F.sum(loss) / float(w_sample.sum())


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy of logits `input` (N, C, ...) against class indices (N, ...) or class
    probabilities (the input's shape), with per-class `weight`, `ignore_index` and
    `label_smoothing`. Finite for logits of any size and with -inf masks."""
    _tensor(input, "cross_entropy")
    _tensor(target, "cross_entropy", "target")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"For 'cross_entropy', 'label_smoothing' must be in [0, 1], got "
                         f"{label_smoothing}")
    class_axis = 1 if input.ndim > 1 else 0
    logp = log_softmax(input, class_axis)
    if target._data.dtype.kind in "iu":
        return _nll(logp, target, weight, ignore_index, reduction, label_smoothing,
                    "cross_entropy")
    _check_reduction(reduction, "cross_entropy")
    if target.shape != input.shape:
        raise ValueError(f"For 'cross_entropy', probability targets must have the input's "
                         f"shape {input.shape}, but got {target.shape}")
    c = input.shape[class_axis]
    probs = M.cast(target, input._data.dtype)
    if label_smoothing:
        probs = probs * (1 - label_smoothing) + label_smoothing / c
    terms = logp * probs
    if weight is not None:
        shape = (c,) + (1,) * (input.ndim - class_axis - 1)
        terms = terms * A.reshape(weight, shape)
    loss = -F.sum(terms, class_axis)
    if reduction == "mean":
        return F.sum(loss) / float(loss.size) if loss.size else F.sum(loss) * np.nan
    return _reduce(loss, reduction)


def mse_loss(input, target, reduction="mean"):
    """(input - target)^2, reduced."""
    _check_reduction(reduction, "mse_loss")
    d = input - target
    return _reduce(d * d, reduction)


def l1_loss(input, target, reduction="mean"):
    """|input - target|, reduced."""
    _check_reduction(reduction, "l1_loss")
    return _reduce(F.abs(input - target), reduction)

