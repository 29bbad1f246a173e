"""Hooks: `Tensor.register_hook` (run by the engine on a slot's complete gradient), the hook
tables of a Cell and the identity nodes that give `Cell.register_backward_hook` its gradients,
and the handles that remove them."""
import itertools
import weakref

from .._validator import check_callable
from ..common.tensor import Tensor
from ..ops.operations.math_ops import cast
from .tape import _state, apply

_keys = itertools.count(1)


class HookHandle:
    """What every `register_*hook` returns: `remove()` unregisters the hook (again is a no-op).

    Holds the hook table weakly, as MindSpore's handles do, so a handle kept around does not keep
    a tensor's or a cell's hooks alive."""

    __slots__ = ("handle_id", "_table", "_owner", "__weakref__")

    def __init__(self, table, key, owner=None):
        self.handle_id = key
        self._table = weakref.ref(table)
        self._owner = None if owner is None else weakref.ref(owner)

    def remove(self):
        table = self._table()
        if table is not None:
            table.pop(self.handle_id, None)
        owner = self._owner() if self._owner is not None else None
        if owner is not None:
            owner._refresh_call_path()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


class HookTable(dict):
    """key -> hook, in call order (a dict subclass so that handles can refer to it weakly)."""

    __slots__ = ("__weakref__",)

    def add(self, entry, prepend=False):
        key = next(_keys)
        if prepend:
            rest = dict(self)
            self.clear()
            self[key] = entry
            self.update(rest)
        else:
            self[key] = entry
        return key


# ---- Tensor.register_hook ------------------------------------------------------------------------

# Whether any tensor has been given a hook: until then the transforms skip looking for them
# (a missing `_hooks` slot costs an AttributeError inside getattr, ~0.2 us).
registered = False


def register_hook(t, hook):
    """Call `hook(grad)` with this tensor's gradient in every backward pass that reaches it,
    once the gradient is complete (summed over every use) and before it flows on. A Tensor
    returned replaces the gradient (same shape; cast to its dtype), None keeps it.

    A hook registered outside a gradient function applies to every later gradient through
    this tensor; one registered inside on an argument or intermediate applies to that call.
    Returns a handle whose `remove()` unregisters the hook.

    Raises:
        TypeError: `hook` is not callable, or (in backward) returns neither a Tensor nor
            None.
        ValueError: (in backward) the returned Tensor has another shape.
    """
    # The hook goes in `t`'s own table; if `t` is being recorded, its slot runs the table.
    global registered
    check_callable(hook, "hook", "register_hook")
    registered = True
    table = getattr(t, "_hooks", None)
    if table is None:
        table = t._hooks = HookTable()
    key = table.add(hook)
    tape = _state.tape
    if tape is not None and t._tape is tape.token:
        attach(tape, t._slot, table)
    return HookHandle(table, key)


# `Tensor.register_hook`: common/ sits below autodiff, so the method is given to the class here.
Tensor.register_hook = register_hook


def attach(tape, slot, table):
    """Make the walk run `table` on `slot` (after the tables already there)."""
    tables = tape.hooks.get(slot, ())
    if not any(x is table for x in tables):
        tape.hooks[slot] = tables + (table,)


def run_tensor_hooks(tables, g):
    """g passed through the hooks in `tables`: each may return a replacement or None."""
    for table in tables:
        for hook in tuple(table.values()):  # a hook may remove itself
            new = hook(g)
            if new is not None:
                g = checked_gradient("Tensor.register_hook", new, g._data.shape, g._data.dtype)
    return g


def checked_gradient(what, g, shape, dtype):
    """A gradient returned by user code: a Tensor of `shape`, cast to `dtype` if needed."""
    if not isinstance(g, Tensor):
        raise TypeError(f"For '{what}', the hook must return a Tensor or None, but got "
                        f"{type(g).__name__}")
    if g._data.shape != shape:
        raise ValueError(f"For '{what}', the hook returned a gradient of shape {g.shape} where "
                         f"one of shape {shape} is expected")
    if g._data.dtype != dtype:
        g = cast(g, dtype)
    return g


# ---- Cell hooks ----------------------------------------------------------------------------------

class CellHooks:
    """The hook tables of one Cell; entries are (hook, with_kwargs, always_call)."""

    __slots__ = ("forward_pre", "forward", "backward_pre", "backward")

    def __init__(self):
        self.forward_pre = HookTable()
        self.forward = HookTable()
        self.backward_pre = HookTable()
        self.backward = HookTable()

    def __bool__(self):
        return bool(self.forward_pre or self.forward or self.backward_pre or self.backward)


def run_forward_pre_hooks(cell, table, args, kwargs):
    for hook, with_kwargs, _ in tuple(table.values()):
        if with_kwargs:
            new = hook(cell, args, kwargs)
            if new is not None:
                if not (isinstance(new, tuple) and len(new) == 2 and isinstance(new[1], dict)):
                    raise TypeError(f"For '{type(cell).__name__}', a forward pre-hook "
                                    "registered with_kwargs=True must return None or a tuple "
                                    f"(args, kwargs), but got {type(new).__name__}")
                args, kwargs = new
                args = args if isinstance(args, tuple) else (args,)
        else:
            new = hook(cell, args)
            if new is not None:
                args = new if isinstance(new, tuple) else (new,)
    return args, kwargs


def run_forward_hooks(cell, table, args, kwargs, output, failed=False):
    """The output after the forward hooks; after a failed construct only `always_call` hooks run,
    with output None."""
    for hook, with_kwargs, always_call in tuple(table.values()):
        if failed and not always_call:
            continue
        new = hook(cell, args, kwargs, output) if with_kwargs else hook(cell, args, output)
        if new is not None and not failed:
            output = new
    return output


