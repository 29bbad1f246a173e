"""Fused primitives for the hottest losses: sparse softmax cross-entropy (forward in three NumPy
passes, gradient softmax - onehot in one), differentiated again through a reference composite.
float16 logits sum their exps in float64 (reduce_ops' `_WIDE`) and round once (a vocabulary can
pass 65,504 classes)."""
import numpy as np

from ..._autodiff.tape import apply, wrap
from ..._quiet import quiet
from ...common.tensor import Tensor
from ..primitive import Primitive, any_nonzero, data_flag, register, shared
from . import array_ops as A
from . import math_ops as M
from . import nn_ops as N
from . import reduce_ops as R

_F16, _WIDE = np.dtype(np.float16), R._WIDE


def _check_labels(logits, labels, op):
    if logits.ndim != 2:
        raise ValueError(f"For '{op}', the logits must be 2-D (N, C), but got shape "
                         f"{logits.shape}")
    if labels.shape != logits.shape[:1]:
        raise ValueError(f"For '{op}', the labels must have shape ({logits.shape[0]},), but got "
                         f"{labels.shape}")
    if labels.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', the labels must be integers, but got {labels.dtype}")
    c = logits.shape[1]
    if labels.size and (labels.min() < 0 or labels.max() >= c):
        bad = labels[(labels < 0) | (labels >= c)][0]
        raise IndexError(f"For '{op}', label {bad} is out of range [0, {c})")


def _shifted(logits):
    m = np.max(logits, axis=1, keepdims=True) if logits.size else logits[:, :1]
    return logits - np.where(np.isfinite(m), m, 0)


@register
class SparseSoftmaxCrossEntropy(Primitive):
    """Per-sample -log(softmax(logits)[label]) for logits (N, C) and integer labels (N,) in
    [0, C): logsumexp(logits) - logits[label], finite for any finite logit and for -inf masks.
    dlogits = SparseSoftmaxCrossEntropyGrad(logits, labels, dout) = (softmax - onehot) * dout."""

    amp_auto = "full"
    internal = True
    inputs = ("logits", "labels")
    saves = ("logits", "labels")

    def forward(self, logits, labels):
        _check_labels(logits, labels, "SparseSoftmaxCrossEntropy")
        return quiet(_sparse_ce, logits, labels)

    def bprop(self, saved, dout, needs):
        logits, labels = saved
        return apply(_SPARSE_CE_GRAD, (logits, labels, dout)), None


def _sparse_ce(logits, labels):
    if logits.dtype == _F16:
        return _sparse_ce(logits.astype(_WIDE), labels).astype(_F16)
    shifted = _shifted(logits)
    lse = np.log(np.sum(np.exp(shifted), axis=1))
    return lse - shifted[np.arange(len(labels)), labels]


def _sparse_ce_grad_reference(logits, labels, dout):
    ids = labels._data if isinstance(labels, Tensor) else np.asarray(labels)
    onehot = wrap((np.arange(logits.shape[1]) == ids[:, None]).astype(logits._data.dtype))
    probs = apply(N.Softmax(1), (logits,))
    return (probs - onehot) * A.reshape(dout, (-1, 1))


@register
class SparseSoftmaxCrossEntropyGrad(Primitive):
    """(softmax(logits) - onehot(labels)) * dout[:, None], fused; differentiated again through
    its reference composite."""

    inputs = ("logits", "labels", "dout")
    saves = ("logits", "labels", "dout")
    reference = staticmethod(_sparse_ce_grad_reference)

    def forward(self, logits, labels, dout):
        if logits.dtype == _F16 or dout.dtype == _F16:
            wide = self.forward(logits.astype(_WIDE), labels, dout.astype(_WIDE))
            return quiet(wide.astype, logits.dtype)  # computed into exp(logits): its dtype
        e = np.exp(_shifted(logits))
        e /= e.sum(axis=1, keepdims=True)
        e[np.arange(len(labels)), labels] -= 1
        e *= dout[:, None]
        return e


_SPARSE_CE = SparseSoftmaxCrossEntropy()
_SPARSE_CE_GRAD = SparseSoftmaxCrossEntropyGrad()


def sparse_softmax_cross_entropy(logits, labels):
    """Per-sample cross-entropy of (N, C) logits at integer labels (N,)."""
    return apply(_SPARSE_CE, (logits, labels))



# ---- CTC -----------------------------------------------------------------------------------------

def _int_array(x, op, arg):
    if x.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', '{arg}' must be int32 or int64, but got {x.dtype}")
    return x.astype(np.int64, copy=False)


