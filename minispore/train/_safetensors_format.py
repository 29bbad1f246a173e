"""Checkpoints in safetensors, through the `safetensors` package (an optional dependency): the
mapping of dtypes, strings and the CRC onto safetensors is described in
docs/checkpoint_format.md."""
import binascii
import io
import json
import warnings

import numpy as np

from ._ckpt_format import CKPT_TYPES, CheckpointError, checked_shape, finish_array, open_regular

__all__ = ["import_safetensors", "read_safetensors", "write_safetensors"]

# safetensors dtype names -> the tensor_type names of a .ckpt (read the same way).
_ST_TYPES = {
    "BOOL": "Bool", "I8": "Int8", "U8": "UInt8", "I16": "Int16", "U16": "UInt16",
    "I32": "Int32", "U32": "UInt32", "I64": "Int64", "U64": "UInt64", "F16": "Float16",
    "F32": "Float32", "F64": "Float64", "C64": "Complex64", "BF16": "BFloat16",
}
_ST_STRING = "string:"  # metadata key prefix of a string entry (MindSpore has none)
# A missing CRC is reported at the caller of load_checkpoint:
# _check_crc < read_safetensors < serialization._read < load_checkpoint < its caller.
_WARN_STACKLEVEL = 5


def import_safetensors(func):
    """The `safetensors` package, or an ImportError saying how to install it."""
    try:
        import safetensors
        import safetensors.numpy
    except ImportError:
        raise ImportError(f"For '{func}', format='safetensors' needs the 'safetensors' package: "
                          "pip install safetensors (or minispore[safetensors])") from None
    return safetensors


def _crc(crc, name, data):
    """MindSpore's running CRC over a tensor's name and stored bytes."""
    return binascii.crc32(data, binascii.crc32(name.encode("utf-8"), crc))


# ---- writer ---------------------------------------------------------------------------------

def write_safetensors(path, entries, crc_check, remove_redundancy):
    """Write (name, little-endian C-contiguous ndarray | str) pairs, sorted by name; strings
    go into the metadata."""
    st = import_safetensors("save_checkpoint")
    tensors, metadata, crc = {}, {"format": "ms"}, 0
    if remove_redundancy is not None:
        metadata["remove_redundancy"] = str(remove_redundancy)
    for name, value in sorted(entries, key=lambda e: e[0]):
        if isinstance(value, str):
            metadata[_ST_STRING + name] = value
            continue
        tensors[name] = value
        if crc_check:  # over the stored bytes, as MindSpore computes it
            crc = _crc(crc, name, value.reshape(-1).view(np.uint8))
    if crc_check:
        metadata["crc_num"] = str(crc)
    st.numpy.save_file(tensors, path, metadata=metadata if len(metadata) > 1 or tensors else None)


# ---- reader ---------------------------------------------------------------------------------

def _select(metadata, specs, chosen, crc_check, fail):
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


def _array(k, spec, data, fail):
    """The array of tensor `k` from its raw bytes (bfloat16 widened, bools checked)."""
    type_name = _ST_TYPES[spec[0]]
    stored = np.dtype(CKPT_TYPES[type_name])
    shape = checked_shape(k, type_name, spec[1], stored.itemsize, len(data), fail)
    return finish_array(k, np.frombuffer(data, stored).reshape(shape).copy(), type_name, fail)


def _deserialize(st, data, fail):
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


def _read_bytes(st, data, chosen, crc_check, fail):
    """(metadata, specs, strings, wanted, arrays, raw) of a file held in memory."""
    metadata, specs, raw = _deserialize(st, data, fail)
    strings, wanted, read = _select(metadata, specs, chosen, crc_check, fail)
    arrays = {k: _array(k, specs[k], raw[k], fail) for k in read}
    return metadata, specs, strings, wanted, arrays, raw


def _read_file(st, path, chosen, crc_check, fail):
    """(metadata, specs, strings, wanted, arrays, raw) of a file on disk, read tensor by
    tensor; `raw` holds bytes only for bfloat16 tensors."""
    f, size = open_regular(path, "load_checkpoint")
    f.close()
    if size == 0:
        raise fail("the file is empty")
    arrays, raw = {}, None
    try:
        with st.safe_open(path, framework="np") as handle:
            metadata = handle.metadata() or {}
            specs = {}
            for k in handle.keys():  # noqa: SIM118  (a safe_open handle, not a dict)
                sl = handle.get_slice(k)
                specs[k] = (sl.get_dtype(), tuple(sl.get_shape()))
            strings, wanted, read = _select(metadata, specs, chosen, crc_check, fail)
            if any(specs[k][0] == "BF16" for k in read):
                with open(path, "rb") as f:  # NumPy has no bfloat16: take the raw bytes
                    raw = _deserialize(st, f.read(), fail)[2]
            for k in read:
                if specs[k][0] == "BF16":
                    arrays[k] = _array(k, specs[k], raw[k], fail)
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
    return metadata, specs, strings, wanted, arrays, raw


def _check_crc(name, metadata, specs, arrays, raw, fail):
    stored_crc = metadata.get("crc_num")
    if stored_crc is None:
        warnings.warn(f"For 'load_checkpoint', {name!r} holds no CRC to check",
                      stacklevel=_WARN_STACKLEVEL)
        return
    crc = 0
    for k in sorted(specs):  # over the stored bytes, as MindSpore computes it
        crc = _crc(crc, k, raw[k] if specs[k][0] == "BF16" else
                   arrays[k].reshape(-1).view(np.uint8))
    if str(crc) != stored_crc:
        raise fail("the CRC check failed: the file is damaged")


def read_safetensors(source, name, chosen, crc_check):
    """name -> ndarray | str for the entries `chosen` accepts, sorted by name. `source` is a
    path or an io.BytesIO; `name` is what messages call it."""
    st = import_safetensors("load_checkpoint")

    def fail(detail):
        return CheckpointError(f"For 'load_checkpoint', the safetensors file {name!r} cannot be "
                               f"read: {detail}")

    if isinstance(source, io.BytesIO):
        parts = _read_bytes(st, source.getvalue(), chosen, crc_check, fail)
    else:
        parts = _read_file(st, source, chosen, crc_check, fail)
    metadata, specs, strings, wanted, arrays, raw = parts
    if crc_check:
        _check_crc(name, metadata, specs, arrays, raw, fail)
    return {k: strings[k] if k in strings else arrays[k] for k in wanted}
