"""Core image transforms (`mindspore.dataset.vision`) in NumPy, on HWC (or HW) arrays: Rescale,
Normalize, HWC2CHW, ToTensor, Resize, CenterCrop, Pad, RandomCrop, RandomHorizontalFlip,
RandomVerticalFlip, Decode. Each is callable eagerly or inside `map`; random ones draw from the
pipeline's seeded generators."""
import functools

import numpy as np

from ..._validator import (
    check_bool,
    check_float,
    check_float_range,
    check_int,
    check_int_range,
    check_non_negative_int,
    check_sequence,
    check_type_name,
    is_int,
)
from ...common import dtype as mstype
from .._parallel import current_rng
from ..datasets_vision import _decode_image
from ..transforms.transforms import TensorOperation, _to_array
from ._enums import Border, Inter

__all__ = ["HWC2CHW", "CenterCrop", "Decode", "Normalize", "Pad", "RandomCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Rescale", "Resize", "ToTensor"]

_INT32_MAX = 2**31 - 1


def _image(owner, x):
    """The array of an image input: NumPy arrays and PIL images (Tensors accepted too)."""
    arr = _to_array(owner, x, "image")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"For '{owner}', the image must hold numbers, but got dtype {arr.dtype}")
    return arr


def _check_size(owner, size, name="size"):
    """(h, w) from an int or a sequence of two ints; an int gives (size, size)."""
    size = (size, size) if is_int(size) else size
    size = check_sequence(size, name, owner, check_int, 2, expected="an int or a sequence of two "
                          "ints (h, w)")
    if not all(1 <= s <= _INT32_MAX for s in size):
        raise ValueError(f"For '{owner}', the '{name}' must be positive, but got {size}")
    return size


def _hw_axes(owner, img):
    """Axes of height and width: (0, 1) for HW, (-3, -2) for (..., H, W, C)."""
    if img.ndim == 2:
        return 0, 1
    if img.ndim >= 3:
        return img.ndim - 3, img.ndim - 2
    raise ValueError(f"For '{owner}', the image must be HW or HWC, but got shape {img.shape}")


class Rescale(TensorOperation):
    """`image * rescale + shift`, as float32.

    Example:
        >>> Rescale(1.0 / 255.0, 0)(np.full((2, 2, 1), 255, np.uint8))[0, 0]
        array([1.], dtype=float32)
    """

    def __init__(self, rescale, shift):
        self.rescale = check_float(rescale, "rescale", "Rescale")
        self.shift = check_float(shift, "shift", "Rescale")

    def __call__(self, img):
        img = _image("Rescale", img)
        return img.astype(np.float32) * np.float32(self.rescale) + np.float32(self.shift)


def _check_mean_std(owner, mean, std):
    """(mean, std) as float32 arrays: numbers in [0, 255] and (0, 255], one per channel."""
    numbers = "a non-empty list or tuple of numbers"
    m = check_sequence(mean, "mean", owner, functools.partial(check_float_range, low=0, high=255),
                       non_empty=True, expected=numbers)
    s = check_sequence(std, "std", owner, functools.partial(
        check_float_range, low=0, high=255, low_inclusive=False), non_empty=True, expected=numbers)
    if len(m) != len(s):
        raise ValueError(f"For '{owner}', 'mean' and 'std' must have the same length, but got "
                         f"{len(m)} and {len(s)}")
    return np.asarray(m, np.float32), np.asarray(s, np.float32)


class Normalize(TensorOperation):
    """`(image - mean) / std` per channel, as float32.

    Args:
        mean (list[float]): per-channel means (one value applies to every channel).
        std (list[float]): per-channel standard deviations, in (0, 255].
        is_hwc (bool): channels last (default) or first (CHW).
    """

    def __init__(self, mean, std, is_hwc=True):
        self.mean, self.std = mean, std
        self._m, self._s = _check_mean_std("Normalize", mean, std)
        self.is_hwc = check_bool(is_hwc, "is_hwc", "Normalize")

    def __call__(self, img):
        img = _image("Normalize", img).astype(np.float32)
        m, s = self._m, self._s
        if img.ndim == 2 or len(m) == 1:
            if len(m) != 1:
                raise ValueError(f"For 'Normalize', a 2-D image has one channel, but 'mean' has "
                                 f"{len(m)} values")
            return (img - m[0]) / s[0]
        if img.ndim != 3:
            raise ValueError(f"For 'Normalize', the image must be HW, HWC or CHW, but got shape "
                             f"{img.shape}")
        c = img.shape[-1] if self.is_hwc else img.shape[0]
        if c != len(m):
            raise ValueError(f"For 'Normalize', the image has {c} channels but 'mean' and 'std' "
                             f"have {len(m)} values (shape {img.shape}, is_hwc={self.is_hwc})")
        if self.is_hwc:
            return (img - m) / s
        return (img - m[:, None, None]) / s[:, None, None]


