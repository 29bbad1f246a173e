"""`amp.auto_mixed_precision`, `amp.custom_mixed_precision` and the white/black lists
(docs/amp.md): outputs against MindSpore 2.10 (tests/data/mindspore_amp.npz, made by
tests/data/make_mindspore_amp.py), which cells compute in float16, float32 master gradients, O2
training with a DynamicLossScaler, agreement with `Model(amp_level=...)`, repeated calls and bad
arguments."""
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, amp, nn, ops
from minispore import train as T

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_amp.npz"))
W = {k[len("param:"):]: FIXTURE[k] for k in FIXTURE.files if k.startswith("param:")}
X = Tensor(FIXTURE["x"])

MS_WHITE = ["Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose",
            "Dense", "LSTMCell", "RNNCell", "GRUCell", "Conv2D", "Conv3D", "Conv2DTranspose",
            "Conv3DTranspose", "Conv2DBackpropInput", "MatMul", "BatchMatMul", "PReLU", "ReLU",
            "Ger"]
MS_BLACK = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm"]


class Net(nn.Cell):
    """The fixture's network: Dense, BatchNorm1d, ReLU, a MatMul primitive attribute, a
    functional exp, Dense."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.relu = nn.ReLU()
        self.mm = ops.MatMul()
        self.w = Parameter(Tensor(np.zeros((8, 6), np.float32)), name="w")
        self.fc2 = nn.Dense(6, 3)

    def construct(self, x):
        h = self.relu(self.bn(self.fc1(x)))
        h = ops.exp(0.1 * self.mm(h, self.w))
        return self.fc2(h)


def make():
    net = Net()
    for p in net.get_parameters():
        p.set_data(Tensor(W[p.name]))
    return net


def make_layers():
    """The fixture's network of built-in layers only."""
    net = nn.SequentialCell([nn.Dense(4, 8), nn.BatchNorm1d(8), nn.ReLU(),
                             nn.Dense(8, 6, has_bias=False)])
    source = {"0.weight": "fc1.weight", "0.bias": "fc1.bias", "1.moving_mean": "bn.moving_mean",
              "1.moving_variance": "bn.moving_variance", "1.gamma": "bn.gamma",
              "1.beta": "bn.beta"}
    for p in net.get_parameters():
        p.set_data(Tensor(W[source[p.name]] if p.name in source else W["w"].T))
    return net


def fp16_ulps(got, want):
    """|got - want| in float16 units in the last place of `want`."""
    return np.abs(got - want) / np.spacing(np.abs(want).astype(np.float16)).astype(np.float32)


def test_lists_are_mindspores_as_far_as_minispore_has_the_classes():
    white, black = amp.get_white_list(), amp.get_black_list()
    names = [c.__name__ for c in white]
    # ops.Conv2DTranspose is Conv2DBackpropInput here, as in MindSpore's old API
    assert [n for n in names if n != "Conv2DBackpropInput"] == \
        [n for n in MS_WHITE if n in names and n not in ("Conv2DBackpropInput",
                                                          "Conv2DTranspose")]
    assert {"Dense", "Conv2d", "MatMul", "BatchMatMul", "ReLU", "Conv2D"} <= set(names)
    assert [c.__name__ for c in black] == [n for n in MS_BLACK if hasattr(nn, n)]
    white.append(nn.Flatten)
    black.clear()
    assert nn.Flatten not in amp.get_white_list() and amp.get_black_list()


