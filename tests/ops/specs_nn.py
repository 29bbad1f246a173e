"""Specs of the convolution, pooling and normalisation primitives (same format as specs.py)."""
import itertools

import numpy as np
from hypothesis import strategies as st

from minispore import Tensor
from minispore._autodiff.tape import apply
from minispore.ops.operations import conv_ops as C
from minispore.ops.operations import loss_ops as L
from minispore.ops.operations import nn_ops as N
from minispore.ops.operations import norm_ops as Nn

from ..helpers import strategies as S
from .specs import arr, distinct, spec


def naive_conv(x, w, stride, dilation, pad, groups):
    """Direct loops over output positions: the definition of N-D cross-correlation (`pad` is
    (before, after) per spatial dim)."""
    nd = x.ndim - 2
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple(zip(pad[::2], pad[1::2])))
    o, cg = w.shape[:2]
    ks = w.shape[2:]
    outs = tuple((n - d * (k - 1) - 1) // s + 1
                 for n, k, s, d in zip(xp.shape[2:], ks, stride, dilation))
    out = np.zeros((x.shape[0], o) + outs)
    og = o // groups
    for pos in itertools.product(*map(range, outs)):
        patch = xp[(slice(None), slice(None)) + tuple(
            slice(i * s, i * s + d * (k - 1) + 1, d)
            for i, s, d, k in zip(pos, stride, dilation, ks))]
        for g in range(groups):
            sl = slice(g * og, (g + 1) * og)
            out[(slice(None), sl) + pos] = np.tensordot(
                patch[:, g * cg:(g + 1) * cg], w[sl], axes=(list(range(1, nd + 2)),) * 2)
    return out


