"""Functional forms of the layers: convolution, pooling, normalisation, dropout, embedding,
interpolation (MindSpore's `ops.conv2d`, `ops.max_pool2d`, `ops.batch_norm`, ...)."""
import functools
import math

import numpy as np

from ..._autodiff.tape import apply, const, wrap, write_in_place
from ..._validator import check_bool, check_float_range, check_one_of, check_positive_int
from ...common import dtype as mstype
from ...common.seed import generator
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import conv_ops as C
from ..operations import math_ops as M
from ..operations import reduce_ops as R
from ..operations import linalg_ops as L
from ..operations import norm_ops as Nn
from ..operations import random_ops as RandomOps
from ..primitive import Primitive, data_function, shared
from ._checks import _tensor
from . import math_func as MF
from .math_func import matmul
from .nn_func import relu as nn_relu
from .nn_func import stop_gradient

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose2d", "unfold", "fold", "max_pool1d",
           "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool2d", "dropout", "dropout1d", "dropout2d", "batch_norm", "layer_norm",
           "group_norm", "instance_norm", "embedding", "bias_add", "interpolate", "upsample",
           "pixel_shuffle", "pixel_unshuffle", "conv3d_transpose", "max_pool3d", "avg_pool3d",
           "adaptive_avg_pool3d", "adaptive_max_pool3d", "adaptive_max_pool1d",
           "adaptive_avg_pool2d_ext", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d",
           "lp_pool2d", "lrn", "col2im", "fractional_max_pool2d", "fractional_max_pool3d"]

# User-facing Primitive classes defined here (MindSpore classes that are composites), exported
# by ops.operations.
PRIMITIVE_CLASSES = ("Conv3DTranspose", "MaxPool3D", "AvgPool3D", "MaxPool3DWithArgmax",
                     "MaxPoolWithArgmaxV2", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D",
                     "AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "MaxUnpool2D", "MaxUnpool3D", "LRN",
                     "FractionalMaxPoolWithFixedKsize", "FractionalMaxPool3DWithFixedKsize",
                     "FractionalMaxPool", "FractionalAvgPool", "Dilation2D")


def _rank(x, ranks, op, arg="input"):
    """`x` after checking that it is a Tensor of rank `ranks` (an int, or a tuple of ints)."""
    _tensor(x, op, arg)
    ranks = (ranks,) if isinstance(ranks, int) else ranks
    if x.ndim not in ranks:
        raise ValueError(f"For '{op}', the '{arg}' must be {' or '.join(f'{r}-D' for r in ranks)}"
                         f", but got shape {x.shape}")
    return x


# ---- convolution -----------------------------------------------------------------------------------

def conv_padding(pad_mode, padding, sizes, kernel, stride, dilation, op):
    """(before, after) per spatial dim, flat, for MindSpore's pad modes: 'valid', 'same'
    (TF-style, the odd extra row/column at the end) or 'pad' with `padding` (an int, one int
    per spatial dim, or (before, after) per spatial dim)."""
    nd = len(sizes)
    check_one_of(pad_mode, ("valid", "same", "pad"), "pad_mode", op)
    if pad_mode in ("valid", "same"):
        if padding not in (0, (0,) * nd, (0,) * (2 * nd)):
            raise ValueError(f"For '{op}', 'padding' must be 0 when pad_mode is '{pad_mode}', "
                             f"but got {padding!r}")
        if pad_mode == "valid":
            return (0,) * (2 * nd)
        return sum((C.same_padding(n, k, s, d)
                    for n, k, s, d in zip(sizes, kernel, stride, dilation)), ())
    if isinstance(padding, (tuple, list)) and len(padding) == nd:  # symmetric per dim
        padding = tuple(p for p in padding for _ in range(2))
    return C._pad_n(padding, nd, op, "padding")


def _conv_prim(x, weight, stride, pad_mode, padding, dilation, groups, op):
    nd = weight.ndim - 2
    stride = C.ntuple(stride, nd, "stride", op)
    dilation = C.ntuple(dilation, nd, "dilation", op)
    if min(stride + dilation) < 1:
        raise ValueError(f"For '{op}', 'stride' and 'dilation' must be positive, got {stride} "
                         f"and {dilation}")
    check_positive_int(groups, "groups", op)
    pad = conv_padding(pad_mode, padding, x.shape[2:], weight.shape[2:], stride, dilation, op)
    return shared(C.Conv3D if nd == 3 else C.Conv2D, weight.shape[0], tuple(weight.shape[2:]),
                  1, "pad", tuple(pad), stride, dilation, groups)


def _convolve(op, rank, input, weight, bias, stride, pad_mode, padding, dilation, groups):
    _rank(input, rank, op)
    _rank(weight, rank, op, "weight")
    if input.shape[1] != weight.shape[1] * groups:
        raise ValueError(f"For '{op}', the input has {input.shape[1]} channels but the weight "
                         f"{weight.shape} with groups={groups} expects "
                         f"{weight.shape[1] * groups}")
    prim = _conv_prim(input, weight, stride, pad_mode, padding, dilation, groups, op)
    x, weight = L._matmul_operands(op, input, weight)
    return _add_channel_bias(prim(x, weight), bias)


