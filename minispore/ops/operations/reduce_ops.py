"""Reduction primitives: sums, means, products, extremes and their positions, log-sum-exp,
variance and standard deviation, cumulative sums.

Ties at the extremes split the gradient evenly (math_ops' convention for the whole library).

float16 sums, means, variances, log-sum-exps and cumulative sums accumulate and divide in a wider
dtype and round once at the end, forward and backward, as MindSpore's reduction kernels do (its
CumSum does not: see there): in float16 a
count past 65,504 is inf (a mean of 70,000 elements was 0 or nan, its gradient 0), and a running
sum stops growing once its ulp passes the addend (NumPy adds a strided axis in float16: 70,000
values of 0.5 summed to 2,048). The wider dtype is float64 (`_WIDE`), where MindSpore's kernels
use float32: float16 values are exact in it, NumPy reduces float64 as fast as float32, and a
float32 accumulator, which NumPy runs sequentially along a strided axis, leaves cancelling
results (cumsum prefixes near 0, x - mean) up to ~100 float16 ulps off. float32 and float64
inputs keep their own accumulation, bit for bit.
"""
import math

import numpy as np

from ..._autodiff.tape import apply, const
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..primitive import Primitive, data_function, register
from . import array_ops as A
from ._kernels import keep_dtype, keep_shape, normalize_axes, normalize_axis, quiet
from .math_ops import _f32, cast, exp, select

_F16 = np.dtype(np.float16)
_WIDE = np.dtype(np.float64)  # where float16 reductions accumulate (see the module's docstring)


def _in_wide(fn, *ts):
    """fn(*ts), a bprop's formula on Tensors (and constants), computed in `_WIDE` and rounded
    once to float16 when the first Tensor is float16 (the others are widened with it); fn(*ts)
    itself otherwise."""
    if ts[0]._data.dtype != _F16:
        return fn(*ts)
    return cast(fn(*(cast(t, _WIDE) if isinstance(t, Tensor) else t for t in ts)), _F16)


def _share(dout, n):
    """dout / n: each of n elements' share of a mean's cotangent (nan for n = 0, as the forward).
    float16 divides in `_WIDE` and rounds once: n past 65,504 is inf in float16 (the share was
    0), and past 2,048 not every n is a float16."""
    if not n:
        return dout * math.nan
    if dout._data.dtype == _F16:
        return cast(cast(dout, _WIDE) / n, _F16)
    return dout / n

class _Reduce(Primitive):
    """Base of ReduceSum-style primitives: `keep_dims` is an attribute, `axis` a call input."""

    inputs = ("x", "axis")

    def __init__(self, keep_dims=False):
        super().__init__()
        if not isinstance(keep_dims, bool):
            raise TypeError(f"For '{type(self).__name__}', 'keep_dims' must be a bool, "
                            f"but got {type(keep_dims).__name__}")
        self.keep_dims = keep_dims

    def __call__(self, x, axis=()):
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{self.name}', the input must be a Tensor, but got "
                            f"{type(x).__name__}")
        return apply(self, (x, axis))

    def _axes(self, x, axis):
        return normalize_axes(axis, x.ndim, self.name)


def _expand_back(g, x_shape, axes):
    """Gradient of a reduction: g (reduced) reshaped to keep-dims and broadcast to x_shape."""
    return A.broadcast_to(A.reshape(g, keep_shape(x_shape, axes)), x_shape)


@register
class ReduceSum(_Reduce):
    """Sum over `axis` (all for `()`, or none with `skip_mode=True`); bool and int32 sum to int64.
    dx = broadcast(dout)."""

    saves = ("x.shape", "axis")

    def __init__(self, keep_dims=False, skip_mode=False):
        super().__init__(keep_dims)
        if not isinstance(skip_mode, bool):
            raise TypeError(f"For 'ReduceSum', 'skip_mode' must be a bool, but got "
                            f"{type(skip_mode).__name__}")
        self.skip_mode = skip_mode

    def _skips(self, axis):
        return self.skip_mode and (axis is None or isinstance(axis, (tuple, list)) and not axis)

    def forward(self, x, axis):
        if self._skips(axis):
            return x.astype(_sum_dtype(x.dtype) or x.dtype)
        axes = self._axes(x, axis)
        if x.dtype == _F16:
            return quiet(_sum16, x, axes, self.keep_dims)
        return np.sum(x, axis=axes, keepdims=self.keep_dims, dtype=_sum_dtype(x.dtype))

    def bprop(self, saved, dout, needs):
        shape, axis = saved
        if self._skips(axis):
            return dout, None
        return _expand_back(dout, shape, normalize_axes(axis, len(shape), self.name)), None


