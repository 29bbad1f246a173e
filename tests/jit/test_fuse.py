"""Fusion and backends (minispore/_jit/fuse.py, kernels.py; docs/graph_mode.md, "Fusion, backends
and the kernel cache"): the grouping on hand-built traces, the fused trace's NumPy forward bitwise
equal to the unfused trace, the dumps, the backend choice, and with numba installed the kernels
within the stated tolerance of eager and their disk cache."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minispore as ms
from minispore import Tensor, nn, ops
from minispore._jit import fuse, kernels, pipeline
from minispore._jit.capture import Node
from minispore.ops.operations.array_ops import Transpose
from minispore.ops.operations.math_ops import Add, Exp, Maximum, Mul, Neg, RealDiv
from minispore.ops.operations.nn_ops import GeLU, ReLU, Tanh
from minispore.ops.operations.reduce_ops import ReduceMax, ReduceSum

from .test_capture import fresh, program, same
from .test_passes import Graph, assert_bitwise, c, prims, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 8)).astype(np.float32)
B = RNG.standard_normal(8).astype(np.float32)
COL = RNG.standard_normal((4, 1)).astype(np.float32)

# The numba backend's tolerance (docs/graph_mode.md): |jit - eager| <= TOL * (1 + |eager|), the
# same NaN and infinity positions.
TOL = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


def groups(trace):
    return fuse.fused_groups(trace)


def members(group):
    return [type(m.prim).__name__ for m in group.members]


def test_bias_relu_becomes_one_fused_node_with_the_same_bits():
    g = Graph(X, B)
    h = g.op(Add(), 0, 1)
    r = g.op(ReLU(), h)
    tr = g.trace(r)
    new = fuse.fuse(tr)
    assert prims(new) == ["Fused"]
    [group] = groups(new)
    assert members(group) == ["Add", "ReLU"] and group.ins == (0, 1) and group.outs == (r,)
    assert group.shape == (4, 8) and group.backend == "numpy"
    assert_bitwise(run(new, X, B), run(tr, X, B))
    single = Graph(X)
    single.op(Exp(), 0)
    alone = single.trace(1)
    assert fuse.fuse(alone) is alone  # one node: nothing to fuse
    several = Graph(X)
    several.op(GeLU(), 0)
    [group] = groups(fuse.fuse(several.trace(1)))  # unless its NumPy forward makes several passes
    assert members(group) == ["GeLU"]


def test_a_value_read_outside_the_group_closes_it():
    g = Graph(X, X)
    a = g.op(Add(), 0, 1)
    t = g.op(Transpose(), a, c((1, 0)))  # reads a: a's group is closed
    b = g.op(Mul(), a, 1)
    d = g.op(Neg(), b)
    tr = g.trace(t, d)
    new = fuse.fuse(tr)
    assert prims(new) == ["Add", "Transpose", "Fused"]
    [group] = groups(new)
    assert members(group) == ["Mul", "Neg"] and group.ins == (a, 1) and group.outs == (d,)
    assert_bitwise(run(new, X, X), run(tr, X, X))


def test_a_guard_on_a_member_closes_the_group():
    g = Graph(X)
    a = g.op(Exp(), 0)
    g.guard(a)
    g.op(Neg(), a)
    tr = g.trace(3)
    assert fuse.fuse(tr) is tr


def test_reductions_over_the_last_axis_and_their_row_values_join_the_group():
    g = Graph(X)
    e = g.op(Exp(), 0)
    s = g.op(ReduceSum(keep_dims=True), e, c(-1))
    d = g.op(RealDiv(), e, s)  # a (4, 8) value of a (4, 1) row value: softmax
    tr = g.trace(d)
    new = fuse.fuse(tr)
    [group] = groups(new)
    assert members(group) == ["Exp", "ReduceSum", "RealDiv"] and group.outs == (d,)
    assert prims(new) == ["Fused"]
    assert_bitwise(run(new, X), run(tr, X))
    square = X[:, :4].copy()
    g1 = Graph(square)
    e1 = g1.op(Exp(), 0)
    s1 = g1.op(ReduceSum(), e1, c(-1))  # (4,): broadcast along the last axis, not per row
    tr1 = g1.trace(g1.op(Add(), e1, s1))
    [group] = groups(fuse.fuse(tr1))
    assert members(group) == ["Exp", "ReduceSum"] and group.outs == (e1, s1)
    g0 = Graph(X)
    e0 = g0.op(Exp(), 0)
    tr0 = g0.trace(g0.op(ReduceMax(), e0, c(0)))
    assert fuse.fuse(tr0) is tr0  # another axis: not fused


def test_groups_of_other_shapes_stay_apart_row_groups_and_open_groups_merge():
    g = Graph(X, B)
    a = g.op(Exp(), 1)  # (8,)
    b = g.op(Neg(), a)
    x = g.op(Tanh(), 0)  # (4, 8), a group of its own
    y = g.op(Add(), x, b)  # joins x's group; b's group (another shape) is closed by it
    z = g.op(Mul(), y, 0)
    tr = g.trace(z)
    new = fuse.fuse(tr)
    first, second = groups(new)
    assert members(first) == ["Exp", "Neg"] and first.outs == (b,)
    assert members(second) == ["Tanh", "Add", "Mul"] and second.ins == (0, b)
    assert_bitwise(run(new, X, B), run(tr, X, B))
    rows = Graph(X, COL)
    p = rows.op(Exp(), 1)  # (4, 1): becomes the row part of the (4, 8) group
    q = rows.op(Tanh(), 0)
    tr2 = rows.trace(rows.op(Add(), q, p))
    [group] = groups(fuse.fuse(tr2))
    assert members(group) == ["Exp", "Tanh", "Add"] and group.shape == (4, 8)
    assert_bitwise(run(fuse.fuse(tr2), X, COL), run(tr2, X, COL))


def layer_norm_gelu(x, gamma):
    mu = x.mean(-1, keep_dims=True)
    d = x - mu
    var = (d * d).mean(-1, keep_dims=True)
    y = d / ops.sqrt(var + 1e-5) * gamma
    return ops.gelu(y), ops.softmax(y, -1), ops.sigmoid(y).sum(-1)


def test_dumps_show_the_fused_groups():
    jitted = ms.jit(layer_norm_gelu, backend="numpy")
    x, gamma = Tensor(X), Tensor(B)
    jitted(x, gamma)
    [text] = jitted.ir("fused")
    assert text.startswith("# graph layer_norm_gelu  trace 0  stage fused  nodes ")
    assert "= Fused0[" in text and "backend numpy" in text
    assert "#   %" in text and "Prim[ReduceMean]" in text
    [n_groups, n_members] = jitted.stats["fused"][0]
    assert n_groups >= 2 and n_members >= 5
    assert jitted.stats["backend"] == "numpy"
    assert "Fused" not in jitted.ir("replay")[0]  # the NumPy backend replays the unfused trace
    for _ in range(2):
        assert same(layer_norm_gelu(x, gamma), jitted(x, gamma))


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 50), st.integers(0, 20),
                          st.integers(0, 20)), min_size=1, max_size=12),
       st.integers(0, 2 ** 31 - 1))
def test_fused_numpy_forward_replays_random_programs_bitwise(ops_drawn, seed):
    rng = np.random.default_rng(seed)
    fn = program(ops_drawn)
    jitted = ms.jit(fn, backend="numpy")
    x, y = fresh(rng), fresh(rng)
    assert same(fn(x, y), jitted(x, y))
    fused = jitted.compiled.stages[0]["fused"]
    for _ in range(2):
        x, y = fresh(rng), fresh(rng)
        expected = fn(x, y)
        assert same(expected, jitted(x, y))
        assert same(expected, fused.interpret([x._data, y._data], [x, y]))
        assert same(expected, fused.replay([x._data, y._data], [x, y]))


def test_backend_choice(monkeypatch):
    with pytest.raises(ValueError, match="For 'jit', 'backend' must be one of"):
        ms.jit(layer_norm_gelu, backend="llvm")
    x, gamma = Tensor(X), Tensor(B)
    for name in ("ms_backend", "GE", ""):
        monkeypatch.delenv(pipeline.BACKEND_ENV, raising=False)
        jitted = ms.jit(layer_norm_gelu, backend=name)
        jitted(x, gamma)
        assert jitted.stats["backend"] == "numpy"
    monkeypatch.setenv(pipeline.BACKEND_ENV, "cuda")
    pipeline._warned.clear()
    with pytest.warns(RuntimeWarning, match="MINISPORE_JIT_BACKEND='cuda' is not"):
        assert pipeline.resolve_backend("") == "numpy"
    monkeypatch.setattr(kernels, "numba_version", lambda: None)
    monkeypatch.setenv(pipeline.BACKEND_ENV, "numba")
    pipeline._warned.clear()
    jitted = ms.jit(layer_norm_gelu)
    with pytest.warns(RuntimeWarning, match="needs numba"):
        jitted(x, gamma)
    assert jitted.stats["backend"] == "numpy"
    assert same(layer_norm_gelu(x, gamma), jitted(x, gamma))


# Elementwise programs over a (3, 5) pool with a bias row b (5,) and a column c (3, 1): the ops
# the fusion pass groups, broadcasts, and reductions over the last axis whose per-row results
# feed later ops (continuous functions only, so the numba tolerance holds through them).
ELEMENTWISE = [
    lambda x, y, b, c: x + b, lambda x, y, b, c: x * c - y, lambda x, y, b, c: x / (1.0 + y * y),
    lambda x, y, b, c: ops.relu(x) + c, lambda x, y, b, c: ops.sigmoid(x) * y,
    lambda x, y, b, c: ops.tanh(x - b), lambda x, y, b, c: ops.gelu(x),
    lambda x, y, b, c: ops.gelu(x, approximate="none"), lambda x, y, b, c: ops.maximum(x, y),
    lambda x, y, b, c: ops.where(x > y, x, y), lambda x, y, b, c: ops.exp(-(x * x)),
    lambda x, y, b, c: ops.log(1.0 + x * x), lambda x, y, b, c: -ops.sqrt(x * x + 0.5),
    lambda x, y, b, c: x - x.mean(-1, keep_dims=True),
    lambda x, y, b, c: x / ops.sqrt((x * x).mean(-1, keep_dims=True) + 1e-3),
    lambda x, y, b, c: ops.exp(x - ops.amax(x, -1, True)),
    lambda x, y, b, c: y * x.sum(-1, keepdims=True),
    lambda x, y, b, c: ops.cast(ops.cast(x, ms.float64) * 0.5, ms.float32),
    lambda x, y, b, c: ops.minimum(x, c) * ops.sigmoid(y),
]
TO_FLOAT32 = 17  # the ELEMENTWISE entry whose result is float32 whatever its input


def through(drawn, dtype):
    """The least precise float type a drawn program computes in (for `close`)."""
    return np.float32 if dtype == np.float32 or any(
        k % len(ELEMENTWISE) == TO_FLOAT32 for k, _, _ in drawn) else dtype


def elementwise_program(drawn):
    def fn(x, y, b, c):
        pool = [x, y]
        for k, i, j in drawn:
            pool.append(ELEMENTWISE[k % len(ELEMENTWISE)](pool[i % len(pool)],
                                                         pool[j % len(pool)], b, c))
        return tuple(pool[2:])
    return fn


PROGRAMS = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 30), st.integers(0, 30)),
                    min_size=1, max_size=12)


def program_inputs(rng, dtype=np.float32):
    return [Tensor(rng.standard_normal(s).astype(dtype)) for s in ((3, 5), (3, 5), (5,), (3, 1))]


@settings(deadline=None)
@given(PROGRAMS, st.integers(0, 2 ** 31 - 1))
def test_elementwise_programs_fuse_and_replay_bitwise_with_numpy(drawn, seed):
    rng = np.random.default_rng(seed)
    fn = elementwise_program(drawn)
    jitted = ms.jit(fn, backend="numpy")
    args = program_inputs(rng)
    assert same(fn(*args), jitted(*args))
    fused = jitted.compiled.stages[0]["fused"]
    for _ in range(2):
        args = program_inputs(rng)
        expected = fn(*args)
        assert same(expected, jitted(*args))
        assert same(expected, fused.replay([a._data for a in args], args))


# ---- the numba backend ------------------------------------------------------------------------

@pytest.fixture
def numba_cache(tmp_path, monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.setenv(kernels.CACHE_ENV, str(tmp_path / "kernels"))
    return tmp_path / "kernels"


def close(expected, got, through=None):
    """Within the numba backend's stated tolerance, with the same NaN and infinity positions.
    `through`: a less precise float type the computation passes through (a float32 step's
    last-bit difference carries into a float64 result), whose tolerance then applies."""
    if isinstance(expected, (tuple, list)):
        assert len(expected) == len(got)
        for e, g in zip(expected, got):
            close(e, g, through)
        return
    e, g = expected.asnumpy(), got.asnumpy()
    assert e.dtype == g.dtype and e.shape == g.shape
    assert np.array_equal(np.isnan(e), np.isnan(g))
    finite = np.isfinite(e)
    assert np.array_equal(e[~finite & ~np.isnan(e)], g[~finite & ~np.isnan(e)])
    if e.dtype.kind == "f":
        tol = max(TOL[e.dtype], TOL[np.dtype(through)] if through is not None else 0.0)
        assert np.all(np.abs(e[finite] - g[finite]) <= tol * (1 + np.abs(e[finite])))
    else:
        assert np.array_equal(e, g)


def test_numba_kernels_cover_normalisation_activations_and_broadcasts(numba_cache):
    def fn(x, b, col, xt):
        h = ops.relu(x * 2.0 + b) - col * ops.tanh(x) + xt.T
        return layer_norm_gelu(h, b) + (ops.maximum(h, col).max(-1), ops.where(h > col, h, -h))

    jitted = ms.jit(fn, backend="numba")
    for dt in (np.float32, np.float64):
        args = [Tensor(a.astype(dt)) for a in (X, B, COL, np.ascontiguousarray(X.T))]
        jitted(*args)
        for _ in range(2):
            close(fn(*args), jitted(*args))
    assert jitted.stats["backend"] == "numba"
    run = jitted.compiled.stages[0]["run"]
    made = [g for g in groups(run) if g.backend == "numba"]
    assert len(made) >= 3 and all(g.kernel_source for g in made)
    # the hand-written LayerNorm and the GeLU after it: one kernel, three passes over each row
    [norm] = [g for g in made if members(g).count("ReduceMean") == 2]
    assert members(norm)[-1] == "GeLU" and norm.kernel_source.count("in range(n1)") == 3
    assert run is jitted.compiled.stages[0]["fused"]  # the numba backend replays the fused trace
    assert sorted(p.name for p in numba_cache.glob("k_*.py"))


def test_numba_fuses_a_graph_of_0d_values_with_sin_and_cos_into_one_kernel(numba_cache):
    def f(t):
        return ops.sin(t) * ops.exp(t) + ops.cos(t * 0.5)
    g = f
    for _ in range(3):
        g = ms.grad(g)
    jitted = ms.jit(g, backend="numba")
    for v in (0.5, -2.0, 7.25):
        for dt in (np.float32, np.float64):
            x = Tensor(np.asarray(v, dt))
            close(g(x), jitted(x))
    made = [grp for stage in jitted.compiled.stages for grp in groups(stage["run"])]
    assert len(made) == 2 and all(grp.backend == "numba" for grp in made)  # one per dtype
    assert all(grp.shape == () and "for " not in grp.kernel_source for grp in made)
    assert all({"Sin", "Cos"} <= set(members(grp)) for grp in made)


def tanh_chain(length):
    """W1's loss: `length` times y = tanh(y * 1.01 + 0.1), summed."""
    def f(x):
        y = x
        for _ in range(length):
            y = ops.tanh(y * 1.01 + 0.1)
        return y.sum()
    return f


