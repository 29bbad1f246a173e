"""minispore.profiler: the events of a known step, the Chrome trace format, op totals against the
measured wall time, zero cost when off, schedules (sequences from MindSpore 2.10,
tests/train/data/make_mindspore_summary_profiler.py) and the trace handler."""
import csv
import inspect
import json
import os
import time

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.nn.cell import Cell
from minispore.ops.primitive import Primitive
from minispore.profiler import (
    AicoreMetrics,
    DynamicProfilerMonitor,
    ExportType,
    HostSystem,
    Profiler,
    ProfilerActivity,
    ProfilerLevel,
    _ExperimentalConfig,
    mstx,
    profile,
    schedule,
    tensorboard_trace_handler,
)

FIXTURE = os.path.join(os.path.dirname(__file__), "train", "data",
                       "mindspore_summary_profiler.json")
with open(FIXTURE, encoding="utf-8") as _f:
    MS = json.load(_f)


def signature_of(obj):
    return [[p.name, p.kind.name,
             None if p.default is inspect.Parameter.empty else repr(p.default)]
            for p in inspect.signature(obj).parameters.values()]


def _annotation_free(entries):
    """MindSpore's enum defaults repr with its module path; compare names and values only."""
    return [[n, k, d.replace("mindspore.profiler.common.constant.", "") if d else d]
            for n, k, d in entries]


@pytest.mark.parametrize("name, obj", [
    ("Profiler.start", Profiler.start), ("Profiler.stop", Profiler.stop),
    ("Profiler.step", Profiler.step), ("Profiler.analyse", Profiler.analyse),
    ("Profiler.op_analyse", Profiler.op_analyse), ("Profiler.add_metadata",
                                                   Profiler.add_metadata),
    ("Profiler.add_metadata_json", Profiler.add_metadata_json),
    ("Profiler.offline_analyse", Profiler.offline_analyse), ("profile", profile),
    ("schedule", schedule), ("tensorboard_trace_handler", tensorboard_trace_handler),
    ("_ExperimentalConfig", _ExperimentalConfig), ("mstx.mark", mstx.mark),
    ("mstx.range_start", mstx.range_start), ("mstx.range_end", mstx.range_end),
    ("DynamicProfilerMonitor", DynamicProfilerMonitor),
    ("DynamicProfilerMonitor.step", DynamicProfilerMonitor.step)])
def test_signatures_match_mindspore(name, obj):
    assert signature_of(obj) == _annotation_free(MS["signatures"][name])


def test_names_and_enums_match_mindspore():
    import minispore.profiler as P
    # EnvProfiler (profiling driven by MindSpore's environment variables) is left out
    assert sorted(n for n in MS["profiler_all"] if n != "EnvProfiler") == sorted(P.__all__)
    for enum in (ProfilerLevel, ProfilerActivity, AicoreMetrics, ExportType, HostSystem):
        assert [[m.name, m.value] for m in enum] == MS["enums"][enum.__name__]


@pytest.mark.parametrize("case", range(11))
def test_schedule_actions_match_mindspore(case):
    expected = MS["schedules"][case]
    replaced = any(v != expected["resolved"][k] for k, v in expected["args"].items())
    with pytest.warns(UserWarning) if replaced else _no_warning():
        s = schedule(**expected["args"])
    assert s.to_dict() == expected["resolved"]
    assert [s(k).name for k in range(14)] == expected["actions"]


class _no_warning:
    def __enter__(self):
        import warnings
        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        self._catch.__exit__(*exc)


def test_schedule_step_errors():
    s = schedule(wait=0, active=1)
    with pytest.raises(ValueError, match="step"):
        s(-1)
    with pytest.raises(TypeError, match="step"):
        s(1.0)


class TwoLayer(nn.Cell):
    def __init__(self, width):
        super().__init__()
        self.a = nn.Dense(width, width)
        self.b = nn.Dense(width, 10)

    def construct(self, x):
        return self.b(ops.tanh(self.a(x)))


