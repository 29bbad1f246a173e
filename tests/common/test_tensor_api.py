"""The Tensor methods beyond the core set: forwarded ops, in-place forms under the version
counters, and the methods whose signatures differ from the functional op. Expected values were
printed by MindSpore 2.10 (CPU) for the same calls."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, ops
from minispore._autodiff.tape import _state  # noqa: F401  (imported for the version check below)
from minispore.common import _writes

X = np.array([[1.0, 5.0, 2.0], [6.0, 5.0, 8.0]], np.float32)


def x():
    return Tensor(X.copy())


def test_every_forwarded_name_is_the_functional_op():
    from minispore.ops._tensor_api import _FORWARDED
    for name in _FORWARDED:
        assert getattr(Tensor, name) is getattr(ops, name), name
    t = Tensor(np.array([0.5, 1.5]))
    np.testing.assert_allclose(t.lgamma().asnumpy(), ops.lgamma(t).asnumpy())
    np.testing.assert_allclose(t.logaddexp(t).asnumpy(), ops.logaddexp(t, t).asnumpy())


@pytest.mark.parametrize("expr,want", [
    ("x().take(Tensor(np.array([0, 4])))", [1.0, 5.0]),
    ("x().select(1, 0)", [1.0, 6.0]),
    ("x().index_add(0, Tensor(np.array([1], np.int32)), Tensor(np.ones((1, 3), np.float32)))",
     [[1, 5, 2], [7, 6, 9]]),
    ("x().trace()", 6.0),
    ("x().ptp()", 7.0), ("x().ptp(1)", [4.0, 3.0]),
    ("x().sum_to_size(1, 3)", [[7.0, 10.0, 10.0]]),
    ("x().reshape_as(Tensor(np.zeros((3, 2))))", [[1, 5], [2, 6], [5, 8]]),
    ("x().diff()", [[4.0, -3.0], [-1.0, 3.0]]),
    ("x().resize(3, 2)", [[1, 5], [2, 6], [5, 8]]),
    ("x().fill_diagonal(0.0)", [[0, 5, 2], [6, 0, 8]]),
    ("x().masked_scatter(Tensor(np.array([[True, False, True], [False] * 3])), "
     "Tensor(np.array([7.0, 8.0], np.float32)))", [[7, 5, 8], [6, 5, 8]]),
    ("x().index_put((Tensor(np.array([0], np.int32)), Tensor(np.array([1], np.int32))), "
     "Tensor(np.array([9.0], np.float32)))", [[1, 9, 2], [6, 5, 8]]),
    ("Tensor(np.array([1.0, 2.0, 3.0], np.float32)).searchsorted("
     "Tensor(np.array([2.5], np.float32)))", [2]),
    ("x().expand(2, 3)", X), ("x().expand((2, 3))", X),
])
def test_methods_match_mindspore(expr, want):
    got = eval(expr)
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want, np.float32))


def test_queries_and_conversions():
    t = x()
    assert t.type() == "Float32" and t.type(ms.int32).dtype == ms.int32
    assert t.type_as(Tensor([1], ms.int32)).dtype == ms.int32
    assert t.ndimension() == 2 and t.numpy().dtype == np.float32 and t.value() is t
    assert t.is_signed() and not Tensor(np.array([1], np.uint8)).is_signed()
    assert t.stride() == [3, 1] and t.stride(0) == 3 and t.storage_offset() == 0
    assert t.byte().dtype == ms.uint8 and t.short().dtype == ms.int16
    assert t.H.shape == (3, 2) and t.mH.shape == (3, 2) and t.device == "CPU" and t.data is t
    assert t.allclose(t) and not t.allclose(t + 1)
    values, idx = t.argmax_with_value()
    assert values.asnumpy().tolist() == [6, 5, 8] and idx.asnumpy().tolist() == [1, 0, 1]
    assert idx.dtype == ms.int64
    values, idx = t.argmin_with_value(1)
    assert values.asnumpy().tolist() == [1, 5] and idx.asnumpy().tolist() == [0, 1]
    assert t.new_zeros((2,)).dtype == ms.float32 and t.new_ones((2, 3)).shape == (2, 3)
    assert t.new_full((2,), 3).asnumpy().tolist() == [3.0, 3.0]
    q, r = t.qr()
    np.testing.assert_allclose((q @ r).asnumpy(), X, atol=1e-5)
    assert t.to_coo().values.shape == (6,) and t.to_csr().indptr.asnumpy().tolist() == [0, 3, 6]
    assert t.move_to("CPU") is t
    assert t.log_normal().shape == (2, 3) and t.cauchy().dtype == ms.float32
    assert Tensor(np.array([1, 2], np.int32)).bitwise_not().asnumpy().tolist() == [-2, -3]


def test_in_place_forms_write_and_bump_the_version():
    t = x()
    v = _writes.version_of(t)
    assert t.exp_() is t
    np.testing.assert_allclose(t.asnumpy(), np.exp(X), rtol=1e-6)
    assert _writes.version_of(t) > v
    t = x()
    t.clamp_(2.0, 5.0)
    assert t.asnumpy().tolist() == [[2, 5, 2], [5, 5, 5]]
    t = x()
    t.index_add_(0, Tensor(np.array([0], np.int32)), Tensor(np.ones((1, 3), np.float32)), alpha=2)
    assert t.asnumpy()[0].tolist() == [3, 7, 4]
    t = x()
    t.fill_diagonal_(-1.0)
    t.put_(Tensor(np.array([5])), Tensor(np.array([0.0], np.float32)))
    assert t.asnumpy().tolist() == [[-1, 5, 2], [6, -1, 0]]
    t.itemset((0, 2), 9.0)
    assert t.asnumpy()[0, 2] == 9.0
    t = x()
    t.scatter_add_(1, Tensor(np.array([[0, 0], [2, 2]])), Tensor(np.ones((2, 2), np.float32)))
    assert t.asnumpy().tolist() == [[3, 5, 2], [6, 5, 10]]


def test_in_place_under_grad_is_recorded():
    def f(a):
        b = a * 1.0
        b.sigmoid_()
        return (b * a).sum()
    a = Tensor(np.array([0.3, -0.7]))
    s = 1 / (1 + np.exp(-a.asnumpy()))
    np.testing.assert_allclose(ms.grad(f)(a).asnumpy(), s * (1 - s) * a.asnumpy() + s)


def test_scatter_methods_are_out_of_place_as_in_mindspore():
    t = x()
    out = t.scatter_add(Tensor(np.array([[0, 1]], np.int32)), Tensor(np.array([10.0], np.float32)))
    assert out.asnumpy()[0, 1] == 15.0 and t.asnumpy()[0, 1] == 5.0


def test_parameter_in_place_forms_refused_while_differentiated():
    p = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="p")

    def f(a):
        p.exp_()
        return (a * p).sum()
    with pytest.raises(RuntimeError, match="Parameter 'p'"):
        ms.grad(f, 0, [p])(Tensor(np.array([1.0, 1.0], np.float32)))
    assert p.asnumpy().tolist() == [1.0, 2.0]


def test_choose_and_triangular_solve():
    idx = Tensor(np.array([0, 1, 2, 1]))
    choices = [Tensor(np.array([1.0, 2, 3, 4])), Tensor(np.array([10.0, 20, 30, 40])),
               Tensor(np.array([5.0]))]
    assert idx.choose(choices).asnumpy().tolist() == [1.0, 20.0, 5.0, 40.0]
    pair = [Tensor(np.array([1.0, 2.0])), Tensor(np.array([10.0, 20.0]))]
    assert Tensor(np.array([5, -2])).choose(pair, mode="wrap").asnumpy().tolist() == [10.0, 2.0]
    with pytest.raises(ValueError, match="mode"):
        Tensor(np.array([5])).choose(choices, mode="raise")
    a = np.array([[2.0, 1.0], [0.0, 4.0]])
    b = Tensor(np.array([[3.0], [8.0]]))
    x, _ = b.triangular_solve(Tensor(a))
    np.testing.assert_allclose(x.asnumpy(), np.linalg.solve(np.triu(a), b.asnumpy()))
    x, _ = b.triangular_solve(Tensor(a), upper=False, transpose=True, unitriangular=True)
    unit = np.tril(a)
    np.fill_diagonal(unit, 1.0)
    np.testing.assert_allclose(x.asnumpy(), np.linalg.solve(unit.T, b.asnumpy()))


def test_functional_forms_of_methods():
    import minispore.ops.functional as F
    t = Tensor(np.array([1.0, 5.0], np.float32))
    assert ops.clamp_(t, 2.0, 4.0) is t and t.asnumpy().tolist() == [2.0, 4.0]
    assert F.zero_(t) is t and t.asnumpy().tolist() == [0.0, 0.0]
    s = Tensor(np.array([0.0], np.float32))
    assert ops.inplace_sigmoid(s).asnumpy().tolist() == [0.5] and ops.tanh_(s) is s
    assert ops.type_as(t, Tensor([1])).dtype == ms.int64 and ops.move_to(t, "CPU") is t
    x = Tensor(np.array([[3.0, 4.0], [0.0, 0.0]], np.float32))
    assert ops.diff(x).asnumpy().tolist() == [[1.0], [0.0]]  # MindSpore's values
    assert ops.diff_ext(x, dim=0).asnumpy().tolist() == [[-3.0, -4.0]]
    assert ops.tensor_range(0, 5, 2).asnumpy().tolist() == [0, 2, 4]
    assert ops.tensor_slice(x, (0, 1), (2, 1)).asnumpy().tolist() == [[4.0], [0.0]]
    assert ops.einsum_ext("ij->ji", x).shape == (2, 2)
    with pytest.raises(TypeError, match="clamp_"):
        ops.clamp_([1.0], 0, 1)


def test_set_dtype_and_index_copy_in_place():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    v = _writes.version_of(x)
    assert x.set_dtype(ms.float16) == ms.float16 and x.dtype == ms.float16
    assert _writes.version_of(x) > v
    y = Tensor(np.zeros((3, 3), np.float32))
    y.index_copy_(0, Tensor(np.array([2, 0])), Tensor(np.array([[1, 2, 3], [4, 5, 6]],
                                                                np.float32)))
    assert y.asnumpy().tolist() == [[4, 5, 6], [0, 0, 0], [1, 2, 3]]
    with pytest.raises(ValueError, match="index_copy_"):
        y.index_copy_(1, Tensor(np.array([0, 1])), Tensor(np.ones((3, 1), np.float32)))


def test_bernoulli_and_uniform_methods():
    ms.set_seed(3)
    a = Tensor(np.full(20000, 0.3, np.float32)).bernoulli()
    assert a.dtype == ms.float32 and set(np.unique(a.asnumpy())) <= {0.0, 1.0}
    assert abs(a.asnumpy().mean() - 0.3) < 0.02
    ms.set_seed(3)
    assert np.array_equal(Tensor(np.full(20000, 0.3, np.float32)).bernoulli().asnumpy(),
                          a.asnumpy())
    g = ms.Generator()
    g.manual_seed(5)
    u = Tensor(np.zeros(5000, np.float32)).uniform(2.0, 4.0, g)
    assert u.dtype == ms.float32 and 2.0 <= u.asnumpy().min() and u.asnumpy().max() < 4.0
    assert abs(u.asnumpy().mean() - 3.0) < 0.05
    with pytest.raises(ValueError, match="probabilities"):
        Tensor(np.array([1.5], np.float32)).bernoulli()
