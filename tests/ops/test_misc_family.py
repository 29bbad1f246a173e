"""EditDistance, RaggedRange, NoRepeatNGram, RNNTLoss, ConfusionMatrix, FloatStatus,
SubAndFilter, MapUniform, FusedCastAdamWeightDecay, FusedAdaFactor(WithGlobalNorm), LogSoftmaxExt,
the view classes, CopyWithSlice and SampleDistortedBoundingBoxV2: values against MindSpore 2.10
CPU (fixture made by data/make_mindspore_misc.py) where it has a CPU kernel, against NumPy
otherwise, gradients, signatures and the errors.
RNNTLoss, ConfusionMatrix and FloatStatus have no CPU kernel in MindSpore 2.10 ("Unsupported op
[...] on CPU", in both modes): they are checked against their documented semantics (RNNTLoss: the
sum over alignments in specs_misc.py). LogSoftmaxExt and FusedAdaFactor run there in graph mode
only."""
import inspect
import json
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor
from minispore.ops.function import misc_func as F
from minispore.ops.operations import misc_ops as P
from minispore.testing import check_grads

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_misc.npz"))
SIGNATURES = json.loads(str(DATA["signatures"]))
CLASSES = {"EditDistance": P.EditDistance, "RaggedRange": P.RaggedRange,
           "NoRepeatNGram": P.NoRepeatNGram, "RNNTLoss": P.RNNTLoss,
           "ConfusionMatrix": P.ConfusionMatrix, "FloatStatus": P.FloatStatus,
           "LogSoftmaxExt": F.LogSoftmaxExt, "SubAndFilter": P.SubAndFilter,
           "MapUniform": P.MapUniform, "FusedCastAdamWeightDecay": P.FusedCastAdamWeightDecay,
           "TransposeView": F.TransposeView, "TransposeExtView": F.TransposeExtView,
           "SelectView": F.SelectView, "CopyWithSlice": F.CopyWithSlice,
           "SampleDistortedBoundingBoxV2": P.SampleDistortedBoundingBoxV2,
           "FusedAdaFactor": P.FusedAdaFactor,
           "FusedAdaFactorWithGlobalNorm": P.FusedAdaFactorWithGlobalNorm, "Reusing": F.Reusing}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures_match_mindspore(name):
    cls_name, _, method = name.partition(".")
    fn = getattr(CLASSES[cls_name], method or "__init__")
    assert str(inspect.signature(fn)) == SIGNATURES[name]


# ---- EditDistance --------------------------------------------------------------------------------

@pytest.mark.parametrize("case,normalize", [("ed_norm", True), ("ed_raw", False),
                                            ("ed_3d", True), ("ed_empty", True)])
def test_edit_distance_matches_mindspore(case, normalize):
    args = [Tensor(DATA[f"{case}_in{i}"]) for i in range(6)]
    out = P.EditDistance(normalize)(*args)
    assert out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), DATA[f"{case}_out"])


def test_edit_distance_errors():
    idx, val, shape = (Tensor(np.array([[0, 0]], np.int64)), Tensor(np.array([1.0], np.float32)),
                       Tensor(np.array([1, 1], np.int64)))
    with pytest.raises(TypeError, match="normalize"):
        P.EditDistance(1)
    with pytest.raises(TypeError, match="hypothesis_indices"):
        P.EditDistance()(Tensor(np.array([[0, 0]], np.int32)), val, shape, idx, val, shape)
    with pytest.raises(TypeError, match="same dtype"):
        P.EditDistance()(idx, val, shape, idx, Tensor(np.array([1], np.int32)), shape)
    with pytest.raises(ValueError, match="within"):
        P.EditDistance()(Tensor(np.array([[0, 3]], np.int64)), val, shape, idx, val, shape)


# ---- RaggedRange ---------------------------------------------------------------------------------

