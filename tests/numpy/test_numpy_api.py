"""`minispore.numpy`'s random functions, dtype objects, argument errors, the `dtype` argument
and gradients through creation and conversion."""
import numpy as np
import pytest

import minispore as ms
import minispore.numpy as mnp
from minispore import Tensor


def test_dtype_objects_are_minispore_dtypes():
    pairs = {"bool_": ms.bool_, "int8": ms.int8, "int16": ms.int16, "int32": ms.int32,
             "int64": ms.int64, "uint8": ms.uint8, "uint16": ms.uint16, "uint32": ms.uint32,
             "uint64": ms.uint64, "float16": ms.float16, "float32": ms.float32,
             "float64": ms.float64, "int_": ms.int32, "float_": ms.float32}
    for name, dt in pairs.items():
        assert getattr(mnp, name) is dt, name
        assert mnp.zeros(2, getattr(mnp, name)).dtype is dt


def test_random_shapes_dtypes_and_ranges():
    ms.set_seed(3)
    u = mnp.rand(3, 4)
    assert u.dtype == mnp.float32 and u.shape == (3, 4)
    assert ((u.asnumpy() >= 0) & (u.asnumpy() < 1)).all()
    assert mnp.rand((2, 5), dtype=mnp.float64).shape == (2, 5)
    n = mnp.randn(2000, dtype=mnp.float64)
    assert n.dtype == mnp.float64 and abs(float(n.asnumpy().mean())) < 0.1
    r = mnp.randint(2, 7, (50,))
    assert r.dtype == mnp.int32 and r.asnumpy().min() >= 2 and r.asnumpy().max() < 7
    assert mnp.randint(5, shape=(4, 2), dtype=mnp.int64).asnumpy().max() < 5
    ms.set_seed(3)
    np.testing.assert_array_equal(mnp.rand(3, 4).asnumpy(), u.asnumpy())
    with pytest.raises(TypeError):
        mnp.rand(2, dtype=mnp.int32)
    with pytest.raises(ValueError):
        mnp.randint(3, 3)
    with pytest.raises(TypeError):
        mnp.randint(0, 3, dtype=mnp.float32)


@pytest.mark.parametrize("call,exc", [
    (lambda: mnp.zeros(2.0), TypeError),
    (lambda: mnp.arange(0, 3, 0), ValueError),
    (lambda: mnp.linspace(0, 1, -1), ValueError),
    (lambda: mnp.reshape(mnp.ones(6), (4, 2)), ValueError),
    (lambda: mnp.squeeze(mnp.ones((2, 3)), 0), ValueError),
    (lambda: mnp.moveaxis(mnp.ones((2, 3)), 0, 4), ValueError),
    (lambda: mnp.split(mnp.ones(5), 2), ValueError),
    (lambda: mnp.concatenate((mnp.ones((2, 2)), mnp.ones(2))), ValueError),
    (lambda: mnp.matmul(mnp.ones((2, 3)), mnp.ones((2, 3))), ValueError),
    (lambda: mnp.tensordot(mnp.ones((2, 3)), mnp.ones((2, 3)), 1), ValueError),
    (lambda: mnp.diag(mnp.ones((2, 2, 2))), ValueError),
    (lambda: mnp.rot90(mnp.ones((2, 2)), 1, (0, 0)), ValueError),
    (lambda: mnp.searchsorted(mnp.arange(3), 1, side="middle"), ValueError),
    (lambda: mnp.take(mnp.arange(3), mnp.array([5]), mode="raise"), ValueError),
    (lambda: mnp.take(mnp.arange(3), mnp.array([1.0])), TypeError),
    (lambda: mnp.clip(mnp.ones(2), None, None), ValueError),
    (lambda: mnp.pad(mnp.ones(2), 1, mode="bogus"), ValueError),
    (lambda: mnp.cross(mnp.ones((2, 4)), mnp.ones((2, 4))), ValueError),
    (lambda: mnp.gcd(mnp.ones(2), mnp.ones(2)), TypeError),
    (lambda: mnp.bincount(mnp.array([1, -1])), ValueError),
    (lambda: mnp.negative(mnp.array([True])), TypeError),
    (lambda: mnp.ptp(mnp.array([True])), TypeError),
    (lambda: mnp.diff(mnp.ones(3), -1), ValueError),
    (lambda: mnp.convolve(mnp.ones(3), mnp.ones(2), "bogus"), ValueError),
    (lambda: mnp.unravel_index(mnp.array([7]), (2, 3)), ValueError),
    (lambda: mnp.amax(mnp.ones(3), where=mnp.array([True, False, True])), ValueError),
    (lambda: mnp.array(["a"]), TypeError),
])
def test_errors(call, exc):
    with pytest.raises(exc):
        call()


