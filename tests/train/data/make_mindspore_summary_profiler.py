"""Make mindspore_summary_profiler.json: MindSpore 2.10's signatures of the summary, profiler and
debug-op names, the ProfilerAction sequences of several `mindspore.profiler.schedule`s (with the
values invalid arguments are replaced by), and the file names `ops.TensorDump` writes, for
tests/train/test_summary.py and tests/test_profiler.py. Run with real MindSpore (CPU) from an
empty directory (MindSpore writes stray files into the cwd):

    cd "$(mktemp -d)"
    /tmp/msvenv/bin/python <repo>/tests/train/data/make_mindspore_summary_profiler.py
"""
import inspect
import json
import os
import tempfile

import mindspore as ms
import mindspore.profiler as P
import numpy as np
from mindspore import Tensor, ops, train

out = {"signatures": {}, "schedules": [], "tensor_dump": []}


def sig(name, obj):
    """[name, kind, repr(default) or None] per parameter (annotations left out)."""
    out["signatures"][name] = [
        [p.name, p.kind.name, None if p.default is inspect.Parameter.empty else repr(p.default)]
        for p in inspect.signature(obj).parameters.values()]


sig("SummaryRecord", train.SummaryRecord)
for m in ("add_value", "record", "set_mode", "flush", "close"):
    sig(f"SummaryRecord.{m}", getattr(train.SummaryRecord, m))
sig("SummaryCollector", train.SummaryCollector)
for m in ("start", "stop", "step", "analyse", "op_analyse", "add_metadata",
          "add_metadata_json", "offline_analyse"):
    sig(f"Profiler.{m}", getattr(ms.Profiler, m))
sig("profile", P.profile)
sig("schedule", P.schedule)
sig("tensorboard_trace_handler", P.tensorboard_trace_handler)
sig("_ExperimentalConfig", P._ExperimentalConfig)
sig("DynamicProfilerMonitor", P.DynamicProfilerMonitor)
sig("DynamicProfilerMonitor.step", P.DynamicProfilerMonitor.step)
for m in ("mark", "range_start", "range_end"):
    sig(f"mstx.{m}", getattr(P.mstx, m))
sig("TensorDump", ops.TensorDump)
sig("ScalarSummary", ops.ScalarSummary)
out["profiler_all"] = sorted(P.__all__)
out["enums"] = {e.__name__: [[m.name, m.value] for m in e]
                for e in (P.ProfilerLevel, P.ProfilerActivity, P.AicoreMetrics, P.ExportType,
                          P.HostSystem)}

CASES = [{"wait": 1, "active": 2, "warmup": 1, "repeat": 2, "skip_first": 1},
         {"wait": 0, "active": 1}, {"wait": 0, "active": 2, "repeat": 0},
         {"wait": 1, "active": 1, "repeat": 1},
         {"wait": 2, "active": 3, "warmup": 2, "repeat": 1}, {"wait": -1, "active": 1},
         {"wait": 1, "active": 0}, {"wait": 1.5, "active": 1},
         {"wait": 1, "active": 1, "repeat": -1}, {"wait": 1, "active": 1, "skip_first": -2},
         {"wait": 1, "active": 1, "warmup": -1}]
for kw in CASES:
    s = P.schedule(**kw)
    out["schedules"].append({"args": kw, "resolved": s.to_dict(),
                             "actions": [s(k).name for k in range(14)]})

with tempfile.TemporaryDirectory() as tmp:
    os.chdir(tmp)
    calls = [("out", "a", np.array([1.0, 2.0], np.float32)), ("in", "b", np.array([1, 2])),
             ("out", "c.npy", np.array([1.0], np.float16)), ("out", "sub/d", np.ones((2, 2)))]
    for mode, name, value in calls:
        ops.TensorDump(mode)(name, Tensor(value))
    import time
    time.sleep(1)
    written = sorted(os.path.relpath(os.path.join(d, f), tmp)
                     for d, _, files in os.walk(tmp) for f in files if f.endswith(".npy"))
    out["tensor_dump"] = {"calls": [[m, n, str(v.dtype)] for m, n, v in calls],
                          "files": written}

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_summary_profiler.json")
with open(path, "w", encoding="utf-8") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print("wrote", path)
