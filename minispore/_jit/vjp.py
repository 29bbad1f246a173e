"""A jitted function under `grad` / `value_and_grad`: its forward replayed from a trace and put on
the tape as ONE node, whose backward replays the captured VJP graph (docs/graph_mode.md, "Under
a gradient transform").

The call that captures runs eagerly on the transform's tape, as without `jit`, and the nodes it
records there become the node's template: each node's primitive, its slots renumbered into a
private slot space, what its bprop reads as references to traced values. A replay runs the
forward trace, whose outputs include every forward value a bprop reads (saved values), and
appends one node reading the call's differentiable inputs. Its bprop rebuilds the template's
nodes over the saved values and walks them back as the eager walk would, recorded into a VJP
trace the first time for each set of outputs that got cotangents, replayed after that.

Each use of an input by a node is its own input of the one node, in the order the eager walk
reaches them, so the engine adds their gradients into the input's slot in eager order (a
pre-summed gradient would differ in the last bits whenever the input is used again outside).

At second order (grad of grad, plain reverse mode: the tape shared by exactly two transforms)
the replayed forward is one node whose outputs are the call's tracked outputs and the saved values
the template's bprops read. The inner walk reaching it runs the first backward, with the leaves'
gradient accumulation, as a jitted function of (cotangents, the leaves' gradients so far, saved
values): one node again, whose bprop is the compiled VJP of that backward. Elsewhere above first
order (forward mode, hvp, saved-tensor hooks, third order) the forward still replays but the
template's nodes are spliced onto the tape as eager records them.
"""
import numpy as np

from .._autodiff import tape as _tape
from .._autodiff.engine import backward
from ..common import _writes
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from . import capture as _capture
from .capture import Escape, Guard, Node, Recorder, Trace
from .pipeline import compile_trace

_ndarray = np.ndarray
_new = object.__new__


class Refused(Exception):
    """The eager record of a call cannot become a template (the key then runs eagerly)."""


