"""dtype objects: identity, names, conversions to and from NumPy."""
import copy
import pickle

import numpy as np
import pytest

import minispore as ms

ALL = [ms.bool_, ms.int8, ms.int16, ms.int32, ms.int64, ms.uint8, ms.uint16, ms.uint32,
       ms.uint64, ms.float16, ms.float32, ms.float64, ms.complex64, ms.complex128]
NAMES = ["Bool", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
         "Float16", "Float32", "Float64", "Complex64", "Complex128"]
NUMPY = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
         np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


def test_module_and_top_level_dtypes_are_the_same_objects():
    assert ms.dtype.float32 is ms.float32
    assert ms.common.dtype.int64 is ms.int64
    assert ms.float32 == ms.dtype.float32
    assert ms.float32 != ms.float16
    assert not (ms.float32 == ms.float64)


def test_aliases():
    assert ms.half is ms.float16
    assert ms.single is ms.float32
    assert ms.double is ms.float64


@pytest.mark.parametrize("dtype,name", list(zip(ALL, NAMES)), ids=NAMES)
def test_str_and_repr(dtype, name):
    assert str(dtype) == name
    assert repr(dtype) == "mindspore." + name.lower()


def test_bool_and_category_names():
    assert repr(ms.bool_) == "mindspore.bool"
    assert str(ms.bfloat16) == "BFloat16"
    assert (str(ms.float_), repr(ms.float_)) == ("Float", "mindspore.float")
    assert (str(ms.int_), repr(ms.int_)) == ("Int", "mindspore.int")
    assert (str(ms.number), repr(ms.number)) == ("Number", "mindspore.number")
    assert (str(ms.tensor_type), repr(ms.tensor_type)) == ("Tensor", "mindspore.tensor")


def test_dtypes_do_not_equal_other_spellings():
    assert ms.float32 != "Float32"
    assert ms.float32 != np.float32
    with pytest.raises(TypeError):
        ms.int8 < ms.int16


def test_usable_as_dict_keys_and_in_containers():
    table = {ms.float32: "f", ms.int64: "i"}
    assert table[ms.dtype.float32] == "f"
    assert ms.float32 in (ms.float16, ms.float32)
    assert ms.Tensor([1.0]).dtype in (ms.float16, ms.float32)
    assert ms.Tensor([1]).dtype is ms.int64


def test_pickle_and_copy_keep_identity():
    assert pickle.loads(pickle.dumps(ms.float32)) is ms.float32
    assert pickle.loads(pickle.dumps(ms.bool_)) is ms.bool_
    assert copy.deepcopy(ms.int64) is ms.int64
    assert copy.copy(ms.int8) is ms.int8


@pytest.mark.parametrize("dtype,np_type", list(zip(ALL, NUMPY)), ids=NAMES)
def test_dtype_to_nptype(dtype, np_type):
    assert ms.dtype_to_nptype(dtype) is np_type
    assert ms.Tensor(np.zeros(2, np_type)).dtype is dtype


def test_dtype_to_nptype_rejects_categories_and_bfloat16():
    with pytest.raises(TypeError, match="category"):
        ms.dtype_to_nptype(ms.float_)
    with pytest.raises(TypeError, match="bfloat16"):
        ms.dtype_to_nptype(ms.bfloat16)


def test_dtype_to_pytype():
    assert ms.dtype.dtype_to_pytype(ms.float32) is float
    assert ms.dtype.dtype_to_pytype(ms.float16) is float
    assert ms.dtype.dtype_to_pytype(ms.int32) is int
    assert ms.dtype.dtype_to_pytype(ms.uint8) is int
    assert ms.dtype.dtype_to_pytype(ms.bool_) is bool


def test_pytype_to_dtype():
    assert ms.pytype_to_dtype(float) is ms.float64
    assert ms.pytype_to_dtype(int) is ms.int64
    assert ms.pytype_to_dtype(bool) is ms.bool_
    assert ms.pytype_to_dtype(complex) is ms.complex128
    assert ms.pytype_to_dtype(np.float32) is ms.float32
    assert ms.pytype_to_dtype(np.int32) is ms.int32
    assert ms.pytype_to_dtype(np.dtype("float16")) is ms.float16
    assert ms.pytype_to_dtype(ms.float32) is ms.float32


def test_get_py_obj_dtype():
    assert ms.get_py_obj_dtype(1) is ms.int64
    assert ms.get_py_obj_dtype(1.5) is ms.float64
    assert ms.get_py_obj_dtype(True) is ms.bool_


def test_category_tuples():
    assert ms.float32 in ms.dtype.float_type and ms.int32 not in ms.dtype.float_type
    assert set(ms.dtype.int_type) == {ms.int8, ms.int16, ms.int32, ms.int64}
    assert set(ms.dtype.uint_type) == {ms.uint8, ms.uint16, ms.uint32, ms.uint64}
    assert ms.complex64 in ms.dtype.number_type and ms.bool_ not in ms.dtype.number_type


def test_itemsize():
    assert [t.itemsize for t in (ms.int8, ms.float16, ms.float32, ms.int64, ms.bfloat16)] == \
        [1, 2, 4, 8, 2]


@pytest.mark.parametrize("target,expected", [
    (ms.int32, ms.int32), (np.int32, ms.int32), (np.dtype("int8"), ms.int8),
    ("int64", ms.int64), ("float16", ms.float16), (np.float64, ms.float64),
    (int, ms.int64), (float, ms.float64), (bool, ms.bool_), (ms.bool_, ms.bool_),
])
def test_astype_accepts_ms_numpy_and_python_dtypes(target, expected):
    t = ms.Tensor([1.5, -2.5, 0.0])
    out = t.astype(target)
    assert out.dtype is expected
    np.testing.assert_array_equal(out.asnumpy(), np.array([1.5, -2.5, 0.0]).astype(
        ms.dtype_to_nptype(expected)))


@pytest.mark.parametrize("target", [None, str, object, "not-a-dtype", [1]])
def test_astype_rejects_non_numeric_dtypes(target):
    with pytest.raises(TypeError, match="dtype"):
        ms.Tensor([1.5]).astype(target)


def test_bfloat16_tensors_are_refused_with_a_clear_error():
    with pytest.raises(TypeError, match="bfloat16"):
        ms.Tensor([1.0], ms.bfloat16)
