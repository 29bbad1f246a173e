"""MessagePack as MindRecord's raw pages hold it (the encoding nlohmann::json::to_msgpack writes:
maps with sorted keys, the smallest integer form, float32 where a double is exactly a float32).

The decoder reads untrusted bytes: every length is checked against what is left before anything
is sliced, nesting is capped, and anything malformed raises ValueError."""
import struct

__all__ = ["pack", "unpack"]

_MAX_DEPTH = 32
_F32_MAX = 3.4028234663852886e38


def _pack_int(v, out):
    if v >= 0:
        if v < 0x80:
            out.append(v)
        elif v < 0x100:
            out += b"\xcc" + struct.pack(">B", v)
        elif v < 0x10000:
            out += b"\xcd" + struct.pack(">H", v)
        elif v < 0x100000000:
            out += b"\xce" + struct.pack(">I", v)
        elif v < 1 << 64:
            out += b"\xcf" + struct.pack(">Q", v)
        else:
            raise ValueError(f"integer {v} does not fit in 64 bits")
    elif v >= -32:
        out.append(v & 0xFF)
    elif v >= -0x80:
        out += b"\xd0" + struct.pack(">b", v)
    elif v >= -0x8000:
        out += b"\xd1" + struct.pack(">h", v)
    elif v >= -0x80000000:
        out += b"\xd2" + struct.pack(">i", v)
    elif v >= -(1 << 63):
        out += b"\xd3" + struct.pack(">q", v)
    else:
        raise ValueError(f"integer {v} does not fit in 64 bits")


def _pack_len(n, small_tag, small_max, tags, out):
    if n <= small_max:
        out.append(small_tag | n)
    elif n < 0x10000 and tags[0] is not None:
        out += tags[0] + struct.pack(">H", n)
    else:
        out += tags[1] + struct.pack(">I", n)


def _pack(value, out):
    if value is None:
        out.append(0xC0)
    elif value is True or value is False:
        out.append(0xC3 if value else 0xC2)
    elif isinstance(value, int):
        _pack_int(int(value), out)
    elif isinstance(value, float):
        v = float(value)
        if -_F32_MAX <= v <= _F32_MAX and struct.unpack(">f", struct.pack(">f", v))[0] == v:
            out += b"\xca" + struct.pack(">f", v)
        else:
            out += b"\xcb" + struct.pack(">d", v)
    elif isinstance(value, str):
        data = value.encode("utf-8")
        n = len(data)
        if n < 32:
            out.append(0xA0 | n)
        elif n < 0x100:
            out += b"\xd9" + struct.pack(">B", n)
        elif n < 0x10000:
            out += b"\xda" + struct.pack(">H", n)
        else:
            out += b"\xdb" + struct.pack(">I", n)
        out += data
    elif isinstance(value, (bytes, bytearray)):
        n = len(value)
        if n < 0x100:
            out += b"\xc4" + struct.pack(">B", n)
        elif n < 0x10000:
            out += b"\xc5" + struct.pack(">H", n)
        else:
            out += b"\xc6" + struct.pack(">I", n)
        out += value
    elif isinstance(value, dict):
        _pack_len(len(value), 0x80, 15, (b"\xde", b"\xdf"), out)
        for key in sorted(value):
            _pack(str(key), out)
            _pack(value[key], out)
    elif isinstance(value, (list, tuple)):
        _pack_len(len(value), 0x90, 15, (b"\xdc", b"\xdd"), out)
        for item in value:
            _pack(item, out)
    else:
        raise TypeError(f"cannot encode {type(value).__name__} as MessagePack")


def pack(value):
    """The MessagePack bytes of `value` (dict, list, str, int, float, bool, None, bytes)."""
    out = bytearray()
    _pack(value, out)
    return bytes(out)


_FIXED = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q", 0xD0: ">b", 0xD1: ">h", 0xD2: ">i",
          0xD3: ">q", 0xCA: ">f", 0xCB: ">d"}
_SIZED = {0xD9: (">B", "str"), 0xDA: (">H", "str"), 0xDB: (">I", "str"),
          0xC4: (">B", "bin"), 0xC5: (">H", "bin"), 0xC6: (">I", "bin"),
          0xDC: (">H", "array"), 0xDD: (">I", "array"), 0xDE: (">H", "map"), 0xDF: (">I", "map")}


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        end = self.pos + n
        if end > len(self.data):
            raise ValueError(f"MessagePack data ends early: {n} bytes needed at offset "
                             f"{self.pos}, {len(self.data) - self.pos} left")
        chunk = self.data[self.pos:end]
        self.pos = end
        return chunk

    def unpack(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]


def _read(r, depth):
    if depth > _MAX_DEPTH:
        raise ValueError(f"MessagePack data nested deeper than {_MAX_DEPTH} levels")
    tag = r.take(1)[0]
    if tag < 0x80:
        return tag
    if tag >= 0xE0:
        return tag - 0x100
    if 0xA0 <= tag <= 0xBF:
        return _text(r.take(tag & 0x1F))
    if 0x80 <= tag <= 0x8F:
        return _map(r, tag & 0x0F, depth)
    if 0x90 <= tag <= 0x9F:
        return _array(r, tag & 0x0F, depth)
    if tag == 0xC0:
        return None
    if tag in (0xC2, 0xC3):
        return tag == 0xC3
    if tag in _FIXED:
        return r.unpack(_FIXED[tag])
    if tag in _SIZED:
        fmt, kind = _SIZED[tag]
        n = r.unpack(fmt)
        if kind == "str":
            return _text(r.take(n))
        if kind == "bin":
            return bytes(r.take(n))
        return _map(r, n, depth) if kind == "map" else _array(r, n, depth)
    raise ValueError(f"unsupported MessagePack type byte 0x{tag:02x} at offset {r.pos - 1}")


def _text(raw):
    try:
        return bytes(raw).decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"MessagePack string is not UTF-8 ({e})") from None


def _array(r, n, depth):
    if n > len(r.data) - r.pos:  # every item takes at least one byte
        raise ValueError(f"MessagePack array of {n} items does not fit in the data")
    return [_read(r, depth + 1) for _ in range(n)]


def _map(r, n, depth):
    if 2 * n > len(r.data) - r.pos:
        raise ValueError(f"MessagePack map of {n} entries does not fit in the data")
    out = {}
    for _ in range(n):
        key = _read(r, depth + 1)
        if not isinstance(key, str):
            raise ValueError(f"MessagePack map key {key!r} is not a string")  # noqa: TRY004 (corrupt data)
        out[key] = _read(r, depth + 1)
    return out


def unpack(data):
    """The value encoded in `data`, which must hold exactly one MessagePack value."""
    r = _Reader(memoryview(data))
    value = _read(r, 0)
    if r.pos != len(r.data):
        raise ValueError(f"{len(r.data) - r.pos} bytes left after the MessagePack value")
    return value
