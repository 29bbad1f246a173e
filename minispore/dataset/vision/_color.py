"""Pixel-value transforms of `mindspore.dataset.vision` on HWC arrays: brightness, contrast,
saturation, hue, gamma, sharpness, auto-contrast, equalize, invert, posterize, solarize, colour
conversions, and the HSV conversions. uint8 arithmetic follows MindSpore's CPU kernels (float32
products rounded half to even, OpenCV's fixed-point grey), so results match bit for bit."""
import numpy as np

from ..._validator import (
    check_float,
    check_float_range,
    check_int_range,
    check_non_negative_float,
    check_sequence,
    check_type,
    is_int,
)
from ..transforms.transforms import TensorOperation
from ._core import _check_mode, _image
from ._enums import ConvertMode

__all__ = ["AdjustBrightness", "AdjustContrast", "AdjustGamma", "AdjustHue", "AdjustSaturation",
           "AdjustSharpness", "AutoContrast", "ConvertColor", "Equalize", "Grayscale",
           "HsvToRgb", "Invert", "Posterize", "RgbToHsv", "Solarize"]

_F = np.float32


def _rgb(owner, img):
    """An HWC image with 3 channels."""
    img = _image(owner, img)
    if img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"For '{owner}', the image must be HWC with 3 channels, but got shape "
                         f"{img.shape}")
    return img


def _hw_or_hwc(owner, img):
    img = _image(owner, img)
    if img.ndim not in (2, 3):
        raise ValueError(f"For '{owner}', the image must be HW or HWC, but got shape {img.shape}")
    return img


def _to_dtype(out, dtype):
    """Float results back to `dtype`: rounded half to even and saturated for integers."""
    if dtype.kind == "f":
        return out.astype(dtype)
    info = np.iinfo(dtype) if dtype.kind in "iu" else np.iinfo(np.uint8)
    return np.clip(np.rint(out), info.min, info.max).astype(dtype)


def _gray_u8(img):
    """OpenCV's RGB -> grey of uint8 (15-bit fixed-point weights, rounded)."""
    r, g, b = (img[..., i].astype(np.int64) for i in range(3))
    return ((r * 9798 + g * 19235 + b * 3735 + 16384) >> 15).astype(np.uint8)


def _gray(img):
    """Grey of an RGB image in its dtype."""
    if img.dtype == np.uint8:
        return _gray_u8(img)
    w = np.array([0.299, 0.587, 0.114], _F)
    return _to_dtype((img.astype(_F) * w).sum(-1, dtype=_F), img.dtype)


def _blend(first, second, alpha, img_dtype):
    """OpenCV's float32 addWeighted with alpha on `first` or on `second` (`alpha` a pair
    (a, None) or (None, a)): the other weight is 1 - a; the second product is rounded to
    float32, the first fused into the sum. Back to `img_dtype`."""
    a = _F(alpha[0] if alpha[0] is not None else alpha[1])
    wa, wb = (a, _F(1) - a) if alpha[0] is not None else (_F(1) - a, a)
    prod = (second.astype(_F) * wb).astype(_F)
    out = (first.astype(_F).astype(np.float64) * np.float64(wa) + prod).astype(_F)
    return _to_dtype(out, img_dtype)


class AdjustBrightness(TensorOperation):
    """Multiply every pixel by `brightness_factor` (>= 0): 0 gives black, 1 the image."""

    def __init__(self, brightness_factor):
        self.brightness_factor = check_non_negative_float(brightness_factor, "brightness_factor",
                                                          "AdjustBrightness")

    def __call__(self, img):
        img = _hw_or_hwc("AdjustBrightness", img)
        return _to_dtype((img.astype(_F) * _F(self.brightness_factor)).astype(_F), img.dtype)


class AdjustContrast(TensorOperation):
    """Blend with the mean grey level (rounded): 0 gives a flat grey image, 1 the image."""

    def __init__(self, contrast_factor):
        self.contrast_factor = check_non_negative_float(contrast_factor, "contrast_factor",
                                                        "AdjustContrast")

    def __call__(self, img):
        img = _rgb("AdjustContrast", img)
        mean = _gray(img).astype(np.float64).mean()
        if img.dtype.kind != "f":
            mean = np.rint(mean)
        flat = np.full(img.shape, mean, _F)
        return _blend(flat, img, (None, self.contrast_factor), img.dtype)


