"""The linalg family against MindSpore 2.10 (fixture made by data/make_mindspore_linalg.py:
the same expressions, their outputs and gradients), its signatures, gradients to second order
of the composites, and the errors and dtypes bad input gets."""
import inspect
import os

import numpy as np
import pytest
import scipy.linalg as sl

import minispore as ms
from minispore import Tensor, ops
from minispore.ops import operations as P
from minispore.testing import check_grads

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_linalg.npz"))
CASES = sorted({k.split(":")[0] for k in DATA.files if k.endswith(":expr")
                and not k.startswith("index:")})
INDICES = sorted(k.split(":")[1] for k in DATA.files if k.startswith("index:")
                 and k.endswith(":expr"))
ENV = {"ops": ops, "Tensor": Tensor, "ms": ms, "np": np, "w3": Tensor(DATA["w3"])}
# Cases whose MindSpore CPU run failed: compared with NumPy below instead.
NO_KERNEL = {k.split(":")[0] for k in DATA.files if k.endswith(":error")}
# MindSpore 2.10's CPU gradients that disagree with central differences of its own forward
# (checked in test_mindspore_gradient_bugs): minispore keeps the true gradient.
MINDSPORE_WRONG_GRADIENT = {
    "MatrixInverse_adjoint": "MindSpore's MatrixInverse bprop ignores `adjoint`: it returns "
                             "the transpose of the gradient",
    "cholesky_inverse": "MindSpore's CholeskyInverse gradient is not that of its forward",
    "inverse_complex": "MindSpore's MatrixInverse gradient of complex input misses conjugates",
    "det_complex": "MindSpore's MatrixDeterminant gradient of complex input misses conjugates",
    "matrix_solve_complex": "MindSpore's MatrixSolve gradient of complex input misses "
                            "conjugates",
}


def _fn(name):
    n = len([k for k in DATA.files if k.startswith(f"{name}:x")])
    expr = str(DATA[f"{name}:expr"])
    return eval("lambda " + ", ".join(f"x{i}" for i in range(n)) + ": " + expr, ENV), n


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


@pytest.mark.parametrize("name", [c for c in CASES if c not in NO_KERNEL])
def test_matches_mindspore(name):
    fn, n = _fn(name)
    xs = [Tensor(DATA[f"{name}:x{i}"]) for i in range(n)]
    outs = _outputs(fn(*xs))
    for k, o in enumerate(outs):
        want = DATA[f"{name}:out{k}"]
        if want.dtype.kind == "U":
            assert o is None, (name, k)
            continue
        assert o.asnumpy().dtype == want.dtype, (name, k, o.asnumpy().dtype, want.dtype)
        np.testing.assert_allclose(o.asnumpy(), want, rtol=2e-4, atol=2e-4, err_msg=name)
    grads = sorted(k for k in DATA.files if k.startswith(f"{name}:d"))
    if not grads or name in MINDSPORE_WRONG_GRADIENT:
        return
    gs = {k: Tensor(DATA[f"{name}:g{k}"]) for k in range(len(outs))
          if f"{name}:g{k}" in DATA.files}

    def loss(*args):
        total = 0
        for k, o in enumerate(_outputs(fn(*args))):
            if k in gs:
                total = total + (o * gs[k]).sum()
        return total
    got = _outputs(ms.grad(loss, tuple(range(len(grads))))(*xs))
    for i, g in enumerate(got):
        np.testing.assert_allclose(g.asnumpy(), DATA[f"{name}:d{i}"], rtol=1e-3, atol=1e-3,
                                   err_msg=f"{name}: gradient of x{i}")


@pytest.mark.parametrize("name", INDICES)
def test_integer_results_match_mindspore(name):
    got = eval(str(DATA[f"index:{name}:expr"]), ENV).asnumpy()
    want = DATA[f"index:{name}"]
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def test_signatures_match_mindspore():
    for key in (k for k in DATA.files if k.startswith("sig:")):
        name = key[4:]
        obj = getattr(ops, name)
        sig = inspect.signature(obj.__init__ if isinstance(obj, type) else obj)
        assert str(sig) == str(DATA[key]), (name, str(sig), str(DATA[key]))


