"""`minispore.ops` math functions: MindSpore's signatures, values against NumPy in float64 and
float32, result dtypes, empty inputs, errors, and gradients of the composite ops."""
import inspect
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minispore as ms
from minispore import Tensor, ops
from minispore.testing import check_grads
from minispore.testing import strategies as S

from .mindspore_signatures import SIGNATURES

RNG = np.random.default_rng(20240611)
FLOATS = [np.float64, np.float32]


def rand(*shape, dtype=np.float64, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape).astype(dtype)


def close(got, want, dtype=np.float64):
    tol = 1e-12 if np.dtype(dtype) == np.float64 else 2e-6
    assert isinstance(got, Tensor)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=tol, atol=tol)


# ---- signatures -----------------------------------------------------------------------------------

# Section 4 functions minispore does not define yet: 3-D convolution, unfold/fold (im2col as an
# op), smooth_l1_loss, and einsum (tier 3; no CPU kernel in MindSpore 2.10 either).
NOT_BUILT = set()


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signature_matches_mindspore(name):
    if name in NOT_BUILT and not hasattr(ops, name):
        pytest.skip(f"ops.{name} is not built yet")
    fn = getattr(ops, name)
    assert str(inspect.signature(fn)) == SIGNATURES[name]


def test_only_the_listed_functions_are_missing():
    missing = {name for name in SIGNATURES if not hasattr(ops, name)}
    assert missing <= NOT_BUILT


def test_ops_namespace_has_no_helpers():
    for leaked in ("apply", "wrap", "np", "mstype", "generator", "binary", "call1"):
        assert not hasattr(ops, leaked), leaked


# ---- elementwise: values and broadcasting ---------------------------------------------------------

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "maximum": np.maximum, "minimum": np.minimum, "atan2": np.arctan2,
    "floor_divide": np.floor_divide, "remainder": np.remainder, "fmod": np.fmod,
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_values_broadcast(name, dtype):
    x = rand(2, 1, 3, dtype=dtype)
    y = rand(4, 1, dtype=dtype, low=0.5, high=2.0) * np.where(RNG.random((4, 1)) < 0.5, -1, 1)
    y = y.astype(dtype)
    out = getattr(ops, name)(Tensor(x), Tensor(y))
    assert out.asnumpy().dtype == dtype
    close(out, BINARY[name](x, y), dtype)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_with_python_scalars(name):
    x = rand(3) + 3.0
    close(getattr(ops, name)(Tensor(x), 1.5), BINARY[name](x, 1.5))
    close(getattr(ops, name)(2.5, Tensor(x)), BINARY[name](2.5, x))


def test_pow_and_its_aliases():
    x = rand(3, low=0.5, high=2.0)
    close(ops.pow(Tensor(x), 2.5), x ** 2.5)
    close(ops.pow(2.0, Tensor(x)), 2.0 ** x)
    close(ops.tensor_pow(Tensor(x), Tensor(x)), x ** x)


def test_two_numbers_give_a_tensor():
    out = ops.add(1, 2)
    assert isinstance(out, Tensor) and out.dtype == ms.int64 and out.item() == 3
    assert ops.mul(1.5, 2).dtype == ms.float32


UNARY = {
    "neg": (np.negative, (-3, 3)), "exp": (np.exp, (-3, 3)), "log": (np.log, (0.1, 3)),
    "log1p": (np.log1p, (-0.5, 3)), "expm1": (np.expm1, (-3, 3)), "sqrt": (np.sqrt, (0.1, 3)),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 3)), "square": (np.square, (-3, 3)),
    "abs": (np.abs, (-3, 3)), "sign": (np.sign, (-3, 3)), "sin": (np.sin, (-3, 3)),
    "cos": (np.cos, (-3, 3)), "tan": (np.tan, (-1, 1)), "tanh": (np.tanh, (-3, 3)),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-3, 3)),
    "erf": (np.vectorize(math.erf), (-3, 3)), "erfc": (np.vectorize(math.erfc), (-3, 3)),
    "floor": (np.floor, (-3, 3)), "ceil": (np.ceil, (-3, 3)), "trunc": (np.trunc, (-3, 3)),
    "reciprocal": (np.reciprocal, (0.5, 3)), "asin": (np.arcsin, (-0.9, 0.9)),
    "acos": (np.arccos, (-0.9, 0.9)), "atan": (np.arctan, (-3, 3)), "sinh": (np.sinh, (-3, 3)),
    "cosh": (np.cosh, (-3, 3)), "asinh": (np.arcsinh, (-3, 3)), "acosh": (np.arccosh, (1.1, 3)),
    "atanh": (np.arctanh, (-0.9, 0.9)), "log2": (np.log2, (0.1, 3)),
    "log10": (np.log10, (0.1, 3)), "exp2": (np.exp2, (-3, 3)), "arcsin": (np.arcsin, (-0.9, 0.9)),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values(name, dtype):
    fn, (lo, hi) = UNARY[name]
    x = rand(2, 3, dtype=dtype, low=lo, high=hi)
    out = getattr(ops, name)(Tensor(x))
    assert out.asnumpy().dtype == dtype
    close(out, fn(x.astype(np.float64)).astype(dtype), dtype)