class AdjustSaturation(TensorOperation):
    """Blend with the grey image: 0 gives grey, 1 the image, 2 doubles the saturation."""

    def __init__(self, saturation_factor):
        self.saturation_factor = check_non_negative_float(saturation_factor, "saturation_factor",
                                                          "AdjustSaturation")

    def __call__(self, img):
        img = _rgb("AdjustSaturation", img)
        gray = np.broadcast_to(_gray(img)[..., None], img.shape)
        return _blend(gray, img, (None, self.saturation_factor), img.dtype)


def _rgb_to_hsv(rgb):
    """float RGB in [0, 1] -> H, S, V in [0, 1] (channels last)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc = rgb.max(-1)
    minc = rgb.min(-1)
    delta = maxc - minc
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(maxc > 0, delta / np.where(maxc > 0, maxc, 1), 0.0)
        d = np.where(delta > 0, delta, 1)
        rc, gc, bc = (maxc - r) / d, (maxc - g) / d, (maxc - b) / d
    h = np.where(maxc == r, bc - gc, np.where(maxc == g, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(delta > 0, (h / 6.0) % 1.0, 0.0)
    return np.stack([h, s, maxc], -1)


def _hsv_to_rgb(hsv):
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))
    i = i.astype(np.int64) % 6
    choices = [np.stack(c, -1) for c in ((v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v),
                                         (v, p, q))]
    out = np.choose(i[..., None], choices)
    return np.where((s == 0)[..., None], v[..., None], out)


class AdjustHue(TensorOperation):
    """Rotate the hue by `hue_factor` turns, in [-0.5, 0.5] (HSV round trip)."""

    def __init__(self, hue_factor):
        self.hue_factor = check_float_range(hue_factor, "hue_factor", "AdjustHue", -0.5, 0.5)

    def __call__(self, img):
        img = _rgb("AdjustHue", img)
        return _shift_hue(img, self.hue_factor)


def _hsv_full_u8(img):
    """OpenCV's RGB -> HSV_FULL of uint8 (hue 0..255, 12-bit fixed-point division tables)."""
    x = img.astype(np.int64)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = x.max(-1)
    diff = v - x.min(-1)
    i = np.maximum(np.arange(256), 1).astype(np.float64)
    sdiv = np.where(np.arange(256) > 0, np.rint((255 << 12) / i), 0).astype(np.int64)
    hdiv = np.where(np.arange(256) > 0, np.rint((256 << 12) / (6.0 * i)), 0).astype(np.int64)
    s = (diff * sdiv[v] + (1 << 11)) >> 12
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * hdiv[diff] + (1 << 11)) >> 12
    return np.where(h < 0, h + 256, h), s, v


def _rgb_full_u8(h, s, v):
    """OpenCV's HSV_FULL -> RGB of uint8 (float32 sectors; OpenCV scales this hue by 6/255,
    though RGB -> HSV_FULL spreads it over 256)."""
    h = h.astype(_F) * _F(6.0 / 255)
    s = s.astype(_F) * _F(1 / 255.0)
    v = v.astype(_F) * _F(1 / 255.0)
    sector = np.floor(h).astype(np.int64) % 6
    f = (h - np.floor(h)).astype(_F)
    tab = np.stack([v, v * (_F(1) - s), v * (_F(1) - s * f), v * (_F(1) - s * (_F(1) - f))], -1)
    order = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])[sector]
    bgr = np.take_along_axis(tab.astype(_F), order, -1)
    rgb = np.where((s == 0)[..., None], v[..., None], bgr[..., ::-1])
    return np.clip(np.rint(rgb * _F(255)), 0, 255).astype(np.uint8)


