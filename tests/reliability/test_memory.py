"""Long runs do not grow (docs/reliability.md §4): after a gradient call returns or raises, no
intermediate of it is reachable; repeated calls accumulate nothing; a short version of
benchmarks/memory_soak.py stays flat."""
import gc
import importlib.util
import os
import tracemalloc
import weakref

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.common import _writes
from minispore._autodiff import tape as tape_mod

_SOAK = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "memory_soak.py")


def _load_soak():
    spec = importlib.util.spec_from_file_location("memory_soak", _SOAK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Spy:
    """Weak references to the intermediates a function makes (Tensors and their arrays)."""

    def __init__(self):
        self.refs = []

    def __call__(self, *tensors):
        for t in tensors:
            self.refs.extend([weakref.ref(t), weakref.ref(t._data)])
        return tensors[0] if len(tensors) == 1 else tensors

    def alive(self):
        gc.collect()
        return sum(r() is not None for r in self.refs)


def _returns(spy):
    def f(x):
        y = spy(ops.exp(x * 2.0))
        return spy(ops.tanh(y) * y).sum()
    return ms.value_and_grad(f)(Tensor(np.linspace(-1, 1, 5)))


def _raises_in_forward(spy):
    def f(x):
        spy(ops.sin(x) * x)
        raise KeyError("user error")
    ms.grad(f)(Tensor(np.ones(3)))


def _raises_in_backward(spy):
    def f(x):
        y = spy(ops.tanh(x))
        y[0] = 2.0  # Tanh's saved output written: backward raises
        return y.sum()
    ms.grad(f)(Tensor(np.ones(3)))


def _raises_in_anomaly_mode(spy):
    with ms.detect_anomaly():
        ms.grad(lambda x: spy(ops.sqrt(x * 0.0)).sum())(Tensor(np.ones(3)))


def _nested(spy):
    return ms.grad(ms.grad(lambda x: spy(ops.sin(x) * x).sum()))(Tensor(np.float64(0.3)))


def _train_step(spy):
    net = nn.SequentialCell([nn.Dense(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Dense(4, 2)])
    net.set_train()
    loss = nn.WithLossCell(net, nn.CrossEntropyLoss())
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), 0.1))
    out = spy(step(Tensor(np.ones((5, 3), np.float32)), Tensor(np.zeros(5, np.int32))))
    return float(out.asnumpy())


def _failed_train_step(spy):
    net = nn.SequentialCell([nn.Dense(3, 4), nn.BatchNorm1d(4), nn.Dense(4, 2)])
    net.set_train()
    loss = nn.WithLossCell(net, nn.CrossEntropyLoss())
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), 0.1))
    spy(net.trainable_params()[0])  # the net itself may live on; checked below it does not
    step(Tensor(np.ones((5, 3), np.float32)), Tensor(np.full(5, 7, np.int32)))


CALLS = [("returns", _returns, None), ("raises in forward", _raises_in_forward, KeyError),
         ("raises in backward", _raises_in_backward, RuntimeError),
         ("raises in anomaly mode", _raises_in_anomaly_mode, RuntimeError),
         ("nested transforms", _nested, None), ("training step", _train_step, None),
         ("failed training step", _failed_train_step, IndexError)]


@pytest.mark.parametrize("name, call, error", CALLS, ids=[c[0] for c in CALLS])
def test_nothing_of_a_call_survives_it(name, call, error):
    spy = Spy()
    if error is None:
        result = call(spy)
        del result
    else:
        with pytest.raises(error):
            call(spy)
    assert spy.refs
    assert spy.alive() == 0, f"{spy.alive()} of {len(spy.refs)} intermediates are still alive"
    assert tape_mod._state.tape is None and tape_mod._active == 0
    assert _writes._log.entries is None


def test_repeated_calls_accumulate_nothing():
    w = ms.Parameter(Tensor(np.ones((4, 3))), name="w")
    f = ms.value_and_grad(lambda x: ops.log_softmax(ops.matmul(x, w), -1).sum(), 0, w)
    x = Tensor(np.random.default_rng(0).standard_normal((5, 4)))
    for _ in range(50):
        f(x)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(300):
            f(x)
        gc.collect()
        growth = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert growth < 300 * 8, f"{growth} bytes more after 300 calls"


def test_short_soak_is_flat(record_property):
    soak = _load_soak()
    r = soak.soak(steps=300, start=100, trace=True)
    record_property("soak_steps", r["steps"] - r["from_step"])
    record_property("traced_bytes_per_step", r["traced_bytes_per_step"])
    if "rss_kb_per_step" in r:
        record_property("rss_kb_per_step", r["rss_kb_per_step"])
        assert r["rss_kb_per_step"] < 16.0  # generous: the page-granular RSS is noisy
    assert r["tensors_at_end"] == r["tensors_at_start"]
    assert r["traced_bytes_per_step"] < 16.0  # a small cache may fill; no per-step growth
    assert r["loss_at_end"] < r["loss_at_start"]
