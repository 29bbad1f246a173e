"""The activations, normalisations, dropouts and loss classes of the nn breadth family:
values and gradients against MindSpore 2.10 (fixture made by data/make_mindspore_nnx.py), NumPy
references where MindSpore's CPU build has no kernel, gradients to second order, signatures and
the errors bad input gets."""
import inspect
import json
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.ops.function import loss_func, nn_func
from minispore.testing import check_grads

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_nnx.npz"))
SIGNATURES = json.loads(str(DATA["signatures"]))

FNS = {
    "fast_gelu": ops.fast_gelu,
    "hardshrink": lambda t: ops.hardshrink(t, 0.4),
    "softshrink": lambda t: ops.softshrink(t, 0.4),
    "soft_shrink": ops.soft_shrink,
    "threshold": lambda t: ops.threshold(t, 0.1, 20.0),
    "softmin": lambda t: ops.softmin(t, 0),
    "softmin_last": ops.softmin,
    "FastGeLU": ops.FastGeLU(),
    "FastGelu": ops.FastGelu(),
    "Gelu": ops.Gelu(),
    "HShrink": ops.HShrink(0.3),
    "SoftShrink": ops.SoftShrink(0.3),
    "CeLU": ops.CeLU(2.0),
    "GLU": ops.GLU(0),
    "PReLU": ops.PReLU(),
    "bidense": ops.bidense,
    "bidense_nobias": ops.bidense,
    "CTCGreedyDecoder": ops.CTCGreedyDecoder(),
    "L2Loss": ops.L2Loss(),
    "SigmoidCrossEntropyWithLogits": ops.SigmoidCrossEntropyWithLogits(),
    "CTCLoss_default": ops.CTCLoss(),
    "CTCLoss_collapse": ops.CTCLoss(preprocess_collapse_repeated=True),
    "CTCLoss_nomerge": ops.CTCLoss(ctc_merge_repeated=False),
    "LSTM": ops.LSTM(3, 2, 1, False, False, 0.0),
    "LSTM_bias": ops.LSTM(3, 2, 1, True, False, 0.0),
    "LSTM_proj": ops.LSTM(3, 4, 1, False, False, 0.0, 2),
}
# LSTM's `reserve` and `state` are the kernel's workspace (oneDNN's in MindSpore): not compared.
COMPARED_OUTPUTS = {"LSTM": 3, "LSTM_bias": 3, "LSTM_proj": 3}
for red in ("mean", "batchmean", "sum", "none"):
    FNS[f"KLDivLoss_{red}"] = ops.KLDivLoss(red)
for red in ("mean", "sum", "none"):
    FNS[f"BinaryCrossEntropy_{red}"] = ops.BinaryCrossEntropy(red)
    FNS[f"BCEWithLogitsLoss_{red}"] = ops.BCEWithLogitsLoss(red)
    FNS[f"SmoothL1Loss_{red}"] = ops.SmoothL1Loss(0.5, red)
    FNS[f"NLLLoss_{red}"] = ops.NLLLoss(red)
    FNS[f"NLLLoss_ignore_{red}"] = ops.NLLLoss(red, ignore_index=3)
    FNS[f"MultiMarginLoss_{red}"] = ops.MultiMarginLoss(reduction=red)
    FNS[f"MultiMarginLoss_p2_{red}"] = ops.MultiMarginLoss(2, 0.5, red)
# MindSpore 2.10's CPU MultiMarginLoss returns 0 for every sample once given a weight (p=2,
# margin 0.5 here, where the hinge terms are far from 0), and its NLLLoss with reduction 'none'
# does not zero the ignore_index samples (it does for 'mean' and 'sum'): compared with NumPy below.
MS_WRONG = {f"MultiMarginLoss_p2_{red}" for red in ("mean", "sum", "none")} | {
    "NLLLoss_ignore_none"}


def _inputs(key):
    arrays, i = [], 0
    while f"nn/{key}/in{i}" in DATA:
        arrays.append(DATA[f"nn/{key}/in{i}"])
        i += 1
    return arrays


