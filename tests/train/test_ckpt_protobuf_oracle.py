"""The `.ckpt` codec against the `protobuf` package as an oracle (skipped without it).

MindSpore's checkpoint.proto is built at runtime from descriptors (no protoc, no generated
code). Files written by `save_checkpoint` must parse with protobuf to the expected tags, dims,
types and bytes, and re-serialize to the same bytes; files serialized by protobuf from random
content must load with `load_checkpoint` to the same arrays.
"""
import binascii

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

pytest.importorskip("google.protobuf")
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

import minispore as ms
from minispore import Tensor
from minispore.train import _ckpt_format as ckpt_format

# NumPy dtype -> MindSpore's tensor_type, written out here rather than taken from minispore.
TYPE_NAMES = {
    np.dtype(np.bool_): "Bool", np.dtype(np.int8): "Int8", np.dtype(np.uint8): "UInt8",
    np.dtype(np.int16): "Int16", np.dtype(np.uint16): "UInt16", np.dtype(np.int32): "Int32",
    np.dtype(np.uint32): "UInt32", np.dtype(np.int64): "Int64", np.dtype(np.uint64): "UInt64",
    np.dtype(np.float16): "Float16", np.dtype(np.float32): "Float32",
    np.dtype(np.float64): "Float64", np.dtype(np.complex64): "Complex64",
    np.dtype(np.complex128): "Complex128",
}
CRC_TRAILER = len(b"crc_num") + 10


def _checkpoint_class(packed_dims):
    """The Checkpoint message class of checkpoint.proto (proto2), its MapTensorProto branch
    left out (minispore refuses it); `packed_dims` writes dims packed, as the reader accepts."""
    F = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(
        name="checkpoint.proto", package="oracle_packed" if packed_dims else "oracle",
        syntax="proto2")
    tensor = proto.message_type.add(name="TensorProto")
    dims = tensor.field.add(name="dims", number=1, type=F.TYPE_INT64, label=F.LABEL_REPEATED)
    if packed_dims:
        dims.options.packed = True
    tensor.field.add(name="tensor_type", number=2, type=F.TYPE_STRING, label=F.LABEL_REQUIRED)
    tensor.field.add(name="tensor_content", number=3, type=F.TYPE_BYTES, label=F.LABEL_REQUIRED)
    checkpoint = proto.message_type.add(name="Checkpoint")
    value = checkpoint.nested_type.add(name="Value")
    value.oneof_decl.add(name="value")
    value.field.add(name="tag", number=1, type=F.TYPE_STRING, label=F.LABEL_REQUIRED)
    value.field.add(name="tensor", number=2, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                    type_name=f".{proto.package}.TensorProto", oneof_index=0)
    checkpoint.field.add(name="value", number=1, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                         type_name=f".{proto.package}.Checkpoint.Value")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    desc = pool.FindMessageTypeByName(f"{proto.package}.Checkpoint")
    if hasattr(message_factory, "GetMessageClass"):  # protobuf >= 4.21
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)


Checkpoint = _checkpoint_class(packed_dims=False)
PackedCheckpoint = _checkpoint_class(packed_dims=True)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def parse(raw, crc_check):
    """(entries as (tag, dims, type, content) tuples, the message) of a file's bytes."""
    if crc_check:
        body, trailer = raw[:-CRC_TRAILER], raw[-CRC_TRAILER:]
        assert trailer[:7] == b"crc_num"
        assert int.from_bytes(trailer[7:], "big") == binascii.crc32(body)
    else:
        body = raw
        assert b"crc_num" not in raw[-CRC_TRAILER:]
    msg = Checkpoint()
    msg.ParseFromString(body)
    assert msg.SerializeToString() == body  # protobuf writes exactly these bytes
    return [(v.tag, list(v.tensor.dims), v.tensor.tensor_type, v.tensor.tensor_content)
            for v in msg.value], msg


def expected_entry(name, value):
    if isinstance(value, str):
        return name, [0], "str", value.encode("utf-32-le")
    return (name, list(value.shape), TYPE_NAMES[value.dtype.newbyteorder("=")],
            value.astype(value.dtype.newbyteorder("<")).tobytes())


def saved_content():
    rng = np.random.default_rng(0)
    arrays = {
        "f32": rng.standard_normal((3, 4)).astype(np.float32),
        "f16": rng.standard_normal(5).astype(np.float16),
        "f64": np.array([np.nan, -np.inf, 0.0, -0.0, 1e300]),
        "c64": (rng.standard_normal(3) + 1j * rng.standard_normal(3)).astype(np.complex64),
        "c128": np.array([[1 - 2j]]), "b": np.array([True, False, True]),
        "i8": np.array([-128, 127], np.int8), "u8": np.arange(7, dtype=np.uint8),
        "i16": np.array([-3], np.int16), "u16": np.array([65535], np.uint16),
        "i32": np.arange(-4, 4, dtype=np.int32).reshape(2, 2, 2),
        "u32": np.array([2 ** 32 - 1], np.uint32), "i64": np.array([-(2 ** 63)], np.int64),
        "u64": np.array([2 ** 64 - 1], np.uint64),
        "scalar": np.array(2.5, np.float32), "scalar_int": np.array(-7, np.int64),
        "empty": np.zeros((0, 3), np.float32), "empty_1d": np.zeros(0, np.int32),
        "big.weight": rng.standard_normal((300, 257)).astype(np.float32),  # ~300 KiB
        "big-endian": np.arange(6, dtype=">i4"),
        "ünïcode name": np.ones(2, np.float16),
    }
    append = {"epoch": 7, "lr": 0.25, "flag": False, "note": "ünïcode ✓ text", "blank": ""}
    appended = {"epoch": np.array(7, np.int64), "lr": np.array(0.25, np.float32),
                "flag": np.array(False), "note": "ünïcode ✓ text", "blank": ""}
    return arrays, append, appended


