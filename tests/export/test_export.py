"""export / load / GraphCell: five small networks written to ONNX (run by ONNX Runtime) and
MINDIR (loaded back and run by GraphCell), MindIR files written by MindSpore 2.10
(data/make_mindspore_mindir.py), the refusals, and malformed files.

Opt-in check of the other direction (MindSpore loads minispore's MINDIR and GraphCell gives
minispore's outputs): MINDSPORE_PYTHON=/path/to/python/with/mindspore pytest tests/export;
without it that test is not collected.
"""
import importlib.util
import json
import os
import subprocess

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.train._export import ExportError, mindir

from .models import models
from .test_export_ops import _net as op_net

pytest.importorskip("google.protobuf")

DATA = os.path.join(os.path.dirname(__file__), "data")
MS_PYTHON = os.environ.get("MINDSPORE_PYTHON")  # opt-in (module docstring)
IDS = ["lenet", "resnet", "mobilenetv2", "lstm", "transformer"]  # models.models(), in order


def _model(name):
    """A fresh network (none is kept between tests: each one's Parameters stay roots of view
    families while they live)."""
    found = {n: (net, shape) for n, net, shape in models()}
    net, shape = found[name]
    net.set_train(False)
    return net, shape


def _inputs(shape, batch, seed):
    full = (batch, *shape[1:])
    return np.random.default_rng(seed).standard_normal(full).astype(np.float32)


def _dynamic(shape):
    return Tensor(shape=list(shape), dtype=ms.float32)


def test_model_list():
    assert [m[0] for m in models()] == IDS


@pytest.fixture(params=IDS)
def model(request):
    return (request.param, *_model(request.param))


# ---- ONNX ---------------------------------------------------------------------------------------

def test_onnx_runtime_matches_minispore(model, tmp_path):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    name, net, shape = model
    path = str(tmp_path / name)
    ms.export(net, _dynamic(shape), file_name=path, file_format="ONNX")
    m = onnx.load(path + ".onnx")
    assert m.opset_import[0].version >= 17
    onnx.checker.check_model(m, full_check=True)
    names = {init.name for init in m.graph.initializer}
    assert {p.name for p in net.get_parameters()} <= names
    assert m.graph.input[0].type.tensor_type.shape.dim[0].dim_param  # the batch axis is dynamic
    session = ort.InferenceSession(path + ".onnx", providers=["CPUExecutionProvider"])
    for batch in (1, 3):
        x = _inputs(shape, batch, batch)
        got = session.run(None, {"x": x})[0]
        np.testing.assert_allclose(got, net(Tensor(x)).asnumpy(), rtol=1e-4, atol=1e-5)


def test_onnx_static_shape(tmp_path):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    net, shape = _model("lenet")
    x = _inputs(shape, 2, 0)
    ms.export(net, Tensor(x), file_name=str(tmp_path / "lenet.onnx"), file_format="ONNX")
    m = onnx.load(str(tmp_path / "lenet.onnx"))
    assert [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim] == [2, 1, 32, 32]
    got = ort.InferenceSession(str(tmp_path / "lenet.onnx")).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, net(Tensor(x)).asnumpy(), rtol=1e-4, atol=1e-5)


# ---- MINDIR written and read by minispore ---------------------------------------------------------

def test_mindir_round_trip(model, tmp_path):
    name, net, shape = model
    path = str(tmp_path / name)
    ms.export(net, _dynamic(shape), file_name=path, file_format="MINDIR")
    graph = ms.load(path + ".mindir")
    assert graph.inputs[0][2] == (-1, *shape[1:])
    cell = nn.GraphCell(graph)
    assert {n for n, _ in cell.parameters_and_names()} == {p.name for p in net.get_parameters()}
    for batch in (1, 3, 3):  # the second call at batch 3 replays the captured graph
        x = Tensor(_inputs(shape, batch, batch))
        np.testing.assert_allclose(cell(x).asnumpy(), net(x).asnumpy(), rtol=1e-6, atol=1e-7)
    assert cell._jitted.stats["replays"] == 1


