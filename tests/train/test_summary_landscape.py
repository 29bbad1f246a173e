"""SummaryLandscape and SummaryCollector's collect_landscape: the checkpoints and metadata the
collector keeps, the landscapes read back from the summary file, checked against MindSpore 2.10's
values for a Dense(3, 1) network (tests/train/data/make_mindspore_landscape.py)."""
import inspect
import json
import os
import shutil
import sys

import numpy as np
import pytest

import minispore as ms
from minispore import nn
from minispore.train import Model, SummaryCollector, SummaryLandscape

pytest.importorskip("tensorboardX")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
tensor_util = pytest.importorskip("tensorboard.util.tensor_util")

DATA = os.path.join(os.path.dirname(__file__), "data")
with open(os.path.join(DATA, "mindspore_landscape.json"), encoding="utf-8") as _f:
    MS = json.load(_f)
MS_ARRAYS = np.load(os.path.join(DATA, "mindspore_landscape.npz"))

sys.path.insert(0, DATA)
from landscape_case import LANDSCAPE, X, Y, build  # noqa: E402
sys.path.pop(0)
Net, dataset, _callback = build(ms)


def callback_fn():  # at module level: the landscape workers pickle it by name
    return _callback()


def train(summary_dir, landscape=None, epochs=2):
    net = Net()
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    collector = SummaryCollector(str(summary_dir), collect_freq=1, collect_specified_data={
        "collect_landscape": landscape or LANDSCAPE})
    model.train(epochs, dataset(), callbacks=[collector], dataset_sink_mode=False)


