"""Make mindspore_wave2.npz: inputs and results of MindSpore 2.10's metrics ROC, auc, Dice,
BleuScore, HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance, OcclusionSensitivity
and ConfusionMatrixMetric, of nn.PSNR / SSIM / MSSSIM (values and input gradients), and of a
small training run with data_sink, for tests/nn/test_metrics_wave2.py and
tests/train/test_train_wave2.py. Run with real MindSpore (CPU) from a scratch directory:

    /tmp/msvenv/bin/python /work/main/tests/train/data/make_mindspore_wave2.py
"""
import json
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops, train

rng = np.random.default_rng(0)
data = {}


def put_curve(key, curve):
    """Store ROC's (fpr, tpr, thresholds): arrays, or per-class lists of arrays."""
    for name, part in zip(("fpr", "tpr", "thr"), curve):
        if isinstance(part, list):
            data[f"{key}_{name}_n"] = np.array(len(part))
            for i, arr in enumerate(part):
                data[f"{key}_{name}_{i}"] = np.asarray(arr)
        else:
            data[f"{key}_{name}"] = np.asarray(part)


# ---- ROC / auc -----------------------------------------------------------------------------
roc_bin_x = np.round(rng.uniform(size=12), 1)
roc_bin_y = rng.integers(0, 2, size=12)
data["roc_bin_x"], data["roc_bin_y"] = roc_bin_x, roc_bin_y
m = train.ROC()
m.update(Tensor(roc_bin_x), Tensor(roc_bin_y))
curve = m.eval()
put_curve("roc_bin", curve)
data["auc_bin"] = np.asarray(train.auc(curve[0], curve[1]))
data["roc_doc_x"] = np.array([0.28, 0.55, 0.15, 0.05])
data["roc_doc_y"] = np.array([0, 1, 2, 3])
m = train.ROC(pos_label=2)
m.update(Tensor(data["roc_doc_x"]), Tensor(data["roc_doc_y"]))
put_curve("roc_pos2", m.eval())
roc_mc_x = np.round(rng.uniform(size=(10, 3)), 1)
roc_mc_y = np.concatenate([[0, 1, 2], rng.integers(0, 3, size=7)])
data["roc_mc_x"], data["roc_mc_y"] = roc_mc_x, roc_mc_y
m = train.ROC(class_num=3)
m.update(roc_mc_x, roc_mc_y)
curve = m.eval()
put_curve("roc_mc", curve)
data["auc_mc"] = np.array([train.auc(f, t) for f, t in zip(curve[0], curve[1])])
auc_x = rng.uniform(size=8)
auc_y = rng.uniform(size=8)
data["auc_x"], data["auc_y"] = auc_x, auc_y
data["auc_reorder"] = np.asarray(train.auc(auc_x, auc_y, reorder=True))
data["auc_desc"] = np.asarray(train.auc(np.sort(auc_x)[::-1].copy(), auc_y))

# ---- Dice ----------------------------------------------------------------------------------
dice_p = [rng.uniform(size=(3, 4)), rng.uniform(size=(2, 4))]
dice_t = [rng.integers(0, 2, size=(3, 4)).astype(np.float64),
          rng.integers(0, 2, size=(2, 4)).astype(np.float64)]
m = train.Dice(smooth=1e-3)
for i, (p, t) in enumerate(zip(dice_p, dice_t)):
    data[f"dice_p{i}"], data[f"dice_t{i}"] = p, t
    m.update(Tensor(p), Tensor(t))
data["dice"] = np.asarray(m.eval())

# ---- BleuScore ------------------------------------------------------------------------------
vocab = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "is"]


def sentence(n):
    return [vocab[i] for i in rng.integers(0, len(vocab), size=n)]


candidates = [sentence(int(rng.integers(4, 9))) for _ in range(4)]
references = [[sentence(int(rng.integers(4, 9))) for _ in range(int(rng.integers(1, 4)))]
              for _ in range(4)]
references[0].append(list(candidates[0]))
data["bleu_corpus"] = np.array(json.dumps([candidates, references]))
for n_gram in (1, 2, 3, 4):
    for smooth in (False, True):
        m = train.BleuScore(n_gram=n_gram, smooth=smooth)
        m.update(candidates[:2], references[:2])
        m.update(candidates[2:], references[2:])
        data[f"bleu_{n_gram}_{int(smooth)}"] = np.asarray(m.eval())
m = train.BleuScore()
m.update([["i", "have", "a", "pen", "on", "my", "desk"]],
         [[["i", "have", "a", "pen", "in", "my", "desk"],
           ["there", "is", "a", "pen", "on", "the", "desk"]]])
data["bleu_doc"] = np.asarray(m.eval())

