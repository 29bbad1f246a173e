"""Functional forms of the layers: convolution, pooling, normalisation, dropout, embedding,
interpolation (MindSpore's `ops.conv2d`, `ops.max_pool2d`, `ops.batch_norm`, ...)."""
import math

import numpy as np

from ..._autodiff.tape import apply, wrap
from ..._validator import check_float_range, check_one_of, check_positive_int
from ...common import _writes
from ...common.seed import generator
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import conv_ops as C
from ..operations import math_ops as M
from ..operations import reduce_ops as R
from ..operations import linalg_ops as L
from ..operations import norm_ops as Nn
from ..primitive import shared
from ._checks import _tensor
from .math_func import matmul
from .nn_func import stop_gradient

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose2d", "unfold", "fold", "max_pool1d",
           "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool2d", "dropout", "dropout1d", "dropout2d", "batch_norm", "layer_norm",
           "group_norm", "instance_norm", "embedding", "bias_add", "interpolate", "upsample",
           "pixel_shuffle", "pixel_unshuffle"]


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
    ph = wrap(_averaging_matrix(h, oh, dt))
    pw = wrap(_averaging_matrix(w, ow, dt).T.copy())
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
    rs, re = _adaptive_bounds(h, oh)
    cs, ce = _adaptive_bounds(w, ow)
    kh, kw = int((re - rs).max()), int((ce - cs).max())
    # Index every window at its maximum size; positions past a window's end repeat its last
    # row/column, which leaves the max unchanged.
    rows = np.minimum(rs[:, None] + np.arange(kh), re[:, None] - 1)  # (oh, kh)
    cols = np.minimum(cs[:, None] + np.arange(kw), ce[:, None] - 1)  # (ow, kw)
    lead = (slice(None),) * (input.ndim - 2)
    win = A.getitem(input, lead + (rows[:, None, :, None], cols[None, :, None, :]))
    values = apply(R.ReduceMax(False), (win, (win.ndim - 2, win.ndim - 1)))
    if not return_indices:
        return values
    k = np.argmax(win._data.reshape(win.shape[:-2] + (kh * kw,)), axis=-1)  # (..., oh, ow)
    r = rows[np.arange(oh)[:, None], k // kw]
    c = cols[np.arange(ow)[None, :], k % kw]
    return values, wrap((r * w + c).astype(np.int64))


# ---- dropout ---------------------------------------------------------------------------------------

def _keep_mask(shape, p, dtype, seed):
    """A constant mask: 0 with probability p, else 1 / (1 - p) (survivors are rescaled)."""
    if p == 1.0:
        return wrap(np.zeros(shape, dtype))
    keep = generator(seed).random(shape) >= p
    return wrap((keep / (1.0 - p)).astype(dtype))


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
            unbiased = var._data * (m / max(m - 1, 1))
            _blend(running_mean, mean._data, momentum)
            _blend(running_var, unbiased, momentum)
        return y
    cs = (1, c) + (1,) * (input_x.ndim - 2)
    scale = weight * M.rsqrt(running_var + eps)
    return (input_x - A.reshape(running_mean, cs)) * A.reshape(scale, cs) + A.reshape(bias, cs)


def _blend(running, batch, momentum):
    """running <- (1 - momentum) * running + momentum * batch, in place (a version bump)."""
    new = running._data * (1 - momentum) + batch.astype(running._data.dtype) * momentum
    if isinstance(running, Tensor) and hasattr(running, "_write"):
        running._write(new)
    else:
        _writes.record(running)
        np.copyto(running._data, new)
        _writes.bump_version(running)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """Normalisation over the trailing `normalized_shape` axes, then weight * x + bias."""
    _tensor(input, "layer_norm")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if input.shape[input.ndim - len(shape):] != shape:
        raise ValueError(f"For 'layer_norm', 'normalized_shape' {shape} does not match the "
                         f"trailing axes of the input {input.shape}")
    dt = input._data.dtype
    w = weight if weight is not None else wrap(np.ones(shape, dt))
    b = bias if bias is not None else wrap(np.zeros(shape, dt))
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
    normed = Nn.layer_norm(grouped, wrap(np.ones((k,), dt)), wrap(np.zeros((k,), dt)), 2, 2, eps)
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
    if padding_idx is not None:
        pad = padding_idx % weight.shape[0]
        hit = idx == pad
        if hit.any():
            out = M.select(wrap(hit[..., None]), stop_gradient(out), out)
    return out


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
            out = A.gather(out, idx, 2 + k)
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
            wts = wrap(frac.reshape(shape))
            out = A.gather(out, lo, axis) * (1 - wts) + A.gather(out, hi, axis) * wts
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

