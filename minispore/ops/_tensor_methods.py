"""Tensor operators and methods, bound onto Tensor once at import (the one upward link of L0)."""
import numbers

import numpy as np

from .._autodiff.tape import _state, apply, binary, binary_operator, call1
from ..common import _views, _writes
from ..common import dtype as mstype
from ..common.parameter import Parameter
from ..common.tensor import Tensor, bits_as
from . import function as F
from .operations import array_ops as A
from .operations import math_ops as M
from .primitive import data_function

_ADD, _SUB, _MUL, _DIV = M._ADD, M._SUB, M._MUL, M._DIV
_FLOORDIV, _MOD, _POW = M._FLOORDIV, M._MOD, M._POW
_NEG, _ABS = M.Neg(), M.Abs()
_EQ, _NE, _LT, _LE, _GT, _GE = M.Equal(), M.NotEqual(), M.Less(), M.LessEqual(), M.Greater(), \
    M.GreaterEqual()
_AND, _OR, _XOR = M.BitwiseAnd(), M.BitwiseOr(), M.BitwiseXor()
_INVERT = M.LogicalNot()


# ---- arithmetic -----------------------------------------------------------------------------------
# perf: each operator is one closure built once (tape.binary_operator), with the common operand
# kinds inlined.

__add__, __radd__ = binary_operator(_ADD), binary_operator(_ADD, True)
__sub__, __rsub__ = binary_operator(_SUB), binary_operator(_SUB, True)
__mul__, __rmul__ = binary_operator(_MUL), binary_operator(_MUL, True)
__truediv__, __rtruediv__ = binary_operator(_DIV), binary_operator(_DIV, True)
__floordiv__, __rfloordiv__ = binary_operator(_FLOORDIV), binary_operator(_FLOORDIV, True)
__mod__, __rmod__ = binary_operator(_MOD), binary_operator(_MOD, True)
__pow__, __rpow__ = binary_operator(_POW), binary_operator(_POW, True)


def __matmul__(self, other):
    return F.matmul(self, Tensor(other) if isinstance(other, np.ndarray) else other)


def __rmatmul__(self, other):
    return F.matmul(Tensor(other) if isinstance(other, np.ndarray) else other, self)


def __neg__(self):
    return call1(_NEG, self)


def __pos__(self):
    return self


def __abs__(self):
    return call1(_ABS, self)


# ---- comparisons and logic ------------------------------------------------------------------------

_COMPARABLE = (Tensor, np.ndarray, numbers.Number)


def __eq__(self, other):
    if not isinstance(other, _COMPARABLE):  # None, str, list: Python's default, unequal
        return NotImplemented
    return binary(_EQ, self, other)


def __ne__(self, other):
    if not isinstance(other, _COMPARABLE):
        return NotImplemented
    return binary(_NE, self, other)


def __lt__(self, other):
    return binary(_LT, self, other)


def __le__(self, other):
    return binary(_LE, self, other)


def __gt__(self, other):
    return binary(_GT, self, other)


def __ge__(self, other):
    return binary(_GE, self, other)


def __and__(self, other):
    return binary(_AND, self, other)


def __rand__(self, other):
    return binary(_AND, other, self)


def __or__(self, other):
    return binary(_OR, self, other)


def __ror__(self, other):
    return binary(_OR, other, self)


def __xor__(self, other):
    return binary(_XOR, self, other)


def __rxor__(self, other):
    return binary(_XOR, other, self)


def __invert__(self):
    return call1(_INVERT, self)


# ---- indexing ---------------------------------------------------------------------------------------

