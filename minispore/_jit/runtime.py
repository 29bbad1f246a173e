"""A jitted function: entry keys, the traces captured for each, replay, and eager fallbacks."""
import operator
import threading
import weakref

from .._autodiff import anomaly as _anomaly
from .._autodiff import tape as _tape
from ..common import _writes
from ..common import dtype as mstype
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from . import capture as _capture
from . import dump as _dump
from . import vjp as _vjp
from .pipeline import compile_trace

MAX_TRACES = 8
ANOMALY = "anomaly detection is on (each primitive is checked as it runs)"
_NO_KWARGS = (dict, ())  # _key_of's part for no keyword arguments
_SCALARS = (bool, int, float, str, type(None))


class _Unkeyable(Exception):
    pass


_cell_classes = {}  # class -> whether it is a Cell class (classes are few and long-lived)


def _is_cell(x):
    """A Cell, told by its class (a module's `__getattr__` may be slow or have side effects).
    perf: answered once per class (a failing hasattr raises inside: ~0.3 us)."""
    cls = type(x)
    known = _cell_classes.get(cls)
    if known is None:
        known = _cell_classes[cls] = hasattr(cls, "cells_and_names") and \
            hasattr(cls, "construct")
    return known


def _key_of(x, tensors, key, cells):
    """Append `x`'s part of the entry key to `key`, its Tensors to `tensors`, its Cells (keyed by
    identity and training flag, their state compared at each call) to `cells`."""
    tx = type(x)
    if tx is Tensor or tx is Parameter or isinstance(x, Tensor):
        a = x._data
        if isinstance(x, Parameter):
            key.append(("P", id(x), a.shape, a.dtype))
        else:
            key.append(("T", a.shape, a.dtype))
        tensors.append(x)
    elif tx in _SCALARS:
        key.append((tx, repr(x)) if tx is float else (tx, x))
    elif tx is tuple or tx is list:
        key.append((tx, len(x)))
        for v in x:
            _key_of(v, tensors, key, cells)
    elif tx is dict:
        key.append((dict, tuple(x)))
        for v in x.values():
            _key_of(v, tensors, key, cells)
    elif tx is mstype.Type:
        key.append(x)
    elif _is_cell(x):
        key.append(("cell", id(x), x.training))
        cells.append(x)
    else:
        raise _Unkeyable(f"an argument of type {tx.__name__}")


def _reads_of(fn):
    """What `fn` can read that a call may have changed: (closure cells, globals dict, the
    global names its code uses, the Cell it is bound to or None). Fixed for a function object,
    so found once per jitted function."""
    target = getattr(fn, "__func__", fn)
    code = getattr(target, "__code__", None)
    glb = getattr(target, "__globals__", None)
    names = code.co_names if code is not None and glb is not None else ()
    owner = getattr(fn, "__self__", None)
    return (getattr(target, "__closure__", None) or (), glb, names,
            owner if owner is not None and _is_cell(owner) else None)


_LEAVES = frozenset((bool, int, float, str, type(None), type(_is_cell), type))


def _state_of(reads, cells=()):
    """The objects a function (`_reads_of`) reads from its closure and globals, and the
    attributes of its Cells, compared by identity at each call (held, so an identity cannot
    be reused)."""
    objs = list(cells)
    for c in cells:
        objs.extend(_cell_state(c))
    closure, glb, names, owner = reads
    read = []
    for cell in closure:
        try:
            read.append(cell.cell_contents)
        except ValueError:
            read.append(None)
    if names:
        read.extend(map(glb.get, names))
    objs.extend(read)
    for v in read:
        tv = type(v)
        if tv in _LEAVES:
            continue
        if tv is list or tv is tuple:
            objs.extend(v)
        elif isinstance(v, dict):
            objs.extend(v)
            objs.extend(v.values())
        elif _is_cell(v):
            objs.extend(_cell_state(v))
    if owner is not None:
        objs.extend(_cell_state(owner))
    return objs


_HOOK_KINDS = ("forward_pre", "forward", "backward", "backward_pre")


def _cell_state(cell):
    """The identities of every attribute of `cell` and its sub-Cells (one level into dicts and
    lists held there). perf: walks `_cells` directly (cells_and_names builds path strings)."""
    objs = []
    seen = set()
    stack = [cell]
    while stack:
        c = stack.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        d = vars(c)
        hooks = d.get("_cell_hooks")
        if hooks is not None and any(getattr(hooks, kind, None) for kind in _HOOK_KINDS):
            raise _Unkeyable("Cell hooks (they run Python at every call)")
        objs.extend(d)
        values = d.values()
        objs.extend(values)
        for v in values:
            tv = type(v)
            if tv is list or tv is tuple:  # a list construct appends to: a Python side effect;
                objs.extend(v)  # a tuple's Tensors are held (read by reference)
            elif isinstance(v, dict):
                objs.extend(v)
                objs.extend(v.values())
        children = d.get("_cells")
        if children:
            stack.extend(ch for ch in reversed(list(children.values())) if ch is not None)
    return objs


