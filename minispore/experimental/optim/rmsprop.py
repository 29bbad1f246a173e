"""RMSprop (torch-style): mean square from zero, eps outside the square root."""
import numpy as np

from ..._validator import check_bool, check_non_negative_float, check_positive_float
from .optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """PyTorch's RMSprop: `g += weight_decay * w`; `ms = alpha * ms + (1 - alpha) * g * g`
    (from 0); `avg = sqrt(ms) + eps`, or `sqrt(ms - mg * mg) + eps` when `centered` with
    `mg = alpha * mg + (1 - alpha) * g`; with momentum `buf = momentum * buf + g / avg`,
    `w -= lr * buf`, else `w -= lr * g / avg`.

    Args:
        params (Union[Iterable[Parameter], list[dict]]): parameters or parameter groups.
        lr (Union[float, int, Tensor]): > 0. Default: 1e-2.
        alpha (float): Default: 0.99.
        eps (float): > 0. Default: 1e-8.
        weight_decay (float): Default: 0.0.
        momentum (float): Default: 0.0.
        centered (bool): Default: False.
        maximize (bool): Default: False.

    State: `mean_grad.<name>`, `mean_square.<name>`, `moment.<name>`.
    """

    _checks = {**Optimizer._checks, "lr": check_positive_float, "eps": check_positive_float,
               "alpha": check_non_negative_float, "momentum": check_non_negative_float,
               "centered": check_bool, "maximize": check_bool}

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
                 centered=False, maximize=False):
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay, "maximize": maximize}
        super().__init__(params, defaults)
        self._new_state("mean_grad", "mean_grad", 0.0)
        self._new_state("mean_square", "mean_square", 0.0)
        self._new_state("moment", "moment", 0.0)

    def _update_group(self, group, lr, indices, grads):
        alpha, momentum = group["alpha"], group["momentum"]
        grads = self._decayed(grads, [self.parameters[i] for i in indices], group["weight_decay"])
        for i, g in zip(indices, grads):
            w, ms = self.parameters[i]._data, self.mean_square[i]._data
            dt = w.dtype.type
            np.multiply(ms, dt(alpha), out=ms)
            ms += g * g * dt(1.0 - alpha)
            if group["centered"]:
                mg = self.mean_grad[i]._data
                np.multiply(mg, dt(alpha), out=mg)
                mg += g * dt(1.0 - alpha)
                avg = np.sqrt(ms - mg * mg) + dt(group["eps"])
            else:
                avg = np.sqrt(ms) + dt(group["eps"])
            if momentum > 0:
                buf = self.moment[i]._data
                np.multiply(buf, dt(momentum), out=buf)
                buf += g / avg
                w -= buf * dt(lr)
            else:
                w -= dt(lr) * g / avg
