"""`SummaryCollector`: the callback recording a `Model.train` or `Model.fit` run to TensorBoard."""
import json
import os
import re

import numpy as np

from ..._validator import check_bool, check_positive_int, check_type
from ...common.tensor import Tensor
from ..callback._callback import Callback
from ..serialization import save_checkpoint
from ._landscape import METADATA_FILE, check_landscape_options
from ._record import SummaryRecord, network_text

__all__ = ["SummaryCollector"]

_OWNER = "SummaryCollector"
_DEFAULTS = {"collect_metric": True, "collect_graph": True, "collect_train_lineage": True,
             "collect_eval_lineage": True, "collect_input_data": True,
             "collect_dataset_graph": True, "histogram_regular": None,
             "collect_landscape": {"landscape_size": 40, "unit": "step", "num_samples": 2048,
                                   "create_landscape": {"train": True, "result": True},
                                   "intervals": [list(range(1, 10)), list(range(10, 20))]}}
_DEFAULT_HISTOGRAMS = 5


def _mean_loss(output):
    if isinstance(output, (tuple, list)):
        output = output[0] if output else None
    if isinstance(output, Tensor):
        output = output.asnumpy()
    if isinstance(output, (np.ndarray, np.generic, float, int)) and not isinstance(output, bool):
        a = np.asarray(output)
        if a.size and a.dtype.kind in "biuf":
            return float(np.mean(a))
    return None


def _pipeline_lines(node, depth=0):
    lines = ["  " * depth + type(node).__name__]
    for child in getattr(node, "children", ()) or ():
        lines.extend(_pipeline_lines(child, depth + 1))
    return lines


def dataset_graph(dataset):
    """The pipeline as text: its columns and size, then the tree of its stages (the data itself,
    which `to_json` would embed, is left out)."""
    head = []
    for label, getter in (("columns", "get_col_names"), ("batches per epoch",
                                                          "get_dataset_size")):
        try:
            head.append(f"{label}: {getattr(dataset, getter)()}")
        except Exception:  # noqa: BLE001, S112  (a stage that cannot tell: leave the line out)
            continue
    return "\n".join(head + _pipeline_lines(dataset))


