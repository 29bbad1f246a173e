"""Callbacks: hook order in train / eval / fit (checked against MindSpore
2.10's), the callback parameters, request_stop, LossMonitor and TimeMonitor output, History,
LambdaCallback, LearningRateScheduler, EarlyStopping, ReduceLROnPlateau, ModelCheckpoint files,
and the progress bar."""
import io
import os
import re
import sys

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore import train as T
from minispore.train import _progress

from .datasets import ArrayDataset, batches, blobs

X, Y = blobs(20)


def make_model(lr=0.1, metrics=None, optimizer="sgd"):
    ms.set_seed(0)
    net = nn.Dense(4, 2)
    opt = nn.SGD(net.trainable_params(), lr) if optimizer == "sgd" else \
        nn.Momentum(net.trainable_params(), lr, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, T.Model(net, loss, opt, metrics=metrics)


def data(batch_size=8):
    return batches(X, Y, batch_size)  # 3 steps per epoch


class Recorder(T.Callback):
    """Records (hook, cur_epoch_num, cur_step_num, batch_num, mode) at every on_* hook."""

    def __init__(self):
        self.log = []
        self.params = {}


def _record(hook):
    def method(self, run_context):
        p = run_context.original_args()
        self.log.append((hook, p.get("cur_epoch_num"), p.get("cur_step_num"), p.get("batch_num"),
                         p.get("mode")))
        self.params[hook] = dict(p)
    return method


HOOKS = ["on_train_begin", "on_train_epoch_begin", "on_train_step_begin", "on_train_step_end",
         "on_train_epoch_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin",
         "on_eval_step_begin", "on_eval_step_end", "on_eval_epoch_end", "on_eval_end"]
for _hook in HOOKS:
    setattr(Recorder, _hook, _record(_hook))


def _epoch_log(epoch, first_step):
    log = [("on_train_epoch_begin", epoch, first_step - 1, 3, "train")]
    for s in range(first_step, first_step + 3):
        log += [("on_train_step_begin", epoch, s, 3, "train"),
                ("on_train_step_end", epoch, s, 3, "train")]
    return log


def _eval_log(epoch):
    log = [("on_eval_begin", epoch, 0, 3, "eval"), ("on_eval_epoch_begin", epoch, 0, 3, "eval")]
    for s in range(1, 4):
        log += [("on_eval_step_begin", epoch, s, 3, "eval"),
                ("on_eval_step_end", epoch, s, 3, "eval")]
    return log + [("on_eval_epoch_end", epoch, 3, 3, "eval"), ("on_eval_end", epoch, 3, 3, "eval")]


def test_train_hook_order_and_global_step():
    _, model = make_model()
    rec = Recorder()
    model.train(2, data(), callbacks=rec)
    expected = [("on_train_begin", None, 0, 3, "train")] + _epoch_log(1, 1) + \
        [("on_train_epoch_end", 1, 3, 3, "train")] + _epoch_log(2, 4) + \
        [("on_train_epoch_end", 2, 6, 3, "train"), ("on_train_end", 2, 6, 3, "train")]
    assert rec.log == expected


def test_fit_hook_order_matches_mindspore():
    # MindSpore 2.10: each epoch's evaluation runs between the last step and on_train_epoch_end,
    # with cur_step_num counting eval steps from 0, then the training values come back
    _, model = make_model(metrics={"acc"})
    rec = Recorder()
    model.fit(2, data(), data(), callbacks=[rec])
    expected = [("on_train_begin", None, 0, 3, "train")]
    for epoch in (1, 2):
        expected += _epoch_log(epoch, 3 * epoch - 2) + _eval_log(epoch) + \
            [("on_train_epoch_end", epoch, 3 * epoch, 3, "train")]
    expected += [("on_train_end", 2, 6, 3, "train")]
    assert rec.log == expected
    end = rec.params["on_train_epoch_end"]
    assert set(end["eval_results"]) == {"acc", "eval_loss"}
    assert end["metrics"] == {"acc": end["eval_results"]["acc"]}


def test_eval_hooks_and_params():
    _, model = make_model(metrics={"acc"})
    rec = Recorder()
    model.eval(data(), callbacks=[rec])
    assert [h for h, *_ in rec.log] == [h for h, *_ in _eval_log(None)]
    p = rec.params["on_eval_end"]
    assert p["metrics"] == {"acc": p["metrics"]["acc"]}
    assert p["eval_network"] is model.eval_network
    assert isinstance(p["net_outputs"], tuple) and len(p["net_outputs"]) == 3
    assert len(p["eval_dataset_element"]) == 2


def test_train_callback_params():
    net, model = make_model()
    rec = Recorder()
    ds = data()
    model.train(1, ds, callbacks=[rec])
    p = rec.params["on_train_step_end"]
    assert p["train_network"] is model.train_network
    assert p["optimizer"] is model.train_network.optimizer
    assert isinstance(p["loss_fn"], nn.SoftmaxCrossEntropyWithLogits)
    assert p["network"] is net and p["train_dataset"] is ds
    assert p["epoch_num"] == 1 and p["batch_num"] == 3 and p["mode"] == "train"
    assert p["dataset_sink_mode"] is False and p["parallel_mode"] == "stand_alone"
    assert p["device_number"] == 1 and p["list_callback"] == [rec]
    assert isinstance(p["net_outputs"], Tensor) and p["net_outputs"].shape == ()
    assert len(p["train_dataset_element"]) == 2
    assert "loss_scale_mananger" in p  # MindSpore's spelling, kept for scripts that read it


def test_legacy_hook_names_run_in_train_and_eval():
    class Legacy(T.Callback):
        def __init__(self):
            self.calls = []

        def begin(self, run_context):
            self.calls.append("begin")

        def epoch_end(self, run_context):
            self.calls.append("epoch_end")

        def step_end(self, run_context):
            self.calls.append("step_end")

        def end(self, run_context):
            self.calls.append("end")

    _, model = make_model(metrics={"acc"})
    cb = Legacy()
    model.train(1, data(), callbacks=cb)
    assert cb.calls == ["begin", "step_end", "step_end", "step_end", "epoch_end", "end"]
    cb.calls.clear()
    model.eval(data(), callbacks=cb)
    assert cb.calls == ["begin", "step_end", "step_end", "step_end", "epoch_end", "end"]


def test_request_stop_ends_training_after_the_step():
    class StopAt(T.Callback):
        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == 2:
                run_context.request_stop()

    _, model = make_model()
    rec = Recorder()
    model.train(3, data(), callbacks=[StopAt(), rec])
    hooks = [h for h, *_ in rec.log]
    assert hooks.count("on_train_step_end") == 2
    assert hooks[-2:] == ["on_train_epoch_end", "on_train_end"]


def test_callbacks_are_entered_and_exited_also_on_error():
    events = []

    class Ctx(T.Callback):
        def __enter__(self):
            events.append("enter")
            return self

        def __exit__(self, *err):
            events.append(("exit", err[0]))

        def on_train_step_end(self, run_context):
            raise KeyError("boom")

    _, model = make_model()
    with pytest.raises(KeyError, match="boom"):
        model.train(1, data(), callbacks=[Ctx()])
    assert events == ["enter", ("exit", KeyError)]


def test_run_context():
    params = {"cur_step_num": 3}
    rc = T.RunContext(params)
    assert rc.original_args() is params and not rc.get_stop_requested()
    rc.request_stop()
    assert rc.get_stop_requested()
    with pytest.raises(TypeError, match="RunContext.*original_args"):
        T.RunContext([1])


def test_callback_list_type_errors():
    _, model = make_model()
    with pytest.raises(TypeError, match="callbacks"):
        model.train(1, data(), callbacks=[1])
    with pytest.raises(TypeError, match="callbacks"):
        model.train(1, data(), callbacks="cb")


# ---- LossMonitor / TimeMonitor -----------------------------------------------------------
LOSS_LINE = re.compile(r"^epoch: (\d+) step: (\d+), loss is (\d+\.\d+(e-?\d+)?)$")


def test_loss_monitor_format(capsys):
    _, model = make_model()
    rec = []
    model.train(2, data(), callbacks=[
        T.LossMonitor(), T.LambdaCallback(on_train_step_end=lambda rc: rec.append(
            float(rc.original_args().net_outputs.asnumpy())))])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 6
    steps = [(int(m.group(1)), int(m.group(2)), float(m.group(3)))
             for m in map(LOSS_LINE.match, lines)]
    assert [(e, s) for e, s, _ in steps] == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3)]
    # the loss prints as Python prints the float (MindSpore: "%s" % float(mean(loss)))
    assert lines[0] == f"epoch: 1 step: 1, loss is {rec[0]}"


