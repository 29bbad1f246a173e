"""Make mindspore_image.npz: inputs, outputs and gradients of MindSpore 2.10's pooling,
transposed-convolution, resize/sampling, image and box ops, for tests/ops/test_image_family.py.
Run with real MindSpore (CPU):

    /tmp/msvenv/bin/python tests/ops/data/make_mindspore_image.py
"""
import inspect
import json
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, ops

rng = np.random.default_rng(0)
data = {}
stored = {}  # id of an input array already saved -> its key (saved once, referred to after)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def record(name, fn, inputs, diff=(0,)):
    """Save fn's outputs on `inputs` (NumPy arrays, or other constants), and the gradients of
    sum(out[0] * g) w.r.t. the inputs at positions `diff`."""
    args = [Tensor(a) if isinstance(a, np.ndarray) else a for a in inputs]
    out = fn(*args)
    outs = out if isinstance(out, tuple) else (out,)
    for i, a in enumerate(inputs):
        if isinstance(a, np.ndarray):
            key = f"{name}_in{i}"
            if id(a) in stored:
                data[key] = np.array("ref:" + stored[id(a)])
            else:
                data[key], stored[id(a)] = a, key
    for i, o in enumerate(outs):
        data[f"{name}_out{i}"] = o.asnumpy()
    if diff:
        g = f32(*outs[0].shape)
        data[f"{name}_g"] = g

        def loss(*xs):
            full = list(args)
            for p, v in zip(diff, xs):
                full[p] = v
            res = fn(*full)
            first = res[0] if isinstance(res, tuple) else res
            return (first * Tensor(g)).sum()
        grads = ms.grad(loss, tuple(range(len(diff))))(*[args[p] for p in diff])
        grads = grads if isinstance(grads, tuple) else (grads,)
        for p, gr in zip(diff, grads):
            data[f"{name}_d{p}"] = gr.asnumpy()


# ---- pooling and transposed convolution -------------------------------------------------------

x5 = f32(1, 2, 5, 4, 6)
record("max_pool3d", lambda x: ops.max_pool3d(x, 2, (1, 2, 2), 1, return_indices=True), [x5])
record("max_pool3d_ceil", lambda x: ops.max_pool3d(x, (2, 3, 2), 2, 0, (1, 1, 2), True), [x5])
record("MaxPool3D_same", lambda x: ops.MaxPool3D(2, 2, "same")(x), [x5])
record("MaxPool3D_pad", lambda x: ops.MaxPool3D(3, 2, "pad", (1, 0, 1, 1, 0, 1), True)(x), [x5])
record("MaxPool3DWithArgmax", lambda x: ops.MaxPool3DWithArgmax(2, (1, 2, 2), 1)(x), [x5])
record("MaxPool3DWithArgmax_d", lambda x: ops.MaxPool3DWithArgmax(
    2, 2, 0, dilation=(1, 2, 2), argmax_type=ms.int32)(x), [x5])
record("avg_pool3d", lambda x: ops.avg_pool3d(x, 2, 2, 1), [x5])
record("avg_pool3d_nc", lambda x: ops.avg_pool3d(x, 3, 2, 1, True, False), [x5])
record("avg_pool3d_div", lambda x: ops.avg_pool3d(x, 2, 1, 0, False, True, 3), [x5])
record("AvgPool3D_same", lambda x: ops.AvgPool3D(3, 2, "same")(x), [x5])
record("AvgPool3D_pad", lambda x: ops.AvgPool3D(3, 2, "pad", (1, 0, 1, 1, 0, 1))(x), [x5])
x4 = f32(2, 3, 5, 7)
record("MaxPoolWithArgmaxV2", lambda x: ops.MaxPoolWithArgmaxV2(3, 2, 1, (1, 1), True)(x), [x4])
record("adaptive_avg_pool3d", lambda x: ops.adaptive_avg_pool3d(x, (3, None, 4)), [x5])
record("adaptive_max_pool3d", lambda x: ops.adaptive_max_pool3d(x, (3, 3, 4), True), [x5])
record("AdaptiveMaxPool3D", lambda x: ops.AdaptiveMaxPool3D()(
    x, Tensor(np.array([2, 3, 4], np.int32))), [x5])
