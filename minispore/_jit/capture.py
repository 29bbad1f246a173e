"""Capture: record every primitive a function runs into a flat SSA trace, then replay it on new
inputs by running each primitive's forward on NumPy arrays (docs/graph_mode.md).

A trace is a list of steps: `Node`s (a primitive, how its call path ran it, its inputs as value
ids or constants) and `Guard`s (a tensor-to-Python conversion and the Python value it gave).
Values are numbered: the function's Tensor arguments first, then Parameters and outside Tensors
(read by reference at every replay), then node outputs. Anything the trace cannot replay exactly
makes the capture report an escape, and the caller runs that function eagerly.
"""
import builtins
import sys
import threading

import numpy as np

from .._autodiff import tape as _tape
from .._quiet import is_quiet, quiet
from ..common import _writes
from ..common import seed as _seed
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from .lower import lower

_ndarray = np.ndarray
_RANDOM_MODULE = "minispore.ops.operations.random_ops"
_MINISPORE_DIR = __file__.rsplit("minispore", 1)[0] + "minispore"


class Escape(Exception):
    """Raised inside a capture when the function does something a trace cannot replay."""


class Node:
    """One primitive call: `prim.forward` on `ins` (value ids, or ("c", constant)), each input
    cast to `casts[k]` first when not None; `quiet` when the call path silenced NumPy warnings."""

    __slots__ = ("casts", "ins", "multi", "outs", "prim", "quiet", "rng", "shapes")

    def __init__(self, prim, ins, casts, quiet_, outs, shapes, multi):
        self.prim = prim
        self.ins = ins
        self.casts = casts
        self.quiet = quiet_
        self.outs = outs
        self.shapes = shapes
        self.multi = multi
        self.rng = _is_random(prim)


class Guard:
    """A tensor-to-Python conversion seen while capturing: replay redoes it and compares."""

    __slots__ = ("args", "expected", "method", "site", "value")

    def __init__(self, value, method, args, expected, site):
        self.value = value
        self.method = method
        self.args = args
        self.expected = expected
        self.site = site


class HostCall:
    """A Cell run as Python at every replay (an optimizer: its Parameter writes are real eager
    code). `ins` is the call's (args, kwargs) with each Tensor as ("v", value id) or ("obj",
    Parameter or outside Tensor) and anything else as ("c", constant); its Tensor results
    become values `outs`, its other results must equal the captured ones."""

    __slots__ = ("cell", "expected", "in_ids", "ins", "metas", "outs", "site")

    def __init__(self, cell, ins, outs, metas, expected, site):
        self.cell = cell
        self.ins = ins
        self.in_ids = tuple(_host_values(ins))  # the value ids `run` takes, in order
        self.outs = outs
        self.metas = metas
        self.expected = expected
        self.site = site

    def input_ids(self):
        return self.in_ids

    def renamed(self, rename):
        """This call with each traced input value id `i` replaced by `rename(i)` (a value id)."""
        ins = _host_renamed(self.ins, rename)
        return HostCall(self.cell, ins, self.outs, self.metas, self.expected, self.site)

    def run(self, *arrays):
        """Call the Cell on Tensors over `arrays` (the traced inputs, in `ins` order); the arrays
        of its Tensor results. A result of another shape, dtype or Python value raises: the
        Cell's writes have happened, so the call cannot be redone eagerly."""
        it = iter(arrays)
        args, kwargs = _host_build(self.ins, it)
        out = self.cell(*args, **kwargs)
        tensors, others = [], []
        _host_flatten(out, tensors, others)
        got = [(t._data.shape, t._data.dtype) for t in tensors]
        if got != self.metas or not all(_same_python(a, b) for a, b in
                                        zip(others, self.expected)):
            raise RuntimeError(
                f"For 'jit', the replayed call of {type(self.cell).__name__} (captured at "
                f"{self.site}) returned other shapes, dtypes or values than when captured; it "
                "has already updated its Parameters, so the step cannot be run again eagerly")
        return [t._data for t in tensors]


