"""`FileWriter`: rows (dicts) into MindRecord files that MindSpore's MindDataset reads."""
import os
import shutil
import warnings

import numpy as np

from . import _format, config
from ._errors import (
    MRMDefineIndexError,
    MRMInvalidHeaderSizeError,
    MRMInvalidPageSizeError,
    MRMInvalidSchemaError,
    ParamTypeError,
    ParamValueError,
)

__all__ = ["FileWriter"]

_FORBIDDEN = set('\\/:*?"<>|`&\';')
_PY_TYPES = {"int32": (int, np.integer), "int64": (int, np.integer),
             "float32": (float, np.floating), "float64": (float, np.floating),
             "string": (str,), "bytes": (bytes,)}


def check_filename(path, arg="File path"):
    """MindSpore's rules for a MindRecord file name (ParamValueError when broken)."""
    if not path:
        raise ParamValueError(f"{arg} is not allowed None or empty!")
    if not isinstance(path, str):
        raise ParamValueError(f"File path: {path} is not string.")
    if path.endswith("/"):
        raise ParamValueError("File path can not end with '/'")
    name = os.path.basename(path)
    if set(name) & _FORBIDDEN:
        raise ParamValueError("File name should not contains \\/:*?\"<>|`&;'")
    if name.startswith(" ") or name.endswith(" "):
        raise ParamValueError("File name should not start/end with space.")
    return True


