"""Initializers (`minispore.common.initializer`): `initializer(init, shape, dtype)` and the
Initializer classes, drawing from the framework generator (reset by `set_seed`)."""
import math
import numbers

import numpy as np

from . import dtype as mstype
from .seed import generator
from .tensor import Tensor

__all__ = ["Initializer", "initializer", "Normal", "Uniform", "HeUniform", "HeNormal",
           "XavierUniform", "XavierNormal", "TruncatedNormal", "Zero", "One", "Constant",
           "Identity", "Orthogonal", "VarianceScaling", "Dirac"]


def _fans(shape):
    if len(shape) < 2:
        raise ValueError(f"'fan_in' and 'fan_out' can not be computed for a shape with fewer "
                         f"than 2 dimensions, got {shape}")
    receptive = math.prod(shape[2:]) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _gain(nonlinearity, param=None):
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, numbers.Number):
            raise ValueError(f"negative_slope {param!r} is not a number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity!r}")


class Initializer:
    """Base class: an Initializer fills an array of a given shape."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def _fill(self, shape):
        raise NotImplementedError(f"{type(self).__name__} must define _fill(shape)")

    def __call__(self, arr):
        """Fill the NumPy array `arr` in place (MindSpore's Initializer call form)."""
        arr[...] = self._fill(arr.shape)
        return arr

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._kwargs.items())})"


class Zero(Initializer):
    """All zeros."""

    def _fill(self, shape):
        return np.zeros(shape)


class One(Initializer):
    """All ones."""

    def _fill(self, shape):
        return np.ones(shape)


class Constant(Initializer):
    """Every element equal to `value`."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _fill(self, shape):
        return np.full(shape, self.value, dtype=np.float64)


class Normal(Initializer):
    """Normal samples with standard deviation `sigma` and `mean`."""

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _fill(self, shape):
        return generator().normal(self.mean, self.sigma, shape)


class Uniform(Initializer):
    """Uniform samples in [-scale, scale]."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _fill(self, shape):
        return generator().uniform(-self.scale, self.scale, shape)


class TruncatedNormal(Initializer):
    """Normal samples (sigma, mean) redrawn until they fall in [a, b]."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        if a >= b:
            raise ValueError(f"For 'TruncatedNormal', 'a' ({a}) must be smaller than 'b' ({b})")
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _fill(self, shape):
        g = generator()
        out = g.normal(self.mean, self.sigma, shape)
        bad = (out < self.a) | (out > self.b)
        while bad.any():
            out[bad] = g.normal(self.mean, self.sigma, int(bad.sum()))
            bad = (out < self.a) | (out > self.b)
        return out


class HeUniform(Initializer):
    """Kaiming uniform: bound = gain * sqrt(3 / fan), gain from `nonlinearity` and
    `negative_slope`, fan = fan_in or fan_out per `mode`."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"For 'HeUniform', 'mode' must be 'fan_in' or 'fan_out', got {mode!r}")
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _fill(self, shape):
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        bound = _gain(self.nonlinearity, self.negative_slope) * math.sqrt(3.0 / fan)
        return generator().uniform(-bound, bound, shape)


