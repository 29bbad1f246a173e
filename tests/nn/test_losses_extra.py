"""CTC loss (`ops.ctc_loss`, `nn.CTCLoss`, the CTCLossV2 primitive) and the remaining loss cells
(MultiClassDiceLoss, MultilabelMarginLoss, PoissonNLLLoss, TripletMarginWithDistanceLoss):
MindSpore 2.10's signatures, numbers from MindSpore (tests/nn/data/mindspore_losses_extra.npz,
made by make_mindspore_losses_extra.py beside it), independent NumPy references, gradient checks,
impossible alignments, extreme inputs and errors."""
import inspect
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.ops import operations as P
from minispore.testing import check_grads

from ..ops.specs_losses import ctc_reference

MS = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_losses_extra.npz"))
RNG = np.random.default_rng(11)


def i32(a):
    return Tensor(np.asarray(a, np.int32))


def t64(a):
    return Tensor(np.asarray(a, np.float64))


def log_softmax(x, axis=-1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def _without_self(fn):
    sig = inspect.signature(fn)
    return str(sig.replace(parameters=list(sig.parameters.values())[1:]))


# ---- signatures ----------------------------------------------------------------------------------

# inspect.signature in MindSpore 2.10 (the 'self' parameter dropped)
CELLS = {
    "CTCLoss": ("(blank=0, reduction='mean', zero_infinity=False)",
                "(log_probs, targets, input_lengths, target_lengths)"),
    "MultiClassDiceLoss": ("(weights=None, ignore_indiex=None, activation='softmax')",
                           "(logits, label)"),
    "MultilabelMarginLoss": ("(reduction='mean')", "(x, target)"),
    "PoissonNLLLoss": ("(log_input=True, full=False, eps=1e-08, reduction='mean')",
                       "(input, target)"),
    "TripletMarginWithDistanceLoss": (
        "(distance_function=None, swap=False, reduction='mean', margin=1.0)",
        "(x, positive, negative)"),
}


@pytest.mark.parametrize("name", sorted(CELLS))
def test_cell_signatures_match_mindspore(name):
    cls = getattr(nn, name)
    assert issubclass(cls, nn.LossBase)
    assert (_without_self(cls.__init__), _without_self(cls.construct)) == CELLS[name]


def test_functional_and_primitive_signatures_match_mindspore():
    assert str(inspect.signature(ops.ctc_loss)) == (
        "(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean', "
        "zero_infinity=False)")
    assert str(inspect.signature(ops.multilabel_margin_loss)) == \
        "(input, target, reduction='mean')"
    assert _without_self(P.CTCLossV2.__init__) == \
        "(blank=0, reduction='none', zero_infinity=False)"
    assert nn.CTCLoss().reduction == "mean"


# ---- CTC against MindSpore -----------------------------------------------------------------------

def ctc_inputs(dtype, key="ctc_targets", il_key="ctc_il"):
    lp = log_softmax(MS["ctc_logits"], 2).astype(dtype)
    return Tensor(lp), i32(MS[key]), i32(MS[il_key]), i32(MS["ctc_tl"])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ctc_matches_mindspore(dtype):
    name = np.dtype(dtype).name
    args = ctc_inputs(dtype)
    tol = {"rtol": 2e-6, "atol": 2e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}
    loss, log_alpha = ops.ctc_loss(*args, reduction="none")
    assert loss.asnumpy().dtype == dtype and log_alpha.asnumpy().dtype == dtype
    np.testing.assert_allclose(loss.asnumpy(), MS[f"ctc_none_{name}"], **tol)
    want = MS[f"ctc_log_alpha_{name}"]
    assert log_alpha.shape == want.shape == (4, 6, 9)
    np.testing.assert_array_equal(np.isinf(log_alpha.asnumpy()), np.isinf(want))
    np.testing.assert_allclose(log_alpha.asnumpy(), want, **tol)
    np.testing.assert_allclose(ops.ctc_loss(*args, reduction="sum")[0].asnumpy(),
                               MS[f"ctc_sum_{name}"], **tol)
    # MindSpore 2.10 computes 'mean' in float32 even for float64 inputs; minispore keeps float64
    mean = ops.ctc_loss(*args)[0]
    assert mean.asnumpy().dtype == dtype
    np.testing.assert_allclose(mean.asnumpy(), MS[f"ctc_mean_{name}"], rtol=2e-6)
    if dtype == np.float64:  # and exact in float64
        tl = MS["ctc_tl"]
        want = np.mean(MS["ctc_none_float64"] / np.maximum(tl, 1))
        np.testing.assert_allclose(mean.asnumpy(), want, rtol=1e-12)
    np.testing.assert_allclose(nn.CTCLoss()(*args).asnumpy(), mean.asnumpy(), rtol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ctc_logit_gradients_match_mindspore(dtype):
    """Through log_softmax, the exact gradient and MindSpore's (which adds exp(log_probs)) give
    the same gradient of the logits."""
    name = np.dtype(dtype).name
    _, targets, il, tl = ctc_inputs(dtype)

    def total(z):
        return ops.ctc_loss(ops.log_softmax(z, 2), targets, il, tl)[0]
    got = ms.grad(total)(Tensor(MS["ctc_logits"].astype(dtype)))
    tol = 1e-6  # MindSpore's float64 log_softmax and 'mean' run at float32 accuracy
    np.testing.assert_allclose(got.asnumpy(), MS[f"ctc_grad_logits_{name}"], rtol=tol, atol=tol)


def test_ctc_other_blank_and_unbatched_match_mindspore():
    lp, _, il, tl = ctc_inputs(np.float32)
    got = nn.CTCLoss(blank=4, reduction="sum")(lp, i32(MS["ctc_blank4_targets"]), il, tl)
    np.testing.assert_allclose(got.asnumpy(), MS["ctc_blank4_sum"], rtol=2e-6)
    one = Tensor(lp.asnumpy()[:, 0])
    got = nn.CTCLoss(reduction="none")(one, i32([1, 2, 2]), i32([6]), i32([3]))
    assert got.shape == MS["ctc_2d_none"].shape == ()
    np.testing.assert_allclose(got.asnumpy(), MS["ctc_2d_none"], rtol=2e-6)
    got = nn.CTCLoss()(one, i32([[1, 2, 2]]), i32([6]), i32([3]))
    np.testing.assert_allclose(got.asnumpy(), MS["ctc_2d_mean"], rtol=2e-6)


def test_ctc_impossible_alignment():
    """1, 1, 1 needs 5 frames and gets 4: an infinite loss, a NaN gradient for that sequence only
    (as in MindSpore); with zero_infinity, loss and gradient 0 (MindSpore 2.10 zeroes only the
    gradient and still returns inf)."""
    lp, _, _, tl = ctc_inputs(np.float32)
    targets, il = i32(MS["ctc_imp_targets"]), i32(MS["ctc_imp_il"])
    loss = ops.ctc_loss(lp, targets, il, tl, reduction="none")[0].asnumpy()
    assert loss[0] == np.inf
    np.testing.assert_allclose(loss, MS["ctc_imp_none"], rtol=2e-6)
    logits = Tensor(MS["ctc_logits"].astype(np.float32))

    def total(z, zero_infinity):
        return ops.ctc_loss(ops.log_softmax(z, 2), targets, il, tl, reduction="sum",
                            zero_infinity=zero_infinity)[0]
    g = ms.grad(total)(logits, False).asnumpy()
    assert np.isnan(g[:, 0]).all() and np.isfinite(g[:, 1:]).all()
    zloss = ops.ctc_loss(lp, targets, il, tl, reduction="none", zero_infinity=True)[0].asnumpy()
    np.testing.assert_array_equal(zloss, np.where(np.isinf(loss), 0.0, loss))
    g = ms.grad(total)(logits, True).asnumpy()
    np.testing.assert_allclose(g, MS["ctc_imp_zi_grad_logits"], rtol=1e-5, atol=1e-6)
    assert not g[:, 0].any()


# ---- CTC against the NumPy reference -------------------------------------------------------------

def random_ctc(n=3, s=4, c=6, blank=0, t_max=9):
    labels = [k for k in range(c) if k != blank]
    targets = RNG.choice(labels, (n, s))
    tl = RNG.integers(0, s + 1, n)
    tl[0] = s
    need = tl + np.array([np.sum(targets[i, 1:k] == targets[i, :k - 1]) if k else 0
                          for i, k in enumerate(tl)])
    il = np.array([RNG.integers(k, t_max + 1) for k in need])
    lp = RNG.uniform(-3, 1, (t_max, n, c))  # not normalised: the gradient is the exact one
    return lp, targets, il, tl


@pytest.mark.parametrize("blank", [0, 2, 5])
def test_ctc_against_reference(blank):
    lp, targets, il, tl = random_ctc(blank=blank)
    nll, log_alpha, grad = ctc_reference(lp, targets, il, tl, blank)
    args = (Tensor(targets), Tensor(il), Tensor(tl))
    loss, got_alpha = ops.ctc_loss(t64(lp), *args, blank=blank, reduction="none")
    np.testing.assert_allclose(loss.asnumpy(), nll, rtol=1e-12)
    np.testing.assert_allclose(got_alpha.asnumpy(), log_alpha, rtol=1e-12, atol=1e-12)
    g = ms.grad(lambda z: ops.ctc_loss(z, *args, blank=blank, reduction="sum")[0])(t64(lp))
    np.testing.assert_allclose(g.asnumpy(), grad, rtol=1e-10, atol=1e-12)
    mean = ops.ctc_loss(t64(lp), *args, blank=blank)[0].asnumpy()
    np.testing.assert_allclose(mean, np.mean(nll / np.maximum(tl, 1)), rtol=1e-12)


def test_ctc_concatenated_targets_and_tuple_lengths():
    lp, targets, il, tl = random_ctc()
    padded = ops.ctc_loss(t64(lp), Tensor(targets), Tensor(il), Tensor(tl), reduction="none")[0]
    flat = np.concatenate([targets[i, :k] for i, k in enumerate(tl)])
    got = ops.ctc_loss(t64(lp), Tensor(flat), tuple(int(v) for v in il),
                       [int(v) for v in tl], reduction="none")[0]
    np.testing.assert_array_equal(got.asnumpy(), padded.asnumpy())
    got = nn.CTCLoss(reduction="none")(t64(lp), Tensor(flat), Tensor(il), Tensor(tl))
    np.testing.assert_array_equal(got.asnumpy(), padded.asnumpy())


def test_ctc_empty_targets_and_inputs():
    lp = RNG.uniform(-3, 0, (4, 3, 3))
    loss = ops.ctc_loss(t64(lp), Tensor(np.zeros((3, 2), np.int64)), (4, 2, 0), (0, 0, 0),
                        reduction="none")[0].asnumpy()
    np.testing.assert_allclose(loss, [-lp[:, 0, 0].sum(), -lp[:2, 1, 0].sum(), 0.0],
                               rtol=1e-12)
    assert not np.signbit(loss[2])
    empty = ops.ctc_loss(t64(np.zeros((3, 0, 4))), Tensor(np.zeros((0, 2), np.int64)), (), (),
                         reduction="sum")[0]
    assert empty.asnumpy() == 0.0


def test_ctc_gradcheck_through_log_softmax():
    lp, targets, il, tl = random_ctc(n=2, s=3, c=4, t_max=6)
    args = (Tensor(targets), Tensor(il), Tensor(tl))
    check_grads(lambda z: ops.ctc_loss(ops.log_softmax(z, 2), *args)[0], [t64(lp)], order=1,
                modes=("rev",))
    check_grads(lambda z: nn.CTCLoss(reduction="sum", zero_infinity=True)(z, *args),
                [t64(lp)], order=1, modes=("rev",))


def test_ctc_second_order_and_forward_mode():
    """CTCLossV2Grad is differentiated through the alpha recursion composed of minispore ops:
    Hessian-vector products and forward mode are exact too, zero_infinity included."""
    lp, targets, il, tl = random_ctc(n=2, s=2, c=4, t_max=5)
    args = (Tensor(targets), Tensor(il), Tensor(tl))
    check_grads(lambda z: ops.ctc_loss(z, *args)[0], [t64(lp)], order=2)
    imp = (i32([[1, 1], [2, 3]]), i32([2, 4]), i32([2, 2]))  # the first needs 3 frames
    check_grads(lambda z: ops.ctc_loss(ops.log_softmax(z, 2), *imp, zero_infinity=True)[0],
                [t64(lp)], order=2)
    hess = ms.grad(lambda z: ms.grad(lambda w: ops.ctc_loss(w, *imp, reduction="sum",
                                                            zero_infinity=True)[0])(z).sum())
    assert not hess(t64(lp)).asnumpy()[:, 0].any()


def test_ctc_log_alpha_carries_no_gradient():
    lp, targets, il, tl = random_ctc(n=2, s=2, c=4, t_max=5)
    args = (Tensor(targets), Tensor(il), Tensor(tl))

    def with_alpha(z):
        loss, log_alpha = ops.ctc_loss(z, *args, reduction="sum")
        finite = log_alpha.asnumpy() > -np.inf
        return loss + (log_alpha * Tensor(finite.astype(np.float64))).sum() * 0.0
    g = ms.grad(with_alpha)(t64(lp))
    np.testing.assert_allclose(g.asnumpy(), ctc_reference(lp, targets, il, tl)[2], rtol=1e-10)
    prim = P.CTCLossV2()
    with pytest.raises(RuntimeError, match="CTCLossV2.*log_alpha"):
        ms.grad(lambda z: prim(z, *args)[1].sum())(t64(lp))


def test_ctc_finite_at_extreme_logits():
    """Logits of +-1e4 through log_softmax: log-probabilities of -2e4, finite losses and
    gradients wherever an alignment has a finite log-probability; -inf log-probabilities off the
    needed paths change nothing."""
    targets, il, tl = i32([[1, 2], [3, 3]]), i32([5, 4]), i32([2, 2])

    def loss(z):
        return ops.ctc_loss(ops.log_softmax(z, 2), targets, il, tl)[0]
    for dtype in (np.float32, np.float64):
        logits = np.where(RNG.random((5, 2, 4)) > 0.5, 1e4, -1e4).astype(dtype)
        value, g = ms.value_and_grad(loss)(Tensor(logits))
        assert np.isfinite(value.asnumpy()) and np.isfinite(g.asnumpy()).all()
    lp = log_softmax(RNG.standard_normal((5, 1, 4)), 2)
    masked = lp.copy()
    masked[:, :, 3] = -np.inf  # class 3 is never needed by the target [1, 2]
    args = (i32([[1, 2]]), i32([5]), i32([2]))
    value, g = ms.value_and_grad(lambda z: ops.ctc_loss(z, *args)[0])(t64(masked))
    assert np.isfinite(value.asnumpy()) and np.isfinite(g.asnumpy()).all()
    np.testing.assert_allclose(value.asnumpy(), ops.ctc_loss(t64(lp), *args)[0].asnumpy())


CTC_ERRORS = [
    (lambda lp, t, il, tl: ops.ctc_loss(lp[0], t, il, tl), ValueError, "3-D"),
    (lambda lp, t, il, tl: ops.ctc_loss(ops.cast(lp, ms.float16), t, il, tl), TypeError,
     "float32 or float64"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, ops.cast(t, ms.float32), il, tl), TypeError,
     "'targets' must be int32 or int64"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, t[:1], il, tl), ValueError, r"'targets'.*\(1, 3\)"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, t, il[:1], tl), ValueError, "'input_lengths'"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, t, (5, 9), tl), ValueError, r"\[0, 5\]"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, t, (5, 0), tl), ValueError, r"target_lengths\[1\]"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, t, il, (4, 1)), ValueError, "S = 3"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, i32([[1, 7, 0], [2, 0, 0]]), il, tl), IndexError,
     "label 7"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, i32([[1, 0, 2], [2, 0, 0]]), il, tl), ValueError,
     "blank"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, t, il, tl, blank=4), ValueError, r"\[0, 4\)"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, t, il, tl, reduction="avg"), ValueError,
     "reduction"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, t, il, tl, zero_infinity=1), TypeError,
     "zero_infinity"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, t, [5.0, 3.0], tl), TypeError, "input_lengths"),
    (lambda lp, t, il, tl: ops.ctc_loss(lp, i32([1, 2]), il, tl), ValueError, "concatenated"),
    (lambda lp, t, il, tl: nn.CTCLoss()(lp[:, 0], i32([[1, 2], [1, 2]]), il[:1], tl[:1]),
     ValueError, r"\(S,\) or \(1, S\)"),
    (lambda lp, t, il, tl: nn.CTCLoss(blank=-1), ValueError, "blank"),
    (lambda lp, t, il, tl: nn.CTCLoss()(lp, t.asnumpy(), il, tl), TypeError, "CTCLoss"),
    (lambda lp, t, il, tl: P.CTCLossV2(reduction="mean"), ValueError, "reduction"),
]


