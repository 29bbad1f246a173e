"""Recompute (minispore.recompute, Cell.recompute): identical values and gradients (bitwise,
dropout included), intermediates not kept, higher order; and gradient penalties (WGAN-GP)
through recomputed and hooked critics against float64 central differences."""
import gc
import weakref

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.testing import check_grads


class Block(nn.Cell):
    def __init__(self, width, p=0.3):
        super().__init__()
        self.dense = nn.Dense(width, width, dtype=ms.float64)
        self.drop = nn.Dropout(p=p)

    def construct(self, x):
        return self.drop(ops.relu(self.dense(x)))


def make_net(width=6, depth=4):
    ms.set_seed(11)
    blocks = nn.CellList([Block(width) for _ in range(depth)])
    blocks.set_train()
    return blocks


def step(blocks, x, how):
    params = blocks.trainable_params()

    def f(a):
        h = a
        for b in blocks:
            h = ms.recompute(b, h) if how == "fn" else b(h)
        return (h * h).sum()

    if how != "again":
        ms.set_seed(5)  # the same dropout draws for every variant
    loss, (gx, gw) = ms.value_and_grad(f, 0, params)(x)
    after = ops.rand(3, dtype=ms.float64)  # the streams continue as without recompute
    return [loss, gx, *gw, after]


def same_bits(a, b):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert u.dtype == v.dtype and np.array_equal(u.asnumpy(), v.asnumpy())


def test_recompute_gives_bitwise_equal_values_and_gradients_with_dropout():
    blocks = make_net()
    x = Tensor(np.random.default_rng(0).standard_normal((5, 6)))
    plain = step(blocks, x, "plain")
    same_bits(plain, step(blocks, x, "fn"))
    for b in blocks:
        b.recompute()
        assert not b._fast
    same_bits(plain, step(blocks, x, "plain"))
    ms.set_seed(6)
    other = step(blocks, x, "again")[0]  # dropout is live: other draws, another loss
    assert not np.array_equal(plain[0].asnumpy(), other.asnumpy())


def test_recompute_keeps_no_intermediate_until_backward():
    refs, freed = [], []

    def block(x):
        h = ops.tanh(x)  # Tanh saves its output: without recompute it lives until backward
        refs.append(weakref.ref(h))
        return h * 2

    def f(x, use):
        y = ms.recompute(block, x) if use else block(x)
        gc.collect()
        freed.append(refs[-1]() is None)
        return (y * y).sum()

    x = Tensor(np.array([0.5, -1.0]))
    g_plain = ms.grad(lambda a: f(a, False))(x)
    g_rc = ms.grad(lambda a: f(a, True))(x)
    assert freed == [False, True]
    np.testing.assert_array_equal(g_plain.asnumpy(), g_rc.asnumpy())


def test_recompute_differentiates_parameters_and_captured_tensors():
    w = Parameter(Tensor(np.array([1.5, -0.5])), name="w")

    def f(a, b):
        c = b * 3  # a tracked tensor the block closes over
        return ms.recompute(lambda h: ops.sin(h * w + c), a).sum()

    def ref(a, b):
        return ops.sin(a * w + b * 3).sum()

    x, y = Tensor(np.array([0.2, 0.9])), Tensor(np.array([-0.4, 0.1]))
    got = ms.grad(f, (0, 1), w)(x, y)
    want = ms.grad(ref, (0, 1), w)(x, y)
    for g, r in zip((*got[0], got[1]), (*want[0], want[1])):
        np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), rtol=1e-15)


def test_recompute_several_outputs_and_second_order():
    def pair(h):
        return ops.tanh(h) ** 3, h * h

    def f(x):
        a, b = ms.recompute(pair, x)
        return (a * b).sum()

    def ref(x):
        a, b = pair(x)
        return (a * b).sum()

    x = Tensor(np.array([0.3, -0.8, 1.1]))
    np.testing.assert_allclose(ms.grad(f)(x).asnumpy(), ms.grad(ref)(x).asnumpy(), rtol=1e-15)
    np.testing.assert_allclose(ms.grad(ms.grad(f))(x).asnumpy(),
                               ms.grad(ms.grad(ref))(x).asnumpy(), rtol=1e-13)
    check_grads(f, [x], order=2)


def test_forward_mode_through_recompute():
    # jvp records the VJP on a second tape, where the recomputed block's inputs are constants:
    # the re-run must still be walked on the block's own tape
    def pair(h):
        return ops.tanh(h) ** 3, h * h

    dense = nn.Dense(3, 2, dtype=ms.float64)

    def f(x):
        a, b = ms.recompute(pair, x)
        return (a * b).sum() + ms.recompute(dense, x.reshape(1, 3)).sum()

    def ref(x):
        a, b = pair(x)
        return (a * b).sum() + dense(x.reshape(1, 3)).sum()

    x = Tensor(np.array([0.3, -0.8, 1.1]))
    v = Tensor(np.array([1.0, -2.0, 0.5]))
    np.testing.assert_allclose(ms.jvp(f, x, v)[1].asnumpy(), ms.jvp(ref, x, v)[1].asnumpy(),
                               rtol=1e-14)
    np.testing.assert_allclose(ms.jacfwd(f)(x).asnumpy(), ms.jacrev(ref)(x).asnumpy(),
                               rtol=1e-14)