def _add_channel_bias(out, bias):
    return out if bias is None else out + A.reshape(bias, (1, -1) + (1,) * (out.ndim - 2))


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """2-D convolution of NCHW `input` with `weight` (out_channels, in_channels/groups, kh, kw).

    `pad_mode` 'valid' (no padding), 'same' (TF-style) or 'pad' (explicit `padding`)."""
    return _convolve("conv2d", 4, input, weight, bias, stride, pad_mode, padding, dilation,
                     groups)


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """3-D convolution of NCDHW `input` with `weight` (out_channels, in_channels/groups, kd, kh,
    kw); `stride` and `dilation` an int or 3 ints.

    `pad_mode` 'valid' (no padding), 'same' (TF-style: the odd extra at the tail, bottom and
    right) or 'pad' with `padding`: an int or 3 ints (d, h, w) as in MindSpore, or 6 ints
    (head, tail, top, bottom, left, right)."""
    return _convolve("conv3d", 5, input, weight, bias, stride, pad_mode, padding, dilation,
                     groups)


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """1-D convolution of NCL `input` with `weight` (out_channels, in_channels/groups, k)."""
    _rank(input, 3, "conv1d")
    _rank(weight, 3, "conv1d", "weight")
    s = stride[0] if isinstance(stride, (tuple, list)) else stride
    d = dilation[0] if isinstance(dilation, (tuple, list)) else dilation
    if isinstance(padding, (tuple, list)):
        pad2 = (0, 0) + tuple(padding) if len(padding) == 2 else (0, 0, padding[0], padding[0])
    else:
        pad2 = (0, 0, padding, padding)
    out = conv2d(A.expand_dims(input, 2), A.expand_dims(weight, 2), None, (1, s), pad_mode,
                 pad2 if pad_mode == "pad" else 0, (1, d), groups)
    return _add_channel_bias(A.reshape(out, (out.shape[0], out.shape[1], out.shape[3])), bias)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 2-D convolution (the gradient of conv2d w.r.t. its input) of NCHW `input` with
    `weight` (in_channels, out_channels/groups, kh, kw); output size
    (H - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1, with
    output_padding below the stride or below the dilation on each axis."""
    _rank(input, 4, "conv_transpose2d")
    _rank(weight, 4, "conv_transpose2d", "weight")
    op = "conv_transpose2d"
    stride, dilation = C.pair(stride, "stride", op), C.pair(dilation, "dilation", op)
    if min(stride + dilation) < 1:
        raise ValueError(f"For '{op}', the 'stride' and 'dilation' must be positive, but got "
                         f"{stride} and {dilation}")
    ph, pw = C.pair(padding, "padding", op)
    if min(ph, pw) < 0:
        raise ValueError(f"For '{op}', the 'padding' must be non-negative, but got {padding!r}")
    # below the stride or below the dilation, per axis (output_padding 1 with stride 1 and
    # dilation 2 is allowed)
    output_padding = C.output_padding_ntuple(output_padding, stride, dilation, op)
    check_positive_int(groups, "groups", op)
    if input.shape[1] != weight.shape[0]:
        raise ValueError(f"For '{op}', the input has {input.shape[1]} channels but the weight "
                         f"{weight.shape} expects {weight.shape[0]}")
    pads = (ph, ph, pw, pw)
    outs = C.transposed_sizes(input.shape[2:], weight.shape[2:], stride, dilation, pads,
                              output_padding)
    if min(outs) <= 0:
        raise ValueError(f"For '{op}', the output size {outs} is not positive")
    x, weight = L._matmul_operands(op, input, weight)
    out = C.conv_transpose(x, weight, (input.shape[0], weight.shape[1] * groups) + outs, pads,
                           stride, dilation, groups, output_padding)
    return _add_channel_bias(out, bias)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of NCHW `input` as columns (im2col): (N, C*kh*kw, L), rows ordered by
    channel, then kernel row, then kernel column; L blocks in row-major order. `kernel_size`,
    `dilation`, `padding` (symmetric) and `stride` are ints or pairs."""
    _rank(input, 4, "unfold")
    prim = _patch_prim(C.Im2Col, "unfold", kernel_size, dilation, padding, stride)
    (kh, kw), n, c = prim.kernel_size, input.shape[0], input.shape[1]
    cols = apply(prim, (input,))
    return A.reshape(cols, (n, c * kh * kw, cols.shape[3]))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of `unfold` (col2im): columns `input` (N, C*kh*kw, L) summed back into
    (N, C, *output_size), overlapping blocks adding up. `output_size` is a pair of ints or, as
    MindSpore requires, an int Tensor of 2 elements."""
    _rank(input, 3, "fold")
    prim = _patch_prim(C.Col2Im, "fold", kernel_size, dilation, padding, stride)
    size = C._size_pair(output_size, "fold")
    kh, kw = prim.kernel_size
    n, rows, length = input.shape
    if rows % (kh * kw):
        raise ValueError(f"For 'fold', the input's second dim ({rows}) must divide by the "
                         f"kernel size {kh}x{kw}, but got shape {input.shape}")
    blocks = math.prod(prim._blocks(*size, input.shape))
    if length != blocks:
        raise ValueError(f"For 'fold', output_size {size} with these kernel_size, dilation, "
                         f"padding and stride has {blocks} blocks, but the input of shape "
                         f"{input.shape} has {length}")
    return prim(A.reshape(input, (n, rows // (kh * kw), kh * kw, length)), size)


def _patch_prim(cls, op, kernel_size, dilation, padding, stride):
    kernel, dil, pad, st = (C.pair(v, name, op) for v, name in (
        (kernel_size, "kernel_size"), (dilation, "dilation"), (padding, "padding"),
        (stride, "stride")))
    if cls is C.Im2Col:
        return shared(cls, kernel, st, dil, pad)
    return shared(cls, kernel, dil, pad, st)


# ---- pooling ---------------------------------------------------------------------------------------

def _ceil_extra(n, k, s, d, pad):
    """Rows past the padding that ceil_mode adds so a last partial window exists (it must still
    start inside the input or its leading padding)."""
    span = n + 2 * pad - d * (k - 1) - 1
    floor_out = span // s + 1
    ceil_out = -(-span // s) + 1
    if (ceil_out - 1) * s >= n + pad:
        ceil_out -= 1
    return max(0, (ceil_out - 1) * s + d * (k - 1) + 1 - (n + 2 * pad)) if ceil_out > floor_out \
        else 0


def _pool_args(x, kernel_size, stride, padding, dilation, ceil_mode, op):
    _rank(x, 4, op)
    kh, kw = C.pair(kernel_size, "kernel_size", op)
    sh, sw = C.pair(stride if stride is not None else (kh, kw), "stride", op)
    ph, pw = C.pair(padding, "padding", op)
    dh, dw = C.pair(dilation, "dilation", op)
    if min(kh, kw, sh, sw, dh, dw) < 1:
        raise ValueError(f"For '{op}', kernel_size, stride and dilation must be positive")
    if ph > kh // 2 or pw > kw // 2:
        raise ValueError(f"For '{op}', padding ({ph}, {pw}) must be at most half the kernel "
                         f"({kh}, {kw})")
    eb = _ceil_extra(x.shape[2], kh, sh, dh, ph) if ceil_mode else 0
    er = _ceil_extra(x.shape[3], kw, sw, dw, pw) if ceil_mode else 0
    return (kh, kw), (sh, sw), (ph, ph, pw, pw), (dh, dw), (eb, er)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    """Max over kernel_size windows of NCHW `x` (stride defaults to kernel_size; padding is
    -inf). With `return_indices` also the int64 flat index of each max within its H*W plane."""
    k, s, pad, d, (eb, er) = _pool_args(x, kernel_size, stride, padding, dilation, ceil_mode,
                                        "max_pool2d")
    t, b, l, r = pad
    pad = (t, b + eb, l, r + er)
    if not return_indices:
        return apply(shared(C.MaxPool, k, s, pad=pad, dilation=d), (x,))
    return apply(shared(C.MaxPoolWithArgmax, k, s, pad=pad, dilation=d), (x,))


def max_pool1d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    """Max over windows of NCL `x`."""
    _rank(x, 3, "max_pool1d")
    out = max_pool2d(A.expand_dims(x, 2), (1, kernel_size),
                     None if stride is None else (1, stride), (0, padding), (1, dilation),
                     return_indices, ceil_mode)
    if return_indices:
        values, idx = out
        return A.reshape(values, values.shape[:2] + values.shape[3:]), \
            A.reshape(idx, idx.shape[:2] + idx.shape[3:])
    return A.reshape(out, out.shape[:2] + out.shape[3:])


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """Mean over kernel_size windows of NCHW `input_x` (stride defaults to 1 here, unlike
    max_pool2d)."""
    k, s, pad, _, extra = _pool_args(input_x, kernel_size, stride, padding, 1, ceil_mode,
                                     "avg_pool2d")
    prim = shared(C.AvgPool, k, s, pad=pad, count_include_pad=count_include_pad,
                  divisor_override=divisor_override or None, ceil_extra=extra)
    return apply(prim, (input_x,))


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True):
    _rank(input_x, 3, "avg_pool1d")
    out = avg_pool2d(A.expand_dims(input_x, 2), (1, kernel_size), (1, stride), (0, padding),
                     ceil_mode, count_include_pad)
    return A.reshape(out, out.shape[:2] + out.shape[3:])


def _adaptive_sizes(output_size, in_hw, op):
    if isinstance(output_size, (int, np.integer)):
        output_size = (output_size,) * len(in_hw)
    out = tuple(in_hw[i] if v is None else int(v) for i, v in enumerate(output_size))
    if len(out) != len(in_hw) or any(v <= 0 for v in out):
        raise ValueError(f"For '{op}', 'output_size' must be positive ints (or None), got "
                         f"{output_size!r}")
    return out


def _adaptive_bounds(n, out):
    i = np.arange(out)
    return (i * n) // out, -((-(i + 1) * n) // out)  # floor(i n / out), ceil((i + 1) n / out)


def _averaging_matrix(n, out, dtype):
    """(out, n) matrix averaging each adaptive window."""
    start, end = _adaptive_bounds(n, out)
    cols = np.arange(n)
    m = ((cols >= start[:, None]) & (cols < end[:, None])).astype(np.float64)
    return (m / (end - start)[:, None]).astype(dtype)


def adaptive_avg_pool2d(input, output_size):
    """Mean over adaptive windows producing `output_size` (H_out, W_out) per channel."""
    _rank(input, (3, 4), "adaptive_avg_pool2d")
    h, w = input.shape[-2:]
    oh, ow = _adaptive_sizes(output_size, (h, w), "adaptive_avg_pool2d")
    if h % oh == 0 and w % ow == 0:  # equal windows: a reshape and a mean
        lead = input.shape[:-2]
        blocks = A.reshape(input, lead + (oh, h // oh, ow, w // ow))
        return R.reduce_mean(blocks, (len(lead) + 1, len(lead) + 3))
    dt = input._data.dtype
    ph = const(_averaging_matrix(h, oh, dt))
    pw = const(_averaging_matrix(w, ow, dt).T.copy())
    return matmul(matmul(ph, input), pw)


def adaptive_avg_pool1d(input, output_size):
    _rank(input, 3, "adaptive_avg_pool1d")
    out = adaptive_avg_pool2d(A.expand_dims(input, 2), (1, output_size))
    return A.reshape(out, out.shape[:2] + out.shape[3:])


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max over adaptive windows producing `output_size` per channel (ties split the gradient
    evenly); with `return_indices` also the flat index of the first max in each H*W plane."""
    _rank(input, (3, 4), "adaptive_max_pool2d")
    h, w = input.shape[-2:]
    oh, ow = _adaptive_sizes(output_size, (h, w), "adaptive_max_pool2d")
    pos = const(adaptive_windows((h, w), (oh, ow)))  # (oh, ow, kh, kw)
    win = _windows(input, pos, 2)
    values = apply(R.ReduceMax(False), (win, (win.ndim - 2, win.ndim - 1)))
    if not return_indices:
        return values
    return values, data_function(first_in_window, win, pos, static=(2, np.dtype(np.int64)))


@functools.lru_cache(maxsize=256)
def adaptive_windows(sizes, outs):
    """The flat positions, in an input of spatial shape `sizes`, of every adaptive window
    giving `outs`: (*outs, *kernel), each window at its largest size (positions past a
    window's end repeat its last index, which leaves a max unchanged). Depends on the shape
    only: a constant of a graph-mode trace, made once per geometry (read-only)."""
    idx = []
    for n, o in zip(sizes, outs):
        start, end = _adaptive_bounds(n, o)
        k = int((end - start).max())
        idx.append(np.minimum(start[:, None] + np.arange(k), end[:, None] - 1))  # (o, k)
    d = len(sizes)
    pos = 0
    for i in range(d):
        shape = [1] * (2 * d)
        shape[i], shape[d + i] = idx[i].shape
        pos = pos * sizes[i] + idx[i].reshape(shape)
    pos.flags.writeable = False
    return pos


def _windows(input, pos, nd):
    """input[..., pos] over the flattened last `nd` axes, laid out in memory as NumPy lays out
    an advanced index after slices (the index's axes outermost), so that reductions over the
    windows add and compare in the same order as on such an index."""
    lead = input.shape[:-nd]
    r = len(lead)
    moved = A.transpose(A.reshape(input, lead + (-1,)), (r,) + tuple(range(r)))
    win = A.gather(moved, pos, 0)  # pos.shape + lead
    return A.transpose(win, tuple(range(pos.ndim, pos.ndim + r)) + tuple(range(pos.ndim)))


def first_in_window(win, pos, nd, dtype):
    """The position (from `pos` (..., *kernel), one per window element) of each window's first
    maximum in `win` (..., *kernel) over its last `nd` axes, as `dtype` (a DataFunction)."""
    k = math.prod(pos.shape[-nd:])
    first = np.argmax(win.reshape(win.shape[:-nd] + (k,)), axis=-1)
    flat = np.broadcast_to(pos.reshape(pos.shape[:-nd] + (k,)), first.shape + (k,))
    return np.take_along_axis(flat, first[..., None], -1)[..., 0].astype(dtype)


# ---- dropout ---------------------------------------------------------------------------------------

def _keep_mask(shape, p, dtype, seed):
    """A constant mask: 0 with probability p, else 1 / (1 - p) (survivors are rescaled)."""
    if p == 1.0:
        return const(np.zeros(shape, dtype))
    return apply(shared(RandomOps.DropoutKeep, tuple(shape), p, np.dtype(dtype), seed), ())


def dropout(input, p=0.5, training=True, seed=None):
    """Zero each element with probability `p` and scale the rest by 1 / (1 - p) when
    `training` (the default here, as in MindSpore); identity otherwise."""
    _tensor(input, "dropout")
    p = check_float_range(p, "p", "dropout", 0.0, 1.0)
    if not training or p == 0:
        return input
    return input * _keep_mask(input.shape, p, input._data.dtype, seed)


def _channel_dropout(input, p, training, rank, op):
    _rank(input, (rank, rank + 1), op)
    p = check_float_range(p, "p", op, 0.0, 1.0)
    if not training or p == 0:
        return input
    mask_shape = input.shape[:-(rank - 1)] + (1,) * (rank - 1)
    return input * _keep_mask(mask_shape, p, input._data.dtype, None)


def dropout2d(input, p=0.5, training=True):
    """Zero whole channels of NCHW `input` with probability `p` (survivors scaled)."""
    return _channel_dropout(input, p, training, 3, "dropout2d")


def dropout1d(input, p=0.5, training=True):
    """Zero whole channels of NCL `input` with probability `p` (survivors scaled)."""
    return _channel_dropout(input, p, training, 2, "dropout1d")


# ---- normalisation ---------------------------------------------------------------------------------

def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
               eps=1e-05):
    """Batch normalisation over every axis but 1. In training, batch statistics are used and
    running_mean / running_var are updated in place PyTorch-style:
    running = (1 - momentum) * running + momentum * batch (unbiased variance)."""
    _tensor(input_x, "batch_norm", "input_x")
    c = input_x.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        _tensor(t, "batch_norm", name)
        if t.shape != (c,):
            raise ValueError(f"For 'batch_norm', '{name}' must have shape ({c},), got {t.shape}")
    if training:
        y, mean, var = apply(Nn.BatchNormTraining(eps), (input_x, weight, bias))
        m = input_x.size // c if c else 0
        if m:  # an empty batch has no statistics: the running ones stay
            _blend(running_mean, wrap(mean._data), momentum)
            _blend(running_var, wrap(var._data) * (m / max(m - 1, 1)), momentum)
        return y
    cs = (1, c) + (1,) * (input_x.ndim - 2)
    scale = weight * M.rsqrt(running_var + eps)
    return (input_x - A.reshape(running_mean, cs)) * A.reshape(scale, cs) + A.reshape(bias, cs)


