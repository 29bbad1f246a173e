"""The memory plan's out= forms (minispore/_jit/plan.py, `planned_into`): each gives the bits of
the primitive's own forward, written into buffers at any alignment, and a replayed train step
allocates no array memory after its first calls except its returned value and 0-d scalars
(docs/graph_mode.md, "Memory plan")."""
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minispore as ms
from minispore import Tensor, nn
from minispore._jit import plan
from minispore.ops.operations._kernels import LEGACY_PROMOTION
from minispore.nn.optim.optimizer import add_scaled
from minispore.ops.primitive import PRIMITIVES

from . import numpy_allocs

NUMPY_DOMAIN = 389047  # tracemalloc's domain for NumPy's array data
FLOATS = (np.float32, np.float64)
SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-310, 1e30, -88.5, 89.0,
            710.0, 1.0, -1.0, 0.5]


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, np.ascontiguousarray(a).view(np.uint8).tobytes()


def _values(rng, shape, dtype, specials=True):
    with np.errstate(all="ignore"):
        return _draw(rng, shape, dtype, specials)


def _draw(rng, shape, dtype, specials):
    v = rng.standard_normal(shape) * 4
    if specials and v.size:
        mask = rng.random(shape) < 0.2
        v = np.where(mask, rng.choice(SPECIALS, shape), v)
    v = v.astype(dtype)
    payload = {4: (np.uint32, 0x7F800123), 8: (np.uint64, 0x7FF0000000000123)}
    if specials and v.dtype.kind == "f" and v.ndim and v.itemsize in payload:
        utype, nan = payload[v.itemsize]  # NaNs with other payloads
        raw = v.view(utype)
        raw[rng.random(shape) < 0.05] |= utype(nan)
    return v


def _buffer(shape, dtype, offset):
    """An empty C-contiguous array starting `offset` elements into a larger block."""
    n = int(np.prod(shape))
    return np.empty(n + 16, dtype)[offset:offset + n].reshape(shape)


def _check(prim, args, offset=0, consts=None):
    """The planned form of `prim` on `args` (None where it is not planned) against its forward,
    bit for bit, with the output and scratch buffers `offset` elements into larger blocks."""
    with np.errstate(all="ignore"):
        want = prim.forward(*args)
    ins = [None if a is None else plan._const_meta(a) for a in args]
    out = (np.shape(want), np.asarray(want).dtype)
    rule = plan.INTO_RULES.get(type(prim))
    into = rule(prim, ins, out) if rule is not None else \
        plan.CONST_RULES[type(prim)](prim, ins, out, consts)
    if into is None:
        return False
    o = _buffer(*out, offset)
    scratch = [_buffer(s, d, (offset * 3) % 16) for s, d in into.scratch]
    if into.ufunc is not None:
        got = into.ufunc(*args, out=o)
    else:
        got = into.write(o, *scratch, *args)
    assert got is o
    assert _bits(got) == _bits(want), type(prim).__name__
    return True


UNARY = sorted((c for c, r in plan.INTO_RULES.items() if r is plan._float_unary),
               key=lambda c: c.__name__) + [PRIMITIVES["Tanh"], PRIMITIVES["Square"],
                                            PRIMITIVES["ReLU"]]
SHAPES = st.lists(st.integers(1, 40), min_size=0, max_size=3).map(tuple)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(UNARY), SHAPES, st.sampled_from(FLOATS + (np.float16,)),
       st.integers(0, 15), st.integers(0, 2 ** 31 - 1))
def test_unary_forms_give_the_forwards_bits(cls, shape, dtype, offset, seed):
    """Transcendentals and the other unary forms, written into a buffer that overlaps no input
    at any alignment: the loop NumPy runs for a fresh result, the same bits."""
    x = _values(np.random.default_rng(seed), shape, dtype)
    planned = _check(cls(), [x], offset)
    # (NumPy 1.x: the float unary forwards cast back to their input's dtype after the kernel,
    # legacy 0-d promotion, so the plan leaves them out)
    assert planned or LEGACY_PROMOTION and plan.INTO_RULES[cls] is plan._float_unary


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["RealDiv", "Maximum", "Minimum", "ReluGrad"]), SHAPES,
       st.sampled_from(["same", "row", "scalar"]), st.sampled_from(FLOATS),
       st.integers(0, 15), st.integers(0, 2 ** 31 - 1))
