"""Saving checkpoints during training: `CheckpointConfig` (when to save, how many to keep) and
`ModelCheckpoint` (the callback that writes `{prefix}-{epoch}_{step}.ckpt`)."""
import contextlib
import numbers
import os
import time

from ..._validator import check_bool, check_non_negative_int, check_one_of, check_type
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...communication import _backend
from ...context import ParallelMode, get_auto_parallel_context
from ...nn.cell import Cell
from .. import serialization
from ._callback import Callback

__all__ = ["CheckpointConfig", "ModelCheckpoint"]

_INFO_KEYS = ("epoch_num", "step_num")
_FORMATS = ("ckpt", "safetensors")


def _optional_count(name, value):
    """None or an int >= 0 (TypeError / ValueError otherwise)."""
    return None if value is None else check_non_negative_int(value, name, "CheckpointConfig")


class CheckpointConfig:
    """When `ModelCheckpoint` saves and which files it keeps.

    Args:
        save_checkpoint_steps (int): save every this many steps (global count). Default: 1.
        save_checkpoint_seconds (int): save every this many seconds; used only when
            `save_checkpoint_steps` is 0 or None. Default: 0.
        keep_checkpoint_max (int): keep at most this many files (the oldest are removed).
            Default: 5.
        keep_checkpoint_per_n_minutes (int): instead of a maximum, keep one file per this many
            minutes; used only when `keep_checkpoint_max` is 0 or None. Default: 0.
        integrated_save (bool): passed to `save_checkpoint` (merges sliced parameters in
            MindSpore's parallel modes; no effect in one process). Default: True.
        async_save (Union[bool, str]): passed to `save_checkpoint` (False, True, 'thread' or
            'process'); training waits for the last write before it returns. Default: False.
        saved_network (Cell): the network to save instead of the training network (e.g. the
            backbone only, without optimizer state). Default: None.
        append_info (list): extra entries saved in every file: 'epoch_num' and/or 'step_num'
            (updated at each save) and at most one dict of str -> int/float/bool/str/Tensor.
            Default: None.
        enc_key (bytes), enc_mode (str), crc_check (bool): passed to `save_checkpoint` when not
            at their defaults.
        exception_save (bool): when training raises, save `{prefix}-{epoch}_{step}
            _breakpoint.ckpt` before the error propagates. Default: False.
        format (str): 'ckpt' (default) or 'safetensors'; also the file extension.

    Raises:
        TypeError: a wrong type (e.g. `saved_network` not a Cell, `append_info` not a list).
        ValueError: a negative count, all four policies 0/None, an unknown `append_info` name
            or `format`.
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False,
                 saved_network=None, append_info=None, enc_key=None, enc_mode="AES-GCM",
                 exception_save=False, crc_check=False, remove_redundancy=False, format="ckpt",
                 **kwargs):
        steps = _optional_count("save_checkpoint_steps", save_checkpoint_steps)
        seconds = _optional_count("save_checkpoint_seconds", save_checkpoint_seconds)
        keep_max = _optional_count("keep_checkpoint_max", keep_checkpoint_max)
        per_minutes = _optional_count("keep_checkpoint_per_n_minutes",
                                      keep_checkpoint_per_n_minutes)
        if saved_network is not None and not isinstance(saved_network, Cell):
            raise TypeError(f"For 'CheckpointConfig', 'saved_network' must be None or a Cell, but "
                            f"got {type(saved_network).__name__}")
        if not steps and not seconds and not keep_max and not per_minutes:
            raise ValueError("For 'CheckpointConfig', 'save_checkpoint_steps', "
                             "'save_checkpoint_seconds', 'keep_checkpoint_max' and "
                             "'keep_checkpoint_per_n_minutes' can't all be None or 0")
        if not isinstance(async_save, bool) and async_save not in ("process", "thread"):
            raise ValueError(f"For 'CheckpointConfig', 'async_save' must be a bool, 'process' or "
                             f"'thread', but got {async_save!r}")
        integrated_save = check_bool(integrated_save, "integrated_save", "CheckpointConfig")
        exception_save = check_bool(exception_save, "exception_save", "CheckpointConfig")
        crc_check = check_bool(crc_check, "crc_check", "CheckpointConfig")
        remove_redundancy = check_bool(remove_redundancy, "remove_redundancy", "CheckpointConfig")
        if enc_key is not None:
            check_type(enc_key, bytes, "enc_key", "CheckpointConfig", "None or bytes")
        check_type(enc_mode, str, "enc_mode", "CheckpointConfig")
        check_one_of(format, _FORMATS, "format", "CheckpointConfig")
        self._append_dict = self._handle_append_info(append_info)
        self._save_checkpoint_steps = steps
        # A step policy wins over a time policy, a maximum over a per-minutes policy.
        self._save_checkpoint_seconds = None if steps else seconds
        self._keep_checkpoint_max = keep_max
        self._keep_checkpoint_per_n_minutes = per_minutes
        if keep_max:
            self._keep_checkpoint_per_n_minutes = None
        elif not per_minutes:
            self._keep_checkpoint_max = 1
        self._integrated_save = integrated_save
        self._async_save = async_save
        self._saved_network = saved_network
        self._enc_key = enc_key
        self._enc_mode = enc_mode
        self._crc_check = crc_check
        self._format = format
        self.exception_save = exception_save
        self.remove_redundancy = remove_redundancy
        self._map_param_inc = kwargs.get("incremental", False)

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps,
                                     doc="Steps between saves (None: time-based).")
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds,
                                       doc="Seconds between saves (None: step-based).")
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max,
                                   doc="How many files to keep at most.")
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes,
                                             doc="Keep one file per this many minutes.")
    integrated_save = property(lambda self: self._integrated_save)
    async_save = property(lambda self: self._async_save)
    saved_network = property(lambda self: self._saved_network,
                             doc="The network saved instead of the training network.")
    enc_key = property(lambda self: self._enc_key)
    enc_mode = property(lambda self: self._enc_mode)
    crc_check = property(lambda self: self._crc_check)
    format = property(lambda self: self._format)
    append_dict = property(lambda self: self._append_dict,
                           doc="The extra entries saved in every file (None if none).")
    map_param_inc = property(lambda self: self._map_param_inc)

    def get_checkpoint_policy(self):
        """The policy as a dict."""
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes,
                "saved_network": self.saved_network}

    @staticmethod
    def _handle_append_info(append_info):
        if append_info is None or append_info == []:
            return None
        if not isinstance(append_info, list):
            raise TypeError(f"For 'CheckpointConfig', 'append_info' must be a list, but got "
                            f"{type(append_info).__name__}")
        out = {key: 0 for key in _INFO_KEYS if key in append_info}
        n_dicts = 0
        for element in append_info:
            if isinstance(element, str):
                if element not in _INFO_KEYS:
                    raise ValueError(f"For 'CheckpointConfig', a str in 'append_info' must be one "
                                     f"of {list(_INFO_KEYS)}, but got {element!r}")
            elif isinstance(element, dict):
                n_dicts += 1
                if n_dicts > 1:
                    raise TypeError("For 'CheckpointConfig', 'append_info' may hold only one dict")
                for key, value in element.items():
                    if not isinstance(key, str) or not isinstance(
                            value, (numbers.Number, str, Parameter, Tensor)):
                        raise TypeError(f"For 'CheckpointConfig', the dict in 'append_info' must "
                                        f"map str to int/float/bool/str/Tensor, but got key "
                                        f"{type(key).__name__} and value "
                                        f"{type(value).__name__}")
                    out[key] = value
            else:
                raise TypeError(f"For 'CheckpointConfig', the elements of 'append_info' must be "
                                f"str or dict, but got {type(element).__name__}")
        return out


def _make_directory(path):
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"For 'ModelCheckpoint', 'directory' must be a non-empty str, but got "
                         f"{path!r}")
    path = os.path.realpath(os.path.expanduser(path))
    os.makedirs(path, exist_ok=True)
    return path


def _unused_prefix(directory, prefix, exception=False):
    """`prefix`, or `prefix_N` when checkpoint files of `prefix` already exist in `directory`
    (N one more than the largest suffix in use), so a new run never overwrites an old one."""
    suffix = 0
    n = len(prefix)
    for filename in os.listdir(directory):
        is_breakpoint = filename.endswith("_breakpoint.ckpt")
        if exception != is_breakpoint:
            continue
        if not exception and os.path.splitext(filename)[1] not in (".ckpt", ".safetensors"):
            continue
        if not filename.startswith(prefix) or len(filename) <= n or filename[n].isalpha():
            continue
        dash = filename[n:].find("-")
        if dash == 0:
            suffix = max(suffix, 1)
        elif dash > 0:
            number = filename[n + 1:n + dash]
            if number.isdigit():
                suffix = max(suffix, int(number) + 1)
    return f"{prefix}_{suffix}" if suffix else prefix


class _CheckpointManager:
    """The checkpoint files of one prefix in a directory, oldest first."""

    def __init__(self, file_format="ckpt"):
        self._format = file_format
        self._files = []
        self._written = {}  # file -> save order, to order files written within one mtime tick

    @property
    def ckpoint_num(self):
        return len(self._files)

    def record(self, path):
        self._written[path] = len(self._written)

    def update_ckpoint_filelist(self, directory, prefix):
        ext = f".{self._format}"
        self._files = []
        for filename in os.listdir(directory):
            if not filename.endswith(ext) or not filename.startswith(prefix + "-"):
                continue
            middle = filename[len(prefix):-len(ext)]
            if not any(c.isalpha() for c in middle):
                self._files.append(os.path.join(directory, filename))

    def _age_key(self, path):
        return os.stat(path).st_mtime_ns, self._written.get(path, -1)

    def remove_ckpoint_file(self, path):
        try:
            os.remove(path)
        except OSError:
            pass
        if path in self._files:
            self._files.remove(path)
        self._written.pop(path, None)

    def remove_oldest_ckpoint_file(self):
        self.remove_ckpoint_file(min(self._files, key=self._age_key))

    def keep_one_ckpoint_per_minutes(self, minutes, cur_time):
        recent = [f for f in self._files if cur_time - os.path.getmtime(f) < 60 * minutes]
        if not recent:
            return
        oldest = min(recent, key=self._age_key)
        for path in recent:
            if path != oldest:
                self.remove_ckpoint_file(path)


def _save(network, path, config, append_dict, cb_params=None):
    """One `save_checkpoint` call; arguments at their defaults are not passed."""
    kwargs = {"integrated_save": config.integrated_save, "async_save": config.async_save}
    if append_dict:
        kwargs["append_dict"] = dict(append_dict)
    if config.enc_key is not None:
        kwargs["enc_key"], kwargs["enc_mode"] = config.enc_key, config.enc_mode
    if config.crc_check:
        kwargs["crc_check"] = True
    if config.format != "ckpt":
        kwargs["format"] = config.format
    serialization.save_checkpoint(network, path, **kwargs)


class ModelCheckpoint(Callback):
    """Saves the training network's parameters (with the optimizer's state, as MindSpore does)
    during training, as `{directory}/{prefix}-{epoch}_{step in epoch}.ckpt`, following a
    `CheckpointConfig`; the last step is always saved when training ends. If files of
    `prefix` already exist in the directory, this run uses `{prefix}_1`, `{prefix}_2`, ... .

    MindSpore also writes a `{prefix}-graph.meta` file with the compiled graph; there is no
    graph to write here, so it is not written.

    Args:
        prefix (Union[str, callable]): file name prefix, without '/'; or a function of the
            callback parameters returning the whole file name stem (`{stem}.ckpt`). Default:
            'CKP'.
        directory (Union[str, callable]): where to save (created if missing); or a function of
            the callback parameters returning it. Default: None (the current directory).
        config (CheckpointConfig): the policy. Default: `CheckpointConfig()`.

    Raises:
        ValueError: `prefix` not a str without '/' (nor callable).
        TypeError: `config` not a CheckpointConfig.
    """

    def __init__(self, prefix="CKP", directory=None, config=None):
        super().__init__()
        if not callable(prefix) and (not isinstance(prefix, str) or "/" in prefix or not prefix):
            raise ValueError(f"For 'ModelCheckpoint', 'prefix' must be a non-empty str without "
                             f"'/' or a callable, but got {prefix!r}")
        if config is None:
            config = CheckpointConfig()
        elif not isinstance(config, CheckpointConfig):
            raise TypeError(f"For 'ModelCheckpoint', 'config' must be a CheckpointConfig, but "
                            f"got {type(config).__name__}")
        self._config = config
        self._prefix_func = prefix if callable(prefix) else None
        self._directory_func = directory if callable(directory) else None
        if directory is None:
            self._directory = os.getcwd()
        elif self._directory_func is None:
            self._directory = _make_directory(directory)
        else:
            self._directory = None
        self._prefix = prefix
        self._exception_prefix = prefix
        if self._prefix_func is None and self._directory_func is None:
            self._prefix = _unused_prefix(self._directory, prefix)
        self._manager = _CheckpointManager(config.format)
        self._append_dict = dict(config.append_dict or {})
        self._append_epoch_num = self._append_dict.get("epoch_num", 0)
        self._append_step_num = self._append_dict.get("step_num", 0)
        self._latest_ckpt_file_name = ""
        self._last_triggered_step = 0
        self._last_time = time.time()
        self._last_time_for_keep = time.time()
        self._writes_files = True  # False on a data-parallel rank whose files a lower rank writes

    @property
    def latest_ckpt_file_name(self):
        """Path of the last file written ('' before the first save)."""
        return self._latest_ckpt_file_name

    def on_train_begin(self, run_context):
        """A new run counts its steps from its own start (and calls `begin`)."""
        self._last_triggered_step = run_context.original_args().get("cur_step_num", 0) or 0
        self.begin(run_context)

    def step_end(self, run_context):
        """Save when the policy says so."""
        cb_params = run_context.original_args()
        if cb_params.get("mode", "train") != "train":
            return  # an evaluation pass has no training network to save
        self._resolve_names(cb_params)
        self._save_ckpt(cb_params)

    def end(self, run_context):
        """Save the last step (unless it was just saved)."""
        cb_params = run_context.original_args()
        if cb_params.get("mode", "train") != "train":
            return
        self._resolve_names(cb_params)
        self._save_ckpt(cb_params, force_to_save=True)
        if self._config.async_save:
            serialization._wait_async_save()

    def _resolve_names(self, cb_params):
        if self._prefix_func is not None:
            prefix = self._prefix_func(cb_params)
            if not isinstance(prefix, str) or "/" in prefix or not prefix:
                raise ValueError(f"For 'ModelCheckpoint', a callable 'prefix' must return a "
                                 f"non-empty str without '/', but got {prefix!r}")
            self._prefix = prefix
        if self._directory_func is not None:
            self._directory = _make_directory(self._directory_func(cb_params))

    def _should_save(self, cb_params, force_to_save):
        config = self._config
        if config.save_checkpoint_steps:
            return force_to_save or \
                cb_params.cur_step_num >= self._last_triggered_step + config.save_checkpoint_steps
        if config.save_checkpoint_seconds:
            now = time.time()
            if force_to_save or now - self._last_time > config.save_checkpoint_seconds:
                self._last_time = now
                return True
        return False

    def _save_ckpt(self, cb_params, force_to_save=False):
        step = cb_params.cur_step_num
        if step == self._last_triggered_step or not self._should_save(cb_params, force_to_save):
            return
        config = self._config
        step_in_epoch = (step - 1) % cb_params.batch_num + 1
        if self._prefix_func is not None:
            filename = f"{self._prefix}.{config.format}"
        else:
            filename = f"{self._prefix}-{cb_params.cur_epoch_num}_{step_in_epoch}.{config.format}"
        if self._writes_files:
            self._manager.update_ckpoint_filelist(self._directory, self._prefix)
            if config.keep_checkpoint_max and \
                    0 < config.keep_checkpoint_max <= self._manager.ckpoint_num:
                self._manager.remove_oldest_ckpoint_file()
            elif config.keep_checkpoint_per_n_minutes:
                now = time.time()
                if now - self._last_time_for_keep < config.keep_checkpoint_per_n_minutes * 60:
                    self._manager.keep_one_ckpoint_per_minutes(
                        config.keep_checkpoint_per_n_minutes, now)
        path = os.path.join(self._directory, filename)
        self._last_time_for_keep = time.time()
        self._last_triggered_step = step
        if not self._writes_files:
            self._latest_ckpt_file_name = path
            return
        if "epoch_num" in self._append_dict:
            self._append_dict["epoch_num"] = self._append_epoch_num + cb_params.cur_epoch_num
        if "step_num" in self._append_dict:
            self._append_dict["step_num"] = self._append_step_num + step
        network = config.saved_network if config.saved_network is not None else \
            cb_params.train_network
        _save(network, path, config, self._append_dict)
        self._manager.record(path)
        self._latest_ckpt_file_name = path

    def _save_breakpoint(self, network, epoch, step):
        """The `exception_save` file, written when training raises."""
        directory = self._directory if self._directory is not None else os.getcwd()
        prefix = self._exception_prefix if isinstance(self._exception_prefix, str) else "CKP"
        prefix = _unused_prefix(directory, prefix, exception=True)
        path = os.path.join(directory, f"{prefix}-{epoch}_{step}_breakpoint.ckpt")
        append = dict(self._append_dict)
        if "epoch_num" in append:
            append["epoch_num"] = self._append_epoch_num + epoch
        if "step_num" in append:
            append["step_num"] = self._append_step_num + step
        _save(network, path, self._config, append)
        return path


def _target(callback):
    """What a ModelCheckpoint writes: (directory, prefix), or None when a function names it."""
    if callback._directory_func is not None or callback._prefix_func is not None:
        return None
    return os.path.realpath(callback._directory), callback._prefix


@contextlib.contextmanager
def data_parallel_files(callbacks):
    """Around `Model.train` in data parallel over several ranks (whose parameters are the same
    on every rank): a ModelCheckpoint writing the files a lower rank's ModelCheckpoint writes
    (the same directory and prefix) leaves them to that rank, so a shared directory gets each
    file once, from rank 0; per-rank directories each get their own. One exchange of the
    ranks' targets before training; a barrier after it, so that every rank returns once the
    files exist. Outside data parallel, or in a world of one, nothing happens."""
    world = _backend.STATE.world if _backend.STATE.inited else None
    if world is None or world.comm is None or world.size == 1 or \
            get_auto_parallel_context("parallel_mode") not in (ParallelMode.DATA_PARALLEL,
                                                               ParallelMode.HYBRID_PARALLEL):
        yield
        return
    mine = [cb for cb in callbacks if isinstance(cb, ModelCheckpoint)]
    everyone = _backend.allgather_object(world, [_target(cb) for cb in mine],
                                         "ModelCheckpoint target exchange", control=True)
    earlier = {t for targets in everyone[:world.rank] for t in targets if t is not None}
    for cb in mine:
        target = _target(cb)
        cb._writes_files = target is None or target not in earlier
    yield
    _backend.wait(_backend.STATE.control.Ibarrier(), "the barrier after Model.train's "
                                                     "checkpoints")
