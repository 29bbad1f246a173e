"""What the passes and the generated code know about memory: which primitives always make new
memory (FRESH), which values a returned Tensor may be a view of, and the memory plan that lets
the generated code write exact elementwise ufuncs into reused buffers (docs/graph_mode.md,
"Memory plan"). Steps are told apart as the lowering does (a node has a `prim`), so this module
sits below capture.py."""
import numpy as np

from ..ops.primitive import PRIMITIVES

# Primitives whose forward always returns new, dense memory, never a view of an input (checked on
# every spec of theirs by tests/jit/test_passes.py). Any other primitive, a subclass too, may.
FRESH = frozenset(PRIMITIVES[name] for name in (
    "Add", "Sub", "Mul", "RealDiv", "FloorDiv", "Neg", "Exp", "Log", "Log1p", "Expm1", "Sqrt",
    "Rsqrt", "Square", "Abs", "Sign", "Floor", "Sin", "Cos", "Erf", "Reciprocal", "Pow",
    "Maximum", "Minimum", "SquaredDifference", "Cast", "Select", "Equal", "NotEqual", "Greater",
    "GreaterEqual", "Less", "LessEqual", "ClipByValue", "Tanh", "Sigmoid", "ReLU", "Softmax",
    "LogSoftmax", "GeLU", "Softplus", "Dense", "ReluGrad", "TanhGrad", "SigmoidGrad",
    "SoftmaxGrad", "GeLUGrad", "LayerNorm", "MatMul", "BatchMatMul", "ReduceSum", "ReduceMean",
    "ReduceMax", "ReduceMin", "ReduceProd", "Concat", "Stack"))

