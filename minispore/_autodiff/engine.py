"""The reverse walk over a tape segment, and the transforms built on it: grad, value_and_grad."""
import weakref

import numpy as np

from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..ops.operations.array_ops import Identity, sum_to
from ..ops.operations.math_ops import cast
from ..common import _writes
from . import tape as _tape
from .._quiet import _IGNORE, _reset as _quiet_reset, _set as _quiet_set
from . import hooks as _hooks
from .hooks import attach, run_tensor_hooks
from .tape import _state, apply, const, wrap



def _fit(g, shape, dtype):
    """g summed back to `shape` and cast to `dtype` (undoing broadcasting and promotion)."""
    if g._data.shape != shape:
        g = sum_to(g, shape)
    if g._data.dtype != dtype:
        g = cast(g, dtype)
    return g


def backward(tape, start, roots, nested):
    """Walk `tape.nodes[start:]` in reverse from `roots` [(slot, sensitivity Tensor)].

    Returns the list of accumulated gradients per slot (Tensors or None). When `nested`, an outer
    transform is recording: bprops record their ops and nothing is freed; otherwise each node is
    dropped (with what it saved) as soon as its bprop has run, and gradient buffers that the walk
    allocated itself are accumulated in place.

    Tensor hooks (`tape.hooks`) run on a slot's gradient once it is complete, i.e. when the walk
    reaches the node that produced the slot; slots produced before `start` (inputs, weights) are
    left to the caller.
    """
    token = _quiet_set(_IGNORE)  # perf: quiet_region's state, set without a context manager
    try:
        return _walk(tape, start, roots, nested)
    finally:
        _quiet_reset(token)


# Readiness hooks: tape -> {slot: callback(gradient or None)}, set while the tape records (the
# data-parallel reducer starts a bucket's all-reduce as soon as its weights' gradients are final).
# A first-order walk calls each callback once no later node can add to the slot: after the
# earliest node reading it. Nested walks ignore them (the gradients are recorded, not final).
class _ReadyHooks(weakref.WeakKeyDictionary):
    def __bool__(self):  # perf: every walk asks; WeakKeyDictionary's __len__ is Python code
        return bool(self.data)


ready_hooks = _ReadyHooks()


def _ready_plan(nodes, start, hooks, grads):
    """{node index: [(slot, callback)]}: each hooked slot under its earliest reader in
    `nodes[start:]`; slots no node reads are final now and fired at once."""
    first = {}
    for i in range(len(nodes) - 1, start - 1, -1):
        for s in nodes[i][1] if nodes[i] is not None else ():
            if s in hooks:
                first[s] = i
    plan = {}
    for s, callback in hooks.items():
        if s in first:
            plan.setdefault(first[s], []).append((s, callback))
        else:
            callback(grads[s])
    return plan


def _fire(fired, grads):
    for s, callback in fired:
        callback(grads[s])


