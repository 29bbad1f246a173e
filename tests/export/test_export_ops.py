"""Every primitive with an ONNX lowering or a MINDIR mapping, exported alone (behind a Dense,
so each graph has a parameter) with a dynamic batch axis: ONNX Runtime and GraphCell must give
minispore's outputs at two batch sizes. The case list must cover both tables."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.train._export import mindir, onnx_format
from minispore.train._export.graph import trace_graph

X = (None, 3, 4)
X4 = (None, 2, 6, 6)

class _Indices(nn.Cell):
    """0, 1 or 2 by the sign of y: an integer input computed in the graph."""

    def construct(self, y):
        return ((y > 0.3).astype(ms.int32) + (y > -0.3).astype(ms.int32)).squeeze(-1)


# name: (function of the Dense output y, input shape); each must run the primitive `name`.
CASES = {
    "Abs": (ops.abs, X), "Add": (lambda y: y + 0.5 * y, X),
    "AvgPool": (nn.AvgPool2d(2, 2), X4), "BatchMatMul": (lambda y: y @ y.transpose(0, 2, 1), X),
    "Cast": (lambda y: (y * 3).astype(ms.int32), X), "Ceil": (ops.ceil, X),
    "ClipByValue": (lambda y: ops.clamp(y, -0.5, 0.5), X),
    "Concat": (lambda y: ops.concat([y, y * 2], 1), X),
    "Conv2D": (nn.Conv2d(2, 3, 3, pad_mode="pad", padding=1, has_bias=True), X4),
    "Cos": (ops.cos, X), "Dense": (nn.Dense(4, 2), X),
    "Equal": (lambda y: ops.equal(ops.floor(y * 2), 0.0), X), "Erf": (ops.erf, X),
    "Exp": (ops.exp, X), "ExpandDims": (lambda y: ops.expand_dims(y, 1), X),
    "Floor": (ops.floor, X), "GeLU": (nn.GELU(approximate=True), X),
    "Getitem": (lambda y: y[:, 1:3, -1], X), "Greater": (lambda y: y > 0.1, X),
    "GreaterEqual": (lambda y: y >= 0.1, X), "Identity": (ops.identity, X),
    "LayerNorm": (nn.LayerNorm((4,)), X), "Less": (lambda y: y < 0.1, X),
    "LessEqual": (lambda y: y <= 0.1, X), "Log": (lambda y: ops.log(ops.abs(y) + 1), X),
    "LogSoftmax": (lambda y: ops.log_softmax(y, -1), X),
    "LogicalAnd": (lambda y: ops.logical_and(y > 0, y < 0.5), X),
    "LogicalNot": (lambda y: ops.logical_not(y > 0), X),
    "LogicalOr": (lambda y: ops.logical_or(y > 0.5, y < -0.5), X),
    "MatMul": (lambda y: ops.matmul(y.reshape(-1, 4), y[0].T), X),
    "MaxPool": (nn.MaxPool2d(2, 2), X4), "Maximum": (lambda y: ops.maximum(y, y * y), X),
    "Minimum": (lambda y: ops.minimum(y, y * y), X), "Mul": (lambda y: y * y, X),
    "Neg": (ops.neg, X), "Pow": (lambda y: ops.pow(ops.abs(y), 2.5), X), "ReLU": (ops.relu, X),
    "RealDiv": (lambda y: y / (ops.abs(y) + 1), X), "Reciprocal": (
        lambda y: ops.reciprocal(ops.abs(y) + 1), X),
    "ReduceMax": (lambda y: ops.amax(y, 1), X), "ReduceMin": (lambda y: ops.amin(y, 2), X),
    "ReduceProd": (lambda y: ops.prod(y, 1), X), "ReduceSum": (lambda y: y.sum(axis=2), X),
    "ReduceMean": (lambda y: y.mean(axis=(1, 2), keep_dims=True), X),
    "Reshape": (lambda y: y.reshape(-1, 12), X), "Round": (lambda y: ops.round(y * 4), X), "Rsqrt": (lambda y: ops.rsqrt(ops.abs(y) + 1), X),
    "Select": (lambda y: ops.select(y > 0, y, -y), X), "Sigmoid": (ops.sigmoid, X),
    "Sign": (ops.sign, X), "Sin": (ops.sin, X), "Softmax": (lambda y: ops.softmax(y, 1), X),
    "Softplus": (ops.softplus, X),
    "SplitSizes": (lambda y: ops.split(y, [1, 3], 2)[1] * 2, X),
    "Sqrt": (lambda y: ops.sqrt(ops.abs(y)), X), "Square": (ops.square, X),
    "Squeeze": (lambda y: ops.squeeze(y[:, :1], 1), X),
    "Stack": (lambda y: ops.stack([y, y * 2], 1), X), "Sub": (lambda y: y - y * y, X),
    "Gather": (lambda y: ops.Gather()(y, Tensor(np.array([[2, 0], [1, 1]], np.int32)), 1), X),
    "Take": (nn.SequentialCell([nn.Dense(4, 1), _Indices(), nn.Embedding(3, 2)]), X),
    "Tanh": (ops.tanh, X), "Tile": (lambda y: ops.tile(y, (1, 2, 1)), X),
    "Transpose": (lambda y: y.transpose(0, 2, 1), X),
    "Unstack": (lambda y: ops.unstack(y, 1)[0] * 2, X),
}


class _Case(nn.Cell):
    def __init__(self, fn, shape):
        super().__init__()
        self.dense = nn.Dense(shape[-1], shape[-1])
        self.fn = fn

    def construct(self, x):
        return self.fn(self.dense(x))


def _net(name):
    ms.set_seed(11)
    fn, shape = CASES[name]
    net = _Case(fn, shape)
    net.set_train(False)
    return net, shape


def _x(shape, batch):
    return np.random.default_rng(batch).standard_normal((batch, *shape[1:])).astype(np.float32)


def test_cases_cover_both_tables():
    write, _ = mindir.supported_ops()
    assert set(onnx_format.supported_ops()) | set(write) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_runs_its_primitive(name):
    net, shape = _net(name)
    graph = trace_graph(net, [Tensor(shape=list(shape), dtype=ms.float32)], "test")
    assert name in {n.op for n in graph.nodes}


@pytest.mark.parametrize("name", onnx_format.supported_ops())
def test_onnx_lowering(name, tmp_path):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    net, shape = _net(name)
    ms.export(net, Tensor(shape=list(shape), dtype=ms.float32), file_name=str(tmp_path / "m"),
              file_format="ONNX")
    session = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    for batch in (1, 3):
        x = _x(shape, batch)
        want = net(Tensor(x)).asnumpy()
        got = session.run(None, {"x": x})[0]
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", mindir.supported_ops()[0])
def test_mindir_mapping(name, tmp_path):
    pytest.importorskip("google.protobuf")
    net, shape = _net(name)
    ms.export(net, Tensor(shape=list(shape), dtype=ms.float32), file_name=str(tmp_path / "m"),
              file_format="MINDIR")
    cell = nn.GraphCell(ms.load(str(tmp_path / "m.mindir")))
    for batch in (1, 3):
        x = Tensor(_x(shape, batch))
        want = net(x).asnumpy()
        got = cell(x).asnumpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
