"""Specs of the linalg primitives (same format as specs.py).

Matrices are drawn well conditioned: symmetric positive-definite ones as B B^T + n I, general
ones as B + (n + 1) I (diagonally dominant), so that finite differences and float32 stay
accurate; `cond32` scales the float32 tolerance by the drawn matrix's condition number."""
import numpy as np
import scipy.linalg as sl
from hypothesis import strategies as st

from minispore import Tensor, ops
from minispore.ops.operations import linalg_ops as L

from ..helpers import strategies as S
from .specs import arr, spec


def _batch_n(data, min_n=1, max_n=4):
    batch = data.draw(st.sampled_from([(), (2,)]))
    return batch, data.draw(st.integers(min_n, max_n))


def _general(data, batch, n):
    b = arr(data, batch + (n, n), S.Domain(-1, 1))
    return b + (n + 1) * np.eye(n)


def _spd(data, batch, n):
    b = arr(data, batch + (n, n), S.Domain(-1, 1))
    return b @ np.swapaxes(b, -1, -2) + n * np.eye(n)


def _cond(a):
    return float(np.max(np.linalg.cond(a)))


def _sym(a):
    return (a + L._mT(a)) * 0.5


def _draw_spd(data):
    batch, n = _batch_n(data)
    return [_spd(data, batch, n)], {"upper": data.draw(st.booleans())}


spec("Cholesky", _draw_spd, lambda a, x: L.Cholesky(a["upper"])(_sym(x)),
     lambda a, x: (np.swapaxes(np.linalg.cholesky(x), -1, -2) if a["upper"]
                   else np.linalg.cholesky(x)),
     rtol=1e-9, atol=1e-11, cond32=lambda a, x: _cond(x),
     why32="a factorisation: float32 rounding grows with the condition number",
     notes="the input is symmetrised in the call, so that the gradient is checked along "
           "symmetric directions (the Cholesky factor reads one triangle only)")


def _draw_square_rhs(data):
    batch, n = _batch_n(data)
    k = data.draw(st.integers(1, 3))
    rhs_batch = data.draw(st.sampled_from([batch, (2,)]))
    return [_general(data, batch, n), arr(data, rhs_batch + (n, k))], \
        {"lower": data.draw(st.booleans()), "adjoint": data.draw(st.booleans())}


def _ref_trisolve(a, m, b):
    tri = np.tril(m) if a["lower"] else np.triu(m)
    if a["adjoint"]:
        tri = np.swapaxes(tri, -1, -2)
    batch = np.broadcast_shapes(tri.shape[:-2], b.shape[:-2])
    return np.linalg.solve(np.broadcast_to(tri, batch + tri.shape[-2:]),
                           np.broadcast_to(b, batch + b.shape[-2:]))


spec("MatrixTriangularSolve", _draw_square_rhs,
     lambda a, m, b: L.MatrixTriangularSolve(a["lower"], a["adjoint"])(m, b), _ref_trisolve,
     rtol=1e-9, atol=1e-11, cond32=lambda a, m, b: _cond(m),
     why32="a solve: float32 rounding grows with the condition number")


def _ref_solve(a, m, b):
    if a["adjoint"]:
        m = np.swapaxes(m, -1, -2)
    batch = np.broadcast_shapes(m.shape[:-2], b.shape[:-2])
    return np.linalg.solve(np.broadcast_to(m, batch + m.shape[-2:]),
                           np.broadcast_to(b, batch + b.shape[-2:]))


spec("MatrixSolve", _draw_square_rhs, lambda a, m, b: L.MatrixSolve(a["adjoint"])(m, b),
     _ref_solve, rtol=1e-9, atol=1e-11, cond32=lambda a, m, b: _cond(m),
     why32="a solve: float32 rounding grows with the condition number")


def _draw_general(data):
    batch, n = _batch_n(data)
    return [_general(data, batch, n)], {"adjoint": data.draw(st.booleans())}


spec("MatrixInverse", _draw_general, lambda a, x: L.MatrixInverse(a["adjoint"])(x),
     lambda a, x: np.swapaxes(np.linalg.inv(x), -1, -2) if a["adjoint"] else np.linalg.inv(x),
     rtol=1e-9, atol=1e-11, cond32=lambda a, x: _cond(x),
     why32="an inverse: float32 rounding grows with the condition number")


def _draw_signed(data):
    """General matrices with either sign of the determinant (a row of one flipped)."""
    batch, n = _batch_n(data)
    x = _general(data, batch, n)
    if data.draw(st.booleans()):
        x[..., 0, :] *= -1
    return [x], {}


