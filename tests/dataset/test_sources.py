"""Sources: GeneratorDataset, NumpySlicesDataset, MNIST / Fashion-MNIST, CIFAR, ImageFolder.
Defaults, dtypes and orders checked against MindSpore 2.10 (the values noted were observed)."""
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor
from minispore import dataset as ds

from .files import write_cifar10, write_mnist


def rows(d, **kw):
    return list(d.create_tuple_iterator(output_numpy=True, **kw))


def col(d, k=0):
    return [r[k].tolist() for r in rows(d)]


# ---- GeneratorDataset -------------------------------------------------------------------------

def gen3():
    for i in range(3):
        yield i, float(i), np.array([i, i], np.int32)


def test_generator_function_types_and_order():
    d = ds.GeneratorDataset(gen3, column_names=["a", "b", "c"])
    assert d.get_col_names() == ["a", "b", "c"] and d.get_dataset_size() == 3
    (a, b, c) = next(iter(d))
    assert isinstance(a, Tensor) and a.dtype == ms.int64 and a.shape == ()
    assert b.dtype == ms.float64 and c.dtype == ms.int32 and c.shape == (2,)
    assert col(d) == [0, 1, 2]  # generator functions never shuffle
    assert d.output_types() == [np.int64, np.float64, np.int32]
    assert d.output_shapes() == [[], [], [2]]


def test_generator_rows_are_lists_and_dicts():
    d = ds.GeneratorDataset(gen3, ["a", "b", "c"])
    row = next(d.create_tuple_iterator())
    assert type(row) is list and len(row) == 3
    drow = next(d.create_dict_iterator(output_numpy=True))
    assert list(drow) == ["a", "b", "c"] and drow["c"].dtype == np.int32


def test_generator_single_value_and_list_items():
    d = ds.GeneratorDataset(lambda: (np.array([i, i]) for i in range(2)), "x")
    assert col(d) == [[0, 0], [1, 1]]
    # a list item is one value per column, as in MindSpore
    d = ds.GeneratorDataset(lambda: ([i, i + 1] for i in range(2)), ["a", "b"])
    assert [[r[0].item(), r[1].item()] for r in rows(d)] == [[0, 1], [1, 2]]
    with pytest.raises(ValueError, match="2 columns.*names 1"):
        rows(ds.GeneratorDataset(lambda: ([i, i + 1] for i in range(2)), ["a"]))


def test_generator_column_types_and_schema():
    src = [(1, 1.5), (2, 2.5)]
    d = ds.GeneratorDataset(src, ["a", "b"], column_types=[ms.int32, np.float16], shuffle=False)
    a, b = rows(d)[0]
    assert a.dtype == np.int32 and b.dtype == np.float16
    schema = ds.Schema()
    schema.add_column("a", ms.uint8)
    schema.add_column("b", ms.float32)
    d = ds.GeneratorDataset(src, schema=schema, shuffle=False)
    assert d.get_col_names() == ["a", "b"] and rows(d)[1][1].dtype == np.float32


class RandomAccess:
    def __init__(self, n=8):
        self.n = n

    def __getitem__(self, i):
        return (np.array(i),)

    def __len__(self):
        return self.n


def test_random_access_shuffles_by_default_and_not_with_shuffle_false():
    ds.config.set_seed(1)
    shuffled = col(ds.GeneratorDataset(RandomAccess(), ["x"]))
    assert sorted(shuffled) == list(range(8)) and shuffled != list(range(8))
    assert col(ds.GeneratorDataset(RandomAccess(), ["x"], shuffle=False)) == list(range(8))
    # lists are random-access too (MindSpore shuffles them)
    assert sorted(col(ds.GeneratorDataset(list(range(8)), ["x"]))) == list(range(8))


def test_random_access_sampler_list_num_samples_and_shards():
    src = RandomAccess(6)
    assert col(ds.GeneratorDataset(src, ["x"], sampler=[5, 0, 2])) == [5, 0, 2]
    assert col(ds.GeneratorDataset(src, ["x"], num_samples=3, shuffle=False)) == [0, 1, 2]
    assert col(ds.GeneratorDataset(src, ["x"], num_shards=2, shard_id=1, shuffle=False)) == \
        [1, 3, 5]


