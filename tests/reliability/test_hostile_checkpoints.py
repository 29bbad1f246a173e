"""Files from elsewhere are data, never code (docs/reliability.md §7).

Each hostile, truncated, corrupt or foreign file is handed to `load_checkpoint(path, net=...)`.
It must be refused with a CheckpointError (a ValueError) whose message names the file and what is
wrong with which entry; nothing may be unpickled or executed (pickle and np.load are tripwired);
lengths, dims and offsets are checked before anything is allocated (the peak allocation of a file
claiming a 2**80-byte tensor is measured); and the network is exactly as before: every parameter,
optimizer state and version counter (tests/reliability/_world.py).
"""
import io
import json
import os
import pickle
import struct
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest

import minispore as ms
from minispore.train.serialization import CheckpointError

from ._world import World, diff, snapshot

EXECUTED = []


def _pwn(*args):
    EXECUTED.append(args)
    return "pwned"


class Exploit:
    def __reduce__(self):
        return (_pwn, ("the file ran code",))


@pytest.fixture(autouse=True)
def tripwires(monkeypatch):
    """Any unpickling or np.load during a load fails the test."""
    def tripped(*args, **kwargs):
        raise AssertionError("a checkpoint was unpickled or opened with np.load")

    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, tripped)
    monkeypatch.setattr(np, "load", tripped)
    EXECUTED.clear()
    yield
    assert EXECUTED == []


# ---- protobuf builders ----------------------------------------------------------------------

def varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def key(field, wire):
    return varint((field << 3) | wire)


def ld(field, payload):
    return key(field, 2) + varint(len(payload)) + payload


def dims_of(dims):
    return b"".join(key(1, 0) + varint(d % (1 << 64)) for d in dims)


def tensor(dims=(8,), type_=b"Float32", content=None):
    if content is None:
        content = np.full(dims, 7.0, np.float32).tobytes()
    return dims_of(dims) + ld(2, type_) + ld(3, content)


def value(tag=b"fc1.bias", body=None):
    return ld(1, tag) + ld(2, tensor() if body is None else body)


def ckpt(*values):
    return b"".join(ld(1, v) for v in values)


GOOD = value()  # a valid entry for a real parameter of the world's net: it must not be loaded
F32 = np.float32


def f32(*xs):
    return np.array(xs, F32).tobytes()


def _zip_with_pickle():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:  # the layout of torch.save
        z.writestr("archive/data.pkl", pickle.dumps(Exploit()))
        z.writestr("archive/version", "3\n")
    return buf.getvalue()


def _npz_with_objects():
    buf = io.BytesIO()
    np.savez(buf, w=np.array([Exploit(), 1], dtype=object))
    return buf.getvalue()


def _npy():
    buf = io.BytesIO()
    np.save(buf, np.ones(3, F32))
    return buf.getvalue()


def _safetensors_bytes():
    header = b'{"fc1.bias":{"dtype":"F32","shape":[8],"data_offsets":[0,32]}}'
    return struct.pack("<Q", len(header)) + header + np.ones(8, F32).tobytes()


