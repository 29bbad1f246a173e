"""More of MindSpore 2.10's basic cells: Linear, BiDense, Unflatten, Unfold, L1Regularizer,
TimeDistributed, CentralCrop, ImageGradients, LRN, Dropout3d, the `*Ext` cells (DropoutExt,
Dropout2dExt, PReLUExt, LayerNormExt, LogSoftmaxExt, EmbeddingExt) and ParameterUpdate."""
import math
import numbers

import numpy as np

from ..._validator import (
    check_bool,
    check_float_range,
    check_int,
    check_int_range,
    check_positive_int,
    check_type,
    type_name,
)
from ...common import dtype as mstype
from ...common.initializer import HeUniform, Normal, Uniform, initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops.function import array_func as AF
from ...ops.function import creation_func as CF
from ...ops.function import graph_func as GF
from ...ops.function import layer_func as LF
from ...ops.function import math_func as F
from ...ops.function import nn_func as NF
from ...ops.function.shape_func import ExtractImagePatches
from ..cell import Cell
from .basic import new_parameter

__all__ = [
    "LRN",
    "BiDense",
    "CentralCrop",
    "Dropout2dExt",
    "Dropout3d",
    "DropoutExt",
    "EmbeddingExt",
    "ImageGradients",
    "L1Regularizer",
    "LayerNormExt",
    "Linear",
    "LogSoftmaxExt",
    "PReLUExt",
    "ParameterUpdate",
    "TimeDistributed",
    "Unflatten",
    "Unfold",
]


def _check_init_shape(init, shape, arg, owner):
    if isinstance(init, Tensor) and init.shape != tuple(shape):
        raise ValueError(f"For '{owner}', the '{arg}' must have shape {tuple(shape)}, but got "
                         f"{init.shape}")


