"""AdaMax: Adam with the infinity norm in place of the second moment."""
import numpy as np

from ...common.parameter import Parameter
from .adam import _check_betas_eps
from .optimizer import Optimizer

__all__ = ["AdaMax"]


class AdaMax(Optimizer):
    """`m = beta1 * m + (1 - beta1) * g; v = max(beta2 * v, |g|);
    w -= lr / (1 - beta1^t) * m / (v + eps)`.

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: 0.001.
        beta1 (float): in (0, 1). Default: 0.9.
        beta2 (float): in (0, 1). Default: 0.999.
        eps (float): > 0. Default: 1e-08.
        weight_decay (Union[float, int, Cell]): L2 penalty added to the gradient. Default: 0.0.
        loss_scale (float): the gradients are divided by it. Default: 1.0.

    State: `beta1_power`, `moment1.<name>`, `moment2.<name>`.
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
                 weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1, self.beta2, self.eps = _check_betas_eps(beta1, beta2, eps, "AdaMax")
        self.beta1_power = Parameter(np.ones(1, np.float32), name="beta1_power")
        self.moment1 = self._new_state("moment1", 0.0)
        self.moment2 = self._new_state("moment2", 0.0)

    def construct(self, gradients):
        grads, lrs, _ = self._begin_step(gradients)
        beta1_power = self.beta1_power._data
        np.multiply(beta1_power, np.float32(self.beta1), out=beta1_power)
        for p, g, lr, m1, m2 in zip(self.parameters, grads, lrs, self.moment1, self.moment2):
            w, m, v = p._data, m1._data, m2._data
            dt = w.dtype.type
            np.multiply(m, dt(self.beta1), out=m)
            m += (dt(1.0) - dt(self.beta1)) * g
            np.maximum(v * dt(self.beta2), np.abs(g), out=v)
            step_size = dt(lr / (np.float32(1.0) - beta1_power[0]))
            w -= step_size * m / (v + dt(self.eps))
        return self._end_step(self.moment1, self.moment2, (self.beta1_power,))
