"""Tensor operators and the Python protocol (`x += 1` rebinds `x` to a new tensor)."""
import operator

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor


def _np(t):
    return t.asnumpy()


@pytest.mark.parametrize("op,ref", [
    (operator.add, np.add), (operator.sub, np.subtract), (operator.mul, np.multiply),
    (operator.truediv, np.true_divide), (operator.floordiv, np.floor_divide),
    (operator.mod, np.mod), (operator.pow, np.power),
], ids=lambda f: getattr(f, "__name__", ""))
def test_arithmetic_operators_and_reflected_forms(op, ref):
    x = np.array([[1.5, -2.0, 3.0]], np.float32)
    y = np.array([[0.5], [2.0]], np.float32)
    with np.errstate(invalid="ignore"):  # the reference's (-2) ** 0.5 is nan, as ours is
        expected = ref(x, y)
    np.testing.assert_allclose(_np(op(Tensor(x), Tensor(y))), expected, rtol=1e-6)
    np.testing.assert_allclose(_np(op(Tensor(x), 2.0)), ref(x, np.float32(2.0)), rtol=1e-6)
    np.testing.assert_allclose(_np(op(3.0, Tensor(y))), ref(np.float32(3.0), y), rtol=1e-6)


def test_surface_reflected_examples():
    t = Tensor([1.0, 2.0, 4.0])
    assert _np(2 ** t).tolist() == [2.0, 4.0, 16.0]
    assert _np(1 - t).tolist() == [0.0, -1.0, -3.0]
    assert _np(6 / t).tolist() == [6.0, 3.0, 1.5]
    i = Tensor([1, 2, 4])
    assert (2 ** i).dtype is ms.int64 and _np(2 ** i).tolist() == [2, 4, 16]
    assert _np(2.0 ** i).tolist() == [2.0, 4.0, 16.0] and (2.0 ** i).dtype is ms.float32


def test_integer_power_with_negative_exponent():
    # MindSpore (like C) gives 1 ** -1 = 1, 2 ** -1 = 0, (-1) ** -1 = -1, (-1) ** -2 = 1.
    assert _np(Tensor([1, 2, -1, 4]) ** -1).tolist() == [1, 0, -1, 0]
    assert _np(Tensor([-1, 3], ms.int32) ** Tensor([-2, -2], ms.int32)).tolist() == [1, 0]


def test_list_operands_act_as_tensors():
    assert _np(Tensor([1, 2]) + [1, 2]).tolist() == [2, 4]
    assert _np((1.5, 2) * Tensor([2.0, 2.0])).tolist() == [3.0, 4.0]


def test_matmul_operator():
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    np.testing.assert_array_equal(_np(Tensor(a) @ Tensor(a)), a @ a)
    np.testing.assert_array_equal(_np(Tensor(a) @ a), a @ a)
    out = np.eye(2, dtype=np.float32) @ Tensor(a)  # one dtype: matmul does not promote
    assert isinstance(out, Tensor)
    np.testing.assert_array_equal(_np(out), a)


def test_unary_operators():
    t = Tensor([1.0, -2.0])
    assert _np(-t).tolist() == [-1.0, 2.0]
    assert _np(abs(t)).tolist() == [1.0, 2.0]
    assert (+t) is t
    assert abs(Tensor([-3])).dtype is ms.int64 and _np(abs(Tensor([-3]))).tolist() == [3]


def test_comparisons_return_bool_tensors():
    t = Tensor([1, 2, 3])
    cases = {
        "==": (t == 2, [False, True, False]), "!=": (t != 2, [True, False, True]),
        "<": (t < 2, [True, False, False]), "<=": (t <= 2, [True, True, False]),
        ">": (t > 2.5, [False, False, True]), ">=": (t >= 2, [False, True, True]),
        "reflected <": (2 < t, [False, False, True]), "reflected ==": (2.5 == t, [False] * 3),
        "tensor ==": (t == Tensor([1.0, 5.0, 3.0]), [True, False, True]),
    }
    for name, (out, expected) in cases.items():
        assert out.dtype is ms.bool_, name
        assert _np(out).tolist() == expected, name


def test_comparison_with_none_and_non_numbers():
    t = Tensor([1, 2])
    assert (t == None) is False  # noqa: E711
    assert (t != None) is True  # noqa: E711
    assert (t == "a") is False
    assert (t != "a") is True
    assert (t == [1, 2]) is False


def test_logical_operators_on_bool_tensors():
    b = Tensor([True, False, True, False])
    c = Tensor([True, True, False, False])
    for out, expected in ((b & c, [True, False, False, False]), (b | c, [True, True, True, False]),
                          (b ^ c, [False, True, True, False]), (~b, [False, True, False, True]),
                          (b & True, [True, False, True, False]),
                          (True | b, [True, True, True, True])):
        assert out.dtype is ms.bool_
        assert _np(out).tolist() == expected


def test_bitwise_operators_on_int_tensors():
    f = Tensor([1, 2])
    assert _np(f & Tensor([3, 1])).tolist() == [1, 0]
    assert _np(f | 1).tolist() == [1, 3]
    assert _np(f ^ 3).tolist() == [2, 1]