class HeNormal(Initializer):
    """Kaiming normal: std = gain / sqrt(fan)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"For 'HeNormal', 'mode' must be 'fan_in' or 'fan_out', got {mode!r}")
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _fill(self, shape):
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        std = _gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)
        return generator().normal(0.0, std, shape)


class XavierUniform(Initializer):
    """Glorot uniform: bound = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _fill(self, shape):
        fan_in, fan_out = _fans(shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return generator().uniform(-bound, bound, shape)


class XavierNormal(Initializer):
    """Glorot normal: std = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _fill(self, shape):
        fan_in, fan_out = _fans(shape)
        return generator().normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


class VarianceScaling(Initializer):
    """scale / fan variance, by `mode` ('fan_in', 'fan_out', 'fan_avg') and `distribution`
    ('truncated_normal', 'untruncated_normal', 'uniform')."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        if scale <= 0:
            raise ValueError(f"For 'VarianceScaling', 'scale' must be positive, got {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"For 'VarianceScaling', bad 'mode' {mode!r}")
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError(f"For 'VarianceScaling', bad 'distribution' {distribution!r}")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _fill(self, shape):
        fan_in, fan_out = _fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        var = self.scale / max(1.0, fan)
        if self.distribution == "uniform":
            bound = math.sqrt(3.0 * var)
            return generator().uniform(-bound, bound, shape)
        if self.distribution == "untruncated_normal":
            return generator().normal(0.0, math.sqrt(var), shape)
        # 0.8796... is the std of a standard normal truncated to [-2, 2]
        std = math.sqrt(var) / 0.87962566103423978
        return TruncatedNormal(std, 0.0, -2 * std, 2 * std)._fill(shape)


class Identity(Initializer):
    """The identity matrix (2-D shapes only)."""

    def _fill(self, shape):
        if len(shape) != 2:
            raise ValueError(f"For 'Identity', the shape must be 2-D, got {shape}")
        return np.eye(*shape)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix scaled by `gain` (trailing dims flattened)."""

    def __init__(self, gain=1.0):
        super().__init__(gain=gain)
        self.gain = gain

    def _fill(self, shape):
        if len(shape) < 2:
            raise ValueError(f"For 'Orthogonal', the shape must be at least 2-D, got {shape}")
        rows, cols = shape[0], math.prod(shape[1:])
        a = generator().standard_normal((max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q *= np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return self.gain * q.reshape(shape)


class Dirac(Initializer):
    """Dirac delta for conv weights (out, in/groups, k...): identity on the centre tap."""

    def __init__(self, groups=1):
        super().__init__(groups=groups)
        self.groups = groups

    def _fill(self, shape):
        if len(shape) < 3:
            raise ValueError(f"For 'Dirac', the shape must be at least 3-D, got {shape}")
        if shape[0] % self.groups:
            raise ValueError(f"For 'Dirac', out channels {shape[0]} must divide by groups")
        out = np.zeros(shape)
        per = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for i in range(min(per, shape[1])):
                out[(g * per + i, i) + centre] = 1.0
        return out


_NAMED = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal, "uniform": Uniform,
    "truncatednormal": TruncatedNormal, "truncated_normal": TruncatedNormal,
    "xavier_uniform": XavierUniform, "xavieruniform": XavierUniform,
    "xavier_normal": XavierNormal, "xaviernormal": XavierNormal,
    "he_uniform": HeUniform, "heuniform": HeUniform, "he_normal": HeNormal,
    "henormal": HeNormal, "identity": Identity, "orthogonal": Orthogonal,
}


def initializer(init, shape=None, dtype=mstype.float32):
    """A Tensor of `shape` and `dtype` filled by `init`: an Initializer, a name ('normal',
    'ones', 'zeros', 'uniform', 'he_uniform', 'xavier_uniform', ...), a number (a constant),
    or a Tensor / NumPy array (copied; its shape must equal `shape`)."""
    np_dtype = mstype.to_np(dtype)
    if shape is not None:
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
            shape = (int(shape),)
        shape = tuple(int(s) for s in shape)
        if any(s < 0 for s in shape):
            raise ValueError(f"For 'initializer', 'shape' must not have negative sizes: {shape}")
    if isinstance(init, (Tensor, np.ndarray)):
        arr = init.asnumpy() if isinstance(init, Tensor) else init
        if shape is not None and tuple(arr.shape) != shape:
            raise ValueError(f"For 'initializer', the Tensor's shape {arr.shape} does not match "
                             f"'shape' {shape}")
        return Tensor(arr.astype(np_dtype))
    if shape is None:
        raise ValueError("For 'initializer', 'shape' is required unless 'init' is a Tensor")
    if isinstance(init, str):
        cls = _NAMED.get(init.lower())
        if cls is None:
            raise ValueError(f"For 'initializer', unknown initializer name {init!r}; known: "
                             f"{sorted(set(_NAMED))}")
        init = cls()
    elif isinstance(init, bool) or not isinstance(init, (Initializer, numbers.Number)):
        raise TypeError(f"For 'initializer', 'init' must be an Initializer, a name, a number or "
                        f"a Tensor, but got {type(init).__name__}")
    elif isinstance(init, numbers.Number):
        init = Constant(init)
    values = np.asarray(init._fill(shape))
    return Tensor(values.astype(np_dtype).reshape(shape))


def _values_for_tensor(init, shape, dtype):
    return initializer(init, shape, dtype)._data


# `Tensor(shape=..., dtype=..., init=...)` draws its values here: tensor.py sits below this module,
# so the class is given the path when this module loads.
Tensor._values_from_init = staticmethod(_values_for_tensor)
