"""Training plumbing: DatasetHelper, connect_network_with_dataset, data_sink and
Model.train(dataset_sink_mode=True) (host loops with the results of training without sinking,
checked against MindSpore 2.10's run in data/make_mindspore_wave2.py), Model.build,
BackupAndRestore (resume after a crash), OnRequestExit, merge_sliced_parameter and
load_distributed_checkpoint."""
import inspect
import json
import os
import signal

import numpy as np
import pytest

import minispore as ms
import minispore.dataset as ds
from minispore import Parameter, Tensor, nn, train

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_wave2.npz"))

SIGNATURES = {  # str(inspect.signature(...)) on MindSpore 2.10
    "DatasetHelper": "(dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1)",
    "connect_network_with_dataset": "(network, dataset_helper)",
    "data_sink": "(fn, dataset, sink_size=1, jit_config=None, input_signature=None)",
    "BackupAndRestore": "(backup_dir, save_freq='epoch', delete_checkpoint=True)",
    "OnRequestExit": "(save_ckpt=True, save_mindir=True, file_name='Net', directory='./', "
                     "config_file=None, sig=<Signals.SIGTERM: 15>)",
    "merge_sliced_parameter": "(sliced_parameters, strategy=None)",
    "load_distributed_checkpoint": "(network, checkpoint_filenames=None, predict_strategy=None, "
                                   "train_strategy_filename=None, strict_load=False, "
                                   "dec_key=None, dec_mode='AES-GCM', format='ckpt', "
                                   "unified_safetensors_dir=None, dst_safetensors_dir=None, "
                                   "rank_id=None, output_format='safetensors', name_map=None, "
                                   "max_process_num=64, return_param_dict=False)",
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures(name):
    assert str(inspect.signature(getattr(train, name))) == SIGNATURES[name]


def test_model_build_signature():
    assert str(inspect.signature(train.Model.build)) == \
        "(self, train_dataset=None, valid_dataset=None, sink_size=-1, epoch=1, sink_mode=True)"


def _dataset(shuffle=False):
    return ds.NumpySlicesDataset((DATA["train_x"], DATA["train_y"]), column_names=["x", "y"],
                                 shuffle=shuffle).batch(2)


def _dense():
    net = nn.Dense(4, 2)
    net.weight.set_data(Tensor(DATA["dense_w"]))
    net.bias.set_data(Tensor(DATA["dense_b"]))
    return net


def _model(net=None):
    net = net or _dense()
    return net, train.Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9))


def _assert_trained_like_mindspore(net, epochs):
    np.testing.assert_allclose(net.weight.asnumpy(), DATA[f"train_{epochs}ep_w"], rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), DATA[f"train_{epochs}ep_b"], rtol=1e-5,
                               atol=1e-6)


class StepCounter(train.Callback):
    def __init__(self):
        self.steps = []

    def on_train_step_end(self, run_context):
        self.steps.append(run_context.original_args().cur_step_num)


@pytest.mark.parametrize("sink", [False, True])
def test_train_matches_mindspore_with_and_without_sink(sink):
    net, model = _model()
    model.train(2, _dataset(), dataset_sink_mode=sink)
    _assert_trained_like_mindspore(net, 2)


def test_sink_size_runs_sinks_of_that_many_steps_on_a_continuous_stream():
    net, model = _model()
    counter = StepCounter()
    model.train(3, _dataset(), callbacks=counter, dataset_sink_mode=True, sink_size=2)
    assert counter.steps == [2, 4, 6]  # one step hook per sink
    _assert_trained_like_mindspore(net, 2)  # 6 steps = 2 passes of 3 batches


def test_sink_mode_with_shuffle_equals_training_without_sinking():
    ms.set_seed(5)
    net_a, model_a = _model()
    model_a.train(3, _dataset(shuffle=True))
    ms.set_seed(5)
    net_b, model_b = _model()
    model_b.train(3, _dataset(shuffle=True), dataset_sink_mode=True)
    np.testing.assert_allclose(net_b.weight.asnumpy(), net_a.weight.asnumpy(), rtol=1e-6)


def test_model_build_then_sinking_train_continues_its_stream():
    net, model = _model()
    dataset = _dataset()
    model.build(dataset, sink_size=3, epoch=2)
    model.train(2, dataset, dataset_sink_mode=True, sink_size=3)
    _assert_trained_like_mindspore(net, 2)
    with pytest.raises(ValueError, match="both be"):
        model.build()
    with pytest.raises(ValueError):
        model.build(dataset, epoch=0)
    with pytest.raises(ValueError):
        model.build(dataset, sink_size=0)
    with pytest.raises(TypeError):
        model.build([1, 2])
    with pytest.raises(RuntimeError, match="metric"):
        model.build(valid_dataset=dataset)