def _shift_hue(img, factor):
    """uint8: hue moved by int(factor * 255) (float32, wrapping) through OpenCV's 8-bit HSV_FULL
    round trip, as MindSpore does; floats: exact HSV in [0, 1]."""
    if img.dtype == np.uint8:
        h, s, v = _hsv_full_u8(img)
        return _rgb_full_u8((h + int(_F(factor) * _F(255))) % 256, s, v)
    hsv = _rgb_to_hsv(img.astype(np.float64))
    hsv[..., 0] = (hsv[..., 0] + factor) % 1.0
    return _hsv_to_rgb(hsv).astype(img.dtype)


class AdjustGamma(TensorOperation):
    """Gamma correction. uint8 through PIL's table int(255.999 * gain * (i / 255) ** gamma);
    float images give min(gain * image, 1) ** gamma, as MindSpore's kernel does."""

    def __init__(self, gamma, gain=1):
        self.gamma = check_non_negative_float(gamma, "gamma", "AdjustGamma")
        self.gain = check_float(gain, "gain", "AdjustGamma")

    def __call__(self, img):
        img = _hw_or_hwc("AdjustGamma", img)
        if img.dtype == np.uint8:
            table = (255 + 1 - 1e-3) * self.gain * (np.arange(256) / 255.0) ** self.gamma
            return np.clip(table.astype(np.int64), 0, 255).astype(np.uint8)[img]
        return np.power(np.minimum(self.gain * img.astype(np.float64), 1.0), self.gamma).astype(
            img.dtype if img.dtype.kind == "f" else np.float32)


_SMOOTH = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]], np.float64) / 13.0


def _smooth(img):
    """PIL's SMOOTH filter (the 3x3 kernel above), border pixels kept."""
    x = img.astype(_F)
    out = x.copy()
    if img.shape[0] < 3 or img.shape[1] < 3:
        return _to_dtype(out, img.dtype)
    acc = np.zeros_like(x[1:-1, 1:-1], dtype=np.float64)
    for dy in range(3):
        for dx in range(3):
            acc += _SMOOTH[dy, dx] * x[dy:dy + x.shape[0] - 2, dx:dx + x.shape[1] - 2]
    out[1:-1, 1:-1] = acc
    return _to_dtype(out, img.dtype)


def _sharpen(img, factor):
    return _blend(img, _smooth(img), (factor, None), img.dtype)


class AdjustSharpness(TensorOperation):
    """Blend with a smoothed copy: 0 gives the blurred image, 1 the image, 2 sharpens."""

    def __init__(self, sharpness_factor):
        self.sharpness_factor = check_non_negative_float(sharpness_factor, "sharpness_factor",
                                                         "AdjustSharpness")

    def __call__(self, img):
        img = _hw_or_hwc("AdjustSharpness", img)
        return _sharpen(img, self.sharpness_factor)


def _check_cutoff_ignore(owner, cutoff, ignore):
    cutoff = check_float_range(cutoff, "cutoff", owner, 0.0, 50.0, high_inclusive=False)
    if ignore is None:
        return cutoff, ()
    if is_int(ignore):
        ignore = [ignore]
    ignore = check_sequence(ignore, "ignore", owner,
                            lambda v, a, o: check_int_range(v, a, o, 0, 255),
                            expected="an int or a sequence of ints in [0, 255]")
    return cutoff, tuple(ignore)


def _autocontrast(img, cutoff, ignore):
    """PIL's autocontrast per channel: `cutoff` percent dropped at each end of the histogram,
    `ignore` values left out of it; channels with one level are kept."""
    squeeze = img.ndim == 2
    x = img[..., None] if squeeze else img
    out = np.empty_like(x)
    for c in range(x.shape[-1]):
        ch = x[..., c]
        hist = np.bincount(ch.reshape(-1), minlength=256).astype(np.int64)
        for v in ignore:
            hist[v] = 0
        if cutoff:
            n = hist.sum()
            cut = int(n * cutoff / 100)
            low = np.cumsum(hist)
            hist = hist - np.clip(cut - (low - hist), 0, hist)
            high = np.cumsum(hist[::-1])
            hist = hist - np.clip(cut - (high - hist[::-1]), 0, hist[::-1])[::-1]
        nz = np.nonzero(hist)[0]
        if nz.size == 0 or nz[-1] <= nz[0]:
            out[..., c] = ch
            continue
        lo, hi = int(nz[0]), int(nz[-1])
        scale = _F(255.0) / _F(hi - lo)
        lut = (np.arange(256, dtype=_F) * scale + _F(-lo * scale)).astype(_F)
        lut = np.clip(np.trunc(lut), 0, 255)
        out[..., c] = lut.astype(np.uint8)[ch]
    return out[..., 0] if squeeze else out


