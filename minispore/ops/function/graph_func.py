"""The helpers MindSpore's graph compiler exposes as functions (`ops.scalar_add`,
`ops.tuple_getitem`, `ops.make_tuple`, `ops.depend`, `ops.partial`, `ops.print_`, ...). In
PyNative mode they act on Python values; here they are those Python operations, with
MindSpore's argument checks and results."""
import functools
import math
import numbers
import operator

import numpy as np

from ..._validator import type_name
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...common.parameter import Parameter
from ..operations.math_ops import cast
from ..primitive import Primitive

__all__ = [
    "scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod",
    "scalar_pow", "scalar_log", "scalar_uadd", "scalar_usub", "scalar_eq", "scalar_ne",
    "scalar_lt", "scalar_le", "scalar_gt", "scalar_ge", "scalar_max", "scalar_min",
    "scalar_cast", "tuple_getitem", "tuple_setitem", "tuple_len", "tuple_reversed", "tuple_div",
    "tuple_equal", "list_getitem", "list_setitem", "list_len", "list_equal", "make_tuple",
    "make_list", "make_dict", "make_slice", "make_range", "dict_getitem", "dict_setitem",
    "in_dict", "not_in_dict", "bool_and", "bool_or", "bool_not", "bool_eq", "is_", "is_not",
    "string_concat", "string_eq", "shape_mul", "reduced_shape", "typeof", "hastype",
    "isconstant", "depend", "partial", "print_", "switch", "hyper_add", "zip_operation",
    "mixed_precision_cast", "add_flags", "constexpr", "stop_gradient_", "dtype", "shape_",
    "assign",
]
PRIMITIVE_CLASSES = ("Partial", "Print", "Depend", "Assert", "ScalarCast", "TensorToTuple",
                     "Assign", "WhileLoop", "ForiLoop", "Scan", "PyFunc", "CompareAndBitpack",
                     "DataFormatDimMap", "DataFormatVecPermute")


def _scalar(name, *values):
    for v in values:
        if isinstance(v, Tensor) or not isinstance(v, (numbers.Number, np.number, np.bool_)):
            raise TypeError(f"For '{name}', the inputs must be Python scalars (int, float, bool), "
                            f"but got {type_name(v)}")


class _ScalarOp(Primitive):
    """A Python-scalar operation (`ops.scalar_add(1, 2)` is 3)."""

    def __init__(self, name, fn):
        super().__init__(name)
        self._fn = fn

    def __call__(self, *args):
        _scalar(self.name, *args)
        return self._fn(*args)


def _true_div(x, y):
    if y == 0:
        raise ValueError("For 'ScalarDiv', the divisor can not be zero")
    return x / y


def _floor_div(x, y):
    if y == 0:
        raise ValueError("For 'ScalarFloorDiv', the divisor can not be zero")
    return x // y


def _mod(x, y):
    if y == 0:
        raise ValueError("For 'ScalarMod', the divisor can not be zero")
    return x % y


scalar_add = _ScalarOp("ScalarAdd", operator.add)
scalar_sub = _ScalarOp("ScalarSub", operator.sub)
scalar_mul = _ScalarOp("ScalarMul", operator.mul)
scalar_div = _ScalarOp("ScalarDiv", _true_div)
scalar_floordiv = _ScalarOp("ScalarFloorDiv", _floor_div)
scalar_mod = _ScalarOp("ScalarMod", _mod)
scalar_pow = _ScalarOp("ScalarPow", operator.pow)
scalar_log = _ScalarOp("ScalarLog", math.log)
scalar_uadd = _ScalarOp("ScalarUadd", operator.pos)
scalar_usub = _ScalarOp("ScalarUsub", operator.neg)
scalar_eq = _ScalarOp("ScalarEq", operator.eq)
scalar_ne = _ScalarOp("ScalarNe", operator.ne)
scalar_lt = _ScalarOp("ScalarLt", operator.lt)
scalar_le = _ScalarOp("ScalarLe", operator.le)
scalar_gt = _ScalarOp("ScalarGt", operator.gt)
scalar_ge = _ScalarOp("ScalarGe", operator.ge)
scalar_max = _ScalarOp("ScalarMax", max)
scalar_min = _ScalarOp("ScalarMin", min)
bool_and = _ScalarOp("bool_and", lambda x, y: bool(x) and bool(y))
bool_or = _ScalarOp("bool_or", lambda x, y: bool(x) or bool(y))
bool_not = _ScalarOp("bool_not", operator.not_)
bool_eq = _ScalarOp("bool_eq", lambda x, y: bool(x) == bool(y))

