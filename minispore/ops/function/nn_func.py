"""Functional neural-network ops: activations, softmax family, losses, dense, one_hot,
cosine_similarity (the layer ops, conv to pooling to normalisation, live in layer_func)."""
import builtins
import math

import numpy as np

from ..._autodiff.tape import apply, call1, wrap
from ..._validator import (check_float_range, check_non_negative_float, check_non_negative_int,
                           check_one_of, check_positive_float, check_positive_int,
                           check_reduction)
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import loss_ops as LO
from ..operations import math_ops as M
from ..operations import reduce_ops as R
from ..operations import linalg_ops as L
from ..operations import nn_ops as N
from ..operations._kernels import normalize_axis
from . import math_func as F
from ._checks import _tensor

__all__ = [
    "relu", "relu6", "leaky_relu", "elu", "celu", "selu", "silu", "gelu", "mish", "hardswish",
    "hardsigmoid", "hardtanh", "softsign", "tanhshrink", "prelu", "glu", "softplus", "softmax",
    "log_softmax", "stop_gradient", "dense", "one_hot", "cosine_similarity",
    "binary_cross_entropy_with_logits", "binary_cross_entropy", "cross_entropy", "nll_loss",
    "mse_loss", "l1_loss", "huber_loss", "kl_div", "logsigmoid", "smooth_l1_loss",
    "cosine_embedding_loss", "margin_ranking_loss", "soft_margin_loss", "hinge_embedding_loss",
    "triplet_margin_loss", "gaussian_nll_loss", "multi_margin_loss", "multilabel_soft_margin_loss",
]

_RELU = N.ReLU()


def _float_tensor(x, op, arg="input"):
    """x as a floating-point Tensor: integers become float32 (MindSpore rejects them on CPU)."""
    _tensor(x, op, arg)
    return x if x._data.dtype.kind in "fc" else M.cast(x, np.float32)


# ---- activations ---------------------------------------------------------------------------------

def relu(input, inplace=False):
    """max(input, 0); relu'(0) = 0. `inplace` is accepted for compatibility (a new Tensor is
    returned either way)."""
    _tensor(input, "relu")
    return call1(_RELU, input)


def relu6(x):
    """min(max(x, 0), 6)."""
    return F.clamp(_tensor(x, "relu6", "x"), 0, 6)


def leaky_relu(input, alpha=0.2):
    """input where input > 0, else alpha * input (the slope is alpha at 0)."""
    x = _float_tensor(input, "leaky_relu")
    return M.select(x > 0, x, x * alpha)


def _negative_part_expm1(x):
    """expm1(min(x, 0)), computed so that large positive x neither overflows nor leaks NaN
    into the gradient of the branch that `select` discards."""
    return F.expm1(M.select(x > 0, 0.0, x))


def elu(input_x, alpha=1.0):
    """input_x where positive, else alpha * (exp(input_x) - 1). (MindSpore's CPU kernel accepts
    only alpha=1.0; any alpha works here.)"""
    x = _float_tensor(input_x, "elu", "input_x")
    return M.select(x > 0, x, _negative_part_expm1(x) * alpha)


def celu(x, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    x = _float_tensor(x, "celu", "x")
    if alpha == 0:
        raise ValueError("For 'celu', 'alpha' must not be 0")
    return M.select(x > 0, x, _negative_part_expm1(x / alpha) * alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input_x):
    """scale * elu(input_x, alpha) with the self-normalising constants of Klambauer et al."""
    x = _float_tensor(input_x, "selu", "input_x")
    return M.select(x > 0, x, _negative_part_expm1(x) * _SELU_ALPHA) * _SELU_SCALE


def silu(input):
    """input * sigmoid(input) (also called swish)."""
    x = _float_tensor(input, "silu")
    return x * F.sigmoid(x)


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)


_GELU = {"none": N.GeLU("none"), "tanh": N.GeLU("tanh")}


def gelu(input, approximate="none"):
    """x * Phi(x): exact with the error function ('none', the default), or the tanh
    approximation ('tanh', which `nn.GELU` uses by default)."""
    x = _tensor(input, "gelu")
    if x._data.dtype.kind != "f":
        raise TypeError(f"For 'gelu', the input must be a floating-point Tensor, but got "
                        f"{x.dtype}")
    check_one_of(approximate, ("none", "tanh"), "approximate", "gelu")
    return call1(_GELU[approximate], x)