@pytest.mark.parametrize("case", range(4))
def test_ragged_range_matches_mindspore(case):
    args = [Tensor(DATA[f"rr{case}_in{i}"]) for i in range(3)]
    tsplits = ms.int32 if DATA[f"rr{case}_splits"].dtype == np.int32 else ms.int64
    splits, values = P.RaggedRange(tsplits)(*args)
    assert splits.asnumpy().dtype == DATA[f"rr{case}_splits"].dtype
    assert values.asnumpy().dtype == DATA[f"rr{case}_values"].dtype
    np.testing.assert_array_equal(splits.asnumpy(), DATA[f"rr{case}_splits"])
    np.testing.assert_allclose(values.asnumpy(), DATA[f"rr{case}_values"], rtol=1e-6)


def test_ragged_range_errors():
    one = Tensor(np.array([1], np.int32))
    with pytest.raises(TypeError, match="Tsplits"):
        P.RaggedRange(ms.float32)
    with pytest.raises(ValueError, match="same shape"):
        P.RaggedRange(ms.int64)(one, Tensor(np.array([3, 4], np.int32)), one)
    with pytest.raises(TypeError, match="same dtype"):
        P.RaggedRange(ms.int64)(one, Tensor(np.array([3], np.int64)), one)
    with pytest.raises(ValueError, match="deltas"):
        P.RaggedRange(ms.int64)(one, one, Tensor(np.array([0], np.int32)))


# ---- NoRepeatNGram -------------------------------------------------------------------------------

@pytest.mark.parametrize("case", range(5))
def test_no_repeat_ngram_matches_mindspore(case):
    seq, logp, n = DATA[f"nr{case}_seq"], DATA[f"nr{case}_logp"], int(DATA[f"nr{case}_n"])
    out = P.NoRepeatNGram(n)(Tensor(seq), Tensor(logp)).asnumpy()
    assert out.dtype == logp.dtype
    np.testing.assert_array_equal(out, DATA[f"nr{case}_out"])


def test_no_repeat_ngram_errors():
    logp = Tensor(np.zeros((1, 1, 3), np.float32))
    with pytest.raises(ValueError, match="valid range"):
        P.NoRepeatNGram(2)(Tensor(np.array([[[0, 3]]], np.int32)), logp)
    with pytest.raises(ValueError, match="rank of state_seq"):
        P.NoRepeatNGram(2)(Tensor(np.array([[0, 1]], np.int32)), logp)
    with pytest.raises(TypeError, match="state_seq"):
        P.NoRepeatNGram(2)(Tensor(np.array([[[0, 1]]], np.int64)), logp)
    with pytest.raises(ValueError, match="ngram_size"):
        P.NoRepeatNGram(0)
    with pytest.raises(ValueError, match="ngram_size"):
        P.NoRepeatNGram(5)(Tensor(np.zeros((1, 1, 3), np.int32)), logp)
    out = P.NoRepeatNGram(4)(Tensor(np.zeros((1, 1, 3), np.int32)), logp)
    np.testing.assert_array_equal(out.asnumpy(), logp.asnumpy())


# ---- RNNTLoss ------------------------------------------------------------------------------------

def _rnnt_inputs(dtype=np.float64):
    rng = np.random.default_rng(3)
    acts = rng.standard_normal((2, 4, 3, 5)).astype(dtype)
    labels = np.array([[1, 3], [2, 0]], np.int32)
    return (Tensor(acts), Tensor(labels), Tensor(np.array([4, 3], np.int32)),
            Tensor(np.array([2, 1], np.int32)))


def test_rnnt_loss_grads_output_is_the_gradient_of_the_costs():
    acts, labels, t_len, u_len = _rnnt_inputs()
    loss = P.RNNTLoss(blank_label=4)
    _, grads = loss(acts, labels, t_len, u_len)
    auto = ms.grad(lambda a: loss(a, labels, t_len, u_len)[0].sum())(acts)
    np.testing.assert_allclose(grads.asnumpy(), auto.asnumpy(), rtol=1e-12)
    assert np.all(grads.asnumpy()[1, 3:] == 0) and np.all(grads.asnumpy()[1, :, 2:] == 0)
    np.testing.assert_allclose(grads.asnumpy().sum(-1), 0, atol=1e-12)
    check_grads(lambda a: loss(a, labels, t_len, u_len)[0], (acts,), order=1)


