"""The Primitive classes users instantiate (`ops.ReduceSum(keep_dims=True)(x, axis)`,
`ops.MatMul(transpose_b=True)(a, b)`, ...): call forms, attributes, names, reprs, and gradients
through them."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, ops
from minispore.ops import operations as P
from minispore.testing import check_grads

RNG = np.random.default_rng(3)


def rand(*shape):
    return RNG.uniform(-2.0, 2.0, shape)


def T(*shape):
    return Tensor(rand(*shape))


def close(got, want):
    assert isinstance(got, Tensor)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12, atol=1e-12)


def test_operations_module_is_the_same_namespace():
    for name in ("MatMul", "ReduceSum", "Concat", "Split", "Gather", "Cast", "Ones", "Fill",
                 "ArgMaxWithValue", "Assign", "Primitive", "PrimitiveWithInfer",
                 "prim_attr_register"):
        assert getattr(P, name) is getattr(ops, name), name


@pytest.mark.parametrize("make,text", [
    (lambda: ops.MatMul(transpose_b=True), "Prim[MatMul]<transpose_a=False, transpose_b=True>"),
    (lambda: ops.BatchMatMul(True, False), "Prim[BatchMatMul]<transpose_a=True, "
                                           "transpose_b=False>"),
    (lambda: ops.ReduceSum(keep_dims=True), "Prim[ReduceSum]<keep_dims=True, skip_mode=False>"),
    (lambda: ops.ReduceMean(True), "Prim[ReduceMean]<keep_dims=True>"),
    (lambda: ops.ReduceMax(), "Prim[ReduceMax]<keep_dims=False>"),
    (lambda: ops.Add(), "Prim[Add]"),
    (lambda: ops.Cast(), "Prim[Cast]"),
    (lambda: ops.Concat(1), "Prim[Concat]<axis=1>"),
    (lambda: ops.Split(1, 2), "Prim[Split]<axis=1, output_num=2>"),
    (lambda: ops.Squeeze(1), "Prim[Squeeze]<axis=(1,)>"),
    (lambda: ops.BroadcastTo((2, 3)), "Prim[BroadcastTo]<shape=(2, 3)>"),
    (lambda: ops.Pad(((1, 1),)), "Prim[Pad]<paddings=((1, 1),)>"),
    (lambda: ops.Unstack(1), "Prim[Unstack]<axis=1, num=None>"),
    (lambda: ops.Gather(), "Prim[Gather]<batch_dims=0>"),
    (lambda: ops.OneHot(1), "Prim[OneHot]<axis=1>"),
    (lambda: ops.ArgMaxWithValue(1, True), "Prim[ArgMaxWithValue]<axis=1, keep_dims=True>"),
    (lambda: ops.CumSum(), "Prim[CumSum]<exclusive=False, reverse=False>"),
    (lambda: ops.Stack(1), "Prim[Stack]<axis=1>"),
    (lambda: ops.TopK(), "Prim[TopK]<sorted=True>"),
    (lambda: ops.Sort(1, True), "Prim[Sort]<axis=1, descending=True>"),
    (lambda: ops.Elu(), "Prim[Elu]<alpha=1.0>"),
    (lambda: ops.BiasAdd(), "Prim[BiasAdd]<data_format=NCHW>"),
    (lambda: ops.SparseSoftmaxCrossEntropyWithLogits(True),
     "Prim[SparseSoftmaxCrossEntropyWithLogits]<is_grad=True>"),
    (lambda: ops.StandardNormal(1, 2), "Prim[StandardNormal]<seed=1, seed2=2>"),
])
def test_repr_name_and_isinstance(make, text):
    p = make()
    assert repr(p) == text
    assert p.name == text[5:].split("]")[0]
    assert isinstance(p, ops.Primitive)


def test_attributes():
    assert ops.MatMul(transpose_b=True).transpose_b is True
    assert ops.MatMul().attrs == {"transpose_a": False, "transpose_b": False}
    assert ops.ReduceSum(keep_dims=True).keep_dims is True
    assert ops.Split(1, 3).output_num == 3
    assert ops.Gather(1).batch_dims == 1
    assert ops.Argmax(axis=1).output_type == ms.int32
    assert ops.L2Normalize(1, 1e-12).epsilon == 1e-12
    p = ops.Softmax(0).add_prim_attr("note", "x")
    assert p.note == "x" and p.attrs["note"] == "x"
    with pytest.raises(TypeError, match="ReduceSum.*keep_dims"):
        ops.ReduceSum(keep_dims=1)


def test_prim_attr_register_records_init_arguments():
    class Scale(ops.PrimitiveWithInfer):
        @ops.prim_attr_register
        def __init__(self, alpha=1.0, beta=2):
            pass

    p = Scale(beta=3)
    assert p.attrs == {"alpha": 1.0, "beta": 3} and p.beta == 3
    assert repr(p) == "Prim[Scale]<alpha=1.0, beta=3>"


def test_user_primitive_with_explicit_attributes():
    class Scale(ops.Primitive):
        @ops.prim_attr_register
        def __init__(self, gamma=0.5):
            self.gamma = gamma

        def __call__(self, x):
            return x * self.gamma

    p = Scale()
    assert repr(p) == "Prim[Scale]<gamma=0.5>" and p.name == "Scale"
    assert p(Tensor(np.array([2.0]))).asnumpy().tolist() == [1.0]


# ---- call forms -----------------------------------------------------------------------------------

def test_arithmetic_and_matmul_call_forms():
    a, b = rand(2, 3), rand(2, 3)
    close(ops.Add()(Tensor(a), Tensor(b)), a + b)
    close(ops.Sub()(Tensor(a), 1.5), a - 1.5)
    close(ops.Mul()(Tensor(a), Tensor(b)), a * b)
    close(ops.RealDiv()(Tensor(a), Tensor(b)), a / b)
    close(ops.Div()(Tensor(a), Tensor(b)), a / b)
    close(ops.Pow()(Tensor(np.abs(a)), 2.0), np.abs(a) ** 2)
    close(ops.MatMul(transpose_b=True)(Tensor(a), Tensor(b)), a @ b.T)
    close(ops.MatMul(transpose_a=True)(Tensor(a), Tensor(b)), a.T @ b)
    x, y = rand(4, 2, 3), rand(4, 5, 3)
    close(ops.BatchMatMul(transpose_b=True)(Tensor(x), Tensor(y)), x @ np.swapaxes(y, -1, -2))
    for cls, fn in [(ops.Exp, np.exp), (ops.Neg, np.negative), (ops.Abs, np.abs),
                    (ops.Square, np.square), (ops.Tanh, np.tanh), (ops.Sigmoid,
                                                                   lambda v: 1 / (1 + np.exp(-v))),
                    (ops.ReLU, lambda v: np.maximum(v, 0))]:
        close(cls()(Tensor(a)), fn(a))
    close(ops.Sqrt()(Tensor(np.abs(a))), np.sqrt(np.abs(a)))
    close(ops.Log()(Tensor(np.abs(a) + 1)), np.log(np.abs(a) + 1))


def test_reduction_call_forms():
    x = rand(2, 3, 4)
    close(ops.ReduceSum(keep_dims=True)(Tensor(x), 1), x.sum(1, keepdims=True))
    close(ops.ReduceSum()(Tensor(x)), np.asarray(x.sum()))
    close(ops.ReduceSum()(Tensor(x), (0, 2)), x.sum((0, 2)))
    close(ops.ReduceSum(skip_mode=True)(Tensor(x), ()), x)
    close(ops.ReduceMean()(Tensor(x), -1), x.mean(-1))
    close(ops.ReduceMax(True)(Tensor(x), 2), x.max(2, keepdims=True))
    close(ops.ReduceMin()(Tensor(x), 0), x.min(0))
    close(ops.ReduceProd()(Tensor(x), 1), x.prod(1))
    assert ops.ReduceAll()(Tensor(x > -3), 1).asnumpy().all()
    assert ops.ReduceAny(True)(Tensor(x > 3)).shape == (1, 1, 1)
    index, value = ops.ArgMaxWithValue(1)(Tensor(x))  # index first, as MindSpore
    assert index.dtype == ms.int64
    np.testing.assert_array_equal(index.asnumpy(), x.argmax(1))
    close(value, x.max(1))
    index, value = ops.ArgMinWithValue(axis=-1, keep_dims=True)(Tensor(x))
    np.testing.assert_array_equal(index.asnumpy(), x.argmin(-1)[..., None])
    am = ops.Argmax(axis=1)(Tensor(x))
    assert am.dtype == ms.int32
    np.testing.assert_array_equal(am.asnumpy(), x.argmax(1))
    assert ops.Argmax(output_type=ms.int64)(Tensor(x)).dtype == ms.int64


def test_softmax_family_call_forms():
    x = rand(3, 4)
    e = np.exp(x - x.max(0, keepdims=True))
    close(ops.Softmax(axis=0)(Tensor(x)), e / e.sum(0, keepdims=True))
    close(ops.LogSoftmax()(Tensor(x)), x - np.log(np.exp(x).sum(-1, keepdims=True)))
    labels = np.eye(4)[[1, 0, 3]]
    loss, dlogits = ops.SoftmaxCrossEntropyWithLogits()(Tensor(x[:3]), Tensor(labels))
    soft = np.exp(x) / np.exp(x).sum(1, keepdims=True)
    close(loss, -(np.log(soft) * labels).sum(1))
    close(dlogits, soft - labels)
    sparse = Tensor(np.array([1, 0, 3], np.int32))
    close(ops.SparseSoftmaxCrossEntropyWithLogits()(Tensor(x[:3]), sparse),
          np.asarray(-(np.log(soft) * labels).sum(1).mean()))
    close(ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(Tensor(x[:3]), sparse),
          (soft - labels) / 3)
    y, b = rand(2, 3, 4), rand(3)
    close(ops.BiasAdd()(Tensor(y), Tensor(b)), y + b[:, None])
    close(ops.BiasAdd("NHWC")(Tensor(y[:, :, :3]), Tensor(b)), y[:, :, :3] + b)
    with pytest.raises(ValueError, match=r"BiasAdd.*\(3,\).*\(2, 3, 4\).*\(4,\)"):
        ops.BiasAdd()(Tensor(y), Tensor(rand(4)))
    close(ops.GeLU()(Tensor(x)), 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) *
                                                       (x + 0.044715 * x ** 3))))
    close(ops.L2Normalize(axis=1)(Tensor(x)), x / np.sqrt(np.maximum((x * x).sum(1, keepdims=True),
                                                                      1e-4)))
    tiny = np.array([[1e-3, 0.0]])
    close(ops.L2Normalize(1)(Tensor(tiny)), tiny / 1e-2)
    close(ops.Elu()(Tensor(x)), np.where(x > 0, x, np.expm1(x)))
    close(ops.ReLU6()(Tensor(x * 4)), np.clip(x * 4, 0, 6))
    close(ops.HSigmoid()(Tensor(x)), np.clip(x + 3, 0, 6) / 6)
    close(ops.HSwish()(Tensor(x)), x * np.clip(x + 3, 0, 6) / 6)
    close(ops.Softsign()(Tensor(x)), x / (1 + np.abs(x)))
    close(ops.Erfinv()(Tensor(np.zeros(2))), np.zeros(2))


def test_array_call_forms():
    x = rand(2, 6)
    close(ops.Reshape()(Tensor(x), (3, 4)), x.reshape(3, 4))
    close(ops.Transpose()(Tensor(x), (1, 0)), x.T)
    assert ops.Cast()(Tensor(x), ms.int32).dtype == ms.int32
    close(ops.Concat(1)((Tensor(x), Tensor(x))), np.concatenate([x, x], 1))
    close(ops.Concat()([Tensor(x), Tensor(x)]), np.concatenate([x, x]))
    close(ops.Stack(-1)((Tensor(x), Tensor(x))), np.stack([x, x], -1))
    pieces = ops.Split(1, 3)(Tensor(x))
    assert isinstance(pieces, tuple) and len(pieces) == 3
    close(pieces[2], x[:, 4:])
    with pytest.raises(ValueError, match="Split.*equal pieces"):
        ops.Split(1, 4)(Tensor(x))
    close(ops.ExpandDims()(Tensor(x), 0), x[None])
    close(ops.Squeeze(0)(Tensor(x[:1])), x[0])
    close(ops.Squeeze(0)(Tensor(x)), x)  # not a size-1 axis: left alone, as MindSpore
    close(ops.Tile()(Tensor(x), (2, 1)), np.tile(x, (2, 1)))
    close(ops.BroadcastTo((3, -1, 6))(Tensor(x)), np.broadcast_to(x, (3, 2, 6)))
    close(ops.Pad(((1, 0), (0, 2)))(Tensor(x)), np.pad(x, ((1, 0), (0, 2))))
    std, mean = ops.ReduceStd(1)(Tensor(x))
    close(std, x.std(1, ddof=1))
    close(mean, x.mean(1))
    rows = ops.Unstack(0, 2)(Tensor(x))
    assert len(rows) == 2
    close(rows[1], x[1])
    with pytest.raises(ValueError, match="Unstack.*num"):
        ops.Unstack(num=3)(Tensor(x))
    close(ops.Gather()(Tensor(x), Tensor([1, 0, 1]), 0), x[[1, 0, 1]])
    close(ops.Gather()(Tensor(x), Tensor([5]), 1), x[:, [5]])
    idx = np.array([[0, 5], [1, 1]])
    close(ops.GatherD()(Tensor(x), 1, Tensor(idx)), np.take_along_axis(x, idx, 1))
    values, indices = ops.TopK()(Tensor(x), 2)
    close(values, -np.sort(-x, 1)[:, :2])
    assert indices.dtype == ms.int32
    values, indices = ops.Sort(0, True)(Tensor(x))
    close(values, -np.sort(-x, 0))
    u, inverse = ops.Unique()(Tensor(np.array([3, 1, 3])))
    assert u.asnumpy().tolist() == [3, 1] and inverse.asnumpy().tolist() == [0, 1, 0]
    nd = ops.ScatterNd()(Tensor([[1], [0]]), Tensor(np.array([[1.0, 2.0], [3.0, 4.0]])), (3, 2))
    close(nd, np.array([[3.0, 4.0], [1.0, 2.0], [0.0, 0.0]]))
    base = Tensor(np.zeros((2, 2)))
    close(ops.TensorScatterUpdate()(base, Tensor([[0, 1]]), Tensor(np.array([5.0]))),
          np.array([[0.0, 5.0], [0.0, 0.0]]))
    close(ops.TensorScatterAdd()(base, Tensor([[0, 1], [0, 1]]), Tensor(np.array([5.0, 1.0]))),
          np.array([[0.0, 6.0], [0.0, 0.0]]))
    selected = ops.Select()(Tensor(x > 0), Tensor(x), Tensor(np.zeros_like(x)))
    close(selected, np.where(x > 0, x, 0))


def test_creation_call_forms():
    ones = ops.Ones()((2, 3), ms.int32)
    assert ones.dtype == ms.int32 and ones.asnumpy().tolist() == [[1] * 3] * 2
    assert ops.Ones()(2, ms.float32).shape == (2,)
    assert ops.Zeros()((2,), ms.float64).dtype == ms.float64
    filled = ops.Fill()(ms.float32, (2,), 3)
    assert filled.dtype == ms.float32 and filled.asnumpy().tolist() == [3.0, 3.0]
    like = ops.OnesLike()(Tensor(np.zeros((2, 2), np.float32)))
    assert like.dtype == ms.float32 and like.asnumpy().sum() == 4
    assert ops.ZerosLike()(Tensor([1, 2])).asnumpy().tolist() == [0, 0]
    assert ops.Eye()(2, 3, ms.int32).asnumpy().tolist() == [[1, 0, 0], [0, 1, 0]]
    oh = ops.OneHot()(Tensor([0, 2]), 3, Tensor(np.array(1.0, np.float32)),
                      Tensor(np.array(0.0, np.float32)))
    assert oh.dtype == ms.float32 and oh.asnumpy().tolist() == [[1, 0, 0], [0, 0, 1]]
    x = Tensor(np.zeros((2, 3)))
    assert ops.Shape()(x) == (2, 3) and ops.Rank()(x) == 2 and ops.Size()(x) == 6


def test_assign_depend_stop_gradient():
    p = Parameter(Tensor(np.zeros(3, np.float32)), name="p")
    out = ops.Assign()(p, Tensor(np.array([1.0, 2.0, 3.0])))
    assert out is p and p.asnumpy().tolist() == [1.0, 2.0, 3.0] and p.dtype == ms.float32
    t = Tensor(np.zeros(2))
    assert ops.Assign()(t, Tensor(np.ones(2))) is t and t.asnumpy().tolist() == [1.0, 1.0]
    assert ops.assign(p, Tensor(np.zeros(3))) is p and p.asnumpy().sum() == 0
    with pytest.raises(ValueError, match="Assign.*shape"):
        ops.Assign()(t, Tensor(np.ones(3)))
    with pytest.raises(TypeError, match="Assign.*Parameter or Tensor"):
        ops.Assign()(np.zeros(2), Tensor(np.ones(2)))
    a = Tensor(np.ones(2))
    assert ops.Depend()(a, Tensor(np.zeros(1))) is a and ops.depend(a, None) is a
    g = ms.grad(lambda v: ops.ReduceSum()(v * ops.StopGradient()(v)))(Tensor(np.array([2.0, 3.0])))
    assert g.asnumpy().tolist() == [2.0, 3.0]


# ---- gradient hooks ------------------------------------------------------------------------------

def test_insert_gradient_of_replaces_the_gradient():
    seen = []

    def double(g):
        seen.append(g)
        return g * 2

    ig = ops.InsertGradientOf(double)
    x = Tensor(np.array([1.0, 2.0]))
    out = ig(x)
    assert out.asnumpy().tolist() == [1.0, 2.0] and out is not x
    g = ms.grad(lambda a: ops.sum(ig(a) * a))(x)
    assert g.asnumpy().tolist() == [3.0, 6.0]  # 2 * x through the hook, x directly
    assert isinstance(seen[0], Tensor) and seen[0].asnumpy().tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="InsertGradientOf.*callable"):
        ops.InsertGradientOf(3)
    bad = ops.InsertGradientOf(lambda g: g[:1])
    with pytest.raises(ValueError, match=r"InsertGradientOf.*\(1,\).*\(2,\)"):
        ms.grad(lambda a: ops.sum(bad(a)))(x)


def test_hook_backward_sees_a_tuple_and_may_replace_it():
    seen = []
    hb = ops.HookBackward(lambda grads: seen.append(grads))
    assert repr(hb) == "Prim[HookBackward]<cell_id=>"
    x, y = Tensor(np.array([1.0, 2.0])), Tensor(np.array([3.0, 4.0]))
    gx, gy = ms.grad(lambda a, b: ops.sum(ops.mul(*hb(a, b))), (0, 1))(x, y)
    assert gx.asnumpy().tolist() == [3.0, 4.0] and gy.asnumpy().tolist() == [1.0, 2.0]
    assert isinstance(seen[0], tuple) and len(seen[0]) == 2
    assert seen[0][0].asnumpy().tolist() == [3.0, 4.0]
    scale = ops.HookBackward(lambda grads: (grads[0] * 10,))
    assert isinstance(scale(x), Tensor)
    g = ms.grad(lambda a: ops.sum(scale(a) * 3))(x)
    assert g.asnumpy().tolist() == [30.0, 30.0]
    wrong = ops.HookBackward(lambda grads: (grads[0], grads[0]))
    with pytest.raises(ValueError, match="HookBackward.*2 gradients for 1 inputs"):
        ms.grad(lambda a: ops.sum(wrong(a)))(x)


def test_hooks_compose_with_second_order_gradients():
    cube = ops.InsertGradientOf(lambda g: g * 3)

    def f(a):
        return ops.sum(cube(a) * a * a)  # the hook triples the gradient of the first factor

    x = Tensor(np.array([0.5, -1.5]))
    dfdx = ms.grad(f)
    second = ms.grad(lambda a: ops.sum(dfdx(a)))(x)
    # f' = 3 a^2 (through the hook) + 2 c(a) a. Differentiating again, the gradient through
    # c(a) is tripled once more: d(3 a^2) + d(2 c(a) a) = 6 a + (2 a * 3 + 2 a) = 14 a.
    np.testing.assert_allclose(dfdx(x).asnumpy(), 5 * x.asnumpy() ** 2)
    np.testing.assert_allclose(second.asnumpy(), 14 * x.asnumpy())


# ---- gradients through the classes ----------------------------------------------------------------

def test_gradients_through_primitive_classes():
    check_grads(lambda a, b: ops.MatMul(transpose_b=True)(a, b), [T(2, 3), T(4, 3)], order=2)
    check_grads(lambda a, b: ops.BatchMatMul(True, False)(a, b), [T(2, 3, 2), T(2, 3, 4)], order=2)
    check_grads(lambda a: ops.ReduceSum(keep_dims=True)(a, 1), [T(2, 3)], order=2)
    check_grads(lambda a: ops.ReduceMean()(a, (0, 1)), [T(2, 3)], order=2)
    check_grads(lambda a: ops.Softmax(0)(a), [T(3, 2)], order=2)
    check_grads(lambda a, b: ops.Concat(1)((a, b)), [T(2, 2), T(2, 1)], order=2)
    check_grads(lambda a: ops.Split(0, 2)(a), [T(4, 2)], order=2)
    check_grads(lambda a: ops.Gather(1)(a, Tensor([[1, 0], [2, 2]]), 1), [T(2, 3, 2)], order=2)
    check_grads(lambda a: ops.GatherD()(a, 0, Tensor([[1, 0, 1]])), [T(2, 3)], order=2)
    check_grads(lambda a: ops.L2Normalize(1)(a), [T(2, 3)], order=2)
    check_grads(lambda a: ops.GeLU()(a), [T(2, 3)], order=2)
    check_grads(lambda a, b: ops.BiasAdd()(a, b), [T(2, 3, 2), T(3)], order=2)
    check_grads(lambda a: ops.ArgMaxWithValue(1)(a)[1], [Tensor(np.array([[0.3, 1.2, -0.5],
                                                                           [2.1, 0.4, 0.9]]))],
                order=2)
    labels = Tensor(np.array([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]]))
    check_grads(lambda a: ops.SoftmaxCrossEntropyWithLogits()(a, labels), [T(2, 3)], order=2)
    check_grads(lambda a: ops.SparseSoftmaxCrossEntropyWithLogits()(a, Tensor([2, 0])),
                [T(2, 3)], order=2)