def mish(x):
    """x * tanh(softplus(x))."""
    x = _float_tensor(x, "mish", "x")
    return x * F.tanh(N.softplus(x))


def hardsigmoid(input):
    """relu6(input + 3) / 6."""
    x = _float_tensor(input, "hardsigmoid")
    return F.clamp(x + 3.0, 0.0, 6.0) / 6.0


def hardswish(input):
    """input * relu6(input + 3) / 6."""
    x = _float_tensor(input, "hardswish")
    return x * hardsigmoid(x)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """input limited to [min_val, max_val]."""
    _tensor(input, "hardtanh")
    if min_val > max_val:
        raise ValueError(f"For 'hardtanh', 'min_val' {min_val} must not exceed 'max_val' "
                         f"{max_val}")
    return F.clamp(input, min_val, max_val)


def softsign(x):
    """x / (1 + |x|)."""
    x = _float_tensor(x, "softsign", "x")
    return x / (F.abs(x) + 1.0)


def tanhshrink(input):
    """input - tanh(input)."""
    x = _float_tensor(input, "tanhshrink")
    return x - F.tanh(x)


def prelu(input, weight):
    """input where positive, else weight * input; `weight` has one slope, or one per channel
    (axis 1 of an input of rank >= 2)."""
    x = _float_tensor(input, "prelu")
    _tensor(weight, "prelu", "weight")
    if weight.ndim != 1:
        raise ValueError(f"For 'prelu', 'weight' must be 1-D, but got shape {weight.shape}")
    channels = x.shape[1] if x.ndim >= 2 else 1
    if weight.shape[0] not in (1, channels):
        raise ValueError(f"For 'prelu', 'weight' must have 1 or {channels} (the channels of "
                         f"input {x.shape}) elements, but got {weight.shape[0]}")
    w = A.reshape(weight, (weight.shape[0],) + (1,) * (x.ndim - 2)) if x.ndim >= 2 else weight
    return M.select(x > 0, x, x * w)