def _draw_conv_geometry(data):
    groups = data.draw(st.sampled_from([1, 1, 2]))
    c = groups * data.draw(st.integers(1, 2))
    o = groups * data.draw(st.integers(1, 2))
    kh, kw = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    stride = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
    dilation = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
    pad = tuple(data.draw(st.integers(0, 2)) for _ in range(4))
    h = data.draw(st.integers(dilation[0] * (kh - 1) + 1, 6))
    w = data.draw(st.integers(dilation[1] * (kw - 1) + 1, 6))
    n = data.draw(st.integers(1, 2))
    attrs = {"stride": stride, "dilation": dilation, "pad": pad, "groups": groups, "out": o,
             "kernel": (kh, kw)}
    return (n, c, h, w), (o, c // groups, kh, kw), attrs


def _conv(attrs, cls=C.Conv2D, weight_shape=None):
    o, k = attrs["out"], attrs["kernel"]
    if cls in (C.Conv2D, C.Conv3D):
        return cls(o, k, 1, "pad", attrs["pad"], attrs["stride"], attrs["dilation"],
                   attrs["groups"])
    return cls(o, k, "pad", attrs["pad"], None, 1, attrs["stride"], attrs["dilation"],
               attrs["groups"])


def _draw_conv(data):
    xs, ws, attrs = _draw_conv_geometry(data)
    return [arr(data, xs), arr(data, ws)], attrs


spec("Conv2D", _draw_conv, lambda a, x, w: _conv(a)(x, w),
     lambda a, x, w: naive_conv(x, w, a["stride"], a["dilation"], a["pad"], a["groups"]),
     rtol=1e-9, atol=1e-11)


def _out_shape(xs, ws, attrs):
    (sh, sw), (dh, dw), (t, b, l, r) = attrs["stride"], attrs["dilation"], attrs["pad"]
    return (xs[0], ws[0], (xs[2] + t + b - dh * (ws[2] - 1) - 1) // sh + 1,
            (xs[3] + l + r - dw * (ws[3] - 1) - 1) // sw + 1)


def _adjoint_input(attrs, g, w, x_shape):
    """Reference BackpropInput: the transpose of the conv as a matrix, column by column."""
    x_size = int(np.prod(x_shape))
    out = np.zeros(x_size)
    for k in range(x_size):
        e = np.zeros(x_size)
        e[k] = 1.0
        out[k] = np.sum(naive_conv(e.reshape(x_shape), w, attrs["stride"], attrs["dilation"],
                                   attrs["pad"], attrs["groups"]) * g)
    return out.reshape(x_shape)


def _draw_bpi(data):
    xs, ws, attrs = _draw_conv_geometry(data)
    return [arr(data, _out_shape(xs, ws, attrs)), arr(data, ws)], dict(attrs, x_shape=xs)


spec("Conv2DBackpropInput", _draw_bpi,
     lambda a, g, w: apply(_conv(a, C.Conv2DBackpropInput), (g, w, a["x_shape"])),
     lambda a, g, w: _adjoint_input(a, g, w, a["x_shape"]), rtol=1e-9, atol=1e-11)


def _adjoint_filter(attrs, g, x, w_shape):
    size = int(np.prod(w_shape))
    out = np.zeros(size)
    for k in range(size):
        e = np.zeros(size)
        e[k] = 1.0
        out[k] = np.sum(naive_conv(x, e.reshape(w_shape), attrs["stride"], attrs["dilation"],
                                   attrs["pad"], attrs["groups"]) * g)
    return out.reshape(w_shape)


def _draw_bpf(data):
    xs, ws, attrs = _draw_conv_geometry(data)
    return [arr(data, _out_shape(xs, ws, attrs)), arr(data, xs)], dict(attrs, w_shape=ws)


spec("Conv2DBackpropFilter", _draw_bpf,
     lambda a, g, x: apply(_conv(a, C.Conv2DBackpropFilter), (g, x, a["w_shape"], None)),
     lambda a, g, x: _adjoint_filter(a, g, x, a["w_shape"]), rtol=1e-9, atol=1e-11)


def _draw_conv3d_geometry(data):
    groups = data.draw(st.sampled_from([1, 1, 2]))
    c, o = groups, groups * data.draw(st.integers(1, 2))
    ks = tuple(data.draw(st.integers(1, 2)) for _ in range(3))
    stride = tuple(data.draw(st.integers(1, 2)) for _ in range(3))
    dilation = tuple(data.draw(st.integers(1, 2)) for _ in range(3))
    pad = tuple(data.draw(st.integers(0, 1)) for _ in range(6))
    sizes = tuple(data.draw(st.integers(d * (k - 1) + 1, 3)) for k, d in zip(ks, dilation))
    attrs = {"stride": stride, "dilation": dilation, "pad": pad, "groups": groups, "out": o,
             "kernel": ks}
    return (1, c) + sizes, (o, c // groups) + ks, attrs


def _conv3d_out_shape(xs, ws, attrs):
    pad = attrs["pad"]
    return (xs[0], ws[0]) + tuple(
        (n + pad[2 * i] + pad[2 * i + 1] - d * (k - 1) - 1) // s + 1
        for i, (n, k, s, d) in enumerate(zip(xs[2:], ws[2:], attrs["stride"], attrs["dilation"])))


def _draw_conv3d(data):
    xs, ws, attrs = _draw_conv3d_geometry(data)
    return [arr(data, xs), arr(data, ws)], attrs


def _draw_conv3d_bpi(data):
    xs, ws, attrs = _draw_conv3d_geometry(data)
    return [arr(data, _conv3d_out_shape(xs, ws, attrs)), arr(data, ws)], dict(attrs, x_shape=xs)


def _draw_conv3d_bpf(data):
    xs, ws, attrs = _draw_conv3d_geometry(data)
    return [arr(data, _conv3d_out_shape(xs, ws, attrs)), arr(data, xs)], dict(attrs, w_shape=ws)


spec("Conv3D", _draw_conv3d, lambda a, x, w: _conv(a, C.Conv3D)(x, w),
     lambda a, x, w: naive_conv(x, w, a["stride"], a["dilation"], a["pad"], a["groups"]),
     rtol=1e-9, atol=1e-11)
spec("Conv3DBackpropInput", _draw_conv3d_bpi,
     lambda a, g, w: apply(_conv(a, C.Conv3DBackpropInput), (g, w, a["x_shape"])),
     lambda a, g, w: _adjoint_input(a, g, w, a["x_shape"]), rtol=1e-9, atol=1e-11)
spec("Conv3DBackpropFilter", _draw_conv3d_bpf,
     lambda a, g, x: apply(_conv(a, C.Conv3DBackpropFilter), (g, x, a["w_shape"], None)),
     lambda a, g, x: _adjoint_filter(a, g, x, a["w_shape"]), rtol=1e-9, atol=1e-11)


def _draw_patches(data):
    k = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    d = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
    p = (data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2)))
    s = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    hw = tuple(data.draw(st.integers(max(1, dd * (kk - 1) + 1 - 2 * pp), 5))
               for kk, dd, pp in zip(k, d, p))
    blocks = tuple((n + 2 * pp - dd * (kk - 1) - 1) // ss + 1
                   for n, kk, dd, pp, ss in zip(hw, k, d, p, s))
    shape = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))) + hw
    return shape, blocks, {"k": k, "d": d, "p": p, "s": s, "hw": hw}


