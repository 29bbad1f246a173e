"""Specs of the CTC primitives (same format as specs.py), against a per-sample reference that
runs the alpha and beta recursions in probability space with scalar loops."""
import numpy as np
from hypothesis import strategies as st

from minispore._autodiff.tape import apply, wrap
from minispore.ops.operations import loss_ops as L

from ..helpers import strategies as S
from .specs import arr, spec


def ctc_one(lp, target, blank):
    """(alpha, beta, p) of one sequence: lp (T, C), `target` a list; both include the emission
    at their own frame (Graves et al. 2006)."""
    ext = [blank]
    for label in target:
        ext += [label, blank]
    t_max, s2 = lp.shape[0], len(ext)
    y = np.exp(lp[:, ext])
    alpha, beta = np.zeros((t_max, s2)), np.zeros((t_max, s2))
    if t_max == 0:
        return alpha, beta, 1.0 if s2 == 1 else 0.0

    def skip(s):  # state s may be entered from s - 2
        return s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]
    alpha[0, :2] = y[0, :2]
    for t in range(1, t_max):
        for s in range(s2):
            a = alpha[t - 1, s] + (alpha[t - 1, s - 1] if s >= 1 else 0.0)
            a += alpha[t - 1, s - 2] if skip(s) else 0.0
            alpha[t, s] = a * y[t, s]
    beta[-1, -2:] = y[-1, -2:]
    for t in range(t_max - 2, -1, -1):
        for s in range(s2):
            b = beta[t + 1, s] + (beta[t + 1, s + 1] if s + 1 < s2 else 0.0)
            b += beta[t + 1, s + 2] if s + 2 < s2 and skip(s + 2) else 0.0
            beta[t, s] = b * y[t, s]
    p = alpha[-1, -1] + (alpha[-1, -2] if s2 > 1 else 0.0)
    return alpha, beta, p


def ctc_reference(lp, targets, il, tl, blank=0):
    """(nll (N,), log_alpha (N, T, 2S+1), d nll / d lp (T, N, C)) with NumPy loops."""
    t_max, n, _ = lp.shape
    s2 = 2 * targets.shape[1] + 1
    nll = np.zeros(n)
    log_alpha = np.full((n, t_max, s2), -np.inf)
    grad = np.zeros(lp.shape)
    for i in range(n):
        target = list(targets[i, :tl[i]])
        alpha, beta, p = ctc_one(lp[:il[i], i], target, blank)
        nll[i] = -np.log(p)
        with np.errstate(divide="ignore"):
            log_alpha[i, :il[i], :alpha.shape[1]] = np.log(alpha)
        ext = [blank] + [v for label in target for v in (label, blank)]
        y = np.exp(lp[:il[i], i][:, ext])
        for s, label in enumerate(ext):
            grad[:il[i], i, label] -= alpha[:, s] * beta[:, s] / y[:, s] / p
    return nll, log_alpha, grad


def draw_ctc(data):
    """log_probs (T, N, C) of any reals, and targets whose alignments exist (no infinite loss)."""
    n = data.draw(st.integers(1, 3))
    c = data.draw(st.integers(2, 4))
    s = data.draw(st.integers(0, 3))
    blank = data.draw(st.integers(0, c - 1))
    labels = [k for k in range(c) if k != blank]
    targets = np.array(data.draw(st.lists(st.lists(st.sampled_from(labels), min_size=s,
                                                   max_size=s), min_size=n, max_size=n)),
                       np.int64).reshape(n, s)
    tl = np.array([data.draw(st.integers(0, s)) for _ in range(n)], np.int64)
    need = [int(k + np.sum(targets[i, 1:k] == targets[i, :k - 1])) if k else 0
            for i, k in enumerate(tl)]
    t_max = max(need) + data.draw(st.integers(0, 2))
    t_max = max(t_max, 1)
    il = np.array([data.draw(st.integers(k, t_max)) for k in need], np.int64)
    lp = arr(data, (t_max, n, c), S.Domain(-3, 1))
    dtype = data.draw(st.sampled_from([np.int32, np.int64]))
    return [lp, targets.astype(dtype), il.astype(dtype), tl.astype(dtype)], {"blank": blank}


def _ctc_call(a, lp, targets, il, tl):
    return apply(L.CTCLossV2(a["blank"]), (lp, targets, il, tl))[0]


spec("CTCLossV2", draw_ctc, _ctc_call,
     lambda a, lp, t, il, tl: ctc_reference(lp, t, il, tl, a["blank"])[0], diff=(0,),
     rtol=1e-9, atol=1e-11)


def draw_ctc_grad(data):
    (lp, targets, il, tl), attrs = draw_ctc(data)
    return [arr(data, (lp.shape[1],)), lp, targets, il, tl], attrs


def _ctc_grad_call(a, dout, lp, targets, il, tl):
    """log_alpha is a cache of the forward's: computed from the same log_probs, as a constant."""
    log_alpha = apply(L.CTCLossV2(a["blank"]), (lp, targets, il, tl))[1]
    return apply(L.CTCLossV2Grad(a["blank"]), (dout, lp, targets, il, tl, wrap(log_alpha._data)))


spec("CTCLossV2Grad", draw_ctc_grad, _ctc_grad_call,
     lambda a, dout, lp, t, il, tl: ctc_reference(lp, t, il, tl, a["blank"])[2]
     * dout[None, :, None], rtol=1e-9, atol=1e-11)
