"""The second set of metrics (ROC, auc, Dice, BleuScore, the surface distances,
OcclusionSensitivity, ConfusionMatrixMetric) equal MindSpore 2.10 on the inputs and results of
tests/train/data/make_mindspore_wave2.py; signatures, lookup by name and bad input."""
import importlib.util
import inspect
import json
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore import train as T

needs_scipy = pytest.mark.skipif(importlib.util.find_spec("scipy") is None,
                                 reason="the surface distances need scipy (minispore[metrics])")

DATA = np.load(os.path.join(os.path.dirname(__file__), os.pardir, "train", "data",
                            "mindspore_wave2.npz"))

SIGNATURES = {  # str(inspect.signature(mindspore.train.X)) on MindSpore 2.10
    "ROC": "(class_num=None, pos_label=None)",
    "auc": "(x, y, reorder=False)",
    "Dice": "(smooth=1e-05)",
    "BleuScore": "(n_gram=4, smooth=False)",
    "HausdorffDistance": "(distance_metric='euclidean', percentile=None, directed=False, "
                         "crop=True)",
    "MeanSurfaceDistance": "(symmetric=False, distance_metric='euclidean')",
    "RootMeanSquareDistance": "(symmetric=False, distance_metric='euclidean')",
    "OcclusionSensitivity": "(pad_val=0.0, margin=2, n_batch=128, b_box=None)",
    "ConfusionMatrixMetric": "(skip_channel=True, metric_name='sensitivity', "
                             "calculation_method=False, decrease='mean')",
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signature_and_exports(name):
    assert str(inspect.signature(getattr(T, name))) == SIGNATURES[name]
    assert getattr(nn, name, getattr(T, name)) is getattr(T, name)
    assert getattr(T.metrics, name) is getattr(T, name)


def test_names_match_mindspore():
    assert T.metrics.names() == [
        'F1', 'acc', 'accuracy', 'auc', 'bleu_score', 'confusion_matrix',
        'confusion_matrix_metric', 'cosine_similarity', 'dice', 'hausdorff_distance', 'loss',
        'mae', 'mean_surface_distance', 'mse', 'occlusion_sensitivity', 'perplexity',
        'precision', 'recall', 'roc', 'root_mean_square_distance', 'top_1_accuracy',
        'top_5_accuracy', 'topk']
    assert isinstance(T.metrics.get_metric_fn("dice"), T.Dice)
    x, y = np.array([0.0, 0.5, 1.0]), np.array([0.0, 1.0, 1.0])
    assert T.metrics.get_metric_fn("auc", x, y) == pytest.approx(0.75)


def _curve(key):
    if f"{key}_fpr_n" in DATA.files:
        n = int(DATA[f"{key}_fpr_n"])
        return [[DATA[f"{key}_{part}_{i}"] for i in range(n)] for part in ("fpr", "tpr", "thr")]
    return [DATA[f"{key}_{part}"] for part in ("fpr", "tpr", "thr")]


def _assert_curve(got, key):
    want = _curve(key)
    for g, w in zip(got, want):
        if isinstance(w, list):
            assert isinstance(g, list) and len(g) == len(w)
            for gi, wi in zip(g, w):
                np.testing.assert_allclose(gi, wi, rtol=1e-12)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-12)


def test_roc_binary_multiclass_and_auc():
    m = T.ROC()
    m.update(Tensor(DATA["roc_bin_x"]), Tensor(DATA["roc_bin_y"]))
    curve = m.eval()
    _assert_curve(curve, "roc_bin")
    assert T.auc(curve[0], curve[1]) == pytest.approx(float(DATA["auc_bin"]), rel=1e-12)
    m = T.ROC(pos_label=2)
    m.update(Tensor(DATA["roc_doc_x"]), DATA["roc_doc_y"].tolist())
    _assert_curve(m.eval(), "roc_pos2")


def test_roc_multiclass_is_one_vs_rest():
    x, y = DATA["roc_mc_x"], DATA["roc_mc_y"]
    m = T.ROC(class_num=3)
    m.update(x, y)
    curve = m.eval()
    for c in range(3):
        binary = T.ROC(pos_label=c)
        binary.update(x[:, c], y)
        for got, want in zip((part[c] for part in curve), binary.eval()):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    # MindSpore 2.10 lays the (N, C) scores out as reshape(C, N) (a port of torch's
    # transpose(0, 1)) and so scores class c on a scrambled column against the first C labels;
    # its curves and AUCs are the per-class curves of that layout.
    scrambled = x.reshape(3, -1)
    ms_like = [T.ROC(pos_label=c) for c in range(3)]
    for c, metric in enumerate(ms_like):
        metric.update(scrambled[:, c], y[:3])
    got = [list(part) for part in zip(*(metric.eval() for metric in ms_like))]
    _assert_curve(got, "roc_mc")
    np.testing.assert_allclose([T.auc(f, t) for f, t in zip(got[0], got[1])],
                               DATA["auc_mc"], rtol=1e-12)