@pytest.mark.parametrize("level", ["O0", "O1", "O2", "O3"])
def test_levels_match_mindspore(level):
    net = make()
    params = net.get_parameters()
    names = [p.name for p in params]
    out = amp.auto_mixed_precision(net, level)(X)
    assert out.dtype == ms.float32 and str(FIXTURE[level + ":dtype"]) == "Float32"
    if level in ("O0", "O1"):
        np.testing.assert_allclose(out.asnumpy(), FIXTURE[level], rtol=0, atol=1e-6)
    elif level == "O2":  # every op of a to_float cell computes in float16, self.mm(h, self.w) too
        np.testing.assert_array_equal(out.asnumpy(), FIXTURE[level])
    else:  # MindSpore's float16 BatchNorm kernel rounds once, ours per step
        assert fp16_ulps(out.asnumpy(), FIXTURE[level]).max() <= 4
    assert [p.name for p in net.get_parameters()] == names
    assert all(a is b and a.dtype == ms.float32 for a, b in zip(net.get_parameters(), params))


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_layer_networks_match_mindspore(level):
    out = amp.auto_mixed_precision(make_layers(), level)(X).asnumpy()
    want = FIXTURE["layers:" + level]
    assert not np.array_equal(want, make_layers()(X).asnumpy())  # float16 shows
    if level == "O3":  # MindSpore's float16 BatchNorm kernel rounds once, ours per step
        assert fp16_ulps(out, want).max() <= 8
    else:
        np.testing.assert_array_equal(out, want)


def test_custom_mixed_precision_matches_mindspore():
    out = amp.custom_mixed_precision(make(), white_list=[nn.Dense])(X)
    np.testing.assert_array_equal(out.asnumpy(), FIXTURE["custom_white_dense"])
    out = amp.custom_mixed_precision(make(), black_list=amp.get_black_list())(X)
    assert out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), FIXTURE["custom_black"])


def test_every_op_of_a_to_float_cell_computes_in_its_dtype():
    # as in MindSpore: a parameter used directly, a float32 constant and a functional op are
    # all cast; gradients reach the float32 parameter in float32; explicit casts are kept
    seen = []

    class Custom(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.full((3, 3), 0.1, np.float32)), name="w")

        def construct(self, x):
            h = ops.matmul(x, self.w)
            k = h + Tensor(np.ones(3, np.float32))
            e = ops.exp(k) * 2.0
            seen.extend([h.dtype, k.dtype, e.dtype, e.astype(ms.float32).dtype])
            return e

    cell = Custom().to_float(ms.float16)
    x = Tensor(np.ones((2, 3), np.float32))
    assert cell(x).dtype == ms.float16
    assert seen == [ms.float16, ms.float16, ms.float16, ms.float32]
    g = ms.grad(lambda v: cell(v).astype(ms.float32).sum(), None, cell.w)(x)
    assert g.dtype == ms.float32
    # d/dw_kj of sum_ij 2 exp((x @ w)_ij + 1), x all ones over 2 rows: 4 exp(1.3)
    np.testing.assert_allclose(g.asnumpy(), np.full((3, 3), 4 * np.exp(1.3)), rtol=2e-3)
    seen.clear()
    cell(x)  # outside the cell nothing is cast
    assert (Tensor(np.ones(2, np.float32)) * Tensor(np.ones(2, np.float32))).dtype == ms.float32


def _spy(cells):
    """Records (name, input dtype, output dtype) of each cell's construct, which sees the
    inputs as cast for it."""
    seen = []
    for name, cell in cells.items():
        def spy(x, name=name, construct=cell.construct):
            out = construct(x)
            seen.append((name, x.dtype, out.dtype))
            return out
        cell.construct = spy
    return seen


def test_which_cells_compute_in_float16():
    f16, f32 = ms.float16, ms.float32
    net = make()
    seen = _spy({"fc1": net.fc1, "bn": net.bn, "relu": net.relu, "fc2": net.fc2})
    amp.auto_mixed_precision(net, "O1")(X)
    # Dense (white) computes in float16 and hands float32 on; BatchNorm, ReLU cell's
    # primitive is white-listed in MindSpore, so nn.ReLU computes in float16 too
    assert seen == [("fc1", f16, f16), ("bn", f32, f32), ("relu", f16, f16), ("fc2", f16, f16)]
    assert net.mm(Tensor(np.ones((1, 8), np.float32)), net.w).dtype == f32

    net = make()
    seen = _spy({"fc1": net.fc1, "bn": net.bn, "relu": net.relu, "fc2": net.fc2})
    out = amp.auto_mixed_precision(net, "O2")(X)
    assert seen == [("fc1", f16, f16), ("bn", f32, f32), ("relu", f16, f16), ("fc2", f16, f16)]
    assert out.dtype == f32

    net = make()
    seen = _spy({"fc1": net.fc1, "bn": net.bn})
    amp.auto_mixed_precision(net, "O3")(X)
    assert seen == [("fc1", f16, f16), ("bn", f16, f16)]


