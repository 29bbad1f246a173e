"""Pipeline breadth: padded_batch, bucket_batch_by_length, sync_wait, PaddedDataset,
RandomDataset, Schema, dataset callbacks, WeightedRandomSampler, the JSON form, config settings
and process workers; values checked against MindSpore 2.10 (data/make_mindspore_pipeline.py)."""
import inspect
import json
import os
import sys
import threading
import time

import numpy as np
import pytest

import minispore as ms
import minispore.dataset as ds
from minispore.dataset import transforms
from minispore.dataset._parallel import WorkerDied, current_rng

FIXTURE = os.path.join(os.path.dirname(__file__), "data", "mindspore_pipeline.npz")
MS = json.loads(str(np.load(FIXTURE)["results"]))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from pipeline_cases import cases, gen, rows  # noqa: E402
sys.path.pop(0)
CASES = cases(ds)


def source():
    return ds.GeneratorDataset(gen, ["x", "y"], shuffle=False)


@pytest.fixture(autouse=True)
def _restore_config():
    seed, timeout = ds.config.get_seed(), ds.config.get_callback_timeout()
    yield
    ds.config.set_seed(seed)
    ds.config.set_callback_timeout(timeout)
    ds.config.set_multiprocessing_start_method("fork")
    ds.config.set_enable_shared_mem(True)
    ds.config.set_debug_mode(False)


# ---- against MindSpore ------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mindspore(name):
    want = MS[name]
    d = CASES[name]()
    assert rows(d) == want["rows"]
    assert d.get_dataset_size() == want["size"]
    assert d.get_col_names() == want["columns"]
    assert [str(t) for t in CASES[name]().output_types()] == want["types"]


def test_signatures_match_mindspore():
    for name, sig in MS["signatures"].items():
        owner, _, attr = name.rpartition(".")
        obj = getattr(getattr(ds, owner) if owner else ds, attr)
        assert str(inspect.signature(obj)) == sig, name
    for name, sig in MS["config_signatures"].items():
        assert str(inspect.signature(getattr(ds.config, name))) == sig, name


def test_schema_json_matches_mindspore():
    s = ds.Schema()
    s.add_column("image", de_type=ms.uint8, shape=[2, 2])
    s.add_column("label", de_type=ms.int32)
    assert json.loads(s.to_json()) == MS["schema"]
    assert str(s) == s.to_json()


def test_callbacks_match_mindspore():
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
    # MindSpore runs its hooks asynchronously, so only the set of calls is comparable.
    assert sorted(map(tuple, log)) == sorted(map(tuple, MS["callback_log"]))
    assert log[0][0] == "begin" and log[1][0] == "epoch_begin" and log[-1][0] == "epoch_end"


def test_sync_wait_matches_mindspore():
    d = ds.NumpySlicesDataset(list(range(6)), shuffle=False)
    seen = []
    d = d.sync_wait(condition_name="p", num_batch=2, callback=seen.append).batch(2)
    got = []
    for i, r in enumerate(d.create_tuple_iterator(output_numpy=True, num_epochs=1)):
        got.append(r[0].tolist())
        d.sync_update(condition_name="p", data={"i": i})
    assert got == MS["sync"]["rows"] and seen == MS["sync"]["seen"]


def test_dataset_flags_and_init_step_match_mindspore():
    plain = ds.NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False)
    flags = [plain.is_shuffled(), ds.NumpySlicesDataset([1, 2]).is_shuffled(),
             plain.shuffle(2).is_shuffled(), plain.is_sharded(),
             ds.NumpySlicesDataset([1, 2], num_shards=2, shard_id=0).is_sharded(),
             plain.get_class_indexing(), plain.num_classes(),
             ds.RandomSampler().is_shuffled(), ds.DistributedSampler(2, 0).is_sharded(),
             ds.SequentialSampler().is_sharded()]
    assert flags == MS["flags"]
    d = ds.NumpySlicesDataset(list(range(5)), shuffle=False)
    d.set_init_step(2)
    want = MS["init_step"]
    assert (d.get_init_step(), rows(d), rows(d)) == (want["step"], want["first"], want["second"])
    probe = ds.DistributedSampler(2, 0, shuffle=False)
    assert (probe.set_offset(1) is probe) == MS["set_offset_returns_self"]


