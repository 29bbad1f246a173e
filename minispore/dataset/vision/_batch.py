"""Batch mixing of `mindspore.dataset.vision`: MixUpBatch, CutMixBatch (on batched images and
one-hot labels) and the Python-side MixUp."""
import numpy as np

from ..._validator import check_bool, check_float_range, check_positive_float, check_positive_int
from .._parallel import current_rng
from ..transforms.transforms import TensorOperation, _to_array
from ._core import _check_mode
from ._enums import ImageBatchFormat

__all__ = ["CutMixBatch", "MixUp", "MixUpBatch"]


def _batch_and_labels(owner, images, labels):
    images = _to_array(owner, images, "images")
    labels = _to_array(owner, labels, "labels")
    if images.ndim != 4:
        raise ValueError(f"For '{owner}', the images must be a batch NHWC or NCHW, but got shape "
                         f"{images.shape}")
    if labels.ndim not in (2, 3) or labels.shape[0] != images.shape[0]:
        raise ValueError(f"For '{owner}', the labels must be one-hot (N, C) or (N, L, C) with "
                         f"N = {images.shape[0]}, but got shape {labels.shape}; one-hot encode "
                         f"and batch them first")
    if labels.dtype.kind not in "iuf":
        raise TypeError(f"For '{owner}', the labels must be numbers, but got {labels.dtype}")
    return images, labels


def _cast_like(x, dtype):
    if dtype.kind == "f":
        return x.astype(dtype)
    info = np.iinfo(dtype)
    return np.clip(np.rint(x), info.min, info.max).astype(dtype)


class MixUpBatch(TensorOperation):
    """Mix each image (and one-hot label) of a batch with a partner drawn by a random
    permutation: lam * x + (1 - lam) * x[perm], lam ~ Beta(alpha, alpha) once per batch.
    Images keep their dtype (integers rounded, as MindSpore); labels come out float32."""

    _random = True

    def __init__(self, alpha=1.0):
        self.alpha = check_positive_float(alpha, "alpha", "MixUpBatch")

    def __call__(self, images, labels):
        images, labels = _batch_and_labels("MixUpBatch", images, labels)
        rng = current_rng()
        lam = rng.beta(self.alpha, self.alpha)
        perm = rng.permutation(images.shape[0])
        mixed = lam * images.astype(np.float64) + (1 - lam) * images[perm].astype(np.float64)
        lab = lam * labels.astype(np.float64) + (1 - lam) * labels[perm].astype(np.float64)
        return _cast_like(mixed, images.dtype), lab.astype(np.float32)


class CutMixBatch(TensorOperation):
    """For each image, with probability `prob`, paste a random box from a random partner of
    the batch (its side sqrt(1 - lam) of the image's, lam ~ Beta(alpha, alpha)); the label
    becomes the area-weighted mix. Labels come out float32."""

    _random = True

    def __init__(self, image_batch_format, alpha=1.0, prob=1.0):
        self.image_batch_format = _check_mode("CutMixBatch", image_batch_format,
                                              ImageBatchFormat, "image_batch_format")
        self.alpha = check_positive_float(alpha, "alpha", "CutMixBatch")
        self.prob = check_float_range(prob, "prob", "CutMixBatch", 0.0, 1.0)

    def __call__(self, images, labels):
        images, labels = _batch_and_labels("CutMixBatch", images, labels)
        nchw = self.image_batch_format == ImageBatchFormat.NCHW
        x = np.moveaxis(images, 1, -1) if nchw else images
        n, H, W = x.shape[:3]
        out = x.copy()
        lab = labels.astype(np.float32)
        rng = current_rng()
        for i in range(n):
            lam = rng.beta(self.alpha, self.alpha)
            if rng.random() >= self.prob:
                continue
            j = int(rng.integers(n))
            cut = np.sqrt(1.0 - lam)
            ch, cw = int(H * cut), int(W * cut)
            cy, cx = int(rng.integers(H)), int(rng.integers(W))
            y0, y1 = np.clip(cy - ch // 2, 0, H), np.clip(cy + ch // 2, 0, H)
            x0, x1 = np.clip(cx - cw // 2, 0, W), np.clip(cx + cw // 2, 0, W)
            out[i, y0:y1, x0:x1] = x[j, y0:y1, x0:x1]
            keep = 1.0 - (y1 - y0) * (x1 - x0) / float(H * W)
            lab[i] = (keep * labels[i] + (1.0 - keep) * labels[j]).astype(np.float32)
        out = np.ascontiguousarray(np.moveaxis(out, -1, 1)) if nchw else out
        return out, lab


class MixUp(TensorOperation):
    """MixUp of a batch (images (N, ...), one-hot labels (N, C)) with per-sample
    lam ~ Beta(alpha, alpha): with `is_single` each sample mixes with the next one in the
    batch (cyclically); otherwise with the previous output batch (the first batch passes
    through). float64 out."""

    _random = True

    def __init__(self, batch_size, alpha, is_single=True):
        self.batch_size = check_positive_int(batch_size, "batch_size", "MixUp")
        self.alpha = check_positive_float(alpha, "alpha", "MixUp")
        self.is_single = check_bool(is_single, "is_single", "MixUp")
        self._previous = None

    def __call__(self, image, label):
        image = _to_array("MixUp", image, "image").astype(np.float64)
        label = _to_array("MixUp", label, "label").astype(np.float64)
        n = self.batch_size
        if image.shape[0] != n or label.shape[0] != n:
            raise ValueError(f"For 'MixUp', the image and label batches must hold batch_size = "
                             f"{n} rows, but got {image.shape[0]} and {label.shape[0]}")
        lam = current_rng().beta(self.alpha, self.alpha, n)
        lam_img = lam.reshape((n,) + (1,) * (image.ndim - 1))
        lam_lab = lam.reshape((n,) + (1,) * (label.ndim - 1))
        if self.is_single:
            other_img, other_lab = np.roll(image, -1, axis=0), np.roll(label, -1, axis=0)
        elif self._previous is None:
            other_img, other_lab = image, label
        else:
            other_img, other_lab = self._previous
        mixed = lam_img * image + (1 - lam_img) * other_img
        mixed_label = lam_lab * label + (1 - lam_lab) * other_lab
        if not self.is_single:
            self._previous = (mixed, mixed_label)
        return mixed, mixed_label
