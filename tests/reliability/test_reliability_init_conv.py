"""Initializers fill their result in place (peak memory near the parameter's own size, the same
values as before), and the transposed convolutions take every output_padding MindSpore allows
(below the stride or below the dilation, per axis): the output size of the formula, the values
of the definition, exact gradients, and a clear error for the rest."""
import gc
import os
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.common.initializer import (Constant, HeNormal, HeUniform, Initializer, Normal,
                                          Orthogonal, TruncatedNormal, Uniform, VarianceScaling,
                                          XavierNormal, XavierUniform, initializer)
from minispore.common.seed import generator
from minispore.testing import check_grads

_FIXTURE = os.path.join(os.path.dirname(__file__), "data", "mindspore_conv_transpose.npz")


# ---- initializers: memory ------------------------------------------------------------------------

def _peak(fn):
    """(result, bytes allocated at the peak of fn() above what was live before it)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        out = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return out, peak - before


SHAPE = (1000, 2000)  # 8 MB of float32: many chunks, still quick


@pytest.mark.parametrize("init", ["zeros", "ones", "normal", "uniform", "truncated_normal",
                                  "he_uniform", "he_normal", "xavier_uniform", "xavier_normal",
                                  "identity", 0.25, Constant(-3), Normal(0.2, 1.0), Uniform(2.0),
                                  TruncatedNormal(1.0, 0.0, -0.5, 0.5), HeUniform(2.2),
                                  VarianceScaling(2.0, "fan_avg", "truncated_normal"),
                                  VarianceScaling(1.0, "fan_out", "uniform")], ids=repr)
@pytest.mark.parametrize("dtype", [ms.float32, ms.float16])
def test_initializer_peak_memory_stays_near_the_result_size(init, dtype):
    t, peak = _peak(lambda: initializer(init, SHAPE, dtype).init_data())
    assert t.shape == SHAPE and t.dtype == dtype
    assert peak <= 1.5 * t.nbytes, f"peak {peak / 2**20:.1f} MiB for {t.nbytes / 2**20:.1f} MiB"


def test_initializer_call_fills_the_array_in_place_without_a_float64_copy():
    arr = np.empty(SHAPE, np.float32)
    out, peak = _peak(lambda: Normal(0.5)(arr))
    assert out is arr and arr.std() > 0.4
    assert peak <= 0.5 * arr.nbytes


def test_initializer_from_an_array_copies_it_once():
    src = np.ones(SHAPE, np.float64)
    t, peak = _peak(lambda: initializer(src, SHAPE, ms.float32))
    assert peak <= 1.5 * t.nbytes
    src[0, 0] = 7  # the result is a copy
    assert t.asnumpy()[0, 0] == 1


@pytest.mark.parametrize("make", [
    lambda: nn.Dense(2000, 1000),
    lambda: nn.Dense(2000, 1000, weight_init="normal", bias_init="zeros", dtype=ms.float16),
    lambda: nn.Embedding(1000, 2000),
    lambda: nn.Embedding(1000, 2000, padding_idx=3),
], ids=["dense", "dense-fp16", "embedding", "embedding-padding"])
def test_dense_and_embedding_build_their_parameters_without_copies(make):
    cell, peak = _peak(make)
    size = sum(p.nbytes for p in cell.get_parameters())
    assert peak <= 1.5 * size, f"peak {peak / 2**20:.1f} MiB for {size / 2**20:.1f} MiB"


def test_embedding_padding_row_is_zero_and_others_drawn():
    table = nn.Embedding(50, 8, padding_idx=-2).embedding_table.asnumpy()
    assert table.dtype == np.float32
    assert not table[48].any() and table[:48].std() > 0.005


# ---- initializers: the same values as one float64 draw cast to the dtype -------------------------

def _old_truncated(g, mean, sigma, a, b, shape):
    out = g.normal(mean, sigma, shape)
    bad = (out < a) | (out > b)
    while bad.any():
        out[bad] = g.normal(mean, sigma, int(bad.sum()))
        bad = (out < a) | (out > b)
    return out


_N = 3 * 65536 + 1234  # several chunks, the last one partial
_REFERENCE = {
    "normal": (Normal(0.3, -1.0), lambda g, s: g.normal(-1.0, 0.3, s)),
    "uniform": (Uniform(0.4), lambda g, s: g.uniform(-0.4, 0.4, s)),
    "he_uniform": (HeUniform(), lambda g, s: g.uniform(-np.sqrt(6 / 7), np.sqrt(6 / 7), s)),
    "he_normal": (HeNormal(mode="fan_out"), lambda g, s: g.normal(0.0, np.sqrt(2 / s[0]), s)),
    "xavier_uniform": (XavierUniform(2), lambda g, s: g.uniform(
        -2 * np.sqrt(6 / sum(s)), 2 * np.sqrt(6 / sum(s)), s)),
    "xavier_normal": (XavierNormal(), lambda g, s: g.normal(0.0, np.sqrt(2 / sum(s)), s)),
    "truncated": (TruncatedNormal(1.0, 0.2, -1.0, 1.5),
                  lambda g, s: _old_truncated(g, 0.2, 1.0, -1.0, 1.5, s)),
    "orthogonal": (Orthogonal(1.5), None),
}


@pytest.mark.parametrize("name", sorted(_REFERENCE))
@pytest.mark.parametrize("dtype", [ms.float32, ms.float64, ms.float16])
def test_initializer_values_equal_one_float64_draw_cast_to_the_dtype(name, dtype):
    init, reference = _REFERENCE[name]
    shape = (_N // 7, 7) if name != "orthogonal" else (40, 30)
    ms.set_seed(17)
    got = initializer(init, shape, dtype).asnumpy()
    ms.set_seed(17)
    g = generator()
    if reference is None:  # orthogonal: as before, QR of one standard normal draw
        q, r = np.linalg.qr(g.standard_normal((40, 30)))
        want = 1.5 * q * np.sign(np.diag(r))
    else:
        want = reference(g, shape)
    np.testing.assert_array_equal(got, want.astype(got.dtype))


def test_variance_scaling_truncated_equals_its_truncated_normal():
    ms.set_seed(2)
    got = initializer(VarianceScaling(3.0, "fan_in", "truncated_normal"), (_N // 5, 5)).init_data()
    std = np.sqrt(3.0 / 5) / 0.87962566103423978
    ms.set_seed(2)
    want = _old_truncated(generator(), 0.0, std, -2 * std, 2 * std, (_N // 5, 5))
    np.testing.assert_array_equal(got.asnumpy(), want.astype(np.float32))


def test_constant_and_integer_targets_cast_as_before():
    assert initializer(0.1, (3,), ms.float32).asnumpy().tolist() == [np.float32(0.1)] * 3
    assert initializer(2.7, (2,), ms.int32).asnumpy().tolist() == [2, 2]
    assert initializer("ones", (2, 2), ms.int64).asnumpy().tolist() == [[1, 1], [1, 1]]
    assert initializer("identity", (2, 3), ms.float16).asnumpy().tolist() == \
        [[1, 0, 0], [0, 1, 0]]
    ms.set_seed(1)
    ints = initializer(Normal(3.0), (1000,), ms.int32).asnumpy()
    ms.set_seed(1)
    np.testing.assert_array_equal(ints, generator().normal(0, 3.0, 1000).astype(np.int32))


def test_custom_initializer_with_fill_still_works():
    class Ramp(Initializer):
        def _fill(self, shape):
            return np.arange(np.prod(shape), dtype=np.float64).reshape(shape) / 2

    assert initializer(Ramp(), (2, 2), ms.float32).asnumpy().tolist() == [[0, 0.5], [1, 1.5]]
    arr = np.zeros((3,), np.float16)
    Ramp()(arr)
    assert arr.tolist() == [0, 0.5, 1]
    with pytest.raises(NotImplementedError, match="Initializer"):
        initializer(Initializer(), (2,))


# ---- transposed convolution: output_padding below the stride or the dilation ---------------------

def _reference_transpose(x, w, stride, before, dilation, outs, groups):
    """The transposed convolution by its definition: input pixel j and kernel tap t add
    x[j] * w[t] into output position j * stride + t * dilation - before (when inside)."""
    n, cin = x.shape[:2]
    cig, cog = cin // groups, w.shape[1]
    out = np.zeros((n, cog * groups) + tuple(outs))
    for pos in np.ndindex(*x.shape[2:]):
        for tap in np.ndindex(*w.shape[2:]):
            idx = tuple(j * s + t * d - p for j, t, s, d, p in zip(pos, tap, stride, dilation,
                                                                   before))
            if all(0 <= i < o for i, o in zip(idx, outs)):
                for g in range(groups):
                    cin_g, cout_g = slice(g * cig, (g + 1) * cig), slice(g * cog, (g + 1) * cog)
                    out[(slice(None), cout_g) + idx] += \
                        x[(slice(None), cin_g) + pos] @ w[(cin_g, slice(None)) + tap]
    return out


def _size(n, k, s, d, pad_total, op):
    return (n - 1) * s - pad_total + d * (k - 1) + op + 1


def test_stride_one_dilation_two_output_padding_one_gives_six_by_six():
    x = np.arange(9.0).reshape(1, 1, 3, 3)
    w = np.array([[[[1.0, 2.0], [3.0, 4.0]]]])
    out = ops.conv_transpose2d(Tensor(x), Tensor(w), stride=1, dilation=2, output_padding=1)
    assert out.shape == (1, 1, 6, 6)
    np.testing.assert_array_equal(out.asnumpy(),
                                  _reference_transpose(x, w, (1, 1), (0, 0), (2, 2), (6, 6), 1))
    assert not out.asnumpy()[0, 0, 5].any() and not out.asnumpy()[0, 0, :, 5].any()


@st.composite
def _transpose_case(draw, nd):
    """Geometry within MindSpore's rule: output_padding < max(stride, dilation) per axis."""
    groups = draw(st.sampled_from([1, 2]))
    cin, cout = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    sizes, ks, ss, ds, ps, ops_ = [], [], [], [], [], []
    for _ in range(nd):
        s, d = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        k, n = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        op = draw(st.integers(0, max(s, d) - 1))
        full = _size(n, k, s, d, 0, 0)  # keep at least one output row
        p = draw(st.integers(0, max(0, (full - 1) // 2)))
        for seq, v in zip((sizes, ks, ss, ds, ps, ops_), (n, k, s, d, p, op)):
            seq.append(v)
    batch = draw(st.integers(1, 2))
    return dict(x_shape=(batch, cin, *sizes), w_shape=(cin, cout // groups, *ks), stride=ss,
                dilation=ds, padding=ps, output_padding=ops_, groups=groups)


@settings(max_examples=20)
@given(case=_transpose_case(2), seed=st.integers(0, 2**16))
def test_conv_transpose2d_any_allowed_output_padding_has_formula_size_values_and_gradients(
        case, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(case["x_shape"])
    w = rng.standard_normal(case["w_shape"])
    b = rng.standard_normal(case["w_shape"][1] * case["groups"])
    kw = dict(stride=tuple(case["stride"]), padding=tuple(case["padding"]),
              output_padding=tuple(case["output_padding"]), groups=case["groups"],
              dilation=tuple(case["dilation"]))
    outs = tuple(_size(n, k, s, d, 2 * p, op) for n, k, s, d, p, op in zip(
        case["x_shape"][2:], case["w_shape"][2:], case["stride"], case["dilation"],
        case["padding"], case["output_padding"]))
    out = ops.conv_transpose2d(Tensor(x), Tensor(w), Tensor(b), **kw)
    assert out.shape == case["x_shape"][:1] + (len(b),) + outs
    want = _reference_transpose(x, w, case["stride"], case["padding"], case["dilation"], outs,
                                case["groups"]) + b.reshape(1, -1, 1, 1)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-12, atol=1e-12)
    check_grads(lambda a, v, c: ops.conv_transpose2d(a, v, c, **kw),
                [Tensor(x), Tensor(w), Tensor(b)], order=2, modes=("rev",))


def _layer_case(case, nd):
    """nn.Conv{nd}dTranspose arguments for a drawn case (pad_mode 'pad', per-side padding)."""
    pad = tuple(p for p in case["padding"] for _ in range(2))
    return dict(in_channels=case["x_shape"][1], out_channels=case["w_shape"][1] * case["groups"],
                kernel_size=tuple(case["w_shape"][2:]), stride=tuple(case["stride"]),
                pad_mode="pad", padding=pad, dilation=tuple(case["dilation"]),
                group=case["groups"], output_padding=tuple(case["output_padding"]),
                has_bias=True, dtype=ms.float64)


@settings(max_examples=10)
@given(case=_transpose_case(3), seed=st.integers(0, 2**16))
def test_conv3d_transpose_layer_any_allowed_output_padding(case, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(case["x_shape"])
    cell = nn.Conv3dTranspose(**_layer_case(case, 3))
    w = rng.standard_normal(cell.weight.shape)
    b = rng.standard_normal(cell.bias.shape)
    cell.weight.set_data(Tensor(w))
    cell.bias.set_data(Tensor(b))
    outs = tuple(_size(n, k, s, d, 2 * p, op) for n, k, s, d, p, op in zip(
        case["x_shape"][2:], case["w_shape"][2:], case["stride"], case["dilation"],
        case["padding"], case["output_padding"]))
    out = cell(Tensor(x))
    want = _reference_transpose(x, w, case["stride"], case["padding"], case["dilation"], outs,
                                case["groups"]) + b.reshape(1, -1, 1, 1, 1)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-12, atol=1e-12)
    check_grads(lambda a: cell(a), [Tensor(x)], order=1, modes=("rev",))


@settings(max_examples=15)
@given(case=_transpose_case(2), seed=st.integers(0, 2**16),
       uneven=st.tuples(st.integers(0, 1), st.integers(0, 1)))
def test_conv2d_transpose_layer_any_allowed_output_padding(case, seed, uneven):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(case["x_shape"])
    kw = _layer_case(case, 2)
    # uneven padding: one fewer row at the bottom / column at the right where there is one
    top, bottom, left, right = kw["padding"]
    bottom, right = max(0, bottom - uneven[0]), max(0, right - uneven[1])
    kw["padding"] = (top, bottom, left, right)
    cell = nn.Conv2dTranspose(**kw)
    w = rng.standard_normal(cell.weight.shape)
    cell.weight.set_data(Tensor(w))
    cell.bias.set_data(Tensor(np.zeros(cell.bias.shape)))
    outs = tuple(_size(n, k, s, d, a + z, op) for n, k, s, d, a, z, op in zip(
        case["x_shape"][2:], case["w_shape"][2:], case["stride"], case["dilation"],
        (top, left), (bottom, right), case["output_padding"]))
    out = cell(Tensor(x))
    want = _reference_transpose(x, w, case["stride"], (top, left), case["dilation"], outs,
                                case["groups"])
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-12, atol=1e-12)
    check_grads(lambda a: cell(a), [Tensor(x)], order=2, modes=("rev",))


# the cases of data/make_mindspore_conv_transpose.py (which imports MindSpore, so not imported)
_MINDSPORE_CASES = {
    "s1d2": dict(in_channels=1, out_channels=1, kernel_size=2, stride=1, dilation=2,
                 output_padding=1),
    "mixed": dict(in_channels=4, out_channels=6, kernel_size=(3, 2), stride=(1, 2),
                  dilation=(3, 1), padding=(1, 0, 2, 0), output_padding=(2, 1), group=2),
    "d3s2": dict(in_channels=2, out_channels=3, kernel_size=3, stride=2, dilation=3,
                 padding=(2, 0, 0, 0), output_padding=2),
}


@pytest.mark.parametrize("name", sorted(_MINDSPORE_CASES))
def test_conv2d_transpose_output_padding_matches_mindspore(name):
    data = np.load(_FIXTURE)
    kw = _MINDSPORE_CASES[name]
    cell = nn.Conv2dTranspose(pad_mode="pad", has_bias=False, **kw)
    cell.weight.set_data(Tensor(data[f"{name}_w"]))
    out = cell(Tensor(data[f"{name}_x"]))
    np.testing.assert_allclose(out.asnumpy(), data[f"{name}_y"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kw", [
    dict(stride=1, dilation=1, output_padding=1),
    dict(stride=2, dilation=3, output_padding=(0, 3)),
    dict(stride=(3, 1), dilation=(1, 2), output_padding=(1, 2)),
    dict(stride=2, dilation=1, output_padding=-1),
])
def test_conv_transpose2d_output_padding_outside_the_rule_names_op_and_argument(kw):
    x, w = Tensor(np.ones((1, 1, 3, 3))), Tensor(np.ones((1, 1, 2, 2)))
    with pytest.raises(ValueError, match=r"For 'conv_transpose2d', the 'output_padding' must be"
                                         r".*but got"):
        ops.conv_transpose2d(x, w, **kw)


def test_conv_transpose2d_negative_padding_is_refused():
    x, w = Tensor(np.ones((1, 1, 3, 3))), Tensor(np.ones((1, 1, 2, 2)))
    with pytest.raises(ValueError, match=r"For 'conv_transpose2d', the 'padding' must be"):
        ops.conv_transpose2d(x, w, padding=-1)


@pytest.mark.parametrize("cls,nd", [(nn.Conv2dTranspose, 2), (nn.Conv3dTranspose, 3)])
def test_transpose_layers_refuse_output_padding_outside_the_rule(cls, nd):
    name = cls.__name__
    with pytest.raises(ValueError, match=rf"For '{name}', the 'output_padding' must be.*but got"):
        cls(1, 1, 2, stride=2, dilation=1, pad_mode="pad", output_padding=2)
    with pytest.raises(ValueError, match=rf"For '{name}', the 'output_padding' must be.*but got"):
        cls(1, 1, 2, stride=1, dilation=(1,) * (nd - 1) + (2,), pad_mode="pad",
            output_padding=(1,) * nd)
    with pytest.raises(ValueError, match=rf"For '{name}', the 'output_padding' must be.*but got"):
        cls(1, 1, 2, stride=2, pad_mode="pad", output_padding=-1)
    # a nonzero output_padding needs pad_mode 'pad', as in MindSpore
    with pytest.raises(ValueError, match=rf"For '{name}', the 'output_padding' must be 0.*'pad'"):
        cls(1, 1, 2, stride=2, pad_mode="same", output_padding=1)