def test_rnnt_loss_one_step_is_a_softmax_product():
    acts = np.log(np.array([[[[0.2, 0.8], [0.6, 0.4]]]]))
    costs, _ = P.RNNTLoss(0)(Tensor(acts), Tensor(np.array([[1]], np.int32)),
                             Tensor(np.array([1], np.int32)), Tensor(np.array([1], np.int32)))
    np.testing.assert_allclose(costs.asnumpy(), [-np.log(0.8 * 0.6)], rtol=1e-12)


def test_rnnt_loss_float32_and_errors():
    acts, labels, t_len, u_len = _rnnt_inputs(np.float32)
    costs, grads = P.RNNTLoss(0)(acts, labels, t_len, u_len)
    assert costs.dtype == grads.dtype == ms.float32 and costs.shape == (2,)
    with pytest.raises(TypeError, match="labels"):
        P.RNNTLoss(0)(acts, Tensor(labels.asnumpy().astype(np.int64)), t_len, u_len)
    with pytest.raises(TypeError, match="acts"):
        P.RNNTLoss(0)(Tensor(np.zeros((2, 4, 3, 5), np.int32)), labels, t_len, u_len)
    with pytest.raises(ValueError, match="input_lengths"):
        P.RNNTLoss(0)(acts, labels, Tensor(np.array([5, 3], np.int32)), u_len)
    with pytest.raises(TypeError, match="blank_label"):
        P.RNNTLoss(0.5)


# ---- ConfusionMatrix, FloatStatus ----------------------------------------------------------------

def test_confusion_matrix_docs_example_and_dtype():
    labels = Tensor(np.array([0, 1, 1, 3], np.int32))
    preds = Tensor(np.array([1, 2, 1, 3], np.int32))
    out = P.ConfusionMatrix(4)(labels, preds)
    np.testing.assert_array_equal(out.asnumpy(), [[0, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0],
                                                  [0, 0, 0, 1]])
    assert out.dtype == ms.int32
    weighted = P.ConfusionMatrix(2)(Tensor(np.array([0., 1, 1])), Tensor(np.array([1., 1, 1])),
                                    Tensor(np.array([0.5, 2.0, 0.25])))
    assert weighted.dtype == ms.float64
    np.testing.assert_allclose(weighted.asnumpy(), [[0, 0.5], [0, 2.25]])


def test_confusion_matrix_errors():
    a = Tensor(np.array([0, 1], np.int32))
    with pytest.raises(TypeError, match="num_classes"):
        P.ConfusionMatrix(2.0)
    with pytest.raises(TypeError, match="dtype"):
        P.ConfusionMatrix(2, ms.int32)
    with pytest.raises(ValueError, match="shape"):
        P.ConfusionMatrix(2)(a, Tensor(np.array([0], np.int32)))
    with pytest.raises(ValueError, match="labels"):
        P.ConfusionMatrix(1)(a, a)
    with pytest.raises(TypeError, match="same dtype"):
        P.ConfusionMatrix(2)(a, Tensor(np.array([0, 1], np.int64)))


def test_float_status():
    for x, flag in (([1.0, 2.0], 0.0), ([np.nan, 1.0], 1.0), ([[1.0], [-np.inf]], 1.0)):
        for dtype in (np.float16, np.float32, np.float64):
            out = P.FloatStatus()(Tensor(np.array(x, dtype)))
            assert out.dtype == ms.float32 and out.shape == (1,)
            assert out.asnumpy()[0] == flag
    with pytest.raises(TypeError, match="FloatStatus"):
        P.FloatStatus()(Tensor(np.array([1, 2], np.int32)))


# ---- LogSoftmaxExt -------------------------------------------------------------------------------

LS_CASES = [((5,), None, None), ((3, 4), None, None), ((2, 3, 4), None, None),
            ((2, 3, 4, 2), None, None), ((2, 3, 4), -1, ms.float64), ((3, 4), 0, None)]


