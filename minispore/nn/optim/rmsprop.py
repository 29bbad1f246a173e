"""RMSProp, plain and centered."""
import numpy as np

from ..._validator import check_bool, check_non_negative_float, check_positive_float
from .optimizer import Optimizer

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """`ms = decay * ms + (1 - decay) * g * g; mom = momentum * mom + lr * g / sqrt(ms + eps);
    w -= mom`, the mean square `ms` starting at **1**. Centered, it also keeps the mean gradient
    `mg = decay * mg + (1 - decay) * g` and divides by `sqrt(ms - mg * mg + eps)`.

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: 0.1.
        decay (float): >= 0. Default: 0.9.
        momentum (float): >= 0. Default: 0.0.
        epsilon (float): > 0. Default: 1e-10.
        use_locking (bool): accepted for compatibility. Default: False.
        centered (bool): Default: False.
        loss_scale (float): the gradients are divided by it. Default: 1.0.
        weight_decay (Union[float, int, Cell]): L2 penalty added to the gradient. Default: 0.0.

    State: `mean_grad.<name>` (centered only), `mean_square.<name>`, `moment.<name>`.
    """

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.decay = check_non_negative_float(decay, "decay", "RMSProp", allow_int=False)
        self.momentum = check_non_negative_float(momentum, "momentum", "RMSProp",
                                                 allow_int=False)
        self.epsilon = check_positive_float(epsilon, "epsilon", "RMSProp", allow_int=False)
        self.use_locking = check_bool(use_locking, "use_locking", "RMSProp")
        self.centered = check_bool(centered, "centered", "RMSProp")
        if self.centered:
            self.mg = self._new_state("mean_grad", 0.0)
        self.ms = self._new_state("mean_square", 1.0)
        self.moment = self._new_state("moment", 0.0)

    def construct(self, gradients):
        grads, lrs, _ = self._begin_step(gradients)
        mean_grads = self.mg if self.centered else [None] * len(grads)
        for p, g, lr, mean_square, moment, mean_grad in zip(self.parameters, grads, lrs,
                                                             self.ms, self.moment, mean_grads):
            w, ms, mom = p._data, mean_square._data, moment._data
            dt = w.dtype.type
            np.multiply(ms, dt(self.decay), out=ms)
            ms += (dt(1.0) - dt(self.decay)) * (g * g)
            if mean_grad is None:
                denominator = ms + dt(self.epsilon)
            else:
                mg = mean_grad._data
                np.multiply(mg, dt(self.decay), out=mg)
                mg += (dt(1.0) - dt(self.decay)) * g
                denominator = ms - mg * mg + dt(self.epsilon)
            np.multiply(mom, dt(self.momentum), out=mom)
            mom += dt(lr) * g / np.sqrt(denominator)
            w -= mom
        written = [self.ms, self.moment] + ([self.mg] if self.centered else [])
        return self._end_step(*written)
