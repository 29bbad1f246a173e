"""MultiheadAttention and the Transformer layers: outputs equal MindSpore 2.10's, MindSpore's
parameter names and return structures, masks (bool, uint8, float, fully masked rows), gradients
against central differences, dropout modes and errors.

The `case_*` builders take `nn` and `Tensor` as arguments and run unchanged against MindSpore 2.10
(its `nn` and `Tensor`): that is how the numbers in REFERENCE were made. Weights and inputs come
from `fill`, a fixed formula, so both sides see the same values.
"""
import copy

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.testing import check_grads

from ..helpers.fixed_weights import fill, load


def causal(n):
    return np.triu(np.ones((n, n), bool), 1)


# ---- case builders (also run against MindSpore) --------------------------------------------------

def case_mha_self(nn, Tensor):
    m = load(nn.MultiheadAttention(4, 2), Tensor)
    q = Tensor(fill((3, 2, 4), 70, 1.5))
    return list(m(q, q, q))


def case_mha_self_bool_masks(nn, Tensor):
    m = load(nn.MultiheadAttention(4, 2), Tensor)
    q = Tensor(fill((3, 2, 4), 70, 1.5))
    padding = Tensor(np.array([[False, False, True], [False, False, False]]))
    return list(m(q, q, q, key_padding_mask=padding, attn_mask=Tensor(causal(3)),
                  average_attn_weights=False))


def case_mha_self_float_mask(nn, Tensor):
    m = load(nn.MultiheadAttention(4, 2), Tensor)
    q = Tensor(fill((3, 2, 4), 70, 1.5))
    return list(m(q, q, q, attn_mask=Tensor(fill((4, 3, 3), 71))))


def case_mha_cross_kdim_vdim_bias_kv_zero_attn(nn, Tensor):
    m = load(nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True,
                                   batch_first=True), Tensor)
    q, k, v = (Tensor(fill((2, 3, 4), 72, 1.5)), Tensor(fill((2, 2, 3), 73, 1.5)),
               Tensor(fill((2, 2, 5), 74, 1.5)))
    return list(m(q, k, v, key_padding_mask=Tensor(np.array([[False, True], [False, False]]))))


def case_mha_unbatched_no_bias(nn, Tensor):
    m = load(nn.MultiheadAttention(4, 2, has_bias=False), Tensor)
    q, k = Tensor(fill((3, 4), 75, 1.5)), Tensor(fill((2, 4), 76, 1.5))
    return list(m(q, k, k))


def case_encoder_layer(nn, Tensor):
    layer = load(nn.TransformerEncoderLayer(4, 2, dim_feedforward=6), Tensor)
    return [layer(Tensor(fill((3, 2, 4), 77, 1.5)))]


def case_encoder_layer_norm_first_gelu(nn, Tensor):
    layer = load(nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, activation="gelu",
                                            norm_first=True, batch_first=True), Tensor)
    return [layer(Tensor(fill((2, 3, 4), 78, 1.5)))]


def case_encoder_two_layers_with_norm(nn, Tensor):
    encoder = load(nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, dim_feedforward=6), 2,
                                         norm=nn.LayerNorm((4,), epsilon=1e-5)), Tensor)
    padding = Tensor(np.array([[False, False, True], [False, False, False]]))
    return [encoder(Tensor(fill((3, 2, 4), 77, 1.5)), src_key_padding_mask=padding)]


def case_decoder_layer(nn, Tensor):
    layer = load(nn.TransformerDecoderLayer(4, 2, dim_feedforward=6), Tensor)
    tgt, memory = Tensor(fill((2, 2, 4), 79, 1.5)), Tensor(fill((3, 2, 4), 80, 1.5))
    return [layer(tgt, memory, tgt_mask=Tensor(causal(2)))]


def case_transformer(nn, Tensor):
    model = load(nn.Transformer(4, 2, 1, 1, 6), Tensor)
    src, tgt = Tensor(fill((3, 2, 4), 77, 1.5)), Tensor(fill((2, 2, 4), 79, 1.5))
    return [model(src, tgt, tgt_mask=Tensor(causal(2)))]


