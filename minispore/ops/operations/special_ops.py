"""Special functions (gamma family, Bessel, zeta, incomplete gamma and beta) and the remaining
elementwise math (gcd/lcm, shifts, hypot, nextafter, xlogy, nan handling, ...), with cumulative
max/min, cumulative logsumexp and the median.

The special functions compute with SciPy (`scipy.special`), an optional dependency: without it
they raise ImportError naming the extra to install. Everything else is NumPy.
"""
import math

import numpy as np

from ..._autodiff.tape import apply, binary, call1, wrap
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..primitive import Binary, Primitive, Unary, register
from . import array_ops as A
from . import math_ops as M
from . import reduce_ops as R
from ._kernels import keep_dtype, normalize_axis, quiet

__all__ = []
PRIMITIVE_CLASSES = ()

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _scipy(op):
    """`scipy.special`, imported on the first call that needs it (it costs ~0.2 s, so `import
    minispore` does not pay it)."""
    try:
        from scipy import special  # the optional extra `minispore[special]`
    except ImportError:
        raise ImportError(f"ops.{op} needs SciPy: pip install 'minispore[special]'") from None
    return special


def _dtype_name(a):
    return str(mstype.from_np(a.dtype))


def _check_kinds(name, kinds, what, *arrays):
    for a in arrays:
        if a.dtype.kind not in kinds:
            raise TypeError(f"For '{name}', the inputs must be {what} tensors, but got "
                            f"{_dtype_name(a)}")


def _check_dtypes(name, allowed, *arrays):
    """Refuse the dtypes outside `allowed` (MindSpore's list for the op) with a TypeError."""
    for a in arrays:
        if a.dtype not in allowed:
            names = ", ".join(str(mstype.from_np(d)) for d in allowed)
            raise TypeError(f"For '{name}', the inputs must be {names} tensors, but got "
                            f"{_dtype_name(a)}")


_F32_64 = (np.dtype(np.float32), np.dtype(np.float64))
_I32_64 = (np.dtype(np.int32), np.dtype(np.int64))
_I16_64 = (np.dtype(np.int16),) + _I32_64


def _check_floats(name, *arrays):
    _check_kinds(name, "f", "float16, float32 or float64", *arrays)


def _check_same(name, x, y):
    if x.dtype != y.dtype:
        raise TypeError(f"For '{name}', the inputs must have the same dtype, but got "
                        f"{_dtype_name(x)} and {_dtype_name(y)}")


class _SameDtypeBinary(Binary):
    """A binary op whose Tensor operands must share one dtype (no promotion, as MindSpore's)."""

    def __call__(self, x, y):
        if isinstance(x, Tensor) and isinstance(y, Tensor):
            _check_same(self.name, x._data, y._data)
        return binary(self, x, y)


def _in_float64(fn, *arrays):
    """fn on the arrays widened to float64, rounded once to the first array's dtype."""
    with np.errstate(all="ignore"):  # out of the narrow dtype's range is inf, as it should be
        out = fn(*[a.astype(_F64, copy=False) for a in arrays])
        return np.asarray(out).astype(arrays[0].dtype, copy=False)


def _as_tensor(v, like):
    """A saved input as a Tensor (a Python-scalar operand of a binary op is saved as it came)."""
    return v if isinstance(v, Tensor) else wrap(np.asarray(v, like._data.dtype))


def _safe_x(x):
    """x with its zeros replaced by ones (for a division whose limit at 0 is taken apart)."""
    return M.select(x == 0, 1.0, x)


# ================================ gamma family ===================================================

@register
class Lgamma(Unary):
    """log|gamma(x)| (integers give float32).  dx = dout * digamma(x)."""

    saves = ("x",)

    def forward(self, x):
        sp = _scipy("lgamma")
        if x.dtype.kind != "f":
            _check_kinds(self.name, "biu", "number", x)
            x = x.astype(_F32)
        return _in_float64(sp.gammaln, x)

    def bprop(self, saved, dout, needs):
        return (dout * call1(_DIGAMMA, saved[0]),)


@register
class Digamma(Unary):
    """The logarithmic derivative of gamma.  dx = dout * polygamma(1, x)."""

    saves = ("x",)

    def forward(self, x):
        sp = _scipy("digamma")
        _check_floats(self.name, x)
        return _in_float64(sp.psi, x)

    def bprop(self, saved, dout, needs):
        return (dout * polygamma(1, saved[0]),)


@register
class Polygamma(Primitive):
    """`Polygamma()(a, x)`: the a-th derivative of digamma at x; `a` a 0-d int32/int64 Tensor.
    dx = dout * polygamma(a + 1, x); `a` has no gradient."""

    inputs = ("a", "x")
    saves = ("a", "x")

    def __call__(self, a, x):
        return apply(self, (a, x))

    def forward(self, a, x):
        sp = _scipy("polygamma")
        a = np.asarray(a)
        if a.dtype.kind not in "iu":
            raise TypeError(f"For 'Polygamma', 'a' must be an int32 or int64 tensor, but got "
                            f"{_dtype_name(a)}")
        if a.ndim != 0:
            raise ValueError(f"For 'Polygamma', 'a' must be a 0-d Tensor, but got rank {a.ndim}")
        if a < 0:
            raise ValueError(f"For 'Polygamma', 'a' must be non-negative, but got {int(a)}")
        _check_floats(self.name, x)
        return _in_float64(lambda v: sp.polygamma(int(a), v), x)

    def bprop(self, saved, dout, needs):
        a, x = saved
        return None, dout * polygamma(int(np.asarray(_data(a))) + 1, x)


