"""float16 reductions and losses past 65,504 elements (docs/reliability.md §6).

In float16 a count past 65,504 is inf, so the mean of 70,000 elements was 0 or nan with a zero
gradient (var, std and every loss averaging its elements inherited it); and a float16 running
sum stops growing once its ulp passes the addend (NumPy adds a strided axis in float16: 70,000
halves summed to 2,048). Every reduction, normalisation and loss now accumulates and divides
wide (float64) and rounds once to float16, forward and backward.

Each case runs one op in float16 on 70,000-element inputs (1-D, or 2-D reduced along the long
axis, which NumPy walks strided) and checks, in float16 steps from the float64 computation
rounded to float16 (0: correctly rounded):
- the value;
- the gradient of sum(out * w), w a fixed float16 cotangent (1 for a scalar out), against the
  float64 gradient rounded;
each within the case's tolerance, and finite and nonzero wherever the rounded truth is. A
tolerance above 0 names its reason (see `_WHY`). The float64 computation is the same minispore
op on the same (exactly widened) inputs; `test_float64_truth_is_numpy` pins it to NumPy for the
plain reductions. `test_coverage` ties the cases to the audit: every registered reduction,
normalisation and loss primitive, every functional reduction and loss and every loss cell has a
case or a stated exemption.

MindSpore 2.10 (CPU) was run on the same inputs (the `_MINDSPORE` fixture). Its sums, means,
variances, norms and log-sum-exps are correctly rounded (it accumulates in float32), but the
gradients of mean, var, std and most 'mean' losses are 0 (1/n is inf in its float16 count),
kl_div and multilabel_soft_margin_loss are 0, cross_entropy, binary_cross_entropy,
cosine_similarity and DiceLoss nan, norm inf once the sum of squares passes 65,504, and cumsum
accumulates in float16 (stuck at 2,048). `test_never_worse_than_mindspore` checks minispore
against those numbers.
"""
from typing import Callable, NamedTuple

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.nn import loss as nn_loss
from minispore.ops import operations as P
from minispore.ops.function import loss_func, nn_func
from minispore.ops.primitive import PRIMITIVES

N = 70_000  # past 65,504 (float16's largest finite) and 65,520 (where it rounds to inf)
F16 = np.float16


def _inputs():
    """The float16 inputs (also fed to MindSpore for `_MINDSPORE`); ints stay ints."""
    rng = np.random.default_rng(20_251_125)

    def u(lo, hi, shape):
        return rng.uniform(lo, hi, shape).astype(F16)

    onehot = np.eye(3, dtype=F16)[rng.integers(0, 3, N)]
    probs = u(0.1, 1, (2, N))
    return {
        "x": u(0, 1, N), "y": u(0, 1, N), "p": u(0.01, 0.99, N), "big": u(0.5, 1.5, N),
        "x2": u(0, 1, (N, 2)), "wide": u(0, 1, (2, N)),  # reduced along their long axis
        "a": u(0, 1, (2, N)), "pos": u(1.5, 2.5, (2, N)), "neg": u(0, 1, (2, N)),
        "v1": u(1, 2, (2, N)), "v2": u(1, 2, (2, N)),
        "lab": rng.integers(0, 2, N).astype(F16),
        "pm": np.where(rng.random(N) < .5, 1, -1).astype(F16), "var": u(0.5, 1.5, N),
        "logits": rng.normal(0, 1, (N, 3)).astype(F16),
        "cls": rng.integers(0, 3, N).astype(np.int32),
        "onehot": onehot, "probs2": (probs / probs.sum(1, keepdims=True, dtype=float)).astype(F16),
        "cls2": np.array([5, 69_999], np.int32), "pm2": np.array([1, -1], np.int32),
        "ml_target": np.where(rng.random((N, 2)) < .5, -1, rng.integers(0, 2, (N, 2))).astype(
            np.int32),
        "bias": u(-1, 1, 3),
    }


D = _inputs()

# Why a case may be 1 or 2 float16 steps from the rounded float64 truth (0 otherwise).
_WHY = {
    "saved": "the bprop reads the primitive's saved float16 output (as MindSpore's does), "
             "rounded by up to half a step",
    "paths": "the input reaches the output by two paths (the statistics and the values), "
             "each path's gradient rounded to float16 before the engine adds them",
}