@pytest.mark.parametrize("fmt", ["ONNX", "MINDIR"])
def test_product_of_dynamic_dimensions_refused(fmt, tmp_path):
    if fmt == "ONNX":
        pytest.importorskip("onnx")
    net = _Net(lambda y: y.reshape(y.shape[0] * y.shape[1], 3))
    with pytest.raises(ExportError, match="cannot express"):
        ms.export(net, Tensor(shape=[None, None, 3], dtype=ms.float32),
                  file_name=str(tmp_path / "n"), file_format=fmt)
    assert not os.listdir(tmp_path)


def test_graph_cell_params_init_and_checks(tmp_path):
    net, shape = _model("lenet")
    ms.export(net, _dynamic(shape), file_name=str(tmp_path / "lenet"), file_format="MINDIR")
    graph = ms.load(str(tmp_path / "lenet.mindir"))
    x = Tensor(_inputs(shape, 2, 1))
    new_w = np.full((10, 84), 0.01, np.float32)
    cell = nn.GraphCell(graph, params_init={"fc3.weight": Tensor(new_w)})
    before = net.fc3.weight.asnumpy().copy()
    net.fc3.weight.set_data(Tensor(new_w))
    try:
        np.testing.assert_allclose(cell(x).asnumpy(), net(x).asnumpy(), rtol=1e-6, atol=1e-7)
    finally:
        net.fc3.weight.set_data(Tensor(before))
    with pytest.raises(ValueError, match="does not have"):
        nn.GraphCell(graph, params_init={"nope": Tensor(new_w)})
    with pytest.raises(ValueError, match="shape"):
        nn.GraphCell(graph, params_init={"fc3.weight": Tensor(new_w[:5])})
    with pytest.raises(TypeError, match="graph returned by"):
        nn.GraphCell(net)
    cell = nn.GraphCell(graph)
    with pytest.raises(ValueError, match="must have shape"):
        cell(Tensor(np.zeros((2, 1, 28, 28), np.float32)))
    with pytest.raises(TypeError, match="takes 1 inputs"):
        cell(x, x)


def test_graph_cell_is_differentiable(tmp_path):
    net, shape = _model("lenet")
    ms.export(net, _dynamic(shape), file_name=str(tmp_path / "lenet"), file_format="MINDIR")
    cell = nn.GraphCell(ms.load(str(tmp_path / "lenet.mindir")))
    x = Tensor(_inputs(shape, 2, 3))
    g_cell = ms.grad(lambda t: cell(t).sum())(x).asnumpy()
    g_net = ms.grad(lambda t: net(t).sum())(x).asnumpy()
    np.testing.assert_allclose(g_cell, g_net, rtol=1e-5, atol=1e-7)


class _Promoting(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 3)
        self.k = Tensor(np.array([1, 2, 3], np.int32))

    def construct(self, x):
        return self.dense(x) + (x > 0).astype(ms.int32) * self.k + self.k


def test_type_promotion_is_written_as_casts(tmp_path):
    net = _Promoting()
    net.set_train(False)
    spec = _dynamic((None, 3))
    ms.export(net, spec, file_name=str(tmp_path / "p"), file_format="MINDIR")
    x = Tensor(_inputs((None, 3), 4, 0))
    want = net(x).asnumpy()
    assert want.dtype == np.float32
    np.testing.assert_array_equal(nn.GraphCell(ms.load(str(tmp_path / "p.mindir")))(x).asnumpy(),
                                  want)
    if importlib.util.find_spec("onnxruntime") is not None:
        import onnxruntime as ort
        ms.export(net, spec, file_name=str(tmp_path / "p"), file_format="ONNX")
        got = ort.InferenceSession(str(tmp_path / "p.onnx")).run(None, {"x": x.asnumpy()})[0]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


