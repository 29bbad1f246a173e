"""Prints the `_MINDSPORE` fixture of tests/reliability/test_float16_reductions.py: for each case,
MindSpore 2.10's (CPU) float16 value and gradient on the test's inputs, as the worst number of
float16 steps from the rounded float64 truth (minispore's float64 path, which the test pins to
NumPy). A nan where the truth is finite prints as NAN.

Run with real MindSpore (CPU), from the repository root:
    python tests/reliability/data/make_mindspore_float16_reductions.py
"""
import sys
import types

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

sys.path.insert(0, ".")
try:
    import pytest  # noqa: F401  (the test module imports it)
except ImportError:  # the test module only decorates with it
    stub = types.ModuleType("pytest")
    stub.mark = types.SimpleNamespace(parametrize=lambda *a, **k: (lambda f: f))
    sys.modules["pytest"] = stub
from tests.reliability import test_float16_reductions as T  # noqa: E402

D, N = T.D, T.N


def w3(x):
    return Tensor(np.array([1.0, 2.0, 0.5], np.float16))


# name: (MindSpore's counterpart of the case, the case's inputs)
CASES = {
    "sum": (lambda x: ops.sum(x), ("x",)),
    "sum_axis0": (lambda x: ops.sum(x, 0), ("x2",)),
    "ReduceSum_keep": (lambda x: ops.ReduceSum(True)(x, 1), ("wide",)),
    "mean": (lambda x: ops.mean(x), ("x",)),
    "mean_axis0": (lambda x: ops.mean(x, 0), ("x2",)),
    "Tensor.mean": (lambda x: x.mean(axis=1, keep_dims=True), ("wide",)),
    "var": (lambda x: ops.var(x), ("x",)),
    "var_axis0_ddof1": (lambda x: ops.var(x, 0, ddof=1), ("x2",)),
    "std": (lambda x: ops.std(x), ("x",)),
    "std_axis0": (lambda x: ops.std(x, 0), ("x2",)),
    "var_mean": (lambda x: ops.cat([t.reshape(-1) for t in ops.var_mean(x, 1)]), ("wide",)),
    "std_mean": (lambda x: ops.cat([t.reshape(-1) for t in ops.std_mean(x, 1)]), ("wide",)),
    "norm": (lambda x: ops.norm(x), ("big",)),
    "norm_axis0": (lambda x: ops.norm(x, dim=0), ("x2",)),
    "norm_1": (lambda x: ops.norm(x, 1), ("x",)),
    "norm_3": (lambda x: ops.norm(x, 3), ("x",)),
    "norm_fro": (lambda x: ops.norm(x, "fro"), ("x2",)),
    "logsumexp": (lambda x: ops.logsumexp(x, 0), ("x",)),
    "logsumexp_axis0": (lambda x: ops.logsumexp(x, 0), ("x2",)),
    "cumsum": (lambda x: ops.cumsum(x, 0), ("x",)),
    "cumsum_axis0": (lambda x: ops.cumsum(x, 0), ("x2",)),
    "cumsum_exclusive_reverse": (lambda x: ops.CumSum(exclusive=True, reverse=True)(x, 1),
                                 ("wide",)),
    "softmax": (lambda x: ops.softmax(x, 0), ("x",)),
    "softmax_axis0": (lambda x: ops.softmax(x, 0), ("x2",)),
    "log_softmax": (lambda x: ops.log_softmax(x, 0), ("x",)),
    "log_softmax_axis0": (lambda x: ops.log_softmax(x, 0), ("x2",)),
    # ops.layer_norm has no kernel for 70,000 elements: the primitive
    "layer_norm": (lambda x: ops.LayerNorm(1, 1)(x, ops.ones((N,), ms.float16),
                                                 ops.zeros((N,), ms.float16))[0], ("wide",)),
    "group_norm": (lambda x: ops.group_norm(x[None], 1)[0], ("wide",)),
    "instance_norm": (lambda x: ops.instance_norm(x[None])[0], ("wide",)),
    "batch_norm": (lambda x: nn.BatchNorm1d(2, dtype=ms.float16).set_train()(x), ("x2",)),
    "adaptive_avg_pool2d": (lambda x: ops.adaptive_avg_pool2d(ops.reshape(x, (1, 1, 2, N)), 1),
                            ("wide",)),
    "cosine_similarity": (lambda a, b: ops.cosine_similarity(a, b, 1), ("v1", "v2")),
    "MSELoss": (lambda x, y: nn.MSELoss()(x, y), ("x", "y")),
    "L1Loss": (lambda x, y: nn.L1Loss()(x, y), ("x", "y")),
    "MAELoss": (lambda x, y: nn.MAELoss()(x, y), ("x", "y")),
    "RMSELoss": (lambda x, y: nn.RMSELoss()(x, y), ("x", "y")),
    "HuberLoss": (lambda x, y: nn.HuberLoss()(x, y), ("x", "y")),
    "SmoothL1Loss": (lambda x, y: nn.SmoothL1Loss(reduction="mean")(x, y), ("x", "y")),
    "HingeEmbeddingLoss": (lambda x, t: nn.HingeEmbeddingLoss()(x, t), ("x", "pm")),
    "MarginRankingLoss": (lambda x, y, t: nn.MarginRankingLoss()(x, y, t), ("x", "y", "pm")),
    "KLDivLoss": (lambda x, y: nn.KLDivLoss()(x, y), ("x", "y")),
    "kl_div_batchmean": (lambda x, y: ops.kl_div(x, y, "batchmean"), ("x", "y")),
    "BCELoss": (lambda p, y: nn.BCELoss(reduction="mean")(p, y), ("p", "lab")),
    "BCEWithLogitsLoss": (lambda x, y: nn.BCEWithLogitsLoss()(x, y), ("x", "lab")),
    "GaussianNLLLoss": (lambda x, y, v: nn.GaussianNLLLoss()(x, y, v), ("x", "y", "var")),
    "PoissonNLLLoss": (lambda x, y: nn.PoissonNLLLoss()(x, y), ("x", "y")),
    "CosineEmbeddingLoss": (lambda a, b, t: nn.CosineEmbeddingLoss()(a, b, t),
                            ("v1", "v2", "pm2")),
    "TripletMarginLoss": (lambda a, p, n: nn.TripletMarginLoss()(a, p, n), ("a", "pos", "neg")),
    "TripletMarginWithDistanceLoss": (lambda a, p, n: nn.TripletMarginWithDistanceLoss()(a, p, n),
                                      ("a", "pos", "neg")),
    "DiceLoss": (lambda x: nn.DiceLoss()(x, Tensor(D["lab"])), ("big",)),
    "MultiClassDiceLoss": (lambda x, y: nn.MultiClassDiceLoss()(x, y), ("logits", "onehot")),
    "LossBase.get_loss": (lambda x: nn.LossBase().get_loss(x), ("x",)),
    "cross_entropy": (lambda x, c: ops.cross_entropy(x, c), ("logits", "cls")),
    "CrossEntropyLoss": (lambda x, c: nn.CrossEntropyLoss()(x, c), ("wide", "cls2")),
    "cross_entropy_probabilities": (lambda x, t: ops.cross_entropy(x, t), ("wide", "probs2")),
    "cross_entropy_weighted_smoothed": (
        lambda x, c: ops.cross_entropy(x, c, Tensor(D["var"]), label_smoothing=0.1),
        ("wide", "cls2")),
    "NLLLoss": (lambda x, c: nn.NLLLoss(w3(x))(x, c), ("logits", "cls")),
    "SoftmaxCrossEntropyWithLogits": (
        lambda x, y: nn.SoftmaxCrossEntropyWithLogits(reduction="mean")(x, y), ("wide", "probs2")),
    "SoftmaxCrossEntropyWithLogits_sparse": (
        lambda x, c: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(x, c),
        ("wide", "cls2")),
    "FocalLoss": (lambda x, c: nn.FocalLoss()(x, ops.reshape(c, (2, 1))), ("wide", "cls2")),
    # MindSpore's MultiMarginLoss takes int64 class indices only
    "MultiMarginLoss": (lambda x, c: nn.MultiMarginLoss()(x, c.astype(ms.int64)),
                        ("logits", "cls")),
    "multi_margin_loss_70000_classes": (
        lambda x, c: ops.multi_margin_loss(x, c.astype(ms.int64)), ("wide", "cls2")),
    "MultiLabelSoftMarginLoss": (lambda x, y: nn.MultiLabelSoftMarginLoss()(x, y),
                                 ("wide", "wide")),
    "MultilabelMarginLoss": (lambda x, t: nn.MultilabelMarginLoss()(x, t), ("x2", "ml_target")),
    # last: after its failure (no kernel) MindSpore 2.10 fails the next call too
    "SoftMarginLoss": (lambda x, t: nn.SoftMarginLoss()(x, t), ("x", "pm")),
}


def main():
    entries = []
    for name, (fn, keys) in CASES.items():
        case = next(c for c in T.CASES if c.name == name)
        args = [Tensor(D[k]) for k in keys]
        try:
            value = fn(*args)
            w = None if value.ndim == 0 else Tensor(T._cotangent(value.shape))

            def loss(*a):
                r = fn(*a)
                return r if w is None else (r * w).sum()
            grad = None
            if case.grad is not None:
                grad = ms.grad(loss, grad_position=0)(*args).asnumpy()
        except Exception as e:  # MindSpore has no working float16 kernel there
            first = (str(e).splitlines() or [""])[0]
            print(f"# {name}: {type(e).__name__}: {first}"[:100], file=sys.stderr)
            continue
        value64, grad64 = T._run(case, np.float64)
        steps = []
        for got, truth in ((value.asnumpy(), value64), (grad, grad64)):
            if got is None:
                steps.append("None")
                continue
            try:
                steps.append(str(int(T._steps(got.astype(np.float16), truth).max())))
            except AssertionError:  # a nan where the truth has none
                steps.append("NAN")
        entries.append(f'"{name}": ({steps[0]}, {steps[1]})')
    print(",\n".join(entries))


if __name__ == "__main__":
    main()
