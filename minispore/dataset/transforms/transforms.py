"""General transforms (`mindspore.dataset.transforms`): TypeCast, OneHot, Fill, Duplicate,
Compose, RandomApply, RandomChoice. Each is callable on NumPy arrays, eagerly or in `map`."""
import numbers

import numpy as np

from ..._validator import check_callable, check_float_range, check_positive_int, check_sequence
from ...common import dtype as mstype
from ...common.tensor import Tensor
from .._parallel import current_rng

__all__ = ["Compose", "Duplicate", "Fill", "OneHot", "RandomApply", "RandomChoice",
           "TensorOperation", "TypeCast"]


def _to_array(owner, x, name="input"):
    """A NumPy array of a transform input: arrays, Tensors, PIL images, numbers, lists."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, Tensor):
        return x.asnumpy()
    if type(x).__module__.startswith("PIL.") and hasattr(x, "__array_interface__"):
        return np.asarray(x)
    if isinstance(x, (numbers.Number, np.generic, list, tuple, bytes, str)):
        try:
            arr = np.asarray(x)
        except ValueError as e:
            raise ValueError(f"For '{owner}', the {name} cannot be made one array: {e}") from None
        if arr.dtype.kind in "biufcUS":
            return arr
    raise TypeError(f"For '{owner}', the {name} must be a NumPy array, but got "
                    f"{type(x).__name__}")


class TensorOperation:
    """Base of the transforms: `__call__` takes NumPy arrays (also Tensors and PIL images) and
    returns NumPy arrays; `_apply` does the work on arrays."""

    _random = False  # draws random numbers (from the pipeline's per-chunk generator)

    def __call__(self, *input_tensor_list):
        name = type(self).__name__
        arrays = [_to_array(name, x) for x in input_tensor_list]
        return self._apply(*arrays)

    def _apply(self, *arrays):
        raise NotImplementedError(f"{type(self).__name__} must define _apply")

    def __repr__(self):
        return f"{type(self).__name__}()"


class TypeCast(TensorOperation):
    """Cast to `data_type` (a MindSpore dtype such as `mindspore.int32`, or a NumPy dtype).

    Example:
        >>> TypeCast(mindspore.int32)(np.array([1.7, 2.2]))
        array([1, 2], dtype=int32)
    """

    def __init__(self, data_type):
        try:
            self.data_type = data_type
            self._np = mstype.to_np(data_type)
        except TypeError:
            raise TypeError(f"For 'TypeCast', 'data_type' must be a MindSpore or NumPy dtype, "
                            f"but got {data_type!r}") from None

    def _apply(self, x):
        return x.astype(self._np)


class OneHot(TensorOperation):
    """One-hot encode integer labels: a new last axis of length `num_classes`, in the label's
    dtype; with `smoothing_rate` s the values are (1 - s) * onehot + s / num_classes, float64.

    Labels outside [0, num_classes) raise ValueError (MindSpore 2.10 gives a zero row for -1 and
    crashes the process on float labels).
    """

    def __init__(self, num_classes, smoothing_rate=0.0):
        self.num_classes = check_positive_int(num_classes, "num_classes", "OneHot")
        self.smoothing_rate = check_float_range(smoothing_rate, "smoothing_rate", "OneHot", 0.0,
                                                1.0)

    def _apply(self, x):
        if x.dtype.kind not in "iu":
            raise TypeError(f"For 'OneHot', the labels must be integers, but got dtype {x.dtype}")
        if x.size and (x.min() < 0 or x.max() >= self.num_classes):
            bad = x[(x < 0) | (x >= self.num_classes)].reshape(-1)[0]
            raise ValueError(f"For 'OneHot', label {int(bad)} is outside [0, {self.num_classes})")
        hot = np.arange(self.num_classes) == x[..., None]
        if self.smoothing_rate:
            s = self.smoothing_rate
            return hot * (1.0 - s) + s / self.num_classes
        return hot.astype(x.dtype)


class Fill(TensorOperation):
    """An array of the input's shape and dtype filled with `fill_value`."""

    def __init__(self, fill_value):
        if isinstance(fill_value, bool) or not isinstance(fill_value, (numbers.Number, str,
                                                                         bytes)):
            raise TypeError(f"For 'Fill', 'fill_value' must be a number or str, but got "
                            f"{type(fill_value).__name__}")
        self.fill_value = fill_value

    def _apply(self, x):
        try:
            return np.full_like(x, self.fill_value)
        except (ValueError, TypeError):
            raise TypeError(f"For 'Fill', 'fill_value' {self.fill_value!r} cannot fill an array "
                            f"of dtype {x.dtype}") from None


class Duplicate(TensorOperation):
    """Two columns from one: the input and a copy of it."""

    def _apply(self, x):
        return x, x.copy()


def _check_transforms(owner, transforms):
    return list(check_sequence(transforms, "transforms", owner, check_callable, non_empty=True,
                               expected="a non-empty list of callables"))


def _run(transforms, args):
    for t in transforms:
        out = t(*args)
        args = out if isinstance(out, tuple) else (out,)
    return args[0] if len(args) == 1 else args


class Compose(TensorOperation):
    """Apply `transforms` in order; a transform returning a tuple feeds several arguments to
    the next. Python callables may be mixed in."""

    def __init__(self, transforms):
        self.transforms = _check_transforms("Compose", transforms)

    def __call__(self, *input_tensor_list):
        return _run(self.transforms, input_tensor_list)


class RandomApply(TensorOperation):
    """With probability `prob`, apply `transforms` in order; else pass the input through."""

    _random = True

    def __init__(self, transforms, prob=0.5):
        self.transforms = _check_transforms("RandomApply", transforms)
        self.prob = check_float_range(prob, "prob", "RandomApply", 0.0, 1.0)

    def __call__(self, *input_tensor_list):
        if current_rng().random() < self.prob:
            return _run(self.transforms, input_tensor_list)
        return input_tensor_list[0] if len(input_tensor_list) == 1 else input_tensor_list


class RandomChoice(TensorOperation):
    """Apply one of `transforms`, chosen uniformly at random."""

    _random = True

    def __init__(self, transforms):
        self.transforms = _check_transforms("RandomChoice", transforms)

    def __call__(self, *input_tensor_list):
        t = self.transforms[int(current_rng().integers(len(self.transforms)))]
        return _run([t], input_tensor_list)
