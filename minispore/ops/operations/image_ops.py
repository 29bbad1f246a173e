"""Image and box primitives without gradients: IoU, box coding and validity, non-maximum
suppression, hue and saturation adjustment (MindSpore defines no bprop for them). The
differentiable resize, sampling and crop ops are composites in ops/function/image_func.py."""
import numpy as np

from ..._validator import check_one_of
from ..primitive import Primitive, register


def _float_array(x, op, arg, last=None, rank=None):
    if not isinstance(x, np.ndarray) or x.dtype.kind != "f":
        kind = getattr(x, "dtype", type(x).__name__)
        raise TypeError(f"For '{op}', '{arg}' must be a float16 or float32 Tensor, but got {kind}")
    if (rank is not None and x.ndim != rank) or (last is not None and x.shape[-1] != last):
        raise ValueError(f"For '{op}', '{arg}' must have shape ({'N, ' if rank == 2 else ''}"
                         f"{last if last is not None else '...'}), but got {x.shape}")
    return x


class _NoGrad(Primitive):
    differentiable = False

    def bprop(self, saved, dout, needs):
        return (None,) * len(needs)


# ---- boxes ----------------------------------------------------------------------------------------

@register
class IOU(_NoGrad):
    """`IOU(mode='iou')(anchor_boxes, gt_boxes)`: (M, N) overlaps of boxes (x1, y1, x2, y2) in
    pixel units (a box spans x2 - x1 + 1 columns): intersection over union, or over the
    ground-truth box's area ('iof')."""

    inputs = ("anchor_boxes", "gt_boxes")

    def __init__(self, mode="iou"):
        super().__init__()
        self.mode = check_one_of(mode, ("iou", "iof"), "mode", self.name)

    def forward(self, anchor_boxes, gt_boxes):
        a = _float_array(anchor_boxes, self.name, "anchor_boxes", 4, 2)
        g = _float_array(gt_boxes, self.name, "gt_boxes", 4, 2)
        a64, g64 = a.astype(np.float64)[None], g.astype(np.float64)[:, None]
        w = np.minimum(a64[..., 2], g64[..., 2]) - np.maximum(a64[..., 0], g64[..., 0]) + 1
        h = np.minimum(a64[..., 3], g64[..., 3]) - np.maximum(a64[..., 1], g64[..., 1]) + 1
        inter = np.maximum(w, 0) * np.maximum(h, 0)
        area_a = (a64[..., 2] - a64[..., 0] + 1) * (a64[..., 3] - a64[..., 1] + 1)
        area_g = (g64[..., 2] - g64[..., 0] + 1) * (g64[..., 3] - g64[..., 1] + 1)
        denom = area_g if self.mode == "iof" else area_a + area_g - inter
        return (inter / denom).astype(a.dtype)


def _coefficients(values, op, arg):
    if not isinstance(values, (tuple, list)) or len(values) != 4 or \
            not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        raise TypeError(f"For '{op}', '{arg}' must be a tuple of 4 floats, but got {values!r}")
    return tuple(float(v) for v in values)


def _centres(b):
    """Centre x, centre y, width and height of pixel boxes (x1, y1, x2, y2)."""
    w, h = b[:, 2] - b[:, 0] + 1.0, b[:, 3] - b[:, 1] + 1.0
    return b[:, 0] + 0.5 * (w - 1.0), b[:, 1] + 0.5 * (h - 1.0), w, h


