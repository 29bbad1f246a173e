"""Torch-style learning-rate schedulers for `experimental.optim` optimizers: each `step()`
writes new rates into the optimizer's per-group learning-rate Parameters."""
import math
from bisect import bisect_right
from collections import Counter

from ..._validator import (check_callable, check_float, check_float_range, check_int,
                           check_int_range, check_non_negative_float, check_type)
from ...common._writes import bump_version
from ...common.tensor import Tensor
from .optimizer import Optimizer

__all__ = [
    "ConstantLR",
    "CosineAnnealingLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "PolynomialLR",
    "SequentialLR",
    "StepLR",
]


def _check_optimizer(optimizer, owner):
    check_type(optimizer, Optimizer, "optimizer", owner, "an experimental.optim Optimizer")


def _set_lr(optimizer, group_id, value):
    """Write `value` into group `group_id`'s learning-rate Parameter (restoring it as the
    group's 'lr' if the user replaced it with a number)."""
    lr = optimizer.lrs[group_id]
    lr._data[...] = value
    bump_version(lr)
    optimizer.param_groups[group_id]["lr"] = lr


class LRScheduler:
    """Base class: `get_lr()` gives each group's rate at `last_epoch` from the current rates
    (PyTorch's chainable form); `step()` advances `last_epoch` and applies it.

    Args:
        optimizer (experimental.optim.Optimizer): the optimizer whose rates to drive.
        last_epoch (int): the index of the last epoch; -1 starts afresh from each group's
            current 'lr' (recorded as 'initial_lr'). Default: -1.
    """

    def __init__(self, optimizer, last_epoch=-1):
        owner = type(self).__name__
        _check_optimizer(optimizer, owner)
        check_int_range(last_epoch, "last_epoch", owner, low=-1)
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", float(optimizer.lrs[i]._data))
            elif "initial_lr" not in group:
                raise KeyError(f"For '{owner}', param_groups[{i}] has no 'initial_lr': resuming "
                               f"(last_epoch={last_epoch}) needs it")
        self.optimizer = optimizer
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self._last_lr = list(optimizer.lrs)
        self.groups_num = len(optimizer.param_groups)
        self.last_epoch = last_epoch
        self.step()

    def _current_lrs(self):
        return [float(lr._data) for lr in self._last_lr]

    def get_lr(self):
        raise NotImplementedError(f"'{type(self).__name__}' must define get_lr()")

    def get_last_lr(self):
        """The learning rate of each group after the last `step()`, as float32 Tensors."""
        return [Tensor(lr._data.copy()) for lr in self._last_lr]

    def step(self, epoch=None):
        """Advance one epoch (or jump to `epoch`, using the closed form where there is one) and
        write the new rates into the optimizer."""
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = int(epoch)
            closed_form = getattr(self, "_get_closed_form_lr", None)
            values = closed_form() if closed_form is not None else self.get_lr()
        for i, value in enumerate(values):
            _set_lr(self.optimizer, i, value)
        return True


