"""Writers of small, real-format dataset files (IDX, CIFAR binary) for the dataset tests."""
import os
import struct

import numpy as np


def write_idx_images(path, images):
    images = np.asarray(images, np.uint8)
    with open(path, "wb") as f:
        f.write(struct.pack(">IIII", 0x803, *images.shape))
        f.write(images.tobytes())


def write_idx_labels(path, labels):
    labels = np.asarray(labels, np.uint8)
    with open(path, "wb") as f:
        f.write(struct.pack(">II", 0x801, len(labels)))
        f.write(labels.tobytes())


def write_mnist(root, n_train=12, n_test=5, seed=0, size=28):
    """MNIST files in root; returns {'train': (images, labels), 'test': (...)}."""
    rng = np.random.default_rng(seed)
    out = {}
    for prefix, usage, n in (("train", "train", n_train), ("t10k", "test", n_test)):
        if n is None:
            continue
        images = rng.integers(0, 256, (n, size, size), dtype=np.uint8)
        labels = rng.integers(0, 10, n, dtype=np.uint8)
        write_idx_images(os.path.join(root, f"{prefix}-images-idx3-ubyte"), images)
        write_idx_labels(os.path.join(root, f"{prefix}-labels-idx1-ubyte"), labels)
        out[usage] = (images, labels)
    return out


def write_cifar10(root, counts=(("data_batch_1.bin", 4), ("data_batch_2.bin", 3),
                                ("test_batch.bin", 2)), seed=0):
    """CIFAR-10 binary files; returns {name: (images CHW, labels)}."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, n in counts:
        labels = rng.integers(0, 10, n, dtype=np.uint8)
        images = rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8)
        rec = np.concatenate([labels[:, None], images.reshape(n, -1)], axis=1)
        with open(os.path.join(root, name), "wb") as f:
            f.write(rec.tobytes())
        out[name] = (images, labels)
    return out
