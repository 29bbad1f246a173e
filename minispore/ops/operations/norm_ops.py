"""Normalisation primitives with fused NumPy forwards and fused first-order gradients.

BatchNormTraining and LayerNorm compute their forward in a few NumPy passes; their gradients
are the fused primitives BatchNormGrad and LayerNormGrad (one pass each, as a hand-written NumPy
backward would be). Those gradient primitives are differentiated again through `reference`, a
composite of minispore ops computing the same values: their bprop is the VJP of the reference,
so gradients of any order stay exact without a hand-derived second-order rule.

float16 is normalised in float64 (reduce_ops' `_WIDE`; MindSpore's kernels use float32) and each
output rounded once: the statistics sum over many elements (a float16 count past 65,504 is inf,
and dy * n overflowed in the gradient), the fused gradients' sums must not stop growing, and
x - mean must not inherit a float32 mean's error (outputs near 0 were ~100 float16 ulps off).
float32 and float64 are computed as before, bit for bit.
"""
import numpy as np

from ..._autodiff.tape import apply, const
from ..._quiet import quiet
from ..primitive import Primitive, register
from . import array_ops as A
from . import math_ops as M
from . import reduce_ops as R

_F16, _WIDE = np.dtype(np.float16), R._WIDE


def _forward_wide(forward, arrays, out_dtypes):
    """forward(*arrays) with float16 arrays widened to `_WIDE`, each output then cast to the
    dtype the float16 computation gives (`out_dtypes`, from the inputs' dtypes)."""
    wide = [a.astype(_WIDE) if a.dtype == _F16 else a for a in arrays]
    return tuple(quiet(o.astype, dt) for o, dt in zip(forward(*wide), out_dtypes))


def _widened(fn, tensors, out_dtypes):
    """The same for a composite of minispore ops (a reference, a statistics gradient): float16
    Tensors cast to `_WIDE`, each result cast to its dtype; differentiable again."""
    wide = [M.cast(t, _WIDE) if t._data.dtype == _F16 else t for t in tensors]
    outs = fn(*wide)
    if not isinstance(outs, tuple):
        return M.cast(outs, out_dtypes[0])
    return tuple(M.cast(o, dt) for o, dt in zip(outs, out_dtypes))


def _has_f16(*arrays):
    return any(a.dtype == _F16 for a in arrays)


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


def _present(dout, x):
    """(dy, dmean, dvar) of a normalisation with `keeps_missing`: dy zeros if it got no
    gradient; the statistics' gradients stay None when nothing used them."""
    dy, dmean, dvar = dout
    if dy is None:
        dy = const(np.zeros(x._data.shape, x._data.dtype))
    return dy, dmean, dvar


def _fill_missing(dmean, dvar):
    """The statistics' gradients with a missing one (None) as zeros like the other (mean and
    variance share shape and dtype)."""
    if dmean is None:
        dmean = const(np.zeros(dvar._data.shape, dvar._data.dtype))
    if dvar is None:
        dvar = const(np.zeros(dmean._data.shape, dmean._data.dtype))
    return dmean, dvar


@register
class BatchNormTraining(Primitive):
    """Batch normalisation with batch statistics over every axis but 1 (channels):
    (y, mean, biased variance), y = gamma * (x - mean) / sqrt(var + eps) + beta.
    d(x, gamma, beta) = BatchNormGrad(dy, x, gamma)."""

    amp_auto = "full"
    internal = True
    inputs = ("x", "gamma", "beta")
    saves = ("x", "gamma")
    keeps_missing = True  # see _present

    def __init__(self, epsilon=1e-5):
        super().__init__()
        self.epsilon = float(epsilon)

    def forward(self, x, gamma, beta):
        if x.ndim < 2 or gamma.shape != (x.shape[1],) or beta.shape != (x.shape[1],):
            raise ValueError(f"For 'BatchNorm', the input must be (N, C, ...) with gamma and beta "
                             f"of shape (C,), but got {x.shape}, {gamma.shape}, {beta.shape}")
        if _has_f16(x, gamma, beta):
            # y is computed into x - mean: it keeps x's dtype, as the statistics do
            return _forward_wide(self.forward, (x, gamma, beta), (x.dtype, x.dtype, x.dtype))
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
        dy, dmean, dvar = _present(dout, x)
        dx, dgamma, dbeta = apply(BatchNormGrad(self.epsilon), (dy, x, gamma))
        # The batch statistics are outputs too; they rarely carry a gradient (the layer uses
        # them for the moving averages only), but when they do it is added exactly. Whether
        # they do is the structure of the program (None arrives otherwise), not their values.
        if x._data.size and (dmean is not None or dvar is not None):
            dmean, dvar = _fill_missing(dmean, dvar)
            axes = _bn_axes(x.ndim)
            cs = _channel_shape(x.ndim, x.shape[1])
            m = float(np.prod([x.shape[a] for a in axes]))

            def with_stats(dx, x, dmean, dvar):  # float16: m past 65,504 is inf
                centered = x - R.reduce_mean(x, axes, True)
                return dx + A.reshape(dmean, cs) / m + A.reshape(dvar, cs) * centered * (2.0 / m)
            dx = _widened(with_stats, (dx, x, dmean, dvar), (dx._data.dtype,))
        return dx, dgamma, dbeta