class GradTrace:
    """One forward trace under a gradient transform, its template and its VJP traces."""

    __slots__ = ("checked", "fwd", "jitted", "n_args", "n_internal", "n_slots", "out_pos",
                 "out_tree", "outs", "param_mask", "param_refs", "prim", "prim2", "saved_ids",
                 "saved_src", "second", "template", "use_slots", "uses", "views", "vjps")

    def text(self):
        parts = ["# forward (saved values returned)", self.fwd.text()]
        for mask, v in self.vjps.items():
            if type(v) is tuple:
                parts += [f"# vjp for cotangents {list(mask)}", v[0].text()]
        if type(self.second) is _SecondOrder:
            for mask, v in self.second.vjps.items():
                if type(v) is tuple:
                    parts += [f"# second order: vjp for cotangents on the outputs and saved "
                              f"values {list(mask)}", v[0].text()]
            for key, (_, jitted) in self.second.backs.items():
                parts += [f"# second order: first backward for cotangents {list(key[0])}",
                          *jitted.graphs()]
        return "\n".join(parts)

    def tracked_outs(self):
        return [(i, s) for i, s in self.outs if s is not None]

    def _prepare(self):
        """Positions in the forward trace's outputs, computed once it is optimised."""
        pos = {i: k for k, i in enumerate(self.fwd.out_ids)}
        self.out_pos = [(i, pos[i], slot) for i, slot in self.outs]
        self.saved_src = {i: (i, True) if i < self.n_args else (pos[i], False)
                          for i in self.saved_ids}

    def replay(self, arg_arrays, args):
        """The call's result, with one node on the current tape; None on a miss."""
        return self.run(arg_arrays, args)[1]

    def run(self, arg_arrays, args):
        """(True, the call's result) with one node on the current tape, or (False, None) on a
        miss (as Trace.run)."""
        tape = _tape._state.tape
        tok = tape.token
        params = tape.params
        if [id(p) in params for p in self.param_refs] != self.param_mask or \
                any(o._tape is tok for o in self.checked):
            return False, None
        fn = self.fwd.fn
        if fn is None:
            fn = self.fwd.lower()
        outs = fn(arg_arrays)
        if outs is None:
            return False, None
        if self.out_pos is None:
            self._prepare()
        recorded = _tape._packing or _tape._state.recorded_walk  # forward mode, hooks
        if recorded or tape.depth > self.jitted.one_node_depth:
            if not recorded and tape.depth == 2:
                plan = self.second
                if plan is None:
                    plan = self.second = _second_order_plan(self)
                if type(plan) is _SecondOrder:
                    return True, self._second_order(plan, outs, args, tape)
            return True, self._splice(outs, args, tape)
        made, result = self._outputs(outs, args, lambda a, p: _tape._tracked(a, tape))
        spec = [(t._slot, t._data.shape, t._data.dtype) for t in made.values()
                if t._tape is tok]
        if spec:
            ins = tuple([args[src]._slot if type(src) is int else params[id(src)]
                         for src in self.uses])
            tape.nodes.append((self.prim, ins, _tape.needs_of(ins), tuple(spec),
                               (*args, *self.param_refs, *made.values(), _Saved(args, outs)),
                               _writes.clock, None))
        return True, result

    def _outputs(self, outs, args, track):
        """value id -> returned Tensor (`track(array, private slot)` for the tracked ones), and
        the call's result."""
        made = {}
        for i, k, p in self.out_pos:
            made[i] = _tape.wrap(outs[k]) if p is None else track(outs[k], p)
        for i, (prim, k, rest) in self.views.items():  # as eager: views of their argument
            _tape._note_views(prim, (args[k], *rest), made[i])
        return made, _capture._build(self.out_tree, None, args, made, self.views)

    def _second_order(self, plan, outs, args, tape):
        """The call's result, with one node whose outputs are the tracked outputs and the
        tracked saved values (`plan.fout_src`), its inputs one per use of a leaf."""
        made, result = self._outputs(outs, args, lambda a, p: _tape._tracked(a, tape))
        src = self.saved_src
        ftensors = [made[i] if kind == "out" else _tape._tracked(
            args[src[i][0]]._data if src[i][1] else outs[src[i][0]], tape)
            for kind, i in plan.fout_src]
        if ftensors:
            params = tape.params
            ins = tuple([args[s]._slot if type(s) is int else params[id(s)]
                         for s in self.uses])
            spec = tuple([(t._slot, t._data.shape, t._data.dtype) for t in ftensors])
            bundle = _Saved(args, outs)
            bundle.ftensors = ftensors
            tape.nodes.append((self.prim2, ins, _tape.needs_of(ins), spec,
                               (*args, *self.param_refs, *ftensors, bundle),
                               _writes.clock, None))
            self.jitted.stats["grad2_replays"] += 1
        return result

    def _splice(self, outs, args, tape):
        """The template's nodes appended to the tape as eager records them (slots renumbered,
        saved values over the replay's arrays): a backward walk that is itself recorded (grad
        of grad, forward mode, hvp) then records and walks exactly eager's operations."""
        tok = tape.token
        base = tape.n_slots
        tape.n_slots = base + self.n_internal
        by_slot = {}

        def track(a, p):
            by_slot[p] = t = _at_slot(a, tok, base + p)
            return t
        _, result = self._outputs(outs, args, track)
        params = tape.params
        leaf = [args[src]._slot if type(src) is int else params[id(src)] for src in self.uses]
        n = self.n_internal
        bundle, src = _Saved(args, outs), self.saved_src

        def array(i):
            return bundle.array(src[i])
        untracked = {}
        clock = _writes.clock
        for prim, ins, needs, out, saved, meta in self.template:
            ins = tuple([s if s < 0 else base + s if s < n else leaf[s - n] for s in ins])
            out = base + out if type(out) is int else \
                tuple([(base + s if s >= 0 else -1, shp, dt) for s, shp, dt in out])
            saved = _materialize_tracked(saved, array, by_slot, untracked, args, base, tok)
            if _tape._packing:
                saved = _tape._pack(saved)
            tape.nodes.append((prim, ins, needs, out, saved, clock, meta))
        self.jitted.stats["spliced"] += 1
        return result


class _Saved:
    """What a replayed call's node keeps for its bprop: the arguments and the forward trace's
    outputs (the saved values among them); at second order also the node's output Tensors."""

    __slots__ = ("args", "ftensors", "outs")

    def __init__(self, args, outs):
        self.args = args
        self.outs = outs

    def array(self, src):
        k, is_arg = src
        return self.args[k]._data if is_arg else self.outs[k]  # an argument as a bprop reads it

    def arrays(self, gt):
        """value id -> array of every saved value."""
        return {i: self.array(src) for i, src in gt.saved_src.items()}


