"""AdaFactor, LazyAdam and AdamOffload: MindSpore 2.10's signatures, the parameters after three
steps and the optimizer state names, on the fixtures of data/make_mindspore_wave2.py."""
import sys
from pathlib import Path

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn

sys.path.insert(0, str(Path(__file__).parent / "data"))
import make_mindspore_wave2 as W

STORE = dict(np.load(Path(__file__).parent / "data" / "mindspore_wave2.npz"))
SIGNATURES = dict(s.split("=", 1) for s in STORE["signatures"])


@pytest.mark.parametrize("name", ["AdaFactor", "LazyAdam", "AdamOffload"])
def test_signature(name):
    assert W.init_signature(getattr(nn, name)) == SIGNATURES[name]


@pytest.mark.parametrize("name", sorted(W.optimizer_cases(ms)))
def test_matches_mindspore(name):
    got = W.run_optimizer(ms, name, STORE, False)
    for key, value in got.items():
        if key.endswith("__state_names"):
            # MindSpore also lists the optimized parameters, and a shared placeholder
            # ('Parameter$1') for the first moment when beta1 is 0.
            expected = [n for n in STORE[key] if not n.startswith(("p", "Parameter$"))]
            assert list(value) == expected
        else:
            np.testing.assert_allclose(value, STORE[key], rtol=1e-5, atol=1e-6, err_msg=key)


def _params():
    return [Parameter(np.ones((2, 3), np.float32), name="w"),
            Parameter(np.ones(3, np.float32), name="b")]


def test_adafactor_checks():
    with pytest.raises(ValueError):
        nn.AdaFactor(_params(), learning_rate=0.1)
    with pytest.raises(ValueError):
        nn.AdaFactor(_params(), warmup_init=True, relative_step=False, learning_rate=0.1)
    with pytest.raises(ValueError):
        nn.AdaFactor(_params(), relative_step=False)
    with pytest.raises(ValueError):
        nn.AdaFactor(_params(), eps=(1e-30,))
    with pytest.raises(TypeError):
        nn.AdaFactor(_params(), clip_threshold=1)
    with pytest.raises(ValueError):
        nn.AdaFactor(_params(), decay_rate=1.0)
    opt = nn.AdaFactor(_params(), compression=True)
    assert opt.exp_avg_sq[1].dtype == ms.float16
    assert opt.exp_avg_sq_row[0].shape == (2,) and opt.exp_avg_sq_col[0].shape == (3,)


def test_adafactor_step_count_and_direction():
    params = _params()
    opt = nn.AdaFactor(params)
    grads = (Tensor(np.ones((2, 3), np.float32)), Tensor(-np.ones(3, np.float32)))
    opt(grads)
    opt(grads)
    assert opt.step.asnumpy()[0] == 2
    assert (params[0].asnumpy() < 1).all() and (params[1].asnumpy() > 1).all()


def test_lazy_adam_is_adam_on_dense_gradients():
    rng = np.random.default_rng(0)
    grads = tuple(Tensor(rng.normal(size=s).astype(np.float32)) for s in ((2, 3), (3,)))
    lazy, plain = _params(), _params()
    nn.LazyAdam(lazy, learning_rate=0.1)(grads)
    nn.Adam(plain, learning_rate=0.1)(grads)
    for a, b in zip(lazy, plain):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    with pytest.raises(TypeError):
        nn.AdamOffload(_params(), use_locking=1)
