"""Learning-rate schedules: Cells that map the optimizer's global step to a learning rate."""
import math

import numpy as np

from .._validator import (check_bool, check_int, check_non_negative_float, check_positive_float,
                          check_positive_int)
from ..common.tensor import Tensor
from .cell import Cell
from .dynamic_lr import check_decay, check_lr_range

__all__ = [
    "CosineDecayLR",
    "ExponentialDecayLR",
    "InverseDecayLR",
    "LearningRateSchedule",
    "NaturalExpDecayLR",
    "PolynomialDecayLR",
    "WarmUpLR",
]


class LearningRateSchedule(Cell):
    """Base class of learning-rate schedules: `construct(global_step)` returns the learning rate
    for that step as a float32 Tensor. An optimizer given a schedule calls it with its
    `global_step` Parameter (int32, shape (1,)) before every update."""

    def construct(self, global_step):
        raise NotImplementedError(f"'{type(self).__name__}' must define construct(global_step)")


def _step_array(global_step, owner):
    """The step as a float32 array (the schedules compute in float32, as MindSpore does)."""
    if isinstance(global_step, Tensor):
        return global_step._data.astype(np.float32)
    return np.asarray(check_int(global_step, "global_step", owner), np.float32)


def _check_decay_args(owner, learning_rate, decay_rate, decay_steps, is_stair):
    check_positive_int(decay_steps, "decay_steps", owner)
    return check_decay(owner, learning_rate, decay_rate, is_stair)


class ExponentialDecayLR(LearningRateSchedule):
    """`learning_rate * decay_rate ** p` with `p = global_step / decay_steps` (floored when
    `is_stair`).

    Args:
        learning_rate (float): the initial learning rate, > 0.
        decay_rate (float): the decay factor, > 0.
        decay_steps (int): steps per decay period, > 0.
        is_stair (bool): decay in whole periods only. Default: False.
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        self.learning_rate, self.decay_rate = _check_decay_args(
            "ExponentialDecayLR", learning_rate, decay_rate, decay_steps, is_stair)
        self.decay_steps = decay_steps
        self.is_stair = is_stair

    def construct(self, global_step):
        p = _step_array(global_step, "ExponentialDecayLR") / np.float32(self.decay_steps)
        if self.is_stair:
            p = np.floor(p)
        lr = np.float32(self.learning_rate) * np.power(np.float32(self.decay_rate), p)
        return Tensor(lr.astype(np.float32))


class NaturalExpDecayLR(LearningRateSchedule):
    """`learning_rate * e ** (-decay_rate * p)` with `p = global_step` (rounded down to a
    multiple of `decay_steps` when `is_stair`).

    Args:
        learning_rate (float): the initial learning rate, > 0.
        decay_rate (float): the decay rate, > 0.
        decay_steps (int): steps per decay period, > 0 (used only with `is_stair`).
        is_stair (bool): decay in whole periods only. Default: False.
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        self.learning_rate, self.decay_rate = _check_decay_args(
            "NaturalExpDecayLR", learning_rate, decay_rate, decay_steps, is_stair)
        self.decay_steps = decay_steps
        self.is_stair = is_stair

    def construct(self, global_step):
        p = _step_array(global_step, "NaturalExpDecayLR")
        if self.is_stair:
            p = np.floor(p / np.float32(self.decay_steps)) * np.float32(self.decay_steps)
        lr = np.float32(self.learning_rate) * np.exp(np.float32(-self.decay_rate) * p)
        return Tensor(lr.astype(np.float32))


