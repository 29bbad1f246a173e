"""One spec per registered primitive: how to draw its inputs, how to call it, a NumPy reference,
and the gradient order to check (0 for primitives without gradients).

A spec's `draw(data)` returns (args, attrs): float64 NumPy arrays for differentiated inputs,
anything else for constants. `call(attrs, *args)` runs the primitive on Tensors; `ref(attrs,
*arrays)` computes the same with NumPy. `diff` lists the differentiated argument positions
(default: every float64 array).

Every spec with a float input also runs in float32 (tests/ops/test_primitives.py): the float64
arrays among its args and attrs cast to float32, its forward, VJP and JVP must be float32 and
within `tol32` float32 eps of the float64 run on the same values (`check_float32` in
tests/helpers/gradcheck.py). A spec whose op amplifies float32 rounding declares it, with the
reason in `why32`: a larger `tol32`, or `cond32(attrs, *args)`, a condition factor of the drawn
inputs that multiplies `tol32`.
"""
import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minispore import Tensor
from minispore._autodiff.tape import apply
from minispore.ops.primitive import data_function
from minispore.ops.operations import array_ops as A
from minispore.ops.operations import einsum_ops as E
from minispore.ops.operations import math_ops as M
from minispore.ops.operations import reduce_ops as R
from minispore.ops.operations import linalg_ops as L
from minispore.ops.operations import nn_ops as N

from ..helpers import strategies as S


@dataclass
class Spec:
    name: str
    draw: Callable
    call: Callable
    ref: Optional[Callable] = None
    order: int = 2
    diff: Optional[tuple] = None
    rtol: float = 1e-10
    atol: float = 1e-12
    notes: str = ""
    extra: dict = field(default_factory=dict)
    tol32: float = 32.0  # float32 tolerance, in float32 eps (see tests/helpers/gradcheck.py)
    # cond32(attrs, *args): a condition factor of the drawn inputs multiplying tol32 (>= 1)
    cond32: Optional[Callable] = None
    why32: str = ""  # the reason for a tol32 above the default, or for a cond32


SPECS = []


def spec(*args, **kwargs):
    s = Spec(*args, **kwargs)
    SPECS.append(s)
    return s


def _prim(cls):
    return cls()


def _run(prim, *args):
    return apply(prim, args)


# ---- drawing helpers --------------------------------------------------------------------------

def arr(data, shape, domain=S.REALS):
    return data.draw(S.arrays(shape, domain))


def one(domain=S.REALS, min_dims=0, max_dims=3, min_side=1):
    def draw(data):
        shape = data.draw(S.shapes(min_dims, max_dims, min_side=min_side))
        return [arr(data, shape, domain)], {}
    return draw


def two(dx=S.REALS, dy=S.REALS, min_side=1):
    def draw(data):
        sx, sy = data.draw(S.broadcastable_shapes(2, min_side=min_side))
        return [arr(data, sx, dx), arr(data, sy, dy)], {}
    return draw


def distinct(a, gap=0.05):
    """Spread values apart so that no two are within `gap` (no ties for max/min)."""
    flat = a.reshape(-1)
    order = np.argsort(flat, kind="stable")
    spread = flat.copy()
    spread[order] = flat[order] + gap * np.arange(flat.size)
    return spread.reshape(a.shape)


def away_from_integers(q, margin=0.2):
    """Nudge values so that their fractional part lies in [margin, 1 - margin]."""
    frac = q - np.floor(q)
    return np.asarray(np.floor(q) + np.clip(frac, margin, 1 - margin))


# ---- elementwise binary -------------------------------------------------------------------------

BIG = S.Domain(0.5, 3)
NONZERO = S.Domain(-3, 3, avoid=(0.0,), gap=0.5)

spec("Add", two(), lambda a, x, y: M.Add()(x, y), lambda a, x, y: x + y)
spec("Sub", two(), lambda a, x, y: M.Sub()(x, y), lambda a, x, y: x - y)
spec("Mul", two(), lambda a, x, y: M.Mul()(x, y), lambda a, x, y: x * y)
spec("MulByOne", one(), lambda a, x: M.MulByOne()(x), lambda a, x: x * np.ones_like(x))
spec("RealDiv", two(S.REALS, NONZERO), lambda a, x, y: M.RealDiv()(x, y), lambda a, x, y: x / y)


def _draw_floor_pair(data):
    (x, y), _ = two(S.REALS, NONZERO)(data)
    x = np.asarray(away_from_integers(x / y) * y)
    return [x, y], {}


spec("FloorDiv", _draw_floor_pair, lambda a, x, y: M.FloorDiv()(x, y), lambda a, x, y: np.floor_divide(x, y),
     order=2)
spec("FloorMod", _draw_floor_pair, lambda a, x, y: M.FloorMod()(x, y), lambda a, x, y: np.remainder(x, y))
spec("Pow", two(S.POSITIVE, S.Domain(-2, 2)), lambda a, x, y: M.Pow()(x, y),
     lambda a, x, y: np.power(x, y))


