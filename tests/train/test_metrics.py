"""Metrics: every metric equals MindSpore 2.10 on the same inputs
(fixture made by data/make_mindspore_metrics.py), closed forms, the Metric protocol
(clear/update/eval, __call__, set_indexes), lookup by name, and bad input (clear errors, state
unchanged)."""
import os
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minispore as ms
from minispore import Tensor, nn
from minispore import train as T

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_metrics.npz"))
_CASE = re.compile(r"(.*)_in(\d+)_(\d+)$")
CASES = sorted({_CASE.match(k).group(1) for k in DATA.files if _CASE.match(k)})

FACTORIES = {
    "acc_cls": T.Accuracy, "acc_onehot": T.Accuracy, "acc_spatial": T.Accuracy,
    "acc_multi": lambda: T.Accuracy("multilabel"), "acc_multi3": lambda: T.Accuracy("multilabel"),
    "prec_cls": T.Precision, "rec_cls": T.Recall, "prec_onehot": T.Precision,
    "prec_multi": lambda: T.Precision("multilabel"), "rec_multi": lambda: T.Recall("multilabel"),
    "f1_cls": T.F1, "fbeta05_cls": lambda: T.Fbeta(0.5), "fbeta2_onehot": lambda: T.Fbeta(2),
    "top1": lambda: T.TopKCategoricalAccuracy(1), "top2": lambda: T.TopKCategoricalAccuracy(2),
    "top3": lambda: T.TopKCategoricalAccuracy(3),
    "top2_onehot": lambda: T.TopKCategoricalAccuracy(2), "top5": T.Top5CategoricalAccuracy,
    "cm_int": lambda: T.ConfusionMatrix(3), "loss": T.Loss, "mae": T.MAE, "mse": T.MSE,
    "ppl": T.Perplexity, "ppl_ignore": lambda: T.Perplexity(ignore_label=2),
}


def _factory(case):
    base = case[:-4] if case.endswith("_avg") else case
    if base.startswith("cm_scores_"):
        return T.ConfusionMatrix(4, base[len("cm_scores_"):])
    if base.startswith("cm_probs_"):
        return T.ConfusionMatrix(2, base[len("cm_probs_"):], 0.3)
    return FACTORIES[base]()


def _batches(case):
    k = 0
    while f"{case}_in{k}_0" in DATA.files:
        j, batch = 0, []
        while f"{case}_in{k}_{j}" in DATA.files:
            batch.append(DATA[f"{case}_in{k}_{j}"])
            j += 1
        yield batch
        k += 1


@pytest.mark.parametrize("case", CASES)
def test_metric_matches_mindspore(case):
    metric = _factory(case)
    for batch in _batches(case):
        metric.update(*[Tensor(a) for a in batch])
    if case.startswith(("prec", "rec", "f1", "fbeta")):
        out = metric.eval(average=case.endswith("_avg"))
    else:
        out = metric.eval()
    np.testing.assert_allclose(np.asarray(out, np.float64), DATA[f"{case}_out"], rtol=1e-6,
                               atol=1e-12)


def test_fixture_covers_every_metric():
    assert len(CASES) >= 40
    kinds = {type(_factory(c)).__name__ for c in CASES}
    assert kinds == {"Accuracy", "Precision", "Recall", "F1", "Fbeta", "TopKCategoricalAccuracy",
                     "Top5CategoricalAccuracy", "ConfusionMatrix", "Loss", "MAE", "MSE",
                     "Perplexity"}


# ---- closed forms -------------------------------------------------------------------------
Y_PRED = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.1]], np.float32)
Y = np.array([1, 0, 1], np.int32)


def test_classification_closed_forms():
    # predictions 1, 0, 0 for labels 1, 0, 1: TP per class (1, 1), predicted (2, 1), actual (1, 2)
    assert T.Accuracy()(Tensor(Y_PRED), Tensor(Y)) == pytest.approx(2 / 3)
    np.testing.assert_allclose(T.Precision()(Tensor(Y_PRED), Tensor(Y)), [0.5, 1.0])
    np.testing.assert_allclose(T.Recall()(Tensor(Y_PRED), Tensor(Y)), [1.0, 0.5])
    np.testing.assert_allclose(T.F1()(Tensor(Y_PRED), Tensor(Y)), [2 / 3, 2 / 3])
    # F_beta = (1 + b2) TP / (b2 actual + predicted)
    np.testing.assert_allclose(T.Fbeta(0.5)(Tensor(Y_PRED), Tensor(Y)),
                               [1.25 / (0.25 + 2), 1.25 / (0.25 * 2 + 1)])
    m = T.Precision()
    m.update(Tensor(Y_PRED), Tensor(Y))
    assert m.eval(average=True) == pytest.approx(0.75)
    assert isinstance(m.eval(average=True), float)


