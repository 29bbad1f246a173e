"""Training and evaluation wrappers: WithLossCell, WithEvalCell,
WithGradCell, ForwardValueAndGrad, TrainOneStepCell (pre-update loss, sens, return_grad, equal
to a manual value_and_grad + optimizer step, numbers from MindSpore 2.10), loss scaling with
real overflow detection, DistributedGradReducer, and gradient accumulation."""
import inspect

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops

W0 = np.array([[0.3, -0.6], [0.8, 0.1], [-0.5, 0.4]], np.float32)
B0 = np.array([0.2, -0.1], np.float32)
X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 0.75, 1.0], [0.0, -0.3, 0.9],
              [1.0, 1.0, -1.0], [0.2, -0.7, 0.4], [-1.2, 0.3, 0.6], [0.9, -0.1, -0.8]],
             np.float32)
LABELS = np.array([0, 1, 1, 0, 1, 0, 0, 1], np.int32)


class Linear(nn.Cell):
    def __init__(self, dtype=np.float32):
        super().__init__()
        self.w = Parameter(Tensor(W0.astype(dtype)), name="w")
        self.b = Parameter(Tensor(B0.astype(dtype)), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


def loss_cell(dtype=np.float32):
    net = Linear(dtype)
    return net, nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(True, "mean"))


def data(dtype=np.float32):
    return Tensor(X.astype(dtype)), Tensor(LABELS)


def snapshot(cell):
    return {p.name: p.asnumpy().copy() for p in cell.get_parameters()}


def assert_same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


# ---- signatures ---------------------------------------------------------------------------------

SIGNATURES = {   # inspect.signature of __init__ and construct in MindSpore 2.10, without self
    "WithLossCell": ("(backbone, loss_fn)", "(data, label)"),
    "WithEvalCell": ("(network, loss_fn, add_cast_fp32=False)", "(data, label)"),
    "WithGradCell": ("(network, loss_fn=None, sens=None)", "(*inputs)"),
    "ForwardValueAndGrad": (("(network, weights=None, get_all=False, get_by_list=False, "
                             "sens_param=False)"), "(*inputs)"),
    "TrainOneStepCell": ("(network, optimizer, sens=None, return_grad=False)", "(*inputs)"),
    "TrainOneStepWithLossScaleCell": ("(network, optimizer, scale_sense)", "(*inputs)"),
    "DynamicLossScaleUpdateCell": ("(loss_scale_value, scale_factor, scale_window)",
                                   "(loss_scale, overflow)"),
    "FixedLossScaleUpdateCell": ("(loss_scale_value)", "(_, overflow)"),
    "DistributedGradReducer": (("(parameters, mean=None, degree=None, fusion_type=1, "
                                "group='hccl_world_group')"), "(grads)"),
    "GradAccumulationCell": ("(network, micro_size)", "(*inputs)"),
}


def _without_self(fn):
    sig = inspect.signature(fn)
    return str(sig.replace(parameters=list(sig.parameters.values())[1:]))


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures_match_mindspore(name):
    cls = getattr(nn, name)
    assert issubclass(cls, nn.Cell)
    assert _without_self(cls.__init__) == SIGNATURES[name][0]
    assert _without_self(cls.construct) == SIGNATURES[name][1]


# ---- WithLossCell, WithEvalCell, WithGradCell, ForwardValueAndGrad --------------------------------

def test_with_loss_cell():
    net, with_loss = loss_cell()
    x, y = data()
    want = nn.SoftmaxCrossEntropyWithLogits(True, "mean")(net(x), y)
    assert with_loss(x, y).asnumpy() == want.asnumpy()
    assert with_loss.backbone_network is net
    assert [p.name for p in with_loss.trainable_params()] == ["w", "b"]
    with pytest.raises(TypeError, match="WithLossCell.*backbone"):
        nn.WithLossCell(lambda x: x, nn.MSELoss())