@pytest.mark.parametrize("name", sorted(MINDSPORE_WRONG_GRADIENT))
def test_mindspore_gradient_bugs(name):
    """minispore's gradient (dL/dRe + i dL/dIm for complex inputs) is the central difference of
    the (shared) forward; MindSpore's saved one is not."""
    fn, n = _fn(name)
    wide = {"f": np.float64, "c": np.complex128}
    xs = [DATA[f"{name}:x{i}"].astype(wide[DATA[f"{name}:x{i}"].dtype.kind]) for i in range(n)]
    gs = [Tensor(DATA[k].astype(np.float64)) for k in sorted(DATA.files)
          if k.startswith(f"{name}:g")]

    def loss(*args):
        return sum((o * g).sum() for o, g in zip(_outputs(fn(*args)), gs))

    def at(x0):
        return float(loss(Tensor(x0), *map(Tensor, xs[1:])).asnumpy())
    ours = ms.grad(loss)(*(Tensor(x) for x in xs)).asnumpy()
    numeric = np.zeros_like(xs[0])
    steps = (1.0, 1j) if xs[0].dtype.kind == "c" else (1.0,)
    for idx in np.ndindex(xs[0].shape):
        for unit in steps:
            step = np.zeros_like(xs[0])
            step[idx] = 1e-6 * unit
            numeric[idx] += unit * (at(xs[0] + step) - at(xs[0] - step)) / 2e-6
    np.testing.assert_allclose(ours, numeric, rtol=1e-6, atol=1e-8)
    assert not np.allclose(DATA[f"{name}:d0"], numeric, rtol=1e-2, atol=1e-2)


def test_euclidean_norm_has_no_mindspore_cpu_kernel_and_follows_its_docs():
    # MindSpore 2.10 has no CPU kernel for EuclideanNorm: checked against NumPy.
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    out = ops.EuclideanNorm()(Tensor(x), Tensor(np.array([1], np.int32)))
    np.testing.assert_allclose(out.asnumpy(), np.sqrt((x * x).sum(1)), rtol=1e-6)
    out = ops.EuclideanNorm(True)(Tensor(x), (0, 1))
    assert out.shape == (1, 1)
    assert ops.EuclideanNorm()(Tensor(np.array([3, 4], np.int32)), 0).asnumpy() == 5


# ---- ops MindSpore has no CPU kernel for: against SciPy ------------------------------------------

def test_matrix_exp_against_scipy():
    rng = np.random.default_rng(1)
    for scale in (0.01, 1.0, 8.0):
        x = rng.standard_normal((2, 4, 4)) * scale
        got = ops.matrix_exp(Tensor(x)).asnumpy()
        want = np.stack([sl.expm(m) for m in x])
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-11 * np.abs(want).max())
    out = ops.MatrixExp()(Tensor(x.astype(np.float32)))
    assert out.dtype == ms.float32
    with pytest.raises(TypeError):
        ops.matrix_exp(Tensor(np.eye(2, dtype=np.int32)))


def test_ormqr_against_scipy():
    # MindSpore 2.10 has no CPU kernel for Ormqr: checked against LAPACK's dormqr.
    rng = np.random.default_rng(2)
    a, c = rng.standard_normal((4, 3)), rng.standard_normal((4, 2))
    h, tau = sl.lapack.dgeqrf(a)[:2]
    q = sl.lapack.dorgqr(np.hstack([h, np.zeros((4, 1))]), np.append(tau, 0.0))[0]
    for left, trans, want in ((True, False, q @ c), (True, True, q.T @ c),
                              (False, False, c.T @ q), (False, True, c.T @ q.T)):
        other = c if left else c.T
        got = ops.ormqr(Tensor(h), Tensor(tau), Tensor(other), left, trans).asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    check_grads(lambda x, t, o: ops.ormqr(x, t, o), [Tensor(h), Tensor(tau), Tensor(c)],
                order=2)