# (id, file bytes, words the message must contain)
CKPT_CASES = [
    ("pickle", pickle.dumps(Exploit()), "pickle"),
    ("pickle_protocol_0", pickle.dumps(Exploit(), protocol=0), "cannot be read"),
    ("torch_zip", _zip_with_pickle(), "zip archive"),
    ("npz_object_array", _npz_with_objects(), "zip archive"),
    ("npy", _npy(), ".npy"),
    ("hdf5", b"\x89HDF\r\n\x1a\n" + b"\0" * 40, "HDF5"),
    ("safetensors_as_ckpt", _safetensors_bytes(), "format='safetensors'"),
    ("empty", b"", "empty"),
    ("garbage_text", b"this is not a checkpoint at all\n" * 4, "cannot be read"),
    ("huge_dims", ckpt(GOOD, value(b"w", tensor((1 << 40, 1 << 40), content=f32(1, 2)))),
     "needs 4835703278458516698824704 bytes, but its content has 8"),
    ("huge_empty_dims", ckpt(GOOD, value(b"w", tensor((1 << 62, 1 << 62, 0), content=b""))),
     "too large"),
    ("negative_dim", ckpt(GOOD, value(b"w", tensor((-2,), content=f32(1, 2)))),
     "dimension -2 is negative"),
    ("too_many_dims", ckpt(GOOD, value(b"w", tensor((1,) * 33, content=f32(1)))),
     "more than 32 dims"),
    ("unknown_dtype", ckpt(GOOD, value(b"w", tensor((1,), b"Float128", f32(1)))),
     "unknown tensor_type 'Float128'"),
    ("int4_dtype", ckpt(GOOD, value(b"w", tensor((2,), b"Int4", b"\x12"))),
     "unknown tensor_type 'Int4'"),
    ("long_dtype_string", ckpt(GOOD, value(b"w", tensor((1,), b"F" * 5000, f32(1)))),
     "a 5000-byte string"),
    ("content_short", ckpt(GOOD, value(b"w", tensor((4,), content=f32(1, 2)))),
     "needs 16 bytes, but its content has 8"),
    ("content_long", ckpt(GOOD, value(b"w", tensor((1,), content=f32(1, 2)))),
     "needs 4 bytes, but its content has 8"),
    ("content_not_whole_items", ckpt(GOOD, value(b"w", tensor((1,), content=b"\0" * 5))),
     "needs 4 bytes, but its content has 5"),
    ("duplicate_name", ckpt(GOOD, value(b"w", tensor((1,), content=f32(1))), GOOD),
     "'fc1.bias' appears twice (entries 0 and 2)"),
    ("duplicate_consecutive", ckpt(GOOD, GOOD), "needs 32 bytes, but its content has 64"),
    ("slices_disagree", ckpt(value(b"w", tensor((2,), content=f32(1))),
                             value(b"w", tensor((3,), content=f32(1, 2)))), "disagree"),
    ("varint_11_bytes", b"\x0a" + b"\xff" * 10 + b"\x01", "more than 10 bytes"),
    ("varint_past_64_bits", b"\x0a" + b"\xff" * 9 + b"\x7f", "does not fit in 64 bits"),
    ("varint_cut", b"\x0a\x80", "varint runs past"),
    ("entry_past_file", ld(1, GOOD)[:-3],
     "the entry claims 57 bytes, but its enclosing message has only 54 left"),
    ("tensor_past_entry", ckpt(ld(1, b"w") + key(2, 2) + varint(200) + tensor()),
     "the tensor claims 200 bytes"),
    ("content_past_tensor", ckpt(ld(1, b"w") + ld(2, dims_of((8,)) + ld(2, b"Float32") +
                                                  key(3, 2) + varint(1000) + b"\0" * 32)),
     "tensor_content claims 1000 bytes"),
    ("tag_past_entry", ckpt(key(1, 2) + varint(99) + b"w"), "the tag claims 99 bytes"),
    ("packed_dims_past_tensor", ckpt(ld(1, b"w") + ld(2, key(1, 2) + varint(50) + b"\x02")),
     "the packed dims claims 50 bytes"),
    ("unknown_checkpoint_field", ckpt(GOOD) + ld(2, b"xx"),
     "expected a Checkpoint value, found field 2 of wire type 2"),
    ("unknown_value_field", ckpt(GOOD + ld(5, b"x")), "unexpected field 5 of wire type 2"),
    ("unknown_tensor_field", ckpt(ld(1, b"w") + ld(2, tensor((1,), content=f32(1)) +
                                                   key(4, 0) + b"\x01")),
     "unexpected field 4 of wire type 0 in a TensorProto"),
    ("group_wire_type", ckpt(GOOD + key(6, 3)), "wire type 3"),
    ("no_tag", ckpt(ld(2, tensor())), "no tag"),
    ("no_tensor", ckpt(ld(1, b"w")), "no tensor"),
    ("no_type", ckpt(ld(1, b"w") + ld(2, dims_of((1,)) + ld(3, f32(1)))), "no tensor_type"),
    ("no_content", ckpt(ld(1, b"w") + ld(2, dims_of((1,)) + ld(2, b"Float32"))),
     "no tensor_content"),
    ("tag_twice", ckpt(GOOD + ld(1, b"x")), "the tag appears twice"),
    ("tensor_twice", ckpt(GOOD + ld(2, tensor())), "the tensor appears twice"),
    ("type_twice", ckpt(ld(1, b"w") + ld(2, tensor((1,), content=f32(1)) + ld(2, b"Int32"))),
     "tensor_type appears twice"),
    ("content_twice", ckpt(ld(1, b"w") + ld(2, tensor((1,), content=f32(1)) + ld(3, f32(2)))),
     "tensor_content appears twice"),
    ("map_tensor", ckpt(ld(1, b"w") + ld(3, ld(1, tensor()))), "MapParameter"),
    ("tag_not_utf8", ckpt(value(b"\xff\xfe", tensor((1,), content=f32(1)))), "not UTF-8"),
    ("bool_not_0_or_1", ckpt(GOOD, value(b"b", tensor((2,), b"Bool", b"\x01\x02"))),
     "other than 0 and 1"),
    ("str_odd_length", ckpt(GOOD, value(b"s", tensor((0,), b"str", b"abcde"))),
     "4 bytes per character"),
    ("str_bad_code_point", ckpt(GOOD, value(b"s", tensor((0,), b"str",
                                                         (0x110000).to_bytes(4, "little")))),
     "not valid UTF-32"),
    ("str_with_dims", ckpt(GOOD, value(b"s", tensor((2,), b"str", b"a\0\0\0b\0\0\0"))),
     "dims [2]"),
]


