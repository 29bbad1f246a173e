"""Adadelta: step sizes from running averages of squared gradients and squared updates."""
import numpy as np

from ..._validator import check_float_range, check_non_negative_float
from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """`accum = rho * accum + (1 - rho) * g * g;
    update = sqrt(accum_update + epsilon) * g / sqrt(accum + epsilon);
    accum_update = rho * accum_update + (1 - rho) * update * update; w -= lr * update`.

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: 1.0.
        rho (float): in [0, 1]. Default: 0.9.
        epsilon (float): >= 0. Default: 1e-6.
        loss_scale (float): the gradients are divided by it. Default: 1.0.
        weight_decay (Union[float, int, Cell]): L2 penalty added to the gradient. Default: 0.0.

    State: `accum.<name>`, `accum_update.<name>`.
    """

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho = check_float_range(rho, "rho", "Adadelta", 0.0, 1.0, True, True,
                                     allow_int=False)
        self.epsilon = check_non_negative_float(epsilon, "epsilon", "Adadelta", allow_int=False)
        self.accum = self._new_state("accum", 0.0)
        self.accum_update = self._new_state("accum_update", 0.0)

    def construct(self, gradients):
        grads, lrs, _ = self._begin_step(gradients)
        for p, g, lr, accum, accum_update in zip(self.parameters, grads, lrs, self.accum,
                                                 self.accum_update):
            w, a, u = p._data, accum._data, accum_update._data
            dt = w.dtype.type
            rho, eps = dt(self.rho), dt(self.epsilon)
            np.multiply(a, rho, out=a)
            a += (dt(1.0) - dt(self.rho)) * (g * g)
            update = np.sqrt(u + eps) * g / np.sqrt(a + eps)
            np.multiply(u, rho, out=u)
            u += (dt(1.0) - dt(self.rho)) * (update * update)
            w -= dt(lr) * update
        return self._end_step(self.accum, self.accum_update)
