"""Fusion (docs/graph_mode.md, "Fusion, backends and the kernel cache"): groups of elementwise
nodes over one shape, with reductions over its last axis and elementwise nodes on their per-row
results (softmax, LayerNorm written as ops), become one `Fused` node whose primitive runs the
whole group.

A group's values are used outside it only as its outputs, so the group can run at the place of
its last member. Its `forward` runs the members' own forwards in order (the NumPy backend: the
same calls and bits as the unfused trace); the numba backend (kernels.py) gives it a compiled
kernel made from the scalar expressions in `SCALAR`.

Grouping, in trace order: a fusible node joins the open groups of its shape that its inputs come
from (merging them), else it starts one; a reduction over the last axis of a
group's value closes that group. A group closes when a step outside it reads one of its values,
and every group closes at an effect step or barrier (a write may rebind what a later member would
read). Groups of fewer than `MIN_NODES` nodes are left as they were, except a single primitive
whose NumPy forward makes several passes (`SEVERAL_PASSES`: sigmoid, GeLU, their gradients).
"""
import numpy as np

from ..common import dtype as mstype
from ..ops.operations import math_ops as M
from ..ops.operations import nn_ops as N
from ..ops.operations import reduce_ops as R
from .capture import Guard, Node
from .passes import _barrier, _effectful, _optimizable, _with_steps, run_node

MIN_NODES = 2
MAX_NODES = 128  # a group closes at this size (W1 fwd+bwd cold compile: 1000 nodes as 2 kernels 31 s, as 9 kernels 20 s)
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
BOOL = np.dtype(np.bool_)

# Scalar code per primitive class: (operand rule, expression). Operand rule "T": the operands are
# converted to the output dtype first (NumPy's arithmetic converts both operands to the result
# dtype); "P": to their promoted dtype (comparisons); "S": Select (a bool, then two of type T).
# `{T}` is the output dtype's NumPy name; `_name(...)` are helpers of the kernel module.
SCALAR = {
    M.Add: ("T", "{0} + {1}"),
    M.Sub: ("T", "{0} - {1}"),
    M.Mul: ("T", "{0} * {1}"),
    M.RealDiv: ("T", "{0} / {1}"),
    M.Neg: ("T", "-{0}"),
    M.Abs: ("T", "abs({0})"),
    M.Square: ("T", "{0} * {0}"),
    M.Exp: ("T", "np.exp({0})"),
    M.Log: ("T", "np.log({0})"),
    M.Log1p: ("T", "np.log1p({0})"),
    M.Expm1: ("T", "np.expm1({0})"),
    M.Sqrt: ("T", "np.sqrt({0})"),
    M.Rsqrt: ("T", "{T}(1.0) / np.sqrt({0})"),
    M.Reciprocal: ("T", "{T}(1.0) / {0}"),
    M.Erf: ("T", "math.erf({0})"),
    M.Sin: ("T", "np.sin({0})"),
    M.Cos: ("T", "np.cos({0})"),
    M.Maximum: ("T", "({0} if ({0} >= {1} or {0} != {0}) else {1})"),
    M.Minimum: ("T", "({0} if ({0} <= {1} or {0} != {0}) else {1})"),
    M.Equal: ("P", "{0} == {1}"),
    M.NotEqual: ("P", "{0} != {1}"),
    M.Greater: ("P", "{0} > {1}"),
    M.GreaterEqual: ("P", "{0} >= {1}"),
    M.Less: ("P", "{0} < {1}"),
    M.LessEqual: ("P", "{0} <= {1}"),
    M.Select: ("S", "({1} if {0} else {2})"),
    N.Tanh: ("T", "np.tanh({0})"),
    N.Sigmoid: ("T", "_sigmoid({0})"),
    N.ReLU: ("T", "({0} if ({0} >= 0 or {0} != {0}) else {T}(0.0))"),
    N.ReluGrad: ("T", "({0} * {T}(1.0) if {1} > 0 else {0} * {T}(0.0))"),
    N.TanhGrad: ("T", "{1} - {0} * {0} * {1}"),
    N.SigmoidGrad: ("T", "({T}(1.0) - {0}) * {0} * {1}"),
    N.GeLU: ("T", "_gelu_{a}({0})"),
    N.GeLUGrad: ("T", "_gelu_grad_{a}({0}, {1})"),
}
REDUCTIONS = (R.ReduceSum, R.ReduceMean, R.ReduceMax)
# Primitives whose NumPy forward makes several passes and temporaries: a group of one of them
# alone is worth a kernel too.
SEVERAL_PASSES = frozenset((N.Sigmoid, N.SigmoidGrad, N.TanhGrad, N.ReluGrad, N.GeLU,
                            N.GeLUGrad))


