"""Bounding-box transforms of `mindspore.dataset.vision`: the image and its boxes together.
Boxes are a float32 array (N, 4 + extra) of (x_min, y_min, width, height, ...) inside the
image; extra columns (labels, ...) are carried along."""
import numpy as np

from ..._validator import check_callable, check_float_range
from .._parallel import current_rng
from ..transforms.transforms import TensorOperation, _to_array
from . import _geometry, _random
from ._core import RandomCrop, _check_size, _image_2d3d, _pad, _resize_hw
from ._enums import Border, Inter

__all__ = ["BoundingBoxAugment", "RandomCropWithBBox", "RandomHorizontalFlipWithBBox",
           "RandomResizeWithBBox", "RandomResizedCropWithBBox", "RandomVerticalFlipWithBBox",
           "ResizeWithBBox"]


def _image_boxes(owner, img, bboxes):
    img = _image_2d3d(owner, img)
    boxes = _to_array(owner, bboxes, "bboxes")
    if boxes.dtype != np.float32:
        raise TypeError(f"For '{owner}', the bounding boxes must be float32, but got "
                        f"{boxes.dtype}")
    if boxes.ndim != 2 or boxes.shape[1] < 4:
        raise ValueError(f"For '{owner}', the bounding boxes must be (N, 4 or more), but got "
                         f"shape {boxes.shape}")
    H, W = img.shape[:2]
    x, y, w, h = (boxes[:, k] for k in range(4))
    bad = (x < 0) | (y < 0) | (w <= 0) | (h <= 0) | (x + w > W) | (y + h > H)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"For '{owner}', bounding box {i} {boxes[i, :4].tolist()} is empty or "
                         f"out of the image of width {W} and height {H}")
    return img, boxes


def _crop_boxes(boxes, top, left, h, w):
    """Boxes clipped to the crop window (top, left, h, w) in its coordinates; boxes left
    outside are dropped."""
    out = boxes.copy()
    x0 = np.clip(boxes[:, 0] - left, 0, w)
    y0 = np.clip(boxes[:, 1] - top, 0, h)
    x1 = np.clip(boxes[:, 0] + boxes[:, 2] - left, 0, w)
    y1 = np.clip(boxes[:, 1] + boxes[:, 3] - top, 0, h)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = x0, y0, x1 - x0, y1 - y0
    return out[(out[:, 2] > 0) & (out[:, 3] > 0)]


def _scale_boxes(boxes, sy, sx):
    out = boxes.copy()
    out[:, [0, 2]] *= np.float32(sx)
    out[:, [1, 3]] *= np.float32(sy)
    return out


class RandomHorizontalFlipWithBBox(TensorOperation):
    """Flip the image and its boxes left-right with probability `prob`."""

    _random = True

    def __init__(self, prob=0.5):
        self.prob = check_float_range(prob, "prob", "RandomHorizontalFlipWithBBox", 0.0, 1.0)

    def __call__(self, img, bboxes):
        img, boxes = _image_boxes("RandomHorizontalFlipWithBBox", img, bboxes)
        if current_rng().random() >= self.prob:
            return img, boxes
        out = boxes.copy()
        out[:, 0] = img.shape[1] - boxes[:, 0] - boxes[:, 2]
        return np.ascontiguousarray(img[:, ::-1]), out


class RandomVerticalFlipWithBBox(TensorOperation):
    """Flip the image and its boxes upside down with probability `prob`."""

    _random = True

    def __init__(self, prob=0.5):
        self.prob = check_float_range(prob, "prob", "RandomVerticalFlipWithBBox", 0.0, 1.0)

    def __call__(self, img, bboxes):
        img, boxes = _image_boxes("RandomVerticalFlipWithBBox", img, bboxes)
        if current_rng().random() >= self.prob:
            return img, boxes
        out = boxes.copy()
        out[:, 1] = img.shape[0] - boxes[:, 1] - boxes[:, 3]
        return np.ascontiguousarray(img[::-1]), out


def _resize_with_boxes(owner, img, boxes, size, interpolation):
    H, W = img.shape[:2]
    if isinstance(size, int):
        h, w = (size, int(W * size / H)) if H <= W else (int(H * size / W), size)
    else:
        h, w = size
    out = np.ascontiguousarray(_resize_hw(img, h, w, interpolation))
    return out, _scale_boxes(boxes, h / H, w / W)