def _walk(tape, start, roots, nested):
    nodes = tape.nodes
    grads = [None] * tape.n_slots
    owned = bytearray(tape.n_slots)  # 1 where grads[slot] is a buffer this walk allocated
    ready = ready_hooks.pop(tape, None) if ready_hooks else None

    def add(slot, g):
        cur = grads[slot]
        if cur is None:
            grads[slot] = g
        elif nested or _tape._capturing:  # a graph capture records the accumulation
            grads[slot] = cur + g
        elif owned[slot]:
            np.add(cur._data, g._data, out=cur._data)
        else:
            grads[slot] = wrap(cur._data + g._data)
            owned[slot] = 1

    for slot, sens in roots:
        if grads[slot] is None:
            grads[slot] = sens
        else:
            add(slot, sens)
    if ready is not None:
        ready = None if nested else _ready_plan(nodes, start, ready, grads)

    clock = _writes.clock
    hooks = tape.hooks or None
    # perf: one- and two-input nodes (nearly all) are unpacked by hand, and a slot's first
    # gradient is stored without a call.
    for i in range(len(nodes) - 1, start - 1, -1):
        if ready is not None and i + 1 in ready:
            _fire(ready.pop(i + 1), grads)
        prim, ins, needs, out, saved, epoch, meta = nodes[i]
        if type(out) is int:
            dout = grads[out]
            if dout is None:
                continue
            grads[out] = None
            if hooks is not None and out in hooks:
                dout = run_tensor_hooks(hooks[out], dout)
        else:
            dout = _gather_multi(grads, out, prim, hooks)
            if dout is None:
                continue
        if epoch != clock:  # something was written in place since this node ran
            _check_versions(prim, saved, epoch)
        if nested and type(out) is not int and getattr(prim, "accumulates", False):
            prim.bprop_into(saved, dout, ins, grads)  # a jitted call at second order (_jit/vjp.py)
            continue
        n = len(ins)
        if n == 1:
            g = prim.bprop(saved, dout, needs)[0]
            if g is not None:
                if meta is not None:
                    g = _fit(g, *meta[0])
                s0 = ins[0]
                if grads[s0] is None:
                    grads[s0] = g
                else:
                    add(s0, g)
        elif n == 2:
            s0, s1 = ins
            g0, g1 = prim.bprop(saved, dout, needs)
            if s0 >= 0 and g0 is not None:
                if meta is not None and meta[0] is not None:
                    g0 = _fit(g0, *meta[0])
                if grads[s0] is None:
                    grads[s0] = g0
                else:
                    add(s0, g0)
            if s1 >= 0 and g1 is not None:
                if meta is not None and meta[1] is not None:
                    g1 = _fit(g1, *meta[1])
                if grads[s1] is None:
                    grads[s1] = g1
                else:
                    add(s1, g1)
        else:
            gs = prim.bprop(saved, dout, needs)
            for k, slot in enumerate(ins):
                if slot >= 0:
                    g = gs[k]
                    if g is not None:
                        if meta is not None and meta[k] is not None:
                            g = _fit(g, *meta[k])
                        add(slot, g)
        if not nested:
            nodes[i] = None  # frees what the node saved
    if ready:
        _fire(ready.pop(start), grads)
    return grads


def _gather_multi(grads, out, prim, hooks):
    """The tuple of output gradients of a multi-output node (zeros where only some arrived, or
    None for a primitive that sets `keeps_missing`); None when none did."""
    douts = [grads[s] if s >= 0 else None for s, _, _ in out]
    if all(d is None for d in douts):
        return None
    zeros = not getattr(prim, "keeps_missing", False)
    for k, (s, shape, dtype) in enumerate(out):
        if s >= 0:
            grads[s] = None
            if douts[k] is None:
                if zeros:
                    douts[k] = const(np.zeros(shape, dtype))
            elif hooks is not None and s in hooks:
                douts[k] = run_tensor_hooks(hooks[s], douts[k])
    return tuple(douts)


def _check_versions(prim, saved, epoch):
    for k, v in enumerate(saved):
        if isinstance(v, Tensor) and _writes.version_of(v) > epoch:
            name = getattr(v, "name", None)  # a Parameter's name says which one
            what = f"Parameter '{name}', " if isinstance(name, str) else ""
            raise RuntimeError(
                f"For '{prim.name}', a tensor needed for its gradient (saved value {k}: {what}"
                f"shape {v.shape}, dtype {v.dtype}) was modified in place after it was used; "
                "the gradient would be wrong. Write to a copy instead.")


# ---- transforms ----------------------------------------------------------------------------------

class _Session:
    """One transform's use of the thread's tape: joins the outer transform's tape if there is
    one, else starts a new one; tracks this transform's inputs and weights; always restores."""

    __slots__ = ("tape", "outer", "added_params", "stopped")

    def __enter__(self):
        self.outer = _state.tape
        self.tape = _tape.begin_transform(self.outer)
        self.added_params = []
        self.stopped = False
        return self

    def __exit__(self, *exc):
        tape = self.tape
        for p in self.added_params:
            del tape.params[id(p)]
        if self.stopped:
            tape.depth -= 1
            _state.tape = self.outer
        else:
            _tape.end_transform(tape, self.outer)
        self.tape = self.added_params = None
        return False

    def stop_recording(self):
        """Record nothing more in this session (an outermost transform's first-order walk):
        `pause_recording` until the session ends, without the resume it would pay."""
        self.stopped = _tape.stop_recording()

    def track_input(self, t):
        """A fresh tracked Tensor standing for input `t` (linked to `t` if an outer transform
        tracks it), so this transform's gradient counts only uses of the argument."""
        tape = self.tape
        w = wrap(t._data)
        if t._tape is tape.token:
            _tape.record_node(tape, _IDENTITY, (t._slot,), w, ())
        else:
            w._tape = tape.token
            w._slot = tape.new_slot()
        if _hooks.registered:
            hooks = getattr(t, "_hooks", None)  # hooks registered on the caller's tensor apply
            if hooks:
                attach(tape, w._slot, hooks)
        return w

    def track_param(self, p):
        tape = self.tape
        slot = tape.params.get(id(p))
        if slot is None:
            slot = tape.params[id(p)] = tape.new_slot()
            self.added_params.append(p)
            if _hooks.registered:
                hooks = getattr(p, "_hooks", None)
                if hooks:
                    attach(tape, slot, hooks)
        return slot