# MindSpore 2.10 (CPU) outputs of the builders above: per output, (shape, flat values).
REFERENCE = {
    "mha_self": [
        ((3, 2, 4), [-0.3856621, -0.6302779, -0.1229087, -0.5588417, -0.71293, -0.3746675,
         -0.2773245, -0.5234641, -0.344655, -0.6590364, -0.109722, -0.5549327, -0.7711833,
         -0.3219939, -0.3183317, -0.4988618, -0.2278549, -0.7789471, -0.000557065, -0.6407374,
         -0.9003892, -0.1857414, -0.445886, -0.3947453]),
        ((2, 3, 3), [0.05084253, 0.2331584, 0.715999, 0.04813623, 0.2193301, 0.7325336,
         0.1456207, 0.270011, 0.5843683, 0.06341061, 0.2845391, 0.6520503, 0.1081135, 0.2738642,
         0.6180222, 0.2455089, 0.2779464, 0.4765447]),
    ],
    "mha_self_bool_masks": [
        ((3, 2, 4), [-0.01843646, -1.085772, 0.3682189, -1.02885, -1.108125, 0.1401732,
         -0.8523184, 0.04523931, -0.1210512, -0.9432063, 0.2021768, -0.8585188, -0.9714324,
         -0.0516977, -0.6274408, -0.1866592, -0.06958714, -0.9987859, 0.2554491, -0.9033282,
         -0.9003892, -0.1857414, -0.445886, -0.3947453]),
        ((2, 2, 3, 3), [1, 0, 0, 0.191689, 0.8083111, 0, 0.4127719, 0.5872281, 0, 1, 0, 0,
         0.159261, 0.840739, 0, 0.2244718, 0.7755282, 0, 1, 0, 0, 0.3399903, 0.6600097, 0,
         0.424191, 0.3056304, 0.2701787, 1, 0, 0, 0.1046474, 0.8953525, 0, 0.06682681, 0.2502625,
         0.6829107]),
    ],
    "mha_self_float_mask": [
        ((3, 2, 4), [-0.398869, -0.6139705, -0.1404324, -0.5421268, -0.6888016, -0.3997156,
         -0.254251, -0.5418966, -0.3619072, -0.6402534, -0.1278654, -0.5395256, -0.7361398,
         -0.3564354, -0.288472, -0.5206894, -0.1703803, -0.8434814, 0.06357968, -0.6970652,
         -0.9675152, -0.1114855, -0.5186913, -0.3318038]),
        ((2, 3, 3), [0.04358108, 0.1987961, 0.7576228, 0.03312083, 0.2034183, 0.7634609,
         0.2130227, 0.3028706, 0.4841067, 0.05564918, 0.2480807, 0.6962702, 0.07995167,
         0.2672219, 0.6528264, 0.3218109, 0.2935848, 0.3846043]),
    ],
    "mha_cross_kdim_vdim_bias_kv_zero_attn": [
        ((2, 3, 4), [0.3495039, -0.2873877, -0.4335414, -0.3973251, 0.273547, -0.3207028,
         -0.2948039, -0.625453, 0.3130417, -0.3158221, -0.3434961, -0.5385759, -0.03616916,
         0.05136988, -0.6862381, -0.2598897, 0.3464485, -0.2776355, -0.4488634, -0.3782038,
         -0.08117603, -0.03517547, -0.4781412, -0.5654912]),
        ((2, 3, 4), [0.4746861, 0, 0.2297839, 0.29553, 0.2932817, 0, 0.3937401, 0.3129783,
         0.2885001, 0, 0.3307111, 0.3807887, 0.1260839, 0.3784943, 0.2600769, 0.2353449,
         0.414855, 0.07830738, 0.2611438, 0.2456938, 0.1130338, 0.5227258, 0.1811208,
         0.1831197]),
    ],
    "mha_unbatched_no_bias": [
        ((3, 4), [-0.3083396, 0.236268, -0.1368943, 0.02170181, 0.1648065, -0.1559204,
         0.1290168, -0.08720465, -0.3085384, 0.2417631, -0.1470509, 0.03534612]),
        ((3, 2), [0.01872223, 0.9812778, 0.9930602, 0.006939832, 0.00608949, 0.9939106]),
    ],
    "encoder_layer": [
        ((3, 2, 4), [0.716017, 0.4792852, -0.7896373, -0.2494603, 0.4252304, 0.2615817,
         -0.5464454, 0.1392598, 0.6969628, 0.5582801, -0.7987343, -0.2679818, 0.4743737,
         0.2372508, -0.6027243, 0.1210818, 0.6948845, 0.574661, -0.7972971, -0.2763344,
         0.5663872, 0.2655472, -0.7170369, 0.04577032]),
    ],
    "encoder_layer_norm_first_gelu": [
        ((2, 3, 4), [0.7516621, 1.470991, -0.2987323, -0.4639867, -1.152702, -1.637255,
         -2.653853, -1.463454, -0.1849613, 1.008681, 0.2420789, 0.3506194, -0.1133174,
         -0.8598456, -2.906295, -1.984834, -1.182766, 0.1312344, -0.0926441, 0.7798535,
         0.7729213, 0.1589932, -2.32061, -2.014591]),
    ],
    "encoder_two_layers_with_norm": [
        ((3, 2, 4), [0.5153829, 0.2147414, 0.5274957, 0.6368951, 0.4998016, 0.1844783,
         0.5561842, 0.6001053, 0.5108836, 0.2059322, 0.5335746, 0.6286806, 0.5050026, 0.1890002,
         0.5816465, 0.5878004, 0.5103986, 0.2050574, 0.5339054, 0.6279757, 0.5090877, 0.1920196,
         0.6095234, 0.5711327]),
    ],
    "decoder_layer": [
        ((2, 2, 4), [0.2155798, -0.08256575, -0.3460993, -0.2873479, 0.4495969, -0.1492683,
         -0.4104404, 0.04462051, 0.2294358, -0.1013082, -0.3392248, -0.3330799, 0.4407718,
         -0.1430424, -0.4050389, 0.02698791]),
    ],
    "transformer": [
        ((2, 2, 4), [-0.377757, -1.023959, 0.4663586, 0.5305106, -0.7433686, -0.7345451,
         0.636572, 0.5403256, -0.3927906, -1.018664, 0.4733706, 0.5327615, -0.6575025, -0.834444,
         0.6171051, 0.5401018]),
    ],
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_outputs_match_mindspore(name):
    outputs = globals()[f"case_{name}"](nn, Tensor)
    assert len(outputs) == len(REFERENCE[name])
    for got, (shape, values) in zip(outputs, REFERENCE[name]):
        assert got.shape == shape
        np.testing.assert_allclose(got.asnumpy().ravel(), values, rtol=1e-5, atol=1e-6)


# ---- names and structures ------------------------------------------------------------------------

def names_and_shapes(cell):
    return [(p.name, p.shape) for p in cell.trainable_params()]


def test_multihead_attention_parameter_names_are_mindspores():
    assert names_and_shapes(nn.MultiheadAttention(4, 2)) == [
        ("in_proj_weight", (12, 4)), ("in_proj_bias", (12,)), ("out_proj.weight", (4, 4)),
        ("out_proj.bias", (4,))]
    assert names_and_shapes(nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True)) == [
        ("q_proj_weight", (4, 4)), ("k_proj_weight", (4, 3)), ("v_proj_weight", (4, 5)),
        ("in_proj_bias", (12,)), ("bias_k", (1, 1, 4)), ("bias_v", (1, 1, 4)),
        ("out_proj.weight", (4, 4)), ("out_proj.bias", (4,))]
    assert names_and_shapes(nn.MultiheadAttention(4, 2, has_bias=False)) == [
        ("in_proj_weight", (12, 4)), ("out_proj.weight", (4, 4))]


