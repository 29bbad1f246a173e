"""Per-step learning-rate lists, for passing to an optimizer as `learning_rate`.

Each builder returns a Python list with one float per step; the epoch of step `i` is
`i // step_per_epoch`. The arithmetic is ordered as MindSpore orders it, so the lists are equal
float for float.
"""
import math

from .._validator import (check_bool, check_float, check_non_negative_float,
                          check_positive_float, check_positive_int, check_type)

__all__ = [
    "cosine_decay_lr",
    "exponential_decay_lr",
    "inverse_decay_lr",
    "natural_exp_decay_lr",
    "piecewise_constant_lr",
    "polynomial_decay_lr",
    "warmup_lr",
]


def piecewise_constant_lr(milestone, learning_rates):
    """`learning_rates[i]` for the steps from `milestone[i-1]` up to `milestone[i]`.

    Args:
        milestone (list[int]): increasing step counts, each > 0; the last is the list's length.
        learning_rates (list[float]): one learning rate per milestone.

    Example: `piecewise_constant_lr([2, 5], [0.1, 0.05])` is `[0.1, 0.1, 0.05, 0.05, 0.05]`.
    """
    owner = "piecewise_constant_lr"
    check_type(milestone, (list, tuple), "milestone", owner)
    check_type(learning_rates, (list, tuple), "learning_rates", owner)
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For '{owner}', 'milestone' and 'learning_rates' must have the same "
                         f"length, but got {len(milestone)} and {len(learning_rates)}")
    lrs = []
    previous = 0
    for i, (end, lr) in enumerate(zip(milestone, learning_rates)):
        check_positive_int(end, f"milestone[{i}]", owner)
        check_float(lr, f"learning_rates[{i}]", owner, allow_int=False)
        if end < previous:
            raise ValueError(f"For '{owner}', the 'milestone' must be increasing, but "
                             f"milestone[{i}]={end} < milestone[{i - 1}]={previous}")
        lrs += [lr] * (end - previous)
        previous = end
    return lrs


def check_lr_range(owner, min_lr, max_lr):
    """`min_lr` (a float >= 0) and `max_lr` (a float > `min_lr`), as floats."""
    min_lr = check_non_negative_float(min_lr, "min_lr", owner, allow_int=False)
    max_lr = check_positive_float(max_lr, "max_lr", owner, allow_int=False)
    if min_lr >= max_lr:
        raise ValueError(f"For '{owner}', the 'max_lr' must be greater than the 'min_lr', but "
                         f"got max_lr={max_lr}, min_lr={min_lr}")
    return min_lr, max_lr


def _check_steps(owner, total_step, step_per_epoch, epochs_arg, epochs):
    """The step and epoch counts every builder takes, each an int > 0."""
    for arg, value in (("total_step", total_step), ("step_per_epoch", step_per_epoch),
                       (epochs_arg, epochs)):
        check_positive_int(value, arg, owner)


def check_decay(owner, learning_rate, decay_rate, is_stair):
    """`learning_rate` and `decay_rate` (floats > 0) of a decay, after checking that `is_stair`
    is a bool."""
    learning_rate = check_positive_float(learning_rate, "learning_rate", owner, allow_int=False)
    decay_rate = check_positive_float(decay_rate, "decay_rate", owner, allow_int=False)
    check_bool(is_stair, "is_stair", owner)
    return learning_rate, decay_rate