class Linear(Cell):
    """y = x @ weight^T + bias on the last axis of x; `weight` (out_features, in_features) is
    HeUniform(sqrt(5)) and `bias` Uniform(1/sqrt(in_features)) unless given."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None,
                 dtype=None):
        super().__init__()
        self.in_features = check_positive_int(in_features, "in_features", "Linear")
        self.out_features = check_positive_int(out_features, "out_features", "Linear")
        self.has_bias = check_bool(bias, "has_bias", "Linear")
        dtype = mstype.float32 if dtype is None else dtype
        _check_init_shape(weight_init, (out_features, in_features), "weight_init", "Linear")
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = new_parameter(initializer(weight_init, (out_features, in_features), dtype),
                                    "weight")
        self.bias = None
        if self.has_bias:
            _check_init_shape(bias_init, (out_features,), "bias_init", "Linear")
            if bias_init is None:
                bias_init = Uniform(1 / math.sqrt(in_features))
            self.bias = new_parameter(initializer(bias_init, (out_features,), dtype), "bias")

    def construct(self, x):
        check_type(x, Tensor, "x", "Linear")
        if x.shape[-1:] != (self.in_features,):
            raise ValueError(f"For 'Linear', the last axis of 'x' must be {self.in_features}, "
                             f"but got shape {x.shape}")
        return NF.dense(x, self.weight, self.bias)

    def extend_repr(self):
        s = f"input_features={self.in_features}, output_features={self.out_features}"
        return s + (f", has_bias={self.has_bias}" if self.has_bias else "")


class BiDense(Cell):
    """The bilinear map y_k = x1 @ weight[k] @ x2 + bias_k: `weight` (out, in1, in2) and `bias`
    (out,) both Uniform(1/sqrt(in1_channels)) unless given; x1 (..., in1), x2 (..., in2) with
    the same leading axes give (..., out)."""

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None,
                 bias_init=None, has_bias=True, dtype=mstype.float32):
        super().__init__()
        self.in1_channels = check_positive_int(in1_channels, "in1_channels", "BiDense")
        self.in2_channels = check_positive_int(in2_channels, "in2_channels", "BiDense")
        self.out_channels = check_positive_int(out_channels, "out_channels", "BiDense")
        self.has_bias = check_bool(has_bias, "has_bias", "BiDense")
        bound = 1 / math.sqrt(in1_channels)
        shape = (out_channels, in1_channels, in2_channels)
        _check_init_shape(weight_init, shape, "weight_init", "BiDense")
        self.weight = new_parameter(initializer(Uniform(bound) if weight_init is None
                                                else weight_init, shape, dtype), "weight")
        self.bias = None
        if self.has_bias:
            _check_init_shape(bias_init, (out_channels,), "bias_init", "BiDense")
            self.bias = new_parameter(initializer(Uniform(bound) if bias_init is None
                                                  else bias_init, (out_channels,), dtype),
                                      "bias")

    def construct(self, input1, input2):
        check_type(input1, Tensor, "input1", "BiDense")
        check_type(input2, Tensor, "input2", "BiDense")
        for arg, x, n in (("input1", input1, self.in1_channels),
                          ("input2", input2, self.in2_channels)):
            if x.shape[-1:] != (n,):
                raise ValueError(f"For 'BiDense', the last axis of '{arg}' must be {n}, but got "
                                 f"shape {x.shape}")
        if input1.shape[:-1] != input2.shape[:-1]:
            raise ValueError(f"For 'BiDense', 'input1' and 'input2' must have the same leading "
                             f"axes, but got shapes {input1.shape} and {input2.shape}")
        return NF.bidense(input1, input2, self.weight, self.bias)

    def extend_repr(self):
        s = (f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, "
             f"output_channels={self.out_channels}")
        return s + (f", has_bias={self.has_bias}" if self.has_bias else "")


class Unflatten(Cell):
    """Axis `axis` of the input reshaped into `unflattened_size`."""

    def __init__(self, axis, unflattened_size):
        super().__init__()
        self.axis = check_int(axis, "axis", "Unflatten")
        check_type(unflattened_size, (list, tuple), "unflattended_size", "Unflatten")
        self.unflattened_size = tuple(unflattened_size)

    def construct(self, input_x):
        check_type(input_x, Tensor, "input_x", "Unflatten")
        shape = input_x.shape
        axis = self.axis % len(shape) if shape else self.axis
        return AF.reshape(input_x, shape[:axis] + self.unflattened_size + shape[axis + 1:])


def _patch_arg(value, arg, owner):
    check_type(value, (tuple, list), f"{arg}s", owner)
    if len(value) != 4 or value[0] != 1 or value[3] != 1:
        raise ValueError(f"For '{owner}' the format of '{arg}s' must be [1, {arg}_row, "
                         f"{arg}_col, 1], but got {value}.")
    rows, cols = value[1], value[2]
    if not (isinstance(rows, int) and isinstance(cols, int)) or rows < 1 or cols < 1:
        raise ValueError(f"For '{owner}' the {arg}_row and {arg}_col in '{arg}s' must be "
                         f"positive integers, but got {rows} and {cols}")
    return rows, cols


class Unfold(Cell):
    """Image patches as channels (TensorFlow's extract_image_patches) of an NCHW input:
    `ksizes`, `strides`, `rates` are [1, row, col, 1]; the output is
    (N, row * col * C, out_rows, out_cols), channel (i * col + j) * C + c."""

    def __init__(self, ksizes, strides, rates, padding="valid"):
        super().__init__()
        self.ksizes = _patch_arg(ksizes, "ksize", "Unfold")
        self.strides = _patch_arg(strides, "stride", "Unfold")
        self.rates = _patch_arg(rates, "rate", "Unfold")
        self.padding = padding
        self._extract = ExtractImagePatches(self.ksizes, self.strides, self.rates, padding)

    def construct(self, input_x):
        return self._extract(input_x)


class L1Regularizer(Cell):
    """scale * sum(|weights|), a float32 scalar for float32 weights."""

    def __init__(self, scale):
        super().__init__()
        if isinstance(scale, bool) or not isinstance(scale, (int, float)):
            raise TypeError(f"For 'L1Regularizer', the 'scale' must be an int or float, but got "
                            f"{type_name(scale)}")
        if math.isinf(scale) or math.isnan(scale):
            raise ValueError(f"For 'L1Regularizer', the 'scale' can not be INF or NAN, but got "
                             f"{scale}.")
        if scale <= 0:
            raise ValueError(f"For 'L1Regularizer', the 'scale' must be greater than 0, but got "
                             f"{scale}.")
        self.scale = Tensor(np.float32(scale))

    def construct(self, weights):
        check_type(weights, Tensor, "weights", "L1Regularizer")
        if weights._data.dtype.kind not in "iuf":
            raise TypeError(f"For 'L1Regularizer', the 'weights' must be a number Tensor, but "
                            f"got {weights.dtype}")
        total = F.sum(F.abs(weights))
        return self.scale.astype(total.dtype) * total


class TimeDistributed(Cell):
    """`layer` applied to every slice of the input along `time_axis`, the results stacked on
    that axis again; with `reshape_with_axis`, the time axis is merged into that axis for one
    call of `layer` and split again afterwards."""

    def __init__(self, layer, time_axis, reshape_with_axis=None):
        if not isinstance(layer, Cell) and not callable(layer):
            raise TypeError(f"For 'TimeDistributed', the 'layer' must be Cell or Primitive "
                            f"instance, but got type: {type(layer).__name__}.")
        super().__init__()
        self.layer = layer
        self.time_axis = check_int(time_axis, "time_axis", "TimeDistributed")
        self.reshape_with_axis = None if reshape_with_axis is None else \
            check_int(reshape_with_axis, "reshape_with_axis", "TimeDistributed")

    def construct(self, inputs):
        if not isinstance(inputs, Tensor):
            raise TypeError("For 'TimeDistributed', the 'inputs' must be a Tensor")
        if inputs.ndim < 3:
            raise ValueError(f"For 'TimeDistributed', the 'inputs' must have at least 3 dims, "
                             f"but got shape {inputs.shape}")
        rank = inputs.ndim
        time_axis = self.time_axis % rank
        if self.reshape_with_axis is None:
            outs = [self._apply(x) for x in AF.unstack(inputs, time_axis)]
            return AF.stack(outs, time_axis)
        merge = self.reshape_with_axis % rank
        if merge == rank - 1:
            time_new = rank - 2
        else:
            time_new = merge + 1 if time_axis > merge else merge - 1
        pos = min(merge, time_new)
        lo, hi = sorted((time_new, time_axis))
        perm = tuple(range(lo)) + (hi,) + tuple(range(lo, hi)) + tuple(range(hi + 1, rank))
        moved = AF.transpose(inputs, perm)
        shape = moved.shape
        merged = AF.reshape(moved, shape[:pos] + (-1,) + shape[pos + 2:])
        out = self._apply(merged)
        if out.ndim <= pos or out.shape[pos] != merged.shape[pos]:
            raise ValueError(f"For 'TimeDistributed', the layer must keep axis {pos} "
                             f"(size {merged.shape[pos]}), but its output has shape {out.shape}")
        return AF.reshape(out, (-1,) + (out.shape[:pos] + shape[pos:pos + 2] +
                                        out.shape[pos + 1:])[1:])

    def _apply(self, x):
        out = self.layer(x)
        if not isinstance(out, Tensor):
            raise TypeError("For 'TimeDistributed', the layer must return a Tensor")
        return out


class CentralCrop(Cell):
    """The central `central_fraction` (in (0, 1]) of the last two axes of a 3-d or 4-d
    image."""

    def __init__(self, central_fraction):
        super().__init__()
        check_type(central_fraction, float, "central_fraction", "CentralCrop")
        self.central_fraction = check_float_range(central_fraction, "central_fraction",
                                                  "CentralCrop", 0.0, 1.0, low_inclusive=False)

    def construct(self, image):
        check_type(image, Tensor, "image", "CentralCrop")
        if image.ndim not in (3, 4):
            raise ValueError(f"CentralCrop image must be 3d or 4d, but got shape {image.shape}")
        if self.central_fraction == 1.0:
            return image
        h, w = image.shape[-2:]
        top = int((float(h) - float(h * self.central_fraction)) / 2)
        left = int((float(w) - float(w * self.central_fraction)) / 2)
        return image[..., top:h - top, left:w - left]


class ImageGradients(Cell):
    """(dy, dx): forward differences of an NCHW image along H and W, zero in the last row
    (dy) and column (dx)."""

    def __init__(self):
        super().__init__()

    def construct(self, images):
        check_type(images, Tensor, "images", "ImageGradients")
        if images.ndim != 4:
            raise ValueError(f"For 'ImageGradients', the dimension of 'images' must be 4, but "
                             f"got {images.ndim}")
        zeros = CF.zeros_like
        dy = AF.concat((images[:, :, 1:, :] - images[:, :, :-1, :], zeros(images[:, :, :1, :])),
                       2)
        dx = AF.concat((images[:, :, :, 1:] - images[:, :, :, :-1], zeros(images[:, :, :, :1])),
                       3)
        return dy, dx


class LRN(Cell):
    """Local response normalisation across channels of an NCHW input:
    x / (bias + alpha * sum of x^2 over channels c - r .. c + r) ** beta."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                 norm_region="ACROSS_CHANNELS"):
        super().__init__()
        check_int(depth_radius, "depth_radius", "LRN")
        for arg, v in (("bias", bias), ("alpha", alpha), ("beta", beta)):
            check_type(v, float, arg, "LRN")
        check_type(norm_region, str, "norm_region", "LRN")
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"For 'LRN', the 'norm_region' must be 'ACROSS_CHANNELS', but got "
                             f"{norm_region}")
        if depth_radius < 0:
            raise ValueError(f"For 'LRN', the 'depth_radius' must be >= 0, but got "
                             f"{depth_radius}")
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def construct(self, input_x):
        return LF.lrn(input_x, self.depth_radius, self.bias, self.alpha, self.beta,
                      self.norm_region)


