"""The project's gradient check is the public one users get (`minispore.testing`), plus
`check_float32`: a function's float32 forward, VJP and JVP against its float64 run on the same
(float32-representable) values."""
import numpy as np

import minispore
from minispore import Tensor
from minispore.testing import GradcheckError, check_grads

__all__ = ["F32_EPS", "Float32Error", "GradcheckError", "check_float32", "check_grads", "to_float32",
           "to_float64"]

F32_EPS = float(np.finfo(np.float32).eps)  # 2**-23 ~ 1.19e-7


class Float32Error(AssertionError):
    """A float32 run disagrees with the float64 run beyond its tolerance, or has the wrong dtype."""


def _recast(v, src, dst):
    """v with `src`-dtype arrays (or Tensors holding them) as `dst`; anything else as it is."""
    if isinstance(v, Tensor):
        a = v.asnumpy()
        return Tensor(a.astype(dst)) if a.dtype == src else v
    if isinstance(v, np.ndarray) and v.dtype == src:
        return v.astype(dst)
    return v


def to_float32(v):
    """float64 arrays and Tensors as float32 ones (anything else as it is)."""
    return _recast(v, np.float64, np.float32)


def to_float64(v):
    """float32 arrays and Tensors as float64 ones (exact: the float64 truth on the same values)."""
    return _recast(v, np.float32, np.float64)


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [o for item in out for o in _flat(item)]
    return [out]


def _np(t):
    return t.asnumpy() if isinstance(t, Tensor) else np.asarray(t)


def float32_error(got, ref, scale=1.0):
    """max |got - ref| / max(scale, max |ref|) in units of float32 eps: a norm-wise relative
    error, with magnitudes below `scale` counted as `scale` (1 for values: inputs, cotangents and
    tangents are O(1), so an absolute error of a few eps is float32's rounding of O(1)
    intermediates). Non-finite values must be the same in both."""
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    if got.size == 0:
        return 0.0
    fin = np.isfinite(ref)
    if not np.array_equal(fin, np.isfinite(got)) or not np.array_equal(got[~fin], ref[~fin]):
        return np.inf  # inf/nan where the other has a number (or another non-finite value)
    if not fin.any():
        return 0.0
    scale = max(scale, float(np.max(np.abs(ref[fin]))))
    return float(np.max(np.abs(got[fin] - ref[fin]))) / scale / F32_EPS


def _compare(what, got, ref, tol, worst, scale=1.0):
    """Check float32 `got` against float64 `ref`: dtype, shape, then error <= tol (in eps)."""
    g, r = _np(got), _np(ref)
    if r.dtype.kind != "f":  # integer/bool outputs: the same dtype and exactly the same values
        if g.dtype != r.dtype or g.shape != r.shape or not np.array_equal(g, r):
            raise Float32Error(f"{what}: {g.dtype}{g.shape} {g!r} in the float32 run, "
                               f"{r.dtype}{r.shape} {r!r} in the float64 run")
        return
    if g.dtype != np.float32:
        raise Float32Error(f"{what}: dtype {g.dtype} from float32 inputs (float64 gave "
                           f"{r.dtype}), expected float32")
    if g.shape != r.shape:
        raise Float32Error(f"{what}: shape {g.shape} in float32, {r.shape} in float64")
    err = float32_error(g, r, scale)
    worst[what] = err
    if not err <= tol:
        d = np.abs(g.astype(np.float64) - r)
        i = np.unravel_index(np.nanargmax(np.where(np.isnan(d), np.inf, d)), d.shape) \
            if d.ndim else ()
        raise Float32Error(f"{what}: float32 is {err:.3g} eps off the float64 truth (tolerance "
                           f"{tol:.3g} eps of max({scale:.3g}, max|truth|)); worst at {i}: "
                           f"{g[i]!r} vs {r[i]!r}")


def _norm(arrays):
    return float(np.sqrt(sum(np.sum(np.square(_np(a).astype(np.float64))) for a in arrays)))


