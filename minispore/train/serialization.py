"""Checkpoints: `save_checkpoint`, `load_checkpoint`, `load_param_into_net`, in MindSpore's `.ckpt`
format and in safetensors.

A `.ckpt` file is MindSpore's protobuf (checkpoint.proto, proto2)::

    message Checkpoint {
      message Value {
        required string tag = 1;
        oneof value { TensorProto tensor = 2; MapTensorProto maptensor = 3; }
      }
      repeated Value value = 1;
    }
    message TensorProto {
      repeated int64 dims = 1; required string tensor_type = 2; required bytes tensor_content = 3;
    }

MindSpore writes a tensor of more than 512 MiB as consecutive Values with the same tag, each with
the full dims and a slice of the bytes; a 0-d tensor with no dims; a string from `append_dict` as
dims [0], type "str" and UTF-32-LE content. With `crc_check` the file ends in `b"crc_num"` and the
CRC-32 of everything before it in 10 big-endian bytes.

The reader and writer here are written for this one schema rather than with the `protobuf`
package: that would be a second runtime dependency with generated code tied to its version; it
parses a whole file into memory before anything can be checked; and it accepts what must be
refused (content shorter than its shape, negative dims, unknown fields). The reader streams. It
walks the file's structure first, checking every varint, length and offset against the bytes left
in the enclosing message, and every selected entry's dims and dtype against its content length;
only then does it allocate each array, at its validated size, and read the bytes into it. Nothing
in a checkpoint is ever unpickled or executed, and a file that fails a check is refused with a
`CheckpointError` (a ValueError) naming the file and the entry.
"""
import binascii
import io
import json
import math
import os
import stat
import tempfile
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..common import dtype as mstype
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..nn.cell import Cell

