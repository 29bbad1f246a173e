"""Image, sampling and box functions (ops.grid_sample, ops.affine_grid, ops.crop_and_resize,
ops.deformable_conv2d, ops.iou, ...) and the composite image classes (resizes, grid samplers,
ROIAlign, colour conversion, glimpses, deformable offsets).

Resizing is separable: along each resized axis the output is a constant (out, in) matrix of
interpolation weights times the input (a gather for nearest neighbours), so every order of
gradient comes from matmul and gather. Sampling at data-dependent points (grid_sample,
crop_and_resize, deformable offsets) gathers the corner values at constant integer positions
and weights them by the fractional coordinates, so gradients reach both the image and the
coordinates."""
import math

import numpy as np

from ..._autodiff.tape import const, wrap
from ..._validator import check_bool, check_one_of
from ...common import dtype as mstype
from ...common.seed import generator
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import image_ops as I
from ..primitive import Primitive
from . import array_func as AF
from . import clip_func as CF
from . import layer_func as LF
from . import math_func as MF
from ._checks import _tensor
from .math_func import cast, matmul

__all__ = ["iou", "bounding_box_encode", "bounding_box_decode", "check_valid", "affine_grid",
           "grid_sample", "crop_and_resize", "deformable_conv2d"]

# User-facing Primitive classes defined here (MindSpore classes that are composites), exported
# by ops.operations.
PRIMITIVE_CLASSES = ("ResizeBilinearV2", "ResizeBicubic", "ResizeNearestNeighbor",
                     "ResizeNearestNeighborV2", "ResizeArea", "ResizeLinear1D",
                     "UpsampleNearest3D", "UpsampleTrilinear3D", "AffineGrid", "GridSampler2D",
                     "GridSampler3D", "CropAndResize", "ROIAlign", "RGBToHSV",
                     "HSVToRGB", "AdjustHue", "AdjustSaturation",
                     "ScaleAndTranslate", "ExtractGlimpse", "DeformableOffsets")


# ---- boxes ----------------------------------------------------------------------------------------

def iou(anchor_boxes, gt_boxes, mode="iou"):
    """(M, N) intersection over union ('iou') or over the ground-truth area ('iof') of pixel
    boxes (x1, y1, x2, y2): gt_boxes (M, 4) against anchor_boxes (N, 4)."""
    return I.IOU(mode)(anchor_boxes, gt_boxes)


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0)):
    """The deltas taking each anchor box to its ground-truth box (see BoundingBoxEncode)."""
    return I.BoundingBoxEncode(means, stds)(anchor_box, groundtruth_box)


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
    """The boxes that `deltas` make of the anchor boxes (see BoundingBoxDecode)."""
    return I.BoundingBoxDecode(max_shape, means, stds, wh_ratio_clip)(anchor_box, deltas)


def check_valid(bboxes, img_metas):
    """Whether each box lies inside the image of (height, width, ratio) `img_metas`."""
    return I.CheckValid()(bboxes, img_metas)


# ---- separable resampling -------------------------------------------------------------------------

def _along(x, axis, weights):
    """x with axis `axis` replaced by weights (out, in) @ that axis."""
    w = wrap(weights.astype(x._data.dtype))
    if axis == x.ndim - 1:
        return matmul(x, A.transpose(w, (1, 0)))
    if axis == x.ndim - 2:
        return matmul(w, x)
    perm = [a for a in range(x.ndim) if a != axis] + [axis]
    moved = matmul(A.transpose(x, tuple(perm)), A.transpose(w, (1, 0)))
    back = list(np.argsort(perm))
    return A.transpose(moved, tuple(int(a) for a in back))


def _scale(n_in, n_out, align_corners):
    return (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out


def _linear_weights(src, n_in):
    """(out, in) weights interpolating linearly at source coordinates `src`, clamped to the
    edges (a coordinate below 0 takes the first element)."""
    floor = np.floor(src)
    lo = np.clip(floor, 0, n_in - 1).astype(np.int64)
    hi = np.clip(np.ceil(src), 0, n_in - 1).astype(np.int64)
    frac = src - floor
    w = np.zeros((len(src), n_in))
    rows = np.arange(len(src))
    np.add.at(w, (rows, lo), 1 - frac)
    np.add.at(w, (rows, hi), frac)
    return w


def _tf_linear(n_in, n_out, align_corners, half_pixel):
    scale = _scale(n_in, n_out, align_corners)
    i = np.arange(n_out, dtype=np.float64)
    src = (i + 0.5) * scale - 0.5 if half_pixel else i * scale
    return _linear_weights(src, n_in)


def _tf_nearest(n_in, n_out, align_corners, half_pixel):
    scale = _scale(n_in, n_out, align_corners)
    i = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = np.floor(i * scale + 0.5)
    else:
        src = np.floor((i + 0.5) * scale if half_pixel else i * scale)
    return np.clip(src, 0, n_in - 1).astype(np.int64)


_CUBIC_TABLE = 1024


def _cubic_taps(delta, a):
    """Keys cubic weights of the taps at -1, 0, 1, 2 for fractional offset `delta`, quantised to
    1/1024 as TensorFlow's (and MindSpore's) coefficient table is."""
    x = np.rint(delta * _CUBIC_TABLE) / _CUBIC_TABLE

    def near(t):
        return ((a + 2) * t - (a + 3)) * t * t + 1

    def far(t):
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a

    return np.stack([far(x + 1), near(x), near(1 - x), far(2 - x)], -1)


def _tf_cubic(n_in, n_out, align_corners, half_pixel):
    scale = _scale(n_in, n_out, align_corners)
    i = np.arange(n_out, dtype=np.float64)
    src = (i + 0.5) * scale - 0.5 if half_pixel else i * scale
    base = np.floor(src)
    taps = _cubic_taps(src - base, -0.5 if half_pixel else -0.75)
    idx = base[:, None].astype(np.int64) + np.arange(-1, 3)
    if half_pixel:  # taps outside the input are dropped and the rest renormalised
        inside = (idx >= 0) & (idx < n_in)
        taps = taps * inside
        taps = taps / taps.sum(1, keepdims=True)
    w = np.zeros((n_out, n_in))
    np.add.at(w, (np.repeat(np.arange(n_out), 4), np.clip(idx, 0, n_in - 1).reshape(-1)),
              taps.reshape(-1))
    return w


def _tf_area(n_in, n_out, align_corners):
    """(out, in) weights averaging each output cell's span [i * scale, (i + 1) * scale) of the
    input, by overlap length."""
    scale = _scale(n_in, n_out, align_corners)
    w = np.zeros((n_out, n_in))
    for i in range(n_out):
        start, end = i * scale, (i + 1) * scale
        for j in range(int(math.floor(start)), int(math.ceil(end))):
            w[i, min(j, n_in - 1)] += (min(j + 1, end) - max(j, start)) / scale
    return w


def _torch_linear(n_in, n_out, align_corners, scale_factor=None):
    i = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = i * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    else:
        ratio = 1.0 / scale_factor if scale_factor else n_in / n_out
        src = np.maximum((i + 0.5) * ratio - 0.5, 0.0)
    return _linear_weights(src, n_in)


def _torch_nearest(n_in, n_out, scale_factor=None):
    ratio = 1.0 / scale_factor if scale_factor else n_in / n_out
    return np.minimum(np.floor(np.arange(n_out) * ratio).astype(np.int64), n_in - 1)


def _size_arg(size, n, op, arg="size"):
    """n positive ints from a tuple/list or an int Tensor."""
    if isinstance(size, Tensor):
        if size._data.dtype.kind not in "iu":
            raise TypeError(f"For '{op}', '{arg}' must be an int32 or int64 Tensor, but got "
                            f"{size.dtype}")
        size = size._data.reshape(-1).tolist()
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        size = [int(size)]
    if not isinstance(size, (tuple, list)) or len(size) != n or \
            not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in size):
        raise ValueError(f"For '{op}', '{arg}' must hold {n} ints, but got {size!r}")
    if min(size) < 1:
        raise ValueError(f"For '{op}', '{arg}' must be positive, but got {tuple(size)}")
    return tuple(int(v) for v in size)


