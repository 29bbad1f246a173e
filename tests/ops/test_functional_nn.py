"""`minispore.ops` neural-network functions: activations, softmax family and losses against NumPy
formulas in float64 and float32, reductions and options, errors, and gradients."""
import math

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.testing import check_grads

RNG = np.random.default_rng(11)
FLOATS = [np.float64, np.float32]


def rand(*shape, dtype=np.float64, low=-3.0, high=3.0):
    return RNG.uniform(low, high, shape).astype(dtype)


def close(got, want, dtype=np.float64):
    tol = 1e-12 if np.dtype(dtype) == np.float64 else 3e-6
    assert isinstance(got, Tensor)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    assert got.asnumpy().dtype == dtype
    np.testing.assert_allclose(got.asnumpy(), want, rtol=tol, atol=tol)


def away_from(x, points, gap=0.05):
    for p in points:
        x = np.where(np.abs(x - p) < gap, p + gap * np.sign(x - p + 1e-12), x)
    return x


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


_erf = np.vectorize(math.erf)
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805

ACTIVATIONS = {
    "relu": (lambda x: ops.relu(x), lambda x: np.maximum(x, 0), (0,)),
    "relu6": (lambda x: ops.relu6(x), lambda x: np.clip(x, 0, 6), (0, 6)),
    "leaky_relu": (lambda x: ops.leaky_relu(x), lambda x: np.where(x > 0, x, 0.2 * x), (0,)),
    "leaky_relu_0.1": (lambda x: ops.leaky_relu(x, 0.1), lambda x: np.where(x > 0, x, 0.1 * x),
                       (0,)),
    "elu": (lambda x: ops.elu(x), lambda x: np.where(x > 0, x, np.expm1(x)), (0,)),
    "elu_2": (lambda x: ops.elu(x, 2.0), lambda x: np.where(x > 0, x, 2 * np.expm1(x)), (0,)),
    "celu": (lambda x: ops.celu(x, 1.5),
             lambda x: np.maximum(x, 0) + np.minimum(0, 1.5 * np.expm1(x / 1.5)), (0,)),
    "selu": (lambda x: ops.selu(x),
             lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)), (0,)),
    "silu": (lambda x: ops.silu(x), lambda x: x * sigmoid(x), ()),
    "gelu": (lambda x: ops.gelu(x), lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))), ()),
    "gelu_tanh": (lambda x: ops.gelu(x, "tanh"),
                  lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
                  ()),
    "mish": (lambda x: ops.mish(x), lambda x: x * np.tanh(softplus(x)), ()),
    "hardswish": (lambda x: ops.hardswish(x), lambda x: x * np.clip(x + 3, 0, 6) / 6, (-3, 3)),
    "hardsigmoid": (lambda x: ops.hardsigmoid(x), lambda x: np.clip(x + 3, 0, 6) / 6, (-3, 3)),
    "hardtanh": (lambda x: ops.hardtanh(x, -2.0, 1.5), lambda x: np.clip(x, -2, 1.5), (-2, 1.5)),
    "softsign": (lambda x: ops.softsign(x), lambda x: x / (1 + np.abs(x)), (0,)),
    "tanhshrink": (lambda x: ops.tanhshrink(x), lambda x: x - np.tanh(x), ()),
    "sigmoid": (lambda x: ops.sigmoid(x), sigmoid, ()),
    "softplus": (lambda x: ops.softplus(x), softplus, ()),
    "softplus_beta": (lambda x: ops.softplus(x, 2, 4),
                      lambda x: np.where(2 * x > 4, x, softplus(2 * x) / 2), (2,)),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values(name, dtype):
    fn, ref, _ = ACTIVATIONS[name]
    x = np.concatenate([rand(20, dtype=dtype, low=-7, high=7), np.array([0.0, 40.0], dtype)])
    close(fn(Tensor(x)), ref(x.astype(np.float64)).astype(dtype), dtype)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_gradients(name):
    fn, _, kinks = ACTIVATIONS[name]
    x = away_from(rand(3, 4, low=-4, high=4), kinks, gap=0.1)
    check_grads(fn, [Tensor(x)], order=2)


def test_activations_of_integers_compute_in_float32():
    assert ops.silu(Tensor([1, 2])).dtype == ms.float32
    assert ops.softplus(Tensor([1, 2])).dtype == ms.float32
    assert ops.softmax(Tensor([1, 2])).dtype == ms.float32
    with pytest.raises(TypeError, match="gelu.*floating"):
        ops.gelu(Tensor([1, 2]))
    with pytest.raises(ValueError, match="gelu.*approximate"):
        ops.gelu(Tensor(np.ones(2)), "erf")