_SCALAR_CASTS = {mstype.int64: int, mstype.float64: float, mstype.bool_: bool}


class ScalarCast(Primitive):
    """`ScalarCast()(x, dtype)`: a Python scalar converted to int (int64), float (float64) or
    bool (bool_)."""

    def __call__(self, input_x, input_y):
        _scalar("ScalarCast", input_x)
        to = _SCALAR_CASTS.get(input_y)
        if to is None:
            raise ValueError(f"For 'ScalarCast', the supported types are int64, float64 and "
                             f"bool, but got {input_y}")
        return to(input_x)


def scalar_cast(input_x, input_y):
    """`input_x` (a Python scalar) as int64, float64 or bool: a Python int, float or bool."""
    return ScalarCast()(input_x, input_y)


def _sequence(name, kind, *values):
    for v in values:
        if not isinstance(v, kind):
            kinds = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            raise TypeError(f"For '{name}', the input must be a {kinds}, but got {type_name(v)}")


def tuple_getitem(x, index):
    _sequence("tuple_getitem", tuple, x)
    return x[index]


def tuple_setitem(x, index, value):
    """A new tuple: `x` with `x[index]` replaced by `value`."""
    _sequence("tuple_setitem", tuple, x)
    items = list(x)
    items[index] = value
    return tuple(items)


def tuple_len(x):
    _sequence("tuple_len", tuple, x)
    return len(x)


def tuple_reversed(x):
    _sequence("tuple_reversed", tuple, x)
    return x[::-1]


def tuple_div(x, y):
    """Elementwise integer division of two shapes of equal length (each divisible)."""
    _sequence("tuple_div", tuple, x, y)
    if len(x) != len(y):
        raise ValueError(f"For 'tuple_div', the tuples must have the same length, but got "
                         f"{len(x)} and {len(y)}")
    if any(b == 0 or a % b for a, b in zip(x, y)):
        raise ValueError(f"For 'tuple_div', each element of {x} must be divisible by the one "
                         f"of {y}")
    return tuple(a // b for a, b in zip(x, y))


def tuple_equal(x, y):
    _sequence("tuple_equal", tuple, x, y)
    return x == y


def list_getitem(x, index):
    _sequence("list_getitem", list, x)
    return x[index]


def list_setitem(x, index, value):
    """A new list: `x` with `x[index]` replaced by `value` (`x` is not changed)."""
    _sequence("list_setitem", list, x)
    items = list(x)
    items[index] = value
    return items


def list_len(x):
    _sequence("list_len", list, x)
    return len(x)


def list_equal(x, y):
    _sequence("list_equal", list, x, y)
    return x == y


def make_tuple(*elements):
    return tuple(elements)


def make_list(*elements):
    return list(elements)


def make_dict(keys, values):
    """A dict from a tuple of keys and a tuple of values of the same length."""
    _sequence("make_dict", (tuple, list), keys, values)
    if len(keys) != len(values):
        raise ValueError(f"For 'make_dict', got {len(keys)} keys and {len(values)} values")
    return dict(zip(keys, values))


def make_slice(start, stop, step):
    return slice(start, stop, step)


def make_range(start, limit=None, delta=1):
    """`tuple(range(start, limit, delta))`; `make_range(n)` is `range(n)`."""
    if limit is None:
        start, limit = 0, start
    for v in (start, limit, delta):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"For 'make_range', the arguments must be ints, but got {type_name(v)}")
    if delta == 0:
        raise ValueError("For 'make_range', 'delta' can not be zero")
    return tuple(range(start, limit, delta))