@pytest.mark.parametrize("key", sorted(k for k in FNS if k not in MS_WRONG))
def test_matches_mindspore(key):
    fn = FNS[key]
    arrays = _inputs(key)
    tensors = [Tensor(a) for a in arrays]
    out = fn(*tensors)
    outs = out if isinstance(out, tuple) else (out,)
    j = 0
    while f"nn/{key}/out{j}" in DATA and j < COMPARED_OUTPUTS.get(key, len(outs)):
        want = DATA[f"nn/{key}/out{j}"]
        assert outs[j].shape == want.shape, (j, outs[j].shape, want.shape)
        assert outs[j].asnumpy().dtype == want.dtype, (j, outs[j].dtype, want.dtype)
        np.testing.assert_allclose(outs[j].asnumpy(), want, rtol=2e-5, atol=2e-6)
        j += 1
    assert j == COMPARED_OUTPUTS.get(key, len(outs))
    if f"nn/{key}/cot" not in DATA:
        return
    cot = Tensor(DATA[f"nn/{key}/cot"])
    nums = tuple(i for i in range(len(arrays)) if f"nn/{key}/grad{i}" in DATA)
    first = (lambda *t: fn(*t)[0] * cot) if isinstance(out, tuple) else (lambda *t: fn(*t) * cot)
    grads = ms.grad(first, nums)(*tensors)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for i, g in zip(nums, grads):
        np.testing.assert_allclose(g.asnumpy(), DATA[f"nn/{key}/grad{i}"], rtol=2e-5, atol=2e-6,
                                   err_msg=f"grad {i}")


def test_nll_loss_none_zeroes_ignored_samples():
    x, t, w = _inputs("NLLLoss_ignore_none")
    loss, total = ops.NLLLoss("none", ignore_index=3)(Tensor(x), Tensor(t), Tensor(w))
    keep = t != 3
    np.testing.assert_allclose(loss.asnumpy(), np.where(keep, -w[t] * x[np.arange(3), t], 0))
    np.testing.assert_allclose(total.asnumpy(), w[t][keep].sum(), rtol=1e-6)


def test_multi_margin_with_weight_against_numpy():
    x, t, w = _inputs("MultiMarginLoss_p2_none")
    got = ops.MultiMarginLoss(2, 0.5, "none")(Tensor(x), Tensor(t), Tensor(w)).asnumpy()
    rows = np.arange(len(t))
    hinge = np.maximum(0.5 - x[rows, t][:, None] + x, 0) ** 2 * w[t][:, None]
    hinge[rows, t] = 0
    np.testing.assert_allclose(got, hinge.sum(1) / x.shape[1], rtol=1e-6)


@pytest.mark.parametrize("merge", [True, False])
def test_ctc_greedy_decoder_matches_mindspore(merge):
    inputs, lengths = DATA["nn/ctc_greedy/inputs"], DATA["nn/ctc_greedy/lengths"]
    outs = ops.ctc_greedy_decoder(Tensor(inputs), Tensor(lengths), merge)
    for j, o in enumerate(outs):
        want = DATA[f"nn/ctc_greedy_{merge}/out{j}"]
        assert o.asnumpy().dtype == want.dtype
        np.testing.assert_allclose(o.asnumpy(), want, rtol=1e-6)


# ---- gradients to second order (float64) -------------------------------------------------------------