def _index_part(i):
    if isinstance(i, Tensor):
        a = i._data
        if a.ndim == 0 and a.dtype.kind in "iu":
            return int(a)
        if a.dtype.kind not in "iub":
            raise IndexError(f"For 'Tensor.__getitem__', a tensor index must be integer or bool, "
                             f"but got {i.dtype}")
        return a
    if isinstance(i, (list, np.ndarray)):
        a = np.asarray([_index_part(v) if isinstance(v, Tensor) else v for v in i]
                       if isinstance(i, list) else i)
        if a.dtype.kind not in "iub" and a.size:
            raise IndexError(f"For 'Tensor.__getitem__', an index list must hold integers or "
                             f"bools, but got dtype {a.dtype}")
        return a.astype(np.int64) if a.size == 0 else a
    if isinstance(i, (bool, np.bool_)):
        return bool(i)
    if isinstance(i, (int, np.integer)):
        return int(i)
    if i is None or i is Ellipsis:
        return i
    if isinstance(i, slice):
        return slice(*(int(v) if isinstance(v, (Tensor, np.integer)) else v
                       for v in (i.start, i.stop, i.step)))
    raise IndexError(f"For 'Tensor.__getitem__', unsupported index type {type(i).__name__}")


def normalize_index(index):
    """A NumPy index (a tuple) for a Tensor index: Tensors become arrays or ints."""
    if type(index) is not tuple:
        index = (index,)
    return tuple(_index_part(i) for i in index)


def __getitem__(self, index):
    if type(index) is int or type(index) is slice:  # perf: the common forms skip normalising
        return apply(A._GETITEM, (self, index))
    return apply(A._GETITEM, (self, normalize_index(index)))


def __setitem__(self, index, value):
    index = normalize_index(index)
    if isinstance(value, (list, tuple)):
        value = Tensor(value)
    elif not isinstance(value, (Tensor, int, float, bool, np.generic, np.ndarray)):
        raise TypeError(f"For 'Tensor.__setitem__', the value must be a Tensor or a number, but "
                        f"got {type(value).__name__}")
    if isinstance(value, np.ndarray):
        value = Tensor(value)
    tape = _state.tape
    if tape is not None:
        tracked = self._tape is tape.token or (isinstance(value, Tensor) and
                                              value._tape is tape.token)
        if tracked:
            if isinstance(self, Parameter):
                raise RuntimeError(f"For 'Tensor.__setitem__', Parameter '{self.name}' is being "
                                   "differentiated and cannot be written in place")
            v = M.cast(value, self._data.dtype) if isinstance(value, Tensor) else value
            _rebind(self, apply(A._SETITEM, (self, index, v)))
            _carry_write(self, "__setitem__")
            return
    # In place. Under a transform, write to a fresh copy: the old buffer may be a view shared
    # with values saved for backward.
    arr = self._data
    copied = tape is not None or not arr.flags.writeable
    if copied:
        arr = arr.copy()
    _writes.record(self, in_place=not copied)
    A.write_at(arr, index, value._data if isinstance(value, Tensor) else value)
    self._data = arr
    _writes.bump_version(self)
    if copied:
        _carry_write(self, "__setitem__")


# ---- views: a write that gives a tensor a new array reaches its whole view family -------------

def _rebind(t, new):
    """Make Tensor `t` hold `new`'s value and tape link (recorded for rollback)."""
    _writes.record(t, in_place=False)
    t._data = new._data
    if type(t) is not Parameter:  # a Parameter's tape link lives on the tape
        t._tape = new._tape
        if new._tape is not None:
            t._slot = new._slot
    _writes.bump_version(t)


def _carry_write(t, what):
    """After a write gave Tensor `t` a new array (under a transform, whose saved values may
    share the old one, or out of read-only memory): write it through to t's root, if t is a
    view, and make every view of the root again, so the family shares memory and tape links
    as in eager execution. The write into the root is a recorded ViewScatter, so gradients
    reach the root's earlier value and the written value exactly."""
    found = _views.lookup(t)
    if found is None:
        root = t
    else:
        root, steps = found
        new_root = apply(A.ViewScatter(steps), (root, t))
        if isinstance(root, Parameter):
            tape = _state.tape
            if new_root._tape is not None or (tape is not None and id(root) in tape.params):
                raise RuntimeError(f"For 'Tensor.{what}', the tensor is a view of Parameter "
                                   f"'{root.name}', which is being differentiated and cannot be "
                                   "written in place")
        _rebind(root, new_root)
    for v, steps in _views.views_of(root):
        _rebind(v, A.replay_view(root, steps))


