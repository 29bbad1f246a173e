"""Make mindspore_nnx.npz: inputs, outputs, gradients and updated Parameters of MindSpore 2.10's
activation, loss and optimizer-update ops, for tests/ops/test_nn_family.py and
tests/ops/test_optim_ops.py. Run with real MindSpore (CPU):

    /tmp/msvenv/bin/python tests/ops/data/make_mindspore_nnx.py
"""
import inspect
import json
import os

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, ops

rng = np.random.default_rng(0)
data = {}
skipped = []


def f32(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape).astype(np.float32)


def pos(*shape):
    return f32(*shape, low=0.1, high=1.5)


def scalar(v):
    return np.asarray(v, np.float32)


# ---- optimizer updates: (case, op, kwargs, [(input name, kind, value)]) ---------------------------
# kind: "param" (a Parameter updated in place), "tensor", "number" (a Python float), "int".
V = (3, 4)
OPTIM = [
    ("momentum", "ApplyMomentum", {}, [("variable", "param", f32(*V)), ("accumulation", "param", f32(*V)),
                                         ("learning_rate", "tensor", scalar(0.1)), ("gradient", "tensor", f32(*V)),
                                         ("momentum", "tensor", scalar(0.9))]),
    ("momentum_nesterov", "ApplyMomentum", {"use_nesterov": True}, [
        ("variable", "param", f32(*V)), ("accumulation", "param", f32(*V)),
        ("learning_rate", "number", 0.1), ("gradient", "tensor", f32(*V)), ("momentum", "number", 0.9)]),
    ("momentum_scale", "ApplyMomentum", {"gradient_scale": 0.5}, [
        ("variable", "param", f32(*V)), ("accumulation", "param", f32(*V)),
        ("learning_rate", "number", 0.1), ("gradient", "tensor", f32(*V)), ("momentum", "number", 0.9)]),
    ("gd", "ApplyGradientDescent", {}, [("var", "param", f32(*V)), ("alpha", "tensor", scalar(0.3)),
                                         ("delta", "tensor", f32(*V))]),
    ("adagrad", "ApplyAdagrad", {}, [("var", "param", f32(*V)), ("accum", "param", pos(*V)),
                                      ("lr", "tensor", scalar(0.1)), ("grad", "tensor", f32(*V))]),
    ("adagrad_noslots", "ApplyAdagrad", {"update_slots": False}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("lr", "number", 0.1),
        ("grad", "tensor", f32(*V))]),
    ("adagradv2", "ApplyAdagradV2", {"epsilon": 1e-3}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("lr", "tensor", scalar(0.1)),
        ("grad", "tensor", f32(*V))]),
    ("adagradv2_noslots", "ApplyAdagradV2", {"epsilon": 0.5, "update_slots": False}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("lr", "number", 0.1),
        ("grad", "tensor", f32(*V))]),
    ("adadelta", "ApplyAdadelta", {}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("accum_update", "param", pos(*V)),
        ("lr", "tensor", scalar(0.5)), ("rho", "tensor", scalar(0.9)),
        ("epsilon", "tensor", scalar(1e-3)), ("grad", "tensor", f32(*V))]),
    ("adamax", "ApplyAdaMax", {}, [
        ("var", "param", f32(*V)), ("m", "param", f32(*V)), ("v", "param", pos(*V)),
        ("beta1_power", "tensor", scalar(0.81)), ("lr", "tensor", scalar(0.01)),
        ("beta1", "tensor", scalar(0.9)), ("beta2", "tensor", scalar(0.99)),
        ("epsilon", "tensor", scalar(1e-3)), ("grad", "tensor", f32(*V))]),
    ("adagradda", "ApplyAdagradDA", {}, [
        ("var", "param", f32(*V)), ("gradient_accumulator", "param", f32(*V)),
        ("gradient_squared_accumulator", "param", pos(*V)), ("grad", "tensor", f32(*V)),
        ("lr", "tensor", scalar(0.1)), ("l1", "tensor", scalar(0.05)), ("l2", "tensor", scalar(0.1)),
        ("global_step", "int", 3)]),
    ("adagradda_l1zero", "ApplyAdagradDA", {}, [
        ("var", "param", f32(*V)), ("gradient_accumulator", "param", f32(*V)),
        ("gradient_squared_accumulator", "param", pos(*V)), ("grad", "tensor", f32(*V)),
        ("lr", "tensor", scalar(0.1)), ("l1", "tensor", scalar(0.0)), ("l2", "tensor", scalar(0.1)),
        ("global_step", "int", 2)]),
    ("amsgrad", "ApplyAdamWithAmsgrad", {"beta1": 0.8, "beta2": 0.95, "epsilon": 1e-3}, [
        ("var", "param", f32(*V)), ("m", "param", f32(*V)), ("v", "param", pos(*V)),
        ("vhat", "param", pos(*V)), ("beta1_power", "tensor", scalar(0.64)),
        ("beta2_power", "tensor", scalar(0.9)), ("lr", "tensor", scalar(0.01)),
        ("grad", "tensor", f32(*V))]),
    ("amsgradv2", "ApplyAdamWithAmsgradV2", {}, [
        ("var", "param", f32(*V)), ("m", "param", f32(*V)), ("v", "param", pos(*V)),
        ("vhat", "param", pos(*V)), ("beta1_power", "tensor", scalar(0.64)),
        ("beta2_power", "tensor", scalar(0.9)), ("lr", "tensor", scalar(0.01)),
        ("beta1", "tensor", scalar(0.8)), ("beta2", "tensor", scalar(0.95)),
        ("epsilon", "tensor", scalar(1e-3)), ("grad", "tensor", f32(*V))]),
    ("addsign", "ApplyAddSign", {}, [
        ("var", "param", f32(*V)), ("m", "param", f32(*V)), ("lr", "tensor", scalar(0.01)),
        ("alpha", "tensor", scalar(1.0)), ("sign_decay", "tensor", scalar(0.5)),
        ("beta", "tensor", scalar(0.9)), ("grad", "tensor", f32(*V))]),
    ("powersign", "ApplyPowerSign", {}, [
        ("var", "param", f32(*V)), ("m", "param", f32(*V)), ("lr", "tensor", scalar(0.01)),
        ("logbase", "tensor", scalar(np.e)), ("sign_decay", "tensor", scalar(0.5)),
        ("beta", "tensor", scalar(0.9)), ("grad", "tensor", f32(*V))]),
    ("centered_rmsprop", "ApplyCenteredRMSProp", {}, [
        ("var", "param", f32(*V)), ("mean_gradient", "param", f32(*V, low=-0.1, high=0.1)),
        ("mean_square", "param", pos(*V)), ("moment", "param", f32(*V)), ("grad", "tensor", f32(*V)),
        ("learning_rate", "tensor", scalar(0.01)), ("decay", "number", 0.9), ("momentum", "number", 0.5),
        ("epsilon", "number", 1e-3)]),
    ("rmsprop", "ApplyRMSProp", {}, [
        ("var", "param", f32(*V)), ("mean_square", "param", pos(*V)), ("moment", "param", f32(*V)),
        ("learning_rate", "tensor", scalar(0.01)), ("grad", "tensor", f32(*V)), ("decay", "number", 0.9),
        ("momentum", "number", 0.5), ("epsilon", "number", 1e-3)]),
    ("ftrl", "ApplyFtrl", {}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("linear", "param", f32(*V)),
        ("grad", "tensor", f32(*V)), ("lr", "number", 0.1), ("l1", "number", 0.05), ("l2", "number", 0.1),
        ("lr_power", "number", -0.5)]),
    ("ftrl_power", "ApplyFtrl", {}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("linear", "param", f32(*V)),
        ("grad", "tensor", f32(*V)), ("lr", "number", 0.1), ("l1", "number", 0.0), ("l2", "number", 0.2),
        ("lr_power", "number", -0.3)]),
    ("keras", "ApplyKerasMomentum", {}, [
        ("var", "param", f32(*V)), ("accum", "param", f32(*V)), ("lr", "tensor", scalar(0.1)),
        ("grad", "tensor", f32(*V)), ("momentum", "tensor", scalar(0.9))]),
    ("keras_nesterov", "ApplyKerasMomentum", {"use_nesterov": True}, [
        ("var", "param", f32(*V)), ("accum", "param", f32(*V)), ("lr", "tensor", scalar(0.1)),
        ("grad", "tensor", f32(*V)), ("momentum", "tensor", scalar(0.9))]),
    ("proximal_adagrad", "ApplyProximalAdagrad", {}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("lr", "tensor", scalar(0.1)),
        ("l1", "tensor", scalar(0.05)), ("l2", "tensor", scalar(0.1)), ("grad", "tensor", f32(*V))]),
    ("proximal_gd", "ApplyProximalGradientDescent", {}, [
        ("var", "param", f32(*V)), ("alpha", "tensor", scalar(0.1)), ("l1", "tensor", scalar(0.05)),
        ("l2", "tensor", scalar(0.1)), ("delta", "tensor", f32(*V))]),
    ("adam", "Adam", {}, [
        ("var", "param", f32(*V)), ("m", "param", f32(*V)), ("v", "param", pos(*V)),
        ("beta1_power", "number", 0.81), ("beta2_power", "number", 0.98), ("lr", "number", 0.01),
        ("beta1", "number", 0.9), ("beta2", "number", 0.99), ("epsilon", "number", 1e-3),
        ("gradient", "tensor", f32(*V))]),
    ("adam_nesterov", "Adam", {"use_nesterov": True}, [
        ("var", "param", f32(*V)), ("m", "param", f32(*V)), ("v", "param", pos(*V)),
        ("beta1_power", "number", 0.81), ("beta2_power", "number", 0.98), ("lr", "number", 0.01),
        ("beta1", "number", 0.9), ("beta2", "number", 0.99), ("epsilon", "number", 1e-3),
        ("gradient", "tensor", f32(*V))]),
    ("adam_noupdate", "AdamNoUpdateParam", {}, [
        ("m", "param", f32(*V)), ("v", "param", pos(*V)), ("beta1_power", "tensor", scalar(0.81)),
        ("beta2_power", "tensor", scalar(0.98)), ("lr", "tensor", scalar(0.01)),
        ("beta1", "tensor", scalar(0.9)), ("beta2", "tensor", scalar(0.99)),
        ("epsilon", "tensor", scalar(1e-3)), ("gradient", "tensor", f32(*V))]),
    ("adamwd", "AdamWeightDecay", {}, [
        ("var", "param", f32(*V)), ("m", "param", f32(*V)), ("v", "param", pos(*V)),
        ("lr", "number", 0.01), ("beta1", "number", 0.9), ("beta2", "number", 0.99),
        ("epsilon", "number", 1e-3), ("decay", "number", 0.1), ("gradient", "tensor", f32(*V))]),
    ("sgd", "SGD", {}, [
        ("parameters", "param", f32(*V)), ("gradient", "tensor", f32(*V)),
        ("learning_rate", "tensor", scalar(0.1)), ("accum", "param", f32(*V)),
        ("momentum", "tensor", scalar(0.9)), ("stat", "param", np.ones(V, np.float32))]),
    ("sgd_stat0", "SGD", {"dampening": 0.1, "weight_decay": 0.2}, [
        ("parameters", "param", f32(*V)), ("gradient", "tensor", f32(*V)),
        ("learning_rate", "tensor", scalar(0.1)), ("accum", "param", f32(*V)),
        ("momentum", "tensor", scalar(0.9)), ("stat", "param", np.zeros(V, np.float32))]),
    ("sgd_nesterov", "SGD", {"dampening": 0.0, "weight_decay": 0.2, "nesterov": True}, [
        ("parameters", "param", f32(*V)), ("gradient", "tensor", f32(*V)),
        ("learning_rate", "tensor", scalar(0.1)), ("accum", "param", f32(*V)),
        ("momentum", "tensor", scalar(0.9)), ("stat", "param", np.zeros(V, np.float32))]),
    ("lars", "LARSUpdate", {}, [
        ("weight", "tensor", f32(*V)), ("gradient", "tensor", f32(*V)),
        ("norm_weight", "tensor", scalar(2.0)), ("norm_gradient", "tensor", scalar(3.0)),
        ("weight_decay", "tensor", scalar(0.1)), ("learning_rate", "tensor", scalar(0.5))]),
    ("lars_clip", "LARSUpdate", {"epsilon": 0.1, "hyperpara": 0.5, "use_clip": True}, [
        ("weight", "tensor", f32(*V)), ("gradient", "tensor", f32(*V)),
        ("norm_weight", "tensor", scalar(2.0)), ("norm_gradient", "tensor", scalar(3.0)),
        ("weight_decay", "tensor", scalar(0.1)), ("learning_rate", "tensor", scalar(0.5))]),
    ("assign_add", "AssignAdd", {}, [("variable", "param", f32(*V)), ("value", "tensor", f32(*V))]),
    ("assign_sub", "AssignSub", {}, [("variable", "param", f32(*V)), ("value", "tensor", f32(*V))]),
]
IDX = np.array([2, 0], np.int32)
G = (2, 4)
OPTIM += [
    ("sparse_adadelta", "SparseApplyAdadelta", {"epsilon": 1e-3}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("accum_update", "param", pos(*V)),
        ("lr", "tensor", scalar(0.5)), ("rho", "tensor", scalar(0.9)), ("grad", "tensor", f32(*V)),
        ("indices", "tensor", np.array([2, 0, 1], np.int32))]),
    ("sparse_adagrad", "SparseApplyAdagrad", {"lr": 0.1}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("grad", "tensor", f32(*G)),
        ("indices", "tensor", IDX)]),
    ("sparse_adagradv2", "SparseApplyAdagradV2", {"lr": 0.1, "epsilon": 1e-3}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("grad", "tensor", f32(*G)),
        ("indices", "tensor", IDX)]),
    ("sparse_adagradv2_noslots", "SparseApplyAdagradV2", {"lr": 0.1, "epsilon": 1e-3, "update_slots": False}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("grad", "tensor", f32(*G)),
        ("indices", "tensor", IDX)]),
    ("sparse_ftrl", "SparseApplyFtrl", {"lr": 0.1, "l1": 0.05, "l2": 0.1, "lr_power": -0.5}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("linear", "param", f32(*V)),
        ("grad", "tensor", f32(*G)), ("indices", "tensor", IDX)]),
    ("sparse_ftrlv2", "SparseApplyFtrlV2", {"lr": 0.1, "l1": 0.05, "l2": 0.1, "l2_shrinkage": 0.2,
                                            "lr_power": -0.5}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("linear", "param", f32(*V)),
        ("grad", "tensor", f32(*G)), ("indices", "tensor", IDX)]),
    ("sparse_proximal_adagrad", "SparseApplyProximalAdagrad", {}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("lr", "tensor", scalar(0.1)),
        ("l1", "tensor", scalar(0.05)), ("l2", "tensor", scalar(0.1)), ("grad", "tensor", f32(*G)),
        ("indices", "tensor", IDX)]),
    ("sparse_rmsprop", "SparseApplyRMSProp", {"rho": 0.9, "momentum": 0.5, "epsilon": 1e-3}, [
        ("var", "param", f32(*V)), ("ms", "param", pos(*V)), ("mom", "param", f32(*V)),
        ("lr", "tensor", scalar(0.01)), ("grad", "tensor", f32(*V)),
        ("indices", "tensor", np.array([1, 2, 0], np.int32))]),
    ("fused_adam", "FusedSparseAdam", {}, [
        ("var", "param", f32(*V)), ("m", "param", f32(*V)), ("v", "param", pos(*V)),
        ("beta1_power", "tensor", scalar(0.81)), ("beta2_power", "tensor", scalar(0.98)),
        ("lr", "tensor", scalar(0.01)), ("beta1", "tensor", scalar(0.9)), ("beta2", "tensor", scalar(0.99)),
        ("epsilon", "tensor", scalar(1e-3)), ("gradient", "tensor", f32(3, 4)),
        ("indices", "tensor", np.array([2, 0, 2], np.int32))]),
    ("fused_lazy_adam", "FusedSparseLazyAdam", {}, [
        ("var", "param", f32(*V)), ("m", "param", f32(*V)), ("v", "param", pos(*V)),
        ("beta1_power", "tensor", scalar(0.81)), ("beta2_power", "tensor", scalar(0.98)),
        ("lr", "tensor", scalar(0.01)), ("beta1", "tensor", scalar(0.9)), ("beta2", "tensor", scalar(0.99)),
        ("epsilon", "tensor", scalar(1e-3)), ("gradient", "tensor", f32(3, 4)),
        ("indices", "tensor", np.array([2, 0, 2], np.int32))]),
    ("fused_ftrl", "FusedSparseFtrl", {"lr": 0.1, "l1": 0.05, "l2": 0.1, "lr_power": -0.5}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("linear", "param", f32(*V)),
        ("grad", "tensor", f32(3, 4)), ("indices", "tensor", np.array([2, 0, 2], np.int32))]),
    ("fused_proximal_adagrad", "FusedSparseProximalAdagrad", {}, [
        ("var", "param", f32(*V)), ("accum", "param", pos(*V)), ("lr", "tensor", scalar(0.1)),
        ("l1", "tensor", scalar(0.05)), ("l2", "tensor", scalar(0.1)), ("grad", "tensor", f32(3, 4)),
        ("indices", "tensor", np.array([2, 0, 2], np.int32))]),
]