def rand(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def away_from(x, points, gap=0.05):
    """x with entries moved off the kinks at `points` (finite differences straddle them)."""
    for p in points:
        near = np.abs(x - p) < gap
        x[near] = p + gap * np.sign(x[near] - p + 1e-12) * 2
    return x


@pytest.mark.parametrize("name,fn,kinks", [
    ("fast_gelu", ops.fast_gelu, ()),
    ("hardshrink", lambda t: ops.hardshrink(t, 0.5), (0.5, -0.5)),
    ("softshrink", lambda t: ops.softshrink(t, 0.5), (0.5, -0.5)),
    ("threshold", lambda t: ops.threshold(t, 0.1, 2.0), (0.1,)),
    ("softmin", lambda t: ops.softmin(t, 1), ()),
    ("swiglu", lambda t: ops.swiglu(t, 1), ()),
    ("mse_loss_ext", lambda t: ops.mse_loss_ext(t, Tensor(rand(4))), ()),
])
def test_unary_grads(name, fn, kinks):
    check_grads(fn, [Tensor(away_from(rand(3, 4), kinks))], order=2)


def test_norm_and_embedding_grads():
    x, g, b = Tensor(rand(2, 3, 4)), Tensor(rand(4, seed=1)), Tensor(rand(4, seed=2))
    check_grads(lambda a, w: ops.rms_norm(a, w)[0], [x, g], order=2)
    check_grads(lambda a, c, w: ops.add_rms_norm(a, c, w)[0], [x, Tensor(rand(2, 3, 4, seed=3)),
                                                                g], order=2)
    check_grads(lambda a, c, w, v: ops.add_layer_norm(a, c, w, v)[0],
                [x, Tensor(rand(2, 3, 4, seed=3)), g, b], order=2)
    q, cos, sin = Tensor(rand(1, 2, 3, 4)), Tensor(rand(1, 1, 3, 4, seed=1)), \
        Tensor(rand(1, 1, 3, 4, seed=2))
    for mode in (0, 1):
        check_grads(lambda a, c, s: ops.rotary_position_embedding(a, c, s, mode), [q, cos, sin],
                    order=2)
    check_grads(ops.bidense, [Tensor(rand(2, 3)), Tensor(rand(2, 2, seed=1)),
                              Tensor(rand(4, 3, 2, seed=2)), Tensor(rand(4, seed=3))], order=2)


def test_random_activation_grads_with_fixed_noise():
    x = Tensor(away_from(rand(3, 4), (0.0,)))

    def seeded(fn):
        def run(t):
            ms.set_seed(5)
            return fn(t)
        return run

    check_grads(seeded(lambda t: ops.gumbel_softmax(t, 0.7)), [x], order=2)
    check_grads(seeded(ops.rrelu), [x], order=2)
    cot = Tensor(rand(3, 4, seed=4))
    straight_through = ms.grad(lambda t: (seeded(lambda u: ops.gumbel_softmax(u, 0.7, True))(t)
                                          * cot).sum())(x)
    soft = ms.grad(lambda t: (seeded(lambda u: ops.gumbel_softmax(u, 0.7))(t) * cot).sum())(x)
    np.testing.assert_allclose(straight_through.asnumpy(), soft.asnumpy())


# ---- NumPy references (no MindSpore CPU kernel) ------------------------------------------------------

def test_rms_norm_family_against_numpy():
    x1, x2, g, b = rand(2, 3, 4), rand(2, 3, 4, seed=1), rand(3, 4, seed=2), rand(4, seed=3)
    y, rstd = ops.rms_norm(Tensor(x1), Tensor(g), 1e-3)
    want_rstd = 1 / np.sqrt((x1 ** 2).mean((1, 2), keepdims=True) + 1e-3)
    np.testing.assert_allclose(rstd.asnumpy(), want_rstd)
    np.testing.assert_allclose(y.asnumpy(), x1 * want_rstd * g)
    y, rstd, s = ops.add_rms_norm(Tensor(x1), Tensor(x2), Tensor(g[0]))
    xs = x1 + x2
    np.testing.assert_allclose(s.asnumpy(), xs)
    np.testing.assert_allclose(y.asnumpy(),
                               xs / np.sqrt((xs ** 2).mean(-1, keepdims=True) + 1e-6) * g[0])
    y, mean, rstd, s = ops.add_layer_norm(Tensor(x1), Tensor(x2), Tensor(g[0]), Tensor(b))
    mu, var = xs.mean(-1, keepdims=True), xs.var(-1, keepdims=True)
    np.testing.assert_allclose(mean.asnumpy(), mu)
    np.testing.assert_allclose(rstd.asnumpy(), 1 / np.sqrt(var + 1e-5))
    np.testing.assert_allclose(y.asnumpy(), (xs - mu) / np.sqrt(var + 1e-5) * g[0] + b)
    y16, rstd16 = ops.RmsNorm()(Tensor(x1.astype(np.float16)), Tensor(g.astype(np.float16)))
    assert y16.dtype == ms.float16 and rstd16.dtype == ms.float32


def test_swiglu_rope_softmargin_triplet_against_numpy():
    x = rand(2, 6)
    np.testing.assert_allclose(ops.swiglu(Tensor(x)).asnumpy(),
                               x[:, :3] / (1 + np.exp(-x[:, :3])) * x[:, 3:])
    q, c, s = rand(1, 2, 3, 4), rand(1, 1, 3, 4, seed=1), rand(1, 1, 3, 4, seed=2)
    half = np.concatenate([-q[..., 2:], q[..., :2]], -1)
    np.testing.assert_allclose(ops.rotary_position_embedding(Tensor(q), Tensor(c), Tensor(s))
                               .asnumpy(), q * c + half * s)
    inter = np.stack([-q[..., 1::2], q[..., ::2]], -1).reshape(q.shape)
    np.testing.assert_allclose(ops.rotary_position_embedding(Tensor(q), Tensor(c), Tensor(s), 1)
                               .asnumpy(), q * c + inter * s)
    t = np.where(rand(2, 6, seed=3) > 0, 1.0, -1.0)
    np.testing.assert_allclose(ops.SoftMarginLoss("none")(Tensor(x), Tensor(t)).asnumpy(),
                               np.log1p(np.exp(-t * x)))
    a, p, n = rand(3, 4), rand(3, 4, seed=1), rand(3, 4, seed=2)
    d = lambda u, v: np.linalg.norm(u - v + 1e-6, axis=-1)  # noqa: E731
    want = np.maximum(d(a, p) - np.minimum(d(a, n), d(p, n)) + 0.5, 0).mean()
    got = ops.TripletMarginLoss(swap=True)(Tensor(a), Tensor(p), Tensor(n),
                                           Tensor(np.float32(0.5)))
    np.testing.assert_allclose(got.asnumpy(), want)


def test_multilabel_margin_loss_class_and_is_target():
    x = rand(2, 4)
    target = np.array([[3, 0, -1, 1], [1, 2, 3, 0]], np.int32)
    loss, is_target = ops.MultilabelMarginLoss("none")(Tensor(x), Tensor(target))
    np.testing.assert_allclose(loss.asnumpy(), ops.multilabel_margin_loss(
        Tensor(x), Tensor(target), "none").asnumpy())
    np.testing.assert_array_equal(is_target.asnumpy(), [[1, 0, 0, 1], [1, 1, 1, 1]])
    assert is_target.dtype == ms.int32


# ---- dropouts and the random ops -----------------------------------------------------------------------

@pytest.mark.parametrize("cls,shape", [(ops.Dropout2D, (4, 8, 3, 3)),
                                       (ops.Dropout3D, (4, 8, 2, 3, 2))])
def test_channel_dropout_classes(cls, shape):
    x = Tensor(np.ones(shape, np.float32))
    out, mask = cls(0.25)(x)
    assert mask.dtype == ms.bool_ and mask.shape == shape
    m = mask.asnumpy()
    flat = m.reshape(shape[0] * shape[1], -1)
    assert (flat.all(1) | ~flat.any(1)).all()  # whole channels
    np.testing.assert_allclose(out.asnumpy(), m * 4.0)
    out, mask = cls(0.0)(x)
    assert not mask.asnumpy().any() and not out.asnumpy().any()
    out, mask = cls(1.0)(x)
    assert mask.asnumpy().all()
    np.testing.assert_array_equal(out.asnumpy(), 1.0)
    with pytest.raises(ValueError, match="-D"):
        cls()(Tensor(np.ones((2, 3), np.float32)))


def test_dropout_gen_and_do_mask():
    ms.set_seed(2)
    mask = ops.DropoutGenMask(3, 4)((5, 30), Tensor(np.float32(0.75)))
    assert mask.dtype == ms.uint8 and mask.shape == (32,)  # 150 bits padded to 256
    ms.set_seed(2)
    again = ops.DropoutGenMask(3, 4)((5, 30), 0.75)
    np.testing.assert_array_equal(mask.asnumpy(), again.asnumpy())
    bits = np.unpackbits(mask.asnumpy(), bitorder="little")
    assert not bits[150:].any() and 0.5 < bits[:150].mean() < 0.95
    x = Tensor(rand(5, 30))
    out = ops.DropoutDoMask()(x, mask, 0.75)
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() * bits[:150].reshape(5, 30) / 0.75)
    g = ms.grad(lambda t: ops.DropoutDoMask()(t, mask, 0.75).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), bits[:150].reshape(5, 30) / 0.75)
    with pytest.raises(ValueError, match="bits"):
        ops.DropoutDoMask()(Tensor(rand(20, 20)), mask, 0.75)
    with pytest.raises(ValueError, match="keep_prob"):
        ops.DropoutGenMask()((2,), 1.5)


