"""Random transforms of `mindspore.dataset.vision`: each draws its parameters from the
pipeline's seeded generator (`current_rng`) and applies the matching deterministic transform,
so results depend on the seed, never on the worker count."""
import math
import numbers

import numpy as np

from ..._validator import (
    check_bool,
    check_callable,
    check_float,
    check_float_range,
    check_int_range,
    check_non_negative_float,
    check_positive_int,
    check_sequence,
    is_int,
)
from .._parallel import current_rng
from ..transforms.transforms import TensorOperation
from . import _color, _geometry
from ._core import Decode, Resize, _check_size, _image, _image_2d3d, _resize_hw
from ._enums import Inter

__all__ = ["RandomAdjustSharpness", "RandomAffine", "RandomAutoContrast", "RandomColor",
           "RandomColorAdjust", "RandomCropDecodeResize", "RandomEqualize", "RandomErasing",
           "RandomGrayscale", "RandomInvert", "RandomLighting", "RandomPerspective",
           "RandomPosterize", "RandomResize", "RandomResizedCrop", "RandomRotation",
           "RandomSelectSubpolicy", "RandomSharpness", "RandomSolarize", "UniformAugment",
           "not_random"]


def not_random(func):
    """Mark a Python function as deterministic (`func.random = False`), as MindSpore does so
    that a cache may hold its results; returns the function."""
    check_callable(func, "func", "not_random")
    func.random = False
    return func


def _check_prob(owner, prob):
    return check_float_range(prob, "prob", owner, 0.0, 1.0)


def _hit(prob):
    return current_rng().random() < prob


def _uniform(low, high):
    return float(current_rng().uniform(low, high)) if high > low else float(low)


def _range(owner, value, arg, center=None, low=None, high=None, sym_from=None):
    """(min, max) of a random factor: a number v gives (center - v, center + v) (clamped at
    `low`), or (-v, v) when `sym_from` is 0; a pair is (min, max)."""
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        v = check_non_negative_float(value, arg, owner)
        pair = (-v, v) if sym_from == 0 else (max(low if low is not None else -math.inf,
                                                  center - v), center + v)
    else:
        pair = check_sequence(value, arg, owner, check_float, 2,
                              expected="a number or a sequence of two numbers (min, max)")
    if pair[0] > pair[1]:
        raise ValueError(f"For '{owner}', '{arg}' must be (min, max) with min <= max, but got "
                         f"{value}")
    if (low is not None and pair[0] < low) or (high is not None and pair[1] > high):
        raise ValueError(f"For '{owner}', '{arg}' must lie in [{low}, {high}], but got {value}")
    return tuple(float(p) for p in pair)


class _WithProb(TensorOperation):
    """Apply `self._op` with probability `prob`."""

    _random = True

    def __call__(self, img):
        img = _image_2d3d(type(self).__name__, img)
        return self._op(img) if _hit(self.prob) else img


class RandomAdjustSharpness(_WithProb):
    """`AdjustSharpness(degree)` with probability `prob`."""

    def __init__(self, degree, prob=0.5):
        self.degree = check_non_negative_float(degree, "degree", "RandomAdjustSharpness")
        self.prob = _check_prob("RandomAdjustSharpness", prob)
        self._op = _color.AdjustSharpness(self.degree)


class RandomAutoContrast(_WithProb):
    """`AutoContrast(cutoff, ignore)` with probability `prob`."""

    def __init__(self, cutoff=0.0, ignore=None, prob=0.5):
        self._op = _color.AutoContrast(cutoff, ignore)
        self.cutoff, self.ignore = self._op.cutoff, self._op.ignore
        self.prob = _check_prob("RandomAutoContrast", prob)


class RandomEqualize(_WithProb):
    """`Equalize()` with probability `prob`."""

    def __init__(self, prob=0.5):
        self.prob = _check_prob("RandomEqualize", prob)
        self._op = _color.Equalize()


class RandomInvert(_WithProb):
    """`Invert()` with probability `prob`."""

    def __init__(self, prob=0.5):
        self.prob = _check_prob("RandomInvert", prob)
        self._op = _color.Invert()