def test_eig_against_numpy():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 4, 4))
    w, v = ops.eig(Tensor(a))
    assert w.dtype == ms.complex128 and v.dtype == ms.complex128
    wn, vn = w.asnumpy(), v.asnumpy()
    np.testing.assert_allclose(a @ vn, vn * wn[..., None, :], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(vn, axis=-2), 1.0, rtol=1e-12)
    w32 = ops.eigvals(Tensor(a.astype(np.float32)))
    assert w32.dtype == ms.complex64
    np.testing.assert_allclose(np.sort_complex(w32.asnumpy()), np.sort_complex(wn),
                               rtol=1e-4, atol=1e-4)
    with pytest.raises(TypeError):
        ops.eig(Tensor(np.eye(2, dtype=np.int32)))


# ---- gradients of the composites to second order -------------------------------------------------

def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _general(n, batch=(), seed=0):
    return _rand(*batch, n, n, seed=seed) + (n + 1) * np.eye(n)


COMPOSITES = {
    "cholesky_inverse": (lambda x: ops.cholesky_inverse(ops.tril(x)), [_general(3)]),
    "cholesky_inverse_upper": (lambda x: ops.cholesky_inverse(ops.triu(x), True),
                               [_general(3, (2,))]),
    "cholesky_solve": (lambda b, x: ops.cholesky_solve(b, ops.tril(x)),
                       [_rand(2, 3, 2), _general(3, (2,))]),
    "cholesky_solve_upper": (lambda b, x: ops.cholesky_solve(b, ops.triu(x), True),
                             [_rand(3, 2), _general(3)]),
    "logdet": (lambda x: ops.logdet(x), [_general(3, (2,))]),
    "matrix_power": (lambda x: ops.matrix_power(x, 3), [_rand(3, 3)]),
    "matrix_power_neg": (lambda x: ops.matrix_power(x, -2), [_general(3)]),
    "trace": (lambda x: ops.trace(x), [_rand(3, 4)]),
    "addbmm": (lambda i, a, b: ops.addbmm(i, a, b, beta=0.5, alpha=2),
               [_rand(2, 4), _rand(3, 2, 5), _rand(3, 5, 4)]),
    "addmv": (lambda i, a, b: ops.addmv(i, a, b, beta=2, alpha=3),
              [_rand(2), _rand(2, 3), _rand(3)]),
    "addr": (lambda i, a, b: ops.addr(i, a, b), [_rand(2, 3), _rand(2), _rand(3)]),
    "baddbmm": (lambda i, a, b: ops.baddbmm(i, a, b), [_rand(3, 2, 4), _rand(3, 2, 5),
                                                       _rand(3, 5, 4)]),
    # baddbmm_ext has no MindSpore CPU kernel (Ascend only): the same formula as baddbmm
    "baddbmm_ext": (lambda i, a, b: ops.baddbmm_ext(i, a, b, beta=0.5, alpha=-2),
                    [_rand(2, 2, 4), _rand(2, 2, 5), _rand(2, 5, 4)]),
    "batch_dot": (lambda a, b: ops.batch_dot(a, b, (2, 1)), [_rand(2, 3, 2, 2), _rand(2, 2, 3)]),
    "block_diag": (lambda a, b, c: ops.block_diag(a, b, c), [_rand(1, 2), _rand(3), _rand(2, 2)]),
    "cdist": (lambda a, b: ops.cdist(a, b), [_rand(2, 3), _rand(4, 3, seed=1)]),
    "cdist_p3": (lambda a, b: ops.cdist(a, b, 3.0), [_rand(2, 2, 3), _rand(2, 4, 3, seed=1)]),
    "pdist": (lambda a: ops.pdist(a, 1.5), [_rand(4, 3)]),
    "cond": (lambda a: ops.cond(a), [_general(3)]),
    "cond_fro": (lambda a: ops.cond(a, "fro"), [_general(3)]),
    "cov": (lambda a, w: ops.cov(a, aweights=w), [_rand(3, 5), np.abs(_rand(5)) + 0.5]),
    "cross": (lambda a, b: ops.cross(a, b), [_rand(2, 3), _rand(2, 3, seed=1)]),
    "diag_embed": (lambda a: ops.diag_embed(a, 1, 0, 2), [_rand(2, 3)]),
    "diagonal_scatter": (lambda a, b: ops.diagonal_scatter(a, b, -1, 1, 2),
                         [_rand(2, 3, 3), _rand(2, 2)]),
    "dist": (lambda a, b: ops.dist(a, b, 3), [_rand(2, 3), _rand(3, seed=1)]),
    "ger": (lambda a, b: ops.ger(a, b), [_rand(2), _rand(3)]),
    "kron": (lambda a, b: ops.kron(a, b), [_rand(2), _rand(2, 2, 3)]),
    "lstsq": (lambda a, b: ops.lstsq(a, b), [_rand(5, 3), _rand(5, 2)]),
    "lstsq_wide": (lambda a, b: ops.lstsq(a, b), [_rand(2, 4), _rand(2)]),
    "MatrixSolveLs": (lambda a, b: ops.MatrixSolveLs()(a, b, 0.5),
                      [_rand(2, 4, 3), _rand(2, 4, 2)]),
    "lu_solve": (lambda b, lu: ops.lu_solve(b, lu, Tensor(np.array([2, 3, 3], np.int32))),
                 [_rand(3, 2), _general(3)]),
    "lu_unpack": (lambda lu: ops.lu_unpack(lu, Tensor(np.array([2, 2], np.int32)))[1:],
                  [_rand(3, 2)]),
    "matrix_band_part": (lambda a: ops.matrix_band_part(a, 1, 0), [_rand(2, 3, 4)]),
    "matrix_diag": (lambda a, p: ops.matrix_diag(a, (-1, 1), 3, 4, p), [_rand(3, 3), _rand()]),
    "matrix_diag_part": (lambda a, p: ops.matrix_diag_part(a, (-1, 1), p), [_rand(3, 4), _rand()]),
    "matrix_set_diag": (lambda a, d: ops.matrix_set_diag(a, d, (-1, 0)),
                        [_rand(3, 4), _rand(2, 3)]),
    "mv": (lambda a, b: ops.mv(a, b), [_rand(4, 3), _rand(3)]),
    "orgqr": (lambda a, t: ops.orgqr(a, t), [_rand(4, 3), np.abs(_rand(2)) + 0.2]),
    "pinv": (lambda a: ops.pinv(a), [_rand(4, 3)]),
    "vector_norm": (lambda a: ops.vector_norm(a, 3, (0, 1)), [_rand(3, 4)]),
    "matrix_norm_nuc": (lambda a: ops.NuclearNorm((1, 2))(a), [_rand(2, 3, 4)]),
    "vecdot": (lambda a, b: ops.vecdot(a, b, axis=0), [_rand(4, 3), _rand(4, 3, seed=1)]),
    "vander": (lambda a: ops.vander(a, 4), [_rand(3)]),
    "renorm": (lambda a: ops.renorm(a, 2, 0, 1.5), [_rand(4, 3)]),
    "TridiagonalMatMul": (lambda a, b, c, r: ops.TridiagonalMatMul()(a, b, c, r),
                          [_rand(2, 1, 3), _rand(2, 1, 3), _rand(2, 1, 3), _rand(2, 3, 2)]),
    "DiagPart": (lambda a: ops.DiagPart()(a), [_rand(2, 3, 2, 3)]),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composite_gradients_to_second_order(name):
    fn, args = COMPOSITES[name]
    check_grads(fn, [Tensor(a) for a in args], order=2)


def _complex_cases():
    """Complex inputs built from a real x (the gradient check's variable), and the real and
    imaginary parts of the result: gradients of complex ops to second order."""
    rng = np.random.default_rng(4)
    c = Tensor(rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)))
    b = Tensor(rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2)))
    lift = lambda a: ops.cast(a, ms.complex128) * c + Tensor(3 * np.eye(3) + 0j)
    parts = lambda z: (ops.real(z), ops.imag(z))
    return {
        "matmul": lambda a: parts(ops.matmul(lift(a), c)),
        "BatchMatMul_tt": lambda a: parts(P.BatchMatMul(True, True)(lift(a), c)),
        "inverse": lambda a: parts(ops.inverse(lift(a))),
        "MatrixInverse_adjoint": lambda a: parts(P.MatrixInverse(True)(lift(a))),
        "det": lambda a: parts(ops.det(lift(a))),
        "slogdet": lambda a: parts(ops.slogdet(lift(a))[1]),
        "matrix_solve": lambda a: parts(ops.matrix_solve(lift(a), b * lift(a)[:, :2])),
        "matrix_solve_adjoint": lambda a: parts(ops.matrix_solve(lift(a), b, True)),
        "MatrixTriangularSolve": lambda a: parts(P.MatrixTriangularSolve(False, True)(
            lift(a), b * lift(a)[:, :2])),
        "matrix_exp": lambda a: parts(ops.matrix_exp(lift(a) * 0.3)),
        "eig": lambda a: (parts(ops.eig(a)[0]) + (ops.abs(ops.eig(a)[1]),)),
    }


