"""Make mindspore_losses_extra.npz: inputs and outputs of MindSpore 2.10's CTC loss (values,
log_alpha, gradients of the logits through log_softmax), MultiClassDiceLoss, PoissonNLLLoss
and TripletMarginWithDistanceLoss, for tests/nn/test_losses_extra.py (MultilabelMarginLoss
has no CPU kernel in 2.10). Run once in a separate venv with real MindSpore:
python make_mindspore_losses_extra.py"""
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

rng = np.random.default_rng(3)
data = {}


def i32(a):
    return Tensor(np.asarray(a, np.int32))


# ---- CTC: T=6, N=4, C=5; a repeat, an empty target, a short input, a full-length target
logits = rng.standard_normal((6, 4, 5))
targets = np.array([[1, 2, 2, 0], [3, 3, 0, 0], [4, 1, 2, 3], [2, 0, 0, 0]])
il = np.array([6, 5, 6, 3])
tl = np.array([3, 2, 4, 0])
data.update(ctc_logits=logits, ctc_targets=targets, ctc_il=il, ctc_tl=tl)
# log-probabilities from NumPy: MindSpore 2.10's float64 log_softmax is off by ~3e-6
lp64 = logits - logits.max(2, keepdims=True)
lp64 -= np.log(np.exp(lp64).sum(2, keepdims=True))
for dt in ("float32", "float64"):
    lp = Tensor(lp64.astype(dt))
    loss, log_alpha = ops.ctc_loss(lp, i32(targets), i32(il), i32(tl), reduction="none")
    data[f"ctc_none_{dt}"] = loss.asnumpy()
    data[f"ctc_log_alpha_{dt}"] = log_alpha.asnumpy()
    for red in ("mean", "sum"):
        data[f"ctc_{red}_{dt}"] = ops.ctc_loss(lp, i32(targets), i32(il), i32(tl), blank=0,
                                               reduction=red)[0].asnumpy()

    def total(z, red="mean"):
        return ops.ctc_loss(ops.log_softmax(z, 2), i32(targets), i32(il), i32(tl),
                            reduction=red)[0]
    data[f"ctc_grad_logits_{dt}"] = ms.grad(total)(Tensor(logits.astype(dt))).asnumpy()

# another blank, through nn.CTCLoss
blank4 = np.array([[1, 2, 2, 0], [3, 3, 0, 0], [0, 1, 2, 3], [2, 0, 0, 0]])
lp32 = Tensor(lp64.astype(np.float32))
data["ctc_blank4_targets"] = blank4
data["ctc_blank4_sum"] = nn.CTCLoss(blank=4, reduction="sum")(lp32, i32(blank4), i32(il),
                                                               i32(tl)).asnumpy()
# one unbatched sequence (T, C)
data["ctc_2d_none"] = nn.CTCLoss(reduction="none")(lp32[:, 0], i32([1, 2, 2]), i32([6]),
                                                   i32([3])).asnumpy()
data["ctc_2d_mean"] = nn.CTCLoss()(lp32[:, 0], i32([[1, 2, 2]]), i32([6]), i32([3])).asnumpy()
# an impossible alignment (1, 1, 1 needs 5 frames): inf, and zero_infinity's gradient
imp = np.array([[1, 1, 1, 0], [3, 3, 0, 0], [4, 1, 2, 3], [2, 0, 0, 0]])
imp_il = np.array([4, 5, 6, 3])
data.update(ctc_imp_targets=imp, ctc_imp_il=imp_il)
data["ctc_imp_none"] = ops.ctc_loss(lp32, i32(imp), i32(imp_il), i32(tl),
                                    reduction="none")[0].asnumpy()
data["ctc_imp_zi_grad_logits"] = ms.grad(lambda z: ops.ctc_loss(
    ops.log_softmax(z, 2), i32(imp), i32(imp_il), i32(tl), reduction="sum",
    zero_infinity=True)[0])(Tensor(logits.astype(np.float32))).asnumpy()

# ---- MultiClassDiceLoss
x = rng.standard_normal((3, 4)).astype(np.float32)
y = np.eye(4, dtype=np.float32)[[0, 3, 1]]
x4 = rng.standard_normal((2, 3, 2, 3)).astype(np.float32)
y4 = (rng.random((2, 3, 2, 3)) > 0.5).astype(np.float32)
w = rng.random((4, 2)).astype(np.float32)
data.update(dice_x=x, dice_y=y, dice_x4=x4, dice_y4=y4, dice_w=w)
data["mcdice"] = nn.MultiClassDiceLoss()(Tensor(x), Tensor(y)).asnumpy()
data["mcdice_w_ignore"] = nn.MultiClassDiceLoss(Tensor(w), 2, "sigmoid")(Tensor(x),
                                                                       Tensor(y)).asnumpy()
data["mcdice_4d"] = nn.MultiClassDiceLoss()(Tensor(x4), Tensor(y4)).asnumpy()
data["mcdice_4d_relu"] = nn.MultiClassDiceLoss(activation="relu")(Tensor(x4),
                                                                 Tensor(y4)).asnumpy()

# ---- PoissonNLLLoss
px = rng.standard_normal((3, 4)).astype(np.float32)
rate = rng.random((3, 4)).astype(np.float32) + 0.1
counts = rng.integers(0, 5, (3, 4)).astype(np.float32)
data.update(pnll_x=px, pnll_rate=rate, pnll_counts=counts)
data["pnll"] = nn.PoissonNLLLoss()(Tensor(px), Tensor(counts)).asnumpy()
data["pnll_full_none"] = nn.PoissonNLLLoss(full=True, reduction="none")(
    Tensor(px), Tensor(counts)).asnumpy()
data["pnll_rate_sum"] = nn.PoissonNLLLoss(log_input=False, reduction="sum")(
    Tensor(rate), Tensor(counts)).asnumpy()

# ---- TripletMarginWithDistanceLoss
a, p, n = (rng.standard_normal((4, 3)).astype(np.float32) for _ in range(3))
data.update(tm_a=a, tm_p=p, tm_n=n)
data["tm"] = nn.TripletMarginWithDistanceLoss()(Tensor(a), Tensor(p), Tensor(n)).asnumpy()
data["tm_swap_none"] = nn.TripletMarginWithDistanceLoss(swap=True, reduction="none",
                                                        margin=2.0)(
    Tensor(a), Tensor(p), Tensor(n)).asnumpy()

np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_losses_extra.npz"),
         **data)
