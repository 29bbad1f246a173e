"""Functional neural-network ops: activations, softmax family, losses, dense, one_hot,
cosine_similarity (the layer ops, conv to pooling to normalisation, live in layer_func)."""
import builtins
import math

import numpy as np

from ..._autodiff.tape import apply, call1, const, wrap
from ..._validator import (check_bool, check_float, check_float_range, check_int,
                           check_non_negative_float, check_non_negative_int, check_one_of,
                           check_positive_float, check_positive_int, check_reduction)
from ...common import dtype as mstype
from ...common.seed import generator
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import loss_ops as LO
from ..operations import math_ops as M
from ..operations import reduce_ops as R
from ..operations import linalg_ops as L
from ..operations import nn_ops as N
from ..operations import random_ops as RO
from ..operations._kernels import normalize_axis
from . import math_func as F
from ..primitive import Primitive, data_flag, data_function, shared
from . import array_func as AF
from ._checks import _tensor
from .linalg_func import einsum

__all__ = [
    "relu", "relu6", "leaky_relu", "elu", "celu", "selu", "silu", "gelu", "mish", "hardswish",
    "hardsigmoid", "hardtanh", "softsign", "tanhshrink", "prelu", "glu", "softplus", "softmax",
    "log_softmax", "stop_gradient", "dense", "one_hot", "cosine_similarity",
    "binary_cross_entropy_with_logits", "binary_cross_entropy", "cross_entropy", "nll_loss",
    "mse_loss", "l1_loss", "huber_loss", "kl_div", "logsigmoid", "smooth_l1_loss",
    "cosine_embedding_loss", "margin_ranking_loss", "soft_margin_loss", "hinge_embedding_loss",
    "triplet_margin_loss", "gaussian_nll_loss", "multi_margin_loss", "multilabel_soft_margin_loss",
    "fast_gelu", "hardshrink", "softshrink", "soft_shrink", "threshold", "softmin",
    "gumbel_softmax", "rrelu", "dropout3d", "mse_loss_ext", "rms_norm", "add_rms_norm",
    "add_layer_norm", "swiglu", "rotary_position_embedding", "bidense", "ctc_greedy_decoder",
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


def _has_negative(var):
    return np.array(np.nanmin(var) < 0)


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
    if axis != -1:
        axis = normalize_axis(axis, idx.ndim + 1, "one_hot")
    # a DataFunction node of the indices (and Tensor on/off values): a graph replay redoes it
    return data_function(_one_hot, *[v if isinstance(v, Tensor) else const(np.asarray(v))
                                     for v in (indices, on_value, off_value)],
                         static=(depth, axis, dt))


def _one_hot(idx, on, off, depth, axis, dt):
    out = np.where(idx[..., None] == np.arange(depth), on.astype(dt), off.astype(dt))
    return out if axis == -1 else np.moveaxis(out, -1, axis)


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


def _nll_targets(t, classes, ignore_index, op):
    """(each row's class, 0 where ignored; its flat index into the (rows, classes)
    log-probabilities; where the row's target is not `ignore_index`); an out-of-range class is
    an IndexError."""
    t = t.reshape(-1)
    keep = t != ignore_index
    bad = keep & ((t < 0) | (t >= classes))
    if bad.any():
        raise IndexError(f"For '{op}', target class {t[bad][0]} is out of range [0, {classes})")
    safe = np.where(keep, t, 0)
    return safe, np.arange(t.size) * classes + safe, keep


def _weight_total(w_sample, wide):
    return np.asarray(w_sample.sum(dtype=wide))


def _nll(logp, target, weight, ignore_index, reduction, label_smoothing, op):
    logp = _float_tensor(logp, op, "input")
    check_reduction(reduction, op)
    check_float_range(label_smoothing, "label_smoothing", op, 0.0, 1.0)
    if not isinstance(target, Tensor):
        target = Tensor(np.asarray(target))
    t = target._data
    if t.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', class-index targets must be integers, but got {t.dtype}")
    c = logp.shape[1] if logp.ndim > 1 else logp.shape[0]
    batch_shape = (logp.shape[0],) + logp.shape[2:] if logp.ndim > 1 else ()
    if t.shape != batch_shape:
        raise ValueError(f"For '{op}', 'target' must have shape {batch_shape} for input of "
                         f"shape {logp.shape}, but got {t.shape}")
    dt = logp._data.dtype
    if weight is None:
        w_class = const(np.ones(c, dt))
    else:
        w = _tensor(weight, op, "weight")
        if w.shape != (c,):
            raise ValueError(f"For '{op}', 'weight' must have shape ({c},), but got {w.shape}")
        w_class = stop_gradient(w if w._data.dtype == dt else M.cast(w, dt))
    # computed from the targets' data by recorded nodes, so a graph-mode replay redoes them
    safe, index, keep = data_function(_nll_targets, target, static=(c, ignore_index, op))
    flat = _class_axis_last(logp)
    rows = index.shape[0]
    zero = const(np.zeros((), dt))
    w_sample = M.select(keep, A.gather(w_class, safe, 0), zero)
    picked = A.gather(A.reshape(flat, (rows * c,)), index, 0)
    loss = -picked * w_sample
    if label_smoothing:
        smooth = -F.sum(flat * w_class, 1) * M.cast(keep, dt)
        loss = loss * (1 - label_smoothing) + smooth * (label_smoothing / c)
    if reduction == "none":
        return A.reshape(loss, batch_shape)
    if reduction == "sum":
        return F.sum(loss)
    # float16 weights add up wide: a float16 count stops at 2,048 and overflows at 65,504
    return _sum_div(loss, data_function(_weight_total, w_sample,
                                        static=(F._WIDE if dt == F._F16 else None,)))


def _target_times_logp(probs, logp):
    """probs * logp with 0 where probs is 0, so that -inf (masked) logits give finite values and
    gradients instead of 0 * -inf = NaN."""
    return M.select(probs != 0, logp, 0.0) * probs


def _plain_targets(t, classes, ignore_index):
    """Whether every class index is in range and none is `ignore_index` (the fused path)."""
    return np.asarray(t.min() >= 0 and t.max() < classes and not (t == ignore_index).any())


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
            and t.size and data_function(_plain_targets, target,
                                         static=(input.shape[1], ignore_index)).item()):
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