class RandomGrayscale(TensorOperation):
    """With probability `prob`, grey an image keeping its channel count (PIL images, or HWC RGB
    arrays)."""

    _random = True

    def __init__(self, prob=0.1):
        self.prob = _check_prob("RandomGrayscale", prob)

    def __call__(self, img):
        if not _hit(self.prob):
            return img
        if type(img).__module__.startswith("PIL."):
            return _color.Grayscale(1 if img.mode == "L" else 3)(img)
        return _color.Grayscale(3)(img)


class _RandomFactor(TensorOperation):
    """Apply `self._apply_factor(img, f)` with f uniform in `self.degrees`."""

    _random = True

    def __call__(self, img):
        img = _image(type(self).__name__, img)
        return self._apply_factor(img, _uniform(*self.degrees))


class RandomColor(_RandomFactor):
    """`AdjustSaturation` by a factor uniform in `degrees` (min, max), non-negative."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _range("RandomColor", degrees, "degrees", low=0.0)

    @staticmethod
    def _apply_factor(img, f):
        return _color.AdjustSaturation(f)(img)


class RandomSharpness(_RandomFactor):
    """`AdjustSharpness` by a factor uniform in `degrees` (min, max), non-negative."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _range("RandomSharpness", degrees, "degrees", low=0.0)

    @staticmethod
    def _apply_factor(img, f):
        return _color.AdjustSharpness(f)(img)


class RandomColorAdjust(TensorOperation):
    """Random brightness, contrast, saturation and hue, applied in a random order (as
    MindSpore does); each factor is uniform in its range. A number b gives [max(0, 1 - b),
    1 + b] (hue h: [-h, h], h <= 0.5); a pair is (min, max)."""

    _random = True

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        owner = "RandomColorAdjust"
        self.brightness = _range(owner, brightness, "brightness", 1.0, low=0.0)
        self.contrast = _range(owner, contrast, "contrast", 1.0, low=0.0)
        self.saturation = _range(owner, saturation, "saturation", 1.0, low=0.0)
        self.hue = _range(owner, hue, "hue", sym_from=0, low=-0.5, high=0.5)

    def __call__(self, img):
        img = _image_2d3d("RandomColorAdjust", img)
        steps = ((self.brightness, 1.0, _color.AdjustBrightness),
                 (self.contrast, 1.0, _color.AdjustContrast),
                 (self.saturation, 1.0, _color.AdjustSaturation), (self.hue, 0.0, _color.AdjustHue))
        for k in current_rng().permutation(len(steps)):
            span, neutral, op = steps[int(k)]
            f = _uniform(*span)
            if span != (neutral, neutral):
                img = op(f)(img)
        return img


class RandomPosterize(TensorOperation):
    """`Posterize(bits)` with bits uniform among the ints of `bits` (an int, or (min, max) in
    [1, 8])."""

    _random = True

    def __init__(self, bits=(8, 8)):
        pair = (bits, bits) if is_int(bits) else bits
        self.bits = check_sequence(pair, "bits", "RandomPosterize",
                                   lambda v, a, o: check_int_range(v, a, o, 1, 8), 2,
                                   expected="an int or (min, max) ints in [1, 8]")
        if self.bits[0] > self.bits[1]:
            raise ValueError(f"For 'RandomPosterize', 'bits' must be (min, max), but got {bits}")

    def __call__(self, img):
        b = int(current_rng().integers(self.bits[0], self.bits[1] + 1))
        return _color.Posterize(b)(img)


class RandomSolarize(TensorOperation):
    """`Solarize` of a random sub-range: two thresholds drawn in `threshold` (min, max),
    sorted; equal draws invert every value from there up (as MindSpore)."""

    _random = True

    def __init__(self, threshold=(0, 255)):
        self.threshold = check_sequence(threshold, "threshold", "RandomSolarize",
                                        lambda v, a, o: check_int_range(v, a, o, 0, 255), 2,
                                        expected="a pair of ints (min, max) in [0, 255]")
        if self.threshold[0] > self.threshold[1]:
            raise ValueError(f"For 'RandomSolarize', 'threshold' must be (min, max), but got "
                             f"{threshold}")

    def __call__(self, img):
        lo, hi = self.threshold
        a, b = (int(current_rng().integers(lo, hi + 1)) for _ in range(2))
        a, b = min(a, b), max(a, b)
        img = _image_2d3d("RandomSolarize", img)
        return _color._solarize(img, a, 255 if a == b else b)


_EIGVAL = np.array([0.2175, 0.0188, 0.0045])
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                    [-0.5836, -0.6948, 0.4203]])


