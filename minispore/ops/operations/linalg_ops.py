"""Linear-algebra primitives: MatMul and BatchMatMul (transposes as attributes, NumPy's
broadcasting of batch axes), the singular values that norms use, and the decompositions,
solvers, determinants and the matrix exponential, batched over leading axes.

Their bprops are written with minispore ops (matrix products, triangular and general solves,
constant masks), so they are differentiable again to any order."""
import math

import numpy as np

from ..._autodiff.tape import _state, apply, const, recording
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..primitive import Primitive, register
from . import array_ops as A
from . import fft_ops as FO
from . import reduce_ops as R
from ._kernels import gemm
from .math_ops import _conj_of as _conj, _const, _f32, cast


@register
class MatMul(Primitive):
    """2-D op(a) @ op(b), op = transpose when `transpose_a`/`transpose_b`.
    With no transposes: da = dout @ b^T;  db = a^T @ dout (b^H and a^H for complex values:
    complex gradients are dL/dRe + i dL/dIm, as MindSpore's)."""

    amp_auto = "low"
    inputs = ("a", "b")
    saves = ("a", "b")

    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__()
        self.transpose_a, self.transpose_b = bool(transpose_a), bool(transpose_b)

    def __call__(self, a, b):
        return apply(self, _matmul_operands(self.name, a, b))

    def forward(self, a, b):
        if a.ndim != 2 or b.ndim != 2:
            raise ValueError(f"For '{self.name}', the inputs must be 2-D, but got shapes "
                             f"{a.shape} and {b.shape}")
        return _matmul_nd(self, a, b)

    def bprop(self, saved, dout, needs):
        a, b = saved
        return _matmul_grads(type(self), self.transpose_a, self.transpose_b, _conj(a), _conj(b),
                             dout, needs)


@register
class BatchMatMul(MatMul):
    """Batched op(a) @ op(b) on the last two dims; batch dims broadcast."""

    amp_auto = "low"
    broadcasts = True

    def forward(self, a, b):
        if a.ndim < 2 or b.ndim < 2:
            raise ValueError(f"For '{self.name}', the inputs must be at least 2-D, but got "
                             f"shapes {a.shape} and {b.shape}")
        return _matmul_nd(self, a, b)


def _matmul_operands(name, a, b):
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError(f"For '{name}', the inputs must be Tensors, but got "
                        f"{type(a).__name__} and {type(b).__name__}")
    if a._data.dtype != b._data.dtype and _state.compute is None:
        # MindSpore does not promote here; inside a to_float / amp cell both are cast to the
        # cell's compute dtype when the primitive runs
        raise TypeError(f"For '{name}', the type of 'x2' should be same as 'x1', but got 'x1' "
                        f"with type Tensor[{a.dtype}] and 'x2' with type Tensor[{b.dtype}]")
    return a, b


def _matmul_nd(prim, a, b):
    if prim.transpose_a:
        a = np.swapaxes(a, -1, -2)
    if prim.transpose_b:
        b = np.swapaxes(b, -1, -2)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"For '{prim.name}', the contracted dimensions differ: shapes "
                         f"{a.shape} and {b.shape} (after transposes) cannot be multiplied")
    try:
        return gemm(a, b)
    except ValueError:
        raise ValueError(f"For '{prim.name}', the batch dimensions of {a.shape} and {b.shape} "
                         "do not broadcast") from None


_MATMUL_CACHE = {}


def _mm(cls, ta, tb):
    key = (cls, ta, tb)
    p = _MATMUL_CACHE.get(key)
    if p is None:
        p = _MATMUL_CACHE[key] = cls(ta, tb)
    return p


def _matmul_grads(cls, ta, tb, a, b, dout, needs):
    """da, db for out = op_a(a) @ op_b(b), each one matmul with transpose flags, no copies."""
    if not ta and not tb:
        da = _mm(cls, False, True)(dout, b) if needs[0] else None
        db = _mm(cls, True, False)(a, dout) if needs[1] else None
    elif ta and not tb:
        da = _mm(cls, False, True)(b, dout) if needs[0] else None
        db = _mm(cls, False, False)(a, dout) if needs[1] else None
    elif not ta and tb:
        da = _mm(cls, False, False)(dout, b) if needs[0] else None
        db = _mm(cls, True, False)(dout, a) if needs[1] else None
    else:
        da = _mm(cls, True, True)(b, dout) if needs[0] else None
        db = _mm(cls, True, True)(dout, a) if needs[1] else None
    return da, db