def _data(v):
    return v._data if isinstance(v, Tensor) else v


_POLYGAMMA = Polygamma()


def polygamma(n, x):
    """polygamma(n, x) for a Python int n (the rules above use it)."""
    return apply(_POLYGAMMA, (wrap(np.asarray(n, np.int64)), x))


_DIGAMMA = Digamma()


def _igamma_series(a, x, order):
    """d^order/da^order of the regularized lower incomplete gamma P(a, x), from its series
    P = sum_k exp((a + k) log x - x - lgamma(a + k + 1)) (terms summed in log space)."""
    sp = _scipy("igamma")
    a, x = np.broadcast_arrays(a.astype(_F64), x.astype(_F64))
    good = (a > 0) & (x > 0)
    a_, x_ = np.where(good, a, 1.0), np.where(good, x, 1.0)
    logx = np.log(x_)
    log_t = a_ * logx - x_ - sp.gammaln(a_ + 1)
    z = a_ + 1                      # the argument of digamma/trigamma in term k
    psi, psi1 = sp.psi(z), sp.polygamma(1, z)
    total = np.zeros_like(a_)
    limit = int(np.max(x_, initial=0.0) + 12 * np.sqrt(np.max(x_, initial=0.0)) + 60)
    for k in range(max(limit, 60)):
        t = np.exp(log_t)
        lk = logx - psi
        term = t * lk if order == 1 else t * (lk * lk - psi1)
        total += term
        if k > limit // 2 and np.all(np.abs(term) <= 1e-17 * np.maximum(np.abs(total), 1e-300)):
            break
        log_t = log_t + logx - np.log(z)
        psi, psi1 = psi + 1 / z, psi1 - 1 / (z * z)
        z = z + 1
    out = np.where(good, total, np.where((x == 0) & (a > 0), 0.0, np.nan))
    return out


@register
class IgammaGradA(Primitive):
    """`IgammaGradA(order)(a, x)`: d^order/da^order of the regularized lower incomplete gamma
    P(a, x) (order 1 or 2), the a-gradient of Igamma and Igammac.  Its own gradient in x is the
    closed form; in a it is the next order (up to the second)."""

    inputs = ("a", "x")
    saves = ("a", "x")
    broadcasts = True
    internal = True

    def __init__(self, order=1):
        super().__init__()
        self.order = order

    def forward(self, a, x):
        _scipy("igamma")
        return _igamma_series(a, x, self.order).astype(a.dtype)

    def bprop(self, saved, dout, needs):
        a, x = saved
        da = dx = None
        if needs[0]:
            if self.order >= 2:
                raise ValueError("For 'igamma', derivatives in 'input' (a) above the second "
                                 "are not available")
            da = dout * apply(_IGAMMA_GRAD_A2, (a, x))
        if needs[1]:
            shift = M.log(x) - call1(_DIGAMMA, a)
            factor = shift if self.order == 1 else shift * shift - polygamma(1, a)
            dx = dout * _igamma_density(a, x) * factor
        return da, dx


_IGAMMA_GRAD_A1, _IGAMMA_GRAD_A2 = IgammaGradA(1), IgammaGradA(2)


def _igamma_density(a, x):
    """dP(a, x)/dx = x^(a-1) exp(-x) / gamma(a)."""
    return M.exp((a - 1) * M.log(x) - x - call1(_LGAMMA, a))


_LGAMMA = Lgamma()


class _IncompleteGamma(_SameDtypeBinary):
    saves = ("x", "y")
    _fn = None
    _sign = 1.0

    def forward(self, a, x):
        sp = _scipy(self._op)
        _check_dtypes(self.name, _F32_64, a, x)
        _check_same(self.name, a, x)
        valid = a > 0
        out = _in_float64(getattr(sp, self._fn), np.where(valid, a, np.ones((), a.dtype)), x)
        return np.where(valid, out, np.array(np.nan, out.dtype))

    def bprop(self, saved, dout, needs):
        a, x = _as_tensor(saved[0], dout), _as_tensor(saved[1], dout)
        da = dout * apply(_IGAMMA_GRAD_A1, (a, x)) * self._sign if needs[0] else None
        dx = dout * _igamma_density(a, x) * self._sign if needs[1] else None
        return da, dx


@register
class Igamma(_IncompleteGamma):
    """`Igamma()(a, x)`: the regularized lower incomplete gamma P(a, x).
    dx = dout * x^(a-1) e^-x / gamma(a);  da by its series."""

    _fn, _op = "gammainc", "igamma"


