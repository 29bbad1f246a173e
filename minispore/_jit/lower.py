"""Lowering a Trace to straight-line Python: one generated function per trace, values as locals,
each primitive's bound forward called directly, checks and guards inline. Returns the arrays of
the trace's outputs, or None when a shape check or guard fails. Planned nodes write into the
buffers of the trace's memory plan (plan.py) when the inputs whose layout the result follows
are C-contiguous."""
import itertools
import linecache

import numpy as np

from .._autodiff import tape as _tape
from .._quiet import _IGNORE, _reset, _set
from ..common import _writes
from ..ops.primitive import PRIMITIVES
from . import plan as _plan
from .plan import FRESH, make_plan, planned_ufunc

_counter = itertools.count()
# Primitives whose forward on real floats never raises a floating-point flag (tanh, sign and
# rounding functions, max(x, 0), moves): a call of one needs no warnings state of its own, so a
# quiet region of the generated code goes on over it instead of being left and entered again.
NO_FLAGS = frozenset(PRIMITIVES[name] for name in (
    "Tanh", "Neg", "Abs", "ReLU", "Floor", "Ceil", "Reshape", "Transpose"))


# 0-d nodes computed on NumPy scalars (`x3 = x1 * x2`): NumPy's scalar arithmetic is the same
# correctly rounded operation as its ufunc loop (~60 ns against ~550 ns for a ufunc call on 0-d
# arrays), and a ufunc called on a scalar runs the loop it runs on a 0-d array. Which NaN
# operand a scalar operation returns is the C compiler's choice (NumPy 1.26's float32 add
# returns the second, its ufunc the first), so a NaN result is computed again by the ufunc.
_SCALAR_OPERATORS = {np.add: "{0} + {1}", np.subtract: "{0} - {1}", np.multiply: "{0} * {1}",
                     np.negative: "-{0}", np.true_divide: "{0} / {1}"}
_SCALAR_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_RealDiv = PRIMITIVES["RealDiv"]
# the float unary forwards that are their ufunc on real floats (Exp, Sin, ..., Tanh)
_UNARY_RULES = (_plan._float_unary, _plan._tanh)


def _scalar_form(step, meta):
    """(expression, ufunc) of a 0-d float32/float64 node computed on NumPy scalars (`{0}`, `{1}`
    its operands, `{u}` its ufunc) when that gives its forward's bits and warnings, else None: the
    exactly rounded ufuncs (plan.PLANNED_UFUNCS), true division, and the float unary ufuncs
    (Sin, Exp, Tanh, ...), each on operands of its own dtype, in a quiet region (every one of
    these forwards runs quietly, or raises no flag)."""
    if step.multi or step.rng or step.shapes != ((),) or \
            step.casts is not None and any(c[0] is not None for c in step.casts):
        return None
    dt = meta[step.outs[0]][1]
    if dt not in _SCALAR_FLOATS:
        return None
    for x in step.ins:
        have = meta[x] if type(x) is int else (np.shape(x[1]), getattr(x[1], "dtype", None))
        if have != ((), dt) or type(x) is not int and type(x[1]) is not np.ndarray:
            return None
    prim, cls = step.prim, type(step.prim)
    f = planned_ufunc(step)
    if f is not None:
        if not (step.quiet or cls in NO_FLAGS):
            return None  # its warnings would name a scalar operation
        return _SCALAR_OPERATORS.get(f, "{u}(" + ", ".join(
            f"{{{j}}}" for j in range(len(step.ins))) + ")"), f
    forward = getattr(prim.forward, "__func__", None)
    if cls is _RealDiv and forward is cls.forward and len(step.ins) == 2:
        return _SCALAR_OPERATORS[np.true_divide], np.true_divide  # quiet(np.true_divide)
    if _plan.INTO_RULES.get(cls) in _UNARY_RULES and forward is cls.forward and \
            len(step.ins) == 1:
        return "{u}({0})", cls.kernel
    return None