def test_roc_update_replaces_and_checks():
    m = T.ROC()
    m.update(np.array([0.9, 0.1]), np.array([0, 1]))
    m.update(DATA["roc_bin_x"], DATA["roc_bin_y"])
    _assert_curve(m.eval(), "roc_bin")
    with pytest.raises(RuntimeError):
        T.ROC().eval()
    with pytest.raises(TypeError):
        T.ROC(class_num=2.0)
    with pytest.raises(ValueError, match="class_num"):
        T.ROC(class_num=3).update(np.ones(4), np.ones(4))
    with pytest.raises(ValueError, match="pos_label"):
        T.ROC(class_num=3, pos_label=1).update(np.ones((4, 3)), np.ones(4))
    m = T.ROC()
    m.update(np.array([0.2, 0.4]), np.array([1, 1]))
    with pytest.raises(ValueError, match="negative"):
        m.eval()


def test_auc_orders_and_errors():
    x, y = DATA["auc_x"], DATA["auc_y"]
    assert T.auc(x, y, reorder=True) == pytest.approx(float(DATA["auc_reorder"]), rel=1e-12)
    assert T.auc(np.sort(x)[::-1].copy(), y) == pytest.approx(float(DATA["auc_desc"]),
                                                              rel=1e-12)
    with pytest.raises(ValueError, match="increasing or"):
        T.auc(x, y)
    with pytest.raises(TypeError):
        T.auc([0, 1], [0, 1])
    with pytest.raises(ValueError):
        T.auc(np.array([0.0]), np.array([1.0]))
    with pytest.raises(ValueError):
        T.auc(np.zeros(3), np.zeros(4))
    assert T.auc(np.array([[0.0], [1.0]]), np.array([[1.0], [1.0]])) == 1.0


def test_dice_accumulates_like_mindspore():
    m = T.Dice(smooth=1e-3)
    for i in range(2):
        m.update(Tensor(DATA[f"dice_p{i}"]), Tensor(DATA[f"dice_t{i}"]))
    assert m.eval() == pytest.approx(float(DATA["dice"]), rel=1e-12)
    m.clear()
    with pytest.raises(RuntimeError):
        m.eval()
    with pytest.raises(ValueError, match="same shape"):
        m.update(np.ones((2, 3)), np.ones((3, 2)))
    with pytest.raises(TypeError):
        T.Dice(smooth=1)
    with pytest.raises(ValueError):
        T.Dice(smooth=0.0)
    assert T.Dice()(np.ones((1, 4)), np.ones((1, 4))) == pytest.approx(1.0, rel=1e-5)


@pytest.mark.parametrize("n_gram", [1, 2, 3, 4])
@pytest.mark.parametrize("smooth", [False, True])
def test_bleu_score(n_gram, smooth):
    candidates, references = json.loads(str(DATA["bleu_corpus"]))
    m = T.BleuScore(n_gram=n_gram, smooth=smooth)
    m.update(candidates[:2], references[:2])
    m.update(candidates[2:], references[2:])
    assert float(m.eval()) == pytest.approx(float(DATA[f"bleu_{n_gram}_{int(smooth)}"]),
                                            rel=1e-12)


def test_bleu_score_doc_example_and_errors():
    m = T.BleuScore()
    m.update([["i", "have", "a", "pen", "on", "my", "desk"]],
             [[["i", "have", "a", "pen", "in", "my", "desk"],
               ["there", "is", "a", "pen", "on", "the", "desk"]]])
    assert float(m.eval()) == pytest.approx(float(DATA["bleu_doc"]), rel=1e-12)
    m.update([["zebra"]], [[["horse"]]])
    assert float(m.eval()) > 0
    assert float(T.BleuScore(2)([["x", "y"]], [[["y", "x"]]])) == 0.0
    with pytest.raises(ValueError, match="n_gram"):
        T.BleuScore(5)
    with pytest.raises(TypeError):
        T.BleuScore(2.0)
    with pytest.raises(TypeError):
        T.BleuScore(smooth=1)
    with pytest.raises(ValueError, match="same length"):
        T.BleuScore().update([["a"]], [])
    with pytest.raises(RuntimeError):
        T.BleuScore().eval()


