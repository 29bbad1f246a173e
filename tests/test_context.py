"""set_context / get_context, jit and set_seed: accepted as MindSpore accepts them; GRAPH_MODE gives
the same results as PyNative (jit's capture has its own tests in tests/jit)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops


@pytest.fixture(autouse=True)
def restore_mode():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")


def test_defaults():
    assert ms.PYNATIVE_MODE == 1 and ms.GRAPH_MODE == 0
    assert ms.get_context("mode") == ms.PYNATIVE_MODE
    assert ms.get_context("device_target") == "CPU"


def test_graph_mode_runs_eagerly_with_identical_results():
    f = lambda x: (ops.sin(x) * x).sum()  # noqa: E731
    x = Tensor(np.array([0.3, -1.2], np.float32))
    eager = ms.grad(f)(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU", jit_syntax_level=ms.context.LAX,
                   max_device_memory="2GB", pynative_synchronize=True)
    assert ms.get_context("mode") == ms.GRAPH_MODE
    np.testing.assert_array_equal(ms.grad(f)(x).asnumpy(), eager)


@pytest.mark.parametrize("target", ["GPU", "Ascend"])
def test_a_target_this_build_lacks_raises_and_changes_nothing(target):
    # MindSpore's CPU-only wheel raises RuntimeError("Unsupported device target GPU ...")
    with pytest.raises(RuntimeError, match=f"Unsupported device target {target}"):
        ms.set_context(device_target=target, mode=ms.GRAPH_MODE)
    with pytest.raises(RuntimeError, match=target):
        ms.set_device(target)
    assert ms.get_context("device_target") == "CPU"
    assert ms.get_context("mode") == ms.PYNATIVE_MODE


@pytest.mark.parametrize("kwargs,words", [({"mode": 3}, "mode"),
                                          ({"device_target": "TPU"}, "device_target"),
                                          ({"no_such_key": 1}, "no_such_key")])
def test_bad_context_values(kwargs, words):
    with pytest.raises(ValueError, match=words):
        ms.set_context(**kwargs)
    assert ms.get_context("mode") == ms.PYNATIVE_MODE


def test_get_context_unknown_key():
    with pytest.raises(ValueError, match="unknown key"):
        ms.get_context("nope")


def test_jit_bare_and_with_keywords_and_on_construct():
    @ms.jit
    def f(x):
        return x * 2

    @ms.jit(capture_mode="bytecode", jit_level="O1", dynamic=1, fullgraph=True, backend="ms_backend")
    def g(x):
        return x + 1

    class Net(nn.Cell):
        @ms.jit
        def construct(self, x):
            return ops.relu(x)

    x = Tensor(np.array([-1.0, 2.0], np.float32))
    np.testing.assert_array_equal(f(x).asnumpy(), [-2.0, 4.0])
    np.testing.assert_array_equal(g(x).asnumpy(), [0.0, 3.0])
    np.testing.assert_array_equal(Net()(x).asnumpy(), [0.0, 2.0])
    np.testing.assert_array_equal(ms.grad(f)(x).asnumpy(), [2.0, 2.0])
    assert f.__name__ == "f"
    with pytest.raises(ValueError, match="capture_mode"):
        ms.jit(capture_mode="magic")


def test_set_seed_makes_draws_repeat_and_resets_every_stream():
    ms.set_seed(3)
    a = (ops.randn(4).asnumpy(), ops.rand(2, seed=7).asnumpy())
    ms.set_seed(3)
    b = (ops.randn(4).asnumpy(), ops.rand(2, seed=7).asnumpy())
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert ms.get_seed() == 3
    state = np.random.get_state()[1].copy()
    ops.randn(10)
    np.testing.assert_array_equal(np.random.get_state()[1], state)
    with pytest.raises(ValueError):
        ms.set_seed(-1)
    with pytest.raises(TypeError):
        ms.set_seed(1.5)