# ---- NumPy views ------------------------------------------------------------------------------------
# Outside gradient transforms the array shares memory with the tensor, as MindSpore's does. While
# this thread runs a transform it is a read-only view: a write through it would change a value
# saved for backward without the version counter seeing it, so it fails instead ("assignment
# destination is read-only").

def _shared_array(a):
    if _state.tape is not None:
        a = a.view()
        a.flags.writeable = False
        return a
    return a if a.flags.writeable else a.copy()


def asnumpy(self):
    """The value as a NumPy array of the same dtype, sharing memory (read-only while a gradient
    transform runs in this thread)."""
    return _shared_array(self._data)


def __array__(self, dtype=None, copy=None):
    a = self._data
    if dtype is not None and a.dtype != np.dtype(dtype):
        return a.astype(dtype)
    if copy:
        return a.copy()
    return a if _state.tape is None else _shared_array(a)


# ---- methods ---------------------------------------------------------------------------------------

def _shape_args(shape):
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape


def astype(self, dtype, copy=True):
    """The tensor cast to `dtype` (a minispore or NumPy dtype)."""
    return M.cast(self, dtype)


def to(self, dtype):
    return M.cast(self, dtype)


def reshape(self, *shape):
    """The tensor with a new shape: `t.reshape(2, 3)` or `t.reshape((2, 3))`."""
    return F.reshape(self, _shape_args(shape))


def transpose(self, *axes):
    """Axes reversed (no arguments) or permuted: `t.transpose(1, 0)`."""
    axes = _shape_args(axes)
    return F.transpose(self, axes if axes else tuple(range(self.ndim))[::-1])


def permute(self, *axis):
    return F.transpose(self, _shape_args(axis))


def _T(self):
    return F.transpose(self, tuple(range(self.ndim))[::-1])


def _mT(self):
    return F.swapaxes(self, -1, -2)


def sum(self, axis=None, dtype=None, keepdims=False, initial=None, *, dim=None, keepdim=None):
    """Sum over `axis` (or torch-style `dim`/`keepdim`); bool and int32 sum to int64."""
    if isinstance(dtype, bool):  # the torch-style overload: sum(dim, keepdim)
        dtype, keepdims = None, dtype
    if dim is not None:
        axis = dim
    if keepdim is not None:
        keepdims = keepdim
    out = F.sum(self, axis, keepdims, dtype=dtype)
    return out if initial is None else out + initial


def mean(self, axis=None, keep_dims=False, *, keepdims=None, dim=None, keepdim=None):
    if dim is not None:
        axis = dim
    keep = keep_dims if keepdims is None and keepdim is None else (
        keepdims if keepdims is not None else keepdim)
    return F.mean(self, axis, keep)


def prod(self, axis=None, keep_dims=False, dtype=None):
    return F.prod(self, axis, keep_dims, dtype)


def _extreme_method(values_fn, pair_fn):
    def method(self, *args, axis=None, keepdims=False, initial=None, where=None, dim=None,
               keepdim=None):
        if keepdim is not None:
            keepdims = keepdim
        if args or dim is not None:  # t.max(1): (values, indices), as MindSpore
            d = args[0] if args else dim
            if len(args) > 1:
                keepdims = args[1]
            return pair_fn(self, d, keepdims)
        return values_fn(self, axis, keepdims, initial=initial, where=where)
    return method


max = _extreme_method(F.amax, F.max)
max.__doc__ = "Values of the maximum over `axis=` (a positional dim gives (values, indices))."
min = _extreme_method(F.amin, F.min)
min.__doc__ = "Values of the minimum over `axis=` (a positional dim gives (values, indices))."


def amax(self, axis=None, keepdims=False, *, initial=None, where=None):
    return F.amax(self, axis, keepdims, initial=initial, where=where)


def amin(self, axis=None, keepdims=False, *, initial=None, where=None):
    return F.amin(self, axis, keepdims, initial=initial, where=where)