@register
class Igammac(_IncompleteGamma):
    """`Igammac()(a, x)`: the regularized upper incomplete gamma Q(a, x) = 1 - P(a, x)."""

    _fn, _op, _sign = "gammaincc", "igammac", -1.0


@register
class Betainc(Primitive):
    """`Betainc()(a, b, x)`: the regularized incomplete beta I_x(a, b).
    dx = dout * x^(a-1) (1-x)^(b-1) / B(a, b); a and b have no gradient (as in MindSpore)."""

    inputs = ("a", "b", "x")
    saves = ("a", "b", "x")
    broadcasts = True

    def __call__(self, a, b, x):
        return apply(self, (a, b, x))

    def forward(self, a, b, x):
        sp = _scipy("betainc")
        _check_dtypes(self.name, _F32_64, a, b, x)
        _check_same(self.name, a, b)
        _check_same(self.name, a, x)
        return _in_float64(sp.betainc, a, b, x)

    def bprop(self, saved, dout, needs):
        a, b, x = saved
        log_beta = call1(_LGAMMA, a) + call1(_LGAMMA, b) - call1(_LGAMMA, a + b)
        density = M.exp((a - 1) * M.log(x) + (b - 1) * call1(_LOG1P, -x) - log_beta)
        return None, None, dout * density


_LOG1P = M.Log1p()


@register
class Zeta(_SameDtypeBinary):
    """`Zeta()(x, q)`: the Hurwitz zeta function sum_k (k + q)^-x.
    dq = -dout * x * zeta(x + 1, q); x has no gradient (as in MindSpore)."""

    saves = ("x", "y")

    def forward(self, x, q):
        sp = _scipy("zeta")
        _check_dtypes(self.name, _F32_64, x, q)
        _check_same(self.name, x, q)
        return _in_float64(sp.zeta, x, q)

    def bprop(self, saved, dout, needs):
        x, q = _as_tensor(saved[0], dout), saved[1]
        return None, -dout * x * binary(_ZETA, x + 1, q)


_ZETA = Zeta()


# ================================ Bessel functions ===============================================

class _Bessel(Unary):
    """A Bessel function of float16/32/64 tensors (computed in float64)."""

    saves = ("x", "out")
    _fn = _op = None

    def forward(self, x):
        sp = _scipy(self._op)
        _check_floats(self.name, x)
        return _in_float64(getattr(sp, self._fn), x)


def _bessel(x, prim):
    return call1(prim, x)


def _order_one_grad(x, out, lower, sign, scaled=False):
    """d/dx of I1 (sign +1) or J1 (sign -1): lower - out / x, which is lower - f1(x) / x with
    f1 = I1 or J1 (times exp(-|x|) when `scaled`); below |x| = 1e-3 its Taylor series
    1/2 + sign 3x^2/16 + 5x^4/384 (the quotient loses every digit near 0)."""
    small = wrap(np.abs(x._data) < 1e-3)
    x2 = x * x
    series = x2 * (x2 * (5 / 384) + sign * 3 / 16) + 0.5
    if scaled:
        series = series * M.exp(-call1(_ABS, x))
    return M.select(small, series, lower - out / M.select(small, 1.0, x))


@register
class BesselI0(_Bessel):
    """Modified Bessel I0.  dx = dout * I1(x)."""

    _fn, _op = "i0", "bessel_i0"

    def bprop(self, saved, dout, needs):
        return (dout * _bessel(saved[0], _I1),)


@register
class BesselI0e(_Bessel):
    """exp(-|x|) I0(x).  dx = dout * (I1e(x) - sign(x) * out)."""

    _fn, _op = "i0e", "bessel_i0e"

    def bprop(self, saved, dout, needs):
        x, out = saved
        return (dout * (_bessel(x, _I1E) - M.sign(x) * out),)


@register
class BesselI1(_Bessel):
    """Modified Bessel I1.  dx = dout * (I0(x) - out / x) (1/2 at 0)."""

    _fn, _op = "i1", "bessel_i1"

    def bprop(self, saved, dout, needs):
        x, out = saved
        return (dout * _order_one_grad(x, out, _bessel(x, _I0), 1),)


@register
class BesselI1e(_Bessel):
    """exp(-|x|) I1(x).  dx = dout * (I0e(x) - out / x - sign(x) * out) (1/2 at 0)."""

    _fn, _op = "i1e", "bessel_i1e"

    def bprop(self, saved, dout, needs):
        x, out = saved
        return (dout * (_order_one_grad(x, out, _bessel(x, _I0E), 1, True) - M.sign(x) * out),)


@register
class BesselJ0(_Bessel):
    """Bessel J0.  dx = -dout * J1(x)."""

    _fn, _op = "j0", "bessel_j0"

    def bprop(self, saved, dout, needs):
        return (-dout * _bessel(saved[0], _J1),)


@register
class BesselJ1(_Bessel):
    """Bessel J1.  dx = dout * (J0(x) - out / x) (1/2 at 0)."""

    _fn, _op = "j1", "bessel_j1"

    def bprop(self, saved, dout, needs):
        x, out = saved
        return (dout * _order_one_grad(x, out, _bessel(x, _J0), -1),)