def as_input(name, kind, value):
    if kind == "param":
        return Parameter(Tensor(value.copy()), name=name)
    if kind == "tensor":
        return Tensor(value)
    return value


for case, op, kwargs, inputs in OPTIM:
    args = [as_input(*spec) for spec in inputs]
    try:
        out = getattr(ops, op)(**kwargs)(*args)
    except Exception as exc:  # noqa: BLE001  (no CPU kernel: recorded, not fatal)
        message = " ".join(str(exc).split())[:300]
        skipped.append(f"{case}: {type(exc).__name__}: {message}")
        continue
    outs = out if isinstance(out, tuple) else (out,)
    meta = {"op": op, "kwargs": kwargs, "inputs": [[n, k] for n, k, _ in inputs],
            "n_out": len(outs)}
    data[f"optim/{case}/meta"] = np.array(json.dumps(meta))
    for i, (name, kind, value) in enumerate(inputs):
        data[f"optim/{case}/in{i}"] = np.asarray(value)
        if kind == "param":
            data[f"optim/{case}/after{i}"] = args[i].asnumpy()
    for j, o in enumerate(outs):
        data[f"optim/{case}/out{j}"] = o.asnumpy()


# ---- activations and losses: values, and gradients of sum(out * cotangent) ----------------------


def record(key, fn, *arrays, grad=True, argnums=None):
    tensors = [Tensor(a) for a in arrays]
    out = fn(*tensors)
    outs = out if isinstance(out, tuple) else (out,)
    for j, o in enumerate(outs):
        data[f"nn/{key}/out{j}"] = o.asnumpy()
    for i, a in enumerate(arrays):
        data[f"nn/{key}/in{i}"] = a
    if grad:
        cot = f32(*outs[0].shape)
        data[f"nn/{key}/cot"] = cot
        nums = tuple(range(len(arrays))) if argnums is None else argnums
        grads = ms.grad(lambda *t: (fn(*t)[0] if isinstance(out, tuple) else fn(*t)) * Tensor(cot),
                        nums)(*tensors)
        grads = grads if isinstance(grads, tuple) else (grads,)
        for i, g in zip(nums, grads):
            data[f"nn/{key}/grad{i}"] = g.asnumpy()


