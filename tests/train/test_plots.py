"""History.plot and ConfusionMatrix.plot: PNGs that decode with Pillow at the documented size."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.nn.metrics import ConfusionMatrix

pytest.importorskip("matplotlib")
Image = pytest.importorskip("PIL.Image")


def _history(**history):
    h = ms.train.History()
    h.history = history
    return h


def _pixels(path):
    with Image.open(path) as im:
        assert im.format == "PNG"
        return im.size, np.asarray(im.convert("RGB"))


def test_history_plot_panels_and_size(tmp_path):
    h = _history(net_output=[1.0, 0.6, 0.4], eval_loss=[1.1, 0.8, 0.7], acc=[0.5, 0.7, 0.8])
    path = tmp_path / "sub" / "training.png"
    assert h.plot(str(path), title="run") == str(path)
    size, pixels = _pixels(path)
    assert size == (1000, 360)  # two panels (losses, acc) of 500 x 360
    assert (pixels.std(axis=(0, 1)) > 0).all()
    left, right = pixels[:, :500], pixels[:, 500:]
    blue = np.array([31, 119, 180])  # matplotlib's first line colour
    for half in (left, right):
        assert (np.abs(half.astype(int) - blue).sum(axis=-1) < 30).sum() > 50


def test_history_plot_after_model_fit(tmp_path):
    import minispore.dataset as ds
    rng = np.random.default_rng(0)
    x = rng.random((24, 4)).astype(np.float32)
    y = (x.sum(axis=1) > 2).astype(np.int32)
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(6)
    net = nn.Dense(4, 2)
    model = ms.train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                           nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics={"acc"})
    history = ms.train.History()
    model.fit(3, data, data, callbacks=[history])
    size, _ = _pixels(history.plot(str(tmp_path / "fit.png")))
    assert size == (1000, 360)


def test_history_plot_errors(tmp_path):
    with pytest.raises(ValueError, match="nothing is recorded"):
        ms.train.History().plot(str(tmp_path / "x.png"))
    with pytest.raises(TypeError, match="path"):
        _history(net_output=[1.0]).plot(3)


def test_confusion_matrix_heat_map(tmp_path):
    m = ConfusionMatrix(3)
    m.update(Tensor(np.array([0, 1, 2, 2, 1])), Tensor(np.array([0, 1, 2, 1, 1])))
    size, pixels = _pixels(m.plot(str(tmp_path / "cm.png"), class_names=["a", "b", "c"]))
    assert size == (400, 400)
    assert (pixels.min(axis=-1) < 100).any()  # the dark cells of the largest counts
    big = ConfusionMatrix(10, normalize="target")
    big.update(Tensor(np.arange(10)), Tensor(np.arange(10)))
    size, _ = _pixels(big.plot(str(tmp_path / "big.png")))
    assert size == (700, 700)


def test_confusion_matrix_plot_errors(tmp_path):
    m = ConfusionMatrix(2)
    with pytest.raises(RuntimeError, match="update"):
        m.plot(str(tmp_path / "cm.png"))
    m.update(Tensor(np.array([0, 1])), Tensor(np.array([0, 1])))
    with pytest.raises(ValueError, match="class_names"):
        m.plot(str(tmp_path / "cm.png"), class_names=["a"])
    with pytest.raises(TypeError, match="class_names"):
        m.plot(str(tmp_path / "cm.png"), class_names=[0, 1])


def test_missing_matplotlib_is_a_clear_import_error(tmp_path, monkeypatch):
    import sys
    for name in ("matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"minispore\[plot\]"):
        _history(net_output=[1.0]).plot(str(tmp_path / "h.png"))
    m = ConfusionMatrix(2)
    m.update(Tensor(np.array([0, 1])), Tensor(np.array([0, 1])))
    with pytest.raises(ImportError, match=r"minispore\[plot\]"):
        m.plot(str(tmp_path / "cm.png"))
