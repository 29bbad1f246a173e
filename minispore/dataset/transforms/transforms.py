"""General transforms (`mindspore.dataset.transforms`): TypeCast, OneHot, Fill, Duplicate,
Compose, RandomApply, RandomChoice, RandomOrder, Concatenate, Mask, PadEnd, Slice, Unique. Each
is callable on NumPy arrays, eagerly or in `map`."""
import enum
import numbers

import numpy as np

from ..._validator import (check_callable, check_float_range, check_int, check_positive_int,
                           check_sequence, is_int)
from ...common import dtype as mstype
from ...common.tensor import Tensor
from .._parallel import current_rng

__all__ = ["Compose", "Concatenate", "Duplicate", "Fill", "Mask", "OneHot", "PadEnd",
           "RandomApply", "RandomChoice", "RandomOrder", "Relational", "Slice", "TensorOperation",
           "TypeCast", "Unique", "not_random"]


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


class RandomOrder(TensorOperation):
    """Apply all of `transforms`, in a random order."""

    _random = True

    def __init__(self, transforms):
        self.transforms = _check_transforms("RandomOrder", transforms)

    def __call__(self, *input_tensor_list):
        order = current_rng().permutation(len(self.transforms))
        return _run([self.transforms[int(k)] for k in order], input_tensor_list)


def not_random(function):
    """Mark a Python transform function as deterministic (MindSpore's pipeline optimizations
    use the mark; here it is recorded as `function.random = False`)."""
    check_callable(function, "function", "not_random")
    function.random = False
    return function


class Relational(enum.IntEnum):
    """Comparisons of Mask: EQ, NE, GT, GE, LT, LE."""
    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_RELATIONS = {Relational.EQ: np.equal, Relational.NE: np.not_equal, Relational.GT: np.greater,
              Relational.GE: np.greater_equal, Relational.LT: np.less,
              Relational.LE: np.less_equal}


def _is_text(arr):
    return arr.dtype.kind in "US"


def _as_text(arr):
    return np.char.decode(arr, "utf-8") if arr.dtype.kind == "S" else arr


class Mask(TensorOperation):
    """`input <operator> constant` elementwise, as `dtype` (bool by default). Numbers compare
    with numbers and strings with strings.

    Example:
        >>> Mask(Relational.GE, 2)(np.array([1, 2, 3]))
        array([False,  True,  True])
    """

    def __init__(self, operator, constant, dtype=mstype.bool_):
        if not isinstance(operator, Relational):
            raise TypeError(f"For 'Mask', the 'operator' must be a Relational, but got "
                            f"{operator!r}")
        if isinstance(constant, bool) or not isinstance(constant, (numbers.Number, str, bytes)):
            raise TypeError(f"For 'Mask', the 'constant' must be a number or str, but got "
                            f"{type(constant).__name__}")
        try:
            self._np = mstype.to_np(dtype)
        except TypeError:
            raise TypeError(f"For 'Mask', the 'dtype' must be a MindSpore dtype, but got "
                            f"{dtype!r}") from None
        self.operator, self.constant, self.dtype = operator, constant, dtype

    def _apply(self, x):
        const = self.constant
        if _is_text(x) != isinstance(const, (str, bytes)):
            raise RuntimeError("For 'Mask', the input and the 'constant' must both be numbers or "
                               f"both be strings, but got dtype {x.dtype} and {const!r}")
        if _is_text(x):
            x = _as_text(x)
            const = const.decode("utf-8") if isinstance(const, bytes) else const
        else:
            const = np.asarray(const).astype(x.dtype)
        return _RELATIONS[self.operator](x, const).astype(self._np)


def _optional_1d(arg, value):
    if value is None:
        return None
    arr = _to_array("Concatenate", value, arg)
    if arr.ndim != 1:
        raise ValueError(f"For 'Concatenate', the '{arg}' must be a 1-D array, but got shape "
                         f"{arr.shape}")
    return arr


class Concatenate(TensorOperation):
    """`prepend`, the input and `append` joined along the (only) axis of 1-D arrays."""

    def __init__(self, axis=0, prepend=None, append=None):
        axis = check_int(axis, "axis", "Concatenate")
        if axis not in (0, -1):
            raise ValueError(f"For 'Concatenate', only 1-D concatenation is supported: 'axis' "
                             f"must be 0 or -1, but got {axis}")
        self.axis = axis
        self.prepend = _optional_1d("prepend", prepend)
        self.append = _optional_1d("append", append)

    def _apply(self, x):
        if x.ndim != 1:
            raise RuntimeError(f"For 'Concatenate', the input must be 1-D, but got shape "
                               f"{x.shape}")
        parts = [p for p in (self.prepend, x, self.append) if p is not None]
        for p in parts:
            same = _is_text(p) == _is_text(x) and (_is_text(x) or p.dtype == x.dtype)
            if not same:
                raise RuntimeError(f"For 'Concatenate', the input dtype {x.dtype} does not match "
                                   f"the prepend/append dtype {p.dtype}")
        if _is_text(x):
            parts = [_as_text(p) for p in parts]
        return np.concatenate(parts)


