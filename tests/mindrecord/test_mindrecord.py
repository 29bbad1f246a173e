"""MindRecord: files written by real MindSpore 2.10 (fixtures in data/, made by
data/make_mindspore_mindrecord.py) read here with equal values; files written here equal
MindSpore's byte for byte (single file) and are read by MindSpore (opt-in:
MINDSPORE_PYTHON=/path/to/python/with/mindspore); FileWriter/FileReader/MindPage/MindDataset
behaviour; hostile and truncated files."""
import importlib.util
import inspect
import json
import os
import shutil
import sqlite3
import struct
import subprocess
import warnings

import numpy as np
import pytest

import minispore.dataset as ds
from minispore import mindrecord
from minispore.mindrecord import FileReader, FileWriter, MindPage
from minispore.mindrecord._errors import MRMInvalidSchemaError, ParamTypeError, ParamValueError

DATA = os.path.join(os.path.dirname(__file__), "data")
REF = np.load(os.path.join(DATA, "mindspore_mindrecord.npz"))
MS_PYTHON = os.environ.get("MINDSPORE_PYTHON")  # opt-in: MindSpore reads minispore's files

_spec = importlib.util.spec_from_file_location(
    "make_mindspore_mindrecord", os.path.join(DATA, "make_mindspore_mindrecord.py"))
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)
ROWS = make.fixture_rows()

LAYOUT_ROWS = """
def layout_batches():
    sizes = [10000] * 7 + [100] * 2 + [9000] * 6 + [30000] * 2 + [10] * 300 + [5000] * 9 + \
        [10] * 3
    rows = [{"a": i, "b": bytes([i % 251]) * n, "s": "x" * (i % 40 * 60)}
            for i, n in enumerate(sizes)]
    for row in rows[-3:]:
        row["s"] = "y" * 9000
    cuts = [0, 7, 9, 15, 17, 317, 320, 326, len(rows)]
    return [rows[a:b] for a, b in zip(cuts, cuts[1:])]


def write_layout(FileWriter, path):
    w = FileWriter(path, overwrite=True)
    w.set_header_size(1 << 14)
    w.set_page_size(1 << 15)
    w.add_schema({"a": {"type": "int64"}, "b": {"type": "bytes"}, "s": {"type": "string"}})
    for batch in layout_batches():
        w.write_raw_data(batch)
    w.commit()
"""


def fixture(tmp_path, *names):
    """Copies of the fixture files (and their .db) in tmp_path; the first one's path."""
    for name in names:
        for f in (name, name + ".db"):
            shutil.copy(os.path.join(DATA, f), tmp_path / f)
    return str(tmp_path / names[0])


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def rows_of(dataset):
    return list(dataset.create_dict_iterator(output_numpy=True, num_epochs=1))


def assert_same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    np.testing.assert_array_equal(a, b)


# ---- MindSpore's files read here --------------------------------------------------------------

@pytest.mark.parametrize("name,files", [("ms_single.mindrecord", ["ms_single.mindrecord"]),
                                        ("ms_shards.mindrecord0", ["ms_shards.mindrecord0",
                                                                   "ms_shards.mindrecord1"])])
def test_minddataset_reads_mindspore_files(tmp_path, name, files):
    path = fixture(tmp_path, *files)
    data = ds.MindDataset(path, shuffle=False)
    assert data.get_col_names() == list(REF[f"{name}:columns"])
    got = rows_of(data)
    assert len(got) == int(REF[f"{name}:rows"]) == data.get_dataset_size() == 12
    for i, row in enumerate(got):
        for col, value in row.items():
            assert_same(value, REF[f"{name}:{col}:{i}"])


def test_filereader_reads_mindspore_file(tmp_path):
    reader = FileReader(fixture(tmp_path, "ms_single.mindrecord"))
    assert reader.len() == 12
    assert reader.schema() == make.SCHEMA
    for i, row in enumerate(reader.get_next()):
        assert set(row) == set(make.SCHEMA)
        for col, value in row.items():
            want = REF[f"reader:{col}:{i}"]
            if isinstance(value, bytes):
                assert value == want.tobytes()
            elif isinstance(value, np.ndarray):
                assert_same(value, want)
            else:
                assert value == want.item()
        assert row["name"] == ROWS[i]["name"] and row["img"] == ROWS[i]["img"]
    reader.close()