@pytest.mark.parametrize("name", sorted(_complex_cases()))
def test_complex_gradients_to_second_order(name):
    x = Tensor(np.random.default_rng(5).standard_normal((3, 3)) + np.diag([0.0, 2.0, 4.0]))
    check_grads(_complex_cases()[name], [x], order=2)


# ---- against NumPy on float64 ------------------------------------------------------------------

def test_values_against_numpy():
    a, b = _general(3, (2,)), _rand(2, 3, 2)
    np.testing.assert_allclose(ops.cholesky_solve(Tensor(b), ops.cholesky(Tensor(
        a @ np.swapaxes(a, -1, -2)))).asnumpy(), np.linalg.solve(a @ np.swapaxes(a, -1, -2), b),
        rtol=1e-10)
    np.testing.assert_allclose(ops.logdet(Tensor(a)).asnumpy(), np.log(np.linalg.det(a)),
                               rtol=1e-12)
    x = _rand(5, 3)
    np.testing.assert_allclose(ops.pinv(Tensor(x)).asnumpy(), np.linalg.pinv(x), rtol=1e-10)
    y = _rand(5, seed=2)
    np.testing.assert_allclose(ops.lstsq(Tensor(x), Tensor(y)).asnumpy(),
                               np.linalg.lstsq(x, y, rcond=None)[0], rtol=1e-10)
    np.testing.assert_allclose(ops.kron(Tensor(x[:2]), Tensor(a[0])).asnumpy(),
                               np.kron(x[:2], a[0]), rtol=1e-12)
    np.testing.assert_allclose(ops.vander(Tensor(x[0]), 4).asnumpy(), np.vander(x[0], 4),
                               rtol=1e-12)
    np.testing.assert_allclose(ops.cov(Tensor(x.T), correction=0).asnumpy(),
                               np.cov(x.T, bias=True), rtol=1e-12)
    rank_deficient = np.outer(_rand(5), _rand(3, seed=3))
    np.testing.assert_allclose(
        ops.MatrixSolveLs(fast=False)(Tensor(rank_deficient), Tensor(x[:, :2]), 0.0).asnumpy(),
        np.linalg.lstsq(rank_deficient, x[:, :2], rcond=None)[0], rtol=1e-8, atol=1e-10)
    wide = _rand(2, 4)
    np.testing.assert_allclose(ops.lstsq(Tensor(wide), Tensor(x[:2, 0])).asnumpy(),
                               np.linalg.lstsq(wide, x[:2, 0], rcond=None)[0], rtol=1e-10)
    np.testing.assert_allclose(ops.block_diag(Tensor(x[:1]), Tensor(a[0])).asnumpy(),
                               sl.block_diag(x[:1], a[0]))


