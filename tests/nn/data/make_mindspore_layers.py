"""Make mindspore_layers.npz: inputs, weights and outputs of MindSpore 2.10 layers, for
tests/nn/test_layers.py to compare minispore against. Run once in a separate venv with real
MindSpore (`pip install mindspore "numpy<2"`): python make_mindspore_layers.py"""
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

rng = np.random.default_rng(0)
data = {}
x = rng.standard_normal((2, 3, 7, 8)).astype(np.float32)
data["x"] = x

CONV = {"same_s2": dict(stride=2, pad_mode="same"), "same_d2": dict(dilation=2, pad_mode="same"),
        "pad": dict(pad_mode="pad", padding=(1, 2, 0, 1), stride=(2, 1)),
        "valid_g": dict(pad_mode="valid", group=3)}
for name, kw in CONV.items():
    conv = nn.Conv2d(3, 6, (3, 2), has_bias=True, **kw)
    w = rng.standard_normal(conv.weight.shape).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    conv.weight.set_data(Tensor(w))
    conv.bias.set_data(Tensor(b))
    data[f"conv_{name}_w"], data[f"conv_{name}_b"] = w, b
    data[f"conv_{name}_y"] = conv(Tensor(x)).asnumpy()

for name, kw in {"same": dict(pad_mode="same", stride=2),
                 "valid": dict(pad_mode="valid", stride=2)}.items():
    ct = nn.Conv2dTranspose(3, 4, 3, has_bias=True, **kw)
    w = rng.standard_normal(ct.weight.shape).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    ct.weight.set_data(Tensor(w))
    ct.bias.set_data(Tensor(b))
    data[f"convT_{name}_w"], data[f"convT_{name}_b"] = w, b
    data[f"convT_{name}_y"] = ct(Tensor(x)).asnumpy()

POOL = {"max_same": (nn.MaxPool2d, dict(kernel_size=3, stride=2, pad_mode="same")),
        "avg_same": (nn.AvgPool2d, dict(kernel_size=3, stride=2, pad_mode="same")),
        "avg_pad": (nn.AvgPool2d, dict(kernel_size=3, stride=2, pad_mode="pad", padding=1)),
        "avg_pad_nocount": (nn.AvgPool2d, dict(kernel_size=3, stride=2, pad_mode="pad",
                                               padding=1, count_include_pad=False)),
        "avg_ceil": (nn.AvgPool2d, dict(kernel_size=3, stride=2, ceil_mode=True)),
        "max_pad_ceil": (nn.MaxPool2d, dict(kernel_size=3, stride=2, pad_mode="pad", padding=1,
                                            ceil_mode=True))}
for name, (cls, kw) in POOL.items():
    data[f"pool_{name}_y"] = cls(**kw)(Tensor(x)).asnumpy()

bn = nn.BatchNorm2d(3)
bn.set_train()
gamma = rng.standard_normal(3).astype(np.float32)
beta = rng.standard_normal(3).astype(np.float32)
bn.gamma.set_data(Tensor(gamma))
bn.beta.set_data(Tensor(beta))
data["bn_gamma"], data["bn_beta"] = gamma, beta
data["bn_train_y"] = bn(Tensor(x)).asnumpy()
data["bn_moving_mean"] = bn.moving_mean.asnumpy()
data["bn_moving_variance"] = bn.moving_variance.asnumpy()
bn.set_train(False)
data["bn_eval_y"] = bn(Tensor(x)).asnumpy()

c1 = nn.Conv1d(3, 4, 3, has_bias=True, pad_mode="pad", padding=1, stride=2)
data["conv1d_w"] = rng.standard_normal(c1.weight.shape).astype(np.float32)
data["conv1d_b"] = rng.standard_normal(4).astype(np.float32)
c1.weight.set_data(Tensor(data["conv1d_w"]))
c1.bias.set_data(Tensor(data["conv1d_b"]))
data["conv1d_y"] = c1(Tensor(x[:, :, 0, :])).asnumpy()

ln = nn.LayerNorm((7, 8), begin_norm_axis=2, begin_params_axis=2)
data["ln_gamma"] = rng.standard_normal((7, 8)).astype(np.float32)
data["ln_beta"] = rng.standard_normal((7, 8)).astype(np.float32)
ln.gamma.set_data(Tensor(data["ln_gamma"]))
ln.beta.set_data(Tensor(data["ln_beta"]))
data["ln_y"] = ln(Tensor(x)).asnumpy()

gn = nn.GroupNorm(3, 3)
data["gn_y"] = gn(Tensor(x)).asnumpy()
data["adaptive_avg_y"] = nn.AdaptiveAvgPool2d((3, 5))(Tensor(x)).asnumpy()
data["adaptive_max_y"] = nn.AdaptiveMaxPool2d((3, 5))(Tensor(x)).asnumpy()
data["version"] = np.array(ms.__version__)

np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_layers.npz"),
         **data)
print(sorted(data))
