"""vmap: equal to a Python loop over many ops (axes arguments, several outputs, int outputs) for
drawn batch sizes and in/out axes; nesting, broadcast arguments, trees of tuples and lists,
MindSpore's documented example, gradients through and inside vmap, errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minispore as ms
from minispore import Tensor, nn, ops
from minispore._autodiff import tape as _tape
from minispore.testing.strategies import Domain, arrays

POS = Domain(0.2, 2.0)

# name -> (function, per-example shapes of its arguments, which arguments are mapped, domain)
OPS = {
    "add_broadcast": (lambda x, y: x + y, [(3, 2), (2,)], (True, False), None),
    "mul_both": (lambda x, y: x * y, [(2, 3), (2, 3)], (True, True), None),
    "maximum": (ops.maximum, [(4,), (4,)], (True, True), None),
    "pow": (ops.pow, [(3,), (3,)], (True, True), POS),
    "exp_tanh": (lambda x: ops.tanh(ops.exp(x) - 1.0), [(2, 2)], (True,), None),
    "relu_sigmoid": (lambda x: ops.relu(x) + ops.sigmoid(x), [(5,)], (True,), None),
    "sum_axis": (lambda x: ops.sum(x, 1, keepdim=True), [(2, 3, 2)], (True,), None),
    "mean_axes": (lambda x: x.mean(axis=(0, 2)), [(2, 3, 2)], (True,), None),
    "amax": (lambda x: ops.amax(x, -1), [(3, 4)], (True,), None),
    "max_with_index": (lambda x: ops.max(x, 0), [(4, 2)], (True,), None),
    "argmax": (lambda x: ops.argmax(x, 1), [(2, 5)], (True,), None),
    "softmax": (lambda x: ops.softmax(x, 0), [(3, 2)], (True,), None),
    "log_softmax": (lambda x: ops.log_softmax(x, -1), [(2, 3)], (True,), None),
    "cumsum": (lambda x: ops.cumsum(x, 1), [(2, 4)], (True,), None),
    "logsumexp": (lambda x: ops.logsumexp(x, 0, True), [(3, 2)], (True,), None),
    "std": (lambda x: ops.std(x, 1), [(2, 4)], (True,), None),
    "transpose": (lambda x: ops.transpose(x, (2, 0, 1)), [(2, 3, 4)], (True,), None),
    "reshape": (lambda x: ops.reshape(x, (-1, 2)), [(3, 4)], (True,), None),
    "expand_squeeze": (lambda x: ops.squeeze(ops.expand_dims(x, 1) * 2.0, 1), [(3,)], (True,),
                       None),
    "concat": (lambda x, y: ops.concat((x, y), 1), [(2, 3), (2, 1)], (True, False), None),
    "stack": (lambda x, y: ops.stack((x, y), -1), [(3,), (3,)], (True, True), None),
    "split": (lambda x: ops.split(x, 2, 1), [(3, 4)], (True,), None),
    "tile": (lambda x: ops.tile(x, (2, 1)), [(2, 3)], (True,), None),
    "broadcast_to": (lambda x: ops.broadcast_to(x, (3, 2)), [(2,)], (True,), None),
    "getitem": (lambda x: x[1:, ::-1] * 2.0, [(3, 4)], (True,), None),
    "gather": (lambda x: ops.gather(x, Tensor(np.array([2, 0, 2])), 1), [(2, 3)], (True,), None),
    "pad": (lambda x: ops.pad(x, (1, 0, 0, 2)), [(2, 3)], (True,), None),
    "matmul_shared": (ops.matmul, [(2, 3), (3, 4)], (True, False), None),
    "matmul_both": (ops.matmul, [(2, 3), (3, 2)], (True, True), None),
    "dense": (lambda x, w, b: ops.dense(x, w, b), [(4, 3), (2, 3), (2,)], (True, False, False),
              None),
    "conv2d": (lambda x, w: ops.conv2d(x, w), [(1, 2, 5, 5), (3, 2, 3, 3)], (True, False), None),
    "layer_norm": (lambda x: ops.layer_norm(x, (3,)), [(2, 3)], (True,), None),
    "where": (lambda x, y: ops.where(x > 0, x, y), [(3, 2), (3, 2)], (True, True), None),
    "flip_roll": (lambda x: ops.roll(ops.flip(x, (0,)), 1, 0), [(4,)], (True,), None),
    "sort": (lambda x: ops.sort(x, -1), [(2, 4)], (True,), None),
    "python_branch": (lambda x: x * 2.0 if float(x.sum()) > 0 else -x, [(3,)], (True,), None),
    "shape_dependent": (lambda x: x * x.shape[0], [(3,)], (True,), None),
}


def _leaves(out):
    return [v for o in out for v in _leaves(o)] if isinstance(out, (tuple, list)) else [out]


@pytest.mark.parametrize("name", sorted(OPS))
@settings(max_examples=4)
@given(data=st.data())
def test_vmap_equals_a_python_loop(name, data):
    fn, shapes, mapped, domain = OPS[name]
    domain = domain or Domain(-2, 2)
    batch = data.draw(st.integers(1, 3), label="batch")
    examples = [[data.draw(arrays(s, domain)) for s, m in zip(shapes, mapped)]
                for _ in range(batch)]
    in_axes, args = [], []
    for k, (s, m) in enumerate(zip(shapes, mapped)):
        if m:
            ax = data.draw(st.integers(-len(s) - 1, len(s)), label=f"in_axis{k}")
            in_axes.append(ax)
            args.append(Tensor(np.stack([e[k] for e in examples], axis=ax)))
        else:
            in_axes.append(None)
            args.append(Tensor(examples[0][k]))
    loop = [fn(*[Tensor(e[k]) if m else args[k] for k, m in enumerate(mapped)])
            for e in examples]
    per_leaf = list(zip(*[_leaves(r) for r in loop]))
    out_axes = [data.draw(st.integers(-v[0].ndim - 1, v[0].ndim), label="out_axis")
                for v in per_leaf]
    spec = out_axes[0] if not isinstance(loop[0], (tuple, list)) else tuple(out_axes)
    got = _leaves(ms.vmap(fn, tuple(in_axes), spec)(*args))
    assert len(got) == len(per_leaf)
    for g, vals, ax in zip(got, per_leaf, out_axes):
        want = np.stack([v.asnumpy() for v in vals], axis=ax)
        assert g.shape == want.shape and g.asnumpy().dtype == want.dtype
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-13, atol=1e-15)


# ---- MindSpore's documented example and in/out axes ----------------------------------------------

def test_mindspores_example():
    x = Tensor(np.array([[1, 2], [3, 4], [5, 6]]).astype(np.float32))
    y = Tensor(np.array([[-3, -2, -1], [3, 2, 1]]).astype(np.float32))
    z = Tensor(np.array([0, 3]).astype(np.float32))
    out = ms.vmap(lambda a, b, c: a + b + c, in_axes=(0, 1, None), out_axes=1)(x, y, z)
    np.testing.assert_array_equal(out.asnumpy(), [[-2, 1, 4], [8, 9, 10]])


def test_several_outputs_with_their_own_axes():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    a, s = ms.vmap(lambda t: (t * 2, t.sum()), 0, (1, 0))(x)
    np.testing.assert_array_equal(a.asnumpy(), (x.asnumpy() * 2).T)
    np.testing.assert_array_equal(s.asnumpy(), x.asnumpy().sum(1))


def test_out_axes_none_for_an_output_that_does_not_vary():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    c = Tensor(np.array([1.0, 2.0]))
    _, k = ms.vmap(lambda t: (t + 1, c * 2), 0, (0, None))(x)
    assert k.shape == (2,)
    np.testing.assert_array_equal(k.asnumpy(), [2.0, 4.0])
    with pytest.raises(ValueError, match="differs between examples"):
        ms.vmap(lambda t: (t + 1, t * 2), 0, (0, None))(x)


def test_trees_of_tuples_and_lists():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    y = Tensor(np.array([1.0, -1.0, 2.0]))

    def tree(p, q):
        return [p[0] * p[1] + q, (p[0], q.sum())]
    out = ms.vmap(tree, ([0, None], 0))([x, y], x)
    assert isinstance(out, list) and isinstance(out[1], tuple)
    np.testing.assert_array_equal(out[0].asnumpy(), x.asnumpy() * y.asnumpy() + x.asnumpy())
    np.testing.assert_array_equal(out[1][1].asnumpy(), x.asnumpy().sum(1))
    out = ms.vmap(tree, 0, [1, (0, 0)])((x, x), x)
    np.testing.assert_array_equal(out[0].asnumpy(), (x.asnumpy() ** 2 + x.asnumpy()).T)


def test_nested_vmap_is_an_outer_loop():
    a = Tensor(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    b = Tensor(np.array([[1.0, -1.0], [0.5, 2.0]]))

    def dot(u, v):
        return (u * v).sum()
    table = ms.vmap(ms.vmap(dot, (None, 0)), (0, None))(a, b)
    np.testing.assert_allclose(table.asnumpy(), a.asnumpy() @ b.asnumpy().T)
    table_t = ms.vmap(ms.vmap(dot, (0, None)), (None, 0), 1)(a, b)
    np.testing.assert_allclose(table_t.asnumpy(), a.asnumpy() @ b.asnumpy().T)


def test_numbers_none_and_keyword_arguments():
    x = Tensor(np.array([[1.0, 2.0], [3.0, -4.0]]))
    out = ms.vmap(lambda t, scale=1.0: (float(t.sum()) * scale, None))(x, scale=2.0)
    np.testing.assert_allclose(out[0].asnumpy(), [6.0, -2.0])
    assert out[1] is None


def test_empty_batch():
    x = Tensor(np.zeros((0, 3), np.float32))
    y = Tensor(np.ones(3, np.float32))
    out = ms.vmap(lambda a, b: (a + b, a.sum()), (0, None), (1, 0))(x, y)
    assert out[0].shape == (3, 0) and out[1].shape == (0,)
    assert out[0].dtype == ms.float32


def test_cell_list_ensemble():
    cells = nn.CellList([nn.Dense(3, 2), nn.Dense(3, 2)])
    x = Tensor(np.random.default_rng(0).standard_normal((2, 4, 3)).astype(np.float32))
    out = ms.vmap(cells)(x)
    for i in range(2):
        np.testing.assert_allclose(out[i].asnumpy(), cells[i](x[i]).asnumpy(), rtol=1e-6)
    shared = ms.vmap(cells, None)(x[0])
    np.testing.assert_allclose(shared[1].asnumpy(), cells[1](x[0]).asnumpy(), rtol=1e-6)


# ---- gradients -----------------------------------------------------------------------------------

def test_per_example_gradients_and_gradient_through_vmap():
    w = Tensor(np.array([0.5, -1.0, 2.0]))
    xs = Tensor(np.random.default_rng(1).standard_normal((4, 3)))

    def loss(wv, x):
        return ops.tanh((wv * x).sum()) ** 2
    per_example = ms.vmap(ms.grad(loss), (None, 0))(w, xs)
    for i in range(4):
        np.testing.assert_allclose(per_example[i].asnumpy(),
                                   ms.grad(loss)(w, xs[i]).asnumpy(), rtol=1e-14)
    total = ms.grad(lambda wv: ms.vmap(loss, (None, 0))(wv, xs).sum())(w)
    np.testing.assert_allclose(total.asnumpy(), per_example.asnumpy().sum(0), rtol=1e-13)
    jac = ms.jacrev(lambda x: ms.vmap(lambda r: ops.sin(r) * r.sum())(x))(xs)
    assert jac.shape == (4, 3, 4, 3)
    for i in range(4):
        np.testing.assert_allclose(jac.asnumpy()[i, :, i],
                                   ms.jacrev(lambda r: ops.sin(r) * r.sum())(xs[i]).asnumpy(),
                                   rtol=1e-14)
        assert not jac.asnumpy()[i, :, (i + 1) % 4].any()


# ---- errors --------------------------------------------------------------------------------------

X23 = Tensor(np.ones((2, 3)))
X42 = Tensor(np.ones((4, 2)))


def add(a, b):
    return a + b



@pytest.mark.parametrize("call,exc,match", [
    (lambda: ms.vmap(add)(X23, X42), ValueError, "one size"),
    (lambda: ms.vmap(add, (None, None))(X23, X23), ValueError, "all None"),
    (lambda: ms.vmap(add, (0,))(X23, X23), ValueError, "1 entries"),
    (lambda: ms.vmap(add, (3, 0))(X23, X23), ValueError, "out of range"),
    (lambda: ms.vmap(add)(Tensor(1.0), Tensor(2.0)), ValueError, "out of range"),
    (lambda: ms.vmap(add, 0)(X23, 2.0), TypeError, "not a Tensor"),
    (lambda: ms.vmap(add, 1.5), TypeError, "in_axes"),
    (lambda: ms.vmap(add, 0, "x"), TypeError, "out_axes"),
    (lambda: ms.vmap(add, ((0, 0), None))(X23, X23), ValueError, "entries"),
    (lambda: ms.vmap(lambda a: a.sum(), 0, 1)(X23), ValueError, "out_axes"),
    (lambda: ms.vmap(lambda a: (a, a), 0, (0,))(X23), ValueError, "out_axes"),
    (lambda: ms.vmap(lambda a: a[: int(a.sum()) % 2 + 1] * 1.0)(
        Tensor(np.array([[1.0, 0.0], [1.0, 1.0]]))), ValueError, "one shape"),
    (lambda: ms.vmap(lambda a: "s")(X23), TypeError, "output leaf"),
    (lambda: ms.vmap(3), TypeError, "callable"),
    (lambda: ms.vmap(nn.CellList([nn.Dense(3, 2)]))(X23), ValueError, "CellList"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
    assert _tape._state.tape is None and _tape._active == 0


def test_a_failing_example_rolls_back_the_writes_of_all():
    p = ms.Parameter(Tensor(np.zeros(3)), name="p")

    def step(x):
        p[int(x[0])] = 1.0
        if int(x[0]) == 2:
            raise ValueError("example 2")
        return x * 2.0
    with pytest.raises(ValueError, match="example 2"):
        ms.vmap(step)(Tensor(np.arange(3.0).reshape(3, 1)))
    np.testing.assert_array_equal(p.asnumpy(), np.zeros(3))