record("AdaptiveAvgPool3D", lambda x: ops.AdaptiveAvgPool3D(2)(x), [x5])
record("AdaptiveAvgPool2D", lambda x: ops.AdaptiveAvgPool2D((3, None))(x), [x4])
record("AdaptiveMaxPool2D", lambda x: ops.AdaptiveMaxPool2D((3, 4))(x), [x4])
x3 = f32(2, 3, 8)
record("adaptive_max_pool1d", lambda x: ops.adaptive_max_pool1d(x, 4), [x3])
record("lp_pool1d", lambda x: ops.lp_pool1d(x, 2, 3, 2), [np.abs(x3) + 0.1])
record("lp_pool2d", lambda x: ops.lp_pool2d(x, 3, (2, 3), ceil_mode=True), [np.abs(x4) + 0.1])
record("lp_pool2d_int", lambda x: ops.lp_pool2d(x, 2, 2), [np.abs(x4) + 0.1])
xl = f32(2, 7, 3, 2)
record("lrn", lambda x: ops.lrn(x, 2, 1.5, 0.3, 0.75), [xl])
record("LRN", lambda x: ops.LRN()(x), [xl])
pooled, idx = ops.max_pool2d(Tensor(x4), 2, 2, return_indices=True)
up = f32(*pooled.shape)
record("max_unpool2d", lambda x, i: ops.max_unpool2d(x, i, 2, 2, 0, (5, 7)), [up, idx.asnumpy()])
record("MaxUnpool2D", lambda x, i: ops.MaxUnpool2D(2, 2, output_shape=(2, 3, 5, 7))(x, i),
       [up, idx.asnumpy().astype(np.int32)])
pooled, idx = ops.max_pool3d(Tensor(x5), 2, 2, return_indices=True)
up = f32(*pooled.shape)
record("max_unpool3d", lambda x, i: ops.max_unpool3d(x, i, 2), [up, idx.asnumpy()])
record("MaxUnpool3D", lambda x, i: ops.MaxUnpool3D(2, 2, output_shape=(1, 2, 5, 4, 6))(x, i),
       [up, idx.asnumpy()])
idx1 = np.array([[[1, 2, 5, 6], [0, 3, 4, 7], [1, 3, 5, 7]]] * 2, np.int64)
record("max_unpool1d", lambda x, i: ops.max_unpool1d(x, i, 2, 2), [f32(2, 3, 4), idx1])
record("col2im", lambda x: ops.col2im(x, Tensor(np.array([4, 5], np.int32)), (2, 2), (1, 2),
                                      (1, 0), (1, 1)), [f32(1, 2, 4, 15)])
xt, wt = f32(1, 2, 3, 2, 3), f32(2, 4, 2, 3, 2)
record("conv3d_transpose_pad", lambda x, w: ops.conv3d_transpose(
    x, w, "pad", 1, 2, 1, 1, 1), [xt, wt], (0, 1))
record("conv3d_transpose", lambda x, w: ops.conv3d_transpose(x, w, stride=(2, 1, 2)), [xt, wt],
       (0, 1))
record("Conv3DTranspose_same", lambda x, w: ops.Conv3DTranspose(2, 4, (2, 3, 2), pad_mode="same",
                                                                stride=2)(x, w), [xt, wt], (0, 1))
record("Conv3DTranspose_pad", lambda x, w: ops.Conv3DTranspose(
    2, 4, (2, 3, 2), pad_mode="pad", pad=(1, 1, 0, 0, 1, 1), stride=(2, 1, 2),
    output_padding=(1, 0, 1))(x, w), [xt, wt], (0, 1))

xf = f32(2, 3, 9, 8)
uf = rng.uniform(0, 1, (2, 3, 2)).astype(np.float32)
record("FractionalMaxPoolWithFixedKsize", lambda x, u: ops.FractionalMaxPoolWithFixedKsize(
    (3, 2), (4, 5))(x, u), [xf, uf], ())  # its CPU gradient kernel refuses float32
record("fractional_max_pool2d", lambda x, u: ops.fractional_max_pool2d(
    x, 2, output_ratio=(0.5, 0.6), return_indices=True, _random_samples=u), [xf, uf], ())