def test_softplus_is_linear_above_the_threshold():
    x = np.array([25.0, 1000.0])
    close(ops.softplus(Tensor(x)), x)
    close(ops.softplus(Tensor(x), threshold=None), x)


def test_prelu_and_glu():
    x = rand(2, 3, 4)
    w = np.array([0.1, 0.2, 0.3])
    close(ops.prelu(Tensor(x), Tensor(w)), np.where(x > 0, x, w[:, None] * x))
    close(ops.prelu(Tensor(x), Tensor(np.array([0.25]))), np.where(x > 0, x, 0.25 * x))
    a, b = x[..., :2], x[..., 2:]
    close(ops.glu(Tensor(x)), a * sigmoid(b))
    close(ops.glu(Tensor(x[:, :2]), 1), x[:, :1] * sigmoid(x[:, 1:2]))
    with pytest.raises(ValueError, match="prelu.*1 or 3"):
        ops.prelu(Tensor(x), Tensor(np.ones(2)))
    with pytest.raises(ValueError, match="glu.*even"):
        ops.glu(Tensor(x), 1)
    xs = away_from(x, (0,), 0.1)
    check_grads(ops.prelu, [Tensor(xs), Tensor(w)], order=2)
    check_grads(lambda v: ops.glu(v, 0), [Tensor(rand(4, 3))], order=2)


@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_and_log_softmax(dtype):
    x = rand(3, 4, dtype=dtype)
    e = np.exp(x - x.max(axis=0, keepdims=True))
    close(ops.softmax(Tensor(x), 0), e / e.sum(0, keepdims=True), dtype)
    x64 = x.astype(np.float64)
    lse = np.log(np.exp(x64).sum(-1, keepdims=True))
    close(ops.log_softmax(Tensor(x)), (x64 - lse).astype(dtype), dtype)
    big = ops.softmax(Tensor(np.array([1000.0, 1000.0, -np.inf])))
    close(big, np.array([0.5, 0.5, 0.0]))
    assert ops.softmax(Tensor(x), dtype=ms.float64).dtype == ms.float64


def test_dense_and_one_hot():
    x, w, b = rand(2, 5, 3), rand(4, 3), rand(4)
    close(ops.dense(Tensor(x), Tensor(w), Tensor(b)), x @ w.T + b)
    close(ops.dense(Tensor(x[0, 0]), Tensor(w)), x[0, 0] @ w.T)
    with pytest.raises(ValueError, match=r"dense.*\(2, 5, 3\).*\(3, 4\)"):
        ops.dense(Tensor(x), Tensor(w.T))
    check_grads(ops.dense, [Tensor(x), Tensor(w), Tensor(b)], order=2)


def test_stop_gradient():
    g = ms.grad(lambda a: ops.sum(a * ops.stop_gradient(a)))(Tensor(np.array([1.0, 2.0])))
    assert g.asnumpy().tolist() == [1.0, 2.0]


def test_cosine_similarity():
    a, b = rand(3, 4), rand(3, 4)
    want = (a * b).sum(1) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-8)
    close(ops.cosine_similarity(Tensor(a), Tensor(b)), want)
    close(ops.cosine_similarity(Tensor(a), Tensor(b[:1]), 1), (a * b[:1]).sum(1) / (
        np.linalg.norm(a, axis=1) * np.linalg.norm(b[:1], axis=1)))
    close(ops.cosine_similarity(Tensor(np.zeros((2, 3))), Tensor(np.zeros((2, 3)))), np.zeros(2))
    check_grads(lambda x, y: ops.cosine_similarity(x, y, 0), [Tensor(a), Tensor(b)], order=2)


# ---- losses ---------------------------------------------------------------------------------------

def log_softmax(x, axis):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def nll_reference(logp, target, weight=None, ignore_index=-100, reduction="mean",
                  smoothing=0.0):
    """PyTorch's (and MindSpore's) definition, with classes on axis 1."""
    c = logp.shape[1]
    lp = np.moveaxis(logp, 1, -1).reshape(-1, c)
    t = target.reshape(-1)
    w = np.ones(c) if weight is None else weight
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    wt = np.where(keep, w[safe], 0.0)
    loss = -lp[np.arange(t.size), safe] * wt
    if smoothing:
        loss = (1 - smoothing) * loss - smoothing / c * (lp * w).sum(1) * keep
    if reduction == "none":
        return loss.reshape(target.shape)
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / wt.sum()


