"""Pooling (3-D, adaptive, unpooling, power-average), transposed 3-D convolution, local response
normalisation, resize/sampling, image and box ops: values and gradients against MindSpore 2.10
(fixture made by data/make_mindspore_image.py), gradients to second order, signatures and the
errors bad input gets."""
import inspect
import json
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.ops import operations as P
from minispore.testing import check_grads

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_image.npz"))
SIGNATURES = json.loads(DATA["signatures"].tobytes().decode())


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _args(name):
    args, i = [], 0
    while f"{name}_in{i}" in DATA:
        a = DATA[f"{name}_in{i}"]
        if a.dtype.kind == "U":  # an input saved under another case's key
            a = DATA[str(a)[len("ref:"):]]
        args.append(Tensor(a))
        i += 1
    return args


def _compare(name, fn, diff=(0,), rtol=1e-5, atol=1e-5):
    """fn's outputs, and the gradients of sum(out[0] * g) at `diff`, against the fixture."""
    args = _args(name)
    out = fn(*args)
    outs = out if isinstance(out, tuple) else (out,)
    for i, o in enumerate(outs):
        want = DATA[f"{name}_out{i}"]
        assert o.shape == want.shape, (name, i)
        if want.dtype.kind in "iu":
            assert o.asnumpy().dtype == want.dtype, (name, i, o.dtype)
            np.testing.assert_array_equal(o.asnumpy(), want, err_msg=name)
        else:
            assert o.asnumpy().dtype == want.dtype, (name, i, o.dtype)
            np.testing.assert_allclose(o.asnumpy(), want, rtol=rtol, atol=atol, err_msg=name)
    if not diff:
        return
    g = Tensor(DATA[f"{name}_g"])

    def loss(*xs):
        full = list(args)
        for p, v in zip(diff, xs):
            full[p] = v
        res = fn(*full)
        return ((res[0] if isinstance(res, tuple) else res) * g).sum()

    grads = ms.grad(loss, tuple(range(len(diff))))(*[args[p] for p in diff])
    grads = grads if isinstance(grads, tuple) else (grads,)
    for p, gr in zip(diff, grads):
        np.testing.assert_allclose(gr.asnumpy(), DATA[f"{name}_d{p}"], rtol=rtol, atol=atol,
                                   err_msg=f"{name} d{p}")


# ---- pooling and transposed convolution against MindSpore ---------------------------------------

LAYER_CASES = {
    "max_pool3d": lambda x: ops.max_pool3d(x, 2, (1, 2, 2), 1, return_indices=True),
    "max_pool3d_ceil": lambda x: ops.max_pool3d(x, (2, 3, 2), 2, 0, (1, 1, 2), True),
    "MaxPool3D_same": lambda x: ops.MaxPool3D(2, 2, "same")(x),
    "MaxPool3D_pad": lambda x: ops.MaxPool3D(3, 2, "pad", (1, 0, 1, 1, 0, 1), True)(x),
    "MaxPool3DWithArgmax": lambda x: ops.MaxPool3DWithArgmax(2, (1, 2, 2), 1)(x),
    "MaxPool3DWithArgmax_d": lambda x: ops.MaxPool3DWithArgmax(
        2, 2, 0, dilation=(1, 2, 2), argmax_type=ms.int32)(x),
    "avg_pool3d": lambda x: ops.avg_pool3d(x, 2, 2, 1),
    "avg_pool3d_nc": lambda x: ops.avg_pool3d(x, 3, 2, 1, True, False),
    "avg_pool3d_div": lambda x: ops.avg_pool3d(x, 2, 1, 0, False, True, 3),
    "AvgPool3D_same": lambda x: ops.AvgPool3D(3, 2, "same")(x),
    "AvgPool3D_pad": lambda x: ops.AvgPool3D(3, 2, "pad", (1, 0, 1, 1, 0, 1))(x),
    "MaxPoolWithArgmaxV2": lambda x: ops.MaxPoolWithArgmaxV2(3, 2, 1, (1, 1), True)(x),
    "adaptive_avg_pool3d": lambda x: ops.adaptive_avg_pool3d(x, (3, None, 4)),
    "adaptive_max_pool3d": lambda x: ops.adaptive_max_pool3d(x, (3, 3, 4), True),
    "AdaptiveMaxPool3D": lambda x: ops.AdaptiveMaxPool3D()(
        x, Tensor(np.array([2, 3, 4], np.int32))),
    "AdaptiveAvgPool3D": lambda x: ops.AdaptiveAvgPool3D(2)(x),
    "AdaptiveAvgPool2D": lambda x: ops.AdaptiveAvgPool2D((3, None))(x),
    "AdaptiveMaxPool2D": lambda x: ops.AdaptiveMaxPool2D((3, 4))(x),
    "adaptive_max_pool1d": lambda x: ops.adaptive_max_pool1d(x, 4),
    "lp_pool1d": lambda x: ops.lp_pool1d(x, 2, 3, 2),
    "lp_pool2d": lambda x: ops.lp_pool2d(x, 3, (2, 3), ceil_mode=True),
    "lp_pool2d_int": lambda x: ops.lp_pool2d(x, 2, 2),
    "lrn": lambda x: ops.lrn(x, 2, 1.5, 0.3, 0.75),
    "LRN": lambda x: ops.LRN()(x),
    "max_unpool2d": lambda x, i: ops.max_unpool2d(x, i, 2, 2, 0, (5, 7)),
    "MaxUnpool2D": lambda x, i: ops.MaxUnpool2D(2, 2, output_shape=(2, 3, 5, 7))(x, i),
    "max_unpool3d": lambda x, i: ops.max_unpool3d(x, i, 2),
    "MaxUnpool3D": lambda x, i: ops.MaxUnpool3D(2, 2, output_shape=(1, 2, 5, 4, 6))(x, i),
    "max_unpool1d": lambda x, i: ops.max_unpool1d(x, i, 2, 2),
    "col2im": lambda x: ops.col2im(x, Tensor(np.array([4, 5], np.int32)), (2, 2), (1, 2), (1, 0),
                                   (1, 1)),
    "FractionalMaxPoolWithFixedKsize": lambda x, u: ops.FractionalMaxPoolWithFixedKsize(
        (3, 2), (4, 5))(x, u),
    "fractional_max_pool2d": lambda x, u: ops.fractional_max_pool2d(
        x, 2, output_ratio=(0.5, 0.6), return_indices=True, _random_samples=u),
    "FractionalMaxPool3DWithFixedKsize": lambda x, u: ops.FractionalMaxPool3DWithFixedKsize(
        (2, 3, 2), (3, 2, 4))(x, u),
    "fractional_max_pool3d": lambda x, u: ops.fractional_max_pool3d(
        x, (3, 2, 2), (2, 3, 3), return_indices=True, _random_samples=u),
}
CONV_CASES = {
    "conv3d_transpose_pad": lambda x, w: ops.conv3d_transpose(x, w, "pad", 1, 2, 1, 1, 1),
    "conv3d_transpose": lambda x, w: ops.conv3d_transpose(x, w, stride=(2, 1, 2)),
    "Conv3DTranspose_same": lambda x, w: ops.Conv3DTranspose(2, 4, (2, 3, 2), pad_mode="same",
                                                             stride=2)(x, w),
    "Conv3DTranspose_pad": lambda x, w: ops.Conv3DTranspose(
        2, 4, (2, 3, 2), pad_mode="pad", pad=(1, 1, 0, 0, 1, 1), stride=(2, 1, 2),
        output_padding=(1, 0, 1))(x, w),
}


