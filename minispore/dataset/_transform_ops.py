"""The pipeline ops that compute rows: `map`, `filter` and `batch` (on worker threads, in order),
`project` and `rename`."""
import numpy as np

from .._validator import check_bool, check_callable, check_int_range
from ..common.tensor import Tensor
from ._base import (INT32_MAX, Dataset, as_column, builds, check_workers, column_list, note,
                    op_name, require_columns)
from ._parallel import CHUNK, chunks, ordered_map, run_with_rng

__all__ = ["BatchDataset", "BatchInfo", "FilterDataset", "MapDataset", "ProjectDataset",
           "RenameDataset"]


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
                note(e, f"(raised by the 'map' operation {op_name(op)} on input columns "
                        f"{self.input_columns})")
                raise
            out = res if isinstance(res, tuple) else (res,)
        _check_count("map", "the operations", out, self.output_columns)
        out = [as_column(v, "map", self.output_columns[j]) for j, v in enumerate(out)]
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

    def _rows(self, p):
        work = ((p.chunk_key(self, info.get_batch_num()), (info, group))
                for info, group in self._groups(p))
        return ordered_map(self._collate, work, self._workers())