def test_iterables_and_one_shot_iterators():
    class Iterable:
        def __iter__(self):
            return iter([(np.array(1),), (np.array(2),)])

    d = ds.GeneratorDataset(Iterable(), ["x"])
    assert d.get_dataset_size() == 2 and col(d) == [1, 2] and col(d) == [1, 2]
    # a one-shot iterator is read once and kept (MindSpore's second epoch is empty)
    d = ds.GeneratorDataset(iter([(1,), (2,)]), ["x"])
    assert d.get_dataset_size() == 2 and col(d) == [1, 2] and col(d) == [1, 2]


def test_generator_shuffle_ignored_but_sampler_refused():
    assert col(ds.GeneratorDataset(lambda: iter(range(4)), ["x"], shuffle=True)) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="random-access"):
        ds.GeneratorDataset(lambda: iter(range(4)), ["x"], sampler=ds.SequentialSampler())
    with pytest.raises(ValueError, match="random-access"):
        ds.GeneratorDataset(lambda: iter(range(4)), ["x"], num_shards=2, shard_id=0)


def test_generator_bad_input():
    with pytest.raises(ValueError, match="column_names"):
        ds.GeneratorDataset(gen3)
    with pytest.raises(TypeError, match="source"):
        ds.GeneratorDataset(5, ["x"])
    with pytest.raises(TypeError, match="column 'x'.*NoneType"):
        rows(ds.GeneratorDataset(lambda: iter([(None,)]), ["x"]))
    with pytest.raises(TypeError, match="dict"):
        rows(ds.GeneratorDataset(lambda: iter([{"x": 1}]), ["x"]))
    with pytest.raises(ValueError, match="'sampler' cannot be combined"):
        ds.GeneratorDataset(RandomAccess(), ["x"], sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="together"):
        ds.GeneratorDataset(RandomAccess(), ["x"], num_shards=2)


def test_generator_user_error_propagates_with_a_note():
    class Bad(RandomAccess):
        def __getitem__(self, i):
            raise KeyError("boom")

    with pytest.raises(KeyError, match="boom") as info:
        rows(ds.GeneratorDataset(Bad(), ["x"], shuffle=False))
    assert "index 0" in "".join(getattr(info.value, "__notes__", ["index 0"]))


def test_strings_pass_through_as_numpy():
    d = ds.GeneratorDataset(lambda: iter([("ab", 1)]), ["s", "n"])
    s, n = next(iter(d))
    assert isinstance(s, np.ndarray) and s.item() == "ab" and isinstance(n, Tensor)


def test_rows_are_fresh_arrays():
    buf = np.zeros(2)

    def reuse():
        for i in range(2):
            buf[:] = i
            yield (buf,)

    out = rows(ds.GeneratorDataset(reuse, ["x"]))
    assert out[0][0].tolist() == [0, 0] and out[1][0].tolist() == [1, 1]
    data = np.arange(4)
    t = next(iter(ds.NumpySlicesDataset(data, shuffle=False)))[0]
    t[()] = 7
    assert data[0] == 0


# ---- NumpySlicesDataset -----------------------------------------------------------------------

def test_numpy_slices_defaults():
    d = ds.NumpySlicesDataset([1, 2, 3, 4, 5])
    assert d.get_col_names() == ["column_0"]
    ds.config.set_seed(3)
    order = col(d)
    assert sorted(order) == [1, 2, 3, 4, 5] and order != [1, 2, 3, 4, 5]  # shuffles by default
    assert col(ds.NumpySlicesDataset([1.5, 2.5], shuffle=False)) == [1.5, 2.5]
    assert rows(ds.NumpySlicesDataset([1.5, 2.5]))[0][0].dtype == np.float64


def test_numpy_slices_dict_tuple_array_list():
    d = ds.NumpySlicesDataset({"b": [1, 2, 3], "a": [4.0, 5, 6]}, shuffle=False)
    assert d.get_col_names() == ["b", "a"]
    r = list(d.create_dict_iterator(output_numpy=True))
    assert r[1]["b"].dtype == np.int64 and r[1]["a"].dtype == np.float64 and r[1]["a"] == 5
    d = ds.NumpySlicesDataset(([1, 2, 3], [[4, 5], [6, 7], [8, 9]]), shuffle=False)
    assert d.get_col_names() == ["column_0", "column_1"] and col(d, 1)[2] == [8, 9]
    d = ds.NumpySlicesDataset(np.arange(6).reshape(3, 2).astype(np.int32), shuffle=False)
    assert col(d) == [[0, 1], [2, 3], [4, 5]] and rows(d)[0][0].dtype == np.int32
    d = ds.NumpySlicesDataset([[1, 2], [3]], shuffle=False)  # ragged rows stay separate
    assert col(d) == [[1, 2], [3]]
    d = ds.NumpySlicesDataset(([1, 2], [3, 4]), column_names=["p", "q"])
    assert d.get_col_names() == ["p", "q"]


