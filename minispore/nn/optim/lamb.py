"""Lamb: layer-wise adaptive moments (Adam steps rescaled per parameter by a trust ratio)."""
import numpy as np

from .adam import _check_betas_eps, _update_moments
from .optimizer import Optimizer

__all__ = ["Lamb"]

# The trust ratio is clipped to [0, 10], as MindSpore's GPU kernel clips it.
_MAX_TRUST_RATIO = 10.0


class Lamb(Optimizer):
    """Per parameter, with `t` the step number (1 on the first update):
    `m, v` as in Adam; `r = (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps)`;
    `u = r + weight_decay * w`; `w -= lr * ratio * u` with `ratio = ||w|| / ||u||` (1 when
    either norm is 0, clipped to [0, 10]).

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): the rate.
        beta1 (float): in (0, 1). Default: 0.9.
        beta2 (float): in (0, 1). Default: 0.999.
        eps (float): > 0. Default: 1e-6.
        weight_decay (Union[float, int, Cell]): decoupled, inside `u`. Default: 0.0.

    State: `lamb_m.<name>`, `lamb_v.<name>`. (MindSpore 2.10 has no CPU kernel for Lamb; this
    follows its documented formula and its GPU kernel's zero-norm and clipping rules.)
    """

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = _check_betas_eps(beta1, beta2, eps, "Lamb")
        self.__dict__["params"] = self.parameters
        self.moments1 = self._new_state("lamb_m", 0.0)
        self.moments2 = self._new_state("lamb_v", 0.0)

    def construct(self, gradients):
        grads, lrs, decays = self._begin_step(gradients, preprocess=False)
        grads = self._apply_centralization(grads)
        t = int(self.global_step._data[0])
        one = np.float32(1.0)
        correction1 = one - np.float32(self.beta1) ** t
        correction2 = one - np.float32(self.beta2) ** t
        for p, g, lr, wd, m1, m2 in zip(self.parameters, grads, lrs, decays, self.moments1,
                                        self.moments2):
            w, m, v = p._data, m1._data, m2._data
            dt = w.dtype.type
            _update_moments(m, v, g, self.beta1, self.beta2)
            update = (m / dt(correction1)) / (np.sqrt(v / dt(correction2)) + dt(self.eps))
            if wd:
                update += dt(wd) * w
            w_norm = float(np.linalg.norm(w))
            u_norm = float(np.linalg.norm(update))
            ratio = w_norm / u_norm if w_norm > 0.0 and u_norm > 0.0 else 1.0
            ratio = 0.0 if np.isnan(ratio) else min(max(ratio, 0.0), _MAX_TRUST_RATIO)
            w -= dt(lr * np.float32(ratio)) * update
        return self._end_step(self.moments1, self.moments2)
