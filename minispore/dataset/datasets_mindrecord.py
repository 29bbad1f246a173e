"""MindDataset: reading MindRecord files (see `minispore.mindrecord`) into a pipeline, and
`Dataset.save` writing a pipeline's rows into MindRecord files."""
import os

import numpy as np

from ..mindrecord import _format
from ..mindrecord.filereader import MindRecordSet
from ..mindrecord.filewriter import FileWriter
from ._base import Dataset, MappableDataset, check_workers, column_list
from .samplers import select_sampler

__all__ = ["MindDataset"]


def _shuffle_mode(owner, shuffle):
    """'global', 'files', 'infile' or 'false' from a bool, None or a `dataset.Shuffle` member
    (matched by its value: FALSE, ADAPTIVE, GLOBAL, PARTIAL, FILES, INFILE as in MindSpore)."""
    if shuffle is None or shuffle is True:
        return "global"
    if shuffle is False:
        return "false"
    value = getattr(shuffle, "value", None)
    if value in ("false", "adaptive", "global", "partial", "files", "infile"):
        return {"adaptive": "global", "partial": "global"}.get(value, value)
    raise TypeError(f"For '{owner}', 'shuffle' must be a bool, None or a Shuffle mode, but got "
                    f"{shuffle!r}")


class MindDataset(MappableDataset):
    """Rows of MindRecord files (written by `mindrecord.FileWriter`, here or in MindSpore).

    Args:
        dataset_files (str | list[str]): one file (every file of its set is read, in the order
            its header lists them) or a list of files (exactly those, in that order).
        columns_list (list[str], optional): the columns to read, in this order (default all,
            in the schema's sorted order).
        num_parallel_workers (int, optional): threads reading rows.
        shuffle (bool | Shuffle, optional): None/True/GLOBAL shuffle every row each epoch;
            FILES shuffles the order of the files; INFILE the rows inside each file; False
            keeps the order.
        num_shards, shard_id (int, optional): read one shard of the rows (ceil(n / num_shards)
            rows, wrapping around, as MindSpore's).
        sampler (Sampler, optional): instead of `shuffle` and sharding.
        padded_sample (dict, optional), num_padded (int, optional): `num_padded` copies of
            `padded_sample` are appended after the rows (before sharding) so that the row count
            divides evenly; needs `columns_list` and `num_shards`.
        num_samples (int, optional): at most this many rows per epoch.
        cache: not supported (must be None).

    Columns come as MindSpore's MindDataset gives them: scalars as 0-d arrays of the schema's
    dtype, strings as 0-d str arrays, `bytes` fields as a (1,) bytes array, arrays in their
    dtype and shape.

    Raises:
        ValueError: a missing file, an unknown column, bad padding options.
        RuntimeError: a file that is not a valid MindRecord file (named in the message).
    """

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None,
                 shuffle=None, num_shards=None, shard_id=None, sampler=None, padded_sample=None,
                 num_padded=None, num_samples=None, cache=None):
        owner = "MindDataset"
        if cache is not None:
            raise ValueError(f"For '{owner}', 'cache' (a DatasetCache server) is not supported "
                             f"in minispore")
        if isinstance(dataset_files, (list, tuple)):
            if not dataset_files:
                raise ValueError(f"For '{owner}', 'dataset_files' must not be empty")
            files = list(dataset_files)
        elif isinstance(dataset_files, (str, os.PathLike)):
            files = os.fspath(dataset_files)
        else:
            raise TypeError(f"For '{owner}', 'dataset_files' must be a str or a list of str, "
                            f"but got {type(dataset_files).__name__}")
        self._set = MindRecordSet(files, owner)
        schema = self._set.schema
        names = sorted(schema) if columns_list is None else \
            column_list(owner, "columns_list", columns_list, allow_none=False)
        missing = [c for c in names if c not in schema]
        if missing:
            raise ValueError(f"For '{owner}', columns {missing} are not in the MindRecord "
                             f"schema {sorted(schema)}")
        self._names = names
        self._mode = _shuffle_mode(owner, shuffle) if sampler is None else "false"
        self._padded = self._check_padding(owner, padded_sample, num_padded, columns_list,
                                           num_shards, sampler)
        use_shuffle = None if shuffle is None else self._mode != "false"
        if self._mode in ("files", "infile"):
            use_shuffle = False  # the file-level orders are drawn here, per epoch
        sampler = select_sampler(owner, num_samples, use_shuffle if sampler is None else None,
                                 sampler, num_shards, shard_id,
                                 default_shuffle=self._mode == "global")
        super().__init__(check_workers(owner, num_parallel_workers), sampler)
        self.num_samples = sampler.num_samples
        self._epoch_order = None

    def _check_padding(self, owner, padded_sample, num_padded, columns_list, num_shards,
                       sampler):
        if padded_sample is None and not num_padded:
            return []
        if padded_sample is None or num_padded is None:
            raise RuntimeError(f"For '{owner}', 'padded_sample' and 'num_padded' must be given "
                               f"together")
        if columns_list is None:
            raise RuntimeError("padded_sample is specified and requires columns_list as well.")
        if not isinstance(padded_sample, dict):
            raise TypeError(f"For '{owner}', 'padded_sample' must be a dict, but got "
                            f"{type(padded_sample).__name__}")
        if not isinstance(num_padded, int) or isinstance(num_padded, bool) or num_padded < 0:
            raise ValueError(f"For '{owner}', 'num_padded' must be a non-negative int, but got "
                             f"{num_padded!r}")
        if num_shards is None or sampler is not None:
            raise RuntimeError(f"For '{owner}', padding needs 'num_shards' and 'shard_id' (and "
                               f"no sampler)")
        total = self._set.num_rows + num_padded
        if total % num_shards:
            raise RuntimeError(f"For '{owner}', the rows ({self._set.num_rows}) plus "
                               f"'num_padded' ({num_padded}) must divide by 'num_shards' "
                               f"({num_shards})")
        missing = [c for c in self._names if c not in padded_sample]
        if missing:
            raise ValueError(f"For '{owner}', 'padded_sample' has no value for columns "
                             f"{missing}")
        row = []
        for name in self._names:
            value = padded_sample[name]
            if self._set.schema[name]["type"] == "bytes":
                value = value if isinstance(value, bytes) else np.asarray(value).tobytes()
                row.append(np.array([value]) if value else np.array([b""], dtype="S1"))
            elif "shape" in self._set.schema[name]:
                row.append(np.asarray(value, dtype=self._set.schema[name]["type"]))
            elif self._set.schema[name]["type"] == "string":
                row.append(np.array(str(value)))
            else:
                row.append(np.array(value, dtype=self._set.schema[name]["type"]))
        return [tuple(row)] * num_padded

    def _columns(self):
        return self._names

    def _num_rows(self):
        return self._set.num_rows + len(self._padded)

    def _file_order(self, p):
        """The row order of this epoch under the FILES / INFILE shuffles (None otherwise)."""
        if self._mode not in ("files", "infile"):
            return None
        rng = p.rng(self, True)
        starts = self._set.starts
        blocks = [np.arange(starts[k], starts[k + 1]) for k in range(len(self._set.shards))]
        if self._mode == "files":
            blocks = [blocks[k] for k in rng.permutation(len(blocks))]
        else:
            blocks = [rng.permutation(b) for b in blocks]
        order = np.concatenate(blocks + [np.arange(self._set.num_rows, self._num_rows())])
        return order.astype(np.int64)

    def _indices(self, p):
        idx = super()._indices(p)
        order = self._file_order(p)
        return idx if order is None else order[idx]

    def _node_shuffles(self):
        return self._mode != "false" or super()._node_shuffles()

    def _get_row(self, index):
        if index >= self._set.num_rows:
            return tuple(np.array(a, copy=True) for a in self._padded[index - self._set.num_rows])
        row, path, j = self._set.row(index, self._names)
        return tuple(_format.column_value(self._set.schema, name, row[name], path, j)
                     for name in self._names)

    def _source_workers(self):
        return self.num_parallel_workers or 1


