"""Loss scaling for mixed precision: the scale update cells and TrainOneStepWithLossScaleCell,
which skips the update of a step whose gradients overflow."""
import numpy as np

from ..._autodiff.tape import const
from ..._validator import check_positive_float, check_positive_int, check_type
from ...common import dtype as mstype
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops.function.array_func import identity
from ...ops.operations import array_ops as A
from ...ops.operations.math_ops import cast
from ...ops.primitive import data_function
from ..cell import Cell
from .cell_wrapper import TrainOneStepCell

__all__ = ["DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell",
           "TrainOneStepWithLossScaleCell"]

_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _overflowed(*arrays):
    """True (0-d bool) when any of the arrays holds an inf or a NaN."""
    return np.array(any(a.dtype.kind in "fc" and not np.isfinite(a).all() for a in arrays))


class DynamicLossScaleUpdateCell(Cell):
    # Python on the scale's and the counters' values that writes them: graph mode runs it as a
    # host call at every replay, as it does optimizers.
    _jit_host = True

    """Updates a loss scale after each step: on overflow it is divided by `scale_factor` at once
    (but not below 1); after `scale_window` consecutive steps without overflow it is multiplied
    by `scale_factor`.

    Called as `cell(loss_scale, overflow)` with `loss_scale` the Parameter to update in place;
    returns `overflow`.

    Args:
        loss_scale_value (float): the initial loss scale (`get_loss_scale()` returns it).
        scale_factor (int): factor of increase and decrease.
        scale_window (int): overflow-free steps before an increase.
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        owner = type(self).__name__
        self.scale_window = check_positive_int(scale_window, "scale_window", owner)
        check_positive_float(scale_factor, "scale_factor", owner)
        self.loss_scale_value = loss_scale_value
        self.scale_factor = scale_factor
        self.cur_iter = Parameter(Tensor(1, mstype.int32), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(0, mstype.int32),
                                            name="last_overflow_iterator_step")

    def get_loss_scale(self):
        """The initial loss scale value."""
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        check_type(loss_scale, Parameter, "loss_scale", type(self).__name__,
                   "the Parameter to update")
        overflowed = bool(overflow)  # a value guard under graph capture
        cur = int(self.cur_iter._data)
        scale = float(np.asarray(loss_scale._data).reshape(-1)[0])
        grow = cur - int(self.last_overflow_iter._data) >= self.scale_window
        if overflowed:
            scale = max(scale / self.scale_factor, 1.0)
        elif grow and scale * self.scale_factor <= _FLOAT32_MAX:
            scale = scale * self.scale_factor  # (MindSpore would let it grow to inf)
        if overflowed or grow:
            self.last_overflow_iter.assign_value(Tensor(cur, mstype.int32))
        loss_scale.assign_value(Tensor(np.full(loss_scale.shape, scale,
                                               loss_scale._data.dtype)))
        self.cur_iter.assign_value(Tensor(cur + 1, mstype.int32))
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """A loss scale that never changes; called as `cell(loss_scale, overflow)`, returns
    `overflow` (so TrainOneStepWithLossScaleCell still skips overflowing steps).

    Args:
        loss_scale_value (float): the loss scale.
    """

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self):
        """The loss scale value."""
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """A training step with loss scaling: the gradients are computed with the loss scale as the
    sensitivity, divided by it, and checked for inf/NaN. A step that overflows leaves every
    parameter and optimizer state untouched; the scale update cell (if any) then adjusts the
    scale. Returns `(loss, overflow, loss_scale)`: the unscaled loss from before the update, a
    0-d bool Tensor, and the scale after this step's adjustment (a copy).

    Unlike MindSpore 2.10, whose float-status kernels are missing on CPU, the overflow check
    works on any device here.

    Args:
        network (Cell): the network with its loss; a single output.
        optimizer (Cell): the optimizer.
        scale_sense (Union[Cell, Tensor]): a `DynamicLossScaleUpdateCell` /
            `FixedLossScaleUpdateCell`, or a Tensor of shape () or (1,) holding a scale that only
            `set_sense_scale` changes.

    Raises:
        TypeError: `scale_sense` neither a Cell nor a Tensor.
        ValueError: a Tensor `scale_sense` of another shape.
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        owner = type(self).__name__
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(float(scale_sense.get_loss_scale()),
                                                mstype.float32), name="scale_sense")
        else:
            check_type(scale_sense, Tensor, "scale_sense", owner, "a Cell or a Tensor")
            if scale_sense.shape not in ((), (1,)):
                raise ValueError(f"For '{owner}', the shape of 'scale_sense' must be (1,) or (), "
                                 f"but got {scale_sense.shape}")
            self.scale_sense = Parameter(scale_sense, name="scale_sense")

    def construct(self, *inputs):
        scale = self.scale_sense
        sens = identity(A.reshape(scale, ()) if scale.shape else scale)  # grads may alias it
        # Overflow is what this step detects and reports: NumPy need not warn about it.
        with np.errstate(over="ignore", invalid="ignore"):
            loss, grads = self._forward_and_grads(inputs, sens)
            reciprocal = 1.0 / sens
            grads = tuple(g * cast(reciprocal, g.dtype) for g in grads)
        grads = self.grad_reducer(grads)
        status, _ = self.start_overflow_check(loss, None)
        cond = self.get_overflow_status(status, grads)
        # `cond` is read before the scale update writes anything, so that graph mode guards it
        # and replays (or captures) each branch; the update cells return `cond` itself.
        overflowed = bool(cond)
        overflow = self.process_loss_scale(cond)
        if not (overflowed if overflow is cond else bool(overflow)):
            self.optimizer(grads)
        return loss, cond, identity(self.scale_sense)  # a Tensor copy (Parameter.copy: a Parameter)

    def set_sense_scale(self, sens):
        """Set a new loss scale (a Tensor of the current one's shape and dtype)."""
        check_type(sens, Tensor, "sens", type(self).__name__)
        self.scale_sense.set_data(sens)

    def start_overflow_check(self, pre_cond, compute_input):
        """Start overflow detection (clears the device's float status on Ascend; nothing to
        clear here). Returns `(status, compute_input)` for `get_overflow_status`."""
        return const(np.zeros(8, np.int32)), compute_input

    def get_overflow_status(self, status, compute_output):
        """A 0-d bool Tensor: True when any Tensor in `compute_output` holds an inf or NaN."""
        outputs = compute_output if isinstance(compute_output, (tuple, list)) else \
            (compute_output,)
        return data_function(_overflowed, *[g if isinstance(g, Tensor) else const(np.asarray(g))
                                            for g in outputs])

    def process_loss_scale(self, overflow):
        """Run the scale update cell (if any) on `overflow`; returns the overflow flag."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow
