"""Primitive classes under MindSpore's names (`from minispore.ops import operations as P`).

The registered primitives (forward + bprop) are exported under their class names. Where
MindSpore's class takes other constructor or call arguments than the registered primitive, or
where the op is a composite, a thin user-facing class below adapts the call and runs the same
functional op, so both paths share one implementation and its gradients.
"""
import numpy as np

from ..._autodiff.tape import apply, wrap
from ...common import dtype as mstype
from ...common.parameter import Parameter
from ...common.seed import generator
from ...common.tensor import Tensor
from ..primitive import PRIMITIVES, Primitive, PrimitiveWithCheck, PrimitiveWithInfer, \
    prim_attr_register
from . import array_ops, conv_ops, einsum_ops, loss_ops, math_ops, nn_ops, norm_ops  # noqa: F401,E501  (they register)
from .array_ops import Split as SplitV

# Registered primitives that only serve other rules (bprops, indexing, the engine) and have no
# MindSpore user-facing counterpart stay out of the namespace.
_INTERNAL = {"Getitem", "Setitem", "SumTo", "ProdOthers", "SingularValues", "BCEWithLogits",
             "BatchNormTraining", "Conv2DBackpropFilter", "SparseSoftmaxCrossEntropy",
             "Conv3DBackpropInput", "Conv3DBackpropFilter",
             "WindowScatter", "WindowGather"}
_REGISTERED = sorted(name for name in PRIMITIVES
                     if name not in _INTERNAL and not name.endswith("Grad") and name != "Split")
globals().update({name: PRIMITIVES[name] for name in _REGISTERED})
Div = math_ops.Div


def _functional():
    # The functional layer imports this package; importing it lazily avoids the cycle.
    from .. import function
    return function


class Gather(array_ops.Gather):
    """`Gather(batch_dims=0)(input_params, input_indices, axis)`: slices along `axis`; with
    `batch_dims`, the leading axes of params and indices are batch axes."""

    def __init__(self, batch_dims=0):
        super().__init__()
        self.batch_dims = batch_dims

    def __call__(self, input_params, input_indices, axis=0):
        if self.batch_dims:
            return _functional().gather(input_params, input_indices, axis, self.batch_dims)
        return apply(self, (input_params, input_indices, axis))


class BroadcastTo(array_ops.BroadcastTo):
    """`BroadcastTo(shape)(x)`: x broadcast to `shape` (-1 keeps a dimension)."""

    def __init__(self, shape):
        super().__init__()
        self.shape = tuple(shape)

    def __call__(self, x):
        return _functional().broadcast_to(x, self.shape)


class Pad(array_ops.Pad):
    """`Pad(paddings)(x)`: x padded with zeros, ((before, after), ...) per axis."""

    def __init__(self, paddings):
        super().__init__()
        self.paddings = tuple(tuple(int(v) for v in p) for p in paddings)

    def __call__(self, x):
        if len(self.paddings) != x.ndim or any(v < 0 for p in self.paddings for v in p):
            raise ValueError(f"For 'Pad', 'paddings' must hold one non-negative (before, after) "
                             f"pair per axis of shape {x.shape}, but got {self.paddings}")
        return apply(self, (x, self.paddings, 0))


class ReduceStd(Primitive):
    """`ReduceStd(axis=(), unbiased=True, keep_dims=False)(x)`: (std, mean) over `axis`."""

    def __init__(self, axis=(), unbiased=True, keep_dims=False):
        super().__init__()
        self.axis, self.unbiased, self.keep_dims = axis, unbiased, keep_dims

    def __call__(self, x):
        f = _functional()
        axis = self.axis if self.axis not in ((), []) else None
        return (f.std(x, axis, int(self.unbiased), self.keep_dims),
                f.mean(x, axis, self.keep_dims))


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


# ---- creation and shape queries (constant outputs) -----------------------------------------------

class _Constant(Primitive):
    """A creation primitive: its output is a constant (no inputs to differentiate)."""


class Ones(_Constant):
    """`Ones()(shape, dtype)`: a tensor of ones (float32 by default)."""

    def __call__(self, shape, dtype=mstype.float32):
        return _functional().ones(shape, dtype)