def _draw_untied(data):
    (x, y), _ = two()(data)
    x, y = np.broadcast_arrays(x, y)
    x = x.copy()
    tie = np.abs(x - y) < 0.1
    x[tie] += 0.3
    return [x, y.copy()], {}


spec("Maximum", _draw_untied, lambda a, x, y: M.Maximum()(x, y), lambda a, x, y: np.maximum(x, y))
spec("Minimum", _draw_untied, lambda a, x, y: M.Minimum()(x, y), lambda a, x, y: np.minimum(x, y))
spec("Atan2", two(BIG, BIG), lambda a, x, y: M.Atan2()(x, y), lambda a, x, y: np.arctan2(x, y))

# ---- comparisons and logic (forward only) ---------------------------------------------------------

for _name, _ufunc in [("Equal", np.equal), ("NotEqual", np.not_equal), ("Greater", np.greater),
                      ("GreaterEqual", np.greater_equal), ("Less", np.less),
                      ("LessEqual", np.less_equal)]:
    spec(_name, two(), (lambda c: lambda a, x, y: c()(x, y))(getattr(M, _name)),
         (lambda u: lambda a, x, y: u(x, y))(_ufunc), order=0)


def _draw_bools(data):
    sx, sy = data.draw(S.broadcastable_shapes(2))
    return [data.draw(hnp.arrays(np.bool_, sx)), data.draw(hnp.arrays(np.bool_, sy))], {}


def _draw_ints(data):
    sx, sy = data.draw(S.broadcastable_shapes(2))
    ints = st.integers(-100, 100)
    return [data.draw(hnp.arrays(np.int64, sx, elements=ints)),
            data.draw(hnp.arrays(np.int64, sy, elements=ints))], {}


for _name, _ufunc, _draw in [("LogicalAnd", np.logical_and, _draw_bools),
                             ("LogicalOr", np.logical_or, _draw_bools),
                             ("LogicalXor", np.logical_xor, _draw_bools),
                             ("BitwiseAnd", np.bitwise_and, _draw_ints),
                             ("BitwiseOr", np.bitwise_or, _draw_ints),
                             ("BitwiseXor", np.bitwise_xor, _draw_ints)]:
    spec(_name, _draw, (lambda c: lambda a, x, y: c()(Tensor(x), Tensor(y)))(getattr(M, _name)),
         (lambda u: lambda a, x, y: u(x, y))(_ufunc), order=0)


def _draw_bool1(data):
    return [data.draw(hnp.arrays(np.bool_, data.draw(S.shapes())))], {}


spec("LogicalNot", _draw_bool1, lambda a, x: M.LogicalNot()(Tensor(x)),
     lambda a, x: np.logical_not(x), order=0)


def _draw_specials(data):
    shape = data.draw(S.shapes())
    vals = st.sampled_from([0.0, 1.5, -2.0, np.inf, -np.inf, np.nan])
    return [data.draw(hnp.arrays(np.float64, shape, elements=vals))], {}


for _name, _ufunc in [("IsNan", np.isnan), ("IsInf", np.isinf), ("IsFinite", np.isfinite)]:
    spec(_name, _draw_specials, (lambda c: lambda a, x: c()(x))(getattr(M, _name)),
         (lambda u: lambda a, x: u(x))(_ufunc), order=0)

# ---- elementwise unary --------------------------------------------------------------------------


def _erfinv_reference(y):
    """Bisection on math.erf: slow, but independent of the kernel under test."""
    erf = np.vectorize(math.erf, otypes=[np.float64])
    lo, hi = np.full_like(y, -6.0), np.full_like(y, 6.0)
    for _ in range(80):
        mid = (lo + hi) / 2
        below = erf(mid) < y
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return (lo + hi) / 2


_UNARY = [
    ("Neg", np.negative, S.REALS), ("Exp", np.exp, S.REALS), ("Expm1", np.expm1, S.REALS),
    ("Log", np.log, S.POSITIVE), ("Log1p", np.log1p, S.Domain(-0.8, 3)),
    ("Sqrt", np.sqrt, S.POSITIVE), ("Rsqrt", lambda x: 1 / np.sqrt(x), S.POSITIVE),
    ("Reciprocal", np.reciprocal, NONZERO), ("Square", np.square, S.REALS),
    ("Abs", np.abs, S.AWAY_FROM_ZERO), ("Sin", np.sin, S.REALS), ("Cos", np.cos, S.REALS),
    ("Tan", np.tan, S.Domain(-1.2, 1.2)), ("Sinh", np.sinh, S.REALS), ("Cosh", np.cosh, S.REALS),
    ("Asin", np.arcsin, S.UNIT), ("ACos", np.arccos, S.UNIT), ("Atan", np.arctan, S.REALS),
    ("Asinh", np.arcsinh, S.REALS), ("Acosh", np.arccosh, S.ABOVE_ONE),
    ("Atanh", np.arctanh, S.UNIT), ("Tanh", np.tanh, S.REALS),
    ("Sigmoid", lambda x: 1 / (1 + np.exp(-x)), S.Domain(-6, 6)),
    ("Erf", np.vectorize(math.erf, otypes=[np.float64]), S.REALS),
    ("Erfc", np.vectorize(math.erfc, otypes=[np.float64]), S.REALS),
    ("Erfinv", _erfinv_reference, S.UNIT),
    ("Softplus", lambda x: np.log1p(np.exp(x)), S.Domain(-6, 6)),
    ("ReLU", lambda x: np.maximum(x, 0), S.AWAY_FROM_ZERO),
]
_UNARY_CLS = {"Softplus": N.Softplus, "ReLU": N.ReLU, "Tanh": N.Tanh, "Sigmoid": N.Sigmoid}
for _name, _ref, _dom in _UNARY:
    _cls = _UNARY_CLS.get(_name) or getattr(M, _name)
    spec(_name, one(_dom), (lambda c: lambda a, x: c()(x))(_cls),
         (lambda r: lambda a, x: r(x))(_ref), rtol=1e-13 if _name not in ("Erf", "Erfc") else 1e-14,
         atol=1e-15 if _name not in ("Erf", "Erfc") else 1e-15)

