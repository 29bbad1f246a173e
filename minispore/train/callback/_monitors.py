"""Callbacks that report or record a run: `LossMonitor`, `TimeMonitor`, `History`,
`LambdaCallback`."""
import os
import time

import numpy as np

from ..._validator import check_bool, check_callable, check_non_negative_int, check_positive_int
from ...common.tensor import Tensor
from ._callback import Callback, _handle_loss

__all__ = ["History", "LambdaCallback", "LossMonitor", "TimeMonitor"]


class LossMonitor(Callback):
    """Prints the loss every `per_print_times` steps, as
    `epoch: {epoch} step: {step in epoch}, loss is {loss}`, and, in `Model.fit`, the epoch's
    evaluation results as `Eval result: epoch {epoch}, metrics: {metrics}`.

    A plain Tensor loss prints as a Python float (its mean); for a tuple output (a loss-scale
    train cell's `(loss, overflow, scale)`) the first element prints as a Tensor, as MindSpore
    prints it.

    Args:
        per_print_times (int): print every this many steps; 0 never prints. Default: 1.

    Raises:
        TypeError: `per_print_times` not an int.
        ValueError: `per_print_times` negative; during the run, a NaN or infinite loss (training
            stops).
    """

    def __init__(self, per_print_times=1):
        super().__init__()
        self._per_print_times = check_non_negative_int(per_print_times, "per_print_times",
                                                       "LossMonitor")
        self._last_print_time = 0

    def on_train_begin(self, run_context):
        """A new run counts from its own first step (and calls `begin`)."""
        self._last_print_time = run_context.original_args().get("cur_step_num", 0) or 0
        self.begin(run_context)

    def step_end(self, run_context):
        """Print the loss when `per_print_times` steps passed since the last print."""
        cb_params = run_context.original_args()
        cur_epoch_num = cb_params.get("cur_epoch_num", 1)
        loss = _handle_loss(cb_params.get("net_outputs"))
        step = cb_params.cur_step_num
        cur_step_in_epoch = (step - 1) % cb_params.batch_num + 1
        if isinstance(loss, float) and not np.isfinite(loss):
            raise ValueError(f"In epoch: {cur_epoch_num} step: {cur_step_in_epoch}, loss is NAN "
                             f"or INF, training process cannot continue, terminating training.")
        if self._per_print_times == 0:
            return
        if step <= self._last_print_time:  # the step count went back (an eval, a new run)
            self._last_print_time = step - 1 - (step - 1) % self._per_print_times
        if step - self._last_print_time >= self._per_print_times:
            self._last_print_time = step
            print(f"epoch: {cur_epoch_num} step: {cur_step_in_epoch}, loss is {loss}",
                  flush=True)

    def on_train_epoch_end(self, run_context):
        """Print the epoch's evaluation results when `Model.fit` evaluated this epoch."""
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            print(f"Eval result: epoch {cb_params.cur_epoch_num}, metrics: {metrics}", flush=True)


class TimeMonitor(Callback):
    """Prints each epoch's duration, `Train epoch time: {ms:5.3f} ms, per step time:
    {ms:5.3f} ms` (`Eval ...` for an evaluation pass), with the average time spent waiting
    for data when `data_time` is True.

    Args:
        data_size (int): steps per epoch, used when the run does not know its `batch_num`.
            Default: None.
        data_time (bool): also report the time per step spent fetching data. Default: False.

    Raises:
        TypeError: `data_size` not an int, `data_time` not a bool.
        ValueError: `data_size` < 1.
    """

    def __init__(self, data_size=None, data_time=False):
        super().__init__()
        if data_size is not None:
            check_positive_int(data_size, "data_size", "TimeMonitor")
        self.data_size = data_size
        self.data_time = check_bool(data_time, "data_time", "TimeMonitor")
        self.epoch_time = time.time()
        self.data_time_sum = 0.0
        self.data_time_start = 0.0

    def on_train_step_begin(self, run_context):
        """Count the time since the previous step ended as data time."""
        if self.data_time:
            self.data_time_sum += time.time() - self.data_time_start

    def on_train_step_end(self, run_context):
        """Start the data-time clock."""
        if self.data_time:
            self.data_time_start = time.time()

    def epoch_begin(self, run_context):
        """Start the epoch clock."""
        self.epoch_time = time.time()
        if self.data_time:
            self.data_time_sum = 0.0
            self.data_time_start = time.time()

    def epoch_end(self, run_context):
        """Print the epoch's time and time per step."""
        epoch_ms = (time.time() - self.epoch_time) * 1000
        cb_params = run_context.original_args()
        steps = cb_params.get("batch_num")
        if not isinstance(steps, int) or isinstance(steps, bool) or steps <= 0:
            steps = self.data_size
        if steps is None:
            raise ValueError("For 'TimeMonitor', the run does not say how many steps an epoch "
                             "has: pass 'data_size'")
        mode = cb_params.get("mode", "")
        line = (f"{mode.title()} epoch time: {epoch_ms:5.3f} ms, per step time: "
                f"{epoch_ms / steps:5.3f} ms")
        if self.data_time:
            line += f" (data time: {self.data_time_sum * 1000 / steps:5.3f} ms)"
        print(line, flush=True)


