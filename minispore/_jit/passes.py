"""Optimisation passes over a captured Trace: pure `Trace -> Trace` functions (constant folding,
exact algebraic simplification, common-subexpression elimination, dead-code elimination) and the
fixpoint driver `optimize` (docs/graph_mode.md, "Passes").

Every pass keeps replay bitwise equal to eager execution. The rules they share:
- Output values are never renamed, folded or removed (a returned Tensor must own fresh memory);
  guard inputs may be renamed to an equal value, never replaced by a constant.
- Nor is a value an output may be a view of (through nodes that can return a view of an input:
  every primitive outside plan.FRESH), so a returned Tensor never becomes a view of an argument, a
  Parameter, a constant or another output where eager gave it memory of its own.
- Random nodes are never removed, merged or folded: a dead draw still advances the stream.
- A Node carrying a field outside plan.KNOWN_NODE_FIELDS (an effect kind added later) is kept
  as it is: never removed, merged, folded or rewritten, and no value is renamed or merged across
  it (it may write memory that a renamed use would then read). An effect step (a Write or a
  HostCall: neither Node nor Guard, with `input_ids()` and `renamed(f)`) is a barrier too: always
  kept, its inputs live and renamed to equal values, never replaced by constants. A trace holding
  any other kind of step is left unchanged.
- A pass returns the very Trace it got when it changes nothing, so the driver stops on identity.
"""
import bisect
import struct
import warnings

import numpy as np

from .._quiet import quiet
from ..common import dtype as mstype
from ..ops.operations.array_ops import Reshape, Transpose
from ..ops.operations.math_ops import Add, Cast, Mul, Neg, RealDiv, Sub
from . import plan as _plan
from .capture import Guard, Node

_ndarray = np.ndarray
FOLD_MAX_BYTES = 1 << 20  # a folded constant lives as long as its trace
MAX_ROUNDS = 8


def _effectful(node):
    """A Node the passes must keep as it is: a random draw, or a field they do not know."""
    return node.rng or _barrier(node)


def _barrier(step):
    """A step that may write memory or do anything else unknown: values are not renamed across
    it and common subexpressions are not merged across it (random draws are not barriers)."""
    if type(step) is Guard:
        return False
    if type(step) is not Node:
        return True
    return any(getattr(step, f, None) for f in _plan.unknown_fields(Node))


def _is_effect(step):
    """A Write or HostCall: an effect step whose inputs the passes can see and rename."""
    return type(step) not in (Node, Guard) and hasattr(step, "input_ids")


def _optimizable(trace):
    """False when a step of an unknown kind is present (its inputs cannot be renamed)."""
    return all(type(s) in (Node, Guard) or _is_effect(s) for s in trace.steps)



def node_count(trace):
    return sum(1 for s in trace.steps if type(s) is Node)


# ---- rebuilding ---------------------------------------------------------------------------------

def _copy(obj, **changes):
    new = object.__new__(type(obj))
    for name in _plan.slots(type(obj)):
        if name in changes:
            setattr(new, name, changes[name])
        elif hasattr(obj, name):
            setattr(new, name, getattr(obj, name))
    return new


def _with_steps(trace, steps):
    return _copy(trace, steps=steps, fn=None, source=None)


def _renamed(trace, steps, mapping):
    """`steps` with every use renamed by `mapping` (value id -> value id or ("c", constant))."""
    out = []
    for step in steps:
        if type(step) is Node:
            if any(type(x) is int and x in mapping for x in step.ins):
                step = _copy(step, ins=tuple([mapping.get(x, x) if type(x) is int else x
                                              for x in step.ins]))
        elif type(step) is Guard and step.value in mapping:
            step = _copy(step, value=mapping[step.value])
        elif _is_effect(step) and any(i in mapping for i in step.input_ids()):
            step = step.renamed(lambda i: mapping.get(i, i))
        out.append(step)
    return _with_steps(trace, out)


def _resolve(mapping, x):
    while type(x) is int and x in mapping:
        x = mapping[x]
    return x


def _last_uses(trace):
    """value id -> position of its last use by a step (outputs count as used after the end)."""
    last = {}
    for pos, step in enumerate(trace.steps):
        if type(step) is Node:
            for x in step.ins:
                if type(x) is int:
                    last[x] = pos
        elif type(step) is Guard:
            last[step.value] = pos
        else:
            for x in step.input_ids():
                last[x] = pos
    end = len(trace.steps)
    for i in trace.out_ids:
        last[i] = end
    return last


# ---- dead-code elimination ----------------------------------------------------------------------

