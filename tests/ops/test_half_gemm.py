"""float16 matmul, batched matmul and convolution multiply and accumulate in float32 and round
once, as MindSpore's kernels do (NumPy's float16 GEMM is ~10-100x slower); matmul refuses mixed
dtypes with MindSpore's TypeError instead of promoting."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops

RNG = np.random.default_rng(7)


def half(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float16)


def test_matmul_and_bmm_round_once_from_float32():
    a, b = half(33, 70), half(70, 5)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    got = ops.matmul(Tensor(a), Tensor(b))
    assert got.dtype == ms.float16
    np.testing.assert_array_equal(got.asnumpy(), want)
    x, y = half(3, 4, 6), half(3, 6, 2)
    want = np.matmul(x.astype(np.float32), y.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(ops.BatchMatMul()(Tensor(x), Tensor(y)).asnumpy(), want)


def test_conv_in_float16_matches_float32_rounded():
    x, w = half(2, 3, 8, 8), half(4, 3, 3, 3)
    got = ops.conv2d(Tensor(x), Tensor(w))
    ref = ops.conv2d(Tensor(x.astype(np.float32)), Tensor(w.astype(np.float32)))
    assert got.dtype == ms.float16
    np.testing.assert_array_equal(got.asnumpy(), ref.asnumpy().astype(np.float16))


@pytest.mark.parametrize("a,b", [(np.int32, np.float32), (np.float32, np.float16),
                                 (np.float32, np.float64)])
def test_matmul_refuses_mixed_dtypes_as_mindspore(a, b):
    with pytest.raises(TypeError, match="should be same as 'x1'"):
        ops.matmul(Tensor(np.ones((2, 2), a)), Tensor(np.ones((2, 2), b)))
    with pytest.raises(TypeError, match="should be same"):
        nn.Dense(2, 2)(Tensor(np.ones((2, 2), np.int32)))