def _sum_dtype(dt):
    """bool and integers narrower than 64 bits accumulate (and return) int64, as MindSpore."""
    return np.int64 if dt.kind == "b" or (dt.kind in "iu" and dt.itemsize < 8) else None


def _sum16(x, axes, keep_dims):
    """A float16 sum, accumulated in `_WIDE` and rounded once (inf only where the sum is)."""
    return np.sum(x, axis=axes, keepdims=keep_dims, dtype=_WIDE).astype(_F16)


def _count(shape, axes):
    return math.prod(shape) if axes is None else math.prod(shape[a] for a in axes)


@register
class ReduceMean(_Reduce):
    """Mean over `axis` (integer inputs give float32; the mean of nothing is nan; float16 sums
    and divides in `_WIDE`, rounding once).  dx = broadcast(dout / n)."""

    saves = ("x.shape", "axis")

    def forward(self, x, axis):
        axes = self._axes(x, axis)
        if x.dtype.kind not in "fc":
            x = x.astype(_f32)
        n = _count(x.shape, axes)
        if x.dtype == _F16:
            return quiet(_mean16, x, axes, self.keep_dims, n)
        s = np.sum(x, axis=axes, keepdims=self.keep_dims)
        return quiet(np.divide, s, np.asarray(n, s.dtype))

    def bprop(self, saved, dout, needs):
        shape, axis = saved
        axes = normalize_axes(axis, len(shape), self.name)
        return _expand_back(_share(dout, _count(shape, axes)), shape, axes), None


def _mean16(x, axes, keep_dims, n):
    s = np.sum(x, axis=axes, keepdims=keep_dims, dtype=_WIDE)
    return (s / np.asarray(n, _WIDE)).astype(_F16)


@register
class ReduceProd(_Reduce):
    """Product over `axis`.  dx = broadcast(dout) * (product of the other elements), exact at
    every order when x has zeros (see ProdOthers)."""

    amp_auto = "full"
    saves = ("x", "axis")

    def forward(self, x, axis):
        return np.prod(x, axis=self._axes(x, axis), keepdims=self.keep_dims)

    def bprop(self, saved, dout, needs):
        x, axis = saved
        axes = normalize_axes(axis, x.ndim, self.name)
        return _expand_back(dout, x.shape, axes) * prod_others(x, axes), None


def _move_to_end(a, axes):
    """a with `axes` moved last and flattened into one: (rest..., n), and the permutation."""
    nd = a.ndim
    axes = tuple(range(nd)) if axes is None else axes
    rest = [i for i in range(nd) if i not in axes]
    perm = rest + list(axes)
    moved = np.transpose(a, perm)
    n = math.prod(moved.shape[len(rest):])  # not -1: ambiguous when the other axes are empty
    return moved.reshape(moved.shape[:len(rest)] + (n,)), perm, moved.shape


def _groups(t, axes):
    """Tensor t as (rest..., n), each reduction group along the last axis (differentiably), and
    what `_ungroup` needs to undo it."""
    nd = t.ndim
    axes = tuple(range(nd)) if axes is None else axes
    rest = [i for i in range(nd) if i not in axes]
    perm = rest + list(axes)
    moved = t if perm == list(range(nd)) else A.transpose(t, perm)
    shape = moved.shape
    n = math.prod(shape[len(rest):])
    return A.reshape(moved, shape[:len(rest)] + (n,)), (perm, shape)


def _ungroup(t, back):
    perm, shape = back
    t = A.reshape(t, shape)
    return t if perm == list(range(len(perm))) else A.transpose(t, np.argsort(perm).tolist())


