"""The pipeline: `Dataset` (the ops every dataset has: map, batch, shuffle, repeat, ...), the op
nodes, `MappableDataset` (random-access sources read through a sampler) and `zip`.

A pipeline is a tree of nodes; one pass (an epoch) is a chain of Python generators pulled by the
iterator, each yielding rows: tuples of NumPy arrays, one per column. Nothing runs ahead of the
consumer except the bounded in-flight window of a parallel `map`/`batch`.
"""
import copy
import math
import warnings

import numpy as np

from ..common.tensor import Tensor
from . import config
from ._parallel import CHUNK, chunks, ordered_map, run_with_rng
from .samplers import RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler, SubsetSampler

__all__ = ["BatchDataset", "BatchInfo", "ConcatDataset", "Dataset", "FilterDataset", "MapDataset",
           "MappableDataset", "ProjectDataset", "RenameDataset", "RepeatDataset", "ShuffleDataset",
           "SkipDataset", "TakeDataset", "ZipDataset", "zip"]

_builtin_zip = zip
_INT32_MAX = 2**31 - 1
_KINDS = "biufcUS"  # bool, ints, floats, complex, str, bytes: what a column may hold


# ---- validation and conversion helpers --------------------------------------------------------

def _check_int(owner, name, value, low, high=_INT32_MAX):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{owner}', '{name}' must be an int, but got "
                        f"{type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"For '{owner}', '{name}' must be in [{low}, {high}], but got {value}")
    return int(value)


def _check_workers(owner, num):
    if num is None:
        return None
    return _check_int(owner, "num_parallel_workers", num, 1)


def _column_list(owner, name, value, allow_none=True):
    """A list of column names from a str or a list/tuple of str."""
    if value is None and allow_none:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value:
        raise TypeError(f"For '{owner}', '{name}' must be a str or a non-empty list of str, but "
                        f"got {value!r}")
    for v in value:
        if not isinstance(v, str) or not v:
            raise TypeError(f"For '{owner}', '{name}' must hold non-empty str, but got {v!r}")
    if len(set(value)) != len(value):
        raise ValueError(f"For '{owner}', '{name}' has duplicate names: {list(value)}")
    return list(value)


def _require_columns(owner, name, wanted, available):
    missing = [c for c in wanted if c not in available]
    if missing:
        raise ValueError(f"For '{owner}', {name} {missing} not found: the dataset has columns "
                         f"{list(available)}")


def _as_column(value, owner, column, copy_array=False):
    """One column value as a NumPy array (Python ints give int64, floats float64)."""
    if isinstance(value, np.ndarray):
        arr = value.copy() if copy_array else value
    elif isinstance(value, Tensor):
        arr = value.asnumpy().copy()
    else:
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError) as e:
            raise ValueError(f"For '{owner}', column '{column}' got a value NumPy cannot turn "
                             f"into one array ({e})") from None
    if arr.dtype.kind not in _KINDS:
        raise TypeError(f"For '{owner}', column '{column}' must hold numbers, bools or strings, "
                        f"but got {type(value).__name__} (NumPy dtype {arr.dtype})")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def _op_name(op):
    return getattr(op, "__name__", None) or type(op).__name__


def _note(err, text):
    """Add where an exception came from to its message (Python 3.11+ notes)."""
    if hasattr(err, "add_note"):
        err.add_note(text)


class _Pass:
    """One pass over a pipeline: base seed, epoch, repeat path and the nodes' tree positions."""

    __slots__ = ("base", "epoch", "ids", "key")

    def __init__(self, base, epoch, ids, key=()):
        self.base, self.epoch, self.ids, self.key = base, epoch, ids, key

    def rng(self, node, shared=False):
        """The node's generator for this pass; `shared` ones ignore the tree position and
        fresh entropy, so separate processes agree (DistributedSampler)."""
        if shared:
            return np.random.default_rng([config._shared_seed(), self.epoch, *self.key])
        return np.random.default_rng([self.base, self.ids.get(id(node), 0), self.epoch,
                                      *self.key])

    def child(self, index):
        return _Pass(self.base, self.epoch, self.ids, self.key + (index,))

    def chunk_key(self, node, chunk):
        """Seed of one chunk of a map/batch/filter: made into a generator only if drawn from."""
        return (self.base, self.ids.get(id(node), 0), self.epoch, *self.key, chunk)


class BatchInfo:
    """What a `batch_size` callable or a `per_batch_map` learns about the batch being made."""

    __slots__ = ("_batch_num", "_epoch_num")

    def __init__(self, batch_num, epoch_num):
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self):
        """Index of this batch within the epoch, from 0."""
        return self._batch_num

    def get_epoch_num(self):
        """Index of the epoch, from 0."""
        return self._epoch_num