def _u8(owner, img):
    if img.dtype != np.uint8:
        raise TypeError(f"For '{owner}', the image must be uint8, but got {img.dtype}")
    return img


class AutoContrast(TensorOperation):
    """Stretch each channel to the full range [0, 255] (uint8).

    Args:
        cutoff (float): percent of the lightest and darkest pixels ignored, in [0, 50).
        ignore (int | sequence[int], optional): levels left out of the histogram.
    """

    def __init__(self, cutoff=0.0, ignore=None):
        self.cutoff, self.ignore = _check_cutoff_ignore("AutoContrast", cutoff, ignore)

    def __call__(self, img):
        img = _u8("AutoContrast", _hw_or_hwc("AutoContrast", img))
        return _autocontrast(img, self.cutoff, self.ignore)


def _equalize(img):
    """OpenCV's equalizeHist per channel."""
    squeeze = img.ndim == 2
    x = img[..., None] if squeeze else img
    out = np.empty_like(x)
    for c in range(x.shape[-1]):
        ch = x[..., c]
        hist = np.bincount(ch.reshape(-1), minlength=256)
        total = ch.size
        first = int(np.argmax(hist > 0))
        if hist[first] == total:
            out[..., c] = first
            continue
        scale = _F(255.0 / (total - hist[first]))
        cum = np.cumsum(hist)
        lut = np.rint((cum - hist[first]).astype(_F) * scale)
        lut[:first + 1] = 0
        out[..., c] = np.clip(lut, 0, 255).astype(np.uint8)[ch]
    return out[..., 0] if squeeze else out


class Equalize(TensorOperation):
    """Equalize the histogram of each channel (uint8)."""

    def __call__(self, img):
        img = _u8("Equalize", _hw_or_hwc("Equalize", img))
        return _equalize(img)


class Invert(TensorOperation):
    """255 - image, per channel."""

    def __call__(self, img):
        img = _hw_or_hwc("Invert", img)
        if img.dtype == np.uint8:
            return 255 - img
        return (255 - img.astype(np.float64)).astype(img.dtype)


class Posterize(TensorOperation):
    """Keep the `bits` (0..8) high bits of each uint8 value."""

    def __init__(self, bits):
        self.bits = check_int_range(bits, "bits", "Posterize", 0, 8)

    def __call__(self, img):
        img = _u8("Posterize", _hw_or_hwc("Posterize", img))
        return img & np.uint8((0xFF << (8 - self.bits)) & 0xFF)


def _check_threshold(owner, threshold):
    if isinstance(threshold, (int, float)) and not isinstance(threshold, bool):
        threshold = (threshold, 255)
    t = check_sequence(threshold, "threshold", owner,
                       lambda v, a, o: check_float_range(v, a, o, 0, 255), (1, 2),
                       expected="a number or a sequence of 1 or 2 numbers in [0, 255]")
    t = (t[0], 255) if len(t) == 1 else t
    if t[0] > t[1]:
        raise ValueError(f"For '{owner}', 'threshold' must be (min, max) with min <= max, but "
                         f"got {threshold}")
    return t


def _solarize(img, low, high):
    hit = (img >= low) & (img <= high)
    if img.dtype == np.uint8:
        return np.where(hit, 255 - img, img)
    return np.where(hit, 255 - img.astype(np.float64), img).astype(img.dtype)


class Solarize(TensorOperation):
    """Invert the pixels whose value lies in `threshold` = (min, max); one value t means
    [t, 255]."""

    def __init__(self, threshold):
        self.threshold = _check_threshold("Solarize", threshold)

    def __call__(self, img):
        img = _hw_or_hwc("Solarize", img)
        return _solarize(img, *self.threshold)


_RGBA = {"swap": [2, 1, 0], "keep": [0, 1, 2]}


