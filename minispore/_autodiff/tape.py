"""The tape: thread-local recording state, the paths that run a primitive and record it, and the
write clock behind tensor version counters.

A node is the tuple `(prim, ins, out, saved, epoch)`: the primitive, the slots of its inputs
(-1 for constants), its output slot (a tuple of slots for several outputs), what its bprop reads,
and the write clock when it ran. Tuples, not a class: a slotted Node costs ~200 ns to build, a
tuple ~50 ns, and a node is built for every recorded primitive call.
"""
import threading

import numpy as np

from ..common import dtype as mstype
from ..common.tensor import Tensor

_new = object.__new__
_ndarray = np.ndarray
_asarray = np.asarray


class _State(threading.local):
    tape = None  # the Tape this thread records on; None outside transforms and while paused


_state = _State()


class Tape:
    """The record of one outermost gradient transform, shared by transforms nested in it."""

    __slots__ = ("token", "nodes", "shapes", "dtypes", "params", "depth")

    def __init__(self):
        self.token = object()  # what recorded tensors carry: it keeps nothing else alive
        self.nodes = []
        self.shapes = []  # per slot: the shape and dtype of the value it names
        self.dtypes = []
        self.params = {}  # id(Parameter) -> slot, for the weights of the active transforms
        self.depth = 0  # transforms currently sharing this tape

    def new_slot(self, arr):
        self.shapes.append(arr.shape)
        self.dtypes.append(arr.dtype)
        return len(self.shapes) - 1


def recording():
    """The tape this thread records on, or None."""
    return _state.tape


class pause_recording:
    """Context manager: run without recording (what `stop_gradient` regions and first-order
    backward passes use). Re-entrant and thread-local."""

    __slots__ = ("_saved",)

    def __enter__(self):
        self._saved = _state.tape
        _state.tape = None
        return self

    def __exit__(self, *exc):
        _state.tape = self._saved
        return False


# ---- versions -----------------------------------------------------------------------------------
# One clock for the process. An in-place write stamps the tensor with a new reading; a node keeps
# the reading at which it ran. A saved tensor stamped later than its node was written after it was
# saved. Nodes pay one int, and backward checks only when the clock moved since the node ran.

_clock = 0
_clock_lock = threading.Lock()


def bump_version(t):
    """Record an in-place write to Tensor `t`."""
    global _clock
    with _clock_lock:
        _clock += 1
        t._version = _clock


def clock():
    return _clock


# ---- tensors from arrays ------------------------------------------------------------------------

def wrap(arr):
    """An untracked Tensor around array `arr` (no copy; NumPy scalars become 0-d arrays)."""
    t = _new(Tensor)
    t._data = arr if type(arr) is _ndarray else _asarray(arr)
    t._tape = None
    t._version = 0
    return t


def _wrap_out(out, tape, slot):
    t = _new(Tensor)
    t._data = out
    t._tape = tape.token
    t._slot = slot
    t._version = 0
    return t


# ---- Python scalars as operands -----------------------------------------------------------------
# NumPy's path for a Python float operand costs ~300 ns more than a 0-d array of the tensor's dtype,
# so scalars are converted once and cached per dtype. Zeros are not cached (-0.0 == 0.0 would share
# an entry), nor NaN (never equal to itself); the cache is cleared when it grows past a bound.

_scalar_cache = {}
_SCALAR_TYPES = (float, int, bool)


def scalar_array(value, dt):
    cache = _scalar_cache.get(dt)
    if cache is None:
        cache = _scalar_cache[dt] = {}
    arr = cache.get(value) if value else None
    if arr is None:
        try:
            arr = np.asarray(value, dt)
        except OverflowError:
            raise ValueError(f"the Python scalar {value} is out of range for {dt}") from None
        if value and value == value:
            if len(cache) > 512:
                cache.clear()
            cache[value] = arr
    return arr


def _scalar_operand(prim, a, value):
    """(tensor array cast to the result dtype, 0-d array) for tensor `a` with a Python scalar."""
    tv = type(value)
    if tv not in _SCALAR_TYPES:
        if isinstance(value, np.generic) and value.ndim == 0 and value.dtype.kind in "biuf":
            tv = _NP_SCALAR_PYTYPE[value.dtype.kind]  # NumPy scalars act like Python scalars
            value = value.item()
        elif isinstance(value, _SCALAR_TYPES):  # subclasses of int/float, e.g. IntEnum
            tv = bool if isinstance(value, bool) else int if isinstance(value, int) else float
        else:
            raise TypeError(f"For '{prim.name}', the operands must be Tensors or numbers, "
                            f"but got {type(value).__name__}")
    dt = mstype.promote_scalar(a.dtype, tv)
    if dt is not a.dtype:
        a = a.astype(dt)
    return a, scalar_array(value, dt)


