"""Where the profiler listens: timing wrappers installed while a profiler records, removed after.

Off, nothing is installed and no call path checks anything. `install()` (counted: profilers may
overlap) wraps every primitive class's `forward` and `bprop`, rebuilds the Tensor arithmetic
operators (they hold their primitive's forward directly), wraps `Cell.__call__` (cells and
optimizer steps), each dataset stage's row generator and the dataset iterators' `__next__`;
`uninstall()` puts the originals back.

An event is `(name, category, start_ns, duration_ns, self_ns, thread id, bytes)`: `self_ns` is the
time not spent in events nested in it, `bytes` the size of a primitive's outputs. Categories:
'forward' (a primitive run in the forward pass), 'backward' (one run inside a bprop), 'bprop'
(the bprop rule itself), 'cell', 'optimizer', 'dataset', 'step', 'mark', 'range'.

Wrappers of another tool (anomaly mode) installed on top of these survive `uninstall` and are
left alone; these wrappers then pass calls straight through.
"""
import inspect
import threading
import time

import numpy as np

from .._autodiff.anomaly import _OPERATORS
from .._autodiff.tape import binary_operator
from ..common.tensor import Tensor
from ..dataset import _base as dataset_base
from ..dataset import iterators as dataset_iterators
from ..nn.cell import Cell
from ..nn.optim.optimizer import Optimizer
from ..ops.operations import math_ops
from ..ops.primitive import Primitive

_now = time.perf_counter_ns
_get_ident = threading.get_ident

_lock = threading.Lock()
_users = 0
_saved = {}  # (owner, attribute name) -> (original, wrapper)
_on = False  # events are being collected
events = []


class _Local(threading.local):
    stack = None  # per open event, the time spent in the events nested in it
    bprop = 0  # depth of bprop rules running in this thread


_local = _Local()


def set_collecting(flag):
    global _on
    _on = bool(flag)


def _output_bytes(out):
    if type(out) is tuple:
        return sum(o.nbytes for o in out if isinstance(o, np.ndarray))
    return out.nbytes if isinstance(out, np.ndarray) else 0


def _begin():
    stack = _local.stack
    if stack is None:
        stack = _local.stack = []
    stack.append(0)
    return stack


def _end(stack, name, category, t0, nbytes=0):
    t1 = _now()
    child = stack.pop()
    duration = t1 - t0
    if stack:
        stack[-1] += duration
    events.append((name, category, t0, duration, duration - child, _get_ident(), nbytes))


def _forward_wrapper(owner, attr):
    if isinstance(attr, staticmethod):
        fn, name = attr.__func__, owner.__name__

        def static_forward(*arrays):
            if not _on:
                return fn(*arrays)
            stack = _begin()
            t0 = _now()
            try:
                out = fn(*arrays)
            except BaseException:
                _end(stack, name, "backward" if _local.bprop else "forward", t0)
                raise
            _end(stack, name, "backward" if _local.bprop else "forward", t0, _output_bytes(out))
            return out
        return staticmethod(static_forward)

    def forward(self, *arrays):
        if not _on:
            return attr(self, *arrays)
        stack = _begin()
        t0 = _now()
        try:
            out = attr(self, *arrays)
        except BaseException:
            _end(stack, self.name, "backward" if _local.bprop else "forward", t0)
            raise
        _end(stack, self.name, "backward" if _local.bprop else "forward", t0, _output_bytes(out))
        return out
    return forward


def _bprop_wrapper(attr):
    def bprop(self, saved, dout, needs):
        if not _on:
            return attr(self, saved, dout, needs)
        stack = _begin()
        _local.bprop += 1
        t0 = _now()
        try:
            return attr(self, saved, dout, needs)
        finally:
            _local.bprop -= 1
            _end(stack, self.name, "bprop", t0)
    return bprop


def _cell_call_wrapper(attr):
    def __call__(self, *args, **kwargs):
        if not _on:
            return attr(self, *args, **kwargs)
        stack = _begin()
        t0 = _now()
        try:
            return attr(self, *args, **kwargs)
        finally:
            _end(stack, type(self).__name__,
                 "optimizer" if isinstance(self, Optimizer) else "cell", t0)
    return __call__


def _rows_wrapper(attr):
    def _rows(self, p):
        rows = attr(self, p)
        if not _on:
            return rows
        return _timed_rows(iter(rows), type(self).__name__)
    return _rows


def _timed_rows(rows, name):
    """Yield the rows of generator `rows`, timing each one's production while collecting."""
    try:
        while True:
            if not _on:
                yield from rows
                return
            stack = _begin()
            t0 = _now()
            try:
                row = next(rows)
            except StopIteration:
                stack.pop()
                return
            except BaseException:
                _end(stack, name, "dataset", t0)
                raise
            _end(stack, name, "dataset", t0)
            yield row
    finally:
        close = getattr(rows, "close", None)
        if close is not None:
            close()


def _next_wrapper(attr):
    def __next__(self):
        if not _on:
            return attr(self)
        stack = _begin()
        t0 = _now()
        try:
            return attr(self)
        finally:
            _end(stack, f"next({type(self).__name__})", "dataset", t0)
    return __next__


def _subclasses(root):
    seen, todo = [], [root]
    while todo:
        cls = todo.pop()
        if cls not in seen:
            seen.append(cls)
            todo.extend(cls.__subclasses__())
    return seen


def _set(owner, name, wrapper):
    original = owner.__dict__[name]
    _saved[(owner, name)] = (original, wrapper)
    setattr(owner, name, wrapper)


def _install():
    for cls in _subclasses(Primitive):
        if "forward" in cls.__dict__:
            _set(cls, "forward", _forward_wrapper(cls, inspect.getattr_static(cls, "forward")))
        if "bprop" in cls.__dict__:
            _set(cls, "bprop", _bprop_wrapper(cls.__dict__["bprop"]))
    for name, (prim, reflected) in _OPERATORS.items():
        if name in Tensor.__dict__:
            _set(Tensor, name, binary_operator(getattr(math_ops, prim), reflected))
    for cls in _subclasses(Cell):
        if "__call__" in cls.__dict__:
            _set(cls, "__call__", _cell_call_wrapper(cls.__dict__["__call__"]))
    for cls in _subclasses(dataset_base.Dataset):
        if "_rows" in cls.__dict__:
            _set(cls, "_rows", _rows_wrapper(cls.__dict__["_rows"]))
    for cls in _subclasses(dataset_iterators._Iterator):
        if "__next__" in cls.__dict__:
            _set(cls, "__next__", _next_wrapper(cls.__dict__["__next__"]))


def _uninstall():
    for (owner, name), (original, wrapper) in _saved.items():
        if owner.__dict__.get(name) is wrapper:
            setattr(owner, name, original)
    _saved.clear()


def install():
    """Start listening (counted: each call needs one `uninstall`)."""
    global _users
    with _lock:
        _users += 1
        if _users == 1:
            _install()


def uninstall():
    global _users
    with _lock:
        _users = max(_users - 1, 0)
        if _users == 0:
            _uninstall()


def installed():
    return bool(_saved)


def record_instant(name, category):
    """A zero-length event (a mark) now."""
    events.append((name, category, _now(), 0, 0, _get_ident(), 0))


def record_span(name, category, t0, t1):
    """An event from `t0` to `t1` (perf_counter_ns) that nests nothing."""
    events.append((name, category, t0, t1 - t0, t1 - t0, _get_ident(), 0))