def _flatten_outputs(out, has_aux, what):
    if out is None:
        raise TypeError(f"For '{what}', the function returned None: it must return a Tensor or "
                        "a tuple of Tensors")
    if has_aux:
        if not isinstance(out, tuple) or len(out) < 2:
            raise ValueError(f"For '{what}' with has_aux=True, the function must return a tuple "
                             f"of at least two outputs (origin fn requires more than one outputs), "
                             f"but it returned {type(out).__name__}")
        return [out[0]]
    if isinstance(out, (tuple, list)):
        flat = []
        for o in out:
            flat.extend(_flatten_outputs(o, False, what) if isinstance(o, (tuple, list)) else [o])
        return flat
    return [out]


def _check_output(o, what):
    if not isinstance(o, Tensor):
        raise TypeError(f"For '{what}', every differentiated output must be a Tensor, but got "
                        f"{type(o).__name__}")
    if o._data.dtype.kind not in "fc":
        raise TypeError(f"For '{what}', differentiated outputs must be floating point, but an "
                        f"output has dtype {o.dtype}")


def _normalize_positions(grad_position, what):
    if grad_position is None:
        return None, False
    if isinstance(grad_position, bool):
        raise TypeError(f"For '{what}', 'grad_position' must be an int or a tuple of ints, "
                        f"but got bool")
    if isinstance(grad_position, int):
        positions, single = (grad_position,), True
    elif isinstance(grad_position, (tuple, list)):
        positions = tuple(grad_position)
        if not positions:
            raise ValueError(f"For '{what}', 'grad_position' must not be empty")
        single = len(positions) == 1
    else:
        raise TypeError(f"For '{what}', 'grad_position' must be an int or a tuple of ints, "
                        f"but got {type(grad_position).__name__}")
    for p in positions:
        if not isinstance(p, int) or isinstance(p, bool):
            raise TypeError(f"For '{what}', every element of 'grad_position' must be an int, "
                            f"but got {p!r}")
        if p < 0:
            raise ValueError(f"For '{what}', 'grad_position' must be non-negative, got {p}")
    if len(set(positions)) != len(positions):
        raise ValueError(f"For '{what}', 'grad_position' must not repeat a position, "
                         f"got {positions}")
    return positions, single


def _normalize_weights(weights, what):
    if weights is None:
        return None, False
    if isinstance(weights, Parameter):
        return (weights,), True
    if isinstance(weights, (list, tuple)):
        for k, w in enumerate(weights):
            if not isinstance(w, Parameter):
                raise TypeError(f"For '{what}', 'weights' must hold Parameters only, but element "
                                f"{k} is a {type(w).__name__}")
        return tuple(weights), False
    raise TypeError(f"For '{what}', 'weights' must be a Parameter, a list or tuple of "
                    f"Parameters or a ParameterTuple, but got {type(weights).__name__}")


def _zeros_like_array(a):
    return const(np.zeros(a.shape, a.dtype))


def _result_grad(grads, slot, like):
    g = grads[slot] if slot is not None else None
    if g is None:
        return _zeros_like_array(like)
    if g._data.shape != like.shape or g._data.dtype != like.dtype:
        # A bprop returned a wrongly shaped gradient: never hand it to the user.
        raise RuntimeError(f"internal error: a gradient of shape {g._data.shape} and dtype "
                           f"{g._data.dtype} was computed for an input of shape {like.shape} and "
                           f"dtype {like.dtype}")
    return g


_IDENTITY = Identity()  # links an input's wrapper to the outer tape's slot; copies results


def distinct(results, *taken):
    """`results` (Tensors) with a copy in place of each one whose memory another result, or a
    Tensor in the sequences `taken` (the caller's inputs, sensitivities, tangents; other items
    are skipped), already holds: every returned gradient is its own array, so editing one in
    place changes nothing else. The copy is an `Identity`, recorded when an outer transform
    tracks the result."""
    seen = set()
    for group in taken:
        for t in group:
            if isinstance(t, Tensor):
                a = t._data
                seen.add(id(a if a.base is None else _writes.memory_owner(a)))
    out = []
    for t in results:
        a = t._data
        key = id(a if a.base is None else _writes.memory_owner(a))
        if key in seen:
            t = apply(_IDENTITY, (t,))
        else:
            seen.add(key)
        out.append(t)
    return tuple(out)


