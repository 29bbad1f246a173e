"""RNN, LSTM, GRU and their cells: outputs equal MindSpore 2.10's, MindSpore's parameter names and
output structures, seq_length semantics, gradients against central differences, dropout modes,
errors, and an LSTM that learns.

The `case_*` builders take `nn` and `Tensor` as arguments and run unchanged against MindSpore 2.10
(its `nn` and `Tensor`): that is how the numbers in REFERENCE were made. Weights and inputs come
from `fill`, a fixed formula, so both sides see the same values.
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.testing import check_grads

from ..helpers.fixed_weights import fill, load


# ---- case builders (also run against MindSpore) --------------------------------------------------

def case_lstm_bi2(nn, Tensor):
    net = load(nn.LSTM(2, 3, num_layers=2, bidirectional=True), Tensor)
    out, (h, c) = net(Tensor(fill((3, 2, 2), 50, 1.5)))
    return [out, h, c]


def case_gru_bf_hx(nn, Tensor):
    net = load(nn.GRU(2, 3, batch_first=True), Tensor)
    out, h = net(Tensor(fill((2, 3, 2), 51, 1.5)), Tensor(fill((1, 2, 3), 52)))
    return [out, h]


def case_rnn_relu2(nn, Tensor):
    net = load(nn.RNN(2, 3, num_layers=2, nonlinearity="relu", has_bias=False), Tensor)
    out, h = net(Tensor(fill((3, 2, 2), 53, 1.5)))
    return [out, h]


def case_rnn_tanh(nn, Tensor):
    net = load(nn.RNN(2, 3), Tensor)
    out, h = net(Tensor(fill((3, 2, 2), 54, 1.5)))
    return [out, h]


def case_lstm_bi_seqlen(nn, Tensor):
    net = load(nn.LSTM(2, 3, bidirectional=True), Tensor)
    out, (h, c) = net(Tensor(fill((4, 2, 2), 55, 1.5)),
                      seq_length=Tensor(np.array([2, 4], np.int32)))
    return [out, h, c]


def case_gru_bi_seqlen(nn, Tensor):
    net = load(nn.GRU(2, 3, bidirectional=True, batch_first=True), Tensor)
    out, h = net(Tensor(fill((2, 4, 2), 56, 1.5)), seq_length=Tensor(np.array([2, 4], np.int32)))
    return [out, h]


def case_lstmcell(nn, Tensor):
    cell = load(nn.LSTMCell(2, 3), Tensor)
    return list(cell(Tensor(fill((2, 2), 57, 1.5)),
                     (Tensor(fill((2, 3), 58)), Tensor(fill((2, 3), 59)))))


def case_grucell(nn, Tensor):
    cell = load(nn.GRUCell(2, 3), Tensor)
    return [cell(Tensor(fill((2, 2), 60, 1.5)), Tensor(fill((2, 3), 61)))]


def case_rnncell_relu(nn, Tensor):
    cell = load(nn.RNNCell(2, 3, nonlinearity="relu"), Tensor)
    return [cell(Tensor(fill((2, 2), 62, 1.5)), Tensor(fill((2, 3), 63)))]


# MindSpore 2.10 (CPU) outputs of the builders above: per output, (shape, flat values).
REFERENCE = {
    "lstm_bi2": [
        ((3, 2, 6), [-0.1307838, -0.2466245, -0.2673474, -0.3756749, 0.191663, 0.1639209,
         -0.135005, -0.2347929, -0.2673786, -0.3593447, 0.149377, 0.2370118, -0.1938074,
         -0.3544554, -0.3449492, -0.3463031, 0.1079363, 0.1781807, -0.2071038, -0.3464897,
         -0.3418161, -0.3492825, 0.1167018, 0.1771974, -0.2513728, -0.4091173, -0.3661824,
         -0.272621, 0.04986804, 0.09361845, -0.2282587, -0.3879225, -0.3722166, -0.2729573,
         0.00572988, 0.1664703]),
        ((4, 2, 3), [0.2354894, 0.03804154, -0.02370478, 0.1265698, 0.1098473, 0.04467677,
         -0.06452322, -0.1356803, -0.1955947, 0.009192962, 0.01366428, -0.4943735, -0.2513728,
         -0.4091173, -0.3661824, -0.2282587, -0.3879225, -0.3722166, -0.3756749, 0.191663,
         0.1639209, -0.3593447, 0.149377, 0.2370118]),
        ((4, 2, 3), [0.5013317, 0.06027652, -0.08029753, 0.394098, 0.3514297, 0.1344586,
         -0.1487072, -0.3202311, -0.6366126, 0.06884247, 0.03485464, -0.8153763, -0.6156031,
         -0.6456724, -0.6882471, -0.6189162, -0.5770829, -0.6860676, -0.7160031, 0.2535029,
         0.2839993, -0.7068875, 0.1996132, 0.3945525]),
    ],
    "gru_bf_hx": [
        ((2, 3, 3), [-0.3017702, 0.1812113, 0.4379888, -0.3102174, 0.5002338, 0.7228379,
         0.383489, 0.1528669, 0.6128215, 0.8150837, -0.2119177, 0.2709265, 0.7396325, 0.2730021,
         0.28081, 0.5584933, 0.5945562, 0.7350979]),
        ((1, 2, 3), [0.383489, 0.1528669, 0.6128215, 0.5584933, 0.5945562, 0.7350979]),
    ],
    "rnn_relu2": [
        ((3, 2, 3), [0.1740275, 0, 0, 0.8126427, 0, 0, 0.06184999, 0, 0.1639074, 0, 0,
         0.6251121, 0, 0.03802161, 0.03950708, 0.2681029, 0, 0]),
        ((2, 2, 3), [0, 0, 0.05418767, 0.1483752, 0.8865587, 0.251188, 0, 0.03802161,
         0.03950708, 0.2681029, 0, 0]),
    ],
    "rnn_tanh": [
        ((3, 2, 3), [0.3679004, 0.6109667, -0.6801769, -0.1066727, -0.1514359, -0.5578856,
         -0.2502722, -0.9323749, -0.7839359, -0.436221, -0.7753844, -0.7801814, -0.3514904,
         0.7985914, -0.7741767, -0.4831361, 0.8596088, -0.6331085]),
        ((1, 2, 3), [-0.3514904, 0.7985914, -0.7741767, -0.4831361, 0.8596088, -0.6331085]),
    ],
    "lstm_bi_seqlen": [
        ((4, 2, 6), [0.05339702, -0.1981017, -0.1997571, -0.155413, -0.0429788, 0.05356751,
         -0.1067388, 0.04498491, 0.2199471, -0.02665983, 0.2212385, -0.1582836, -0.1211568,
         -0.02789816, 0.0761503, 0.0322321, 0.1747025, 0.03535385, -0.04666634, -0.299777,
         -0.02864155, -0.3204267, -0.07216847, 0.05853308, 0, 0, 0, 0, 0, 0, -0.08876568,
         -0.0477283, -0.02027672, 0.01192538, 0.145094, 0.00152195, 0, 0, 0, 0, 0, 0, -0.1765795,
         -0.1129615, -0.02064821, -0.07758895, 0.03849167, 0.08918145]),
        ((2, 2, 3), [-0.1211568, -0.02789816, 0.0761503, -0.1765795, -0.1129615, -0.02064821,
         -0.155413, -0.0429788, 0.05356751, -0.02665983, 0.2212385, -0.1582836]),
        ((2, 2, 3), [-0.2529407, -0.08059438, 0.1532333, -0.3326314, -0.2083649, -0.04057623,
         -0.2375224, -0.07036836, 0.1308796, -0.08027197, 0.4079461, -0.221185]),
    ],
    "gru_bi_seqlen": [
        ((2, 4, 6), [-0.1295871, 0.1919311, 0.3749319, 0.1446609, 0.5854485, -0.1354862,
         -0.2900724, 0.2195788, 0.5598689, 0.04671193, 0.4561701, -0.06072795, 0, 0, 0, 0, 0, 0,
         0, 0, 0, 0, 0, 0, -0.05494285, 0.01659195, -0.07419926, -0.08335052, 0.2085387,
         -0.206902, -0.1762046, 0.208658, 0.5202462, -0.08617973, 0.5829425, -0.315872,
         -0.3084642, -0.01783282, 0.3404077, -0.357218, -0.08461271, -0.007957943, 0.2830805,
         -0.4314227, 0.03163373, -0.4886835, -0.2621573, 0.09692264]),
        ((2, 2, 3), [-0.2900724, 0.2195788, 0.5598689, 0.2830805, -0.4314227, 0.03163373,
         0.1446609, 0.5854485, -0.1354862, -0.08335052, 0.2085387, -0.206902]),
    ],
    "lstmcell": [
        ((2, 3), [0.1819884, 0.03393592, 0.1188276, 0.2836959, -0.03593964, -0.08498882]),
        ((2, 3), [0.4206471, 0.3035049, 0.3763493, 0.4887909, -0.07589816, -0.3785467]),
    ],
    "grucell": [
        ((2, 3), [0.3200755, 0.08571118, -0.2015315, -0.1722843, 0.5582684, 0.7465659]),
    ],
    "rnncell_relu": [
        ((2, 3), [0.07364677, 0, 0, 0.4714418, 0.2708834, 0]),
    ],
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_outputs_match_mindspore(name):
    outputs = globals()[f"case_{name}"](nn, Tensor)
    assert len(outputs) == len(REFERENCE[name])
    for got, (shape, values) in zip(outputs, REFERENCE[name]):
        assert got.shape == shape
        np.testing.assert_allclose(got.asnumpy().ravel(), values, rtol=1e-5, atol=1e-6)


# ---- names, shapes, structures -------------------------------------------------------------------

def test_parameter_names_shapes_and_order_are_mindspores():
    net = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    expected = []
    for kind, cols in (("weight_ih", None), ("weight_hh", 4), ("bias_ih", None),
                       ("bias_hh", None)):
        for layer in range(2):
            for suffix in ("", "_reverse"):
                shape = (16,) if kind.startswith("bias") else (16, cols or (3, 8)[layer])
                expected.append((f"{kind}_l{layer}{suffix}", shape))
    assert [(p.name, p.shape) for p in net.trainable_params()] == expected
    assert [n for n, _ in net.parameters_and_names()] == [n for n, _ in expected]


def test_nested_names_gate_sizes_and_no_bias():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(3, 4, has_bias=False)
    assert [(p.name, p.shape) for p in Net().trainable_params()] == [
        ("rnn.weight_ih_l0", (12, 3)), ("rnn.weight_hh_l0", (12, 4))]
    assert [p.shape for p in nn.RNN(3, 4).trainable_params()] == [(4, 3), (4, 4), (4,), (4,)]


@pytest.mark.parametrize("cell,gates", [(nn.RNNCell, 1), (nn.LSTMCell, 4), (nn.GRUCell, 3)])
def test_cell_parameter_names(cell, gates):
    assert [(p.name, p.shape) for p in cell(3, 4).trainable_params()] == [
        ("weight_ih", (gates * 4, 3)), ("weight_hh", (gates * 4, 4)), ("bias_ih", (gates * 4,)),
        ("bias_hh", (gates * 4,))]
    assert [p.name for p in cell(3, 4, has_bias=False).trainable_params()] == [
        "weight_ih", "weight_hh"]


@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU, nn.LSTM, nn.RNNCell, nn.GRUCell, nn.LSTMCell])
def test_default_init_is_uniform_in_one_over_sqrt_hidden_and_follows_set_seed(cls):
    ms.set_seed(5)
    first = [p.asnumpy() for p in cls(3, 16).trainable_params()]
    ms.set_seed(5)
    again = [p.asnumpy() for p in cls(3, 16).trainable_params()]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == np.float32 and np.abs(a).max() <= 0.25 and np.abs(a).max() > 0.2


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU, nn.LSTM])
def test_output_structures_and_shapes(cls, bidirectional, batch_first):
    net = cls(3, 4, num_layers=2, bidirectional=bidirectional, batch_first=batch_first)
    x = Tensor(fill((2, 5, 3) if batch_first else (5, 2, 3), 1))
    d = 2 if bidirectional else 1
    out, state = net(x)
    assert out.shape == ((2, 5, 4 * d) if batch_first else (5, 2, 4 * d))
    if cls is nn.LSTM:
        assert isinstance(state, tuple) and len(state) == 2
        assert state[0].shape == state[1].shape == (2 * d, 2, 4)
    else:
        assert isinstance(state, Tensor) and state.shape == (2 * d, 2, 4)


def test_batch_first_is_a_transpose():
    ms.set_seed(0)
    seq_first = nn.GRU(3, 4, bidirectional=True)
    batch_first = nn.GRU(3, 4, bidirectional=True, batch_first=True)
    for a, b in zip(seq_first.trainable_params(), batch_first.trainable_params()):
        b.set_data(a)
    x = fill((5, 2, 3), 2)
    out_s, h_s = seq_first(Tensor(x))
    out_b, h_b = batch_first(Tensor(x.transpose(1, 0, 2)))
    np.testing.assert_allclose(out_b.asnumpy(), out_s.asnumpy().transpose(1, 0, 2), rtol=1e-6)
    np.testing.assert_allclose(h_b.asnumpy(), h_s.asnumpy(), rtol=1e-6)


def test_last_output_is_the_final_hidden_state_of_each_direction():
    net = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    out, (h, _) = net(Tensor(fill((5, 2, 3), 3)))
    out = out.asnumpy()
    np.testing.assert_allclose(h.asnumpy()[2], out[-1, :, :4], rtol=1e-6)  # layer 1 forward
    np.testing.assert_allclose(h.asnumpy()[3], out[0, :, 4:], rtol=1e-6)  # layer 1 reverse


def test_initial_state_is_used_and_zeros_equal_the_default():
    net = nn.LSTM(3, 4, num_layers=2)
    x = Tensor(fill((5, 2, 3), 4))
    zeros = Tensor(np.zeros((2, 2, 4), np.float32))
    out_default, _ = net(x)
    out_zeros, _ = net(x, (zeros, zeros))
    out_given, _ = net(x, (Tensor(fill((2, 2, 4), 5)), Tensor(fill((2, 2, 4), 6))))
    np.testing.assert_array_equal(out_default.asnumpy(), out_zeros.asnumpy())
    assert np.abs(out_given.asnumpy() - out_default.asnumpy()).max() > 1e-3


def test_cells_are_one_step_of_the_sequence_layers():
    ms.set_seed(1)
    for layer_cls, cell_cls in ((nn.RNN, nn.RNNCell), (nn.GRU, nn.GRUCell),
                                (nn.LSTM, nn.LSTMCell)):
        layer, cell = layer_cls(3, 4), cell_cls(3, 4)
        for a, b in zip(layer.trainable_params(), cell.trainable_params()):
            b.set_data(a)
        x, h = fill((2, 2, 3), 7), fill((2, 4), 8)
        if layer_cls is nn.LSTM:
            c = fill((2, 4), 9)
            _, (h_n, c_n) = layer(Tensor(x), (Tensor(h[None]), Tensor(c[None])))
            state = (Tensor(h), Tensor(c))
            for t in range(2):
                state = cell(Tensor(x[t]), state)
            np.testing.assert_allclose(state[1].asnumpy(), c_n.asnumpy()[0], rtol=1e-6)
            h_cell = state[0]
        else:
            _, h_n = layer(Tensor(x), Tensor(h[None]))
            h_cell = Tensor(h)
            for t in range(2):
                h_cell = cell(Tensor(x[t]), h_cell)
        np.testing.assert_allclose(h_cell.asnumpy(), h_n.asnumpy()[0], rtol=1e-6)


# ---- seq_length ----------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU, nn.LSTM])
def test_seq_length_equals_running_each_sequence_alone(cls):
    net = cls(3, 4, num_layers=2, bidirectional=True)
    x = fill((5, 3, 3), 10)
    lengths = [2, 5, 3]
    out, state = net(Tensor(x), seq_length=Tensor(np.array(lengths, np.int64)))
    h_n = state[0] if cls is nn.LSTM else state
    for b, n in enumerate(lengths):
        alone, alone_state = net(Tensor(x[:n, b:b + 1]))
        alone_h = alone_state[0] if cls is nn.LSTM else alone_state
        np.testing.assert_allclose(out.asnumpy()[:n, b], alone.asnumpy()[:, 0], rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_array_equal(out.asnumpy()[n:, b], 0)
        np.testing.assert_allclose(h_n.asnumpy()[:, b], alone_h.asnumpy()[:, 0], rtol=1e-5,
                                   atol=1e-6)


# ---- gradients -----------------------------------------------------------------------------------

def check_parameter_grads(net, loss, eps=1e-6, tol=1e-6):
    """d loss / d parameters against a central difference along one random direction."""
    params = net.trainable_params()
    _, grads = ms.value_and_grad(loss, None, params)()
    rng = np.random.default_rng(0)
    dirs = [rng.standard_normal(p.shape) for p in params]
    analytic = sum(float(np.sum(g.asnumpy() * d)) for g, d in zip(grads, dirs))
    base = [p.asnumpy().copy() for p in params]

    def loss_at(step):
        for p, b, d in zip(params, base, dirs):
            p.set_data(Tensor(b + step * d))
        return float(loss().asnumpy())

    numeric = (loss_at(eps) - loss_at(-eps)) / (2 * eps)
    loss_at(0.0)
    assert abs(analytic - numeric) <= tol * (1 + abs(numeric)), (analytic, numeric)


def f64(*arrays):
    return [Tensor(np.asarray(a, np.float64)) for a in arrays]


@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU, nn.LSTM])
def test_input_and_state_gradients(cls):
    net = cls(2, 3, num_layers=2, bidirectional=True, dtype=ms.float64)
    x, h, c = f64(fill((3, 2, 2), 11, 1.5), fill((4, 2, 3), 12), fill((4, 2, 3), 13))
    if cls is nn.LSTM:
        check_grads(lambda x, h, c: net(x, (h, c)), [x, h, c], order=1)
    else:
        check_grads(lambda x, h: net(x, h), [x, h], order=1)


@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU, nn.LSTM])
def test_second_order_gradients(cls):
    net = cls(2, 2, batch_first=True, dtype=ms.float64)
    check_grads(lambda x: net(x), f64(fill((2, 2, 2), 14, 1.5)), order=2)


@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU, nn.LSTM])
def test_parameter_gradients(cls):
    net = cls(2, 3, num_layers=2, bidirectional=True, dtype=ms.float64)
    x, = f64(fill((3, 2, 2), 15, 1.5))
    weights = Tensor(fill((3, 2, 6), 16).astype(np.float64))
    check_parameter_grads(net, lambda: (net(x)[0] * weights).sum())


def test_gradients_with_seq_length():
    net = nn.LSTM(2, 3, bidirectional=True, dtype=ms.float64)
    lengths = Tensor(np.array([1, 3], np.int32))
    check_grads(lambda x: net(x, seq_length=lengths), f64(fill((3, 2, 2), 17, 1.5)), order=1)
    x, = f64(fill((3, 2, 2), 17, 1.5))
    check_parameter_grads(net, lambda: net(x, seq_length=lengths)[1][0].sum())


@pytest.mark.parametrize("cls", [nn.RNNCell, nn.GRUCell, nn.LSTMCell])
def test_cell_gradients(cls):
    cell = cls(2, 3, dtype=ms.float64)
    x, h, c = f64(fill((2, 2), 18, 1.5), fill((2, 3), 19), fill((2, 3), 20))
    if cls is nn.LSTMCell:
        check_grads(lambda x, h, c: cell(x, (h, c)), [x, h, c], order=2)
        check_parameter_grads(cell, lambda: sum(t.sum() for t in cell(x, (h, c))))
    else:
        check_grads(cell, [x, h], order=2)
        check_parameter_grads(cell, lambda: (cell(x, h) ** 2).sum())


# ---- dtypes, dropout, training -------------------------------------------------------------------

def test_float64_input_runs_float32_weights_in_float64():
    net = nn.GRU(2, 3)
    out, h = net(Tensor(fill((3, 2, 2), 21).astype(np.float64)))
    assert out.dtype == ms.float64 and h.dtype == ms.float64
    out16, _ = net(Tensor(fill((3, 2, 2), 21).astype(np.float16)))
    assert out16.dtype == ms.float16
    np.testing.assert_allclose(out16.asnumpy(), out.asnumpy(), atol=3e-3)


def test_dropout_only_between_layers_and_only_in_training():
    ms.set_seed(3)
    net = nn.LSTM(3, 8, num_layers=2, dropout=0.5)
    x = Tensor(fill((4, 2, 3), 22))
    eval_out = net(x)[0].asnumpy()
    np.testing.assert_array_equal(net(x)[0].asnumpy(), eval_out)
    net.set_train()
    ms.set_seed(7)
    train_a = net(x)[0].asnumpy()
    train_b = net(x)[0].asnumpy()
    ms.set_seed(7)
    np.testing.assert_array_equal(net(x)[0].asnumpy(), train_a)
    assert np.abs(train_a - eval_out).max() > 1e-3 and np.abs(train_a - train_b).max() > 1e-3

    single = nn.GRU(3, 4, dropout=0.5)  # no layer after the only one: dropout never applies
    expected = single(x)[0].asnumpy()
    single.set_train()
    np.testing.assert_array_equal(single(x)[0].asnumpy(), expected)


def test_lstm_learns_to_recall_the_first_element():
    ms.set_seed(1)

    class Recall(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(1, 8, batch_first=True)
            self.head = nn.Dense(8, 1)

        def construct(self, x):
            _, (h, _) = self.lstm(x)
            return self.head(h[0])

    net = Recall()
    x = np.random.default_rng(0).uniform(-1, 1, (32, 5, 1)).astype(np.float32)
    y = Tensor(x[:, 0])
    x = Tensor(x)
    loss_fn = nn.MSELoss()
    optimizer = nn.Adam(net.trainable_params(), learning_rate=0.05)
    grad_fn = ms.value_and_grad(lambda: loss_fn(net(x), y), None, optimizer.parameters)
    net.set_train()
    losses = []
    for _ in range(60):
        loss, grads = grad_fn()
        optimizer(grads)
        losses.append(float(loss.asnumpy()))
    assert losses[-1] < 0.1 * losses[0]


# ---- errors --------------------------------------------------------------------------------------

@pytest.mark.parametrize("make,call,error,match", [
    (lambda: nn.LSTM(3, 4), lambda n: n(Tensor(np.ones((5, 3), np.float32))), ValueError,
     r"'LSTM'.*\(seq_len, batch_size, input_size=3\).*\(5, 3\)"),
    (lambda: nn.GRU(3, 4, batch_first=True), lambda n: n(Tensor(np.ones((2, 5, 4), np.float32))),
     ValueError, r"'GRU'.*\(batch_size, seq_len, input_size=3\).*\(2, 5, 4\)"),
    (lambda: nn.RNN(3, 4), lambda n: n(Tensor(np.ones((5, 2, 3), np.float32)),
                                       Tensor(np.zeros((2, 2, 4), np.float32))),
     ValueError, r"'RNN'.*'hx'.*\(1, 2, 4\).*\(2, 2, 4\)"),
    (lambda: nn.LSTM(3, 4), lambda n: n(Tensor(np.ones((5, 2, 3), np.float32)),
                                        Tensor(np.zeros((1, 2, 4), np.float32))),
     TypeError, r"'LSTM'.*'hx' must be a tuple"),
    (lambda: nn.LSTM(3, 4, bidirectional=True),
     lambda n: n(Tensor(np.ones((5, 2, 3), np.float32)),
                 (Tensor(np.zeros((2, 2, 4), np.float32)), Tensor(np.zeros((1, 2, 4),
                                                                           np.float32)))),
     ValueError, r"'LSTM'.*'hx\[1\]'.*\(2, 2, 4\).*\(1, 2, 4\)"),
    (lambda: nn.GRU(3, 4), lambda n: n(Tensor(np.ones((5, 2, 3), np.float32)),
                                       seq_length=Tensor(np.array([3, 3, 3], np.int32))),
     ValueError, r"'GRU'.*'seq_length'.*\(2,\).*\(3,\)"),
    (lambda: nn.GRU(3, 4), lambda n: n(Tensor(np.ones((5, 2, 3), np.float32)),
                                       seq_length=Tensor(np.array([3.0, 3.0], np.float32))),
     TypeError, r"'GRU'.*'seq_length'.*int32 or int64"),
    (lambda: nn.GRU(3, 4), lambda n: n(Tensor(np.ones((5, 2, 3), np.int32))), TypeError,
     r"'GRU'.*float"),
    (lambda: nn.GRUCell(3, 4), lambda n: n(Tensor(np.ones((2, 5), np.float32)),
                                           Tensor(np.zeros((2, 4), np.float32))),
     ValueError, r"'GRUCell'.*\(batch_size, input_size=3\).*\(2, 5\)"),
    (lambda: nn.RNNCell(3, 4), lambda n: n(Tensor(np.ones(3, np.float32)),
                                           Tensor(np.zeros(4, np.float32))),
     ValueError, r"'RNNCell'.*\(3,\)"),
    (lambda: nn.LSTMCell(3, 4), lambda n: n(Tensor(np.ones((2, 3), np.float32)),
                                            (Tensor(np.zeros((2, 4), np.float32)),
                                             Tensor(np.zeros((3, 4), np.float32)))),
     ValueError, r"'LSTMCell'.*'hx\[1\]'.*\(2, 4\).*\(3, 4\)"),
])
def test_wrong_inputs_raise_naming_the_layer_and_shapes(make, call, error, match):
    with pytest.raises(error, match=match):
        call(make())


@pytest.mark.parametrize("make,error,match", [
    (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError, r"'RNN'.*'nonlinearity'"),
    (lambda: nn.RNNCell(3, 4, nonlinearity="gelu"), ValueError, r"'RNNCell'.*'nonlinearity'"),
    (lambda: nn.LSTM(3, 4, dropout=1.0), ValueError, r"'LSTM'.*'dropout'.*\[0.0, 1.0\)"),
    (lambda: nn.GRU(0, 4), ValueError, r"'GRU'.*'input_size'"),
    (lambda: nn.LSTM(3, 4, num_layers=1.5), TypeError, r"'LSTM'.*'num_layers'"),
    (lambda: nn.RNN(3, 4, bidirectional=1), TypeError, r"'RNN'.*'bidirectional'"),
    (lambda: nn.LSTMCell(3, -1), ValueError, r"'LSTMCell'.*'hidden_size'"),
])
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_repr_names_the_configuration():
    assert repr(nn.LSTM(3, 4, num_layers=2, bidirectional=True)) == \
        "LSTM(input_size=3, hidden_size=4, num_layers=2, bidirectional=True)"
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == \
        "RNNCell(input_size=3, hidden_size=4, nonlinearity=relu)"
