"""Make mindspore_pipeline.npz: results of MindSpore 2.10's padded_batch, bucket_batch_by_length,
PaddedDataset, Schema, DSCallback, sync_wait and the signatures of the pipeline API.

Run with the MindSpore venv from a scratch directory (MindSpore writes stray files to the cwd):
    cd /tmp/x && /tmp/msvenv/bin/python /work/main/tests/dataset/data/make_mindspore_pipeline.py
"""
import inspect
import json
import os
import sys

import mindspore as ms
import mindspore.dataset as ds
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mindspore_pipeline.npz")
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from pipeline_cases import cases, rows  # noqa: E402

CASES = cases(ds)


def _init_step_rows():
    d = ds.NumpySlicesDataset(list(range(5)), shuffle=False)
    d.set_init_step(2)
    return d.get_init_step(), rows(d), rows(d)


def _flags():
    plain = ds.NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False)
    return [plain.is_shuffled(), ds.NumpySlicesDataset([1, 2]).is_shuffled(),
            plain.shuffle(2).is_shuffled(), plain.is_sharded(),
            ds.NumpySlicesDataset([1, 2], num_shards=2, shard_id=0).is_sharded(),
            plain.get_class_indexing(), plain.num_classes(),
            ds.RandomSampler().is_shuffled(), ds.DistributedSampler(2, 0).is_sharded(),
            ds.SequentialSampler().is_sharded()]


def _pk_sizes(root):
    """PKSampler sizes over an MNIST folder with labels [3, 1, 2, 3, 1, 2, 3, 1, 3, 5]."""
    from files import write_idx_images, write_idx_labels
    os.makedirs(root, exist_ok=True)
    write_idx_images(os.path.join(root, "train-images-idx3-ubyte"),
                     np.zeros((10, 28, 28), np.uint8))
    write_idx_labels(os.path.join(root, "train-labels-idx1-ubyte"), PK_LABELS)
    out = {}
    for name, kw in {"k2": {"num_val": 2}, "k3": {"num_val": 3},
                     "k2_n3": {"num_val": 2, "num_samples": 3}}.items():
        d = ds.MnistDataset(root, usage="train", sampler=ds.PKSampler(**kw))
        labels = [int(r[1]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
        out[name] = {"size": d.get_dataset_size(), "labels": labels}
    return out


PK_LABELS = [3, 1, 2, 3, 1, 2, 3, 1, 3, 5]


def main():
    out = {}
    for name, make in CASES.items():
        d = make()
        out[name] = {"rows": rows(make()), "size": d.get_dataset_size(),
                     "columns": d.get_col_names(),
                     "types": [str(t) for t in make().output_types()]}
    init_step, first, second = _init_step_rows()
    out["init_step"] = {"step": init_step, "first": first, "second": second}
    out["flags"] = _flags()
    probe = ds.DistributedSampler(2, 0, shuffle=False)
    out["set_offset_returns_self"] = probe.set_offset(1) is probe
    out["pk"] = _pk_sizes(os.path.abspath("pk_mnist"))
    s = ds.Schema()
    s.add_column("image", de_type=ms.uint8, shape=[2, 2])
    s.add_column("label", de_type=ms.int32)
    out["schema"] = json.loads(s.to_json())
    log = []

    class Recorder(ds.DSCallback):
        def ds_begin(self, c):
            log.append(["begin", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num])

        def ds_epoch_begin(self, c):
            log.append(["epoch_begin", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num])

        def ds_epoch_end(self, c):
            log.append(["epoch_end", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num])

        def ds_step_begin(self, c):
            log.append(["step_begin", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num])

        def ds_step_end(self, c):
            log.append(["step_end", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num])

    d = ds.NumpySlicesDataset(list(range(5)), shuffle=False).map(lambda x: x,
                                                                 callbacks=[Recorder(2)])
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    for _ in range(2):
        for _ in it:
            pass
    out["callback_log"] = log  # MindSpore calls the hooks asynchronously: compare as sets
    d = ds.NumpySlicesDataset(list(range(6)), shuffle=False)
    seen = []
    d = d.sync_wait(condition_name="p", num_batch=2, callback=seen.append).batch(2)
    got = []
    for i, r in enumerate(d.create_tuple_iterator(output_numpy=True, num_epochs=1)):
        got.append(r[0].tolist())
        d.sync_update(condition_name="p", data={"i": i})
    out["sync"] = {"rows": got, "seen": seen}
    sigs = {}
    for name in ["PaddedDataset", "RandomDataset", "Schema", "DSCallback", "WaitedDSCallback",
                 "WeightedRandomSampler", "SubsetSampler", "serialize", "deserialize", "show",
                 "compare", "TFRecordDataset", "YesNoDataset", "SpeechCommandsDataset",
                 "LJSpeechDataset", "CMUArcticDataset", "LibriTTSDataset"]:
        sigs[name] = str(inspect.signature(getattr(ds, name)))
    for name in ["padded_batch", "bucket_batch_by_length", "sync_wait", "sync_update",
                 "to_json", "output_shapes", "output_types", "get_col_names", "apply",
                 "flat_map", "get_class_indexing", "num_classes", "is_shuffled", "is_sharded",
                 "set_init_step", "get_init_step"]:
        sigs["Dataset." + name] = str(inspect.signature(getattr(ds.Dataset, name)))
    for name in ["add_column", "parse_columns", "from_json", "to_json"]:
        sigs["Schema." + name] = str(inspect.signature(getattr(ds.Schema, name)))
    for name in ["add_child", "get_child", "get_indices", "is_shuffled", "is_sharded"]:
        sigs["Sampler." + name] = str(inspect.signature(getattr(ds.Sampler, name)))
    sigs["DistributedSampler.set_offset"] = str(inspect.signature(
        ds.DistributedSampler.set_offset))
    sigs["PKSampler"] = str(inspect.signature(ds.PKSampler))
    config = {}
    for name in dir(ds.config):
        if name.startswith(("get_", "set_")) or name == "load":
            config[name] = str(inspect.signature(getattr(ds.config, name)))
    out["signatures"] = sigs
    out["config_signatures"] = config
    np.savez_compressed(OUT, results=np.array(json.dumps(out)))


if __name__ == "__main__":
    main()
