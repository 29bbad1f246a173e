"""`schedule` (which steps a profiler records), `ProfilerAction`, `tensorboard_trace_handler`
and the option enums of `mindspore.profiler`."""
import os
import socket
import warnings
from enum import Enum

__all__ = ["AicoreMetrics", "ExportType", "HostSystem", "ProfilerAction", "ProfilerActivity",
           "ProfilerLevel", "schedule", "tensorboard_trace_handler"]


class ProfilerAction(Enum):
    """What a profiler does at a step: nothing, warm up (listen, then drop), record, or record
    and hand the trace to `on_trace_ready` at the step's end."""

    NONE = 0
    WARM_UP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


class ProfilerLevel(Enum):
    """MindSpore's device-side detail levels; minispore records the same host events at each."""

    LevelNone = "LevelNone"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class ProfilerActivity(Enum):
    """Which side to profile: minispore runs on the CPU, so 'CPU' is what it records."""

    NPU = "NPU"
    GPU = "GPU"
    CPU = "CPU"


class AicoreMetrics(Enum):
    """Ascend AI Core counters (accepted for MindSpore's signature; nothing to collect here)."""

    PipeUtilization = "PipeUtilization"
    ArithmeticUtilization = "ArithmeticUtilization"
    Memory = "Memory"
    MemoryL0 = "MemoryL0"
    MemoryUB = "MemoryUB"
    ResourceConflictRatio = "ResourceConflictRatio"
    L2Cache = "L2Cache"
    MemoryAccess = "MemoryAccess"
    AiCoreNone = "None"


class ExportType(Enum):
    """Output formats: 'text' (the CSV table and the JSON trace) is what minispore writes."""

    Db = "db"
    Text = "text"


class HostSystem(Enum):
    """Host system data to collect (accepted for MindSpore's signature)."""

    CPU = "cpu"
    MEM = "mem"
    DISK = "disk"
    NETWORK = "network"
    OSRT = "osrt"


def _count(value, name, default, low):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        warnings.warn(f"For 'schedule', '{name}' must be an int >= {low}, but got {value!r}: "
                      f"{default} is used", stacklevel=3)
        return default
    return value


class schedule:
    """Which steps a profiler records, counted by `Profiler.step()`: after `skip_first` steps,
    cycles of `wait` idle steps, `warmup` steps, then `active` recorded steps, the last of them
    handed to `on_trace_ready`; `repeat` cycles (0: without end). Invalid values are replaced
    (wait, warmup, repeat, skip_first by 0; active by 1) with a warning, as MindSpore does.

    Example:
        >>> s = schedule(wait=1, warmup=1, active=2)
        >>> [s(k).name for k in range(4)]
        ['NONE', 'WARM_UP', 'RECORD', 'RECORD_AND_SAVE']
    """

    def __init__(self, *, wait, active, warmup=0, repeat=0, skip_first=0):
        self.wait = _count(wait, "wait", 0, 0)
        self.active = _count(active, "active", 1, 1)
        self.warmup = _count(warmup, "warmup", 0, 0)
        self.repeat = _count(repeat, "repeat", 0, 0)
        self.skip_first = _count(skip_first, "skip_first", 0, 0)

    def __call__(self, step):
        """The ProfilerAction of step `step` (from 0)."""
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError(f"For 'schedule', 'step' must be an int, but got "
                            f"{type(step).__name__}")
        if step < 0:
            raise ValueError(f"For 'schedule', 'step' must be >= 0, but got {step}")
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        cycle = self.wait + self.warmup + self.active
        if self.repeat and step // cycle >= self.repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < self.wait:
            return ProfilerAction.NONE
        if position < self.wait + self.warmup:
            return ProfilerAction.WARM_UP
        return ProfilerAction.RECORD_AND_SAVE if position == cycle - 1 else ProfilerAction.RECORD

    def to_dict(self):
        return {"wait": self.wait, "active": self.active, "warmup": self.warmup,
                "repeat": self.repeat, "skip_first": self.skip_first}

    def __repr__(self):
        return "schedule(" + ", ".join(f"{k}={v}" for k, v in self.to_dict().items()) + ")"


def tensorboard_trace_handler(dir_name=None, worker_name=None, analyse_flag=True,
                              async_mode=False):
    """An `on_trace_ready` callback: writes each recorded span's results (the per-op table and
    the Chrome trace) under `dir_name` (default './data') in a folder named after
    `worker_name` (default '{host}_{pid}'), one per call. With `analyse_flag=False` it only
    records. `async_mode` is accepted for MindSpore's signature; the analysis runs at once.

    Raises:
        TypeError: `dir_name` or `worker_name` not a str, a flag not a bool.
    """
    for value, name in ((dir_name, "dir_name"), (worker_name, "worker_name")):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"For 'tensorboard_trace_handler', '{name}' must be a str, but got "
                            f"{type(value).__name__}")
    for value, name in ((analyse_flag, "analyse_flag"), (async_mode, "async_mode")):
        if not isinstance(value, bool):
            raise TypeError(f"For 'tensorboard_trace_handler', '{name}' must be a bool, but got "
                            f"{type(value).__name__}")
    folder = os.path.realpath(dir_name if dir_name else "./data")
    worker = worker_name if worker_name else f"{socket.gethostname()}_{os.getpid()}"

    def handler(prof):
        if analyse_flag:
            prof.analyse_to(folder, worker)
    return handler