def dict_getitem(dic, key):
    _sequence("dict_getitem", dict, dic)
    return dic[key]


def dict_setitem(dic, key, value):
    """A new dict: `dic` with `key` set to `value` (`dic` is not changed)."""
    _sequence("dict_setitem", dict, dic)
    return {**dic, key: value}


def in_dict(key, dic):
    _sequence("in_dict", dict, dic)
    return key in dic


def not_in_dict(key, dic):
    _sequence("not_in_dict", dict, dic)
    return key not in dic


def is_(x, y):
    return x is y


def is_not(x, y):
    return x is not y


def string_concat(x, y):
    _sequence("string_concat", str, x, y)
    return x + y


def string_eq(x, y):
    _sequence("string_eq", str, x, y)
    return x == y


def shape_mul(input_data):
    """The product of a shape tuple's elements (1 for ())."""
    _sequence("shape_mul", tuple, input_data)
    return math.prod(input_data)


def reduced_shape(shape, axis):
    """`shape` with the reduced axes set to 1 (all of them when `axis` is ())."""
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if not axes:
        return (1,) * len(shape)
    rank = len(shape)
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"For 'reduced_shape', axis {a} is out of range for rank {rank}")
    axes = {a % rank for a in axes}
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


class _TensorType:
    """What `ops.typeof` returns for a Tensor: `mindspore.tensor[float32]`."""

    def __init__(self, element):
        self.element = element

    def __eq__(self, other):
        return isinstance(other, _TensorType) and other.element == self.element

    def __hash__(self):
        return hash(("tensor", self.element))

    def __repr__(self):
        return f"mindspore.tensor[{str(self.element).lower()}]"


def typeof(x):
    """The MindSpore type of `x`: `tensor[Float32]` for a Tensor, `Int64` for an int, ..."""
    if isinstance(x, Tensor):
        return _TensorType(x.dtype)
    if isinstance(x, bool):
        return mstype.bool_
    if isinstance(x, int):
        return mstype.int64
    if isinstance(x, float):
        return mstype.float64
    return type(x)


def hastype(x, t):
    """Whether `typeof(x)` is `t` (a Tensor's type is `tensor[...]`, not its dtype)."""
    return typeof(x) == t


def isconstant(x):
    """True: every value is known when PyNative code runs."""
    return True


def dtype(x):
    """The dtype of a Tensor (`ops.dtype(t)` is `t.dtype`)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'DType', the input must be a Tensor, but got {type_name(x)}")
    return x.dtype


def shape_(x):
    """The shape of a Tensor as a tuple."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'Shape', the input must be a Tensor, but got {type_name(x)}")
    return x.shape


class Depend(Primitive):
    """`Depend()(value, expr)` returns value (an ordering hint in graph mode)."""

    def __call__(self, value, expr):
        return value


def depend(value, expr):
    """Returns `value` (an execution-order hint in MindSpore's graph mode)."""
    return value


class Partial(Primitive):
    """`Partial()(fn, *args)`: `fn` with its first arguments bound."""

    def __call__(self, *args):
        if not args or not callable(args[0]):
            raise TypeError("For 'Partial', the first input must be a callable")
        return functools.partial(*args)


def partial(func, *args):
    """`func` with its first arguments bound (functools.partial)."""
    return Partial()(func, *args)


class Print(Primitive):
    """`Print()(*values)`: prints each value on its own line (strings as they are, Tensors
    as their repr); returns None."""

    def __call__(self, *input_x):
        for v in input_x:
            print(v if isinstance(v, str) else repr(v))


def print_(*input_x):
    """Prints each value on its own line, as `ops.Print()`."""
    return Print()(*input_x)


