"""MindSpore's `.ckpt` file (protobuf, checkpoint.proto): a writer and a streaming reader for that
one schema, byte-identical with MindSpore's own files. The wire format, the slicing of large
tensors, the CRC trailer and the reader's checks are described in docs/checkpoint_format.md.

The reader walks the file's structure first, checking every varint, length and offset against
the bytes left in the enclosing message, and every selected entry's dims and dtype against its
content length; only then does it allocate each array, at its validated size. Nothing is ever
unpickled or executed; a file that fails a check raises `CheckpointError`, naming the file and
the entry.
"""
import binascii
import io
import math
import warnings

import numpy as np

from ..common import dtype as mstype
from ..common import _files

__all__ = ["CKPT_TYPES", "CheckpointError", "checked_shape", "finish_array", "open_regular",
           "read_ckpt", "write_ckpt"]


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read: corrupt, truncated, hostile or of another format."""


# MindSpore's tensor_type strings -> dtype of the stored (little-endian) bytes. Bool is read as
# bytes and checked to be 0 or 1; BFloat16, which NumPy lacks, is widened exactly to float32.
CKPT_TYPES = {
    "Bool": "|u1", "Int8": "|i1", "UInt8": "|u1", "Int16": "<i2", "UInt16": "<u2",
    "Int32": "<i4", "UInt32": "<u4", "Int64": "<i8", "UInt64": "<u8", "Float16": "<f2",
    "Float32": "<f4", "Float64": "<f8", "Complex64": "<c8", "Complex128": "<c16",
    "BFloat16": "<u2",
}
_STR = "str"  # the tensor_type of a string from append_dict
_MAX_NDIM = 32
_MAX_TYPE_LEN = 64  # longer tensor_type strings are not read: no known type is that long
_SLICE_BYTES = 512 * 1024 * 1024  # MindSpore's slice size for large tensors
_CRC_MAGIC = b"crc_num"
_CRC_TRAILER = len(_CRC_MAGIC) + 10
# A missing CRC is reported at the caller of load_checkpoint:
# _check_crc < read_ckpt < serialization._read < load_checkpoint < its caller.
_WARN_STACKLEVEL = 5
_FOREIGN = (
    (b"PK\x03\x04", ("a zip archive (a PyTorch .pt/.pth file or a NumPy .npz), not a "
                     "MindSpore checkpoint; it is not opened")),
    (b"\x93NUMPY", "a NumPy .npy file, not a MindSpore checkpoint"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file, not a MindSpore checkpoint"),
    (b"\x80", "a Python pickle, not a MindSpore checkpoint; checkpoints are never unpickled"),
)
# Field keys ((field number << 3) | wire type) of the schema.
_LEN = 2  # wire type of a length-delimited field
_KEY_VALUE = 1 << 3 | _LEN  # Checkpoint.value
_KEY_TAG = 1 << 3 | _LEN  # Value.tag
_KEY_TENSOR = 2 << 3 | _LEN  # Value.tensor
_KEY_MAPTENSOR = 3 << 3 | _LEN  # Value.maptensor
_KEY_DIM = 1 << 3  # TensorProto.dims, one varint
_KEY_DIMS_PACKED = 1 << 3 | _LEN  # TensorProto.dims, packed
_KEY_TYPE = 2 << 3 | _LEN  # TensorProto.tensor_type
_KEY_CONTENT = 3 << 3 | _LEN  # TensorProto.tensor_content


# ---- writer ---------------------------------------------------------------------------------

def _varint(n):
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(key, n):
    """The key and length of a length-delimited field whose n bytes follow."""
    return bytes([key]) + _varint(n)


def _entry_head(tag, dims, type_name, nbytes):
    """Bytes of one Value up to its tensor_content, field for field as protobuf writes them
    (MindSpore's own files are reproduced byte for byte)."""
    tensor = b"".join(bytes([_KEY_DIM]) + _varint(d) for d in dims)
    tensor += _field(_KEY_TYPE, len(type_name)) + type_name + _field(_KEY_CONTENT, nbytes)
    tensor_len = len(tensor) + nbytes
    value = _field(_KEY_TAG, len(tag)) + tag + _field(_KEY_TENSOR, tensor_len)
    return _field(_KEY_VALUE, len(value) + tensor_len) + value + tensor


def _wire_layout(value):
    """(dims, tensor_type bytes, content as a uint8 array or bytes) of one entry."""
    if isinstance(value, str):
        return [0], _STR.encode(), value.encode("utf-32-le")
    type_name = str(mstype.NP_TO_MS[value.dtype.newbyteorder("=")])
    return list(value.shape), type_name.encode(), value.reshape(-1).view(np.uint8)


def write_ckpt(f, entries, crc_check):
    """Write (name, little-endian C-contiguous ndarray | str) pairs to the binary file `f`; a
    tensor over 512 MiB becomes consecutive Values with the same tag. With `crc_check`, end in
    the CRC trailer."""
    crc = 0
    for name, value in entries:
        tag = name.encode("utf-8")
        dims, type_name, content = _wire_layout(value)
        # perf: the content is written from the array itself, never copied into bytes
        for start in range(0, max(len(content), 1), _SLICE_BYTES):
            piece = content[start:start + _SLICE_BYTES]
            head = _entry_head(tag, dims, type_name, len(piece))
            f.write(head)
            f.write(piece)
            if crc_check:
                crc = binascii.crc32(piece, binascii.crc32(head, crc))
    if crc_check:
        f.write(_CRC_MAGIC + crc.to_bytes(10, "big"))


# ---- structure: walked and checked before anything is allocated -----------------------------

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
        if key == _KEY_DIM:  # one dim per field, as MindSpore writes them
            _add_dim(src, dims, src.varint(end), at)
        elif key == _KEY_DIMS_PACKED:  # as protobuf may also write them
            stop = src.length(end, "the packed dims") + src.pos
            while src.pos < stop:
                _add_dim(src, dims, src.varint(stop), at)
        elif key == _KEY_TYPE:
            if type_ is not None:
                raise src.fail("tensor_type appears twice", at)
            n = src.length(end, "tensor_type")
            if n > _MAX_TYPE_LEN:
                src.skip(n)
                type_ = f"<a {n}-byte string>"
            else:
                type_ = src.read(n).decode("utf-8", "replace")
        elif key == _KEY_CONTENT:
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
        if key == _KEY_TAG:
            if tag is not None:
                raise src.fail("the tag appears twice", at)
            raw = src.read(src.length(end, "the tag"))
            try:
                tag = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise src.fail(f"the tag {raw[:40]!r} is not UTF-8", at) from None
            src.where += f" {tag!r}"
        elif key == _KEY_TENSOR:
            if tensor is not None:
                raise src.fail("the tensor appears twice", at)
            n = src.length(end, "the tensor")
            tensor = _parse_tensor(src, src.pos + n)
        elif key == _KEY_MAPTENSOR:
            raise src.fail("the entry holds a MapParameter (maptensor), which minispore does not "
                           "support", at)
        else:
            raise src.fail(f"unexpected {_wire_name(key)} in a Checkpoint.Value", at)
    if tag is None:
        raise src.fail("the entry has no tag (name)")
    if tensor is None:
        raise src.fail("the entry has no tensor")
    return (tag,) + tensor


def _index(src, end):
    """Every entry of the file, slices of one tensor merged, no content read."""
    entries, seen = [], {}
    count = 0
    while src.pos < end:
        src.where = f"entry {count}"
        at = src.pos
        key = src.varint(end)
        if key != _KEY_VALUE:
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
    stored = CKPT_TYPES.get(e.type)
    if stored is None:
        raise fail(f"entry {e.name!r} has the unknown tensor_type {e.type!r} (known: "
                   f"{', '.join(CKPT_TYPES)}, str)")
    itemsize = np.dtype(stored).itemsize
    # MindSpore reads dims [0] as a 0-d tensor (it writes 0-d tensors without dims).
    shape = () if e.dims == [0] and e.nbytes == itemsize else tuple(e.dims)
    return checked_shape(e.name, e.type, shape, itemsize, e.nbytes, fail), stored


def checked_shape(name, type_name, shape, itemsize, nbytes, fail):
    """`shape`, once its size is checked to be exactly `nbytes` and allocatable."""
    need = math.prod(shape) * itemsize
    if need != nbytes:
        raise fail(f"entry {name!r} of shape {shape} and type {type_name} needs {need} bytes, "
                   f"but its content has {nbytes}")
    if math.prod(d for d in shape if d) * itemsize >= 1 << 62:
        raise fail(f"entry {name!r} has shape {shape}, too large for any array")
    return shape


# ---- content: read into arrays of the validated size ----------------------------------------

def finish_array(name, arr, type_name, fail):
    """The array as loaded: bools checked, bfloat16 widened, native byte order."""
    if type_name == "Bool":
        if arr.size and arr.max() > 1:
            raise fail(f"Bool entry {name!r} holds bytes other than 0 and 1")
        return arr.view(np.bool_)
    if type_name == "BFloat16":  # the high half of a float32: widening is exact
        return (arr.astype(np.uint32) << np.uint32(16)).view(np.float32)  # (0-d too on NumPy 1)
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
    return finish_array(e.name, arr, e.type, fail)


# ---- the whole file -------------------------------------------------------------------------

def _sniff(head, fmt_fail):
    for magic, what in _FOREIGN:
        if head.startswith(magic):
            raise fmt_fail(f"it is {what}")
    if len(head) >= 9 and head[8:9] == b"{" and int.from_bytes(head[:8], "little") < 1 << 32:
        raise fmt_fail("it looks like a safetensors file: load it with format='safetensors'")


def open_regular(path, func):
    """(binary file, size); a FIFO, device, socket or directory is refused with a CheckpointError
    (never read, never waited on): the opener shared with the dataset readers."""
    return _files.open_regular(path, func, CheckpointError)


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


def _check_crc(f, src, size, crc_check):
    """The end of the protobuf part (before a CRC trailer, if any), after checking the CRC
    when asked to."""
    end, stored_crc = size, None
    if size >= _CRC_TRAILER:
        f.seek(size - _CRC_TRAILER)
        tail = f.read(_CRC_TRAILER)
        if tail.startswith(_CRC_MAGIC):
            end = size - _CRC_TRAILER
            stored_crc = int.from_bytes(tail[len(_CRC_MAGIC):], "big")
    if crc_check:
        if stored_crc is None:
            warnings.warn(f"For 'load_checkpoint', {src.path!r} holds no CRC to check",
                          stacklevel=_WARN_STACKLEVEL)
        elif _crc_of(f, end) != stored_crc:
            raise src.fail("the CRC check failed: the file is damaged", at=end)
    return end


def read_ckpt(path, chosen, crc_check):
    """name -> ndarray | str for the entries whose name `chosen` accepts, in file order. The
    whole structure, and every chosen entry's layout, is checked before any array exists."""
    f, size = open_regular(path, "load_checkpoint")
    with f:
        src = _Source(f, path)
        if size == 0:
            raise src.fail("the file is empty")
        _sniff(f.read(16), src.fail)
        end = _check_crc(f, src, size, crc_check)
        f.seek(0)
        plan = []
        for e in _index(src, end):
            if chosen(e.name):
                src.where = f"entry {e.index} {e.name!r}"
                plan.append((e,) + _entry_layout(e, src.fail))
        out = {}
        for e, shape, stored in plan:
            src.where = f"entry {e.index} {e.name!r}"
            out[e.name] = _read_entry(f, e, shape, stored, src.fail)
    return out
