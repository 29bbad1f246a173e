"""Samplers: which row indices a random-access source reads in one epoch, and in what order."""
import functools

import numpy as np

from .._validator import check_bool, check_int, check_int_range, check_sequence

__all__ = [
    "BuiltinSampler",
    "DistributedSampler",
    "PKSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "SubsetSampler",
    "WeightedRandomSampler",
]

_INT32_MAX = 2**31 - 1


def _optional_count(value, arg, owner):
    """None, or a non-negative int (`num_samples`, `start_index`)."""
    return None if value is None else check_int_range(value, arg, owner, 0)


def _check_indices(owner, indices):
    if isinstance(indices, np.ndarray):
        if indices.ndim != 1 or indices.dtype.kind not in "iu":
            raise TypeError(f"For '{owner}', 'indices' must be a 1-D integer array, but got "
                            f"{indices.dtype} of shape {indices.shape}")
        return indices.astype(np.int64)
    indices = check_sequence(indices, "indices", owner, check_int,
                             expected="a list, tuple or 1-D array of ints")
    return np.asarray(indices, dtype=np.int64).reshape(-1)


def _check_shard(num_shards, shard_id, owner):
    num_shards = check_int_range(num_shards, "num_shards", owner, 1, _INT32_MAX)
    shard_id = check_int_range(shard_id, "shard_id", owner, 0, _INT32_MAX)
    if shard_id >= num_shards:
        raise ValueError(f"For '{owner}', the 'shard_id' must be less than 'num_shards' "
                         f"({num_shards}), but got {shard_id}")
    return num_shards, shard_id


def record_init(cls):
    """Make `cls.__init__` keep the arguments of the outermost constructor call in
    `self._init_args` (what `Dataset.to_json` writes and `deserialize` calls again)."""
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "_records", False):
        return

    @functools.wraps(init)
    def recording(self, *args, **kwargs):
        if "_init_args" not in self.__dict__:
            self.__dict__["_init_args"] = (args, kwargs)
        init(self, *args, **kwargs)

    recording._records = True
    cls.__init__ = recording


class Sampler:
    """Base of user-defined samplers: subclass and yield row indices from `__iter__`.

    `self.dataset_size` is set to the source's row count before each epoch, as MindSpore does.

    Example:
        >>> class ReverseSampler(Sampler):
        ...     def __iter__(self):
        ...         return iter(range(self.dataset_size - 1, -1, -1))
    """

    def __init__(self, num_samples=None):
        self.num_samples = _optional_count(num_samples, "num_samples", type(self).__name__)
        self.dataset_size = 0

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        record_init(cls)

    def __iter__(self):
        raise TypeError(f"'{type(self).__name__}' must define __iter__ to yield row indices")

    # ---- chaining: a parent samples positions in its child's index list ----
    def add_child(self, sampler):
        """Sample from what `sampler` selects: this sampler picks positions in the child's
        index list (a sampler has at most one child; a child may have its own)."""
        if not isinstance(sampler, Sampler):
            raise TypeError(f"For 'add_child', 'sampler' must be a Sampler, but got "
                            f"{type(sampler).__name__}")
        if self.__dict__.get("_child") is not None:
            raise RuntimeError(f"For 'add_child', this {type(self).__name__} already has a "
                               f"child sampler")
        node = sampler
        while node is not None:
            if node is self:
                raise ValueError("For 'add_child', a sampler cannot be its own descendant")
            node = node.get_child()
        self._child = sampler

    def get_child(self):
        """The child sampler, or None."""
        return self.__dict__.get("_child")

    def _sample(self, n, rng_for):
        """The index array for one epoch over n rows, through the child samplers."""
        child = self.get_child()
        if child is None:
            return np.asarray(self._indices(n, rng_for), dtype=np.int64).reshape(-1)
        base = child._sample(n, rng_for)
        pos = np.asarray(self._indices(len(base), rng_for), dtype=np.int64).reshape(-1)
        return base[pos]

    def _sample_count(self, n):
        """Rows per epoch over n rows through the child samplers (None: only a pass tells)."""
        child = self.get_child()
        if child is not None:
            n = child._sample_count(n)
            if n is None:
                return None
        return self._count(n)

    def is_shuffled(self):
        """Whether this sampler or a child shuffles."""
        child = self.get_child()
        return self._is_shuffled() or (child is not None and child.is_shuffled())

    def is_sharded(self):
        """Whether this sampler or a child reads one shard."""
        child = self.get_child()
        return self._is_sharded() or (child is not None and child.is_sharded())

    def get_indices(self):
        """The indices this sampler yields for the current `dataset_size` (user samplers)."""
        return [int(i) for i in iter(self)]

    def _indices(self, n, rng_for):
        """The index array for one epoch over n rows; rng_for(shared) gives the generator."""
        self.dataset_size = n
        idx = np.fromiter((int(i) for i in iter(self)), dtype=np.int64)
        return idx if self.num_samples is None else idx[:self.num_samples]

    def _count(self, n):
        """Number of indices per epoch over n rows, or None if only a pass can tell."""
        return

    def _is_shuffled(self):
        return False

    def _is_sharded(self):
        return False

    def get_num_samples(self):
        """The `num_samples` given (None = every row the sampler selects)."""
        return self.num_samples


