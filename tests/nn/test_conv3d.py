"""nn.Conv3d and nn.Conv3dTranspose against MindSpore 2.10 (fixture made by
tests/ops/data/make_mindspore_conv3d_fold.py), their defaults, gradients and bad input."""
import math
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.testing import check_grads

DATA = np.load(os.path.join(os.path.dirname(__file__), "..", "ops", "data",
                            "mindspore_conv3d_fold.npz"))
CONV = {"pad6": dict(pad_mode="pad", padding=(1, 0, 2, 1, 0, 2)),
        "same": dict(pad_mode="same", stride=(1, 2, 2))}
TRANSPOSE = {"same": dict(stride=2), "valid": dict(stride=2, pad_mode="valid"),
             "pad": dict(stride=2, pad_mode="pad", padding=(1, 0, 1, 1, 0, 1), output_padding=1)}


def _load(cell, prefix):
    cell.weight.set_data(Tensor(DATA[f"{prefix}_w"]))
    cell.bias.set_data(Tensor(DATA[f"{prefix}_b"]))
    return cell


@pytest.mark.parametrize("name", sorted(CONV))
def test_conv3d_matches_mindspore(name):
    conv = _load(nn.Conv3d(2, 4, 3, has_bias=True, **CONV[name]), f"nn_{name}")
    out = conv(Tensor(DATA["x"]))
    np.testing.assert_allclose(out.asnumpy(), DATA[f"nn_{name}_y"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(TRANSPOSE))
def test_conv3d_transpose_matches_mindspore(name):
    conv = _load(nn.Conv3dTranspose(2, 4, (2, 3, 2), has_bias=True, **TRANSPOSE[name]),
                 f"t_{name}")
    out = conv(Tensor(DATA["x"]))
    np.testing.assert_allclose(out.asnumpy(), DATA[f"t_{name}_y"], rtol=1e-5, atol=1e-5)


def test_conv3d_defaults_as_mindspore():
    conv = nn.Conv3d(2, 4, 3)
    assert conv.weight.shape == (4, 2, 3, 3, 3) and conv.weight.dtype == ms.float32
    assert conv.bias is None and conv.pad_mode == "same"
    assert conv.kernel_size == (3, 3, 3) and conv.stride == (1, 1, 1)
    bound = 1 / math.sqrt(2 * 27)  # HeUniform(sqrt(5)) on fan_in = in_channels * kd * kh * kw
    assert np.abs(conv.weight.asnumpy()).max() <= bound
    assert "format=NCDHW" in repr(conv)
    assert [p.name for p in nn.Conv3d(2, 4, 3, has_bias=True).get_parameters()] == \
        ["weight", "bias"]
    out = conv(Tensor(np.ones((1, 2, 4, 5, 6), np.float32)))
    assert out.shape == (1, 4, 4, 5, 6)
    t = nn.Conv3dTranspose(2, 4, 3, group=2)
    assert t.weight.shape == (2, 2, 3, 3, 3) and t.bias is None


def test_conv3d_layer_gradients_second_order():
    conv = nn.Conv3d(2, 2, (2, 1, 2), stride=(1, 2, 1), pad_mode="pad", padding=1, group=2,
                     has_bias=True, dtype=ms.float64)
    x = Tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 3, 2)))
    check_grads(lambda a: conv(a), [x], order=2)
    t = nn.Conv3dTranspose(2, 2, 2, stride=2, pad_mode="pad", padding=(1, 0, 0, 1, 0, 0),
                           output_padding=1, dtype=ms.float64)
    check_grads(lambda a: t(a), [x], order=2)


def test_conv3d_trains_its_weight():
    conv = nn.Conv3d(1, 1, 2, pad_mode="valid", has_bias=True)
    x = Tensor(np.random.default_rng(1).standard_normal((2, 1, 3, 3, 3)).astype(np.float32))
    loss_fn = lambda: (conv(x) ** 2).mean()  # noqa: E731
    grad_fn = ms.value_and_grad(loss_fn, None, conv.trainable_params())
    opt = nn.SGD(conv.trainable_params(), learning_rate=0.1)
    first = float(loss_fn().asnumpy())
    for _ in range(5):
        _, grads = grad_fn()
        opt(grads)
    assert float(loss_fn().asnumpy()) < first


@pytest.mark.parametrize("make, x_shape, err, words", [
    (lambda: nn.Conv3d(2, 4, 3), (1, 2, 4, 5), ValueError, "(N, 2, D, H, W)"),
    (lambda: nn.Conv3d(2, 4, 3), (1, 3, 4, 5, 6), ValueError, "(N, 2, D, H, W)"),
    (lambda: nn.Conv3dTranspose(2, 4, 3), (1, 2, 4, 5), ValueError, "(N, 2, D, H, W)"),
    (lambda: nn.Conv3d(2, 4, 3, pad_mode="pad", padding=(1, 1, 1, 1)), None, ValueError,
     "6 ints"),
    (lambda: nn.Conv3d(2, 4, 3, padding=1), None, ValueError, "pad_mode"),
    (lambda: nn.Conv3d(2, 4, (3, 3)), None, TypeError, "kernel_size"),
    (lambda: nn.Conv3d(2, 4, 3, group=3), None, ValueError, "group"),
    (lambda: nn.Conv3d(2, 4, 3, data_format="NCHW"), None, ValueError, "NCDHW"),
    (lambda: nn.Conv3d(2, 4, 3, stride=0), None, ValueError, "stride"),
    (lambda: nn.Conv3dTranspose(2, 4, 3, pad_mode="pad", padding=-1), None, ValueError,
     "non-negative"),
])
def test_conv3d_bad_input(make, x_shape, err, words):
    with pytest.raises(err, match="Conv3d") as info:
        cell = make()
        before = cell.weight.asnumpy().copy()
        try:
            cell(Tensor(np.ones(x_shape, np.float32)))
        finally:
            np.testing.assert_array_equal(cell.weight.asnumpy(), before)
    assert words in str(info.value)
