"""SummaryRecord, SummaryCollector and the summary operators: TensorBoard event files read back
with tensorboard's EventAccumulator; signatures and TensorDump's file names from MindSpore 2.10
(tests/train/data/make_mindspore_summary_profiler.py)."""
import errno
import inspect
import json
import os
import shutil

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.ops.operations.debug_ops import (
    HistogramSummary,
    ImageSummary,
    ScalarSummary,
    TensorDump,
    TensorSummary,
)

pytest.importorskip("tensorboardX")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
tensor_util = pytest.importorskip("tensorboard.util.tensor_util")

from minispore.train.summary import SummaryCollector, SummaryRecord

FIXTURE = os.path.join(os.path.dirname(__file__), "data", "mindspore_summary_profiler.json")
with open(FIXTURE, encoding="utf-8") as _f:
    MS = json.load(_f)


def signature_of(obj):
    return [[p.name, p.kind.name,
             None if p.default is inspect.Parameter.empty else repr(p.default)]
            for p in inspect.signature(obj).parameters.values()]


def read(log_dir):
    acc = event_accumulator.EventAccumulator(
        str(log_dir), size_guidance={"scalars": 0, "images": 0, "histograms": 0, "tensors": 0})
    acc.Reload()
    return acc


@pytest.mark.parametrize("name, obj", [
    ("SummaryRecord", SummaryRecord), ("SummaryRecord.add_value", SummaryRecord.add_value),
    ("SummaryRecord.record", SummaryRecord.record), ("SummaryRecord.set_mode",
                                                     SummaryRecord.set_mode),
    ("SummaryRecord.flush", SummaryRecord.flush), ("SummaryRecord.close", SummaryRecord.close),
    ("SummaryCollector", SummaryCollector), ("TensorDump", TensorDump),
    ("ScalarSummary", ScalarSummary)])
def test_signatures_match_mindspore(name, obj):
    assert signature_of(obj) == MS["signatures"][name]


def test_record_writes_each_kind_at_its_step(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.random((4, 3, 5, 6)).astype(np.float32)
    with SummaryRecord(str(tmp_path), network=nn.Dense(2, 3)) as record:
        for step in (1, 5, 9):
            ScalarSummary()("x", Tensor(np.float32(step * 0.5)))
            HistogramSummary()("h", Tensor(rng.standard_normal(200).astype(np.float32) + step))
            ImageSummary()("im", Tensor(images))
            TensorSummary()("t", Tensor(np.arange(6).reshape(2, 3) * step))
            record.add_value("scalar", "y", Tensor(np.float32(-step)))
            assert record.record(step)
        path = record.log_dir
    assert os.path.basename(path).startswith("events.out.tfevents.")
    assert path.endswith("_MS")
    acc = read(tmp_path)
    assert [(e.step, e.value) for e in acc.Scalars("x")] == [(1, 0.5), (5, 2.5), (9, 4.5)]
    assert [(e.step, e.value) for e in acc.Scalars("y")] == [(1, -1.0), (5, -5.0), (9, -9.0)]
    hist = acc.Histograms("h")
    assert [e.step for e in hist] == [1, 5, 9]
    assert hist[0].histogram_value.num == 200
    assert hist[2].histogram_value.min > hist[0].histogram_value.min
    im = acc.Images("im")
    assert [(e.step, e.width, e.height) for e in im] == [(1, 12, 10), (5, 12, 10), (9, 12, 10)]
    tensors = acc.Tensors("t")
    assert [e.step for e in tensors] == [1, 5, 9]
    np.testing.assert_array_equal(tensor_util.make_ndarray(tensors[1].tensor_proto),
                                  np.arange(6).reshape(2, 3) * 5)
    graph = tensor_util.make_ndarray(acc.Tensors("network/text_summary")[0].tensor_proto)
    assert b"Dense" in graph.reshape(-1)[0]


def test_image_grid_values_round_trip(tmp_path):
    import io

    from PIL import Image
    batch = np.zeros((2, 1, 2, 2), np.float32)
    batch[0] = 1.0
    batch[1, 0, 0, 0] = 0.5
    with SummaryRecord(str(tmp_path)) as record:
        record.add_value("image", "g", Tensor(batch))
        record.record(3)
    encoded = read(tmp_path).Images("g")[0].encoded_image_string
    pixels = np.asarray(Image.open(io.BytesIO(encoded)))
    assert pixels.shape[:2] == (2, 4)
    gray = pixels if pixels.ndim == 2 else pixels[..., 0]
    np.testing.assert_array_equal(gray, [[255, 255, 128, 0], [255, 255, 0, 0]])


def test_eval_mode_drops_operator_data_and_filter(tmp_path):
    with SummaryRecord(str(tmp_path)) as record:
        record.set_mode("eval")
        ScalarSummary()("dropped", Tensor(1.0))
        record.add_value("scalar", "kept", Tensor(1.0))
        record.record(1)
        record.set_mode("train")
        ScalarSummary()("op", Tensor(2.0))
        HistogramSummary()("hist", Tensor([1.0, 2.0]))
        record.record(2, plugin_filter=lambda plugin: plugin != "histogram")
    tags = read(tmp_path).Tags()
    assert sorted(tags["scalars"]) == ["kept", "op"]
    assert tags["histograms"] == []


def test_operators_keep_nothing_without_a_record():
    from minispore.ops.operations import debug_ops
    ScalarSummary()("alone", Tensor(1.0))
    assert ("scalar", "alone") not in debug_ops.take_summary_data()


def test_operators_inside_a_cell_under_grad(tmp_path):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 1)
            self.summary = ScalarSummary()

        def construct(self, x):
            y = self.dense(x).sum()
            self.summary("inner", y)
            return y

    net = Net()
    with SummaryRecord(str(tmp_path)) as record:
        value, grads = ms.value_and_grad(net, None, net.trainable_params())(
            Tensor(np.ones((2, 3), np.float32)))
        record.record(7)
    assert len(grads) == 2
    (event,) = read(tmp_path).Scalars("inner")
    assert event.step == 7
    assert event.value == pytest.approx(float(value.asnumpy()))