@pytest.mark.parametrize("case", range(len(CTC_ERRORS)))
def test_ctc_errors(case):
    fn, exc, match = CTC_ERRORS[case]
    lp = Tensor(log_softmax(RNG.standard_normal((5, 2, 4)), 2).astype(np.float32))
    args = (i32([[1, 2, 2], [3, 0, 0]]), i32([5, 3]), i32([3, 1]))
    with pytest.raises(exc, match=match):
        fn(lp, *args)
    assert ops.ctc_loss(lp, *args)[0].shape == ()  # nothing left behind


# ---- the other losses ----------------------------------------------------------------------------

def t32(a):
    return Tensor(np.asarray(a, np.float32))


def test_multi_class_dice_loss_matches_mindspore():
    x, y, w = MS["dice_x"], MS["dice_y"], MS["dice_w"]
    tol = {"rtol": 2e-6, "atol": 1e-7}
    np.testing.assert_allclose(nn.MultiClassDiceLoss()(t32(x), t32(y)).asnumpy(), MS["mcdice"],
                               **tol)
    got = nn.MultiClassDiceLoss(t32(w), 2, "sigmoid")(t32(x), t32(y))
    assert got.shape == (2,)
    np.testing.assert_allclose(got.asnumpy(), MS["mcdice_w_ignore"], **tol)
    x4, y4 = t32(MS["dice_x4"]), t32(MS["dice_y4"])
    np.testing.assert_allclose(nn.MultiClassDiceLoss()(x4, y4).asnumpy(), MS["mcdice_4d"], **tol)
    np.testing.assert_allclose(nn.MultiClassDiceLoss(activation="relu")(x4, y4).asnumpy(),
                               MS["mcdice_4d_relu"], **tol)


