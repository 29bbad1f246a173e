"""`FileReader` and `MindPage`: reading MindRecord files row by row, or by category."""
import contextlib
import json
import os
import threading

import numpy as np

from . import _format, config
from ._errors import MRMDefineCategoryError, ParamTypeError, ParamValueError
from .filewriter import check_filename

__all__ = ["FileReader", "MindPage", "MindRecordSet"]


class MindRecordSet:
    """The rows of a set of MindRecord files.

    `file_name`: one file (the whole set it belongs to is read, from its header's
    `shard_addresses`, in that order) or a list of files (exactly those, in that order; they
    must share one schema).
    """

    def __init__(self, file_name, func):
        self.func = func
        if isinstance(file_name, (str, os.PathLike)):
            first = os.fspath(file_name)
            self._check_exists(first)
            head = _format.ShardFile(config.readable_path(first), func)
            folder = os.path.dirname(first)
            paths = [os.path.join(folder, a) for a in head.header["shard_addresses"]]
            shards = []
            for p in paths:
                if os.path.normpath(p) == os.path.normpath(first):
                    shards.append(head)
                else:
                    self._check_exists(p)
                    shards.append(_format.ShardFile(config.readable_path(p), func))
        elif isinstance(file_name, (list, tuple)) and file_name:
            paths = []
            for p in file_name:
                if not isinstance(p, (str, os.PathLike)):
                    raise ParamValueError(f"For '{func}', file names must be str, but got "
                                          f"{p!r}")
                paths.append(os.fspath(p))
            if len(set(map(os.path.abspath, paths))) != len(paths):
                raise ParamValueError(f"For '{func}', the file list names a file twice: {paths}")
            for p in paths:
                self._check_exists(p)
            shards = [_format.ShardFile(config.readable_path(p), func) for p in paths]
        else:
            raise ParamValueError(f"For '{func}', the file name must be a str or a non-empty "
                                  f"list of str, but got {file_name!r}")
        schema = shards[0].schema
        for s in shards[1:]:
            if s.schema != schema:
                raise RuntimeError(f"For '{func}', {s.path!r} has another schema than "
                                   f"{shards[0].path!r}: {s.schema} vs {schema}")
        self.paths, self.shards, self.schema = paths, shards, schema
        self.desc = shards[0].desc
        self.index_fields = shards[0].index_fields
        self.starts = np.cumsum([0] + [s.num_rows for s in shards])
        self.num_rows = int(self.starts[-1])
        self._fds = {}
        self._lock = threading.Lock()

    def _check_exists(self, path):
        if not os.path.lexists(path):
            raise ValueError(f"For '{self.func}', the file {path!r} does not exist or "
                             f"permission denied!")

    def locate(self, i):
        k = int(np.searchsorted(self.starts, i, side="right") - 1)
        return k, i - int(self.starts[k])

    def _fd(self, k):
        with self._lock:
            fd = self._fds.get(k)
            if fd is None:
                f, _ = _format._files.open_regular(self.shards[k].path, self.func, RuntimeError,
                                                   max_size=_format.MAX_FILE_BYTES)
                fd = self._fds[k] = f
            return fd.fileno()

    def row(self, i, columns=None):
        """{field: decoded value} of row i: raw fields as stored (int, float, str), blob
        fields as bytes."""
        k, j = self.locate(i)
        shard = self.shards[k]
        out = {}
        wanted = self.schema if columns is None else columns
        if any(c in shard.layout.raw_fields for c in wanted):
            raw = shard.raw_row(j)
            for name in shard.layout.raw_fields:
                if name in wanted:
                    if name not in raw:
                        raise RuntimeError(f"Invalid MindRecord file {shard.path!r}: row {j} "
                                           f"has no field '{name}'")
                    out[name] = raw[name]
        if any(c in shard.layout.blob_fields for c in wanted):
            out.update({n: v for n, v in shard.blob_row(j, self._fd(k)).items() if n in wanted})
        return out, shard.path, j

    def close(self):
        with self._lock:
            for f in self._fds.values():
                f.close()
            self._fds = {}

    def __del__(self):
        with contextlib.suppress(Exception):  # at interpreter shutdown
            self.close()


def _user_value(schema, name, value, path, j):
    spec = schema[name]
    if "shape" in spec:
        return _format.column_value(schema, name, value, path, j)
    if spec["type"] == "bytes":
        return bytes(value)
    return value


def _check_consumer(num_consumer):
    if num_consumer is None:
        raise ParamValueError("Parameter num_consumer is None.")
    if not isinstance(num_consumer, int) or isinstance(num_consumer, bool):
        raise ParamValueError("Parameter num_consumer is not int.")
    top = max(os.cpu_count() or 1, 1)
    if not 1 <= num_consumer:
        raise ParamValueError(f"Parameter num_consumer: {num_consumer} should between 1 and "
                              f"{top}.")


def _check_names(file_name):
    if isinstance(file_name, list):
        for f in file_name:
            check_filename(f)
    else:
        check_filename(file_name)