# ================================ linear-algebra helpers ==========================================

@register
class SingularValues(Primitive):
    """The singular values of the matrices in the last two axes, descending (for the spectral
    and nuclear norms).  dx = U diag(dout) V^T from x's thin SVD. Only first derivatives: the
    second needs the derivatives of U and V, which this rule does not build, so it refuses to
    run under an outer gradient transform instead of giving a wrong answer."""

    internal = True
    saves = ("x",)

    def forward(self, x):
        if x.ndim < 2:
            raise ValueError(f"For '{self.name}', the input must be at least 2-D, but got shape "
                             f"{x.shape}")
        return np.linalg.svd(x.astype(_f32) if x.dtype.kind not in "fc" else x,
                             compute_uv=False)

    def bprop(self, saved, dout, needs):
        if recording() is not None:
            raise RuntimeError("For 'norm', second derivatives of the spectral and nuclear "
                               "norms (ord=2, -2, 'nuc') are not implemented")
        x = saved[0]._data
        u, _, vt = np.linalg.svd(x, full_matrices=False)
        return (_const(np.matmul(u * dout._data[..., None, :], vt).astype(x.dtype, copy=False)),)


# ================================ decompositions, solvers, determinants ===========================

_F16 = np.dtype(np.float16)


def _matrices(name, x, arg="input", kinds="f", square=True):
    """x checked as a stack of (square) matrices of a floating dtype (`kinds` 'fc' also takes
    complex); float16 is computed in float32."""
    if x.dtype.kind not in kinds:
        allowed = "float or complex" if "c" in kinds else "float"
        raise TypeError(f"For '{name}', '{arg}' must be a {allowed} tensor, but got "
                        f"{mstype.from_np(x.dtype)}")
    if x.ndim < 2:
        raise ValueError(f"For '{name}', '{arg}' must be at least 2-D, but got shape {x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"For '{name}', '{arg}' must be a batch of square matrices, but got "
                         f"shape {x.shape}")
    return x.astype(_f32) if x.dtype == _F16 else x


def _same_dtype(name, a, b):
    if a.dtype != b.dtype:
        raise TypeError(f"For '{name}', the inputs must have one dtype, but got "
                        f"{mstype.from_np(a.dtype)} and {mstype.from_np(b.dtype)}")


def _mT(x):
    """The last two axes of a Tensor swapped."""
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return A.transpose(x, perm)


def _real_only(prim, x):
    if x._data.dtype.kind == "c":
        raise TypeError(f"For '{prim.name}', gradients of complex inputs are not implemented")


def _bmm(a, b, ta=False, tb=False):
    return _mm(BatchMatMul, ta, tb)(a, b)


def _masked(x, mask):
    """x times a NumPy mask that depends only on shapes (broadcast over the batch axes)."""
    return x * const(mask.astype(x._data.dtype, copy=False))


def _tril_half(n, dtype):
    """The lower-triangle mask with 1/2 on the diagonal (Phi in the Cholesky rule)."""
    m = np.tril(np.ones((n, n), dtype))
    np.fill_diagonal(m, 0.5)
    return m


def _inv(x):
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise ValueError("For 'MatrixInverse', the input is singular") from None