@register
class ProdOthers(Primitive):
    """For each element, the product of the other elements of its reduction group:
    out_i = prod_{k != i} x_k (prefix times suffix products, no division, exact with zeros).

    d out_i / d x_j = prod_{k != i, j} x_k for j != i, and 0 for j == i (the Hessian of the
    group's product), so with cotangent g:  dx_j = sum_{i != j} g_i prod_{k != i, j} x_k.
    With L_j = prod_{k<j} x_k, R_j = prod_{k>j} x_k, that is dx = DL * R + L * DR, where DL
    and DR are L's and R's derivatives along g. All four obey first-order linear recurrences
    (L_j = x_{j-1} L_{j-1};  DL_j = x_{j-1} DL_{j-1} + g_{j-1} L_{j-1}, and mirrored for R),
    computed by LinearScan: O(n log n) work per group, no division, so exact for any number
    of zeros; LinearScan's bprop is LinearScan again, so every order is exact."""

    internal = True
    inputs = ("x", "axes")
    saves = ("x", "axes")

    def forward(self, x, axes):
        flat, perm, moved_shape = _move_to_end(x, axes)
        n = flat.shape[-1]
        ones = np.ones(flat.shape[:-1] + (1,), x.dtype)
        left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
        right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
        others = (left * right)[..., :n].reshape(moved_shape)
        return np.transpose(others, np.argsort(perm))

    def bprop(self, saved, g, needs):
        x, axes = saved
        if not needs[0]:
            return None, None
        xf, back = _groups(x, axes)
        if xf._data.size == 0:
            return A.zeros_like(x), None
        gf = _groups(g, axes)[0]
        first = np.zeros(xf.shape, xf._data.dtype)
        first[..., 0] = 1
        last = np.zeros(xf.shape, xf._data.dtype)
        last[..., -1] = 1
        cx = _shift(xf, 1)  # the prefix recurrences multiply by x_{j-1}
        left = linear_scan(cx, const(first))
        right = linear_scan(xf, const(last), reverse=True)
        dleft = linear_scan(cx, _shift(gf * left, 1))
        dright = linear_scan(xf, _shift(gf * right, -1), reverse=True)
        return _ungroup(dleft * right + left * dright, back), None


def _shift(t, k):
    """t shifted by k = +1 or -1 along its last axis, zero filled: out_j = t_{j-k}."""
    return A.pad(t, ((0, 0),) * (t.ndim - 1) + ((k, -k),))


def _scan_array(c, b, reverse):
    """NumPy LinearScan along the last axis, by Hillis-Steele doubling: log2(n) whole-array
    steps, O(n log n) work. After the step of distance d, s_j holds the recurrence over the last
    2d elements up to j, and a_j (j >= 2d) the product of c over them; c_0 is never read."""
    dt = np.result_type(c, b)
    if reverse:  # s_j = c_{j+1} s_{j+1} + b_j is the forward recurrence on the flipped arrays
        s = np.array(b[..., ::-1], dt)
        a = np.empty(c.shape, dt)
        a[..., 1:] = c[..., :0:-1]
    else:
        s = np.array(b, dt)
        a = np.array(c, dt)
    n = s.shape[-1]
    if n and not s[..., 1:].any():
        # perf: b only starts the recurrence (cumprod, the exclusive products): s_j = b_0 c_1 ..
        # c_j is one sequential np.cumprod, ~10x faster than the doubling for n = 1000
        a[..., 0] = s[..., 0]
        s = np.cumprod(a, axis=-1)
    else:
        d = 1
        while d < n:
            s[..., d:] += a[..., d:] * s[..., :-d]  # the product is taken before s is written
            if 2 * d < n:
                a[..., 2 * d:] = a[..., 2 * d:] * a[..., d:-d]
            d *= 2
    return s[..., ::-1].copy() if reverse else s


@register
class LinearScan(Primitive):
    """First-order linear recurrence along the last axis (c and b of one shape, rank >= 1):
    s_j = c_j s_{j-1} + b_j from s_{-1} = 0, or with `reverse`, s_j = c_{j+1} s_{j+1} + b_j from
    s_n = 0; c_j links elements j-1 and j either way, and c_0 is unused.

    Transposing a recurrence reverses it over the same links, so with r = LinearScan(not
    reverse)(c, dout):  db = r;  dc_j = r_j s_{j-1} (forward) or r_{j-1} s_j (reverse), and
    dc_0 = 0. Products and sums only: exact where c or b has zeros, differentiable again."""

    internal = True
    amp_auto = "full"
    inputs = ("c", "b")
    saves = ("c", "out")

    def __init__(self, reverse=False):
        super().__init__()
        self.reverse = reverse

    def forward(self, c, b):
        return _scan_array(c, b, self.reverse)

    def bprop(self, saved, dout, needs):
        c, out = saved
        if out._data.shape[-1] == 0:  # nothing to shift: the empty gradients
            return A.zeros_like(c) if needs[0] else None, A.zeros_like(out) if needs[1] else None
        r = linear_scan(c, dout, not self.reverse)
        dc = None
        if needs[0]:
            dc = _shift(r, 1) * out if self.reverse else r * _shift(out, 1)
        return dc, (r if needs[1] else None)


