"""The pipeline's public names: `Dataset` (the ops every dataset has: map, batch, shuffle,
repeat, ...), the op nodes, `MappableDataset` (random-access sources read through a sampler),
`zip`, the pipeline's JSON form (`serialize`, `deserialize`, `show`, `compare`) and
`TFRecordDataset`.

`Dataset` and `MappableDataset` live in `_base`; the nodes, which subclass `Dataset`, in
`_transform_ops` (map, filter, batch, padded_batch, bucket_batch_by_length, project, rename) and
`_order_ops` (shuffle, repeat, take, skip, zip, concat, split, sync_wait). Importing them here
also registers the nodes that `Dataset.<op>` builds.

JSON form: every node is {"op_type": class name, "python_module": its module, "args": [...],
"kwargs": {...}, "children": [...]}, with the arguments it was built with (a child dataset
argument becomes {"__child__": k}); a random-access source also records its current
"sampler". Values that JSON cannot hold are tagged: {"__ndarray__": ...}, {"__dtype__": ...},
{"__object__": ...} (a sampler or a transform object: its class and constructor arguments) and
{"__callable__": ...} (a module-level function). Only classes and functions from minispore
modules, or from modules already imported, are looked up when rebuilding.
"""
import builtins
import collections
import glob
import gzip
import importlib
import inspect
import json
import os
import struct
import sys
import zlib

import numpy as np

from .._validator import check_bool, check_int_range
from ..common import dtype as mstype
from ._base import INT32_MAX, Dataset, MappableDataset, builds, check_workers, column_list
from ._order_ops import (
    ConcatDataset,
    RepeatDataset,
    ShuffleDataset,
    SkipDataset,
    SyncWaitDataset,
    TakeDataset,
    ZipDataset,
    zip,
)
from ._transform_ops import (
    BatchDataset,
    BatchInfo,
    BucketBatchByLengthDataset,
    FilterDataset,
    FlatMapDataset,
    MapDataset,
    PaddedBatchDataset,
    ProjectDataset,
    RenameDataset,
)
from .datasets_text import Shuffle
from .samplers import Sampler
from .sources import Schema

__all__ = ["BatchDataset", "BatchInfo", "BucketBatchByLengthDataset", "ConcatDataset", "Dataset",
           "FilterDataset", "FlatMapDataset", "MapDataset", "MappableDataset", "PaddedBatchDataset",
           "ProjectDataset", "RenameDataset", "RepeatDataset", "ShuffleDataset", "SkipDataset",
           "SyncWaitDataset", "TFRecordDataset", "TakeDataset", "ZipDataset", "compare",
           "deserialize", "serialize", "show", "zip"]


class _Unserializable(ValueError):
    pass


def _encode(value, children):
    if isinstance(value, Dataset):
        children.append(value)
        return {"__child__": len(children) - 1}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, mstype.Type):
        return {"__dtype__": str(value).lower()}
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return {"__dtype__": np.dtype(value).name}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, children) for v in value]
        return items if isinstance(value, list) else {"__tuple__": items}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {"__dict__": {k: _encode(v, children) for k, v in value.items()}}
        raise _Unserializable(f"a dict with non-str keys: {value!r}")
    if inspect.isfunction(value) or inspect.isbuiltin(value) or inspect.isclass(value):
        qual = getattr(value, "__qualname__", "")
        if "<" in qual:
            raise _Unserializable(f"the {'lambda' if '<lambda>' in qual else 'local function'} "
                                  f"{qual}")
        return {"__callable__": f"{value.__module__}:{qual}"}
    return _encode_object(value, children)


def _encode_object(obj, children):
    """A sampler or transform object as its class and constructor arguments: those recorded
    when it was built, else the attributes named like its constructor's parameters."""
    cls = type(obj)
    if "<" in cls.__qualname__:
        raise _Unserializable(f"an object of the local class {cls.__qualname__}")
    recorded = obj.__dict__.get("_init_args") if hasattr(obj, "__dict__") else None
    if recorded is not None:
        args, kwargs = recorded
    else:
        args, kwargs = [], {}
        try:
            params = inspect.signature(cls.__init__).parameters
        except (TypeError, ValueError):
            raise _Unserializable(f"a {cls.__name__} object") from None
        for name, prm in list(params.items())[1:]:
            if prm.kind in (prm.VAR_POSITIONAL, prm.VAR_KEYWORD):
                continue
            for attr in (name, "_" + name):
                if hasattr(obj, attr):
                    kwargs[name] = getattr(obj, attr)
                    break
            else:
                if prm.default is prm.empty:
                    raise _Unserializable(f"a {cls.__name__} object (its '{name}' argument is "
                                          f"not kept)")
    return {"__object__": f"{cls.__module__}:{cls.__qualname__}",
            "args": [_encode(a, children) for a in args],
            "kwargs": {k: _encode(v, children) for k, v in kwargs.items()}}