@register
class BesselY0(_Bessel):
    """Bessel Y0 (x > 0).  dx = -dout * Y1(x)."""

    _fn, _op = "y0", "bessel_y0"

    def bprop(self, saved, dout, needs):
        return (-dout * _bessel(saved[0], _Y1),)


@register
class BesselY1(_Bessel):
    """Bessel Y1 (x > 0).  dx = dout * (Y0(x) - out / x)."""

    _fn, _op = "y1", "bessel_y1"

    def bprop(self, saved, dout, needs):
        x, out = saved
        return (dout * (_bessel(x, _Y0) - out / x),)


@register
class BesselK0(_Bessel):
    """Modified Bessel K0 (x > 0).  dx = -dout * K1(x)."""

    _fn, _op = "k0", "bessel_k0"

    def bprop(self, saved, dout, needs):
        return (-dout * _bessel(saved[0], _K1),)


@register
class BesselK0e(_Bessel):
    """exp(x) K0(x).  dx = dout * (out - K1e(x))."""

    _fn, _op = "k0e", "bessel_k0e"

    def bprop(self, saved, dout, needs):
        x, out = saved
        return (dout * (out - _bessel(x, _K1E)),)


@register
class BesselK1(_Bessel):
    """Modified Bessel K1 (x > 0).  dx = -dout * (K0(x) + out / x)."""

    _fn, _op = "k1", "bessel_k1"

    def bprop(self, saved, dout, needs):
        x, out = saved
        return (-dout * (_bessel(x, _K0) + out / x),)


@register
class BesselK1e(_Bessel):
    """exp(x) K1(x).  dx = dout * (out - K0e(x) - out / x)."""

    _fn, _op = "k1e", "bessel_k1e"

    def bprop(self, saved, dout, needs):
        x, out = saved
        return (dout * (out - _bessel(x, _K0E) - out / x),)


_ABS = M.Abs()
_I0, _I0E, _I1, _I1E = BesselI0(), BesselI0e(), BesselI1(), BesselI1e()
_J0, _J1, _Y0, _Y1 = BesselJ0(), BesselJ1(), BesselY0(), BesselY1()
_K0, _K0E, _K1, _K1E = BesselK0(), BesselK0e(), BesselK1(), BesselK1e()


# ================================ elementwise functions ==========================================

def _float32_if_integral(name, x):
    if x.dtype.kind in "fc":
        return x
    _check_kinds(name, "biu", "number", x)
    return x.astype(_F32)


@register
class Sinc(Unary):
    """sin(pi x) / (pi x), 1 at 0 (integers give float32).
    dx = dout * (cos(pi x) - out) / x (its Taylor series for |x| < 1/4)."""

    saves = ("x", "out")

    def forward(self, x):
        x = _float32_if_integral(self.name, x)
        return keep_dtype(np.asarray(quiet(np.sinc, x)), x.dtype)

    def bprop(self, saved, dout, needs):
        x, out = saved
        small = wrap(np.abs(x._data) < 0.25)
        x2 = x * x
        series = _SINC_SLOPE[-1]
        for c in _SINC_SLOPE[-2::-1]:
            series = series * x2 + c
        slope = (M.cos(x * np.pi) - out) / M.select(small, 1.0, x)
        return (dout * M.select(small, x * series, slope),)


# sinc'(x) = x * sum_k _SINC_SLOPE[k] x^(2k) (k < 8), used for |x| < 0.25 where the quotient
# (cos(pi x) - sinc(x)) / x cancels: the (k+1)-th coefficient is (-1)^(k+1) 2(k+1) pi^(2k+2) /
# (2k+3)!
_SINC_SLOPE = tuple((-1) ** (k + 1) * 2 * (k + 1) * np.pi ** (2 * k + 2) / math.factorial(2 * k + 3)
                    for k in range(8))


@register
class Rint(Unary):
    """Round half to even on float tensors.  Zero gradient."""

    def forward(self, x):
        _check_floats(self.name, x)
        return np.rint(x)

    def bprop(self, saved, dout, needs):
        return (None,)


@register
class Inv(Unary):
    """1 / x (integers: the quotient rounded toward zero).  dx = -dout * out^2."""

    saves = ("out",)

    def forward(self, x):
        if x.dtype.kind in "fc":
            return quiet(np.reciprocal, x)
        _check_kinds(self.name, "iu", "number", x)
        if np.any(x == 0):
            raise ValueError("For 'Inv', integer division by zero")
        return np.where(np.abs(x) == 1, x, 0).astype(x.dtype)

    def bprop(self, saved, dout, needs):
        out = saved[0]
        return (-dout * (out * out),)


class _IntegerUnary(Unary):
    differentiable = False

    def bprop(self, saved, dout, needs):
        return (None,)


@register
class Invert(_IntegerUnary):
    """Bitwise not of an integer tensor."""

    def forward(self, x):
        _check_kinds(self.name, "iu", "integer", x)
        return np.invert(x)


