"""Learning-rate schedules: Cells that map the optimizer's global step to a learning rate."""
import math

import numpy as np

from .._validator import (check_bool, check_int, check_non_negative_float, check_positive_float,
                          check_positive_int)
from ..common.tensor import Tensor
from ..ops.primitive import data_function
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


def _scheduled(global_step, owner, rate, *args):
    """`rate(step, *args)` as a float32 Tensor, `step` the global step as a float32 array (the
    schedules compute in float32, as MindSpore does). For a Tensor step it is a DataFunction node,
    so a graph-mode replay computes the rate again from each step's value."""
    if isinstance(global_step, Tensor):
        return data_function(_rate_of, global_step, static=(rate, *args))
    return Tensor(_rate_of(np.asarray(check_int(global_step, "global_step", owner)), rate, *args))


def _rate_of(step, rate, *args):
    return np.asarray(rate(step.astype(np.float32), *args), np.float32)


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
        return _scheduled(global_step, "ExponentialDecayLR", _exponential, self.learning_rate,
                          self.decay_rate, self.decay_steps, self.is_stair)


def _periods(step, decay_steps, is_stair):
    """step / decay_steps, floored when `is_stair`."""
    p = step / np.float32(decay_steps)
    return np.floor(p) if is_stair else p


def _exponential(step, learning_rate, decay_rate, decay_steps, is_stair):
    p = _periods(step, decay_steps, is_stair)
    return np.float32(learning_rate) * np.power(np.float32(decay_rate), p)


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
        return _scheduled(global_step, "NaturalExpDecayLR", _natural_exp, self.learning_rate,
                          self.decay_rate, self.decay_steps, self.is_stair)


def _natural_exp(p, learning_rate, decay_rate, decay_steps, is_stair):
    if is_stair:
        p = np.floor(p / np.float32(decay_steps)) * np.float32(decay_steps)
    return np.float32(learning_rate) * np.exp(np.float32(-decay_rate) * p)


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
        return _scheduled(global_step, "InverseDecayLR", _inverse, self.learning_rate,
                          self.decay_rate, self.decay_steps, self.is_stair)


def _inverse(step, learning_rate, decay_rate, decay_steps, is_stair):
    p = _periods(step, decay_steps, is_stair)
    return np.float32(learning_rate) / (np.float32(1.0) + np.float32(decay_rate) * p)


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
        return _scheduled(global_step, "CosineDecayLR", _cosine, self.min_lr, self.max_lr,
                          self.decay_steps)


def _cosine(step, min_lr, max_lr, decay_steps):
    p = np.minimum(step, np.float32(decay_steps))
    half_range = np.float32(0.5 * (max_lr - min_lr))
    cosine = np.cos(np.float32(math.pi) * (p / np.float32(decay_steps)))
    return np.float32(min_lr) + half_range * (np.float32(1.0) + cosine)


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
        return _scheduled(global_step, "PolynomialDecayLR", _polynomial,
                          self.start_learning_rate, self.end_learning_rate, self.decay_steps,
                          self.power, self.update_decay_steps)


def _polynomial(step, start, end, decay_steps, power, update_decay_steps):
    period = np.float32(decay_steps)
    if update_decay_steps:
        period = period * np.maximum(np.ceil(step / period), np.float32(1.0))
    else:
        step = np.minimum(step, period)
    span = np.float32(start - end)
    return span * np.power(np.float32(1.0) - step / period, np.float32(power)) + np.float32(end)


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
        return _scheduled(global_step, "WarmUpLR", _warm_up, self.learning_rate,
                          self.warmup_steps)


def _warm_up(step, learning_rate, warmup_steps):
    step = np.minimum(step, np.float32(warmup_steps))
    return np.float32(learning_rate) * (step / np.float32(warmup_steps))

