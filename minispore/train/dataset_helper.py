"""`DatasetHelper` and `connect_network_with_dataset`: MindSpore's dataset-sink plumbing, run on
the host. In sink mode one iteration of the helper stands for one sink of `sink_size()` steps,
and the connected network, called with no inputs, pulls that many batches itself and returns
the last step's output: the same steps in the same order as feeding each batch by hand."""
import numpy as np

from .._validator import check_bool, check_int, check_positive_int, type_name
from ..common.tensor import Tensor
from ..nn.cell import Cell

__all__ = ["DatasetHelper", "connect_network_with_dataset"]


def _check_dataset(dataset, owner):
    if not callable(getattr(dataset, "create_tuple_iterator", None)) or \
            not callable(getattr(dataset, "get_dataset_size", None)):
        raise TypeError(f"For '{owner}', the 'dataset' must be a dataset (with "
                        f"create_tuple_iterator and get_dataset_size), but got "
                        f"{type_name(dataset)}")
    return dataset


def _check_sink_size(sink_size, owner):
    if check_int(sink_size, "sink_size", owner) < -1 or sink_size == 0:
        raise ValueError(f"For '{owner}', the 'sink_size' must be -1 or > 0, but got "
                         f"{sink_size}")
    return sink_size


def _as_tensors(row):
    if isinstance(row, dict):
        row = tuple(row.values())
    return tuple(Tensor(x) if isinstance(x, np.ndarray) else x for x in row)


class _BatchStream:
    """The dataset's batches one after another, pass after pass (a new pass starts where the
    last one ends, as the device queue of a sinking dataset does)."""

    def __init__(self, dataset):
        self._iterator = dataset.create_tuple_iterator(num_epochs=-1, output_numpy=False)
        self._empty_passes = 0

    def next(self):
        """The next batch as a tuple of Tensors."""
        while True:
            try:
                row = next(self._iterator)
            except StopIteration:
                self._empty_passes += 1
                if self._empty_passes > 1:
                    raise RuntimeError("The sinking dataset yields no data") from None
                continue
            self._empty_passes = 0
            return _as_tensors(row)

    def close(self):
        stop = getattr(self._iterator, "stop", None)
        if callable(stop):
            stop()


class DatasetHelper:
    """Iterates a dataset for a training loop.

    Without sink mode each iteration is one batch (a tuple of Tensors); each `for` over the
    helper is one epoch of the `epoch_num` it was made for. In sink mode each iteration (one
    per `for`) is one sink of `sink_size()` steps and yields `()`: the network made by
    `connect_network_with_dataset` pulls its own batches.

    Args:
        dataset (Dataset): the data.
        dataset_sink_mode (bool): sink mode. Default: True.
        sink_size (int): steps per sink, -1 for the whole dataset. Default: -1.
        epoch_num (int): epochs the data is sent for. Default: 1.

    Raises:
        TypeError: not a dataset, wrong argument types.
        ValueError: `sink_size` not -1 or positive, `epoch_num` < 1.
    """

    def __init__(self, dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1):
        owner = "DatasetHelper"
        self.dataset = _check_dataset(dataset, owner)
        self.dataset_sink_mode = check_bool(dataset_sink_mode, "dataset_sink_mode", owner)
        self._sink_size = _check_sink_size(sink_size, owner)
        self.epoch_num = check_positive_int(epoch_num, "epoch_num", owner)
        self._stream = None
        self._iterator = None
        self._networks = {}
        self._sending = True

    def __iter__(self):
        if self.dataset_sink_mode:
            return iter(((),))
        if self._iterator is None:
            self._iterator = self.dataset.create_tuple_iterator(num_epochs=self.epoch_num,
                                                                output_numpy=False)
        return (_as_tensors(row) for row in self._iterator)

    def sink_size(self):
        """Steps per sink: `sink_size`, or the dataset size for -1 (1 without sink mode)."""
        if not self.dataset_sink_mode:
            return 1
        return self.dataset.get_dataset_size() if self._sink_size == -1 else self._sink_size

    def types_shapes(self):
        """`(types, shapes)` of the dataset's columns (minispore dtypes, lists of ints)."""
        types = [Tensor(np.zeros((), t)).dtype for t in self.dataset.output_types()]
        return types, [list(s) for s in self.dataset.output_shapes()]

    def get_data_info(self):
        """The types and shapes of the next data (those of the dataset's columns here)."""
        return self.types_shapes()

    def stop_send(self):
        """Pause sending: the connected network refuses to run until `continue_send`."""
        self._sending = False

    def continue_send(self):
        """Resume sending after `stop_send`."""
        self._sending = True

    def release(self):
        """Drop the data streams (the next use starts from a new pass)."""
        for holder in (self._stream, self._iterator):
            stop = getattr(holder, "close", None) or getattr(holder, "stop", None)
            if callable(stop):
                stop()
        self._stream = None
        self._iterator = None

    def get_mbuf_queue_size(self):
        """Batches waiting in the host queue: always 0 (batches are made on demand)."""
        return 0

    def _next_batch(self):
        if not self._sending:
            raise RuntimeError("For 'DatasetHelper', sending is stopped: call continue_send() "
                               "before running the connected network")
        if self._stream is None:
            self._stream = _BatchStream(self.dataset)
        return self._stream.next()


class _SinkNetwork(Cell):
    """`network` fed by a sinking DatasetHelper: each call runs one sink."""

    def __init__(self, network, dataset_helper):
        super().__init__(auto_prefix=False)
        self.network = network
        self._helper = dataset_helper

    def construct(self, *inputs):
        if inputs:
            raise ValueError(f"For 'connect_network_with_dataset', the connected network takes "
                             f"its data from the dataset and no inputs, but got {len(inputs)}")
        output = None
        for _ in range(self._helper.sink_size()):
            output = self.network(*self._helper._next_batch())
        return output


def connect_network_with_dataset(network, dataset_helper):
    """The network that runs on a sinking `dataset_helper`: calling it with no inputs runs one
    sink (`dataset_helper.sink_size()` steps on the next batches) and returns the last step's
    output. The same network is returned for the same `(network, dataset_helper)` pair.

    Raises:
        TypeError: `network` not a Cell, `dataset_helper` not a DatasetHelper.
        RuntimeError: `dataset_helper` not in sink mode (as MindSpore).
    """
    owner = "connect_network_with_dataset"
    if not isinstance(network, Cell):
        raise TypeError(f"For '{owner}', the 'network' must be a Cell, but got "
                        f"{type_name(network)}")
    if not isinstance(dataset_helper, DatasetHelper):
        raise TypeError(f"For '{owner}', the 'dataset_helper' must be a DatasetHelper, but got "
                        f"{type_name(dataset_helper)}")
    if not dataset_helper.dataset_sink_mode:
        raise RuntimeError("The API 'connect_network_with_dataset' should be called in dataset "
                           "sink mode.")
    wrapped = dataset_helper._networks.get(id(network))
    if wrapped is None or wrapped.network is not network:
        wrapped = _SinkNetwork(network, dataset_helper)
        dataset_helper._networks[id(network)] = wrapped
    return wrapped