@pytest.mark.parametrize("case", range(len(LS_CASES)))
def test_log_softmax_ext_matches_mindspore(case):
    _, dim, dtype = LS_CASES[case]
    out = F.LogSoftmaxExt()(Tensor(DATA[f"ls{case}_x"]), dim, dtype).asnumpy()
    assert out.dtype == DATA[f"ls{case}_out"].dtype
    np.testing.assert_allclose(out, DATA[f"ls{case}_out"], rtol=2e-5, atol=2e-5)


def _log_softmax(x, axis):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


@pytest.mark.parametrize("shape,dim,axis", [((5,), None, 0), ((3, 4), None, 1),
                                            ((2, 3, 4), None, 0), ((2, 3, 4, 2), None, 1),
                                            ((2, 3, 4), -1, -1), ((3, 4), 0, 0)])
def test_log_softmax_ext_values(shape, dim, axis):
    x = np.random.default_rng(1).standard_normal(shape)
    out = F.LogSoftmaxExt()(Tensor(x), dim)
    np.testing.assert_allclose(out.asnumpy(), _log_softmax(x, axis), rtol=1e-12, atol=1e-12)


def test_log_softmax_ext_dtype_grads_and_errors():
    x = Tensor(np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32))
    out = F.LogSoftmaxExt()(x, 1, ms.float64)
    assert out.dtype == ms.float64
    np.testing.assert_allclose(out.asnumpy(), _log_softmax(x.asnumpy().astype(np.float64), 1),
                               rtol=1e-12)
    check_grads(lambda a: F.LogSoftmaxExt()(a, -1), (Tensor(x.asnumpy().astype(np.float64)),),
                order=2)
    with pytest.raises(TypeError, match="LogSoftmaxExt"):
        F.LogSoftmaxExt()(Tensor(np.array([1, 2], np.int32)))
    with pytest.raises(ValueError, match="dim"):
        F.LogSoftmaxExt()(x, 2)
    with pytest.raises(TypeError, match="dim"):
        F.LogSoftmaxExt()(x, 1.0)


# ---- SubAndFilter, MapUniform --------------------------------------------------------------------

@pytest.mark.parametrize("case", range(3))
def test_sub_and_filter_matches_mindspore(case):
    max_num, offset = (int(v) for v in DATA[f"sf{case}_args"])
    res, idx = P.SubAndFilter()(Tensor(DATA[f"sf{case}_x"]), max_num, offset)
    for got, key in ((res, "res"), (idx, "idx")):
        assert got.asnumpy().dtype == DATA[f"sf{case}_{key}"].dtype
        np.testing.assert_array_equal(got.asnumpy(), DATA[f"sf{case}_{key}"])


@pytest.mark.parametrize("case", range(3))
def test_map_uniform_matches_mindspore(case):
    size, groups = (int(v) for v in DATA[f"mu{case}_args"])
    out = P.MapUniform()(Tensor(DATA[f"mu{case}_x"]), size, groups).asnumpy()
    assert out.dtype == DATA[f"mu{case}_out"].dtype
    np.testing.assert_array_equal(out, DATA[f"mu{case}_out"])


def test_id_map_errors():
    with pytest.raises(TypeError, match="SubAndFilter"):
        P.SubAndFilter()(Tensor(np.array([1.0, 3.0], np.float32)), 4, 2)
    with pytest.raises(TypeError, match="max_num"):
        P.SubAndFilter()(Tensor(np.array([1, 3], np.int32)), 4.0, 2)
    with pytest.raises(TypeError, match="MapUniform"):
        P.MapUniform()(Tensor(np.array([1.0], np.float32)), 3, 2)
    with pytest.raises(RuntimeError, match="less than 3"):
        P.MapUniform()(Tensor(np.array([[0, 1], [2, 3]], np.int32)), 3, 1)


# ---- FusedCastAdamWeightDecay --------------------------------------------------------------------