x = f32(3, 4)
x[0, :2] = (0.3, -0.3 + 1e-3)  # near the shrink thresholds, not on them
record("fast_gelu", ops.fast_gelu, x)
record("hardshrink", lambda t: ops.hardshrink(t, 0.4), x)
record("softshrink", lambda t: ops.softshrink(t, 0.4), x)
record("soft_shrink", ops.soft_shrink, x)
record("threshold", lambda t: ops.threshold(t, 0.1, 20.0), x)
record("softmin", lambda t: ops.softmin(t, 0), x)
record("softmin_last", ops.softmin, x)
record("FastGeLU", ops.FastGeLU(), x)
record("FastGelu", ops.FastGelu(), x)
record("Gelu", ops.Gelu(), x)
record("HShrink", ops.HShrink(0.3), x, grad=False)
record("SoftShrink", ops.SoftShrink(0.3), x, grad=False)
record("CeLU", ops.CeLU(2.0), x)
record("GLU", ops.GLU(0), f32(4, 3))
record("PReLU", ops.PReLU(), f32(2, 3, 2), f32(3))
record("bidense", ops.bidense, f32(2, 3), f32(2, 4), f32(5, 3, 4), f32(5))
record("bidense_nobias", ops.bidense, f32(2, 2, 3), f32(2, 2, 4), f32(5, 3, 4))
ctc_in = f32(5, 3, 4)
ctc_in[1, 0] = ctc_in[0, 0]  # a repeated best class
lengths = np.array([5, 3, 0], np.int32)
for merge in (True, False):
    outs = ops.ctc_greedy_decoder(Tensor(ctc_in), Tensor(lengths), merge)
    for j, o in enumerate(outs):
        data[f"nn/ctc_greedy_{merge}/out{j}"] = o.asnumpy()
