"""Callbacks that act when a monitored value stops improving: `EarlyStopping` and
`ReduceLROnPlateau`."""
import warnings

import numpy as np

from ..._validator import (check_bool, check_float_range, check_non_negative_int, check_number,
                           check_one_of, check_type)
from ...common.tensor import Tensor
from ._callback import Callback, _as_float, _fixed_learning_rate, _handle_loss

__all__ = ["EarlyStopping", "ReduceLROnPlateau"]

# Monitors for which 'auto' mode means smaller is better (MindSpore's list).
_SMALLER_IS_BETTER = ("hausdorff_distance", "mae", "mse", "loss", "perplexity",
                      "mean_surface_distance", "root_mean_square_distance", "eval_loss")


class _PlateauMonitor(Callback):
    """Shared by EarlyStopping and ReduceLROnPlateau: the monitored value and what counts as
    an improvement."""

    def _init_monitor(self, monitor, mode, min_delta, verbose):
        owner = type(self).__name__
        self.monitor = check_type(monitor, str, "monitor", owner)
        self.mode = check_one_of(check_type(mode, str, "mode", owner), ("auto", "min", "max"),
                                 "mode", owner)
        self.min_delta = abs(check_number(min_delta, "min_delta", owner))
        self.verbose = check_bool(verbose, "verbose", owner)
        self._minimize = mode == "min" or (mode == "auto" and monitor in _SMALLER_IS_BETTER)
        self.best = self._worst()

    def _worst(self):
        return np.inf if self._minimize else -np.inf

    def is_improvement(self, current, reference):
        """Whether `current` beats `reference` by more than `min_delta`."""
        if self._minimize:
            return bool(np.less(current, reference - self.min_delta))
        return bool(np.greater(current, reference + self.min_delta))

    def _get_monitor_value(self, cb_params):
        """The monitored value as a float, or None (with a warning) when this epoch has none:
        'loss' is the step output; anything else comes from the epoch's evaluation in
        `Model.fit` (its metrics and 'eval_loss')."""
        owner = type(self).__name__
        candidates = {}
        if self.monitor == "loss":
            value = _handle_loss(cb_params.get("net_outputs"))
        else:
            candidates = cb_params.get("eval_results") or {}
            value = candidates.get(self.monitor)
        if value is None:
            warnings.warn(f"For '{owner}', the monitored value {self.monitor!r} is not "
                          f"available this epoch; available: {sorted({'loss', *candidates})}",
                          RuntimeWarning, stacklevel=3)
            return None
        if isinstance(value, (Tensor, np.ndarray)) and np.size(
                value.asnumpy() if isinstance(value, Tensor) else value) != 1:
            raise ValueError(f"For '{owner}', the monitored value {self.monitor!r} must be a "
                             f"scalar, but got shape {np.shape(value)}")
        current = _as_float(value)
        if current is None:
            raise TypeError(f"For '{owner}', the monitored value {self.monitor!r} must be a "
                            f"number, but got {type(value).__name__}")
        return current