def _image(x, rank, op, arg="images", floats=True):
    _tensor(x, op, arg)
    if x.ndim != rank:
        raise ValueError(f"For '{op}', '{arg}' must be {rank}-D, but got shape {x.shape}")
    if floats and x._data.dtype.kind != "f":
        raise TypeError(f"For '{op}', '{arg}' must be a float Tensor, but got {x.dtype}")
    return x


def _check_corners(align_corners, half_pixel_centers, op):
    check_bool(align_corners, "align_corners", op)
    check_bool(half_pixel_centers, "half_pixel_centers", op)
    if align_corners and half_pixel_centers:
        raise ValueError(f"For '{op}', 'align_corners' and 'half_pixel_centers' cannot both be "
                         f"True")


class _TFResize(Primitive):
    """TensorFlow-style resize of the last two axes of NCHW images to `size` (align_corners,
    half_pixel_centers)."""

    _weights = None
    _floats = True

    def __init__(self, align_corners=False, half_pixel_centers=False):
        super().__init__()
        _check_corners(align_corners, half_pixel_centers, self.name)
        self.align_corners = align_corners
        self.half_pixel_centers = half_pixel_centers

    def __call__(self, image, size):
        return self._resize(image, _size_arg(size, 2, self.name))

    def _resize(self, image, size):
        _image(image, 4, self.name, "image", self._floats)
        out = image
        for axis, n_out in zip((2, 3), size):
            out = self._axis(out, axis, n_out)
        return out

    def _axis(self, x, axis, n_out):
        w = type(self)._weights(x.shape[axis], n_out, self.align_corners,
                                self.half_pixel_centers)
        return _along(x, axis, w)


class ResizeBilinearV2(_TFResize):
    """`ResizeBilinearV2(align_corners=False, half_pixel_centers=False)(image, size)`: bilinear
    resize of NCHW `image` to `size` (H, W)."""

    _weights = staticmethod(_tf_linear)


class ResizeBicubic(_TFResize):
    """`ResizeBicubic(align_corners=False, half_pixel_centers=False)(image, size)`: bicubic
    (Keys, a = -0.75, or -0.5 with half-pixel centres) resize of NCHW `image`."""

    _weights = staticmethod(_tf_cubic)


class ResizeNearestNeighborV2(_TFResize):
    """`ResizeNearestNeighborV2(align_corners=False, half_pixel_centers=False)(image, size)`:
    nearest-neighbour resize of NCHW `image` (any dtype)."""

    _floats = False

    def _axis(self, x, axis, n_out):
        return A.gather(x, _tf_nearest(x.shape[axis], n_out, self.align_corners,
                                       self.half_pixel_centers), axis)


class ResizeNearestNeighbor(ResizeNearestNeighborV2):
    """`ResizeNearestNeighbor(size, align_corners=False, half_pixel_centers=False)(input_x)`:
    nearest-neighbour resize of the last two axes of `input_x` to `size`."""

    def __init__(self, size, align_corners=False, half_pixel_centers=False):
        super().__init__(align_corners, half_pixel_centers)
        self.size = _size_arg(size, 2, self.name)

    def __call__(self, input_x):
        return self._resize(input_x, self.size)


class ResizeArea(Primitive):
    """`ResizeArea(align_corners=False)(images, size)`: area-averaging resize of NHWC `images`
    to `size` (H, W); the result is float32."""

    def __init__(self, align_corners=False):
        super().__init__()
        self.align_corners = check_bool(align_corners, "align_corners", self.name)

    def __call__(self, images, size):
        _image(images, 4, self.name, floats=False)
        size = _size_arg(size, 2, self.name)
        out = images if images._data.dtype == np.float32 else cast(images, mstype.float32)
        for axis, n_out in zip((1, 2), size):
            out = _along(out, axis, _tf_area(out.shape[axis], n_out, self.align_corners))
        return out


class ResizeLinear1D(Primitive):
    """`ResizeLinear1D(coordinate_transformation_mode='align_corners')(x, size)`: linear resize
    of the last axis of (N, C, L) `x` to `size`; 'half_pixel' or 'asymmetric' map output i to
    (i + 0.5) * scale - 0.5 or i * scale instead of the corner-aligned position."""

    def __init__(self, coordinate_transformation_mode="align_corners"):
        super().__init__()
        self.coordinate_transformation_mode = check_one_of(
            coordinate_transformation_mode, ("align_corners", "half_pixel", "asymmetric"),
            "coordinate_transformation_mode", self.name)

    def __call__(self, x, size):
        _image(x, 3, self.name, "x")
        (n_out,) = _size_arg(size, 1, self.name)
        n_in = x.shape[2]
        mode = self.coordinate_transformation_mode
        i = np.arange(n_out, dtype=np.float64)
        if mode == "align_corners":
            src = i * _scale(n_in, n_out, True) if n_out > 1 else np.zeros(n_out)
        elif mode == "half_pixel":
            src = np.maximum((i + 0.5) * (n_in / n_out) - 0.5, 0.0)
        else:
            src = i * (n_in / n_out)
        return _along(x, 2, _linear_weights(src, n_in))


def _upsample_sizes(x, output_size, scales, op):
    """(output sizes, scale per axis or None) of a 3-D upsampling: exactly one of
    `output_size` and `scales` given."""
    if (output_size is None) == (scales is None):
        raise ValueError(f"For '{op}', exactly one of 'output_size' and 'scales' must be given")
    if output_size is not None:
        return _size_arg(output_size, 3, op, "output_size"), (None,) * 3
    if not isinstance(scales, (tuple, list)) or len(scales) != 3 or min(scales) <= 0:
        raise ValueError(f"For '{op}', 'scales' must be 3 positive floats, but got {scales!r}")
    sizes = tuple(int(math.floor(n * s)) for n, s in zip(x.shape[2:], scales))
    return sizes, tuple(float(s) for s in scales)


