"""Networks whose training-step FLOPs FlopsUtilizationCollector reports, written for MindSpore's
or minispore's module (`ms`). make_flops.py runs them on MindSpore 2.10 in graph mode (where
MindSpore counts FLOPs) into flops.json; tests/train/test_flops_collector.py on minispore."""
import numpy as np


def dense(ms):
    return ms.nn.Dense(10, 5), (8, 10)


def convs(ms, recompute=False):
    nn = ms.nn

    class Convs(nn.Cell):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 4, 3, pad_mode="valid", has_bias=False)
            self.c2 = nn.Conv2d(4, 2, 3, pad_mode="pad", padding=1, stride=2, has_bias=False)
            self.flat = nn.Flatten()
            self.d = nn.Dense(2 * 3 * 3, 5)
            if recompute:
                self.c2.recompute()

        def construct(self, x):
            return self.d(self.flat(self.c2(self.c1(x))))
    return Convs(), (8, 3, 8, 8)


def recomputed_convs(ms):
    return convs(ms, recompute=True)


def matmuls(ms):
    class MatMuls(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            rng = np.random.default_rng(0)
            self.w = ms.Parameter(ms.Tensor(rng.random((6, 7), np.float32)), name="w")
            self.w2 = ms.Parameter(ms.Tensor(rng.random((3, 7, 5), np.float32)), name="w2")
            self.mm, self.bmm = ms.ops.MatMul(), ms.ops.BatchMatMul()

        def construct(self, x):
            h = self.mm(x, self.w)
            h = ms.ops.tile(h.reshape(1, 4, 7), (3, 1, 1))
            return self.bmm(h, self.w2).sum(0)
    return MatMuls(), (8, 6)


CASES = [dense, convs, recomputed_convs, matmuls]


def train_once(ms, case, capture):
    """Train one epoch of two batches of 4 with a FlopsUtilizationCollector; returns what
    `capture()` (the printed text) holds after."""
    net, shape = case(ms)
    rng = np.random.default_rng(1)
    data = {"x": rng.random(shape, np.float32), "y": rng.integers(0, 5, shape[0]).astype(np.int32)}
    dataset = ms.dataset.NumpySlicesDataset(data=data, shuffle=False).batch(4)
    loss = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = ms.nn.Momentum(net.trainable_params(), 0.01, 0.9)
    collector = ms.train.FlopsUtilizationCollector(dataset.get_dataset_size(), computility=10e6)
    ms.train.Model(network=net, optimizer=opt, loss_fn=loss).train(1, dataset,
                                                                   callbacks=[collector])
    return capture()