__all__ = ["CheckpointError", "async_ckpt_thread_status", "ckpt_to_safetensors",
           "load_checkpoint", "load_checkpoint_async", "load_param_into_net",
           "safetensors_to_ckpt", "save_checkpoint"]


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read: corrupt, truncated, hostile or of another format."""


# MindSpore's tensor_type strings -> dtype of the stored (little-endian) bytes. Bool is read as
# bytes and checked to be 0 or 1; BFloat16, which NumPy lacks, is widened exactly to float32.
_CKPT_TYPES = {
    "Bool": "|u1", "Int8": "|i1", "UInt8": "|u1", "Int16": "<i2", "UInt16": "<u2",
    "Int32": "<i4", "UInt32": "<u4", "Int64": "<i8", "UInt64": "<u8", "Float16": "<f2",
    "Float32": "<f4", "Float64": "<f8", "Complex64": "<c8", "Complex128": "<c16",
    "BFloat16": "<u2",
}
# safetensors dtype names -> the tensor_type names above (read the same way).
_ST_TYPES = {
    "BOOL": "Bool", "I8": "Int8", "U8": "UInt8", "I16": "Int16", "U16": "UInt16",
    "I32": "Int32", "U32": "UInt32", "I64": "Int64", "U64": "UInt64", "F16": "Float16",
    "F32": "Float32", "F64": "Float64", "C64": "Complex64", "BF16": "BFloat16",
}
_STR = "str"
_MAX_NDIM = 32
_MAX_TYPE_LEN = 64  # longer tensor_type strings are not read: no known type is that long
_SLICE_BYTES = 512 * 1024 * 1024  # MindSpore's slice size for large tensors
_CRC_MAGIC = b"crc_num"
_CRC_TRAILER = len(_CRC_MAGIC) + 10
_ST_STRING = "string:"  # safetensors metadata key prefix of a string entry (MindSpore has none)
_FOREIGN = (
    (b"PK\x03\x04", ("a zip archive (a PyTorch .pt/.pth file or a NumPy .npz), not a "
                     "MindSpore checkpoint; it is not opened")),
    (b"\x93NUMPY", "a NumPy .npy file, not a MindSpore checkpoint"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file, not a MindSpore checkpoint"),
    (b"\x80", "a Python pickle, not a MindSpore checkpoint; checkpoints are never unpickled"),
)


# ---- argument checks ------------------------------------------------------------------------

def _check_bool(func, name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"For '{func}', '{name}' must be a bool, but got {type(value).__name__}")
    return bool(value)


def _check_format(func, format):
    if format not in ("ckpt", "safetensors"):
        raise ValueError(f"For '{func}', 'format' must be 'ckpt' or 'safetensors', but got "
                         f"{format!r}")


def _check_prefix(name, prefix):
    """None, or a tuple of non-empty str prefixes."""
    if prefix is None:
        return None
    if isinstance(prefix, str):
        prefix = (prefix,)
    if not isinstance(prefix, (list, tuple)):
        raise TypeError(f"For 'load_checkpoint', '{name}' must be a str, list[str] or tuple[str], "
                        f"but got {type(prefix).__name__}")
    if not prefix:
        raise ValueError(f"For 'load_checkpoint', '{name}' must not be an empty "
                         f"{type(prefix).__name__}")
    for i, p in enumerate(prefix):
        if not isinstance(p, str):
            raise TypeError(f"For 'load_checkpoint', every element of '{name}' must be a str, but "
                            f"element {i} is {type(p).__name__}")
        if not p:
            raise ValueError(f"For 'load_checkpoint', '{name}' must not contain ''")
    return tuple(prefix)


def _file_name(func, ckpt_file_name):
    if isinstance(ckpt_file_name, os.PathLike):
        ckpt_file_name = os.fspath(ckpt_file_name)
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"For '{func}', 'ckpt_file_name' must be a str, but got "
                        f"{type(ckpt_file_name).__name__}")
    return ckpt_file_name


# ---- what to save ---------------------------------------------------------------------------

def _items_of(save_obj, choice_func):
    """(name, Tensor | ndarray | str) pairs to save, in order."""
    chosen = (lambda name: True) if choice_func is None else choice_func
    items = []
    if isinstance(save_obj, Cell):
        for _, p in save_obj.parameters_and_names():
            if chosen(p.name):
                items.append((p.name, p))
    elif isinstance(save_obj, list):
        as_dicts = bool(save_obj) and isinstance(save_obj[0], dict)
        for i, entry in enumerate(save_obj):
            if as_dicts:
                if not (isinstance(entry, dict) and "name" in entry and "data" in entry):
                    raise TypeError(f"For 'save_checkpoint', 'save_obj' is a list of dicts, so "
                                    f"every element must be a dict with keys 'name' and 'data', "
                                    f"but element {i} is {entry!r:.80}")
                name, data = entry["name"], entry["data"]
                if not isinstance(name, str):
                    raise TypeError(f"For 'save_checkpoint', the 'name' of element {i} of "
                                    f"'save_obj' must be a str, but got {type(name).__name__}")
                if not isinstance(data, Tensor):
                    raise TypeError(f"For 'save_checkpoint', the 'data' of element {i} "
                                    f"({name!r}) of 'save_obj' must be a Parameter or Tensor, "
                                    f"but got {type(data).__name__}")
            elif isinstance(entry, Parameter):
                name, data = entry.name, entry
            else:
                raise TypeError(f"For 'save_checkpoint', 'save_obj' is a list of Parameters, but "
                                f"element {i} is {type(entry).__name__}")
            if chosen(name):
                items.append((name, data))
    elif isinstance(save_obj, dict):
        for name, data in save_obj.items():
            if not isinstance(name, str):
                raise TypeError(f"For 'save_checkpoint', the keys of 'save_obj' must be str, but "
                                f"got {type(name).__name__}")
            if not isinstance(data, (Tensor, np.ndarray, str)):
                raise TypeError(f"For 'save_checkpoint', 'save_obj'[{name!r}] must be a Parameter, "
                                f"Tensor, NumPy array or str, but got {type(data).__name__}")
            if chosen(name):
                items.append((name, data))
    else:
        raise TypeError(f"For 'save_checkpoint', 'save_obj' must be a Cell, list or dict, but got "
                        f"{type(save_obj).__name__}")
    return items


def _append_items(append_dict):
    """append_dict's entries as (name, Tensor | str): ints become int64, floats float32, bools
    Bool 0-d tensors, as in MindSpore."""
    if append_dict is None:
        return []
    if not isinstance(append_dict, dict):
        raise TypeError(f"For 'save_checkpoint', 'append_dict' must be a dict, but got "
                        f"{type(append_dict).__name__}")
    items = []
    for name, value in append_dict.items():
        if not isinstance(name, str) or not isinstance(value, (int, float, str, Tensor)):
            raise TypeError(f"For 'save_checkpoint', 'append_dict' must map str to int, float, "
                            f"bool, str, Parameter or Tensor, but got key {type(name).__name__} "
                            f"with value {type(value).__name__}")
        if not isinstance(value, (str, Tensor)):
            try:
                value = Tensor(value)
            except ValueError as e:
                raise ValueError(f"For 'save_checkpoint', append_dict[{name!r}] = {value!r} cannot "
                                 f"be stored: {e}") from None
        items.append((name, value))
    return items


def _snapshot(items, copy, format):
    """(name, little-endian contiguous ndarray | str) pairs; every name and dtype checked
    before anything is copied."""
    seen = set()
    for name, _ in items:
        if name in seen:
            raise ValueError(f"For 'save_checkpoint', the name {name!r} appears twice among the "
                             "parameters and 'append_dict': a checkpoint holds one entry per name")
        seen.add(name)
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"For 'save_checkpoint', the name {name!r} is not valid Unicode "
                             "(it holds a lone surrogate)") from None
    arrays = [(name, v if isinstance(v, (str, np.ndarray)) else v._data) for name, v in items]
    for name, arr in arrays:
        if isinstance(arr, str):
            continue
        if arr.dtype.newbyteorder("=") not in mstype.NP_TO_MS:
            raise TypeError(f"For 'save_checkpoint', {name!r} has dtype {arr.dtype}, which no "
                            "checkpoint holds")
        if format == "safetensors" and arr.dtype.kind == "c" and arr.dtype.itemsize == 16:
            raise TypeError(f"For 'save_checkpoint', {name!r} is complex128, which safetensors "
                            "cannot store: save it with format='ckpt'")
    # (np.array, not np.ascontiguousarray, which turns a 0-d array into 1-d)
    return [(name, arr if isinstance(arr, str) else
             np.array(arr, dtype=arr.dtype.newbyteorder("<"), order="C",
                      copy=True if copy else None))
            for name, arr in arrays]


# ---- the .ckpt writer -----------------------------------------------------------------------

def _varint(n):
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _ckpt_type(arr):
    return str(mstype.NP_TO_MS[arr.dtype.newbyteorder("=")])


def _ckpt_entry_head(tag, dims, type_name, nbytes):
    """Bytes of one Value up to its tensor_content, field for field as protobuf writes them
    (MindSpore's own files are reproduced byte for byte)."""
    tensor = b"".join(b"\x08" + _varint(d) for d in dims)
    tensor += b"\x12" + _varint(len(type_name)) + type_name + b"\x1a" + _varint(nbytes)
    tensor_len = len(tensor) + nbytes
    value = b"\x0a" + _varint(len(tag)) + tag + b"\x12" + _varint(tensor_len)
    return b"\x0a" + _varint(len(value) + tensor_len) + value + tensor


def _write_ckpt(f, entries, crc_check):
    crc = 0
    for name, value in entries:
        tag = name.encode("utf-8")
        if isinstance(value, str):
            dims, type_name, content = [0], _STR.encode(), value.encode("utf-32-le")
        else:
            dims, type_name = list(value.shape), _ckpt_type(value).encode()
            content = value.reshape(-1).view(np.uint8)
        total = len(content)
        # perf: the content is written from the array itself, never copied into bytes
        for start in range(0, max(total, 1), _SLICE_BYTES):
            piece = content[start:start + _SLICE_BYTES]
            head = _ckpt_entry_head(tag, dims, type_name, len(piece))
            f.write(head)
            f.write(piece)
            if crc_check:
                crc = binascii.crc32(piece, binascii.crc32(head, crc))
    if crc_check:
        f.write(_CRC_MAGIC + crc.to_bytes(10, "big"))


def _write_safetensors(path, entries, crc_check, remove_redundancy):
    st = _import_safetensors("save_checkpoint")
    tensors, metadata, crc = {}, {"format": "ms"}, 0
    if remove_redundancy is not None:
        metadata["remove_redundancy"] = str(remove_redundancy)
    for name, value in sorted(entries, key=lambda e: e[0]):
        if isinstance(value, str):
            metadata[_ST_STRING + name] = value
            continue
        tensors[name] = value
        if crc_check:  # over the stored bytes, as MindSpore computes it
            crc = binascii.crc32(value.reshape(-1).view(np.uint8),
                                 binascii.crc32(name.encode("utf-8"), crc))
    if crc_check:
        metadata["crc_num"] = str(crc)
    st.numpy.save_file(tensors, path, metadata=metadata if len(metadata) > 1 or tensors else None)


def _save_path(ckpt_file_name, format):
    path = os.path.realpath(_file_name("save_checkpoint", ckpt_file_name))
    if not path.endswith(format):  # MindSpore's rule: 'net' -> 'net.ckpt', 'netckpt' stays
        path += "." + format
    if os.path.isdir(path):
        raise IsADirectoryError(f"For 'save_checkpoint', 'ckpt_file_name' {path!r} is a "
                                "directory, it must be a file name")
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"For 'save_checkpoint', the directory {folder!r} of "
                                f"{path!r} does not exist")
    return path