# ---- the Dataset base -------------------------------------------------------------------------

class Dataset:
    """Base of every dataset: holds its input nodes and gives the pipeline ops.

    Subclasses define `_columns()` (column names, known without reading data), `_rows(p)` (a
    generator of rows for pass p) and `_size()` (rows per epoch, or None when only a pass can
    tell: `get_dataset_size` then counts once and remembers).
    """

    _rowwise = False  # True for nodes that keep each row's position (map, project, rename)

    def __init__(self, children=(), num_parallel_workers=None):
        self.children = list(children)
        self.num_parallel_workers = num_parallel_workers
        self._cache = {}

    # ---- what subclasses provide ----
    def _columns(self):
        raise NotImplementedError(f"{type(self).__name__} must define _columns")

    def _rows(self, p):
        raise NotImplementedError(f"{type(self).__name__} must define _rows")

    def _size(self):
        return None

    # ---- tree helpers ----
    def _nodes(self):
        out, stack, seen = [], [self], set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            out.append(node)
            stack.extend(reversed(node.children))
        return out

    def _new_pass(self, epoch=0, base=None):
        ids = {id(n): i for i, n in enumerate(self._nodes())}
        return _Pass(config._pass_seed() if base is None else base, epoch, ids)

    def _is_shuffled(self):
        return any(n._node_shuffles() for n in self._nodes())

    def _is_sharded(self):
        return any(n._node_sharded() for n in self._nodes())

    def _node_shuffles(self):
        return False

    def _node_sharded(self):
        return False

    def _workers(self):
        n = self.num_parallel_workers
        return config.get_num_parallel_workers() if n is None else n

    # ---- information ----
    def get_col_names(self):
        """The column names, in order."""
        return list(self._columns())

    def get_dataset_size(self):
        """Rows (or batches) per epoch. Counts with one pass where it cannot be known otherwise
        (after `filter`, a callable `batch_size`, a generator function source)."""
        if "size" not in self._cache:
            size = self._size()
            if size is None:
                size = sum(1 for _ in self._rows(self._new_pass()))
            self._cache["size"] = size
        return self._cache["size"]

    def __len__(self):
        return self.get_dataset_size()

    def _first_row(self):
        if "first" not in self._cache:
            self._cache["first"] = next(iter(self._rows(self._new_pass())), None)
        return self._cache["first"]

    def output_shapes(self, estimate=False):
        """Shapes of the columns of the first row, as lists ([] for an empty dataset)."""
        row = self._first_row()
        return [] if row is None else [list(a.shape) for a in row]

    def output_types(self):
        """NumPy dtypes of the columns of the first row ([] for an empty dataset)."""
        row = self._first_row()
        return [] if row is None else [a.dtype for a in row]

    def get_batch_size(self):
        """The batch size of the last `batch` (-1 for a callable), 1 without one."""
        return self.children[0].get_batch_size() if self.children else 1

    def get_repeat_count(self):
        """The count of the last `repeat` (-1 for endless), 1 without one."""
        return self.children[0].get_repeat_count() if self.children else 1

    def reset(self):
        """Forget what was counted or sampled from the data (size, first row), so the next pass
        sees a source that changed. Iterators always start a fresh pass anyway."""
        for node in self._nodes():
            node._cache = {}

    # ---- iteration ----
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=False):
        """An iterator of rows as lists of Tensors (NumPy arrays with `output_numpy`).

        Args:
            columns (list[str], optional): the columns to yield, in this order (default all).
            num_epochs (int): passes the iterator may make (-1: no limit). Each pass ends with
                StopIteration; asking for more than `num_epochs` raises RuntimeError.
            output_numpy (bool): yield NumPy arrays instead of Tensors.
            do_copy (bool): copy each array into its Tensor (rows are fresh arrays either way).
        """
        from .iterators import TupleIterator
        ds = self if columns is None else self.project(columns)
        return TupleIterator(ds, num_epochs, output_numpy, do_copy)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=False):
        """An iterator of rows as dicts {column name: Tensor (or NumPy array)}."""
        from .iterators import DictIterator
        return DictIterator(self, num_epochs, output_numpy, do_copy)

    def __iter__(self):
        """One epoch of rows as lists of Tensors (`create_tuple_iterator(num_epochs=1)`)."""
        return self.create_tuple_iterator(num_epochs=1)

    # ---- pipeline ops ----
    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None,
            **kwargs):
        """Apply `operations` (a transform, a callable, or a list applied in order) to
        `input_columns` (default: the first column) of each row.

        The results replace the input columns in place when their counts match; otherwise the
        `output_columns` come first, followed by the untouched columns (MindSpore's order). With
        `num_parallel_workers` > 1 rows are processed on that many threads; output order and
        random draws do not depend on the worker count.
        """
        return MapDataset(self, operations, input_columns, output_columns, num_parallel_workers,
                          **kwargs)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """Stack `batch_size` consecutive rows per column (kwargs: `per_batch_map`,
        `input_columns`, `output_columns`, `python_multiprocessing`, `max_rowsize`).

        `batch_size` may be a callable taking a `BatchInfo`. The last partial batch is kept
        unless `drop_remainder`. `per_batch_map(*columns, batch_info)` gets each input column as
        a list of the rows' arrays and returns a tuple of columns.
        """
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers, **kwargs)

    def shuffle(self, buffer_size):
        """Shuffle with a buffer of `buffer_size` rows (>= the dataset size: a full shuffle);
        each epoch shuffles anew."""
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count=None):
        """Repeat the dataset `count` times (None or -1: endlessly); shuffles inside reshuffle
        on each repetition."""
        return RepeatDataset(self, count)

    def take(self, count=-1):
        """The first `count` rows (-1: all)."""
        return TakeDataset(self, count)

    def skip(self, count):
        """All rows but the first `count`."""
        return SkipDataset(self, count)

    def zip(self, datasets):
        """Rows of this dataset and `datasets` side by side (column names must differ); as many
        rows as the shortest."""
        if isinstance(datasets, Dataset):
            datasets = (datasets,)
        if not isinstance(datasets, tuple):
            raise TypeError(f"For 'zip', 'datasets' must be a Dataset or a tuple of Datasets, "
                            f"but got {type(datasets).__name__}")
        return ZipDataset((self,) + datasets)

    def concat(self, datasets):
        """This dataset's rows followed by those of `datasets` (same column names)."""
        if isinstance(datasets, Dataset):
            datasets = [datasets]
        if not isinstance(datasets, list):
            raise TypeError(f"For 'concat', 'datasets' must be a Dataset or a list of Datasets, "
                            f"but got {type(datasets).__name__}")
        return ConcatDataset([self] + datasets)

    def __add__(self, other):
        return self.concat(other)

    def project(self, columns):
        """Keep only `columns`, in the given order."""
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        """Rename `input_columns` to `output_columns`."""
        return RenameDataset(self, input_columns, output_columns)

    def filter(self, predicate, input_columns=None, num_parallel_workers=None):
        """Keep the rows for which `predicate(*input_columns)` is true (default: all columns)."""
        return FilterDataset(self, predicate, input_columns, num_parallel_workers)

    def split(self, sizes, randomize=True):
        """Split into non-overlapping datasets.

        Args:
            sizes (list[int] | list[float]): row counts summing to the dataset size, or
                fractions summing to 1 (rounded; the first split absorbs the rounding, as in
                MindSpore).
            randomize (bool): pick rows at random (default) instead of consecutive runs.

        The random choice is made once, here, from the dataset seed: the splits are disjoint and
        keep their rows every epoch (MindSpore 2.10 draws it per split when no seed is set, so
        its splits can overlap). A random-access source behind only map/project/rename gets a
        subset sampler (each split reshuffles per epoch if the source shuffles); other
        pipelines are read whole and filtered by row position.
        """
        return _split(self, sizes, randomize)

    # ---- sampler replacement (random-access sources and the row-wise nodes above them) ----
    def _mappable_leaf(self):
        node = self
        while node._rowwise:
            node = node.children[0]
        return node if isinstance(node, MappableDataset) and node._is_mappable() else None

    def _with_leaf_sampler(self, sampler):
        clone = copy.copy(self)
        clone._cache = {}
        if isinstance(self, MappableDataset):
            clone.sampler = sampler
        else:
            clone.children = [self.children[0]._with_leaf_sampler(sampler)]
        return clone