class _TwoInTwoOut(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = nn.Dense(3, 4)
        self.b = nn.Dense(5, 4)

    def construct(self, x, y):
        h = self.a(x) + self.b(y)
        return ops.softmax(h, -1), h.sum(axis=1)


def test_two_inputs_two_outputs(tmp_path):
    net = _TwoInTwoOut()
    net.set_train(False)
    specs = (_dynamic((None, 3)), _dynamic((None, 5)))
    x, y = Tensor(_inputs((None, 3), 4, 0)), Tensor(_inputs((None, 5), 4, 1))
    want = [t.asnumpy() for t in net(x, y)]
    ms.export(net, *specs, file_name=str(tmp_path / "t"), file_format="MINDIR")
    got = nn.GraphCell(ms.load(str(tmp_path / "t.mindir")))(x, y)
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, atol=1e-7)
    if importlib.util.find_spec("onnxruntime") is not None:
        import onnxruntime as ort
        ms.export(net, *specs, file_name=str(tmp_path / "t"), file_format="ONNX")
        session = ort.InferenceSession(str(tmp_path / "t.onnx"))
        got = session.run(None, {"x": x.asnumpy(), "y": y.asnumpy()})  # construct's names
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


# ---- MindIR files written by MindSpore 2.10 --------------------------------------------------------

REF = np.load(os.path.join(DATA, "mindspore_mindir_expected.npz"))


def test_mindspore_lenet():
    cell = nn.GraphCell(ms.load(os.path.join(DATA, "mindspore_lenet.mindir")))
    assert {n for n, _ in cell.parameters_and_names()} == {
        f"{layer}.{kind}" for layer in ("conv1", "conv2") for kind in ("weight",)} | {
        f"fc{k}.{kind}" for k in (1, 2, 3) for kind in ("weight", "bias")}
    np.testing.assert_allclose(cell(Tensor(REF["lenet_x"])).asnumpy(), REF["lenet_y"],
                               rtol=1e-5, atol=1e-6)


def test_mindspore_lenet_dynamic_batch():
    graph = ms.load(os.path.join(DATA, "mindspore_lenet_dyn.mindir"))
    assert graph.inputs[0][2] == (-1, 1, 32, 32)
    cell = nn.GraphCell(graph)
    for x, y in ((REF["lenet_x"], REF["lenet_y"]), (REF["lenet_x3"], REF["lenet_y3"])):
        np.testing.assert_allclose(cell(Tensor(x)).asnumpy(), y, rtol=1e-5, atol=1e-6)


def test_mindspore_mlp():
    cell = nn.GraphCell(ms.load(os.path.join(DATA, "mindspore_mlp.mindir")))
    ys = cell(Tensor(REF["mlp_x"]))
    assert len(ys) == 3
    for k, y in enumerate(ys):
        np.testing.assert_allclose(y.asnumpy(), REF[f"mlp_y{k}"], rtol=1e-5, atol=1e-6)


def test_load_mindir_save_mindir(tmp_path):
    model = ms.load_mindir(os.path.join(DATA, "mindspore_mlp.mindir"))
    assert model.producer_name == "MindSpore" and len(model.graph.parameter) == 10
    ms.save_mindir(model, str(tmp_path / "copy"))
    cell = nn.GraphCell(ms.load(str(tmp_path / "copy.mindir")))
    np.testing.assert_allclose(cell(Tensor(REF["mlp_x"]))[0].asnumpy(), REF["mlp_y0"],
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="ModelProto"):
        ms.save_mindir({"graph": 1}, str(tmp_path / "bad"))


# ---- refusals ----------------------------------------------------------------------------------------

class _Net(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self.dense = nn.Dense(3, 3)

    def construct(self, x):
        return self.fn(self.dense(x))


@pytest.mark.parametrize("fmt", ["ONNX", "MINDIR"])
def test_operator_without_mapping_is_named(fmt, tmp_path):
    if fmt == "ONNX":
        pytest.importorskip("onnx")
    net = _Net(lambda y: ops.cumsum(y, 1))
    with pytest.raises(ExportError, match="'CumSum'"):
        ms.export(net, Tensor(np.ones((2, 3), np.float32)), file_name=str(tmp_path / "n"),
                  file_format=fmt)
    assert not os.listdir(tmp_path)


def test_random_draw_and_data_dependence_refused(tmp_path):
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ExportError, match="changes from one run to the next"):
        ms.export(_Net(lambda y: y + ops.randn(2, 3)), x, file_name=str(tmp_path / "r"),
                  file_format="MINDIR")
    with pytest.raises(ExportError, match="Python value"):
        ms.export(_Net(lambda y: y * 2 if float(y.sum()) > 0 else y), x,
                  file_name=str(tmp_path / "d"), file_format="MINDIR")