class StepLR(LRScheduler):
    """Multiply the rate by `gamma` every `step_size` epochs.

    Args:
        optimizer (experimental.optim.Optimizer): the optimizer.
        step_size (int): the period.
        gamma (float): the factor. Default: 0.1.
        last_epoch (int): Default: -1.
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = check_int(step_size, "step_size", "StepLR")
        self.gamma = check_float(gamma, "gamma", "StepLR", allow_int=False)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current_lrs()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return lrs
        return [lr * self.gamma for lr in lrs]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by `gamma` at each milestone epoch (by `gamma**k` for a milestone
    listed k times).

    Args:
        optimizer (experimental.optim.Optimizer): the optimizer.
        milestones (list[int]): the epochs.
        gamma (float): the factor. Default: 0.1.
        last_epoch (int): Default: -1.
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        check_type(milestones, list, "milestones", "MultiStepLR")
        self.milestones = Counter(check_int(m, f"milestones[{k}]", "MultiStepLR")
                                  for k, m in enumerate(milestones))
        self.gamma = check_float(gamma, "gamma", "MultiStepLR")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        count = self.milestones.get(self.last_epoch, 0)
        return [lr * self.gamma ** count for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        # MindSpore 2.10's closed form reads a `step_size` MultiStepLR lacks; this is PyTorch's.
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by `gamma` every epoch.

    Args:
        optimizer (experimental.optim.Optimizer): the optimizer.
        gamma (float): the factor.
        last_epoch (int): Default: -1.
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = check_float(gamma, "gamma", "ExponentialLR", allow_int=False)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current_lrs()
        return lrs if self.last_epoch == 0 else [lr * self.gamma for lr in lrs]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the initial rate to `eta_min` over `T_max` epochs, then back up
    (a cosine of period `2 * T_max`), in PyTorch's recursive form.

    Args:
        optimizer (experimental.optim.Optimizer): the optimizer.
        T_max (int): half the period.
        eta_min (float): the lowest rate. Default: 0.0.
        last_epoch (int): Default: -1.
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.eta_min = check_float(eta_min, "eta_min", "CosineAnnealingLR")
        self.T_max = check_int(T_max, "T_max", "CosineAnnealingLR")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, epoch, period = self._current_lrs(), self.last_epoch, self.T_max
        if epoch == 0:
            return lrs
        if (epoch - 1 - period) % (2 * period) == 0:
            rise = (1 - math.cos(math.pi / period)) / 2
            return [lr + (base - self.eta_min) * rise for base, lr in zip(self.base_lrs, lrs)]
        ratio = ((1 + math.cos(math.pi * epoch / period))
                 / (1 + math.cos(math.pi * (epoch - 1) / period)))
        return [ratio * (lr - self.eta_min) + self.eta_min for lr in lrs]

    def _get_closed_form_lr(self):
        cosine = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
        return [self.eta_min + (base - self.eta_min) * cosine for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rate linearly from `start_factor` to `end_factor` over `total_iters` epochs.

    Args:
        optimizer (experimental.optim.Optimizer): the optimizer.
        start_factor (float): in (0, 1]. Default: 1/3.
        end_factor (float): in [0, 1]. Default: 1.0.
        total_iters (int): Default: 5.
        last_epoch (int): Default: -1.
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        self.start_factor = check_float_range(start_factor, "start_factor", "LinearLR", 0.0, 1.0,
                                              low_inclusive=False)
        self.end_factor = check_float_range(end_factor, "end_factor", "LinearLR", 0.0, 1.0)
        self.total_iters = check_int(total_iters, "total_iters", "LinearLR")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, epoch = self._current_lrs(), self.last_epoch
        if epoch == 0:
            return [lr * self.start_factor for lr in lrs]
        if epoch > self.total_iters:
            return lrs
        change = self.end_factor - self.start_factor
        factor = 1.0 + change / (self.total_iters * self.start_factor + (epoch - 1) * change)
        return [lr * factor for lr in lrs]

    def _get_closed_form_lr(self):
        fraction = min(self.total_iters, self.last_epoch) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * fraction
        return [base * factor for base in self.base_lrs]


class _LambdaScheduler(LRScheduler):
    """A scheduler driven by `lr_lambda`: a function of the epoch, or a list of one per
    group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        owner = type(self).__name__
        _check_optimizer(optimizer, owner)
        count = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != count:
                raise ValueError(f"For '{owner}', expected {count} lr_lambdas (one per group), "
                                 f"but got {len(lr_lambda)}")
            self.lr_lambdas = [check_callable(fn, f"lr_lambda[{k}]", owner)
                               for k, fn in enumerate(lr_lambda)]
        else:
            self.lr_lambdas = [check_callable(lr_lambda, "lr_lambda", owner)] * count
        super().__init__(optimizer, last_epoch)


