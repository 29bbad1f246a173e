"""The MindRecord file format, as MindSpore 2.10 writes and reads it.

A MindRecord data file is a header area of `header_size` bytes followed by pages of `page_size`
bytes (the last one cut short). The header area starts with the length of a JSON header (8 bytes,
little-endian) and the header itself: the schema, its blob fields, the index fields, the files of
the set (`shard_addresses`, names beside this one) and the list of pages. Page k starts at
header_size + k * page_size. Two kinds of pages:

- BLOB_DATA pages hold, per row, an 8-byte little-endian length and the row's blob: the bytes of
  its `bytes` and array fields (schema order), each after an 8-byte big-endian length; a single
  blob field is stored bare. Integer arrays are stored compressed (a 4-byte big-endian count, 2
  bits per element naming its width, then each element at that width, little-endian). Each blob
  page is one row group (its `page_type_id`).
- RAW_DATA pages hold, per row, an 8-byte length and the row's other fields as MessagePack; the
  page's `row_group_ids` say where each row group's rows start.

Beside each data file, `<file>.db` is an SQLite index (table INDEXES: the pages and offsets of each
row and the index fields' values; table SHARD_NAME: the data file's name).

Reading (`MindRecordFiles`) never trusts the file: sizes are capped, the header is checked field by
field, and every page and record must lie inside the file before it is read; a file that breaks a
rule raises RuntimeError naming it (as MindSpore's reader does).
"""
import json
import os
import re
import sqlite3
import struct

import numpy as np

from ..common import _files
from . import _msgpack

MIN_HEADER_SIZE, MAX_HEADER_SIZE = 1 << 14, 1 << 27
MIN_PAGE_SIZE, MAX_PAGE_SIZE = 1 << 15, 1 << 28
DEFAULT_HEADER_SIZE, DEFAULT_PAGE_SIZE = 1 << 24, 1 << 25
MIN_SHARD_COUNT, MAX_SHARD_COUNT = 1, 1000
VERSION = "3.0"
SCALAR_TYPES = ("int32", "int64", "float32", "float64", "string", "bytes")
ARRAY_TYPES = ("int32", "int64", "float32", "float64")
SQL_TYPES = {"int32": "INTEGER", "int64": "INTEGER", "float32": "REAL", "float64": "REAL",
             "string": "TEXT"}
FIELD_NAME = re.compile(r"^[0-9a-zA-Z_]+$")
MAX_FILE_BYTES = 1 << 40
_DUMMY_RAW = {"id": 0}  # the raw part MindSpore writes for rows whose fields are all blobs
_DUMMY_BLOB = b"\x00" * 4  # the blob MindSpore writes for rows without blob fields


# ---- schema ------------------------------------------------------------------------------------

def schema_problem(content):
    """Why `content` is not a valid MindRecord schema ({name: {"type": ..., "shape": [...]}}), or
    None."""
    if not content:
        return "Schema content is empty."
    if not isinstance(content, dict):
        return "Schema content should be dict."
    for name, spec in content.items():
        if not isinstance(name, str) or not FIELD_NAME.match(name):
            return f"Field '{name}' should be composed of '0-9' or 'a-z' or 'A-Z' or '_'."
        if not isinstance(spec, dict) or not spec:
            return f"Field '{name}' should be dict."
        if "type" not in spec or set(spec) - {"type", "shape"}:
            return f"Field '{spec}' contains illegal attributes."
        if "shape" in spec:
            if spec["type"] not in ARRAY_TYPES:
                return f"Field '{name}' contain illegal attribute '{spec['type']}'."
            shape = spec["shape"]
            if (not isinstance(shape, list) or not shape or
                    not all(isinstance(d, int) and not isinstance(d, bool) and (d > 0 or d == -1)
                            for d in shape) or shape.count(-1) > 1):
                return f"Field '{name}' contain illegal attribute '{shape}'."
        elif spec["type"] not in SCALAR_TYPES:
            return f"Field '{name}' contain illegal attribute '{spec['type']}'."
    return None


def blob_fields_of(schema):
    """The fields stored in blob pages (bytes and arrays), in MindSpore's (sorted) order."""
    return [k for k in sorted(schema) if schema[k]["type"] == "bytes" or "shape" in schema[k]]


