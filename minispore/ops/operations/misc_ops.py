"""The remaining callable MindSpore primitives that fit no other family: sequence distances
(`EditDistance`), ragged ranges (`RaggedRange`), beam-search n-gram blocking (`NoRepeatNGram`),
the RNN-transducer loss (`RNNTLoss`), `ConfusionMatrix`, the overflow flag `FloatStatus`, the
embedding-cache id maps (`SubAndFilter`, `MapUniform`) and lookup (`MapCacheIdx`), the
optimizer update `FusedCastAdamWeightDecay`, `FusedAdaFactor(WithGlobalNorm)` and the random crop
`SampleDistortedBoundingBoxV2`."""
import math

import numpy as np

from ..._autodiff.tape import apply, wrap
from ...common import dtype as mstype
from ...common import seed as _seed
from ...common.tensor import Tensor
from ..primitive import Primitive, register
from . import array_ops as A
from . import optim_ops as O

__all__ = ["ConfusionMatrix", "EditDistance", "FloatStatus", "FusedAdaFactor",
           "FusedAdaFactorWithGlobalNorm", "FusedCastAdamWeightDecay",
           "MapCacheIdx", "MapUniform", "NoRepeatNGram", "RNNTLoss", "RaggedRange",
           "SampleDistortedBoundingBoxV2", "SubAndFilter"]

PRIMITIVE_CLASSES = ("FusedAdaFactor", "FusedAdaFactorWithGlobalNorm", "FusedCastAdamWeightDecay",
                     "MapCacheIdx", "SampleDistortedBoundingBoxV2")

_FLOATS = (np.float16, np.float32, np.float64)


def _require_tensor(op, arg, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(value).__name__}")


# ---- EditDistance --------------------------------------------------------------------------------

def _sparse_sequences(indices, values):
    """The sequences of a sparse tensor: {batch index tuple: values ordered by position}."""
    order = np.lexsort(indices.T[::-1]) if indices.size else np.arange(0)
    groups = {}
    for i in order:
        key = tuple(int(k) for k in indices[i, :-1])
        groups.setdefault(key, []).append(values[i])
    return groups


def _levenshtein(a, b):
    if not len(a):
        return len(b)
    if not len(b):
        return len(a)
    prev = np.arange(len(b) + 1)
    for i, x in enumerate(a, 1):
        cur = np.empty_like(prev)
        cur[0] = i
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return int(prev[-1])


@register
class EditDistance(Primitive):
    """`EditDistance(normalize=True)(hypothesis_indices, hypothesis_values, hypothesis_shape,
    truth_indices, truth_values, truth_shape)`: the Levenshtein distance between the sequences of
    two sparse tensors (COO indices (N, R) int64, values (N,), dense shape (R,) int64; the last
    dimension is the position in a sequence). The float32 result has shape
    max(hypothesis_shape, truth_shape)[:-1]; `normalize` divides by the truth length (an empty
    truth gives inf, or 0 when the hypothesis is empty too)."""

    inputs = ("hypothesis_indices", "hypothesis_values", "hypothesis_shape", "truth_indices",
              "truth_values", "truth_shape")
    differentiable = False

    def __init__(self, normalize=True):
        super().__init__()
        if not isinstance(normalize, bool):
            raise TypeError(f"For 'EditDistance', 'normalize' must be a bool, but got "
                            f"{type(normalize).__name__}")
        self.normalize = normalize

    def __call__(self, hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
                 truth_values, truth_shape):
        args = (hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
                truth_values, truth_shape)
        for arg, value in zip(self.inputs, args):
            _require_tensor("EditDistance", arg, value)
        return apply(self, args)

    def _check(self, side, indices, values, shape):
        for arg, a in ((f"{side}_indices", indices), (f"{side}_shape", shape)):
            if a.dtype != np.int64:
                raise TypeError(f"For 'EditDistance', '{arg}' must be an int64 tensor, but got "
                                f"{a.dtype}")
        if indices.ndim != 2 or values.ndim != 1 or shape.ndim != 1:
            raise ValueError(f"For 'EditDistance', '{side}_indices', '{side}_values' and "
                             f"'{side}_shape' must be 2-D, 1-D and 1-D, but got shapes "
                             f"{indices.shape}, {values.shape} and {shape.shape}")
        if indices.shape[0] != values.shape[0] or indices.shape[1] != shape.shape[0]:
            raise ValueError(f"For 'EditDistance', '{side}_indices' {indices.shape} does not "
                             f"match '{side}_values' {values.shape} and '{side}_shape' "
                             f"{shape.shape}")
        if shape.shape[0] < 1:
            raise ValueError(f"For 'EditDistance', '{side}_shape' must have at least 1 element")
        if indices.size and (np.any(indices < 0) or np.any(indices >= shape)):
            raise ValueError(f"For 'EditDistance', '{side}_indices' must lie within "
                             f"'{side}_shape' {shape.tolist()}")

    def forward(self, h_idx, h_val, h_shape, t_idx, t_val, t_shape):
        self._check("hypothesis", h_idx, h_val, h_shape)
        self._check("truth", t_idx, t_val, t_shape)
        if h_val.dtype != t_val.dtype:
            raise TypeError(f"For 'EditDistance', 'hypothesis_values' and 'truth_values' must "
                            f"have the same dtype, but got {h_val.dtype} and {t_val.dtype}")
        if h_shape.shape != t_shape.shape:
            raise ValueError(f"For 'EditDistance', 'hypothesis_shape' and 'truth_shape' must "
                             f"have the same rank, but got {h_shape.shape[0]} and "
                             f"{t_shape.shape[0]}")
        out_shape = tuple(int(d) for d in np.maximum(h_shape, t_shape)[:-1])
        hyp = _sparse_sequences(h_idx, h_val)
        truth = _sparse_sequences(t_idx, t_val)
        out = np.zeros(out_shape, np.float32)
        for key in set(hyp) | set(truth):
            a, b = hyp.get(key, []), truth.get(key, [])
            dist = float(_levenshtein(a, b))
            if self.normalize:
                dist = dist / len(b) if b else (np.inf if a else 0.0)
            out[key] = dist
        return out


# ---- RaggedRange ---------------------------------------------------------------------------------