def test_dropout3d():
    x = Tensor(np.ones((3, 16, 2, 2, 2)))
    out = ops.dropout3d(x, 0.5).asnumpy()
    per_channel = out.reshape(48, -1)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(1) == per_channel.max(1)).all()
    assert ops.dropout3d(x, 0.5, training=False) is x
    with pytest.raises(ValueError, match="5-D"):
        ops.dropout3d(Tensor(np.ones((3, 2, 2, 2))))


def test_gumbel_softmax_and_rrelu_draws():
    ms.set_seed(1)
    logits = Tensor(rand(5, 3))
    soft = ops.gumbel_softmax(logits, 0.5).asnumpy()
    np.testing.assert_allclose(soft.sum(-1), 1.0)
    hard = ops.gumbel_softmax(logits, 0.5, True, 0).asnumpy()
    np.testing.assert_array_equal(hard.sum(0), 1.0)
    assert set(np.unique(hard)) == {0.0, 1.0}
    x = rand(200)
    slope = ops.rrelu(Tensor(x), 0.1, 0.3).asnumpy()[x < 0] / x[x < 0]
    assert slope.min() >= 0.1 and slope.max() <= 0.3 and slope.std() > 0.01
    np.testing.assert_array_equal(ops.rrelu(Tensor(x)).asnumpy()[x >= 0], x[x >= 0])
    assert ops.rrelu(Tensor(np.array([1, -2, 3], np.int32))).dtype == ms.int32