def _train_step(width=1024, batch=512):
    ms.set_seed(0)
    net = TwoLayer(width)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.SGD(net.trainable_params(), 0.01)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, optimizer.parameters)
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((batch, width)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, batch).astype(np.int32))

    def step():
        loss, grads = grad_fn(x, y)
        optimizer(grads)
        return loss
    return step


def _output(prof):
    with open(os.path.join(prof.output_dir, "trace_view.json"), encoding="utf-8") as f:
        trace = json.load(f)
    with open(os.path.join(prof.output_dir, "op_statistic.csv"), encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    return trace, table


def test_known_step_names_its_primitives_and_cells(tmp_path):
    step = _train_step(32, 8)
    step()
    prof = Profiler(output_path=str(tmp_path))
    step()
    prof.step()
    prof.analyse()
    assert prof.output_dir.startswith(str(tmp_path))
    trace, table = _output(prof)
    ops_seen = {(r["Op Name"], r["Category"]) for r in table}
    for expected in [("Dense", "forward"), ("Tanh", "forward"),
                     ("SparseSoftmaxCrossEntropy", "forward"), ("Dense", "bprop"),
                     ("Tanh", "bprop"), ("MatMul", "backward")]:
        assert expected in ops_seen
    events = trace["traceEvents"]
    cells = {(e["name"], e["cat"]) for e in events if e.get("cat") in ("cell", "optimizer")}
    assert {("TwoLayer", "cell"), ("Dense", "cell"), ("SGD", "optimizer")} <= cells
    assert [e["name"] for e in events if e.get("cat") == "step"] == ["step 0"]
    shares = [float(r["Ratio(%)"]) for r in table]
    assert sum(shares) == pytest.approx(100.0, abs=0.1)
    totals = [float(r["Total Time(us)"]) for r in table]
    assert totals == sorted(totals, reverse=True)
    dense = next(r for r in table if r["Op Name"] == "Dense" and r["Category"] == "forward")
    assert int(dense["Calls"]) == 2
    assert int(dense["Output Bytes"]) == 8 * 32 * 4 + 8 * 10 * 4
    with open(os.path.join(prof.output_dir, "op_table.txt"), encoding="utf-8") as f:
        text = f.read()
    assert "Dense" in text
    assert "SGD" in text


def test_trace_is_chrome_trace_event_json(tmp_path):
    step = _train_step(16, 4)
    with Profiler(output_path=str(tmp_path)) as prof:
        step()
        mstx.mark("after the first step")
        rid = mstx.range_start("second step")
        step()
        mstx.range_end(rid)
    prof.analyse(pretty=True)
    trace, _ = _output(prof)
    events = trace["traceEvents"]
    assert trace["displayTimeUnit"] == "ms"
    assert events[0] == {"name": "process_name", "ph": "M", "pid": os.getpid(), "tid": 0,
                         "args": {"name": "minispore"}}
    for e in events:
        assert isinstance(e["name"], str)
        assert e["ph"] in ("X", "i", "M")
        assert isinstance(e["pid"], int)
        assert isinstance(e["tid"], int)
        if e["ph"] == "X":
            assert e["ts"] >= 0
            assert e["dur"] >= 0
    marks = [e for e in events if e["ph"] == "i"]
    assert [m["name"] for m in marks] == ["after the first step"]
    (span,) = [e for e in events if e.get("cat") == "range"]
    inside = [e for e in events if e.get("cat") == "forward"
              and span["ts"] <= e["ts"] <= span["ts"] + span["dur"]]
    assert inside
    # each op event lies within its thread's enclosing events: nested spans never overlap
    # partially
    spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                   if e["ph"] == "X" and e["cat"] != "range")
    stack = []
    for start, end in spans:
        while stack and stack[-1] <= start + 1e-3:
            stack.pop()
        assert not stack or end <= stack[-1] + 1e-3
        stack.append(end)