class HWC2CHW(TensorOperation):
    """HWC -> CHW (a 2-D HW image is returned unchanged)."""

    def __call__(self, img):
        img = _image("HWC2CHW", img)
        if img.ndim == 2:
            return img
        if img.ndim != 3:
            raise ValueError(f"For 'HWC2CHW', the image must be HW or HWC, but got shape "
                             f"{img.shape}")
        return np.ascontiguousarray(img.transpose(2, 0, 1))


class ToTensor(TensorOperation):
    """HWC image -> CHW `output_type` (float32) scaled by 1/255 (HW gives 1xHxW)."""

    def __init__(self, output_type=np.float32):
        try:
            self._np = mstype.to_np(output_type)
        except TypeError:
            raise TypeError(f"For 'ToTensor', 'output_type' must be a NumPy or MindSpore dtype, "
                            f"but got {output_type!r}") from None
        self.output_type = output_type

    def __call__(self, img):
        img = _image("ToTensor", img)
        if img.ndim == 2:
            img = img[:, :, None]
        if img.ndim != 3:
            raise ValueError(f"For 'ToTensor', the image must be HW or HWC, but got shape "
                             f"{img.shape}")
        out = img.transpose(2, 0, 1).astype(np.float32) / np.float32(255.0)
        return np.ascontiguousarray(out.astype(self._np, copy=False))


# ---- resize -----------------------------------------------------------------------------------
# OpenCV's conventions (which MindSpore's Resize uses): pixel centres at i + 0.5, source
# coordinates clamped at the borders; uint8 bilinear in fixed point (11-bit weights) with the
# rounding of OpenCV's vector path, so results match MindSpore bit for bit in our checks.

_COEF = 2048


def _linear_taps(src, dst, clamp_frac):
    """Source indices and fractions of OpenCV's bilinear resize along one axis. OpenCV zeroes
    the fraction where it clamps along x but not along y (there both taps read the same edge
    row, which still matters for the fixed-point rounding)."""
    scale = src / dst
    f = ((np.arange(dst) + 0.5) * scale - 0.5).astype(np.float32)
    i0 = np.floor(f).astype(np.int64)
    frac = (f - i0.astype(np.float32)).astype(np.float32)
    if clamp_frac:
        low = i0 < 0
        i0[low], frac[low] = 0, 0
        high = i0 >= src - 1
        i0[high], frac[high] = src - 1, 0
    return np.clip(i0, 0, src - 1), np.clip(i0 + 1, 0, src - 1), frac


def _area_taps(src, dst, clamp_frac):
    """Source indices and fractions of OpenCV's INTER_AREA when enlarging (bilinear with
    pixel-area fractions)."""
    i0 = np.floor(np.arange(dst) * (src / dst)).astype(np.int64)
    frac = ((np.arange(dst) + 1) - (i0 + 1) * (dst / src)).astype(np.float32)
    frac = np.where(frac <= 0, np.float32(0), frac - np.floor(frac)).astype(np.float32)
    if clamp_frac:
        high = i0 >= src - 1
        i0[high], frac[high] = src - 1, 0
    return np.clip(i0, 0, src - 1), np.clip(i0 + 1, 0, src - 1), frac


def _area_table(src, dst):
    """OpenCV's computeResizeAreaTab: (destination, source, weight) triples in order."""
    scale = src / dst
    out = []
    for d in range(dst):
        f1 = d * scale
        f2 = f1 + scale
        cell = min(scale, src - f1)
        s2 = min(int(np.floor(f2)), src - 1)
        s1 = min(int(np.ceil(f1)), s2)
        if s1 - f1 > 1e-3:
            out.append((d, s1 - 1, np.float32((s1 - f1) / cell)))
        out += [(d, k, np.float32(1.0 / cell)) for k in range(s1, s2)]
        if f2 - s2 > 1e-3:
            out.append((d, s2, np.float32(min(min(f2 - s2, 1.0), cell) / cell)))
    return out