# ---- errors -----------------------------------------------------------------------------------------

def test_errors():
    ints = Tensor(np.array([1, 2], np.int32))
    for fn in (ops.fast_gelu, ops.hardshrink, ops.softshrink, ops.softmin, ops.gumbel_softmax,
               ops.swiglu):
        with pytest.raises(TypeError):
            fn(ints)
    with pytest.raises(ValueError, match="lambd"):
        ops.softshrink(Tensor(rand(3)), -0.5)
    with pytest.raises(ValueError, match="lambd"):
        ops.SoftShrink(-1.0)
    with pytest.raises(ValueError, match="tau"):
        ops.gumbel_softmax(Tensor(rand(3)), 0.0)
    with pytest.raises(ValueError, match="upper"):
        ops.rrelu(Tensor(rand(3)), 0.5, 0.2)
    with pytest.raises(ValueError, match="even"):
        ops.swiglu(Tensor(rand(2, 3)))
    with pytest.raises(ValueError, match="gamma"):
        ops.rms_norm(Tensor(rand(2, 3)), Tensor(rand(4)))
    with pytest.raises(ValueError, match="do not match"):
        ops.bidense(Tensor(rand(2, 3)), Tensor(rand(2, 4)), Tensor(rand(5, 4, 3)))
    with pytest.raises(ValueError, match="sequence_length"):
        ops.ctc_greedy_decoder(Tensor(rand(3, 2, 4)), Tensor(np.array([4, 1], np.int32)))
    with pytest.raises(TypeError, match="L2Loss"):
        ops.L2Loss()(ints)
    assert ops.threshold(ints, 1.5, 20.5).asnumpy().tolist() == [20, 2]
    with pytest.raises(ValueError, match="reduction"):
        ops.NLLLoss("batchmean")


def test_ctc_loss_errors_and_gradient_path():
    x = Tensor(rand(4, 2, 3))
    idx = Tensor(np.array([[0, 0], [1, 0], [1, 1]], np.int64))
    val = Tensor(np.array([1, 0, 1], np.int32))
    loss, grad = ops.CTCLoss()(x, idx, val, Tensor(np.array([4, 3], np.int32)))
    g = ms.grad(lambda t: (ops.CTCLoss()(t, idx, val, Tensor(np.array([4, 3], np.int32)))[0]
                           * Tensor(np.array([2.0, -1.0]))).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), grad.asnumpy() * np.array([2.0, -1.0])[:, None])
    with pytest.raises(ValueError, match="frames"):
        ops.CTCLoss()(x, idx, val, Tensor(np.array([4, 1], np.int32)))
    loss, grad = ops.CTCLoss(ignore_longer_outputs_than_inputs=True)(
        x, idx, val, Tensor(np.array([4, 1], np.int32)))
    assert loss.asnumpy()[1] == 0 and not grad.asnumpy()[:, 1].any()
    with pytest.raises(ValueError, match="blank"):
        ops.CTCLoss()(x, idx, Tensor(np.array([2, 0, 1], np.int32)),
                      Tensor(np.array([4, 3], np.int32)))