def test_transformer_parameter_names_are_mindspores():
    layer_names = ["self_attn.in_proj_weight", "self_attn.in_proj_bias",
                   "self_attn.out_proj.weight", "self_attn.out_proj.bias", "dense1.weight",
                   "dense1.bias", "dense2.weight", "dense2.bias", "norm1.gamma", "norm1.beta",
                   "norm2.gamma", "norm2.beta"]
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=6)
    assert [p.name for p in layer.trainable_params()] == layer_names
    encoder = nn.TransformerEncoder(layer, 2)
    assert [p.name for p in encoder.trainable_params()] == \
        [f"layers.{i}.{n}" for i in range(2) for n in layer_names]
    decoder_names = (layer_names[:4] + [n.replace("self_attn", "multihead_attn")
                                        for n in layer_names[:4]]
                     + layer_names[4:] + ["norm3.gamma", "norm3.beta"])
    assert [p.name for p in nn.TransformerDecoderLayer(4, 2, 6).trainable_params()] == \
        decoder_names
    model = nn.Transformer(4, 2, 1, 1, 6)
    assert [p.name for p in model.trainable_params()] == (
        [f"encoder.layers.0.{n}" for n in layer_names] + ["encoder.norm.gamma", "encoder.norm.beta"]
        + [f"decoder.layers.0.{n}" for n in decoder_names]
        + ["decoder.norm.gamma", "decoder.norm.beta"])