def test_binary_forms_give_the_forwards_bits(name, shape, other, dtype, offset, seed):
    """RealDiv, and Maximum/Minimum on NaNs of different payloads in both operands (not in
    place, the same loop as a fresh result), ReluGrad through its scratch mask."""
    rng = np.random.default_rng(seed)
    x = _values(rng, shape, dtype)
    y_shape = {"same": shape, "row": shape[-1:], "scalar": ()}[other]
    y = _values(rng, shape if name == "ReluGrad" else y_shape, dtype)
    prim = PRIMITIVES[name]()
    if name in ("Maximum", "Minimum"):
        into = plan.APART_UFUNCS[type(prim)]
        o = _buffer(np.broadcast_shapes(x.shape, y.shape), dtype, offset)
        assert _bits(into(x, y, out=o)) == _bits(prim.forward(x, y))
    else:
        assert _check(prim, [x, y], offset)


def _layout(a, how):
    if how == "T":
        return np.ascontiguousarray(a.T).T
    if how == "strided":
        return np.repeat(a, 2, axis=-1)[..., ::2]
    return a


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 70), st.integers(1, 70), st.integers(1, 70), st.sampled_from(FLOATS),
       st.booleans(), st.booleans(), st.sampled_from(["C", "T", "strided"]),
       st.sampled_from(["C", "T", "strided"]), st.integers(0, 15), st.integers(0, 2 ** 31 - 1))
def test_gemm_forms_give_the_forwards_bits(m, k, n, dtype, ta, tb, la, lb, offset, seed):
    """MatMul with each transpose flag and Dense (with and without bias), on C-contiguous,
    transposed and strided operands: `np.matmul(..., out=)` into a buffer at any alignment."""
    rng = np.random.default_rng(seed)
    a = _layout(_values(rng, (k, m) if ta else (m, k), dtype, False), la)
    b = _layout(_values(rng, (n, k) if tb else (k, n), dtype, False), lb)
    assert _check(PRIMITIVES["MatMul"](ta, tb), [a, b], offset)
    w = _layout(_values(rng, (n, k), dtype, False), lb)
    x = _layout(_values(rng, (m, k), dtype, False), la)
    bias = _values(rng, (n,), dtype, False)
    assert _check(PRIMITIVES["Dense"](), [x, w, bias], offset)
    assert _check(PRIMITIVES["Dense"](), [x, w, None], offset)
    x3 = _values(rng, (3, m, k), dtype, False)
    assert _check(PRIMITIVES["Dense"](), [x3, w, bias], offset)
    assert _check(PRIMITIVES["BatchMatMul"](ta, tb), [
        _values(rng, (2, k, m) if ta else (2, m, k), dtype, False), b], offset)
    assert _check(PRIMITIVES["BatchMatMul"](ta, tb), [
        _values(rng, (2, k, m) if ta else (2, m, k), dtype, False),
        _values(rng, (2, n, k) if tb else (2, k, n), dtype, False)], offset)


@pytest.mark.parametrize("ta,tb,a_shape,b_shape", [
    (False, True, (128, 784), (512, 784)), (False, False, (128, 10), (10, 512)),
    (True, False, (128, 10), (128, 512)), (True, False, (128, 512), (128, 784)),
    (False, False, (1024, 512), (512, 128)), (True, False, (1024, 128), (1024, 512)),
    (False, True, (1024, 128), (384, 128)), (True, False, (64, 64), (64, 32))])