class Case(NamedTuple):
    name: str
    covers: tuple          # audited names: primitives, ops.<fn>, nn.<Cell>
    fn: Callable           # fn(*Tensors) -> Tensor; the first is differentiated
    args: tuple            # keys of D
    value: int = 0         # tolerances in float16 steps (None: not checked), their `_WHY` keys
    grad: int = 0
    why: str = ""


def _t(key, dt):
    a = D[key]
    return Tensor(a.astype(dt) if a.dtype.kind == "f" else a)


def _cat(*ts):
    """Several outputs as one 1-D Tensor: each checked, each differentiated."""
    return ops.concat([ops.reshape(t, (-1,)) for t in ts])


def _ln(x):  # P.LayerNorm's three outputs, all differentiated (the statistics' own gradients)
    g, b = ops.ones((x.shape[1],), x.dtype), ops.zeros((x.shape[1],), x.dtype)
    return _cat(*P.LayerNorm(1, 1)(x, g, b))


def _bn(x, primitive):  # training batch norm on (N, 2): statistics over the 70,000 rows
    c = x.shape[1]
    mean, var = ms.Parameter(ops.zeros((c,), x.dtype)), ms.Parameter(ops.ones((c,), x.dtype))
    g, b = ops.ones((c,), x.dtype), ops.zeros((c,), x.dtype)
    if not primitive:
        return ops.batch_norm(x, mean, var, g, b, training=True)
    y, bm, bv, _, _ = P.BatchNorm(is_training=True)(x, g, b, mean, var)
    return _cat(y, bm, bv)


def _dice_label(x):
    return ops.cast(Tensor(D["lab"]), x.dtype)


def _w3(x):
    return Tensor(np.array([1.0, 2.0, 0.5], x.asnumpy().dtype))