def test_erfinv_inverts_erf():
    y = np.linspace(-0.999, 0.999, 41)
    x = ops.erfinv(Tensor(y)).asnumpy()
    np.testing.assert_allclose(np.vectorize(math.erf)(x), y, rtol=0, atol=1e-15)
    edges = ops.erfinv(Tensor(np.array([-1.0, 1.0, 1.5, 0.0], np.float32))).asnumpy()
    assert edges.dtype == np.float32
    assert edges[0] == -np.inf and edges[1] == np.inf and np.isnan(edges[2]) and edges[3] == 0


def test_round_half_to_even_and_decimals():
    close(ops.round(Tensor(np.array([0.5, 1.5, 2.5, -0.5]))), np.array([0.0, 2.0, 2.0, -0.0]))
    close(ops.round(Tensor(np.array([1.234, 5.678])), decimals=2), np.array([1.23, 5.68]))
    ints = ops.round(Tensor([1, 2]))
    assert ints.dtype == ms.int64 and ints.asnumpy().tolist() == [1, 2]


def test_integer_inputs_of_float_functions_give_float32():
    for fn in (ops.sqrt, ops.exp, ops.log, ops.sin, ops.erf):
        assert fn(Tensor([1, 2])).dtype == ms.float32
    assert ops.div(Tensor([1, 2]), Tensor([2, 2])).dtype == ms.float32
    assert ops.logsumexp(Tensor([[1, 2]]), 1).dtype == ms.float32