def test_mse_loss_ext_broadcasts():
    a, b = rand(3, 4), rand(1, 4, seed=1)
    np.testing.assert_allclose(ops.mse_loss_ext(Tensor(a), Tensor(b)).asnumpy(),
                               ((a - b) ** 2).mean())
    np.testing.assert_allclose(ops.mse_loss_ext(Tensor(a), Tensor(b), "none").asnumpy(),
                               (a - b) ** 2)


def test_signatures_match_mindspore():
    checked = 0
    for key, want in SIGNATURES.items():
        name, _, method = key.partition(".")
        home = nn_func if hasattr(nn_func, name) else loss_func if hasattr(loss_func, name) else None
        if home is None:
            continue
        obj = getattr(ops, name)
        got = str(inspect.signature(getattr(obj, method) if method else obj))
        assert got == want, (key, got, want)
        checked += 1
    assert checked >= 45


# ---- recurrent primitives ---------------------------------------------------------------------------

def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def test_lstm_grads_and_errors():
    lstm = ops.LSTM(3, 2, 1, True, False, 0.0)
    args = [Tensor(rand(3, 2, 3)), Tensor(rand(1, 2, 2, seed=1)), Tensor(rand(1, 2, 2, seed=2)),
            Tensor(rand(48, 1, 1, seed=3) * 0.5)]
    check_grads(lambda *t: lstm(*t)[0], args, order=2)
    with pytest.raises(ValueError, match="one unidirectional layer"):
        ops.LSTM(3, 2, 2, False, False, 0.0)
    with pytest.raises(ValueError, match="elements"):
        lstm(*args[:3], Tensor(rand(40, 1, 1)))
    with pytest.raises(ValueError, match="proj_size"):
        ops.LSTM(3, 2, 1, False, False, 0.0, 2)


def test_dynamic_rnn_is_the_lstm_with_ijfo_gates():
    """nn.LSTM's Ascend path: DynamicRNN with the gate blocks reordered (i, f, g, o) ->
    (i, g, f, o) and the weights stacked (input + hidden, 4H) gives the CPU LSTM's result."""
    n_in, hid = 3, 2
    x, h0, c0 = rand(4, 2, n_in), rand(1, 2, hid, seed=1), rand(1, 2, hid, seed=2)
    w_ih, w_hh, b = rand(4 * hid, n_in, seed=3), rand(4 * hid, hid, seed=4), rand(4 * hid, seed=5)
    flat = np.concatenate([w_ih.ravel(), w_hh.ravel(), b]).reshape(-1, 1, 1)
    y, h_n, c_n, _, _ = ops.LSTM(n_in, hid, 1, True, False, 0.0)(
        Tensor(x), Tensor(h0), Tensor(c0), Tensor(flat))
    order = [0, 2, 1, 3]
    reorder = lambda m: np.concatenate([np.split(m, 4)[k] for k in order])  # noqa: E731
    w = np.concatenate([reorder(w_ih), reorder(w_hh)], 1).T
    outs = ops.DynamicRNN()(Tensor(x), Tensor(w), Tensor(reorder(b)), None, Tensor(h0), Tensor(c0))
    np.testing.assert_allclose(outs[0].asnumpy(), y.asnumpy(), rtol=1e-12)
    np.testing.assert_allclose(outs[1].asnumpy()[-1], h_n.asnumpy()[0], rtol=1e-12)
    np.testing.assert_allclose(outs[2].asnumpy()[-1], c_n.asnumpy()[0], rtol=1e-12)
    i, j, f, o, tanh_c = (outs[k].asnumpy() for k in range(3, 8))
    np.testing.assert_allclose(outs[2].asnumpy()[0], f[0] * c0[0] + i[0] * j[0], rtol=1e-12)
    np.testing.assert_allclose(outs[0].asnumpy(), o * tanh_c, rtol=1e-12)