def test_loss_monitor_prints_a_loss_scale_output_as_a_tensor(capsys):
    net = nn.Dense(4, 2)
    model = T.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                    nn.SGD(net.trainable_params()),
                    loss_scale_manager=ms.DynamicLossScaleManager(2 ** 10))
    losses = []
    model.train(1, data(), callbacks=[T.LossMonitor(), T.LambdaCallback(
        on_train_step_end=lambda rc: losses.append(rc.original_args().net_outputs[0]))])
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"epoch: 1 step: {k + 1}, loss is {loss}" for k, loss in enumerate(losses)]
    assert re.fullmatch(r"epoch: 1 step: 1, loss is \d\.\d{1,8}", lines[0])  # float32 digits


def test_loss_monitor_per_print_times_counts_global_steps(capsys):
    _, model = make_model()
    model.train(3, data(), callbacks=[T.LossMonitor(2)])
    found = [LOSS_LINE.match(line).group(1, 2) for line in capsys.readouterr().out.splitlines()]
    assert found == [("1", "2"), ("2", "1"), ("2", "3"), ("3", "2")]  # global steps 2, 4, 6, 8
    model.train(1, data(), callbacks=[T.LossMonitor(0)])
    assert capsys.readouterr().out == ""


def test_loss_monitor_prints_eval_results_in_fit(capsys):
    _, model = make_model(metrics={"acc"})
    model.fit(1, data(), data(), callbacks=[T.LossMonitor(3)])
    lines = capsys.readouterr().out.splitlines()
    assert LOSS_LINE.match(lines[0])
    assert re.fullmatch(r"Eval result: epoch 1, metrics: \{'acc': \d\.\d+\}", lines[1])
    assert len(lines) == 2  # LossMonitor does not run in fit's evaluation