class History(Callback):
    """Records, at the end of each epoch, the network output (the mean loss, as a Python float;
    MindSpore keeps a NumPy float32) under
    `'net_output'` and, in `Model.fit`, each evaluation metric under its name:
    `history.history == {'net_output': [...], 'acc': [...]}`; `history.epoch == {'epoch':
    [1, 2, ...]}`. A new run restarts `epoch` and appends to `history`."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = None

    def begin(self, run_context):
        """Start a new epoch list."""
        self.epoch = {"epoch": []}

    def epoch_end(self, run_context):
        """Record the epoch's output and metrics."""
        cb_params = run_context.original_args()
        if self.epoch is None:
            self.epoch = {"epoch": []}
        self.epoch["epoch"].append(cb_params.get("cur_epoch_num", 1))
        output = cb_params.get("net_outputs")
        if isinstance(output, (tuple, list)) and output and isinstance(output[0], Tensor):
            output = output[0]
        if isinstance(output, Tensor):
            output = float(np.mean(output.asnumpy()))
        record = {"net_output": output}
        record.update(cb_params.get("metrics") or {})
        for key, value in record.items():
            self.history.setdefault(key, []).append(value)

    def plot(self, path, title=None):
        """Write a PNG of the recorded loss and metrics per epoch to `path` (its directory is
        made if missing): one panel for the losses (train 'net_output', evaluation losses), one
        per other metric, side by side, 500 x 360 pixels each. Returns `path`. Needs
        matplotlib (`pip install 'minispore[plot]'`).

        Raises:
            TypeError: `path` not a str or os.PathLike.
            ValueError: nothing recorded yet.
            ImportError: matplotlib is not installed.
        """
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"For 'History.plot', 'path' must be a str, but got "
                            f"{type(path).__name__}")
        panels = _history_panels(self.history)
        if not panels or not any(values for _, series in panels for _, values in series):
            raise ValueError("For 'History.plot', nothing is recorded yet: train with the History "
                             "callback first")
        figure = _matplotlib_figure("History.plot", _PANEL_INCHES[0] * len(panels),
                                    _PANEL_INCHES[1])
        for k, (name, series) in enumerate(panels):
            axes = figure.add_subplot(1, len(panels), k + 1)
            for label, values in series:
                epochs = np.arange(1, len(values) + 1)
                axes.plot(epochs, values, marker="o" if len(values) < 30 else None, label=label)
            axes.set_xlabel("epoch")
            axes.set_title(name)
            axes.grid(True, alpha=0.3)
            axes.legend()
            if all(len(v) for _, v in series):
                axes.xaxis.get_major_locator().set_params(integer=True)
        if title:
            figure.suptitle(title)
        figure.tight_layout()
        folder = os.path.dirname(os.fspath(path))
        if folder:
            os.makedirs(folder, exist_ok=True)
        figure.savefig(path, format="png")
        return path


_LAMBDA_HOOKS = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
                 "on_train_step_end", "on_train_begin", "on_train_end", "on_eval_epoch_begin",
                 "on_eval_epoch_end", "on_eval_step_begin", "on_eval_step_end", "on_eval_begin",
                 "on_eval_end")


def _no_op(run_context):
    """A hook that does nothing."""


class LambdaCallback(Callback):
    """A callback built from functions: each argument, when given, is called as
    `fn(run_context)` at that hook.

    Example:
        >>> LambdaCallback(on_train_epoch_end=lambda rc: print(rc.original_args().cur_epoch_num))

    Raises:
        TypeError: an argument that is neither None nor callable.
    """

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None,
                 on_train_step_begin=None, on_train_step_end=None, on_train_begin=None,
                 on_train_end=None, on_eval_epoch_begin=None, on_eval_epoch_end=None,
                 on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None):
        super().__init__()
        given = locals()
        for hook in _LAMBDA_HOOKS:
            fn = given[hook]
            if fn is not None:
                check_callable(fn, hook, "LambdaCallback")
        for hook in _LAMBDA_HOOKS:
            setattr(self, hook, given[hook] if given[hook] is not None else _no_op)


def _matplotlib_figure(owner, width, height):
    """A matplotlib Figure drawn by the Agg backend (no display needed)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError(f"{owner} draws with the 'matplotlib' package: pip install "
                          "'minispore[plot]' (or pip install matplotlib)") from None
    figure = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(figure)
    return figure


_PANEL_INCHES = (5.0, 3.6)


def _history_panels(history):
    """[(title, [(label, values)])]: the losses together, then one panel per other metric."""
    losses, panels = [], []
    for key, values in history.items():
        numeric = []
        for v in values:
            try:
                numeric.append(float(np.mean(v.asnumpy() if isinstance(v, Tensor) else v)))
            except (TypeError, ValueError):
                numeric.append(float("nan"))
        if key == "net_output":
            losses.insert(0, ("train loss", numeric))
        elif "loss" in key:
            losses.append((f"eval {key}" if not key.startswith("eval") else key, numeric))
        else:
            panels.append((key, [(f"eval {key}", numeric)]))
    return ([("loss", losses)] if losses else []) + panels