class VjpPrim:
    """The tape node of a replayed call: its bprop is the VJP trace of its forward."""

    differentiable = True
    broadcasts = False
    view_op = False
    keeps_missing = True  # an output without a cotangent gets none (eager skips its nodes)

    __slots__ = ("gt", "name")

    def __init__(self, gt, name):
        self.gt = gt
        self.name = name

    def bprop(self, saved, dout, needs):
        bundle = saved[-1]
        gt = self.gt
        if _tape._active and _tape._state.tape is not None:
            # recorded (a transform runs this walk): the template's bprops run as recorded ops
            return _walk(gt, bundle.arrays(gt), dout, True)
        return _vjp(gt, gt.vjps, bundle, dout, None)


def _vjp(gt, vjps, bundle, dout, slots):
    """The per-use gradients for cotangents `dout` on the template slots `slots` (None: the
    tracked outputs), by the VJP trace captured for their mask in `vjps`."""
    mask = tuple([d is not None for d in dout])
    cots = [d for d in dout if d is not None]
    entry = vjps.get(mask)
    if entry is None:
        return _capture_vjp(gt, vjps, bundle.arrays(gt), dout, cots, mask, slots)
    if type(entry) is tuple:
        trace, ids, copies, order = entry
        fn = trace.fn
        if fn is None:
            fn = trace.lower()
        array = bundle.array
        outs = fn([c._data for c in cots] + [array(src) for src in order])
        if outs is not None:
            gt.jitted.stats["vjp_replays"] += 1
            vals = dict(zip(trace.out_ids, outs))
            return tuple([None if i is None else
                          _tape.wrap(vals[i].copy() if i in copies else vals[i])
                          for i in ids])
    gt.jitted.stats["vjp_eager"] += 1
    return _walk(gt, bundle.arrays(gt), dout, False, slots=slots)


# ---- second order: the first backward as a jitted function ------------------------------------

class _SecondOrder:
    """How a GradTrace runs as one node at second order: its outputs (`fout_slots`, template
    slots: the tracked outputs, then the tracked saved values not among them; `fout_src`
    ("out" or "saved", value id)), and the saved values its first backward reads, as the
    arguments of that backward (`saved_ids`, each from `saved_from`: ("f", output position),
    ("arg", argument position), ("obj", object) or ("wrap", value id)), then the Tensors the
    template holds by reference (`held`, not Parameters: a trace reads them as arguments)."""

    __slots__ = ("backs", "fout_slots", "fout_src", "held", "saved_from", "saved_ids", "vjps")


def _second_order_plan(gt):
    """The _SecondOrder of `gt`, or a reason it cannot run so (then it splices)."""
    plan = _SecondOrder()
    plan.fout_slots, plan.fout_src = [], []
    for i, _, p in gt.out_pos:
        if p is not None and p not in plan.fout_slots:
            plan.fout_slots.append(p)
            plan.fout_src.append(("out", i))
    tracks, held = {}, {}

    def visit(x):
        kind = x[0]
        if kind == "v":
            tracks.setdefault(x[1], set()).add(x[2])
        elif kind == "a":
            tracks.setdefault(x[1], set())
        elif kind == "obj" and isinstance(x[1], Tensor) and not isinstance(x[1], Parameter):
            held[id(x[1])] = x[1]  # read by reference: an argument of the backward too
        elif kind in ("tuple", "list"):
            for e in x[1]:
                visit(e)
    for entry in gt.template:
        visit(entry[4])
    plan.saved_ids, plan.saved_from = sorted(tracks), []
    for i in plan.saved_ids:
        seen = tracks[i]
        if len(seen) > 1:
            return "a value saved both tracked and untracked"
        track = next(iter(seen)) if seen else None
        if track is None:
            plan.saved_from.append(("wrap", i))
        elif track[0] == "leaf":
            src = track[1]
            plan.saved_from.append(("arg", src) if type(src) is int else ("obj", src))
        else:
            p = track[1]
            if p not in plan.fout_slots:
                plan.fout_slots.append(p)
                plan.fout_src.append(("saved", i))
            plan.saved_from.append(("f", plan.fout_slots.index(p)))
    plan.held = list(held.values())
    plan.backs, plan.vjps = {}, {}
    return plan