CASES = [
    # ---- reductions ----
    Case("sum", ("ReduceSum", "ops.sum"), lambda x: ops.sum(x), ("x",)),
    Case("sum_axis0", ("ReduceSum", "ops.reduce_sum"), lambda x: ops.reduce_sum(x, 0), ("x2",)),
    Case("ReduceSum_keep", ("ReduceSum",), lambda x: P.ReduceSum(True)(x, 1), ("wide",)),
    Case("mean", ("ReduceMean", "ops.mean"), lambda x: ops.mean(x), ("x",)),
    Case("mean_axis0", ("ReduceMean", "ops.reduce_mean"), lambda x: ops.reduce_mean(x, 0),
         ("x2",)),
    Case("Tensor.mean", ("ReduceMean",), lambda x: x.mean(axis=1, keep_dims=True), ("wide",)),
    Case("var", ("ReduceVar", "ops.var"), lambda x: ops.var(x), ("x",)),
    Case("var_axis0_ddof1", ("ReduceVar",), lambda x: ops.var(x, 0, ddof=1), ("x2",)),
    Case("std", ("StdDev", "ops.std"), lambda x: ops.std(x), ("x",)),
    Case("std_axis0", ("StdDev",), lambda x: ops.std(x, 0), ("x2",)),
    Case("var_mean", ("ops.var_mean",), lambda x: _cat(*ops.var_mean(x, 1)), ("wide",),
         grad=2, why="paths"),
    Case("std_mean", ("ops.std_mean",), lambda x: _cat(*ops.std_mean(x, 1)), ("wide",),
         grad=2, why="paths"),
    Case("norm", ("ops.norm",), lambda x: ops.norm(x), ("big",)),  # sum of squares ~76,000
    Case("norm_axis0", ("ops.norm",), lambda x: ops.norm(x, dim=0), ("x2",)),
    Case("norm_1", ("ops.norm",), lambda x: ops.norm(x, 1), ("x",)),
    Case("norm_3", ("ops.norm",), lambda x: ops.norm(x, 3), ("x",)),
    Case("norm_fro", ("ops.norm",), lambda x: ops.norm(x, "fro"), ("x2",)),
    Case("logsumexp", ("ReduceLogSumExp", "ops.logsumexp"), lambda x: ops.logsumexp(x, 0),
         ("x",)),
    Case("logsumexp_axis0", ("ReduceLogSumExp",), lambda x: ops.logsumexp(x, 0), ("x2",)),
    Case("cumsum", ("CumSum", "ops.cumsum"), lambda x: ops.cumsum(x, 0), ("x",)),
    Case("cumsum_axis0", ("CumSum",), lambda x: ops.cumsum(x, 0), ("x2",)),
    Case("cumsum_exclusive_reverse", ("CumSum",),
         lambda x: P.CumSum(exclusive=True, reverse=True)(x, 1), ("wide",)),
    # ---- softmax family and normalisations ----
    Case("softmax", ("Softmax", "SoftmaxGrad", "ops.softmax"), lambda x: ops.softmax(x, 0),
         ("x",), grad=1, why="saved"),
    Case("softmax_axis0", ("Softmax", "SoftmaxGrad"), lambda x: ops.softmax(x, 0), ("x2",),
         grad=1, why="saved"),
    # LogSoftmax's gradient reads its float16 output: see test_log_softmax_gradient
    Case("log_softmax", ("LogSoftmax", "ops.log_softmax"), lambda x: ops.log_softmax(x, 0),
         ("x",), grad=None),
    Case("log_softmax_axis0", ("LogSoftmax",), lambda x: ops.log_softmax(x, 0), ("x2",),
         grad=None),
    Case("layer_norm", ("LayerNorm", "LayerNormGrad", "ops.layer_norm"),
         lambda x: ops.layer_norm(x, (N,)), ("wide",)),
    Case("LayerNorm_statistics", ("LayerNorm",), _ln, ("wide",), grad=1, why="paths"),
    Case("group_norm", ("ops.group_norm",), lambda x: ops.group_norm(x[None], 1)[0], ("wide",)),
    Case("instance_norm", ("ops.instance_norm",), lambda x: ops.instance_norm(x[None])[0],
         ("wide",)),
    Case("batch_norm", ("BatchNormTraining", "BatchNormGrad", "ops.batch_norm"),
         lambda x: _bn(x, False), ("x2",)),
    Case("BatchNorm_statistics", ("BatchNormTraining",), lambda x: _bn(x, True), ("x2",),
         grad=1, why="paths"),
    Case("adaptive_avg_pool2d", ("ops.adaptive_avg_pool2d",),
         lambda x: ops.adaptive_avg_pool2d(ops.reshape(x, (1, 1, 2, N)), 1), ("wide",)),
    # the bias gradient sums 70,000 rows (the forward is elementwise: its value is not checked)
    Case("dense_bias_grad", ("Dense",),
         lambda b, x: ops.dense(x, Tensor(np.ones((3, 2), b.asnumpy().dtype)), b), ("bias", "x2"),
         value=None),
    Case("cosine_similarity", ("ops.cosine_similarity",),
         lambda a, b: ops.cosine_similarity(a, b, 1), ("v1", "v2")),
    # ---- losses ('mean' unless named); a cell that only calls a functional loss covers both ----
    Case("MSELoss", ("nn.MSELoss", "ops.mse_loss"), lambda x, y: nn.MSELoss()(x, y), ("x", "y")),
    Case("mse_loss_ext", ("ops.mse_loss_ext",), lambda x, y: ops.mse_loss_ext(x, y), ("x", "y")),
    Case("L1Loss", ("nn.L1Loss", "ops.l1_loss"), lambda x, y: nn.L1Loss()(x, y), ("x", "y")),
    Case("L1LossExt", ("nn.L1LossExt",), lambda x, y: nn.L1LossExt()(x, y), ("x", "y")),
    Case("MAELoss", ("nn.MAELoss",), lambda x, y: nn.MAELoss()(x, y), ("x", "y")),
    Case("RMSELoss", ("nn.RMSELoss",), lambda x, y: nn.RMSELoss()(x, y), ("x", "y")),
    Case("HuberLoss", ("nn.HuberLoss", "ops.huber_loss"), lambda x, y: nn.HuberLoss()(x, y),
         ("x", "y")),
    Case("SmoothL1Loss", ("nn.SmoothL1Loss", "ops.smooth_l1_loss"),
         lambda x, y: nn.SmoothL1Loss(reduction="mean")(x, y), ("x", "y")),
    Case("SoftMarginLoss", ("nn.SoftMarginLoss", "ops.soft_margin_loss"),
         lambda x, t: nn.SoftMarginLoss()(x, t), ("x", "pm")),
    Case("HingeEmbeddingLoss", ("nn.HingeEmbeddingLoss", "ops.hinge_embedding_loss"),
         lambda x, t: nn.HingeEmbeddingLoss()(x, t), ("x", "pm")),
    Case("MarginRankingLoss", ("nn.MarginRankingLoss", "ops.margin_ranking_loss"),
         lambda x, y, t: nn.MarginRankingLoss()(x, y, t), ("x", "y", "pm")),
    Case("KLDivLoss", ("nn.KLDivLoss", "ops.kl_div"), lambda x, y: nn.KLDivLoss()(x, y),
         ("x", "y")),
    Case("kl_div_batchmean", ("ops.kl_div",), lambda x, y: ops.kl_div(x, y, "batchmean"),
         ("x", "y")),
    Case("BCELoss", ("nn.BCELoss", "ops.binary_cross_entropy"),
         lambda p, y: nn.BCELoss(reduction="mean")(p, y), ("p", "lab")),
    Case("BCEWithLogitsLoss", ("nn.BCEWithLogitsLoss", "ops.binary_cross_entropy_with_logits",
                               "BCEWithLogits"),
         lambda x, y: nn.BCEWithLogitsLoss()(x, y), ("x", "lab")),
    Case("GaussianNLLLoss", ("nn.GaussianNLLLoss", "ops.gaussian_nll_loss"),
         lambda x, y, v: nn.GaussianNLLLoss()(x, y, v), ("x", "y", "var")),
    Case("PoissonNLLLoss", ("nn.PoissonNLLLoss",), lambda x, y: nn_loss.PoissonNLLLoss()(x, y),
         ("x", "y")),
    Case("CosineEmbeddingLoss", ("nn.CosineEmbeddingLoss", "ops.cosine_embedding_loss"),
         lambda a, b, t: nn.CosineEmbeddingLoss()(a, b, t), ("v1", "v2", "pm2")),
    Case("TripletMarginLoss", ("nn.TripletMarginLoss", "ops.triplet_margin_loss"),
         lambda a, p, n: nn.TripletMarginLoss()(a, p, n), ("a", "pos", "neg")),
    Case("TripletMarginWithDistanceLoss", ("nn.TripletMarginWithDistanceLoss",),
         lambda a, p, n: nn_loss.TripletMarginWithDistanceLoss()(a, p, n), ("a", "pos", "neg")),
    Case("DiceLoss", ("nn.DiceLoss",), lambda x: nn.DiceLoss()(x, _dice_label(x)), ("big",)),
    Case("MultiClassDiceLoss", ("nn.MultiClassDiceLoss",),
         lambda x, y: nn_loss.MultiClassDiceLoss()(x, y), ("logits", "onehot")),
    Case("LossBase.get_loss", ("nn.LossBase",), lambda x: nn.LossBase().get_loss(x), ("x",)),
    # 70,000 samples of 3 classes (the mean's count), or 2 samples of 70,000 classes (the sums
    # over a vocabulary)
    Case("cross_entropy", ("ops.cross_entropy", "SparseSoftmaxCrossEntropy",
                           "SparseSoftmaxCrossEntropyGrad"),
         lambda x, c: ops.cross_entropy(x, c), ("logits", "cls")),
    Case("CrossEntropyLoss", ("nn.CrossEntropyLoss", "SparseSoftmaxCrossEntropy"),
         lambda x, c: nn.CrossEntropyLoss()(x, c), ("wide", "cls2")),
    Case("cross_entropy_probabilities", ("ops.cross_entropy",),
         lambda x, t: ops.cross_entropy(x, t), ("wide", "probs2")),
    Case("cross_entropy_weighted_smoothed", ("ops.cross_entropy",),
         lambda x, c: ops.cross_entropy(x, c, Tensor(D["var"]).astype(x.dtype),
                                        label_smoothing=0.1), ("wide", "cls2")),
    Case("NLLLoss", ("nn.NLLLoss", "ops.nll_loss"), lambda x, c: nn.NLLLoss(_w3(x))(x, c),
         ("logits", "cls")),
    Case("SoftmaxCrossEntropyWithLogits", ("nn.SoftmaxCrossEntropyWithLogits",),
         lambda x, y: nn.SoftmaxCrossEntropyWithLogits(reduction="mean")(x, y),
         ("wide", "probs2")),
    Case("SoftmaxCrossEntropyWithLogits_sparse", ("nn.SoftmaxCrossEntropyWithLogits",),
         lambda x, c: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(x, c),
         ("wide", "cls2")),
    Case("FocalLoss", ("nn.FocalLoss",),
         lambda x, c: nn.FocalLoss()(x, ops.reshape(c, (2, 1))), ("wide", "cls2")),
    Case("MultiMarginLoss", ("nn.MultiMarginLoss", "ops.multi_margin_loss"),
         lambda x, c: nn.MultiMarginLoss()(x, c), ("logits", "cls")),
    Case("multi_margin_loss_70000_classes", ("ops.multi_margin_loss",),
         lambda x, c: ops.multi_margin_loss(x, c), ("wide", "cls2")),
    Case("MultiLabelSoftMarginLoss", ("nn.MultiLabelSoftMarginLoss",
                                      "ops.multilabel_soft_margin_loss"),
         lambda x, y: nn.MultiLabelSoftMarginLoss()(x, y), ("wide", "wide")),
    Case("MultilabelMarginLoss", ("nn.MultilabelMarginLoss", "ops.multilabel_margin_loss"),
         lambda x, t: nn_loss.MultilabelMarginLoss()(x, t), ("x2", "ml_target")),
]

