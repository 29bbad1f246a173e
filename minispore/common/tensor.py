"""Tensor: a slotted holder of one NumPy array; operators and methods are bound by `ops`."""
import sys

import numpy as np

from . import dtype as mstype

__all__ = ["Tensor", "tensor", "from_numpy", "is_tensor", "frombuffer"]

_float32 = np.dtype(np.float32)
_float64 = np.dtype(np.float64)
_int64 = np.dtype(np.int64)


class Tensor:
    """A multi-dimensional array with MindSpore's API.

    Args:
        input_data: a Python scalar, (nested) list or tuple, NumPy array or scalar, or Tensor
            (always copied; `from_numpy` shares memory). Python floats give float32, Python ints
            int64; NumPy inputs keep their dtype, except that sequences turn float64 into
            float32 and int32 into int64, as MindSpore does.
        dtype: a `minispore` dtype (or NumPy dtype) to cast to; float to int truncates.
        shape, init: `Tensor(shape=(2, 3), dtype=float32, init=One())` is lazy, as in
            MindSpore: it prints `<uninitialized>` and its values are drawn from `init` when
            `init_data()` runs or when the values are first read; without `init` it is zeros.

    Raises:
        TypeError: `input_data` is missing or not numeric (a str, None, a str array).
        ValueError: a ragged nested sequence, or a Python int out of the int64 range.

    Example:
        >>> Tensor([1.5, 2.0])
        Tensor(shape=[2], dtype=Float32, value= [ 1.50000000e+00,  2.00000000e+00])
    """

    # _tape/_slot: the token of the tape that recorded this value and its slot there (_tape is
    # None for constants); _version: the write clock's reading at this tensor's last in-place
    # write (0 if never written). Never the tape itself, never parent tensors. _hooks: the
    # register_hook table, set only on tensors that have had a hook (read with getattr).
    __slots__ = ("_data", "_tape", "_slot", "_version", "_hooks", "__weakref__")
    __array_ufunc__ = None  # NumPy operands defer to Tensor's reflected operators

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg=False):
        self._tape = None
        self._version = 0
        if shape is not None or init is not None:
            self._data = _from_shape(input_data, dtype, shape, init)
            if type(self) is Tensor and isinstance(self._data, _Pending):
                self.__class__ = _LazyTensor
            return
        if input_data is None:
            raise TypeError("For 'Tensor', 'input_data' must be given (or 'shape' and 'dtype', "
                            "with an optional 'init')")
        np_dtype = None if dtype is None else mstype.storage_np(dtype) or mstype.to_np(dtype)
        self._data = _to_array(input_data, np_dtype)
        if self._data.dtype not in mstype.NP_TO_MS:  # float8
            _to_storage(self)

    # ---- basic properties -----------------------------------------------------------------
    @property
    def shape(self):
        """Tuple of dimension sizes."""
        return self._data.shape

    @property
    def dtype(self):
        """The MindSpore dtype, e.g. `mindspore.float32`."""
        return mstype.NP_TO_MS[self._data.dtype]

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        """Number of elements."""
        return self._data.size

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    @property
    def strides(self):
        """Bytes between consecutive elements along each axis of the contiguous layout of this
        shape; MindSpore reports these also for views and transposes."""
        step = self.itemsize
        strides = []
        for n in reversed(self.shape):
            strides.append(step)
            step *= n
        return tuple(reversed(strides))

    def is_contiguous(self):
        """Whether the value is laid out contiguously (False for transposes and strided views)."""
        return self._data.flags.c_contiguous

    @property
    def has_init(self):
        return False

    def requires_grad_(self, requires_grad=True):
        """A Parameter sets its `requires_grad`. A plain Tensor has no gradient flag here
        (transforms differentiate by argument position), so nothing changes. Returns None, as
        MindSpore 2.10 does."""
        return None

    def dim(self):
        return self.ndim

    def numel(self):
        return self.size

    nelement = numel

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None):
        """Returns self, its values drawn (see `Tensor(shape=..., init=...)`)."""
        return self

    # ---- conversion ----------------------------------------------------------------------
    def asnumpy(self):
        """The value as a NumPy array of the same dtype."""
        a = self._data
        return a if a.flags.writeable else a.copy()

    def __array__(self, dtype=None, copy=None):
        a = self._data
        return a if dtype is None else a.astype(dtype, copy=False)

    def item(self, index=None):
        """The single element (or the element at `index`) as a Python scalar."""
        a = self._data
        if index is None and a.size != 1:
            raise ValueError(
                f"For 'Tensor.item', the tensor should have only one element, but got {a.size}")
        return a.item() if index is None else a.item(index)

    def tolist(self):
        return self._data.tolist()

    def __len__(self):
        if not self.shape:
            raise TypeError("Not support len of a 0-D tensor")
        return self.shape[0]

    def __bool__(self):
        a = self._data
        if a.size != 1:
            raise ValueError(f"The tensor should have only one element, but got {a.size}, "
                             "more than one element is ambiguous.")
        return bool(a)

    def __float__(self):
        return float(self._single("float"))

    def __int__(self):
        return int(self._single("int"))

    def __index__(self):
        if self._data.dtype.kind not in "iub":
            raise TypeError(f"only integer tensors can be used as an index, got {self.dtype}")
        return int(self._single("index"))

    def __complex__(self):
        return complex(self._single("complex"))

    def _single(self, what):
        a = self._data
        if a.size != 1:
            raise ValueError(f"only one element tensors can be converted to Python {what}, "
                             f"got shape {a.shape}")
        return a.reshape(()).item()

    def __hash__(self):
        return id(self)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        getitem = type(self).__getitem__
        return (getitem(self, i) for i in range(self._data.shape[0]))

    def __format__(self, spec):
        if spec:
            raise TypeError(f"unsupported format string passed to Tensor.__format__: {spec!r}")
        return str(self)

    # ---- printing (as MindSpore 2.10 prints) ---------------------------------------------------
    def __str__(self):
        """NumPy's text of the value (`[1.5 2.  3. ]`, `2.5`), as MindSpore's `print(t)`."""
        return str(self._data)

    def __repr__(self):
        """`Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])`, values in MindSpore's layout."""
        a = self._data
        head = f"Tensor(shape={list(a.shape)}, dtype={self.dtype}, value="
        return f"{head}{chr(10) if a.ndim > 1 else ' '}{_repr_value(a)})"

    def __reduce__(self):
        return (Tensor, (self._data,))