class _ReduceExtreme(_Reduce):
    saves = ("x", "axis", "out")
    _ufunc = None

    def forward(self, x, axis):
        axes = self._axes(x, axis)
        if x.size == 0 and (axes is None or any(x.shape[a] == 0 for a in axes)):
            raise ValueError(f"For '{self.name}', cannot reduce an empty tensor of shape "
                             f"{x.shape} over axis {axis!r}: the result has no value")
        return self._ufunc.reduce(x, axis=axes, keepdims=self.keep_dims)

    def bprop(self, saved, dout, needs):
        x, axis, out = saved
        axes = normalize_axes(axis, x.ndim, self.name)
        return _extreme_grad(x, axes, out, dout), None


def _extreme_grad(x, axes, out, dout):
    """Gradient of a max/min reduction: split evenly among the elements equal to the result (the
    weights a DataFunction node, so a graph-mode replay finds the new ties)."""
    w = data_function(_extreme_weights, x, out,
                      static=(keep_shape(x.shape, axes), axes, dout._data.dtype))
    return _expand_back(dout, x.shape, axes) * w


def _extreme_weights(x, out, ks, axes, dt):
    hit = x == out.reshape(ks)
    return (hit / hit.sum(axis=axes, keepdims=True)).astype(dt)


@register
class ReduceMax(_ReduceExtreme):
    """Maximum over `axis`.  Ties split the gradient evenly."""

    _ufunc = np.maximum


@register
class ReduceMin(_ReduceExtreme):
    """Minimum over `axis`.  Ties split the gradient evenly."""

    _ufunc = np.minimum


class _ArgExtremeWithValue(Primitive):
    """(index, value) along `axis`, MindSpore's order. The value's gradient splits ties evenly
    (the library's convention; MindSpore routes it all to the returned index)."""

    inputs = ("x",)
    saves = ("x", "out")
    _arg = _val = None

    def __init__(self, axis=0, keep_dims=False):
        super().__init__()
        self.axis = axis
        self.keep_dims = keep_dims

    def forward(self, x):
        axis = normalize_axis(self.axis, max(x.ndim, 1), self.name) if x.ndim else None
        if x.size == 0 and (axis is None or x.shape[axis] == 0):
            raise ValueError(f"For '{self.name}', the input of shape {x.shape} is empty along "
                             f"axis {self.axis}: the result has no value")
        idx = self._arg(x, axis=axis, keepdims=self.keep_dims).astype(np.int64)
        val = self._val(x, axis=axis, keepdims=self.keep_dims)
        return idx, val

    def bprop(self, saved, dout, needs):
        x, out = saved
        axes = None if x.ndim == 0 else (normalize_axis(self.axis, x.ndim, self.name),)
        return (_extreme_grad(x, axes, out[1], dout[1]),)


@register
class ArgMaxWithValue(_ArgExtremeWithValue):
    _arg, _val = staticmethod(np.argmax), staticmethod(np.max)


@register
class ArgMinWithValue(_ArgExtremeWithValue):
    _arg, _val = staticmethod(np.argmin), staticmethod(np.min)


class _ArgExtreme(Primitive):
    inputs = ("x",)
    differentiable = False
    _arg = None

    def __init__(self, axis=-1, output_type=mstype.int32, keep_dims=False):
        super().__init__()
        self.axis = axis
        self.output_type = output_type
        self.keep_dims = keep_dims

    def forward(self, x):
        if x.size == 0 and (self.axis is None or x.ndim == 0 or
                            x.shape[normalize_axis(self.axis, x.ndim, self.name)] == 0):
            raise ValueError(f"For '{self.name}', the input of shape {x.shape} is empty along "
                             f"axis {self.axis}: the result has no value")
        if self.axis is None:
            r = self._arg(x.reshape(-1))
            r = np.asarray(r).reshape((1,) * x.ndim) if self.keep_dims else np.asarray(r)
        else:
            axis = normalize_axis(self.axis, max(x.ndim, 1), self.name)
            r = self._arg(x, axis=axis, keepdims=self.keep_dims) if x.ndim else np.asarray(0)
        return r.astype(mstype.to_np(self.output_type))