xf3 = f32(1, 2, 6, 5, 7)
uf3 = rng.uniform(0, 1, (1, 2, 3)).astype(np.float32)
record("FractionalMaxPool3DWithFixedKsize", lambda x, u: ops.FractionalMaxPool3DWithFixedKsize(
    (2, 3, 2), (3, 2, 4))(x, u), [xf3, uf3])
record("fractional_max_pool3d", lambda x, u: ops.fractional_max_pool3d(
    x, (3, 2, 2), (2, 3, 3), return_indices=True, _random_samples=u), [xf3, uf3])

xn = f32(2, 9, 8, 3)
for cls in ("FractionalMaxPool", "FractionalAvgPool"):
    for pseudo in (False, True):
        for overlap in (False, True):
            record(f"{cls}_{int(pseudo)}{int(overlap)}", lambda x, c=cls, p=pseudo, o=overlap:
                   getattr(ops, c)([1.0, 1.6, 1.4, 1.0], p, o, True, 3)(x), [xn],
                   (0,) if cls == "FractionalAvgPool" else ())  # the max one's CPU grad fails

# ---- resizing -----------------------------------------------------------------------------------

img = f32(1, 2, 5, 4)
size = Tensor(np.array([7, 3], np.int32))
for corners, half in ((False, False), (True, False), (False, True)):
    tag = f"{int(corners)}{int(half)}"
    record(f"ResizeBilinearV2_{tag}", lambda x, c=corners, h=half: ops.ResizeBilinearV2(c, h)(
        x, size), [img])
    record(f"ResizeBicubic_{tag}", lambda x, c=corners, h=half: ops.ResizeBicubic(c, h)(
        x, size), [img])
    record(f"ResizeNearestNeighborV2_{tag}", lambda x, c=corners, h=half:
           ops.ResizeNearestNeighborV2(c, h)(x, size), [img])
    record(f"ResizeNearestNeighbor_{tag}", lambda x, c=corners, h=half:
           ops.ResizeNearestNeighbor((3, 9), c, h)(x), [img])
record("ResizeArea_0", lambda x: ops.ResizeArea()(x, size), [img], ())
record("ResizeArea_1", lambda x: ops.ResizeArea(True)(x, Tensor(np.array([3, 7], np.int32))),
       [img], ())
record("ResizeArea_int", lambda x: ops.ResizeArea()(x, size),
       [rng.integers(0, 9, (1, 5, 4, 2)).astype(np.int32)], ())
for mode in ("align_corners", "half_pixel"):
    record(f"ResizeLinear1D_{mode}", lambda x, m=mode: ops.ResizeLinear1D(m)(
        x, Tensor(np.array([7], np.int64))), [f32(2, 2, 5)])
x3d = f32(1, 2, 2, 3, 4)
record("UpsampleNearest3D_size", lambda x: ops.UpsampleNearest3D()(x, (3, 5, 6)), [x3d])
record("UpsampleNearest3D_scales", lambda x: ops.UpsampleNearest3D()(x, None, [1.5, 2.0, 1.3]),
       [x3d])
record("UpsampleTrilinear3D_size", lambda x: ops.UpsampleTrilinear3D()(x, (3, 5, 6)), [x3d])
record("UpsampleTrilinear3D_ac", lambda x: ops.UpsampleTrilinear3D(True)(x, (3, 5, 6)), [x3d])
record("UpsampleTrilinear3D_scales", lambda x: ops.UpsampleTrilinear3D()(
    x, None, [1.5, 2.0, 1.3]), [x3d])

simg = f32(1, 6, 5, 2)
for kernel in ("lanczos1", "lanczos3", "lanczos5", "gaussian", "box", "triangle", "keyscubic",
               "mitchellcubic"):
    for anti in (True, False):
        record(f"ScaleAndTranslate_{kernel}_{int(anti)}", lambda x, k=kernel, a=anti:
               ops.ScaleAndTranslate(k, a)(x, Tensor(np.array([4, 9], np.int32)),
                                           Tensor(np.array([0.7, 1.6], np.float32)),
                                           Tensor(np.array([0.3, -1.2], np.float32))), [simg])