class FileWriter:
    """Writes rows into MindRecord files (MindSpore's format, read by `dataset.MindDataset`).

    Args:
        file_name (str): the file to write; with `shard_num` > 1, files `file_name0`,
            `file_name1`, ... (digits padded to the same width).
        shard_num (int): number of files, in [1, 1000]; each `write_raw_data` call splits its
            rows evenly over them (the first files take the remainder).
        overwrite (bool): replace existing files (and their `.db` index files).

    Raises:
        ParamValueError: a bad `file_name`, `shard_num` or `overwrite`.
    """

    def __init__(self, file_name, shard_num=1, overwrite=False):
        check_filename(file_name)
        if shard_num is None:
            raise ParamValueError("Parameter shard_num is None.")
        if not isinstance(shard_num, int) or isinstance(shard_num, bool):
            raise ParamValueError("Parameter shard_num's type is not int.")
        if not _format.MIN_SHARD_COUNT <= shard_num <= _format.MAX_SHARD_COUNT:
            raise ParamValueError(f"Parameter shard_num's value: {shard_num} should between "
                                  f"{_format.MIN_SHARD_COUNT} and {_format.MAX_SHARD_COUNT}.")
        if not isinstance(overwrite, bool):
            raise ParamValueError("Parameter overwrite's type is not bool.")
        if shard_num > 1 and config.enc_key() is not None:
            raise RuntimeError("When encode mode is enabled, the automatic sharding function is "
                               "unavailable.")
        self._file_name = file_name
        width = len(str(shard_num - 1))
        self._paths = [file_name] if shard_num == 1 else \
            [f"{file_name}{str(k).rjust(width, '0')}" for k in range(shard_num)]
        self._overwrite = overwrite
        self._schema, self._desc, self._index = None, None, None
        self._header_size, self._page_size = (_format.DEFAULT_HEADER_SIZE,
                                              _format.DEFAULT_PAGE_SIZE)
        self._shards = None
        self._compression = 0
        self._committed = False
        self._append = False

    # ---- schema and index ----
    def add_schema(self, content, desc=None):
        """Set the schema: {field: {"type": t}} with t in int32, int64, float32, float64,
        string, bytes, or {"type": t, "shape": [...]} for a NumPy array of t (int32, int64,
        float32, float64; one dimension may be -1). `desc` describes it.

        Raises:
            MRMInvalidSchemaError: an invalid schema.
        """
        problem = _format.schema_problem(content)
        if problem:
            raise MRMInvalidSchemaError(problem)
        if self._schema is not None:
            raise MRMInvalidSchemaError("a MindRecord file holds one schema, and it is already "
                                        "set")
        if desc is not None and not isinstance(desc, str):
            raise MRMInvalidSchemaError(f"desc must be a str, but got {type(desc).__name__}")
        self._schema = {k: dict(v) for k, v in content.items()}
        self._desc = desc

    @property
    def _blob_fields(self):
        return _format.blob_fields_of(self._schema) if self._schema else []

    def add_index(self, index_fields):
        """Fields (scalar numbers or strings) to index in the `.db` file beside each data file;
        without a call, every such field is indexed.

        Raises:
            ParamTypeError: `index_fields` is not a non-empty list of str.
            MRMDefineIndexError: a field that is an array, bytes, or not in the schema.
        """
        if not index_fields or not isinstance(index_fields, list):
            raise ParamTypeError("index_fields", "list")
        for field in index_fields:
            if not isinstance(field, str):
                raise ParamTypeError("index field", "str")
            if field in self._blob_fields:
                raise MRMDefineIndexError(f"Failed to set field {field} since it's not "
                                          f"primitive type.")
            if self._schema is None or field not in self._schema:
                raise MRMDefineIndexError(f"Field {field!r} is not in the schema: call "
                                          f"add_schema first")
        if len(set(index_fields)) != len(index_fields):
            raise MRMDefineIndexError(f"index fields {index_fields} repeat a field")
        self._index = list(index_fields)

    def set_header_size(self, header_size):
        """Header area size in bytes, a multiple of 4 in [16 KB, 128 MB] (default 16 MB)."""
        if not isinstance(header_size, int) or isinstance(header_size, bool) or \
                not _format.MIN_HEADER_SIZE <= header_size <= _format.MAX_HEADER_SIZE or \
                header_size % 4:
            raise MRMInvalidHeaderSizeError(
                f"Header size should be a multiple of 4 between 16KB and 128MB, but got "
                f"{header_size!r}.")
        self._check_not_started("set_header_size")
        self._header_size = header_size

    def set_page_size(self, page_size):
        """Page size in bytes, a multiple of 4 in [32 KB, 256 MB] (default 32 MB); a row must
        fit in one page."""
        if not isinstance(page_size, int) or isinstance(page_size, bool) or \
                not _format.MIN_PAGE_SIZE <= page_size <= _format.MAX_PAGE_SIZE or page_size % 4:
            raise MRMInvalidPageSizeError(
                f"Page size should be a multiple of 4 between 32KB and 256MB, but got "
                f"{page_size!r}.")
        self._check_not_started("set_page_size")
        self._page_size = page_size

    def _check_not_started(self, what):
        if self._shards is not None:
            raise RuntimeError(f"For 'FileWriter', {what} must be called before the first "
                               f"write_raw_data")

    # ---- writing ----
    def _open(self):
        if self._shards is not None:
            return
        if self._schema is None:
            raise MRMInvalidSchemaError("no schema: call add_schema before writing")
        existing = [p for path in self._paths for p in (path, path + ".db")
                    if os.path.lexists(p)]
        if existing and not self._overwrite:
            raise RuntimeError(f"Invalid file, MindRecord files already exist. Please check "
                               f"file path: {existing[0]}, or set overwrite=True.")
        for p in existing:
            os.remove(p)
        for path in self._paths:
            folder = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(folder):
                raise RuntimeError(f"Invalid file, the folder {folder!r} of {path!r} does not "
                                   f"exist")
        self._shards = [_format.ShardFileWriter(p, k, self._header_size, self._page_size)
                        for k, p in enumerate(self._paths)]
        self._layout = _format.Layout(self._schema, self._blob_fields)

    def _row_problem(self, row):
        for field, spec in self._schema.items():
            if field not in row:
                return f"there is not field: '{field}' in the raw data."
            value = row[field]
            if "shape" in spec:
                if not isinstance(value, np.ndarray):
                    return (f"data type: '{type(value).__name__}' for field: '{field}' is not "
                            f"matched.")
                if str(value.dtype) != spec["type"]:
                    return f"data type: '{value.dtype}' for field: '{field}' is not matched."
                try:
                    np.reshape(value, spec["shape"])
                except ValueError:
                    return f"data shape: '{value.shape}' for field: '{field}' is not matched."
            elif isinstance(value, bool) or not isinstance(value, _PY_TYPES[spec["type"]]):
                return (f"data type: '{spec['type']}' for field: '{field}' is not matched.")
            elif spec["type"] == "int32" and not -(1 << 31) <= int(value) < (1 << 31):
                return f"value {value} for field: '{field}' is out of the int32 range."
            elif spec["type"] == "int64" and not -(1 << 63) <= int(value) < (1 << 63):
                return f"value {value} for field: '{field}' is out of the int64 range."
        return None

    def _encode(self, row):
        raw = {}
        for field in self._layout.raw_fields:
            value = row[field]
            raw[field] = value.item() if isinstance(value, np.generic) else value
        blob_parts = {}
        for field in self._layout.blob_fields:
            value = row[field]
            if isinstance(value, np.ndarray):
                value = np.ascontiguousarray(value, dtype=np.dtype(value.dtype).newbyteorder("<"))
                value = value.tobytes()
            blob_parts[field] = bytes(value)
        blob, saved = self._layout.encode_blob(blob_parts)
        packed = _format._msgpack.pack(raw if raw else _format._DUMMY_RAW)
        if 8 + len(packed) > self._page_size or 8 + len(blob) > self._page_size:
            raise RuntimeError(f"For 'FileWriter', a row takes {8 + max(len(packed), len(blob))} "
                               f"bytes, more than the page size {self._page_size}: call "
                               f"set_page_size with a larger size")
        return packed, blob, saved

    def write_raw_data(self, raw_data, parallel_writer=False):
        """Check rows against the schema and write them. A row that does not match the schema
        is left out with a warning (as MindSpore does); if none is left, RuntimeError.

        Args:
            raw_data (list[dict]): the rows, {field: value}: Python int/float/str/bytes (or
                NumPy scalars) for scalar fields, NumPy arrays of the schema's dtype for array
                fields.
            parallel_writer (bool): accepted; rows are written in this process.
        """
        if not isinstance(parallel_writer, bool):
            raise TypeError("The parameter `parallel_writer` must be bool.")
        if self._committed and not self._append:
            raise RuntimeError("Not allowed to call `write_raw_data` on flushed MindRecord "
                               "files. When creating new MindRecord files, please remove "
                               "`commit` before `write_raw_data`.")
        if not isinstance(raw_data, list):
            raise ParamTypeError("raw_data", "list")
        for row in raw_data:
            if not isinstance(row, dict):
                raise ParamTypeError("raw_data item", "dict")
        self._open()
        rows = []
        for i, row in enumerate(raw_data):
            problem = self._row_problem(row)
            if problem:
                warnings.warn(f"for schema, {i} th data is wrong, {problem} It is not written.",
                              stacklevel=2)
            else:
                rows.append(row)
        if not rows:
            raise RuntimeError("There is no valid data which can be written by "
                               "'write_raw_data' to mindrecord file. Please check the abnormal "
                               "input data indicated in the warning above.")
        encoded = [self._encode(r) for r in rows]
        self._compression += sum(e[2] for e in encoded)
        n, count = len(encoded), len(self._shards)
        start = 0
        for k, shard in enumerate(self._shards):
            size = n // count + (1 if k < n % count else 0)
            part = encoded[start:start + size]
            shard.write([e[0] for e in part], [e[1] for e in part])
            start += size

    def commit(self):
        """Write the headers and the `.db` index files; the files are complete after this."""
        self._open()
        names = [os.path.basename(p) for p in self._paths]
        index = self._index if self._index is not None else \
            _format.default_index_fields(self._schema)
        for k, shard in enumerate(self._shards):
            shard.finish(_format.header_json(
                self._schema, self._desc, self._blob_fields, index, names, k,
                shard.page_json(), self._header_size, self._page_size,
                max(self._compression, 0)))
        for path in self._paths:
            write_db(path, "FileWriter")
            os.chmod(path, 0o600)
            os.chmod(path + ".db", 0o600)
            if config.enc_key() is not None:
                config.encrypt_file(path)
                config.encrypt_file(path + ".db")
        self._committed = True

    @classmethod
    def open_for_append(cls, file_name):
        """A FileWriter that appends rows to the existing MindRecord file `file_name` (one file
        of a set: all its files are appended to)."""
        check_filename(file_name)
        if config.is_encrypted(file_name):
            plain = config.readable_path(file_name)
            shutil.move(plain, file_name)
            if os.path.exists(plain + ".db"):
                shutil.move(plain + ".db", file_name + ".db")
        shard = _format.ShardFile(file_name, "FileWriter.open_for_append")
        folder = os.path.dirname(os.path.abspath(file_name))
        paths = [os.path.join(folder, a) for a in shard.header["shard_addresses"]]
        writer = cls(file_name, 1, True)
        writer._paths = paths
        writer._schema = shard.schema
        writer._desc = shard.desc
        writer._index = shard.index_fields
        writer._header_size, writer._page_size = shard.header_size, shard.page_size
        writer._compression = shard.header.get("compression_size") or 0
        writer._layout = _format.Layout(writer._schema, writer._blob_fields)
        writer._shards = []
        for k, path in enumerate(paths):
            other = shard if path == os.path.abspath(file_name) else \
                _format.ShardFile(path, "FileWriter.open_for_append")
            writer._shards.append(_format.ShardFileWriter.reopen(path, k, other.header))
            if os.path.lexists(path + ".db"):
                os.remove(path + ".db")
        writer._append = True
        return writer


def write_db(path, func):
    """(Re)build the `.db` index of the data file `path` from the file itself."""
    shard = _format.ShardFile(path, func)
    rows = []
    for i, loc in enumerate(shard.locations):
        raw = shard.raw_row(i)
        rows.append((i,) + loc + ({f: raw.get(f) for f in shard.index_fields},))
    db = path + ".db"
    if os.path.lexists(db):
        os.remove(db)
    _format.write_index(db, os.path.basename(path), shard.schema, shard.index_fields, rows)
