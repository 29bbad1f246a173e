"""The memory plan of the generated replay code (minispore/_jit/plan.py): which values get
buffers, in-place reuse, liveness through views, pinned values, and replay bitwise equal to the
interpreter and to eager, with buffers reused across calls and never returned."""
import threading

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import minispore as ms
from minispore import Tensor, ops
from minispore._jit import plan
from minispore.ops.operations.array_ops import Reshape, Transpose
from minispore.ops.operations.math_ops import Abs, Add, Exp, Greater, Mul, Neg, Sub
from minispore.ops.operations.reduce_ops import ReduceSum
from minispore.ops.operations.nn_ops import Sigmoid, Tanh

from .test_capture import same
from .test_passes import SPECIAL, Graph, assert_bitwise, c, run


def f32(v):
    return np.array(v, np.float32)


def buffers_of(trace):
    p = plan.make_plan(trace)
    return None if p is None else (p.buffers, p.out)


def test_a_chain_alternates_two_buffers_unary_steps_in_place_and_the_output_is_not_planned():
    """A binary ufunc never writes over an operand (which of two NaNs comes out would depend on
    the loop), so a chain takes turns between two buffers; a unary one writes in place."""
    x = SPECIAL.reshape(2, 4)
    g = Graph(x)
    a = g.op(Mul(), 0, c(f32(3)))
    b = g.op(Add(), a, c(f32(0.5)))
    d = g.op(Neg(), b)
    e = g.op(Mul(), d, c(f32(2)))
    tr = g.trace(g.op(Sub(), e, 0))
    buffers, out = buffers_of(tr)
    assert buffers == [((2, 4), np.dtype(np.float32))] * 2
    assert out == {0: 0, 1: 1, 2: 1, 3: 0}  # the returned Sub gets fresh memory
    with np.errstate(all="ignore"):
        want = -(x * np.float32(3) + np.float32(0.5)) * np.float32(2) - x
    assert_bitwise(run(tr, x), [want])


def test_an_add_of_two_nans_keeps_the_first_as_a_fresh_result_does():
    """Written over its first operand, NumPy's add of one element takes its reduction loop and
    returns the second NaN; eager's fresh result has the first. The plan writes apart."""
    x = np.array([np.nan], np.float32)
    y = np.array([np.nan], np.float32)
    x.view(np.uint32)[0] |= 0x111
    y.view(np.uint32)[0] |= 0x222
    g = Graph(x, y)
    a = g.op(Abs(), 0)  # planned
    b = g.op(Add(), a, 1)  # a dies here
    tr = g.trace(g.op(Neg(), b))
    _, out = buffers_of(tr)
    assert out[1] != out[0]
    got = run(tr, x, y)[0]
    assert got.view(np.uint32)[0] == (-(np.abs(x) + y)).view(np.uint32)[0]
    assert got.view(np.uint32)[0] & 0xFFF == 0x111


def test_a_view_keeps_its_buffer_busy_until_its_last_use():
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    g = Graph(x)
    a = g.op(Add(), 0, c(f32(1)))  # step 0, buffer 0
    t = g.op(Transpose(), a, c((1, 0)))  # a view of buffer 0
    b = g.op(Mul(), 0, c(f32(2)))  # step 2: buffer 0 is still viewed by t, so buffer 1
    e = g.op(Neg(), b)  # in place on buffer 1
    tr = g.trace(g.op(Add(), g.op(Transpose(), t, c((1, 0))), e))
    buffers, out = buffers_of(tr)
    assert out[0] == 0 and out[2] == out[3] == 1 and len(buffers) == 2
    assert_bitwise(run(tr, x), [(x + 1) + -(x * 2)])


