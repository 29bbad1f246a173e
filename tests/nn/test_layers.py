"""Layers: outputs equal MindSpore 2.10's (tests/nn/data/mindspore_layers.npz, made by the script
beside it), MindSpore's names, defaults and conventions, gradients against central differences,
and a small CNN that learns."""
import os
from collections import OrderedDict

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.testing import check_grads

REF = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_layers.npz"))
X = REF["x"]


def close(t, expected, rtol=1e-4, atol=1e-5):
    got = t.asnumpy() if isinstance(t, Tensor) else t
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def load(cell, **values):
    for name, v in values.items():
        getattr(cell, name).set_data(Tensor(v))
    return cell


# ---- outputs equal MindSpore's -------------------------------------------------------------------

@pytest.mark.parametrize("name,kw", [
    ("same_s2", dict(stride=2, pad_mode="same")),
    ("same_d2", dict(dilation=2, pad_mode="same")),
    ("pad", dict(pad_mode="pad", padding=(1, 2, 0, 1), stride=(2, 1))),
    ("valid_g", dict(pad_mode="valid", group=3)),
])
def test_conv2d_matches_mindspore(name, kw):
    conv = load(nn.Conv2d(3, 6, (3, 2), has_bias=True, **kw), weight=REF[f"conv_{name}_w"],
                bias=REF[f"conv_{name}_b"])
    close(conv(Tensor(X)), REF[f"conv_{name}_y"])


@pytest.mark.parametrize("name,kw", [("same", dict(pad_mode="same", stride=2)),
                                     ("valid", dict(pad_mode="valid", stride=2))])
def test_conv2d_transpose_matches_mindspore(name, kw):
    ct = load(nn.Conv2dTranspose(3, 4, 3, has_bias=True, **kw), weight=REF[f"convT_{name}_w"],
              bias=REF[f"convT_{name}_b"])
    close(ct(Tensor(X)), REF[f"convT_{name}_y"])


def test_conv2d_transpose_output_padding_is_the_adjoint_of_conv2d():
    # MindSpore 2.10 fills output_padding rows with zeros (not even the bias); here they carry
    # the transposed convolution, so <conv(a), g> = <a, convT(g)>.
    rng = np.random.default_rng(3)
    w = rng.standard_normal((3, 4, 3, 3))
    g = rng.standard_normal((1, 3, 4, 5))
    ct = nn.Conv2dTranspose(3, 4, 3, stride=2, pad_mode="pad", padding=1, output_padding=1,
                            dtype=ms.float64)
    ct.weight.set_data(Tensor(w))
    out = ct(Tensor(g))
    assert out.shape == (1, 4, 8, 10)
    a = rng.standard_normal(out.shape)
    conv = ops.conv2d(Tensor(a), Tensor(w), None, 2, "pad", 1)
    np.testing.assert_allclose(float((conv * Tensor(g)).sum()), float((Tensor(a) * out).sum()),
                               rtol=1e-12)


@pytest.mark.parametrize("name,cls,kw", [
    ("max_same", nn.MaxPool2d, dict(kernel_size=3, stride=2, pad_mode="same")),
    ("avg_same", nn.AvgPool2d, dict(kernel_size=3, stride=2, pad_mode="same")),
    ("avg_pad", nn.AvgPool2d, dict(kernel_size=3, stride=2, pad_mode="pad", padding=1)),
    ("avg_pad_nocount", nn.AvgPool2d, dict(kernel_size=3, stride=2, pad_mode="pad", padding=1,
                                           count_include_pad=False)),
    ("avg_ceil", nn.AvgPool2d, dict(kernel_size=3, stride=2, ceil_mode=True)),
    ("max_pad_ceil", nn.MaxPool2d, dict(kernel_size=3, stride=2, pad_mode="pad", padding=1,
                                        ceil_mode=True)),
])
def test_pooling_matches_mindspore(name, cls, kw):
    close(cls(**kw)(Tensor(X)), REF[f"pool_{name}_y"])


def test_batchnorm_matches_mindspore_in_train_and_eval():
    bn = load(nn.BatchNorm2d(3), gamma=REF["bn_gamma"], beta=REF["bn_beta"])
    bn.set_train()
    close(bn(Tensor(X)), REF["bn_train_y"])
    close(bn.moving_mean, REF["bn_moving_mean"])
    close(bn.moving_variance, REF["bn_moving_variance"])
    bn.set_train(False)
    close(bn(Tensor(X)), REF["bn_eval_y"])