def test_loss_monitor_stops_on_nan():
    net, model = make_model()
    x = X.copy()
    x[9] = np.nan  # second batch
    with pytest.raises(ValueError, match=r"epoch: 1 step: 2, loss is NAN or INF"):
        model.train(1, batches(x, Y, 8), callbacks=[T.LossMonitor()])


def test_loss_monitor_arguments():
    with pytest.raises(ValueError, match="LossMonitor.*per_print_times"):
        T.LossMonitor(-1)
    with pytest.raises(TypeError, match="LossMonitor.*per_print_times"):
        T.LossMonitor(1.0)


def test_time_monitor_format(capsys):
    _, model = make_model(metrics={"acc"})
    model.fit(1, data(), data(), callbacks=[T.TimeMonitor(data_time=True)])
    lines = capsys.readouterr().out.splitlines()
    number = r"\s*\d+\.\d{3}"
    assert re.fullmatch(rf"Eval epoch time:{number} ms, per step time:{number} ms"
                        rf" \(data time:{number} ms\)", lines[0])
    assert re.fullmatch(rf"Train epoch time:{number} ms, per step time:{number} ms"
                        rf" \(data time:{number} ms\)", lines[1])
    with pytest.raises(ValueError, match="TimeMonitor.*data_size"):
        T.TimeMonitor(0)
    with pytest.raises(TypeError, match="TimeMonitor.*data_time"):
        T.TimeMonitor(data_time=1)


# ---- History / LambdaCallback / LearningRateScheduler ------------------------------------
def test_history_records_outputs_and_metrics():
    _, model = make_model(metrics={"acc", "loss"})
    history = T.History()
    model.fit(3, data(), data(), valid_frequency=2, callbacks=[history])
    assert history.epoch == {"epoch": [1, 2, 3]}
    assert len(history.history["net_output"]) == 3
    assert all(type(v) is float for v in history.history["net_output"])
    # evaluated at epoch 2 only
    assert len(history.history["acc"]) == 1 and len(history.history["loss"]) == 1
    history2 = T.History()
    model.train(1, data(), callbacks=[history2])
    assert set(history2.history) == {"net_output"}