_JUMPS = S.Domain(-3, 3)


def _draw_off_jumps(offset):
    def draw(data):
        shape = data.draw(S.shapes())
        x = arr(data, shape, _JUMPS)
        return [np.asarray(away_from_integers(x + offset) - offset)], {}
    return draw


spec("Sign", one(S.AWAY_FROM_ZERO), lambda a, x: M.Sign()(x), lambda a, x: np.sign(x))
spec("Floor", _draw_off_jumps(0.0), lambda a, x: M.Floor()(x), lambda a, x: np.floor(x))
spec("Ceil", _draw_off_jumps(0.0), lambda a, x: M.Ceil()(x), lambda a, x: np.ceil(x))
spec("Round", _draw_off_jumps(0.5), lambda a, x: M.Round()(x), lambda a, x: np.rint(x))
spec("Trunc", _draw_off_jumps(0.0), lambda a, x: M.Trunc()(x), lambda a, x: np.trunc(x))


def _draw_grad_pair(ydom):
    def draw(data):
        shape = data.draw(S.shapes())
        return [arr(data, shape, ydom), arr(data, shape)], {}
    return draw


spec("TanhGrad", _draw_grad_pair(S.UNIT), lambda a, y, dy: N.tanh_grad(y, dy),
     lambda a, y, dy: dy * (1 - y * y))
spec("SigmoidGrad", _draw_grad_pair(S.Domain(0.05, 0.95)), lambda a, y, dy: N.sigmoid_grad(y, dy),
     lambda a, y, dy: dy * y * (1 - y))


def _draw_relu_grad(data):
    shape = data.draw(S.shapes())
    return [arr(data, shape), arr(data, shape, S.AWAY_FROM_ZERO)], {}


spec("ReluGrad", _draw_relu_grad, lambda a, dy, y: N.relu_grad(dy, y),
     lambda a, dy, y: np.where(y > 0, dy, 0), diff=(0,))

# ---- where, clip, cast ----------------------------------------------------------------------------


def _draw_select(data):
    sc, sx, sy = data.draw(S.broadcastable_shapes(3))
    return [data.draw(hnp.arrays(np.bool_, sc)), arr(data, sx), arr(data, sy)], {}


spec("Select", _draw_select, lambda a, c, x, y: M.select(Tensor(c), x, y),
     lambda a, c, x, y: np.where(c, x, y), diff=(1, 2))


def _draw_clip(data):
    sx, slo, shi = data.draw(S.broadcastable_shapes(3))
    lo = arr(data, slo, S.Domain(-2, -0.5))
    hi = arr(data, shi, S.Domain(0.5, 2))
    x = arr(data, sx)
    for b in (lo, hi):  # keep x off the boundaries (the kinks)
        bb = np.broadcast_to(b, np.broadcast_shapes(x.shape, b.shape))
        xb = np.broadcast_to(x, bb.shape).copy()
        near = np.abs(xb - bb) < 0.1
        xb[near] += 0.25
        x = xb
    return [x, lo, hi], {}


spec("ClipByValue", _draw_clip, lambda a, x, lo, hi: apply(M.ClipByValue(), (x, lo, hi)),
     lambda a, x, lo, hi: np.minimum(np.maximum(x, lo), hi))


def _draw_cast(data):
    (x,), _ = one()(data)
    return [x], {"dtype": data.draw(st.sampled_from([np.float64, np.float32, np.int32]))}


def _call_cast(attrs, x):
    # Differentiable casts are checked float64 -> float64 (the primitive runs, the values are
    # exact); in the float32 pass float32 -> float64 -> float32, both directions and both
    # gradients (each must come back in its input's dtype). Other targets are forward-only below.
    return apply(M.Cast(), (apply(M.Cast(), (x, np.float64)), x.dtype))


