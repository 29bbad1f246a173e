"""Adagrad: per-element learning rates from the running sum of squared gradients."""
import numpy as np

from ..._validator import check_bool, check_non_negative_float
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """`accum += g * g; w -= lr * g / sqrt(accum)`, the accumulator starting at `accum`.

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups.
        accum (float): the accumulator's initial value, >= 0. Default: 0.1.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: 0.001.
        update_slots (bool): whether the accumulator is updated. Default: True. (MindSpore
            2.10's CPU kernel updates it regardless; here False keeps it fixed.)
        loss_scale (float): the gradients are divided by it. Default: 1.0.
        weight_decay (Union[float, int, Cell]): L2 penalty added to the gradient. Default: 0.0.

    State: `accum.<name>`.
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        initial = check_non_negative_float(accum, "accum", "Adagrad", allow_int=False)
        self.update_slots = check_bool(update_slots, "update_slots", "Adagrad")
        self.accum = self._new_state("accum", initial)

    def construct(self, gradients):
        grads, lrs, _ = self._begin_step(gradients)
        for p, g, lr, accum in zip(self.parameters, grads, lrs, self.accum):
            w, a = p._data, accum._data
            if self.update_slots:
                a += g * g
            w -= w.dtype.type(lr) * g / np.sqrt(a)
        return self._end_step(self.accum)
