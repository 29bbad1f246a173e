"""Model: the networks it builds, train/eval/fit/predict equal to
MindSpore 2.10's numbers on the same run (fixture from data/make_mindspore_metrics.py), a loss
that falls, metrics by name, eval_indexes, mixed precision O1/O2/O3 and loss scaling, and bad
input (clear errors, nothing changed)."""
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore import train as T
from minispore.amp import DynamicLossScaleManager, FixedLossScaleManager

from .datasets import ArrayDataset, batches, blobs

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_metrics.npz"))


def sce():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def fixture_model():
    net = nn.Dense(4, 3)
    net.weight.set_data(Tensor(FIXTURE["model_w0"]))
    net.bias.set_data(Tensor(FIXTURE["model_b0"]))
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    return net, T.Model(net, sce(), opt, metrics={"acc", "loss"})


def fixture_data():
    return batches(FIXTURE["model_x"], FIXTURE["model_y"], 8)


class StepLosses(T.Callback):
    def __init__(self):
        self.losses = []

    def on_train_step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


def test_train_eval_predict_match_mindspore():
    net, model = fixture_model()
    rec = StepLosses()
    model.train(2, fixture_data(), callbacks=rec)
    np.testing.assert_allclose(rec.losses, FIXTURE["model_losses"], rtol=1e-5)
    np.testing.assert_allclose(net.weight.asnumpy(), FIXTURE["model_w_after"], atol=1e-6)
    result = model.eval(fixture_data())
    assert set(result) == {"acc", "loss"}
    assert result["acc"] == pytest.approx(float(FIXTURE["model_eval_acc"]))
    assert result["loss"] == pytest.approx(float(FIXTURE["model_eval_loss"]), rel=1e-5)
    out = model.predict(Tensor(FIXTURE["model_x"][:3]))
    np.testing.assert_allclose(out.asnumpy(), FIXTURE["model_predict"], atol=1e-5)


def test_fit_matches_mindspore():
    _, model = fixture_model()
    history = T.History()
    model.fit(2, fixture_data(), fixture_data(), callbacks=[history])
    np.testing.assert_allclose(history.history["acc"], FIXTURE["fit_acc"])
    np.testing.assert_allclose(history.history["loss"], FIXTURE["fit_loss"], rtol=1e-5)


class MLP(nn.Cell):
    def __init__(self, bn=False):
        super().__init__()
        self.fc1 = nn.Dense(4, 16)
        self.bn = nn.BatchNorm1d(16) if bn else nn.Identity()
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(16, 2)

    def construct(self, x):
        return self.fc2(self.relu(self.bn(self.fc1(x))))


def _epoch_losses(model, epochs, dataset, **kwargs):
    losses = []

    def record(rc):
        out = rc.original_args().net_outputs
        losses.append(float((out[0] if isinstance(out, tuple) else out).asnumpy()))

    model.train(epochs, dataset, callbacks=[T.LambdaCallback(on_train_epoch_end=record)],
                **kwargs)
    return losses


def test_loss_falls_and_accuracy_rises():
    ms.set_seed(3)
    x, y = blobs(128)
    net = MLP(bn=True)
    model = T.Model(net, sce(), nn.Adam(net.trainable_params(), 0.01), metrics={"accuracy"})
    before = model.eval(batches(x, y, 32))["accuracy"]
    losses = _epoch_losses(model, 10, batches(x, y, 16))
    assert losses[-1] < 0.5 * losses[0]
    after = model.eval(batches(x, y, 32))["accuracy"]
    assert after > max(before, 0.9)


def test_networks_built():
    net = nn.Dense(4, 2)
    opt = nn.SGD(net.trainable_params())
    model = T.Model(net, sce(), opt, metrics={"acc"})
    assert isinstance(model.train_network, nn.TrainOneStepCell)
    assert isinstance(model.train_network.network, nn.WithLossCell)
    assert model.train_network.network.backbone_network is net
    assert isinstance(model.eval_network, nn.WithEvalCell)
    assert model.predict_network is net
    # loss only: the network with its loss; neither: the network itself
    assert isinstance(T.Model(net, sce()).train_network, nn.WithLossCell)
    assert T.Model(net).train_network is net
    assert T.Model(net, sce(), opt).eval_network is None


