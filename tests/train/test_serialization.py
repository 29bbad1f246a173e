"""Checkpoints: save_checkpoint / load_checkpoint / load_param_into_net.

MindSpore 2.10's own files (tests/train/data, made by make_mindspore_checkpoint.py) load here with
exact names, dtypes and values, and re-saving them reproduces MindSpore's bytes; files written
here load in MindSpore (opt-in: MINDSPORE_PYTHON=/path/to/a/python/with/mindspore pytest ...,
e.g. MINDSPORE_PYTHON=/tmp/msvenv/bin/python; without it that one test is not collected, so a
normal run neither needs MindSpore nor prints a skip); `load_param_into_net` returns MindSpore's
lists and is all-or-nothing. Hostile files are in tests/reliability.
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import warnings
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minispore as ms
from minispore import Parameter, Tensor, nn
from minispore.train import _ckpt_format as ckpt_format
from minispore.train import serialization as ser
from minispore.train.serialization import CheckpointError

DATA = os.path.join(os.path.dirname(__file__), "data")
LENET = os.path.join(DATA, "mindspore_lenet_like.ckpt")
DTYPES = os.path.join(DATA, "mindspore_dtypes.ckpt")
LENET_ST = os.path.join(DATA, "mindspore_lenet_like.safetensors")
REF = np.load(os.path.join(DATA, "mindspore_checkpoint_expected.npz"))
MS_PYTHON = os.environ.get("MINDSPORE_PYTHON")  # opt-in (module docstring)
APPENDED = ["epoch_num", "lr", "flag", "tag"]


class LeNetLike(nn.Cell):
    """The network of make_mindspore_checkpoint.py."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid", has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(4 * 4 * 4, 3)

    def construct(self, x):
        return self.fc(self.flatten(self.relu(self.bn(self.conv(x)))))


def lenet_train_cell():
    net = LeNetLike()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.5, momentum=0.5)
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