def test_scalar_results_are_python_floats():
    # MindSpore returns NumPy float64; a float prints as MindSpore prints under NumPy 1.x
    for metric in (T.Accuracy(), T.Top1CategoricalAccuracy()):
        assert type(metric(Tensor(Y_PRED), Tensor(Y))) is float
    assert type(T.Loss()(Tensor(1.0))) is float
    assert type(T.MAE()(Tensor([1.0]), Tensor([2.0]))) is float


def test_regression_closed_forms():
    y_pred = Tensor(np.array([0.1, 0.2, 0.6, 0.9], np.float64))
    y = Tensor(np.array([0.1, 0.25, 0.7, 0.9], np.float64))
    assert T.MAE()(y_pred, y) == pytest.approx(0.15 / 4)
    assert T.MSE()(y_pred, y) == pytest.approx((0.05 ** 2 + 0.1 ** 2) / 4)
    # per sample (first axis of y), summed over the other axes
    m = T.MAE()
    m.update(Tensor(np.zeros((2, 3))), Tensor(np.ones((2, 3))))
    m.update(Tensor(np.zeros((1, 3))), Tensor(np.full(3, 2.0)))  # y: (3,) counts 3 samples
    assert m.eval() == pytest.approx((6 + 6) / 5)


def test_loss_is_mean_of_batch_means():
    m = T.Loss()
    m.update(Tensor(np.float32(0.5)))
    m.update(Tensor(np.array([0.1, 0.2, 0.3], np.float32)))
    assert m.eval() == pytest.approx((0.5 + 0.2) / 2)


def test_topk_ties_rank_by_class_index():
    scores = Tensor(np.array([[0.5, 0.5, 0.5, 0.1]], np.float32))
    assert T.TopKCategoricalAccuracy(2)(scores, Tensor(np.array([1]))) == 1.0
    assert T.TopKCategoricalAccuracy(2)(scores, Tensor(np.array([2]))) == 0.0
    # NaN scores rank last
    nan = Tensor(np.array([[np.nan, 0.1, 0.2]], np.float32))
    assert T.TopKCategoricalAccuracy(2)(nan, Tensor(np.array([0]))) == 0.0


def test_topk_label_outside_classes_never_matches():
    m = T.TopKCategoricalAccuracy(2)
    m.update(Tensor(Y_PRED), Tensor(np.array([5, -1, 0])))
    assert m.eval() == pytest.approx(1 / 3)


def test_confusion_matrix_closed_form_and_normalisation():
    m = T.ConfusionMatrix(3, normalize="target")
    m.update(Tensor(np.array([0, 1, 1, 0, 2])), Tensor(np.array([0, 1, 0, 0, 1])))
    counts = np.array([[2, 1, 0], [0, 1, 1], [0, 0, 0]], np.float64)
    np.testing.assert_allclose(T.ConfusionMatrix(3)(Tensor(np.array([0, 1, 1, 0, 2])),
                                                    Tensor(np.array([0, 1, 0, 0, 1]))), counts)
    # the empty row (class 2 never occurs) normalises to zeros, not NaN
    np.testing.assert_allclose(m.eval(), [[2 / 3, 1 / 3, 0], [0, 0.5, 0.5], [0, 0, 0]])
    m.normalize = "all"
    np.testing.assert_allclose(m.eval(), counts / 5)


def test_multilabel_accuracy_needs_every_label_right():
    y_pred = np.array([[1, 0, 1], [0, 1, 1]], np.float32)
    y = np.array([[1, 0, 1], [0, 1, 0]], np.float32)
    assert T.Accuracy("multilabel")(Tensor(y_pred), Tensor(y)) == 0.5


def test_perplexity_closed_form():
    preds = Tensor(np.array([[0.6, 0.3, 0.1], [0.3, 0.6, 0.1]], np.float32))
    value = T.Perplexity()(preds, Tensor(np.array([2, 1])))
    assert value == pytest.approx(np.exp(-(np.log(0.1) + np.log(0.6)) / 2), rel=1e-6)
    # (B, T, C) predictions with (B, T) labels
    p3 = Tensor(np.array([[[0.5, 0.5], [0.25, 0.75]]], np.float32))
    assert T.Perplexity()(p3, Tensor(np.array([[0, 1]]))) == pytest.approx(
        np.exp(-(np.log(0.5) + np.log(0.75)) / 2), rel=1e-6)


@given(y_pred=hnp.arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(1, 5)),
                         elements=st.floats(-10, 10)),
       seed=st.integers(0, 2 ** 16))
