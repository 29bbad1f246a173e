"""`minispore.onnx.export` (MindSpore's `mindspore.onnx.export`): names, dynamic axes,
parameters as graph inputs, and its argument checks (ValueError, as MindSpore raises)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _dims(value_info):
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


def _net():
    ms.set_seed(3)
    net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    net.set_train(False)
    return net


def test_names_and_dynamic_axes(tmp_path):
    net = _net()
    x = Tensor(np.ones((2, 3), np.float32))
    ms.onnx.export(net, x, file_name=str(tmp_path / "m"), input_names=["inp"],
                   output_names=["out"], dynamic_axes={"inp": {0: "batch"}})
    m = onnx.load(str(tmp_path / "m.onnx"))
    assert [(i.name, _dims(i)) for i in m.graph.input] == [("inp", ["batch", 3])]
    assert [o.name for o in m.graph.output] == ["out"]
    assert {i.name for i in m.graph.initializer} >= {"0.weight", "0.bias", "2.weight", "2.bias"}
    session = ort.InferenceSession(str(tmp_path / "m.onnx"))
    v = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(session.run(["out"], {"inp": v})[0], net(Tensor(v)).asnumpy(),
                               rtol=1e-5, atol=1e-6)


def test_static_by_default_and_construct_names(tmp_path):
    net = _net()
    ms.onnx.export(net, Tensor(np.ones((2, 3), np.float32)), file_name=str(tmp_path / "m.onnx"))
    m = onnx.load(str(tmp_path / "m.onnx"))
    assert [(i.name, _dims(i)) for i in m.graph.input] == [("input_data", [2, 3])]


def test_parameters_as_inputs(tmp_path):
    net = _net()
    x = np.ones((2, 3), np.float32)
    ms.onnx.export(net, Tensor(x), file_name=str(tmp_path / "p"), export_params=False)
    m = onnx.load(str(tmp_path / "p.onnx"))
    params = {p.name: p.asnumpy() for p in net.get_parameters()}
    assert [i.name for i in m.graph.input] == ["input_data", *params]
    assert not m.graph.initializer
    got = ort.InferenceSession(str(tmp_path / "p.onnx")).run(None, {"input_data": x, **params})
    np.testing.assert_allclose(got[0], net(Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-6)
    ms.onnx.export(net, Tensor(x), file_name=str(tmp_path / "k"), keep_initializers_as_inputs=True)
    m = onnx.load(str(tmp_path / "k.onnx"))
    assert [i.name for i in m.graph.input] == ["input_data", *params]
    assert [i.name for i in m.graph.initializer] == list(params)


def test_argument_checks(tmp_path):
    net = _net()
    x = Tensor(np.ones((2, 3), np.float32))
    path = str(tmp_path / "m")
    for kwargs, match in (({"input_names": "a"}, "input_names"),
                          ({"output_names": "o"}, "output_names"),
                          ({"dynamic_axes": [1]}, "dynamic_axes"),
                          ({"dynamic_axes": {"nope": {0: "b"}}}, "nope"),
                          ({"dynamic_axes": {"input_data": {5: "b"}}}, "axis 5"),
                          ({"input_names": ["a", "b"]}, "each of the 1 inputs"),
                          ({"output_names": ["a", "b"]}, "each of the 1 outputs")):
        with pytest.raises(ValueError, match=match):
            ms.onnx.export(net, x, file_name=path, **kwargs)
    with pytest.raises(ValueError, match="'net' must be isinstance"):
        ms.onnx.export(lambda t: t, x, file_name=path)
