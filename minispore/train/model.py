"""`Model`: the high-level loop over a network, its loss, optimizer and metrics: `train`, `eval`,
`fit` (train with periodic evaluation) and `predict`, driving callbacks as MindSpore does."""
import warnings

import numpy as np

from .._validator import (check_bool, check_callable, check_int, check_non_negative_int,
                          check_one_of, check_positive_int, check_type, type_name)
from ..amp.loss_scale_manager import LossScaleManager
from ..amp.mixed_precision import _check_amp_levels
from ..common.tensor import Tensor
from ..nn.cell import Cell
from ..nn.optim.optimizer import Optimizer
from ..nn.wrap.cell_wrapper import WithEvalCell, WithLossCell
from ._progress import ProgressBar
from .amp import build_train_network
from .callback import RunContext, TimeMonitor
from .callback._callback import (_as_float, _CallbackManager, _check_callbacks, _handle_loss,
                                 _InternalCallbackParam)
from .callback._checkpoint import ModelCheckpoint, data_parallel_files
from .dataset_helper import DatasetHelper
from .metrics import Loss, get_metrics

__all__ = ["Model"]

_KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict", "acc_level")

# MindSpore's own callback classes (by name): `fit` does not pass them to its evaluation passes,
# except TimeMonitor; user callbacks get the eval hooks.
_BUILTIN_CALLBACKS = frozenset((
    "Callback", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "FlopsUtilizationCollector",
    "SummaryCollector", "CheckpointConfig", "RunContext", "LearningRateScheduler",
    "SummaryLandscape", "History", "LambdaCallback", "ReduceLROnPlateau", "EarlyStopping",
    "OnRequestExit", "BackupAndRestore", "TrainFaultTolerance"))


def _dataset_size(owner, name, dataset):
    """The dataset's steps per epoch, after checking it is a dataset."""
    if not callable(getattr(dataset, "create_tuple_iterator", None)) or \
            not callable(getattr(dataset, "get_dataset_size", None)):
        raise TypeError(f"For '{owner}', the '{name}' must be a dataset (with "
                        f"create_tuple_iterator and get_dataset_size), but got "
                        f"{type_name(dataset)}")
    size = dataset.get_dataset_size()
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
        raise ValueError(f"For '{owner}', '{name}'.get_dataset_size() must return an int >= 0, "
                         f"but got {size!r}")
    return int(size)


def _as_inputs(item):
    """One dataset row as the tuple of network inputs (arrays become Tensors)."""
    if isinstance(item, Tensor):
        return (item,)
    if isinstance(item, np.ndarray):
        return (Tensor(item),)
    if isinstance(item, dict):
        item = tuple(item.values())
    return tuple(Tensor(x) if isinstance(x, np.ndarray) else x for x in item)


class _Passes:
    """Passes over a dataset from one iterator made for `epochs` passes (as MindSpore's dataset
    helper does): each `for` over a MindSpore-style iterator is one epoch, and the epochs of one
    iterator shuffle differently where a new iterator would replay the first epoch."""

    def __init__(self, dataset, epochs):
        self._iterator = dataset.create_tuple_iterator(num_epochs=epochs, output_numpy=False)

    def epoch(self):
        """The next pass, as tuples of network inputs."""
        for item in self._iterator:
            yield _as_inputs(item)

    def close(self):
        """Release the iterator (ends a pass left unfinished by request_stop or an error)."""
        stop = getattr(self._iterator, "stop", None)
        if callable(stop):
            stop()


def _should_eval(epoch, valid_frequency):
    if isinstance(valid_frequency, int):
        return epoch % valid_frequency == 0
    return epoch in valid_frequency


