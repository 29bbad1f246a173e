"""`minispore.ops` array functions: creation dtypes, shape changes, joining and splitting,
indexing, scatter, padding and sorting against NumPy; errors; gradients of the composites."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.testing import check_grads

RNG = np.random.default_rng(7)


def rand(*shape, dtype=np.float64):
    return RNG.uniform(-2.0, 2.0, shape).astype(dtype)


def T(*shape):
    return Tensor(rand(*shape))


def same(got, want):
    assert isinstance(got, Tensor)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got.asnumpy(), want)


# ---- creation -------------------------------------------------------------------------------------

def test_ones_zeros_eye_default_to_float32():
    assert ops.ones((2, 3)).dtype == ms.float32 and ops.ones((2, 3)).shape == (2, 3)
    assert ops.zeros(3, ms.int32).dtype == ms.int32
    same(ops.ones_like(Tensor([1, 2])), [1, 1])
    assert ops.zeros_like(Tensor([1.0]), dtype=ms.int32).dtype == ms.int32
    same(ops.eye(2, 3), np.eye(2, 3, dtype=np.float32))
    assert ops.eye(2, dtype=ms.bool_).dtype == ms.bool_
    assert ops.zeros((0, 3)).shape == (0, 3)
    with pytest.raises(ValueError, match="ones.*negative"):
        ops.ones((2, -1))
    with pytest.raises(TypeError, match="eye"):
        ops.eye(2.5)


def test_arange_dtypes():
    a = ops.arange(5)
    assert a.dtype == ms.int64 and a.asnumpy().tolist() == [0, 1, 2, 3, 4]
    b = ops.arange(0, 1, 0.25)
    assert b.dtype == ms.float32 and b.asnumpy().tolist() == [0.0, 0.25, 0.5, 0.75]
    assert ops.arange(5, 0, -2).asnumpy().tolist() == [5, 3, 1]
    assert ops.arange(3, dtype=ms.float64).dtype == ms.float64
    assert ops.arange(Tensor(3)).asnumpy().tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="arange.*step"):
        ops.arange(0, 5, 0)
    with pytest.raises(ValueError, match="arange"):
        ops.arange(5, 0)
    with pytest.raises(TypeError, match="arange"):
        ops.arange(True)


def test_full_dtypes_follow_the_fill_value():
    assert ops.full((2,), 3).dtype == ms.int64
    f = ops.full((2,), 2.5)  # MindSpore 2.10 truncates to int64 [2, 2]: a bug (section 14)
    assert f.dtype == ms.float32 and f.asnumpy().tolist() == [2.5, 2.5]
    assert ops.full((2,), True).dtype == ms.bool_
    assert ops.full((2,), 3.7, dtype=ms.int32).asnumpy().tolist() == [3, 3]
    assert ops.full((2, 2), Tensor(np.array(1.5))).dtype == ms.float64
    assert ops.full_like(Tensor([1, 2]), 7).asnumpy().tolist() == [7, 7]
    assert ops.full_like(Tensor([1, 2]), 2.5, dtype=ms.float32).asnumpy().tolist() == [2.5, 2.5]
    assert ops.fill(ms.float32, (2,), 3).asnumpy().tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="full"):
        ops.full((2,), "a")


def test_linspace_and_one_hot():
    same(ops.linspace(0, 1, 5), np.linspace(0, 1, 5).astype(np.float32))
    assert ops.linspace(Tensor(np.array(0.0)), Tensor(np.array(1.0)), 3).dtype == ms.float64
    oh = ops.one_hot(Tensor([0, 2, 5]), 3)
    assert oh.dtype == ms.int64
    same(oh, [[1, 0, 0], [0, 0, 1], [0, 0, 0]])
    assert ops.one_hot(Tensor([1]), 3, 1.0, 0.0).dtype == ms.float32
    on, off = Tensor(np.array(5, np.int32)), Tensor(np.array(0, np.int32))
    assert ops.one_hot(Tensor([1]), 3, on, off).dtype == ms.int32
    same(ops.one_hot(Tensor([[0, 2]]), 3, axis=0), np.eye(3, dtype=np.int64)[[0, 2]].T[:, None])
    with pytest.raises(TypeError, match="one_hot.*integer"):
        ops.one_hot(Tensor([1.0]), 3)


def test_shape_size_rank():
    x = Tensor(np.zeros((2, 3)))
    assert ops.shape(x) == (2, 3) and ops.size(x) == 6 and ops.rank(x) == 2 and ops.numel(x) == 6
    assert ops.scalar_to_tensor(2).dtype == ms.float32
    assert ops.tuple_to_array((1, 2)).asnumpy().tolist() == [1, 2]


# ---- shape changes --------------------------------------------------------------------------------

def test_reshape_transpose_permute_swapaxes_movedim():
    x = rand(2, 3, 4)
    same(ops.reshape(Tensor(x), (4, -1)), x.reshape(4, -1))
    same(ops.transpose(Tensor(x), (2, 0, 1)), x.transpose(2, 0, 1))
    same(ops.permute(Tensor(x), (1, 2, 0)), x.transpose(1, 2, 0))
    same(ops.swapaxes(Tensor(x), 0, 2), np.swapaxes(x, 0, 2))
    same(ops.movedim(Tensor(x), 0, 2), np.moveaxis(x, 0, 2))
    same(ops.movedim(Tensor(x), -1, 0), np.moveaxis(x, -1, 0))
    same(ops.movedim(Tensor(x), (0, 1), (2, 0)), np.moveaxis(x, (0, 1), (2, 0)))
    with pytest.raises(ValueError, match=r"Reshape.*\(2, 3, 4\).*\(5, -1\)"):
        ops.reshape(Tensor(x), (5, -1))
    with pytest.raises(ValueError, match="Transpose.*permutation"):
        ops.transpose(Tensor(x), (0, 0, 1))
    with pytest.raises(ValueError, match="movedim.*repeat"):
        ops.movedim(Tensor(x), (0, 0), (1, 2))


def test_squeeze_unsqueeze_expand_dims():
    x = rand(1, 2, 1)
    same(ops.squeeze(Tensor(x)), x.squeeze())
    same(ops.squeeze(Tensor(x), 0), x.squeeze(0))
    same(ops.squeeze(Tensor(x), (0, 2)), x.squeeze((0, 2)))
    same(ops.squeeze(Tensor(x), 1), x)  # a named axis that is not 1 is left alone, as MindSpore
    same(ops.unsqueeze(Tensor(x), -1), x[..., None])
    same(ops.expand_dims(Tensor(np.array(1.0)), 0), np.array([1.0]))
    with pytest.raises(ValueError, match="squeeze.*out of range"):
        ops.squeeze(Tensor(x), 3)


def test_flatten_keeps_the_batch_axis():
    x = rand(2, 3, 4)
    same(ops.flatten(Tensor(x)), x.reshape(2, 12))
    same(ops.flatten(Tensor(x), start_dim=0), x.reshape(24))
    same(ops.flatten(Tensor(x), start_dim=1, end_dim=1), x)
    same(ops.flatten(Tensor(x), "F"), x.transpose(2, 1, 0).reshape(4, 6))
    same(ops.flatten(Tensor(np.array(1.0))), np.array([1.0]))
    same(ops.flatten(Tensor(np.arange(3))), np.arange(3))
    with pytest.raises(ValueError, match="flatten.*order"):
        ops.flatten(Tensor(x), "K")


def test_tile_broadcast_to_repeat_interleave():
    x = rand(2, 3)
    same(ops.tile(Tensor(x), (2, 1, 2)), np.tile(x, (2, 1, 2)))
    same(ops.broadcast_to(Tensor(x[:1]), (4, 3)), np.broadcast_to(x[:1], (4, 3)))
    same(ops.broadcast_to(Tensor(x[:, :1]), (-1, 5)), np.broadcast_to(x[:, :1], (2, 5)))
    same(ops.repeat_interleave(Tensor(x), 2), np.repeat(x, 2))
    same(ops.repeat_interleave(Tensor(x), 2, 0), np.repeat(x, 2, 0))
    same(ops.repeat_interleave(Tensor(x), Tensor([1, 0, 2]), 1), np.repeat(x, [1, 0, 2], 1))
    with pytest.raises(ValueError, match="BroadcastTo.*\\(2, 3\\).*\\(3, 3\\)"):
        ops.broadcast_to(Tensor(x), (3, 3))
    with pytest.raises(ValueError, match="repeat_interleave.*one count per element"):
        ops.repeat_interleave(Tensor(x), [1, 2], 1)


# ---- joining and splitting ------------------------------------------------------------------------

def test_concat_stack():
    a, b = rand(2, 3), rand(1, 3)
    same(ops.concat((Tensor(a), Tensor(b))), np.concatenate([a, b]))
    same(ops.cat([Tensor(a), Tensor(a)], 1), np.concatenate([a, a], 1))
    same(ops.stack((Tensor(a), Tensor(a)), 1), np.stack([a, a], 1))
    mixed = ops.concat((Tensor([1, 2]), Tensor(np.array([3.0]))))
    assert mixed.dtype == ms.float64
    with pytest.raises(ValueError, match=r"Concat.*\[\(2, 3\), \(2,\)\]"):
        ops.concat((Tensor(a), Tensor(a[0, :2])))
    with pytest.raises(TypeError, match="Concat.*tuple or list"):
        ops.concat(Tensor(a))


def test_split_chunk_unbind_return_tuples():
    x = rand(5, 2)
    parts = ops.split(Tensor(x), 2)
    assert isinstance(parts, tuple) and [p.shape for p in parts] == [(2, 2), (2, 2), (1, 2)]
    for p, q in zip(parts, np.split(x, [2, 4])):
        same(p, q)
    parts = ops.split(Tensor(x), [1, 4])
    assert [p.shape[0] for p in parts] == [1, 4]
    assert [p.shape for p in ops.split(Tensor(x), 1, 1)] == [(5, 1), (5, 1)]
    assert [p.shape[0] for p in ops.chunk(Tensor(x), 3)] == [2, 2, 1]
    assert [p.shape[0] for p in ops.chunk(Tensor(np.arange(6)), 4)] == [2, 2, 2]
    rows = ops.unbind(Tensor(x))
    assert isinstance(rows, tuple) and len(rows) == 5
    same(ops.unbind(Tensor(x), 1)[1], x[:, 1])
    with pytest.raises(ValueError, match="split.*add up"):
        ops.split(Tensor(x), [1, 2])
    with pytest.raises(ValueError, match="chunk"):
        ops.chunk(Tensor(x), 0)


# ---- selection and masks --------------------------------------------------------------------------

def test_where_and_select():
    c = np.array([True, False, True])
    x, y = rand(2, 3), rand(3)
    same(ops.where(Tensor(c), Tensor(x), Tensor(y)), np.where(c, x, y))
    same(ops.where(Tensor(c), Tensor(x), 0.5), np.where(c, x, 0.5))
    same(ops.select(Tensor(c), 1, Tensor([4, 5, 6])), np.where(c, 1, [4, 5, 6]))
    with pytest.raises(TypeError, match="where.*bool"):
        ops.where(Tensor([1, 0, 1]), Tensor(x), Tensor(y))
    with pytest.raises(ValueError, match=r"Select.*\(3,\).*\(2, 3\).*\(2,\)"):
        ops.where(Tensor(c), Tensor(x), Tensor(y[:2]))


def test_masked_fill_and_masked_select():
    x = rand(2, 3)
    m = np.array([True, False, True])
    same(ops.masked_fill(Tensor(x), Tensor(m), 0.5), np.where(m, 0.5, x))
    ints = ops.masked_fill(Tensor([1, 2, 3]), Tensor(m), 9.7)
    assert ints.dtype == ms.int64 and ints.asnumpy().tolist() == [9, 2, 9]
    same(ops.masked_fill(Tensor(x), Tensor(m), Tensor(np.array(7.0))), np.where(m, 7.0, x))
    same(ops.masked_select(Tensor(x), Tensor(m)), x[np.broadcast_to(m, (2, 3))])
    with pytest.raises(TypeError, match="masked_fill.*bool"):
        ops.masked_fill(Tensor(x), Tensor([1, 0, 1]), 0.0)
    with pytest.raises(TypeError, match="masked_select.*bool"):
        ops.masked_select(Tensor(x), Tensor([1, 0, 1]))


def test_narrow_slice_flip_roll():
    x = rand(3, 4)
    same(ops.narrow(Tensor(x), 1, 1, 2), x[:, 1:3])
    same(ops.slice(Tensor(x), (1, 0), (2, -1)), x[1:3, :])
    same(ops.flip(Tensor(x), (0, 1)), x[::-1, ::-1])
    same(ops.flip(Tensor(x), 1), x[:, ::-1])
    same(ops.roll(Tensor(x), 1), np.roll(x, 1))
    same(ops.roll(Tensor(x), (1, -5), (0, 1)), np.roll(x, (1, -5), (0, 1)))
    with pytest.raises(ValueError, match="narrow.*out of range"):
        ops.narrow(Tensor(x), 1, 3, 2)
    with pytest.raises(ValueError, match="slice.*exceed"):
        ops.slice(Tensor(x), (0, 0), (5, 1))
    with pytest.raises(ValueError, match="flip.*repeat"):
        ops.flip(Tensor(x), (0, 0))


def test_triangles_and_diagonals():
    x = rand(2, 3, 4)
    same(ops.tril(Tensor(x)), np.tril(x))
    same(ops.triu(Tensor(x), -1), np.triu(x, -1))
    same(ops.tril(Tensor(x), 1), np.tril(x, 1))
    same(ops.diagonal(Tensor(x[0])), np.diagonal(x[0]))
    same(ops.diagonal(Tensor(x), 1, 1, 2), np.diagonal(x, 1, 1, 2))
    same(ops.diagonal(Tensor(x), -1, 0, 2), np.diagonal(x, -1, 0, 2))
    same(ops.diagonal(Tensor(x[0]), 7), np.diagonal(x[0], 7))
    v = rand(3)
    same(ops.diag(Tensor(v)), np.diag(v))
    m = rand(2, 2)
    same(ops.diag(Tensor(m)), np.einsum("ij,ik,jl->ijkl", m, np.eye(2), np.eye(2)))
    with pytest.raises(ValueError, match="tril.*2-D"):
        ops.tril(Tensor(v))
    with pytest.raises(ValueError, match="diagonal.*repeat"):
        ops.diagonal(Tensor(x), 0, 1, 1)


def test_nonzero_and_meshgrid():
    x = np.array([[0, 1], [2, 0]])
    out = ops.nonzero(Tensor(x))
    assert out.dtype == ms.int64
    same(out, np.argwhere(x))
    rows, cols = ops.nonzero(Tensor(x), as_tuple=True)
    same(rows, [0, 1])
    same(cols, [1, 0])
    assert ops.nonzero(Tensor(np.zeros((0, 2)))).shape == (0, 2)
    assert ops.nonzero(Tensor(np.array(3.0))).shape == (1, 0)
    a, b = np.arange(2), np.arange(3)
    for indexing in ("xy", "ij"):
        for got, want in zip(ops.meshgrid(Tensor(a), Tensor(b), indexing=indexing),
                             np.meshgrid(a, b, indexing=indexing)):
            same(got, want)
    with pytest.raises(ValueError, match="meshgrid.*indexing"):
        ops.meshgrid(Tensor(a), indexing="ji")


# ---- gather and scatter ---------------------------------------------------------------------------

def test_gather_and_index_select():
    x = rand(3, 4)
    same(ops.gather(Tensor(x), Tensor([2, 0, -1]), 0), x[[2, 0, -1]])
    same(ops.gather(Tensor(x), Tensor([[1, 3], [0, 0]]), 1), np.take(x, [[1, 3], [0, 0]], 1))
    same(ops.index_select(Tensor(x), 1, Tensor([3, 3, 0])), x[:, [3, 3, 0]])
    with pytest.raises(IndexError, match="Gather.*index 3.*size 3"):
        ops.gather(Tensor(x), Tensor([3]), 0)
    with pytest.raises(TypeError, match="gather.*integer"):
        ops.gather(Tensor(x), Tensor([0.0]), 0)


@pytest.mark.parametrize("axis,batch_dims,index_shape", [(1, 1, (2, 5)), (2, 1, (2, 2)),
                                                         (2, 2, (2, 3, 2)), (1, -1, (2, 5))])
def test_gather_with_batch_dims(axis, batch_dims, index_shape):
    x = rand(2, 3, 4)
    idx = RNG.integers(0, x.shape[axis], index_shape)
    b = batch_dims % len(index_shape) if batch_dims < 0 else batch_dims
    want = np.stack([np.take(x[i], idx[i], axis - 1) if b == 1 else
                     np.stack([np.take(x[i, j], idx[i, j], axis - 2) for j in range(x.shape[1])])
                     for i in range(x.shape[0])])
    same(ops.gather(Tensor(x), Tensor(idx), axis, batch_dims), want)
    same(ops.Gather(batch_dims)(Tensor(x), Tensor(idx), axis), want)


def test_gather_elements():
    x = rand(3, 4)
    idx = RNG.integers(0, 3, (2, 4))
    same(ops.gather_elements(Tensor(x), 0, Tensor(idx)), np.take_along_axis(x, idx, 0))
    idx1 = RNG.integers(-4, 4, (3, 2))
    same(ops.gather_d(Tensor(x), 1, Tensor(idx1)), np.take_along_axis(x, idx1 % 4, 1))
    with pytest.raises(IndexError, match="gather_elements.*index 4"):
        ops.gather_elements(Tensor(x), 1, Tensor([[4]]))
    with pytest.raises(ValueError, match="gather_elements.*rank"):
        ops.gather_elements(Tensor(x), 1, Tensor([1]))


def test_scatter_is_the_adjoint_layout_of_gather_elements():
    x = np.zeros((3, 3))
    idx = np.array([[0, 2], [1, 0]])
    src = np.arange(1.0, 7.0).reshape(2, 3)
    want = x.copy()
    for i in range(2):
        for j in range(2):
            want[i, idx[i, j]] = src[i, j]
    same(ops.scatter(Tensor(x), 1, Tensor(idx), Tensor(src)), want)
    want0 = x.copy()
    want0[[0, 2], [0, 1]] = 2.0
    same(ops.scatter(Tensor(x), 0, Tensor([[0, 2]]), 2.0), want0)
    with pytest.raises(IndexError, match="scatter.*index 5"):
        ops.scatter(Tensor(x), 0, Tensor([[5]]), Tensor([[1.0]]))


def test_scatter_nd_and_tensor_scatters():
    updates = rand(3, 2)
    idx = np.array([[0], [2], [0]])
    want = np.zeros((4, 2))
    np.add.at(want, idx[:, 0], updates)
    same(ops.scatter_nd(Tensor(idx), Tensor(updates), (4, 2)), want)
    x = rand(4, 2)
    same(ops.tensor_scatter_add(Tensor(x), Tensor(idx), Tensor(updates)), x + want)
    upd = x.copy()
    upd[[1, 3], [0, 1]] = [10.0, 20.0]
    same(ops.tensor_scatter_update(Tensor(x), Tensor([[1, 0], [3, 1]]),
                                   Tensor(np.array([10.0, 20.0]))), upd)
    with pytest.raises(IndexError, match=r"tensor_scatter_add.*index -1.*\[0, 4\)"):
        ops.tensor_scatter_add(Tensor(x), Tensor([[-1]]), Tensor(rand(1, 2)))
    with pytest.raises(ValueError, match=r"tensor_scatter_update.*\(1,\)"):
        ops.tensor_scatter_update(Tensor(x), Tensor([[1, 0]]), Tensor(rand(2)))
    with pytest.raises(IndexError, match="scatter_nd.*index 5"):
        ops.scatter_nd(Tensor([[5]]), Tensor(rand(1, 2)), (4, 2))


# ---- padding --------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode,np_mode", [("constant", "constant"), ("reflect", "reflect"),
                                          ("replicate", "edge"), ("circular", "wrap")])
def test_pad_modes_match_numpy(mode, np_mode):
    x = rand(2, 3, 4)
    out = ops.pad(Tensor(x), (2, 1, 1, 2), mode)
    same(out, np.pad(x, ((0, 0), (1, 2), (2, 1)), np_mode))


def test_pad_values_and_cropping():
    x = rand(2, 3)
    same(ops.pad(Tensor(x), (1, 1), value=9.0), np.pad(x, ((0, 0), (1, 1)), constant_values=9.0))
    same(ops.pad(Tensor(x), (-1, 1)), np.pad(x[:, 1:], ((0, 0), (0, 1))))
    with pytest.raises(ValueError, match="pad.*reflect.*smaller"):
        ops.pad(Tensor(x), (3, 0), "reflect")
    with pytest.raises(ValueError, match="pad.*even length"):
        ops.pad(Tensor(x), (1,))
    with pytest.raises(ValueError, match="pad.*mode"):
        ops.pad(Tensor(x), (1, 1), "mirror")


# ---- sorting --------------------------------------------------------------------------------------

def test_topk_sort_argsort_indices_are_int32():
    x = np.array([[1.0, 5.0, 5.0, 7.0], [3.0, 0.0, 2.0, 2.0]])
    values, indices = ops.topk(Tensor(x), 3)
    assert indices.dtype == ms.int32
    same(values, [[7.0, 5.0, 5.0], [3.0, 2.0, 2.0]])
    same(indices, [[3, 1, 2], [0, 2, 3]])  # equal values: the lower index first
    values, indices = ops.topk(Tensor(x), 2, 0, largest=False)
    same(values, np.sort(x, 0)[:2])
    values, indices = ops.sort(Tensor(x), descending=True)
    same(values, -np.sort(-x, 1))
    same(indices, [[3, 1, 2, 0], [0, 2, 3, 1]])
    values, indices = ops.sort(Tensor(x), 0)
    same(values, np.sort(x, 0))
    assert indices.dtype == ms.int32
    order = ops.argsort(Tensor(x), 1)
    assert order.dtype == ms.int32
    same(order, np.argsort(x, 1, kind="stable"))
    with pytest.raises(ValueError, match="topk.*'k' 5"):
        ops.topk(Tensor(x), 5)


def test_unique_keeps_first_appearance_order():
    values, inverse = ops.unique(Tensor([[3, 1], [3, 2]]))
    same(values, [3, 1, 2])
    same(inverse, [[0, 1], [0, 2]])
    assert inverse.dtype == ms.int64
    values, inverse = ops.unique(Tensor(np.array([2.0, 2.0, -1.0], np.float32)))
    same(values, np.array([2.0, -1.0], np.float32))
    assert inverse.dtype == ms.int32
    values, inverse = ops.unique(Tensor(np.zeros(0)))
    assert values.shape == (0,) and inverse.shape == (0,)


# ---- gradients of the composites ------------------------------------------------------------------

def test_reordering_gradients():
    check_grads(lambda a: ops.flip(a, (0, 2)), [T(2, 3, 2)], order=2)
    check_grads(lambda a: ops.roll(a, (1, -2), (0, 1)), [T(3, 4)], order=2)
    check_grads(lambda a: ops.roll(a, 2), [T(3, 2)], order=2)
    check_grads(lambda a: ops.movedim(a, (0, 1), (2, 0)), [T(2, 3, 4)], order=2)
    check_grads(lambda a: ops.repeat_interleave(a, Tensor([2, 0, 1]), 1), [T(2, 3)], order=2)
    check_grads(lambda a: ops.tile(a, (2, 1)), [T(2, 3)], order=2)


def test_triangle_and_diagonal_gradients():
    check_grads(lambda a: ops.tril(a, -1), [T(2, 3, 3)], order=2)
    check_grads(lambda a: ops.triu(a, 1), [T(3, 4)], order=2)
    check_grads(lambda a: ops.diagonal(a, 1, 0, 2), [T(3, 2, 4)], order=2)
    check_grads(ops.diag, [T(3)], order=2)
    check_grads(ops.diag, [T(2, 2)], order=2)


def test_indexing_gradients():
    idx = Tensor(np.array([[0, 2, 2], [1, 0, 1]]))
    check_grads(lambda a: ops.gather_elements(a, 1, idx), [T(2, 3)], order=2)
    check_grads(lambda a: ops.gather(a, Tensor([[1, 3], [0, 1]]), 2, 1), [T(2, 3, 4)], order=2)
    mask = Tensor(np.array([True, False, True]))
    check_grads(lambda a: ops.masked_fill(a, mask, 2.0), [T(2, 3)], order=2)
    check_grads(lambda a: ops.masked_select(a, mask), [T(2, 3)], order=2)
    check_grads(lambda a, b: ops.where(mask, a, b), [T(2, 3), T(3)], order=2)
    check_grads(lambda a: ops.narrow(a, 1, 1, 2), [T(2, 3)], order=2)


def test_scatter_gradients():
    idx = Tensor(np.array([[0, 2], [1, 0]]))
    check_grads(lambda x, s: ops.scatter(x, 1, idx, s), [T(2, 3), T(2, 2)], order=2)
    nd = Tensor(np.array([[0], [2], [0]]))
    check_grads(lambda u: ops.scatter_nd(nd, u, (4, 2)), [T(3, 2)], order=2)
    check_grads(lambda x, u: ops.tensor_scatter_add(x, nd, u), [T(4, 2), T(3, 2)], order=2)
    coords = Tensor(np.array([[1, 0], [3, 1]]))
    check_grads(lambda x, u: ops.tensor_scatter_update(x, coords, u), [T(4, 2), T(2)], order=2)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_gradients(mode):
    check_grads(lambda a: ops.pad(a, (2, 1, 1, 0), mode, value=0.5 if mode == "constant" else None),
                [T(2, 3, 4)], order=2)
    check_grads(lambda a: ops.pad(a, (-1, 2), mode), [T(2, 4)], order=2)


def test_sorting_gradients():
    x = Tensor(np.array([[0.3, -1.2, 2.5, 0.9], [1.7, -0.4, 0.1, -2.2]]))  # no ties
    check_grads(lambda a: ops.topk(a, 2)[0], [x], order=2)
    check_grads(lambda a: ops.topk(a, 1, 0, largest=False)[0], [x], order=2)
    check_grads(lambda a: ops.sort(a, 1, True)[0], [x], order=2)
    check_grads(lambda a: ops.unique(a)[0], [x], order=2)


def test_split_and_join_gradients():
    check_grads(lambda a: ops.split(a, 2, 1), [T(2, 5)], order=2)
    check_grads(lambda a: ops.split(a, [1, 0, 2]), [T(3, 2)], order=2)
    check_grads(lambda a: ops.chunk(a, 3, 0), [T(5, 2)], order=2)
    check_grads(lambda a: ops.unbind(a, 1), [T(2, 3)], order=2)
    check_grads(lambda a, b: ops.concat((a, b), 1), [T(2, 1), T(2, 3)], order=2)
    check_grads(lambda a, b: ops.stack((a, b), -1), [T(2, 3), T(2, 3)], order=2)


def test_meshgrid_gradients():
    check_grads(lambda a, b: ops.meshgrid(a, b), [T(2), T(3)], order=2)
    check_grads(lambda a, b, c: ops.meshgrid(a, b, c, indexing="ij"), [T(2), T(3), T(2)], order=2)