def test_multi_class_dice_loss_closed_form_and_gradients():
    x, y = RNG.standard_normal((3, 4, 2)), (RNG.random((3, 4, 2)) > 0.5).astype(np.float64)
    p = np.exp(log_softmax(x, -1))  # MindSpore's 'softmax' runs over the last axis
    dice = [1 - 2 * (p[:, i] * y[:, i]).sum() / ((p[:, i] ** 2).sum() + (y[:, i] ** 2).sum()
                                                  + 1e-5) for i in range(4)]
    got = nn.MultiClassDiceLoss(ignore_indiex=1)(t64(x), t64(y))
    np.testing.assert_allclose(got.asnumpy(), (sum(dice) - dice[1]) / 4, rtol=1e-12)
    check_grads(lambda z: nn.MultiClassDiceLoss(activation=None)(z, t64(y)), [t64(x)])
    with pytest.raises(ValueError, match="MultiClassDiceLoss.*activation"):
        nn.MultiClassDiceLoss(activation="gelu")
    with pytest.raises(ValueError, match="MultiClassDiceLoss.*2-D"):
        nn.MultiClassDiceLoss(t64(np.ones(4)))
    with pytest.raises(ValueError, match=r"MultiClassDiceLoss.*4 rows"):
        nn.MultiClassDiceLoss(t64(np.ones((3, 2))))(t64(x), t64(y))
    with pytest.raises(ValueError, match="MultiClassDiceLoss.*same shape"):
        nn.MultiClassDiceLoss()(t64(x), t64(y[:, :3]))


