"""Jvp and Vjp: cells that return a function's output together with its Jacobian-vector or
vector-Jacobian product (MindSpore's deprecated wrappers around `ops.jvp` / `ops.vjp`)."""
from ..._autodiff.functional import jvp, vjp
from ..._validator import check_callable
from ..cell import Cell

__all__ = ["Jvp", "Vjp"]


class Jvp(Cell):
    """`Jvp(fn)(*inputs, v)` -> (fn(*inputs), J v): `v` is one tangent per input (a Tensor
    for one input, a tuple for several)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = check_callable(fn, "fn", "Jvp")

    def construct(self, *args):
        if len(args) < 2:
            raise ValueError("For 'Jvp', the inputs must be the function's inputs followed by "
                             "the tangent 'v'")
        inputs, v = args[:-1], args[-1]
        if len(inputs) == 1:
            return jvp(self.fn, inputs[0], v)
        return jvp(self.fn, tuple(inputs), tuple(v))


class Vjp(Cell):
    """`Vjp(fn)(*inputs, v)` -> (fn(*inputs), v^T J): the gradient w.r.t. the single input, or a
    tuple with one per input."""

    def __init__(self, fn):
        super().__init__()
        self.fn = check_callable(fn, "fn", "Vjp")

    def construct(self, *args):
        if len(args) < 2:
            raise ValueError("For 'Vjp', the inputs must be the function's inputs followed by "
                             "the cotangent 'v'")
        inputs, v = args[:-1], args[-1]
        out, pullback = vjp(self.fn, *inputs)
        grads = pullback(v)
        return out, (grads[0] if len(inputs) == 1 else tuple(grads))
