"""FLOP counting (minispore/profiler/_flops.py) and FlopsUtilizationCollector against MindSpore
2.10 in graph mode (tests/train/data/flops.json, made by data/make_flops.py from the networks of
data/flops_cases.py)."""
import contextlib
import io
import json
import pathlib

import numpy as np
import pytest

import minispore as ms
from minispore.profiler import _flops

from .data import flops_cases as cases

EXPECTED = json.loads((pathlib.Path(__file__).parent / "data" / "flops.json").read_text())


def _train(case):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        text = cases.train_once(ms, case, buf.getvalue)
    return text.splitlines()


@pytest.mark.parametrize("case", [cases.dense, cases.convs, cases.matmuls],
                         ids=lambda c: c.__name__)
def test_flops_line_matches_mindspore(case):
    lines = _train(case)
    assert [ln for ln in lines if "flops is" in ln] == EXPECTED[case.__name__]
    steps = [ln for ln in lines if ln.startswith("Train per step time: ")]
    # as MindSpore: a step whose number is a multiple of data_size (2 here) prints nothing
    assert len(steps) == 1 and " mfu:" in steps[0] and " hfu:" in steps[0]
    model = ms.flops_collection("train")[0]
    assert f"Shard model flops is {model}," in EXPECTED[case.__name__][0]


def test_recomputed_forward_counts_as_hardware_flops_only():
    lines = [ln for ln in _train(cases.recomputed_convs) if "flops is" in ln]
    model, hardware, shard_model, shard_hardware, dynamic = ms.flops_collection("train")
    # MindSpore 2.10's CPU graph mode reports no recomputation here; the model FLOPs agree
    assert f"Shard model flops is {model}," in EXPECTED["recomputed_convs"][0]
    c2_forward = 2 * 4 * 2 * 3 * 3 * (4 * 3 * 3)  # batch 4, out (2, 3, 3), 4 x 3 x 3 taps
    assert hardware == model + c2_forward and not dynamic
    assert (shard_model, shard_hardware) == (model, hardware) and len(lines) == 1


def test_counting_rules_and_nothing_installed_outside():
    forward = ms.ops.operations.MatMul.forward
    a = ms.Tensor(np.ones((5, 3), np.float32))
    b = ms.Tensor(np.ones((5, 4), np.float32))
    with _flops.count() as outer:
        ms.ops.MatMul(transpose_a=True)(a, b)  # (3, 5) @ (5, 4)
        with _flops.count() as inner:
            ms.ops.BatchMatMul()(ms.Tensor(np.ones((2, 1, 3, 5), np.float32)),
                                 ms.Tensor(np.ones((3, 5, 6), np.float32)))
    assert inner.model == 2 * 2 * 3 * 3 * 6 * 5
    assert outer.model == 2 * 3 * 4 * 5 + inner.model == outer.hardware
    assert ms.ops.operations.MatMul.forward is forward
    with _flops.count() as c:
        x = ms.Tensor(np.ones((1, 2, 5, 5), np.float32))
        ms.value_and_grad(lambda t: ms.ops.conv2d(t, ms.Tensor(np.ones((3, 2, 2, 2),
                                                                      np.float32))).sum())(x)
    taps = 2 * 2 * 2
    assert c.model == 2 * (2 * 3 * 4 * 4 * taps)  # the forward and dx; the weight is constant


def test_flops_collection_needs_a_measured_phase_and_arguments_are_checked():
    with pytest.raises(RuntimeError, match="no step of phase 'predict'"):
        ms.flops_collection("predict")
    with pytest.raises(TypeError):
        ms.FlopsUtilizationCollector(1, full_flops=1)
    with pytest.raises(ValueError):
        ms.FlopsUtilizationCollector(0)


def test_a_step_that_raises_leaves_no_counter_behind():
    import gc

    class Failing(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = ms.nn.Dense(2, 2)

        def construct(self, x):
            self.d(x)
            raise KeyError("step failed")
    forward = ms.ops.operations.MatMul.__dict__["forward"]
    data = {"x": np.ones((4, 2), np.float32), "y": np.zeros(4, np.int32)}
    dataset = ms.dataset.NumpySlicesDataset(data=data, shuffle=False).batch(2)
    model = ms.train.Model(Failing(), loss_fn=ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True),
                           optimizer=ms.nn.SGD(Failing().trainable_params(), 0.1))
    collector = ms.train.FlopsUtilizationCollector(2)
    with pytest.raises(KeyError):
        model.train(1, dataset, callbacks=[collector])
    assert _flops._open  # the failed step's count is still open
    del collector, model
    gc.collect()
    assert not _flops._open and ms.ops.operations.MatMul.__dict__["forward"] is forward