# ---- random-access sources --------------------------------------------------------------------

class MappableDataset(Dataset):
    """A source whose rows can be read by index, in the order its sampler gives.

    Subclasses define `_num_rows()` and `_get_row(i)`, which returns a tuple of fresh arrays.
    """

    def __init__(self, num_parallel_workers=None, sampler=None):
        super().__init__((), num_parallel_workers)
        self.sampler = sampler

    def _is_mappable(self):
        return True

    def _num_rows(self):
        raise NotImplementedError(f"{type(self).__name__} must define _num_rows")

    def _get_row(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define _get_row")

    def _source_workers(self):
        return 1

    def _indices(self, p):
        n = self._num_rows()
        idx = self.sampler._indices(n, lambda shared: p.rng(self, shared))
        idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        bad = idx[(idx < 0) | (idx >= n)]
        if len(bad):
            raise IndexError(f"For '{type(self).__name__}', the sampler "
                             f"'{type(self.sampler).__name__}' gave index {int(bad[0])}, out of "
                             f"range for {n} rows")
        return idx

    def _read_chunk(self, indices):
        return [self._get_row(int(i)) for i in indices]

    def _rows(self, p):
        idx = self._indices(p)
        workers = self._source_workers()
        if workers <= 1:
            for i in idx:
                yield self._get_row(int(i))
            return
        for rows in ordered_map(self._read_chunk, chunks(idx, CHUNK), workers):
            yield from rows

    def _size(self):
        return self.sampler._count(self._num_rows())

    def _node_shuffles(self):
        return self.sampler._is_shuffled()

    def _node_sharded(self):
        return self.sampler._is_sharded()

    def use_sampler(self, new_sampler):
        """Read through `new_sampler` from now on."""
        if not isinstance(new_sampler, Sampler):
            raise TypeError(f"For 'use_sampler', 'new_sampler' must be a Sampler, but got "
                            f"{type(new_sampler).__name__}")
        self.sampler = new_sampler
        self._cache = {}


# ---- row-wise ops -----------------------------------------------------------------------------

_MAP_KWARGS = ("python_multiprocessing", "max_rowsize", "cache", "callbacks", "offload")


class MapDataset(Dataset):
    """`dataset.map(...)`: see `Dataset.map`."""

    _rowwise = True

    def __init__(self, child, operations, input_columns=None, output_columns=None,
                 num_parallel_workers=None, **kwargs):
        super().__init__((child,), _check_workers("map", num_parallel_workers))
        unknown = set(kwargs) - set(_MAP_KWARGS)
        if unknown:
            raise TypeError(f"For 'map', unexpected keyword arguments {sorted(unknown)}")
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops:
            raise ValueError("For 'map', 'operations' must not be empty")
        for op in ops:
            if not callable(op):
                raise TypeError(f"For 'map', every operation must be callable, but got "
                                f"{type(op).__name__}")
        self.operations = ops
        names = child.get_col_names()
        ins = _column_list("map", "input_columns", input_columns) or names[:1]
        _require_columns("map", "input_columns", ins, names)
        outs = _column_list("map", "output_columns", output_columns) or ins
        self.input_columns, self.output_columns = ins, outs
        self._in_idx = [names.index(c) for c in ins]
        if len(ins) == len(outs):  # in place: output j takes input j's position
            cols = list(names)
            plan = [("in", i) for i in range(len(names))]
            for j, c in enumerate(ins):
                k = names.index(c)
                cols[k], plan[k] = outs[j], ("out", j)
        else:  # outputs first, then the untouched columns
            keep = [i for i, c in enumerate(names) if c not in ins]
            cols = outs + [names[i] for i in keep]
            plan = [("out", j) for j in range(len(outs))] + [("in", i) for i in keep]
        if len(set(cols)) != len(cols):
            raise ValueError(f"For 'map', the resulting columns {cols} have duplicate names: "
                             f"choose 'output_columns' that differ from the other columns")
        self._cols, self._plan = cols, plan

    def _columns(self):
        return self._cols

    def _size(self):
        return self.children[0].get_dataset_size()

    def _apply(self, row):
        out = tuple(row[i] for i in self._in_idx)
        for op in self.operations:
            try:
                res = op(*out)
            except Exception as e:
                _note(e, f"(raised by the 'map' operation {_op_name(op)} on input columns "
                         f"{self.input_columns})")
                raise
            out = res if isinstance(res, tuple) else (res,)
        if len(out) != len(self.output_columns):
            raise ValueError(f"For 'map', the operations returned {len(out)} columns, but "
                             f"'output_columns' names {len(self.output_columns)}: "
                             f"{self.output_columns}")
        out = [_as_column(v, "map", self.output_columns[j]) for j, v in enumerate(out)]
        return tuple(out[j] if kind == "out" else row[j] for kind, j in self._plan)

    def _apply_rows(self, rows):
        return [self._apply(r) for r in rows]

    def _apply_chunk(self, item):
        key, rows = item
        return run_with_rng(key, self._apply_rows, rows)

    def _rows(self, p):
        work = ((p.chunk_key(self, k), rows)
                for k, rows in enumerate(chunks(self.children[0]._rows(p), CHUNK)))
        for rows in ordered_map(self._apply_chunk, work, self._workers()):
            yield from rows


class ProjectDataset(Dataset):
    """`dataset.project(columns)`."""

    _rowwise = True

    def __init__(self, child, columns):
        super().__init__((child,))
        cols = _column_list("project", "columns", columns, allow_none=False)
        _require_columns("project", "columns", cols, child.get_col_names())
        self._cols = cols
        self._idx = [child.get_col_names().index(c) for c in cols]

    def _columns(self):
        return self._cols

    def _size(self):
        return self.children[0].get_dataset_size()

    def _rows(self, p):
        idx = self._idx
        for row in self.children[0]._rows(p):
            yield tuple(row[i] for i in idx)


class RenameDataset(Dataset):
    """`dataset.rename(input_columns, output_columns)`."""

    _rowwise = True

    def __init__(self, child, input_columns, output_columns):
        super().__init__((child,))
        ins = _column_list("rename", "input_columns", input_columns, allow_none=False)
        outs = _column_list("rename", "output_columns", output_columns, allow_none=False)
        if len(ins) != len(outs):
            raise ValueError(f"For 'rename', 'input_columns' and 'output_columns' must have the "
                             f"same length, but got {ins} and {outs}")
        names = child.get_col_names()
        _require_columns("rename", "input_columns", ins, names)
        cols = [outs[ins.index(c)] if c in ins else c for c in names]
        if len(set(cols)) != len(cols):
            raise ValueError(f"For 'rename', the resulting columns {cols} have duplicate names")
        self._cols = cols

    def _columns(self):
        return self._cols

    def _size(self):
        return self.children[0].get_dataset_size()

    def _rows(self, p):
        return self.children[0]._rows(p)


class FilterDataset(Dataset):
    """`dataset.filter(predicate, input_columns=None, num_parallel_workers=None)`."""

    def __init__(self, child, predicate, input_columns=None, num_parallel_workers=None):
        super().__init__((child,), _check_workers("filter", num_parallel_workers))
        if not callable(predicate):
            raise TypeError(f"For 'filter', 'predicate' must be callable, but got "
                            f"{type(predicate).__name__}")
        self.predicate = predicate
        names = child.get_col_names()
        ins = _column_list("filter", "input_columns", input_columns) or names
        _require_columns("filter", "input_columns", ins, names)
        self._idx = [names.index(c) for c in ins]

    def _columns(self):
        return self.children[0].get_col_names()

    def _keep(self, row):
        res = self.predicate(*(row[i] for i in self._idx))
        arr = np.asarray(res.asnumpy() if isinstance(res, Tensor) else res)
        if arr.size != 1 or arr.dtype.kind not in "biu":
            raise TypeError(f"For 'filter', 'predicate' must return a bool, but got "
                            f"{type(res).__name__} {arr.dtype} of shape {arr.shape}")
        return bool(arr.reshape(()))

    def _keep_rows(self, rows):
        return [(r, self._keep(r)) for r in rows]

    def _keep_chunk(self, item):
        key, rows = item
        return run_with_rng(key, self._keep_rows, rows)

    def _rows(self, p):
        work = ((p.chunk_key(self, k), rows)
                for k, rows in enumerate(chunks(self.children[0]._rows(p), CHUNK)))
        workers = self._workers() if self.num_parallel_workers is not None else 1
        for pairs in ordered_map(self._keep_chunk, work, workers):
            for row, keep in pairs:
                if keep:
                    yield row


# ---- batch ------------------------------------------------------------------------------------

_BATCH_KWARGS = ("per_batch_map", "input_columns", "output_columns", "python_multiprocessing",
                 "max_rowsize")


def _stack(owner, column, values):
    first = values[0]
    for k, v in enumerate(values):
        if v.shape != first.shape:
            raise ValueError(f"For '{owner}', column '{column}' cannot be batched: row 0 has "
                             f"shape {first.shape} but row {k} has shape {v.shape}")
        if v.dtype != first.dtype and not (v.dtype.kind in "US" and first.dtype.kind in "US"):
            raise TypeError(f"For '{owner}', column '{column}' cannot be batched: row 0 has "
                            f"dtype {first.dtype} but row {k} has dtype {v.dtype}")
    return np.stack(values)


class BatchDataset(Dataset):
    """`dataset.batch(...)`: see `Dataset.batch`."""

    def __init__(self, child, batch_size, drop_remainder=False, num_parallel_workers=None,
                 **kwargs):
        super().__init__((child,), _check_workers("batch", num_parallel_workers))
        unknown = set(kwargs) - set(_BATCH_KWARGS)
        if unknown:
            raise TypeError(f"For 'batch', unexpected keyword arguments {sorted(unknown)}")
        if callable(batch_size):
            self.batch_size = batch_size
        else:
            self.batch_size = _check_int("batch", "batch_size", batch_size, 1)
        if not isinstance(drop_remainder, (bool, np.bool_)):
            raise TypeError(f"For 'batch', 'drop_remainder' must be a bool, but got "
                            f"{type(drop_remainder).__name__}")
        self.drop_remainder = bool(drop_remainder)
        pbm = kwargs.get("per_batch_map")
        if pbm is not None and not callable(pbm):
            raise TypeError(f"For 'batch', 'per_batch_map' must be callable, but got "
                            f"{type(pbm).__name__}")
        self.per_batch_map = pbm
        names = child.get_col_names()
        ins = _column_list("batch", "input_columns", kwargs.get("input_columns"))
        outs = _column_list("batch", "output_columns", kwargs.get("output_columns"))
        if pbm is None and (ins is not None or outs is not None):
            raise ValueError("For 'batch', 'input_columns' and 'output_columns' need "
                             "'per_batch_map'")
        ins = ins or list(names)
        _require_columns("batch", "input_columns", ins, names)
        outs = outs or ins
        self._in_idx = [names.index(c) for c in ins]
        self.input_columns, self.output_columns = ins, outs
        if len(ins) == len(outs):
            cols = list(names)
            plan = [("in", i) for i in range(len(names))]
            for j, c in enumerate(ins):
                k = names.index(c)
                cols[k], plan[k] = outs[j], ("out", j)
        else:
            keep = [i for i, c in enumerate(names) if c not in ins]
            cols = outs + [names[i] for i in keep]
            plan = [("out", j) for j in range(len(outs))] + [("in", i) for i in keep]
        if len(set(cols)) != len(cols):
            raise ValueError(f"For 'batch', the resulting columns {cols} have duplicate names")
        self._cols, self._plan, self._names = cols, plan, names

    def _columns(self):
        return self._cols

    def get_batch_size(self):
        return -1 if callable(self.batch_size) else self.batch_size

    def _size(self):
        if callable(self.batch_size):
            return None
        n = self.children[0].get_dataset_size()
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def _size_for(self, info):
        bs = self.batch_size(info)
        return _check_int("batch", "the size returned by 'batch_size'", bs, 1)

    def _groups(self, p):
        rows = self.children[0]._rows(p)
        for num, first in enumerate(rows):
            info = BatchInfo(num, p.epoch)
            bs = self._size_for(info) if callable(self.batch_size) else self.batch_size
            group = [first]
            while len(group) < bs:
                row = next(rows, None)
                if row is None:
                    break
                group.append(row)
            if len(group) < bs and self.drop_remainder:
                return
            yield info, group

    def _collate(self, item):
        key, (info, group) = item
        return run_with_rng(key, self._collate_now, info, group)

    def _collate_now(self, info, group):
        cols = list(_builtin_zip(*group))
        if self.per_batch_map is None:
            return tuple(_stack("batch", self._names[i], list(c)) for i, c in enumerate(cols))
        try:
            res = self.per_batch_map(*(list(cols[i]) for i in self._in_idx), info)
        except Exception as e:
            _note(e, f"(raised by the 'batch' per_batch_map {_op_name(self.per_batch_map)} on "
                     f"batch {info.get_batch_num()})")
            raise
        res = res if isinstance(res, tuple) else (res,)
        if len(res) != len(self.output_columns):
            raise ValueError(f"For 'batch', 'per_batch_map' returned {len(res)} columns, but "
                             f"'output_columns' names {len(self.output_columns)}: "
                             f"{self.output_columns}")
        out = []
        for j, v in enumerate(res):
            name = self.output_columns[j]
            if isinstance(v, (list, tuple)):
                if not v:
                    raise ValueError(f"For 'batch', 'per_batch_map' returned an empty list for "
                                     f"column '{name}'")
                v = _stack("batch", name, [_as_column(e, "batch", name) for e in v])
            else:
                v = _as_column(v, "batch", name)
            out.append(v)
        return tuple(out[j] if kind == "out" else
                     _stack("batch", self._names[j], list(cols[j])) for kind, j in self._plan)

    def _rows(self, p):
        work = ((p.chunk_key(self, info.get_batch_num()), (info, group))
                for info, group in self._groups(p))
        return ordered_map(self._collate, work, self._workers())


# ---- order and count ops ----------------------------------------------------------------------

class ShuffleDataset(Dataset):
    """`dataset.shuffle(buffer_size)`: a reservoir of `buffer_size` rows; each output row is
    drawn at random from it and replaced by the next input row."""

    def __init__(self, child, buffer_size):
        super().__init__((child,))
        self.buffer_size = _check_int("shuffle", "buffer_size", buffer_size, 2)

    def _columns(self):
        return self.children[0].get_col_names()

    def _size(self):
        return self.children[0].get_dataset_size()

    def _node_shuffles(self):
        return True

    def _rows(self, p):
        rng = p.rng(self)
        buf = []
        for row in self.children[0]._rows(p):
            if len(buf) < self.buffer_size:
                buf.append(row)
                continue
            k = int(rng.integers(len(buf)))
            buf[k], row = row, buf[k]
            yield row
        for k in rng.permutation(len(buf)):
            yield buf[k]


class RepeatDataset(Dataset):
    """`dataset.repeat(count)`."""

    def __init__(self, child, count=None):
        super().__init__((child,))
        count = -1 if count is None else count
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
            raise TypeError(f"For 'repeat', 'count' must be an int, but got "
                            f"{type(count).__name__}")
        if count == 0 or count < -1 or count > _INT32_MAX:
            raise ValueError(f"For 'repeat', 'count' must be -1 or in [1, {_INT32_MAX}], but got "
                             f"{count}")
        self.count = int(count)

    def _columns(self):
        return self.children[0].get_col_names()

    def get_repeat_count(self):
        return self.count

    def _size(self):
        n = self.children[0].get_dataset_size()
        # MindSpore reports one repetition's size for an endless repeat.
        return n if self.count == -1 else n * self.count

    def _rows(self, p):
        k = 0
        while self.count == -1 or k < self.count:
            yield from self.children[0]._rows(p.child(k))
            k += 1


class TakeDataset(Dataset):
    """`dataset.take(count)`."""

    def __init__(self, child, count=-1):
        super().__init__((child,))
        count = _check_int("take", "count", count, -1)
        if count == 0:
            raise ValueError("For 'take', 'count' must be -1 or positive, but got 0")
        self.count = count

    def _columns(self):
        return self.children[0].get_col_names()

    def _size(self):
        n = self.children[0].get_dataset_size()
        return n if self.count == -1 else min(n, self.count)

    def _rows(self, p):
        if self.count == -1:
            yield from self.children[0]._rows(p)
            return
        rows = self.children[0]._rows(p)
        for k, row in enumerate(rows):
            yield row
            if k + 1 == self.count:
                rows.close()
                return


class SkipDataset(Dataset):
    """`dataset.skip(count)`."""

    def __init__(self, child, count):
        super().__init__((child,))
        self.count = _check_int("skip", "count", count, 0)

    def _columns(self):
        return self.children[0].get_col_names()

    def _size(self):
        return max(0, self.children[0].get_dataset_size() - self.count)

    def _rows(self, p):
        for k, row in enumerate(self.children[0]._rows(p)):
            if k >= self.count:
                yield row


class ZipDataset(Dataset):
    """`zip((ds1, ds2, ...))`: columns side by side, as many rows as the shortest input."""

    def __init__(self, datasets):
        for d in datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"For 'zip', every input must be a Dataset, but got "
                                f"{type(d).__name__}")
        if len(datasets) < 1:
            raise ValueError("For 'zip', 'datasets' must not be empty")
        super().__init__(datasets)
        cols = [c for d in datasets for c in d.get_col_names()]
        dup = sorted({c for c in cols if cols.count(c) > 1})
        if dup:
            raise ValueError(f"For 'zip', the datasets share column names {dup}: rename them "
                             f"first")
        self._cols = cols

    def _columns(self):
        return self._cols

    def _size(self):
        return min(d.get_dataset_size() for d in self.children)

    def _rows(self, p):
        for parts in _builtin_zip(*(d._rows(p.child(k)) for k, d in enumerate(self.children))):
            yield tuple(a for part in parts for a in part)


