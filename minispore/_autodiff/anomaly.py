"""Anomaly mode: name the primitive, and the pass (forward or backward), that made the first NaN
or infinity.

Off, it costs nothing: no check sits on any call path. Turning it on (`detect_anomaly()` for a
block of this thread, or `set_context(detect_anomaly=True)` for the process) installs checking
wrappers around every primitive class's `forward` and `bprop`, and rebuilds the Tensor
arithmetic operators (which hold their primitive's forward directly); turning the last use off
puts the originals back. While installed, a thread with the mode off pays one flag test per
primitive call.

A primitive *makes* a NaN when its output has one and none of its inputs had; it makes an
infinity when its output has one and all its inputs were finite. Values that arrive already NaN
or infinite (a -inf attention mask) pass through silently, so the error points at the origin.
"""
import inspect
import threading

import numpy as np

from .. import context
from .._quiet import quiet
from ..common.tensor import Tensor
from ..ops.operations import math_ops as M
from ..ops.primitive import Primitive
from .tape import binary_operator

__all__ = ["detect_anomaly", "is_anomaly_enabled"]


class _Local(threading.local):
    depth = 0  # detect_anomaly() blocks open in this thread
    backward_of = None  # name of the primitive whose bprop is running in this thread


_local = _Local()
_global = False  # set_context(detect_anomaly=True)
_lock = threading.Lock()
_users = 0  # open blocks in all threads, plus one for the context flag
_saved = {}  # (owner, attribute name) -> original attribute, while installed


def is_anomaly_enabled():
    """Whether anomaly mode is on for this thread."""
    return _global or _local.depth > 0


class detect_anomaly:
    """Context manager (thread-local, re-entrant): inside it, the first primitive whose forward or
    backward turns finite values into NaN or infinity raises a RuntimeError naming it and the
    pass. For the whole process use `minispore.set_context(detect_anomaly=True)`.

    Example:
        >>> with minispore.detect_anomaly():
        ...     minispore.grad(lambda x: ops.sqrt(x).sum())(Tensor([0.0]))
        RuntimeError: For 'Sqrt', anomaly in the backward pass: ...
    """

    __slots__ = ()

    def __enter__(self):
        _acquire()
        _local.depth += 1
        return self

    def __exit__(self, *exc):
        _local.depth -= 1
        _release()
        return False


def set_global(flag):
    """The `set_context(detect_anomaly=...)` switch."""
    global _global
    flag = bool(flag)
    with _lock:
        if flag == _global:
            return
        _global = flag
    if flag:
        _acquire()
    else:
        _release()


context.watch("detect_anomaly", set_global)


def _acquire():
    global _users
    with _lock:
        _users += 1
        if _users == 1:
            _install()


def _release():
    global _users
    with _lock:
        _users -= 1
        if _users == 0:
            _uninstall()


# ---- the checks ----------------------------------------------------------------------------------

def _arrays(values):
    """The floating-point arrays among `values` (Tensors, arrays, Python floats, nested)."""
    out = []
    for v in values if isinstance(values, (tuple, list)) else (values,):
        if isinstance(v, Tensor):
            v = v._data
        if isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind in "fc":
            out.append(np.asarray(v))
        elif isinstance(v, float):  # a fill value such as -inf is an input like any other
            out.append(np.asarray(v))
        elif isinstance(v, (tuple, list)):
            out.extend(_arrays(v))
    return out


def _kinds(arrays):
    """(any NaN, any non-finite) over the arrays."""
    nan = bad = False
    for a in arrays:
        if a.size and not np.isfinite(a).all():
            bad = True
            if np.isnan(a).any():
                nan = True
                break
    return nan, bad


def _made(inputs, outputs):
    """(output index, array) of the first output with a NaN or infinity the inputs did not have."""
    in_nan, in_bad = _kinds(inputs)
    if in_nan:
        return None
    for k, o in enumerate(outputs):
        if o.size and not np.isfinite(o).all():
            if np.isnan(o).any() or not in_bad:
                return k, o
    return None