def lower(trace, guard_methods, same_python, rng_snapshot, rng_restore, committed_miss,
          planned=True):
    """The generated replay function of `trace`: f(arg_arrays) -> output arrays or None (a
    miss); the first Write starts an undo point, so a miss after writes rolls them back; after a
    HostCall has run, a shape miss raises `committed_miss(prim)`."""
    ns = {"_ndarray": np.ndarray, "_asarray": np.asarray, "_set": _set, "_reset": _reset,
          "_IGNORE": _IGNORE, "_wrap": _tape.wrap, "_same": same_python,
          "_snap": rng_snapshot, "_restore": rng_restore, "_trace": trace,
          "_committed_miss": committed_miss, "_savepoint": _writes.savepoint,
          "_release": _writes.release}
    lines = ["def replay(args):"]
    body = []
    n_args = trace.n_args
    if n_args:
        body.append(", ".join(f"v{i}" for i in range(n_args)) + (", = args" if n_args == 1
                                                                   else " = args"))
        for i in range(n_args):
            ns[f"as{i}"] = trace.value_meta[i][0]
            body.append(f"if v{i}.shape != as{i}: return None")
    for k, (i, obj) in enumerate(trace.refs):
        ns[f"r{k}"] = obj
        ns[f"rs{k}"], ns[f"rd{k}"] = trace.ref_meta[k]
        body.append(f"v{i} = r{k}._data")
        body.append(f"if v{i}.shape != rs{k} or v{i}.dtype != rd{k}: return None")
    producers, via, named = _routing(trace)
    meta = trace.value_meta
    scalar = {n: form for n, step in enumerate(trace.steps) if hasattr(step, "prim")
              for form in [_scalar_form(step, meta)] if form is not None}
    plan = make_plan(trace) if planned else None
    if plan is not None and not plan.scratch and set(plan.out) <= set(scalar):
        plan = None  # every planned node runs on scalars
    if plan is not None:
        buffers = plan.buffers
        ns["_pool"] = []
        ns["_alloc"] = plan.allocate
        # one set of buffers per running call (threads, re-entry): pop and append are atomic
        body.append("bufs = _pool.pop() if _pool else _alloc()")
        body.append("".join(f"b{k}, " for k in range(len(buffers))) + "= bufs")
    rng = trace.has_rng
    if rng:
        body.append("snap = _snap(_trace)")
    miss = "_restore(snap); return None" if rng else "return None"
    quiet_on = committed = wrote = False
    arrays = _array_uses(trace, scalar, via)  # values some step reads as an array
    named -= {i for n in scalar for i in trace.steps[n].outs if i not in arrays}
    held = set()  # values held as NumPy scalars (x3)
    dead_after = _dead_after(trace, via, named)
    ref_ids = {i for i, _ in trace.refs}
    known = set(range(n_args)) | ref_ids  # values whose shape is the captured one for sure
    for n, step in enumerate(trace.steps):
        dead = dead_after.get(n - 1)
        if dead:  # as eager frees what the walk has used: the peak stays eager's
            body.append("del " + ", ".join(dead))
        if n in scalar:
            if not quiet_on:
                body.append("tok = _set(_IGNORE)")
                quiet_on = True
            text, f = scalar[n]
            if f is not None:
                ns[f"u{n}"] = f
            operands = []
            for j, x in enumerate(step.ins):
                if type(x) is not int:
                    ns[f"c{n}_{j}"] = x[1][()]
                    operands.append(f"c{n}_{j}")
                    continue
                if x not in held:
                    body.append(f"x{x} = v{x}[()]")
                    held.add(x)
                operands.append(f"x{x}")
            out = step.outs[0]
            body.append(f"x{out} = " + text.format(*operands, u=f"u{n}"))
            if f in _SCALAR_OPERATORS:  # NaN: the operand the ufunc returns
                body.append(f"if x{out} != x{out}: x{out} = u{n}({', '.join(operands)})")
            held.add(out)
            if out in arrays:
                body.append(f"v{out} = _asarray(x{out})")
            known.add(out)
        elif hasattr(step, "prim"):
            if step.quiet and not quiet_on:
                body.append("tok = _set(_IGNORE)")
                quiet_on = True
            elif not step.quiet and quiet_on and not _never_flags(step, trace):
                body.append("_reset(tok); tok = None")
                quiet_on = False
            ns[f"f{n}"] = step.prim.forward
            routed = via.get(n, ())
            operands = []
            for j, x in enumerate(step.ins):
                if type(x) is int and x in routed:
                    continue
                if type(x) is int:
                    src = f"v{x}"
                else:
                    ns[f"c{n}_{j}"] = x[1]
                    src = f"c{n}_{j}"
                if step.casts is not None and step.casts[j][0] is not None:
                    ns[f"dt{n}_{j}"] = step.casts[j][0]
                    src = f"{src}.astype(dt{n}_{j}, copy={step.casts[j][1]})"
                operands.append(src)
            if routed:  # a kernel reading earlier kernels' packed outputs whole
                ns[f"f{n}"] = step.prim.kernel
                operands += [f"pk{q}" for q in step.prim.pack_sources]
            call = f"f{n}({', '.join(operands)})"
            k = None if plan is None else plan.out.get(n)
            into = None if k is None else plan.into[n]
            checked = () if into is None else step.ins if into.layout is None else \
                [step.ins[j] for j in into.layout]
            if into is not None and _constants_contiguous(checked):
                checks = " and ".join(f"v{x}.flags.c_contiguous" for x in dict.fromkeys(
                    x for x in checked if type(x) is int))
                if into.ufunc is not None:
                    ns[f"w{n}"] = into.ufunc
                    planned_call = f"v{step.outs[0]} = w{n}({', '.join(operands)}, out=b{k})"
                else:
                    ns[f"w{n}"] = into.write
                    scratch = "".join(f"b{m}, " for m in plan.scratch.get(n, ()))
                    planned_call = (f"v{step.outs[0]} = w{n}(b{k}, {scratch}"
                                    f"{', '.join(operands)})")
                if _sure_of_outputs(step, known):  # the buffer's shape, or NumPy's own result's
                    known.update(step.outs)
                if not checks:
                    body.append(planned_call)
                    continue
                body.append(f"if {checks}: {planned_call}")
                body.append("else:")
                body.append(f"    v{step.outs[0]} = {call}")
                body.append(f"    if type(v{step.outs[0]}) is not _ndarray: "
                            f"v{step.outs[0]} = _asarray(v{step.outs[0]})")
                continue
            if step.multi and n in producers:  # a packed kernel output that others read whole
                q = step.prim.number
                body.append(f"pk{q} = {call}")
                body.extend(f"v{i} = pk{q}[{m}]" for m, i in enumerate(step.outs) if i in named)
                if not _sure_of_outputs(step, known):
                    ns[f"ps{q}"] = (len(step.outs), *step.prim.shape)
                    body.append(f"if pk{q}.shape != ps{q}: " +
                                (f"raise _committed_miss(p{n})" if committed else miss))
            elif step.multi:
                body.append(f"o = {call}")
                for m, i in enumerate(step.outs):
                    body.append(f"v{i} = o[{m}]")
                body.append("o = None")
            else:
                body.append(f"v{step.outs[0]} = {call}")
            if committed:
                ns[f"p{n}"] = step.prim
            if not _sure_of_outputs(step, known):
                for i, shp in zip(step.outs, step.shapes):
                    if i not in named:
                        continue
                    ns[f"s{i}"] = shp
                    body.append(f"if type(v{i}) is not _ndarray: v{i} = _asarray(v{i})")
                    body.append(f"if v{i}.shape != s{i}: " +
                                (f"raise _committed_miss(p{n})" if committed else miss))
            known.update(step.outs)
        elif hasattr(step, "cell") or hasattr(step, "target"):  # a HostCall or a Write
            ns[f"h{n}"] = step.run
            if hasattr(step, "target"):
                ns[f"t{n}"] = step.target
                if not wrote:
                    body.append("sp = _savepoint()")
                    miss = "_release(sp, True); sp = None; " + miss
                    wrote = True
                body.append(f"h{n}(v{step.value})")
                body.append(f"v{step.target_id} = t{n}._data")
            else:
                ins = "".join(f"v{i}, " for i in step.in_ids)
                body.append(f"o = h{n}({ins})")
                for m, i in enumerate(step.outs):
                    body.append(f"v{i} = o[{m}]")
                body.append("o = None")
            for k, (i, _) in enumerate(trace.refs):  # a write may have given a new array
                body.append(f"v{i} = r{k}._data")
            known -= ref_ids  # of any shape: a host call may have replaced a Parameter's data
            if hasattr(step, "cell"):
                committed = True  # from here on a shape miss raises: the host call wrote
        else:
            ns[f"g{n}"] = guard_methods[step.method]
            ns[f"e{n}"] = step.expected
            ns[f"ga{n}"] = step.args
            body.append(f"if not _same(g{n}(_wrap(v{step.value}), *ga{n}), e{n}): {miss}")
    outs = trace.out_ids
    body.append("return (" + "".join(f"v{i}, " for i in outs) + ")")
    lines.append("    tok = sp = None")
    if plan is not None:
        lines.append("    bufs = None")
    lines.append("    try:")
    lines.extend("        " + b for b in body)
    lines.append("    finally:")
    lines.append("        if tok is not None: _reset(tok)")
    lines.append("        if sp is not None: _release(sp, False)")
    if plan is not None:
        lines.append("        if bufs is not None: _pool.append(bufs)")
    source = "\n".join(lines) + "\n"
    name = f"<minispore-jit-{next(_counter)}>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    exec(compile(source, name, "exec"), ns)  # noqa: S102 (source generated above)
    return ns["replay"], source


