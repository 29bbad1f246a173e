"""`minispore.profiler` (MindSpore's `mindspore.profiler`): `Profiler` / `profile` record every
primitive call, cell, optimizer step and dataset stage and write a per-op table and a Chrome
trace; `schedule` and `tensorboard_trace_handler` choose and save the recorded steps; `mstx` adds
marks and ranges of your own. Nothing is listening while no profiler records."""
from ._dynamic import DynamicProfilerMonitor
from ._profiler import Profiler, _ExperimentalConfig, mstx, profile
from ._schedule import (
    AicoreMetrics,
    ExportType,
    HostSystem,
    ProfilerAction,  # noqa: F401  (mindspore.profiler.schedule.ProfilerAction)
    ProfilerActivity,
    ProfilerLevel,
    schedule,
    tensorboard_trace_handler,
)

__all__ = ["AicoreMetrics", "DynamicProfilerMonitor", "ExportType", "HostSystem", "Profiler",
           "ProfilerActivity", "ProfilerLevel", "_ExperimentalConfig", "mstx", "profile",
           "schedule", "tensorboard_trace_handler"]