def test_filereader_columns(tmp_path):
    reader = FileReader(fixture(tmp_path, "ms_single.mindrecord"), columns=["label", "ids"])
    got = list(reader.get_next())
    assert [r["label"] for r in got] == [r["label"] for r in ROWS]
    assert all(set(r) == {"label", "ids"} for r in got)
    with pytest.raises(ParamTypeError):
        FileReader(fixture(tmp_path, "ms_single.mindrecord"), columns="label")
    with pytest.raises(ParamValueError):
        FileReader(fixture(tmp_path, "ms_single.mindrecord"), columns=["nope"])


def test_mindpage_matches_mindspore(tmp_path):
    page = MindPage(fixture(tmp_path, "ms_single.mindrecord"))
    assert page.candidate_fields == list(REF["page:candidates"])
    page.category_field = "label"
    info = page.read_category_info()
    assert json.loads(info) == json.loads(str(REF["page:info"]))
    cats = json.loads(info)["categories"]
    first = page.read_at_page_by_id(cats[0]["id"], 0, 1)
    assert len(first) == 1 and first[0]["label"] == int(cats[0]["name"])
    by_name = page.read_at_page_by_name(cats[3]["name"], 0, 5)
    assert [r["label"] for r in by_name] == [int(cats[3]["name"])]
    assert page.read_at_page_by_id(0, 1, 1) == []
    with pytest.raises(ParamValueError):
        page.read_at_page_by_id(-1, 0, 1)
    with pytest.raises(ParamValueError):
        page.read_at_page_by_name("x", 0, 0)
    with pytest.raises(mindrecord._errors.MRMDefineCategoryError):
        page.category_field = "img"


# ---- files written here -----------------------------------------------------------------------

def test_single_file_is_byte_identical_to_mindspore(tmp_path):
    path = str(tmp_path / "ms_single.mindrecord")
    make.write(FileWriter, path, ROWS)
    with open(path, "rb") as f, open(os.path.join(DATA, "ms_single.mindrecord"), "rb") as g:
        assert f.read() == g.read()
    queries = ("select sql from sqlite_master", "select * from INDEXES", "select * from SHARD_NAME")
    ours = sqlite3.connect(path + ".db")
    theirs = sqlite3.connect(os.path.join(DATA, "ms_single.mindrecord.db"))
    try:
        for q in queries:
            assert list(ours.execute(q)) == list(theirs.execute(q))
    finally:
        ours.close()
        theirs.close()


def test_roundtrip_shards_and_layout(tmp_path):
    rows = make.fixture_rows(40, seed=3)
    path = str(tmp_path / "s.mindrecord")
    make.write(FileWriter, path, rows, shard_num=3)
    names = sorted(os.listdir(tmp_path))
    assert names == [f"s.mindrecord{k}{e}" for k in range(3) for e in ("", ".db")]
    got = list(FileReader(path + "1").get_next())
    assert len(got) == 40
    key = {r["label"]: r for r in rows}
    for r in got:
        want = key[r["label"]]
        for col in r:
            if isinstance(want[col], np.ndarray):
                assert_same(r[col], want[col])
            else:
                assert r[col] == pytest.approx(want[col]) if isinstance(want[col], float) \
                    else r[col] == want[col]
    per_file = [FileReader([path + str(k)]).len() for k in range(3)]
    assert per_file == [14, 14, 12]  # 5 rows: 2, 2, 1; 35 rows: 12, 12, 11 (first files take more)
    data = ds.MindDataset([path + "2", path + "0"], shuffle=False, columns_list=["label"])
    assert data.get_dataset_size() == 26


def test_multi_page_layout_roundtrip(tmp_path):
    space = {}
    exec(LAYOUT_ROWS, space)  # noqa: S102 (the test's own text, also run by MindSpore below)
    path = str(tmp_path / "big.mindrecord")
    space["write_layout"](FileWriter, path)
    rows = [r for batch in space["layout_batches"]() for r in batch]
    got = rows_of(ds.MindDataset(path, shuffle=False))
    assert [int(r["a"]) for r in got] == list(range(len(rows)))
    assert all(r["b"].tobytes() == rows[i]["b"] and str(r["s"]) == rows[i]["s"]
               for i, r in enumerate(got))
    with pytest.raises(RuntimeError, match="page size"):
        w2 = FileWriter(str(tmp_path / "small.mindrecord"))
        w2.set_page_size(1 << 15)
        w2.add_schema({"b": {"type": "bytes"}})
        w2.write_raw_data([{"b": bytes(40000)}])


def test_open_for_append(tmp_path):
    path = str(tmp_path / "a.mindrecord")
    make.write(FileWriter, path, ROWS[:6])
    app = FileWriter.open_for_append(path)
    app.write_raw_data(ROWS[6:])
    app.commit()
    got = list(FileReader(path).get_next())
    assert [r["label"] for r in got] == [r["label"] for r in ROWS]
    con = sqlite3.connect(path + ".db")
    assert [r[0] for r in con.execute("select ROW_ID from INDEXES")] == list(range(12))
    con.close()