def test_division_rounding_modes():
    a, b = np.array([7.0, -7.0, 7.5]), np.array([2.0, 2.0, -2.0])
    close(ops.div(Tensor(a), Tensor(b), rounding_mode="floor"), np.floor_divide(a, b))
    close(ops.div(Tensor(a), Tensor(b), rounding_mode="trunc"), np.trunc(a / b))
    big = Tensor(np.array([2 ** 40 + 1, -(2 ** 40 + 1)]))  # exact: no detour through float32
    out = ops.div(big, 3, rounding_mode="trunc")
    assert out.dtype == ms.int64
    assert out.asnumpy().tolist() == [(2 ** 40 + 1) // 3, -((2 ** 40 + 1) // 3)]
    with pytest.raises(ValueError, match="rounding_mode"):
        ops.div(Tensor(a), 2, rounding_mode="round")


def test_fmod_and_remainder_signs():
    a = np.array([7, -7, 7, -7])
    b = np.array([3, 3, -3, -3])
    f = ops.fmod(Tensor(a), Tensor(b))
    assert f.dtype == ms.int64 and f.asnumpy().tolist() == np.fmod(a, b).tolist()
    r = ops.remainder(Tensor(a), Tensor(b))
    assert r.asnumpy().tolist() == np.remainder(a, b).tolist()
    close(ops.fmod(Tensor(a.astype(float)), 3.0), np.fmod(a.astype(float), 3.0))


def test_lerp_addcmul_addcdiv():
    x, y, w = rand(2, 3), rand(2, 3), rand(3)
    close(ops.lerp(Tensor(x), Tensor(y), Tensor(w)), x + w * (y - x))
    close(ops.lerp(Tensor(x), Tensor(y), 0.25), x + 0.25 * (y - x))
    t1, t2 = rand(2, 3), rand(2, 3, low=0.5, high=2.0)
    close(ops.addcmul(Tensor(x), Tensor(t1), Tensor(t2), 0.5), x + 0.5 * t1 * t2)
    close(ops.addcdiv(Tensor(x), Tensor(t1), Tensor(t2), 2), x + 2 * t1 / t2)


def test_clamp_promotes_like_a_binary_op():
    ints = Tensor([1, 5, -3])
    out = ops.clamp(ints, 0.5, 2.5)
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [1.0, 2.5, 0.5]
    assert ops.clamp(ints, -1, 2).dtype == ms.int64
    f32 = Tensor(np.array([1.0, 5.0], np.float32))
    assert ops.clamp(f32, Tensor(np.zeros(2)), Tensor(np.full(2, 2.0))).dtype == ms.float64
    close(ops.clip(Tensor(np.array([1.0, 5.0, -3.0])), max=2.0), np.array([1.0, 2.0, -3.0]))
    with pytest.raises(ValueError, match="clamp"):
        ops.clamp(f32)
    with pytest.raises(TypeError, match="Bool"):
        ops.clamp(Tensor([True, False]), 0, 1)


def test_comparisons_and_logic():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0])
    for name, fn in [("equal", np.equal), ("ne", np.not_equal), ("gt", np.greater),
                     ("ge", np.greater_equal), ("lt", np.less), ("le", np.less_equal),
                     ("eq", np.equal)]:
        out = getattr(ops, name)(Tensor(x), Tensor(y))
        assert out.dtype == ms.bool_ and out.asnumpy().tolist() == fn(x, y).tolist()
    a, b = Tensor([1, 0, 2]), Tensor([1.0, 1.0, 0.0])
    assert ops.logical_and(a, b).asnumpy().tolist() == [True, False, False]
    assert ops.logical_or(a, b).asnumpy().tolist() == [True, True, True]
    assert ops.logical_not(a).asnumpy().tolist() == [False, True, False]
    assert ops.logical_not(a).dtype == ms.bool_
    assert ops.bitwise_and(Tensor([3, 5]), Tensor([1, 4])).asnumpy().tolist() == [1, 4]
    with pytest.raises(TypeError, match="BitwiseAnd"):
        ops.bitwise_and(Tensor([3.0]), Tensor([1.0]))


def test_predicates_and_isclose():
    x = np.array([1.0, np.nan, np.inf, -np.inf])
    assert ops.isnan(Tensor(x)).asnumpy().tolist() == np.isnan(x).tolist()
    assert ops.isinf(Tensor(x)).asnumpy().tolist() == np.isinf(x).tolist()
    assert ops.isfinite(Tensor(x)).asnumpy().tolist() == np.isfinite(x).tolist()
    a, b = np.array([1.0, 2.0, np.nan]), np.array([1.0 + 1e-9, 2.1, np.nan])
    assert ops.isclose(Tensor(a), Tensor(b)).asnumpy().tolist() == np.isclose(a, b).tolist()
    assert ops.isclose(Tensor(a), Tensor(b), equal_nan=True).asnumpy().tolist()[2]


# ---- reductions -----------------------------------------------------------------------------------

