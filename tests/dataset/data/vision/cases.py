"""Deterministic vision cases shared by make_mindspore_vision_extra.py (run with real MindSpore)
and test_vision_extra.py: key -> (transform expression over `vision`, input name)."""
import numpy as np


def inputs():
    rng = np.random.default_rng(7)
    img = rng.integers(0, 256, (20, 30, 3), dtype=np.uint8)
    lowc = (rng.integers(60, 140, (12, 10, 3))).astype(np.uint8)
    smooth = (np.linspace(0, 255, 24 * 32).reshape(24, 32, 1) * [1.0, 0.7, 0.3]).astype(np.uint8)
    return {"img": img, "lowc": lowc, "smooth": smooth,
            "gray": rng.integers(0, 256, (9, 11), dtype=np.uint8),
            "fimg": rng.random((8, 10, 3)).astype(np.float32),
            "rgba": rng.integers(0, 256, (6, 7, 4), dtype=np.uint8),
            "chw": rng.random((3, 6, 5)).astype(np.float32),
            "tiny": rng.random((1, 2, 3)),
            "f255": (rng.random((8, 10, 3)) * 255).astype(np.float32),
            "boxes": np.array([[1, 2, 3, 4, 7], [0, 0, 30, 20, 1], [5.5, 3.25, 2, 2, 3],
                               [20, 10, 9.5, 9.75, 4]], np.float32)}


CASES = {}
for _f in (0.0, 0.3, 0.5, 1.3, 1.7, 2.0):
    CASES[f"brightness_{_f}"] = (f"vision.AdjustBrightness({_f})", "img")
    CASES[f"contrast_{_f}"] = (f"vision.AdjustContrast({_f})", "img")
    CASES[f"saturation_{_f}"] = (f"vision.AdjustSaturation({_f})", "img")
    CASES[f"sharpness_{_f}"] = (f"vision.AdjustSharpness({_f})", "img")
for _h in (-0.5, -0.2, 0.0, 0.1, 0.33, 0.5):
    CASES[f"hue_{_h}"] = (f"vision.AdjustHue({_h})", "img")
for _g, _gain in ((0.5, 1), (2.0, 1.0), (1.0, 0.8), (1.5, 1.2)):
    CASES[f"gamma_{_g}_{_gain}"] = (f"vision.AdjustGamma({_g}, {_gain})", "img")
    CASES[f"gamma_f_{_g}_{_gain}"] = (f"vision.AdjustGamma({_g}, {_gain})", "fimg")
CASES["gamma_gray"] = ("vision.AdjustGamma(0.7)", "gray")
CASES["brightness_f"] = ("vision.AdjustBrightness(1.3)", "fimg")
CASES["contrast_f"] = ("vision.AdjustContrast(0.6)", "fimg")
CASES["saturation_f"] = ("vision.AdjustSaturation(1.6)", "fimg")
CASES["sharpness_gray"] = ("vision.AdjustSharpness(1.8)", "gray")
CASES["autocontrast"] = ("vision.AutoContrast()", "lowc")
CASES["autocontrast_cut"] = ("vision.AutoContrast(cutoff=10.0)", "img")
CASES["autocontrast_ignore"] = ("vision.AutoContrast(cutoff=3.0, ignore=[60, 61, 139])", "lowc")
CASES["autocontrast_gray"] = ("vision.AutoContrast(5.0)", "gray")
CASES["equalize"] = ("vision.Equalize()", "img")
CASES["equalize_lowc"] = ("vision.Equalize()", "lowc")
CASES["equalize_gray"] = ("vision.Equalize()", "gray")
CASES["invert"] = ("vision.Invert()", "img")
for _b in (0, 1, 3, 8):
    CASES[f"posterize_{_b}"] = (f"vision.Posterize({_b})", "img")
CASES["solarize_100"] = ("vision.Solarize(100)", "img")
CASES["solarize_range"] = ("vision.Solarize((50.0, 150.0))", "img")
CASES["solarize_gray"] = ("vision.Solarize(128)", "gray")
for _m in ("COLOR_RGB2BGR", "COLOR_RGB2GRAY", "COLOR_BGR2GRAY", "COLOR_RGB2RGBA",
           "COLOR_RGB2BGRA"):
    CASES[f"convert_{_m}"] = (f"vision.ConvertColor(vision.ConvertMode.{_m})", "img")
for _m in ("COLOR_RGBA2RGB", "COLOR_RGBA2BGR", "COLOR_RGBA2GRAY", "COLOR_BGRA2GRAY",
           "COLOR_RGBA2BGRA"):
    CASES[f"convert_{_m}"] = (f"vision.ConvertColor(vision.ConvertMode.{_m})", "rgba")
for _m in ("COLOR_GRAY2RGB", "COLOR_GRAY2RGBA"):
    CASES[f"convert_{_m}"] = (f"vision.ConvertColor(vision.ConvertMode.{_m})", "gray")