class EarlyStopping(_PlateauMonitor):
    """Stops training when the monitored value has not improved for `patience` epochs.

    The value is read at the end of each epoch: `'loss'` is the last step's loss; any other
    name comes from the epoch's evaluation in `Model.fit` (a metric name or `'eval_loss'`);
    an epoch without it (no evaluation that epoch) is skipped with a warning.

    MindSpore 2.10 stops after the first epoch when `patience=0` even if the value improved,
    treats a monitored value of exactly 0 as missing, and uses `min_delta` in place of
    `baseline`; here `patience=0` stops at the first epoch without improvement, 0 is a value,
    and `baseline` is the baseline (the semantics of Keras's EarlyStopping, which MindSpore's
    mirrors argument for argument).

    Args:
        monitor (str): the value to watch. Default: 'eval_loss'.
        min_delta (float): a change smaller than this is no improvement. Default: 0.
        patience (int): epochs without improvement before stopping. Default: 0.
        verbose (bool): print when stopping. Default: False.
        mode (str): 'min', 'max', or 'auto' (min for losses and errors, max otherwise).
        baseline (float): the value must also beat this for the wait to reset. Default: None.
        restore_best_weights (bool): when stopping, put back the training network's
            parameters from the best epoch. Default: False.

    Raises:
        TypeError, ValueError: arguments of the wrong type or value.
    """

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto",
                 baseline=None, restore_best_weights=False):
        super().__init__()
        owner = "EarlyStopping"
        self._init_monitor(monitor, mode, min_delta, verbose)
        self.patience = check_non_negative_int(patience, "patience", owner)
        self.baseline = None if baseline is None else check_number(baseline, "baseline", owner)
        self.restore_best_weights = check_bool(restore_best_weights, "restore_best_weights",
                                               owner)
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights_param_dict = None

    def on_train_begin(self, run_context):
        """Reset the state for a new run."""
        self.wait = 0
        self.stopped_epoch = 0
        self.best = self._worst()
        self.best_weights_param_dict = None

    def on_train_epoch_end(self, run_context):
        """Compare the epoch's value with the best; stop when patience runs out."""
        cb_params = run_context.original_args()
        current = self._get_monitor_value(cb_params)
        if current is None:
            return
        network = cb_params.get("train_network")
        if self.restore_best_weights and self.best_weights_param_dict is None:
            self.best_weights_param_dict = _snapshot(network)
        self.wait += 1
        if self.is_improvement(current, self.best):
            self.best = current
            if self.restore_best_weights:
                self.best_weights_param_dict = _snapshot(network)
            if self.baseline is None or self.is_improvement(current, self.baseline):
                self.wait = 0
                return
        if self.wait >= self.patience:
            self.stopped_epoch = cb_params.get("cur_epoch_num")
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                _restore(network, self.best_weights_param_dict)

    def on_train_end(self, run_context):
        """Say that training stopped early (with `verbose`)."""
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping")


def _snapshot(network):
    """name -> copy of each parameter's value."""
    if network is None:
        return {}
    return {p.name: p.asnumpy().copy() for p in network.get_parameters()}


def _restore(network, values):
    for p in network.get_parameters():
        if p.name in values:
            p.assign_value(Tensor(values[p.name]))


class ReduceLROnPlateau(_PlateauMonitor):
    """Multiplies the optimizer's learning rate by `factor` when the monitored value has not
    improved for `patience` epochs (never below `min_lr`), then waits `cooldown` epochs before
    counting again. The value is read as in `EarlyStopping`.

    Only a fixed learning rate (a scalar Parameter) can be reduced, as in MindSpore.

    Args:
        monitor (str): the value to watch. Default: 'eval_loss'.
        factor (float): the multiplier, in (0, 1). Default: 0.1.
        patience (int): epochs without improvement before reducing. Default: 10.
        verbose (bool): print each reduction. Default: False.
        mode (str): 'min', 'max' or 'auto'. Default: 'auto'.
        min_delta (float): a change smaller than this is no improvement. Default: 1e-4.
        cooldown (int): epochs to wait after a reduction. Default: 0.
        min_lr (float): the lower bound. Default: 0.

    Raises:
        TypeError, ValueError: arguments of the wrong type or value; at the end of an epoch,
            ValueError if the optimizer's learning rate is dynamic or per group.
    """

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__()
        owner = "ReduceLROnPlateau"
        self._init_monitor(monitor, mode, min_delta, verbose)
        self.factor = check_float_range(factor, "factor", owner, 0.0, 1.0, low_inclusive=False,
                                        high_inclusive=False)
        self.patience = check_non_negative_int(patience, "patience", owner)
        self.cooldown = check_non_negative_int(cooldown, "cooldown", owner)
        self.min_lr = check_number(min_lr, "min_lr", owner)
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, run_context):
        """Reset the state for a new run."""
        self.cooldown_counter = 0
        self.wait = 0
        self.best = self._worst()

    def on_train_epoch_end(self, run_context):
        """Compare the epoch's value with the best; reduce the rate when patience runs out."""
        cb_params = run_context.original_args()
        lr = _fixed_learning_rate("ReduceLROnPlateau", cb_params.get("optimizer"))
        current = self._get_monitor_value(cb_params)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(lr.asnumpy().reshape(()))
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    lr.assign_value(Tensor(np.full(lr.shape, new, lr.asnumpy().dtype)))
                    if self.verbose:
                        print(f"Epoch {cb_params.cur_epoch_num:05d}: ReduceLROnPlateau reducing "
                              f"learning rate to {str(lr.asnumpy().reshape(()))}.")
                self.cooldown_counter = self.cooldown
                self.wait = 0
