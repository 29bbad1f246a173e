"""float8_e4m3fn / float8_e5m2: storage-only dtypes, checked against MindSpore 2.10
(tests/common/data/make_float8.py)."""
import json
import pathlib
import pickle
import sys

import numpy as np
import pytest

import minispore as ms



def test_without_ml_dtypes_the_dtype_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    with pytest.raises(TypeError, match="ml_dtypes.*minispore\\[float8\\]"):
        ms.Tensor([1.0], ms.float8_e5m2)


ml_dtypes = pytest.importorskip("ml_dtypes")

DATA = pathlib.Path(__file__).resolve().parent / "data"
FIXTURE = np.load(DATA / "float8.npz")
TEXTS = json.loads((DATA / "float8.json").read_text())
NAMES = ("float8_e4m3fn", "float8_e5m2")


def _bits(t):
    return t.asnumpy().view(np.uint8)


@pytest.mark.parametrize("name", NAMES)
def test_conversion_rounds_as_mindspore(name):
    x = FIXTURE["x"]
    got = _bits(ms.Tensor(x, getattr(ms, name)))
    want = FIXTURE[name]
    nan = np.isnan(x)
    np.testing.assert_array_equal(got[~nan], want[~nan])
    # NaN's payload differs (0x7E here, 0x7F in MindSpore for e5m2); both are NaN
    back = ms.Tensor(x, getattr(ms, name)).astype(ms.float32).asnumpy()
    assert np.isnan(back[nan]).all()


@pytest.mark.parametrize("key", sorted(TEXTS))
def test_repr_as_mindspore(key):
    name, case = key.split("/")
    t = ms.Tensor(FIXTURE[f"case_{case}"], getattr(ms, name))
    assert repr(t) == TEXTS[key]


@pytest.mark.parametrize("name", NAMES)
def test_storage_tensor_properties_and_conversions(name):
    dt = getattr(ms, name)
    t = ms.Tensor([[1.5, -2.25, 300.0]], dt)
    assert t.dtype is dt and str(dt) in repr(t)
    assert t.shape == (1, 3) and t.ndim == 2 and t.size == 3 and len(t) == 1
    assert t.itemsize == dt.itemsize == 1 and t.nbytes == 3 and t.strides == (3, 1)
    assert t.is_floating_point() and dt in ms.common.dtype.float_type
    assert t.asnumpy().dtype == np.dtype(getattr(ml_dtypes, name))
    f32 = t.astype(ms.float32)
    assert f32.dtype == ms.float32 and type(f32) is ms.Tensor
    np.testing.assert_array_equal(f32.asnumpy(), t.asnumpy().astype(np.float32))
    assert ms.ops.cast(t, ms.float16).dtype == ms.float16
    assert ms.Tensor(t, ms.float64).dtype == ms.float64
    assert t.tolist() == f32.tolist()
    assert ms.Tensor([2.5], dt).item() == 2.5
    other = NAMES[1 - NAMES.index(name)]
    assert t.astype(getattr(ms, other)).dtype is getattr(ms, other)
    assert ms.ops.cast(f32, dt).dtype is dt
    copy = t.copy()
    np.testing.assert_array_equal(_bits(copy), _bits(t))
    again = pickle.loads(pickle.dumps(t))
    assert again.dtype is dt and np.array_equal(_bits(again), _bits(t))
    assert pickle.loads(pickle.dumps(dt)) is dt
    assert ms.from_numpy(t.asnumpy()).dtype is dt
    assert ms.Tensor(t.asnumpy()).dtype is dt


@pytest.mark.parametrize("op, call", [
    ("Tanh", lambda t: ms.ops.tanh(t)), ("Add", lambda t: t + t), ("Mul", lambda t: t * 2),
    ("ReduceSum", lambda t: t.sum()), ("Concat", lambda t: ms.ops.concat([t, t])),
])
def test_operations_refuse_storage_tensors(op, call):
    t = ms.Tensor([1.5, 2.0], ms.float8_e4m3fn)
    with pytest.raises(TypeError, match=f"For '{op}'.*storage-only dtype Float8E4M3FN"):
        call(t)


def test_storage_dtype_refused_where_values_are_computed():
    with pytest.raises(TypeError, match="storage-only"):
        ms.ops.zeros((2,), ms.float8_e5m2)
    with pytest.raises(TypeError, match="For 'Parameter'.*storage-only"):
        ms.Parameter(ms.Tensor([1.0], ms.float8_e4m3fn))


def test_conversion_is_a_constant_under_grad():
    # q(x) = float8 rounding of x is a copy without gradient: d/dx sum(q(x) * x) = q(x)
    x = ms.Tensor([1.1, 3.3], ms.float32)
    g = ms.grad(lambda x: (x.astype(ms.float8_e4m3fn).astype(ms.float32) * x).sum())(x)
    want = x.asnumpy().astype(ml_dtypes.float8_e4m3fn).astype(np.float32)
    np.testing.assert_array_equal(g.asnumpy(), want)
