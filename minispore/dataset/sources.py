"""Python-side sources: `GeneratorDataset` (generator functions, iterables, random-access
objects), `NumpySlicesDataset` (lists, tuples, dicts, arrays), `PaddedDataset` (a list of dicts),
`RandomDataset` (random rows of a `Schema`) and `Schema`."""
import json
import os
import threading

import numpy as np

from .._validator import (
    check_bool,
    check_int,
    check_int_range,
    check_non_negative_int,
    check_sequence,
)
from ..common import dtype as mstype
from ..common.tensor import Tensor
from . import config
from ._base import MappableDataset, as_column, check_workers, column_list, note
from .samplers import select_sampler

__all__ = ["GeneratorDataset", "NumpySlicesDataset", "PaddedDataset", "RandomDataset", "Schema"]


def _column_type(owner, de_type):
    """NumPy dtype of a schema column type: a MindSpore or NumPy dtype, a dtype name, or
    'string' / mstype.string (a str column)."""
    if de_type is mstype.string or de_type in ("string", "str"):
        return np.dtype(np.str_)
    try:
        return mstype.to_np(de_type)
    except TypeError:
        raise TypeError(f"For '{owner}', unknown column type {de_type!r}") from None


def _type_name(np_type):
    return "string" if np_type.kind in "US" else np_type.name


class Schema:
    """Column names, types and shapes: for `GeneratorDataset(schema=...)` and `RandomDataset`.

    Args:
        schema_file (str, optional): a JSON file {"columns": {name: {"type": ..., "shape":
            [...]}} or [{"name": ..., "type": ..., "shape": ...}], "numRows": n}.

    Raises:
        ValueError: the file does not exist or is not a schema. TypeError: an unknown type.
    """

    def __init__(self, schema_file=None):
        self.columns = []
        self.num_rows = None
        self.dataset_type = None
        if schema_file is not None:
            path = os.fspath(schema_file)
            if not os.path.isfile(path):
                raise ValueError(f"For 'Schema', the file {path} does not exist or permission "
                                 f"denied")
            try:
                with open(path, encoding="utf-8") as f:
                    obj = json.load(f)
            except (OSError, ValueError) as e:
                raise ValueError(f"For 'Schema', {path} is not a JSON schema file: {e}") from None
            self.from_json(obj)

    def add_column(self, name, de_type, shape=None):
        """Add column `name` of type `de_type` (a MindSpore or NumPy dtype, a dtype name or
        'string') and `shape` (None: not fixed)."""
        if not isinstance(name, str) or not name:
            raise TypeError(f"For 'add_column', 'name' must be a non-empty str, but got {name!r}")
        np_type = _column_type("add_column", de_type)
        if shape is not None:
            shape = list(check_sequence(shape, "shape", "add_column", check_int,
                                        expected="a list of ints"))
        self.columns.append({"name": name, "type": np_type, "shape": shape})

    def parse_columns(self, columns):
        """Replace the columns with `columns`: a list of {"name", "type", "shape"} dicts or a
        dict {name: {"type", "shape"}}."""
        if isinstance(columns, dict):
            items = [dict(spec, name=name) for name, spec in columns.items()]
        elif isinstance(columns, list):
            items = columns
        else:
            raise TypeError(f"For 'parse_columns', 'columns' must be a list or a dict, but got "
                            f"{type(columns).__name__}")
        self.columns = []
        for item in items:
            if not isinstance(item, dict) or "name" not in item or "type" not in item:
                raise RuntimeError(f"For 'parse_columns', each column needs a 'name' and a "
                                   f"'type', but got {item!r}")
            shape = item.get("shape")
            if shape is None and item.get("rank") == 0:
                shape = []
            self.add_column(item["name"], item["type"], shape)

    def from_json(self, json_obj):
        """Replace the schema with a parsed JSON object ("columns", "numRows", "datasetType")."""
        if not isinstance(json_obj, dict) or "columns" not in json_obj:
            raise RuntimeError(f"For 'from_json', the schema must be a dict with 'columns', but "
                               f"got {json_obj!r}")
        self.parse_columns(json_obj["columns"])
        num_rows = json_obj.get("numRows")
        self.num_rows = None if num_rows is None else check_non_negative_int(
            num_rows, "numRows", "from_json")
        self.dataset_type = json_obj.get("datasetType")

    def to_json(self):
        """The schema as a JSON string."""
        cols = []
        for c in self.columns:
            entry = {"name": c["name"], "type": _type_name(c["type"]),
                     "rank": 1 if c["shape"] is None else len(c["shape"])}
            if c["shape"] is not None:
                entry["shape"] = c["shape"]
            cols.append(entry)
        obj = {"columns": cols}
        if self.num_rows is not None:
            obj["numRows"] = self.num_rows
        if self.dataset_type is not None:
            obj["datasetType"] = self.dataset_type
        return json.dumps(obj, indent=2, sort_keys=True)

    @staticmethod
    def get_num_rows(schema):
        """The "numRows" of `schema`'s JSON (ValueError if it has none)."""
        if not isinstance(schema, Schema):
            raise TypeError(f"For 'get_num_rows', 'schema' must be a Schema, but got "
                            f"{type(schema).__name__}")
        if schema.num_rows is None:
            raise ValueError("For 'get_num_rows', the schema has no 'numRows'")
        return schema.num_rows

    def __str__(self):
        return self.to_json()

    def __repr__(self):
        return self.to_json()


