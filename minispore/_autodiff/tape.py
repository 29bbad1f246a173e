"""The tape: thread-local recording state, and the paths that run a primitive and record it.

A node is the tuple `(prim, ins, needs, out, saved, epoch, meta)` (docs/tape.md): the primitive;
the slots of its inputs (-1 for constants) and which of them need a gradient; its output slot (for
several outputs, a tuple of (slot, shape, dtype), slot -1 for outputs without gradient); what its
bprop reads; the write clock when it ran; and, only for
nodes whose bprop may return a broadcast shape or promoted dtype, the (shape, dtype) of each input
so the engine can sum and cast gradients back (None otherwise). Tuples, not a class: a slotted
Node costs ~200 ns to build, a tuple ~50 ns, and one is built for every recorded call.
"""
import threading

import numpy as np

from .._quiet import _IGNORE, _reset as _quiet_reset, _set as _quiet_set, quiet
from ..common import dtype as mstype
from ..common import _views, _writes
from ..common.parameter import Parameter
from ..common.tensor import Tensor

_new = object.__new__
_ndarray = np.ndarray
_asarray = np.asarray


class _State(threading.local):
    tape = None  # the Tape this thread records on; None outside transforms and while paused
    compute = None  # the NumPy dtype of the `to_float` cell whose construct runs, or None
    capture = None  # the graph-mode recorder (minispore/_jit) this thread reports to, or None
    jit_depth = 0  # how many jitted functions this thread is inside (captured, replayed or eager)
    # How many forwards of transforms whose backward walk may itself be recorded (vjp, jvp,
    # linearize, the Jacobians, hvp) this thread runs: a jitted function called there puts
    # eager's nodes on the tape instead of one compiled node (minispore/_jit/vjp.py).
    recorded_walk = 0


_state = _State()

# The `needs` masks of nodes, shared constants for the common arities (no tuple per node).
NEEDS1 = (True,)
NEEDS2 = {(True, True): (True, True), (True, False): (True, False), (False, True): (False, True)}
NEEDS_TF, NEEDS_FT, NEEDS_TT = NEEDS2[(True, False)], NEEDS2[(False, True)], NEEDS2[(True, True)]


def needs_of(ins):
    return NEEDS1 if len(ins) == 1 else tuple([s >= 0 for s in ins])

# How many `to_float` cells are running their construct, in any thread: while it is 0 the call
# paths skip the compute-dtype lookup (see `compute_in`).
_casting = 0

# How many transforms are running, in any thread. While it is 0 no op looks at the thread-local
# state at all (perf: that lookup is ~40 ns of a ~1 us op).
_active = 0
_active_lock = threading.Lock()

# How many graph-mode captures are running, in any thread (the recorder slot: minispore/_jit sets
# `_state.capture` and counts itself here; while it is 0 the call paths pay one global check).
_capturing = 0

# How many `saved_tensors_hooks` blocks are open, in any thread; while it is 0 a node's saved
# tuple is kept as built, else it goes through `_pack` (saved_hooks.py hands it over).
_packing = 0
_pack = None


def _capture(prim, operands, result, how):
    rec = _state.capture
    if rec is not None:
        rec.record(prim, operands, result, how)


class Tape:
    """The record of one outermost gradient transform, shared by transforms nested in it."""

    __slots__ = ("token", "nodes", "n_slots", "params", "depth", "hooks", "__weakref__")

    def __init__(self):
        self.token = object()  # what recorded tensors carry: it keeps nothing else alive
        self.nodes = []
        self.n_slots = 0
        self.params = {}  # id(Parameter) -> slot, for the weights of the active transforms
        self.depth = 0  # transforms currently sharing this tape
        # slot -> tuple of Tensor.register_hook tables to run on that slot's gradient (the tensors'
        # own tables, so handle.remove() shows here); empty unless hooks are registered
        self.hooks = {}

    def new_slot(self):
        s = self.n_slots
        self.n_slots = s + 1
        return s


def _parameter_token(p):
    tape = _state.tape
    return tape.token if tape is not None and id(p) in tape.params else None


def _parameter_slot(p):
    return _state.tape.params[id(p)]