def test_model_of_a_train_one_step_cell():
    ms.set_seed(0)
    x, y = blobs(64)
    net = nn.Dense(4, 2)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, sce()), nn.SGD(net.trainable_params(), 0.5))
    model = T.Model(step)
    losses = _epoch_losses(model, 5, batches(x, y, 16))
    assert losses[-1] < losses[0]


def test_metrics_by_name_and_by_dict():
    x, y = blobs(40)
    ms.set_seed(0)
    net = nn.Dense(4, 2)
    names = {"acc", "accuracy", "loss", "top_1_accuracy", "precision", "recall", "F1", "mae"}
    model = T.Model(net, sce(), nn.SGD(net.trainable_params()), metrics=names - {"mae"})
    result = model.eval(batches(x, y, 16))
    assert set(result) == names - {"mae"}
    logits = net(Tensor(x)).asnumpy()
    pred = logits.argmax(1)
    acc = float(np.mean(pred == y))
    assert result["acc"] == result["accuracy"] == result["top_1_accuracy"] == pytest.approx(acc)
    np.testing.assert_allclose(result["recall"], [np.mean(pred[y == c] == c) for c in (0, 1)])
    # 'loss' is the mean over batches of each batch's mean loss (batches of 16, 16, 8)
    per_batch = [float(sce()(Tensor(logits[i:i + 16]), Tensor(y[i:i + 16])).asnumpy())
                 for i in (0, 16, 32)]
    assert result["loss"] == pytest.approx(np.mean(per_batch), rel=1e-6)
    custom = T.Model(net, sce(), metrics={"top": T.TopKCategoricalAccuracy(2)})
    assert custom.eval(batches(x, y, 16)) == {"top": 1.0}


def test_eval_network_with_eval_indexes():
    x, y = blobs(30)
    ms.set_seed(0)
    net = nn.Dense(4, 2)

    class Eval(nn.Cell):
        """Outputs in another order: (label, logits, loss)."""

        def __init__(self):
            super().__init__()
            self.net = net

        def construct(self, data, label):
            logits = self.net(data)
            return label, logits, sce()(logits, label)

    model = T.Model(net, eval_network=Eval(), eval_indexes=[2, 1, 0],
                    metrics={"acc": T.Accuracy(), "loss": T.Loss()})
    result = model.eval(batches(x, y, 10))
    reference = T.Model(net, sce(), metrics={"acc", "loss"}).eval(batches(x, y, 10))
    assert result["acc"] == reference["acc"]
    assert result["loss"] == pytest.approx(reference["loss"])

    # without eval_indexes every output goes to every metric's update
    class Pair(nn.Cell):
        def construct(self, data, label):
            return net(data), label

    model = T.Model(net, eval_network=Pair(), metrics={"acc"})
    assert model.eval(batches(x, y, 10))["acc"] == reference["acc"]
    model = T.Model(net, eval_network=Pair(), eval_indexes=[0, 0, 1], metrics={"acc"})
    with pytest.raises(ValueError, match="Model.eval.*at least 3 outputs"):
        model.eval(batches(x, y, 10))


def test_modes_train_eval_predict():
    class Spy(nn.Dense):
        """Records the training flag each forward pass sees."""

        def __init__(self):
            super().__init__(4, 2)
            self.seen = []

        def construct(self, x):
            self.seen.append(self.training)
            return super().construct(x)

    net = Spy()
    model = T.Model(net, sce(), nn.SGD(net.trainable_params()), metrics={"acc"})
    x, y = blobs(16)
    model.train(1, batches(x, y, 8))
    assert net.seen == [True, True] and net.training
    net.seen.clear()
    model.eval(batches(x, y, 8))
    assert net.seen == [False, False] and not net.training
    net.seen.clear()
    model.fit(2, batches(x, y, 8), batches(x, y, 8))
    # train, eval, train again after the first epoch's evaluation, eval
    assert net.seen == [True, True, False, False, True, True, False, False]
    net.set_train(True)
    net.seen.clear()
    model.predict(Tensor(x))
    assert net.seen == [False] and not net.training  # predict leaves it in eval mode