# Audited, with no case: why each needs none.
EXEMPT = {
    "ReduceMax": "picks an element: nothing accumulates (ties split by a count taken in float64)",
    "ReduceMin": "picks an element", "ArgMaxWithValue": "picks an element",
    "ArgMinWithValue": "picks an element", "Argmax": "an index", "Argmin": "an index",
    "ReduceProd": "a product: 70,000 float16 factors under- or overflow on their own; no count",
    "ProdOthers": "products (ReduceProd's gradient)", "LinearScan": "cumprod's recurrence",
    "CTCLossV2": "float32 and float64 only (float16 is refused)", "CTCLossV2Grad": "the same",
    "ops.ctc_loss": "the same", "nn.CTCLoss": "the same",
    "nn.SampledSoftmaxLoss": "a random subset of classes per call; its batch mean is the "
                             "SoftmaxCrossEntropyWithLogits reduction, covered above",
}
_ELEMENTWISE = ("Tanh", "TanhGrad", "Sigmoid", "SigmoidGrad", "ReLU", "ReluGrad", "Softplus",
                "StopGradient", "InsertGradientOf", "HookBackward", "GeLU", "GeLUGrad")
EXEMPT.update({name: "elementwise: no reduction" for name in _ELEMENTWISE})

# Functional reductions and normalisations audited by name (losses are found automatically).
_FUNCTIONS = ("sum", "reduce_sum", "mean", "reduce_mean", "var", "std", "var_mean", "std_mean",
              "norm", "logsumexp", "cumsum", "softmax", "log_softmax", "cosine_similarity",
              "layer_norm", "group_norm", "instance_norm", "batch_norm", "adaptive_avg_pool2d")
