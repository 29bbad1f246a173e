"""`DynamicProfilerMonitor`: start and stop a Profiler at steps named in a JSON file that can be
edited while training runs."""
import json
import os
import time
import warnings

from ..train.callback._callback import Callback
from ._profiler import Profiler
from ._schedule import ProfilerLevel

__all__ = ["DynamicProfilerMonitor"]

CONFIG_NAME = "profiler_config.json"
DEFAULT_CONFIG = {"start_step": -1, "stop_step": -1, "aic_metrics": "AiCoreNone",
                  "profiler_level": "Level0", "activities": ["CPU", "NPU"],
                  "export_type": ["text"], "profile_memory": False, "mstx": False,
                  "analyse": False, "analyse_mode": -1, "parallel_strategy": False,
                  "with_stack": False, "data_simplification": True, "record_shapes": False,
                  "mstx_domain_include": [], "mstx_domain_exclude": [], "prof_path": "./",
                  "sys_io": False, "sys_interconnection": False, "host_sys": []}
_PROFILER_BOOLS = ("profile_memory", "mstx", "parallel_strategy", "with_stack",
                   "data_simplification", "record_shapes", "sys_io", "sys_interconnection")
_LEVELS = {-1: "LevelNone", 0: "Level0", 1: "Level1", 2: "Level2"}
_OWNER = "DynamicProfilerMonitor"


class DynamicProfilerMonitor(Callback):
    """Profiles the steps named in `{cfg_path}/profiler_config.json`, read again (when changed)
    every `poll_interval` seconds, so a long run can be profiled by editing the file. The file
    is made with MindSpore's defaults (`start_step` and `stop_step` -1: nothing recorded) when
    missing. Steps count from 1: as a `Model.train` callback it counts the training steps; in a
    loop of your own call `step()` after each step.

    From `start_step` to `stop_step` (both included) a `Profiler` records; after `stop_step`
    its results are written under `prof_path` when the file sets it to other than './', else
    under `output_path`. The table and trace are always written (MindSpore writes only raw data
    when `analyse` is false); the file's device-side keys are kept in the trace's metadata.
    A later `start_step` greater than the last `stop_step` records again.

    Args:
        cfg_path (str): the directory of `profiler_config.json` (made if missing).
        output_path (str): where results go. Default: './dyn_profile_data'.
        poll_interval (int): seconds between looks at the file. Default: 2.

    Raises:
        TypeError: `cfg_path` or `output_path` not a str, `poll_interval` not an int.
        ValueError: `cfg_path` not given, `poll_interval` < 1.
    """

    def __init__(self, cfg_path=None, output_path="./dyn_profile_data", poll_interval=2,
                 **kwargs):
        super().__init__()
        if cfg_path is None:
            raise ValueError(f"For '{_OWNER}', 'cfg_path' (the directory of {CONFIG_NAME}) "
                             "must be given")
        for value, name in ((cfg_path, "cfg_path"), (output_path, "output_path")):
            if not isinstance(value, str):
                raise TypeError(f"For '{_OWNER}', '{name}' must be a str, but got "
                                f"{type(value).__name__}")
        if isinstance(poll_interval, bool) or not isinstance(poll_interval, int):
            raise TypeError(f"For '{_OWNER}', 'poll_interval' must be an int, but got "
                            f"{type(poll_interval).__name__}")
        if poll_interval < 1:
            raise ValueError(f"For '{_OWNER}', 'poll_interval' must be >= 1, but got "
                             f"{poll_interval}")
        if kwargs:
            warnings.warn(f"{_OWNER}: arguments {sorted(kwargs)} are ignored", stacklevel=2)
        self.cfg_file = os.path.join(os.path.realpath(cfg_path), CONFIG_NAME)
        self.output_path = output_path
        self.poll_interval = poll_interval
        self.config = dict(DEFAULT_CONFIG)
        self.profiler = None
        self.output_dirs = []  # one per recorded span
        self._step = 0  # steps finished
        self._mtime = None
        self._polled = None
        self._done_until = 0  # the stop_step of the last recorded span
        if not os.path.exists(self.cfg_file):
            os.makedirs(os.path.dirname(self.cfg_file), exist_ok=True)
            with open(self.cfg_file, "w", encoding="utf-8") as f:
                json.dump(DEFAULT_CONFIG, f, indent=2)
        self._poll(force=True)
        self._maybe_start()

    def _poll(self, force=False):
        now = time.monotonic()
        if not force and self._polled is not None and now - self._polled < self.poll_interval:
            return
        self._polled = now
        try:
            mtime = os.stat(self.cfg_file).st_mtime_ns
        except OSError:
            return
        if mtime == self._mtime:
            return
        self._mtime = mtime
        try:
            with open(self.cfg_file, encoding="utf-8") as f:
                data = json.load(f)
            if not isinstance(data, dict):
                raise TypeError("not a JSON object")
        except (OSError, ValueError, TypeError) as e:
            warnings.warn(f"{_OWNER}: {self.cfg_file} is not a valid configuration ({e}); the "
                          "previous one is kept", stacklevel=3)
            return
        config = dict(DEFAULT_CONFIG)
        config.update(data)
        for key in ("start_step", "stop_step"):
            if isinstance(config[key], bool) or not isinstance(config[key], int):
                warnings.warn(f"{_OWNER}: '{key}' must be an int, but got {config[key]!r}; the "
                              "previous configuration is kept", stacklevel=3)
                return
        self.config = config

    def _span(self):
        start, stop = self.config["start_step"], self.config["stop_step"]
        if start < 1 or stop < start or start <= self._done_until:
            return None
        return start, stop

    def _maybe_start(self):
        span = self._span()
        if self.profiler is None and span is not None and span[0] == self._step + 1:
            self.profiler = Profiler(output_path=self._results_path(), **self._options())

    def _maybe_stop(self):
        if self.profiler is None:
            return
        if self._step >= self.config["stop_step"]:
            self._finish()

    def _finish(self):
        profiler, self.profiler = self.profiler, None
        profiler.add_metadata_json("dynamic_profiler_config", json.dumps(self.config))
        self.output_dirs.append(profiler.analyse())
        self._done_until = max(self._step, self.config["stop_step"])

    def _results_path(self):
        prof_path = self.config.get("prof_path")
        return prof_path if isinstance(prof_path, str) and prof_path not in ("", "./") else \
            self.output_path

    def _options(self):
        options = {k: self.config[k] for k in _PROFILER_BOOLS if isinstance(self.config[k], bool)}
        level = self.config.get("profiler_level")
        level = _LEVELS.get(level, level)
        if level in ProfilerLevel.__members__:
            options["profiler_level"] = ProfilerLevel[level]
        return options

    def step(self):
        """End a step: stop after `stop_step`, read the file if due, start before `start_step`."""
        self._step += 1
        if self.profiler is not None:
            self.profiler.step()
        self._maybe_stop()
        self._poll()
        self._maybe_start()

    def on_train_step_end(self, run_context):
        """Count the step (see `step`)."""
        self.step()

    def on_train_end(self, run_context):
        """Write the results of a span that training ended inside."""
        if self.profiler is not None:
            self._finish()