def test_writer_checks():
    with pytest.raises(ParamValueError):
        FileWriter("x.mindrecord", shard_num=0)
    with pytest.raises(ParamValueError):
        FileWriter("x.mindrecord", shard_num=1001)
    with pytest.raises(ParamValueError):
        FileWriter("bad|name.mindrecord")
    with pytest.raises(ParamValueError):
        FileWriter("x.mindrecord", overwrite=1)
    w = FileWriter("x.mindrecord")
    for bad in ({}, {"a": {"type": "int8"}}, {"a-b": {"type": "int32"}},
                {"a": {"type": "bytes", "shape": [2]}}, {"a": {"type": "int32", "shape": 3}},
                {"a": {"type": "int32", "x": 1}}):
        with pytest.raises(MRMInvalidSchemaError):
            w.add_schema(bad)
    with pytest.raises(mindrecord._errors.MRMInvalidHeaderSizeError):
        w.set_header_size(1000)
    with pytest.raises(mindrecord._errors.MRMInvalidPageSizeError):
        w.set_page_size((1 << 15) + 2)
    w.add_schema({"a": {"type": "int32"}, "b": {"type": "bytes"}})
    with pytest.raises(mindrecord._errors.MRMDefineIndexError):
        w.add_index(["b"])
    with pytest.raises(ParamTypeError):
        w.add_index("a")