class RandomLighting(TensorOperation):
    """AlexNet's PCA lighting noise: add eigvec @ (a * eigval) * 255 per channel with
    a ~ N(0, alpha) (ImageNet's eigenvalues and vectors); HWC RGB, the dtype kept."""

    _random = True

    def __init__(self, alpha=0.05):
        self.alpha = check_non_negative_float(alpha, "alpha", "RandomLighting")

    def __call__(self, img):
        img = _color._rgb("RandomLighting", img)
        if self.alpha == 0:
            return img
        a = current_rng().normal(0.0, self.alpha, 3)
        shift = _EIGVEC @ (a * _EIGVAL) * 255.0
        return _color._to_dtype(img.astype(np.float64) + shift, img.dtype)


def _erase_params(c, h, w, scale, ratio, max_attempts, value, rng):
    area = h * w
    for _ in range(max_attempts):
        erase_area = rng.uniform(*scale) * area
        aspect = rng.uniform(*ratio)
        ew = round(math.sqrt(erase_area * aspect))
        eh = round(ew / aspect)
        if eh < h and ew < w:
            top = int(rng.integers(0, h - eh + 1))
            left = int(rng.integers(0, w - ew + 1))
            if value == "random":
                fill = rng.standard_normal((c, eh, ew))
            else:
                fill = np.asarray(value, np.float64).reshape(-1, 1, 1)
            return top, left, eh, ew, fill
    return None


class RandomErasing(TensorOperation):
    """With probability `prob`, fill a random box of a CHW array: area a fraction in `scale`
    of the image, aspect ratio in `ratio`, value a number, three (per channel) or 'random'
    (standard normal noise); no box after `max_attempts` tries leaves the image."""

    _random = True

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 max_attempts=10):
        owner = "RandomErasing"
        self.prob = _check_prob(owner, prob)
        self.scale = _range(owner, scale, "scale", low=0.0)
        self.ratio = _range(owner, ratio, "ratio", low=0.0)
        if isinstance(value, str):
            if value != "random":
                raise ValueError(f"For '{owner}', a str 'value' must be 'random', but got "
                                 f"{value!r}")
        elif isinstance(value, numbers.Number) and not isinstance(value, bool):
            value = float(value)
        else:
            value = check_sequence(value, "value", owner, check_float, 3,
                                   expected="a number, 3 numbers or 'random'")
        self.value = value
        self.inplace = check_bool(inplace, "inplace", owner)
        self.max_attempts = check_positive_int(max_attempts, "max_attempts", owner)

    def __call__(self, np_img):
        img = _image("RandomErasing", np_img)
        if img.ndim != 3:
            raise ValueError(f"For 'RandomErasing', the image must be CHW, but got shape "
                             f"{img.shape}")
        if not _hit(self.prob):
            return img
        rng = current_rng()
        found = _erase_params(*img.shape, self.scale, self.ratio, self.max_attempts, self.value,
                              rng)
        if found is None:
            return img
        top, left, eh, ew, fill = found
        out = img if self.inplace and img.flags.writeable else img.copy()
        out[:, top:top + eh, left:left + ew] = fill
        return out


def _resized_crop_box(H, W, scale, ratio, max_attempts, rng):
    """(top, left, h, w) of RandomResizedCrop: area fraction in `scale`, log-uniform aspect in
    `ratio`; after `max_attempts` misses, the central crop clamped to the ratio range."""
    area = H * W
    log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
    for _ in range(max_attempts):
        target = rng.uniform(*scale) * area
        aspect = math.exp(rng.uniform(*log_ratio))
        w = round(math.sqrt(target * aspect))
        h = round(math.sqrt(target / aspect))
        if 0 < w <= W and 0 < h <= H:
            return int(rng.integers(0, H - h + 1)), int(rng.integers(0, W - w + 1)), h, w
    in_ratio = W / H
    if in_ratio < ratio[0]:
        w, h = W, round(W / ratio[0])
    elif in_ratio > ratio[1]:
        h, w = H, round(H * ratio[1])
    else:
        h, w = H, W
    return (H - h) // 2, (W - w) // 2, h, w


def _check_rrc(owner, size, scale, ratio, interpolation, max_attempts):
    size = _check_size(owner, size)
    scale = _range(owner, scale, "scale", low=0.0)
    ratio = _range(owner, ratio, "ratio", low=0.0)
    if ratio[0] <= 0:
        raise ValueError(f"For '{owner}', 'ratio' must be positive, but got {ratio}")
    inter = _geometry._check_inter(owner, interpolation)
    return size, scale, ratio, inter, check_positive_int(max_attempts, "max_attempts", owner)


