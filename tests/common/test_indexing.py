"""Indexing and setitem, with gradients."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor

A = np.arange(24).reshape(2, 3, 4)

# (tensor index, the same index for NumPy)
INDEXES = [
    (1, 1), (-1, -1), ((1, 2), (1, 2)), ((slice(None), -2), (slice(None), -2)),
    (slice(None, None, -1), slice(None, None, -1)),
    ((0, slice(None, None, -2), slice(1, None, 2)), (0, slice(None, None, -2), slice(1, None, 2))),
    ((slice(None), slice(3, 0, -2)), (slice(None), slice(3, 0, -2))),
    ((slice(-1, None), slice(None, -1), slice(None, None, 3)),
     (slice(-1, None), slice(None, -1), slice(None, None, 3))),
    ((Ellipsis, 1), (Ellipsis, 1)), (Ellipsis, Ellipsis), ((Ellipsis, None), (Ellipsis, None)),
    ((None, 0), (None, 0)), ((slice(None), None, 1), (slice(None), None, 1)),
    ((1, slice(None), Tensor([0, 3])), (1, slice(None), np.array([0, 3]))),
    (([0, 1], [1, 2]), ([0, 1], [1, 2])),
    (Tensor([1, 0]), np.array([1, 0])),
    (Tensor([[1], [0]]), np.array([[1], [0]])),
    (Tensor(1), 1), ((Tensor(1), Tensor(2)), (1, 2)), ((0, Tensor(-1)), (0, -1)),
    (np.array([1, 0]), np.array([1, 0])),
    ([True, False], np.array([True, False])),
    ((0, [True, False, True]), (0, np.array([True, False, True]))),
    ((slice(None), [2, 0, 2]), (slice(None), [2, 0, 2])),
    ((slice(Tensor(1), None),), (slice(1, None),)),
]


@pytest.mark.parametrize("index,np_index", INDEXES, ids=[repr(i) for _, i in INDEXES])
def test_getitem_matches_numpy(index, np_index):
    out = Tensor(A)[index]
    expected = A[np_index]
    assert isinstance(out, Tensor) and out.dtype is ms.int64
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out.asnumpy(), expected)


def test_bool_masks():
    a = np.arange(6).reshape(2, 3)
    t = Tensor(a)
    mask = t > 2
    np.testing.assert_array_equal(t[mask].asnumpy(), a[a > 2])
    np.testing.assert_array_equal(t[mask.asnumpy()].asnumpy(), a[a > 2])
    np.testing.assert_array_equal(t[Tensor([True, False])].asnumpy(), a[[True, False]])


def test_full_integer_index_gives_a_0d_tensor():
    out = Tensor(A)[1, 2, 3]
    assert isinstance(out, Tensor)
    assert out.shape == () and out.item() == 23
    assert repr(out) == "Tensor(shape=[], dtype=Int64, value= 23)"


def test_0d_tensor_indexing():
    t = Tensor(2.5)
    assert t[...].item() == 2.5 and t[()].item() == 2.5
    assert t[None].shape == (1,)


def test_empty_index_lists():
    t = Tensor(np.arange(6).reshape(2, 3))
    assert t[[]].shape == (0, 3)
    assert t[Tensor(np.zeros(0, np.int64))].shape == (0, 3)


@pytest.mark.parametrize("index,message", [
    (5, r"index 5 is out of bounds.*\(2, 3\)"),
    ((0, 3), r"index 3 is out of bounds.*\(2, 3\)"),
    (-3, r"index -3 is out of bounds.*\(2, 3\)"),
    ((0, 0, 0), r"too many indices.*\(2, 3\)"),
    (Tensor([0, 5]), r"index 5 is out of bounds.*\(2, 3\)"),
    (Tensor([True, False, True]), r"boolean index.*\(2, 3\)"),
], ids=repr)
def test_getitem_errors_are_index_errors_naming_the_shape(index, message):
    with pytest.raises(IndexError, match=message):
        Tensor(np.arange(6).reshape(2, 3))[index]


@pytest.mark.parametrize("index", [1.5, "a", Tensor([0.5]), [0.5, 1.0]], ids=repr)
def test_getitem_rejects_non_integer_indices(index):
    with pytest.raises(IndexError, match="Tensor.__getitem__"):
        Tensor(np.arange(6).reshape(2, 3))[index]


def test_getitem_of_a_0d_tensor_with_an_integer():
    with pytest.raises(IndexError, match=r"shape \(\)"):
        Tensor(2.5)[0]


def test_slices_are_views():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    row = x[0]
    row[0] = 100.0
    block = x[:, 1:]
    block[1, 0] = 200.0
    assert x.asnumpy().tolist() == [[100.0, 1.0, 2.0], [3.0, 200.0, 5.0]]


# ---- setitem -------------------------------------------------------------------------------------

def test_setitem_keeps_the_target_dtype():
    xi = Tensor([1, 2, 3])
    xi[0] = 2.7
    assert xi.dtype is ms.int64 and xi.asnumpy().tolist() == [2, 2, 3]
    xi[-1] = Tensor(9.9)
    assert xi.asnumpy().tolist() == [2, 2, 9]
    xi[1] = np.float64(-2.6)
    assert xi.asnumpy().tolist() == [2, -2, 9]
    b = Tensor([True, False])
    b[0] = 0
    b[1] = 2.5
    assert b.dtype is ms.bool_ and b.asnumpy().tolist() == [False, True]


def test_setitem_out_of_range_ints_wrap():
    u = Tensor([1, 2, 3], ms.uint8)
    u[0] = -1
    u[1] = 300
    assert u.asnumpy().tolist() == [255, 44, 3]


def test_setitem_index_forms():
    x = Tensor(np.zeros((2, 3), np.float32))
    x[0] = 1
    x[1, 1:] = Tensor([5.0, 6.0])
    x[:, 0] = Tensor([7, 8])
    assert x.asnumpy().tolist() == [[7.0, 1.0, 1.0], [8.0, 5.0, 6.0]]
    x[x == 1] = 3.0
    assert x.asnumpy().tolist() == [[7.0, 3.0, 3.0], [8.0, 5.0, 6.0]]
    x[Tensor([0, 1]), Tensor([2, 0])] = -1.0
    assert x.asnumpy().tolist() == [[7.0, 3.0, -1.0], [-1.0, 5.0, 6.0]]
    x[..., 1] = 0
    assert x.asnumpy()[:, 1].tolist() == [0.0, 0.0]
    x[Tensor(1)] = 4.0
    assert x.asnumpy()[1].tolist() == [4.0, 4.0, 4.0]
    x[[0]] = Tensor([[1.0, 2.0, 3.0]])
    assert x.asnumpy()[0].tolist() == [1.0, 2.0, 3.0]
    x[::-1, 0] = Tensor([10.0, 20.0])
    assert x.asnumpy()[:, 0].tolist() == [20.0, 10.0]
    x[x.asnumpy() > 5] = 0.5
    assert (x.asnumpy() <= 5).all()
    x[1:] = [9, 8, 7]
    assert x.asnumpy()[1].tolist() == [9.0, 8.0, 7.0]
    x[0] = np.array([1.0, 2.0, 3.0])
    assert x.asnumpy()[0].tolist() == [1.0, 2.0, 3.0]


def test_setitem_writes_through_aliases():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    alias = x
    alias[0, 0] = 100.0
    assert x.asnumpy()[0, 0] == 100.0


def test_setitem_errors():
    x = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(IndexError, match=r"out of bounds.*\(2, 3\)"):
        x[5] = 1.0
    with pytest.raises(ValueError, match=r"shape \(2,\).*\(2, 3\)"):
        x[0] = Tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="must be a Tensor or a number"):
        x[0] = "a"
    with pytest.raises(TypeError, match="must be a Tensor or a number"):
        x[0] = None


# ---- gradients -----------------------------------------------------------------------------------

def test_gradient_through_negative_step_slices():
    def f(x):
        return (x[::-2] * Tensor([1.0, 2.0, 3.0])).sum()

    g = ms.grad(f)(Tensor(np.arange(6, dtype=np.float32)))
    assert g.asnumpy().tolist() == [0.0, 3.0, 0.0, 2.0, 0.0, 1.0]


def test_gradient_of_repeated_integer_indices_accumulates():
    x = Tensor(np.arange(6, dtype=np.float32))
    g = ms.grad(lambda x: x[Tensor([0, 0, 3, 0])].sum())(x)
    assert g.asnumpy().tolist() == [3.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    g = ms.grad(lambda x: x[[1, 1, 2]].sum())(x)
    assert g.asnumpy().tolist() == [0.0, 2.0, 1.0, 0.0, 0.0, 0.0]


def test_gradient_through_mixed_indices():
    def f(x):
        return ((x[1, ::-1] ** 2).sum() + x[x > 3].sum() + x[..., None, 0].sum() * 3
                + x[Tensor(1)].sum() + x[1, Tensor([2, 2])].sum())

    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    expected = np.array([[3.0, 0.0, 0.0], [6.0 + 3 + 1, 8.0 + 1 + 1, 10.0 + 1 + 1 + 2]])
    np.testing.assert_array_equal(ms.grad(f)(x).asnumpy(), expected)


def test_setitem_inside_a_differentiated_function():
    def f(a):
        b = a * 1
        b[0] = 0.0
        return (b * b).sum()

    g = ms.grad(f)(Tensor([1.0, 2.0, 3.0]))
    assert g.asnumpy().tolist() == [0.0, 4.0, 6.0]


def test_setitem_with_a_differentiated_value():
    def f(a, v):
        b = a * 1
        b[1:] = v * 2
        return (b * Tensor([1.0, 2.0, 3.0])).sum()

    ga, gv = ms.grad(f, grad_position=(0, 1))(Tensor([1.0, 2.0, 3.0]), Tensor(5.0))
    assert ga.asnumpy().tolist() == [1.0, 0.0, 0.0]
    assert gv.item() == 10.0


def test_setitem_with_a_repeated_index_keeps_the_last_write():
    def f(a):
        b = a * 1
        b[Tensor([0, 0])] = Tensor([1.0, 2.0]) * a[2]
        return b.sum()

    g = ms.grad(f)(Tensor([1.0, 2.0, 3.0]))
    assert g.asnumpy().tolist() == [0.0, 1.0, 3.0]