# ---- repr's value text -----------------------------------------------------------------------
# MindSpore prints values with its own C++ printer, not NumPy's: floats in scientific notation
# right-aligned in a fixed width (8 decimals, 4 for float16), integers padded to the widest printed
# one, bools in width 5, complex numbers unpadded; axes longer than 6 (in tensors of rank >= 2) or
# 1000 (1-D) cut to their first and last 3 with `...`; no blank lines between blocks; 1-D values
# broken onto a new line after every 12 floats or bools (24 other numbers). 0-d values print as a
# C++ stream prints a number (6 significant digits).

_EDGE = 3
_ELIDE_OVER = 6
_ELIDE_OVER_1D = 1000


def _repr_value(a, kind=None):
    """The value text of `a`; `kind` "V" marks a storage-only (float8) array."""
    kind = kind or a.dtype.kind
    if a.ndim == 0:
        return _scalar_text(a.item(), kind)
    if a.size == 0:
        return ""
    limit = _ELIDE_OVER if a.ndim > 1 else _ELIDE_OVER_1D
    elided = tuple(n > limit for n in a.shape)
    if True in elided:
        a = a[np.ix_(*[np.r_[0:_EDGE, n - _EDGE:n] if cut else np.arange(n)
                       for n, cut in zip(a.shape, elided)])]
    texts = _element_texts(a, kind)
    line_every = 0 if a.ndim > 1 or elided[0] else (12 if kind in "fb" else 24)
    return _render(a.shape, elided, iter(texts), 0, line_every)


def _element_texts(a, kind):
    values = a.ravel().tolist()
    if kind == "f":
        digits = 4 if a.dtype.itemsize == 2 else 8
        fmt = f"%{digits + 7}.{digits}e"
        return [fmt % v for v in values]
    if kind == "b":
        return [" True" if v else "False" for v in values]
    if kind == "c":
        return [_complex_text(v) for v in values]
    texts = ["%g" % v for v in a.astype(_float64).ravel().tolist()] if kind == "V" else \
        [str(v) for v in values]
    width = max(map(len, texts))
    return [t.rjust(width) for t in texts]