def _check_ctc(log_probs, targets, input_lengths, target_lengths, blank, op):
    """Validates CTCLossV2's inputs; returns (targets, input_lengths, target_lengths) as int64."""
    if log_probs.dtype not in (np.float32, np.float64):
        raise TypeError(f"For '{op}', 'log_probs' must be float32 or float64, but got "
                        f"{log_probs.dtype}")
    if log_probs.ndim != 3:
        raise ValueError(f"For '{op}', 'log_probs' must be 3-D (T, N, C), but got shape "
                         f"{log_probs.shape}")
    t_max, n, c = log_probs.shape
    targets = _int_array(targets, op, "targets")
    il = _int_array(input_lengths, op, "input_lengths")
    tl = _int_array(target_lengths, op, "target_lengths")
    if targets.ndim != 2 or targets.shape[0] != n:
        raise ValueError(f"For '{op}', 'targets' must have shape (N, S) = ({n}, S) for "
                         f"log_probs {log_probs.shape}, but got {targets.shape}")
    for name, v in (("input_lengths", il), ("target_lengths", tl)):
        if v.shape != (n,):
            raise ValueError(f"For '{op}', '{name}' must have shape ({n},) for log_probs "
                             f"{log_probs.shape}, but got {v.shape}")
    if not 0 <= blank < c:
        raise ValueError(f"For '{op}', 'blank' must be in [0, {c}), but got {blank}")
    if n:
        if il.min() < 0 or il.max() > t_max:
            raise ValueError(f"For '{op}', 'input_lengths' must be in [0, {t_max}] (T of "
                             f"log_probs), but got {il.tolist()}")
        bad = (tl < 0) | (tl > il) | (tl > targets.shape[1])
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"For '{op}', target_lengths[{i}] = {tl[i]} must be in [0, "
                             f"min(input_lengths[{i}] = {il[i]}, S = {targets.shape[1]})]")
    used = targets[np.arange(targets.shape[1]) < tl[:, None]]
    if used.size and (used.min() < 0 or used.max() >= c):
        bad = used[(used < 0) | (used >= c)][0]
        raise IndexError(f"For '{op}', target label {bad} is out of range [0, {c})")
    if (used == blank).any():
        raise ValueError(f"For '{op}', the targets must not contain the blank label {blank} "
                         "within their target_lengths")
    return targets, il, tl


def _ctc_states(targets, tl, blank):
    """The extended label sequences (N, 2S+1): blank, l1, blank, l2, ..., blank (labels past a
    target's length read as blank), and where a state may also be entered from two states back:
    a label that differs from the previous label."""
    n, s = targets.shape
    labels = np.where(np.arange(s) < tl[:, None], targets, blank)
    ext = np.full((n, 2 * s + 1), blank, np.int64)
    ext[:, 1::2] = labels
    skip = np.zeros(ext.shape, bool)
    skip[:, 3::2] = labels[:, 1:] != labels[:, :-1]
    return ext, skip


def _lse3(a, b, c):
    m = np.maximum(np.maximum(a, b), c)
    m = np.where(np.isfinite(m), m, 0)  # all -inf stays -inf, never inf - inf
    return m + np.log(np.exp(a - m) + np.exp(b - m) + np.exp(c - m))


def _ctc_final(alpha_last, tl):
    """log p(target) from the alphas at each sequence's last frame (N, 2S+1)."""
    rows = np.arange(len(tl))
    end = alpha_last[rows, 2 * tl]
    before = np.where(tl > 0, alpha_last[rows, np.maximum(2 * tl - 1, 0)], -np.inf)
    return np.logaddexp(end, before)


