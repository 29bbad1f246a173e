"""`Cell.register_parameter_forward_hook`, `Cell.to_empty`, `nn.no_init_parameters` and
`requires_grad_` against MindSpore 2.10 on the cases of data/cell_leftovers_cases.py (fixture:
data/cell_leftovers.json, made by data/make_cell_leftovers.py). MindSpore runs parameter hooks
only under `jit`; minispore runs them in both modes, so the cases run here eagerly and jitted."""
import json
import pathlib

import numpy as np
import pytest

import minispore as ms
from minispore.common.initializer import initializer

from .data import cell_leftovers_cases as cases

EXPECTED = json.loads((pathlib.Path(__file__).parent / "data" / "cell_leftovers.json").read_text())


@pytest.mark.parametrize("jit", [lambda f: f, ms.jit], ids=["eager", "jit"])
@pytest.mark.parametrize("case", cases.CASES, ids=lambda c: c.__name__)
def test_matches_mindspore(case, jit):
    assert case(ms, jit) == EXPECTED[case.__name__]


def test_lazy_parameter_draws_once_in_the_seeded_order():
    ms.set_seed(3)
    eager = ms.Parameter(initializer("normal", [4], ms.float32), name="eager").asnumpy()
    ms.set_seed(3)
    with ms.nn.no_init_parameters():
        lazy = ms.Parameter(initializer("normal", [4], ms.float32), name="lazy")
    assert lazy.has_init and type(lazy).__name__ == "_LazyParameter"
    first = lazy.asnumpy()
    np.testing.assert_array_equal(first, eager)
    np.testing.assert_array_equal(lazy.asnumpy(), first)  # drawn once
    assert not lazy.has_init and type(lazy) is ms.Parameter


def test_lazy_parameter_trains_and_a_bad_set_data_leaves_it_undrawn():
    with ms.nn.no_init_parameters():
        net = ms.nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    with pytest.raises(TypeError, match="set_data"):
        net.weight.set_data("bad")
    assert net.weight.has_init and net.weight.shape == (1, 2)
    opt = ms.nn.SGD(net.trainable_params(), learning_rate=0.5)
    step = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(net, ms.nn.MSELoss()), opt)
    x, y = ms.Tensor(np.ones((1, 2), np.float32)), ms.Tensor(np.zeros((1, 1), np.float32))
    step(x, y)
    # loss (w.x)^2 with w = [1, 1]: gradient 2 * 2 * x = [4, 4], so w = 1 - 0.5 * 4 = -1
    np.testing.assert_allclose(net.weight.asnumpy(), [[-1.0, -1.0]])


def test_to_empty_never_draws_a_lazy_parameter_and_counts_as_a_write():
    with ms.nn.no_init_parameters():
        net = ms.nn.Dense(3, 2)
    w = net.weight
    net.to_empty()
    assert net.weight is w and type(w) is ms.Parameter and w.shape == (2, 3)
    dense = ms.nn.Dense(2, 2)
    before = dense.weight._version
    dense.to_empty()
    assert dense.weight._version > before


def test_parameter_hook_runs_each_call_and_restores_the_attributes():
    net = cases._net(ms)
    calls = []

    def hook(p):
        calls.append(p.name)
        return p * 2
    net.register_parameter_forward_hook([{"params": [net.weight], "hook": hook}])
    x = ms.Tensor(np.float32(3.0))
    assert float(net(x)) == float(net(x)) == (3 * 4 + 1) * 5
    # eagerly the hook runs at every call; in GRAPH_MODE it runs when the call is captured,
    # and the replay computes its ops again without running the Python function
    assert calls == (["w"] if ms.get_context("mode") == ms.GRAPH_MODE else ["w", "w"])
    assert isinstance(net.weight, ms.Parameter)  # the attribute is the Parameter again

    def broken(p):
        raise RuntimeError("hook failed")
    net2 = cases._net(ms)
    net2.register_parameter_forward_hook(broken)
    with pytest.raises(RuntimeError, match="hook failed"):
        net2(x)
    assert all(isinstance(getattr(net2, n), ms.Parameter) for n in ("weight", "b"))
    assert isinstance(net2.inner.c, ms.Parameter)