# A Parameter is tracked through the thread's tape, not by attributes of its own (common/ sits
# below the tape, so the properties are given to the class here).
Parameter._tape = property(_parameter_token)
Parameter._slot = property(_parameter_slot)


def begin_transform(outer):
    """The tape for a new transform: the outer transform's, or a fresh one."""
    global _active
    with _active_lock:
        _active += 1
    tape = outer if outer is not None else Tape()
    tape.depth += 1
    _state.tape = tape
    return tape


def end_transform(tape, outer):
    global _active
    tape.depth -= 1
    _state.tape = outer
    with _active_lock:
        _active -= 1


def recording():
    """The tape this thread records on, or None."""
    return _state.tape if _active else None


def stop_recording():
    """Stop this thread's recording for the rest of its transform (which restores the state as
    it ends, without counting itself out again). Returns False if it was not recording."""
    global _active
    if _state.tape is None:
        return False
    _state.tape = None
    with _active_lock:
        _active -= 1
    return True


class pause_recording:
    """Context manager: run without recording (first-order backward passes, `no_grad` regions).
    Re-entrant and thread-local. While paused, this thread's transform leaves the global count,
    so ops skip the thread-local lookup (other threads' transforms still count themselves)."""

    __slots__ = ("_saved",)

    def __enter__(self):
        global _active
        self._saved = _state.tape
        _state.tape = None
        if self._saved is not None:
            with _active_lock:
                _active -= 1
        return self

    def __exit__(self, *exc):
        global _active
        if self._saved is not None:
            with _active_lock:
                _active += 1
        _state.tape = self._saved
        return False


# ---- tensors from arrays ------------------------------------------------------------------------

def wrap(arr):
    """An untracked Tensor around array `arr` (no copy; NumPy scalars become 0-d arrays)."""
    t = _new(Tensor)
    t._data = arr if type(arr) is _ndarray else _asarray(arr)
    t._tape = None
    t._version = 0
    if _capturing:
        rec = _state.capture
        if rec is not None:
            rec.wrapped(t)
    return t


def const(arr):
    """`wrap` for library constants that do not depend on any tensor's data (a backward's ones
    and zeros): a graph-mode capture folds them into the trace instead of refusing them."""
    if not _capturing:
        return wrap(arr)
    rec = _state.capture
    if rec is None:
        return wrap(arr)
    _state.capture = None  # not a fresh wrap to this recorder: a constant
    try:
        t = wrap(arr)
    finally:
        _state.capture = rec
    rec.constant(t)
    return t


# ---- the default sensitivity ---------------------------------------------------------------------
# `grad` starts its walk from ones of the output's shape and dtype. For small floating-point
# outputs that array is made once and kept read-only, so nothing can write into it: a call saves
# np.ones, and a bprop can tell that it multiplies by exactly one (x * 1 is x bit for bit in
# IEEE arithmetic; math_ops.MulByOne). Entries are never dropped, so the ids in _ONE_IDS always
# name these arrays.
_ONES = {}
_ONE_IDS = set()


def ones_sensitivity(shape, dtype):
    """A constant Tensor of ones of `shape` and NumPy `dtype`: the shared read-only array for
    small floating-point ones, else a fresh one."""
    a = _ONES.get((shape, dtype))
    if a is None:
        a = np.ones(shape, dtype)
        if dtype.kind == "f" and a.size <= 256 and len(_ONES) < 256:
            a.flags.writeable = False
            _ONES[(shape, dtype)] = a
            _ONE_IDS.add(id(a))
    return const(a)


def write_in_place(target, value):
    """`target <- value` (a Tensor of its shape) in place, with the undo log and a version bump;
    a graph-mode capture records it as a write that every replay makes again."""
    if _capturing:
        rec = _state.capture
        if rec is not None:
            rec.written(target, value)
    arr = value._data
    if hasattr(target, "_write"):  # a Parameter
        target._write(arr)
    else:
        _writes.record(target)
        np.copyto(target._data, arr, casting="unsafe")
        _writes.bump_version(target)