class BuiltinSampler(Sampler):
    """Base of the built-in samplers."""

    def _limit(self, count):
        return count if self.num_samples is None or self.num_samples == 0 \
            else min(count, self.num_samples)


class SequentialSampler(BuiltinSampler):
    """Rows in order, from `start_index`, at most `num_samples` of them.

    Args:
        start_index (int, optional): first row (default 0).
        num_samples (int, optional): how many rows (default: all up to the end).
    """

    def __init__(self, start_index=None, num_samples=None):
        super().__init__(num_samples)
        self.start_index = _optional_count(start_index, "start_index", "SequentialSampler") or 0

    def _indices(self, n, rng_for):
        if n and self.start_index >= n:
            raise IndexError(f"For 'SequentialSampler', 'start_index' {self.start_index} is out "
                             f"of range for a dataset of {n} rows")
        return np.arange(self.start_index, self.start_index + self._count(n), dtype=np.int64)

    def _count(self, n):
        return self._limit(max(0, n - self.start_index))


class RandomSampler(BuiltinSampler):
    """A random permutation of the rows (or `num_samples` draws with replacement).

    Args:
        replacement (bool): draw with replacement (default False).
        num_samples (int, optional): how many rows per epoch (default: the row count).
    """

    def __init__(self, replacement=False, num_samples=None, shuffle=None):
        super().__init__(num_samples)
        self.replacement = check_bool(replacement, "replacement", "RandomSampler")

    def _indices(self, n, rng_for):
        rng = rng_for(False)
        if self.replacement:
            return rng.integers(0, n, size=self._count(n), dtype=np.int64) if n else \
                np.zeros(0, np.int64)
        return rng.permutation(n)[:self._count(n)].astype(np.int64)

    def _count(self, n):
        if self.replacement and self.num_samples:  # with replacement it may exceed n
            return self.num_samples if n else 0
        return self._limit(n)

    def _is_shuffled(self):
        return True