def test_qr_and_svd_gradients_are_gauge_invariant_order_two():
    x = Tensor(_rand(2, 4, 3))

    def svd_parts(t):
        s, u, v = ops.svd(t)
        return s, ops.matmul(u * Tensor(np.arange(1.0, 4.0)), v.swapaxes(-1, -2))
    check_grads(svd_parts, [x], order=2)
    check_grads(lambda t: ops.qr(t), [x], order=2)
    check_grads(lambda t: ops.qr(t.swapaxes(-1, -2), "complete"), [x], order=2)
    with pytest.raises(RuntimeError, match="not differentiable"):
        ms.grad(lambda t: ops.qr(t, "complete")[0].sum())(x)


def _naive_diag_part(x, k0, k1, pad, align):
    """The definition: row k1 - d holds x[i, i + d] in order, padded on the side `align` says
    (the first word for d >= 0, the second for d <= 0; LEFT means padded on the right)."""
    rows, cols = x.shape
    diags = [[x[i, i + d] for i in range(rows) if 0 <= i + d < cols] for d in range(k1, k0 - 1, -1)]
    width = max(len(v) for v in diags)
    sup, sub = align.split("_")
    out = []
    for d, v in zip(range(k1, k0 - 1, -1), diags):
        left = (d >= 0 and sup == "LEFT") or (d <= 0 and sub == "LEFT")
        fill = [pad] * (width - len(v))
        out.append(v + fill if left else fill + v)
    return np.array(out)