def test_dataset_helper_without_sink_yields_batches_per_epoch():
    helper = train.DatasetHelper(_dataset(), dataset_sink_mode=False, epoch_num=2)
    for _ in range(2):
        rows = list(helper)
        assert len(rows) == 3
        np.testing.assert_array_equal(rows[1][0].asnumpy(), DATA["train_x"][2:4])
    assert helper.sink_size() == 1
    types, shapes = helper.types_shapes()
    assert types == [ms.float32, ms.float32] and shapes == [[2, 4], [2, 2]]
    with pytest.raises(RuntimeError, match="sink mode"):
        train.connect_network_with_dataset(_dense(), helper)


def test_connected_network_runs_one_sink_per_call():
    helper = train.DatasetHelper(_dataset(), dataset_sink_mode=True, sink_size=2)
    assert helper.sink_size() == 2 and list(helper) == [()]
    net = _dense()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    sink_net = train.connect_network_with_dataset(step, helper)
    assert train.connect_network_with_dataset(step, helper) is sink_net
    losses = [sink_net() for _ in range(3)]
    _assert_trained_like_mindspore(net, 2)
    ref = _dense()
    ref_step = nn.TrainOneStepCell(nn.WithLossCell(ref, nn.MSELoss()),
                                   nn.Momentum(ref.trainable_params(), 0.1, 0.9))
    x, y = DATA["train_x"], DATA["train_y"]
    ref_losses = [ref_step(Tensor(x[i:i + 2]), Tensor(y[i:i + 2])) for i in (0, 2, 4, 0, 2, 4)]
    np.testing.assert_allclose([float(v.asnumpy()) for v in losses],
                               [float(v.asnumpy()) for v in ref_losses[1::2]], rtol=1e-6)
    helper.stop_send()
    with pytest.raises(RuntimeError, match="continue_send"):
        sink_net()
    helper.continue_send()
    sink_net()
    with pytest.raises(ValueError):
        sink_net(Tensor(x[:2]))
    with pytest.raises(TypeError):
        train.connect_network_with_dataset(lambda a: a, helper)
    with pytest.raises(ValueError):
        train.DatasetHelper(_dataset(), sink_size=0)
    with pytest.raises(TypeError):
        train.DatasetHelper([1, 2, 3])


def test_data_sink_runs_sink_size_steps_per_call():
    w = Parameter(Tensor(np.ones((4, 2), np.float32)), name="w")
    seen = []

    def step(x, y):
        seen.append(x.asnumpy()[0, 0])
        return ((ms.ops.matmul(x, w) - y) ** 2).mean()

    sink_step = train.data_sink(step, _dataset(), sink_size=2)
    out = [sink_step() for _ in range(3)]
    x, y = DATA["train_x"], DATA["train_y"]
    starts = [0, 2, 4, 0, 2, 4]
    np.testing.assert_array_equal(seen, [x[i, 0] for i in starts])
    want = [((x[i:i + 2] @ np.ones((4, 2)) - y[i:i + 2]) ** 2).mean() for i in starts[1::2]]
    np.testing.assert_allclose([float(v.asnumpy()) for v in out], want, rtol=1e-5)
    assert sink_step.__name__ == "step"
    with pytest.raises(ValueError, match="positive"):
        train.data_sink(step, _dataset(), sink_size=0)
    with pytest.raises(TypeError):
        train.data_sink(step, _dataset(), sink_size=1.0)
    with pytest.raises(TypeError):
        train.data_sink(3, _dataset())


class CrashAt(train.Callback):
    def __init__(self, epoch):
        self.epoch = epoch

    def on_train_epoch_begin(self, run_context):
        if run_context.original_args().cur_epoch_num == self.epoch:
            raise KeyboardInterrupt("simulated crash")


def test_backup_and_restore_resumes_after_a_crash(tmp_path):
    backup_dir = str(tmp_path / "backup")
    net_ref, model_ref = _model()
    model_ref.train(4, _dataset())
    _, model = _model()
    with pytest.raises(KeyboardInterrupt):
        model.train(4, _dataset(), callbacks=[train.BackupAndRestore(backup_dir), CrashAt(3)])
    backup = os.path.join(backup_dir, "backup.ckpt")
    saved = ms.load_checkpoint(backup)
    assert int(saved["epoch_num"].asnumpy()) == 2
    net2, model2 = _model()  # a fresh process: initial weights, restored from the backup
    model2.train(4, _dataset(), callbacks=train.BackupAndRestore(backup_dir),
                 initial_epoch=int(saved["epoch_num"].asnumpy()))
    np.testing.assert_allclose(net2.weight.asnumpy(), net_ref.weight.asnumpy(), rtol=1e-6)
    assert not os.path.exists(backup)  # delete_checkpoint=True at the end of training


