"""Loss scalers for the functional training loop: scale the loss, unscale the gradients, check
them with `all_finite` and `adjust` the scale."""
from abc import ABC, abstractmethod

import numpy as np

from .._autodiff.tape import const, write_in_place
from .._validator import check_float_range, check_positive_int, check_type
from ..common import dtype as mstype
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..ops.function import math_func as MF
from ..ops.operations import math_ops as M
from ..ops.primitive import data_function

__all__ = ["LossScaler", "StaticLossScaler", "DynamicLossScaler", "all_finite"]


_NESTED = "a Tensor or a tuple/list of Tensors"


def _tensors(inputs):
    if isinstance(check_type(inputs, (Tensor, tuple, list), "inputs", "all_finite", _NESTED),
                  Tensor):
        yield inputs
    else:
        for x in inputs:
            yield from _tensors(x)


def all_finite(inputs):
    """A 0-d bool Tensor: True when no Tensor in `inputs` (a tuple or list, possibly nested, or a
    single Tensor) holds an inf or a NaN. One DataFunction node, so a jitted step replays the
    check on each step's gradients."""
    return data_function(_all_finite, *_tensors(inputs))


def _all_finite(*arrays):
    return np.array(all(a.dtype.kind not in "fc" or np.isfinite(a).all() for a in arrays))


def _map(inputs, fn, op):
    """fn applied to every Tensor of `inputs`, keeping the tuple/list structure."""
    if isinstance(check_type(inputs, (Tensor, tuple, list), "inputs", op, _NESTED), Tensor):
        return fn(inputs)
    return type(inputs)(_map(x, fn, op) for x in inputs)


def _scale_parameter(owner, scale_value):
    """The Parameter `scale_value` holding a scale >= 1."""
    value = check_float_range(scale_value, "scale_value", owner, low=1.0)
    return Parameter(Tensor(value, mstype.float32), name="scale_value")


def _finite_flag(grads_finite):
    """`grads_finite` (a Tensor or a bool) as a 0-d bool Tensor."""
    if isinstance(grads_finite, Tensor):
        return M.cast(grads_finite.reshape(()), mstype.bool_)
    return const(np.array(bool(grads_finite)))


class LossScaler(ABC):
    """Interface of the loss scalers: `scale` the loss, `unscale` the gradients, `adjust` the
    scale from whether the gradients were finite."""

    @abstractmethod
    def scale(self, inputs):
        """`inputs` multiplied by the scale."""

    @abstractmethod
    def unscale(self, inputs):
        """`inputs` divided by the scale."""

    @abstractmethod
    def adjust(self, grads_finite):
        """Update the scale from a 0-d bool Tensor telling whether the gradients were finite."""

    # The scale is read through ops (a graph-mode trace reads the Parameter at every replay); a
    # scale beyond float16's range casts to inf, which is what loss scaling exists to detect.
    def _scale(self, inputs):
        scale = self.scale_value
        return _map(inputs, lambda x: x * M.cast(scale, x.dtype), "scale")

    def _unscale(self, inputs):
        reciprocal = 1.0 / self.scale_value
        return _map(inputs, lambda x: x * M.cast(reciprocal, x.dtype), "unscale")


class StaticLossScaler(LossScaler):
    """A constant loss scale.

    Args:
        scale_value (Union[float, int]): the scale, >= 1 (kept in the Parameter
            `scale_value`).
    """

    def __init__(self, scale_value):
        self.scale_value = _scale_parameter("StaticLossScaler", scale_value)

    def scale(self, inputs):
        """`inputs` (a Tensor or a tuple/list of them) times the scale, in their dtypes."""
        return self._scale(inputs)

    def unscale(self, inputs):
        """`inputs` times the reciprocal of the scale, in their dtypes."""
        return self._unscale(inputs)

    def adjust(self, grads_finite):
        """The scale is fixed: returns False."""
        return False


class DynamicLossScaler(LossScaler):
    """A loss scale that adapts: when the gradients are not finite it is divided by
    `scale_factor` at once (not below 1) and the count of good steps restarts; after
    `scale_window` consecutive finite steps it is multiplied by `scale_factor` (unless that
    would overflow float32).

    Args:
        scale_value (Union[float, int]): the initial scale, >= 1 (kept in the Parameter
            `scale_value`).
        scale_factor (int): factor of increase and decrease, > 0.
        scale_window (int): finite steps before an increase, > 0.

    Example:
        >>> loss_scaler = amp.DynamicLossScaler(2 ** 16, 2, 1000)
        >>> def forward(x, y):
        ...     return loss_scaler.scale(loss_fn(net(x), y))
        >>> loss, grads = ms.value_and_grad(forward, None, optimizer.parameters)(x, y)
        >>> loss, grads = loss_scaler.unscale(loss), loss_scaler.unscale(grads)
        >>> is_finite = amp.all_finite(grads)
        >>> if is_finite:
        ...     optimizer(grads)
        >>> loss_scaler.adjust(is_finite)
    """

    def __init__(self, scale_value, scale_factor, scale_window):
        owner = "DynamicLossScaler"
        self.scale_value = _scale_parameter(owner, scale_value)
        self.scale_window = check_positive_int(scale_window, "scale_window", owner)
        self.scale_factor = check_positive_int(scale_factor, "scale_factor", owner)
        self.counter = Parameter(Tensor(0, mstype.int32), name="counter")

    def scale(self, inputs):
        """`inputs` (a Tensor or a tuple/list of them) times the scale, in their dtypes."""
        return self._scale(inputs)

    def unscale(self, inputs):
        """`inputs` times the reciprocal of the scale, in their dtypes."""
        return self._unscale(inputs)

    def adjust(self, grads_finite):
        """Update the scale and the counter of finite steps from `grads_finite` (a 0-d bool
        Tensor or a bool); returns True. Computed with ops and written in place, without
        branching in Python, so that a jitted step replays it."""
        finite = _finite_flag(grads_finite)
        scale, counter = self.scale_value, self.counter
        factor = float(self.scale_factor)
        shrunk = MF.maximum(scale / factor, 1.0)
        grown = scale * factor  # inf past float32's range: the scale then stays
        at_window = counter == self.scale_window - 1
        grow = MF.logical_and(at_window, MF.isfinite(grown))
        new_scale = M.select(finite, M.select(grow, grown, scale), shrunk)
        new_counter = M.select(finite, (counter + 1) % self.scale_window, counter * 0)
        write_in_place(scale, new_scale)
        write_in_place(counter, new_counter)
        return True
