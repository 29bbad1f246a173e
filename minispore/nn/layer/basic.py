"""Basic layers: Dense, Flatten, Identity, Dropout (1d/2d), Pad, ZeroPad2d, Upsample."""
import math

import numpy as np

from ..._autodiff.tape import const
from ..._validator import (check_bool, check_float_range, check_one_of, check_positive_int,
                           check_type)
from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform, initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops.function import array_func as AF
from ...ops.function import layer_func as LF
from ...ops.function import nn_func as NF
from ...ops.operations import math_ops as M
from ..cell import Cell
from .activation import get_activation

__all__ = ["Dense", "Flatten", "Identity", "Dropout", "Dropout1d", "Dropout2d", "Pad",
           "ZeroPad2d", "Upsample"]


def float_input(x, name, cls):
    """A TypeError unless `x` is a floating-point Tensor (a layer's input)."""
    check_type(x, Tensor, name, cls)
    if x._data.dtype.kind != "f":
        raise TypeError(f"For '{cls}', the '{name}' must be a float Tensor, but got {x.dtype}")


def new_parameter(fresh, name):
    """A Parameter named `name` over the array of `fresh`, a Tensor nothing else holds (an
    `initializer(...)` result): it takes the array over where Parameter(fresh) would copy it,
    so a large parameter is allocated once. Inside `no_init_parameters()` it stays undrawn, on
    the 'meta' device it has no values."""
    if not Parameter.init_param or Parameter._on_meta:
        return Parameter(fresh, name=name)
    p = Parameter(np.zeros((), fresh._data.dtype), name=name)
    p._data = fresh._data  # perf: adopt instead of copying (2x the parameter at the peak)
    return p


def cast_params(cell, *params):
    """`params` cast to the cell's `to_float` compute dtype (unchanged when it has none)."""
    dt = cell._compute_dtype
    if dt is None:
        return params
    return tuple(M.cast(p, dt) if p is not None else None for p in params)


class Dense(Cell):
    """y = activation(x @ weight^T + bias) on the last axis of x (any number of leading axes).

    Args:
        in_channels, out_channels (int): sizes of the last axis in and out.
        weight_init, bias_init: initializers (default: uniform in +-1/sqrt(in_channels) for
            both, MindSpore 2.10's HeUniform(sqrt(5)) and Uniform(1/sqrt(in))).
        has_bias (bool), activation (str or Cell), dtype: the parameters' dtype.
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None,
                 has_bias=True, activation=None, dtype=mstype.float32):
        super().__init__()
        self.in_channels = check_positive_int(in_channels, "in_channels", "Dense")
        self.out_channels = check_positive_int(out_channels, "out_channels", "Dense")
        self.has_bias = check_bool(has_bias, "has_bias", "Dense")
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = new_parameter(initializer(weight_init, (out_channels, in_channels), dtype),
                                    "weight")
        if self.has_bias:
            if bias_init is None:
                bias_init = Uniform(1 / math.sqrt(in_channels))
            self.bias = new_parameter(initializer(bias_init, (out_channels,), dtype), "bias")
        else:
            self.bias = None
        self.activation = get_activation(activation) if isinstance(activation, str) \
            else activation
        if self.activation is not None:
            check_type(self.activation, Cell, "activation", "Dense", "a str or a Cell")

    def construct(self, x):
        if x.shape[-1] != self.in_channels:
            raise ValueError(f"For 'Dense', the last axis of the input must be "
                             f"{self.in_channels}, but got shape {x.shape}")
        w, b = cast_params(self, self.weight, self.bias)
        out = NF.dense(x, w, b)
        return self.activation(out) if self.activation is not None else out

    def extend_repr(self):
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += ", has_bias=True"
        if self.activation is not None:
            s += f", activation={self.activation!r}"
        return s


class Flatten(Cell):
    """Merge axes start_dim..end_dim (the batch axis is kept by default)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        return AF.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class Identity(Cell):
    """Returns its input."""

    def construct(self, x):
        return x


