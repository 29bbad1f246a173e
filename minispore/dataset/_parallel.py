"""Ordered parallel execution of pipeline work on threads, and the per-chunk random streams that
keep random transforms deterministic whatever the worker count."""
import collections
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import config

# Rows are handed to workers in fixed-size chunks. Each chunk gets its own generator seeded from
# the op's stream in chunk order, so a random transform draws the same numbers for the same row
# with 1 worker or 8: the result depends on the chunk layout, never on thread scheduling.
CHUNK = 8

_local = threading.local()


def current_rng():
    """The generator a random transform draws from: the chunk's inside a pipeline, else the
    eager stream of `config` (reset by `set_seed`)."""
    key = getattr(_local, "key", None)
    if key is None:
        return config._eager_rng()
    rng = _local.rng
    if rng is None:  # made on first use: chunks without random transforms pay nothing
        rng = _local.rng = np.random.default_rng(key)
    return rng


def run_with_rng(key, fn, *args):
    """fn(*args) with `current_rng()` bound, on this thread, to a generator seeded by `key` (a
    tuple of non-negative ints naming the pass, the op and the chunk)."""
    old = getattr(_local, "key", None), getattr(_local, "rng", None)
    _local.key, _local.rng = key, None
    try:
        return fn(*args)
    finally:
        _local.key, _local.rng = old


def ordered_map(fn, items, workers):
    """fn(item) for each item, in order; on `workers` threads when workers > 1.

    `items` is pulled on the calling thread only, so upstream generators never run concurrently;
    at most 2 * workers calls are in flight. An exception from fn is raised here, in order.
    """
    if workers <= 1:
        for item in items:
            yield fn(item)
        return
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="minispore-dataset")
    pending = collections.deque()
    try:
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for fut in pending:
            fut.cancel()
        pool.shutdown(wait=False, cancel_futures=True)


def chunks(iterable, size):
    """Lists of up to `size` consecutive items."""
    buf = []
    for item in iterable:
        buf.append(item)
        if len(buf) == size:
            yield buf
            buf = []
    if buf:
        yield buf