def test_export_arguments_and_train_flag(tmp_path):
    net = _Net(ops.relu)
    net.set_train(True)
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="'file_format' must be one of"):
        ms.export(net, x, file_name=str(tmp_path / "n"), file_format="PB")
    with pytest.raises(ValueError, match="Ascend"):
        ms.export(net, x, file_name=str(tmp_path / "n"), file_format="AIR")
    with pytest.raises(ValueError, match="not supported"):
        ms.export(net, x, file_name=str(tmp_path / "n"), file_format="MINDIR", enc_key=b"k" * 16)
    net.dense.set_train(False)
    ms.export(net, x, file_name=str(tmp_path / "n"), file_format="MINDIR")
    assert net.training and not net.dense.training  # each Cell's flag restored
    assert os.stat(tmp_path / "n.mindir").st_mode & 0o777 == 0o400  # read-only, as MindSpore's
    ms.export(net, x, file_name=str(tmp_path / "n"), file_format="MINDIR")  # over it again
    ms.train.export(net, x, file_name=str(tmp_path / "m.mindir"), file_format="MINDIR")
    assert os.path.isfile(tmp_path / "m.mindir")


def test_save_load_tutorial(tmp_path, monkeypatch):
    """MindSpore's beginner save-and-load tutorial, as written."""
    monkeypatch.chdir(tmp_path)
    model = nn.SequentialCell(nn.Flatten(), nn.Dense(28 * 28, 512), nn.ReLU(),
                              nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10))
    mode, level = ms.get_context("mode"), ms.get_context("jit_syntax_level")
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    try:
        inputs = Tensor(np.ones([1, 1, 28, 28]).astype(np.float32))
        ms.export(model, inputs, file_name="model", file_format="MINDIR")
        graph = ms.load("model.mindir")
        outputs = nn.GraphCell(graph)(inputs)
    finally:
        ms.set_context(mode=mode, jit_syntax_level=level)
    assert outputs.shape == (1, 10)
    np.testing.assert_allclose(outputs.asnumpy(), model(inputs).asnumpy(), rtol=1e-6, atol=1e-7)


def test_set_inputs_declares_the_dynamic_batch(tmp_path):
    net, shape = _model("lenet")
    net.set_inputs(_dynamic(shape))
    try:
        ms.export(net, Tensor(_inputs(shape, 2, 0)), file_name=str(tmp_path / "lenet"),
                  file_format="MINDIR")
    finally:
        net.__dict__.pop("_declared_inputs", None)
    graph = ms.load(str(tmp_path / "lenet.mindir"))
    assert graph.inputs[0][2] == (-1, 1, 32, 32)
    x = Tensor(_inputs(shape, 5, 1))
    np.testing.assert_allclose(nn.GraphCell(graph)(x).asnumpy(), net(x).asnumpy(),
                               rtol=1e-6, atol=1e-7)


def test_dynamic_tensor_holds_no_values():
    t = Tensor(shape=[None, 3], dtype=ms.float32)
    assert t.shape == (-1, 3)
    with pytest.raises(ValueError, match="dynamic shape"):
        t.asnumpy()


# ---- malformed files ---------------------------------------------------------------------------------

def _small_mindir(tmp_path):
    net = _Net(ops.tanh)
    net.set_train(False)
    path = str(tmp_path / "small.mindir")
    ms.export(net, Tensor(np.ones((2, 3), np.float32)), file_name=path, file_format="MINDIR")
    with open(path, "rb") as f:
        return f.read()


