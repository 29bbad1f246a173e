"""Neural-network primitives: activations, softmax family, losses that need fused numerics."""
import numpy as np

from ..._autodiff.tape import apply, call1, call2, wrap
from ...common.tensor import Tensor
from ..primitive import Primitive, Unary, register
from . import array_ops as A
from . import math_ops as M
from ._kernels import normalize_axis, quiet


_ZEROS = {}


def _zero(dt):
    """A cached 0-d zero of dtype dt (NumPy's Python-scalar path costs ~300 ns more)."""
    z = _ZEROS.get(dt)
    if z is None:
        z = _ZEROS[dt] = np.zeros((), dt)
    return z


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

    saves = ("out",)

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        axis = normalize_axis(self.axis, x.ndim, "Softmax") if x.ndim else None
        return quiet(_softmax, x, axis)

    def bprop(self, saved, dout, needs):
        out = saved[0]
        axis = self.axis if out.ndim else None
        return (out * (dout - M.reduce_sum(dout * out, axis, True)),)


def _softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - np.where(np.isfinite(m), m, 0))
    return e / np.sum(e, axis=axis, keepdims=True)


@register
class LogSoftmax(Primitive):
    """x - logsumexp(x) along `axis`.  dx = dout - exp(out) * sum(dout)."""

    saves = ("out",)

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        axis = normalize_axis(self.axis, x.ndim, "LogSoftmax") if x.ndim else None
        return quiet(_log_softmax, x, axis)

    def bprop(self, saved, dout, needs):
        out = saved[0]
        axis = self.axis if out.ndim else None
        return (dout - M.exp(out) * M.reduce_sum(dout, axis, True),)


def _log_softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    shifted = x - np.where(np.isfinite(m), m, 0)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _softplus_neg(x):
    """log(1 + exp(-x)) without overflow: log1p(exp(-|x|)) + max(-x, 0)."""
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)


@register
class BCEWithLogits(Primitive):
    """Elementwise binary cross-entropy on logits x, labels y, `weight` w, `pos_weight` p:
    w * ((1 - y) * x + (1 + (p - 1) * y) * softplus(-x)), finite for any x.
    dx = w * ((1 - y) - (1 + (p - 1) y) * sigmoid(-x));  dy = w * (-x + (p - 1) * softplus(-x));
    dw = loss / w;  dp = w * y * softplus(-x)."""

    inputs = ("x", "y", "weight", "pos_weight")
    saves = ("x", "y", "weight", "pos_weight")
    broadcasts = True

    def forward(self, x, y, weight, pos_weight):
        sp = _softplus_neg(x)
        coef = 1 + (pos_weight - 1) * y
        return ((1 - y) * x + coef * sp) * weight

    def bprop(self, saved, dout, needs):
        x, y, w, p = saved
        coef = (p - 1) * y + 1
        sig_neg = call1(_SIGMOID, -x)
        dx = dout * w * ((1 - y) - coef * sig_neg) if needs[0] else None
        sp = softplus(-x) if (needs[1] or needs[2] or needs[3]) else None
        dy = dout * w * ((p - 1) * sp - x) if needs[1] else None
        dw = dout * ((1 - y) * x + coef * sp) if needs[2] else None
        dp = dout * w * y * sp if needs[3] else None
        return dx, dy, dw, dp


@register
class Softplus(Unary):
    """log(1 + exp(x)), without overflow.  dx = dout * sigmoid(x)."""

    saves = ("x",)

    def forward(self, x):
        return quiet(_softplus_neg, -x)

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
    replaced by f(dout), a Tensor of x's shape (f built from minispore ops stays
    differentiable)."""

    def __init__(self, f):
        super().__init__()
        if not callable(f):
            raise TypeError(f"For 'InsertGradientOf', 'f' must be callable, but got "
                            f"{type(f).__name__}")
        self.f = f

    def forward(self, x):
        return x.copy()

    def bprop(self, saved, dout, needs):
        return (_hook_gradient(self.name, self.f(dout), dout),)


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


@register
class Dense(Primitive):
    """x @ w^T + b over the last axis of x (any leading axes; b may be None), fused: one GEMM
    with the bias added in place into its fresh output.
    dx = dout @ w;  dw = dout^T @ x;  db = sum of dout over the leading axes."""

    inputs = ("x", "w", "b")
    saves = ("x", "w")

    def forward(self, x, w, b):
        if w.ndim != 2 or x.ndim < 1 or x.shape[-1] != w.shape[1]:
            raise ValueError(f"For 'Dense', the input's last axis must equal the weight's second "
                             f"axis, but got shapes {x.shape} and {w.shape}")
        if b is not None and b.shape != (w.shape[0],):
            raise ValueError(f"For 'Dense', the bias must have shape ({w.shape[0]},), but got "
                             f"{b.shape}")
        out = np.matmul(x, w.T)
        if b is not None:
            out += b
        return out

    def bprop(self, saved, dout, needs):
        x, w = saved
        lead = dout.shape[:-1]
        d2 = A.reshape(dout, (-1, dout.shape[-1])) if len(lead) != 1 else dout
        dx = dw = db = None
        if needs[0]:
            dx = M._mm(M.MatMul, False, False)(d2, w)
            dx = A.reshape(dx, x.shape) if len(lead) != 1 else dx
        if needs[1]:
            x2 = A.reshape(x, (-1, x.shape[-1])) if len(lead) != 1 else x
            dw = M._mm(M.MatMul, True, False)(d2, x2)
        if needs[2]:
            db = M.reduce_sum(d2, 0)
        return dx, dw, db


_DENSE = Dense()


def dense(x, w, b=None):
    """x @ w^T + b (b may be None), one fused primitive."""
    return apply(_DENSE, (x, w, b))


_RELU_GRAD, _SOFTPLUS, _SIGMOID = ReluGrad(), Softplus(), M.Sigmoid()


def relu_grad(dy, y):
    return call2(_RELU_GRAD, dy, y)


def softplus(x):
    return call1(_SOFTPLUS, x)


def stop_gradient(x):
    """x as a constant: the same values, no gradient (a new Tensor sharing memory)."""
    if isinstance(x, Tensor):
        return wrap(x._data)
    if isinstance(x, (tuple, list)):
        return type(x)(stop_gradient(v) for v in x)
    return x