@pytest.mark.parametrize("case", range(3))
def test_fused_cast_adam_weight_decay_matches_mindspore(case):
    var0, m0, v0, g = DATA[f"fc{case}_in"]
    var_dtype = DATA[f"fc{case}_var"].dtype
    var, m, v = (Parameter(Tensor(a), name=n) for a, n in ((var0.astype(var_dtype), "var"),
                                                           (m0, "m"), (v0, "v")))
    f32 = ms.float32
    outs = P.FusedCastAdamWeightDecay()(var, m, v, Tensor(0.1, f32), Tensor(0.9, f32),
                                        Tensor(0.999, f32), Tensor(1e-8, f32),
                                        Tensor(float(DATA[f"fc{case}_decay"]), f32), Tensor(g),
                                        Tensor(2.0, f32))
    tol = 1e-3 if var_dtype == np.float16 else 1e-6
    for written, out, key in ((var, outs[0], "var"), (m, outs[1], "m"), (v, outs[2], "v")):
        assert written.asnumpy().dtype == out.asnumpy().dtype == DATA[f"fc{case}_{key}"].dtype
        np.testing.assert_allclose(written.asnumpy(), DATA[f"fc{case}_{key}"], rtol=tol, atol=tol)
        np.testing.assert_array_equal(out.asnumpy(), written.asnumpy())


def test_fused_cast_adam_weight_decay_dtypes():
    f32 = np.float32
    var = Parameter(Tensor(np.ones(2, np.float64)), name="var")
    slots = [Parameter(Tensor(np.ones(2, f32)), name=n) for n in ("m", "v")]
    scalars = [Tensor(0.1, ms.float32)] * 5
    with pytest.raises(TypeError, match="var"):
        P.FusedCastAdamWeightDecay()(var, *slots, *scalars, Tensor(np.ones(2, f32)), 1.0)
    var = Parameter(Tensor(np.ones(2, f32)), name="var")
    with pytest.raises(TypeError, match="gradient"):
        P.FusedCastAdamWeightDecay()(var, *slots, *scalars, Tensor(np.ones(2, np.float16)), 1.0)


# ---- the view classes, CopyWithSlice -------------------------------------------------------------

def test_views_match_mindspore():
    x, cot = Tensor(DATA["view_x"]), Tensor(DATA["view_cot"])
    np.testing.assert_array_equal(F.SelectView()(x, 2, 1).asnumpy(), DATA["select_out"])
    dx = ms.grad(lambda a: (F.SelectView()(a, 2, 1) * cot).sum())(x)
    np.testing.assert_array_equal(dx.asnumpy(), DATA["select_dx"])
    np.testing.assert_array_equal(F.TransposeView()(x, (2, 0, -2)).asnumpy(),
                                  DATA["transpose_out"])
    np.testing.assert_array_equal(F.TransposeExtView()(x, 0, -1).asnumpy(),
                                  DATA["transpose_ext_out"])


def test_view_grads_and_errors():
    x = Tensor(np.random.default_rng(4).standard_normal((2, 3, 4)))
    check_grads(lambda a: F.SelectView()(a, 1, -1), (x,), order=2)
    check_grads(lambda a: F.TransposeView()(a, (1, 2, 0)), (x,), order=2)
    check_grads(lambda a: F.TransposeExtView()(a, 1, 2), (x,), order=2)
    with pytest.raises(TypeError, match="input_perm"):
        F.TransposeView()(x, [1, 0, 2])
    with pytest.raises(ValueError, match="permutation"):
        F.TransposeView()(x, (1, 1, 0))
    with pytest.raises(IndexError, match="index"):
        F.SelectView()(x, 3, 1)


def test_reusing_returns_its_argument():
    def body(i, val):
        return val * i

    assert F.Reusing()(body) is body
    val = Tensor(np.array([1.0]))
    for i in range(1, 4):
        val = F.Reusing()(body)(i, val)
    np.testing.assert_array_equal(val.asnumpy(), [6.0])