def dce(trace):
    """Drop the nodes none of whose outputs reaches an output, a guard or a kept node."""
    if not _optimizable(trace):
        return trace
    live = set(trace.out_ids)
    keep = []
    for step in reversed(trace.steps):
        if type(step) is Node:
            if not (_effectful(step) or _barrier(step)) and not any(i in live for i in step.outs):
                continue
            live.update(x for x in step.ins if type(x) is int)
        elif type(step) is Guard:
            live.add(step.value)
        else:
            live.update(step.input_ids())
        keep.append(step)
    if len(keep) == len(trace.steps):
        return trace
    keep.reverse()
    return _with_steps(trace, keep)


# ---- common-subexpression elimination ----------------------------------------------------------

_IMMUTABLE = (str, type(None), type(Ellipsis), mstype.Type, np.dtype, type)


def freeze(x):
    """A hashable key equal for constants a primitive cannot tell apart: arrays by (dtype, shape,
    strides, bytes), so -0.0 differs from 0.0, a NaN matches the same NaN and layouts (which a
    result's layout may follow) stay apart; floats by their bits; Python types kept apart (1,
    1.0 and True differ); unknown objects by identity."""
    tx = type(x)
    if tx is _ndarray:
        if x.dtype.hasobject:
            return ("id", id(x))
        return ("nd", x.dtype.str, x.shape, x.strides, np.ascontiguousarray(x).tobytes())
    if tx is float:
        return ("f", struct.pack("<d", x))
    if tx is complex:
        return ("c", struct.pack("<dd", x.real, x.imag))
    if tx is int or tx is bool:
        return (tx.__name__, x)
    if tx is tuple or tx is list:
        return (tx.__name__, tuple([freeze(v) for v in x]))
    if tx is dict:
        return ("dict", tuple([(freeze(k), freeze(v)) for k, v in x.items()]))
    if tx is slice:
        return ("slice", freeze(x.start), freeze(x.stop), freeze(x.step))
    if isinstance(x, _IMMUTABLE):
        try:
            return ("obj", tx, x, hash(x))
        except TypeError:
            pass
    return ("id", id(x))


def prim_key(prim):
    """Primitives are equal when they are the same class with equal attributes (their
    configuration from `__init__`; no registered primitive's forward writes to itself)."""
    return (type(prim), freeze(dict(sorted(vars(prim).items()))))


def node_key(node):
    casts = None if node.casts is None else tuple(
        [(None if dt is None else np.dtype(dt).str, copy) for dt, copy in node.casts])
    ins = tuple([x if type(x) is int else freeze(x[1]) for x in node.ins])
    return (prim_key(node.prim), ins, casts, node.multi, node.shapes)


def cse(trace):
    """Merge a node into an earlier one with the same primitive, attributes, casts and inputs
    (a quiet node into a quiet or warning one, a warning node only into a warning one; not across
    a barrier; never random or effect nodes; never when outputs may be views of both,
    which would make two returned Tensors share memory)."""
    if not _optimizable(trace):
        return trace
    pinned = _plan.output_aliases(trace)
    returned = set(trace.out_ids)  # never renamed, so never merged into an earlier node
    producer = {}
    seen = {}
    mapping = {}
    steps = []
    for step in trace.steps:
        if type(step) is Node:
            if mapping and any(type(x) is int and x in mapping for x in step.ins):
                step = _copy(step, ins=tuple([_resolve(mapping, x) for x in step.ins]))
            if _barrier(step):
                seen.clear()
            elif not _effectful(step):
                key = node_key(step)
                first = seen.get(key)
                if first is not None and first.quiet and not step.quiet:
                    first = None  # merged into a quiet call, a warning eager gives would be lost
                if first is not None and not any(i in returned for i in step.outs) and \
                        not (any(i in pinned for i in step.outs) and
                             any(j in pinned for j in first.outs)):
                    for i, j in zip(step.outs, first.outs):
                        mapping[i] = j
                        if i in pinned:
                            _pin_sources(j, producer, pinned)
                    continue
                if first is None:
                    seen[key] = step
            for i in step.outs:
                producer[i] = step
        elif type(step) is Guard and step.value in mapping:
            step = _copy(step, value=_resolve(mapping, step.value))
        elif _is_effect(step):
            seen.clear()
            if any(i in mapping for i in step.input_ids()):
                step = step.renamed(lambda i: _resolve(mapping, i))
        steps.append(step)
    if not mapping:
        return trace
    return _with_steps(trace, steps)


def _pin_sources(v, producer, pinned):
    """Mark `v` and what it may be a view of (back through nodes outside FRESH) as aliased."""
    stack = [v]
    while stack:
        v = stack.pop()
        pinned.add(v)
        node = producer.get(v)
        if node is not None and _plan.may_alias(node):
            stack.extend(x for x in node.ins if type(x) is int and x not in pinned)