def _blend(running, batch, momentum):
    """running <- (1 - momentum) * running + momentum * batch (an untracked Tensor), in place
    (a version bump), by ops a graph capture records."""
    dt = running._data.dtype
    if batch._data.dtype != dt:
        batch = M.cast(batch, dt)
    write_in_place(running, running * (1 - momentum) + batch * momentum)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """Normalisation over the trailing `normalized_shape` axes, then weight * x + bias."""
    _tensor(input, "layer_norm")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if input.shape[input.ndim - len(shape):] != shape:
        raise ValueError(f"For 'layer_norm', 'normalized_shape' {shape} does not match the "
                         f"trailing axes of the input {input.shape}")
    dt = input._data.dtype
    w = weight if weight is not None else const(np.ones(shape, dt))
    b = bias if bias is not None else const(np.zeros(shape, dt))
    begin = input.ndim - len(shape)
    return Nn.layer_norm(input, w, b, begin, begin, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Normalisation over groups of channels (and the spatial axes), then per-channel weight and
    bias."""
    _tensor(input, "group_norm")
    n, c = input.shape[:2]
    if c % check_positive_int(num_groups, "num_groups", "group_norm"):
        raise ValueError(f"For 'group_norm', 'num_groups' must divide the {c} channels, got "
                         f"{num_groups!r}")
    per_group = (c // num_groups) * math.prod(input.shape[2:])  # not -1: ambiguous for n = 0
    grouped = A.reshape(input, (n, num_groups, per_group))
    dt = input._data.dtype
    k = grouped.shape[2]
    normed = Nn.layer_norm(grouped, const(np.ones((k,), dt)), const(np.zeros((k,), dt)), 2, 2, eps)
    out = A.reshape(normed, input.shape)
    cs = (1, c) + (1,) * (input.ndim - 2)
    if weight is not None:
        out = out * A.reshape(weight, cs)
    if bias is not None:
        out = out + A.reshape(bias, cs)
    return out


def instance_norm(input, weight=None, bias=None, eps=1e-05):
    """Normalisation over the spatial axes of each channel of each sample."""
    return group_norm(input, input.shape[1], weight, bias, eps)


# ---- embedding, bias, resampling -------------------------------------------------------------------

def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False):
    """Rows of `weight` at the integer `input` indices; rows looked up at `padding_idx` get no
    gradient."""
    _tensor(weight, "embedding", "weight")
    idx = input._data if isinstance(input, Tensor) else np.asarray(input)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"For 'embedding', 'input' must be integer indices, got {idx.dtype}")
    A._check_indices(idx, weight.shape[0], "embedding", "input")
    if max_norm is not None:  # renormalise the looked-up rows in place, as PyTorch does
        rows = np.unique(idx)
        norms = np.linalg.norm(weight._data[rows], ord=norm_type, axis=1)
        new = weight._data.copy()
        new[rows] *= np.minimum(1.0, max_norm / (norms + 1e-7))[:, None].astype(new.dtype)
        weight.assign_value(Tensor(new))
    out = A.gather(weight, idx, 0)
    if padding_idx is not None:  # the padding rows get no gradient (a select with no hit
        # passes every gradient through unchanged; a graph replay recomputes the hits)
        hit = data_function(_hits_of, input if isinstance(input, Tensor) else const(idx),
                            static=(padding_idx % weight.shape[0],))
        out = M.select(hit, stop_gradient(out), out)
    return out


def _hits_of(idx, pad):
    return (idx == pad)[..., None]


def bias_add(input_x, bias):
    """input_x + bias along axis 1 (NCHW channels)."""
    _tensor(input_x, "bias_add", "input_x")
    _tensor(bias, "bias_add", "bias")
    if bias.ndim != 1 or input_x.ndim < 2 or bias.shape[0] != input_x.shape[1]:
        raise ValueError(f"For 'bias_add', 'bias' must be 1-D with one entry per channel (axis "
                         f"1), got {bias.shape} for an input of shape {input_x.shape}")
    return _add_channel_bias(input_x, bias)


def _resize_sizes(input, size, scale_factor, op):
    spatial = input.shape[2:]
    if (size is None) == (scale_factor is None):
        raise ValueError(f"For '{op}', exactly one of 'size' and 'scale_factor' must be given")
    if size is not None:
        out = (size,) * len(spatial) if isinstance(size, int) else tuple(size)
    else:
        sf = (scale_factor,) * len(spatial) if isinstance(scale_factor, (int, float)) \
            else tuple(scale_factor)
        out = tuple(int(math.floor(n * f)) for n, f in zip(spatial, sf))
    if len(out) != len(spatial) or any(o <= 0 for o in out):
        raise ValueError(f"For '{op}', the output size {out} does not fit an input of shape "
                         f"{input.shape}")
    return out


def _source_coords(n_in, n_out, align_corners, scale):
    i = np.arange(n_out, dtype=np.float64)
    if align_corners:
        return i * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    ratio = 1.0 / scale if scale else n_in / n_out
    return np.maximum((i + 0.5) * ratio - 0.5, 0.0)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    """Resize the spatial axes of an NC... tensor: 'nearest', 'linear' (3-D), 'bilinear' (4-D),
    'area'. Differentiable (gathers and weighted sums)."""
    _tensor(input, "interpolate")
    if input.ndim < 3:
        raise ValueError(f"For 'interpolate', the input must be at least 3-D, got {input.shape}")
    out_size = _resize_sizes(input, size, scale_factor, "interpolate")
    spatial = input.shape[2:]
    if mode == "nearest":
        out = input
        for k, (n_in, n_out) in enumerate(zip(spatial, out_size)):
            idx = np.minimum(np.floor(np.arange(n_out) * (n_in / n_out)).astype(np.int64),
                             n_in - 1)
            out = A.gather(out, const(idx), 2 + k)
        return out
    if mode in ("linear", "bilinear", "trilinear"):
        if align_corners is None:
            align_corners = False
        out = input
        for k, (n_in, n_out) in enumerate(zip(spatial, out_size)):
            sf = None
            if scale_factor is not None and not recompute_scale_factor:
                sf = scale_factor if isinstance(scale_factor, (int, float)) else scale_factor[k]
            src = _source_coords(n_in, n_out, align_corners, sf)
            lo = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
            hi = np.minimum(lo + 1, n_in - 1)
            frac = (src - lo).astype(input._data.dtype)
            axis = 2 + k
            shape = [1] * out.ndim
            shape[axis] = n_out
            wts = const(frac.reshape(shape))
            out = (A.gather(out, const(lo), axis) * (1 - wts) +
                   A.gather(out, const(hi), axis) * wts)
        return out
    if mode == "area":
        if input.ndim == 4:
            return adaptive_avg_pool2d(input, out_size)
        if input.ndim == 3:
            return adaptive_avg_pool1d(input, out_size[0])
    raise ValueError(f"For 'interpolate', unsupported mode {mode!r} for an input of shape "
                     f"{input.shape}")


upsample = interpolate


def pixel_shuffle(input, upscale_factor):
    """(N, C*r*r, H, W) -> (N, C, H*r, W*r)."""
    _tensor(input, "pixel_shuffle")
    if input.ndim < 3 or input.shape[-3] % (upscale_factor ** 2):
        raise ValueError(f"For 'pixel_shuffle', the channels of {input.shape} must divide by "
                         f"upscale_factor^2 = {upscale_factor ** 2}")
    lead = input.shape[:-3]
    c, h, w = input.shape[-3:]
    r = upscale_factor
    x = A.reshape(input, lead + (c // (r * r), r, r, h, w))
    k = len(lead)
    x = A.transpose(x, tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return A.reshape(x, lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """(N, C, H*r, W*r) -> (N, C*r*r, H, W)."""
    _tensor(input, "pixel_unshuffle")
    lead = input.shape[:-3]
    c, h, w = input.shape[-3:]
    r = downscale_factor
    if h % r or w % r:
        raise ValueError(f"For 'pixel_unshuffle', H and W of {input.shape} must divide by {r}")
    k = len(lead)
    x = A.reshape(input, lead + (c, h // r, r, w // r, r))
    x = A.transpose(x, tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return A.reshape(x, lead + (c * r * r, h // r, w // r))



# ---- 3-D convolution transpose ---------------------------------------------------------------------

def _transpose_pads(pad_mode, padding, sizes, ks, stride, dilation, op):
    """(before, after) per spatial dim of a transposed convolution: 'valid' none, 'same' what
    makes each output size input * stride, 'pad' the given ones (an int, or (before, after) per
    dim as MindSpore takes them)."""
    nd = len(sizes)
    pad_mode = check_one_of(pad_mode.lower() if isinstance(pad_mode, str) else pad_mode,
                            ("valid", "same", "pad"), "pad_mode", op)
    if pad_mode != "pad":
        if padding not in (0, (0,) * nd, (0,) * (2 * nd)):
            raise ValueError(f"For '{op}', 'padding' must be 0 when pad_mode is '{pad_mode}', "
                             f"but got {padding!r}")
        if pad_mode == "valid":
            return (0,) * (2 * nd)
        totals = [max(d * (k - 1) + 1 - s, 0) for k, s, d in zip(ks, stride, dilation)]
        return sum(((t // 2, t - t // 2) for t in totals), ())
    return C._pad_n(padding, nd, op, "padding")


def _check_float_input(x, op, arg="input"):
    if x._data.dtype.kind not in "f":
        raise TypeError(f"For '{op}', the '{arg}' must be a float Tensor, but got {x.dtype}")


def conv3d_transpose(inputs, weight, pad_mode="valid", padding=0, stride=1, dilation=1, group=1,
                     output_padding=0):
    """Transposed 3-D convolution (the gradient of conv3d w.r.t. its input) of NCDHW `inputs`
    with `weight` (C_in, C_out/group, kd, kh, kw). Output size per dim:
    (n - 1) * stride - (before + after) + dilation * (k - 1) + output_padding + 1, with 'same'
    padding giving n * stride."""
    op = "conv3d_transpose"
    _rank(inputs, 5, op, "inputs")
    _rank(weight, 5, op, "weight")
    _check_float_input(inputs, op, "inputs")
    stride = C.ntuple(stride, 3, "stride", op)
    dilation = C.ntuple(dilation, 3, "dilation", op)
    if min(stride + dilation) < 1:
        raise ValueError(f"For '{op}', 'stride' and 'dilation' must be positive, but got {stride} "
                         f"and {dilation}")
    check_positive_int(group, "group", op)
    output_padding = C.output_padding_ntuple(output_padding, stride, dilation, op)
    if any(output_padding) and pad_mode != "pad":
        raise ValueError(f"For '{op}', 'output_padding' must be 0 unless pad_mode is 'pad', but "
                         f"got {output_padding} with pad_mode {pad_mode!r}")
    if inputs.shape[1] != weight.shape[0]:
        raise ValueError(f"For '{op}', the input has {inputs.shape[1]} channels but the weight "
                         f"{weight.shape} expects {weight.shape[0]}")
    pads = _transpose_pads(pad_mode, padding, inputs.shape[2:], weight.shape[2:], stride,
                           dilation, op)
    outs = C.transposed_sizes(inputs.shape[2:], weight.shape[2:], stride, dilation, pads,
                              output_padding)
    if min(outs) <= 0:
        raise ValueError(f"For '{op}', the output size {outs} is not positive")
    x, weight = L._matmul_operands(op, inputs, weight)
    return C.conv_transpose(x, weight, (inputs.shape[0], weight.shape[1] * group) + outs, pads,
                            stride, dilation, group, output_padding)


class Conv3DTranspose(Primitive):
    """`Conv3DTranspose(in_channel, out_channel, kernel_size, mode=1, pad_mode='valid', pad=0,
    stride=1, dilation=1, group=1, output_padding=0, data_format='NCDHW')(dout, weight)`: the
    transposed 3-D convolution, `weight` (in_channel, out_channel/group, kd, kh, kw); `pad` an
    int or (head, tail, top, bottom, left, right)."""

    def __init__(self, in_channel, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0,
                 stride=1, dilation=1, group=1, output_padding=0, data_format="NCDHW"):
        super().__init__()
        op = self.name
        self.in_channel = check_positive_int(in_channel, "in_channel", op)
        self.out_channel = check_positive_int(out_channel, "out_channel", op)
        self.kernel_size = C.ntuple(kernel_size, 3, "kernel_size", op)
        self.mode = mode
        self.pad_mode = check_one_of(pad_mode.lower() if isinstance(pad_mode, str) else pad_mode,
                                     ("valid", "same", "pad"), "pad_mode", op)
        self.pad = C._pad_n(pad, 3, op)
        if self.pad_mode != "pad" and any(self.pad):
            raise ValueError(f"For '{op}', 'pad' must be 0 unless pad_mode is 'pad', but got "
                             f"{pad!r}")
        self.stride = C.ntuple(stride, 3, "stride", op)
        self.dilation = C.ntuple(dilation, 3, "dilation", op)
        self.group = check_positive_int(group, "group", op)
        self.output_padding = C.ntuple(output_padding, 3, "output_padding", op)
        if data_format != "NCDHW":
            raise ValueError(f"For '{op}', only data_format 'NCDHW' is supported, but got "
                             f"{data_format!r}")
        self.data_format = data_format

    def __call__(self, dout, weight, bias=None):
        if bias is not None:
            raise ValueError(f"For '{self.name}', 'bias' must be None (MindSpore supports no "
                             f"bias here), but got {type(bias).__name__}")
        _rank(weight, 5, self.name, "weight")
        if tuple(weight.shape[2:]) != self.kernel_size or weight.shape[0] != self.in_channel \
                or weight.shape[1] * self.group != self.out_channel:
            raise ValueError(f"For '{self.name}', the weight of shape {weight.shape} does not "
                             f"match in_channel={self.in_channel}, out_channel="
                             f"{self.out_channel}, group={self.group} and kernel_size="
                             f"{self.kernel_size}")
        return conv3d_transpose(dout, weight, self.pad_mode, self.pad, self.stride,
                                self.dilation, self.group, self.output_padding)


# ---- 3-D pooling -----------------------------------------------------------------------------------

def _ceil_extra_asym(n, k, s, d, before, after):
    """_ceil_extra for (before, after) padding."""
    span = n + before + after - d * (k - 1) - 1
    floor_out, ceil_out = span // s + 1, -(-span // s) + 1
    if (ceil_out - 1) * s >= n + before:
        ceil_out -= 1
    if ceil_out <= floor_out:
        return 0
    return max(0, (ceil_out - 1) * s + d * (k - 1) + 1 - (n + before + after))


def _pool3d_geometry(x, kernel, stride, dilation, pad_mode, pads, ceil_mode, op):
    """Per axis (d, h, w): (before, after, ceil_extra), after checking that windows fit."""
    out = []
    for n, k, s, d, b, a in zip(x.shape[2:], kernel, stride, dilation, pads[::2], pads[1::2]):
        if pad_mode == "SAME":
            out.append(C.same_padding(n, k, s, d) + (0,))
            continue
        extra = _ceil_extra_asym(n, k, s, d, b, a) if ceil_mode else 0
        if C.out_size(n, k, s, d, b + a + extra) <= 0:
            raise ValueError(f"For '{op}', the window {tuple(kernel)} (dilation "
                             f"{tuple(dilation)}) is larger than the padded input of shape "
                             f"{x.shape}")
        out.append((b, a, extra))
    return out


def _separable_pool3d(x, geometry, kernel, stride, dilation, make_prim):
    """Pool (H, W) of each depth slice, then depth, with the 2-D pooling primitives
    make_prim(kernel, stride, dilation, pad, ceil_extra, first_pass) (the first maximum over
    (h, w), then over d, is the first in (d, h, w) order)."""
    n, c, d, h, w = x.shape
    (pd, ph, pw) = geometry
    hw = apply(make_prim(kernel[1:], stride[1:], dilation[1:], ph[:2] + pw[:2], (ph[2], pw[2]),
                         True), (A.reshape(x, (n, c * d, h, w)),))
    ho, wo = hw.shape[2:]
    out = apply(make_prim((kernel[0], 1), (stride[0], 1), (dilation[0], 1), pd[:2] + (0, 0),
                          (pd[2], 0), False), (A.reshape(hw, (n, c, d, ho * wo)),))
    return A.reshape(out, (n, c, out.shape[2], ho, wo))


def _max_prim(k, s, dl, pad, extra, _first):
    t, b, l, r = pad
    return shared(C.MaxPool, k, s, pad=(t, b + extra[0], l, r + extra[1]), dilation=dl)


def argmax3d(x, geometry, kernel, stride, dilation):
    """The flat D*H*W index of each 3-D window's first maximum, for a (N, C, D, H, W) array and
    each axis's (before, after, extra) padding (`geometry`)."""
    n, c = x.shape[:2]
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((b, a + e) for b, a, e in geometry),
                constant_values=fill)
    outs = [C.out_size(m, k, s, d, b + a + e) for m, k, s, d, (b, a, e)
            in zip(x.shape[2:], kernel, stride, dilation, geometry)]
    st = xp.strides
    win = np.lib.stride_tricks.as_strided(
        xp, (n, c) + tuple(outs) + tuple(kernel),
        st[:2] + tuple(st[2 + i] * stride[i] for i in range(3))
        + tuple(st[2 + i] * dilation[i] for i in range(3)), writeable=False)
    first = win.reshape(win.shape[:5] + (-1,)).argmax(-1)
    taps = np.unravel_index(first, tuple(kernel))
    coords = [np.arange(outs[i]).reshape([-1 if j == i else 1 for j in range(3)]) * stride[i]
              + taps[i] * dilation[i] - geometry[i][0] for i in range(3)]
    _, h, w = x.shape[2:]
    return ((coords[0] * h + coords[1]) * w + coords[2]).astype(np.int64)