def test_encoder_layers_are_independent_deep_copies_of_the_given_layer():
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=6)
    encoder = nn.TransformerEncoder(layer, 2)
    first, second = encoder.layers[0], encoder.layers[1]
    for a, b, original in zip(first.trainable_params(), second.trainable_params(),
                              layer.trainable_params()):
        assert a is not b and a is not original
        np.testing.assert_array_equal(a.asnumpy(), original.asnumpy())
        np.testing.assert_array_equal(b.asnumpy(), original.asnumpy())
    first.dense1.weight.set_data(Tensor(np.zeros((6, 4), np.float32)))
    assert np.abs(second.dense1.weight.asnumpy()).max() > 0
    assert layer.dense1.weight.name == "dense1.weight"  # the given layer keeps its names


def test_transformer_reinitialises_matrices_xavier_uniform():
    model = nn.Transformer(8, 2, 1, 1, 16)
    w = model.encoder.layers[0].dense1.weight.asnumpy()  # (16, 8): bound sqrt(6 / 24) = 0.5
    assert 0.4 < np.abs(w).max() <= 0.5
    np.testing.assert_array_equal(model.encoder.layers[0].norm1.gamma.asnumpy(), 1)


def test_need_weights_false_returns_a_one_tuple_and_per_head_weights():
    m = nn.MultiheadAttention(4, 2)
    q = Tensor(fill((3, 2, 4), 1))
    out = m(q, q, q, need_weights=False)
    assert isinstance(out, tuple) and len(out) == 1 and out[0].shape == (3, 2, 4)
    per_head = m(q, q, q, average_attn_weights=False)[1]
    averaged = m(q, q, q)[1]
    assert per_head.shape == (2, 2, 3, 3)
    np.testing.assert_allclose(per_head.asnumpy().mean(1), averaged.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(averaged.asnumpy().sum(-1), 1, rtol=1e-6)


def test_batch_first_and_unbatched_agree_with_sequence_first():
    ms.set_seed(2)
    seq_first = nn.MultiheadAttention(4, 2, kdim=3, vdim=5)
    batch_first = nn.MultiheadAttention(4, 2, kdim=3, vdim=5, batch_first=True)
    for a, b in zip(seq_first.trainable_params(), batch_first.trainable_params()):
        b.set_data(a)
    q, k, v = fill((3, 2, 4), 2), fill((5, 2, 3), 3), fill((5, 2, 5), 4)
    out_s, w_s = seq_first(Tensor(q), Tensor(k), Tensor(v))
    out_b, w_b = batch_first(*(Tensor(a.transpose(1, 0, 2)) for a in (q, k, v)))
    np.testing.assert_allclose(out_b.asnumpy(), out_s.asnumpy().transpose(1, 0, 2), rtol=1e-5)
    np.testing.assert_allclose(w_b.asnumpy(), w_s.asnumpy(), rtol=1e-5)
    out_u, w_u = batch_first(Tensor(q[:, 1]), Tensor(k[:, 1]), Tensor(v[:, 1]))
    assert out_u.shape == (3, 4) and w_u.shape == (3, 5)
    np.testing.assert_allclose(out_u.asnumpy(), out_s.asnumpy()[:, 1], rtol=1e-5, atol=1e-7)


# ---- masks ---------------------------------------------------------------------------------------

def test_bool_uint8_and_float_masks_agree():
    m = nn.MultiheadAttention(4, 2)
    q = Tensor(fill((3, 2, 4), 5))
    mask = causal(3)
    as_bool = m(q, q, q, attn_mask=Tensor(mask))
    as_uint8 = m(q, q, q, attn_mask=Tensor(mask.astype(np.uint8)))
    as_float = m(q, q, q, attn_mask=Tensor(np.where(mask, -np.inf, 0).astype(np.float32)))
    for other in (as_uint8, as_float):
        for a, b in zip(as_bool, other):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(as_bool[1].asnumpy()[:, mask], 0)


def test_padded_keys_get_no_weight_and_do_not_change_the_output():
    m = nn.MultiheadAttention(4, 2)
    q, kv = fill((2, 2, 4), 6), fill((3, 2, 4), 7)
    padding = Tensor(np.array([[False, True, False], [False, False, True]]))
    out, weights = m(Tensor(q), Tensor(kv), Tensor(kv), key_padding_mask=padding)
    assert weights.asnumpy()[0, :, 1].max() == 0 and weights.asnumpy()[1, :, 2].max() == 0
    changed = kv.copy()
    changed[1, 0] += 5.0
    changed[2, 1] -= 5.0
    out2, _ = m(Tensor(q), Tensor(changed), Tensor(changed), key_padding_mask=padding)
    np.testing.assert_allclose(out2.asnumpy(), out.asnumpy(), rtol=1e-6)
    float_padding = Tensor(np.where(padding.asnumpy(), -np.inf, 0).astype(np.float32))
    out3, _ = m(Tensor(q), Tensor(kv), Tensor(kv), key_padding_mask=float_padding)
    np.testing.assert_allclose(out3.asnumpy(), out.asnumpy(), rtol=1e-6)


def test_bool_padding_mask_combines_with_a_float_attn_mask():
    # MindSpore 2.10 adds the bool padding mask to a float attn_mask as 0/1, so padded keys
    # stay visible; here a True entry masks its key whatever the other mask's type.
    m = nn.MultiheadAttention(4, 2)
    q = Tensor(fill((3, 2, 4), 8))
    padding = Tensor(np.array([[False, False, True], [False, True, False]]))
    bias = fill((3, 3), 9)
    combined = m(q, q, q, attn_mask=Tensor(bias), key_padding_mask=padding)[1].asnumpy()
    assert combined[0, :, 2].max() == 0 and combined[1, :, 1].max() == 0
    as_float = np.where(padding.asnumpy()[:, None, None, :], -np.inf, 0) + bias
    as_float = np.repeat(as_float, 2, axis=1).reshape(4, 3, 3).astype(np.float32)
    np.testing.assert_allclose(m(q, q, q, attn_mask=Tensor(as_float))[1].asnumpy(), combined,
                               rtol=1e-6)


def test_fully_masked_rows_give_zero_weights_and_finite_gradients():
    m = nn.MultiheadAttention(4, 2, dtype=ms.float64)
    q = fill((3, 2, 4), 10).astype(np.float64)
    padding = Tensor(np.array([[False, False, True], [True, True, True]]))
    out, weights = m(Tensor(q), Tensor(q), Tensor(q), key_padding_mask=padding)
    np.testing.assert_array_equal(weights.asnumpy()[1], 0)
    np.testing.assert_allclose(out.asnumpy()[:, 1], np.broadcast_to(m.out_proj.bias.asnumpy(),
                                                                     (3, 4)))
    assert np.isfinite(out.asnumpy()).all()
    check_grads(lambda x: m(x, x, x, key_padding_mask=padding), [Tensor(q)], order=1)


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


def test_self_attention_gradients_with_masks():
    m = nn.MultiheadAttention(4, 2, dtype=ms.float64)
    padding = Tensor(np.array([[False, False, True], [False, False, False]]))
    mask = Tensor(causal(3))
    check_grads(lambda x: m(x, x, x, key_padding_mask=padding, attn_mask=mask),
                f64(fill((3, 2, 4), 11, 1.5)), order=1)
    x, = f64(fill((3, 2, 4), 11, 1.5))
    check_parameter_grads(m, lambda: m(x, x, x, attn_mask=mask)[0].sum())


def test_cross_attention_gradients_reach_query_key_value_and_a_float_mask():
    m = nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True,
                              batch_first=True, dtype=ms.float64)
    args = f64(fill((2, 3, 4), 12, 1.5), fill((2, 2, 3), 13, 1.5), fill((2, 2, 5), 14, 1.5),
               fill((3, 2), 15))
    check_grads(lambda q, k, v, bias: m(q, k, v, attn_mask=bias), args, order=1)
    q, k, v, bias = args
    check_parameter_grads(m, lambda: (m(q, k, v, attn_mask=bias)[0] ** 2).sum())