def test_o1_keeps_user_precision_and_shares_wrappers():
    dense = nn.Dense(4, 4)

    class Shared(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = dense
            self.b = dense
            self.keep = nn.Dense(4, 2).to_float(ms.float32)

        def construct(self, x):
            return self.keep(self.b(self.a(x)))

    net = amp.auto_mixed_precision(Shared(), "O1")
    assert net.a is net.b and net.a._backbone is dense
    assert net.keep._compute_dtype == ms.float32 and isinstance(net.keep, nn.Dense)
    assert [p.name for p in net.get_parameters()] == ["b.weight", "b.bias", "keep.weight",
                                                     "keep.bias"]
    # a white-listed network is itself wrapped
    lone = amp.auto_mixed_precision(nn.Dense(4, 2), "O1")
    assert lone(X).dtype == ms.float32 and [p.name for p in lone.get_parameters()] == \
        ["weight", "bias"]


def test_master_gradients_are_float32_and_flow_through_the_casts():
    ms.set_seed(3)
    ref = make()
    expect = ms.grad(lambda x: ref(x).sum(), 0, ref.trainable_params())(X)
    for level in ("O1", "O2", "O3"):
        net = make()
        amp_net = amp.auto_mixed_precision(net, level)
        dx, grads = ms.grad(lambda x, n=amp_net: n(x).sum(), 0, net.trainable_params())(X)
        assert dx.dtype == ms.float32 and all(g.dtype == ms.float32 for g in grads)
        for g, e, p in zip((dx,) + grads, (expect[0],) + expect[1], [None] +
                           net.trainable_params()):
            assert np.abs(g.asnumpy()).max() > 0, (level, p)
            np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=2e-2, atol=2e-2)


class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 32)
        self.bn = nn.BatchNorm1d(32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(32, 2)

    def construct(self, x):
        return self.fc2(self.relu(self.bn(self.fc1(x))))


def _blobs(n=128, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5, 1.5]) > 0).astype(np.int32)
    return Tensor(x), Tensor(y)


def test_o2_training_with_dynamic_loss_scaler_loss_falls():
    ms.set_seed(0)
    x, y = _blobs()
    net = amp.auto_mixed_precision(_Mlp(), "O2")
    net.set_train()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    scaler = amp.DynamicLossScaler(scale_value=2.0 ** 24, scale_factor=2, scale_window=20)

    def forward(x, y):
        loss = loss_fn(net(x), y)
        return scaler.scale(loss), loss

    grad_fn = ms.value_and_grad(forward, None, opt.parameters, has_aux=True)
    losses, skipped = [], 0
    for _ in range(60):
        (_, loss), grads = grad_fn(x, y)
        finite = amp.all_finite(grads)
        if finite:
            opt(scaler.unscale(grads))
        else:
            skipped += 1
        scaler.adjust(finite)
        losses.append(float(loss.asnumpy()))
    # 2**24 overflows float16 gradients: those steps were skipped and the scale came down
    assert skipped >= 1 and float(scaler.scale_value.asnumpy()) < 2.0 ** 24
    assert all(p.dtype == ms.float32 for p in net.trainable_params())
    assert np.mean(losses[-5:]) < 0.5 * losses[0]


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_model_amp_level_agrees_with_auto_mixed_precision(level):
    x, y = _blobs(16)
    ms.set_seed(5)
    net_model = _Mlp()
    ms.set_seed(5)
    net_amp = _Mlp()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = T.Model(net_model, loss, nn.SGD(net_model.trainable_params(), 0.1),
                    amp_level=level, loss_scale_manager=None)
    converted = amp.auto_mixed_precision(net_amp, level)
    # Model leaves O2/O3 outputs float16 (its loss cell casts); the values are the same
    predicted = model.predict(x)
    assert predicted.dtype == (ms.float32 if level == "O1" else ms.float16)
    np.testing.assert_array_equal(predicted.asnumpy().astype(np.float32),
                                  converted(x).asnumpy())
    # one training step of each gives the same parameters
    model.train_network.set_train()(x, y)
    opt = nn.SGD(net_amp.trainable_params(), 0.1)
    nn.TrainOneStepCell(nn.WithLossCell(converted, loss), opt).set_train()(x, y)
    for a, b in zip(net_model.trainable_params(), net_amp.trainable_params()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_build_train_network_on_a_converted_network_computes_the_loss_in_float32():
    x, y = _blobs(8)
    net = amp.auto_mixed_precision(_Mlp(), "O2")
    train = amp.build_train_network(net, nn.SGD(net.trainable_params(), 0.1),
                                    nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                     reduction="mean"))
    assert type(train.network).__name__ == "_AmpWithLossCell"
    assert train(x, y).dtype == ms.float32