class ConcatDataset(Dataset):
    """`ds1 + ds2` / `ds1.concat([...])`: rows of each dataset in turn (same column names)."""

    def __init__(self, datasets):
        for d in datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"For 'concat', every input must be a Dataset, but got "
                                f"{type(d).__name__}")
        super().__init__(datasets)
        names = datasets[0].get_col_names()
        for d in datasets[1:]:
            if d.get_col_names() != names:
                raise ValueError(f"For 'concat', every dataset must have the columns {names}, "
                                 f"but one has {d.get_col_names()}")
        self._cols = names

    def _columns(self):
        return self._cols

    def _size(self):
        return sum(d.get_dataset_size() for d in self.children)

    def _rows(self, p):
        for k, d in enumerate(self.children):
            yield from d._rows(p.child(k))


class _PositionSplitDataset(Dataset):
    """One split of a pipeline without a random-access source: the rows at chosen positions."""

    def __init__(self, child, mask):
        super().__init__((child,))
        self._mask = mask

    def _columns(self):
        return self.children[0].get_col_names()

    def _size(self):
        return int(self._mask.sum())

    def _rows(self, p):
        mask = self._mask
        for k, row in enumerate(self.children[0]._rows(p)):
            if k < len(mask) and mask[k]:
                yield row


def _split_sizes(sizes, n):
    if not isinstance(sizes, list) or not sizes:
        raise TypeError(f"For 'split', 'sizes' must be a non-empty list of ints or floats, but "
                        f"got {sizes!r}")
    if n <= 0:
        raise ValueError("For 'split', the dataset is empty")
    if all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in sizes):
        if any(s <= 0 for s in sizes):
            raise ValueError(f"For 'split', every size must be positive, but got {sizes}")
        if sum(sizes) != n:
            raise ValueError(f"For 'split', the sizes {sizes} sum to {sum(sizes)}, not to the "
                             f"dataset size {n}")
        return [int(s) for s in sizes]
    if not all(isinstance(s, (float, int)) and not isinstance(s, bool) for s in sizes):
        raise TypeError(f"For 'split', 'sizes' must be all ints or all floats, but got {sizes}")
    if any(not 0 < s <= 1 for s in sizes) or not math.isclose(sum(sizes), 1.0, abs_tol=1e-6):
        raise ValueError(f"For 'split', fractional sizes must be in (0, 1] and sum to 1, but "
                         f"got {sizes}")
    out = [round(s * n) for s in sizes]
    if any(s == 0 for s in out):
        raise ValueError(f"For 'split', a fraction in {sizes} gives an empty split of {n} rows")
    diff = n - sum(out)
    if diff > 0:
        out[0] += diff
    else:
        for i, s in enumerate(out):
            if s + diff > 0:
                out[i] += diff
                break
    return out