def test_backup_and_restore_frequency_and_arguments(tmp_path):
    cb = train.BackupAndRestore(str(tmp_path), save_freq=2, delete_checkpoint=False)
    _, model = _model()
    model.train(3, _dataset(), callbacks=cb)
    assert int(ms.load_checkpoint(cb.backup_file)["epoch_num"].asnumpy()) == 2
    with pytest.raises(TypeError):
        train.BackupAndRestore(str(tmp_path), save_freq="x")
    with pytest.raises(ValueError):
        train.BackupAndRestore(str(tmp_path), save_freq=0)
    with pytest.raises(TypeError):
        train.BackupAndRestore(str(tmp_path), delete_checkpoint=1)


class SignalAt(train.Callback):
    def __init__(self, step):
        self.step = step

    def on_train_step_begin(self, run_context):
        if run_context.original_args().cur_step_num == self.step:
            os.kill(os.getpid(), signal.SIGUSR1)


def test_on_request_exit_stops_on_signal_and_saves(tmp_path):
    previous = signal.getsignal(signal.SIGUSR1)
    cb = train.OnRequestExit(save_mindir=False, directory=str(tmp_path), sig=signal.SIGUSR1)
    counter = StepCounter()
    net, model = _model()
    model.train(3, _dataset(), callbacks=[SignalAt(4), cb, counter])
    assert counter.steps == [1, 2, 3, 4]
    assert signal.getsignal(signal.SIGUSR1) is previous
    saved = ms.load_checkpoint(cb.train_name + ".ckpt")
    assert int(saved["step_num"].asnumpy()) == 4 and int(saved["epoch_num"].asnumpy()) == 2
    np.testing.assert_array_equal(saved["weight"].asnumpy(), net.weight.asnumpy())
    fresh, model2 = _model()  # the next run starts from the saved checkpoint
    cb2 = train.OnRequestExit(save_mindir=False, directory=str(tmp_path), sig=signal.SIGUSR1)
    seen = []
    model2.train(1, _dataset(), callbacks=[cb2, train.LambdaCallback(
        on_train_begin=lambda ctx: seen.append(fresh.weight.asnumpy().copy()))])
    np.testing.assert_array_equal(seen[0], saved["weight"].asnumpy())


def test_on_request_exit_config_file_and_arguments(tmp_path):
    config = tmp_path / "exit.json"
    config.write_text(json.dumps({"GracefulExit": 1}))
    cb = train.OnRequestExit(directory=str(tmp_path), config_file=str(config))
    counter = StepCounter()
    _, model = _model()
    with pytest.warns(RuntimeWarning, match="MINDIR"):
        model.train(2, _dataset(), callbacks=[cb, counter])
    assert counter.steps == [1]
    assert os.path.isfile(cb.train_name + ".ckpt")
    assert os.path.dirname(cb.train_name).endswith("rank_0")
    with pytest.raises(ValueError, match="SIGKILL"):
        train.OnRequestExit(sig=signal.SIGKILL)
    with pytest.raises(ValueError):
        train.OnRequestExit(save_ckpt=1)
    with pytest.raises(ValueError):
        train.OnRequestExit(sig="x")


def test_merge_sliced_parameter_concatenates_by_default():
    a = Parameter(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), "w")
    b = Parameter(Tensor(np.arange(6, 15, dtype=np.float32).reshape(3, 3)), "w")
    merged = train.merge_sliced_parameter([a, b])
    assert isinstance(merged, Parameter) and merged.name == "w" and merged.dtype == ms.float32
    np.testing.assert_array_equal(merged.asnumpy(), np.arange(15).reshape(5, 3))
    with pytest.raises(TypeError):
        train.merge_sliced_parameter((a, b))
    with pytest.raises(ValueError):
        train.merge_sliced_parameter([])
    with pytest.raises(ValueError):
        train.merge_sliced_parameter([a, Parameter(Tensor(np.zeros((2, 2), np.float32)), "w")])
    with pytest.raises(ValueError):
        train.merge_sliced_parameter([a, Parameter(Tensor(np.zeros((2, 3), np.float32)), "v")])
    with pytest.raises(TypeError):
        train.merge_sliced_parameter([a, Tensor(np.zeros((2, 3), np.float32))])
    with pytest.raises(KeyError):
        train.merge_sliced_parameter([a, a], {"other": {}})