class UpsampleNearest3D(Primitive):
    """`UpsampleNearest3D()(x, output_size=None, scales=None)`: nearest-neighbour upsampling of
    NCDHW float `x` (output i takes input floor(i / scale))."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, output_size=None, scales=None):
        _image(x, 5, self.name, "x")
        sizes, factors = _upsample_sizes(x, output_size, scales, self.name)
        out = x
        for axis, (n_out, f) in enumerate(zip(sizes, factors), 2):
            out = A.gather(out, _torch_nearest(x.shape[axis], n_out, f), axis)
        return out


class UpsampleTrilinear3D(Primitive):
    """`UpsampleTrilinear3D(align_corners=False)(x, output_size=None, scales=None)`: trilinear
    upsampling of NCDHW `x`."""

    def __init__(self, align_corners=False):
        super().__init__()
        self.align_corners = check_bool(align_corners, "align_corners", self.name)

    def __call__(self, x, output_size=None, scales=None):
        _image(x, 5, self.name, "x")
        sizes, factors = _upsample_sizes(x, output_size, scales, self.name)
        out = x
        for axis, (n_out, f) in enumerate(zip(sizes, factors), 2):
            out = _along(out, axis, _torch_linear(x.shape[axis], n_out, self.align_corners, f))
        return out


# ---- affine grids and grid sampling ---------------------------------------------------------------

def _base_coords(n, align_corners):
    """The normalised [-1, 1] coordinates of n pixel centres (or corners)."""
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return (2.0 * np.arange(n) + 1.0) / n - 1.0


def affine_grid(theta, size, align_corners=False):
    """The sampling grid of the affine maps `theta` (N, 2, 3) over an output of `size`
    (N, C, H, W): (N, H, W, 2) of (x, y); or theta (N, 3, 4) and size (N, C, D, H, W):
    (N, D, H, W, 3) of (x, y, z)."""
    op = "affine_grid"
    _tensor(theta, op, "theta")
    if theta._data.dtype.kind != "f":
        raise TypeError(f"For '{op}', 'theta' must be a float Tensor, but got {theta.dtype}")
    size = tuple(int(v) for v in (size._data.reshape(-1) if isinstance(size, Tensor) else size))
    nd = len(size) - 2
    if nd not in (2, 3) or theta.shape != (size[0], nd, nd + 1):
        raise ValueError(f"For '{op}', 'theta' must be (N, 2, 3) with a 4-D 'size' or (N, 3, 4) "
                         f"with a 5-D 'size', but got {theta.shape} and {size}")
    spatial = size[2:]
    axes = [_base_coords(n, check_bool(align_corners, "align_corners", op)) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")  # (D,) H, W order
    base = np.stack([m.reshape(-1) for m in mesh[::-1]] + [np.ones(mesh[0].size)], 1)
    grid = matmul(wrap(base.astype(theta._data.dtype)), A.transpose(theta, (0, 2, 1)))
    return A.reshape(grid, (size[0],) + spatial + (nd,))


class AffineGrid(Primitive):
    """`AffineGrid(align_corners=False)(theta, output_size)`: see `affine_grid`."""

    def __init__(self, align_corners=False):
        super().__init__()
        self.align_corners = check_bool(align_corners, "align_corners", self.name)

    def __call__(self, theta, output_size):
        return affine_grid(theta, output_size, self.align_corners)


def _unnormalise(g, n, align_corners):
    """Pixel coordinates of normalised grid coordinates g (a Tensor) along an axis of size n."""
    if align_corners:
        return (g + 1.0) * ((n - 1) / 2.0)
    return ((g + 1.0) * n - 1.0) / 2.0


def _reflect(x, n, align_corners):
    """x reflected into the image along an axis of size n (PyTorch's 'reflection' padding),
    then clipped to [0, n - 1]."""
    lo, hi = (0.0, n - 1.0) if align_corners else (-0.5, n - 0.5)
    span = hi - lo
    if span <= 0:
        return x * 0.0
    dist = MF.abs(x - lo)
    flips = np.floor(dist._data / span)
    extra = dist - wrap(flips * span)
    even = wrap((flips % 2) == 0)
    out = AF.where(even, extra + lo, (extra * -1.0) + hi)
    return CF.clamp(out, 0.0, n - 1.0)


def _sample_points(input, coords, mode, padding_mode, align_corners):
    """input (N, C, *S) sampled at pixel coordinates `coords` (list over spatial axes, fastest
    last: (..., z), y, x order matching S, each a Tensor (N, P)) -> (N, C, P)."""
    n, c = input.shape[:2]
    sizes = input.shape[2:]
    nd = len(sizes)
    if padding_mode == "border":
        coords = [CF.clamp(x, 0.0, s - 1.0) for x, s in zip(coords, sizes)]
    elif padding_mode == "reflection":
        coords = [_reflect(x, s, align_corners) for x, s in zip(coords, sizes)]
    flat_in = A.transpose(A.reshape(input, (n, c, -1)), (0, 2, 1))  # (N, S, C)
    batch = np.arange(n)[:, None]
    strides = [int(np.prod(sizes[i + 1:])) for i in range(nd)]
    if mode == "nearest":
        idx = [np.rint(x._data).astype(np.int64) for x in coords]
        inside = np.ones(idx[0].shape, bool)
        for i, s in zip(idx, sizes):
            inside &= (i >= 0) & (i < s)
        flat = sum(np.clip(i, 0, s - 1) * st for i, s, st in zip(idx, sizes, strides))
        vals = A.getitem(flat_in, (batch, flat))  # (N, P, C)
        out = vals * wrap(inside[..., None].astype(input._data.dtype))
        return A.transpose(out, (0, 2, 1))
    lows = [np.floor(x._data) for x in coords]
    fracs = [x - wrap(lo) for x, lo in zip(coords, lows)]
    out = None
    for corner in range(2 ** nd):
        weight, flat = None, 0
        inside = np.ones(lows[0].shape, bool)
        for axis in range(nd):
            up = (corner >> (nd - 1 - axis)) & 1
            pos = lows[axis].astype(np.int64) + up
            inside &= (pos >= 0) & (pos < sizes[axis])
            flat = flat + np.clip(pos, 0, sizes[axis] - 1) * strides[axis]
            w = fracs[axis] if up else 1.0 - fracs[axis]
            weight = w if weight is None else weight * w
        weight = weight * wrap(inside.astype(input._data.dtype))
        term = A.getitem(flat_in, (batch, flat)) * A.expand_dims(weight, 2)
        out = term if out is None else out + term
    return A.transpose(out, (0, 2, 1))


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample NCHW (or NCDHW) `input` at the normalised points of `grid` (N, Ho, Wo, 2) of
    (x, y) (or (N, Do, Ho, Wo, 3) of (x, y, z)) in [-1, 1]: 'bilinear' (trilinear) or
    'nearest'; points outside read zeros ('zeros'), the edge ('border') or the reflection
    ('reflection'). Differentiable w.r.t. input and grid."""
    op = "grid_sample"
    _tensor(input, op)
    _tensor(grid, op, "grid")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim or grid.shape[0] != input.shape[0] \
            or grid.shape[-1] != input.ndim - 2:
        raise ValueError(f"For '{op}', 'input' must be 4-D or 5-D and 'grid' (N, ..., "
                         f"{input.ndim - 2}) of the same rank, but got {input.shape} and "
                         f"{grid.shape}")
    if input._data.dtype.kind != "f" or grid._data.dtype != input._data.dtype:
        raise TypeError(f"For '{op}', 'input' and 'grid' must be float Tensors of one dtype, but "
                        f"got {input.dtype} and {grid.dtype}")
    check_one_of(mode, ("bilinear", "nearest"), "mode", op)
    check_one_of(padding_mode, ("zeros", "border", "reflection"), "padding_mode", op)
    align_corners = bool(align_corners)
    nd = input.ndim - 2
    out_sp = grid.shape[1:-1]
    g = A.reshape(grid, (grid.shape[0], -1, nd))
    # grid's last axis is (x, y[, z]); the input's spatial axes are ([D,] H, W)
    coords = [_unnormalise(A.getitem(g, (slice(None), slice(None), nd - 1 - axis)),
                           input.shape[2 + axis], align_corners) for axis in range(nd)]
    out = _sample_points(input, coords, mode, padding_mode, align_corners)
    return A.reshape(out, input.shape[:2] + out_sp)


class GridSampler2D(Primitive):
    """`GridSampler2D(interpolation_mode='bilinear', padding_mode='zeros',
    align_corners=False)(input_x, grid)`: see `grid_sample` (4-D)."""

    _rank = 4

    def __init__(self, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False):
        super().__init__()
        self.interpolation_mode = check_one_of(interpolation_mode, ("bilinear", "nearest"),
                                               "interpolation_mode", self.name)
        self.padding_mode = check_one_of(padding_mode, ("zeros", "border", "reflection"),
                                         "padding_mode", self.name)
        self.align_corners = check_bool(align_corners, "align_corners", self.name)

    def __call__(self, input_x, grid):
        _image(input_x, self._rank, self.name, "input_x")
        return grid_sample(input_x, grid, self.interpolation_mode, self.padding_mode,
                           self.align_corners)


class GridSampler3D(GridSampler2D):
    """`GridSampler3D(interpolation_mode='bilinear', padding_mode='zeros',
    align_corners=False)(input_x, grid)`: see `grid_sample` (5-D)."""

    _rank = 5


# ---- crops and regions of interest ----------------------------------------------------------------

def _crop_coords(lo, hi, n_in, n_out):
    """Source coordinates (Tensor (N, n_out)) of n_out samples from normalised lo to hi (Tensors
    (N, 1)) over an axis of n_in pixels."""
    if n_out > 1:  # in TensorFlow's order of float32 operations (nearest rounds the result)
        step = (hi - lo) * float(n_in - 1) / float(n_out - 1)
        return lo * float(n_in - 1) + wrap(np.arange(n_out, dtype=lo._data.dtype)[None]) * step
    return (lo + hi) * (0.5 * (n_in - 1))


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0):
    """Crops of NHWC `image` at normalised `boxes` (N, 4) of (y1, x1, y2, x2) from images
    `box_indices` (N,), each resized to `crop_size` (h, w): (N, h, w, C) float32. Samples
    outside the image take `extrapolation_value`. 'bilinear' is differentiable w.r.t. image
    and boxes; 'nearest' and 'bilinear_v2' w.r.t. image. 'bilinear_v2' is MindSpore's variant:
    the box's pixel span [trunc(y1 * H), trunc(y2 * H)] resized with half-pixel centres, samples
    clamped to the span and the image (never extrapolated)."""
    op = "crop_and_resize"
    _image(image, 4, op, "image", floats=False)
    _tensor(boxes, op, "boxes")
    if boxes._data.dtype != np.float32 and boxes._data.dtype.kind != "f":
        raise TypeError(f"For '{op}', 'boxes' must be a float Tensor, but got {boxes.dtype}")
    idx = box_indices._data if isinstance(box_indices, Tensor) else np.asarray(box_indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"For '{op}', 'box_indices' must be int32 Tensor, but got {idx.dtype}")
    if boxes.ndim != 2 or boxes.shape[1] != 4 or idx.shape != (boxes.shape[0],):
        raise ValueError(f"For '{op}', 'boxes' must be (N, 4) and 'box_indices' (N,), but got "
                         f"{boxes.shape} and {idx.shape}")
    b, h, w, c = image.shape
    if idx.size and (idx.min() < 0 or idx.max() >= b):
        raise ValueError(f"For '{op}', 'box_indices' must lie in [0, {b}), but got {idx}")
    ch, cw = _size_arg(tuple(crop_size), 2, op, "crop_size")
    check_one_of(method, ("bilinear", "nearest", "bilinear_v2"), "method", op)
    img = image if image._data.dtype == np.float32 else cast(image, mstype.float32)
    if method == "bilinear_v2":
        return _crop_spans(img, boxes._data.astype(np.float32), idx.astype(np.int64), ch, cw)
    bx = boxes if boxes._data.dtype == np.float32 else cast(boxes, mstype.float32)
    col = [A.getitem(bx, (slice(None), slice(k, k + 1))) for k in range(4)]
    ys = _crop_coords(col[0], col[2], h, ch)  # (N, ch)
    xs = _crop_coords(col[1], col[3], w, cw)  # (N, cw)
    valid = ((ys._data >= 0) & (ys._data <= h - 1))[:, :, None] & \
        ((xs._data >= 0) & (xs._data <= w - 1))[:, None, :]
    flat_img = A.reshape(img, (b, h * w, c))
    batch = idx.astype(np.int64)[:, None, None]
    if method == "nearest":
        ry = np.clip(np.floor(np.abs(ys._data) + 0.5) * np.sign(ys._data), 0, h - 1)
        rx = np.clip(np.floor(np.abs(xs._data) + 0.5) * np.sign(xs._data), 0, w - 1)
        flat = (ry.astype(np.int64)[:, :, None] * w + rx.astype(np.int64)[:, None, :])
        out = A.getitem(flat_img, (batch, flat))
    else:
        top, left = np.floor(ys._data), np.floor(xs._data)
        bottom, right = np.ceil(ys._data), np.ceil(xs._data)
        dy = A.expand_dims(A.expand_dims(ys - wrap(top), 2), 3)  # (N, ch, 1, 1)
        dx = A.expand_dims(A.expand_dims(xs - wrap(left), 1), 3)  # (N, 1, cw, 1)

        def at(rows, cols):
            r = np.clip(rows, 0, h - 1).astype(np.int64)[:, :, None]
            q = np.clip(cols, 0, w - 1).astype(np.int64)[:, None, :]
            return A.getitem(flat_img, (batch, r * w + q))

        upper = at(top, left) + (at(top, right) - at(top, left)) * dx
        lower = at(bottom, left) + (at(bottom, right) - at(bottom, left)) * dx
        out = upper + (lower - upper) * dy
    fill = wrap(np.full(out.shape, extrapolation_value, np.float32))
    return AF.where(wrap(np.broadcast_to(valid[..., None], out.shape)), out, fill)