class SecondOrderPrim:
    """The tape node of a call replayed at second order. The inner transform's (recorded) walk
    calls `bprop_into`, which runs the first backward, the leaves' accumulation included, as
    a jitted function; the outermost walk calls `bprop`, the compiled VJP of the forward from
    cotangents on the outputs and on the saved values."""

    differentiable = True
    broadcasts = False
    view_op = False
    keeps_missing = True
    accumulates = True  # a nested walk calls bprop_into (engine._walk)

    __slots__ = ("gt", "name")

    def __init__(self, gt, name):
        self.gt = gt
        self.name = name

    def bprop(self, saved, dout, needs):
        gt = self.gt
        bundle = saved[-1]
        if _tape._active and _tape._state.tape is not None:  # not a walk this node expects
            return _walk(gt, bundle.arrays(gt), dout, True, _tensors_tracked(gt, bundle),
                         gt.second.fout_slots)
        return _vjp(gt, gt.second.vjps, bundle, dout, gt.second.fout_slots)

    def bprop_into(self, saved, dout, ins, grads):
        """The recorded first backward: the gradient of every leaf slot in `ins` set in
        `grads` as eager's walk leaves it (its gradient so far plus each use's, in order)."""
        gt = self.gt
        plan = gt.second
        bundle = saved[-1]
        leaves = list(dict.fromkeys(ins))
        group = tuple([leaves.index(s) for s in ins])
        curs = [grads[s] for s in leaves]
        key = (tuple([d is not None for d in dout]), tuple([c is not None for c in curs]),
               group)
        ts = [d for d in dout if d is not None] + [c for c in curs if c is not None] + \
            _backward_inputs(gt, plan, bundle) + plan.held
        back = plan.backs.get(key)
        if back is None:
            fn = _first_backward_of(gt, key)
            jitted = type(gt.jitted)(fn, backend=gt.jitted.backend)
            jitted.one_node_depth = 2  # its node is walked by the outermost walk only
            back = plan.backs[key] = (fn, jitted)
        fn, jitted = back
        tape = _tape._state.tape
        stats = gt.jitted.stats
        if tape is not None and tape.depth == 2 and not _tape._packing and \
                not _tape._state.recorded_walk:
            own = jitted.stats
            before = own["replays"], own["captures"]
            finals = jitted(*ts)
            if own["replays"] != before[0]:
                stats["grad2_bwd_replays"] += 1
            elif own["captures"] != before[1]:
                stats["grad2_bwd_captures"] += 1
            else:
                stats["grad2_bwd_eager"] += 1
            for reason, n in own["fallbacks"].items():
                stats["fallbacks"][f"the first backward at second order: {reason}"] = n
        else:
            finals = fn(*ts)
            stats["grad2_bwd_eager"] += 1
        for s, g in zip(leaves, finals):
            grads[s] = g


def _backward_inputs(gt, plan, bundle):
    """The saved-value Tensors the first backward reads, as eager's bprops would read them."""
    out, wrapped = [], {}
    for kind, v in plan.saved_from:
        if kind == "f":
            out.append(bundle.ftensors[v])
        elif kind == "arg":
            out.append(bundle.args[v])
        elif kind == "obj":
            out.append(v)
        else:
            a = bundle.array(gt.saved_src[v])
            t = wrapped.get(id(a))
            if t is None:
                t = wrapped[id(a)] = _tape.wrap(a)
            out.append(t)
    return out


def _tensors_tracked(gt, bundle):
    """value id -> the Tensor the first backward reads for it."""
    return dict(zip(gt.second.saved_ids, _backward_inputs(gt, gt.second, bundle)))


class _FirstBackward:
    """What the first backward for one key reads (one object: a jitted function's closure is
    checked object by object at every call)."""

    __slots__ = ("cot_slots", "cur_slots", "leaf_slots", "n_cots", "n_curs", "n_slots", "nodes",
                 "saved_ids")