def _cast_types(owner, column_types, n):
    if column_types is None:
        return None
    if not isinstance(column_types, (list, tuple)) or len(column_types) != n:
        raise ValueError(f"For '{owner}', 'column_types' must be a list of {n} dtypes (one per "
                         f"column), but got {column_types!r}")
    return [mstype.to_np(t) for t in column_types]


class GeneratorDataset(MappableDataset):
    """A dataset over Python data.

    Args:
        source: a generator function (called once per epoch), an iterable (`iter()` per epoch;
            a one-shot iterator is read once and kept), or a random-access object with
            `__getitem__` and `__len__` (read through a sampler). Each item is a tuple or list
            with one value per column, or a single value for a single column; Python ints
            become int64, floats float64.
        column_names (str | list[str]): the column names (or give `schema`).
        column_types (list, optional): dtypes to cast the columns to.
        schema (Schema, optional): names and types instead of `column_names`.
        num_samples (int, optional): at most this many rows per epoch.
        num_parallel_workers (int): workers that call `__getitem__` (random access only).
        shuffle (bool, optional): random-access sources shuffle unless False; for generator
            functions and iterables it is ignored, as in MindSpore.
        sampler, num_shards, shard_id: random-access sources only (ValueError otherwise).
        python_multiprocessing (bool): with more than one worker, call `__getitem__` in
            worker processes (True, the default, as in MindSpore) instead of threads: see
            `Dataset.map` for how they start, share memory and fail. `max_rowsize` is accepted
            (shared memory is sized per array here).

    Raises:
        ValueError: neither `column_names` nor `schema`; a sampler on a non-random-access
            source; a row whose column count differs from `column_names`.
        TypeError: a source that is neither callable, iterable nor random-access; a value that
            is not a number, bool or string (None, dicts, objects).
    """

    def __init__(self, source, column_names=None, column_types=None, schema=None,
                 num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, python_multiprocessing=True, max_rowsize=None):
        owner = "GeneratorDataset"
        types = None
        if schema is not None:
            if not isinstance(schema, Schema):
                raise TypeError(f"For '{owner}', 'schema' must be a Schema, but got "
                                f"{type(schema).__name__}")
            names = [c["name"] for c in schema.columns]
            types = [None if c["type"].kind in "US" else c["type"] for c in schema.columns]
            if not names:
                raise ValueError(f"For '{owner}', the schema has no columns")
        elif column_names is None:
            raise ValueError(f"For '{owner}', 'column_names' (or 'schema') must be given")
        else:
            names = column_list(owner, "column_names", column_names, allow_none=False)
        if column_types is not None:
            types = _cast_types(owner, column_types, len(names))
        self._names, self._types = names, types
        self.source = source
        self._random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not self._random_access and not (hasattr(source, "__iter__") or callable(source)):
            raise TypeError(f"For '{owner}', 'source' must be a generator function, an iterable "
                            f"or a random-access object (__getitem__ and __len__), but got "
                            f"{type(source).__name__}")
        workers = check_workers(owner, num_parallel_workers)
        if self._random_access:
            sampler = select_sampler(owner, num_samples, shuffle, sampler, num_shards, shard_id)
        else:
            if sampler is not None or num_shards is not None or shard_id is not None:
                raise ValueError(f"For '{owner}', 'sampler', 'num_shards' and 'shard_id' need a "
                                 f"random-access source (__getitem__ and __len__), but got "
                                 f"{type(source).__name__}")
            sampler = select_sampler(owner, num_samples, None, None, None, None, False)
        super().__init__(workers, sampler)
        self.python_multiprocessing = check_bool(python_multiprocessing, "python_multiprocessing",
                                                 owner)
        self.num_samples = sampler.num_samples
        self._one_shot = None if self._random_access or not hasattr(source, "__next__") else []
        self._one_shot_lock = threading.Lock()
        self._one_shot_read = False

    def _is_mappable(self):
        return self._random_access

    def _columns(self):
        return self._names

    def _source_workers(self):
        return self.num_parallel_workers or 1

    def _make_row(self, item, where):
        names = self._names
        if isinstance(item, (tuple, list)):
            values = item
        elif isinstance(item, dict):
            raise TypeError(f"For 'GeneratorDataset', {where} is a dict: yield a tuple with one "
                            f"value per column {names}")
        else:
            values = (item,)
        if len(values) != len(names):
            raise ValueError(f"For 'GeneratorDataset', {where} has {len(values)} columns, but "
                             f"'column_names' names {len(names)}: {names}")
        row = tuple(as_column(v, "GeneratorDataset", names[k], copy_array=True)
                    for k, v in enumerate(values))
        if self._types is not None:
            row = tuple(a if t is None else a.astype(t, copy=False)
                        for a, t in zip(row, self._types))
        return row

    def _num_rows(self):
        return check_non_negative_int(len(self.source), "len(source)", "GeneratorDataset")

    def _get_row(self, index):
        try:
            item = self.source[index]
        except Exception as e:
            note(e, f"(raised by the GeneratorDataset source's __getitem__ at index {index})")
            raise
        return self._make_row(item, f"the item at index {index}")

    def _items(self):
        if self._one_shot is None:
            return iter(self.source() if callable(self.source) and
                        not hasattr(self.source, "__iter__") else self.source)
        with self._one_shot_lock:
            if not self._one_shot_read:  # a one-shot iterator: read it once, keep the rows
                self._one_shot.extend(self.source)
                self._one_shot_read = True
        return iter(self._one_shot)

    def _rows(self, p):
        if self._random_access:
            yield from super()._rows(p)
            return
        limit = self.sampler.num_samples or None
        items = self._items()
        for k, item in enumerate(items):
            if limit is not None and k >= limit:
                break
            yield self._make_row(item, f"row {k} of the source")

    def _size(self):
        if self._random_access:
            return super()._size()
        if hasattr(self.source, "__len__") and not callable(self.source):
            n = len(self.source)
            limit = self.sampler.num_samples or None
            return n if limit is None else min(n, limit)
        return None