@register
class PopulationCount(_IntegerUnary):
    """The number of set bits of each integer (two's complement), as uint8."""

    def forward(self, x):
        _check_kinds(self.name, "iu", "integer", x)
        bytes_ = np.ascontiguousarray(x).view(np.uint8).reshape(x.shape + (x.dtype.itemsize,))
        return np.unpackbits(bytes_, axis=-1).sum(axis=-1, dtype=np.uint8)


@register
class NanToNum(Unary):
    """`NanToNum(nan=None, posinf=None, neginf=None)(x)`: NaN, +inf and -inf replaced (by 0 and
    the dtype's largest and lowest finite values by default).  dx = dout where x is finite."""

    saves = ("x",)

    def __init__(self, nan=None, posinf=None, neginf=None):
        super().__init__()
        self.nan, self.posinf, self.neginf = nan, posinf, neginf

    def forward(self, x):
        _check_floats(self.name, x)
        return np.nan_to_num(x, nan=0.0 if self.nan is None else self.nan,
                             posinf=self.posinf, neginf=self.neginf)

    def bprop(self, saved, dout, needs):
        finite = wrap(np.isfinite(saved[0]._data).astype(dout._data.dtype))
        return (dout * finite,)


@register
class Logit(Unary):
    """`Logit(eps=-1.0)(x)`: log(x / (1 - x)), x first clipped to [eps, 1 - eps] when eps >= 0.
    dx = dout / (x (1 - x)) inside [eps, 1 - eps], 0 outside."""

    saves = ("x",)

    def __init__(self, eps=-1.0):
        super().__init__()
        self.eps = float(eps)

    def forward(self, x):
        _check_floats(self.name, x)
        dt = x.dtype
        if self.eps >= 0:
            x = keep_dtype(np.asarray(np.clip(x, self.eps, 1 - self.eps)), dt)
        return keep_dtype(np.asarray(quiet(lambda v: np.log(v / (1 - v)), x)), dt)

    def bprop(self, saved, dout, needs):
        x = saved[0]
        slope = dout / (x * (1 - x))
        if self.eps < 0:
            return (slope,)
        inside = (x._data >= self.eps) & (x._data <= 1 - self.eps)
        return (M.select(wrap(inside), slope, 0.0),)


# ================================ elementwise binary =============================================

@register
class Xlogy(Binary):
    """x * log(y), 0 where x == 0 (unless y is NaN).
    dx = dout * log(y) (0 where x == y == 0);  dy = dout * xdivy(x, y)."""

    saves = ("x", "y")

    def forward(self, x, y):
        _check_kinds(self.name, "f", "float", x, y)
        return np.where((x == 0) & ~np.isnan(y), np.zeros((), x.dtype), x * np.log(y))

    def bprop(self, saved, dout, needs):
        x, y = saved
        dx = dy = None
        if needs[0]:
            dx = dout * M.select(_zero_mask(x, y), 0.0, M.log(_as_tensor(y, dout)))
        if needs[1]:
            dy = dout * binary(_XDIVY, x, y)
        return dx, dy


def _zero_mask(x, y):
    """Where x == 0 and y == 0 (no derivative in x there: 0 by convention), as a constant of the
    broadcast shape."""
    xs, ys = np.broadcast_arrays(np.asarray(_data(x)), np.asarray(_data(y)))
    return wrap((xs == 0) & (ys == 0))


@register
class Xdivy(Binary):
    """x / y, 0 where x == 0.  dx = dout / y (0 where x == y == 0);  dy = -dout * out / y."""

    saves = ("x", "y", "out")

    def forward(self, x, y):
        _check_kinds(self.name, "fc", "float or complex", x, y)
        return np.where(x == 0, np.zeros((), x.dtype), x / y)

    def bprop(self, saved, dout, needs):
        x, y, out = saved
        dx = dout * M.select(_zero_mask(x, y), 0.0, 1 / y) if needs[0] else None
        dy = -dout * out / y if needs[1] else None
        return dx, dy


_XDIVY = Xdivy()


@register
class Hypot(Binary):
    """sqrt(x^2 + y^2) without overflow.  dx = dout * x / out;  dy = dout * y / out."""

    saves = ("x", "y", "out")

    def forward(self, x, y):
        _check_dtypes(self.name, _F32_64, x, y)
        return np.hypot(x, y)

    def bprop(self, saved, dout, needs):
        x, y, out = saved
        r = dout / out
        return (r * x if needs[0] else None), (r * y if needs[1] else None)


class _NanIgnoringExtreme(Binary):
    """fmax/fmin: the larger/smaller operand, a NaN only where both are NaN. The gradient goes
    to the operand chosen; ties split it evenly; where both are NaN it goes to x (as
    MindSpore's)."""

    saves = ("x", "y")
    _ufunc = _better = None

    def forward(self, x, y):
        _check_dtypes(self.name, (np.dtype(np.float16),) + _F32_64 + _I32_64, x, y)
        return self._ufunc(x, y)

    def bprop(self, saved, dout, needs):
        a, b = np.broadcast_arrays(_data(saved[0]), _data(saved[1]))
        wins = self._better(a, b) | np.isnan(b)
        tie = a == b
        w = np.where(tie, 0.5, wins.astype(np.float64)).astype(dout._data.dtype)
        wx = wrap(w)
        return (dout * wx if needs[0] else None), (dout * (1 - wx) if needs[1] else None)