def _replace_atomically(path, fill):
    """Run fill(temp_path) on a new file beside `path`, then rename it over `path`: readers see
    the old file or the whole new one, never a part."""
    folder, base = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        fill(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _exec_save(path, entries, crc_check, format, remove_redundancy):
    if format == "ckpt":
        def fill(tmp):
            with open(tmp, "wb") as f:
                _write_ckpt(f, entries, crc_check)
    else:
        def fill(tmp):
            _write_safetensors(tmp, entries, crc_check, remove_redundancy)
    _replace_atomically(path, fill)


# One background save at a time (MindSpore's thread name, so async_ckpt_thread_status sees it).
_ASYNC_NAME = "asyn_save_ckpt"
_async_lock = threading.Lock()  # guards _async
_async_start_lock = threading.Lock()  # one caller at a time waits for the last save and starts
_async = {"thread": None, "error": None}


def _wait_async_save():
    """Wait for a running background save; re-raise its failure here, once."""
    thread = _async["thread"]
    if thread is not None:
        thread.join()
    with _async_lock:
        error, _async["error"] = _async["error"], None
        _async["thread"] = None
    if error is not None:
        path, exc = error
        raise RuntimeError(f"For 'save_checkpoint', the asynchronous save of {path!r} failed: "
                           f"{type(exc).__name__}: {exc}") from exc


def _async_save(path, entries, crc_check, format, remove_redundancy):
    try:
        _exec_save(path, entries, crc_check, format, remove_redundancy)
    except BaseException as e:  # noqa: BLE001  (handed to the next caller that waits)
        with _async_lock:
            _async["error"] = (path, e)


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False,
                    append_dict=None, enc_key=None, enc_mode="AES-GCM", choice_func=None,
                    crc_check=False, format="ckpt", **kwargs):
    """Save parameters to a checkpoint file, atomically (a temporary file renamed into place).

    Args:
        save_obj (Union[Cell, list, dict]): a Cell (every parameter, BatchNorm statistics
            included, under its `name`), a list of Parameters or of `{"name": str, "data":
            Tensor}` dicts, or a dict name -> Parameter, Tensor, NumPy array or str (such as
            `load_checkpoint`'s result).
        ckpt_file_name (str): the file; `.ckpt` (or `.safetensors`) is appended when the name
            does not end with the format's name. An existing file is replaced.
        integrated_save (bool): model-parallel merging in MindSpore; a single process has
            nothing to merge.
        async_save (Union[bool, str]): True, "thread" or "process": copy the values now and
            write in a background thread (minispore uses a thread for "process" too). A later
            save or load waits for it and raises its error, if any.
        append_dict (dict): extra entries, str -> int (stored as int64), float (float32), bool,
            str, Parameter or Tensor.
        enc_key (bytes): encryption is not supported: must be None.
        choice_func (callable): name -> bool; only parameters it accepts are saved
            (`append_dict` entries always are).
        crc_check (bool): append a CRC-32 of the content, checked by
            `load_checkpoint(..., crc_check=True)`.
        format (str): "ckpt" (MindSpore's protobuf) or "safetensors" (needs the `safetensors`
            package; entries sorted by name, strings kept in the metadata).
        kwargs: `remove_redundancy` (bool, recorded in safetensors metadata), `incremental` and
            `global_step_num` (accepted, unused).

    The file is readable and writable by its owner only (MindSpore makes it owner-read-only).
    Empty tensors are written with their shape; MindSpore 2.10 drops them when saving, and
    reads a shape-(0,) entry back as a 0-d tensor.

    Raises:
        TypeError: an argument of the wrong type, or an unsupported value in `save_obj`.
        ValueError: a bad `format` or `async_save`, or a name that appears twice.

    Example:
        >>> save_checkpoint(net, "./lenet.ckpt", append_dict={"epoch": 3})
    """
    _check_format("save_checkpoint", format)
    path = _save_path(ckpt_file_name, format)
    _check_bool("save_checkpoint", "integrated_save", integrated_save)
    if not isinstance(async_save, (bool, str)):
        raise TypeError(f"For 'save_checkpoint', 'async_save' must be a bool or str, but got "
                        f"{type(async_save).__name__}")
    if isinstance(async_save, str) and async_save not in ("process", "thread"):
        raise ValueError(f"For 'save_checkpoint', 'async_save' must be 'process' or 'thread' when "
                         f"it is a str, but got {async_save!r}")
    if enc_key is not None and not isinstance(enc_key, bytes):
        raise TypeError(f"For 'save_checkpoint', 'enc_key' must be None or bytes, but got "
                        f"{type(enc_key).__name__}")
    if not isinstance(enc_mode, str):
        raise TypeError(f"For 'save_checkpoint', 'enc_mode' must be a str, but got "
                        f"{type(enc_mode).__name__}")
    if choice_func is not None and not callable(choice_func):
        raise TypeError(f"For 'save_checkpoint', 'choice_func' must be callable, but got "
                        f"{type(choice_func).__name__}")
    crc_check = _check_bool("save_checkpoint", "crc_check", crc_check)
    unknown = set(kwargs) - {"remove_redundancy", "incremental", "global_step_num"}
    if unknown:
        raise TypeError(f"For 'save_checkpoint', unexpected keyword argument(s) "
                        f"{', '.join(sorted(unknown))}")
    remove_redundancy = kwargs.get("remove_redundancy")
    if remove_redundancy is not None:
        remove_redundancy = _check_bool("save_checkpoint", "remove_redundancy", remove_redundancy)
    if enc_key is not None:
        if format == "safetensors":
            raise ValueError("For 'save_checkpoint', 'enc_key' must be None when format is "
                             "'safetensors'")
        raise NotImplementedError("For 'save_checkpoint', encrypted checkpoints (enc_key) are not "
                                  "supported by minispore")
    if format == "safetensors":
        _import_safetensors("save_checkpoint")

    items = _items_of(save_obj, choice_func) + _append_items(append_dict)
    if not async_save:
        entries = _snapshot(items, False, format)
        _wait_async_save()
        _exec_save(path, entries, crc_check, format, remove_redundancy)
        return
    if not os.access(os.path.dirname(path), os.W_OK):
        raise PermissionError(f"For 'save_checkpoint', cannot write to the directory of {path!r}")
    entries = _snapshot(items, True, format)  # the values now, whatever training does next
    with _async_start_lock:
        _wait_async_save()
        thread = threading.Thread(target=_async_save, name=_ASYNC_NAME,
                                  args=(path, entries, crc_check, format, remove_redundancy))
        with _async_lock:
            _async["thread"] = thread
        thread.start()