@register
class Argmax(_ArgExtreme):
    """Index of the maximum along `axis` (first one on ties); no gradient."""

    _arg = staticmethod(np.argmax)


@register
class Argmin(_ArgExtreme):
    """Index of the minimum along `axis` (first one on ties); no gradient."""

    _arg = staticmethod(np.argmin)


@register
class ReduceLogSumExp(_Reduce):
    """log(sum(exp(x))) over `axis`, shifted by the max so it stays finite (and -inf rows stay
    -inf).  dx = broadcast(dout) * exp(x - out).

    float16 is computed in `_WIDE` and rounded once, both ways; its bprop recomputes out in
    `_WIDE` from x, since exp(x - out) turns the rounding of a float16 out (up to 2^-11 |out|)
    into a relative error of the gradient (0.4% at out = 11, ~4 float16 ulps)."""

    saves = ("x", "axis", "out")

    def forward(self, x, axis):
        axes = self._axes(x, axis)
        return keep_dtype(quiet(_logsumexp, x, axes, self.keep_dims), x.dtype)

    def bprop(self, saved, dout, needs):
        x, axis, out = saved
        axes = normalize_axes(axis, x.ndim, self.name)
        if x._data.dtype == _F16:
            def grad(x, dout):
                lse = apply(_LOGSUMEXP_KEEP, (x, axis))
                return _expand_back(dout, x.shape, axes) * exp(x - lse)
            return _in_wide(grad, x, dout), None
        soft = exp(x - A.reshape(out, keep_shape(x.shape, axes)))
        return _expand_back(dout, x.shape, axes) * soft, None


def _logsumexp(x, axes, keep_dims):
    if x.dtype == _F16:
        return _logsumexp(x.astype(_WIDE), axes, keep_dims).astype(_F16)
    m = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros(keep_shape(x.shape, axes),
                                                                      x.dtype)
    m = np.where(np.isfinite(m), m, 0)
    s = np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True)) + m
    return s if keep_dims else np.squeeze(s, axis=axes)


@register
class StdDev(Primitive):
    """Standard deviation over `axis` with `ddof` (0: population, MindSpore's default).
    dx = dout * (x - mean) / ((n - ddof) * out), 0 where out == 0 (a subgradient)."""

    internal = True  # the user-facing class of MindSpore's name adapts the call
    inputs = ("x",)
    saves = ("x", "out")

    def __init__(self, axis=(), ddof=0, keep_dims=False):
        super().__init__()
        self.axis, self.ddof, self.keep_dims = axis, ddof, keep_dims

    def forward(self, x):
        axes = normalize_axes(self.axis, x.ndim, self.name)
        return quiet(_std, x, axes, self.ddof, self.keep_dims)

    def bprop(self, saved, dout, needs):
        x, out = saved
        if x._data.dtype == _F16:
            # wide, rounded once ((n - ddof) * out overflowed float16), with out recomputed
            # wide: the float16 one is rounded by up to 2^-11, a step off in the gradient
            return (_in_wide(lambda x, dout: self._grad(x, apply(self, (x,)), dout), x, dout),)
        return (self._grad(x, out, dout),)

    def _grad(self, x, out, dout):
        axes = normalize_axes(self.axis, x.ndim, self.name)
        ks = keep_shape(x.shape, axes)
        centered = x - reduce_mean(x, axes, True)
        denom = A.reshape(out, ks) * (_count(x.shape, axes) - self.ddof)
        safe = select(denom == 0, 1.0, denom)
        g = _expand_back(dout, x.shape, axes) * centered / safe
        return select(A.broadcast_to(denom == 0, x.shape), 0.0, g)