_NP_SCALAR_PYTYPE = {"b": bool, "i": int, "u": int, "f": float}


# ---- the call paths ------------------------------------------------------------------------------
# Specialised one- and two-input paths without *args packing: the generic path costs several times
# more per call. Each checks for a recording tape once, and records only if an input is tracked.

def call1(prim, x):
    """Run one-input primitive `prim` on Tensor `x`."""
    out = prim.forward(x._data)
    if type(out) is not _ndarray:  # NumPy gives scalars for 0-d results; keep arrays
        out = _asarray(out)
    tape = _state.tape
    if tape is None or x._tape is not tape.token or not prim.differentiable:
        t = _new(Tensor)
        t._data = out
        t._tape = None
        t._version = 0
        return t
    slot = len(tape.shapes)
    tape.shapes.append(out.shape)
    tape.dtypes.append(out.dtype)
    t = _wrap_out(out, tape, slot)
    tape.nodes.append((prim, (x._slot,), slot, prim._save1(x, t), _clock))
    return t


def binary(prim, x, y):
    """Run two-input elementwise `prim` on Tensors or Python scalars, with MindSpore's promotion."""
    if isinstance(x, Tensor):
        a = x._data
        if isinstance(y, Tensor):
            b = y._data
            if a.dtype is not b.dtype and a.dtype != b.dtype:
                dt = mstype.promote(a.dtype, b.dtype)
                a = a.astype(dt, copy=False)
                b = b.astype(dt, copy=False)
        elif isinstance(y, np.ndarray):
            return binary(prim, x, Tensor(y))
        else:
            a, b = _scalar_operand(prim, a, y)
    elif isinstance(y, Tensor):
        if isinstance(x, np.ndarray):
            return binary(prim, Tensor(x), y)
        b, a = _scalar_operand(prim, y._data, x)
    else:
        raise TypeError(f"For '{prim.name}', at least one operand must be a Tensor, but got "
                        f"{type(x).__name__} and {type(y).__name__}")
    out = prim.forward(a, b)
    if type(out) is not _ndarray:
        out = _asarray(out)
    tape = _state.tape
    if tape is not None and prim.differentiable:
        tok = tape.token
        sx = x._slot if isinstance(x, Tensor) and x._tape is tok else -1
        sy = y._slot if isinstance(y, Tensor) and y._tape is tok else -1
        if sx >= 0 or sy >= 0:
            slot = len(tape.shapes)
            tape.shapes.append(out.shape)
            tape.dtypes.append(out.dtype)
            t = _wrap_out(out, tape, slot)
            tape.nodes.append((prim, (sx, sy), slot, prim._save2(x, y, t), _clock))
            return t
    t = _new(Tensor)
    t._data = out
    t._tape = None
    t._version = 0
    return t


def apply(prim, args):
    """Run `prim` on `args` (Tensors and constants, in the order of `prim.inputs`).

    Returns a Tensor, or a tuple of Tensors for primitives with several outputs. Outputs that are
    not floating point (indices, masks) are never tracked.
    """
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    out = prim.forward(*arrays)
    if type(out) is tuple:
        out = tuple([o if type(o) is _ndarray else _asarray(o) for o in out])
    elif type(out) is not _ndarray:
        out = _asarray(out)
    tape = _state.tape
    if tape is not None and prim.differentiable:
        tok = tape.token
        ins = tuple([a._slot if isinstance(a, Tensor) and a._tape is tok else -1 for a in args])
        if max(ins, default=-1) >= 0:
            return _record(tape, prim, args, ins, out)
    if type(out) is tuple:
        return tuple([wrap(o) for o in out])
    return wrap(out)


def _record(tape, prim, args, ins, out):
    if type(out) is tuple:
        outs, slots = [], []
        for o in out:
            if o.dtype.kind in "fc":
                s = tape.new_slot(o)
                outs.append(_wrap_out(o, tape, s))
            else:
                s = -1
                outs.append(wrap(o))
            slots.append(s)
        t = tuple(outs)
        tape.nodes.append((prim, ins, tuple(slots), prim.save(args, t), _clock))
        return t
    if out.dtype.kind not in "fc":
        return wrap(out)
    slot = tape.new_slot(out)
    t = _wrap_out(out, tape, slot)
    tape.nodes.append((prim, ins, slot, prim.save(args, t), _clock))
    return t


def record_node(tape, prim, ins, out_tensor, saved):
    """Append a node whose output Tensor was made by the caller (leaf wrappers, hooks)."""
    slot = tape.new_slot(out_tensor._data)
    out_tensor._tape = tape.token
    out_tensor._slot = slot
    tape.nodes.append((prim, ins, slot, saved, _clock))
    return slot