def test_invalid_rows_are_left_out_with_a_warning(tmp_path):
    path = str(tmp_path / "w.mindrecord")
    w = FileWriter(path)
    w.add_schema({"a": {"type": "int32"}, "v": {"type": "float32", "shape": [2]}})
    good = {"a": 1, "v": np.zeros(2, np.float32)}
    with pytest.warns(UserWarning, match="It is not written"):
        w.write_raw_data([good, {"a": "x", "v": np.zeros(2, np.float32)},
                          {"a": 2, "v": np.zeros(2, np.float64)}, {"a": 3}])
    with pytest.raises(RuntimeError, match="no valid data"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w.write_raw_data([{"a": 2 ** 40, "v": np.zeros(2, np.float32)}])
    w.commit()
    assert FileReader(path).len() == 1
    with pytest.raises(RuntimeError, match="flushed"):
        w.write_raw_data([good])
    with pytest.raises(RuntimeError, match="already exist"):
        w2 = FileWriter(path)
        w2.add_schema({"a": {"type": "int32"}})
        w2.commit()


# ---- MindDataset ------------------------------------------------------------------------------

@pytest.fixture
def ten(tmp_path):
    path = str(tmp_path / "ten.mindrecord")
    w = FileWriter(path, shard_num=2)
    w.add_schema({"a": {"type": "int64"}, "s": {"type": "string"}})
    w.write_raw_data([{"a": i, "s": str(i)} for i in range(10)])
    w.commit()
    return path + "0"


def values(data, col="a"):
    return [int(r[col]) for r in rows_of(data)]


def test_minddataset_sharding_padding_and_samplers(ten):
    # MindSpore 2.10 gives exactly these (sharding strides and wraps; pads go last)
    assert [values(ds.MindDataset(ten, shuffle=False, num_shards=3, shard_id=k))
            for k in range(3)] == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    padded = [rows_of(ds.MindDataset(ten, columns_list=["a", "s"], shuffle=False,
                                     num_shards=4, shard_id=k, padded_sample={"a": -1, "s": "p"},
                                     num_padded=2)) for k in range(4)]
    assert [[int(r["a"]) for r in p] for p in padded] == [[0, 4, 8], [1, 5, 9], [2, 6, -1],
                                                           [3, 7, -1]]
    assert str(padded[3][2]["s"]) == "p"
    assert values(ds.MindDataset(ten, sampler=ds.SequentialSampler(2, 3))) == [2, 3, 4]
    assert values(ds.MindDataset(ten, sampler=ds.SubsetSampler([5, 1, 3]))) == [5, 1, 3]
    assert values(ds.MindDataset(ten, shuffle=False, num_samples=4)) == [0, 1, 2, 3]
    got = rows_of(ds.MindDataset(ten, columns_list=["s"], shuffle=False))
    assert list(got[0]) == ["s"] and got[0]["s"].dtype.kind == "U"
    with pytest.raises(RuntimeError, match="columns_list"):
        ds.MindDataset(ten, num_shards=2, shard_id=0, padded_sample={"a": 1}, num_padded=0)
    with pytest.raises(ValueError, match="not in the MindRecord schema"):
        ds.MindDataset(ten, columns_list=["zz"])
    with pytest.raises(ValueError, match="does not exist"):
        ds.MindDataset(ten + "x")


def test_minddataset_shuffle_modes(ten):
    ds.config.set_seed(5)
    full = values(ds.MindDataset(ten))
    assert sorted(full) == list(range(10)) and full != list(range(10))
    files = values(ds.MindDataset(ten, shuffle=ds.Shuffle.FILES))
    assert files in ([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [5, 6, 7, 8, 9, 0, 1, 2, 3, 4])
    infile = values(ds.MindDataset(ten, shuffle=ds.Shuffle.INFILE))
    assert sorted(infile[:5]) == [0, 1, 2, 3, 4] and sorted(infile[5:]) == [5, 6, 7, 8, 9]
    assert values(ds.MindDataset(ten, shuffle=False)) == list(range(10))
    data = ds.MindDataset(ten, shuffle=True).batch(4)
    assert data.get_dataset_size() == 3
    with pytest.raises(TypeError):
        ds.MindDataset(ten, shuffle="yes")


def test_dataset_save_matches_mindspore(tmp_path):
    src = ds.NumpySlicesDataset(make.save_source(), shuffle=False)
    path = str(tmp_path / "saved.mindrecord")
    src.save(path)
    assert FileReader(path).schema() == json.loads(str(REF["save:schema"]))
    back = rows_of(ds.MindDataset(path, shuffle=False))
    assert len(back) == 6
    for i, row in enumerate(back):
        for col, value in row.items():
            assert_same(value, REF[f"save:{col}:{i}"])
    with pytest.raises(RuntimeError, match="already exist"):
        src.save(path)


def test_dataset_save_ragged_and_shuffled(tmp_path):
    rows = [np.arange(k * 3, dtype=np.int64).reshape(k, 3) for k in (1, 2, 3)] + \
        [np.arange(4, dtype=np.int64).reshape(1, 4)]
    src = ds.GeneratorDataset([(r, i) for i, r in enumerate(rows)], ["a", "i"], shuffle=True)
    path = str(tmp_path / "ragged.mindrecord")
    src.save(path, num_files=2)
    assert FileReader(path + "0").schema()["a"] == {"type": "int64", "shape": [-1]}
    back = {int(r["i"]): r["a"] for r in rows_of(ds.MindDataset(path + "1", shuffle=False))}
    assert sorted(back) == [0, 1, 2, 3]
    for i, r in enumerate(rows):
        assert_same(back[i], r.reshape(-1))
    with pytest.raises(ValueError, match="file_type"):
        src.save(str(tmp_path / "x"), file_type="tfrecord")


def test_signatures_match_mindspore():
    sigs = json.loads(str(REF["signatures"]))
    for full, want in sigs.items():
        obj = ds if full in ("MindDataset", "Dataset.save") else mindrecord
        for part in full.split("."):
            obj = getattr(obj, part)
        assert str(inspect.signature(obj)) == want, full
    assert mindrecord.SUCCESS != mindrecord.FAILED


# ---- hostile and truncated files --------------------------------------------------------------

def test_truncated_and_corrupt_files(tmp_path):
    path = fixture(tmp_path, "ms_single.mindrecord")
    data = read_bytes(path)
    bad = str(tmp_path / "bad.mindrecord")

    def attempt(blob):
        with open(bad, "wb") as f:
            f.write(blob)
        return rows_of(ds.MindDataset(bad, shuffle=False))

    for cut in (0, 5, 100, 16384, len(data) - 1):
        with pytest.raises(RuntimeError, match="bad.mindrecord"):
            attempt(data[:cut])
    with pytest.raises(RuntimeError, match="header length"):
        attempt(struct.pack("<Q", 1 << 62) + data[8:])
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])

    def with_header(h):
        raw = json.dumps(h).encode()
        return struct.pack("<Q", len(raw)) + raw + data[8 + len(raw):]

    for key, value in [("page_size", 1 << 40), ("header_size", 3), ("shard_addresses", ["../x"]),
                       ("schema", []), ("page", [{"page_type": "RAW_DATA"}])]:
        h = dict(header, **{key: value})
        with pytest.raises(RuntimeError, match="bad.mindrecord"):
            attempt(with_header(h))
    h = json.loads(json.dumps(header))
    h["page"][0]["page_size"] = 1 << 30
    with pytest.raises(RuntimeError, match="bad.mindrecord"):
        attempt(with_header(h))
    with pytest.raises(RuntimeError, match="not a regular file"):
        ds.MindDataset(str(tmp_path))