def check_float32(fn, args, diff_argnums=(), modes=("rev",), tol=32.0, seed=0, fn64=None):
    """Run `fn` on float32 copies of the float64 arrays/Tensors in `args` and `fn64` (default
    `fn`) on the same values in float64 (exactly representable: the float64 run is the truth);
    compare the outputs, with `diff_argnums` the VJP along a fixed random cotangent v ("rev" in
    `modes`) and the JVP along a fixed random tangent u ("fwd"). Integer and bool arguments are
    passed as they are.

    Float outputs, gradients and JVPs must be float32, and within `tol` float32 eps of the
    float64 truth (see `float32_error`). Outputs are scaled by max(1, max|truth|); a VJP or JVP,
    a linear map of v or u, rounds on the scale of the terms it sums, not of the sum, so it is
    scaled by max(1, max|truth|, |J| |v|) (or |J| |u|) where |J| = max(|J^T v| / |v|,
    |J u| / |u|) <= ||J||_2 (2-norms): a sum that cancels is not counted as float32's error.
    Integer and bool outputs must be the same exactly.

    Returns:
        {what: error in float32 eps} for every float comparison.
    Raises:
        Float32Error: naming the output or argument, the error and the worst element.
    """
    rng = np.random.default_rng(seed)
    a32 = [to_float32(a) for a in args]
    a64 = [to_float64(a) for a in a32]
    fn64 = fn if fn64 is None else fn64
    diff = tuple(diff_argnums)
    runs = ((fn, a32, np.float32), (fn64, a64, np.float64))
    worst = {}

    def tensors(arrays):  # fresh Tensors for every call: nothing is shared between runs
        return [Tensor(a) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
                for a in arrays]

    def restricted(f, arrays):  # f as a function of the differentiated arguments only
        def f_diff(*xs):
            full = tensors(arrays)
            for i, x in zip(diff, xs):
                full[i] = x
            return f(*full)
        return f_diff

    # The forward: from the VJP's recording where there is one (no separate run).
    rev, fwd = diff and "rev" in modes, diff and "fwd" in modes
    if rev:
        outs, vjps = [], []
        for f, arrays, _ in runs:
            out, vjp_fn = minispore.vjp(restricted(f, arrays), *(Tensor(arrays[i]) for i in diff))
            outs.append(out)
            vjps.append(vjp_fn)
    else:
        outs = [f(*tensors(arrays)) for f, arrays, _ in runs]
    out32, out64 = _flat(outs[0]), _flat(outs[1])
    if len(out32) != len(out64):
        raise Float32Error(f"{len(out32)} outputs in float32, {len(out64)} in float64")
    for k, (g, r) in enumerate(zip(out32, out64)):
        _compare(f"output {k}", g, r, tol, worst)
    jnorm = 0.0
    if rev:
        cots = [rng.standard_normal(_np(o).shape).astype(np.float32) for o in out64]
        grads = [vjp_fn(*(Tensor(c.astype(dt)) for c in cots))
                 for vjp_fn, (_, _, dt) in zip(vjps, runs)]
        for i, g in zip(diff, grads[0]):
            if g.shape != a32[i].shape:
                raise Float32Error(f"VJP of argument {i}: shape {g.shape}, expected "
                                   f"{a32[i].shape}")
        v_norm = _norm(cots)
        jnorm = _norm(grads[1]) / v_norm if v_norm else 0.0
    if fwd:
        tans = [rng.standard_normal(a32[i].shape).astype(np.float32) for i in diff]
        jvps = []
        for f, arrays, dt in runs:
            primals = tuple(Tensor(arrays[i]) for i in diff)
            tangents = tuple(Tensor(t.astype(dt)) for t in tans)
            _, jv = minispore.jvp(restricted(f, arrays),
                                  primals if len(primals) > 1 else primals[0],
                                  tangents if len(tangents) > 1 else tangents[0])
            jvps.append(_flat(jv))
        u_norm = _norm(tans)
        jnorm = max(jnorm, _norm(jvps[1]) / u_norm if u_norm else 0.0)
        for k, (g, r) in enumerate(zip(*jvps)):
            _compare(f"JVP of output {k}", g, r, tol, worst, max(1.0, jnorm * u_norm))
    if rev:
        for i, g, r in zip(diff, *grads):
            _compare(f"VJP of argument {i}", g, r, tol, worst, max(1.0, jnorm * v_norm))
    return worst