def test_copy_with_slice_writes_in_place():
    target = Tensor(np.ones((2, 3), np.float32))
    src = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    out = F.CopyWithSlice()(target, src)
    np.testing.assert_array_equal(target.asnumpy(), src.asnumpy())
    np.testing.assert_array_equal(out.asnumpy(), src.asnumpy())
    with pytest.raises(ValueError, match="dtype"):
        F.CopyWithSlice()(target, Tensor(np.zeros((2, 3), np.int32)))
    with pytest.raises(ValueError, match="shape"):
        F.CopyWithSlice()(target, Tensor(np.zeros((3,), np.float32)))


# ---- SampleDistortedBoundingBoxV2 ----------------------------------------------------------------
# Its crops are random (MindSpore's stream cannot be reproduced): the fixture holds the cases that
# must fall back to the whole image; the others are checked against the constraints.

@pytest.mark.parametrize("case", range(3))
def test_sample_distorted_bounding_box_fallback_matches_mindspore(case):
    op = P.SampleDistortedBoundingBoxV2(seed=1, seed2=2, max_attempts=20,
                                        area_range=tuple(DATA[f"sd{case}_area"].tolist()))
    outs = op(Tensor(DATA[f"sd{case}_size"]), Tensor(DATA[f"sd{case}_boxes"]),
              Tensor(np.array([DATA[f"sd{case}_covered"]], np.float32)))
    for j, out in enumerate(outs):
        assert out.asnumpy().dtype == DATA[f"sd{case}_out{j}"].dtype
        np.testing.assert_array_equal(out.asnumpy(), DATA[f"sd{case}_out{j}"])


@pytest.mark.parametrize("seed", range(1, 13))
def test_sample_distorted_bounding_box_constraints(seed):
    height, width = 120, 90
    box = np.array([[[0.2, 0.3, 0.7, 0.8]]], np.float32)
    op = P.SampleDistortedBoundingBoxV2(seed=seed, aspect_ratio_range=(0.5, 2.0),
                                        area_range=(0.2, 0.9))
    args = (Tensor(np.array([height, width, 3], np.int32)), Tensor(box),
            Tensor(np.array([0.6], np.float32)))
    begin, size, crop = (t.asnumpy() for t in op(*args))
    y, x, h, w = begin[0], begin[1], size[0], size[1]
    assert begin[2] == 0 and size[2] == -1
    assert 0 <= y and y + h <= height and 0 <= x and x + w <= width
    assert 0.2 * height * width <= h * w <= 0.9 * height * width
    assert 0.5 * h - 1 <= w <= 2.0 * h + 1
    by0, bx0, by1, bx1 = int(0.2 * height), int(0.3 * width), int(0.7 * height), int(0.8 * width)
    inter = max(0, min(y + h, by1) - max(y, by0)) * max(0, min(x + w, bx1) - max(x, bx0))
    assert inter >= 0.6 * (by1 - by0) * (bx1 - bx0)
    np.testing.assert_allclose(crop, [[[y / height, x / width, (y + h) / height,
                                        (x + w) / width]]], rtol=1e-6)
    again = P.SampleDistortedBoundingBoxV2(seed=seed, aspect_ratio_range=(0.5, 2.0),
                                           area_range=(0.2, 0.9))(*args)
    np.testing.assert_array_equal(again[0].asnumpy(), begin)
    np.testing.assert_array_equal(op(*args)[1].asnumpy(), size)