REDUCTIONS = [
    ("sum", np.sum), ("mean", np.mean), ("prod", np.prod), ("amax", np.max), ("amin", np.min),
    ("std", np.std), ("var", np.var),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name,ref", REDUCTIONS)
@pytest.mark.parametrize("axis,keep", [(None, False), (1, False), ((0, 2), True), (-1, True)])
def test_reductions(name, ref, axis, keep, dtype):
    x = rand(2, 3, 4, dtype=dtype)
    extra = (0,) if name in ("std", "var") else ()  # their third argument is ddof
    out = getattr(ops, name)(Tensor(x), axis, *extra, keep)
    assert out.asnumpy().dtype == dtype
    close(out, np.asarray(ref(x, axis=axis, keepdims=keep)), dtype)


def test_sum_dtypes():
    assert ops.sum(Tensor(np.array([1, 2], np.int32))).dtype == ms.int64
    assert ops.sum(Tensor([True, True, False])).asnumpy() == 2
    assert ops.sum(Tensor([True, True])).dtype == ms.int64
    assert ops.sum(Tensor(np.array([1, 2], np.uint8))).dtype == ms.int64
    f16 = Tensor(np.array([1.0, 2.0], np.float16))
    assert ops.sum(f16).dtype == ms.float16
    assert ops.sum(f16, dtype=ms.float32).dtype == ms.float32
    assert ops.mean(Tensor([[1, 2], [3, 4]])).dtype == ms.float32
    assert ops.reduce_sum(Tensor(np.ones((2, 3))), 1).asnumpy().tolist() == [3.0, 3.0]
    assert ops.reduce_mean(Tensor(np.ones((2, 3)))).item() == 1.0


def test_reductions_of_empty_tensors():
    empty = Tensor(np.zeros((0, 3)))
    close(ops.sum(empty), np.array(0.0))
    close(ops.sum(empty, 0), np.zeros(3))
    assert ops.sum(Tensor(np.zeros((0,), np.int32))).asnumpy() == 0
    close(ops.prod(empty), np.array(1.0))
    assert np.isnan(ops.mean(empty).asnumpy())
    nothing = Tensor(np.zeros((0,)))
    assert ops.all(nothing).asnumpy() and not ops.any(nothing).asnumpy()
    close(ops.amax(empty, 0, initial=-1.0), np.full(3, -1.0))
    with pytest.raises(ValueError, match="amax.*empty"):
        ops.amax(empty)
    with pytest.raises(ValueError, match="ArgMaxWithValue.*empty"):
        ops.max(empty)


def test_max_and_min_return_values_and_indices():
    x = np.array([[1.0, 5.0, 3.0], [7.0, 2.0, 2.0]])
    values, indices = ops.max(Tensor(x))
    assert values.item() == 7.0 and indices.item() == 3 and indices.dtype == ms.int64
    values, indices = ops.min(Tensor(x), 1, keepdims=True)
    assert values.asnumpy().tolist() == [[1.0], [2.0]] and indices.asnumpy().tolist() == [[0], [1]]
    values, indices = ops.max(Tensor(x), keepdims=True)
    assert values.shape == (1, 1) and indices.shape == (1, 1)
    mask = Tensor([[True, False, True], [True, True, True]])
    values, indices = ops.max(Tensor(x), 1, where=mask, initial=-10.0)
    assert values.asnumpy().tolist() == [3.0, 7.0] and indices.asnumpy().tolist() == [2, 0]
    close(ops.amax(Tensor(x), 1, initial=6.0), np.array([6.0, 7.0]))
    close(ops.amin(Tensor(x), 1, where=mask, initial=10.0), np.array([1.0, 2.0]))


def test_argmax_argmin():
    x = np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 2.0]])
    for fn, ref in ((ops.argmax, np.argmax), (ops.argmin, np.argmin)):
        out = fn(Tensor(x))
        assert out.dtype == ms.int64 and out.item() == ref(x)
        assert fn(Tensor(x), 1).asnumpy().tolist() == ref(x, 1).tolist()
        assert fn(Tensor(x), 0, True).shape == (1, 3)


def test_logsumexp_cumsum_cumprod():
    x = rand(3, 4)
    lse = np.log(np.sum(np.exp(x), axis=1))
    close(ops.logsumexp(Tensor(x), 1), lse)
    close(ops.logsumexp(Tensor(np.array([[1000.0, 1000.0]])), 1), np.array([1000 + np.log(2)]))
    close(ops.cumsum(Tensor(x), 1), np.cumsum(x, 1))
    close(ops.cumprod(Tensor(x), 0), np.cumprod(x, 0))
    close(ops.cumprod(Tensor(x), -1), np.cumprod(x, -1))
    assert ops.cumprod(Tensor(np.array([1, 2, 3], np.int32)), 0).asnumpy().tolist() == [1, 2, 6]
    assert ops.cumprod(Tensor(np.ones(2, np.float32)), 0, ms.float64).dtype == ms.float64


def test_all_any_count_nonzero():
    x = np.array([[0.0, 1.0], [2.0, 3.0]])
    assert ops.all(Tensor(x), 1).asnumpy().tolist() == [False, True]
    assert ops.any(Tensor(x), 0, True).asnumpy().tolist() == [[True, True]]
    n = ops.count_nonzero(Tensor(x))
    assert n.dtype == ms.int32 and n.item() == 3
    assert ops.count_nonzero(Tensor(x), 1).asnumpy().tolist() == [1, 2]
    assert ops.count_nonzero(Tensor(x), (0, 1), True, ms.int64).dtype == ms.int64


