"""Graph mode replays the layers and losses whose masks, indices and constants come from tensor
data (DataFunction nodes, tape.const, ops instead of NumPy on `._data`): each is captured once
and replayed, its outputs and gradients bitwise equal to eager over calls whose data changes
the masks and branches."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore._jit import cell_stats

from .test_capture import in_both_modes, same

RNG = np.random.default_rng(7)


def f64(*shape):
    return Tensor(RNG.standard_normal(shape))


def ints(low, high, shape, dtype=np.int32):
    return Tensor(RNG.integers(low, high, shape).astype(dtype))


def signs(*shape):
    return Tensor(RNG.choice([-1, 1], shape).astype(np.int32))


def check_replays(make_cell, calls, grad_position=(0,), seed=0, has_aux=False):
    """Eager against GRAPH_MODE (the Cell's forward) and against `jit` of value_and_grad (the
    forward and the backward in one trace; grad_position None: of the Cell's Parameters; with
    `has_aux` of the first output, the others (indices) returned as they are): bitwise equal
    at every call, every call after the first replayed, nothing run eagerly."""
    def differentiated(cell):
        weights = cell.trainable_params() if grad_position is None else None
        return ms.value_and_grad(cell, grad_position, weights, has_aux=has_aux)

    def run(jitted):
        ms.set_seed(seed)
        cell = make_cell()
        if jitted:
            step = ms.jit(differentiated(cell))
            return [step(*args) for args in calls], step.stats
        return [cell(*args) for args in calls], cell_stats(cell)

    def eager_grads():
        ms.set_seed(seed)
        step = differentiated(make_cell())
        return [step(*args) for args in calls]

    (eager_out, _), (graph_out, stats) = in_both_modes(lambda: run(False))
    assert stats["fallbacks"] == {}
    assert stats["captures"] == 1 and stats["replays"] == len(calls) - 1
    assert all(same(a, b) for a, b in zip(eager_out, graph_out))
    eager = eager_grads()  # PYNATIVE_MODE, as every test here starts
    jitted, stats = run(True)
    assert stats["fallbacks"] == {}
    assert stats["captures"] == 1 and stats["replays"] == len(calls) - 1
    assert all(same(a, b) for a, b in zip(eager, jitted))


# ---- losses --------------------------------------------------------------------------------------

@pytest.mark.parametrize("p, weighted, reduction", [
    (1, False, "mean"), (2, True, "none"), (1, True, "sum")])
def test_multi_margin_loss(p, weighted, reduction):
    weight = Tensor(np.array([0.5, 2.0, 1.5]))
    calls = [(f64(5, 3), ints(0, 3, 5)) for _ in range(4)]
    check_replays(lambda: nn.MultiMarginLoss(p, 0.7, reduction, weight if weighted else None),
                  calls)
    # the weight as an argument, differentiated too
    calls = [(f64(5, 3), ints(0, 3, 5), weight) for _ in range(4)]
    check_replays(lambda: nn.MultiMarginLoss(p, 0.7, reduction), calls, (0, 2))


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_cosine_embedding_loss(reduction):
    calls = [(f64(6, 4), f64(6, 4), signs(6)) for _ in range(4)]
    check_replays(lambda: nn.CosineEmbeddingLoss(0.2, reduction), calls, (0, 1))


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_hinge_embedding_loss(reduction):
    calls = [(f64(6, 3), signs(6, 3)) for _ in range(4)]
    check_replays(lambda: nn.HingeEmbeddingLoss(0.8, reduction), calls)


def test_focal_loss_class_labels():
    weight = Tensor(np.array([0.3, 1.0, 2.0]))
    calls = [(f64(5, 3), ints(-3, 3, (5, 1))) for _ in range(4)]
    check_replays(lambda: nn.FocalLoss(weight, 2.0, "mean"), calls)
    calls = [(f64(2, 3, 2, 2), ints(0, 3, (2, 1, 2, 2))) for _ in range(4)]
    check_replays(lambda: nn.FocalLoss(None, 1.5, "none"), calls)


def test_poisson_nll_loss_full():
    # targets above and below 1 switch Stirling's term on and off elementwise
    calls = [(f64(4, 3), Tensor(RNG.uniform(0, 3, (4, 3)))) for _ in range(4)]
    check_replays(lambda: nn.PoissonNLLLoss(True, True, 1e-8, "mean"), calls)
    calls = [(Tensor(RNG.uniform(0.1, 2, (4, 3))), Tensor(RNG.uniform(0, 3, (4, 3))))
             for _ in range(4)]
    check_replays(lambda: nn.PoissonNLLLoss(False, True, 1e-8, "none"), calls)


def _multilabel_targets(n, c):
    t = np.full((n, c), -1, np.int32)
    for row in t:
        k = RNG.integers(0, c + 1)
        row[:k] = RNG.integers(0, c, k)  # repeats allowed; ended by the first -1
        row[k + 1:] = RNG.integers(-1, c, max(c - k - 1, 0))  # after the -1: ignored
    return Tensor(t)


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_multilabel_margin_loss(reduction):
    calls = [(f64(4, 5), _multilabel_targets(4, 5)) for _ in range(4)]
    check_replays(lambda: nn.MultilabelMarginLoss(reduction), calls)
    calls = [(f64(5), _multilabel_targets(1, 5).reshape(5)) for _ in range(3)]
    check_replays(lambda: nn.MultilabelMarginLoss(reduction), calls)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_ctc_loss(reduction):
    t, n, c = 8, 3, 5

    def log_probs():
        x = RNG.standard_normal((t, n, c))
        return Tensor(x - np.log(np.exp(x).sum(-1, keepdims=True)))

    calls = [(log_probs(), ints(1, c, (n, 3)), ints(5, t + 1, n), ints(0, 4, n))
             for _ in range(4)]
    check_replays(lambda: nn.CTCLoss(0, reduction), calls)
    # concatenated targets: lengths that keep the total and the width
    lengths = [[1, 3, 2], [3, 2, 1], [2, 1, 3], [3, 1, 2]]
    calls = [(log_probs(), ints(1, c, 6), ints(5, t + 1, n), Tensor(np.array(tl, np.int32)))
             for tl in lengths]
    check_replays(lambda: nn.CTCLoss(0, reduction), calls)


# ---- pooling -------------------------------------------------------------------------------------

def rounded(*shape):
    """Small integers as floats: windows with tied maxima, and -0.0 beside 0.0."""
    return Tensor(np.round(RNG.standard_normal(shape)))


@pytest.mark.parametrize("indices", [False, True])
def test_adaptive_max_pools(indices):
    for data in (f64, rounded):
        calls = [(data(2, 2, 5, 4, 6),) for _ in range(3)]
        check_replays(lambda: nn.AdaptiveMaxPool3d((3, 2, 4), indices), calls, has_aux=indices)
        calls = [(data(2, 3, 7, 9),) for _ in range(3)]
        check_replays(lambda: nn.AdaptiveMaxPool2d((3, 4), indices), calls, has_aux=indices)
        calls = [(data(3, 7, 5),) for _ in range(3)]
        check_replays(lambda: nn.AdaptiveMaxPool2d(3, indices), calls, has_aux=indices)


def test_max_pool3d_indices():
    for data in (f64, rounded):
        calls = [(data(2, 2, 5, 4, 6),) for _ in range(3)]
        check_replays(lambda: nn.MaxPool3d(2, 2, "pad", 1, return_indices=True), calls,
                      has_aux=True)
        calls = [(data(2, 4, 4, 4),) for _ in range(3)]
        check_replays(lambda: nn.MaxPool3d(3, 1, "pad", 1, return_indices=True), calls,
                      has_aux=True)


@pytest.mark.parametrize("indices", [False, True])
def test_fractional_max_pools(indices):
    # samples drawn at every call (a random node), and given as a Tensor attribute
    calls = [(f64(2, 3, 7, 8),) for _ in range(3)]
    check_replays(lambda: nn.FractionalMaxPool2d(2, (3, 4), return_indices=indices), calls,
                  has_aux=indices)
    samples = Tensor(RNG.random((2, 3, 2)))
    check_replays(lambda: nn.FractionalMaxPool2d(2, output_ratio=0.5, return_indices=indices,
                                                 _random_samples=samples), calls, has_aux=indices)
    calls = [(rounded(1, 2, 5, 6, 5),) for _ in range(3)]
    check_replays(lambda: nn.FractionalMaxPool3d(2, (2, 3, 3), return_indices=indices), calls,
                  has_aux=indices)
    calls = [(f64(2, 5, 6, 5),) for _ in range(3)]
    check_replays(lambda: nn.FractionalMaxPool3d(2, (2, 3, 3), return_indices=indices), calls,
                  has_aux=indices)


def test_max_unpools():
    calls = [(f64(2, 3, 4), ints(0, 8, (2, 3, 4))) for _ in range(3)]
    check_replays(lambda: nn.MaxUnpool1d(2, 2), calls)
    calls = [(f64(2, 2, 2, 2), ints(0, 16, (2, 2, 2, 2), np.int64)) for _ in range(3)]
    check_replays(lambda: nn.MaxUnpool2d(2, 2), calls)
    calls = [(f64(1, 2, 2, 2, 2), ints(0, 64, (1, 2, 2, 2, 2))) for _ in range(3)]
    check_replays(lambda: nn.MaxUnpool3d(2, 2), calls)


# ---- layers --------------------------------------------------------------------------------------

def test_rrelu_training_draws_new_slopes_at_every_replay():
    def make():
        return nn.RReLU(0.1, 0.3).set_train()
    calls = [(f64(4, 5),) for _ in range(4)]
    check_replays(make, calls)
    check_replays(make, [(Tensor(RNG.standard_normal((4, 5)).astype(np.float32)),)] * 3)


def test_range_returns_a_new_tensor_each_call():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        r = nn.Range(1.0, 3.0, 0.5)
        outs = [r() for _ in range(3)]
        stats = cell_stats(r)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert stats["fallbacks"] == {} and stats["replays"] == 2
    assert all(same(o, nn.Range(1.0, 3.0, 0.5)()) for o in outs)
    assert len({id(o) for o in outs}) == 3
    assert not any(np.shares_memory(o._data, r.result_tensor._data) for o in outs)


def test_train_one_step_with_a_float_sensitivity():
    x = Tensor(RNG.standard_normal((6, 4)).astype(np.float32))
    batches = [(x * (k + 1.0), ints(0, 3, 6)) for k in range(4)]

    def train():
        ms.set_seed(0)
        net = nn.Dense(4, 3)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                                   nn.Momentum(net.trainable_params(), 0.1, 0.9), sens=4.0)
        losses = [step(a, b) for a, b in batches]
        return losses, [p.asnumpy().copy() for p in net.trainable_params()], step
    (l1, p1, _), (l2, p2, step) = in_both_modes(train)
    assert all(same(a, b) for a, b in zip(l1, l2))
    assert all(np.array_equal(a, b) for a, b in zip(p1, p2))
    stats = cell_stats(step)
    assert stats["fallbacks"] == {} and stats["replays"] == 3


def test_embedding_lookups():
    # ids outside the vocabulary switch the mask on: a guard, then a second trace
    calls = [(ints(0, 6, (2, 3)),), (ints(0, 6, (2, 3)),), (ints(0, 6, (2, 3)),)]
    check_replays(lambda: nn.EmbeddingLookup(6, 3, max_norm=0.5), calls, grad_position=None)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        ms.set_seed(0)
        emb = nn.EmbeddingLookup(6, 3)
        ids = [Tensor(np.array(v, np.int32)) for v in
               ([[0, 5]], [[7, 5]], [[1, 2]], [[-1, 2]], [[3, 3]])]
        outs = [emb(i) for i in ids]
        stats = cell_stats(emb)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    eager = nn.EmbeddingLookup(6, 3)
    assert all(same(o, eager(i)) for o, i in zip(outs, ids))
    assert stats["fallbacks"] == {} and stats["captures"] == 2 and stats["replays"] == 3
    for op in ("SUM", "MEAN", "MAX"):
        calls = [(ints(0, 8, (2, 4)), Tensor(RNG.choice([0.0, 0.5, -1.5], (2, 4)).astype(
            np.float32)), ints(0, 3, (2, 4))) for _ in range(3)]
        check_replays(lambda: nn.MultiFieldEmbeddingLookup(8, 3, 3, operator=op), calls, (1,))


def test_patches_resizes_pads_and_diagonals():
    calls = [(f64(2, 3, 7, 6),) for _ in range(3)]
    check_replays(lambda: nn.Unfold([1, 3, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "same"), calls)
    calls = [(f64(2, 2, 3, 4),) for _ in range(3)]
    check_replays(lambda: nn.Upsample(size=(5, 7), mode="nearest"), calls)
    check_replays(lambda: nn.Upsample(size=(5, 7), mode="bilinear"), calls)
    calls = [(f64(2, 3, 4),) for _ in range(3)]
    check_replays(lambda: nn.Pad(((0, 0), (1, 2), (2, 1)), "SYMMETRIC"), calls)
    calls = [(f64(2, 3),) for _ in range(3)]
    check_replays(nn.MatrixDiag, calls)
    calls = [(f64(2, 3, 4), f64(2, 3)) for _ in range(3)]
    check_replays(nn.MatrixSetDiag, calls, (0, 1))


def test_instance_norm_running_statistics_are_written_at_every_replay():
    calls = [(Tensor(RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)),) for _ in range(3)]

    def run():
        net = nn.InstanceNorm2d(3).set_train()
        outs = [net(*args) for args in calls]
        return outs, net.moving_mean.asnumpy(), net.moving_variance.asnumpy(), net
    (o1, m1, v1, _), (o2, m2, v2, net) = in_both_modes(run)
    assert all(same(a, b) for a, b in zip(o1, o2))
    assert np.array_equal(m1, m2) and np.array_equal(v1, v2)
    stats = cell_stats(net)
    assert stats["fallbacks"] == {} and stats["replays"] == 2


def test_sampled_softmax_loss_with_fixed_samples():
    fixed = ([0, 4], [[0.3], [0.4], [0.5]], [0.2, 0.6])
    calls = [(f64(7, 3), f64(7), ints(0, 7, (3, 1), np.int64), f64(3, 3)) for _ in range(3)]
    check_replays(lambda: nn.SampledSoftmaxLoss(2, 7, sampled_values=fixed, reduction="mean"),
                  calls, (0, 1, 3))


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
def test_rnns_with_sequence_lengths(cls):
    calls = [(Tensor(RNG.standard_normal((3, 5, 3)).astype(np.float32)), None,
              ints(1, 6, 3)) for _ in range(3)]
    check_replays(lambda: cls(3, 4, num_layers=2, bidirectional=True, batch_first=True), calls)


class _GatherElements(nn.Cell):
    def construct(self, x, index):
        return ms.ops.gather_elements(x, 1, index) * 2.0


def test_gather_elements_with_a_tensor_index():
    calls = [(f64(3, 4), ints(-4, 4, (3, 5))) for _ in range(3)]
    check_replays(_GatherElements, calls)
    # an index out of range raises at a replay too
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        cell = _GatherElements()
        for args in calls:
            cell(*args)
        with pytest.raises(IndexError):
            cell(f64(3, 4), Tensor(np.full((3, 5), 4, np.int32)))
        assert cell_stats(cell)["replays"] >= 2
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class _ScatterNd(nn.Cell):
    def construct(self, indices, updates):
        return ms.ops.scatter_nd(indices, updates, (3, 4, 2)) * 2.0


def test_scatter_nd_with_a_tensor_index():
    # repeated coordinates accumulate; whole (4, 2) rows and single (2,) entries
    calls = [(ints(0, 3, (5, 1)), f64(5, 4, 2)) for _ in range(3)]
    check_replays(_ScatterNd, calls, (1,))
    calls = [(Tensor(np.stack([RNG.integers(0, 3, 6), RNG.integers(0, 4, 6)], 1)), f64(6, 2))
             for _ in range(3)]
    check_replays(_ScatterNd, calls, (1,))


class _GumbelSoftmax(nn.Cell):
    def __init__(self, hard):
        super().__init__()
        self.hard = hard

    def construct(self, x):
        return ms.ops.gumbel_softmax(x, 0.8, self.hard)


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_draws_anew_at_every_replay(hard):
    calls = [(f64(4, 5),)] * 4  # the same logits: only the draws change the picks
    check_replays(lambda: _GumbelSoftmax(hard), calls)


def test_functional_max_pool3d_indices_replay_from_the_new_data():
    jitted = ms.jit(lambda x: ops.max_pool3d(x, 2, 2, return_indices=True))
    for k in range(3):
        x = Tensor(np.random.default_rng(k).standard_normal((1, 2, 4, 4, 4)).astype(np.float32))
        want, got = ops.max_pool3d(x, 2, 2, return_indices=True), jitted(x)
        assert all(np.array_equal(u.asnumpy(), v.asnumpy()) for u, v in zip(want, got))
    assert jitted.stats["replays"] == 2 and jitted.stats["fallbacks"] == {}