def _structure(net):
    return [(name, type(cell).__name__) for name, cell in net.cells_and_names()]


def test_second_call_warns_and_does_not_nest_wrappers():
    once = amp.auto_mixed_precision(make(), "O2")
    shape = _structure(once)
    expect = once(X).asnumpy()
    with pytest.warns(RuntimeWarning, match="'O2' to 'O2'"):
        twice = amp.auto_mixed_precision(once, "O2")
    assert twice is once and _structure(twice) == shape
    np.testing.assert_array_equal(twice(X).asnumpy(), expect)
    assert amp.auto_mixed_precision(twice, "O0") is twice and twice._amp_level == "O2"
    with pytest.warns(RuntimeWarning, match="'O2' to 'O3'"):
        o3 = amp.auto_mixed_precision(twice, "O3")
    assert o3._amp_level == "O3" and _structure(o3) == shape
    seen = _spy({"bn": o3._backbone.bn._backbone})
    o3(X)
    assert seen[0][1] == ms.float16  # O3 on top: BatchNorm now float16 too

    o1 = amp.auto_mixed_precision(make(), "O1")
    shape = _structure(o1)
    with pytest.warns(RuntimeWarning):
        again = amp.auto_mixed_precision(o1, "O1")
    assert _structure(again) == shape and type(again.mm).__name__ == "_CastPrimitive"
    assert type(again.mm.primitive).__name__ == "MatMul"


def _untouched(net):
    return all(c._compute_dtype is None for _, c in net.cells_and_names()) and \
        "_amp_level" not in net.__dict__ and type(net.mm).__name__ == "MatMul"


def test_bad_arguments_are_clear_errors_and_change_nothing():
    net = make()
    for level in ("o1", "O4", None, 1, ""):
        with pytest.raises(ValueError, match=f"auto_mixed_precision.*amp_level.*{level!r}"):
            amp.auto_mixed_precision(net, level)
    with pytest.raises(TypeError, match="auto_mixed_precision.*network.*function"):
        amp.auto_mixed_precision(lambda x: x, "O2")
    with pytest.raises(ValueError, match="auto_mixed_precision.*dtype.*float32"):
        amp.auto_mixed_precision(net, "O2", ms.float32)
    with pytest.raises(TypeError, match="auto_mixed_precision.*bfloat16"):
        amp.auto_mixed_precision(net, "O2", ms.bfloat16)
    owner = "custom_mixed_precision"
    cases = [({}, ValueError, "one of"), ({"white_list": [nn.Dense], "black_list": []},
                                          ValueError, "both"),
             ({"white_list": (nn.Dense,)}, TypeError, "'white_list' must be a list.*tuple"),
             ({"white_list": [3]}, TypeError, "must be a class, but got 3"),
             ({"white_list": [int]}, TypeError, "Cell or Primitive subclass, but got int"),
             ({"black_list": [ops.MatMul]}, TypeError, "'black_list'.*Cell subclass.*MatMul"),
             ({"white_list": [nn.Dense], "dtype": ms.float32}, ValueError, "dtype")]
    for kwargs, error, message in cases:
        with pytest.raises(error, match=f"{owner}.*{message}"):
            amp.custom_mixed_precision(net, **kwargs)
    with pytest.raises(TypeError, match=f"{owner}.*network"):
        amp.custom_mixed_precision([nn.Dense(2, 2)], white_list=[nn.Dense])
    assert _untouched(net)
    np.testing.assert_allclose(net(X).asnumpy(), FIXTURE["O0"], rtol=0, atol=1e-6)


