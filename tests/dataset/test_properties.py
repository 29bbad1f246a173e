"""Properties over drawn sizes: get_dataset_size agrees with what iteration yields, and shards
partition the rows."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from minispore import dataset as ds


@given(n=st.integers(1, 30), bs=st.integers(1, 7), drop=st.booleans(),
       rep=st.integers(1, 3), take=st.integers(-1, 40), skip=st.integers(0, 40))
def test_sizes_match_iteration(n, bs, drop, rep, take, skip):
    d = ds.NumpySlicesDataset(np.arange(n), ["x"], shuffle=False).repeat(rep).skip(skip)
    if take != 0:
        d = d.take(take)
    d = d.batch(bs, drop_remainder=drop)
    got = list(d.create_tuple_iterator(output_numpy=True))
    assert d.get_dataset_size() == len(got)
    flat = [int(v) for r in got for v in r[0]]
    full = list(np.tile(np.arange(n), rep))[skip:]
    full = full if take == -1 or take == 0 else full[:take]
    assert flat == full[:len(flat)] and len(full) - len(flat) < bs


@given(n=st.integers(1, 40), shards=st.integers(1, 6), offset=st.integers(-1, 5),
       shuffle=st.booleans())
def test_shards_partition_the_rows(n, shards, offset, shuffle):
    ds.config.set_seed(1)
    parts = []
    for k in range(shards):
        sampler = ds.DistributedSampler(shards, k, shuffle=shuffle, offset=offset)
        d = ds.NumpySlicesDataset(np.arange(n), ["x"], sampler=sampler)
        parts.append([int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)])
        assert d.get_dataset_size() == len(parts[-1])
    seen = [i for p in parts for i in p]
    assert set(seen) == set(range(n))
    if offset != -1:  # no wrap-around: an exact partition
        assert sorted(seen) == list(range(n))
    else:  # equal shares, padded by wrapping around
        assert {len(p) for p in parts} == {-(-n // shards)}