HD_CASES = {
    "eu": {}, "cb": dict(distance_metric="chessboard"), "tc": dict(distance_metric="taxicab"),
    "pc": dict(percentile=60.0), "dir": dict(directed=True), "nocrop": dict(crop=False),
}
SEGS = {"2d": 2, "3d": 3}


@needs_scipy
@pytest.mark.parametrize("seg", sorted(SEGS))
@pytest.mark.parametrize("case", sorted(HD_CASES))
def test_hausdorff_distance(seg, case):
    m = T.HausdorffDistance(**HD_CASES[case])
    m.update(Tensor(DATA[f"seg_{seg}_p"]), Tensor(DATA[f"seg_{seg}_t"]), SEGS[seg])
    assert m.eval() == pytest.approx(float(DATA[f"hd_{seg}_{case}"]), rel=1e-12)


@needs_scipy
def test_hausdorff_label_only_in_prediction_is_inf():
    m = T.HausdorffDistance()
    m.update(DATA["seg_2d_p"], DATA["seg_2d_t"], 1)
    assert m.eval() == float(DATA["hd_2d_onlypred"]) == np.inf


@needs_scipy
@pytest.mark.parametrize("seg", sorted(SEGS))
@pytest.mark.parametrize("metric", ["euclidean", "chessboard", "taxicab"])
@pytest.mark.parametrize("symmetric", [False, True])
def test_mean_and_root_mean_square_surface_distance(seg, metric, symmetric):
    key = f"{seg}_{metric[:2]}_{int(symmetric)}"
    p, t = DATA[f"seg_{seg}_p"], DATA[f"seg_{seg}_t"]
    m = T.MeanSurfaceDistance(symmetric=symmetric, distance_metric=metric)
    m.update(Tensor(p), Tensor(t), SEGS[seg])
    assert m.eval() == pytest.approx(float(DATA[f"msd_{key}"]), rel=1e-12)
    m = T.RootMeanSquareDistance(symmetric=symmetric, distance_metric=metric)
    m.update(p, t, SEGS[seg])
    assert m.eval() == pytest.approx(float(DATA[f"rmsd_{key}"]), rel=1e-12)


@needs_scipy
def test_surface_distance_errors():
    p, t = DATA["seg_2d_p"], DATA["seg_2d_t"]
    with pytest.raises(ValueError, match="distance_metric"):
        T.HausdorffDistance("cosine")
    with pytest.raises(TypeError):
        T.HausdorffDistance(percentile=50)
    with pytest.raises(TypeError):
        T.MeanSurfaceDistance(symmetric=1)
    with pytest.raises(ValueError, match="3 inputs"):
        T.MeanSurfaceDistance().update(p, t)
    with pytest.raises(ValueError, match="label index"):
        T.HausdorffDistance().update(p, t, 7)
    with pytest.raises(ValueError, match="same shape"):
        T.MeanSurfaceDistance().update(p, t[:, :3], 2)
    with pytest.raises(ValueError):  # MindSpore: ValueError here, TypeError in RMSD
        T.HausdorffDistance().update(p, t, "2")
    with pytest.raises(TypeError):
        T.RootMeanSquareDistance().update(p, t, "2")
    for cls in (T.HausdorffDistance, T.MeanSurfaceDistance, T.RootMeanSquareDistance):
        with pytest.raises(RuntimeError):
            cls().eval()
    m = T.HausdorffDistance(percentile=150.0)
    m.update(p, t, 2)
    with pytest.raises(ValueError, match="percentile"):
        m.eval()


class LinearSoftmax(nn.Cell):
    def __init__(self, w):
        super().__init__()
        self.w = Tensor(w)

    def construct(self, x):
        return ops.softmax(ops.matmul(x.reshape(x.shape[0], -1), self.w), -1)


OCC_CASES = {"m1": dict(margin=1, n_batch=7), "m2": dict(pad_val=0.5),
             "box": dict(margin=1, n_batch=4, b_box=[-1, -1, 1, 2, 0, 3])}


