"""ops.Morph: a user function used as one operator in graph code. The expected behaviour was read
off MindSpore 2.10 (CPU): RuntimeError in PyNative, fn's values under jit and GRAPH_MODE,
gradients through fn or from bprop_fn, infer functions not checked against the result."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops

from .test_capture import same


def _same_shape(*shapes):
    return shapes[0]


def _affine(x):
    return x * 2 + 1


def _times_ten(x, out, dout):
    return (dout * 10,)


X = Tensor(np.array([1.0, -2.0, 0.5], np.float32))


def test_morph_refuses_pynative_calls():
    with pytest.raises(RuntimeError, match="Morph is only supported in GRAPH_MODE"):
        ops.Morph(_affine, _same_shape, _same_shape)(X)


def test_morph_runs_fn_under_jit_and_replays():
    morph = ops.operations.Morph(_affine, _same_shape, _same_shape)
    jitted = ms.jit(lambda x: morph(x))
    for _ in range(3):
        assert same(jitted(X), _affine(X))
    assert jitted.stats["replays"] == 2


def test_morph_gradients_flow_through_fn_or_come_from_bprop_fn():
    plain = ops.Morph(_affine, _same_shape, _same_shape)
    custom = ops.Morph(_affine, _same_shape, _same_shape, bprop_fn=_times_ten)
    assert np.array_equal(ms.grad(ms.jit(lambda x: plain(x).sum()))(X).asnumpy(), [2, 2, 2])
    assert np.array_equal(ms.grad(ms.jit(lambda x: custom(x).sum()))(X).asnumpy(), [10, 10, 10])
    inside = ms.jit(lambda x: ms.grad(lambda y: custom(y).sum())(x))
    for _ in range(2):
        assert np.array_equal(inside(X).asnumpy(), [10, 10, 10])
    assert inside.stats["replays"] == 1


def test_morph_in_a_cell_under_graph_mode_ignores_its_infer_functions():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.morph = ops.Morph(_affine, lambda *s: (5,), _same_shape)

        def construct(self, x):
            return self.morph(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        assert same(Net()(X), _affine(X))  # as MindSpore 2.10: the output is fn's
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_morph_checks_its_functions():
    with pytest.raises(TypeError):
        ops.Morph(None, _same_shape, _same_shape)
    with pytest.raises(TypeError):
        ops.Morph(_affine, _same_shape, _same_shape, bprop_fn=3)