@register
class Cholesky(Primitive):
    """The Cholesky factor of symmetric positive-definite matrices: lower L (A = L L^T), or
    upper U = L^T with `upper`.  With Phi(M) = tril(M) with its diagonal halved and
    S = L^-T Phi(L^T dL) L^-1:  dA = (S + S^T) / 2."""

    saves = ("out",)

    def __init__(self, upper=False):
        super().__init__()
        if not isinstance(upper, bool):
            raise TypeError(f"For 'Cholesky', 'upper' must be a bool, but got {upper!r}")
        self.upper = upper

    def __call__(self, input_x):
        return apply(self, (input_x,))

    def forward(self, x):
        a = _matrices("Cholesky", x, "input_x")
        try:
            low = np.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            raise ValueError("For 'Cholesky', the input must be symmetric positive-definite") \
                from None
        out = np.swapaxes(low, -1, -2) if self.upper else low
        return np.ascontiguousarray(out, x.dtype)

    def bprop(self, saved, dout, needs):
        out = saved[0]
        low, g = (_mT(out), _mT(dout)) if self.upper else (out, dout)
        phi = _masked(_bmm(low, g, ta=True), _tril_half(low.shape[-1], low._data.dtype))
        # S = L^-T phi L^-1 = (L^-T (L^-T phi)^T)^T
        left = _solve_lower_t(low, phi)
        s = _mT(_solve_lower_t(low, _mT(left)))
        return ((s + _mT(s)) * 0.5,)


