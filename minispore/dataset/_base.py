"""The `Dataset` base of every pipeline node (tree, passes, sizes, iterators and the pipeline
ops), `MappableDataset` (random-access sources read through a sampler) and the argument and
column helpers that the nodes and the sources share.

A pipeline is a tree of nodes; one pass (an epoch) is a chain of Python generators pulled by the
iterator, each yielding rows: tuples of NumPy arrays, one per column. Nothing runs ahead of the
consumer except the bounded in-flight window of a parallel `map`/`batch`.

The op nodes (`_transform_ops`: map, filter, batch, project, rename; `_order_ops`: shuffle,
repeat, take, skip, zip, concat, split) subclass `Dataset`, so this module cannot import them:
each registers itself with `@builds(op)` and `Dataset.<op>` builds what is registered.
"""
import copy

import numpy as np

from .._validator import check_int_range, check_type
from ..common.tensor import Tensor
from . import config
from ._parallel import CHUNK, chunks, ordered_map, process_ordered_map
from .iterators import DictIterator, TupleIterator
from .samplers import Sampler, record_init

INT32_MAX = 2**31 - 1
_KINDS = "biufcUS"  # bool, ints, floats, complex, str, bytes: what a column may hold


# ---- validation and conversion helpers --------------------------------------------------------

def check_workers(owner, num):
    """`num_parallel_workers`: None (the config default) or an int in [1, 2**31 - 1]."""
    if num is None:
        return None
    return check_int_range(num, "num_parallel_workers", owner, 1, INT32_MAX)


def column_list(owner, name, value, allow_none=True):
    """A list of column names from a str or a list/tuple of str."""
    if value is None and allow_none:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value:
        raise TypeError(f"For '{owner}', the '{name}' must be a str or a non-empty list of str, "
                        f"but got {value!r}")
    for v in value:
        if not isinstance(v, str) or not v:
            raise TypeError(f"For '{owner}', the '{name}' must hold non-empty str, but got {v!r}")
    if len(set(value)) != len(value):
        raise ValueError(f"For '{owner}', the '{name}' has duplicate names: {list(value)}")
    return list(value)


def require_columns(owner, name, wanted, available):
    missing = [c for c in wanted if c not in available]
    if missing:
        raise ValueError(f"For '{owner}', {name} {missing} not found: the dataset has columns "
                         f"{list(available)}")


def as_column(value, owner, column, copy_array=False):
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


def op_name(op):
    return getattr(op, "__name__", None) or type(op).__name__


def note(err, text):
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


# ---- what the pipeline ops build ---------------------------------------------------------------

_BUILDERS = {}


def builds(op):
    """Class (or function) decorator: what `Dataset.<op>` builds. The op nodes subclass Dataset,
    so Dataset reaches them through this table, filled when the package imports their modules."""

    def register(maker):
        _BUILDERS[op] = maker
        return maker

    return register


# ---- the Dataset base -------------------------------------------------------------------------

