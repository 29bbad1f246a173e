"""`Tensor.view(dtype)`: the bits read as another dtype, against MindSpore 2.10
(tests/common/data/make_view_dtype.py)."""
import json
import pathlib

import numpy as np
import pytest

import minispore as ms

from .data.make_view_dtype import CASES

FIXTURE = json.loads((pathlib.Path(__file__).resolve().parent / "data" /
                      "view_dtype.json").read_text())


@pytest.mark.parametrize("key", sorted(FIXTURE))
def test_view_dtype_as_mindspore(key):
    case, dt = key.split(" as ")
    t = ms.Tensor(eval(CASES[case]))
    want = FIXTURE[key]
    if "error" in want:
        assert want["error"] == "ValueError"
        with pytest.raises(ValueError, match="ViewDtype"):
            t.view(getattr(ms, dt))
        return
    got = t.view(getattr(ms, dt))
    assert list(got.shape) == want["shape"] and str(got.dtype) == want["dtype"]
    np.testing.assert_array_equal(got.asnumpy().ravel(),
                                  np.array(want["values"], got.asnumpy().dtype))


def test_view_dtype_is_a_copy_without_gradient():
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    bits = x.view(ms.int32)
    bits[0] = 0
    assert x.asnumpy()[0] == 1.0
    g = ms.grad(lambda x: x.view(ms.int32).astype(ms.float32).sum() + x.sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [1.0, 1.0])


def test_view_dtype_replays_under_jit_from_the_new_bits():
    jitted = ms.jit(lambda x: x.view(ms.int32) + 1)
    for v in (1.0, 2.0, -3.5):
        x = ms.Tensor(np.full(3, v, np.float32))
        np.testing.assert_array_equal(jitted(x).asnumpy(), x.view(ms.int32).asnumpy() + 1)
    assert jitted.stats["replays"] == 2


def test_float8_bits_round_trip():
    pytest.importorskip("ml_dtypes")
    t = ms.Tensor([1.5, 2.0], ms.float8_e4m3fn)
    bits = t.view(ms.uint8)
    assert bits.dtype == ms.uint8 and bits.asnumpy().tolist() == [60, 64]
    back = bits.view(ms.float8_e4m3fn)
    assert back.dtype is ms.float8_e4m3fn and back.tolist() == [1.5, 2.0]
