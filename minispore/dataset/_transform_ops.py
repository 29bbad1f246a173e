"""The pipeline ops that compute rows: `map`, `filter` and `batch` (on worker threads or processes,
in order), `padded_batch`, `bucket_batch_by_length`, `flat_map`, `project` and `rename`."""
import bisect
import itertools

import numpy as np

from .._validator import check_bool, check_callable, check_int_range
from ..common.tensor import Tensor
from ._base import (
    INT32_MAX,
    Dataset,
    as_column,
    builds,
    check_workers,
    column_list,
    note,
    op_name,
    require_columns,
)
from ._parallel import (
    CHUNK,
    Stream,
    chunks,
    ordered_map,
    process_ordered_map,
    run_in_stream,
    run_with_rng,
)
from .callback import DSRunContext, check_ds_callbacks

__all__ = ["BatchDataset", "BatchInfo", "BucketBatchByLengthDataset", "FilterDataset",
           "FlatMapDataset", "MapDataset", "PaddedBatchDataset", "ProjectDataset", "RenameDataset"]


def _plan_columns(names, ins, outs):
    """(output column names, plan) of a map or batch: the outputs replace the inputs in place
    when their counts match, else come first, followed by the untouched columns (MindSpore's
    order). The plan gives each output column as ("out", j) or ("in", i)."""
    if len(ins) == len(outs):
        cols = list(names)
        plan = [("in", i) for i in range(len(names))]
        for j, c in enumerate(ins):
            k = names.index(c)
            cols[k], plan[k] = outs[j], ("out", j)
        return cols, plan
    keep = [i for i, c in enumerate(names) if c not in ins]
    cols = outs + [names[i] for i in keep]
    plan = [("out", j) for j in range(len(outs))] + [("in", i) for i in keep]
    return cols, plan


# ---- row-wise ops -----------------------------------------------------------------------------

_MAP_KWARGS = ("python_multiprocessing", "max_rowsize", "cache", "callbacks", "offload")


def _check_count(owner, what, out, names):
    """`out`, the columns `what` returned, one per name in `names` ('output_columns')."""
    if len(out) != len(names):
        raise ValueError(f"For '{owner}', {what} returned {len(out)} columns, but "
                         f"'output_columns' names {len(names)}: {names}")


class _MapRow:
    """What a map does to one row; holds no pipeline, so it pickles for 'spawn' workers."""

    def __init__(self, operations, input_columns, output_columns, in_idx, plan):
        self.operations, self.input_columns = operations, input_columns
        self.output_columns, self.in_idx, self.plan = output_columns, in_idx, plan

    def __call__(self, row):
        out = tuple(row[i] for i in self.in_idx)
        for op in self.operations:
            try:
                res = op(*out)
            except Exception as e:
                note(e, f"(raised by the 'map' operation {op_name(op)} on input columns "
                        f"{self.input_columns})")
                raise
            out = res if isinstance(res, tuple) else (res,)
        _check_count("map", "the operations", out, self.output_columns)
        out = [as_column(v, "map", self.output_columns[j]) for j, v in enumerate(out)]
        return tuple(out[j] if kind == "out" else row[j] for kind, j in self.plan)

    def rows(self, rows):
        return [self(r) for r in rows]