@pytest.mark.parametrize("op, value, error", [
    (ScalarSummary, Tensor(np.ones((2, 2), np.float32)), ValueError),
    (ScalarSummary, Tensor([1.0, 2.0]), ValueError),
    (ScalarSummary, 1.0, TypeError),
    (ImageSummary, Tensor(np.ones((3, 4, 4), np.float32)), ValueError),
    (ImageSummary, Tensor(np.ones((1, 2, 4, 4), np.float32)), ValueError),
    (TensorSummary, np.ones(2), TypeError),
])
def test_operator_argument_errors(op, value, error):
    with pytest.raises(error, match=op.__name__):
        op()("name", value)


def test_operator_name_errors():
    with pytest.raises(TypeError, match="'name' must be a str"):
        ScalarSummary()(3, Tensor(1.0))
    with pytest.raises(ValueError, match="empty"):
        ScalarSummary()("", Tensor(1.0))
    assert ScalarSummary()("fine", Tensor([1.5])) is None


def test_record_argument_errors(tmp_path):
    with pytest.raises(TypeError, match="log_dir"):
        SummaryRecord(3)
    with pytest.raises(ValueError, match="num_process"):
        SummaryRecord(str(tmp_path), num_process=0)
    with pytest.raises(TypeError, match="network"):
        SummaryRecord(str(tmp_path), network="net")
    with pytest.raises(ValueError, match="tensor_format"):
        SummaryRecord(str(tmp_path), export_options={"tensor_format": "csv"})
    with SummaryRecord(str(tmp_path)) as record:
        with pytest.raises(ValueError, match="plugin"):
            record.add_value("audio", "a", Tensor(1.0))
        with pytest.raises(TypeError, match="must be a Tensor"):
            record.add_value("scalar", "a", 1.0)
        with pytest.raises(ValueError, match="rank"):
            record.add_value("image", "a", Tensor(np.ones((2, 2), np.float32)))
        with pytest.raises(TypeError, match="step"):
            record.record(1.5)
        with pytest.raises(TypeError, match="train_network"):
            record.record(1, train_network="net")
        with pytest.raises(ValueError, match="mode"):
            record.set_mode("test")
    assert record.record(2) is False


def test_two_records_in_one_directory_write_two_files(tmp_path):
    with SummaryRecord(str(tmp_path)) as first, SummaryRecord(str(tmp_path)) as second:
        assert first.log_dir != second.log_dir
        first.add_value("scalar", "a", Tensor(1.0))
        first.record(1)
        second.add_value("scalar", "b", Tensor(2.0))
        second.record(2)
    assert len(os.listdir(tmp_path)) == 2
    assert sorted(read(tmp_path).Tags()["scalars"]) == ["a", "b"]


def test_export_tensors_as_npy(tmp_path):
    with SummaryRecord(str(tmp_path), export_options={"tensor_format": "npy"}) as record:
        TensorSummary()("w/0", Tensor(np.arange(4.0)))
        record.record(3)
    (export,) = [d for d in os.listdir(tmp_path) if d.startswith("export_")]
    saved = np.load(os.path.join(tmp_path, export, "tensor", "w_0_3.npy"))
    np.testing.assert_array_equal(saved, np.arange(4.0))