def argmax(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    return F.argmax(self, axis if dim is None else dim, keepdims if keepdim is None else keepdim)


def argmin(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    return F.argmin(self, axis if dim is None else dim, keepdims if keepdim is None else keepdim)


def squeeze(self, axis=None):
    return F.squeeze(self, axis)


def unsqueeze(self, dim):
    return F.expand_dims(self, dim)


def expand_dims(self, axis):
    return F.expand_dims(self, axis)


def flatten(self, order="C", *, start_dim=0, end_dim=-1):
    """All axes merged into one (unlike ops.flatten, which keeps the batch axis)."""
    return F.flatten(self, order, start_dim=start_dim, end_dim=end_dim)


def view(self, *shape):
    """The tensor with a new shape (`t.view(2, 3)`), or its bits read as another dtype
    (`t.view(mindspore.int32)`: the last axis scales by the ratio of the item sizes; no
    gradient flows through it, as in MindSpore). The dtype view is a copy here."""
    if len(shape) == 1 and isinstance(shape[0], mstype.Type):
        return view_dtype(self, shape[0])
    return F.reshape(self, _shape_args(shape))


def view_dtype(t, dtype):
    """`t`'s bits as `dtype` (a DataFunction node: recomputed at every graph-mode replay)."""
    np_dtype = mstype.storage_np(dtype) or mstype.to_np(dtype)
    a = t._data
    if a.dtype.itemsize != np_dtype.itemsize:
        if a.ndim == 0:
            raise ValueError(f"For 'ViewDtype', a scalar tensor (shape: ()) cannot be viewed as "
                             f"{dtype} from {t.dtype}: the element sizes differ")
        if (a.shape[-1] * a.dtype.itemsize) % np_dtype.itemsize:
            raise ValueError(f"For 'ViewDtype', the last axis of shape {a.shape} ({t.dtype}) "
                             f"does not hold a whole number of {dtype} elements")
    if np_dtype in mstype.NP_TO_MS:
        return data_function(bits_as, t, static=(np_dtype,))
    return Tensor(bits_as(a, np_dtype))  # a storage-only dtype: no operation computes with it


def view_as(self, other):
    return F.reshape(self, other.shape)


def expand_as(self, other):
    return F.broadcast_to(self, other.shape)


def broadcast_to(self, shape):
    return F.broadcast_to(self, shape)


def std(self, axis=None, ddof=0, keepdims=False):
    return F.std(self, axis, ddof, keepdims)


def var(self, axis=None, ddof=0, keepdims=False):
    return F.var(self, axis, ddof, keepdims)


def all(self, axis=None, keep_dims=False):
    return F.all(self, axis, keep_dims)


def any(self, axis=None, keep_dims=False):
    return F.any(self, axis, keep_dims)


def clip(self, min=None, max=None):
    return F.clamp(self, min, max)


def copy(self):
    """A copy (differentiable)."""
    return F.identity(self)


def _caster(dtype):
    def method(self):
        return M.cast(self, dtype)
    return method


def norm(self, ord=None, dim=None, keepdim=False, *, dtype=None):
    return F.norm(self, ord, dim, keepdim, dtype=dtype)


def cumsum(self, axis=None, dtype=None, *, dim=None):
    axis = dim if dim is not None else (0 if axis is None else axis)
    return F.cumsum(self, axis, dtype)


def softmax(self, axis=-1, dtype=None):
    return F.softmax(self, axis, dtype=dtype)


def tile(self, *reps):
    return F.tile(self, _shape_args(reps))


def repeat(self, *repeats):
    """The tensor tiled `repeats[i]` times along axis i: `t.repeat(2, 1)` or `t.repeat((2, 1))`
    (PyTorch's repeat; `repeat_interleave` repeats single elements). `repeats` may add leading
    axes but must cover every axis of the tensor."""
    reps = _shape_args(repeats)
    if len(reps) < self.ndim:
        raise ValueError(f"For 'Tensor.repeat', 'repeats' needs at least one entry per axis of "
                         f"the tensor of shape {self.shape}, but got {reps}")
    return F.tile(self, reps)


def split(self, split_size_or_sections, axis=0):
    return F.split(self, split_size_or_sections, axis)


def chunk(self, chunks, axis=0):
    return F.chunk(self, chunks, axis)


def topk(self, k, dim=None, largest=True, sorted=True):
    return F.topk(self, k, dim, largest, sorted)


def sort(self, axis=-1, descending=False):
    return F.sort(self, axis, descending)


def masked_fill(self, mask, value):
    return F.masked_fill(self, mask, value)


def fill(self, value):
    """A new tensor of this shape and dtype filled with `value` (MindSpore's fill is not in
    place)."""
    return F.full_like(self, value)


def nonzero(self, *, as_tuple=False):
    return F.nonzero(self, as_tuple=as_tuple)


def round(self, decimals=0):
    return F.round(self, decimals=decimals)


def gather(self, input_indices, axis, batch_dims=0):
    return F.gather(self, input_indices, axis, batch_dims)


def index_select(self, axis, index):
    return F.index_select(self, axis, index)


def flip(self, dims):
    return F.flip(self, dims)


def swapaxes(self, axis0, axis1):
    return F.swapaxes(self, axis0, axis1)


def narrow(self, axis, start, length):
    return F.narrow(self, axis, start, length)


def diagonal(self, offset=0, axis1=0, axis2=1):
    """The diagonal at `offset` of the (axis1, axis2) planes, as a new last axis: a view."""
    return F.diagonal(self, offset, axis1, axis2)


def unbind(self, dim=0):
    """The slices along `dim`, as a tuple of views."""
    return F.unbind(self, dim)


def logsumexp(self, dim, keepdim=False):
    return F.logsumexp(self, dim, keepdim)


def where(self, condition, y):
    return F.where(condition, self, y)


def repeat_interleave(self, repeats, dim=None):
    return F.repeat_interleave(self, repeats, dim)


def contiguous(self):
    """This tensor if it is contiguous, else a contiguous copy (differentiable)."""
    return self if self._data.flags.c_contiguous else F.identity(self)


def _inplace(op, name=None):
    """An in-place method (`add_`, `exp_`, `clamp_`): `op(self, ...)` is written back into this
    tensor, which is marked written (version bump). Under a transform a tracked tensor is
    rebound to the new value, as `__setitem__` does; a Parameter being differentiated cannot be
    written."""
    name = name or op.__name__ + "_"

    def method(self, *args, **kwargs):
        src = self
        tape = _state.tape
        tracked = tape is not None and self._tape is tape.token
        if tracked:
            # The op may save its input for backward; give it an alias of the old value, so the
            # rebinding below does not change what was saved (y.mul_(x) under grad).
            src = _alias(self)
            args = tuple(src if a is self else a for a in args)
        out = op(src, *args, **kwargs)
        if tracked:
            out = F.identity(out)  # the op may save its output too: the tensor gets a copy
        _write_back(self, out, name)
        return self
    method.__name__ = name
    method.__doc__ = f"In place: writes `ops.{op.__name__}(self, ...)` into this tensor."
    return method


def _alias(t):
    """A new Tensor object for the same value and tape slot as `t`."""
    alias = Tensor.__new__(Tensor)
    alias._data, alias._tape, alias._slot, alias._version = t._data, t._tape, t._slot, t._version
    return alias


def _write_back(self, out, what):
    tape = _state.tape
    if tape is not None and isinstance(self, Parameter) and \
            (out._tape is tape.token or self._tape is tape.token):
        raise RuntimeError(f"For 'Tensor.{what}', Parameter '{self.name}' is being "
                           "differentiated and cannot be written in place")
    if tape is not None and out._tape is tape.token:
        _rebind(self, M.cast(out, self._data.dtype))
        _carry_write(self, what)
        return
    arr = out._data.astype(self._data.dtype, copy=False)
    if arr.shape != self._data.shape:
        raise ValueError(f"For 'Tensor.{what}', the result's shape {arr.shape} differs from "
                         f"the tensor's shape {self._data.shape}")
    in_place = tape is None and self._data.flags.writeable
    _writes.record(self, in_place)
    if in_place:
        np.copyto(self._data, arr)
    else:  # under a transform the old buffer may be shared with saved values: replace it
        self._data = arr.copy() if arr is out._data and arr.base is not None else arr
        if tape is not None and self._tape is tape.token and type(self) is not Parameter:
            self._tape = None  # the written value is a constant: its old links are cut
    _writes.bump_version(self)
    if not in_place:
        _carry_write(self, what)


def assign_value(self, value):
    """Write `value` into this tensor (same shape), in place."""
    v = value if isinstance(value, Tensor) else Tensor(value)
    _write_back(self, F.broadcast_to(M.cast(v, self._data.dtype), self.shape) if v.shape !=
                self.shape else M.cast(v, self._data.dtype), "assign_value")
    return self


def _fill_(self, value):
    _write_back(self, F.full_like(self, value), "fill_")
    return self


def _zero_(self):
    return _fill_(self, 0)


def _copy_(self, src):
    return assign_value(self, src)


_METHODS = {
    "astype": astype, "to": to, "reshape": reshape, "transpose": transpose, "permute": permute,
    "sum": sum, "mean": mean, "prod": prod, "max": max, "min": min, "amax": amax, "amin": amin,
    "argmax": argmax, "argmin": argmin, "squeeze": squeeze, "unsqueeze": unsqueeze,
    "expand_dims": expand_dims, "flatten": flatten, "view": view, "view_as": view_as,
    "expand_as": expand_as, "broadcast_to": broadcast_to, "std": std, "var": var, "all": all,
    "any": any, "clip": clip, "clamp": clip, "copy": copy, "clone": copy, "norm": norm,
    "cumsum": cumsum, "softmax": softmax, "tile": tile, "repeat": repeat, "split": split,
    "chunk": chunk, "topk": topk, "sort": sort, "masked_fill": masked_fill, "fill": fill,
    "nonzero": nonzero,
    "round": round, "gather": gather, "index_select": index_select, "flip": flip,
    "swapaxes": swapaxes, "narrow": narrow, "diagonal": diagonal, "unbind": unbind,
    "logsumexp": logsumexp, "where": where,
    "repeat_interleave": repeat_interleave, "contiguous": contiguous,
    "float": _caster(mstype.float32), "half": _caster(mstype.float16),
    "double": _caster(mstype.float64), "int": _caster(mstype.int32),
    "long": _caster(mstype.int64), "bool": _caster(mstype.bool_),
    "matmul": F.matmul, "abs": F.abs, "exp": F.exp, "log": F.log, "sqrt": F.sqrt,
    "pow": F.pow, "sigmoid": F.sigmoid, "tanh": F.tanh, "neg": F.neg, "square": F.square,
    "rsqrt": F.rsqrt, "log1p": F.log1p, "expm1": F.expm1, "floor": F.floor, "ceil": F.ceil,
    "sign": F.sign, "sin": F.sin, "cos": F.cos, "tan": F.tan, "erf": F.erf,
    "reciprocal": F.reciprocal, "maximum": F.maximum, "minimum": F.minimum, "add": F.add,
    "sub": F.sub, "mul": F.mul, "div": F.div, "equal": F.equal, "isnan": F.isnan,
    "isinf": F.isinf, "isfinite": F.isfinite, "logical_not": F.logical_not,
    "add_": _inplace(F.add), "sub_": _inplace(F.sub), "mul_": _inplace(F.mul),
    "div_": _inplace(F.div), "fill_": _fill_, "zero_": _zero_, "copy_": _copy_,
    "assign_value": assign_value, "asnumpy": asnumpy,
}


def _bind():
    names = [n for n in globals() if n.startswith("__") and n.endswith("__")
             and n not in ("__builtins__", "__name__", "__doc__", "__package__", "__loader__",
                           "__spec__", "__file__", "__cached__")]
    for n in names:
        setattr(Tensor, n, globals()[n])
    Tensor.__hash__ = object.__hash__  # __eq__ is elementwise; hashing stays by identity
    for name, fn in _METHODS.items():
        if not (isinstance(getattr(Tensor, name, None), property)):
            setattr(Tensor, name, fn)
    Tensor.T = property(_T)
    Tensor.mT = property(_mT)


_bind()