_AUDITED_MODULES = ("reduce_ops", "norm_ops", "loss_ops", "nn_ops")


def _ordered(a):
    """float16 bit patterns as integers that count float16 steps (-0 and 0 are one step apart)."""
    i = np.asarray(a, F16).view(np.int16).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFF) - 1, i)


def _steps(got, truth):
    """Float16 steps between float16 `got` and float64 `truth` rounded to float16."""
    want = np.asarray(truth, np.float64)
    with np.errstate(over="ignore"):
        want16 = want.astype(F16)
    got = np.asarray(got)
    assert got.dtype == F16 and got.shape == want.shape, (got.dtype, got.shape, want.shape)
    nan = np.isnan(got) | np.isnan(want16)
    assert not (np.isnan(got) != np.isnan(want16)).any(), "a nan where the truth is not (or back)"
    d = np.abs(_ordered(got) - _ordered(want16))
    return np.where(nan | ((got == 0) & (want16 == 0)), 0, d)


_COTANGENTS = {}


def _cotangent(shape):
    if shape not in _COTANGENTS:
        rng = np.random.default_rng(sum(shape) + 7)
        _COTANGENTS[shape] = rng.uniform(-1, 1, shape).astype(F16)
    return _COTANGENTS[shape]


_RESULTS = {}