def _weighted_sum(x, table, n, axis):
    """Float32 running sums along `axis` in the table's order: out[d] = sum of x[s] * w."""
    shape = list(x.shape)
    shape[axis] = n
    out = np.zeros(shape, np.float32)
    index = [slice(None)] * x.ndim
    for d, k, wgt in table:
        index[axis] = d
        src_index = list(index)
        src_index[axis] = k
        out[tuple(index)] = (out[tuple(index)] + (x[tuple(src_index)] * wgt)
                             .astype(np.float32)).astype(np.float32)
    return out


def _area_down(img, h, w):
    """OpenCV's INTER_AREA when shrinking: exact integer factors average blocks (2x2 rounds
    half up, others through a float32 scale); otherwise float32 pixel-area weights."""
    H, W = img.shape[:2]
    if H % h == 0 and W % w == 0 and img.dtype == np.uint8:
        fy, fx = H // h, W // w
        blocks = img.astype(np.int64).reshape((h, fy, w, fx) + img.shape[2:]).sum(axis=(1, 3))
        if fy == fx == 2:
            return ((blocks + 2) >> 2).astype(np.uint8)
        scaled = (blocks.astype(np.float32) * np.float32(1.0 / (fy * fx))).astype(np.float32)
        return np.clip(np.rint(scaled), 0, 255).astype(np.uint8)
    rows = _weighted_sum(img.astype(np.float32), _area_table(W, w), w, axis=1)
    out = _weighted_sum(rows, _area_table(H, h), h, axis=0)
    return _back_to(out, img.dtype)


def _bilinear(img, taps_y, taps_x):
    """OpenCV's bilinear resize of axes 0 and 1 from per-axis (i0, i1, frac) taps."""
    y0, y1, fy = taps_y
    x0, x1, fx = taps_x
    xe = (slice(None),) + (None,) * (img.ndim - 2)  # weights along axis 1
    ye = (slice(None),) + (None,) * (img.ndim - 1)  # weights along axis 0
    if img.dtype == np.uint8:
        # Each weight rounded on its own, as OpenCV does (a pair may sum to 2047 or 2049).
        ax0 = np.rint((1.0 - fx) * _COEF).astype(np.int64)[xe]
        ax1 = np.rint(fx * _COEF).astype(np.int64)[xe]
        by0 = np.rint((1.0 - fy) * _COEF).astype(np.int64)[ye]
        by1 = np.rint(fy * _COEF).astype(np.int64)[ye]
        src = img.astype(np.int64)
        rows = src[:, x0] * ax0 + src[:, x1] * ax1
        t0 = ((rows[y0] >> 4) * by0) >> 16
        t1 = ((rows[y1] >> 4) * by1) >> 16
        return np.clip((t0 + t1 + 2) >> 2, 0, 255).astype(np.uint8)
    work = np.float64 if img.dtype == np.float64 else np.float32
    src = img.astype(work)
    fx, fy = fx.astype(work)[xe], fy.astype(work)[ye]
    rows = src[:, x0] * (1 - fx) + src[:, x1] * fx
    out = rows[y0] * (1 - fy) + rows[y1] * fy
    return _back_to(out, img.dtype)