class Fused:
    """The primitive of a fused node: `members` (the group's nodes in trace order) read `ins`
    (value ids or ("c", constant)) and give `outs`; `forward` runs the members' forwards."""

    fresh = True  # every output is new memory (plan.may_alias)
    name = "Fused"
    routes = None  # numba: inputs its kernel reads as rows of packs (kernels.attach)
    pack_sources = None  # numba: the numbers of the groups whose packs `kernel` takes
    kernel = None
    derived_inputs = ()
    view_op = False

    def __init__(self, number, members, ins, outs, meta, shape):
        self.number = number
        self.members = members
        self.ins = ins
        self.outs = outs
        self.meta = meta  # value id -> (shape, dtype) of every value the group reads or makes
        self.shape = shape  # the elementwise members' shape
        self.backend = "numpy"
        self.kernel_source = None
        self.forward = self.numpy_forward

    def __repr__(self):
        names = ", ".join(type(m.prim).__name__ for m in self.members)
        return f"Fused{self.number}[{names}]"

    def numpy_forward(self, *arrays):
        vals = {}
        for x, a in zip(self.ins, arrays):
            if type(x) is int:
                vals[x] = a
        for m in self.members:
            outs = run_node(m, [vals[x] if type(x) is int else x[1] for x in m.ins])
            vals.update(zip(m.outs, outs))
        res = tuple([vals[i] for i in self.outs])
        return res if len(res) > 1 else res[0]


def expand(trace, keep):
    """`trace` with each Fused node whose primitive fails `keep(prim)` replaced by its members
    (in order, at its place: every input of theirs is made before it); the very trace when all
    are kept."""
    steps, changed = [], False
    for s in trace.steps:
        if type(s) is Node and type(s.prim) is Fused and not keep(s.prim):
            steps.extend(s.prim.members)
            changed = True
        else:
            steps.append(s)
    return _with_steps(trace, steps) if changed else trace


def fused_groups(trace):
    """The Fused primitives of `trace`'s nodes, in trace order."""
    return [s.prim for s in trace.steps if type(s) is Node and type(s.prim) is Fused]


def _data_operands(node):
    """Positions of the operands a fused kernel reads as data (the rest must be constants)."""
    if type(node.prim) is M.Cast or type(node.prim) in REDUCTIONS:
        return (0,)
    return tuple(range(len(node.ins)))


def _operand_meta(node, j, meta):
    """(shape, dtype) of operand j as the node's forward sees it (after its call-path cast)."""
    x = node.ins[j]
    if type(x) is int:
        shape, dt = meta[x]
    else:
        a = np.asarray(x[1])
        shape, dt = a.shape, a.dtype
    if node.casts is not None and node.casts[j][0] is not None:
        dt = np.dtype(node.casts[j][0])
    return shape, np.dtype(dt)


def _broadcasts(shape, full):
    """Whether an operand of `shape` broadcasts to `full` (NumPy's rule)."""
    if len(shape) > len(full):
        return False
    return all(s == f or s == 1 for s, f in zip(shape[::-1], full[::-1]))


def promoted(node, meta):
    """The dtype a comparison converts its two operands to, found by NumPy itself on samples
    (value-based for scalar constants on NumPy 1.x, weak Python scalars on NumPy 2)."""
    samples = []
    for j, x in enumerate(node.ins):
        cast = node.casts is not None and node.casts[j][0] is not None
        samples.append(np.zeros(1, _operand_meta(node, j, meta)[1]) if type(x) is int or cast
                       else x[1])
    return np.add(*samples).dtype