def test_init_step_past_an_epoch():
    d = ds.NumpySlicesDataset(list(range(5)), shuffle=False)
    d.set_init_step(7)
    it = d.create_tuple_iterator(num_epochs=3, output_numpy=True)
    assert [[int(r[0]) for r in it] for _ in range(2)] == [[2, 3, 4], [0, 1, 2, 3, 4]]
    with pytest.raises(RuntimeError, match="epoch"):
        next(it)
    assert [r[0] for r in rows(d.batch(2))] == [[0, 1], [2, 3], [4]]
    with pytest.raises(ValueError):
        d.set_init_step(-1)


def test_flat_map_and_apply_checks():
    d = ds.NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False)
    with pytest.raises(TypeError, match="must return a Dataset"):
        rows(d.flat_map(lambda x: x))
    with pytest.raises(TypeError, match="must return a Dataset"):
        d.apply(lambda x: 1)
    two = d.flat_map(lambda x: ds.NumpySlicesDataset({"a": x, "b": -x}, shuffle=False))
    assert two.get_col_names() == ["a", "b"] and rows(two)[1] == [2, -2]


def test_pk_sampler_matches_mindspore(tmp_path):
    from tests.dataset.files import write_idx_images, write_idx_labels
    labels = [3, 1, 2, 3, 1, 2, 3, 1, 3, 5]
    write_idx_images(str(tmp_path / "train-images-idx3-ubyte"),
                     np.arange(10)[:, None, None] * np.ones((10, 28, 28), np.uint8))
    write_idx_labels(str(tmp_path / "train-labels-idx1-ubyte"), labels)
    for name, kw in {"k2": {"num_val": 2}, "k3": {"num_val": 3},
                     "k2_n3": {"num_val": 2, "num_samples": 3}}.items():
        d = ds.MnistDataset(str(tmp_path), usage="train", sampler=ds.PKSampler(**kw))
        got = [(int(r[0][0, 0, 0]), int(r[1])) for r in
               d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
        # Rows within a class are random in MindSpore too: compare sizes and labels.
        assert d.get_dataset_size() == MS["pk"][name]["size"]
        assert [lab for _, lab in got] == MS["pk"][name]["labels"]
        assert all(labels[row] == lab for row, lab in got)
    ds.config.set_seed(2)
    d = ds.MnistDataset(str(tmp_path), usage="train", sampler=ds.PKSampler(3, shuffle=True))
    got = [int(r[1]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
    assert sorted(got) == [1, 1, 1, 2, 2, 2, 3, 3, 3, 5, 5, 5]
    by_class = {}
    for (row, lab) in [(int(r[0][0, 0, 0]), int(r[1])) for r in
                       ds.MnistDataset(str(tmp_path), usage="train", sampler=ds.PKSampler(
                           3)).create_tuple_iterator(output_numpy=True, num_epochs=1)]:
        by_class.setdefault(lab, []).append(row)
    assert len(set(by_class[1])) == 3 and len(set(by_class[3])) == 3
    with pytest.raises(ValueError):
        ds.PKSampler(0)
    with pytest.raises(NotImplementedError):
        ds.PKSampler(2, num_class=3)
    with pytest.raises(ValueError, match="class column"):
        rows(ds.NumpySlicesDataset([1, 2], sampler=ds.PKSampler(1)))


def test_sampler_chain_checks():
    s = ds.SequentialSampler()
    s.add_child(ds.RandomSampler())
    assert s.is_shuffled() and s.get_child() is not None
    with pytest.raises(RuntimeError, match="already"):
        s.add_child(ds.SequentialSampler())
    with pytest.raises(TypeError):
        ds.SequentialSampler().add_child([1, 2])

    class Reverse(ds.Sampler):
        def __iter__(self):
            return iter(range(self.dataset_size - 1, -1, -1))

    r = Reverse()
    r.dataset_size = 3
    assert r.get_indices() == [2, 1, 0]


# ---- padded_batch / bucket_batch_by_length ----------------------------------------------------

def test_padded_batch_strings_and_errors():
    def words():
        for s in ["a", "bb"]:
            yield (np.array([s] * len(s)),)

    d = ds.GeneratorDataset(words, ["s"])
    assert rows(d.padded_batch(2, pad_info={"s": (None, "z")})) == [[[["a", "z"], ["bb", "bb"]]]]
    assert rows(d.padded_batch(2, pad_info={})) == [[[["a", ""], ["bb", "bb"]]]]
    with pytest.raises(ValueError, match="does not exist"):
        source().padded_batch(2, pad_info={"z": ([2], 0)})
    with pytest.raises(TypeError, match="pad_info"):
        source().padded_batch(2, pad_info=[1])
    with pytest.raises(ValueError, match="rank"):
        rows(source().padded_batch(2, pad_info={"x": ([2, 2], 0)}))
    with pytest.raises(TypeError, match="pad value"):
        rows(source().padded_batch(2, pad_info={"x": ([2], "a")}))
    with pytest.raises(ValueError, match="cannot be batched"):
        rows(source().padded_batch(2))
    assert source().padded_batch(2, pad_info={}).get_batch_size() == 2


def test_bucket_batch_checks():
    with pytest.raises(ValueError, match="strictly increasing"):
        source().bucket_batch_by_length(["x"], [3, 2], [1, 1, 1])
    with pytest.raises(ValueError, match="positive"):
        source().bucket_batch_by_length(["x"], [0, 2], [1, 1, 1])
    with pytest.raises(ValueError, match="one element more"):
        source().bucket_batch_by_length(["x"], [2], [1])
    with pytest.raises(ValueError, match="non-empty"):
        source().bucket_batch_by_length(["x"], [], [1])
    with pytest.raises(ValueError, match="exactly one column"):
        source().bucket_batch_by_length(["x", "y"], [2], [1, 2])
    with pytest.raises(ValueError, match="not found"):
        source().bucket_batch_by_length(["q"], [2], [1, 1])
    bad = source().bucket_batch_by_length(["x"], [2], [1, 2], element_length_function=lambda x: -1)
    with pytest.raises(ValueError, match=">= 0"):
        rows(bad)
    d = source().bucket_batch_by_length(["x"], [2], [2, 2])
    assert d.get_batch_size() == 1 and d.output_types() == [np.int32, np.float32]


# ---- sources: PaddedDataset, RandomDataset, Schema --------------------------------------------

def test_padded_dataset_checks_and_sharding():
    with pytest.raises(ValueError, match="empty"):
        ds.PaddedDataset([])
    with pytest.raises(TypeError, match="dict"):
        ds.PaddedDataset([1, 2])
    with pytest.raises(TypeError, match="list"):
        ds.PaddedDataset("x")
    with pytest.raises(ValueError, match="columns"):
        ds.PaddedDataset([{"a": 1}, {"b": 2}])
    data = ds.NumpySlicesDataset({"a": [1, 2, 3]}, shuffle=False) + ds.PaddedDataset([{"a": -1}])
    assert [r[0] for r in rows(data)] == [1, 2, 3, -1]
    p = ds.PaddedDataset([{"a": 0}, {"a": 1}, {"a": 2}])
    p.use_sampler(ds.DistributedSampler(2, 1, shuffle=False))
    assert [r[0] for r in rows(p)] == [1, 0]


def test_schema_files_and_columns(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"numRows": 3, "columns": {
        "image": {"type": "uint8", "shape": [2, 2]}, "label": {"type": "int64", "rank": 0}}}))
    s = ds.Schema(str(path))
    assert ds.Schema.get_num_rows(s) == 3
    assert [c["name"] for c in s.columns] == ["image", "label"]
    s.parse_columns([{"name": "w", "type": "string", "shape": [2]}])
    assert json.loads(s.to_json())["columns"] == [
        {"name": "w", "rank": 1, "shape": [2], "type": "string"}]
    with pytest.raises(ValueError, match="does not exist"):
        ds.Schema(str(tmp_path / "nope.json"))
    with pytest.raises(TypeError, match="unknown column type"):
        ds.Schema().add_column("a", "foo")
    with pytest.raises(TypeError, match="name"):
        ds.Schema().add_column(1, "int8")
    with pytest.raises(ValueError, match="numRows"):
        ds.Schema.get_num_rows(ds.Schema())
    r = ds.RandomDataset(schema=str(path))
    assert r.get_dataset_size() == 3
    assert r.output_shapes() == [[2, 2], []] and r.output_types() == [np.uint8, np.int64]


def test_random_dataset():
    s = ds.Schema()
    s.add_column("image", ms.uint8, [4, 3])
    s.add_column("label", ms.int32)
    s.add_column("word", "string", [2])
    ds.config.set_seed(7)
    a = ds.RandomDataset(total_rows=6, schema=s, shuffle=False)
    ds.config.set_seed(7)
    b = ds.RandomDataset(total_rows=6, schema=s, shuffle=False)
    assert rows(a) == rows(b) == rows(a)
    assert a.output_types()[:2] == [np.uint8, np.int32] and a.output_shapes()[0] == [4, 3]
    vals = np.stack([np.asarray(r[0]) for r in rows(a)])
    assert len(np.unique(vals)) > 10
    assert ds.RandomDataset(total_rows=6, schema=s, columns_list=["label"]).get_col_names() == \
        ["label"]
    assert ds.RandomDataset(total_rows=10, schema=s, num_shards=2, shard_id=0) \
        .get_dataset_size() == 5
    free = ds.RandomDataset(total_rows=3)
    assert 1 <= len(free.get_col_names()) <= 4
    assert len(free.output_types()) == len(free.get_col_names())
    with pytest.raises(ValueError, match="not in the schema"):
        ds.RandomDataset(total_rows=3, schema=s, columns_list=["zz"])
    with pytest.raises(ValueError, match="total_rows"):
        ds.RandomDataset(total_rows=0, schema=s)


# ---- samplers ---------------------------------------------------------------------------------

def test_weighted_random_sampler():
    ds.config.set_seed(0)
    d = ds.NumpySlicesDataset(list(range(5)),
                              sampler=ds.WeightedRandomSampler([1, 3, 0, 0, 0], num_samples=400))
    got = np.array([r[0] for r in rows(d)])
    assert set(got) <= {0, 1} and 0.65 < (got == 1).mean() < 0.85
    d = ds.NumpySlicesDataset(list(range(5)), sampler=ds.WeightedRandomSampler(
        [1, 1, 0, 0, 1], num_samples=3, replacement=False))
    assert sorted(r[0] for r in rows(d)) == [0, 1, 4]
    assert ds.NumpySlicesDataset(list(range(5)), sampler=ds.WeightedRandomSampler(
        [1, 1])).get_dataset_size() == 5
    with pytest.raises(TypeError, match="number"):
        ds.WeightedRandomSampler([1, "a"])
    with pytest.raises(ValueError, match="not all"):
        ds.WeightedRandomSampler([0, 0])
    with pytest.raises(ValueError, match="non-negative"):
        ds.WeightedRandomSampler([-1, 2])
    with pytest.raises(TypeError, match="bool"):
        ds.WeightedRandomSampler([1, 2], replacement=1)
    with pytest.raises(ValueError, match="positive weights"):
        ds.WeightedRandomSampler([1, 0], num_samples=2, replacement=False)
    with pytest.raises(IndexError, match="weights"):
        rows(ds.NumpySlicesDataset([1, 2], sampler=ds.WeightedRandomSampler([1, 1, 1])))


def test_subset_sampler_order_and_checks():
    d = ds.NumpySlicesDataset(list(range(5)), sampler=ds.SubsetSampler([4, 4, 1, 3],
                                                                       num_samples=3))
    assert [r[0] for r in rows(d)] == [4, 4, 1]
    with pytest.raises(TypeError):
        ds.SubsetSampler([1.0])
    with pytest.raises(IndexError):
        rows(ds.NumpySlicesDataset(list(range(5)), sampler=ds.SubsetSampler([4, 7])))


# ---- callbacks --------------------------------------------------------------------------------

def test_callback_checks():
    with pytest.raises(ValueError, match="step_size"):
        ds.DSCallback(step_size=0)
    with pytest.raises(TypeError, match="DSCallback"):
        ds.NumpySlicesDataset([1]).map(lambda x: x, callbacks=[1])


def test_waited_callback_follows_training_steps():
    order = []

    class Waited(ds.WaitedDSCallback):
        def sync_step_begin(self, train_run_context, ds_run_context):
            order.append(("sync", ds_run_context.cur_step_num, train_run_context))

    cb = Waited()
    d = ds.NumpySlicesDataset(list(range(4)), shuffle=False).map(lambda x: x, callbacks=[cb])
    it = d.create_tuple_iterator(num_epochs=1, output_numpy=True)
    for step, _ in enumerate(it):
        order.append(("row", step))
        cb.step_end(f"ctx{step}")
    assert order == [("row", 0), ("sync", 2, "ctx0"), ("row", 1), ("sync", 3, "ctx1"),
                     ("row", 2), ("sync", 4, "ctx2"), ("row", 3)]
    ds.config.set_callback_timeout(1)
    lonely = ds.NumpySlicesDataset([1, 2], shuffle=False).map(lambda x: x, callbacks=[Waited()])
    with pytest.warns(UserWarning, match="no training step"):
        assert len(rows(lonely)) == 2


def test_sync_wait_errors():
    with pytest.raises(TypeError, match="condition_name"):
        ds.NumpySlicesDataset([1]).sync_wait(condition_name=1)
    with pytest.raises(ValueError, match="num_batch"):
        ds.NumpySlicesDataset([1]).sync_wait(condition_name="a", num_batch=0)
    d = ds.NumpySlicesDataset(list(range(4)), shuffle=False).sync_wait("q")
    with pytest.raises(RuntimeError, match="not found"):
        d.sync_update("zz")
    with pytest.raises(RuntimeError, match="no shuffle after"):
        d.shuffle(3)
    assert d.get_dataset_size() == 4
    ds.config.set_callback_timeout(1)
    with pytest.raises(RuntimeError, match="sync_update"):
        rows(d)


# ---- the JSON form ----------------------------------------------------------------------------

def test_serialize_round_trip(tmp_path, capsys):
    data = {"a": np.arange(12, dtype=np.float32).reshape(6, 2), "b": np.arange(6)}
    d = ds.NumpySlicesDataset(data, shuffle=False)
    d = d.map([transforms.TypeCast(np.int32)], input_columns=["a"]).shuffle(4)
    d = d.batch(2, drop_remainder=True).repeat(2)
    path = tmp_path / "pipeline.json"
    obj = ds.serialize(d, str(path))
    assert obj["op_type"] == "RepeatDataset" and json.loads(path.read_text()) == obj
    again = ds.deserialize(json_filepath=str(path))
    assert ds.compare(d, again) and d.to_json() == obj
    ds.config.set_seed(1)
    first = rows(d)
    ds.config.set_seed(1)
    assert rows(again) == first
    ds.show(d)
    assert '"op_type": "BatchDataset"' in capsys.readouterr().out
    assert not ds.compare(d, d.take(2))
    with_lambda = ds.NumpySlicesDataset([1, 2]).map(lambda x: x)
    with pytest.raises(ValueError, match="lambda"):
        ds.deserialize(with_lambda.to_json())
    with pytest.raises(ValueError, match="exactly one"):
        ds.deserialize()
    sampled = ds.NumpySlicesDataset([1, 2, 3], sampler=ds.SubsetSampler([2, 0]))
    assert rows(ds.deserialize(ds.serialize(sampled))) == [[3], [1]]


def test_deserialize_refuses_foreign_modules():
    obj = ds.NumpySlicesDataset([1, 2]).to_json()
    obj["python_module"] = "not_imported_module_xyz"
    with pytest.raises(ValueError, match="imported module"):
        ds.deserialize(obj)


# ---- config -----------------------------------------------------------------------------------

def test_config_settings(tmp_path):
    c = ds.config
    for setter, value in [("set_callback_timeout", 5), ("set_monitor_sampling_interval", 50),
                          ("set_autotune_interval", 3), ("set_auto_num_workers", True),
                          ("set_enable_shared_mem", False), ("set_enable_watchdog", False),
                          ("set_multiprocessing_timeout_interval", 10), ("set_numa_enable", True),
                          ("set_dynamic_shape", True), ("set_fast_recovery", False),
                          ("set_auto_offload", True), ("set_video_backend", "Ascend"),
                          ("set_multiprocessing_start_method", "spawn"),
                          ("set_enable_autotune", True)]:
        getter = getattr(c, setter.replace("set_", "get_"))
        old = getter()
        getattr(c, setter)(value)
        assert getter() == value
        getattr(c, setter)(old)
    c.set_error_samples_mode(c.ErrorSamplesMode.SKIP)
    assert c.get_error_samples_mode() == c.ErrorSamplesMode.SKIP
    c.set_error_samples_mode(c.ErrorSamplesMode.RETURN)
    c.set_iterator_mode(do_copy=True)
    assert c.get_iterator_mode() == {"do_copy": True, "parallel_convert": False}
    c.set_iterator_mode()
    for setter, bad, err in [("set_callback_timeout", 0, ValueError),
                             ("set_callback_timeout", True, TypeError),
                             ("set_monitor_sampling_interval", -1, ValueError),
                             ("set_enable_shared_mem", 0, TypeError),
                             ("set_multiprocessing_start_method", "forkserver", ValueError),
                             ("set_video_backend", "x", ValueError),
                             ("set_error_samples_mode", 1, TypeError),
                             ("set_sending_batches", True, TypeError),
                             ("set_prefetch_size", 0, ValueError)]:
        with pytest.raises(err):
            getattr(c, setter)(bad)
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"seed": 9, "opConnectorSize": 4, "logFilePath": "/tmp"}))
    old = c.get_prefetch_size()
    c.load(str(path))
    assert c.get_seed() == 9 and c.get_prefetch_size() == 4
    c.set_prefetch_size(old)
    with pytest.raises(RuntimeError, match="cannot be read"):
        c.load(str(tmp_path / "missing.json"))


