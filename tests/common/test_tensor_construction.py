"""Tensor construction and default dtypes: Python floats give float32 and ints int64, NumPy
arrays and scalars keep their dtype, `from_numpy` shares memory while `Tensor(ndarray)` copies,
and there are no torch-style autograd attributes."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor


@pytest.mark.parametrize("data,dtype,shape", [
    (1, ms.int64, ()),
    ([1, 2], ms.int64, (2,)),
    ((1, 2), ms.int64, (2,)),
    ([[1, 2], [3, 4]], ms.int64, (2, 2)),
    (1.5, ms.float32, ()),
    ([1, 2.5], ms.float32, (2,)),
    ([[1, 2], [3, 4.0]], ms.float32, (2, 2)),
    (True, ms.bool_, ()),
    ([True, False], ms.bool_, (2,)),
    ([True, 2], ms.int64, (2,)),
    ([True, 2.5], ms.float32, (2,)),
    (1 + 2j, ms.complex128, ()),
], ids=repr)
def test_python_data_default_dtypes(data, dtype, shape):
    t = Tensor(data)
    assert t.dtype is dtype
    assert t.shape == shape
    np.testing.assert_array_equal(t.asnumpy(), np.array(data))


@pytest.mark.parametrize("np_dtype", [np.float64, np.float32, np.float16, np.int64, np.int32,
                                      np.int8, np.uint8, np.uint64, np.bool_, np.complex64])
def test_ndarray_keeps_its_dtype(np_dtype):
    arr = np.arange(6).reshape(2, 3).astype(np_dtype)
    t = Tensor(arr)
    assert t.dtype is ms.pytype_to_dtype(np_dtype)
    np.testing.assert_array_equal(t.asnumpy(), arr)


def test_float64_and_default_int_arrays():
    assert Tensor(np.array([1.5])).dtype is ms.float64  # float64 arrays stay float64
    assert Tensor(np.array([1])).dtype is ms.int64


@pytest.mark.parametrize("scalar,dtype", [
    (np.float32(1), ms.float32), (np.float64(1.5), ms.float64), (np.array(1.5), ms.float64),
    (np.int32(3), ms.int32), (np.uint8(3), ms.uint8), (np.bool_(True), ms.bool_),
    (np.float16(0.5), ms.float16),
], ids=repr)
def test_numpy_scalars_keep_their_dtype(scalar, dtype):
    t = Tensor(scalar)
    assert t.dtype is dtype and t.shape == ()
    assert t.item() == scalar.item()


@pytest.mark.parametrize("data,dtype", [
    ([np.float64(1.0), 2], ms.float32),
    ([np.float64(1.0), np.float64(2.0)], ms.float32),
    ([np.int32(1), np.int32(2)], ms.int64),
    ([np.float16(1), np.float16(2)], ms.float16),
    ([np.uint8(1), np.uint8(2)], ms.uint8),
    ([np.array([1.5]), np.array([2.0])], ms.float32),
], ids=repr)
def test_sequences_of_numpy_values_use_mindspore_defaults(data, dtype):
    assert Tensor(data).dtype is dtype


def test_empty_list():
    t = Tensor([])
    assert t.shape == (0,) and t.dtype is ms.float32
    assert Tensor([[]]).shape == (1, 0)
    assert Tensor([], ms.int32).dtype is ms.int32


def test_list_of_0d_tensors_is_stacked():
    t = Tensor([Tensor(1.0), Tensor(2.0)])
    assert t.shape == (2,) and t.dtype is ms.float32
    np.testing.assert_array_equal(t.asnumpy(), [1.0, 2.0])
    assert Tensor((Tensor(1.0), Tensor(2.0))).shape == (2,)
    assert Tensor([Tensor(1), Tensor(2)]).dtype is ms.int64
    assert Tensor([Tensor(1.0, ms.float16), Tensor(2.0, ms.float16)]).dtype is ms.float16
    assert Tensor([Tensor(1.0, ms.float64), Tensor(2.0, ms.float64)]).dtype is ms.float32
    assert Tensor([[Tensor(1.0)], [Tensor(2.0)]]).shape == (2, 1)


def test_list_of_tensors_and_numbers():
    t = Tensor([Tensor(1, ms.int32), 2.5])
    assert t.dtype is ms.float32
    np.testing.assert_array_equal(t.asnumpy(), [1.0, 2.5])
    assert Tensor([Tensor([1, 2]), Tensor([3, 4])]).shape == (2, 2)


@pytest.mark.parametrize("data,dtype,expected", [
    (-1.5, ms.int32, -1),
    (1.7, ms.int32, 1),
    ([-1.5, 2.7, -2.7], ms.int64, [-1, 2, -2]),
    (np.array([-0.9, 0.9]), ms.int8, [0, 0]),
    ([1, 2], ms.float16, [1.0, 2.0]),
    (5, ms.bool_, True),
    (0.0, ms.bool_, False),
    (300, ms.uint8, 44),
    ([-1, 256], ms.uint8, [255, 0]),
], ids=repr)
def test_dtype_argument_casts_and_truncates_toward_zero(data, dtype, expected):
    t = Tensor(data, dtype)
    assert t.dtype is dtype
    np.testing.assert_array_equal(t.asnumpy(), expected)
    assert Tensor(data, dtype=dtype).dtype is dtype


def test_python_floats_cast_to_float64_keep_their_digits():
    assert Tensor(0.1, ms.float64).item() == 0.1
    assert Tensor([0.1, 1 / 3], ms.float64).asnumpy().tolist() == [0.1, 1 / 3]


def test_tensor_from_tensor_copies_and_casts():
    src = Tensor([1.7, 2.0])
    same = Tensor(src)
    assert same is not src and same.dtype is ms.float32
    cast = Tensor(src, ms.int32)
    assert cast.dtype is ms.int32
    np.testing.assert_array_equal(cast.asnumpy(), [1, 2])
    same[0] = 9.0
    assert src.asnumpy()[0] == np.float32(1.7)


def test_from_numpy_shares_memory_and_tensor_copies():
    arr = np.array([1.0, 2.0])
    shared = Tensor.from_numpy(arr)
    shared_too = ms.from_numpy(arr)
    copied = Tensor(arr)
    arr[0] = 5.0
    assert shared.asnumpy()[0] == 5.0
    assert shared_too.asnumpy()[0] == 5.0
    assert copied.asnumpy()[0] == 1.0
    assert shared.dtype is ms.float64


def test_from_numpy_rejects_non_arrays():
    with pytest.raises(TypeError, match="NumPy array"):
        Tensor.from_numpy([1.0, 2.0])


def test_tensor_function_and_is_tensor():
    assert ms.tensor([1, 2]).dtype is ms.int64
    assert ms.tensor(1.5, ms.float64).dtype is ms.float64
    assert ms.is_tensor(Tensor(1)) and not ms.is_tensor(np.array(1))


def test_noncontiguous_and_byte_swapped_arrays():
    assert Tensor(np.arange(6)[::2]).asnumpy().tolist() == [0, 2, 4]
    t = Tensor(np.array([1.0, 2.0], ">f4"))
    assert t.dtype is ms.float32
    np.testing.assert_array_equal(t.asnumpy(), [1.0, 2.0])


def test_shape_and_dtype_without_data_give_zeros():
    t = Tensor(shape=(2, 3), dtype=ms.float32)
    assert t.shape == (2, 3) and t.dtype is ms.float32
    np.testing.assert_array_equal(t.asnumpy(), np.zeros((2, 3)))


def test_tensor_from_an_initializer():
    from minispore.common.initializer import One
    t = Tensor(shape=(2, 3), dtype=ms.float32, init=One())
    assert t.shape == (2, 3) and t.dtype is ms.float32
    np.testing.assert_array_equal(t.init_data().asnumpy(), np.ones((2, 3)))
    assert Tensor(shape=[4], dtype=ms.float16, init="zeros").dtype is ms.float16


# ---- bad input -----------------------------------------------------------------------------------

@pytest.mark.parametrize("data", ["abc", {1: 2}, object(), b"ab"], ids=repr)
def test_unsupported_input_types_raise_type_error(data):
    with pytest.raises(TypeError, match="For 'Tensor', 'input_data' must be"):
        Tensor(data)


def test_none_and_missing_data_raise_type_error():
    with pytest.raises(TypeError, match="'input_data' must be given"):
        Tensor(None)
    with pytest.raises(TypeError, match="'input_data' must be given"):
        Tensor()


@pytest.mark.parametrize("data", [["a", "b"], [1, None], [[1, 2], ["x", 3]]], ids=repr)
def test_sequences_of_non_numbers_raise_type_error(data):
    with pytest.raises(TypeError, match="only numbers"):
        Tensor(data)


@pytest.mark.parametrize("data", [[[1, 2], [3]], [1, [2, 3]], [[1.0], [2.0, 3.0], [4.0]]],
                         ids=repr)
def test_ragged_sequences_raise_value_error(data):
    with pytest.raises(ValueError, match="rectangular"):
        Tensor(data)


@pytest.mark.parametrize("arr", [np.array(["a"]), np.array([1, "a"], dtype=object)],
                         ids=["str", "object"])
def test_string_and_object_arrays_raise_type_error(arr):
    with pytest.raises(TypeError, match="not supported"):
        Tensor(arr)


def test_out_of_range_python_ints_raise_value_error():
    with pytest.raises(ValueError, match="int64"):
        Tensor(2**64)
    with pytest.raises(ValueError, match="int64"):
        Tensor([1, 2**70])


def test_data_with_shape_or_init_is_refused():
    with pytest.raises(ValueError, match="without 'input_data'"):
        Tensor(np.ones((2, 2)), shape=(2, 2))
    with pytest.raises(ValueError, match="'shape' and 'dtype'"):
        Tensor(shape=(2, 3))


def test_tensor_has_no_torch_autograd_attributes():
    t = Tensor([1.0, 2.0])
    for name in ("requires_grad", "grad", "backward", "detach"):
        assert not hasattr(t, name), name


# ---- creation ops of the 3.1 table ---------------------------------------------------------------

def test_zeros_and_ones_default_to_float32():
    ops = ms.ops
    assert ops.zeros((2, 3)).dtype is ms.float32 and ops.ones((2,)).dtype is ms.float32
    assert ops.zeros(3).shape == (3,)
    assert ops.ones((2, 2), ms.int32).dtype is ms.int32
    assert ops.zeros((2,), dtype=ms.float16).dtype is ms.float16
    np.testing.assert_array_equal(ops.ones((2, 3)).asnumpy(), np.ones((2, 3)))


def test_arange_dtypes():
    ops = ms.ops
    assert ops.arange(5).dtype is ms.int64 and ops.arange(5).asnumpy().tolist() == [0, 1, 2, 3, 4]
    quarter = ops.arange(0, 1, 0.25)
    assert quarter.dtype is ms.float32 and quarter.asnumpy().tolist() == [0.0, 0.25, 0.5, 0.75]
    assert ops.arange(5, dtype=ms.float32).dtype is ms.float32


def test_full_dtypes():
    ops = ms.ops
    three = ops.full((2,), 3)
    assert three.dtype is ms.int64 and three.asnumpy().tolist() == [3, 3]
    assert ops.full((2,), 3.7, dtype=ms.float32).asnumpy().tolist() == [np.float32(3.7)] * 2
    # MindSpore 2.10 truncates a float fill without dtype to int64 (section 14); minispore keeps it.
    assert ops.full((2,), 3.7).dtype is ms.float32


def test_other_creation_ops():
    ops = ms.ops
    assert ops.eye(2).dtype is ms.float32 and ops.eye(2, 3).shape == (2, 3)
    line = ops.linspace(0, 1, 5)
    assert line.dtype is ms.float32 and line.asnumpy().tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert ops.rand(2, 3).dtype is ms.float32 and ops.rand(2, 3).shape == (2, 3)
    assert ops.randn(2).dtype is ms.float32
    ints = ops.randint(0, 5, (3,))
    assert ints.dtype is ms.int64 and ((ints.asnumpy() >= 0) & (ints.asnumpy() < 5)).all()