def _tracked(out, tape):
    slot = tape.n_slots
    tape.n_slots = slot + 1
    t = _new(Tensor)
    t._data = out
    t._tape = tape.token
    t._slot = slot
    t._version = 0
    return t


# ---- Python scalars as operands -----------------------------------------------------------------
# NumPy's path for a Python float operand costs ~300 ns more than a 0-d array of the tensor's dtype,
# so scalars are converted once and cached per result dtype. Zeros are not cached (-0.0 == 0.0 would
# share an entry), nor NaN (never equal to itself); a cache is cleared when it grows past a bound.

_scalar_cache = {}
_SCALAR_TYPES = (float, int, bool)
# float16 is left out of the operators' fast paths: its overflow is routine (loss scaling), and
# `binary` computes without NumPy's RuntimeWarnings.
_F16 = np.dtype(np.float16)
_FLOAT_SCALARS = {np.dtype(t): _scalar_cache.setdefault(np.dtype(t), {})
                  for t in (np.float32, np.float64)}


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


_NP_SCALAR_PYTYPE = {"b": bool, "i": int, "u": int, "f": float}


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


# ---- to_float: every op of a cell computes in its dtype -------------------------------------------

def compute_in(dtype, fn, args, kwargs):
    """fn(*args, **kwargs) with every primitive it calls casting its floating-point Tensor
    inputs to NumPy `dtype` first (recorded casts, so gradients reach float32 parameters in
    float32), as MindSpore runs a cell set by `to_float`; `dtype` may also be an `AutoCast`
    policy (amp_level 'auto'). Nested cells set their own."""
    global _casting
    prev = _state.compute
    _state.compute = dtype
    with _active_lock:
        _casting += 1
    try:
        return fn(*args, **kwargs)
    finally:
        _state.compute = prev
        with _active_lock:
            _casting -= 1


_cast = None  # the Cast primitive, handed over by math_ops (the primitives sit above the tape)


def use_cast(prim):
    global _cast
    _cast = prim


def _to_compute(t, dt):
    """Tensor `t` cast to compute dtype `dt` if it is floating point of another dtype."""
    if not isinstance(t, Tensor):
        return t
    a = t._data
    if a.dtype is dt or a.dtype.kind != "f" or a.dtype == dt:
        return t
    return apply(_cast, (t, dt))  # Cast keeps its inputs: no recursion


class AutoCast:
    """MindSpore's amp_level 'auto': per primitive, by its `amp_auto`, "low" casts the floating
    inputs to `low`, "full" to float32, "promote" to the widest floating input dtype; other
    primitives compute in their inputs' dtypes."""

    __slots__ = ("low",)

    def __init__(self, low):
        self.low = low

    def cast(self, prim, args):
        rule = prim.amp_auto
        if rule is None:
            return args
        if rule == "low":
            dt = self.low
        elif rule == "full":
            dt = np.dtype(np.float32)
        else:
            floats = [a._data.dtype for a in args
                      if isinstance(a, Tensor) and a._data.dtype.kind == "f"]
            if not floats:
                return args
            dt = max(floats, key=lambda d: d.itemsize)
        return tuple([_to_compute(a, dt) for a in args])


def _compute_args(prim, args):
    """`args` as the running `to_float` dtype or 'auto' policy has `prim` take them."""
    c = _state.compute
    if c is None or prim.keeps_inputs:
        return args
    if type(c) is AutoCast:
        return c.cast(prim, args)
    return tuple([_to_compute(a, c) for a in args])


# ---- the call paths ------------------------------------------------------------------------------
# Specialised one- and two-input paths without *args packing: the generic path costs several times
# more per call. Each looks at the recording state once, and records only if an input is tracked.