CE_CASES = [
    dict(), dict(weight=True), dict(ignore_index=1), dict(reduction="sum"),
    dict(reduction="none"), dict(smoothing=0.2), dict(weight=True, smoothing=0.3, ignore_index=0),
    dict(weight=True, smoothing=0.1, reduction="none"),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", CE_CASES, ids=str)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5)])
def test_cross_entropy_and_nll_loss_with_class_indices(case, shape, dtype):
    x = rand(*shape, dtype=dtype)
    target = RNG.integers(0, 3, (shape[0],) + shape[2:])
    target.flat[0] = 1  # at least one sample that is not ignored by every case
    target.flat[-1] = 2
    weight = np.array([0.5, 1.0, 2.0]) if case.get("weight") else None
    kwargs = dict(weight=None if weight is None else Tensor(weight.astype(dtype)),
                  ignore_index=case.get("ignore_index", -100),
                  reduction=case.get("reduction", "mean"),
                  label_smoothing=case.get("smoothing", 0.0))
    want = nll_reference(log_softmax(x.astype(np.float64), 1), target, weight,
                         kwargs["ignore_index"], kwargs["reduction"], kwargs["label_smoothing"])
    close(ops.cross_entropy(Tensor(x), Tensor(target), **kwargs), np.asarray(want, dtype), dtype)
    logp = log_softmax(x.astype(np.float64), 1).astype(dtype)
    close(ops.nll_loss(Tensor(logp), Tensor(target.astype(np.int32)), **kwargs),
          np.asarray(want, dtype), dtype)


@pytest.mark.parametrize("case", CE_CASES, ids=str)
def test_cross_entropy_gradients_with_class_indices(case):
    x = Tensor(rand(4, 3))
    target = Tensor(np.array([1, 0, 2, 1]))
    weight = Tensor(np.array([0.5, 1.0, 2.0])) if case.get("weight") else None
    kwargs = dict(weight=weight, ignore_index=case.get("ignore_index", -100),
                  reduction=case.get("reduction", "mean"),
                  label_smoothing=case.get("smoothing", 0.0))
    check_grads(lambda a: ops.cross_entropy(a, target, **kwargs), [x], order=2)
    check_grads(lambda a: ops.nll_loss(a, target, **kwargs), [x], order=2)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.25])
def test_cross_entropy_with_probability_targets(reduction, smoothing):
    x = rand(4, 3)
    p = RNG.random((4, 3))
    p /= p.sum(1, keepdims=True)
    w = np.array([0.5, 1.0, 2.0])
    q = p * (1 - smoothing) + smoothing / 3
    loss = -(log_softmax(x, 1) * q * w).sum(1)
    want = {"mean": loss.mean(), "sum": loss.sum(), "none": loss}[reduction]
    got = ops.cross_entropy(Tensor(x), Tensor(p), Tensor(w), reduction=reduction,
                            label_smoothing=smoothing)
    close(got, np.asarray(want))
    check_grads(lambda a, b: ops.cross_entropy(a, b, Tensor(w), reduction=reduction,
                                               label_smoothing=smoothing),
                [Tensor(x), Tensor(p)], order=2)


def test_cross_entropy_errors():
    x = Tensor(rand(2, 3))
    with pytest.raises(IndexError, match="cross_entropy.*class 3"):
        ops.cross_entropy(x, Tensor([3, 0]))
    with pytest.raises(ValueError, match=r"cross_entropy.*\(2,\).*\(3,\)"):
        ops.cross_entropy(x, Tensor([1, 2, 0]))
    with pytest.raises(ValueError, match="cross_entropy.*reduction"):
        ops.cross_entropy(x, Tensor([1, 2]), reduction="avg")
    with pytest.raises(ValueError, match="cross_entropy.*label_smoothing"):
        ops.cross_entropy(x, Tensor([1, 2]), label_smoothing=1.5)
    with pytest.raises(TypeError, match="nll_loss.*integers"):
        ops.nll_loss(x, Tensor(np.array([1.0, 0.0])))
    with pytest.raises(ValueError, match=r"nll_loss.*'weight'.*\(3,\)"):
        ops.nll_loss(x, Tensor([1, 2]), Tensor(np.ones(2)))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_losses(reduction, dtype):
    z, y = rand(3, 4, dtype=dtype), RNG.random((3, 4)).astype(dtype)
    w, pw = RNG.random((3, 4)).astype(dtype), RNG.random(4).astype(dtype) + 0.5
    z64, y64, w64, pw64 = (a.astype(np.float64) for a in (z, y, w, pw))
    log_sig, log_1m = -softplus(-z64), -softplus(z64)
    loss = -w64 * (pw64 * y64 * log_sig + (1 - y64) * log_1m)
    want = {"mean": loss.mean(), "sum": loss.sum(), "none": loss}[reduction]
    close(ops.binary_cross_entropy_with_logits(Tensor(z), Tensor(y), Tensor(w), Tensor(pw),
                                               reduction), np.asarray(want, dtype), dtype)
    p = sigmoid(z64)
    bce = -w64 * (y64 * np.log(p + 1e-12) + (1 - y64) * np.log(1 - p + 1e-12))
    want = {"mean": bce.mean(), "sum": bce.sum(), "none": bce}[reduction]
    close(ops.binary_cross_entropy(Tensor(p.astype(dtype)), Tensor(y), Tensor(w), reduction),
          np.asarray(want, dtype), dtype)