def _elementwise(node, meta):
    """The output shape when `node` can be a member of a fused group, else None."""
    rule = SCALAR.get(type(node.prim))
    if rule is None or node.multi or len(node.outs) != 1:
        return None
    shape = node.shapes[0]
    out_dt = meta[node.outs[0]][1]
    prim = node.prim
    if type(prim) is M.Cast:
        if len(node.ins) != 2 or type(node.ins[1]) is int:
            return None
        try:
            to = mstype.to_np(node.ins[1][1])
        except Exception:  # noqa: BLE001 (an unusual dtype argument: not fused)
            return None
        src = _operand_meta(node, 0, meta)[1]
        if to not in FLOATS + (BOOL,) or src not in FLOATS + (BOOL,) or out_dt != to:
            return None
    elif type(prim) in (N.GeLU, N.GeLUGrad) and getattr(prim, "approximate", None) not in \
            ("tanh", "none"):
        return None
    kind = rule[0]
    if kind == "P" and out_dt != BOOL or kind != "P" and out_dt not in FLOATS:
        return None
    for j in _data_operands(node):
        x = node.ins[j]
        if type(x) is not int and not isinstance(x[1], (np.ndarray, np.generic, float, int)):
            return None
        s, dt = _operand_meta(node, j, meta)
        if not _broadcasts(s, shape) or dt not in FLOATS + (BOOL,):
            return None
        if kind == "S" and j == 0 and dt != BOOL:
            return None
    if kind == "S" and len(node.ins) != 3:
        return None
    if kind == "P" and (len(node.ins) != 2 or promoted(node, meta) not in FLOATS + (BOOL,)):
        return None
    return shape


def _reduction(node, meta):
    """The input shape when `node` reduces the last axis of a float value, else None."""
    prim = node.prim
    if type(prim) not in REDUCTIONS or node.multi or len(node.ins) != 2 or \
            type(node.ins[0]) is not int or type(node.ins[1]) is int:
        return None
    if getattr(prim, "skip_mode", False) or node.casts is not None and \
            any(dt is not None for dt, _ in node.casts):
        return None
    shape, dt = meta[node.ins[0]]
    axis = node.ins[1][1]
    if isinstance(axis, (tuple, list)) and len(axis) == 1:
        axis = axis[0]
    if not shape or type(axis) is not int or axis not in (-1, len(shape) - 1):
        return None
    if len(shape) < 2 and not prim.keep_dims:  # a 0-d result: not fused
        return None
    if dt not in FLOATS or meta[node.outs[0]][1] != dt or shape[-1] < 2:
        return None
    return shape


def row_of(shape):
    """The shape of a per-row value of a group of `shape` (its last axis kept as 1)."""
    return shape[:-1] + (1,)


def _full_of(a, b):
    """The group shape two shapes can share (equal, or one the row shape of the other), else
    None."""
    if a == b:
        return a
    if len(a) == len(b) and a[:-1] == b[:-1]:
        if b[-1] == 1 and a[-1] > 1:
            return a
        if a[-1] == 1 and b[-1] > 1:
            return b
    return None


class _Group:
    __slots__ = ("members", "open", "shape")

    def __init__(self, shape):
        self.members = []
        self.open = True
        self.shape = shape