def test_numba_kernel_returns_many_outputs_as_rows_of_one_array(numba_cache):
    # the forward chain's tanh values are saved for the backward: a kernel with many outputs of
    # one shape packs them (one boxed array instead of one per output)
    step = ms.value_and_grad(tanh_chain(12))
    jitted = ms.jit(step, backend="numba")
    for seed in range(3):
        x = Tensor(np.random.default_rng(seed).standard_normal(16).astype(np.float32))
        close(step(x), jitted(x))
    made = groups(jitted.compiled.stages[0]["run"])
    packed = [g for g in made if kernels.packs(g)]
    assert packed and all(g.backend == "numba" for g in made)
    assert all("return o\n" in g.kernel_source and len(g.outs) >= kernels.PACK_MIN
               for g in packed)


def test_numba_train_step_follows_eager(numba_cache):
    def make():
        ms.set_seed(3)
        net = nn.SequentialCell([nn.Dense(8, 16), nn.GELU(), nn.Dense(16, 4), nn.Sigmoid()])
        opt = nn.SGD(net.trainable_params(), 0.1)
        grad_fn = ms.value_and_grad(lambda x, y: ops.mse_loss(net(x), y), None,
                                    opt.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss
        return net, step

    x, y = Tensor(X), Tensor(RNG.standard_normal((4, 4)).astype(np.float32))
    net_e, step_e = make()
    net_j, step_j = make()
    jitted = ms.jit(step_j, backend="numba")
    for _ in range(4):
        close(step_e(x, y), jitted(x, y))
    assert jitted.stats["replays"] == 3 and jitted.stats["fused"][0][0] >= 2
    for p, q in zip(net_e.trainable_params(), net_j.trainable_params()):
        assert np.allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6)


