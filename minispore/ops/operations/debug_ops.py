"""Side-effect primitives: the summary operators (`ScalarSummary`, `ImageSummary`,
`TensorSummary`, `HistogramSummary`), called inside `construct` and written by an open
`SummaryRecord` at its next `record(step)`, and `TensorDump`, which saves a tensor as `.npy`.

They return None, are never recorded on the tape and take no part in gradients. While no
`SummaryRecord` is open a summary operator only checks its arguments.
"""
import os
import threading

import numpy as np

from ...common.tensor import Tensor
from ..primitive import Primitive

__all__ = [
    "HistogramSummary",
    "ImageSummary",
    "ScalarSummary",
    "TensorDump",
    "TensorSummary",
    "close_summary_sink",
    "open_summary_sink",
    "take_summary_data",
]

PRIMITIVE_CLASSES = ("ScalarSummary", "ImageSummary", "TensorSummary", "HistogramSummary",
                     "TensorDump")

_lock = threading.Lock()
_sinks = 0  # SummaryRecords open: while 0 the operators keep nothing
_pending = {}  # (kind, name) -> ndarray, the latest value since the last `take_summary_data`


def open_summary_sink():
    """Start keeping the summary operators' values (a SummaryRecord opens)."""
    global _sinks
    with _lock:
        _sinks += 1


def close_summary_sink():
    """Stop keeping them once the last SummaryRecord closes; what is kept is dropped."""
    global _sinks
    with _lock:
        _sinks = max(_sinks - 1, 0)
        if not _sinks:
            _pending.clear()


def take_summary_data():
    """The values kept since the last call, as {(kind, name): ndarray}, and forget them."""
    with _lock:
        data = dict(_pending)
        _pending.clear()
    return data


class _Summary(Primitive):
    """A summary operator: `op(name, value)` keeps a copy of `value` under `name`."""

    inputs = ("name", "value")
    differentiable = False
    kind = None

    def __init__(self):
        super().__init__()

    def check_value(self, value):
        """Raise if `value`'s shape does not suit this kind of summary."""

    def __call__(self, name, value):
        if not isinstance(name, str):
            raise TypeError(f"For '{self.name}', 'name' must be a str, but got "
                            f"{type(name).__name__}")
        if not name:
            raise ValueError(f"For '{self.name}', 'name' must not be an empty string")
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{self.name}', 'value' must be a Tensor, but got "
                            f"{type(value).__name__}")
        self.check_value(value)
        if _sinks:
            data = np.array(value.asnumpy(), copy=True)
            with _lock:
                if _sinks:
                    _pending[(self.kind, name)] = data


class ScalarSummary(_Summary):
    """`ScalarSummary()(name, value)`: records `value` (a one-element Tensor of rank 0 or 1) as
    the scalar `name` at the open SummaryRecord's next `record(step)`.

    Raises:
        TypeError: `name` not a str, `value` not a Tensor.
        ValueError: `name` empty; `value` of rank > 1 or not of one element.
    """

    kind = "scalar"

    def check_value(self, value):
        if value.ndim > 1:
            raise ValueError(f"For '{self.name}', the rank of 'value' must be 0 or 1, but got "
                             f"shape {value.shape}")
        if value.size != 1:
            raise ValueError(f"For '{self.name}', 'value' must hold one element, but got shape "
                             f"{value.shape}")


class ImageSummary(_Summary):
    """`ImageSummary()(name, value)`: records a batch of images, `value` of shape (N, C, H, W)
    with C 1 (gray), 3 (RGB) or 4 (RGBA); floating-point values are read in [0, 1], integers in
    [0, 255]. The batch is written as one grid image.

    Raises:
        TypeError: `name` not a str, `value` not a Tensor.
        ValueError: `name` empty; `value` not of rank 4 or of another channel count.
    """

    kind = "image"

    def check_value(self, value):
        if value.ndim != 4:
            raise ValueError(f"For '{self.name}', the rank of 'value' must be 4 (N, C, H, W), "
                             f"but got shape {value.shape}")
        if value.shape[1] not in (1, 3, 4):
            raise ValueError(f"For '{self.name}', the channel axis 1 of 'value' must be 1, 3 or "
                             f"4, but got shape {value.shape}")


class TensorSummary(_Summary):
    """`TensorSummary()(name, value)`: records `value`, a Tensor of any shape.

    Raises:
        TypeError: `name` not a str, `value` not a Tensor.
        ValueError: `name` empty.
    """

    kind = "tensor"


class HistogramSummary(_Summary):
    """`HistogramSummary()(name, value)`: records the distribution of `value`'s elements (a real
    Tensor of any shape).

    Raises:
        TypeError: `name` not a str, `value` not a real Tensor.
        ValueError: `name` empty.
    """

    kind = "histogram"

    def check_value(self, value):
        if value.asnumpy().dtype.kind not in "biuf":
            raise TypeError(f"For '{self.name}', 'value' must be a real Tensor, but got "
                            f"{value.dtype}")


_dump_lock = threading.Lock()
_dump_count = [0]


class TensorDump(Primitive):
    """`TensorDump(input_output='out')(file, input_x)`: saves `input_x` to
    `{file}_{dtype}_{id}.npy` (a trailing `.npy` of `file` is dropped; `id` counts every dump of
    the process from 0; bfloat16 is saved as float32). `input_output` ('in' or 'out') matters
    only for sliced tensors across devices; on one device both save the same array, named alike
    (as MindSpore's CPU kernel does).

    Raises:
        ValueError: `input_output` not 'in' or 'out'.
        TypeError: `file` not a str, `input_x` not a Tensor.
    """

    inputs = ("file", "input_x")
    differentiable = False

    def __init__(self, input_output="out"):
        super().__init__()
        if input_output not in ("in", "out"):
            raise ValueError(f"The 'input_output' argument should be one of ['in', 'out'], but "
                             f"got: {input_output}")
        self.input_output = input_output

    def __call__(self, file, input_x):
        if not isinstance(file, str):
            raise TypeError(f"For 'TensorDump', the type of 'file' should be 'str', but got type "
                            f"'{type(file).__name__}'.")
        if not isinstance(input_x, Tensor):
            raise TypeError(f"For 'TensorDump', the type of 'input_x' should be 'Tensor', but got "
                            f"type '{type(input_x).__name__}'.")
        data = input_x.asnumpy()
        dtype_name = str(input_x.dtype).lower()
        if data.dtype.kind == "V" or dtype_name == "bfloat16":
            data = data.astype(np.float32)
        base = file.removesuffix(".npy")
        with _dump_lock:
            index = _dump_count[0]
            _dump_count[0] += 1
        folder = os.path.dirname(base)
        if folder:
            os.makedirs(folder, exist_ok=True)
        np.save(f"{base}_{dtype_name}_{index}.npy", data)
