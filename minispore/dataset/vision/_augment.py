"""Learned and random augmentation policies of `mindspore.dataset.vision`: AutoAugment (the
ImageNet, CIFAR-10 and SVHN policies of the AutoAugment paper), RandAugment and
TrivialAugmentWide, over the usual 14 operations (shears, translations, rotation, colour,
contrast, brightness, sharpness, posterize, solarize, auto-contrast, equalize, invert)."""
import math

import numpy as np

from ..._validator import check_int_range
from .._parallel import current_rng
from ..transforms.transforms import TensorOperation
from . import _color, _geometry
from ._core import _check_mode
from ._enums import AutoAugmentPolicy, Inter

__all__ = ["AutoAugment", "RandAugment", "TrivialAugmentWide"]

_POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
        (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)),
        (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
        (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
        (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
        (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)),
        (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    ],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)),
        (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)),
        (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)),
        (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)),
        (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)),
        (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)),
        (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)),
        (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)),
        (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)),
        (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)),
        (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)),
        (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
    ],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)),
        (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)),
        (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)),
        (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)),
        (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)),
        (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)),
        (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)),
        (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None)),
    ],
}

_SIGNED = {"ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color",
           "Contrast", "Sharpness"}


def _space(bins, h, w, wide):
    """Magnitude table of each operation: `bins` values (None: no magnitude)."""
    shear, rot, enhance = (0.99, 135.0, 0.99) if wide else (0.3, 30.0, 0.9)
    tx, ty = (32.0, 32.0) if wide else (150.0 / 331.0 * w, 150.0 / 331.0 * h)
    steps = 6 if wide else 4
    return {
        "Identity": None,
        "ShearX": np.linspace(0.0, shear, bins), "ShearY": np.linspace(0.0, shear, bins),
        "TranslateX": np.linspace(0.0, tx, bins), "TranslateY": np.linspace(0.0, ty, bins),
        "Rotate": np.linspace(0.0, rot, bins),
        "Brightness": np.linspace(0.0, enhance, bins), "Color": np.linspace(0.0, enhance, bins),
        "Contrast": np.linspace(0.0, enhance, bins), "Sharpness": np.linspace(0.0, enhance, bins),
        "Posterize": 8 - np.round(np.arange(bins) / ((bins - 1) / steps)).astype(np.int64),
        "Solarize": np.linspace(255.0, 0.0, bins),
        "AutoContrast": None, "Equalize": None,
    }


def _apply_op(img, name, mag, inter, fill):
    """One augmentation operation of magnitude `mag` on an HWC uint8 RGB image."""
    H, W = img.shape[:2]
    if name == "ShearX":
        return _geometry._affine(img, 0.0, (0.0, 0.0), 1.0, (math.degrees(math.atan(mag)), 0.0),
                                 inter, fill)
    if name == "ShearY":
        return _geometry._affine(img, 0.0, (0.0, 0.0), 1.0, (0.0, math.degrees(math.atan(mag))),
                                 inter, fill)
    if name == "TranslateX":
        return _geometry._affine(img, 0.0, (int(mag) / W, 0.0), 1.0, (0.0, 0.0), inter, fill)
    if name == "TranslateY":
        return _geometry._affine(img, 0.0, (0.0, int(mag) / H), 1.0, (0.0, 0.0), inter, fill)
    if name == "Rotate":
        return _geometry._rotate(img, mag, inter, False, None, fill)
    if name == "Brightness":
        return _color.AdjustBrightness(max(0.0, 1.0 + mag))(img)
    if name == "Color":
        return _color.AdjustSaturation(max(0.0, 1.0 + mag))(img)
    if name == "Contrast":
        return _color.AdjustContrast(max(0.0, 1.0 + mag))(img)
    if name == "Sharpness":
        return _color.AdjustSharpness(max(0.0, 1.0 + mag))(img)
    if name == "Posterize":
        return _color.Posterize(int(mag))(img)
    if name == "Solarize":
        return _color._solarize(img, mag, 255)
    if name == "AutoContrast":
        return _color._autocontrast(img, 0.0, ())
    if name == "Equalize":
        return _color._equalize(img)
    if name == "Invert":
        return 255 - img
    return img