spec("MatrixDeterminant", _draw_signed, lambda a, x: L.MatrixDeterminant()(x),
     lambda a, x: np.linalg.det(x), rtol=1e-9, atol=1e-11, cond32=lambda a, x: _cond(x),
     why32="LU pivots: float32 rounding grows with the condition number")
spec("LogMatrixDeterminant", _draw_signed, lambda a, x: L.LogMatrixDeterminant()(x),
     lambda a, x: np.linalg.slogdet(x), rtol=1e-9, atol=1e-11, cond32=lambda a, x: _cond(x),
     why32="LU pivots: float32 rounding grows with the condition number")


def _draw_rect(data):
    batch = data.draw(st.sampled_from([(), (2,)]))
    m, n = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    # no zero entries: LAPACK skips the reflection of an all-zero column below the diagonal, a
    # jump in the signs of Q and R that finite differences would straddle
    x = arr(data, batch + (m, n), S.Domain(-1, 1, avoid=(0.0,), gap=0.1))
    k = min(m, n)
    x[..., :k, :k] += (max(m, n) + 1) * np.eye(k)  # diagonally dominant: full rank
    return [x], {"full": data.draw(st.booleans()) and m <= n}


spec("Qr", _draw_rect, lambda a, x: L.Qr(a["full"])(x),
     lambda a, x: np.linalg.qr(x, mode="complete" if a["full"] else "reduced"),
     rtol=1e-9, atol=1e-11, cond32=lambda a, x: _cond(x),
     why32="Householder reflections: float32 rounding grows with the condition number",
     notes="complete QR of a tall matrix has no gradient (Q is not unique): drawn for m <= n")


def _draw_svd(data):
    batch = data.draw(st.sampled_from([(), (2,)]))
    m, n = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    k = min(m, n)
    # distinct singular values well away from 0 and from each other
    u = np.linalg.qr(arr(data, batch + (m, m), S.Domain(-1, 1)) + 3 * np.eye(m))[0]
    v = np.linalg.qr(arr(data, batch + (n, n), S.Domain(-1, 1)) + 3 * np.eye(n))[0]
    s = 1.0 + np.arange(k)[::-1] + arr(data, batch + (k,), S.Domain(0, 0.5))
    x = (u[..., :, :k] * s[..., None, :]) @ np.swapaxes(v[..., :, :k], -1, -2)
    return [x], {"full": data.draw(st.booleans()), "uv": data.draw(st.booleans())}


def _svd_invariants(s, u, v, k):
    """Sign-invariant functions of an SVD (on the first k columns, the unique ones): s,
    u diag(w) v^T, u * u and v * v."""
    w = np.arange(1.0, k + 1)
    u, v = u[..., :, :k], v[..., :, :k]
    return s, (u * w) @ np.swapaxes(v, -1, -2), u * u, v * v


def _call_svd(a, x):
    s, u, v = L.Svd(a["full"], a["uv"])(x)
    if not a["uv"]:
        return s, u, v
    k = s.shape[-1]
    w = Tensor(np.arange(1.0, k + 1, dtype=x.asnumpy().dtype))
    cols = (Ellipsis, slice(None), slice(0, k))
    u, v = u[cols], v[cols]
    return s, L._bmm(u * w, v, tb=True), u * u, v * v


def _ref_svd(a, x):
    if not a["uv"]:
        return np.linalg.svd(x, compute_uv=False), np.zeros(1), np.zeros(1)
    u, s, vh = np.linalg.svd(x, full_matrices=a["full"])
    return _svd_invariants(s, u, np.swapaxes(vh, -1, -2), s.shape[-1])


spec("Svd", _draw_svd, _call_svd, _ref_svd, rtol=1e-9, atol=1e-11, tol32=128,
     why32="singular vectors: float32 rounding is divided by the gaps between singular values "
           "(at least ~0.5 here)",
     notes="singular vectors are unique up to sign: the call returns sign-invariant functions "
           "of them (u diag(w) v^T, u * u, v * v) on their first min(m, n) columns (the rest, "
           "with full_matrices, are not unique)")


def _draw_expm(data):
    batch, n = _batch_n(data)
    return [arr(data, batch + (n, n), S.Domain(-1, 1))], {}