class LambdaLR(_LambdaScheduler):
    """The rate is `initial_lr * lr_lambda(epoch)`.

    Args:
        optimizer (experimental.optim.Optimizer): the optimizer.
        lr_lambda (Union[Callable, list[Callable]]): a function of the epoch, or one per group.
        last_epoch (int): Default: -1.
    """

    def get_lr(self):
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    """Multiply the rate by `lr_lambda(epoch)` every epoch after the first.

    Args:
        optimizer (experimental.optim.Optimizer): the optimizer.
        lr_lambda (Union[Callable, list[Callable]]): a function of the epoch, or one per group.
        last_epoch (int): Default: -1.
    """

    def get_lr(self):
        lrs = self._current_lrs()
        if self.last_epoch > 0:
            return [lr * fn(self.last_epoch) for fn, lr in zip(self.lr_lambdas, lrs)]
        return lrs


class ConstantLR(LRScheduler):
    """Multiply the rate by `factor` until epoch `total_iters`, then restore it.

    Args:
        optimizer (experimental.optim.Optimizer): the optimizer.
        factor (float): in [0, 1]. Default: 1/3.
        total_iters (int): Default: 5.
        last_epoch (int): Default: -1.
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        self.factor = check_float_range(factor, "factor", "ConstantLR", 0.0, 1.0)
        self.total_iters = check_int(total_iters, "total_iters", "ConstantLR")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current_lrs()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in lrs]
        if self.last_epoch != self.total_iters:
            return lrs
        return [lr / self.factor for lr in lrs]

    def _get_closed_form_lr(self):
        reached = self.last_epoch >= self.total_iters
        return [base * (self.factor + reached * (1 - self.factor)) for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the rate as `(1 - epoch / total_iters) ** power` until `total_iters`.

    Args:
        optimizer (experimental.optim.Optimizer): the optimizer.
        total_iters (int): Default: 5.
        power (float): >= 0. Default: 1.0.
        last_epoch (int): Default: -1.
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.power = check_non_negative_float(power, "power", "PolynomialLR", allow_int=False)
        self.total_iters = check_int(total_iters, "total_iters", "PolynomialLR")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, epoch, total = self._current_lrs(), self.last_epoch, self.total_iters
        if epoch == 0 or epoch > total:
            return lrs
        factor = ((1.0 - epoch / total) / (1.0 - (epoch - 1) / total)) ** self.power
        return [lr * factor for lr in lrs]

    def _get_closed_form_lr(self):
        remaining = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * remaining ** self.power for base in self.base_lrs]


class SequentialLR:
    """Run `schedulers[i]` between `milestones[i-1]` and `milestones[i]`; each scheduler
    restarts (epoch 0, from the initial rates) at its milestone.

    Args:
        optimizer (experimental.optim.Optimizer): the optimizer all the schedulers drive.
        schedulers (list[LRScheduler]): one more than the milestones.
        milestones (list[int]): the epochs at which to switch.
        last_epoch (int): Default: -1.
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_optimizer(optimizer, "SequentialLR")
        for k, scheduler in enumerate(schedulers):
            if getattr(scheduler, "optimizer", None) is not optimizer:
                raise ValueError(f"For 'SequentialLR', every scheduler must drive the given "
                                 f"optimizer, but scheduler {k} drives another")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"For 'SequentialLR', expected one milestone fewer than "
                             f"schedulers, but got {len(schedulers)} schedulers and "
                             f"{len(milestones)} milestones")
        self._schedulers = list(schedulers)
        self.milestones = list(milestones)
        self.optimizer = optimizer
        self.last_epoch = last_epoch + 1
        # Building the schedulers stepped each once; undo that and restart the first.
        for i, group in enumerate(optimizer.param_groups):
            _set_lr(optimizer, i, group["initial_lr"])
        for scheduler in self._schedulers:
            scheduler.last_epoch -= 1
        self._schedulers[0].step()
        self._last_lr = self._schedulers[0]._last_lr

    def step(self):
        """Advance one epoch with the scheduler whose stretch this epoch is in."""
        self.last_epoch += 1
        index = bisect_right(self.milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self.milestones[index - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        return True

    def get_last_lr(self):
        """The learning rate of each group after the last `step()`, as float32 Tensors."""
        return [Tensor(lr._data.copy()) for lr in self._last_lr]