def test_fuzzed_files_fail_cleanly(tmp_path):
    data = bytearray(read_bytes(os.path.join(DATA, "ms_single.mindrecord")))
    n = struct.unpack("<Q", data[:8])[0]
    rng = np.random.default_rng(0)
    bad = str(tmp_path / "fuzz.mindrecord")
    outcomes = {"read": 0, "refused": 0}
    for k in range(200):
        blob = bytearray(data)
        for _ in range(int(rng.integers(1, 4))):
            pos = int(rng.integers(0, 8 + n)) if k % 3 == 0 else \
                int(rng.integers(16384, len(data)))
            blob[pos] = int(rng.integers(0, 256))
        if k % 10 == 9:
            blob = blob[:int(rng.integers(0, len(blob)))]
        with open(bad, "wb") as f:
            f.write(blob)
        try:  # a list names exactly this file (its header names the original)
            got = rows_of(ds.MindDataset([bad], shuffle=False))
            list(FileReader([bad]).get_next())
        except RuntimeError as e:
            assert "fuzz.mindrecord" in str(e)
            outcomes["refused"] += 1
            continue
        assert len(got) == 12  # a flip inside the values themselves reads as other values
        outcomes["read"] += 1
    assert outcomes["read"] > 20 and outcomes["refused"] > 20, outcomes


# ---- MindSpore reads minispore's files (opt-in) -------------------------------------------------

READ_WITH_MINDSPORE = r"""
import json, sys
import mindspore.dataset as ds
from mindspore import mindrecord
if len(sys.argv) > 2:
    mindrecord.set_enc_key(sys.argv[2])
out = []
for r in ds.MindDataset(sys.argv[1], shuffle=False).create_dict_iterator(output_numpy=True):
    out.append({k: (v.tobytes().hex() if v.dtype.kind == "S" else v.tolist()) for k, v in r.items()})
print("ROWS" + json.dumps(out))
"""


def read_with_mindspore(tmp_path, path, *extra):
    script = tmp_path / "read.py"
    script.write_text(READ_WITH_MINDSPORE)
    res = subprocess.run([MS_PYTHON, str(script), path, *extra], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.split("ROWS", 1)[1])


def _test_mindspore_reads_minispore_encrypted_file(tmp_path, enc_key):
    path = str(tmp_path / "enc.mindrecord")
    make.write(FileWriter, path, ROWS[:6])
    theirs = read_with_mindspore(tmp_path, path, enc_key)
    assert [r["label"] for r in theirs] == [r["label"] for r in ROWS[:6]]