gl = f32(2, 7, 6, 2)
for centered, normalized in ((True, True), (False, True), (True, False), (False, False)):
    offsets = np.array([[0.3, -0.6], [-0.9, 0.45]] if normalized else [[2.6, -1.4], [5.5, 3.0]],
                       np.float32)
    record(f"ExtractGlimpse_{int(centered)}{int(normalized)}", lambda x, o, c=centered,
           n=normalized: ops.ExtractGlimpse(c, n, False, "zero")(
               x, Tensor(np.array([4, 3], np.int32)), o), [gl, offsets], ())

dx_ = f32(1, 4, 5, 6)
doff = (rng.standard_normal((1, 3 * 2 * 6, 5, 3)) * 1.5).astype(np.float32)
record("DeformableOffsets", lambda x, o: ops.DeformableOffsets(
    (1, 1, 1, 2), (1, 0, 1, 1), (2, 3), (1, 1, 1, 1), "NCHW", 2)(x, o), [dx_, doff], (0, 1))
record("deformable_conv2d", lambda x, w, o: ops.deformable_conv2d(
    x, w, o, (2, 3), (1, 1, 1, 2), (1, 0, 1, 1), None, (1, 1, 1, 1), 2, 2),
    [dx_, f32(4, 2, 2, 3), doff], (0, 1, 2))

# ---- boxes and suppression (no gradients) -------------------------------------------------------


def boxes(n, scale=10.0):
    lo = rng.uniform(0, scale, (n, 2))
    return np.concatenate([lo, lo + rng.uniform(0.5, scale / 2, (n, 2))], 1).astype(np.float32)


anchors, gts = boxes(5), boxes(4)
record("iou", lambda a, g: ops.iou(a, g), [anchors, gts], ())
record("iof", lambda a, g: ops.iou(a, g, "iof"), [anchors, gts], ())
record("bounding_box_encode", lambda a, g: ops.bounding_box_encode(
    a, g, (0.1, 0.0, -0.1, 0.2), (1.0, 2.0, 0.5, 1.5)), [anchors, boxes(5)], ())
record("bounding_box_decode", lambda a, d: ops.bounding_box_decode(
    a, d, (12, 9), (0.1, 0.0, -0.1, 0.2), (1.0, 2.0, 0.5, 1.5), 0.05), [anchors, f32(5, 4)], ())
metas = np.array([9.0, 11.0, 1.2], np.float32)
record("check_valid", lambda b, m: ops.check_valid(b, m), [boxes(8, 12.0) - 1.0, metas], ())
scored = np.concatenate([boxes(12, 6.0), rng.permutation(12)[:, None] / 12.0], 1)
record("NMSWithMask", lambda b: ops.NMSWithMask(0.3)(b), [scored.astype(np.float32)], ())
overlaps = rng.uniform(0, 1, (8, 8)).astype(np.float32)
record("NonMaxSuppressionWithOverlaps", lambda o, s: ops.NonMaxSuppressionWithOverlaps()(
    o, s, Tensor(5, ms.int32), Tensor(0.6, ms.float32), Tensor(0.2, ms.float32)),
    [(overlaps + overlaps.T) / 2, rng.uniform(0, 1, 8).astype(np.float32)], ())

ovq = rng.integers(0, 5, (6, 6)) / 4.0
record("NonMaxSuppressionWithOverlaps_ties", lambda o, s: ops.NonMaxSuppressionWithOverlaps()(
    o, s, Tensor(6, ms.int32), Tensor(0.5, ms.float32), Tensor(0.25, ms.float32)),
    [((ovq + ovq.T) / 2).astype(np.float32), (rng.permutation(6) / 4.0).astype(np.float32)], ())
cb = rng.uniform(0, 1, (2, 6, 3, 4)).astype(np.float32)
cb[..., 2:] = cb[..., :2] + rng.uniform(-0.2, 0.6, (2, 6, 3, 2))
cs = rng.uniform(0, 1, (2, 6, 3)).astype(np.float32)
for pad, clip in ((False, True), (True, False)):
    record(f"CombinedNonMaxSuppression_{int(pad)}{int(clip)}", lambda b, s, p=pad, c=clip:
           ops.CombinedNonMaxSuppression(p, c)(b, s, Tensor(2, ms.int32), Tensor(5, ms.int32),
                                               Tensor(0.3, ms.float32), Tensor(0.2, ms.float32)),
           [cb, cs], ())