def call1(prim, x):
    """Run one-input, shape- and dtype-preserving primitive `prim` on Tensor `x`."""
    if _casting and _state.compute is not None:
        x, = _compute_args(prim, (x,))
    out = prim.forward(x._data)
    if type(out) is not _ndarray:  # NumPy gives scalars for 0-d results; keep arrays
        out = _asarray(out)
    if _active:
        tape = _state.tape
        if tape is not None and x._tape is tape.token and prim.differentiable:
            slot = tape.n_slots
            tape.n_slots = slot + 1
            t = _new(Tensor)
            t._data = out
            t._tape = tape.token
            t._slot = slot
            t._version = 0
            saved = prim._save1(x, t)
            if _packing:
                saved = _pack(saved)
            tape.nodes.append((prim, (x._slot,), NEEDS1, slot, saved, _writes.clock, None))
            if _capturing:
                _capture(prim, (x,), t, "call")
            return t
    t = _new(Tensor)
    t._data = out
    t._tape = None
    t._version = 0
    if _capturing:
        _capture(prim, (x,), t, "call")
    return t


def call2(prim, x, y):
    """Run two-input primitive `prim` on Tensors of one shape and dtype (no promotion; the
    backward `*Grad` primitives)."""
    if _casting and _state.compute is not None:
        x, y = _compute_args(prim, (x, y))
    out = prim.forward(x._data, y._data)
    if type(out) is not _ndarray:
        out = _asarray(out)
    if _active:
        tape = _state.tape
        if tape is not None:
            tok = tape.token
            sx = x._slot if x._tape is tok else -1
            sy = y._slot if y._tape is tok else -1
            if sx >= 0 or sy >= 0:
                t = _tracked(out, tape)
                # perf: the saver picked inline (a primitive with `saves_for` keeps, when one
                # input is a constant, only what the other input's gradient reads)
                save = prim._save2 if sx >= 0 and sy >= 0 else \
                    prim._save2_tf if sx >= 0 else prim._save2_ft
                saved = save(x, y, t)
                if _packing:
                    saved = _pack(saved)
                tape.nodes.append((prim, (sx, sy), NEEDS2[(sx >= 0, sy >= 0)], t._slot,
                                   saved, _writes.clock, None))
                if _capturing:
                    _capture(prim, (x, y), t, "call")
                return t
    t = _new(Tensor)
    t._data = out
    t._tape = None
    t._version = 0
    if _capturing:
        _capture(prim, (x, y), t, "call")
    return t


def binary(prim, x, y):
    """Run two-input elementwise `prim` on Tensors or Python scalars, with MindSpore's promotion."""
    if _casting and _state.compute is not None:
        x, y = _compute_args(prim, (x, y))
    if isinstance(x, Tensor):
        a = x._data
        if isinstance(y, Tensor):
            b = y._data
            if a.dtype is not b.dtype and a.dtype != b.dtype:
                dt = mstype.promote(a.dtype, b.dtype)
                a = a.astype(dt, copy=False)
                b = b.astype(dt, copy=False)
        elif isinstance(y, (np.ndarray, list, tuple)):
            return binary(prim, x, Tensor(y))
        else:
            a, b = _scalar_operand(prim, a, y)
    elif isinstance(y, Tensor):
        if isinstance(x, (np.ndarray, list, tuple)):
            return binary(prim, Tensor(x), y)
        b, a = _scalar_operand(prim, y._data, x)
    else:
        raise TypeError(f"For '{prim.name}', at least one operand must be a Tensor, but got "
                        f"{type(x).__name__} and {type(y).__name__}")
    try:
        out = quiet(prim.forward, a, b)  # IEEE results (overflow, inf - inf), no warnings
    except ValueError:
        raise _broadcast_error(prim, a, b) from None
    if type(out) is not _ndarray:
        out = _asarray(out)
    if _active:
        tape = _state.tape
        if tape is not None and prim.differentiable:
            t = _record_binary(tape, prim, x, y, out)
            if t is not None:
                if _capturing:
                    _capture(prim, (x, y), t, "binary")
                return t
    t = _new(Tensor)
    t._data = out
    t._tape = None
    t._version = 0
    if _capturing:
        _capture(prim, (x, y), t, "binary")
    return t


def _broadcast_error(prim, a, b):
    """The error for operands that do not broadcast (or whose forward refused its values)."""
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return ValueError(f"For '{prim.name}', the shapes {a.shape} and {b.shape} cannot be "
                          "broadcast together")
    return ValueError(f"For '{prim.name}', invalid operands of shapes {a.shape} and {b.shape} "
                      f"and dtypes {a.dtype} and {b.dtype}")


