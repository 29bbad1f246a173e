"""Pooling where the windows tile the input exactly takes a fast path that works in the input's
memory order (channels-last for convolution outputs, (C, N, H, W) for one-channel ones). Its
results and gradients must not depend on the layout, and on every path a max pool routes each
window's gradient to its first maximum (row-major window order), as MindSpore does."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor
from minispore._autodiff.tape import apply, wrap
from minispore.ops.operations import conv_ops as C
from minispore.ops.operations import pool_ops
from minispore.ops.operations._kernels import sum_to_array
from minispore.testing import check_grads


def layouts(nhwc):
    """The same NCHW values, C-contiguous, as a channels-last view and as a view of (C, N, H, W)
    memory (wrap them: Tensor() copies to C order)."""
    return {"nchw": np.ascontiguousarray(nhwc.transpose(0, 3, 1, 2)),
            "channels_last": nhwc.transpose(0, 3, 1, 2),
            "channels_outer": np.ascontiguousarray(nhwc.transpose(3, 0, 1, 2)).swapaxes(0, 1)}


def first_max_grad(x, g, kh, kw, sh, sw):
    """Reference max-pool gradient (no padding): each dout to its window's first maximum."""
    n, c, h, w = x.shape
    dx = np.zeros_like(x)
    for i in range((h - kh) // sh + 1):
        for j in range((w - kw) // sw + 1):
            win = x[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw].reshape(n, c, -1)
            first = np.where(np.isnan(win).any(-1), np.isnan(win).argmax(-1), win.argmax(-1))
            for a in range(n):
                for b in range(c):
                    p, q = divmod(first[a, b], kw)
                    dx[a, b, i * sh + p, j * sw + q] += g[a, b, i, j]
    return dx


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("with_ties", [False, True])
def test_tiled_max_pool_is_layout_independent(k, with_ties):
    rng = np.random.default_rng(k)
    shape = (2, 2 * k, 3 * k, 3)
    nhwc = (rng.integers(0, 3, shape) if with_ties else rng.standard_normal(shape)).astype(
        np.float64)
    g = rng.standard_normal((2, 3, 2, 3))
    pool = C.MaxPool(k, k)
    for name, x in layouts(nhwc).items():
        out, dx = ms.value_and_grad(lambda t: (apply(pool, (t,)) * Tensor(g)).sum())(wrap(x))
        ref_x = np.ascontiguousarray(x)
        np.testing.assert_array_equal(
            apply(pool, (wrap(x),)).asnumpy(),
            ref_x.reshape(2, 3, 2, k, 3, k).max(axis=(3, 5)), err_msg=name)
        np.testing.assert_allclose(dx.asnumpy(), first_max_grad(ref_x, g, k, k, k, k), rtol=1e-15,
                                   atol=1e-15, err_msg=name)


@pytest.mark.parametrize("stride", [2, 1], ids=["tiled", "overlapping"])
def test_max_pool_ties_and_nan_go_to_the_first_maximum(stride):
    x = np.array([[[[1.0, 1.0, 5.0, 2.0],
                    [1.0, 0.0, 5.0, 5.0],
                    [3.0, np.nan, 7.0, 7.0],
                    [np.nan, 3.0, 7.0, 7.0]]]])
    side = (4 - 2) // stride + 1
    g = np.arange(1.0, 1.0 + side * side).reshape(1, 1, side, side)
    pool = C.MaxPool(2, stride)
    out, dx = ms.value_and_grad(lambda t: (apply(pool, (t,)) * Tensor(g)).sum())(wrap(x))
    np.testing.assert_array_equal(dx.asnumpy(), first_max_grad(x, g, 2, 2, stride, stride))
    values, index = apply(C.MaxPoolWithArgmax(2, stride), (wrap(x),))
    dx_argmax = np.zeros(16)
    np.add.at(dx_argmax, index.asnumpy().ravel(), g.ravel())
    np.testing.assert_array_equal(dx_argmax.reshape(x.shape), dx.asnumpy())


def test_max_pool_ties_match_mindspore():
    """MindSpore 2.10: nn.MaxPool2d(2, 2) on [[1, 1], [1, 0]] has the gradient [[1, 0], [0, 0]]."""
    x = Tensor(np.array([[[[1.0, 1.0], [1.0, 0.0]]]], np.float32))
    dx = ms.grad(lambda t: ms.nn.MaxPool2d(2, 2)(t).sum())(x)
    np.testing.assert_array_equal(dx.asnumpy(), [[[[1.0, 0.0], [0.0, 0.0]]]])


@pytest.mark.parametrize("pool", [C.MaxPool(2, 2), C.AvgPool(2, 2)],
                         ids=["max", "avg"])
def test_tiled_pools_second_order_on_channels_last_input(pool):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 6, 3)).transpose(0, 3, 1, 2)
    check_grads(lambda t: apply(pool, (t,)), [wrap(x)], order=2)