data["nn/ctc_greedy/inputs"], data["nn/ctc_greedy/lengths"] = ctc_in, lengths
record("CTCGreedyDecoder", lambda a, b: ops.CTCGreedyDecoder()(a, b), ctc_in, lengths, grad=False)

logits, labels = f32(3, 4), rng.uniform(0, 1, (3, 4)).astype(np.float32)
record("L2Loss", ops.L2Loss(), logits)
record("SigmoidCrossEntropyWithLogits", ops.SigmoidCrossEntropyWithLogits(), logits, labels)
for red in ("mean", "batchmean", "sum", "none"):
    record(f"KLDivLoss_{red}", ops.KLDivLoss(red), logits, labels, argnums=(0,))
probs = rng.uniform(0.05, 0.95, (3, 4)).astype(np.float32)
weight = rng.uniform(0.5, 2, (3, 4)).astype(np.float32)
for red in ("mean", "sum", "none"):
    record(f"BinaryCrossEntropy_{red}", ops.BinaryCrossEntropy(red), probs, labels, weight,
           argnums=(0,))
    record(f"BCEWithLogitsLoss_{red}", ops.BCEWithLogitsLoss(red), logits, labels,
           f32(4, low=0.5), f32(4, low=0.5), argnums=(0,))
    record(f"SmoothL1Loss_{red}", ops.SmoothL1Loss(0.5, red), logits, labels, argnums=(0,))
    targets = np.array([0, 3, 1], np.int32)
    class_weight = f32(4, low=0.5)
    record(f"NLLLoss_{red}", ops.NLLLoss(red), logits, targets, class_weight, argnums=(0,))
    record(f"NLLLoss_ignore_{red}", ops.NLLLoss(red, ignore_index=3), logits, targets,
           class_weight, argnums=(0,))
    record(f"MultiMarginLoss_{red}", ops.MultiMarginLoss(reduction=red), logits,
           targets.astype(np.int64), argnums=(0,))
    record(f"MultiMarginLoss_p2_{red}", ops.MultiMarginLoss(2, 0.5, red), logits,
           targets.astype(np.int64), class_weight, argnums=(0,))