def test_lambda_callback():
    seen = []
    cb = T.LambdaCallback(on_train_epoch_end=lambda rc: seen.append(
        rc.original_args().cur_epoch_num), on_eval_end=lambda rc: seen.append("eval"))
    _, model = make_model(metrics={"acc"})
    model.train(2, data(), callbacks=cb)
    model.eval(data(), callbacks=cb)
    assert seen == [1, 2, "eval"]
    with pytest.raises(TypeError, match="LambdaCallback.*on_train_end"):
        T.LambdaCallback(on_train_end=3)


def test_learning_rate_scheduler_sets_the_rate():
    _, model = make_model(lr=0.1)
    seen = []

    def halve_every_two(lr, step):
        seen.append((round(lr, 6), step))
        return lr / 2 if step % 2 == 0 else lr

    model.train(1, data(), callbacks=[T.LearningRateScheduler(halve_every_two)])
    assert seen == [(0.1, 1), (0.1, 2), (0.05, 3)]
    lr = model.train_network.optimizer.learning_rate
    assert lr.asnumpy().dtype == np.float32 and float(lr.asnumpy()) == pytest.approx(0.05)
    with pytest.raises(TypeError, match="LearningRateScheduler"):
        T.LearningRateScheduler(0.1)


def test_learning_rate_scheduler_needs_a_fixed_rate():
    net = nn.Dense(4, 2)
    opt = nn.SGD(net.trainable_params(), [0.1, 0.05, 0.01, 0.01])
    model = T.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt)
    with pytest.raises(ValueError, match="LearningRateScheduler.*fixed"):
        model.train(1, data(), callbacks=[T.LearningRateScheduler(lambda lr, s: lr)])


# ---- EarlyStopping / ReduceLROnPlateau ----------------------------------------------------
class Feed(T.Callback):
    """Puts a scripted monitored value into eval_results at each epoch end (as fit does)."""

    def __init__(self, values, key="acc"):
        self.values = list(values)
        self.key = key

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        p.eval_results = {self.key: self.values[p.cur_epoch_num - 1]}


def _epochs_run(model, callbacks, epochs=10):
    rec = Recorder()
    model.train(epochs, data(), callbacks=callbacks + [rec])
    return sum(1 for h, *_ in rec.log if h == "on_train_epoch_end")


def test_early_stopping_patience(capsys):
    _, model = make_model()
    # best at epoch 2 (0.6); epochs 3, 4, 5 do not improve by more than min_delta
    values = [0.5, 0.6, 0.6, 0.55, 0.605, 0.9, 0.9, 0.9, 0.9, 0.9]
    es = T.EarlyStopping(monitor="acc", patience=3, min_delta=0.01, verbose=True)
    assert _epochs_run(model, [Feed(values), es]) == 5
    assert es.stopped_epoch == 5 and es.best == 0.6
    assert capsys.readouterr().out.strip() == "Epoch 00005: early stopping"


def test_early_stopping_patience_zero_stops_at_first_non_improvement():
    # MindSpore 2.10 stops after epoch 1 here even though the value improved (see docstring)
    _, model = make_model()
    es = T.EarlyStopping(monitor="acc", patience=0)
    assert _epochs_run(model, [Feed([0.1, 0.2, 0.3, 0.3, 0.5] + [1.0] * 5), es]) == 4


def test_early_stopping_min_mode_and_baseline():
    _, model = make_model()
    es = T.EarlyStopping(monitor="eval_loss", patience=1, baseline=0.5)
    # improves on the best each epoch but never beats the baseline: the wait never resets
    assert _epochs_run(model, [Feed([0.9, 0.8, 0.7, 0.6], key="eval_loss"), es]) == 1
    es = T.EarlyStopping(monitor="eval_loss", patience=1, baseline=0.5)
    assert _epochs_run(model, [Feed([0.4, 0.3, 0.2, 0.25], key="eval_loss"), es], 4) == 4
    # 0 is a value (MindSpore 2.10 treats it as missing)
    es = T.EarlyStopping(monitor="acc", patience=1, mode="min")
    assert _epochs_run(model, [Feed([0.0, 0.0, 0.0]), es], 3) == 2


def test_early_stopping_restores_best_weights():
    net, model = make_model()
    snapshots = []
    snap = T.LambdaCallback(on_train_epoch_end=lambda rc: snapshots.append(
        net.weight.asnumpy().copy()))
    es = T.EarlyStopping(monitor="acc", patience=2, restore_best_weights=True)
    assert _epochs_run(model, [snap, Feed([0.1, 0.9, 0.5, 0.5, 0.5]), es]) == 4
    np.testing.assert_array_equal(net.weight.asnumpy(), snapshots[1])
    assert not np.array_equal(snapshots[1], snapshots[3])


