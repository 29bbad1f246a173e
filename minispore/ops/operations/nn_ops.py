"""Neural-network primitives: activations, softmax family, losses that need fused numerics.

The softmax family sums exps over an axis: float16 sums them (forward and backward) in float64
and rounds once (reduce_ops' `_WIDE`; MindSpore's kernels use float32); a float16 sum stops
growing once its ulp passes the addend, and NumPy adds a strided axis in float16."""
import numpy as np

from ..._autodiff.tape import apply, call1, call2, wrap
from ...common.tensor import Tensor
from ..primitive import Primitive, Unary, register
from . import array_ops as A
from . import linalg_ops as L
from . import math_ops as M
from . import reduce_ops as R
from ._kernels import erf, keep_dtype, matmul, normalize_axis, quiet
from .math_ops import _float_input, _FloatUnary, _writable

_F16, _WIDE = np.dtype(np.float16), R._WIDE


_ZEROS = {}


def _zero(dt):
    """A cached 0-d zero of dtype dt (NumPy's Python-scalar path costs ~300 ns more)."""
    z = _ZEROS.get(dt)
    if z is None:
        z = _ZEROS[dt] = np.zeros((), dt)
    return z


# ---- tanh and sigmoid, with fused gradients: one primitive call forward, one backward -----------

@register
class Tanh(_FloatUnary):
    """tanh(x).  dx = TanhGrad(out, dout) = dout * (1 - out^2)."""

    saves = ("out",)
    kernel = staticmethod(np.tanh)

    def forward(self, x):  # perf: tanh never raises floating-point flags, so no `quiet`
        return np.tanh(x) if x.dtype.kind in "fc" else np.tanh(_float_input("Tanh", x))

    def bprop(self, saved, dout, needs):
        return (call2(_TANH_GRAD, saved[0], dout),)


@register
class TanhGrad(Primitive):
    """dy * (1 - y^2), y = tanh(x).  d_y = -2 * g * dy * y;  d_dy = TanhGrad(y, g)."""

    inputs = ("y", "dy")
    saves = ("y", "dy")

    def forward(self, y, dy):
        t = np.multiply(y, y)  # dy - dy * y^2: array operands only (no slow scalar path)
        if type(t) is not np.ndarray:
            t = np.array(t)
        np.multiply(t, dy, out=t)
        np.subtract(dy, t, out=t)
        return t

    def bprop(self, saved, g, needs):
        y, dy = saved
        return ((g * dy * y * -2) if needs[0] else None,
                tanh_grad(y, g) if needs[1] else None)


def _sigmoid(x):
    # exp of a non-positive argument only: no overflow for large |x|.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0, e) / (1.0 + e)


@register
class Sigmoid(_FloatUnary):
    """1 / (1 + exp(-x)), without overflow.  dx = SigmoidGrad(out, dout) = dout * out * (1 - out)."""

    saves = ("out",)
    kernel = staticmethod(_sigmoid)

    def bprop(self, saved, dout, needs):
        return (sigmoid_grad(saved[0], dout),)


@register
class SigmoidGrad(Primitive):
    """dy * y * (1 - y), y = sigmoid(x).  d_y = g * dy * (1 - 2 y);  d_dy = SigmoidGrad(y, g)."""

    inputs = ("y", "dy")
    saves = ("y", "dy")

    def forward(self, y, dy):
        t = _writable(np.subtract(1, y))
        np.multiply(t, y, out=t)
        np.multiply(t, dy, out=t)
        return keep_dtype(t, y.dtype)  # (t is written in place: y's dtype on NumPy 2)

    def bprop(self, saved, g, needs):
        y, dy = saved
        return ((g * dy * (1 - y * 2)) if needs[0] else None,
                sigmoid_grad(y, g) if needs[1] else None)


_TANH_GRAD, _SIGMOID_GRAD = TanhGrad(), SigmoidGrad()


def tanh_grad(y, dy):
    return call2(_TANH_GRAD, y, dy)


def sigmoid_grad(y, dy):
    return call2(_SIGMOID_GRAD, y, dy)


