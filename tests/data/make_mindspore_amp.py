"""Writes mindspore_amp.npz: outputs of one small network under MindSpore 2.10's
`auto_mixed_precision` levels and `custom_mixed_precision`, for tests/test_auto_mixed_precision.py.

Run with real MindSpore (CPU) from a scratch directory (its O1 rewrite writes files into the
current one): cd /tmp && /tmp/msvenv/bin/python /path/to/tests/data/make_mindspore_amp.py
"""
import os

import mindspore as ms
import numpy as np
from mindspore import amp, nn, ops

rng = np.random.default_rng(20261122)
W = {
    "fc1.weight": rng.standard_normal((8, 4)).astype(np.float32) * 0.7,
    "fc1.bias": rng.standard_normal(8).astype(np.float32) * 0.3,
    "bn.gamma": (1 + 0.2 * rng.standard_normal(8)).astype(np.float32),
    "bn.beta": (0.1 * rng.standard_normal(8)).astype(np.float32),
    "bn.moving_mean": (0.3 * rng.standard_normal(8)).astype(np.float32),
    "bn.moving_variance": (1 + 0.5 * rng.random(8)).astype(np.float32),
    "w": (0.4 * rng.standard_normal((8, 6))).astype(np.float32),
    "fc2.weight": rng.standard_normal((3, 6)).astype(np.float32) * 0.5,
    "fc2.bias": rng.standard_normal(3).astype(np.float32) * 0.2,
}
X = (rng.standard_normal((5, 4)) * 1.7).astype(np.float32)


class Net(nn.Cell):
    """Dense, BatchNorm1d, ReLU, a MatMul primitive attribute, a functional exp, Dense."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.relu = nn.ReLU()
        self.mm = ops.MatMul()
        self.w = ms.Parameter(ms.Tensor(np.zeros((8, 6), np.float32)), name="w")
        self.fc2 = nn.Dense(6, 3)

    def construct(self, x):
        h = self.relu(self.bn(self.fc1(x)))
        h = ops.exp(0.1 * self.mm(h, self.w))
        return self.fc2(h)


def make():
    net = Net()
    for p in net.get_parameters():
        p.set_data(ms.Tensor(W[p.name]))
    return net


def make_layers():
    """Only built-in layers (each casts its own weights): Dense, BatchNorm1d, ReLU, Dense."""
    net = nn.SequentialCell([nn.Dense(4, 8), nn.BatchNorm1d(8), nn.ReLU(),
                             nn.Dense(8, 6, has_bias=False)])
    source = {"0.weight": "fc1.weight", "0.bias": "fc1.bias", "1.moving_mean": "bn.moving_mean",
              "1.moving_variance": "bn.moving_variance", "1.gamma": "bn.gamma",
              "1.beta": "bn.beta"}
    for p in net.get_parameters():
        p.set_data(ms.Tensor(W[source[p.name]] if p.name in source else W["w"].T))
    return net


def main():
    out = {"x": X, **{"param:" + k: v for k, v in W.items()}}
    x = ms.Tensor(X)
    for level in ("O0", "O1", "O2", "O3"):
        y = amp.auto_mixed_precision(make(), level)(x)
        out[level] = y.asnumpy()
        out[level + ":dtype"] = np.array(str(y.dtype))
    for level in ("O1", "O2", "O3"):
        out["layers:" + level] = amp.auto_mixed_precision(make_layers(), level)(x).asnumpy()
    y = amp.custom_mixed_precision(make(), black_list=amp.get_black_list())(x)
    out["custom_black"] = y.asnumpy()
    y = amp.custom_mixed_precision(make(), white_list=[nn.Dense])(x)
    out["custom_white_dense"] = y.asnumpy()
    np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_amp.npz"),
             **out)


if __name__ == "__main__":
    main()