def test_op_totals_add_up_to_the_measured_step(tmp_path):
    step = _train_step()
    step()
    prof = Profiler(output_path=str(tmp_path), start_profile=False)
    best = None
    for _ in range(5):  # the shared machine is noisy: keep the closest of five tries
        prof._events = []
        prof.start()
        t0 = time.perf_counter()
        step()
        wall = time.perf_counter() - t0
        prof.stop()
        op_seconds = sum(r["total_us"] for r in prof.op_table()) / 1e6
        ratio = op_seconds / wall
        best = ratio if best is None or abs(ratio - 1) < abs(best - 1) else best
    # about 0.96 on a quiet machine; a fresh CI venv under load has given 0.89
    assert 0.85 <= best <= 1.0 + 1e-6


def test_off_costs_nothing_everything_is_restored():
    def state():
        prims = {cls: (cls.__dict__.get("forward"), cls.__dict__.get("bprop"))
                 for cls in _subclasses(Primitive)}
        return prims, dict(Tensor.__dict__), Cell.__dict__["__call__"]

    before = state()
    step = _train_step(8, 2)
    with Profiler(output_path="unused", start_profile=False):
        step()
        assert state()[2] is not before[2]
    assert state()[0] == before[0]
    assert state()[1] == before[1]
    assert state()[2] is before[2]


def _subclasses(root):
    seen, todo = [], [root]
    while todo:
        cls = todo.pop()
        if cls not in seen:
            seen.append(cls)
            todo.extend(cls.__subclasses__())
    return seen


def test_profiler_and_anomaly_mode_together(tmp_path):
    step = _train_step(8, 2)
    prof = Profiler(output_path=str(tmp_path))
    with ms.detect_anomaly():
        step()
        with pytest.raises(RuntimeError, match="anomaly"):
            ops.log(Tensor([-1.0]))
    prof.stop()
    assert any(r["name"] == "Log" for r in prof.op_table())
    before = Tensor.__dict__["__mul__"]
    assert (Tensor([2.0]) * 3).asnumpy()[0] == 6.0
    assert Tensor.__dict__["__mul__"] is before


def test_dataset_stages_are_recorded(tmp_path):
    import minispore.dataset as ds
    data = ds.NumpySlicesDataset({"x": np.arange(12, dtype=np.float32)}, shuffle=False)
    data = data.map(lambda v: v * 2, input_columns="x").batch(4)
    with Profiler(output_path=str(tmp_path)) as prof:
        rows = [r[0].asnumpy() for r in data.create_tuple_iterator()]
    assert len(rows) == 3
    prof.analyse()
    trace, _ = _output(prof)
    stages = {e["name"] for e in trace["traceEvents"] if e.get("cat") == "dataset"}
    assert {"BatchDataset", "MapDataset", "next(TupleIterator)"} <= stages


def test_schedule_and_trace_handler_write_one_folder_per_span(tmp_path):
    step = _train_step(8, 2)
    handler = tensorboard_trace_handler(str(tmp_path), worker_name="w")
    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
                 on_trace_ready=handler) as prof:
        for _ in range(10):
            step()
            prof.step()
    folders = sorted(os.listdir(tmp_path))
    assert len(folders) == 2
    assert all(f.startswith("w_") and f.endswith("_minispore") for f in folders)
    for folder in folders:
        with open(tmp_path / folder / "trace_view.json", encoding="utf-8") as f:
            steps = [e["name"] for e in json.load(f)["traceEvents"] if e.get("cat") == "step"]
        assert steps in (["step 2", "step 3"], ["step 6", "step 7"])


def test_analyse_step_list_op_analyse_offline(tmp_path):
    step = _train_step(8, 2)
    prof = Profiler(output_path=str(tmp_path))
    for _ in range(3):
        step()
        prof.step()
    prof.add_metadata("run", "test")
    prof.add_metadata_json("config", '{"lr": 0.01}')
    out = prof.analyse(step_list=[1])
    trace, _table = _output(prof)
    assert [e["name"] for e in trace["traceEvents"] if e.get("cat") == "step"] == ["step 1"]
    assert trace["otherData"]["run"] == "test"
    assert trace["otherData"]["config"] == {"lr": 0.01}
    dense = json.loads(prof.op_analyse("Dense"))
    assert {r["category"] for r in dense} == {"forward", "bprop"}
    assert next(r for r in dense if r["category"] == "forward")["calls"] == 6
    os.remove(os.path.join(out, "op_statistic.csv"))
    Profiler.offline_analyse(str(tmp_path))
    assert os.path.exists(os.path.join(out, "op_statistic.csv"))