def _run(case, dt):
    """(value, gradient of the first input) of the case in dtype dt (computed once)."""
    key = (case.name, np.dtype(dt))
    if key not in _RESULTS:
        _RESULTS[key] = _compute(case, dt)
    return _RESULTS[key]


def _compute(case, dt):
    args = [_t(k, dt) for k in case.args]
    out = case.fn(*args)
    if case.grad is None:
        return out.asnumpy(), None
    w = None if out.ndim == 0 else Tensor(_cotangent(out.shape).astype(dt))

    def loss(*a):
        r = case.fn(*a)
        return r if w is None else ops.sum(r * w)
    return out.asnumpy(), ms.grad(loss, grad_position=0)(*args).asnumpy()


def _check(label, got, truth, tol):
    with np.errstate(over="ignore"):
        truth16 = np.asarray(truth).astype(F16)
    # nothing inf or nan where the rounded truth is finite, and no 0 more than `tol` steps from
    # a nonzero rounded truth (explicitly, though `_steps` would catch it too)
    assert np.isfinite(got[np.isfinite(truth16)]).all(), f"{label}: non-finite values"
    steps_from_0 = np.abs(truth16).view(np.int16)  # |bits| of a float16 count steps from 0
    assert not ((got == 0) & (steps_from_0 > tol)).any(), f"{label}: zeros"
    steps = _steps(got, truth)
    worst = int(steps.max()) if steps.size else 0
    assert worst <= tol, (f"{label}: {worst} float16 steps from the rounded float64 truth "
                          f"(tolerance {tol}) at {int((steps > tol).sum())} of {steps.size}")
    return worst


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_float16_matches_float64_rounded(case):
    value, grad = _run(case, F16)
    value64, grad64 = _run(case, np.float64)
    if case.value is not None:
        _check(f"{case.name} value", value, value64, case.value)
    if grad is not None:
        _check(f"{case.name} gradient", grad, grad64, case.grad)


def test_tolerances_say_why():
    for case in CASES:
        if max(case.value or 0, case.grad or 0):
            reasons = [r.strip() for r in case.why.split(",") if r.strip()]
            assert reasons and all(r in _WHY for r in reasons), case.name
        else:
            assert not case.why, f"{case.name} is exact: no reason needed"


def test_log_softmax_gradient():
    """LogSoftmax's gradient dout - exp(out) * sum(dout) reads its float16 output, which carries
    up to 2^-11 |out| of rounding (|out| ~ 11 here): exp turns that into a relative error of the
    softmax term, many float16 steps where dout and that term cancel. That much is inherent
    (MindSpore's LogSoftmaxGrad reads the output too and gives bitwise the same gradients on
    these inputs: 108 and 66 steps at worst).
    The rest is exact: the gradient is the float64 evaluation of the formula on the saved float16
    output, rounded, and within the inherent bound of the true gradient."""
    for key in ("x", "x2"):
        x = _t(key, F16)
        w = _cotangent(x.shape)
        out = ops.log_softmax(x, 0).asnumpy()
        g = ms.grad(lambda a: ops.sum(ops.log_softmax(a, 0) * Tensor(w)))(x).asnumpy()
        o64, w64 = out.astype(np.float64), w.astype(np.float64)
        formula = w64 - np.exp(o64) * w64.sum(0)
        assert _steps(g, formula).max() <= 0
        x64 = D[key].astype(np.float64)
        lse = np.log(np.exp(x64).sum(0))
        truth = w64 - np.exp(x64 - lse) * w64.sum(0)
        bound = np.abs(np.exp(x64 - lse) * w64.sum(0)) * np.abs(o64) * 2.0 ** -10 + \
            np.spacing(np.abs(truth).astype(F16)).astype(np.float64)
        assert (np.abs(g - truth) <= bound).all()


