"""Adam (torch-style arguments, MindSpore's Adam kernel) and AdamW (PyTorch's AdamW)."""
import numpy as np

from ..._validator import check_bool, check_float, check_type
from ...common.tensor import Tensor
from ...nn.optim.adam import _adam_step, _update_moments
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


def _check_adam_args(owner, lr, betas, eps, weight_decay):
    """The types through the validator; the ranges in PyTorch's words ("invalid learning rate",
    "invalid beta parameter at index 0", ...), as its users know them."""
    if not isinstance(lr, Tensor) and check_float(lr, "lr", owner) < 0.0:
        raise ValueError(f"For '{owner}', invalid learning rate 'lr': {lr}")
    if check_float(eps, "eps", owner) < 0.0:
        raise ValueError(f"For '{owner}', invalid epsilon value 'eps': {eps}")
    if len(check_type(betas, (tuple, list), "betas", owner)) != 2:
        raise ValueError(f"For '{owner}', the 'betas' must be a pair, but got {betas!r}")
    for k, beta in enumerate(betas):
        if not 0.0 <= check_float(beta, f"betas[{k}]", owner) < 1.0:
            raise ValueError(f"For '{owner}', invalid beta parameter at index {k}: {beta}")
    if check_float(weight_decay, "weight_decay", owner) < 0.0:
        raise ValueError(f"For '{owner}', invalid weight_decay value: {weight_decay}")


class _AdamBase(Optimizer):
    _checks = {**Optimizer._checks, "amsgrad": check_bool, "maximize": check_bool}

    _step_counter = "state_step"

    def __init__(self, params, lr, betas, eps, weight_decay, amsgrad, maximize):
        _check_adam_args(self.__class__.__name__, lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize}
        super().__init__(params, defaults)
        self._new_state("exp_avg", "exp_avg", 0.0)
        self._new_state("exp_avg_sq", "exp_avg_sq", 0.0)
        self._new_state("max_exp_avg_sq", "max_exp_avg_sq", 0.0)
        self._new_counter("state_step")


class Adam(_AdamBase):
    """Adam with torch-style arguments and MindSpore's update:
    `g += weight_decay * w` (L2); `m, v` exponential averages of `g`, `g * g`;
    `w -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps)`. (PyTorch divides
    `sqrt(v)` by `sqrt(1 - beta2^t)` before adding `eps`; MindSpore, and this, do not.)
    With `amsgrad`, `max_exp_avg_sq = max(max_exp_avg_sq, v)` replaces `v` in the denominator.
    (MindSpore 2.10 ignores `amsgrad` here; this applies it.)

    Args:
        params (Union[Iterable[Parameter], list[dict]]): parameters or parameter groups.
        lr (Union[float, int, Tensor]): Default: 1e-3.
        betas (Tuple[float, float]): Default: (0.9, 0.999).
        eps (float): Default: 1e-8.
        weight_decay (float): Default: 0.0.
        amsgrad (bool): Default: False.
        maximize (bool): Default: False.

    State: `exp_avg.<name>`, `exp_avg_sq.<name>`, `max_exp_avg_sq.<name>`, `state_step`.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)

    def _update_group(self, group, lr, indices, grads):
        beta1, beta2 = group["betas"]
        t = np.float32(self.state_step._data)
        one = np.float32(1.0)
        correction = (np.sqrt(one - np.float32(beta2) ** t) / (one - np.float32(beta1) ** t))
        params = [self.parameters[i] for i in indices]
        grads = self._decayed(grads, params, group["weight_decay"])
        for i, p, g in zip(indices, params, grads):
            w, m, v = p._data, self.exp_avg[i]._data, self.exp_avg_sq[i]._data
            _update_moments(m, v, g, beta1, beta2)
            if group["amsgrad"]:
                np.maximum(self.max_exp_avg_sq[i]._data, v, out=self.max_exp_avg_sq[i]._data)
                v = self.max_exp_avg_sq[i]._data
            _adam_step(w, m, v, g, w.dtype.type(lr * correction), beta1, group["eps"], False)


class AdamW(_AdamBase):
    """PyTorch's AdamW: `w *= 1 - lr * weight_decay`; `m, v` exponential averages;
    `w -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)` (with `amsgrad`, the
    running maximum of `v` in place of `v`).

    Args:
        params (Union[Iterable[Parameter], list[dict]]): parameters or parameter groups.
        lr (Union[float, int, Tensor]): Default: 1e-3.
        betas (Tuple[float, float]): Default: (0.9, 0.999).
        eps (float): Default: 1e-8.
        weight_decay (float): decoupled. Default: 1e-2.
        amsgrad (bool): Default: False.
        maximize (bool): Default: False.

    State: `exp_avg.<name>`, `exp_avg_sq.<name>`, `max_exp_avg_sq.<name>`, `state_step`.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)

    def _update_group(self, group, lr, indices, grads):
        beta1, beta2 = group["betas"]
        t = np.float32(self.state_step._data)
        one = np.float32(1.0)
        shrink = one - lr * np.float32(group["weight_decay"])
        step_size = lr / (one - np.float32(beta1) ** t)
        correction2_sqrt = np.sqrt(one - np.float32(beta2) ** t)
        for i, g in zip(indices, grads):
            w, m, v = self.parameters[i]._data, self.exp_avg[i]._data, self.exp_avg_sq[i]._data
            dt = w.dtype.type
            np.multiply(w, dt(shrink), out=w)
            np.multiply(m, dt(beta1), out=m)
            m += g * dt(1.0 - beta1)
            np.multiply(v, dt(beta2), out=v)
            v += g * g * (dt(1.0) - dt(beta2))
            if group["amsgrad"]:
                np.maximum(self.max_exp_avg_sq[i]._data, v, out=self.max_exp_avg_sq[i]._data)
                v = self.max_exp_avg_sq[i]._data
            w -= m / (np.sqrt(v) / dt(correction2_sqrt) + dt(group["eps"])) * dt(step_size)
