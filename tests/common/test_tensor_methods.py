"""Tensor methods and properties, with MindSpore's conventions: `max(axis=...)` returns values
and `max(dim)` values and indices, int32 indices from topk/sort, population std/var,
half-to-even rounding and truncating int casts."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

X = np.array([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], np.float32)


def _np(t):
    return t.asnumpy()


TIER_1_AND_2 = """asnumpy shape dtype ndim size itemsize nbytes strides item tolist astype reshape
    view transpose T permute sum mean max min argmax argmin squeeze unsqueeze expand_dims flatten
    abs exp log sqrt pow sigmoid tanh clip std var all any copy float int bool half double long to
    matmul norm cumsum prod softmax tile split chunk topk sort equal masked_fill nonzero round
    is_floating_point dim numel nelement mT contiguous fill init_data has_init add_ mul_ sub_ div_
    repeat clone""".split()


def test_every_tier_1_and_2_method_exists():
    missing = [name for name in TIER_1_AND_2 if not hasattr(Tensor, name)]
    assert missing == []


def test_log_softmax_is_not_a_tensor_method():
    assert not hasattr(Tensor([1.0]), "log_softmax")


# ---- properties ----------------------------------------------------------------------------------

def test_shape_ndim_size():
    t = Tensor(np.zeros((2, 3), np.float32))
    assert t.shape == (2, 3) and isinstance(t.shape, tuple)
    assert t.ndim == 2 and t.dim() == 2
    assert t.size == 6 and isinstance(t.size, int)
    assert t.numel() == t.nelement() == 6
    assert Tensor(1.0).shape == () and Tensor(1.0).ndim == 0 and Tensor(1.0).size == 1


@pytest.mark.parametrize("np_dtype,itemsize", [(np.float32, 4), (np.float16, 2), (np.int64, 8),
                                               (np.uint8, 1), (np.bool_, 1)])
def test_itemsize_nbytes_strides(np_dtype, itemsize):
    t = Tensor(np.zeros((2, 3), np_dtype))
    assert t.itemsize == itemsize
    assert t.nbytes == 6 * itemsize
    assert t.strides == (3 * itemsize, itemsize)


def test_strides_are_those_of_the_contiguous_layout():
    t = Tensor(np.zeros((2, 3), np.float32))
    assert t.T.strides == (8, 4)
    assert Tensor(np.arange(12.0).reshape(2, 6))[:, ::2].strides == (24, 8)
    assert Tensor(1).strides == ()


def test_contiguous():
    t = Tensor(np.arange(6.0).reshape(2, 3))
    assert t.is_contiguous() and t.contiguous() is t
    transposed = t.T
    assert not transposed.is_contiguous()
    packed = transposed.contiguous()
    assert packed.is_contiguous() and packed.shape == (3, 2)
    np.testing.assert_array_equal(packed.asnumpy(), np.arange(6.0).reshape(2, 3).T)


def test_dtype_queries():
    assert Tensor([1.0]).is_floating_point() and Tensor([1.0], ms.float16).is_floating_point()
    assert not Tensor([1]).is_floating_point() and not Tensor([True]).is_floating_point()


# ---- conversion ----------------------------------------------------------------------------------

def test_asnumpy_item_tolist():
    t = Tensor([[1, 2], [3, 4]])
    arr = t.asnumpy()
    assert isinstance(arr, np.ndarray) and arr.dtype == np.int64
    assert t.tolist() == [[1, 2], [3, 4]]
    assert Tensor(3).tolist() == 3
    assert Tensor([2.5]).item() == 2.5 and isinstance(Tensor([2.5]).item(), float)
    assert Tensor(True).item() is True
    assert t.item(3) == 4
    with pytest.raises(ValueError, match="only one element"):
        t.item()


@pytest.mark.parametrize("method,dtype", [("float", ms.float32), ("half", ms.float16),
                                          ("double", ms.float64), ("int", ms.int32),
                                          ("long", ms.int64), ("bool", ms.bool_)])
def test_casting_methods(method, dtype):
    out = getattr(Tensor([1.7, -1.7, 0.0]), method)()
    assert out.dtype is dtype
    np.testing.assert_array_equal(_np(out), np.array([1.7, -1.7, 0.0], np.float32).astype(
        ms.dtype_to_nptype(dtype)))


def test_int_casts_truncate_toward_zero():
    t = Tensor([1.7, -1.7, 2.5, -2.5])
    assert _np(t.int()).tolist() == [1, -1, 2, -2]
    assert _np(t.astype(ms.int64)).tolist() == [1, -1, 2, -2]
    assert t.to(ms.float64).dtype is ms.float64


# ---- shape manipulation --------------------------------------------------------------------------

def test_reshape_and_view():
    t = Tensor(np.arange(6))
    for out in (t.reshape(2, 3), t.reshape((2, 3)), t.reshape([2, 3]), t.reshape(-1, 3),
                t.view(2, 3), t.view((2, -1))):
        assert out.shape == (2, 3)
        np.testing.assert_array_equal(_np(out), np.arange(6).reshape(2, 3))


def test_transpose_permute_and_T():
    a = np.arange(6).reshape(1, 2, 3)
    t = Tensor(a)
    np.testing.assert_array_equal(_np(t.transpose()), a.transpose())
    np.testing.assert_array_equal(_np(t.transpose(1, 0, 2)), a.transpose(1, 0, 2))
    np.testing.assert_array_equal(_np(t.transpose((2, 0, 1))), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(_np(t.T), a.T)
    np.testing.assert_array_equal(_np(t.permute(2, 1, 0)), a.transpose(2, 1, 0))
    np.testing.assert_array_equal(_np(t.permute((1, 2, 0))), a.transpose(1, 2, 0))
    np.testing.assert_array_equal(_np(t.mT), np.swapaxes(a, -1, -2))


def test_squeeze_unsqueeze_expand_dims():
    t = Tensor(np.zeros((1, 3, 1)))
    assert t.squeeze().shape == (3,)
    assert t.squeeze(0).shape == (3, 1)
    assert t.squeeze(axis=2).shape == (1, 3)
    assert t.squeeze((0, 2)).shape == (3,)
    assert t.unsqueeze(0).shape == (1, 1, 3, 1)
    assert t.expand_dims(-1).shape == (1, 3, 1, 1)


def test_tensor_flatten_merges_everything_but_ops_flatten_keeps_the_batch_axis():
    t = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert t.flatten().shape == (24,)
    assert ops.flatten(t).shape == (2, 12)
    assert t.flatten(start_dim=1).shape == (2, 12)
    np.testing.assert_array_equal(_np(t.flatten()), np.arange(24))


def test_tile_repeat_split_chunk():
    t = Tensor(np.arange(6))
    assert _np(t.tile((2,))).tolist() == list(range(6)) * 2
    assert t.tile((2, 1)).shape == (2, 6)
    m = Tensor([[0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(_np(m.repeat(3, 2)), np.tile(m.asnumpy(), (3, 2)))
    assert m.repeat((2, 1, 3)).shape == (2, 2, 9)
    with pytest.raises(ValueError, match="repeats"):
        m.repeat(2)
    parts = t.split(2)
    assert isinstance(parts, tuple) and [_np(p).tolist() for p in parts] == [[0, 1], [2, 3], [4, 5]]
    assert [p.shape for p in t.split([2, 4])] == [(2,), (4,)]
    chunks = t.chunk(3)
    assert isinstance(chunks, tuple) and [p.shape for p in chunks] == [(2,), (2,), (2,)]


# ---- reductions ----------------------------------------------------------------------------------

def test_max_with_axis_keyword_returns_values_only():
    t = Tensor(X)
    out = t.max(axis=1)
    assert isinstance(out, Tensor) and _np(out).tolist() == [5.0, 6.0]
    assert t.max(axis=1, keepdims=True).shape == (2, 1)
    assert _np(t.min(axis=0)).tolist() == [1.0, 2.0, 3.0]
    assert t.max().shape == () and t.max().item() == 6.0
    assert t.max(axis=(0, 1)).item() == 6.0


def test_max_with_positional_dim_returns_values_and_indices():
    t = Tensor(X)
    for values, indices in (t.max(1), t.max(dim=1)):
        assert _np(values).tolist() == [5.0, 6.0]
        assert indices.dtype is ms.int64 and _np(indices).tolist() == [1, 2]
    values, indices = t.min(0)
    assert _np(values).tolist() == [1.0, 2.0, 3.0] and _np(indices).tolist() == [0, 1, 0]
    values, indices = t.max(1, True)
    assert values.shape == (2, 1) and indices.shape == (2, 1)
    values, indices = t.max(1, keepdim=True)
    assert values.shape == (2, 1) and _np(indices).ravel().tolist() == [1, 2]


def test_argmax_argmin():
    t = Tensor(X)
    assert _np(t.argmax(1)).tolist() == [1, 2] and t.argmax(1).dtype is ms.int64
    assert t.argmax().item() == 5
    assert _np(t.argmin(axis=0)).tolist() == [0, 1, 0]
    assert t.argmax(axis=1, keepdims=True).shape == (2, 1)


def test_sum_accepts_axis_keepdims_and_dim_keepdim():
    t = Tensor([[1, 2, 3], [4, 5, 6]], ms.int32)
    assert t.sum().item() == 21 and t.sum().dtype is ms.int64
    assert _np(t.sum(1)).tolist() == [6, 15]
    assert _np(t.sum(axis=0, keepdims=True)).tolist() == [[5, 7, 9]]
    assert _np(t.sum(dim=1, keepdim=True)).tolist() == [[6], [15]]
    assert _np(t.sum(0, True)).tolist() == [[5, 7, 9]]
    assert t.sum(axis=(0, 1)).item() == 21
    assert t.sum(initial=10).item() == 31
    f = Tensor([[1.0, 2.0], [3.0, 4.0]])
    assert f.sum(dtype=ms.float64).dtype is ms.float64
    assert _np(f.sum(axis=0, dtype=ms.int32)).tolist() == [4, 6]


def test_mean():
    t = Tensor([[1.0, 2.0], [3.0, 5.0]])
    assert t.mean().item() == 2.75
    assert _np(t.mean(0)).tolist() == [2.0, 3.5]
    assert _np(t.mean(axis=1, keep_dims=True)).tolist() == [[1.5], [4.0]]
    assert _np(t.mean(1, True)).tolist() == [[1.5], [4.0]]


def test_std_and_var_default_to_the_population_estimate():
    a = np.array([[1.0, 2.0], [3.0, 5.0]], np.float32)
    t = Tensor(a)
    np.testing.assert_allclose(t.std().item(), np.std(a), rtol=1e-6)
    np.testing.assert_allclose(t.var().item(), np.var(a), rtol=1e-6)
    np.testing.assert_allclose(t.std(ddof=1).item(), np.std(a, ddof=1), rtol=1e-6)
    np.testing.assert_allclose(_np(t.std(axis=0)), np.std(a, axis=0), rtol=1e-6)
    np.testing.assert_allclose(_np(t.var(axis=1, keepdims=True)),
                               np.var(a, axis=1, keepdims=True), rtol=1e-6)


def test_all_any():
    b = Tensor([True, False])
    assert b.all().item() is False and b.any().item() is True
    assert b.all().shape == () and b.all().dtype is ms.bool_
    assert _np(Tensor([[1, 0], [1, 1]]).all(axis=1)).tolist() == [False, True]
    assert Tensor([1.0, 0.0]).any().item() is True


def test_prod_cumsum_norm_softmax_matmul():
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    t = Tensor(a)
    assert t.prod().item() == 24.0 and _np(t.prod(1)).tolist() == [2.0, 12.0]
    assert Tensor([1, 2], ms.int32).prod().dtype is ms.int64
    np.testing.assert_array_equal(_np(t.cumsum(0)), np.cumsum(a, 0))
    np.testing.assert_array_equal(_np(t.cumsum(axis=1)), np.cumsum(a, 1))
    np.testing.assert_allclose(t.norm().item(), np.linalg.norm(a), rtol=1e-6)
    e = np.exp(a - a.max(1, keepdims=True))
    np.testing.assert_allclose(_np(t.softmax(1)), e / e.sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(_np(t.softmax(axis=0)).sum(0), [1.0, 1.0], rtol=1e-6)
    np.testing.assert_array_equal(_np(t.matmul(t)), a @ a)


# ---- elementwise ---------------------------------------------------------------------------------

def test_elementwise_math_methods():
    a = np.array([1.0, 4.0], np.float32)
    t = Tensor(a)
    np.testing.assert_allclose(_np(Tensor(-a).abs()), a)
    np.testing.assert_allclose(_np(t.exp()), np.exp(a), rtol=1e-6)
    np.testing.assert_allclose(_np(t.log()), np.log(a), rtol=1e-6)
    np.testing.assert_allclose(_np(t.sqrt()), np.sqrt(a), rtol=1e-6)
    np.testing.assert_allclose(_np(t.pow(2)), a ** 2)
    np.testing.assert_allclose(_np(t.sigmoid()), 1 / (1 + np.exp(-a)), rtol=1e-6)
    np.testing.assert_allclose(_np(t.tanh()), np.tanh(a), rtol=1e-6)
    assert _np(t.clip(2, 3)).tolist() == [2.0, 3.0]
    assert _np(t.clip(min=2.0)).tolist() == [2.0, 4.0]
    assert _np(t.clip(None, 3.0)).tolist() == [1.0, 3.0]


def test_round_is_half_to_even():
    t = Tensor([0.5, 1.5, 2.5, -0.5, -1.5, 3.7])
    assert _np(t.round()).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 4.0]


def test_equal_masked_fill_nonzero():
    t = Tensor([1.0, 2.0, 3.0])
    eq = t.equal(Tensor([1.0, 0.0, 3.0]))
    assert eq.dtype is ms.bool_ and _np(eq).tolist() == [True, False, True]
    assert _np(t.masked_fill(Tensor([True, False, True]), 0.0)).tolist() == [0.0, 2.0, 0.0]
    nz = Tensor([[0, 1], [2, 0]]).nonzero()
    assert nz.dtype is ms.int64 and _np(nz).tolist() == [[0, 1], [1, 0]]


def test_topk_and_sort_return_values_and_int32_indices():
    t = Tensor([3.0, 1.0, 2.0])
    values, indices = t.topk(2)
    assert _np(values).tolist() == [3.0, 2.0] and _np(indices).tolist() == [0, 2]
    assert indices.dtype is ms.int32
    values, indices = t.sort()
    assert _np(values).tolist() == [1.0, 2.0, 3.0] and _np(indices).tolist() == [1, 2, 0]
    assert indices.dtype is ms.int32


# ---- copies and fills ----------------------------------------------------------------------------

def test_copy_and_clone_are_new_tensors():
    t = Tensor([1.0, 2.0])
    for c in (t.copy(), t.clone()):
        assert c is not t and type(c) is Tensor
        c[0] = 9.0
    assert _np(t).tolist() == [1.0, 2.0]


def test_fill_returns_a_new_tensor():
    t = Tensor([1.0, 2.0])
    out = t.fill(5.0)
    assert out is not t and _np(out).tolist() == [5.0, 5.0] and _np(t).tolist() == [1.0, 2.0]
    ints = Tensor([1, 2]).fill(2.5)
    assert ints.dtype is ms.int64 and _np(ints).tolist() == [2, 2]


def test_init_data_and_has_init_on_a_plain_tensor():
    t = Tensor([1.0, 2.0])
    assert t.has_init is False
    assert t.init_data() is t


# ---- in-place methods (MindSpore 2.10's do not write in place: section 14) -----------------------

@pytest.mark.parametrize("method,operand,expected", [
    ("add_", Tensor([1.0, 1.0]), [2.0, 3.0]), ("sub_", 1.0, [0.0, 1.0]),
    ("mul_", 3, [3.0, 6.0]), ("div_", Tensor([2.0, 4.0]), [0.5, 0.5]),
])
def test_in_place_methods_write_in_place_and_return_self(method, operand, expected):
    t = Tensor([1.0, 2.0])
    alias = t
    out = getattr(t, method)(operand)
    assert out is t
    assert _np(alias).tolist() == expected


def test_in_place_keeps_the_dtype():
    t = Tensor([1, 2])
    t.add_(1.5)
    assert t.dtype is ms.int64 and _np(t).tolist() == [2, 3]


def test_fill_zero_copy_in_place():
    t = Tensor([1.0, 2.0])
    assert t.fill_(3.0) is t and _np(t).tolist() == [3.0, 3.0]
    assert t.zero_() is t and _np(t).tolist() == [0.0, 0.0]
    assert t.copy_(Tensor([5.0, 6.0])) is t and _np(t).tolist() == [5.0, 6.0]
    with pytest.raises(ValueError, match="shape"):
        t.add_(Tensor([[1.0], [2.0]]))


def test_in_place_methods_inside_a_differentiated_function():
    def f(x):
        y = x * 1
        y.mul_(x)  # y = x ** 2
        y.add_(y)  # y = 2 x ** 2
        return y.sum()

    x = Tensor([1.0, 2.0, 3.0])
    np.testing.assert_allclose(_np(ms.grad(f)(x)), 4 * _np(x))


def test_register_hook_replaces_the_gradient():
    def f(x):
        y = x * 2
        y.register_hook(lambda g: g * 10)
        return y.sum()

    np.testing.assert_allclose(_np(ms.grad(f)(Tensor([1.0, 2.0]))), [20.0, 20.0])