@pytest.mark.parametrize("case", sorted(OCC_CASES))
def test_occlusion_sensitivity(case):
    net = LinearSoftmax(DATA["occ_w"])
    m = T.OcclusionSensitivity(**OCC_CASES[case])
    m.update(net, Tensor(DATA["occ_x"]), np.array(1))
    got = m.eval()
    assert got.shape == DATA[f"occ_{case}"].shape
    np.testing.assert_allclose(got, DATA[f"occ_{case}"], rtol=1e-4, atol=1e-6)


def test_occlusion_sensitivity_label_forms_and_errors():
    net = LinearSoftmax(DATA["occ_w"])
    want = DATA["occ_m1"]
    # MindSpore 2.10 fails on a label of shape (1,) (its batch indexing broadcasts); a plain
    # int, a 0-d array and a shape-(1,) Tensor all give the same result here.
    for label in (1, np.array(1), Tensor(np.array([1]))):
        m = T.OcclusionSensitivity(margin=1, n_batch=7)
        m.update(net, DATA["occ_x"], label)
        np.testing.assert_allclose(m.eval(), want, rtol=1e-4, atol=1e-6)
    with pytest.raises(TypeError):
        T.OcclusionSensitivity(pad_val=0)
    with pytest.raises(TypeError):
        T.OcclusionSensitivity(b_box=(0, 1))
    with pytest.raises(RuntimeError, match="batch size"):
        T.OcclusionSensitivity().update(net, np.zeros((2, 2, 4, 5), np.float32), 1)
    with pytest.raises(TypeError):
        T.OcclusionSensitivity().update(lambda x: x, DATA["occ_x"], 1)
    with pytest.raises(ValueError, match="b_box"):
        T.OcclusionSensitivity(b_box=[0, 1]).update(net, DATA["occ_x"], 1)
    with pytest.raises(RuntimeError):
        T.OcclusionSensitivity().eval()


CMM = json.loads(str(DATA["cmm_results"]))


@pytest.mark.parametrize("key", sorted(k for k in CMM if not k.startswith("2d|")))
def test_confusion_matrix_metric(key):
    name, skip, calc, decrease = key.split("|")
    m = T.ConfusionMatrixMetric(skip_channel=bool(int(skip)), metric_name=name,
                                calculation_method=bool(int(calc)), decrease=decrease)
    for i in range(2):
        m.update(Tensor(DATA[f"cmm_p{i}"]), Tensor(DATA[f"cmm_t{i}"]))
    np.testing.assert_allclose(np.asarray(m.eval(), dtype=np.float64), CMM[key], rtol=1e-12,
                               equal_nan=True)
    if "2d|" + key in CMM:
        m = T.ConfusionMatrixMetric(skip_channel=bool(int(skip)), metric_name=name,
                                    calculation_method=bool(int(calc)), decrease=decrease)
        m.update(DATA["cmm_2d_p"], DATA["cmm_2d_t"])
        np.testing.assert_allclose(np.asarray(m.eval(), dtype=np.float64), CMM["2d|" + key],
                                   rtol=1e-12, equal_nan=True)


