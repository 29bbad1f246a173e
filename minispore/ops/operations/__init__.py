"""Primitive classes under MindSpore's names (`from minispore.ops import operations as P`).

The registered primitives (forward + bprop) are exported under their class names. Where
MindSpore's class takes other constructor or call arguments than the registered primitive, or
where the op is a composite, a thin user-facing class below adapts the call and runs the same
functional op, so both paths share one implementation and its gradients. This package is the
facade above both: it imports the primitive families, then the functional layer built on them.
"""
import numpy as np

from ..._autodiff.tape import apply, wrap
from ...common import dtype as mstype
from ...common.parameter import Parameter
from ...common.seed import generator
from ...common.tensor import Tensor
from ..._validator import check_int, check_positive_int
from ..primitive import PRIMITIVES, Primitive, PrimitiveWithCheck, PrimitiveWithInfer, \
    prim_attr_register
from . import (array_ops, comm_ops, conv_ops, debug_ops, einsum_ops, fft_ops, image_ops,  # noqa: F401
               linalg_ops, loss_ops, math_ops, misc_ops, nn_ops, norm_ops, optim_ops, pool_ops,
               random_ops, reduce_ops, scatter_ops, shape_ops, special_ops)  # (they register)
from .. import function as F
from ..custom import Custom, Morph  # noqa: F401  (in ops.operations too, as in MindSpore)

# Registered primitives that only serve other rules (`internal`, and the gradient kernels named
# *Grad) have no MindSpore user-facing counterpart and stay out of the namespace.
_REGISTERED = sorted(name for name, cls in PRIMITIVES.items()
                     if not cls.internal and not name.endswith("Grad"))
globals().update({name: PRIMITIVES[name] for name in _REGISTERED})
# User-facing classes that are composites (or adapt a registered primitive's call) are named in
# their module's PRIMITIVE_CLASSES, in a primitive family or in a functional family.
_FAMILY_CLASSES = {name: getattr(module, name)
                   for module in (comm_ops, debug_ops, fft_ops, image_ops, linalg_ops, misc_ops,
                                  optim_ops, random_ops, scatter_ops, shape_ops,
                                  special_ops) + F.FAMILIES
                   for name in getattr(module, "PRIMITIVE_CLASSES", ())}
globals().update(_FAMILY_CLASSES)
Div = math_ops.Div
identity = F.identity  # MindSpore's ops.operations also exports the function


class Gather(array_ops.Take):
    """`Gather(batch_dims=0)(input_params, input_indices, axis)`: slices along `axis`; with
    `batch_dims`, the leading axes of params and indices are batch axes."""

    def __init__(self, batch_dims=0):
        super().__init__()
        self.batch_dims = batch_dims

    def __call__(self, input_params, input_indices, axis=0):
        if self.batch_dims:
            return F.gather(input_params, input_indices, axis, self.batch_dims)
        return apply(self, (input_params, input_indices, axis))


class BroadcastTo(array_ops.DynamicBroadcastTo):
    """`BroadcastTo(shape)(x)`: x broadcast to `shape` (-1 keeps a dimension)."""

    def __init__(self, shape):
        super().__init__()
        self.shape = tuple(shape)

    def __call__(self, x):
        return F.broadcast_to(x, self.shape)