def glu(x, axis=-1):
    """a * sigmoid(b), where a and b are the halves of x along `axis`."""
    x = _float_tensor(x, "glu", "x")
    ax = normalize_axis(axis, x.ndim, "glu")
    if x.shape[ax] % 2:
        raise ValueError(f"For 'glu', axis {ax} of shape {x.shape} must have an even size")
    a, b = apply(A.SplitSizes(ax, [x.shape[ax] // 2] * 2), (x,))
    return a * F.sigmoid(b)


def softplus(input, beta=1, threshold=20):
    """log(1 + exp(beta * input)) / beta, and input itself where beta * input > threshold (as
    MindSpore and PyTorch)."""
    x = _float_tensor(input, "softplus")
    if beta == 0:
        raise ValueError("For 'softplus', 'beta' must not be 0")
    scaled = x * beta if beta != 1 else x
    soft = N.softplus(scaled)
    if beta != 1:
        soft = soft / beta
    if threshold is None:
        return soft
    return M.select(scaled > threshold, x, soft)


_SOFTMAX, _LOG_SOFTMAX = {}, {}  # one primitive per axis (perf: building one costs ~1 us)


def _per_axis(cache, cls, axis):
    prim = cache.get(axis)
    if prim is None:
        prim = cache[axis] = cls(axis)
    return prim


def softmax(input, axis=-1, *, dtype=None):
    """exp(input) / sum(exp(input)) along `axis`, finite for large inputs and -inf masks."""
    _tensor(input, "softmax")
    if dtype is not None:
        input = M.cast(input, dtype)
    return apply(_per_axis(_SOFTMAX, N.Softmax, axis), (_float_tensor(input, "softmax"),))


def log_softmax(logits, axis=-1):
    """logits - logsumexp(logits) along `axis`."""
    return apply(_per_axis(_LOG_SOFTMAX, N.LogSoftmax, axis),
                 (_float_tensor(logits, "log_softmax", "logits"),))


def stop_gradient(value):
    """`value` (a Tensor, or a tuple/list of them) as constants: the same values, no gradient."""
    return N.stop_gradient(value)


# ---- linear --------------------------------------------------------------------------------------



def dense(input, weight, bias=None):
    """input @ weight^T + bias, for any number of leading dims of `input` (a 1-D input is one
    sample)."""
    _tensor(input, "dense")
    _tensor(weight, "dense", "weight")
    if weight.ndim != 2 or input.ndim == 0 or input.shape[-1] != weight.shape[1]:
        raise ValueError(f"For 'dense', 'input' (..., in) and 'weight' (out, in) do not match: "
                         f"shapes {input.shape} and {weight.shape}")
    if input._data.dtype != weight._data.dtype:
        input, weight = L._matmul_operands("dense", input, weight)
    if bias is not None and bias._data.dtype != input._data.dtype:
        return N.dense(input, weight, None) + bias
    return N.dense(input, weight, bias)


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """One-hot encoding of integer `indices` along a new `axis` of size `depth`: `on_value` at
    the index, `off_value` elsewhere (an index outside [0, depth) gives a row of `off_value`).
    The dtype is that of Tensor on/off values, else int64 for ints and float32 for floats."""
    idx = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"For 'one_hot', 'indices' must be an integer Tensor, but got "
                        f"{mstype.from_np(idx.dtype) if idx.dtype.kind in 'bf' else idx.dtype}")
    depth = check_non_negative_int(depth, "depth", "one_hot")
    values = [v._data for v in (on_value, off_value) if isinstance(v, Tensor)]
    if values:
        dt = values[0].dtype if len(values) == 1 else mstype.promote(values[0].dtype,
                                                                      values[1].dtype)
    elif builtins.any(isinstance(v, (float, np.floating)) for v in (on_value, off_value)):
        dt = np.dtype(np.float32)
    else:
        dt = np.dtype(np.int64)
    on = np.asarray(on_value._data if isinstance(on_value, Tensor) else on_value, dt)
    off = np.asarray(off_value._data if isinstance(off_value, Tensor) else off_value, dt)
    out = np.where(idx[..., None] == np.arange(depth), on, off)
    if axis != -1:
        out = np.moveaxis(out, -1, normalize_axis(axis, out.ndim, "one_hot"))
    return wrap(out)


# ---- similarity ----------------------------------------------------------------------------------

def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """sum(x1 * x2) / max(|x1| * |x2|, eps) along `dim` (inputs broadcast)."""
    x1 = _float_tensor(x1, "cosine_similarity", "x1")
    x2 = _float_tensor(x2, "cosine_similarity", "x2")
    _broadcast_shape(x1, x2, "cosine_similarity", ("x1", "x2"))
    return F._wide16(_cosine_similarity, x1, x2, dim, eps)  # float16: the sums pass 65,504


def _cosine_similarity(x1, x2, dim, eps):
    dot = F.sum(x1 * x2, dim)
    norms = F.norm(x1, dim=dim) * F.norm(x2, dim=dim)
    return dot / F.maximum(norms, eps)


# ---- losses --------------------------------------------------------------------------------------

def _reduce(loss, reduction):
    if reduction == "mean":
        return R.reduce_mean(loss)
    if reduction == "sum":
        return R.reduce_sum(loss)
    return loss


def _reduced16(reduction, *args):
    """True for a float16 loss (every floating Tensor among args float16) reduced to one number:
    it is then computed in float64 and rounded once (math_func's `_wide16`), value and gradient.
    Left in float16, each element's loss would be rounded before the sum, and each element's
    gradient would start from the mean's float16 cotangent 1/n (a subnormal past n = 16,384,
    0.14% off at n = 70,000: up to 3 float16 steps once times the local derivative and rounded
    again). Not for 'none': nothing is summed."""
    first = args[0]  # perf: float32 calls stop at its dtype
    return (reduction != "none" and isinstance(first, Tensor) and first._data.dtype == F._F16
            and F._all16(*args))


def _sum_div(loss, denominator, axis=None):
    """sum(loss) over `axis` (None: all) / denominator. float16 sums and divides in float64 and
    rounds once: its sum passes 65,504 long before the quotient does, and a denominator past
    65,504 is inf in float16 (the loss was 0 or nan, its gradient 0)."""
    if loss._data.dtype == F._F16:
        return M.cast(F.sum(M.cast(loss, F._WIDE), axis) / denominator, F._F16)
    return F.sum(loss, axis) / denominator


def _broadcast_shape(x, y, op, names=("input", "target")):
    if x.shape == y.shape:
        return x.shape
    try:
        return np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise ValueError(f"For '{op}', the shapes of '{names[0]}' {x.shape} and '{names[1]}' "
                         f"{y.shape} cannot be broadcast together") from None


_BCE_LOGITS = N.BCEWithLogits()


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction="mean"):
    """Binary cross-entropy of sigmoid(input) against `target`, computed stably from logits:
    finite values and gradients at any logit. `weight` scales each element, `pos_weight` the
    positive term (both broadcast)."""
    args = (input, target, weight, pos_weight, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(binary_cross_entropy_with_logits, *args)
    op = "binary_cross_entropy_with_logits"
    input = _float_tensor(input, op)
    _tensor(target, op, "target")
    check_reduction(reduction, op)
    if input.shape != target.shape:
        raise ValueError(f"For '{op}', 'input' and 'target' must have the same shape, but got "
                         f"{input.shape} and {target.shape}")
    dt = input._data.dtype
    target = M.cast(target, dt)
    w = 1.0 if weight is None else M.cast(_tensor(weight, op, "weight"), dt)
    pw = 1.0 if pos_weight is None else M.cast(_tensor(pos_weight, op, "pos_weight"), dt)
    return _reduce(apply(_BCE_LOGITS, (input, target, w, pw)), reduction)


_BCE_EPS = 1e-12  # MindSpore's: -log(p + eps), so probabilities of exactly 0 or 1 stay finite


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """-(labels * log(logits + eps) + (1 - labels) * log(1 - logits + eps)) with eps = 1e-12, for
    probabilities `logits` in [0, 1] (others are a ValueError)."""
    args = (logits, labels, weight, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(binary_cross_entropy, *args)
    op = "binary_cross_entropy"
    logits = _float_tensor(logits, op, "logits")
    _tensor(labels, op, "labels")
    check_reduction(reduction, op)
    if logits.shape != labels.shape:
        raise ValueError(f"For '{op}', 'logits' and 'labels' must have the same shape, but got "
                         f"{logits.shape} and {labels.shape}")
    p = logits._data
    if p.size and (np.nanmin(p) < 0 or np.nanmax(p) > 1):
        raise ValueError(f"For '{op}', 'logits' must be probabilities in [0, 1], but got values "
                         f"in [{np.nanmin(p)}, {np.nanmax(p)}]")
    labels = M.cast(labels, p.dtype)
    loss = -(labels * F.log(logits + _BCE_EPS) + (1 - labels) * F.log(1 - logits + _BCE_EPS))
    if weight is not None:
        loss = loss * _tensor(weight, op, "weight")
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
    `target` (N, ...), with per-class `weight` and `label_smoothing`. Out-of-range classes are
    an IndexError; `ignore_index` entries count neither in the loss nor in the mean's
    denominator (the sum of the targets' weights)."""
    args = (inputs, target, weight, ignore_index, reduction, label_smoothing)
    if _reduced16(reduction, *args):
        return F._wide16(nll_loss, *args)
    return _nll(inputs, target, weight, ignore_index, reduction, label_smoothing, "nll_loss")


def _nll(logp, target, weight, ignore_index, reduction, label_smoothing, op):
    logp = _float_tensor(logp, op, "input")
    check_reduction(reduction, op)
    check_float_range(label_smoothing, "label_smoothing", op, 0.0, 1.0)
    t = target._data if isinstance(target, Tensor) else np.asarray(target)
    if t.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', class-index targets must be integers, but got {t.dtype}")
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
    safe_t = np.where(keep, t, 0)
    dt = logp._data.dtype
    if weight is None:
        w_class = np.ones(c, dt)
    else:
        w = _tensor(weight, op, "weight")._data
        if w.shape != (c,):
            raise ValueError(f"For '{op}', 'weight' must have shape ({c},), but got {w.shape}")
        w_class = w.astype(dt)
    w_sample = np.where(keep, w_class[safe_t], 0).astype(dt)
    picked = A.getitem(flat, (np.arange(t.size), safe_t))
    loss = -picked * wrap(w_sample)
    if label_smoothing:
        smooth = -F.sum(flat * wrap(w_class), 1) * wrap(keep.astype(dt))
        loss = loss * (1 - label_smoothing) + smooth * (label_smoothing / c)
    if reduction == "none":
        return A.reshape(loss, batch_shape)
    if reduction == "sum":
        return F.sum(loss)
    # float16 weights add up wide: a float16 count stops at 2,048 and overflows at 65,504
    return _sum_div(loss, float(w_sample.sum(dtype=F._WIDE if dt == F._F16 else None)))


def _target_times_logp(probs, logp):
    """probs * logp with 0 where probs is 0, so that -inf (masked) logits give finite values and
    gradients instead of 0 * -inf = NaN."""
    return M.select(probs != 0, logp, 0.0) * probs


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy of logits `input` (N, C, ...) against class indices (N, ...) or class
    probabilities (the input's shape), with per-class `weight`, `ignore_index` (index targets)
    and `label_smoothing`. Finite for logits of any size and with -inf masks."""
    args = (input, target, weight, ignore_index, reduction, label_smoothing)
    if _reduced16(reduction, *args):
        return F._wide16(cross_entropy, *args)
    op = "cross_entropy"
    input = _float_tensor(input, op)
    _tensor(target, op, "target")
    check_float_range(label_smoothing, "label_smoothing", op, 0.0, 1.0)
    class_axis = 1 if input.ndim > 1 else 0
    t = target._data
    if (input.ndim == 2 and t.dtype.kind in "iu" and weight is None and not label_smoothing
            and reduction in ("mean", "sum", "none") and t.shape == input.shape[:1]
            and t.size and t.min() >= 0 and t.max() < input.shape[1]
            and not (t == ignore_index).any()):
        # The common case, fused: one pass forward, one backward.
        return _reduce(LO.sparse_softmax_cross_entropy(input, target), reduction)
    logp = log_softmax(input, class_axis)
    if t.dtype.kind in "iu":
        return _nll(logp, target, weight, ignore_index, reduction, label_smoothing, op)
    check_reduction(reduction, op)
    if target.shape != input.shape:
        raise ValueError(f"For '{op}', probability targets must have the input's shape "
                         f"{input.shape}, but got {target.shape}")
    c = input.shape[class_axis]
    probs = M.cast(target, input._data.dtype)
    if label_smoothing:
        probs = probs * (1 - label_smoothing) + label_smoothing / c
    terms = _target_times_logp(probs, logp)
    if weight is not None:
        terms = terms * A.reshape(_tensor(weight, op, "weight"),
                                  (c,) + (1,) * (input.ndim - class_axis - 1))
    loss = -F.sum(terms, class_axis)
    if reduction == "mean":
        # Probability targets average over the samples (PyTorch's convention), not weights.
        return _sum_div(loss, float(loss.size)) if loss.size else F.sum(loss) * math.nan
    return _reduce(loss, reduction)


def mse_loss(input, target, reduction="mean"):
    """(input - target)^2 (broadcast), reduced by 'mean', 'sum' or 'none'."""
    args = (input, target, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(mse_loss, *args)
    input = _float_tensor(input, "mse_loss")
    _tensor(target, "mse_loss", "target")
    check_reduction(reduction, "mse_loss")
    _broadcast_shape(input, target, "mse_loss")
    d = input - target
    return _reduce(d * d, reduction)


def l1_loss(input, target, reduction="mean"):
    """|input - target| (broadcast), reduced."""
    args = (input, target, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(l1_loss, *args)
    input = _float_tensor(input, "l1_loss")
    _tensor(target, "l1_loss", "target")
    check_reduction(reduction, "l1_loss")
    _broadcast_shape(input, target, "l1_loss")
    return _reduce(F.abs(input - target), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """0.5 * d^2 where |d| < delta, else delta * (|d| - 0.5 * delta), d = input - target."""
    args = (input, target, reduction, delta)
    if _reduced16(reduction, *args):
        return F._wide16(huber_loss, *args)
    input = _float_tensor(input, "huber_loss")
    _tensor(target, "huber_loss", "target")
    check_reduction(reduction, "huber_loss")
    check_positive_float(delta, "delta", "huber_loss")
    _broadcast_shape(input, target, "huber_loss")
    d = input - target
    ad = F.abs(d)
    loss = M.select(ad < delta, d * d * 0.5, (ad - 0.5 * delta) * delta)
    return _reduce(loss, reduction)


def kl_div(logits, labels, reduction="mean"):
    """Kullback-Leibler divergence: labels * (log(labels) - logits), with `logits` the
    log-probabilities and 0 where labels == 0. Reductions 'mean' (over all elements),
    'batchmean' (sum / batch size), 'sum', 'none'."""
    args = (logits, labels, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(kl_div, *args)
    op = "kl_div"
    logits = _float_tensor(logits, op, "logits")
    _tensor(labels, op, "labels")
    check_reduction(reduction, op, ("mean", "batchmean", "sum", "none"))
    _broadcast_shape(logits, labels, op, ("logits", "labels"))
    labels = M.cast(labels, logits._data.dtype)
    positive = labels > 0
    # select before log: log(0) would put NaN into the gradient of the discarded branch.
    log_labels = F.log(M.select(positive, labels, 1.0))
    loss = M.select(positive, labels * (log_labels - logits), 0.0)
    if reduction == "batchmean":
        return _sum_div(loss, loss.shape[0] if loss.ndim else 1)
    return _reduce(loss, reduction)


def logsigmoid(x):
    """log(sigmoid(x)) = -softplus(-x): finite values and gradients for any x (-1e4 gives -1e4
    with gradient 1; MindSpore 2.10 gives -inf and NaN there)."""
    return -N.softplus(-_float_tensor(x, "logsigmoid", "x"))


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """0.5 * d^2 / beta where |d| < beta, else |d| - 0.5 * beta, with d = input - target
    (broadcast); beta = 0 is the L1 loss. Note the default reduction 'none' (MindSpore's)."""
    args = (input, target, beta, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(smooth_l1_loss, *args)
    op = "smooth_l1_loss"
    input = _float_tensor(input, op)
    _tensor(target, op, "target")
    check_reduction(reduction, op)
    check_non_negative_float(beta, "beta", op)
    _broadcast_shape(input, target, op)
    d = input - target
    ad = F.abs(d)
    if beta == 0:
        # The quadratic branch would divide by zero; its NaN would leak through select's grad.
        return _reduce(ad, reduction)
    return _reduce(M.select(ad < beta, d * d * (0.5 / beta), ad - 0.5 * beta), reduction)


def _plus_minus_one(target, op, arg):
    """The values of a target that may only hold 1 and -1, as a NumPy array."""
    t = target._data
    if t.size and not np.isin(t, (1, -1)).all():
        bad = t[~np.isin(t, (1, -1))].ravel()[0]
        raise ValueError(f"For '{op}', '{arg}' must hold only 1 and -1, but it holds {bad}")
    return t


_COSINE_EPS = 1e-12  # inside the norms, so that zero vectors give cos = 0, not NaN


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1; the cosine
    is taken along axis 1 (axis 0 for 1-D inputs) and `target` has the shape that leaves."""
    args = (input1, input2, target, margin, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(cosine_embedding_loss, *args)
    op = "cosine_embedding_loss"
    x1 = _float_tensor(input1, op, "input1")
    x2 = _float_tensor(input2, op, "input2")
    _tensor(target, op, "target")
    check_reduction(reduction, op)
    if x1.shape != x2.shape or x1.ndim == 0:
        raise ValueError(f"For '{op}', 'input1' and 'input2' must have the same shape of rank "
                         f">= 1, but got {x1.shape} and {x2.shape}")
    axis = 1 if x1.ndim > 1 else 0
    reduced = x1.shape[:axis] + x1.shape[axis + 1:]
    if target.shape != reduced:
        raise ValueError(f"For '{op}', 'target' must have shape {reduced} (the inputs {x1.shape} "
                         f"without axis {axis}), but got {target.shape}")
    positive = wrap(_plus_minus_one(target, op, "target") == 1)
    cos = F._wide16(_cosine_along, x1, x2, axis)  # float16: the sums pass 65,504
    return _reduce(M.select(positive, 1.0 - cos, relu(cos - margin)), reduction)


def _cosine_along(x1, x2, axis):
    dot = R.reduce_sum(x1 * x2, axis)
    norms = F.sqrt((R.reduce_sum(x1 * x1, axis) + _COSINE_EPS) *
                   (R.reduce_sum(x2 * x2, axis) + _COSINE_EPS))
    return dot / norms


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin), broadcasting; `target` is usually 1 or -1."""
    args = (input1, input2, target, margin, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(margin_ranking_loss, *args)
    op = "margin_ranking_loss"
    x1 = _float_tensor(input1, op, "input1")
    x2 = _float_tensor(input2, op, "input2")
    _tensor(target, op, "target")
    check_reduction(reduction, op)
    _broadcast_shape(x1, x2, op, ("input1", "input2"))
    _broadcast_shape(x1, target, op, ("input1", "target"))
    target = M.cast(target, x1._data.dtype)
    return _reduce(relu(-target * (x1 - x2) + margin), reduction)


def soft_margin_loss(input, target, reduction="mean"):
    """log(1 + exp(-target * input)) (target 1 or -1), stable for any input."""
    args = (input, target, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(soft_margin_loss, *args)
    op = "soft_margin_loss"
    input = _float_tensor(input, op)
    _tensor(target, op, "target")
    check_reduction(reduction, op)
    _broadcast_shape(input, target, op)
    return _reduce(N.softplus(-M.cast(target, input._data.dtype) * input), reduction)


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """inputs where targets is 1, max(0, margin - inputs) where it is -1 (broadcasting)."""
    args = (inputs, targets, margin, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(hinge_embedding_loss, *args)
    op = "hinge_embedding_loss"
    x = _float_tensor(inputs, op, "inputs")
    _tensor(targets, op, "targets")
    check_reduction(reduction, op)
    _broadcast_shape(x, targets, op, ("inputs", "targets"))
    positive = wrap(_plus_minus_one(targets, op, "targets") == 1)
    return _reduce(M.select(positive, x, relu(margin - x)), reduction)


def _p_distance(x, y, p, eps):
    """||x - y + eps||_p along the last axis (PyTorch's pairwise_distance); float16 in float64,
    rounded once (the sum of powers passes 65,504 long before the distance does)."""
    return F._wide16(_p_distance_wide, x, y, p, eps)


def _p_distance_wide(x, y, p, eps):
    d = x - y + eps
    if p == 1:
        return R.reduce_sum(F.abs(d), -1)
    if p == 2:
        return F.sqrt(R.reduce_sum(d * d, -1))
    return R.reduce_sum(F.abs(d) ** p, -1) ** (1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction="mean"):
    """max(d(anchor, positive) - d(anchor, negative) + margin, 0) with d the p-norm distance
    ||a - b + eps||_p along the last axis of (N, D) or (D,) inputs; with `swap` the negative
    distance is min(d(anchor, negative), d(positive, negative))."""
    args = (anchor, positive, negative, margin, p, eps, swap, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(triplet_margin_loss, *args)
    op = "triplet_margin_loss"
    a = _float_tensor(anchor, op, "anchor")
    pos = _float_tensor(positive, op, "positive")
    neg = _float_tensor(negative, op, "negative")
    check_reduction(reduction, op)
    check_positive_int(p, "p", op)
    for name, t in (("anchor", a), ("positive", pos), ("negative", neg)):
        if t.ndim not in (1, 2):
            raise ValueError(f"For '{op}', '{name}' must be (N, D) or (D,), but got shape "
                             f"{t.shape}")
    _broadcast_shape(a, pos, op, ("anchor", "positive"))
    _broadcast_shape(a, neg, op, ("anchor", "negative"))
    d_pos = _p_distance(a, pos, p, eps)
    d_neg = _p_distance(a, neg, p, eps)
    if swap:
        d_neg = F.minimum(d_neg, _p_distance(pos, neg, p, eps))
    return _reduce(relu(d_pos - d_neg + margin), reduction)


_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction="mean"):
    """0.5 * (log(max(var, eps)) + (x - target)^2 / max(var, eps)), plus 0.5 * log(2 pi) when
    `full`. `var` has the shape of `x`, or that shape with size-1 dims, or without the last dim.
    A negative variance is a ValueError (MindSpore 2.10 clamps it silently)."""
    args = (x, target, var, full, eps, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(gaussian_nll_loss, *args)
    op = "gaussian_nll_loss"
    x = _float_tensor(x, op, "x")
    _tensor(target, op, "target")
    var = _float_tensor(var, op, "var")
    check_reduction(reduction, op)
    _broadcast_shape(x, target, op, ("x", "target"))
    if var.shape == x.shape[:-1] and x.ndim:
        var = A.expand_dims(var, -1)
    elif var.ndim != x.ndim or builtins.any(v not in (1, n) for v, n in zip(var.shape, x.shape)):
        raise ValueError(f"For '{op}', 'var' must have the shape of 'x' {x.shape}, with some "
                         f"dims of size 1 or without the last dim, but got {var.shape}")
    if var._data.size and np.nanmin(var._data) < 0:
        raise ValueError(f"For '{op}', 'var' must be non-negative, but its minimum is "
                         f"{np.nanmin(var._data)}")
    v = F.maximum(var, eps)
    d = x - target
    loss = (F.log(v) + d * d / v) * 0.5
    if full:
        loss = loss + _HALF_LOG_2PI
    return _reduce(loss, reduction)


def _class_targets(target, n, c, op, arg="target"):
    """Integer class indices of shape (n,) in [0, c), as a NumPy array."""
    _tensor(target, op, arg)
    t = target._data
    if t.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', '{arg}' must hold integer class indices, but got "
                        f"{target.dtype}")
    if t.shape != (n,):
        raise ValueError(f"For '{op}', '{arg}' must have shape ({n},), but got {t.shape}")
    bad = (t < 0) | (t >= c)
    if bad.any():
        raise IndexError(f"For '{op}', {arg} class {t[bad][0]} is out of range [0, {c})")
    return t


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):
    """Multi-class hinge loss of (N, C) scores: for each sample, the sum over classes i != y of
    weight[y] * max(0, margin - input[y] + input[i])^p, divided by C (p is 1 or 2)."""
    args = (input, target, p, margin, weight, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(multi_margin_loss, *args)
    op = "multi_margin_loss"
    x = _float_tensor(input, op)
    check_reduction(reduction, op)
    check_one_of(p, (1, 2), "p", op)
    if x.ndim != 2:
        raise ValueError(f"For '{op}', 'input' must be (N, C), but got shape {x.shape}")
    n, c = x.shape
    t = _class_targets(target, n, c, op)
    rows = np.arange(n)
    x_true = A.reshape(A.getitem(x, (rows, t)), (n, 1))
    hinge = relu(x - x_true + margin)
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        w = _float_tensor(weight, op, "weight")
        if w.shape != (c,):
            raise ValueError(f"For '{op}', 'weight' must have shape ({c},), but got {w.shape}")
        hinge = hinge * A.reshape(A.getitem(M.cast(w, x._data.dtype), t), (n, 1))
    others = np.ones((n, c), x._data.dtype)
    others[rows, t] = 0
    return _reduce(_sum_div(hinge * wrap(others), c, 1), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """-(target * logsigmoid(input) + (1 - target) * logsigmoid(-input)) * weight, averaged over
    the classes (the last axis of (N, C)), then reduced over the samples."""
    args = (input, target, weight, reduction)
    if _reduced16(reduction, *args):
        return F._wide16(multilabel_soft_margin_loss, *args)
    op = "multilabel_soft_margin_loss"
    x = _float_tensor(input, op)
    _tensor(target, op, "target")
    check_reduction(reduction, op)
    if x.ndim != 2 or target.shape != x.shape:
        raise ValueError(f"For '{op}', 'input' must be (N, C) and 'target' of the same shape, "
                         f"but got {x.shape} and {target.shape}")
    y = M.cast(target, x._data.dtype)
    loss = -(y * logsigmoid(x) + (1.0 - y) * logsigmoid(-x))
    if weight is not None:
        w = _float_tensor(weight, op, "weight")
        _broadcast_shape(x, w, op, ("input", "weight"))
        loss = loss * w
    return _reduce(R.reduce_mean(loss, -1), reduction)