def test_auto_level_casts_per_primitive_as_mindspore():
    # MindSpore 2.10 (CPU) prints matmul Float16, exp Float32, add Float16, softmax Float32,
    # relu Float16 and returns the network itself
    seen = {}

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.mm = ops.MatMul()
            self.w = Parameter(Tensor(np.full((3, 3), 0.1, np.float32)), name="w")
            self.ln = nn.LayerNorm((3,))

        def construct(self, x):
            m = self.mm(x, self.w)
            seen["matmul"], seen["ops.matmul"] = m.dtype, ops.matmul(x, self.w).dtype
            e = ops.exp(m)
            a = m + 1.0
            seen.update(exp=e.dtype, add=a.dtype, softmax=ops.softmax(m).dtype,
                        relu=ops.relu(m).dtype, layernorm=self.ln(m).dtype,
                        concat=ops.concat((e, a)).dtype)
            return e + a

    net = Net()
    assert amp.auto_mixed_precision(net, "auto") is net
    x = Tensor(np.ones((2, 3), np.float32))
    out = net(x)
    f16, f32 = ms.float16, ms.float32
    assert seen == {"matmul": f16, "ops.matmul": f16, "exp": f32, "add": f16, "softmax": f32,
                    "relu": f16, "layernorm": f32, "concat": f32}
    assert out.dtype == f32
    m = np.ones((2, 3), np.float16) @ np.full((3, 3), 0.1, np.float16)
    want = np.exp(m.astype(np.float32)) + (m + np.float16(1)).astype(np.float32)
    np.testing.assert_array_equal(out.asnumpy(), want)
    grads = ms.grad(lambda v: net(v).sum(), None, net.trainable_params())(x)
    assert [g.dtype for g in grads] == [f32, f32, f32]
    # outside the network nothing is cast
    assert ops.matmul(x, net.w).dtype == f32


def test_model_and_build_train_network_take_the_auto_level():
    ms.set_seed(1)
    data = np.random.default_rng(0).standard_normal((64, 4)).astype(np.float32)
    labels = (data.sum(1) > 0).astype(np.int32)
    net = nn.SequentialCell([nn.Dense(4, 16), nn.ReLU(), nn.Dense(16, 2)])
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = amp.build_train_network(
        net, opt, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), level="auto")
    assert net.__dict__["_amp_level"] == "auto"
    losses = [float(step(Tensor(data), Tensor(labels)).asnumpy()) for _ in range(30)]
    assert losses[-1] < 0.5 * losses[0]
    assert all(p.dtype == ms.float32 for p in net.trainable_params())
    model = ms.Model(nn.Dense(4, 2), nn.SoftmaxCrossEntropyWithLogits(sparse=True),
                     nn.SGD(nn.Dense(4, 2).trainable_params()), amp_level="auto")
    assert model is not None


@pytest.mark.parametrize("level", ["O1", "O2", "O3", "auto"])
def test_a_small_cnn_trains_at_every_level(level):
    # conv, BatchNorm, ReLU, pooling and Dense under each level: float32 master weights, a
    # falling loss (the convolution's patches are made from its cast input under 'auto')
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((16, 1, 12, 12)).astype(np.float32))
    y = Tensor(rng.integers(0, 3, 16).astype(np.int32))
    net = nn.SequentialCell([nn.Conv2d(1, 4, 3, has_bias=True), nn.BatchNorm2d(4), nn.ReLU(),
                             nn.MaxPool2d(2, 2), nn.Conv2d(4, 4, 3), nn.Flatten(),
                             nn.Dense(4 * 6 * 6, 3)])
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    step = amp.build_train_network(
        net, opt, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), level=level,
        loss_scale_manager=None)
    losses = [float(step(x, y).asnumpy()) for _ in range(12)]
    assert losses[-1] < 0.7 * losses[0], losses
    assert all(p.dtype == ms.float32 for p in opt.parameters)