def multilabel_margin_reference(x, y):
    """The definition, with loops (MindSpore 2.10 has no CPU kernel to compare with)."""
    x2, y2 = np.atleast_2d(x), np.atleast_2d(y)
    out = []
    for row, tgt in zip(x2, y2):
        listed = []
        for v in tgt:
            if v == -1:
                break
            listed.append(v)
        others = [i for i in range(len(row)) if i not in listed]
        out.append(sum(max(0.0, 1 - (row[j] - row[i])) for j in listed for i in others)
                   / len(row))
    return np.array(out) if x.ndim == 2 else np.array(out[0])


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss(reduction):
    x = RNG.standard_normal((4, 4))
    y = np.array([[3, 0, -1, 1], [1, 1, 2, -1], [-1, 2, 0, 0], [2, 0, 3, 1]])
    want = multilabel_margin_reference(x, y)
    want = {"none": want, "mean": want.mean(), "sum": want.sum()}[reduction]
    got = nn.MultilabelMarginLoss(reduction)(t64(x), Tensor(y.astype(np.int32)))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12)
    got = ops.multilabel_margin_loss(t64(x[0]), Tensor(y[0]), reduction)
    assert got.shape == ()
    np.testing.assert_allclose(got.asnumpy(), multilabel_margin_reference(x[0], y[0]),
                               rtol=1e-12)
    check_grads(lambda z: ops.multilabel_margin_loss(z, Tensor(y), reduction), [t64(x)])