def test_full_disk_is_a_warning_then_an_error_when_asked(tmp_path, monkeypatch):
    record = SummaryRecord(str(tmp_path / "a"))

    def full(event):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(record._writer._writer, "write_event", full)
    record.add_value("scalar", "x", Tensor(1.0))
    record.record(1)
    with pytest.warns(RuntimeWarning, match="disk is full"):
        record.flush()
    record.close()

    strict = SummaryRecord(str(tmp_path / "b"), raise_exception=True)
    monkeypatch.setattr(strict._writer._writer, "write_event", full)
    strict.add_value("scalar", "x", Tensor(1.0))
    strict.record(1)
    with pytest.raises(OSError, match="No space"):
        strict.flush()
    strict.close()


def test_a_stalled_writer_drops_data_instead_of_blocking(tmp_path, monkeypatch):
    import time

    from minispore.train.summary import _writer
    real_build = _writer.build_summary

    def slow_build(kind, tag, value):
        time.sleep(0.3)
        return real_build(kind, tag, value)

    monkeypatch.setattr(_writer, "_QUEUE_SIZE", 2)
    monkeypatch.setattr(_writer, "_PUT_TIMEOUT", 0.05)
    monkeypatch.setattr(_writer, "build_summary", slow_build)
    record = SummaryRecord(str(tmp_path))

    def ten_steps():
        for step in range(10):
            record.add_value("scalar", "x", Tensor(float(step)))
            record.record(step)

    t0 = time.perf_counter()
    with pytest.warns(RuntimeWarning, match="behind"):
        ten_steps()
    assert time.perf_counter() - t0 < 2.0
    record.close()
    assert 0 < len(read(tmp_path).Scalars("x")) < 10


def test_removed_directory_warns_and_starts_a_new_file(tmp_path):
    log_dir = tmp_path / "logs"
    with SummaryRecord(str(log_dir)) as record:
        record.add_value("scalar", "x", Tensor(1.0))
        record.record(1)
        record.flush()
        shutil.rmtree(log_dir)
        with pytest.warns(RuntimeWarning, match="was removed"):
            record.flush()
        record.add_value("scalar", "x", Tensor(2.0))
        record.record(2)
    assert [(e.step, e.value) for e in read(log_dir).Scalars("x")] == [(2, 2.0)]


def test_max_file_size_stops_writing_with_a_warning(tmp_path):
    with SummaryRecord(str(tmp_path), max_file_size=400) as record:
        for step in range(30):
            record.add_value("scalar", "x", Tensor(float(step)))
            record.record(step)
        with pytest.warns(RuntimeWarning, match="max_file_size"):
            record.flush()
    assert os.path.getsize(record.log_dir) <= 400
    assert 0 < len(read(tmp_path).Scalars("x")) < 30


def _tiny_model(lr=0.1):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.dense = nn.Dense(16, 2)
            self.summary = ScalarSummary()

        def construct(self, x):
            out = self.dense(self.flatten(x))
            self.summary("logit_mean", out.mean())
            return out

    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), lr, 0.9)
    return ms.train.Model(net, loss, optimizer, metrics={"acc"}), net


def _images_dataset(n=40, batch=4):
    import minispore.dataset as ds
    rng = np.random.default_rng(1)
    x = rng.random((n, 1, 4, 4)).astype(np.float32)
    y = rng.integers(0, 2, n).astype(np.int32)
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


def test_collector_in_model_train_records_loss_every_collect_freq(tmp_path):
    ms.set_seed(0)
    model, _net = _tiny_model()
    collector = SummaryCollector(str(tmp_path), collect_freq=3)
    losses = []
    model.train(2, _images_dataset(), callbacks=[
        collector, ms.train.LambdaCallback(on_train_step_end=lambda rc: losses.append(
            float(rc.original_args().net_outputs.asnumpy())))])
    acc = read(tmp_path)
    steps = [1, 3, 6, 9, 12, 15, 18]
    loss = acc.Scalars("loss")
    assert [e.step for e in loss] == steps
    np.testing.assert_allclose([e.value for e in loss], [losses[s - 1] for s in steps],
                               rtol=1e-6)
    assert [e.step for e in acc.Scalars("learning_rate")] == steps
    assert acc.Scalars("learning_rate")[0].value == pytest.approx(0.1)
    # the operators' values still pending at the end of training are written at the last step
    assert [e.step for e in acc.Scalars("logit_mean")] == [*steps, 20]
    assert sorted(acc.Tags()["histograms"]) == ["dense.bias", "dense.weight",
                                                "gradient/dense.bias", "gradient/dense.weight"]
    assert [e.step for e in acc.Histograms("gradient/dense.weight")] == steps
    images = acc.Images("input_data")
    assert (images[0].width, images[0].height) == (8, 8)
    text = acc.Tags()["tensors"]
    assert "network/text_summary" in text
    assert "train_lineage/settings/text_summary" in text
    pipeline = tensor_util.make_ndarray(
        acc.Tensors("dataset_graph/train_dataset/text_summary")[0].tensor_proto).reshape(-1)[0]
    assert pipeline.decode().splitlines()[-2:] == ["BatchDataset", "  NumpySlicesDataset"]
    assert collector._record is None


