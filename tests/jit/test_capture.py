"""Graph mode, capture and replay: a jitted function equals eager bit for bit on every call, or
runs eagerly with the reason in `stats`."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore._autodiff.tape import apply, wrap
from minispore._jit import MAX_TRACES, runtime
from minispore.ops.operations.conv_ops import Conv2D
from minispore.ops.operations.random_ops import SeededPrimitive
from minispore.ops.primitive import Primitive

UNARY = [ops.tanh, ops.exp, ops.sin, ops.abs, ops.relu, ops.sigmoid, ops.neg, ops.sqrt,
         ops.log, ops.square, lambda x: x.sum(axis=-1, keepdims=True), lambda x: x.mean(),
         lambda x: ops.softmax(x, -1), lambda x: (x * 1).T.T, lambda x: ops.cast(x, ms.float64),
         lambda x: ops.maximum(x, 0.5), lambda x: ops.where(x > 0, x, -x), lambda x: x[1:] * 2]
BINARY = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
          lambda a, b: ops.add(a, b), lambda a, b: ops.mul(a, b), lambda a, b: a * 1.5,
          lambda a, b: 2.0 - a, lambda a, b: a ** 2, lambda a, b: ops.matmul(a, b.T),
          lambda a, b: ops.minimum(a, b), lambda a, b: a + 3]


def in_both_modes(run):
    """[run() under PYNATIVE_MODE, run() under GRAPH_MODE] (the mode reset after each)."""
    out = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            out.append(run())
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    return out


def same(a, b):
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, Tensor):
        return (isinstance(b, Tensor) and a.dtype == b.dtype and a.shape == b.shape
                and np.array_equal(a.asnumpy(), b.asnumpy(), equal_nan=True)
                and np.array_equal(np.signbit(a.asnumpy()), np.signbit(b.asnumpy())))
    return type(a) is type(b) and repr(a) == repr(b)


def program(ops_drawn):
    """A function of two (3, 4) tensors applying the drawn ops to values made so far."""
    def fn(x, y):
        pool = [x, y]
        for kind, k, i, j in ops_drawn:
            a, b = pool[i % len(pool)], pool[j % len(pool)]
            if kind == 2:
                r = a * 2 if bool(a.sum() > 0) else ops.exp(a) - int(a.max() > 1)
            elif kind == 0:
                r = UNARY[k % len(UNARY)](a)
            else:
                if a.shape != b.shape or a.dtype != b.dtype:
                    b = a
                r = BINARY[k % len(BINARY)](a, b)
            if r.shape == (3, 4) and r.dtype == ms.float32:
                pool.append(r)
        return tuple(pool[2:]) or (x * 1,)
    return fn


def fresh(rng, shape=(3, 4)):
    return Tensor(rng.standard_normal(shape).astype(np.float32))


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 50), st.integers(0, 20),
                          st.integers(0, 20)), min_size=1, max_size=12),
       st.integers(0, 2 ** 31 - 1))
def test_random_programs_replay_bitwise(ops_drawn, seed):
    rng = np.random.default_rng(seed)
    fn = program(ops_drawn)
    jitted = ms.jit(fn)
    for _ in range(4):
        x, y = fresh(rng), fresh(rng)
        assert same(fn(x, y), jitted(x, y))
    assert jitted.stats["captures"] == 1
    assert jitted.stats["replays"] == 3
    assert jitted.stats["fallbacks"] == {}
    [(trace, _)] = next(iter(jitted.compiled.cache.values()))
    x, y = fresh(rng), fresh(rng)
    assert same(fn(x, y), trace.interpret([x._data, y._data], [x, y]))


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 50), st.integers(0, 20),
                          st.integers(0, 20)), min_size=1, max_size=10),
       st.integers(0, 2 ** 31 - 1))
def test_random_programs_with_branches_follow_each_call(ops_drawn, seed):
    rng = np.random.default_rng(seed)
    fn = program(ops_drawn)
    jitted = ms.jit(fn)
    for _ in range(6):
        x, y = fresh(rng), fresh(rng)
        assert same(fn(x, y), jitted(x, y))
    stats = jitted.stats
    assert stats["captures"] <= MAX_TRACES
    assert stats["captures"] + stats["replays"] + stats["eager_calls"] == 6
    assert stats["fallbacks"] == {}


def test_new_shapes_and_scalars_capture_per_signature():
    def fn(x, s):
        return ops.tanh(x * s)
    jitted = ms.jit(fn)
    rng = np.random.default_rng(1)
    for shape, s in [((2, 3), 0.5), ((2, 3), 0.5), ((4,), 0.5), ((2, 3), 2.0), ((4,), 0.5)]:
        x = fresh(rng, shape)
        assert same(fn(x, s), jitted(x, s))
    assert jitted.stats["captures"] == 3 and jitted.stats["replays"] == 2


def test_branch_on_tensor_value_takes_both_sides():
    def fn(x):
        if bool(x.sum() > 0):
            return x * 2
        return x - 1
    jitted = ms.jit(fn)
    for v in [1.0, -1.0, 2.0, -3.0, 4.0, -5.0]:
        x = Tensor(np.full((3,), v, np.float32))
        assert same(fn(x), jitted(x))
    assert jitted.stats["captures"] == 2
    assert jitted.stats["replays"] == 4


def test_tensor_trip_count_loop_is_guarded():
    def fn(x, n):
        for _ in range(int(n)):
            x = x * 1.5 + 1
        return x
    jitted = ms.jit(fn)
    rng = np.random.default_rng(2)
    for n in [2, 3, 2, 3, 0]:
        x = fresh(rng)
        assert same(fn(x, Tensor(n, ms.int32)), jitted(x, Tensor(n, ms.int32)))
    assert jitted.stats["captures"] == 3


def test_guard_churn_is_bounded_then_eager():
    def fn(x):
        return x * float(x.sum())
    jitted = ms.jit(fn)
    rng = np.random.default_rng(3)
    for _ in range(MAX_TRACES + 4):
        x = fresh(rng)
        assert same(fn(x), jitted(x))
    assert jitted.stats["captures"] == MAX_TRACES
    assert "more than 8 traces" in jitted.stats["disabled"]
    assert jitted.stats["eager_calls"] == 4


def test_outside_tensors_and_parameters_are_read_at_each_call():
    w = Parameter(Tensor(np.ones((3, 4), np.float32)), name="w")
    bias = Tensor(np.zeros((4,), np.float32))

    def fn(x):
        return x * w + bias
    jitted = ms.jit(fn)
    rng = np.random.default_rng(4)
    for k in range(4):
        x = fresh(rng)
        assert same(fn(x), jitted(x))
        w.set_data(Tensor(np.full((3, 4), k + 2.0, np.float32)))
        ops.assign(bias, Tensor(np.full((4,), float(k), np.float32)))
    assert jitted.stats["captures"] == 1 and jitted.stats["replays"] == 3


def test_rebinding_a_global_captures_again():
    jitted = ms.jit(_scaled_by_global)
    global _SCALE
    for s in [Tensor(2.0), Tensor(3.0)]:
        _SCALE = s
        x = Tensor(np.ones(3, np.float32))
        assert same(_scaled_by_global(x), jitted(x))
    assert jitted.stats["captures"] == 2


_SCALE = Tensor(2.0)


def _scaled_by_global(x):
    return x * _SCALE


def test_returned_arguments_are_the_same_objects():
    jitted = ms.jit(lambda x, y: (x, y + 1))
    for _ in range(2):
        x, y = Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float32))
        out = jitted(x, y)
        assert out[0] is x and same(out[1], y + 1)


def _falls_back(fn, args_list, reason):
    jitted = ms.jit(fn)
    for args in args_list:
        assert same(fn(*args), jitted(*args))
    assert jitted.stats["replays"] == 0
    assert any(reason in r for r in jitted.stats["fallbacks"]), jitted.stats
    return jitted


def _inputs(n=3):
    rng = np.random.default_rng(5)
    return [(fresh(rng),) for _ in range(n)]


def test_numpy_on_tensor_data_runs_eagerly():
    _falls_back(lambda x: x * Tensor(x.asnumpy() * 2), _inputs(), "tensor data leaves the trace")


def test_print_runs_eagerly(capsys):
    def fn(x):
        print("value")
        return x + 1
    _falls_back(fn, _inputs(), "print")
    assert capsys.readouterr().out.count("value") == 6


def test_python_side_effect_on_a_cell_runs_eagerly():
    class Counting(nn.Cell):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def construct(self, x):
            self.calls += 1
            return x * 2
    net = Counting()
    jitted = ms.jit(net.construct)
    for x, in _inputs(4):
        assert same(x * 2, jitted(x))
    assert net.calls == 4
    assert any("side effect" in r for r in jitted.stats["fallbacks"])


def test_in_place_write_runs_eagerly():
    p = Parameter(Tensor(np.zeros(3, np.float32)), name="p")

    def fn(x):
        ops.assign_add(p, x)
        return p * 1
    jitted = ms.jit(fn)
    x = Tensor(np.ones(3, np.float32))
    outs = [jitted(x) for _ in range(3)]
    assert [o.asnumpy()[0] for o in outs] == [1.0, 2.0, 3.0]
    assert any("in-place write" in r for r in jitted.stats["fallbacks"])


def test_gradient_inside_jit_replays():
    grad = ms.grad(lambda x: (ops.tanh(x) * x).sum())
    fn = lambda x: grad(x) * 2  # noqa: E731
    jitted = ms.jit(fn)
    for (x,) in _inputs(4):
        assert same(fn(x), jitted(x))
    assert jitted.stats["replays"] == 3 and jitted.stats["fallbacks"] == {}


class _PositivePart(Primitive):
    """max(x, 0) whose bprop wraps its mask from NumPy, as a library op not yet ported to a
    DataFunction node would."""
    inputs = ("x",)
    saves = ("x",)

    def forward(self, x):
        return np.maximum(x, 0)

    def bprop(self, saved, dout, needs):
        return (dout * wrap((saved[0]._data > 0).astype(dout._data.dtype)),)


def test_data_derived_constant_runs_eagerly():
    prim = _PositivePart()
    grad = ms.grad(lambda x: apply(prim, (x,)).sum())
    _falls_back(lambda x: grad(x) * 2, _inputs(), "wrap of an array no traced value owns")


@pytest.mark.parametrize("fn", [
    lambda x: ops.maximum(x, x * 0.5).sum(), lambda x: ops.minimum(x, 0.25).sum(),
    lambda x: ops.clip_by_value(x, -0.5, 0.5).sum(), lambda x: x.max(),
    lambda x: ops.amin(x.reshape(2, -1), 1).sum()])
def test_tie_and_clip_masks_replay_from_the_new_data(fn):
    grad = ms.grad(fn)
    jitted = ms.jit(lambda x: grad(x) * 2)
    rng = np.random.default_rng(7)
    for k in range(4):
        x = fresh(rng, (6,))
        if k % 2:  # ties: an even split the replay must find again
            x = Tensor(np.where(np.arange(6) % 2, x.asnumpy(), 0.25).astype(np.float32))
        assert same(grad(x) * 2, jitted(x))
    assert jitted.stats["replays"] == 3, jitted.stats


def test_convolution_replays_with_its_patches_made_again():
    conv = nn.Conv2d(2, 3, 3)
    rng = np.random.default_rng(6)
    jitted = ms.jit(conv.construct)
    for _ in range(3):
        x = fresh(rng, (1, 2, 5, 5))
        assert same(conv.construct(x), jitted(x))
    assert jitted.stats["replays"] == 2


def test_fullgraph_raises_instead_of_running_eagerly():
    jitted = ms.jit(lambda x: x * Tensor(x.asnumpy()), fullgraph=True)
    with pytest.raises(RuntimeError, match="cannot be captured"):
        jitted(Tensor(np.ones(2, np.float32)))


def test_jit_under_a_gradient_gives_equal_gradients():  # replays: tests/jit/test_vjp.py
    f = lambda x: ops.tanh(x * 2).sum()
    x = Tensor(np.linspace(-1, 1, 5).astype(np.float32))
    assert same(ms.grad(f)(x), ms.grad(ms.jit(f))(x))


def test_set_seed_random_ops_equal_eager():
    drop = nn.Dropout(p=0.5).set_train(True)
    jitted = ms.jit(drop.construct)
    rng = np.random.default_rng(7)
    xs = [fresh(rng, (4, 8)) for _ in range(3)]
    ms.set_seed(11)
    eager = [drop(x) for x in xs]
    ms.set_seed(11)
    assert all(same(e, jitted(x)) for e, x in zip(eager, xs))
    ms.set_seed(11)
    eager_normal = [x + ops.randn((4, 8)) for x in xs]
    normal = ms.jit(lambda x: x + ops.randn((4, 8)))
    ms.set_seed(11)
    assert all(same(e, normal(x)) for e, x in zip(eager_normal, xs))


class _Noise(SeededPrimitive):
    """x plus standard normal noise drawn in forward (a random node that replays)."""

    differentiable = False

    def __init__(self):
        super().__init__()
        self._seeds(0, 0)

    def forward(self, x):
        return x + self._generator().standard_normal(x.shape).astype(x.dtype)


def test_random_nodes_replay_the_same_draws_and_are_not_repeated_on_a_miss():
    noise = _Noise()

    def fn(x):
        y = noise(x)
        if bool(x.sum() > 0):
            return y * 2
        return noise(y) - 1
    jitted = ms.jit(fn)
    xs = [Tensor(np.full((4, 8), v, np.float32)) for v in (1.0, -1.0, 1.0, -1.0, -1.0, 1.0)]
    ms.set_seed(3)
    eager = [fn(x) for x in xs]
    ms.set_seed(3)
    assert all(same(e, jitted(x)) for e, x in zip(eager, xs))
    assert jitted.stats["captures"] == 2 and jitted.stats["replays"] == 4
    assert jitted.stats["guard_misses"] >= 1


def test_cells_replay_and_training_flag_is_keyed():
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dropout(p=0.5), nn.Dense(8, 2),
                             nn.LayerNorm((2,))])
    jitted = ms.jit(net.construct)
    rng = np.random.default_rng(8)
    for train in (False, True, False, True):
        net.set_train(train)
        x = fresh(rng, (5, 4))
        ms.set_seed(1)
        e = net(x)
        ms.set_seed(1)
        assert same(e, jitted(x))
    assert jitted.stats["captures"] == 2  # one per training flag
    assert jitted.stats["replays"] >= 1


def test_nested_jit_is_inlined():
    inner = ms.jit(lambda x: x * 3)
    outer = ms.jit(lambda x: inner(x) + 1)
    for x, in _inputs():
        assert same(x * 3 + 1, outer(x))
    assert outer.stats["replays"] == 2 and inner.stats["captures"] == 0


class _Scaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 3)
        self.scale = 2.0

    @ms.jit
    def construct(self, x):
        return self.dense(x) * self.scale


def test_jit_on_construct_in_the_class_body_sees_attribute_changes():
    net = _Scaled()
    rng = np.random.default_rng(9)
    for scale in (2.0, 2.0, 3.0, 3.0):
        net.scale = scale
        x = fresh(rng, (2, 4))
        assert same(net.dense(x) * scale, net(x))
    stats = type(net).construct.stats
    assert stats["captures"] == 2 and stats["replays"] == 2


def test_parameter_copies_made_inside_are_not_baked():
    p = Parameter(Tensor(np.ones(3, np.float32)), name="p")
    for make in (lambda: p.value(), lambda: p.data):
        jitted = ms.jit(lambda x, make=make: x + make())
        for k in range(3):
            p.set_data(Tensor(np.full(3, float(k), np.float32)))
            x = Tensor(np.ones(3, np.float32))
            assert same(x + make(), jitted(x))


def test_graph_call_replays_a_cell():
    from minispore._jit import cell_stats, graph_call
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2)])
    rng = np.random.default_rng(10)
    for _ in range(3):
        x = fresh(rng, (3, 4))
        assert same(net(x), graph_call(net, (x,), {}))
    assert cell_stats(net)["replays"] == 2


def test_rebinding_inside_a_global_dict_captures_again():
    jitted = ms.jit(_times_config)
    two, five = Tensor(2.0), Tensor(5.0)
    for w in (two, two, five):
        _CONFIG["w"] = w
        x = Tensor(np.ones(3, np.float32))
        assert same(_times_config(x), jitted(x))
    assert jitted.stats["captures"] == 2


_CONFIG = {"w": Tensor(2.0)}


def _times_config(x):
    return x * _CONFIG["w"]


def test_cell_read_through_a_closure_is_checked():
    net = _Scaled()
    jitted = ms.jit(lambda x: net.dense(x) * net.scale)
    rng = np.random.default_rng(11)
    for scale in (2.0, 2.0, 4.0):
        net.scale = scale
        x = fresh(rng, (2, 4))
        assert same(net.dense(x) * scale, jitted(x))
    assert jitted.stats["captures"] == 2


def test_cell_hooks_run_eagerly():
    net = nn.Dense(4, 3)
    seen = []
    net.register_forward_hook(lambda cell, inputs, output: seen.append(1))
    jitted = ms.jit(net.construct)
    rng = np.random.default_rng(12)
    for _ in range(3):
        x = fresh(rng, (2, 4))
        assert same(net.construct(x), jitted(x))
    assert any("hooks" in r for r in jitted.stats["fallbacks"])


def test_item_with_an_index_is_a_guard():
    def fn(x):
        return x * x.item(1)
    jitted = ms.jit(fn)
    for v in (1.0, 1.0, 2.0):
        x = Tensor(np.array([0.5, v], np.float32))
        assert same(fn(x), jitted(x))
    assert jitted.stats["captures"] == 2 and jitted.stats["replays"] == 1


def test_one_tensor_passed_twice_is_keyed_apart():
    fn = lambda x, y: x - y
    jitted = ms.jit(fn)
    rng = np.random.default_rng(13)
    x = fresh(rng)
    assert same(fn(x, x), jitted(x, x))
    for _ in range(2):
        x, y = fresh(rng), fresh(rng)
        assert same(fn(x, y), jitted(x, y))
        assert same(fn(x, x), jitted(x, x))
    assert jitted.stats["captures"] == 2


def test_dtype_arguments_are_keyed_by_value():
    fn = lambda x, dt: ops.cast(x, dt) * 2
    jitted = ms.jit(fn)
    x = Tensor(np.arange(3, dtype=np.float32))
    for dt in (ms.float64, ms.float64, ms.int32, ms.int32):
        assert same(fn(x, dt), jitted(x, dt))
    assert jitted.stats["captures"] == 2 and jitted.stats["replays"] == 2


def test_graphs_print_nodes_guards_and_parameters():
    net = nn.Dense(3, 2)

    @ms.jit
    def fn(x):
        y = net(x)
        return ops.relu(y) * 2.0 if bool(y.sum() > 0) else y
    fn(Tensor(np.ones((2, 3), np.float32)))
    [text] = fn.graphs()
    assert "param weight" in text and "Prim[Dense]" in text
    assert "guard __bool__(%" in text and text.splitlines()[-1].startswith("  return %")


def test_an_argument_also_read_from_a_global_runs_eagerly():
    global _SHARED
    fn = lambda x: x * _SHARED
    jitted = ms.jit(fn)
    _SHARED = Tensor(np.full(3, 2.0, np.float32))
    assert same(fn(_SHARED), jitted(_SHARED))
    x = Tensor(np.ones(3, np.float32))
    assert same(fn(x), jitted(x))
    assert any("also reads" in r for r in jitted.stats["fallbacks"])


_SHARED = None


def test_replacing_a_cell_parameter_captures_again():
    net = nn.Dense(3, 2)
    jitted = ms.jit(net.construct)
    rng = np.random.default_rng(14)
    for k in range(3):
        if k == 2:
            net.weight = Parameter(Tensor(np.full((2, 3), 3.0, np.float32)), name="weight")
        x = fresh(rng, (2, 3))
        assert same(net.construct(x), jitted(x))
    assert jitted.stats["captures"] == 2


def test_promotion_paths_replay_bitwise():
    def fn(x, y, i):
        return (x + y, i * 2.5, i + x, 2 - i, x / i, (x > 0) + 1, y * True, i // 2,
                ops.add(i, y), x ** i, -i, ops.cast(i, ms.float16) * x)
    jitted = ms.jit(fn)
    rng = np.random.default_rng(15)
    for _ in range(4):
        x = fresh(rng)
        y = Tensor(rng.standard_normal((3, 4)))
        i = Tensor(rng.integers(1, 5, (4,)).astype(np.int32))
        assert same(fn(x, y, i), jitted(x, y, i))
    assert jitted.stats["replays"] == 3


def test_a_to_float_cell_inside_replays_its_casts():
    net = nn.Dense(4, 3).to_float(ms.float16)
    fn = lambda x: ops.relu(net(x)) * 2
    jitted = ms.jit(fn)
    rng = np.random.default_rng(16)
    for _ in range(3):
        x = fresh(rng, (2, 4))
        assert same(fn(x), jitted(x))
    assert jitted.stats["replays"] == 2


class _Positive(Primitive):
    """The positive elements of x (an output shape that depends on the data)."""

    differentiable = False

    def forward(self, x):
        return x[x > 0]


def test_data_dependent_shapes_are_checked():
    positive = _Positive()

    def fn(x):
        kept = positive(x)
        return kept * 2, kept.shape[0]
    jitted = ms.jit(fn)
    for v in ([1.0, -1.0, 2.0], [3.0, -1.0, 5.0], [1.0, 1.0, 1.0], [-1.0, -2.0, 4.0], [1.0, 1.0, 2.0]):
        x = Tensor(np.array(v, np.float32))
        assert same(fn(x), jitted(x))
    assert jitted.stats["captures"] == 3 and jitted.stats["replays"] == 2
    assert jitted.stats["guard_misses"] >= 2


def test_a_mask_entering_as_numpy_data_runs_eagerly():
    fn = lambda x: x[x > 0] * 2
    _falls_back(fn, [(Tensor(np.array(v, np.float32)),) for v in ([1.0, -1.0], [1.0, 1.0])],
                "NumPy data")


def test_a_view_of_an_argument_is_a_view_as_in_eager():
    from minispore.common import _views
    fn = lambda x: x.reshape(2, 6)
    jitted = ms.jit(fn)
    rng = np.random.default_rng(17)
    for _ in range(3):
        x, x2 = fresh(rng), None
        x2 = Tensor(x.asnumpy().copy())
        out, expected = jitted(x), fn(x2)
        assert same(expected, out)
        assert (_views.lookup(out) is None) == (_views.lookup(expected) is None)
        out[0, 0] = 7.0
        expected[0, 0] = 7.0
        assert same(x2, x)
    assert jitted.stats["replays"] == 2


_EMBEDDING = nn.Embedding(6, 3, padding_idx=0)


def _padded_embedding_grad(ids):
    return ms.grad(lambda i: (_EMBEDDING(i) * 1.5).sum(), None, _EMBEDDING.embedding_table)(ids)


def _norm_grad(x):
    return ms.grad(lambda t: ops.norm(t, dim=1).sum())(x)


@pytest.mark.parametrize("fn, first, later", [
    # library code that branches on the data (zeros under a norm's sqrt, NaN in nansum, empty
    # segments, padding rows): the branch is a guard, so a later call with the other case is
    # computed for it, never replayed from the first call's branch
    (_norm_grad, [[1.0, 2.0], [3.0, 4.0]], [[0.0, 0.0], [3.0, 4.0]]),
    (lambda x: ops.nansum(x, 1), [[1.0, 2.0], [3.0, 4.0]], [[np.nan, 2.0], [3.0, 4.0]]),
    (lambda x: _padded_embedding_grad(ops.cast(x, ms.int32)), [[1, 2], [3, 4]], [[0, 2], [3, 0]]),
], ids=["norm-gradient-at-zero", "nansum-nan", "embedding-padding-row"])
def test_library_branches_on_data_are_guarded(fn, first, later):
    jitted = ms.jit(fn)
    for values in (first, first, later, later, first):
        x = Tensor(np.array(values, np.float32))
        assert same(fn(x), jitted(x))
    assert jitted.stats["replays"] >= 2


def test_a_parameter_copy_made_while_capturing_runs_eagerly():
    # the copy holds the first call's values: a replay reading it by reference would be stale
    w = Parameter(Tensor(np.ones(4, np.float32)), name="w")
    jitted = _falls_back(lambda x: x * w.copy(), _inputs(), "Parameter.clone/copy")
    w.set_data(Tensor(np.full(4, 2.0, np.float32)))
    x = Tensor(np.ones((3, 4), np.float32))
    assert same(jitted(x), x * w)


def test_a_tensor_given_for_a_python_value_is_guarded():
    # ops.TripletMarginLoss reads a Tensor margin as a Python float: a guard, so a new margin
    # is not replayed with the first call's
    loss = ops.TripletMarginLoss()
    jitted = ms.jit(lambda x, p, n, m: loss(x, p, n, m))
    rng = np.random.default_rng(9)
    x, p, n = (fresh(rng, (4, 3)) for _ in range(3))
    for margin in (1.0, 1.0, 3.0, 3.0):
        m = Tensor(np.float32(margin))
        assert same(loss(x, p, n, m), jitted(x, p, n, m))
    assert jitted.stats["captures"] == 2 and jitted.stats["replays"] == 2, jitted.stats


def test_a_replay_drops_each_value_once_dead():
    # a chain of 1 MiB temporaries: eager frees each once used, and so must the replay (the
    # generated code deletes dead locals), or its peak grows with the chain's length
    import tracemalloc

    def chain(x):
        for _ in range(12):
            x = ops.exp(x * 0.5)  # exp: not in the memory plan, a new array per step
        return x
    jitted = ms.jit(chain)
    x = Tensor(np.ones(1 << 18, np.float32))
    jitted(x)
    jitted(x)
    peaks = []
    for fn in (chain, jitted):
        tracemalloc.start()
        fn(x)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert jitted.stats["replays"] >= 2
    assert peaks[1] < 4 * (1 << 20), peaks  # a few arrays alive at once, not twelve


def test_tensor_only_calls_are_keyed_as_the_general_path_keys_them():
    jitted = ms.jit(lambda a, b: a * b)
    x, y = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones(3, np.float64))
    jitted(x, y)
    jitted(x, b=y)  # keyword arguments: the general path
    tensors, key, cells = [], [], []
    runtime._key_of((x, y), tensors, key, cells)
    runtime._key_of({}, tensors, key, cells)
    keys = list(jitted.compiled.cache)
    assert keys[0] == tuple(key) and len(keys) == 2 and jitted.stats["captures"] == 2


def test_conv_patches_are_made_once_per_replay_for_the_forward_and_the_filter_gradient(
        monkeypatch):
    net = nn.SequentialCell([nn.Conv2d(1, 3, 3, pad_mode="valid"), nn.ReLU(),
                             nn.Conv2d(3, 2, 3, pad_mode="valid")])
    step = ms.value_and_grad(lambda x: net(x).sum(), None, net.trainable_params())
    jitted = ms.jit(step)
    x = Tensor(np.random.default_rng(0).standard_normal((2, 1, 8, 8)).astype(np.float32))
    jitted(x)
    calls = []
    original = Conv2D._im2col
    monkeypatch.setattr(Conv2D, "_im2col", lambda self, *a: calls.append(1) or original(self, *a))
    got = jitted(x)
    assert len(calls) == 2 and jitted.stats["replays"] == 1  # eager makes them once too
    monkeypatch.undo()
    assert same(step(x), got)


def test_a_domain_check_on_tensor_values_is_repeated_at_every_replay():
    # mvlgamma refuses inputs at or below (p-1)/2: a replay must refuse them too, not return
    # the log-gamma sums of an input eager would have refused
    jitted = ms.jit(lambda x: ops.mvlgamma(x, 3))
    good = Tensor(np.array([2.5, 3.0], np.float32))
    assert same(jitted(good), ops.mvlgamma(good, 3)) and same(jitted(good), jitted(good))
    with pytest.raises(ValueError, match="greater than"):
        jitted(Tensor(np.array([0.5, 3.0], np.float32)))
    assert jitted.stats["replays"] >= 2 and jitted.stats["guard_misses"] == 1


def test_a_negative_variance_is_refused_at_a_replay_as_eagerly():
    jitted = ms.jit(lambda x, t, v: ops.gaussian_nll_loss(x, t, v))
    x, t = Tensor(np.ones((2, 3), np.float32)), Tensor(np.zeros((2, 3), np.float32))
    var = Tensor(np.full((2, 3), 0.5, np.float32))
    assert same(jitted(x, t, var), ops.gaussian_nll_loss(x, t, var))
    jitted(x, t, var)
    with pytest.raises(ValueError, match="non-negative"):
        jitted(x, t, Tensor(np.full((2, 3), -0.5, np.float32)))


def test_anomaly_detection_runs_jitted_functions_eagerly_so_it_checks_every_primitive():
    jitted = ms.jit(lambda x: ops.log(x) * 2)
    x = Tensor(np.array([1.0, 2.0], np.float32))
    jitted(x)
    jitted(x)
    bad = Tensor(np.array([-1.0, 2.0], np.float32))
    with ms.detect_anomaly(), pytest.raises(RuntimeError, match="anomaly"):
        jitted(bad)
    ms.set_context(detect_anomaly=True)
    try:
        with pytest.raises(RuntimeError, match="anomaly"):
            jitted(bad)
    finally:
        ms.set_context(detect_anomaly=False)
    assert np.isnan(jitted(bad).asnumpy()[0])  # off again: replayed, NaN as eager gives
    assert jitted.stats["fallbacks"] == {runtime.ANOMALY: 2}