# ---- surface distances -----------------------------------------------------------------------
seg_2d_p = (rng.uniform(size=(9, 10)) > 0.6).astype(np.int64) * 2
seg_2d_t = (rng.uniform(size=(9, 10)) > 0.6).astype(np.int64) * 2
seg_2d_p[0:3, 0:3] = 1
seg_3d_p = np.zeros((6, 7, 5), np.float32)
seg_3d_t = np.zeros((6, 7, 5), np.float32)
seg_3d_p[1:4, 2:6, 1:4] = 3
seg_3d_t[2:5, 1:5, 0:3] = 3
seg_3d_t[5, 6, 4] = 3
data.update(seg_2d_p=seg_2d_p, seg_2d_t=seg_2d_t, seg_3d_p=seg_3d_p, seg_3d_t=seg_3d_t)
SEGS = {"2d": (seg_2d_p, seg_2d_t, 2), "3d": (seg_3d_p, seg_3d_t, 3)}
HD_CASES = {
    "eu": {}, "cb": dict(distance_metric="chessboard"), "tc": dict(distance_metric="taxicab"),
    "pc": dict(percentile=60.0), "dir": dict(directed=True), "nocrop": dict(crop=False),
}
for seg, (p, t, label) in SEGS.items():
    for case, kw in HD_CASES.items():
        m = train.HausdorffDistance(**kw)
        m.update(Tensor(p), Tensor(t), label)
        data[f"hd_{seg}_{case}"] = np.asarray(m.eval())
    for metric in ("euclidean", "chessboard", "taxicab"):
        for symmetric in (False, True):
            key = f"{seg}_{metric[:2]}_{int(symmetric)}"
            m = train.MeanSurfaceDistance(symmetric=symmetric, distance_metric=metric)
            m.update(Tensor(p), Tensor(t), label)
            data[f"msd_{key}"] = np.asarray(m.eval())
            m = train.RootMeanSquareDistance(symmetric=symmetric, distance_metric=metric)
            m.update(p, t, label)
            data[f"rmsd_{key}"] = np.asarray(m.eval())
m = train.HausdorffDistance()
m.update(seg_2d_p, seg_2d_t, 1)
data["hd_2d_onlypred"] = np.asarray(m.eval())

# ---- OcclusionSensitivity ----------------------------------------------------------------
occ_w = rng.standard_normal((2 * 4 * 5, 3)).astype(np.float32)
occ_x = rng.standard_normal((1, 2, 4, 5)).astype(np.float32)
data["occ_w"], data["occ_x"] = occ_w, occ_x


class LinearSoftmax(nn.Cell):
    def __init__(self, w):
        super().__init__()
        self.w = Tensor(w)

    def construct(self, x):
        return ops.softmax(ops.matmul(x.reshape(x.shape[0], -1), self.w), -1)


occ_net = LinearSoftmax(occ_w)
OCC_CASES = {"m1": dict(margin=1, n_batch=7), "m2": dict(pad_val=0.5),
             "box": dict(margin=1, n_batch=4, b_box=[-1, -1, 1, 2, 0, 3])}
for case, kw in OCC_CASES.items():
    m = train.OcclusionSensitivity(**kw)
    m.update(occ_net, Tensor(occ_x), np.array(1))
    data[f"occ_{case}"] = np.asarray(m.eval())

# ---- ConfusionMatrixMetric ---------------------------------------------------------------
cmm_p = [rng.integers(0, 2, size=(3, 3, 4)).astype(np.float32),
         rng.integers(0, 2, size=(2, 3, 4)).astype(np.float32)]
cmm_t = [rng.integers(0, 2, size=(3, 3, 4)).astype(np.float32),
         rng.integers(0, 2, size=(2, 3, 4)).astype(np.float32)]
cmm_2d_p = rng.integers(0, 2, size=(6, 3)).astype(np.float32)
cmm_2d_t = rng.integers(0, 2, size=(6, 3)).astype(np.float32)
for i in range(2):
    data[f"cmm_p{i}"], data[f"cmm_t{i}"] = cmm_p[i], cmm_t[i]
data["cmm_2d_p"], data["cmm_2d_t"] = cmm_2d_p, cmm_2d_t
CMM_NAMES = ["sensitivity", "specificity", "precision", "npv", "miss rate", "fall_out", "fdr",
             "false_omission_rate", "prevalence threshold", "threat_score", "accuracy",
             "balanced_accuracy", "f1_score", "mcc", "fowlkes_mallows_index", "informedness",
             "markedness"]