# ---- rectifiers ----------------------------------------------------------------------------------

@register
class ReLU(Unary):
    """max(x, 0).  dx = ReluGrad(dout, out) = dout where out > 0 (so relu'(0) = 0)."""

    saves = ("out",)

    def forward(self, x):
        return np.maximum(x, _zero(x.dtype))

    def bprop(self, saved, dout, needs):
        return (relu_grad(dout, saved[0]),)


@register
class ReluGrad(Primitive):
    """dy where y > 0, else 0 (y = relu(x)).  d_dy = ReluGrad(g, y); no gradient into y (a mask)."""

    inputs = ("dy", "y")
    saves = ("y",)

    def forward(self, dy, y):
        # perf: multiplying by the mask is ~8x faster than np.where on an irregular mask. The
        # only difference is 0 * inf = nan where an infinite gradient meets a dead unit.
        return np.multiply(dy, y > _zero(y.dtype), dtype=dy.dtype)

    def bprop(self, saved, g, needs):
        return relu_grad(g, saved[0]), None


@register
class Softmax(Primitive):
    """exp(x - max) / sum(exp(x - max)) along `axis`.  dx = out * (dout - sum(dout * out))."""

    amp_auto = "full"
    saves = ("out",)

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        axis = normalize_axis(self.axis, x.ndim, "Softmax") if x.ndim else None
        return keep_dtype(quiet(_softmax, x, axis), x.dtype)

    def bprop(self, saved, dout, needs):
        return (call2(SoftmaxGrad(self.axis), saved[0], dout),)


def _softmax_grad_reference(axis):
    def reference(y, dy):
        ax = axis if y.ndim else None
        return y * (dy - R.reduce_sum(dy * y, ax, True))
    return reference


@register
class SoftmaxGrad(Primitive):
    """y * (dy - sum(dy * y)) along `axis` (y = softmax(x)), fused in two passes; differentiated
    again through its reference composite."""

    inputs = ("y", "dy")
    saves = ("y", "dy")

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis
        self.reference = _softmax_grad_reference(axis)

    def forward(self, y, dy):
        if y.dtype == _F16 or dy.dtype == _F16:  # sum(dy * y) wide, rounded once
            dt = np.result_type(y, dy)
            return quiet(self.forward(y.astype(_WIDE), dy.astype(_WIDE)).astype, dt)
        axis = normalize_axis(self.axis, y.ndim, "SoftmaxGrad") if y.ndim else None
        t = np.multiply(dy, y)
        if type(t) is not np.ndarray:  # 0-d: NumPy returned a scalar
            t = np.array(t)
        s = t.sum(axis=axis, keepdims=True)
        np.multiply(y, s, out=t)
        np.subtract(np.multiply(y, dy), t, out=t)
        return t


def _softmax(x, axis):
    if x.size == 0:  # np.max has no identity; the result is as empty as the input
        return x.copy()
    if x.dtype == _F16:
        return _softmax(x.astype(_WIDE), axis).astype(_F16)
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - np.where(np.isfinite(m), m, 0))
    return e / np.sum(e, axis=axis, keepdims=True)


@register
class LogSoftmax(Primitive):
    """x - logsumexp(x) along `axis`.  dx = dout - exp(out) * sum(dout)."""

    amp_auto = "full"
    saves = ("out",)

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        axis = normalize_axis(self.axis, x.ndim, "LogSoftmax") if x.ndim else None
        return keep_dtype(quiet(_log_softmax, x, axis), x.dtype)

    def bprop(self, saved, dout, needs):
        out = saved[0]
        axis = self.axis if out.ndim else None
        if out._data.dtype == _F16:
            # wide, rounded once; exp(out) still carries the rounding of the saved float16 out
            # (up to 2^-11 |out| relative), as in MindSpore's LogSoftmaxGrad
            return (R._in_wide(_log_softmax_grad, out, dout, axis),)
        return (_log_softmax_grad(out, dout, axis),)


def _log_softmax_grad(out, dout, axis):
    return dout - M.exp(out) * R.reduce_sum(dout, axis, True)