def test_metrics_agree_with_confusion_matrix(y_pred, seed):
    n, c = y_pred.shape
    y = np.random.default_rng(seed).integers(0, c, n)
    cm = T.ConfusionMatrix(c)(Tensor(y_pred), Tensor(y))
    tp = np.diag(cm)
    assert T.Accuracy()(Tensor(y_pred), Tensor(y)) == pytest.approx(tp.sum() / n)
    np.testing.assert_allclose(T.Recall()(Tensor(y_pred), Tensor(y)),
                               np.divide(tp, cm.sum(1), out=np.zeros(c), where=cm.sum(1) > 0))
    np.testing.assert_allclose(T.Precision()(Tensor(y_pred), Tensor(y)),
                               np.divide(tp, cm.sum(0), out=np.zeros(c), where=cm.sum(0) > 0))
    assert T.Top1CategoricalAccuracy()(Tensor(y_pred), Tensor(y)) == pytest.approx(tp.sum() / n)
    top_all = T.TopKCategoricalAccuracy(c)(Tensor(y_pred), Tensor(y))
    assert top_all == 1.0


# ---- protocol -----------------------------------------------------------------------------
def test_updates_accumulate_and_clear_resets():
    m = T.Accuracy()
    m.update(Tensor(Y_PRED), Tensor(Y))
    m.update(Tensor(Y_PRED[:1]), Tensor(np.array([0])))
    assert m.eval() == pytest.approx(2 / 4)
    m.clear()
    with pytest.raises(RuntimeError, match="Accuracy"):
        m.eval()


def test_inputs_may_be_lists_or_arrays():
    assert T.Accuracy()(Y_PRED.tolist(), Y.tolist()) == pytest.approx(2 / 3)
    assert T.Accuracy()(Y_PRED, Y) == pytest.approx(2 / 3)
    with pytest.raises(TypeError, match="Accuracy.*tuple"):
        T.Accuracy().update(tuple(Y_PRED.tolist()), Y)


def test_set_indexes_rearranges_inputs():
    m = T.Accuracy().set_indexes([2, 0])
    assert m.indexes == [2, 0]
    m.update(Tensor(Y), "ignored", Tensor(Y_PRED))
    assert m.eval() == pytest.approx(2 / 3)
    loss = T.Loss().set_indexes([1])
    loss.update(Tensor(9.0), Tensor(2.0))
    assert loss.eval() == 2.0
    with pytest.raises(ValueError, match="set_indexes"):
        T.Accuracy().set_indexes((0, 1))
    with pytest.raises(ValueError, match="set_indexes"):
        T.Accuracy().set_indexes([0, "1"])
    with pytest.raises(IndexError, match="Accuracy.update"):
        T.Accuracy().set_indexes([0, 3]).update(Tensor(Y_PRED), Tensor(Y))


def test_custom_metric_with_rearrange_inputs():
    class Sum(T.Metric):
        def __init__(self):
            super().__init__()
            self.clear()

        def clear(self):
            self.total = 0.0

        @T.rearrange_inputs
        def update(self, *inputs):
            self.total += float(inputs[0].asnumpy().sum())

        def eval(self):
            return self.total

    m = Sum().set_indexes([1])
    m.update(Tensor([1.0]), Tensor([5.0, 6.0]))
    assert m.eval() == 11.0
    with pytest.raises(TypeError):
        T.Metric()


def test_names_and_get_metric_fn():
    assert set(T.names()) >= {"accuracy", "acc", "precision", "recall", "F1", "topk",
                              "top_1_accuracy", "top_5_accuracy", "mae", "mse", "loss",
                              "perplexity", "confusion_matrix"}  # the full list: test_metrics_wave2
    assert isinstance(T.get_metric_fn("acc"), T.Accuracy)
    assert T.get_metric_fn("topk", 3).k == 3
    assert isinstance(T.get_metric_fn("precision", "multilabel"), T.Precision)
    with pytest.raises(KeyError, match="get_metric_fn.*nope"):
        T.get_metric_fn("nope")
    from minispore.train.metrics import get_metrics
    assert get_metrics(None) is None
    got = get_metrics({"acc", "loss"})
    assert set(got) == {"acc", "loss"} and isinstance(got["loss"], T.Loss)
    with pytest.raises(TypeError, match="get_metrics"):
        get_metrics(["acc"])
    with pytest.raises(TypeError, match="get_metrics"):
        get_metrics({"acc": "accuracy"})


def test_namespaces_share_the_classes():
    assert ms.Accuracy is T.Accuracy is nn.Accuracy is nn.metrics.Accuracy
    assert ms.train.metrics.Loss is nn.Loss is ms.Loss
    from minispore.nn.metrics import get_metrics  # noqa: F401
    from minispore.train.metrics.accuracy import Accuracy
    assert Accuracy is T.Accuracy