def fuse(trace, min_nodes=MIN_NODES):
    """`trace` with each fusible group of at least `min_nodes` nodes (or one of SEVERAL_PASSES)
    replaced by one Fused node at the place of its last member; the very trace when nothing is
    fused."""
    meta = getattr(trace, "value_meta", None)
    if meta is None or not _optimizable(trace):
        return trace
    group_of = {}  # value id -> its group
    groups = []
    for pos, step in enumerate(trace.steps):
        if type(step) is Node:
            ins = [x for x in step.ins if type(x) is int]
        elif type(step) is Guard:
            ins = [step.value]
        else:
            ins = list(step.input_ids())
        near = {id(g): g for g in (group_of.get(x) for x in ins) if g is not None}
        joined = None
        if type(step) is Node and not _effectful(step) and not _barrier(step):
            shape = _elementwise(step, meta)
            if shape is not None:  # joins (merges) the open groups it reads that fit its shape
                fits = [g for g in near.values() if g.open and all(
                    meta[x][0] in (g.shape, row_of(g.shape)) for x in ins
                    if group_of.get(x) is g)]  # not a reduction's result without keep_dims
                joined = _merge(fits, shape, groups, group_of)
            else:
                shape = _reduction(step, meta)
                if shape is not None:  # joins its input's group, or starts one
                    g = group_of.get(step.ins[0])
                    joined = _merge([g] if g is not None and g.open and g.shape == shape
                                    else [], shape, groups, group_of)
            if joined is not None:
                joined.members.append((pos, step))
                for i in step.outs:
                    group_of[i] = joined
                if len(joined.members) >= MAX_NODES:  # compile time grows faster than size
                    joined.open = False
        for g in near.values():
            if g is not joined:
                g.open = False
        if type(step) is not Guard and (type(step) is not Node or _barrier(step)):
            for g in groups:
                g.open = False
    groups = [g for g in groups if len(g.members) >= min_nodes or
              type(g.members[0][1].prim) in SEVERAL_PASSES]
    if not groups:
        return trace
    return _rebuild(trace, groups, meta)


def _merge(near, shape, groups, group_of):
    """The group a node of output `shape` joins: the groups of `near` whose shape fits it (the
    same shape, or one the row shape of the other), merged in order, else a new group."""
    ok = []
    for g in near:
        full = _full_of(shape, g.shape)
        if full is not None:
            shape = full
            ok.append(g)
    ok = [g for g in ok if g.shape in (shape, row_of(shape))]
    if not ok:
        g = _Group(shape)
        groups.append(g)
        return g
    g = ok[0]
    g.shape = shape  # a group of row values joining a larger one takes its shape
    for other in ok[1:]:
        g.members.extend(other.members)
        for _, m in other.members:
            for i in m.outs:
                group_of[i] = g
        groups.remove(other)
    if len(ok) > 1:
        g.members.sort(key=lambda pm: pm[0])
    return g


def _rebuild(trace, groups, meta):
    used_outside = set(trace.out_ids)
    member_pos = {}
    made_by = {}  # value id -> the group making it
    for g in groups:
        for pos, m in g.members:
            member_pos[pos] = g
            for i in m.outs:
                made_by[i] = g
    for pos, step in enumerate(trace.steps):
        if pos in member_pos:
            owner = member_pos[pos]
            used_outside.update(x for x in step.ins if type(x) is int and
                                made_by.get(x) is not owner)
        elif type(step) is Node:
            used_outside.update(x for x in step.ins if type(x) is int)
        elif type(step) is Guard:
            used_outside.add(step.value)
        else:
            used_outside.update(step.input_ids())
    last = {}
    for number, g in enumerate(groups):
        members = [m for _, m in g.members]
        made = {i for m in members for i in m.outs}
        ins, local_meta = {}, {}  # ins: a dict as an ordered set
        for m in members:
            for j in _data_operands(m):
                x = m.ins[j]
                if type(x) is int and x not in made:
                    ins[x] = None
            for x in m.ins:
                if type(x) is int:
                    local_meta[x] = meta[x]
            for i in m.outs:
                local_meta[i] = meta[i]
        ins = list(ins)
        # array constants are kernel arguments; 0-d ones are literals of the kernel source
        ins.extend(m.ins[j] for m in members for j in _data_operands(m)
                   if type(m.ins[j]) is not int and np.ndim(m.ins[j][1]) > 0)
        outs = tuple([i for m in members for i in m.outs if i in used_outside])
        prim = Fused(number, members, tuple(ins), outs, local_meta, g.shape)
        node = Node(prim, tuple(ins), None, False, outs, tuple(meta[i][0] for i in outs),
                    len(outs) > 1)
        last[g.members[-1][0]] = node
    steps = []
    for pos, step in enumerate(trace.steps):
        if pos in last:
            steps.append(last[pos])
        elif pos not in member_pos:
            steps.append(step)
    return _with_steps(trace, steps)