def _log_softmax(x, axis):
    if x.size == 0:
        return x.copy()
    if x.dtype == _F16:
        return _log_softmax(x.astype(_WIDE), axis).astype(_F16)
    m = np.max(x, axis=axis, keepdims=True)
    shifted = x - np.where(np.isfinite(m), m, 0)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _softplus_neg(x):
    """log(1 + exp(-x)) without overflow: log1p(exp(-|x|)) + max(-x, 0)."""
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)


@register
class BCEWithLogits(Primitive):
    """Elementwise binary cross-entropy on logits x, labels y, `weight` w, `pos_weight` p:
    w * (p * y * softplus(-x) + (1 - y) * softplus(x)), a term with a zero coefficient counting 0
    even where its softplus is infinite (so x = -inf with y = 0 gives 0, not nan).
    dx = w * ((1 - y) - (1 + (p - 1) y) * sigmoid(-x));  dy = w * (p * softplus(-x) - softplus(x));
    dw = the unweighted loss;  dp = w * y * softplus(-x)."""

    amp_auto = "full"
    internal = True
    inputs = ("x", "y", "weight", "pos_weight")
    saves = ("x", "y", "weight", "pos_weight")
    broadcasts = True

    def forward(self, x, y, weight, pos_weight):
        return keep_dtype(quiet(_bce_terms, x, y, pos_weight) * weight,
                          np.result_type(x, y, weight, pos_weight))

    def bprop(self, saved, dout, needs):
        x, y, w, p = saved
        dx = dy = dw = dp = None
        if needs[0]:
            dx = dout * w * ((1 - y) - ((p - 1) * y + 1) * call1(_SIGMOID, -x))
        if needs[1]:
            dy = dout * w * (p * softplus(-x) - softplus(x))
        if needs[2]:
            dw = dout * (_masked_product(p * y, softplus(-x)) + _masked_product(1 - y, softplus(x)))
        if needs[3]:
            dp = dout * w * _masked_product(y, softplus(-x))
        return dx, dy, dw, dp


def _bce_terms(x, y, pos_weight):
    pos, neg = pos_weight * y, 1 - y
    return (np.where(pos != 0, pos * _softplus_neg(x), 0)
            + np.where(neg != 0, neg * _softplus_neg(-x), 0))


def _masked_product(coef, value):
    """coef * value, but 0 where coef is 0 and value is infinite (elsewhere the product, so that
    its gradient in coef stays value even at coef = 0)."""
    product = coef * value
    keep = np.isfinite(product._data) | (coef._data != 0)
    if keep.all():
        return product
    return M.select(wrap(keep), product, A.zeros_like(product))


@register
class Softplus(Unary):
    """log(1 + exp(x)), without overflow.  dx = dout * sigmoid(x)."""

    amp_auto = "full"
    saves = ("x",)

    def forward(self, x):
        return keep_dtype(quiet(_softplus_neg, -x), x.dtype)

    def bprop(self, saved, dout, needs):
        return (dout * call1(_SIGMOID, saved[0]),)


@register
class StopGradient(Unary):
    """Identity forward; no gradient flows back."""

    differentiable = False

    def forward(self, x):
        return x

    def bprop(self, saved, dout, needs):
        return (None,)


# ---- gradient hooks ----------------------------------------------------------------------------

def _hook_gradient(name, g, like):
    if not isinstance(g, Tensor):
        raise TypeError(f"For '{name}', the hook must return a Tensor (or None), but got "
                        f"{type(g).__name__}")
    if like is not None and g.shape != like.shape:
        raise ValueError(f"For '{name}', the hook returned a gradient of shape {g.shape} for an "
                         f"input of shape {like.shape}")
    return g


@register
class InsertGradientOf(Unary):
    """`InsertGradientOf(f)(x)`: identity forward (a copy); the gradient flowing back is
    replaced by f(dout), a Tensor of x's shape, or kept when f returns None (as MindSpore does;
    f built from minispore ops stays differentiable)."""

    def __init__(self, f):
        super().__init__()
        if not callable(f):
            raise TypeError(f"For 'InsertGradientOf', 'f' must be callable, but got "
                            f"{type(f).__name__}")
        self.f = f

    def forward(self, x):
        return x.copy()

    def bprop(self, saved, dout, needs):
        new = self.f(dout)
        return (dout if new is None else _hook_gradient(self.name, new, dout),)


