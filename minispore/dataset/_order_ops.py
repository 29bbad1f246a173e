"""The pipeline ops that choose, reorder and join rows: `shuffle`, `repeat`, `take`, `skip`,
`zip`, `concat` (also through a sampler), `split` and `sync_wait`."""
import builtins
import math
import threading
import warnings

import numpy as np

from .._validator import check_bool, check_int, check_int_range, check_type
from . import config
from ._base import INT32_MAX, Dataset, builds
from .samplers import RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler, SubsetSampler

__all__ = ["ConcatDataset", "RepeatDataset", "ShuffleDataset", "SkipDataset", "SyncWaitDataset",
           "TakeDataset", "ZipDataset", "zip"]


# ---- order and count ops ----------------------------------------------------------------------

@builds("shuffle")
class ShuffleDataset(Dataset):
    """`dataset.shuffle(buffer_size)`: a reservoir of `buffer_size` rows; each output row is
    drawn at random from it and replaced by the next input row."""

    def __init__(self, child, buffer_size):
        super().__init__((child,))
        if any(isinstance(n, SyncWaitDataset) for n in child._nodes()):
            raise RuntimeError("For 'shuffle', there must be no shuffle after a sync_wait: "
                               "shuffle before it")
        self.buffer_size = check_int_range(buffer_size, "buffer_size", "shuffle", 2, INT32_MAX)

    def _columns(self):
        return self.children[0].get_col_names()

    def _size(self):
        return self.children[0].get_dataset_size()

    def _node_shuffles(self):
        return True

    def _rows(self, p):
        rng = p.rng(self)
        buf = []
        for row in self.children[0]._rows(p):
            if len(buf) < self.buffer_size:
                buf.append(row)
                continue
            k = int(rng.integers(len(buf)))
            buf[k], row = row, buf[k]
            yield row
        for k in rng.permutation(len(buf)):
            yield buf[k]


