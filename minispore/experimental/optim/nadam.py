"""NAdam (torch-style): Adam with Nesterov momentum and a momentum-decay schedule."""
import numpy as np

from ..._validator import check_non_negative_float, check_positive_float
from ...common._writes import bump_version
from ...common.parameter import Parameter
from ._checks import check_betas, check_lr
from .optimizer import Optimizer

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """MindSpore 2.10's (and PyTorch's) NAdam: `g += weight_decay * w`;
    `mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))`; `mu_product *= mu_t`;
    `m, v` exponential averages of `g`, `g * g`; `denom = sqrt(v / (1 - beta2^t)) + eps`;
    `w -= lr * (1 - mu_t) / (1 - mu_product) * g / denom`, then
    `w -= lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * m / denom`.

    Args:
        params (Union[Iterable[Parameter], list[dict]]): parameters or parameter groups.
        lr (Union[float, int, Tensor]): > 0. Default: 2e-3.
        betas (Tuple[float, float]): each in [0, 1). Default: (0.9, 0.999).
        eps (float): > 0. Default: 1e-8.
        weight_decay (float): L2 penalty, >= 0. Default: 0.0.
        momentum_decay (float): >= 0. Default: 4e-3.

    MindSpore 2.10's NAdam has no `maximize`. State: `step_t`, `exp_avg.<name>`,
    `exp_avg_sq.<name>`; the scalars `mu_product` (one per parameter, named
    `mu_product_<name>`) are kept outside `get_parameters()`, as in MindSpore.
    """

    _checks = {**Optimizer._checks, "betas": check_betas, "eps": check_positive_float,
               "momentum_decay": check_non_negative_float}

    _step_counter = "step_t"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 momentum_decay=4e-3):
        check_lr(lr, "NAdam")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay}
        self.__dict__["mu_product"] = []
        super().__init__(params, defaults)
        self._new_counter("step_t")
        self._new_state("exp_avg", "exp_avg", 0.0)
        self._new_state("exp_avg_sq", "exp_avg_sq", 0.0)

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        for p in self.param_groups[-1]["params"]:
            self.mu_product.append(Parameter(np.ones((), np.float32), name=f"mu_product_{p.name}",
                                             requires_grad=False))

    def _after_groups(self):
        super()._after_groups()
        for mu in self.mu_product:
            bump_version(mu)

    def _update_group(self, group, lr, indices, grads):
        f32 = np.float32
        beta1, beta2 = f32(group["betas"][0]), f32(group["betas"][1])
        t = f32(self.step_t._data)
        decay = f32(group["momentum_decay"])
        one = f32(1.0)
        bias_correction2 = one - beta2 ** t
        mu = beta1 * (one - f32(0.5) * f32(0.96) ** (t * decay))
        mu_next = beta1 * (one - f32(0.5) * f32(0.96) ** ((t + one) * decay))
        grads = self._decayed(grads, [self.parameters[i] for i in indices], group["weight_decay"])
        for i, g in zip(indices, grads):
            w, m, v = self.parameters[i]._data, self.exp_avg[i]._data, self.exp_avg_sq[i]._data
            dt = w.dtype.type
            prod = self.mu_product[i]._data
            np.multiply(prod, mu, out=prod)
            np.multiply(m, dt(beta1), out=m)
            m += g * dt(one - beta1)
            np.multiply(v, dt(beta2), out=v)
            v += g * g * dt(one - beta2)
            denom = np.sqrt(v / dt(bias_correction2)) + dt(group["eps"])
            prod_next = f32(prod) * mu_next
            w -= dt(lr * (one - mu) / (one - f32(prod))) * g / denom
            w -= dt(lr * mu_next / (one - prod_next)) * m / denom