def test_early_stopping_on_loss_and_missing_monitor():
    _, model = make_model()
    es = T.EarlyStopping(monitor="loss", patience=1, mode="max")  # loss falls: never improves
    assert _epochs_run(model, [es]) == 2
    es = T.EarlyStopping(monitor="acc", patience=0)
    with pytest.warns(RuntimeWarning, match="EarlyStopping.*'acc'.*not available"):
        assert _epochs_run(model, [es], 3) == 3


def test_early_stopping_with_fit():
    _, model = make_model(metrics={"acc"})
    es = T.EarlyStopping(monitor="eval_loss", patience=0, mode="max")  # eval loss falls
    model.fit(5, data(), data(), callbacks=[es])
    assert es.stopped_epoch == 2


def test_plateau_argument_errors():
    with pytest.raises(ValueError, match="EarlyStopping.*mode"):
        T.EarlyStopping(mode="up")
    with pytest.raises(ValueError, match="EarlyStopping.*patience"):
        T.EarlyStopping(patience=-1)
    with pytest.raises(TypeError, match="EarlyStopping.*monitor"):
        T.EarlyStopping(monitor=1)
    with pytest.raises(TypeError, match="EarlyStopping.*baseline"):
        T.EarlyStopping(baseline="0.5")
    with pytest.raises(ValueError, match="ReduceLROnPlateau.*factor"):
        T.ReduceLROnPlateau(factor=1.0)
    with pytest.raises(TypeError, match="ReduceLROnPlateau.*min_lr"):
        T.ReduceLROnPlateau(min_lr=None)


def test_reduce_lr_on_plateau_changes_learning_rate(capsys):
    _, model = make_model(lr=0.1, optimizer="momentum")
    lr = model.train_network.optimizer.learning_rate
    rates = []
    log = T.LambdaCallback(on_train_epoch_end=lambda rc: rates.append(float(lr.asnumpy())))
    cb = T.ReduceLROnPlateau(monitor="acc", factor=0.5, patience=1, cooldown=2, min_lr=0.02,
                             verbose=True)
    # improvement at 1, 2; plateau from 3: reduce at 3, cool down at 4 (the cooldown's last
    # epoch counts again, as in MindSpore and Keras), reduce at 5, cool down at 6
    model.train(6, data(), callbacks=[Feed([0.5, 0.6, 0.6, 0.6, 0.6, 0.6]), cb, log])
    np.testing.assert_allclose(rates, [0.1, 0.1, 0.05, 0.05, 0.025, 0.025], rtol=1e-6)
    model.train(2, data(), callbacks=[Feed([0.5, 0.5]), T.ReduceLROnPlateau(
        "acc", factor=0.5, patience=0, min_lr=0.02)])
    assert float(lr.asnumpy()) == pytest.approx(0.02)  # clipped at min_lr
    assert lr.asnumpy().dtype == np.float32
    out = capsys.readouterr().out.splitlines()
    assert out == ["Epoch 00003: ReduceLROnPlateau reducing learning rate to 0.05.",
                   "Epoch 00005: ReduceLROnPlateau reducing learning rate to 0.025."]


def test_reduce_lr_on_plateau_with_fit_eval_loss():
    _, model = make_model(lr=0.1, metrics={"acc"})
    cb = T.ReduceLROnPlateau(patience=0, factor=0.5, mode="max")  # eval_loss falls
    model.fit(3, data(), data(), callbacks=[cb])
    assert float(model.train_network.optimizer.learning_rate.asnumpy()) == pytest.approx(0.025)


def test_reduce_lr_on_plateau_needs_a_fixed_rate():
    net = nn.Dense(4, 2)
    opt = nn.SGD(net.trainable_params(), nn.ExponentialDecayLR(0.1, 0.9, 1))
    model = T.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt)
    with pytest.raises(ValueError, match="ReduceLROnPlateau.*fixed"):
        model.train(1, data(), callbacks=[T.ReduceLROnPlateau("loss")])


