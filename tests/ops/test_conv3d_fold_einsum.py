"""ops.conv3d, ops.unfold/ops.fold and ops.einsum: values and gradients against MindSpore 2.10
(fixture made by data/make_mindspore_conv3d_fold.py) and NumPy, gradients to second order, and
the errors bad input gets."""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minispore as ms
from minispore import Tensor, ops
from minispore.ops.operations.conv_ops import Conv3D
from minispore.testing import check_grads

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_conv3d_fold.npz"))
CONV3D = {
    "same_s2": dict(pad_mode="same", stride=2),
    "valid_sd": dict(pad_mode="valid", stride=(1, 2, 1), dilation=(1, 1, 2)),
    "pad1": dict(pad_mode="pad", padding=1),
    "pad3": dict(pad_mode="pad", padding=(1, 2, 0), stride=(2, 1, 3)),
}
UNFOLD = {"k2": dict(kernel_size=2), "mixed": dict(kernel_size=(2, 3), dilation=(2, 1),
                                                   padding=(1, 2), stride=(1, 2))}


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# ---- conv3d --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(CONV3D))
def test_conv3d_matches_mindspore(name):
    kw = CONV3D[name]
    x, w, g = (Tensor(DATA[k]) for k in ("x", "w", f"conv3d_{name}_g"))
    out = ops.conv3d(x, w, **kw)
    np.testing.assert_allclose(out.asnumpy(), DATA[f"conv3d_{name}_y"], rtol=1e-5, atol=1e-5)
    dx, dw = ms.grad(lambda a, b: (ops.conv3d(a, b, **kw) * g).sum(), (0, 1))(x, w)
    np.testing.assert_allclose(dx.asnumpy(), DATA[f"conv3d_{name}_dx"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dw.asnumpy(), DATA[f"conv3d_{name}_dw"], rtol=1e-5, atol=1e-4)


def test_conv3d_groups_and_bias():
    x, wg = Tensor(DATA["x"]), Tensor(DATA["wg"])
    np.testing.assert_allclose(ops.conv3d(x, wg, groups=2).asnumpy(), DATA["conv3d_groups_y"],
                               rtol=1e-5, atol=1e-5)
    b = Tensor(np.arange(4, dtype=np.float32))
    out = ops.conv3d(x, wg, b, groups=2).asnumpy()
    np.testing.assert_allclose(out, DATA["conv3d_groups_y"] + np.arange(4)[:, None, None, None],
                               rtol=1e-5, atol=1e-5)


def test_conv3d_six_int_padding_is_per_side():
    x, w = rand(1, 1, 3, 4, 3), rand(2, 1, 2, 2, 2, seed=1)
    pads = (1, 0, 0, 2, 1, 1)
    out = ops.conv3d(Tensor(x), Tensor(w), pad_mode="pad", padding=pads)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 0), (0, 2), (1, 1)))
    ref = ops.conv3d(Tensor(xp), Tensor(w))
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-12)


def test_conv3d_second_order():
    x, w = rand(1, 2, 3, 4, 3), rand(2, 1, 2, 2, 2, seed=1)
    check_grads(lambda a, b: ops.conv3d(a, b, stride=(1, 2, 1), pad_mode="same", groups=2),
                [Tensor(x), Tensor(w)], order=2)


def test_conv2d_after_generalisation_matches_direct_loops():
    from .specs_nn import naive_conv
    x, w = rand(2, 4, 6, 5), rand(6, 2, 3, 2, seed=1)
    out = ops.conv2d(Tensor(x), Tensor(w), stride=(2, 1), pad_mode="pad", padding=(1, 0, 2, 1),
                     dilation=(1, 2), groups=2)
    np.testing.assert_allclose(out.asnumpy(), naive_conv(x, w, (2, 1), (1, 2), (1, 0, 2, 1), 2),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call, err, words", [
    (lambda x, w: ops.conv3d(x[0], w), ValueError, "5-D"),
    (lambda x, w: ops.conv3d(x, w[:, :1]), ValueError, "channels"),
    (lambda x, w: ops.conv3d(x, w, pad_mode="pad", padding=(1, 2)), ValueError, "padding"),
    (lambda x, w: ops.conv3d(x, w, pad_mode="same", padding=1), ValueError, "padding"),
    (lambda x, w: ops.conv3d(x, w, stride=(1, 2)), TypeError, "stride"),
    (lambda x, w: ops.conv3d(x, w, dilation=0), ValueError, "dilation"),
    (lambda x, w: ops.conv3d(x, w, pad_mode="full"), ValueError, "pad_mode"),
    (lambda x, w: ops.conv3d(x.asnumpy(), w), TypeError, "Tensor"),
    (lambda x, w: ops.conv3d(x, Tensor(np.ones((1, 2, 9, 1, 1), np.float32))), ValueError,
     "larger"),
])
def test_conv3d_bad_input(call, err, words):
    x, w = Tensor(DATA["x"]), Tensor(DATA["w"])
    with pytest.raises(err, match="conv3d|Conv3D") as info:
        call(x, w)
    assert words in str(info.value)