@register
class BoundingBoxEncode(_NoGrad):
    """`BoundingBoxEncode(means=(0.,) * 4, stds=(1.,) * 4)(anchor_box, groundtruth_box)`: the
    deltas (dx, dy, dw, dh) taking each anchor to its ground-truth box, normalised by `means`
    and `stds`: dx = (gx - px) / pw, dw = log(gw / pw) (pixel boxes: widths count x2 - x1 + 1)."""

    inputs = ("anchor_box", "groundtruth_box")

    def __init__(self, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
        super().__init__()
        self.means = _coefficients(means, self.name, "means")
        self.stds = _coefficients(stds, self.name, "stds")
        if 0.0 in self.stds:
            raise ValueError(f"For '{self.name}', 'stds' must be non-zero, but got {stds!r}")

    def forward(self, anchor_box, groundtruth_box):
        a = _float_array(anchor_box, self.name, "anchor_box", 4, 2)
        g = _float_array(groundtruth_box, self.name, "groundtruth_box", 4, 2)
        if a.shape != g.shape:
            raise ValueError(f"For '{self.name}', 'anchor_box' and 'groundtruth_box' must have "
                             f"the same shape, but got {a.shape} and {g.shape}")
        px, py, pw, ph = _centres(a.astype(np.float64))
        gx, gy, gw, gh = _centres(g.astype(np.float64))
        deltas = np.stack([(gx - px) / pw, (gy - py) / ph, np.log(gw / pw), np.log(gh / ph)], 1)
        return ((deltas - np.array(self.means)) / np.array(self.stds)).astype(a.dtype)


@register
class BoundingBoxDecode(_NoGrad):
    """`BoundingBoxDecode(max_shape, means=(0.,) * 4, stds=(1.,) * 4, wh_ratio_clip=0.016)
    (anchor_box, deltas)`: the boxes that `deltas` make of the anchors (BoundingBoxEncode's
    inverse), dw and dh clipped to |log(wh_ratio_clip)|, x clipped to [0, max_shape[1]] and y to
    [0, max_shape[0]]."""

    inputs = ("anchor_box", "deltas")

    def __init__(self, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                 wh_ratio_clip=0.016):
        super().__init__()
        if not isinstance(max_shape, (tuple, list)) or len(max_shape) != 2:
            raise TypeError(f"For '{self.name}', 'max_shape' must be a tuple of 2 ints, but got "
                            f"{max_shape!r}")
        self.max_shape = tuple(max_shape)
        self.means = _coefficients(means, self.name, "means")
        self.stds = _coefficients(stds, self.name, "stds")
        if not isinstance(wh_ratio_clip, float) or wh_ratio_clip <= 0:
            raise TypeError(f"For '{self.name}', 'wh_ratio_clip' must be a positive float, but "
                            f"got {wh_ratio_clip!r}")
        self.wh_ratio_clip = wh_ratio_clip

    def forward(self, anchor_box, deltas):
        a = _float_array(anchor_box, self.name, "anchor_box", 4, 2)
        d = _float_array(deltas, self.name, "deltas", 4, 2)
        if a.shape != d.shape:
            raise ValueError(f"For '{self.name}', 'anchor_box' and 'deltas' must have the same "
                             f"shape, but got {a.shape} and {d.shape}")
        d = d.astype(np.float64) * np.array(self.stds) + np.array(self.means)
        limit = abs(np.log(self.wh_ratio_clip))
        dw, dh = np.clip(d[:, 2], -limit, limit), np.clip(d[:, 3], -limit, limit)
        px, py, pw, ph = _centres(a.astype(np.float64))
        gx, gy = px + pw * d[:, 0], py + ph * d[:, 1]
        gw, gh = pw * np.exp(dw), ph * np.exp(dh)
        height, width = self.max_shape
        x1 = np.clip(gx - 0.5 * gw + 0.5, 0, width)
        y1 = np.clip(gy - 0.5 * gh + 0.5, 0, height)
        x2 = np.clip(gx + 0.5 * gw - 0.5, 0, width)
        y2 = np.clip(gy + 0.5 * gh - 0.5, 0, height)
        return np.stack([x1, y1, x2, y2], 1).astype(a.dtype)


@register
class CheckValid(_NoGrad):
    """`CheckValid()(bboxes, img_metas)`: whether each box (x1, y1, x2, y2) lies inside an image
    of (height, width, ratio) = img_metas: x1, y1 >= 0, x2 <= width * ratio - 1 and
    y2 <= height * ratio - 1 (bool)."""

    inputs = ("bboxes", "img_metas")

    def __init__(self):
        super().__init__()

    def forward(self, bboxes, img_metas):
        b = _float_array(bboxes, self.name, "bboxes", 4, 2)
        m = _float_array(img_metas, self.name, "img_metas", 3, 1)
        height, width, ratio = (float(v) for v in m)
        return ((b[:, 0] >= 0) & (b[:, 1] >= 0) & (b[:, 2] <= width * ratio - 1)
                & (b[:, 3] <= height * ratio - 1))


# ---- non-maximum suppression ------------------------------------------------------------------------

def _area_iou(boxes):
    """(N, N) IoU of boxes given by opposite corners (any order), areas x2 - x1 times y2 - y1."""
    b = boxes.astype(np.float64)
    lo = np.minimum(b[:, :2], b[:, 2:])
    hi = np.maximum(b[:, :2], b[:, 2:])
    area = np.prod(hi - lo, axis=1)
    size = np.clip(np.minimum(hi[:, None], hi[None]) - np.maximum(lo[:, None], lo[None]), 0, None)
    inter = size[..., 0] * size[..., 1]
    union = area[:, None] + area[None] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def greedy_suppression(overlaps, scores, threshold, max_output=None, score_threshold=None,
                       at_threshold=False):
    """Indices kept by greedy non-maximum suppression: candidates (scoring above
    score_threshold) in order of descending score (stable), each kept unless it overlaps a kept
    one by more than `threshold` (or exactly `threshold` too, when `at_threshold`)."""
    order = np.argsort(-scores, kind="stable")
    if score_threshold is not None:
        order = order[scores[order] > score_threshold]
    kept = []
    for i in order:
        if max_output is not None and len(kept) >= max_output:
            break
        hits = overlaps[i, kept]
        if not (np.any(hits >= threshold) if at_threshold else np.any(hits > threshold)):
            kept.append(i)
    return np.array(kept, np.int64)


@register
class NMSWithMask(_NoGrad):
    """`NMSWithMask(iou_threshold=0.5)(bboxes)`: boxes (N, 5) of (x1, y1, x2, y2, score) sorted
    by descending score, their positions in that order (int32, as MindSpore's CPU kernel gives
    them) and whether each survives greedy suppression (IoU above the threshold suppresses)."""

    inputs = ("bboxes",)

    def __init__(self, iou_threshold=0.5):
        super().__init__()
        if isinstance(iou_threshold, bool) or not isinstance(iou_threshold, (int, float)):
            raise TypeError(f"For '{self.name}', 'iou_threshold' must be a float, but got "
                            f"{iou_threshold!r}")
        self.iou_threshold = float(iou_threshold)

    def forward(self, bboxes):
        b = _float_array(bboxes, self.name, "bboxes", 5, 2)
        order = np.argsort(-b[:, 4], kind="stable")
        ranked = b[order]
        iou = _area_iou(ranked[:, :4])
        keep = greedy_suppression(iou, -np.arange(len(b), dtype=np.float64), self.iou_threshold)
        mask = np.zeros(len(b), bool)
        mask[keep] = True
        return ranked, np.arange(len(b), dtype=np.int32), mask


def _scalar(v, op, arg, kind):
    a = np.asarray(v)
    if a.size != 1 or a.dtype.kind not in kind:
        raise TypeError(f"For '{op}', '{arg}' must be a {'int' if kind == 'iu' else 'float'} "
                        f"scalar, but got {v!r}")
    return a.reshape(()).item()


@register
class NonMaxSuppressionV3(_NoGrad):
    """`NonMaxSuppressionV3()(boxes, scores, max_output_size, iou_threshold, score_threshold)`:
    int32 indices of at most max_output_size boxes (N, 4) (opposite corners, any order) kept by
    greedy suppression in order of descending score, among those scoring above score_threshold
    (an IoU of iou_threshold or more suppresses)."""

    inputs = ("boxes", "scores", "max_output_size", "iou_threshold", "score_threshold")

    def __init__(self):
        super().__init__()

    def forward(self, boxes, scores, max_output_size, iou_threshold, score_threshold):
        op = self.name
        b = _float_array(boxes, op, "boxes", 4, 2)
        s = _float_array(scores, op, "scores", rank=1)
        if len(s) != len(b):
            raise ValueError(f"For '{op}', 'scores' must have one score per box ({len(b)}), but "
                             f"got shape {s.shape}")
        n = _scalar(max_output_size, op, "max_output_size", "iu")
        if n < 0:
            raise ValueError(f"For '{op}', 'max_output_size' must be non-negative, but got {n}")
        t = _scalar(iou_threshold, op, "iou_threshold", "f")
        if not 0 <= t <= 1:
            raise ValueError(f"For '{op}', 'iou_threshold' must be in [0, 1], but got {t}")
        st = _scalar(score_threshold, op, "score_threshold", "f")
        keep = greedy_suppression(_area_iou(b), s.astype(np.float64), t, n, st, True)
        return keep.astype(np.int32)


@register
class NonMaxSuppressionWithOverlaps(_NoGrad):
    """`NonMaxSuppressionWithOverlaps()(overlaps, scores, max_output_size, overlap_threshold,
    score_threshold)`: NonMaxSuppressionV3 with the (N, N) pairwise `overlaps` given instead of
    boxes (an overlap of overlap_threshold or more suppresses)."""

    inputs = ("overlaps", "scores", "max_output_size", "overlap_threshold", "score_threshold")

    def __init__(self):
        super().__init__()

    def forward(self, overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        op = self.name
        o = _float_array(overlaps, op, "overlaps", rank=2)
        s = _float_array(scores, op, "scores", rank=1)
        if o.shape != (len(s), len(s)):
            raise ValueError(f"For '{op}', 'overlaps' must be ({len(s)}, {len(s)}) for "
                             f"{len(s)} scores, but got {o.shape}")
        n = _scalar(max_output_size, op, "max_output_size", "iu")
        if n < 0:
            raise ValueError(f"For '{op}', 'max_output_size' must be non-negative, but got {n}")
        t = _scalar(overlap_threshold, op, "overlap_threshold", "f")
        st = _scalar(score_threshold, op, "score_threshold", "f")
        keep = greedy_suppression(o.astype(np.float64), s.astype(np.float64), t, n, st, True)
        return keep.astype(np.int32)


@register
class CombinedNonMaxSuppression(_NoGrad):
    """`CombinedNonMaxSuppression(pad_per_class=False, clip_boxes=True)(boxes, scores,
    max_output_size_per_class, max_total_size, iou_threshold, score_threshold)`: per batch,
    greedy suppression of each class's boxes (boxes (B, N, q, 4), q = 1 shared or one per
    class; scores (B, N, C)), then the best max_total_size detections over all classes ->
    (boxes (B, K, 4), scores (B, K), classes (B, K) as floats, valid_detections (B,) int32), K
    = max_total_size (or min(max_total_size, max_output_size_per_class * C) with
    pad_per_class), zero-padded; with clip_boxes the boxes are clipped to [0, 1]."""

    inputs = ("boxes", "scores", "max_output_size_per_class", "max_total_size",
              "iou_threshold", "score_threshold")

    def __init__(self, pad_per_class=False, clip_boxes=True):
        super().__init__()
        for arg, v in (("pad_per_class", pad_per_class), ("clip_boxes", clip_boxes)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{self.name}', '{arg}' must be a bool, but got {v!r}")
        self.pad_per_class, self.clip_boxes = pad_per_class, clip_boxes

    def forward(self, boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                score_threshold):
        op = self.name
        b = _float_array(boxes, op, "boxes", 4, 4)
        s = _float_array(scores, op, "scores", rank=3)
        batch, n, q = b.shape[:3]
        classes = s.shape[2]
        if s.shape[:2] != (batch, n) or q not in (1, classes):
            raise ValueError(f"For '{op}', 'boxes' (B, N, q, 4) and 'scores' (B, N, C) must agree "
                             f"with q 1 or C, but got {b.shape} and {s.shape}")
        per_class = _scalar(max_output_size_per_class, op, "max_output_size_per_class", "iu")
        total = _scalar(max_total_size, op, "max_total_size", "iu")
        if per_class <= 0 or total <= 0:
            raise ValueError(f"For '{op}', 'max_output_size_per_class' and 'max_total_size' must "
                             f"be positive, but got {per_class} and {total}")
        t = _scalar(iou_threshold, op, "iou_threshold", "f")
        if not 0 <= t <= 1:
            raise ValueError(f"For '{op}', 'iou_threshold' must be in [0, 1], but got {t}")
        st = _scalar(score_threshold, op, "score_threshold", "f")
        k = min(total, per_class * classes) if self.pad_per_class else total
        out_boxes = np.zeros((batch, k, 4), np.float32)
        out_scores = np.zeros((batch, k), np.float32)
        out_classes = np.zeros((batch, k), np.float32)
        valid = np.zeros(batch, np.int32)
        for i in range(batch):
            found = []  # (score, class, box)
            for c in range(classes):
                bx = b[i, :, c if q > 1 else 0]
                sc = s[i, :, c].astype(np.float64)
                for j in greedy_suppression(_area_iou(bx), sc, t, per_class, st):
                    found.append((sc[j], c, bx[j]))
            found.sort(key=lambda item: -item[0])
            found = found[:k]
            valid[i] = len(found)
            for m, (score, c, box) in enumerate(found):
                out_boxes[i, m] = np.clip(box, 0.0, 1.0) if self.clip_boxes else box
                out_scores[i, m], out_classes[i, m] = score, c
        return out_boxes, out_scores, out_classes, valid