@register
class RaggedRange(Primitive):
    """`RaggedRange(Tsplits)(starts, limits, deltas)`: the ranges range(starts[i], limits[i],
    deltas[i]) as a ragged tensor: (rt_nested_splits of dtype `Tsplits`, the row offsets;
    rt_dense_values, the ranges concatenated, of the inputs' dtype)."""

    inputs = ("starts", "limits", "deltas")
    differentiable = False

    def __init__(self, Tsplits):
        super().__init__()
        if Tsplits not in (mstype.int32, mstype.int64):
            raise TypeError(f"For 'RaggedRange', 'Tsplits' must be mindspore.int32 or "
                            f"mindspore.int64, but got {Tsplits}")
        self.Tsplits = Tsplits
        self.max_length = 1000000

    def __call__(self, starts, limits, deltas):
        for arg, value in zip(self.inputs, (starts, limits, deltas)):
            _require_tensor("RaggedRange", arg, value)
        return apply(self, (starts, limits, deltas))

    def forward(self, starts, limits, deltas):
        kinds = {starts.dtype, limits.dtype, deltas.dtype}
        if len(kinds) != 1:
            raise TypeError(f"For 'RaggedRange', 'starts', 'limits' and 'deltas' must have the "
                            f"same dtype, but got {starts.dtype}, {limits.dtype} and "
                            f"{deltas.dtype}")
        dtype = starts.dtype
        if dtype not in (np.int32, np.int64, np.float32, np.float64):
            raise TypeError(f"For 'RaggedRange', the inputs must be int32, int64, float32 or "
                            f"float64, but got {dtype}")
        if not starts.shape == limits.shape == deltas.shape:
            raise ValueError(f"For RaggedRange, starts, limits, and deltas must have the same "
                             f"shape, but got starts {starts.shape}, limits {limits.shape}, "
                             f"deltas {deltas.shape}")
        if starts.ndim > 1:
            raise ValueError(f"For 'RaggedRange', the inputs must be 0-D or 1-D, but got rank "
                             f"{starts.ndim}")
        if np.any(deltas == 0):
            raise ValueError("For 'RaggedRange', 'deltas' must not contain 0")
        s, l, d = (np.atleast_1d(v) for v in (starts, limits, deltas))
        if dtype.kind == "i":
            span, step = (l - s).astype(np.int64), d.astype(np.int64)
            sizes = np.where((span > 0) == (step > 0),
                             (np.abs(span) + np.abs(step) - 1) // np.abs(step), 0)
        else:
            sizes = np.ceil((l.astype(np.float64) - s) / d)
        sizes = np.maximum(sizes, 0).astype(np.int64)
        if sizes.sum() > self.max_length:
            raise ValueError(f"For 'RaggedRange', the number of values ({int(sizes.sum())}) "
                             f"exceeds max_length {self.max_length}")
        splits = np.concatenate([[0], np.cumsum(sizes)]).astype(
            mstype.dtype_to_nptype(self.Tsplits))
        values = [s[i] + np.arange(sizes[i], dtype=dtype) * d[i] for i in range(len(sizes))]
        values = np.concatenate(values).astype(dtype) if values else np.zeros(0, dtype)
        return splits, values


# ---- NoRepeatNGram -------------------------------------------------------------------------------

@register
class NoRepeatNGram(Primitive):
    """`NoRepeatNGram(ngram_size=1)(state_seq, log_probs)`: bans, in beam search, every token
    that would repeat an n-gram of the decoded sequence: where the last n-1 tokens of
    state_seq (batch, beam, length) int32 occurred before, the log_probs (batch, beam, vocab) of
    the token that followed them become the dtype's lowest value."""

    inputs = ("state_seq", "log_probs")
    differentiable = False

    def __init__(self, ngram_size=1):
        super().__init__()
        if isinstance(ngram_size, bool) or not isinstance(ngram_size, int):
            raise TypeError(f"For 'NoRepeatNGram', 'ngram_size' must be an int, but got "
                            f"{type(ngram_size).__name__}")
        if ngram_size < 1:
            raise ValueError(f"For 'NoRepeatNGram', 'ngram_size' must be positive, but got "
                             f"{ngram_size}")
        self.ngram_size = ngram_size

    def __call__(self, state_seq, log_probs):
        _require_tensor("NoRepeatNGram", "state_seq", state_seq)
        _require_tensor("NoRepeatNGram", "log_probs", log_probs)
        return apply(self, (state_seq, log_probs))

    def forward(self, seq, log_probs):
        if seq.dtype != np.int32:
            raise TypeError(f"For 'NoRepeatNGram', 'state_seq' must be an int32 tensor, but got "
                            f"{seq.dtype}")
        if log_probs.dtype not in _FLOATS:
            raise TypeError(f"For 'NoRepeatNGram', 'log_probs' must be float16, float32 or "
                            f"float64, but got {log_probs.dtype}")
        for arg, a in (("state_seq", seq), ("log_probs", log_probs)):
            if a.ndim != 3:
                raise ValueError(f"For primitive[NoRepeatNGram], the rank of {arg} must be "
                                 f"equal to 3, but got {a.ndim}.")
        if seq.shape[:2] != log_probs.shape[:2]:
            raise ValueError(f"For 'NoRepeatNGram', the first two dims of 'state_seq' "
                             f"{seq.shape} and 'log_probs' {log_probs.shape} must match")
        vocab = log_probs.shape[-1]
        if seq.size and (seq.min() < 0 or seq.max() >= vocab):
            raise ValueError(f"For NoRepeatNGram, the id in the state input is not valid. "
                             f"Please make the value in the state_seq in the valid range "
                             f"between [0,{vocab}).")
        n, length = self.ngram_size, seq.shape[-1]
        if n > length + 1:
            raise ValueError(f"For primitive[NoRepeatNGram], the ngram_size must be less than or "
                             f"equal to state_seq shape[2] + 1 which is {length + 1}, but got "
                             f"{n}.")
        out = log_probs.copy()
        if n > length:
            return out
        rows, outs = seq.reshape(-1, length), out.reshape(-1, vocab)
        lowest = np.finfo(log_probs.dtype).min
        for row, row_out in zip(rows, outs):
            tail = row[length - n + 1:] if n > 1 else row[:0]
            for i in range(length - n + 1):
                if np.array_equal(row[i:i + n - 1], tail):
                    row_out[row[i + n - 1]] = lowest
        return out


# ---- RNNTLoss ------------------------------------------------------------------------------------

def _log_softmax(x):
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def _rnnt_one(lp, labels, t_len, u_len, blank):
    """The negative log-likelihood of one sequence and its gradient with respect to the
    log-probabilities lp (T, U, V), by the forward-backward recursions of the transducer."""
    alpha = np.full((t_len, u_len), -np.inf)
    beta = np.full((t_len, u_len), -np.inf)
    emit = lp[:t_len, :u_len - 1, :][np.arange(t_len)[:, None], np.arange(u_len - 1),
                                     labels[:u_len - 1]] if u_len > 1 else np.zeros((t_len, 0))
    stay = lp[:t_len, :u_len, blank]
    for t in range(t_len):
        for u in range(u_len):
            if t == 0 and u == 0:
                alpha[t, u] = 0.0
                continue
            a = alpha[t - 1, u] + stay[t - 1, u] if t else -np.inf
            b = alpha[t, u - 1] + emit[t, u - 1] if u else -np.inf
            alpha[t, u] = np.logaddexp(a, b)
    for t in range(t_len - 1, -1, -1):
        for u in range(u_len - 1, -1, -1):
            if t == t_len - 1 and u == u_len - 1:
                beta[t, u] = stay[t, u]
                continue
            a = beta[t + 1, u] + stay[t, u] if t < t_len - 1 else -np.inf
            b = beta[t, u + 1] + emit[t, u] if u < u_len - 1 else -np.inf
            beta[t, u] = np.logaddexp(a, b)
    loglike = beta[0, 0]
    grad = np.zeros_like(lp)
    grad[:t_len - 1, :u_len, blank] = -np.exp(alpha[:-1] + stay[:-1] + beta[1:] - loglike)
    grad[t_len - 1, u_len - 1, blank] = -np.exp(alpha[-1, -1] + stay[-1, -1] - loglike)
    if u_len > 1:
        flow = -np.exp(alpha[:, :-1] + emit + beta[:, 1:] - loglike)
        np.add.at(grad, (np.arange(t_len)[:, None], np.arange(u_len - 1), labels[:u_len - 1]),
                  flow)
    return -loglike, grad


@register
class RNNTLoss(Primitive):
    """`RNNTLoss(blank_label=0)(acts, labels, input_lengths, label_lengths)`: the RNN-transducer
    loss of the logits acts (B, T, U, V) (log-softmax over V inside) for labels (B, U-1) int32,
    as (costs (B,), grads), grads being d costs / d acts (zero past each sequence's lengths).
    d acts = dout_costs * grads (grads is a constant, so the loss is differentiable once)."""

    inputs = ("acts", "labels", "input_lengths", "label_lengths")
    saves = ("out",)

    def __init__(self, blank_label=0):
        super().__init__()
        if isinstance(blank_label, bool) or not isinstance(blank_label, int):
            raise TypeError(f"For 'RNNTLoss', 'blank_label' must be an int, but got "
                            f"{type(blank_label).__name__}")
        self.blank_label = blank_label

    def __call__(self, acts, labels, input_lengths, label_lengths):
        args = (acts, labels, input_lengths, label_lengths)
        for arg, value in zip(self.inputs, args):
            _require_tensor("RNNTLoss", arg, value)
        return apply(self, args)

    def forward(self, acts, labels, input_lengths, label_lengths):
        if acts.dtype not in _FLOATS:
            raise TypeError(f"For 'RNNTLoss', 'acts' must be float16 or float32, but got "
                            f"{acts.dtype}")
        for arg, a in zip(self.inputs[1:], (labels, input_lengths, label_lengths)):
            if a.dtype != np.int32:
                raise TypeError(f"For 'RNNTLoss', '{arg}' must be an int32 tensor, but got "
                                f"{a.dtype}")
        if acts.ndim != 4 or labels.ndim != 2 or input_lengths.ndim != 1 or \
                label_lengths.ndim != 1:
            raise ValueError(f"For 'RNNTLoss', 'acts', 'labels', 'input_lengths' and "
                             f"'label_lengths' must be 4-D, 2-D, 1-D and 1-D, but got shapes "
                             f"{acts.shape}, {labels.shape}, {input_lengths.shape} and "
                             f"{label_lengths.shape}")
        b, t_max, u_max, vocab = acts.shape
        if labels.shape != (b, u_max - 1) or input_lengths.shape != (b,) or \
                label_lengths.shape != (b,):
            raise ValueError(f"For 'RNNTLoss', with 'acts' of shape {acts.shape} 'labels' must "
                             f"have shape {(b, u_max - 1)} and the lengths {(b,)}, but got "
                             f"{labels.shape}, {input_lengths.shape} and {label_lengths.shape}")
        if not 0 <= self.blank_label < vocab:
            raise ValueError(f"For 'RNNTLoss', 'blank_label' must be in [0, {vocab}), but got "
                             f"{self.blank_label}")
        if np.any(input_lengths < 1) or np.any(input_lengths > t_max) or \
                np.any(label_lengths < 0) or np.any(label_lengths > u_max - 1):
            raise ValueError(f"For 'RNNTLoss', 'input_lengths' must be in [1, {t_max}] and "
                             f"'label_lengths' in [0, {u_max - 1}]")
        if labels.size and (labels.min() < 0 or labels.max() >= vocab):
            raise ValueError(f"For 'RNNTLoss', 'labels' must be in [0, {vocab})")
        wide = acts.astype(np.float64)
        lp = _log_softmax(wide)
        costs = np.zeros(b)
        grads = np.zeros_like(wide)
        for i in range(b):
            t_len, u_len = int(input_lengths[i]), int(label_lengths[i]) + 1
            cost, g_lp = _rnnt_one(lp[i], labels[i], t_len, u_len, self.blank_label)
            costs[i] = cost
            g = g_lp[:t_len, :u_len]
            grads[i, :t_len, :u_len] = g - np.exp(lp[i, :t_len, :u_len]) * g.sum(-1,
                                                                                 keepdims=True)
        return costs.astype(acts.dtype), grads.astype(acts.dtype)

    def bprop(self, saved, dout, needs):
        (_, grads), (dcosts, _) = saved[0], dout
        if dcosts is None:
            return (None,) * 4
        return A.reshape(dcosts, dcosts.shape + (1, 1, 1)) * grads, None, None, None


# ---- ConfusionMatrix, FloatStatus ----------------------------------------------------------------

@register
class ConfusionMatrix(Primitive):
    """`ConfusionMatrix(num_classes, dtype='int32')(labels, predictions, weights=None)`: the
    (num_classes, num_classes) matrix counting each (label, prediction) pair (row: label,
    column: prediction), or summing its `weights`; of the dtype of `labels` (as MindSpore's)."""

    inputs = ("labels", "predictions", "weights")
    differentiable = False

    def __init__(self, num_classes, dtype="int32"):
        super().__init__()
        if isinstance(num_classes, bool) or not isinstance(num_classes, int):
            raise TypeError(f"For 'ConfusionMatrix', 'num_classes' must be an int, but got "
                            f"{type(num_classes).__name__}")
        if num_classes < 1:
            raise ValueError(f"For 'ConfusionMatrix', 'num_classes' must be positive, but got "
                             f"{num_classes}")
        if not isinstance(dtype, str):
            raise TypeError(f"For 'ConfusionMatrix', 'dtype' must be a str, but got "
                            f"{type(dtype).__name__}")
        self.num_classes = num_classes
        self.dtype = dtype

    def __call__(self, labels, predictions, weights=None):
        _require_tensor("ConfusionMatrix", "labels", labels)
        _require_tensor("ConfusionMatrix", "predictions", predictions)
        if weights is None:
            return apply(self, (labels, predictions))
        _require_tensor("ConfusionMatrix", "weights", weights)
        return apply(self, (labels, predictions, weights))

    def forward(self, labels, predictions, weights=None):
        if labels.ndim != 1:
            raise ValueError(f"For 'ConfusionMatrix', 'labels' must be 1-D, but got shape "
                             f"{labels.shape}")
        if predictions.shape != labels.shape or (weights is not None and
                                                 weights.shape != labels.shape):
            raise ValueError(f"For 'ConfusionMatrix', 'predictions' and 'weights' must have the "
                             f"shape of 'labels' {labels.shape}, but got {predictions.shape}"
                             f"{'' if weights is None else f' and {weights.shape}'}")
        if labels.dtype != predictions.dtype or labels.dtype.kind not in "iuf":
            raise TypeError(f"For 'ConfusionMatrix', 'labels' and 'predictions' must be number "
                            f"tensors of the same dtype, but got {labels.dtype} and "
                            f"{predictions.dtype}")
        n = self.num_classes
        rows, cols = labels.astype(np.int64), predictions.astype(np.int64)
        for arg, idx, src in (("labels", rows, labels), ("predictions", cols, predictions)):
            if np.any(idx != src) or np.any(idx < 0) or np.any(idx >= n):
                raise ValueError(f"For 'ConfusionMatrix', '{arg}' must be integers in "
                                 f"[0, {n}), but got {src.tolist()}")
        out = np.zeros((n, n), np.float64 if weights is not None else np.int64)
        np.add.at(out, (rows, cols), 1 if weights is None else weights.astype(np.float64))
        return out.astype(labels.dtype)


@register
class FloatStatus(Primitive):
    """`FloatStatus()(x)`: [1.] (float32, shape (1,)) when x holds a NaN or an infinity, else
    [0.]."""

    differentiable = False

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        _require_tensor("FloatStatus", "x", x)
        return apply(self, (x,))

    def forward(self, x):
        if x.dtype not in _FLOATS:
            raise TypeError(f"For 'FloatStatus', 'x' must be float16, float32 or float64, but "
                            f"got {x.dtype}")
        return np.array([0.0 if np.all(np.isfinite(x)) else 1.0], np.float32)


# ---- embedding-cache id maps ---------------------------------------------------------------------

def _check_id_tensor(op, x, kinds):
    if x.dtype not in kinds:
        names = ", ".join(str(np.dtype(k)) for k in kinds)
        raise TypeError(f"For primitive[{op}], the input must be one of {{{names}}}, but got "
                        f"{x.dtype}.")


def _int_arg(op, arg, value):
    if isinstance(value, Tensor):
        value = value.asnumpy()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) and not (
            isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iu"):
        raise TypeError(f"For '{op}', '{arg}' must be an int, but got {type(value).__name__}")
    return int(value)


@register
class SubAndFilter(Primitive):
    """`SubAndFilter()(input_x, max_num, offset)`: the elements of input_x (int32 or int64,
    flattened) minus `offset` that lie in [0, max_num), and their flat indices (both of
    input_x's dtype)."""

    inputs = ("input_x", "max_num", "offset")
    differentiable = False

    def __init__(self):
        super().__init__()

    def __call__(self, input_x, max_num, offset):
        _require_tensor("SubAndFilter", "input_x", input_x)
        return apply(self, (input_x, _int_arg("SubAndFilter", "max_num", max_num),
                            _int_arg("SubAndFilter", "offset", offset)))

    def forward(self, x, max_num, offset):
        _check_id_tensor("SubAndFilter", x, (np.int32, np.int64))
        shifted = x.reshape(-1).astype(np.int64) - offset
        keep = np.flatnonzero((shifted >= 0) & (shifted < max_num))
        return shifted[keep].astype(x.dtype), keep.astype(x.dtype)


@register
class MapUniform(Primitive):
    """`MapUniform()(input, per_group_size, group_num)`: each key mapped to
    key % group_num * per_group_size + key // group_num (C remainder and quotient, truncated
    toward zero); every result must be below per_group_size * group_num."""

    inputs = ("input", "per_group_size", "group_num")
    differentiable = False

    def __init__(self):
        super().__init__()

    def __call__(self, input, per_group_size, group_num):
        _require_tensor("MapUniform", "input", input)
        per_group_size = _int_arg("MapUniform", "per_group_size", per_group_size)
        group_num = _int_arg("MapUniform", "group_num", group_num)
        if per_group_size <= 0 or group_num <= 0:
            raise ValueError(f"For 'MapUniform', 'per_group_size' and 'group_num' must be "
                             f"positive, but got {per_group_size} and {group_num}")
        return apply(self, (input, per_group_size, group_num))

    def forward(self, x, per_group_size, group_num):
        _check_id_tensor("MapUniform", x, (np.int8, np.int16, np.int32, np.int64))
        keys = x.astype(np.int64)
        out = np.fmod(keys, group_num) * per_group_size + np.trunc(keys / group_num).astype(
            np.int64)
        limit = per_group_size * group_num
        if out.size and out.max() >= limit:
            raise RuntimeError(f"For 'MapUniform', all elements in output must be less than "
                               f"{limit}, but got {int(out.max())}")
        return out.astype(x.dtype)


# ---- MapCacheIdx ---------------------------------------------------------------------------------

_GOLDEN = 0.6180339
_HASHMAP_KINDS = (np.int8, np.int16, np.int32, np.int64)


def _typed(dtype, value):
    """An integer wrapped to `dtype` as a C cast would (two's complement)."""
    bits = np.dtype(dtype).itemsize * 8
    return int(np.array([int(value) % (1 << bits)], np.uint64).astype(dtype)[0])


class MapCacheIdx(Primitive):
    """`MapCacheIdx()(hashmap, indices, step, emb_max_num, cache_max_num)`: the embedding-cache
    lookup, deprecated since MindSpore 2.8. `hashmap` (int16, int32 or int64, shape (rows, 4))
    holds one entry per row: key, cache slot, the step it was last used at, and its probe
    distance (0: an empty row). Each index becomes the key index - cache_max_num; keys outside
    [0, emb_max_num) get cache index -1. A key found (linear probing from its home row) is a hit:
    its cache slot, its step set to `step`. Each miss, in order, is inserted with its own probe
    distance and takes the slot of the first entry after it (cyclically) not used at `step` - 1
    or later, which is evicted (its row emptied and the following rows shifted back). A missing
    key repeated in `indices` is inserted once per occurrence, each with a slot of its own, as
    MindSpore does. Writes hashmap in place, and a Tensor `step` of hashmap's dtype (its first
    element, incremented). Returns (cache_idx, old_emb_idx, miss_emb_idx, swap_cache_idx): the
    cache slot of each index (indices' shape), then per miss the evicted key, the missing key
    and the slot it took (1-D). Not differentiable. A full hashmap raises RuntimeError and
    changes nothing (MindSpore's kernel keeps the writes made before it stopped)."""

    differentiable = False

    def __init__(self):
        super().__init__()

    def __call__(self, hashmap, indices, step, emb_max_num, cache_max_num):
        dtype = self._check_hashmap(hashmap)
        idx = self._convert("indices", indices, dtype)
        step_value, emb_max_num, offset = (
            _typed(dtype, self._scalar(arg, self._convert(arg, value, dtype)))
            for arg, value in (("step", step), ("emb_max_num", emb_max_num),
                               ("cache_max_num", cache_max_num)))
        table = hashmap._data.tolist()
        keys = (idx - np.array(offset, dtype)).reshape(-1).tolist()
        cache_idx, misses = self._search(table, keys, step_value, emb_max_num)
        old_keys, swapped = self._swap(table, [keys[i] for i in misses], step_value)
        for i, slot in zip(misses, swapped):
            cache_idx[i] = slot
        O._Update._write(hashmap, np.array(table, dtype).reshape(hashmap.shape))
        if isinstance(step, Tensor) and step.dtype == hashmap.dtype and step._data.size:
            new_step = step._data.copy()
            new_step.reshape(-1)[0] = _typed(dtype, step_value + 1)
            O._Update._write(step, new_step)
        return (wrap(np.array(cache_idx, dtype).reshape(idx.shape)),
                wrap(np.array(old_keys, dtype)),
                wrap(np.array([keys[i] for i in misses], dtype)),
                wrap(np.array(swapped, dtype)))

    def _check_hashmap(self, hashmap):
        if not isinstance(hashmap, Tensor):
            raise TypeError(f"For '{self.name}', 'hashmap' must be a Parameter or Tensor, but got "
                            f"{type(hashmap).__name__}")
        dtype = hashmap._data.dtype
        if dtype not in _HASHMAP_KINDS:
            raise TypeError(f"For '{self.name}', 'hashmap' must be int8, int16, int32 or int64, "
                            f"but got {mstype.from_np(dtype)}")
        if dtype == np.int8:
            raise TypeError(f"For '{self.name}', the CPU kernel has no int8 'hashmap' (int16, "
                            f"int32 or int64), but got Int8")
        if hashmap.ndim != 2:
            raise ValueError(f"For '{self.name}', the dimension of hashmap must be equal to 2, "
                             f"but got: {hashmap.ndim}.")
        if hashmap.shape[0] == 0:
            raise RuntimeError(f"For '{self.name}', the first dimension of 'hashmap' must be "
                               f"greater than 0, but got 0")
        if hashmap.shape[1] != 4:
            raise ValueError(f"For '{self.name}', each row of 'hashmap' is an entry (key, value, "
                             f"step, tag), so its shape must be (rows, 4), but got "
                             f"{hashmap.shape}")
        return dtype

    def _convert(self, arg, value, dtype):
        """`value` as an array of the hashmap's dtype: a Tensor whose dtype promotes to it, or
        a Python int or bool (wrapped to it)."""
        if isinstance(value, Tensor):
            got = value._data.dtype
            if np.promote_types(got, dtype) != dtype:
                raise TypeError(f"For '{self.name}', 'hashmap' is written in place, so its "
                                f"dtype {mstype.from_np(dtype)} cannot be converted to '{arg}''s "
                                f"{mstype.from_np(got)}")
            return value._data.astype(dtype)
        if isinstance(value, (bool, int, np.integer, np.bool_)):
            return np.array(_typed(dtype, value), dtype)
        if isinstance(value, (float, np.floating)):
            raise TypeError(f"For '{self.name}', 'hashmap' is written in place, so its dtype "
                            f"{mstype.from_np(dtype)} cannot be converted to the float of "
                            f"'{arg}' ({value!r})")
        raise TypeError(f"For '{self.name}', '{arg}' must be a Tensor or an int, but got "
                        f"{type(value).__name__}")

    def _scalar(self, arg, a):
        if a.size == 0:
            raise ValueError(f"For '{self.name}', '{arg}' must hold a value, but got a Tensor of "
                             f"shape {a.shape}")
        return a.reshape(-1)[0]

    def _full(self, what):
        return RuntimeError(f"For '{self.name}', hashmap is full, {what} failed, please set a "
                            f"larger vocab_cache_size!")

    def _search(self, table, keys, step, emb_max_num):
        """Cache slots of the hits (-1 elsewhere; hits get `step`) and the positions of misses."""
        rows = len(table)
        cache_idx, misses = [], []
        for pos, key in enumerate(keys):
            if not 0 <= key < emb_max_num:
                cache_idx.append(-1)
                continue
            row = int((_GOLDEN * key - math.floor(_GOLDEN * key)) * rows)
            for _ in range(rows):
                if table[row][3] == 0 or table[row][0] == key:
                    break
                row = (row + 1) % rows
            else:
                raise self._full("search cache idx")
            if table[row][3] == 0:
                misses.append(pos)
                cache_idx.append(-1)
            else:
                table[row][2] = step
                cache_idx.append(table[row][1])
        return cache_idx, misses

    def _swap(self, table, missing, step):
        """Insert each missing key and evict, for its slot, the first entry after it that is not
        in use; returns the evicted keys and the slots."""
        rows = len(table)
        old_keys, swapped = [], []
        for key in missing:
            row = int((_GOLDEN * key - math.floor(_GOLDEN * key)) * rows)
            for probe in range(1, rows + 1):
                if table[row][3] == 0:
                    break
                row = (row + 1) % rows
            else:
                raise self._full("insert new key")
            victim = (row + 1) % rows
            table[row][0], table[row][2], table[row][3] = key, step, probe
            for _ in range(rows):
                if table[victim][3] != 0 and table[victim][2] < step - 1:
                    break
                victim = (victim + 1) % rows
            else:
                raise self._full("delete old key")
            old_keys.append(table[victim][0])
            swapped.append(table[victim][1])
            table[row][1] = table[victim][1]
            table[victim][3] = 0
            self._shift_back(table, victim)
        return old_keys, swapped

    @staticmethod
    def _shift_back(table, hole):
        """Backward-shift deletion: move each following entry that sits past its home row into
        the hole it may occupy, until an empty row (emptied rows keep their other fields)."""
        rows = len(table)
        row, distance = (hole + 1) % rows, 1
        while table[row][3] != 0:
            if table[row][3] > distance:
                table[hole][:3] = table[row][:3]
                table[hole][3] = table[row][3] - distance
                table[row][3] = 0
                hole, distance = row, 0
            row, distance = (row + 1) % rows, distance + 1


# ---- FusedCastAdamWeightDecay --------------------------------------------------------------------

class FusedCastAdamWeightDecay(O.AdamWeightDecay):
    """`FusedCastAdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon, decay,
    gradient, global_norm)`: AdamWeightDecay on gradient / global_norm, computed in float32 for a
    float16 or float32 `var` (written back in its own dtype; m, v, gradient float32). Returns
    (var, m, v), the updated values (MindSpore 2.10's CPU kernel returns zeros there)."""

    _inputs = O.AdamWeightDecay._inputs + ("global_norm",)
    _scalars = O.AdamWeightDecay._scalars + ("global_norm",)

    def __call__(self, var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm):
        outs = self._run((var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm))
        return (wrap(outs[0]._data.astype(var._data.dtype)),) + outs[1:]

    def _result_dtype(self, values):
        var = values["var"]._data.dtype
        if var not in (np.float16, np.float32):
            raise TypeError(f"For '{self.name}', 'var' must be float16 or float32, but got "
                            f"{mstype.from_np(var)}")
        for name in ("m", "v", "gradient"):
            got = values[name]._data.dtype
            if got != np.float32:
                raise TypeError(f"For '{self.name}', '{name}' must be float32, but got "
                                f"{mstype.from_np(got)}")
        return np.dtype(np.float32)

    def _update(self, a):
        a = dict(a, gradient=a["gradient"] / a["global_norm"])
        return super()._update(a)


# ---- SampleDistortedBoundingBoxV2 ----------------------------------------------------------------

def _number_pair(op, arg, value):
    if not isinstance(value, (tuple, list)) or len(value) != 2 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise TypeError(f"For '{op}', '{arg}' must be a tuple or list of 2 numbers, but got "
                        f"{value!r}")
    return tuple(float(v) for v in value)


def _random_crop(rng, height, width, aspect, area_range):
    """One crop (x, y, w, h) of the given aspect ratio whose area lies in `area_range` times the
    image's, or None when that aspect ratio admits none."""
    min_area, max_area = (r * width * height for r in area_range)
    h = round(math.sqrt(min_area / aspect))
    max_h = round(math.sqrt(max_area / aspect))
    if max_h * aspect > width:
        max_h = int((width + 0.5 - 1e-7) / aspect)
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += int(rng.integers(0, max_h - h + 1))
    w = round(h * aspect)
    if w * h < min_area:
        h += 1
        w = round(h * aspect)
    if w * h > max_area:
        h -= 1
        w = round(h * aspect)
    if not (min_area <= w * h <= max_area and 0 < w <= width and 0 < h <= height):
        return None
    y = int(rng.integers(0, height - h + 1))
    x = int(rng.integers(0, width - w + 1))
    return x, y, w, h


def _covered(crop, boxes, min_covered):
    x, y, w, h = crop
    for bx0, by0, bx1, by1 in boxes:
        area = (bx1 - bx0) * (by1 - by0)
        if area <= 0:
            continue
        inter = max(0, min(x + w, bx1) - max(x, bx0)) * max(0, min(y + h, by1) - max(y, by0))
        if inter / area >= min_covered:
            return True
    return False


class SampleDistortedBoundingBoxV2(Primitive):
    """`SampleDistortedBoundingBoxV2(seed=0, seed2=0, aspect_ratio_range=(0.75, 1.33),
    area_range=(0.05, 1.0), max_attempts=100, use_image_if_no_bounding_boxes=False)(image_size,
    bounding_boxes, min_object_covered)`: a random crop of an image of size (height, width,
    channels) with an aspect ratio and an area fraction in the ranges that covers at least
    `min_object_covered` of one of the boxes (batch, N, 4) [y_min, x_min, y_max, x_max]
    (normalized), else the whole image after `max_attempts` tries. Returns (begin
    [y, x, 0], size [h, w, -1], both of image_size's dtype; the crop (1, 1, 4) float32,
    normalized). Seeds (seed, seed2) not both 0 give the same crop on every call (as
    MindSpore's CPU kernel); both 0 draw from the global stream."""

    def __init__(self, seed=0, seed2=0, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                 max_attempts=100, use_image_if_no_bounding_boxes=False):
        super().__init__()
        op = "SampleDistortedBoundingBoxV2"
        for arg, value in (("seed", seed), ("seed2", seed2), ("max_attempts", max_attempts)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"For '{op}', '{arg}' must be an int, but got "
                                f"{type(value).__name__}")
        if max_attempts <= 0:
            raise ValueError(f"For '{op}', the 'max_attempts' must be int and must > 0, but got "
                             f"'{max_attempts}'")
        if not isinstance(use_image_if_no_bounding_boxes, bool):
            raise TypeError(f"For '{op}', 'use_image_if_no_bounding_boxes' must be a bool, but "
                            f"got {type(use_image_if_no_bounding_boxes).__name__}")
        self.seed, self.seed2 = seed, seed2
        self.aspect_ratio_range = tuple(aspect_ratio_range)
        self.area_range = tuple(area_range)
        _number_pair(op, "aspect_ratio_range", aspect_ratio_range)
        _number_pair(op, "area_range", area_range)
        self.max_attempts = max_attempts
        self.use_image_if_no_bounding_boxes = use_image_if_no_bounding_boxes

    def _generator(self):
        if self.seed == 0 and self.seed2 == 0:
            return _seed.generator(None)
        return np.random.default_rng([self.seed & (2 ** 63 - 1), self.seed2 & (2 ** 63 - 1)])

    def _check_inputs(self, image_size, bounding_boxes, min_object_covered):
        op = "SampleDistortedBoundingBoxV2"
        for arg, value in (("image_size", image_size), ("bounding_boxes", bounding_boxes),
                           ("min_object_covered", min_object_covered)):
            _require_tensor(op, arg, value)
        size, boxes, covered = (t.asnumpy() for t in (image_size, bounding_boxes,
                                                       min_object_covered))
        if size.dtype.kind not in "iu" or size.dtype.itemsize > 8:
            raise TypeError(f"For primitive[{op}], the input argument[image_size] must be an "
                            f"integer tensor, but got {size.dtype}.")
        for arg, a in (("bounding_boxes", boxes), ("min_object_covered", covered)):
            if a.dtype != np.float32:
                raise TypeError(f"For primitive[{op}], the input argument[{arg}] must be a type "
                                f"of {{Tensor[Float32]}}, but got {a.dtype}.")
        if size.shape != (3,):
            raise ValueError(f"For primitive[{op}], the image_size elements must be equal to 3, "
                             f"but got shape {size.shape}.")
        if boxes.ndim != 3 or boxes.shape[-1] != 4:
            raise ValueError(f"For primitive[{op}], the bounding_boxes must have shape "
                             f"[batch, N, 4], but got {boxes.shape}.")
        if covered.shape != (1,):
            raise ValueError(f"For primitive[{op}], the min_object_covered must have shape (1,), "
                             f"but got {covered.shape}.")
        return size, boxes.reshape(-1, 4).astype(np.float64), float(covered[0])

    def __call__(self, image_size, bounding_boxes, min_object_covered):
        op = "SampleDistortedBoundingBoxV2"
        size, boxes, min_covered = self._check_inputs(image_size, bounding_boxes,
                                                      min_object_covered)
        height, width = int(size[0]), int(size[1])
        if height <= 0 or width <= 0:
            raise ValueError(f"For '{op}', the image height and width must be positive, but got "
                             f"{height} and {width}")
        if not 0.0 <= min_covered <= 1.0:
            raise ValueError(f"For '{op}', min_object_covered must be in [0.0, 1.0], got: "
                             f"[{min_covered}].")
        if np.any((boxes < 0) | (boxes > 1)):
            raise ValueError(f"For '{op}', all bounding box coordinates must in [0.0, 1.0]")
        if np.any(boxes[:, 0] > boxes[:, 2]) or np.any(boxes[:, 1] > boxes[:, 3]):
            raise ValueError(f"For '{op}', y_min and x_min of a bounding box must not exceed "
                             f"y_max and x_max")
        lo_ar, hi_ar = self.aspect_ratio_range
        lo_area, hi_area = self.area_range
        if lo_ar <= 0 or hi_ar < lo_ar:
            raise ValueError(f"For '{op}', 'aspect_ratio_range' must be positive and ordered, "
                             f"but got {self.aspect_ratio_range}")
        if not 0 < lo_area <= hi_area <= 1:
            raise ValueError(f"For '{op}', 'area_range' must lie in (0.0, 1.0] and be ordered, "
                             f"but got {self.area_range}")
        if not len(boxes):
            if not self.use_image_if_no_bounding_boxes:
                raise ValueError(f"For '{op}', no bounding boxes provided as input. Set "
                                 f"use_image_if_no_bounding_boxes=True to use the whole image")
            boxes = np.array([[0.0, 0.0, 1.0, 1.0]])
        pixel_boxes = [(int(x0 * width), int(y0 * height), int(x1 * width), int(y1 * height))
                       for y0, x0, y1, x1 in boxes]
        rng = self._generator()
        crop = None
        for _ in range(self.max_attempts):
            aspect = rng.uniform(lo_ar, hi_ar)
            found = _random_crop(rng, height, width, aspect, (lo_area, hi_area))
            if found is not None and _covered(found, pixel_boxes, min_covered):
                crop = found
                break
        x, y, w, h = crop if crop is not None else (0, 0, width, height)
        dtype = size.dtype
        begin = np.array([y, x, 0]).astype(dtype)
        extent = np.array([h, w, -1]).astype(dtype)
        box = np.array([[[y / height, x / width, (y + h) / height, (x + w) / width]]], np.float32)
        return wrap(begin), wrap(extent), wrap(box)


# ---- FusedAdaFactor ------------------------------------------------------------------------------

def _rms(a):
    return float(np.sqrt(np.mean(np.square(a)))) if a.size else 0.0


class FusedAdaFactor(Primitive):
    """`FusedAdaFactor(enable_scale_parameter=False, enable_first_moment=False,
    enable_weight_decay=False)(epsilon, clip_threshold, beta1, beta2, weight_decay,
    learning_rate, gradient, param, exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq)`: one
    Adafactor step, in float32, writing param and the moments in place. A param of rank >= 2
    keeps factored second moments (exp_avg_sq_row: the mean of g^2 + eps1 over the last axis,
    exp_avg_sq_col: over the second last); a vector keeps exp_avg_sq. The update
    g / sqrt(v), clipped to RMS `clip_threshold`, is scaled by the step size (learning_rate,
    times max(eps2, RMS(param)) with enable_scale_parameter), averaged into exp_avg with
    enable_first_moment; enable_weight_decay first shrinks param by weight_decay * step size.
    Returns the updated param (MindSpore's output is a placeholder)."""

    _global_norm = False

    def __init__(self, enable_scale_parameter=False, enable_first_moment=False,
                 enable_weight_decay=False):
        super().__init__()
        for arg, value in (("enable_scale_parameter", enable_scale_parameter),
                           ("enable_first_moment", enable_first_moment),
                           ("enable_weight_decay", enable_weight_decay)):
            if not isinstance(value, bool):
                raise TypeError(f"For '{self.name}', '{arg}' must be a bool, but got "
                                f"{type(value).__name__}")
        self.enable_scale_parameter = enable_scale_parameter
        self.enable_first_moment = enable_first_moment
        self.enable_weight_decay = enable_weight_decay

    def _scalar(self, arg, value):
        a = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
        if a.dtype.kind not in "iuf" or a.size != 1 or isinstance(value, bool):
            raise TypeError(f"For '{self.name}', '{arg}' must be a number or a one-element "
                            f"float Tensor, but got {value!r}")
        return float(a.reshape(()))

    def __call__(self, epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate,
                 gradient, param, exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq,
                 *global_norm):
        if len(global_norm) != int(self._global_norm):
            raise TypeError(f"For '{self.name}', the call takes {12 + self._global_norm} "
                            f"inputs, but got {12 + len(global_norm)}")
        slots = {"param": param, "exp_avg": exp_avg, "exp_avg_sq_row": exp_avg_sq_row,
                 "exp_avg_sq_col": exp_avg_sq_col, "exp_avg_sq": exp_avg_sq}
        for arg, value in (("gradient", gradient), *slots.items()):
            _require_tensor(self.name, arg, value)
            if value._data.dtype not in (np.float16, np.float32):
                raise TypeError(f"For '{self.name}', '{arg}' must be float16 or float32, but got "
                                f"{value.dtype}")
        eps = epsilon.asnumpy() if isinstance(epsilon, Tensor) else np.asarray(epsilon)
        if eps.size != 2:
            raise ValueError(f"For '{self.name}', 'epsilon' must hold 2 numbers (eps1, eps2), "
                             f"but got {eps.size}")
        eps1, eps2 = (float(e) for e in eps.reshape(-1))
        clip, beta1, beta2, decay, lr = (self._scalar(a, v) for a, v in (
            ("clip_threshold", clip_threshold), ("beta1", beta1), ("beta2", beta2),
            ("weight_decay", weight_decay), ("learning_rate", learning_rate)))
        shape = param.shape
        factored = len(shape) >= 2
        expected = {"gradient": shape, "exp_avg": shape}
        if factored:
            expected.update(exp_avg_sq_row=shape[:-1], exp_avg_sq_col=shape[:-2] + shape[-1:])
        else:
            expected.update(exp_avg_sq=shape)
        given = dict(slots, gradient=gradient)
        for arg, want in expected.items():
            if arg == "exp_avg" and not self.enable_first_moment:
                continue
            if tuple(given[arg].shape) != tuple(want):
                raise ValueError(f"For '{self.name}', '{arg}' must have shape {tuple(want)} for "
                                 f"'param' of shape {tuple(shape)}, but got "
                                 f"{tuple(given[arg].shape)}")
        g = gradient.asnumpy().astype(np.float64)
        if self._global_norm:
            norm = self._scalar("global_norm", global_norm[0])
            if norm > 0.0:
                g = g / norm
        p = param.asnumpy().astype(np.float64)
        step = lr * max(eps2, _rms(p)) if self.enable_scale_parameter else lr
        g2 = g * g + eps1
        new = {}
        if factored:
            row = beta2 * exp_avg_sq_row.asnumpy() + (1 - beta2) * g2.mean(-1)
            col = beta2 * exp_avg_sq_col.asnumpy() + (1 - beta2) * g2.mean(-2)
            r_factor = 1 / np.sqrt(row / row.mean(-1, keepdims=True))
            update = g * r_factor[..., :, None] / np.sqrt(col)[..., None, :]
            new.update(exp_avg_sq_row=row, exp_avg_sq_col=col)
        else:
            sq = beta2 * exp_avg_sq.asnumpy() + (1 - beta2) * g2
            update = g / np.sqrt(sq)
            new.update(exp_avg_sq=sq)
        update = update / max(1.0, _rms(update) / clip) * step
        if self.enable_first_moment:
            update = beta1 * exp_avg.asnumpy() + (1 - beta1) * update
            new["exp_avg"] = update
        if self.enable_weight_decay:
            p = p - decay * step * p
        new["param"] = p - update
        for name, value in new.items():
            O._Update._write(slots[name], value.astype(slots[name]._data.dtype))
        return wrap(new["param"].astype(param._data.dtype))


class FusedAdaFactorWithGlobalNorm(FusedAdaFactor):
    """`FusedAdaFactorWithGlobalNorm(...)(..., exp_avg_sq, global_norm)`: FusedAdaFactor on
    gradient / global_norm when global_norm > 0 (else on gradient), as MindSpore's CPU kernel."""

    _global_norm = True