class RandomResizedCrop(TensorOperation):
    """Crop a random box (area fraction in `scale`, aspect ratio in `ratio`), resize it to
    `size`."""

    _random = True

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        (self.size, self.scale, self.ratio, self.interpolation,
         self.max_attempts) = _check_rrc(type(self).__name__, size, scale, ratio, interpolation,
                                         max_attempts)

    def _box(self, H, W):
        return _resized_crop_box(H, W, self.scale, self.ratio, self.max_attempts, current_rng())

    def __call__(self, img):
        img = _image_2d3d(type(self).__name__, img)
        top, left, h, w = self._box(*img.shape[:2])
        return np.ascontiguousarray(_resize_hw(img[top:top + h, left:left + w], *self.size,
                                               self.interpolation))


class RandomCropDecodeResize(RandomResizedCrop):
    """`Decode`, then `RandomResizedCrop` (encoded bytes in, HWC RGB uint8 out)."""

    def __call__(self, img):
        return super().__call__(Decode()(img))


class RandomResize(TensorOperation):
    """`Resize(size)` with the interpolation drawn among BILINEAR, NEAREST, BICUBIC and AREA."""

    _random = True
    _MODES = (Inter.BILINEAR, Inter.NEAREST, Inter.BICUBIC, Inter.AREA)

    def __init__(self, size):
        _check_size("RandomResize", size)
        self.size = size

    def __call__(self, img):
        mode = self._MODES[int(current_rng().integers(len(self._MODES)))]
        return Resize(self.size, mode)(img)


def _degrees_range(owner, degrees):
    if isinstance(degrees, numbers.Number) and not isinstance(degrees, bool):
        d = check_non_negative_float(degrees, "degrees", owner)
        return (-d, d)
    pair = check_sequence(degrees, "degrees", owner, check_float, 2,
                          expected="a number or a sequence (min, max)")
    if pair[0] > pair[1]:
        raise ValueError(f"For '{owner}', 'degrees' must be (min, max), but got {degrees}")
    return tuple(pair)


class RandomRotation(TensorOperation):
    """`Rotate` by an angle uniform in `degrees` (a number d: [-d, d])."""

    _random = True

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        self.degrees = _degrees_range("RandomRotation", degrees)
        self._rotate = _geometry.Rotate(0.0, resample, expand, center, fill_value)
        self.resample, self.expand = self._rotate.resample, self._rotate.expand
        self.center, self.fill_value = self._rotate.center, self._rotate.fill_value

    def __call__(self, img):
        arr, back = _geometry._as_array_keep_pil("RandomRotation", img)
        angle = _uniform(*self.degrees)
        return back(_geometry._rotate(arr, angle, self.resample, self.expand, self.center,
                                      self.fill_value))


class RandomAffine(TensorOperation):
    """`Affine` with random parameters: rotation uniform in `degrees`; translation fractions
    uniform in (tx_min, tx_max[, ty_min, ty_max]); scale uniform in `scale`; shear uniform in
    a number s ((-s, s) along x), (min, max) along x, or (x_min, x_max, y_min, y_max)."""

    _random = True

    def __init__(self, degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST,
                 fill_value=0):
        owner = "RandomAffine"
        self.degrees = _degrees_range(owner, degrees)
        if translate is not None:
            translate = check_sequence(translate, "translate", owner,
                                       lambda v, a, o: check_float_range(v, a, o, -1.0, 1.0),
                                       (2, 4), expected="2 or 4 numbers in [-1, 1]")
        self.translate = translate
        if scale is not None:
            scale = _range(owner, scale, "scale", low=0.0)
        self.scale = scale
        if shear is not None:
            if isinstance(shear, numbers.Number) and not isinstance(shear, bool):
                s = check_non_negative_float(shear, "shear", owner)
                shear = (-s, s)
            else:
                shear = check_sequence(shear, "shear", owner, check_float, (2, 4),
                                       expected="a number or 2 or 4 numbers")
        self.shear = shear
        self.resample = _geometry._check_warp_inter(owner, resample, "resample")
        self.fill_value = _geometry._check_fill3(owner, fill_value)

    def __call__(self, img):
        arr, back = _geometry._as_array_keep_pil("RandomAffine", img)
        angle = _uniform(*self.degrees)
        t = self.translate or (0.0, 0.0)
        tx = _uniform(t[0], t[1])
        ty = _uniform(t[2], t[3]) if len(t) == 4 else 0.0
        sc = _uniform(*self.scale) if self.scale else 1.0
        sh = self.shear or (0.0, 0.0)
        shear = (_uniform(sh[0], sh[1]), _uniform(sh[2], sh[3]) if len(sh) == 4 else 0.0)
        return back(_geometry._affine(arr, angle, (tx, ty), sc, shear, self.resample,
                                      self.fill_value))