def test_a_dead_value_s_block_holds_a_later_value_of_another_shape():
    """Buffers are views of blocks of bytes: a block whose value has died holds the next
    planned value of any shape and dtype that fits (grown to hold a larger one), so the plan's
    memory follows the live bytes, as the allocator's reuse does in eager."""
    x = np.random.default_rng(3).standard_normal((2, 4)).astype(np.float32)
    g = Graph(x)
    a = g.op(Add(), 0, c(f32(1)))  # step 0: block 0, 32 bytes
    r = g.op(ReduceSum(False), a, c(1))  # step 1: a is still read, so block 1; a dies here
    e = g.op(Mul(), r, c(f32(2)))  # step 2: (2,) float32, not over r (binary): on a's block
    m = g.op(Greater(), e, c(f32(1)))  # step 3: (2,) bool, a block of its own (e is live)
    tr = g.trace(g.op(Add(), e, c(f32(1))), g.op(Mul(), m, c(np.int32(3))))
    p = plan.make_plan(tr)
    assert p.block_of[p.out[2]] == p.block_of[p.out[0]] != p.block_of[p.out[1]]
    assert p.buffers[p.out[2]] == ((2,), np.dtype(np.float32)) and p.blocks[0] == 32
    with np.errstate(all="ignore"):
        for v in (x, x * 2):
            e = (v + np.float32(1)).sum(axis=1) * np.float32(2)
            assert_bitwise(run(tr, v), [e + np.float32(1), (e > np.float32(1)) * np.int32(3)])


def test_no_in_place_write_over_an_input_another_input_views():
    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    g = Graph(x)
    a = g.op(Mul(), 0, c(f32(2)))
    t = g.op(Transpose(), a, c((1, 0)))
    s = g.op(Add(), a, t)  # a and its transpose both die here
    tr = g.trace(g.op(Exp(), s))
    _, out = buffers_of(tr)
    assert out[2] != out[0]
    want = np.exp((x * 2) + (x * 2).T)
    assert_bitwise(run(tr, x), [want])


def test_pinned_values_get_no_buffer():
    x = SPECIAL
    g = Graph(x)
    guarded = g.op(Mul(), 0, c(f32(2)))
    g.guard(guarded)
    viewed = g.op(Add(), 0, c(f32(1)))
    tr = g.trace(g.op(Reshape(), viewed, c((2, 4))), g.op(Exp(), guarded))
    assert buffers_of(tr) is None
    g = Graph(x)
    e = g.op(Sigmoid(), 0)
    tr = g.trace(g.op(Add(), e, c(f32(1))))  # not a planned primitive, then the output
    assert buffers_of(tr) is None


def test_transcendentals_are_planned_apart_from_their_inputs_and_unknown_fields_stop_the_plan(
        monkeypatch):
    g = Graph(SPECIAL)
    a = g.op(Add(), 0, c(f32(1)))
    b = g.op(Tanh(), a)  # a dies here: Add would write in place, tanh must not
    tr = g.trace(g.op(Sub(), b, c(f32(1))))
    buffers, out = buffers_of(tr)
    assert out[0] != out[1] and len(buffers) == 2
    with np.errstate(all="ignore"):
        assert_bitwise(run(tr, SPECIAL), [np.tanh(SPECIAL + np.float32(1)) - np.float32(1)])
    monkeypatch.setattr(plan, "KNOWN_NODE_FIELDS", plan.KNOWN_NODE_FIELDS - {"quiet"})
    assert buffers_of(tr) is None


def test_strided_and_broadcast_inputs_take_the_allocating_path():
    x = np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32)
    g = Graph(x)
    a = g.op(Mul(), 0, c(f32(3)))
    tr = g.trace(g.op(Exp(), g.op(Add(), a, c(f32(1)))))
    assert buffers_of(tr) is not None
    for arg in (x, x[:, ::-1], np.asfortranarray(x), np.broadcast_to(x[:1], (3, 8))):
        got = run(tr, arg)
        assert_bitwise(got, [np.exp(arg * np.float32(3) + np.float32(1))])