@register
class CTCLossV2(Primitive):
    """Connectionist temporal classification loss of log-probabilities (T, N, C) against padded
    targets (N, S), with input_lengths and target_lengths (N,): returns (neg_log_likelihood
    (N,), log_alpha (N, T, 2S+1)), as MindSpore's CTCLossV2 (reduction 'none' only).

    Forward: the alpha recursion in log space over the extended labels (blank, l1, blank, ...,
    blank), vectorised over the batch and the states, looping over time. log_alpha is -inf at
    frames past input_lengths and at states past 2 * target_lengths.
    d nll / d log_probs[t, n, c] = -sum over states s with label c of
    exp(log_alpha[n, t, s] + log_beta[n, t, s] + nll[n]) (CTCLossV2Grad: the beta recursion).
    This is the exact gradient with respect to log_probs; MindSpore 2.10 (like PyTorch) returns
    exp(log_probs) minus it, which agrees only after a log_softmax (both then give the same
    gradient of the logits). log_alpha carries no gradient. A loss that is infinite (no
    alignment is possible) has a NaN gradient, or with `zero_infinity` loss and gradient 0
    (MindSpore 2.10 zeroes the gradient but leaves the loss infinite). Second and higher
    derivatives are exact (see CTCLossV2Grad).
    """

    inputs = ("log_probs", "targets", "input_lengths", "target_lengths")
    saves = ("log_probs", "targets", "input_lengths", "target_lengths", "out")

    def __init__(self, blank=0, reduction="none", zero_infinity=False):
        super().__init__()
        if isinstance(blank, bool) or not isinstance(blank, (int, np.integer)):
            raise TypeError(f"For 'CTCLossV2', 'blank' must be an int, but got "
                            f"{type(blank).__name__}")
        if reduction != "none":
            raise ValueError(f"For 'CTCLossV2', 'reduction' must be 'none' (ops.ctc_loss "
                             f"reduces), but got {reduction!r}")
        if not isinstance(zero_infinity, bool):
            raise TypeError(f"For 'CTCLossV2', 'zero_infinity' must be a bool, but got "
                            f"{type(zero_infinity).__name__}")
        self.blank = int(blank)
        self.reduction = reduction
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        targets, il, tl = _check_ctc(log_probs, targets, input_lengths, target_lengths,
                                     self.blank, "CTCLossV2")
        t_max, n, _ = log_probs.shape
        ext, skip = _ctc_states(targets, tl, self.blank)
        emit = log_probs[:, np.arange(n)[:, None], ext]  # (T, N, 2S+1)
        s2 = ext.shape[1]
        log_alpha = np.full((n, t_max, s2), -np.inf, log_probs.dtype)
        alpha = np.full((n, s2), -np.inf, log_probs.dtype)
        alpha[:, 0] = 0  # before the first frame: in the first state with probability 1
        from1 = np.full_like(alpha, -np.inf)
        from2 = np.full_like(alpha, -np.inf)
        invalid = np.arange(s2) > 2 * tl[:, None]
        for t in range(t_max):
            live = (t < il)[:, None]
            from1[:, 1:] = alpha[:, :-1]
            from2[:, 2:] = np.where(skip[:, 2:], alpha[:, :-2], -np.inf)
            cur = _lse3(alpha, from1, from2) + emit[t]
            cur[invalid] = -np.inf
            alpha = np.where(live, cur, alpha)  # frozen at each sequence's last frame
            log_alpha[:, t] = np.where(live, cur, -np.inf)
        nll = 0.0 - _ctc_final(alpha, tl)
        if self.zero_infinity:
            nll = np.where(np.isinf(nll), 0.0, nll)
        return nll.astype(log_probs.dtype, copy=False), log_alpha

    def bprop(self, saved, dout, needs):
        log_probs, targets, input_lengths, target_lengths, out = saved
        d_nll, d_alpha = dout
        if not needs[0]:
            return None, None, None, None
        if d_alpha is not None and data_flag(any_nonzero, d_alpha):
            raise RuntimeError("For 'CTCLossV2', log_alpha carries no gradient (as in MindSpore); "
                               "differentiate neg_log_likelihood, or stop_gradient log_alpha")
        # log_alpha enters the gradient as a cache of the forward's work; CTCLossV2Grad's own
        # bprop never differentiates through it.
        grad = apply(shared(CTCLossV2Grad, self.blank, self.zero_infinity),
                     (d_nll, log_probs, targets, input_lengths, target_lengths, wrap(out[1]._data)))
        return grad, None, None, None


