"""Write small TFRecord files of tf.train.Example records (hand-encoded protobuf, masked CRC32C)
and record what MindSpore 2.10's TFRecordDataset reads from them.

Run from a scratch directory (MindSpore writes stray files to the cwd):
    cd /tmp/x && /tmp/msvenv/bin/python /work/main/tests/dataset/data/make_tfrecord.py
Writing the files needs only NumPy; the MindSpore part runs when mindspore imports.
"""
import json
import os
import struct

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tfrecord")


def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


TABLE = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, wire, payload):
    key = varint((number << 3) | wire)
    if wire == 2:
        return key + varint(len(payload)) + payload
    return key + payload


def feature(value):
    if isinstance(value, list) and value and isinstance(value[0], bytes):
        inner = b"".join(field(1, 2, v) for v in value)
        return field(1, 2, inner)
    arr = np.asarray(value)
    if arr.dtype.kind == "f":
        return field(2, 2, field(1, 2, arr.astype("<f4").tobytes()))
    return field(3, 2, field(1, 2, b"".join(varint(int(v)) for v in arr.reshape(-1))))


def example(features):
    entries = b"".join(field(1, 2, field(1, 2, k.encode()) + field(2, 2, feature(v)))
                       for k, v in features.items())
    return field(1, 2, entries)


def write(path, records):
    with open(path, "wb") as f:
        for rec in records:
            data = example(rec)
            length = struct.pack("<Q", len(data))
            f.write(length + struct.pack("<I", masked(length)) + data +
                    struct.pack("<I", masked(data)))


def rows_for(file_index, n):
    rng = np.random.default_rng(file_index)
    out = []
    for i in range(n):
        out.append({
            "image": [bytes(rng.integers(0, 256, 6, dtype=np.uint8))],
            "label": [file_index * 10 + i],
            "scores": rng.standard_normal(3).astype(np.float32).tolist(),
            "ids": [-(i + 1), 2 ** 40, i],
        })
    return out


def main():
    os.makedirs(HERE, exist_ok=True)
    paths = []
    for k, n in enumerate([3, 4]):  # the default worker count differs: name it (2) below
        path = os.path.join(HERE, f"part-{k}.tfrecord")
        write(path, rows_for(k, n))
        paths.append(path)
    three = []
    os.makedirs(os.path.join(HERE, "three"), exist_ok=True)
    for k, n in enumerate([3, 4, 2]):
        path = os.path.join(HERE, "three", f"part-{k}.tfrecord")
        write(path, rows_for(k, n))
        three.append(path)
    schema = {"columns": {"image": {"type": "uint8", "rank": 1},
                          "label": {"type": "int64", "rank": 1, "shape": [1]},
                          "scores": {"type": "float32", "rank": 1, "shape": [3]}}}
    with open(os.path.join(HERE, "schema.json"), "w") as f:
        json.dump(schema, f)
    try:
        import mindspore.dataset as ds
    except ImportError:
        return
    out = {}

    def rows(d):
        return [[a.tolist() if a.dtype.kind not in "SU" else [str(x) for x in a.reshape(-1)]
                 for a in r] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]

    label = lambda d: [int(r[d.get_col_names().index("label")][0]) for r in
                       d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
    out["three"] = {
        "workers_1": label(ds.TFRecordDataset(three, shuffle=False, num_parallel_workers=1)),
        "workers_2": label(ds.TFRecordDataset(three, shuffle=False, num_parallel_workers=2)),
        "shards": [label(ds.TFRecordDataset(three, shuffle=False, num_parallel_workers=2,
                                            num_shards=2, shard_id=k)) for k in range(2)],
        "shards_equal": [label(ds.TFRecordDataset(three, shuffle=False, num_parallel_workers=2,
                                                  num_shards=2, shard_id=k,
                                                  shard_equal_rows=True)) for k in range(2)]}
    d = ds.TFRecordDataset(paths, shuffle=False, num_parallel_workers=2)
    out["plain"] = {"columns": d.get_col_names(), "rows": rows(d),
                    "types": [str(t) for t in d.output_types()], "size": d.get_dataset_size()}
    d = ds.TFRecordDataset(paths, schema=os.path.join(HERE, "schema.json"), shuffle=False,
                           num_parallel_workers=2)
    out["schema"] = {"columns": d.get_col_names(), "rows": rows(d),
                     "types": [str(t) for t in d.output_types()], "size": d.get_dataset_size()}
    d = ds.TFRecordDataset(paths, columns_list=["label", "ids"], shuffle=False,
                           num_parallel_workers=2)
    out["columns_list"] = {"columns": d.get_col_names(), "rows": rows(d)}
    d = ds.TFRecordDataset(paths, shuffle=False, num_samples=5, num_parallel_workers=2)
    out["num_samples"] = {"size": d.get_dataset_size(), "labels": [r[2] for r in rows(d)]}
    shards = []
    for shard in range(2):
        d = ds.TFRecordDataset(paths, shuffle=False, num_shards=2, shard_id=shard,
                               num_parallel_workers=2)
        shards.append({"size": d.get_dataset_size(),
                       "labels": [r[d.get_col_names().index("label")] for r in rows(d)]})
    out["shards"] = shards
    shards = []
    for shard in range(2):
        d = ds.TFRecordDataset(paths, shuffle=False, num_shards=2, shard_id=shard,
                               shard_equal_rows=True, num_parallel_workers=2)
        shards.append({"size": d.get_dataset_size(),
                       "labels": [r[d.get_col_names().index("label")] for r in rows(d)]})
    out["shards_equal"] = shards
    with open(os.path.join(HERE, "mindspore_tfrecord.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
