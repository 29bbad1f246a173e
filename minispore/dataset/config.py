"""`mindspore.dataset.config`: the dataset seed, the default worker count and the prefetch size.

Every random draw of the dataset package (shuffles, samplers, random transforms, `split`) comes
from generators derived here, never from NumPy's global state. `minispore.set_seed(n)` also sets
the dataset seed, as MindSpore's `set_seed` does; `config.set_seed` leaves the global seed alone.
"""
import threading

import numpy as np

from .._validator import check_int_range
from ..common import seed as _global_seed

__all__ = ["get_num_parallel_workers", "get_prefetch_size", "get_seed", "set_num_parallel_workers",
           "set_prefetch_size", "set_seed"]

_UINT32_MAX = 2**32 - 1
_DEFAULT_SEED = 5489  # what MindSpore's get_seed() reports before set_seed (mt19937's default)

_lock = threading.Lock()
_seed = None
_eager = np.random.default_rng()  # eager random transforms and split(); reset by set_seed
_workers = 1  # see set_num_parallel_workers
_prefetch = 16


def set_seed(seed):
    """Seed the dataset pipeline: shuffles, samplers, random transforms and `split`.

    With a seed set, every new iterator over the same pipeline yields the same rows in the same
    order; epochs of one iterator differ from each other. Without one, each iterator draws fresh
    entropy, as MindSpore does.

    Raises:
        TypeError: `seed` is not an int. ValueError: it is outside [0, 2**32 - 1].
    """
    global _seed, _eager
    seed = check_int_range(seed, "seed", "set_seed", 0, _UINT32_MAX)
    with _lock:
        _seed = seed
        _eager = np.random.default_rng([seed, 0xDA7A])


def get_seed():
    """The dataset seed (5489, MindSpore's default value, when none was set)."""
    return _DEFAULT_SEED if _seed is None else _seed


def _pass_seed():
    """Base seed of a new pass over a pipeline: the set seed, else fresh entropy."""
    if _seed is not None:
        return _seed
    return int(np.random.SeedSequence().entropy % (2**63))


def _shared_seed():
    """Seed that processes must agree on without any set_seed (DistributedSampler's shuffle)."""
    return get_seed()


def _eager_rng():
    """Generator for random transforms called outside a pipeline and for `split`."""
    return _eager


def _set_eager(generator):
    global _eager
    _eager = generator


# get_rng_state / set_rng_state cover the eager stream too
_global_seed.register_stream("dataset/eager", _eager_rng, _set_eager)


def set_num_parallel_workers(num):
    """Default worker count of `map`, `batch`, `filter` and `ImageFolderDataset` decoding.

    Workers are threads: they pay off for transforms that release the GIL (large NumPy ops,
    FFTs, image decoding) and slow light per-row transforms down (measured in
    benchmarks/dataset_pipeline.py), so the default is 1 here, not MindSpore's min(8, CPUs)."""
    global _workers
    _workers = check_int_range(num, "num", "set_num_parallel_workers", 1, 2**31 - 1)


def get_num_parallel_workers():
    """The default worker count."""
    return _workers


def set_prefetch_size(size):
    """Accepted for compatibility: rows are produced on demand here, so nothing is prefetched."""
    global _prefetch
    _prefetch = check_int_range(size, "size", "set_prefetch_size", 1, 2**31 - 1)


def get_prefetch_size():
    """The value given to `set_prefetch_size` (16 by default)."""
    return _prefetch


# MindSpore's `mindspore.set_seed` seeds the dataset pipeline too (checked against 2.10).
_global_seed.on_seed(lambda s: set_seed(s % (_UINT32_MAX + 1)))