@register
class Fmax(_NanIgnoringExtreme):
    """Elementwise max ignoring NaN."""

    _ufunc, _better = staticmethod(np.fmax), staticmethod(np.greater)


@register
class Fmin(_NanIgnoringExtreme):
    """Elementwise min ignoring NaN."""

    _ufunc, _better = staticmethod(np.fmin), staticmethod(np.less)


@register
class NextAfter(_SameDtypeBinary):
    """The next representable float after x toward y.  dx = dout, y has no gradient (as in
    MindSpore: the step is below the float resolution)."""

    def forward(self, x, y):
        _check_dtypes(self.name, _F32_64, x, y)
        _check_same(self.name, x, y)
        return np.nextafter(x, y)

    def bprop(self, saved, dout, needs):
        return dout, None


@register
class Heaviside(_SameDtypeBinary):
    """Step function: 0 for x < 0 (and NaN), `values` at 0, 1 for x > 0. No gradient."""

    differentiable = False

    def forward(self, x, values):
        _check_same(self.name, x, values)
        one, zero = np.ones((), x.dtype), np.zeros((), x.dtype)
        return np.where(x > 0, one, np.where(x == 0, values, zero)).astype(x.dtype, copy=False)

    def bprop(self, saved, dout, needs):
        return None, None


@register
class DivNoNan(Binary):
    """x / y, 0 where y == 0.  dx = div_no_nan(dout, y);  dy = -div_no_nan(dout * out, y)."""

    saves = ("y", "out")

    def forward(self, x, y):
        _check_kinds(self.name, "fc", "float or complex", x, y)
        zero = y == 0
        return np.where(zero, np.zeros((), x.dtype), x / np.where(zero, np.ones((), y.dtype), y))

    def bprop(self, saved, dout, needs):
        y, out = saved
        dx = binary(_DIV_NO_NAN, dout, y) if needs[0] else None
        dy = -binary(_DIV_NO_NAN, dout * out, y) if needs[1] else None
        return dx, dy


_DIV_NO_NAN = DivNoNan()


@register
class MulNoNan(Binary):
    """x * y, 0 where y == 0 (even where x is inf or NaN).
    dx = mul_no_nan(dout, y);  dy = dout * x."""

    saves = ("x", "y")

    def forward(self, x, y):
        return np.where(y == 0, np.zeros((), np.result_type(x, y)), x * y)

    def bprop(self, saved, dout, needs):
        x, y = saved
        dx = binary(_MUL_NO_NAN, dout, y) if needs[0] else None
        dy = dout * x if needs[1] else None
        return dx, dy


_MUL_NO_NAN = MulNoNan()


def _nonzero_divisor(name, x, y):
    if x.dtype.kind in "iu" and np.any(y == 0):
        raise ValueError(f"For '{name}', integer division by zero")


@register
class TruncateDiv(Binary):
    """x / y rounded toward zero (integers stay integers).  Zero gradient."""

    def forward(self, x, y):
        _nonzero_divisor(self.name, x, y)
        if x.dtype.kind in "iu":
            return (x - np.fmod(x, y)) // y
        return np.trunc(x / y)

    def bprop(self, saved, dout, needs):
        return None, None


class _Fmod(Binary):
    """x - trunc(x / y) * y, the sign of x.  dx = dout;  dy = -dout * trunc(x / y)."""

    saves = ("x", "y")

    def forward(self, x, y):
        _nonzero_divisor(self.name, x, y)
        return np.fmod(x, y)

    def bprop(self, saved, dout, needs):
        x, y = saved
        dy = -dout * call1(_TRUNC, x / y) if needs[1] else None
        return (dout if needs[0] else None), dy


_TRUNC = M.Trunc()


@register
class TruncateMod(_Fmod):
    __doc__ = _Fmod.__doc__


@register
class Mod(_Fmod):
    __doc__ = _Fmod.__doc__ + (" (MindSpore's CPU gradient in y uses floor(x / y), wrong where "
                               "x / y < 0; this is the derivative.)")


@register
class SquaredDifference(Binary):
    """(x - y)^2.  dx = 2 dout (x - y);  dy = -dx."""

    saves = ("x", "y")

    def forward(self, x, y):
        d = x - y
        return d * d

    def bprop(self, saved, dout, needs):
        x, y = saved
        g = dout * (x - y) * 2
        return (g if needs[0] else None), (-g if needs[1] else None)


class _IntegerBinary(Binary):
    differentiable = False
    _ufunc = None
    _dtypes = None

    def forward(self, x, y):
        if self._dtypes is None:
            _check_kinds(self.name, "iu", "integer", x, y)
        else:
            _check_dtypes(self.name, self._dtypes, x, y)
        return self._ufunc(x, y)

    def bprop(self, saved, dout, needs):
        return None, None