class Model:
    """High-level training and evaluation of a network.

    With `loss_fn` and `optimizer`, `train_network` is `TrainOneStepCell(WithLossCell(network,
    loss_fn), optimizer)` (or its mixed-precision / loss-scale version for `amp_level` and
    `loss_scale_manager`); with `loss_fn` only, `WithLossCell(network, loss_fn)`; with neither,
    `network` itself (e.g. a ready-made `TrainOneStepCell`). With `metrics`, `eval_network` is
    `WithEvalCell(network, loss_fn)` unless one is given. `predict_network` is `network`.

    A dataset is any object with `create_tuple_iterator(num_epochs, output_numpy)` and
    `get_dataset_size()` (a `minispore.dataset` dataset); each row is the tuple of network
    inputs, `(data, label)` when `loss_fn` is given.

    Progress bars (with tqdm installed and standard output a terminal) show each epoch's steps;
    `MINISPORE_PROGRESS=0` turns them off.

    Args:
        network (Cell): the network.
        loss_fn (Union[Cell, function]): the loss. Default: None.
        optimizer (nn.Optimizer): the optimizer. Default: None.
        metrics (Union[dict, set]): metric names (`{'accuracy', 'loss'}`, see
            `train.names()`) or a dict name -> Metric, for `eval` and `fit`. Default: None.
        eval_network (Cell): the evaluation network; its outputs feed the metrics (all of
            them, or picked by `eval_indexes`). Default: None.
        eval_indexes (list): three positions in `eval_network`'s outputs: the loss, the
            predictions, the labels (the 'loss' metric takes the first, the others the last
            two). Default: None.
        amp_level (str): mixed precision, 'O0' (default), 'O1', 'O2' or 'O3'; see
            `build_train_network`. The network is cast in place.
        boost_level (str): MindSpore's Ascend acceleration, 'O0', 'O1' or 'O2'; accepted with
            no effect.
        loss_scale_manager (LossScaleManager): loss scaling (keyword only). With one that drops
            overflowing steps, the manager's scale is updated after each step.
        keep_batchnorm_fp32 (bool): keep BatchNorm in float32 under O2 (keyword only).

    Raises:
        TypeError: a wrong argument type.
        ValueError: `metrics` without `loss_fn` or `eval_network`, a bad `eval_indexes`, an
            unknown keyword or level, `amp_level` or `loss_scale_manager` without `optimizer`.

    Example:
        >>> model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'),
        ...               nn.Momentum(net.trainable_params(), 0.01, 0.9), metrics={'accuracy'})
        >>> model.train(2, train_dataset, callbacks=[LossMonitor()])
        >>> model.eval(test_dataset)
        {'accuracy': 0.95...}
    """

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None, amp_level="O0", boost_level="O0", **kwargs):
        self._check_init_args(network, loss_fn, optimizer, eval_network, eval_indexes,
                              amp_level, boost_level, kwargs)
        metric_fns = get_metrics(metrics)
        if metric_fns and eval_network is None and loss_fn is None:
            raise ValueError("For 'Model', 'metrics' needs an evaluation network: pass "
                             "'eval_network', or 'loss_fn' to evaluate WithEvalCell(network, "
                             "loss_fn)")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._metrics = metrics
        self._amp_level = amp_level
        self._boost_level = kwargs.get("acc_level", boost_level)
        self._loss_scale_manager = kwargs.get("loss_scale_manager")
        self._loss_scale_manager_set = "loss_scale_manager" in kwargs
        self._keep_bn_fp32 = kwargs.get("keep_batchnorm_fp32")
        if self._boost_level != "O0":
            warnings.warn(f"For 'Model', boost_level {self._boost_level!r} (Ascend acceleration) "
                          f"has no effect here", RuntimeWarning, stacklevel=2)
        self._train_network = self._build_train_network()
        self._metric_fns = metric_fns or {}
        self._eval_network = eval_network
        self._eval_indexes = eval_indexes
        if metric_fns and eval_network is None:
            self._eval_network = WithEvalCell(network, loss_fn,
                                              amp_level in ("O2", "O3", "auto"))
            self._eval_indexes = [0, 1, 2]
        self._predict_network = network
        self._backbone_is_train = True
        self._current_epoch_num = 0
        self._current_step_num = 0
        self.epoch_iter = 0
        self.batch_num = -1
        self._built_helpers = {}

    @staticmethod
    def _check_init_args(network, loss_fn, optimizer, eval_network, eval_indexes, amp_level,
                         boost_level, kwargs):
        """Every argument check, before anything is built (building casts the network in
        place for mixed precision)."""
        for key in kwargs:
            if key not in _KWARGS:
                raise ValueError(f"For 'Model', the keyword arguments may be {list(_KWARGS)}, "
                                 f"but got {key!r}")
        check_type(network, Cell, "network", "Model")
        if loss_fn is not None:
            check_callable(loss_fn, "loss_fn", "Model")
        if optimizer is not None:
            check_type(optimizer, Optimizer, "optimizer", "Model", "an nn.Optimizer")
        if eval_network is not None:
            check_type(eval_network, Cell, "eval_network", "Model")
        if eval_indexes is not None and not (
                isinstance(eval_indexes, list) and len(eval_indexes) == 3 and
                all(isinstance(i, int) and not isinstance(i, bool) for i in eval_indexes)):
            raise ValueError(f"For 'Model', the 'eval_indexes' must be None or a list of three "
                             f"ints (positions of the loss, predictions and labels), but got "
                             f"{eval_indexes!r}")
        _check_amp_levels(amp_level, kwargs.get("acc_level", boost_level), "Model")
        if optimizer is None and amp_level != "O0":
            raise ValueError(f"For 'Model', amp_level {amp_level!r} needs an 'optimizer' (mixed "
                             f"precision is applied to the training network)")
        manager = kwargs.get("loss_scale_manager")
        if manager is not None:
            check_type(manager, LossScaleManager, "loss_scale_manager", "Model")
            if optimizer is None:
                raise ValueError("For 'Model', 'optimizer' can not be None when "
                                 "'loss_scale_manager' is set")
        if "keep_batchnorm_fp32" in kwargs:
            check_bool(kwargs["keep_batchnorm_fp32"], "keep_batchnorm_fp32", "Model")

    def _build_train_network(self):
        network = self._network
        if self._optimizer is not None:
            amp_config = {}
            if self._loss_scale_manager_set:
                amp_config["loss_scale_manager"] = self._loss_scale_manager
            if self._keep_bn_fp32 is not None:
                amp_config["keep_batchnorm_fp32"] = self._keep_bn_fp32
            return build_train_network(network, self._optimizer, self._loss_fn,
                                       level=self._amp_level, **amp_config)
        if self._loss_fn is not None:
            return WithLossCell(network, self._loss_fn)
        return network

    # ---- properties -------------------------------------------------------------------------
    @property
    def train_network(self):
        """The cell one training step calls."""
        return self._train_network

    @property
    def predict_network(self):
        """The cell `predict` calls (the network)."""
        return self._predict_network

    @property
    def eval_network(self):
        """The cell `eval` calls (None without metrics and eval_network)."""
        return self._eval_network

    # ---- helpers ----------------------------------------------------------------------------
    def _set_mode(self, network, is_train):
        """Switch the training / eval mode when it changes (MindSpore's `_check_network_mode`;
        evaluation in `fit` switches the shared backbone to eval mode)."""
        if self._backbone_is_train != is_train:
            network.set_train(is_train)
            self._backbone_is_train = is_train

    def _clear_metrics(self):
        for metric in self._metric_fns.values():
            metric.clear()

    def _update_metrics(self, outputs):
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        if not isinstance(outputs, (tuple, list)):
            raise TypeError(f"For 'Model.eval', the evaluation network must return a Tensor or "
                             f"a tuple of Tensors, but got {type(outputs).__name__}")
        indexes = self._eval_indexes
        if indexes is not None and len(outputs) < 3:
            raise ValueError(f"For 'Model.eval', with 'eval_indexes' the evaluation network must "
                             f"return at least 3 outputs, but got {len(outputs)}")
        for metric in self._metric_fns.values():
            if indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[indexes[0]])
            else:
                metric.update(outputs[indexes[1]], outputs[indexes[2]])

    def _get_metrics(self):
        return {name: metric.eval() for name, metric in self._metric_fns.items()}

    @staticmethod
    def _progress_loss(bar, outputs):
        if not bar.active:
            return None
        return _as_float(_handle_loss(outputs))

    def _check_train_args(self, owner, epoch, train_dataset, callbacks, dataset_sink_mode,
                          sink_size, initial_epoch):
        check_bool(dataset_sink_mode, "dataset_sink_mode", owner)
        check_positive_int(epoch, "epoch", owner)
        check_non_negative_int(initial_epoch, "initial_epoch", owner)
        if check_int(sink_size, "sink_size", owner) < -1 or sink_size == 0:
            raise ValueError(f"For '{owner}', the 'sink_size' must be -1 or > 0, but got "
                             f"{sink_size}")
        if initial_epoch >= epoch:
            raise ValueError(f"For '{owner}', 'epoch' must be bigger than 'initial_epoch', but "
                             f"got epoch {epoch} and initial_epoch {initial_epoch}")
        size = _dataset_size(owner, "train_dataset", train_dataset)
        if size == 0:
            raise ValueError(f"For '{owner}', 'train_dataset' is empty (get_dataset_size() is "
                             f"0)")
        return _check_callbacks(callbacks), size

    # ---- train ------------------------------------------------------------------------------
    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1,
              initial_epoch=0):
        """Train for epochs `initial_epoch + 1 .. epoch`.

        Args:
            epoch (int): the last epoch, >= 1.
            train_dataset (Dataset): yields `(data, label)` rows (or the network's inputs when
                `loss_fn` is None).
            callbacks (Union[Callback, list[Callback]]): called during training.
            dataset_sink_mode (bool): MindSpore's data sinking, run as a host loop: each
                epoch is one sink of `sink_size` steps (the whole dataset for -1) on the next
                batches of a continuous stream, and the step hooks of the callbacks run once
                per sink (`cur_step_num` advances by the sink's steps). With `sink_size=-1`
                the parameters are those of training without sinking. Default: False.
            sink_size (int): steps per sink in sink mode, -1 or > 0. Default: -1.
            initial_epoch (int): epochs already done (resuming). Default: 0.

        Raises:
            TypeError, ValueError: bad arguments, an empty dataset, a row that is not
                `(data, label)` when `loss_fn` is set.
        """
        callbacks, size = self._check_train_args("Model.train", epoch, train_dataset, callbacks,
                                                 dataset_sink_mode, sink_size, initial_epoch)
        self._train(epoch, train_dataset, size, callbacks, initial_epoch,
                    dataset_sink_mode=dataset_sink_mode, sink_size=sink_size)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1,
            initial_epoch=0):
        """Train, evaluating on `valid_dataset` after every `valid_frequency`-th epoch: the
        epoch's metrics (and the mean evaluation loss, 'eval_loss') reach the callbacks'
        `on_train_epoch_end` as `metrics` and `eval_results` (EarlyStopping and
        ReduceLROnPlateau monitor them; LossMonitor prints them).

        User callbacks also get the evaluation hooks; the built-in ones (LossMonitor,
        ModelCheckpoint, History, ...) do not, except TimeMonitor.

        Args:
            epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch: as in
                `train`.
            valid_dataset (Dataset): the evaluation data. Default: None (train only).
            valid_frequency (Union[int, list]): evaluate every this many epochs, or at these
                epochs. Default: 1.
            valid_dataset_sink_mode (bool): no effect (evaluation covers the whole dataset
                either way). Default: False.

        Raises:
            TypeError, ValueError: as `train`; a bad `valid_frequency`; `valid_dataset` without
                metrics.
        """
        owner = "Model.fit"
        callbacks, size = self._check_train_args(owner, epoch, train_dataset, callbacks,
                                                 dataset_sink_mode, sink_size, initial_epoch)
        check_bool(valid_dataset_sink_mode, "valid_dataset_sink_mode", owner)
        if not isinstance(valid_frequency, list):
            check_positive_int(valid_frequency, "valid_frequency", owner)
        if valid_dataset is not None:
            if not self._metric_fns:
                raise ValueError(f"For '{owner}', 'valid_dataset' needs the model's 'metrics'")
            _dataset_size(owner, "valid_dataset", valid_dataset)
        self._train(epoch, train_dataset, size, callbacks, initial_epoch,
                    (valid_dataset, valid_frequency), dataset_sink_mode, sink_size)

    def _train(self, epoch, train_dataset, size, callbacks, initial_epoch, valid_infos=None,
               dataset_sink_mode=False, sink_size=-1):
        cb_params = _InternalCallbackParam()
        cb_params.cur_step_num = 0
        cb_params.train_network = self._train_network
        cb_params.epoch_num = epoch - initial_epoch
        if sink_size > 0 and dataset_sink_mode:
            size = sink_size
        cb_params.batch_num = size
        self.batch_num = size
        cb_params.mode = "train"
        cb_params.loss_fn = self._loss_fn
        cb_params.optimizer = self._optimizer
        cb_params.parallel_mode = "stand_alone"
        cb_params.device_number = 1
        cb_params.train_dataset = train_dataset
        cb_params.list_callback = list(callbacks)
        cb_params.train_dataset_element = None
        cb_params.network = self._network
        cb_params.last_save_ckpt_step = None
        cb_params.latest_ckpt_file = None
        cb_params.loss_scale_manager = self._loss_scale_manager
        cb_params.loss_scale_mananger = self._loss_scale_manager  # MindSpore's spelling
        cb_params.initial_step = None
        cb_params.dataset_sink_mode = dataset_sink_mode
        try:
            with data_parallel_files(callbacks), _CallbackManager(callbacks) as list_callback:
                self._train_process(epoch, train_dataset, list_callback, cb_params,
                                    initial_epoch, valid_infos)
        except BaseException:
            try:
                self._save_breakpoint(callbacks)
            except Exception as err:  # the training error matters more than the failed save
                warnings.warn(f"For 'Model.train', saving the breakpoint checkpoint failed: "
                              f"{type(err).__name__}: {err}", RuntimeWarning, stacklevel=3)
            raise

    def _save_breakpoint(self, callbacks):
        """CheckpointConfig(exception_save=True): save the network before the error
        propagates."""
        for cb in reversed(callbacks):
            if isinstance(cb, ModelCheckpoint) and cb._config.exception_save:
                cb._save_breakpoint(self._train_network, self._current_epoch_num,
                                    self._current_step_num)
                return

    def _train_process(self, epoch, train_dataset, list_callback, cb_params, initial_epoch,
                       valid_infos):
        if cb_params.dataset_sink_mode:
            passes = self._sink_helper(train_dataset, cb_params.batch_num, epoch - initial_epoch)
        else:
            passes = _Passes(train_dataset, epoch - initial_epoch)
        try:
            self._train_epochs(epoch, passes, list_callback, cb_params, initial_epoch,
                               valid_infos)
        finally:
            if not cb_params.dataset_sink_mode:
                passes.close()

    def _sink_helper(self, dataset, sink_size, epochs):
        """The sinking DatasetHelper of `dataset`: the one `build` made (its stream continues),
        else a new one."""
        helper = self._built_helpers.get(id(dataset))
        if helper is None or helper.dataset is not dataset:
            helper = DatasetHelper(dataset, True, sink_size, epochs)
            self._built_helpers[id(dataset)] = helper
        return helper

    def _train_epochs(self, epoch, passes, list_callback, cb_params, initial_epoch, valid_infos):
        run_context = RunContext(cb_params)
        self._train_network.set_train(True)
        self._backbone_is_train = True
        list_callback.on_train_begin(run_context)
        for i in range(initial_epoch, epoch):
            cb_params.cur_epoch_num = i + 1
            self._current_epoch_num = i + 1
            self._current_step_num = 0
            list_callback.on_train_epoch_begin(run_context)
            with ProgressBar(cb_params.batch_num, f"Epoch {i + 1}/{epoch}") as bar:
                if cb_params.dataset_sink_mode:
                    self._train_sink(passes, list_callback, cb_params, run_context, bar)
                else:
                    for inputs in passes.epoch():
                        cb_params.cur_step_num += 1
                        self._current_step_num = (cb_params.cur_step_num - 1) % \
                            cb_params.batch_num + 1
                        cb_params.train_dataset_element = inputs
                        list_callback.on_train_step_begin(run_context)
                        outputs = self._train_step(inputs)
                        cb_params.net_outputs = outputs
                        list_callback.on_train_step_end(run_context)
                        bar.update(self._progress_loss(bar, outputs))
                        if run_context.get_stop_requested():
                            break
            if valid_infos is not None:
                self._eval_during_train(valid_infos, cb_params, list_callback)
            list_callback.on_train_epoch_end(run_context)
            cb_params.pop("metrics", None)
            cb_params.pop("eval_results", None)
            if run_context.get_stop_requested():
                break
            self.epoch_iter += 1
        list_callback.on_train_end(run_context)

    def _train_step(self, inputs):
        """One step on one batch (and the loss-scale update it implies)."""
        if self._loss_fn is not None and len(inputs) != 2:
            raise ValueError(f"For 'Model.train', with a 'loss_fn' each row of "
                             f"'train_dataset' must have two columns (data, label), "
                             f"but got {len(inputs)}")
        self._set_mode(self._train_network, True)
        outputs = self._train_network(*inputs)
        manager = self._loss_scale_manager
        if manager is not None and manager.get_drop_overflow_update() and \
                isinstance(outputs, (tuple, list)) and len(outputs) > 1:
            # (loss, overflow, scale) from the loss-scale cell
            manager.update_loss_scale(bool(np.all(outputs[1].asnumpy())))
        return outputs

    def _train_sink(self, helper, list_callback, cb_params, run_context, bar):
        """One epoch in sink mode: `batch_num` steps on the next batches of the continuous
        stream, the step hooks called once around them (as MindSpore calls them once per
        sink)."""
        list_callback.on_train_step_begin(run_context)
        outputs = None
        for step in range(cb_params.batch_num):
            inputs = helper._next_batch()
            cb_params.train_dataset_element = inputs
            self._current_step_num = step + 1
            outputs = self._train_step(inputs)
            bar.update(self._progress_loss(bar, outputs))
        cb_params.cur_step_num += cb_params.batch_num
        cb_params.net_outputs = outputs
        list_callback.on_train_step_end(run_context)

    def _eval_during_train(self, valid_infos, cb_params, list_callback):
        valid_dataset, valid_frequency = valid_infos
        if valid_dataset is None or not _should_eval(cb_params.cur_epoch_num, valid_frequency):
            return
        saved = {key: cb_params.get(key) for key in
                 ("cur_step_num", "batch_num", "dataset_sink_mode", "net_outputs")}
        eval_callbacks = [cb for cb in list_callback._callbacks
                          if type(cb).__name__ not in _BUILTIN_CALLBACKS or
                          isinstance(cb, TimeMonitor)]
        cb_params.eval_network = self._eval_network
        cb_params.valid_dataset = valid_dataset
        cb_params.batch_num = _dataset_size("Model.fit", "valid_dataset", valid_dataset)
        cb_params.mode = "eval"
        cb_params.cur_step_num = 0
        self._clear_metrics()
        with _CallbackManager(eval_callbacks) as eval_list:
            self._eval_process(valid_dataset, eval_list, cb_params, add_eval_loss=True)
        cb_params.mode = "train"
        cb_params.update(saved)

    def build(self, train_dataset=None, valid_dataset=None, sink_size=-1, epoch=1,
              sink_mode=True):
        """Prepare training ahead of `train` / `fit` (MindSpore compiles the graphs and warms
        the data pipeline here): checks the arguments, puts the training and evaluation
        networks in their modes, and in sink mode makes the DatasetHelper whose stream the
        next sinking `train` on `train_dataset` continues.

        Args:
            train_dataset (Dataset): the training data. Default: None.
            valid_dataset (Dataset): the evaluation data (needs metrics). Default: None.
            sink_size (int): steps per sink, -1 or > 0. Default: -1.
            epoch (int): epochs the data is prepared for, > 0. Default: 1.
            sink_mode (bool): prepare for sink mode. Default: True.

        Raises:
            ValueError: both datasets None, a bad `sink_size` or `epoch`.
            TypeError: a dataset that is not one, a wrong argument type.
            RuntimeError: `valid_dataset` without metrics.
        """
        owner = "Model.build"
        check_positive_int(epoch, "epoch", owner)
        check_bool(sink_mode, "sink_mode", owner)
        if check_int(sink_size, "sink_size", owner) < -1 or sink_size == 0:
            raise ValueError(f"For '{owner}', the 'sink_size' must be -1 or > 0, but got "
                             f"{sink_size}")
        if train_dataset is None and valid_dataset is None:
            raise ValueError("The argument 'train_dataset' and 'valid_dataset' can not both be "
                             "None or empty.")
        if train_dataset is not None:
            size = _dataset_size(owner, "train_dataset", train_dataset)
            self._train_network.set_train(True)
            self._backbone_is_train = True
            if sink_mode:
                steps = size if sink_size == -1 else sink_size
                self._built_helpers[id(train_dataset)] = DatasetHelper(train_dataset, True, steps,
                                                                       epoch)
        if valid_dataset is not None:
            if not self._metric_fns:
                raise RuntimeError("If define `valid_dataset`, metric fn can not be None or "
                                   "empty.")
            _dataset_size(owner, "valid_dataset", valid_dataset)
            if train_dataset is None:
                self._eval_network.set_train(False)
                self._backbone_is_train = False

    # ---- eval -------------------------------------------------------------------------------
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """Evaluate the metrics over `valid_dataset`.

        Args:
            valid_dataset (Dataset): yields the evaluation network's inputs (`(data, label)`).
            callbacks (Union[Callback, list[Callback]]): get the `on_eval_*` hooks.
            dataset_sink_mode (bool): no effect (evaluation covers the whole dataset either
                way). Default: False.

        Returns:
            dict, metric name -> value.

        Raises:
            ValueError: the model has no metrics.
            TypeError: bad arguments.
        """
        owner = "Model.eval"
        check_bool(dataset_sink_mode, "dataset_sink_mode", owner)
        if not self._metric_fns:
            raise ValueError("For 'Model.eval', the model argument 'metrics' can not be None or "
                             "empty: set 'metrics' when creating the Model")
        size = _dataset_size(owner, "valid_dataset", valid_dataset)
        callbacks = _check_callbacks(callbacks)
        cb_params = _InternalCallbackParam()
        cb_params.eval_network = self._eval_network
        cb_params.valid_dataset = valid_dataset
        cb_params.batch_num = size
        cb_params.mode = "eval"
        cb_params.cur_step_num = 0
        cb_params.list_callback = list(callbacks)
        cb_params.network = self._network
        self._clear_metrics()
        with _CallbackManager(callbacks) as list_callback:
            return self._eval_process(valid_dataset, list_callback, cb_params)

    def _eval_process(self, valid_dataset, list_callback, cb_params, add_eval_loss=False):
        run_context = RunContext(cb_params)
        cb_params.dataset_sink_mode = False
        list_callback.on_eval_begin(run_context)
        self._eval_network.set_train(False)
        self._backbone_is_train = False
        list_callback.on_eval_epoch_begin(run_context)
        # The mean over batches (MindSpore 2.10 reports only the last batch's loss here).
        eval_loss = Loss() if add_eval_loss and self._eval_indexes is not None else None
        passes = _Passes(valid_dataset, 1)
        try:
            with ProgressBar(cb_params.batch_num, "Eval") as bar:
                for inputs in passes.epoch():
                    cb_params.cur_step_num += 1
                    cb_params.eval_dataset_element = inputs
                    list_callback.on_eval_step_begin(run_context)
                    self._set_mode(self._eval_network, False)
                    outputs = self._eval_network(*inputs)
                    cb_params.net_outputs = outputs
                    list_callback.on_eval_step_end(run_context)
                    self._update_metrics(outputs)
                    if eval_loss is not None:
                        eval_loss.update(outputs[self._eval_indexes[0]])
                    bar.update()
                    if run_context.get_stop_requested():
                        break
        finally:
            passes.close()
        list_callback.on_eval_epoch_end(run_context)
        metrics = self._get_metrics()
        cb_params.metrics = metrics
        if add_eval_loss:
            cb_params.eval_results = dict(metrics)
            if eval_loss is not None:
                cb_params.eval_results["eval_loss"] = eval_loss.eval()
        list_callback.on_eval_end(run_context)
        return metrics

    # ---- predict ----------------------------------------------------------------------------
    def predict(self, *predict_data, backend=None, config=None):
        """The network's output on `predict_data`, in eval mode (the network is left in eval
        mode).

        Args:
            predict_data (Union[Tensor, int, float, str, None]): the network's inputs.
            backend (str): None, or 'lite' (MindSpore Lite, not available here: falls back to
                the network with a warning).
            config (dict): MindSpore Lite options; unused.

        Raises:
            ValueError: an empty Tensor, an unknown `backend`.
            TypeError: an input of another type.
            RuntimeError: the network returned None.
        """
        check_one_of(backend, (None, "lite"), "backend", "Model.predict")
        for item in predict_data:
            if isinstance(item, Tensor):
                if item.size == 0:
                    raise ValueError(f"For 'Model.predict', the input data can not be empty, "
                                     f"but got a Tensor of shape {item.shape}")
            elif item is not None and not isinstance(item, (int, float, str)):
                raise TypeError(f"For 'Model.predict', the inputs must be Tensor, None, int, "
                                f"float or str, but got {type(item).__name__}")
        if backend == "lite":
            warnings.warn("For 'Model.predict', MindSpore Lite is not available: running the "
                          "network instead", RuntimeWarning, stacklevel=2)
        self._predict_network.set_train(False)
        self._backbone_is_train = False
        result = self._predict_network(*predict_data)
        if result is None:
            raise RuntimeError("For 'Model.predict', the network returned None")
        return result