# ---- bad input ----------------------------------------------------------------------------
@pytest.mark.parametrize("make, args, match", [
    (T.Accuracy, (Tensor(Y_PRED),), "Accuracy.update.*2 inputs"),
    (T.Accuracy, (Tensor(Y_PRED), Tensor(Y[:2])), r"Accuracy.update.*\(3, 2\).*\(2,\)"),
    (T.Accuracy, (Tensor(np.array([0.1, 0.9])), Tensor(np.array([1]))), "class axis"),
    (lambda: T.Accuracy("multilabel"), (Tensor(Y_PRED), Tensor(Y_PRED)), "0 or 1"),
    (lambda: T.Accuracy("multilabel"), (Tensor(np.ones((2, 3))), Tensor(np.ones((3, 2)))),
     "same shape"),
    (T.Precision, (Tensor(Y_PRED), Tensor(np.array([0, 1, 2]))), r"Precision.update.*\[0, 2\)"),
    (T.Recall, (Tensor(Y_PRED), Tensor(np.array([0, -1, 1]))), "Recall.update"),
    (T.F1, (Tensor(Y_PRED), Tensor(np.array([0.5, 1, 0]))), "F1.update.*whole"),
    (T.Loss, (Tensor(np.ones((2, 2))),), r"Loss.update.*\(2, 2\)"),
    (T.Loss, (Tensor(1.0), Tensor(1.0)), "Loss.update.*1 input"),
    (T.MAE, (Tensor(np.ones(3)), Tensor(np.ones(4))), r"MAE.update.*\(3,\).*\(4,\)"),
    (T.MSE, (Tensor(np.ones(1)), Tensor(np.float32(1))), "MSE.update"),
    (lambda: T.TopKCategoricalAccuracy(1), (Tensor(np.ones((2, 2, 2))), Tensor(np.ones(2))),
     "TopKCategoricalAccuracy.update"),
    (lambda: T.ConfusionMatrix(2), (Tensor(np.array([0, 3])), Tensor(np.array([0, 1]))),
     r"ConfusionMatrix.update.*predictions.*\[0, 2\)"),
    (lambda: T.ConfusionMatrix(2), (Tensor(np.zeros(3)), Tensor(np.zeros(2))),
     "ConfusionMatrix.update"),
    (T.Perplexity, (Tensor(np.ones((2, 3))), Tensor(np.array([0, 1, 2]))), "Perplexity"),
])
def test_bad_update_raises_and_keeps_state(make, args, match):
    metric = make()
    with pytest.raises(ValueError, match=match):
        metric.update(*args)
    with pytest.raises(RuntimeError):
        metric.eval()  # the failed update counted nothing


def test_failed_update_leaves_earlier_counts():
    m = T.Precision()
    m.update(Tensor(Y_PRED), Tensor(Y))
    before = m.eval().copy()
    with pytest.raises(ValueError, match="class number"):
        m.update(Tensor(np.ones((2, 3))), Tensor(np.array([0, 1])))
    with pytest.raises(ValueError):
        m.update(Tensor(Y_PRED), Tensor(np.array([0, 1, 7])))
    np.testing.assert_array_equal(m.eval(), before)


@pytest.mark.parametrize("make", [T.Accuracy, T.Precision, T.Recall, T.F1, T.Loss, T.MAE, T.MSE,
                                  T.Top1CategoricalAccuracy, lambda: T.ConfusionMatrix(2),
                                  T.Perplexity])
def test_eval_before_update_is_runtime_error(make):
    with pytest.raises(RuntimeError, match="update"):
        make().eval()


def test_bad_constructor_arguments():
    with pytest.raises(TypeError, match="eval_type"):
        T.Accuracy("binary")
    with pytest.raises(ValueError, match="Fbeta.*beta"):
        T.Fbeta(0)
    with pytest.raises(TypeError, match="Fbeta.*beta"):
        T.Fbeta("1")
    with pytest.raises(TypeError, match="TopKCategoricalAccuracy.*k"):
        T.TopKCategoricalAccuracy(2.0)
    with pytest.raises(ValueError, match="TopKCategoricalAccuracy.*k"):
        T.TopKCategoricalAccuracy(0)
    with pytest.raises(TypeError, match="ConfusionMatrix.*num_classes"):
        T.ConfusionMatrix(2.0)
    with pytest.raises(ValueError, match="ConfusionMatrix.*num_classes"):
        T.ConfusionMatrix(0)
    with pytest.raises(ValueError, match="ConfusionMatrix.*normalize"):
        T.ConfusionMatrix(2, normalize="rows")
    with pytest.raises(TypeError, match="ConfusionMatrix.*threshold"):
        T.ConfusionMatrix(2, threshold="0.5")
    with pytest.raises(TypeError, match="Perplexity.*ignore_label"):
        T.Perplexity(ignore_label=1.5)
    m = T.Precision()
    m.update(Tensor(Y_PRED), Tensor(Y))
    with pytest.raises(TypeError, match="Precision.eval.*average"):
        m.eval(average=1)
