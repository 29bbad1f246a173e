"""Tensor: a slotted holder of one NumPy array; operators and methods are bound by `ops`."""
import numpy as np

from . import dtype as mstype

__all__ = ["Tensor", "tensor", "from_numpy", "is_tensor"]

_float32 = np.dtype(np.float32)
_int64 = np.dtype(np.int64)


class Tensor:
    """A multi-dimensional array with MindSpore's API.

    Args:
        input_data: a Python scalar, (nested) list or tuple, NumPy array or scalar, or Tensor.
            Python floats give float32, Python ints int64; NumPy inputs keep their dtype.
        dtype: a `minispore` dtype (or NumPy dtype) to cast to; float to int truncates.
        shape, init: `Tensor(shape=(2, 3), dtype=float32, init=One())`. Unlike MindSpore the
            values are drawn at once (`init_data()` returns the tensor as it is).

    Example:
        >>> Tensor([1.5, 2.0])
        Tensor(shape=[2], dtype=Float32, value= [ 1.50000000e+00,  2.00000000e+00])
    """

    # _tape/_slot: the token of the tape that recorded this value and its slot there (_tape is
    # None for constants); _version: the write clock's reading at this tensor's last in-place
    # write (0 if never written). Never the tape itself, never parent tensors.
    __slots__ = ("_data", "_tape", "_slot", "_version", "__weakref__")
    __array_ufunc__ = None  # NumPy operands defer to Tensor's reflected operators

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg=False):
        self._tape = None
        self._version = 0
        if init is not None or (input_data is None and shape is not None):
            if shape is None or dtype is None or init is None:
                raise ValueError("For 'Tensor', initialisation needs 'shape', 'dtype' and 'init'")
            from .initializer import initializer
            self._data = initializer(init, shape, dtype)._data
            return
        if input_data is None:
            raise TypeError("For 'Tensor', 'input_data' must be given (or 'shape', 'dtype' and 'init')")
        self._data = _to_array(input_data, None if dtype is None else mstype.to_np(dtype))

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
        return self._data.strides

    @property
    def has_init(self):
        return False

    def dim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def init_data(self):
        """Returns self: initialisers run when the tensor is made."""
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
        if self._data.ndim == 0:
            raise TypeError("Not support len of a 0-D tensor")
        return self._data.shape[0]

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
        a = self._data
        if a.ndim == 0:
            return _scalar_text(a)
        return np.array2string(a)

    def __repr__(self):
        a = self._data
        head = f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value="
        if a.ndim == 0:
            return f"{head} {_scalar_text(a)})"
        body = _array_text(a)
        return f"{head}\n{body})" if a.ndim > 1 else f"{head} {body})"

    def __reduce__(self):
        return (Tensor, (self._data,))


def _scalar_text(a):
    v = a.item()
    if a.dtype.kind == "f":
        return "%g" % v  # MindSpore prints 0-d floats with C++ stream defaults (6 digits)
    return str(v)


def _array_text(a):
    if a.size == 0:
        return ""
    kind = a.dtype.kind
    if kind == "f":
        fmt = "% .4e" if a.dtype.itemsize == 2 else "% .8e"
        width = len(fmt % 1.0)
        formatter = {"float_kind": lambda v: (fmt % v) if np.isfinite(v) else f"{v:>{width}}"}
    else:
        formatter = None
    return np.array2string(a, separator=", ", formatter=formatter, threshold=1000, edgeitems=3,
                           max_line_width=10**9)


# ---- construction ------------------------------------------------------------------------------

def _to_array(data, np_dtype):
    """NumPy array for `data` with MindSpore's default dtypes, copied, cast to np_dtype if given."""
    if isinstance(data, Tensor):
        arr = data._data
        return arr.astype(np_dtype) if np_dtype is not None else arr.copy()
    if isinstance(data, np.ndarray):
        if data.dtype.kind in "OUSV":
            raise TypeError(f"For 'Tensor', NumPy arrays of dtype {data.dtype} are not supported")
        return data.astype(np_dtype) if np_dtype is not None else data.copy()
    if isinstance(data, np.generic):
        arr = np.asarray(data)
    elif isinstance(data, bool):
        arr = np.asarray(data, np.bool_)
    elif isinstance(data, int):
        arr = np.asarray(data, _int64)
    elif isinstance(data, float):
        arr = np.asarray(data, _float32)
    elif isinstance(data, complex):
        arr = np.asarray(data, np.complex64)
    elif isinstance(data, (list, tuple)):
        arr = _sequence_to_array(data)
    else:
        raise TypeError(f"For 'Tensor', 'input_data' must be a scalar, list, tuple, NumPy array "
                        f"or Tensor, but got {type(data).__name__}")
    return arr if np_dtype is None or arr.dtype == np_dtype else arr.astype(np_dtype)


def _sequence_to_array(data):
    leaves = []
    _collect_leaves(data, leaves)
    arr = np.array(_unwrap(data))
    if arr.dtype.kind in "OUSV":
        raise ValueError("For 'Tensor', 'input_data' must be a rectangular nested sequence of "
                         "numbers")
    if not leaves:
        return np.asarray(arr, _float32) if arr.size == 0 else arr
    types = {type(v) for v in leaves}
    if types <= {bool}:
        return arr.astype(np.bool_)
    if types <= {bool, int}:
        return arr.astype(_int64)
    if types <= {bool, int, float}:
        return arr.astype(_float32)
    if complex in types and types <= {bool, int, float, complex}:
        return arr.astype(np.complex64)
    return arr  # NumPy scalars or Tensors inside: NumPy's promotion of their dtypes


def _collect_leaves(data, out):
    for v in data:
        if isinstance(v, (list, tuple)):
            _collect_leaves(v, out)
        elif isinstance(v, (bool, int, float, complex)) and not isinstance(v, np.generic):
            out.append(v)


def _unwrap(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap(v) for v in data]
    return data


def tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False):
    """`minispore.tensor(...)`: same as `Tensor(...)`."""
    return Tensor(input_data, dtype, shape, init, const_arg)


def from_numpy(array):
    """A Tensor sharing memory with the NumPy `array` (no copy)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"For 'from_numpy', 'array' must be a NumPy array, got {type(array).__name__}")
    mstype.from_np(array.dtype)
    t = Tensor.__new__(Tensor)
    t._data = array
    t._tape = None
    t._version = 0
    return t


Tensor.from_numpy = staticmethod(from_numpy)


def is_tensor(obj):
    """True for Tensors (and Parameters)."""
    return isinstance(obj, Tensor)