def _node_json(node):
    args, kwargs = node.__dict__.get("_init_args", ((), {}))
    cls = type(node)
    out = {"op_type": cls.__name__, "python_module": cls.__module__,
           "num_parallel_workers": node.num_parallel_workers}
    children = []
    try:
        out["args"] = [_encode(a, children) for a in args]
        out["kwargs"] = {k: _encode(v, children) for k, v in kwargs.items()}
        if isinstance(node, MappableDataset) and isinstance(node.sampler, Sampler):
            out["sampler"] = _encode(node.sampler, children)
    except _Unserializable as e:
        out["unserializable"] = str(e)
    out["children"] = [_node_json(c) for c in children]
    return out


@builds("to_json")
def _to_json(dataset, filename=""):
    obj = _node_json(dataset)
    if filename:
        with open(os.fspath(filename), "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=2)
    return obj


def _lookup(owner, path):
    module_name, _, qual = path.partition(":")
    if not (module_name == "minispore" or module_name.startswith("minispore.") or
            module_name in sys.modules):
        raise ValueError(f"For '{owner}', '{path}' is neither in minispore nor in an imported "
                         f"module: import its module first")
    target = importlib.import_module(module_name)
    for part in qual.split("."):
        target = getattr(target, part)
    return target


def _decode(value, children):
    if isinstance(value, list):
        return [_decode(v, children) for v in value]
    if not isinstance(value, dict):
        return value
    if "__child__" in value:
        return children[value["__child__"]]
    if "__tuple__" in value:
        return tuple(_decode(v, children) for v in value["__tuple__"])
    if "__dict__" in value:
        return {k: _decode(v, children) for k, v in value["__dict__"].items()}
    if "__ndarray__" in value:
        return np.array(value["__ndarray__"], dtype=np.dtype(value["dtype"]))
    if "__dtype__" in value:
        return mstype.from_np(np.dtype(value["__dtype__"]))
    if "__callable__" in value:
        return _lookup("deserialize", value["__callable__"])
    if "__object__" in value:
        cls = _lookup("deserialize", value["__object__"])
        return cls(*_decode(value["args"], children),
                   **{k: _decode(v, children) for k, v in value["kwargs"].items()})
    raise ValueError(f"For 'deserialize', unknown JSON value {value!r}")


def _build(obj):
    if not isinstance(obj, dict) or "op_type" not in obj:
        raise ValueError(f"For 'deserialize', a node must be a dict with 'op_type', but got "
                         f"{obj!r}")
    if "unserializable" in obj:
        raise ValueError(f"For 'deserialize', the {obj['op_type']} node cannot be rebuilt: it "
                         f"holds {obj['unserializable']}")
    children = [_build(c) for c in obj.get("children", [])]
    cls = _lookup("deserialize", f"{obj['python_module']}:{obj['op_type']}")
    if not (isinstance(cls, type) and issubclass(cls, Dataset)):
        raise TypeError(f"For 'deserialize', {obj['op_type']} is not a dataset class")
    node = cls(*_decode(obj["args"], children),
               **{k: _decode(v, children) for k, v in obj["kwargs"].items()})
    if "sampler" in obj:
        node.use_sampler(_decode(obj["sampler"], children))
    return node


def serialize(dataset, json_filepath=""):
    """`dataset.to_json(json_filepath)`: the pipeline as a JSON-ready dict."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"For 'serialize', 'dataset' must be a Dataset, but got "
                        f"{type(dataset).__name__}")
    return dataset.to_json(json_filepath)


def deserialize(input_dict=None, json_filepath=None):
    """Rebuild a pipeline from `serialize`'s dict, or from the JSON file it wrote.

    Raises:
        ValueError: neither or both arguments, or a node that holds a lambda or another value
            that was recorded by name only.
    """
    if (input_dict is None) == (json_filepath is None):
        raise ValueError("For 'deserialize', give exactly one of 'input_dict' and "
                         "'json_filepath'")
    if json_filepath is not None:
        with open(os.fspath(json_filepath), encoding="utf-8") as f:
            input_dict = json.load(f)
    if not isinstance(input_dict, dict):
        raise TypeError(f"For 'deserialize', 'input_dict' must be a dict, but got "
                        f"{type(input_dict).__name__}")
    return _build(input_dict)


def show(dataset, indentation=2):
    """Print the pipeline's JSON form (`indentation` spaces per level, None: one line)."""
    print(json.dumps(serialize(dataset), indent=indentation))


def compare(pipeline1, pipeline2):
    """Whether two pipelines have the same JSON form (same ops, arguments and sources)."""
    return serialize(pipeline1) == serialize(pipeline2)


# ---- TFRecord ---------------------------------------------------------------------------------

def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C = _crc32c_table()
_MAX_RECORD_BYTES = 1 << 31


def _masked_crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC32C[(c ^ b) & 0xFF] ^ (c >> 8)
    c ^= 0xFFFFFFFF
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _tfrecord_payloads(path, compression):
    """The records of a TFRecord file, checking each length's CRC (the data CRCs are not
    checked: a pure-Python CRC32C would cost more than the parsing)."""
    with open(path, "rb") as raw:
        if compression == "GZIP":
            with gzip.GzipFile(fileobj=raw) as f:
                yield from _records_of(path, f)
        elif compression == "ZLIB":
            yield from _records_of(path, _ZlibReader(raw))
        else:
            yield from _records_of(path, raw, os.fstat(raw.fileno()).st_size)


class _ZlibReader:
    """`read(n)` over a zlib stream, decompressing only what is asked for."""

    def __init__(self, raw):
        self._raw, self._z, self._buf = raw, zlib.decompressobj(), b""

    def read(self, n):
        while len(self._buf) < n and not self._z.eof:
            data = self._z.unconsumed_tail or self._raw.read(1 << 16)
            if not data:
                break
            self._buf += self._z.decompress(data, n - len(self._buf))
        out, self._buf = self._buf[:n], self._buf[n:]
        return out


def _records_of(path, f, limit=_MAX_RECORD_BYTES):
    k = 0
    while True:
        head = f.read(12)
        if not head:
            return
        if len(head) < 12:
            raise ValueError(f"For 'TFRecordDataset', {path!r} ends inside the header of "
                             f"record {k}: the file is truncated")
        length, crc = struct.unpack("<QI", head)
        if _masked_crc32c(head[:8]) != crc:
            raise ValueError(f"For 'TFRecordDataset', record {k} of {path!r} has a bad length "
                             f"checksum: not a TFRecord file, or a corrupt one")
        if length > limit:
            raise ValueError(f"For 'TFRecordDataset', record {k} of {path!r} claims {length} "
                             f"bytes, more than the file holds: the file is truncated")
        data = f.read(length)
        if len(data) < length or len(f.read(4)) < 4:
            raise ValueError(f"For 'TFRecordDataset', {path!r} ends inside record {k}: the "
                             f"file is truncated")
        yield data
        k += 1


def _varint(buf, pos):
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint longer than 10 bytes")


def _fields(buf):
    """(field number, wire type, value) of a protobuf message: value is an int for varints and
    fixed fields, bytes for length-delimited ones."""
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            n, pos = _varint(buf, pos)
            if pos + n > len(buf):
                raise ValueError("truncated length-delimited field")
            value, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        yield number, wire, value


def _feature_value(buf):
    """A tf.train.Feature as ('bytes', [bytes...]), ('float', float32 array) or ('int64',
    int64 array)."""
    for number, _, payload in _fields(buf):
        if number == 1:
            return "bytes", [bytes(v) for n, w, v in _fields(payload) if n == 1]
        if number == 2:
            parts = []
            for n, w, v in _fields(payload):
                if n == 1:
                    parts.append(np.frombuffer(v, "<f4"))
            return "float", np.concatenate(parts) if parts else np.zeros(0, np.float32)
        if number == 3:
            values = []
            for n, w, v in _fields(payload):
                if n != 1:
                    continue
                if w == 2:
                    pos = 0
                    while pos < len(v):
                        x, pos = _varint(v, pos)
                        values.append(x)
                else:
                    values.append(v)
            arr = np.array(values, dtype=np.uint64).astype(np.int64)
            return "int64", arr
    return "int64", np.zeros(0, np.int64)


def _parse_example(buf):
    """{feature name: (kind, values)} of a serialized tf.train.Example."""
    out = {}
    for number, _, features in _fields(buf):
        if number != 1:
            continue
        for n, _, entry in _fields(features):
            if n != 1:
                continue
            key, value = None, b""
            for m, _, v in _fields(entry):
                if m == 1:
                    key = bytes(v).decode("utf-8")
                elif m == 2:
                    value = v
            out[key] = _feature_value(value)
    return out


def _tf_column(owner, name, kind, values, np_type, shape):
    if kind == "bytes":
        if np_type is not None and np_type.kind in "US" or np_type is None and len(values) != 1:
            arr = np.array([v.decode("utf-8", "replace") for v in values], dtype=np.str_)
        else:
            raw = b"".join(values)
            arr = np.frombuffer(raw, np.uint8).copy() if np_type is None else \
                np.frombuffer(raw, np.uint8).astype(np_type)
    else:
        arr = values if np_type is None else values.astype(np_type)
    if shape is not None:
        try:
            arr = arr.reshape(shape)
        except ValueError:
            raise ValueError(f"For '{owner}', column '{name}' has {arr.size} values, which do "
                             f"not fit the schema shape {shape}") from None
    return arr


class TFRecordDataset(Dataset):
    """Rows of TFRecord files of `tf.train.Example` records (TensorFlow's format).

    Args:
        dataset_files (str | list[str]): files, or a glob pattern; sorted by name.
        schema (Schema | str, optional): column types and shapes (a bytes feature read as
            'string' gives strings, as a number type the bytes' values); its numRows limits the
            rows when `num_samples` is not given. Without it the columns are every feature, by
            name: int64 lists as int64, float lists as float32, bytes lists as uint8 (the
            bytes of a one-element list) or strings.
        columns_list (list[str], optional): the columns to read, in this order.
        num_samples (int, optional): at most this many rows (per shard).
        num_parallel_workers (int, optional): files read at a time: rows are taken one by one
            from that many files in turn, each slot moving on to the next file when its file
            ends (MindSpore's order; 1 reads the files one after another).
        shuffle (bool | Shuffle): Shuffle.GLOBAL / True (default) shuffles the rows each epoch,
            Shuffle.FILES the file order, False nothing.
        num_shards, shard_id: read one shard: every num_shards-th file, or with
            `shard_equal_rows` the shard_id-th block of ceil(rows / num_shards) rows of the
            files in order (wrapping around to the first rows).
        compression_type (str, optional): None, '' , 'GZIP' or 'ZLIB'.
        cache: accepted and ignored.
    """

    def __init__(self, dataset_files, schema=None, columns_list=None, num_samples=None,
                 num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, shard_equal_rows=False, cache=None, compression_type=None):
        owner = "TFRecordDataset"
        super().__init__((), check_workers(owner, num_parallel_workers))
        self.dataset_files = _tf_files(owner, dataset_files)
        if isinstance(schema, (str, os.PathLike)):
            schema = Schema(schema)
        if schema is not None and not isinstance(schema, Schema):
            raise TypeError(f"For '{owner}', 'schema' must be a Schema or a schema file path, "
                            f"but got {type(schema).__name__}")
        self.schema = schema
        self.columns_list = column_list(owner, "columns_list", columns_list)
        if num_samples is not None:
            check_int_range(num_samples, "num_samples", owner, 0, INT32_MAX)
        self.num_samples = num_samples or (schema.num_rows if schema is not None else None) \
            or None
        if isinstance(shuffle, (bool, np.bool_)):
            shuffle = Shuffle.GLOBAL if shuffle else False
        if shuffle is not False and shuffle not in (Shuffle.GLOBAL, Shuffle.FILES):
            raise ValueError(f"For '{owner}', 'shuffle' must be a bool, Shuffle.GLOBAL or "
                             f"Shuffle.FILES, but got {shuffle!r}")
        self.shuffle = shuffle
        if (num_shards is None) != (shard_id is None):
            raise ValueError(f"For '{owner}', 'num_shards' and 'shard_id' must be given "
                             f"together")
        if num_shards is not None:
            num_shards = check_int_range(num_shards, "num_shards", owner, 1, INT32_MAX)
            shard_id = check_int_range(shard_id, "shard_id", owner, 0, num_shards - 1)
        self.num_shards, self.shard_id = num_shards, shard_id
        self.shard_equal_rows = check_bool(shard_equal_rows, "shard_equal_rows", owner)
        if num_shards is not None and not shard_equal_rows and \
                num_shards > len(self.dataset_files):
            raise ValueError(f"For '{owner}', {num_shards} shards of {len(self.dataset_files)} "
                             f"files leave a shard without files: use shard_equal_rows=True")
        if compression_type in (None, ""):
            compression_type = None
        elif compression_type not in ("GZIP", "ZLIB"):
            raise ValueError(f"For '{owner}', 'compression_type' must be None, '', 'GZIP' or "
                             f"'ZLIB', but got {compression_type!r}")
        self.compression_type = compression_type
        self._names, self._types, self._shapes = self._plan_columns(owner)

    def _records(self, path):
        for k, data in enumerate(_tfrecord_payloads(path, self.compression_type)):
            try:
                yield _parse_example(data)
            except ValueError as e:
                raise ValueError(f"For 'TFRecordDataset', record {k} of {path!r} is not a "
                                 f"tf.train.Example: {e}") from None

    def _plan_columns(self, owner):
        if self.schema is not None:
            cols = {c["name"]: c for c in self.schema.columns}
            names = list(cols)
        else:
            first = next(self._records(self.dataset_files[0]), None)
            if first is None:
                raise ValueError(f"For '{owner}', {self.dataset_files[0]!r} has no records to "
                                 f"take the columns from: give a schema")
            names, cols = sorted(first), {}
        if self.columns_list is not None:
            missing = [c for c in self.columns_list if c not in names]
            if missing:
                raise ValueError(f"For '{owner}', the columns {missing} of 'columns_list' are "
                                 f"not in the data {names}")
            names = list(self.columns_list)
        types = [cols[n]["type"] if n in cols else None for n in names]
        shapes = [cols[n]["shape"] if n in cols and cols[n]["shape"] else None for n in names]
        return names, types, shapes

    def _columns(self):
        return list(self._names)

    def _row(self, path, record):
        out = []
        for name, np_type, shape in builtins.zip(self._names, self._types, self._shapes):
            if name not in record:
                raise ValueError(f"For 'TFRecordDataset', a record of {path!r} has no feature "
                                 f"'{name}'")
            kind, values = record[name]
            out.append(_tf_column("TFRecordDataset", name, kind, values, np_type, shape))
        return tuple(out)

    def _file_rows(self):
        if "counts" not in self._cache:
            self._cache["counts"] = [sum(1 for _ in _tfrecord_payloads(f, self.compression_type))
                                     for f in self.dataset_files]
        return self._cache["counts"]

    def _parts(self, p):
        """(file index, first row, end row) spans this shard reads, in reading order."""
        files = list(range(len(self.dataset_files)))
        if self.shuffle is not False:
            files = [int(k) for k in p.rng(self, shared=True).permutation(files)]
        if self.num_shards is None:
            return [(f, 0, None) for f in files]
        if not self.shard_equal_rows:
            return [(f, 0, None) for f in files[self.shard_id::self.num_shards]]
        counts = self._file_rows()
        total = sum(counts)
        if total == 0:
            return []
        sizes = [counts[f] for f in files]
        begins = dict(builtins.zip(files, np.cumsum([0] + sizes)[:-1].tolist()))
        remaining = -(-total // self.num_shards)
        pos = self.shard_id * remaining % total
        spans = []
        while remaining > 0:
            f = next(f for f in files if begins[f] <= pos < begins[f] + counts[f])
            take = min(remaining, begins[f] + counts[f] - pos)
            spans.append((f, pos - begins[f], pos - begins[f] + take))
            remaining -= take
            pos = (pos + take) % total
        return spans

    def _interleaved(self, p):
        slots = max(1, self._workers())
        parts = collections.deque(self._parts(p))
        active = []

        def part_rows(f, start, end):
            path = self.dataset_files[f]
            for k, record in enumerate(self._records(path)):
                if k < start:
                    continue
                if end is not None and k >= end:
                    return
                yield self._row(path, record)

        while parts and len(active) < slots:
            active.append(part_rows(*parts.popleft()))
        k = 0
        while active:
            if k >= len(active):
                k = 0
            row = next(active[k], None)
            if row is None:
                if parts:
                    active[k] = part_rows(*parts.popleft())
                else:
                    active.pop(k)
                continue
            yield row
            k += 1

    def _rows(self, p):
        rows = self._interleaved(p)
        limit = self.num_samples
        if self.shuffle is Shuffle.GLOBAL:
            rows = list(rows)
            rows = [rows[int(i)] for i in p.rng(self).permutation(len(rows))]
        for k, row in enumerate(rows):
            if limit is not None and k >= limit:
                return
            yield row

    def _node_shuffles(self):
        return self.shuffle is not False

    def _node_sharded(self):
        return self.num_shards is not None and self.num_shards > 1


def _tf_files(owner, dataset_files):
    if isinstance(dataset_files, (str, os.PathLike)):
        pattern = os.fspath(dataset_files)
        files = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
    elif isinstance(dataset_files, (list, tuple)) and dataset_files:
        files = sorted(os.fspath(f) for f in dataset_files)
    else:
        raise TypeError(f"For '{owner}', 'dataset_files' must be a path, a glob pattern or a "
                        f"non-empty list of paths, but got {dataset_files!r}")
    if not files:
        raise ValueError(f"For '{owner}', no file matches {dataset_files!r}")
    for f in files:
        if not os.path.isfile(f):
            raise ValueError(f"For '{owner}', the file {f!r} does not exist")
    return files
