"""The README's main job, end to end on small synthetic MNIST-format files: dataset pipeline,
Model.train with LossMonitor, eval, checkpoint save, load into a fresh network, predict."""
import json
import os
import sys

import numpy as np

from minispore.examples import quick_start


def write_synthetic_mnist(directory, n_train=96, n_test=32):
    """Ten classes that a LeNet separates at once: class k lights a bar at row 2 + 2k."""
    rng = np.random.default_rng(0)
    for (img_file, lbl_file), n in ((quick_start.TRAIN_FILES, n_train),
                                    (quick_start.TEST_FILES, n_test)):
        labels = rng.integers(0, 10, n).astype(np.uint8)
        images = rng.integers(0, 40, (n, 28, 28)).astype(np.uint8)
        for i, k in enumerate(labels):
            images[i, 2 + 2 * k:4 + 2 * k, 4:24] = 255
        quick_start.write_idx(os.path.join(directory, img_file), images)
        quick_start.write_idx(os.path.join(directory, lbl_file), labels)


def test_quick_start_learns_and_its_checkpoint_predicts(tmp_path, monkeypatch, capsys):
    write_synthetic_mnist(tmp_path, n_train=320, n_test=64)
    ckpt = tmp_path / "lenet.ckpt"
    monkeypatch.setattr(sys, "argv", ["quick_start", "--data-dir", str(tmp_path), "--epochs",
                                      "8", "--ckpt", str(ckpt)])
    quick_start.main()
    out = capsys.readouterr().out
    losses = [float(line.split("loss is ")[1]) for line in out.splitlines()
              if line.startswith("epoch: ")]
    assert len(losses) == 8 and losses[-1] < 0.5 * losses[0]
    assert float(out.split("held-out accuracy: ")[1].split("%")[0]) >= 70.0
    assert ckpt.exists()
    predicted = json.loads(out.split("predicted: ")[1].splitlines()[0])
    true = json.loads(out.split("true:      ")[1].splitlines()[0])
    assert len(predicted) == len(true) == 10
    assert sum(p == t for p, t in zip(predicted, true)) >= 6  # the loaded network predicts


def test_idx_files_round_trip_through_mnist_dataset(tmp_path):
    write_synthetic_mnist(tmp_path, n_train=5, n_test=3)
    from minispore.dataset import MnistDataset
    rows = list(MnistDataset(str(tmp_path), usage="test", shuffle=False)
                .create_tuple_iterator(output_numpy=True))
    assert len(rows) == 3
    image, label = rows[0]
    assert image.shape == (28, 28, 1) and image.dtype == np.uint8
    assert label.dtype == np.uint32