def test_conv1d_layernorm_groupnorm_adaptive_match_mindspore():
    c1 = load(nn.Conv1d(3, 4, 3, has_bias=True, pad_mode="pad", padding=1, stride=2),
              weight=REF["conv1d_w"], bias=REF["conv1d_b"])
    close(c1(Tensor(X[:, :, 0, :])), REF["conv1d_y"])
    ln = load(nn.LayerNorm((7, 8), begin_norm_axis=2, begin_params_axis=2),
              gamma=REF["ln_gamma"], beta=REF["ln_beta"])
    close(ln(Tensor(X)), REF["ln_y"])
    close(nn.GroupNorm(3, 3)(Tensor(X)), REF["gn_y"])
    close(nn.AdaptiveAvgPool2d((3, 5))(Tensor(X)), REF["adaptive_avg_y"])
    close(nn.AdaptiveMaxPool2d((3, 5))(Tensor(X)), REF["adaptive_max_y"])


# ---- names, shapes, defaults ----------------------------------------------------------------------

def test_parameter_names_and_shapes():
    cases = [
        (nn.Dense(3, 4), [("weight", (4, 3)), ("bias", (4,))]),
        (nn.Dense(3, 4, has_bias=False), [("weight", (4, 3))]),
        (nn.Conv2d(3, 8, 3), [("weight", (8, 3, 3, 3))]),
        (nn.Conv2d(3, 8, 3, has_bias=True), [("weight", (8, 3, 3, 3)), ("bias", (8,))]),
        (nn.Conv1d(3, 4, 3), [("weight", (4, 3, 1, 3))]),
        (nn.Conv2dTranspose(3, 4, 2), [("weight", (3, 4, 2, 2))]),
        (nn.BatchNorm2d(4), [("mean", (4,)), ("variance", (4,)), ("gamma", (4,)),
                             ("beta", (4,))]),
        (nn.LayerNorm((5,)), [("gamma", (5,)), ("beta", (5,))]),
        (nn.GroupNorm(2, 4), [("gamma", (4,)), ("beta", (4,))]),
        (nn.Embedding(10, 3), [("embedding_table", (10, 3))]),
        (nn.PReLU(), [("a", (1,))]),
        (nn.InstanceNorm2d(3), [("mean", (3,)), ("variance", (3,)), ("gamma", (3,)),
                                ("beta", (3,))]),
    ]
    for cell, expected in cases:
        assert [(p.name, p.shape) for p in cell.get_parameters()] == expected, cell


def test_nested_names_and_batchnorm_statistics_are_untrainable():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 3)
            self.bn = nn.BatchNorm2d(2)
    n = Net()
    assert [p.name for p in n.get_parameters()] == [
        "conv.weight", "bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta"]
    assert [p.name for p in n.untrainable_params()] == ["bn.moving_mean", "bn.moving_variance"]


def test_default_initialisation_ranges():
    ms.set_seed(0)
    d = nn.Dense(400, 50)
    bound = 1 / np.sqrt(400)
    for p in (d.weight, d.bias):
        a = p.asnumpy()
        assert a.min() >= -bound and a.max() <= bound and a.max() > 0.9 * bound
    c = nn.Conv2d(16, 32, 3, has_bias=True)
    bound = 1 / np.sqrt(16 * 9)
    assert np.abs(c.weight.asnumpy()).max() <= bound
    assert abs(nn.Embedding(1000, 64).embedding_table.asnumpy().std() - 0.01) < 1e-3


def test_initialisation_repeats_under_set_seed():
    ms.set_seed(11)
    a = nn.Dense(5, 5).weight.asnumpy()
    ms.set_seed(11)
    np.testing.assert_array_equal(nn.Dense(5, 5).weight.asnumpy(), a)


def test_reprs():
    assert repr(nn.Dense(3, 4)) == "Dense(input_channels=3, output_channels=4, has_bias=True)"
    assert repr(nn.MaxPool2d(2, 2)) == "MaxPool2d(kernel_size=2, stride=2, pad_mode=VALID)"
    assert repr(nn.Dense(3, 4, activation="relu")) == (
        "Dense(\n  input_channels=3, output_channels=4, has_bias=True, activation=ReLU()\n"
        "  (activation): ReLU()\n)")
    assert repr(nn.Conv2d(1, 6, 5, pad_mode="valid")).startswith(
        "Conv2d(input_channels=1, output_channels=6, kernel_size=(5, 5), stride=(1, 1), "
        "pad_mode=valid, padding=0, dilation=(1, 1), group=1, has_bias=False")


