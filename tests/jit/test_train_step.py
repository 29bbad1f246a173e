"""Graph mode, whole train steps: forward, backward and optimizer update captured once and
replayed bit for bit equal to eager (jit on a step function, and set_context(mode=GRAPH_MODE)
on TrainOneStepCell and Model), and what runs eagerly instead."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore import train as T
from minispore._jit import cell_stats

from .test_capture import in_both_modes, same


def _mlp():
    return nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3)])


def _cnn():
    return nn.SequentialCell([nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2, 2),
                              nn.Conv2d(4, 4, 3, pad_mode="valid"), nn.ReLU(),
                              nn.AvgPool2d(1, 1), nn.Flatten(), nn.Dense(4 * 2 * 2, 10)])


def _batches(n, shape, classes, seed=0):
    rng = np.random.default_rng(seed)
    return [(Tensor(rng.standard_normal(shape).astype(np.float32)),
             Tensor(rng.integers(0, classes, shape[0]).astype(np.int32))) for _ in range(n)]


def _step_fn(net, opt):
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss
    return step


def _params(net):
    return [p.asnumpy().copy() for p in net.trainable_params()]


def _equal_params(a, b):
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("make_opt", [
    lambda ps: nn.Momentum(ps, 0.1, 0.9),
    lambda ps: nn.Adam(ps, 0.01),
    lambda ps: nn.SGD(ps, 0.1, weight_decay=0.01),
], ids=["Momentum", "Adam", "SGD"])
def test_jitted_train_step_replays_bitwise(make_opt):
    runs = []
    for jitted in (False, True):
        ms.set_seed(0)
        net = _mlp()
        step = _step_fn(net, make_opt(net.trainable_params()))
        step = ms.jit(step) if jitted else step
        versions = []
        losses = [step(x, y) for x, y in _batches(5, (6, 4), 3)]
        versions.append([p._version for p in net.trainable_params()])
        runs.append((losses, _params(net), step))
    (eager_losses, eager_params, _), (jit_losses, jit_params, jitted) = runs
    assert all(same(a, b) for a, b in zip(eager_losses, jit_losses))
    assert _equal_params(eager_params, jit_params)
    assert jitted.stats["captures"] == 1 and jitted.stats["replays"] == 4
    assert jitted.stats["fallbacks"] == {}
    assert any("host Momentum" in g or "host Adam" in g or "host SGD" in g
               for g in jitted.graphs())


def test_replayed_updates_bump_versions_and_see_eager_writes():
    ms.set_seed(0)
    net = _mlp()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = ms.jit(_step_fn(net, opt))
    ms.set_seed(0)
    ref_net = _mlp()
    ref_step = _step_fn(ref_net, nn.Momentum(ref_net.trainable_params(), 0.1, 0.9))
    batches = _batches(4, (6, 4), 3)
    for k, (x, y) in enumerate(batches):
        w = net.trainable_params()[0]
        before = w._version
        assert same(ref_step(x, y), step(x, y))
        assert w._version > before
        if k == 1:  # an eager write between calls is what the next replay reads
            for p, q in zip(net.trainable_params(), ref_net.trainable_params()):
                p.set_data(p * 0.5)
                q.set_data(q * 0.5)
    assert _equal_params(_params(net), _params(ref_net))
    assert step.stats["replays"] == 3


def _graph_and_pynative(make_net, batches, make_opt):
    def run():
        ms.set_seed(0)
        net = make_net()
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), make_opt(net.trainable_params()))
        step.set_train()
        losses = [step(x, y) for x, y in batches]
        return losses, _params(net), cell_stats(step)
    return in_both_modes(run)


def test_graph_mode_train_one_step_cell_equals_pynative():
    (l1, p1, s1), (l2, p2, s2) = _graph_and_pynative(
        _cnn, _batches(5, (3, 1, 8, 8), 10), lambda ps: nn.Momentum(ps, 0.01, 0.9))
    assert s1 is None
    assert all(same(a, b) for a, b in zip(l1, l2)) and _equal_params(p1, p2)
    assert s2["captures"] == 1 and s2["replays"] == 4 and s2["fallbacks"] == {}


def test_graph_mode_model_train_equals_pynative():
    def run():
        ms.set_seed(0)
        net = _mlp()
        model = T.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                        nn.Adam(net.trainable_params(), 0.01), metrics={"acc"})
        data = ms.dataset.NumpySlicesDataset(
            {"x": np.random.default_rng(3).standard_normal((24, 4)).astype(np.float32),
             "y": np.random.default_rng(4).integers(0, 3, 24).astype(np.int32)},
            shuffle=False).batch(6)
        model.train(2, data)
        return _params(net), model.eval(data)
    results = in_both_modes(run)
    assert _equal_params(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]


def test_guard_after_an_update_runs_eagerly():
    ms.set_seed(0)
    net = _mlp()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    inner = _step_fn(net, opt)

    def step(x, y):
        loss = inner(x, y)
        if float(loss) > 100.0:  # a conversion after the Parameters were written
            return loss * 0
        return loss
    jitted = ms.jit(step)
    for x, y in _batches(3, (6, 4), 3):
        jitted(x, y)
    assert jitted.stats["replays"] == 0
    assert any("after a Cell run as a host call" in r for r in jitted.stats["fallbacks"])


def test_tensor_made_outside_and_not_held_runs_eagerly():
    # a batch a data iterator made before the call: replaying would read the old batch again
    batches = iter(_batches(4, (6, 4), 3))
    net = _mlp()

    def fn():
        x, _ = next(batches)
        return net(x)
    jitted = ms.jit(fn)
    outs = [jitted() for _ in range(3)]
    assert not same(outs[1], outs[2])
    assert jitted.stats["replays"] == 0
    assert any("not an argument, a Parameter" in r for r in jitted.stats["fallbacks"])


def test_list_appended_in_construct_is_a_side_effect():
    class Spy(nn.Dense):
        def __init__(self):
            super().__init__(4, 2)
            self.seen = []

        def construct(self, x):
            self.seen.append(self.training)
            return super().construct(x)
    net = Spy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        for x, _ in _batches(3, (6, 4), 3):
            net(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert len(net.seen) == 3
    assert cell_stats(net)["replays"] == 0


def test_gradient_of_a_parameter_argument_with_fullgraph():
    w = Parameter(Tensor(np.ones((3, 4), np.float32)), name="w")
    grad = ms.grad(lambda x, w: (ops.matmul(x, w) ** 2).sum(), (0, 1))
    jitted = ms.jit(lambda x: grad(x, w), fullgraph=True)
    for x, _ in _batches(3, (2, 3), 3):
        assert same(grad(x, w), jitted(x))
    assert jitted.stats["replays"] == 2


def test_batchnorm_statistics_are_written_at_every_replay():
    def make():
        return nn.SequentialCell([nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),
                                  nn.Flatten(), nn.Dense(4 * 6 * 6, 10)])
    batches = _batches(4, (3, 1, 6, 6), 10)
    def run():
        ms.set_seed(0)
        net = make()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
            sparse=True, reduction="mean")), nn.Momentum(net.trainable_params(), 0.01, 0.9))
        step.set_train()
        bn = net[1]
        versions = []
        for x, y in batches:
            step(x, y)
            versions.append(bn.moving_mean._version)
        return [p.asnumpy().copy() for p in net.get_parameters()], versions, cell_stats(step)
    (eager, v1, _), (graph, v2, stats) = in_both_modes(run)
    assert _equal_params(eager, graph)  # the moving statistics included
    assert len(set(v2)) == len(v2)  # every replay bumped the running mean's version
    assert stats["replays"] == 3 and stats["fallbacks"] == {}


class _Tokens(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.enc = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True)
        self.fc = nn.Dense(16, 5)

    def construct(self, x):
        return self.fc(self.enc(self.emb(x)).mean(1))


class _Recurrent(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8)
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.fc = nn.Dense(16, 5)

    def construct(self, x):
        out, _ = self.lstm(self.emb(x))
        return self.fc(out[:, -1])


def _token_batches(n, seed=0):
    rng = np.random.default_rng(seed)
    return [(Tensor(rng.integers(0, 50, (4, 7)).astype(np.int32)),
             Tensor(rng.integers(0, 5, 4).astype(np.int32))) for _ in range(n)]


@pytest.mark.parametrize("make_net, batches", [
    (_Tokens, _token_batches(4)),
    (_Recurrent, _token_batches(4)),
    (lambda: nn.SequentialCell([nn.Flatten(), nn.Dense(48, 16), nn.GELU(), nn.Dropout(p=0.3),
                                nn.LayerNorm((16,)), nn.Dense(16, 5)]),
     _batches(4, (4, 3, 4, 4), 5)),
], ids=["transformer-dropout", "lstm", "mlp-dropout-layernorm"])
def test_graph_mode_models_replay_bitwise(make_net, batches):
    (l1, p1, _), (l2, p2, stats) = _graph_and_pynative(
        make_net, batches, lambda ps: nn.Adam(ps, 1e-3))
    assert all(same(a, b) for a, b in zip(l1, l2)) and _equal_params(p1, p2)
    assert stats["replays"] == len(batches) - 1 and stats["fallbacks"] == {}


def test_cell_compile_changes_nothing_and_the_next_call_replays():
    def make():
        ms.set_seed(0)
        net = nn.SequentialCell([nn.Dense(4, 8), nn.BatchNorm1d(8), nn.Dropout(p=0.5),
                                 nn.Dense(8, 3)])
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
            sparse=True, reduction="mean")), nn.Momentum(net.trainable_params(), 0.1, 0.9))
        step.set_train()
        return step
    (x, y), = _batches(1, (6, 4), 3)
    eager = make()
    expected = eager(x, y)
    step = make()
    before = [p.asnumpy().copy() for p in step.get_parameters()]
    step.compile(x, y)
    assert _equal_params(before, [p.asnumpy() for p in step.get_parameters()])  # BN stats too
    assert cell_stats(step)["captures"] == 1
    assert same(expected, step.compile_and_run(x, y))  # the random stream was put back too
    assert _equal_params([p.asnumpy() for p in eager.get_parameters()],
                         [p.asnumpy() for p in step.get_parameters()])
    assert cell_stats(step)["replays"] == 1


def test_graph_mode_attention_with_padding_masks_replays_bitwise():
    class Masked(nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(50, 16)
            self.attn = nn.MultiheadAttention(16, 2, batch_first=True)
            self.fc = nn.Dense(16, 5)

        def construct(self, x):
            h = self.emb(x)
            out, _ = self.attn(h, h, h, key_padding_mask=x == 0)
            return self.fc(out.mean(1))
    rng = np.random.default_rng(2)
    batches = []
    for _ in range(4):
        tokens = rng.integers(1, 50, (4, 7)).astype(np.int32)
        tokens[:, 5:] *= rng.integers(0, 2, (4, 1)).astype(np.int32)  # padded tails
        batches.append((Tensor(tokens), Tensor(rng.integers(0, 5, 4).astype(np.int32))))
    (l1, p1, _), (l2, p2, stats) = _graph_and_pynative(Masked, batches,
                                                       lambda ps: nn.Adam(ps, 1e-3))
    assert all(same(a, b) for a, b in zip(l1, l2)) and _equal_params(p1, p2)
    assert stats["replays"] == 3 and stats["fallbacks"] == {}


_HANDED = []  # what the host Cell below was given, per call


class _Recorder(nn.Cell):
    """A host-call Cell that notes whether the gradients it is given share memory."""

    _jit_host = True

    def construct(self, grads):
        _HANDED.append(any(np.shares_memory(a._data, b._data)
                           for k, a in enumerate(grads) for b in grads[k + 1:]))
        return grads[0] * 1


def test_passes_keep_effect_steps_and_never_alias_what_they_are_handed():
    # two biases get gradients from identical nodes (ReduceSum of the same cotangent): CSE must
    # not hand the host call one array twice, as eager never does
    w = Parameter(Tensor(np.ones((3, 2), np.float32)), name="w")
    b1 = Parameter(Tensor(np.zeros(2, np.float32)), name="b1")
    b2 = Parameter(Tensor(np.zeros(2, np.float32)), name="b2")
    grad = ms.grad(lambda x: ((ops.matmul(x, w) + b1 + b2) ** 2).sum(), None, (b1, b2))
    host = _Recorder()

    def step(x):
        return host(grad(x))
    jitted = ms.jit(step)
    _HANDED.clear()
    for x, _ in _batches(3, (4, 3), 2):
        assert same(step(x), jitted(x))
    assert jitted.stats["replays"] == 2 and not any(_HANDED)
    assert any("host _Recorder" in g for g in jitted.ir("optimized"))


def test_common_subexpressions_are_not_merged_across_a_write():
    from minispore._autodiff.tape import write_in_place
    p = Parameter(Tensor(np.ones(3, np.float32)), name="p")
    q = Parameter(Tensor(np.ones(3, np.float32)), name="q")

    def fn(x, target):
        before = target * 2
        write_in_place(target, before + x)
        return before, target * 2 + 1  # the same Mul after the write reads the new value
    jitted = ms.jit(fn)
    for x, _ in _batches(3, (3,), 2):
        x = Tensor(x.asnumpy()[0])
        assert same(fn(x, q), jitted(x, p))
        assert np.array_equal(p.asnumpy(), q.asnumpy())
    assert jitted.stats["replays"] == 2
    assert any("write param p" in g for g in jitted.ir("optimized"))


def _bn_mlp():
    return nn.SequentialCell([nn.Dense(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dense(8, 3)])


@pytest.mark.parametrize("make_net", [_mlp, _bn_mlp], ids=["mlp", "batchnorm"])
def test_graph_mode_loss_scale_step_replays_both_branches_bitwise(make_net):
    # A dynamic loss scale that overflows every few steps: the overflow branch (no update, the
    # scale divided) and the normal one (update, the scale growing after 2 good steps) are each
    # captured once and then replayed, with the scale update as a host call. With BatchNorm the
    # overflow guard follows the moving statistics' writes: a replay that misses it rolls them
    # back before the other branch runs.
    # A scale near float32's limit and gradients in the hundreds: the scaled gradients overflow,
    # the scale halves, grows back after two finite steps and overflows again.
    rng = np.random.default_rng(8)
    batches = [(Tensor(rng.standard_normal((6, 4)).astype(np.float32)),
                Tensor(rng.standard_normal((6, 3)).astype(np.float32) * 100)) for _ in range(9)]
    def run():
        ms.set_seed(0)
        net = make_net()
        net.set_train()
        loss = nn.MSELoss(reduction="sum")
        manager = nn.DynamicLossScaleUpdateCell(2.0 ** 118, 2.0, 2)
        step = nn.TrainOneStepWithLossScaleCell(
            nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.001, 0.9), manager)
        results = [tuple(r.asnumpy().copy() for r in step(bx, by)) for bx, by in batches]
        # every Parameter, BatchNorm's moving statistics included
        return results, [p.asnumpy().copy() for p in net.get_parameters()], cell_stats(step)
    (r1, p1, _), (r2, p2, stats) = in_both_modes(run)
    flags = [bool(r[1]) for r in r1]
    assert any(flags) and not all(flags), flags
    assert all(np.array_equal(a, b, equal_nan=True) for ra, rb in zip(r1, r2)
               for a, b in zip(ra, rb)) and _equal_params(p1, p2)
    assert stats["captures"] == 2 and stats["replays"] == 7, stats
    assert stats["guard_misses"] > 0 and all(np.isfinite(p).all() for p in p1), stats


def test_a_step_returning_none_replays_once_per_call():
    # a replay that ran to its end (optimizer update included) returns no value: it must count
    # as a replay, not a miss that captures the step again (which would update twice)
    runs = []
    for jitted in (False, True):
        ms.set_seed(0)
        net = _mlp()
        step = _step_fn(net, nn.SGD(net.trainable_params(), 0.1))

        def no_result(x, y):
            step(x, y)
        run = ms.jit(no_result) if jitted else no_result
        for x, y in _batches(4, (5, 4), 3):
            assert run(x, y) is None
        runs.append((_params(net), run.stats if jitted else None))
    (eager, _), (graph, stats) = runs
    assert _equal_params(eager, graph)
    assert stats["captures"] == 1 and stats["replays"] == 3 and stats["guard_misses"] == 0
