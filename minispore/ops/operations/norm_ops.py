"""Normalisation primitives with fused NumPy forwards and fused first-order gradients.

BatchNormTraining and LayerNorm compute their forward in a few NumPy passes; their gradients
are the fused primitives BatchNormGrad and LayerNormGrad (one pass each, as a hand-written NumPy
backward would be). Those gradient primitives are differentiated again through `reference`, a
composite of minispore ops computing the same values: their bprop is the VJP of the reference,
so gradients of any order stay exact without a hand-derived second-order rule.
"""
import numpy as np

from ..._autodiff.tape import apply
from ..._quiet import quiet
from ..primitive import Primitive, register
from . import array_ops as A
from . import math_ops as M
from . import reduce_ops as R


def _mean(a, axes):
    """a.mean over `axes`, kept as size 1; nan over empty axes (0 / 0) without NumPy's 'Mean of
    empty slice' warning."""
    if all(a.shape[i] for i in axes):
        return a.mean(axis=axes, keepdims=True)
    return np.full(tuple(1 if i in axes else n for i, n in enumerate(a.shape)), np.nan, a.dtype)


# ---- batch normalisation (training: batch statistics) ---------------------------------------------

def _bn_axes(ndim):
    return (0,) + tuple(range(2, ndim))


def _channel_shape(ndim, c):
    return (1, c) + (1,) * (ndim - 2)


@register
class BatchNormTraining(Primitive):
    """Batch normalisation with batch statistics over every axis but 1 (channels):
    (y, mean, biased variance), y = gamma * (x - mean) / sqrt(var + eps) + beta.
    d(x, gamma, beta) = BatchNormGrad(dy, x, gamma)."""

    amp_auto = "full"
    internal = True
    inputs = ("x", "gamma", "beta")
    saves = ("x", "gamma")

    def __init__(self, epsilon=1e-5):
        super().__init__()
        self.epsilon = float(epsilon)

    def forward(self, x, gamma, beta):
        if x.ndim < 2 or gamma.shape != (x.shape[1],) or beta.shape != (x.shape[1],):
            raise ValueError(f"For 'BatchNorm', the input must be (N, C, ...) with gamma and beta "
                             f"of shape (C,), but got {x.shape}, {gamma.shape}, {beta.shape}")
        axes = _bn_axes(x.ndim)
        cs = _channel_shape(x.ndim, x.shape[1])
        mean = _mean(x, axes)
        centered = x - mean
        var = _mean(np.square(centered), axes)
        rstd = 1.0 / np.sqrt(var + np.asarray(self.epsilon, x.dtype))
        y = centered * rstd
        y *= gamma.reshape(cs)
        y += beta.reshape(cs)
        return y, mean.reshape(-1), var.reshape(-1)

    def bprop(self, saved, dout, needs):
        x, gamma = saved
        dy, dmean, dvar = dout
        dx, dgamma, dbeta = apply(BatchNormGrad(self.epsilon), (dy, x, gamma))
        # The batch statistics are outputs too; they rarely carry a gradient (the layer uses
        # them for the moving averages only), but when they do it is added exactly.
        if x._data.size and (dmean._data.any() or dvar._data.any()):
            axes = _bn_axes(x.ndim)
            cs = _channel_shape(x.ndim, x.shape[1])
            m = float(np.prod([x.shape[a] for a in axes]))
            centered = x - R.reduce_mean(x, axes, True)
            dx = dx + A.reshape(dmean, cs) / m + A.reshape(dvar, cs) * centered * (2.0 / m)
        return dx, dgamma, dbeta


def _bn_grad_reference(eps):
    def reference(dy, x, gamma):
        axes = _bn_axes(x.ndim)
        cs = _channel_shape(x.ndim, x.shape[1])
        m = float(np.prod([x.shape[a] for a in axes]))
        mean = R.reduce_mean(x, axes, True)
        centered = x - mean
        var = R.reduce_mean(centered * centered, axes, True)
        rstd = M.rsqrt(var + eps)
        x_hat = centered * rstd
        sum_dy = R.reduce_sum(dy, axes, True)
        sum_dy_xhat = R.reduce_sum(dy * x_hat, axes, True)
        dx = (A.reshape(gamma, cs) * rstd / m) * (dy * m - sum_dy - x_hat * sum_dy_xhat)
        return dx, A.reshape(sum_dy_xhat, (-1,)), A.reshape(sum_dy, (-1,))
    return reference


@register
class BatchNormGrad(Primitive):
    """(dx, dgamma, dbeta) of BatchNormTraining, fused:
    dx = gamma * rstd / m * (m * dy - sum(dy) - x_hat * sum(dy * x_hat))."""

    inputs = ("dy", "x", "gamma")
    saves = ("dy", "x", "gamma")

    def __init__(self, epsilon=1e-5):
        super().__init__()
        self.epsilon = float(epsilon)
        self.reference = _bn_grad_reference(self.epsilon)

    def forward(self, dy, x, gamma):
        axes = _bn_axes(x.ndim)
        cs = _channel_shape(x.ndim, x.shape[1])
        m = dy.size // dy.shape[1] if dy.shape[1] else 0
        mean = _mean(x, axes)
        centered = x - mean
        var = _mean(np.square(centered), axes)
        rstd = 1.0 / np.sqrt(var + np.asarray(self.epsilon, x.dtype))
        x_hat = centered
        x_hat *= rstd
        sum_dy = dy.sum(axis=axes, keepdims=True)
        sum_dy_xhat = np.sum(dy * x_hat, axis=axes, keepdims=True)
        dx = dy * m
        dx -= sum_dy
        dx -= x_hat * sum_dy_xhat
        dx *= quiet(np.divide, gamma.reshape(cs) * rstd, m)  # m = 0: an empty batch, dx empty
        return dx, sum_dy_xhat.reshape(-1), sum_dy.reshape(-1)