def test_numpy_slices_bad_input():
    with pytest.raises(ValueError, match="empty"):
        ds.NumpySlicesDataset([])
    with pytest.raises(TypeError, match="'data'"):
        ds.NumpySlicesDataset(3)
    with pytest.raises(TypeError, match="column 'column_0'"):
        ds.NumpySlicesDataset((1, 2, 3))
    with pytest.raises(ValueError, match="same length"):
        ds.NumpySlicesDataset(([1, 2], [3]))
    with pytest.raises(ValueError, match="0-d"):
        ds.NumpySlicesDataset(np.array(3))
    with pytest.raises(ValueError, match="names 1 columns"):
        ds.NumpySlicesDataset(([1, 2], [3, 4]), column_names=["a"])


# ---- MNIST / Fashion-MNIST --------------------------------------------------------------------

@pytest.fixture
def mnist_dir(tmp_path):
    return tmp_path, write_mnist(tmp_path, n_train=7, n_test=3)


def test_mnist_columns_dtypes_and_usage(mnist_dir):
    root, truth = mnist_dir
    d = ds.MnistDataset(str(root), usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "label"] and d.get_dataset_size() == 7
    image, label = rows(d)[2]
    assert image.shape == (28, 28, 1) and image.dtype == np.uint8
    assert label.shape == () and label.dtype == np.uint32
    np.testing.assert_array_equal(image[..., 0], truth["train"][0][2])
    assert [int(r[1]) for r in rows(d)] == truth["train"][1].tolist()
    assert ds.MnistDataset(root, usage="test").get_dataset_size() == 3
    # 'all' (and None) read the t10k files first, as MindSpore does
    expect = truth["test"][1].tolist() + truth["train"][1].tolist()
    for usage in (None, "all"):
        d = ds.MnistDataset(root, usage=usage, shuffle=False)
        assert [int(r[1]) for r in rows(d)] == expect
    assert d.output_shapes() == [[28, 28, 1], []] and d.output_types() == [np.uint8, np.uint32]
    fashion = ds.FashionMnistDataset(root, usage="train", shuffle=False)
    assert [int(r[1]) for r in rows(fashion)] == truth["train"][1].tolist()


def test_mnist_shuffles_by_default_and_is_seeded(mnist_dir):
    root, truth = mnist_dir
    ds.config.set_seed(0)
    a = [int(r[1]) for r in rows(ds.MnistDataset(root, usage="train"))]
    ds.config.set_seed(0)
    b = [int(r[1]) for r in rows(ds.MnistDataset(root, usage="train"))]
    assert a == b and sorted(a) == sorted(truth["train"][1].tolist())
    imgs = [r[0] for r in rows(ds.MnistDataset(root, usage="train"))]
    assert any(not np.array_equal(x[..., 0], truth["train"][0][k]) for k, x in enumerate(imgs))


def test_mnist_only_train_files_with_usage_all(tmp_path):
    write_mnist(tmp_path, n_train=4, n_test=None)
    assert ds.MnistDataset(tmp_path).get_dataset_size() == 4
    with pytest.raises(ValueError, match="t10k-images-idx3-ubyte.*does not exist"):
        ds.MnistDataset(tmp_path, usage="test")
    with pytest.raises(ValueError, match="usage"):
        ds.MnistDataset(tmp_path, usage="val")
    with pytest.raises(ValueError, match="does not exist"):
        ds.MnistDataset(tmp_path / "nope")


# ---- CIFAR ------------------------------------------------------------------------------------