def _stop(o):
    if isinstance(o, Tensor):
        return wrap(o._data)
    if isinstance(o, tuple):
        return tuple(_stop(v) for v in o)
    if isinstance(o, list):
        return [_stop(v) for v in o]
    return o


def _differentiate(fn, args, kwargs, positions, weights, has_aux, sens, what):
    """Run fn under a transform; returns (output, input gradients, weight gradients)."""
    if positions is not None:
        for p in positions:
            if p >= len(args):
                raise ValueError(f"For '{what}', 'grad_position' {p} is out of range: the "
                                 f"function was called with {len(args)} positional arguments")
            a = args[p]
            if not isinstance(a, Tensor):
                raise TypeError(f"For '{what}', the argument at grad_position {p} must be a "
                                f"Tensor, but got {type(a).__name__}")
            if a._data.dtype.kind not in "fc":
                raise TypeError(f"For '{what}', the argument at grad_position {p} has dtype "
                                f"{a.dtype}: gradients are defined for floating-point inputs only")
    with _writes.guarded(), _Session() as s:  # a failed call rolls back its in-place writes
        tape = s.tape
        call_args, in_slots = _track_inputs(s, args, positions)
        w_slots = [s.track_param(w) for w in weights] if weights else ()
        start = len(tape.nodes)
        out = fn(*call_args, **kwargs)
        heads = [out] if type(out) is Tensor and not has_aux else \
            _flatten_outputs(out, has_aux, what)
        if sens is None:
            sens_list = [None] * len(heads)
        else:
            sens_list = _flatten_outputs(sens, False, what) if isinstance(sens, (tuple, list)) \
                else [sens]
            if len(sens_list) != len(heads):
                raise ValueError(f"For '{what}', 'sens' has {len(sens_list)} entries but the "
                                 f"function has {len(heads)} differentiated outputs")
        roots = []
        for k, o in enumerate(heads):
            _check_output(o, what)
            sv = sens_list[k]
            if sv is None:
                # the shared read-only ones: a gradient returned as it is gets copied (distinct)
                sv = sens_list[k] = _tape.ones_sensitivity(o._data.shape, o._data.dtype)
            else:
                sv = _fit_sens(sv, o, what)
            if o._tape is tape.token:
                roots.append((o._slot, sv))
        nested = s.outer is not None
        if nested:
            grads = backward(tape, start, roots, True)
            if tape.hooks:
                _hook_leaves(tape.hooks, grads, in_slots, w_slots)
        else:
            s.stop_recording()  # first-order: bprops run without recording
            grads = backward(tape, start, roots, False)
            if tape.hooks:
                _hook_leaves(tape.hooks, grads, in_slots, w_slots)
        if len(in_slots) == 1:
            in_grads = [_result_grad(grads, in_slots[0], args[positions[0]]._data)]
        else:
            in_grads = [_result_grad(grads, sl, args[p]._data)
                        for sl, p in zip(in_slots, positions or ())]
        if weights:
            check_weight_gradients(grads, w_slots, weights, what)
            w_grads = [_result_grad(grads, sl, w._data) for sl, w in zip(w_slots, weights)]
            mine = distinct(in_grads + w_grads, args, weights, sens_list)
            in_grads, w_grads = mine[:len(in_grads)], mine[len(in_grads):]
        else:
            in_grads, w_grads = distinct(in_grads, args, sens_list), ()
    if has_aux:
        out = (out[0],) + tuple(_stop(o) for o in out[1:])
    return out, in_grads, w_grads