def _max_pool3d(x, kernel, stride, dilation, pad_mode, pads, ceil_mode, op):
    """(values, geometry) of a 3-D max pool of NCDHW x."""
    geometry = _pool3d_geometry(x, kernel, stride, dilation, pad_mode, pads, ceil_mode, op)
    return _separable_pool3d(x, geometry, kernel, stride, dilation, _max_prim), geometry


def _avg_pool3d(x, kernel, stride, pad_mode, pads, ceil_mode, count_include_pad,
                divisor_override, op):
    geometry = _pool3d_geometry(x, kernel, stride, (1, 1, 1), pad_mode, pads, ceil_mode, op)
    include = bool(count_include_pad) and pad_mode != "VALID"

    def make(k, s, dl, pad, extra, first):
        override = divisor_override and (1 if first else divisor_override)
        return shared(C.AvgPool, k, s, pad=pad, count_include_pad=include,
                      divisor_override=override or None, ceil_extra=extra)

    return _separable_pool3d(x, geometry, kernel, stride, (1, 1, 1), make)


def _symmetric3(padding, op, name="padding"):
    """(before, after) per dim from an int or 3 ints (symmetric)."""
    p = C.ntuple(padding, 3, name, op)
    if min(p) < 0:
        raise ValueError(f"For '{op}', '{name}' must be non-negative, but got {padding!r}")
    return tuple(v for v in p for _ in range(2))


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over kernel_size windows of NCDHW `x` (stride defaults to kernel_size; padding is
    -inf and at most half the kernel). With `return_indices` also the int64 flat index of each
    max in its D*H*W volume. Ties send the gradient to the first maximum."""
    op = "max_pool3d"
    _rank(x, 5, op, "x")
    kernel = C.ntuple(kernel_size, 3, "kernel_size", op)
    stride = C.ntuple(kernel if stride is None else stride, 3, "stride", op)
    dilation = C.ntuple(dilation, 3, "dilation", op)
    pads = _symmetric3(padding, op)
    if min(kernel + stride + dilation) < 1:
        raise ValueError(f"For '{op}', kernel_size, stride and dilation must be positive")
    if any(p > k // 2 for p, k in zip(pads[::2], kernel)):
        raise ValueError(f"For '{op}', padding {pads[::2]} must be at most half the kernel "
                         f"{kernel}")
    values, geometry = _max_pool3d(x, kernel, stride, dilation, "PAD", pads, ceil_mode, op)
    if not return_indices:
        return values
    return values, data_function(argmax3d, x, static=(geometry, tuple(kernel), tuple(stride),
                                                      tuple(dilation)))


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """Mean over kernel_size windows of NCDHW `input_x` (stride defaults to 1); `padding` an int
    or 6 ints (head, tail, top, bottom, left, right)."""
    op = "avg_pool3d"
    _rank(input_x, 5, op, "input_x")
    _check_float_input(input_x, op, "input_x")
    kernel = C.ntuple(kernel_size, 3, "kernel_size", op)
    stride = C.ntuple(stride, 3, "stride", op)
    if min(kernel + stride) < 1:
        raise ValueError(f"For '{op}', kernel_size and stride must be positive")
    pads = C._pad_n(padding, 3, op, "padding")
    return _avg_pool3d(input_x, kernel, stride, "PAD", pads, ceil_mode, count_include_pad,
                       divisor_override, op)


def _pool_pad_mode(pad_mode, op):
    if not isinstance(pad_mode, str):
        raise TypeError(f"For '{op}', 'pad_mode' must be a str, but got {type(pad_mode).__name__}")
    return check_one_of(pad_mode.upper(), ("VALID", "SAME", "PAD"), "pad_mode", op)


class MaxPool3D(Primitive):
    """`MaxPool3D(kernel_size=1, strides=1, pad_mode='VALID', pad_list=0, ceil_mode=None,
    data_format='NCDHW')(x)`: 3-D max pooling; `pad_list` (pad mode 'pad') an int, 3 ints
    (symmetric) or (head, tail, top, bottom, left, right)."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", pad_list=0, ceil_mode=None,
                 data_format="NCDHW"):
        super().__init__()
        op = self.name
        self.kernel_size = C.ntuple(kernel_size, 3, "kernel_size", op)
        self.strides = C.ntuple(strides, 3, "strides", op)
        self.pad_mode = _pool_pad_mode(pad_mode, op)
        if isinstance(pad_list, (tuple, list)) and len(pad_list) == 3:  # one per dim
            pad_list = tuple(p for p in pad_list for _ in range(2))
        self.pad_list = C._pad_n(pad_list, 3, op, "pad_list")
        if self.pad_mode != "PAD" and (any(self.pad_list) or ceil_mode):
            raise ValueError(f"For '{op}', 'pad_list' must be 0 and 'ceil_mode' unset unless "
                             f"pad_mode is 'PAD', but got {pad_list!r} and {ceil_mode!r}")
        if min(self.kernel_size + self.strides) < 1:
            raise ValueError(f"For '{op}', 'kernel_size' and 'strides' must be positive")
        self.ceil_mode = ceil_mode
        self.data_format = data_format

    def __call__(self, x):
        _rank(x, 5, self.name, "x")
        _check_float_input(x, self.name, "x")
        return _max_pool3d(x, self.kernel_size, self.strides, (1, 1, 1), self.pad_mode,
                           self.pad_list, bool(self.ceil_mode), self.name)[0]


