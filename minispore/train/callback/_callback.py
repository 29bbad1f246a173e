"""The callback protocol: `Callback` (hooks), `RunContext` (what a hook sees), the callback
list `Model` runs, and the parameter dict behind `run_context.original_args()`."""
from contextlib import ExitStack

import numpy as np

from ..._validator import check_type
from ...common.parameter import Parameter
from ...common.tensor import Tensor

__all__ = ["Callback", "RunContext"]


class Callback:
    """Base class of callbacks: override the hooks you need. Each hook gets a `RunContext`.

    `Model.train` calls, in order: `on_train_begin`, then per epoch `on_train_epoch_begin`, per
    step `on_train_step_begin` / `on_train_step_end`, then `on_train_epoch_end`, and finally
    `on_train_end`; `Model.eval` calls the `on_eval_*` hooks the same way. By default each
    `on_train_*` and `on_eval_*` hook calls the older name (`begin`, `epoch_begin`,
    `step_begin`, `step_end`, `epoch_end`, `end`), so a callback written against those still
    works, and runs in both training and evaluation.

    A callback is also a context manager: `Model` enters every callback before the run and
    exits it afterwards (also when the run raises).
    """

    def __enter__(self):
        return self

    def __exit__(self, *err):
        """Nothing to release by default."""

    def begin(self, run_context):
        """Called once before the network runs (older name of on_train_begin/on_eval_begin)."""

    def epoch_begin(self, run_context):
        """Called at the start of each epoch."""

    def epoch_end(self, run_context):
        """Called at the end of each epoch."""

    def step_begin(self, run_context):
        """Called before each step."""

    def step_end(self, run_context):
        """Called after each step."""

    def end(self, run_context):
        """Called once after the last step."""

    def on_train_begin(self, run_context):
        """Before training."""
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        """Before each training epoch."""
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        """After each training epoch (after the epoch's evaluation in `Model.fit`)."""
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        """Before each training step."""
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        """After each training step; `net_outputs` holds the step's output (the loss)."""
        self.step_end(run_context)

    def on_train_end(self, run_context):
        """After training."""
        self.end(run_context)

    def on_eval_begin(self, run_context):
        """Before evaluation."""
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        """Before the evaluation pass over the dataset."""
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context):
        """After the evaluation pass."""
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context):
        """Before each evaluation step."""
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context):
        """After each evaluation step."""
        self.step_end(run_context)

    def on_eval_end(self, run_context):
        """After evaluation; `metrics` holds the results."""
        self.end(run_context)


_HOOKS = ("begin", "epoch_begin", "epoch_end", "step_begin", "step_end", "end",
          "on_train_begin", "on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
          "on_train_step_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin",
          "on_eval_epoch_end", "on_eval_step_begin", "on_eval_step_end", "on_eval_end")


def _check_callbacks(callbacks):
    """`callbacks` (None, a Callback or a list of them) as a list; TypeError otherwise."""
    if callbacks is None:
        return []
    check_type(callbacks, (Callback, list, tuple), "callbacks", "Model",
               "a Callback or a list of Callbacks")
    if isinstance(callbacks, Callback):
        return [callbacks]
    for k, cb in enumerate(callbacks):
        check_type(cb, Callback, f"callbacks[{k}]", "Model")
    return list(callbacks)


def _fixed_learning_rate(owner, optimizer):
    """The optimizer's learning rate, after checking that it is a fixed scalar Parameter (the
    only kind a callback can change, as in MindSpore)."""
    lr = getattr(optimizer, "learning_rate", None)
    if not isinstance(lr, Parameter) or lr.size != 1 or getattr(optimizer, "dynamic_lr", False):
        raise ValueError(f"For '{owner}', the optimizer's learning rate must be a fixed scalar "
                         f"Parameter; dynamic and per-group learning rates are not supported")
    return lr


class _CallbackManager(Callback):
    """Runs a list of callbacks in order; entering it enters each of them."""

    def __init__(self, callbacks):
        self._callbacks = _check_callbacks(callbacks)
        self._stack = None

    def __enter__(self):
        if self._stack is None:
            stack = ExitStack().__enter__()
            entered = []
            try:
                for cb in self._callbacks:
                    target = stack.enter_context(cb)
                    entered.append(target if isinstance(target, Callback) else cb)
            except BaseException:
                stack.close()
                raise
            self._stack, self._callbacks = stack, entered
        return self

    def __exit__(self, *err):
        stack, self._stack = self._stack, None
        return stack.__exit__(*err) if stack is not None else False


def _make_dispatch(hook):
    def dispatch(self, run_context):
        for cb in self._callbacks:
            getattr(cb, hook)(run_context)
    dispatch.__name__ = hook
    dispatch.__doc__ = f"Call `{hook}` on every callback, in order."
    return dispatch


for _hook in _HOOKS:
    setattr(_CallbackManager, _hook, _make_dispatch(_hook))


class _InternalCallbackParam(dict):
    """The dict behind `run_context.original_args()`: keys read and written as attributes too
    (`cb_params.cur_epoch_num`)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"The callback parameters have no field {key!r}; present: "
                                 f"{sorted(self)}") from None

    def __setattr__(self, key, value):
        self[key] = value

    def __delattr__(self, key):
        del self[key]


class RunContext:
    """What a callback hook receives: `original_args()` is the run's parameter dict
    (`cur_epoch_num`, `cur_step_num`, `batch_num`, `epoch_num`, `net_outputs`,
    `train_network`, `optimizer`, `loss_fn`, `train_dataset`, `mode`, ...), readable as
    attributes; `request_stop()` asks the run to stop after the current step.

    Args:
        original_args (dict): the run's parameters.

    Raises:
        TypeError: `original_args` is not a dict.
    """

    def __init__(self, original_args):
        self._original_args = check_type(original_args, dict, "original_args", "RunContext")
        self._stop_requested = False

    def original_args(self):
        """The run's parameter dict."""
        return self._original_args

    def request_stop(self):
        """Stop the run: training ends after the current step, at the end of the epoch's
        bookkeeping (`on_train_epoch_end` and `on_train_end` still run)."""
        self._stop_requested = True

    def get_stop_requested(self):
        """Whether `request_stop` was called."""
        return self._stop_requested


def _handle_loss(loss):
    """The loss to report: a Tensor's mean as a Python float; from a tuple/list output (a
    loss-scale cell's `(loss, overflow, scale)`, an eval cell's `(loss, outputs, label)`), its
    first element as is (a Tensor), as MindSpore does."""
    if isinstance(loss, (tuple, list)):
        if loss and isinstance(loss[0], Tensor):
            return loss[0]
        return loss
    if isinstance(loss, Tensor):
        return float(np.mean(loss.asnumpy()))
    return loss


def _as_float(value):
    """`value` (number, 0-d/1-element Tensor or ndarray) as a float; None when it is not one."""
    if isinstance(value, Tensor):
        value = value.asnumpy()
    if isinstance(value, np.ndarray):
        if value.size != 1:
            return None
        value = value.reshape(())
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