def test_jitted_buffers_are_reused_and_never_returned():
    def fn(x, y):
        a = x * 2.0 + y
        b = (a - y) * a
        return ops.exp(b), -b + 1.0
    jitted = ms.jit(fn)
    rng = np.random.default_rng(1)
    xs = [Tensor(rng.standard_normal((4, 5)).astype(np.float32)) for _ in range(8)]
    jitted(xs[0], xs[1])
    [(trace, _)] = next(iter(jitted.compiled.cache.values()))
    results = [jitted(xs[k], xs[k + 1]) for k in range(6)]
    pool = trace.fn.__globals__["_pool"]
    assert len(pool) == 1 and len(pool[0]) >= 1
    for k, r in enumerate(results):  # earlier results untouched by later calls
        assert same(r, fn(xs[k], xs[k + 1]))
        assert not any(np.may_share_memory(t.asnumpy(), b) for t in r for b in pool[0])
    assert jitted.stats["replays"] == 6


def test_concurrent_replays_use_their_own_buffers():
    jitted = ms.jit(lambda x: ops.exp((x * 3.0 + 1.0) * x))
    rng = np.random.default_rng(2)
    xs = [Tensor(rng.standard_normal(4096).astype(np.float32)) for _ in range(16)]
    jitted(xs[0])
    want = [ops.exp((x * 3.0 + 1.0) * x) for x in xs]
    bad = []

    def work():
        for _ in range(20):
            for x, w in zip(xs, want):
                if not same(jitted(x), w):
                    bad.append(1)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad


FLOATS = (ms.float16, ms.float32, ms.float64)
MIXED_OPS = [
    lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: -a,
    lambda a, b: ops.abs(a), lambda a, b: ops.floor(a) if a.dtype in FLOATS else a * 2,
    lambda a, b: a > b, lambda a, b: a * 1, lambda a, b: a + 0, lambda a, b: a - 0.0,
    lambda a, b: ops.exp(a.astype(ms.float32)), lambda a, b: a.T.T,
    lambda a, b: a.reshape(a.shape), lambda a, b: (a * 2).sum(axis=0, keepdims=True),
]
DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8]


def _layouts(rng, dtype):
    """A (3, 4) argument as C-contiguous memory, a transposed view and a broadcast view."""
    def values(shape):
        v = rng.standard_normal(shape) * 5
        return Tensor(np.where(rng.random(shape) < 0.1, -0.0, v).astype(dtype))
    return [values((3, 4)), values((4, 3)).T, ops.broadcast_to(values((1, 4)), (3, 4))]


@given(st.lists(st.tuples(st.integers(0, len(MIXED_OPS) - 1), st.integers(0, 9),
                          st.integers(0, 9)), min_size=1, max_size=9),
       st.sampled_from(DTYPES), st.sampled_from(DTYPES),
       st.sampled_from([(3, 4), (1, 4), (3, 1), ()]), st.integers(0, 2 ** 31 - 1))
def test_mixed_dtypes_broadcasts_and_views_replay_bitwise(prog, dx, dy, y_shape, seed):
    """Planned ufuncs on mixed dtypes (casts, promotion, comparisons), broadcasting operands, and
    arguments that are strided or broadcast views at replay: equal to eager bit for bit."""
    def fn(x, y):
        pool = [x, y]
        for k, i, j in prog:
            try:
                pool.append(MIXED_OPS[k](pool[i % len(pool)], pool[j % len(pool)]))
            except (TypeError, ValueError):
                pass
        return tuple(pool[2:]) or (x * 1,)
    rng = np.random.default_rng(seed)
    jitted = ms.jit(fn)
    y = Tensor((rng.standard_normal(y_shape) * 5).astype(dy))
    for x in _layouts(rng, dx):
        with np.errstate(all="ignore"):
            want, got = fn(x, y), jitted(x, y)
        assert same(want, got)
    assert jitted.stats["captures"] == 1
    assert jitted.stats["replays"] == 2 or jitted.stats["fallbacks"]  # a returned view: eager
