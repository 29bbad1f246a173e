"""Crops, flips, padding, erasing, patches, blur and type conversions of
`mindspore.dataset.vision` on HW / HWC arrays (PIL images where MindSpore takes them)."""
import numpy as np

from ..._validator import (
    check_bool,
    check_float,
    check_float_range,
    check_int,
    check_int_range,
    check_non_negative_int,
    check_positive_int,
    check_sequence,
    check_type,
    is_int,
)
from .._parallel import current_rng
from ..transforms.transforms import TensorOperation, TypeCast, _to_array
from . import _warp
from ._core import (
    _check_fill,
    _check_mean_std,
    _check_mode,
    _check_size,
    _image,
    _image_2d3d,
    _pad,
    _resize_hw,
)
from ._enums import Border, Inter, SliceMode

__all__ = ["Affine", "Crop", "CutOut", "Erase", "FiveCrop", "GaussianBlur", "HorizontalFlip",
           "LinearTransformation", "NormalizePad", "PadToSize", "Perspective", "ResizedCrop",
           "Rotate", "SlicePatches", "TenCrop", "ToNumpy", "ToPIL", "ToType", "VerticalFlip"]


def _is_pil(img):
    return type(img).__module__.startswith("PIL.")


class HorizontalFlip(TensorOperation):
    """Flip left-right."""

    def __call__(self, img):
        return np.ascontiguousarray(_image_2d3d("HorizontalFlip", img)[:, ::-1])


class VerticalFlip(TensorOperation):
    """Flip upside down."""

    def __call__(self, img):
        return np.ascontiguousarray(_image_2d3d("VerticalFlip", img)[::-1])


def _check_coordinates(owner, coordinates):
    return check_sequence(coordinates, "coordinates", owner, check_non_negative_int, 2,
                          expected="a sequence of two non-negative ints (top, left)")


def _crop(owner, img, top, left, h, w):
    H, W = img.shape[:2]
    if top + h > H or left + w > W:
        raise ValueError(f"For '{owner}', the crop box (top={top}, left={left}, height={h}, "
                         f"width={w}) exceeds the image of size {(H, W)}")
    return np.ascontiguousarray(img[top:top + h, left:left + w])


class Crop(TensorOperation):
    """Crop the box at `coordinates` (top, left) of `size` (int or (h, w))."""

    def __init__(self, coordinates, size):
        self.coordinates = _check_coordinates("Crop", coordinates)
        self.size = _check_size("Crop", size)

    def __call__(self, img):
        img = _image_2d3d("Crop", img)
        return _crop("Crop", img, *self.coordinates, *self.size)


def _check_inter(owner, interpolation, arg="interpolation"):
    return _check_mode(owner, interpolation, Inter, arg)


class ResizedCrop(TensorOperation):
    """Crop the box (top, left, height, width), then resize it to `size` (int: a square)."""

    def __init__(self, top, left, height, width, size, interpolation=Inter.BILINEAR):
        self.top = check_non_negative_int(top, "top", "ResizedCrop")
        self.left = check_non_negative_int(left, "left", "ResizedCrop")
        self.height = check_positive_int(height, "height", "ResizedCrop")
        self.width = check_positive_int(width, "width", "ResizedCrop")
        self.size = _check_size("ResizedCrop", size)
        self.interpolation = _check_inter("ResizedCrop", interpolation)

    def __call__(self, img):
        img = _image_2d3d("ResizedCrop", img)
        box = _crop("ResizedCrop", img, self.top, self.left, self.height, self.width)
        return np.ascontiguousarray(_resize_hw(box, *self.size, self.interpolation))