def read_tensors(log_dir):
    acc = event_accumulator.EventAccumulator(str(log_dir), size_guidance={"tensors": 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags()["tensors"]:
        (event,) = acc.Tensors(tag)
        assert event.step == 0
        value = tensor_util.make_ndarray(event.tensor_proto)
        out[tag] = json.loads(value[0]) if value.dtype.kind in "OS" else value
    return out


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    path = tmp_path_factory.mktemp("landscape") / "summary"
    train(path)
    return path


def copy_of(trained, tmp_path):
    """A copy of the run (its metadata points at the shared checkpoints), for calls that
    rewrite the metadata."""
    return str(shutil.copytree(trained, tmp_path / "run"))


def signature_of(obj):
    return [[p.name, p.kind.name,
             None if p.default is inspect.Parameter.empty else repr(p.default)]
            for p in inspect.signature(obj).parameters.values()]


def test_signatures_and_names_match_mindspore():
    assert ms.SummaryLandscape is SummaryLandscape is ms.train.SummaryLandscape
    assert signature_of(SummaryLandscape) == MS["signatures"]["SummaryLandscape"]
    assert (signature_of(SummaryLandscape.gen_landscapes_with_multi_process)
            == MS["signatures"]["gen_landscapes_with_multi_process"])
    assert signature_of(SummaryLandscape.clean_ckpt) == MS["signatures"]["clean_ckpt"]
    assert sorted(n for n in dir(SummaryLandscape) if not n.startswith("_")) == MS["public"]


def test_collector_saves_mindspores_checkpoints_and_metadata(trained):
    ckpt_dir = trained / "ckpt_dir"
    assert sorted(os.listdir(ckpt_dir)) == MS["ckpt_dir_files"]
    with open(ckpt_dir / "train_metadata.json", encoding="utf-8") as f:
        meta = json.load(f)
    meta["model_params_file_map"] = {k: os.path.basename(v)
                                     for k, v in meta["model_params_file_map"].items()}
    assert meta == MS["metadata"]
    for step in range(1, 5):
        for name, param in ms.load_checkpoint(str(ckpt_dir / f"Net_{step}_step.ckpt")).items():
            np.testing.assert_allclose(param.asnumpy(), MS_ARRAYS[f"ckpt{step}/{name}"],
                                       rtol=1e-5, atol=1e-6)


def test_epoch_unit_saves_at_epoch_ends(tmp_path):
    train(tmp_path, dict(LANDSCAPE, unit="epoch", intervals=[[1, 2, 3]]), epochs=3)
    assert sorted(os.listdir(tmp_path / "ckpt_dir")) == [
        "Net_1_epoch.ckpt", "Net_2_epoch.ckpt", "Net_3_epoch.ckpt", "train_metadata.json"]


@pytest.mark.parametrize("device_ids", [[0], [0, 1]])
def test_landscapes_match_mindspore(trained, tmp_path, device_ids):
    np.random.seed(7)  # the random directions of the result landscape, as in the fixture
    SummaryLandscape(str(trained)).gen_landscapes_with_multi_process(
        callback_fn, device_ids=device_ids, output=str(tmp_path))
    got = read_tensors(tmp_path)
    pca, rand = MS["landscapes"]
    assert got["custom_lineage_data/landscape_1_4/text_summary"] == dict(
        pca, num_samples=8)
    assert got["custom_lineage_data/landscape_4/text_summary"] == dict(rand, num_samples=8)
    close = dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["landscape_1_4/x"], MS_ARRAYS["PCA/x"][0], **close)
    np.testing.assert_allclose(got["landscape_1_4/y"], MS_ARRAYS["PCA/y"][:, 0], **close)
    np.testing.assert_allclose(got["landscape_1_4/z"], MS_ARRAYS["PCA/z"], **close)
    for k in "xyz":
        np.testing.assert_allclose(got[f"landscape_1_4/path_{k}"], MS_ARRAYS[f"PCA/path_{k}"],
                                   **close)
    np.testing.assert_allclose(got["landscape_1_4/convergence"], [
        MS_ARRAYS[f"PCA/convergence_{k}"][0] for k in "xyz"], **close)
    np.testing.assert_allclose(got["landscape_4/z"], MS_ARRAYS["Random/z"], **close)
    np.testing.assert_allclose(got["landscape_4/x"], MS_ARRAYS["Random/x"][0], **close)
    np.testing.assert_allclose(got["landscape_4/convergence"], [
        MS_ARRAYS[f"Random/convergence_{k}"][0] for k in "xyz"], **close)


def test_landscape_values_are_the_loss_at_each_point(trained, tmp_path):
    """z at the PCA grid's centre line and the path end are the loss of the final checkpoint."""
    run = copy_of(trained, tmp_path)
    SummaryLandscape(run).gen_landscapes_with_multi_process(
        callback_fn, collect_landscape={"create_landscape": {"train": False, "result": True},
                                        "landscape_size": 5}, output=str(tmp_path / "out"))
    got = read_tensors(tmp_path / "out")
    assert "landscape_1_4/z" not in got
    net = Net()
    ms.load_param_into_net(net, ms.load_checkpoint(str(trained / "ckpt_dir" /
                                                       "Net_4_step.ckpt")))
    loss = float(((net(ms.Tensor(X)).asnumpy() - Y) ** 2).mean())
    assert got["landscape_4/z"].shape == (5, 5)
    assert got["landscape_4/z"][2, 2] == pytest.approx(loss, rel=1e-5)
    # the override is kept in the metadata, as MindSpore does
    with open(os.path.join(run, "ckpt_dir", "train_metadata.json"), encoding="utf-8") as f:
        meta = json.load(f)
    assert meta["landscape_size"] == 5


def test_device_ids_none_computes_in_this_process(trained, tmp_path):
    """MindSpore 2.10 fails on None (a TypeError from len(None)); minispore computes here."""
    assert MS["errors"]["device_ids_none"] == "TypeError"
    SummaryLandscape(copy_of(trained, tmp_path)).gen_landscapes_with_multi_process(
        callback_fn, collect_landscape={"create_landscape": {"train": True, "result": False}},
        output=str(tmp_path / "out"))
    got = read_tensors(tmp_path / "out")
    np.testing.assert_allclose(got["landscape_1_4/z"], MS_ARRAYS["PCA/z"], rtol=1e-5, atol=1e-6)
    assert "landscape_4/z" not in got


@pytest.mark.parametrize("case, kwargs, error", [
    ("device_ids_8", {"device_ids": [8]}, ValueError),
    ("device_ids_str", {"device_ids": ["0"]}, TypeError),
    ("device_ids_tuple", {"device_ids": (0,)}, TypeError),
    ("bad_key", {"collect_landscape": {"size": 3}}, ValueError),
    ("size_2", {"collect_landscape": {"landscape_size": 2}}, ValueError),
    ("unit_bad", {"collect_landscape": {"unit": "batch"}}, ValueError),
    ("create_one_key", {"collect_landscape": {"create_landscape": {"train": True}}}, ValueError),
    ("interval_short", {"collect_landscape": {"intervals": [[1, 2]]}}, ValueError),
])
def test_gen_argument_errors(trained, tmp_path, case, kwargs, error):
    assert MS["errors"][case] == error.__name__
    with pytest.raises(error):
        SummaryLandscape(str(trained)).gen_landscapes_with_multi_process(
            callback_fn, output=str(tmp_path), **kwargs)
    assert os.listdir(tmp_path) == []  # checked before any file is written


def test_missing_metadata_and_clean_ckpt(tmp_path):
    assert MS["errors"]["no_metadata"] == "FileNotFoundError"
    with pytest.raises(FileNotFoundError, match="train_metadata.json"):
        SummaryLandscape(str(tmp_path / "empty")).gen_landscapes_with_multi_process(callback_fn)
    train(tmp_path / "run")
    landscape = SummaryLandscape(str(tmp_path / "run"))
    landscape.clean_ckpt()
    assert "ckpt_dir" not in os.listdir(tmp_path / "run")
    assert "ckpt_dir" not in MS["after_clean"]


@pytest.mark.parametrize("case, landscape, error", [
    ("collector_no_intervals", {"landscape_size": 3}, TypeError),
    ("collector_size_300", dict(LANDSCAPE, landscape_size=300), ValueError),
    ("collector_unit", dict(LANDSCAPE, unit="batch"), ValueError),
    ("collector_bad_key", dict(LANDSCAPE, extra=1), ValueError),
    ("collector_interval_float", dict(LANDSCAPE, intervals=[[1, 2, 3.0]]), TypeError),
    ("collector_create_bad", dict(LANDSCAPE, create_landscape={"train": 1, "result": True}),
     TypeError),
    ("collector_landscape_list", [1], TypeError),
])
def test_collector_landscape_errors(tmp_path, case, landscape, error):
    assert MS["errors"][case] == error.__name__
    with pytest.raises(error):
        SummaryCollector(str(tmp_path), collect_specified_data={"collect_landscape": landscape})


def test_default_collector_keeps_landscape_checkpoints(tmp_path):
    net = Net()
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    model.train(1, dataset(), callbacks=[SummaryCollector(str(tmp_path))])
    assert sorted(os.listdir(tmp_path / "ckpt_dir")) == MS["default_ckpt_dir_files"]


def test_callback_without_loss_metric_is_refused(trained, tmp_path):
    def no_loss():
        net = Net()
        metrics = {"acc": ms.train.Accuracy()}
        return Model(net, nn.MSELoss(), metrics=metrics), net, dataset(), metrics

    with pytest.raises(ValueError, match="'Loss'"):
        SummaryLandscape(str(trained)).gen_landscapes_with_multi_process(
            no_loss, output=str(tmp_path))
    with pytest.raises(TypeError, match="callback_fn"):
        SummaryLandscape(str(trained)).gen_landscapes_with_multi_process(
            lambda: {"model": None}, output=str(tmp_path))
    assert os.listdir(tmp_path) == []