spec("Cast", _draw_cast, _call_cast, lambda a, x: x.astype(np.float64))
spec("Identity", one(), lambda a, x: A.Identity()(x), lambda a, x: x)
spec("StopGradient", one(), lambda a, x: N.StopGradient()(x), lambda a, x: x, order=0)
spec("DataFunction", two(), lambda a, x, y: data_function(np.greater_equal, x, y),
     lambda a, x, y: x >= y, order=0)
# The hooks' own gradient is whatever the hook says: these specs use hooks that keep it, so the
# check is that the node routes it; tests/ops/test_primitive_classes.py checks replacement.
spec("InsertGradientOf", one(), lambda a, x: N.InsertGradientOf(lambda g: g * 1.0)(x),
     lambda a, x: x)
spec("HookBackward", two(), lambda a, x, y: N.HookBackward(lambda grads: None)(x, y),
     lambda a, x, y: (x, y))

# ---- reductions -----------------------------------------------------------------------------------


def _draw_reduce(domain=S.REALS, spread=False, min_side=1):
    def draw(data):
        shape = data.draw(S.shapes(0, 3, min_side=min_side))
        x = arr(data, shape, domain)
        if spread:
            x = distinct(x)
        return [x], {"axis": data.draw(S.axes(len(shape))),
                     "keep_dims": data.draw(st.booleans())}
    return draw


def _axes(attrs, x):
    ax = attrs["axis"]
    if ax is None:
        return None
    return (ax,) if isinstance(ax, int) else ax


def _reduce_call(cls):
    def call(attrs, x):
        ax = attrs["axis"]
        return apply(cls(attrs["keep_dims"]), (x, () if ax is None else ax))
    return call


def _reduce_ref(fn):
    def ref(attrs, x):
        return fn(x, axis=_axes(attrs, x), keepdims=attrs["keep_dims"])
    return ref


def _lse(x, axis, keepdims):
    m = np.max(x, axis=axis, keepdims=True)
    s = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return s if keepdims else np.squeeze(s, axis=axis)


spec("ReduceSum", _draw_reduce(min_side=0), _reduce_call(R.ReduceSum), _reduce_ref(np.sum))
spec("ReduceMean", _draw_reduce(), _reduce_call(R.ReduceMean), _reduce_ref(np.mean))
spec("ReduceProd", _draw_reduce(NONZERO), _reduce_call(R.ReduceProd), _reduce_ref(np.prod),
     rtol=1e-12)
spec("ReduceMax", _draw_reduce(spread=True), _reduce_call(R.ReduceMax), _reduce_ref(np.max))
spec("ReduceMin", _draw_reduce(spread=True), _reduce_call(R.ReduceMin), _reduce_ref(np.min))
spec("ReduceLogSumExp", _draw_reduce(), _reduce_call(R.ReduceLogSumExp), _reduce_ref(_lse))


def _draw_moments(data):
    shape = data.draw(S.shapes(1, 3, min_side=2))
    x = distinct(arr(data, shape))
    return [x], {"axis": data.draw(S.axes(len(shape))), "ddof": data.draw(st.sampled_from([0, 1])),
                 "keep_dims": data.draw(st.booleans())}


def _spread_cond(a, x):
    """max over the reduced groups of 1 + |mean| / std: the gradient of std, (x - mean) /
    (n std), carries the float32 rounding of the mean (|mean| eps) relative to std. distinct()
    can leave a group of two values 0.05 apart far from zero: |mean| / std up to ~200."""
    x = x.astype(np.float32).astype(np.float64)  # the values the float32 run reduces
    ax = _axes(a, x)
    return float(np.max(1 + np.abs(x.mean(axis=ax)) / x.std(axis=ax)))


spec("StdDev", _draw_moments,
     lambda a, x: apply(R.StdDev(a["axis"] if a["axis"] is not None else (), a["ddof"],
                                    a["keep_dims"]), (x,)),
     lambda a, x: np.std(x, axis=_axes(a, x), ddof=a["ddof"], keepdims=a["keep_dims"]),
     cond32=_spread_cond, why32="a group of small spread far from zero: the gradient's error "
     "grows as 1 + |mean| / std (_spread_cond)")
spec("ReduceVar", _draw_moments,
     lambda a, x: apply(R.ReduceVar(a["axis"] if a["axis"] is not None else (), a["ddof"],
                                    a["keep_dims"]), (x,)),
     lambda a, x: np.var(x, axis=_axes(a, x), ddof=a["ddof"], keepdims=a["keep_dims"]))


def _draw_prod_others(data):
    shape = data.draw(S.shapes(1, 3))
    return [arr(data, shape, NONZERO)], {"axes": data.draw(S.axes(len(shape)))}


def _prod_others_ref(a, x):
    ax = _axes({"axis": a["axes"]}, x)
    p = np.prod(x, axis=ax, keepdims=True)
    return p / x


spec("ProdOthers", _draw_prod_others,
     lambda a, x: R.prod_others(x, None if a["axes"] is None else
                                tuple(sorted(v % x.ndim for v in _axes({"axis": a["axes"]}, x)))),
     _prod_others_ref, rtol=1e-12)