def test_gemm_forms_on_the_benchmark_shapes(ta, tb, a_shape, b_shape):
    """The GEMMs of W2 (784-512-512-10, batch 128) and W6 (16 x 64 tokens, d 128, FFN 512)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    for offset in (0, 1, 3):
        assert _check(PRIMITIVES["MatMul"](ta, tb), [a, b], offset)
    if tb and not ta:
        bias = rng.standard_normal(b_shape[0]).astype(np.float32)
        assert _check(PRIMITIVES["Dense"](), [a, b, bias])


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["ReduceSum", "ReduceMean"]), st.lists(st.integers(1, 30), min_size=1,
                                                              max_size=3).map(tuple),
       st.booleans(), st.data(), st.sampled_from(FLOATS), st.integers(0, 15),
       st.integers(0, 2 ** 31 - 1))
def test_reduction_forms_give_the_forwards_bits(name, shape, keep, data, dtype, offset, seed):
    """Sums and means over any axes of C-contiguous input, into buffers (pairwise and
    row-by-row summation orders alike)."""
    axis = data.draw(st.sampled_from([(), 0, -1, tuple(range(len(shape)))] +
                                     ([(0, 2)] if len(shape) == 3 else [])))
    x = _values(np.random.default_rng(seed), shape, dtype)
    prim = PRIMITIVES[name](keep)
    assert _check(prim, [x, axis], offset, consts=[plan._VALUE, axis])


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([(np.float64, np.float32), (np.float32, np.float64),
                        (np.int32, np.float32), (np.bool_, np.float64),
                        (np.float32, np.float16)]), SHAPES, st.integers(0, 15),
       st.integers(0, 2 ** 31 - 1))
def test_cast_form_gives_the_forwards_bits(types, shape, offset, seed):
    src, dst = types
    x = _values(np.random.default_rng(seed), shape, np.float64).astype(src)
    to = {np.float16: ms.float16, np.float32: ms.float32, np.float64: ms.float64}[dst]
    assert _check(PRIMITIVES["Cast"](), [x, to], offset, consts=[plan._VALUE, to])


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 50), st.integers(1, 30), st.sampled_from(FLOATS),
       st.sampled_from([np.int32, np.int64]), st.booleans(), st.integers(0, 15),
       st.integers(0, 2 ** 31 - 1))
def test_sparse_cross_entropy_forms_give_the_forwards_bits(n, c, dtype, label_type, masked,
                                                           offset, seed):
    """SparseSoftmaxCrossEntropy and its gradient (shifted logits, -inf masks, a broadcast
    cotangent as the backward of a mean gives it)."""
    rng = np.random.default_rng(seed)
    logits = (rng.standard_normal((n, c)) * 5).astype(dtype)
    if masked:
        logits[rng.random((n, c)) < 0.3] = -np.inf
    labels = rng.integers(0, c, n).astype(label_type)
    assert _check(PRIMITIVES["SparseSoftmaxCrossEntropy"](), [logits, labels], offset)
    for dout in (np.broadcast_to(dtype(1 / n), (n,)), _values(rng, (n,), dtype, False)):
        assert _check(PRIMITIVES["SparseSoftmaxCrossEntropyGrad"](), [logits, labels, dout],
                      offset)


def test_sparse_cross_entropy_grad_form_raises_as_the_forward_on_bad_labels():
    prim = PRIMITIVES["SparseSoftmaxCrossEntropyGrad"]()
    logits = np.zeros((2, 3), np.float32)
    labels = np.array([0, 3], np.int32)
    dout = np.ones(2, np.float32)
    into = plan.INTO_RULES[type(prim)](prim, [plan._const_meta(a) for a in
                                              (logits, labels, dout)], ((2, 3), logits.dtype))
    scratch = [np.empty(s, d) for s, d in into.scratch]
    with pytest.raises(IndexError):
        prim.forward(logits, labels, dout)
    with pytest.raises(IndexError):
        into.write(np.empty((2, 3), np.float32), *scratch, logits, labels, dout)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 70000), st.sampled_from(FLOATS), st.integers(0, 2 ** 31 - 1))
def test_the_chunked_updates_give_the_bits_of_the_temporaries_they_replace(size, dtype, seed):
    """add_scaled, chunked through a small buffer now at every size, against the updates it
    replaces: SGD's `w += alpha * g` and Momentum's `w -= lr * v` (signalling and quiet NaNs in
    both operands included)."""
    rng = np.random.default_rng(seed)
    w, g = _values(rng, (size,), dtype), _values(rng, (size,), dtype)
    lr = np.asarray(rng.choice([0.01, 0.1, 1e-30, 3.0]), np.float32)
    with np.errstate(all="ignore"):
        for op in (np.add, np.subtract):
            want = w.copy()
            op(want, dtype(lr) * g, out=want)
            got = w.copy()
            add_scaled(got, g, lr, op)
            assert _bits(got) == _bits(want)


def _train_step(optimizer, jit=True):
    """A W2-like step: an MLP with ReLUs, sparse softmax cross-entropy (mean), value_and_grad
    and the optimizer inside `ms.jit`."""
    rng = np.random.default_rng(0)
    net = nn.SequentialCell([nn.Dense(64, 256), nn.ReLU(), nn.Dense(256, 256), nn.ReLU(),
                             nn.Dense(256, 16)])
    for p in net.trainable_params():
        p.set_data(Tensor((rng.standard_normal(p.shape) * 0.1).astype(np.float32)))
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = optimizer(net.trainable_params())
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss
    if jit:
        step = ms.jit(step, backend="numpy")  # the numba backend fuses; kernels allocate
    x = Tensor(rng.standard_normal((512, 64)).astype(np.float32))
    y = Tensor(rng.integers(0, 16, 512).astype(np.int32))
    return step, x, y, net


@pytest.mark.parametrize("optimizer", [
    lambda p: nn.SGD(p, learning_rate=0.01), lambda p: nn.Momentum(p, 0.01, 0.9)])
def test_a_replayed_train_step_allocates_no_arrays_after_its_first_calls(optimizer):
    """After the first calls, every array-data block a step asks NumPy for is a 0-d scalar (at
    most 8 bytes): the returned loss, the label range check's min and max, the mean's count,
    the optimizer's learning rate, weight decays and step counter. Every activation, gradient,
    mask and temporary lives in the plan's buffers, reused across calls."""
    step, x, y, net = _train_step(optimizer)
    for _ in range(3):
        step(x, y)
    assert step.stats["replays"] == 2 and step.stats["captures"] == 1
    for _ in range(3):
        with numpy_allocs.counting() as sizes:
            loss = step(x, y)
        assert sizes and max(sizes) <= 8, sorted(sizes)[-5:]
        del loss
    tracemalloc.start()
    try:  # the live blocks NumPy reports to tracemalloc: only the returned losses stay
        domain = [tracemalloc.DomainFilter(True, NUMPY_DOMAIN)]
        before = tracemalloc.take_snapshot().filter_traces(domain)
        losses = [step(x, y) for _ in range(4)]
        after = tracemalloc.take_snapshot().filter_traces(domain)
        grown = [d for d in after.compare_to(before, "traceback") if d.count_diff > 0]
        assert sum(d.count_diff for d in grown) == len(losses)
        assert sum(d.size_diff for d in grown) == 4 * len(losses)
    finally:
        tracemalloc.stop()
    assert step.stats["replays"] == 9