@register
class CTCLossV2Grad(Primitive):
    """The gradient of CTCLossV2's neg_log_likelihood with respect to log_probs, times dout (N,):
    -dout[n] * sum over states s with label c of exp(log_alpha + log_beta + nll), the beta
    recursion in log space looping backwards over time. log_alpha is the forward's, a constant.
    Differentiated again through `_ctc_nll_reference`, the alpha recursion composed of minispore
    ops (slow, but any order is exact)."""

    inputs = ("dout", "log_probs", "targets", "input_lengths", "target_lengths", "log_alpha")
    saves = ("dout", "log_probs", "targets", "input_lengths", "target_lengths", "log_alpha")

    def __init__(self, blank=0, zero_infinity=False):
        super().__init__()
        self.blank = int(blank)
        self.zero_infinity = bool(zero_infinity)

    def forward(self, dout, log_probs, targets, input_lengths, target_lengths, log_alpha):
        targets, il, tl = _check_ctc(log_probs, targets, input_lengths, target_lengths,
                                     self.blank, "CTCLossV2Grad")
        t_max, n, c = log_probs.shape
        ext, skip = _ctc_states(targets, tl, self.blank)
        if log_alpha.shape != (n, t_max, ext.shape[1]):
            raise ValueError(f"For 'CTCLossV2Grad', 'log_alpha' must have shape "
                             f"{(n, t_max, ext.shape[1])}, but got {log_alpha.shape}")
        if n == 0 or t_max == 0:
            return np.zeros_like(log_probs)
        emit = log_probs[:, np.arange(n)[:, None], ext]
        rows = np.arange(n)
        last = log_alpha[rows, np.maximum(il - 1, 0)]
        nll = np.where(il > 0, -_ctc_final(last, tl), 0.0)
        s2 = ext.shape[1]
        start = np.full((n, s2), -np.inf, log_probs.dtype)  # log_beta at each last frame
        start[rows, 2 * tl] = 0
        start[rows[tl > 0], 2 * tl[tl > 0] - 1] = 0
        beta = np.full((n, s2), -np.inf, log_probs.dtype)
        from1 = np.full_like(beta, -np.inf)
        from2 = np.full_like(beta, -np.inf)
        gamma = np.empty((t_max, n, s2), log_probs.dtype)
        for t in range(t_max - 1, -1, -1):
            if t < t_max - 1:
                nxt = beta + emit[t + 1]  # beta excludes the emission at its own frame
                from1[:, :-1] = nxt[:, 1:]
                from2[:, :-2] = np.where(skip[:, 2:], nxt[:, 2:], -np.inf)
                beta = _lse3(nxt, from1, from2)
            beta = np.where((t == il - 1)[:, None], start, beta)
            gamma[t] = log_alpha[:, t] + beta
        gamma = np.exp(gamma + nll[None, :, None])  # 0 past each input length (alpha is -inf)
        scale = -dout.astype(log_probs.dtype, copy=False)
        if self.zero_infinity:  # else an infinite loss has a NaN gradient, as in MindSpore
            inf = np.isinf(nll)
            scale = np.where(inf, 0.0, scale)
            gamma[:, inf] = 0.0
        index = (np.arange(t_max)[:, None, None] * n + rows[None, :, None]) * c + ext[None]
        grad = np.bincount(index.ravel(), (gamma * scale[None, :, None]).ravel(),
                           minlength=t_max * n * c)
        return grad.reshape(t_max, n, c).astype(log_probs.dtype, copy=False)

    def reference(self, dout, log_probs, targets, input_lengths, target_lengths, log_alpha):
        blank, zero_infinity = self.blank, self.zero_infinity

        def nll_of(z):
            nll = _ctc_nll_reference(z, targets, input_lengths, target_lengths, blank)
            if zero_infinity:
                nll = M.select(np.isinf(nll._data), A.zeros_like(nll), nll)
            return nll
        return self.vjp_of(nll_of, (log_probs,), dout, (True,))[0]


def _safe_lse3(a, b, c):
    """log(exp(a) + exp(b) + exp(c)) of Tensors that may hold -inf, with finite gradients of
    every order: the shift is a constant (the result does not depend on it), and where all
    three are -inf the log sees 1 and a select puts -inf back."""
    m = np.maximum(np.maximum(a._data, b._data), c._data)
    dead = m == -np.inf
    shift = wrap(np.where(dead, 0, m))
    total = M.exp(a - shift) + M.exp(b - shift) + M.exp(c - shift) + wrap(dead.astype(m.dtype))
    return M.select(dead, wrap(np.full(m.shape, -np.inf, m.dtype)), M.log(total) + shift)


def _ctc_nll_reference(log_probs, targets, input_lengths, target_lengths, blank):
    """CTCLossV2's neg_log_likelihood composed of minispore ops (the same alpha recursion)."""
    tl, il, targets = (np.asarray(v._data if isinstance(v, Tensor) else v, np.int64)
                       for v in (target_lengths, input_lengths, targets))
    ext, skip = _ctc_states(targets, tl, blank)
    t_max, n, _ = log_probs.shape
    s2 = ext.shape[1]
    dt = log_probs._data.dtype
    rows = np.arange(n)
    emit = A.getitem(log_probs, (slice(None), rows[:, None], ext))
    neg = wrap(np.full((n, s2), -np.inf, dt))
    start = np.full((n, s2), -np.inf, dt)
    start[:, 0] = 0
    alpha = wrap(start)
    invalid = np.arange(s2) > 2 * tl[:, None]
    for t in range(t_max):
        padded = A.pad(alpha, ((0, 0), (2, 0)), -np.inf)
        from1 = A.getitem(padded, (slice(None), slice(1, -1)))
        from2 = M.select(skip, A.getitem(padded, (slice(None), slice(0, -2))), neg)
        cur = _safe_lse3(alpha, from1, from2) + A.getitem(emit, t)
        cur = M.select(invalid, neg, cur)
        alpha = M.select(np.broadcast_to((t < il)[:, None], (n, s2)), cur, alpha)
    end = A.getitem(alpha, (rows, 2 * tl))
    before = A.getitem(alpha, (rows, np.maximum(2 * tl - 1, 0)))
    none = wrap(np.full((n,), -np.inf, dt))
    before = M.select(tl > 0, before, none)
    return 0.0 - _safe_lse3(end, before, none)