def _world_and_path(tmp_path, data, name="hostile.ckpt"):
    path = str(tmp_path / name)
    with open(path, "wb") as f:
        f.write(data)
    return World(), path


@pytest.mark.parametrize("data, words", [c[1:] for c in CKPT_CASES],
                         ids=[c[0] for c in CKPT_CASES])
def test_hostile_ckpt_refused_and_nothing_loaded(tmp_path, data, words):
    world, path = _world_and_path(tmp_path, data)
    before = snapshot(world)
    with pytest.raises(CheckpointError) as info:
        ms.load_checkpoint(path, net=world.train)
    message = str(info.value)
    assert words in message and path in message and "load_checkpoint" in message, message
    assert diff(before, snapshot(world)) == []
    assert not any(name.startswith(".") for name in os.listdir(tmp_path))


def test_oversized_claims_allocate_nothing(tmp_path):
    # a 60-byte file claiming a (2**40, 2**40) float32 tensor; then one claiming a 2**62-byte
    # content: refused with a peak allocation of a few KB
    for data in (CKPT_CASES[9][1], ckpt(ld(1, b"w") + ld(2, dims_of((4,)) + ld(2, b"Float32") +
                                                            key(3, 2) + varint(1 << 62)))):
        path = str(tmp_path / "big.ckpt")
        with open(path, "wb") as f:
            f.write(data)
        tracemalloc.start()
        try:
            with pytest.raises(CheckpointError):
                ms.load_checkpoint(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 256 * 1024, peak


def test_a_bad_entry_after_good_ones_loads_nothing(tmp_path):
    world = World()
    params = {p.name: p.asnumpy() for p in world.train.get_parameters()}
    entries = [value(n.encode(), tensor(a.shape, b"Float32", (a + 1).astype(F32).tobytes()))
               for n, a in params.items() if a.dtype == F32]
    data = ckpt(*entries, value(b"fc2.bias", tensor((3,), content=f32(1, 2))))
    world, path = _world_and_path(tmp_path, data)
    before = snapshot(world)
    with pytest.raises(CheckpointError, match="'fc2.bias'"):
        ms.load_checkpoint(path, net=world.train)
    assert diff(before, snapshot(world)) == []


def test_a_shape_mismatch_loads_nothing(tmp_path):
    world = World()
    data = ckpt(GOOD, value(b"fc2.weight", tensor((2, 2), content=f32(1, 2, 3, 4))))
    world, path = _world_and_path(tmp_path, data)
    before = snapshot(world)
    with pytest.raises(ValueError, match=r"'fc2.weight' has shape \(3, 8\) .* \(2, 2\)"):
        ms.load_checkpoint(path, net=world.train)
    assert diff(before, snapshot(world)) == []


def test_directory_and_special_files_refused(tmp_path):
    os.mkdir(tmp_path / "dir.ckpt")
    with pytest.raises(CheckpointError, match="is a directory"):
        ms.load_checkpoint(str(tmp_path / "dir.ckpt"))
    if os.path.exists("/dev/zero"):
        os.symlink("/dev/zero", tmp_path / "zero.ckpt")
        with pytest.raises(CheckpointError, match="not a regular file"):
            ms.load_checkpoint(str(tmp_path / "zero.ckpt"))
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.ckpt")  # opening it for reading must not wait for a writer
        with pytest.raises(CheckpointError, match="not a regular file"):
            ms.load_checkpoint(str(tmp_path / "fifo.ckpt"))


def _three_entries():
    values_ = [value(b"a", tensor((2,), content=f32(1, 2))),
               value(b"bb", tensor((3, 1), b"Int32", np.arange(3, dtype=np.int32).tobytes())),
               value(b"c", tensor((), b"Float64", np.float64(2.5).tobytes()))]
    return [ld(1, v) for v in values_]


def test_every_truncation_is_refused_or_a_whole_prefix(tmp_path):
    parts = _three_entries()
    data = b"".join(parts)
    boundaries = {sum(len(p) for p in parts[:k]): k for k in range(1, len(parts))}
    path = str(tmp_path / "t.ckpt")
    full = None
    for cut in range(len(data) + 1):
        with open(path, "wb") as f:
            f.write(data[:cut])
        if cut == len(data):
            full = ms.load_checkpoint(path)
        elif cut in boundaries:  # protobuf has no end marker: a cut between entries is valid
            assert list(ms.load_checkpoint(path)) == ["a", "bb", "c"][:boundaries[cut]]
        else:
            with pytest.raises(CheckpointError):
                ms.load_checkpoint(path)
    assert list(full) == ["a", "bb", "c"]
    assert full["bb"].asnumpy().tolist() == [[0], [1], [2]] and float(full["c"]) == 2.5


def test_every_single_byte_change_is_data_or_refused(tmp_path):
    """Fuzz: each byte replaced by a few values; the load either succeeds or raises
    CheckpointError, nothing else; with a CRC every change is refused."""
    data = b"".join(_three_entries())
    path, crc_path = str(tmp_path / "f.ckpt"), str(tmp_path / "crc.ckpt")
    ms.save_checkpoint(ms.load_checkpoint(_write(path, data)), crc_path, crc_check=True)
    with open(crc_path, "rb") as f:
        crc_data = f.read()
    for source, file, crc in ((data, path, False), (crc_data, crc_path, True)):
        for i in range(len(source)):
            for new in {0x00, 0xFF, source[i] ^ 0x80, source[i] ^ 0x01} - {source[i]}:
                _write(file, source[:i] + bytes([new]) + source[i + 1:])
                try:
                    with warnings.catch_warnings():
                        # a change that turns the CRC field into another one warns "holds no
                        # CRC" before the entry is refused
                        warnings.simplefilter("ignore", UserWarning)
                        ms.load_checkpoint(file, crc_check=crc)
                except CheckpointError:
                    continue
                except ValueError as e:  # every entry parsed away to nothing
                    assert "nothing was loaded" in str(e)
                    continue
                assert not crc, (i, new)


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def test_random_garbage_is_refused(tmp_path):
    rng = np.random.default_rng(0)
    path = str(tmp_path / "g.ckpt")
    for n in (1, 2, 7, 64, 1000, 100_000):
        for _ in range(10):
            _write(path, rng.integers(0, 256, n, dtype=np.uint8).tobytes())
            with pytest.raises(CheckpointError):
                ms.load_checkpoint(path)


# ---- safetensors ----------------------------------------------------------------------------

def _st(header, data=b"", raw_header=None):
    h = raw_header if raw_header is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + data


ST_CASES = [
    ("pickle", pickle.dumps(Exploit()), "cannot be read"),
    ("torch_zip", _zip_with_pickle(), "cannot be read"),
    ("empty", b"", "empty"),
    ("header_past_file", struct.pack("<Q", 1 << 40) + b"{}", "cannot be read"),
    ("header_not_json", _st(None, raw_header=b"{not json"), "cannot be read"),
    ("offsets_past_data", _st({"fc1.bias": {"dtype": "F32", "shape": [8],
                                            "data_offsets": [0, 4096]}}, b"\0" * 32),
     "cannot be read"),
    ("shape_vs_bytes", _st({"fc1.bias": {"dtype": "F32", "shape": [8],
                                         "data_offsets": [0, 16]}}, b"\0" * 16),
     "cannot be read"),
    ("negative_shape", _st({"fc1.bias": {"dtype": "F32", "shape": [-8],
                                         "data_offsets": [0, 32]}}, b"\0" * 32),
     "cannot be read"),
    ("overlapping", _st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                         "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}},
                        b"\0" * 12), "cannot be read"),
    ("unsupported_dtype", _st({"fc1.bias": {"dtype": "F8_E4M3", "shape": [8],
                                            "data_offsets": [0, 8]}}, b"\0" * 8),
     "dtype F8_E4M3"),
    ("bool_not_0_or_1", _st({"b": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}},
                            b"\x01\x07"), "other than 0 and 1"),
    ("int4", _st({"__metadata__": {"w": "Int4"},
                  "w": {"dtype": "I8", "shape": [2], "data_offsets": [0, 2]}}, b"\0\0"), "Int4"),
    ("string_and_tensor", _st({"__metadata__": {"string:w": "x"},
                               "w": {"dtype": "I8", "shape": [2], "data_offsets": [0, 2]}},
                              b"\0\0"), "both a tensor and a string"),
]


