"""Argument checks shared by the optimizers added after Adam, through `_validator` (MindSpore
2.10's ranges: lr > 0; each beta in [0, 1)). The other hyper-parameters are checked per group
by each optimizer's `_checks`."""
from ..._validator import check_float_range, check_positive_float, check_sequence
from ...common.tensor import Tensor


def check_betas(betas, arg, owner):
    """A pair of floats, each in [0, 1); returned as a tuple of floats."""
    check_sequence(betas, arg, owner, lengths=(2,))
    return tuple(check_float_range(b, f"{arg}[{k}]", owner, low=0.0, high=1.0,
                                   high_inclusive=False) for k, b in enumerate(betas))


def check_lr(lr, owner):
    """The default `lr` > 0 (a Tensor learning rate is checked when it becomes a Parameter)."""
    if not isinstance(lr, Tensor):
        check_positive_float(lr, "lr", owner)