def test_second_order_gradients_of_attention():
    m = nn.MultiheadAttention(2, 1, dtype=ms.float64)
    check_grads(lambda q, kv: m(q, kv, kv), f64(fill((2, 1, 2), 16), fill((3, 1, 2), 17)),
                order=2)


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_gradients(norm_first):
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, norm_first=norm_first,
                                       dtype=ms.float64)
    padding = Tensor(np.array([[False, True, False], [False, False, False]]))
    check_grads(lambda x: layer(x, src_key_padding_mask=padding),
                f64(fill((3, 2, 4), 18, 1.5)), order=1)
    x, = f64(fill((3, 2, 4), 18, 1.5))
    check_parameter_grads(layer, lambda: (layer(x) * Tensor(fill((3, 2, 4), 19))).sum())


def test_transformer_gradients():
    model = nn.Transformer(4, 2, 1, 1, 6, dtype=ms.float64)
    mask = Tensor(causal(2))
    check_grads(lambda src, tgt: model(src, tgt, tgt_mask=mask),
                f64(fill((3, 2, 4), 20, 1.5), fill((2, 2, 4), 21, 1.5)), order=1)


# ---- dropout -------------------------------------------------------------------------------------

def test_dropout_only_in_training_and_repeatable_with_set_seed():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.5)
    x = Tensor(fill((4, 2, 8), 22))
    eval_out = layer(x).asnumpy()
    np.testing.assert_array_equal(layer(x).asnumpy(), eval_out)
    layer.set_train()
    ms.set_seed(4)
    first = layer(x).asnumpy()
    ms.set_seed(4)
    np.testing.assert_array_equal(layer(x).asnumpy(), first)
    assert np.abs(first - eval_out).max() > 1e-3