@pytest.mark.parametrize("ord", [None, 1, 2, 3, 0, math.inf, -math.inf, 0.5])
def test_vector_norms(ord):
    x = rand(3, 4)
    close(ops.norm(Tensor(x), ord, 1), np.linalg.norm(x, ord, axis=1))
    close(ops.norm(Tensor(x), ord, -1, True), np.linalg.norm(x, ord, axis=-1, keepdims=True))


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
def test_matrix_norms(ord):
    x = rand(3, 4)
    close(ops.norm(Tensor(x), ord), np.asarray(np.linalg.norm(x, ord)))
    batch = rand(2, 3, 4)
    close(ops.norm(Tensor(batch), ord, (1, 2)), np.linalg.norm(batch, ord, axis=(1, 2)))
    close(ops.norm(Tensor(batch), ord, (2, 1), True),
          np.linalg.norm(batch, ord, axis=(2, 1), keepdims=True))


def test_norm_defaults_and_errors():
    x = rand(2, 3, 4)
    close(ops.norm(Tensor(x)), np.asarray(np.sqrt(np.sum(x * x))))
    close(ops.norm(Tensor(x), dim=(0, 2)), np.sqrt(np.sum(x * x, axis=(0, 2))))
    assert ops.norm(Tensor([3, 4])).dtype == ms.float32
    with pytest.raises(ValueError, match="norm.*1-D or 2-D"):
        ops.norm(Tensor(x), 2)
    with pytest.raises(ValueError, match="norm.*matrix norm"):
        ops.norm(Tensor(x), "fro", 1)


# ---- linear algebra -------------------------------------------------------------------------------

MATMUL_SHAPES = [((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)), ((3,), (3,)),
                 ((5, 2, 3), (3, 4)), ((5, 1, 2, 3), (4, 3, 2)), ((3,), (5, 3, 4)),
                 ((2, 2, 3), (3,)), ((2, 0), (0, 3))]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_matches_numpy(sa, sb, dtype):
    a, b = rand(*sa, dtype=dtype), rand(*sb, dtype=dtype)
    out = ops.matmul(Tensor(a), Tensor(b))
    assert out.asnumpy().dtype == dtype
    close(out, np.matmul(a, b), dtype)


def test_matmul_empty_contraction_is_zeros():
    out = ops.matmul(Tensor(np.ones((2, 0))), Tensor(np.ones((0, 3))))
    assert out.shape == (2, 3) and not out.asnumpy().any()


def test_matmul_keeps_one_dtype():
    a = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="should be same"):  # MindSpore 2.10 does not promote
        ops.matmul(a, Tensor(np.ones((3, 2))))
    assert ops.matmul(Tensor(np.ones((2, 3), np.int32)), Tensor(np.ones((3, 2), np.int32))).dtype \
        == ms.int32


def test_matmul_errors_name_the_op_and_shapes():
    with pytest.raises(ValueError, match=r"For 'matmul'.*\(2, 3\) and \(4, 3\)"):
        ops.matmul(Tensor(np.ones((2, 3))), Tensor(np.ones((4, 3))))
    with pytest.raises(ValueError, match=r"For 'matmul'.*batch.*\(2, 2, 3\).*\(3, 3, 4\)"):
        ops.matmul(Tensor(np.ones((2, 2, 3))), Tensor(np.ones((3, 3, 4))))
    with pytest.raises(ValueError, match="For 'matmul'.*0-D"):
        ops.matmul(Tensor(1.0), Tensor(np.ones(3)))
    with pytest.raises(TypeError, match="For 'matmul'.*'other'.*list"):
        ops.matmul(Tensor(np.ones((2, 3))), [[1.0]])