def _never_flags(step, trace):
    return type(step.prim) in NO_FLAGS and step.casts is None and all(
        trace.value_meta[x][1].kind == "f" for x in step.ins if type(x) is int)


def _sure_of_outputs(step, known):
    """Whether a node's outputs are arrays of their captured shapes without a check: a primitive
    that always makes new arrays (FRESH, or a fused kernel), whose output shapes follow from its
    input shapes and constants, every input of the captured shape, no output 0-d (NumPy gives
    a scalar there)."""
    prim = step.prim
    return (type(prim) in FRESH or getattr(type(prim), "fresh", False)) and \
        all(step.shapes) and all(x in known for x in step.ins if type(x) is int)


def _uses(step):
    """The values a step reads and the values it makes."""
    if hasattr(step, "prim"):
        return [x for x in step.ins if type(x) is int], step.outs
    if hasattr(step, "cell"):
        return step.in_ids, step.outs
    return (step.value,), ()  # a Write or a Guard: reads one value


def _array_uses(trace, scalar, via):
    """The values read as arrays: by a step not computed on scalars (other than as a row of a
    pack), an effect or a guard, or returned."""
    out = set(trace.out_ids)
    for n, step in enumerate(trace.steps):
        if n not in scalar:
            routed = via.get(n, ())
            out.update(x for x in _uses(step)[0] if x not in routed)
    return out