def _check_common(owner, interpolation, fill_value):
    inter = _geometry._check_warp_inter(owner, interpolation, "interpolation")
    return inter, _geometry._check_fill3(owner, fill_value)


def _rgb_u8(owner, img):
    img = _color._rgb(owner, img)
    if img.dtype != np.uint8:
        raise TypeError(f"For '{owner}', the image must be uint8, but got {img.dtype}")
    return img


class AutoAugment(TensorOperation):
    """Apply one of the 25 sub-policies (two operations, each with its probability and
    magnitude) learned on ImageNet, CIFAR-10 or SVHN; signed magnitudes take a random sign.

    Args:
        policy (AutoAugmentPolicy): IMAGENET (default), CIFAR10 or SVHN.
        interpolation (Inter): NEAREST (default) or BILINEAR, for the geometric operations.
        fill_value (int | tuple): the colour of uncovered areas.
    """

    _random = True

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST,
                 fill_value=0):
        self.policy = _check_mode("AutoAugment", policy, AutoAugmentPolicy, "policy")
        self.interpolation, self.fill_value = _check_common("AutoAugment", interpolation,
                                                            fill_value)

    def __call__(self, img):
        img = _rgb_u8("AutoAugment", img)
        rng = current_rng()
        space = _space(10, img.shape[0], img.shape[1], wide=False)
        sub = _POLICIES[self.policy][int(rng.integers(len(_POLICIES[self.policy])))]
        for name, prob, level in sub:
            if rng.random() > prob:
                continue
            table = space.get(name)
            mag = 0.0 if table is None or level is None else float(table[level])
            if name in _SIGNED and rng.random() < 0.5:
                mag = -mag
            img = _apply_op(img, name, mag, self.interpolation, self.fill_value)
        return img


_OPS = ("Identity", "ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness",
        "Color", "Contrast", "Sharpness", "Posterize", "Solarize", "AutoContrast", "Equalize")


class RandAugment(TensorOperation):
    """Apply `num_ops` operations drawn uniformly (with replacement) from the 14, each at the
    fixed `magnitude` of `num_magnitude_bins` (random sign where signed)."""

    _random = True

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=Inter.NEAREST,
                 fill_value=0):
        self.num_ops = check_int_range(num_ops, "num_ops", "RandAugment", 0)
        self.num_magnitude_bins = check_int_range(num_magnitude_bins, "num_magnitude_bins",
                                                  "RandAugment", 2)
        self.magnitude = check_int_range(magnitude, "magnitude", "RandAugment", 0,
                                         self.num_magnitude_bins, high_inclusive=False)
        self.interpolation, self.fill_value = _check_common("RandAugment", interpolation,
                                                            fill_value)

    def __call__(self, img):
        img = _rgb_u8("RandAugment", img)
        rng = current_rng()
        space = _space(self.num_magnitude_bins, img.shape[0], img.shape[1], wide=False)
        for _ in range(self.num_ops):
            name = _OPS[int(rng.integers(len(_OPS)))]
            table = space[name]
            mag = 0.0 if table is None else float(table[self.magnitude])
            if name in _SIGNED and rng.random() < 0.5:
                mag = -mag
            img = _apply_op(img, name, mag, self.interpolation, self.fill_value)
        return img


class TrivialAugmentWide(TensorOperation):
    """Apply one operation drawn uniformly from the 14 at a magnitude drawn uniformly from
    `num_magnitude_bins` (the wide ranges of TrivialAugment)."""

    _random = True

    def __init__(self, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        self.num_magnitude_bins = check_int_range(num_magnitude_bins, "num_magnitude_bins",
                                                  "TrivialAugmentWide", 2)
        self.interpolation, self.fill_value = _check_common("TrivialAugmentWide", interpolation,
                                                            fill_value)

    def __call__(self, img):
        img = _rgb_u8("TrivialAugmentWide", img)
        rng = current_rng()
        space = _space(self.num_magnitude_bins, img.shape[0], img.shape[1], wide=True)
        name = _OPS[int(rng.integers(len(_OPS)))]
        table = space[name]
        mag = 0.0 if table is None else float(table[int(rng.integers(self.num_magnitude_bins))])
        if name in _SIGNED and rng.random() < 0.5:
            mag = -mag
        return _apply_op(img, name, mag, self.interpolation, self.fill_value)
