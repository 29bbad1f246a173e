"""Writes the MindIR fixtures of tests/export with real MindSpore 2.10 (CPU):
    /work/msvenv/bin/python tests/export/data/make_mindspore_mindir.py
mindspore_lenet.mindir, mindspore_mlp.mindir (static batch 2) and mindspore_lenet_dyn.mindir
(batch dimension None), and mindspore_mindir_expected.npz: each network's input and MindSpore's
output for it."""
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops
from mindspore.common.initializer import Normal

HERE = os.path.dirname(os.path.abspath(__file__))


class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120, weight_init=Normal(0.02))
        self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
        self.fc3 = nn.Dense(84, 10, weight_init=Normal(0.02))
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


class MLP(nn.Cell):
    """Dense, LayerNorm, BatchNorm1d and a spread of elementwise, shape and reduction ops."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(8, 16)
        self.fc2 = nn.Dense(16, 4)
        self.ln = nn.LayerNorm((16,))
        self.bn = nn.BatchNorm1d(16)

    def construct(self, x):
        h = ops.tanh(self.fc1(x))
        h = self.ln(h) * ops.sigmoid(h) - ops.sqrt(ops.abs(h))
        h = self.bn(h)
        h = ops.reshape(h, (-1, 4, 4)).transpose(0, 2, 1).reshape(x.shape[0], 16)
        h = ops.gelu(h) / 2.0 + ops.exp(-h) + ops.rsqrt(h * h + 1.0)
        return ops.softmax(self.fc2(h), -1), ops.reduce_mean(h, 1), ops.concat([h, h], 1)[:, 3:9]


def main():
    ms.set_seed(7)
    rng = np.random.default_rng(7)
    out = {}
    lenet = LeNet5()
    lenet.set_train(False)
    x = rng.standard_normal((2, 1, 32, 32)).astype(np.float32)
    ms.export(lenet, Tensor(x), file_name=os.path.join(HERE, "mindspore_lenet"),
              file_format="MINDIR")
    ms.export(lenet, Tensor(shape=[None, 1, 32, 32], dtype=ms.float32),
              file_name=os.path.join(HERE, "mindspore_lenet_dyn"), file_format="MINDIR")
    x3 = rng.standard_normal((3, 1, 32, 32)).astype(np.float32)
    out.update(lenet_x=x, lenet_y=lenet(Tensor(x)).asnumpy(), lenet_x3=x3,
               lenet_y3=lenet(Tensor(x3)).asnumpy())
    mlp = MLP()
    mlp.set_train(False)
    xm = rng.standard_normal((2, 8)).astype(np.float32)
    ms.export(mlp, Tensor(xm), file_name=os.path.join(HERE, "mindspore_mlp"),
              file_format="MINDIR")
    ys = mlp(Tensor(xm))
    out.update(mlp_x=xm, **{f"mlp_y{k}": y.asnumpy() for k, y in enumerate(ys)})
    np.savez(os.path.join(HERE, "mindspore_mindir_expected.npz"), **out)


if __name__ == "__main__":
    main()