def _test_mindspore_reads_minispore_files(tmp_path):
    path = str(tmp_path / "ours.mindrecord")
    make.write(FileWriter, path, ROWS, shard_num=3)
    script = tmp_path / "read.py"
    script.write_text(READ_WITH_MINDSPORE)
    res = subprocess.run([MS_PYTHON, str(script), path + "0"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    theirs = json.loads(res.stdout.split("ROWS", 1)[1])
    ours = rows_of(ds.MindDataset(path + "0", shuffle=False))
    assert len(theirs) == len(ours) == 12
    for a, b in zip(theirs, ours):
        for k, v in b.items():
            want = v.tobytes().hex() if v.dtype.kind == "S" else v.tolist()
            assert a[k] == want, k


# ---- encryption -------------------------------------------------------------------------------

@pytest.fixture
def enc_key():
    pytest.importorskip("cryptography")
    mindrecord.set_enc_key(make.ENC_KEY)
    try:
        yield make.ENC_KEY
    finally:
        mindrecord.set_enc_key(None)
        mindrecord.set_enc_mode("AES-GCM")
        mindrecord.set_dec_mode(None)


def test_reads_mindspore_encrypted_file(tmp_path, enc_key):
    path = fixture(tmp_path, "ms_encrypted.mindrecord")
    got = rows_of(ds.MindDataset(path, shuffle=False))
    assert [int(r["label"]) for r in got] == [r["label"] for r in ROWS[:6]]
    assert all(r["img"].tobytes() == ROWS[i]["img"] for i, r in enumerate(got))
    mindrecord.set_enc_key("0123456789abcdeX")
    with pytest.raises(RuntimeError, match="Failed to decrypt"):
        FileReader(path)
    mindrecord.set_enc_key(None)
    with pytest.raises(RuntimeError, match="set_enc_key"):
        FileReader(path)


def test_encrypted_roundtrip_and_append(tmp_path, enc_key):
    path = str(tmp_path / "e.mindrecord")
    make.write(FileWriter, path, ROWS[:6])
    raw = read_bytes(path)
    assert raw.endswith(b"AES-GCMENCRYPT") and b"item_1" not in raw
    assert read_bytes(path + ".db").endswith(b"ENCRYPT")
    app = FileWriter.open_for_append(path)
    app.write_raw_data(ROWS[6:9])
    app.commit()
    assert read_bytes(path).endswith(b"ENCRYPT")
    assert [r["label"] for r in FileReader(path).get_next()] == [r["label"] for r in ROWS[:9]]
    with pytest.raises(RuntimeError, match="sharding"):
        FileWriter(str(tmp_path / "x.mindrecord"), shard_num=2)


def test_user_defined_encryption(tmp_path, enc_key):
    def xor(src, size, dst, key):
        dst.write(bytes(b ^ 0x5A for b in src.read(size)))

    mindrecord.set_enc_mode(xor)
    mindrecord.set_dec_mode(xor)
    path = str(tmp_path / "u.mindrecord")
    make.write(FileWriter, path, ROWS[:6])
    assert read_bytes(path).endswith(b"UDF-ENCENCRYPT")
    assert FileReader(path).len() == 6
    mindrecord.set_dec_mode("AES-GCM")
    with pytest.raises(RuntimeError, match="Failed to decrypt"):
        FileReader(path)


def test_encryption_settings_are_checked():
    for bad in (123, "short", "x" * 20):
        with pytest.raises(ValueError):
            mindrecord.set_enc_key(bad)
    with pytest.raises(ValueError):
        mindrecord.set_enc_mode("SM4-CBC")
    with pytest.raises(ValueError):
        mindrecord.set_dec_mode(3)


# ---- converters -------------------------------------------------------------------------------

def _gz_idx(path, arr):
    import gzip
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">I", 0x0800 + arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape))
        f.write(arr.astype(np.uint8).tobytes())


def _decode(jpeg):
    import io

    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(jpeg)))


def test_mnist_to_mr(tmp_path):
    pytest.importorskip("PIL")
    rng = np.random.default_rng(0)
    src = tmp_path / "mnist"
    src.mkdir()
    for pre, n in (("train", 5), ("t10k", 3)):
        _gz_idx(src / f"{pre}-images-idx3-ubyte.gz", rng.integers(0, 256, (n, 28, 28)))
        _gz_idx(src / f"{pre}-labels-idx1-ubyte.gz", np.arange(n) % 10)
    dest = str(tmp_path / "mnist")
    assert mindrecord.MnistToMR(str(src), dest).run() == mindrecord.SUCCESS
    train = rows_of(ds.MindDataset(dest + "_train.mindrecord", shuffle=False))
    assert [int(r["label"]) for r in train] == [0, 1, 2, 3, 4]
    assert _decode(train[0]["data"].tobytes()).shape == (28, 28)
    assert FileReader(dest + "_test.mindrecord").len() == 3
    (src / "t10k-labels-idx1-ubyte.gz").write_bytes(b"junk")
    with pytest.raises(Exception):  # noqa: B017 (gzip's own error for a non-gzip file)
        mindrecord.MnistToMR(str(src), str(tmp_path / "again")).run()


def _cifar_pickle(path, batch):
    import pickle
    with open(path, "wb") as f:
        pickle.dump(batch, f)


def test_cifar_to_mr(tmp_path):
    pytest.importorskip("PIL")
    rng = np.random.default_rng(1)
    c10 = tmp_path / "c10"
    c10.mkdir()
    for name, n in (("data_batch_1", 3), ("data_batch_2", 2), ("test_batch", 2)):
        _cifar_pickle(c10 / name, {b"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8),
                                   b"labels": list(range(n))})
    dest = str(tmp_path / "c10.mindrecord")
    mindrecord.Cifar10ToMR(str(c10), dest).transform(["label"])
    train = list(FileReader(dest).get_next())
    assert [r["label"] for r in train] == [0, 1, 2, 0, 1] and [r["id"] for r in train] == \
        list(range(5))
    assert _decode(train[0]["data"]).shape == (32, 32, 3)
    assert FileReader(dest + "_test").len() == 2
    c100 = tmp_path / "c100"
    c100.mkdir()
    for name in ("train", "test"):
        _cifar_pickle(c100 / name, {b"data": rng.integers(0, 256, (2, 3072), dtype=np.uint8),
                                    b"fine_labels": [7, 8], b"coarse_labels": [1, 2]})
    dest = str(tmp_path / "c100.mindrecord")
    mindrecord.Cifar100ToMR(str(c100), dest).transform()
    got = list(FileReader(dest).get_next())
    assert [(r["fine_label"], r["coarse_label"]) for r in got] == [(7, 1), (8, 2)]
    import pickle
    (c100 / "train").write_bytes(pickle.dumps({b"data": os.getcwd}))  # a global: refused
    with pytest.raises(RuntimeError, match="forbidden"):
        mindrecord.Cifar100ToMR(str(c100), str(tmp_path / "evil.mindrecord")).run()
    with pytest.raises(ParamValueError):
        mindrecord.Cifar10ToMR(str(c100), str(tmp_path / "x.mindrecord"))