# MindSpore 2.10's CPU gradient kernel of the 2-D fractional max pool refuses float32 input:
# values only (the gradients are checked numerically below)
NO_MINDSPORE_GRAD = {"FractionalMaxPoolWithFixedKsize", "fractional_max_pool2d"}


@pytest.mark.parametrize("name", sorted(LAYER_CASES))
def test_pooling_matches_mindspore(name):
    _compare(name, LAYER_CASES[name], () if name in NO_MINDSPORE_GRAD else (0,))


@pytest.mark.parametrize("name", sorted(CONV_CASES))
def test_conv3d_transpose_matches_mindspore(name):
    _compare(name, CONV_CASES[name], (0, 1), atol=1e-4)


def test_signatures_match_mindspore():
    """Constructor and function signatures, and the call signatures MindSpore's classes spell
    out; every class is in ops.operations too."""
    for name, want in SIGNATURES.items():
        base, _, method = name.partition(".")
        obj = getattr(ops, base)
        if method:
            got = inspect.signature(obj.__call__)
        else:
            got = inspect.signature(obj.__init__ if isinstance(obj, type) else obj)
        assert str(got) == want, name
        if isinstance(obj, type):
            assert getattr(P, base) is obj, base


# ---- gradients to second order (float64, against central differences) -------------------------

def _untied(*shape, seed=0):
    """Values at least 0.05 apart (no ties for a max), shuffled."""
    n = int(np.prod(shape))
    return np.random.default_rng(seed).permutation(np.arange(n) * 0.05 - n * 0.025).reshape(shape)