def _split(ds, sizes, randomize):
    if not isinstance(randomize, (bool, np.bool_)):
        raise TypeError(f"For 'split', 'randomize' must be a bool, but got "
                        f"{type(randomize).__name__}")
    if ds._is_sharded():
        raise ValueError("For 'split', the dataset must not be sharded before splitting: shard "
                         "each split with a DistributedSampler instead")
    n = ds.get_dataset_size()
    abs_sizes = _split_sizes(sizes, n)
    order = config._eager_rng().permutation(n) if randomize else np.arange(n)
    leaf = ds._mappable_leaf()
    plain = leaf is not None and type(leaf.sampler) in (SequentialSampler, RandomSampler) \
        and not getattr(leaf.sampler, "replacement", False) \
        and leaf.sampler._count(leaf._num_rows()) == leaf._num_rows() == n \
        and getattr(leaf.sampler, "start_index", 0) == 0
    if not plain and randomize and ds._is_shuffled():
        warnings.warn("split: the dataset is shuffled before the split, so without "
                      "dataset.config.set_seed the splits may overlap; prefer randomize=True "
                      "on an unshuffled dataset", stacklevel=3)
    out, start = [], 0
    for size in abs_sizes:
        chosen = np.sort(order[start:start + size]) if not plain else order[start:start + size]
        if plain:
            shuffled = leaf.sampler._is_shuffled()
            sampler = SubsetRandomSampler(chosen) if shuffled else SubsetSampler(chosen)
            out.append(ds._with_leaf_sampler(sampler))
        elif randomize:
            mask = np.zeros(n, dtype=bool)
            mask[chosen] = True
            out.append(_PositionSplitDataset(ds, mask))
        else:
            part = ds.skip(start) if start else ds
            out.append(part.take(size))
        start += size
    return tuple(out)


def zip(datasets):
    """Zip a tuple of datasets into one (column names must differ)."""
    if not isinstance(datasets, tuple):
        raise TypeError(f"For 'zip', 'datasets' must be a tuple of Datasets, but got "
                        f"{type(datasets).__name__}")
    return ZipDataset(datasets)