# ---- ModelCheckpoint -----------------------------------------------------------------------
def test_checkpoint_files_keep_max_and_new_prefix(tmp_path):
    net, model = make_model()
    config = T.CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=3)
    ckpt = T.ModelCheckpoint(prefix="net", directory=str(tmp_path), config=config)
    model.train(3, data(), callbacks=[ckpt])
    # saved at global steps 2, 4, 6, 8 and the last step 9; the newest three kept (as MindSpore)
    assert sorted(os.listdir(tmp_path)) == ["net-2_3.ckpt", "net-3_2.ckpt", "net-3_3.ckpt"]
    assert ckpt.latest_ckpt_file_name == str(tmp_path / "net-3_3.ckpt")
    params = ms.load_checkpoint(ckpt.latest_ckpt_file_name)
    np.testing.assert_array_equal(params["weight"].asnumpy(), net.weight.asnumpy())
    assert "learning_rate" in params and "global_step" in params  # the optimizer's state too
    # a new callback with the same prefix in the same directory writes net_1-*, then net_2-*
    second = T.ModelCheckpoint(prefix="net", directory=str(tmp_path), config=config)
    model.train(1, data(), callbacks=[second])
    assert {f for f in os.listdir(tmp_path) if f.startswith("net_1")} == \
        {"net_1-1_2.ckpt", "net_1-1_3.ckpt"}
    assert T.ModelCheckpoint(prefix="net", directory=str(tmp_path))._prefix == "net_2"
    assert not any(f.endswith(".meta") for f in os.listdir(tmp_path))


def test_checkpoint_append_info_and_saved_network(tmp_path):
    net, model = make_model()
    config = T.CheckpointConfig(save_checkpoint_steps=3, saved_network=net,
                                append_info=["epoch_num", "step_num", {"tag": 7}])
    ckpt = T.ModelCheckpoint(prefix="bb", directory=str(tmp_path / "sub"), config=config)
    model.train(2, data(), callbacks=[ckpt])
    assert sorted(os.listdir(tmp_path / "sub")) == ["bb-1_3.ckpt", "bb-2_3.ckpt"]
    params = ms.load_checkpoint(str(tmp_path / "sub" / "bb-2_3.ckpt"))
    assert set(params) == {"weight", "bias", "epoch_num", "step_num", "tag"}
    assert int(params["epoch_num"].asnumpy()) == 2 and int(params["step_num"].asnumpy()) == 6
    assert int(params["tag"].asnumpy()) == 7


def test_checkpoint_callable_prefix_and_directory(tmp_path):
    _, model = make_model()
    ckpt = T.ModelCheckpoint(
        prefix=lambda p: f"run-e{p.cur_epoch_num}s{p.cur_step_num}",
        directory=lambda p: str(tmp_path / f"epoch{p.cur_epoch_num}"),
        config=T.CheckpointConfig(save_checkpoint_steps=3, keep_checkpoint_max=10))
    model.train(2, data(), callbacks=[ckpt])
    assert os.listdir(tmp_path / "epoch1") == ["run-e1s3.ckpt"]
    assert os.listdir(tmp_path / "epoch2") == ["run-e2s6.ckpt"]


def test_checkpoint_exception_save(tmp_path):
    _, model = make_model()

    class Fail(T.Callback):
        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == 4:
                raise RuntimeError("device lost")

    config = T.CheckpointConfig(save_checkpoint_steps=10, exception_save=True)
    ckpt = T.ModelCheckpoint(prefix="ex", directory=str(tmp_path), config=config)
    with pytest.raises(RuntimeError, match="device lost"):
        model.train(2, data(), callbacks=[ckpt, Fail()])
    assert os.listdir(tmp_path) == ["ex-2_1_breakpoint.ckpt"]


def test_checkpoint_every_n_seconds(tmp_path, monkeypatch):
    from minispore.train.callback import _checkpoint
    now = [0.0]
    monkeypatch.setattr(_checkpoint.time, "time", lambda: now[0])
    tick = T.LambdaCallback(on_train_step_begin=lambda rc: now.__setitem__(0, now[0] + 4))
    _, model = make_model()
    config = T.CheckpointConfig(save_checkpoint_steps=None, save_checkpoint_seconds=10,
                                keep_checkpoint_max=10)
    ckpt = T.ModelCheckpoint(prefix="t", directory=str(tmp_path), config=config)
    model.train(3, data(), callbacks=[tick, ckpt])
    # 4 s per step: more than 10 s have passed at steps 3, 6 and 9
    assert sorted(os.listdir(tmp_path)) == ["t-1_3.ckpt", "t-2_3.ckpt", "t-3_3.ckpt"]


