"""Pooling where the windows tile the input exactly takes a fast path that works in the input's
memory order (channels-last for convolution outputs). Its results and gradients must not depend
on the layout, and ties must split the gradient evenly on every path."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor
from minispore._autodiff.tape import apply, wrap
from minispore.ops.operations import conv_ops as C
from minispore.testing import check_grads


def layouts(nhwc):
    """The same NCHW values, C-contiguous and as a channels-last view (wrap them: Tensor()
    copies to C order)."""
    return {"nchw": np.ascontiguousarray(nhwc.transpose(0, 3, 1, 2)),
            "channels_last": nhwc.transpose(0, 3, 1, 2)}


def even_split_grad(x, g, k):
    """Reference max-pool gradient on a tiled input: dout shared evenly by the tied maxima."""
    n, c, h, w = x.shape
    dx = np.zeros_like(x)
    for i in range(h // k):
        for j in range(w // k):
            win = x[:, :, i * k:(i + 1) * k, j * k:(j + 1) * k]
            hit = win == win.max(axis=(2, 3), keepdims=True)
            dx[:, :, i * k:(i + 1) * k, j * k:(j + 1) * k] = (
                hit / hit.sum(axis=(2, 3), keepdims=True) * g[:, :, i, j, None, None])
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
        np.testing.assert_allclose(dx.asnumpy(), even_split_grad(ref_x, g, k), rtol=1e-15,
                                   atol=1e-15, err_msg=name)


def test_tiled_max_pool_nan_window_gives_nan_gradient():
    x = np.arange(16, dtype=np.float64).reshape(1, 1, 4, 4)
    x[0, 0, 0, 0] = np.nan
    x[0, 0, 2, 2] = x[0, 0, 3, 3] = 99.0  # a tie elsewhere keeps the hit count at one per window
    dx = ms.grad(lambda t: apply(C.MaxPool(2, 2), (t,)).sum())(Tensor(x)).asnumpy()
    assert np.isnan(dx[0, 0, :2, :2]).all()
    np.testing.assert_array_equal(dx[0, 0, 2:, 2:], [[0.5, 0.0], [0.0, 0.5]])
    np.testing.assert_array_equal(dx[0, 0, :2, 2:], [[0.0, 0.0], [0.0, 1.0]])


@pytest.mark.parametrize("pool", [C.MaxPool(2, 2), C.AvgPool(2, 2)],
                         ids=["max", "avg"])
def test_tiled_pools_second_order_on_channels_last_input(pool):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 6, 3)).transpose(0, 3, 1, 2)
    check_grads(lambda t: apply(pool, (t,)), [wrap(x)], order=2)


def test_tiled_max_pool_gradient_keeps_the_channels_last_layout():
    """Convolution outputs are channels-last; the pooling gradient stays so, and the ReLU and
    convolution gradients after it read it without a copy."""
    x = np.random.default_rng(2).standard_normal((2, 4, 4, 3)).transpose(0, 3, 1, 2)
    pool = C.MaxPool(2, 2)
    dx = pool.bprop((wrap(x), wrap(pool.forward(x))), Tensor(np.ones((2, 3, 2, 2))),
                    (True,))[0]
    assert dx._data.transpose(0, 2, 3, 1).flags.c_contiguous