class InverseDecayLR(LearningRateSchedule):
    """`learning_rate / (1 + decay_rate * p)` with `p = global_step / decay_steps` (floored when
    `is_stair`).

    Args:
        learning_rate (float): the initial learning rate, > 0.
        decay_rate (float): the decay rate, > 0.
        decay_steps (int): steps per decay period, > 0.
        is_stair (bool): decay in whole periods only. Default: False.
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        self.learning_rate, self.decay_rate = _check_decay_args(
            "InverseDecayLR", learning_rate, decay_rate, decay_steps, is_stair)
        self.decay_steps = decay_steps
        self.is_stair = is_stair

    def construct(self, global_step):
        p = _step_array(global_step, "InverseDecayLR") / np.float32(self.decay_steps)
        if self.is_stair:
            p = np.floor(p)
        lr = np.float32(self.learning_rate) / (np.float32(1.0) + np.float32(self.decay_rate) * p)
        return Tensor(lr.astype(np.float32))


class CosineDecayLR(LearningRateSchedule):
    """`min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * p / decay_steps))` with
    `p = min(global_step, decay_steps)`: half a cosine from `max_lr` down to `min_lr`, then flat.

    Args:
        min_lr (float): the final learning rate, >= 0.
        max_lr (float): the initial learning rate, > `min_lr`.
        decay_steps (int): the length of the decay, > 0.
    """

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        owner = "CosineDecayLR"
        self.min_lr, self.max_lr = check_lr_range(owner, min_lr, max_lr)
        self.decay_steps = check_positive_int(decay_steps, "decay_steps", owner)

    def construct(self, global_step):
        p = np.minimum(_step_array(global_step, "CosineDecayLR"), np.float32(self.decay_steps))
        half_range = np.float32(0.5 * (self.max_lr - self.min_lr))
        cosine = np.cos(np.float32(math.pi) * (p / np.float32(self.decay_steps)))
        lr = np.float32(self.min_lr) + half_range * (np.float32(1.0) + cosine)
        return Tensor(lr.astype(np.float32))


class PolynomialDecayLR(LearningRateSchedule):
    """`(learning_rate - end_learning_rate) * (1 - p / decay_steps) ** power + end_learning_rate`
    with `p = min(global_step, decay_steps)`; with `update_decay_steps` the period instead grows
    to the next multiple of `decay_steps` past the step, so the decay restarts.

    Args:
        learning_rate (float): the initial learning rate, > 0.
        end_learning_rate (float): the final learning rate, >= 0.
        decay_steps (int): the length of the decay, > 0.
        power (float): the polynomial's power, > 0.
        update_decay_steps (bool): restart the decay every `decay_steps`. Default: False.
    """

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power,
                 update_decay_steps=False):
        super().__init__()
        owner = "PolynomialDecayLR"
        self.start_learning_rate = check_positive_float(learning_rate, "learning_rate", owner,
                                                        allow_int=False)
        self.end_learning_rate = check_non_negative_float(end_learning_rate, "end_learning_rate",
                                                          owner, allow_int=False)
        self.decay_steps = check_positive_int(decay_steps, "decay_steps", owner)
        self.power = check_positive_float(power, "power", owner, allow_int=False)
        self.update_decay_steps = check_bool(update_decay_steps, "update_decay_steps", owner)

    def construct(self, global_step):
        step = _step_array(global_step, "PolynomialDecayLR")
        period = np.float32(self.decay_steps)
        if self.update_decay_steps:
            period = period * np.maximum(np.ceil(step / period), np.float32(1.0))
        else:
            step = np.minimum(step, period)
        span = np.float32(self.start_learning_rate - self.end_learning_rate)
        lr = (span * np.power(np.float32(1.0) - step / period, np.float32(self.power))
              + np.float32(self.end_learning_rate))
        return Tensor(lr.astype(np.float32))


class WarmUpLR(LearningRateSchedule):
    """`learning_rate * min(global_step, warmup_steps) / warmup_steps`: a linear ramp from 0.

    Args:
        learning_rate (float): the learning rate reached at the end of the warm-up, >= 0.
        warmup_steps (int): the length of the warm-up, > 0.
    """

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        owner = "WarmUpLR"
        self.learning_rate = check_non_negative_float(learning_rate, "learning_rate", owner,
                                                      allow_int=False)
        self.warmup_steps = check_positive_int(warmup_steps, "warmup_steps", owner)

    def construct(self, global_step):
        step = np.minimum(_step_array(global_step, "WarmUpLR"), np.float32(self.warmup_steps))
        lr = np.float32(self.learning_rate) * (step / np.float32(self.warmup_steps))
        return Tensor(lr.astype(np.float32))