def _check_decay_args(owner, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                      is_stair):
    _check_steps(owner, total_step, step_per_epoch, "decay_epoch", decay_epoch)
    check_decay(owner, learning_rate, decay_rate, is_stair)


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """`learning_rate * decay_rate ** (epoch / decay_epoch)` for each of `total_step` steps
    (the exponent floored when `is_stair`)."""
    _check_decay_args("exponential_decay_lr", learning_rate, decay_rate, total_step,
                      step_per_epoch, decay_epoch, is_stair)
    lrs = []
    for i in range(total_step):
        epoch = i // step_per_epoch
        exponent = epoch // decay_epoch if is_stair else epoch / decay_epoch
        lrs.append(learning_rate * decay_rate ** exponent)
    return lrs


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """`learning_rate * e ** (-decay_rate * epoch)` for each of `total_step` steps (the epoch
    rounded down to a multiple of `decay_epoch` when `is_stair`)."""
    _check_decay_args("natural_exp_decay_lr", learning_rate, decay_rate, total_step,
                      step_per_epoch, decay_epoch, is_stair)
    lrs = []
    for i in range(total_step):
        epoch = i // step_per_epoch
        if is_stair:
            epoch = epoch // decay_epoch * decay_epoch
        # e ** x rather than exp(x): the two may differ in the last bit, and MindSpore uses **.
        lrs.append(learning_rate * math.e ** (-decay_rate * epoch))
    return lrs


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                     is_stair=False):
    """`learning_rate / (1 + decay_rate * epoch / decay_epoch)` for each of `total_step` steps
    (`epoch / decay_epoch` floored when `is_stair`)."""
    _check_decay_args("inverse_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                      decay_epoch, is_stair)
    lrs = []
    for i in range(total_step):
        epoch = i // step_per_epoch
        if is_stair:
            lrs.append(learning_rate / (1 + decay_rate * (epoch // decay_epoch)))
        else:
            lrs.append(learning_rate / (1 + decay_rate * epoch / decay_epoch))
    return lrs


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """`min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * e / decay_epoch))` with
    `e = min(epoch, decay_epoch)`, for each of `total_step` steps."""
    owner = "cosine_decay_lr"
    check_lr_range(owner, min_lr, max_lr)
    _check_steps(owner, total_step, step_per_epoch, "decay_epoch", decay_epoch)
    half_range = 0.5 * (max_lr - min_lr)
    lrs = []
    for i in range(total_step):
        epoch = min(i // step_per_epoch, decay_epoch)
        lrs.append(min_lr + half_range * (1 + math.cos(math.pi * epoch / decay_epoch)))
    return lrs


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch,
                        decay_epoch, power, update_decay_epoch=False):
    """`(learning_rate - end_learning_rate) * (1 - e / d) ** power + end_learning_rate` for each
    of `total_step` steps, with `e = min(epoch, decay_epoch)` and `d = decay_epoch`; with
    `update_decay_epoch`, `e = epoch` and `d` is the next multiple of `decay_epoch` at or past
    it (at least `decay_epoch`), so the decay restarts."""
    owner = "polynomial_decay_lr"
    check_positive_float(learning_rate, "learning_rate", owner, allow_int=False)
    check_non_negative_float(end_learning_rate, "end_learning_rate", owner, allow_int=False)
    check_positive_float(power, "power", owner, allow_int=False)
    _check_steps(owner, total_step, step_per_epoch, "decay_epoch", decay_epoch)
    check_bool(update_decay_epoch, "update_decay_epoch", owner)
    span = learning_rate - end_learning_rate
    lrs = []
    for i in range(total_step):
        epoch = i // step_per_epoch
        if update_decay_epoch:
            period = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            period, epoch = decay_epoch, min(epoch, decay_epoch)
        lrs.append(span * (1 - epoch / period) ** power + end_learning_rate)
    return lrs


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """`learning_rate * min(epoch, warmup_epoch) / warmup_epoch` for each of `total_step` steps:
    a linear ramp from 0 over `warmup_epoch` epochs."""
    owner = "warmup_lr"
    check_non_negative_float(learning_rate, "learning_rate", owner, allow_int=False)
    _check_steps(owner, total_step, step_per_epoch, "warmup_epoch", warmup_epoch)
    return [learning_rate * min(i // step_per_epoch, warmup_epoch) / warmup_epoch
            for i in range(total_step)]