def async_ckpt_thread_status():
    """True while an asynchronous `save_checkpoint` is still writing."""
    return any(t.name == _ASYNC_NAME and t.is_alive() for t in threading.enumerate())


# ---- the .ckpt reader -----------------------------------------------------------------------

class _Source:
    """Reads a checkpoint file front to back, never past `end` (the end of the message being
    read), keeping the position and what is being read for error messages."""

    __slots__ = ("f", "path", "pos", "where")

    def __init__(self, f, path):
        self.f, self.pos, self.path, self.where = f, 0, path, ""

    def fail(self, detail, at=None):
        where = f", {self.where}" if self.where else ""
        return CheckpointError(f"For 'load_checkpoint', the checkpoint file {self.path!r} cannot "
                               f"be read (byte {self.pos if at is None else at}{where}): {detail}")

    def varint(self, end):
        value = shift = 0
        read = self.f.read
        for _ in range(10):
            if self.pos >= end:
                raise self.fail("a varint runs past the end of its message")
            b = read(1)
            if not b:
                raise self.fail("the file ends inside a varint")
            self.pos += 1
            value |= (b[0] & 0x7F) << shift
            if b[0] < 0x80:
                if value >> 64:
                    raise self.fail("varint overflow: the value does not fit in 64 bits")
                return value
            shift += 7
        raise self.fail("varint overflow: more than 10 bytes")

    def length(self, end, what):
        n = self.varint(end)
        if n > end - self.pos:
            raise self.fail(f"{what} claims {n} bytes, but its enclosing message has only "
                            f"{end - self.pos} left")
        return n

    def read(self, n):
        b = self.f.read(n)
        if len(b) != n:
            raise self.fail("the file is shorter than when it was opened")
        self.pos += n
        return b

    def skip(self, n):
        self.f.seek(n, io.SEEK_CUR)
        self.pos += n


class _Entry:
    """One named tensor (or string) of a checkpoint: its type, dims and where its bytes are."""

    __slots__ = ("dims", "index", "name", "nbytes", "pieces", "type")

    def __init__(self, name, index, type_, dims, offset, nbytes):
        self.name, self.index, self.type, self.dims = name, index, type_, dims
        self.pieces, self.nbytes = [(offset, nbytes)], nbytes


def _wire_name(key):
    return f"field {key >> 3} of wire type {key & 7}"


def _add_dim(src, dims, v, at):
    if v >= 1 << 63:
        raise src.fail(f"dimension {v - (1 << 64)} is negative", at)
    if len(dims) == _MAX_NDIM:
        raise src.fail(f"the tensor has more than {_MAX_NDIM} dims", at)
    dims.append(v)


def _parse_tensor(src, end):
    """A TensorProto: (type str, dims list, content offset, content length)."""
    dims, type_, content = [], None, None
    while src.pos < end:
        at = src.pos
        key = src.varint(end)
        if key == 0x08:  # one dim, as MindSpore writes them
            _add_dim(src, dims, src.varint(end), at)
        elif key == 0x0A:  # packed dims, as protobuf may also write them
            stop = src.length(end, "the packed dims") + src.pos
            while src.pos < stop:
                _add_dim(src, dims, src.varint(stop), at)
        elif key == 0x12:
            if type_ is not None:
                raise src.fail("tensor_type appears twice", at)
            n = src.length(end, "tensor_type")
            if n > _MAX_TYPE_LEN:
                src.skip(n)
                type_ = f"<a {n}-byte string>"
            else:
                type_ = src.read(n).decode("utf-8", "replace")
        elif key == 0x1A:
            if content is not None:
                raise src.fail("tensor_content appears twice", at)
            n = src.length(end, "tensor_content")
            content = (src.pos, n)
            src.skip(n)
        else:
            raise src.fail(f"unexpected {_wire_name(key)} in a TensorProto", at)
    if type_ is None:
        raise src.fail("the tensor has no tensor_type")
    if content is None:
        raise src.fail("the tensor has no tensor_content")
    return type_, dims, content[0], content[1]


def _parse_value(src, end):
    """A Checkpoint.Value: (tag, type, dims, content offset, content length)."""
    tag = tensor = None
    while src.pos < end:
        at = src.pos
        key = src.varint(end)
        if key == 0x0A:
            if tag is not None:
                raise src.fail("the tag appears twice", at)
            raw = src.read(src.length(end, "the tag"))
            try:
                tag = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise src.fail(f"the tag {raw[:40]!r} is not UTF-8", at) from None
            src.where += f" {tag!r}"
        elif key == 0x12:
            if tensor is not None:
                raise src.fail("the tensor appears twice", at)
            n = src.length(end, "the tensor")
            tensor = _parse_tensor(src, src.pos + n)
        elif key == 0x1A:
            raise src.fail("the entry holds a MapParameter (maptensor), which minispore does not "
                           "support", at)
        else:
            raise src.fail(f"unexpected {_wire_name(key)} in a Checkpoint.Value", at)
    if tag is None:
        raise src.fail("the entry has no tag (name)")
    if tensor is None:
        raise src.fail("the entry has no tensor")
    return (tag,) + tensor


