"""The one-channel im2col fast path (patches copied tap by tap into a transposed buffer) against
the general window-view path: the same patches exactly, convolution values bitwise equal to
those computed from the window-view patches, filter gradients equal to float32 rounding."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor
from minispore.ops.operations import conv_ops as C
from minispore.ops.operations.conv_ops import (
    Conv2D,
    Conv2DBackpropFilter,
    Conv3D,
    Conv3DBackpropFilter,
)

CASES_2D = [  # (x shape, out_channel, kernel, pad_mode, pad, stride, dilation)
    ((64, 1, 28, 28), 6, (5, 5), "valid", 0, 1, 1),
    ((3, 1, 11, 9), 4, (3, 2), "pad", (1, 2, 0, 3), (2, 1), (1, 2)),
    ((2, 1, 7, 7), 3, (3, 3), "same", 0, 2, 1),
    ((5, 1, 6, 8), 2, (1, 1), "valid", 0, 1, 1),
]


def _conv(cls, shape, o, k, pad_mode, pad, stride, dilation):
    return cls(o, k, pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation)


def _window_cols(prim, x, ks):
    outs = prim._out_sizes(x.shape[2:], ks)
    return prim._im2col_windows(x, ks, outs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("case", CASES_2D)
def test_single_channel_patches_equal_window_patches(case, dtype):
    shape, _, k = case[:3]
    prim = _conv(Conv2D, *case)
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    fast, outs = prim._im2col(x, k)
    assert fast.shape == _window_cols(prim, x, k).shape
    np.testing.assert_array_equal(fast, _window_cols(prim, x, k))
    assert outs == prim._out_sizes(shape[2:], k)


def test_single_channel_patches_3d_and_non_contiguous_input():
    prim = Conv3D(2, (2, 3, 2), pad_mode="pad", pad=(1, 0, 0, 1, 2, 1), stride=(1, 2, 1))
    x = np.random.default_rng(1).standard_normal((3, 7, 6, 5, 4)).astype(np.float32)[:, 2:3]
    assert not x.flags.c_contiguous
    np.testing.assert_array_equal(prim._im2col(x, prim.kernel_size)[0],
                                  _window_cols(prim, x, prim.kernel_size))


@pytest.mark.parametrize("case", CASES_2D)
def test_conv_values_and_gradients_bitwise_as_from_window_patches(case):
    shape, o, k = case[:3]
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((o, 1, *k)).astype(np.float32)
    prim = _conv(Conv2D, *case)
    slow_cols = _window_cols(prim, x, k)
    out_fast = prim.forward(x, w)
    out_slow = prim.forward(x, w, slow_cols)
    np.testing.assert_array_equal(out_fast, out_slow)
    g = rng.standard_normal(out_fast.shape).astype(np.float32)
    filt = _conv(Conv2DBackpropFilter, *case)
    dw_fast = filt.forward(g, x, w.shape)
    dw_slow = filt.forward(g, x, w.shape, slow_cols)
    _same_sums(dw_fast, dw_slow)

    def loss(a, b):
        return (prim(a, b) * Tensor(g)).sum()

    _, dw = ms.grad(loss, (0, 1))(Tensor(x), Tensor(w))
    np.testing.assert_array_equal(dw.asnumpy(), dw_fast)


def _same_sums(a, b):
    """The filter gradient's GEMM takes the patches as they are laid out (transposed patches: a
    2x faster GEMM at LeNet's first layer), so BLAS may add the same products in another order:
    equal to float32 rounding, not bitwise."""
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=2e-6, atol=2e-6 * np.abs(b).max())


def test_single_channel_conv3d_filter_gradient_bitwise():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 1, 5, 6, 4)).astype(np.float32)
    w = rng.standard_normal((3, 1, 2, 3, 2)).astype(np.float32)
    prim = Conv3D(3, (2, 3, 2))
    out = prim.forward(x, w)
    slow_cols = _window_cols(prim, x, (2, 3, 2))
    np.testing.assert_array_equal(out, prim.forward(x, w, slow_cols))
    g = rng.standard_normal(out.shape).astype(np.float32)
    filt = Conv3DBackpropFilter(3, (2, 3, 2))
    _same_sums(filt.forward(g, x, w.shape), filt.forward(g, x, w.shape, slow_cols))


BANDED_CASES = [  # (x shape, out_channel, kernel, pad_mode, pad, stride, dilation)
    ((64, 6, 12, 12), 16, (5, 5), "valid", 0, 1, 1),
    ((2, 3, 7, 7), 2, (3, 3), "same", 0, 2, 1),
    ((2, 2, 6, 5), 3, (2, 3), "pad", (0, 1, 2, 0), (1, 2), (2, 1)),
]


def _per_tap_input_gradient(prim, g, w, x_shape):
    outs = g.shape[2:]
    g2 = np.ascontiguousarray(g.transpose(0, 2, 3, 1)).reshape(-1, g.shape[1])
    return prim._col2im(prim._patch_gradients(g2, w), x_shape, w.shape[2:], outs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", BANDED_CASES)
def test_banded_input_gradient_equals_the_per_tap_one(case, dtype):
    """Conv2DBackpropInput's banded GEMMs add the same products as the per-tap GEMMs and
    col2im, in another order (and with zeros): equal to rounding, however the output columns
    are split into parts; a non-finite g takes the per-tap path (the band's zeros would spread
    a NaN beyond its windows)."""
    shape, o, k, pad_mode, pad, stride, dilation = case
    prim = C.Conv2DBackpropInput(o, k, pad_mode=pad_mode, pad=pad, stride=stride,
                                 dilation=dilation)
    rng = np.random.default_rng(6)
    g = rng.standard_normal((shape[0], o) + prim._out_sizes(shape[2:], k)).astype(dtype)
    w = rng.standard_normal((o, shape[1]) + k).astype(dtype)
    banded = prim._banded_rows(g, w, shape)
    assert banded is not None
    per_tap = _per_tap_input_gradient(prim, g, w, shape)
    np.testing.assert_array_equal(prim.forward(g, w, shape), banded)
    tol = 2e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(banded, per_tap, rtol=tol, atol=tol * np.abs(per_tap).max())
    wo = g.shape[3]
    for part in sorted({1, 2, max(wo - 1, 1), wo}):  # parts of every width, a narrower last one
        prim._band_part = lambda *_, part=part: part
        np.testing.assert_allclose(prim._banded_rows(g, w, shape), per_tap, rtol=tol,
                                   atol=tol * np.abs(per_tap).max())
    del prim._band_part
    g[0, 0, 0, 0] = np.nan
    g[-1, -1, -1, -1] = np.inf
    assert prim._banded_rows(g, w, shape) is None
    with np.errstate(invalid="ignore"):  # NaN and inf times the weights, as eager runs them
        np.testing.assert_array_equal(prim.forward(g, w, shape),
                                      _per_tap_input_gradient(prim, g, w, shape))


@pytest.mark.parametrize("cls, shape, k, kwargs", [
    (Conv2D, (3, 6, 12, 12), (5, 5), {}),
    (Conv2D, (2, 1, 11, 9), (3, 2), dict(pad_mode="pad", pad=(1, 2, 0, 3), stride=(2, 1))),
    (Conv2D, (1, 3, 1, 3), (3, 1), dict(pad_mode="same", stride=2)),  # size-1 dims, padded
    (Conv2D, (0, 3, 5, 5), (3, 3), {}),  # an empty batch
    (Conv2D, (0, 1, 5, 5), (3, 3), {}),
    (Conv2D, (2, 4, 9, 8), (3, 2), dict(pad_mode="pad", pad=(1, 2, 0, 3), stride=(2, 1),
                                        dilation=(2, 1))),
    (Conv2D, (2, 4, 9, 8), (3, 2), dict(dilation=(1, 2), group=2)),
    (Conv3D, (2, 3, 5, 6, 4), (2, 3, 2), dict(pad_mode="same", stride=(1, 2, 1))),
])
def test_window_patches_copied_by_rows_equal_the_window_view(cls, shape, k, kwargs):
    """_im2col_windows copies each window's last kernel row as one block: the same patches as
    the window view's element-wise copy, on a channels-first and a channels-last input."""
    prim = cls(4, k, **kwargs)
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    nd = len(k)
    for layout in (x, np.ascontiguousarray(np.moveaxis(x, 1, -1)).transpose(
            0, nd + 1, *range(1, nd + 1))):
        cols = prim._im2col_windows(layout, k, prim._out_sizes(shape[2:], k))
        xh = np.moveaxis(np.asarray(layout), 1, -1)
        pads = prim._pads(shape[2:], k)
        xh = np.pad(xh, ((0, 0),) + tuple(zip(pads[::2], pads[1::2])) + ((0, 0),))
        outs = prim._out_sizes(shape[2:], k)
        g, cg = prim.groups, shape[1] // prim.groups
        ref = np.empty((shape[0], *outs, g, *k, cg), x.dtype)
        for out_pos in np.ndindex(*outs):
            for tap in np.ndindex(*k):
                at = tuple(o * s + t * d for o, s, t, d in
                           zip(out_pos, prim.stride, tap, prim.dilation))
                ref[(slice(None), *out_pos, slice(None), *tap)] = \
                    xh[(slice(None), *at)].reshape(shape[0], g, cg)
        np.testing.assert_array_equal(cols, ref.reshape(cols.shape))