def test_confusion_matrix_metric_errors():
    with pytest.raises(ValueError, match="metric_name"):
        T.ConfusionMatrixMetric(metric_name="nope")
    with pytest.raises(ValueError, match="decrease"):
        T.ConfusionMatrixMetric(decrease="max")
    with pytest.raises(TypeError):
        T.ConfusionMatrixMetric(skip_channel=1)
    m = T.ConfusionMatrixMetric()
    with pytest.raises(ValueError, match="binary"):
        m.update(np.ones((2, 2)), np.full((2, 2), 0.5))
    with pytest.raises(ValueError, match="2 dimensions"):
        m.update(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="same shape"):
        m.update(np.ones((2, 3)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="one value"):
        T.ConfusionMatrixMetric(calculation_method=True, decrease="none").update(
            DATA["cmm_p0"], DATA["cmm_t0"])
    with pytest.raises(RuntimeError):
        T.ConfusionMatrixMetric(calculation_method=True).eval()
    perfect = np.eye(3)[None].repeat(2, axis=0)
    assert T.ConfusionMatrixMetric(metric_name="f1")(perfect, perfect)[0] == 1.0


# ---- PSNR / SSIM / MSSSIM (nn cells) --------------------------------------------------------
from minispore.nn.layer import image_quality as IQ

IQ_SIGNATURES = {  # str(inspect.signature(mindspore.nn.X)) on MindSpore 2.10
    "PSNR": "(max_val=1.0)",
    "SSIM": "(max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)",
    "MSSSIM": "(max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333), "
              "filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)",
}
IQ_CELLS = {
    "psnr": lambda: IQ.PSNR(),
    "psnr255": lambda: IQ.PSNR(max_val=255),
    "ssim": lambda: IQ.SSIM(filter_size=5, filter_sigma=1.0),
    "ssim_k": lambda: IQ.SSIM(max_val=2.0, filter_size=4, filter_sigma=0.8, k1=0.02, k2=0.05),
    "msssim": lambda: IQ.MSSSIM(power_factors=(0.3, 0.4, 0.3), filter_size=3),
    "msssim2": lambda: IQ.MSSSIM(power_factors=[0.5, 0.5], filter_size=5, filter_sigma=1.2),
}


@pytest.mark.parametrize("name", sorted(IQ_SIGNATURES))
def test_image_quality_signatures(name):
    assert str(inspect.signature(getattr(IQ, name))) == IQ_SIGNATURES[name]


@pytest.mark.parametrize("name", sorted(IQ_CELLS))
def test_image_quality_values_and_gradients(name):
    # MindSpore 2.10 runs these cells in graph mode only (PyNative fails in ScalarCast).
    cell = IQ_CELLS[name]()
    a, b = Tensor(DATA["img_a"]), Tensor(DATA["img_b"])
    out = cell(a, b)
    assert out.dtype == ms.float32 and out.shape == DATA[f"iq_{name}_y"].shape
    np.testing.assert_allclose(out.asnumpy(), DATA[f"iq_{name}_y"], rtol=1e-4, atol=1e-5)
    g = Tensor(DATA[f"iq_{name}_g"])
    da, db = ms.grad(lambda x, y: (cell(x, y) * g).sum(), (0, 1))(a, b)
    for got, key in ((da, "da"), (db, "db")):
        want = DATA[f"iq_{name}_{key}"]
        np.testing.assert_allclose(got.asnumpy(), want, rtol=2e-3,
                                   atol=2e-3 * float(np.abs(want).max()))


def test_image_quality_integer_images_use_the_dtype_scale():
    a, b = Tensor(DATA["img_u8a"]), Tensor(DATA["img_u8b"])
    np.testing.assert_allclose(IQ.PSNR(255)(a, b).asnumpy(), DATA["iq_psnr_u8"], rtol=1e-5)
    np.testing.assert_allclose(
        IQ.MSSSIM(max_val=255, power_factors=(0.5, 0.5), filter_size=3)(a, b).asnumpy(),
        DATA["iq_msssim_u8"], rtol=1e-4, atol=1e-6)


def test_image_quality_identical_images_and_errors():
    a = Tensor(DATA["img_a"])
    np.testing.assert_allclose(IQ.SSIM(filter_size=3)(a, a).asnumpy(), 1.0, rtol=1e-5)
    np.testing.assert_allclose(
        IQ.MSSSIM(power_factors=(0.5, 0.5), filter_size=3)(a, a).asnumpy(), 1.0, rtol=1e-5)
    with pytest.raises(TypeError):
        IQ.PSNR("1")
    with pytest.raises(ValueError):
        IQ.PSNR(0)
    with pytest.raises(TypeError):
        IQ.SSIM(k1=1)
    with pytest.raises(ValueError):
        IQ.SSIM(filter_size=0)
    with pytest.raises(TypeError):
        IQ.MSSSIM(power_factors=0.5)
    with pytest.raises(ValueError, match="4d"):
        IQ.PSNR()(Tensor(np.ones((3, 4, 4), np.float32)),
                  Tensor(np.ones((3, 4, 4), np.float32)))
    with pytest.raises(ValueError, match="same shape"):
        IQ.PSNR()(a, Tensor(DATA["img_a"][:1]))
    with pytest.raises(TypeError, match="same dtype"):
        IQ.PSNR()(a, Tensor(DATA["img_b"].astype(np.float64)))
    with pytest.raises(TypeError, match="dtype"):
        IQ.SSIM(filter_size=3)(Tensor(DATA["img_u8a"]), Tensor(DATA["img_u8b"]))
    small = Tensor(DATA["img_a"][..., :8, :8])
    with pytest.raises(ValueError, match="filter_size"):
        IQ.SSIM()(small, small)
    with pytest.raises(ValueError, match="scales"):
        IQ.MSSSIM(filter_size=5)(a, a)