def test_dynamic_rnn_forget_bias_and_clip_and_basic_cell():
    x, h0, c0 = rand(1, 2, 3), rand(1, 2, 2, seed=1), rand(1, 2, 2, seed=2) * 3
    w, b = rand(5, 8, seed=3), rand(8, seed=4)
    outs = ops.DynamicRNN(forget_bias=1.0, cell_clip=0.5)(Tensor(x), Tensor(w), Tensor(b), None,
                                                          Tensor(h0), Tensor(c0))
    z = np.concatenate([x[0], h0[0]], 1) @ w + b
    i, j, f, o = np.split(z, 4, 1)
    c = np.clip(sigmoid(f + 1.0) * c0[0] + sigmoid(i) * np.tanh(j), -0.5, 0.5)
    np.testing.assert_allclose(outs[2].asnumpy()[0], c, rtol=1e-12)
    np.testing.assert_allclose(outs[0].asnumpy()[0], sigmoid(o) * np.tanh(c), rtol=1e-12)
    ct, ht, *_ = ops.BasicLSTMCell()(Tensor(x[0]), Tensor(h0[0]), Tensor(c0[0]), Tensor(w),
                                     Tensor(b))
    c = sigmoid(f + 1.0) * c0[0] + sigmoid(i) * np.tanh(j)
    np.testing.assert_allclose(ct.asnumpy(), c, rtol=1e-12)
    np.testing.assert_allclose(ht.asnumpy(), sigmoid(o) * np.tanh(c), rtol=1e-12)
    args = [Tensor(x), Tensor(w), Tensor(b), None, Tensor(h0), Tensor(c0)]
    check_grads(lambda a, b_, c_, d, e: ops.DynamicRNN()(a, b_, c_, None, d, e)[0],
                [args[0], args[1], args[2], args[4], args[5]], order=2)
    with pytest.raises(ValueError, match="seq_length"):
        ops.DynamicRNN()(Tensor(x), Tensor(w), Tensor(b), Tensor(np.array([1, 1])), Tensor(h0),
                         Tensor(c0))
    with pytest.raises(ValueError, match="keep_prob"):
        ops.DynamicRNN(keep_prob=0.5)


@pytest.mark.parametrize("gate_order", ["rzh", "zrh"])
@pytest.mark.parametrize("reset_after", [True, False])
def test_dynamic_gru_v2(gate_order, reset_after):
    x, h0 = rand(3, 2, 4), rand(2, 3, seed=1)
    wi, wh, bi, bh = rand(4, 9, seed=2), rand(3, 9, seed=3), rand(9, seed=4), rand(9, seed=5)
    gru = ops.DynamicGRUV2(gate_order=gate_order, reset_after=reset_after)
    y, out_h, update, reset, new, hidden_new = gru(Tensor(x), Tensor(wi), Tensor(wh), Tensor(bi),
                                                   Tensor(bh), None, Tensor(h0))
    split = lambda m: dict(zip(gate_order, np.split(m, 3, -1)))  # noqa: E731
    h = h0
    for t in range(3):
        gx, gh, gbi, gbh = split(x[t] @ wi), split(wh), split(bi), split(bh)
        r = sigmoid(gx["r"] + gbi["r"] + h @ gh["r"] + gbh["r"])
        z = sigmoid(gx["z"] + gbi["z"] + h @ gh["z"] + gbh["z"])
        hn = h @ gh["h"] + gbh["h"]
        n = np.tanh(gx["h"] + gbi["h"] + (r * hn if reset_after else (r * h) @ gh["h"] + gbh["h"]))
        h = (1 - z) * n + z * h
        for got, want in ((y, h), (update, z), (reset, r), (new, n), (hidden_new, hn)):
            np.testing.assert_allclose(got.asnumpy()[t], want, rtol=1e-12)
    np.testing.assert_array_equal(out_h.asnumpy(), y.asnumpy())
    check_grads(lambda a, b_, c_, d, e: gru(a, b_, c_, d, e, None, Tensor(h0))[0],
                [Tensor(x[:2]), Tensor(wi), Tensor(wh), Tensor(bi), Tensor(bh)], order=2)