# ---- constant folding ---------------------------------------------------------------------------

def run_node(node, arrays):
    """The node's outputs for input arrays, as replay computes them (casts, quiet, multi)."""
    casts = node.casts
    if casts is not None:
        arrays = [a if dt is None else a.astype(dt, copy=copy)
                  for a, (dt, copy) in zip(arrays, casts)]
    out = quiet(node.prim.forward, *arrays) if node.quiet else node.prim.forward(*arrays)
    outs = out if node.multi else (out,)
    return [o if type(o) is _ndarray else np.asarray(o) for o in outs]


def _fold_value(node, arrays):
    """The node's outputs computed now, or None when folding could change what a replay does
    (an error, a warning or a floating-point exception, a shape other than captured, a large or
    object result)."""
    try:
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="raise"):
            warnings.simplefilter("always")
            outs = run_node(node, arrays)
    except Exception:  # noqa: BLE001 (any failure leaves the node to run at replay)
        return None
    if caught or len(outs) != len(node.outs):
        return None
    for o, shape in zip(outs, node.shapes):
        if o.shape != shape or o.dtype.hasobject or o.nbytes > FOLD_MAX_BYTES:
            return None
    return outs


def fold(trace):
    """Run each pure node whose inputs are all constants at compile time, with its own forward
    (same code, same bits), and make its outputs constants of the nodes that use them. Nodes
    whose outputs are guarded, or that an output may be a view of, are left to run."""
    if not _optimizable(trace):
        return trace
    pinned = _plan.output_aliases(trace)
    pinned.update(s.value for s in trace.steps if type(s) is Guard)
    mapping = {}
    steps = []
    for step in trace.steps:
        if type(step) is Node:
            if mapping and any(type(x) is int and x in mapping for x in step.ins):
                step = _copy(step, ins=tuple([mapping.get(x, x) if type(x) is int else x
                                              for x in step.ins]))
            if not _barrier(step) and not _effectful(step) and \
                    all(type(x) is not int for x in step.ins) and \
                    not any(i in pinned for i in step.outs):
                outs = _fold_value(step, [x[1] for x in step.ins])
                if outs is not None:
                    for i, o in zip(step.outs, outs):
                        mapping[i] = ("c", o)
                    continue
        steps.append(step)
    if not mapping:
        return trace
    return _with_steps(trace, steps)


# ---- algebraic simplification -------------------------------------------------------------------

def _const_array(x):
    """A numeric constant input as an array, or None."""
    if type(x) is int:
        return None
    try:
        a = np.asarray(x[1])
    except Exception:  # noqa: BLE001
        return None
    return a if a.dtype.kind in "biuf" else None


def _all(a, test):
    return a is not None and a.size > 0 and bool(np.all(test(a)))


def _is_one(a):
    return _all(a, lambda v: v == 1)


def _is_zero(a, negative):
    """All zeros; for floats, all with the sign bit set (`negative`) or all clear."""
    if not _all(a, lambda v: v == 0):
        return False
    if a.dtype.kind != "f":
        return not negative
    return bool(np.all(np.signbit(a) == negative))


def _binary_rule(sides, const_ok):
    """A rule for a binary node: the variable input x when the other operand is a constant with
    `const_ok(constant, x's dtype kind)`; `sides` are the (variable, constant) positions tried."""
    def rule(node, meta, producer):
        if len(node.ins) != 2:
            return None
        for var, const in sides:
            x = node.ins[var]
            if type(x) is int:
                c = _const_array(node.ins[const])
                if c is not None and const_ok(c, meta[x][1].kind):
                    return x
        return None
    return rule


def _one_ok(kinds):
    return lambda c, kind: kind in kinds and _is_one(c)


def _zero_ok(negative):
    """x + (-0.0) and x - (+0.0) keep every float x (signed zeros included); x + 0 and x - 0
    keep every integer x."""
    def ok(c, kind):
        if kind == "f":
            return _is_zero(c, negative)
        return kind in "iu" and c.dtype.kind in "biu" and _is_zero(c, False)
    return ok


def _neg_rule(node, meta, producer):
    inner = producer.get(node.ins[0]) if len(node.ins) == 1 else None
    if inner is not None and type(inner.prim) is Neg and type(inner.ins[0]) is int:
        return inner.ins[0]
    return None