def test_multilabel_margin_loss_errors():
    x = t64(np.zeros((2, 3)))
    with pytest.raises(IndexError, match="multilabel_margin_loss.*class 3"):
        ops.multilabel_margin_loss(x, i32([[0, 3, -1], [1, -1, 0]]))
    with pytest.raises(TypeError, match="multilabel_margin_loss.*int32 or int64"):
        ops.multilabel_margin_loss(x, x)
    with pytest.raises(ValueError, match=r"multilabel_margin_loss.*\(2, 3\) and \(3,\)"):
        ops.multilabel_margin_loss(x, i32([0, 1, -1]))


def test_poisson_nll_loss_matches_mindspore():
    x, rate, counts = MS["pnll_x"], MS["pnll_rate"], MS["pnll_counts"]
    tol = {"rtol": 5e-6, "atol": 1e-6}  # MindSpore's float32 exp is off by up to 3.3e-6
    np.testing.assert_allclose(nn.PoissonNLLLoss()(t32(x), t32(counts)).asnumpy(), MS["pnll"],
                               **tol)
    got = nn.PoissonNLLLoss(full=True, reduction="none")(t32(x), t32(counts))
    np.testing.assert_allclose(got.asnumpy(), MS["pnll_full_none"], **tol)
    got = nn.PoissonNLLLoss(log_input=False, reduction="sum")(t32(rate), t32(counts))
    np.testing.assert_allclose(got.asnumpy(), MS["pnll_rate_sum"], **tol)
    check_grads(lambda z: nn.PoissonNLLLoss(full=True)(z, t64(counts)), [t64(x)])
    check_grads(lambda z: nn.PoissonNLLLoss(log_input=False)(z, t64(counts)), [t64(rate)])