def test_conv3d_primitive_class():
    x, w = Tensor(DATA["x"]), Tensor(DATA["w"])
    prim = ops.Conv3D(4, (2, 3, 2), pad_mode="pad", pad=1)
    np.testing.assert_allclose(prim(x, w).asnumpy(), DATA["conv3d_pad1_y"], rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(ValueError, match="Conv3D.*data_format"):
        Conv3D(4, 2, data_format="NCHW")


# ---- unfold / fold -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(UNFOLD))
def test_unfold_fold_match_mindspore(name):
    kw = UNFOLD[name]
    u, g = Tensor(DATA["u"]), Tensor(DATA[f"unfold_{name}_g"])
    np.testing.assert_array_equal(ops.unfold(u, **kw).asnumpy(), DATA[f"unfold_{name}_y"])
    du = ms.grad(lambda a: (ops.unfold(a, **kw) * g).sum())(u)
    np.testing.assert_allclose(du.asnumpy(), DATA[f"unfold_{name}_du"], rtol=1e-6, atol=1e-6)
    size = Tensor(np.array([5, 6], np.int32))  # MindSpore's form; a tuple works too
    for output_size in (size, (5, 6)):
        np.testing.assert_allclose(ops.fold(g, output_size, **kw).asnumpy(),
                                   DATA[f"fold_{name}_y"], rtol=1e-6, atol=1e-6)


@settings(max_examples=15)
@given(k=st.tuples(st.integers(1, 3), st.integers(1, 3)),
       d=st.tuples(st.integers(1, 2), st.integers(1, 2)),
       p=st.tuples(st.integers(0, 2), st.integers(0, 2)),
       s=st.tuples(st.integers(1, 3), st.integers(1, 3)),
       hw=st.tuples(st.integers(5, 7), st.integers(5, 7)))
def test_fold_is_the_adjoint_of_unfold(k, d, p, s, hw):
    x = rand(2, 2, *hw)
    cols = ops.unfold(Tensor(x), k, d, p, s)
    y = rand(*cols.shape, seed=1)
    back = ops.fold(Tensor(y), hw, k, d, p, s)
    assert back.shape == x.shape
    np.testing.assert_allclose(np.vdot(cols.asnumpy(), y), np.vdot(x, back.asnumpy()),
                               rtol=1e-10)


def test_unfold_fold_second_order():
    x = rand(1, 2, 4, 5)
    kw = dict(kernel_size=(2, 2), dilation=(1, 2), padding=1, stride=(2, 1))
    check_grads(lambda a: ops.unfold(a, **kw) ** 2, [Tensor(x)], order=2)
    cols = rand(1, 8, 15, seed=2)
    check_grads(lambda c: ops.fold(c, (4, 5), **kw) ** 2, [Tensor(cols)], order=2)


@pytest.mark.parametrize("call, err, words", [
    (lambda x: ops.unfold(x[0], 2), ValueError, "4-D"),
    (lambda x: ops.unfold(x, 7), ValueError, "larger"),
    (lambda x: ops.unfold(x, 2, padding=(1, 2, 3, 4)), TypeError, "padding"),
    (lambda x: ops.unfold(x, 0), ValueError, "positive"),
    (lambda x: ops.fold(ops.unfold(x, 2), (5, 7), 2), ValueError, "24 blocks"),
    (lambda x: ops.fold(ops.unfold(x, 2)[:, :7], (5, 6), 2), ValueError, "divide"),
    (lambda x: ops.fold(ops.unfold(x, 2), Tensor(np.array([5.0, 6.0])), 2), TypeError, "ints"),
    (lambda x: ops.fold(ops.unfold(x, 2), (0, 6), 2), ValueError, "positive"),
])
def test_unfold_fold_bad_input(call, err, words):
    x = Tensor(DATA["u"])
    with pytest.raises(err, match="unfold|fold|Im2Col|Col2Im") as info:
        call(x)
    assert words in str(info.value)


# ---- einsum --------------------------------------------------------------------------------------

EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]),
    ("i,i", [(3,), (3,)]), ("bA,cb", [(2, 3), (4, 2)]), ("i...,j", [(2, 3), (4,)]),
    ("...,...", [(2, 1), (3,)]), ("ij,ij->ij", [(1, 3), (2, 3)]),
    ("iij,jk->ik", [(2, 2, 3), (3, 4)]), ("ijk->", [(2, 3, 4)]), ("ij->j", [(2, 3)]),
    ("i,j->ij", [(2,), (3,)]), ("bij,bjk", [(2, 3, 4), (1, 4, 2)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("iji->j", [(2, 3, 2)]), (",i->i", [(), (3,)]), ("i->", [(0,)]), ("ii,i->i", [(1, 1), (3,)]),
    ("b i j , b j -> b i", [(2, 3, 4), (2, 4)]), ("ij,kl->ijkl", [(2, 1), (1, 3)]),
]


@pytest.mark.parametrize("eq, shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_matches_numpy_to_second_order(eq, shapes):
    xs = [rand(*s, seed=i) for i, s in enumerate(shapes)]
    out = ops.einsum(eq, *[Tensor(x) for x in xs])
    expected = np.einsum(eq, *xs)
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-12, atol=1e-12)
    check_grads(lambda *a: ops.einsum(eq, *a), [Tensor(x) for x in xs], order=2)


def test_einsum_third_order_through_a_diagonal():
    x, y = rand(3, 3), rand(3, 2, seed=1)
    check_grads(lambda a, b: ops.einsum("ii,ij->j", a, b) ** 2, [Tensor(x), Tensor(y)], order=3)


def test_einsum_float32_and_primitive_class():
    x, y = rand(2, 3).astype(np.float32), rand(3, 4, seed=1).astype(np.float32)
    out = ops.Einsum("ij,jk->ik")((Tensor(x), Tensor(y)))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), x @ y, rtol=1e-6)
    gx = ms.grad(lambda a: ops.einsum("ij,jk->ik", a, Tensor(y)).sum())(Tensor(x))
    assert gx.dtype == ms.float32
    np.testing.assert_allclose(gx.asnumpy(), np.broadcast_to(y.sum(1), (2, 3)), rtol=1e-6)