_SCHEMA_TYPES = {np.dtype(np.int32): "int32", np.dtype(np.int64): "int64",
                 np.dtype(np.float32): "float32", np.dtype(np.float64): "float64"}
_WIDEN = {"b": "int32", "i": "int64", "u": "int64", "f": "float64"}


def _save_schema(row, names):
    """MindSpore's schema for a row: scalars keep their dtype (narrower ints and bools widen to
    int32, unsigned 32/64-bit ints to int64, float16 to float32), arrays get shape [-1, *rest],
    bytes and strings their own types."""
    schema = {}
    for name, value in zip(names, row):
        if value.dtype.kind in "US":
            if value.size != 1:
                raise ValueError(f"For 'save', column '{name}' holds an array of strings or "
                                 f"bytes: only one per row can be saved")
            schema[name] = {"type": "string" if value.dtype.kind == "U" else "bytes"}
            continue
        kind = _SCHEMA_TYPES.get(value.dtype)
        if kind is None:
            if value.dtype.kind not in _WIDEN:
                raise ValueError(f"For 'save', column '{name}' has dtype {value.dtype}, which "
                                 f"MindRecord cannot store")
            if value.dtype.kind in "biu" and value.dtype.itemsize < 4:
                kind = "int32"
            elif value.dtype == np.float16:
                kind = "float32"
            else:
                kind = _WIDEN[value.dtype.kind]
        schema[name] = {"type": kind} if value.ndim == 0 else \
            {"type": kind, "shape": [-1] + list(value.shape[1:])}
    return schema


