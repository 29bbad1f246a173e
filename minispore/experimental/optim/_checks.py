"""Argument checks shared by Adamax, NAdam and RAdam, through `_validator` (MindSpore 2.10's
ranges: lr, eps > 0; weight_decay >= 0; each beta in [0, 1))."""
from ..._validator import (check_float_range, check_non_negative_float, check_positive_float,
                           check_sequence)
from ...common.tensor import Tensor


def check_betas(betas, arg, owner):
    """A pair of floats, each in [0, 1); returned as a tuple of floats."""
    check_sequence(betas, arg, owner, lengths=(2,))
    return tuple(check_float_range(b, f"{arg}[{k}]", owner, low=0.0, high=1.0,
                                   high_inclusive=False) for k, b in enumerate(betas))


def check_lr_eps_decay(owner, lr, eps, weight_decay):
    if not isinstance(lr, Tensor):
        check_positive_float(lr, "lr", owner)
    check_positive_float(eps, "eps", owner)
    check_non_negative_float(weight_decay, "weight_decay", owner)