ctc_x = f32(6, 2, 4)
ctc_idx = np.array([[0, 0], [0, 1], [0, 2], [1, 0]], np.int64)
ctc_val = np.array([1, 1, 2, 0], np.int32)
ctc_len = np.array([6, 4], np.int32)
CTC = {"default": {}, "collapse": {"preprocess_collapse_repeated": True},
       "nomerge": {"ctc_merge_repeated": False}}
for name, kw in CTC.items():
    record(f"CTCLoss_{name}", ops.CTCLoss(**kw), ctc_x, ctc_idx, ctc_val, ctc_len, argnums=(0,))

lstm_x, lstm_h, lstm_c = f32(4, 2, 3), f32(1, 2, 2), f32(1, 2, 2)
record("LSTM", ops.LSTM(3, 2, 1, False, False, 0.0), lstm_x, lstm_h, lstm_c, f32(40, 1, 1))
record("LSTM_bias", ops.LSTM(3, 2, 1, True, False, 0.0), lstm_x, lstm_h, lstm_c, f32(48, 1, 1))
record("LSTM_proj", ops.LSTM(3, 4, 1, False, False, 0.0, 2), lstm_x, lstm_h, f32(1, 2, 4),
       f32(88, 1, 1))

# ---- signatures ------------------------------------------------------------------------------------
FUNCTIONS = ("dropout3d fast_gelu hardshrink softshrink soft_shrink threshold softmin gumbel_softmax "
             "rrelu ctc_greedy_decoder mse_loss_ext rms_norm add_rms_norm add_layer_norm swiglu "
             "rotary_position_embedding bidense assign_add assign_sub").split()