def test_dot_inner_outer_tensor_dot_match_numpy():
    a, b = rand(2, 3), rand(5, 3, 4)
    close(ops.dot(Tensor(a), Tensor(b)), np.dot(a, b))
    v, w = rand(3), rand(3, 2)
    close(ops.dot(Tensor(v), Tensor(w)), np.dot(v, w))
    c = rand(2, 4, 3)
    close(ops.inner(Tensor(a), Tensor(c)), np.inner(a, c))
    close(ops.inner(Tensor(np.array(2.0)), Tensor(v)), 2.0 * v)
    u = rand(4)
    close(ops.outer(Tensor(v), Tensor(u)), np.outer(v, u))
    x, y = rand(2, 3, 4), rand(4, 3)
    close(ops.tensor_dot(Tensor(x), Tensor(y), ((1, 2), (1, 0))),
          np.tensordot(x, y, ((1, 2), (1, 0))))
    close(ops.tensor_dot(Tensor(x), Tensor(y), 1), np.tensordot(x, y, 1))
    close(ops.tensor_dot(Tensor(x), Tensor(y), 0), np.tensordot(x, y, 0))
    with pytest.raises(ValueError, match="tensor_dot"):
        ops.tensor_dot(Tensor(x), Tensor(y), ((1,), (0,)))


def test_bmm_mm_addmm():
    a, b = rand(2, 2, 3), rand(2, 3, 4)
    close(ops.bmm(Tensor(a), Tensor(b)), np.matmul(a, b))
    m1, m2, c = rand(2, 3), rand(3, 4), rand(4)
    close(ops.mm(Tensor(m1), Tensor(m2)), m1 @ m2)
    close(ops.addmm(Tensor(c), Tensor(m1), Tensor(m2), beta=0.5, alpha=2), 0.5 * c + 2 * m1 @ m2)
    with pytest.raises(ValueError, match="For 'bmm'.*3-D"):
        ops.bmm(Tensor(m1), Tensor(m2))
    with pytest.raises(ValueError, match="For 'mm'.*2-D"):
        ops.mm(Tensor(a), Tensor(m2))


# ---- errors ---------------------------------------------------------------------------------------

def test_errors_name_the_op():
    x = Tensor(np.ones(2))
    with pytest.raises(TypeError, match="For 'exp'.*list"):
        ops.exp([1.0])
    with pytest.raises(TypeError, match="For 'add'.*'other'.*str"):
        ops.add(x, "a")
    with pytest.raises(ValueError, match=r"Add.*\(2,\).*\(3,\)"):
        ops.add(x, Tensor(np.ones(3)))
    with pytest.raises(ValueError, match="ReduceSum.*axis.*3"):
        ops.sum(x, 3)
    with pytest.raises(TypeError, match="For 'sum'"):
        ops.sum(np.ones(2))


@given(shapes=S.broadcastable_shapes(2, max_dims=3))
def test_broadcasting_matches_numpy(shapes):
    sa, sb = shapes
    a, b = rand(*sa), rand(*sb)
    close(ops.mul(ops.add(Tensor(a), Tensor(b)), Tensor(b)), (a + b) * b)


# ---- gradients of composite ops -------------------------------------------------------------------

def T(*shape, low=-2.0, high=2.0):
    return Tensor(rand(*shape, low=low, high=high))


@pytest.mark.parametrize("ord,dim", [(None, None), (2, 1), (1, 1), (3, 0), (math.inf, 1),
                                     (-math.inf, 1), (0.5, 1), ("fro", None), (1, None),
                                     (math.inf, None), (-1, (0, 1))])
def test_norm_gradients(ord, dim):
    x = Tensor(np.array([[0.3, -1.7, 2.2, 0.9], [-1.1, 0.6, -0.4, 1.8], [1.3, -0.2, 0.7, -2.4]]))
    check_grads(lambda a: ops.norm(a, ord, dim), [x], order=2)


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
def test_spectral_norm_gradients_are_first_order(ord):
    x = Tensor(np.array([[3.0, 0.5, -0.2], [0.1, 2.0, 0.4], [0.3, -0.6, 1.0]]))
    check_grads(lambda a: ops.norm(a, ord), [x], order=1, modes=("rev",))
    with pytest.raises(RuntimeError, match="second derivatives"):
        check_grads(lambda a: ops.norm(a, ord), [x], order=2)
    with pytest.raises(RuntimeError, match="second derivatives"):  # jvp transposes the VJP
        ms.jvp(lambda a: ops.norm(a, ord), x, ops.ones_like(x))


