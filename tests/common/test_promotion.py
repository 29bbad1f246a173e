"""MindSpore's type promotion: Python scalars never widen a tensor within its category, 0-d
tensors promote fully, int / int is float32, // and % follow Python."""
import operator

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor

ORDER = [ms.bool_, ms.int8, ms.uint8, ms.int16, ms.int32, ms.int64, ms.float16, ms.float32,
         ms.float64]
# Result dtype of `Tensor(a) + Tensor(b)` in MindSpore 2.10, rows a, columns b, in ORDER.
ADD_TABLE = """
Bool    Bool    Int8    UInt8   Int16   Int32   Int64   Float16 Float32 Float64
Int8    Int8    Int8    Int16   Int16   Int32   Int64   Float16 Float32 Float64
UInt8   UInt8   Int16   UInt8   Int16   Int32   Int64   Float16 Float32 Float64
Int16   Int16   Int16   Int16   Int16   Int32   Int64   Float16 Float32 Float64
Int32   Int32   Int32   Int32   Int32   Int32   Int64   Float16 Float32 Float64
Int64   Int64   Int64   Int64   Int64   Int64   Int64   Float16 Float32 Float64
Float16 Float16 Float16 Float16 Float16 Float16 Float16 Float16 Float32 Float64
Float32 Float32 Float32 Float32 Float32 Float32 Float32 Float32 Float32 Float64
Float64 Float64 Float64 Float64 Float64 Float64 Float64 Float64 Float64 Float64
"""
EXPECTED = {(a, b): row[j + 1] for a, row in zip(ORDER, [r.split() for r in
            ADD_TABLE.strip().splitlines()]) for j, b in enumerate(ORDER)}
PAIRS = [(a, b) for a in ORDER for b in ORDER]


def _ones(dtype, shape=(2,)):
    return Tensor(np.ones(shape), dtype)


@pytest.mark.parametrize("a,b", PAIRS, ids=lambda t: str(t))
def test_tensor_tensor_addition_table(a, b):
    assert str((_ones(a) + _ones(b)).dtype) == EXPECTED[a, b]


ARITHMETIC = [operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod,
              operator.pow]
NUMERIC_PAIRS = [(a, b) for a, b in PAIRS if a is not ms.bool_ and b is not ms.bool_]


@pytest.mark.parametrize("op", ARITHMETIC, ids=lambda f: f.__name__)
@pytest.mark.parametrize("a,b", NUMERIC_PAIRS, ids=lambda t: str(t))
def test_every_operator_promotes_like_addition_and_0d_tensors_promote_fully(op, a, b):
    expected = EXPECTED[a, b]
    for shape_a, shape_b in (((2,), (2,)), ((2,), ()), ((), (2,)), ((), ())):
        out = op(_ones(a, shape_a), _ones(b, shape_b))
        assert str(out.dtype) == expected, (shape_a, shape_b)


@pytest.mark.parametrize("a,b", NUMERIC_PAIRS, ids=lambda t: str(t))
def test_true_division_is_float(a, b):
    expected = EXPECTED[a, b] if EXPECTED[a, b].startswith("Float") else "Float32"
    for shape_b in ((2,), ()):
        assert str((_ones(a) / _ones(b, shape_b)).dtype) == expected


@pytest.mark.parametrize("a,b,expected", [
    (ms.int32, ms.float16, ms.float16),
    (ms.int32, ms.int64, ms.int64),
    (ms.float32, ms.float64, ms.float64),
    (ms.float16, ms.float32, ms.float32),
    (ms.int8, ms.uint8, ms.int16),
    (ms.bool_, ms.int64, ms.int64),
    (ms.bool_, ms.bool_, ms.bool_),
])
def test_surface_rows(a, b, expected):
    assert (_ones(a) + _ones(b)).dtype is expected
    assert (_ones(a) + _ones(b, ())).dtype is expected  # 0-d tensors promote fully


def test_bool_plus_bool_is_logical_or():
    out = Tensor([True, False, False]) + Tensor([True, True, False])
    assert out.dtype is ms.bool_
    assert out.asnumpy().tolist() == [True, True, False]


# ---- Tensor with a Python or NumPy scalar: the scalar only decides the category ----------------

INT_SCALARS = [2, np.int64(2), np.int8(3), True, np.bool_(True)]
FLOAT_SCALARS = [2.5, np.float64(2.5), np.float16(2.0)]
NON_BOOL = ORDER[1:]