# ---- behaviour ------------------------------------------------------------------------------------

def test_dense_takes_any_leading_dims_and_an_activation():
    d = nn.Dense(4, 3, activation="relu")
    x = Tensor(np.random.default_rng(0).standard_normal((2, 5, 4)).astype(np.float32))
    out = d(x)
    ref = np.maximum(x.asnumpy() @ d.weight.asnumpy().T + d.bias.asnumpy(), 0)
    close(out, ref)
    with pytest.raises(ValueError, match="Dense"):
        d(Tensor(np.ones((2, 5), np.float32)))


def test_batchnorm_momentum_convention_and_unbiased_moving_variance():
    x = np.random.default_rng(1).standard_normal((8, 2)).astype(np.float32)
    bn = nn.BatchNorm1d(2, momentum=0.9)
    bn.set_train()
    bn(Tensor(x))
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.9 + 0.1 * x.var(0, ddof=1),
                               rtol=1e-5)


def test_dropout_p_and_keep_prob_scaling_and_eval_identity():
    x = Tensor(np.ones((200, 50), np.float32))
    for layer in (nn.Dropout(p=0.2), nn.Dropout(keep_prob=0.8)):
        assert layer.p == pytest.approx(0.2)
        assert layer(x) is x  # eval mode by default
        layer.set_train()
        out = layer(x).asnumpy()
        kept = out != 0
        np.testing.assert_allclose(out[kept], 1 / 0.8, rtol=1e-6)
        assert 0.75 < kept.mean() < 0.85
    ms.set_seed(5)
    a = nn.Dropout(p=0.5).set_train()(x).asnumpy()
    ms.set_seed(5)
    np.testing.assert_array_equal(nn.Dropout(p=0.5).set_train()(x).asnumpy(), a)
    with pytest.raises(ValueError):
        nn.Dropout(p=1.0)


def test_dropout2d_drops_whole_channels():
    x = Tensor(np.ones((4, 16, 3, 3), np.float32))
    out = nn.Dropout2d(p=0.5).set_train()(x).asnumpy()
    per_channel = out.reshape(4, 16, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1))


def test_embedding_padding_idx_is_zero_and_gets_no_gradient():
    emb = nn.Embedding(5, 3, padding_idx=1)
    np.testing.assert_array_equal(emb.embedding_table.asnumpy()[1], 0)
    ids = Tensor(np.array([[1, 2], [1, 4]], np.int32))
    assert emb(ids).shape == (2, 2, 3)
    g = ms.grad(lambda: emb(ids).sum(), None, emb.embedding_table)()
    np.testing.assert_array_equal(g.asnumpy()[1], 0)
    np.testing.assert_array_equal(g.asnumpy()[2], 1)
    np.testing.assert_array_equal(g.asnumpy()[4], 1)
    with pytest.raises(IndexError):
        emb(Tensor(np.array([5], np.int32)))


def test_flatten_identity_pad_upsample():
    x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2))
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Identity()(x) is x
    padded = nn.Pad(((0, 0), (0, 0), (1, 1), (2, 0)))(x)
    assert padded.shape == (2, 3, 4, 4)
    np.testing.assert_array_equal(nn.ZeroPad2d(1)(x).asnumpy()[:, :, 1:3, 1:3], x.asnumpy())
    up = nn.Upsample(scale_factor=2, mode="nearest")(x)
    np.testing.assert_array_equal(up.asnumpy(), x.asnumpy().repeat(2, 2).repeat(2, 3))
    refl = nn.Pad(((0, 0), (0, 0), (1, 1), (1, 1)), mode="REFLECT")(x).asnumpy()
    np.testing.assert_array_equal(refl, np.pad(x.asnumpy(), ((0, 0), (0, 0), (1, 1), (1, 1)),
                                               mode="reflect"))
    sym = nn.Pad(((0, 0), (0, 0), (1, 1), (1, 1)), mode="SYMMETRIC")(x).asnumpy()
    np.testing.assert_array_equal(sym, np.pad(x.asnumpy(), ((0, 0), (0, 0), (1, 1), (1, 1)),
                                              mode="symmetric"))


