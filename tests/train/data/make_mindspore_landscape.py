"""Makes mindspore_landscape.json / .npz with MindSpore 2.10 (CPU):
/work/msvenv/bin/python tests/train/data/make_mindspore_landscape.py

A Dense(3, 1) network trained 4 steps (2 epochs of 2) with SummaryCollector(collect_landscape=...): the saved
file layout and train_metadata.json; the saved checkpoints' values; then SummaryLandscape's
train (PCA) and result (random, after np.random.seed(7)) landscapes on a fixed dataset, taken
from the Landscape objects before they are serialised; and the exception types of bad
arguments."""
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import mindspore as ms
from mindspore import nn
from mindspore.train import Model, SummaryCollector, SummaryLandscape
from mindspore.train.callback import _landscape

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from landscape_case import LANDSCAPE, build  # noqa: E402
Net, dataset, _callback = build(ms)


def callback_fn():  # at module level: the landscape workers pickle it by name
    return _callback()


def error_cases(summary_dir, tmp):
    landscape = SummaryLandscape(summary_dir)
    gen = landscape.gen_landscapes_with_multi_process
    return {
        "device_ids_none": lambda: gen(callback_fn),
        "device_ids_8": lambda: gen(callback_fn, device_ids=[8]),
        "device_ids_str": lambda: gen(callback_fn, device_ids=["0"]),
        "device_ids_tuple": lambda: gen(callback_fn, device_ids=(0,)),
        "bad_key": lambda: gen(callback_fn, collect_landscape={"size": 3}, device_ids=[0]),
        "size_2": lambda: gen(callback_fn, collect_landscape={"landscape_size": 2},
                              device_ids=[0]),
        "unit_bad": lambda: gen(callback_fn, collect_landscape={"unit": "batch"}, device_ids=[0]),
        "create_one_key": lambda: gen(callback_fn, collect_landscape={
            "create_landscape": {"train": True}}, device_ids=[0]),
        "interval_short": lambda: gen(callback_fn, collect_landscape={"intervals": [[1, 2]]},
                                      device_ids=[0]),
        "no_metadata": lambda: SummaryLandscape(os.path.join(tmp, "empty"))
        .gen_landscapes_with_multi_process(callback_fn, device_ids=[0]),
        "collector_no_intervals": lambda: SummaryCollector(
            os.path.join(tmp, "c1"), collect_specified_data={"collect_landscape": {
                "landscape_size": 3}}),
        "collector_size_300": lambda: SummaryCollector(
            os.path.join(tmp, "c2"), collect_specified_data={"collect_landscape": dict(
                LANDSCAPE, landscape_size=300)}),
        "collector_unit": lambda: SummaryCollector(
            os.path.join(tmp, "c3"), collect_specified_data={"collect_landscape": dict(
                LANDSCAPE, unit="batch")}),
        "collector_bad_key": lambda: SummaryCollector(
            os.path.join(tmp, "c4"), collect_specified_data={"collect_landscape": dict(
                LANDSCAPE, extra=1)}),
        "collector_interval_float": lambda: SummaryCollector(
            os.path.join(tmp, "c5"), collect_specified_data={"collect_landscape": dict(
                LANDSCAPE, intervals=[[1, 2, 3.0]])}),
        "collector_create_bad": lambda: SummaryCollector(
            os.path.join(tmp, "c6"), collect_specified_data={"collect_landscape": dict(
                LANDSCAPE, create_landscape={"train": 1, "result": True})}),
        "collector_landscape_list": lambda: SummaryCollector(
            os.path.join(tmp, "c7"), collect_specified_data={"collect_landscape": [1]}),
    }


