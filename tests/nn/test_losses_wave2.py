"""L1LossExt and SampledSoftmaxLoss: MindSpore 2.10's signatures, outputs and gradients on the
fixtures of data/make_mindspore_wave2.py (L1LossExt has no MindSpore CPU kernel: NumPy), and
float64 gradient checks."""
import sys
from pathlib import Path

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.testing import check_grads

sys.path.insert(0, str(Path(__file__).parent / "data"))
import make_mindspore_wave2 as W

STORE = dict(np.load(Path(__file__).parent / "data" / "mindspore_wave2.npz"))
SIGNATURES = dict(s.split("=", 1) for s in STORE["signatures"])


def t64(a):
    return Tensor(np.asarray(a, np.float64))


@pytest.mark.parametrize("name", ["L1LossExt", "SampledSoftmaxLoss"])
def test_signature(name):
    assert W.init_signature(getattr(nn, name)) == SIGNATURES[name]


@pytest.mark.parametrize("name", ["sampled_softmax", "sampled_softmax_two_true"])
def test_sampled_softmax_matches_mindspore(name):
    got = W.run_case(ms, name, STORE, False)
    prefixes = tuple(f"{name}__{part}" for part in ("out", "grad", "params"))
    assert set(got) == {k for k in STORE if k.startswith(prefixes)}
    for key, value in got.items():
        if key.endswith("__params"):
            assert list(value) == list(STORE[key])
        else:
            np.testing.assert_allclose(value, STORE[key], rtol=1e-4, atol=1e-5, err_msg=key)


def test_l1_loss_ext():
    d = W.Draw("l1_loss_ext", STORE, False)
    x, y = d("x", (2, 3)), d("y", (2, 3))
    np.testing.assert_allclose(nn.L1LossExt("sum")(Tensor(x), Tensor(y)).asnumpy(),
                               np.abs(x - y).sum(), rtol=1e-6)
    np.testing.assert_allclose(nn.L1LossExt()(Tensor(x), Tensor(y)).asnumpy(),
                               np.abs(x - y).mean(), rtol=1e-6)
    assert nn.L1LossExt("none")(Tensor(x), Tensor(y)).shape == (2, 3)
    with pytest.raises(ValueError):
        nn.L1LossExt("max")
    check_grads(lambda a, b: nn.L1LossExt()(a, b), [t64(x), t64(y)], order=2)


def test_sampled_softmax_checks_and_grads():
    with pytest.raises(ValueError):
        nn.SampledSoftmaxLoss(8, 7)
    with pytest.raises(ValueError):
        nn.SampledSoftmaxLoss(2, 7, num_true=0)
    with pytest.raises(ValueError):
        nn.SampledSoftmaxLoss(2, 7, seed=-1)
    with pytest.raises(TypeError):
        nn.SampledSoftmaxLoss(2, 7, sampled_values=3)
    with pytest.raises(ValueError):
        nn.SampledSoftmaxLoss(2, 7, sampled_values=(1, 2))
    rng = np.random.default_rng(0)
    w, b, x = rng.normal(size=(7, 4)), rng.normal(size=7), rng.normal(size=(3, 4))
    labels = Tensor(np.array([[1], [2], [5]], np.int32))
    with pytest.raises(TypeError):
        nn.SampledSoftmaxLoss(3, 7)(t64(w), t64(b), Tensor(np.ones((3, 1))), t64(x))
    fixed = (Tensor(np.array([0, 4], np.int32)), t64([[0.3], [0.4], [0.5]]), t64([0.2, 0.6]))
    loss = nn.SampledSoftmaxLoss(2, 7, sampled_values=fixed, reduction="mean")
    check_grads(lambda a, c, z: loss(a, c, labels, z), [t64(w), t64(b), t64(x)], order=2)
    drawn = nn.SampledSoftmaxLoss(3, 7, seed=1)(Tensor(w.astype(np.float32)),
                                                Tensor(b.astype(np.float32)), labels,
                                                Tensor(x.astype(np.float32)))
    assert drawn.shape == (3,) and np.isfinite(drawn.asnumpy()).all()
