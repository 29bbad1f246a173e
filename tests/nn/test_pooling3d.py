"""3-D norms and pools, AdaptiveMaxPool1d and the 3-D adaptive pools (minispore.nn.layer.pooling3d)
against MindSpore 2.10 CPU: expected values below were printed by MindSpore on the input `_inp`;
bad arguments raise MindSpore's exception types; gradients checked in float64."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor
from minispore.nn.layer import pooling3d as P3
from minispore.testing import check_grads


def _inp(shape, dtype=np.float32):
    """A deterministic input with few ties: multiples of 0.1 in [-4.8, 4.8]."""
    n = int(np.prod(shape))
    return ((np.arange(n) * 7919 % 97) / 10.0 - 4.8).astype(dtype).reshape(shape)


def _rand(shape, seed=0):
    return Tensor(np.random.RandomState(seed).randn(*shape))


# (cell, kwargs, input shape, output shape, [flat outputs]) from MindSpore 2.10 CPU
POOL_CASES = [
    ('MaxPool3d', {'kernel_size': 2, 'stride': 1}, (1, 2, 3, 4, 4), (1, 2, 2, 3, 3),
     [[3.6, 3.6, 4.1, 4.7, 4.7, 3.3, 4.7, 4.7, 4.4, 3.6, 3.6, 4.2, 4.7, 4.7, 4.2, 4.7, 4.7, 3.4, 4, 4.5, 4.5, 3.7, 3.7, 4.3, 4.8, 4.8, 4.3, 4, 4.6, 4.6, 3.8, 4.6, 4.6, 3.8, 3.8, 4.3]]),
    ('MaxPool3d', {'kernel_size': (2, 3, 2), 'stride': (1, 2, 2)}, (2, 1, 4, 5, 5), (2, 1, 3, 2, 2),
     [[4.7, 4.1, 2.8, 3.6, 4.8, 3.9, 4.8, 3.4, 4.8, 3.7, 4.8, 3.2, 4.4, 3.3, 4.4, 4.7, 4.2, 4.8, 4.2, 4.5, 4, 4.8, 4, 4.3]]),
    ('MaxPool3d', {'kernel_size': 3, 'stride': 2, 'pad_mode': 'same'}, (1, 2, 4, 5, 3), (1, 2, 2, 3, 2),
     [[4.1, 3.6, 4.7, 4.7, 4.7, 4.7, 3.1, 4.5, 4.2, 4.5, 4.2, 2.9, 4.8, 4.8, 4.1, 4.6, 4.1, 4.6, 2.5, 3, 4.4, 4.1, 4.1, 4.1]]),
    ('MaxPool3d', {'kernel_size': 3, 'stride': 2, 'pad_mode': 'pad', 'padding': 1}, (1, 1, 4, 5, 5), (1, 1, 2, 3, 3),
     [[4.7, 4.1, 4.1, 3.3, 3.6, 4.4, 2.8, 3.6, 2, 4.7, 3.9, 3.9, 4.8, 4.8, 4.2, 2.6, 3.4, 1.8]]),
    ('MaxPool3d', {'kernel_size': 2, 'stride': 2, 'pad_mode': 'pad', 'padding': 0, 'ceil_mode': True}, (1, 1, 3, 5, 5), (1, 1, 2, 3, 3),
     [[4.7, 4.1, 2.5, 0.9, 3.6, 4.4, 2.8, 2, -1.5, 4.5, 3.7, 2.1, 4.8, 3.2, 4, 2.4, 1.6, -1.9]]),
    ('MaxPool3d', {'kernel_size': 2, 'stride': 1, 'pad_mode': 'pad', 'padding': 1, 'dilation': 2}, (1, 1, 4, 4, 5), (1, 1, 4, 4, 5),
     [[1.2, 4.7, 3.9, 0.4, 3.9, 3.1, 2.8, 3.1, 2.3, 2, 1.2, 4.7, 3.9, 4.2, 3.9, 3.1, -0.4, 3.1, 2.3, -3.9, 3.3, 2.6, 3.3, 2.5, 1.8, 1.4, 4.5, 4.1, 4.4, 4.1, 3.3, 3.6, 3.3, 3.6, 1.8, 1, 4.5, 3.7, 4.4, 3.7, 1.2, 4.7, 3.9, 3.2, 3.9, 4.8, 2.8, 4.8, 4, 2, 1.2, 4.7, 3.9, 4.2, 3.9, 3.1, 2.4, 3.1, 2.3, 1.6, -0.9, 2.6, 1.8, -1.7, 1.8, 1, 4.5, 3.7, 3.4, 3.7, 2.9, 2.6, 2.9, 2.1, 1.8, 1, 4.5, 3.7, 0.2, 3.7]]),
    ('MaxPool3d', {'kernel_size': 2, 'stride': 2, 'pad_mode': 'pad', 'padding': 1, 'return_indices': True}, (1, 2, 3, 4, 4), (1, 2, 2, 3, 3),
     [[-4.8, 1.4, 4.1, 0.6, 3.3, -0.2, 1.7, 4.4, 0.9, -0.4, 3.6, -1.2, 2.8, 4.7, 4.2, 3.9, 2.6, 3.1, 1.8, 4.5, 1, 2.9, 3.7, 2.1, -1.4, 4.8, -2.2, 4, 2.7, 3.2, 1.9, 4.6, 4.3, 3, 3.5, 2.2], [0, 1, 3, 4, 6, 7, 12, 14, 15, 32, 17, 35, 20, 25, 39, 28, 45, 31, 0, 2, 3, 8, 5, 11, 12, 13, 15, 16, 33, 19, 36, 38, 27, 44, 30, 47]]),
    ('MaxPool3d', {'kernel_size': (2, 2, 3), 'stride': 2, 'pad_mode': 'pad', 'padding': (0, 1, 1), 'dilation': (1, 2, 1), 'ceil_mode': True, 'return_indices': True}, (1, 2, 5, 5, 6), (1, 2, 3, 3, 4),
     [[3.3, 4.2, 4.2, -2.8, 3.3, 4.5, 4.2, 3.7, 1.8, 4.5, 3.7, 3.7, 3.2, 3.2, 4.1, 0.6, 3.5, 4.4, 4.4, 0.6, 3.5, 4.4, 4.4, -2.6, 0.4, 3.1, 2.3, 2.3, 3.4, 3.4, 2.6, 2.3, 3.4, 3.4, 2.6, -0.9, 3.8, 4.8, 4, 4, 3.8, 4.8, 4.3, 4, 0.6, 3.3, 4.3, 2.5, 3.7, 4.7, 4.7, -0.6, 4, 4.7, 4.7, 4.2, 4, 3.2, 4.2, 4.2, -0.8, 1.9, 4.6, 1.1, 2.2, 2.2, 4.6, 1.1, 2.2, 2.2, 1.4, -2.1], [6, 39, 39, 41, 6, 50, 39, 53, 48, 50, 53, 53, 67, 67, 100, 101, 78, 111, 111, 101, 78, 111, 111, 113, 126, 128, 131, 131, 139, 139, 142, 131, 139, 139, 142, 143, 36, 8, 11, 11, 36, 8, 22, 11, 48, 50, 22, 53, 97, 69, 69, 101, 108, 69, 69, 83, 108, 111, 83, 83, 126, 128, 130, 131, 139, 139, 130, 131, 139, 139, 142, 143]]),
    ('MaxPool3d', {'kernel_size': 2, 'stride': 1, 'pad_mode': 'pad', 'padding': 1, 'return_indices': True}, (2, 3, 3, 4), (2, 4, 4, 5),
     [[-4.8, 1.4, 1.4, 4.1, 4.1, 0.6, 1.4, 3.3, 4.1, 4.1, 0.6, 2.5, 3.3, 3.3, -0.2, -3.7, 2.5, 2.5, -1, -4.5, 1.7, 1.7, 4.4, 4.4, 4.1, 1.7, 3.6, 4.4, 4.4, 4.1, 2.8, 3.6, 3.6, 3.3, 2, 2.8, 2.8, 2.5, 2, 2, 1.7, 4.7, 4.7, 4.4, 0.9, 3.9, 4.7, 4.7, 4.4, 3.1, 3.9, 3.9, 3.6, 3.1, 3.1, 2.8, 2.8, 2.3, 2.3, 2, -1.5, 4.7, 4.7, 1.2, -2.3, 3.9, 4.7, 4.7, 3.1, 3.1, 3.9, 3.9, 2.3, 3.1, 3.1, -0.4, -0.4, 2.3, 2.3, -1.2, -4.7, 1.5, 1.5, 4.2, 4.2, 0.7, 1.5, 3.4, 4.2, 4.2, 0.7, 2.6, 3.4, 3.4, -0.1, -3.6, 2.6, 2.6, -0.9, -4.4, 1.8, 1.8, 4.5, 4.5, 4.2, 1.8, 3.7, 4.5, 4.5, 4.2, 2.9, 3.7, 3.7, 3.4, 2.1, 2.9, 2.9, 2.6, 2.1, 2.1, 1.8, 4.8, 4.8, 4.5, 1, 4, 4.8, 4.8, 4.5, 3.2, 4, 4, 3.7, 3.2, 3.2, 2.9, 2.9, 2.4, 2.4, 2.1, -1.4, 4.8, 4.8, 1.3, -2.2, 4, 4.8, 4.8, 3.2, 3.2, 4, 4, 2.4, 3.2, 3.2, -0.3, -0.3, 2.4, 2.4, -1.1], [0, 1, 1, 3, 3, 4, 1, 6, 3, 3, 4, 9, 6, 6, 7, 8, 9, 9, 10, 11, 12, 12, 14, 14, 3, 12, 17, 14, 14, 3, 20, 17, 17, 6, 23, 20, 20, 9, 23, 23, 12, 25, 25, 14, 15, 28, 25, 25, 14, 31, 28, 28, 17, 31, 31, 20, 20, 34, 34, 23, 24, 25, 25, 26, 27, 28, 25, 25, 31, 31, 28, 28, 34, 31, 31, 32, 32, 34, 34, 35, 0, 1, 1, 3, 3, 4, 1, 6, 3, 3, 4, 9, 6, 6, 7, 8, 9, 9, 10, 11, 12, 12, 14, 14, 3, 12, 17, 14, 14, 3, 20, 17, 17, 6, 23, 20, 20, 9, 23, 23, 12, 25, 25, 14, 15, 28, 25, 25, 14, 31, 28, 28, 17, 31, 31, 20, 20, 34, 34, 23, 24, 25, 25, 26, 27, 28, 25, 25, 31, 31, 28, 28, 34, 31, 31, 32, 32, 34, 34, 35]]),
    ('MaxPool3d', {'kernel_size': 2, 'stride': 2}, (2, 3, 4, 4), (2, 1, 2, 2),
     [[3.6, 4.1, 4.7, 4.4, 4, 4.5, 4.8, 4.3]]),
    ('AvgPool3d', {'kernel_size': 2, 'stride': 1}, (1, 2, 3, 4, 4), (1, 2, 2, 3, 3),
     [[-0.325, -0.1875, -0.05, 0.225, 0.3625, -0.7125, 0.775, 0.9125, -0.1625, -0.55, -0.4125, -0.275, 0, 0.1375, 0.275, 0.55, 0.6875, -0.3875, 0.2125, 0.35, 0.4875, -0.45, -0.3125, -0.175, 0.1, 0.2375, 0.375, -0.0125, 0.125, 0.2625, -0.675, 0.675, 0.8125, -0.125, 0.0125, 0.15]]),
    ('AvgPool3d', {'kernel_size': 3, 'stride': 2, 'pad_mode': 'same'}, (1, 2, 4, 5, 3), (1, 2, 2, 3, 2),
     [[-0.1963, 0.04444, 0.16296, -0.37407, 0.53333, 0.05556, 0.00741, 0.04815, -0.16296, 0.07778, 0.01481, -0.3037, 0.23704, 0.11852, -0.08519, 0.0963, -0.11111, 0.48889, -0.42222, -0.02222, -0.08889, -0.20741, 0.3037, -0.01481]]),
    ('AvgPool3d', {'kernel_size': 3, 'stride': 2, 'pad_mode': 'pad', 'padding': 1}, (1, 1, 4, 5, 5), (1, 1, 2, 3, 3),
     [[0.10741, 0.16296, 0.22963, -0.54815, -0.37037, -0.18519, 0, -0.17778, -0.23704, 0.56667, 0.04444, 0.21111, -0.3037, -0.13704, -0.47778, -0.13333, -0.46667, -0.48889]]),
    ('AvgPool3d', {'kernel_size': 3, 'stride': 2, 'pad_mode': 'pad', 'padding': 1, 'count_include_pad': False}, (1, 1, 4, 5, 5), (1, 1, 2, 3, 3),
     [[0.3625, 0.36667, 0.775, -1.23333, -0.55556, -0.41667, 0, -0.4, -0.8, 1.275, 0.06667, 0.475, -0.45556, -0.13704, -0.71667, -0.3, -0.7, -1.1]]),
    ('AvgPool3d', {'kernel_size': 2, 'stride': 2, 'pad_mode': 'pad', 'padding': (1, 0, 1), 'divisor_override': 5}, (1, 1, 4, 5, 5), (1, 1, 3, 2, 3),
     [[-1.54, 0.48, 0.7, -0.02, -0.36, -0.14, 0.56, 0.48, 0.92, -0.28, 0.74, -0.76, 0.16, 0, 0.22, -0.26, 1.1, -0.62]]),
    ('AvgPool3d', {'kernel_size': 2, 'stride': 2, 'ceil_mode': True}, (1, 1, 3, 5, 5), (1, 1, 2, 3, 3),
     [[0.3625, -0.575, 1.45, -1.9, 0.8, 0.4, 0.95, -1.2, -1.6, 1.275, -0.875, 1.15, 0.225, 0.5, 0.1, 0.65, -1.5, -1.9]]),
    ('AvgPool3d', {'kernel_size': 2, 'stride': 2, 'pad_mode': 'pad', 'padding': 1, 'ceil_mode': True, 'count_include_pad': False}, (1, 1, 4, 5, 5), (1, 1, 3, 3, 3),
     [[-4.8, -0.35, 2.35, -1.95, 0.075, 0.35, 1.85, -0.975, -0.7, 4.6, -0.65, 2.05, -2.25, 0.9875, 0.05, 1.55, -1.275, -1, 4.3, -0.95, 1.75, -2.55, 1.9, -0.25, 1.25, -1.575, -1.3]]),
    ('AvgPool3d', {'kernel_size': 2, 'stride': 2}, (2, 3, 4, 4), (2, 1, 2, 2),
     [[-0.325, -0.05, 0.775, -0.1625, 0.2125, 0.4875, 0.1, 0.375]]),
    ('AvgPool3d', {'kernel_size': 3, 'stride': 2, 'pad_mode': 'same', 'count_include_pad': False}, (1, 2, 4, 5, 3), (1, 2, 2, 3, 2),
     [[-0.44167, 0.1, 0.24444, -0.56111, 1.2, 0.125, 0.025, 0.1625, -0.36667, 0.175, 0.05, -1.025, 0.53333, 0.26667, -0.12778, 0.14444, -0.25, 1.1, -1.425, -0.075, -0.2, -0.46667, 1.025, -0.05]]),
    ('AvgPool3d', {'kernel_size': (2, 3, 3), 'stride': (2, 1, 2), 'pad_mode': 'same'}, (1, 1, 3, 4, 5), (1, 1, 2, 4, 3),
     [[0.27778, 0.15, 0.46111, -0.02778, -0.17222, 0.51667, -0.37778, -0.42778, 0.16667, -0.72778, -0.55, -0.00556, -0.02222, -0.16667, -0.2, 0.28333, -0.04444, 0.01667, 0.37778, -0.17222, 0.11111, 0.28333, 0.02222, 0.10556]]),
    ('AvgPool3d', {'kernel_size': 3, 'stride': 2, 'pad_mode': 'same', 'ceil_mode': True}, (1, 1, 4, 5, 6), (1, 1, 2, 3, 3),
     [[-0.26296, 0.1, -0.11111, -0.1, 0.08519, -0.68889, 0.48889, 0.13333, -0.08889, 0, 0.12222, 0.32222, -0.52222, 0.2, -0.04444, 0.02222, 0.14444, -0.38148]]),
    ('AdaptiveMaxPool1d', {'output_size': 3}, (2, 3, 6), (2, 3, 3),
     [[1.4, 4.1, 0.6, 3.3, 2.5, -1, 1.7, 4.4, 3.6, 0.1, 2.8, 2, 4.7, 1.2, 3.9, 3.1, -0.4, 2.3]]),
    ('AdaptiveMaxPool1d', {'output_size': 2}, (1, 2, 8), (1, 2, 2),
     [[4.1, 3.3, 2.5, 4.4]]),
    ('AdaptiveAvgPool3d', {'output_size': 2}, (1, 2, 4, 4, 4), (1, 2, 2, 2, 2),
     [[-0.325, -0.05, 0.775, -0.1625, -0.775, 0.7125, 0.325, -0.6125, -0.0125, 0.2625, -0.125, 0.15, -0.4625, -0.1875, -0.575, 0.9125]]),
    ('AdaptiveAvgPool3d', {'output_size': (2, 3, None)}, (1, 2, 5, 4, 3), (1, 2, 2, 3, 3),
     [[-0.31667, 1.03333, 0.76667, 0.5, 0.23333, -0.03333, -0.3, -0.56667, -0.83333, -0.25, 1.1, 0.83333, 0.56667, 0.3, 0.03333, -0.23333, -0.5, -0.76667, -0.15, 1.2, 0.93333, 0.66667, 0.4, 0.13333, -0.13333, -0.4, -0.66667, -0.08333, -0.35, 1, 0.73333, 0.46667, 0.2, -0.06667, -0.33333, -0.6]]),
    ('AdaptiveAvgPool3d', {'output_size': (3, 2, 2)}, (2, 5, 3, 5), (2, 3, 2, 2),
     [[-0.45833, -0.18333, -0.175, 0.1, -0.26111, -0.25556, 0.02222, 0.02778, 0.475, -0.05833, -0.05, -0.58333, -0.25, -0.78333, 0.03333, -0.5, 0.21667, -0.31667, -0.03889, -0.57222, 0.68333, 0.15, 0.15833, -0.375]]),
    ('AdaptiveMaxPool3d', {'output_size': 2}, (1, 2, 4, 4, 4), (1, 2, 2, 2, 2),
     [[3.6, 4.1, 4.7, 4.4, 3.7, 4.5, 4.8, 3.4, 4, 4.6, 3.8, 4.3, 4.1, 3.6, 3.9, 4.7]]),
    ('AdaptiveMaxPool3d', {'output_size': (2, 3, 2)}, (1, 2, 5, 4, 3), (1, 2, 2, 3, 2),
     [[4.7, 4.7, 4.1, 3.9, 3.3, 3.1, 4.7, 4.7, 4.2, 3.9, 3.4, 3.1, 4.8, 4.8, 4.3, 4, 3.5, 3.2, 4.4, 4.6, 4.4, 4.1, 3.6, 3.3]]),
    ('AdaptiveMaxPool3d', {'output_size': (3, 2, 2), 'return_indices': True}, (1, 2, 5, 3, 5), (1, 2, 3, 2, 2),
     [[3.6, 4.1, 4.7, 4.4, 4.5, 4.2, 4.7, 4.2, 4.8, 4, 4.5, 3.7, 4.3, 3.5, 4.6, 3.8, 4.7, 4.7, 4.4, 3.6, 4.7, 4.7, 4.5, 4.5], [17, 3, 25, 14, 50, 39, 25, 39, 61, 64, 50, 53, 0, 3, 11, 14, 47, 47, 36, 39, 47, 47, 72, 72]]),
]


@pytest.mark.parametrize("name, kwargs, shape, out_shape, expected", POOL_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(POOL_CASES)])
def test_pool_matches_mindspore(name, kwargs, shape, out_shape, expected):
    out = getattr(P3, name)(**kwargs)(Tensor(_inp(shape)))
    outs = out if isinstance(out, tuple) else (out,)
    assert len(outs) == len(expected)
    assert outs[0].shape == out_shape and outs[0].dtype == ms.float32
    np.testing.assert_allclose(outs[0].asnumpy().ravel(), expected[0], rtol=1e-5, atol=1e-5)
    if len(outs) == 2:  # indices: int64 from MaxPool3d, int32 from AdaptiveMaxPool3d
        assert outs[1].dtype == (ms.int64 if name == "MaxPool3d" else ms.int32)
        np.testing.assert_array_equal(outs[1].asnumpy().ravel(), expected[1])


# ---- BatchNorm3d / InstanceNorm3d ------------------------------------------------------------------

BN_TRAIN = [-1.44992, 0.66941, 0.52633, -0.77401, -0.67494, 1.62852, -1.41574, 0.70359, 0.56348,
            -0.73686, -0.63779, 1.66567]
BN_MEAN = [-0.055833, 0.028333, 0.031667]
BN_VAR = [1.793036, 1.655971, 1.655971]
BN_EVAL = [-3.54294, 1.08722, 1.29904, -1.42078, -1.19025, 3.62772, -3.46826, 1.1619, 1.37675,
           -1.34307, -1.11254, 3.70543]


def test_batchnorm3d_matches_mindspore():
    bn = P3.BatchNorm3d(3)
    names = [n for n, _ in bn.parameters_and_names()]
    assert names == ["bn2d.moving_mean", "bn2d.moving_variance", "bn2d.gamma", "bn2d.beta"]
    assert [p.requires_grad for _, p in bn.parameters_and_names()] == [False, False, True, True]
    x = Tensor(_inp((2, 3, 2, 3, 2)))
    bn.set_train(True)
    y = bn(x)
    assert y.shape == x.shape
    np.testing.assert_allclose(y.asnumpy()[:, :, 0, 0, :].ravel(), BN_TRAIN, atol=1e-4)
    np.testing.assert_allclose(bn.bn2d.moving_mean.asnumpy(), BN_MEAN, atol=1e-5)
    np.testing.assert_allclose(bn.bn2d.moving_variance.asnumpy(), BN_VAR, atol=1e-5)
    bn.set_train(False)
    np.testing.assert_allclose(bn(x).asnumpy()[:, :, 0, 0, :].ravel(), BN_EVAL, atol=1e-4)


def _instance_norm_ref(x, eps=1e-5):
    mean = x.mean(axis=(2, 3, 4), keepdims=True)
    var = x.var(axis=(2, 3, 4), keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def test_instancenorm3d_forward_and_moving_stats():
    # MindSpore 2.10 has no CPU kernel for InstanceNorm: checked against the formula.
    x = _inp((2, 3, 2, 3, 4))
    inorm = P3.InstanceNorm3d(3)
    assert [n for n, _ in inorm.parameters_and_names()] == ["moving_mean", "moving_variance",
                                                             "gamma", "beta"]
    inorm.set_train(True)
    np.testing.assert_allclose(inorm(Tensor(x)).asnumpy(), _instance_norm_ref(x), atol=1e-4)
    mean = x.mean(axis=(2, 3, 4)).mean(axis=0)
    var = x.var(axis=(2, 3, 4), ddof=1).mean(axis=0)
    np.testing.assert_allclose(inorm.moving_mean.asnumpy(), 0.1 * mean, atol=1e-5)
    np.testing.assert_allclose(inorm.moving_variance.asnumpy(), 0.9 + 0.1 * var, atol=1e-5)
    inorm.set_train(False)  # instance statistics in eval mode too
    np.testing.assert_allclose(inorm(Tensor(x)).asnumpy(), _instance_norm_ref(x), atol=1e-4)


@pytest.mark.parametrize("cls, kwargs, exc", [
    (P3.BatchNorm3d, dict(num_features=0), ValueError),
    (P3.BatchNorm3d, dict(num_features=2.5), TypeError),
    (P3.BatchNorm3d, dict(num_features=3, momentum=1.5), ValueError),
    (P3.InstanceNorm3d, dict(num_features=0), ValueError),
    (P3.InstanceNorm3d, dict(num_features=2.5), TypeError),
    (P3.InstanceNorm3d, dict(num_features=3, momentum=1.5), ValueError),
])
def test_norm_bad_arguments(cls, kwargs, exc):
    with pytest.raises(exc):
        cls(**kwargs)


@pytest.mark.parametrize("cls", [P3.BatchNorm3d, P3.InstanceNorm3d])
def test_norm_needs_5d_input(cls):
    with pytest.raises(ValueError, match="5"):
        cls(3)(Tensor(_inp((3, 2, 3, 2))))


def test_batchnorm3d_grads():
    bn = P3.BatchNorm3d(2, dtype=ms.float64)
    bn.set_train(True)
    check_grads(lambda a: bn(a), [_rand((2, 2, 2, 3, 2))], order=2)
    bn.set_train(False)
    check_grads(lambda a: bn(a), [_rand((2, 2, 2, 3, 2))], order=2)


def test_instancenorm3d_grads():
    inorm = P3.InstanceNorm3d(2, dtype=ms.float64)
    check_grads(lambda a: inorm(a), [_rand((2, 2, 2, 3, 2))], order=2)


# ---- pools: bad arguments, ties, gradients ---------------------------------------------------------

@pytest.mark.parametrize("name, kwargs, shape, exc", [
    ("MaxPool3d", dict(kernel_size=0), None, ValueError),
    ("MaxPool3d", dict(kernel_size=2.0), None, TypeError),
    ("MaxPool3d", dict(kernel_size=(2, 2)), None, ValueError),
    ("MaxPool3d", dict(kernel_size=2, pad_mode="full"), None, ValueError),
    ("MaxPool3d", dict(kernel_size=2, pad_mode=1), None, TypeError),
    ("MaxPool3d", dict(kernel_size=2, stride=-1), None, ValueError),
    ("MaxPool3d", dict(kernel_size=2, padding=-1, pad_mode="pad"), None, ValueError),
    ("MaxPool3d", dict(kernel_size=2, padding=(1, 1)), None, ValueError),
    ("MaxPool3d", dict(kernel_size=2, dilation=2), None, ValueError),
    ("MaxPool3d", dict(kernel_size=2, return_indices=True), None, ValueError),
    ("MaxPool3d", dict(kernel_size=2), (2, 4, 4), ValueError),
    ("MaxPool3d", dict(kernel_size=2, ceil_mode=True), None, ValueError),
    ("MaxPool3d", dict(kernel_size=2, pad_mode="same", ceil_mode=True), None, ValueError),
    ("AvgPool3d", dict(kernel_size=0), None, ValueError),
    ("AvgPool3d", dict(kernel_size=2, pad_mode="full"), None, ValueError),
    ("AvgPool3d", dict(kernel_size=2, padding=(1, 1)), None, ValueError),
    ("AvgPool3d", dict(kernel_size=2, padding=-1, pad_mode="pad"), None, ValueError),
    ("AvgPool3d", dict(kernel_size=2, divisor_override=0), None, ValueError),
    ("AvgPool3d", dict(kernel_size=2, padding=1), (1, 1, 4, 4, 4), ValueError),
    ("AvgPool3d", dict(kernel_size=2), (2, 4, 4), ValueError),
    ("AdaptiveMaxPool1d", dict(output_size=0), None, ValueError),
    ("AdaptiveMaxPool1d", dict(output_size=2.0), None, TypeError),
    ("AdaptiveMaxPool1d", dict(output_size=3), (1, 2, 7), ValueError),
    ("AdaptiveMaxPool1d", dict(output_size=3), (2, 6), ValueError),
    ("AdaptiveAvgPool3d", dict(output_size=2), (2, 4, 4), ValueError),
    ("AdaptiveMaxPool3d", dict(output_size=2), (2, 4, 4), ValueError),
    ("AdaptiveAvgPool3d", dict(output_size=2.0), None, TypeError),
    ("AdaptiveAvgPool3d", dict(output_size=(2, -1, 2)), None, ValueError),
    ("AdaptiveAvgPool3d", dict(output_size=(2, 2)), (1, 1, 4, 4, 4), ValueError),
    ("AdaptiveMaxPool3d", dict(output_size=(2, None, 2)), None, TypeError),
    ("AdaptiveMaxPool3d", dict(output_size=2.0), (1, 1, 4, 4, 4), ValueError),
    ("AdaptiveMaxPool3d", dict(output_size=0), (1, 1, 4, 4, 4), ValueError),
    ("AdaptiveMaxPool3d", dict(output_size=(2, 2)), (1, 1, 4, 4, 4), ValueError),
])
def test_pool_bad_arguments(name, kwargs, shape, exc):
    """The exception types MindSpore 2.10 raises for the same arguments."""
    with pytest.raises(exc, match=name):
        cell = getattr(P3, name)(**kwargs)
        if shape is not None:
            cell(Tensor(np.ones(shape, np.float32)))


@pytest.mark.parametrize("kwargs, expected", [
    (dict(kernel_size=2, stride=2), [1] + [0] * 26),
    (dict(kernel_size=2, stride=1), [1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 1, 1, 0] + [0] * 12),
])
def test_maxpool3d_ties_go_to_first_maximum(kwargs, expected):
    net = P3.MaxPool3d(**kwargs)
    g = ms.grad(lambda t: net(t).sum())(Tensor(np.ones((1, 1, 3, 3, 3), np.float32)))
    np.testing.assert_array_equal(g.asnumpy().ravel(), expected)  # MindSpore's gradient


def test_adaptive_maxpool1d_ties_go_to_first_maximum():
    net = P3.AdaptiveMaxPool1d(2)
    g = ms.grad(lambda t: net(t).sum())(Tensor(np.ones((1, 1, 6), np.float32)))
    np.testing.assert_array_equal(g.asnumpy().ravel(), [1, 0, 0, 1, 0, 0])


GRAD_CASES = [
    ("MaxPool3d", dict(kernel_size=2, stride=1), (1, 2, 3, 3, 3)),
    ("MaxPool3d", dict(kernel_size=(2, 3, 2), stride=2, pad_mode="pad", padding=1,
                       dilation=(1, 1, 2), ceil_mode=True), (1, 1, 4, 5, 5)),
    ("MaxPool3d", dict(kernel_size=3, stride=2, pad_mode="same"), (2, 3, 4, 3)),
    ("AvgPool3d", dict(kernel_size=2, stride=1), (1, 2, 3, 3, 3)),
    ("AvgPool3d", dict(kernel_size=3, stride=2, pad_mode="pad", padding=1,
                       count_include_pad=False, ceil_mode=True), (1, 1, 4, 5, 5)),
    ("AvgPool3d", dict(kernel_size=3, stride=2, pad_mode="same"), (1, 1, 4, 5, 3)),
    ("AvgPool3d", dict(kernel_size=2, stride=2, divisor_override=3), (1, 1, 4, 4, 4)),
    ("AdaptiveMaxPool1d", dict(output_size=3), (2, 2, 6)),
    ("AdaptiveAvgPool3d", dict(output_size=(2, 3, None)), (1, 2, 5, 4, 3)),
    ("AdaptiveAvgPool3d", dict(output_size=2), (2, 4, 4, 4)),
    ("AdaptiveMaxPool3d", dict(output_size=(2, 3, 2)), (1, 2, 5, 4, 3)),
]


@pytest.mark.parametrize("name, kwargs, shape", GRAD_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(GRAD_CASES)])
def test_pool_grads(name, kwargs, shape):
    net = getattr(P3, name)(**kwargs)
    check_grads(lambda a: net(a), [_rand(shape)], order=2)


def test_pool_indices_are_not_differentiated():
    net = P3.MaxPool3d(2, 2, pad_mode="pad", padding=0, return_indices=True)
    check_grads(lambda a: net(a)[0], [_rand((1, 1, 4, 4, 4))], order=1)
    net3 = P3.AdaptiveMaxPool3d(2, return_indices=True)
    check_grads(lambda a: net3(a)[0], [_rand((1, 1, 4, 4, 3))], order=1)


def test_float64_stays_float64():
    x = _rand((1, 1, 4, 4, 4))
    for cell in (P3.MaxPool3d(2, 2), P3.AvgPool3d(2, 2), P3.AdaptiveAvgPool3d(2),
                 P3.AdaptiveMaxPool3d(2)):
        assert cell(x).dtype == ms.float64