# ---- the examples --------------------------------------------------------------------

def test_mean_of_70000_ones_and_its_gradient():
    x = Tensor(np.ones(N, F16))
    assert ops.mean(x).asnumpy() == 1.0  # was 0: the sum over a count of inf
    g = ms.grad(lambda a: ops.mean(a))(x).asnumpy()
    assert g.dtype == F16 and (g == F16(1 / N)).all() and g[0] != 0  # 1/n rounded, not 0


def test_strided_float16_sums_keep_growing():
    halves = Tensor(np.full((N, 2), 0.5, F16))
    assert (ops.sum(halves, 0).asnumpy() == np.float16(35_000)).all()  # was 2,048: float16 accumulation
    assert (ops.cumsum(halves, 0).asnumpy()[-1] == np.float16(35_000)).all()


def test_sums_past_float16_range_are_inf_as_in_mindspore():
    """A sum whose true value rounds past 65,504 is inf, correctly rounded (MindSpore too)."""
    assert ops.sum(Tensor(np.ones(N, F16))).asnumpy() == np.inf
    assert ops.mean(Tensor(np.ones(N, F16))).asnumpy() == 1.0  # while the mean is finite


def test_float64_truth_is_numpy():
    """The float64 reference above is minispore's float64 path: pinned here to NumPy's."""
    x64, x2 = D["x"].astype(np.float64), D["x2"].astype(np.float64)
    for got, want in ((ops.mean(Tensor(x64)), x64.mean()), (ops.var(Tensor(x2), 0), x2.var(0)),
                      (ops.std(Tensor(x64), ddof=1), x64.std(ddof=1)),
                      (ops.sum(Tensor(x2), 0), x2.sum(0)),
                      (ops.cumsum(Tensor(x64), 0), np.cumsum(x64))):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12)


# ---- MindSpore 2.10 (CPU) on the same inputs -------------------------------------------------
# Printed by data/make_mindspore_float16_reductions.py (which imports MindSpore, so not imported):
# (worst value, worst gradient) in float16 steps from the rounded float64 truth, by `_steps`, of
# MindSpore 2.10's float16 results on D (sha256 of its arrays, sorted by key: 996fda8aa510c60b...),
# with the same cotangents (its int64 class indices for MultiMarginLoss). NAN: a nan (or inf)
# where the truth is finite. ~240 gradient steps are a gradient of 0: 1/70,000 is a float16
# subnormal of 240 steps. Left out, as MindSpore 2.10 (CPU) fails there: TripletMarginLoss,
# MultilabelMarginLoss and multi_margin_loss over 70,000 classes (kernel errors), SoftMarginLoss
# (no kernel), instance_norm (no such op), the statistics and dense cases (no counterpart);
# log_softmax's gradient is in test_log_softmax_gradient.
NAN = 10 ** 9
_MINDSPORE = {
    # reductions: values correctly rounded but two of var's (1 step); the gradients of mean,
    # var and std are 0 (or, on a keep_dims axis, near it)
    "sum": (0, 0), "sum_axis0": (0, 0), "ReduceSum_keep": (0, 0), "LossBase.get_loss": (0, 0),
    "mean": (0, 240), "mean_axis0": (0, 178), "Tensor.mean": (0, 219),
    "var": (0, 241), "var_axis0_ddof1": (1, 179), "std": (0, 416), "std_axis0": (0, 309),
    "var_mean": (1, 227), "std_mean": (0, 357),
    "norm": (8116, 7574),  # the sum of squares (~76,000) overflows: inf, and its gradient 0
    "norm_axis0": (0, 1), "norm_1": (0, 0), "norm_3": (0, 2), "norm_fro": (0, 1),
    "logsumexp": (0, 585), "logsumexp_axis0": (0, 781),  # gradients: exp(x - float16 out)
    # float16 accumulation: the prefixes stop at 2,048
    "cumsum": (4166, 9443), "cumsum_axis0": (4167, 30553),
    "cumsum_exclusive_reverse": (4169, 23595),
    "softmax": (1, 1), "softmax_axis0": (1, 1), "log_softmax": (0, None),
    "log_softmax_axis0": (1, None),
    "layer_norm": (3844, 10),  # P.LayerNorm (ops.layer_norm has no kernel for 70,000)
    "group_norm": (0, 29), "batch_norm": (223, 25),  # nn.BatchNorm1d
    "adaptive_avg_pool2d": (0, 0), "cosine_similarity": (NAN, NAN),
    # losses
    "MSELoss": (0, 1), "L1Loss": (0, 0), "MAELoss": (0, 0), "RMSELoss": (0, 1),
    "HuberLoss": (0, 1), "SmoothL1Loss": (0, 239), "HingeEmbeddingLoss": (0, 241),
    "MarginRankingLoss": (0, 240), "KLDivLoss": (14336, 240), "kl_div_batchmean": (14336, 240),
    "BCELoss": (NAN, 5594), "BCEWithLogitsLoss": (0, 175), "GaussianNLLLoss": (0, 466),
    "PoissonNLLLoss": (0, 2), "CosineEmbeddingLoss": (NAN, NAN),
    "TripletMarginWithDistanceLoss": (0, 68), "DiceLoss": (NAN, NAN),
    "MultiClassDiceLoss": (0, 2), "cross_entropy": (NAN, 240), "CrossEntropyLoss": (NAN, 655),
    "cross_entropy_probabilities": (0, 656), "cross_entropy_weighted_smoothed": (12901, 656),
    "NLLLoss": (7331, 412), "SoftmaxCrossEntropyWithLogits": (0, 1),
    "SoftmaxCrossEntropyWithLogits_sparse": (0, 1), "FocalLoss": (1, 1),
    "MultiMarginLoss": (0, 0), "MultiLabelSoftMarginLoss": (14643, 60),
}


