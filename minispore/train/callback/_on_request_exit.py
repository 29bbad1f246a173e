"""`OnRequestExit`: stop training cleanly on a signal (SIGTERM by default) or on request from a
JSON file, saving a checkpoint of the network first."""
import json
import os
import signal
import threading
import warnings

from ... import context
from ..._validator import check_type
from .. import serialization
from ._callback import Callback
from ._checkpoint import _make_directory

__all__ = ["OnRequestExit"]

_REQUEST_KEY = "GracefulExit"


class OnRequestExit(Callback):
    """Exit training (or evaluation) gracefully on request: when the process receives `sig`,
    or when the JSON file `config_file` holds `{"GracefulExit": 1}`, the run stops after the
    current step and saves the training network to `{directory}/rank_{device_id}/
    {file_name}_train.ckpt` (with `epoch_num`, `step_num`, `batch_num`, the optimizer's
    `global_step` and the `loss_scale` where known); evaluation saves `..._eval.ckpt`. A later run with this
    callback loads that checkpoint at its start.

    The handler is installed at the start of training or evaluation (from the main thread;
    elsewhere only `config_file` works) and the previous handler is put back at the end.

    Args:
        save_ckpt (bool): save the checkpoint on exit, and load it at the start. Default: True.
        save_mindir (bool): MindSpore also exports a MINDIR model on exit; MINDIR export is not
            available here, so a warning says it was skipped. Default: True.
        file_name (str): the base name of the saved files. Default: 'Net'.
        directory (str): where `rank_{device_id}/` is made; None: the working directory.
            Default: './'.
        config_file (str): a JSON file polled at each step. Default: None.
        sig (int): the signal that requests the exit (not SIGKILL). Default: signal.SIGTERM.

    Raises:
        ValueError: `save_ckpt` / `save_mindir` not a bool, `sig` not an int or SIGKILL.
        TypeError: `file_name`, `directory` or `config_file` not a str.
    """

    def __init__(self, save_ckpt=True, save_mindir=True, file_name="Net", directory="./",
                 config_file=None, sig=signal.SIGTERM):
        super().__init__()
        owner = "OnRequestExit"
        for arg, value, kind in (("save_ckpt", save_ckpt, bool), ("save_mindir", save_mindir, bool),
                                 ("sig", sig, int)):
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise ValueError(f"For '{owner}', the '{arg}' must be a {kind.__name__} "
                                 f"(MindSpore raises ValueError here), but got {value!r}")
        self.save_ckpt, self.save_mindir, self.sig = save_ckpt, save_mindir, int(sig)
        if hasattr(signal, "SIGKILL") and self.sig == signal.SIGKILL:
            raise ValueError("Not support send exit request by signal SIGKILL.")
        check_type(file_name, str, "file_name", owner)
        if directory is not None:
            check_type(directory, str, "directory", owner)
        if config_file is not None:
            check_type(config_file, str, "config_file", owner)
        self.remote_config_file = config_file
        self.exit = False
        self.stop_train = False
        self.lock = threading.Lock()
        self._previous_handler = None
        base = os.getcwd() if directory is None else directory
        path = _make_directory(os.path.join(base, f"rank_{context.get_context('device_id')}"))
        self.train_name = os.path.join(path, f"{file_name}_train")
        self.eval_name = os.path.join(path, f"{file_name}_eval")

    def _handle_signal(self, signum, frame):
        self.exit = True

    def _install_handler(self):
        if threading.current_thread() is threading.main_thread():
            self._previous_handler = signal.signal(self.sig, self._handle_signal)

    def _restore_handler(self):
        if self._previous_handler is not None:
            signal.signal(self.sig, self._previous_handler)
            self._previous_handler = None

    def _requested(self):
        if self.exit:
            return True
        path = self.remote_config_file
        if path is None or not os.path.exists(path):
            return False
        try:
            with open(path, "r", encoding="utf-8") as f:
                config = json.load(f)
        except (OSError, json.JSONDecodeError) as err:
            warnings.warn(f"For 'OnRequestExit', reading {path!r} failed: {err}",
                          RuntimeWarning, stacklevel=3)
            return False
        self.exit = isinstance(config, dict) and config.get(_REQUEST_KEY) == 1
        return self.exit

    def _save(self, network, name, append_dict=None):
        if self.save_ckpt:
            serialization.save_checkpoint(network, f"{name}.ckpt", append_dict=append_dict)
        if self.save_mindir:
            warnings.warn("For 'OnRequestExit', MINDIR export is not available: only the "
                          "checkpoint was saved", RuntimeWarning, stacklevel=3)

    def on_train_begin(self, run_context):
        """Install the signal handler; load the checkpoint of an earlier exit."""
        self._install_handler()
        if self.save_ckpt and os.path.isfile(f"{self.train_name}.ckpt"):
            serialization.load_checkpoint(f"{self.train_name}.ckpt",
                                          net=run_context.original_args().train_network)

    def _stop_training(self, run_context):
        with self.lock:
            if self.stop_train or not self._requested():
                return
            cb_params = run_context.original_args()
            append = {"epoch_num": cb_params.cur_epoch_num, "step_num": cb_params.cur_step_num,
                      "batch_num": cb_params.batch_num}
            manager = cb_params.get("loss_scale_manager")
            if manager is not None:
                append["loss_scale"] = float(manager.get_loss_scale())
            network = cb_params.train_network
            optimizer = cb_params.get("optimizer")
            saved_names = {param.name for _, param in network.parameters_and_names()}
            if optimizer is not None and hasattr(optimizer, "global_step") and \
                    "global_step" not in saved_names:
                append["global_step"] = int(optimizer.global_step.asnumpy().reshape(-1)[0])
            self._save(network, self.train_name, append)
            run_context.request_stop()
            self.stop_train = True

    def on_train_step_end(self, run_context):
        """On request: save and stop after this step."""
        self._stop_training(run_context)

    def on_train_epoch_end(self, run_context):
        """On request: save and stop after this epoch."""
        self._stop_training(run_context)

    def on_train_end(self, run_context):
        """Put the previous signal handler back."""
        self._restore_handler()

    def on_eval_begin(self, run_context):
        """Install the signal handler; load the evaluation (or training) checkpoint of an
        earlier exit."""
        self._install_handler()
        if not self.save_ckpt:
            return
        eval_net = run_context.original_args().eval_network
        for name in (self.eval_name, self.train_name):
            if os.path.isfile(f"{name}.ckpt"):
                serialization.load_checkpoint(f"{name}.ckpt", net=eval_net)
                return

    def on_eval_step_end(self, run_context):
        """On request: stop after this step."""
        if self._requested():
            run_context.request_stop()

    def on_eval_end(self, run_context):
        """On request: save the evaluation network; put the previous handler back."""
        try:
            if self.exit:
                self._save(run_context.original_args().eval_network, self.eval_name)
        finally:
            self._restore_handler()