def test_attention_dropout_drops_weights_in_training():
    m = nn.MultiheadAttention(4, 1, dropout=0.5)
    q = Tensor(fill((6, 1, 4), 23))
    assert m(q, q, q)[1].asnumpy().min() > 0
    m.set_train()
    ms.set_seed(0)
    dropped = m(q, q, q)[1].asnumpy()
    assert (dropped == 0).any() and dropped.max() > m.set_train(False)(q, q, q)[1].asnumpy().max()


# ---- errors --------------------------------------------------------------------------------------

def t(shape, dtype=np.float32):
    return Tensor(np.ones(shape, dtype))


@pytest.mark.parametrize("call,error,match", [
    (lambda m: m(t((3, 2, 5)), t((3, 2, 4)), t((3, 2, 4))), ValueError,
     r"'MultiheadAttention'.*'query'.*embed_dim=4.*\(3, 2, 5\)"),
    (lambda m: m(t((3, 4)), t((3, 2, 4)), t((3, 2, 4))), ValueError,
     r"'MultiheadAttention'.*all be 3-D.*\(3, 4\)"),
    (lambda m: m(t((3, 2, 4)), t((3, 2, 4)), t((4, 2, 4))), ValueError,
     r"'MultiheadAttention'.*'key' and 'value'.*\(3, 2, 4\).*\(4, 2, 4\)"),
    (lambda m: m(t((3, 2, 4)), t((3, 1, 4)), t((3, 1, 4))), ValueError,
     r"'MultiheadAttention'.*batch size"),
    (lambda m: m(t((3, 2, 4)), t((5, 2, 4)), t((5, 2, 4)), attn_mask=t((3, 3), bool)),
     ValueError, r"'MultiheadAttention'.*'attn_mask'.*\(3, 5\).*\(4, 3, 5\).*\(3, 3\)"),
    (lambda m: m(t((3, 2, 4)), t((5, 2, 4)), t((5, 2, 4)), key_padding_mask=t((2, 3), bool)),
     ValueError, r"'MultiheadAttention'.*'key_padding_mask'.*\(2, 5\).*\(2, 3\)"),
    (lambda m: m(t((3, 2, 4)), t((3, 2, 4)), t((3, 2, 4)), key_padding_mask=t((2, 3), np.int32)),
     TypeError, r"'MultiheadAttention'.*'key_padding_mask'.*bool or float"),
    (lambda m: m(t((3, 2, 4)), t((3, 2, 4)), t((3, 2, 4)), attn_mask=t((3, 3), np.int64)),
     TypeError, r"'MultiheadAttention'.*'attn_mask'.*bool, uint8 or float"),
])
def test_attention_input_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(nn.MultiheadAttention(4, 2))