class PadEnd(TensorOperation):
    """Pad (or cut) each axis at its end to `pad_shape` (None keeps an axis), with `pad_value`
    (0 or '' by default).

    Example:
        >>> PadEnd([4], -1)(np.array([1, 2]))
        array([ 1,  2, -1, -1])
    """

    def __init__(self, pad_shape, pad_value=None):
        shape = check_sequence(pad_shape, "pad_shape", "PadEnd")
        for k, s in enumerate(shape):
            if s is not None:
                check_positive_int(s, f"pad_shape[{k}]", "PadEnd")
        if pad_value is not None and (isinstance(pad_value, bool) or
                                      not isinstance(pad_value, (numbers.Number, str, bytes))):
            raise TypeError(f"For 'PadEnd', the 'pad_value' must be a number or str, but got "
                            f"{type(pad_value).__name__}")
        self.pad_shape, self.pad_value = list(shape), pad_value

    def _apply(self, x):
        if x.ndim != len(self.pad_shape):
            raise RuntimeError(f"For 'PadEnd', the input has rank {x.ndim} but 'pad_shape' has "
                               f"{len(self.pad_shape)} dims")
        value = self.pad_value
        if value is not None and _is_text(x) != isinstance(value, (str, bytes)):
            raise RuntimeError(f"For 'PadEnd', cannot pad a {x.dtype} array with {value!r}: "
                               f"numbers pad numbers and strings pad strings")
        if _is_text(x):
            x = _as_text(x)
            value = "" if value is None else (value.decode("utf-8") if isinstance(value, bytes)
                                              else value)
            dtype = np.result_type(x.dtype, np.array(value).dtype)
        else:
            value, dtype = (0 if value is None else value), x.dtype
        shape = tuple(n if s is None else s for n, s in zip(x.shape, self.pad_shape))
        out = np.full(shape, value, dtype=dtype)
        keep = tuple(slice(0, min(n, s)) for n, s in zip(x.shape, shape))
        out[keep] = x[keep]
        return out


def _check_slice(k, s):
    if s is None or s is Ellipsis or isinstance(s, slice) or is_int(s):
        return s
    if isinstance(s, (list, tuple)) and all(is_int(i) for i in s):
        return list(s)
    raise TypeError(f"For 'Slice', slices[{k}] must be an int, a list of ints, a slice, None or "
                    f"Ellipsis, but got {s!r}")


class Slice(TensorOperation):
    """Index the input with one item per axis: an int (the axis is kept, of length 1), a list
    of indices, a slice, None (the whole axis) or Ellipsis.

    Example:
        >>> Slice(1, [0, 2])(np.arange(9).reshape(3, 3))
        array([[3, 5]])
    """

    def __init__(self, *slices):
        self.slices = [_check_slice(k, s) for k, s in enumerate(slices)]

    def _apply(self, x):
        items = []
        for s in self.slices:
            if s is None:
                items.append(slice(None))
            elif is_int(s):
                items.append([int(s)])
            else:
                items.append(s)
        out = x
        axis = 0
        for pos, item in enumerate(items):
            if item is Ellipsis:
                axis = x.ndim - (len(items) - pos - 1)
                continue
            if axis >= out.ndim:
                raise RuntimeError(f"For 'Slice', {len(items)} slices for an array of rank "
                                   f"{x.ndim}")
            index = (slice(None),) * axis + (item,)
            try:
                out = out[index]
            except IndexError as e:
                raise RuntimeError(f"For 'Slice', {e}") from None
            axis += 1
        return out.copy()


class Unique(TensorOperation):
    """The unique values of a numeric array (flattened), in order of first appearance, with the
    index of each element's value among them (int32) and their counts (int32)."""

    def _apply(self, x):
        if x.dtype.kind not in "biuf":
            raise RuntimeError(f"For 'Unique', the input must be numeric, but got dtype "
                               f"{x.dtype}")
        if x.ndim < 2:
            raise RuntimeError(f"For 'Unique', the input must be at least 2-D (as in MindSpore "
                               f"2.10), but got rank {x.ndim}")
        flat = x.reshape(-1)
        values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True,
                                                   return_counts=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return (values[order], rank[inverse.reshape(-1)].astype(np.int32),
                counts[order].astype(np.int32))