def _check_p(p, owner, types=(float,)):
    if isinstance(p, bool) or not isinstance(p, types):
        raise TypeError(f"For '{owner}', the 'p' must be a float, but got {type_name(p)}")
    if not 0 <= p <= 1:
        raise ValueError(f"For '{owner}', the 'p' must be in range [0, 1], but got {p}")
    return float(p)


class Dropout3d(Cell):
    """Zero whole channels of an (N, C, D, H, W) input with probability `p` in training mode,
    scaling the rest by 1 / (1 - p)."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = _check_p(p, "Dropout3d")
        self.keep_prob = 1.0 - self.p

    def construct(self, x):
        if not self.training or self.keep_prob == 1:
            return x
        return NF.dropout3d(x, self.p, True)

    def extend_repr(self):
        return f"p={self.p}"


def _inplace(x, out, inplace):
    if inplace:
        x.assign_value(out)
        return x
    return out


class DropoutExt(Cell):
    """Zero each element with probability `p` in training mode (the rest scaled by
    1 / (1 - p)); `inplace` writes the result into the input."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = _check_p(p, "DropoutExt", (int, float))
        self.inplace = check_bool(inplace, "inplace", "DropoutExt")

    def construct(self, input):
        if not self.training or self.p == 0:
            return input
        return _inplace(input, LF.dropout(input, self.p, True), self.inplace)

    def extend_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout2dExt(Cell):
    """Zero whole channels of an (N, C, H, W) input with probability `p` in training mode."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = _check_p(p, "Dropout2dExt", (int, float))
        self.inplace = check_bool(inplace, "inplace", "Dropout2dExt")

    def construct(self, input):
        if not self.training or self.p == 0:
            return input
        return _inplace(input, LF.dropout2d(input, self.p, True), self.inplace)

    def extend_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class PReLUExt(Cell):
    """max(0, x) + weight * min(0, x), `weight` (num_parameters,) filled with `init`, one slope
    per channel (axis 1) or one shared."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        self.num_parameters = check_positive_int(num_parameters, "num_parameters", "PReLUExt")
        dt = mstype.to_np(mstype.float32 if dtype is None else dtype)
        self.weight = Parameter(np.full((num_parameters,), init, dt), name="weight")

    def construct(self, input):
        return NF.prelu(input, self.weight)

    def extend_repr(self):
        return f"num_parameters={self.num_parameters}"


