"""TFRecordDataset against MindSpore 2.10 on files written by data/make_tfrecord.py (hand-encoded
tf.train.Example records; MindSpore read them to make mindspore_tfrecord.json)."""
import glob
import gzip
import json
import os
import shutil
import struct
import zlib

import numpy as np
import pytest

import minispore.dataset as ds

HERE = os.path.join(os.path.dirname(__file__), "data", "tfrecord")
with open(os.path.join(HERE, "mindspore_tfrecord.json")) as _f:
    MS = json.load(_f)
PATHS = sorted(glob.glob(os.path.join(HERE, "part-*.tfrecord")))
THREE = sorted(glob.glob(os.path.join(HERE, "three", "part-*.tfrecord")))


def rows(d):
    return [[a.tolist() for a in r] for r in d.create_tuple_iterator(output_numpy=True,
                                                                     num_epochs=1)]


def labels(d):
    k = d.get_col_names().index("label")
    return [r[k][0] for r in rows(d)]


def test_columns_types_and_rows_match_mindspore():
    d = ds.TFRecordDataset(PATHS, shuffle=False, num_parallel_workers=2)
    want = MS["plain"]
    assert d.get_col_names() == want["columns"]
    assert rows(d) == want["rows"]
    assert [str(t) for t in d.output_types()] == want["types"]
    assert d.get_dataset_size() == want["size"]


def test_schema_and_columns_list_match_mindspore():
    d = ds.TFRecordDataset(PATHS, schema=os.path.join(HERE, "schema.json"), shuffle=False,
                           num_parallel_workers=2)
    assert d.get_col_names() == MS["schema"]["columns"] and rows(d) == MS["schema"]["rows"]
    assert [str(t) for t in d.output_types()] == MS["schema"]["types"]
    d = ds.TFRecordDataset(PATHS, columns_list=["label", "ids"], shuffle=False,
                           num_parallel_workers=2)
    assert d.get_col_names() == MS["columns_list"]["columns"]
    assert rows(d) == MS["columns_list"]["rows"]


def test_num_samples_and_shards_match_mindspore():
    d = ds.TFRecordDataset(PATHS, shuffle=False, num_samples=5, num_parallel_workers=2)
    assert d.get_dataset_size() == MS["num_samples"]["size"]
    assert [[x] for x in labels(d)] == MS["num_samples"]["labels"]
    for key, equal in (("shards", False), ("shards_equal", True)):
        for shard, want in enumerate(MS[key]):
            d = ds.TFRecordDataset(PATHS, shuffle=False, num_shards=2, shard_id=shard,
                                   shard_equal_rows=equal, num_parallel_workers=2)
            assert d.get_dataset_size() == want["size"]
            assert [[x] for x in labels(d)] == want["labels"]


def test_reading_order_follows_the_worker_count():
    want = MS["three"]
    assert labels(ds.TFRecordDataset(THREE, shuffle=False, num_parallel_workers=1)) == \
        want["workers_1"]
    assert labels(ds.TFRecordDataset(THREE, shuffle=False, num_parallel_workers=2)) == \
        want["workers_2"]
    for k in range(2):
        assert labels(ds.TFRecordDataset(THREE, shuffle=False, num_parallel_workers=2,
                                         num_shards=2, shard_id=k)) == want["shards"][k]
        assert labels(ds.TFRecordDataset(THREE, shuffle=False, num_parallel_workers=2,
                                         num_shards=2, shard_id=k,
                                         shard_equal_rows=True)) == want["shards_equal"][k]


def test_shuffle_modes():
    everything = sorted(labels(ds.TFRecordDataset(THREE, shuffle=False)))
    ds.config.set_seed(4)
    a = labels(ds.TFRecordDataset(THREE))
    ds.config.set_seed(4)
    assert labels(ds.TFRecordDataset(THREE, shuffle=True)) == a
    assert sorted(a) == everything and a != everything
    files = labels(ds.TFRecordDataset(THREE, shuffle=ds.Shuffle.FILES))
    runs = [x // 10 for x in files]
    assert sorted(files) == everything and runs == sorted(runs, key=runs.index)
    with pytest.raises(ValueError, match="shuffle"):
        ds.TFRecordDataset(THREE, shuffle=ds.Shuffle.INFILE)


def test_compressed_files(tmp_path):
    with open(PATHS[0], "rb") as f:
        raw = f.read()
    gz, zl = tmp_path / "a.gz", tmp_path / "a.zlib"
    gz.write_bytes(gzip.compress(raw))
    zl.write_bytes(zlib.compress(raw))
    plain = rows(ds.TFRecordDataset(PATHS[0], shuffle=False))
    assert rows(ds.TFRecordDataset(str(gz), shuffle=False, compression_type="GZIP")) == plain
    assert rows(ds.TFRecordDataset(str(zl), shuffle=False, compression_type="ZLIB")) == plain
    with pytest.raises(ValueError, match="compression_type"):
        ds.TFRecordDataset(PATHS, compression_type="LZ4")


def test_bad_files_give_clear_errors(tmp_path):
    cut = tmp_path / "cut.tfrecord"
    with open(PATHS[1], "rb") as f:
        cut.write_bytes(f.read()[:-7])
    with pytest.raises(ValueError, match="truncated"):
        rows(ds.TFRecordDataset(str(cut), shuffle=False))
    junk = tmp_path / "junk.tfrecord"
    junk.write_bytes(b"not a tfrecord file at all")
    with pytest.raises(ValueError, match="checksum"):
        ds.TFRecordDataset(str(junk))
    with pytest.raises(ValueError, match="does not exist"):
        ds.TFRecordDataset(str(tmp_path / "missing.tfrecord"))
    with pytest.raises(ValueError, match="not in the data"):
        ds.TFRecordDataset(PATHS, columns_list=["nope"])
    with pytest.raises(ValueError, match="shard_equal_rows"):
        ds.TFRecordDataset(PATHS, num_shards=3, shard_id=0)
    (tmp_path / "copies").mkdir()
    for k in range(2):
        shutil.copy(PATHS[0], tmp_path / "copies" / f"c{k}.tfrecord")
    pattern = os.path.join(str(tmp_path), "copies", "c*.tfrecord")
    assert ds.TFRecordDataset(pattern).get_dataset_size() == 6


def test_string_schema_and_reshape():
    s = ds.Schema()
    s.add_column("image", "string")
    s.add_column("scores", "float64", [3, 1])
    d = ds.TFRecordDataset(PATHS[0], schema=s, shuffle=False)
    first = next(d.create_tuple_iterator(output_numpy=True))
    assert first[0].dtype.kind == "U" and first[1].shape == (3, 1)
    assert first[1].dtype == np.float64


def test_hostile_records(tmp_path):
    from minispore.dataset.datasets import _masked_crc32c
    length = struct.pack("<Q", 1 << 40)
    huge = tmp_path / "huge.tfrecord"
    huge.write_bytes(length + struct.pack("<I", _masked_crc32c(length)) + b"x" * 16)
    with pytest.raises(ValueError, match="more than the file holds"):
        ds.TFRecordDataset(str(huge))
    body = b"\x0a\xff\xff\xff\xff\x0f"  # a field that claims 4 GiB
    length = struct.pack("<Q", len(body))
    bad = tmp_path / "bad.tfrecord"
    bad.write_bytes(length + struct.pack("<I", _masked_crc32c(length)) + body + b"\0" * 4)
    with pytest.raises(ValueError, match="not a tf.train.Example"):
        ds.TFRecordDataset(str(bad))