def _cubic_taps(src, dst):
    scale = src / dst
    f = ((np.arange(dst) + 0.5) * scale - 0.5).astype(np.float64)
    i0 = np.floor(f).astype(np.int64)
    t = f - i0
    a = -0.75
    w = np.stack([((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
                  ((a + 2) * t - (a + 3)) * t * t + 1,
                  ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1], axis=1)
    w = np.concatenate([w, 1 - w.sum(axis=1, keepdims=True)], axis=1)
    idx = np.clip(i0[:, None] + np.arange(-1, 3), 0, src - 1)
    return idx, w


def _cubic_taps_f32(src, dst):
    """Source indices and float32 weights of OpenCV's bicubic resize (A = -0.75)."""
    f = ((np.arange(dst) + 0.5) * (src / dst) - 0.5).astype(np.float32)
    i0 = np.floor(f).astype(np.int64)
    x = (f - i0.astype(np.float32)).astype(np.float32)
    a = np.float32(-0.75)
    one = np.float32(1)
    c0 = ((a * (x + one) - 5 * a) * (x + one) + 8 * a) * (x + one) - 4 * a
    c1 = ((a + 2) * x - (a + 3)) * x * x + one
    c2 = ((a + 2) * (one - x) - (a + 3)) * (one - x) * (one - x) + one
    c3 = one - c0 - c1 - c2
    w = np.stack([c0, c1, c2, c3], axis=1).astype(np.float32)
    idx = np.clip(i0[:, None] + np.arange(-1, 3), 0, src - 1)
    return idx, w


def _resize_hw(img, h, w, interpolation):
    """Resize axes 0 and 1 of img (H, W, ...)."""
    H, W = img.shape[:2]
    if interpolation == Inter.NEAREST:
        ys = np.minimum(np.floor(np.arange(h) * (H / h)).astype(np.int64), H - 1)
        xs = np.minimum(np.floor(np.arange(w) * (W / w)).astype(np.int64), W - 1)
        return img[ys][:, xs]
    if interpolation == Inter.BILINEAR:
        return _bilinear(img, _linear_taps(H, h, clamp_frac=False),
                         _linear_taps(W, w, clamp_frac=True))
    if interpolation == Inter.AREA:
        if H >= h and W >= w:
            return _area_down(img, h, w)
        return _bilinear(img, _area_taps(H, h, clamp_frac=False),
                         _area_taps(W, w, clamp_frac=True))
    if interpolation == Inter.BICUBIC:
        yi, wy = _cubic_taps(H, h)
        xi, wx = _cubic_taps(W, w)
        xe = (slice(None),) + (None,) * (img.ndim - 2)
        ye = (slice(None),) + (None,) * (img.ndim - 1)
        if img.dtype == np.uint8:
            # OpenCV: float32 weights scaled by 2**11 and rounded; integer row sums; the
            # column pass in float32 (weights / 2**22, fused multiply-adds), rounded.
            yi, wy = _cubic_taps_f32(H, h)
            xi, wx = _cubic_taps_f32(W, w)
            ax = np.rint(wx * np.float32(_COEF)).astype(np.int64)
            by = np.rint(wy * np.float32(_COEF)).astype(np.int64)
            src = img.astype(np.int64)
            rows = sum(src[:, xi[:, k]] * ax[:, k][xe] for k in range(4))
            beta = (by.astype(np.float32) * np.float32(1.0 / (_COEF * _COEF))).astype(np.float32)
            acc = (rows[yi[:, 3]].astype(np.float32) * beta[:, 3][ye]).astype(np.float32)
            for k in (2, 1, 0):
                acc = (rows[yi[:, k]].astype(np.float64) * beta[:, k][ye].astype(np.float64)
                       + acc).astype(np.float32)
            return np.clip(np.rint(acc), 0, 255).astype(np.uint8)
        src = img.astype(np.float64)
        rows = sum(src[:, xi[:, k]] * wx[:, k][xe] for k in range(4))
        out = sum(rows[yi[:, k]] * wy[:, k][ye] for k in range(4))
        return _back_to(out, img.dtype)
    if interpolation in (Inter.PILCUBIC, Inter.ANTIALIAS):
        return _resize_pillow(img, h, w, interpolation)
    raise ValueError(f"For 'Resize', interpolation {Inter(interpolation).name} is not supported "
                     f"here: use NEAREST, BILINEAR, BICUBIC, PILCUBIC or ANTIALIAS")


def _resize_pillow(img, h, w, interpolation):
    """Pillow's bicubic (PILCUBIC) or Lanczos (ANTIALIAS) resize of a uint8 (H, W[, C])
    image, as MindSpore's PIL-derived kernels."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("For 'Resize', PILCUBIC and ANTIALIAS need Pillow: pip install "
                          "'minispore[vision]'") from None
    squeeze = img.ndim == 3 and img.shape[2] == 1
    arr = img[..., 0] if squeeze else img
    if img.dtype != np.uint8 or arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2]
                                                           not in (3, 4)):
        raise ValueError(f"For 'Resize', {Inter(interpolation).name} takes uint8 images with 1, "
                         f"3 or 4 channels, but got {img.dtype} of shape {img.shape}")
    method = Image.BICUBIC if interpolation == Inter.PILCUBIC else Image.LANCZOS
    out = np.asarray(Image.fromarray(np.ascontiguousarray(arr)).resize((w, h), method))
    return out[..., None] if squeeze else out


def _back_to(out, dtype):
    if dtype.kind == "f":
        return out.astype(dtype)
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:  # bool
        return out >= 0.5
    return np.clip(np.rint(out), info.min, info.max).astype(dtype)


def _check_mode(owner, value, enum, arg):
    """A member of `enum` (`Inter`, `Border`) from a member or its value; a TypeError otherwise,
    as MindSpore's type check of these arguments."""
    return enum(check_type_name(value, tuple(enum), arg, owner))


class Resize(TensorOperation):
    """Resize an HW or (..., H, W, C) image; the dtype is kept (uint8 stays uint8).

    Args:
        size (int | sequence[int]): (h, w), or an int: the shorter side becomes `size` and the
            longer keeps the aspect ratio (rounded down).
        interpolation (Inter): NEAREST, BILINEAR (= LINEAR, default), BICUBIC, AREA (OpenCV's
            kernels), PILCUBIC or ANTIALIAS (Pillow's bicubic and Lanczos filters, uint8 with 1,
            3 or 4 channels; needs Pillow).
    """

    def __init__(self, size, interpolation=Inter.BILINEAR):
        self._int = is_int(size)
        _check_size("Resize", size)
        self.size = size
        self.interpolation = _check_mode("Resize", interpolation, Inter, "interpolation")

    def _target(self, H, W):
        if not self._int:
            return int(self.size[0]), int(self.size[1])
        s = int(self.size)
        if H <= W:
            return s, int(W * s / H)
        return int(H * s / W), s

    def __call__(self, img):
        img = _image("Resize", img)
        ah, aw = _hw_axes("Resize", img)
        H, W = img.shape[ah], img.shape[aw]
        if H == 0 or W == 0:
            raise ValueError(f"For 'Resize', the image is empty: shape {img.shape}")
        h, w = self._target(H, W)
        moved = np.moveaxis(img, (ah, aw), (0, 1))
        out = _resize_hw(moved, h, w, self.interpolation)
        return np.ascontiguousarray(np.moveaxis(out, (0, 1), (ah, aw)))


# ---- crop, pad, flip --------------------------------------------------------------------------

def _check_padding(owner, padding):
    """(left, top, right, bottom) from an int, (lr, tb) or (l, t, r, b)."""
    if is_int(padding):
        return (check_non_negative_int(padding, "padding", owner),) * 4
    padding = check_sequence(padding, "padding", owner, check_non_negative_int, (2, 4),
                             expected="an int or a sequence of 2 or 4 ints")
    return padding * 2 if len(padding) == 2 else padding


_BYTE = functools.partial(check_int_range, low=0, high=255)


def _check_fill(owner, fill_value):
    """One value, or three (per channel), each in [0, 255]."""
    if is_int(fill_value):
        return (_BYTE(fill_value, "fill_value", owner),)
    return check_sequence(fill_value, "fill_value", owner, _BYTE, 3,
                          expected="an int or a tuple of 3 ints")


def _pad(owner, img, left, top, right, bottom, fill, mode):
    if not (left or top or right or bottom):
        return img
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (img.ndim - 2)
    if mode == Border.CONSTANT:
        if len(fill) == 1:
            return np.pad(img, widths, constant_values=fill[0])
        if img.ndim != 3 or img.shape[2] != 3:
            raise ValueError(f"For '{owner}', a 3-value 'fill_value' needs an HWC image with 3 "
                             f"channels, but got shape {img.shape}")
        return np.stack([np.pad(img[..., c], widths[:2], constant_values=fill[c])
                         for c in range(3)], axis=-1)
    if mode in (Border.REFLECT, Border.SYMMETRIC) and (
            max(top, bottom) >= img.shape[0] or max(left, right) >= img.shape[1]):
        raise ValueError(f"For '{owner}', {mode.name} padding of {max(left, top, right, bottom)} "
                         f"needs an image larger than that, but got shape {img.shape}")
    return np.pad(img, widths, mode=mode.value)


def _image_2d3d(owner, img):
    img = _image(owner, img)
    if img.ndim not in (2, 3):
        raise ValueError(f"For '{owner}', the image must be HW or HWC, but got shape {img.shape}")
    return img


class Pad(TensorOperation):
    """Pad the borders of an HW / HWC image.

    Args:
        padding (int | sequence): all sides, (left/right, top/bottom) or (left, top, right,
            bottom).
        fill_value (int | tuple): constant for Border.CONSTANT (per channel with 3 values).
        padding_mode (Border): CONSTANT (default), EDGE, REFLECT or SYMMETRIC.
    """

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding = _check_padding("Pad", padding)
        self.fill_value = _check_fill("Pad", fill_value)
        self.padding_mode = _check_mode("Pad", padding_mode, Border, "padding_mode")

    def __call__(self, img):
        img = _image_2d3d("Pad", img)
        return _pad("Pad", img, *self.padding, self.fill_value, self.padding_mode)


class CenterCrop(TensorOperation):
    """Crop the centre `size` (int or (h, w)); offsets round down. A crop larger than the image
    pads it with zeros first (the odd extra row/column on the top/left, as MindSpore does)."""

    def __init__(self, size):
        self.size = _check_size("CenterCrop", size)

    def __call__(self, img):
        img = _image_2d3d("CenterCrop", img)
        h, w = self.size
        H, W = img.shape[:2]
        dh, dw = max(0, h - H), max(0, w - W)
        if dh or dw:
            img = _pad("CenterCrop", img, dw - dw // 2, dh - dh // 2, dw // 2, dh // 2, (0,),
                       Border.CONSTANT)
            H, W = img.shape[:2]
        top, left = (H - h) // 2, (W - w) // 2
        return np.ascontiguousarray(img[top:top + h, left:left + w])


class RandomCrop(TensorOperation):
    """Crop a random `size` window, after optional `padding`.

    Args:
        size (int | sequence[int]): (h, w) of the crop.
        padding (int | sequence, optional): padded first, as `Pad`.
        pad_if_needed (bool): pad an image smaller than `size` (both sides, by the shortfall);
            without it such an image raises ValueError.
        fill_value, padding_mode: as `Pad`.
    """

    _random = True

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=Border.CONSTANT):
        self.size = _check_size("RandomCrop", size)
        self.padding = None if padding is None else _check_padding("RandomCrop", padding)
        self.pad_if_needed = check_bool(pad_if_needed, "pad_if_needed", "RandomCrop")
        self.fill_value = _check_fill("RandomCrop", fill_value)
        self.padding_mode = _check_mode("RandomCrop", padding_mode, Border, "padding_mode")

    def __call__(self, img):
        img = _image_2d3d("RandomCrop", img)
        if self.padding is not None:
            img = _pad("RandomCrop", img, *self.padding, self.fill_value, self.padding_mode)
        h, w = self.size
        H, W = img.shape[:2]
        if self.pad_if_needed and (H < h or W < w):
            dh, dw = max(0, h - H), max(0, w - W)
            img = _pad("RandomCrop", img, dw, dh, dw, dh, self.fill_value, self.padding_mode)
            H, W = img.shape[:2]
        if H < h or W < w:
            raise ValueError(f"For 'RandomCrop', the crop size {(h, w)} is larger than the "
                             f"(padded) image {(H, W)}: pass pad_if_needed=True or padding")
        rng = current_rng()
        top = int(rng.integers(H - h + 1))
        left = int(rng.integers(W - w + 1))
        return np.ascontiguousarray(img[top:top + h, left:left + w])


class _RandomFlip(TensorOperation):
    """`_flip(img)` with probability `prob` (default 0.5)."""

    _random = True

    def __init__(self, prob=0.5):
        self.prob = check_float_range(prob, "prob", type(self).__name__, 0.0, 1.0)

    def __call__(self, img):
        img = _image_2d3d(type(self).__name__, img)
        if current_rng().random() < self.prob:
            return np.ascontiguousarray(self._flip(img))
        return img


class RandomHorizontalFlip(_RandomFlip):
    """Flip left-right with probability `prob` (default 0.5)."""

    @staticmethod
    def _flip(img):
        return img[:, ::-1]


class RandomVerticalFlip(_RandomFlip):
    """Flip upside down with probability `prob` (default 0.5)."""

    @staticmethod
    def _flip(img):
        return img[::-1]


class Decode(TensorOperation):
    """Decode an encoded image (1-D uint8 array or bytes: JPEG, PNG, ...) to HWC uint8 RGB, or
    a PIL image with `to_pil=True`. Needs Pillow (`pip install 'minispore[vision]'`). It takes
    the bytes, never a path: files are read by the datasets (ImageFolderDataset), which refuse
    special files and oversized ones.

    Raises:
        ImportError: Pillow is not installed. ValueError: the data is not a decodable image.
        TypeError: the input is not bytes or a 1-D uint8 array (a path, for one).
    """

    def __init__(self, to_pil=False):
        self.to_pil = check_bool(to_pil, "to_pil", "Decode")

    def __call__(self, img):
        if isinstance(img, (bytes, bytearray)):
            data = bytes(img)
        else:
            arr = _to_array("Decode", img, "image")
            if arr.dtype != np.uint8 or arr.ndim != 1:
                raise TypeError(f"For 'Decode', the input must be the encoded bytes as a 1-D "
                                f"uint8 array, but got dtype {arr.dtype} of shape {arr.shape}")
            data = arr.tobytes()
        out = _decode_image("Decode", data, "the input")
        if self.to_pil:
            from PIL import Image
            return Image.fromarray(out)
        return out