def _draw_linear_scan(data):
    shape = data.draw(S.shapes(1, 3))
    c, b = arr(data, shape), arr(data, shape)
    c = np.where(data.draw(hnp.arrays(bool, shape)), 0.0, c)  # zeros: the rule has no division
    return [c, b], {"reverse": data.draw(st.booleans())}


def _linear_scan_ref(a, c, b):
    s, n = np.zeros_like(b), b.shape[-1]
    for j in (range(n - 1, -1, -1) if a["reverse"] else range(n)):
        k = j + 1 if a["reverse"] else j - 1  # the neighbour s_j continues from
        s[..., j] = b[..., j] + (c[..., max(j, k)] * s[..., k] if 0 <= k < n else 0)
    return s


spec("LinearScan", _draw_linear_scan, lambda a, c, b: R.linear_scan(c, b, a["reverse"]),
     _linear_scan_ref)


def _draw_arg_extreme(data):
    shape = data.draw(S.shapes(1, 3))
    x = distinct(arr(data, shape))
    return [x], {"axis": data.draw(st.integers(-len(shape), len(shape) - 1)),
                 "keep_dims": data.draw(st.booleans())}


spec("ArgMaxWithValue", _draw_arg_extreme,
     lambda a, x: apply(R.ArgMaxWithValue(a["axis"], a["keep_dims"]), (x,))[1],
     lambda a, x: np.max(x, axis=a["axis"], keepdims=a["keep_dims"]))
spec("ArgMinWithValue", _draw_arg_extreme,
     lambda a, x: apply(R.ArgMinWithValue(a["axis"], a["keep_dims"]), (x,))[1],
     lambda a, x: np.min(x, axis=a["axis"], keepdims=a["keep_dims"]))
spec("Argmax", _draw_arg_extreme,
     lambda a, x: apply(R.Argmax(a["axis"], np.int64, a["keep_dims"]), (x,)),
     lambda a, x: np.argmax(x, axis=a["axis"], keepdims=a["keep_dims"]), order=0)
spec("Argmin", _draw_arg_extreme,
     lambda a, x: apply(R.Argmin(a["axis"], np.int64, a["keep_dims"]), (x,)),
     lambda a, x: np.argmin(x, axis=a["axis"], keepdims=a["keep_dims"]), order=0)


def _draw_cumsum(data):
    shape = data.draw(S.shapes(1, 3))
    return [arr(data, shape)], {"axis": data.draw(st.integers(-len(shape), len(shape) - 1)),
                                "exclusive": data.draw(st.booleans()),
                                "reverse": data.draw(st.booleans())}


def _cumsum_ref(a, x):
    ax = a["axis"]
    src = np.flip(x, ax) if a["reverse"] else x
    out = np.cumsum(src, axis=ax)
    if a["exclusive"]:
        out = out - src
    return np.flip(out, ax) if a["reverse"] else out


spec("CumSum", _draw_cumsum,
     lambda a, x: apply(R.CumSum(a["exclusive"], a["reverse"]), (x, a["axis"])), _cumsum_ref)

# ---- matmul ---------------------------------------------------------------------------------------


def _draw_matmul(batch):
    def draw(data):
        m, k, n = (data.draw(st.integers(1, 4)) for _ in range(3))
        ta, tb = data.draw(st.booleans()), data.draw(st.booleans())
        if batch:
            ba, bb = data.draw(S.broadcastable_shapes(2, 1, 2, max_side=3))
        else:
            ba = bb = ()
        a_shape = ba + ((k, m) if ta else (m, k))
        b_shape = bb + ((n, k) if tb else (k, n))
        return [arr(data, a_shape), arr(data, b_shape)], {"ta": ta, "tb": tb}
    return draw


def _matmul_ref(a, x, y):
    if a["ta"]:
        x = np.swapaxes(x, -1, -2)
    if a["tb"]:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


spec("MatMul", _draw_matmul(False), lambda a, x, y: L.MatMul(a["ta"], a["tb"])(x, y), _matmul_ref)
spec("BatchMatMul", _draw_matmul(True), lambda a, x, y: L.BatchMatMul(a["ta"], a["tb"])(x, y),
     _matmul_ref)


def _draw_singular(data):
    batch = data.draw(st.sampled_from([(), (2,)]))
    m, n = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    # A spread diagonal keeps the singular values distinct and away from 0 (where they are
    # not differentiable); the random part keeps the singular vectors generic.
    x = arr(data, batch + (m, n), S.Domain(-1, 1)) + 10 * np.eye(m, n) * np.arange(1, n + 1)
    return [x], {}


spec("SingularValues", _draw_singular, lambda a, x: L.SingularValues()(x),
     lambda a, x: np.linalg.svd(x, compute_uv=False), order=1, rtol=1e-9,
     notes="first derivatives only: the rule refuses to run under an outer transform")

# ---- shape ops ------------------------------------------------------------------------------------