class Assert(Primitive):
    """`Assert(summarize=3)(condition, input_data)`: raises ValueError, showing the first
    `summarize` values of each input, when `condition` (a bool or a bool Tensor) is false."""

    def __init__(self, summarize=3):
        super().__init__()
        if isinstance(summarize, bool) or not isinstance(summarize, int):
            raise TypeError(f"For 'Assert', 'summarize' must be an int, but got "
                            f"{type_name(summarize)}")
        self.summarize = summarize

    def __call__(self, condition, input_data):
        cond = condition._data if isinstance(condition, Tensor) else condition
        if bool(np.all(cond)):
            return None
        shown = [np.asarray(d._data if isinstance(d, Tensor) else d).reshape(-1)[:self.summarize]
                 for d in input_data]
        raise ValueError(f"For 'Assert', the condition is false; input data: {shown}")


class TensorToTuple(Primitive):
    """`TensorToTuple()(x)`: the elements of a 1-D Tensor as a tuple of Python scalars."""

    def __call__(self, input_x):
        if not isinstance(input_x, Tensor) or input_x.ndim != 1:
            raise TypeError(f"For 'TensorToTuple', the input must be a 1-D Tensor, but got "
                            f"{type_name(input_x)}")
        return tuple(input_x.tolist())


def switch(cond, true_branch, false_branch):
    """`true_branch` if `cond` holds, else `false_branch`."""
    cond = cond._data if isinstance(cond, Tensor) else cond
    return true_branch if bool(cond) else false_branch


def hyper_add(x, y):
    """`x + y`, mapped over matching (nested) tuples and lists."""
    if isinstance(x, (tuple, list)):
        if not isinstance(y, (tuple, list)) or len(x) != len(y):
            raise ValueError(f"For 'hyper_add', the inputs must have the same structure, but "
                             f"got {type_name(x)} and {type_name(y)}")
        return type(x)(hyper_add(a, b) for a, b in zip(x, y))
    return x + y


def zip_operation(*sequences):
    """The tuples of corresponding elements, as `tuple(zip(...))`."""
    _sequence("zip_operation", (tuple, list), *sequences)
    return tuple(zip(*sequences))


def mixed_precision_cast(dst_type, input_x):
    """Every floating-point Tensor in `input_x` (a Tensor, or nested tuples, lists and dicts)
    cast to `dst_type`; everything else as it is."""
    if isinstance(input_x, Tensor):
        return cast(input_x, dst_type) if input_x._data.dtype.kind == "f" else input_x
    if isinstance(input_x, (tuple, list)):
        return type(input_x)(mixed_precision_cast(dst_type, v) for v in input_x)
    if isinstance(input_x, dict):
        return {k: mixed_precision_cast(dst_type, v) for k, v in input_x.items()}
    return input_x


def add_flags(fn=None, **flags):
    """Attach `flags` to `fn` (as `fn._func_graph_flags`, MindSpore's place for them); usable as
    a decorator with or without arguments."""
    def attach(f):
        merged = dict(getattr(f, "_func_graph_flags", {}))
        merged.update(flags)
        f._func_graph_flags = merged
        return f
    return attach if fn is None else attach(fn)


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """MindSpore's decorator for functions evaluated at compile time; in PyNative (and here)
    the function runs as it is."""
    return (lambda f: f) if fn is None else fn


def stop_gradient_(input):
    """Stops the gradient through `input` in place: later uses of it are constants to every
    active transform (MindSpore's in-place form; returns None)."""
    if isinstance(input, Parameter) or not isinstance(input, Tensor):
        raise TypeError(f"For 'stop_gradient_', the input must be a Tensor that is not a "
                        f"Parameter (use requires_grad=False), but got {type_name(input)}")
    input._tape = None


class Assign(Primitive):
    """`Assign()(variable, value)`: write value into the Parameter (or Tensor) `variable` in
    place, keeping its dtype; returns it."""

    def __call__(self, variable, value):
        if isinstance(variable, Parameter):
            return variable.assign_value(value)
        if not isinstance(variable, Tensor):
            raise TypeError(f"For 'Assign', 'variable' must be a Parameter or Tensor, but got "
                            f"{type(variable).__name__}")
        shape = np.shape(value._data if isinstance(value, Tensor) else value)
        try:
            fits = np.broadcast_shapes(shape, variable.shape) == variable.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"For 'Assign', the value's shape {shape} does not match the "
                             f"variable's shape {variable.shape}")
        variable[...] = value
        return variable


