"""`minispore.numpy` against real MindSpore 2.10's `mindspore.numpy` (tests/numpy/data: values,
dtypes and shapes of every case of numpy_cases.py, gradients, signatures). Where MindSpore's CPU
build raises or answers wrongly, DEVIATIONS gives minispore's answer checked against NumPy."""
import inspect
import json
import os
import sys
import warnings

import numpy as np
import pytest

import minispore as ms
import minispore.numpy as mnp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
from numpy_cases import CASES, GRAD_CASES, PROBES

DATA = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                            "mindspore_numpy.npz"))
META = json.loads(str(DATA["meta"]))
INPUTS = {k[3:]: DATA[k] for k in DATA.files if k.startswith("in_")}

# name -> ("raises", exception type) or (NumPy expression, minispore's dtypes). Each is a case
# where MindSpore 2.10 (CPU) raises or gives a value NumPy would not, and minispore does the
# sensible thing instead.
DEVIATIONS = {
    # mnp.array refuses NumPy arrays; minispore takes them, keeping their dtype (as Tensor()).
    "array_np64": ("np.arange(3.0)", ["Float64"]),
    "array_np_i64": ("np.arange(3)", ["Int64"]),
    # MindSpore's pad refuses a float constant_values and has no median mode.
    "pad_cv": ("np.pad(a, 1, constant_values=2.5)", ["Float32"]),
    "pad_median": ("np.pad(v, 1, mode='median')", ["Float32"]),
    # Kernels missing for int32 (exp, log) or bool (exp, min, add), or failing on a Python scalar
    # operand (float_power, less_equal, multiply) or a list: minispore computes them. For bools
    # the float functions give float16, as NumPy's (MindSpore: sin float16, sqrt float32).
    "float_power": ("np.float_power(p, 2)", ["Float32"]),
    "exp_i": ("np.exp(i)", ["Float32"]),
    "log_i": ("np.log(j)", ["Float32"]),
    "less_equal": ("np.less_equal(i, 2)", ["Bool"]),
    "mul_i_scalar_f": ("np.multiply(i, 0.5)", ["Float32"]),
    "add_b_b": ("np.add(bo, bo2)", ["Bool"]),
    "exp_b": ("np.exp(bo)", ["Float16"]),
    "sin_b": ("np.sin(bo)", ["Float16"]),
    "logaddexp_i": ("np.logaddexp(i, j)", ["Float32"]),
    "expm1_i": ("np.expm1(j)", ["Float32"]),
    "log10_i": ("np.log10(j)", ["Float32"]),
    "log1p_i": ("np.log1p(j)", ["Float32"]),
    "rint_i": ("np.rint(i)", ["Float32"]),
    "floor_i": ("np.floor(i)", ["Float32"]),
    "count_nonzero_b": ("np.count_nonzero(bo)", ["Int32"]),
    "unique_b": ("np.unique(bo)", ["Bool"]),  # bo starts with False: first-occurrence order
    "append_s": ("np.append(i, 1.5)", ["Float32"]),
    "piecewise_i": ("np.piecewise(i, [i < 0], [lambda t: t * 2, 7])", ["Int32"]),
    "sqrt_b": ("np.sqrt(bo)", ["Float16"]),
    "min_b": ("np.min(bo)", ["Bool"]),
    "invert_b": ("np.invert(bo)", ["Bool"]),
    "sin_list": ("np.sin([1.0, 2.0])", ["Float32"]),
    # MindSpore: cbrt(0) is NaN; signbit(-0.0) is False.
    "cbrt_i": ("np.cbrt(i)", ["Float32"]),
    "signbit_negzero": ("np.signbit(np.array([-0.0, 0.0]))", ["Bool"]),
    # MindSpore takes an integer array's mean in int32 (truncated) inside var/std and before a
    # mean's dtype cast; minispore computes them in float.
    "var_i": ("np.var(i)", ["Float32"]),
    "std_i": ("np.std(i, 0)", ["Float32"]),
    "mean_dt": ("np.mean(i)", ["Float32"]),
    # MindSpore refuses non-integer aweights, scalars in dot, edge_order=2 and coordinates in
    # gradient, empty pieces in array_split, one-argument where, mode='raise' in choose.
    "cov_aw": ("np.cov(a, aweights=[0.5, 1.0, 2.0, 1.5])", ["Float32"]),
    "dot_s": ("np.dot(a, 2)", ["Float32"]),
    "gradient_e2": ("np.gradient(v, edge_order=2)", ["Float32"]),
    "gradient_coords": ("np.gradient(v, np.array([0., 1., 1.5, 3.5, 4.]))", ["Float32"]),
    "array_split_idx": ("np.array_split(a, [1, 5], axis=1)", ["Float32"] * 3),
    "where_1": ("np.where(bo)", ["Int64", "Int64"]),
    "choose_raise": ("raises", ValueError),
    "linspace_0": ("np.linspace(0, 1, 0)", ["Float32"]),
    "norm_2_mat": ("np.linalg.norm(m, 2)", ["Float32"]),
    "norm_nuc": ("np.linalg.norm(m, 'nuc')", ["Float32"]),
    "norm_neg2": ("np.linalg.norm(m, -2)", ["Float32"]),
    # MindSpore refuses mixed dtypes in matmul and isclose (minispore promotes, as NumPy) and
    # hsplit of a 1-D array (NumPy splits it along axis 0).
    "matmul_mixed": ("np.matmul(i, m)", ["Float32"]),
    "isclose_mixed": ("np.isclose(i, a)", ["Bool"]),
    "hsplit_1d": ("np.hsplit(k[:6], 3)", ["Int32"] * 3),
    # The trace of a bool matrix: MindSpore gives a bool, NumPy (and minispore) a count.
    "trace_b": ("np.trace(bo)", ["Int64"]),
    # take_along_axis with indices that do not broadcast against the other axes.
    "take_along_i": ("raises", ValueError),
    # MindSpore answers where NumPy raises: a negative bincount input, squeezing a long axis,
    # tensordot over mismatched axes.
    "bincount_neg": ("raises", ValueError),
    "squeeze_err": ("raises", ValueError),
    "tensordot_bad": ("raises", ValueError),
    # MindSpore raises a RuntimeError from its kernel; minispore a ValueError before it.
    "matmul_err": ("raises", ValueError),
    # int32 division by zero: MindSpore gives INT_MAX, NumPy (and minispore) 0.
    "floor_div_0": ("np.zeros((3, 4), np.int32)", ["Int32"]),
    # Constants MindSpore's mnp lacks (NumPy has them).
    "e": ("np.e", ["float"]),
    "newaxis": ("'None'", ["str"]),
}