def _draw_reshape(data):
    shape = data.draw(S.shapes(0, 3, min_side=0))
    x = arr(data, shape)
    target = list(data.draw(st.permutations(list(shape))))
    if target and data.draw(st.booleans()) and x.size:
        target[data.draw(st.integers(0, len(target) - 1))] = -1
    return [x], {"shape": tuple(target) if target else ()}


spec("Reshape", _draw_reshape, lambda a, x: A.Reshape()(x, a["shape"]),
     lambda a, x: x.reshape(a["shape"]))


def _draw_expand(data):
    shape = data.draw(S.shapes(0, 3))
    return [arr(data, shape)], {"axis": data.draw(st.integers(-len(shape) - 1, len(shape)))}


spec("ExpandDims", _draw_expand, lambda a, x: A.ExpandDims()(x, a["axis"]),
     lambda a, x: np.expand_dims(x, a["axis"]))


def _draw_squeeze(data):
    shape = list(data.draw(S.shapes(0, 3)))
    for _ in range(data.draw(st.integers(0, 2))):
        shape.insert(data.draw(st.integers(0, len(shape))), 1)
    ones = [i for i, n in enumerate(shape) if n == 1]
    axis = () if not ones or data.draw(st.booleans()) else tuple(
        data.draw(st.lists(st.sampled_from(ones), min_size=1, unique=True)))
    return [arr(data, tuple(shape))], {"axis": axis}


spec("Squeeze", _draw_squeeze, lambda a, x: A.Squeeze(a["axis"])(x),
     lambda a, x: np.squeeze(x, axis=a["axis"] if a["axis"] else None))


def _draw_transpose(data):
    shape = data.draw(S.shapes(0, 4))
    return [arr(data, shape)], {"perm": tuple(data.draw(st.permutations(range(len(shape)))))}


spec("Transpose", _draw_transpose, lambda a, x: A.Transpose()(x, a["perm"]),
     lambda a, x: np.transpose(x, a["perm"]))


def _draw_broadcast(data):
    small, big = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=1, min_dims=0,
                                                             max_dims=3, max_side=4)
                           .map(lambda r: (r.input_shapes[0], r.result_shape)))
    lead = data.draw(st.lists(st.integers(1, 3), max_size=1))
    return [arr(data, small)], {"shape": tuple(lead) + big}


spec("DynamicBroadcastTo", _draw_broadcast, lambda a, x: A.DynamicBroadcastTo()(x, a["shape"]),
     lambda a, x: np.broadcast_to(x, a["shape"]))


def _draw_sum_to(data):
    (x,), attrs = _draw_broadcast(data)
    big = np.broadcast_to(x, attrs["shape"])
    return [arr(data, big.shape)], {"shape": x.shape}


spec("SumTo", _draw_sum_to, lambda a, x: A.SumTo()(x, a["shape"]),
     lambda a, x: x.sum(axis=tuple(range(x.ndim - len(a["shape"]))) + tuple(
         x.ndim - len(a["shape"]) + i for i, n in enumerate(a["shape"])
         if n == 1 and x.shape[x.ndim - len(a["shape"]) + i] != 1), keepdims=True)
     .reshape(a["shape"]))


def _draw_tile(data):
    shape = data.draw(S.shapes(0, 3, max_side=3))
    reps = tuple(data.draw(st.lists(st.integers(1, 3), min_size=0, max_size=4)))
    return [arr(data, shape)], {"multiples": reps}


spec("Tile", _draw_tile, lambda a, x: A.Tile()(x, a["multiples"]),
     lambda a, x: np.tile(x, a["multiples"]))


def _draw_concat(data):
    shape = list(data.draw(S.shapes(1, 3)))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    xs = []
    for _ in range(data.draw(st.integers(1, 3))):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 3))
        xs.append(arr(data, tuple(s)))
    return xs, {"axis": axis}


spec("Concat", _draw_concat, lambda a, *xs: A.Concat(a["axis"])(xs),
     lambda a, *xs: np.concatenate(xs, axis=a["axis"]))


def _draw_stack(data):
    shape = data.draw(S.shapes(0, 3))
    n = data.draw(st.integers(1, 3))
    return [arr(data, shape) for _ in range(n)], {
        "axis": data.draw(st.integers(-len(shape) - 1, len(shape)))}


spec("Stack", _draw_stack, lambda a, *xs: A.Stack(a["axis"])(xs),
     lambda a, *xs: np.stack(xs, axis=a["axis"]))


def _draw_unstack(data):
    shape = data.draw(S.shapes(1, 3))
    return [arr(data, shape)], {"axis": data.draw(st.integers(-len(shape), len(shape) - 1))}


spec("Unstack", _draw_unstack, lambda a, x: A.Unstack(a["axis"])(x),
     lambda a, x: tuple(np.moveaxis(x, a["axis"], 0)))


def _draw_split(data):
    shape = data.draw(S.shapes(1, 3))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=3)))
    bounds = [0] + cuts + [n]
    return [arr(data, shape)], {"axis": axis,
                                "sizes": tuple(b - a for a, b in zip(bounds, bounds[1:]))}