def _same_state(a, b):
    return len(a) == len(b) and all(map(operator.is_, a, b))


class Jitted:
    """`fn` run by capture and replay; `stats` counts captures, replays and eager calls."""

    def __init__(self, fn, fullgraph=False, backend=""):
        self.fn = fn
        self.reads = _reads_of(fn)
        self.fullgraph = fullgraph
        self.backend = backend  # pipeline.resolve_backend: "numpy", "numba" or the default
        self.cache = {}  # entry key -> list of (Trace, state snapshot)
        self.n_traces = 0
        self.lock = threading.Lock()
        self.eager_keys = {}  # entry key -> reason
        self.changed_state = set()  # keys whose capture changed Python state once
        self.stats = {"captures": 0, "replays": 0, "guard_misses": 0, "eager_calls": 0,
                      "fallbacks": {}, "disabled": None, "nodes": [], "grad_replays": 0,
                      "vjp_captures": 0, "vjp_replays": 0, "vjp_eager": 0, "spliced": 0,
                      "grad2_replays": 0, "grad2_bwd_captures": 0, "grad2_bwd_replays": 0,
                      "grad2_bwd_eager": 0}
        # the deepest tape depth at which a replay under a gradient transform is one node with
        # a first-order VJP (2 for the first backward of a second-order node, vjp.py)
        self.one_node_depth = 1
        self.stages = []  # per trace in capture order: {"captured": Trace, "optimized": Trace}

    ir = _dump.ir

    def graphs(self):
        """The captured traces as IR text, one per trace."""
        return [tr.text() for traces in self.cache.values() for tr, _ in traces]

    def _eager(self, reason, args, kwargs):
        self.stats["eager_calls"] += 1
        if reason is not None:
            fb = self.stats["fallbacks"]
            fb[reason] = fb.get(reason, 0) + 1
        return self.fn(*args, **kwargs)

    def _refuse(self, reason):
        if self.fullgraph:
            raise RuntimeError(f"For 'jit' with fullgraph=True, {getattr(self.fn, '__name__', self.fn)} "
                               f"cannot be captured: {reason}")

    def __call__(self, *args, **kwargs):
        state = _tape._state
        state.jit_depth += 1  # what runs inside is graph code (ops.Morph checks it)
        try:
            return self._call(args, kwargs)
        finally:
            state.jit_depth -= 1

    def _call(self, args, kwargs):
        if self.stats["disabled"] is not None:
            return self._eager(None, args, kwargs)
        if _anomaly._users and _anomaly.is_anomaly_enabled():  # (not refused under fullgraph)
            return self._eager(ANOMALY, args, kwargs)
        if _tape._casting or _tape._capturing and _tape._state.capture is not None:
            # inside a to_float cell (not captured yet), or inside an outer capture (inlined:
            # the outer recorder sees every primitive)
            return self._eager(None, args, kwargs)
        tape = _tape._state.tape if _tape._active else None
        cells = []
        if not kwargs and all([type(a) is Tensor for a in args]):  # noqa: C419 (perf: a list)
            tensors = list(args)  # the key _key_of gives these arguments, built directly
            key = [(tuple, len(args))]
            key += [("T", a._data.shape, a._data.dtype) for a in args]
            key.append(_NO_KWARGS)
        else:
            tensors, key = [], []
            try:
                _key_of(args, tensors, key, cells)
                _key_of(kwargs, tensors, key, cells)
            except _Unkeyable as e:
                self._refuse(str(e))
                return self._eager(str(e), args, kwargs)
        if len(tensors) > 1:
            ids = [id(t._data) for t in tensors]
            if len(set(ids)) != len(ids):  # one array passed twice: keyed by the pattern
                key.append(("alias", tuple([ids.index(i) for i in ids])))
        owner = self.reads[3]
        if owner is not None:
            key.append(("training", owner.training))
        if tape is not None:
            tok = tape.token
            tracked = tuple([t._tape is tok for t in tensors])
            if tape.params or any(tracked):  # else nothing can be tracked: a plain replay
                key.append(("grad", tracked))
            else:
                tape = None
        key = tuple(key)
        reason = self.eager_keys.get(key)
        if reason is not None:
            return self._eager(reason, args, kwargs)
        traces = self.cache.get(key)
        if traces:
            try:
                state = _state_of(self.reads, cells)
            except _Unkeyable as e:
                self._refuse(str(e))
                return self._eager(str(e), args, kwargs)
            arrays = [t._data for t in tensors]
            for tr, snap in traces:
                if not _same_state(snap, state):
                    continue
                hit, out = tr.run(arrays, tensors)
                if hit:
                    self.stats["replays"] += 1
                    if tape is not None:
                        self.stats["grad_replays"] += 1
                    return out
                self.stats["guard_misses"] += 1
        return self._capture(key, args, kwargs, tensors, cells, tape)

    def _capture(self, key, args, kwargs, tensors, cells, tape=None):
        with self.lock:
            if self.n_traces >= MAX_TRACES:
                reason = (f"more than {MAX_TRACES} traces (guards or keys keep changing: make the "
                          "converted values tensor ops or arguments)")
                self.stats["disabled"] = reason
                self._refuse(reason)
                return self._eager(reason, args, kwargs)
            self.n_traces += 1
        self.stats["captures"] += 1
        try:
            before = _state_of(self.reads, cells)
        except _Unkeyable as e:
            self._refuse(str(e))
            return self._eager(str(e), args, kwargs)
        if tape is not None:  # runs eagerly on the tape; its nodes become the VJP template
            rec = _capture.Recorder(tensors)
            start, slot_start = len(tape.nodes), tape.n_slots
            result, trace, reason, outside = _capture.capture(self.fn, args, kwargs, tensors,
                                                              recorder=rec)
        else:
            result, trace, reason, outside = _capture.capture(self.fn, args, kwargs, tensors)
        held = {id(o) for o in before}
        if trace is not None and any(id(t) in held for t in tensors
                                     if not isinstance(t, Parameter)):
            trace, reason = None, "an argument that the function also reads from outside"
        if trace is not None and any(id(t) not in held for t in outside):
            # e.g. a batch a dataset iterator made before the call: a replay would read it again
            trace, reason = None, ("a tensor from outside that is not an argument, a Parameter "
                                   "or held by the function's closure, globals or Cells")
        try:
            after = _state_of(self.reads, cells)
        except _Unkeyable as e:
            trace, reason, after = None, str(e), None
        if trace is not None and not _same_state(before, after):
            trace, reason = None, "a Python side effect on the function's closure, globals or Cell"
            if key not in self.changed_state:  # lazy initialisation on a first call: once more
                self.changed_state.add(key)
                reason = None
        if trace is None:
            if reason is None:
                return result
            self._refuse(reason)
            self.eager_keys[key] = reason
            fb = self.stats["fallbacks"]
            fb[reason] = fb.get(reason, 0) + 1
            return result
        if tape is not None:
            try:
                grad_trace = _vjp.build(self, trace, rec, tape, start, slot_start, result,
                                        tensors, getattr(self.fn, "__name__", "fn"))
            except _vjp.Refused as e:
                reason = f"{e} (under a gradient transform)"
                self._refuse(reason)
                self.eager_keys[key] = reason
                fb = self.stats["fallbacks"]
                fb[reason] = fb.get(reason, 0) + 1
                return result
            grad_trace.fwd = compile_trace(self, trace)
            self.cache.setdefault(key, []).append((grad_trace, after))
            return result
        trace = compile_trace(self, trace)
        self.cache.setdefault(key, []).append((trace, after))
        return result


_cell_graphs = weakref.WeakKeyDictionary()


def graph_call(cell, args, kwargs):
    """`cell(*args, **kwargs)` by capture and replay, one Jitted per Cell (`Cell.__call__`
    under GRAPH_MODE)."""
    jitted = _cell_graphs.get(cell)
    if jitted is None:
        jitted = _cell_graphs[cell] = Jitted(_outermost_call)
    return jitted(cell, *args, **kwargs)


def _outermost_call(cell, *args, **kwargs):
    if _writes._log.entries is not None:  # inside a transform's call, whose undo log rolls back
        return cell.construct(*args, **kwargs) if cell._fast else cell._call_slow(args, kwargs)
    return cell._outermost_call(args, kwargs)


def cell_stats(cell):
    """The `stats` of `cell`'s graph under GRAPH_MODE, or None before its first graph call."""
    jitted = _cell_graphs.get(cell)
    return None if jitted is None else jitted.stats