def test_cifar10_columns_order_and_hwc(tmp_path):
    truth = write_cifar10(tmp_path)
    (tmp_path / "batches.meta.txt").write_text("airplane\n")
    d = ds.Cifar10Dataset(tmp_path, usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "label"] and d.get_dataset_size() == 7
    out = rows(d)
    assert out[0][0].shape == (32, 32, 3) and out[0][0].dtype == np.uint8
    assert out[0][1].dtype == np.uint32 and out[0][1].shape == ()
    np.testing.assert_array_equal(out[4][0], truth["data_batch_2.bin"][0][0].transpose(1, 2, 0))
    labels = [int(r[1]) for r in out]
    assert labels == truth["data_batch_1.bin"][1].tolist() + truth["data_batch_2.bin"][1].tolist()
    assert ds.Cifar10Dataset(tmp_path, usage="test").get_dataset_size() == 2
    all_labels = [int(r[1]) for r in rows(ds.Cifar10Dataset(tmp_path, shuffle=False))]
    assert all_labels == labels + truth["test_batch.bin"][1].tolist()  # train first


def test_cifar100(tmp_path):
    rng = np.random.default_rng(0)
    rec = np.concatenate([rng.integers(0, 20, (3, 1)), rng.integers(0, 100, (3, 1)),
                          rng.integers(0, 256, (3, 3072))], axis=1).astype(np.uint8)
    (tmp_path / "train.bin").write_bytes(rec.tobytes())
    d = ds.Cifar100Dataset(tmp_path, usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "coarse_label", "fine_label"]
    image, coarse, fine = rows(d)[1]
    assert image.shape == (32, 32, 3) and int(coarse) == rec[1, 0] and int(fine) == rec[1, 1]
    assert fine.dtype == np.uint32


# ---- ImageFolderDataset -----------------------------------------------------------------------

def make_folders(root):
    for label, cls in enumerate(["bird", "cat", "dog"]):
        os.makedirs(root / cls)
        for j in range(2):
            (root / cls / f"{j}.bin").write_bytes(bytes([label * 10 + j]) * (3 + j))
    (root / "cat" / "notes.txt").write_bytes(b"x")


def test_image_folder_raw_bytes(tmp_path):
    make_folders(tmp_path)
    d = ds.ImageFolderDataset(tmp_path, shuffle=False)
    assert d.get_col_names() == ["image", "label"] and d.get_dataset_size() == 7
    out = rows(d)
    assert [int(r[1]) for r in out] == [0, 0, 1, 1, 1, 2, 2]  # every file, sorted classes
    assert out[0][0].dtype == np.uint8 and out[0][0].tolist() == [0, 0, 0]
    assert out[0][1].dtype == np.int32
    assert ds.ImageFolderDataset(tmp_path).get_class_indexing() == {"bird": 0, "cat": 1, "dog": 2}
    d = ds.ImageFolderDataset(tmp_path, shuffle=False, extensions=[".txt"])
    assert [int(r[1]) for r in rows(d)] == [1]
    d = ds.ImageFolderDataset(tmp_path, shuffle=False, class_indexing={"dog": 0, "cat": 5})
    assert d.get_dataset_size() == 5 and [int(r[1]) for r in rows(d)] == [5, 5, 5, 0, 0]
    with pytest.raises(ValueError, match="'class_indexing' names folders"):
        ds.ImageFolderDataset(tmp_path, class_indexing={"fish": 0})


def test_image_folder_decode(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    for label, cls in enumerate(["a", "b"]):
        os.makedirs(tmp_path / cls)
        pil.fromarray(np.full((5, 7, 3), label * 50, np.uint8)).save(tmp_path / cls / "0.png")
    d = ds.ImageFolderDataset(tmp_path, decode=True, shuffle=False)
    (img0, l0), (img1, l1) = rows(d)
    assert img0.shape == (5, 7, 3) and img0.dtype == np.uint8 and img1[0, 0, 0] == 50
    assert (int(l0), int(l1)) == (0, 1)


def test_image_folder_decode_without_pillow(tmp_path, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_pil(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("no PIL")
        return real_import(name, *args, **kwargs)

    make_folders(tmp_path)
    monkeypatch.setattr(builtins, "__import__", no_pil)
    with pytest.raises(ImportError, match="Pillow"):
        ds.ImageFolderDataset(tmp_path, decode=True)
    from minispore.dataset import vision
    with pytest.raises(ImportError, match="Pillow"):
        vision.Decode()(np.frombuffer(b"\x89PNG", np.uint8))