class ResizeWithBBox(TensorOperation):
    """`Resize(size, interpolation)` with the boxes scaled along (an int size sets the shorter
    side)."""

    def __init__(self, size, interpolation=Inter.BILINEAR):
        _check_size("ResizeWithBBox", size)
        self.size = size if isinstance(size, int) else tuple(size)
        self.interpolation = _geometry._check_inter("ResizeWithBBox", interpolation)

    def __call__(self, img, bboxes):
        img, boxes = _image_boxes("ResizeWithBBox", img, bboxes)
        return _resize_with_boxes("ResizeWithBBox", img, boxes, self.size, self.interpolation)


class RandomResizeWithBBox(TensorOperation):
    """`ResizeWithBBox(size)` with the interpolation drawn among BILINEAR, NEAREST, BICUBIC and
    AREA."""

    _random = True

    def __init__(self, size):
        _check_size("RandomResizeWithBBox", size)
        self.size = size if isinstance(size, int) else tuple(size)

    def __call__(self, img, bboxes):
        img, boxes = _image_boxes("RandomResizeWithBBox", img, bboxes)
        modes = _random.RandomResize._MODES
        mode = modes[int(current_rng().integers(len(modes)))]
        return _resize_with_boxes("RandomResizeWithBBox", img, boxes, self.size, mode)


class RandomCropWithBBox(RandomCrop):
    """`RandomCrop` of the image with its boxes shifted, clipped to the crop and dropped when
    left outside."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=Border.CONSTANT):
        super().__init__(size, padding, pad_if_needed, fill_value, padding_mode)

    def __call__(self, img, bboxes):
        owner = "RandomCropWithBBox"
        img, boxes = _image_boxes(owner, img, bboxes)
        boxes = boxes.copy()
        if self.padding is not None:
            left, top = self.padding[0], self.padding[1]
            img = _pad(owner, img, *self.padding, self.fill_value, self.padding_mode)
            boxes[:, 0] += left
            boxes[:, 1] += top
        h, w = self.size
        H, W = img.shape[:2]
        if self.pad_if_needed and (H < h or W < w):
            dh, dw = max(0, h - H), max(0, w - W)
            img = _pad(owner, img, dw, dh, dw, dh, self.fill_value, self.padding_mode)
            boxes[:, 0] += dw
            boxes[:, 1] += dh
            H, W = img.shape[:2]
        if H < h or W < w:
            raise ValueError(f"For '{owner}', the crop size {(h, w)} is larger than the "
                             f"(padded) image {(H, W)}: pass pad_if_needed=True or padding")
        rng = current_rng()
        top = int(rng.integers(H - h + 1))
        left = int(rng.integers(W - w + 1))
        return (np.ascontiguousarray(img[top:top + h, left:left + w]),
                _crop_boxes(boxes, top, left, h, w))


class RandomResizedCropWithBBox(_random.RandomResizedCrop):
    """`RandomResizedCrop` with the boxes cropped and scaled along."""

    def __call__(self, img, bboxes):
        img, boxes = _image_boxes("RandomResizedCropWithBBox", img, bboxes)
        top, left, h, w = self._box(*img.shape[:2])
        out = np.ascontiguousarray(_resize_hw(img[top:top + h, left:left + w], *self.size,
                                              self.interpolation))
        cropped = _crop_boxes(boxes, top, left, h, w)
        return out, _scale_boxes(cropped, self.size[0] / h, self.size[1] / w)


class BoundingBoxAugment(TensorOperation):
    """Apply `transform` to the pixels of a random `ratio` of the boxes (each box region
    transformed on its own and pasted back); the boxes are unchanged."""

    _random = True

    def __init__(self, transform, ratio=0.3):
        self.transform = check_callable(transform, "transform", "BoundingBoxAugment")
        self.ratio = check_float_range(ratio, "ratio", "BoundingBoxAugment", 0.0, 1.0)

    def __call__(self, img, bboxes):
        img, boxes = _image_boxes("BoundingBoxAugment", img, bboxes)
        n = int(len(boxes) * self.ratio)
        out = img.copy()
        for i in current_rng().permutation(len(boxes))[:n]:
            x, y, w, h = (int(v) for v in boxes[i, :4])
            region = np.ascontiguousarray(out[y:y + h, x:x + w])
            done = np.asarray(self.transform(region))
            if done.shape != region.shape:
                raise ValueError(f"For 'BoundingBoxAugment', the transform must keep the box "
                                 f"region's shape {region.shape}, but returned {done.shape}")
            out[y:y + h, x:x + w] = done
        return out, boxes
