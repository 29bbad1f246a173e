"""Saved-tensor hooks: `saved_tensors_hooks(pack_hook, unpack_hook)` changes how the Tensors a
node saves for its backward are kept (docs/tape.md, "Saved-tensor hooks").

While hooks are active in a thread, each Tensor in a new node's `saved` tuple is replaced by
`pack_hook(tensor)`; the node keeps a `_Packed` tuple of those packed forms, which gives the bprop
(and the engine's in-place write check) `unpack_hook(packed)` for each of them the first time it
is read. The unpacked Tensor stands for the original in the gradient: it takes the original's
place on the tape, so higher-order gradients flow through it as through the tensor it replaced.
The innermost active hooks apply; the hooks themselves run unrecorded and with hooks off.
"""
import functools
import inspect
import threading

from .._validator import check_callable, type_name
from ..common.tensor import Tensor
from . import tape as _tape

__all__ = ["register_saved_tensors_hooks", "saved_tensors_hooks"]


class _Stack(threading.local):
    hooks = ()  # this thread's active (pack_hook, unpack_hook) pairs, innermost last


_stack = _Stack()
_count_lock = threading.Lock()


class _Packed(tuple):
    """A node's saved tuple whose Tensors are held packed; reading it unpacks them (once)."""

    def __new__(cls, items, slots, unpack_hook):
        self = super().__new__(cls, items)
        self._slots = slots  # per item: (tape token, slot) of a packed Tensor, else None
        self._unpack_hook = unpack_hook
        self._values = None
        return self

    def _unpacked(self):
        values = self._values
        if values is None:
            values = self._values = tuple([
                item if where is None else _unpack(self._unpack_hook, item, where)
                for item, where in zip(tuple.__iter__(self), self._slots)])
            self._unpack_hook = None
        return values

    def __iter__(self):
        return iter(self._unpacked())

    def __getitem__(self, key):
        return self._unpacked()[key]

    def __repr__(self):
        return f"_Packed{tuple.__repr__(self)}"


def _unpack(hook, packed, where):
    with _hooks_off():
        t = hook(packed)
    if not isinstance(t, Tensor):
        raise RuntimeError(f"For 'saved_tensors_hooks', the unpack hook must return a Tensor, "
                           f"but got {type_name(t)}")
    if where[1] < 0:
        return t
    linked = _tape.wrap(t._data)  # stands for the original: its slot, not the hook's result's
    linked._tape, linked._slot = where
    return linked


def _pack(saved):
    """`saved` with its Tensors packed by this thread's innermost hooks (tape.py calls it while
    any thread has hooks)."""
    hooks = _stack.hooks
    if not hooks or not any(isinstance(v, Tensor) for v in saved):
        return saved
    pack_hook, unpack_hook = hooks[-1]
    items, slots = [], []
    with _hooks_off():
        for v in saved:
            if isinstance(v, Tensor):
                tok = v._tape
                slots.append((tok, v._slot) if tok is not None else (None, -1))
                items.append(pack_hook(v))
            else:
                slots.append(None)
                items.append(v)
    return _Packed(items, tuple(slots), unpack_hook)


class _hooks_off:
    """Run a hook unrecorded and with this thread's saved-tensor hooks off."""

    __slots__ = ("_pause", "_saved")

    def __enter__(self):
        self._saved = _stack.hooks
        _stack.hooks = ()
        self._pause = _tape.pause_recording()
        self._pause.__enter__()

    def __exit__(self, *exc):
        self._pause.__exit__(*exc)
        _stack.hooks = self._saved
        return False


class suspended:
    """This thread's saved-tensor hooks off in the block (recording goes on): for a block whose
    record is dropped and whose node keeps only its inputs (recompute)."""

    __slots__ = ("_saved",)

    def __enter__(self):
        self._saved = _stack.hooks
        _stack.hooks = ()

    def __exit__(self, *exc):
        _stack.hooks = self._saved
        return False


def _change_count(delta):
    with _count_lock:
        _tape._packing += delta


class saved_tensors_hooks:
    """Context manager: inside it, the Tensors the tape saves for backward are kept as
    `pack_hook(tensor)` (any object) and given back to the backward pass as
    `unpack_hook(packed)`, which must return a Tensor. Applies to the ops recorded for a gradient
    transform while the block runs; nested blocks use the innermost hooks."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = check_callable(pack_hook, "pack_hook", "saved_tensors_hooks")
        self.unpack_hook = check_callable(unpack_hook, "unpack_hook", "saved_tensors_hooks")
        self._entered = []

    def __enter__(self):
        prev = _stack.hooks
        _stack.hooks = prev + ((self.pack_hook, self.unpack_hook),)
        self._entered.append(prev)
        _change_count(1)
        return self

    def __exit__(self, *exc):
        _stack.hooks = self._entered.pop()
        _change_count(-1)
        return False


def register_saved_tensors_hooks(pack_hook, unpack_hook):
    """Decorator: the function runs inside `saved_tensors_hooks(pack_hook, unpack_hook)`.
    (MindSpore reads it only when compiling graphs; here graph mode captures an eager run, so it
    applies in both modes.) The hooks are also noted on the undecorated function as MindSpore
    notes them."""
    check_callable(pack_hook, "pack_hook", "register_saved_tensors_hooks")
    check_callable(unpack_hook, "unpack_hook", "register_saved_tensors_hooks")

    def decorator(fn):
        inner = inspect.unwrap(fn)
        inner._saved_tensors_pack_hook = pack_hook
        inner._saved_tensors_unpack_hook = unpack_hook

        @functools.wraps(fn)
        def run(*args, **kwargs):
            with saved_tensors_hooks(pack_hook, unpack_hook):
                return fn(*args, **kwargs)
        return run
    return decorator


_tape._pack = _pack