class Dataset:
    """Base of every dataset: holds its input nodes and gives the pipeline ops.

    Subclasses define `_columns()` (column names, known without reading data), `_rows(p)` (a
    generator of rows for pass p) and `_size()` (rows per epoch, or None when only a pass can
    tell: `get_dataset_size` then counts once and remembers).
    """

    _rowwise = False  # True for nodes that keep each row's position (map, project, rename)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        record_init(cls)

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
        if config.get_debug_mode():
            return 1
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

    def get_class_indexing(self):
        """{class name: label} of a source that names its classes (ImageFolderDataset, ...),
        {} otherwise."""
        return self.children[0].get_class_indexing() if self.children else {}

    def num_classes(self):
        """The number of classes of a source that names them, else None."""
        if self.children:
            return self.children[0].num_classes()
        return len(self.get_class_indexing()) or None

    def is_shuffled(self):
        """Whether a node of the pipeline shuffles (a shuffle op or a shuffling sampler)."""
        return self._is_shuffled()

    def is_sharded(self):
        """Whether a source of the pipeline reads one shard."""
        return self._is_sharded()

    def set_init_step(self, init_step):
        """Start the next iterators at global step `init_step` (rows, or batches, counted
        over epochs), as a restarted training run does: the whole epochs before it are
        skipped, then the first `init_step % dataset_size` rows of the epoch it falls in."""
        self._init_step = check_int_range(init_step, "init_step", "set_init_step", 0,
                                          INT32_MAX)

    def get_init_step(self):
        """The step given to `set_init_step` (0 by default)."""
        return self.__dict__.get("_init_step", 0)

    def get_batch_size(self):
        """The batch size of the last `batch` (-1 for a callable), 1 without one."""
        return self.children[0].get_batch_size() if self.children else 1

    def get_repeat_count(self):
        """The count of the last `repeat` (-1 for endless), 1 without one."""
        return self.children[0].get_repeat_count() if self.children else 1

    def to_json(self, filename=""):
        """The pipeline as a JSON-ready dict (written to `filename` too when given): each node's
        "op_type", constructor arguments and "children". `deserialize` rebuilds it; Python
        callables that are not module-level functions or transform objects are recorded by
        name only and cannot be rebuilt."""
        return _BUILDERS["to_json"](self, filename)

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
        ds = self if columns is None else self.project(columns)
        if ds is not self:
            ds._init_step = self.get_init_step()
        return TupleIterator(ds, num_epochs, output_numpy, do_copy)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=False):
        """An iterator of rows as dicts {column name: Tensor (or NumPy array)}."""
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
        return _BUILDERS["map"](self, operations, input_columns, output_columns,
                                num_parallel_workers, **kwargs)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """Stack `batch_size` consecutive rows per column (kwargs: `per_batch_map`,
        `input_columns`, `output_columns`, `python_multiprocessing`, `max_rowsize`).

        `batch_size` may be a callable taking a `BatchInfo`. The last partial batch is kept
        unless `drop_remainder`. `per_batch_map(*columns, batch_info)` gets each input column as
        a list of the rows' arrays and returns a tuple of columns.
        """
        return _BUILDERS["batch"](self, batch_size, drop_remainder, num_parallel_workers, **kwargs)

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
                     pad_info=None):
        """`batch` that pads the columns named in `pad_info` first.

        Args:
            pad_info (dict, optional): {column: (shape, value)}; each row of the column is
                padded with `value` (None: 0, '' for strings) or cut to `shape`, whose None
                entries (or a None shape) take the largest size in the batch. `{}` pads every
                column to the largest row; None pads nothing (a plain `batch`).
        """
        return _BUILDERS["padded_batch"](self, batch_size, drop_remainder, num_parallel_workers,
                                         pad_info)

    def bucket_batch_by_length(self, column_names, bucket_boundaries, bucket_batch_sizes,
                               element_length_function=None, pad_info=None,
                               pad_to_bucket_boundary=False, drop_remainder=False):
        """Batch rows of similar length together.

        A row's length is `element_length_function(*column_names columns)` (default: the first
        dimension of the one column named). Bucket k holds lengths in
        [bucket_boundaries[k-1], bucket_boundaries[k]) and is emitted when it holds
        `bucket_batch_sizes[k]` rows; what is left comes out at the end of the epoch, bucket
        by bucket (unless `drop_remainder`). Columns are padded as by `padded_batch` (pad_info
        None: every column to the longest row, with 0); `pad_to_bucket_boundary` pads the None
        dimensions of the `pad_info` shapes to the bucket's boundary minus 1 (the last bucket:
        to the longest row).
        """
        return _BUILDERS["bucket_batch_by_length"](
            self, column_names, bucket_boundaries, bucket_batch_sizes, element_length_function,
            pad_info, pad_to_bucket_boundary, drop_remainder)

    def sync_wait(self, condition_name, num_batch=1, callback=None):
        """Block the pipeline after `num_batch` steps until `sync_update(condition_name)` is
        called (a step is a row, or a batch when `batch` follows directly); each call lets
        `num_batch` more through and first calls `callback(data)`. A wait longer than
        `config.get_callback_timeout()` seconds raises RuntimeError instead of hanging."""
        return _BUILDERS["sync_wait"](self, condition_name, num_batch, callback)

    def sync_update(self, condition_name, num_batch=None, data=None):
        """Release the `sync_wait` named `condition_name` in this pipeline (see `sync_wait`);
        `num_batch` replaces its step count from now on."""
        for node in self._nodes():
            if getattr(node, "condition_name", None) == condition_name and \
                    hasattr(node, "update"):
                node.update(num_batch, data)
                return
        raise RuntimeError(f"For 'sync_update', the condition name '{condition_name}' is not "
                           f"found in this pipeline")

    def shuffle(self, buffer_size):
        """Shuffle with a buffer of `buffer_size` rows (>= the dataset size: a full shuffle);
        each epoch shuffles anew."""
        return _BUILDERS["shuffle"](self, buffer_size)

    def repeat(self, count=None):
        """Repeat the dataset `count` times (None or -1: endlessly); shuffles inside reshuffle
        on each repetition."""
        return _BUILDERS["repeat"](self, count)

    def take(self, count=-1):
        """The first `count` rows (-1: all)."""
        return _BUILDERS["take"](self, count)

    def skip(self, count):
        """All rows but the first `count`."""
        return _BUILDERS["skip"](self, count)

    def zip(self, datasets):
        """Rows of this dataset and `datasets` side by side (column names must differ); as many
        rows as the shortest."""
        if isinstance(datasets, Dataset):
            datasets = (datasets,)
        check_type(datasets, tuple, "datasets", "zip", "a Dataset or a tuple of Datasets")
        return _BUILDERS["zip"]((self,) + datasets)

    def concat(self, datasets):
        """This dataset's rows followed by those of `datasets` (same column names)."""
        if isinstance(datasets, Dataset):
            datasets = [datasets]
        check_type(datasets, list, "datasets", "concat", "a Dataset or a list of Datasets")
        return _BUILDERS["concat"]([self] + datasets)

    def __add__(self, other):
        return self.concat(other)

    def apply(self, apply_func):
        """`apply_func(self)`, which must return a Dataset: a way to reuse pipeline pieces."""
        if not callable(apply_func):
            raise TypeError(f"For 'apply', 'apply_func' must be callable, but got "
                            f"{type(apply_func).__name__}")
        out = apply_func(self)
        if not isinstance(out, Dataset):
            raise TypeError(f"For 'apply', 'apply_func' must return a Dataset, but got "
                            f"{type(out).__name__}")
        return out

    def flat_map(self, func):
        """The rows of `func(*row)` (a Dataset) for each row, one dataset after another."""
        return _BUILDERS["flat_map"](self, func)

    def project(self, columns):
        """Keep only `columns`, in the given order."""
        return _BUILDERS["project"](self, columns)

    def rename(self, input_columns, output_columns):
        """Rename `input_columns` to `output_columns`."""
        return _BUILDERS["rename"](self, input_columns, output_columns)

    def filter(self, predicate, input_columns=None, num_parallel_workers=None):
        """Keep the rows for which `predicate(*input_columns)` is true (default: all columns)."""
        return _BUILDERS["filter"](self, predicate, input_columns, num_parallel_workers)

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
        return _BUILDERS["split"](self, sizes, randomize)

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

    def _class_labels(self, column):
        """The integer label of every row in `column` (read once, then kept)."""
        key = ("labels", column)
        if key not in self._cache:
            names = self.get_col_names()
            if column not in names:
                raise ValueError(f"For '{type(self).__name__}', the sampler's class column "
                                 f"'{column}' is not one of the columns {names}")
            k = names.index(column)
            labels = []
            for i in range(self._num_rows()):
                value = self._get_row(i)[k]
                if value.size != 1 or value.dtype.kind not in "iu":
                    raise ValueError(f"For '{type(self).__name__}', class column '{column}' "
                                     f"must hold integer scalars, but row {i} has {value.dtype} "
                                     f"of shape {value.shape}")
                labels.append(int(value.reshape(())))
            self._cache[key] = labels
        return self._cache[key]

    def _bind_labels(self):
        node = self.sampler
        while node is not None:
            if hasattr(node, "_set_labels"):
                node._set_labels(self._class_labels(node.class_column))
            node = node.get_child()

    def _indices(self, p):
        n = self._num_rows()
        self._bind_labels()
        idx = self.sampler._sample(n, lambda shared: p.rng(self, shared))
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
        if getattr(self, "python_multiprocessing", False) and not config.get_debug_mode():
            work = ((p.chunk_key(self, k), part) for k, part in enumerate(chunks(idx, CHUNK)))
            results = process_ordered_map(self._read_chunk, work, workers,
                                          type(self).__name__)
        else:
            results = ordered_map(self._read_chunk, chunks(idx, CHUNK), workers)
        for rows in results:
            yield from rows

    def _size(self):
        self._bind_labels()
        return self.sampler._sample_count(self._num_rows())

    def _node_shuffles(self):
        return self.sampler.is_shuffled()

    def _node_sharded(self):
        return self.sampler.is_sharded()

    def use_sampler(self, new_sampler):
        """Read through `new_sampler` from now on."""
        self.sampler = check_type(new_sampler, Sampler, "new_sampler", "use_sampler")
        self._cache = {}

