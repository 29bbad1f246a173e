"""Pipeline ops: map, batch, shuffle, repeat, take, skip, split, zip, concat, project, rename,
filter; iterators and num_epochs; sizes and metadata. Orders and column layouts are the ones
MindSpore 2.10 gives for the same calls."""
import numpy as np
import pytest

from minispore import Tensor
from minispore import dataset as ds


def mk(n=5, **kw):
    return ds.NumpySlicesDataset({"x": np.arange(n), "y": np.arange(n) * 10.0}, shuffle=False,
                                 **kw)


def abc(n=5):
    return ds.NumpySlicesDataset({"a": np.arange(n), "b": np.arange(n) * 10,
                                  "c": np.arange(n) * 100}, shuffle=False)


def rows(d, **kw):
    return list(d.create_tuple_iterator(output_numpy=True, **kw))


def xs(d, k=0):
    return [r[k].tolist() for r in rows(d)]


# ---- iterators --------------------------------------------------------------------------------

def test_num_epochs_limits_the_iterator():
    d = mk()
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [int(r[0]) for r in it] == [0, 1, 2, 3, 4]
    assert [int(r[0]) for r in it] == [0, 1, 2, 3, 4]
    with pytest.raises(RuntimeError, match="all 2 epoch"):
        next(it)
    it = d.create_dict_iterator(num_epochs=1)
    assert len(list(it)) == 5
    with pytest.raises(RuntimeError, match="epoch"):
        next(it)
    it = d.create_tuple_iterator()  # -1: endless
    for _ in range(3):
        assert len(list(it)) == 5
    with pytest.raises(ValueError, match="num_epochs"):
        d.create_tuple_iterator(num_epochs=0)


def test_iterator_outputs():
    d = mk()
    row = next(d.create_tuple_iterator())
    assert type(row) is list and all(isinstance(t, Tensor) for t in row)
    row = next(d.create_tuple_iterator(columns=["y"], output_numpy=True))
    assert len(row) == 1 and row[0].dtype == np.float64
    row = next(d.create_dict_iterator(output_numpy=True, do_copy=True))
    assert set(row) == {"x", "y"}
    for x, y in d:  # direct iteration: one epoch of lists of Tensors
        assert isinstance(x, Tensor) and isinstance(y, Tensor)
    assert len(d) == 5
    with pytest.raises(ValueError, match="columns \\['z'\\] not found"):
        d.create_tuple_iterator(columns=["z"])


# ---- map --------------------------------------------------------------------------------------

def test_map_default_input_is_first_column():
    m = mk().map(lambda x: x * 2)
    assert m.get_col_names() == ["x", "y"] and xs(m) == [0, 2, 4, 6, 8]


def test_map_column_layouts_as_mindspore():
    m = abc().map(lambda b, c: (b, c), input_columns=["c", "b"], output_columns=["p", "q"])
    assert m.get_col_names() == ["a", "q", "p"]  # same count: in place
    assert [int(v) for v in rows(m)[1]] == [1, 10, 100]
    m = abc().map(lambda b, c: b, input_columns=["b", "c"], output_columns=["p"])
    assert m.get_col_names() == ["p", "a"]  # different count: outputs first
    m = abc().map(lambda c: (c, c + 1), input_columns=["c"], output_columns=["p", "q"])
    assert m.get_col_names() == ["p", "q", "a", "b"] and [int(v) for v in rows(m)[1]] == \
        [100, 101, 1, 10]
    m = mk().map(lambda x, y: x + y, input_columns=["x", "y"], output_columns=["s"])
    assert m.get_col_names() == ["s"] and xs(m) == [0.0, 11.0, 22.0, 33.0, 44.0]


def test_map_operation_lists_and_return_conversions():
    m = mk().map([lambda x: x * 2, lambda x: x + 1], input_columns="x")
    assert xs(m) == [1, 3, 5, 7, 9]
    assert rows(mk().map(lambda x: 3, "x"))[0][0].dtype == np.int64
    assert rows(mk().map(lambda x: 3.5, "x"))[0][0].dtype == np.float64
    assert xs(mk().map(lambda x: [1, 2], "x"))[0] == [1, 2]  # a list is one column
    m = mk().map([ds.transforms.Duplicate(), lambda a, b: a + b], "x")
    assert xs(m) == [0, 2, 4, 6, 8]


