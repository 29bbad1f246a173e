"""Momentum: SGD with a heavy-ball (or Nesterov) momentum buffer."""
import numpy as np

from ..._validator import check_bool, check_non_negative_float
from ...common.parameter import Parameter
from .optimizer import Optimizer, add_scaled

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """`v = momentum * v + g; w -= lr * v`; with `use_nesterov`, `w -= lr * (g + momentum * v)`.

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): the rate.
        momentum (float): >= 0.
        weight_decay (Union[float, int, Cell]): L2 penalty added to the gradient. Default: 0.0.
        loss_scale (float): the gradients are divided by it. Default: 1.0.
        use_nesterov (bool): Nesterov momentum. Default: False. (MindSpore 2.10's CPU kernel
            ignores it and runs plain momentum; here it takes effect.)

    The buffers are the state `moments.<parameter name>`.
    """

    # graph mode: the update only reads the gradients during the call, so a replay may hand it
    # arrays from its memory plan (this class only, not subclasses: docs/graph_mode.md)
    _jit_borrows_inputs = True

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = check_non_negative_float(momentum, "momentum", "Momentum", allow_int=False)
        self.momentum = Parameter(np.asarray(momentum, np.float32), name="momentum")
        self.use_nesterov = check_bool(use_nesterov, "use_nesterov", "Momentum")
        self.__dict__["params"] = self.parameters
        self.moments = self._new_state("moments", 0.0)

    def construct(self, gradients):
        grads, lrs, _ = self._begin_step(gradients)
        momentum = float(self.momentum._data)
        for p, g, lr, moment in zip(self.parameters, grads, lrs, self.moments):
            w, v = p._data, moment._data
            dt = w.dtype.type
            np.multiply(v, dt(momentum), out=v)
            v += g
            if self.use_nesterov:
                w -= dt(lr) * (g + dt(momentum) * v)
            else:
                add_scaled(w, v, lr, np.subtract)  # w -= lr * v without a temporary
        return self._end_step(self.moments)