CASES["rgb2hsv_chw"] = ("vision.RgbToHsv()", "chw")
CASES["rgb2hsv_hwc"] = ("vision.RgbToHsv(is_hwc=True)", "fimg")
CASES["hsv2rgb_chw"] = ("vision.HsvToRgb()", "chw")
CASES["hflip"] = ("vision.HorizontalFlip()", "img")
CASES["vflip_gray"] = ("vision.VerticalFlip()", "gray")
CASES["crop"] = ("vision.Crop((3, 4), (5, 6))", "img")
CASES["crop_int"] = ("vision.Crop((1, 2), 4)", "gray")
CASES["resizedcrop"] = ("vision.ResizedCrop(2, 3, 10, 12, (7, 9))", "img")
CASES["resizedcrop_int_nearest"] = ("vision.ResizedCrop(0, 1, 6, 7, 4, vision.Inter.NEAREST)",
                                    "gray")
CASES["resizedcrop_cubic"] = ("vision.ResizedCrop(1, 1, 12, 20, (25, 9), vision.Inter.BICUBIC)",
                              "img")
CASES["padtosize"] = ("vision.PadToSize([25, 33])", "img")
CASES["padtosize_offset"] = ("vision.PadToSize([24, 31], offset=[1, 0], fill_value=(5, 6, 7))",
                             "img")
CASES["padtosize_edge"] = ("vision.PadToSize(13, offset=1, padding_mode=vision.Border.EDGE)",
                           "gray")
CASES["padtosize_reflect"] = ("vision.PadToSize((12, 15), padding_mode=vision.Border.REFLECT)",
                              "gray")
CASES["normalizepad_chw16"] = (("vision.NormalizePad([0.5, 0.4, 0.3], [0.2, 0.25, 0.3], "
                                "dtype='float16', is_hwc=False)"), "chw")
CASES["erase"] = ("vision.Erase(1, 2, 3, 4)", "img")
CASES["erase_rgb"] = ("vision.Erase(5, 6, 10, 20, value=(10, 20.6, 30))", "img")
CASES["erase_round"] = ("vision.Erase(0, 0, 2, 2, value=200.7)", "img")
CASES["erase_float"] = ("vision.Erase(2, 2, 3, 3, value=0.25)", "fimg")
CASES["slice"] = ("vision.SlicePatches(2, 3)", "img")
CASES["slice_pad"] = ("vision.SlicePatches(4, 7, fill_value=9)", "img")
CASES["slice_drop"] = ("vision.SlicePatches(4, 7, vision.SliceMode.DROP)", "gray")
for _k, _s in (("3", "None"), ("5", "None"), ("(3, 7)", "None"), ("9", "None"), ("5", "1.5"),
               ("(5, 3)", "(2.0, 0.7)"), ("11", "3.0")):
    CASES[f"gaussian_{_k}_{_s}"] = (f"vision.GaussianBlur({_k}, {_s})", "img")
CASES["gaussian_gray"] = ("vision.GaussianBlur(5, 1.2)", "gray")
CASES["gaussian_float"] = ("vision.GaussianBlur((7, 5), 1.3)", "fimg")
CASES["linear"] = (("vision.LinearTransformation(np.arange(36.0).reshape(6, 6) / 36, "
                    "np.arange(6.0))"), "tiny")
# Rotate's fill is symmetric here: MindSpore 2.10 paints (r, g, b) as (b, g, r) (see the test).
for _i, (_d, _r, _e, _c, _fill) in enumerate([
        (30, "NEAREST", False, None, 0), (30, "BILINEAR", False, None, 0),
        (-75.5, "BILINEAR", True, None, (10, 20, 10)), (45, "NEAREST", True, None, 7),
        (12, "BILINEAR", False, (3, 4), 0), (90, "NEAREST", False, None, 0),
        (200, "BILINEAR", True, (2.5, 7.25), 0), (-17, "BILINEAR", True, None, 99)]):
    CASES[f"rotate_{_i}"] = (f"vision.Rotate({_d}, vision.Inter.{_r}, {_e}, {_c}, {_fill})",
                             "img")
CASES["rotate_gray"] = ("vision.Rotate(33, vision.Inter.BILINEAR, True)", "gray")
for _i, (_d, _t, _s, _sh, _r) in enumerate([
        (15, [0.2, 0.2], 1.1, [1.0, 1.0], "NEAREST"),
        (15, [0.1, -0.2], 1.1, [1.0, 1.0], "BILINEAR"),
        (-40, [0, 0], 0.8, 0.0, "BILINEAR"), (0, [0.3, 0.05], 1.0, [20.0, -10.0], "NEAREST"),
        (170, [-0.5, 0.25], 1.7, 30.0, "BILINEAR"),
        (-120, [0.0, 0.9], 0.5, [-5.0, 44.0], "NEAREST")]):
    CASES[f"affine_{_i}"] = (f"vision.Affine({_d}, {_t}, {_s}, {_sh}, vision.Inter.{_r})", "img")
