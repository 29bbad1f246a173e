"""Make mindspore_conv3d_fold.npz: inputs, weights, outputs and input/weight gradients of
MindSpore 2.10's ops.conv3d, nn.Conv3d, nn.Conv3dTranspose, ops.unfold and ops.fold, for
tests/ops/test_conv3d_fold_einsum.py and tests/nn/test_conv3d.py. Run with real MindSpore (CPU):

    /tmp/msvenv/bin/python tests/ops/data/make_mindspore_conv3d_fold.py
"""
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

rng = np.random.default_rng(0)
data = {}


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


x = f32(1, 2, 4, 5, 6)
w = f32(4, 2, 2, 3, 2)
data["x"], data["w"] = x, w
CONV3D = {
    "same_s2": dict(pad_mode="same", stride=2),
    "valid_sd": dict(pad_mode="valid", stride=(1, 2, 1), dilation=(1, 1, 2)),
    "pad1": dict(pad_mode="pad", padding=1),
    "pad3": dict(pad_mode="pad", padding=(1, 2, 0), stride=(2, 1, 3)),
}
for name, kw in CONV3D.items():
    out = ops.conv3d(Tensor(x), Tensor(w), **kw)
    g = f32(*out.shape)
    fn = lambda a, b, kw=kw, g=g: (ops.conv3d(a, b, **kw) * Tensor(g)).sum()  # noqa: E731
    dx, dw = ms.grad(fn, (0, 1))(Tensor(x), Tensor(w))
    data[f"conv3d_{name}_y"], data[f"conv3d_{name}_g"] = out.asnumpy(), g
    data[f"conv3d_{name}_dx"], data[f"conv3d_{name}_dw"] = dx.asnumpy(), dw.asnumpy()

wg = f32(4, 1, 2, 3, 2)
data["wg"] = wg
data["conv3d_groups_y"] = ops.conv3d(Tensor(x), Tensor(wg), groups=2).asnumpy()

for name, kw in {"pad6": dict(pad_mode="pad", padding=(1, 0, 2, 1, 0, 2)),
                 "same": dict(pad_mode="same", stride=(1, 2, 2))}.items():
    conv = nn.Conv3d(2, 4, 3, has_bias=True, **kw)
    cw, cb = f32(*conv.weight.shape), f32(4)
    conv.weight.set_data(Tensor(cw))
    conv.bias.set_data(Tensor(cb))
    data[f"nn_{name}_w"], data[f"nn_{name}_b"] = cw, cb
    data[f"nn_{name}_y"] = conv(Tensor(x)).asnumpy()

TRANSPOSE = {"same": dict(stride=2), "valid": dict(stride=2, pad_mode="valid"),
             "pad": dict(stride=2, pad_mode="pad", padding=(1, 0, 1, 1, 0, 1), output_padding=1)}
for name, kw in TRANSPOSE.items():
    ct = nn.Conv3dTranspose(2, 4, (2, 3, 2), has_bias=True, **kw)
    tw, tb = f32(*ct.weight.shape), f32(4)
    ct.weight.set_data(Tensor(tw))
    ct.bias.set_data(Tensor(tb))
    data[f"t_{name}_w"], data[f"t_{name}_b"] = tw, tb
    data[f"t_{name}_y"] = ct(Tensor(x)).asnumpy()

u = f32(2, 2, 5, 6)
data["u"] = u
UNFOLD = {"k2": dict(kernel_size=2), "mixed": dict(kernel_size=(2, 3), dilation=(2, 1),
                                                   padding=(1, 2), stride=(1, 2))}
for name, kw in UNFOLD.items():
    cols = ops.unfold(Tensor(u), **kw)
    g = f32(*cols.shape)
    du = ms.grad(lambda a, kw=kw, g=g: (ops.unfold(a, **kw) * Tensor(g)).sum())(Tensor(u))
    back = ops.fold(Tensor(g), Tensor(np.array([5, 6], np.int32)), **kw)
    data[f"unfold_{name}_y"], data[f"unfold_{name}_g"] = cols.asnumpy(), g
    data[f"unfold_{name}_du"], data[f"fold_{name}_y"] = du.asnumpy(), back.asnumpy()

np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 "mindspore_conv3d_fold.npz"), **data)