def _describe(o):
    nan = np.isnan(o)
    where = tuple(int(i) for i in np.argwhere(nan if nan.any() else ~np.isfinite(o))[0])
    value = o[where] if o.ndim else o[()]
    return (f"{value} at index {where} of a {o.dtype} tensor of shape {o.shape}",
            "had no NaN" if nan.any() else "were finite")


def _inputs_text(arrays):
    return ", ".join(f"{a.dtype}{a.shape}" for a in arrays) or "none"


def _check_forward(name, args, out):
    made = _made(_arrays(args), _arrays(out))
    if made is None:
        return
    k, o = made
    inside = _local.backward_of
    step = (f"the backward pass of '{inside}' (its '{name}')" if inside is not None
            else "the forward pass")
    value, inputs = _describe(o)
    raise RuntimeError(
        f"For '{inside if inside is not None else name}', anomaly detected in {step}: output "
        f"{k} has {value}, while the inputs ({_inputs_text(_arrays(args))}) {inputs}. "
        "(minispore.detect_anomaly / set_context(detect_anomaly=True) is on.)")


def _check_backward(name, saved, dout, grads):
    made = _made(_arrays(saved) + _arrays(dout), _arrays(grads))
    if made is None:
        return
    k, o = made
    value, inputs = _describe(o)
    raise RuntimeError(
        f"For '{name}', anomaly detected in the backward pass: gradient {k} has {value}, while "
        f"the output gradient and the values saved for it {inputs}. "
        "(minispore.detect_anomaly / set_context(detect_anomaly=True) is on.)")


# ---- installing the wrappers -----------------------------------------------------------------------

def _checked_forward(owner, attr):
    if isinstance(attr, staticmethod):
        fn, name = attr.__func__, owner.__name__

        def forward(*arrays):
            out = quiet(fn, *arrays)
            if _global or _local.depth:
                _check_forward(name, arrays, out)
            return out
        return staticmethod(forward)

    def forward(self, *arrays):
        out = quiet(attr, self, *arrays)
        if _global or _local.depth:
            _check_forward(self.name, arrays, out)
        return out
    return forward


def _checked_bprop(attr):
    def bprop(self, saved, dout, needs):
        outer = _local.backward_of
        _local.backward_of = self.name
        try:
            grads = attr(self, saved, dout, needs)
        finally:
            _local.backward_of = outer
        if _global or _local.depth:
            _check_backward(self.name, saved, dout, grads)
        return grads
    return bprop


def _primitive_classes():
    seen, todo = [], [Primitive]
    while todo:
        cls = todo.pop()
        if cls not in seen:
            seen.append(cls)
            todo.extend(cls.__subclasses__())
    return seen


_OPERATORS = {"__add__": ("_ADD", False), "__radd__": ("_ADD", True),
              "__sub__": ("_SUB", False), "__rsub__": ("_SUB", True),
              "__mul__": ("_MUL", False), "__rmul__": ("_MUL", True),
              "__truediv__": ("_DIV", False), "__rtruediv__": ("_DIV", True),
              "__floordiv__": ("_FLOORDIV", False), "__rfloordiv__": ("_FLOORDIV", True),
              "__mod__": ("_MOD", False), "__rmod__": ("_MOD", True),
              "__pow__": ("_POW", False), "__rpow__": ("_POW", True)}


def _set(owner, name, value):
    _saved[(owner, name)] = owner.__dict__[name]
    setattr(owner, name, value)


def _install():
    for cls in _primitive_classes():
        for name, wrap in (("forward", _checked_forward), ("bprop", _checked_bprop)):
            if name in cls.__dict__:
                attr = inspect.getattr_static(cls, name)
                _set(cls, name, wrap(cls, attr) if name == "forward" else wrap(attr))
    # The operators captured their primitive's forward when they were built: build them again.
    for name, (prim, reflected) in _OPERATORS.items():
        if name in Tensor.__dict__:
            _set(Tensor, name, binary_operator(getattr(M, prim), reflected))


def _uninstall():
    for (owner, name), attr in _saved.items():
        setattr(owner, name, attr)
    _saved.clear()