record("CombinedNonMaxSuppression_shared", lambda b, s: ops.CombinedNonMaxSuppression()(
    b, s, Tensor(3, ms.int32), Tensor(4, ms.int32), Tensor(0.5, ms.float32),
    Tensor(0.1, ms.float32)), [cb[:, :, :1].copy(), cs], ())

# ---- sampling, crops, colour ---------------------------------------------------------------------

gimg = f32(2, 3, 4, 5)
grid = rng.uniform(-1.2, 1.2, (2, 3, 2, 2)).astype(np.float32)
for mode in ("bilinear", "nearest"):
    for pad in ("zeros", "border", "reflection"):
        for corners in (False, True):
            record(f"grid_sample_{mode}_{pad}_{int(corners)}",
                   lambda x, g, m=mode, p=pad, c=corners: ops.grid_sample(x, g, m, p, c),
                   [gimg, grid], (0, 1) if mode == "bilinear" else (0,))
record("GridSampler3D", lambda x, g: ops.GridSampler3D("bilinear", "border", True)(x, g),
       [f32(1, 2, 3, 4, 3), rng.uniform(-1.1, 1.1, (1, 2, 3, 2, 3)).astype(np.float32)], (0, 1))
record("GridSampler3D_zeros", lambda x, g: ops.GridSampler3D()(x, g),
       [f32(1, 2, 3, 4, 3), rng.uniform(-1.1, 1.1, (1, 2, 3, 2, 3)).astype(np.float32)], (0, 1))
record("affine_grid", lambda t: ops.affine_grid(t, (2, 1, 3, 4)), [f32(2, 2, 3)])
record("affine_grid_ac", lambda t: ops.affine_grid(t, (2, 1, 3, 4), True), [f32(2, 2, 3)])
record("AffineGrid_3d", lambda t: ops.AffineGrid()(t, (1, 1, 2, 3, 4)), [f32(1, 3, 4)])
cimg = f32(2, 6, 5, 2)
cboxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.3, -0.2, 0.6, 0.7], [0.9, 0.8, 0.2, 0.1],
                   [0.05, 0.1, 1.2, 0.6]], np.float32)
cidx = np.array([0, 1, 1, 0], np.int32)
record("crop_and_resize", lambda x, b, i: ops.crop_and_resize(x, b, i, (3, 4)),
       [cimg, cboxes, cidx], (0, 1))
record("crop_and_resize_one", lambda x, b, i: ops.crop_and_resize(x, b, i, (1, 3), "bilinear",
                                                                   -1.0), [cimg, cboxes, cidx],
       (0, 1))
record("CropAndResize_nearest", lambda x, b, i: ops.CropAndResize("nearest", 0.5)(x, b, i, (4, 3)),
       [cimg, cboxes, cidx], (0,))
vboxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.3, -0.2, 0.6, 0.7], [-0.3, 0.13, 0.4, 0.77],
                   [0.8, 1.2, 0.1, 1.5], [0.5, 0.5, 0.5, 0.5]], np.float32)
record("crop_and_resize_v2", lambda x, b, i: ops.crop_and_resize(x, b, i, (3, 4), "bilinear_v2"),
       [cimg, vboxes, np.array([0, 1, 1, 0, 1], np.int32)], ())  # its CPU gradient is the
# bilinear method's, not this forward's
feats = f32(2, 2, 6, 7)
rois = np.array([[0, 0.5, 1.0, 4.2, 3.3], [1, 2.0, 0.0, 6.5, 5.5], [0, -1.0, 2.0, 3.0, 7.0]],
                np.float32)
record("ROIAlign", lambda f, r: ops.ROIAlign(2, 3, 1.0, 2, 1)(f, r), [feats, rois], (0,))
record("ROIAlign_adaptive", lambda f, r: ops.ROIAlign(3, 2, 1.0, 0, 0)(f, r), [feats, rois],
       (0,))
rois_rev = np.array([[1, 2.0, 2.0, 0.0, 3.0], [0, 2.0, 2.0, 3.0, 0.0], [1, -1.0, 0.0, -0.5, 1.0]],
                    np.float32)