class AvgPool3D(Primitive):
    """`AvgPool3D(kernel_size=1, strides=1, pad_mode='valid', pad=0, ceil_mode=False,
    count_include_pad=True, divisor_override=0, data_format='NCDHW')(x)`: 3-D average
    pooling; `pad` (pad mode 'pad') an int or (head, tail, top, bottom, left, right)."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", pad=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=0, data_format="NCDHW"):
        super().__init__()
        op = self.name
        self.kernel_size = C.ntuple(kernel_size, 3, "kernel_size", op)
        self.strides = C.ntuple(strides, 3, "strides", op)
        self.pad_mode = _pool_pad_mode(pad_mode, op)
        self.pad = C._pad_n(pad, 3, op)
        if self.pad_mode != "PAD" and any(self.pad):
            raise ValueError(f"For '{op}', 'pad' must be 0 unless pad_mode is 'pad', but got "
                             f"{pad!r}")
        if min(self.kernel_size + self.strides) < 1:
            raise ValueError(f"For '{op}', 'kernel_size' and 'strides' must be positive")
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override
        self.data_format = data_format

    def __call__(self, x):
        _rank(x, 5, self.name, "x")
        _check_float_input(x, self.name, "x")
        return _avg_pool3d(x, self.kernel_size, self.strides, self.pad_mode, self.pad,
                           self.ceil_mode, self.count_include_pad, self.divisor_override,
                           self.name)


class MaxPool3DWithArgmax(Primitive):
    """`MaxPool3DWithArgmax(ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
    data_format='NCDHW', argmax_type=mstype.int64)(x)` -> (values, flat D*H*W index of each
    window's first maximum); `pads` an int or 3 ints (symmetric)."""

    def __init__(self, ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
                 data_format="NCDHW", argmax_type=mstype.int64):
        super().__init__()
        op = self.name
        self.ksize = C.ntuple(ksize, 3, "ksize", op)
        self.strides = C.ntuple(strides, 3, "strides", op)
        self.pads = C.ntuple(pads, 3, "pads", op)
        self.dilation = C.ntuple(dilation, 3, "dilation", op)
        if min(self.ksize + self.strides + self.dilation) < 1 or min(self.pads) < 0:
            raise ValueError(f"For '{op}', 'ksize', 'strides' and 'dilation' must be positive "
                             f"and 'pads' non-negative")
        self.ceil_mode = ceil_mode
        self.data_format = data_format
        if argmax_type not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{op}', 'argmax_type' must be mstype.int32 or mstype.int64, "
                            f"but got {argmax_type}")
        self.argmax_type = argmax_type

    def __call__(self, x):
        _rank(x, 5, self.name, "x")
        pads = tuple(p for p in self.pads for _ in range(2))
        values, geometry = _max_pool3d(x, self.ksize, self.strides, self.dilation, "PAD", pads,
                                       self.ceil_mode, self.name)
        idx = data_function(argmax3d, x, static=(geometry, tuple(self.ksize),
                                                 tuple(self.strides), tuple(self.dilation)))
        return values, M.cast(idx, self.argmax_type)


class MaxPoolWithArgmaxV2(Primitive):
    """`MaxPoolWithArgmaxV2(kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
    argmax_type=mstype.int64)(x)` -> (values, flat H*W index of each window's first maximum)."""

    def __init__(self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
                 argmax_type=mstype.int64):
        super().__init__()
        op = self.name
        self.kernel_size = C.pair(kernel_size, "kernel_size", op)
        self.strides = C.pair(self.kernel_size if strides is None else strides, "strides", op)
        self.pads = C.pair(pads, "pads", op)
        self.dilation = C.pair(dilation, "dilation", op)
        self.ceil_mode = ceil_mode
        if argmax_type not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{op}', 'argmax_type' must be mstype.int32 or mstype.int64, "
                            f"but got {argmax_type}")
        self.argmax_type = argmax_type

    def __call__(self, x):
        values, idx = max_pool2d(x, self.kernel_size, self.strides, self.pads, self.dilation,
                                 True, self.ceil_mode)
        return values, wrap(idx._data.astype(mstype.dtype_to_nptype(self.argmax_type)))


# ---- adaptive pooling ------------------------------------------------------------------------------