def test_collector_gradient_histograms_are_the_step_gradients(tmp_path):
    model, net = _tiny_model()
    data = _images_dataset(8)
    x, y = next(iter(data))
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    _, grads = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None,
                                 net.trainable_params())(x, y)
    model.train(1, data, callbacks=[SummaryCollector(str(tmp_path), collect_freq=5)])
    acc = read(tmp_path)
    for param, grad in zip(net.trainable_params(), grads):
        (first, *_) = acc.Histograms(f"gradient/{param.name}")
        assert first.step == 1
        assert first.histogram_value.num == grad.size
        assert first.histogram_value.sum == pytest.approx(float(grad.asnumpy().sum()),
                                                          rel=1e-4, abs=1e-6)


def test_collector_in_model_fit_records_eval_metrics(tmp_path):
    model, _ = _tiny_model()
    model.fit(2, _images_dataset(), _images_dataset(8),
              callbacks=[SummaryCollector(str(tmp_path), collect_freq=5)])
    acc = read(tmp_path)
    assert [e.step for e in acc.Scalars("eval/acc")] == [10, 20]
    assert [e.step for e in acc.Scalars("loss")] == [1, 5, 10, 15, 20]
    (event_file,) = [f for f in os.listdir(tmp_path) if f != "ckpt_dir"]
    assert "tfevents" in event_file
    # the default collect_landscape keeps the parameters of steps 1-19, as MindSpore does
    assert sorted(os.listdir(tmp_path / "ckpt_dir")) == sorted(
        [f"Net_{i}_step.ckpt" for i in range(1, 20)] + ["train_metadata.json"])


def test_collector_switches(tmp_path):
    model, _ = _tiny_model()
    collector = SummaryCollector(
        str(tmp_path), collect_freq=4,
        collect_specified_data={"collect_metric": True, "histogram_regular": "dense.w"},
        keep_default_action=False)
    model.train(1, _images_dataset(16), callbacks=[collector])
    tags = read(tmp_path).Tags()
    assert sorted(tags["histograms"]) == ["dense.weight", "gradient/dense.weight"]
    assert "learning_rate" not in tags["scalars"]
    assert tags["images"] == []


def test_collector_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="collect_freq"):
        SummaryCollector(str(tmp_path), collect_freq=0)
    with pytest.raises(ValueError, match="collect_specified_data"):
        SummaryCollector(str(tmp_path), collect_specified_data={"collect_everything": True})
    with pytest.raises(TypeError, match="collect_metric"):
        SummaryCollector(str(tmp_path), collect_specified_data={"collect_metric": 1})
    with pytest.raises(TypeError, match="intervals"):
        SummaryCollector(str(tmp_path), collect_specified_data={"collect_landscape": {
            "landscape_size": 3}})
    with pytest.raises(TypeError, match="custom_lineage_data"):
        SummaryCollector(str(tmp_path), custom_lineage_data={"a": [1]})


def test_tensor_dump_file_names_match_mindspore(tmp_path, monkeypatch):
    from minispore.ops.operations import debug_ops
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(debug_ops, "_dump_count", [0])
    values = {"float32": np.array([1.0, 2.0], np.float32), "int64": np.array([1, 2]),
              "float16": np.array([1.0], np.float16), "float64": np.ones((2, 2))}
    for mode, name, dtype in MS["tensor_dump"]["calls"]:
        assert TensorDump(mode)(name, Tensor(values[dtype])) is None
    written = sorted(os.path.relpath(os.path.join(d, f), tmp_path)
                     for d, _, files in os.walk(tmp_path) for f in files)
    assert written == MS["tensor_dump"]["files"]
    np.testing.assert_array_equal(np.load(tmp_path / "sub" / "d_float64_3.npy"), np.ones((2, 2)))


def test_tensor_dump_errors():
    with pytest.raises(ValueError, match="input_output"):
        TensorDump("all")
    with pytest.raises(TypeError, match="'file'"):
        TensorDump()(3, Tensor([1.0]))
    with pytest.raises(TypeError, match="'input_x'"):
        TensorDump()("x", 3)


def test_missing_tensorboardx_is_a_clear_import_error(tmp_path, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    with pytest.raises(ImportError, match=r"minispore\[summary\]"):
        SummaryRecord(str(tmp_path))


def test_ops_namespace_exports_the_summary_classes():
    try:
        exported = ops.ScalarSummary
    except AttributeError:
        pytest.skip("minispore.ops.operations does not import debug_ops yet (the lead's file)")
    assert exported is ScalarSummary
    assert ops.TensorDump is TensorDump
