"""Initializers (`minispore.common.initializer`): `initializer(init, shape, dtype)` and the
Initializer classes, drawing from the framework generator (reset by `set_seed`).

Each Initializer writes into one array of the target dtype (`_fill_into`), so a parameter costs
its own size plus a bounded transient: random values are drawn in float64 blocks of `_CHUNK`
elements and cast into place. A Generator hands out the same stream whether it is drawn at once
or in blocks, so the values are those of one float64 draw cast to the dtype (drawing straight in
float32 would use a different algorithm and change every seeded value)."""
import math
import numbers

import numpy as np

from . import dtype as mstype
from .seed import generator
from .tensor import Tensor

__all__ = ["Initializer", "initializer", "Normal", "Uniform", "HeUniform", "HeNormal",
           "XavierUniform", "XavierNormal", "TruncatedNormal", "Zero", "One", "Constant",
           "Identity", "Orthogonal", "VarianceScaling", "Dirac", "Sparse"]


_CHUNK = 1 << 16  # float64 elements per drawn block: a 512 KiB transient


def _draw_into(out, draw):
    """Fill `out` (C-contiguous) with `draw(n)`, float64 samples taken n at a time, block by
    block; the same values as one `draw(out.size)` cast to out's dtype."""
    flat = out.reshape(-1)
    for start in range(0, flat.size, _CHUNK):
        block = flat[start:start + _CHUNK]
        np.copyto(block, draw(block.size), casting="unsafe")
    return out