@register
class MatrixTriangularSolve(Primitive):
    """X solving op(A) X = B for triangular A (its lower or upper triangle is read, per
    `lower`); op(A) = A^T with `adjoint`. Batch axes broadcast.
    dB = op(A)^-T dX;  d op(A) = -dB X^T, masked to the triangle read."""

    inputs = ("matrix", "rhs")
    saves = ("matrix", "out")
    broadcasts = True

    def __init__(self, lower=True, adjoint=False):
        super().__init__()
        for arg, v in (("lower", lower), ("adjoint", adjoint)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'MatrixTriangularSolve', '{arg}' must be a bool, but got "
                                f"{v!r}")
        self.lower, self.adjoint = lower, adjoint

    def __call__(self, matrix, rhs):
        return apply(self, (matrix, rhs))

    def forward(self, a, b):
        _same_dtype(self.name, a, b)
        dtype = a.dtype
        a = _matrices(self.name, a, "matrix", "fc")
        b = _matrices(self.name, b, "rhs", "fc", square=False)
        if a.shape[-1] != b.shape[-2]:
            raise ValueError(f"For '{self.name}', 'rhs' must have as many rows as 'matrix', but "
                             f"got shapes {a.shape} and {b.shape}")
        tri = np.tril(a) if self.lower else np.triu(a)
        if self.adjoint:
            tri = np.conj(np.swapaxes(tri, -1, -2))
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        tri = np.broadcast_to(tri, batch + a.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
        with np.errstate(all="ignore"):
            try:
                out = np.linalg.solve(tri, b)
            except np.linalg.LinAlgError:
                raise ValueError(f"For '{self.name}', 'matrix' is singular") from None
        return out.astype(dtype, copy=False)

    def bprop(self, saved, dout, needs):
        a, x = saved
        db = _trsm(self.lower, not self.adjoint)(a, dout)
        if not needs[0]:
            return None, db
        # d op(A) = -dB X^H; op(A) = A^H gives dA = (d op(A))^H = -X dB^H
        da = -(_bmm(x, _conj(db), tb=True) if self.adjoint else _bmm(db, _conj(x), tb=True))
        n = a.shape[-1]
        mask = np.tril(np.ones((n, n))) if self.lower else np.triu(np.ones((n, n)))
        return _masked(da, mask), (db if needs[1] else None)


_TRSM = {}


def _trsm(lower, adjoint):
    key = (lower, adjoint)
    if key not in _TRSM:
        _TRSM[key] = MatrixTriangularSolve(lower, adjoint)
    return _TRSM[key]


def _solve_lower_t(low, b):
    """L^-T b for lower-triangular L."""
    return _trsm(True, True)(low, b)


@register
class MatrixInverse(Primitive):
    """The inverse of square matrices (its conjugate transpose with `adjoint`).
    dA = -out^H dout out^H (adjoint: -out dout^H out); ^H is ^T for real values."""

    saves = ("out",)

    def __init__(self, adjoint=False):
        super().__init__()
        if not isinstance(adjoint, bool):
            raise TypeError(f"For 'MatrixInverse', 'adjoint' must be a bool, but got {adjoint!r}")
        self.adjoint = adjoint

    def __call__(self, x):
        return apply(self, (x,))

    def forward(self, x):
        inv = _inv(_matrices(self.name, x, "x", "fc"))
        if self.adjoint:
            inv = np.conj(np.swapaxes(inv, -1, -2))
        return np.ascontiguousarray(inv, x.dtype)

    def bprop(self, saved, dout, needs):
        out = saved[0]
        if self.adjoint:
            return (-_bmm(_bmm(out, _conj(dout), tb=True), out),)
        out = _conj(out)
        return (-_bmm(_bmm(out, dout, ta=True), out, tb=True),)


_INV_T = MatrixInverse(adjoint=True)


def _unsqueeze2(t):
    return A.expand_dims(A.expand_dims(t, -1), -1)


@register
class MatrixDeterminant(Primitive):
    """det of square matrices.  dA = dout * det * A^-T (conj(det) A^-H for complex)."""

    saves = ("input", "out")
    inputs = ("input",)

    def __init__(self):
        super().__init__()

    def __call__(self, input):
        return apply(self, (input,))

    def forward(self, x):
        return np.asarray(np.linalg.det(_matrices(self.name, x, kinds="fc")), x.dtype)

    def bprop(self, saved, dout, needs):
        x, out = saved
        return (_unsqueeze2(dout * _conj(out)) * _INV_T(x),)


@register
class LogMatrixDeterminant(Primitive):
    """(sign, log|det|) of square matrices.  dA = d_logabsdet * A^-T (A^-H for complex; sign
    is constant)."""

    saves = ("input",)
    inputs = ("input",)
    keeps_missing = True

    def __init__(self):
        super().__init__()

    def __call__(self, input):
        return apply(self, (input,))

    def forward(self, x):
        sign, logabs = np.linalg.slogdet(_matrices(self.name, x, kinds="fc"))
        return np.asarray(sign, x.dtype), np.asarray(logabs, x.dtype)

    def bprop(self, saved, dout, needs):
        g = dout[1]
        if g is None:
            return (None,)
        if g._data.dtype.kind == "c":  # log|det| is real (held in the complex dtype)
            g = cast(FO.Real()(g), g._data.dtype)
        return (_unsqueeze2(g) * _INV_T(saved[0]),)


@register
class MatrixSolve(Primitive):
    """X solving op(A) X = B, op(A) = A^T with `adjoint`.
    dB = op(A)^-T dX;  d op(A) = -dB X^T."""

    inputs = ("matrix", "rhs")
    saves = ("matrix", "out")
    broadcasts = True

    def __init__(self, adjoint=False):
        super().__init__()
        if not isinstance(adjoint, bool):
            raise TypeError(f"For 'MatrixSolve', 'adjoint' must be a bool, but got {adjoint!r}")
        self.adjoint = adjoint

    def __call__(self, matrix, rhs):
        return apply(self, (matrix, rhs))

    def forward(self, a, b):
        _same_dtype(self.name, a, b)
        dtype = a.dtype
        a = _matrices(self.name, a, "matrix", "fc")
        b = _matrices(self.name, b, "rhs", "fc", square=False)
        if a.shape[-1] != b.shape[-2]:
            raise ValueError(f"For '{self.name}', 'rhs' must have as many rows as 'matrix', but "
                             f"got shapes {a.shape} and {b.shape}")
        if self.adjoint:
            a = np.conj(np.swapaxes(a, -1, -2))
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        try:
            out = np.linalg.solve(np.broadcast_to(a, batch + a.shape[-2:]),
                                  np.broadcast_to(b, batch + b.shape[-2:]))
        except np.linalg.LinAlgError:
            raise ValueError(f"For '{self.name}', 'matrix' is singular") from None
        return out.astype(dtype, copy=False)

    def bprop(self, saved, dout, needs):
        a, x = saved
        db = _solve(not self.adjoint)(a, dout)
        if not needs[0]:
            return None, db
        # d op(A) = -dB X^H; op(A) = A^H gives dA = (d op(A))^H = -X dB^H
        da = -(_bmm(x, _conj(db), tb=True) if self.adjoint else _bmm(db, _conj(x), tb=True))
        return da, (db if needs[1] else None)


_SOLVE = {}


def _solve(adjoint):
    if adjoint not in _SOLVE:
        _SOLVE[adjoint] = MatrixSolve(adjoint)
    return _SOLVE[adjoint]


def _copyltu(m):
    """The lower triangle of m mirrored into the upper one."""
    n = m.shape[-1]
    strict = np.tril(np.ones((n, n)), -1)
    return _masked(m, strict + np.eye(n)) + _mT(_masked(m, strict))


def _qr_grad_tall(q, r, dq, dr):
    """dA of A = QR for m >= n (reduced Q): (dQ + Q copyltu(M)) R^-T, M = R dR^T - dQ^T Q."""
    m = 0
    if dr is not None:
        m = _bmm(r, dr, tb=True)
    if dq is not None:
        m = m - _bmm(dq, q, ta=True)
    b = _bmm(q, _copyltu(m)) if not isinstance(m, int) else None
    if dq is not None:
        b = dq if b is None else b + dq
    # b R^-T = (R^-1 b^T)^T: an upper-triangular solve
    return _mT(_trsm(False, False)(r, _mT(b)))


@register
class Qr(Primitive):
    """(Q, R) with A = QR, Q orthonormal columns and R upper triangular, as LAPACK returns them;
    reduced (Q: m x k, R: k x n, k = min(m, n)) or complete (`full_matrices`: Q is m x m).
    Gradients: m >= n by dA = (dQ + Q copyltu(M)) R^-T with M = R dR^T - dQ^T Q; m < n splits
    A = [X | Y] (X square); complete Q of a tall matrix (m > n) is not unique, so has no
    gradient (as in PyTorch). Gradients of real inputs only."""

    saves = ("x", "out")
    keeps_missing = True

    def __init__(self, full_matrices=False):
        super().__init__()
        if not isinstance(full_matrices, bool):
            raise TypeError(f"For 'Qr', 'full_matrices' must be a bool, but got "
                            f"{full_matrices!r}")
        self.full_matrices = full_matrices

    def __call__(self, x):
        return apply(self, (x,))

    def forward(self, x):
        a = _matrices(self.name, x, "x", "fc", square=False)
        q, r = np.linalg.qr(a, mode="complete" if self.full_matrices else "reduced")
        return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)

    def bprop(self, saved, dout, needs):
        x, (q, r) = saved
        _real_only(self, x)
        dq, dr = dout
        m, n = x.shape[-2:]
        if self.full_matrices and m > n:
            raise RuntimeError("For 'Qr', the complete QR decomposition of a matrix with more "
                               f"rows than columns ({m} x {n}) is not differentiable: its Q is "
                               "not unique")
        if m >= n:
            return (_qr_grad_tall(q, r, dq, dr),)
        y = A.getitem(x, (Ellipsis, slice(None), slice(m, None)))
        u = A.getitem(r, (Ellipsis, slice(None), slice(0, m)))
        dy = None
        if dr is not None:
            dv = A.getitem(dr, (Ellipsis, slice(None), slice(m, None)))
            dy = _bmm(q, dv)
            extra = _bmm(y, dv, tb=True)
            dq = extra if dq is None else dq + extra
            du = A.getitem(dr, (Ellipsis, slice(None), slice(0, m)))
        else:
            du = None
        dx = _qr_grad_tall(q, u, dq, du)
        if dy is None:
            dy = A.zeros_like(y)
        return (A.Concat(-1)((dx, dy)),)