@pytest.mark.parametrize("name", sorted(_MINDSPORE))
def test_never_worse_than_mindspore(name):
    """Where MindSpore's float16 result is right, minispore's is as close; elsewhere closer."""
    case = next(c for c in CASES if c.name == name)
    ms_value, ms_grad = _MINDSPORE[name]
    value, grad = _run(case, F16)
    value64, grad64 = _run(case, np.float64)
    assert _steps(value, value64).max() <= ms_value
    if ms_grad is not None:
        assert _steps(grad, grad64).max() <= ms_grad


# ---- coverage ------------------------------------------------------------------------------------

def _required():
    prims = {name for name, cls in PRIMITIVES.items()
             if cls.__module__.rsplit(".", 1)[-1] in _AUDITED_MODULES}
    losses = {f"ops.{n}" for n in nn_func.__all__ + loss_func.__all__
              if "loss" in n or "entropy" in n or n == "kl_div"}
    cells = {f"nn.{n}" for n in nn_loss.__all__}
    return prims | losses | cells | {f"ops.{n}" for n in _FUNCTIONS}


def test_coverage():
    covered = {name for case in CASES for name in case.covers}
    required = _required()
    missing = required - covered - set(EXEMPT)
    assert not missing, f"audited ops without a float16 case or exemption: {sorted(missing)}"
    assert not covered & set(EXEMPT), sorted(covered & set(EXEMPT))
    stale = (covered | set(EXEMPT)) - required
    assert not stale, f"cases or exemptions naming no audited op: {sorted(stale)}"
    assert len({c.name for c in CASES}) == len(CASES)


def test_gradient_of_a_broadcast_operand_is_summed_wide():
    # The engine sums a broadcast operand's gradient back to its shape (SumTo): 70,000 float16
    # ones add up to 70,000 -> inf in float16, not a stalled 2,048; through a mean, 0.5.
    x = Tensor(np.ones((70000, 2), np.float16))
    b = Tensor(np.ones(2, np.float16))
    assert np.isinf(ms.grad(lambda b: (x + b).sum())(b).asnumpy()).all()
    got = ms.grad(lambda b: (x + b).mean())(b).asnumpy()
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, 0.5, atol=float(np.spacing(np.float16(0.5))))
