"""Fused primitives for the hottest losses: sparse softmax cross-entropy (forward in three NumPy
passes, gradient softmax - onehot in one), differentiated again through a reference composite."""
import numpy as np

from ..._autodiff.tape import apply, wrap
from ..._quiet import quiet
from ...common.tensor import Tensor
from ..primitive import Primitive, register
from . import array_ops as A
from . import nn_ops as N


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

    inputs = ("logits", "labels")
    saves = ("logits", "labels")

    def forward(self, logits, labels):
        _check_labels(logits, labels, "SparseSoftmaxCrossEntropy")
        return quiet(_sparse_ce, logits, labels)

    def bprop(self, saved, dout, needs):
        logits, labels = saved
        return apply(_SPARSE_CE_GRAD, (logits, labels, dout)), None


def _sparse_ce(logits, labels):
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
        e = np.exp(_shifted(logits))
        e /= e.sum(axis=1, keepdims=True)
        e[np.arange(len(labels)), labels] -= 1
        e *= dout[:, None]
        return e

    def bprop(self, saved, g, needs):
        from ..._autodiff.engine import vjp_of
        return vjp_of(self.reference, saved, g, needs)


_SPARSE_CE = SparseSoftmaxCrossEntropy()
_SPARSE_CE_GRAD = SparseSoftmaxCrossEntropyGrad()


def sparse_softmax_cross_entropy(logits, labels):
    """Per-sample cross-entropy of (N, C) logits at integer labels (N,)."""
    return apply(_SPARSE_CE, (logits, labels))