def committed_miss(prim):
    """The error for an output shape that differs from the captured one after the replay has
    written Parameters (rerunning the call eagerly would write them twice)."""
    return RuntimeError(f"For 'jit', '{prim.name}' gave another output shape than when captured, "
                        "after the replay had already updated Parameters in place; the call "
                        "cannot be redone eagerly (compute data-dependent shapes before the "
                        "update)")


class Write:
    """An in-place write of value `value` into `target` (a Parameter, argument or held, or a
    held Tensor: BatchNorm's running statistics), made again at every replay with the undo log
    and a version bump; `target_id` is the target's own value id, read again after the write."""

    __slots__ = ("site", "target", "target_id", "value")

    def __init__(self, target, target_id, value, site):
        self.target = target
        self.target_id = target_id
        self.value = value
        self.site = site

    def input_ids(self):
        return (self.value,)

    def renamed(self, rename):
        return Write(self.target, self.target_id, rename(self.value), self.site)

    def run(self, arr):
        _tape.write_in_place(self.target, _tape.wrap(arr))


def _host_build(tree, arrays):
    kind, x = tree
    if kind == "v":
        return _tape.wrap(next(arrays))
    if kind in ("obj", "c"):
        return x
    if kind == "tuple":
        return tuple([_host_build(t, arrays) for t in x])
    if kind == "list":
        return [_host_build(t, arrays) for t in x]
    return {k: _host_build(t, arrays) for k, t in x}


def _host_renamed(tree, rename):
    kind, x = tree
    if kind == "v":
        return ("v", rename(x))
    if kind in ("tuple", "list"):
        return (kind, [_host_renamed(t, rename) for t in x])
    if kind == "dict":
        return (kind, [(k, _host_renamed(t, rename)) for k, t in x])
    return tree


def _host_values(tree):
    """The value ids of a HostCall's traced inputs, in the order `run` takes their arrays."""
    kind, x = tree
    if kind == "v":
        yield x
    elif kind in ("tuple", "list"):
        for t in x:
            yield from _host_values(t)
    elif kind == "dict":
        for _, t in x:
            yield from _host_values(t)


def _host_flatten(out, tensors, others):
    if isinstance(out, Tensor):
        tensors.append(out)
    elif type(out) in (tuple, list):
        for v in out:
            _host_flatten(v, tensors, others)
    elif type(out) is dict:
        for v in out.values():
            _host_flatten(v, tensors, others)
    else:
        others.append(out)


def _is_random(prim):
    return any(c.__module__ == _RANDOM_MODULE for c in type(prim).__mro__)


def _holds_data(x):
    """Whether constant `x` holds arrays, NumPy scalars or Tensors (possibly data-derived)."""
    if isinstance(x, (_ndarray, np.generic, Tensor)):
        return True
    if type(x) in (tuple, list):
        return any(_holds_data(v) for v in x)
    if type(x) is dict:
        return any(_holds_data(v) for v in x.values())
    return False


def _same_python(a, b):
    """Exact equality of Python results (-0.0 differs from 0.0, NaN equals NaN)."""
    return type(a) is type(b) and repr(a) == repr(b)


def user_site():
    """'file:line' of the first frame outside minispore, for reasons and guard sites."""
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        if not name.startswith(_MINISPORE_DIR):
            return f"{name}:{f.f_lineno}"
        f = f.f_back
    return "<unknown>"


