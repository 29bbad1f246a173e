"""`Profiler` / `profile`: record every primitive call, cell, optimizer step and dataset stage of
a run, then write the per-op table and a Chrome trace (Perfetto, chrome://tracing)."""
import json
import os
import socket
import threading
import time
import warnings

from . import _hooks, _report
from ._schedule import AicoreMetrics, ProfilerAction, ProfilerActivity, ProfilerLevel, schedule

__all__ = ["Profiler", "_ExperimentalConfig", "mstx", "profile"]

_OPTIONS = {"output_path": "./data", "profiler_level": ProfilerLevel.Level0,
            "activities": None, "schedule": None, "on_trace_ready": None,
            "profile_memory": False, "aic_metrics": AicoreMetrics.AiCoreNone,
            "with_stack": False, "data_simplification": True, "l2_cache": False,
            "hbm_ddr": False, "pcie": False, "sync_enable": True, "data_process": False,
            "parallel_strategy": False, "start_profile": True, "record_shapes": False,
            "mstx": False, "export_type": None, "mstx_domain_include": None,
            "mstx_domain_exclude": None, "sys_io": False, "sys_interconnection": False,
            "host_sys": None, "experimental_config": None}
_BOOLS = ("profile_memory", "with_stack", "data_simplification", "l2_cache", "hbm_ddr", "pcie",
          "sync_enable", "data_process", "parallel_strategy", "start_profile", "record_shapes",
          "mstx", "sys_io", "sys_interconnection")

_current = [None]  # the Profiler that is recording, if any
_mstx_lock = threading.Lock()
_mstx_ranges = {}  # open mstx range id -> (name, start ns)
_mstx_next_id = [1]


class _ExperimentalConfig:
    """MindSpore's extra profiler options (device-side on Ascend); kept and written to the
    trace's metadata, with no effect on what minispore records."""

    def __init__(self, profiler_level=ProfilerLevel.Level0, aic_metrics=AicoreMetrics.AiCoreNone,
                 l2_cache=False, mstx=False, data_simplification=True, export_type=None,
                 mstx_domain_include=None, mstx_domain_exclude=None, sys_io=False,
                 sys_interconnection=False, host_sys=None):
        self.profiler_level = profiler_level
        self.aic_metrics = aic_metrics
        self.l2_cache = l2_cache
        self.mstx = mstx
        self.data_simplification = data_simplification
        self.export_type = export_type
        self.mstx_domain_include = mstx_domain_include
        self.mstx_domain_exclude = mstx_domain_exclude
        self.sys_io = sys_io
        self.sys_interconnection = sys_interconnection
        self.host_sys = host_sys


def _option_text(value):
    if isinstance(value, (list, tuple)):
        return [_option_text(v) for v in value]
    return value.value if hasattr(value, "value") and not isinstance(value, (int, str)) else \
        value if isinstance(value, (bool, int, float, str, type(None))) else repr(value)