X5 = _untied(1, 2, 4, 3, 5)
GRAD_CASES = {
    "max_pool3d": (lambda x: ops.max_pool3d(x, 2, (1, 2, 2), 1), [X5]),
    "MaxPool3D_same": (lambda x: ops.MaxPool3D(2, 2, "same")(x), [X5]),
    "avg_pool3d": (lambda x: ops.avg_pool3d(x, 2, (1, 2, 2), 1, True, False), [X5]),
    "AvgPool3D_div": (lambda x: ops.AvgPool3D(2, 1, divisor_override=3)(x), [X5]),
    "adaptive_avg_pool3d": (lambda x: ops.adaptive_avg_pool3d(x, (3, 2, 3)), [X5]),
    "adaptive_max_pool3d": (lambda x: ops.adaptive_max_pool3d(x, (3, 2, 3)), [X5]),
    "adaptive_max_pool1d": (lambda x: ops.adaptive_max_pool1d(x, 3), [_untied(2, 2, 6)]),
    "AdaptiveMaxPool2D": (lambda x: ops.AdaptiveMaxPool2D((2, 3))(x)[0], [_untied(1, 2, 5, 4)]),
    "lp_pool2d": (lambda x: ops.lp_pool2d(x, 3, 2, (1, 2), True), [np.abs(rand(1, 2, 4, 5)) + .5]),
    "lp_pool1d": (lambda x: ops.lp_pool1d(x, 2.5, 2), [np.abs(rand(2, 2, 5)) + .5]),
    "lrn": (lambda x: ops.lrn(x, 1, 1.2, 0.5, 0.6), [rand(2, 4, 2, 3)]),
    "max_unpool2d": (lambda x: ops.max_unpool2d(x, Tensor(np.array([[[[0, 3], [9, 14]]]])), 2),
                     [rand(1, 1, 2, 2)]),
    "conv3d_transpose": (lambda x, w: ops.conv3d_transpose(x, w, "pad", 1, 2, 1, 1, 1),
                         [rand(1, 2, 2, 2, 3), rand(2, 3, 2, 2, 2, seed=1)]),
    "col2im": (lambda x: ops.col2im(x, (3, 4), 2, 1, 1, 2), [rand(1, 2, 4, 6)]),
    "fractional_max_pool2d": (lambda x: ops.fractional_max_pool2d(
        x, (2, 3), (3, 2), _random_samples=Tensor(np.array([[[0.3, 0.8], [0.6, 0.1]]]))),
        [_untied(1, 2, 5, 6)]),
    "FractionalMaxPool3DWithFixedKsize": (lambda x: ops.FractionalMaxPool3DWithFixedKsize(
        2, (2, 3, 2))(x, Tensor(np.array([[[0.3, 0.8, 0.5]]])))[0], [_untied(1, 1, 4, 5, 3)]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_second_order_gradients(name):
    fn, args = GRAD_CASES[name]
    check_grads(fn, [Tensor(a) for a in args], order=2)


# ---- argument checks ----------------------------------------------------------------------------

def test_pooling_errors():
    x5 = Tensor(rand(1, 1, 3, 3, 3))
    with pytest.raises(ValueError, match="max_pool3d"):
        ops.max_pool3d(Tensor(rand(1, 3, 3, 3)), 2)
    with pytest.raises(ValueError, match="half the kernel"):
        ops.max_pool3d(x5, 2, padding=2)
    with pytest.raises(ValueError, match="larger than"):
        ops.avg_pool3d(x5, 4)
    with pytest.raises(ValueError, match="pad_list"):
        ops.MaxPool3D(2, 2, "valid", 1)
    with pytest.raises(ValueError, match="6 ints"):  # as MindSpore: an int or 6 ints only
        ops.avg_pool3d(x5, 2, 2, (1, 0, 1))
    np.testing.assert_array_equal(ops.MaxPool3D(2, 2, "pad", (1, 0, 1))(x5).asnumpy(),
                                  ops.MaxPool3D(2, 2, "pad", (1, 1, 0, 0, 1, 1))(x5).asnumpy())
    with pytest.raises(TypeError, match="output_size"):
        ops.AdaptiveMaxPool2D(2)
    with pytest.raises(ValueError, match="divisible"):
        ops.adaptive_max_pool1d(Tensor(rand(1, 2, 7)), 3)
    with pytest.raises(ValueError, match="indices"):
        ops.max_unpool2d(Tensor(rand(1, 1, 2, 2)), Tensor(np.full((1, 1, 2, 2), 16)), 2)
    with pytest.raises(TypeError, match="float"):
        ops.lrn(Tensor(np.ones((1, 2, 2, 2), np.int32)))
    with pytest.raises(ValueError, match="output_padding"):
        ops.conv3d_transpose(Tensor(rand(1, 2, 2, 2, 2)), Tensor(rand(2, 2, 2, 2, 2)),
                             stride=2, output_padding=1)


# ---- resizing and boxes against MindSpore --------------------------------------------------------

SIZE = Tensor(np.array([7, 3], np.int32))
RESIZE_CASES = {}
for _c, _h in ((False, False), (True, False), (False, True)):
    _tag = f"{int(_c)}{int(_h)}"
    RESIZE_CASES[f"ResizeBilinearV2_{_tag}"] = \
        lambda x, c=_c, h=_h: ops.ResizeBilinearV2(c, h)(x, SIZE)
    RESIZE_CASES[f"ResizeBicubic_{_tag}"] = lambda x, c=_c, h=_h: ops.ResizeBicubic(c, h)(x, SIZE)
    RESIZE_CASES[f"ResizeNearestNeighborV2_{_tag}"] = \
        lambda x, c=_c, h=_h: ops.ResizeNearestNeighborV2(c, h)(x, SIZE)
    RESIZE_CASES[f"ResizeNearestNeighbor_{_tag}"] = \
        lambda x, c=_c, h=_h: ops.ResizeNearestNeighbor((3, 9), c, h)(x)
for _m in ("align_corners", "half_pixel"):
    RESIZE_CASES[f"ResizeLinear1D_{_m}"] = \
        lambda x, m=_m: ops.ResizeLinear1D(m)(x, Tensor(np.array([7], np.int64)))
RESIZE_CASES.update({
    "UpsampleNearest3D_size": lambda x: ops.UpsampleNearest3D()(x, (3, 5, 6)),
    "UpsampleNearest3D_scales": lambda x: ops.UpsampleNearest3D()(x, None, [1.5, 2.0, 1.3]),
    "UpsampleTrilinear3D_size": lambda x: ops.UpsampleTrilinear3D()(x, (3, 5, 6)),
    "UpsampleTrilinear3D_ac": lambda x: ops.UpsampleTrilinear3D(True)(x, (3, 5, 6)),
    "UpsampleTrilinear3D_scales": lambda x: ops.UpsampleTrilinear3D()(x, None, [1.5, 2.0, 1.3]),
})
for _k in ("lanczos1", "lanczos3", "lanczos5", "gaussian", "box", "triangle", "keyscubic",
           "mitchellcubic"):
    for _a in (True, False):
        RESIZE_CASES[f"ScaleAndTranslate_{_k}_{int(_a)}"] = \
            lambda x, k=_k, a=_a: ops.ScaleAndTranslate(k, a)(
                x, Tensor(np.array([4, 9], np.int32)), Tensor(np.array([0.7, 1.6], np.float32)),
                Tensor(np.array([0.3, -1.2], np.float32)))
# forward only: MindSpore has no gradient for these
FORWARD_CASES = {
    f"ExtractGlimpse_{int(c)}{int(n)}": (lambda x, o, c=c, n=n: ops.ExtractGlimpse(
        c, n, False, "zero")(x, Tensor(np.array([4, 3], np.int32)), o))
    for c in (True, False) for n in (True, False)}
FORWARD_CASES.update({
    "ResizeArea_0": lambda x: ops.ResizeArea()(x, SIZE),
    "ResizeArea_1": lambda x: ops.ResizeArea(True)(x, Tensor(np.array([3, 7], np.int32))),
    "ResizeArea_int": lambda x: ops.ResizeArea()(x, SIZE),
    "iou": lambda a, g: ops.iou(a, g),
    "iof": lambda a, g: ops.iou(a, g, "iof"),
    "bounding_box_encode": lambda a, g: ops.bounding_box_encode(
        a, g, (0.1, 0.0, -0.1, 0.2), (1.0, 2.0, 0.5, 1.5)),
    "bounding_box_decode": lambda a, d: ops.bounding_box_decode(
        a, d, (12, 9), (0.1, 0.0, -0.1, 0.2), (1.0, 2.0, 0.5, 1.5), 0.05),
    "check_valid": lambda b, m: ops.check_valid(b, m),
    "NMSWithMask": lambda b: ops.NMSWithMask(0.3)(b),
    "NonMaxSuppressionWithOverlaps": lambda o, s: ops.NonMaxSuppressionWithOverlaps()(
        o, s, Tensor(5, ms.int32), Tensor(0.6, ms.float32), Tensor(0.2, ms.float32)),
    "NonMaxSuppressionWithOverlaps_ties": lambda o, s: ops.NonMaxSuppressionWithOverlaps()(
        o, s, Tensor(6, ms.int32), Tensor(0.5, ms.float32), Tensor(0.25, ms.float32)),
    "CombinedNonMaxSuppression_10": lambda b, s: ops.CombinedNonMaxSuppression(True, False)(
        b, s, Tensor(2, ms.int32), Tensor(5, ms.int32), Tensor(0.3, ms.float32),
        Tensor(0.2, ms.float32)),
    "CombinedNonMaxSuppression_01": lambda b, s: ops.CombinedNonMaxSuppression(False, True)(
        b, s, Tensor(2, ms.int32), Tensor(5, ms.int32), Tensor(0.3, ms.float32),
        Tensor(0.2, ms.float32)),
    # MindSpore's CPU gradient of 'bilinear_v2' is the 'bilinear' method's (it does not match
    # this forward); minispore's is the forward's own (image only), checked numerically below
    "crop_and_resize_v2": lambda x, b, i: ops.crop_and_resize(x, b, i, (3, 4), "bilinear_v2"),
    "CombinedNonMaxSuppression_shared": lambda b, s: ops.CombinedNonMaxSuppression()(
        b, s, Tensor(3, ms.int32), Tensor(4, ms.int32), Tensor(0.5, ms.float32),
        Tensor(0.1, ms.float32)),
})


@pytest.mark.parametrize("name", sorted(RESIZE_CASES))
def test_resize_matches_mindspore(name):
    if name == "ResizeNearestNeighbor_01":
        # MindSpore 2.10's CPU kernel of ResizeNearestNeighbor ignores half_pixel_centers (it
        # gives the legacy result); minispore centres pixels as ResizeNearestNeighborV2 does.
        x = _args(name)[0]
        want = ops.ResizeNearestNeighborV2(False, True)(x, (3, 9))
        np.testing.assert_array_equal(RESIZE_CASES[name](x).asnumpy(), want.asnumpy())
        legacy = ops.ResizeNearestNeighbor((3, 9))(x).asnumpy()
        np.testing.assert_array_equal(legacy, DATA[f"{name}_out0"])
        return
    _compare(name, RESIZE_CASES[name])


@pytest.mark.parametrize("name", sorted(FORWARD_CASES))
def test_forward_matches_mindspore(name):
    _compare(name, FORWARD_CASES[name], ())


# ---- sampling, crops and colour against MindSpore ------------------------------------------------

SAMPLE_CASES = {}  # name -> (fn, differentiated positions)
for _mode in ("bilinear", "nearest"):
    for _pad in ("zeros", "border", "reflection"):
        for _c in (False, True):
            SAMPLE_CASES[f"grid_sample_{_mode}_{_pad}_{int(_c)}"] = (
                lambda x, g, m=_mode, p=_pad, c=_c: ops.grid_sample(x, g, m, p, c),
                (0, 1) if _mode == "bilinear" else (0,))
SAMPLE_CASES.update({
    "GridSampler3D": (lambda x, g: ops.GridSampler3D("bilinear", "border", True)(x, g), (0, 1)),
    "GridSampler3D_zeros": (lambda x, g: ops.GridSampler3D()(x, g), (0, 1)),
    "affine_grid": (lambda t: ops.affine_grid(t, (2, 1, 3, 4)), (0,)),
    "affine_grid_ac": (lambda t: ops.affine_grid(t, (2, 1, 3, 4), True), (0,)),
    "AffineGrid_3d": (lambda t: ops.AffineGrid()(t, (1, 1, 2, 3, 4)), (0,)),
    "crop_and_resize": (lambda x, b, i: ops.crop_and_resize(x, b, i, (3, 4)), (0, 1)),
    "crop_and_resize_one": (lambda x, b, i: ops.crop_and_resize(x, b, i, (1, 3), "bilinear", -1.0),
                            (0, 1)),
    "CropAndResize_nearest": (lambda x, b, i: ops.CropAndResize("nearest", 0.5)(x, b, i, (4, 3)),
                              (0,)),
    "ROIAlign": (lambda f, r: ops.ROIAlign(2, 3, 1.0, 2, 1)(f, r), (0,)),
    "ROIAlign_adaptive": (lambda f, r: ops.ROIAlign(3, 2, 1.0, 0, 0)(f, r), (0,)),
    "RGBToHSV": (lambda x: ops.RGBToHSV()(x), (0,)),
    "HSVToRGB": (lambda x: ops.HSVToRGB()(x), ()),
    "AdjustHue": (lambda x: ops.AdjustHue()(x, Tensor(0.3, ms.float32)), ()),
    "AdjustHue_neg": (lambda x: ops.AdjustHue()(x, Tensor(-0.45, ms.float32)), ()),
    "AdjustSaturation": (lambda x: ops.AdjustSaturation()(x, Tensor(1.7, ms.float32)), ()),
    "AdjustSaturation_low": (lambda x: ops.AdjustSaturation()(x, Tensor(0.4, ms.float32)), ()),
    "ROIAlign_reversed": (lambda f, r: ops.ROIAlign(2, 2, 1.0, 2, 1)(f, r), (0,)),
    "crop_and_resize_nearest_row": (lambda x, b, i: ops.crop_and_resize(
        x, b, i, (1, 4), "nearest", 0.25), ()),
    "ScaleAndTranslate_box_down": (lambda x: ops.ScaleAndTranslate("box", True)(
        x, Tensor(np.array([2, 2], np.int32)), Tensor(np.array([0.4, 0.3], np.float32)),
        Tensor(np.array([0.0, 1.5], np.float32))), (0,)),
    "DeformableOffsets": (lambda x, o: ops.DeformableOffsets(
        (1, 1, 1, 2), (1, 0, 1, 1), (2, 3), (1, 1, 1, 1), "NCHW", 2)(x, o), (0, 1)),
    "deformable_conv2d": (lambda x, w, o: ops.deformable_conv2d(
        x, w, o, (2, 3), (1, 1, 1, 2), (1, 0, 1, 1), None, (1, 1, 1, 1), 2, 2), (0, 1, 2)),
})


@pytest.mark.parametrize("name", sorted(SAMPLE_CASES))
def test_sampling_matches_mindspore(name):
    fn, diff = SAMPLE_CASES[name]
    if name == "RGBToHSV":
        # the first three pixels are a grey, black and a tied maximum: points where the
        # conversion is not differentiable and MindSpore's subgradient is a convention of its
        # own; the values there, and every gradient elsewhere, must match
        _compare(name, fn, ())
        x, g = _args(name)[0], Tensor(DATA[f"{name}_g"])
        dx = ms.grad(lambda t: (fn(t) * g).sum())(x).asnumpy()
        np.testing.assert_allclose(dx[0, 0, 3:], DATA[f"{name}_d0"][0, 0, 3:], rtol=1e-5,
                                   atol=2e-5)
        np.testing.assert_allclose(dx[1:], DATA[f"{name}_d0"][1:], rtol=1e-5, atol=2e-5)
        np.testing.assert_allclose(dx[0, 1:], DATA[f"{name}_d0"][0, 1:], rtol=1e-5, atol=2e-5)
        return
    if name == "ROIAlign_adaptive":
        # MindSpore's adaptive grid (sample_num=0) rounds the bin size down and its CPU kernel
        # gives NaN (zero samples) for region 0, smaller than a bin; minispore takes one sample
        # per bin side there, and matches the other regions
        f, r = _args(name)
        out = fn(f, r).asnumpy()
        np.testing.assert_allclose(out[1:], DATA[f"{name}_out0"][1:], rtol=1e-5, atol=2e-5)
        assert np.isnan(DATA[f"{name}_out0"][0]).all()
        np.testing.assert_allclose(out[:1], ops.ROIAlign(3, 2, 1.0, 1, 0)(f, r[:1]).asnumpy(),
                                   rtol=1e-6)
        return
    _compare(name, fn, diff, atol=2e-5)


IMG = rand(1, 2, 4, 3)
GRID = np.random.default_rng(3).uniform(-1.3, 1.3, (1, 3, 2, 2))
IMAGE_GRAD_CASES = {
    "ResizeBilinearV2": (lambda x: ops.ResizeBilinearV2(False, True)(x, (6, 5)), [IMG]),
    "ResizeBicubic": (lambda x: ops.ResizeBicubic()(x, (3, 5)), [IMG]),
    "ResizeNearestNeighbor": (lambda x: ops.ResizeNearestNeighbor((7, 2), True)(x), [IMG]),
    "ResizeLinear1D": (lambda x: ops.ResizeLinear1D("half_pixel")(x, (5,)), [rand(2, 2, 3)]),
    "UpsampleTrilinear3D": (lambda x: ops.UpsampleTrilinear3D()(x, (3, 2, 4)),
                            [rand(1, 2, 2, 3, 2)]),
    "UpsampleNearest3D": (lambda x: ops.UpsampleNearest3D()(x, None, [1.5, 1.0, 2.0]),
                          [rand(1, 2, 2, 3, 2)]),
    "grid_sample_zeros": (lambda x, g: ops.grid_sample(x, g), [IMG, GRID]),
    "grid_sample_border": (lambda x, g: ops.grid_sample(x, g, padding_mode="border",
                                                        align_corners=True), [IMG, GRID]),
    "grid_sample_reflection": (lambda x, g: ops.grid_sample(x, g, padding_mode="reflection"),
                               [IMG, GRID]),
    "grid_sample_nearest": (lambda x, g: ops.grid_sample(x, g, "nearest"), [IMG, GRID]),
    "GridSampler3D": (lambda x, g: ops.GridSampler3D()(x, g),
                      [rand(1, 1, 2, 3, 2),
                       np.random.default_rng(4).uniform(-1, 1, (1, 2, 1, 2, 3))]),
    "affine_grid": (lambda t: ops.affine_grid(t, (1, 1, 2, 3)), [rand(1, 2, 3)]),
    "ROIAlign": (lambda f: ops.ROIAlign(2, 2, 0.5, 2)(
        f, Tensor(np.array([[0, 1.0, 0.5, 5.2, 6.1]]))), [rand(1, 2, 4, 3)]),
    "RGBToHSV": (lambda x: ops.RGBToHSV()(x), [np.random.default_rng(5).uniform(0, 1, (2, 3, 3))]),
    "HSVToRGB": (lambda x: ops.HSVToRGB()(x),
                 [np.random.default_rng(6).uniform(0.05, 0.95, (1, 2, 3, 3))]),
    "AdjustHue": (lambda x: ops.AdjustHue()(x, 0.3),
                  [np.random.default_rng(7).uniform(0, 1, (1, 2, 3, 3))]),
    "AdjustSaturation": (lambda x: ops.AdjustSaturation()(x, 0.6),
                         [np.random.default_rng(8).uniform(0, 1, (1, 2, 3, 3))]),
    "deformable_conv2d": (lambda x, w, o: ops.deformable_conv2d(
        x, w, o, (2, 2), (1, 1, 1, 1), (1, 0, 0, 1), Tensor(np.ones(2))),
        [rand(1, 2, 3, 3), rand(2, 2, 2, 2, seed=1), rand(1, 12, 3, 3, seed=2)]),
}


@pytest.mark.parametrize("name", sorted(IMAGE_GRAD_CASES))
def test_image_second_order_gradients(name):
    fn, args = IMAGE_GRAD_CASES[name]
    check_grads(fn, [Tensor(a) for a in args], order=2)


def test_float32_only_outputs():
    # as MindSpore's: ResizeArea and crop_and_resize give float32 for any input dtype
    x = Tensor(rand(1, 4, 3, 2))
    assert ops.ResizeArea()(x, (2, 5)).dtype == ms.float32
    out = ops.crop_and_resize(x, Tensor(np.array([[0.1, 0.2, 0.9, 0.8]], np.float32)),
                              Tensor(np.array([0], np.int32)), (2, 2))
    assert out.dtype == ms.float32


def test_image_errors():
    x = Tensor(rand(1, 2, 4, 3))
    with pytest.raises(ValueError, match="align_corners"):
        ops.ResizeBilinearV2(True, True)
    with pytest.raises(TypeError, match="float"):
        ops.ResizeBicubic()(Tensor(np.ones((1, 1, 2, 2), np.int32)), (3, 3))
    with pytest.raises(ValueError, match="size"):
        ops.ResizeBilinearV2()(x, (0, 3))
    with pytest.raises(ValueError, match="grid"):
        ops.grid_sample(x, Tensor(rand(1, 2, 2, 3)))
    with pytest.raises(ValueError, match="mode"):
        ops.grid_sample(x, Tensor(rand(1, 2, 2, 2)), "area")
    with pytest.raises(ValueError, match="theta"):
        ops.affine_grid(Tensor(rand(1, 2, 3)), (1, 1, 2, 3, 4))
    with pytest.raises(ValueError, match="box_indices"):
        ops.crop_and_resize(Tensor(rand(1, 4, 3, 2)), Tensor(np.zeros((1, 4), np.float32)),
                            Tensor(np.array([1], np.int32)), (2, 2))
    with pytest.raises(ValueError, match="rois"):
        ops.ROIAlign(2, 2, 1.0)(x, Tensor(np.zeros((1, 4))))
    with pytest.raises(ValueError, match="3-D"):
        ops.AdjustHue()(Tensor(rand(2, 3)), 0.5)
    np.testing.assert_allclose(ops.AdjustHue()(Tensor(rand(2, 2, 3)), 1.25).asnumpy(),
                               ops.AdjustHue()(Tensor(rand(2, 2, 3)), 0.25).asnumpy(), atol=1e-12)
    with pytest.raises(ValueError, match="3 channels"):
        ops.RGBToHSV()(Tensor(rand(2, 4)))
    with pytest.raises(ValueError, match="mode"):
        ops.IOU("giou")


# ---- fractional pooling with random boundaries ---------------------------------------------------

@pytest.mark.parametrize("cls", ["FractionalMaxPool", "FractionalAvgPool"])
@pytest.mark.parametrize("tag", ["00", "01", "10", "11"])
def test_fractional_pool_windows_match_mindspore(cls, tag):
    """MindSpore's boundaries come from its own generator: pooling between the boundaries it
    returned must give its values (and, for the mean, its gradient)."""
    name = f"{cls}_{tag}"
    prim = getattr(ops, cls)([1.0, 1.6, 1.4, 1.0], tag[0] == "1", tag[1] == "1")
    rows, cols = DATA[f"{name}_out1"], DATA[f"{name}_out2"]
    _compare(name, lambda x: prim.pool_between(x, rows, cols),
             (0,) if cls == "FractionalAvgPool" else ())
    out = prim(_args(name)[0])
    assert out[0].shape == DATA[f"{name}_out0"].shape and out[1].dtype == ms.int64
    for seq, n in ((out[1].asnumpy(), 9), (out[2].asnumpy(), 8)):
        assert seq[0] == 0 and seq[-1] == n and np.all(np.diff(seq) >= 1)


def test_fractional_pool_gradients_and_checks():
    x = Tensor(_untied(1, 7, 6, 2))
    for cls in (ops.FractionalMaxPool, ops.FractionalAvgPool):
        prim = cls([1.0, 1.5, 1.4, 1.0], False, True)
        check_grads(lambda t: prim.pool_between(t, [0, 2, 3, 5, 7], [0, 1, 3, 4, 6]), [x])
        with pytest.raises(ValueError, match="seed"):
            cls([1.0, 1.5, 1.5, 1.0], seed=1)
        with pytest.raises(ValueError, match="pooling_ratio"):
            cls([1.0, 0.5, 1.5, 1.0])
    ms.set_seed(5)
    first = ops.FractionalMaxPool([1.0, 1.5, 1.4, 1.0])(x)
    ms.set_seed(5)
    again = ops.FractionalMaxPool([1.0, 1.5, 1.4, 1.0])(x)
    np.testing.assert_array_equal(first[1].asnumpy(), again[1].asnumpy())


# ---- morphological dilation (MindSpore 2.10's CPU Dilation2D fails on any pad_mode: "Cast
# failed, original value: SAME"; checked against the definition) -------------------------------

def _naive_dilation(x, f, stride, dilation, same):
    n, c, h, w = x.shape
    kh, kw = f.shape[1:]
    (sh, sw), (dh, dw) = stride, dilation
    if same:
        ho, wo = -(-h // sh), -(-w // sw)
        top = max((ho - 1) * sh + (kh - 1) * dh + 1 - h, 0) // 2
        left = max((wo - 1) * sw + (kw - 1) * dw + 1 - w, 0) // 2
    else:
        ho, wo = (h - dh * (kh - 1) - 1) // sh + 1, (w - dw * (kw - 1) - 1) // sw + 1
        top = left = 0
    out = np.full((n, c, ho, wo), -np.inf)
    for y in range(ho):
        for z in range(wo):
            for i in range(kh):
                for j in range(kw):
                    r, q = y * sh + i * dh - top, z * sw + j * dw - left
                    if 0 <= r < h and 0 <= q < w:
                        out[:, :, y, z] = np.maximum(out[:, :, y, z], x[:, :, r, q] + f[:, i, j])
    return out


@pytest.mark.parametrize("stride,dilation,mode", [(1, 1, "SAME"), ((1, 1, 2, 1), 2, "same"),
                                                  (2, (1, 2), "VALID"), (1, 1, "valid")])
def test_dilation2d(stride, dilation, mode):
    x, f = _untied(2, 3, 6, 5), _untied(3, 2, 3, seed=1) / 7
    prim = ops.Dilation2D(stride, dilation, mode)
    out = prim(Tensor(x), Tensor(f))
    np.testing.assert_allclose(out.asnumpy(), _naive_dilation(x, f, prim.stride, prim.dilation,
                                                              mode.upper() == "SAME"), rtol=1e-12)
    check_grads(lambda a, b: prim(a, b), [Tensor(x), Tensor(f)], order=2)
    with pytest.raises(ValueError, match="channels"):
        prim(Tensor(x), Tensor(f[:2]))


def test_extract_glimpse_noise():
    x = Tensor(rand(1, 4, 4, 2))
    out = ops.ExtractGlimpse()(x, Tensor(np.array([6, 6], np.int32)),
                               Tensor(np.zeros((1, 2), np.float32))).asnumpy()
    np.testing.assert_array_equal(out[0, 1:5, 1:5], x.asnumpy()[0])
    lo, hi = x.asnumpy().min(axis=(0, 1, 2)), x.asnumpy().max(axis=(0, 1, 2))
    assert np.all((out >= lo) & (out <= hi))
    with pytest.raises(ValueError, match="uniform"):
        ops.ExtractGlimpse(noise="gaussian")


def test_integer_inputs_as_mindspore():
    """Refused where MindSpore refuses integer input; elsewhere integer results (means
    truncated) or float32 ones, as MindSpore gives."""
    i5 = Tensor(np.arange(2 * 4 * 4 * 4).reshape(1, 2, 4, 4, 4).astype(np.int32) % 7)
    i4 = Tensor(np.arange(2 * 4 * 4).reshape(1, 2, 4, 4).astype(np.int32) % 5)
    for fn in (lambda: ops.avg_pool3d(i5, 2), lambda: ops.MaxPool3D(2, 2)(i5),
               lambda: ops.AvgPool3D(2, 2)(i5), lambda: ops.AdaptiveAvgPool2D(2)(i4),
               lambda: ops.AdaptiveMaxPool2D((2, 2))(i4),
               lambda: ops.adaptive_max_pool1d(Tensor(np.ones((1, 2, 4), np.int32)), 2),
               lambda: ops.UpsampleNearest3D()(i5, (3, 3, 3)),
               lambda: ops.UpsampleTrilinear3D()(i5, (3, 3, 3)),
               lambda: ops.conv3d_transpose(i5, i5[:, :, :2, :2, :2]),
               lambda: ops.RGBToHSV()(Tensor(np.ones((2, 3), np.int32)))):
        with pytest.raises(TypeError):
            fn()
    assert ops.max_pool3d(i5, 2).dtype == ms.int32
    mean = ops.adaptive_avg_pool3d(i5 - 3, (2, 3, 2))
    want = ops.adaptive_avg_pool3d(Tensor((i5.asnumpy() - 3).astype(np.float64)), (2, 3, 2))
    assert mean.dtype == ms.int32
    np.testing.assert_array_equal(mean.asnumpy(), np.trunc(want.asnumpy()))
    assert ops.lp_pool2d(i4, 2, 2).dtype == ms.float32
    nhwc = Tensor(i4.asnumpy().transpose(0, 2, 3, 1))
    y, _, _ = ops.FractionalAvgPool([1.0, 1.5, 1.5, 1.0])(nhwc)
    assert y.dtype == ms.int32
    assert ops.ResizeNearestNeighbor((3, 5))(i4).dtype == ms.int32


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bilinear_v2"])
def test_crop_and_resize_image_gradient_is_the_adjoint(method):
    """crop_and_resize is linear in the image (float32 only, as MindSpore's): its VJP must be
    the adjoint of the forward, <v, f(x)> = <f^T(v), x>."""
    x = Tensor(rand(2, 5, 6, 2).astype(np.float32))
    boxes = Tensor(np.array([[0.1, 0.25, 0.7, 0.9], [0.9, -0.1, 0.2, 0.6]], np.float32))
    idx = Tensor(np.array([1, 0], np.int32))

    def fn(t):
        return ops.crop_and_resize(t, boxes, idx, (3, 4), method, 0.0)

    v = Tensor(rand(2, 3, 4, 2, seed=1).astype(np.float32))
    vjp = ms.grad(lambda t: (fn(t) * v).sum())(x)
    np.testing.assert_allclose(float((fn(x) * v).sum().asnumpy()),
                               float((vjp * x).sum().asnumpy()), rtol=1e-5)
    if method == "bilinear_v2":  # positions piecewise constant in the boxes: no box gradient
        db = ms.grad(lambda b: (ops.crop_and_resize(x, b, idx, (3, 4), method) * v).sum())(boxes)
        assert not np.any(db.asnumpy())