@register
class Svd(Primitive):
    """(s, u, v) with input = u diag(s) v^T, s descending (MindSpore returns v, not v^T); u and
    v are m x k and n x k (k = min(m, n)), or square with `full_matrices`. Without `compute_uv`,
    u and v are 1-element zero tensors, as MindSpore's.

    dA = u [(F o (u^T du - du^T u)) S + diag(ds) + S (F o (v^T dv - dv^T v))] v^T
         + (I - u u^T) du S^-1 v^T + u S^-1 dv^T (I - v v^T),  F_ij = 1 / (s_j^2 - s_i^2),
    on the first k columns of u and v (the others, with `full_matrices`, are not unique). It
    needs distinct nonzero singular values, and is gauge-invariant only for functions that do
    not depend on the signs of the singular vectors. Gradients of real inputs only."""

    inputs = ("input",)
    saves = ("input", "out")
    keeps_missing = True

    def __init__(self, full_matrices=False, compute_uv=True):
        super().__init__()
        for arg, v in (("full_matrices", full_matrices), ("compute_uv", compute_uv)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'Svd', '{arg}' must be a bool, but got {v!r}")
        self.full_matrices, self.compute_uv = full_matrices, compute_uv

    def __call__(self, input):
        return apply(self, (input,))

    def forward(self, x):
        a = _matrices(self.name, x, "input", "fc", square=False)
        if not self.compute_uv:
            s = np.linalg.svd(a, compute_uv=False).astype(x.dtype, copy=False)
            zero = np.zeros((1,), x.dtype)
            return s, zero, zero.copy()
        u, s, vh = np.linalg.svd(a, full_matrices=self.full_matrices)
        v = np.conj(np.swapaxes(vh, -1, -2))
        return (s.astype(x.dtype, copy=False), u.astype(x.dtype, copy=False),
                np.ascontiguousarray(v, x.dtype))

    def bprop(self, saved, dout, needs):
        x, out = saved
        _real_only(self, x)
        ds, du, dv = dout
        if not self.compute_uv:
            du = dv = None
            _, u, v = _SVD_THIN(x)
        else:
            _, u, v = out
        s = out[0]
        m, n = x.shape[-2:]
        k = min(m, n)
        if self.compute_uv and self.full_matrices and m != n:
            cols = (Ellipsis, slice(None), slice(0, k))
            u, v = A.getitem(u, cols), A.getitem(v, cols)
            du = A.getitem(du, cols) if du is not None else None
            dv = A.getitem(dv, cols) if dv is not None else None
        if du is None and dv is None:
            return (_bmm(u * A.expand_dims(ds, -2), v, tb=True),)
        eye = np.eye(k)
        core = 0 if ds is None else _masked(A.expand_dims(ds, -1), eye)
        s2 = s * s
        f = _masked(1.0 / (A.expand_dims(s2, -2) - A.expand_dims(s2, -1) + _masked(
            A.ones_like(A.expand_dims(s2, -1)), eye)), 1.0 - eye)
        srow, scol = A.expand_dims(s, -2), A.expand_dims(s, -1)
        extra = 0
        if du is not None:
            utdu = _bmm(u, du, ta=True)
            core = core + f * (utdu - _mT(utdu)) * srow
            if m > k:
                proj = du - _bmm(u, utdu)
                extra = _bmm(proj / srow, v, tb=True)
        if dv is not None:
            vtdv = _bmm(v, dv, ta=True)
            core = core + scol * (f * (vtdv - _mT(vtdv)))
            if n > k:
                proj = dv - _bmm(v, vtdv)
                extra = extra + _bmm(u / srow, proj, tb=True)
        return (_bmm(_bmm(u, core), v, tb=True) + extra,)


_SVD_THIN = Svd(False, True)


# Pade coefficients of degree 13 and the 1-norm bound up to which it is exact to double
# precision after scaling (Higham, "The scaling and squaring method for the matrix exponential
# revisited", 2005).
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def _expm(a):
    """exp of a stack of square matrices by scaling and squaring with a [13/13] Pade
    approximant (computed in float64 / complex128)."""
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    a = a.astype(wide)
    if a.shape[-1] == 0:
        return a.copy()
    norm = np.abs(a).sum(axis=-2).max(axis=-1).max(initial=0.0)
    if not np.isfinite(norm):  # inf or NaN entries: no finite exponential to approximate
        return np.where(np.isfinite(a).all(axis=(-2, -1), keepdims=True), np.nan, a * np.nan)
    squarings = max(0, math.ceil(math.log2(norm / _THETA13))) if norm > _THETA13 else 0
    a = a / (2.0 ** squarings)
    b = _PADE13
    ident = np.broadcast_to(np.eye(a.shape[-1], dtype=wide), a.shape)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 \
        + b[0] * ident
    out = np.linalg.solve(v - u, v + u)
    for _ in range(squarings):
        out = out @ out
    return out


@register
class MatrixExp(Primitive):
    """exp of square matrices (batched), by scaling and squaring with a Pade approximant.
    dA = the upper-right block of exp([[A^H, dout], [0, A^H]]) (the adjoint of the Frechet
    derivative), itself a MatrixExp, so differentiable again."""

    inputs = ("input",)
    saves = ("input",)

    def __init__(self):
        super().__init__()

    def __call__(self, input):
        return apply(self, (input,))

    def forward(self, x):
        if x.dtype.kind not in "fc":
            raise TypeError(f"For 'MatrixExp', 'input' must be a float or complex tensor, but "
                            f"got {mstype.from_np(x.dtype)}")
        _matrices(self.name, x, kinds="fc")
        return _expm(x).astype(x.dtype)

    def bprop(self, saved, dout, needs):
        x = saved[0]
        n = x.shape[-1]
        at = _conj(_mT(x))
        zero = A.zeros_like(at)
        block = A.Concat(-2)((A.Concat(-1)((at, dout)), A.Concat(-1)((zero, at))))
        big = _MATRIX_EXP(block)
        return (A.getitem(big, (Ellipsis, slice(0, n), slice(n, None))),)


_MATRIX_EXP = MatrixExp()


@register
class Geqrf(Primitive):
    """The QR decomposition in LAPACK's geqrf form: (y, tau), y holding R on and above the
    diagonal and the Householder vectors (unit leading entry implied) below it; Q = H_1 ... H_k
    with H_i = I - tau_i v_i v_i^T. Not differentiable (as MindSpore's)."""

    inputs = ("input",)
    differentiable = False

    def __init__(self):
        super().__init__()

    def __call__(self, input):
        return apply(self, (input,))

    def forward(self, x):
        a = _matrices(self.name, x, kinds="fc", square=False)
        m, n = a.shape[-2:]
        flat = a.reshape((math.prod(a.shape[:-2]), m, n))
        ys = np.empty(flat.shape, a.dtype)
        taus = np.empty((flat.shape[0], min(m, n)), a.dtype)
        for i, mat in enumerate(flat):
            h, tau = np.linalg.qr(mat, mode="raw")
            ys[i], taus[i] = h.T, tau
        return (ys.reshape(a.shape).astype(x.dtype, copy=False),
                taus.reshape(a.shape[:-2] + (min(m, n),)).astype(x.dtype, copy=False))

    def bprop(self, saved, dout, needs):
        return (None,)


@register
class Eig(Primitive):
    """Eigenvalues (and with `compute_v`, right eigenvectors of unit norm) of square matrices,
    complex64 for float32 input and complex128 for float64. Without `compute_v` the second output
    is an empty complex tensor. Each vector is fixed up to a complex phase, as LAPACK leaves it;
    the order of the eigenvalues is LAPACK's.

    The gradient (which MindSpore does not define) transposes the first-order perturbation with
    M = V^-1 dA V:  dw = diag(M);  dV = V (F o M) - V Re(diag(V^H V (F o M))),
    F_ij = 1 / (w_j - w_i) off the diagonal. It needs distinct eigenvalues, and for the vectors a
    function that does not depend on their phases (such as |V|^2)."""

    saves = ("x", "out")
    keeps_missing = True

    def __init__(self, compute_v=False):
        super().__init__()
        if not isinstance(compute_v, bool):
            raise TypeError(f"For 'Eig', 'compute_v' must be a bool, but got {compute_v!r}")
        self.compute_v = compute_v

    def __call__(self, x):
        return apply(self, (x,))

    def forward(self, x):
        a = _matrices(self.name, x, "x", "fc")
        cdt = np.complex64 if a.dtype in (np.float32, np.complex64) else np.complex128
        if not self.compute_v:
            return np.linalg.eigvals(a).astype(cdt), np.zeros((0,), cdt)
        w, v = np.linalg.eig(a)
        return w.astype(cdt), v.astype(cdt)

    def bprop(self, saved, dout, needs):
        x, (w, v) = saved
        dw, dv = dout
        if not self.compute_v:
            dv = None
            w, v = _EIG_V(x)
        v_inv = _INVERSE(v)
        n = x.shape[-1]
        eye = np.eye(n)
        cdt = w._data.dtype

        def perturbation(da):
            m = _bmm(_bmm(v_inv, cast(da, cdt)), v)
            outs = [R.reduce_sum(_masked(m, eye), -1)]
            if dv is not None:
                gap = A.expand_dims(w, -2) - A.expand_dims(w, -1) + const(eye.astype(cdt))
                f = _masked(1.0 / gap, 1.0 - eye)
                du = _bmm(v, f * m)
                stretch = FO.Real()(R.reduce_sum(FO.Conj()(v) * du, -2))
                outs.append(du - v * cast(A.expand_dims(stretch, -2), cdt))
            # real and imaginary parts, paired with those of the cotangents: the real loss
            # Re <dout, out> whose gradient the complex convention (dL/dRe + i dL/dIm) asks for
            return tuple(part(o) for o in outs for part in (FO.Real(), FO.Imag()))

        def parts(c):
            return (None, None) if c is None else (FO.Real()(c), FO.Imag()(c))

        cots = parts(dw) + (parts(dv) if dv is not None else ())
        return self.vjp_of(perturbation, (A.zeros_like(x),), cots, (True,))


_EIG_V = Eig(True)
_INVERSE = MatrixInverse()


def _gauss_legendre(m):
    nodes, weights = np.polynomial.legendre.leggauss(m)
    return (nodes + 1) / 2, weights / 2


_LOG_NODES = _gauss_legendre(12)


def _logm(a):
    """The principal logarithm of a stack of complex matrices by inverse scaling and squaring:
    square roots (Denman-Beavers iterations) until A^(1/2^k) is within 0.1 of I, then
    log(I + X) by the 12-point Gauss-Legendre quadrature of X (I + t X)^-1 on [0, 1] (its
    [12/12] Pade approximant), times 2^k."""
    a = a.astype(np.complex128)
    n = a.shape[-1]
    ident = np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape)
    roots = 0
    while np.abs(a - ident).sum(axis=-2).max(initial=0.0) > 0.1:
        if roots == 64:
            raise ValueError("For 'MatrixLogarithm', the square roots do not converge: the "
                             "input has an eigenvalue on the closed negative real axis")
        y, z = a, ident
        for _ in range(100):
            y_inv, z_inv = np.linalg.inv(y), np.linalg.inv(z)
            y, z, prev = (y + z_inv) / 2, (z + y_inv) / 2, y
            if np.abs(y - prev).max(initial=0.0) <= 1e-15 * np.abs(y).max(initial=1.0):
                break
        a, roots = y, roots + 1
    x = a - ident
    out = np.zeros_like(x)
    for t, w in zip(*_LOG_NODES):
        out = out + w * np.linalg.solve(ident + t * x, x)
    return out * 2.0 ** roots


@register
class MatrixLogarithm(Primitive):
    """The principal matrix logarithm of complex square matrices (batched); no eigenvalue may lie
    on the closed negative real axis. Not differentiable (as MindSpore's)."""

    differentiable = False

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        return apply(self, (x,))

    def forward(self, x):
        if x.dtype.kind != "c":
            raise TypeError(f"For 'MatrixLogarithm', the input must be a complex64 or complex128 "
                            f"tensor, but got {mstype.from_np(x.dtype)}")
        _matrices(self.name, x, "x", "c")
        if x.shape[-1] == 0:
            return x.copy()
        with np.errstate(all="ignore"):
            return _logm(x).astype(x.dtype)

    def bprop(self, saved, dout, needs):
        return (None,)