def assign(variable, value):
    """Write `value` into the Parameter (or Tensor) `variable` in place, keeping its dtype;
    returns it."""
    return Assign()(variable, value)



# ---- functional control flow: in PyNative these run as Python loops (differentiable through
# whatever the loop body computes) ------------------------------------------------------------------

class WhileLoop(Primitive):
    """`WhileLoop()(cond_func, loop_func, init_val)`: `val = loop_func(val)` while
    `cond_func(val)` holds; returns the last value."""

    def __call__(self, cond_func, loop_func, init_val):
        for name, fn in (("cond_func", cond_func), ("loop_func", loop_func)):
            if not callable(fn):
                raise TypeError(f"For 'WhileLoop', '{name}' must be callable, but got "
                                f"{type_name(fn)}")
        val = init_val
        while bool(cond_func(val)):
            val = loop_func(val)
        return val


class ForiLoop(Primitive):
    """`ForiLoop()(lower, upper, loop_func, init_val, unroll=True)`: `val = loop_func(i, val)`
    for i in range(lower, upper); returns the last value."""

    def __call__(self, lower, upper, loop_func, init_val, unroll=True):
        if not callable(loop_func):
            raise TypeError(f"For 'ForiLoop', 'loop_func' must be callable, but got "
                            f"{type_name(loop_func)}")
        val = init_val
        for i in range(int(lower), int(upper)):
            val = loop_func(i, val)
        return val


class Scan(Primitive):
    """`Scan()(loop_func, init, xs, length=None, unroll=True)`: `carry, y = loop_func(carry, x)`
    over the elements of `xs` (or `length` times with x None); returns (carry, [y, ...])."""

    def __call__(self, loop_func, init, xs, length=None, unroll=True):
        if not callable(loop_func):
            raise TypeError(f"For 'Scan', 'loop_func' must be callable, but got "
                            f"{type_name(loop_func)}")
        if xs is None:
            if length is None:
                raise ValueError("For 'Scan', give 'xs' or 'length'")
            xs = [None] * int(length)
        elif length is not None and int(length) != len(xs):
            raise ValueError(f"For 'Scan', 'length' {length} differs from len(xs) {len(xs)}")
        carry, ys = init, []
        for x in xs:
            carry, y = loop_func(carry, x)
            ys.append(y)
        return carry, ys


class PyFunc(Primitive):
    """`PyFunc(fn, in_types, in_shapes, out_types, out_shapes, stateful=True)(*inputs)`: runs the
    Python function `fn` on the inputs' NumPy arrays and returns its outputs as a tuple of
    Tensors, checked against the declared types and shapes. Not differentiable."""

    def __init__(self, fn, in_types, in_shapes, out_types, out_shapes, stateful=True):
        super().__init__()
        if not callable(fn):
            raise TypeError(f"For 'PyFunc', 'fn' must be callable, but got {type_name(fn)}")
        if len(in_types) != len(in_shapes) or len(out_types) != len(out_shapes):
            raise ValueError("For 'PyFunc', each type needs a shape (in and out)")
        self.fn, self.stateful = fn, bool(stateful)
        self.in_types, self.in_shapes = list(in_types), [tuple(s) for s in in_shapes]
        self.out_types, self.out_shapes = list(out_types), [tuple(s) for s in out_shapes]

    def __call__(self, *args):
        if len(args) != len(self.in_types):
            raise ValueError(f"For 'PyFunc', expected {len(self.in_types)} inputs, got "
                             f"{len(args)}")
        arrays = []
        for k, (a, t, shape) in enumerate(zip(args, self.in_types, self.in_shapes)):
            if not isinstance(a, Tensor) or a.dtype != t or a.shape != shape:
                raise TypeError(f"For 'PyFunc', input {k} must be a {t} Tensor of shape {shape}, "
                                f"but got {type_name(a) if not isinstance(a, Tensor) else (a.dtype, a.shape)}")
            arrays.append(a.asnumpy())
        out = self.fn(*arrays)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        if len(outs) != len(self.out_types):
            raise ValueError(f"For 'PyFunc', 'fn' returned {len(outs)} outputs, declared "
                             f"{len(self.out_types)}")
        result = []
        for k, (o, t, shape) in enumerate(zip(outs, self.out_types, self.out_shapes)):
            arr = np.asarray(o._data if isinstance(o, Tensor) else o)
            if arr.shape != shape:
                raise ValueError(f"For 'PyFunc', output {k} has shape {arr.shape}, declared "
                                 f"{shape}")
            result.append(Tensor(arr.astype(mstype.to_np(t))))
        return tuple(result)