class Trace:
    """A replayable capture: inputs, Parameters and outside Tensors, steps, outputs."""

    __slots__ = (
        "fn",
        "has_rng",
        "n_args",
        "n_values",
        "out_ids",
        "out_tree",
        "ref_meta",
        "refs",
        "source",
        "steps",
        "value_meta",
        "views",
    )

    def replay(self, arg_arrays, args):
        """The outputs for new argument arrays (by the generated function), or None when a guard
        or shape check fails (ambiguous for a function returning None: see `run`)."""
        return self.run(arg_arrays, args)[1]

    def run(self, arg_arrays, args):
        """(True, the outputs) for new argument arrays, or (False, None) when a guard or shape
        check fails: a function that returns None has replayed too (its writes and host calls
        happened), and must not be run again."""
        fn = self.fn
        if fn is None:
            fn = self.lower()
        outs = fn(arg_arrays)
        if outs is None:
            return False, None
        tree = self.out_tree
        if tree[0] == "v" and not self.views:  # perf: one fresh output
            return True, _tape.wrap(outs[0])
        return True, _build(tree, dict(zip(self.out_ids, outs)), args, {}, self.views)

    def lower(self):
        """Generate (once) and return the replay function; its source is `self.source`."""
        if self.fn is None:
            self.fn, self.source = lower(self, _ORIGINAL, _same_python, _rng_snapshot,
                                         _rng_restore, committed_miss)
        return self.fn

    def text(self):
        """The trace as readable IR: inputs, one line per node or guard, outputs."""
        lines = [f"  %{i} = arg{i}" for i in range(self.n_args)]
        for (i, obj), (shape, dt) in zip(self.refs, self.ref_meta):
            kind = "param " + obj.name if isinstance(obj, Parameter) else "external"
            lines.append(f"  %{i} : {dt}{list(shape)} = {kind}")
        for step in self.steps:
            if type(step) is Node:
                ins = ", ".join(f"%{x}" if type(x) is int else _const_text(x[1])
                                for x in step.ins)
                outs = ", ".join(f"%{i}" for i in step.outs)
                shapes = ", ".join(str(list(s)) for s in step.shapes)
                lines.append(f"  {outs} : {shapes} = {step.prim!r}({ins})"
                             + ("  rng" if step.rng else ""))
            elif type(step) is Write:
                name = getattr(step.target, "name", None)
                what = f"param {name}" if isinstance(step.target, Parameter) else "external"
                lines.append(f"  write {what} <- %{step.value}  # {step.site}")
            elif type(step) is HostCall:
                ins = ", ".join(f"%{i}" for i in step.in_ids)
                outs = ", ".join(f"%{i}" for i in step.outs) or "()"
                lines.append(f"  {outs} = host {type(step.cell).__name__}({ins})  # {step.site}")
            else:
                lines.append(f"  guard {step.method}(%{step.value}) == {step.expected!r}"
                             f"  # {step.site}")
        lines.append("  return " + ", ".join(f"%{i}" for i in self.out_ids))
        return "\n".join(lines)

    def interpret(self, arg_arrays, args):
        """`replay` by a loop over the steps: the reference the generated code is tested against."""
        vals = list(arg_arrays)
        vals.extend([None] * (self.n_values - len(vals)))
        for k, (i, obj) in enumerate(self.refs):
            a = obj._data
            if a.shape != self.ref_meta[k][0] or a.dtype != self.ref_meta[k][1]:
                return None
            vals[i] = a
        rng_state = _rng_snapshot(self) if self.has_rng else None
        point = [None]  # the undo point of the first Write: a miss rolls the writes back
        try:
            return self._interpret(vals, args, rng_state, point)
        finally:
            if point[0] is not None:
                _writes.release(point[0], False)

    def _interpret(self, vals, args, rng_state, point):
        committed = False  # a host call ran: a shape miss can no longer rerun the call

        def miss():
            if point[0] is not None:
                _writes.release(point[0], True)
                point[0] = None
            _rng_restore(rng_state)

        for step in self.steps:
            if type(step) is Node:
                arrays = [vals[i] if type(i) is int else i[1] for i in step.ins]
                casts = step.casts
                if casts is not None:
                    arrays = [a if dt is None else a.astype(dt, copy=copy)
                              for a, (dt, copy) in zip(arrays, casts)]
                out = quiet(step.prim.forward, *arrays) if step.quiet else \
                    step.prim.forward(*arrays)
                if step.multi:
                    outs = [o if type(o) is _ndarray else np.asarray(o) for o in out]
                else:
                    outs = [out if type(out) is _ndarray else np.asarray(out)]
                for o, i, shp in zip(outs, step.outs, step.shapes):
                    if o.shape != shp:
                        if committed:
                            raise committed_miss(step.prim)
                        miss()
                        return None
                    vals[i] = o
            elif type(step) in (HostCall, Write):
                if type(step) is Write:
                    if point[0] is None:
                        point[0] = _writes.savepoint()
                    step.run(vals[step.value])
                    vals[step.target_id] = step.target._data
                else:
                    outs = step.run(*[vals[i] for i in step.in_ids])
                    for i, o in zip(step.outs, outs):
                        vals[i] = o
                    committed = True
                for i, obj in self.refs:  # a write may have given a Parameter a new array
                    vals[i] = obj._data
            else:
                t = _tape.wrap(vals[step.value])
                got = _ORIGINAL[step.method](t, *step.args)
                if not _same_python(got, step.expected):
                    miss()
                    return None
        return _build(self.out_tree, vals, args, {}, self.views)