def _slice_columns(owner, data):
    """(names, columns) of NumpySlicesDataset data; each column is an array, or a list of
    per-row arrays where the rows are ragged."""
    if isinstance(data, dict):
        names = list(data)
        for k in names:
            if not isinstance(k, str):
                raise TypeError(f"For '{owner}', dict keys must be str column names, but got "
                                f"{k!r}")
        cols = [data[k] for k in names]
    elif isinstance(data, tuple):
        names = [f"column_{i}" for i in range(len(data))]
        cols = list(data)
    elif isinstance(data, (list, np.ndarray, Tensor)):
        names, cols = ["column_0"], [data]
    else:
        raise TypeError(f"For '{owner}', 'data' must be a list, tuple, dict or NumPy array, but "
                        f"got {type(data).__name__}")
    if not cols:
        raise ValueError(f"For '{owner}', 'data' must not be empty")
    out = []
    for name, col in zip(names, cols):
        if isinstance(col, Tensor):
            col = col.asnumpy()
        if not isinstance(col, (list, tuple, np.ndarray)):
            raise TypeError(f"For '{owner}', column '{name}' must be a list or NumPy array, but "
                            f"got {type(col).__name__}")
        if isinstance(col, np.ndarray):
            if col.ndim == 0:
                raise ValueError(f"For '{owner}', column '{name}' is a 0-d array: there is no "
                                 f"first dimension to slice")
            arr = col
        else:
            try:
                arr = np.asarray(col)
            except ValueError:  # ragged rows: keep one array per row
                arr = [as_column(v, owner, name) for v in col]
        if isinstance(arr, np.ndarray) and arr.dtype.kind not in "biufcUS":
            raise TypeError(f"For '{owner}', column '{name}' must hold numbers, bools or "
                            f"strings, but got NumPy dtype {arr.dtype}")
        if len(arr) == 0:
            raise ValueError(f"For '{owner}', column '{name}' is empty")
        out.append(arr)
    lengths = {len(c) for c in out}
    if len(lengths) != 1:
        raise ValueError(f"For '{owner}', every column must have the same length, but got "
                         f"{[len(c) for c in out]} for {names}")
    return names, out


