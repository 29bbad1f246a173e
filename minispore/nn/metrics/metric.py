"""The `Metric` protocol (`clear` / `update(*inputs)` / `eval`), `rearrange_inputs`, and the
input checks the classification metrics share."""
import functools
from abc import ABCMeta, abstractmethod

import numpy as np

from ..._validator import check_type, check_type_name
from ...common.tensor import Tensor

__all__ = ["Metric", "rearrange_inputs"]

_EVAL_TYPES = ("classification", "multilabel")


def rearrange_inputs(func):
    """Decorator for `update`: reorders its inputs by the metric's `indexes` (see
    `Metric.set_indexes`); inputs pass through unchanged when `indexes` is None."""

    @functools.wraps(func)
    def wrapper(self, *inputs):
        indexes = self.indexes
        if indexes:
            if max(indexes) >= len(inputs) or min(indexes) < -len(inputs):
                raise IndexError(f"For '{type(self).__name__}.update', 'indexes' {indexes} "
                                 f"select inputs beyond the {len(inputs)} given")
            inputs = tuple(inputs[i] for i in indexes)
        return func(self, *inputs)

    return wrapper


class Metric(metaclass=ABCMeta):
    """Base class of metrics: `clear()` resets the accumulated state, `update(*inputs)` adds a
    batch (usually predictions then labels), `eval()` returns the result. Calling a metric
    (`metric(y_pred, y)`) clears, updates once and evaluates.

    Subclasses decorate `update` with `rearrange_inputs` so that `set_indexes` takes effect.
    """

    def __init__(self):
        self._indexes = None

    def _convert_data(self, data):
        """`data` (Tensor, list or ndarray) as an ndarray."""
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, list):
            return np.array(data)
        return check_type(data, np.ndarray, "input data", type(self).__name__,
                          "a Tensor, list or numpy.ndarray")

    @property
    def indexes(self):
        """The input order `update` uses (None: as given); set by `set_indexes`."""
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes):
        """Select and reorder the inputs of `update`: with `indexes=[2, 1]`, `update(a, b, c)`
        sees `(c, b)`. Returns the metric.

        Raises:
            ValueError: `indexes` is not a list of ints (MindSpore raises ValueError here).
        """
        if not isinstance(indexes, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) for i in indexes):
            raise ValueError(f"For 'set_indexes', 'indexes' must be a list of int, but got "
                             f"{indexes!r}")
        self._indexes = indexes
        return self

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()

    def _require_samples(self, count):
        """Raise unless `count` samples were seen: `eval` needs a non-empty `update` first."""
        if count == 0:
            raise RuntimeError(f"The '{type(self).__name__}' can not be calculated, because the "
                               f"number of samples is 0: call 'update' with a non-empty batch "
                               f"before 'eval'")

    def _arrays(self, inputs, names=("predicted value", "true value")):
        """The `update` inputs as NumPy arrays, one per name in `names` (checked count)."""
        if len(inputs) != len(names):
            n = len(names)
            raise ValueError(f"For '{type(self).__name__}.update', it needs {n} "
                             f"input{'s' if n > 1 else ''} ({', '.join(names)}), but got "
                             f"{len(inputs)}")
        return [self._convert_data(x) for x in inputs]

    @abstractmethod
    def clear(self):
        """Reset the accumulated state."""

    @abstractmethod
    def eval(self):
        """The metric over everything passed to `update` since the last `clear`."""

    @abstractmethod
    def update(self, *inputs):
        """Accumulate one batch."""


class EvaluationBase(Metric):
    """A metric with `eval_type` 'classification' (scores `(N, C, ...)`, class-index labels
    `(N, ...)` or one-hot labels) or 'multilabel' (0/1 predictions and labels of one shape).

    Raises:
        TypeError: `eval_type` is not one of the two (MindSpore's exception type).
    """

    def __init__(self, eval_type):
        super().__init__()
        self._type = check_type_name(eval_type, _EVAL_TYPES, "eval_type", type(self).__name__)

    def _check_pair(self, y_pred, y, class_num):
        """Validate one batch (labels already un-one-hot'ed) before any state changes."""
        owner = f"{type(self).__name__}.update"
        if y_pred.ndim < 2 or y_pred.shape[1] == 0:
            raise ValueError(f"For '{owner}', the predicted value must have a non-empty class "
                             f"axis 1, but got shape {y_pred.shape}")
        if self._type == "classification":
            _check_classification_shapes(owner, y_pred, y)
        else:
            if y_pred.shape != y.shape:
                raise ValueError(f"For '{owner}', in the multilabel case y_pred and y must have "
                                 f"the same shape, but got {y_pred.shape} and {y.shape}")
            if not (_is_binary(y_pred) and _is_binary(y)):
                raise ValueError(f"For '{owner}', in the multilabel case every element of "
                                 f"y_pred and y must be 0 or 1")
        _check_class_num(owner, class_num, y_pred.shape[1])




def _is_binary(a):
    return bool(np.all((a == 0) | (a == 1)))


def _is_onehot(data):
    """True for 0/1 data (ndim > 1) with exactly one 1 along axis 1 everywhere."""
    return data.ndim > 1 and data.shape[1] > 0 and _is_binary(data) and \
        bool(np.all(data.sum(axis=1) == 1))


def _labels(y_pred, y):
    """Class-index labels: one-hot `y` (same ndim as `y_pred`) becomes its argmax on axis 1."""
    if y_pred.ndim == y.ndim and _is_onehot(y):
        return y.argmax(axis=1)
    return y


def _check_classification_shapes(owner, y_pred, y):
    if y_pred.ndim != y.ndim + 1 or y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
        raise ValueError(f"For '{owner}', y must have the shape of y_pred without its class "
                         f"axis 1 (or be one-hot of y_pred's shape), but got y_pred "
                         f"{y_pred.shape} and y {y.shape}")


def _check_class_num(owner, class_num, new):
    if class_num and new != class_num:
        raise ValueError(f"For '{owner}', class number not match: earlier predictions had "
                         f"{class_num} classes, this one has {new}")


def _class_indices(owner, y, class_num, what="labels"):
    """`y` as int64 class indices, checked to be whole numbers in [0, class_num)."""
    if y.size == 0:
        return y.astype(np.int64)
    if y.dtype.kind not in "iub":
        if y.dtype.kind != "f" or not np.all(np.isfinite(y)) or np.any(y != np.round(y)):
            raise ValueError(f"For '{owner}', the {what} must be class indices (whole "
                             f"numbers), but got dtype {y.dtype} with non-integral values")
    lo, hi = y.min(), y.max()
    if lo < 0 or hi >= class_num:
        raise ValueError(f"For '{owner}', the {what} must lie in [0, {class_num}) for "
                         f"{class_num} predicted classes, but got values in [{lo}, {hi}]")
    return y.astype(np.int64)