class LayerNormExt(Cell):
    """Layer normalisation over the trailing `normalized_shape` axes, with a `weight` (ones)
    and `bias` (zeros) of that shape when `elementwise_affine` (no bias when `bias` is
    False)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"For 'LayerNormExt', the 'normalized_shape' must be an int, tuple "
                            f"or list, but got {type_name(normalized_shape)}")
        if not normalized_shape:
            raise ValueError("For 'LayerNormExt', the 'normalized_shape' can not be empty")
        self.normalized_shape = tuple(int(s) for s in normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        dt = mstype.to_np(mstype.float32 if dtype is None else dtype)
        self.weight = self.bias = None
        if elementwise_affine:
            self.weight = Parameter(np.ones(self.normalized_shape, dt), name="weight")
            if bias:
                self.bias = Parameter(np.zeros(self.normalized_shape, dt), name="bias")

    def construct(self, input):
        return LF.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extend_repr(self):
        return (f"normalized_shape={self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LogSoftmaxExt(Cell):
    """log(softmax(x)) along `dim`; `dim=None` picks axis 0 for inputs of rank 0, 1 or 3 and
    axis 1 otherwise."""

    def __init__(self, dim=None):
        super().__init__()
        if dim is not None:
            check_int(dim, "dim", "LogSoftmaxExt")
        self.dim = dim

    def construct(self, x):
        check_type(x, Tensor, "x", "LogSoftmaxExt")
        dim = self.dim
        if dim is None:
            dim = 0 if x.ndim in (0, 1, 3) else 1
        return NF.log_softmax(x, dim)


class EmbeddingExt(Cell):
    """Rows of `weight` (num_embeddings, embedding_dim), initialised N(0, 1) (or `_weight`), at
    integer ids; `padding_idx` is a zero row that gets no gradient; `max_norm` renormalises the
    looked-up rows in place."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, dtype=None):
        super().__init__()
        owner = "EmbeddingExt"
        if check_bool(sparse, "sparse", owner):
            raise ValueError(f"For '{owner}', the 'sparse' must be False, sparse gradients are "
                             f"not supported")
        for arg, v in (("num_embeddings", num_embeddings), ("embedding_dim", embedding_dim)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For '{owner}', the '{arg}' must be an int, but got "
                                f"{type_name(v)}")
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.dtype = mstype.float32 if dtype is None else dtype
        if padding_idx is not None:
            padding_idx = check_int_range(padding_idx, "padding_idx", owner, -num_embeddings,
                                          num_embeddings, high_inclusive=False)
        self.padding_idx = padding_idx
        if _weight is None:
            table = initializer(Normal(1.0, 0.0), (num_embeddings, embedding_dim), self.dtype)
            if padding_idx is not None:
                table._data[padding_idx] = 0
            self.weight = new_parameter(table, "weight")
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError(f"For '{owner}', the shape of '_weight' must be "
                                 f"{(num_embeddings, embedding_dim)}, but got {_weight.shape}")
            self.weight = Parameter(_weight, name="weight")
        self.weight.requires_grad = not _freeze
        if max_norm is not None:
            check_type(max_norm, float, "max_norm", owner)
        if norm_type is not None:
            check_type(norm_type, float, "norm_type", owner)
        if scale_grad_by_freq is not None:
            check_bool(scale_grad_by_freq, "scale_grad_by_freq", owner)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq

    def construct(self, input):
        padding = None if self.padding_idx is None else self.padding_idx % self.num_embeddings
        return LF.embedding(input, self.weight, padding, self.max_norm, self.norm_type,
                            self.scale_grad_by_freq)

    def extend_repr(self):
        return (f"num_embeddings={self.num_embeddings}, embedding_dim={self.embedding_dim}, "
                f"padding_idx={self.padding_idx}, max_norm={self.max_norm}, "
                f"norm_type={self.norm_type}, scale_grad_by_freq={self.scale_grad_by_freq}, "
                f"dtype={self.dtype}")


class ParameterUpdate(Cell):
    """`ParameterUpdate(param)(x)` writes x into `param` (same shape and dtype) and returns
    it."""

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'ParameterUpdate', the 'param' must be a Parameter, but got "
                            f"{type_name(param)}")
        self._param = param

    def construct(self, x):
        check_type(x, Tensor, "x", "ParameterUpdate")
        return GF.assign(self._param, x)
