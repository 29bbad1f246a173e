"""Specs of the image primitives (same format as specs.py): the box and suppression kernels,
which have no gradient (MindSpore defines none). Coordinates are drawn on a grid of quarters,
exact in float32, so the float32 pass makes the same comparisons as the float64 one."""
import numpy as np
from hypothesis import strategies as st

from minispore.ops.operations import image_ops as I

from .specs import spec


def _boxes(data, n, span=8):
    """n pixel boxes (x1, y1, x2, y2), corners on a grid of quarters."""
    lo = np.array(data.draw(st.lists(st.integers(0, 4 * span), min_size=2 * n,
                                     max_size=2 * n))).reshape(n, 2) / 4
    size = np.array(data.draw(st.lists(st.integers(1, 2 * span), min_size=2 * n,
                                       max_size=2 * n))).reshape(n, 2) / 4
    return np.concatenate([lo, lo + size], 1)


def _draw_two_sets(data):
    n, m = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    return [_boxes(data, n), _boxes(data, m)], {"mode": data.draw(st.sampled_from(["iou", "iof"]))}


def _iou_ref(attrs, anchors, gts):
    out = np.zeros((len(gts), len(anchors)))
    for i, g in enumerate(gts):
        for j, a in enumerate(anchors):
            w = max(min(a[2], g[2]) - max(a[0], g[0]) + 1, 0)
            h = max(min(a[3], g[3]) - max(a[1], g[1]) + 1, 0)
            area_a = (a[2] - a[0] + 1) * (a[3] - a[1] + 1)
            area_g = (g[2] - g[0] + 1) * (g[3] - g[1] + 1)
            out[i, j] = w * h / (area_g if attrs["mode"] == "iof" else area_a + area_g - w * h)
    return out


spec("IOU", _draw_two_sets, lambda a, x, y: I.IOU(a["mode"])(x, y),
     _iou_ref, order=0)

MEANS, STDS = (0.1, 0.0, -0.1, 0.2), (1.0, 2.0, 0.5, 1.5)


def _draw_pairs(data):
    n = data.draw(st.integers(1, 5))
    return [_boxes(data, n), _boxes(data, n)], {}


def _encode_ref(attrs, anchors, gts):
    rows = []
    for a, g in zip(anchors, gts):
        pw, ph, gw, gh = a[2] - a[0] + 1, a[3] - a[1] + 1, g[2] - g[0] + 1, g[3] - g[1] + 1
        px, py, gx, gy = a[0] + (pw - 1) / 2, a[1] + (ph - 1) / 2, g[0] + (gw - 1) / 2, \
            g[1] + (gh - 1) / 2
        d = np.array([(gx - px) / pw, (gy - py) / ph, np.log(gw / pw), np.log(gh / ph)])
        rows.append((d - MEANS) / STDS)
    return np.array(rows)


spec("BoundingBoxEncode", _draw_pairs, lambda a, x, y: I.BoundingBoxEncode(MEANS, STDS)(x, y),
     _encode_ref, order=0, rtol=1e-7, atol=1e-9)


def _draw_deltas(data):
    n = data.draw(st.integers(1, 5))
    deltas = np.array(data.draw(st.lists(st.integers(-24, 24), min_size=4 * n,
                                         max_size=4 * n))).reshape(n, 4) / 8
    return [_boxes(data, n), deltas], {"clip": data.draw(st.sampled_from([0.016, 0.5]))}


def _decode_ref(attrs, anchors, deltas):
    limit = abs(np.log(attrs["clip"]))
    rows = []
    for a, d in zip(anchors, deltas):
        dx, dy, dw, dh = d * STDS + MEANS
        dw, dh = min(max(dw, -limit), limit), min(max(dh, -limit), limit)
        pw, ph = a[2] - a[0] + 1, a[3] - a[1] + 1
        px, py = (a[0] + a[2]) / 2, (a[1] + a[3]) / 2
        gx, gy, gw, gh = px + pw * dx, py + ph * dy, pw * np.exp(dw), ph * np.exp(dh)
        box = [gx - gw / 2 + 0.5, gy - gh / 2 + 0.5, gx + gw / 2 - 0.5, gy + gh / 2 - 0.5]
        rows.append([min(max(v, 0), lim) for v, lim in zip(box, (7, 5, 7, 5))])
    return np.array(rows)


spec("BoundingBoxDecode", _draw_deltas,
     lambda a, x, d: I.BoundingBoxDecode((5, 7), MEANS, STDS, a["clip"])(x, d), _decode_ref,
     order=0, rtol=1e-7, atol=1e-9)


def _draw_valid(data):
    n = data.draw(st.integers(1, 6))
    metas = np.array([data.draw(st.integers(4, 12)), data.draw(st.integers(4, 12)),
                      data.draw(st.sampled_from([0.5, 1.0, 2.0]))], np.float64)
    return [_boxes(data, n) - 1, metas], {}


def _valid_ref(attrs, b, m):
    h, w, r = m
    return np.array([x1 >= 0 and y1 >= 0 and x2 <= w * r - 1 and y2 <= h * r - 1
                     for x1, y1, x2, y2 in b])


spec("CheckValid", _draw_valid, lambda a, b, m: I.CheckValid()(b, m), _valid_ref, order=0)


def _plain_iou(a, b):
    w = max(min(a[2], b[2]) - max(a[0], b[0]), 0)
    h = max(min(a[3], b[3]) - max(a[1], b[1]), 0)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / union if union > 0 else 0.0