def _const_text(c):
    if type(c) is _ndarray:
        return repr(c.item()) if c.ndim == 0 else f"array{list(c.shape)}"
    return repr(c)


def _build(tree, vals, args, made, views):
    kind = tree[0]
    if kind == "v":
        i = tree[1]
        t = made.get(i)
        if t is None:
            t = made[i] = _tape.wrap(vals[i])
            view = views.get(i)
            if view is not None:  # as eager: a view of the argument it was made from
                prim, k, rest = view
                _tape._note_views(prim, (args[k], *rest), t)
        return t
    if kind == "arg":
        return args[tree[1]]
    if kind == "obj":
        return tree[1]
    if kind == "c":
        return tree[1]
    if kind == "tuple":
        return tuple([_build(t, vals, args, made, views) for t in tree[1]])
    if kind == "list":
        return [_build(t, vals, args, made, views) for t in tree[1]]
    return {k: _build(t, vals, args, made, views) for k, t in tree[1]}


def _leaves(tree):
    if tree[0] == "v":
        yield tree[1]
    elif tree[0] in ("tuple", "list"):
        for t in tree[1]:
            yield from _leaves(t)
    elif tree[0] == "dict":
        for _, t in tree[1]:
            yield from _leaves(t)


def _rng_snapshot(trace):
    own = [(s.prim, s.prim.__dict__.get("_rng")) for s in trace.steps
           if type(s) is Node and s.rng]
    return (_seed.get_rng_state(),
            [(g, g.bit_generator.state) for _, g in own if g is not None])


def _rng_restore(snapshot):
    if snapshot is None:
        return
    _seed.set_rng_state(snapshot[0])
    for g, state in snapshot[1]:
        g.bit_generator.state = state