@pytest.mark.parametrize("op", [operator.and_, operator.or_, operator.xor],
                         ids=lambda f: f.__name__)
def test_logical_operators_refuse_float(op):
    f = Tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="Float32"):
        op(f, f)


def test_invert_refuses_float():
    with pytest.raises(TypeError, match="Float32"):
        ~Tensor([1.0, 2.0])


def test_negating_a_bool_tensor_raises_type_error():
    with pytest.raises(TypeError):
        -Tensor([True, False])


def test_augmented_assignment_rebinds():
    a = Tensor([1.0, 2.0])
    alias = a
    a += 1
    assert a is not alias
    assert _np(alias).tolist() == [1.0, 2.0] and _np(a).tolist() == [2.0, 3.0]
    alias = a
    a -= 1
    assert _np(alias).tolist() == [2.0, 3.0] and _np(a).tolist() == [1.0, 2.0]
    alias = a
    a *= 3
    assert _np(alias).tolist() == [1.0, 2.0] and _np(a).tolist() == [3.0, 6.0]
    alias = a
    a /= 2
    assert _np(alias).tolist() == [3.0, 6.0] and _np(a).tolist() == [1.5, 3.0]


def test_augmented_assignment_may_change_dtype():
    a = Tensor([1, 2])
    a += 1.5
    assert a.dtype is ms.float32 and _np(a).tolist() == [2.5, 3.5]


def test_len_and_iteration_follow_the_first_axis():
    t = Tensor([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert [r.shape for r in rows] == [(2,), (2,), (2,)]
    assert all(isinstance(r, Tensor) for r in rows)
    assert _np(rows[2]).tolist() == [5, 6]
    elements = list(Tensor([1.0, 2.0]))
    assert [e.shape for e in elements] == [(), ()]
    assert len(Tensor([])) == 0


def test_len_and_iteration_of_a_0d_tensor_raise_type_error():
    with pytest.raises(TypeError, match="0-D"):
        len(Tensor(1))
    with pytest.raises(TypeError, match="0-d"):
        list(Tensor(1))


def test_conversion_of_single_elements():
    assert bool(Tensor([1])) is True and bool(Tensor(0.0)) is False
    assert float(Tensor([[2.5]])) == 2.5
    assert int(Tensor(3.9)) == 3 and int(Tensor(-3.9)) == -3
    assert float(Tensor(3)) == 3.0
    assert complex(Tensor(1.5)) == 1.5 + 0j
    assert isinstance(int(Tensor([7])), int)


@pytest.mark.parametrize("data", [[1, 2], []], ids=["two", "empty"])
def test_conversion_of_several_elements_raises_value_error(data):
    t = Tensor(data)
    with pytest.raises(ValueError, match="one element"):
        bool(t)
    with pytest.raises(ValueError, match="one element"):
        float(t)
    with pytest.raises(ValueError, match="one element"):
        int(t)


def test_integer_tensors_as_python_indices():
    assert [10, 20, 30][Tensor(1)] == 20
    assert range(5)[Tensor(2)] == 2
    assert operator.index(Tensor(2)) == 2
    with pytest.raises(TypeError, match="integer"):
        [1, 2][Tensor(1.0)]


def test_hash_is_identity():
    t, u = Tensor([1.0]), Tensor([1.0])
    table = {t: "t", u: "u"}
    assert len(table) == 2 and table[t] == "t" and table[u] == "u"
    assert hash(t) == object.__hash__(t) and hash(t) != hash(u)
    assert t in {t} and u not in {t}


def test_format():
    t = Tensor([1.0, 2.0])
    assert f"{t}" == str(t) == "{}".format(t) == "%s" % t
    assert f"{t!r}" == repr(t)
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{t:.2f}"
    with pytest.raises(TypeError, match="unsupported format string"):
        format(Tensor(1.5), ".2f")


def test_builtin_sum_max_min_and_in():
    assert sum([Tensor(1.0), Tensor(2.0)]).item() == 3.0
    assert max([Tensor(1.0), Tensor(3.0), Tensor(2.0)]).item() == 3.0
    assert min(Tensor([3.0, 1.0])).item() == 1.0
    assert sum(Tensor([1.0, 2.0, 3.0])).item() == 6.0
    assert 2 in Tensor([1.0, 2.0]) and 3 not in Tensor([1.0, 2.0])


def test_numpy_conversion_protocol():
    t = Tensor([[3.0, 4.0]])
    assert np.asarray(t).dtype == np.float32
    assert np.asarray(t, np.float64).dtype == np.float64
    assert np.array(t).shape == (1, 2)


def test_copy_and_pickle():
    import copy
    import pickle
    t = Tensor([1.0, 2.0])
    deep = copy.deepcopy(t)
    deep[0] = 5.0
    assert _np(t).tolist() == [1.0, 2.0]
    loaded = pickle.loads(pickle.dumps(t))
    assert loaded.dtype is ms.float32 and _np(loaded).tolist() == [1.0, 2.0]


def test_operand_errors():
    t = Tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="Tensors or numbers"):
        t + "a"
    with pytest.raises(TypeError, match="Tensors or numbers"):
        t * None
    with pytest.raises(ValueError, match=r"\(2,\) and \(3,\)"):
        t + Tensor([1.0, 2.0, 3.0])
