"""What the passes and the generated code know about memory: which primitives always make new
memory (FRESH), which values a returned Tensor may be a view of, and the memory plan that lets
the generated code write primitives' results, bit for bit their forwards', into reused buffers
(docs/graph_mode.md, "Memory plan"). Steps are told apart as the lowering does (a node has a `prim`), so this module
sits below capture.py."""
import numpy as np

from .._quiet import _IGNORE, _reset, _set
from ..ops.operations import _kernels
from ..ops.operations import loss_ops as _loss_ops
from ..ops.operations import math_ops as _math_ops
from ..ops.operations import nn_ops as _nn_ops
from ..ops.operations import reduce_ops as _reduce_ops
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
# (contiguous or strided, SIMD or scalar): correctly rounded arithmetic, sign and rounding
# operations, comparisons. The unary ones are written in place when their input dies at the
# node; a binary one never: which of two NaN operands comes out depends on the loop (NumPy's
# add, written over its first operand of one element, takes its reduction loop and returns the
# second NaN, a fresh result the first).
PLANNED_UFUNCS = {PRIMITIVES[name]: ufunc for name, ufunc in (
    ("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply), ("Neg", np.negative),
    ("Abs", np.absolute), ("Floor", np.floor), ("Ceil", np.ceil), ("Trunc", np.trunc),
    ("Equal", np.equal), ("NotEqual", np.not_equal), ("Greater", np.greater),
    ("GreaterEqual", np.greater_equal), ("Less", np.less), ("LessEqual", np.less_equal))}

# Primitives whose forward is one of these ufuncs, planned only into a buffer that overlaps no
# input: which NaN maximum/minimum give may depend on the loop, and NumPy runs the same loop
# for a fresh result and for a C-contiguous `out=` that overlaps nothing.
APART_UFUNCS = {PRIMITIVES[name]: ufunc for name, ufunc in (
    ("Maximum", np.maximum), ("Minimum", np.minimum))}


class Into:
    """How a planned node writes its output into a buffer. `ufunc`: the forward is that ufunc,
    called with `out=`; else `write(out, *scratch, *operands)` does, bit for bit, what the
    forward does (tests/jit/test_plan_memory.py compares them) and returns `out`. `scratch`:
    (shape, dtype) of the buffers it uses only during the call. `in_place`: `out` may be the
    buffer of an input that dies at the node (one operand, exact whatever loop runs); else the
    buffer overlaps no input, and NumPy runs the loop a fresh result gets. `layout`: the
    positions of the inputs that must be C-contiguous for the buffer to take the call (then the
    forward's own result is C-contiguous, as the buffer is, and its loops run in the same
    order); None for all of them, () where the result is C-contiguous whatever the operands'
    layout (a 2-D GEMM)."""

    __slots__ = ("in_place", "layout", "scratch", "ufunc", "write")

    def __init__(self, write=None, ufunc=None, scratch=(), in_place=False, layout=None):
        self.write = write
        self.ufunc = ufunc
        self.scratch = scratch
        self.in_place = in_place
        self.layout = layout


def _quietly(f, *args, **kwargs):
    token = _set(_IGNORE)
    try:
        return f(*args, **kwargs)
    finally:
        _reset(token)


def _float(*metas):
    return all(m is not None and m[1].kind == "f" for m in metas)


def _blas(*metas):
    """float32 or float64 operands of one dtype (float16 GEMMs take another path)."""
    return all(m is not None and m[1] == metas[0][1] and m[1].char in "fd" for m in metas)


def _float_unary(prim, ins, out):
    if not _float(ins[0]) or _kernels.LEGACY_PROMOTION:
        return None
    kernel = type(prim).kernel
    return Into(lambda o, x: _quietly(kernel, x, out=o))


def _tanh(prim, ins, out):
    return Into(ufunc=np.tanh) if _float(ins[0]) else None


def _square(prim, ins, out):
    return Into(lambda o, x: _quietly(np.square, x, out=o), in_place=True)


def _real_div(prim, ins, out):
    if ins[0] is None or ins[0][1].kind != "f" or out[1].kind != "f":
        return None  # an integer dividend is cast to float32 first; complex division is not
    # correctly rounded
    return Into(lambda o, x, y: _quietly(np.true_divide, x, y, out=o))


def _relu(prim, ins, out):
    if ins[0] is None:
        return None
    zero = _nn_ops._zero(ins[0][1])
    return Into(lambda o, x: np.maximum(x, zero, out=o))


def _relu_grad(prim, ins, out):
    dy, y = ins
    if dy is None or y is None or not dy[0] == y[0] == out[0]:
        return None
    zero = _nn_ops._zero(y[1])
    dt = dy[1]

    def write(o, mask, dy, y):
        np.greater(y, zero, out=mask)
        return np.multiply(dy, mask, dtype=dt, out=o)
    return Into(write, scratch=((y[0], np.dtype(np.bool_)),))


def _dense(prim, ins, out):
    x, w, b = ins
    if not _blas(x, w) or len(w[0]) != 2 or not x[0] or b is not None and not _blas(x, b):
        return None
    stacked, k, n = len(x[0]) > 2, x[0][-1], w[0][0]  # stacked rows: one GEMM, as the forward

    def write(o, x, w, b):
        if stacked:
            np.matmul(x.reshape(-1, k), w.T, out=o.reshape(-1, n))
        else:
            np.matmul(x, w.T, out=o)
        if b is not None:
            o += b
        return o
    return Into(write, layout=())


def _matmul(prim, ins, out):
    a, b = ins
    if not _blas(a, b) or len(a[0]) < 2 or len(b[0]) < 2:
        return None
    ta, tb = prim.transpose_a, prim.transpose_b
    if len(a[0]) > 2 and len(b[0]) == 2:  # one GEMM over the stacked rows, as the forward
        k, n = (a[0][-2] if ta else a[0][-1]), out[0][-1]

        def write(o, a, b):
            a = np.swapaxes(a, -1, -2) if ta else a
            np.matmul(a.reshape(-1, k), b.T if tb else b, out=o.reshape(-1, n))
            return o
        return Into(write, layout=())

    def write(o, a, b):
        return np.matmul(np.swapaxes(a, -1, -2) if ta else a,
                         np.swapaxes(b, -1, -2) if tb else b, out=o)
    return Into(write, layout=() if len(a[0]) == len(b[0]) == 2 else None)


def _reduce_axes(prim, ins, consts):
    """The normalised axes of a float32/float64 reduction over a constant axis, else None."""
    x, axis = ins[0], consts[1]
    if not _blas(x) or axis is _VALUE:
        return None
    try:
        return (prim._axes(_Shape(x[0]), axis),)
    except (TypeError, ValueError):
        return None


class _Shape:
    """Stands for an array where only `ndim` and `shape` are read (normalising axes)."""

    __slots__ = ("ndim", "shape")

    def __init__(self, shape):
        self.shape = shape
        self.ndim = len(shape)


def _reduce_sum(prim, ins, out, consts):
    if prim._skips(consts[1]):
        return None
    axes = _reduce_axes(prim, ins, consts)
    if axes is None:
        return None
    axes, keep = axes[0], prim.keep_dims
    return Into(lambda o, x, _axis: np.sum(x, axis=axes, keepdims=keep, out=o))


def _reduce_mean(prim, ins, out, consts):
    axes = _reduce_axes(prim, ins, consts)
    if axes is None:
        return None
    axes, keep = axes[0], prim.keep_dims
    n = np.asarray(_reduce_ops._count(ins[0][0], axes), ins[0][1])

    def write(o, x, _axis):
        np.sum(x, axis=axes, keepdims=keep, out=o)
        return _quietly(np.divide, o, n, out=o)
    return Into(write)


def _cast(prim, ins, out, consts):
    x = ins[0]
    if x is None or x[1].kind not in "biuf" or out[1].kind != "f":
        return None  # to floating point only: no out-of-range float-to-int casts
    return Into(lambda o, x, _dtype: np.copyto(o, x, casting="unsafe") or o)


def _shift_into(shifted, m, finite, logits):
    """loss_ops._shifted(logits) written into `shifted`: logits minus each row's max, a
    non-finite max taken as 0."""
    np.max(logits, axis=1, keepdims=True, out=m)
    np.isfinite(m, out=finite)
    np.logical_not(finite, out=finite)
    np.copyto(m, _ZEROS[m.dtype], where=finite)
    return np.subtract(logits, m, out=shifted)


def _label_positions(ids, starts, labels):
    """The flat positions of logits[arange(n), labels], without a cast temporary."""
    np.copyto(ids, labels)
    ids += starts
    return ids


_LABEL_TYPES = (np.dtype(np.int32), np.dtype(np.int64))
_ZEROS = {np.dtype(t): np.zeros((), t) for t in (np.float32, np.float64)}
_ONES = {np.dtype(t): np.ones((), t) for t in (np.float32, np.float64)}


def _ce_scratch(ins):
    """(N, C) and the common scratch of the sparse cross-entropy forms (shifted logits, row
    maxima, their finiteness, a row value, flat label positions), or None when the forward takes
    another path (float16, empty, not (N, C) float32/float64 logits with int32/int64 labels)."""
    logits, labels = ins[0], ins[1]
    if not _blas(logits) or len(logits[0]) != 2 or not all(logits[0]) or labels is None or \
            labels[1] not in _LABEL_TYPES or labels[0] != logits[0][:1]:
        return None
    (n, c), f = logits[0], logits[1]
    rows = (n, 1)
    return (n, c), (((n, c), f), (rows, f), (rows, np.dtype(np.bool_)), ((n,), f),
                    ((n,), np.dtype(np.intp)))


def _sparse_ce(prim, ins, out):
    found = _ce_scratch(ins)
    if found is None:
        return None
    (n, c), scratch = found
    starts = np.arange(n, dtype=np.intp) * c  # where each row starts in the flat logits

    def write(o, shifted, m, finite, row, ids, exps, lse, logits, labels):
        _loss_ops._check_labels(logits, labels, "SparseSoftmaxCrossEntropy")
        token = _set(_IGNORE)
        try:
            _shift_into(shifted, m, finite, logits)
            np.exp(shifted, out=exps)
            np.sum(exps, axis=1, out=row)
            np.log(row, out=lse)
            _label_positions(ids, starts, labels)  # shifted[arange(n), labels], checked above
            np.take(shifted.reshape(-1), ids, out=row, mode="clip")
            return np.subtract(lse, row, out=o)
        finally:
            _reset(token)
    f = scratch[0][1]
    return Into(write, scratch=scratch + (((n, c), f), ((n,), f)), layout=(0,))


def _sparse_ce_grad(prim, ins, out):
    found = _ce_scratch(ins)
    dout = ins[2]
    if found is None or not _blas(dout) or dout[0] != found[0][:1]:
        return None
    (n, c), scratch = found
    starts = np.arange(n, dtype=np.intp) * c
    forward = prim.forward

    def write(o, shifted, m, finite, row, ids, sums, logits, labels, dout):
        if labels.min() < 0 or labels.max() >= c:
            return forward(logits, labels, dout)  # raises as the forward does
        _shift_into(shifted, m, finite, logits)
        np.exp(shifted, out=o)
        np.sum(o, axis=1, keepdims=True, out=sums)
        np.divide(o, sums, out=o)
        flat = o.reshape(-1)
        _label_positions(ids, starts, labels)  # e[arange(n), labels] -= 1
        np.take(flat, ids, out=row, mode="clip")
        np.subtract(row, _ONES[row.dtype], out=row)
        flat[ids] = row
        return np.multiply(o, dout[:, None], out=o)
    return Into(write, scratch=scratch + (((n, 1), scratch[0][1]),), layout=(0,))


_VALUE = object()  # an input that is a value of the trace, not a constant

# Primitive class -> rule(prim, input metas, output meta[, constants]): its Into, or None when
# these dtypes and shapes take another path. A rule applies to the exact class only.
INTO_RULES = {PRIMITIVES[name]: rule for name, rule in (
    ("Tanh", _tanh), ("Square", _square), ("RealDiv", _real_div), ("ReLU", _relu),
    ("ReluGrad", _relu_grad), ("Dense", _dense), ("MatMul", _matmul),
    ("BatchMatMul", _matmul), ("SparseSoftmaxCrossEntropy", _sparse_ce),
    ("SparseSoftmaxCrossEntropyGrad", _sparse_ce_grad))}
CONST_RULES = {PRIMITIVES[name]: rule for name, rule in (
    ("ReduceSum", _reduce_sum), ("ReduceMean", _reduce_mean), ("Cast", _cast))}
for _cls in PRIMITIVES.values():
    if _cls.__base__ is _math_ops._FloatUnary and isinstance(_cls.kernel, np.ufunc) and \
            _cls.forward is _math_ops._FloatUnary.forward:
        INTO_RULES[_cls] = _float_unary  # Exp, Log, Sqrt, Reciprocal, Sin, ...

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


def output_aliases(trace, borrowed=False):
    """The values an output may share memory with: the outputs and the inputs of effect steps
    (a HostCall hands them to Python code, as eager hands over results; with `borrowed`, not
    those of host calls that only read them, `borrows`), then, backwards, the inputs of every
    node outside FRESH one of whose outputs is among them."""
    reach = set(trace.out_ids)
    for step in trace.steps:
        if not hasattr(step, "prim") and hasattr(step, "input_ids") and \
                not (borrowed and borrows(step)):
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


def planned_into(step, meta):
    """How node `step` writes its output into a buffer (an Into), or None when it is not planned
    (its inputs' captured `meta` decide the path the forward takes)."""
    f = planned_ufunc(step)
    if f is not None:
        return Into(ufunc=f, in_place=f.nin == 1)
    cls = type(step.prim)
    if step.multi or step.rng or (step.casts is not None and
                                  any(c[0] is not None for c in step.casts)):
        return None
    f = APART_UFUNCS.get(cls)
    if f is not None:
        return Into(ufunc=f) if step.prim.forward is f and len(step.ins) == 2 else None
    rule, consts = INTO_RULES.get(cls), None
    if rule is None:
        rule = CONST_RULES.get(cls)
        if rule is None:
            return None
        consts = [_VALUE if type(x) is int else x[1] for x in step.ins]
    forward = getattr(step.prim.forward, "__func__", None)
    if forward is not cls.forward and step.prim.forward is not cls.forward:
        return None  # a forward set on the instance
    ins = [meta[x] if type(x) is int else _const_meta(x[1]) for x in step.ins]
    out = meta[step.outs[0]]
    return rule(step.prim, ins, out) if consts is None else rule(step.prim, ins, out, consts)


def _const_meta(c):
    if c is None:
        return None
    a = np.asarray(c) if isinstance(c, (np.ndarray, np.generic, bool, int, float)) else None
    return None if a is None or a.dtype.hasobject else (a.shape, a.dtype)


class Plan:
    """`blocks`: the size in bytes of each block of memory; `buffers`: (shape, dtype) of each
    buffer, a C-contiguous view at the start of block `block_of[k]`; `out`: step index ->
    buffer its output is written into; `into`: step index -> its Into; `scratch`: step index ->
    its scratch buffers."""

    __slots__ = ("block_of", "blocks", "buffers", "into", "out", "scratch")

    def __init__(self):
        self.blocks = []
        self.buffers = []
        self.block_of = []
        self.out = {}
        self.into = {}
        self.scratch = {}

    def allocate(self):
        """A new set of buffers: the arrays the generated code writes into."""
        blocks = [np.empty(n, np.uint8) for n in self.blocks]
        return [blocks[b][:_nbytes(m)].view(m[1]).reshape(m[0])
                for b, m in zip(self.block_of, self.buffers)]


def _nbytes(m):
    n = m[1].itemsize
    for d in m[0]:
        n *= d
    return n


def borrows(step):
    """Whether effect step `step` is a host call that only reads its inputs during the call (its
    Cell's exact class sets `_jit_borrows_inputs`, no hooks, no Tensor results), so they may
    live in buffers."""
    cell = getattr(step, "cell", None)
    return cell is not None and not step.outs and \
        type(cell).__dict__.get("_jit_borrows_inputs", False) and \
        not _has_hooks(cell.__dict__.get("_cell_hooks"))


def _has_hooks(hooks):
    return hooks is not None and any(getattr(hooks, f, None) for f in (
        "forward", "forward_pre", "backward", "backward_pre"))


def make_plan(trace):
    """The buffers for the outputs of planned nodes (`planned_into`), or None when nothing is
    planned.

    Pinned (never in a buffer, which the next call overwrites): outputs and every value an output
    may be a view of, guard inputs, the inputs of effect steps other than borrowing host calls;
    arguments, Parameters and constants are not node outputs. Liveness: a buffer is busy until
    the last use of any value that may be a view of it (through primitives outside FRESH). A
    planned output takes, in order: when its Into allows it, the buffer of an input that dies at
    this node, with equal shape and dtype, when no other input may view that buffer (exact in
    place); a free buffer of equal shape and dtype; a new buffer. Its scratch buffers are taken
    the same way after it and are free again after the node."""
    meta = getattr(trace, "value_meta", None)
    if meta is None or not all(_plain(s) for s in trace.steps):
        return None
    pinned = output_aliases(trace, borrowed=True)
    last = {}
    for n, step in enumerate(trace.steps):
        if hasattr(step, "prim"):
            for x in step.ins:
                if type(x) is int:
                    last[x] = n
        else:
            free_inputs = borrows(step)
            for x in (step.input_ids() if hasattr(step, "input_ids") else (step.value,)):
                if not free_inputs:
                    pinned.add(x)
                last[x] = n
    candidates = {}
    roots = {}  # value -> planned values whose buffer it may be a view of
    for n, step in enumerate(trace.steps):
        if not hasattr(step, "prim"):
            continue
        out = step.outs[0]
        into = None
        if out not in pinned and not meta[out][1].hasobject and all(meta[out][0]):
            into = planned_into(step, meta)
        if into is not None:
            candidates[n] = (out, into)
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
    free = []  # free blocks
    holder = {}  # block -> the planned value it holds
    buffer_of = {}
    buffers = {}  # (block, meta) -> buffer
    releases = {}  # step index -> blocks whose value dies there

    def take(m):
        """A buffer of meta `m` on a free block: the smallest that holds it, else the largest
        (grown to hold it), else a new one."""
        need = _nbytes(m)
        fits = [b for b in free if plan.blocks[b] >= need]
        b = min(fits, key=plan.blocks.__getitem__) if fits else \
            max(free, key=plan.blocks.__getitem__) if free else None
        if b is None:
            b = len(plan.blocks)
            plan.blocks.append(need)
        else:
            free.remove(b)
            plan.blocks[b] = max(plan.blocks[b], need)
        k = buffers.get((b, m))
        if k is None:
            k = buffers[b, m] = len(plan.buffers)
            plan.buffers.append(m)
            plan.block_of.append(b)
        return k

    for n, step in enumerate(trace.steps):
        p, into = candidates.get(n, (None, None))
        if p is not None:
            k = _in_place(step, p, n, meta, roots, end, buffer_of, holder, plan.block_of) \
                if into.in_place else None
            if k is None:
                k = take(meta[p])
            plan.out[n] = k
            plan.into[n] = into
            buffer_of[p] = k
            holder[plan.block_of[k]] = p
            releases.setdefault(max(end.get(p, n), n), []).append((plan.block_of[k], p))
            if into.scratch:  # taken after the output, so apart from it and the live inputs
                plan.scratch[n] = [take((tuple(m[0]), np.dtype(m[1]))) for m in into.scratch]
        for b, v in releases.pop(n, ()):
            if holder.get(b) == v:
                del holder[b]
                free.append(b)
        for k in plan.scratch.get(n, ()):
            free.append(plan.block_of[k])
    return plan


def _in_place(step, p, n, meta, roots, end, buffer_of, holder, block_of):
    for x in step.ins:
        if type(x) is not int or x not in buffer_of:
            continue
        k = buffer_of[x]
        if holder.get(block_of[k]) != x or end.get(x) != n or meta[x] != meta[p]:
            continue
        others = [y for y in step.ins if type(y) is int and y != x]
        if any(x in roots.get(y, ()) for y in others):
            continue
        return k
    return None