def _render(shape, elided, texts, depth, line_every):
    """The bracketed text of one block (axis `depth` on) from the iterator of element texts."""
    n = shape[depth]
    if depth == len(shape) - 1:
        row = [next(texts) for _ in range(n)]
        if elided[depth]:
            return "[" + ", ".join(row[:_EDGE]) + " ... " + ", ".join(row[_EDGE:]) + "]"
        if not line_every:
            return "[" + ", ".join(row) + "]"
        parts = []
        for i, text in enumerate(row):
            parts.append(text if i == n - 1 else text + ", ")
            if (i + 1) % line_every == 0:
                parts.append("\n ")
        return "[" + "".join(parts) + "]"
    indent = " " * (depth + 1)
    separator = ",\n" + indent
    blocks = [_render(shape, elided, texts, depth + 1, line_every) for _ in range(n)]
    if elided[depth]:
        return ("[" + separator.join(blocks[:_EDGE]) + separator + "...\n" + indent
                + separator.join(blocks[_EDGE:]) + "]")
    return "[" + separator.join(blocks) + "]"


def _scalar_text(v, kind):
    if kind in "fV":
        return "%g" % v
    if kind == "c":
        return _complex_text(v)
    return str(v)


def _complex_text(v):
    im = v.imag
    return "%g%s%gj" % (v.real, "-" if im < 0 else "+", abs(im))


# ---- construction ------------------------------------------------------------------------------

def _to_array(data, np_dtype):
    """NumPy array for `data` with MindSpore's default dtypes, copied, cast to np_dtype if given."""
    if isinstance(data, Tensor):
        arr = _data_slot.__get__(data) if type(data) is StorageTensor else data._data
        return arr.astype(np_dtype) if np_dtype is not None else arr.copy()
    if isinstance(data, np.ndarray):
        if data.dtype not in mstype.NP_TO_MS:
            data = _supported_array(data)
        return data.astype(np_dtype) if np_dtype is not None else data.copy()
    if isinstance(data, np.generic):
        arr = np.asarray(data)
        if arr.dtype not in mstype.NP_TO_MS:
            arr = _supported_array(arr)
    elif isinstance(data, bool):
        arr = np.asarray(data, np.bool_)
    elif isinstance(data, int):
        try:
            arr = np.asarray(data, _int64)
        except OverflowError:
            raise ValueError(f"For 'Tensor', the Python int {data} is out of the int64 "
                             "range") from None
    elif isinstance(data, float):
        # Straight to float64 when a dtype is given: Tensor(0.1, float64) keeps all its digits.
        arr = np.asarray(data, _float32 if np_dtype is None else _float64)
    elif isinstance(data, complex):
        arr = np.asarray(data, np.complex128)
    elif isinstance(data, (list, tuple)):
        arr = _sequence_to_array(data, np_dtype is None)
    else:
        raise TypeError(f"For 'Tensor', 'input_data' must be a number, list, tuple, NumPy array "
                        f"or Tensor, but got {type(data).__name__}")
    return arr if np_dtype is None or arr.dtype == np_dtype else arr.astype(np_dtype)


def _supported_array(arr):
    """`arr` in native byte order; TypeError for dtypes MindSpore has no tensors of."""
    if mstype.storage_type(arr.dtype) is not None:
        return arr
    if arr.dtype.kind not in "biufc":
        raise TypeError(f"For 'Tensor', NumPy arrays of dtype {arr.dtype} are not supported: "
                        "tensors hold bool, integer, float or complex numbers")
    return arr.astype(arr.dtype.newbyteorder("="))


# A sequence is converted by NumPy, then float64 and int32 narrow or widen to MindSpore's
# defaults, whether the numbers were Python floats, NumPy scalars or 0-d Tensors, as MindSpore
# does (`Tensor([np.float64(1), 2])` is float32); other dtypes (float16, uint8, ...) stay.
_SEQUENCE_DEFAULT = {np.dtype(np.float64): _float32, np.dtype(np.int32): _int64}


def _sequence_to_array(data, narrow):
    try:
        arr = np.array(_unwrap(data))
    except ValueError:  # NumPy >= 2 refuses ragged nesting
        raise ValueError(f"For 'Tensor', 'input_data' must be a rectangular nested sequence "
                         f"(every row the same length), but got {_short(data)}") from None
    except OverflowError:
        raise ValueError(f"For 'Tensor', 'input_data' holds a Python int out of the int64 range: "
                         f"{_short(data)}") from None
    kind = arr.dtype.kind
    if kind not in "biufc":
        if kind == "O" and all(isinstance(v, (int, float, complex)) for v in arr.ravel()):
            raise ValueError(f"For 'Tensor', 'input_data' holds a Python int out of the int64 "
                             f"range: {_short(data)}")
        raise TypeError(f"For 'Tensor', 'input_data' must hold only numbers (or Tensors), but "
                        f"got {_short(data)}")
    if not narrow:  # a dtype follows: cast from NumPy's widest result, not from float32
        return arr
    target = _SEQUENCE_DEFAULT.get(arr.dtype)
    return arr if target is None else arr.astype(target)