class Profiler:
    """Records, on the host, every primitive call (forward, and inside bprops), each bprop rule,
    Cell call, optimizer step, dataset stage and iterator step, with wall-clock times and the
    bytes of each primitive's outputs; `analyse()` writes into
    `{output_path}/{host}_{pid}_{time}_minispore/`:

    - `op_table.txt`: per op and category (forward / backward / bprop), the calls, the total and
      mean self time (nested primitives excluded), the share and the output bytes, sorted by
      total; then cells, optimizer steps and dataset stages (inclusive times);
    - `op_statistic.csv`: the op table as CSV;
    - `trace_view.json`: Chrome trace-event JSON (open it in https://ui.perfetto.dev or
      chrome://tracing);
    - `minispore_events.json`: the raw events (for `Profiler.offline_analyse`).

    Off (before `start`, after `stop`) it costs nothing: its timing wrappers are installed only
    while it records. While recording, each primitive call costs about 1 to 2 microseconds more
    (docs/summaries_and_profiler.md). One Profiler records at a time.

    Keyword args (MindSpore's; the device-side ones are accepted and written to the metadata):
        output_path (str): Default: './data'.
        start_profile (bool): start recording now. Default: True.
        schedule (schedule): which steps (counted by `step()`) to record; None: all.
        on_trace_ready (callable): called with the profiler when a scheduled span ends (and at
            `stop` when there is no schedule), e.g. `tensorboard_trace_handler(dir)`.
        activities, profiler_level, profile_memory, aic_metrics, with_stack,
        data_simplification, l2_cache, hbm_ddr, pcie, sync_enable, data_process,
        parallel_strategy, record_shapes, mstx, export_type, mstx_domain_include,
        mstx_domain_exclude, sys_io, sys_interconnection, host_sys, experimental_config.

    Raises:
        TypeError: an option of the wrong type; an unknown option.

    Example:
        >>> prof = Profiler(output_path="./prof")
        >>> model.train(1, dataset)
        >>> prof.analyse()   # ./prof/<host>_<pid>_<time>_minispore/op_table.txt
    """

    def __init__(self, **kwargs):
        unknown = sorted(set(kwargs) - set(_OPTIONS))
        if unknown:
            raise TypeError(f"For 'Profiler', unknown arguments {unknown}; the arguments are "
                            f"{sorted(_OPTIONS)}")
        options = dict(_OPTIONS)
        options.update(kwargs)
        self._check(options)
        self._options = options
        self.output_path = os.path.realpath(options["output_path"])
        self._schedule = options["schedule"]
        self._on_trace_ready = options["on_trace_ready"]
        self._events = []
        self._metadata = {}
        self._thread_names = {}
        self._recording = False  # timing wrappers installed and events collected
        self._started = False  # between start() and stop()
        self._step_index = 0
        self._step_start = None
        self._origin = time.perf_counter_ns()
        self._wall_ns = 0
        self._record_since = None
        self.output_dir = None
        if options["start_profile"]:
            self.start()

    @staticmethod
    def _check(options):
        path = options["output_path"]
        if not isinstance(path, str):
            raise TypeError(f"For 'Profiler', 'output_path' must be a str, but got "
                            f"{type(path).__name__}")
        for name in _BOOLS:
            if not isinstance(options[name], bool):
                raise TypeError(f"For 'Profiler', '{name}' must be a bool, but got "
                                f"{type(options[name]).__name__}")
        sched = options["schedule"]
        if sched is not None and not isinstance(sched, schedule):
            raise TypeError(f"For 'Profiler', 'schedule' must be a mindspore.profiler.schedule, "
                            f"but got {type(sched).__name__}")
        ready = options["on_trace_ready"]
        if ready is not None and not callable(ready):
            raise TypeError(f"For 'Profiler', 'on_trace_ready' must be callable, but got "
                            f"{type(ready).__name__}")
        activities = options["activities"]
        if activities is not None:
            items = activities if isinstance(activities, (list, tuple, set)) else [activities]
            if not all(isinstance(a, ProfilerActivity) for a in items):
                raise TypeError(f"For 'Profiler', 'activities' must be ProfilerActivity members, "
                                f"but got {activities!r}")
            if ProfilerActivity.CPU not in items:
                warnings.warn("Profiler: minispore runs on the CPU; without ProfilerActivity.CPU "
                              "in 'activities' the host events are still recorded", stacklevel=3)

    # ---- recording ----

    def _action(self):
        return self._schedule(self._step_index) if self._schedule is not None else \
            ProfilerAction.RECORD

    def _set_recording(self, flag):
        if flag == self._recording:
            return
        if flag:
            current = _current[0]
            if current is not None and current is not self:
                raise RuntimeError("For 'Profiler', another Profiler is recording: stop it first")
            _current[0] = self
            _hooks.install()
            _hooks.set_collecting(True)
            self._record_since = time.perf_counter_ns()
        else:
            _hooks.set_collecting(False)
            _hooks.uninstall()
            _current[0] = None
            self._wall_ns += time.perf_counter_ns() - self._record_since
            self._take_events()
        self._recording = flag

    def _take_events(self):
        taken = list(_hooks.events)
        _hooks.events.clear()
        names = {t.ident: t.name for t in threading.enumerate()}
        for e in taken:
            self._thread_names.setdefault(e[5], names.get(e[5], f"thread {e[5]}"))
        self._events.extend(taken)

    def start(self):
        """Start recording (at the schedule's current step)."""
        if self._started:
            warnings.warn("Profiler.start: the profiler is already started", stacklevel=2)
            return
        self._started = True
        self._step_start = time.perf_counter_ns()
        self._set_recording(self._action() != ProfilerAction.NONE)

    def stop(self):
        """Stop recording; without a schedule (or inside a scheduled span) `on_trace_ready` runs."""
        if not self._started:
            warnings.warn("Profiler.stop: the profiler is not started", stacklevel=2)
            return
        was_recording = self._recording
        action = self._action()
        self._set_recording(False)
        self._started = False
        if self._on_trace_ready is not None and was_recording and \
                action != ProfilerAction.WARM_UP and self._events:
            self._on_trace_ready(self)

    def step(self):
        """End a step: it becomes a 'step N' span in the trace; with a schedule, move to the
        next step's action (start or stop recording, hand a finished span to
        `on_trace_ready`)."""
        if not self._started:
            return
        now = time.perf_counter_ns()
        before = self._action()
        if self._recording:
            _hooks.record_span(f"step {self._step_index}", "step", self._step_start, now)
        self._step_index += 1
        self._step_start = time.perf_counter_ns()
        if self._schedule is None:
            return
        after = self._action()
        if before == ProfilerAction.RECORD_AND_SAVE:
            self._set_recording(False)
            if self._on_trace_ready is not None:
                self._on_trace_ready(self)
            self._events = []
            self._wall_ns = 0
        elif before == ProfilerAction.WARM_UP and after != ProfilerAction.WARM_UP:
            self._set_recording(False)
            self._events = []
            self._wall_ns = 0
        self._set_recording(after != ProfilerAction.NONE)

    def __enter__(self):
        if not self._started:
            self.start()
        return self

    def __exit__(self, *exc):
        if self._started:
            self.stop()
        return False

    # ---- metadata ----

    def add_metadata(self, key, value):
        """Add `key: value` (str) to the trace's metadata."""
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("For 'Profiler.add_metadata', 'key' and 'value' must be str, but got "
                            f"{type(key).__name__} and {type(value).__name__}")
        self._metadata[key] = value

    def add_metadata_json(self, key, value):
        """Add `key: value` to the trace's metadata, `value` a JSON string."""
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("For 'Profiler.add_metadata_json', 'key' and 'value' must be str, "
                            f"but got {type(key).__name__} and {type(value).__name__}")
        try:
            self._metadata[key] = json.loads(value)
        except json.JSONDecodeError as e:
            raise ValueError(f"For 'Profiler.add_metadata_json', 'value' is not valid JSON: "
                             f"{e}") from None

    # ---- analysis ----

    def analyse(self, offline_path=None, pretty=False, step_list=None, mode="sync"):
        """Stop recording and write the table and the trace into a new folder under
        `output_path` (`offline_path`, when given, instead of `output_path`). `step_list`: only
        the events of these steps (as counted by `step()`). `mode` ('sync' or 'async') is
        accepted for MindSpore's signature; the analysis runs at once."""
        if offline_path is not None and not isinstance(offline_path, str):
            raise TypeError(f"For 'Profiler.analyse', 'offline_path' must be a str, but got "
                            f"{type(offline_path).__name__}")
        if mode not in ("sync", "async"):
            raise ValueError(f"For 'Profiler.analyse', 'mode' must be 'sync' or 'async', but got "
                             f"{mode!r}")
        if self._started:
            self.stop()
        folder = os.path.realpath(offline_path) if offline_path else self.output_path
        return self._write(folder, f"{socket.gethostname()}_{os.getpid()}", pretty, step_list)

    def analyse_to(self, folder, worker):
        """Write the recorded span into `{folder}/{worker}_{time}_minispore` (the
        `tensorboard_trace_handler` path); recording goes on."""
        if self._recording:
            _hooks.set_collecting(False)
            self._take_events()
            _hooks.set_collecting(True)
        return self._write(folder, worker, False, None)

    def _write(self, folder, worker, pretty, step_list):
        if step_list is not None and (not isinstance(step_list, (list, tuple)) or not all(
                isinstance(k, int) and not isinstance(k, bool) for k in step_list)):
            raise TypeError(f"For 'Profiler.analyse', 'step_list' must be a list of int, but "
                            f"got {step_list!r}")
        events = self._events if step_list is None else _report.select_steps(self._events,
                                                                             step_list)
        stamp = time.strftime("%Y%m%d%H%M%S")
        out = os.path.join(folder, f"{worker}_{stamp}_minispore")
        suffix = 1
        while os.path.exists(out):
            out = os.path.join(folder, f"{worker}_{stamp}_{suffix}_minispore")
            suffix += 1
        metadata = dict(self._metadata)
        metadata["options"] = {k: _option_text(v) for k, v in self._options.items()
                               if k not in ("on_trace_ready", "experimental_config")}
        if self._schedule is not None:
            metadata["options"]["schedule"] = self._schedule.to_dict()
        origin = min((e[2] for e in events), default=self._origin)
        _report.write(out, events, origin, self._wall_ns, os.getpid(), metadata,
                      self._thread_names, pretty)
        self.output_dir = out
        return out

    def op_table(self):
        """The per-op rows recorded so far (dicts: name, category, calls, total_us, mean_us,
        min_us, max_us, share, bytes), sorted by total self time."""
        if self._recording:
            _hooks.set_collecting(False)
            self._take_events()
            _hooks.set_collecting(True)
        return _report.op_rows(self._events)

    def op_analyse(self, op_name, device_id=None):
        """The rows of the op table for `op_name` (a str or a list of str), as a JSON string."""
        names = [op_name] if isinstance(op_name, str) else op_name
        if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
            raise TypeError(f"For 'Profiler.op_analyse', 'op_name' must be a str or a list of "
                            f"str, but got {op_name!r}")
        if device_id is not None and (isinstance(device_id, bool) or
                                      not isinstance(device_id, int)):
            raise TypeError(f"For 'Profiler.op_analyse', 'device_id' must be an int, but got "
                            f"{type(device_id).__name__}")
        rows = [r for r in self.op_table() if r["name"] in names]
        return json.dumps(rows)

    @staticmethod
    def offline_analyse(path, pretty=False, step_list=None, data_simplification=True):
        """Write the table and trace again from the raw events of each analysed folder under
        `path` (or of `path` itself)."""
        if not isinstance(path, str):
            raise TypeError(f"For 'Profiler.offline_analyse', 'path' must be a str, but got "
                            f"{type(path).__name__}")
        folders = [path] if os.path.exists(os.path.join(path, _report.EVENTS_FILE)) else [
            os.path.join(path, d) for d in sorted(os.listdir(path))
            if os.path.exists(os.path.join(path, d, _report.EVENTS_FILE))]
        if not folders:
            raise ValueError(f"For 'Profiler.offline_analyse', no profiler output under {path!r}")
        for folder in folders:
            _report.rewrite(folder, pretty, step_list)