def test_with_eval_cell_returns_loss_outputs_label():
    net = Linear(np.float16)
    x, y = Tensor(X.astype(np.float16)), Tensor(np.eye(2, dtype=np.float16)[LABELS])
    loss, outputs, label = nn.WithEvalCell(net, nn.MSELoss())(x, y)
    assert outputs.dtype == ms.float16 and label is y
    np.testing.assert_array_equal(outputs.asnumpy(), net(x).asnumpy())
    assert loss.asnumpy() == nn.MSELoss()(net(x), y).asnumpy()
    loss, outputs, label = nn.WithEvalCell(net, nn.MSELoss(), add_cast_fp32=True)(x, y)
    assert (loss.dtype, outputs.dtype, label.dtype) == (ms.float32,) * 3
    index_labels = Tensor(LABELS)
    _, _, label = nn.WithEvalCell(net, nn.CrossEntropyLoss(), True)(x, index_labels)
    assert label.dtype == ms.int32   # only floating-point labels are cast
    with pytest.raises(TypeError, match="WithEvalCell.*add_cast_fp32"):
        nn.WithEvalCell(net, nn.MSELoss(), add_cast_fp32=1)


def test_with_grad_cell_and_forward_value_and_grad():
    net, with_loss = loss_cell()
    x, y = data()
    want_loss, want = ms.value_and_grad(with_loss, None, net.trainable_params())(x, y)
    grads = nn.WithGradCell(net, nn.SoftmaxCrossEntropyWithLogits(True, "mean"))(x, y)
    assert isinstance(grads, tuple) and len(grads) == 2
    for g, w in zip(grads, want):
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())
    sens = Tensor(np.float32(3.0))
    scaled = nn.WithGradCell(with_loss, sens=sens)(x, y)
    for g, w in zip(scaled, want):
        np.testing.assert_allclose(g.asnumpy(), 3 * w.asnumpy(), rtol=1e-6, atol=1e-7)
    weights = ms.ParameterTuple(net.trainable_params())
    loss, grads = nn.ForwardValueAndGrad(with_loss, weights, get_by_list=True)(x, y)
    assert loss.asnumpy() == want_loss.asnumpy()
    for g, w in zip(grads, want):
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())
    loss, dx = nn.ForwardValueAndGrad(with_loss)(x, y)
    assert dx.shape == x.shape
    with pytest.raises(TypeError, match="ForwardValueAndGrad.*weights"):
        nn.ForwardValueAndGrad(with_loss, get_by_list=True)


# ---- TrainOneStepCell -----------------------------------------------------------------------------

def test_train_one_step_returns_the_loss_before_the_update():
    net, with_loss = loss_cell()
    x, y = data()
    before = with_loss(x, y).asnumpy()
    step = nn.TrainOneStepCell(with_loss, nn.SGD(net.trainable_params(), 0.5))
    loss = step(x, y)
    assert loss.asnumpy() == before
    after = with_loss(x, y).asnumpy()
    assert after < before
    assert step(x, y).asnumpy() == after


def test_train_one_step_equals_manual_value_and_grad_and_optimizer():
    net_a, with_loss_a = loss_cell()
    step = nn.TrainOneStepCell(with_loss_a, nn.Adam(net_a.trainable_params(), 0.01))
    net_b, with_loss_b = loss_cell()
    opt_b = nn.Adam(net_b.trainable_params(), 0.01)
    grad_fn = ms.value_and_grad(with_loss_b, None, opt_b.parameters)
    x, y = data()
    for _ in range(3):
        loss_a = step(x, y)
        loss_b, grads = grad_fn(x, y)
        opt_b(grads)
        assert loss_a.asnumpy() == loss_b.asnumpy()
    assert_same(snapshot(net_a), snapshot(net_b))
    assert_same(snapshot(step.optimizer), snapshot(opt_b))


# Three Momentum(lr=0.1, momentum=0.9) steps in MindSpore 2.10 (CPU) on the data above.
MINDSPORE_LOSSES = {None: [1.5762677192687988, 1.452576994895935, 1.2362358570098877],
                    4.0: [1.5762677192687988, 1.1149078607559204, 0.6006535887718201]}
MINDSPORE_W = {None: [[0.0868573784828186, -0.38685739040374756],
                      [0.6328903436660767, 0.267109751701355],
                      [-0.16610510647296906, 0.06610512733459473]],
               4.0: [[-0.3998364210128784, 0.09983640909194946],
                     [0.1852586269378662, 0.7147413492202759],
                     [0.6305055618286133, -0.7305055856704712]]}


@pytest.mark.parametrize("sens", [None, 4.0])
def test_train_one_step_matches_mindspore(sens):
    net, with_loss = loss_cell()
    step = nn.TrainOneStepCell(with_loss, nn.Momentum(net.trainable_params(), 0.1, 0.9), sens)
    x, y = data()
    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    np.testing.assert_allclose(losses, MINDSPORE_LOSSES[sens], rtol=1e-6)
    np.testing.assert_allclose(net.w.asnumpy(), MINDSPORE_W[sens], rtol=1e-6, atol=1e-7)