class Pad(array_ops.PadConstant):
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
        axis = self.axis if self.axis not in ((), []) else None
        return (F.std(x, axis, int(self.unbiased), self.keep_dims),
                F.mean(x, axis, self.keep_dims))


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
        return apply(array_ops.SplitSizes(self.axis, [n // self.output_num] * self.output_num),
                     (x,))


class SplitV(Primitive):
    """`SplitV(size_splits, split_dim, num_split)(x)`: pieces of the given sizes along
    `split_dim`; one size may be -1 (the rest of the axis)."""

    def __init__(self, size_splits, split_dim, num_split):
        super().__init__()
        self.size_splits = tuple(check_int(s, "size_splits", "SplitV") for s in size_splits)
        self.split_dim = check_int(split_dim, "split_dim", "SplitV")
        self.num_split = check_positive_int(num_split, "num_split", "SplitV")
        if len(self.size_splits) != self.num_split:
            raise ValueError(f"For 'SplitV', the 'size_splits' must have 'num_split' "
                             f"({self.num_split}) entries, but got {list(self.size_splits)}")
        if sum(s == -1 for s in self.size_splits) > 1 or \
                any(s < -1 for s in self.size_splits):
            raise ValueError(f"For 'SplitV', the 'size_splits' must be non-negative with at most "
                             f"one -1, but got {list(self.size_splits)}")

    def __call__(self, x):
        n = x.shape[self.split_dim]
        sizes = list(self.size_splits)
        if -1 in sizes:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if sum(sizes) != n or min(sizes) < 0:
            raise ValueError(f"For 'SplitV', the 'size_splits' {list(self.size_splits)} do not "
                             f"add up to axis {self.split_dim} of shape {x.shape}")
        return apply(array_ops.SplitSizes(self.split_dim, sizes), (x,))


# ---- creation and shape queries (constant outputs) -----------------------------------------------

class _Constant(Primitive):
    """A creation primitive: its output is a constant (no inputs to differentiate)."""


class Ones(_Constant):
    """`Ones()(shape, dtype)`: a tensor of ones (float32 by default)."""

    def __call__(self, shape, dtype=mstype.float32):
        return F.ones(shape, dtype)


class Zeros(_Constant):
    """`Zeros()(shape, dtype)`: a tensor of zeros (float32 by default)."""

    def __call__(self, shape, dtype=mstype.float32):
        return F.zeros(shape, dtype)


class OnesLike(_Constant):
    """`OnesLike()(x)`: ones of x's shape and dtype."""

    def __call__(self, x):
        return F.ones_like(x)


class ZerosLike(_Constant):
    """`ZerosLike()(x)`: zeros of x's shape and dtype."""

    def __call__(self, x):
        return F.zeros_like(x)


class Fill(_Constant):
    """`Fill()(type, shape, value)`: a tensor of `shape` and dtype `type` filled with `value`."""

    def __call__(self, type, shape, value):
        return F.fill(type, shape, value)


class Eye(_Constant):
    """`Eye()(n, m, t)`: an n x m identity matrix of dtype t."""

    def __call__(self, n, m, t):
        return F.eye(n, m, t)


class Shape(_Constant):
    """`Shape()(x)`: the shape as a tuple."""

    def __call__(self, x):
        return F.shape(x)


class Rank(_Constant):
    """`Rank()(x)`: the number of dimensions."""

    def __call__(self, x):
        return F.rank(x)


class Size(_Constant):
    """`Size()(x)`: the number of elements."""

    def __call__(self, x):
        return F.size(x)


class OneHot(_Constant):
    """`OneHot(axis=-1)(indices, depth, on_value, off_value)`."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def __call__(self, indices, depth, on_value, off_value):
        return F.one_hot(indices, depth, on_value, off_value, self.axis)


class Unique(_Constant):
    """`Unique()(x)`: (values in order of first appearance, inverse indices)."""

    def __call__(self, x):
        return F.unique(x)


# ---- composites under MindSpore's class names -----------------------------------------------------

class GatherD(Primitive):
    """`GatherD()(x, dim, index)`: NumPy's take_along_axis (as `ops.gather_elements`)."""

    def __call__(self, x, dim, index):
        return F.gather_elements(x, dim, index)


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
        if not isinstance(input_x, Tensor) or not isinstance(bias, Tensor):
            raise TypeError("For 'BiasAdd', 'input_x' and 'bias' must be Tensors")
        axis = input_x.ndim - 1 if self.data_format == "NHWC" else 1
        if input_x.ndim < 2 or bias.shape != (input_x.shape[axis],):
            raise ValueError(f"For 'BiasAdd', 'bias' must have shape (C,) = "
                             f"({input_x.shape[axis] if input_x.ndim >= 2 else '?'},) for "
                             f"input of shape {input_x.shape}, but got {bias.shape}")
        shape = [1] * input_x.ndim
        shape[axis] = bias.shape[0]
        return F.add(input_x, F.reshape(bias, tuple(shape)))


class ReLU6(Primitive):
    """`ReLU6()(x)`: min(max(x, 0), 6)."""

    def __call__(self, x):
        return F.relu6(x)


class Elu(Primitive):
    """`Elu(alpha=1.0)(x)`."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def __call__(self, x):
        return F.elu(x, self.alpha)


class SeLU(Primitive):
    """`SeLU()(x)`."""

    def __call__(self, x):
        return F.selu(x)


class HSwish(Primitive):
    """`HSwish()(x)`: x * relu6(x + 3) / 6."""

    def __call__(self, x):
        return F.hardswish(x)


class HSigmoid(Primitive):
    """`HSigmoid()(x)`: relu6(x + 3) / 6."""

    def __call__(self, x):
        return F.hardsigmoid(x)


class Mish(Primitive):
    """`Mish()(x)`: x * tanh(softplus(x))."""

    def __call__(self, x):
        return F.mish(x)


class Softsign(Primitive):
    """`Softsign()(x)`: x / (1 + |x|)."""

    def __call__(self, x):
        return F.softsign(x)


class L2Normalize(Primitive):
    """`L2Normalize(axis=0, epsilon=1e-4)(x)`: x / sqrt(max(sum(x^2, axis), epsilon))."""

    def __init__(self, axis=0, epsilon=1e-4):
        super().__init__()
        self.axis, self.epsilon = axis, epsilon

    def __call__(self, x):
        ssq = F.sum(F.square(x), self.axis, True)
        return x * F.rsqrt(F.maximum(ssq, self.epsilon))


class TopK(Primitive):
    """`TopK(sorted=True)(input_x, k)`: (values, int32 indices) of the k largest along the last
    axis."""

    def __init__(self, sorted=True):
        super().__init__()
        self.sorted = sorted

    def __call__(self, input_x, k):
        return F.topk(input_x, k, sorted=self.sorted)


class Sort(Primitive):
    """`Sort(axis=-1, descending=False)(x)`: (values, int32 indices)."""

    def __init__(self, axis=-1, descending=False):
        super().__init__()
        self.axis, self.descending = axis, descending

    def __call__(self, x):
        return F.sort(x, self.axis, self.descending)


class _LogicalReduce(Primitive):
    _fn = None

    def __init__(self, keep_dims=False):
        super().__init__()
        self.keep_dims = keep_dims

    def __call__(self, x, axis=()):
        return getattr(F, self._fn)(x, axis, self.keep_dims)


class ReduceAll(_LogicalReduce):
    """`ReduceAll(keep_dims=False)(x, axis=())`: logical and over `axis`."""

    _fn = "all"


class ReduceAny(_LogicalReduce):
    """`ReduceAny(keep_dims=False)(x, axis=())`: logical or over `axis`."""

    _fn = "any"


class ScatterNd(Primitive):
    """`ScatterNd()(indices, updates, shape)`."""

    def __call__(self, indices, updates, shape):
        return F.scatter_nd(indices, updates, shape)


class TensorScatterUpdate(Primitive):
    """`TensorScatterUpdate()(input_x, indices, updates)`."""

    def __call__(self, input_x, indices, updates):
        return F.tensor_scatter_update(input_x, indices, updates)


class TensorScatterAdd(Primitive):
    """`TensorScatterAdd()(input_x, indices, updates)`."""

    def __call__(self, input_x, indices, updates):
        return F.tensor_scatter_add(input_x, indices, updates)


class SoftmaxCrossEntropyWithLogits(Primitive):
    """`SoftmaxCrossEntropyWithLogits()(logits, labels)`: (per-sample loss (N,), its gradient
    softmax(logits) - labels (N, C)) for probability `labels` (N, C)."""

    def __call__(self, logits, labels):
        loss = F.cross_entropy(logits, labels, reduction="none")
        return loss, F.softmax(logits, 1) - F.cast(labels, logits.dtype)


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """`SparseSoftmaxCrossEntropyWithLogits(is_grad=False)(logits, labels)`: the mean
    cross-entropy of `logits` (N, C) at class indices `labels` (N,); with `is_grad`, its gradient
    with respect to the logits instead."""

    def __init__(self, is_grad=False):
        super().__init__()
        self.is_grad = is_grad

    def __call__(self, logits, labels):
        if not self.is_grad:
            return F.cross_entropy(logits, labels)
        onehot = F.one_hot(labels, logits.shape[1], 1.0, 0.0)
        return (F.softmax(logits, 1) - F.cast(onehot, logits.dtype)) / logits.shape[0]


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
        return F.creation_func._shape_arg(shape, self.name)


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
            F.layer_func._blend(mean, wrap(batch_mean._data), self.momentum)
            m = x.size // x.shape[1]
            F.layer_func._blend(variance, wrap(batch_var._data) * (m / max(m - 1, 1)),
                                self.momentum)
            return y, batch_mean, batch_var, batch_mean, batch_var
        y = F.batch_norm(x, mean, variance, scale, bias, False, self.momentum,
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


__all__ = sorted(set(_REGISTERED) | set(_FAMILY_CLASSES) | {"identity", "Custom", "Morph", "BatchNorm", "Dropout", "Conv2DTranspose",
    "Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register", "Div",
    "BroadcastTo", "Pad", "ReduceStd", "Gather", "Split", "SplitV", "Ones", "Zeros", "OnesLike", "ZerosLike",
    "Fill", "Eye", "Shape", "Rank", "Size", "OneHot", "Unique", "GatherD", "BiasAdd", "GeLU", "ReLU6", "Elu",
    "SeLU", "HSwish", "HSigmoid", "Mish", "Softsign", "L2Normalize", "TopK", "Sort", "ReduceAll",
    "ReduceAny", "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd",
    "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "StandardNormal",
    "UniformReal",
})
