"""The exported graph: a network captured in inference mode by the graph-mode recorder
(`minispore._jit.capture`), as inputs, named parameters, constants and primitive nodes.

A dynamic input dimension (`Tensor(shape=[None, ...])`) is found by capturing twice, at two sizes
for every dynamic dimension: a constant that differs between the captures (a reshape target, the
zero state of an LSTM) must differ by exactly that dimension, and becomes a symbolic `Dim`; any
other difference (a random draw, a value computed from the data) refuses the export.
"""
import inspect

import numpy as np

from ..._jit import capture as _capture
from ...common import dtype as mstype
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops.operations.math_ops import Cast

_CAST = Cast()


class ExportError(RuntimeError):
    """A network that cannot be written as a graph file (the message names the reason)."""


class Dim:
    """`mult` times dimension `axis` of graph input `arg` (known only when the graph runs)."""

    __slots__ = ("arg", "axis", "mult")

    def __init__(self, arg, axis, mult=1):
        self.arg, self.axis, self.mult = arg, axis, mult

    def __eq__(self, other):
        return type(other) is Dim and (self.arg, self.axis, self.mult) == \
            (other.arg, other.axis, other.mult)

    def __hash__(self):
        return hash((self.arg, self.axis, self.mult))

    def __repr__(self):
        return f"Dim(arg{self.arg}[{self.axis}]" + (f"*{self.mult})" if self.mult != 1 else ")")


class Fill:
    """A constant array whose shape holds `Dim`s: `value` broadcast to `shape`."""

    __slots__ = ("dtype", "shape", "value")

    def __init__(self, value, shape, dtype):
        self.value, self.shape, self.dtype = value, shape, dtype


class GNode:
    """One primitive: `prim` run on `ins` (value names, or ("c", constant)), giving `outs`."""

    __slots__ = ("ins", "outs", "prim")

    def __init__(self, prim, ins, outs):
        self.prim, self.ins, self.outs = prim, ins, outs

    @property
    def op(self):
        return type(self.prim).__name__


class Graph:
    """inputs: [(name, np.dtype, shape with None where dynamic)]; params: {name: array} (the
    Cell's parameter names); consts: {name: array} (other tensors the network read); nodes;
    outputs: value names; shapes and dtypes: {value name: shape with None where dynamic,
    NumPy dtype}."""

    def __init__(self, inputs, params, consts, nodes, outputs, shapes, dtypes):
        self.inputs, self.params, self.consts = inputs, params, consts
        self.nodes, self.outputs, self.shapes, self.dtypes = nodes, outputs, shapes, dtypes


class _Recorder(_capture.Recorder):
    """The graph-mode recorder (which already records Conv2D's im2col `cols`, a derived input,
    as absent), with two differences for export: each node's output dtypes are kept, and a
    tensor built by library code from NumPy data, wrapped from a fresh array or made by
    `tape.const` (an LSTM's zero state, `ops.zeros`) is a constant, as export freezes
    everything that does not depend on the inputs. A random draw is such a constant too; the
    second capture finds it (it differs) and refuses it."""

    derived_as_nodes = False  # the exported Conv2D makes its own patches

    def record(self, prim, operands, out, how):
        n = len(self.steps)
        super().record(prim, operands, out, how)
        if len(self.steps) > n:
            for i, t in zip(self.steps[-1].outs, out if type(out) is tuple else (out,)):
                self.out_dtypes[i] = t._data.dtype

    def __init__(self, arg_tensors):
        super().__init__(arg_tensors)
        self.out_dtypes = {}

    def ref(self, t):
        made = self.made.get(id(t))
        if id(t) in self.fresh or id(t) in self.consts or (
                made is not None and made[0] is t and made[1] == "library"
                and not isinstance(t, Parameter)):
            return ("c", t._data.copy())
        return super().ref(t)


def _capture_once(fn, args):
    rec = _Recorder(args)
    _, trace, reason, _ = _capture.capture(fn, args, {}, list(args), recorder=rec)
    if trace is not None:
        return trace, rec.out_dtypes
    if reason.startswith("an in-place write"):
        raise ExportError("the network wrote to a Parameter or buffer in inference mode; "
                          "export needs a pure forward")
    raise ExportError(f"the network cannot be captured as a graph: {reason}")


# The sizes a dynamic dimension takes in the two captures, by axis (distinct primes, so that a
# constant that moved with one of them is found unambiguously).
_SIZES_A = (2, 5, 11, 17, 23, 29, 37, 41)
_SIZES_B = (3, 7, 13, 19, 31, 43, 47, 53)