@pytest.mark.parametrize("align", ["LEFT_RIGHT", "LEFT_LEFT", "RIGHT_LEFT", "RIGHT_RIGHT"])
@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4)])
def test_matrix_diag_family_by_definition(align, shape):
    x = _rand(*shape)
    rows, cols = shape
    for k0, k1 in ((-1, 1), (-(rows - 1), 0), (0, cols - 1), (1, 2), (-2, -1)):
        want = _naive_diag_part(x, k0, k1, -7.0, align)
        part = ops.matrix_diag_part(Tensor(x), (k0, k1), -7.0, align)
        np.testing.assert_array_equal(part.asnumpy(), want)
        new = _rand(*want.shape, seed=1)
        written = ops.matrix_set_diag(Tensor(x), Tensor(new), (k0, k1), align)
        back = ops.matrix_diag_part(written, (k0, k1), -7.0, align).asnumpy()
        np.testing.assert_array_equal(back[want != -7.0], new[want != -7.0])
        i, j = np.indices(shape)
        off_band = (j - i < k0) | (j - i > k1)
        np.testing.assert_array_equal(written.asnumpy()[off_band], x[off_band])
        built = ops.matrix_diag(Tensor(new), (k0, k1), rows, cols, 0.0, align).asnumpy()
        np.testing.assert_array_equal(built[~off_band], written.asnumpy()[~off_band])
        np.testing.assert_array_equal(built[off_band], 0.0)


# ---- errors and dtypes ---------------------------------------------------------------------------