class SummaryCollector(Callback):
    """Records a training run to TensorBoard event files in `summary_dir` (through
    `SummaryRecord`): at step 1 and every `collect_freq` steps the loss ('loss'), the learning
    rate ('learning_rate'), histograms of the weights and of their gradients as the optimizer
    gets them ('gradient/<name>'), the first input column when it is a
    batch of images ('input_data'), and what the summary operators (`ops.ScalarSummary` ...)
    got; at each evaluation the metrics ('eval/<name>'); once, the network's and the dataset's
    structure and the run's settings as text.

    Args:
        summary_dir (str): the directory of the event file (made if missing).
        collect_freq (int): record every this many steps (and step 1). Default: 10.
        num_process (int): accepted for MindSpore's signature. Default: 32.
        collect_specified_data (dict): switches, each defaulting to on: 'collect_metric' (loss
            and evaluation metrics), 'collect_graph', 'collect_train_lineage' (settings and the
            learning rate), 'collect_eval_lineage', 'collect_input_data',
            'collect_dataset_graph', 'histogram_regular' (a regular expression choosing the
            parameters to histogram; None: the first five), and 'collect_landscape': None, or
            a dict of 'landscape_size' (3-256; default 40), 'unit' ('step' or 'epoch'),
            'num_samples' (default 2048), 'create_landscape' ({'train': bool, 'result': bool})
            and 'intervals' (lists of at least 3 steps or epochs; required): the network's
            parameters are saved at each listed step (or epoch end) to
            `{summary_dir}/ckpt_dir/{NetName}_{n}_{unit}.ckpt`, with `train_metadata.json` at
            the end of training, for `SummaryLandscape`. On by default, as in MindSpore
            (intervals [[1..9], [10..19]] steps).
        keep_default_action (bool): with `collect_specified_data`, whether the switches it does
            not name keep their defaults (True) or are off (False). Default: True.
        custom_lineage_data (dict): str keys and str/int/float values written with the
            settings. Default: None.
        collect_tensor_freq (int): record `TensorSummary` values every this many steps;
            None: every `collect_freq` steps.
        max_file_size (int): the most bytes of the event file; None: no limit.
        export_options (dict): as `SummaryRecord`'s.

    Raises:
        TypeError, ValueError: arguments of the wrong type or value.
    """

    def __init__(self, summary_dir, collect_freq=10, num_process=32, collect_specified_data=None,
                 keep_default_action=True, custom_lineage_data=None, collect_tensor_freq=None,
                 max_file_size=None, export_options=None):
        super().__init__()
        check_type(summary_dir, str, "summary_dir", _OWNER)
        self.collect_freq = check_positive_int(collect_freq, "collect_freq", _OWNER)
        check_positive_int(num_process, "num_process", _OWNER)
        check_bool(keep_default_action, "keep_default_action", _OWNER)
        self.collect_specified_data = self._check_specified(collect_specified_data,
                                                            keep_default_action)
        self.custom_lineage_data = self._check_custom(custom_lineage_data)
        if collect_tensor_freq is not None:
            check_positive_int(collect_tensor_freq, "collect_tensor_freq", _OWNER)
        self.collect_tensor_freq = collect_tensor_freq
        if max_file_size is not None:
            check_positive_int(max_file_size, "max_file_size", _OWNER)
        self.summary_dir = summary_dir
        self._record_args = {"max_file_size": max_file_size, "export_options": export_options}
        SummaryRecord._check_export(export_options, summary_dir)
        self._record = None
        self._step = 0
        self._histogram_names = None
        self._gradient_hook = None
        self._gradients = {}
        self._landscape = self.collect_specified_data["collect_landscape"] or None
        self._ckpt_dir = os.path.join(summary_dir, "ckpt_dir")
        self._landscape_files = {}
        if self._landscape is not None:
            os.makedirs(self._ckpt_dir, exist_ok=True)
        self._training = False  # between on_train_begin and on_train_end (fit's evaluations
        # enter and exit the callback mid-run: the file stays open through them)

    @staticmethod
    def _check_specified(data, keep_default):
        if data is None:
            return dict(_DEFAULTS)
        if not isinstance(data, dict):
            raise TypeError(f"For '{_OWNER}', 'collect_specified_data' must be a dict or None, "
                            f"but got {type(data).__name__}")
        if not data:
            raise ValueError(f"For '{_OWNER}', 'collect_specified_data' must not be empty")
        for key, value in data.items():
            if key not in _DEFAULTS:
                raise ValueError(f"For '{_OWNER}', the keys of 'collect_specified_data' must be "
                                 f"in {list(_DEFAULTS)}, but got {key!r}")
            if key == "histogram_regular":
                if value is not None and not isinstance(value, str):
                    raise TypeError(f"For '{_OWNER}', 'histogram_regular' must be a str or "
                                    f"None, but got {type(value).__name__}")
                if value is not None:
                    try:
                        re.compile(value)
                    except re.error as e:
                        raise ValueError(f"For '{_OWNER}', 'histogram_regular' is not a valid "
                                         f"regular expression: {e}") from None
            elif key == "collect_landscape":
                if value is not None and value != {}:  # {} is off, as in MindSpore
                    check_landscape_options(value, _OWNER, complete=True)
            else:
                check_bool(value, key, _OWNER)
        base = dict(_DEFAULTS) if keep_default else {
            k: (None if k in ("histogram_regular", "collect_landscape") else False)
            for k in _DEFAULTS}
        if not keep_default and "histogram_regular" not in data:
            base["histogram_regular"] = False
        base.update(data)
        return base

    @staticmethod
    def _check_custom(data):
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise TypeError(f"For '{_OWNER}', 'custom_lineage_data' must be a dict or None, but "
                            f"got {type(data).__name__}")
        for key, value in data.items():
            if not isinstance(key, str):
                raise TypeError(f"For '{_OWNER}', the keys of 'custom_lineage_data' must be str, "
                                f"but got {type(key).__name__}")
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                raise TypeError(f"For '{_OWNER}', the values of 'custom_lineage_data' must be "
                                f"str, int or float, but got {type(value).__name__}")
        return dict(data)

    # ---- the record ----

    def _open(self):
        if self._record is None:
            self._record = SummaryRecord(self.summary_dir, **self._record_args)
        return self._record

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc and exc[0] is not None or not self._training:
            self._training = False
            self.close()

    def close(self):
        """Flush and close the event file."""
        if self._record is not None:
            self._record.close()
            self._record = None

    # ---- training ----

    def on_train_begin(self, run_context):
        """Write the network, the dataset and the settings as text."""
        cb = run_context.original_args()
        self._training = True
        record = self._open()
        on = self.collect_specified_data
        network = cb.get("train_network") or cb.get("network")
        if on["collect_graph"] and network is not None:
            record.add_value("graph", "network", network_text(network))
        dataset = cb.get("train_dataset")
        if on["collect_dataset_graph"] and dataset is not None:
            record.add_value("dataset_graph", "train_dataset", dataset_graph(dataset))
        if on["collect_train_lineage"]:
            record.add_value("train_lineage", "settings", self._train_lineage(cb))
        record.record(int(cb.get("cur_step_num") or 0))

    def _train_lineage(self, cb):
        optimizer = cb.get("optimizer")
        network = cb.get("network")
        lineage = {"epoch_num": cb.get("epoch_num"), "batch_num": cb.get("batch_num"),
                   "optimizer": type(optimizer).__name__ if optimizer is not None else None,
                   "loss_fn": type(cb.get("loss_fn")).__name__ if cb.get("loss_fn") else None,
                   "network": type(network).__name__ if network is not None else None}
        if network is not None:
            lineage["parameters"] = int(sum(int(np.prod(p.shape))
                                            for p in network.get_parameters()))
        lineage.update(self.custom_lineage_data)
        return lineage

    def _collects(self, step):
        return step == 1 or step % self.collect_freq == 0

    def on_train_step_begin(self, run_context):
        """Before a recorded step, catch the gradients the optimizer gets (for 'gradient/...'
        histograms)."""
        cb = run_context.original_args()
        step = int(cb.get("cur_step_num") or 0)
        optimizer = cb.get("optimizer")
        if (not self._collects(step) or self.collect_specified_data["histogram_regular"] is False
                or not hasattr(optimizer, "register_forward_pre_hook")):
            return
        caught = self._gradients = {}
        params = list(getattr(optimizer, "parameters", ()))

        def catch(cell, inputs):
            grads = inputs[0] if len(inputs) == 1 else inputs
            if isinstance(grads, (tuple, list)) and len(grads) == len(params):
                for param, grad in zip(params, grads):
                    if isinstance(grad, Tensor):
                        caught[param.name] = np.array(grad.asnumpy(), copy=True)

        self._gradient_hook = optimizer.register_forward_pre_hook(catch)

    def _release_gradient_hook(self):
        handle, self._gradient_hook = self._gradient_hook, None
        if handle is not None:
            handle.remove()
        caught, self._gradients = self._gradients, {}
        return caught

    def on_train_step_end(self, run_context):
        """Record at step 1 and every `collect_freq` steps."""
        cb = run_context.original_args()
        self._step = step = int(cb.get("cur_step_num") or 0)
        gradients = self._release_gradient_hook()
        self._save_for_landscape(cb, "step", step)
        if not self._collects(step):
            return
        record = self._open()
        on = self.collect_specified_data
        if on["collect_metric"]:
            loss = _mean_loss(cb.get("net_outputs"))
            if loss is not None:
                record.add_value("scalar", "loss", Tensor(np.float32(loss)))
        if on["collect_train_lineage"]:
            lr = self._learning_rate(cb.get("optimizer"))
            if lr is not None:
                record.add_value("scalar", "learning_rate", Tensor(np.float32(lr)))
        if on["histogram_regular"] is not False:
            for param in self._histogram_params(cb.get("network") or cb.get("train_network")):
                record.add_value("histogram", param.name, Tensor(param.asnumpy()))
                if param.name in gradients:
                    record.add_value("histogram", f"gradient/{param.name}",
                                     Tensor(gradients[param.name]))
        if on["collect_input_data"]:
            image = self._input_images(cb.get("train_dataset_element"))
            if image is not None:
                record.add_value("image", "input_data", Tensor(image))
        tensor_freq = self.collect_tensor_freq or self.collect_freq
        keep_tensors = step == 1 or step % tensor_freq == 0
        record.record(step, plugin_filter=None if keep_tensors else
                      (lambda plugin: plugin != "tensor"))

    # ---- checkpoints for SummaryLandscape ----

    def _save_for_landscape(self, cb, unit, number):
        """At a step (or epoch end) listed in the intervals, save the network's parameters (an
        existing file is kept, as MindSpore does)."""
        landscape = self._landscape
        if (landscape is None or landscape.get("unit", "step") != unit
                or not any(number in interval for interval in landscape["intervals"])):
            return
        network = cb.get("network")
        if network is None:
            return
        path = os.path.join(self._ckpt_dir, f"{type(network).__name__}_{number}_{unit}.ckpt")
        self._landscape_files[str(number)] = path
        if not os.path.isfile(path):
            save_checkpoint([{"name": p.name, "data": p} for p in network.get_parameters()], path)

    def _save_landscape_metadata(self, cb):
        landscape = self._landscape
        path = os.path.join(self._ckpt_dir, METADATA_FILE)
        if landscape is None or os.path.isfile(path):
            return
        data = {"epoch_group": {str(i): list(v) for i, v in enumerate(landscape["intervals"])},
                "model_params_file_map": self._landscape_files,
                "step_per_epoch": int(cb.get("batch_num") or 0),
                "unit": landscape.get("unit", "step"),
                "num_samples": landscape.get("num_samples", 2048),
                "landscape_size": landscape.get("landscape_size", 40),
                "create_landscape": landscape.get("create_landscape",
                                                  {"train": True, "result": True})}
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f)

    @staticmethod
    def _learning_rate(optimizer):
        if optimizer is None or not hasattr(optimizer, "get_lr"):
            return None
        lr = optimizer.get_lr()
        if isinstance(lr, (tuple, list)):
            lr = lr[0] if lr else None
        if isinstance(lr, Tensor):
            lr = lr.asnumpy()
        try:
            return float(np.asarray(lr).reshape(-1)[0])
        except (TypeError, ValueError, IndexError):
            return None

    def _histogram_params(self, network):
        if network is None:
            return []
        params = list(network.get_parameters())
        if self._histogram_names is None:
            pattern = self.collect_specified_data["histogram_regular"]
            if pattern is None:
                chosen = [p.name for p in params if p.requires_grad][:_DEFAULT_HISTOGRAMS]
            else:
                regex = re.compile(pattern)
                chosen = [p.name for p in params if regex.match(p.name)]
            self._histogram_names = set(chosen)
        return [p for p in params if p.name in self._histogram_names]

    @staticmethod
    def _input_images(element):
        if not element:
            return None
        first = element[0] if isinstance(element, (tuple, list)) else element
        if isinstance(first, Tensor):
            first = first.asnumpy()
        if not isinstance(first, np.ndarray) or first.ndim != 4 or first.dtype.kind not in "biuf":
            return None
        if first.shape[1] in (1, 3, 4):
            return first
        if first.shape[3] in (1, 3, 4):  # NHWC
            return first.transpose(0, 3, 1, 2)
        return None

    def on_train_epoch_end(self, run_context):
        """Record the epoch's evaluation results in `Model.fit` ('eval/<name>'), then make the
        epoch's records visible on disk."""
        cb = run_context.original_args()
        self._save_for_landscape(cb, "epoch", int(cb.get("cur_epoch_num") or 0))
        results = cb.get("eval_results")
        if results:
            self._record_metrics(results)
        if self._record is not None:
            self._record.flush()

    def on_train_end(self, run_context):
        """Write what is pending and close the file."""
        self._release_gradient_hook()
        self._save_landscape_metadata(run_context.original_args())
        if self._record is not None:
            self._record.record(self._step)
        self._training = False
        self.close()

    # ---- evaluation ----

    def on_eval_end(self, run_context):
        """Record the metrics of `Model.eval` as 'eval/<name>' at the last training step."""
        self._record_metrics(run_context.original_args().get("metrics") or {})

    def _record_metrics(self, metrics):
        record = self._open()
        on = self.collect_specified_data
        scalars = {name: _mean_loss(value) for name, value in metrics.items()}
        if on["collect_metric"]:
            for name, scalar in scalars.items():
                if scalar is not None:
                    record.add_value("scalar", f"eval/{name}", Tensor(np.float32(scalar)))
        if on["collect_eval_lineage"]:
            record.add_value("eval_lineage", "metrics",
                             {k: scalars[k] if scalars[k] is not None else str(v)
                              for k, v in metrics.items()})
        record.set_mode("eval")
        record.record(self._step)
        record.set_mode("train")

    def begin(self, run_context):
        self.on_train_begin(run_context)

    def step_end(self, run_context):
        self.on_train_step_end(run_context)

    def epoch_end(self, run_context):
        self.on_train_epoch_end(run_context)

    def end(self, run_context):
        self.on_train_end(run_context)

    def on_eval_begin(self, run_context):
        """Nothing: evaluation is recorded at its end."""

    def on_eval_epoch_begin(self, run_context):
        """Nothing."""

    def on_eval_epoch_end(self, run_context):
        """Nothing."""

    def on_eval_step_begin(self, run_context):
        """Nothing."""

    def on_eval_step_end(self, run_context):
        """Nothing."""