class DistributedSampler(BuiltinSampler):
    """The rows of one shard out of `num_shards` (data-parallel training).

    Without `offset`, shard k reads rows k, k + num_shards, ... of the (shuffled) order, ceil(n /
    num_shards) of them, wrapping around so every shard has the same count. With `offset`, row i
    goes to shard (i + offset) % num_shards and nothing wraps. The shuffle permutation is the
    same on every shard (it is drawn from the dataset seed and the epoch only), so shards stay
    disjoint across processes.

    Args:
        num_shards (int): number of shards. shard_id (int): this shard, in [0, num_shards).
        shuffle (bool): shuffle before sharding, anew each epoch (default True).
        num_samples (int, optional): at most this many rows per shard. offset (int): see above.
    """

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        super().__init__(num_samples)
        owner = "DistributedSampler"
        self.num_shards, self.shard_id = _check_shard(num_shards, shard_id, owner)
        self.shuffle = check_bool(shuffle, "shuffle", owner)
        self.offset = check_int_range(offset, "offset", owner, -1, _INT32_MAX)

    def _positions(self, n):
        if n == 0:
            return np.zeros(0, np.int64)
        if self.offset == -1:
            per = -(-n // self.num_shards)
            pos = (self.shard_id + self.num_shards * np.arange(per, dtype=np.int64)) % n
        else:
            i = np.arange(n, dtype=np.int64)
            pos = i[(i + self.offset) % self.num_shards == self.shard_id]
        return pos[:self._limit(len(pos))]

    def set_offset(self, offset):
        """Row i goes to shard (i + offset) % num_shards, nothing wraps (-1: the default
        layout); returns the sampler."""
        self.offset = check_int_range(offset, "offset", "set_offset", -1, _INT32_MAX)
        return self

    def _indices(self, n, rng_for):
        pos = self._positions(n)
        if not self.shuffle:
            return pos
        return rng_for(True).permutation(n).astype(np.int64)[pos]

    def _count(self, n):
        return len(self._positions(n))

    def _is_shuffled(self):
        return self.shuffle

    def _is_sharded(self):
        return self.num_shards > 1


class SubsetRandomSampler(BuiltinSampler):
    """The given row indices in a new random order each epoch.

    Args:
        indices (list[int]): rows to read. num_samples (int, optional): at most this many.
    """

    def __init__(self, indices, num_samples=None):
        super().__init__(num_samples)
        self.indices = _check_indices(type(self).__name__, indices)

    def _checked(self, n):
        bad = self.indices[(self.indices < 0) | (self.indices >= n)]
        if len(bad):
            raise IndexError(f"For '{type(self).__name__}', index {int(bad[0])} is out of range "
                             f"for a dataset of {n} rows")
        return self.indices

    def _indices(self, n, rng_for):
        return rng_for(False).permutation(self._checked(n))[:self._count(n)]

    def _count(self, n):
        return self._limit(len(self.indices))

    def _is_shuffled(self):
        return True


class SubsetSampler(SubsetRandomSampler):
    """The given row indices in the given order.

    Args:
        indices (list[int]): rows to read. num_samples (int, optional): at most this many.
    """

    def _indices(self, n, rng_for):
        return self._checked(n)[:self._count(n)]

    def _is_shuffled(self):
        return False


class PKSampler(BuiltinSampler):
    """`num_val` rows of each class (P classes x K rows), classes in label order (in a random
    order with `shuffle`); the rows of a class are drawn at random, without replacement when
    the class has enough rows and with replacement otherwise (MindSpore 2.10 may repeat rows
    even then).

    Args:
        num_val (int): rows per class. num_class: not supported (as in MindSpore).
        shuffle (bool): shuffle the order of the classes (default False).
        class_column (str): the column holding the integer labels (default 'label').
        num_samples (int, optional): at most this many rows.

    The labels are read once from the source (every row), then kept.
    """

    def __init__(self, num_val, num_class=None, shuffle=False, class_column="label",
                 num_samples=None):
        owner = "PKSampler"
        super().__init__(num_samples)
        if num_class is not None:
            raise NotImplementedError("For 'PKSampler', 'num_class' is not supported (as in "
                                      "MindSpore): every class is sampled")
        self.num_val = check_int_range(num_val, "num_val", owner, 1, _INT32_MAX)
        self.shuffle = check_bool(shuffle, "shuffle", owner)
        if not isinstance(class_column, str) or not class_column:
            raise TypeError(f"For '{owner}', 'class_column' must be a non-empty str, but got "
                            f"{class_column!r}")
        self.class_column = class_column
        self._labels = None

    def _set_labels(self, labels):
        self._labels = np.asarray(labels, dtype=np.int64).reshape(-1)

    def _indices(self, n, rng_for):
        if self._labels is None or len(self._labels) != n:
            raise RuntimeError("For 'PKSampler', the source did not provide its labels: use it "
                               "with a random-access dataset that has the class column "
                               f"'{self.class_column}'")
        rng = rng_for(False)
        classes = np.unique(self._labels)
        if self.shuffle:
            classes = rng.permutation(classes)
        out = []
        for c in classes:
            rows = np.flatnonzero(self._labels == c)
            out.append(rng.choice(rows, size=self.num_val,
                                  replace=len(rows) < self.num_val))
        idx = np.concatenate(out) if out else np.zeros(0, np.int64)
        return idx[:self._limit(len(idx))].astype(np.int64)

    def _count(self, n):
        if self._labels is None or len(self._labels) != n:
            return None
        return self._limit(len(np.unique(self._labels)) * self.num_val)

    def _is_shuffled(self):
        return True


class WeightedRandomSampler(BuiltinSampler):
    """Rows drawn with probability proportional to `weights` (weights[i] for row i).

    Args:
        weights (list[float]): one non-negative weight per row, from row 0; rows past the end
            of `weights` are never drawn. At least one weight must be positive.
        num_samples (int, optional): draws per epoch (default: the dataset's row count).
        replacement (bool): draw with replacement (default True). Without it, `num_samples`
            may not exceed the number of positive weights.

    Raises:
        TypeError: a weight is not a number. ValueError: a negative weight or all zero. At
        read time, IndexError: more weights than rows.
    """

    def __init__(self, weights, num_samples=None, replacement=True):
        owner = "WeightedRandomSampler"
        super().__init__(num_samples)
        if not isinstance(weights, (list, tuple)):
            raise TypeError(f"For '{owner}', 'weights' must be a list of numbers, but got "
                            f"{type(weights).__name__}")
        for k, w in enumerate(weights):
            if not isinstance(w, (int, float, np.integer, np.floating)) or \
                    isinstance(w, (bool, np.bool_)):
                raise TypeError(f"For '{owner}', 'weights[{k}]' must be a number, but got "
                                f"{type(w).__name__}")
        w = np.asarray(weights, dtype=np.float64)
        if not w.size or (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise ValueError(f"For '{owner}', 'weights' must be finite, non-negative and not all "
                             f"zero, but got {list(weights)}")
        self.weights = list(weights)
        self._p = w / w.sum()
        self.replacement = check_bool(replacement, "replacement", owner)
        if not self.replacement and self.num_samples and \
                self.num_samples > int((w > 0).sum()):
            raise ValueError(f"For '{owner}', without replacement 'num_samples' "
                             f"({self.num_samples}) must not exceed the number of positive "
                             f"weights ({int((w > 0).sum())})")

    def _count(self, n):
        return self.num_samples if self.num_samples else n

    def _indices(self, n, rng_for):
        if len(self._p) > n:
            raise IndexError(f"For 'WeightedRandomSampler', there are {len(self._p)} weights "
                             f"for a dataset of {n} rows: give at most one weight per row")
        count = self._count(n)
        if not self.replacement and count > int((self._p > 0).sum()):
            raise ValueError(f"For 'WeightedRandomSampler', without replacement it cannot draw "
                             f"{count} rows from {int((self._p > 0).sum())} positive weights")
        return rng_for(False).choice(len(self._p), size=count, replace=self.replacement,
                                     p=self._p).astype(np.int64)

    def _is_shuffled(self):
        return True


def select_sampler(owner, num_samples, shuffle, sampler, num_shards, shard_id,
                   default_shuffle=True):
    """The sampler a random-access source uses, from its constructor arguments (MindSpore's
    rules: `sampler` excludes `shuffle` and sharding; `num_shards` needs `shard_id`)."""
    num_samples = _optional_count(num_samples, "num_samples", owner)
    if shuffle is not None:
        check_bool(shuffle, "shuffle", owner)
    if (num_shards is None) != (shard_id is None):
        raise ValueError(f"For '{owner}', 'num_shards' and 'shard_id' must be given together, "
                         f"but got num_shards={num_shards}, shard_id={shard_id}")
    if sampler is not None:
        if shuffle is not None or num_shards is not None:
            raise ValueError(f"For '{owner}', 'sampler' cannot be combined with 'shuffle' or "
                             f"'num_shards'/'shard_id' (got shuffle={shuffle}, num_shards="
                             f"{num_shards}, shard_id={shard_id})")
        if isinstance(sampler, Sampler):
            return sampler
        if isinstance(sampler, (list, tuple, np.ndarray)):
            return SubsetSampler(sampler, num_samples)
        if hasattr(sampler, "__iter__"):
            return _IterSampler(sampler, num_samples)
        raise TypeError(f"For '{owner}', 'sampler' must be a Sampler, a list of indices or an "
                        f"iterable of indices, but got {type(sampler).__name__}")
    do_shuffle = default_shuffle if shuffle is None else shuffle
    if num_shards is not None:
        num_shards, shard_id = _check_shard(num_shards, shard_id, owner)
        return DistributedSampler(num_shards, shard_id, do_shuffle, num_samples)
    if do_shuffle:
        return RandomSampler(num_samples=num_samples)
    return SequentialSampler(num_samples=num_samples)


class _IterSampler(Sampler):
    """A plain iterable of indices (a torch-style sampler object) used as a sampler."""

    def __init__(self, iterable, num_samples=None):
        super().__init__(num_samples)
        self._iterable = iterable

    def __iter__(self):
        return iter(self._iterable)


record_init(Sampler)