def _span_coords(lo, hi, n, n_out):
    """bilinear_v2's sample coordinates (N, n_out) along an axis of n pixels: the span
    [trunc(lo * n), trunc(hi * n)] resized with half-pixel centres, clamped to it, then to the
    image (a reversed span collapses onto its start)."""
    start = np.trunc(lo.astype(np.float64) * np.float32(n))
    end = np.trunc(hi.astype(np.float64) * np.float32(n))
    length = end - start + 1
    pos = start[:, None] + (np.arange(n_out) + 0.5) * (length[:, None] / n_out) - 0.5
    pos = np.maximum(np.minimum(pos, end[:, None]), start[:, None])
    return np.clip(pos, 0, n - 1)


def _crop_spans(img, boxes, batch, ch, cw):
    """crop_and_resize's 'bilinear_v2': constant sampling weights (the gradient reaches the
    image only, the positions being piecewise constant in the boxes)."""
    b, h, w, c = img.shape
    ys = _span_coords(boxes[:, 0], boxes[:, 2], h, ch)
    xs = _span_coords(boxes[:, 1], boxes[:, 3], w, cw)
    top, left = np.floor(ys), np.floor(xs)
    bottom, right = np.minimum(top + 1, h - 1), np.minimum(left + 1, w - 1)
    fy = (ys - top)[:, :, None, None].astype(np.float32)
    fx = (xs - left)[:, None, :, None].astype(np.float32)
    flat_img = A.reshape(img, (b, h * w, c))
    rows = batch[:, None, None]

    def at(r, q):
        return A.getitem(flat_img, (rows, r.astype(np.int64)[:, :, None] * w
                                    + q.astype(np.int64)[:, None, :]))

    out = None
    for r, q, wt in ((top, left, (1 - fy) * (1 - fx)), (top, right, (1 - fy) * fx),
                     (bottom, left, fy * (1 - fx)), (bottom, right, fy * fx)):
        term = at(r, q) * wrap(wt)
        out = term if out is None else out + term
    return out


