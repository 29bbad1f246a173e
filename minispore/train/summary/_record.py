"""`SummaryRecord`: MindSpore's summary API, writing TensorBoard event files."""
import os
import time
import weakref

import numpy as np

from ..._validator import check_bool, check_positive_int, check_type
from ...common.tensor import Tensor
from ...nn.cell import Cell
from ...ops.operations import debug_ops
from ._writer import EventWriter, import_tensorboardx

__all__ = ["SummaryRecord"]

_TENSOR_PLUGINS = ("scalar", "image", "tensor", "histogram")
_TEXT_PLUGINS = ("graph", "train_lineage", "eval_lineage", "dataset_graph",
                 "custom_lineage_data")
_PLUGINS = _TENSOR_PLUGINS + _TEXT_PLUGINS
_OWNER = "SummaryRecord"


def _check_name(name, owner):
    if not isinstance(name, str):
        raise TypeError(f"For '{owner}', 'name' must be a str, but got {type(name).__name__}")
    if not name:
        raise ValueError(f"For '{owner}', 'name' must not be an empty string")


def network_text(network):
    """The structure of a Cell as text: its repr, then each parameter's name, shape and dtype."""
    lines = [repr(network), "", "Parameters:"]
    for p in network.get_parameters():
        lines.append(f"  {p.name}: shape={tuple(p.shape)}, dtype={p.dtype}, "
                     f"requires_grad={p.requires_grad}")
    return "\n".join(lines)


