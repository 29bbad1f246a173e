"""NumPy kernels shared by primitives: erf, axis handling (and `quiet`, re-exported)."""
import numpy as np

from ..._quiet import quiet, quiet_region  # noqa: F401  (re-exported for primitives)

# ---- NumPy 1.x promotion -------------------------------------------------------------------------
# NumPy 2 (NEP 50) keeps float32 when a 0-d float32 array meets a Python float or int (1.0 - x,
# np.where(c, x, 0)); NumPy 1.x, where every operand is 0-d, promotes to float64. The kernels that
# mix Python scalars in round such 0-d results back to the input's dtype (identity on NumPy 2).
LEGACY_PROMOTION = np.lib.NumpyVersion(np.__version__) < "2.0.0"

if LEGACY_PROMOTION:
    def keep_dtype(out, dt):
        """`out` in float dtype `dt` where NumPy 1.x widened a 0-d result to float64."""
        return out.astype(dt) if out.dtype != dt and out.dtype == np.float64 and dt.kind == "f" \
            else out
else:
    def keep_dtype(out, dt):
        """`out` unchanged: NumPy 2 already keeps the input's float dtype."""
        return out


# ---- erf (W. J. Cody, "Rational Chebyshev approximations for the error function", 1969) ----------
# Three rational approximations in float64: erf on |x| <= 0.46875, erfc on (0.46875, 4] and on
# (4, inf) with exp(-x^2) split in two factors to keep its low bits. Accurate to about 1 ulp in
# float64; float32 and float16 inputs are evaluated in float64 and rounded once.

_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
      3.20937758913846947e03, 1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
      2.84423683343917062e03)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
      2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
      2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
      1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
      3.43936767414372164e03, 1.23033935480374942e03)
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
      1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1,
      6.05183413124413191e-2, 2.33520497626869185e-3)
_INV_SQRT_PI = 5.6418958354775628695e-1


def _erfc_scaled_tail(y, ysq_split):
    # exp(-y^2) * R(y), computed as exp(-t^2) * exp(-(y - t)(y + t)) with t = y truncated to 1/16.
    return np.exp(-ysq_split * ysq_split) * np.exp(-(y - ysq_split) * (y + ysq_split))


def _cody(x, complement):
    """erf(x), or erfc(x) when `complement`, in float64."""
    xd = np.asarray(x, np.float64)
    y = np.abs(xd)
    res = np.empty_like(xd)

    small = y <= 0.46875
    if small.any():
        ys = y[small]
        ysq = ys * ys
        num, den = _A[4] * ysq, ysq
        for i in range(3):
            num = (num + _A[i]) * ysq
            den = (den + _B[i]) * ysq
        e = xd[small] * (num + _A[3]) / (den + _B[3])
        res[small] = (0.5 - e) + 0.5 if complement else e

    big = y > 0.46875  # NaN compares False: handled below
    if big.any():
        yb = y[big]
        erfc = np.empty_like(yb)
        mid = yb <= 4.0
        ym = yb[mid]
        num, den = _C[8] * ym, ym
        for i in range(7):
            num = (num + _C[i]) * ym
            den = (den + _D[i]) * ym
        erfc[mid] = (num + _C[7]) / (den + _D[7]) * _erfc_scaled_tail(ym, np.trunc(ym * 16) / 16)
        yt = yb[~mid]
        with np.errstate(all="ignore"):  # exp underflows to 0 past |x| ~ 26.5: exact here
            inv = 1.0 / (yt * yt)
            num, den = _P[5] * inv, inv
            for i in range(4):
                num = (num + _P[i]) * inv
                den = (den + _Q[i]) * inv
            r = inv * (num + _P[4]) / (den + _Q[4])
            tail = (_INV_SQRT_PI - r) / yt * _erfc_scaled_tail(yt, np.trunc(yt * 16) / 16)
        erfc[~mid] = np.where(np.isfinite(yt), tail, 0.0)
        neg = xd[big] < 0
        if complement:
            res[big] = np.where(neg, 2.0 - erfc, erfc)
        else:
            res[big] = np.where(neg, -((0.5 - erfc) + 0.5), (0.5 - erfc) + 0.5)

    nan = np.isnan(xd)
    if nan.any():
        res[nan] = np.nan
    return res


def _float_dtype(x):
    return x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)


def erf(x):
    """The error function, elementwise, in x's floating dtype."""
    return _cody(x, False).astype(_float_dtype(x), copy=False)


def erfc(x):
    """1 - erf(x) without cancellation, elementwise, in x's floating dtype."""
    return _cody(x, True).astype(_float_dtype(x), copy=False)


# ---- erfinv ----------------------------------------------------------------------------------------
# M. Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011): a single-precision
# polynomial in w = -log(1 - y^2) as the start, then Newton steps on erf (or on erfc in the tails,
# where 1 - y is exact and erf is flat) with the float64 Cody kernels above.

_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
               -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
_SQRT_PI_OVER_2 = 0.88622692545275801365


def _horner(coefs, w):
    p = np.full_like(w, coefs[0])
    for c in coefs[1:]:
        p = p * w + c
    return p


