"""`mindspore.dataset.callback`: hooks that `map(..., callbacks=[...])` calls as rows pass
through the map (`DSCallback`), and `WaitedDSCallback`, which also takes part in training as a
`Callback` so that each dataset step waits for the training step before it."""
import threading
import warnings

from .._validator import check_int_range
from ..train.callback._callback import Callback
from . import config

__all__ = ["DSCallback", "WaitedDSCallback"]


class DSRunContext:
    """What a dataset hook sees: the epoch (from 1), the step within the epoch and the step
    counted over all epochs (steps are rows through the map, from 1)."""

    __slots__ = ("cur_epoch_num", "cur_step_num", "cur_step_num_in_epoch")

    def __init__(self, cur_epoch_num=0, cur_step_num_in_epoch=0, cur_step_num=0):
        self.cur_epoch_num = cur_epoch_num
        self.cur_step_num_in_epoch = cur_step_num_in_epoch
        self.cur_step_num = cur_step_num

    def __repr__(self):
        return (f"DSRunContext(epoch={self.cur_epoch_num}, step_in_epoch="
                f"{self.cur_step_num_in_epoch}, step={self.cur_step_num})")


class DSCallback:
    """Base of dataset callbacks: override the `ds_*` hooks you need.

    `ds_begin` runs once, when the map's first epoch starts; `ds_epoch_begin` / `ds_epoch_end`
    around each epoch; `ds_step_begin` / `ds_step_end` around steps 1, 1 + step_size,
    1 + 2 * step_size, ... of each epoch (a step is one row through the map).

    Args:
        step_size (int): call the step hooks every `step_size` rows (default 1).
    """

    def __init__(self, step_size=1):
        self.step_size = check_int_range(step_size, "step_size", type(self).__name__, 1,
                                         2**31 - 1)

    def ds_begin(self, ds_run_context):
        """Called once, before the first row."""

    def ds_epoch_begin(self, ds_run_context):
        """Called before each epoch's first row."""

    def ds_epoch_end(self, ds_run_context):
        """Called after each epoch's last row."""

    def ds_step_begin(self, ds_run_context):
        """Called before a step's row is processed."""

    def ds_step_end(self, ds_run_context):
        """Called after a step's row is processed."""

    def create_runtime_obj(self):
        """The hooks this callback overrides, by name (what the pipeline needs to call)."""
        return {name: getattr(self, name) for name in _DS_HOOKS
                if getattr(type(self), name) is not getattr(DSCallback, name)}


_DS_HOOKS = ("ds_begin", "ds_epoch_begin", "ds_epoch_end", "ds_step_begin", "ds_step_end")


class WaitedDSCallback(Callback, DSCallback):
    """A dataset callback whose step (and epoch) hooks wait for the training step (epoch) before
    them: override `sync_step_begin` / `sync_epoch_begin`, which get both run contexts; pass the
    same object to `map(callbacks=...)` and to `Model.train(callbacks=...)`.

    The first step and epoch do not wait. A wait gives up after `config.get_callback_timeout()`
    seconds with a warning, so a pipeline read without training never hangs. Steps count rows
    through the map: with a `batch` after the map, give the batch size as `step_size`.
    """

    def __init__(self, step_size=1):
        DSCallback.__init__(self, step_size)
        self.epoch_event = threading.Event()
        self.step_event = threading.Event()
        self.train_run_context = None
        self.train_epoch_run_context = None
        self.train_step_run_context = None

    def sync_epoch_begin(self, train_run_context, ds_run_context):
        """Called before each dataset epoch but the first, after the training epoch ended."""

    def sync_step_begin(self, train_run_context, ds_run_context):
        """Called before each dataset step but the first, after the training step ended."""

    def step_end(self, run_context):
        self.train_step_run_context = run_context
        self.step_event.set()

    def epoch_end(self, run_context):
        self.train_epoch_run_context = run_context
        self.epoch_event.set()
        self.step_event.set()

    def end(self, run_context):
        self.epoch_event.set()
        self.step_event.set()

    def _wait(self, event, what):
        if not event.wait(config.get_callback_timeout()):
            warnings.warn(f"WaitedDSCallback: no training {what} ended within "
                          f"{config.get_callback_timeout()} s (config.set_callback_timeout); "
                          f"the dataset goes on", stacklevel=3)
        event.clear()

    def ds_epoch_begin(self, ds_run_context):
        if ds_run_context.cur_epoch_num > 1:
            self._wait(self.epoch_event, "epoch")
            self.sync_epoch_begin(self.train_epoch_run_context, ds_run_context)

    def ds_step_begin(self, ds_run_context):
        if ds_run_context.cur_step_num > self.step_size:
            self._wait(self.step_event, "step")
            self.sync_step_begin(self.train_step_run_context, ds_run_context)

    def create_runtime_obj(self):
        return {"ds_epoch_begin": self.ds_epoch_begin, "ds_step_begin": self.ds_step_begin}


def check_ds_callbacks(owner, callbacks):
    """`callbacks` (None, a DSCallback or a list of them) as a list; TypeError otherwise."""
    if callbacks is None:
        return []
    items = [callbacks] if isinstance(callbacks, DSCallback) else callbacks
    if not isinstance(items, (list, tuple)):
        raise TypeError(f"For '{owner}', 'callbacks' must be a DSCallback or a list of them, "
                        f"but got {type(callbacks).__name__}")
    for k, cb in enumerate(items):
        if not isinstance(cb, DSCallback):
            raise TypeError(f"For '{owner}', 'callbacks[{k}]' must be a DSCallback, but got "
                            f"{type(cb).__name__}")
    return list(items)