def _index_ckpt(src, end):
    """Every entry of the file, slices of one tensor merged, no content read."""
    entries, seen = [], {}
    count = 0
    while src.pos < end:
        src.where = f"entry {count}"
        at = src.pos
        key = src.varint(end)
        if key != 0x0A:
            raise src.fail(f"expected a Checkpoint value, found {_wire_name(key)}", at)
        n = src.length(end, "the entry")
        tag, type_, dims, offset, nbytes = _parse_value(src, src.pos + n)
        last = entries[-1] if entries else None
        if last is not None and last.name == tag:  # the next slice of a large tensor
            if (type_, dims) != (last.type, last.dims):
                raise src.fail(f"consecutive entries named {tag!r} disagree: {last.type} "
                               f"{last.dims} then {type_} {dims}", at)
            last.pieces.append((offset, nbytes))
            last.nbytes += nbytes
        elif tag in seen:
            raise src.fail(f"the name {tag!r} appears twice (entries {seen[tag]} and {count})", at)
        else:
            seen[tag] = count
            entries.append(_Entry(tag, count, type_, dims, offset, nbytes))
        count += 1
    return entries


def _entry_layout(e, fail):
    """(shape, stored dtype) of an entry, checked against its content length; shape None for
    a string."""
    if e.type == _STR:
        if e.dims != [0] or e.nbytes % 4:
            raise fail(f"string entry {e.name!r} has dims {e.dims} and {e.nbytes} bytes; a "
                       "string has dims [0] and 4 bytes per character")
        return None, None
    stored = _CKPT_TYPES.get(e.type)
    if stored is None:
        raise fail(f"entry {e.name!r} has the unknown tensor_type {e.type!r} (known: "
                   f"{', '.join(_CKPT_TYPES)}, str)")
    itemsize = np.dtype(stored).itemsize
    # MindSpore reads dims [0] as a 0-d tensor (it writes 0-d tensors without dims).
    shape = () if e.dims == [0] and e.nbytes == itemsize else tuple(e.dims)
    return _checked_shape(e.name, e.type, shape, itemsize, e.nbytes, fail), stored


def _checked_shape(name, type_name, shape, itemsize, nbytes, fail):
    need = math.prod(shape) * itemsize
    if need != nbytes:
        raise fail(f"entry {name!r} of shape {shape} and type {type_name} needs {need} bytes, "
                   f"but its content has {nbytes}")
    if math.prod(d for d in shape if d) * itemsize >= 1 << 62:
        raise fail(f"entry {name!r} has shape {shape}, too large for any array")
    return shape


def _finish(name, arr, type_name, fail):
    """The array as loaded: bools checked, bfloat16 widened, native byte order."""
    if type_name == "Bool":
        if arr.size and arr.max() > 1:
            raise fail(f"Bool entry {name!r} holds bytes other than 0 and 1")
        return arr.view(np.bool_)
    if type_name == "BFloat16":  # the high half of a float32: widening is exact
        return (arr.astype(np.uint32) << 16).view(np.float32)
    return arr.astype(arr.dtype.newbyteorder("="), copy=False)


def _read_pieces(f, pieces, buf, fail):
    at = 0
    for offset, n in pieces:
        f.seek(offset)
        stop = at + n
        while at < stop:
            got = f.readinto(buf[at:stop])
            if not got:
                raise fail("the file is shorter than when it was opened")
            at += got


def _read_entry(f, e, shape, stored, fail):
    if shape is None:
        buf = bytearray(e.nbytes)
        _read_pieces(f, e.pieces, memoryview(buf), fail)
        try:
            return bytes(buf).decode("utf-32-le").rstrip("\x00")
        except UnicodeDecodeError:
            raise fail(f"string entry {e.name!r} is not valid UTF-32") from None
    arr = np.empty(shape, stored)
    _read_pieces(f, e.pieces, memoryview(arr.reshape(-1).view(np.uint8)), fail)
    return _finish(e.name, arr, e.type, fail)


def _sniff(head, path, fmt_fail):
    for magic, what in _FOREIGN:
        if head.startswith(magic):
            raise fmt_fail(f"it is {what}")
    if len(head) >= 9 and head[8:9] == b"{" and int.from_bytes(head[:8], "little") < 1 << 32:
        raise fmt_fail("it looks like a safetensors file: load it with format='safetensors'")


