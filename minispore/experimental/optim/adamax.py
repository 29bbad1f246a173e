"""Adamax (torch-style): Adam with the infinity norm in place of the second moment."""
import numpy as np

from ..._validator import check_bool, check_positive_float
from ._checks import check_betas, check_lr
from .optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """MindSpore 2.10's (and PyTorch's) Adamax: `g += weight_decay * w`;
    `m = beta1 * m + (1 - beta1) * g`; `u = max(beta2 * u, |g| + eps)`;
    `w -= lr / (1 - beta1^t) * m / u`.

    Args:
        params (Union[Iterable[Parameter], list[dict]]): parameters or parameter groups.
        lr (Union[float, int, Tensor]): > 0. Default: 2e-3.
        betas (Tuple[float, float]): each in [0, 1). Default: (0.9, 0.999).
        eps (float): > 0. Default: 1e-8.
        weight_decay (float): L2 penalty, >= 0. Default: 0.0.
        maximize (bool): keyword-only. Default: False.

    State: `step_t`, `exp_avg.<name>`, `exp_inf.<name>` (MindSpore's names and order).
    """

    _checks = {**Optimizer._checks, "betas": check_betas, "eps": check_positive_float,
               "maximize": check_bool}

    _step_counter = "step_t"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, *,
                 maximize=False):
        check_lr(lr, "Adamax")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize}
        super().__init__(params, defaults)
        self._new_counter("step_t")
        self._new_state("exp_avg", "exp_avg", 0.0)
        self._new_state("exp_inf", "exp_inf", 0.0)

    def _update_group(self, group, lr, indices, grads):
        beta1, beta2 = group["betas"]
        clr = lr / (np.float32(1.0) - np.float32(beta1) ** np.float32(self.step_t._data))
        grads = self._decayed(grads, [self.parameters[i] for i in indices], group["weight_decay"])
        for i, g in zip(indices, grads):
            w, m, u = self.parameters[i]._data, self.exp_avg[i]._data, self.exp_inf[i]._data
            dt = w.dtype.type
            np.multiply(m, dt(beta1), out=m)
            m += g * dt(1.0 - beta1)
            np.maximum(u * dt(beta2), np.abs(g) + dt(group["eps"]), out=u)
            w -= dt(clr) * m / u