# ---- process workers --------------------------------------------------------------------------

def _draw(x):
    return x + current_rng().random()


def _big(x):
    return np.full((128, 128, 3), x[0], np.float32)


def _exit_at_17(x):
    if x[0] == 17:
        os._exit(3)
    return x


def _fail_at_5(x):
    if x[0] == 5:
        raise ValueError("bad row 5")
    return x


def _numbers(n=40):
    return ds.NumpySlicesDataset(np.arange(n, dtype=np.float32).reshape(n, 1), shuffle=False)


def _shm_blocks():
    return {f for f in os.listdir("/dev/shm") if f.startswith("psm_")} \
        if os.path.isdir("/dev/shm") else set()


@pytest.mark.parametrize("workers", [2, 3])
def test_process_workers_match_threads(workers):
    ds.config.set_seed(3)
    base = rows(_numbers().map(_draw))
    ds.config.set_seed(3)
    assert rows(_numbers().map(_draw, num_parallel_workers=workers,
                               python_multiprocessing=True)) == base


def test_process_workers_shared_memory_round_trip():
    before = _shm_blocks()
    for shared in (True, False):
        ds.config.set_enable_shared_mem(shared)
        d = _numbers(30).map(_big, num_parallel_workers=2, python_multiprocessing=True)
        out = [r[0] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
        assert [float(a[5, 5, 1]) for a in out] == list(range(30))
    it = _numbers(60).map(_big, num_parallel_workers=2, python_multiprocessing=True) \
        .create_tuple_iterator(output_numpy=True, num_epochs=1)
    next(it)
    it.stop()
    assert _shm_blocks() <= before


def test_process_worker_death_is_an_error_not_a_hang():
    d = _numbers().map(_exit_at_17, num_parallel_workers=2, python_multiprocessing=True)
    start = time.monotonic()
    with pytest.raises(WorkerDied, match="exited with code 3"):
        rows(d)
    assert time.monotonic() - start < 10


def test_process_worker_exception_is_raised():
    d = _numbers().map(_fail_at_5, num_parallel_workers=2, python_multiprocessing=True)
    with pytest.raises(ValueError, match="bad row 5"):
        rows(d)


def test_process_workers_per_batch_map():
    def pbm(col, info):
        return ([c * 2 for c in col],)

    d = _numbers(10).batch(4, per_batch_map=pbm, num_parallel_workers=2,
                           python_multiprocessing=True)
    assert [r[0] for r in rows(d)] == [[[0], [2], [4], [6]], [[8], [10], [12], [14]],
                                       [[16], [18]]]


def test_debug_mode_runs_one_worker():
    ds.config.set_debug_mode(True)
    seen = set()

    def record(x):
        seen.add(threading.get_ident())
        return x

    rows(_numbers().map(record, num_parallel_workers=4))
    assert seen == {threading.get_ident()}


def test_concat_with_padded_dataset_shards_evenly():
    # MindSpore 2.10 gives (3, [1, 3, 5]) and (3, [2, 4, -1]) for this pipeline.
    got = []
    for shard in range(2):
        d = ds.NumpySlicesDataset({"a": [1, 2, 3, 4, 5]}, shuffle=False) + \
            ds.PaddedDataset([{"a": -1}])
        d.use_sampler(ds.DistributedSampler(2, shard, shuffle=False))
        got.append((d.get_dataset_size(), [r[0] for r in rows(d)]))
    assert got == [(3, [1, 3, 5]), (3, [2, 4, -1])]
    shuffled = ds.NumpySlicesDataset({"a": [1, 2, 3]}) + ds.PaddedDataset([{"a": -1}])
    with pytest.raises(ValueError, match="in order"):
        shuffled.use_sampler(ds.DistributedSampler(2, 0))


def test_waited_callback_in_model_train():
    from minispore import nn
    order = []

    class Waited(ds.WaitedDSCallback):
        def sync_step_begin(self, train_run_context, ds_run_context):
            order.append(("step", ds_run_context.cur_step_num,
                          train_run_context.original_args().cur_step_num))

        def sync_epoch_begin(self, train_run_context, ds_run_context):
            order.append(("epoch", ds_run_context.cur_epoch_num))

    cb = Waited()
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    d = ds.NumpySlicesDataset({"x": x, "y": x.sum(1, keepdims=True)}, shuffle=False)
    d = d.map(lambda a: a, input_columns=["x"], callbacks=[cb]).batch(1)
    net = nn.Dense(3, 1)
    model = ms.train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
    ds.config.set_callback_timeout(5)
    start = time.monotonic()
    model.train(2, d, callbacks=[cb])
    assert time.monotonic() - start < 4  # no step waited for the timeout
    assert order == [("step", 2, 1), ("step", 3, 2), ("step", 4, 3), ("epoch", 2),
                     ("step", 5, 4), ("step", 6, 5), ("step", 7, 6), ("step", 8, 7)]


class _Pids:
    def __getitem__(self, i):
        if i == 13 and os.environ.get("PIDS_EXIT_AT_13"):
            os._exit(4)
        return (np.array(os.getpid()), np.array(i))

    def __len__(self):
        return 30


def test_generator_source_process_workers(monkeypatch):
    me = os.getpid()
    d = ds.GeneratorDataset(_Pids(), ["pid", "i"], num_parallel_workers=2, shuffle=False)
    got = rows(d)
    assert [r[1] for r in got] == list(range(30)) and me not in {r[0] for r in got}
    threads = ds.GeneratorDataset(_Pids(), ["pid", "i"], num_parallel_workers=2, shuffle=False,
                                  python_multiprocessing=False)
    assert {r[0] for r in rows(threads)} == {me}
    monkeypatch.setenv("PIDS_EXIT_AT_13", "1")
    with pytest.raises(WorkerDied, match="GeneratorDataset"):
        rows(d)
