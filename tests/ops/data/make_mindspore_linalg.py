"""Make mindspore_linalg.npz: for each case of the linalg family, its inputs, MindSpore 2.10's
outputs and, for the differentiable ones, the gradients of sum(out * g) for saved cotangents g;
plus the signatures of the functions and classes. tests/ops/test_linalg_family.py evaluates the
same expressions (saved with the data) on minispore. Run with real MindSpore (CPU):

    /tmp/msvenv/bin/python tests/ops/data/make_mindspore_linalg.py
"""
import inspect
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, ops

rng = np.random.default_rng(0)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def c64(*shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def spd(n, batch=()):
    b = rng.standard_normal(batch + (n, n))
    return (b @ np.swapaxes(b, -1, -2) + n * np.eye(n)).astype(np.float32)


def general(n, batch=()):
    return (rng.standard_normal(batch + (n, n)) + (n + 1) * np.eye(n)).astype(np.float32)


PARTS = "(lambda y: (ops.real(y), ops.imag(y)))"
LU = general(3)
LU_DATA = np.array([[-0.98878, -0.33876, -0.23623], [0.64488, -0.96911, -1.26889],
                    [0.88814, -0.14915, 0.27718]], np.float32)
W3 = np.arange(1.0, 4.0, dtype=np.float32)

# name: (expression of x0, x1, ... (and the constants below), inputs, differentiated inputs)
CASES = {
    "cholesky": ("ops.cholesky((x0 + x0.swapaxes(-1, -2)) / 2)", [spd(3, (2,))], 1),
    "cholesky_upper": ("ops.cholesky((x0 + x0.T) / 2, upper=True)", [spd(4)], 1),
    "Cholesky": ("ops.Cholesky(upper=True)(x0)", [spd(3)], 0),
    "cholesky_inverse": ("ops.cholesky_inverse(ops.tril(x0))", [general(3)], 1),
    "cholesky_inverse_upper": ("ops.CholeskyInverse(upper=True)(ops.triu(x0))", [general(3)], 1),
    "cholesky_solve": ("ops.cholesky_solve(x0, ops.tril(x1))", [f32(2, 3, 2), general(3, (2,))],
                       2),
    "cholesky_solve_upper": ("ops.CholeskySolve(upper=True)(x0, ops.triu(x1))",
                             [f32(3, 2), general(3)], 0),
    "det": ("ops.det(x0)", [general(3, (2,))], 1),
    "det_neg": ("ops.det(-x0)", [general(3)], 1),
    "matrix_determinant": ("ops.matrix_determinant(x0)", [general(2)], 1),
    "slogdet": ("ops.slogdet(x0)", [np.stack([general(3), -general(3)])], 1),
    "log_matrix_determinant": ("ops.LogMatrixDeterminant()(x0)", [general(3)], 0),
    "logdet": ("ops.logdet(x0)", [np.stack([general(3), -general(3)])], 0),
    "inverse": ("ops.inverse(x0)", [general(4, (2,))], 1),
    "MatrixInverse_adjoint": ("ops.MatrixInverse(True)(x0)", [general(3)], 1),
    "matrix_solve": ("ops.matrix_solve(x0, x1)", [general(3, (2,)), f32(2, 3, 2)], 2),
    "matrix_solve_adjoint": ("ops.matrix_solve(x0, x1, True)", [general(3), f32(3, 1)], 2),
    "MatrixTriangularSolve": ("ops.MatrixTriangularSolve()(x0, x1)", [general(3), f32(3, 2)],
                              2),
    "MatrixTriangularSolve_ua": ("ops.MatrixTriangularSolve(lower=False, adjoint=True)(x0, x1)",
                                 [general(3, (2,)), f32(2, 3, 2)], 2),
    "qr": ("ops.qr(x0)", [f32(4, 3)], 1),
    "qr_wide": ("ops.qr(x0)", [f32(2, 3, 4)], 1),
    "qr_complete": ("ops.qr(x0, 'complete')", [f32(4, 3)], 0),
    "Qr_square_full": ("ops.Qr(True)(x0)", [f32(3, 3)], 1),
    "svd_s": ("ops.svd(x0, compute_uv=False)", [f32(4, 3)], 1),
    "svd_invariants": (("(lambda s, u, v: (s, ops.matmul(u * w3, v.swapaxes(-1, -2)), u * u, "
                       "v * v))(*ops.svd(x0))"), [f32(2, 4, 3)], 1),
    "Svd_full": (("(lambda s, u, v: (s, ops.matmul(u[..., :3] * w3, v.T)))"
                 "(*ops.Svd(full_matrices=True)(x0))"), [f32(5, 3)], 0),
    "eigvals_spd": ("ops.sort(ops.real(ops.eigvals(x0)))[0]", [spd(4)], 0),
    "matrix_power": ("ops.matrix_power(x0, 3)", [f32(3, 3)], 1),
    "matrix_power_neg": ("ops.matrix_power(x0, -2)", [general(3)], 1),
    "matrix_power_0": ("ops.matrix_power(x0, 0)", [f32(2, 2)], 0),
    "MatrixPower": ("ops.MatrixPower(2)(x0)", [f32(2, 3, 3)], 0),
    "trace": ("ops.trace(x0)", [f32(3, 4)], 1),
    "Trace": ("ops.Trace()(x0)", [f32(3, 3)], 0),
    "addbmm": ("ops.addbmm(x0, x1, x2, beta=0.5, alpha=2)", [f32(2, 4), f32(3, 2, 5),
                                                             f32(3, 5, 4)], 3),
    "addmv": ("ops.addmv(x0, x1, x2, beta=2, alpha=3)", [f32(2), f32(2, 3), f32(3)], 3),
    "addr": ("ops.addr(x0, x1, x2, beta=2, alpha=0.5)", [f32(2, 3), f32(2), f32(3)], 3),
    "adjoint": ("ops.adjoint(x0)", [f32(2, 3, 4)], 1),
    "baddbmm": ("ops.baddbmm(x0, x1, x2, 0.5, 2)", [f32(3, 2, 4), f32(3, 2, 5), f32(3, 5, 4)],
                3),
    "batch_dot_none": ("ops.batch_dot(x0, x1)", [f32(2, 3, 4), f32(2, 4, 5)], 2),
    "batch_dot_axes": ("ops.batch_dot(x0, x1, (1, 1))", [f32(2, 3, 4), f32(2, 3, 5)], 2),
    "batch_dot_2d": ("ops.batch_dot(x0, x1)", [f32(2, 3), f32(2, 3)], 2),
    "batch_dot_4d": ("ops.batch_dot(x0, x1, (2, 1))", [f32(2, 3, 2, 2), f32(2, 2, 3)], 2),
    "block_diag": ("ops.block_diag(x0, x1, x2)", [f32(1, 2), f32(3), f32(2, 2)], 3),
    "cdist": ("ops.cdist(x0, x1)", [f32(2, 3), f32(4, 3)], 2),
    "cdist_p1_batch": ("ops.cdist(x0, x1, 1.0)", [f32(2, 2, 3), f32(2, 4, 3)], 2),
    "cdist_pinf": ("ops.cdist(x0, x1, float('inf'))", [f32(2, 3), f32(4, 3)], 2),
    "cdist_p3": ("ops.Cdist(3.0)(x0, x1)", [f32(2, 3), f32(4, 3)], 0),
    "cdist_p0": ("ops.cdist(x0, x1, 0.0)", [f32(2, 3), f32(4, 3)], 0),
    "pdist": ("ops.pdist(x0)", [f32(4, 3)], 1),
    "Pdist_p1": ("ops.Pdist(1.0)(x0)", [f32(4, 3)], 0),
    "cond": ("ops.cond(x0)", [general(3)], 0),
    "cond_fro": ("ops.cond(x0, 'fro')", [general(3)], 0),
    "cond_1": ("ops.cond(x0, 1)", [general(3)], 0),
    "cond_m2": ("ops.cond(x0, -2)", [general(3)], 0),
    "cov": ("ops.cov(x0)", [f32(3, 5)], 1),
    "cov_1d": ("ops.cov(x0, correction=0)", [f32(5)], 1),
    "cov_weights": (("ops.cov(x0, fweights=Tensor(np.array([1, 2, 1, 3, 1], np.int32)), "
                    "aweights=x1)"), [f32(3, 5), np.abs(f32(5)) + 0.1], 2),
    "cross": ("ops.cross(x0, x1)", [f32(2, 3), f32(2, 3)], 2),
    "cross_dim0": ("ops.cross(x0, x1, 0)", [f32(3, 3), f32(3, 3)], 2),
    "Cross": ("ops.Cross()(x0, x1)", [f32(4, 3, 2), f32(4, 3, 2)], 0),
    "diag_embed": ("ops.diag_embed(x0)", [f32(2, 3)], 1),
    "diag_embed_off": ("ops.diag_embed(x0, 1, 0, 2)", [f32(2, 3)], 1),
    "diag_embed_neg": ("ops.diag_embed(x0, -2)", [f32(3)], 0),
    "diagflat": ("ops.diagflat(x0, -1)", [f32(2, 2)], 1),
    "diagonal_scatter": ("ops.diagonal_scatter(x0, x1, 1)", [f32(3, 3), f32(2)], 2),
    "diagonal_scatter_3d": ("ops.diagonal_scatter(x0, x1, -1, 1, 2)", [f32(2, 3, 3), f32(2, 2)],
                            2),
    "dist": ("ops.dist(x0, x1)", [f32(2, 3), f32(3)], 2),
    "dist_p3": ("ops.dist(x0, x1, 3)", [f32(4), f32(4)], 2),
    "dist_p0": ("ops.dist(x0, x1, 0)", [f32(4), f32(4)], 0),
    "ger": ("ops.ger(x0, x1)", [f32(2), f32(3)], 2),
    "Ger": ("ops.Ger()(x0, x1)", [f32(3), f32(2)], 0),
    "kron": ("ops.kron(x0, x1)", [f32(2, 2), f32(2, 3)], 2),
    "kron_nd": ("ops.kron(x0, x1)", [f32(2), f32(2, 2, 3)], 2),
    "lstsq": ("ops.lstsq(x0, x1)", [f32(5, 3), f32(5, 2)], 0),
    "Lstsq": ("ops.Lstsq()(x0, x1)", [f32(4, 3), f32(4, 2)], 0),
    "MatrixSolveLs": ("ops.MatrixSolveLs()(x0, x1, Tensor(0.5, ms.float64))",
                      [f32(4, 3), f32(4, 2)], 0),
    "MatrixSolveLs_wide": ("ops.MatrixSolveLs()(x0, x1, Tensor(0.5, ms.float64))",
                           [f32(2, 3, 4), f32(2, 3, 2)], 0),
    "lu_unpack": ("ops.lu_unpack(x0, Tensor(np.array([2, 3, 3], np.int32)))", [LU_DATA], 1),
    "lu_unpack_tall": ("ops.lu_unpack(x0, Tensor(np.array([2, 3], np.int32)))", [f32(3, 2)], 0),
    "lu_unpack_wide": ("ops.LuUnpack()(x0, Tensor(np.array([1, 2], np.int64)))", [f32(2, 3)],
                       0),
    "lu_solve": ("ops.lu_solve(x0, x1, Tensor(np.array([2, 3, 3], np.int32)))",
                 [f32(3, 2), LU_DATA], 1),
    "LuSolve": ("ops.LuSolve()(x0, x1, Tensor(np.array([3, 3, 3], np.int32)))",
                [f32(3, 1), LU], 0),
    "matrix_band_part": ("ops.matrix_band_part(x0, 1, -1)", [f32(4, 4)], 1),
    "MatrixBandPart": ("ops.MatrixBandPart()(x0, 2, 1)", [f32(2, 4, 5)], 0),
    "matrix_diag": ("ops.matrix_diag(x0)", [f32(3)], 1),
    "matrix_diag_k": ("ops.matrix_diag(x0, 1)", [f32(2, 2)], 1),
    "matrix_diag_range": (("ops.matrix_diag(x0, Tensor(np.array([-1, 1], np.int32)), 3, 4, "
                          "Tensor(9.0, ms.float32))"), [f32(3, 3)], 0),
    "matrix_diag_range_LR": (("ops.MatrixDiagV3('LEFT_RIGHT')(x0, Tensor(np.array([-1, 1], "
                             "np.int32)), Tensor(3, ms.int32), Tensor(4, ms.int32), "
                             "Tensor(0.0, ms.float32))"), [f32(3, 3)], 0),
    "matrix_diag_part": (("ops.matrix_diag_part(x0, Tensor(np.array([-1, 1], np.int32)), "
                         "Tensor(9.0, ms.float32))"), [f32(3, 4)], 1),
    "matrix_diag_part_LL": (("ops.MatrixDiagPartV3('LEFT_LEFT')(x0, Tensor(np.array([-2, 0], "
                            "np.int32)), Tensor(0.0, ms.float32))"), [f32(2, 4, 3)], 0),
    "matrix_diag_part_one": (("ops.matrix_diag_part(x0, Tensor(1, ms.int32), "
                             "Tensor(0.0, ms.float32))"), [f32(3, 4)], 0),
    "matrix_set_diag": ("ops.matrix_set_diag(x0, x1)", [f32(3, 4), f32(3)], 2),
    "matrix_set_diag_range": ("ops.matrix_set_diag(x0, x1, Tensor(np.array([-1, 0], np.int32)))",
                              [f32(3, 4), f32(2, 3)], 2),
    "MatrixSetDiagV3_RR": (("ops.MatrixSetDiagV3('RIGHT_RIGHT')(x0, x1, Tensor(np.array([-1, 1], "
                           "np.int32)))"), [f32(3, 3), f32(3, 3)], 0),
    "mv": ("ops.mv(x0, x1)", [f32(4, 3), f32(3)], 2),
    "orgqr": ("ops.orgqr(x0, x1)", [f32(4, 3), np.abs(f32(2))], 2),
    "orgqr_batch": ("ops.Orgqr()(x0, x1)", [f32(2, 3, 3), np.abs(f32(2, 3))], 0),
    "pinv": ("ops.pinv(x0)", [f32(4, 3)], 0),
    "pinv_tol": ("ops.pinv(x0, atol=Tensor(0.1), rtol=Tensor(0.5))", [f32(4, 3)], 0),
    "pinv_hermitian": ("ops.pinv(ops.matmul(x0.T, x0), hermitian=True)", [f32(4, 3)], 0),
    "vector_norm": ("ops.vector_norm(x0, 3, (0, 1))", [f32(3, 4)], 1),
    "vector_norm_inf": ("ops.vector_norm(x0, float('inf'), 1, True)", [f32(3, 4)], 0),
    "vector_norm_default": ("ops.vector_norm(x0)", [f32(2, 3, 2)], 1),
    "matrix_norm": ("ops.matrix_norm(x0)", [f32(2, 3, 4)], 1),
    "matrix_norm_1": ("ops.matrix_norm(x0, 1, keepdims=True)", [f32(3, 4)], 0),
    "matrix_norm_nuc": ("ops.matrix_norm(x0, 'nuc')", [f32(3, 4)], 0),
    "vecdot": ("ops.vecdot(x0, x1)", [f32(4, 3), f32(4, 3)], 2),
    "vecdot_axis0": ("ops.vecdot(x0, x1, axis=0)", [f32(4, 3), f32(4, 3)], 0),
    "vander": ("ops.vander(x0)", [f32(3)], 1),
    "vander_N": ("ops.vander(x0, 5)", [f32(3)], 1),
    "renorm": ("ops.renorm(x0, 2, 0, 1.5)", [f32(4, 3)], 1),
    "renorm_p1": ("ops.Renorm(1, 1, 2.0)(x0)", [f32(4, 3)], 0),
    "EuclideanNorm": ("ops.EuclideanNorm()(x0, Tensor(np.array([1], np.int32)))", [f32(3, 4)],
                      0),
    "LpNorm": ("ops.LpNorm(0, 1)(x0)", [f32(3, 4)], 0),
    "LpNorm_tuple": ("ops.LpNorm((0, 1), 3, True)(x0)", [f32(3, 4)], 0),
    "NuclearNorm": ("ops.NuclearNorm()(x0)", [f32(3, 4)], 0),
    "NuclearNorm_dim": ("ops.NuclearNorm((1, 2), True)(x0)", [f32(2, 3, 4)], 0),
    "Tril": ("ops.Tril(-1)(x0)", [f32(3, 4)], 0),
    "Triu": ("ops.Triu(1)(x0)", [f32(3, 4)], 0),
    "Diag": ("ops.Diag()(x0)", [f32(2, 2)], 0),
    "DiagPart": ("ops.DiagPart()(x0)", [f32(2, 3, 2, 3)], 0),
    "TridiagonalMatMul": ("ops.TridiagonalMatMul()(x0, x1, x2, x3)",
                          [f32(1, 3), f32(1, 3), f32(1, 3), f32(3, 2)], 0),
    "geqrf": ("ops.geqrf(x0)", [f32(4, 3)], 0),
    # complex gradients (dL/dRe + i dL/dIm) of the real and imaginary parts
    "matmul_complex": (PARTS + "(ops.matmul(x0, x1))", [c64(2, 3), c64(3, 2)], 2),
    "inverse_complex": (PARTS + "(ops.inverse(x0))", [c64(3, 3) + 4 * np.eye(3)], 1),
    "det_complex": (PARTS + "(ops.det(x0))", [c64(3, 3) + 4 * np.eye(3)], 1),
    "matrix_solve_complex": (PARTS + "(ops.matrix_solve(x0, x1))",
                             [c64(3, 3) + 4 * np.eye(3), c64(3, 2)], 2),
    "MatrixLogarithm": ("ops.MatrixLogarithm()(x0)",
                        [(general(3, (2,)) + 1j * f32(2, 3, 3)).astype(np.complex64)], 0),
    "Geqrf_batch": ("ops.Geqrf()(x0)", [f32(2, 3, 4)], 0),
}

# Integer and index outputs (no inputs): exact.
INDICES = {
    "tril_indices": "ops.tril_indices(3, 4, 1)",
    "triu_indices": "ops.triu_indices(3, 4, -1, dtype=ms.int32)",
    "TrilIndices": "ops.TrilIndices(3, 2)()",
    "TriuIndices": "ops.TriuIndices(3, 3, 1, ms.int64)()",
    "trace_int": "ops.trace(Tensor(np.arange(9, dtype=np.int32).reshape(3, 3)))",
    "matrix_power_int": "ops.matrix_power(Tensor(np.arange(4, dtype=np.int32).reshape(2, 2)), 3)",
    "kron_int": "ops.kron(Tensor(np.array([1, 2], np.int32)), Tensor(np.array([3, 4], np.int32)))",
    "vander_int": "ops.vander(Tensor(np.array([1, 2, 3], np.int32)), 4)",
    "cross_int": "ops.cross(Tensor(np.array([1, 2, 3], np.int32)), "
                 "Tensor(np.array([4, 5, 6], np.int32)))",
    "mv_int": "ops.mv(Tensor(np.arange(6, dtype=np.int32).reshape(2, 3)), "
              "Tensor(np.array([1, 2, 3], np.int32)))",
    "band_int": "ops.matrix_band_part(Tensor(np.arange(16, dtype=np.int32).reshape(4, 4)), 0, 1)",
}

FUNCTIONS = ["addbmm", "addmv", "addr", "adjoint", "baddbmm", "baddbmm_ext", "batch_dot",
             "block_diag", "cdist", "cholesky", "cholesky_inverse", "cholesky_solve", "cond", "cov",
             "cross", "det", "diag_embed", "diagflat", "diagonal_scatter", "dist", "eig", "eigvals",
             "geqrf", "ger", "inverse", "kron", "logdet", "log_matrix_determinant", "lstsq",
             "lu_solve", "lu_unpack", "matrix_band_part", "matrix_determinant", "matrix_diag",
             "matrix_diag_part", "matrix_exp", "matrix_norm", "matrix_power", "matrix_set_diag",
             "matrix_solve", "mv", "orgqr", "ormqr", "pdist", "pinv", "qr", "slogdet", "svd",
             "trace", "tril_indices", "triu_indices", "vector_norm", "vecdot", "vander",
             "renorm"]
CLASSES = ["Cholesky", "CholeskyInverse", "CholeskySolve", "Cdist", "Cross", "Diag", "DiagPart",
           "Eig", "Geqrf", "Ger", "LogMatrixDeterminant", "Lstsq", "LuSolve", "LuUnpack",
           "MatrixBandPart", "MatrixDeterminant", "MatrixDiagPartV3", "MatrixDiagV3",
           "MatrixExp", "MatrixInverse", "MatrixLogarithm", "MatrixPower", "MatrixSetDiagV3",
           "MatrixSolve", "MatrixSolveLs", "MatrixTriangularSolve", "NuclearNorm", "Orgqr", "Ormqr",
           "Pdist", "Qr", "Svd", "Trace", "TridiagonalMatMul", "Tril", "Triu", "TrilIndices",
           "TriuIndices", "EuclideanNorm", "LpNorm", "Renorm"]


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _first_line(e):
    lines = [ln for ln in str(e).splitlines() if ln.strip() and not ln.startswith("-")]
    return lines[0][:200] if lines else type(e).__name__


def run():
    data = {}
    env = {"ops": ops, "Tensor": Tensor, "ms": ms, "np": np, "w3": Tensor(W3)}
    for name, (expr, inputs, n_diff) in CASES.items():
        inputs = [a.astype(np.complex64) if a.dtype.kind == "c" else a for a in inputs]
        xs = [Tensor(a) for a in inputs]
        fn = eval("lambda " + ", ".join(f"x{i}" for i in range(len(xs))) + ": " + expr, env)
        data[f"{name}:expr"] = np.array(expr)
        for i, a in enumerate(inputs):
            data[f"{name}:x{i}"] = a
        try:
            outs = _outputs(fn(*xs))
        except (RuntimeError, TypeError, ValueError) as e:  # no CPU kernel, or refused
            data[f"{name}:error"] = np.array(f"{type(e).__name__}: {_first_line(e)}")
            continue
        for k, o in enumerate(outs):
            data[f"{name}:out{k}"] = np.array("None") if o is None else o.asnumpy()
        if n_diff:
            gs = [None if o is None else rng.standard_normal(o.shape).astype(np.float32)
                  for o in outs]

            def loss(*args, fn=fn, gs=gs):
                total = 0
                for o, g in zip(_outputs(fn(*args)), gs):
                    if o is not None and o.dtype in (ms.float32, ms.float64):
                        total = total + (o * Tensor(g)).sum()
                return total
            try:
                grads = _outputs(ms.grad(loss, tuple(range(n_diff)))(*xs))
            except RuntimeError as e:  # no CPU kernel for the gradient
                data[f"{name}:grad_error"] = np.array(_first_line(e))
                continue
            for k, g in enumerate(gs):
                if g is not None:
                    data[f"{name}:g{k}"] = g
            for i, g in enumerate(grads):
                data[f"{name}:d{i}"] = g.asnumpy()
    for name, expr in INDICES.items():
        data[f"index:{name}:expr"] = np.array(expr)
        data[f"index:{name}"] = eval(expr, env).asnumpy()
    for name in FUNCTIONS:
        data[f"sig:{name}"] = np.array(str(inspect.signature(getattr(ops, name))))
    for name in CLASSES:
        data[f"sig:{name}"] = np.array(str(inspect.signature(getattr(ops, name).__init__)))
    data["w3"] = W3
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_linalg.npz")
    np.savez_compressed(path, **data)


if __name__ == "__main__":
    run()
