"""Primitive classes under MindSpore's names (`from minispore.ops import operations as P`)."""
import numpy as np

from ..._autodiff.tape import apply, wrap
from ...common import dtype as mstype
from ..primitive import PRIMITIVES, Primitive, PrimitiveWithCheck, PrimitiveWithInfer, \
    prim_attr_register
from . import array_ops, math_ops, nn_ops
from .array_ops import Split as SplitV

# Every registered primitive under its class name (Add, MatMul, ReduceSum, Softmax, ...), except
# Split, whose MindSpore form (axis, output_num) is the class below.
globals().update({name: cls for name, cls in PRIMITIVES.items() if name != "Split"})
Div = math_ops.Div


class Split(Primitive):
    """`Split(axis=0, output_num=1)(x)`: `output_num` equal pieces along `axis`."""

    def __init__(self, axis=0, output_num=1):
        super().__init__()
        if output_num < 1:
            raise ValueError(f"For 'Split', 'output_num' must be positive, got {output_num}")
        self.axis, self.output_num = axis, output_num

    def __call__(self, x):
        n = x.shape[self.axis]
        if n % self.output_num:
            raise ValueError(f"For 'Split', axis {self.axis} of shape {x.shape} does not divide "
                             f"into {self.output_num} equal pieces")
        return apply(SplitV(self.axis, [n // self.output_num] * self.output_num), (x,))


class _Constant(Primitive):
    """A creation primitive: its output is a constant (no inputs to differentiate)."""


class Ones(_Constant):
    """`Ones()(shape, dtype)`."""

    def __call__(self, shape, dtype=mstype.float32):
        return wrap(np.ones(shape, mstype.to_np(dtype)))


class Zeros(_Constant):
    """`Zeros()(shape, dtype)`."""

    def __call__(self, shape, dtype=mstype.float32):
        return wrap(np.zeros(shape, mstype.to_np(dtype)))


class OnesLike(_Constant):
    def __call__(self, x):
        return wrap(np.ones(x._data.shape, x._data.dtype))


class ZerosLike(_Constant):
    def __call__(self, x):
        return wrap(np.zeros(x._data.shape, x._data.dtype))


class Fill(_Constant):
    """`Fill()(dtype, shape, value)`."""

    def __call__(self, type, shape, value):
        return wrap(np.full(shape, value, mstype.to_np(type)))


class Shape(_Constant):
    def __call__(self, x):
        return x.shape


class Rank(_Constant):
    def __call__(self, x):
        return x.ndim


class Size(_Constant):
    def __call__(self, x):
        return x.size


class OneHot(_Constant):
    """`OneHot(axis=-1)(indices, depth, on_value, off_value)`."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def __call__(self, indices, depth, on_value, off_value):
        from ..function.nn_func import one_hot
        return one_hot(indices, depth, on_value, off_value, self.axis)


class Depend(Primitive):
    """`Depend()(value, expr)` returns value (an ordering hint in graph mode)."""

    def __call__(self, value, expr):
        return value


class Assign(Primitive):
    """`Assign()(variable, value)`: write value into the Parameter in place; returns it."""

    def __call__(self, variable, value):
        from ...common.parameter import Parameter
        if not isinstance(variable, Parameter):
            raise TypeError(f"For 'Assign', 'variable' must be a Parameter, but got "
                            f"{type(variable).__name__}")
        return variable.assign_value(value)