def _bn_grad_reference(eps):
    def reference(dy, x, gamma):
        if _has_f16(dy._data, x._data, gamma._data):
            dts = _bn_grad_dtypes(dy._data, x._data)
            return _widened(wide_reference, (dy, x, gamma), dts)
        return wide_reference(dy, x, gamma)

    def wide_reference(dy, x, gamma):
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


def _bn_grad_dtypes(dy, x):
    """The dtypes of BatchNormGrad's (dx, dgamma, dbeta) as its float16 formula gives them."""
    return dy.dtype, np.result_type(dy, x), dy.dtype


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
        if _has_f16(dy, x, gamma):
            return _forward_wide(self.forward, (dy, x, gamma), _bn_grad_dtypes(dy, x))
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
    keeps_missing = True  # see _present

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
        if _has_f16(x, gamma, beta):  # y is written into x - mean: it keeps x's dtype
            return _forward_wide(self.forward, (x, gamma, beta), (x.dtype, x.dtype, x.dtype))
        mean = _mean(x, axes)
        y = x - mean
        var = _mean(np.square(y), axes)
        y *= quiet(np.reciprocal, np.sqrt(var + np.asarray(self.epsilon, x.dtype)))
        y *= gamma
        y += beta
        return y, mean, var

    def bprop(self, saved, dout, needs):
        x, gamma = saved
        dy, dmean, dvar = _present(dout, x)
        grad = LayerNormGrad(self.begin_norm_axis, self.begin_params_axis, self.epsilon)
        dx, dgamma, dbeta = apply(grad, (dy, x, gamma))
        if x._data.size and (dmean is not None or dvar is not None):
            # the statistics were used: add their gradients exactly
            axes = _ln_axes(x.ndim, self.begin_norm_axis)
            dmean, dvar = _fill_missing(dmean, dvar)
            n = float(np.prod([x.shape[a] for a in axes]))

            def with_stats(dx, x, dmean, dvar):  # float16: n past 65,504 is inf
                centered = x - R.reduce_mean(x, axes, True)
                return dx + dmean / n + dvar * centered * (2.0 / n)
            dx = _widened(with_stats, (dx, x, dmean, dvar), (dx._data.dtype,))
        return dx, dgamma, dbeta


def layer_norm(x, gamma, beta, begin_norm_axis, begin_params_axis, epsilon):
    """The normalised output alone (what layers use)."""
    return apply(LayerNorm(begin_norm_axis, begin_params_axis, epsilon), (x, gamma, beta))[0]


def _ln_grad_reference(prim):
    def reference(dy, x, gamma):
        if _has_f16(dy._data, x._data, gamma._data):
            dts = _ln_grad_dtypes(dy._data, x._data, gamma._data)
            return _widened(wide_reference, (dy, x, gamma), dts)
        return wide_reference(dy, x, gamma)

    def wide_reference(dy, x, gamma):
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


def _ln_grad_dtypes(dy, x, gamma):
    """The dtypes of LayerNormGrad's (dx, dgamma, dbeta) as its float16 formula gives them."""
    return np.result_type(dy, gamma), np.result_type(dy, x), dy.dtype


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
        if _has_f16(dy, x, gamma):
            return _forward_wide(self.forward, (dy, x, gamma), _ln_grad_dtypes(dy, x, gamma))
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