def _env(module, as_tensor):
    return {"mnp": module, "np": np,
            **{k: (ms.Tensor(v) if as_tensor else v) for k, v in INPUTS.items()}}


def _flatten(value):
    if isinstance(value, (tuple, list)):
        return [item for v in value for item in _flatten(v)]
    if isinstance(value, ms.Tensor):
        return [(value.asnumpy(), str(value.dtype))]
    if isinstance(value, (bool, int, float)):
        return [(np.array(value), type(value).__name__)]
    return [(np.array(str(value)), "str")]


def _compare(got, want, dtypes, name, check_values=True):
    assert len(got) == len(want), (name, len(got), len(want))
    for n, ((arr, dt), ref, edt) in enumerate(zip(got, want, dtypes)):
        assert dt == edt, (name, n, dt, edt)
        assert arr.shape == ref.shape, (name, n, arr.shape, ref.shape)
        if not check_values:
            continue
        if ref.dtype.kind == "U":
            assert str(arr) == str(ref), (name, arr, ref)
        else:
            np.testing.assert_allclose(arr.astype(np.float64), ref.astype(np.float64),
                                       rtol=1e-4, atol=1e-5, err_msg=name)


ALL = CASES + PROBES


@pytest.mark.parametrize("name,expr", ALL, ids=[c[0] for c in ALL])
def test_against_mindspore(name, expr):
    env = _env(mnp, True)
    expected = META["cases"][name]
    if name in DEVIATIONS:
        ref, dtypes = DEVIATIONS[name]
        if ref == "raises":
            with pytest.raises(dtypes):
                eval(expr, env)
            return
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            want = eval(ref, _env(np, False))
        want = [np.asarray(w) for w in (want if isinstance(want, (list, tuple)) else [want])]
        _compare(_flatten(eval(expr, env)), want, dtypes, name)
        return
    if isinstance(expected, str):
        exc = expected.split()[1]
        with pytest.raises(Exception) as info:
            eval(expr, env)
        assert type(info.value).__name__ == exc, (name, info.value)
        return
    got = _flatten(eval(expr, env))
    want = [DATA[f"out_{name}_{n}"] for n in range(len(expected))]
    _compare(got, want, expected, name, check_values=not name.startswith("empty"))


@pytest.mark.parametrize("name,fn,arg", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_against_mindspore(name, fn, arg):
    env = _env(mnp, True)
    f = eval(fn, env)
    grad = ms.grad(lambda x: f(x).sum())(env[arg]).asnumpy()
    if f"grad_{name}" not in DATA.files or name in WRONG_GRADS:
        # MindSpore 2.10 cannot differentiate pad/rot90 (negative strides) and interp
        # (ScatterNd), and drops convolve's gradient through its second operand: check against
        # central differences instead.
        np.testing.assert_allclose(grad, _numeric_grad(f, INPUTS[arg]), rtol=2e-3, atol=2e-3,
                                   err_msg=name)
        return
    np.testing.assert_allclose(grad, DATA[f"grad_{name}"], rtol=1e-4, atol=1e-5, err_msg=name)


WRONG_GRADS = {"convolve"}


def _numeric_grad(f, x, eps=1e-3):
    x = x.astype(np.float64)
    grad = np.zeros_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step.reshape(-1)[i] = eps
        hi = f(ms.Tensor(x + step)).asnumpy().sum()
        lo = f(ms.Tensor(x - step)).asnumpy().sum()
        grad.reshape(-1)[i] = (hi - lo) / (2 * eps)
    return grad


def _ours(name):
    return str(inspect.signature(getattr(mnp, name)))


@pytest.mark.parametrize("name", sorted(META["signatures"]))
def test_signature(name):
    want = META["signatures"][name]
    assert hasattr(mnp, name)
    if want is None:
        return
    assert _ours(name) == want


def test_dtype_objects():
    assert mnp.float32 is ms.float32 and mnp.int32 is ms.int32 and mnp.bool_ is ms.bool_
    assert mnp.float_ is ms.float32 and mnp.int_ is ms.int32
    assert mnp.pi == np.pi and mnp.inf == np.inf and np.isnan(mnp.nan)