@register
class Gcd(_IntegerBinary):
    """Greatest common divisor of int16/int32/int64 tensors (gcd(0, 0) = 0)."""

    _ufunc, _dtypes = staticmethod(np.gcd), _I16_64


@register
class Lcm(_IntegerBinary):
    """Least common multiple of int32/int64 tensors (0 when either is 0)."""

    _ufunc, _dtypes = staticmethod(np.lcm), _I32_64


def _shift(ufunc):
    """C's shift: operands narrower than 32 bits shift as int32, the count taken modulo the
    width shifted (32 or 64), the result wrapped back to the operand's dtype."""
    def shift(x, y):
        wide = x.astype(np.int32) if x.dtype.itemsize < 4 else x
        bits = wide.dtype.itemsize * 8
        return ufunc(wide, (y & (bits - 1)).astype(wide.dtype)).astype(x.dtype)
    return staticmethod(shift)


@register
class LeftShift(_IntegerBinary):
    """x << y on integers (as C shifts, MindSpore's CPU kernel: see _shift)."""

    _ufunc = _shift(np.left_shift)


@register
class RightShift(_IntegerBinary):
    """x >> y on integers (arithmetic for signed ones; as C shifts: see _shift)."""

    _ufunc = _shift(np.right_shift)


@register
class ApproximateEqual(Binary):
    """`ApproximateEqual(tolerance=1e-05)(x, y)`: |x - y| < tolerance (bool)."""

    differentiable = False

    def __init__(self, tolerance=1e-05):
        super().__init__()
        self.tolerance = float(tolerance)

    def forward(self, x, y):
        _check_floats(self.name, x, y)
        return np.abs(x - y) < self.tolerance

    def bprop(self, saved, dout, needs):
        return None, None


# ================================ scans and order statistics =====================================

def _to_last(x, axis):
    """x with `axis` moved last (a view), and the permutation back."""
    perm = [i for i in range(x.ndim) if i != axis] + [axis]
    return perm, np.argsort(perm).tolist()


def _moved(t, perm):
    return t if perm == sorted(perm) else A.transpose(t, perm)


class _CumExtreme(Primitive):
    """(values, indices) of the running max/min along `axis`; ties take the latest index. The
    gradient of each value goes to the element at its index."""

    inputs = ("x",)
    saves = ("x", "out")
    _index_dtype = np.int64
    _ufunc = _wins = None

    def __init__(self, axis):
        super().__init__()
        self.axis = axis

    def __call__(self, x):
        return apply(self, (x,))

    def forward(self, x):
        if x.ndim == 0:
            raise ValueError(f"For '{self.name}', the input must have at least one dimension")
        axis = normalize_axis(self.axis, x.ndim, self.name)
        if x.shape[axis] == 0:
            return x.copy(), np.zeros(x.shape, self._index_dtype)
        v = np.moveaxis(x, axis, -1)
        best = v[..., 0].copy()
        index = np.zeros(v.shape, np.int64)
        for j in range(1, v.shape[-1]):
            take = self._wins(v[..., j], best) | (v[..., j] == best) | np.isnan(v[..., j])
            take &= ~np.isnan(best)
            best = np.where(take, v[..., j], best)
            index[..., j] = np.where(take, j, index[..., j - 1])
        values = self._ufunc.accumulate(v, axis=-1)
        return (np.moveaxis(values, -1, axis),
                np.moveaxis(index, -1, axis).astype(self._index_dtype))

    def bprop(self, saved, dout, needs):
        x, out = saved
        axis = normalize_axis(self.axis, x.ndim, self.name)
        perm, back = _to_last(x._data, axis)
        idx = np.transpose(out[1]._data, perm)
        n = idx.shape[-1]
        onehot = (idx[..., :, None] == np.arange(n)).astype(dout[0]._data.dtype)
        g = R.reduce_sum(A.expand_dims(_moved(dout[0], perm), -1) * wrap(onehot), -2)
        return (_moved(g, back),)


@register
class Cummax(_CumExtreme):
    """`Cummax(axis)(x)`: (running max, its int64 index) along `axis`."""

    _ufunc, _wins = np.maximum, staticmethod(np.greater)


@register
class Cummin(_CumExtreme):
    """`Cummin(axis)(x)`: (running min, its int32 index) along `axis`."""

    _index_dtype = np.int32
    _ufunc, _wins = np.minimum, staticmethod(np.less)