def test_recompute_outside_a_transform_and_bad_block():
    x = Tensor(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(ms.recompute(lambda a: a * 2, x).asnumpy(), [2.0, 4.0])
    with pytest.raises(TypeError, match="recompute.*callable.*int"):
        ms.recompute(3, x)


def test_in_place_write_to_a_saved_input_is_caught():
    def f(x):
        h = x * 1
        y = ms.recompute(lambda a: ops.exp(a), h)
        h[0] = 5.0  # the recomputation would read the new value
        return y.sum()

    with pytest.raises(RuntimeError, match="recompute.*modified in place"):
        ms.grad(f)(Tensor(np.array([0.1, 0.2])))


def test_recompute_with_hooks_inside():
    seen = []

    def block(x):
        y = x * 3
        y.register_hook(lambda g: seen.append(1) or g * 2)
        return y * y

    g = ms.grad(lambda a: ms.recompute(block, a).sum())(Tensor(np.array([1.0, 2.0])))
    np.testing.assert_allclose(g.asnumpy(), [36.0, 72.0])  # 2 * (2 * 3x) * 3
    assert seen == [1]  # the hook of the recomputed record, once


# ---- gradient penalties ------------------------------------------------------------------------

def wgan_gp(critic, real, fake, alpha):
    """(||d critic / d x_hat||_2 - 1)^2 averaged, x_hat interpolating real and fake."""
    x_hat = real * alpha + fake * (1 - alpha)
    g = ms.grad(lambda v: critic(v).sum())(x_hat)
    norms = ops.sqrt((g * g).reshape(g.shape[0], -1).sum(axis=1))
    return ((norms - 1) ** 2).mean()


def central_difference(loss, params, seed=0, eps=1e-6):
    """<d loss / d params, u> by central differences along a random direction u."""
    rng = np.random.default_rng(seed)
    base = [p.asnumpy().copy() for p in params]
    dirs = [rng.standard_normal(b.shape) for b in base]

    def at(sign):
        for p, b, d in zip(params, base, dirs):
            p.set_data(Tensor(b + sign * eps * d))
        return float(loss().asnumpy())
    try:
        numeric = (at(1) - at(-1)) / (2 * eps)
    finally:
        for p, b in zip(params, base):
            p.set_data(Tensor(b))
    return numeric, dirs


@pytest.mark.parametrize("variant", ["plain", "recompute", "hooked"])
def test_wgan_gp_through_dense_and_tanh(variant):
    ms.set_seed(2)
    critic = nn.SequentialCell([nn.Dense(4, 8, dtype=ms.float64), nn.Tanh(),
                                nn.Dense(8, 1, dtype=ms.float64)])
    if variant == "recompute":
        critic[0].recompute()
    if variant == "hooked":  # identity hooks must not change anything
        critic.register_backward_hook(lambda c, gi, go: None)
        critic[1].register_forward_hook(lambda c, i, o: None)
    rng = np.random.default_rng(3)
    real, fake = (Tensor(rng.standard_normal((5, 4))) for _ in range(2))
    alpha = Tensor(rng.uniform(size=(5, 1)))
    params = critic.trainable_params()
    grads = ms.grad(lambda: wgan_gp(critic, real, fake, alpha), None, params)()
    numeric, dirs = central_difference(lambda: wgan_gp(critic, real, fake, alpha), params)
    analytic = sum(float((g.asnumpy() * d).sum()) for g, d in zip(grads, dirs))
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("variant", ["plain", "recompute"])
def test_wgan_gp_through_a_conv2d(variant):
    ms.set_seed(4)
    conv = nn.Conv2d(1, 2, 3, has_bias=True, dtype=ms.float64)
    head = nn.Dense(2 * 5 * 5, 1, dtype=ms.float64)

    def critic(v):
        h = ops.tanh(ms.recompute(conv, v) if variant == "recompute" else conv(v))
        return head(h.reshape(h.shape[0], -1))

    rng = np.random.default_rng(5)
    real, fake = (Tensor(rng.standard_normal((2, 1, 5, 5))) for _ in range(2))
    alpha = Tensor(rng.uniform(size=(2, 1, 1, 1)))
    params = [conv.weight, conv.bias, head.weight]
    grads = ms.grad(lambda: wgan_gp(critic, real, fake, alpha), None, params)()
    numeric, dirs = central_difference(lambda: wgan_gp(critic, real, fake, alpha), params)
    analytic = sum(float((g.asnumpy() * d).sum()) for g, d in zip(grads, dirs))
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-9)


def test_batchnorm_statistics_update_once_and_inputs_may_not_be_written():
    def run(use):
        ms.set_seed(8)
        bn = nn.BatchNorm1d(3)
        bn.set_train()
        x = Tensor(np.random.default_rng(2).standard_normal((6, 3)).astype(np.float32))
        g = ms.grad(lambda a: ((ms.recompute(bn, a) if use else bn(a)) ** 2).sum(), 0,
                    bn.trainable_params())(x)
        return [g[0], *g[1], bn.moving_mean, bn.moving_variance]

    same_bits(run(False), run(True))

    def writes_input(a):
        a[0] = 0.0
        return a * 2

    with pytest.raises(ValueError, match="recompute.*wrote to one of its inputs"):
        ms.grad(lambda x: ms.recompute(writes_input, x * 1).sum())(Tensor(np.ones(3)))