class Recorder:
    """Receives the tape's call paths while a function runs for the first time."""

    # a primitive's derived input (Conv2D's im2col patches) may come from a node of the trace
    # (a DataFunction its __call__ records), so a replay makes it once for every node using it
    derived_as_nodes = True

    def __init__(self, arg_tensors):
        self.values = {}  # id(array) -> value id
        self.keep = []  # every array and Tensor seen, alive until the capture ends (stable ids)
        self.refs = []  # (value id, Parameter or outside Tensor)
        self.ref_ids = set()  # the value ids in `refs`
        self.ref_meta = []
        self.steps = []
        self.producer = {}  # value id -> the Node that made it
        self.applied = set()  # the Nodes run by `apply`
        self.fresh = {}  # id(Tensor) -> Tensor wrapped from an array no value owns
        self.made = {}  # id(Tensor) -> Tensor built by Tensor(...) during the capture
        self.consts = set()  # ids of the Tensors `tape.const` made during the capture
        self.n_values = 0
        self.value_meta = []  # value id -> (shape, dtype) as captured
        self.escape = None
        self.in_conversion = 0
        self.host_writes = 0  # write-clock ticks made by host calls (allowed writes)
        self.committed = False  # a HostCall is recorded: no guard may follow
        self.args = list(arg_tensors)
        self.n_args = len(self.args)
        for t in arg_tensors:
            self._new_value(t._data)

    def _new_value(self, arr):
        i = self.n_values
        self.n_values = i + 1
        self.values[id(arr)] = i
        self.keep.append(arr)
        self.value_meta.append((arr.shape, arr.dtype))
        return i

    def fail(self, reason):
        if self.escape is None:
            self.escape = f"{reason} at {user_site()}"
        raise Escape(self.escape)

    def ref(self, t):
        a = t._data
        i = self.values.get(id(a))
        if i is not None:
            if i < self.n_args and t is not self.args[i] and id(t) not in self.fresh:
                self.fail("a tensor sharing an argument's array")
            return i
        if id(t) in self.fresh:
            self.fail("a tensor made from raw NumPy data (wrap of an array no traced value owns)")
        made = self.made.get(id(t))
        if made is not None and made[0] is t and not isinstance(t, Parameter):
            if made[1] == "traced":
                self.fail("Tensor(...) built from a traced tensor's data")
            if made[1] == "library":
                self.fail("a tensor built by library code from NumPy data")
        i = self._new_value(a)
        self.keep.append(t)
        self.refs.append((i, t))
        self.ref_ids.add(i)
        self.ref_meta.append((a.shape, a.dtype))
        return i

    def operand(self, x, how):
        if isinstance(x, Tensor):
            return self.ref(x)
        if type(x) is _ndarray:
            i = self.values.get(id(x))
            if i is not None:
                return i
            if how != "op":
                self.fail("a raw NumPy array passed to a primitive")
        elif _holds_data(x):
            self.fail("NumPy data or a tensor inside a primitive's constant argument")
        return ("c", x)

    # ---- the tape's call paths ----------------------------------------------------------------
    def record(self, prim, operands, out, how):
        """`how`: 'call' (forward as is), 'quiet' (forward under quiet), 'op' (the operator
        fast paths: forward operands in order, scalars as cached 0-d arrays), 'binary'."""
        if self.escape is not None:
            return
        try:
            casts = None
            if how == "binary":
                ins, casts = self._binary_operands(prim, operands)
                quiet_ = True
            else:
                derived = prim.derived_inputs
                # a derived input is made again by the forward, unless a traced node made it
                ins = [("c", None) if k in derived and type(x) is _ndarray and
                       id(x) not in self.values else
                       self.operand(x, how) for k, x in enumerate(operands)]
                # a 'call' inside a quiet region (the backward walk's) replays quietly too
                quiet_ = how != "call" or is_quiet()
            multi = type(out) is tuple
            outs_t = out if multi else (out,)
            outs, shapes = [], []
            for t in outs_t:
                a = t._data
                self.fresh.pop(id(t), None)
                self.keep.append(t)
                outs.append(self._new_value(a))
                shapes.append(a.shape)
            node = Node(prim, tuple(ins), casts, quiet_, tuple(outs), tuple(shapes), multi)
            self.steps.append(node)
            for i in outs:
                self.producer[i] = node
            if how == "quiet":  # `apply`, which notes the views a view primitive makes
                self.applied.add(node)
        except Escape:
            pass

    def _binary_operands(self, prim, operands):
        x, y = operands
        if isinstance(x, Tensor) and isinstance(y, Tensor):
            a, b = x._data, y._data
            ins = [self.ref(x), self.ref(y)]
            if a.dtype is not b.dtype and a.dtype != b.dtype:
                dt = _tape.mstype.promote(a.dtype, b.dtype)
                return ins, [(dt, False), (dt, False)]
            return ins, None
        if isinstance(x, Tensor):
            a2, s = _tape._scalar_operand(prim, x._data, y)
            cast = None if a2 is x._data else (a2.dtype, True)
            return [self.ref(x), ("c", s)], [cast or (None, False), (None, False)]
        b2, s = _tape._scalar_operand(prim, y._data, x)
        cast = None if b2 is y._data else (b2.dtype, True)
        return [("c", s), self.ref(y)], [(None, False), cast or (None, False)]

    def wrapped(self, t):
        self.fresh[id(t)] = t
        self.keep.append(t)

    # ---- tensor methods, patched while a capture runs ---------------------------------------
    def conversion(self, t, method, args, result):
        if self.escape is not None:
            return
        try:
            if isinstance(t, Tensor):
                if self.committed:
                    self.fail("a tensor-to-Python conversion after a Cell run as a host call "
                              "(its writes could not be undone on a guard miss)")
                i = self.ref(t)
                self.steps.append(Guard(i, method, args, result, user_site()))
        except Escape:
            pass

    def constant(self, t):
        self.consts.add(id(t))
        self.keep.append(t)

    def outside_refs(self):
        """The refs that existed before the capture and are not Parameters: Tensors the trace
        reads by reference, which the caller must find in the function's state."""
        return [obj for _, obj in self.refs if not isinstance(obj, Parameter)
                and id(obj) not in self.consts and id(obj) not in self.made]

    def constructed(self, t, data, by_library):
        traced = isinstance(data, Tensor) or (type(data) is _ndarray and
                                              id(data) in self.values)
        self.made[id(t)] = (t, "traced" if traced else "library" if by_library else "const")
        self.keep.append(data)

    # ---- Cells run as host calls (Cell._jit_host: optimizers) -------------------------------
    def host_call(self, cell, args, kwargs):
        """Run `cell` on (args, kwargs) eagerly, unrecorded, and record it as one HostCall."""
        ins = None
        if self.escape is None:
            try:
                ins = self._host_input(args, kwargs)
            except Escape:
                pass
        clock = _writes.clock
        prev = _tape._state.capture
        _tape._state.capture = None
        try:
            out = cell._call_slow(args, kwargs)
        finally:
            _tape._state.capture = prev
        self.host_writes += _writes.clock - clock
        if ins is None:
            return out
        tensors, others = [], []
        _host_flatten(out, tensors, others)
        outs = []
        for t in tensors:
            self.fresh.pop(id(t), None)
            self.keep.append(t)
            outs.append(self._new_value(t._data))
        metas = [(t._data.shape, t._data.dtype) for t in tensors]
        self.steps.append(HostCall(cell, ins, tuple(outs), metas, others, user_site()))
        self.committed = True
        return out

    def written(self, target, value):
        """`tape.write_in_place(target, value)` is about to run: record it as a Write."""
        if self.escape is not None:
            return
        try:
            i = self.ref(target)
            # a Parameter argument is keyed by identity: the same object at every replay
            if not (i in self.ref_ids or
                    (i < self.n_args and isinstance(target, Parameter))):
                self.fail("an in-place write into a tensor the function computed or a Tensor "
                          "argument")
            self.steps.append(Write(target, i, self.ref(value), user_site()))
            self.host_writes += 1  # (a replay undoes its writes on a miss: guards may follow)  # the write's one version bump
        except Escape:
            pass

    def _host_input(self, args, kwargs):
        def conv(x):
            if isinstance(x, Tensor):
                i = self.ref(x)
                if i in self.ref_ids:
                    return ("obj", x)
                return ("v", i)
            if type(x) in (tuple, list):
                return ("tuple" if type(x) is tuple else "list", [conv(v) for v in x])
            if type(x) is dict:
                return ("dict", [(k, conv(v)) for k, v in x.items()])
            if type(x) is _ndarray or _holds_data(x):
                self.fail("NumPy data passed to a Cell run as a host call")
            return ("c", x)
        return ("tuple", [conv(tuple(args)), conv(dict(kwargs))])

    # ---- the result -----------------------------------------------------------------------------
    def finish(self, result, args):
        """The Trace for `result`, or raise Escape."""
        if self.escape is not None:
            raise Escape(self.escape)
        self.steps, refs, ref_meta = self._inlined_constants()
        arg_pos = {id(a): k for k, a in enumerate(args)}
        out_arrays = []
        tree = self._tree(result, arg_pos, out_arrays)
        inputs = [a._data for a in args] + [obj._data for _, obj in self.refs] + \
            [x[1] for s in self.steps if type(s) is Node for x in s.ins
             if type(x) is tuple and type(x[1]) is _ndarray]
        views = {}
        for k, (i, a) in enumerate(out_arrays):
            base = self._view_of_argument(i)
            for n, b in enumerate(inputs):
                if np.may_share_memory(a, b) and n != base:
                    self.fail("an output shares memory with an input (a view)")
            if base is not None and np.may_share_memory(a, inputs[base]):
                node = self.producer[i]
                views[i] = (node.prim, base, tuple([x[1] for x in node.ins[1:]]))
            for _, b in out_arrays[k + 1:]:
                if a is not b and np.may_share_memory(a, b):
                    self.fail("two outputs share memory (views)")
        tr = Trace()
        tr.n_args = len(args)
        tr.steps = self.steps
        tr.refs = list(refs)
        tr.ref_meta = list(ref_meta)
        tr.out_tree = tree
        tr.views = views
        tr.has_rng = any(type(s) is Node and s.rng for s in self.steps)
        tr.n_values = self.n_values
        tr.value_meta = self.value_meta
        tr.out_ids = sorted({i for i in _leaves(tree)})
        tr.fn = tr.source = None  # generated at the first replay
        return tr

    def _inlined_constants(self):
        """(steps, refs, ref_meta) with the library constants (`tape.const`: a backward's ones
        and zeros) that only nodes read made constant inputs of those nodes, so the passes fold
        and simplify them (x * ones is x); a constant a guard, write or host call reads stays a
        ref."""
        inline = {i: obj._data for i, obj in self.refs if id(obj) in self.consts}
        for s in self.steps:
            if type(s) is Guard:
                inline.pop(s.value, None)
            elif type(s) is not Node:
                for i in s.input_ids():
                    inline.pop(i, None)
                inline.pop(getattr(s, "target_id", None), None)
        if not inline:
            return self.steps, self.refs, self.ref_meta
        steps = []
        for s in self.steps:
            if type(s) is Node and any(type(x) is int and x in inline for x in s.ins):
                node = Node(s.prim, tuple([("c", inline[x]) if type(x) is int and x in inline
                                           else x for x in s.ins]),
                            s.casts, s.quiet, s.outs, s.shapes, s.multi)
                node.rng = s.rng
                if s in self.applied:
                    self.applied.add(node)
                for i in s.outs:
                    self.producer[i] = node
                s = node
            steps.append(s)
        kept = [k for k, (i, _) in enumerate(self.refs) if i not in inline]
        return steps, [self.refs[k] for k in kept], [self.ref_meta[k] for k in kept]

    def _view_of_argument(self, i):
        """The argument that value `i` is a one-step view of (a single-output view primitive
        on the argument with constant other inputs), or None."""
        node = self.producer.get(i)
        if node is None or not node.prim.view_op or node.multi or node not in self.applied:
            return None
        x = node.ins[0]
        if type(x) is not int or x >= self.n_args or self.values.get(id(self.args[x]._data)) != x:
            return None
        if any(type(v) is int for v in node.ins[1:]):
            return None
        return x

    def _tree(self, x, arg_pos, out_arrays):
        if isinstance(x, Tensor):
            k = arg_pos.get(id(x))
            if k is not None:
                return ("arg", k)
            i = self.values.get(id(x._data))
            if i is None:
                self.fail("an output tensor that no traced value owns")
            if i in self.ref_ids:
                return ("obj", x)
            out_arrays.append((i, x._data))
            return ("v", i)
        if type(x) is tuple:
            return ("tuple", [self._tree(v, arg_pos, out_arrays) for v in x])
        if type(x) is list:
            return ("list", [self._tree(v, arg_pos, out_arrays) for v in x])
        if type(x) is dict:
            return ("dict", [(k, self._tree(v, arg_pos, out_arrays)) for k, v in x.items()])
        if x is None or type(x) in (bool, int, float, str):
            return ("c", x)
        self.fail(f"an output of type {type(x).__name__}")