def test_sample_distorted_bounding_box_errors():
    op = P.SampleDistortedBoundingBoxV2(seed=1)
    size = Tensor(np.array([60, 40, 3], np.int32))
    covered = Tensor(np.array([0.1], np.float32))
    with pytest.raises(ValueError, match="use_image_if_no_bounding_boxes"):
        op(size, Tensor(np.zeros((1, 0, 4), np.float32)), covered)
    with pytest.raises(ValueError, match="max_attempts"):
        P.SampleDistortedBoundingBoxV2(max_attempts=0)
    with pytest.raises(TypeError, match="bounding_boxes"):
        op(size, Tensor(np.zeros((1, 1, 4))), covered)
    with pytest.raises(ValueError, match="bounding_boxes"):
        op(size, Tensor(np.zeros((1, 4), np.float32)), covered)
    with pytest.raises(ValueError, match="min_object_covered"):
        op(size, Tensor(np.array([[[0, 0, 1, 1]]], np.float32)),
           Tensor(np.array([1.5], np.float32)))
    with pytest.raises(ValueError, match="y_min"):
        op(size, Tensor(np.array([[[0.6, 0.1, 0.5, 0.5]]], np.float32)), covered)
    with pytest.raises(ValueError, match="image_size"):
        op(Tensor(np.array([60, 40], np.int32)), Tensor(np.array([[[0, 0, 1, 1]]], np.float32)),
           covered)


# ---- FusedAdaFactor (MindSpore runs it on CPU in graph mode only) --------------------------------

ADA_CASES = [((2, 3), (False, False, False), 0.0), ((2, 3), (True, True, True), 0.0),
             ((4,), (False, False, False), 0.0), ((4,), (True, True, True), 2.0),
             ((2, 3, 2), (True, False, True), 0.5), ((3, 2), (False, True, False), 2.0)]


def _ada_slots(shape, param0):
    factored = len(shape) >= 2

    def zeros(s, n):
        return Parameter(Tensor(np.zeros(s, np.float32)), name=n)
    return [Parameter(Tensor(param0), name="param"), zeros(shape, "exp_avg"),
            zeros(shape[:-1] if factored else (1,), "row"),
            zeros(shape[:-2] + shape[-1:] if factored else (1,), "col"),
            zeros(shape if not factored else (1,), "sq")]


@pytest.mark.parametrize("case", range(len(ADA_CASES)))
def test_fused_ada_factor_matches_mindspore(case):
    shape, flags, norm = ADA_CASES[case]
    slots = _ada_slots(shape, DATA[f"af{case}_param0"])
    op = (P.FusedAdaFactorWithGlobalNorm if norm else P.FusedAdaFactor)(*flags)
    for step in range(2):
        extra = [Tensor(norm, ms.float32)] if norm else []
        out = op(Tensor(np.array([1e-30, 1e-3], np.float32)), 1.0, 0.9,
                 Tensor(0.8 if step == 0 else 0.7, ms.float32), 0.05, 0.1,
                 Tensor(DATA[f"af{case}_grads"][step]), *slots, *extra)
        np.testing.assert_array_equal(out.asnumpy(), slots[0].asnumpy())
    for slot, key in zip(slots, ("param", "exp_avg", "row", "col", "sq")):
        np.testing.assert_allclose(slot.asnumpy(), DATA[f"af{case}_{key}"], rtol=1e-5,
                                   atol=1e-6)


def test_fused_ada_factor_errors():
    slots = _ada_slots((2, 3), np.ones((2, 3), np.float32))
    eps, grad = Tensor(np.array([1e-30, 1e-3], np.float32)), Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="enable_first_moment"):
        P.FusedAdaFactor(enable_first_moment=1)
    with pytest.raises(ValueError, match="epsilon"):
        P.FusedAdaFactor()(Tensor(np.array([1e-30], np.float32)), 1.0, 0.9, 0.8, 0.0, 0.1, grad,
                           *slots)
    with pytest.raises(ValueError, match="exp_avg_sq_row"):
        P.FusedAdaFactor()(eps, 1.0, 0.9, 0.8, 0.0, 0.1, grad, slots[0], slots[1], slots[3],
                           slots[3], slots[4])
    with pytest.raises(TypeError, match="inputs"):
        P.FusedAdaFactorWithGlobalNorm()(eps, 1.0, 0.9, 0.8, 0.0, 0.1, grad, *slots)
    with pytest.raises(TypeError, match="gradient"):
        P.FusedAdaFactor()(eps, 1.0, 0.9, 0.8, 0.0, 0.1, Tensor(np.ones((2, 3))), *slots)