signatures = {name: str(inspect.signature(getattr(ops, name))) for name in FUNCTIONS}
CLASSES = sorted({op for _, op, _, _ in OPTIM} | set(
    "Dropout2D Dropout3D PReLU GLU CeLU HShrink SoftShrink FastGeLU FastGelu Gelu RmsNorm "
    "CTCGreedyDecoder CTCLoss LSTM DropoutGenMask DropoutDoMask BasicLSTMCell DynamicRNN DynamicGRUV2 BCEWithLogitsLoss BinaryCrossEntropy KLDivLoss L2Loss MultiMarginLoss "
    "MultilabelMarginLoss NLLLoss SigmoidCrossEntropyWithLogits SmoothL1Loss SoftMarginLoss "
    "TripletMarginLoss ApplyKerasMomentum SparseApplyAdadelta SparseApplyFtrlV2 "
    "SparseApplyProximalAdagrad".split()))
for name in CLASSES:
    cls = getattr(ops, name)
    signatures[f"{name}.__init__"] = str(inspect.signature(cls.__init__))
    if "__call__" in vars(cls):
        signatures[f"{name}.__call__"] = str(inspect.signature(cls.__call__))
data["signatures"] = np.array(json.dumps(signatures))

# ---- save ----------------------------------------------------------------------------------------
print("\n".join(skipped))
np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_nnx.npz"),
                    **data)
