"""Activation recomputation (`recompute(block, *args)`, `Cell.recompute()`): a recomputed call is
one node that saves only its inputs; its backward runs the block again, with the same random
draws, under recording and walks back through that record."""
import weakref

from ..common import _writes, seed as _seed
from ..common.tensor import Tensor
from . import saved_hooks, tape as _tape
from .custom import record_outputs
from .engine import backward
from .tape import _state, recording


def recompute(block, *args, use_reentrant=True, output_recompute=False, early_stop=True,
              context_fn=None, **kwargs):
    """Run `block(*args, **kwargs)` without keeping its intermediate values for backward: the
    gradient pass runs the block again. Values and gradients are those of a plain call (bitwise
    for a deterministic block; random ops such as dropout draw the same numbers again).

    Args:
        block (Cell or callable): what to run. MindSpore 2.10 accepts only a Cell here;
            minispore also takes a plain function (like `torch.utils.checkpoint`).
        args: its positional inputs; kwargs are passed through too.
        use_reentrant, output_recompute, early_stop, context_fn: MindSpore's PyNative options,
            accepted for compatibility; they do not change the result.

    Everything the block reads that needs a gradient (inputs, parameters, tensors it closes
    over) gets it. In-place writes made while the block is recomputed are undone, so a BatchNorm
    in training mode updates its running statistics once, as without recompute (MindSpore and
    PyTorch update them twice).

    Raises:
        TypeError: `block` is not callable.
        ValueError: (inside a transform) the block wrote to one of its inputs in place, which
            would make the recomputation read other values.
    """
    if not callable(block):
        raise TypeError(f"For 'recompute', 'block' must be a Cell or a callable, but got "
                        f"{type(block).__name__}")
    return run_recomputed(block, args, kwargs)


def run_recomputed(fn, args, kwargs):
    """fn(*args, **kwargs), recorded (inside a transform) as one recomputing node."""
    tape = recording()
    if tape is None:
        return fn(*args, **kwargs)
    nodes = tape.nodes
    first_node, first_slot = len(nodes), tape.n_slots
    rng = _seed._streams_state()
    versions = [_writes.version_of(a) for a in args if isinstance(a, Tensor)]
    with saved_hooks.suspended():  # the block's record is dropped below: nothing of it is kept
        out = fn(*args, **kwargs)
    if versions != [_writes.version_of(a) for a in args if isinstance(a, Tensor)]:
        raise ValueError("For 'recompute', the block wrote to one of its inputs in place: "
                         "recomputing it would read other values. Write to a copy instead")
    # The block is recorded as usual, then its record is dropped: that frees its intermediates
    # and tells which outer slots it read (inputs, weights, captured tensors).
    read = {}
    for node in nodes[first_node:]:
        for s in node[1]:
            if 0 <= s < first_slot:
                read[s] = None
    del nodes[first_node:]
    if not read:
        return out
    node = _Recomputed(fn, kwargs, tuple(read), weakref.ref(tape), rng)
    return record_outputs(tape, node, node.ins, out, args)


class _Recomputed:
    """The node of one recomputed call. Saves its inputs; holds the block, the slots the block
    reads (its gradients go there) and the random streams as they were when it ran."""

    differentiable = True
    broadcasts = False
    view_op = False
    name = "recompute"
    tape_bound = True  # its backward reruns the block on the tape it was recorded on

    __slots__ = ("fn", "kwargs", "ins", "tape", "rng")

    def __init__(self, fn, kwargs, ins, tape_ref, rng):
        self.fn = fn
        self.kwargs = kwargs
        self.ins = ins
        self.tape = tape_ref  # weak: the tape owns this node
        self.rng = rng

    @staticmethod
    def save(inputs, out):
        return tuple(inputs)  # Tensors among them get the engine's in-place write check

    def bprop(self, saved, dout, needs):
        tape = self.tape()
        douts = dout if isinstance(dout, tuple) else (dout,)
        # The block runs again on its own tape, where its inputs are tracked, and the walk back
        # over that re-run goes under whatever this bprop runs under: unrecorded (a first-order
        # walk), recorded on the same tape (grad of grad), or recorded on another tape (forward
        # mode's transposition, where this tape's values are constants and only dout is tracked).
        current = _state.tape
        now = _seed._streams_state()
        _seed._set_streams_state(self.rng)
        outer_log, _writes._log.entries = _writes._log.entries, []
        try:
            _tape.begin_transform(tape)
            try:
                first = len(tape.nodes)
                out = self.fn(*saved, **self.kwargs)
            finally:
                _tape.end_transform(tape, current)
        finally:
            _seed._set_streams_state(now)
            writes, _writes._log.entries = _writes._log.entries, outer_log
            _writes.rollback(writes)  # the first run's side effects (BatchNorm statistics) stay
        outs = out if isinstance(out, (tuple, list)) else (out,)
        token = tape.token
        roots = [(o._slot, d) for o, d in zip(outs, douts)
                 if d is not None and isinstance(o, Tensor) and o._tape is token]
        grads = backward(tape, first, roots, current is not None)
        if current is not tape:  # the re-run is not part of a record anyone walks again
            del tape.nodes[first:]
        return tuple([grads[s] for s in self.ins])
