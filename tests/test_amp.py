"""`minispore.amp` loss scaling (docs/amp.md): DynamicLossScaler / StaticLossScaler
against MindSpore 2.10's sequences, scale/unscale dtypes and structures, all_finite, the loss
scale managers, and the tutorial's mixed-precision training loop with a real float16
overflow."""
import inspect

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, amp, nn, ops

STEPS = [True, True, True, False, True, True, True, True, False, False]   # grads finite?


def test_signatures_match_mindspore():
    assert str(inspect.signature(amp.DynamicLossScaler)) == \
        "(scale_value, scale_factor, scale_window)"
    assert str(inspect.signature(amp.StaticLossScaler)) == "(scale_value)"
    assert str(inspect.signature(amp.all_finite)) == "(inputs)"
    assert str(inspect.signature(amp.FixedLossScaleManager)) == \
        "(loss_scale=128.0, drop_overflow_update=True)"
    assert str(inspect.signature(amp.DynamicLossScaleManager)) == \
        "(init_loss_scale=16777216, scale_factor=2, scale_window=2000)"
    for cls in (amp.DynamicLossScaler, amp.StaticLossScaler):
        assert issubclass(cls, amp.LossScaler)
    for cls in (amp.FixedLossScaleManager, amp.DynamicLossScaleManager):
        assert issubclass(cls, amp.LossScaleManager)


def test_dynamic_loss_scaler_adjust_matches_mindspore():
    scaler = amp.DynamicLossScaler(1024, 2, 3)
    assert isinstance(scaler.scale_value, Parameter) and scaler.scale_value.dtype == ms.float32
    seen = []
    for finite in STEPS:
        assert scaler.adjust(Tensor(finite)) is True
        seen.append((float(scaler.scale_value.asnumpy()), int(scaler.counter.asnumpy())))
    # MindSpore 2.10 (CPU), same calls:
    assert seen == [(1024.0, 1), (1024.0, 2), (2048.0, 0), (1024.0, 0), (1024.0, 1),
                    (1024.0, 2), (2048.0, 0), (2048.0, 1), (1024.0, 0), (512.0, 0)]


def test_dynamic_loss_scaler_bounds():
    scaler = amp.DynamicLossScaler(2, 4, 1)
    scaler.adjust(False)
    scaler.adjust(False)
    assert float(scaler.scale_value.asnumpy()) == 1.0     # never below 1
    scaler = amp.DynamicLossScaler(2.0 ** 127, 2, 1)
    scaler.adjust(True)
    assert float(scaler.scale_value.asnumpy()) == 2.0 ** 127   # never grows to inf


def test_scale_and_unscale_keep_dtypes_and_structure():
    scaler = amp.DynamicLossScaler(1024, 2, 1000)
    grads = (Tensor(np.array([1.0, 2.0], np.float16)), Tensor(np.float32(3.0)))
    scaled = scaler.scale(grads)
    assert isinstance(scaled, tuple) and [g.dtype for g in scaled] == [ms.float16, ms.float32]
    np.testing.assert_array_equal(scaled[0].asnumpy(), [1024.0, 2048.0])
    assert float(scaled[1].asnumpy()) == 3072.0
    unscaled = scaler.unscale([scaled[0], [scaled[1]]])
    assert isinstance(unscaled, list) and isinstance(unscaled[1], list)
    np.testing.assert_array_equal(unscaled[0].asnumpy(), [1.0, 2.0])
    assert float(unscaled[1][0].asnumpy()) == 3.0
    # MindSpore 2.10: unscale multiplies by the reciprocal, in the input's dtype.
    tiny = scaler.unscale(Tensor(np.array([1.0, 2.0], np.float16)))
    np.testing.assert_array_equal(tiny.asnumpy(), np.float16([0.0009765625, 0.001953125]))
    static = amp.StaticLossScaler(2 ** 20)
    assert static.scale(Tensor(np.float16(1.0))).asnumpy() == np.float16(np.inf)
    assert static.adjust(Tensor(False)) is False
    assert float(static.scale_value.asnumpy()) == 2.0 ** 20


def test_scaling_is_differentiable():
    scaler = amp.StaticLossScaler(8)
    x = Tensor(np.array([1.0, -2.0]))
    grad = ms.grad(lambda z: scaler.scale((z * z).sum()))(x)
    np.testing.assert_array_equal(grad.asnumpy(), [16.0, -32.0])