def _short(data):
    text = repr(data)
    return text if len(text) <= 80 else text[:77] + "..."


def _unwrap(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap(v) for v in data]
    return data


def _from_shape(input_data, dtype, shape, init):
    """The array of `Tensor(shape=..., dtype=..., init=...)`: drawn from `init` at once, or zeros
    without one."""
    if input_data is not None:
        raise ValueError(f"For 'Tensor', 'shape' and 'init' are for tensors made without "
                         f"'input_data', but got both input_data and shape={shape}, init={init}")
    if shape is None or dtype is None:
        raise ValueError(f"For 'Tensor', a tensor made from 'shape' and 'init' needs both "
                         f"'shape' and 'dtype', but got shape={shape}, dtype={dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if init is None:
        if any(d is None or d == -1 for d in shape):  # declares a dynamic input (set_inputs, export)
            return _Pending(None, tuple(-1 if d is None else d for d in shape), dtype)
        return np.zeros(shape, mstype.to_np(dtype))
    return _Pending(init, shape, dtype)


class _Pending:
    """The recipe of a lazy tensor's values: drawn from `init` when first needed."""
    __slots__ = ("init", "shape", "dtype")

    def __init__(self, init, shape, dtype):
        self.init, self.shape, self.dtype = init, shape, mstype.to_np(dtype)

    def draw(self):
        if self.init is None:
            raise ValueError(f"For 'Tensor', a tensor of dynamic shape {list(self.shape)} holds no "
                             f"values: it only declares an input's shape (set_inputs, export)")
        return Tensor._values_from_init(self.init, self.shape, self.dtype)  # see initializer.py


_data_slot = Tensor._data


def _to_storage(t):
    """Makes the Tensor `t`, just filled with an array of a storage-only dtype, a StorageTensor."""
    if type(t) is not Tensor:
        raise TypeError(f"For '{type(t).__name__}', the dtype {_storage_dtype(t)} is storage-only: "
                        f"a {type(t).__name__} cannot hold it")
    t.__class__ = StorageTensor


def _storage_dtype(t):
    return mstype.storage_type(_data_slot.__get__(t).dtype)


class StorageTensor(Tensor):
    """A Tensor of a storage-only dtype (float8): it holds its values, prints them, converts them
    (`astype`, `Tensor(t, dtype)`, `asnumpy`, `item`, `tolist`) and reports its shape and dtype.
    Every operation reads `_data`, which raises a TypeError naming the operation."""
    __slots__ = ()

    @property
    def _data(self):
        raise TypeError(_storage_refusal(self))

    @_data.setter
    def _data(self, value):
        raise TypeError(_storage_refusal(self))

    @property
    def shape(self):
        return _data_slot.__get__(self).shape

    @property
    def dtype(self):
        return _storage_dtype(self)

    @property
    def size(self):
        return _data_slot.__get__(self).size

    @property
    def itemsize(self):
        return 1

    @property
    def nbytes(self):
        return _data_slot.__get__(self).nbytes

    def is_contiguous(self):
        return _data_slot.__get__(self).flags.c_contiguous

    def is_floating_point(self):
        return True

    def asnumpy(self):
        """The values as a NumPy array of ml_dtypes' float8 type."""
        return _data_slot.__get__(self).copy()

    def __array__(self, dtype=None, copy=None):
        a = _data_slot.__get__(self)
        return a if dtype is None else a.astype(dtype, copy=False)

    def astype(self, dtype, copy=True):
        """The values converted to `dtype` (rounded to nearest even for a float8 target); no
        gradient flows through a storage-only dtype."""
        return Tensor(self, dtype)

    to = astype

    def copy(self):
        return Tensor(self)

    clone = copy

    def view(self, dtype):
        """The values' bits as `dtype` (`t.view(mindspore.uint8)`: the float8 bit patterns)."""
        np_dtype = mstype.storage_np(dtype) or mstype.to_np(dtype)
        return Tensor(bits_as(_data_slot.__get__(self), np_dtype))

    def item(self, index=None):
        return self.astype(mstype.float32).item(index)

    def tolist(self):
        return self.astype(mstype.float32).tolist()

    def __str__(self):
        return str(_data_slot.__get__(self))

    def __repr__(self):
        a = _data_slot.__get__(self)
        head = f"Tensor(shape={list(a.shape)}, dtype={self.dtype}, value="
        return f"{head}{chr(10) if a.ndim > 1 else ' '}{_repr_value(a, 'V')})"

    def __reduce__(self):
        return (Tensor, (_data_slot.__get__(self),))


def bits_as(a, np_dtype):
    """A copy of array `a`'s bits read as `np_dtype` (Tensor.view(dtype))."""
    return (a if a.flags.c_contiguous else a.copy()).view(np_dtype).copy()


def _storage_refusal(t):
    op = _operation_in_progress()
    where = f"For '{op}', " if op else ""
    return (f"{where}the input is a tensor of the storage-only dtype {t.dtype}, which no operation "
            f"computes with; convert it first, e.g. t.astype(mindspore.float32)")


def _operation_in_progress():
    """The name of the primitive (or else the ops function) whose call read a storage tensor:
    the nearest frame with a `prim` or `self` that has a str `name` and a `forward`, or the
    nearest function of minispore.ops."""
    frame = sys._getframe(3)
    fallback = None
    for _ in range(12):
        if frame is None:
            break
        for key in ("prim", "self"):
            obj = frame.f_locals.get(key)
            name = getattr(obj, "name", None)
            if isinstance(name, str) and hasattr(obj, "forward"):
                return name
        if fallback is None and frame.f_globals.get("__name__", "").startswith("minispore.ops"):
            fallback = frame.f_code.co_name
        frame = frame.f_back
    return fallback


class LazyValues:
    """Mixed in first: the slot holds a recipe (`draw()`, `shape`, `dtype`) instead of values
    until the first read draws them and the object becomes a plain `_plain`."""
    __slots__ = ()
    _plain = None

    @property
    def _data(self):
        arr = _data_slot.__get__(self).draw()
        _data_slot.__set__(self, arr)
        self.__class__ = self._plain
        return arr

    @_data.setter
    def _data(self, value):
        _data_slot.__set__(self, value)
        self.__class__ = self._plain

    @property
    def shape(self):
        return _data_slot.__get__(self).shape

    @property
    def dtype(self):
        return mstype.NP_TO_MS[_data_slot.__get__(self).dtype]

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))