class RandomPerspective(TensorOperation):
    """With probability `prob`, a `Perspective` moving each corner inwards by up to
    `distortion_scale` of half the width / height."""

    _random = True

    def __init__(self, distortion_scale=0.5, prob=0.5, interpolation=Inter.BICUBIC):
        self.distortion_scale = check_float_range(distortion_scale, "distortion_scale",
                                                  "RandomPerspective", 0.0, 1.0)
        self.prob = _check_prob("RandomPerspective", prob)
        inter = _geometry._check_mode("RandomPerspective", interpolation, Inter, "interpolation")
        self.interpolation = inter
        self._mode = "nearest" if inter == Inter.NEAREST else "bilinear"

    def __call__(self, img):
        arr, back = _geometry._as_array_keep_pil("RandomPerspective", img)
        if not _hit(self.prob):
            return img
        H, W = arr.shape[:2]
        rng = current_rng()
        dx, dy = int(self.distortion_scale * W / 2), int(self.distortion_scale * H / 2)
        r = lambda n: int(rng.integers(0, n + 1))
        start = [(0, 0), (W - 1, 0), (W - 1, H - 1), (0, H - 1)]
        end = [(r(dx), r(dy)), (W - 1 - r(dx), r(dy)), (W - 1 - r(dx), H - 1 - r(dy)),
               (r(dx), H - 1 - r(dy))]
        m = _geometry._perspective_matrix(start, end)
        return back(_geometry._warp.warp_perspective(arr, m, (H, W), self._mode, (0,)))


def _check_ops(owner, ops, arg):
    return list(check_sequence(ops, arg, owner, check_callable, non_empty=True,
                               expected="a non-empty sequence of transforms"))


def _apply(op, img):
    out = op(img)
    return out[0] if isinstance(out, tuple) and len(out) == 1 else out


class RandomSelectSubpolicy(TensorOperation):
    """Pick one sub-policy (a list of (transform, prob)) uniformly, then apply each of its
    transforms with its probability, in order."""

    _random = True

    def __init__(self, policy):
        def check_pair(p, a, o):
            p = check_sequence(p, a, o, None, 2, expected="a (transform, prob) pair")
            check_callable(p[0], a, o)
            check_float_range(p[1], a, o, 0.0, 1.0)
            return tuple(p)

        subs = check_sequence(policy, "policy", "RandomSelectSubpolicy", None, non_empty=True,
                              expected="a non-empty list of sub-policies")
        self.policy = [list(check_sequence(s, "policy", "RandomSelectSubpolicy", check_pair,
                                           non_empty=True, expected="a non-empty list of "
                                           "(transform, prob)")) for s in subs]

    def __call__(self, img):
        rng = current_rng()
        for op, prob in self.policy[int(rng.integers(len(self.policy)))]:
            if rng.random() < prob:
                img = _apply(op, img)
        return img


class UniformAugment(TensorOperation):
    """Pick `num_ops` of `transforms` uniformly without replacement; apply each picked one with
    probability 1/2, in the picked order."""

    _random = True

    def __init__(self, transforms, num_ops=2):
        self.transforms = _check_ops("UniformAugment", transforms, "transforms")
        self.num_ops = check_positive_int(num_ops, "num_ops", "UniformAugment")
        if self.num_ops > len(self.transforms):
            raise ValueError(f"For 'UniformAugment', 'num_ops' {num_ops} is larger than the "
                             f"{len(self.transforms)} transforms")

    def __call__(self, img):
        rng = current_rng()
        for i in rng.permutation(len(self.transforms))[:self.num_ops]:
            if rng.random() < 0.5:
                img = _apply(self.transforms[int(i)], img)
        return img