@register
class HookBackward(Primitive):
    """`HookBackward(hook_fn, cell_id='')(*inputs)`: identity forward (copies); in backward,
    hook_fn gets the tuple of output gradients and returns None (keep them) or a tuple that
    replaces them."""

    inputs = "*"

    def __init__(self, hook_fn, cell_id=""):
        super().__init__()
        if not callable(hook_fn):
            raise TypeError(f"For 'HookBackward', 'hook_fn' must be callable, but got "
                            f"{type(hook_fn).__name__}")
        self._hook_fn = hook_fn  # private: MindSpore's repr shows only cell_id
        self.cell_id = cell_id

    def __call__(self, *inputs):
        if not inputs:
            raise ValueError("For 'HookBackward', at least one input is needed")
        for k, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise TypeError(f"For 'HookBackward', input {k} must be a Tensor, but got "
                                f"{type(t).__name__}")
        return apply(self, inputs)

    def forward(self, *xs):
        return xs[0].copy() if len(xs) == 1 else tuple(x.copy() for x in xs)

    def bprop(self, saved, dout, needs):
        douts = dout if isinstance(dout, tuple) else (dout,)
        new = self._hook_fn(douts)
        if new is None:
            return douts
        new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
        if len(new) != len(douts):
            raise ValueError(f"For 'HookBackward', the hook returned {len(new)} gradients for "
                             f"{len(douts)} inputs")
        return tuple(None if g is None else _hook_gradient(self.name, g, d)
                     for g, d in zip(new, douts))


_SQRT_2_OVER_PI = float(np.sqrt(2.0 / np.pi))
_INV_SQRT_2 = float(1.0 / np.sqrt(2.0))
_INV_SQRT_2PI = float(1.0 / np.sqrt(2.0 * np.pi))


_GELU_C = 0.044715


def _gelu_tanh_t(x):
    """t = tanh(sqrt(2/pi) (x + 0.044715 x^3)) in one fresh buffer, computed in place: every
    full-size temporary costs page faults that exceed the arithmetic."""
    t = np.multiply(x, x, out=np.empty_like(x))  # out=: a 0-d x gives an array, not a scalar
    t *= _GELU_C * _SQRT_2_OVER_PI
    t += _SQRT_2_OVER_PI
    t *= x
    return np.tanh(t, out=t)


@register
class GeLU(Unary):
    """x * Phi(x): with `approximate='tanh'` (the default, as MindSpore's `GeLU()`)
    0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3))), with 'none' the exact
    0.5 x (1 + erf(x / sqrt 2)).  dx = GeLUGrad(x, dout)."""

    saves = ("x",)

    def __init__(self, approximate="tanh"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"For 'GeLU', 'approximate' must be 'none' or 'tanh', but got "
                             f"{approximate!r}")
        self.approximate = approximate

    def forward(self, x):
        if x.dtype.kind != "f":
            raise TypeError(f"For 'GeLU', the input must be a floating-point Tensor, got "
                            f"{x.dtype}")
        return quiet(self._gelu, x)

    def _gelu(self, x):
        if self.approximate == "tanh":
            t = _gelu_tanh_t(x)
            t += 1
            t *= x
            t *= 0.5
            return t.astype(x.dtype, copy=False)
        return (0.5 * x * (1 + erf(x * _INV_SQRT_2))).astype(x.dtype, copy=False)

    def bprop(self, saved, dout, needs):
        return (call2(GeLUGrad(self.approximate), saved[0], dout),)


def _gelu_grad_reference(approximate):
    def reference(x, dy):
        if approximate == "tanh":
            inner = (x + x * x * x * 0.044715) * _SQRT_2_OVER_PI
            t = M.call1(Tanh(), inner)
            dinner = (x * x * (3 * 0.044715) + 1) * _SQRT_2_OVER_PI
            return dy * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * dinner)
        cdf = (M.call1(M.Erf(), x * _INV_SQRT_2) + 1) * 0.5
        pdf = M.exp(x * x * -0.5) * _INV_SQRT_2PI
        return dy * (cdf + x * pdf)
    return reference