@pytest.mark.parametrize("data, words", [c[1:] for c in ST_CASES], ids=[c[0] for c in ST_CASES])
def test_hostile_safetensors_refused_and_nothing_loaded(tmp_path, data, words):
    pytest.importorskip("safetensors")
    world, path = _world_and_path(tmp_path, data, "hostile.safetensors")
    before = snapshot(world)
    with pytest.raises(CheckpointError) as info:
        ms.load_checkpoint(path, net=world.train, format="safetensors")
    assert words in str(info.value) and path in str(info.value), str(info.value)
    assert diff(before, snapshot(world)) == []
    with pytest.raises(CheckpointError):
        ms.load_checkpoint(io.BytesIO(data), format="safetensors")


def test_safetensors_bfloat16_widens_exactly(tmp_path):
    pytest.importorskip("safetensors")
    bits = np.array([0x3F80, 0xC020, 0x4049, 0x7F80], np.uint16)  # 1, -2.5, 3.140625, inf
    path = _write(str(tmp_path / "b.safetensors"),
                  _st({"w": {"dtype": "BF16", "shape": [2, 2], "data_offsets": [0, 8]}},
                      bits.tobytes()))
    w = ms.load_checkpoint(path, format="safetensors")["w"]
    assert w.dtype == ms.float32 and w.shape == (2, 2)
    assert w.asnumpy().ravel().tolist() == [1.0, -2.5, 3.140625, float("inf")]