def _im2col_ref(a, x):
    """Im2Col by loops: block l's tap (i, j) of channel c at [n, c, i * kw + j, l]."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = a["k"], a["d"], a["p"], a["s"]
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    ho = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    wo = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros(x.shape[:2] + (kh * kw, ho * wo))
    for i, j, r, c in itertools.product(range(kh), range(kw), range(ho), range(wo)):
        out[:, :, i * kw + j, r * wo + c] = xp[:, :, r * sh + i * dh, c * sw + j * dw]
    return out


def _col2im_ref(a, cols):
    """Col2Im as the transpose of Im2Col, column by column."""
    shape = cols.shape[:2] + a["hw"]
    out = np.zeros(int(np.prod(shape)))
    for k in range(out.size):
        e = np.zeros(out.size)
        e[k] = 1.0
        out[k] = np.sum(_im2col_ref(a, e.reshape(shape)) * cols)
    return out.reshape(shape)


def _draw_im2col(data):
    shape, _, attrs = _draw_patches(data)
    return [arr(data, shape)], attrs


def _draw_col2im(data):
    shape, blocks, attrs = _draw_patches(data)
    k = attrs["k"]
    return [arr(data, shape[:2] + (k[0] * k[1], blocks[0] * blocks[1]))], attrs


spec("Im2Col", _draw_im2col, lambda a, x: C.Im2Col(a["k"], a["s"], a["d"], a["p"])(x),
     _im2col_ref)
spec("Col2Im", _draw_col2im, lambda a, x: C.Col2Im(a["k"], a["d"], a["p"], a["s"])(x, a["hw"]),
     _col2im_ref)


def _draw_pool(data):
    kh, kw = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    stride = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    pad = (data.draw(st.integers(0, kh // 2)), data.draw(st.integers(0, kh // 2)),
           data.draw(st.integers(0, kw // 2)), data.draw(st.integers(0, kw // 2)))
    h, w = data.draw(st.integers(kh, 6)), data.draw(st.integers(kw, 6))
    shape = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)), h, w)
    return shape, {"kernel": (kh, kw), "stride": stride, "pad": pad}


def _pool_ref(a, x, reduce, count_include_pad=True):
    (kh, kw), (sh, sw), (t, b, l, r) = a["kernel"], a["stride"], a["pad"]
    fill = -np.inf if reduce is np.max else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)), constant_values=fill)
    ones = np.pad(np.ones(x.shape[2:]), ((t, b), (l, r)))
    ho, wo = (xp.shape[2] - kh) // sh + 1, (xp.shape[3] - kw) // sw + 1
    out = np.zeros(x.shape[:2] + (ho, wo))
    for i, j in itertools.product(range(ho), range(wo)):
        win = xp[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw]
        if reduce is np.max:
            out[:, :, i, j] = win.max(axis=(2, 3))
        else:
            count = kh * kw if count_include_pad else ones[i * sh:i * sh + kh,
                                                           j * sw:j * sw + kw].sum()
            out[:, :, i, j] = win.sum(axis=(2, 3)) / count
    return out


def _draw_maxpool(data):
    shape, attrs = _draw_pool(data)
    return [distinct(arr(data, shape))], attrs


spec("MaxPoolWithArgmax", _draw_maxpool,
     lambda a, x: apply(C.MaxPoolWithArgmax(a["kernel"], a["stride"], pad=a["pad"]), (x,))[0],
     lambda a, x: _pool_ref(a, x, np.max))


def _draw_avgpool(data):
    shape, attrs = _draw_pool(data)
    return [arr(data, shape)], dict(attrs, include=data.draw(st.booleans()))


def _avgpool(a):
    return C.AvgPool(a["kernel"], a["stride"], pad=a["pad"], count_include_pad=a["include"])


spec("AvgPool", _draw_avgpool, lambda a, x: apply(_avgpool(a), (x,)),
     lambda a, x: _pool_ref(a, x, np.mean, a["include"]))


def _draw_window_pair(data):
    shape, attrs = _draw_pool(data)
    pool = C.AvgPool(attrs["kernel"], attrs["stride"], pad=attrs["pad"])
    x = np.empty(shape)
    ho, wo = _pool_ref(attrs, x, np.mean).shape[2:]
    kh, kw = attrs["kernel"]
    weights = np.asarray(data.draw(st.lists(st.floats(-2, 2), min_size=ho * wo * kh * kw,
                                            max_size=ho * wo * kh * kw))).reshape(
        ho, wo, kh, kw)
    return pool, shape, (ho, wo), weights


def _window_gather_ref(pool, weights, x):
    (kh, kw), (sh, sw), (t, b, l, r) = pool.kernel_size, pool.strides, pool._explicit_pad
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)))
    ho, wo = weights.shape[:2]
    out = np.zeros(x.shape[:2] + (ho, wo))
    for i, j in itertools.product(range(ho), range(wo)):
        out[:, :, i, j] = np.sum(xp[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw] * weights[i, j],
                                 axis=(2, 3))
    return out


def _draw_window_gather(data):
    pool, shape, _, weights = _draw_window_pair(data)
    return [arr(data, shape)], {"pool": pool, "weights": weights}


spec("WindowGather", _draw_window_gather,
     lambda a, x: apply(C.WindowGather(a["pool"]), (x, a["weights"])),
     lambda a, x: _window_gather_ref(a["pool"], a["weights"], x))


def _draw_window_scatter(data):
    pool, shape, (ho, wo), weights = _draw_window_pair(data)
    return [arr(data, shape[:2] + (ho, wo))], {"pool": pool, "weights": weights, "shape": shape}


def _window_scatter_ref(a, g):
    """The transpose of WindowGather, column by column."""
    size = int(np.prod(a["shape"]))
    out = np.zeros(size)
    for k in range(size):
        e = np.zeros(size)
        e[k] = 1.0
        out[k] = np.sum(_window_gather_ref(a["pool"], a["weights"], e.reshape(a["shape"])) * g)
    return out.reshape(a["shape"])


spec("WindowScatter", _draw_window_scatter,
     lambda a, g: C.window_scatter(a["pool"], g, a["weights"], a["shape"]), _window_scatter_ref)


spec("MaxPool", _draw_maxpool,
     lambda a, x: apply(C.MaxPool(a["kernel"], a["stride"], pad=a["pad"]), (x,)),
     lambda a, x: _pool_ref(a, x, np.max))


# ---- normalisation -----------------------------------------------------------------------------------


def _centring_cond(x, axes, eps):
    """The float32 condition factor of a normalisation: (1 + |mean| / std) * rstd, the worst
    over the normalised groups. Centring x in float32 leaves the rounding of the mean, |mean|
    eps, which x_hat scales by rstd (losing |mean| / std of x's digits), and the gradients of
    the normalisation scale by rstd once more. The draws below reach |mean| / std ~ 60 and
    rstd ~ 20 (two elements 0.1 apart): a factor of up to ~1e3."""
    x = x.astype(np.float32).astype(np.float64)  # the values the float32 run normalises
    rstd = 1 / np.sqrt(x.var(axis=axes) + eps)
    return float(np.max((1 + np.abs(x.mean(axis=axes)) * rstd) * rstd))


_CENTRING_WHY = ("normalising a group of small spread far from zero: its float32 error grows as "
                 "(1 + |mean| / std) * rstd (_centring_cond), up to ~1e3 for these draws")


def _bn_grad_cond(dy, x):
    """BatchNormGrad: the centring factor, or where larger the condition number of its channel
    sums sum(dy * x_hat) (dgamma, and a term of dx), sum|dy * x_hat| / max(1, |sum|): float32
    rounds such a sum on the scale of its terms, and they cancel."""
    axes = _bn_axes(x)
    x, dy = (v.astype(np.float32).astype(np.float64) for v in (x, dy))
    t = dy * (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True)
                                                              + 1e-5)
    sums = np.sum(np.abs(t), axis=axes) / np.maximum(1, np.abs(np.sum(t, axis=axes)))
    return max(_centring_cond(x, axes, 1e-5), float(np.max(sums)))


def _bn_axes(x):
    return (0,) + tuple(range(2, x.ndim))


def _ln_axes(a, x):
    return tuple(range(a["norm"], x.ndim))


def _draw_bn(data):
    shape = (data.draw(st.integers(2, 3)), data.draw(st.integers(1, 3))) + tuple(
        data.draw(st.lists(st.integers(1, 3), max_size=2)))
    x = distinct(arr(data, shape), 0.1)
    c = shape[1]
    return [x, arr(data, (c,)), arr(data, (c,))], {}


def _bn_ref(a, x, g, b):
    axes = (0,) + tuple(range(2, x.ndim))
    cs = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    m, v = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    return ((x - m) / np.sqrt(v + 1e-5) * g.reshape(cs) + b.reshape(cs), m.reshape(-1),
            v.reshape(-1))


spec("BatchNormTraining", _draw_bn, lambda a, x, g, b: apply(Nn.BatchNormTraining(1e-5), (x, g, b)),
     _bn_ref, rtol=1e-9, atol=1e-11,
     cond32=lambda a, x, g, b: _centring_cond(x, _bn_axes(x), 1e-5), why32=_CENTRING_WHY)


def _draw_bn_grad(data):
    (x, g, _), attrs = _draw_bn(data)
    return [arr(data, x.shape), x, g], attrs


def _fused_matches_reference(prim):
    """The reference composite a fused gradient primitive is differentiated through."""
    def ref(a, *arrays):
        out = prim(a).reference(*(Tensor(v) for v in arrays))
        return tuple(t.asnumpy() for t in out) if isinstance(out, tuple) else out.asnumpy()
    return ref


spec("BatchNormGrad", _draw_bn_grad,
     lambda a, dy, x, g: apply(Nn.BatchNormGrad(1e-5), (dy, x, g)),
     _fused_matches_reference(lambda a: Nn.BatchNormGrad(1e-5)), rtol=1e-9, atol=1e-11,
     tol32=64, cond32=lambda a, dy, x, g: _bn_grad_cond(dy, x),
     why32=_CENTRING_WHY + "; its channel sums cancel (_bn_grad_cond); and its derivatives, "
     "batch norm's second ones, carry one more factor of rstd: up to 1.2e4 eps seen at a "
     "factor of 850")


def _draw_ln(data):
    shape = data.draw(S.shapes(1, 3, min_side=2))
    norm = data.draw(st.integers(0, len(shape) - 1))
    params = data.draw(st.integers(norm, len(shape) - 1))
    # a wide spread keeps the variance away from 0, where the curvature (~ rstd**5) would swamp
    # central differences
    x = distinct(arr(data, shape), 0.5)
    pshape = shape[params:]
    return [x, arr(data, pshape), arr(data, pshape)], {"norm": norm, "params": params}


def _ln_ref(a, x, g, b):
    axes = tuple(range(a["norm"], x.ndim))
    m, v = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-7) * g + b


def _ln_ref_all(a, x, g, b):
    axes = tuple(range(a["norm"], x.ndim))
    return _ln_ref(a, x, g, b), x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)


spec("LayerNorm", _draw_ln,
     lambda a, x, g, b: apply(Nn.LayerNorm(a["norm"], a["params"], 1e-7), (x, g, b)),
     _ln_ref_all, rtol=1e-9, atol=1e-11,
     cond32=lambda a, x, g, b: _centring_cond(x, _ln_axes(a, x), 1e-7), why32=_CENTRING_WHY)


def _draw_ln_grad(data):
    (x, g, _), attrs = _draw_ln(data)
    return [arr(data, x.shape), x, g], attrs


spec("LayerNormGrad", _draw_ln_grad,
     lambda a, dy, x, g: apply(Nn.LayerNormGrad(a["norm"], a["params"], 1e-7), (dy, x, g)),
     _fused_matches_reference(lambda a: Nn.LayerNormGrad(a["norm"], a["params"], 1e-7)),
     rtol=1e-9, atol=1e-11,
     cond32=lambda a, dy, x, g: _centring_cond(x, _ln_axes(a, x), 1e-7), why32=_CENTRING_WHY)


# ---- fused dense and cross-entropy ---------------------------------------------------------------

def _draw_dense(data):
    lead = tuple(data.draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)))
    i, o = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    args = [arr(data, lead + (i,)), arr(data, (o, i))]
    with_bias = data.draw(st.booleans())
    args.append(arr(data, (o,)) if with_bias else None)
    return args, {}


spec("Dense", _draw_dense, lambda a, x, w, b: apply(N.Dense(), (x, w, b)),
     lambda a, x, w, b: x @ w.T + (0 if b is None else b))


def _draw_sparse_ce(data):
    n, c = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 5))
    labels = np.asarray(data.draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)))
    return [arr(data, (n, c)), labels], {}


def _sparse_ce_ref(a, logits, labels):
    m = logits.max(1, keepdims=True)
    lse = np.log(np.exp(logits - m).sum(1)) + m[:, 0]
    return lse - logits[np.arange(len(labels)), labels]


spec("SparseSoftmaxCrossEntropy", _draw_sparse_ce,
     lambda a, x, y: L.sparse_softmax_cross_entropy(x, y), _sparse_ce_ref, diff=(0,))


def _draw_sparse_ce_grad(data):
    (logits, labels), _ = _draw_sparse_ce(data)
    return [logits, labels, arr(data, labels.shape)], {}


def _sparse_ce_grad_ref(a, logits, labels, dout):
    e = np.exp(logits - logits.max(1, keepdims=True))
    p = e / e.sum(1, keepdims=True)
    p[np.arange(len(labels)), labels] -= 1
    return p * dout[:, None]


spec("SparseSoftmaxCrossEntropyGrad", _draw_sparse_ce_grad,
     lambda a, x, y, d: apply(L.SparseSoftmaxCrossEntropyGrad(), (x, y, d)), _sparse_ce_grad_ref,
     diff=(0, 2))


def _draw_gelu(data):
    (x,), _ = _draw_unary_reals(data)
    return [x], {"approximate": data.draw(st.sampled_from(["none", "tanh"]))}


def _draw_unary_reals(data):
    return [arr(data, data.draw(S.shapes(0, 3)))], {}


def _gelu_ref(a, x):
    from math import erf
    if a["approximate"] == "tanh":
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))


spec("GeLU", _draw_gelu, lambda a, x: N.GeLU(a["approximate"])(x), _gelu_ref,
     rtol=1e-13, atol=1e-15)


def _draw_gelu_grad(data):
    (x,), attrs = _draw_gelu(data)
    return [x, arr(data, x.shape)], attrs


spec("GeLUGrad", _draw_gelu_grad,
     lambda a, x, dy: apply(N.GeLUGrad(a["approximate"]), (x, dy)),
     _fused_matches_reference(lambda a: N.GeLUGrad(a["approximate"])), rtol=1e-12, atol=1e-14,
     tol32=128, why32="its derivatives (the reference composite) go through 1 - tanh(u)**2, which "
     "cancels for |x| near 3 (1 - t**2 ~ 0.007, ~150 eps relative): up to ~30 eps seen")


def _draw_softmax_grad(data):
    shape = data.draw(S.shapes(1, 3))
    y = np.exp(arr(data, shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    y = y / y.sum(axis=axis, keepdims=True)
    return [y, arr(data, shape)], {"axis": axis}


spec("SoftmaxGrad", _draw_softmax_grad,
     lambda a, y, dy: apply(N.SoftmaxGrad(a["axis"]), (y, dy)),
     _fused_matches_reference(lambda a: N.SoftmaxGrad(a["axis"])), rtol=1e-12, atol=1e-14)