def test_csv_to_mr(tmp_path):
    src = tmp_path / "t.csv"
    src.write_text("id,score,flag,name\n1,0.5,True,a\n2,1,False,b b\n3,,True,c\n")
    dest = str(tmp_path / "csv.mindrecord")
    mindrecord.CsvToMR(str(src), dest).transform()
    reader = FileReader(dest)
    assert reader.schema() == {"id": {"type": "int64"}, "score": {"type": "float64"},
                               "flag": {"type": "int32"}, "name": {"type": "string"}}
    got = list(reader.get_next())
    assert [r["id"] for r in got] == [1, 2, 3] and [r["flag"] for r in got] == [1, 0, 1]
    assert got[1]["name"] == "b b" and np.isnan(got[2]["score"])
    dest2 = str(tmp_path / "csv2.mindrecord")
    mindrecord.CsvToMR(str(src), dest2, columns_list=["name", "id"]).transform()
    assert set(FileReader(dest2).schema()) == {"name", "id"}
    with pytest.raises(RuntimeError, match="does not exist"):
        mindrecord.CsvToMR(str(src), str(tmp_path / "c3.mindrecord"), ["nope"]).transform()


def test_imagenet_to_mr(tmp_path):
    root = tmp_path / "img"
    for folder, files in (("n01", ["a.JPEG", "b.jpg", "skip.png"]), ("n02", ["c.JPEG"])):
        (root / folder).mkdir(parents=True)
        for f in files:
            (root / folder / f).write_bytes(f.encode() * 3)
    mapping = tmp_path / "map.txt"
    mapping.write_text("n01 0\nn02 1\nn99 2\n")
    dest = str(tmp_path / "inet.mindrecord")
    mindrecord.ImageNetToMR(str(mapping), str(root), dest).transform()
    got = list(FileReader(dest).get_next())
    assert sorted((r["label"], os.path.basename(r["file_name"]), r["image"]) for r in got) == [
        (0, "a.JPEG", b"a.JPEG" * 3), (0, "b.jpg", b"b.jpg" * 3), (1, "c.JPEG", b"c.JPEG" * 3)]