# ---- patching Tensor methods while any capture runs ------------------------------------------------

_GUARDED = ("__bool__", "__int__", "__float__", "__index__", "__complex__", "item", "tolist")
_ESCAPING = ("asnumpy", "numpy", "__array__", "__repr__", "__str__", "__format__", "__reduce__")
_ORIGINAL = {name: Tensor.__dict__[name] for name in _GUARDED}
_patch_lock = threading.Lock()
_patch_count = 0
_saved = []


def _current():
    return _tape._state.capture if _tape._capturing else None


def _guarded_method(name, orig):
    def method(self, *args, **kwargs):
        rec = _current()
        if rec is None or rec.in_conversion:
            return orig(self, *args, **kwargs)
        rec.in_conversion += 1
        try:
            result = orig(self, *args, **kwargs)
        finally:
            rec.in_conversion -= 1
        rec.conversion(self, name, args + tuple(kwargs.values()), result)
        return result
    method.__name__ = name
    return method


def _escaping_method(name, orig, reason=None):
    reason = reason or f"tensor data leaves the trace ({name}: NumPy, print or str)"

    def method(self, *args, **kwargs):
        rec = _current()
        if rec is not None and rec.escape is None and not rec.in_conversion:
            try:
                rec.fail(reason)
            except Escape:
                pass
        return orig(self, *args, **kwargs)
    method.__name__ = name
    return method