class Dropout(Cell):
    """In training mode zero each element with probability `p` (or 1 - `keep_prob`) and scale
    the rest by 1 / (1 - p); identity in eval mode. Draws come from the framework generator,
    so `set_seed` makes them repeat."""

    def __init__(self, keep_prob=0.5, p=None, dtype=mstype.float32):
        super().__init__()
        if p is None:
            p = 1.0 - check_float_range(keep_prob, "keep_prob", "Dropout", 0.0, 1.0,
                                        low_inclusive=False)
        self.p = check_float_range(p, "p", "Dropout", 0.0, 1.0, high_inclusive=False)
        self.keep_prob = 1.0 - self.p

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return LF.dropout(x, self.p, True)

    def extend_repr(self):
        return f"p={self.p}"


class Dropout1d(Cell):
    """Zero whole channels of an (N, C, L) input with probability `p` in training mode."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = check_float_range(p, "p", "Dropout1d", 0.0, 1.0)

    def construct(self, x):
        return LF.dropout1d(x, self.p, self.training)

    def extend_repr(self):
        return f"p={self.p}"


class Dropout2d(Cell):
    """Zero whole channels of an (N, C, H, W) input with probability `p` in training mode."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = check_float_range(p, "p", "Dropout2d", 0.0, 1.0)

    def construct(self, x):
        return LF.dropout2d(x, self.p, self.training)

    def extend_repr(self):
        return f"p={self.p}"


class Pad(Cell):
    """Pad each axis by `paddings` ((before, after) per axis, from the first axis) with mode
    'CONSTANT' (zeros), 'REFLECT' or 'SYMMETRIC'."""

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        mode = check_one_of(check_type(mode, str, "mode", "Pad").upper(),
                            ("CONSTANT", "REFLECT", "SYMMETRIC"), "mode", "Pad")
        self.paddings = tuple(tuple(int(v) for v in p) for p in paddings)
        if any(len(p) != 2 for p in self.paddings):
            raise ValueError(f"For 'Pad', 'paddings' must be pairs, but got {paddings!r}")
        self.mode = mode

    def construct(self, x):
        if len(self.paddings) > x.ndim:
            raise ValueError(f"For 'Pad', {len(self.paddings)} paddings for an input of rank "
                             f"{x.ndim}")
        flat = []
        for before, after in reversed(self.paddings):
            flat += [before, after]
        if self.mode == "CONSTANT":
            return AF.pad(x, tuple(flat), "constant", 0)
        if self.mode == "REFLECT":
            return AF.pad(x, tuple(flat), "reflect")
        return _symmetric_pad(x, self.paddings)


def _symmetric_pad(x, paddings):
    """Mirror padding that repeats the edge element (NumPy's 'symmetric')."""
    out = x
    for axis, (before, after) in enumerate(paddings):
        if before == 0 and after == 0:
            continue
        n = out.shape[axis]
        idx = np.arange(-before, n + after)
        period = 2 * n
        idx = idx % period
        idx = np.where(idx >= n, period - 1 - idx, idx)
        out = AF.gather(out, const(idx), axis)
    return out


class ZeroPad2d(Cell):
    """Zero padding of the last two axes: `padding` an int or (left, right, top, bottom)."""

    def __init__(self, padding):
        super().__init__()
        if isinstance(padding, int):
            padding = (padding,) * 4
        if len(padding) != 4:
            raise ValueError(f"For 'ZeroPad2d', 'padding' must be an int or 4 ints, got "
                             f"{padding!r}")
        self.padding = tuple(padding)

    def construct(self, x):
        return AF.pad(x, self.padding, "constant", 0)


class Upsample(Cell):
    """Resize with `ops.interpolate` ('nearest', 'linear', 'bilinear', 'area')."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def construct(self, x):
        return LF.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                              self.recompute_scale_factor)