def error_of(key, summary_dir, tmp):
    """The exception type of one bad call, in a fresh process: a failed
    gen_landscapes_with_multi_process leaves its SummaryRecord open, and MindSpore then refuses
    every later SummaryRecord of the process with a RuntimeError."""
    done = subprocess.run([sys.executable, __file__, key, summary_dir, tmp], check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def error_child(key, summary_dir, tmp):
    try:
        error_cases(summary_dir, tmp)[key]()
    except Exception as e:  # noqa: BLE001
        print(json.dumps(type(e).__name__))
        return
    print(json.dumps(None))


def main():
    out = {"signatures": {}}
    for name, obj in (("SummaryLandscape", SummaryLandscape),
                      ("gen_landscapes_with_multi_process",
                       SummaryLandscape.gen_landscapes_with_multi_process),
                      ("clean_ckpt", SummaryLandscape.clean_ckpt)):
        out["signatures"][name] = [
            [p.name, p.kind.name, None if p.default is inspect.Parameter.empty else repr(p.default)]
            for p in inspect.signature(obj).parameters.values()]
    out["public"] = sorted(n for n in dir(SummaryLandscape) if not n.startswith("_"))
    tmp = tempfile.mkdtemp()
    summary_dir = os.path.join(tmp, "summary")
    net = Net()
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    collector = SummaryCollector(summary_dir, collect_freq=1,
                                 collect_specified_data={"collect_landscape": LANDSCAPE})
    model.train(2, dataset(), callbacks=[collector], dataset_sink_mode=False)
    ckpt_dir = os.path.join(summary_dir, "ckpt_dir")
    out["ckpt_dir_files"] = sorted(os.listdir(ckpt_dir))
    with open(os.path.join(ckpt_dir, "train_metadata.json"), encoding="utf-8") as f:
        meta = json.load(f)
    meta["model_params_file_map"] = {k: os.path.basename(v)
                                     for k, v in meta["model_params_file_map"].items()}
    out["metadata"] = meta
    arrays = {}
    for step, name in meta["model_params_file_map"].items():
        for pname, p in ms.load_checkpoint(os.path.join(ckpt_dir, name)).items():
            arrays[f"ckpt{step}/{pname}"] = p.asnumpy()
    caught = []
    original = _landscape.Landscape.transform_to_loss_landscape_msg

    def keep(self, data):
        item = {"decomposition": data.decomposition, "intervals": list(data.intervals),
                "unit": data.unit, "step_per_epoch": data.step_per_epoch}
        pts = data.landscape_points
        arrays[f"{data.decomposition}/x"] = np.asarray(pts.x)
        arrays[f"{data.decomposition}/y"] = np.asarray(pts.y)
        arrays[f"{data.decomposition}/z"] = np.asarray(pts.z)
        if data.path_points:
            for k in "xyz":
                arrays[f"{data.decomposition}/path_{k}"] = np.asarray(getattr(data.path_points, k))
        for k in "xyz":
            arrays[f"{data.decomposition}/convergence_{k}"] = np.asarray(
                getattr(data.convergence_point, k))
        caught.append(item)
        return original(self, data)

    _landscape.Landscape.transform_to_loss_landscape_msg = keep
    landscape = SummaryLandscape(summary_dir)
    out_dir = os.path.join(tmp, "out")
    np.random.seed(7)
    landscape.gen_landscapes_with_multi_process(callback_fn, device_ids=[0], output=out_dir)
    out["landscapes"] = caught
    out["output_files"] = len(os.listdir(out_dir))
    out["summary_dir_after"] = sorted(os.listdir(summary_dir))
    # the default SummaryCollector: does it keep checkpoints for a landscape?
    default_dir = os.path.join(tmp, "default")
    net = Net()
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    model.train(1, dataset(), callbacks=[SummaryCollector(default_dir)], dataset_sink_mode=False)
    out["default_collector_files"] = sorted(os.listdir(default_dir))
    if os.path.isdir(os.path.join(default_dir, "ckpt_dir")):
        out["default_ckpt_dir_files"] = sorted(os.listdir(os.path.join(default_dir, "ckpt_dir")))
    out["errors"] = {k: error_of(k, summary_dir, tmp) for k in error_cases(summary_dir, tmp)}
    landscape.clean_ckpt()
    out["after_clean"] = sorted(os.listdir(summary_dir))
    with open(os.path.join(HERE, "mindspore_landscape.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    np.savez(os.path.join(HERE, "mindspore_landscape.npz"), **arrays)
    shutil.rmtree(tmp)


if __name__ == "__main__":
    if len(sys.argv) == 4:
        error_child(*sys.argv[1:])
    else:
        main()