def test_dtype_argument_casts_the_result():
    i = mnp.array([1, 2, 3])
    assert mnp.add(i, i, dtype=mnp.float16).dtype == mnp.float16
    assert mnp.sqrt(i, dtype=mnp.float64).dtype == mnp.float64
    assert mnp.equal(i, 2, dtype=mnp.int32).dtype == mnp.int32
    assert mnp.cumsum(i, dtype=mnp.float32).dtype == mnp.float32
    assert mnp.trace(mnp.eye(2), dtype=mnp.int32).dtype == mnp.int32


def test_python_scalars_follow_mindspore_rules():
    i8 = mnp.ones(2, mnp.int8)
    assert mnp.add(i8, 3).dtype == mnp.int8
    assert mnp.add(i8, 2.5).dtype == mnp.float32
    assert mnp.multiply(mnp.ones(2, mnp.float16), 3.0).dtype == mnp.float16
    assert mnp.add(2, 3).dtype == mnp.int32
    assert mnp.result_type(1, 2.0) == mnp.float32
    assert mnp.promote_types(int, float) == mnp.float32
    assert mnp.promote_types("int8", mnp.uint8) == mnp.int16


def test_gradients_flow_through_conversion_and_creation():
    x = Tensor(np.array([1.0, 2.0, 3.0]))

    def f(t):
        m = mnp.array(t) * mnp.asarray(t) + mnp.full((2, 3), t).sum(0)
        grid = mnp.meshgrid(t, t[:2])[0]
        return (m * mnp.linspace(t[0], t[2], 3, dtype=mnp.float64)).sum() + grid.sum() + mnp.vander(t).sum()

    g = ms.grad(f)(x).asnumpy()
    eps = 1e-6
    num = [(f(Tensor(x.asnumpy() + e)).asnumpy() - f(Tensor(x.asnumpy() - e)).asnumpy())
           / (2 * eps) for e in np.eye(3) * eps]
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-5)


def test_grids_and_windows():
    assert mnp.mgrid[0:2, 0:3].shape == (2, 2, 3)
    assert mnp.mgrid[0:1:4j].dtype == mnp.float32
    a, b = mnp.ogrid[0:2, 0:3]
    assert a.shape == (2, 1) and b.shape == (1, 3) and a.dtype == mnp.int32
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        np.testing.assert_allclose(getattr(mnp, name)(7).asnumpy(), getattr(np, name)(7),
                                   atol=1e-6)
        assert getattr(mnp, name)(0).shape == (0,)


def test_functional_helpers():
    x = mnp.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(mnp.apply_along_axis(mnp.sum, 0, x).asnumpy(),
                               np.arange(12.0).reshape(3, 4).sum(0))
    out = mnp.apply_along_axis(lambda v: mnp.stack([v.min(), v.max()]), 1, x)
    assert out.shape == (3, 2)
    assert mnp.apply_over_axes(mnp.sum, x, [0, 1]).shape == (1, 1)
    assert mnp.size(x) == 12 and mnp.size(x, 1) == 4
    assert mnp.isscalar(3) and not mnp.isscalar(x)
    assert mnp.array_str(mnp.array([1, 2])) == "[1 2]"


def test_counts_are_float32_and_differentiable_in_the_weights():
    w = Tensor(np.array([0.5, 1.5, 2.0, -1.0], np.float32))
    values = mnp.array([0.1, 0.5, 0.9, 0.2])
    hist = mnp.histogram(values, 2, weights=w)[0]
    assert hist.dtype == mnp.float32
    np.testing.assert_allclose(hist.asnumpy(), [-0.5, 3.5])
    cot = np.array([3.0, -2.0], np.float32)
    grad = ms.grad(lambda t: (mnp.histogram(values, 2, weights=t)[0] * Tensor(cot)).sum())(w)
    np.testing.assert_allclose(grad.asnumpy(), [3.0, -2.0, -2.0, 3.0])
    idx = mnp.array([0, 2, 2, 1])
    assert mnp.bincount(idx, weights=mnp.ones(4, mnp.float64)).dtype == mnp.float32
    grad = ms.grad(lambda t: (mnp.bincount(idx, weights=t) * Tensor(np.array(
        [1.0, 2.0, 3.0], np.float32))).sum())(w)
    np.testing.assert_allclose(grad.asnumpy(), [1.0, 3.0, 3.0, 2.0])