class _GradState:
    """One call of a cell with backward hooks: what its two identity nodes share."""

    __slots__ = ("cell", "hooks", "n_inputs", "n_outputs", "input_node", "grad_output")

    def __init__(self, cell, hooks, n_inputs):
        self.cell = cell
        self.hooks = hooks
        self.n_inputs = n_inputs
        self.n_outputs = 1
        self.input_node = False
        self.grad_output = None  # set by the output node, used up by the input node


class _CellHookNode:
    """Identity (a copy) on the tracked tensors at `positions` of a cell's inputs or outputs.
    Its bprop sees every gradient at once, None for those that did not arrive."""

    keeps_missing = True
    differentiable = True
    broadcasts = False
    view_op = False

    __slots__ = ("state", "positions", "specs")

    def __init__(self, state, positions, specs):
        self.state = state
        self.positions = positions
        self.specs = specs  # (shape, dtype) of the tensor at each position

    @property
    def name(self):
        return f"{type(self.state.cell).__name__}.{type(self).__name__.strip('_')}"

    @staticmethod
    def save(args, out):
        return ()

    def forward(self, *xs):
        return tuple(x.copy() for x in xs)

    def _spread(self, dout, n):
        full = [None] * n
        for p, d in zip(self.positions, dout):
            full[p] = d
        return tuple(full)

    def _replace(self, what, new, current):
        """Check a hook's replacement for `current` (a tuple, one entry per cell input/output)."""
        owner = f"{type(self.state.cell).__name__}.{what}"
        if isinstance(new, Tensor) and len(current) == 1:
            new = (new,)
        if not isinstance(new, (tuple, list)):
            raise TypeError(f"For '{owner}', the hook must return None or a tuple of "
                            f"{len(current)} gradients, but got {type(new).__name__}")
        if len(new) != len(current):
            raise ValueError(f"For '{owner}', the hook returned {len(new)} gradients where "
                             f"{len(current)} are expected")
        new = list(new)
        for p, (shape, dtype) in zip(self.positions, self.specs):
            if new[p] is not None:
                new[p] = checked_gradient(owner, new[p], shape, dtype)
        return tuple(new)

    def _gather(self, grads):
        return tuple(grads[p] for p in self.positions)


class _CellInputs(_CellHookNode):
    __slots__ = ()

    def bprop(self, saved, dout, needs):
        st = self.state
        grad_input = self._spread(dout, st.n_inputs)
        # None when this walk brought no gradient to the outputs (a higher-order pass that
        # reaches the inputs through the first pass's gradient only)
        grad_output = st.grad_output or (None,) * st.n_outputs
        st.grad_output = None
        for hook, _, _ in tuple(st.hooks.backward.values()):
            new = hook(st.cell, grad_input, grad_output)
            if new is not None:
                grad_input = self._replace("register_backward_hook", new, grad_input)
        return self._gather(grad_input)


class _CellOutputs(_CellHookNode):
    __slots__ = ("n_outputs",)

    def __init__(self, state, positions, specs, n_outputs):
        super().__init__(state, positions, specs)
        self.n_outputs = n_outputs

    def bprop(self, saved, dout, needs):
        st = self.state
        cell = st.cell
        grad_output = self._spread(dout, self.n_outputs)
        for hook, _, _ in tuple(st.hooks.backward_pre.values()):
            new = hook(cell, grad_output)
            if new is not None:
                grad_output = self._replace("register_backward_pre_hook", new, grad_output)
        st.grad_output = grad_output
        if not st.input_node:  # no input needs a gradient: the hooks fire here, as MindSpore's
            for hook, _, _ in tuple(st.hooks.backward.values()):
                hook(cell, (None,) * st.n_inputs, grad_output)
        return self._gather(grad_output)


def _spec(t):
    return t._data.shape, t._data.dtype


def _float_tracked(t, token):
    return isinstance(t, Tensor) and t._tape is token and t._data.dtype.kind in "fc"


def wrap_inputs(cell, hooks, tape, args):
    """(state, args) with the tracked positional Tensor inputs passed through an identity node
    whose bprop calls the backward hooks with the cell's input gradients."""
    tensors = [k for k, a in enumerate(args) if isinstance(a, Tensor)]
    state = _GradState(cell, hooks, len(tensors))
    token = tape.token
    picked = [(j, k) for j, k in enumerate(tensors) if _float_tracked(args[k], token)]
    if not picked:
        return state, args
    node = _CellInputs(state, tuple(j for j, _ in picked), tuple(_spec(args[k]) for _, k in picked))
    new = apply(node, [args[k] for _, k in picked])
    args = list(args)
    for (_, k), t in zip(picked, new):
        args[k] = t
    state.input_node = True
    return state, tuple(args)


def wrap_outputs(state, tape, out):
    """`out` (a Tensor, or a tuple or list of them) with its tracked tensors passed through an
    identity node whose bprop calls the backward pre-hooks (and, without an input node, the
    backward hooks)."""
    seq = isinstance(out, (tuple, list))
    items = list(out) if seq else [out]
    state.n_outputs = len(items)
    token = tape.token
    picked = [k for k, o in enumerate(items) if _float_tracked(o, token)]
    if not picked:
        return out
    node = _CellOutputs(state, tuple(picked), tuple(_spec(items[k]) for k in picked), len(items))
    for k, t in zip(picked, apply(node, [items[k] for k in picked])):
        items[k] = t
    if not seq:
        return items[0]
    if isinstance(out, list):
        return items
    return type(out)(*items) if hasattr(out, "_fields") else tuple(items)  # namedtuples too
