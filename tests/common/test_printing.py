"""str and repr of tensors, parameters and dtypes, as MindSpore 2.10 prints them (repr in
scientific notation for floats, str as NumPy prints). Expected texts were taken from
MindSpore 2.10 (CPU)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor


@pytest.mark.parametrize("value,dtype,text", [
    (2.5, ms.float32, "2.5"), (1.118034, ms.float32, "1.11803"), (6.0, ms.float32, "6"),
    (1e-5, ms.float32, "1e-05"), (123456789.0, ms.float32, "1.23457e+08"),
    (1e20, ms.float32, "1e+20"), (-0.0, ms.float32, "-0"), (float("inf"), ms.float32, "inf"),
    (float("nan"), ms.float32, "nan"), (1 / 3, ms.float32, "0.333333"),
    (1.118034, ms.float64, "1.11803"), (123456.789, ms.float64, "123457"),
    (1.118034, ms.float16, "1.11816"), (1e-5, ms.float16, "1.00136e-05"),
    (3, ms.int64, "3"), (-2, ms.int32, "-2"), (3, ms.uint8, "3"),
    (True, ms.bool_, "True"), (False, ms.bool_, "False"),
])
def test_repr_of_0d_tensors(value, dtype, text):
    assert repr(Tensor(value, dtype)) == f"Tensor(shape=[], dtype={dtype}, value= {text})"


@pytest.mark.parametrize("value,dtype,text", [
    (2.5, ms.float32, "2.5"), (1.118034, ms.float32, "1.118034"), (6.0, ms.float32, "6.0"),
    (1 / 3, ms.float32, "0.33333334"), (-0.0, ms.float32, "-0.0"), (1e20, ms.float32, "1e+20"),
    (1.118034, ms.float16, "1.118"), (1 / 3, ms.float64, "0.3333333333333333"),
    (3, ms.int64, "3"), (True, ms.bool_, "True"),
])
def test_str_of_0d_tensors(value, dtype, text):
    assert str(Tensor(value, dtype)) == text


@pytest.mark.parametrize("data,text", [
    ([1.5, 2.0, 3.0], "[1.5 2.  3. ]"),
    ([1, 2, 3], "[1 2 3]"),
    ([True, False], "[ True False]"),
    ([-1.5, 2e10], "[-1.5e+00  2.0e+10]"),
    ([float("inf"), -float("inf"), float("nan"), 1.0], "[ inf -inf  nan   1.]"),
    ([[1, 2], [3, 4]], "[[1 2]\n [3 4]]"),
    ([], "[]"),
])
def test_str_is_numpys_text(data, text):
    assert str(Tensor(data)) == text
    assert f"{Tensor(data)}" == text


def test_str_elides_long_tensors():
    assert str(Tensor(np.arange(2000))) == "[   0    1    2 ... 1997 1998 1999]"


@pytest.mark.parametrize("data,text", [
    ([1.5, 2.0, 3.0],
     "Tensor(shape=[3], dtype=Float32, value= [ 1.50000000e+00,  2.00000000e+00,  "
     "3.00000000e+00])"),
    ([1, 2, 3], "Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])"),
    ([True, False], "Tensor(shape=[2], dtype=Bool, value= [ True, False])"),
    ([-1.5, 2e10], "Tensor(shape=[2], dtype=Float32, value= [-1.50000000e+00,  2.00000000e+10])"),
    ([1e-10, 1.0], "Tensor(shape=[2], dtype=Float32, value= [ 1.00000001e-10,  1.00000000e+00])"),
    ([float("inf"), -float("inf"), float("nan"), 1.0],
     "Tensor(shape=[4], dtype=Float32, value= [            inf,            -inf,             nan, "
     " 1.00000000e+00])"),
    ([-0.0, 1.0], "Tensor(shape=[2], dtype=Float32, value= [-0.00000000e+00,  1.00000000e+00])"),
    (np.array([1, 200], np.uint8), "Tensor(shape=[2], dtype=UInt8, value= [  1, 200])"),
    (np.array([-128, 1], np.int8), "Tensor(shape=[2], dtype=Int8, value= [-128,    1])"),
    (np.array([2**40, -3]),
     "Tensor(shape=[2], dtype=Int64, value= [1099511627776,            -3])"),
    (np.array([2**64 - 1], np.uint64),
     "Tensor(shape=[1], dtype=UInt64, value= [18446744073709551615])"),
    (np.array([1e-300, 1e300]),
     "Tensor(shape=[2], dtype=Float64, value= [1.00000000e-300, 1.00000000e+300])"),
    (np.array([1.5, -2.0, 1000.0], np.float16),
     "Tensor(shape=[3], dtype=Float16, value= [ 1.5000e+00, -2.0000e+00,  1.0000e+03])"),
    (np.array([np.inf, np.nan, -np.inf], np.float16),
     "Tensor(shape=[3], dtype=Float16, value= [        inf,         nan,        -inf])"),
    (np.array([1 + 2j, 3.5 - 1j, -0.25 - 2.125j, 1e10 + 0j], np.complex64),
     "Tensor(shape=[4], dtype=Complex64, value= [1+2j, 3.5-1j, -0.25-2.125j, 1e+10+0j])"),
], ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None)
def test_repr_of_1d_tensors(data, text):
    assert repr(Tensor(data)) == text


def test_repr_of_0d_complex():
    assert repr(Tensor(np.complex128(1 / 3 - 2j))) == \
        "Tensor(shape=[], dtype=Complex128, value= 0.333333-2j)"


def test_repr_of_empty_tensors():
    assert repr(Tensor([])) == "Tensor(shape=[0], dtype=Float32, value= )"
    assert repr(Tensor(np.zeros(0, np.int32))) == "Tensor(shape=[0], dtype=Int32, value= )"
    assert repr(Tensor(np.zeros((0, 3)))) == "Tensor(shape=[0, 3], dtype=Float64, value=\n)"
    assert repr(Tensor(np.zeros((2, 0), np.int32))) == \
        "Tensor(shape=[2, 0], dtype=Int32, value=\n)"


def test_repr_of_multi_dim_tensors_starts_on_a_new_line():
    assert repr(Tensor(np.arange(6).reshape(2, 3))) == (
        "Tensor(shape=[2, 3], dtype=Int64, value=\n"
        "[[0, 1, 2],\n"
        " [3, 4, 5]])")
    assert repr(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))) == (
        "Tensor(shape=[2, 3], dtype=Float32, value=\n"
        "[[ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00],\n"
        " [ 3.00000000e+00,  4.00000000e+00,  5.00000000e+00]])")
    assert repr(Tensor(np.array([[True, False], [False, True]]))) == (
        "Tensor(shape=[2, 2], dtype=Bool, value=\n"
        "[[ True, False],\n"
        " [False,  True]])")
    assert repr(Tensor(np.array([-5, 100, 3]).reshape(3, 1))) == (
        "Tensor(shape=[3, 1], dtype=Int64, value=\n"
        "[[ -5],\n"
        " [100],\n"
        " [  3]])")


def test_repr_has_no_blank_lines_between_blocks():
    assert repr(Tensor(np.arange(8).reshape(2, 2, 2) - 4)) == (
        "Tensor(shape=[2, 2, 2], dtype=Int64, value=\n"
        "[[[-4, -3],\n"
        "  [-2, -1]],\n"
        " [[ 0,  1],\n"
        "  [ 2,  3]]])")
    assert repr(Tensor(np.arange(16).reshape(2, 2, 2, 2))) == (
        "Tensor(shape=[2, 2, 2, 2], dtype=Int64, value=\n"
        "[[[[ 0,  1],\n"
        "   [ 2,  3]],\n"
        "  [[ 4,  5],\n"
        "   [ 6,  7]]],\n"
        " [[[ 8,  9],\n"
        "   [10, 11]],\n"
        "  [[12, 13],\n"
        "   [14, 15]]]])")
    assert repr(Tensor(np.array([1.5, 2.5]).reshape(2, 1, 1))) == (
        "Tensor(shape=[2, 1, 1], dtype=Float64, value=\n"
        "[[[ 1.50000000e+00]],\n"
        " [[ 2.50000000e+00]]])")


def test_repr_breaks_1d_values_into_lines():
    assert repr(Tensor(np.arange(30, dtype=np.float32))) == (
        "Tensor(shape=[30], dtype=Float32, value= [" + ", ".join(
            "%15.8e" % v for v in range(12)) + ", \n "
        + ", ".join("%15.8e" % v for v in range(12, 24)) + ", \n "
        + ", ".join("%15.8e" % v for v in range(24, 30)) + "])")
    assert repr(Tensor(np.arange(24))) == (
        "Tensor(shape=[24], dtype=Int64, value= [" + ", ".join("%2d" % v for v in range(24))
        + "\n ])")
    assert repr(Tensor(np.arange(100))).splitlines()[1] == \
        " " + ", ".join(str(v) for v in range(24, 48)) + ", "
    bools = repr(Tensor(np.array([True, False] * 7))).splitlines()
    assert len(bools) == 2 and bools[1] == "  True, False])"


def test_repr_elides_axes_longer_than_6_in_multi_dim_tensors():
    assert repr(Tensor(np.arange(14).reshape(2, 7))) == (
        "Tensor(shape=[2, 7], dtype=Int64, value=\n"
        "[[ 0,  1,  2 ...  4,  5,  6],\n"
        " [ 7,  8,  9 ... 11, 12, 13]])")
    assert repr(Tensor(np.arange(12).reshape(2, 6))) == (
        "Tensor(shape=[2, 6], dtype=Int64, value=\n"
        "[[ 0,  1,  2,  3,  4,  5],\n"
        " [ 6,  7,  8,  9, 10, 11]])")
    assert repr(Tensor(np.arange(14).reshape(7, 2))) == (
        "Tensor(shape=[7, 2], dtype=Int64, value=\n"
        "[[ 0,  1],\n"
        " [ 2,  3],\n"
        " [ 4,  5],\n"
        " ...\n"
        " [ 8,  9],\n"
        " [10, 11],\n"
        " [12, 13]])")
    assert repr(Tensor(np.arange(7).reshape(1, 1, 7))) == (
        "Tensor(shape=[1, 1, 7], dtype=Int64, value=\n"
        "[[[0, 1, 2 ... 4, 5, 6]]])")


def test_elided_integer_width_counts_printed_elements_only():
    a = np.arange(14).reshape(2, 7)
    a[0, 4] = 10**9
    assert repr(Tensor(a)).splitlines()[1] == \
        "[[         0,          1,          2 ... 1000000000,          5,          6],"
    b = np.arange(14).reshape(7, 2)
    b[3, 0] = 10**9
    assert repr(Tensor(b)).splitlines()[1] == "[[ 0,  1],"


def test_repr_elides_1d_tensors_longer_than_1000():
    assert repr(Tensor(np.arange(1001))) == \
        "Tensor(shape=[1001], dtype=Int64, value= [   0,    1,    2 ...  998,  999, 1000])"
    assert repr(Tensor(np.arange(1008, dtype=np.float32))) == (
        "Tensor(shape=[1008], dtype=Float32, value= [ 0.00000000e+00,  1.00000000e+00,  "
        "2.00000000e+00 ...  1.00500000e+03,  1.00600000e+03,  1.00700000e+03])")
    assert repr(Tensor(np.array([True] * 1001))) == \
        "Tensor(shape=[1001], dtype=Bool, value= [ True,  True,  True ...  True,  True,  True])"
    assert "..." not in repr(Tensor(np.arange(1000)))


def test_repr_elides_every_long_axis():
    lines = repr(Tensor(np.arange(2000).reshape(10, 10, 20))).splitlines()
    assert lines[1] == "[[[   0,    1,    2 ...   17,   18,   19],"
    assert lines[4] == "  ..."
    assert lines[7] == "  [ 180,  181,  182 ...  197,  198,  199]],"
    assert lines[8] == " [[ 200,  201,  202 ...  217,  218,  219],"
    assert lines[22] == " ..."
    assert lines[23] == " [[1400, 1401, 1402 ... 1417, 1418, 1419],"
    assert lines[-1] == "  [1980, 1981, 1982 ... 1997, 1998, 1999]]])"
    assert len(lines) == 44
    float_lines = repr(Tensor(np.arange(2000, dtype=np.float32).reshape(40, 50))).splitlines()
    assert float_lines[1] == ("[[ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00 ...  "
                              "4.70000000e+01,  4.80000000e+01,  4.90000000e+01],")
    assert float_lines[4] == " ..."


def test_parameter_repr_and_str():
    p = Parameter(Tensor([1.0, 2.0]), name="p")
    text = "Parameter (name=p, shape=(2,), dtype=Float32, requires_grad=True)"
    assert repr(p) == str(p) == f"{p}" == text
    q = Parameter(Tensor(1.5), name="s", requires_grad=False)
    assert repr(q) == "Parameter (name=s, shape=(), dtype=Float32, requires_grad=False)"


def test_dtype_text_in_tensor_repr():
    for dtype in (ms.int8, ms.int16, ms.int32, ms.uint16, ms.uint32, ms.float64):
        assert f"dtype={dtype}," in repr(Tensor([1], dtype))