def test_tiled_max_pool_gradient_keeps_the_channels_last_layout():
    """Multi-channel convolution outputs are channels-last; the pooling gradient stays so, and
    the ReLU and convolution gradients after it read it without a copy."""
    x = np.random.default_rng(2).standard_normal((2, 4, 4, 3)).transpose(0, 3, 1, 2)
    pool = C.MaxPool(2, 2)
    dx = pool.bprop((wrap(x), wrap(pool.forward(x))), Tensor(np.ones((2, 3, 2, 2))),
                    (True,))[0]
    assert dx._data.transpose(0, 2, 3, 1).flags.c_contiguous


@pytest.mark.parametrize("kernel", [(2, 2), (3, 2), (2, 3), (1, 2), (2, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiled_max_pool_nan_inf_and_zero_ties_on_every_layout(kernel, dtype):
    """The tiled path works on the input's memory shifted by each tap's offset, whatever the
    layout: NaN, -inf, +-0 ties (ReLU outputs) and all -inf windows route as the reference does,
    and the values are the windows' maxima with NaN kept."""
    kh, kw = kernel
    rng = np.random.default_rng(kh * 10 + kw)
    shape = (2, 3 * kh, 4 * kw, 5)
    nhwc = rng.choice(np.array([np.nan, -np.inf, np.inf, 0.0, -0.0, 1.0, -1.0, 2.0]), shape,
                      p=[0.03, 0.15, 0.02, 0.3, 0.2, 0.1, 0.1, 0.1]).astype(dtype)
    nhwc[0, :kh, :kw, 0] = -np.inf  # a window of -inf only
    g = rng.standard_normal((2, 5, 3, 4)).astype(dtype)
    pool = C.MaxPool(kernel, kernel)
    for name, x in layouts(nhwc).items():
        _, dx = ms.value_and_grad(lambda t: (apply(pool, (t,)) * Tensor(g)).sum())(wrap(x))
        ref_x = np.ascontiguousarray(x)
        win = ref_x.reshape(2, 5, 3, kh, 4, kw).transpose(0, 1, 2, 4, 3, 5).reshape(2, 5, 3, 4, -1)
        expected = np.where(np.isnan(win).any(-1), np.nan, win.max(-1))
        np.testing.assert_array_equal(apply(pool, (wrap(x),)).asnumpy(), expected, err_msg=name)
        np.testing.assert_array_equal(dx.asnumpy(), first_max_grad(ref_x, g, kh, kw, kh, kw),
                                      err_msg=name)


def test_one_channel_convolution_output_and_its_pooling_gradient_keep_channels_outer_memory():
    """A one-channel convolution's GEMM makes (O, N*H*W): its NCHW output is a view of
    (C, N, H, W) memory; pooling, its gradient and the bias gradient's sum work in that order."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 1, 9, 8)).astype(np.float32)
    w = rng.standard_normal((4, 1, 3, 3)).astype(np.float32)
    conv = C.Conv2D(4, 3)
    out = conv.forward(x, w)
    assert out.swapaxes(0, 1).flags.c_contiguous and not out.flags.c_contiguous
    np.testing.assert_array_equal(out, conv.forward(x, w, C.Conv2D(4, 3)._im2col_windows(
        x, (3, 3), (7, 6))))
    z = out[:, :, :6]  # a tiled 6x6 window of the (C, N, H, W) memory
    assert pool_ops._channels_outer(np.ascontiguousarray(z.swapaxes(0, 1)).swapaxes(0, 1))
    z = np.ascontiguousarray(z.swapaxes(0, 1)).swapaxes(0, 1)
    pool = C.MaxPool(2, 2)
    dx = pool.bprop((wrap(z), wrap(pool.forward(z))), Tensor(np.ones((3, 4, 3, 3), np.float32)),
                    (True,))[0]._data
    assert dx.swapaxes(0, 1).flags.c_contiguous
    np.testing.assert_array_equal(dx, first_max_grad(np.ascontiguousarray(z),
                                                     np.ones((3, 4, 3, 3), np.float32), 2, 2, 2,
                                                     2))


def test_bias_gradient_sum_over_channels_outer_memory():
    g = np.random.default_rng(5).standard_normal((6, 8, 12, 12)).astype(np.float32).swapaxes(0, 1)
    summed = sum_to_array(g, (1, 6, 1, 1))
    expected = g.astype(np.float64).sum(axis=(0, 2, 3), keepdims=True)
    assert summed.shape == (1, 6, 1, 1) and summed.dtype == np.float32
    np.testing.assert_allclose(summed, expected, rtol=1e-5, atol=1e-4)