@builds("sync_wait")
class SyncWaitDataset(Dataset):
    """`dataset.sync_wait(condition_name, num_batch, callback)`: passes `num_batch` steps (rows,
    or batches when a `batch` reads this node) per `sync_update` call; the first `num_batch`
    pass freely each epoch."""

    def __init__(self, child, condition_name, num_batch=1, callback=None):
        super().__init__((child,))
        if not isinstance(condition_name, str):
            raise TypeError(f"For 'sync_wait', 'condition_name' must be a str, but got "
                            f"{type(condition_name).__name__}")
        if any(isinstance(n, SyncWaitDataset) and n.condition_name == condition_name
               for n in child._nodes()):
            raise RuntimeError(f"For 'sync_wait', the condition name '{condition_name}' is "
                               f"already used in this pipeline")
        self.condition_name = condition_name
        self.num_batch = check_int_range(num_batch, "num_batch", "sync_wait", 1, INT32_MAX)
        if callback is not None and not callable(callback):
            raise TypeError(f"For 'sync_wait', 'callback' must be callable, but got "
                            f"{type(callback).__name__}")
        self.callback = callback
        self.rows_per_step = 1
        self._lock = threading.Condition()
        self._allowed = self.num_batch
        self._step = self.num_batch

    def _columns(self):
        return self.children[0].get_col_names()

    def _size(self):
        return self.children[0].get_dataset_size()

    def update(self, num_batch=None, data=None):
        """Let `num_batch` (default: the `sync_wait` one) more steps through; call the callback
        with `data` first."""
        if num_batch is not None:
            num_batch = check_int_range(num_batch, "num_batch", "sync_update", 1, INT32_MAX)
        if self.callback is not None:
            self.callback(data)
        with self._lock:
            if num_batch is not None:
                self._step = num_batch
            self._allowed += self._step
            self._lock.notify_all()

    def _wait_turn(self, step):
        timeout = config.get_callback_timeout()
        with self._lock:
            if not self._lock.wait_for(lambda: step < self._allowed, timeout):
                raise RuntimeError(
                    f"For 'sync_wait', condition '{self.condition_name}' waited {timeout} s for "
                    f"a sync_update before step {step + 1} (config.set_callback_timeout): call "
                    f"dataset.sync_update('{self.condition_name}') after each step")

    def _rows(self, p):
        with self._lock:
            self._allowed, self._step = self.num_batch, self.num_batch
        for k, row in enumerate(self.children[0]._rows(p)):
            if k % self.rows_per_step == 0:
                self._wait_turn(k // self.rows_per_step)
            yield row


@builds("repeat")
class RepeatDataset(Dataset):
    """`dataset.repeat(count)`."""

    def __init__(self, child, count=None):
        super().__init__((child,))
        count = -1 if count is None else count
        count = check_int(count, "count", "repeat")
        if count == 0 or count < -1 or count > INT32_MAX:
            raise ValueError(f"For 'repeat', the 'count' must be -1 or in [1, {INT32_MAX}], but "
                             f"got {count}")
        self.count = count

    def _columns(self):
        return self.children[0].get_col_names()

    def get_repeat_count(self):
        return self.count

    def _size(self):
        n = self.children[0].get_dataset_size()
        # MindSpore reports one repetition's size for an endless repeat.
        return n if self.count == -1 else n * self.count

    def _rows(self, p):
        k = 0
        while self.count == -1 or k < self.count:
            yield from self.children[0]._rows(p.child(k))
            k += 1


@builds("take")
class TakeDataset(Dataset):
    """`dataset.take(count)`."""

    def __init__(self, child, count=-1):
        super().__init__((child,))
        count = check_int_range(count, "count", "take", -1, INT32_MAX)
        if count == 0:
            raise ValueError("For 'take', the 'count' must be -1 or positive, but got 0")
        self.count = count

    def _columns(self):
        return self.children[0].get_col_names()

    def _size(self):
        n = self.children[0].get_dataset_size()
        return n if self.count == -1 else min(n, self.count)

    def _rows(self, p):
        if self.count == -1:
            yield from self.children[0]._rows(p)
            return
        rows = self.children[0]._rows(p)
        for k, row in enumerate(rows):
            yield row
            if k + 1 == self.count:
                rows.close()
                return


@builds("skip")
class SkipDataset(Dataset):
    """`dataset.skip(count)`."""

    def __init__(self, child, count):
        super().__init__((child,))
        self.count = check_int_range(count, "count", "skip", 0, INT32_MAX)

    def _columns(self):
        return self.children[0].get_col_names()

    def _size(self):
        return max(0, self.children[0].get_dataset_size() - self.count)

    def _rows(self, p):
        for k, row in enumerate(self.children[0]._rows(p)):
            if k >= self.count:
                yield row


@builds("zip")
class ZipDataset(Dataset):
    """`zip((ds1, ds2, ...))`: columns side by side, as many rows as the shortest input."""

    def __init__(self, datasets):
        for k, d in enumerate(datasets):
            check_type(d, Dataset, f"datasets[{k}]", "zip")
        if len(datasets) < 1:
            raise ValueError("For 'zip', 'datasets' must not be empty")
        super().__init__(datasets)
        cols = [c for d in datasets for c in d.get_col_names()]
        dup = sorted({c for c in cols if cols.count(c) > 1})
        if dup:
            raise ValueError(f"For 'zip', the datasets share column names {dup}: rename them "
                             f"first")
        self._cols = cols

    def _columns(self):
        return self._cols

    def _size(self):
        return min(d.get_dataset_size() for d in self.children)

    def _rows(self, p):
        for parts in builtins.zip(*(d._rows(p.child(k)) for k, d in enumerate(self.children))):
            yield tuple(a for part in parts for a in part)


@builds("concat")
class ConcatDataset(Dataset):
    """`ds1 + ds2` / `ds1.concat([...])`: rows of each dataset in turn (same column names)."""

    def __init__(self, datasets):
        for k, d in enumerate(datasets):
            check_type(d, Dataset, f"datasets[{k}]", "concat")
        super().__init__(datasets)
        names = datasets[0].get_col_names()
        for d in datasets[1:]:
            if d.get_col_names() != names:
                raise ValueError(f"For 'concat', every dataset must have the columns {names}, "
                                 f"but one has {d.get_col_names()}")
        self._cols = names
        self.sampler = None

    def _columns(self):
        return self._cols

    def use_sampler(self, sampler):
        """Read the concatenated rows through `sampler` (typically a DistributedSampler, so
        that a dataset topped up with a `PaddedDataset` splits evenly into shards). Every input
        must be a random-access source read in order, behind only map/project/rename."""
        check_type(sampler, Sampler, "sampler", "use_sampler")
        for k, d in enumerate(self.children):
            leaf = d._mappable_leaf()
            if leaf is None or leaf.sampler.get_child() is not None or \
                    leaf.sampler._is_shuffled() or \
                    leaf.sampler._count(leaf._num_rows()) != leaf._num_rows() or \
                    getattr(leaf.sampler, "start_index", 0) or leaf.sampler._is_sharded():
                raise ValueError(f"For 'use_sampler', input {k} of the concat must be a "
                                 f"random-access source read whole and in order (shuffle=False, "
                                 f"no sampler), behind only map/project/rename")
        self.sampler = sampler
        self._cache = {}

    def _node_shuffles(self):
        return self.sampler is not None and self.sampler.is_shuffled()

    def _node_sharded(self):
        return self.sampler is not None and self.sampler.is_sharded()

    def _size(self):
        if self.sampler is not None:
            return self.sampler._sample_count(sum(d._mappable_leaf()._num_rows()
                                           for d in self.children))
        return sum(d.get_dataset_size() for d in self.children)

    def _rows(self, p):
        if self.sampler is None:
            for k, d in enumerate(self.children):
                yield from d._rows(p.child(k))
            return
        sizes = [d._mappable_leaf()._num_rows() for d in self.children]
        starts = np.cumsum([0] + sizes)
        idx = np.asarray(self.sampler._sample(int(starts[-1]),
                                               lambda shared: p.rng(self, shared)),
                         dtype=np.int64).reshape(-1)
        which = np.searchsorted(starts, idx, side="right") - 1
        run = 0
        for end in range(1, len(idx) + 1):
            if end < len(idx) and which[end] == which[run]:
                continue
            k = int(which[run])
            local = idx[run:end] - starts[k]
            part = self.children[k]._with_leaf_sampler(SubsetSampler(local))
            yield from part._rows(p.child(k))
            run = end


class _PositionSplitDataset(Dataset):
    """One split of a pipeline without a random-access source: the rows at chosen positions."""

    def __init__(self, child, mask):
        super().__init__((child,))
        self._mask = mask

    def _columns(self):
        return self.children[0].get_col_names()

    def _size(self):
        return int(self._mask.sum())

    def _rows(self, p):
        mask = self._mask
        for k, row in enumerate(self.children[0]._rows(p)):
            if k < len(mask) and mask[k]:
                yield row


def _split_sizes(sizes, n):
    if not isinstance(sizes, list) or not sizes:
        raise TypeError(f"For 'split', 'sizes' must be a non-empty list of ints or floats, but "
                        f"got {sizes!r}")
    if n <= 0:
        raise ValueError("For 'split', the dataset is empty")
    if all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in sizes):
        if any(s <= 0 for s in sizes):
            raise ValueError(f"For 'split', every size must be positive, but got {sizes}")
        if sum(sizes) != n:
            raise ValueError(f"For 'split', the sizes {sizes} sum to {sum(sizes)}, not to the "
                             f"dataset size {n}")
        return [int(s) for s in sizes]
    if not all(isinstance(s, (float, int)) and not isinstance(s, bool) for s in sizes):
        raise TypeError(f"For 'split', 'sizes' must be all ints or all floats, but got {sizes}")
    if any(not 0 < s <= 1 for s in sizes) or not math.isclose(sum(sizes), 1.0, abs_tol=1e-6):
        raise ValueError(f"For 'split', fractional sizes must be in (0, 1] and sum to 1, but "
                         f"got {sizes}")
    out = [round(s * n) for s in sizes]
    if any(s == 0 for s in out):
        raise ValueError(f"For 'split', a fraction in {sizes} gives an empty split of {n} rows")
    diff = n - sum(out)
    if diff > 0:
        out[0] += diff
    else:
        for i, s in enumerate(out):
            if s + diff > 0:
                out[i] += diff
                break
    return out