class profile(Profiler):
    """`mindspore.profiler.profile`: the Profiler with explicit arguments, for `with` blocks.

    Example:
        >>> with profile(schedule=schedule(wait=1, active=2),
        ...              on_trace_ready=tensorboard_trace_handler("./prof")) as prof:
        ...     for batch in data:
        ...         train_step(*batch)
        ...         prof.step()
    """

    def __init__(self, activities=None, with_stack=False, profile_memory=False,
                 data_process=False, parallel_strategy=False, start_profile=True, hbm_ddr=False,
                 pcie=False, sync_enable=True, record_shapes=False, schedule=None,
                 on_trace_ready=None, experimental_config=None):
        super().__init__(activities=activities, with_stack=with_stack,
                         profile_memory=profile_memory, data_process=data_process,
                         parallel_strategy=parallel_strategy, start_profile=start_profile,
                         hbm_ddr=hbm_ddr, pcie=pcie, sync_enable=sync_enable,
                         record_shapes=record_shapes, schedule=schedule,
                         on_trace_ready=on_trace_ready, experimental_config=experimental_config)


class mstx:
    """Marks and ranges of your own in the trace (category 'mark' and 'range'), recorded while a
    Profiler records."""

    @staticmethod
    def mark(message, stream=None, domain="default"):
        """An instant event named `message` now."""
        if not isinstance(message, str) or not message:
            raise TypeError("For 'mstx.mark', 'message' must be a non-empty str")
        if _hooks._on:
            _hooks.record_instant(message if domain == "default" else f"{domain}: {message}",
                                  "mark")

    @staticmethod
    def range_start(message, stream=None, domain="default"):
        """Open a range named `message`; returns its id for `range_end` (0 when not recording)."""
        if not isinstance(message, str) or not message:
            raise TypeError("For 'mstx.range_start', 'message' must be a non-empty str")
        if not _hooks._on:
            return 0
        with _mstx_lock:
            range_id = _mstx_next_id[0]
            _mstx_next_id[0] += 1
            name = message if domain == "default" else f"{domain}: {message}"
            _mstx_ranges[range_id] = (name, time.perf_counter_ns())
        return range_id

    @staticmethod
    def range_end(range_id, domain="default"):
        """Close the range `range_id`."""
        if isinstance(range_id, bool) or not isinstance(range_id, int):
            raise TypeError(f"For 'mstx.range_end', 'range_id' must be an int, but got "
                            f"{type(range_id).__name__}")
        with _mstx_lock:
            opened = _mstx_ranges.pop(range_id, None)
        if opened is not None and _hooks._on:
            _hooks.record_span(opened[0], "range", opened[1], time.perf_counter_ns())