def _first_backward_of(gt, key):
    """The first backward for `key` (cotangent mask, which leaves have a gradient so far, the
    leaf of each use) as a function of (cotangents, those gradients, saved values): the
    template's nodes walked recorded, each leaf one slot seeded with its gradient so far, so
    the walk adds each use into it as eager's walk adds it into the leaf's slot."""
    mask, has_cur, group = key
    n = gt.n_internal
    fb = _FirstBackward()
    fb.n_cots, fb.n_curs = sum(mask), sum(has_cur)
    fb.cot_slots = [p for p, m in zip(gt.second.fout_slots, mask) if m]
    fb.cur_slots = [n + j for j, h in enumerate(has_cur) if h]
    fb.leaf_slots = [n + j for j in range(len(has_cur))]
    fb.n_slots = n + len(has_cur)
    fb.nodes = [(prim, tuple([s if s < n else n + group[s - n] for s in ins]), needs, out, saved,
                 meta) for prim, ins, needs, out, saved, meta in gt.template]
    fb.saved_ids = gt.second.saved_ids

    def first_backward(*ts):
        n_cots, n_in = fb.n_cots, fb.n_cots + fb.n_curs
        tensors = dict(zip(fb.saved_ids, ts[n_in:]))
        clock = _writes.clock
        tape = _tape.Tape()
        tape.nodes = [(prim, ins, needs, out, _materialize(saved, tensors), clock, meta)
                      for prim, ins, needs, out, saved, meta in fb.nodes]
        tape.n_slots = fb.n_slots
        roots = list(zip(fb.cot_slots, ts[:n_cots])) + list(zip(fb.cur_slots, ts[n_cots:n_in]))
        grads = backward(tape, 0, roots, True)
        return tuple([grads[s] for s in fb.leaf_slots])
    first_backward.__name__ = f"first_backward({gt.prim.name})"
    return first_backward


def _materialize(x, tensors):
    """A template's saved entry over `tensors` (value id -> Tensor)."""
    kind, v = x[0], x[1]
    if kind == "v":
        return tensors[v]
    if kind == "a":
        return tensors[v]._data
    if kind in ("obj", "c"):
        return v
    items = [_materialize(e, tensors) for e in v]
    return items if kind == "list" else tuple(items)


def _materialize_tracked(x, array, by_slot, untracked, args, base, tok):
    """A template's saved entry as eager saved it: a traced value the tape tracked becomes the
    Tensor of its spliced slot (`base` + its private slot), an argument or Parameter the
    caller's own object, an untracked value an untracked Tensor."""
    kind, v = x[0], x[1]
    if kind == "v":
        track = x[2]
        if track is None:
            t = untracked.get(v)
            if t is None:
                t = untracked[v] = _tape.wrap(array(v))
            return t
        if track[0] == "leaf":
            src = track[1]
            return args[src] if type(src) is int else src
        t = by_slot.get(track[1])
        if t is None:
            t = by_slot[track[1]] = _at_slot(array(v), tok, base + track[1])
        return t
    if kind == "a":
        return array(v)
    if kind in ("obj", "c"):
        return v
    items = [_materialize_tracked(e, array, by_slot, untracked, args, base, tok) for e in v]
    return items if kind == "list" else tuple(items)


def _at_slot(arr, tok, slot):
    t = _new(Tensor)
    t._data = arr
    t._tape = tok
    t._slot = slot
    t._version = 0
    return t


def _tensors(gt, arrays):
    """value id -> a Tensor over its saved array (one Tensor per array)."""
    by_array, out = {}, {}
    for i in gt.saved_ids:
        a = arrays[i]
        t = by_array.get(id(a))
        if t is None:
            t = by_array[id(a)] = _tape.wrap(a)
        out[i] = t
    return out


def _walk(gt, arrays, dout, nested, tensors=None, slots=None):
    """The per-use gradients: the template's nodes rebuilt over the saved values and walked
    back from the cotangents (on the template slots `slots`, None: the tracked outputs) as the
    eager walk walks them."""
    if tensors is None:
        tensors = _tensors(gt, arrays)
    clock = _writes.clock
    tape = _tape.Tape()
    tape.nodes = [(prim, ins, needs, out, _materialize(saved, tensors), clock, meta)
                  for prim, ins, needs, out, saved, meta in gt.template]
    tape.n_slots = gt.n_slots
    if slots is None:
        slots = [slot for _, slot in gt.tracked_outs()]
    roots = [(slot, d) for slot, d in zip(slots, dout) if d is not None]
    grads = backward(tape, 0, roots, nested)
    return tuple([grads[s] for s in gt.use_slots])