def _positive_of(t, op, arg):
    """Where a target that may only hold 1 and -1 is 1 (a DataFunction: checked at each replay)."""
    if t.size and not np.isin(t, (1, -1)).all():
        bad = t[~np.isin(t, (1, -1))].ravel()[0]
        raise ValueError(f"For '{op}', '{arg}' must hold only 1 and -1, but it holds {bad}")
    return t == 1


def _positive(target, op, arg):
    """A bool Tensor, True where `target` (only 1 and -1) is 1, made by a recorded node."""
    return data_function(_positive_of, target, static=(op, arg))


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
    positive = _positive(target, op, "target")
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
    positive = _positive(targets, op, "targets")
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
    if var._data.size and data_flag(_has_negative, var):  # a guard: every replay checks it
        raise ValueError(f"For '{op}', 'var' must be non-negative, but its minimum is "
                         f"{np.nanmin(var._data)}")
    v = F.maximum(var, eps)
    d = x - target
    loss = (F.log(v) + d * d / v) * 0.5
    if full:
        loss = loss + _HALF_LOG_2PI
    return _reduce(loss, reduction)


def _margin_targets(t, c, dt, op):
    """For class indices `t` (n,) in [0, c): their flat positions in an (n, c) array and a mask
    of dtype `dt` that is 0 at those positions, 1 elsewhere (a DataFunction)."""
    bad = (t < 0) | (t >= c)
    if bad.any():
        raise IndexError(f"For '{op}', target class {t[bad][0]} is out of range [0, {c})")
    rows = np.arange(t.size)
    others = np.ones((t.size, c), dt)
    others[rows, t] = 0
    return rows * c + t, others


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
    _tensor(target, op, "target")
    if target._data.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', 'target' must hold integer class indices, but got "
                        f"{target.dtype}")
    if target.shape != (n,):
        raise ValueError(f"For '{op}', 'target' must have shape ({n},), but got {target.shape}")
    # computed from the targets' data by a recorded node, so a graph-mode replay redoes it
    flat, others = data_function(_margin_targets, target, static=(c, x._data.dtype, op))
    x_true = A.reshape(A.gather(A.reshape(x, (n * c,)), flat, 0), (n, 1))
    hinge = relu(x - x_true + margin)
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        w = _float_tensor(weight, op, "weight")
        if w.shape != (c,):
            raise ValueError(f"For '{op}', 'weight' must have shape ({c},), but got {w.shape}")
        hinge = hinge * A.reshape(A.gather(M.cast(w, x._data.dtype), target, 0), (n, 1))
    return _reduce(_sum_div(hinge * others, c, 1), reduction)


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


# ---- activations and normalisations of the breadth family ----------------------------------------

def _floating(x, op, arg="input"):
    """x itself; a TypeError unless it is a floating-point Tensor (MindSpore refuses integers)."""
    _tensor(x, op, arg)
    if x._data.dtype.kind != "f":
        raise TypeError(f"For '{op}', '{arg}' must be a float16, float32 or float64 Tensor, but "
                        f"got {x.dtype}")
    return x


_FAST_GELU_K = 1.702


def fast_gelu(x):
    """x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)), which is x * sigmoid(1.702 x)."""
    x = _floating(x, "fast_gelu", "x")
    return x * F.sigmoid(x * _FAST_GELU_K)


def hardshrink(input, lambd=0.5):
    """input where |input| > lambd, else 0."""
    x = _floating(input, "hardshrink")
    lambd = check_float(lambd, "lambd", "hardshrink")
    return M.select(F.abs(x) > lambd, x, 0.0)


def softshrink(input, lambd=0.5):
    """input - lambd where input > lambd, input + lambd where input < -lambd, else 0."""
    x = _floating(input, "softshrink")
    lambd = check_float(lambd, "lambd", "softshrink")
    if lambd < 0:
        raise ValueError(f"For 'softshrink', 'lambd' must be non-negative, but got {lambd}")
    return M.select(x > lambd, x - lambd, M.select(x < -lambd, x + lambd, 0.0))


def soft_shrink(input, lambd=0.5):
    """The same as `softshrink`."""
    return softshrink(input, lambd)


def threshold(input, thr, value):
    """input where input > thr, else value (in the input's dtype)."""
    _tensor(input, "threshold")
    thr = check_float(thr, "thr", "threshold")
    check_float(value, "value", "threshold")
    fill = wrap(np.asarray(value).astype(input._data.dtype))
    return M.select(input > thr, input, fill)


def softmin(x, axis=-1, *, dtype=None):
    """softmax(-x) along `axis`; `dtype` casts x first."""
    _tensor(x, "softmin", "x")
    if dtype is not None:
        x = M.cast(x, dtype)
    return softmax(-_floating(x, "softmin", "x"), axis)


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """softmax((logits + g) / tau) along `dim`, with g standard Gumbel noise; with `hard`, the
    one-hot of its argmax in the forward pass and the soft sample's gradient (straight-through).
    """
    op = "gumbel_softmax"
    x = _floating(logits, op, "logits")
    tau = check_float(tau, "tau", op)
    if not tau > 0:
        raise ValueError(f"For '{op}', 'tau' must be positive, but got {tau}")
    hard = check_bool(hard, "hard", op)
    ax = normalize_axis(check_int(dim, "dim", op), x.ndim, op)
    # a random node and recorded nodes: a graph-mode replay draws and picks anew, as eager does
    u = apply(shared(RO.UniformDraw, x.shape, np.dtype(np.float64)), ())
    soft = softmax((x + data_function(_gumbel_noise, u, static=(x._data.dtype,))) / tau, ax)
    if not hard:
        return soft
    return soft - stop_gradient(soft) + data_function(_one_hot_of_max, soft, static=(ax,))


def _gumbel_noise(u, dtype):
    """Standard Gumbel noise from uniform draws in [0, 1), in `dtype`."""
    return (-np.log(-np.log(np.maximum(u, np.finfo(np.float64).tiny)))).astype(dtype)


