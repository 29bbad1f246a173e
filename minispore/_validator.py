"""Argument checks for every public entry point, with one message style:
"For '<op>', the '<arg>' must be <what was expected>, but got <what came>."

Wrong kinds of value raise TypeError, values of the right kind out of range raise ValueError (as
MindSpore's own checks do). Each check returns the value normalised (a Python bool, int, float)
so callers can write `self.eps = check_positive_float(eps, "eps", "Adam")`.
"""
import numbers

import numpy as np

__all__ = [
    "check_type", "check_bool", "check_int", "check_positive_int", "check_non_negative_int",
    "check_int_range", "check_float", "check_positive_float", "check_non_negative_float",
    "check_float_range", "check_number", "check_one_of", "check_reduction", "check_callable",
    "type_name", "check_type_name", "check_class_list", "is_int", "check_sequence",
]


def type_name(value):
    return type(value).__name__


def _fail_type(value, arg, owner, expected):
    raise TypeError(f"For '{owner}', the '{arg}' must be {expected}, but got {type_name(value)}")


def check_type(value, types, arg, owner, expected=None):
    """`value` unchanged; a TypeError unless it is an instance of `types` (a class or tuple).
    `expected` words the expectation ("a Tensor"); by default it is built from the type names."""
    if not isinstance(value, types):
        if expected is None:
            names = [t.__name__ for t in (types if isinstance(types, tuple) else (types,))]
            expected = "a " + " or ".join(names)
        _fail_type(value, arg, owner, expected)
    return value


def check_bool(value, arg, owner):
    if not isinstance(value, (bool, np.bool_)):
        _fail_type(value, arg, owner, "a bool")
    return bool(value)


def _is_int(value):
    return isinstance(value, (numbers.Integral, np.integer)) and \
        not isinstance(value, (bool, np.bool_))


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def check_int(value, arg, owner):
    """`value` as a Python int; bools are refused."""
    if not _is_int(value):
        _fail_type(value, arg, owner, "an int")
    return int(value)


def check_int_range(value, arg, owner, low=None, high=None, low_inclusive=True,
                    high_inclusive=True):
    """An int in the interval between `low` and `high` (None: unbounded on that side)."""
    value = check_int(value, arg, owner)
    _check_interval(value, arg, owner, low, high, low_inclusive, high_inclusive)
    return value


def check_positive_int(value, arg, owner):
    return check_int_range(value, arg, owner, low=0, low_inclusive=False)


def check_non_negative_int(value, arg, owner):
    return check_int_range(value, arg, owner, low=0)


def check_number(value, arg, owner):
    """`value` unchanged (an int stays an int); a TypeError unless it is a real number (bools
    are refused)."""
    if not _is_real(value):
        _fail_type(value, arg, owner, "a number")
    return value


def check_float(value, arg, owner, allow_int=True):
    """`value` as a Python float; a TypeError unless it is a float (or an int with `allow_int`)."""
    ok = _is_real(value) if allow_int else isinstance(value, (float, np.floating))
    if not ok:
        _fail_type(value, arg, owner, "a float or int" if allow_int else "a float")
    return float(value)


def check_float_range(value, arg, owner, low=None, high=None, low_inclusive=True,
                      high_inclusive=True, allow_int=True):
    """A float in the interval between `low` and `high` (None: unbounded on that side); NaN is
    never in range."""
    value = check_float(value, arg, owner, allow_int)
    _check_interval(value, arg, owner, low, high, low_inclusive, high_inclusive)
    return value


def check_positive_float(value, arg, owner, allow_int=True):
    return check_float_range(value, arg, owner, low=0.0, low_inclusive=False, allow_int=allow_int)


def check_non_negative_float(value, arg, owner, allow_int=True):
    return check_float_range(value, arg, owner, low=0.0, allow_int=allow_int)


