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

from .tensor import Tensor

# ---- versions -----------------------------------------------------------------------------------
# One clock for the process. An in-place write stamps the tensor with a new reading; a recorded node
# keeps the reading at which it ran. A saved tensor stamped later than its node was written after it
# was saved. Nodes pay one int, and backward checks only when the clock moved since the node ran.

clock = 0
_clock_lock = threading.Lock()


def bump_version(t):
    """Record an in-place write to Tensor `t`."""
    global clock
    with _clock_lock:
        clock += 1
        t._version = clock


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