def test_dropout_is_off_in_eval_and_predict():
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(4, 8), nn.Dropout(p=0.5), nn.Dense(8, 2)])
    model = T.Model(net, sce(), nn.SGD(net.trainable_params(), 0.0), metrics={"loss"})
    x, y = blobs(16)
    model.train(1, batches(x, y, 8))
    a = model.predict(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(a, model.predict(Tensor(x)).asnumpy())
    losses = {model.eval(batches(x, y, 8))["loss"] for _ in range(3)}
    assert len(losses) == 1


def test_initial_epoch_and_sink_mode_arguments():
    x, y = blobs(16)
    net = nn.Dense(4, 2)
    model = T.Model(net, sce(), nn.SGD(net.trainable_params()))
    epochs = []
    cb = T.LambdaCallback(on_train_epoch_begin=lambda rc: epochs.append(
        (rc.original_args().cur_epoch_num, rc.original_args().epoch_num)))
    model.train(4, batches(x, y, 8), callbacks=cb, initial_epoch=2, dataset_sink_mode=True,
                sink_size=1)
    assert epochs == [(3, 2), (4, 2)]


def test_dataset_duck_typing_and_numpy_rows():
    x, y = blobs(20)
    dataset = ArrayDataset(x, y, batch_size=8, as_numpy=True)
    net = nn.Dense(4, 2)
    model = T.Model(net, sce(), nn.SGD(net.trainable_params()), metrics={"acc"})
    model.train(3, dataset)
    assert dataset.iterators == [3]  # one iterator, one pass per epoch
    assert 0.0 <= model.eval(dataset)["acc"] <= 1.0
    assert dataset.iterators == [3, 1] and dataset.stopped == 2  # released after each run


def test_fit_valid_frequency_list():
    x, y = blobs(16)
    net = nn.Dense(4, 2)
    model = T.Model(net, sce(), nn.SGD(net.trainable_params()), metrics={"acc"})
    history = T.History()
    evals = []
    cb = T.LambdaCallback(on_eval_end=lambda rc: evals.append(rc.original_args().cur_epoch_num))
    model.fit(4, batches(x, y, 8), batches(x, y, 8), valid_frequency=[1, 4],
              callbacks=[history, cb])
    assert len(history.history["acc"]) == 2
    assert evals == []  # LambdaCallback is a built-in: fit's evaluation does not call it

    class User(T.Callback):
        def on_eval_end(self, run_context):
            evals.append(run_context.original_args().cur_epoch_num)

    model.fit(4, batches(x, y, 8), batches(x, y, 8), valid_frequency=[1, 4], callbacks=[User()])
    assert evals == [1, 4]


# ---- mixed precision -----------------------------------------------------------------------
def _amp_model(level, **kwargs):
    ms.set_seed(1)
    net = MLP(bn=True)
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    return net, T.Model(net, sce(), opt, metrics={"acc"}, amp_level=level, **kwargs)


def test_amp_o2_casts_network_keeps_batchnorm_fp32_and_scales_loss():
    net, model = _amp_model("O2")
    assert isinstance(model.train_network, nn.TrainOneStepWithLossScaleCell)
    x, y = blobs(64)
    assert model.predict(Tensor(x[:4])).dtype == ms.float16
    # BatchNorm computes in float32 inside the float16 network; parameters stay float32
    assert all(p.dtype == ms.float32 for p in net.get_parameters())
    names_before = [p.name for p in net.get_parameters()]
    losses = _epoch_losses(model, 8, batches(x, y, 16))
    assert losses[-1] < 0.5 * losses[0]
    assert [p.name for p in net.get_parameters()] == names_before
    assert model.eval(batches(x, y, 16))["acc"] > 0.9
    # the dynamic loss scale came down from 2**24 after float16 overflows
    assert float(model.train_network.scale_sense.asnumpy()) < 2 ** 24


def test_amp_o2_batchnorm_runs_in_float32():
    net, model = _amp_model("O2")
    inner = []
    original = net.bn._backbone.construct

    def spy(x):
        inner.append(x.dtype)
        out = original(x)
        inner.append(out.dtype)
        return out

    net.bn._backbone.construct = spy
    out = net(Tensor(np.ones((4, 4), np.float32)))
    assert inner == [ms.float32, ms.float32] and out.dtype == ms.float16
    _, fp16_bn = _amp_model("O2", keep_batchnorm_fp32=False)
    assert isinstance(fp16_bn.predict_network.bn, nn.BatchNorm1d)


@pytest.mark.parametrize("level", ["O1", "O3"])
def test_amp_o1_o3_train(level):
    net, model = _amp_model(level)
    assert type(model.train_network) is nn.TrainOneStepCell
    x, y = blobs(64)
    out = model.predict(Tensor(x[:4]))
    assert out.dtype == (ms.float32 if level == "O1" else ms.float16)
    losses = _epoch_losses(model, 6, batches(x, y, 16))
    assert losses[-1] < 0.6 * losses[0]
    assert all(p.dtype == ms.float32 for p in net.get_parameters())


def test_loss_scale_manager_fixed_without_drop_scales_the_gradients():
    x, y = blobs(32)

    def run(**kwargs):
        ms.set_seed(0)
        net = nn.Dense(4, 2)
        scale = kwargs["loss_scale_manager"].get_loss_scale() if kwargs else 1.0
        opt = nn.SGD(net.trainable_params(), 0.1, loss_scale=scale)
        model = T.Model(net, sce(), opt, **kwargs)
        model.train(2, batches(x, y, 8))
        return net.weight.asnumpy()

    plain = run()
    scaled = run(loss_scale_manager=FixedLossScaleManager(128.0, drop_overflow_update=False))
    np.testing.assert_allclose(scaled, plain, rtol=1e-5, atol=1e-6)


def test_dynamic_loss_scale_manager_is_updated_each_step():
    x, y = blobs(32)
    net = nn.Dense(4, 2)
    manager = DynamicLossScaleManager(init_loss_scale=2 ** 10, scale_factor=2, scale_window=3)
    model = T.Model(net, sce(), nn.SGD(net.trainable_params(), 0.1),
                    loss_scale_manager=manager)
    assert isinstance(model.train_network, nn.TrainOneStepWithLossScaleCell)
    outputs = []
    model.train(2, batches(x, y, 8), callbacks=[T.LambdaCallback(
        on_train_step_end=lambda rc: outputs.append(rc.original_args().net_outputs))])
    assert all(len(o) == 3 and not bool(o[1].asnumpy()) for o in outputs)
    # 8 finite steps with a window of 3: the manager doubled twice (steps 3 and 6)
    assert manager.get_loss_scale() == 2 ** 12
    assert float(model.train_network.scale_sense.asnumpy()) == 2 ** 12


def test_build_train_network():
    net = nn.Dense(4, 2)
    opt = nn.SGD(net.trainable_params())
    cell = T.build_train_network(net, opt, sce())
    assert isinstance(cell, nn.TrainOneStepCell) and cell.training
    with pytest.raises(TypeError, match="build_train_network.*optimizer"):
        T.build_train_network(net, "sgd", sce())
    with pytest.raises(ValueError, match="build_train_network.*level"):
        T.build_train_network(net, opt, sce(), level="O4")
    with pytest.raises(ValueError, match="build_train_network.*'scale'"):
        T.build_train_network(net, opt, sce(), scale=2)
    with pytest.raises(TypeError, match="build_train_network.*cast_model_type"):
        T.build_train_network(net, opt, sce(), cast_model_type=ms.int32)


# ---- bad input ----------------------------------------------------------------------------
def test_constructor_errors():
    net = nn.Dense(4, 2)
    opt = nn.SGD(net.trainable_params())
    with pytest.raises(TypeError, match="Model.*network.*str"):
        T.Model("net")
    with pytest.raises(TypeError, match="Model.*optimizer"):
        T.Model(net, sce(), optimizer=ms.experimental.optim.SGD(net.trainable_params(), lr=0.1))
    with pytest.raises(TypeError, match="Model.*loss_fn"):
        T.Model(net, loss_fn=3)
    with pytest.raises(ValueError, match="Model.*metrics.*eval_network"):
        T.Model(net, None, opt, metrics={"acc"})
    with pytest.raises(TypeError, match="get_metrics"):
        T.Model(net, sce(), opt, metrics=["acc"])
    with pytest.raises(KeyError, match="nope"):
        T.Model(net, sce(), opt, metrics={"nope"})
    with pytest.raises(ValueError, match="Model.*keyword.*'foo'"):
        T.Model(net, sce(), opt, foo=1)
    with pytest.raises(ValueError, match="Model.*amp_level.*optimizer"):
        T.Model(net, sce(), amp_level="O2")
    with pytest.raises(ValueError, match="Model.*amp_level.*'O5'"):
        T.Model(net, sce(), opt, amp_level="O5")
    with pytest.raises(ValueError, match="Model.*eval_indexes"):
        T.Model(net, eval_network=net, eval_indexes=[0, 1], metrics={"acc"})
    with pytest.raises(ValueError, match="Model.*optimizer.*loss_scale_manager"):
        T.Model(net, sce(), loss_scale_manager=FixedLossScaleManager())
    with pytest.raises(TypeError, match="Model.*loss_scale_manager"):
        T.Model(net, sce(), opt, loss_scale_manager=128)
    with pytest.raises(ValueError, match="Model.*boost_level"):
        T.Model(net, sce(), opt, boost_level="O9")
    with pytest.warns(RuntimeWarning, match="boost_level"):
        T.Model(net, sce(), opt, boost_level="O1")


def test_failed_constructor_does_not_cast_the_network():
    net = MLP(bn=True)
    opt = nn.SGD(net.trainable_params())
    with pytest.raises(ValueError):
        T.Model(net, sce(), opt, amp_level="O2", metrics={"acc"}, eval_indexes=[1])
    assert net(Tensor(np.ones((2, 4), np.float32))).dtype == ms.float32
    assert isinstance(net.bn, nn.BatchNorm1d)


def _weights(net):
    return [p.asnumpy().copy() for p in net.get_parameters()]


def test_train_argument_errors_change_nothing():
    x, y = blobs(16)
    net = nn.Dense(4, 2)
    model = T.Model(net, sce(), nn.SGD(net.trainable_params()), metrics={"acc"})
    before = _weights(net)
    data = batches(x, y, 8)
    for call, error, match in [
            (lambda: model.train(0, data), ValueError, "Model.train.*epoch"),
            (lambda: model.train(1.5, data), TypeError, "Model.train.*epoch"),
            (lambda: model.train(2, data, initial_epoch=2), ValueError, "initial_epoch"),
            (lambda: model.train(1, data, sink_size=0), ValueError, "sink_size"),
            (lambda: model.train(1, data, dataset_sink_mode=1), TypeError, "dataset_sink_mode"),
            (lambda: model.train(1, [x, y]), TypeError, "Model.train.*train_dataset.*list"),
            (lambda: model.train(1, ArrayDataset(x[:0], y[:0])), ValueError, "empty"),
            (lambda: model.train(1, data, callbacks=[T.LossMonitor(), None]), TypeError,
             "callbacks"),
            (lambda: model.fit(1, data, data, valid_frequency=0), ValueError, "valid_frequency"),
            (lambda: model.fit(1, data, data, valid_frequency="1"), TypeError,
             "valid_frequency"),
            (lambda: model.eval(data, dataset_sink_mode="no"), TypeError, "dataset_sink_mode"),
            (lambda: model.eval(None), TypeError, "Model.eval.*valid_dataset")]:
        with pytest.raises(error, match=match):
            call()
    for a, b in zip(before, _weights(net)):
        np.testing.assert_array_equal(a, b)
    no_metrics = T.Model(net, sce(), nn.SGD(net.trainable_params()))
    with pytest.raises(ValueError, match="Model.eval.*metrics"):
        no_metrics.eval(data)
    with pytest.raises(ValueError, match="Model.fit.*metrics"):
        no_metrics.fit(1, data, data)


def test_rows_without_labels_are_an_error_before_the_step():
    x, _ = blobs(16)
    net = nn.Dense(4, 2)
    model = T.Model(net, sce(), nn.SGD(net.trainable_params()))
    before = _weights(net)
    with pytest.raises(ValueError, match="Model.train.*two columns.*got 1"):
        model.train(1, ArrayDataset(x, batch_size=8))
    for a, b in zip(before, _weights(net)):
        np.testing.assert_array_equal(a, b)


def test_predict_errors():
    net = nn.Dense(4, 2)
    model = T.Model(net)
    with pytest.raises(ValueError, match="Model.predict.*empty"):
        model.predict(Tensor(np.zeros((0, 4), np.float32)))
    with pytest.raises(TypeError, match="Model.predict.*list"):
        model.predict([1.0, 2.0])
    with pytest.raises(ValueError, match="Model.predict.*backend"):
        model.predict(Tensor(np.ones((1, 4), np.float32)), backend="gpu")
    with pytest.warns(RuntimeWarning, match="Lite"):
        out = model.predict(Tensor(np.ones((1, 4), np.float32)), backend="lite")
    assert out.shape == (1, 2)

    class Nothing(nn.Cell):
        def construct(self, x):
            return None

    with pytest.raises(RuntimeError, match="Model.predict.*None"):
        T.Model(Nothing()).predict(Tensor(np.ones(2, np.float32)))


def test_predict_with_several_inputs():
    class Add(nn.Cell):
        def construct(self, a, b, scale):
            return ops.mul(a + b, scale)

    out = T.Model(Add()).predict(Tensor(np.ones(3, np.float32)), Tensor(np.ones(3, np.float32)),
                                 2.0)
    np.testing.assert_array_equal(out.asnumpy(), [4.0, 4.0, 4.0])


def test_parameters_keep_identity_through_training():
    w = Parameter(Tensor(np.ones((2, 4), np.float32)), name="w")

    class Lin(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = w

        def construct(self, x):
            return ops.matmul(x, self.w.T)

    x, y = blobs(16)
    net = Lin()
    T.Model(net, sce(), nn.SGD(net.trainable_params(), 0.5)).train(1, batches(x, y, 8))
    assert net.w is w and not np.array_equal(w.asnumpy(), np.ones((2, 4)))


def test_each_epoch_reshuffles_and_a_seed_replays_the_run():
    x, y = blobs(32)
    x[:, 0] = np.arange(32)  # a row id

    def orders():
        ms.set_seed(5)
        net = nn.Dense(4, 2)
        model = T.Model(net, sce(), nn.SGD(net.trainable_params(), 0.0))
        seen = []
        model.train(2, batches(x, y, 32, shuffle=True), callbacks=[T.LambdaCallback(
            on_train_step_end=lambda rc: seen.append(
                rc.original_args().train_dataset_element[0].asnumpy()[:, 0].tolist()))])
        return seen

    first, second = orders()
    assert sorted(first) == sorted(second) == list(range(32))
    assert first != second  # a new order each epoch (one iterator for the whole run)
    assert orders() == [first, second]