class Small(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.fc2 = nn.Dense(2, 2)
        self.bn = nn.BatchNorm1d(2)

    def construct(self, x):
        return self.bn(self.fc2(self.fc(x)))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def values(cell):
    return {p.name: p.asnumpy().copy() for p in cell.get_parameters()}


def assert_same(got, expected):
    assert got.dtype == expected.dtype and got.shape == expected.shape, \
        (got.dtype, got.shape, expected.dtype, expected.shape)
    assert np.array_equal(got, expected)


def P(a, name="p"):
    return Parameter(Tensor(np.asarray(a, np.float32)), name=name)


# ---- MindSpore's files load here ------------------------------------------------------------

def test_mindspore_file_loads_with_exact_names_dtypes_and_values():
    d = ms.load_checkpoint(LENET)
    assert list(d) == list(REF["lenet_names"])
    for name, v in d.items():
        expected = REF["lenet/" + name]
        if name == "tag":
            assert v == str(expected) == "minispore fixture"
            continue
        assert isinstance(v, Parameter) and v.name == name and v.requires_grad
        assert_same(v.asnumpy(), expected)
    # append_dict: int -> int64 0-d, float -> float32 0-d, bool -> Bool 0-d
    assert (d["epoch_num"].dtype, d["epoch_num"].shape, int(d["epoch_num"])) == (ms.int64, (), 3)
    assert (d["lr"].dtype, float(d["lr"])) == (ms.float32, np.float32(0.01))
    assert (d["flag"].dtype, bool(d["flag"])) == (ms.bool_, True)
    assert d["global_step"].dtype == ms.int32 and int(d["global_step"][0]) == 2


def test_mindspore_file_loads_into_the_same_network_built_here():
    net, train = lenet_train_cell()
    param_not_load, ckpt_not_load = ms.load_param_into_net(train, ms.load_checkpoint(LENET))
    assert param_not_load == [] and ckpt_not_load == APPENDED
    for p in train.get_parameters():
        assert_same(p.asnumpy(), REF["lenet/" + p.name])
    x = Tensor(np.random.default_rng(1).standard_normal((2, 1, 6, 6)).astype(np.float32))
    assert net(x).shape == (2, 3)
    train.set_train()
    assert np.isfinite(train(x, Tensor(np.array([0, 2], np.int32))).asnumpy())


def test_mindspore_dtype_file_every_dtype_and_crc():
    d = ms.load_checkpoint(DTYPES, crc_check=True)
    names = [k[len("dtypes/"):] for k in REF.files if k.startswith("dtypes/")]
    assert list(d) == names
    for name in names:
        expected = REF["dtypes/" + name]
        assert_same(d[name].asnumpy(), expected)
        if name != "bfloat16":
            assert str(d[name].dtype) == str(REF["dtypes_type/" + name])
    # NumPy has no bfloat16: MindSpore's BFloat16 entries widen exactly to float32
    assert str(REF["dtypes_type/bfloat16"]) == "BFloat16" and d["bfloat16"].dtype == ms.float32
    assert d["scalar_f32"].shape == ()


def test_resaving_mindspore_values_reproduces_mindspore_bytes(tmp_path):
    out = str(tmp_path / "again.ckpt")
    ms.save_checkpoint(ms.load_checkpoint(LENET), out)
    assert read(LENET) == read(out)


def test_mindspore_safetensors_file_loads_sorted():
    pytest.importorskip("safetensors")
    d = ms.load_checkpoint(LENET_ST, format="safetensors")
    expected = sorted(n for n in REF["lenet_names"] if n != "tag")
    assert list(d) == expected
    for name in expected:
        assert d[name].name == name
        assert_same(d[name].asnumpy(), REF["lenet/" + name])


# ---- files written here load in MindSpore ---------------------------------------------------

_MS_READER = r"""
import json, sys
import mindspore as ms
out = {}
for path, fmt, crc in json.loads(sys.argv[1]):
    d = ms.load_checkpoint(path, format=fmt, crc_check=crc)
    out[path] = {k: v if isinstance(v, str) else
                 [str(v.dtype), list(v.shape), v.float().asnumpy().ravel().tolist()
                  if v.dtype == ms.bfloat16 else v.asnumpy().ravel().tolist()]
                 for k, v in d.items()}
print("RESULT" + json.dumps(out))
"""


def _mindspore_reads_files_written_here(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    arrays = {
        "w64": rng.standard_normal((3, 2)), "h": rng.standard_normal(5).astype(np.float16),
        "i8": np.array([-3, 4], np.int8), "u16": np.array([7], np.uint16),
        "i32": np.array([[1, 2]], np.int32), "b": np.array([True, False]),
        "s": np.array(1.25, np.float32), "big": rng.standard_normal(40).astype(np.float32),
    }
    save = OrderedDict((k, Tensor(v)) for k, v in arrays.items())
    append = {"epoch": 7, "loss": 0.25, "ok": False, "note": "ünïcode"}
    ckpt, st_file = str(tmp_path / "mine.ckpt"), str(tmp_path / "mine.safetensors")
    monkeypatch.setattr(ckpt_format, "_SLICE_BYTES", 48)  # "big" becomes 4 consecutive slices
    ms.save_checkpoint(save, ckpt, append_dict=append, crc_check=True)
    files = [[ckpt, "ckpt", True]]
    if _has_safetensors():
        ms.save_checkpoint(save, st_file, format="safetensors",
                           append_dict={k: v for k, v in append.items() if k != "note"})
        files.append([st_file, "safetensors", False])
    run = subprocess.run([MS_PYTHON, "-c", _MS_READER, json.dumps(files)], capture_output=True,
                         text=True, timeout=300, env={**os.environ, "GLOG_v": "3"}, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads(run.stdout.split("RESULT", 1)[1])
    mine = got[ckpt]
    assert list(mine) == list(arrays) + list(append)
    for k, a in arrays.items():
        dtype, shape, flat = mine[k]
        assert dtype == str(Tensor(a).dtype) and tuple(shape) == a.shape
        assert np.array_equal(np.array(flat, a.dtype), a.ravel())
    assert mine["epoch"][:2] == ["Int64", []] and mine["epoch"][2] == [7]
    assert mine["loss"][:2] == ["Float32", []] and mine["loss"][2] == [0.25]
    assert mine["ok"][:2] == ["Bool", []] and mine["ok"][2] == [False]
    assert mine["note"] == "ünïcode"
    if len(files) > 1:
        assert list(got[st_file]) == sorted(list(arrays) + ["epoch", "loss", "ok"])


if MS_PYTHON:  # collected only when opted in: a MindSpore install is not a test dependency
    test_mindspore_reads_files_written_here = _mindspore_reads_files_written_here


def _has_safetensors():
    try:
        import safetensors  # noqa: F401
    except ImportError:
        return False
    return True


# ---- round trips ----------------------------------------------------------------------------

_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
           np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


@st.composite
def named_arrays(draw):
    n = draw(st.integers(1, 4))
    names = draw(st.lists(st.text(min_size=1, max_size=6).filter(lambda s: "\x00" not in s),
                          min_size=n, max_size=n, unique=True))
    out = OrderedDict()
    for name in names:
        dtype = np.dtype(draw(st.sampled_from(_DTYPES)))
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
        raw = draw(st.binary(min_size=dtype.itemsize * int(np.prod(shape)),
                             max_size=dtype.itemsize * int(np.prod(shape))))
        arr = np.frombuffer(raw, np.uint8 if dtype == np.bool_ else dtype).reshape(shape)
        out[name] = np.asarray(arr & 1, np.bool_) if dtype == np.bool_ else arr.copy()
    return out


@settings(deadline=None)
@given(arrays=named_arrays(), fmt=st.sampled_from(["ckpt", "safetensors"]))
def test_round_trip_any_dtype_and_shape(arrays, fmt):
    if fmt == "safetensors":
        if not _has_safetensors():
            return
        arrays = OrderedDict((k, v) for k, v in arrays.items() if v.dtype != np.complex128)
        if not arrays:
            return
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "x." + fmt)
        ms.save_checkpoint(OrderedDict((k, Parameter(v, name=k)) for k, v in arrays.items()),
                           path, format=fmt)
        got = ms.load_checkpoint(path, format=fmt)
    assert list(got) == (sorted(arrays) if fmt == "safetensors" else list(arrays))
    for k, a in arrays.items():
        # bitwise (NaN payloads included)
        assert got[k].asnumpy().dtype == a.dtype and got[k].shape == a.shape
        assert got[k].asnumpy().tobytes() == a.tobytes()


def test_cell_round_trip_and_identity_kept(tmp_path):
    src, dst = Small(), Small()
    before = {id(p): p for p in dst.get_parameters()}
    ms.save_checkpoint(src, str(tmp_path / "net"))
    d = ms.load_checkpoint(str(tmp_path / "net.ckpt"), net=dst)
    assert list(d) == [p.name for p in src.get_parameters()]
    for p in dst.get_parameters():
        assert before[id(p)] is p
        assert_same(p.asnumpy(), src.parameters_dict()[p.name].asnumpy())


def test_empty_and_zero_d_tensors_round_trip(tmp_path):
    # MindSpore 2.10 drops empty tensors when saving (and reads dims [0] as a 0-d tensor);
    # here they are kept, with their shape.
    path = str(tmp_path / "e.ckpt")
    arrays = {"e0": np.zeros(0, np.float32), "e03": np.zeros((0, 3), np.int32),
              "s": np.array(4.0, np.float64)}
    ms.save_checkpoint({k: Tensor(v) for k, v in arrays.items()}, path)
    d = ms.load_checkpoint(path)
    for k, v in arrays.items():
        assert_same(d[k].asnumpy(), v)


def test_packed_dims_and_field_order_are_read(tmp_path):
    # protobuf may pack repeated int64 dims and order fields freely; MindSpore writes neither
    def ld(field, payload):
        return bytes([field << 3 | 2, len(payload)]) + payload

    content = np.arange(6, dtype=np.int16).tobytes()
    body = ld(3, content) + ld(2, b"Int16") + ld(1, bytes([2, 3]))
    path = str(tmp_path / "packed.ckpt")
    write(path, ld(1, ld(2, body) + ld(1, b"w")))
    assert_same(ms.load_checkpoint(path)["w"].asnumpy(), np.arange(6, dtype=np.int16).reshape(2, 3))


def test_large_tensor_is_sliced_and_merged_back(tmp_path, monkeypatch):
    monkeypatch.setattr(ckpt_format, "_SLICE_BYTES", 16)
    a = np.arange(37, dtype=np.float32).reshape(37, 1)
    path = str(tmp_path / "s.ckpt")
    ms.save_checkpoint({"a": Tensor(a), "b": Tensor([1, 2])}, path, crc_check=True)
    raw = read(path)
    assert raw.count(b"\x0a\x01a\x12") == 10  # ceil(148 / 16) entries tagged 'a'
    d = ms.load_checkpoint(path, crc_check=True)
    assert_same(d["a"].asnumpy(), a)
    assert_same(d["b"].asnumpy(), np.array([1, 2], np.int64))


# ---- save_checkpoint arguments --------------------------------------------------------------

@pytest.mark.parametrize("given_name, written", [
    ("net", "net.ckpt"), ("net.ckpt", "net.ckpt"), ("a.ckpt.bak", "a.ckpt.bak.ckpt"),
    ("netckpt", "netckpt"),  # MindSpore only checks the ending, without the dot
])
def test_file_name_gets_the_extension_as_in_mindspore(tmp_path, given_name, written):
    ms.save_checkpoint(Small(), str(tmp_path / given_name))
    assert sorted(os.listdir(tmp_path)) == [written]


def test_safetensors_name_and_pathlike(tmp_path):
    pytest.importorskip("safetensors")
    ms.save_checkpoint(Small(), tmp_path / "m", format="safetensors")
    assert os.listdir(tmp_path) == ["m.safetensors"]
    d = ms.load_checkpoint(tmp_path / "m.safetensors", format="safetensors")
    assert list(d) == sorted(p.name for p in Small().get_parameters())


def test_save_path_errors(tmp_path):
    (tmp_path / "d.ckpt").mkdir()
    with pytest.raises(IsADirectoryError, match="directory"):
        ms.save_checkpoint(Small(), str(tmp_path / "d.ckpt"))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ms.save_checkpoint(Small(), str(tmp_path / "missing" / "x.ckpt"))
    with pytest.raises(TypeError, match="ckpt_file_name"):
        ms.save_checkpoint(Small(), 3)


def test_append_dict_types(tmp_path):
    path = str(tmp_path / "a.ckpt")
    ms.save_checkpoint(Small(), path, append_dict={
        "i": 5, "f": 0.5, "b": False, "s": "text", "t": Tensor([1.5, 2.5], ms.float64),
        "np_float": np.float64(0.25)})
    d = ms.load_checkpoint(path)
    assert [(d[k].dtype, d[k].shape) for k in ("i", "f", "b", "t", "np_float")] == [
        (ms.int64, ()), (ms.float32, ()), (ms.bool_, ()), (ms.float64, (2,)), (ms.float64, ())]
    assert d["s"] == "text"


@pytest.mark.parametrize("append, exc, words", [
    ({"x": None}, TypeError, "append_dict"),
    ({"x": [1]}, TypeError, "append_dict"),
    ({"x": np.ones(2)}, TypeError, "append_dict"),
    ({1: 2}, TypeError, "append_dict"),
    ([("x", 1)], TypeError, "append_dict"),
    ({"x": 2 ** 70}, ValueError, "int64"),
    ({"fc.weight": 1}, ValueError, "appears twice"),
])
def test_append_dict_errors_write_nothing(tmp_path, append, exc, words):
    with pytest.raises(exc, match=words):
        ms.save_checkpoint(Small(), str(tmp_path / "a.ckpt"), append_dict=append)
    assert os.listdir(tmp_path) == []


def test_save_obj_forms(tmp_path):
    net = Small()

    def f(n):
        return str(tmp_path / n)

    ms.save_checkpoint(net.trainable_params(), f("list"))
    assert list(ms.load_checkpoint(f("list.ckpt"))) == [p.name for p in net.trainable_params()]
    ms.save_checkpoint([{"name": "x", "data": Tensor([1, 2])}], f("dicts"))
    x = ms.load_checkpoint(f("dicts.ckpt"))["x"]
    assert (x.name, x.dtype) == ("x", ms.int64)
    # a dict with plain Tensor (and NumPy) values: MindSpore 2.10 crashes (UnboundLocalError)
    ms.save_checkpoint({"t": Tensor([1.0]), "n": np.arange(3), "s": "str"}, f("dict"))
    d = ms.load_checkpoint(f("dict.ckpt"))
    assert list(d) == ["t", "n", "s"] and d["s"] == "str"
    assert_same(d["n"].asnumpy(), np.arange(3))


@pytest.mark.parametrize("save_obj, words", [
    (3, "save_obj"), ((1, 2), "save_obj"), ([1, 2], "list of Parameters"),
    ([{"name": "x", "data": np.ones(2)}], "'data'"), ([{"name": 1, "data": Tensor(1)}], "'name'"),
    ([{"name": "x"}], "'name' and 'data'"), ({1: Tensor(1)}, "keys"), ({"a": [1]}, "'save_obj'"),
])
def test_save_obj_type_errors(tmp_path, save_obj, words):
    with pytest.raises(TypeError, match=words):
        ms.save_checkpoint(save_obj, str(tmp_path / "x.ckpt"))
    assert os.listdir(tmp_path) == []


def test_save_argument_errors(tmp_path):
    path = str(tmp_path / "x.ckpt")
    net = Small()
    cases = [
        ({"format": "pt"}, ValueError, "'format'"),
        ({"integrated_save": 1}, TypeError, "integrated_save"),
        ({"async_save": 1}, TypeError, "async_save"),
        ({"async_save": "fork"}, ValueError, "async_save"),
        ({"crc_check": "yes"}, TypeError, "crc_check"),
        ({"enc_key": "k"}, TypeError, "enc_key"),
        ({"enc_key": b"0" * 16}, NotImplementedError, "encrypted"),
        ({"choice_func": 3}, TypeError, "choice_func"),
        ({"remove_redundancy": 1}, TypeError, "remove_redundancy"),
        ({"bogus": 1}, TypeError, "bogus"),
    ]
    for kwargs, exc, words in cases:
        with pytest.raises(exc, match=words):
            ms.save_checkpoint(net, path, **kwargs)
    assert os.listdir(tmp_path) == []
    ms.save_checkpoint(net, path, incremental=False, global_step_num=3, integrated_save=False)
    assert os.listdir(tmp_path) == ["x.ckpt"]


def test_duplicate_parameter_names_refused(tmp_path):
    class Twin(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = Parameter(Tensor([1.0]), name="w")
            self.b = Parameter(Tensor([2.0]), name="w")

    with pytest.raises(ValueError, match="'w' appears twice"):
        ms.save_checkpoint(Twin(), str(tmp_path / "t.ckpt"))
    with pytest.raises(ValueError, match="appears twice"):
        ms.save_checkpoint([{"name": "x", "data": Tensor(1)}, {"name": "x", "data": Tensor(2)}],
                           str(tmp_path / "t.ckpt"))


def test_choice_func_and_prefixes(tmp_path):
    path = str(tmp_path / "c.ckpt")
    net = Small()
    ms.save_checkpoint(net, path, choice_func=lambda n: not n.startswith("bn"),
                       append_dict={"bn_extra": 1})
    names = list(ms.load_checkpoint(path))
    assert names == ["fc.weight", "fc.bias", "fc2.weight", "fc2.bias", "bn_extra"]
    assert list(ms.load_checkpoint(path, choice_func=lambda n: n.endswith("bias"))) == \
        ["fc.bias", "fc2.bias"]
    assert list(ms.load_checkpoint(path, filter_prefix="fc2")) == \
        ["fc.weight", "fc.bias", "bn_extra"]
    assert list(ms.load_checkpoint(path, specify_prefix=["fc2", "bn"])) == \
        ["fc2.weight", "fc2.bias", "bn_extra"]
    # the prefixes override choice_func, as in MindSpore
    assert list(ms.load_checkpoint(path, specify_prefix="fc.", choice_func=lambda n: False)) == \
        ["fc.weight", "fc.bias"]
    with pytest.raises(ValueError, match="nothing was loaded"):
        ms.load_checkpoint(path, choice_func=lambda n: False)
    for bad, exc in [(3, TypeError), ([], ValueError), ([""], ValueError), (["a", 1], TypeError)]:
        with pytest.raises(exc, match="filter_prefix"):
            ms.load_checkpoint(path, filter_prefix=bad)


def test_load_argument_errors(tmp_path):
    path = str(tmp_path / "x.ckpt")
    ms.save_checkpoint(Small(), path)
    cases = [
        ({"ckpt_file_name": path[:-5] + ".pt"}, ValueError, "must end with"),
        ({"ckpt_file_name": str(tmp_path / "nope.ckpt")}, ValueError, "does not exist"),
        ({"ckpt_file_name": 3}, TypeError, "ckpt_file_name"),
        ({"ckpt_file_name": io.BytesIO(b"")}, TypeError, "BytesIO"),
        ({"ckpt_file_name": path, "format": "npz"}, ValueError, "'format'"),
        ({"ckpt_file_name": path, "net": "net"}, TypeError, "'net'"),
        ({"ckpt_file_name": path, "strict_load": None}, TypeError, "strict_load"),
        ({"ckpt_file_name": path, "dec_key": "k"}, TypeError, "dec_key"),
        ({"ckpt_file_name": path, "dec_key": b"k" * 16}, NotImplementedError, "encrypted"),
        ({"ckpt_file_name": path, "choice_func": "x"}, TypeError, "choice_func"),
        ({"ckpt_file_name": path, "crc_check": 1}, TypeError, "crc_check"),
        ({"ckpt_file_name": path, "remove_redundancy": "no"}, TypeError, "remove_redundancy"),
    ]
    for kwargs, exc, words in cases:
        with pytest.raises(exc, match=words):
            ms.load_checkpoint(**kwargs)


def test_crc(tmp_path):
    path = str(tmp_path / "c.ckpt")
    net = Small()
    ms.save_checkpoint(net, path, crc_check=True)
    assert read(path)[-17:-10] == b"crc_num"
    assert list(ms.load_checkpoint(path, crc_check=True)) == list(values(net))
    raw = bytearray(read(path))
    raw[60] ^= 0x01  # inside the first tensor's content: still parses, the CRC catches it
    write(path, bytes(raw))
    ms.load_checkpoint(path)  # without crc_check a flipped content bit is not noticed
    with pytest.raises(CheckpointError, match="CRC"):
        ms.load_checkpoint(path, crc_check=True)
    plain = str(tmp_path / "p.ckpt")
    ms.save_checkpoint(net, plain)
    with pytest.warns(UserWarning, match="no CRC"):
        ms.load_checkpoint(plain, crc_check=True)


def test_safetensors_crc_strings_and_metadata(tmp_path):
    safetensors = pytest.importorskip("safetensors")
    path = str(tmp_path / "s.safetensors")
    net = Small()
    ms.save_checkpoint(net, path, format="safetensors", crc_check=True,
                       append_dict={"note": "hi", "epoch": 2}, remove_redundancy=False)
    with safetensors.safe_open(path, "np") as f:
        meta = f.metadata()
    assert meta["format"] == "ms" and meta["remove_redundancy"] == "False"
    assert meta["string:note"] == "hi" and "crc_num" in meta
    d = ms.load_checkpoint(path, format="safetensors", crc_check=True)
    assert d["note"] == "hi" and int(d["epoch"]) == 2
    assert list(d) == sorted(list(values(net)) + ["note", "epoch"])
    d2 = ms.load_checkpoint(io.BytesIO(read(path)), format="safetensors", crc_check=True)
    assert list(d2) == list(d)
    with pytest.raises(TypeError, match="complex128"):
        ms.save_checkpoint({"c": Tensor(np.ones(2, np.complex128))}, path, format="safetensors")


def test_safetensors_missing_is_a_clear_import_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "safetensors", None)
    with pytest.raises(ImportError, match="pip install safetensors"):
        ms.save_checkpoint(Small(), str(tmp_path / "x"), format="safetensors")
    assert os.listdir(tmp_path) == []
    write(tmp_path / "y.safetensors", b"\0" * 16)
    with pytest.raises(ImportError, match="safetensors"):
        ms.load_checkpoint(str(tmp_path / "y.safetensors"), format="safetensors")


# ---- atomic and asynchronous saves ----------------------------------------------------------

def test_a_failed_save_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = str(tmp_path / "a.ckpt")
    ms.save_checkpoint({"x": Tensor([1.0])}, path)
    old = read(path)

    def half_then_crash(f, entries, crc_check):
        f.write(b"\x0a\x05partial")
        raise OSError("disk full")

    monkeypatch.setattr(ckpt_format, "write_ckpt", half_then_crash)
    with pytest.raises(OSError, match="disk full"):
        ms.save_checkpoint({"x": Tensor([2.0])}, path)
    assert os.listdir(tmp_path) == ["a.ckpt"] and read(path) == old


def test_async_save_snapshots_values_and_load_waits(tmp_path):
    path = str(tmp_path / "async.ckpt")
    net = Small()
    before = values(net)
    ms.save_checkpoint(net, path, async_save=True)
    net.fc.weight.set_data(Tensor(np.full((2, 3), 9.0, np.float32)))  # after the call returns
    d = ms.load_checkpoint(path)  # waits for the writer
    assert not ms.async_ckpt_thread_status()
    for k, v in before.items():
        assert_same(d[k].asnumpy(), v)
    ms.save_checkpoint(net, str(tmp_path / "t"), async_save="thread")
    ms.save_checkpoint(net, str(tmp_path / "p"), async_save="process")
    assert float(ms.load_checkpoint(str(tmp_path / "p.ckpt"))["fc.weight"][0, 0]) == 9.0


def test_async_save_failure_is_raised_by_the_next_call(tmp_path, monkeypatch):
    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(ser, "_exec_save", fail)
    ms.save_checkpoint(Small(), str(tmp_path / "a"), async_save=True)
    with pytest.raises(RuntimeError, match="asynchronous save .* failed: OSError: disk full"):
        ms.save_checkpoint(Small(), str(tmp_path / "b"))
    monkeypatch.undo()
    ms.save_checkpoint(Small(), str(tmp_path / "b"))  # raised once, then clear
    assert os.listdir(tmp_path) == ["b.ckpt"]


def test_load_checkpoint_async(tmp_path):
    path = str(tmp_path / "x.ckpt")
    ms.save_checkpoint(Small(), path)
    future = ms.load_checkpoint_async(path)
    assert list(future.result()) == list(ms.load_checkpoint(path))


# ---- load_param_into_net --------------------------------------------------------------------

def test_load_param_into_net_lists_as_mindspore():
    # (param_not_load, ckpt_not_load) exactly as MindSpore 2.10 returns them for this dict
    net = Small()
    d = {"zz": P([1.0], "zz"), "fc.bias": P([5.0, 6.0]), "tag": "hello",
         "fc2.weight": P(np.ones((2, 2)), "x")}
    assert ms.load_param_into_net(net, d) == (
        ["fc.weight", "fc2.bias", "bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta"],
        ["zz", "tag"])
    assert_same(net.fc.bias.asnumpy(), np.array([5.0, 6.0], np.float32))
    assert_same(net.fc2.weight.asnumpy(), np.ones((2, 2), np.float32))


def test_load_param_into_net_prefix_matching():
    net = Small()
    d = {"net.fc.bias": P([5.0, 6.0]), "net.fc.weight": P(np.ones((2, 3))),
         "other.fc2.bias": P([7.0, 8.0]), "zz": P([1.0])}
    not_loaded, unused = ms.load_param_into_net(net, d)
    # MindSpore 2.10 gives the same first list; its second also lists the three keys it just
    # loaded through the prefixes ('net.', then 'other.'), against its own documentation.
    assert not_loaded == ["fc2.weight", "bn.moving_mean", "bn.moving_variance", "bn.gamma",
                          "bn.beta"]
    assert unused == ["zz"]
    assert_same(net.fc.bias.asnumpy(), np.array([5.0, 6.0], np.float32))
    assert_same(net.fc2.bias.asnumpy(), np.array([7.0, 8.0], np.float32))
    strict = Small()
    before = values(strict)
    assert ms.load_param_into_net(strict, d, strict_load=True) == (list(before), list(d))
    for k, v in values(strict).items():
        assert_same(v, before[k])


def test_load_param_into_net_dtype_rules():
    net = Small()
    half = {"fc.bias": Parameter(Tensor(np.array([1, 2], np.float16)), name="fc.bias")}
    ms.load_param_into_net(net, half)  # float16 -> float32 without strict_load
    assert_same(net.fc.bias.asnumpy(), np.array([1, 2], np.float32))
    with pytest.raises(TypeError, match=r"'fc.bias' has dtype Float32 .* Float16.*strict_load"):
        ms.load_param_into_net(net, half, strict_load=True)
    ints = {"fc.bias": Parameter(Tensor(np.array([1, 2], np.int32)), name="fc.bias")}
    with pytest.raises(TypeError, match="Float32.*Int32"):
        ms.load_param_into_net(net, ints)


def test_load_param_into_net_shape_rules():
    net = Small()
    with pytest.raises(ValueError, match=r"'fc.weight' has shape \(2, 3\).*\(2, 2\)"):
        ms.load_param_into_net(net, {"fc.weight": P(np.ones((2, 2)))})
    # extra trailing size-1 dims are dropped (MindSpore 2.10 keeps the checkpoint's shape)
    ms.load_param_into_net(net, {"fc.bias": P(np.full((2, 1, 1), 3.0))})
    assert_same(net.fc.bias.asnumpy(), np.full(2, 3.0, np.float32))


def test_load_param_into_net_is_all_or_nothing():
    net = Small()
    before = values(net)
    versions = {p.name: p._version for p in net.get_parameters()}
    d = {"fc.weight": P(np.ones((2, 3))), "fc.bias": P(np.ones(5)),
         "bn.gamma": Parameter(Tensor(np.ones(2, np.int64)), name="g")}
    with pytest.raises(ValueError) as info:
        ms.load_param_into_net(net, d)
    message = str(info.value)
    assert "nothing was loaded" in message and "'fc.bias'" in message and "Int64" in message
    assert {p.name: p._version for p in net.get_parameters()} == versions
    for k, v in values(net).items():
        assert_same(v, before[k])


def test_load_param_into_net_type_errors():
    with pytest.raises(TypeError, match="'net'"):
        ms.load_param_into_net("net", {})
    with pytest.raises(TypeError, match="'parameter_dict'"):
        ms.load_param_into_net(Small(), [("fc.bias", P([1.0, 2.0]))])
    with pytest.raises(TypeError, match="'parameter_dict'"):
        ms.load_param_into_net(Small(), {"fc.bias": np.ones(2)})
    with pytest.raises(TypeError, match="strict_load"):
        ms.load_param_into_net(Small(), {}, strict_load="yes")
    # plain Tensor values are accepted (MindSpore 2.10 wants Parameters only)
    net = Small()
    assert ms.load_param_into_net(net, {"fc.bias": Tensor([3.0, 4.0])})[1] == []


def test_str_under_a_parameter_name_is_not_loaded():
    net = Small()
    not_loaded, unused = ms.load_param_into_net(net, {"fc.bias": "text"})
    assert "fc.bias" in not_loaded and unused == ["fc.bias"]


def test_accu_grads_are_not_reported_missing():
    net = Small()
    net.accu_grads_w = Parameter(Tensor([0.0]), name="accu_grads.w")
    not_loaded, _ = ms.load_param_into_net(net, {"fc.bias": P([1.0, 2.0])})
    assert "accu_grads.w" not in not_loaded


def test_load_bumps_versions_so_a_pending_backward_refuses():
    net = nn.Dense(2, 1)
    d = {"weight": P(np.full((1, 2), 3.0)), "bias": P([0.5])}
    old = net.weight._version
    ms.load_param_into_net(net, d)
    assert net.weight._version > old

    def loss(x):
        y = net(x).sum()
        ms.load_param_into_net(net, d)  # overwrites a value saved for backward
        return y

    with pytest.raises(RuntimeError, match="modified in place"):
        ms.grad(loss, grad_position=None, weights=net.trainable_params())(Tensor([[1.0, 2.0]]))


def test_load_checkpoint_into_net_mismatch_changes_nothing(tmp_path):
    path = str(tmp_path / "m.ckpt")
    ms.save_checkpoint({"fc.weight": P(np.ones((2, 3))), "fc.bias": P(np.ones(3))}, path)
    net = Small()
    before = values(net)
    with pytest.raises(ValueError, match="fc.bias"):
        ms.load_checkpoint(path, net=net)
    for k, v in values(net).items():
        assert_same(v, before[k])


# ---- Cell.state_dict / load_state_dict -------------------------------------------------------

def test_state_dict_interoperates(tmp_path):
    src, dst = Small(), Small()
    path = str(tmp_path / "sd.ckpt")
    ms.save_checkpoint(src.state_dict(), path)
    missing, unexpected = dst.load_state_dict(ms.load_checkpoint(path))
    assert missing == [] and unexpected == []
    assert all(np.array_equal(v, values(src)[k]) for k, v in values(dst).items())
    other = Small()
    assert ms.load_param_into_net(other, src.state_dict()) == ([], [])
    assert all(np.array_equal(v, values(src)[k]) for k, v in values(other).items())


# ---- conversion and exports -----------------------------------------------------------------

def test_ckpt_safetensors_conversion(tmp_path):
    pytest.importorskip("safetensors")
    src = tmp_path / "rank0"
    src.mkdir()
    net = Small()
    ms.save_checkpoint(net, str(src / "m.ckpt"))
    ms.ckpt_to_safetensors(str(src / "m.ckpt"), name_map={"fc.bias": "renamed"})
    d = ms.load_checkpoint(str(src / "m.safetensors"), format="safetensors")
    assert "renamed" in d and "fc.bias" not in d
    out = tmp_path / "out"
    ms.safetensors_to_ckpt(str(tmp_path), save_path=str(out))
    back = ms.load_checkpoint(str(out / "rank0" / "m.ckpt"))
    assert_same(back["renamed"].asnumpy(), net.fc.bias.asnumpy())
    with pytest.raises(ValueError, match=".ckpt file"):
        ms.ckpt_to_safetensors(str(src / "m.safetensors"))


def test_exports():
    for name in ("save_checkpoint", "load_checkpoint", "load_param_into_net",
                 "async_ckpt_thread_status", "ckpt_to_safetensors", "safetensors_to_ckpt",
                 "load_checkpoint_async"):
        fn = getattr(ser, name)
        assert getattr(ms, name) is fn and getattr(ms.train, name) is fn
    assert issubclass(CheckpointError, ValueError)


def test_no_warning_on_a_normal_load(tmp_path):
    path = str(tmp_path / "w.ckpt")
    ms.save_checkpoint(Small(), path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ms.load_checkpoint(path, net=Small())
