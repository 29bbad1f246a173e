"""Loss scale managers: the loss-scaling policy that `Model` and `build_train_network` turn
into a scale update cell for `nn.TrainOneStepWithLossScaleCell`."""
from .. import nn
from .._validator import check_bool, check_float_range, check_positive_float, check_positive_int

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]


class LossScaleManager:
    """Base of the loss scale managers: `get_loss_scale()`, `update_loss_scale(overflow)` and
    `get_update_cell()`."""

    def get_loss_scale(self):
        """The current loss scale."""
        raise NotImplementedError(f"'{type(self).__name__}' must define get_loss_scale()")

    def update_loss_scale(self, overflow):
        """Update the scale after a step; `overflow` tells whether the step overflowed."""
        raise NotImplementedError(f"'{type(self).__name__}' must define update_loss_scale()")

    def get_update_cell(self):
        """The cell `TrainOneStepWithLossScaleCell` calls to update the scale (or None)."""
        raise NotImplementedError(f"'{type(self).__name__}' must define get_update_cell()")


class FixedLossScaleManager(LossScaleManager):
    """A fixed loss scale.

    Args:
        loss_scale (float): the scale, >= 1. Default: 128.0.
        drop_overflow_update (bool): skip the optimizer on a step that overflows. When False,
            the optimizer's own `loss_scale` should equal `loss_scale`. Default: True.
    """

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        check_float_range(loss_scale, "loss_scale", "FixedLossScaleManager", low=1.0)
        self._loss_scale = loss_scale
        self._drop_overflow_update = check_bool(drop_overflow_update, "drop_overflow_update",
                                                "FixedLossScaleManager")

    def get_loss_scale(self):
        """The loss scale."""
        return self._loss_scale

    def get_drop_overflow_update(self):
        """Whether a step that overflows skips the optimizer."""
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """The scale is fixed: nothing to do."""

    def get_update_cell(self):
        """A `nn.FixedLossScaleUpdateCell` when overflowing steps are dropped, else None."""
        if not self._drop_overflow_update:
            return None
        return nn.FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale that is divided by `scale_factor` on overflow (not below 1) and multiplied
    by it after `scale_window` steps without overflow.

    Args:
        init_loss_scale (float): the initial scale, >= 1. Default: 2 ** 24.
        scale_factor (int): factor of increase and decrease, > 0. Default: 2.
        scale_window (int): overflow-free steps before an increase, > 0. Default: 2000.

    Raises:
        RuntimeError: from `update_loss_scale`, after more than 1000 consecutive overflows.
    """

    _MAX_BAD_STEPS = 1000

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        owner = "DynamicLossScaleManager"
        check_float_range(init_loss_scale, "init_loss_scale", owner, low=1.0)
        self.scale_window = check_positive_int(scale_window, "scale_window", owner)
        check_positive_float(scale_factor, "scale_factor", owner)
        self.loss_scale = init_loss_scale
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = self._MAX_BAD_STEPS
        self.bad_step = 0

    def get_loss_scale(self):
        """The current loss scale."""
        return self.loss_scale

    def get_drop_overflow_update(self):
        """Always True: a step that overflows skips the optimizer."""
        return True

    def update_loss_scale(self, overflow):
        """Divide the scale on overflow, multiply it after `scale_window` good steps."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"For 'DynamicLossScaleManager', the loss overflowed "
                               f"{self.bad_step} consecutive times, more than the maximum "
                               f"{self.bad_step_max}")
        self.cur_iter += 1

    def get_update_cell(self):
        """A `nn.DynamicLossScaleUpdateCell` starting from the current scale."""
        return nn.DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor,
                                             self.scale_window)
