"""Hostile dataset files: garbage, truncation, wrong magic numbers, oversized dims, count
mismatches, directories where files belong, empty files. Each is refused with a ValueError that
names the file (and the sample, where one is at fault), before anything large is allocated."""
import os
import struct

import numpy as np
import pytest

from minispore import dataset as ds
from tests.dataset.files import write_cifar10, write_mnist

IMAGES, LABELS = "train-images-idx3-ubyte", "train-labels-idx1-ubyte"


@pytest.fixture
def mnist(tmp_path):
    write_mnist(tmp_path, n_train=6, n_test=None)
    return tmp_path


def _refused(root, pattern, usage="train"):
    with pytest.raises(ValueError, match=pattern) as info:
        d = ds.MnistDataset(str(root), usage=usage)
        list(d.create_tuple_iterator(output_numpy=True))
    return str(info.value)


def test_garbage_file(mnist):
    (mnist / IMAGES).write_bytes(os.urandom(5000))
    msg = _refused(mnist, "magic number|truncated|longer")
    assert IMAGES in msg


def test_truncated_images_and_labels(mnist):
    data = (mnist / IMAGES).read_bytes()
    (mnist / IMAGES).write_bytes(data[:-100])
    assert IMAGES in _refused(mnist, "truncated")
    (mnist / IMAGES).write_bytes(data)
    labels = (mnist / LABELS).read_bytes()
    (mnist / LABELS).write_bytes(labels[:-1])
    assert LABELS in _refused(mnist, "truncated")
    (mnist / LABELS).write_bytes(labels + b"\0")
    assert LABELS in _refused(mnist, "longer than its header")


def test_wrong_magic(mnist):
    data = bytearray((mnist / IMAGES).read_bytes())
    data[:4] = struct.pack(">I", 0x801)  # a labels magic on the images file
    (mnist / IMAGES).write_bytes(bytes(data))
    assert IMAGES in _refused(mnist, "magic number 0x00000801, expected 0x00000803")


def test_oversized_dims_are_refused_before_allocating(mnist):
    # 2**32-1 images of 65535 x 65535 pixels: refused by the size check, not by a MemoryError
    (mnist / IMAGES).write_bytes(struct.pack(">IIII", 0x803, 2**32 - 1, 65535, 65535) + b"\0" * 64)
    assert IMAGES in _refused(mnist, "truncated.*declares dims")
    (mnist / LABELS).write_bytes(struct.pack(">II", 0x801, 2**32 - 1))
    write_mnist(mnist, n_train=6, n_test=None)
    (mnist / LABELS).write_bytes(struct.pack(">II", 0x801, 2**32 - 1))
    assert LABELS in _refused(mnist, "truncated")


def test_zero_sized_images(mnist):
    (mnist / IMAGES).write_bytes(struct.pack(">IIII", 0x803, 3, 0, 28))
    assert IMAGES in _refused(mnist, "0x28 pixels")


def test_image_and_label_counts_differ(tmp_path):
    write_mnist(tmp_path, n_train=6, n_test=None)
    labels = np.zeros(5, np.uint8)
    (tmp_path / LABELS).write_bytes(struct.pack(">II", 0x801, 5) + labels.tobytes())
    msg = _refused(tmp_path, "holds 6 images but .* holds 5 labels")
    assert IMAGES in msg and LABELS in msg


def test_directory_where_a_file_is_expected(tmp_path):
    write_mnist(tmp_path, n_train=6, n_test=None)
    os.remove(tmp_path / IMAGES)
    os.mkdir(tmp_path / IMAGES)
    assert IMAGES in _refused(tmp_path, "is a directory")
    os.mkdir(tmp_path / "data_batch_1.bin")
    with pytest.raises(ValueError, match="data_batch_1.bin.*is a directory"):
        ds.Cifar10Dataset(tmp_path, usage="train")


def test_empty_files(tmp_path):
    write_mnist(tmp_path, n_train=6, n_test=None)
    (tmp_path / LABELS).write_bytes(b"")
    assert LABELS in _refused(tmp_path, "too short for an IDX header")
    (tmp_path / "test_batch.bin").write_bytes(b"")
    with pytest.raises(ValueError, match="test_batch.bin.*0 bytes.*empty"):
        ds.Cifar10Dataset(tmp_path, usage="test")


def test_cifar_truncated_and_bad_label(tmp_path):
    write_cifar10(tmp_path)
    path = tmp_path / "data_batch_2.bin"
    data = path.read_bytes()
    path.write_bytes(data[:-10])
    with pytest.raises(ValueError, match="data_batch_2.bin.*3073-byte record"):
        ds.Cifar10Dataset(tmp_path, usage="train")
    bad = bytearray(data)
    bad[3073] = 200  # label of sample 1
    path.write_bytes(bytes(bad))
    d = ds.Cifar10Dataset(tmp_path, usage="train", shuffle=False)
    with pytest.raises(ValueError, match="data_batch_2.bin.*sample 1 has label 200"):
        list(d.create_tuple_iterator(output_numpy=True))


def test_garbage_image_in_a_folder(tmp_path):
    pytest.importorskip("PIL")
    os.makedirs(tmp_path / "cat")
    (tmp_path / "cat" / "bad.png").write_bytes(b"garbage")
    d = ds.ImageFolderDataset(tmp_path, decode=True, shuffle=False)
    with pytest.raises(ValueError, match="bad.png.*sample 0.*not a decodable image"):
        list(d.create_tuple_iterator(output_numpy=True))


def test_file_changed_after_the_check(tmp_path):
    write_mnist(tmp_path, n_train=6, n_test=None)
    d = ds.MnistDataset(tmp_path, usage="train")
    data = (tmp_path / IMAGES).read_bytes()
    (tmp_path / IMAGES).write_bytes(data[:-50])
    with pytest.raises(ValueError, match="changed while being read"):
        list(d.create_tuple_iterator(output_numpy=True))


def test_nothing_is_unpickled(tmp_path):
    import pickle
    (tmp_path / "data_batch_1.bin").write_bytes(pickle.dumps({"data": [1, 2, 3]}))
    with pytest.raises(ValueError, match="3073-byte record"):
        ds.Cifar10Dataset(tmp_path, usage="train")


def test_dataset_dir_may_be_a_symlink(tmp_path):
    os.makedirs(tmp_path / "data" / "cat")
    (tmp_path / "data" / "cat" / "a.bin").write_bytes(b"abc")
    write_mnist(tmp_path / "data", n_train=6, n_test=None)
    os.symlink("data", tmp_path / "link")
    assert ds.MnistDataset(str(tmp_path / "link"), usage="train").get_dataset_size() == 6
    d = ds.ImageFolderDataset(str(tmp_path / "link"), extensions=[".bin"], shuffle=False)
    [(image, label)] = list(d.create_tuple_iterator(output_numpy=True))
    assert image.tobytes() == b"abc" and label == 0


def test_symlinked_class_folder_is_not_followed(tmp_path):
    os.makedirs(tmp_path / "cat")
    (tmp_path / "cat" / "a.bin").write_bytes(b"abc")
    os.symlink("cat", tmp_path / "dog")
    d = ds.ImageFolderDataset(str(tmp_path), shuffle=False)
    assert d.get_class_indexing() == {"cat": 0} and d.get_dataset_size() == 1
    with pytest.raises(ValueError, match=r"\['dog'\] are symbolic links, and symbolic links to "
                                         r"folders are not followed"):
        ds.ImageFolderDataset(str(tmp_path), class_indexing={"dog": 0})
