"""Python-side sources: `GeneratorDataset` (generator functions, iterables, random-access
objects), `NumpySlicesDataset` (lists, tuples, dicts, arrays) and `Schema`."""
import threading

import numpy as np

from .._validator import check_int, check_non_negative_int, check_sequence
from ..common import dtype as mstype
from ..common.tensor import Tensor
from ._base import MappableDataset, as_column, check_workers, column_list, note
from .samplers import select_sampler

__all__ = ["GeneratorDataset", "NumpySlicesDataset", "Schema"]


class Schema:
    """Column names, types and shapes for `GeneratorDataset(schema=...)`.

    Only schemas built in code (`add_column`) are supported; `schema_file` JSON files are not.
    """

    def __init__(self, schema_file=None):
        if schema_file is not None:
            raise ValueError("For 'Schema', schema files are not supported in minispore: build "
                             "the schema with add_column")
        self.columns = []

    def add_column(self, name, de_type, shape=None):
        """Add column `name` of type `de_type` (a MindSpore or NumPy dtype) and `shape`."""
        if not isinstance(name, str) or not name:
            raise TypeError(f"For 'add_column', 'name' must be a non-empty str, but got {name!r}")
        np_type = mstype.to_np(de_type)
        if shape is not None:
            shape = list(check_sequence(shape, "shape", "add_column", check_int,
                                        expected="a list of ints"))
        self.columns.append({"name": name, "type": np_type, "shape": shape})


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
        num_parallel_workers (int): threads that call `__getitem__` (random access only).
        shuffle (bool, optional): random-access sources shuffle unless False; for generator
            functions and iterables it is ignored, as in MindSpore.
        sampler, num_shards, shard_id: random-access sources only (ValueError otherwise).
        python_multiprocessing, max_rowsize: accepted; workers are threads here.

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
            types = [c["type"] for c in schema.columns]
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
            row = tuple(a.astype(t, copy=False) for a, t in zip(row, self._types))
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