def test_norm_gradient_at_zero_is_zero():
    g = ms.grad(lambda a: ops.norm(a))(Tensor(np.zeros(3)))
    assert g.asnumpy().tolist() == [0.0, 0.0, 0.0]


def test_elementwise_composite_gradients():
    check_grads(ops.lerp, [T(2, 3), T(2, 3), T(3)], order=2)
    check_grads(lambda a, b, c: ops.addcmul(a, b, c, 0.7), [T(2, 3), T(3), T(2, 1)], order=2)
    check_grads(lambda a, b, c: ops.addcdiv(a, b, c, 0.7), [T(2, 3), T(3), T(2, 1, low=0.5)],
                order=2)
    # fmod is smooth away from the jumps of trunc(a / b): keep a / b off the integers.
    q = np.array([0.3, 1.4, -2.6, 3.7])
    b = np.array([1.5, -0.8, 2.0, 1.1])
    check_grads(ops.fmod, [Tensor(q * b), Tensor(b)], order=2)
    check_grads(lambda a: ops.log2(a) + ops.log10(a) + ops.exp2(a), [T(4, low=0.5)], order=2)


def test_reduction_composite_gradients():
    x = Tensor(np.array([[0.5, -1.2, 2.0], [1.5, 0.3, -0.7]]))  # no ties
    check_grads(lambda a: ops.max(a, 1)[0], [x], order=2)
    check_grads(lambda a: ops.min(a)[0], [x], order=2)
    mask = Tensor([[True, False, True], [False, True, True]])
    check_grads(lambda a: ops.amax(a, 1, where=mask, initial=-5.0), [x], order=2)
    check_grads(lambda a: ops.amin(a, 0, initial=0.0), [x], order=2)
    check_grads(lambda a: ops.std_mean(a, 1, 1), [x], order=2)
    check_grads(lambda a: ops.var_mean(a, 0), [x], order=2)
    check_grads(lambda a: ops.cumprod(a, 1), [x], order=2)


def test_cumprod_gradient_with_a_zero():
    check_grads(lambda a: ops.cumprod(a, 0), [Tensor(np.array([1.5, 0.0, -2.0, 0.7]))], order=1)


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES[:-1])
def test_matmul_gradients(sa, sb):
    check_grads(ops.matmul, [T(*sa), T(*sb)], order=2)


def test_linear_algebra_composite_gradients():
    check_grads(ops.dot, [T(2, 3), T(5, 3, 4)], order=2)
    check_grads(ops.inner, [T(2, 3), T(4, 3)], order=2)
    check_grads(ops.outer, [T(3), T(4)], order=2)
    check_grads(lambda a, b: ops.tensor_dot(a, b, ((1, 2), (1, 0))), [T(2, 3, 4), T(4, 3)],
                order=2)
    check_grads(lambda a, b: ops.tensor_dot(a, b, 1), [T(2, 3), T(3, 2)], order=2)
    check_grads(lambda c, a, b: ops.addmm(c, a, b, beta=0.5, alpha=2.0), [T(4), T(2, 3), T(3, 4)],
                order=2)
    check_grads(ops.bmm, [T(2, 2, 3), T(2, 3, 4)], order=2)


@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3))
def test_matmul_gradient_shapes(m, k, n):
    a, b = T(m, k), T(k, n)
    ga, gb = ms.grad(lambda x, y: ops.sum(ops.matmul(x, y)), (0, 1))(a, b)
    assert ga.shape == (m, k) and gb.shape == (k, n)
    np.testing.assert_allclose(ga.asnumpy(), np.ones((m, n)) @ b.asnumpy().T)


@pytest.mark.parametrize("name", ["prod", "sum", "mean", "amax", "amin", "logsumexp"])
@pytest.mark.parametrize("axis", [0, -1])
def test_reductions_of_a_0d_tensor_take_axis_0_and_minus_1(name, axis):
    # MindSpore 2.10 reduces a 0-d tensor over axis 0 or -1 to itself (NumPy raises AxisError).
    fn = getattr(ops, name)
    x = Tensor(np.float64(2.0))
    assert float(fn(x, axis)) == 2.0
    assert float(ms.grad(lambda t: fn(t, axis))(x)) == 1.0
