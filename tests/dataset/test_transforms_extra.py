"""The dataset.transforms added for the text pipeline (Concatenate, Mask, PadEnd, RandomOrder,
Relational, Slice, Unique, not_random) where the MindSpore fixture of test_text.py does not
reach: pipelines, randomness, argument checks."""
import numpy as np
import pytest

import minispore as ms
from minispore import dataset as ds
from minispore.dataset import transforms


def _rows(data):
    return [[a.tolist() for a in row]
            for row in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def test_random_order_applies_every_transform_in_a_seeded_order():
    add, double = (lambda x: x + 1), (lambda x: x * 2)
    order = transforms.RandomOrder([add, double])
    data = ds.NumpySlicesDataset(np.ones((40, 1), np.int64), ["x"], shuffle=False).map(order)
    ds.config.set_seed(3)
    first = _rows(data)
    assert {r[0][0] for r in first} == {3, 4}  # (1 + 1) * 2 or 1 * 2 + 1
    ds.config.set_seed(3)
    assert _rows(data) == first
    with pytest.raises(TypeError, match="transforms"):
        transforms.RandomOrder([])


def test_not_random_marks_the_function():
    @transforms.not_random
    def plus_one(x):
        return x + 1
    assert plus_one.random is False and plus_one(np.array(1)) == 2
    with pytest.raises(TypeError, match="function"):
        transforms.not_random(3)


def test_unique_in_a_pipeline_gives_three_columns():
    data = ds.NumpySlicesDataset({"x": np.array([[[4, 2], [4, 9]]])}, shuffle=False)
    data = data.map(transforms.Unique(), "x", ["values", "index", "count"])
    assert data.get_col_names() == ["values", "index", "count"]
    assert _rows(data) == [[[4, 2, 9], [0, 1, 0, 2], [2, 1, 1]]]


def test_padend_none_keeps_an_axis_and_checks():
    out = transforms.PadEnd([None, 3], 7)(np.ones((2, 1), np.int32))
    assert out.dtype == np.int32 and out.tolist() == [[1, 7, 7], [1, 7, 7]]
    assert transforms.PadEnd([3], "pad")(np.array([b"a"])).tolist() == ["a", "pad", "pad"]
    with pytest.raises(ValueError, match="pad_shape"):
        transforms.PadEnd([0])
    with pytest.raises(TypeError, match="pad_value"):
        transforms.PadEnd([2], [1])


def test_mask_concatenate_slice_argument_checks():
    with pytest.raises(TypeError, match="operator"):
        transforms.Mask("==", 1)
    with pytest.raises(TypeError, match="constant"):
        transforms.Mask(transforms.Relational.EQ, None)
    assert transforms.Mask(transforms.Relational.NE, "a")(np.array(["a", "b"])).tolist() == \
        [False, True]
    with pytest.raises(ValueError, match="1-D"):
        transforms.Concatenate(0, np.array([[1]]))
    with pytest.raises(RuntimeError, match="1-D"):
        transforms.Concatenate()(np.ones((2, 2)))
    with pytest.raises(TypeError, match="slices"):
        transforms.Slice("a")
    with pytest.raises(RuntimeError, match="index"):
        transforms.Slice(5)(np.arange(3))
    grid = np.arange(12).reshape(3, 4)
    assert transforms.Slice(slice(None, None, 2), -1)(grid).tolist() == [[3], [11]]
    assert transforms.Slice([2, 0])(grid).tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]


def test_relational_values_and_mask_dtype():
    assert [r.value for r in transforms.Relational] == [0, 1, 2, 3, 4, 5]
    out = transforms.Mask(transforms.Relational.GT, 1, ms.float32)(np.array([0, 1, 2]))
    assert out.dtype == np.float32 and out.tolist() == [0.0, 0.0, 1.0]