spec("MatrixExp", _draw_expm, lambda a, x: L.MatrixExp()(x),
     lambda a, x: np.stack([sl.expm(m) for m in x.reshape((-1,) + x.shape[-2:])]).reshape(x.shape),
     rtol=1e-10, atol=1e-12, tol32=64,
     why32="the squarings and the Pade solve compound float32 rounding on exp(|A|) up to e^4")


def _draw_geqrf(data):
    (x,), _ = _draw_rect(data)
    return [x], {}


def _ref_geqrf(a, x):
    flat = x.reshape((-1,) + x.shape[-2:])
    out = [sl.lapack.dgeqrf(m)[:2] for m in flat]
    k = min(x.shape[-2:])
    return (np.stack([o[0] for o in out]).reshape(x.shape),
            np.stack([o[1] for o in out]).reshape(x.shape[:-2] + (k,)))


spec("Geqrf", _draw_geqrf, lambda a, x: L.Geqrf()(x), _ref_geqrf, order=0, rtol=1e-9,
     atol=1e-11, tol32=128,
     why32="Householder vectors: tau and v amplify float32 rounding of the column norms")


def _draw_eig(data):
    """Real matrices Q diag(w) Q^-1 with distinct, well separated real eigenvalues."""
    batch, n = _batch_n(data)
    # entries away from 0: LAPACK's eigenvectors break down on subnormal entries
    q = arr(data, batch + (n, n), S.Domain(-1, 1, avoid=(0.0,), gap=0.1)) + (n + 1) * np.eye(n)
    w = np.arange(n) + arr(data, batch + (n,), S.Domain(0, 0.5))
    return [(q * w[..., None, :]) @ np.linalg.inv(q)], {"v": data.draw(st.booleans())}


def _call_eig(a, x):
    """The eigenvalues sorted by real part (real and imaginary parts), and |v|^2 of the
    vectors in that order (invariant to their phases)."""
    w, v = L.Eig(a["v"])(x)
    order = Tensor(np.argsort(w.asnumpy().real, axis=-1))
    w = ops.gather_elements(w, -1, order)
    out = (ops.real(w), ops.imag(w))
    if a["v"]:
        cols = ops.broadcast_to(ops.expand_dims(order, -2), v.shape)
        v = ops.gather_elements(v, -1, cols)
        out += (ops.real(v * ops.conj(v)),)
    return out


def _ref_eig(a, x):
    w, v = np.linalg.eig(x)
    order = np.argsort(w.real, axis=-1)
    w = np.take_along_axis(w, order, -1)
    out = (w.real, w.imag)
    if a["v"]:
        v = np.take_along_axis(v, np.broadcast_to(order[..., None, :], v.shape), -1)
        out += (np.abs(v) ** 2,)
    return out


spec("Eig", _draw_eig, _call_eig, _ref_eig, rtol=1e-9, atol=1e-10, tol32=128,
     cond32=lambda a, x: _cond(x),
     why32="eigenvectors: float32 rounding is divided by the eigenvalue gaps (about 0.5 and "
           "more here) and grows with the condition number of the eigenvector basis",
     notes="complex outputs: the call returns real functions of them (real and imaginary parts "
           "of the eigenvalues, |v|^2 of the vectors, invariant to their phases), sorted")


def _draw_logm(data):
    """The real and imaginary parts of a complex matrix with eigenvalues in the right half
    plane (diagonally dominant real part)."""
    batch, n = _batch_n(data)
    # no subnormal parts: SciPy's logm (the reference) fails on them
    return [_general(data, batch, n),
            arr(data, batch + (n, n), S.Domain(-1, 1, avoid=(0.0,), gap=0.1))], {}


def _call_logm(a, re, im):
    r = re.asnumpy()
    z = np.empty(r.shape, np.complex128 if r.dtype == np.float64 else np.complex64)
    z.real, z.imag = r, im.asnumpy()  # (no 1j * inf: the extreme-value pass feeds inf)
    out = L.MatrixLogarithm()(Tensor(z)).asnumpy()
    dt = re.asnumpy().dtype
    return Tensor(out.real.astype(dt)), Tensor(out.imag.astype(dt))


def _ref_logm(a, re, im):
    z = (re + 1j * im).reshape((-1,) + re.shape[-2:])
    out = np.stack([sl.logm(m) for m in z]).reshape(re.shape)
    return out.real, out.imag


spec("MatrixLogarithm", _draw_logm, _call_logm, _ref_logm, order=0, rtol=1e-9, atol=1e-10,
     tol32=64, why32="square roots and a Pade solve compound complex64 rounding",
     notes="complex input only: the call builds it from two real draws and returns the real and "
           "imaginary parts")