def test_sens_scales_the_gradients_and_return_grad_names_them():
    net, with_loss = loss_cell()
    x, y = data()
    _, plain = ms.value_and_grad(with_loss, None, net.trainable_params())(x, y)
    step = nn.TrainOneStepCell(with_loss, nn.SGD(net.trainable_params(), 0.0), sens=8.0,
                               return_grad=True)
    loss, grads = step(x, y)
    assert list(grads) == ["w", "b"]
    for g, p in zip(grads.values(), plain):
        np.testing.assert_array_equal(g.asnumpy(), 8 * p.asnumpy())  # powers of 2: exact
    assert loss.asnumpy() == with_loss(x, y).asnumpy()


def test_train_one_step_errors():
    net, with_loss = loss_cell()
    opt = nn.SGD(net.trainable_params())
    with pytest.raises(ValueError, match="TrainOneStepCell.*sens.*0"):
        nn.TrainOneStepCell(with_loss, opt, sens=0)
    with pytest.raises(TypeError, match="TrainOneStepCell.*sens.*number"):
        nn.TrainOneStepCell(with_loss, opt, sens="1")
    with pytest.raises(TypeError, match="TrainOneStepCell.*optimizer"):
        nn.TrainOneStepCell(with_loss, None)


# ---- loss scaling ----------------------------------------------------------------------------------

def test_dynamic_loss_scale_update_cell_matches_mindspore():
    scale = Parameter(Tensor(np.float32(1024.0)), name="scale")
    cell = nn.DynamicLossScaleUpdateCell(1024.0, 2, 3)
    seen = []
    for overflow in [False, False, False, True, False, False, False, False, True, True]:
        assert bool(cell(scale, Tensor(overflow))) == overflow
        seen.append(float(scale.asnumpy()))
    # MindSpore 2.10 (CPU) gives this sequence for the same calls.
    assert seen == [1024, 1024, 2048, 1024, 1024, 1024, 2048, 2048, 1024, 512]
    assert cell.get_loss_scale() == 1024.0


def test_dynamic_loss_scale_never_below_one_nor_infinite():
    scale = Parameter(Tensor(np.float32(2.0)), name="scale")
    cell = nn.DynamicLossScaleUpdateCell(2.0, 4, 1)
    cell(scale, True)
    cell(scale, True)
    assert float(scale.asnumpy()) == 1.0
    scale.set_data(Tensor(np.float32(2.0 ** 126)))
    cell(scale, False)
    cell(scale, False)
    assert float(scale.asnumpy()) == 2.0 ** 126


