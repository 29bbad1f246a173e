"""In-place writes: the write clock behind tensor version counters, and the undo log that rolls
back the writes of a gradient call that raises (docs/versions_and_undo.md).

A failed training step must leave every Parameter and buffer as it was, but a forward pass writes
before it can fail: BatchNorm updates its running statistics, user code assigns to buffers. While
a guarded call runs, each in-place write entry point records the tensor's old value first; if the
call raises, the records are replayed newest first.

Outside a guarded call, recording costs one thread-local attribute read. Optimizer updates are
not recorded: they validate every gradient before writing anything.
"""
import threading
import weakref

import numpy as np

from .tensor import Tensor

# ---- versions -----------------------------------------------------------------------------------
# One clock for the process. An in-place write stamps the tensor, and the memory it wrote, with a
# new reading; a recorded node keeps the reading at which it ran. A saved tensor stamped later than
# its node, or whose memory was, was written after it was saved: the version belongs to the memory
# (views of a Parameter share it) as well as to the Tensor object (whose array a write may replace).
# Nodes pay one int, and backward checks only when the clock moved since the node ran.

clock = 0
_clock_lock = threading.Lock()
# id(memory owner) -> [weakref to the owner, the clock reading of the last write into it]
_memory_versions = {}


def memory_owner(a):
    """The array that owns `a`'s memory: the end of its chain of NumPy views."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _forget(key, ref):
    entry = _memory_versions.get(key)
    if entry is not None and entry[0] is ref:
        del _memory_versions[key]


def bump_version(t):
    """Record an in-place write to Tensor `t` (into its current array)."""
    global clock
    owner = memory_owner(t._data)
    key = id(owner)
    with _clock_lock:
        clock += 1
        t._version = clock
        entry = _memory_versions.get(key)
        if entry is not None and entry[0]() is owner:
            entry[1] = clock
        else:
            _memory_versions[key] = [weakref.ref(owner, lambda r, k=key: _forget(k, r)), clock]


def version_of(t):
    """The clock reading of the last write to Tensor `t` or into its memory (0: never)."""
    owner = memory_owner(t._data)
    entry = _memory_versions.get(id(owner))
    if entry is not None and entry[0]() is owner and entry[1] > t._version:
        return entry[1]
    return t._version


# ---- the undo log -------------------------------------------------------------------------------


class _Log(threading.local):
    # While a guarded call runs: a list of (tensor, old array, copy of its values or None,
    # old version, old (tape token, slot) of a plain Tensor or None).
    entries = None


_log = _Log()


def record(t, in_place=True):
    """Call before writing to Tensor `t`. `in_place`: the write goes into t's current array (its
    values are copied); otherwise the write replaces the array, which is simply kept."""
    entries = _log.entries
    if entries is not None:
        a = t._data
        link = (t._tape, t._slot) if type(t) is Tensor and t._tape is not None else None
        entries.append((t, a, a.copy() if in_place else None, t._version, link))


class guarded:
    """Context manager: roll back the recorded writes if the block raises. Re-entrant: only the
    outermost guard keeps a log (an inner failure caught inside the block is the block's
    business)."""

    __slots__ = ("_outer",)

    def __enter__(self):
        self._outer = _log.entries is None
        if self._outer:
            _log.entries = []
        return self

    def __exit__(self, exc_type, exc, tb):
        if self._outer:
            entries, _log.entries = _log.entries, None
            if exc_type is not None:
                rollback(entries)
        return False


def savepoint():
    """A point to roll writes back to (graph-mode replays): starts the undo log when no guarded
    call keeps one. End it with `release`."""
    entries = _log.entries
    if entries is None:
        _log.entries = []
        return (True, 0)
    return (False, len(entries))


def release(point, undo):
    """End a `savepoint`: with `undo`, roll back the writes made since it."""
    owned, position = point
    entries = _log.entries
    if undo:
        rollback(entries[position:])
        del entries[position:]
    if owned:
        _log.entries = None


def rollback(entries):
    for t, arr, values, version, link in reversed(entries):
        if values is not None and arr.flags.writeable:
            arr[...] = values
        t._data = arr
        t._version = version
        if type(t) is Tensor:
            t._tape = link[0] if link is not None else None
            if link is not None:
                t._slot = link[1]
