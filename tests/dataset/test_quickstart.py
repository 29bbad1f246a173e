"""MindSpore's quick-start data pipeline, unchanged, on small IDX files written here."""
import numpy as np

import minispore as mindspore
from minispore.dataset import MnistDataset, transforms, vision

from .files import write_mnist


def datapipe(dataset, batch_size):
    image_transforms = [
        vision.Rescale(1.0 / 255.0, 0),
        vision.Normalize(mean=(0.1307,), std=(0.3081,)),
        vision.HWC2CHW()
    ]
    label_transform = transforms.TypeCast(mindspore.int32)

    dataset = dataset.map(image_transforms, 'image')
    dataset = dataset.map(label_transform, 'label')
    dataset = dataset.batch(batch_size)
    return dataset


def test_quickstart_pipeline(tmp_path):
    (tmp_path / "train").mkdir()
    truth = write_mnist(tmp_path / "train", n_train=10, n_test=None, seed=3)
    train_dataset = datapipe(MnistDataset(str(tmp_path / "train")), 4)
    assert train_dataset.get_dataset_size() == 3
    assert train_dataset.get_col_names() == ["image", "label"]
    seen = []
    for image, label in train_dataset.create_tuple_iterator():
        assert image.dtype == mindspore.float32 and label.dtype == mindspore.int32
        seen.extend(label.asnumpy().tolist())
    assert image.shape == (2, 1, 28, 28)
    assert sorted(seen) == sorted(truth["train"][1].tolist())
    for data in train_dataset.create_dict_iterator():
        assert data["image"].shape[1:] == (1, 28, 28) and data["label"].dtype == mindspore.int32
    # the values are the Normalize of Rescale of the raw pixels
    ordered = datapipe(MnistDataset(str(tmp_path / "train"), shuffle=False), 10)
    image, label = next(ordered.create_tuple_iterator(output_numpy=True))
    raw = truth["train"][0].astype(np.float32)
    expect = (raw * np.float32(1 / 255) - np.float32(0.1307)) / np.float32(0.3081)
    np.testing.assert_allclose(image[:, 0], expect, rtol=1e-6, atol=1e-6)
    assert label.tolist() == truth["train"][1].tolist()