spec("SplitSizes", _draw_split, lambda a, x: A.SplitSizes(a["axis"], a["sizes"])(x),
     lambda a, x: tuple(np.split(x, np.cumsum(a["sizes"])[:-1], axis=a["axis"])))

# ---- gather and indexing --------------------------------------------------------------------------


def _draw_gather(data):
    shape = data.draw(S.shapes(1, 3))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    idx_shape = data.draw(S.shapes(0, 2))
    idx = data.draw(hnp.arrays(np.int64, idx_shape, elements=st.integers(-n, n - 1)))
    return [arr(data, shape), idx], {"axis": axis}


spec("Take", _draw_gather, lambda a, x, i: A.gather(x, i, a["axis"]),
     lambda a, x, i: np.take(x, i, axis=a["axis"]), diff=(0,))


def _draw_gather_grad(data):
    (x, idx), attrs = _draw_gather(data)
    out_shape = np.take(x, idx, axis=attrs["axis"]).shape
    return [arr(data, out_shape), idx], dict(attrs, shape=x.shape)


def _gather_grad_ref(a, d, i):
    g = np.zeros(a["shape"])
    np.add.at(np.moveaxis(g, a["axis"], 0), i,
              np.moveaxis(d, tuple(range(a["axis"] % len(a["shape"]),
                                         a["axis"] % len(a["shape"]) + i.ndim)),
                          tuple(range(i.ndim))))
    return g


spec("GatherGrad", _draw_gather_grad,
     lambda a, d, i: A.gather_grad(d, i, a["axis"], a["shape"]), _gather_grad_ref, diff=(0,))


@st.composite
def indices(draw, shape):
    """A NumPy index for `shape`: ints (negative too), slices of any step, None, Ellipsis,
    bool masks, integer arrays with repeats."""
    kind = draw(st.sampled_from(["basic", "int_array", "bool_mask", "mixed"]))
    if kind == "basic" or not shape:
        return draw(hnp.basic_indices(shape, min_dims=0, allow_newaxis=True,
                                      allow_ellipsis=True))
    if kind == "bool_mask":
        k = draw(st.integers(1, len(shape)))
        return (draw(hnp.arrays(np.bool_, shape[:k])),)
    n = shape[0]
    arr_idx = draw(hnp.arrays(np.int64, draw(S.shapes(1, 2)), elements=st.integers(-n, n - 1)))
    if kind == "int_array":
        return (arr_idx,)
    rest = draw(hnp.basic_indices(shape[1:], min_dims=0)) if len(shape) > 1 else ()
    rest = rest if isinstance(rest, tuple) else (rest,)
    return (arr_idx,) + tuple(r for r in rest if r is not Ellipsis)


def _draw_getitem(data):
    shape = data.draw(S.shapes(0, 3))
    return [arr(data, shape)], {"index": data.draw(indices(shape))}


spec("Getitem", _draw_getitem, lambda a, x: A.getitem(x, a["index"]),
     lambda a, x: x[a["index"]])


def _draw_diagonal(data):
    shape = data.draw(S.shapes(2, 4))
    d1, d2 = data.draw(st.permutations(range(len(shape))))[:2]
    offset = data.draw(st.integers(-shape[d1], shape[d2]))
    return [arr(data, shape)], {"offset": offset, "dims": (d1, d2)}


spec("Diagonal", _draw_diagonal, lambda a, x: A.Diagonal(a["offset"], *a["dims"])(x),
     lambda a, x: np.diagonal(x, a["offset"], *a["dims"]))


def _draw_view_steps(data, shape):
    """A chain of view steps (Transpose, basic Getitem, Diagonal) from an array of `shape`."""
    steps, probe = [], np.zeros(shape)
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(["transpose", "getitem", "diagonal"]))
        if kind == "transpose":
            step = (A.Transpose(), (tuple(data.draw(st.permutations(range(probe.ndim)))),))
        elif kind == "getitem":
            index = data.draw(hnp.basic_indices(probe.shape, min_dims=0, allow_newaxis=False))
            step = (A.Getitem(), (index if isinstance(index, tuple) else (index,),))
        elif probe.ndim >= 2:
            step = (A.Diagonal(data.draw(st.integers(-1, 1)), 0, 1), ())
        else:
            continue
        probe = step[0].forward(probe, *step[1])
        steps.append(step)
    return tuple(steps), probe.shape


def _draw_view_scatter(data):
    shape = data.draw(S.shapes(1, 3))
    steps, region = _draw_view_steps(data, shape)
    return [arr(data, shape), arr(data, region)], {"steps": steps}


def _view_scatter_ref(a, base, value):
    out = base.copy()
    region = out
    for prim, rest in a["steps"]:
        region = prim.forward(region, *rest)
    region[...] = value
    return out


spec("ViewScatter", _draw_view_scatter, lambda a, b, v: A.ViewScatter(a["steps"])(b, v),
     _view_scatter_ref)


def _draw_getitem_grad(data):
    (x,), attrs = _draw_getitem(data)
    return [arr(data, x[attrs["index"]].shape)], dict(attrs, shape=x.shape)