class Zeros(_Constant):
    """`Zeros()(shape, dtype)`: a tensor of zeros (float32 by default)."""

    def __call__(self, shape, dtype=mstype.float32):
        return _functional().zeros(shape, dtype)


class OnesLike(_Constant):
    """`OnesLike()(x)`: ones of x's shape and dtype."""

    def __call__(self, x):
        return _functional().ones_like(x)


class ZerosLike(_Constant):
    """`ZerosLike()(x)`: zeros of x's shape and dtype."""

    def __call__(self, x):
        return _functional().zeros_like(x)


class Fill(_Constant):
    """`Fill()(type, shape, value)`: a tensor of `shape` and dtype `type` filled with `value`."""

    def __call__(self, type, shape, value):
        return _functional().fill(type, shape, value)


class Eye(_Constant):
    """`Eye()(n, m, t)`: an n x m identity matrix of dtype t."""

    def __call__(self, n, m, t):
        return _functional().eye(n, m, t)


class Shape(_Constant):
    """`Shape()(x)`: the shape as a tuple."""

    def __call__(self, x):
        return _functional().shape(x)


class Rank(_Constant):
    """`Rank()(x)`: the number of dimensions."""

    def __call__(self, x):
        return _functional().rank(x)


class Size(_Constant):
    """`Size()(x)`: the number of elements."""

    def __call__(self, x):
        return _functional().size(x)


class OneHot(_Constant):
    """`OneHot(axis=-1)(indices, depth, on_value, off_value)`."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def __call__(self, indices, depth, on_value, off_value):
        return _functional().one_hot(indices, depth, on_value, off_value, self.axis)


class Unique(_Constant):
    """`Unique()(x)`: (values in order of first appearance, inverse indices)."""

    def __call__(self, x):
        return _functional().unique(x)


# ---- composites under MindSpore's class names -----------------------------------------------------

class GatherD(Primitive):
    """`GatherD()(x, dim, index)`: NumPy's take_along_axis (as `ops.gather_elements`)."""

    def __call__(self, x, dim, index):
        return _functional().gather_elements(x, dim, index)


class BiasAdd(Primitive):
    """`BiasAdd(data_format='NCHW')(input_x, bias)`: `bias` (C,) added along the channel axis
    (axis 1 for 'NCHW' and 'NCDHW', the last axis for 'NHWC')."""

    def __init__(self, data_format="NCHW"):
        super().__init__()
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"For 'BiasAdd', 'data_format' must be 'NCHW', 'NHWC' or 'NCDHW', "
                             f"but got {data_format!r}")
        self.data_format = data_format

    def __call__(self, input_x, bias):
        f = _functional()
        if not isinstance(input_x, Tensor) or not isinstance(bias, Tensor):
            raise TypeError("For 'BiasAdd', 'input_x' and 'bias' must be Tensors")
        axis = input_x.ndim - 1 if self.data_format == "NHWC" else 1
        if input_x.ndim < 2 or bias.shape != (input_x.shape[axis],):
            raise ValueError(f"For 'BiasAdd', 'bias' must have shape (C,) = "
                             f"({input_x.shape[axis] if input_x.ndim >= 2 else '?'},) for "
                             f"input of shape {input_x.shape}, but got {bias.shape}")
        shape = [1] * input_x.ndim
        shape[axis] = bias.shape[0]
        return f.add(input_x, f.reshape(bias, tuple(shape)))


class ReLU6(Primitive):
    """`ReLU6()(x)`: min(max(x, 0), 6)."""

    def __call__(self, x):
        return _functional().relu6(x)


