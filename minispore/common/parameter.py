"""Parameter: a named, trainable Tensor; ParameterTuple; `no_init_parameters`."""
import contextlib
import itertools

import numpy as np

from . import _writes
from . import dtype as mstype
from .initializer import initializer
from .tensor import LazyValues, Tensor, _LazyTensor, _to_array

__all__ = ["Parameter", "ParameterTuple", "no_init_parameters"]

_unnamed = itertools.count(1)


class Parameter(Tensor):
    """A Tensor that a Cell owns and optimizers update in place.

    Args:
        default_input: Tensor, NumPy array (dtype kept), Python scalar (float gives float32,
            int gives int32) or an `initializer(...)` result.
        name (str): the name; unnamed parameters are `Parameter#N` until a Cell names them.
        requires_grad (bool): whether `trainable_params()` lists it.

    Arithmetic on a Parameter returns a plain Tensor.
    """

    # A parameter's tracking lives on the thread's tape (Tape.params), not on the object, so two
    # threads may differentiate with respect to the same parameter at once: its `_tape` and `_slot`
    # are properties that the tape (_autodiff/tape.py, a layer above) gives this class.
    __slots__ = ("name", "_requires_grad", "layerwise_parallel", "parallel_optimizer",
                 "_explicit_name")

    # False inside `no_init_parameters()`: a parameter made from an initializer keeps it
    # undrawn until first needed.
    init_param = True
    # True inside `DeviceCtx("meta")`: a new parameter has a shape and dtype but no values.
    _on_meta = False

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        lazy = type(default_input) is _LazyTensor
        if lazy and (Parameter._on_meta or not Parameter.init_param):
            data = _data_slot.__get__(default_input)  # the recipe, drawn later
        elif isinstance(default_input, (Tensor, np.ndarray)) or isinstance(default_input, list):
            data = _to_array(default_input, None)
        elif isinstance(default_input, bool):
            data = np.asarray(default_input)
        elif isinstance(default_input, int):
            data = np.asarray(default_input, np.int32)
        elif isinstance(default_input, float):
            data = np.asarray(default_input, np.float32)
        else:
            raise TypeError(f"For 'Parameter', 'default_input' must be a Tensor, NumPy array or "
                            f"Python scalar, but got {type(default_input).__name__}")
        if isinstance(data, np.ndarray) and data.dtype not in mstype.NP_TO_MS:
            raise TypeError(f"For 'Parameter', the dtype {mstype.storage_type(data.dtype)} is "
                            f"storage-only: convert the values first, e.g. with astype")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"For 'Parameter', 'name' must be a str, but got "
                            f"{type(name).__name__}")
        self._data = data
        self._version = 0
        self._explicit_name = name is not None
        self.name = name if name is not None else f"Parameter#{next(_unnamed)}"
        self.requires_grad = requires_grad
        self.layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = parallel_optimizer
        if Parameter._on_meta:
            data = _data_slot.__get__(self)
            _data_slot.__set__(self, _OnMeta(data.shape, data.dtype, lazy))
            self.__class__ = _LazyParameter
        elif lazy and not Parameter.init_param:
            self.__class__ = _LazyParameter

    def requires_grad_(self, requires_grad=True):
        """Set `requires_grad` (whether `trainable_params()` lists it). Returns None, as
        MindSpore 2.10 does."""
        self.requires_grad = bool(requires_grad)

    @property
    def requires_grad(self):
        """Whether the parameter is trained (listed by `Cell.trainable_params()`)."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"For 'Parameter', 'requires_grad' must be a bool, but got "
                            f"{type(value).__name__}")
        self._requires_grad = bool(value)

    @property
    def data(self):
        """The value as a Tensor sharing this parameter's memory."""
        return Tensor.from_numpy(self._data)

    def value(self):
        """A copy of the value, as a Tensor (later writes to the parameter do not show in it)."""
        return Tensor(self._data)

    def set_data(self, data, slice_shape=False, sliced_shape=None):
        """Replace the value in place, keeping this parameter's dtype; the shape may change.
        Returns the parameter."""
        if isinstance(data, Tensor):
            arr = data._data
        elif isinstance(data, (np.ndarray, int, float, bool, list)):
            arr = _to_array(data, None)
        else:
            raise TypeError(f"For 'Parameter.set_data', 'data' must be a Tensor, NumPy array or "
                            f"number, but got {type(data).__name__}")
        arr = arr.astype(self._data.dtype)  # always a copy: no aliasing with `data`
        _writes.record(self, in_place=False)
        self._data = arr
        _writes.bump_version(self)
        return self

    def assign_value(self, value):
        """Write `value` into this parameter (same shape), in place."""
        arr = value._data if isinstance(value, Tensor) else np.asarray(value)
        try:
            fits = np.broadcast_shapes(arr.shape, self._data.shape) == self._data.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"For 'Parameter.assign_value', the value's shape {arr.shape} does "
                             f"not match the parameter's shape {self._data.shape}")
        self._write(arr)
        return self

    def _write(self, arr):
        """In-place write of an array of this parameter's shape (optimizers, loaders)."""
        _writes.record(self)
        if not self._data.flags.writeable:
            self._data = self._data.copy()
        np.copyto(self._data, arr, casting="unsafe")
        _writes.bump_version(self)

    def clone(self, init="same"):
        """A new Parameter with the same name: a copy of the value (`init='same'`), or filled
        by `init` (an initializer name such as 'zeros', an Initializer or a number)."""
        if isinstance(init, str) and init == "same":
            data = self._data.copy()
        else:
            data = initializer(init, self._data.shape, self.dtype)._data
        p = Parameter(data, self.name, self.requires_grad, self.layerwise_parallel,
                      self.parallel_optimizer)
        p._explicit_name = self._explicit_name
        return p

    def copy(self):
        return self.clone()

    def __repr__(self):
        return (f"Parameter (name={self.name}, shape={self._data.shape}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    __str__ = __repr__

    def __reduce__(self):
        return (Parameter, (self._data, self.name, self.requires_grad))


_data_slot = Tensor._data


class _OnMeta:
    """The recipe of a parameter made on the 'meta' device: a shape and dtype, no values."""
    __slots__ = ("shape", "dtype", "has_init")

    def __init__(self, shape, dtype, has_init):
        self.shape, self.dtype, self.has_init = shape, np.dtype(dtype), has_init

    def draw(self):
        raise RuntimeError("Not support copy between src:meta and dst:CPU: a parameter made "
                           "on the 'meta' device has no values until 'Cell.to_empty' or "
                           "'set_data' gives it some")


class _LazyParameter(LazyValues, Parameter):
    """A Parameter made inside `no_init_parameters()` from an initializer, or on the 'meta'
    device: it knows its shape and dtype, and draws its values when they are first read (any
    op, `init_data`, `Cell.init_parameters_data`; on 'meta' that raises RuntimeError);
    `set_data` and `Cell.to_empty` give it values without drawing."""
    __slots__ = ()
    _plain = Parameter

    @property
    def has_init(self):
        return getattr(_data_slot.__get__(self), "has_init", True)

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None):
        if type(_data_slot.__get__(self)) is not _OnMeta:  # on 'meta' there is nothing to draw
            self._data  # noqa: B018  (reading it draws the values)
        return self

    def set_data(self, data, slice_shape=False, sliced_shape=None):
        pending = _data_slot.__get__(self)
        # replaced before ever drawn: the dtype comes from the recipe, untouched pages stand in
        _data_slot.__set__(self, np.empty(pending.shape, pending.dtype))
        self.__class__ = Parameter
        try:
            return Parameter.set_data(self, data, slice_shape, sliced_shape)
        except BaseException:
            _data_slot.__set__(self, pending)
            self.__class__ = _LazyParameter
            raise

    def __repr__(self):
        return (f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    __str__ = __repr__


def on_meta(p):
    """Whether Parameter `p` lives on the 'meta' device (a shape and dtype, no values)."""
    return type(p) is _LazyParameter and type(_data_slot.__get__(p)) is _OnMeta


@contextlib.contextmanager
def no_init_parameters():
    """Parameters made from an initializer inside the block are not drawn: each keeps its
    initializer until its values are first needed, `init_data()` or
    `Cell.init_parameters_data()` draws them, or `set_data` replaces them. Parameters made from
    values (a Tensor, an array) are unaffected."""
    Parameter.init_param = False
    try:
        yield
    finally:
        Parameter.init_param = True


class ParameterTuple(tuple):
    """A tuple of Parameters with unique names; accepted wherever a weights list is."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        seen = set()
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"For 'ParameterTuple', every element must be a Parameter, but "
                                f"got {type(p).__name__}")
            if p.name in seen:
                raise ValueError(f"For 'ParameterTuple', the name {p.name!r} appears twice: "
                                 "parameter names must be unique")
            seen.add(p.name)
        return super().__new__(cls, items)

    def clone(self, prefix, init="same"):
        """New Parameters named `prefix.name`: copies of these, or filled by `init`."""
        out = []
        for p in self:
            q = p.clone(init)
            q.name = f"{prefix}.{p.name}"
            out.append(q)
        return ParameterTuple(out)