def _transpose_rule(node, meta, producer):
    if len(node.ins) != 2 or type(node.ins[0]) is not int or type(node.ins[1]) is int:
        return None
    inner = producer.get(node.ins[0])
    if inner is None or type(inner.prim) is not Transpose or len(inner.ins) != 2 or \
            type(inner.ins[0]) is not int or type(inner.ins[1]) is int:
        return None
    p, q = inner.ins[1][1], node.ins[1][1]
    try:
        if len(p) == len(q) and all(p[q[k]] == k for k in range(len(q))):
            return inner.ins[0]
    except (TypeError, IndexError):
        pass
    return None


def _same_shape_rule(node, meta, producer):
    """Reshape to the same shape, Cast to the same dtype: the shape and dtype check decides."""
    x = node.ins[0]
    return x if type(x) is int and len(node.ins) == 2 and type(node.ins[1]) is not int else None


_BOTH, _LEFT = ((0, 1), (1, 0)), ((0, 1),)
SIMPLIFY_RULES = {
    Mul: _binary_rule(_BOTH, _one_ok("fiu")),
    RealDiv: _binary_rule(_LEFT, _one_ok("f")),
    Add: _binary_rule(_BOTH, _zero_ok(negative=True)),
    Sub: _binary_rule(_LEFT, _zero_ok(negative=False)),
    Neg: _neg_rule,
    Transpose: _transpose_rule,
    Reshape: _same_shape_rule,
    Cast: _same_shape_rule,
}


# Rewrites whose result is a view of x with x's own strides (any x). The others replace a new
# array NumPy laid out in x's axis order (`order="K"`) by x itself: the same strides only when x
# is itself new, dense memory, so they need x made by a FRESH primitive. A broadcast or otherwise
# strided argument would change the order a later reduction adds in, and so its bits.
SAME_STRIDES = frozenset((Transpose, Reshape))


def _fresh_value(x, producer):
    node = producer.get(x)
    return node is not None and type(node.prim) in _plan.FRESH and not _barrier(node)


def simplify(trace):
    """Exact rewrites only (SIMPLIFY_RULES, matched on the exact primitive class): x*1, 1*x, x/1,
    x-(+0.0), x+(-0.0), -0.0+x, integer x+0 and x-0, transpose of transpose to identity, reshape
    to the same shape, cast to the same dtype, double negation. A rewrite makes the node's output
    the same value as x and applies only when the two have equal shapes and dtypes, x has the
    strides the output would have had (SAME_STRIDES, or x made by a FRESH primitive), the call
    path cast nothing, no output may be a view of the node's output, and no barrier lies between
    the first matched node and the output's last use."""
    meta = getattr(trace, "value_meta", None)
    if meta is None or not _optimizable(trace):
        return trace
    pinned = _plan.output_aliases(trace)  # effect steps' inputs included
    barriers = [pos for pos, s in enumerate(trace.steps) if _barrier(s)]
    last = _last_uses(trace)
    producer, position = {}, {}
    mapping = {}
    for pos, step in enumerate(trace.steps):
        if type(step) is not Node:
            continue
        for i in step.outs:
            producer[i] = step
            position[i] = pos
        rule = SIMPLIFY_RULES.get(type(step.prim))
        if rule is None or step.multi or _effectful(step) or _barrier(step):
            continue
        if step.casts is not None and any(dt is not None for dt, _ in step.casts):
            continue
        y = step.outs[0]
        if y in pinned or y in mapping:
            continue
        try:
            x = rule(step, meta, producer)
        except Exception:  # noqa: BLE001 (an unusual constant: no rewrite)
            x = None
        if x is None or meta[x] != meta[y]:
            continue
        if type(step.prim) not in SAME_STRIDES and not _fresh_value(x, producer):
            continue
        start = min([pos] + [position.get(v, pos) for v in step.ins if type(v) is int])
        end = last.get(y, pos)
        k = bisect.bisect_right(barriers, start)
        if k < len(barriers) and barriers[k] <= end:
            continue
        mapping[y] = _resolve(mapping, x)
    if not mapping:
        return trace
    mapping = {y: _resolve(mapping, x) for y, x in mapping.items()}
    dropped = set(mapping)
    steps = [s for s in trace.steps if not (type(s) is Node and s.outs[0] in dropped
                                              and len(s.outs) == 1)]
    return _renamed(trace, steps, mapping)


# ---- the driver ---------------------------------------------------------------------------------

PIPELINE = (fold, simplify, cse, dce)


def optimize(trace):
    """The passes in PIPELINE repeated until none changes the trace (at most MAX_ROUNDS)."""
    for _ in range(MAX_ROUNDS):
        start = trace
        for p in PIPELINE:
            trace = p(trace)
        if trace is start:
            break
    return trace