class CropAndResize(Primitive):
    """`CropAndResize(method='bilinear', extrapolation_value=0.0)(x, boxes, box_index,
    crop_size)`: see `crop_and_resize`."""

    def __init__(self, method="bilinear", extrapolation_value=0.0):
        super().__init__()
        self.method = check_one_of(method, ("bilinear", "nearest", "bilinear_v2"), "method",
                                   self.name)
        self.extrapolation_value = float(extrapolation_value)

    def __call__(self, x, boxes, box_index, crop_size):
        return crop_and_resize(x, boxes, box_index, crop_size, self.method,
                               self.extrapolation_value)


def _roi_weights(roi, pooled, scale, sample_num, end_mode, h, w):
    """The flat pixel indices and weights (ph * pw, 4 * samples per bin) of ROI Align for one
    region (x1, y1, x2, y2) in image coordinates: each bin the mean of bilinear samples on a
    regular grid (a sample more than a pixel outside the image counts as 0, one at or past the
    last row or column reads it)."""
    ph, pw = pooled
    x1, y1 = roi[0] * scale, roi[1] * scale
    x2, y2 = (roi[2] + end_mode) * scale, (roi[3] + end_mode) * scale
    if end_mode:  # MindSpore's: no minimum size, a reversed region samples backwards
        rw, rh = x2 - x1, y2 - y1
    else:
        rw, rh = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
    bh, bw = rh / ph, rw / pw
    # the adaptive grid is MindSpore's: bin size rounded down (at least one sample, where
    # MindSpore's CPU kernel divides by zero samples)
    gh = sample_num if sample_num > 0 else max(int(rh / ph), 1)
    gw = sample_num if sample_num > 0 else max(int(rw / pw), 1)
    ys = y1 + np.arange(ph)[:, None] * bh + (np.arange(gh) + 0.5) * bh / gh  # (ph, gh)
    xs = x1 + np.arange(pw)[:, None] * bw + (np.arange(gw) + 0.5) * bw / gw  # (pw, gw)
    y = np.broadcast_to(ys[:, None, :, None], (ph, pw, gh, gw)).reshape(ph * pw, -1)
    x = np.broadcast_to(xs[None, :, None, :], (ph, pw, gh, gw)).reshape(ph * pw, -1)
    inside = (y >= -1.0) & (y <= h) & (x >= -1.0) & (x <= w)
    y, x = np.maximum(y, 0.0), np.maximum(x, 0.0)

    def corners(v, n):
        low = np.minimum(v, n - 1).astype(np.int64)
        edge = low >= n - 1
        high = np.where(edge, n - 1, low + 1)
        frac = np.where(edge, 0.0, v - low)
        return low, high, frac

    yl, yh, ly = corners(y, h)
    xl, xh, lx = corners(x, w)
    scale_in = inside / max(gh * gw, 1)
    index = np.concatenate([yl * w + xl, yl * w + xh, yh * w + xl, yh * w + xh], 1)
    weight = np.concatenate([(1 - ly) * (1 - lx), (1 - ly) * lx, ly * (1 - lx), ly * lx], 1)
    return index, weight * np.tile(scale_in, 4)