def test_map_errors():
    with pytest.raises(ValueError, match="returned 2 columns"):
        rows(mk().map(lambda x: (x, x), input_columns=["x"]))
    with pytest.raises(ValueError, match="input_columns \\['z'\\] not found"):
        mk().map(lambda x: x, input_columns=["z"])
    with pytest.raises(ValueError, match="duplicate"):
        abc().map(lambda b: b, input_columns=["b"], output_columns=["a"])
    with pytest.raises(TypeError, match="callable"):
        mk().map(3)
    with pytest.raises(TypeError, match="unexpected keyword"):
        mk().map(lambda x: x, column_order=["x"])
    with pytest.raises(ZeroDivisionError):
        rows(mk().map(lambda x: 1 // 0, "x"))


# ---- batch ------------------------------------------------------------------------------------

def test_batch_shapes_sizes_and_remainder():
    b = mk().batch(2)
    assert b.get_dataset_size() == 3 and b.get_batch_size() == 2
    assert b.output_shapes() == [[2], [2]] and b.output_types() == [np.int64, np.float64]
    assert xs(b) == [[0, 1], [2, 3], [4]]
    b = mk().batch(2, drop_remainder=True)
    assert b.get_dataset_size() == 2 and xs(b) == [[0, 1], [2, 3]]
    assert mk().get_batch_size() == 1


def test_batch_of_dicts_and_tuples():
    d = ds.NumpySlicesDataset({"a": np.arange(5), "b": np.ones((5, 2, 3), np.float32)},
                              shuffle=False).batch(2)
    out = list(d.create_dict_iterator(output_numpy=True))
    assert out[0]["a"].tolist() == [0, 1] and out[0]["b"].shape == (2, 2, 3)
    assert out[2]["b"].shape == (1, 2, 3) and out[2]["b"].dtype == np.float32


def test_batch_ragged_rows_raise():
    d = ds.GeneratorDataset(lambda: iter([(np.array([1, 2]),), (np.array([1, 2, 3]),)]), ["a"])
    with pytest.raises(ValueError, match="column 'a' cannot be batched.*\\(2,\\).*\\(3,\\)"):
        rows(d.batch(2))


def test_batch_callable_size_and_batch_info():
    seen = []

    def size(info):
        seen.append((info.get_batch_num(), info.get_epoch_num()))
        return info.get_batch_num() + 1

    b = mk(7).batch(size)
    assert b.get_batch_size() == -1
    assert xs(b) == [[0], [1, 2], [3, 4, 5], [6]]
    assert seen[-4:] == [(0, 0), (1, 0), (2, 0), (3, 0)]
    assert b.get_dataset_size() == 4


def test_per_batch_map():
    def double(x, y, info):
        assert isinstance(x, list) and isinstance(x[0], np.ndarray)
        return [e * 2 for e in x], [e + info.get_batch_num() for e in y]

    assert [r[1].tolist() for r in rows(mk().batch(2, per_batch_map=double))] == \
        [[0.0, 10.0], [21.0, 31.0], [42.0]]

    def two(x, info):
        return [e * 2 for e in x], [e + 100 for e in x]

    b = mk().batch(2, per_batch_map=two, input_columns=["x"], output_columns=["a", "b"])
    assert b.get_col_names() == ["a", "b", "y"]
    assert [v.tolist() for v in rows(b)[0]] == [[0, 2], [100, 101], [0.0, 10.0]]
    epochs = []

    def track(x, info):
        epochs.append(info.get_epoch_num())
        return (x,)

    it = mk(2).batch(2, per_batch_map=track, input_columns=["x"]).create_tuple_iterator(
        num_epochs=2)
    list(it), list(it)
    assert epochs == [0, 1]
    with pytest.raises(ValueError, match="need 'per_batch_map'"):
        mk().batch(2, input_columns=["x"])


def test_batch_bad_arguments():
    for bad in (0, -1):
        with pytest.raises(ValueError, match="batch_size"):
            mk().batch(bad)
    for bad in (2.0, True, "2"):
        with pytest.raises(TypeError, match="batch_size"):
            mk().batch(bad)


# ---- order and count ops ----------------------------------------------------------------------

def test_repeat_take_skip_sizes():
    r = mk(3).repeat(2)
    assert r.get_dataset_size() == 6 and xs(r) == [0, 1, 2, 0, 1, 2]
    assert r.get_repeat_count() == 2 and mk().get_repeat_count() == 1
    assert mk(3).repeat().get_repeat_count() == -1 and mk(3).repeat().get_dataset_size() == 3
    assert mk().batch(2).repeat(3).get_dataset_size() == 9
    assert mk().repeat(3).batch(2).get_dataset_size() == 8
    assert xs(mk().repeat(2).batch(3)) == [[0, 1, 2], [3, 4, 0], [1, 2, 3], [4]]
    assert xs(mk().take(2)) == [0, 1] and mk().take(20).get_dataset_size() == 5
    assert xs(mk().take(-1)) == [0, 1, 2, 3, 4]
    assert xs(mk().skip(2)) == [2, 3, 4] and mk().skip(20).get_dataset_size() == 0
    assert xs(mk(6).skip(2).take(2)) == [2, 3]
    for op, bad in ((lambda d: d.repeat(0), ValueError), (lambda d: d.repeat(-2), ValueError),
                    (lambda d: d.take(0), ValueError), (lambda d: d.skip(-1), ValueError),
                    (lambda d: d.take(1.5), TypeError)):
        with pytest.raises(bad):
            op(mk())


def test_repeat_reshuffles_each_repetition():
    ds.config.set_seed(4)
    out = xs(ds.NumpySlicesDataset(np.arange(20)).repeat(2))
    assert sorted(out[:20]) == list(range(20)) and out[:20] != out[20:]


def test_shuffle_buffer():
    ds.config.set_seed(3)
    d = mk(10).shuffle(4)
    first = xs(d)
    assert sorted(first) == list(range(10)) and first != list(range(10))
    assert xs(d) == first  # a new iterator replays the same order (same seed)
    it = d.create_tuple_iterator(output_numpy=True)
    assert [int(r[0]) for r in it] != [int(r[0]) for r in it]  # epochs differ
    with pytest.raises(ValueError, match="buffer_size"):
        mk().shuffle(1)


def test_zip_and_concat():
    z = ds.zip((mk(5), mk(3).rename(["x", "y"], ["a", "b"])))
    assert z.get_col_names() == ["x", "y", "a", "b"] and z.get_dataset_size() == 3
    assert len(rows(z)) == 3
    z = mk(5).zip(mk(3).rename(["x", "y"], ["a", "b"]))
    assert z.get_dataset_size() == 3
    with pytest.raises(ValueError, match="share column names"):
        mk().zip(mk())
    c = mk(3) + mk(2)
    assert c.get_dataset_size() == 5 and xs(c) == [0, 1, 2, 0, 1]
    c = mk(3).concat([mk(2), mk(1)])
    assert xs(c) == [0, 1, 2, 0, 1, 0]
    with pytest.raises(ValueError, match="columns"):
        mk(3).concat(mk(2).rename("x", "z"))


def test_project_rename_filter():
    assert mk().project(["y", "x"]).get_col_names() == ["y", "x"]
    assert [r[0].item() for r in rows(mk().project("y"))][:2] == [0.0, 10.0]
    assert mk().rename(["x"], ["z"]).get_col_names() == ["z", "y"]
    assert mk().rename("x", "z").get_col_names() == ["z", "y"]
    with pytest.raises(ValueError, match="not found"):
        mk().rename(["q"], ["z"])
    with pytest.raises(ValueError, match="duplicate"):
        mk().rename("x", "y")
    f = mk(6).filter(lambda x: x % 2 == 0, input_columns=["x"])
    assert f.get_dataset_size() == 3 and xs(f) == [0, 2, 4]
    assert xs(mk(6).filter(lambda x, y: y > 25)) == [3, 4, 5]
    assert mk(3).filter(lambda x, y: x > 0).batch(2).get_dataset_size() == 1
    with pytest.raises(TypeError, match="must return a bool"):
        rows(mk().filter(lambda x, y: np.array([1, 2])))


def test_output_shapes_come_from_the_first_row():
    d = ds.NumpySlicesDataset([1, 2, 3], ["a"], shuffle=False).map(lambda a: np.zeros((a, 2)))
    assert d.output_shapes() == [[1, 2]]
    assert ds.NumpySlicesDataset([1, 2]).filter(lambda c: False).output_shapes() == []


# ---- split ------------------------------------------------------------------------------------

def test_split_sizes_follow_mindspores_rounding():
    a, b = mk(10).split([0.8, 0.2], randomize=False)
    assert xs(a) == list(range(8)) and xs(b) == [8, 9]
    a, b = mk(10).split([3, 7], randomize=False)
    assert xs(a) == [0, 1, 2] and a.get_dataset_size() == 3
    a, b = mk(7).split([0.5, 0.5], randomize=False)
    assert xs(a) == [0, 1, 2] and xs(b) == [3, 4, 5, 6]
    parts = mk(10).split([0.33, 0.33, 0.34], randomize=False)
    assert [len(xs(p)) for p in parts] == [4, 3, 3]
    with pytest.raises(ValueError, match="sum to 6"):
        mk(10).split([3, 3])
    with pytest.raises(ValueError, match="sum to 1"):
        mk(10).split([0.5, 0.6])


def test_split_random_is_disjoint_and_stable():
    ds.config.set_seed(5)
    a, b = mk(10).split([0.8, 0.2])
    first_a, first_b = xs(a), xs(b)
    assert sorted(first_a + first_b) == list(range(10))
    assert xs(a) == first_a and xs(b) == first_b  # unshuffled source: fixed order
    # a shuffled source: each split keeps its rows and reshuffles them per epoch
    a, b = ds.NumpySlicesDataset(np.arange(30)).split([0.5, 0.5])
    it = a.create_tuple_iterator(output_numpy=True)
    e1, e2 = [int(r[0]) for r in it], [int(r[0]) for r in it]
    assert sorted(e1) == sorted(e2) and e1 != e2
    assert set(e1).isdisjoint(int(r[0]) for r in rows(b))


def test_split_after_map_and_on_generators():
    a, b = mk(10).map(lambda x: x + 100, "x").split([0.5, 0.5])
    assert sorted(xs(a) + xs(b)) == list(range(100, 110))
    a, b = ds.GeneratorDataset(lambda: iter(range(10)), ["x"]).split([0.5, 0.5])
    left, right = xs(a), xs(b)
    assert sorted(left + right) == list(range(10)) and left == sorted(left)
    with pytest.raises(ValueError, match="sharded"):
        mk(10, num_shards=2, shard_id=0).split([0.5, 0.5])
