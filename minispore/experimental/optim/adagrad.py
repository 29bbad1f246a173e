"""Adagrad (torch-style): learning-rate decay, initial accumulator, eps outside the root."""
import numpy as np

from ..._validator import check_bool, check_non_negative_float, check_positive_float
from ...common._writes import bump_version
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """PyTorch's Adagrad: `g += weight_decay * w`; `clr = lr / (1 + (t - 1) * lr_decay)`;
    `sum += g * g`; `w -= clr * g / (sqrt(sum) + eps)`.

    Args:
        params (Union[Iterable[Parameter], list[dict]]): parameters or parameter groups.
        lr (Union[float, int, Tensor]): > 0. Default: 1e-2.
        lr_decay (float): Default: 0.0.
        weight_decay (float): Default: 0.0.
        initial_accumulator_value (float): Default: 0.0.
        eps (float): > 0. Default: 1e-10.
        maximize (bool): Default: False.

    State: `accum.<name>`, `step_t` (the number of finished steps).
    """

    _checks = {**Optimizer._checks, "lr": check_positive_float, "eps": check_positive_float,
               "lr_decay": check_non_negative_float,
               "initial_accumulator_value": check_non_negative_float, "maximize": check_bool}

    def __init__(self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0,
                 initial_accumulator_value=0.0, eps=1e-10, *, maximize=False):
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "maximize": maximize}
        super().__init__(params, defaults)
        self._new_state("accum", "accum", float(initial_accumulator_value))
        self._new_counter("step_t")

    def _update_group(self, group, lr, indices, grads):
        decayed_lr = lr / (np.float32(1.0) + np.float32(self.step_t._data)
                           * np.float32(group["lr_decay"]))
        grads = self._decayed(grads, [self.parameters[i] for i in indices], group["weight_decay"])
        for i, g in zip(indices, grads):
            w, accum = self.parameters[i]._data, self.accum[i]._data
            dt = w.dtype.type
            accum += g * g
            w -= dt(decayed_lr) * g / (np.sqrt(accum) + dt(group["eps"]))

    def _after_groups(self):
        step = self.step_t._data
        np.add(step, 1, out=step)
        bump_version(self.step_t)