class CompareAndBitpack(Primitive):
    """`CompareAndBitpack()(x, threshold)`: `x > threshold` packed 8 to a uint8 along the last
    axis (whose size must be a multiple of 8), first element in the high bit."""

    def __call__(self, x, threshold):
        if not isinstance(x, Tensor) or x.ndim == 0 or x.shape[-1] % 8:
            raise ValueError(f"For 'CompareAndBitpack', 'x' must be a Tensor whose last dim is a "
                             f"multiple of 8, but got {type_name(x) if not isinstance(x, Tensor) else x.shape}")
        t = threshold._data if isinstance(threshold, Tensor) else threshold
        if np.ndim(t) != 0:
            raise ValueError("For 'CompareAndBitpack', 'threshold' must be a scalar")
        return Tensor(np.packbits(x._data > t, axis=-1))


def _format_args(name, src_format, dst_format):
    for arg, fmt in (("src_format", src_format), ("dst_format", dst_format)):
        if not isinstance(fmt, str) or len(fmt) not in (4, 5) or len(set(fmt)) != len(fmt):
            raise ValueError(f"For '{name}', '{arg}' must be a layout such as 'NHWC', but got "
                             f"{fmt!r}")
    if sorted(src_format) != sorted(dst_format):
        raise ValueError(f"For '{name}', {src_format!r} and {dst_format!r} must name the same "
                         f"axes")
    return src_format, dst_format


class DataFormatDimMap(Primitive):
    """`DataFormatDimMap(src_format='NHWC', dst_format='NCHW')(x)`: axis index i (negative ones
    counted from the end) becomes the source-layout index of the destination layout's i-th
    axis (MindSpore's documented mapping: NHWC to NCHW sends [0, 1, 2, 3] to [0, 3, 1, 2])."""

    def __init__(self, src_format="NHWC", dst_format="NCHW"):
        super().__init__()
        self.src_format, self.dst_format = _format_args("DataFormatDimMap", src_format,
                                                        dst_format)

    def __call__(self, input_x):
        if not isinstance(input_x, Tensor) or input_x._data.dtype.kind not in "iu":
            raise TypeError("For 'DataFormatDimMap', 'input_x' must be an integer Tensor")
        n = len(self.src_format)
        idx = input_x._data
        if ((idx < -n) | (idx >= n)).any():
            raise ValueError(f"For 'DataFormatDimMap', the indices must be in [{-n}, {n})")
        table = np.array([self.src_format.index(c) for c in self.dst_format])
        return Tensor(table[np.mod(idx, n)].astype(idx.dtype))


class DataFormatVecPermute(Primitive):
    """`DataFormatVecPermute(src_format='NHWC', dst_format='NCHW')(x)`: a per-axis vector (or
    (n, 2) matrix) of the source layout reordered into the destination layout."""

    def __init__(self, src_format="NHWC", dst_format="NCHW"):
        super().__init__()
        self.src_format, self.dst_format = _format_args("DataFormatVecPermute", src_format,
                                                        dst_format)

    def __call__(self, input_x):
        n = len(self.src_format)
        if not isinstance(input_x, Tensor) or input_x._data.dtype.kind not in "iu" or \
                input_x.shape not in ((n,), (n, 2)):
            raise ValueError(f"For 'DataFormatVecPermute', 'input_x' must be an integer Tensor "
                             f"of shape ({n},) or ({n}, 2)")
        order = [self.src_format.index(c) for c in self.dst_format]
        return Tensor(input_x._data[order])