class NumpySlicesDataset(MappableDataset):
    """Rows sliced from in-memory data along its first dimension.

    Args:
        data: a list or array (one column `column_0`), a tuple of lists/arrays (columns
            `column_0`, `column_1`, ...) or a dict {name: list/array}. A list becomes one array
            per column (MindSpore 2.10 converts each element on its own, so [1.5, 2, 3] gives a
            float64 row and int64 rows there; here the whole column is float64); ragged rows
            stay separate arrays.
        column_names (list[str], optional): names instead of the defaults.
        num_samples, num_parallel_workers, shuffle (default True), sampler, num_shards,
            shard_id: as for `GeneratorDataset`.
    """

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        owner = "NumpySlicesDataset"
        names, cols = _slice_columns(owner, data)
        if column_names is not None:
            given = column_list(owner, "column_names", column_names, allow_none=False)
            if len(given) != len(names):
                raise ValueError(f"For '{owner}', 'column_names' names {len(given)} columns, "
                                 f"but the data has {len(names)}")
            names = given
        self._names, self._data = names, cols
        super().__init__(check_workers(owner, num_parallel_workers),
                         select_sampler(owner, num_samples, shuffle, sampler, num_shards,
                                        shard_id))

    def _columns(self):
        return self._names

    def _num_rows(self):
        return len(self._data[0])

    def _get_row(self, index):
        return tuple(np.array(c[index]) for c in self._data)


class PaddedDataset(MappableDataset):
    """Rows given as a list of dicts {column: value}, read in order (often concatenated to a
    dataset so that every shard of a `DistributedSampler` gets as many rows).

    Raises:
        TypeError: `padded_samples` is not a list of dicts. ValueError: it is empty, or the
            dicts have different keys.
    """

    def __init__(self, padded_samples):
        owner = "PaddedDataset"
        if not isinstance(padded_samples, list):
            raise TypeError(f"For '{owner}', 'padded_samples' must be a list, but got "
                            f"{type(padded_samples).__name__}")
        if not padded_samples:
            raise ValueError(f"For '{owner}', 'padded_samples' cannot be empty")
        for k, item in enumerate(padded_samples):
            if not isinstance(item, dict):
                raise TypeError(f"For '{owner}', 'padded_samples[{k}]' must be a dict, but got "
                                f"{type(item).__name__}")
        names = list(padded_samples[0])
        if not names:
            raise ValueError(f"For '{owner}', the samples have no columns")
        for k, item in enumerate(padded_samples):
            if set(item) != set(names):
                raise ValueError(f"For '{owner}', every sample must have the columns {names}, "
                                 f"but 'padded_samples[{k}]' has {list(item)}")
        self._names = names
        self._samples = [tuple(as_column(item[c], owner, c, copy_array=True) for c in names)
                         for item in padded_samples]
        super().__init__(None, select_sampler(owner, None, False, None, None, None))
        self.padded_samples = padded_samples

    def _columns(self):
        return self._names

    def _num_rows(self):
        return len(self._samples)

    def _get_row(self, index):
        return tuple(a.copy() for a in self._samples[index])