class PadToSize(TensorOperation):
    """Pad to `size` (h, w); `offset` (int or (top, left)) places the image, centred (the odd
    pixel on the bottom/right) when None."""

    def __init__(self, size, offset=None, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = _check_size("PadToSize", size)
        if offset is not None:
            offset = (offset, offset) if is_int(offset) else offset
            offset = check_sequence(offset, "offset", "PadToSize", check_non_negative_int, 2,
                                    expected="an int or a sequence of two ints (top, left)")
        self.offset = offset
        self.fill_value = _check_fill("PadToSize", fill_value)
        self.padding_mode = _check_mode("PadToSize", padding_mode, Border, "padding_mode")

    def __call__(self, img):
        img = _image_2d3d("PadToSize", img)
        H, W = img.shape[:2]
        h, w = self.size
        if h < H or w < W:
            raise ValueError(f"For 'PadToSize', the target size {(h, w)} is smaller than the "
                             f"image {(H, W)}")
        top, left = ((h - H) // 2, (w - W) // 2) if self.offset is None else self.offset
        if top + H > h or left + W > w:
            raise ValueError(f"For 'PadToSize', the image {(H, W)} at offset {(top, left)} does "
                             f"not fit in the size {(h, w)}")
        return _pad("PadToSize", img, left, top, w - W - left, h - H - top, self.fill_value,
                    self.padding_mode)


_NP_DTYPES = {"float32": np.float32, "float16": np.float16}


class NormalizePad(TensorOperation):
    """`Normalize`, then a fourth channel of zeros; `dtype` 'float32' or 'float16'."""

    def __init__(self, mean, std, dtype="float32", is_hwc=True):
        self.mean, self.std = mean, std
        self._m, self._s = _check_mean_std("NormalizePad", mean, std)
        check_type(dtype, str, "dtype", "NormalizePad")
        if dtype not in _NP_DTYPES:
            raise ValueError(f"For 'NormalizePad', 'dtype' must be 'float32' or 'float16', but "
                             f"got {dtype!r}")
        self.dtype = dtype
        self.is_hwc = check_bool(is_hwc, "is_hwc", "NormalizePad")

    def __call__(self, img):
        img = _image("NormalizePad", img)
        axis = -1 if self.is_hwc else 0
        if img.ndim != 3 or img.shape[axis] != 3 or len(self._m) != 3:
            layout = "HWC" if self.is_hwc else "CHW"
            raise ValueError(f"For 'NormalizePad', the image must be {layout} with 3 channels "
                             f"and mean/std 3 values, but got shape {img.shape}")
        x = np.moveaxis(img.astype(np.float32), axis, -1)
        out = np.concatenate([(x - self._m) / self._s, np.zeros(x.shape[:2] + (1,), np.float32)],
                             -1)
        return np.ascontiguousarray(np.moveaxis(out, -1, axis).astype(_NP_DTYPES[self.dtype]))


def _check_value(owner, value, arg="value"):
    """One number or three (per channel)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (float(value),)
    return check_sequence(value, arg, owner, check_float, 3,
                          expected="a number or a sequence of 3 numbers")


def _fill_box(img, top, left, h, w, value):
    out = img.copy()
    v = np.asarray(value, np.float64)
    if out.dtype.kind in "iu":
        info = np.iinfo(out.dtype)
        v = np.clip(np.rint(v), info.min, info.max)
    out[top:top + h, left:left + w] = v.astype(out.dtype) if v.size > 1 else v[0]
    return out


class Erase(TensorOperation):
    """Fill the box (top, left, height, width) of an HWC image with `value` (one number or one
    per channel; rounded for integer images)."""

    def __init__(self, top, left, height, width, value=0.0, inplace=False):
        self.top = check_non_negative_int(top, "top", "Erase")
        self.left = check_non_negative_int(left, "left", "Erase")
        self.height = check_positive_int(height, "height", "Erase")
        self.width = check_positive_int(width, "width", "Erase")
        self.value = _check_value("Erase", value)
        self.inplace = check_bool(inplace, "inplace", "Erase")

    def __call__(self, img):
        img = _image("Erase", img)
        if img.ndim != 3 or (len(self.value) == 3 and img.shape[2] != 3):
            raise ValueError(f"For 'Erase', the image must be HWC (3 channels for 3 values), but "
                             f"got shape {img.shape}")
        H, W = img.shape[:2]
        if self.top + self.height > H or self.left + self.width > W:
            raise ValueError(f"For 'Erase', the box (top={self.top}, left={self.left}, "
                             f"height={self.height}, width={self.width}) exceeds the image of "
                             f"size {(H, W)}")
        return _fill_box(img, self.top, self.left, self.height, self.width, self.value)


class CutOut(TensorOperation):
    """Zero `num_patches` random square patches of side `length` (HWC, or CHW with
    `is_hwc=False`); a patch lies fully inside the image."""

    _random = True

    def __init__(self, length, num_patches=1, is_hwc=True):
        self.length = check_positive_int(length, "length", "CutOut")
        self.num_patches = check_positive_int(num_patches, "num_patches", "CutOut")
        self.is_hwc = check_bool(is_hwc, "is_hwc", "CutOut")

    def __call__(self, img):
        img = _image("CutOut", img)
        if img.ndim != 3:
            raise ValueError(f"For 'CutOut', the image must be HWC or CHW, but got shape "
                             f"{img.shape}")
        x = img if self.is_hwc else np.moveaxis(img, 0, -1)
        H, W = x.shape[:2]
        if self.length > H or self.length > W:
            raise ValueError(f"For 'CutOut', 'length' {self.length} is larger than the image "
                             f"{(H, W)}")
        out = x.copy()
        rng = current_rng()
        for _ in range(self.num_patches):
            top = int(rng.integers(H - self.length + 1))
            left = int(rng.integers(W - self.length + 1))
            out[top:top + self.length, left:left + self.length] = 0
        return out if self.is_hwc else np.ascontiguousarray(np.moveaxis(out, -1, 0))


class SlicePatches(TensorOperation):
    """Cut an image into `num_height` x `num_width` patches (row by row). A size that does not
    divide is padded up at the bottom/right with `fill_value` (`SliceMode.PAD`) or its
    remainder dropped (`SliceMode.DROP`)."""

    def __init__(self, num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0):
        self.num_height = check_positive_int(num_height, "num_height", "SlicePatches")
        self.num_width = check_positive_int(num_width, "num_width", "SlicePatches")
        self.slice_mode = _check_mode("SlicePatches", slice_mode, SliceMode, "slice_mode")
        self.fill_value = check_int_range(fill_value, "fill_value", "SlicePatches", 0, 255)

    def __call__(self, img):
        img = _image_2d3d("SlicePatches", img)
        H, W = img.shape[:2]
        nh, nw = self.num_height, self.num_width
        if self.slice_mode == SliceMode.PAD:
            ph, pw = -(-H // nh), -(-W // nw)
            img = _pad("SlicePatches", img, 0, 0, pw * nw - W, ph * nh - H, (self.fill_value,),
                       Border.CONSTANT)
        else:
            ph, pw = H // nh, W // nw
            if ph == 0 or pw == 0:
                raise ValueError(f"For 'SlicePatches', the image {(H, W)} is smaller than "
                                 f"{(nh, nw)} patches")
        return tuple(np.ascontiguousarray(img[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])
                     for i in range(nh) for j in range(nw))


def _five(owner, img, size):
    """(top-left, top-right, bottom-left, bottom-right, centre) crops of `size`; PIL images
    give PIL images."""
    h, w = size
    pil = _is_pil(img)
    arr = np.asarray(img) if pil else _image_2d3d(owner, img)
    H, W = arr.shape[:2]
    if h > H or w > W:
        raise ValueError(f"For '{owner}', the crop size {(h, w)} is larger than the image "
                         f"{(H, W)}")
    top, left = round((H - h) / 2.0), round((W - w) / 2.0)
    boxes = [(0, 0), (0, W - w), (H - h, 0), (H - h, W - w), (top, left)]
    crops = [np.ascontiguousarray(arr[t:t + h, l:l + w]) for t, l in boxes]
    if pil:
        from PIL import Image
        return tuple(Image.fromarray(c) for c in crops)
    return tuple(crops)


class FiveCrop(TensorOperation):
    """The four corner crops and the centre crop of `size` (PIL images or arrays)."""

    def __init__(self, size):
        self.size = _check_size("FiveCrop", size)

    def __call__(self, img):
        return _five("FiveCrop", img, self.size)


class TenCrop(TensorOperation):
    """`FiveCrop` of the image and of its mirror (left-right, or upside down with
    `use_vertical_flip`)."""

    def __init__(self, size, use_vertical_flip=False):
        self.size = _check_size("TenCrop", size)
        self.use_vertical_flip = check_bool(use_vertical_flip, "use_vertical_flip", "TenCrop")

    def __call__(self, img):
        first = _five("TenCrop", img, self.size)
        if _is_pil(img):
            from PIL import Image
            flipped = img.transpose(Image.FLIP_TOP_BOTTOM if self.use_vertical_flip
                                    else Image.FLIP_LEFT_RIGHT)
        else:
            arr = _image_2d3d("TenCrop", img)
            flipped = arr[::-1] if self.use_vertical_flip else arr[:, ::-1]
        return first + _five("TenCrop", flipped, self.size)


class LinearTransformation(TensorOperation):
    """Flatten, subtract `mean_vector` (D,), multiply by `transformation_matrix` (D, D) and
    reshape back (D = the image's size)."""

    def __init__(self, transformation_matrix, mean_vector):
        m = np.asarray(check_type(transformation_matrix, np.ndarray, "transformation_matrix",
                                  "LinearTransformation"))
        v = np.asarray(check_type(mean_vector, np.ndarray, "mean_vector",
                                  "LinearTransformation"))
        if m.ndim != 2 or m.shape[0] != m.shape[1] or v.shape != (m.shape[0],):
            raise ValueError(f"For 'LinearTransformation', 'transformation_matrix' must be square "
                             f"(D, D) and 'mean_vector' (D,), but got {m.shape} and {v.shape}")
        self.transformation_matrix, self.mean_vector = m, v

    def __call__(self, np_img):
        img = _image("LinearTransformation", np_img)
        if img.size != self.mean_vector.shape[0]:
            raise ValueError(f"For 'LinearTransformation', the image has {img.size} values but "
                             f"the matrix is {self.transformation_matrix.shape}")
        flat = img.reshape(1, -1) - self.mean_vector
        return (flat @ self.transformation_matrix).reshape(img.shape)


class ToType(TypeCast):
    """Cast an image to `data_type` (a MindSpore or NumPy dtype)."""


class ToNumpy(TensorOperation):
    """A PIL image (or anything array-like) as a NumPy array."""

    def __call__(self, img):
        return np.array(img) if _is_pil(img) else np.asarray(_to_array("ToNumpy", img))


class ToPIL(TensorOperation):
    """A NumPy HW / HWC image as a PIL image (PIL images pass through). Needs Pillow."""

    def __call__(self, img):
        if _is_pil(img):
            return img
        try:
            from PIL import Image
        except ImportError:
            raise ImportError("For 'ToPIL', Pillow is needed: pip install 'minispore[vision]'") \
                from None
        arr = _image_2d3d("ToPIL", img)
        if arr.ndim == 3 and arr.shape[2] == 1:
            arr = arr[..., 0]
        return Image.fromarray(arr)


def _opencv_sigma(ksize):
    return ((ksize - 1) * 0.5 - 1) * 0.3 + 0.8


def _gaussian_kernel(ksize, sigma):
    """OpenCV's Gaussian kernel (float64), normalised to sum 1."""
    x = np.arange(ksize) - (ksize - 1) * 0.5
    k = np.exp(-(x * x) / (2 * sigma * sigma))
    return k / k.sum()


def _gaussian_kernel_fixed(ksize, sigma):
    """OpenCV's bit-exact 8-bit kernel: 8 fractional bits, rounded with error diffusion from
    the ends inwards, the centre taking what is left so the taps sum to 256."""
    k = _gaussian_kernel(ksize, sigma)
    out = np.zeros(ksize, np.int64)
    err = 0.0
    half = ksize // 2
    for i in range(half):
        v = k[i] * 256 + err
        q = int(np.rint(v))
        err = v - q
        out[i] = out[ksize - 1 - i] = q
    out[half] = 256 - 2 * out[:half].sum()
    return out


def _reflect101(n, size):
    """Indices of a reflection without the edge (OpenCV's BORDER_REFLECT_101) along an axis."""
    if size == 1:
        return np.zeros_like(n)
    period = 2 * (size - 1)
    m = np.abs(n) % period
    return np.where(m >= size, period - m, m)


def _convolve_axis(x, kernel, axis):
    r = len(kernel) // 2
    idx = _reflect101(np.arange(-r, x.shape[axis] + r), x.shape[axis])
    padded = np.take(x, idx, axis=axis)
    out = np.zeros_like(x)
    n = x.shape[axis]
    for k, wgt in enumerate(kernel):
        out += wgt * np.take(padded, np.arange(k, k + n), axis=axis)
    return out


class GaussianBlur(TensorOperation):
    """Gaussian blur (OpenCV's kernels, borders reflected without the edge).

    Args:
        kernel_size (int | sequence[int]): odd positive (width, height).
        sigma (float | sequence[float], optional): (sigma_x, sigma_y); None derives both from
            the kernel width, ((width - 1) / 2 - 1) * 0.3 + 0.8, as MindSpore does.
    """

    def __init__(self, kernel_size, sigma=None):
        ks = (kernel_size, kernel_size) if is_int(kernel_size) else kernel_size
        ks = check_sequence(ks, "kernel_size", "GaussianBlur", check_positive_int, 2,
                            expected="an odd positive int or a sequence of two")
        if any(k % 2 == 0 for k in ks):
            raise ValueError(f"For 'GaussianBlur', 'kernel_size' must be odd, but got {ks}")
        if sigma is None:
            sg = (_opencv_sigma(ks[0]),) * 2
        else:
            sg = (sigma, sigma) if isinstance(sigma, (int, float)) else sigma
            sg = check_sequence(sg, "sigma", "GaussianBlur", check_float, 2,
                                expected="a number or a sequence of two numbers")
            if any(s < 0 for s in sg):
                raise ValueError(f"For 'GaussianBlur', 'sigma' must be non-negative, but got "
                                 f"{sigma}")
        self.kernel_size, self.sigma = ks, sg

    def __call__(self, img):
        img = _image_2d3d("GaussianBlur", img)
        (wx, wy), (sx, sy) = self.kernel_size, self.sigma
        sx = sx if sx > 0 else _opencv_sigma(wx)
        sy = sy if sy > 0 else sx
        if img.dtype == np.uint8:
            kx, ky = _gaussian_kernel_fixed(wx, sx), _gaussian_kernel_fixed(wy, sy)
            acc = _convolve_axis(_convolve_axis(img.astype(np.int64), kx, 1), ky, 0)
            return np.clip((acc + (1 << 15)) >> 16, 0, 255).astype(np.uint8)
        kx, ky = _gaussian_kernel(wx, sx), _gaussian_kernel(wy, sy)
        out = _convolve_axis(_convolve_axis(img.astype(np.float64), kx, 1), ky, 0)
        if img.dtype.kind == "f":
            return out.astype(img.dtype)
        info = np.iinfo(img.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(img.dtype)


_WARP_MODES = {Inter.NEAREST: "nearest", Inter.BILINEAR: "bilinear"}


def _check_warp_inter(owner, value, arg):
    inter = _check_mode(owner, value, Inter, arg)
    if inter not in _WARP_MODES:
        raise ValueError(f"For '{owner}', {arg} {inter.name} is not supported here: use "
                         f"Inter.NEAREST or Inter.BILINEAR")
    return inter


def _check_fill3(owner, fill_value):
    """(r, g, b) from one int or three, each in [0, 255]."""
    fill = _check_fill(owner, fill_value)
    return fill * 3 if len(fill) == 1 else fill


def _as_array_keep_pil(owner, img):
    """(array, back) where back(array) returns a PIL image for a PIL input."""
    if _is_pil(img):
        from PIL import Image
        mode = img.mode
        return np.asarray(img), lambda a: Image.fromarray(a, mode)
    return _image_2d3d(owner, img), lambda a: a


def _fill_for(img, fill):
    return fill if img.ndim == 3 and img.shape[2] == 3 else fill[:1]


def _rotate(img, degrees, inter, expand, center, fill):
    H, W = img.shape[:2]
    c = ((W - 1) / 2.0, (H - 1) / 2.0) if center is None else (
        float(np.float32(center[0])), float(np.float32(center[1])))
    m = _warp.rotation_matrix(c, degrees)
    size = (H, W)
    if expand:
        rad = degrees * np.pi / 180.0
        b = np.float32(np.cos(rad)) * np.float32(0.5)
        a = np.float32(np.sin(rad)) * np.float32(0.5)
        h32, w32 = np.float32(H), np.float32(W)
        xs = [-a * h32 - b * w32, a * h32 - b * w32]
        ys = [b * h32 - a * w32, -b * h32 - a * w32]
        xs, ys = xs + [-x for x in xs], ys + [-y for y in ys]
        bw, bh = np.float32(max(xs) - min(xs)), np.float32(max(ys) - min(ys))
        m[0, 2] += bw / 2.0 - W / 2.0
        m[1, 2] += bh / 2.0 - H / 2.0
        size = (int(np.rint(bh)), int(np.rint(bw)))
    return _warp.warp_affine(img, m, size, _WARP_MODES[inter], _fill_for(img, fill))


class Rotate(TensorOperation):
    """Rotate counter-clockwise by `degrees` about `center` (x, y; default the image centre).

    Args:
        degrees (float): the angle.
        resample (Inter): NEAREST (default) or BILINEAR.
        expand (bool): grow the output to hold the whole rotated image.
        center (tuple, optional): (x, y) of the pivot.
        fill_value (int | tuple): the colour of the uncovered area, (r, g, b) or one value.
    """

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        self.degrees = check_float(degrees, "degrees", "Rotate")
        self.resample = _check_warp_inter("Rotate", resample, "resample")
        self.expand = check_bool(expand, "expand", "Rotate")
        if center is not None:
            center = check_sequence(center, "center", "Rotate", check_float, 2,
                                    expected="a sequence of two numbers (x, y)")
        self.center = center
        self.fill_value = _check_fill3("Rotate", fill_value)

    def __call__(self, img):
        arr, back = _as_array_keep_pil("Rotate", img)
        return back(_rotate(arr, self.degrees, self.resample, self.expand, self.center,
                            self.fill_value))


def _affine_inverse(center, degrees, translate, scale, shear):
    """The destination -> source matrix of a rotation by `degrees`, scale, shear (x, y in
    degrees) and translation about `center`."""
    rot = np.deg2rad(degrees)
    sx, sy = np.deg2rad(shear[0]), np.deg2rad(shear[1])
    cx, cy = center
    tx, ty = translate
    a = np.cos(rot - sy) / np.cos(sy)
    b = -np.cos(rot - sy) * np.tan(sx) / np.cos(sy) - np.sin(rot)
    c = np.sin(rot - sy) / np.cos(sy)
    d = -np.sin(rot - sy) * np.tan(sx) / np.cos(sy) + np.cos(rot)
    m = np.array([d, -b, 0.0, -c, a, 0.0]) / scale
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m.reshape(2, 3)


def _affine(img, degrees, translate, scale, shear, inter, fill):
    H, W = img.shape[:2]
    inv = _affine_inverse(((W - 1) / 2.0, (H - 1) / 2.0), degrees,
                          (translate[0] * W, translate[1] * H), scale, shear)
    return _warp.warp_affine(img, inv, (H, W), _WARP_MODES[inter], _fill_for(img, fill),
                             inverse_map=True)


def _check_shear(owner, shear):
    if isinstance(shear, (int, float)) and not isinstance(shear, bool):
        return (float(shear), 0.0)
    return check_sequence(shear, "shear", owner, check_float, 2,
                          expected="a number or a sequence of two numbers")


class Affine(TensorOperation):
    """Rotate by `degrees` (clockwise on screen), translate by `translate` (fractions of the
    width and height, in [-1, 1]), scale and shear (degrees along x, or (x, y)) about the image
    centre.

    Args:
        resample (Inter): NEAREST (default) or BILINEAR.
        fill_value (int | tuple): the colour of the uncovered area.
    """

    def __init__(self, degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0):
        self.degrees = check_float(degrees, "degrees", "Affine")
        self.translate = check_sequence(
            translate, "translate", "Affine",
            lambda v, a, o: check_float_range(v, a, o, -1.0, 1.0), 2,
            expected="a sequence of two numbers in [-1, 1]")
        self.scale = check_float(scale, "scale", "Affine")
        if self.scale <= 0:
            raise ValueError(f"For 'Affine', 'scale' must be positive, but got {scale}")
        self.shear = _check_shear("Affine", shear)
        self.resample = _check_warp_inter("Affine", resample, "resample")
        self.fill_value = _check_fill3("Affine", fill_value)

    def __call__(self, img):
        arr, back = _as_array_keep_pil("Affine", img)
        return back(_affine(arr, self.degrees, self.translate, self.scale, self.shear,
                            self.resample, self.fill_value))


def _perspective_matrix(src, dst):
    """The 3x3 matrix taking the four points `src` to `dst` (cv::getPerspectiveTransform)."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(src, dst):
        rows.append([x, y, 1, 0, 0, 0, -x * u, -y * u])
        rows.append([0, 0, 0, x, y, 1, -x * v, -y * v])
        rhs += [u, v]
    try:
        h = np.linalg.solve(np.array(rows, np.float64), np.array(rhs, np.float64))
    except np.linalg.LinAlgError:
        raise ValueError(f"For 'Perspective', the points {src} -> {dst} define no perspective "
                         f"transform (three of them are collinear)") from None
    return np.append(h, 1.0).reshape(3, 3)


def _check_points(owner, points, arg):
    each = lambda p, a, o: check_sequence(p, a, o, check_int, 2, expected="[x, y]")
    return [tuple(p) for p in check_sequence(points, arg, owner, each, 4,
                                             expected="a sequence of four [x, y] points")]


class Perspective(TensorOperation):
    """Warp so that the four `start_points` land on `end_points` ([x, y] each: top-left,
    top-right, bottom-right, bottom-left); `interpolation` NEAREST or BILINEAR."""

    def __init__(self, start_points, end_points, interpolation=Inter.BILINEAR):
        self.start_points = _check_points("Perspective", start_points, "start_points")
        self.end_points = _check_points("Perspective", end_points, "end_points")
        self.interpolation = _check_warp_inter("Perspective", interpolation, "interpolation")

    def __call__(self, img):
        arr, back = _as_array_keep_pil("Perspective", img)
        m = _perspective_matrix(self.start_points, self.end_points)
        return back(_warp.warp_perspective(arr, m, arr.shape[:2],
                                           _WARP_MODES[self.interpolation], (0,)))