def test_triplet_margin_with_distance_loss():
    a, p, n = MS["tm_a"], MS["tm_p"], MS["tm_n"]
    tol = {"rtol": 2e-6, "atol": 1e-6}
    got = nn.TripletMarginWithDistanceLoss()(t32(a), t32(p), t32(n))
    np.testing.assert_allclose(got.asnumpy(), MS["tm"], **tol)
    got = nn.TripletMarginWithDistanceLoss(swap=True, reduction="none", margin=2.0)(
        t32(a), t32(p), t32(n))
    np.testing.assert_allclose(got.asnumpy(), MS["tm_swap_none"], **tol)

    def l1(u, v):
        return ops.abs(u - v).sum(1)
    got = nn.TripletMarginWithDistanceLoss(l1, reduction="sum")(t64(a), t64(p), t64(n))
    want = np.maximum(np.abs(a - p).sum(1) - np.abs(a - n).sum(1) + 1.0, 0).sum()
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    check_grads(lambda u, v, w: nn.TripletMarginWithDistanceLoss(swap=True)(u, v, w),
                [t64(a), t64(p), t64(n)])
    with pytest.raises(TypeError, match="TripletMarginWithDistanceLoss.*margin"):
        nn.TripletMarginWithDistanceLoss(margin=1)
    with pytest.raises(TypeError, match="TripletMarginWithDistanceLoss.*callable"):
        nn.TripletMarginWithDistanceLoss(distance_function="l2")