def _test_multi_page_layout_is_byte_identical_to_mindspore(tmp_path):
    """Many pages, row groups continued across write_raw_data calls and raw rows moved to a new
    raw page: the same bytes as MindSpore's writer."""
    script = tmp_path / "layout.py"
    script.write_text(LAYOUT_ROWS + "\nimport sys\nfrom mindspore.mindrecord import FileWriter\n"
                      "write_layout(FileWriter, sys.argv[1])\n")
    theirs = str(tmp_path / "theirs.mindrecord")
    res = subprocess.run([MS_PYTHON, str(script), theirs], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    space = {}
    exec(LAYOUT_ROWS, space)  # noqa: S102 (the test's own text, shared with the subprocess)
    ours = str(tmp_path / "theirs_copy" / "theirs.mindrecord")
    os.makedirs(os.path.dirname(ours))
    space["write_layout"](FileWriter, ours)
    assert read_bytes(ours) == read_bytes(theirs)
    for q in ("select * from INDEXES", "select * from SHARD_NAME"):
        a, b = sqlite3.connect(ours + ".db"), sqlite3.connect(theirs + ".db")
        assert list(a.execute(q)) == list(b.execute(q))
        a.close()
        b.close()


def test_parallel_workers_and_epochs(ten):
    ds.config.set_seed(3)
    one = ds.MindDataset(ten, num_parallel_workers=1)
    four = ds.MindDataset(ten, num_parallel_workers=4)
    assert values(one) == values(four)
    it = ds.MindDataset(ten).create_tuple_iterator(num_epochs=2, output_numpy=True)
    first, second = [int(r[0]) for r in it], [int(r[0]) for r in it]
    assert sorted(first) == sorted(second) == list(range(10)) and first != second


def _pb_varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        out.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
        v >>= 7
        if not v:
            return bytes(out)


def _pb_len(num, payload):
    return _pb_varint(num << 3 | 2) + _pb_varint(len(payload)) + payload


def _tf_example(features):
    """A serialized tf.train.Example (hand-encoded protobuf) from {name: list of values}."""
    entries = b""
    for name, values in features.items():
        if isinstance(values[0], bytes):
            inner = _pb_len(1, b"".join(_pb_len(1, v) for v in values))
        elif isinstance(values[0], float):
            inner = _pb_len(2, _pb_len(1, np.asarray(values, "<f4").tobytes()))
        else:
            inner = _pb_len(3, _pb_len(1, b"".join(_pb_varint(v) for v in values)))
        entries += _pb_len(1, _pb_len(1, name.encode()) + _pb_len(2, inner))
    return _pb_len(1, entries)


def _write_tfrecord(path, records):
    from minispore.mindrecord.tools import _masked_crc
    with open(path, "wb") as f:
        for rec in records:
            head = struct.pack("<Q", len(rec))
            f.write(head + struct.pack("<I", _masked_crc(head)) + rec +
                    struct.pack("<I", _masked_crc(rec)))


class _Feature:
    """What tf.io.FixedLenFeature holds (TensorFlow is not installed here)."""

    def __init__(self, shape, dtype, default_value=None):
        self.shape, self.dtype, self.default_value = shape, dtype, default_value


def test_tfrecord_to_mr(tmp_path):
    from minispore.mindrecord.tools import _crc32c
    assert _crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
    records = [_tf_example({"image bytes": [bytes([i]) * 5], "label": [i - 2],
                            "score": [i / 4], "ids": list(range(i, i + 3)),
                            "vec": [0.5, -1.5], "name": [f"n{i}".encode()]}) for i in range(4)]
    src = str(tmp_path / "data.tfrecord")
    _write_tfrecord(src, records)
    features = {"image bytes": _Feature([], "string"), "label": _Feature([], "int64"),
                "score": _Feature([], "float32"), "ids": _Feature([3], "int64"),
                "vec": _Feature([2], "float32"), "name": _Feature([], "string"),
                "missing": _Feature([], "int64", default_value=7)}
    dest = str(tmp_path / "tf.mindrecord")
    conv = mindrecord.TFRecordToMR(src, dest, features, bytes_fields=["image bytes"])
    assert conv.run() == mindrecord.SUCCESS
    reader = FileReader(dest)
    assert reader.schema() == {"image_bytes": {"type": "bytes"}, "label": {"type": "int64"},
                               "score": {"type": "float32"},
                               "ids": {"type": "int64", "shape": [3]},
                               "vec": {"type": "float32", "shape": [2]},
                               "name": {"type": "string"}, "missing": {"type": "int64"}}
    got = list(reader.get_next())
    assert [r["label"] for r in got] == [-2, -1, 0, 1]
    assert got[3]["image_bytes"] == b"\x03" * 5 and got[2]["name"] == "n2"
    assert got[1]["score"] == 0.25 and got[0]["missing"] == 7
    assert_same(got[1]["ids"], np.array([1, 2, 3], np.int64))
    assert_same(got[0]["vec"], np.array([0.5, -1.5], np.float32))
    with pytest.raises(ValueError, match="bytes_field"):
        mindrecord.TFRecordToMR(src, dest, features, bytes_fields=["label"])
    with pytest.raises(ValueError, match="not supported"):
        mindrecord.TFRecordToMR(src, dest, {"s": _Feature([2], "string")})
    bad = {"label": _Feature([2], "int64")}
    with pytest.raises(ValueError, match="has 1 values, expected 2"):
        mindrecord.TFRecordToMR(src, str(tmp_path / "b.mindrecord"), bad).run()
    data = bytearray(read_bytes(src))
    data[3] ^= 0xFF  # the first record's length
    with open(src, "wb") as f:
        f.write(data)
    with pytest.raises(ValueError, match="corrupt record length"):
        mindrecord.TFRecordToMR(src, str(tmp_path / "c.mindrecord"), features).run()


if MS_PYTHON:  # collected only when opted in: a MindSpore install is not a test dependency
    test_mindspore_reads_minispore_encrypted_file = _test_mindspore_reads_minispore_encrypted_file
    test_mindspore_reads_minispore_files = _test_mindspore_reads_minispore_files
    test_multi_page_layout_is_byte_identical_to_mindspore = _test_multi_page_layout_is_byte_identical_to_mindspore