@builds("split")
def _split(ds, sizes, randomize):
    check_bool(randomize, "randomize", "split")
    if ds._is_sharded():
        raise ValueError("For 'split', the dataset must not be sharded before splitting: shard "
                         "each split with a DistributedSampler instead")
    n = ds.get_dataset_size()
    abs_sizes = _split_sizes(sizes, n)
    order = config._eager_rng().permutation(n) if randomize else np.arange(n)
    leaf = ds._mappable_leaf()
    plain = leaf is not None and type(leaf.sampler) in (SequentialSampler, RandomSampler) \
        and leaf.sampler.get_child() is None \
        and not getattr(leaf.sampler, "replacement", False) \
        and leaf.sampler._count(leaf._num_rows()) == leaf._num_rows() == n \
        and getattr(leaf.sampler, "start_index", 0) == 0
    if not plain and randomize and ds._is_shuffled():
        warnings.warn("split: the dataset is shuffled before the split, so without "
                      "dataset.config.set_seed the splits may overlap; prefer randomize=True "
                      "on an unshuffled dataset", stacklevel=3)
    out, start = [], 0
    for size in abs_sizes:
        chosen = np.sort(order[start:start + size]) if not plain else order[start:start + size]
        if plain:
            shuffled = leaf.sampler._is_shuffled()
            sampler = SubsetRandomSampler(chosen) if shuffled else SubsetSampler(chosen)
            out.append(ds._with_leaf_sampler(sampler))
        elif randomize:
            mask = np.zeros(n, dtype=bool)
            mask[chosen] = True
            out.append(_PositionSplitDataset(ds, mask))
        else:
            part = ds.skip(start) if start else ds
            out.append(part.take(size))
        start += size
    return tuple(out)


def zip(datasets):
    """Zip a tuple of datasets into one (column names must differ)."""
    return ZipDataset(check_type(datasets, tuple, "datasets", "zip", "a tuple of Datasets"))