@register
class CumulativeLogsumexp(Primitive):
    """`CumulativeLogsumexp(exclusive=False, reverse=False)(x, axis)`: log(cumsum(exp(x))) along
    `axis` without overflow. An exclusive sum over nothing is the dtype's lowest value (as
    MindSpore's). dx_i = sum over the outputs j that include x_i of dout_j exp(x_i - out_j)."""

    inputs = ("x", "axis")
    saves = ("x", "out", "axis")

    def __init__(self, exclusive=False, reverse=False):
        super().__init__()
        self.exclusive, self.reverse = bool(exclusive), bool(reverse)

    def __call__(self, x, axis):
        return apply(self, (x, axis))

    def _axis(self, axis, ndim):
        a = np.asarray(axis)
        if a.ndim != 0 or a.dtype.kind not in "iu":
            raise TypeError(f"For '{self.name}', 'axis' must be an integer or a 0-d integer "
                            f"Tensor, but got {axis!r}")
        return normalize_axis(int(a), ndim, self.name)

    def forward(self, x, axis):
        _check_floats(self.name, x)
        if x.ndim == 0:
            raise ValueError(f"For '{self.name}', the input must have at least one dimension")
        axis = self._axis(axis, x.ndim)
        if x.shape[axis] == 0:
            return x.copy()
        v = np.moveaxis(x, axis, -1)
        if self.reverse:
            v = v[..., ::-1]
        out = np.logaddexp.accumulate(v, axis=-1)
        if self.exclusive:
            out = np.concatenate([np.full(out.shape[:-1] + (1,), np.finfo(x.dtype).min,
                                          x.dtype), out[..., :-1]], axis=-1)
        if self.reverse:
            out = out[..., ::-1]
        return np.ascontiguousarray(np.moveaxis(out, -1, axis))

    def bprop(self, saved, dout, needs):
        x, out, axis = saved
        if x._data.size == 0:
            return dout, None  # an empty gradient of the input's shape
        axis = self._axis(_data(axis), x.ndim)
        perm, back = _to_last(x._data, axis)
        xs, outs, ds = _moved(x, perm), _moved(out, perm), _moved(dout, perm)
        n = x.shape[axis]
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        if self.reverse:
            uses = j < i if self.exclusive else j <= i
        else:
            uses = j > i if self.exclusive else j >= i
        gap = A.expand_dims(xs, -1) - A.expand_dims(outs, -2)   # [..., i, j] = x_i - out_j
        mask = wrap(np.broadcast_to(uses, gap.shape))
        weights = M.exp(M.select(mask, gap, -np.inf))
        g = R.reduce_sum(weights * A.expand_dims(ds, -2), -1)
        return _moved(g, back), None


@register
class Median(Primitive):
    """`Median(global_median=False, axis=0, keep_dims=False, ignore_nan=False)(x)`: (the lower
    median along `axis`, its int64 index). A slice with NaN gives NaN (and the first NaN's index)
    unless `ignore_nan`; among equal values the index follows a stable sort. With
    `global_median`, the median of all elements and index 0; its gradient splits evenly among
    the elements equal to it. Otherwise the gradient goes to the element at the index."""

    inputs = ("x",)
    saves = ("x", "out")

    def __init__(self, global_median=False, axis=0, keep_dims=False, ignore_nan=False):
        super().__init__()
        self.global_median, self.axis = bool(global_median), axis
        self.keep_dims, self.ignore_nan = bool(keep_dims), bool(ignore_nan)

    def __call__(self, x):
        return apply(self, (x,))

    def _lower_median(self, v):
        """Positions (into the stable ascending order along the last axis) of the median."""
        order = np.argsort(v, axis=-1, kind="stable")
        valid = (~np.isnan(v)).sum(axis=-1) if v.dtype.kind == "f" else \
            np.full(v.shape[:-1], v.shape[-1])
        if self.ignore_nan:
            k = np.maximum((valid - 1) // 2, 0)
        else:
            k = np.where(valid < v.shape[-1], valid, (v.shape[-1] - 1) // 2)
        index = np.take_along_axis(order, k[..., None], axis=-1)
        return np.take_along_axis(v, index, axis=-1)[..., 0], index[..., 0]

    def forward(self, x):
        _check_dtypes(self.name, _I16_64 + _F32_64, x)
        if x.size == 0:
            raise ValueError(f"For '{self.name}', the input must not be empty")
        if self.global_median:
            value, _ = self._lower_median(x.reshape(-1))
            return value, np.zeros((), np.int64)
        if x.ndim == 0:
            return x.copy(), np.zeros((), np.int64)
        axis = normalize_axis(self.axis, x.ndim, self.name)
        value, index = self._lower_median(np.moveaxis(x, axis, -1))
        if self.keep_dims:
            value, index = np.expand_dims(value, axis), np.expand_dims(index, axis)
        return value, index.astype(np.int64)

    def bprop(self, saved, dout, needs):
        x, out = saved
        d = dout[0]
        if self.global_median:
            hit = x._data == out[0]._data
            return (d * wrap((hit / max(hit.sum(), 1)).astype(d._data.dtype)),)
        if x.ndim == 0:
            return (d,)
        axis = normalize_axis(self.axis, x.ndim, self.name)
        index = out[1]._data if self.keep_dims else np.expand_dims(out[1]._data, axis)
        shape = [1] * x.ndim
        shape[axis] = x.shape[axis]
        onehot = index == np.arange(x.shape[axis]).reshape(shape)
        if not self.keep_dims:
            d = A.expand_dims(d, axis)
        return (d * wrap(onehot.astype(d._data.dtype)),)