class _LazyTensor(LazyValues, Tensor):
    """A Tensor whose values are not drawn yet. It knows its shape and dtype; the first read of
    its values (any op, `asnumpy`, `init_data`) draws them, and it becomes a plain Tensor."""
    __slots__ = ()
    _plain = Tensor

    @property
    def has_init(self):
        return True

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None):
        self._data  # noqa: B018  (reading it draws the values)
        return self

    def __repr__(self):
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=\n<uninitialized>)"

    __str__ = __repr__


def tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False):
    """`minispore.tensor(...)`: same as `Tensor(...)`."""
    return Tensor(input_data, dtype, shape, init, const_arg)


def from_numpy(array):
    """A Tensor sharing memory with the NumPy `array` (no copy)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"For 'from_numpy', 'array' must be a NumPy array, got "
                        f"{type(array).__name__}")
    storage = mstype.storage_type(array.dtype) is not None
    if not storage:
        mstype.from_np(array.dtype)
    t = Tensor.__new__(Tensor)
    t._data = array
    t._tape = None
    t._version = 0
    if storage:
        _to_storage(t)
    return t


Tensor.from_numpy = staticmethod(from_numpy)


def is_tensor(obj):
    """True for Tensors (and Parameters)."""
    return isinstance(obj, Tensor)


def frombuffer(buffer, dtype, count=-1, offset=0):
    """A 1-D Tensor of `dtype` read from an object exposing the buffer protocol (`bytes`,
    `bytearray`, `memoryview`, an array), `count` elements (-1: all) from byte `offset`; the
    values are copied."""
    np_dtype = mstype.to_np(dtype)
    try:
        arr = np.frombuffer(buffer, np_dtype, count=count, offset=offset)
    except (TypeError, ValueError) as e:
        raise ValueError(f"For 'frombuffer', cannot read {count} elements of {dtype} at offset "
                         f"{offset}: {e}") from None
    return Tensor.from_numpy(arr.copy())