@builds("map")
class MapDataset(Dataset):
    """`dataset.map(...)`: see `Dataset.map`."""

    _rowwise = True

    def __init__(self, child, operations, input_columns=None, output_columns=None,
                 num_parallel_workers=None, **kwargs):
        super().__init__((child,), check_workers("map", num_parallel_workers))
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
        ins = column_list("map", "input_columns", input_columns) or names[:1]
        require_columns("map", "input_columns", ins, names)
        outs = column_list("map", "output_columns", output_columns) or ins
        self.input_columns, self.output_columns = ins, outs
        self._in_idx = [names.index(c) for c in ins]
        cols, plan = _plan_columns(names, ins, outs)
        if len(set(cols)) != len(cols):
            raise ValueError(f"For 'map', the resulting columns {cols} have duplicate names: "
                             f"choose 'output_columns' that differ from the other columns")
        self._cols, self._plan = cols, plan
        self._work = _MapRow(ops, ins, outs, self._in_idx, plan)
        self.callbacks = check_ds_callbacks("map", kwargs.get("callbacks"))
        self.python_multiprocessing = check_bool(kwargs.get("python_multiprocessing", False),
                                                 "python_multiprocessing", "map")
        max_rowsize = kwargs.get("max_rowsize", None)
        if isinstance(max_rowsize, list):
            for v in max_rowsize:
                check_int_range(v, "max_rowsize", "map", -1, INT32_MAX)
        elif max_rowsize is not None:
            check_int_range(max_rowsize, "max_rowsize", "map", -1, INT32_MAX)
        self.max_rowsize = max_rowsize
        self._cb_epochs, self._cb_steps = 0, 0

    def _columns(self):
        return self._cols

    def _size(self):
        return self.children[0].get_dataset_size()

    def _apply(self, row):
        return self._work(row)

    def _apply_rows(self, rows):
        return [self._apply(r) for r in rows]

    def _apply_chunk(self, item):
        key, rows = item
        return run_with_rng(key, self._apply_rows, rows)

    def _rows(self, p):
        if self.callbacks:
            yield from self._rows_with_callbacks(p)
            return
        work = ((p.chunk_key(self, k), rows)
                for k, rows in enumerate(chunks(self.children[0]._rows(p), CHUNK)))
        workers = self._workers()
        if self.python_multiprocessing and workers > 1:
            results = process_ordered_map(self._work.rows, work, workers, "map")
        else:
            results = ordered_map(self._apply_chunk, work, workers)
        for rows in results:
            yield from rows

    def _call_hooks(self, hook, epoch, step, total):
        ctx = DSRunContext(epoch, step, total)
        for cb in self.callbacks:
            getattr(cb, hook)(ctx)

    def _rows_with_callbacks(self, p):
        """Rows one at a time on the consumer's thread, with the callbacks' hooks around them
        (a step hook may wait for the training step). Each row draws from its chunk's stream,
        as with workers, so random transforms give the same rows."""
        if p.epoch == 0 and not any(p.key):
            self._cb_epochs, self._cb_steps = 0, 0
        if self._cb_epochs == 0:
            self._call_hooks("ds_begin", 0, 0, 0)
        self._cb_epochs += 1
        epoch, step = self._cb_epochs, 0
        self._call_hooks("ds_epoch_begin", epoch, 0, self._cb_steps)
        stream = None
        for k, row in enumerate(self.children[0]._rows(p)):
            if k % CHUNK == 0:
                stream = Stream(p.chunk_key(self, k // CHUNK))
            step += 1
            self._cb_steps += 1
            steps = [cb for cb in self.callbacks if (step - 1) % cb.step_size == 0]
            ctx = DSRunContext(epoch, step, self._cb_steps)
            for cb in steps:
                cb.ds_step_begin(ctx)
            out = run_in_stream(stream, self._apply, row)
            for cb in steps:
                cb.ds_step_end(ctx)
            yield out
        self._call_hooks("ds_epoch_end", epoch, step, self._cb_steps)


@builds("project")
class ProjectDataset(Dataset):
    """`dataset.project(columns)`."""

    _rowwise = True

    def __init__(self, child, columns):
        super().__init__((child,))
        cols = column_list("project", "columns", columns, allow_none=False)
        require_columns("project", "columns", cols, child.get_col_names())
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


@builds("rename")
class RenameDataset(Dataset):
    """`dataset.rename(input_columns, output_columns)`."""

    _rowwise = True

    def __init__(self, child, input_columns, output_columns):
        super().__init__((child,))
        ins = column_list("rename", "input_columns", input_columns, allow_none=False)
        outs = column_list("rename", "output_columns", output_columns, allow_none=False)
        if len(ins) != len(outs):
            raise ValueError(f"For 'rename', 'input_columns' and 'output_columns' must have the "
                             f"same length, but got {ins} and {outs}")
        names = child.get_col_names()
        require_columns("rename", "input_columns", ins, names)
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


@builds("flat_map")
class FlatMapDataset(Dataset):
    """`dataset.flat_map(func)`: the rows of the Dataset `func(*row)` returns, row by row."""

    def __init__(self, child, func):
        super().__init__((child,))
        self.func = check_callable(func, "func", "flat_map")

    def _expand(self, row):
        try:
            out = self.func(*row)
        except Exception as e:
            note(e, f"(raised by the 'flat_map' function {op_name(self.func)})")
            raise
        if not isinstance(out, Dataset):
            raise TypeError(f"For 'flat_map', 'func' must return a Dataset, but got "
                            f"{type(out).__name__}")
        return out

    def _columns(self):
        if "columns" not in self._cache:
            first = self.children[0]._first_row()
            self._cache["columns"] = self.children[0].get_col_names() if first is None else \
                self._expand(first).get_col_names()
        return self._cache["columns"]

    def _rows(self, p):
        names = self._columns()
        for k, row in enumerate(self.children[0]._rows(p)):
            part = self._expand(row)
            if part.get_col_names() != names:
                raise ValueError(f"For 'flat_map', every returned dataset must have the columns "
                                 f"{names}, but one has {part.get_col_names()}")
            yield from part._rows(part._new_pass(p.epoch, p.base + k))


@builds("filter")
class FilterDataset(Dataset):
    """`dataset.filter(predicate, input_columns=None, num_parallel_workers=None)`."""

    def __init__(self, child, predicate, input_columns=None, num_parallel_workers=None):
        super().__init__((child,), check_workers("filter", num_parallel_workers))
        self.predicate = check_callable(predicate, "predicate", "filter")
        names = child.get_col_names()
        ins = column_list("filter", "input_columns", input_columns) or names
        require_columns("filter", "input_columns", ins, names)
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


def check_pad_info(owner, pad_info, names):
    """{column: (shape list or None, fill value or None)} from a `pad_info` dict."""
    if not isinstance(pad_info, dict):
        raise TypeError(f"For '{owner}', 'pad_info' must be a dict, but got "
                        f"{type(pad_info).__name__}")
    out = {}
    for col, spec in pad_info.items():
        if not isinstance(col, str):
            raise TypeError(f"For '{owner}', the keys of 'pad_info' must be column names, but "
                            f"got {col!r}")
        if col not in names:
            raise ValueError(f"For '{owner}', the 'pad_info' column '{col}' does not exist: the "
                             f"dataset has columns {list(names)}")
        shape, fill = (None, None) if spec is None else spec if isinstance(spec, tuple) and \
            len(spec) == 2 else (_bad_pad(owner, col, spec), None)
        if shape is not None:
            if not isinstance(shape, (list, tuple)):
                _bad_pad(owner, col, spec)
            for d in shape:
                if d is not None and (not isinstance(d, (int, np.integer)) or
                                      isinstance(d, bool) or d <= 0):
                    raise ValueError(f"For '{owner}', the pad shape of column '{col}' must hold "
                                     f"positive ints or None, but got {list(shape)}")
            shape = list(shape)
        if fill is not None and not isinstance(fill, (int, float, str, bytes, np.generic)):
            raise TypeError(f"For '{owner}', the pad value of column '{col}' must be a number or "
                            f"a str, but got {type(fill).__name__}")
        out[col] = (shape, fill)
    return out


def _bad_pad(owner, col, spec):
    raise TypeError(f"For '{owner}', 'pad_info[{col!r}]' must be a (shape, value) tuple or None, "
                    f"but got {spec!r}")


def pad_stack(owner, column, values, shape, fill):
    """Stack `values` after padding (or cutting) each to `shape`; None dimensions take the
    largest size in the batch. `fill` defaults to 0 ('' for strings)."""
    rank = values[0].ndim
    for v in values:
        if v.ndim != rank:
            raise ValueError(f"For '{owner}', column '{column}' cannot be padded: its rows have "
                             f"ranks {values[0].ndim} and {v.ndim}")
    if shape is None:
        shape = [None] * rank
    if len(shape) != rank:
        raise ValueError(f"For '{owner}', the pad shape {shape} of column '{column}' must have "
                         f"the rank of the column ({rank})")
    target = tuple(max(v.shape[d] for v in values) if s is None else s
                   for d, s in enumerate(shape))
    strings = values[0].dtype.kind in "US"
    if fill is not None and isinstance(fill, (str, bytes)) != strings:
        raise TypeError(f"For '{owner}', column '{column}' holds "
                        f"{'strings' if strings else 'numbers'}: its pad value {fill!r} must too")
    if strings:
        dtype = np.result_type(*values, np.asarray("" if fill is None else fill))
    else:
        dtype = values[0].dtype
        for k, v in enumerate(values):
            if v.dtype != dtype:
                raise TypeError(f"For '{owner}', column '{column}' cannot be batched: row 0 "
                                f"has dtype {dtype} but row {k} has dtype {v.dtype}")
    out = np.full((len(values),) + target, "" if fill is None and strings else fill or 0,
                  dtype=dtype)
    for k, v in enumerate(values):
        cut = tuple(slice(0, min(a, b)) for a, b in zip(v.shape, target))
        out[(k,) + cut] = v[cut]
    return out


@builds("batch")
class BatchDataset(Dataset):
    """`dataset.batch(...)`: see `Dataset.batch`."""

    def __init__(self, child, batch_size, drop_remainder=False, num_parallel_workers=None,
                 **kwargs):
        super().__init__((child,), check_workers("batch", num_parallel_workers))
        unknown = set(kwargs) - set(_BATCH_KWARGS)
        if unknown:
            raise TypeError(f"For 'batch', unexpected keyword arguments {sorted(unknown)}")
        if callable(batch_size):
            self.batch_size = batch_size
        else:
            self.batch_size = check_int_range(batch_size, "batch_size", "batch", 1, INT32_MAX)
        self.drop_remainder = check_bool(drop_remainder, "drop_remainder", "batch")
        self.python_multiprocessing = check_bool(kwargs.get("python_multiprocessing", False),
                                                 "python_multiprocessing", "batch")
        pbm = kwargs.get("per_batch_map")
        self.per_batch_map = pbm if pbm is None else check_callable(pbm, "per_batch_map", "batch")
        names = child.get_col_names()
        ins = column_list("batch", "input_columns", kwargs.get("input_columns"))
        outs = column_list("batch", "output_columns", kwargs.get("output_columns"))
        if pbm is None and (ins is not None or outs is not None):
            raise ValueError("For 'batch', 'input_columns' and 'output_columns' need "
                             "'per_batch_map'")
        ins = ins or list(names)
        require_columns("batch", "input_columns", ins, names)
        outs = outs or ins
        self._in_idx = [names.index(c) for c in ins]
        self.input_columns, self.output_columns = ins, outs
        cols, plan = _plan_columns(names, ins, outs)
        if len(set(cols)) != len(cols):
            raise ValueError(f"For 'batch', the resulting columns {cols} have duplicate names")
        self._cols, self._plan, self._names = cols, plan, names
        if not callable(self.batch_size) and hasattr(child, "rows_per_step"):
            child.rows_per_step = self.batch_size

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
        return check_int_range(bs, "batch_size(batch_info)", "batch", 1, INT32_MAX)

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
        cols = list(zip(*group))
        if self.per_batch_map is None:
            return tuple(_stack("batch", self._names[i], list(c)) for i, c in enumerate(cols))
        try:
            res = self.per_batch_map(*(list(cols[i]) for i in self._in_idx), info)
        except Exception as e:
            note(e, f"(raised by the 'batch' per_batch_map {op_name(self.per_batch_map)} on "
                    f"batch {info.get_batch_num()})")
            raise
        res = res if isinstance(res, tuple) else (res,)
        _check_count("batch", "'per_batch_map'", res, self.output_columns)
        out = []
        for j, v in enumerate(res):
            name = self.output_columns[j]
            if isinstance(v, (list, tuple)):
                if not v:
                    raise ValueError(f"For 'batch', 'per_batch_map' returned an empty list for "
                                     f"column '{name}'")
                v = _stack("batch", name, [as_column(e, "batch", name) for e in v])
            else:
                v = as_column(v, "batch", name)
            out.append(v)
        return tuple(out[j] if kind == "out" else
                     _stack("batch", self._names[j], list(cols[j])) for kind, j in self._plan)

    def _collate_payload(self, payload):
        return self._collate_now(*payload)

    def _rows(self, p):
        work = ((p.chunk_key(self, info.get_batch_num()), (info, group))
                for info, group in self._groups(p))
        workers = self._workers()
        if self.python_multiprocessing and self.per_batch_map is not None and workers > 1:
            return process_ordered_map(self._collate_payload, work, workers, "batch")
        return ordered_map(self._collate, work, workers)




@builds("padded_batch")
class PaddedBatchDataset(BatchDataset):
    """`dataset.padded_batch(...)`: see `Dataset.padded_batch`."""

    def __init__(self, child, batch_size, drop_remainder=False, num_parallel_workers=None,
                 pad_info=None):
        super().__init__(child, batch_size, drop_remainder, num_parallel_workers)
        self.pad_info = None if pad_info is None else \
            check_pad_info("padded_batch", pad_info, child.get_col_names())

    def _collate_now(self, info, group):
        if self.pad_info is None:
            return super()._collate_now(info, group)
        out = []
        for i, col in enumerate(zip(*group)):
            name = self._names[i]
            if not self.pad_info:
                out.append(pad_stack("padded_batch", name, list(col), None, None))
            elif name in self.pad_info:
                out.append(pad_stack("padded_batch", name, list(col), *self.pad_info[name]))
            else:
                out.append(_stack("padded_batch", name, list(col)))
        return tuple(out)


def _check_increasing(owner, arg, values, strict):
    if not isinstance(values, list) or not values:
        raise ValueError(f"For '{owner}', '{arg}' must be a non-empty list of ints, but got "
                         f"{values!r}")
    for v in values:
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"For '{owner}', '{arg}' must hold ints, but got {v!r}")
        if v <= 0:
            raise ValueError(f"For '{owner}', '{arg}' must hold positive ints, but got {values}")
    if strict and any(b <= a for a, b in itertools.pairwise(values)):
        raise ValueError(f"For '{owner}', '{arg}' must be strictly increasing, but got {values}")
    return [int(v) for v in values]


@builds("bucket_batch_by_length")
class BucketBatchByLengthDataset(Dataset):
    """`dataset.bucket_batch_by_length(...)`: see `Dataset.bucket_batch_by_length`."""

    def __init__(self, child, column_names, bucket_boundaries, bucket_batch_sizes,
                 element_length_function=None, pad_info=None, pad_to_bucket_boundary=False,
                 drop_remainder=False):
        super().__init__((child,))
        owner = "bucket_batch_by_length"
        names = child.get_col_names()
        cols = column_list(owner, "column_names", column_names, allow_none=False)
        require_columns(owner, "column_names", cols, names)
        self.bucket_boundaries = _check_increasing(owner, "bucket_boundaries", bucket_boundaries,
                                                   True)
        self.bucket_batch_sizes = _check_increasing(owner, "bucket_batch_sizes",
                                                    bucket_batch_sizes, False)
        if len(self.bucket_batch_sizes) != len(self.bucket_boundaries) + 1:
            raise ValueError(f"For '{owner}', 'bucket_batch_sizes' must have one element more "
                             f"than 'bucket_boundaries', but got {bucket_batch_sizes} and "
                             f"{bucket_boundaries}")
        if element_length_function is None:
            if len(cols) != 1:
                raise ValueError(f"For '{owner}', without 'element_length_function' exactly one "
                                 f"column must be named, but got {cols}")
        else:
            check_callable(element_length_function, "element_length_function", owner)
        self.column_names, self.element_length_function = cols, element_length_function
        self.pad_info = {} if pad_info is None else check_pad_info(owner, pad_info, names)
        self.pad_to_bucket_boundary = check_bool(pad_to_bucket_boundary,
                                                 "pad_to_bucket_boundary", owner)
        self.drop_remainder = check_bool(drop_remainder, "drop_remainder", owner)
        self._idx = [names.index(c) for c in cols]
        self._names = names

    def _columns(self):
        return self._names

    def _length(self, row):
        args = [row[i] for i in self._idx]
        if self.element_length_function is None:
            a = args[0]
            return a.shape[0] if a.ndim else 1
        n = self.element_length_function(*args)
        if isinstance(n, np.ndarray) and n.size == 1:
            n = n.reshape(()).item()
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
            raise ValueError(f"For 'bucket_batch_by_length', 'element_length_function' must "
                             f"return an int >= 0, but got {n!r}")
        return int(n)

    def _make_batch(self, bucket, rows):
        last = bucket == len(self.bucket_boundaries)
        out = []
        for i, col in enumerate(zip(*rows)):
            name = self._names[i]
            if self.pad_info and name not in self.pad_info:
                out.append(_stack("bucket_batch_by_length", name, list(col)))
                continue
            shape, fill = self.pad_info.get(name, (None, None))
            if self.pad_to_bucket_boundary and not last and name in self.pad_info:
                rank = col[0].ndim
                bound = self.bucket_boundaries[bucket] - 1
                shape = [bound if d is None else d for d in (shape or [None] * rank)]
            out.append(pad_stack("bucket_batch_by_length", name, list(col), shape, fill))
        return tuple(out)

    def _rows(self, p):
        buckets = [[] for _ in self.bucket_batch_sizes]
        for row in self.children[0]._rows(p):
            k = bisect.bisect_right(self.bucket_boundaries, self._length(row))
            buckets[k].append(row)
            if len(buckets[k]) == self.bucket_batch_sizes[k]:
                yield self._make_batch(k, buckets[k])
                buckets[k] = []
        if not self.drop_remainder:
            for k, rows in enumerate(buckets):
                if rows:
                    yield self._make_batch(k, rows)
