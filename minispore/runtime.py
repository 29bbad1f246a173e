"""MindSpore's runtime controls on a host that runs every op at once, in order: streams and
events (they keep their ordering semantics, which here hold already; events time with the host
clock), the deterministic and recursion settings, `run_check`, and the graph-compiler hints
`lazy_inline` / `no_inline` (recorded on the function)."""
import sys
import time

import numpy as np

from ._validator import check_bool, check_int, type_name
from ._version import __version__
from .common import _writes
from .common.tensor import Tensor
from ._affinity import set_cpu_affinity  # noqa: F401
from ._memory import (  # noqa: F401  (mindspore.runtime's memory functions)
    empty_cache, max_memory_reserved, memory_allocated, memory_reserved, memory_stats,
    memory_summary, reset_max_memory_reserved, reset_peak_memory_stats)

__all__ = ["swap_tensors", "Event", "Stream", "StreamCtx", "current_stream", "default_stream", "set_cur_stream",
           "synchronize", "communication_stream", "launch_blocking", "set_deterministic",
           "set_recursion_limit", "run_check", "lazy_inline", "no_inline"]

_settings = {"deterministic": False, "recursion_limit": 1000}


class Event:
    """A marker in a stream's work. Ops run at once here, so an event is complete as soon as it
    is recorded; with `enable_timing` it notes the host time of `record`, and `elapsed_time`
    gives milliseconds between two events."""

    def __init__(self, enable_timing=False, blocking=False):
        self.enable_timing = check_bool(enable_timing, "enable_timing", "Event")
        self.blocking = check_bool(blocking, "blocking", "Event")
        self._time = None

    def record(self, stream=None):
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"For 'Event.record', 'stream' must be a Stream, but got "
                            f"{type_name(stream)}")
        self._time = time.perf_counter()

    def query(self):
        return True

    def synchronize(self):
        return None

    def wait(self, stream=None):
        return None

    def elapsed_time(self, end_event):
        """Milliseconds from this event's record to `end_event`'s."""
        if not isinstance(end_event, Event):
            raise TypeError(f"For 'Event.elapsed_time', 'end_event' must be an Event, but got "
                            f"{type_name(end_event)}")
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("For 'Event.elapsed_time', both events need enable_timing=True")
        if self._time is None or end_event._time is None:
            raise RuntimeError("For 'Event.elapsed_time', both events must be recorded first")
        return (end_event._time - self._time) * 1000.0


class Stream:
    """A queue of device work. Here every op runs on the host when it is called, in program
    order, so all streams are the same one in effect; waits and synchronisation return at
    once."""

    _next_id = 0

    def __init__(self, priority=0, **kwargs):
        self.priority = check_int(priority, "priority", "Stream")
        self.id = self.stream_id = Stream._next_id
        Stream._next_id += 1
        self.device_name, self.device_id = "CPU", 0

    def query(self):
        return True

    def synchronize(self):
        return None

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def wait_event(self, event):
        return None

    def wait_stream(self, stream):
        return None

    def __repr__(self):
        return f"Stream(device=CPU, id={self.id})"


_default = Stream()
_current = [_default]


def current_stream():
    return _current[-1]


def default_stream():
    return _default


def communication_stream():
    return _default


def set_cur_stream(stream):
    if not isinstance(stream, Stream):
        raise TypeError(f"For 'set_cur_stream', 'stream' must be a Stream, but got "
                        f"{type_name(stream)}")
    _current[-1] = stream


def synchronize():
    """Wait for all queued work: none is ever queued here."""
    return None


def launch_blocking():
    """Ops run synchronously already (the behaviour this switch gives MindSpore)."""
    return None


class StreamCtx:
    """`with StreamCtx(stream):` makes `stream` the current stream inside the block."""

    def __init__(self, ctx_stream):
        if ctx_stream is not None and not isinstance(ctx_stream, Stream):
            raise TypeError(f"For 'StreamCtx', 'ctx_stream' must be a Stream or None, but got "
                            f"{type_name(ctx_stream)}")
        self.stream = ctx_stream

    def __enter__(self):
        _current.append(self.stream if self.stream is not None else _current[-1])
        return self.stream

    def __exit__(self, *exc):
        _current.pop()
        return False


def set_deterministic(deterministic):
    """Ask for bitwise-reproducible kernels. minispore's kernels are deterministic already
    (NumPy on the host, one reduction order); the setting is checked and recorded."""
    _settings["deterministic"] = check_bool(deterministic, "deterministic", "set_deterministic")


def set_recursion_limit(recursion_limit=1000):
    """The recursion limit of the graph compiler: recorded here, and Python's own limit is raised
    to it if it is lower (capturing a deep network recurses in Python)."""
    limit = check_int(recursion_limit, "recursion_limit", "set_recursion_limit")
    if limit <= 0:
        raise ValueError(f"For 'set_recursion_limit', 'recursion_limit' must be positive, but got "
                         f"{limit}")
    _settings["recursion_limit"] = limit
    if sys.getrecursionlimit() < limit:
        sys.setrecursionlimit(limit)


def run_check():
    """Check the installation: print the version, multiply two tensors and say whether the
    result is right."""
    print(f"minispore version: {__version__}")
    a = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    ok = np.array_equal((a * a).asnumpy(), np.array([[1.0, 4.0], [9.0, 16.0]], np.float32))
    if ok:
        print("The result of multiplication calculation is correct, minispore has been "
              "installed on platform [CPU] successfully!")
    else:
        print("The result of multiplication calculation is wrong: the installation is broken.")
    return ok


def lazy_inline(fn=None, attrs=None, policy=None):
    """Graph-compiler hint on a Cell's `__init__` (reuse one compiled subgraph for every
    instance); recorded on the function as `_lazy_inline`, and otherwise runs it as it is."""
    def mark(f):
        f._lazy_inline = {"attrs": attrs, "policy": policy}
        return f
    return mark if fn is None else mark(fn)


def no_inline(fn=None):
    """Graph-compiler hint (keep this function a separate subgraph); recorded on the function
    as `_no_inline`."""
    def mark(f):
        f._no_inline = True
        return f
    return mark if fn is None else mark(fn)


def swap_tensors(t1, t2):
    """Exchange the contents (values, shape and dtype) of two Tensors in place; both count as
    written (version bump), so a value saved for a gradient that changes is caught."""
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'swap_tensors', '{name}' must be a Tensor, but got "
                            f"{type_name(t)}")
    if t1 is t2:
        return
    for t in (t1, t2):
        _writes.record(t, in_place=False)
    t1._data, t2._data = t2._data, t1._data
    for t in (t1, t2):
        _writes.bump_version(t)
