"""ProximalAdagrad: Adagrad steps followed by the proximal map of an L1 + L2 penalty."""
import numpy as np

from ..._validator import check_bool, check_non_negative_float
from ._chunks import run_in_chunks
from .optimizer import Optimizer

__all__ = ["ProximalAdagrad"]


class ProximalAdagrad(Optimizer):
    """Per element, with the adapted rate `r = lr / sqrt(accum)` after `accum += g * g`:
    `v = w - r * g; w = sign(v) * max(|v| - r * l1, 0) / (1 + r * l2)`.

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups.
        accum (float): the accumulators' initial value, >= 0. Default: 0.1.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: 0.001.
        l1 (float): L1 strength, >= 0. Default: 0.0.
        l2 (float): L2 strength, >= 0. Default: 0.0.
        use_locking (bool): accepted for compatibility. Default: False.
        loss_scale (float): the gradients are divided by it. Default: 1.0.
        weight_decay (Union[float, int, Cell]): L2 penalty added to the gradient. Default: 0.0.

    The shrinkage uses the adapted rate `r`, as MindSpore's CPU kernel (ApplyProximalAdagrad)
    and TensorFlow's compute it, and as the proximal step in Adagrad's metric needs; MindSpore's
    documentation writes the plain `lr` there.

    State: `accum.<name>`.

    Example:
        >>> opt = nn.ProximalAdagrad(net.trainable_params(), learning_rate=0.1, l1=0.01)
        >>> opt(grads)
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False,
                 loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        initial = check_non_negative_float(accum, "accum", "ProximalAdagrad", allow_int=False)
        self.l1 = check_non_negative_float(l1, "l1", "ProximalAdagrad", allow_int=False)
        self.l2 = check_non_negative_float(l2, "l2", "ProximalAdagrad", allow_int=False)
        self.use_locking = check_bool(use_locking, "use_locking", "ProximalAdagrad")
        self.accum = self._new_state("accum", initial)

    def construct(self, grads):
        arrays, lrs, _ = self._begin_step(grads)
        for p, g, lr, accum in zip(self.parameters, arrays, lrs, self.accum):
            run_in_chunks(_proximal_adagrad_step, (p._data, g, accum._data), lr, self.l1,
                          self.l2)
        return self._end_step(self.accum)


def _proximal_adagrad_step(w, g, accum, lr, l1, l2):
    """One update of `w` and `accum` in place, through two scratch arrays."""
    dt = w.dtype.type
    rate = np.multiply(g, g)
    accum += rate
    np.sqrt(accum, out=rate)
    np.divide(dt(lr), rate, out=rate)                   # the adapted rate lr / sqrt(accum)
    scratch = np.multiply(rate, g)
    w -= scratch
    if l1 > 0.0:
        # sign(v) * max(|v| - t, 0) is v - clip(v, -t, t)
        threshold = np.multiply(rate, dt(l1))
        np.minimum(w, threshold, out=scratch)
        np.negative(threshold, out=threshold)
        np.maximum(scratch, threshold, out=scratch)
        w -= scratch
    if l2 > 0.0:
        rate *= dt(l2)
        rate += dt(1.0)
        w /= rate