def _routing(trace):
    """The packed kernel outputs that later kernels read whole (kernels.attach): ({step index
    of each producer}, {step index: the values that step reads as rows of a pack}, the values
    the generated code names: every value but a packed row that only kernels read whole)."""
    via, wanted = {}, set()
    for n, step in enumerate(trace.steps):
        routes = getattr(getattr(step, "prim", None), "routes", None)
        if routes:
            via[n] = routes
            wanted.update(step.prim.pack_sources)
    producers = {n for n, step in enumerate(trace.steps)  # fused groups (lower is below fuse)
                 if getattr(getattr(step, "prim", None), "pack_sources", None) is not None and
                 step.prim.number in wanted}
    named = set(range(trace.n_args)) | {i for i, _ in trace.refs} | set(trace.out_ids)
    for n, step in enumerate(trace.steps):
        uses, made = _uses(step)
        routed = via.get(n, ())
        named.update(x for x in uses if x not in routed)
        if n not in producers:
            named.update(made)
    return producers, via, named


def _dead_after(trace, via, named):
    """{step index: the names of the values computed inside the trace whose last use is that
    step, and of the packs (`pk`) a kernel last reads whole there}, so the generated code drops
    each one as soon as it is dead (the arguments, the Parameters and other outside tensors, and
    the outputs stay)."""
    keep = set(trace.out_ids) | set(range(trace.n_args)) | {i for i, _ in trace.refs}
    last, last_pack = {}, {}
    for n, step in enumerate(trace.steps):
        uses, made = _uses(step)
        routed = via.get(n, ())
        for i in made:
            if i in named:
                last[i] = n  # an output nothing reads is dead at once
        for i in uses:
            if i not in routed and i in named:
                last[i] = n
        if routed:
            for q in step.prim.pack_sources:
                last_pack[q] = n
    dead = {}
    for i, n in sorted(last.items()):
        if i not in keep:
            dead.setdefault(n, []).append(f"v{i}")
    for q, n in sorted(last_pack.items()):
        dead.setdefault(n, []).append(f"pk{q}")
    return dead


def _constants_contiguous(ins):
    """A planned node writes into its buffer only when every constant among the inputs whose
    layout its result follows is C-contiguous too (then NumPy's own result would be
    C-contiguous, the buffer's layout)."""
    return all(type(x) is int or type(x[1]) is not np.ndarray or x[1].flags.c_contiguous
               for x in ins)