def _example(spec, sizes):
    """A Tensor for the input `spec`: itself when its shape is static, else data with dynamic
    dimension k of size sizes[k] (normal floats, zeros for integers and booleans)."""
    shape = tuple(spec.shape)
    if all(d >= 0 for d in shape):
        return spec
    dt = mstype.to_np(spec.dtype)
    full = tuple(sizes[k] if d < 0 else d for k, d in enumerate(shape))
    if dt.kind in "fc":
        return Tensor(np.random.default_rng(len(full)).standard_normal(full).astype(dt))
    return Tensor(np.zeros(full, dt))


def input_names(fn, n):
    """Names for the graph inputs: the parameters of `fn` (a Cell's `construct`), or x0, x1, ..."""
    target = getattr(fn, "construct", fn)
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        params = ()
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(names) >= n and len(set(names[:n])) == n:
        return names[:n]
    return ["x"] if n == 1 else [f"x{k}" for k in range(n)]


def trace_graph(fn, specs, name, names=None):
    """The Graph of `fn(*specs)` (specs: Tensors, dynamic dimensions marked -1); `names` for
    its inputs (default: `input_names`)."""
    if len(specs) > len(_SIZES_A):
        raise ExportError(f"For '{name}', at most {len(_SIZES_A)} inputs, but got {len(specs)}")
    dyn = [(k, a) for k, t in enumerate(specs) for a, d in enumerate(t.shape) if d < 0]
    if any(a >= len(_SIZES_A) for _, a in dyn):
        raise ExportError(f"For '{name}', a dynamic dimension must be among the first "
                          f"{len(_SIZES_A)} axes")
    args_a = [_example(t, _SIZES_A) for t in specs]
    args_b = [_example(t, _SIZES_B) for t in specs]
    ta, dtypes = _capture_once(fn, args_a)
    tb, _ = _capture_once(fn, args_b)
    names = names or input_names(fn, len(specs))
    return _Merger(name, dyn).merge(ta, tb, specs, dtypes, names)


def _uniform(a):
    flat = a.reshape(-1)
    return flat.size > 0 and bool(np.all(flat == flat[0]))