def _box_max(input, bounds):
    """(values, flat index of each window's first maximum in its spatial volume) of max pooling
    over the trailing len(bounds) axes of `input`, windows [start, end) per axis from `bounds`
    (a (starts, ends) pair per axis): the values gathered at those indices, so the gradient
    goes to the first maximum. Every window is indexed at its largest size; a position past a
    window's end repeats its last index, which changes neither max nor argmax."""
    nd = len(bounds)
    sizes = input.shape[-nd:]
    lead = input.shape[:-nd]
    outs = tuple(len(start) for start, _ in bounds)
    idx, ks = [], []
    for start, end in bounds:
        k = int((end - start).max())
        idx.append(np.minimum(start[:, None] + np.arange(k), end[:, None] - 1))
        ks.append(k)
    mesh = tuple(idx[i].reshape([outs[i] if j == i else 1 for j in range(nd)]
                                + [ks[i] if j == i else 1 for j in range(nd)])
                 for i in range(nd))
    win = input._data[(Ellipsis,) + mesh]  # (..., outs..., ks...)
    first = np.argmax(win.reshape(win.shape[:len(lead) + nd] + (-1,)), axis=-1)
    taps = np.unravel_index(first, tuple(ks))
    flat = np.zeros(first.shape, np.int64)
    for i in range(nd):
        grid = np.arange(outs[i]).reshape([-1 if j == i else 1 for j in range(nd)])
        flat = flat * sizes[i] + idx[i][grid, taps[i]]
    m = int(np.prod(lead, dtype=np.int64))
    spatial = int(np.prod(sizes, dtype=np.int64))
    rows = np.arange(m).reshape((m,) + (1,) * nd)
    values = A.getitem(A.reshape(input, (m, spatial)), (rows, flat.reshape((m,) + outs)))
    return A.reshape(values, lead + outs), flat


def _adaptive_max(input, outs, nd):
    sizes = input.shape[-nd:]
    return _box_max(input, [_adaptive_bounds(n, o) for n, o in zip(sizes, outs)])


def _sizes_nd(output_size, sizes, op, allow_none=True):
    nd = len(sizes)
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        output_size = (int(output_size),) * nd
    if not isinstance(output_size, (tuple, list)) or len(output_size) != nd:
        raise ValueError(f"For '{op}', 'output_size' must be an int or {nd} ints, but got "
                         f"{output_size!r}")
    if not allow_none and None in output_size:
        raise ValueError(f"For '{op}', 'output_size' must be ints, but got {output_size!r}")
    out = tuple(n if v is None else v for v, n in zip(output_size, sizes))
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0
               for v in out):
        raise ValueError(f"For '{op}', 'output_size' must be positive ints, but got "
                         f"{output_size!r}")
    return tuple(int(v) for v in out)


def adaptive_avg_pool3d(input, output_size):
    """Mean over adaptive windows of (N, C, D, H, W) or (C, D, H, W) `input` giving
    `output_size` (an int, or (D, H, W) with None keeping a size)."""
    _rank(input, (4, 5), "adaptive_avg_pool3d")
    lead, (d, h, w) = input.shape[:-3], input.shape[-3:]
    od, oh, ow = _sizes_nd(output_size, (d, h, w), "adaptive_avg_pool3d")
    if input._data.dtype.kind != "f":  # integer means truncate, as integer division does
        return wrap(adaptive_avg_pool3d(wrap(input._data.astype(np.float64)),
                                        (od, oh, ow))._data.astype(input._data.dtype))
    m = int(np.prod(lead))
    hw = adaptive_avg_pool2d(A.reshape(input, (m * d, h, w)), (oh, ow))
    out = adaptive_avg_pool2d(A.reshape(hw, (m, d, oh * ow)), (od, oh * ow))
    return A.reshape(out, lead + (od, oh, ow))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max over adaptive windows of (N, C, D, H, W) or (C, D, H, W) `input` giving
    `output_size`; with `return_indices` also the int32 flat D*H*W index of each first
    maximum (which gets the gradient)."""
    _rank(input, (4, 5), "adaptive_max_pool3d")
    outs = _sizes_nd(output_size, input.shape[-3:], "adaptive_max_pool3d")
    values, flat = _adaptive_max(input, outs, 3)
    return (values, wrap(flat.astype(np.int32))) if return_indices else values


def adaptive_max_pool1d(input, output_size):
    """Max over equal windows of (N, C, L) `input` giving `output_size` columns (L must divide
    by output_size, as in MindSpore); the gradient goes to each window's first maximum."""
    _rank(input, (2, 3), "adaptive_max_pool1d")
    _check_float_input(input, "adaptive_max_pool1d")
    if isinstance(output_size, bool) or not isinstance(output_size, (int, np.integer)):
        raise TypeError(f"For 'adaptive_max_pool1d', 'output_size' must be an int, but got "
                        f"{type(output_size).__name__}")
    width = input.shape[-1]
    if output_size < 1 or width % output_size:
        raise ValueError(f"For 'adaptive_max_pool1d', the input's last dimension must be "
                         f"divisible by output size {output_size}, but got {width}")
    return _adaptive_max(input, (int(output_size),), 1)[0]


def adaptive_avg_pool2d_ext(input, output_size):
    """`adaptive_avg_pool2d` (MindSpore's Ascend variant: the same windows and means)."""
    return adaptive_avg_pool2d(input, output_size)


class AdaptiveAvgPool2D(Primitive):
    """`AdaptiveAvgPool2D(output_size)(input_x)`: adaptive average pooling over the last two
    axes (`output_size` an int or (H, W), None keeping a size)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def __call__(self, input_x):
        _rank(input_x, (3, 4), self.name, "input_x")
        _check_float_input(input_x, self.name, "input_x")
        return adaptive_avg_pool2d(input_x, self.output_size)


class AdaptiveAvgPool3D(Primitive):
    """`AdaptiveAvgPool3D(output_size)(x)`: adaptive average pooling over the last three
    axes."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def __call__(self, x):
        return adaptive_avg_pool3d(x, self.output_size)


class AdaptiveMaxPool2D(Primitive):
    """`AdaptiveMaxPool2D(output_size)(input)` -> (values, int64 flat H*W index of each window's
    first maximum); `output_size` a tuple of 2 ints (MindSpore refuses a bare int)."""

    def __init__(self, output_size):
        super().__init__()
        if not isinstance(output_size, (tuple, list)):
            raise TypeError(f"For 'AdaptiveMaxPool2D', the type of 'output_size' should be a "
                            f"list or tuple of int, but got {type(output_size).__name__}")
        self.output_size = tuple(output_size)

    def __call__(self, input):
        _rank(input, (3, 4), self.name)
        _check_float_input(input, self.name)
        outs = _sizes_nd(self.output_size, input.shape[-2:], self.name, allow_none=False)
        values, flat = _adaptive_max(input, outs, 2)
        return values, wrap(flat)