def erfinv(y):
    """The inverse error function, elementwise, in y's floating dtype: +-inf at +-1, NaN outside
    [-1, 1]."""
    y = np.asarray(y)
    yd = y.astype(np.float64).reshape(-1)  # 1-D, so that masked assignment works for 0-d input
    a = np.abs(yd)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - a) * (1.0 + a))
        x = np.where(w < 5.0, _horner(_GILES_CENTRAL, w - 2.5),
                     _horner(_GILES_TAIL, np.sqrt(w) - 3.0)) * a
        central = a <= 0.5
        tail = (a > 0.5) & (a < 1.0)
        ac, log_rest = a[central], np.log(1.0 - a[tail])  # 1 - a is exact for a > 0.5
        xc, xt = x[central], x[tail]
        for _ in range(3):
            # Newton on erf(x) = a in the centre; in the tails on log(erfc(x)) = log(1 - a),
            # which is nearly quadratic in x and so converges from the rough start.
            xc = xc - (_cody(xc, False) - ac) * _SQRT_PI_OVER_2 * np.exp(xc * xc)
            e = _cody(xt, True)
            xt = xt + (np.log(e) - log_rest) * e * _SQRT_PI_OVER_2 * np.exp(xt * xt)
        x[central], x[tail] = xc, xt
        x = np.where(a == 1.0, np.inf, np.where(a > 1.0, np.nan, x))
    return (np.sign(yd) * x).reshape(y.shape).astype(_float_dtype(y), copy=False)


# ---- axes ------------------------------------------------------------------------------------------

def normalize_axes(axis, ndim, op):
    """Tuple of non-negative reduction axes, or None for all; `()` and None both mean all."""
    if axis is None:
        return None
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        axes = (int(axis),)
    elif isinstance(axis, (tuple, list)):
        if len(axis) == 0:
            return None
        axes = tuple(axis)
        for a in axes:
            if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
                raise TypeError(f"For '{op}', 'axis' must be an int or a tuple of ints, "
                                f"but got {axis!r}")
    else:
        raise TypeError(f"For '{op}', 'axis' must be an int or a tuple of ints, "
                        f"but got {type(axis).__name__}")
    out = []
    for a in axes:
        a = int(a)
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise ValueError(f"For '{op}', 'axis' {a} is out of range for a tensor of rank {ndim}")
        out.append(a % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ValueError(f"For '{op}', 'axis' repeats an axis: {axis!r}")
    if ndim == 0:  # axis 0 or -1 of a 0-d tensor, as MindSpore accepts it: its one element
        return None
    return tuple(sorted(out))


def normalize_axis(axis, ndim, op, extra=0):
    """One non-negative axis in [0, ndim + extra)."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"For '{op}', 'axis' must be an int, but got {type(axis).__name__}")
    n = ndim + extra
    if not -n <= axis < n:
        raise ValueError(f"For '{op}', 'axis' {axis} is out of range [{-n}, {n})")
    return int(axis) % n


def keep_shape(shape, axes):
    """`shape` with the reduced `axes` (None: all) kept as size 1."""
    if axes is None:
        return (1,) * len(shape)
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


_F16 = np.dtype(np.float16)


def sum_to_array(g, shape):
    """Sum g down to `shape`, undoing NumPy broadcasting."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    if lead < 0:  # a value broadcast with extra leading 1s (setitem): same elements
        return g.reshape(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1)
    if not axes:
        return g.reshape(shape)
    if g.dtype == _F16:  # float16 sums overflow and stall: add in float64, round once
        with quiet_region():  # a sum past float16's range is inf, without a NumPy warning
            return g.sum(axis=axes, keepdims=True, dtype=np.float64).astype(
                np.float16).reshape(shape)
    outer = _sum_outer_axes(g, axes)
    if outer is not None:
        return outer.reshape(shape)
    return g.sum(axis=axes, keepdims=True).reshape(shape)


_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _sum_outer_axes(g, axes):
    """g summed over `axes` by one BLAS product with ones, when in g's memory order the summed
    axes all lie outside the kept ones, (R, K) rows summed as ones @ rows (a bias gradient of
    channels-last memory: batch and space summed, channels kept), or all inside them, (K, R)
    rows summed as rows @ ones (channels-outer memory). NumPy reduces outer axes row by row,
    2-10x slower than BLAS and no more accurate. The kept axes come back in their order; None
    when the layout fits neither."""
    if g.dtype not in _BLAS_FLOATS or g.size < 1024:
        return None
    order = sorted(range(g.ndim), key=lambda i: (-g.strides[i], i))
    summed = [i for i in order if i in axes]
    kept = [i for i in order if i not in axes]
    if order not in (summed + kept, kept + summed):
        return None
    mem = g.transpose(order)
    if not mem.flags.c_contiguous:
        return None
    kept_shape = [g.shape[i] for i in kept]
    k = int(np.prod(kept_shape))
    if order == summed + kept:
        rows = mem.reshape(-1, k)
        out = np.ones(rows.shape[0], g.dtype) @ rows
    else:
        rows = mem.reshape(k, -1)
        out = rows @ np.ones(rows.shape[1], g.dtype)
    return out.reshape(kept_shape).transpose(np.argsort(kept))


_HALF = np.dtype(np.float16)


def matmul(a, b):
    """`np.matmul(a, b)`, with a stack of matrices times one matrix as one GEMM over the stacked
    rows (NumPy would loop per matrix; ~25 % faster at (16, 64, 128) x (128, 512), the same
    bits)."""
    if a.ndim > 2 and b.ndim == 2:
        return np.matmul(a.reshape(-1, a.shape[-1]), b).reshape(a.shape[:-1] + (b.shape[-1],))
    return np.matmul(a, b)


def gemm(a, b):
    """`matmul(a, b)`; float16 operands multiply and accumulate in float32 and round once (as
    MindSpore's kernels do; NumPy's own float16 GEMM is also ~100x slower)."""
    if a.dtype == _HALF and b.dtype == _HALF:
        return matmul(a.astype(np.float32), b.astype(np.float32)).astype(_HALF)
    return matmul(a, b)