class FileReader:
    """Reads the rows of MindRecord files as dicts.

    Args:
        file_name (str | list[str]): one file (its whole set is read) or a list of files.
        num_consumer (int): accepted (rows are read in this thread).
        columns (list[str], optional): the fields to read (default all).
        operator: accepted, unused (as in MindSpore).

    Raises:
        ParamValueError: a bad file name or `num_consumer`.
        ParamTypeError: `columns` is not a list of str.
        RuntimeError: a file that is not a valid MindRecord file (named in the message).
    """

    def __init__(self, file_name, num_consumer=4, columns=None, operator=None):
        _check_names(file_name)
        _check_consumer(num_consumer)
        self._set = MindRecordSet(file_name, "FileReader")
        if columns is not None:
            if not isinstance(columns, list) or not columns or \
                    not all(isinstance(c, str) for c in columns):
                raise ParamTypeError("columns", "list[str]")
            missing = [c for c in columns if c not in self._set.schema]
            if missing:
                raise ParamValueError(f"columns {missing} are not in the schema "
                                      f"{sorted(self._set.schema)}")
        self._columns = columns

    def get_next(self):
        """A generator of the rows, each a dict: ints, floats and strs for scalar fields,
        bytes for bytes fields, NumPy arrays for array fields."""
        s = self._set
        for i in range(s.num_rows):
            row, path, j = s.row(i, self._columns)
            yield {k: _user_value(s.schema, k, v, path, j) for k, v in row.items()}

    def len(self):
        """Number of rows."""
        return self._set.num_rows

    def schema(self):
        """The schema, {field: {"type": ..., "shape": ...}}."""
        return {k: dict(v) for k, v in self._set.schema.items()}

    def close(self):
        """Release the open files."""
        self._set.close()


class MindPage:
    """Reads MindRecord rows grouped by the values of an index field (a category), page by page.

    Args:
        file_name (str | list[str]): one file (its whole set) or a list of files.
        num_consumer (int): accepted (rows are read in this thread).
    """

    def __init__(self, file_name, num_consumer=4):
        _check_names(file_name)
        _check_consumer(num_consumer)
        self._set = MindRecordSet(file_name, "MindPage")
        self._candidate_fields = list(self._set.index_fields)
        self._category_field = None
        self._groups = None

    @property
    def candidate_fields(self):
        """The index fields, by which rows can be grouped."""
        return self._candidate_fields

    @property
    def category_field(self):
        """The field rows are grouped by (set it before reading)."""
        return self._category_field

    @category_field.setter
    def category_field(self, category_field):
        if not category_field or not isinstance(category_field, str):
            raise ParamTypeError("category_fields", "str")
        if category_field not in self._candidate_fields:
            raise MRMDefineCategoryError(f"Field '{category_field}' is not a candidate "
                                         f"category field.")
        self._category_field = category_field
        self._groups = None

    def _categories(self):
        if self._category_field is None:
            raise MRMDefineCategoryError("no category field: set 'category_field' first (one "
                                         f"of {self._candidate_fields})")
        if self._groups is None:
            groups = {}
            s = self._set
            for i in range(s.num_rows):
                k, j = s.locate(i)
                value = s.shards[k].raw_row(j).get(self._category_field)
                groups.setdefault(value, []).append(i)
            self._groups = sorted(groups.items(), key=lambda kv: str(kv[0]))  # as MindSpore
        return self._groups

    def read_category_info(self):
        """A JSON string: {"categories": [{"count", "id", "name"}, ...], "key": field_0}."""
        cats = [{"count": len(rows), "id": k, "name": str(value)}
                for k, (value, rows) in enumerate(self._categories())]
        return json.dumps({"categories": cats, "key": f"{self._category_field}_0"},
                          separators=(",", ":"))

    def _page(self, rows, page, num_row):
        s = self._set
        out = []
        for i in rows[page * num_row:(page + 1) * num_row]:
            row, path, j = s.row(i)
            out.append({k: _user_value(s.schema, k, v, path, j) for k, v in row.items()})
        return out

    def read_at_page_by_id(self, category_id, page, num_row):
        """Rows `page * num_row` to `(page + 1) * num_row` of category `category_id` (an id of
        `read_category_info`), as a list of dicts."""
        if not isinstance(category_id, int) or category_id < 0:
            raise ParamValueError("Category id should be int and greater than or equal to 0.")
        self._check_page(page, num_row)
        cats = self._categories()
        if category_id >= len(cats):
            raise ParamValueError(f"Category id {category_id} is out of range: there are "
                                  f"{len(cats)} categories.")
        return self._page(cats[category_id][1], page, num_row)

    def read_at_page_by_name(self, category_name, page, num_row):
        """Like `read_at_page_by_id`, for the category whose value is `category_name`."""
        if not isinstance(category_name, str):
            raise ParamValueError("Category name should be str.")
        self._check_page(page, num_row)
        for value, rows in self._categories():
            if str(value) == category_name:
                return self._page(rows, page, num_row)
        return []

    @staticmethod
    def _check_page(page, num_row):
        if not isinstance(page, int) or page < 0:
            raise ParamValueError("Page should be int and greater than or equal to 0.")
        if not isinstance(num_row, int) or num_row <= 0:
            raise ParamValueError("num_row should be int and greater than 0.")