def _record_binary(tape, prim, x, y, out):
    """Record a binary node if an operand is tracked; returns the output Tensor or None."""
    tok = tape.token
    x_is_t = isinstance(x, Tensor)
    y_is_t = isinstance(y, Tensor)
    sx = x._slot if x_is_t and x._tape is tok else -1
    sy = y._slot if y_is_t and y._tape is tok else -1
    if sx < 0 and sy < 0:
        return None
    meta = None
    od = out.dtype
    if x_is_t and y_is_t:
        a, b = x._data, y._data
        if a.shape != b.shape or a.dtype is not od or b.dtype is not od:
            meta = ((a.shape, a.dtype), (b.shape, b.dtype))
    else:  # one Python scalar: the tensor's gradient has out's shape, maybe not its dtype
        a = x._data if x_is_t else y._data
        if a.dtype is not od:
            meta = ((a.shape, a.dtype), None) if x_is_t else (None, (a.shape, a.dtype))
    t = _tracked(out, tape)
    save = prim._save2 if sx >= 0 and sy >= 0 else prim._save2_tf if sx >= 0 else prim._save2_ft
    saved = save(x, y, t)
    if _packing:
        saved = _pack(saved)
    tape.nodes.append((prim, (sx, sy), NEEDS2[(sx >= 0, sy >= 0)], t._slot, saved,
                       _writes.clock, meta))
    return t


def _record_scalar_op(tape, prim, t, scalar, out, reflected):
    """Record `t (op) scalar` (or `scalar (op) t`) where the result has t's shape and dtype."""
    slot = tape.n_slots
    tape.n_slots = slot + 1
    r = _new(Tensor)
    r._data = out
    r._tape = tape.token
    r._slot = slot
    r._version = 0
    if reflected:
        saved = prim._save2_ft(scalar, t, r)
        if _packing:
            saved = _pack(saved)
        tape.nodes.append((prim, (-1, t._slot), NEEDS_FT, slot, saved, _writes.clock, None))
    else:
        saved = prim._save2_tf(t, scalar, r)
        if _packing:
            saved = _pack(saved)
        tape.nodes.append((prim, (t._slot, -1), NEEDS_TF, slot, saved, _writes.clock, None))
    return r


def binary_operator(prim, reflected=False):
    """A Tensor operator method for binary `prim` (`__mul__`, or `__rmul__` when `reflected`).

    perf: one Python call per operator. Same-dtype tensors, and Python numbers on float tensors,
    go straight to the ufunc; every other operand takes `binary`.
    """
    fwd = prim.forward
    diff = prim.differentiable

    def op(self, other):
        if _casting:  # inside a to_float cell: `binary` casts
            return binary(prim, other, self) if reflected else binary(prim, self, other)
        a = self._data
        tv = type(other)
        if tv is float or tv is int:
            cache = _FLOAT_SCALARS.get(a.dtype)
            b = cache.get(other) if cache is not None else None
            if b is None:
                return binary(prim, other, self) if reflected else binary(prim, self, other)
            token = _quiet_set(_IGNORE)  # IEEE results (inf * 0 = nan) without NumPy warnings
            try:
                out = fwd(b, a) if reflected else fwd(a, b)
            finally:
                _quiet_reset(token)
            if type(out) is not _ndarray:
                out = _asarray(out)
            if _active and diff:
                tape = _state.tape
                if tape is not None and self._tape is tape.token:
                    t = _record_scalar_op(tape, prim, self, other, out, reflected)
                    if _capturing:
                        _capture(prim, (b, self) if reflected else (self, b), t, "op")
                    return t
        elif isinstance(other, Tensor) and other._data.dtype is a.dtype and a.dtype is not _F16:
            b = other._data
            token = _quiet_set(_IGNORE)
            try:
                out = fwd(b, a) if reflected else fwd(a, b)
            except ValueError:
                raise (_broadcast_error(prim, b, a) if reflected else
                       _broadcast_error(prim, a, b)) from None
            finally:
                _quiet_reset(token)
            if type(out) is not _ndarray:
                out = _asarray(out)
            if _active and diff:
                tape = _state.tape
                if tape is not None and (self._tape is tape.token or other._tape is tape.token):
                    t = (_record_binary(tape, prim, other, self, out) if reflected else
                         _record_binary(tape, prim, self, other, out))
                    if _capturing:
                        _capture(prim, (other, self) if reflected else (self, other), t, "op")
                    return t
        else:
            return binary(prim, other, self) if reflected else binary(prim, self, other)
        t = _new(Tensor)
        t._data = out
        t._tape = None
        t._version = 0
        if _capturing:
            o = b if tv is float or tv is int else other
            _capture(prim, (o, self) if reflected else (self, o), t, "op")
        return t

    return op