def test_all_finite():
    finite = amp.all_finite((Tensor([1.0, 2.0]), [Tensor(np.float16([3.0]))]))
    assert finite.dtype == ms.bool_ and finite.shape == () and bool(finite)
    assert not bool(amp.all_finite([Tensor([1.0]), Tensor([np.inf])]))
    assert not bool(amp.all_finite((Tensor(np.float16([np.nan])),)))
    assert bool(amp.all_finite((Tensor(np.array([2 ** 62])), Tensor(np.zeros((0, 3))))))
    assert not bool(amp.all_finite(Tensor([-np.inf])))
    with pytest.raises(TypeError, match="all_finite.*inputs"):
        amp.all_finite((Tensor([1.0]), 2.0))


def test_loss_scaler_errors():
    with pytest.raises(ValueError, match="DynamicLossScaler.*scale_value.*>= 1"):
        amp.DynamicLossScaler(0.5, 2, 10)
    with pytest.raises(TypeError, match="DynamicLossScaler.*scale_value"):
        amp.DynamicLossScaler("1024", 2, 10)
    with pytest.raises(ValueError, match="DynamicLossScaler.*scale_window"):
        amp.DynamicLossScaler(1024, 2, 0)
    with pytest.raises(TypeError, match="DynamicLossScaler.*scale_factor"):
        amp.DynamicLossScaler(1024, 2.5, 10)
    with pytest.raises(ValueError, match="StaticLossScaler.*scale_value"):
        amp.StaticLossScaler(0)
    with pytest.raises(TypeError):
        amp.LossScaler()


def test_dynamic_loss_scale_manager_matches_mindspore():
    manager = amp.DynamicLossScaleManager(1024, 2, 3)
    seen = []
    for finite in STEPS:
        manager.update_loss_scale(not finite)
        seen.append(manager.get_loss_scale())
    assert seen == [1024, 1024, 2048, 1024, 1024, 1024, 2048, 2048, 1024, 512]   # MindSpore 2.10
    assert manager.get_drop_overflow_update() is True
    cell = manager.get_update_cell()
    assert isinstance(cell, nn.DynamicLossScaleUpdateCell)
    assert (cell.get_loss_scale(), cell.scale_factor, cell.scale_window) == (512, 2, 3)
    assert amp.DynamicLossScaleManager().get_loss_scale() == 2 ** 24


def test_dynamic_loss_scale_manager_gives_up_after_1000_overflows():
    manager = amp.DynamicLossScaleManager(2)
    for _ in range(1000):
        manager.update_loss_scale(True)
    with pytest.raises(RuntimeError, match="DynamicLossScaleManager.*1001"):
        manager.update_loss_scale(True)


def test_fixed_loss_scale_manager():
    manager = amp.FixedLossScaleManager()
    assert manager.get_loss_scale() == 128.0 and manager.get_drop_overflow_update() is True
    manager.update_loss_scale(True)
    assert manager.get_loss_scale() == 128.0
    cell = manager.get_update_cell()
    assert isinstance(cell, nn.FixedLossScaleUpdateCell) and cell.get_loss_scale() == 128.0
    assert amp.FixedLossScaleManager(64, drop_overflow_update=False).get_update_cell() is None
    with pytest.raises(ValueError, match="FixedLossScaleManager.*loss_scale"):
        amp.FixedLossScaleManager(0.5)
    with pytest.raises(ValueError, match="DynamicLossScaleManager.*scale_window"):
        amp.DynamicLossScaleManager(scale_window=0)


def test_manager_update_cell_drives_the_loss_scale_cell():
    net = nn.Dense(3, 1, weight_init="ones")
    net.to_float(ms.float16)
    loss = nn.WithLossCell(net, nn.MSELoss())
    opt = nn.SGD(net.trainable_params(), 0.01)
    manager = amp.DynamicLossScaleManager(2 ** 17, 2, 100)
    cell = nn.TrainOneStepWithLossScaleCell(loss, opt, manager.get_update_cell())
    x = Tensor(np.ones((1, 3), np.float32))
    y = net(x).astype(ms.float32) - 0.5     # d loss / d output = 1, reaching float16 * scale
    flags = [bool(cell(x, y)[1]) for _ in range(3)]
    assert flags == [True, True, False]     # 2^17 and 2^16 overflow float16, 2^15 does not
    assert float(cell.scale_sense.asnumpy()) == 2.0 ** 15