def _one_hot_of_max(soft, ax):
    """1 at the first maximum along `ax`, 0 elsewhere, in soft's dtype."""
    onehot = np.zeros(soft.shape, soft.dtype)
    np.put_along_axis(onehot, np.expand_dims(np.argmax(soft, ax), ax), 1, ax)
    return onehot


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):
    """input where input >= 0, else input * a with a drawn uniformly from [lower, upper] for
    each element (integer inputs keep their dtype, the product truncated)."""
    op = "rrelu"
    _tensor(input, op)
    lower = check_float(lower, "lower", op)
    upper = check_float(upper, "upper", op)
    if upper < lower:
        raise ValueError(f"For '{op}', 'upper' must be >= 'lower', but got upper {upper} and "
                         f"lower {lower}")
    if input._data.dtype.kind != "f":
        slope = generator().uniform(lower, upper, input.shape)
        a = input._data
        return wrap(np.where(a >= 0, a, (a * slope).astype(a.dtype)))
    # a random node: a graph-mode replay draws new slopes, as eager does
    slope = apply(shared(RO.UniformDraw, input.shape, input._data.dtype, lower, upper), ())
    return M.select(input >= 0, input, input * slope)


def dropout3d(input, p=0.5, training=True):
    """Zero whole channels of NCDHW `input` with probability `p`, survivors scaled by
    1 / (1 - p); identity when not `training`."""
    op = "dropout3d"
    _tensor(input, op)
    if input.ndim != 5:
        raise ValueError(f"For '{op}', 'input' must be 5-D (N, C, D, H, W), but got shape "
                         f"{input.shape}")
    p = check_float_range(p, "p", op, 0.0, 1.0)
    if not training or p == 0:
        return input
    return input * _channel_keep(input, 1.0 - p)


def _channel_keep(x, keep_prob):
    """A constant (N, C, 1, ...) mask: 1 / keep_prob with probability keep_prob, else 0."""
    shape = x.shape[:2] + (1,) * (x.ndim - 2)
    if keep_prob == 0:
        return const(np.zeros(shape, x._data.dtype))
    return apply(shared(RO.DropoutKeep, shape, keep_prob, x._data.dtype, None, True), ())


def mse_loss_ext(input, target, reduction="mean"):
    """(input - target)^2 with broadcasting, reduced (`mse_loss` under mint's name). MindSpore
    2.10 has no CPU kernel for it."""
    return mse_loss(input, target, reduction)


def _rms_norm(x, gamma, epsilon, op):
    x = _floating(x, op, "x")
    g = _floating(gamma, op, "gamma")
    check_float_range(epsilon, "epsilon", op, 0.0, 1.0, low_inclusive=False)
    if g.ndim > x.ndim or g.ndim == 0 and x.ndim == 0:
        raise ValueError(f"For '{op}', the rank of 'gamma' {g.shape} must not exceed that of "
                         f"'x' {x.shape}")
    axes = tuple(range(x.ndim - max(g.ndim, 1), x.ndim))
    try:
        np.broadcast_shapes(g.shape, x.shape[x.ndim - len(axes):])
    except ValueError:
        raise ValueError(f"For '{op}', 'gamma' {g.shape} does not match the last dims of 'x' "
                         f"{x.shape}") from None
    wide = x if x._data.dtype != F._F16 else M.cast(x, np.float32)
    rstd = F.rsqrt(F.mean(wide * wide, axes, True) + epsilon)
    y = M.cast(wide * rstd, x._data.dtype) * M.cast(g, x._data.dtype)
    return y, rstd


def rms_norm(x, gamma, epsilon=1e-06):
    """(x / sqrt(mean(x^2) + epsilon) * gamma, 1 / sqrt(mean(x^2) + epsilon)), the mean taken
    over the last gamma.ndim axes (kept, size 1, in the second output, which is float32 for
    float16 x). MindSpore 2.10 has no CPU kernel for it."""
    return _rms_norm(x, gamma, epsilon, "rms_norm")


def add_rms_norm(x1, x2, gamma, epsilon=1e-06):
    """rms_norm(x1 + x2, gamma, epsilon) and x1 + x2: (y, rstd, x1 + x2). MindSpore 2.10 has no
    CPU kernel for it."""
    op = "add_rms_norm"
    _floating(x1, op, "x1")
    _floating(x2, op, "x2")
    if x1.shape != x2.shape:
        raise ValueError(f"For '{op}', 'x1' and 'x2' must have the same shape, but got "
                         f"{x1.shape} and {x2.shape}")
    x = x1 + x2
    y, rstd = _rms_norm(x, gamma, epsilon, op)
    return y, rstd, x


def add_layer_norm(x1, x2, gamma, beta, epsilon=1e-05, additional_output=False):
    """Layer norm of x = x1 + x2 over the last axis, times gamma plus beta (both (D,)):
    (y, mean, rstd, x), mean and rstd of shape (..., 1). MindSpore 2.10 has no CPU kernel for
    it."""
    op = "add_layer_norm"
    for name, t in (("x1", x1), ("x2", x2), ("gamma", gamma), ("beta", beta)):
        _floating(t, op, name)
    check_float(epsilon, "epsilon", op, allow_int=False)
    check_bool(additional_output, "additional_output", op)
    if x1.shape != x2.shape or x1.ndim == 0:
        raise ValueError(f"For '{op}', 'x1' and 'x2' must have the same shape of rank >= 1, but "
                         f"got {x1.shape} and {x2.shape}")
    d = x1.shape[-1]
    if gamma.shape != (d,) or beta.shape != (d,):
        raise ValueError(f"For '{op}', 'gamma' and 'beta' must have shape ({d},), but got "
                         f"{gamma.shape} and {beta.shape}")
    x = x1 + x2
    mean = F.mean(x, -1, True)
    centred = x - mean
    rstd = F.rsqrt(F.mean(centred * centred, -1, True) + epsilon)
    return centred * rstd * gamma + beta, mean, rstd, x