class AdaptiveMaxPool3D(Primitive):
    """`AdaptiveMaxPool3D()(x, output_size)` -> (values, int32 flat D*H*W index of each first
    maximum); `output_size` an int Tensor (or tuple) of 3 sizes."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, output_size):
        if isinstance(output_size, Tensor):
            output_size = tuple(int(v) for v in output_size._data.reshape(-1))
        return adaptive_max_pool3d(x, output_size, True)


# ---- max unpooling ---------------------------------------------------------------------------------

def _unpool(x, indices, kernel_size, stride, padding, output_size, nd, op):
    """Zeros of the unpooled shape with each x at its flat spatial index in `indices`; the
    gradient of x gathers the output gradient at those indices."""
    _rank(x, (nd + 1, nd + 2), op, "x")
    _tensor(indices, op, "indices")
    if indices.shape != x.shape:
        raise ValueError(f"For '{op}', 'indices' must have the shape of 'x' {x.shape}, but got "
                         f"{indices.shape}")
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', 'indices' must be int32 or int64, but got {indices.dtype}")
    kernel = C.ntuple(kernel_size, nd, "kernel_size", op)
    stride = C.ntuple(kernel if stride is None or stride in (0, ()) else stride, nd, "stride",
                      op)
    pads = C.ntuple(padding, nd, "padding", op)
    sizes = tuple((n - 1) * s - 2 * p + k for n, s, p, k in
                  zip(x.shape[-nd:], stride, pads, kernel))
    if output_size is not None and tuple(output_size) != ():
        given = tuple(int(v) for v in output_size)[-nd:]
        if len(given) != nd or any(abs(g - d) >= s for g, d, s in zip(given, sizes, stride)):
            raise ValueError(f"For '{op}', 'output_size' {tuple(output_size)} must lie within a "
                             f"stride of the default size {sizes}")
        sizes = given
    lead = x.shape[:-nd]
    m = int(np.prod(lead))
    spatial = int(np.prod(sizes))
    # a recorded node: a graph-mode replay checks and places the new indices
    idx = data_function(_unpool_positions, indices, static=(m, spatial, op))
    flat = A.gather_grad(A.reshape(x, (-1,)), idx, 0, (m * spatial,))
    return A.reshape(flat, lead + sizes)


def _unpool_positions(indices, m, spatial, op):
    """Flat positions in the (m * spatial,) unpooled output of each of the m rows' indices."""
    idx = indices.reshape(m, -1).astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= spatial):
        raise ValueError(f"For '{op}', 'indices' must lie in [0, {spatial}), but got values in "
                         f"[{idx.min()}, {idx.max()}]")
    return (np.arange(m)[:, None] * spatial + idx).reshape(-1)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: (N, C, L) `x` placed at `indices` in zeros of length
    (L - 1) * stride - 2 * padding + kernel_size (or output_size)."""
    return _unpool(x, indices, kernel_size, stride, padding, output_size, 1, "max_unpool1d")


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d: NCHW `x` placed at its flat H*W `indices`."""
    return _unpool(x, indices, kernel_size, stride, padding, output_size, 2, "max_unpool2d")


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d: NCDHW `x` placed at its flat D*H*W `indices`."""
    return _unpool(x, indices, kernel_size, stride, padding, output_size, 3, "max_unpool3d")


class _MaxUnpool(Primitive):
    _nd = 2

    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format="NCHW"):
        super().__init__()
        nd = self._nd
        self.ksize = C.ntuple(ksize, nd, "ksize", self.name)
        self.strides = self.ksize if strides in (0, None) else \
            C.ntuple(strides, nd, "strides", self.name)
        self.pads = C.ntuple(pads, nd, "pads", self.name)
        self.output_shape = tuple(output_shape)
        self.data_format = data_format

    def __call__(self, x, argmax):
        return _unpool(x, argmax, self.ksize, self.strides, self.pads, self.output_shape or None,
                       self._nd, self.name)


class MaxUnpool2D(_MaxUnpool):
    """`MaxUnpool2D(ksize, strides=0, pads=0, output_shape=(), data_format='NCHW')(x, argmax)`:
    see `max_unpool2d` (strides 0 means ksize)."""


class MaxUnpool3D(_MaxUnpool):
    """`MaxUnpool3D(ksize, strides=0, pads=0, output_shape=(), data_format='NCDHW')(x,
    argmax)`: see `max_unpool3d`."""

    _nd = 3

    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format="NCDHW"):
        super().__init__(ksize, strides, pads, output_shape, data_format)


# ---- power-average pooling, local response normalisation, col2im ----------------------------------

def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p) over NCHW `x` (p = norm_type; stride defaults to
    kernel_size)."""
    op = "lp_pool2d"
    _rank(x, (3, 4), op, "x")
    kh, kw = C.pair(kernel_size, "kernel_size", op)
    if x._data.dtype.kind != "f":
        x = MF.cast(x, mstype.float32)
    batched = x if x.ndim == 4 else A.expand_dims(x, 0)
    mean = avg_pool2d(batched ** norm_type, (kh, kw), (kh, kw) if stride is None else stride, 0,
                      ceil_mode)
    out = (MF.sign(mean) * nn_relu(MF.abs(mean)) * (kh * kw)) ** (1.0 / norm_type)
    return out if x.ndim == 4 else A.reshape(out, out.shape[1:])


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p) along the last axis of (N, C, L) `x`."""
    op = "lp_pool1d"
    _rank(x, (2, 3), op, "x")
    if isinstance(kernel_size, bool) or not isinstance(kernel_size, (int, np.integer)):
        raise TypeError(f"For '{op}', 'kernel_size' must be an int, but got {kernel_size!r}")
    out = lp_pool2d(A.expand_dims(x, -2), norm_type, (1, kernel_size),
                    None if stride is None else (1, stride), ceil_mode)
    return A.reshape(out, out.shape[:-2] + out.shape[-1:])


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """Local response normalisation across channels of NCHW `x`:
    x / (bias + alpha * sum of x^2 over channels c - depth_radius .. c + depth_radius)^beta."""
    op = "lrn"
    _rank(x, 4, op, "x")
    if x._data.dtype.kind != "f":
        raise TypeError(f"For '{op}', the 'x' must be a float Tensor, but got {x.dtype}")
    if isinstance(depth_radius, bool) or not isinstance(depth_radius, int) or depth_radius < 0:
        raise ValueError(f"For '{op}', 'depth_radius' must be a non-negative int, but got "
                         f"{depth_radius!r}")
    check_one_of(norm_region, ("ACROSS_CHANNELS",), "norm_region", op)
    n, c, h, w = x.shape
    r = depth_radius
    window = shared(C.AvgPool, (2 * r + 1, 1), (1, 1), pad=(r, r, 0, 0), divisor_override=1)
    sq = apply(window, (A.reshape(x * x, (n, 1, c, h * w)),))
    return x / (A.reshape(sq, x.shape) * alpha + bias) ** beta


class LRN(Primitive):
    """`LRN(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region='ACROSS_CHANNELS')(x)`:
    see `lrn`."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                 norm_region="ACROSS_CHANNELS"):
        super().__init__()
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = check_one_of(norm_region, ("ACROSS_CHANNELS",), "norm_region",
                                        self.name)

    def __call__(self, x):
        return lrn(x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """Blocks (N, C, kh*kw, L) summed back into (N, C, *output_size) (the adjoint of Im2Col);
    `output_size` an int Tensor of 2 elements (or 2 ints)."""
    _rank(input_x, 4, "col2im", "input_x")
    prim = _patch_prim(C.Col2Im, "col2im", kernel_size, dilation, padding_value, stride)
    return prim(input_x, C._size_pair(output_size, "col2im"))


# ---- fractional max pooling ------------------------------------------------------------------------

def _fractional_starts(n_in, n_out, k, samples):
    """Window starts (..., n_out) of fractional max pooling along an axis of n_in for pseudo-
    random `samples` (...,) in [0, 1): PyTorch's and MindSpore's sequence."""
    if n_out == 1:
        return np.full(samples.shape + (1,), n_in - k, np.int64)
    alpha = (n_in - k) / (n_out - 1)
    i = np.arange(n_out - 1)
    s = samples[..., None].astype(np.float64)
    starts = (np.floor((i + s) * alpha) - np.floor(s * alpha)).astype(np.int64)
    last = np.full(samples.shape + (1,), n_in - k, np.int64)
    return np.concatenate([starts, last], -1)


def _fractional_max(x, kernel, outs, samples, op):
    """(values, int64 flat spatial index of each window's first maximum) of fractional max
    pooling of (N, C, *S) x; samples (N, C, nd), one per spatial axis: (W, H) in 2-D, (D, H, W)
    in 3-D, as MindSpore's kernels read them."""
    nd = len(kernel)
    sizes = x.shape[2:]
    n, c = x.shape[:2]
    for k, o, s in zip(kernel, outs, sizes):
        if k < 1 or o < 1 or o + k - 1 > s:
            raise ValueError(f"For '{op}', the output size {outs} with kernel {kernel} does not "
                             f"fit the input of shape {x.shape}")
    if samples is None:  # a random node: a graph-mode replay draws anew, as eager does
        samples = apply(shared(RandomOps.UniformDraw, (n, c, nd), np.dtype(np.float64)), ())
    elif not isinstance(samples, Tensor):
        samples = const(np.asarray(samples))
    if samples.shape != (n, c, nd):
        raise ValueError(f"For '{op}', the random samples must be ({n}, {c}, {nd}), but got "
                         f"{samples.shape}")
    # recorded nodes: a graph-mode replay finds the windows and maxima of the new data
    index, pos = data_function(_fractional_index, x, samples, static=(kernel, outs, op))
    return A.gather(A.reshape(x, (-1,)), pos, 0), index


def _fractional_index(x, u, kernel, outs, op):
    """The int64 flat spatial index of each fractional window's first maximum (N, C, *outs),
    and its flat position in x (a DataFunction)."""
    nd = len(kernel)
    sizes = x.shape[2:]
    n, c = x.shape[:2]
    if u.size and (u.min() < 0 or u.max() >= 1):
        raise ValueError(f"For '{op}', the random samples must lie in [0, 1)")
    taps = []
    for axis in range(nd):
        sample = u[..., nd - 1 - axis] if nd == 2 else u[..., axis]
        starts = _fractional_starts(sizes[axis], outs[axis], kernel[axis], sample)
        taps.append(starts[..., None] + np.arange(kernel[axis]))  # (N, C, out, k)
    shape = (n, c) + tuple(outs) + tuple(kernel)
    flat = np.zeros(shape, np.int64)
    for axis in range(nd):
        t = taps[axis]
        view = [n, c] + [1] * nd + [1] * nd
        view[2 + axis], view[2 + nd + axis] = outs[axis], kernel[axis]
        flat = flat * sizes[axis] + t.reshape(view)
    plane = x.reshape(n, c, -1)
    win = np.take_along_axis(plane, flat.reshape(n, c, -1), 2).reshape(shape)
    first = np.argmax(win.reshape(shape[:2 + nd] + (-1,)), axis=-1)
    index = np.take_along_axis(flat.reshape(shape[:2 + nd] + (-1,)), first[..., None],
                               -1)[..., 0]
    rows = np.arange(n * c).reshape((n, c) + (1,) * nd)
    return index, rows * plane.shape[2] + index


def _fractional_pool(input, kernel_size, output_size, output_ratio, return_indices, samples,
                     nd, op):
    _rank(input, (nd + 1, nd + 2), op)
    batched = input if input.ndim == nd + 2 else A.expand_dims(input, 0)
    kernel = C.ntuple(kernel_size, nd, "kernel_size", op)
    sizes = batched.shape[2:]
    if (output_size is None) == (output_ratio is None):
        raise ValueError(f"For '{op}', exactly one of 'output_size' and 'output_ratio' must be "
                         f"given")
    if output_size is not None:
        outs = C.ntuple(output_size, nd, "output_size", op)
    else:
        ratio = (output_ratio,) * nd if isinstance(output_ratio, (int, float)) \
            else tuple(output_ratio)
        if len(ratio) != nd or not all(0 < r < 1 for r in ratio):
            raise ValueError(f"For '{op}', 'output_ratio' must be {nd} floats in (0, 1), but "
                             f"got {output_ratio!r}")
        outs = tuple(int(s * r) for s, r in zip(sizes, ratio))
    values, index = _fractional_max(batched, kernel, outs, samples, op)
    if input.ndim != nd + 2:
        values, index = A.reshape(values, values.shape[1:]), A.reshape(index, index.shape[1:])
    return (values, index) if return_indices else values


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max over kernel_size windows of (N, C, H, W) `input` at pseudo-random fractional
    strides giving `output_size` (or input size * `output_ratio`); `_random_samples`
    (N, C, 2) in [0, 1) fixes the strides (drawn from the global generator otherwise). With
    `return_indices` also the int64 flat H*W index of each maximum."""
    return _fractional_pool(input, kernel_size, output_size, output_ratio, return_indices,
                            _random_samples, 2, "fractional_max_pool2d")


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """fractional_max_pool2d over (N, C, D, H, W); `_random_samples` (N, C, 3)."""
    return _fractional_pool(input, kernel_size, output_size, output_ratio, return_indices,
                            _random_samples, 3, "fractional_max_pool3d")


class FractionalMaxPoolWithFixedKsize(Primitive):
    """`FractionalMaxPoolWithFixedKsize(ksize, output_shape, data_format='NCHW')(input_x,
    random_samples)` -> (values, int64 flat H*W index of each maximum): see
    `fractional_max_pool2d`."""

    _nd = 2

    def __init__(self, ksize, output_shape, data_format="NCHW"):
        super().__init__()
        nd = self._nd
        self.ksize = C.ntuple(ksize, nd, "ksize", self.name)
        self.output_shape = C.ntuple(output_shape, nd, "output_shape", self.name)
        self.data_format = data_format

    def __call__(self, input_x, random_samples):
        _rank(input_x, self._nd + 2, self.name, "input_x")
        values, index = _fractional_max(input_x, self.ksize, self.output_shape, random_samples,
                                        self.name)
        return values, wrap(index)


class FractionalMaxPool3DWithFixedKsize(FractionalMaxPoolWithFixedKsize):
    """`FractionalMaxPool3DWithFixedKsize(ksize, output_shape, data_format='NCDHW')(x,
    random_samples)`: see `fractional_max_pool3d`."""

    _nd = 3

    def __init__(self, ksize, output_shape, data_format="NCDHW"):
        super().__init__(ksize, output_shape, data_format)

    def __call__(self, x, random_samples):
        return super().__call__(x, random_samples)


def _pooling_sequence(n_in, n_out, pseudo_random, rng):
    """TensorFlow's fractional pooling boundaries (n_out + 1 of them, 0 to n_in): a
    pseudo-random ceil(alpha * (i + u) - 1) sequence, or a random shuffle of steps of
    floor(n_in / n_out) and one more."""
    if pseudo_random:
        alpha = n_in / n_out
        k = n_in // n_out
        u_max = min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
        u = rng.random() * u_max
        seq = np.ceil(alpha * (np.arange(n_out + 1) + u) - 1).astype(np.int64)
        seq[0], seq[-1] = 0, n_in
        return seq
    k = n_in // n_out
    steps = np.full(n_out, k, np.int64)
    steps[:n_in - n_out * k] += 1
    rng.shuffle(steps)
    return np.concatenate([[0], np.cumsum(steps)])


class _FractionalPool(Primitive):
    """Fractional pooling of NHWC x by `pooling_ratio` (1.0, rows, cols, 1.0): windows between
    random boundaries (returned as the row and column sequences), each extended by one row and
    column into the next when `overlapping`."""

    def __init__(self, pooling_ratio, pseudo_random=False, overlapping=False,
                 deterministic=False, seed=0, seed2=0):
        super().__init__()
        op = self.name
        if not isinstance(pooling_ratio, (tuple, list)) or len(pooling_ratio) != 4:
            raise TypeError(f"For '{op}', 'pooling_ratio' must be a tuple of 4 floats, but got "
                            f"{pooling_ratio!r}")
        ratio = tuple(float(r) for r in pooling_ratio)
        if ratio[0] != 1.0 or ratio[3] != 1.0 or min(ratio) < 1.0:
            raise ValueError(f"For '{op}', 'pooling_ratio' must be (1.0, >= 1.0, >= 1.0, 1.0), "
                             f"but got {pooling_ratio!r}")
        self.pooling_ratio = ratio
        self.pseudo_random = check_bool(pseudo_random, "pseudo_random", op)
        self.overlapping = check_bool(overlapping, "overlapping", op)
        self.deterministic = check_bool(deterministic, "deterministic", op)
        for arg, v in (("seed", seed), ("seed2", seed2)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For '{op}', '{arg}' must be an int, but got {v!r}")
        if (seed or seed2) and not self.deterministic:
            raise ValueError(f"For '{op}', both 'seed' and 'seed2' must be 0 if 'deterministic' "
                             f"is false, but got {seed} and {seed2}")
        self.seed, self.seed2 = seed, seed2

    def _generator(self):
        if self.seed == 0 and self.seed2 == 0:
            return generator(None)
        return generator((int(self.seed) << 32) + int(self.seed2))

    def __call__(self, x):
        op = self.name
        _rank(x, 4, op, "x")
        if x._data.dtype.kind not in "fiu":
            raise TypeError(f"For '{op}', 'x' must be a float or int Tensor, but got {x.dtype}")
        h, w = x.shape[1:3]
        outs = [int(n // r) for n, r in zip((h, w), self.pooling_ratio[1:3])]
        if min(outs) < 1:
            raise ValueError(f"For '{op}', 'pooling_ratio' {self.pooling_ratio} leaves no output "
                             f"for the input of shape {x.shape}")
        rng = self._generator()
        seqs = [_pooling_sequence(n, o, self.pseudo_random, rng) for n, o in zip((h, w), outs)]
        return self.pool_between(x, *seqs), wrap(seqs[0]), wrap(seqs[1])

    def pool_between(self, x, rows, cols):
        """The pooling of NHWC x between the boundaries `rows` and `cols` (what the call draws)."""
        bounds = [(seq[:-1], np.minimum(seq[1:] + int(self.overlapping), n))
                  for seq, n in zip((np.asarray(rows), np.asarray(cols)), x.shape[1:3])]
        channels_first = A.transpose(x, (0, 3, 1, 2))
        return A.transpose(self._pool(channels_first, bounds), (0, 2, 3, 1))


class FractionalMaxPool(_FractionalPool):
    """`FractionalMaxPool(pooling_ratio, pseudo_random=False, overlapping=False,
    deterministic=False, seed=0, seed2=0)(x)` -> (y, row_pooling_sequence,
    col_pooling_sequence): the max of each fractional window of NHWC x (the gradient goes to
    its first maximum)."""

    def _pool(self, x, bounds):
        return _box_max(x, bounds)[0]


class FractionalAvgPool(_FractionalPool):
    """`FractionalAvgPool(pooling_ratio, pseudo_random=False, overlapping=False,
    deterministic=False, seed=0, seed2=0)(x)` -> (y, row_pooling_sequence,
    col_pooling_sequence): the mean of each fractional window of NHWC x."""

    def _pool(self, x, bounds):
        if x._data.dtype.kind != "f":  # integer means truncate, as integer division does
            return wrap(self._pool(wrap(x._data.astype(np.float64)), bounds)._data.astype(
                x._data.dtype))
        out = x
        for axis, (start, end) in zip((2, 3), bounds):
            n = x.shape[axis]
            cols = np.arange(n)
            m = ((cols >= start[:, None]) & (cols < end[:, None])).astype(np.float64)
            m = wrap((m / (end - start)[:, None]).astype(x._data.dtype))
            out = matmul(m, out) if axis == 2 else matmul(out, A.transpose(m, (1, 0)))
        return out


# ---- morphological dilation ----------------------------------------------------------------------

def _hw_pair(v, name, op):
    """(h, w) from an int, a pair or MindSpore's 4-tuple (1, 1, h, w)."""
    if isinstance(v, (tuple, list)) and len(v) == 4:
        if tuple(v[:2]) != (1, 1):
            raise ValueError(f"For '{op}', a 4-element '{name}' must be (1, 1, h, w), but got "
                             f"{v!r}")
        v = tuple(v[2:])
    p = C.pair(v, name, op)
    if min(p) < 1:
        raise ValueError(f"For '{op}', '{name}' must be positive, but got {v!r}")
    return p


class Dilation2D(Primitive):
    """`Dilation2D(stride, dilation, pad_mode='SAME', data_format='NCHW')(x, filter)`: greyscale
    morphological dilation of NCHW x by `filter` (C, kh, kw): each output the maximum over its
    window of x + filter (padding never wins). The gradient goes to the first maximum, for x and
    for the filter."""

    def __init__(self, stride, dilation, pad_mode="SAME", data_format="NCHW"):
        super().__init__()
        op = self.name
        self.stride = _hw_pair(stride, "stride", op)
        self.dilation = _hw_pair(dilation, "dilation", op)
        if not isinstance(pad_mode, str):
            raise TypeError(f"For '{op}', 'pad_mode' must be a str, but got {pad_mode!r}")
        self.pad_mode = check_one_of(pad_mode.upper(), ("SAME", "VALID"), "pad_mode", op)
        if data_format != "NCHW":
            raise ValueError(f"For '{op}', only data_format 'NCHW' is supported, but got "
                             f"{data_format!r}")
        self.data_format = data_format

    def __call__(self, x, filter):
        op = self.name
        _rank(x, 4, op, "x")
        _rank(filter, 3, op, "filter")
        if x._data.dtype.kind not in "fiu" or filter._data.dtype != x._data.dtype:
            raise TypeError(f"For '{op}', 'x' and 'filter' must be real Tensors of one dtype, but "
                            f"got {x.dtype} and {filter.dtype}")
        n, c, h, w = x.shape
        if filter.shape[0] != c:
            raise ValueError(f"For '{op}', 'filter' must have {c} channels, but got shape "
                             f"{filter.shape}")
        kh, kw = filter.shape[1:]
        (sh, sw), (dh, dw) = self.stride, self.dilation
        if self.pad_mode == "SAME":
            (top, _), (left, _) = C.same_padding(h, kh, sh, dh), C.same_padding(w, kw, sw, dw)
            ho, wo = -(-h // sh), -(-w // sw)
        else:
            top = left = 0
            ho, wo = C.out_size(h, kh, sh, dh, 0), C.out_size(w, kw, sw, dw, 0)
        if ho <= 0 or wo <= 0:
            raise ValueError(f"For '{op}', the dilated filter {(kh, kw)} (dilation "
                             f"{self.dilation}) is larger than the input of shape {x.shape}")
        rows = np.arange(ho)[:, None] * sh + np.arange(kh) * dh - top  # (ho, kh)
        cols = np.arange(wo)[:, None] * sw + np.arange(kw) * dw - left  # (wo, kw)
        inside = ((rows >= 0) & (rows < h))[:, None, :, None] & \
            ((cols >= 0) & (cols < w))[None, :, None, :]  # (ho, wo, kh, kw)
        rc, cc = np.clip(rows, 0, h - 1), np.clip(cols, 0, w - 1)
        win = x._data[:, :, rc[:, None, :, None], cc[None, :, None, :]].astype(np.float64) + \
            filter._data[None, :, None, None].astype(np.float64)
        win = np.where(inside, win, -np.inf).reshape(n, c, ho, wo, kh * kw)
        tap = np.argmax(win, axis=-1)  # (n, c, ho, wo)
        ti, tj = tap // kw, tap % kw
        pos = rc[np.arange(ho)[:, None], ti] * w + cc[np.arange(wo)[None, :], tj]
        plane = np.arange(n * c).reshape(n, c, 1, 1)
        values = A.getitem(A.reshape(x, (n * c, h * w)), (plane, pos))
        taps = A.getitem(A.reshape(filter, (c, kh * kw)), (np.arange(c).reshape(1, c, 1, 1), tap))
        return values + taps
