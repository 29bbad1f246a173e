"""Gradient accumulation with nn.GradAccumulator: k micro-batches summed in place into buffers it
owns (no allocation per step after the first), applied once, equal to one k-times larger batch;
also with recomputed blocks and through the value_and_grad + optimizer loop users write."""
import tracemalloc

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn

K, MICRO, WIDTH = 4, 3, 32


def mlp(recompute=False):
    ms.set_seed(9)
    layers = [nn.Dense(WIDTH, WIDTH, dtype=ms.float64), nn.Tanh(),
              nn.Dense(WIDTH, WIDTH, dtype=ms.float64), nn.Tanh(),
              nn.Dense(WIDTH, 3, dtype=ms.float64)]
    if recompute:
        for cell in layers[:4]:
            cell.recompute()
    net = nn.SequentialCell(layers)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, nn.WithLossCell(net, loss)


def batch():
    rng = np.random.default_rng(1)
    return (Tensor(rng.standard_normal((K * MICRO, WIDTH))),
            Tensor(rng.integers(0, 3, K * MICRO).astype(np.int32)))


def params_of(net):
    return [p.asnumpy().copy() for p in net.trainable_params()]


@pytest.mark.parametrize("recompute", [False, True])
def test_k_micro_batches_equal_one_large_batch(recompute):
    x, y = batch()
    net_big, with_loss_big = mlp()
    opt_big = nn.SGD(net_big.trainable_params(), learning_rate=0.5)
    loss_big, grads_big = ms.value_and_grad(with_loss_big, None, opt_big.parameters)(x, y)
    opt_big(grads_big)

    net, with_loss = mlp(recompute)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.5)
    grad_fn = ms.value_and_grad(with_loss, None, opt.parameters)
    acc = nn.GradAccumulator(opt, K)
    losses = []
    for i in range(K):
        loss, grads = grad_fn(x[i * MICRO:(i + 1) * MICRO], y[i * MICRO:(i + 1) * MICRO])
        losses.append(float(loss.asnumpy()))
        assert acc(grads) is (i == K - 1)  # applied once, on the k-th call
    np.testing.assert_allclose(np.mean(losses), float(loss_big.asnumpy()), rtol=1e-12)
    for got, want in zip(params_of(net), params_of(net_big)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_accumulation_is_in_place_without_allocation_per_step():
    x, y = batch()
    net, with_loss = mlp()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    grad_fn = ms.value_and_grad(with_loss, None, opt.parameters)
    acc = nn.GradAccumulator(opt, K)
    buffers = {id(b) for b in acc._sums + acc._spare}
    grads = [grad_fn(x[i * MICRO:(i + 1) * MICRO], y[i * MICRO:(i + 1) * MICRO])[1]
             for i in range(K)]
    param_bytes = sum(p.nbytes for p in net.trainable_params())
    for cycle in range(2):
        for i, g in enumerate(grads):
            tracemalloc.start()
            acc(g)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            if i < K - 1:  # a plain accumulation: small bookkeeping only
                assert peak < param_bytes / 10, (cycle, i, peak, param_bytes)
        assert {id(b) for b in acc._sums + acc._spare} == buffers
        assert acc.pending == 0


def test_sum_mode_and_accumulated_values():
    net, with_loss = mlp()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.0)  # look at the buffers only
    acc = nn.GradAccumulator(opt, 3, mean=False)
    ones = tuple(Tensor(np.ones(p.shape)) for p in opt.parameters)
    acc(ones)
    acc(ones)
    np.testing.assert_array_equal(acc._sums[0], np.full(opt.parameters[0].shape, 2.0))
    before = params_of(net)
    assert acc(ones) is True and acc.pending == 0
    assert not any(b.any() for b in acc._sums)
    for got, want in zip(params_of(net), before):
        np.testing.assert_array_equal(got, want)