def test_checkpoint_config_policy_and_errors():
    config = T.CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=30,
                                keep_checkpoint_max=0, keep_checkpoint_per_n_minutes=5)
    assert config.get_checkpoint_policy() == {
        "save_checkpoint_steps": 0, "save_checkpoint_seconds": 30, "keep_checkpoint_max": 0,
        "keep_checkpoint_per_n_minutes": 5, "saved_network": None}
    assert T.CheckpointConfig(save_checkpoint_steps=5).save_checkpoint_seconds is None
    assert T.CheckpointConfig(keep_checkpoint_max=0, save_checkpoint_steps=1) \
        .keep_checkpoint_max == 1
    with pytest.raises(ValueError, match="CheckpointConfig.*can't all be None or 0"):
        T.CheckpointConfig(0, 0, 0, 0)
    with pytest.raises(ValueError, match="CheckpointConfig.*save_checkpoint_steps"):
        T.CheckpointConfig(save_checkpoint_steps=-1)
    with pytest.raises(TypeError, match="CheckpointConfig.*saved_network"):
        T.CheckpointConfig(saved_network="net")
    with pytest.raises(TypeError, match="CheckpointConfig.*append_info"):
        T.CheckpointConfig(append_info="epoch_num")
    with pytest.raises(ValueError, match="CheckpointConfig.*append_info.*'epoch'"):
        T.CheckpointConfig(append_info=["epoch"])
    with pytest.raises(ValueError, match="CheckpointConfig.*format"):
        T.CheckpointConfig(format="h5")
    with pytest.raises(ValueError, match="ModelCheckpoint.*prefix"):
        T.ModelCheckpoint(prefix="a/b")
    with pytest.raises(TypeError, match="ModelCheckpoint.*config"):
        T.ModelCheckpoint(config={"save_checkpoint_steps": 1})


# ---- progress bar --------------------------------------------------------------------------
class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_keeps_lines_whole(monkeypatch):
    pytest.importorskip("tqdm")
    monkeypatch.delenv("MINISPORE_PROGRESS", raising=False)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    _, model = make_model(metrics={"acc"})
    model.fit(2, data(), data(), callbacks=[T.LossMonitor(), T.TimeMonitor()])
    assert sys.stdout is terminal  # restored
    out = terminal.getvalue()
    assert "Epoch 1/2" in out and "Eval" in out and "%|" in out  # bars were drawn
    # every printed line arrives whole, after the bar was cleared with a carriage return
    printed = [chunk.rsplit("\r", 1)[-1] for chunk in out.split("\n")[:-1]]
    assert sum(bool(LOSS_LINE.match(line)) for line in printed) == 6
    assert sum(line.startswith("Eval result: epoch") for line in printed) == 2
    assert sum(line.startswith("Train epoch time:") for line in printed) == 2


def test_no_progress_bar_when_not_a_terminal_or_disabled(monkeypatch):
    monkeypatch.delenv("MINISPORE_PROGRESS", raising=False)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert _progress._tqdm_class() is None  # not a terminal
    monkeypatch.setattr(sys, "stdout", _Terminal())
    monkeypatch.setenv("MINISPORE_PROGRESS", "0")
    assert _progress._tqdm_class() is None
    bar = _progress.ProgressBar(3, "x")
    assert not bar.active
    bar.update(1.0)
    bar.close()


def test_progress_bar_with_numpy_dataset_rows(monkeypatch):
    pytest.importorskip("tqdm")
    monkeypatch.delenv("MINISPORE_PROGRESS", raising=False)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    _, model = make_model()
    # a line printed in pieces during training arrives whole, above the bar
    pieces = T.LambdaCallback(
        on_train_step_end=lambda rc: print("partial" if rc.original_args().cur_step_num == 1
                                           else " line", end="" if rc.original_args()
                                           .cur_step_num == 1 else "\n"))
    model.train(1, ArrayDataset(X, Y, batch_size=10, as_numpy=True), callbacks=[pieces])
    assert sys.stdout is terminal
    lines = [chunk.rsplit("\r", 1)[-1] for chunk in terminal.getvalue().split("\n")]
    assert "partial line" in lines
