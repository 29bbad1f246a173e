"""The loss-landscape case that make_mindspore_landscape.py runs on MindSpore 2.10 and
tests/train/test_summary_landscape.py runs on minispore: one definition, built for either
framework (`build(ms)` with `ms` the `mindspore` or `minispore` package)."""
import numpy as np

rng = np.random.default_rng(3)
X = rng.standard_normal((8, 3)).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
W0 = np.array([[0.1, 0.2, -0.1]], np.float32)
B0 = np.array([0.05], np.float32)
LANDSCAPE = {"landscape_size": 3, "unit": "step", "num_samples": 8,
             "create_landscape": {"train": True, "result": True}, "intervals": [[1, 2, 3, 4]]}


def build(ms):
    """(Net, dataset, callback_fn) of the case for framework `ms`."""
    nn, train = ms.nn, ms.train

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 1, weight_init=ms.Tensor(W0), bias_init=ms.Tensor(B0))

        def construct(self, x):
            return self.fc(x)

    def dataset():
        return ms.dataset.NumpySlicesDataset({"x": X, "y": Y}, shuffle=False).batch(4)

    def callback_fn():
        net = Net()
        metrics = {"Loss": train.Loss()}
        return train.Model(net, nn.MSELoss(), metrics=metrics), net, dataset(), metrics

    return Net, dataset, callback_fn