def apply(prim, args):
    """Run `prim` on `args` (Tensors and constants, in the order of `prim.inputs`).

    Returns a Tensor, or a tuple of Tensors for primitives with several outputs. Outputs that are
    not floating point (indices, masks) are never tracked.
    """
    if _casting:
        args = _compute_args(prim, args)
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    out = quiet(prim.forward, *arrays)  # IEEE results without NumPy's RuntimeWarnings
    if type(out) is tuple:
        out = tuple([o if type(o) is _ndarray else _asarray(o) for o in out])
    elif type(out) is not _ndarray:
        out = _asarray(out)
    result = None
    if _active:
        tape = _state.tape
        if tape is not None and prim.differentiable:
            tok = tape.token
            ins = tuple([a._slot if isinstance(a, Tensor) and a._tape is tok else -1
                         for a in args])
            if max(ins, default=-1) >= 0:
                result = _record(tape, prim, args, ins, out)
    if result is None:
        result = tuple([wrap(o) for o in out]) if type(out) is tuple else wrap(out)
    if prim.view_op and isinstance(args[0], Tensor):
        _note_views(prim, args, result)
    if _capturing:
        _capture(prim, args, result, "quiet")
    return result


def _note_views(prim, args, result):
    """Make the results of a view op that share memory with its input views of it."""
    x, rest = args[0], tuple(args[1:])
    if type(result) is tuple:
        for k, r in enumerate(result):
            _views.note(r, x, prim.view_step(k, rest, x._data))
    else:
        _views.note(result, x, (prim, rest))


def _record(tape, prim, args, ins, out):
    meta = tuple([(a._data.shape, a._data.dtype) if isinstance(a, Tensor) else None
                  for a in args]) if prim.broadcasts else None
    if type(out) is tuple:
        outs, slots = [], []
        for o in out:
            if o.dtype.kind in "fc":
                t = _tracked(o, tape)
                slots.append((t._slot, o.shape, o.dtype))
            else:
                t = wrap(o)
                slots.append((-1, o.shape, o.dtype))
            outs.append(t)
        t = tuple(outs)
        slot = tuple(slots)
    elif out.dtype.kind not in "fc":
        return wrap(out)
    else:
        t = _tracked(out, tape)
        slot = t._slot
    saved = prim.save(args, t)
    if _packing:
        saved = _pack(saved)
    tape.nodes.append((prim, ins, needs_of(ins), slot, saved, _writes.clock, meta))
    return t


def recorded_copy(prim, x):
    """A copy of Tensor x as the output of `prim`, a one-input primitive whose forward copies and
    whose bprop reads nothing (math_ops.MulByOne), recorded; None where this thread's tape does
    not track x. call1 without the compute-dtype and capture paths, which the callers rule out."""
    if _active:
        tape = _state.tape
        if tape is not None and x._tape is tape.token:
            t = _tracked(x._data.copy(), tape)
            tape.nodes.append((prim, (x._slot,), NEEDS1, t._slot, (), _writes.clock, None))
            return t
    return None


def record_node(tape, prim, ins, out_tensor, saved):
    """Append a node whose output Tensor was made by the caller (leaf links, hooks)."""
    slot = tape.new_slot()
    out_tensor._tape = tape.token
    out_tensor._slot = slot
    tape.nodes.append((prim, ins, needs_of(ins), slot, saved, _writes.clock, None))
    return slot
