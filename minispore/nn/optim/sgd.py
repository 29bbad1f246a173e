"""SGD: stochastic gradient descent with optional momentum, dampening and Nesterov momentum."""
import numpy as np

from ..._validator import check_bool, check_non_negative_float
from ...common.parameter import Parameter
from .optimizer import Optimizer, add_scaled

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent.

    With `momentum > 0` the buffer `accum` takes the raw gradient on its first step, then
    `accum = momentum * accum + (1 - dampening) * g`; the update is `w -= lr * accum`, or
    `w -= lr * (g + momentum * accum)` with `nesterov`. With `momentum == 0` it is `w -= lr * g`.
    The buffer's "first step" flag lives in the state `stat` (1 until the first update).

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: 0.1.
        momentum (float): >= 0. Default: 0.0.
        dampening (float): >= 0. Default: 0.0.
        weight_decay (Union[float, int]): L2 penalty added to the gradient. Default: 0.0.
        nesterov (bool): Nesterov momentum; needs `momentum > 0` and `dampening == 0`.
            Default: False.
        loss_scale (float): the gradients are divided by it. Default: 1.0.

    Example:
        >>> opt = nn.SGD(net.trainable_params(), learning_rate=0.01, momentum=0.9)
        >>> opt(grads)
    """

    # graph mode: the update only reads the gradients during the call, so a replay may hand it
    # arrays from its memory plan (this class only, not subclasses: docs/graph_mode.md)
    _jit_borrows_inputs = True

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = check_non_negative_float(momentum, "momentum", "SGD")
        dampening = check_non_negative_float(dampening, "dampening", "SGD")
        nesterov = check_nesterov(check_bool(nesterov, "nesterov", "SGD"), momentum, dampening,
                                  "SGD")
        if self.dynamic_weight_decay:
            raise TypeError("For 'SGD', the 'weight_decay' must be a float or int: a weight-decay "
                            "Cell is not supported")
        self.momentum = Parameter(np.asarray(momentum, np.float32), name="momentum")
        self.dampening = dampening
        self.nesterov = nesterov
        self.accum = self._new_state("accum", 0.0)
        self.stat = self._new_state("stat", 1.0)

    def construct(self, gradients):
        grads, lrs, _ = self._begin_step(gradients)
        momentum = float(self.momentum._data)
        for p, g, lr, accum, stat in zip(self.parameters, grads, lrs, self.accum, self.stat):
            _sgd_step(p._data, g, lr, accum._data, stat._data, momentum, self.dampening,
                      self.nesterov)
        return self._end_step(self.accum, self.stat)


def check_nesterov(nesterov, momentum, dampening, owner):
    """`nesterov`, after checking that Nesterov momentum comes with `momentum` > 0 and no
    `dampening`."""
    if nesterov and (momentum <= 0.0 or dampening != 0.0):
        raise ValueError(f"For '{owner}', the 'nesterov' needs 'momentum' > 0 and 'dampening' == "
                         f"0, but got momentum={momentum}, dampening={dampening}")
    return nesterov


def _sgd_step(w, g, lr, accum, stat, momentum, dampening, nesterov):
    """One SGD update of `w` in place; `accum` is the momentum buffer and `stat` is 1 where it
    has not been filled yet (it then takes the raw gradient)."""
    dt = w.dtype.type
    if momentum > 0.0:
        np.multiply(accum, dt(momentum), out=accum)
        accum += g * (dt(1.0) - dt(dampening))
        if stat.any():
            np.copyto(accum, g, where=stat > 0)
            stat.fill(0)
        step = g + dt(momentum) * accum if nesterov else accum
    else:
        step = g
    add_scaled(w, step, -lr)