_RANDOM_TYPES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                 "uint64", "float16", "float32", "float64")


class RandomDataset(MappableDataset):
    """Rows of random values with the columns of a `Schema`.

    Args:
        total_rows (int, optional): rows per epoch (default: the schema's numRows, else a
            random count in [1, 1024]).
        schema (Schema | str, optional): the columns, or a schema JSON file. Without one there
            are 1 to 4 columns 'c0', 'c1', ... of random numeric types and shapes. A column
            without a shape holds scalars.
        columns_list (list[str], optional): the schema columns to keep, in this order.
        num_samples, num_parallel_workers, shuffle (default True), num_shards, shard_id: as for
            `GeneratorDataset`. `cache` is accepted and ignored.

    Each row's values are fixed once the dataset is made (seeded from `config.set_seed`):
    integers span their type's range, floats are uniform in [0, 1), strings are random
    lowercase words. Every epoch reads the same rows (in a new order when shuffled).
    """

    def __init__(self, total_rows=None, schema=None, columns_list=None, num_samples=None,
                 num_parallel_workers=None, cache=None, shuffle=None, num_shards=None,
                 shard_id=None):
        owner = "RandomDataset"
        self._seed = config._pass_seed()
        setup = np.random.default_rng([self._seed, 0x5EED])
        if isinstance(schema, (str, os.PathLike)):
            schema = Schema(schema)
        if schema is None:
            schema = Schema()
            for k in range(int(setup.integers(1, 5))):
                rank = int(setup.integers(1, 5))
                schema.add_column(f"c{k}", _RANDOM_TYPES[int(setup.integers(len(_RANDOM_TYPES)))],
                                  [int(d) for d in setup.integers(1, 33, size=rank)])
        elif not isinstance(schema, Schema):
            raise TypeError(f"For '{owner}', 'schema' must be a Schema or a schema file path, "
                            f"but got {type(schema).__name__}")
        if not schema.columns:
            raise ValueError(f"For '{owner}', the schema has no columns")
        cols = schema.columns
        if columns_list is not None:
            wanted = column_list(owner, "columns_list", columns_list, allow_none=False)
            by_name = {c["name"]: c for c in cols}
            missing = [c for c in wanted if c not in by_name]
            if missing:
                raise ValueError(f"For '{owner}', the columns {missing} of 'columns_list' are "
                                 f"not in the schema {list(by_name)}")
            cols = [by_name[c] for c in wanted]
        if total_rows is None:
            total_rows = schema.num_rows if schema.num_rows else int(setup.integers(1, 1025))
        self.total_rows = check_int_range(total_rows, "total_rows", owner, 1, 2**31 - 1)
        self._cols = cols
        self.schema = schema
        self.columns_list = columns_list
        super().__init__(check_workers(owner, num_parallel_workers),
                         select_sampler(owner, num_samples, shuffle, None, num_shards, shard_id))

    def _columns(self):
        return [c["name"] for c in self._cols]

    def _num_rows(self):
        return self.total_rows

    def _get_row(self, index):
        rng = np.random.default_rng([self._seed, index])
        return tuple(_random_column(rng, c["type"], [] if c["shape"] is None else c["shape"])
                     for c in self._cols)


def _random_column(rng, dtype, shape):
    shape = tuple(int(d) for d in shape)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    if dtype.kind == "f":
        return rng.random(size=shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.random(size=shape) + 1j * rng.random(size=shape)).astype(dtype)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = ["".join(rng.choice(letters, size=int(rng.integers(1, 9))))
             for _ in range(int(np.prod(shape, dtype=np.int64)))]
    return np.array(words, dtype=np.str_).reshape(shape)