def test_malformed_files_refused(tmp_path):
    raw = _small_mindir(tmp_path)
    bad = tmp_path / "bad.mindir"
    for blob in (b"", b"\x00" * 10, b"not a model at all", raw[: len(raw) // 2]):
        bad.write_bytes(blob)
        with pytest.raises(ValueError, match="not a MindIR file"):
            ms.load(str(bad))
    model = ms.load_mindir(str(tmp_path / "small.mindir"))
    model.graph.parameter[0].dims[0] = 1 << 40  # a size the data cannot back
    ms.save_mindir(model, str(bad))
    with pytest.raises(ValueError, match="too many elements|bytes of data"):
        ms.load(str(bad))
    model = ms.load_mindir(str(tmp_path / "small.mindir"))
    model.primitives[0].op_type = "os.system"
    ms.save_mindir(model, str(bad))
    with pytest.raises(ValueError, match="'os.system', which minispore does not run"):
        ms.load(str(bad))
    with pytest.raises(ValueError, match="only MINDIR"):
        ms.load(str(tmp_path / "small.onnx"))
    with pytest.raises(ValueError, match="does not exist"):
        ms.load(str(tmp_path / "missing.mindir"))


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_files_load_or_refuse_cleanly(tmp_path, data):
    path = tmp_path / "small.mindir"
    raw = path.read_bytes() if path.exists() else _small_mindir(tmp_path)
    blob = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 8))):
        k = data.draw(st.integers(0, len(blob) - 1))
        blob[k] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(blob)))
    fuzzed = tmp_path / "fuzzed.mindir"
    fuzzed.write_bytes(bytes(blob[:cut]) if data.draw(st.booleans()) else bytes(blob))
    try:
        graph = ms.load(str(fuzzed))
    except ValueError:
        return
    try:  # a file that still parses: running it either works or fails with a clear error
        nn.GraphCell(graph)(Tensor(np.ones((2, 3), np.float32)))
    except (ValueError, TypeError, KeyError, IndexError):
        pass


# ---- opt-in: MindSpore loads minispore's MINDIR -----------------------------------------------------

_MS_RUNNER = """
import json, sys
import numpy as np
import mindspore as ms
from mindspore import Tensor, nn
out = {}
for name, path, x_path in json.loads(sys.argv[1]):
    x = np.load(x_path)
    cell = nn.GraphCell(ms.load(path))
    out[name] = [cell(Tensor(x[k])).asnumpy().tolist() for k in sorted(x.files)]
print("RESULT" + json.dumps(out))
"""


def _mindspore_runs_minispore_mindir(tmp_path):
    jobs, want = [], {}
    nets = models()
    nets += [(f"op_{name}", *op_net(name)) for name in mindir.supported_ops()[0]]
    for name, net, shape in nets:
        net.set_train(False)
        path = str(tmp_path / f"{name}.mindir")
        ms.export(net, _dynamic(shape), file_name=path, file_format="MINDIR")
        xs = {f"b{b}": _inputs(shape, b, b) for b in (1, 3)}
        np.savez(str(tmp_path / f"{name}.npz"), **xs)
        jobs.append([name, path, str(tmp_path / f"{name}.npz")])
        want[name] = [net(Tensor(xs[k])).asnumpy() for k in sorted(xs)]
    run = subprocess.run([MS_PYTHON, "-c", _MS_RUNNER, json.dumps(jobs)], capture_output=True,
                         text=True, timeout=600, env={**os.environ, "GLOG_v": "3"}, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads(run.stdout.split("RESULT", 1)[1])
    for name, ys in want.items():
        for g, y in zip(got[name], ys):
            np.testing.assert_allclose(np.array(g, np.float32), y.astype(np.float32),
                                       rtol=1e-4, atol=1e-5, err_msg=name)


if MS_PYTHON:  # collected only when opted in: a MindSpore install is not a test dependency
    test_mindspore_runs_minispore_mindir = _mindspore_runs_minispore_mindir