class SummaryRecord:
    """Records scalars, images, histograms, tensors and text to a TensorBoard event file in
    `log_dir` (`tensorboard --logdir <log_dir>` shows them): the values given to `add_value`
    and those of the summary operators (`ops.ScalarSummary` ...) called since the last
    `record(step)`, all written at `step`.

    The file is `{file_prefix}.out.tfevents.{time}.{host}{file_suffix}` (TensorBoard reads files
    whose name holds `tfevents`). A background thread writes it; a failed write, a removed
    directory or a file over `max_file_size` is a warning (with `raise_exception=True`, an error
    at the next call) and never stops training. Needs the `tensorboardX` package
    (`pip install 'minispore[summary]'`). Use it as a context manager, or call `close()`.

    Args:
        log_dir (str): the directory of the event file (made if missing).
        file_prefix (str): Default: "events".
        file_suffix (str): Default: "_MS".
        num_process (int): accepted for MindSpore's signature; one writer thread serves it.
            Default: 32.
        network (Cell): written once as text (its structure) under 'graph'. Default: None.
        max_file_size (int): the most bytes the event file may hold; None: no limit.
        raise_exception (bool): raise write errors instead of warning. Default: False.
        export_options (dict): {'tensor_format': 'npy'} also saves every recorded tensor as
            `{log_dir}/export_{time}/tensor/{name}_{step}.npy`; None: no export.

    Raises:
        TypeError: an argument of the wrong type.
        ValueError: `num_process` or `max_file_size` not positive, an unknown export option.
        ImportError: tensorboardX is not installed.
    """

    def __init__(self, log_dir, file_prefix="events", file_suffix="_MS", num_process=32,
                 network=None, max_file_size=None, raise_exception=False, export_options=None):
        check_type(log_dir, str, "log_dir", _OWNER)
        check_type(file_prefix, str, "file_prefix", _OWNER)
        check_type(file_suffix, str, "file_suffix", _OWNER)
        check_positive_int(num_process, "num_process", _OWNER)
        if network is not None and not isinstance(network, Cell):
            raise TypeError(f"For '{_OWNER}', 'network' must be a Cell, but got "
                            f"{type(network).__name__}")
        if max_file_size is not None:
            check_positive_int(max_file_size, "max_file_size", _OWNER)
        check_bool(raise_exception, "raise_exception", _OWNER)
        self._export_dir = self._check_export(export_options, log_dir)
        import_tensorboardx(_OWNER)
        self._network = network
        self._graph_written = False
        self._pending = []  # (plugin, name, value) from add_value
        self._mode = "train"
        self._closed = False
        self._writer = EventWriter(os.path.realpath(log_dir), file_prefix, file_suffix,
                                   max_file_size, raise_exception)
        debug_ops.open_summary_sink()
        self._finalizer = weakref.finalize(self, SummaryRecord._shut, self._writer)

    @staticmethod
    def _check_export(options, log_dir):
        if options is None:
            return None
        if not isinstance(options, dict):
            raise TypeError(f"For '{_OWNER}', 'export_options' must be a dict or None, but got "
                            f"{type(options).__name__}")
        for key, value in options.items():
            if key != "tensor_format":
                raise ValueError(f"For '{_OWNER}', the keys of 'export_options' must be in "
                                 f"['tensor_format'], but got {key!r}")
            if value not in ("npy", None):
                raise ValueError(f"For '{_OWNER}', 'tensor_format' must be 'npy' or None, but "
                                 f"got {value!r}")
        if options.get("tensor_format") != "npy":
            return None
        return os.path.join(log_dir, time.strftime("export_%Y%m%d%H%M%S"), "tensor")

    @staticmethod
    def _shut(writer):
        writer.close()
        debug_ops.close_summary_sink()

    def __enter__(self):
        if self._closed:
            raise ValueError(f"For '{_OWNER}', the SummaryRecord is closed")
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def log_dir(self):
        """The path of the event file."""
        return self._writer.file_path

    def set_mode(self, mode):
        """'train' or 'eval'; in 'eval' the summary operators' values are not recorded."""
        if mode not in ("train", "eval"):
            raise ValueError(f"For '{_OWNER}.set_mode', 'mode' must be 'train' or 'eval', but "
                             f"got {mode!r}")
        self._mode = mode

    def add_value(self, plugin, name, value):
        """Keep `value` to be written as `name` at the next `record`.

        `plugin`: 'scalar' (a one-element Tensor), 'image' (an (N, C, H, W) Tensor, C in 1, 3,
        4), 'histogram' or 'tensor' (a Tensor); 'graph' (a Cell or text), 'train_lineage',
        'eval_lineage', 'dataset_graph', 'custom_lineage_data' (text, or a dict written as
        JSON), all shown in TensorBoard's text tab.
        """
        owner = f"{_OWNER}.add_value"
        if plugin not in _PLUGINS:
            raise ValueError(f"For '{owner}', 'plugin' must be one of {list(_PLUGINS)}, but got "
                             f"{plugin!r}")
        _check_name(name, owner)
        if plugin in _TENSOR_PLUGINS:
            if isinstance(value, np.ndarray):
                value = Tensor(value)
            if not isinstance(value, Tensor):
                raise TypeError(f"For '{owner}', the value of a '{plugin}' must be a Tensor, but "
                                f"got {type(value).__name__}")
            op = {"scalar": debug_ops.ScalarSummary, "image": debug_ops.ImageSummary,
                  "tensor": debug_ops.TensorSummary,
                  "histogram": debug_ops.HistogramSummary}[plugin]()
            op.name = owner
            op.check_value(value)
            value = np.array(value.asnumpy(), copy=True)
        elif plugin == "graph":
            if isinstance(value, Cell):
                value = network_text(value)
            elif not isinstance(value, str):
                raise TypeError(f"For '{owner}', the value of a 'graph' must be a Cell or a str, "
                                f"but got {type(value).__name__}")
        elif not isinstance(value, (str, dict)):
            raise TypeError(f"For '{owner}', the value of a '{plugin}' must be a str or a dict, "
                            f"but got {type(value).__name__}")
        self._pending.append((plugin, name, value))

    def record(self, step, train_network=None, plugin_filter=None):
        """Write what `add_value` and the summary operators kept, at `step`. Returns False when
        closed, True otherwise."""
        owner = f"{_OWNER}.record"
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
            raise TypeError(f"For '{owner}', 'step' must be an int, but got "
                            f"{type(step).__name__}")
        if train_network is not None and not isinstance(train_network, Cell):
            raise TypeError(f"For '{owner}', 'train_network' must be a Cell, but got "
                            f"{type(train_network).__name__}")
        if plugin_filter is not None and not callable(plugin_filter):
            raise TypeError(f"For '{owner}', 'plugin_filter' must be callable, but got "
                            f"{type(plugin_filter).__name__}")
        if self._closed:
            return False
        step = int(step)
        items = self._pending
        self._pending = []
        network = train_network if train_network is not None else self._network
        if network is not None and not self._graph_written:
            items.insert(0, ("graph", "network", network_text(network)))
            self._graph_written = True
        operator_data = debug_ops.take_summary_data()
        if self._mode == "train":
            items.extend(operator_data_items(operator_data))
        for plugin, name, value in items:
            if plugin_filter is not None and not plugin_filter(plugin):
                continue
            kind = plugin if plugin in _TENSOR_PLUGINS else "text"
            tag = name if kind != "text" or plugin == "graph" else f"{plugin}/{name}"
            self._writer.put(step, kind, tag, value)
            if self._export_dir is not None and kind == "tensor":
                self._export(name, step, value)
        return True

    def _export(self, name, step, value):
        os.makedirs(self._export_dir, exist_ok=True)
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
        np.save(os.path.join(self._export_dir, f"{safe}_{step}.npy"), value)

    def flush(self):
        """Wait until everything recorded so far is in the file."""
        if not self._closed:
            self._writer.flush()

    def close(self):
        """Flush and close the file; later calls do nothing."""
        if self._closed:
            return
        self._closed = True
        self._finalizer.detach()
        SummaryRecord._shut(self._writer)


def operator_data_items(data):
    """(plugin, name, value) items from the summary operators' {(kind, name): value}."""
    return [(kind, name, value) for (kind, name), value in data.items()]