class Model(nn.Cell):
    """A float16 two-layer network (float32 master weights would be the usual setup; float16
    weights keep the example small)."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(3)
        self.w1 = Parameter(Tensor(rng.standard_normal((4, 8)).astype(np.float16) * 0.5),
                            name="w1")
        self.w2 = Parameter(Tensor(rng.standard_normal((8, 1)).astype(np.float16) * 0.5),
                            name="w2")

    def construct(self, x):
        return ops.matmul(ops.tanh(ops.matmul(x, self.w1)), self.w2)


def test_tutorial_mixed_precision_loop():
    model = Model()
    loss_fn = nn.MSELoss()
    optimizer = nn.SGD(model.trainable_params(), 0.05)
    scaler = amp.DynamicLossScaler(2 ** 16, 2, 2)
    rng = np.random.default_rng(4)
    x = Tensor(rng.standard_normal((16, 4)).astype(np.float16))
    y = Tensor(rng.standard_normal((16, 1)).astype(np.float16))

    def forward(data, label):
        loss = loss_fn(model(data), label)
        return scaler.scale(loss), loss

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters, has_aux=True)
    losses, scales, skipped = [], [], 0
    for _ in range(12):
        before = {p.name: p.asnumpy().copy() for p in model.trainable_params()}
        (_, loss), grads = grad_fn(x, y)
        grads = scaler.unscale(grads)
        is_finite = amp.all_finite(grads)
        if is_finite:
            optimizer(grads)
            losses.append(float(loss.asnumpy()))
        else:
            skipped += 1
            for p in model.trainable_params():
                np.testing.assert_array_equal(p.asnumpy(), before[p.name])
        scaler.adjust(is_finite)
        scales.append(float(scaler.scale_value.asnumpy()))
    assert skipped >= 1                                      # 2^16 overflows float16
    assert scales[0] == 2 ** 15 and 2 ** 16 in scales        # halved, then grown back
    assert losses[-1] < losses[0]


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_tutorial_mixed_precision_step_replays_under_jit():
    # the functional amp step (scale, unscale, all_finite, `if is_finite`, adjust) captured once
    # per branch and replayed, bitwise equal to eager, across overflowing and finite steps, and
    # as quiet as eager (the backward's ops replay inside the walk's quiet region)
    rng = np.random.default_rng(4)
    x = Tensor(rng.standard_normal((16, 4)).astype(np.float16))
    y = Tensor(rng.standard_normal((16, 1)).astype(np.float16))
    runs = []
    for jitted in (False, True):
        ms.set_seed(0)
        model = Model()
        loss_fn = nn.MSELoss()
        optimizer = nn.SGD(model.trainable_params(), 0.05)
        scaler = amp.DynamicLossScaler(2 ** 16, 2, 2)

        def forward(data, label):
            loss = loss_fn(model(data), label)
            return scaler.scale(loss), loss

        grad_fn = ms.value_and_grad(forward, None, optimizer.parameters, has_aux=True)

        def step(data, label):
            (_, loss), grads = grad_fn(data, label)
            grads = scaler.unscale(grads)
            is_finite = amp.all_finite(grads)
            if is_finite:
                optimizer(grads)
            scaler.adjust(is_finite)
            return loss, is_finite

        run = ms.jit(step) if jitted else step
        out = [tuple(o.asnumpy().copy() for o in run(x, y)) for _ in range(12)]
        out.append(scaler.scale_value.asnumpy().copy())
        runs.append((out, [p.asnumpy().copy() for p in model.trainable_params()],
                     run.stats if jitted else None))
    (a, pa, _), (b, pb, stats) = runs
    assert not all(bool(o[1]) for o in a[:-1]) and any(bool(o[1]) for o in a[:-1])
    assert all(np.array_equal(u, v) for ra, rb in zip(a[:-1], b[:-1]) for u, v in zip(ra, rb))
    assert np.array_equal(a[-1], b[-1]) and all(np.array_equal(u, v) for u, v in zip(pa, pb))
    assert stats["captures"] == 2 and stats["replays"] == 10, stats