class _VjpRecorder(Recorder):
    """Records the backward walk; its result is the per-use gradient list."""

    def finish(self, result, args):
        if self.escape is not None:
            raise Escape(self.escape)
        if any(type(s) not in (Node, Guard) for s in self.steps):
            self.fail("an in-place write or host call in the backward")
        ids, copies = [], set()
        for g in result:
            if g is None:
                ids.append(None)
                continue
            i = self.ref(g)
            if i in self.ref_ids:  # a constant or Parameter: each call gets its own array
                copies.add(i)
            ids.append(i)
        tr = Trace()
        tr.n_args = len(args)
        tr.refs = list(self.refs)
        tr.ref_meta = list(self.ref_meta)
        tr.steps = self.steps
        tr.out_tree = ("c", None)
        tr.views = {}
        tr.has_rng = any(type(s) is Node and s.rng for s in self.steps)
        tr.n_values = self.n_values
        tr.value_meta = self.value_meta
        tr.out_ids = sorted({i for i in ids if i is not None})
        tr.fn = tr.source = None
        return tr, ids, copies


def _capture_vjp(gt, vjps, arrays, dout, cots, mask, slots):
    """The first backward for this cotangent mask: the eager walk, recorded into a VJP trace."""
    tensors = _tensors(gt, arrays)
    order, seen, saved_list = [], set(), []
    for i in gt.saved_ids:
        t = tensors[i]
        if id(t) not in seen:
            seen.add(id(t))
            order.append(i)
            saved_list.append(t)
    taken = {id(t._data) for t in saved_list}
    if any(id(c._data) in taken for c in cots) or len({id(c._data) for c in cots}) < len(cots):
        # one array per trace input: a cotangent that is also a saved value or another
        # cotangent (the shared ones sensitivity at second order) is captured over a copy
        own = []
        for c in cots:
            if id(c._data) in taken:
                c = _tape.wrap(c._data.copy())
            taken.add(id(c._data))
            own.append(c)
        it = iter(own)
        dout = tuple([None if d is None else next(it) for d in dout])
        cots = own
    inputs = cots + saved_list
    rec = _VjpRecorder(inputs)
    result, got, reason, _ = _capture.capture(
        lambda: _walk(gt, arrays, dout, False, tensors, slots), (), {}, inputs, recorder=rec)
    stats = gt.jitted.stats
    if got is None:
        vjps[mask] = reason
        fb = stats["fallbacks"]
        key = f"the backward of a jitted function: {reason}"
        fb[key] = fb.get(key, 0) + 1
        return result
    trace, ids, copies = got
    if trace.has_rng:
        vjps[mask] = "a random op in the backward"
        return result
    stats["vjp_captures"] += 1
    vjps[mask] = (compile_trace(gt.jitted, trace), ids, copies,
                  [gt.saved_src[i] for i in order])
    return result


# ---- building the template from the eager record of the capturing call ------------------------

