"""Deterministic weights for tests compared with MindSpore: the same formula on both sides."""
import numpy as np


def fill(shape, k, scale=0.5):
    """A float32 array of `shape` from a fixed formula (k varies it per parameter)."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.7 + k * 1.3) * scale).reshape(shape).astype(np.float32)


def load(net, Tensor):
    """Every trainable parameter, in order, set from `fill` (so the order must agree too)."""
    for k, p in enumerate(net.trainable_params()):
        p.set_data(Tensor(fill(p.shape, k)))
    return net