@pytest.mark.parametrize("make,error,match", [
    (lambda: nn.MultiheadAttention(6, 4), ValueError,
     r"'MultiheadAttention'.*'embed_dim' \(6\).*'num_heads' \(4\)"),
    (lambda: nn.MultiheadAttention(4, 2, dropout=1.0), ValueError, r"'dropout'"),
    (lambda: nn.TransformerEncoderLayer(4, 2, activation="tanh"), ValueError,
     r"'TransformerEncoderLayer'.*'activation'"),
    (lambda: nn.TransformerEncoder(nn.Dense(2, 2), 2), TypeError,
     r"'TransformerEncoder'.*TransformerEncoderLayer.*Dense"),
    (lambda: nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, 6), 0), ValueError,
     r"'TransformerDecoder'.*'num_layers'"),
])
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_layer_and_transformer_shape_errors():
    with pytest.raises(ValueError, match=r"'TransformerEncoderLayer'.*d_model=4.*\(3, 2, 5\)"):
        nn.TransformerEncoderLayer(4, 2, 6)(t((3, 2, 5)))
    with pytest.raises(ValueError, match=r"'TransformerDecoderLayer'.*'memory'.*\(3, 2, 5\)"):
        nn.TransformerDecoderLayer(4, 2, 6)(t((3, 2, 4)), t((3, 2, 5)))
    with pytest.raises(ValueError, match=r"'Transformer'.*batch size.*\(3, 2, 4\).*\(3, 3, 4\)"):
        nn.Transformer(4, 2, 1, 1, 6)(t((3, 2, 4)), t((3, 3, 4)))


def test_activation_may_be_a_cell_or_callable():
    ms.set_seed(0)
    by_name = nn.TransformerEncoderLayer(4, 2, 6, activation="gelu")
    by_cell = copy.deepcopy(by_name)
    by_cell.activation = nn.GELU(approximate=False)
    x = Tensor(fill((3, 2, 4), 24, 2.0))
    np.testing.assert_allclose(by_cell(x).asnumpy(), by_name(x).asnumpy(), rtol=1e-5, atol=1e-6)


def test_unbatched_layers_equal_a_batch_of_one():
    ms.set_seed(3)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 6), 2)
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, 6), 2)
    src, tgt = fill((3, 2, 4), 25, 1.5), fill((2, 2, 4), 26, 1.5)
    padding = np.array([[False, False, True], [False, True, False]])
    memory = encoder(Tensor(src), src_key_padding_mask=Tensor(padding))
    out = decoder(Tensor(tgt), memory, tgt_mask=Tensor(causal(2)))
    memory_1 = encoder(Tensor(src[:, 1]), src_key_padding_mask=Tensor(padding[1]))
    out_1 = decoder(Tensor(tgt[:, 1]), memory_1, tgt_mask=Tensor(causal(2)))
    np.testing.assert_allclose(memory_1.asnumpy(), memory.asnumpy()[:, 1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out_1.asnumpy(), out.asnumpy()[:, 1], rtol=1e-5, atol=1e-6)