def test_a_graph_mode_train_one_step_cell_allocates_no_arrays_after_its_first_calls():
    rng = np.random.default_rng(1)
    net = nn.SequentialCell([nn.Dense(64, 256), nn.ReLU(), nn.Dense(256, 16)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                                nn.Momentum(net.trainable_params(), 0.01, 0.9))
    x = Tensor(rng.standard_normal((512, 64)).astype(np.float32))
    y = Tensor(rng.integers(0, 16, 512).astype(np.int32))
    mode = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        for _ in range(3):
            train(x, y)
        with numpy_allocs.counting() as sizes:
            train(x, y)
    finally:
        ms.set_context(mode=mode)
    assert sizes and max(sizes) <= 8, sorted(sizes)[-5:]


def test_the_replayed_train_step_is_eagers_bit_for_bit():
    step, x, y, net = _train_step(lambda p: nn.Momentum(p, 0.01, 0.9))
    eager, xe, ye, net_e = _train_step(lambda p: nn.Momentum(p, 0.01, 0.9), jit=False)
    for _ in range(5):
        assert _bits(step(x, y).asnumpy()) == _bits(eager(xe, ye).asnumpy())
    assert step.stats["replays"] == 4
    for p, q in zip(net.trainable_params(), net_e.trainable_params()):
        assert _bits(p.asnumpy()) == _bits(q.asnumpy())