CASES["affine_fill"] = ("vision.Affine(25, [0.1, 0.1], 0.7, 5.0, vision.Inter.BILINEAR, 200)",
                        "img")
CASES["affine_gray"] = ("vision.Affine(25, [0.1, 0.1], 0.9, 5.0, vision.Inter.BILINEAR)", "gray")
_PTS = ("[[0, 0], [29, 0], [29, 19], [0, 19]]", "[[2, 3], [27, 0], [29, 17], [4, 19]]",
        "[[5, 1], [20, 4], [25, 15], [1, 18]]")
CASES["perspective_bilinear"] = (f"vision.Perspective({_PTS[0]}, {_PTS[1]})", "img")
CASES["perspective_nearest"] = (f"vision.Perspective({_PTS[0]}, {_PTS[1]}, vision.Inter.NEAREST)",
                                "img")
CASES["perspective_inward"] = (f"vision.Perspective({_PTS[2]}, {_PTS[0]})", "img")
CASES["perspective_gray"] = (f"vision.Perspective({_PTS[1]}, {_PTS[2]})", "gray")
CASES["bbox_hflip"] = ("vision.RandomHorizontalFlipWithBBox(1.0)", "img+boxes")
CASES["bbox_vflip"] = ("vision.RandomVerticalFlipWithBBox(1.0)", "img+boxes")
CASES["bbox_resize"] = ("vision.ResizeWithBBox((10, 60))", "img+boxes")
CASES["bbox_resize_nearest"] = ("vision.ResizeWithBBox((33, 17), vision.Inter.NEAREST)",
                                "img+boxes")
CASES["bbox_crop_padded"] = ("vision.RandomCropWithBBox((24, 36), padding=(3, 2))", "img+boxes")
CASES["bbox_crop_full"] = ("vision.RandomCropWithBBox((20, 30))", "img+boxes")
for _size in ((41, 17), (7, 50), (3, 4), (20, 30), (33, 61)):
    CASES[f"resize_cubic_{_size[0]}x{_size[1]}"] = (
        f"vision.Resize({_size}, vision.Inter.BICUBIC)", "img")
    CASES[f"resize_cubic_gray_{_size[0]}x{_size[1]}"] = (
        f"vision.Resize({_size}, vision.Inter.BICUBIC)", "gray")
for _size in ((10, 15), (7, 9), (41, 17), (5, 4)):
    CASES[f"resize_pilcubic_{_size[0]}x{_size[1]}"] = (
        f"vision.Resize({_size}, vision.Inter.PILCUBIC)", "img")
for _size in ((10, 15), (5, 6), (7, 9), (13, 22), (41, 17), (40, 60), (20, 45), (4, 10)):
    CASES[f"resize_area_{_size[0]}x{_size[1]}"] = (f"vision.Resize({_size}, vision.Inter.AREA)",
                                                   "img")
CASES["resize_area_gray"] = ("vision.Resize((4, 5), vision.Inter.AREA)", "gray")
CASES["resize_area_float"] = ("vision.Resize((3, 7), vision.Inter.AREA)", "fimg")
for _name, _expr in (("sharp", "vision.AdjustSharpness(1.5)"),
                     ("rotate", "vision.Rotate(20, vision.Inter.BILINEAR)"),
                     ("affine", "vision.Affine(10, [0.1, 0.1], 1.1, 3.0, vision.Inter.BILINEAR)"),
                     ("perspective", ("vision.Perspective([[0, 0], [9, 0], [9, 7], [0, 7]], "
                                      "[[1, 1], [8, 0], [9, 6], [0, 7]])")),
                     ("gray", "vision.ConvertColor(vision.ConvertMode.COLOR_RGB2GRAY)"),
                     ("brightness", "vision.AdjustBrightness(1.2)"),
                     ("contrast", "vision.AdjustContrast(1.2)"), ("gamma", "vision.AdjustGamma(0.5)"),
                     ("invert", "vision.Invert()"), ("gaussian", "vision.GaussianBlur(3)")):
    CASES[f"float255_{_name}"] = (_expr, "f255")
for _name, _expr in (("autocontrast", "vision.AutoContrast()"), ("equalize", "vision.Equalize()"),
                     ("posterize", "vision.Posterize(3)"), ("sharp", "vision.AdjustSharpness(1.5)"),
                     ("rotate", "vision.Rotate(20, vision.Inter.BILINEAR)"),
                     ("brightness", "vision.AdjustBrightness(1.2)"), ("gamma", "vision.AdjustGamma(0.5)")):
    CASES[f"gray_{_name}"] = (_expr, "gray")