@pytest.mark.parametrize("op", [operator.add, operator.mul, operator.sub, operator.pow],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", NON_BOOL, ids=str)
def test_scalars_never_widen_within_the_category(op, dtype):
    for scalar in INT_SCALARS:
        assert op(_ones(dtype), scalar).dtype is dtype, scalar
    for scalar in FLOAT_SCALARS:
        expected = dtype if dtype in ms.dtype.float_type else ms.float32
        assert op(_ones(dtype), scalar).dtype is expected, scalar


@pytest.mark.parametrize("op", [operator.add, operator.mul, operator.sub, operator.truediv,
                                operator.floordiv, operator.mod], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [ms.int8, ms.uint8, ms.int32, ms.int64, ms.float16,
                                   ms.float32], ids=str)
def test_reflected_scalar_operands(op, dtype):
    int_result = ms.float32 if op is operator.truediv and dtype not in ms.dtype.float_type \
        else dtype
    assert op(2, _ones(dtype)).dtype is int_result
    float_result = dtype if dtype in ms.dtype.float_type else ms.float32
    assert op(2.5, _ones(dtype)).dtype is float_result


def test_bool_tensor_with_scalars():
    b = Tensor([True, False])
    assert (b + True).dtype is ms.bool_ and (b * True).dtype is ms.bool_
    for op in (operator.add, operator.sub, operator.mul, operator.pow):
        assert op(b, 2).dtype is ms.int64
        assert op(b, 2.5).dtype is ms.float32
    assert (b + np.int8(3)).dtype is ms.int64
    assert (b * 2.5).asnumpy().tolist() == [2.5, 0.0]


def test_surface_scalar_rows():
    i32 = Tensor([1, 2], ms.int32)
    assert (i32 * 3).dtype is ms.int32 and (i32 + 3).dtype is ms.int32
    assert (i32 ** 2).dtype is ms.int32
    assert (i32 + 1.5).dtype is ms.float32 and (Tensor([1, 2]) + 1.5).dtype is ms.float32
    assert (i32 ** 0.5).dtype is ms.float32
    assert (Tensor([1.0], ms.float16) + 1.0).dtype is ms.float16
    assert (Tensor([1.0], ms.float32) + np.float64(2.0)).dtype is ms.float32
    assert (Tensor([1, 2]) // 2.0).dtype is ms.float32


def test_uint8_arithmetic_wraps():
    u = Tensor(np.array([1, 2], np.uint8))
    assert (u + 1).dtype is ms.uint8
    assert (-u).asnumpy().tolist() == [255, 254]
    assert (u - 3).asnumpy().tolist() == [254, 255]
    assert (u + 255).asnumpy().tolist() == [0, 1]
    assert (u * 200).asnumpy().tolist() == [200, 144]


def test_scalar_values_are_exact_in_the_tensor_dtype():
    f16 = Tensor([1.0], ms.float16) + 0.1
    assert f16.asnumpy()[0] == np.float16(1.0) + np.float16(0.1)
    big = Tensor([2**40]) * 3
    assert big.asnumpy()[0] == 3 * 2**40


# ---- division semantics ------------------------------------------------------------------------

def test_int_true_division_is_float32():
    out = Tensor([7, -7]) / 2
    assert out.dtype is ms.float32
    assert out.asnumpy().tolist() == [3.5, -3.5]
    assert (Tensor([7, -7]) / Tensor([2, -3])).dtype is ms.float32
    assert (6 / Tensor([1, 2, 4])).asnumpy().tolist() == [6.0, 3.0, 1.5]


def test_int_floor_division_and_modulo_follow_python():
    a = Tensor([7, -7])
    assert (a // 2).dtype is ms.int64 and (a % 3).dtype is ms.int64
    assert (a // 2).asnumpy().tolist() == [3, -4]
    assert (a % 3).asnumpy().tolist() == [1, 2]
    assert (a // -2).asnumpy().tolist() == [-4, 3]
    assert (a % -3).asnumpy().tolist() == [-2, -1]
    assert (a // Tensor([2, -3])).asnumpy().tolist() == [7 // 2, -7 // -3]
    assert (a % Tensor([2, -3])).asnumpy().tolist() == [7 % 2, -7 % -3]
    assert (7 // a).asnumpy().tolist() == [1, -1]
    assert (7 % a).asnumpy().tolist() == [0, 0]


def test_float_floor_division_and_modulo_follow_python():
    a = Tensor([7.0, -7.5])
    assert (a // 2).asnumpy().tolist() == [3.0, -4.0]
    assert (a % 3).asnumpy().tolist() == [1.0, 1.5]
    assert (a // -2).asnumpy().tolist() == [-4.0, 3.0]
    assert (a % -3).asnumpy().tolist() == [-2.0, -1.5]
    assert (a % 2.5).asnumpy().tolist() == [2.0, 0.0]
    mixed = Tensor([7, -7]) % 2.5
    assert mixed.dtype is ms.float32 and mixed.asnumpy().tolist() == [2.0, 0.5]


def test_float_division_by_zero_gives_ieee_values():
    a = Tensor([1.0, 0.0, -1.0])
    out = (a / 0).asnumpy()
    assert out[0] == np.inf and np.isnan(out[1]) and out[2] == -np.inf
    assert np.isnan((a % 0).asnumpy()).all()


# ---- reductions and unary ops on integer tensors -----------------------------------------------

def test_sum_of_int32_and_bool_is_int64():
    assert Tensor([1, 2], ms.int32).sum().dtype is ms.int64
    assert Tensor([True, False, True]).sum().dtype is ms.int64
    assert Tensor([True, False, True]).sum().item() == 2


def test_sqrt_of_int_is_float32():
    out = ms.ops.sqrt(Tensor([1, 4]))
    assert out.dtype is ms.float32 and out.asnumpy().tolist() == [1.0, 2.0]


def test_mean_of_int_is_the_true_mean():
    # MindSpore 2.10 floors an integer mean to an integer tensor (section 14); minispore does not.
    out = Tensor([[1, 2], [3, 4]], ms.int32).mean()
    assert out.dtype is ms.float32 and out.item() == 2.5


# ---- NumPy arrays as operands -------------------------------------------------------------------

def test_numpy_arrays_act_as_tensors_in_arithmetic():
    t = Tensor([1.0, 2.0])
    out = np.array([3.0, 4.0]) + t
    assert isinstance(out, Tensor) and out.dtype is ms.float64
    assert (t * np.array([3, 4], np.int32)).dtype is ms.float32
    assert out.asnumpy().tolist() == [4.0, 6.0]