def _open_regular(path, func):
    """(binary file, size); a FIFO, device or socket is refused (never read, never waited on)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise CheckpointError(f"For '{func}', {path!r} is not a regular file")
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return f, info.st_size


def _load_ckpt(path, chosen, crc_check):
    """name -> Parameter | str for the entries `chosen` accepts, in file order."""
    f, size = _open_regular(path, "load_checkpoint")
    with f:
        src = _Source(f, path)
        if size == 0:
            raise src.fail("the file is empty")
        _sniff(f.read(16), path, src.fail)
        end = size
        stored_crc = None
        if size >= _CRC_TRAILER:
            f.seek(size - _CRC_TRAILER)
            tail = f.read(_CRC_TRAILER)
            if tail.startswith(_CRC_MAGIC):
                end = size - _CRC_TRAILER
                stored_crc = int.from_bytes(tail[len(_CRC_MAGIC):], "big")
        if crc_check:
            if stored_crc is None:
                warnings.warn(f"For 'load_checkpoint', {path!r} holds no CRC to check",
                              stacklevel=3)
            elif _crc_of(f, end) != stored_crc:
                raise src.fail("the CRC check failed: the file is damaged", at=end)
        f.seek(0)
        entries = _index_ckpt(src, end)
        plan = []
        for e in entries:
            if chosen(e.name):
                src.where = f"entry {e.index} {e.name!r}"
                plan.append((e,) + _entry_layout(e, src.fail))
        out = {}
        for e, shape, stored in plan:
            src.where = f"entry {e.index} {e.name!r}"
            value = _read_entry(f, e, shape, stored, src.fail)
            out[e.name] = value if shape is None else _new_parameter(value, e.name)
    return out


def _crc_of(f, end):
    f.seek(0)
    crc, left = 0, end
    while left:
        chunk = f.read(min(left, 1 << 20))
        if not chunk:
            break
        crc = binascii.crc32(chunk, crc)
        left -= len(chunk)
    return crc


def _new_parameter(arr, name):
    p = Parameter(np.zeros((), arr.dtype), name=name)
    p._data = arr  # perf: adopt the array just read instead of copying it again
    return p


# ---- safetensors ----------------------------------------------------------------------------

def _import_safetensors(func):
    try:
        import safetensors
        import safetensors.numpy
    except ImportError:
        raise ImportError(f"For '{func}', format='safetensors' needs the 'safetensors' package: "
                          "pip install safetensors (or minispore[safetensors])") from None
    return safetensors


def _st_select(metadata, specs, chosen, crc_check, fail):
    """(strings, wanted names in sorted order, tensor names to read) of a safetensors file."""
    strings = {k[len(_ST_STRING):]: v for k, v in metadata.items()
               if k.startswith(_ST_STRING) and isinstance(v, str)}
    for k in strings:
        if k in specs:
            raise fail(f"the name {k!r} is both a tensor and a string")
    wanted = [k for k in sorted(set(specs) | set(strings)) if chosen(k)]
    read = sorted(specs) if crc_check else [k for k in wanted if k in specs]
    for k in read:
        if specs[k][0] not in _ST_TYPES:
            raise fail(f"tensor {k!r} has dtype {specs[k][0]}, which minispore cannot hold "
                       f"(known: {', '.join(_ST_TYPES)})")
        if metadata.get(k) == "Int4":
            raise fail(f"tensor {k!r} is MindSpore's packed Int4, which minispore does not "
                       "support")
    return strings, wanted, read


def _st_array(k, spec, data, fail):
    """The array of tensor `k` from its raw bytes (bfloat16 widened, bools checked)."""
    type_name = _ST_TYPES[spec[0]]
    stored = np.dtype(_CKPT_TYPES[type_name])
    shape = _checked_shape(k, type_name, spec[1], stored.itemsize, len(data), fail)
    return _finish(k, np.frombuffer(data, stored).reshape(shape).copy(), type_name, fail)


def _st_deserialize(st, data, fail):
    """(metadata, specs, raw bytes by name) of a whole safetensors file in memory."""
    try:
        views = st.deserialize(data)
    except Exception as e:  # noqa: BLE001  (the library's error for a malformed file)
        raise fail(f"{type(e).__name__}: {e}") from None
    raw = {k: v["data"] for k, v in views}
    specs = {k: (v["dtype"], tuple(v["shape"])) for k, v in views}
    n = int.from_bytes(data[:8], "little")  # valid: the library has just parsed it
    metadata = json.loads(data[8:8 + n]).get("__metadata__") or {}
    return metadata, specs, raw


def _load_safetensors(source, name, chosen, crc_check):
    st = _import_safetensors("load_checkpoint")

    def fail(detail):
        return CheckpointError(f"For 'load_checkpoint', the safetensors file {name!r} cannot be "
                               f"read: {detail}")

    arrays, raw = {}, None
    if isinstance(source, io.BytesIO):
        metadata, specs, raw = _st_deserialize(st, source.getvalue(), fail)
        strings, wanted, read = _st_select(metadata, specs, chosen, crc_check, fail)
        for k in read:
            arrays[k] = _st_array(k, specs[k], raw[k], fail)
    else:
        f, size = _open_regular(source, "load_checkpoint")
        f.close()
        if size == 0:
            raise fail("the file is empty")
        try:
            with st.safe_open(source, framework="np") as handle:
                metadata = handle.metadata() or {}
                specs = {}
                for k in handle.keys():  # noqa: SIM118  (a safe_open handle, not a dict)
                    sl = handle.get_slice(k)
                    specs[k] = (sl.get_dtype(), tuple(sl.get_shape()))
                strings, wanted, read = _st_select(metadata, specs, chosen, crc_check, fail)
                if any(specs[k][0] == "BF16" for k in read):
                    with open(source, "rb") as f:  # NumPy has no bfloat16: take the raw bytes
                        raw = _st_deserialize(st, f.read(), fail)[2]
                for k in read:
                    if specs[k][0] == "BF16":
                        arrays[k] = _st_array(k, specs[k], raw[k], fail)
                        continue
                    arr = handle.get_tensor(k)
                    if arr.dtype == np.bool_ and arr.size and arr.view(np.uint8).max() > 1:
                        raise fail(f"Bool tensor {k!r} holds bytes other than 0 and 1")
                    arrays[k] = arr if arr.flags.writeable and arr.flags.c_contiguous else \
                        np.array(arr, order="C")
        except CheckpointError:
            raise
        except Exception as e:  # noqa: BLE001  (the library's error for a malformed file)
            raise fail(f"{type(e).__name__}: {e}") from None
    if crc_check:
        stored_crc = metadata.get("crc_num")
        if stored_crc is None:
            warnings.warn(f"For 'load_checkpoint', {name!r} holds no CRC to check", stacklevel=3)
        else:
            crc = 0
            for k in sorted(specs):  # over the stored bytes, as MindSpore computes it
                data = raw[k] if specs[k][0] == "BF16" else arrays[k].reshape(-1).view(np.uint8)
                crc = binascii.crc32(data, binascii.crc32(k.encode("utf-8"), crc))
            if str(crc) != stored_crc:
                raise fail("the CRC check failed: the file is damaged")
    return {k: strings[k] if k in strings else _new_parameter(arrays[k], k) for k in wanted}


# ---- load -----------------------------------------------------------------------------------

def _chooser(specify_prefix, filter_prefix, choice_func):
    """MindSpore's selection: the prefixes, when given, override choice_func."""
    if specify_prefix is None and filter_prefix is None:
        return (lambda name: True) if choice_func is None else choice_func

    def chosen(name):
        if specify_prefix and not name.startswith(specify_prefix):
            return False
        return not (filter_prefix and name.startswith(filter_prefix))
    return chosen


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                    dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None,
                    crc_check=False, remove_redundancy=False, format="ckpt"):
    """Load a checkpoint file (and, with `net`, its values into the network).

    Args:
        ckpt_file_name (Union[str, io.BytesIO]): a file whose name ends with `format` (a BytesIO
            for safetensors only).
        net (Cell): if given, `load_param_into_net(net, result, strict_load)` runs on the result.
        strict_load (bool): see `load_param_into_net`.
        filter_prefix, specify_prefix (Union[str, list[str], tuple[str]]): skip the names that
            start with one of `filter_prefix`; keep only those that start with one of
            `specify_prefix`. Either overrides `choice_func`.
        dec_key (bytes): decryption is not supported: must be None.
        choice_func (callable): name -> bool; entries it rejects are not read.
        crc_check (bool): verify the CRC written by `save_checkpoint(..., crc_check=True)`
            (a warning if the file has none).
        remove_redundancy (bool): for data-parallel checkpoints in MindSpore; one process has
            every value, so nothing is restored.
        format (str): "ckpt" or "safetensors".

    Returns:
        dict: name -> Parameter (requires_grad True, named by its key), in file order (sorted
        for safetensors); strings from `append_dict` come back as str. BFloat16 entries are
        widened exactly to float32 (NumPy has no bfloat16).

    Raises:
        CheckpointError (a ValueError): a corrupt, truncated, hostile or foreign file, naming
            the file and the entry; nothing is loaded into `net`.
        ValueError: a missing file, a name not ending in `format`, or nothing left to load.
    """
    _check_format("load_checkpoint", format)
    _wait_async_save()  # the file may still be being written
    if isinstance(ckpt_file_name, io.BytesIO):
        if format == "ckpt":
            raise TypeError("For 'load_checkpoint', a BytesIO is only read with "
                            "format='safetensors'")
        name = "<BytesIO>"
    else:
        name = _file_name("load_checkpoint", ckpt_file_name)
        if not name.endswith(format):
            raise ValueError(f"For 'load_checkpoint', the file name must end with the format "
                             f"{format!r}, but got {name!r}")
        name = os.path.realpath(name)
        if not os.path.exists(name):
            raise ValueError(f"For 'load_checkpoint', the checkpoint file {name!r} does not exist")
        if os.path.isdir(name):
            raise CheckpointError(f"For 'load_checkpoint', {name!r} is a directory, not a "
                                  "checkpoint file")
    if net is not None and not isinstance(net, Cell):
        raise TypeError(f"For 'load_checkpoint', 'net' must be a Cell or None, but got "
                        f"{type(net).__name__}")
    strict_load = _check_bool("load_checkpoint", "strict_load", strict_load)
    filter_prefix = _check_prefix("filter_prefix", filter_prefix)
    specify_prefix = _check_prefix("specify_prefix", specify_prefix)
    if dec_key is not None and not isinstance(dec_key, bytes):
        raise TypeError(f"For 'load_checkpoint', 'dec_key' must be None or bytes, but got "
                        f"{type(dec_key).__name__}")
    if not isinstance(dec_mode, str):
        raise TypeError(f"For 'load_checkpoint', 'dec_mode' must be a str, but got "
                        f"{type(dec_mode).__name__}")
    if choice_func is not None and not callable(choice_func):
        raise TypeError(f"For 'load_checkpoint', 'choice_func' must be callable, but got "
                        f"{type(choice_func).__name__}")
    crc_check = _check_bool("load_checkpoint", "crc_check", crc_check)
    remove_redundancy = _check_bool("load_checkpoint", "remove_redundancy", remove_redundancy)
    if dec_key is not None:
        if format == "safetensors":
            raise ValueError("For 'load_checkpoint', 'dec_key' must be None when format is "
                             "'safetensors'")
        raise NotImplementedError("For 'load_checkpoint', encrypted checkpoints (dec_key) are not "
                                  "supported by minispore")

    chosen = _chooser(specify_prefix, filter_prefix, choice_func)
    if format == "ckpt":
        parameter_dict = _load_ckpt(name, chosen, crc_check)
    else:
        source = ckpt_file_name if isinstance(ckpt_file_name, io.BytesIO) else name
        parameter_dict = _load_safetensors(source, name, chosen, crc_check)
    if not parameter_dict:
        raise ValueError(f"For 'load_checkpoint', nothing was loaded from {name!r}: the file holds "
                         "no entries, or 'filter_prefix', 'specify_prefix' or 'choice_func' "
                         "rejected them all")
    if net is not None:
        load_param_into_net(net, parameter_dict, strict_load, remove_redundancy)
    return parameter_dict


