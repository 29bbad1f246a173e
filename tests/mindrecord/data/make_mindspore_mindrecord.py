"""Fixtures of MindRecord files written by real MindSpore 2.10, and what its MindDataset and
FileReader read back from them (mindspore_mindrecord.npz).

Run with a python that has MindSpore (numpy<2), from a scratch folder (MindSpore writes stray
files into the cwd), e.g.:
    cd /tmp/x && /tmp/msvenv/bin/python /work/main/tests/mindrecord/data/make_mindspore_mindrecord.py
"""
import inspect
import json
import os
import shutil
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = {"name": {"type": "string"}, "label": {"type": "int64"}, "score": {"type": "float32"},
          "weight": {"type": "float64"}, "delta": {"type": "int32"}, "img": {"type": "bytes"},
          "ids": {"type": "int32", "shape": [-1]}, "mat": {"type": "float32", "shape": [2, 3]},
          "big": {"type": "int64", "shape": [-1]}}
ENC_KEY = "0123456789abcdef"
SIGNATURE_NAMES = ["set_enc_key", "set_enc_mode", "set_dec_mode", "FileWriter", "FileReader", "MindPage", "FileWriter.add_schema",
                   "FileWriter.add_index", "FileWriter.write_raw_data", "FileWriter.commit",
                   "FileWriter.set_header_size", "FileWriter.set_page_size",
                   "FileWriter.open_for_append", "FileReader.get_next", "FileReader.len",
                   "FileReader.schema", "FileReader.close", "MindPage.read_category_info",
                   "MindPage.read_at_page_by_id", "MindPage.read_at_page_by_name",
                   "Cifar10ToMR", "Cifar10ToMR.run", "Cifar10ToMR.transform", "Cifar100ToMR",
                   "Cifar100ToMR.run", "Cifar100ToMR.transform", "CsvToMR", "CsvToMR.run",
                   "ImageNetToMR", "ImageNetToMR.run", "MnistToMR", "MnistToMR.run",
                   "TFRecordToMR", "TFRecordToMR.run", "TFRecordToMR.transform"]


def save_source():
    """The columns `Dataset.save` is checked with (as NumpySlicesDataset data)."""
    return {"x": np.arange(12, dtype=np.float32).reshape(6, 2), "y": np.arange(6),
            "t": [f"t{i}" for i in range(6)], "u": np.arange(18, dtype=np.uint8).reshape(6, 3),
            "h": np.arange(24, dtype=np.int16).reshape(6, 2, 2), "b": np.array([b"ab"] * 6),
            "f": np.linspace(0, 1, 6).astype(np.float16)}


def fixture_rows(n=12, seed=0):
    """The rows both writers write (deterministic)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        rows.append({"name": f"item_{i}" + "é" * (i % 3), "label": i * 1000003 - 5,
                     "score": i / 4, "weight": i / 7, "delta": -i * 300,
                     "img": rng.integers(0, 256, 20 + 7 * i).astype(np.uint8).tobytes(),
                     "ids": np.array([1, -200, 70000, -5, 2**31 - 1][:i % 5 + 1], np.int32),
                     "mat": rng.standard_normal((2, 3)).astype(np.float32),
                     "big": np.array([i, -2**40, 2**62][:i % 3 + 1], np.int64)})
    return rows


def write(FileWriter, path, rows, shard_num=1, index=("name", "label")):
    w = FileWriter(path, shard_num=shard_num, overwrite=True)
    w.set_header_size(1 << 14)
    w.set_page_size(1 << 15)
    w.add_schema(SCHEMA, "fixture")
    w.add_index(list(index))
    w.write_raw_data(rows[:5])
    w.write_raw_data(rows[5:])
    w.commit()


def main():
    import mindspore.dataset as ds
    from mindspore import mindrecord
    work = tempfile.mkdtemp()
    rows = fixture_rows()
    write(mindrecord.FileWriter, os.path.join(work, "ms_single.mindrecord"), rows)
    write(mindrecord.FileWriter, os.path.join(work, "ms_shards.mindrecord"), rows, shard_num=2)
    mindrecord.set_enc_key(ENC_KEY)
    write(mindrecord.FileWriter, os.path.join(work, "ms_encrypted.mindrecord"), rows[:6])
    mindrecord.set_enc_key(None)
    out = {}
    for name in ("ms_single.mindrecord", "ms_shards.mindrecord0"):
        data = ds.MindDataset(os.path.join(work, name), shuffle=False)
        out[f"{name}:columns"] = np.array(data.get_col_names())
        for i, row in enumerate(data.create_dict_iterator(output_numpy=True, num_epochs=1)):
            for col, value in row.items():
                out[f"{name}:{col}:{i}"] = value
        out[f"{name}:rows"] = np.array(i + 1)
    reader = mindrecord.FileReader(os.path.join(work, "ms_single.mindrecord"))
    for i, row in enumerate(reader.get_next()):
        for col, value in row.items():
            out[f"reader:{col}:{i}"] = np.frombuffer(value, np.uint8) if isinstance(value, bytes) \
                else np.asarray(value)
    reader.close()
    page = mindrecord.MindPage(os.path.join(work, "ms_single.mindrecord"))
    out["page:candidates"] = np.array(page.candidate_fields)
    page.category_field = "label"
    out["page:info"] = np.array(page.read_category_info())
    saved = os.path.join(work, "saved.mindrecord")
    ds.NumpySlicesDataset(save_source(), shuffle=False).save(saved)
    out["save:schema"] = np.array(json.dumps(mindrecord.FileReader(saved).schema()))
    for i, row in enumerate(ds.MindDataset(saved, shuffle=False).create_dict_iterator(
            output_numpy=True, num_epochs=1)):
        for col, value in row.items():
            out[f"save:{col}:{i}"] = value
    os.remove(saved)
    os.remove(saved + ".db")
    sigs = {}
    for full in SIGNATURE_NAMES:
        obj = mindrecord
        for part in full.split("."):
            obj = getattr(obj, part)
        sigs[full] = str(inspect.signature(obj))
    sigs["MindDataset"] = str(inspect.signature(ds.MindDataset))
    sigs["Dataset.save"] = str(inspect.signature(ds.Dataset.save))
    out["signatures"] = np.array(json.dumps(sigs))
    for name in os.listdir(work):
        if name.startswith("."):  # MindSpore's folder of decrypted copies
            continue
        shutil.copy(os.path.join(work, name), os.path.join(HERE, name))
    np.savez_compressed(os.path.join(HERE, "mindspore_mindrecord.npz"), **out)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