def _patched_init(orig):
    def __init__(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        rec = _current()
        if rec is not None:
            rec.constructed(self, args[0] if args else kwargs.get("input_data"),
                            _called_from_library(sys._getframe(1)))
    return __init__


def _patched_from_numpy(orig):
    def from_numpy(array):
        t = orig(array)
        rec = _current()
        if rec is not None:
            rec.constructed(t, array, _called_from_library(sys._getframe(1)))
        return t
    return staticmethod(from_numpy)


def _called_from_library(frame):
    return frame.f_code.co_filename.startswith(_MINISPORE_DIR)


def _patched_print(orig):
    def print_(*args, **kwargs):
        rec = _current()
        if rec is not None and rec.escape is None:
            try:
                rec.fail("print (a Python side effect)")
            except Escape:
                pass
        return orig(*args, **kwargs)
    return print_


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def install():
    """Patch the conversion methods (counted: one patch for all running captures)."""
    global _patch_count
    with _patch_lock:
        _patch_count += 1
        if _patch_count > 1:
            return
        for cls in [Tensor, *_subclasses(Tensor)]:
            for name in _GUARDED + _ESCAPING:
                if name in cls.__dict__:
                    orig = cls.__dict__[name]
                    _saved.append((cls, name, orig))
                    guarded = name in _GUARDED and cls is Tensor  # replayed as Tensor's
                    setattr(cls, name, _guarded_method(name, orig) if guarded else
                            _escaping_method(name, orig))
        # A Parameter's copy holds this call's values: a trace would read them again (stale)
        _saved.append((Parameter, "clone", Parameter.__dict__["clone"]))
        Parameter.clone = _escaping_method("clone", Parameter.__dict__["clone"],
                                           "Parameter.clone/copy (a copy of its values made "
                                           "outside the trace)")
        _saved.append((Tensor, "__init__", Tensor.__dict__["__init__"]))
        Tensor.__init__ = _patched_init(Tensor.__dict__["__init__"])
        _saved.append((Tensor, "from_numpy", Tensor.__dict__["from_numpy"]))
        Tensor.from_numpy = _patched_from_numpy(Tensor.__dict__["from_numpy"].__func__)
        _saved.append((builtins, "print", builtins.print))
        builtins.print = _patched_print(builtins.print)


def uninstall():
    global _patch_count
    with _patch_lock:
        _patch_count -= 1
        if _patch_count:
            return
        while _saved:
            owner, name, orig = _saved.pop()
            setattr(owner, name, orig)


def capture(fn, args, kwargs, arg_tensors, recorder=None):
    """Run fn(*args, **kwargs) eagerly while recording. Returns (result, Trace or None, reason,
    the outside Tensors the trace reads by reference). `recorder`: a Recorder (subclass) to use."""
    rec = Recorder(arg_tensors) if recorder is None else recorder
    clock = _writes.clock
    install()
    prev = _tape._state.capture
    _tape._state.capture = rec
    with _tape._active_lock:
        _tape._capturing += 1
    try:
        result = fn(*args, **kwargs)
    finally:
        with _tape._active_lock:
            _tape._capturing -= 1
        _tape._state.capture = prev
        uninstall()
    if _writes.clock - clock != rec.host_writes:
        return result, None, (f"an in-place write while capturing (not captured yet), in "
                              f"{getattr(fn, '__qualname__', type(fn).__name__)}"), ()
    try:
        return result, rec.finish(result, arg_tensors), None, rec.outside_refs()
    except Escape as e:
        return result, None, str(e), ()