def test_binary_cross_entropy_edges_and_gradients():
    out = ops.binary_cross_entropy(Tensor(np.array([0.0, 1.0])), Tensor(np.array([1.0, 0.0])),
                                   reduction="none")
    close(out, np.full(2, -np.log(1e-12)))
    with pytest.raises(ValueError, match=r"binary_cross_entropy.*\[0, 1\]"):
        ops.binary_cross_entropy(Tensor(np.array([0.5, 1.2])), Tensor(np.array([1.0, 0.0])))
    big = ops.binary_cross_entropy_with_logits(Tensor(np.array([800.0, -800.0])),
                                               Tensor(np.array([0.0, 1.0])), reduction="none")
    close(big, np.array([800.0, 800.0]))
    z, y = Tensor(rand(2, 3)), Tensor(RNG.random((2, 3)))
    w, pw = Tensor(RNG.random((2, 3))), Tensor(RNG.random(3) + 0.5)
    check_grads(lambda a, b: ops.binary_cross_entropy_with_logits(a, b, w, pw), [z, y], order=2)
    p = Tensor(RNG.uniform(0.1, 0.9, (2, 3)))
    check_grads(lambda a, b: ops.binary_cross_entropy(a, b, w, "sum"), [p, y], order=2)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses(reduction, dtype):
    a, b = rand(2, 3, dtype=dtype), rand(3, dtype=dtype)  # the target broadcasts
    d = (a - b).astype(np.float64)
    for fn, loss in [(ops.mse_loss, d * d), (ops.l1_loss, np.abs(d)),
                     (lambda x, y, r: ops.huber_loss(x, y, r, 1.5),
                      np.where(np.abs(d) < 1.5, 0.5 * d * d, 1.5 * (np.abs(d) - 0.75)))]:
        want = {"mean": loss.mean(), "sum": loss.sum(), "none": loss}[reduction]
        close(fn(Tensor(a), Tensor(b), reduction), np.asarray(want, dtype), dtype)


def test_regression_loss_gradients_and_errors():
    a, b = rand(2, 3), rand(2, 3)
    b = a + away_from(b - a, (0.0, 1.0, -1.0), 0.1)  # off the kinks of l1 and huber
    check_grads(ops.mse_loss, [Tensor(a), Tensor(b)], order=2)
    check_grads(lambda x, y: ops.l1_loss(x, y, "sum"), [Tensor(a), Tensor(b)], order=2)
    check_grads(lambda x, y: ops.huber_loss(x, y, "none"), [Tensor(a), Tensor(b)], order=2)
    with pytest.raises(ValueError, match=r"mse_loss.*\(2, 3\).*\(2,\)"):
        ops.mse_loss(Tensor(a), Tensor(np.ones(2)))
    with pytest.raises(ValueError, match="l1_loss.*reduction"):
        ops.l1_loss(Tensor(a), Tensor(b), "avg")
    with pytest.raises(ValueError, match="huber_loss.*delta"):
        ops.huber_loss(Tensor(a), Tensor(b), delta=0)


@pytest.mark.parametrize("reduction", ["mean", "batchmean", "sum", "none"])
def test_kl_div(reduction):
    logits = log_softmax(rand(3, 4), 1)
    labels = RNG.random((3, 4))
    labels[0, 1] = 0.0  # 0 * log 0 counts as 0
    labels /= labels.sum(1, keepdims=True)
    safe = np.where(labels > 0, labels, 1.0)
    loss = np.where(labels > 0, labels * (np.log(safe) - logits), 0.0)
    want = {"mean": loss.mean(), "batchmean": loss.sum() / 3, "sum": loss.sum(),
            "none": loss}[reduction]
    close(ops.kl_div(Tensor(logits), Tensor(labels), reduction), np.asarray(want))
    # labels * log(labels) has no derivative at labels == 0: differentiate the labels only
    # where they are positive.
    check_grads(lambda x, y: ops.kl_div(x, y, reduction), [Tensor(logits), Tensor(labels)],
                order=2, diff_argnums=[0])
    positive = np.abs(labels) + 0.1
    check_grads(lambda x, y: ops.kl_div(x, y, reduction), [Tensor(logits), Tensor(positive)],
                order=2)
    with pytest.raises(ValueError, match="kl_div.*reduction"):
        ops.kl_div(Tensor(logits), Tensor(labels), "avg")
