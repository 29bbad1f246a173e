"""RAdam (torch-style): Adam with the variance of the adaptive learning rate rectified."""
import numpy as np

from ..._validator import check_positive_float
from ._checks import check_betas, check_lr
from .optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """MindSpore 2.10's (and PyTorch's) RAdam: `g += weight_decay * w`; `m, v` exponential
    averages of `g`, `g * g`; `rho_inf = 2 / (1 - beta2) - 1`,
    `rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)`; `m_hat = m / (1 - beta1^t)`. When
    `rho_t > 5`: `r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))`,
    `w -= lr * m_hat * r * sqrt(1 - beta2^t) / (sqrt(v) + eps)`; otherwise `w -= lr * m_hat`.

    Args:
        params (Union[Iterable[Parameter], list[dict]]): parameters or parameter groups.
        lr (Union[float, int, Tensor]): > 0. Default: 1e-3.
        betas (Tuple[float, float]): each in [0, 1). Default: (0.9, 0.999).
        eps (float): > 0. Default: 1e-8.
        weight_decay (float): L2 penalty, >= 0. Default: 0.0.

    MindSpore 2.10's RAdam has no `maximize`. State: `step_t`, `exp_avg.<name>`,
    `exp_avg_sq.<name>`.
    """

    _checks = {**Optimizer._checks, "betas": check_betas, "eps": check_positive_float}

    _step_counter = "step_t"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        check_lr(lr, "RAdam")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay}
        super().__init__(params, defaults)
        self._new_counter("step_t")
        self._new_state("exp_avg", "exp_avg", 0.0)
        self._new_state("exp_avg_sq", "exp_avg_sq", 0.0)

    def _update_group(self, group, lr, indices, grads):
        f32 = np.float32
        beta1, beta2 = group["betas"]
        t = f32(self.step_t._data)
        one = f32(1.0)
        beta2_pow = f32(beta2) ** t
        bias_correction1 = one - f32(beta1) ** t
        bias_correction2 = one - beta2_pow
        rho_inf = 2.0 / (1.0 - beta2) - 1.0
        rho_t = f32(rho_inf) - f32(2.0) * t * beta2_pow / bias_correction2
        if rho_t > 5.0:
            rect = np.sqrt((rho_t - f32(4)) * (rho_t - f32(2)) * f32(rho_inf)
                           / f32((rho_inf - 4) * (rho_inf - 2) * rho_t))
            scale = lr * rect * np.sqrt(bias_correction2)
        grads = self._decayed(grads, [self.parameters[i] for i in indices], group["weight_decay"])
        for i, g in zip(indices, grads):
            w, m, v = self.parameters[i]._data, self.exp_avg[i]._data, self.exp_avg_sq[i]._data
            dt = w.dtype.type
            np.multiply(m, dt(beta1), out=m)
            m += g * dt(1.0 - beta1)
            np.multiply(v, dt(beta2), out=v)
            v += g * g * dt(1.0 - beta2)
            m_hat = m / dt(bias_correction1)
            if rho_t > 5.0:
                w -= m_hat * dt(scale) / (np.sqrt(v) + dt(group["eps"]))
            else:
                w -= m_hat * dt(lr)
