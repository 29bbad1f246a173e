"""Adadelta (torch-style arguments, MindSpore's ApplyAdadelta kernel)."""
import numpy as np

from ..._validator import check_bool, check_float_range, check_positive_float
from ._checks import check_lr
from .optimizer import Optimizer

__all__ = ["Adadelta"]


def _check_rho(value, arg, owner):
    return check_float_range(value, arg, owner, low=0.0, high=1.0)


class Adadelta(Optimizer):
    """MindSpore 2.10's Adadelta: `g += weight_decay * w`;
    `accum = rho * accum + (1 - rho) * g * g`;
    `update = sqrt(accum_update + eps) / sqrt(accum + eps) * g`;
    `accum_update = rho * accum_update + (1 - rho) * update * update`; `w -= lr * update`.

    Args:
        params (Union[Iterable[Parameter], list[dict]]): parameters or parameter groups.
        lr (Union[float, int, Tensor]): > 0. Default: 1.0.
        rho (float): in [0, 1]. Default: 0.9.
        eps (float): > 0. Default: 1e-6.
        weight_decay (float): L2 penalty, >= 0. Default: 0.0.
        maximize (bool): keyword-only. Default: False.

    State: `accum.<name>`, `accum_update.<name>`.
    """

    _checks = {**Optimizer._checks, "rho": _check_rho, "eps": check_positive_float,
               "maximize": check_bool}

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, *, maximize=False):
        check_lr(lr, "Adadelta")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize}
        super().__init__(params, defaults)
        self._new_state("accum", "accum", 0.0)
        self._new_state("accum_update", "accum_update", 0.0)

    def _update_group(self, group, lr, indices, grads):
        grads = self._decayed(grads, [self.parameters[i] for i in indices], group["weight_decay"])
        for i, g in zip(indices, grads):
            w, a, u = self.parameters[i]._data, self.accum[i]._data, self.accum_update[i]._data
            dt = w.dtype.type
            rho, eps, keep = dt(group["rho"]), dt(group["eps"]), dt(1.0) - dt(group["rho"])
            np.multiply(a, rho, out=a)
            a += keep * (g * g)
            update = np.sqrt(u + eps) * g / np.sqrt(a + eps)
            np.multiply(u, rho, out=u)
            u += keep * (update * update)
            w -= dt(lr) * update