@pytest.mark.parametrize("eq, shapes, err, words", [
    ("ij,jk->ik", [(2, 3), (4, 5)], ValueError, "do not match"),
    ("ij,jk", [(2, 3)], ValueError, "2 terms"),
    ("ij->ik", [(2, 3)], ValueError, "output label"),
    ("ij->ii", [(2, 2)], ValueError, "output label"),
    ("ijk", [(2, 3)], ValueError, "name 3 dims"),
    ("ii", [(2, 3)], ValueError, "repeats a label"),
    ("...i->i", [(2, 3)], ValueError, "no '...'"),
    ("i1->i", [(2, 3)], ValueError, "letters"),
    ("i->i->i", [(2,)], ValueError, "terms->output"),
])
def test_einsum_bad_input(eq, shapes, err, words):
    xs = [Tensor(rand(*s)) for s in shapes]
    with pytest.raises(err, match="Einsum") as info:
        ops.einsum(eq, *xs)
    assert words in str(info.value)


def test_einsum_bad_types():
    x = Tensor(rand(2, 2))
    with pytest.raises(TypeError, match="einsum.*operands\\[1\\]"):
        ops.einsum("ij,jk", x, rand(2, 2))
    with pytest.raises(TypeError, match="Einsum.*dtype"):
        ops.einsum("ij,jk", x, x.astype(ms.float32))
    with pytest.raises(TypeError, match="einsum.*equation"):
        ops.einsum(3, x)