def _check_interval(value, arg, owner, low, high, low_inclusive, high_inclusive):
    above = low is None or (value >= low if low_inclusive else value > low)
    below = high is None or (value <= high if high_inclusive else value < high)
    if above and below:
        return
    if high is None:
        wanted = f"{'>=' if low_inclusive else '>'} {low}"
    elif low is None:
        wanted = f"{'<=' if high_inclusive else '<'} {high}"
    else:
        wanted = (f"in {'[' if low_inclusive else '('}{low}, {high}"
                  f"{']' if high_inclusive else ')'}")
    raise ValueError(f"For '{owner}', the '{arg}' must be {wanted}, but got {value}")


def check_one_of(value, allowed, arg, owner):
    """`value` unchanged; a ValueError unless it equals one of `allowed` (strings are compared
    only with strings, so 0 never matches False)."""
    for a in allowed:
        if _same_kind(value, a) and value == a:
            return value
    raise ValueError(f"For '{owner}', the '{arg}' must be one of {list(allowed)}, but got "
                     f"{value!r}")


def _same_kind(a, b):
    return isinstance(a, str) == isinstance(b, str) and \
        isinstance(a, (bool, np.bool_)) == isinstance(b, (bool, np.bool_))


REDUCTIONS = ("mean", "sum", "none")


def check_reduction(reduction, owner, allowed=REDUCTIONS):
    return check_one_of(reduction, allowed, "reduction", owner)


def check_callable(value, arg, owner):
    if not callable(value):
        _fail_type(value, arg, owner, "callable")
    return value


def check_type_name(value, allowed, arg, owner):
    """`value` unchanged; a TypeError unless it is one of `allowed`: `check_one_of` where
    MindSpore raises TypeError (a dtype among dtypes, as its `check_type_name`)."""
    for a in allowed:
        if value is a or (_same_kind(value, a) and value == a):
            return value
    raise TypeError(f"For '{owner}', the '{arg}' must be one of {list(allowed)}, but got "
                    f"{value!r}")


def check_class_list(values, bases, arg, owner):
    """`values` unchanged; a TypeError unless it is a list of classes derived from `bases` (a
    class or tuple)."""
    check_type(values, list, arg, owner, "a list")
    bases = bases if isinstance(bases, tuple) else (bases,)
    for value in values:
        if not isinstance(value, type):
            _fail_element(arg, owner, "a class", repr(value))
        if not issubclass(value, bases):
            _fail_element(arg, owner, f"a {' or '.join(b.__name__ for b in bases)} subclass",
                          value.__name__)
    return values


def _fail_element(arg, owner, expected, got):
    raise TypeError(f"For '{owner}', every element of '{arg}' must be {expected}, but got {got}")


def is_int(value):
    """True for an int (a NumPy integer too), False for a bool: the test `check_int` makes."""
    return _is_int(value)


def check_sequence(value, arg, owner, each=None, lengths=None, non_empty=False, expected=None):
    """`value` as a tuple; a TypeError unless it is a list or tuple, with a length in `lengths`
    (an int or ints; None: any) and, with `non_empty`, not empty. `each`, a check of this module,
    runs on every element as `each(element, "<arg>[k]", owner)` (bind other arguments with
    functools.partial) and its results make the tuple. `expected` words the expectation."""
    lengths = (lengths,) if isinstance(lengths, int) else lengths
    n = len(value) if isinstance(value, (list, tuple)) else -1
    if n < 0 or (lengths is not None and n not in lengths) or (non_empty and n == 0):
        if expected is None:
            expected = f"a {'non-empty ' if non_empty else ''}list or tuple"
            if lengths is not None:
                expected += f" of length {' or '.join(map(str, lengths))}"
        raise TypeError(f"For '{owner}', the '{arg}' must be {expected}, but got {value!r}")
    if each is None:
        return tuple(value)
    return tuple(each(v, f"{arg}[{k}]", owner) for k, v in enumerate(value))