# ---- layer normalisation ---------------------------------------------------------------------------

def _ln_axes(ndim, begin):
    return tuple(range(begin % ndim if ndim else 0, ndim))


@register
class LayerNorm(Primitive):
    """Normalisation over the axes from `begin_norm_axis` on, then gamma * x_hat + beta with
    gamma and beta of the shape of the axes from `begin_params_axis` on. Returns (y, mean,
    variance), the statistics with the normalised axes kept as size 1, as MindSpore does.
    d(x, gamma, beta) = LayerNormGrad(dy, x, gamma) (plus the statistics' own gradients when
    they are used)."""

    amp_auto = "full"
    inputs = ("x", "gamma", "beta")
    saves = ("x", "gamma")

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        super().__init__()
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = float(epsilon)

    def _norm_axes(self, x):
        if not -x.ndim <= self.begin_norm_axis < x.ndim:
            raise ValueError(f"For 'LayerNorm', 'begin_norm_axis' {self.begin_norm_axis} is out "
                             f"of range for an input of shape {x.shape}")
        return _ln_axes(x.ndim, self.begin_norm_axis)

    def _param_shape(self, x, gamma):
        p = self.begin_params_axis % x.ndim
        expected = x.shape[p:]
        if gamma.shape != expected:
            raise ValueError(f"For 'LayerNorm', gamma and beta must have shape {expected} (the "
                             f"input's axes from {self.begin_params_axis}), but got "
                             f"{gamma.shape}")
        return expected

    def forward(self, x, gamma, beta):
        axes = self._norm_axes(x)
        self._param_shape(x, gamma)
        if beta.shape != gamma.shape:
            raise ValueError(f"For 'LayerNorm', beta's shape {beta.shape} differs from gamma's "
                             f"{gamma.shape}")
        mean = _mean(x, axes)
        y = x - mean
        var = _mean(np.square(y), axes)
        y *= quiet(np.reciprocal, np.sqrt(var + np.asarray(self.epsilon, x.dtype)))
        y *= gamma
        y += beta
        return y, mean, var

    def bprop(self, saved, dout, needs):
        x, gamma = saved
        dy, dmean, dvar = dout
        grad = LayerNormGrad(self.begin_norm_axis, self.begin_params_axis, self.epsilon)
        dx, dgamma, dbeta = apply(grad, (dy, x, gamma))
        if x._data.size and (dmean._data.any() or dvar._data.any()):
            # the statistics were used: add their gradients exactly
            axes = _ln_axes(x.ndim, self.begin_norm_axis)
            n = float(np.prod([x.shape[a] for a in axes]))
            centered = x - R.reduce_mean(x, axes, True)
            dx = dx + dmean / n + dvar * centered * (2.0 / n)
        return dx, dgamma, dbeta


def layer_norm(x, gamma, beta, begin_norm_axis, begin_params_axis, epsilon):
    """The normalised output alone (what layers use)."""
    return apply(LayerNorm(begin_norm_axis, begin_params_axis, epsilon), (x, gamma, beta))[0]


def _ln_grad_reference(prim):
    def reference(dy, x, gamma):
        axes = _ln_axes(x.ndim, prim.begin_norm_axis)
        p = prim.begin_params_axis % x.ndim
        lead = tuple(range(p))
        n = float(np.prod([x.shape[a] for a in axes]))
        mean = R.reduce_mean(x, axes, True)
        centered = x - mean
        var = R.reduce_mean(centered * centered, axes, True)
        rstd = M.rsqrt(var + prim.epsilon)
        x_hat = centered * rstd
        g = dy * gamma
        dx = rstd / n * (g * n - R.reduce_sum(g, axes, True) -
                         x_hat * R.reduce_sum(g * x_hat, axes, True))
        dgamma = R.reduce_sum(dy * x_hat, lead) if lead else dy * x_hat
        dbeta = R.reduce_sum(dy, lead) if lead else dy
        return dx, dgamma, dbeta
    return reference


@register
class LayerNormGrad(Primitive):
    """(dx, dgamma, dbeta) of LayerNorm, fused:
    dx = rstd / n * (n * g - sum(g) - x_hat * sum(g * x_hat)), g = dy * gamma."""

    inputs = ("dy", "x", "gamma")
    saves = ("dy", "x", "gamma")

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        super().__init__()
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = float(epsilon)
        self.reference = _ln_grad_reference(self)

    def forward(self, dy, x, gamma):
        axes = _ln_axes(x.ndim, self.begin_norm_axis)
        p = self.begin_params_axis % x.ndim
        lead = tuple(range(p))
        n = int(np.prod([x.shape[a] for a in axes]))
        mean = _mean(x, axes)
        x_hat = x - mean
        var = _mean(np.square(x_hat), axes)
        rstd = quiet(np.reciprocal, np.sqrt(var + np.asarray(self.epsilon, x.dtype)))
        x_hat *= rstd
        g = dy * gamma
        dx = g * n
        dx -= g.sum(axis=axes, keepdims=True)
        dx -= x_hat * np.sum(g * x_hat, axis=axes, keepdims=True)
        dx *= quiet(np.divide, rstd, n)  # n = 0: empty normalised axes, dx empty
        dyx = dy * x_hat
        dgamma = dyx.sum(axis=lead) if lead else dyx
        dbeta = dy.sum(axis=lead) if lead else dy.copy()
        return dx, dgamma, dbeta