@register
class GeLUGrad(Primitive):
    """dy * d/dx gelu(x), fused; differentiated again through its reference composite."""

    inputs = ("x", "dy")
    saves = ("x", "dy")

    def __init__(self, approximate="tanh"):
        super().__init__()
        self.approximate = approximate
        self.reference = _gelu_grad_reference(approximate)

    def forward(self, x, dy):
        if self.approximate == "tanh":
            # 0.5 (1 + t) + 0.5 x (1 - t^2) inner', inner' = sqrt(2/pi) (1 + 3 * 0.044715 x^2),
            # in three buffers
            t = _gelu_tanh_t(x)
            out = np.multiply(x, x, out=np.empty_like(x))
            out *= 1.5 * _GELU_C * _SQRT_2_OVER_PI
            out += 0.5 * _SQRT_2_OVER_PI
            out *= x
            one_minus_t2 = np.multiply(t, t, out=np.empty_like(t))
            np.subtract(1, one_minus_t2, out=one_minus_t2)
            out *= one_minus_t2
            t += 1
            t *= 0.5
            out += t
        else:
            cdf = 0.5 * (1 + erf(x * _INV_SQRT_2))
            out = cdf + x * np.exp(-0.5 * x * x) * _INV_SQRT_2PI
        out *= dy
        return out.astype(dy.dtype, copy=False)


@register
class Dense(Primitive):
    """x @ w^T + b over the last axis of x (any leading axes; b may be None), fused: one GEMM
    with the bias added in place into its fresh output.
    dx = dout @ w;  dw = dout^T @ x;  db = sum of dout over the leading axes."""

    amp_auto = "low"
    inputs = ("x", "w", "b")
    saves = ("x", "w")

    def forward(self, x, w, b):
        if w.ndim != 2 or x.ndim < 1 or x.shape[-1] != w.shape[1]:
            raise ValueError(f"For 'Dense', the input's last axis must equal the weight's second "
                             f"axis, but got shapes {x.shape} and {w.shape}")
        if b is not None and b.shape != (w.shape[0],):
            raise ValueError(f"For 'Dense', the bias must have shape ({w.shape[0]},), but got "
                             f"{b.shape}")
        out = matmul(x, w.T)  # one GEMM over all leading axes
        if b is not None:
            out += b
        return out

    def bprop(self, saved, dout, needs):
        x, w = saved
        lead = dout.shape[:-1]
        d2 = A.reshape(dout, (-1, dout.shape[-1])) if len(lead) != 1 else dout
        dx = dw = db = None
        if needs[0]:
            dx = L._mm(L.MatMul, False, False)(d2, w)
            dx = A.reshape(dx, x.shape) if len(lead) != 1 else dx
        if needs[1]:
            x2 = A.reshape(x, (-1, x.shape[-1])) if len(lead) != 1 else x
            dw = L._mm(L.MatMul, True, False)(d2, x2)
        if needs[2]:
            db = R.reduce_sum(d2, 0)
        return dx, dw, db


_DENSE = Dense()


def dense(x, w, b=None):
    """x @ w^T + b (b may be None), one fused primitive."""
    return apply(_DENSE, (x, w, b))


_RELU_GRAD, _SOFTPLUS, _SIGMOID = ReluGrad(), Softplus(), Sigmoid()


def relu_grad(dy, y):
    return call2(_RELU_GRAD, dy, y)


def softplus(x):
    return call1(_SOFTPLUS, x)


_STOP_GRADIENT = StopGradient()


def stop_gradient(x):
    """x as a constant: the same values, no gradient (a new Tensor sharing memory; a recorded
    node, so a graph capture knows where the memory comes from)."""
    if isinstance(x, Tensor):
        return call1(_STOP_GRADIENT, x)
    if isinstance(x, (tuple, list)):
        return type(x)(stop_gradient(v) for v in x)
    return x