@register
class ReduceVar(Primitive):
    """Variance over `axis` with `ddof`.  dx = 2 * dout * (x - mean) / (n - ddof)."""

    inputs = ("x",)
    saves = ("x",)

    def __init__(self, axis=(), ddof=0, keep_dims=False):
        super().__init__()
        self.axis, self.ddof, self.keep_dims = axis, ddof, keep_dims

    def forward(self, x):
        axes = normalize_axes(self.axis, x.ndim, self.name)
        return quiet(_var, x, axes, self.ddof, self.keep_dims)

    def bprop(self, saved, dout, needs):
        return (_in_wide(self._grad, saved[0], dout),)  # float16: 2 / dof is not a float16

    def _grad(self, x, dout):
        axes = normalize_axes(self.axis, x.ndim, self.name)
        centered = x - reduce_mean(x, axes, True)
        dof = _count(x.shape, axes) - self.ddof
        scale = 2.0 / dof if dof > 0 else math.inf  # the forward divided by 0 too
        return _expand_back(dout, x.shape, axes) * centered * scale


def _std(x, axes, ddof, keep_dims):
    if x.dtype == _F16:  # the square root of the wide variance, rounded once
        return np.sqrt(_var(x.astype(_WIDE), axes, ddof, keep_dims)).astype(_F16)
    return np.sqrt(_var(x, axes, ddof, keep_dims))


def _var(x, axes, ddof, keep_dims):
    if x.dtype.kind not in "fc":
        x = x.astype(_f32)
    elif x.dtype == _F16:
        return _var(x.astype(_WIDE), axes, ddof, keep_dims).astype(_F16)
    n = _count(x.shape, axes)
    mean = np.sum(x, axis=axes, keepdims=True) / np.asarray(n, x.dtype)
    d = x - mean
    ss = np.sum(d * d, axis=axes, keepdims=keep_dims)
    # NumPy's convention: with ddof >= n the divisor is 0 (nan or inf, never a negative variance)
    return ss / np.asarray(max(n - ddof, 0), x.dtype)


@register
class CumSum(Primitive):
    """Cumulative sum along `axis` (`exclusive`, `reverse` as MindSpore).  dx = reverse cumsum.

    float16 accumulates in `_WIDE` and rounds each prefix once. MindSpore 2.10 accumulates in
    float16, so its prefixes stop growing (70,000 values in [0, 1) end at 2,048, not ~35,000);
    minispore deliberately does not follow it there."""

    amp_auto = "full"
    inputs = ("x", "axis")
    saves = ("axis",)

    def __init__(self, exclusive=False, reverse=False):
        super().__init__()
        self.exclusive, self.reverse = exclusive, reverse

    def forward(self, x, axis):
        axis = normalize_axis(axis, max(x.ndim, 1), self.name)
        if x.ndim == 0:
            return x.copy()
        src = np.flip(x, axis) if self.reverse else x
        acc = np.int64 if x.dtype.kind == "b" else (_WIDE if x.dtype == _F16 else x.dtype)
        out = np.cumsum(src, axis=axis, dtype=acc)
        if self.exclusive:  # shift by one along axis, zero first
            shifted = np.zeros_like(out)
            lead = (slice(None),) * axis
            shifted[lead + (slice(1, None),)] = out[lead + (slice(None, -1),)]
            out = shifted
        if x.dtype == _F16:
            out = quiet(out.astype, _F16)  # inf where a prefix passes 65,504, silently
        return np.flip(out, axis) if self.reverse else out

    def bprop(self, saved, dout, needs):
        axis = saved[0]
        return CumSum(self.exclusive, not self.reverse)(dout, axis), None


# ================================ functional forms (used by bprops and ops) ========================

_PROD_OTHERS = ProdOthers()
_LINEAR_SCAN = {False: LinearScan(False), True: LinearScan(True)}
_REDUCE_SUM = {False: ReduceSum(False), True: ReduceSum(True)}
_REDUCE_MEAN = {False: ReduceMean(False), True: ReduceMean(True)}
_LOGSUMEXP_KEEP = ReduceLogSumExp(True)


def prod_others(x, axes):
    return apply(_PROD_OTHERS, (x, axes))


def linear_scan(c, b, reverse=False):
    """s_j = c_j s_{j-1} + b_j along the last axis (reverse: s_j = c_{j+1} s_{j+1} + b_j)."""
    return apply(_LINEAR_SCAN[reverse], (c, b))


def reduce_sum(x, axis=None, keep_dims=False):
    return apply(_REDUCE_SUM[keep_dims], (x, () if axis is None else axis))


def reduce_mean(x, axis=None, keep_dims=False):
    return apply(_REDUCE_MEAN[keep_dims], (x, () if axis is None else axis))
