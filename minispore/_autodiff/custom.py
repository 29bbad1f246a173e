"""User-written backward rules. MindSpore's contract, shared by `Cell.bprop`, `ops.Custom(...,
bprop=...)` and `bprop_getters` registrations: `bprop(*inputs, out, dout)` returns one gradient
per input. Here they become ordinary nodes: the bprop gets the recorded inputs and output, so
a bprop written with minispore ops is differentiable again."""
import numpy as np

from ..common import _writes
from ..common.tensor import Tensor
from ..ops.primitive import Primitive
from . import tape as _tape
from .engine import _fit, vjp_of
from .tape import _tracked, needs_of, pause_recording, recording


def user_grads(what, grads, inputs, needs):
    """Per-input gradients (None where `needs` is False) from what a user bprop returned: a tuple
    or list with at least one entry per input (a bare Tensor for a single input). None entries
    mean no gradient; gradients of a broadcast shape are summed back and all are cast to their
    input's dtype."""
    n = len(inputs)
    if isinstance(grads, Tensor):
        grads = (grads,)
    elif not isinstance(grads, (tuple, list)):
        raise TypeError(f"For '{what}', the bprop must return a tuple with one gradient per "
                        f"input, but got {type(grads).__name__}")
    if len(grads) < n:
        raise ValueError(f"For '{what}', the bprop returned {len(grads)} gradients for {n} "
                         "inputs")
    result = []
    for k in range(n):
        g = grads[k]
        if not needs[k] or g is None:
            result.append(None)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"For '{what}', the gradient of input {k} must be a Tensor (or "
                            f"None), but got {type(g).__name__}")
        shape = inputs[k]._data.shape
        if g._data.shape != shape and not _reduces_to(g._data.shape, shape):
            raise ValueError(f"For '{what}', the gradient of input {k} has shape {g.shape}, "
                             f"but the input has shape {shape}")
        result.append(_fit(g, shape, inputs[k]._data.dtype))
    return tuple(result)


def derived_bprop(prim, saved, dout, needs):
    """The bprop of a primitive without one of its own: the VJP of its `reference` composite, or
    the rule registered for it in `bprop_getters` (saved: every input, then the output)."""
    if prim.reference is not None:
        return vjp_of(prim.reference, saved, dout, needs)
    rule = prim.registered_rule()
    if rule is None:
        raise RuntimeError(f"For '{prim.name}', no gradient is defined")
    inputs, out = saved[:-1], saved[-1]
    return user_grads(prim.name, rule(*inputs, out, dout), inputs, needs)


# The primitives sit below autodiff: their default rule is given to the base class here.
Primitive.bprop = derived_bprop
Primitive.vjp_of = staticmethod(vjp_of)


def _reduces_to(gshape, shape):
    try:
        return np.broadcast_shapes(gshape, shape) == gshape
    except ValueError:
        return False


def record_outputs(tape, prim, ins, out, inputs):
    """Record one node of `prim` on tape slots `ins` whose outputs `out` (a Tensor, or a flat
    tuple or list holding Tensors) were computed without recording. Returns `out` with tracked
    Tensors in place of its floating-point ones; the node saves `prim.save(inputs, outputs)`."""
    needs = needs_of(ins)
    if isinstance(out, Tensor):
        if out._data.dtype.kind not in "fc":
            return out
        t = _tracked(out._data, tape)
        tape.nodes.append((prim, ins, needs, t._slot, _saved(prim, inputs, t), _writes.clock,
                           None))
        return t
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"For '{prim.name}', the outputs must be a Tensor or a tuple of Tensors "
                        f"to be differentiated, but got {type(out).__name__}")
    items, spec = [], []
    for o in out:
        if isinstance(o, Tensor) and o._data.dtype.kind in "fc":
            t = _tracked(o._data, tape)
            spec.append((t._slot, o._data.shape, o._data.dtype))
            items.append(t)
        else:
            if isinstance(o, (tuple, list, dict)):
                raise TypeError(f"For '{prim.name}', nested outputs cannot be differentiated: "
                                "return a flat tuple of Tensors")
            spec.append((-1, (), None))
            items.append(o)
    res = items if isinstance(out, list) else tuple(items)
    tape.nodes.append((prim, ins, needs, tuple(spec), _saved(prim, inputs, res), _writes.clock,
                       None))
    return res


def _saved(prim, inputs, out):
    saved = prim.save(inputs, out)
    return _tape._pack(saved) if _tape._packing else saved  # saved-tensor hooks (saved_hooks.py)


# ---- Cell.bprop ---------------------------------------------------------------------------------

class _CellBprop:
    """The node of one call of a Cell that defines `bprop`; saves the inputs and the output."""

    differentiable = True
    broadcasts = False
    view_op = False

    __slots__ = ("cell", "kwargs")

    def __init__(self, cell, kwargs):
        self.cell = cell
        self.kwargs = kwargs

    @property
    def name(self):
        return f"{type(self.cell).__name__}.bprop"

    @staticmethod
    def save(inputs, out):
        return (*inputs, out)

    def bprop(self, saved, dout, needs):
        inputs, out = saved[:-1], saved[-1]
        grads = self.cell.bprop(*inputs, *self.kwargs.values(), out, dout)
        return user_grads(self.name, grads, inputs, needs)


def call_with_bprop(cell, construct, args, kwargs):
    """Run `construct` without recording and, inside a transform, record the call as one node
    whose backward is `cell.bprop(*inputs, out, dout)`. Parameters used inside get no gradient
    (zeros), as in MindSpore."""
    tape = recording()
    if tape is None:
        return construct(*args, **kwargs)
    with pause_recording():
        out = construct(*args, **kwargs)
    token = tape.token
    ins = tuple([a._slot if isinstance(a, Tensor) and a._tape is token else -1 for a in args])
    if max(ins, default=-1) < 0:
        return out
    return record_outputs(tape, _CellBprop(cell, kwargs), ins, out, args)
