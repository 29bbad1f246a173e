"""DeviceCtx ('CPU' and the 'meta' device of shapes without values) against MindSpore 2.10
(fixture: data/device_ctx.json, made by data/make_device_ctx.py)."""
import json
import pathlib

import numpy as np
import pytest

import minispore as ms

from .data import device_ctx_cases as cases

EXPECTED = json.loads((pathlib.Path(__file__).parent / "data" / "device_ctx.json").read_text())


@pytest.mark.parametrize("case", cases.CASES, ids=lambda c: c.__name__)
def test_matches_mindspore(case):
    assert case(ms) == EXPECTED[case.__name__]


def test_meta_restores_on_error_and_nests():
    with pytest.raises(KeyError):
        with ms.DeviceCtx("meta"):
            with ms.DeviceCtx("CPU"):
                cpu = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="cpu")
            meta = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="meta")
            raise KeyError("inside")
    after = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="after")
    assert cpu.asnumpy().tolist() == [1.0, 1.0] and after.asnumpy().tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="meta"):
        meta.asnumpy()
    assert ms.get_context("device_target") == "CPU"


def test_meta_network_trains_after_to_empty_and_loading():
    with ms.DeviceCtx("meta"):
        net = ms.nn.Dense(2, 1)
    net.to_empty(device="CPU")
    ms.load_param_into_net(net, {"weight": ms.Parameter(ms.Tensor([[1.0, 1.0]]), name="weight"),
                                 "bias": ms.Parameter(ms.Tensor([0.0]), name="bias")})
    np.testing.assert_array_equal(net(ms.Tensor([[2.0, 3.0]])).asnumpy(), [[5.0]])