class _ParamDictFuture:
    """What `load_checkpoint_async` returns: `result()` gives `load_checkpoint`'s dict."""

    def __init__(self, executor, future):
        self._executor, self._future = executor, future

    def result(self):
        try:
            return self._future.result()
        finally:
            self._executor.shutdown(wait=False)


def load_checkpoint_async(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                          dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None):
    """`load_checkpoint` in a background thread; `.result()` on the return value waits for it
    (and raises its error, if any). The format follows the file name's ending."""
    name = _file_name("load_checkpoint_async", ckpt_file_name)
    format = "safetensors" if name.endswith(".safetensors") else "ckpt"
    executor = ThreadPoolExecutor(max_workers=1)
    future = executor.submit(load_checkpoint, name, net, strict_load, filter_prefix, dec_key,
                             dec_mode, specify_prefix, choice_func, format=format)
    return _ParamDictFuture(executor, future)


_FLOATS = frozenset("efd")  # float16, float32, float64 (NumPy dtype chars)
_SIGNED = frozenset("bhilq")  # int8 .. int64


def _convertible(src, dst):
    """MindSpore converts between floats, or between signed ints, when not strict_load."""
    return ({src.char, dst.char} <= _FLOATS) or ({src.char, dst.char} <= _SIGNED)


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy values from `parameter_dict` into the parameters of `net` (each Parameter object is
    kept and written in place, bumping its version, so a value saved for a pending backward
    cannot be silently changed).

    Every net parameter whose `name` is a key is loaded. Unless `strict_load`, the rest are then
    matched by suffix: a key ending in a missing parameter's name fixes a prefix (`'net.'` in
    `'net.fc.weight'`), and every missing parameter found under that prefix is loaded; this
    repeats while new prefixes turn up. Unless `strict_load`, a float value is cast to a float
    parameter's dtype and an int value to an int parameter's; a value with extra trailing
    size-1 dims is reshaped to the parameter's shape.

    Everything is checked before anything is written: on any error no parameter changes.

    Args:
        net (Cell): the network.
        parameter_dict (dict): name -> Parameter or Tensor (str values are skipped), e.g. the
            result of `load_checkpoint`.
        strict_load (bool): exact names and dtypes only.
        remove_redundancy (bool): for data-parallel checkpoints in MindSpore; nothing to do in one
            process.

    Returns:
        tuple(list, list): `param_not_load`, the net's parameter names that got no value (in net
        order), and `ckpt_not_load`, the keys that were not used (in dict order).
        (MindSpore 2.10 also lists keys used by the suffix match in `ckpt_not_load`, contrary to
        its documentation; here they are not listed. MindSpore also leaves a trailing-1 value in
        its own shape, and silently skips a parameter whose key holds a str: here that parameter
        is in `param_not_load`.)

    Raises:
        TypeError: `net` not a Cell, `parameter_dict` not a dict of str -> Parameter/Tensor/str,
            or a dtype mismatch (any with `strict_load`; float vs int otherwise).
        ValueError: a shape mismatch. Messages name every mismatched parameter and both shapes
            or dtypes. (MindSpore raises RuntimeError here, after loading the parameters before.)
    """
    if not isinstance(net, Cell):
        raise TypeError(f"For 'load_param_into_net', 'net' must be a Cell, but got "
                        f"{type(net).__name__}")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"For 'load_param_into_net', 'parameter_dict' must be a dict, but got "
                        f"{type(parameter_dict).__name__}")
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, (Tensor, str)):
            raise TypeError(f"For 'load_param_into_net', 'parameter_dict' must map str to "
                            f"Parameter (or Tensor, or str), but got {type(key).__name__} -> "
                            f"{type(value).__name__}")
    strict_load = _check_bool("load_param_into_net", "strict_load", strict_load)
    _check_bool("load_param_into_net", "remove_redundancy", remove_redundancy)

    def usable(key):
        return key in parameter_dict and not isinstance(parameter_dict[key], str)

    plan, pending = [], []
    for _, p in net.parameters_and_names():
        if usable(p.name):
            plan.append((p, p.name))
        elif not (p.name.startswith("accu_grads") and p.name not in parameter_dict):
            pending.append(p)
    while pending and not strict_load:
        prefix = _next_prefix(pending, parameter_dict, usable)
        if prefix is None:
            break
        still = []
        for p in pending:
            if usable(prefix + p.name):
                plan.append((p, prefix + p.name))
            else:
                still.append(p)
        pending = still

    writes, shape_errors, dtype_errors = [], [], []
    for p, key in plan:
        arr, target = parameter_dict[key]._data, p._data
        if arr.shape != target.shape:
            n = target.ndim
            if arr.ndim > n and arr.shape[:n] == target.shape and \
                    all(d == 1 for d in arr.shape[n:]):
                arr = arr.reshape(target.shape)
            else:
                shape_errors.append(f"{p.name!r} has shape {target.shape} in the net but "
                                    f"{key!r} has shape {arr.shape} in 'parameter_dict'")
                continue
        if arr.dtype != target.dtype and (strict_load or not _convertible(arr.dtype,
                                                                           target.dtype)):
            dtype_errors.append(f"{p.name!r} has dtype {mstype.NP_TO_MS[target.dtype]} in the "
                                f"net but {key!r} has dtype {mstype.NP_TO_MS[arr.dtype]} in "
                                "'parameter_dict'")
            continue
        writes.append((p, arr))
    if shape_errors or dtype_errors:
        rule = "" if not dtype_errors else (
            " (strict_load=True needs equal dtypes)" if strict_load else
            " (only float -> float and int -> int are converted)")
        cls = ValueError if shape_errors else TypeError
        raise cls("For 'load_param_into_net', nothing was loaded: " +
                  "; ".join(shape_errors + dtype_errors) + rule)
    for p, arr in writes:
        p._write(arr)
    used = {key for _, key in plan}
    return [p.name for p in pending], [k for k in parameter_dict if k not in used]


def _next_prefix(pending, parameter_dict, usable):
    """The prefix of the first key (in dict order) that ends with the first pending name (in
    net order) having one; None when no pending name is a proper suffix of a usable key."""
    for p in pending:
        name = p.name
        for key in parameter_dict:
            if len(key) > len(name) and key.endswith(name) and usable(key):
                return key[:-len(name)]
    return None


# ---- format conversion ----------------------------------------------------------------------

def _convert(func, file_path, save_path, name_map, file_name_regex, processes_num, src, dst):
    import re
    if not isinstance(processes_num, int) or isinstance(processes_num, bool) or \
            processes_num < 1:
        raise ValueError(f"For '{func}', 'processes_num' must be a positive int, but got "
                         f"{processes_num!r}")
    if name_map is not None and not isinstance(name_map, dict):
        raise ValueError(f"For '{func}', 'name_map' must be a dict, but got "
                         f"{type(name_map).__name__}")
    if save_path and os.path.splitext(save_path)[1]:
        raise ValueError(f"For '{func}', 'save_path' must be a directory, but got {save_path!r}")
    file_path = _file_name(func, file_path)
    tasks = []
    if os.path.isdir(file_path):
        ranks = sorted(d for d in os.listdir(file_path)
                       if d.startswith("rank") and os.path.isdir(os.path.join(file_path, d)))
        if not ranks:
            raise ValueError(f"For '{func}', no directories starting with 'rank' found in "
                             f"{file_path!r}")
        for rank in ranks:
            folder = os.path.join(file_path, rank)
            out = os.path.join(save_path, rank) if save_path else folder
            for fn in sorted(os.listdir(folder)):
                if fn.endswith("." + src) and (file_name_regex is None or
                                               re.search(file_name_regex, fn)):
                    tasks.append((os.path.join(folder, fn), out))
    elif os.path.isfile(file_path):
        if not file_path.endswith("." + src):
            raise ValueError(f"For '{func}', the input file must be a .{src} file, but got "
                             f"{file_path!r}")
        if file_name_regex is not None and not re.search(file_name_regex, file_path):
            raise ValueError(f"For '{func}', the input file does not match 'file_name_regex'")
        tasks.append((file_path, save_path or os.path.dirname(os.path.realpath(file_path))))
    else:
        raise ValueError(f"For '{func}', 'file_path' must be a file or directory, but got "
                         f"{file_path!r}")
    # Sequential: NumPy reads and writes at disk speed; worker processes would buy nothing.
    for path, out in tasks:
        params = load_checkpoint(path, format=src)
        if name_map:
            params = {name_map.get(k, k): v for k, v in params.items()}
        os.makedirs(out, exist_ok=True)
        base = os.path.basename(path)[:-len(src)] + dst
        save_checkpoint(params, os.path.join(out, base), format=dst)


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None,
                        processes_num=1):
    """Convert a `.ckpt` file, or every `.ckpt` in the `rank*` folders of a directory, to
    `.safetensors` (beside it, or under `save_path`), renaming entries by `name_map`."""
    _convert("ckpt_to_safetensors", file_path, save_path, name_map, file_name_regex,
             processes_num, "ckpt", "safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None,
                        processes_num=1):
    """Convert a `.safetensors` file, or every one in the `rank*` folders of a directory, to
    `.ckpt` (beside it, or under `save_path`), renaming entries by `name_map`."""
    _convert("safetensors_to_ckpt", file_path, save_path, name_map, file_name_regex,
             processes_num, "safetensors", "ckpt")