def _track_inputs(session, args, positions):
    """The call's arguments with each differentiated input tracked, and the input slots. One
    object is one variable, as in MindSpore: a tensor passed at several positions (differentiated
    or not) is tracked once, and a Parameter is tracked as the Parameter, so its uses through
    the argument and through the Cell share one slot; each position reports the total
    derivative."""
    call_args = list(args)
    if positions is not None and len(positions) == 1 and not isinstance(args[positions[0]],
                                                                        Parameter):
        a = args[positions[0]]  # perf: the usual single input
        w = session.track_input(a)
        for q, b in enumerate(args):
            if b is a:
                call_args[q] = w
        return call_args, [w._slot]
    tracked = {}
    in_slots = []
    for p in positions or ():
        a = args[p]
        hit = tracked.get(id(a))
        if hit is None:
            if isinstance(a, Parameter):
                hit = tracked[id(a)] = (a, session.track_param(a))
            else:
                w = session.track_input(a)
                hit = tracked[id(a)] = (w, w._slot)
        in_slots.append(hit[1])
    if tracked:
        for q, a in enumerate(args):
            hit = tracked.get(id(a))
            if hit is not None:
                call_args[q] = hit[0]
    return call_args, in_slots


def check_weight_gradients(grads, w_slots, weights, what):
    """Refuse a gradient that reached an integer or bool Parameter: it could only be returned
    truncated (MindSpore 2.10 returns it so). An unused one gets zeros, as any unused weight."""
    for slot, w in zip(w_slots, weights or ()):
        if grads[slot] is not None and w._data.dtype.kind not in "fc":
            raise TypeError(f"For '{what}', the Parameter '{w.name}' in 'weights' has dtype "
                            f"{w.dtype}: gradients are defined for floating-point Parameters "
                            f"only (leave it out of 'weights', or set requires_grad=False)")


def _hook_leaves(hooks, grads, in_slots, w_slots):
    """Run the tensor hooks of this transform's inputs and weights, whose gradients are complete
    once the walk is done."""
    for slot in dict.fromkeys((*in_slots, *w_slots)):  # a weight listed twice runs once
        if slot in hooks and grads[slot] is not None:
            grads[slot] = run_tensor_hooks(hooks[slot], grads[slot])


def _structure(in_grads, w_grads, positions, single_pos, weights, single_w, return_ids):
    if return_ids:
        in_part = tuple(zip(positions, in_grads)) if positions is not None else None
        w_part = tuple((w.name, g) for w, g in zip(weights, w_grads)) if weights is not None \
            else None
        if in_part is not None and single_pos:
            in_part = in_part[0]
        if w_part is not None and single_w:
            w_part = w_part[0]
    else:
        in_part = (in_grads[0] if single_pos else in_grads) if positions is not None else None
        w_part = (w_grads[0] if single_w else w_grads) if weights is not None else None
    if weights is None:
        return in_part
    if positions is None:
        return w_part
    return in_part, w_part


def _fit_sens(sens, out, what):
    """The sensitivity `sens` for output `out`: a Tensor of its shape; a floating-point one of
    another precision is cast to the output's dtype (a float64 `Tensor(np.ones(...))` for a
    float32 output is the usual case)."""
    if not isinstance(sens, Tensor):
        raise TypeError(f"For '{what}', 'sens' must be a Tensor, but got {type(sens).__name__}")
    if sens._data.shape != out._data.shape:
        raise ValueError(f"For '{what}', 'sens' must have the output's shape {out.shape}, but "
                         f"got {sens.shape}")
    if sens._data.dtype != out._data.dtype:
        if sens._data.dtype.kind not in "fc" or out._data.dtype.kind not in "fc":
            raise TypeError(f"For '{what}', 'sens' must be a floating-point Tensor like the "
                            f"output ({out.dtype}), but got {sens.dtype}")
        sens = cast(sens, out._data.dtype)
    return sens


def _split_sens(args, sens_param, what):
    if not sens_param:
        return args, None
    if not args:
        raise ValueError(f"For '{what}' with sens_param=True, the last positional argument must "
                         "be the output sensitivity")
    return args[:-1], args[-1]


def _target(fn, what):
    if not callable(fn):
        raise TypeError(f"For '{what}', 'fn' must be callable, but got {type(fn).__name__}")
    return fn