def _getitem_grad_ref(a, d):
    g = np.zeros(a["shape"])
    np.add.at(g, a["index"], d)
    return g


spec("GetitemGrad", _draw_getitem_grad, lambda a, d: A.getitem_grad(d, a["index"], a["shape"]),
     _getitem_grad_ref)


def _draw_setitem(data):
    (x,), attrs = _draw_getitem(data)
    region = x[attrs["index"]].shape
    drop = data.draw(st.integers(0, len(region)))  # value shapes that broadcast to the region
    vshape = tuple(n if data.draw(st.booleans()) else 1 for n in region[drop:])
    return [x, arr(data, vshape)], attrs


def _setitem_ref(a, x, v):
    out = x.copy()
    out[a["index"]] = v
    return out


spec("Setitem", _draw_setitem, lambda a, x, v: A.setitem(x, a["index"], v), _setitem_ref)


def _draw_pad(data):
    shape = data.draw(S.shapes(0, 3))
    pads = tuple((data.draw(st.integers(-min(n, 2) if n else 0, 2)),
                  data.draw(st.integers(0, 2))) for n in shape)
    pads = tuple((b, a) if n + min(b, 0) + min(a, 0) >= 0 else (0, a)
                 for (b, a), n in zip(pads, shape))
    return [arr(data, shape)], {"paddings": pads, "value": data.draw(st.sampled_from([0.0, 1.5]))}


def _pad_ref(a, x):
    if not a["paddings"]:
        return x.copy()
    crop = tuple(slice(max(-b, 0), None) for b, _ in a["paddings"])
    return np.pad(x[crop], tuple((max(b, 0), max(e, 0)) for b, e in a["paddings"]),
                  constant_values=a["value"])


spec("PadConstant", _draw_pad, lambda a, x: A.pad(x, a["paddings"], a["value"]), _pad_ref)

# ---- softmax family and fused losses ---------------------------------------------------------------


def _draw_softmax(data):
    shape = data.draw(S.shapes(0, 3))
    return [arr(data, shape)], {"axis": data.draw(st.integers(-max(len(shape), 1),
                                                              max(len(shape), 1) - 1))
                                if shape else -1}


def _softmax_ref(a, x):
    if x.ndim == 0:
        return np.ones_like(x)
    e = np.exp(x - x.max(axis=a["axis"], keepdims=True))
    return e / e.sum(axis=a["axis"], keepdims=True)


spec("Softmax", _draw_softmax, lambda a, x: apply(N.Softmax(a["axis"]), (x,)), _softmax_ref,
     rtol=1e-12)
spec("LogSoftmax", _draw_softmax, lambda a, x: apply(N.LogSoftmax(a["axis"]), (x,)),
     lambda a, x: np.log(_softmax_ref(a, x)), rtol=1e-12, atol=1e-12)


def _draw_bce(data):
    sx, sw, sp = data.draw(S.broadcastable_shapes(3))
    x = arr(data, sx, S.Domain(-6, 6))
    y = arr(data, sx, S.Domain(0, 1))
    return [x, y, arr(data, sw, S.POSITIVE), arr(data, sp, S.POSITIVE)], {}


def _bce_ref(a, x, y, w, p):
    sp = np.log1p(np.exp(-x))
    return w * ((1 - y) * x + (1 + (p - 1) * y) * sp)


spec("BCEWithLogits", _draw_bce, lambda a, x, y, w, p: apply(N.BCEWithLogits(), (x, y, w, p)),
     _bce_ref, rtol=1e-12)

SPEC_BY_NAME = {s.name: s for s in SPECS}
assert len(SPEC_BY_NAME) == len(SPECS), "two specs share a name"


# ---- einsum --------------------------------------------------------------------------------------

_EINSUM = [("ij,jk->ik", 2), ("ii->i", 1), ("ij->", 1), ("i,j->ij", 2), ("bij,bjk", 2),
           ("...i,...i->...", 2), ("iij,j->ij", 2), ("ij,jk,k->i", 3), ("i,i", 2)]


def _draw_einsum(data):
    eq, count = data.draw(st.sampled_from(_EINSUM))
    terms = eq.split("->")[0].split(",")
    sizes = {c: data.draw(st.integers(1, 3)) for c in sorted(set(eq) - set(",->."))}
    ell = data.draw(S.shapes(0, 2))
    shapes = []
    for t in terms:
        shape = tuple(sizes[c] for c in t.replace("...", ""))
        if "..." in t:  # each operand broadcasts part of the '...' dims
            sub = ell[data.draw(st.integers(0, len(ell))):]
            shape = tuple(1 if data.draw(st.booleans()) else n for n in sub) + shape
        shapes.append(shape)
    return [arr(data, sh) for sh in shapes], {"eq": eq}


spec("Einsum", _draw_einsum, lambda a, *xs: E.Einsum(a["eq"])(xs),
     lambda a, *xs: np.einsum(a["eq"], *xs))