def _save_value(spec, value):
    if spec["type"] == "string":
        return str(value.reshape(-1)[0])
    if spec["type"] == "bytes":
        return bytes(value.reshape(-1)[0])
    if "shape" in spec:
        return np.ascontiguousarray(value.reshape(-1), dtype=spec["type"])
    return np.asarray(value, dtype=spec["type"]).item()


def save(self, file_name, num_files=1, file_type="mindrecord"):
    """Write every row of one pass of this dataset into MindRecord files (`num_files` files,
    `file_name` or `file_name0`, `file_name1`, ... as `FileWriter` names them).

    The schema is MindSpore's: scalars keep their dtype (narrower ints widen to int32, float16
    to float32, other unsigned ints to int64), an array column gets shape [-1, *its trailing
    dims] (stored flat, [-1], where rows differ in the trailing dims, which MindSpore cannot
    save), bytes become `bytes` fields and strings `string` fields.
    """
    if file_type != "mindrecord":
        raise ValueError(f"For 'save', 'file_type' must be 'mindrecord', but got {file_type!r}")
    names = self.get_col_names()
    p = self._new_pass()
    schema = None
    for row in self._rows(p):  # pass 1: the schema; arrays whose trailing dims vary go flat
        if schema is None:
            schema = _save_schema(row, names)
            continue
        for k, n in enumerate(names):
            shape = schema[n].get("shape")
            if shape and shape != [-1] and list(row[k].shape[1:]) != shape[1:]:
                schema[n]["shape"] = [-1]
    if schema is None:
        raise RuntimeError("For 'save', the dataset has no rows to save")
    writer = FileWriter(file_name, num_files, overwrite=False)
    writer.add_schema(schema, "minispore Dataset.save")
    batch = []
    for row in self._rows(p):  # pass 2, same seeds: the same rows in the same order
        batch.append({n: _save_value(schema[n], row[k]) for k, n in enumerate(names)})
        if len(batch) >= 1000:
            writer.write_raw_data(batch)
            batch = []
    if batch:
        writer.write_raw_data(batch)
    writer.commit()


Dataset.save = save  # attached here: the Dataset class (in _base.py) is not this module's