class Elu(Primitive):
    """`Elu(alpha=1.0)(x)`."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def __call__(self, x):
        return _functional().elu(x, self.alpha)


class SeLU(Primitive):
    """`SeLU()(x)`."""

    def __call__(self, x):
        return _functional().selu(x)


class HSwish(Primitive):
    """`HSwish()(x)`: x * relu6(x + 3) / 6."""

    def __call__(self, x):
        return _functional().hardswish(x)


class HSigmoid(Primitive):
    """`HSigmoid()(x)`: relu6(x + 3) / 6."""

    def __call__(self, x):
        return _functional().hardsigmoid(x)


class Mish(Primitive):
    """`Mish()(x)`: x * tanh(softplus(x))."""

    def __call__(self, x):
        return _functional().mish(x)


class Softsign(Primitive):
    """`Softsign()(x)`: x / (1 + |x|)."""

    def __call__(self, x):
        return _functional().softsign(x)


class L2Normalize(Primitive):
    """`L2Normalize(axis=0, epsilon=1e-4)(x)`: x / sqrt(max(sum(x^2, axis), epsilon))."""

    def __init__(self, axis=0, epsilon=1e-4):
        super().__init__()
        self.axis, self.epsilon = axis, epsilon

    def __call__(self, x):
        f = _functional()
        ssq = f.sum(f.square(x), self.axis, True)
        return x * f.rsqrt(f.maximum(ssq, self.epsilon))


class TopK(Primitive):
    """`TopK(sorted=True)(input_x, k)`: (values, int32 indices) of the k largest along the last
    axis."""

    def __init__(self, sorted=True):
        super().__init__()
        self.sorted = sorted

    def __call__(self, input_x, k):
        return _functional().topk(input_x, k, sorted=self.sorted)


class Sort(Primitive):
    """`Sort(axis=-1, descending=False)(x)`: (values, int32 indices)."""

    def __init__(self, axis=-1, descending=False):
        super().__init__()
        self.axis, self.descending = axis, descending

    def __call__(self, x):
        return _functional().sort(x, self.axis, self.descending)


class _LogicalReduce(Primitive):
    _fn = None

    def __init__(self, keep_dims=False):
        super().__init__()
        self.keep_dims = keep_dims

    def __call__(self, x, axis=()):
        return getattr(_functional(), self._fn)(x, axis, self.keep_dims)


class ReduceAll(_LogicalReduce):
    """`ReduceAll(keep_dims=False)(x, axis=())`: logical and over `axis`."""

    _fn = "all"


class ReduceAny(_LogicalReduce):
    """`ReduceAny(keep_dims=False)(x, axis=())`: logical or over `axis`."""

    _fn = "any"


class ScatterNd(Primitive):
    """`ScatterNd()(indices, updates, shape)`."""

    def __call__(self, indices, updates, shape):
        return _functional().scatter_nd(indices, updates, shape)


class TensorScatterUpdate(Primitive):
    """`TensorScatterUpdate()(input_x, indices, updates)`."""

    def __call__(self, input_x, indices, updates):
        return _functional().tensor_scatter_update(input_x, indices, updates)


class TensorScatterAdd(Primitive):
    """`TensorScatterAdd()(input_x, indices, updates)`."""

    def __call__(self, input_x, indices, updates):
        return _functional().tensor_scatter_add(input_x, indices, updates)


class SoftmaxCrossEntropyWithLogits(Primitive):
    """`SoftmaxCrossEntropyWithLogits()(logits, labels)`: (per-sample loss (N,), its gradient
    softmax(logits) - labels (N, C)) for probability `labels` (N, C)."""

    def __call__(self, logits, labels):
        f = _functional()
        loss = f.cross_entropy(logits, labels, reduction="none")
        return loss, f.softmax(logits, 1) - f.cast(labels, logits.dtype)


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """`SparseSoftmaxCrossEntropyWithLogits(is_grad=False)(logits, labels)`: the mean
    cross-entropy of `logits` (N, C) at class indices `labels` (N,); with `is_grad`, its gradient
    with respect to the logits instead."""

    def __init__(self, is_grad=False):
        super().__init__()
        self.is_grad = is_grad

    def __call__(self, logits, labels):
        f = _functional()
        if not self.is_grad:
            return f.cross_entropy(logits, labels)
        onehot = f.one_hot(labels, logits.shape[1], 1.0, 0.0)
        return (f.softmax(logits, 1) - f.cast(onehot, logits.dtype)) / logits.shape[0]


class _RandomPrimitive(Primitive):
    """A random primitive with MindSpore's (seed, seed2): both 0 draws from the global stream
    (reset by `set_seed`), anything else from a stream of its own for that pair."""

    def __init__(self, seed=0, seed2=0):
        super().__init__()
        for name, v in (("seed", seed), ("seed2", seed2)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ValueError(f"For '{self.name}', '{name}' must be a non-negative int, but "
                                 f"got {v!r}")
        self.seed, self.seed2 = seed, seed2

    def _generator(self):
        if self.seed == 0 and self.seed2 == 0:
            return generator(None)
        return generator((int(self.seed) << 32) + int(self.seed2))

    def _shape(self, shape):
        return _functional().array_func._shape_arg(shape, self.name)


class StandardNormal(_RandomPrimitive):
    """`StandardNormal(seed=0, seed2=0)(shape)`: float32 standard normal samples."""

    def __call__(self, shape):
        return wrap(self._generator().standard_normal(self._shape(shape)).astype(np.float32))


class UniformReal(_RandomPrimitive):
    """`UniformReal(seed=0, seed2=0)(shape)`: float32 samples uniform in [0, 1)."""

    def __call__(self, shape):
        return wrap(self._generator().random(self._shape(shape)).astype(np.float32))


# ---- side effects and ordering --------------------------------------------------------------------

Conv2DTranspose = conv_ops.Conv2DBackpropInput


class BatchNorm(Primitive):
    """`BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1)(x, scale, bias, mean,
    variance)` -> (y, batch_mean, batch_variance, reserve_space_1, reserve_space_2).

    In training the batch statistics normalise and `mean` / `variance` (Parameters) are updated
    in place: running = (1 - momentum) * running + momentum * batch (unbiased variance)."""

    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        super().__init__()
        self.is_training, self.epsilon, self.momentum = is_training, epsilon, momentum
        self.data_format = data_format

    def __call__(self, x, scale, bias, mean, variance):
        if self.is_training:
            y, batch_mean, batch_var = apply(norm_ops.BatchNormTraining(self.epsilon),
                                             (x, scale, bias))
            _functional().layer_func._blend(mean, batch_mean._data, self.momentum)
            m = x.size // x.shape[1]
            _functional().layer_func._blend(variance, batch_var._data * (m / max(m - 1, 1)),
                                            self.momentum)
            return y, batch_mean, batch_var, batch_mean, batch_var
        y = _functional().batch_norm(x, mean, variance, scale, bias, False, self.momentum,
                                     self.epsilon)
        return y, mean, variance, mean, variance


class Dropout(Primitive):
    """`Dropout(keep_prob=0.5)(x)` -> (output, mask): each element kept with probability
    keep_prob (mask 1) and scaled by 1 / keep_prob, else zeroed. Draws from the framework
    generator (`set_seed` resets it)."""

    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):
        super().__init__()
        if not 0.0 < keep_prob <= 1.0:
            raise ValueError(f"For 'Dropout', 'keep_prob' must be in (0, 1], but got {keep_prob}")
        self.keep_prob, self.Seed0, self.Seed1 = keep_prob, Seed0, Seed1

    def __call__(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'Dropout', the input must be a Tensor, but got "
                            f"{type(x).__name__}")
        keep = generator().random(x.shape) < self.keep_prob
        mask = keep.astype(np.float32)
        scale = wrap((keep / self.keep_prob).astype(x._data.dtype))
        return x * scale, wrap(mask)


class Depend(Primitive):
    """`Depend()(value, expr)` returns value (an ordering hint in graph mode)."""

    def __call__(self, value, expr):
        return value


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


__all__ = sorted(set(_REGISTERED) | {"BatchNorm", "Dropout", "Conv2DTranspose",
    "Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register", "Div",
    "BroadcastTo", "Pad", "ReduceStd", "Gather", "Split", "Ones", "Zeros", "OnesLike", "ZerosLike",
    "Fill", "Eye", "Shape", "Rank", "Size", "OneHot", "Unique", "GatherD", "BiasAdd", "GeLU", "ReLU6", "Elu",
    "SeLU", "HSwish", "HSigmoid", "Mish", "Softsign", "L2Normalize", "TopK", "Sort", "ReduceAll",
    "ReduceAny", "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd",
    "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "StandardNormal",
    "UniformReal", "Depend", "Assign",
})