def default_index_fields(schema):
    return [k for k in sorted(schema) if schema[k]["type"] in SQL_TYPES and "shape" not in schema[k]]


def _compress_int(raw, width):
    """MindSpore's compressed form of a little-endian int32/int64 array `raw`."""
    values = np.frombuffer(raw, dtype=np.int32 if width == 4 else np.int64).astype(np.int64)
    n = len(values)
    kind = np.full(n, 3, np.uint8)
    kind[(values >= -(1 << 31)) & (values < (1 << 31))] = 2
    kind[(values >= -(1 << 15)) & (values < (1 << 15))] = 1
    kind[(values >= -(1 << 7)) & (values < (1 << 7))] = 0
    padded = np.zeros(-(-n // 4) * 4, np.uint8)
    padded[:n] = kind
    groups = padded.reshape(-1, 4)
    bitmap = (groups[:, 0] << 6) | (groups[:, 1] << 4) | (groups[:, 2] << 2) | groups[:, 3]
    out = bytearray(struct.pack(">I", n))
    out += bitmap.astype(np.uint8).tobytes()
    le = values.astype("<i8").view(np.uint8).reshape(n, 8)
    for i in range(n):
        out += le[i, :1 << kind[i]].tobytes()
    return bytes(out)


def _uncompress_int(data, width, where):
    if len(data) < 4:
        raise ValueError(f"{where}: a compressed integer array needs 4 bytes, got {len(data)}")
    n = struct.unpack(">I", data[:4])[0]
    nmap = -(-n // 4)
    if 4 + nmap + n > len(data):
        raise ValueError(f"{where}: a compressed array of {n} integers does not fit in "
                         f"{len(data)} bytes")
    bitmap = np.frombuffer(data, np.uint8, nmap, 4)
    kinds = np.stack([(bitmap >> s) & 3 for s in (6, 4, 2, 0)], axis=1).reshape(-1)[:n]
    sizes = (1 << kinds.astype(np.int64))
    if 4 + nmap + int(sizes.sum()) != len(data):
        raise ValueError(f"{where}: a compressed array of {n} integers takes "
                         f"{4 + nmap + int(sizes.sum())} bytes, but the field has {len(data)}")
    out = np.empty(n, np.int64)
    pos = 4 + nmap
    types = ("<i1", "<i2", "<i4", "<i8")
    for k in range(4):  # one vectorised gather per width
        sel = np.nonzero(kinds == k)[0]
        if len(sel):
            starts = pos + np.concatenate([[0], np.cumsum(sizes)[:-1]])[sel]
            idx = starts[:, None] + np.arange(1 << k)
            out[sel] = np.frombuffer(np.frombuffer(data, np.uint8)[idx].tobytes(), types[k])
    return out.astype(np.int32 if width == 4 else np.int64).tobytes()


class Layout:
    """What a schema says about where each field lives and how it is encoded."""

    def __init__(self, schema, blob_fields):
        self.schema = schema
        self.blob_fields = list(blob_fields)
        self.raw_fields = [k for k in sorted(schema) if k not in self.blob_fields]
        self.compress = any("shape" in s and s["type"] in ("int32", "int64")
                            for s in schema.values())

    def _compressible(self, name):
        return self.compress and self.schema[name]["type"] in ("int32", "int64")

    def encode_blob(self, values):
        """The blob of one row from {field: bytes of the field}; (blob, bytes saved)."""
        if not self.blob_fields:
            return _DUMMY_BLOB, 0
        parts, saved = [], 0
        for name in self.blob_fields:
            data = values[name]
            if self._compressible(name):
                packed = _compress_int(data, 4 if self.schema[name]["type"] == "int32" else 8)
                saved += len(data) - len(packed)
                data = packed
            parts.append(data)
        if len(parts) == 1:
            return parts[0], saved
        out = bytearray()
        for data in parts:
            out += struct.pack(">Q", len(data))
            out += data
        return bytes(out), saved

    def decode_blob(self, blob, where):
        """{field: bytes} of one row's blob."""
        if not self.blob_fields:
            return {}
        if len(self.blob_fields) == 1:
            parts = {self.blob_fields[0]: blob}
        else:
            parts, pos = {}, 0
            for name in self.blob_fields:
                if pos + 8 > len(blob):
                    raise ValueError(f"{where}: the blob ends before field '{name}'")
                n = struct.unpack(">Q", blob[pos:pos + 8])[0]
                if n > len(blob) - pos - 8:
                    raise ValueError(f"{where}: field '{name}' claims {n} bytes, but only "
                                     f"{len(blob) - pos - 8} are left in the row's blob")
                parts[name] = blob[pos + 8:pos + 8 + n]
                pos += 8 + n
            if pos != len(blob):
                raise ValueError(f"{where}: {len(blob) - pos} bytes left after the blob fields")
        for name in list(parts):
            if self._compressible(name):
                parts[name] = _uncompress_int(bytes(parts[name]),
                                              4 if self.schema[name]["type"] == "int32" else 8,
                                              f"{where}, field '{name}'")
        return parts


# ---- writing -----------------------------------------------------------------------------------

class ShardFileWriter:
    """Pages of one data file, laid out as MindSpore's ShardWriter lays them (row groups cut where
    a blob or raw page would overflow; a row group's raw rows never straddle raw pages)."""

    def __init__(self, path, shard_id, header_size, page_size):
        self.path, self.shard_id = path, shard_id
        self.header_size, self.page_size = header_size, page_size
        self.pages = []  # dicts: id, type, type_id, start, end, groups [(id, offset)], size
        self.file = open(path, "w+b")  # noqa: SIM115 (kept open until commit)
        self.file.write(b"\x00" * 8)

    @classmethod
    def reopen(cls, path, shard_id, header):
        """The writer of an existing data file (checked by ShardFile), to append rows."""
        self = cls.__new__(cls)
        self.path, self.shard_id = path, shard_id
        self.header_size, self.page_size = header["header_size"], header["page_size"]
        self.pages = [{"id": p["page_id"], "type": p["page_type"], "type_id": p["page_type_id"],
                       "start": p["start_row_id"], "end": p["end_row_id"],
                       "groups": [(g["id"], g["offset"]) for g in p["row_group_ids"]]
                       if p["page_type"] == "RAW_DATA" else [], "size": p["page_size"]}
                      for p in sorted(header["page"], key=lambda p: p["page_id"])]
        if [p["id"] for p in self.pages] != list(range(len(self.pages))):
            raise _fail(path, "its page ids are not 0, 1, 2, ...: it cannot be appended to")
        self.file = open(path, "r+b")  # noqa: SIM115 (kept open until commit)
        return self

    def _last(self, kind):
        for page in reversed(self.pages):
            if page["type"] == kind:
                return page
        return None

    def _write_at(self, page_id, offset, chunks):
        self.file.seek(self.header_size + page_id * self.page_size + offset)
        for c in chunks:
            self.file.write(c)

    def _new_page(self, kind, type_id, start=0, end=0, groups=None, size=0):
        page = {"id": len(self.pages), "type": kind, "type_id": type_id, "start": start,
                "end": end, "groups": list(groups or []), "size": size}
        self.pages.append(page)
        return page

    def write(self, raws, blobs):
        """Append rows: raws[i] and blobs[i] are the encoded raw record and blob of row i."""
        n = len(raws)
        if not n:
            return
        raw_len = [8 + len(r) for r in raws]
        blob_len = [8 + len(b) for b in blobs]
        P = self.page_size
        last_blob, last_raw = self._last("BLOB_DATA"), self._last("RAW_DATA")
        n_blob = last_blob["size"] if last_blob else 0
        n_raw = last_raw["size"] - last_raw["groups"][-1][1] if last_raw and last_raw["groups"] \
            else (last_raw["size"] if last_raw else 0)
        groups, start = [], 0
        for i in range(n):
            if n_blob == 0 or n_blob + blob_len[i] > P or n_raw + raw_len[i] > P:
                groups.append((start, i))
                start, n_blob, n_raw = i, blob_len[i], raw_len[i]
            else:
                n_blob += blob_len[i]
                n_raw += raw_len[i]
        groups.append((start, n))

        def blob_chunks(a, b):
            for j in range(a, b):
                yield struct.pack("<Q", len(blobs[j]))
                yield blobs[j]

        first = groups[0]
        if first[0] != first[1]:  # rows that continue the last blob page's row group
            self._write_at(last_blob["id"], last_blob["size"], blob_chunks(*first))
            last_blob["size"] += sum(blob_len[first[0]:first[1]])
            last_blob["end"] += first[1] - first[0]
        type_id = last_blob["type_id"] if last_blob else -1
        row = last_blob["end"] if last_blob else 0
        for a, b in groups[1:]:
            type_id += 1
            page = self._new_page("BLOB_DATA", type_id, row, row + b - a,
                                  size=sum(blob_len[a:b]))
            self._write_at(page["id"], 0, blob_chunks(a, b))
            row += b - a
        if first[0] != first[1] and sum(raw_len[first[0]:first[1]]) + last_raw["size"] > P:
            # the continued row group moves to a new raw page, so it stays in one page
            gid, offset = last_raw["groups"].pop()
            self.file.seek(self.header_size + last_raw["id"] * P + offset)
            moved = self.file.read(last_raw["size"] - offset)
            last_raw["size"] = offset
            page = self._new_page("RAW_DATA", last_raw["id"] + 1, groups=[(gid, 0)],
                                  size=len(moved))
            self._write_at(page["id"], 0, [moved])
            last_raw = page
        last_gid = last_raw["groups"][-1][0] if last_raw and last_raw["groups"] else -1
        for k, (a, b) in enumerate(groups):
            if a == b:
                continue
            size = sum(raw_len[a:b])
            if last_raw is None or last_raw["size"] + size > P:
                last_raw = self._new_page("RAW_DATA", last_raw["id"] + 1 if last_raw else 0)
            if k > 0:
                last_gid += 1
                last_raw["groups"].append((last_gid, last_raw["size"]))
            self._write_at(last_raw["id"], last_raw["size"],
                           (c for j in range(a, b)
                            for c in (struct.pack("<Q", len(raws[j])), raws[j])))
            last_raw["size"] += size

    def page_json(self):
        out = []
        for p in self.pages:
            groups = p["groups"] or [(0, 0)]
            out.append({"end_row_id": p["end"], "page_id": p["id"], "page_size": p["size"],
                        "page_type": p["type"], "page_type_id": p["type_id"],
                        "row_group_ids": [{"id": g, "offset": o} for g, o in groups],
                        "shard_id": self.shard_id, "start_row_id": p["start"]})
        return out

    def finish(self, header):
        data = json.dumps(header, separators=(",", ":"),
                          ensure_ascii=False).encode("utf-8")
        if len(data) + 8 > self.header_size:
            raise RuntimeError(f"The MindRecord header of {self.path!r} needs {len(data) + 8} "
                               f"bytes, more than the header size {self.header_size}: call "
                               f"set_header_size with a larger size")
        self.file.seek(0)
        self.file.write(struct.pack("<Q", len(data)) + data)
        end = max([self.header_size + p["id"] * self.page_size + p["size"] for p in self.pages],
                  default=8 + len(data))
        self.file.truncate(max(end, 8 + len(data)))
        self.file.close()


def _sorted(value):
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def header_json(schema, desc, blob_fields, index_fields, shard_names, shard_id, pages,
                header_size, page_size, compression_size):
    """The header of one data file, its keys in the order MindSpore writes them."""
    return {"header_size": header_size,
            "index_fields": [{"index_field": f, "schema_id": 0} for f in index_fields] or None,
            "page": _sorted(pages), "page_size": page_size, "compression_size": compression_size,
            "schema": _sorted([{"blob_fields": list(blob_fields), "desc": desc or "",
                                "schema": schema}]),
            "shard_addresses": list(shard_names), "shard_id": shard_id, "statistics": None,
            "version": VERSION}


def write_index(db_path, shard_name, schema, index_fields, rows):
    """The SQLite index of one data file; rows: (row_id, raw page, raw start, raw end, group,
    blob page, blob start, blob end, {field: value})."""
    cols = ("  ROW_ID               INT  NOT NULL, PAGE_ID_RAW          INT  NOT NULL"
            ", PAGE_OFFSET_RAW      INT  NOT NULL, PAGE_OFFSET_RAW_END  INT  NOT NULL"
            ", ROW_GROUP_ID         INT  NOT NULL, PAGE_ID_BLOB         INT  NOT NULL"
            ", PAGE_OFFSET_BLOB     INT  NOT NULL, PAGE_OFFSET_BLOB_END INT  NOT NULL")
    for k, f in enumerate(index_fields):
        cols += f",INC_{k} INT, {f}_0 {SQL_TYPES[schema[f]['type']]}"
    keys = "".join(f",INC_{k}" for k in range(len(index_fields)))
    names = ("ROW_ID,PAGE_ID_RAW,PAGE_OFFSET_RAW,PAGE_OFFSET_RAW_END,ROW_GROUP_ID,PAGE_ID_BLOB,"
             "PAGE_OFFSET_BLOB,PAGE_OFFSET_BLOB_END" +
             "".join(f",INC_{k},{f}_0" for k, f in enumerate(index_fields)))
    marks = ",".join("?" * (8 + 2 * len(index_fields)))
    con = sqlite3.connect(db_path)
    try:
        con.execute(f"CREATE TABLE INDEXES({cols}, PRIMARY KEY(ROW_ID{keys}));")
        con.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL);")
        con.execute("INSERT INTO SHARD_NAME (NAME) VALUES (?);", (shard_name,))
        con.executemany(f"INSERT INTO INDEXES ({names}) VALUES ({marks})",
                        (tuple(r[:8]) + tuple(v for f in index_fields for v in (0, r[8][f]))
                         for r in rows))
        con.commit()
    finally:
        con.close()


# ---- reading -----------------------------------------------------------------------------------

def _fail(path, detail):
    return RuntimeError(f"Invalid MindRecord file {path!r}: {detail}")


def _int(value, path, what, low=0, high=None):
    if not isinstance(value, int) or isinstance(value, bool) or value < low or \
            (high is not None and value > high):
        rng = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise _fail(path, f"header field {what} must be an int {rng}, but got {value!r}")
    return value


def read_header(path, func="MindRecord"):
    """(header dict, file size) of the data file `path`, checked field by field."""
    try:
        f, size = _files.open_regular(path, func, RuntimeError, max_size=MAX_FILE_BYTES,
                                      what="a MindRecord file")
    except FileNotFoundError:
        raise RuntimeError(f"For '{func}', the MindRecord file {path!r} does not exist") from None
    with f:
        head = f.read(8)
        if len(head) < 8:
            raise _fail(path, f"it has {size} bytes, too few for a MindRecord header")
        n = struct.unpack("<Q", head)[0]
        if n == 0 or n + 8 > min(size, MAX_HEADER_SIZE):
            raise _fail(path, f"the header length {n} does not fit in the file ({size} bytes) "
                              f"and the largest header size ({MAX_HEADER_SIZE})")
        raw = f.read(n)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise _fail(path, f"the header is not valid JSON ({e})") from None
    return check_header(header, path, size), size


def check_header(h, path, size):
    if not isinstance(h, dict):
        raise _fail(path, "the header is not a JSON object")
    for key in ("header_size", "page_size", "page", "schema", "shard_addresses", "shard_id"):
        if key not in h:
            raise _fail(path, f"the header has no '{key}'")
    hs = _int(h["header_size"], path, "header_size", MIN_HEADER_SIZE, MAX_HEADER_SIZE)
    ps = _int(h["page_size"], path, "page_size", MIN_PAGE_SIZE, MAX_PAGE_SIZE)
    if not isinstance(h["schema"], list) or len(h["schema"]) != 1 or \
            not isinstance(h["schema"][0], dict):
        raise _fail(path, "the header must hold exactly one schema")
    entry = h["schema"][0]
    schema = entry.get("schema")
    problem = schema_problem(schema)
    if problem:
        raise _fail(path, f"bad schema: {problem}")
    blob = entry.get("blob_fields", [])
    if not isinstance(blob, list) or blob != blob_fields_of(schema):
        raise _fail(path, f"blob_fields {blob!r} do not match the schema (expected "
                          f"{blob_fields_of(schema)})")
    addrs = h["shard_addresses"]
    if not isinstance(addrs, list) or not 1 <= len(addrs) <= MAX_SHARD_COUNT or \
            not all(isinstance(a, str) and a and os.path.basename(a) == a and a not in (".", "..")
                    for a in addrs):
        raise _fail(path, f"shard_addresses must be 1 to {MAX_SHARD_COUNT} plain file names, "
                          f"but got {str(addrs)[:200]}")
    _int(h["shard_id"], path, "shard_id", 0, len(addrs) - 1)
    index = h.get("index_fields") or []
    if not isinstance(index, list) or not all(
            isinstance(i, dict) and i.get("index_field") in schema and
            schema[i["index_field"]]["type"] in SQL_TYPES and "shape" not in
            schema[i["index_field"]] for i in index):
        raise _fail(path, f"bad index_fields {str(index)[:200]}")
    pages = h["page"]
    if not isinstance(pages, list):
        raise _fail(path, "the header's 'page' is not a list")
    seen = set()
    for p in pages:
        if not isinstance(p, dict) or p.get("page_type") not in ("BLOB_DATA", "RAW_DATA"):
            raise _fail(path, f"bad page entry {str(p)[:200]}")
        pid = _int(p.get("page_id"), path, "page_id", 0, (MAX_FILE_BYTES - hs) // ps)
        if pid in seen:
            raise _fail(path, f"page {pid} is listed twice")
        seen.add(pid)
        psize = _int(p.get("page_size"), path, f"page_size of page {pid}", 0, ps)
        if hs + pid * ps + psize > size:
            raise _fail(path, f"page {pid} ({psize} bytes at offset {hs + pid * ps}) lies past "
                              f"the end of the file ({size} bytes): the file is truncated")
        _int(p.get("page_type_id"), path, f"page_type_id of page {pid}")
        start = _int(p.get("start_row_id"), path, f"start_row_id of page {pid}")
        _int(p.get("end_row_id"), path, f"end_row_id of page {pid}", start if
             p["page_type"] == "BLOB_DATA" else 0)
        groups = p.get("row_group_ids")
        if not isinstance(groups, list) or not all(
                isinstance(g, dict) and isinstance(g.get("id"), int) and
                isinstance(g.get("offset"), int) and 0 <= g["offset"] <= psize for g in groups):
            raise _fail(path, f"bad row_group_ids of page {pid}")
    return h


class ShardFile:
    """The rows of one data file: raw fields decoded, blobs located (read on demand)."""

    def __init__(self, path, func):
        self.path = path
        self.header, self.size = read_header(path, func)
        h = self.header
        self.header_size, self.page_size = h["header_size"], h["page_size"]
        entry = h["schema"][0]
        self.schema = entry["schema"]
        self.desc = entry.get("desc", "")
        self.layout = Layout(self.schema, entry["blob_fields"])
        self.index_fields = [i["index_field"] for i in (h.get("index_fields") or [])]
        self._load_rows()

    def _records(self, data, start, end, count, what):
        """(offset, length) of `count` length-prefixed records from data[start:end]."""
        out, pos = [], start
        for _ in range(count):
            if pos + 8 > end:
                raise _fail(self.path, f"{what} ends before its row {len(out)}")
            n = struct.unpack("<Q", data[pos:pos + 8])[0]
            if n > end - pos - 8:
                raise _fail(self.path, f"{what}: row {len(out)} claims {n} bytes, only "
                                       f"{end - pos - 8} are left in the page")
            out.append((pos + 8, n))
            pos += 8 + n
        return out, pos

    def _page_bytes(self, f, page):
        f.seek(self.header_size + page["page_id"] * self.page_size)
        data = f.read(page["page_size"])
        if len(data) != page["page_size"]:
            raise _fail(self.path, f"page {page['page_id']} is truncated")
        return data

    def _load_rows(self):
        pages = self.header["page"]
        blob_pages = sorted((p for p in pages if p["page_type"] == "BLOB_DATA"),
                            key=lambda p: p["page_type_id"])
        raw_pages = sorted((p for p in pages if p["page_type"] == "RAW_DATA"),
                           key=lambda p: p["page_id"])
        group_rows = {}
        self.blob_at = []  # absolute (offset, length) of each row's blob
        blob_loc, raw_loc = [], {}
        f, _ = _files.open_regular(self.path, "MindRecord", RuntimeError,
                                   max_size=MAX_FILE_BYTES)
        with f:
            expected = 0
            for p in blob_pages:
                if p["page_type_id"] in group_rows or p["start_row_id"] != expected:
                    raise _fail(self.path, f"blob page {p['page_id']} (row group "
                                           f"{p['page_type_id']}) breaks the row order")
                count = p["end_row_id"] - p["start_row_id"]
                if count * 8 > p["page_size"]:
                    raise _fail(self.path, f"blob page {p['page_id']} claims {count} rows in "
                                           f"{p['page_size']} bytes")
                base = self.header_size + p["page_id"] * self.page_size
                recs, _ = self._records(self._lengths_reader(f, base), 0, p["page_size"],
                                        count, f"blob page {p['page_id']}")
                self.blob_at += [(base + o, n) for o, n in recs]
                blob_loc += [(p["page_type_id"], p["page_id"], o - 8, o + n) for o, n in recs]
                group_rows[p["page_type_id"]] = count
                expected = p["end_row_id"]
            self.raw = []
            done = set()
            for p in raw_pages:
                data = self._page_bytes(f, p)
                groups = sorted(((g["id"], g["offset"]) for g in p["row_group_ids"]),
                                key=lambda g: g[1])
                for gid, offset in groups:
                    if gid not in group_rows or gid in done:
                        if p["page_size"] == 0 or (gid == 0 and offset == 0 and not group_rows):
                            continue
                        raise _fail(self.path, f"raw page {p['page_id']} names row group "
                                               f"{gid}, which has no blob page or is repeated")
                    done.add(gid)
                    recs, _ = self._records(data, offset, p["page_size"], group_rows[gid],
                                            f"raw page {p['page_id']}")
                    self.raw.append((gid, [data[o:o + n] for o, n in recs]))
                    raw_loc[gid] = [(p["page_id"], o - 8, o + n) for o, n in recs]
            if done != set(group_rows):
                raise _fail(self.path, f"row groups {sorted(set(group_rows) - done)} have no "
                                       f"raw rows")
        self.raw.sort(key=lambda g: g[0])
        self.raw = [r for _, rows in self.raw for r in rows]
        self.num_rows = len(self.blob_at)
        raw_flat = [loc for gid in sorted(raw_loc) for loc in raw_loc[gid]]
        self.locations = [(r[0], r[1], r[2], b[0], b[1], b[2], b[3])
                          for r, b in zip(raw_flat, blob_loc)]

    class _lengths_reader:
        """Slices of a page read straight from the file (only the 8-byte lengths are read)."""

        def __init__(self, f, base):
            self.f, self.base = f, base

        def __getitem__(self, s):
            self.f.seek(self.base + s.start)
            return self.f.read(s.stop - s.start)

    def raw_row(self, i):
        where = f"row {i} of {self.path!r}"
        try:
            value = _msgpack.unpack(self.raw[i])
        except ValueError as e:
            raise _fail(self.path, f"the raw fields of row {i} are corrupt ({e})") from None
        if not isinstance(value, dict):
            raise _fail(self.path, f"the raw fields of {where} are not a map")
        return value

    def blob_row(self, i, fd):
        offset, n = self.blob_at[i]
        data = os.pread(fd, n, offset)
        if len(data) != n:
            raise _fail(self.path, f"the blob of row {i} is truncated")
        try:
            return self.layout.decode_blob(data, f"row {i}")
        except ValueError as e:
            raise _fail(self.path, str(e)) from None


def column_value(schema, name, value, path, i, numpy_out=True):
    """A field of row i as MindDataset gives it (a NumPy array)."""
    spec = schema[name]
    kind = spec["type"]
    if kind == "bytes":
        return np.array([bytes(value)]) if len(value) else np.array([b""], dtype="S1")
    if "shape" in spec:
        dtype = np.dtype(kind).newbyteorder("<")
        if len(value) % dtype.itemsize:
            raise _fail(path, f"field '{name}' of row {i} has {len(value)} bytes, not a "
                              f"multiple of {kind}")
        arr = np.frombuffer(value, dtype).astype(kind)
        try:
            return arr.reshape(spec["shape"])
        except ValueError:
            raise _fail(path, f"field '{name}' of row {i} has {arr.size} elements, which do not "
                              f"fit the shape {spec['shape']}") from None
    if kind == "string":
        if not isinstance(value, str):
            raise _fail(path, f"field '{name}' of row {i} is not a string")
        return np.array(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            (kind.startswith("int") and not isinstance(value, int)):
        raise _fail(path, f"field '{name}' of row {i} is not a {kind} number: {value!r}")
    try:
        return np.array(value, dtype=kind)
    except OverflowError:
        raise _fail(path, f"field '{name}' of row {i} is out of the {kind} range: "
                          f"{value!r}") from None