def test_merge_sliced_parameter_with_a_layout():
    full = np.arange(48, dtype=np.float32).reshape(4, 12)
    # 8 devices as (2, 2, 2): tensor axis 0 split by device axis 0 (map 2), axis 1 by axis 2
    # (map 0); device axis 1 holds copies.
    dev_matrix, tensor_map = [2, 2, 2], [2, 0]
    slices = []
    for rank in range(8):
        c0, _, c2 = np.unravel_index(rank, dev_matrix)
        slices.append(Parameter(Tensor(full[2 * c0:2 * c0 + 2, 6 * c2:6 * c2 + 6]), "emb"))
    layout = {"dev_matrix": dev_matrix, "tensor_map": tensor_map}
    merged = train.merge_sliced_parameter(slices, {"emb": layout})
    np.testing.assert_array_equal(merged.asnumpy(), full)
    with pytest.raises(ValueError, match="device_count"):
        train.merge_sliced_parameter(slices[:4], {"emb": layout})


def test_load_distributed_checkpoint_from_data_parallel_ranks(tmp_path):
    net, model = _model()
    model.train(1, _dataset())
    files = []
    for rank in range(2):
        path = str(tmp_path / f"rank_{rank}.ckpt")
        ms.save_checkpoint(net, path)
        files.append(path)
    fresh = nn.Dense(4, 2)
    assert train.load_distributed_checkpoint(fresh, files) is True
    np.testing.assert_array_equal(fresh.weight.asnumpy(), net.weight.asnumpy())
    loaded = train.load_distributed_checkpoint(nn.Dense(4, 2), files, return_param_dict=True)
    assert sorted(loaded) == ["bias", "weight"]
    other = str(tmp_path / "other.ckpt")
    ms.save_checkpoint(nn.Dense(4, 3), other)
    with pytest.raises(ValueError, match="same parameters"):
        train.load_distributed_checkpoint(fresh, [files[0], other])
    with pytest.raises(ValueError, match="train_strategy_filename"):
        train.load_distributed_checkpoint(fresh, files, train_strategy_filename="s.ckpt")
    with pytest.raises(ValueError, match="does not exist"):
        train.load_distributed_checkpoint(fresh, [str(tmp_path / "missing.ckpt")])
    with pytest.raises(TypeError):
        train.load_distributed_checkpoint(fresh, None)
    with pytest.raises(TypeError):
        train.load_distributed_checkpoint("net", files)


def test_model_eval_with_the_new_metrics_by_name():
    net = _dense()
    model = train.Model(net, nn.MSELoss(), metrics={"dice", "loss"})
    result = model.eval(_dataset())
    pred = DATA["train_x"] @ DATA["dense_w"].T + DATA["dense_b"]
    want = _dice_reference(pred, DATA["train_y"])
    assert result["dice"] == pytest.approx(want, rel=1e-5)


def _dice_reference(pred, y):
    """MindSpore's Dice over batches of 2: per-batch coefficients summed, over the samples."""
    total = 0.0
    for i in range(0, len(pred), 2):
        p, t = pred[i:i + 2].ravel(), y[i:i + 2].ravel()
        total += 2 * np.dot(p, t) / (np.dot(p, p) + np.dot(t, t) + 1e-5)
    return total / len(pred)


class EvalSignalAt(train.Callback):
    def __init__(self, step):
        self.step, self.steps = step, 0

    def on_eval_step_begin(self, run_context):
        self.steps += 1
        if self.steps == self.step:
            os.kill(os.getpid(), signal.SIGUSR1)


def test_on_request_exit_during_evaluation(tmp_path):
    trained, model = _model()
    model.train(1, _dataset())
    ms.save_checkpoint(trained, str(tmp_path / "trained.ckpt"))
    cb = train.OnRequestExit(save_mindir=False, directory=str(tmp_path), sig=signal.SIGUSR1)
    ms.save_checkpoint(trained, cb.train_name + ".ckpt")
    net = _dense()  # untrained: the callback loads the training checkpoint at eval begin
    model = train.Model(net, nn.MSELoss(), metrics={"loss"})
    trigger = EvalSignalAt(2)
    model.eval(_dataset(), callbacks=[trigger, cb])
    assert trigger.steps == 2  # stopped after the step that saw the signal
    np.testing.assert_array_equal(net.weight.asnumpy(), trained.weight.asnumpy())
    saved = ms.load_checkpoint(cb.eval_name + ".ckpt")
    np.testing.assert_array_equal(saved["weight"].asnumpy(), trained.weight.asnumpy())