@pytest.mark.parametrize("crc_check", [False, True])
def test_files_written_here_parse_with_protobuf(tmp_path, crc_check):
    arrays, append, appended = saved_content()
    path = str(tmp_path / "m.ckpt")
    ms.save_checkpoint({k: Tensor(v) for k, v in arrays.items()}, path, append_dict=append,
                       crc_check=crc_check)
    got, _ = parse(read(path), crc_check)
    want = [expected_entry(k, v) for k, v in {**arrays, **appended}.items()]
    assert [g[:3] for g in got] == [w[:3] for w in want]
    assert all(g[3] == w[3] for g, w in zip(got, want))


@pytest.mark.parametrize("crc_check", [False, True])
def test_sliced_tensors_parse_as_consecutive_values(tmp_path, monkeypatch, crc_check):
    monkeypatch.setattr(ckpt_format, "_SLICE_BYTES", 1000)
    a = np.random.default_rng(1).standard_normal((37, 29)).astype(np.float32)  # 4292 bytes
    path = str(tmp_path / "s.ckpt")
    ms.save_checkpoint({"a": Tensor(a), "b": Tensor(np.arange(3))}, path, crc_check=crc_check)
    got, _ = parse(read(path), crc_check)
    assert [g[0] for g in got] == ["a"] * 5 + ["b"]
    assert all(g[1:3] == ([37, 29], "Float32") for g in got[:5])
    assert [len(g[3]) for g in got[:5]] == [1000] * 4 + [292]
    assert b"".join(g[3] for g in got[:5]) == a.tobytes()
    assert ms.load_checkpoint(path, crc_check=crc_check)["a"].asnumpy().tobytes() == a.tobytes()


# ---- protobuf writes, minispore reads ------------------------------------------------------

STORED_DTYPES = list(TYPE_NAMES)
NAMES = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
STRINGS = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                  max_size=20)  # the reader drops trailing NULs, as MindSpore's does


@st.composite
def tensor_entries(draw):
    """(array as loaded, tensor_type, content bytes) of a random tensor; BFloat16 too."""
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=4)))
    if draw(st.integers(0, 9)) == 0:
        bits = draw(hnp.arrays(np.uint16, shape))
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32), "BFloat16", \
            bits.astype("<u2").tobytes()
    dtype = draw(st.sampled_from(STORED_DTYPES))
    arr = draw(hnp.arrays(dtype, shape))
    return arr, TYPE_NAMES[dtype], arr.astype(dtype.newbyteorder("<")).tobytes()


@st.composite
def checkpoints(draw):
    """(protobuf-serialized bytes, name -> expected value in file order)."""
    names = draw(st.lists(NAMES, min_size=1, max_size=6, unique=True))
    msg = draw(st.sampled_from([Checkpoint, PackedCheckpoint]))()
    expected = {}
    for name in names:
        if draw(st.integers(0, 4)) == 0:
            text = draw(STRINGS)
            value = msg.value.add(tag=name)
            value.tensor.dims.append(0)
            value.tensor.tensor_type, value.tensor.tensor_content = "str", \
                text.encode("utf-32-le")
            expected[name] = text
            continue
        arr, type_name, content = draw(tensor_entries())
        # a tensor may come in consecutive slices, each with the full dims, as MindSpore
        # writes one over 512 MiB
        cuts = sorted(draw(st.lists(st.integers(0, len(content)), max_size=3)))
        for start, stop in zip([0] + cuts, cuts + [len(content)]):
            value = msg.value.add(tag=name)
            value.tensor.dims.extend(arr.shape)
            value.tensor.tensor_type, value.tensor.tensor_content = type_name, \
                content[start:stop]
        expected[name] = arr
    return msg.SerializeToString(), expected


def assert_loaded(d, expected):
    """`load_checkpoint`'s result holds exactly `expected`, in order, bit for bit."""
    assert list(d) == list(expected)
    for name, want in expected.items():
        if isinstance(want, str):
            assert d[name] == want
            continue
        got = d[name].asnumpy()
        assert d[name].name == name and (got.dtype, got.shape) == (want.dtype, want.shape)
        assert got.tobytes() == want.tobytes(), name


@settings(max_examples=200, deadline=None)
@given(checkpoints())
def test_files_serialized_by_protobuf_load_here(tmp_path_factory, case):
    raw, expected = case
    path = str(tmp_path_factory.mktemp("pb") / "pb.ckpt")
    with open(path, "wb") as f:
        f.write(raw)
    assert_loaded(ms.load_checkpoint(path), expected)


@settings(max_examples=50, deadline=None)
@given(checkpoints())
def test_protobuf_files_with_a_crc_trailer_load_with_crc_check(tmp_path_factory, case):
    raw, expected = case
    path = str(tmp_path_factory.mktemp("pb") / "pb.ckpt")
    with open(path, "wb") as f:
        f.write(raw + b"crc_num" + binascii.crc32(raw).to_bytes(10, "big"))
    assert_loaded(ms.load_checkpoint(path, crc_check=True), expected)
