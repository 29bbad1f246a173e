"""OpenCV's warpAffine and warpPerspective in NumPy (the kernels under MindSpore's Rotate,
Affine and Perspective): destination pixels mapped back through the inverse matrix in OpenCV's
fixed point (10-bit affine steps, 1/32-pixel bilinear grid, 15-bit weights), constant borders.
"""
import numpy as np

_AB_BITS = 10
_INTER_BITS = 5
_TAB = 1 << _INTER_BITS


def _cv_round(x):
    return np.rint(x).astype(np.int64)


def invert_affine(m):
    """The inverse of a 2x3 affine matrix (OpenCV's invertAffineTransform)."""
    m = np.asarray(m, np.float64)
    d = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    d = 1.0 / d if d != 0 else 0.0
    a11, a22 = m[1, 1] * d, m[0, 0] * d
    a12, a21 = -m[0, 1] * d, -m[1, 0] * d
    b1 = -a11 * m[0, 2] - a12 * m[1, 2]
    b2 = -a21 * m[0, 2] - a22 * m[1, 2]
    return np.array([[a11, a12, b1], [a21, a22, b2]])


def _fill_pixel(img, fill):
    c = img.shape[2] if img.ndim == 3 else 1
    f = np.asarray(fill, np.float64).reshape(-1)
    f = np.broadcast_to(f if f.size in (1, c) else f[:1], (c,))
    if img.dtype.kind in "iu":
        info = np.iinfo(img.dtype)
        f = np.clip(np.rint(f), info.min, info.max)
    return f.astype(img.dtype) if img.ndim == 3 else f[:1].astype(img.dtype)[0]


def _sample(img, xs, ys, inter, fill):
    """Sample img at integer source grid positions: nearest (xs, ys ints) or bilinear (xs, ys
    in 1/32 pixels); points outside take `fill`."""
    H, W = img.shape[:2]
    fillv = _fill_pixel(img, fill)
    ext = (Ellipsis,) + ((None,) if img.ndim == 3 else ())
    if inter == "nearest":
        inside = (xs >= 0) & (xs < W) & (ys >= 0) & (ys < H)
        out = img[np.clip(ys, 0, H - 1), np.clip(xs, 0, W - 1)]
        return np.where(inside[ext], out, fillv)
    x0, y0 = xs >> _INTER_BITS, ys >> _INTER_BITS
    fx, fy = xs & (_TAB - 1), ys & (_TAB - 1)
    src = img.astype(np.float64 if img.dtype.kind == "f" else np.int64)
    fillw = np.asarray(fillv, src.dtype)
    taps = []
    for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
        yy, xx = y0 + dy, x0 + dx
        inside = (xx >= 0) & (xx < W) & (yy >= 0) & (yy < H)
        taps.append(np.where(inside[ext], src[np.clip(yy, 0, H - 1), np.clip(xx, 0, W - 1)],
                             fillw))
    if img.dtype.kind == "f":
        ax, ay = (fx / _TAB)[ext], (fy / _TAB)[ext]
        out = ((taps[0] * (1 - ax) + taps[1] * ax) * (1 - ay)
               + (taps[2] * (1 - ax) + taps[3] * ax) * ay)
        return out.astype(img.dtype)
    wx1, wy1 = fx[ext], fy[ext]
    wx0, wy0 = _TAB - wx1, _TAB - wy1
    acc = (taps[0] * wx0 * wy0 + taps[1] * wx1 * wy0 + taps[2] * wx0 * wy1
           + taps[3] * wx1 * wy1) * (1 << 15 - 2 * _INTER_BITS)
    info = np.iinfo(img.dtype)
    return np.clip((acc + (1 << 14)) >> 15, info.min, info.max).astype(img.dtype)


def warp_affine(img, m, size, inter, fill, inverse_map=False):
    """cv::warpAffine(img, m, (w, h) = size[::-1], inter, BORDER_CONSTANT, fill) for an HW /
    HWC image; `m` maps source to destination (destination to source with `inverse_map`);
    inter is 'nearest' or 'bilinear'."""
    h, w = size
    inv = np.asarray(m, np.float64) if inverse_map else invert_affine(m)
    scale = 1 << _AB_BITS
    delta = scale // 2 if inter == "nearest" else scale // _TAB // 2
    x = np.arange(w)
    y = np.arange(h)
    adelta = _cv_round(inv[0, 0] * x * scale)
    bdelta = _cv_round(inv[1, 0] * x * scale)
    x0 = _cv_round((inv[0, 1] * y + inv[0, 2]) * scale) + delta
    y0 = _cv_round((inv[1, 1] * y + inv[1, 2]) * scale) + delta
    X = x0[:, None] + adelta[None, :]
    Y = y0[:, None] + bdelta[None, :]
    shift = _AB_BITS if inter == "nearest" else _AB_BITS - _INTER_BITS
    return _sample(img, X >> shift, Y >> shift, inter, fill)


def warp_perspective(img, m, size, inter, fill):
    """cv::warpPerspective with a 3x3 matrix `m` (source to destination)."""
    h, w = size
    inv = np.linalg.inv(np.asarray(m, np.float64))
    x = np.arange(w, dtype=np.float64)[None, :]
    y = np.arange(h, dtype=np.float64)[:, None]
    W = inv[2, 0] * x + inv[2, 1] * y + inv[2, 2]
    W = np.where(W != 0, 1.0 / np.where(W != 0, W, 1), 0.0)
    X = (inv[0, 0] * x + inv[0, 1] * y + inv[0, 2]) * W
    Y = (inv[1, 0] * x + inv[1, 1] * y + inv[1, 2]) * W
    if inter == "nearest":
        return _sample(img, _cv_round(np.clip(X, -2**31, 2**31 - 1)),
                       _cv_round(np.clip(Y, -2**31, 2**31 - 1)), inter, fill)
    X = _cv_round(np.clip(X * _TAB, -2**31, 2**31 - 1))
    Y = _cv_round(np.clip(Y * _TAB, -2**31, 2**31 - 1))
    return _sample(img, X, Y, inter, fill)


def rotation_matrix(center, degrees, scale=1.0):
    """cv::getRotationMatrix2D: counter-clockwise by `degrees` about `center` (x, y)."""
    a = np.deg2rad(degrees)
    alpha, beta = np.cos(a) * scale, np.sin(a) * scale
    cx, cy = center
    return np.array([[alpha, beta, (1 - alpha) * cx - beta * cy],
                     [-beta, alpha, beta * cx + (1 - alpha) * cy]])