def _greedy(scores, overlap, threshold, limit=None, floor=None, at_threshold=False):
    kept = []
    for i in sorted(range(len(scores)), key=lambda k: (-scores[k], k)):
        if floor is not None and not scores[i] > floor:
            continue
        if limit is not None and len(kept) == limit:
            break
        if all(overlap(i, j) < threshold if at_threshold else overlap(i, j) <= threshold
               for j in kept):
            kept.append(i)
    return kept


def _draw_scored(data):
    n = data.draw(st.integers(1, 8))
    scores = np.array(data.draw(st.permutations(range(n)))) / 8
    return [np.concatenate([_boxes(data, n, 4), scores[:, None]], 1)], \
        {"t": data.draw(st.sampled_from([0.1, 0.3, 0.5, 0.7]))}


def _nms_mask_ref(attrs, b):
    ranked = b[np.argsort(-b[:, 4], kind="stable")]
    kept = _greedy(-np.arange(len(b)), lambda i, j: _plain_iou(ranked[i], ranked[j]), attrs["t"])
    mask = np.zeros(len(b), bool)
    mask[kept] = True
    return ranked, np.arange(len(b)), mask


spec("NMSWithMask", _draw_scored, lambda a, b: I.NMSWithMask(a["t"])(b), _nms_mask_ref, order=0)


def _draw_suppression(data):
    (b,), attrs = _draw_scored(data)
    attrs.update(limit=data.draw(st.integers(0, 6)),
                 floor=data.draw(st.sampled_from([-1.0, 0.2, 0.5])))
    corners = b[:, :4].copy()
    if data.draw(st.booleans()):  # TensorFlow's boxes may give their corners in any order
        corners = corners[:, [2, 3, 0, 1]]
    return [corners, b[:, 4].copy()], attrs


def _v3_ref(attrs, boxes, scores):
    ordered = np.concatenate([np.minimum(boxes[:, :2], boxes[:, 2:]),
                              np.maximum(boxes[:, :2], boxes[:, 2:])], 1)
    return np.array(_greedy(scores, lambda i, j: _plain_iou(ordered[i], ordered[j]), attrs["t"],
                            attrs["limit"], attrs["floor"], True), np.int64)


spec("NonMaxSuppressionV3", _draw_suppression,
     lambda a, b, s: I.NonMaxSuppressionV3()(b, s, a["limit"], np.float32(a["t"]),
                                             np.float32(a["floor"])), _v3_ref, order=0)


def _draw_overlaps(data):
    n = data.draw(st.integers(1, 7))
    o = np.array(data.draw(st.lists(st.integers(0, 8), min_size=n * n, max_size=n * n)))
    scores = np.array(data.draw(st.permutations(range(n)))) / 8
    return [o.reshape(n, n) / 8, scores], {"t": data.draw(st.sampled_from([0.25, 0.5, 0.75])),
                                           "limit": data.draw(st.integers(0, 6)),
                                           "floor": data.draw(st.sampled_from([-1.0, 0.25, 0.3]))}


def _overlaps_ref(attrs, o, scores):
    return np.array(_greedy(scores, lambda i, j: o[i, j], attrs["t"], attrs["limit"],
                            attrs["floor"], True), np.int64)


spec("NonMaxSuppressionWithOverlaps", _draw_overlaps,
     lambda a, o, s: I.NonMaxSuppressionWithOverlaps()(o, s, a["limit"], np.float32(a["t"]),
                                                       np.float32(a["floor"])),
     _overlaps_ref, order=0)


def _draw_combined(data):
    b, n, classes = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 5)), \
        data.draw(st.integers(1, 3))
    q = data.draw(st.sampled_from([1, classes]))
    corners = np.stack([_boxes(data, n * q, 4).reshape(n, q, 4) / 4 for _ in range(b)])
    scores = np.array(data.draw(st.lists(st.integers(0, 8), min_size=b * n * classes,
                                         max_size=b * n * classes))).reshape(b, n, classes) / 8
    return [corners, scores], {"pad": data.draw(st.booleans()), "clip": data.draw(st.booleans()),
                               "per_class": data.draw(st.integers(1, 3)),
                               "total": data.draw(st.integers(1, 6)),
                               "t": data.draw(st.sampled_from([0.25, 0.5])),
                               "floor": data.draw(st.sampled_from([0.0, 0.25]))}


def _combined_ref(attrs, boxes, scores):
    b, n, q = boxes.shape[:3]
    classes = scores.shape[2]
    k = min(attrs["total"], attrs["per_class"] * classes) if attrs["pad"] else attrs["total"]
    out = [np.zeros((b, k, 4)), np.zeros((b, k)), np.zeros((b, k)), np.zeros(b, np.int64)]
    for i in range(b):
        found = []
        for c in range(classes):
            bx = boxes[i, :, c if q > 1 else 0]
            bx = np.concatenate([np.minimum(bx[:, :2], bx[:, 2:]),
                                 np.maximum(bx[:, :2], bx[:, 2:])], 1)
            kept = _greedy(scores[i, :, c], lambda u, v: _plain_iou(bx[u], bx[v]), attrs["t"],
                           attrs["per_class"], attrs["floor"])
            found += [(scores[i, j, c], c, boxes[i, j, c if q > 1 else 0]) for j in kept]
        found = sorted(found, key=lambda f: -f[0])[:k]
        out[3][i] = len(found)
        for m, (score, c, box) in enumerate(found):
            out[0][i, m] = np.clip(box, 0, 1) if attrs["clip"] else box
            out[1][i, m], out[2][i, m] = score, c
    return tuple(out)


spec("CombinedNonMaxSuppression", _draw_combined,
     lambda a, b, s: I.CombinedNonMaxSuppression(a["pad"], a["clip"])(
         b, s, a["per_class"], a["total"], np.float32(a["t"]), np.float32(a["floor"])),
     _combined_ref, order=0)
