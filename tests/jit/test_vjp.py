"""A jitted function under `grad` / `value_and_grad`: the replayed forward is one tape node whose
bprop replays the captured VJP trace; values and gradients equal eager bit for bit
(docs/graph_mode.md, "Under a gradient transform")."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore._autodiff.tape import apply
from minispore._jit import cell_stats

from .test_capture import _PositivePart, fresh, program, same


def _compiled(jitted, calls):
    """The first call captures, every later one replays and replays its VJP (nothing eager)."""
    stats = getattr(jitted, "stats", jitted)  # a jitted function or `cell_stats(cell)`
    assert stats["captures"] == 1 and stats["eager_calls"] == 0, stats
    assert stats["replays"] == stats["grad_replays"] == calls - 1, stats
    assert stats["vjp_captures"] >= 1 and stats["vjp_eager"] == 0, stats
    assert stats["fallbacks"] == {}, stats


def _second_order_compiled(stats, calls):
    """`calls` replays at second order, each one node whose first backward was captured once
    (per key) and replayed after that, never run eagerly."""
    assert stats["grad2_replays"] == calls, stats
    assert stats["grad2_bwd_captures"] >= 1 and stats["grad2_bwd_eager"] == 0, stats
    assert stats["grad2_bwd_captures"] + stats["grad2_bwd_replays"] == calls, stats
    assert stats["fallbacks"] == {}, stats


def sin_exp(x):
    return (ops.sin(x) * ops.exp(x)).sum()


def test_grad_replays_the_forward_and_the_captured_vjp():
    jitted = ms.jit(sin_exp)
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = fresh(rng)
        assert same(ms.grad(sin_exp)(x), ms.grad(jitted)(x))
    _compiled(jitted, 4)
    assert jitted.stats["vjp_replays"] == 2  # the first replay's backward captured the VJP
    [(gt, _)] = next(iter(jitted.compiled.cache.values()))
    assert "# vjp for cotangents [True]" in gt.text()


def test_one_node_on_the_tape_for_the_whole_call():
    def f(x):
        return ops.tanh(ops.exp(x) * x + 1.0) * ops.sin(x)
    jitted = ms.jit(f)
    seen = []

    def loss(x):
        from minispore._autodiff import tape
        start = len(tape._state.tape.nodes)
        y = jitted(x)
        seen.append(len(tape._state.tape.nodes) - start)
        return y.sum()
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = fresh(rng)
        assert same(ms.grad(lambda x: f(x).sum())(x), ms.grad(loss)(x))
    assert seen[0] > 1 and seen[1:] == [1, 1]  # eager nodes at the capture, then one node


def test_value_and_grad_of_cell_weights_over_train_steps():
    def run(jit):
        ms.set_seed(3)
        net = nn.SequentialCell([nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 3)])
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

        def forward(x, y):
            return loss_fn(net(x), y)
        fwd = ms.jit(forward) if jit else forward
        opt = nn.SGD(net.trainable_params(), 0.1)
        step = ms.value_and_grad(fwd, None, opt.parameters)
        rng = np.random.default_rng(4)
        got = []
        for _ in range(5):
            x = fresh(rng, (6, 4))
            y = Tensor(rng.integers(0, 3, (6,)).astype(np.int32))
            loss, grads = step(x, y)
            opt(grads)
            got.append((loss, grads))
        return got, [p.asnumpy() for p in net.trainable_params()], fwd
    eager, weights_e, _ = run(False)
    compiled, weights_c, fwd = run(True)
    assert same(eager, compiled)
    assert all(np.array_equal(a, b) for a, b in zip(weights_e, weights_c))
    _compiled(fwd, 5)


def test_gradients_with_respect_to_arguments_and_weights_together():
    w = Parameter(Tensor(np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32)), name="w")

    def f(x):
        return (ops.exp(x * w) - w * w).sum()
    jitted = ms.jit(f)
    rng = np.random.default_rng(5)
    for _ in range(3):
        x = fresh(rng)
        assert same(ms.value_and_grad(f, 0, w)(x), ms.value_and_grad(jitted, 0, w)(x))
    _compiled(jitted, 3)
    # another set of differentiated Parameters is another trace (the node's inputs differ)
    x = fresh(rng)
    assert same(ms.grad(f, 0)(x), ms.grad(jitted, 0)(x))
    assert jitted.stats["captures"] == 2


def test_an_input_used_again_after_the_call_adds_its_gradients_in_eager_order():
    def f(x):
        return ops.sin(x) * x + ops.exp(x) * x
    jitted = ms.jit(f)
    rng = np.random.default_rng(6)
    for _ in range(6):
        x = Tensor((rng.standard_normal((64,)) * 30).astype(np.float32))
        assert same(ms.grad(lambda x: (f(x) * x + x).sum())(x),
                    ms.grad(lambda x: (jitted(x) * x + x).sum())(x))
    _compiled(jitted, 6)


def test_several_outputs_only_some_with_cotangents_and_integer_outputs():
    def f(x, y):
        return ops.tanh(x) * y, ops.log(y * y) - x, (x > 0).astype(ms.int32)
    jitted = ms.jit(f)
    rng = np.random.default_rng(7)
    first = lambda g: lambda x, y: g(x, y)[0].sum()  # noqa: E731
    both = lambda g: lambda x, y: g(x, y)[1].sum() + g(x, y)[0].mean()  # noqa: E731
    for _ in range(3):
        x, y = fresh(rng), fresh(rng)
        for loss in (first, both):
            assert same(ms.grad(loss(f), (0, 1))(x, y), ms.grad(loss(jitted), (0, 1))(x, y))
        got_e = ms.value_and_grad(f, (0, 1), has_aux=True)(x, y)
        got_c = ms.value_and_grad(jitted, (0, 1), has_aux=True)(x, y)
        assert same(got_e, got_c)
        assert got_c[0][2].dtype == ms.int32
    stats = jitted.stats
    assert stats["vjp_captures"] == 2  # one VJP per set of outputs that got cotangents
    assert stats["eager_calls"] == 0 and stats["vjp_eager"] == 0


def test_grad_with_aux_of_a_jitted_function():
    def f(x):
        y = ops.exp(x)
        return y.sum(), y * 2, x.shape[0]
    jitted = ms.jit(f)
    rng = np.random.default_rng(8)
    for _ in range(3):
        x = fresh(rng)
        assert same(ms.grad(f, has_aux=True)(x), ms.grad(jitted, has_aux=True)(x))
    _compiled(jitted, 3)


def _mlp_loss():
    ms.set_seed(9)
    net = nn.SequentialCell([nn.Dense(3, 5), nn.Tanh(), nn.Dense(5, 1)])
    return lambda x: net(x).sum()


@pytest.mark.parametrize("make", [lambda: sin_exp, _mlp_loss], ids=["sin-exp", "mlp"])
def test_grad_of_grad_second_and_third_order_equal_eager(make):
    f = make()
    jitted = ms.jit(f)
    rng = np.random.default_rng(10)
    for _ in range(2):
        x = fresh(rng, (2, 3))
        assert same(ms.grad(ms.grad(f))(x), ms.grad(ms.grad(jitted))(x))
        assert same(ms.grad(ms.grad(ms.grad(f)))(x), ms.grad(ms.grad(ms.grad(jitted)))(x))
        # a first-order gradient of the same function is compiled meanwhile
        assert same(ms.grad(f)(x), ms.grad(jitted)(x))
    stats = jitted.stats
    # one capture; every later call replays its forward: one node at first and second order
    # (there the first backward is a jitted function: captured once, then replayed), spliced
    # as eager's nodes at third order
    assert stats["captures"] == 1 and stats["eager_calls"] == 0, stats
    assert stats["spliced"] == 2 and stats["grad2_replays"] == 1, stats
    assert stats["grad2_bwd_captures"] == 1 and stats["grad2_bwd_eager"] == 0, stats
    assert stats["fallbacks"] == {}, stats


def test_forward_mode_vjp_and_hvp_replay_the_forward_with_eager_nodes():
    jitted = ms.jit(sin_exp)
    rng = np.random.default_rng(11)
    c = Tensor(np.float32(1.5))
    for _ in range(3):
        x, v = fresh(rng), fresh(rng)
        assert same(ops.jvp(sin_exp, x, v), ops.jvp(jitted, x, v))
        out_e, fn_e = ops.vjp(sin_exp, x)
        out_c, fn_c = ops.vjp(jitted, x)
        assert same(out_e, out_c) and same(fn_e(c), fn_c(c))
        assert same(ops.hvp(sin_exp, x, v), ops.hvp(jitted, x, v))
        assert same(ops.jacfwd(lambda t: ops.exp(t) * t)(x[0]),
                    ops.jacfwd(ms.jit(lambda t: ops.exp(t) * t))(x[0]))
    stats = jitted.stats
    assert stats["captures"] == 1 and stats["spliced"] == 8 and stats["eager_calls"] == 0


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 50), st.integers(0, 20),
                          st.integers(0, 20)), min_size=1, max_size=8),
       st.integers(0, 2 ** 31 - 1))
def test_random_programs_second_order_bitwise(ops_drawn, seed):
    rng = np.random.default_rng(seed)
    fn = program(ops_drawn)
    jitted = ms.jit(fn)

    def loss(g):
        def total(x, y):
            outs = g(x, y)
            s = (outs[0] * x).sum()
            for o in outs[1::2]:
                s = s + (o * o).sum()
            return s
        return total

    def second(g):  # the gradient of the sum of the first-order input gradients
        first = ms.grad(loss(g), (0, 1))
        return ms.value_and_grad(lambda x, y: first(x, y)[0].sum() + first(x, y)[1].mean(),
                                 (0, 1))
    for _ in range(3):
        x, y = fresh(rng), fresh(rng)
        assert same(second(fn)(x, y), second(jitted)(x, y))
    stats = jitted.stats
    assert stats["captures"] == 1 and stats["spliced"] == 0 and stats["eager_calls"] == 0
    _second_order_compiled(stats, 5)


def _with_signed_zeros(rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    a[rng.random((3, 4)) < 0.3] = -0.0
    a[rng.random((3, 4)) < 0.2] = 0.0
    return Tensor(a)


# How the value and the first-order gradients are used by the code around the jitted call: the
# inputs again before and after it, the outputs inside other ops, a tracked sensitivity.
_OUTSIDE = [
    lambda g, x, y: (g(x, y)[0] * x).sum(),
    lambda g, x, y: ops.sin(g(x, y)[0] + x).sum() + (ops.tanh(g(x, y)[-1]) * y).sum(),
    lambda g, x, y: (x * y).sum() + (g(x, y)[0] * g(x, y)[-1]).sum() + (x * x).sum(),
    lambda g, x, y: ops.exp(g(x, y)[-1]).mean() - (g(x, y)[0] * 0.5).sum(),
]


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 50), st.integers(0, 20),
                          st.integers(0, 20)), min_size=1, max_size=8),
       st.integers(0, len(_OUTSIDE) - 1), st.integers(0, 2), st.integers(0, 2 ** 31 - 1))
def test_random_programs_grad_of_grad_used_inside_and_outside_bitwise(ops_drawn, outside,
                                                                      how, seed):
    rng = np.random.default_rng(seed)
    fn = program(ops_drawn)
    jitted = ms.jit(fn)
    use = _OUTSIDE[outside]

    def second(g):
        loss = lambda x, y: use(g, x, y)  # noqa: E731
        if how == 0:  # plain grad of grad
            return ms.grad(lambda x, y: ms.grad(loss)(x, y).sum() * x.sum(), (0, 1))
        first = ms.grad(loss, (0, 1))
        if how == 1:  # value_and_grad over both first-order gradients, used again outside
            return ms.value_and_grad(
                lambda x, y: (first(x, y)[0] * x).sum() + ops.sin(first(x, y)[1]).sum(), (0, 1))
        # a sensitivity the outer transform tracks
        sens = ms.grad(loss, 0, sens_param=True)
        return ms.grad(lambda x, y: (sens(x, y, ops.tanh(loss(x, y))) * y).sum(), (0, 1))
    for _ in range(3):
        x, y = _with_signed_zeros(rng), fresh(rng)
        assert same(second(fn)(x, y), second(jitted)(x, y))
    stats = jitted.stats
    assert stats["spliced"] == 0 and stats["eager_calls"] == 0, stats
    assert stats["grad2_replays"] >= 2 and stats["grad2_bwd_eager"] == 0, stats
    assert stats["grad2_bwd_replays"] >= 1, stats
    assert stats["fallbacks"] == {}, stats


def test_grad_of_grad_with_weights_equals_eager_and_is_compiled():
    ms.set_seed(12)
    net = nn.SequentialCell([nn.Dense(4, 6), nn.Tanh(), nn.Dense(6, 2), nn.Sigmoid()])
    weights = net.trainable_params()
    scale = Tensor(np.float32(0.75))  # a tensor the function holds

    def loss(x):
        return ((net(x) * scale) ** 2).sum()
    jitted = ms.jit(loss)

    def penalty(f):  # the gradient norm, by the weights and the input
        return ms.value_and_grad(
            lambda x: sum([(g * g).sum() for g in ms.grad(f, 0, weights)(x)[1]]) + f(x),
            0, weights)
    rng = np.random.default_rng(13)
    for _ in range(4):
        x = _with_signed_zeros(rng)
        assert same(penalty(loss)(x), penalty(jitted)(x))
    stats = jitted.stats
    assert stats["captures"] == 1 and stats["eager_calls"] == 0, stats
    _second_order_compiled(stats, 3)  # the calls at first order are one node as before


def test_second_order_puts_one_node_for_the_forward_and_one_for_the_first_backward():
    def f(x):
        return ops.tanh(ops.exp(x) * x + 1.0) * ops.sin(x)
    jitted = ms.jit(f)
    names = []

    def outer(g):
        def first(x):
            from minispore._autodiff import tape
            nodes = tape._state.tape.nodes
            start = len(nodes)
            gx = ms.grad(lambda x: g(x).sum())(x)
            names.append([getattr(n[0], "name", "") for n in nodes[start:]])
            return (gx * x).sum()
        return ms.grad(first)
    rng = np.random.default_rng(14)
    for _ in range(3):
        x = fresh(rng)
        assert same(outer(f)(x), outer(jitted)(x))
    eager, compiled = names[-2], names[-1]
    assert len(eager) == 18  # the input link, 6 forward nodes, the sum, 10 backward nodes
    # the input link, the forward, the sum, and the first backward (captured at the second
    # call, replayed at the third)
    assert compiled == ["Identity", "jit(f)", "ReduceSum", "jit(first_backward(jit(f)))"]
    stats = jitted.stats
    assert stats["grad2_bwd_captures"] == 1 and stats["grad2_bwd_replays"] == 1, stats


def test_second_order_of_a_0d_function_with_the_shared_ones_sensitivity():
    # both transforms start their walks from the same read-only ones array (a 0-d output):
    # the traces take it once as a cotangent and once as a saved value
    jitted = ms.jit(lambda t: ops.sin(t) * ops.exp(t))
    for v in (0.5, -0.0, 2.0, 0.0):
        x = Tensor(np.asarray(v, np.float64))
        assert same(ms.grad(ms.grad(lambda t: ops.sin(t) * ops.exp(t)))(x),
                    ms.grad(ms.grad(jitted))(x))
    stats = jitted.stats
    assert stats["vjp_eager"] == 0 and stats["eager_calls"] == 0, stats
    _second_order_compiled(stats, 3)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2, 2)
        self.drop = nn.Dropout(p=0.3)
        self.fc = nn.Dense(36, 3)

    def construct(self, x):
        x = self.pool(ops.relu(self.bn(self.conv(x))))
        return self.fc(self.drop(x.reshape(x.shape[0], -1)))


def _train(mode, jit_construct=False):
    ms.set_context(mode=mode)
    try:
        ms.set_seed(12)
        net = _Net()
        if jit_construct:
            net.construct = ms.jit(net.construct)
        net.set_train()
        loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                     reduction="mean"))
        opt = nn.SGD(net.trainable_params(), 0.1)
        step = ms.value_and_grad(loss, None, opt.parameters)
        rng = np.random.default_rng(13)
        got = []
        for _ in range(4):
            x = fresh(rng, (2, 1, 8, 8))
            y = Tensor(rng.integers(0, 3, (2,)).astype(np.int32))
            value, grads = step(x, y)
            opt(grads)
            got.append((value, grads))
        return got, [p.asnumpy() for p in net.get_parameters()], loss, net
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_graph_mode_cell_under_grad_of_grad_with_weights_equals_pynative():
    def run(mode):
        ms.set_seed(15)
        net = _Net()
        weights = net.trainable_params()
        rng = np.random.default_rng(16)
        got = []
        ms.set_context(mode=mode)
        try:
            for k in range(4):
                x = fresh(rng, (2, 1, 8, 8))
                ms.set_seed(100 + k)  # the same dropout masks in both modes
                first = ms.grad(lambda x: (net(x) ** 2).sum(), 0, weights)
                got.append(ms.value_and_grad(
                    lambda x: sum([(g * g).sum() for g in first(x)[1]]), 0, weights)(x))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        return got, net
    want, _ = run(ms.PYNATIVE_MODE)
    got, net = run(ms.GRAPH_MODE)
    assert same(want, got)
    stats = cell_stats(net)
    assert stats["captures"] == 1 and stats["eager_calls"] == 0, stats
    _second_order_compiled(stats, 3)


def test_graph_mode_cell_inside_value_and_grad_is_compiled():
    # convolution, BatchNorm's statistics writes, max pooling and dropout's random mask
    eager, params_e, _, _ = _train(ms.PYNATIVE_MODE)
    graph, params_g, loss, _ = _train(ms.GRAPH_MODE)
    assert same(eager, graph)
    assert all(np.array_equal(a, b) for a, b in zip(params_e, params_g))
    _compiled(cell_stats(loss), 4)


def test_jitted_construct_inside_value_and_grad():
    eager, params_e, _, _ = _train(ms.PYNATIVE_MODE)
    compiled, params_c, _, net = _train(ms.PYNATIVE_MODE, jit_construct=True)
    assert same(eager, compiled)
    assert all(np.array_equal(a, b) for a, b in zip(params_e, params_c))
    _compiled(net.construct, 4)


def test_a_bprop_with_numpy_data_runs_the_backward_eagerly_on_the_replayed_forward():
    # the bprop wraps its mask from NumPy: its VJP cannot be a trace
    prim = _PositivePart()

    def f(x):
        return apply(prim, (x,)).sum()
    jitted = ms.jit(f)
    rng = np.random.default_rng(14)
    for _ in range(4):
        x = fresh(rng)
        assert same(ms.grad(f)(x), ms.grad(jitted)(x))
    stats = jitted.stats
    assert stats["grad_replays"] == 3 and stats["vjp_eager"] == 2
    assert any(r.startswith("the backward of a jitted function") and
               "wrap of an array no traced value owns" in r for r in stats["fallbacks"])


def test_a_tracked_tensor_from_outside_makes_the_key_eager():
    held = {}

    def f(x):
        return ops.exp(x) * held["t"]

    def loss(x):
        held["t"] = x * 2  # tracked by the transform, read by the jitted function
        return jitted(x).sum()
    jitted = ms.jit(f)
    rng = np.random.default_rng(15)
    for _ in range(3):
        x = fresh(rng)
        eager = ms.grad(lambda x: (ops.exp(x) * (x * 2)).sum())(x)
        assert same(eager, ms.grad(loss)(x))
    assert jitted.stats["grad_replays"] == 0


def test_guards_under_grad_follow_each_call():
    def f(x):
        return ops.exp(x) * 2 if bool(x.sum() > 0) else ops.sin(x) * x
    jitted = ms.jit(f)
    for sign in (1, -1, 1, -1, 1):
        x = Tensor(np.abs(np.linspace(0.1, 1, 6)).astype(np.float32) * sign)
        assert same(ms.value_and_grad(lambda x: f(x).sum())(x),
                    ms.value_and_grad(lambda x: jitted(x).sum())(x))
    stats = jitted.stats
    assert stats["captures"] == 2 and stats["grad_replays"] == 3


def test_a_parameter_written_in_place_after_the_call_is_refused_as_eager_refuses_it():
    w = Parameter(Tensor(np.ones(4, np.float32)), name="w")

    def f(x):
        return (ops.exp(x * w)).sum()
    jitted = ms.jit(f)
    x = fresh(np.random.default_rng(16), (4,))

    def loss(fn):
        def run(x):
            y = fn(x)
            ops.assign(w, w * 2)
            return y
        return run
    for fn in (f, jitted, jitted):
        w.set_data(Tensor(np.ones(4, np.float32)))
        with pytest.raises(RuntimeError, match="modified in place"):
            ms.grad(loss(fn), 0, w)(x)
    assert jitted.stats["grad_replays"] == 1  # the node of the replayed call refuses too


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 50), st.integers(0, 20),
                          st.integers(0, 20)), min_size=1, max_size=10),
       st.integers(0, 2 ** 31 - 1))
def test_random_programs_gradients_bitwise(ops_drawn, seed):
    rng = np.random.default_rng(seed)
    fn = program(ops_drawn)
    jitted = ms.jit(fn)
    w = Tensor(rng.standard_normal((3, 4)).astype(np.float32))

    def loss(g):
        def total(x, y):
            outs = g(x, y)
            s = (outs[0] * x).sum()  # x used again after the call
            for o in outs[2::2]:  # the odd outputs get no cotangent
                s = s + (o * w).sum()
            return s
        return total
    for _ in range(3):
        x, y = fresh(rng), fresh(rng)
        assert same(ms.value_and_grad(loss(fn), (0, 1))(x, y),
                    ms.value_and_grad(loss(jitted), (0, 1))(x, y))
    stats = jitted.stats
    assert stats["captures"] == 1 and stats["grad_replays"] == 2 and stats["eager_calls"] == 0


def test_a_recomputed_block_makes_the_key_eager():
    block = nn.SequentialCell([nn.Dense(4, 4), nn.Tanh()])
    block.recompute()
    net = nn.SequentialCell([block, nn.Dense(4, 2)])
    f = lambda x: net(x).sum()  # noqa: E731
    jitted = ms.jit(f)
    rng = np.random.default_rng(17)
    for _ in range(3):
        x = fresh(rng)
        assert same(ms.value_and_grad(f, 0, net.trainable_params())(x),
                    ms.value_and_grad(jitted, 0, net.trainable_params())(x))
    assert jitted.stats["grad_replays"] == 0
    assert any("'recompute' node" in r for r in jitted.stats["fallbacks"])


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 50), st.integers(0, 20),
                          st.integers(0, 20)), min_size=1, max_size=8),
       st.integers(0, 2 ** 31 - 1))
def test_random_programs_with_branches_under_grad_follow_each_call(ops_drawn, seed):
    rng = np.random.default_rng(seed)
    fn = program(ops_drawn)  # kind 2: a branch on a tensor-to-Python conversion (a guard)
    jitted = ms.jit(fn)

    def loss(g):
        return lambda x, y: sum((o * o).sum() for o in g(x, y)[::2]) + (g(x, y)[0] * y).sum()
    for _ in range(5):
        x, y = fresh(rng), fresh(rng)
        assert same(ms.value_and_grad(loss(fn), (0, 1))(x, y),
                    ms.value_and_grad(loss(jitted), (0, 1))(x, y))
    stats = jitted.stats
    assert stats["captures"] + stats["replays"] + stats["eager_calls"] == 10
    assert stats["grad_replays"] >= 5  # each second call with the same inputs replays
    assert all(r.startswith(("the backward of a jitted function", "more than"))
               for r in stats["fallbacks"]), stats["fallbacks"]