def fp16_network():
    """Squared error of a float16 linear model: a loss scale of 2^16 or more overflows float16
    (its largest value is 65504), 2^15 does not."""
    net = Linear(np.float16)

    class Loss(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net

        def construct(self, x, y):
            d = self.net(x) - y
            return (d * d).mean()

    return net, Loss()


def test_overflow_skips_the_update_and_lowers_the_scale():
    net, loss = fp16_network()
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    cell = nn.TrainOneStepWithLossScaleCell(loss, opt, nn.DynamicLossScaleUpdateCell(
        2.0 ** 17, 2, 2))
    x, y = Tensor(X[:4].astype(np.float16)), Tensor(np.ones((4, 2), np.float16))
    params, state = snapshot(net), snapshot(opt)
    expected_scales = [2.0 ** 16, 2.0 ** 15]
    for scale in expected_scales:
        value, overflow, new_scale = cell(x, y)
        assert overflow.dtype == ms.bool_ and overflow.shape == () and bool(overflow)
        assert float(new_scale.asnumpy()) == scale
        assert value.asnumpy() == loss(x, y).asnumpy()      # the unscaled loss
        assert_same(snapshot(net), params)
        assert_same(snapshot(opt), state)                   # moments and global_step too
    value, overflow, new_scale = cell(x, y)
    assert not bool(overflow) and float(new_scale.asnumpy()) == 2.0 ** 15
    assert int(opt.global_step.asnumpy()[0]) == 1
    assert not np.array_equal(net.w.asnumpy(), params["net.w"])
    value, overflow, new_scale = cell(x, y)                 # 2 good steps in a row: it grows
    assert not bool(overflow) and float(new_scale.asnumpy()) == 2.0 ** 16


def test_finite_loss_scaled_steps_equal_plain_steps():
    net_a, with_loss_a = loss_cell()
    scaled = nn.TrainOneStepWithLossScaleCell(
        with_loss_a, nn.Momentum(net_a.trainable_params(), 0.1, 0.9),
        Tensor(np.float32(1024.0)))
    net_b, with_loss_b = loss_cell()
    plain = nn.TrainOneStepCell(with_loss_b, nn.Momentum(net_b.trainable_params(), 0.1, 0.9))
    x, y = data()
    for _ in range(3):
        loss_a, overflow, scale = scaled(x, y)
        assert loss_a.asnumpy() == plain(x, y).asnumpy()
        assert not bool(overflow) and float(scale.asnumpy()) == 1024.0
    assert_same(snapshot(net_a), snapshot(net_b))


def test_fixed_scale_and_tensor_scale_skip_overflowing_steps():
    for scale_sense in (nn.FixedLossScaleUpdateCell(2.0 ** 16), Tensor([2.0 ** 16])):
        net, loss = fp16_network()
        opt = nn.SGD(net.trainable_params(), 0.1)
        cell = nn.TrainOneStepWithLossScaleCell(loss, opt, scale_sense)
        x, y = Tensor(X[:4].astype(np.float16)), Tensor(np.ones((4, 2), np.float16))
        params = snapshot(net)
        _, overflow, scale = cell(x, y)
        assert bool(overflow) and float(scale.asnumpy().reshape(())) == 2.0 ** 16
        assert_same(snapshot(net), params)
        cell.set_sense_scale(Tensor(np.full(cell.scale_sense.shape, 256.0, np.float32)))
        _, overflow, scale = cell(x, y)
        assert not bool(overflow) and float(scale.asnumpy().reshape(())) == 256.0
        assert not np.array_equal(net.w.asnumpy(), params["net.w"])


def test_nan_gradients_count_as_overflow():
    net, with_loss = loss_cell()
    opt = nn.SGD(net.trainable_params(), 0.1)
    cell = nn.TrainOneStepWithLossScaleCell(with_loss, opt, nn.FixedLossScaleUpdateCell(1.0))
    x = X.copy()
    x[0, 0] = np.nan
    params = snapshot(net)
    _, overflow, _ = cell(Tensor(x), Tensor(LABELS))
    assert bool(overflow)
    assert_same(snapshot(net), params)
    status, _ = cell.start_overflow_check(None, None)
    assert not bool(cell.get_overflow_status(status, (Tensor([1.0]), Tensor([2.0]))))
    assert bool(cell.get_overflow_status(status, (Tensor([1.0]), Tensor([np.inf]))))


def test_loss_scale_cell_errors():
    net, with_loss = loss_cell()
    opt = nn.SGD(net.trainable_params())
    with pytest.raises(TypeError, match="TrainOneStepWithLossScaleCell.*scale_sense"):
        nn.TrainOneStepWithLossScaleCell(with_loss, opt, 1024.0)
    with pytest.raises(ValueError, match="TrainOneStepWithLossScaleCell.*shape"):
        nn.TrainOneStepWithLossScaleCell(with_loss, opt, Tensor([1.0, 2.0]))
    cell = nn.TrainOneStepWithLossScaleCell(with_loss, opt, Tensor(np.float32(2.0)))
    with pytest.raises(TypeError, match="TrainOneStepWithLossScaleCell.*sens"):
        cell.set_sense_scale(4.0)
    with pytest.raises(ValueError, match="DynamicLossScaleUpdateCell.*scale_window"):
        nn.DynamicLossScaleUpdateCell(1.0, 2, 0)


# ---- DistributedGradReducer -----------------------------------------------------------------------

def test_distributed_grad_reducer_in_one_process():
    net = Linear()
    grads = (Tensor(np.ones((3, 2), np.float32)), Tensor(np.full(2, 4.0, np.float32)))
    assert nn.DistributedGradReducer(net.trainable_params())(grads) is grads
    halved = nn.DistributedGradReducer(net.trainable_params(), mean=True, degree=2)(grads)
    np.testing.assert_array_equal(halved[1].asnumpy(), [2.0, 2.0])
    with pytest.raises(ValueError, match="DistributedGradReducer.*degree"):
        nn.DistributedGradReducer(net.trainable_params(), degree=0)


# ---- gradient accumulation ------------------------------------------------------------------------

def test_grad_accumulator_equals_the_large_batch():
    net_big, with_loss_big = loss_cell(np.float64)
    big_step = nn.TrainOneStepCell(with_loss_big, nn.Momentum(net_big.trainable_params(), 0.1,
                                                              0.9))
    net_acc, with_loss_acc = loss_cell(np.float64)
    opt = nn.Momentum(net_acc.trainable_params(), 0.1, 0.9)
    grad_fn = ms.value_and_grad(with_loss_acc, None, opt.parameters)
    accumulator = nn.GradAccumulator(opt, 4)
    x, y = data(np.float64)
    buffers = [id(b) for b in accumulator._sums + accumulator._spare]
    for _ in range(2):                                      # two updates of 4 micro-batches
        big_step(x, y)
        applied = [accumulator(grad_fn(x[2 * i:2 * i + 2], y[2 * i:2 * i + 2])[1])
                   for i in range(4)]
        assert applied == [False, False, False, True]
    for name, value in snapshot(net_big).items():
        np.testing.assert_allclose(snapshot(net_acc)[name], value, rtol=1e-12, atol=1e-12)
    assert int(opt.global_step.asnumpy()[0]) == 2
    assert sorted(id(b) for b in accumulator._sums + accumulator._spare) == sorted(buffers)


def test_grad_accumulator_float32_and_sum_mode():
    net_big, with_loss_big = loss_cell()
    net_acc, with_loss_acc = loss_cell()
    big = nn.TrainOneStepCell(with_loss_big, nn.SGD(net_big.trainable_params(), 0.1))
    opt = nn.SGD(net_acc.trainable_params(), 0.05)
    grad_fn = ms.value_and_grad(with_loss_acc, None, opt.parameters)
    accumulator = nn.GradAccumulator(opt, 2, mean=False)    # sum, at half the learning rate
    x, y = data()
    big(x, y)
    for i in range(2):
        accumulator(grad_fn(x[4 * i:4 * i + 4], y[4 * i:4 * i + 4])[1])
    for name, value in snapshot(net_big).items():
        np.testing.assert_allclose(snapshot(net_acc)[name], value, rtol=1e-6, atol=1e-6)


def test_grad_accumulator_errors_change_nothing():
    net, with_loss = loss_cell()
    opt = nn.SGD(net.trainable_params(), learning_rate=[0.1])  # one step, then IndexError
    grad_fn = ms.value_and_grad(with_loss, None, opt.parameters)
    accumulator = nn.GradAccumulator(opt, 2)
    x, y = data()
    grads = grad_fn(x, y)[1]
    accumulator(grads)
    sums = [b.copy() for b in accumulator._sums]
    with pytest.raises(ValueError, match="GradAccumulator.*gradient 1.*shape"):
        accumulator((grads[0], grads[0]))
    with pytest.raises(ValueError, match="GradAccumulator.*2 gradients"):
        accumulator(grads[:1])
    assert accumulator.pending == 1
    for a, b in zip(accumulator._sums, sums):
        np.testing.assert_array_equal(a, b)
    assert accumulator(grads) is True
    accumulator(grads)
    params = snapshot(net)
    with pytest.raises(IndexError):
        accumulator(grads)                                  # the optimizer fails: no change
    assert accumulator.pending == 1
    assert_same(snapshot(net), params)
    accumulator.reset()
    assert accumulator.pending == 0 and not any(b.any() for b in accumulator._sums)
    with pytest.raises(ValueError, match="GradAccumulator.*accumulation_steps"):
        nn.GradAccumulator(opt, 0)


def test_grad_accumulation_cell_sums_micro_batches():
    net, with_loss = loss_cell(np.float64)
    x, y = data(np.float64)
    cell = nn.GradAccumulationCell(with_loss, 4)
    want = sum(with_loss(x[2 * i:2 * i + 2], y[2 * i:2 * i + 2]).asnumpy() for i in range(4))
    np.testing.assert_allclose(cell(x, y).asnumpy(), want, rtol=1e-12)
    _, grads = ms.value_and_grad(cell, None, net.trainable_params())(x, y)
    _, big = ms.value_and_grad(with_loss, None, net.trainable_params())(x, y)
    for g, b in zip(grads, big):                            # the sum of 4 micro-batch means
        np.testing.assert_allclose(g.asnumpy(), 4 * b.asnumpy(), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="GradAccumulationCell.*divisible.*micro_size 3"):
        nn.GradAccumulationCell(with_loss, 3)(x, y)
    with pytest.raises(ValueError, match="GradAccumulationCell.*micro_size"):
        nn.GradAccumulationCell(with_loss, 0)