record("ROIAlign_reversed", lambda f, r: ops.ROIAlign(2, 2, 1.0, 2, 1)(f, r), [feats, rois_rev],
       (0,))
record("crop_and_resize_nearest_row", lambda x, b, i: ops.crop_and_resize(x, b, i, (1, 4),
                                                                           "nearest", 0.25),
       [cimg, vboxes, np.array([0, 1, 1, 0, 1], np.int32)], ())
record("ScaleAndTranslate_box_down", lambda x: ops.ScaleAndTranslate("box", True)(
    x, Tensor(np.array([2, 2], np.int32)), Tensor(np.array([0.4, 0.3], np.float32)),
    Tensor(np.array([0.0, 1.5], np.float32))), [simg])
rgb = rng.uniform(0, 1, (2, 3, 4, 3)).astype(np.float32)
rgb[0, 0, 0] = [0.5, 0.5, 0.5]
rgb[0, 0, 1] = [0.0, 0.0, 0.0]
rgb[0, 0, 2] = [0.2, 0.7, 0.7]
record("RGBToHSV", lambda x: ops.RGBToHSV()(x), [rgb], (0,))
record("HSVToRGB", lambda x: ops.HSVToRGB()(x),
       [rng.uniform(0, 1, (2, 3, 4, 3)).astype(np.float32)], ())
record("AdjustHue", lambda x: ops.AdjustHue()(x, Tensor(0.3, ms.float32)), [rgb], ())
record("AdjustHue_neg", lambda x: ops.AdjustHue()(x, Tensor(-0.45, ms.float32)), [rgb], ())
record("AdjustSaturation", lambda x: ops.AdjustSaturation()(x, Tensor(1.7, ms.float32)), [rgb],
       ())
record("AdjustSaturation_low", lambda x: ops.AdjustSaturation()(x, Tensor(0.4, ms.float32)),
       [rgb], ())

# ---- signatures ---------------------------------------------------------------------------------

CLASSES = """
    AdaptiveAvgPool2D AdaptiveAvgPool3D AdaptiveMaxPool2D AdaptiveMaxPool3D AffineGrid AvgPool3D
    AdjustHue AdjustSaturation BoundingBoxDecode BoundingBoxEncode CheckValid
    CombinedNonMaxSuppression Conv3DTranspose CropAndResize DeformableOffsets Dilation2D
    ExtractGlimpse FractionalAvgPool FractionalMaxPool FractionalMaxPool3DWithFixedKsize
    FractionalMaxPoolWithFixedKsize GridSampler2D GridSampler3D HSVToRGB IOU LRN MaxPool3D
    MaxPool3DWithArgmax MaxPoolWithArgmaxV2 MaxUnpool2D MaxUnpool3D NMSWithMask
    NonMaxSuppressionV3 NonMaxSuppressionWithOverlaps RGBToHSV ROIAlign ResizeArea ResizeBicubic
    ResizeBilinearV2 ResizeLinear1D ResizeNearestNeighbor ResizeNearestNeighborV2
    ScaleAndTranslate UpsampleNearest3D UpsampleTrilinear3D""".split()
FUNCTIONS = """
    adaptive_avg_pool2d_ext adaptive_avg_pool3d adaptive_max_pool1d adaptive_max_pool3d
    affine_grid avg_pool3d bounding_box_decode bounding_box_encode check_valid col2im
    conv3d_transpose crop_and_resize deformable_conv2d fractional_max_pool2d fractional_max_pool3d
    grid_sample iou lp_pool1d lp_pool2d lrn max_pool3d max_unpool1d max_unpool2d
    max_unpool3d""".split()
sigs = {name: str(inspect.signature(getattr(ops, name).__init__)) for name in CLASSES}
sigs.update({name: str(inspect.signature(getattr(ops, name))) for name in FUNCTIONS})
sigs.update({f"{name}.__call__": str(inspect.signature(getattr(ops, name).__call__))
             for name in CLASSES if "__call__" in vars(getattr(ops, name))})
data["signatures"] = np.frombuffer(json.dumps(sigs).encode(), np.uint8)

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_image.npz")
np.savez_compressed(path, **data)
print(f"{path}: {len(data)} arrays, {os.path.getsize(path)} bytes")