class ROIAlign(Primitive):
    """`ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1)
    (features, rois)`: for each region (batch, x1, y1, x2, y2) of `rois` (R, 5), the
    (pooled_height, pooled_width) bins of NCHW `features` averaged from bilinear samples
    (sample_num per bin side, or when 0 the bin size rounded down); region ends are
    x2 + roi_end_mode (with roi_end_mode 0 a region is at least 1 x 1). The
    gradient reaches the features (the regions get none, as in MindSpore)."""

    def __init__(self, pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1):
        super().__init__()
        op = self.name
        for arg, v in (("pooled_height", pooled_height), ("pooled_width", pooled_width),
                       ("sample_num", sample_num), ("roi_end_mode", roi_end_mode)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For '{op}', '{arg}' must be an int, but got {v!r}")
        if isinstance(spatial_scale, bool) or not isinstance(spatial_scale, (int, float)):
            raise TypeError(f"For '{op}', 'spatial_scale' must be a float, but got "
                            f"{spatial_scale!r}")
        self.roi_end_mode = check_one_of(roi_end_mode, (0, 1), "roi_end_mode", op)
        self.pooled_height, self.pooled_width = pooled_height, pooled_width
        self.spatial_scale, self.sample_num = float(spatial_scale), sample_num

    def __call__(self, features, rois):
        op = self.name
        _image(features, 4, op, "features")
        _tensor(rois, op, "rois")
        if rois.ndim != 2 or rois.shape[1] != 5:
            raise ValueError(f"For '{op}', 'rois' must be (R, 5), but got {rois.shape}")
        n, c, h, w = features.shape
        r = rois._data.astype(np.float64)
        batch = r[:, 0].astype(np.int64)
        if batch.size and (batch.min() < 0 or batch.max() >= n):
            raise ValueError(f"For '{op}', the batch indices of 'rois' must lie in [0, {n})")
        bins = self.pooled_height * self.pooled_width
        taps = [_roi_weights(roi[1:], (self.pooled_height, self.pooled_width), self.spatial_scale,
                             self.sample_num, self.roi_end_mode, h, w) for roi in r]
        width = max((t[0].shape[1] for t in taps), default=1)
        index = np.zeros((len(r), bins, width), np.int64)
        weight = np.zeros((len(r), bins, width))
        for k, (i, wt) in enumerate(taps):  # regions with fewer samples padded by zero weights
            index[k, :, :i.shape[1]], weight[k, :, :wt.shape[1]] = i, wt
        pixels = A.transpose(A.reshape(features, (n, c, h * w)), (0, 2, 1))  # (N, HW, C)
        values = A.getitem(pixels, (batch[:, None, None], index))  # (R, bins, taps, C)
        wts = wrap(weight[..., None].astype(features._data.dtype))
        pooled = MF.sum(values * wts, 2)  # (R, bins, C)
        return A.reshape(A.transpose(pooled, (0, 2, 1)),
                         (len(r), c, self.pooled_height, self.pooled_width))


# ---- colour spaces ---------------------------------------------------------------------------------

def _channels(x, op, arg, min_rank=1):
    _tensor(x, op, arg)
    if x.ndim < min_rank or x.shape[-1] != 3:
        raise ValueError(f"For '{op}', '{arg}' must be at least {min_rank}-D with 3 channels on "
                         f"its last axis, but got shape {x.shape}")
    if x._data.dtype.kind != "f":
        raise TypeError(f"For '{op}', '{arg}' must be a float Tensor, but got {x.dtype}")
    lead = (slice(None),) * (x.ndim - 1)
    return [A.getitem(x, lead + (k,)) for k in range(3)]


def _rgb_to_hsv(r, g, b):
    """(h, s, v) in [0, 1] of (r, g, b) Tensors: v the maximum, s the range over v, h the
    sector position of the maximum channel over 6 (0 where the range is 0)."""
    v = MF.maximum(MF.maximum(r, g), b)
    rng = v - MF.minimum(MF.minimum(r, g), b)
    rv, gv, vv, cv = r._data, g._data, v._data, rng._data
    safe_v = AF.where(wrap(vv > 0), v, const(np.ones_like(vv)))
    s = AF.where(wrap(vv > 0), rng / safe_v, const(np.zeros_like(vv)))
    safe_c = AF.where(wrap(cv > 0), rng, const(np.ones_like(cv)))
    hue = AF.where(wrap(rv == vv), (g - b) / safe_c,
                   AF.where(wrap(gv == vv), (b - r) / safe_c + 2.0, (r - g) / safe_c + 4.0))
    hue = AF.where(wrap(cv > 0), hue, const(np.zeros_like(cv))) * (1.0 / 6.0)
    hue = hue + wrap((hue._data < 0).astype(hue._data.dtype))
    return hue, s, v


def _hsv_to_rgb(h, s, v):
    """(r, g, b) of (h, s, v): each channel v * (1 - s * (1 - its hue ramp))."""
    dh = h * 6.0
    ramps = (CF.clamp(MF.abs(dh - 3.0) - 1.0, 0.0, 1.0),
             CF.clamp(2.0 - MF.abs(dh - 2.0), 0.0, 1.0),
             CF.clamp(2.0 - MF.abs(dh - 4.0), 0.0, 1.0))
    return [((ramp - 1.0) * s + 1.0) * v for ramp in ramps]


class RGBToHSV(Primitive):
    """`RGBToHSV()(images)`: RGB in [0, 1] on the last axis to (hue, saturation, value), each in
    [0, 1]. Differentiable (piecewise), as MindSpore's."""

    def __init__(self):
        super().__init__()

    def __call__(self, images):
        return AF.stack(list(_rgb_to_hsv(*_channels(images, self.name, "images"))), -1)


class HSVToRGB(Primitive):
    """`HSVToRGB()(x)`: (hue, saturation, value) on the last axis of a 4-D NHWC `x` to RGB."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        _image(x, 4, self.name, "x")
        return AF.stack(_hsv_to_rgb(*_channels(x, self.name, "x")), -1)


def _scalar_tensor(v, op, arg):
    if isinstance(v, Tensor):
        if v.size != 1:
            raise ValueError(f"For '{op}', '{arg}' must be a scalar, but got shape {v.shape}")
        return float(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"For '{op}', '{arg}' must be a float Tensor, but got {v!r}")
    return float(v)


class AdjustHue(Primitive):
    """`AdjustHue()(image, delta)`: the hue of RGB `image` (at least 3-D, last axis of 3)
    rotated by `delta` (a fraction of the colour wheel)."""

    def __init__(self):
        super().__init__()

    def __call__(self, image, delta):
        d = _scalar_tensor(delta, self.name, "delta")
        h, s, v = _rgb_to_hsv(*_channels(image, self.name, "image", 3))
        h = h + d
        h = h - wrap(np.floor(h._data).astype(h._data.dtype))
        return AF.stack(_hsv_to_rgb(h, s, v), -1)


class AdjustSaturation(Primitive):
    """`AdjustSaturation()(image, scale)`: the saturation of RGB `image` (at least 3-D, last
    axis of 3) multiplied by `scale`, clipped to [0, 1]."""

    def __init__(self):
        super().__init__()

    def __call__(self, image, scale):
        f = _scalar_tensor(scale, self.name, "scale")
        h, s, v = _rgb_to_hsv(*_channels(image, self.name, "image", 3))
        return AF.stack(_hsv_to_rgb(h, CF.clamp(s * f, 0.0, 1.0), v), -1)


# ---- scale and translate ---------------------------------------------------------------------------

def _lanczos(radius):
    def kernel(x):
        with np.errstate(invalid="ignore", divide="ignore"):
            v = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius) / (np.pi ** 2 * x * x)
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, v))
    return kernel, float(radius)


def _keys_cubic(x):
    return np.where(x >= 2, 0.0, np.where(x >= 1, ((-0.5 * x + 2.5) * x - 4) * x + 2,
                                          (1.5 * x - 2.5) * x * x + 1))


def _mitchell_cubic(x):
    return np.where(x >= 2, 0.0,
                    np.where(x >= 1, ((-7 / 18 * x + 2) * x - 10 / 3) * x + 16 / 9,
                             (7 / 6 * x - 2) * x * x + 8 / 9))


_SAMPLING_KERNELS = {
    "lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5),
    "gaussian": (lambda x: np.where(x >= 1.5, 0.0, np.exp(-2.0 * x * x)), 1.5),
    "box": (lambda x: np.where(x < 0.5, 1.0, np.where(x == 0.5, 0.5, 0.0)), 1.0),
    "triangle": (lambda x: np.where(x < 1, 1.0 - x, 0.0), 1.0),
    "keyscubic": (_keys_cubic, 2.0),
    "mitchellcubic": (_mitchell_cubic, 2.0),
}


def _span_weights(n_in, n_out, scale, translate, kernel_type, antialias):
    """(out, in) weights of TensorFlow's scale_and_translate along one axis: output x samples
    the input at (x + 0.5) / scale - translate / scale with the kernel, widened by 1 / scale
    when antialiasing a downscale, normalised to sum 1; samples outside the input are 0. In
    float32, as TensorFlow and MindSpore compute them (the box kernel's edge is exact)."""
    kernel, radius = _SAMPLING_KERNELS[kernel_type]
    f32 = np.float32
    inv_scale = f32(1.0) / f32(scale)
    inv_translate = -inv_scale * f32(translate)
    kernel_scale = max(inv_scale, f32(1.0)) if antialias else f32(1.0)
    reach = f32(radius) * kernel_scale
    w = np.zeros((n_out, n_in))
    for x in range(n_out):
        sample = (f32(x) + f32(0.5)) * inv_scale + inv_translate
        if sample < 0 or sample > n_in:
            continue
        start = min(max(int(math.ceil(sample - reach - f32(0.5))), 0), n_in - 1)
        end = min(max(int(math.floor(sample + reach - f32(0.5))), 0), n_in - 1) + 1
        src = np.arange(start, end).astype(f32)
        weights = kernel(np.abs((src + f32(0.5) - sample) * (f32(1.0) / kernel_scale)))
        weights = weights.astype(np.float64)
        total = weights.sum()
        if abs(total) >= 1000.0 * np.finfo(np.float32).tiny:
            weights = weights / total
        w[x, start:end] = weights
    return w


class ScaleAndTranslate(Primitive):
    """`ScaleAndTranslate(kernel_type='lanczos3', antialias=True)(images, size, scale,
    translation)`: NHWC `images` resampled to `size` (H, W), output (y, x) reading the input at
    ((y, x) + 0.5 - translation) / scale with the kernel ('lanczos1', 'lanczos3', 'lanczos5',
    'gaussian', 'box', 'triangle', 'keyscubic', 'mitchellcubic'); float32 result,
    differentiable w.r.t. images."""

    def __init__(self, kernel_type="lanczos3", antialias=True):
        super().__init__()
        self.kernel_type = check_one_of(kernel_type, tuple(_SAMPLING_KERNELS), "kernel_type",
                                        self.name)
        self.antialias = check_bool(antialias, "antialias", self.name)

    def __call__(self, images, size, scale, translation):
        op = self.name
        _image(images, 4, op, floats=False)
        size = _size_arg(size, 2, op)
        pairs = []
        for arg, v in (("scale", scale), ("translation", translation)):
            a = v._data if isinstance(v, Tensor) else np.asarray(v)
            if a.shape != (2,) or a.dtype.kind != "f":
                raise ValueError(f"For '{op}', '{arg}' must be a float Tensor of shape (2,), but "
                                 f"got {a.dtype} {a.shape}")
            pairs.append(a.astype(np.float64))
        if min(pairs[0]) <= 0:
            raise ValueError(f"For '{op}', 'scale' must be positive, but got {pairs[0]}")
        out = images if images._data.dtype == np.float32 else cast(images, mstype.float32)
        for k, axis in enumerate((1, 2)):
            w = _span_weights(images.shape[axis], size[k], float(pairs[0][k]),
                              float(pairs[1][k]), self.kernel_type, self.antialias)
            out = _along(out, axis, w)
        return out


# ---- glimpses ----------------------------------------------------------------------------------------

class ExtractGlimpse(Primitive):
    """`ExtractGlimpse(centered=True, normalized=True, uniform_noise=True, noise='uniform')(x,
    size, offsets)`: a (h, w) = `size` window of each NHWC image around `offsets` (B, 2) of
    (y, x): normalised offsets are fractions of the image (of its half-size from the centre
    when `centered`), else pixels (from the centre when `centered`). Pixels outside the image
    are noise: 'uniform' between the channel's minimum and maximum, 'gaussian' with its mean
    and deviation, or 'zero'. No gradient (as MindSpore's)."""

    def __init__(self, centered=True, normalized=True, uniform_noise=True, noise="uniform"):
        super().__init__()
        op = self.name
        self.centered = check_bool(centered, "centered", op)
        self.normalized = check_bool(normalized, "normalized", op)
        self.uniform_noise = check_bool(uniform_noise, "uniform_noise", op)
        self.noise = check_one_of(noise, ("uniform", "gaussian", "zero"), "noise", op)
        if uniform_noise and noise != "uniform":
            raise ValueError(f"For '{op}', the value of 'noise' must be uniform when "
                             f"uniform_noise is True, but got {noise}.")

    def __call__(self, x, size, offsets):
        op = self.name
        _image(x, 4, op, "x")
        gh, gw = _size_arg(size, 2, op)
        off = offsets._data if isinstance(offsets, Tensor) else np.asarray(offsets)
        b, h, w, c = x.shape
        if off.shape != (b, 2) or off.dtype.kind != "f":
            raise ValueError(f"For '{op}', 'offsets' must be float ({b}, 2), but got {off.dtype} "
                             f"{off.shape}")
        data = x._data
        out = np.empty((b, gh, gw, c), data.dtype)
        rng = generator(None)
        for i in range(b):
            y, z = float(off[i, 0]), float(off[i, 1])
            if self.normalized:
                y, z = y * h, z * w
            if self.centered:
                y, z = y / 2.0 + h / 2.0, z / 2.0 + w / 2.0
            top, left = int(y - gh / 2.0), int(z - gw / 2.0)
            image = data[i].astype(np.float64)
            if self.noise == "zero":
                fill = np.zeros((gh, gw, c))
            elif self.noise == "uniform":
                lo, hi = image.min(axis=(0, 1)), image.max(axis=(0, 1))
                fill = lo + (hi - lo) * rng.random((gh, gw, c))
            else:
                fill = image.mean(axis=(0, 1)) + image.std(axis=(0, 1)) * \
                    rng.standard_normal((gh, gw, c))
            rows, cols = np.arange(gh) + top, np.arange(gw) + left
            inside = ((rows >= 0) & (rows < h))[:, None] & ((cols >= 0) & (cols < w))[None, :]
            picked = image[np.clip(rows, 0, h - 1)[:, None], np.clip(cols, 0, w - 1)[None, :]]
            out[i] = np.where(inside[..., None], picked, fill)
        return wrap(out)


# ---- deformable convolution ------------------------------------------------------------------------

def _four(v, name, op):
    if not isinstance(v, (tuple, list)) or len(v) != 4 or \
            not all(isinstance(e, int) and not isinstance(e, bool) for e in v):
        raise TypeError(f"For '{op}', '{name}' must be a tuple of 4 ints, but got {v!r}")
    return tuple(v)


def _deformable_offsets(x, offsets, strides, pads, ksize, dilations, deformable_groups,
                        modulated, op):
    """The deformed patches of NCHW x: (N, C, Ho * kh, Wo * kw), tap (ki, kj) of output (i, j)
    the bilinear sample of x (zeros outside) at (i * sh - top + ki * dh + dy,
    j * sw - left + kj * dw + dx), times its mask. `offsets` (N, 3 * dg * kh * kw,
    Ho, Wo) holds the x offsets, the y offsets and the masks, each (dg, kh, kw) in order."""
    _image(x, 4, op, "x")
    _image(offsets, 4, op, "offsets")
    n, c, h, w = x.shape
    kh, kw = ksize
    (sh, sw), (dh, dw) = strides[2:], dilations[2:]
    top, bottom, left, right = pads
    dg = deformable_groups
    if isinstance(dg, bool) or not isinstance(dg, int) or dg < 1 or c % dg:
        raise ValueError(f"For '{op}', 'deformable_groups' must divide the {c} channels, but got "
                         f"{deformable_groups!r}")
    ho = (h + top + bottom - dh * (kh - 1) - 1) // sh + 1
    wo = (w + left + right - dw * (kw - 1) - 1) // sw + 1
    k = kh * kw
    if ho <= 0 or wo <= 0 or offsets.shape != (n, 3 * dg * k, ho, wo):
        raise ValueError(f"For '{op}', 'offsets' must be ({n}, {3 * dg * k}, {ho}, {wo}) for the "
                         f"input of shape {x.shape}, but got {offsets.shape}")
    if offsets._data.dtype != x._data.dtype:
        raise TypeError(f"For '{op}', 'x' and 'offsets' must have one dtype, but got {x.dtype} "
                        f"and {offsets.dtype}")
    dt = x._data.dtype
    base_y = (np.arange(ho)[None, None, :, None] * sh - top
              + (np.arange(kh)[:, None, None, None] * dh)).astype(dt)  # (kh, 1, ho, 1)
    base_x = (np.arange(wo)[None, None, None, :] * sw - left
              + (np.arange(kw)[None, :, None, None] * dw)).astype(dt)  # (1, kw, 1, wo)
    base_y = wrap(np.broadcast_to(base_y, (kh, kw, ho, wo)).reshape(k, ho, wo).copy())
    base_x = wrap(np.broadcast_to(base_x, (kh, kw, ho, wo)).reshape(k, ho, wo).copy())
    per = c // dg
    parts = []
    for g in range(dg):
        def block(kind, g=g):
            start = (kind * dg + g) * k
            return A.getitem(offsets, (slice(None), slice(start, start + k)))  # (N, K, ho, wo)
        py = A.reshape(block(1) + base_y, (n, -1))
        px = A.reshape(block(0) + base_x, (n, -1))
        xg = A.getitem(x, (slice(None), slice(g * per, (g + 1) * per)))
        sampled = _sample_points(xg, [py, px], "bilinear", "zeros", False)  # (N, per, K*ho*wo)
        if modulated:
            sampled = sampled * A.expand_dims(A.reshape(block(2), (n, -1)), 1)
        patches = A.reshape(sampled, (n, per, kh, kw, ho, wo))
        patches = A.transpose(patches, (0, 1, 4, 2, 5, 3))
        parts.append(A.reshape(patches, (n, per, ho * kh, wo * kw)))
    return parts[0] if dg == 1 else AF.concat(parts, 1)


class DeformableOffsets(Primitive):
    """`DeformableOffsets(strides, pads, ksize, dilations=(1, 1, 1, 1), data_format='NCHW',
    deformable_groups=1, modulated=True)(x, offsets)`: the deformed convolution patches of x
    laid out (N, C, Ho * kh, Wo * kw) (see `deformable_conv2d`); strides and dilations
    (1, 1, h, w), pads (top, bottom, left, right). Differentiable w.r.t. x and offsets."""

    def __init__(self, strides, pads, ksize, dilations=(1, 1, 1, 1), data_format="NCHW",
                 deformable_groups=1, modulated=True):
        super().__init__()
        op = self.name
        self.strides = _four(strides, "strides", op)
        self.pads = _four(pads, "pads", op)
        self.ksize = _size_arg(tuple(ksize) if isinstance(ksize, (tuple, list)) else ksize, 2,
                               op, "ksize")
        self.dilations = _four(dilations, "dilations", op)
        if min(self.strides + self.dilations) < 1 or min(self.pads) < 0:
            raise ValueError(f"For '{op}', 'strides' and 'dilations' must be positive and 'pads' "
                             f"non-negative")
        if data_format != "NCHW":
            raise ValueError(f"For '{op}', only data_format 'NCHW' is supported, but got "
                             f"{data_format!r}")
        self.data_format = data_format
        self.deformable_groups = deformable_groups
        if not check_bool(modulated, "modulated", op):
            raise ValueError(f"For '{op}', 'modulated' must be True (MindSpore supports only the "
                             f"modulated form), but got False")
        self.modulated = modulated

    def __call__(self, x, offsets):
        return _deformable_offsets(x, offsets, self.strides, self.pads, self.ksize,
                                   self.dilations, self.deformable_groups, self.modulated,
                                   self.name)


def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None,
                      dilations=(1, 1, 1, 1), groups=1, deformable_groups=1, modulated=True):
    """Deformable 2-D convolution of NCHW `x` with `weight` (C_out, C/groups, kh, kw): each tap
    reads x at its regular position plus a learned offset, times a learned mask (`modulated`
    must be True, as in MindSpore; see DeformableOffsets for `offsets`); `strides` and
    `dilations` (1, 1, h, w), `padding` (top, bottom, left, right)."""
    op = "deformable_conv2d"
    ksize = _size_arg(tuple(kernel_size), 2, op, "kernel_size")
    _image(weight, 4, op, "weight")
    if tuple(weight.shape[2:]) != ksize:
        raise ValueError(f"For '{op}', the weight of shape {weight.shape} does not match "
                         f"kernel_size {ksize}")
    if not check_bool(modulated, "modulated", op):
        raise ValueError(f"For '{op}', 'modulated' must be True (MindSpore supports only the "
                         f"modulated form), but got False")
    patches = _deformable_offsets(x, offsets, _four(strides, "strides", op),
                                  _four(padding, "padding", op), ksize,
                                  _four(dilations, "dilations", op), deformable_groups, True, op)
    out = LF.conv2d(patches, weight, None, ksize, "valid", 0, 1, groups)
    return out if bias is None else out + A.reshape(bias, (1, -1, 1, 1))