def test_argument_errors(tmp_path):
    with pytest.raises(TypeError, match="unknown"):
        Profiler(output_dir=str(tmp_path))
    with pytest.raises(TypeError, match="profile_memory"):
        Profiler(output_path=str(tmp_path), profile_memory=1)
    with pytest.raises(TypeError, match="schedule"):
        Profiler(output_path=str(tmp_path), schedule=lambda k: None)
    with pytest.raises(TypeError, match="dir_name"):
        tensorboard_trace_handler(3)
    first = Profiler(output_path=str(tmp_path))
    try:
        with pytest.raises(RuntimeError, match="another Profiler"):
            Profiler(output_path=str(tmp_path))
    finally:
        first.stop()
    with pytest.raises(ValueError, match="mode"):
        first.analyse(mode="later")


def _toy_model():
    import minispore.dataset as ds
    rng = np.random.default_rng(0)
    x = rng.random((40, 4)).astype(np.float32)
    y = (x.sum(axis=1) > 2).astype(np.int32)
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    net = nn.Dense(4, 2)
    model = ms.train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                           nn.Momentum(net.trainable_params(), 0.1, 0.9))
    return model, data


def test_dynamic_monitor_profiles_the_configured_steps(tmp_path):
    cfg = tmp_path / "cfg"
    monitor = DynamicProfilerMonitor(cfg_path=str(cfg), output_path=str(tmp_path / "out"))
    with open(cfg / "profiler_config.json", encoding="utf-8") as f:
        defaults = json.load(f)
    assert (defaults["start_step"], defaults["stop_step"]) == (-1, -1)
    with open(cfg / "profiler_config.json", "w", encoding="utf-8") as f:
        json.dump({"start_step": 3, "stop_step": 5}, f)
    monitor._poll(force=True)
    model, data = _toy_model()
    model.train(1, data, callbacks=[monitor])
    (out,) = monitor.output_dirs
    assert out.startswith(str(tmp_path / "out"))
    with open(os.path.join(out, "trace_view.json"), encoding="utf-8") as f:
        trace = json.load(f)
    steps = [e for e in trace["traceEvents"] if e.get("cat") == "step"]
    assert len(steps) == 3
    assert trace["otherData"]["dynamic_profiler_config"]["start_step"] == 3
    assert monitor.profiler is None


def test_dynamic_monitor_in_a_loop_of_your_own(tmp_path):
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    with open(cfg / "profiler_config.json", "w", encoding="utf-8") as f:
        json.dump({"start_step": 1, "stop_step": 1, "prof_path": str(tmp_path / "p")}, f)
    monitor = DynamicProfilerMonitor(cfg_path=str(cfg))
    assert monitor.profiler is not None
    step = _train_step(8, 2)
    for _ in range(3):
        step()
        monitor.step()
    (out,) = monitor.output_dirs
    assert out.startswith(str(tmp_path / "p"))


def test_dynamic_monitor_errors(tmp_path):
    with pytest.raises(ValueError, match="cfg_path"):
        DynamicProfilerMonitor()
    with pytest.raises(ValueError, match="poll_interval"):
        DynamicProfilerMonitor(cfg_path=str(tmp_path), poll_interval=0)
    with open(tmp_path / "profiler_config.json", "w", encoding="utf-8") as f:
        f.write("{not json")
    with pytest.warns(UserWarning, match="not a valid configuration"):
        monitor = DynamicProfilerMonitor(cfg_path=str(tmp_path))
    assert monitor.profiler is None