def build(jitted, trace, rec, tape, start, slot_start, result, tensors, name):
    """The GradTrace of `trace` (captured by `rec` while `tape` recorded the call's nodes from
    `tape.nodes[start]`, slots from `slot_start`). Sets `trace.out_ids` to the forward outputs
    plus the saved values. Raises Refused."""
    tok = tape.token
    nodes = tape.nodes[start:]
    produced = {}
    for node in nodes:
        if getattr(node[0], "tape_bound", False):
            raise Refused(f"a '{node[0].name}' node (its backward runs on the tape itself)")
        out = node[3]
        for s in ((out,) if type(out) is int else [s for s, _, _ in out if s >= 0]):
            produced[s] = len(produced)
    if any(s >= slot_start and s in tape.hooks for s in produced):
        raise Refused("a tensor hook inside the function")
    sources = {}  # leaf slot -> argument position or Parameter
    for k, t in enumerate(tensors):
        if not isinstance(t, Parameter) and t._tape is tok:
            sources.setdefault(t._slot, k)
    params = [t for t in tensors if isinstance(t, Parameter)] + \
        [obj for _, obj in rec.refs if isinstance(obj, Parameter)]
    for p in params:
        slot = tape.params.get(id(p))
        if slot is not None:
            sources.setdefault(slot, p)
    n_internal = len(produced)
    uses, use_slots = [], []
    renamed = {}
    for idx in range(len(nodes) - 1, -1, -1):  # the walk's order
        prim, ins, needs, out, saved, epoch, meta = nodes[idx]
        new = []
        for s in ins:
            if s < 0:
                new.append(s)
            elif s in produced:
                new.append(produced[s])
            else:
                if s not in sources:
                    raise Refused("a tensor from outside that the gradient transform tracks")
                uses.append(sources[s])
                use_slots.append(n_internal + len(use_slots))
                new.append(use_slots[-1])
        renamed[idx] = tuple(new)
    values, ref_ids = rec.values, rec.ref_ids
    ref_obj = dict(rec.refs)
    saved_ids = set()

    def conv(x, derived):
        if isinstance(x, Tensor):
            i = values.get(id(x._data))
            if i is None:
                return ("obj", x)
            if i in ref_ids:
                return ("obj", ref_obj[i])
            saved_ids.add(i)
            track = None
            if x._tape is tok:
                p = produced.get(x._slot)
                if p is not None:
                    track = ("slot", p)
                elif x._slot in sources:
                    track = ("leaf", sources[x._slot])
                else:
                    raise Refused("a tensor from outside that the gradient transform tracks")
            return ("v", i, track)
        if type(x) is _ndarray:
            i = values.get(id(x))
            if i is not None and i not in ref_ids:
                saved_ids.add(i)
                return ("a", i)
            if derived:
                return ("c", None)  # a cache the primitive makes again (Conv2D's patches)
            raise Refused("NumPy data saved for the backward")
        if type(x) in (tuple, list):
            return ("tuple" if type(x) is tuple else "list", [conv(v, False) for v in x])
        return ("c", x)

    template = []
    for idx, (prim, ins, needs, out, saved, epoch, meta) in enumerate(nodes):
        derived = _derived_saves(prim)
        saved_t = ("tuple", [conv(v, k in derived) for k, v in enumerate(saved)])
        out = produced[out] if type(out) is int else \
            tuple([(produced[s] if s >= 0 else -1, shp, dt) for s, shp, dt in out])
        template.append((prim, renamed[idx], needs, out, saved_t, meta))
    gt = GradTrace()
    gt.n_args = trace.n_args
    gt.template = template
    gt.n_slots = n_internal + len(use_slots)
    gt.n_internal = n_internal
    gt.uses = uses
    gt.use_slots = use_slots
    outs = {}
    _pair(trace.out_tree, result, outs)
    gt.outs = []
    for i in sorted(outs):
        t = outs[i]
        if t._tape is tok:
            if t._slot not in produced:
                raise Refused("an output tracked outside the function's nodes")
            gt.outs.append((i, produced[t._slot]))
        else:
            gt.outs.append((i, None))
    gt.saved_ids = sorted(saved_ids)
    gt.out_tree = trace.out_tree
    gt.views = trace.views
    refs = [obj for _, obj in rec.refs]
    gt.param_refs = [p for p in refs if isinstance(p, Parameter)]
    gt.param_mask = [id(p) in tape.params for p in gt.param_refs]
    gt.checked = [o for o in refs if not isinstance(o, Parameter)]
    if any(o._tape is tok for o in gt.checked):
        raise Refused("a tensor from outside that the gradient transform tracks")
    gt.vjps = {}
    gt.out_pos = gt.saved_src = gt.second = None
    gt.jitted = jitted
    gt.prim = VjpPrim(gt, f"jit({name})")
    gt.prim2 = SecondOrderPrim(gt, f"jit({name})")
    trace.out_ids = sorted(set(trace.out_ids) | {i for i in saved_ids if i >= trace.n_args})
    return gt


def _pair(tree, x, out):
    """value id -> the eager result's Tensor for each ("v", id) leaf of `tree`."""
    kind = tree[0]
    if kind == "v":
        out[tree[1]] = x
    elif kind in ("tuple", "list"):
        for t, v in zip(tree[1], x):
            _pair(t, v, out)
    elif kind == "dict":
        for (k, t) in tree[1]:
            _pair(t, x[k], out)


_derived_cache = {}


def _derived_saves(prim):
    """Positions in `prim`'s saved tuple that hold a `derived_inputs` cache."""
    cls = type(prim)
    got = _derived_cache.get(cls)
    if got is None:
        derived = getattr(cls, "derived_inputs", ())
        inputs = getattr(cls, "inputs", ())
        names = {inputs[j] for j in derived if inputs != "*" and j < len(inputs)}
        got = _derived_cache[cls] = frozenset(
            k for k, s in enumerate(getattr(cls, "saves", ())) if s in names)
    return got