@pytest.mark.parametrize("cell,fn", [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    (nn.ELU(), lambda x: np.where(x > 0, x, np.expm1(x))),
    (nn.GELU(), lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    (nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
    (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
    (nn.Tanh(), np.tanh),
    (nn.Mish(), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (nn.HSwish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (nn.Softmax(), lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    (nn.LogSoftmax(), lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
])
def test_activations(cell, fn):
    x = np.random.default_rng(2).standard_normal((3, 4))
    np.testing.assert_allclose(cell(Tensor(x)).asnumpy(), fn(x), rtol=1e-10, atol=1e-12)


def test_gelu_layer_defaults_to_tanh_and_ops_to_exact():
    from math import erf
    x = np.array([0.5, -1.7])
    exact = np.array([0.5 * v * (1 + erf(v / np.sqrt(2))) for v in x])
    np.testing.assert_allclose(ops.gelu(Tensor(x)).asnumpy(), exact, rtol=1e-14)
    np.testing.assert_allclose(nn.GELU(approximate=False)(Tensor(x)).asnumpy(), exact,
                               rtol=1e-14)
    assert not np.allclose(nn.GELU()(Tensor(x)).asnumpy(), exact, rtol=1e-9)


def test_conv_layer_errors():
    with pytest.raises(ValueError, match="padding"):
        nn.Conv2d(3, 4, 3, padding=1)  # needs pad_mode='pad'
    with pytest.raises(ValueError, match="group"):
        nn.Conv2d(3, 4, 3, group=2)
    with pytest.raises(ValueError, match="Conv2d"):
        nn.Conv2d(3, 4, 3)(Tensor(np.ones((1, 2, 5, 5), np.float32)))


# ---- gradients through the layers -----------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: nn.Conv2d(2, 4, 3, stride=2, pad_mode="same", has_bias=True, group=2,
                      dtype=ms.float64),
    lambda: nn.Conv2dTranspose(2, 3, 3, stride=2, pad_mode="pad", padding=1, output_padding=1,
                               has_bias=True, dtype=ms.float64),
    lambda: nn.SequentialCell([nn.MaxPool2d(2, 2, pad_mode="same"), nn.AvgPool2d(2, 1)]),
    lambda: nn.BatchNorm2d(2, dtype=ms.float64).set_train(),
    lambda: nn.GroupNorm(2, 2, dtype=ms.float64),
    lambda: nn.LayerNorm((5, 5), begin_norm_axis=2, begin_params_axis=2, dtype=ms.float64),
    lambda: nn.AdaptiveAvgPool2d((2, 3)),
])
def test_layer_gradients(make):
    cell = make()
    x = Tensor(np.random.default_rng(4).standard_normal((2, 2, 5, 5)))
    check_grads(cell, [x], order=1)
    if cell.trainable_params():
        check_parameter_grads(cell, x)


def check_parameter_grads(cell, x, eps=1e-6):
    """Weight gradients against a central difference along a random direction."""
    params = cell.trainable_params()
    rng = np.random.default_rng(0)
    cot = Tensor(rng.standard_normal(cell(x).shape))
    grads = ms.grad(lambda: (cell(x) * cot).sum(), None, params)()
    dirs = [rng.standard_normal(p.shape) for p in params]
    analytic = sum(float((g.asnumpy() * d).sum()) for g, d in zip(grads, dirs))
    base = [p.asnumpy().copy() for p in params]

    def shifted(sign):
        for p, b, d in zip(params, base, dirs):
            p.set_data(Tensor(b + sign * eps * d))
        return float((cell(x) * cot).sum())
    numeric = (shifted(1) - shifted(-1)) / (2 * eps)
    for p, b in zip(params, base):
        p.set_data(Tensor(b))
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-8)


def test_gradient_penalty_through_a_conv():
    conv = nn.Conv2d(1, 2, 3, has_bias=True, dtype=ms.float64)
    x = Tensor(np.random.default_rng(6).standard_normal((2, 1, 5, 5)))

    def penalty():
        g = ms.grad(lambda inp: ops.tanh(conv(inp)).sum())(x)
        return (g * g).sum()
    gw = ms.grad(penalty, None, conv.weight)()

    def penalty_of(w):
        def crit(inp):
            return ops.tanh(ops.conv2d(inp, w, conv.bias, 1, "same")).sum()
        g = ms.grad(crit)(x)
        return (g * g).sum()
    check_grads(penalty_of, [Tensor(conv.weight.asnumpy())], order=1)
    eps = 1e-6
    w0 = conv.weight.asnumpy()
    e = np.zeros_like(w0)
    e[1, 0, 2, 1] = 1
    num = (float(penalty_of(Tensor(w0 + eps * e))) - float(penalty_of(Tensor(w0 - eps * e)))) \
        / (2 * eps)
    np.testing.assert_allclose(gw.asnumpy()[1, 0, 2, 1], num, rtol=1e-6)


# ---- cell state and precision ----------------------------------------------------------------------

def test_state_dict_round_trip_and_all_or_nothing_load():
    a, b = nn.Dense(3, 2), nn.Dense(3, 2)
    sd = a.state_dict()
    assert list(sd) == ["weight", "bias"]
    assert b.load_state_dict(sd) == ([], [])
    np.testing.assert_array_equal(b.weight.asnumpy(), a.weight.asnumpy())
    before = b.bias.asnumpy().copy()
    bad = OrderedDict(weight=Tensor(np.zeros((3, 3), np.float32)), bias=Tensor(np.ones(2)))
    with pytest.raises(RuntimeError, match="size mismatch"):
        b.load_state_dict(bad)
    np.testing.assert_array_equal(b.bias.asnumpy(), before)  # nothing half-loaded
    with pytest.raises(RuntimeError, match="Missing"):
        b.load_state_dict({"weight": sd["weight"]})


def test_to_float_computes_in_float16_and_keeps_parameters():
    net = nn.Dense(2, 2).to_float(ms.float16)
    out = net(Tensor(np.ones((1, 2), np.float32)))
    assert out.dtype == ms.float16 and net.weight.dtype == ms.float32
    g = ms.grad(lambda x: net(x).sum(), None, net.weight)(Tensor(np.ones((1, 2), np.float32)))
    assert g.dtype == ms.float32


def test_containers():
    seq = nn.SequentialCell(OrderedDict([("fc", nn.Dense(2, 2)), ("act", nn.ReLU())]))
    assert [p.name for p in seq.get_parameters()] == ["fc.weight", "fc.bias"]
    lst = nn.CellList([nn.Dense(2, 2)])
    lst.append(nn.Dense(2, 1))
    lst.insert(0, nn.ReLU())
    assert len(lst) == 3 and [p.name for p in lst.get_parameters()] == [
        "1.weight", "1.bias", "2.weight", "2.bias"]
    d = nn.CellDict({"a": nn.Dense(2, 2)})
    d["b"] = nn.ReLU()
    assert list(d.keys()) == ["a", "b"] and [p.name for p in d.get_parameters()] == [
        "a.weight", "a.bias"]
    s = nn.SequentialCell(nn.Dense(2, 2))
    s.append(nn.ReLU())
    assert len(s) == 2 and isinstance(s[0], nn.Dense) and isinstance(s[0:1], nn.SequentialCell)
    with pytest.raises(TypeError, match="Cell"):
        nn.SequentialCell([1])


def test_small_cnn_learns():
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    # Two classes: a bright blob in the top-left or the bottom-right quarter.
    x = rng.random((64, 1, 8, 8)).astype(np.float32) * 0.2
    y = rng.integers(0, 2, 64)
    for i, c in enumerate(y):
        sl = (slice(0, 4), slice(0, 4)) if c == 0 else (slice(4, 8), slice(4, 8))
        x[i, 0][sl] += 1.0
    net = nn.SequentialCell([nn.Conv2d(1, 4, 3, has_bias=True), nn.ReLU(), nn.MaxPool2d(2, 2),
                             nn.Flatten(), nn.Dense(64, 2)])
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    xs, ys = Tensor(x), Tensor(y.astype(np.int32))

    def forward(a, b):
        return ops.cross_entropy(net(a), b)
    step = ms.value_and_grad(forward, None, opt.parameters)
    first = float(step(xs, ys)[0])
    for _ in range(40):
        loss, grads = step(xs, ys)
        opt(grads)
    assert float(loss) < first * 0.3
    assert (net(xs).asnumpy().argmax(1) == y).mean() > 0.95