def swiglu(input, dim=-1):
    """silu(a) * b, with a and b the first and second halves of `input` along `dim`. MindSpore
    2.10 has no CPU kernel for it."""
    op = "swiglu"
    x = _floating(input, op)
    ax = normalize_axis(check_int(dim, "dim", op), x.ndim, op)
    if x.shape[ax] % 2:
        raise ValueError(f"For '{op}', axis {ax} of shape {x.shape} must have an even size")
    a, b = apply(A.SplitSizes(ax, [x.shape[ax] // 2] * 2), (x,))
    return a * F.sigmoid(a) * b


def rotary_position_embedding(x, cos, sin, mode=0):
    """x * cos + rotate(x) * sin for 4-D x (cos and sin broadcast to it); rotate is
    rotate_half (mode 0: (x1, x2) -> (-x2, x1) on the halves of the last axis) or
    rotate_interleaved (mode 1: each pair (a, b) -> (-b, a)). MindSpore 2.10 has no CPU kernel
    for it."""
    op = "rotary_position_embedding"
    x = _floating(x, op, "x")
    _floating(cos, op, "cos")
    _floating(sin, op, "sin")
    if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)):
        raise TypeError(f"For '{op}', 'mode' must be an int, but got {type(mode).__name__}")
    check_one_of(int(mode), (0, 1), "mode", op)
    if x.ndim != 4 or x.shape[-1] % 2:
        raise ValueError(f"For '{op}', 'x' must be 4-D with an even last dim, but got shape "
                         f"{x.shape}")
    for name, t in (("cos", cos), ("sin", sin)):
        if t.ndim != 4 or _broadcast_shape(x, t, op, ("x", name)) != x.shape:
            raise ValueError(f"For '{op}', '{name}' {t.shape} must be 4-D and broadcast to "
                             f"'x' {x.shape}")
    half = x.shape[-1] // 2
    if mode == 0:
        x1, x2 = apply(A.SplitSizes(3, [half, half]), (x,))
        rotated = AF.concat((-x2, x1), -1)
    else:
        pairs = A.reshape(x, x.shape[:3] + (half, 2))
        even, odd = apply(A.SplitSizes(4, [1, 1]), (pairs,))
        rotated = A.reshape(AF.concat((-odd, even), -1), x.shape)
    return x * M.cast(cos, x._data.dtype) + rotated * M.cast(sin, x._data.dtype)


def bidense(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] (+ bias[o])."""
    op = "bidense"
    x1 = _floating(input1, op, "input1")
    x2 = _floating(input2, op, "input2")
    w = _floating(weight, op, "weight")
    if (w.ndim != 3 or x1.ndim == 0 or x1.shape[:-1] != x2.shape[:-1]
            or x1.shape[-1] != w.shape[1] or x2.shape[-1] != w.shape[2]):
        raise ValueError(f"For '{op}', 'input1' (..., in1), 'input2' (..., in2) and 'weight' "
                         f"(out, in1, in2) do not match: shapes {x1.shape}, {x2.shape} and "
                         f"{w.shape}")
    y = einsum("...i,oij,...j->...o", x1, w, x2)
    if bias is not None:
        b = _floating(bias, op, "bias")
        if b.shape != (w.shape[0],):
            raise ValueError(f"For '{op}', 'bias' must have shape ({w.shape[0]},), but got "
                             f"{b.shape}")
        y = y + b
    return y


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """Greedy (best-path) CTC decoding of logits (max_time, batch, classes), the blank being the
    last class: (decoded_indices (total, 2), decoded_values (total,), decoded_shape (2,), all
    int64, and log_probability (batch, 1), minus the sum of each step's largest logit)."""
    op = "ctc_greedy_decoder"
    x = _floating(inputs, op, "inputs")
    _tensor(sequence_length, op, "sequence_length")
    merge_repeated = check_bool(merge_repeated, "merge_repeated", op)
    if x.ndim != 3:
        raise ValueError(f"For '{op}', 'inputs' must be 3-D (max_time, batch, classes), but got "
                         f"shape {x.shape}")
    lengths = sequence_length._data
    if lengths.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', 'sequence_length' must be int32, but got "
                        f"{sequence_length.dtype}")
    t_max, batch, classes = x.shape
    if lengths.shape != (batch,):
        raise ValueError(f"For '{op}', 'sequence_length' must have shape ({batch},), but got "
                         f"{lengths.shape}")
    if batch and (lengths.max() > t_max or lengths.min() < 0):
        raise ValueError(f"For '{op}', each 'sequence_length' must be in [0, {t_max}], but got "
                         f"{lengths.tolist()}")
    a = x._data
    best = a.argmax(-1)
    top = a.max(-1)
    blank = classes - 1
    indices, values, log_prob, longest = [], [], np.zeros((batch, 1), a.dtype), 0
    for b in range(batch):
        n = int(lengths[b])
        log_prob[b, 0] = -top[:n, b].sum()
        decoded, previous = [], -1
        for t in range(n):
            k = int(best[t, b])
            if k != blank and not (merge_repeated and k == previous):
                decoded.append(k)
            previous = k
        indices += [(b, i) for i in range(len(decoded))]
        values += decoded
        longest = builtins.max(longest, len(decoded))
    return (wrap(np.asarray(indices, np.int64).reshape(-1, 2)),
            wrap(np.asarray(values, np.int64)), wrap(np.asarray([batch, longest], np.int64)),
            wrap(log_prob))


# ---- MindSpore's Primitive classes over these functions ------------------------------------------

class PReLU(Primitive):
    """`PReLU()(input, weight)`: input where positive, else weight * input (one slope, or one
    per channel)."""

    def __init__(self):
        super().__init__()

    def __call__(self, input, weight):
        return prelu(input, weight)


class GLU(Primitive):
    """`GLU(axis=-1)(x)`: a * sigmoid(b) for the halves a, b of x along `axis`."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = check_int(axis, "axis", "GLU")

    def __call__(self, x):
        return glu(x, self.axis)


class CeLU(Primitive):
    """`CeLU(alpha=1.0)(x)`: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = check_float(alpha, "alpha", "CeLU")
        if self.alpha == 0:
            raise ValueError("For 'CeLU', 'alpha' must not be 0")

    def __call__(self, x):
        return celu(x, self.alpha)


class HShrink(Primitive):
    """`HShrink(lambd=0.5)(input)`: input where |input| > lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = check_float(lambd, "lambd", "HShrink")

    def __call__(self, input):
        return hardshrink(input, self.lambd)


class SoftShrink(Primitive):
    """`SoftShrink(lambd=0.5)(input)`: input shrunk towards 0 by lambd, 0 inside [-lambd,
    lambd]."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = check_float(lambd, "lambd", "SoftShrink")
        if self.lambd < 0:
            raise ValueError(f"For 'SoftShrink', 'lambd' must be non-negative, but got {lambd}")

    def __call__(self, input):
        return softshrink(input, self.lambd)


class FastGeLU(Primitive):
    """`FastGeLU()(x)`: x * sigmoid(1.702 x)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        return fast_gelu(x)


class FastGelu(FastGeLU):
    """`FastGelu()(x)`: the deprecated name of `FastGeLU`."""


class Gelu(Primitive):
    """`Gelu()(x)`: the deprecated name of `GeLU` (the tanh approximation)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        return gelu(x, "tanh")


class RmsNorm(Primitive):
    """`RmsNorm(epsilon=1e-6)(x, gamma)`: (y, rstd) as `ops.rms_norm`."""

    def __init__(self, epsilon=1e-06):
        super().__init__()
        self.epsilon = check_float_range(epsilon, "epsilon", "RmsNorm", 0.0, 1.0,
                                         low_inclusive=False)

    def __call__(self, x, gamma):
        return rms_norm(x, gamma, self.epsilon)


class _ChannelDropout(Primitive):
    _rank = None

    def __init__(self, keep_prob=0.5):
        super().__init__()
        self.keep_prob = check_float_range(keep_prob, "keep_prob", self.name, 0.0, 1.0)

    def __call__(self, x):
        _tensor(x, self.name, "x")
        if x.ndim != self._rank:
            raise ValueError(f"For '{self.name}', the input must be {self._rank}-D, but got "
                             f"shape {x.shape}")
        scale = _channel_keep(x, self.keep_prob)
        mask = np.broadcast_to(scale._data != 0, x.shape).copy()
        if x._data.dtype.kind != "f":
            return wrap((x._data * scale._data).astype(x._data.dtype)), wrap(mask)
        return x * scale, wrap(mask)


class Dropout2D(_ChannelDropout):
    """`Dropout2D(keep_prob=0.5)(x)` -> (output, mask) for NCHW x: each channel kept with
    probability keep_prob and scaled by 1 / keep_prob, else zeroed; mask is the bool keep map
    of x's shape."""

    _rank = 4


class Dropout3D(_ChannelDropout):
    """`Dropout3D(keep_prob=0.5)(x)` -> (output, mask) for NCDHW x, as `Dropout2D`."""

    _rank = 5


class CTCGreedyDecoder(Primitive):
    """`CTCGreedyDecoder(merge_repeated=True)(inputs, sequence_length)`: as
    `ops.ctc_greedy_decoder`."""

    def __init__(self, merge_repeated=True):
        super().__init__()
        self.merge_repeated = check_bool(merge_repeated, "merge_repeated", "CTCGreedyDecoder")

    def __call__(self, inputs, sequence_length):
        return ctc_greedy_decoder(inputs, sequence_length, self.merge_repeated)


class LSTM(Primitive):
    """`LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout,
    proj_size=0)(input, h, c, w)` -> (output, h_n, c_n, reserve, state): one LSTM layer over
    `input` (seq_len, batch, input_size) from states h (1, batch, real_hidden) and c (1, batch,
    hidden), gates (i, f, g, o). `w` is flat: W_ih (4H, input_size), W_hh (4H, real_hidden),
    then with `has_bias` one bias (4H,) (MindSpore's CPU layout, b_ih + b_hh) or b_ih and b_hh,
    then with `proj_size` W_hr (proj_size, H), real_hidden being proj_size or H. `reserve` holds
    the gate activations of every step and `state` the (unused) dropout state; MindSpore's CPU
    kernel runs one unidirectional layer only, and so does this one."""

    def __init__(self, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout,
                 proj_size=0):
        super().__init__()
        op = "LSTM"
        self.input_size = check_positive_int(input_size, "input_size", op)
        self.hidden_size = check_positive_int(hidden_size, "hidden_size", op)
        self.num_layers = check_positive_int(num_layers, "num_layers", op)
        self.has_bias = check_bool(has_bias, "has_bias", op)
        self.bidirectional = check_bool(bidirectional, "bidirectional", op)
        self.dropout = check_float_range(dropout, "dropout", op, 0.0, 1.0)
        self.proj_size = check_non_negative_int(proj_size, "proj_size", op)
        if self.proj_size >= self.hidden_size:
            raise ValueError(f"For '{op}', 'proj_size' must be in [0, hidden_size) = [0, "
                             f"{self.hidden_size}), but got {proj_size}")
        if self.num_layers != 1 or self.bidirectional:
            raise ValueError(f"For '{op}', only one unidirectional layer is supported (as "
                             f"MindSpore's CPU kernel), but got num_layers={num_layers}, "
                             f"bidirectional={bidirectional}")

    def _weights(self, w, dtype):
        n_in, hid = self.input_size, self.hidden_size
        real = self.proj_size or hid
        sizes = [4 * hid * n_in, 4 * hid * real]
        base = sum(sizes) + self.proj_size * hid
        bias_sizes = {base: [], base + 4 * hid: [4 * hid], base + 8 * hid: [4 * hid, 4 * hid]}
        allowed = [base + 4 * hid, base + 8 * hid] if self.has_bias else [base]
        if w.size not in allowed:
            raise ValueError(f"For 'LSTM', 'w' must have {' or '.join(map(str, allowed))} "
                             f"elements, but got shape {w.shape}")
        sizes += bias_sizes[w.size] + ([self.proj_size * hid] if self.proj_size else [])
        parts = apply(A.SplitSizes(0, sizes), (A.reshape(M.cast(w, dtype), (-1,)),))
        w_ih = A.reshape(parts[0], (4 * hid, n_in))
        w_hh = A.reshape(parts[1], (4 * hid, real))
        biases = parts[2:2 + len(bias_sizes[w.size])]
        bias = None
        for b in biases:
            bias = b if bias is None else bias + b
        w_hr = A.reshape(parts[-1], (self.proj_size, hid)) if self.proj_size else None
        return w_ih, w_hh, bias, w_hr

    def __call__(self, input, h, c, w):
        op = "LSTM"
        for name, t in (("input", input), ("h", h), ("c", c), ("w", w)):
            _floating(t, op, name)
        real = self.proj_size or self.hidden_size
        if input.ndim != 3 or input.shape[2] != self.input_size:
            raise ValueError(f"For '{op}', 'input' must be (seq_len, batch, {self.input_size}), "
                             f"but got shape {input.shape}")
        batch = input.shape[1]
        if h.shape != (1, batch, real) or c.shape != (1, batch, self.hidden_size):
            raise ValueError(f"For '{op}', 'h' must be (1, {batch}, {real}) and 'c' (1, {batch}, "
                             f"{self.hidden_size}), but got {h.shape} and {c.shape}")
        dtype = input._data.dtype
        w_ih, w_hh, bias, w_hr = self._weights(w, dtype)
        hid = self.hidden_size
        x_proj = einsum("tbi,gi->tbg", input, w_ih)
        if bias is not None:
            x_proj = x_proj + bias
        h_t, c_t = A.reshape(h, (batch, real)), A.reshape(c, (batch, hid))
        outputs, gates = [], []
        steps = apply(A.SplitSizes(0, [1] * input.shape[0]), (x_proj,)) if input.shape[0] else ()
        for step in steps:
            z = A.reshape(step, (batch, 4 * hid)) + einsum("br,gr->bg", h_t, w_hh)
            i, f, g, o = apply(A.SplitSizes(1, [hid] * 4), (z,))
            i, f, g, o = F.sigmoid(i), F.sigmoid(f), F.tanh(g), F.sigmoid(o)
            c_t = f * c_t + i * g
            h_t = o * F.tanh(c_t)
            if w_hr is not None:
                h_t = einsum("bh,ph->bp", h_t, w_hr)
            outputs.append(h_t)
            gates.append(np.concatenate([v._data for v in (i, f, g, o, c_t)], -1))
        output = AF.stack(outputs, 0) if outputs else const(np.zeros((0, batch, real), dtype))
        reserve = np.concatenate(gates, 0).reshape(-1, 1) if gates else np.zeros((0, 1), dtype)
        return (output, A.reshape(h_t, (1, batch, real)), A.reshape(c_t, (1, batch, hid)),
                wrap(reserve.astype(dtype)), const(np.zeros((1, 1), dtype)))


def _ijfo_step(x_t, h, c, w, b, forget_bias, cell_clip):
    """One LSTM step with gates in (i, j, f, o) order along the columns of w (in + hidden, 4H);
    j is the candidate cell. Returns (c, h, i, j, f, o, tanh(c))."""
    hid = h.shape[-1]
    z = _matmul_2d(AF.concat((x_t, h), -1), w)
    if b is not None:
        z = z + b
    i, j, f, o = apply(A.SplitSizes(z.ndim - 1, [hid] * 4), (z,))
    i, j, o = F.sigmoid(i), F.tanh(j), F.sigmoid(o)
    f = F.sigmoid(f + forget_bias) if forget_bias else F.sigmoid(f)
    c = f * c + i * j
    if cell_clip > 0:
        c = F.clamp(c, -cell_clip, cell_clip)
    tanh_c = F.tanh(c)
    return c, o * tanh_c, i, j, f, o, tanh_c


def _matmul_2d(a, b):
    return einsum("bi,ig->bg", a, b)


def _only(value, allowed, arg, op):
    if value != allowed:
        raise ValueError(f"For '{op}', only {arg}={allowed!r} is supported (as in MindSpore), "
                         f"but got {value!r}")


class BasicLSTMCell(Primitive):
    """`BasicLSTMCell(keep_prob=1.0, forget_bias=1.0, state_is_tuple=True,
    activation='tanh')(x, h, c, w, b)` -> (ct, ht, it, jt, ft, ot, tanhct): one LSTM step for x
    (batch, input), states h and c (batch, hidden), w (input + hidden, 4 * hidden) with gate
    columns (i, j, f, o), j the candidate cell, and b (4 * hidden,); forget_bias is added to the
    forget gate's input. MindSpore 2.10 has no CPU kernel for it."""

    def __init__(self, keep_prob=1.0, forget_bias=1.0, state_is_tuple=True, activation="tanh"):
        super().__init__()
        op = "BasicLSTMCell"
        self.keep_prob = check_float_range(keep_prob, "keep_prob", op, 0.0, 1.0)
        self.forget_bias = check_float(forget_bias, "forget_bias", op)
        self.state_is_tuple = check_bool(state_is_tuple, "state_is_tuple", op)
        self.activation = check_one_of(activation, ("tanh",), "activation", op)
        _only(self.keep_prob, 1.0, "keep_prob", op)

    def __call__(self, x, h, c, w, b):
        op = "BasicLSTMCell"
        for name, t in (("x", x), ("h", h), ("c", c), ("w", w), ("b", b)):
            _floating(t, op, name)
        if x.ndim != 2 or h.ndim != 2 or c.shape != h.shape or h.shape[0] != x.shape[0]:
            raise ValueError(f"For '{op}', 'x' must be (batch, input) and 'h', 'c' (batch, "
                             f"hidden), but got {x.shape}, {h.shape} and {c.shape}")
        hid = h.shape[1]
        if w.shape != (x.shape[1] + hid, 4 * hid) or b.shape != (4 * hid,):
            raise ValueError(f"For '{op}', 'w' must be ({x.shape[1] + hid}, {4 * hid}) and 'b' "
                             f"({4 * hid},), but got {w.shape} and {b.shape}")
        c, h, i, j, f, o, tanh_c = _ijfo_step(x, h, c, w, b, self.forget_bias, -1.0)
        return c, h, i, j, f, o, tanh_c


class DynamicRNN(Primitive):
    """`DynamicRNN(cell_type='LSTM', direction='UNIDIRECTIONAL', cell_depth=1, use_peephole=False,
    keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True, activation='tanh',
    forget_bias=0.0, is_training=True)(x, w, b, seq_length, init_h, init_c)` -> (y, output_h,
    output_c, i, j, f, o, tanhct), each (num_step, batch, hidden): an LSTM over x (num_step,
    batch, input) with w (input + hidden, 4 * hidden) of gate columns (i, j, f, o), b (4 *
    hidden,), init_h and init_c (1, batch, hidden); `seq_length` must be None; a positive
    cell_clip clips the cell state. MindSpore 2.10 has no CPU kernel for it."""

    def __init__(self, cell_type="LSTM", direction="UNIDIRECTIONAL", cell_depth=1,
                 use_peephole=False, keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True,
                 activation="tanh", forget_bias=0.0, is_training=True):
        super().__init__()
        op = "DynamicRNN"
        self.cell_type = check_one_of(cell_type, ("LSTM",), "cell_type", op)
        self.direction = check_one_of(direction, ("UNIDIRECTIONAL",), "direction", op)
        self.cell_depth = check_positive_int(cell_depth, "cell_depth", op)
        self.use_peephole = check_bool(use_peephole, "use_peephole", op)
        self.keep_prob = check_float_range(keep_prob, "keep_prob", op, 0.0, 1.0)
        self.cell_clip = check_float(cell_clip, "cell_clip", op)
        self.num_proj = check_non_negative_int(num_proj, "num_proj", op)
        self.time_major = check_bool(time_major, "time_major", op)
        self.activation = check_one_of(activation, ("tanh",), "activation", op)
        self.forget_bias = check_float(forget_bias, "forget_bias", op)
        self.is_training = check_bool(is_training, "is_training", op)
        for arg, allowed in (("cell_depth", 1), ("use_peephole", False), ("keep_prob", 1.0),
                             ("num_proj", 0), ("time_major", True)):
            _only(getattr(self, arg), allowed, arg, op)

    def __call__(self, x, w, b, seq_length, init_h, init_c):
        op = "DynamicRNN"
        for name, t in (("x", x), ("w", w), ("b", b), ("init_h", init_h), ("init_c", init_c)):
            _floating(t, op, name)
        if seq_length is not None:
            raise ValueError(f"For '{op}', 'seq_length' must be None (as in MindSpore)")
        if x.ndim != 3 or init_h.ndim != 3 or init_h.shape[:2] != (1, x.shape[1]):
            raise ValueError(f"For '{op}', 'x' must be (num_step, batch, input) and 'init_h' (1, "
                             f"batch, hidden), but got {x.shape} and {init_h.shape}")
        hid = init_h.shape[2]
        if (init_c.shape != init_h.shape or w.shape != (x.shape[2] + hid, 4 * hid)
                or b.shape != (4 * hid,)):
            raise ValueError(f"For '{op}', 'init_c' must be {init_h.shape}, 'w' ({x.shape[2] + hid}"
                             f", {4 * hid}) and 'b' ({4 * hid},), but got {init_c.shape}, "
                             f"{w.shape} and {b.shape}")
        h, c = A.reshape(init_h, init_h.shape[1:]), A.reshape(init_c, init_c.shape[1:])
        steps = apply(A.SplitSizes(0, [1] * x.shape[0]), (x,)) if x.shape[0] else ()
        record = []
        for step in steps:
            c, h, i, j, f, o, tanh_c = _ijfo_step(A.reshape(step, step.shape[1:]), h, c, w, b,
                                                  self.forget_bias, self.cell_clip)
            record.append((h, h, c, i, j, f, o, tanh_c))
        if not record:
            empty = const(np.zeros((0, x.shape[1], hid), b._data.dtype))
            return (empty,) * 8
        return tuple(AF.stack([r[k] for r in record], 0) for k in range(8))


class DynamicGRUV2(Primitive):
    """`DynamicGRUV2(direction='UNIDIRECTIONAL', cell_depth=1, keep_prob=1.0, cell_clip=-1.0,
    num_proj=0, time_major=True, activation='tanh', gate_order='rzh', reset_after=True,
    is_training=True)(x, weight_input, weight_hidden, bias_input, bias_hidden, seq_length,
    init_h)` -> (y, output_h, update, reset, new, hidden_new), each (num_step, batch, hidden): a
    GRU over x (num_step, batch, input), weight_input (input, 3 * hidden) and weight_hidden
    (hidden, 3 * hidden) with gate columns in `gate_order` (r reset, z update, h new), biases
    (3 * hidden,) or None, init_h (batch, hidden); with reset_after the reset gate multiplies
    W_hn h + b_hn, else W_hn is applied to r * h. hidden_new is W_hn h + b_hn. `seq_length`
    must be None. MindSpore 2.10 has no CPU kernel for it."""

    def __init__(self, direction="UNIDIRECTIONAL", cell_depth=1, keep_prob=1.0, cell_clip=-1.0,
                 num_proj=0, time_major=True, activation="tanh", gate_order="rzh",
                 reset_after=True, is_training=True):
        super().__init__()
        op = "DynamicGRUV2"
        self.direction = check_one_of(direction, ("UNIDIRECTIONAL",), "direction", op)
        self.cell_depth = check_positive_int(cell_depth, "cell_depth", op)
        self.keep_prob = check_float_range(keep_prob, "keep_prob", op, 0.0, 1.0)
        self.cell_clip = check_float(cell_clip, "cell_clip", op)
        self.num_proj = check_non_negative_int(num_proj, "num_proj", op)
        self.time_major = check_bool(time_major, "time_major", op)
        self.activation = check_one_of(activation, ("tanh",), "activation", op)
        self.gate_order = check_one_of(gate_order, ("rzh", "zrh"), "gate_order", op)
        self.reset_after = check_bool(reset_after, "reset_after", op)
        self.is_training = check_bool(is_training, "is_training", op)
        for arg, allowed in (("cell_depth", 1), ("keep_prob", 1.0), ("cell_clip", -1.0),
                             ("num_proj", 0), ("time_major", True)):
            _only(getattr(self, arg), allowed, arg, op)

    def _gates(self, t, hid):
        parts = dict(zip(self.gate_order, apply(A.SplitSizes(t.ndim - 1, [hid] * 3), (t,))))
        return parts["r"], parts["z"], parts["h"]

    def __call__(self, x, weight_input, weight_hidden, bias_input, bias_hidden, seq_length,
                 init_h):
        op = "DynamicGRUV2"
        for name, t in (("x", x), ("weight_input", weight_input),
                        ("weight_hidden", weight_hidden), ("init_h", init_h)):
            _floating(t, op, name)
        for name, t in (("bias_input", bias_input), ("bias_hidden", bias_hidden)):
            if t is not None:
                _floating(t, op, name)
        if seq_length is not None:
            raise ValueError(f"For '{op}', 'seq_length' must be None (as in MindSpore)")
        if x.ndim != 3 or init_h.ndim != 2 or init_h.shape[0] != x.shape[1]:
            raise ValueError(f"For '{op}', 'x' must be (num_step, batch, input) and 'init_h' "
                             f"(batch, hidden), but got {x.shape} and {init_h.shape}")
        hid = init_h.shape[1]
        if (weight_input.shape != (x.shape[2], 3 * hid)
                or weight_hidden.shape != (hid, 3 * hid)
                or any(b is not None and b.shape != (3 * hid,)
                       for b in (bias_input, bias_hidden))):
            raise ValueError(f"For '{op}', 'weight_input' must be ({x.shape[2]}, {3 * hid}), "
                             f"'weight_hidden' ({hid}, {3 * hid}) and the biases ({3 * hid},)")
        dtype = next((b._data.dtype for b in (bias_input, bias_hidden) if b is not None),
                     init_h._data.dtype)
        h = M.cast(init_h, dtype)
        x_all = einsum("tbi,ig->tbg", M.cast(x, dtype), M.cast(weight_input, dtype))
        if bias_input is not None:
            x_all = x_all + bias_input
        w_hidden = M.cast(weight_hidden, dtype)
        w_r, w_z, w_n = self._gates(w_hidden, hid)
        b_r, b_z, b_n = self._gates(bias_hidden, hid) if bias_hidden is not None else (0.0,) * 3
        steps = apply(A.SplitSizes(0, [1] * x.shape[0]), (x_all,)) if x.shape[0] else ()
        record = []
        for step in steps:
            x_r, x_z, x_n = self._gates(A.reshape(step, step.shape[1:]), hid)
            r = F.sigmoid(x_r + _matmul_2d(h, w_r) + b_r)
            z = F.sigmoid(x_z + _matmul_2d(h, w_z) + b_z)
            hidden_new = _matmul_2d(h, w_n) + b_n
            if self.reset_after:
                n = F.tanh(x_n + r * hidden_new)
            else:
                n = F.tanh(x_n + _matmul_2d(r * h, w_n) + b_n)
            h = (1.0 - z) * n + z * h
            record.append((h, h, z, r, n, hidden_new))
        if not record:
            empty = const(np.zeros((0, x.shape[1], hid), dtype))
            return (empty,) * 6
        return tuple(AF.stack([r[k] for r in record], 0) for k in range(6))


class DropoutGenMask(Primitive):
    """`DropoutGenMask(Seed0=0, Seed1=0)(shape, keep_prob)`: a uint8 bit mask for `shape`, one
    bit per element (1 keeps it, with probability keep_prob), least significant bit first,
    padded to a multiple of 128 bits: shape (ceil(n / 128) * 16,). `DropoutDoMask` applies it.
    Deprecated in MindSpore, which has no CPU kernel for it."""

    def __init__(self, Seed0=0, Seed1=0):
        super().__init__()
        for name, v in (("Seed0", Seed0), ("Seed1", Seed1)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ValueError(f"For 'DropoutGenMask', '{name}' must be a non-negative int, "
                                 f"but got {v!r}")
        self.Seed0, self.Seed1 = Seed0, Seed1

    def __call__(self, shape, keep_prob):
        op = "DropoutGenMask"
        if not isinstance(shape, (tuple, list)) or any(
                isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0
                for d in shape):
            raise TypeError(f"For '{op}', 'shape' must be a tuple of non-negative ints, but got "
                            f"{shape!r}")
        keep = _keep_probability(keep_prob, op)
        n = int(np.prod(shape, dtype=np.int64))
        padded = -(-n // 128) * 128
        stream = generator() if self.Seed0 == 0 and self.Seed1 == 0 else \
            generator((int(self.Seed0) << 32) + int(self.Seed1))
        bits = np.zeros(padded, bool)
        bits[:n] = stream.random(n) < keep
        return wrap(np.packbits(bits, bitorder="little"))


def _keep_probability(keep_prob, op):
    value = keep_prob._data if isinstance(keep_prob, Tensor) else np.asarray(keep_prob)
    if value.size != 1 or value.dtype.kind not in "fiu":
        raise TypeError(f"For '{op}', 'keep_prob' must be a number or a scalar Tensor, but got "
                        f"{keep_prob!r}")
    keep = float(value.reshape(()))
    if not 0.0 <= keep <= 1.0:
        raise ValueError(f"For '{op}', 'keep_prob' must be in [0, 1], but got {keep}")
    return keep


class DropoutDoMask(Primitive):
    """`DropoutDoMask()(input_x, mask, keep_prob)`: input_x times the bits of a
    `DropoutGenMask` mask (least significant bit first) divided by keep_prob (0 where keep_prob
    is 0). Deprecated in MindSpore, which has no CPU kernel for it."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x, mask, keep_prob):
        op = "DropoutDoMask"
        _tensor(input_x, op, "input_x")
        _tensor(mask, op, "mask")
        if mask._data.dtype != np.uint8 or mask.ndim != 1:
            raise TypeError(f"For '{op}', 'mask' must be a 1-D uint8 Tensor, but got "
                            f"{mask.dtype} of shape {mask.shape}")
        keep = _keep_probability(keep_prob, op)
        n = input_x.size
        if mask.shape[0] * 8 < n:
            raise ValueError(f"For '{op}', 'mask' holds {mask.shape[0] * 8} bits, fewer than the "
                             f"{n} elements of 'input_x'")
        bits = np.unpackbits(mask._data, bitorder="little")[:n].reshape(input_x.shape)
        scale = bits / keep if keep > 0 else np.zeros(input_x.shape)
        return input_x * wrap(scale.astype(input_x._data.dtype))


PRIMITIVE_CLASSES = ("PReLU", "GLU", "CeLU", "HShrink", "SoftShrink", "FastGeLU", "FastGelu",
                     "Gelu", "RmsNorm", "Dropout2D", "Dropout3D", "CTCGreedyDecoder", "LSTM",
                     "BasicLSTMCell", "DynamicRNN", "DynamicGRUV2", "DropoutGenMask",
                     "DropoutDoMask")