def test_errors():
    f32 = Tensor(np.ones((2, 3), np.float32))
    ints = Tensor(np.eye(3, dtype=np.int32))
    with pytest.raises(ValueError):
        ops.cholesky(Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError):
        ops.cholesky(f32)
    with pytest.raises(ValueError):
        ops.cholesky(Tensor(-np.eye(2, dtype=np.float32)))
    for fn in (ops.cholesky, ops.det, ops.inverse, ops.slogdet, ops.matrix_exp):
        with pytest.raises(TypeError):
            fn(ints)
    with pytest.raises(TypeError):
        ops.qr(f32, "r")
    with pytest.raises(TypeError):
        ops.svd(Tensor(np.ones((2, 2), np.int32)))
    with pytest.raises(ValueError):
        ops.det(f32)
    with pytest.raises(ValueError):
        ops.inverse(Tensor(np.ones((2, 2), np.float32)))
    with pytest.raises(TypeError):
        ops.ger(Tensor(np.ones(2, np.int32)), Tensor(np.ones(2, np.int32)))
    with pytest.raises(TypeError):
        ops.addr(Tensor(np.ones((2, 2), bool)), Tensor(np.ones(2, bool)), Tensor(np.ones(2, bool)))
    with pytest.raises(ValueError):
        ops.cross(f32[:, :2], f32[:, :2])
    with pytest.raises(TypeError):
        ops.dist(f32, f32, 2.5)
    with pytest.raises(TypeError):
        ops.renorm(f32, 2.5, 0, 1.0)
    with pytest.raises(ValueError):
        ops.trace(Tensor(np.ones((2, 2, 2), np.float32)))
    with pytest.raises(ValueError):
        ops.pdist(Tensor(np.ones((2, 2, 3), np.float32)))
    with pytest.raises(ValueError):
        ops.diagonal_scatter(Tensor(np.zeros((2, 3, 3))), Tensor(np.ones((3, 2))), -1, 1, 2)
    with pytest.raises(ValueError):
        ops.matrix_diag(Tensor(np.ones((2, 2))), Tensor(np.array([-1, 0])), 5, 1)
    with pytest.raises(ValueError):
        ops.matrix_set_diag(Tensor(np.ones((3, 3))), Tensor(np.ones(2)))
    with pytest.raises(TypeError):
        ops.Lstsq(l2_regularizer=0.5)
    with pytest.raises(ValueError):
        ops.lu_unpack(Tensor(np.ones((3, 3))), Tensor(np.array([4, 1, 1], np.int32)))
    with pytest.raises(ValueError):
        ops.NuclearNorm()(Tensor(np.ones((2, 2, 2), np.float32)))
    with pytest.raises(TypeError):
        ops.matrix_power(f32, 1.5)
    with pytest.raises(ValueError):
        ops.matrix_power(Tensor(np.eye(2, dtype=np.int32)), -1)
    with pytest.raises(ValueError):
        ops.cdist(f32, f32, -1.0)
    with pytest.raises(ValueError, match="align"):
        ops.MatrixDiagV3("UP")


def test_beta_zero_still_reads_input():
    # as MindSpore's: beta * input is computed, so a NaN in input stays NaN
    out = ops.addmv(Tensor(np.array([np.nan, 1.0])), Tensor(np.ones((2, 3))),
                    Tensor(np.ones(3)), beta=0)
    np.testing.assert_array_equal(np.isnan(out.asnumpy()), [True, False])
    assert out.asnumpy()[1] == 3.0


def test_dtypes():
    a32 = Tensor(np.eye(3, dtype=np.float32) * 2)
    for fn in (ops.cholesky, ops.det, ops.inverse, ops.matrix_exp, lambda t: ops.svd(t)[1],
               lambda t: ops.qr(t)[0], lambda t: ops.slogdet(t)[1], ops.pinv, ops.trace):
        assert fn(a32).dtype == ms.float32
    assert ops.cholesky(Tensor(np.eye(2, dtype=np.float16))).dtype == ms.float16
    assert ops.cov(Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))).dtype == ms.float32
    assert ops.vecdot(Tensor(np.array([1, 2], np.int32)), Tensor(np.array([3, 4], np.int32))) \
        .dtype == ms.int64
    assert ops.matrix_power(Tensor(np.eye(2, dtype=np.int32)), 0).dtype == ms.int32


def test_classes_are_exported():
    for name in ("Cholesky", "CholeskyInverse", "CholeskySolve", "Cdist", "Cross", "Diag",
                 "DiagPart", "Eig", "Geqrf", "Ger", "LogMatrixDeterminant", "Lstsq", "LuSolve",
                 "LuUnpack", "MatrixBandPart", "MatrixDeterminant", "MatrixDiagPartV3",
                 "MatrixDiagV3", "MatrixExp", "MatrixInverse", "MatrixPower", "MatrixSetDiagV3",
                 "MatrixSolve", "MatrixSolveLs", "MatrixTriangularSolve", "NuclearNorm", "Orgqr",
                 "Ormqr", "Pdist", "Qr", "Svd", "Trace", "TridiagonalMatMul", "Tril", "Triu",
                 "TrilIndices", "TriuIndices", "EuclideanNorm", "LpNorm", "Renorm"):
        assert getattr(ops, name) is getattr(P, name), name