cmm_results = {}
for name in CMM_NAMES:
    for skip in (True, False):
        for calc, decrease in ((False, "mean"), (True, "mean"), (True, "sum")):
            m = train.ConfusionMatrixMetric(skip_channel=skip, metric_name=name,
                                            calculation_method=calc, decrease=decrease)
            for p, t in zip(cmm_p, cmm_t):
                m.update(Tensor(p), Tensor(t))
            key = f"{name}|{int(skip)}|{int(calc)}|{decrease}"
            cmm_results[key] = np.asarray(m.eval(), dtype=np.float64).tolist()
            if not calc:  # MindSpore 2.10 fails on 2-d inputs with calculation_method=True
                m = train.ConfusionMatrixMetric(skip_channel=skip, metric_name=name,
                                                calculation_method=calc, decrease=decrease)
                m.update(cmm_2d_p, cmm_2d_t)
                cmm_results["2d|" + key] = np.asarray(m.eval(), dtype=np.float64).tolist()
data["cmm_results"] = np.array(json.dumps(cmm_results))

# ---- a training run (the reference for data sinking) ----------------------------------------
import mindspore.dataset as mds  # noqa: E402

train_x = rng.standard_normal((6, 4)).astype(np.float32)
train_y = rng.standard_normal((6, 2)).astype(np.float32)
dense_w = rng.standard_normal((2, 4)).astype(np.float32)
dense_b = rng.standard_normal(2).astype(np.float32)
data.update(train_x=train_x, train_y=train_y, dense_w=dense_w, dense_b=dense_b)
for epochs in (1, 2):
    net = nn.Dense(4, 2)
    net.weight.set_data(Tensor(dense_w))
    net.bias.set_data(Tensor(dense_b))
    model = train.Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    dataset = mds.NumpySlicesDataset((train_x, train_y), column_names=["x", "y"],
                                     shuffle=False).batch(2)
    model.train(epochs, dataset, dataset_sink_mode=False)
    data[f"train_{epochs}ep_w"] = net.weight.asnumpy()
    data[f"train_{epochs}ep_b"] = net.bias.asnumpy()

# ---- PSNR / SSIM / MSSSIM ---------------------------------------------------------------------
# MindSpore 2.10's PyNative mode fails in these cells (ScalarCast of a float32 scalar): graph mode.
ms.set_context(mode=ms.GRAPH_MODE)
img_a = rng.uniform(size=(2, 3, 16, 16)).astype(np.float32)
img_b = np.clip(img_a + 0.1 * rng.standard_normal((2, 3, 16, 16)), 0, 1).astype(np.float32)
img_u8a = rng.integers(0, 256, size=(1, 2, 12, 12)).astype(np.uint8)
img_u8b = rng.integers(0, 256, size=(1, 2, 12, 12)).astype(np.uint8)
data.update(img_a=img_a, img_b=img_b, img_u8a=img_u8a, img_u8b=img_u8b)
IQ_CELLS = {
    "psnr": lambda: nn.PSNR(),
    "psnr255": lambda: nn.PSNR(max_val=255),
    "ssim": lambda: nn.SSIM(filter_size=5, filter_sigma=1.0),
    "ssim_k": lambda: nn.SSIM(max_val=2.0, filter_size=4, filter_sigma=0.8, k1=0.02, k2=0.05),
    "msssim": lambda: nn.MSSSIM(power_factors=(0.3, 0.4, 0.3), filter_size=3),
    "msssim2": lambda: nn.MSSSIM(power_factors=[0.5, 0.5], filter_size=5, filter_sigma=1.2),
}


class Weighted(nn.Cell):
    """sum(cell(a, b) * g): its gradients are the vector-Jacobian products with g."""

    def __init__(self, cell, g):
        super().__init__()
        self.cell, self.g = cell, Tensor(g)

    def construct(self, a, b):
        return (self.cell(a, b) * self.g).sum()


for name, make in IQ_CELLS.items():
    cell = make()
    out = cell(Tensor(img_a), Tensor(img_b))
    g = rng.standard_normal(out.shape).astype(np.float32)
    da, db = ms.grad(Weighted(cell, g), (0, 1))(Tensor(img_a), Tensor(img_b))
    data[f"iq_{name}_y"], data[f"iq_{name}_g"] = out.asnumpy(), g
    data[f"iq_{name}_da"], data[f"iq_{name}_db"] = da.asnumpy(), db.asnumpy()
data["iq_psnr_u8"] = nn.PSNR(255)(Tensor(img_u8a), Tensor(img_u8b)).asnumpy()
data["iq_msssim_u8"] = nn.MSSSIM(max_val=255, power_factors=(0.5, 0.5), filter_size=3)(
    Tensor(img_u8a), Tensor(img_u8b)).asnumpy()

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_wave2.npz")
np.savez_compressed(out, **data)
print("wrote", out, len(data), "arrays")