@settings(deadline=None, max_examples=40,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the fixture sets an env var
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 50), st.integers(0, 20),
                          st.integers(0, 20)), min_size=1, max_size=12),
       st.integers(0, 2 ** 31 - 1))
def test_numba_random_programs_within_tolerance(numba_cache, ops_drawn, seed):
    rng = np.random.default_rng(seed)
    fn = program(ops_drawn)
    jitted = ms.jit(fn, backend="numba")
    for _ in range(3):
        x, y = fresh(rng), fresh(rng)
        close(fn(x, y), jitted(x, y))
    assert jitted.stats["fallbacks"] == {}


def test_numba_kernels_load_from_the_disk_cache_in_a_new_process(numba_cache):
    script = (
        "import numpy as np, minispore as ms\n"
        "from minispore import Tensor, ops\n"
        "from minispore._jit import kernels\n"
        "f = ms.jit(lambda x: ops.tanh(x * 2.0 + 1.0).sum(-1), backend='numba')\n"
        "x = Tensor(np.ones((3, 5), np.float32))\n"
        "f(x); f(x)\n"
        "[k] = kernels._kernels.values()\n"
        "print(sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()))\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    counts = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, check=True, cwd=ROOT)
        counts.append(out.stdout.split())
    assert counts == [["0", "1"], ["1", "0"]]  # compiled, then loaded from disk
    [source] = numba_cache.glob("k_*.py")
    assert "def kernel(a0):" in source.read_text()
    assert list(numba_cache.glob("__pycache__/k_*.nbi"))


def test_a_cached_kernel_file_that_is_not_its_source_is_written_again_not_run(numba_cache):
    def f(x):
        return ops.tanh(x * 2.0 + 1.0).sum(-1)
    x = Tensor(np.ones((3, 5), np.float32))
    want = ms.jit(f, backend="numba")(x)
    [path] = numba_cache.glob("k_*.py")
    path.write_text("raise RuntimeError('a tampered kernel file ran')\n")
    kernels._kernels.clear()  # as a new process: the kernel comes from the cache directory
    jitted = ms.jit(f, backend="numba")
    assert np.array_equal(jitted(x).asnumpy(), want.asnumpy())
    assert "def kernel(a0):" in path.read_text() and jitted.stats["fallbacks"] == {}


def test_numba_results_warn_nothing_and_keep_nan_and_inf(numba_cache):
    def fn(x):
        return ops.log(x) * 2.0, ops.exp(x * 100.0) - 1.0

    x = Tensor(np.array([[0.0, -1.0, 1.0, np.nan, np.inf, -0.0]], np.float32))
    jitted = ms.jit(fn, backend="numba")
    jitted(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = jitted(x)
    close(fn(x), got)
    assert [type(s.prim).__name__ for s in jitted.compiled.stages[0]["run"].steps
            if type(s) is Node] == ["Fused", "Fused"]


def test_numba_leaves_large_transcendental_groups_to_numpy(numba_cache):
    def fn(x):
        return ops.tanh(x * 1.01 + 0.1), ops.relu(x * 2.0 + 1.0)

    x = Tensor(np.ones((8, kernels.SIMD_ELEMENTS // 4), np.float32))
    jitted = ms.jit(fn, backend="numba")
    jitted(x)
    stages = jitted.compiled.stages[0]
    slow, fast = groups(stages["fused"])
    assert slow.backend.startswith("numpy (Tanh over 8192 elements") and fast.backend == "numba"
    assert prims(stages["run"]) == ["Mul", "Add", "Tanh", "Fused"]  # expanded, planned again
    close(fn(x), jitted(x))


def test_numba_kernel_takes_array_constants_and_0d_literals(numba_cache):
    g = Graph(X)
    scale = np.linspace(0.5, 1.5, 8).astype(np.float32)
    a = g.op(Mul(), 0, c(scale))  # an array constant: a kernel argument
    b = g.op(Add(), a, c(np.array(-np.inf, np.float32)))  # 0-d: a literal
    tr = g.trace(g.op(Maximum(), b, c(np.float32(np.nan))))
    new = fuse.fuse(tr)
    assert kernels.attach(new) == 1
    [group] = groups(new)
    assert group.ins[0] == 0 and group.ins[1][1] is scale and "-np.inf" in group.kernel_source
    got, want = run(new, X), run(tr, X)
    assert np.array_equal(got[0], want[0], equal_nan=True)


@settings(deadline=None, max_examples=40,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the fixture sets an env var
@given(PROGRAMS, st.integers(0, 2 ** 31 - 1), st.sampled_from([np.float32, np.float64]))
def test_numba_elementwise_programs_within_tolerance(numba_cache, drawn, seed, dtype):
    rng = np.random.default_rng(seed)
    fn = elementwise_program(drawn)
    jitted = ms.jit(fn, backend="numba")
    for _ in range(3):
        args = program_inputs(rng, dtype)
        close(fn(*args), jitted(*args), through(drawn, dtype))
    assert jitted.stats["fallbacks"] == {}


def test_numba_float32_tanh_is_within_two_ulp_of_the_correctly_rounded_tanh(numba_cache):
    def fn(x):
        t = ops.tanh(x)
        return t, t * 3.0

    jitted = ms.jit(fn, backend="numba")
    mags = np.concatenate([np.geomspace(1e-38, 12.0, 40_000, dtype=np.float32),
                           np.float32([0.0, 1e-45, 9.4, 9.5, 9.6, 30.0, np.inf, np.nan])])
    xs = np.concatenate([mags, -mags])
    xs = np.resize(xs, (-(-xs.size // 4096), 4096))  # each call one kernel of 4096 elements
    for row in xs:
        got = jitted(Tensor(row))[0].asnumpy()
        want = np.tanh(row.astype(np.float64)).astype(np.float32)
        assert np.array_equal(np.isnan(got), np.isnan(want))
        num = ~np.isnan(want)
        assert np.array_equal(np.signbit(got[num]), np.signbit(want[num]))  # -0.0 stays -0.0
        ulps = np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32))
        assert ulps[num].max() <= 2
    assert jitted.stats["fallbacks"] == {} and groups(jitted.compiled.stages[0]["fused"])


def test_numba_kernels_read_an_earlier_kernels_packed_outputs_whole(numba_cache):
    step = ms.value_and_grad(tanh_chain(60))
    jitted = ms.jit(step, backend="numba")
    x = Tensor(np.linspace(-1, 1, 16, dtype=np.float32))
    for _ in range(3):
        close(step(x), jitted(x))
    stage = jitted.compiled.stages[0]
    readers = [g for g in groups(stage["run"]) if g.routes]
    assert readers and all(g.pack_sources for g in readers)
    read = {q for g in readers for q in g.pack_sources}
    for g in groups(stage["run"]):
        if g.number in read:
            assert kernels.packs(g)
    source = jitted.compiled.stages[0]["run"].source
    assert all(f"pk{q} = " in source for q in read)
    # a routed row the replay never names as a value of its own
    assert any(f"v{x} = " not in source for g in readers for x in g.routes)
    # the kernels' forward on one array per input (what Trace.interpret calls) agrees
    run = stage["run"]
    same_result = run.interpret([x._data], [x])
    assert all(np.array_equal(a, b) for a, b in zip(same_result, run.fn([x._data])))


def test_a_read_whole_pack_of_unsure_shape_is_checked_once(numba_cache, monkeypatch):
    from minispore._jit import lower
    monkeypatch.setattr(lower, "_sure_of_outputs", lambda step, known: False)
    step = ms.value_and_grad(tanh_chain(60))
    jitted = ms.jit(step, backend="numba")
    x = Tensor(np.linspace(-1, 1, 16, dtype=np.float32))
    for _ in range(3):
        close(step(x), jitted(x))
    source = jitted.compiled.stages[0]["run"].source
    assert "if pk0.shape != ps0: return None" in source
    assert jitted.stats["replays"] == 2