class ConvertColor(TensorOperation):
    """Convert between RGB, BGR, RGBA, BGRA and grey (`ConvertMode`); grey from colour uses
    OpenCV's fixed-point weights, alpha added as 255."""

    def __init__(self, convert_mode):
        self.convert_mode = _check_mode("ConvertColor", convert_mode, ConvertMode,
                                        "convert_mode")

    def __call__(self, img):
        img = _image("ConvertColor", img)
        mode = self.convert_mode
        name = mode.name
        src = name.split("_")[1].split("2")[0]
        dst = name.split("2")[1]
        want = 1 if src == "GRAY" else len(src)
        channels = 1 if img.ndim == 2 else img.shape[-1] if img.ndim == 3 else -1
        if channels != want:
            raise ValueError(f"For 'ConvertColor', {name} needs an image with {want} channels, "
                             f"but got shape {img.shape}")
        if src == "GRAY":
            g = img if img.ndim == 2 else img[..., 0]
            out = np.repeat(g[..., None], 3, -1)
        else:
            rgb = img[..., :3] if src.startswith("RGB") else img[..., 2::-1]
            if dst == "GRAY":
                return _gray(np.ascontiguousarray(rgb))
            out = rgb if dst.startswith("RGB") else rgb[..., ::-1]
        if dst.endswith("A"):
            if src.endswith("A"):
                alpha = img[..., 3:]
            else:
                alpha = np.full(out.shape[:2] + (1,), 255 if img.dtype == np.uint8 else 1,
                                img.dtype)
            out = np.concatenate([out, alpha], -1)
        return np.ascontiguousarray(out)


class Grayscale(TensorOperation):
    """A PIL image to grey (mode 'L'), or to three equal channels with
    `num_output_channels=3`; NumPy HWC RGB images are converted too (returned as arrays)."""

    def __init__(self, num_output_channels=1):
        self.num_output_channels = check_type(num_output_channels, int, "num_output_channels",
                                              "Grayscale")
        if num_output_channels not in (1, 3):
            raise ValueError(f"For 'Grayscale', 'num_output_channels' must be 1 or 3, but got "
                             f"{num_output_channels}")

    def __call__(self, img):
        if type(img).__module__.startswith("PIL."):
            gray = img.convert("L")
            return gray if self.num_output_channels == 1 else gray.convert("RGB")
        arr = _u8("Grayscale", _rgb("Grayscale", img))
        r, g, b = (arr[..., i].astype(np.int64) for i in range(3))
        gray = ((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16).astype(np.uint8)
        return gray if self.num_output_channels == 1 else np.repeat(gray[..., None], 3, -1)


def _hsv_batch(owner, img, is_hwc, fn):
    arr = np.asarray(_image(owner, img), dtype=np.float64)
    axis = -1 if is_hwc else -3
    if arr.ndim not in (3, 4) or arr.shape[axis] != 3:
        raise ValueError(f"For '{owner}', the image must be {'HWC' if is_hwc else 'CHW'} (or a "
                         f"batch of them) with 3 channels, but got shape {arr.shape}")
    moved = np.moveaxis(arr, axis, -1)
    return np.moveaxis(fn(moved), -1, axis)


class RgbToHsv(TensorOperation):
    """RGB -> HSV on float images in [0, 1] (CHW by default, or HWC; batches too), float64 out."""

    def __init__(self, is_hwc=False):
        self.is_hwc = check_type(is_hwc, bool, "is_hwc", "RgbToHsv")

    def __call__(self, rgb_imgs):
        return _hsv_batch("RgbToHsv", rgb_imgs, self.is_hwc, _rgb_to_hsv)


class HsvToRgb(TensorOperation):
    """HSV -> RGB on float images in [0, 1] (CHW by default, or HWC; batches too), float64
    out."""

    def __init__(self, is_hwc=False):
        self.is_hwc = check_type(is_hwc, bool, "is_hwc", "HsvToRgb")

    def __call__(self, hsv_imgs):
        return _hsv_batch("HsvToRgb", hsv_imgs, self.is_hwc, _hsv_to_rgb)