# Primitives whose forward is exactly one of these ufuncs, each exact whatever loop NumPy runs
# (contiguous or strided, SIMD or scalar, in place or not): correctly rounded arithmetic, sign
# and rounding operations, comparisons. Not maximum/minimum or sign (which NaN comes out of two
# may depend on the loop), not transcendentals (NumPy's SIMD loops and its scalar fallback,
# taken for overlapping memory, differ in the last bit).
PLANNED_UFUNCS = {PRIMITIVES[name]: ufunc for name, ufunc in (
    ("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply), ("Neg", np.negative),
    ("Abs", np.absolute), ("Floor", np.floor), ("Ceil", np.ceil), ("Trunc", np.trunc),
    ("Equal", np.equal), ("NotEqual", np.not_equal), ("Greater", np.greater),
    ("GreaterEqual", np.greater_equal), ("Less", np.less), ("LessEqual", np.less_equal))}

# Node fields whose meaning the passes know; any other field set to a truthy value marks an effect.
KNOWN_NODE_FIELDS = frozenset(("casts", "ins", "multi", "outs", "prim", "quiet", "rng", "shapes"))
GUARD_FIELDS = frozenset(("args", "expected", "method", "site", "value"))


def slots(cls):
    names = []
    for klass in reversed(cls.__mro__):
        names.extend(getattr(klass, "__slots__", ()))
    return names


_unknown = {}


def unknown_fields(cls):
    """The fields of node class `cls` outside KNOWN_NODE_FIELDS."""
    key = (cls, KNOWN_NODE_FIELDS)
    names = _unknown.get(key)
    if names is None:
        names = _unknown[key] = tuple([f for f in slots(cls) if f not in KNOWN_NODE_FIELDS])
    return names


def may_alias(node):
    """Whether an output of `node` may be a view of an input (a fused group's outputs are new)."""
    prim = node.prim
    return type(prim) not in FRESH and not getattr(type(prim), "fresh", False)


def output_aliases(trace):
    """The values an output may share memory with: the outputs and the inputs of effect steps
    (a HostCall hands them to Python code, as eager hands over results), then, backwards, the
    inputs of every node outside FRESH one of whose outputs is among them."""
    reach = set(trace.out_ids)
    for step in trace.steps:
        if not hasattr(step, "prim") and hasattr(step, "input_ids"):
            reach.update(step.input_ids())
    for step in reversed(trace.steps):
        if hasattr(step, "prim") and may_alias(step) and any(i in reach for i in step.outs):
            reach.update(x for x in step.ins if type(x) is int)
    return reach


def _plain(step):
    """A node with no effect field, a guard, or an effect step that names its inputs (a Write
    or HostCall, which reads them and writes only Parameters); anything else stops the plan."""
    if hasattr(step, "prim"):
        return not any(getattr(step, f, None) for f in unknown_fields(type(step)))
    return set(slots(type(step))) <= GUARD_FIELDS or hasattr(step, "input_ids")


def planned_ufunc(step):
    """The ufunc a node's forward is, when it is one of PLANNED_UFUNCS, else None."""
    f = PLANNED_UFUNCS.get(type(step.prim))
    if f is None or step.prim.forward is not f or step.multi or step.rng or \
            len(step.ins) != f.nin or f.nout != 1:
        return None
    return f


class Plan:
    """`buffers`: (shape, dtype) of each buffer; `out`: step index -> buffer its output is
    written into."""

    __slots__ = ("buffers", "out")

    def __init__(self):
        self.buffers = []
        self.out = {}


def make_plan(trace):
    """The buffers for the outputs of planned ufunc nodes, or None when nothing is planned.

    Pinned (never in a buffer, which the next call overwrites): outputs and every value an output
    may be a view of, guard inputs; arguments, Parameters and constants are not node outputs.
    Liveness: a buffer is busy until the last use of any value that may be a view of it (through
    primitives outside FRESH). A planned output takes, in order: the buffer of an input that dies
    at this node, with equal shape and dtype, when no other input may view that buffer (exact
    in place); a free buffer of equal shape and dtype; a new buffer."""
    meta = getattr(trace, "value_meta", None)
    if meta is None or not all(_plain(s) for s in trace.steps):
        return None
    pinned = output_aliases(trace)
    last = {}
    for n, step in enumerate(trace.steps):
        if hasattr(step, "prim"):
            for x in step.ins:
                if type(x) is int:
                    last[x] = n
        else:
            for x in (step.input_ids() if hasattr(step, "input_ids") else (step.value,)):
                pinned.add(x)
                last[x] = n
    candidates = {}
    roots = {}  # value -> planned values whose buffer it may be a view of
    for n, step in enumerate(trace.steps):
        if not hasattr(step, "prim"):
            continue
        out = step.outs[0]
        if planned_ufunc(step) is not None and out not in pinned and \
                not meta[out][1].hasobject and all(meta[out][0]):
            candidates[n] = out
            roots[out] = frozenset((out,))
        elif may_alias(step):
            seen = frozenset().union(*[roots.get(x, ()) for x in step.ins if type(x) is int])
            if seen:
                for o in step.outs:
                    roots[o] = seen
    if not candidates:
        return None
    end = {}
    for v, rs in roots.items():
        for r in rs:
            end[r] = max(end.get(r, -1), last.get(v, -1))
    plan = Plan()
    free = {}  # (shape, dtype) -> buffer numbers
    holder = {}  # buffer -> the planned value it holds
    buffer_of = {}
    releases = {}  # step index -> buffers whose value dies there
    for n, step in enumerate(trace.steps):
        p = candidates.get(n)
        if p is not None:
            b = _in_place(step, p, n, meta, roots, end, buffer_of, holder)
            if b is None:
                pool = free.get(meta[p])
                b = pool.pop() if pool else None
            if b is None:
                b = len(plan.buffers)
                plan.buffers.append(meta[p])
            plan.out[n] = b
            buffer_of[p] = b
            holder[b] = p
            releases.setdefault(max(end.get(p, n), n), []).append((b, p))
        for b, v in releases.pop(n, ()):
            if holder.get(b) == v:
                del holder[b]
                free.setdefault(plan.buffers[b], []).append(b)
    return plan


def _in_place(step, p, n, meta, roots, end, buffer_of, holder):
    for x in step.ins:
        if type(x) is not int or x not in buffer_of:
            continue
        b = buffer_of[x]
        if holder.get(b) != x or end.get(x) != n or meta[x] != meta[p]:
            continue
        others = [y for y in step.ins if type(y) is int and y != x]
        if any(x in roots.get(y, ()) for y in others):
            continue
        return b
    return None