class _Merger:
    """Merges two captures of one network into a Graph (dynamic dimensions as `Dim`s)."""

    def __init__(self, name, dyn):
        self.name, self.dyn = name, dyn

    def fail(self, what):
        raise ExportError(f"For '{self.name}', {what}")

    def dim(self, a, b):
        if a == b:
            return a
        for arg, axis in self.dyn:
            sa, sb = _SIZES_A[axis], _SIZES_B[axis]
            if a % sa == 0 and b % sb == 0 and a // sa == b // sb:
                return Dim(arg, axis, a // sa)
        return None

    def shape(self, sa, sb):
        if len(sa) != len(sb):
            return None
        out = []
        for a, b in zip(sa, sb):
            d = self.dim(a, b)
            if d is None:
                return None
            out.append(d)
        return tuple(out)

    def const(self, a, b, op):
        if type(a) is not type(b):
            self.fail(f"the constants of '{op}' differ between two captures ({a!r}, {b!r})")
        if type(a) is np.ndarray:
            if a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
                return a
            shape = self.shape(a.shape, b.shape)
            if shape is not None and a.dtype == b.dtype and _uniform(a) and _uniform(b) and \
                    np.array_equal(a.reshape(-1)[:1], b.reshape(-1)[:1], equal_nan=a.dtype.kind in "fc"):
                return Fill(a.reshape(-1)[0], shape, a.dtype)
            self.fail(f"a constant array read by '{op}' changes from one run to the next (a random "
                      f"draw, or data-dependent values): export would freeze one draw")
        if type(a) in (tuple, list):
            if len(a) != len(b):
                self.fail(f"the constants of '{op}' differ in length between two captures")
            return type(a)(self.const(x, y, op) for x, y in zip(a, b))
        if type(a) is int:
            d = self.dim(a, b)
            if d is None:
                self.fail(f"the constant {a} of '{op}' depends on the input shapes in a way export "
                          f"cannot express (capture sizes {a} and {b})")
            return d
        if type(a) is slice:
            return slice(self.const(a.start, b.start, op), self.const(a.stop, b.stop, op),
                         self.const(a.step, b.step, op))
        if type(a) is float and repr(a) == repr(b) or a == b:
            return a
        self.fail(f"the constants of '{op}' differ between two captures ({a!r}, {b!r})")

    def merge(self, ta, tb, specs, out_dtypes, input_names):
        if len(ta.steps) != len(tb.steps) or len(ta.refs) != len(tb.refs):
            self.fail("the network runs different operations for different input sizes")
        names = {}
        inputs = []
        for k, t in enumerate(specs):
            names[k] = input_names[k]
            inputs.append((names[k], mstype.to_np(t.dtype),
                           tuple(None if d < 0 else d for d in t.shape)))
        params, consts = {}, {}
        for (i, obj), (j, _) in zip(ta.refs, tb.refs):
            if i != j:
                self.fail("the network reads different tensors for different input sizes")
            arr = obj._data
            if isinstance(obj, Parameter):
                pname = obj.name
                while pname in params:
                    pname += "_"
                params[pname] = arr
            else:
                pname = f"const_{i}"
                consts[pname] = arr
            names[i] = pname
        for k in range(len(specs)):
            if names[k] in params or names[k] in consts:
                self.fail(f"the input name '{names[k]}' is also a parameter's name")
        nodes, shapes, dtypes = [], {}, {}
        for name, dt, shape in inputs:
            shapes[name], dtypes[name] = shape, dt
        for name, arr in (*params.items(), *consts.items()):
            shapes[name], dtypes[name] = arr.shape, arr.dtype
        for sa, sb in zip(ta.steps, tb.steps):
            if type(sa) is not _capture.Node or type(sb) is not _capture.Node:
                site = (sa if type(sa) is not _capture.Node else sb).site
                self.fail(f"the network turns a tensor into a Python value at {site}: export "
                          f"needs a graph that does not depend on the data")
            op = type(sa.prim).__name__
            if type(sa.prim) is not type(sb.prim) or repr(sa.prim.attrs) != repr(sb.prim.attrs):
                self.fail(f"the network runs different operations for different input sizes "
                          f"('{op}')")
            if sa.casts is not None and any(c is not None and c[0] is not None for c in sa.casts):
                ins = self._with_casts(sa, sb, names, nodes, shapes, dtypes, op)
            else:
                ins = self._ins(sa, sb, names, op)
            outs = []
            for i, s_a, s_b in zip(sa.outs, sa.shapes, sb.shapes):
                names[i] = f"v{i}"
                outs.append(names[i])
                dtypes[names[i]] = out_dtypes[i]
                shape = self.shape(s_a, s_b)
                if shape is None:
                    self.fail(f"the output shape of '{op}' changes with the input sizes in a way "
                              f"export cannot express ({s_a}, {s_b})")
                shapes[names[i]] = tuple(None if type(d) is Dim else d for d in shape)
            nodes.append(GNode(sa.prim, ins, tuple(outs)))
        outputs = []
        for leaf, leaf_b in zip(_flat(ta.out_tree), _flat(tb.out_tree)):
            if leaf[0] != "v" or leaf_b[0] != "v":
                self.fail("an output of the network is not computed by it (an input, a "
                          "Parameter or a constant)")
            outputs.append(names[leaf[1]])
        if not outputs:
            self.fail("the network returns no tensor")
        return Graph(inputs, params, consts, nodes, outputs, shapes, dtypes)

    def _ins(self, sa, sb, names, op):
        ins = []
        for xa, xb in zip(sa.ins, sb.ins):
            if type(xa) is int:
                if xa != xb:
                    self.fail(f"the inputs of '{op}' differ between two captures")
                ins.append(names[xa])
            else:
                ins.append(("c", self.const(xa[1], xb[1], op)))
        return tuple(ins)

    def _with_casts(self, sa, sb, names, nodes, shapes, dtypes, op):
        """A node whose call path cast operands (dtype promotion): a Cast node before it."""
        ins = list(self._ins(sa, sb, names, op))
        for k, cast in enumerate(sa.casts):
            if cast is None or cast[0] is None:
                continue
            dt = np.dtype(cast[0])
            if type(ins[k]) is tuple:
                ins[k] = ("c", np.asarray(ins[k][1]).astype(dt))
                continue
            if dtypes[ins[k]] == dt:
                continue
            out = f"{ins[k]}_as_{dt.name}"
            if out not in shapes:
                nodes.append(GNode(_CAST, (ins[k], ("c", dt)), (out,)))
                shapes[out], dtypes[out] = shapes[ins[k]], dt
            ins[k] = out
        return tuple(ins)


def _flat(tree):
    kind = tree[0]
    if kind in ("tuple", "list"):
        for t in tree[1]:
            yield from _flat(t)
    elif kind == "dict":
        for _, t in tree[1]:
            yield from _flat(t)
    else:
        yield tree
