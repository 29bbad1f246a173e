"""Argument checks shared by optimizers and learning-rate schedules, with MindSpore-style messages
("For 'Adam', the 'beta1' must be ...")."""
import numbers

import numpy as np


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_float(value, arg, owner, allow_int=True):
    """`value` as a Python float; a TypeError unless it is a float (or an int with `allow_int`)."""
    ok = _is_real(value) if allow_int else isinstance(value, (float, np.floating))
    if not ok:
        kind = "float or int" if allow_int else "float"
        raise TypeError(f"For '{owner}', the '{arg}' must be a {kind}, but got "
                        f"{type(value).__name__}")
    return float(value)


def check_non_negative_float(value, arg, owner, allow_int=True):
    value = check_float(value, arg, owner, allow_int)
    if not value >= 0.0:
        raise ValueError(f"For '{owner}', the '{arg}' must be >= 0, but got {value}")
    return value


def check_positive_float(value, arg, owner, allow_int=True):
    value = check_float(value, arg, owner, allow_int)
    if not value > 0.0:
        raise ValueError(f"For '{owner}', the '{arg}' must be > 0, but got {value}")
    return value


def check_float_range(value, arg, owner, low, high, low_inclusive, high_inclusive,
                      allow_int=True):
    """A float in the interval between `low` and `high`, ends included as the flags say."""
    value = check_float(value, arg, owner, allow_int)
    above = value >= low if low_inclusive else value > low
    below = value <= high if high_inclusive else value < high
    if not (above and below):
        interval = f"{'[' if low_inclusive else '('}{low}, {high}{']' if high_inclusive else ')'}"
        raise ValueError(f"For '{owner}', the '{arg}' must be in {interval}, but got {value}")
    return value


def check_positive_int(value, arg, owner):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"For '{owner}', the '{arg}' must be an int, but got "
                        f"{type(value).__name__}")
    if value <= 0:
        raise ValueError(f"For '{owner}', the '{arg}' must be > 0, but got {value}")
    return int(value)


def check_bool(value, arg, owner):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"For '{owner}', the '{arg}' must be a bool, but got "
                        f"{type(value).__name__}")
    return bool(value)