def _truncated_into(out, mean, sigma, a, b):
    """Normal(mean, sigma) samples redrawn until inside [a, b], into `out`. The draws follow
    one whole-array draw and whole-set redraws: round after round, the positions still outside
    are redrawn in flat order. They are drawn block by block, the positions to redraw kept as a
    bit mask (1/8 byte an element), so the transient stays small however many are rejected."""
    g = generator()
    flat = out.reshape(-1)
    n = flat.size
    pending = np.full((n + 7) // 8, 255, np.uint8)  # bit i: position i still to draw
    while True:
        left = np.zeros_like(pending)
        for start in range(0, n, _CHUNK):  # _CHUNK is a multiple of 8: whole mask bytes
            stop = min(start + _CHUNK, n)
            bits = pending[start // 8:(stop + 7) // 8]
            if not bits.any():
                continue
            todo = np.unpackbits(bits, count=stop - start).view(np.bool_)
            if todo.all():
                values = g.normal(mean, sigma, stop - start)
                np.copyto(flat[start:stop], values, casting="unsafe")
                outside = (values < a) | (values > b)
            else:
                idx = np.flatnonzero(todo)
                values = g.normal(mean, sigma, idx.size)
                flat[start + idx] = values
                outside = np.zeros(stop - start, np.bool_)
                outside[idx] = (values < a) | (values > b)
            left[start // 8:(stop + 7) // 8] = np.packbits(outside)
        if not left.any():
            return out
        pending = left


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
    """Base class: an Initializer fills an array of a given shape.

    A subclass defines `_initialize(arr)` (MindSpore's extension point), writing its values
    into the NumPy array `arr` in place; the built-in ones define `_fill_into(out)` (the same,
    on a C-contiguous array of any dtype) or `_fill(shape)`, returning the values."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def _fill(self, shape):
        raise NotImplementedError(f"{type(self).__name__} must define _initialize(arr) (or "
                                  f"_fill_into(out) or _fill(shape))")

    def _fill_into(self, out):
        if type(self)._initialize is not Initializer._initialize:
            self._initialize(out)
            return out
        np.copyto(out, self._fill(out.shape), casting="unsafe")
        return out

    def _initialize(self, arr):
        self._fill_into(arr)

    def _new(self, shape, dtype):
        """A new array of `shape` and `dtype` holding the values."""
        return self._fill_into(np.empty(shape, dtype))

    def __call__(self, arr):
        """Fill the NumPy array `arr` in place (MindSpore's Initializer call form)."""
        if arr.flags.c_contiguous:
            return self._fill_into(arr)
        arr[...] = self._new(arr.shape, arr.dtype)
        return arr

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._kwargs.items())})"


class Zero(Initializer):
    """All zeros."""

    def _fill_into(self, out):
        out.fill(0)
        return out

    def _new(self, shape, dtype):
        return np.zeros(shape, dtype)


class One(Initializer):
    """All ones."""

    def _fill_into(self, out):
        out.fill(1)
        return out

    def _new(self, shape, dtype):
        return np.ones(shape, dtype)


class Constant(Initializer):
    """Every element equal to `value`."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _fill_into(self, out):
        # the value rounds to float64 first, then to out's dtype
        np.copyto(out, np.float64(self.value), casting="unsafe")
        return out


class Normal(Initializer):
    """Normal samples with standard deviation `sigma` and `mean`."""

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _fill_into(self, out):
        g = generator()
        return _draw_into(out, lambda n: g.normal(self.mean, self.sigma, n))


class Uniform(Initializer):
    """Uniform samples in [-scale, scale]."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _fill_into(self, out):
        g = generator()
        return _draw_into(out, lambda n: g.uniform(-self.scale, self.scale, n))


class TruncatedNormal(Initializer):
    """Normal samples (sigma, mean) redrawn until they fall in [a, b]."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        if a >= b:
            raise ValueError(f"For 'TruncatedNormal', 'a' ({a}) must be smaller than 'b' ({b})")
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _fill_into(self, out):
        return _truncated_into(out, self.mean, self.sigma, self.a, self.b)


class HeUniform(Initializer):
    """Kaiming uniform: bound = gain * sqrt(3 / fan), gain from `nonlinearity` and
    `negative_slope`, fan = fan_in or fan_out per `mode`."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"For 'HeUniform', 'mode' must be 'fan_in' or 'fan_out', got {mode!r}")
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _fill_into(self, out):
        fan_in, fan_out = _fans(out.shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        bound = _gain(self.nonlinearity, self.negative_slope) * math.sqrt(3.0 / fan)
        g = generator()
        return _draw_into(out, lambda n: g.uniform(-bound, bound, n))


class HeNormal(Initializer):
    """Kaiming normal: std = gain / sqrt(fan)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"For 'HeNormal', 'mode' must be 'fan_in' or 'fan_out', got {mode!r}")
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _fill_into(self, out):
        fan_in, fan_out = _fans(out.shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        std = _gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)
        g = generator()
        return _draw_into(out, lambda n: g.normal(0.0, std, n))


class XavierUniform(Initializer):
    """Glorot uniform: bound = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _fill_into(self, out):
        fan_in, fan_out = _fans(out.shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        g = generator()
        return _draw_into(out, lambda n: g.uniform(-bound, bound, n))


class XavierNormal(Initializer):
    """Glorot normal: std = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _fill_into(self, out):
        fan_in, fan_out = _fans(out.shape)
        std = self.gain * math.sqrt(2.0 / (fan_in + fan_out))
        g = generator()
        return _draw_into(out, lambda n: g.normal(0.0, std, n))


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

    def _fill_into(self, out):
        fan_in, fan_out = _fans(out.shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        var = self.scale / max(1.0, fan)
        g = generator()
        if self.distribution == "uniform":
            bound = math.sqrt(3.0 * var)
            return _draw_into(out, lambda n: g.uniform(-bound, bound, n))
        if self.distribution == "untruncated_normal":
            return _draw_into(out, lambda n: g.normal(0.0, math.sqrt(var), n))
        # 0.8796... is the std of a standard normal truncated to [-2, 2]
        std = math.sqrt(var) / 0.87962566103423978
        return _truncated_into(out, 0.0, std, -2 * std, 2 * std)


class Identity(Initializer):
    """The identity matrix (2-D shapes only)."""

    def _fill_into(self, out):
        if out.ndim != 2:
            raise ValueError(f"For 'Identity', the shape must be 2-D, got {out.shape}")
        out.fill(0)
        np.fill_diagonal(out, 1)
        return out


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix scaled by `gain` (trailing dims flattened)."""

    def __init__(self, gain=1.0):
        super().__init__(gain=gain)
        self.gain = gain

    def _fill_into(self, out):
        # The QR factorisation needs the whole float64 matrix (and LAPACK its own copies): the
        # transient here is a few times the parameter, unlike the drawn initializers.
        shape = out.shape
        if len(shape) < 2:
            raise ValueError(f"For 'Orthogonal', the shape must be at least 2-D, got {shape}")
        rows, cols = shape[0], math.prod(shape[1:])
        a = generator().standard_normal((max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        del a
        q *= np.sign(np.diag(r))
        del r
        if rows < cols:
            q = q.T
        np.multiply(q.reshape(shape), self.gain, out=out, casting="unsafe")
        return out


class Dirac(Initializer):
    """Dirac delta for conv weights (out, in/groups, k...): identity on the centre tap."""

    def __init__(self, groups=1):
        super().__init__(groups=groups)
        self.groups = groups

    def _fill_into(self, out):
        shape = out.shape
        if len(shape) < 3:
            raise ValueError(f"For 'Dirac', the shape must be at least 3-D, got {shape}")
        if shape[0] % self.groups:
            raise ValueError(f"For 'Dirac', out channels {shape[0]} must divide by groups")
        out.fill(0)
        per = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for i in range(min(per, shape[1])):
                out[(g * per + i, i) + centre] = 1.0
        return out


class Sparse(Initializer):
    """A 2-D tensor with, in every column, ceil(sparsity * rows) entries (at random rows) set to
    zero and the others drawn from Normal(0, sigma)."""

    def __init__(self, sparsity, sigma=0.01):
        super().__init__(sparsity=sparsity, sigma=sigma)
        if isinstance(sparsity, bool) or not isinstance(sparsity, numbers.Real) or \
                not 0 <= sparsity <= 1:
            raise ValueError(f"For 'Sparse', 'sparsity' must be in [0, 1], but got {sparsity!r}")
        self.sparsity, self.sigma = float(sparsity), sigma

    def _fill(self, shape):
        if len(shape) != 2:
            raise ValueError(f"For 'Sparse', only 2-D tensors are supported, but got shape {shape}")
        g = generator()
        rows, cols = shape
        values = g.normal(0.0, self.sigma, shape)
        zeros = math.ceil(self.sparsity * rows)
        for c in range(cols):
            values[g.permutation(rows)[:zeros], c] = 0.0
        return values


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
        return Tensor.from_numpy(np.array(arr, np_dtype))  # one copy, never aliasing `init`
    if shape is None:
        raise ValueError("For 'initializer', 'shape' is required unless 'init' is a Tensor")
    _resolve(init)  # bad names and types fail here, not when the values are drawn
    return Tensor(shape=shape, dtype=dtype, init=init)  # lazy, as MindSpore's


def _resolve(init):
    if isinstance(init, str):
        cls = _NAMED.get(init.lower())
        if cls is None:
            raise ValueError(f"For 'initializer', unknown initializer name {init!r}; known: "
                             f"{sorted(set(_NAMED))}")
        return cls()
    if isinstance(init, bool) or not isinstance(init, (Initializer, numbers.Number)):
        raise TypeError(f"For 'initializer', 'init' must be an Initializer, a name, a number or "
                        f"a Tensor, but got {type(init).__name__}")
    if isinstance(init, numbers.Number):
        return Constant(init)
    cls = type(init)
    if cls._initialize is Initializer._initialize and cls._fill_into is Initializer._fill_into \
            and cls._fill is Initializer._fill:
        raise NotImplementedError(f"{cls.__name__} must define _initialize(arr) (or "
                                  f"_fill_into(out) or _fill(shape))")
    return init


def _values_for_tensor(init, shape, dtype):
    if isinstance(init, (Tensor, np.ndarray)):
        return initializer(init, shape, dtype)._data
    return _resolve(init)._new(shape, mstype.to_np(dtype))


# `Tensor(shape=..., dtype=..., init=...)` draws its values here: tensor.py sits below this module,
# so the class is given the path when this module loads.
Tensor._values_from_init = staticmethod(_values_for_tensor)