def _transform_args(fn, grad_position, weights, what):
    fn = _target(fn, what)
    positions, single_pos = _normalize_positions(grad_position, what)
    weights, single_w = _normalize_weights(weights, what)
    if positions is None and weights is None:
        raise ValueError(f"For '{what}', 'grad_position' and 'weights' can not be None at the "
                         "same time")
    return fn, positions, single_pos, weights, single_w


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False,
                   sens_param=False):
    """A function returning `(fn(*args), gradients)`.

    Args:
        fn: function or Cell to differentiate.
        grad_position (int, tuple or None): positional inputs to differentiate. An int (or a
            1-tuple) gives a bare Tensor, a longer tuple a tuple.
        weights (Parameter, list, tuple, ParameterTuple or None): Parameters to differentiate.
            A single Parameter gives a bare Tensor, a sequence a tuple.
        has_aux (bool): differentiate the first output only; the others are returned untouched
            (as if under `stop_gradient`). The value is then the flat output tuple.
        return_ids (bool): pair each gradient with its position or parameter name.
        sens_param (bool): the call's last positional argument is the output sensitivity.

    With both positions and weights the gradients are `(input_grads, weight_grads)`. Several
    outputs without `has_aux` are all differentiated (the gradient of their sum). Gradients of
    unused inputs are zeros of the input's shape and dtype.

    Raises:
        ValueError: both `grad_position` and `weights` None, negative or repeated positions, a
            position past the arguments, `has_aux` on a function with one output.
        TypeError: weights that are not Parameters, a non-Tensor or integer argument at a
            position, a function returning None or a non-float output.
    """
    what = "value_and_grad"
    fn, positions, single_pos, weights, single_w = _transform_args(fn, grad_position, weights,
                                                                   what)

    bare = single_pos and weights is None and not return_ids  # the result is in_grads[0]

    def value_and_grad_fn(*args, **kwargs):
        args, sens = _split_sens(args, sens_param, what) if sens_param else (args, None)
        out, in_grads, w_grads = _differentiate(fn, args, kwargs, positions, weights, has_aux,
                                                sens, what)
        return out, in_grads[0] if bare else _structure(in_grads, w_grads, positions,
                                                        single_pos, weights, single_w, return_ids)

    return value_and_grad_fn


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
    """A function returning the gradients of `fn` (see `value_and_grad` for the arguments and
    result structures). With `has_aux=True` it returns `(gradients, aux)` where `aux` is always a
    tuple of the outputs after the first."""
    what = "grad"
    fn, positions, single_pos, weights, single_w = _transform_args(fn, grad_position, weights,
                                                                   what)

    bare = single_pos and weights is None and not return_ids  # the result is in_grads[0]

    def grad_fn(*args, **kwargs):
        args, sens = _split_sens(args, sens_param, what) if sens_param else (args, None)
        out, in_grads, w_grads = _differentiate(fn, args, kwargs, positions, weights, has_aux,
                                                sens, what)
        g = in_grads[0] if bare else _structure(in_grads, w_grads, positions, single_pos,
                                                weights, single_w, return_ids)
        return (g, tuple(out[1:])) if has_aux else g

    return grad_fn


def vjp_of(fn, inputs, cotangents, needs):
    """Gradients of sum_i <cotangents[i], fn(*inputs)[i]> w.r.t. the inputs whose `needs` is
    True (None elsewhere), by differentiating `fn`, a composite of minispore ops.

    This is how a fused gradient primitive is differentiated again (see norm_ops): inside an
    outer transform the work is recorded like any bprop, so any order stays exact.
    """
    positions = tuple(i for i, n in enumerate(needs) if n)
    if not positions:
        return (None,) * len(inputs)
    cots = cotangents if isinstance(cotangents, tuple) else (cotangents,)

    def contracted(*args):
        outs = fn(*args)
        outs = outs if isinstance(outs, tuple) else (outs,)
        total = None
        for o, c in zip(outs, cots):
            if c is not None:
                term = (o * c).sum()
                total = term if total is None else total + term
        return total if total is not None else outs[0].sum() * 0.0

    grads = grad(contracted, positions)(*inputs)
    grads = grads if isinstance(grads, tuple) else (grads,)
    out = [None] * len(inputs)
    for p, g in zip(positions, grads):
        out[p] = g
    return tuple(out)


def get_grad(gradients, identifier):
    """Pick the gradient for `identifier` (a position or a parameter name, or the Parameter)
    out of a `return_ids=True` result."""
    if isinstance(identifier, Parameter):
        identifier = identifier.name
    found = _find_grad(gradients, identifier)
    if found is None:
        raise RuntimeError(f"For 'get_grad', no gradient with identifier {identifier!r} in the "
                           "given gradients")
    return found


def _find_grad(g, identifier):
    if isinstance(g, tuple):
        if len(g) == 2 and not isinstance(g[0], (tuple, Tensor)) and isinstance(g[1], Tensor):
            return g[1] if g[0] == identifier and type(g[0]) is type(identifier) else None
        for item in g:
            r = _find_grad(item, identifier)
            if r is not None:
                return r
    return None
