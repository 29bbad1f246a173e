"""Samplers and sharding, with the index orders MindSpore 2.10 gives (shuffle=False cases)."""
import numpy as np
import pytest

from minispore import dataset as ds


def xs(n=10, **kw):
    d = ds.NumpySlicesDataset({"x": np.arange(n)}, **kw)
    return [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]


def test_sharding_wraps_to_equal_counts():
    assert [xs(num_shards=4, shard_id=k, shuffle=False) for k in range(4)] == \
        [[0, 4, 8], [1, 5, 9], [2, 6, 0], [3, 7, 1]]
    d = ds.NumpySlicesDataset({"x": np.arange(10)}, num_shards=4, shard_id=3)
    assert d.get_dataset_size() == 3


def test_distributed_sampler():
    assert [xs(sampler=ds.DistributedSampler(3, k, shuffle=False)) for k in range(3)] == \
        [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    assert [xs(sampler=ds.DistributedSampler(3, k, shuffle=False, offset=1))
            for k in range(3)] == [[2, 5, 8], [0, 3, 6, 9], [1, 4, 7]]
    assert xs(sampler=ds.DistributedSampler(3, 0, shuffle=False, num_samples=2)) == [0, 3]
    # shuffled shards are disjoint and cover everything, even without a seed set
    shards = [xs(sampler=ds.DistributedSampler(2, k)) for k in range(2)]
    assert sorted(shards[0] + shards[1]) == list(range(10))
    with pytest.raises(ValueError, match="shard_id"):
        ds.DistributedSampler(2, 2)


def test_sequential_random_subset_samplers():
    assert xs(sampler=ds.SequentialSampler(2, 3)) == [2, 3, 4]
    assert xs(sampler=ds.SequentialSampler()) == list(range(10))
    ds.config.set_seed(0)
    perm = xs(sampler=ds.RandomSampler())
    assert sorted(perm) == list(range(10)) and perm != list(range(10))
    assert len(xs(sampler=ds.RandomSampler(num_samples=3))) == 3
    draws = xs(sampler=ds.RandomSampler(replacement=True, num_samples=50))
    assert len(draws) == 50 and set(draws) <= set(range(10))
    sub = xs(sampler=ds.SubsetRandomSampler([1, 3, 5]))
    assert sorted(sub) == [1, 3, 5]
    assert xs(sampler=ds.SubsetSampler([5, 1, 3])) == [5, 1, 3]
    assert xs(sampler=ds.SubsetSampler([5, 1, 3], num_samples=2)) == [5, 1]
    assert xs(num_samples=3, shuffle=False) == [0, 1, 2]
    assert ds.NumpySlicesDataset([1, 2, 3, 4], num_samples=3).get_dataset_size() == 3


def test_user_sampler_and_bad_indices():
    class Reverse(ds.Sampler):
        def __iter__(self):
            return iter(range(self.dataset_size - 1, -1, -1))

    assert xs(5, sampler=Reverse()) == [4, 3, 2, 1, 0]
    with pytest.raises(IndexError, match="index 11"):
        xs(sampler=ds.SubsetSampler([11]))

    class Bad(ds.Sampler):
        def __iter__(self):
            return iter([0, 99])

    with pytest.raises(IndexError, match="gave index 99"):
        xs(sampler=Bad())
    with pytest.raises(TypeError, match="indices"):
        ds.SubsetSampler([1.5])
    with pytest.raises(TypeError, match="replacement"):
        ds.RandomSampler(replacement=1)


def test_sampler_conflicts():
    with pytest.raises(ValueError, match="cannot be combined"):
        ds.NumpySlicesDataset([1, 2], sampler=ds.SequentialSampler(), shuffle=True)
    with pytest.raises(ValueError, match="together"):
        ds.NumpySlicesDataset([1, 2], num_shards=2)
    with pytest.raises(ValueError, match="less than"):
        ds.NumpySlicesDataset([1, 2], num_shards=2, shard_id=2)
