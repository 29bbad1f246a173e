"""MindSpore's dtype objects (`minispore.float32` prints `Float32`) and its type promotion."""
import enum

import numpy as np

__all__ = [
    "Type", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "bfloat16", "float8_e4m3fn", "float8_e5m2", "complex64",
    "complex128",
    "half", "single", "double", "float_", "int_", "uint", "number", "tensor_type",
    "dtype_to_nptype", "dtype_to_pytype", "pytype_to_dtype", "get_py_obj_dtype",
    "byte", "ubyte", "short", "ushort", "intc", "uintc", "intp", "uintp", "long", "cfloat",
    "cdouble", "string", "list_", "tuple_", "type_none", "Int", "TensorType", "QuantDtype",
]


class Type:
    """A MindSpore dtype. Compares by identity; `str` gives `Float32`, `repr` `mindspore.float32`."""

    __slots__ = ("_name", "_np", "_display")

    def __init__(self, name, np_type, display):
        self._name = name
        self._np = None if np_type is None else np.dtype(np_type)
        self._display = display

    def __str__(self):
        return self._display

    def __repr__(self):
        return "mindspore." + self._name

    def __reduce__(self):
        return (_lookup, (self._name,))

    @property
    def itemsize(self):
        return 2 if self is bfloat16 else 1 if self in _STORAGE else self._np.itemsize


def _lookup(name):
    return _BY_NAME[name]


class _IntKind(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Type) and obj._name in ("int", "int8", "int16", "int32", "int64")


class Int(Type, metaclass=_IntKind):
    """The type of MindSpore's signed integer dtypes: `isinstance(x.dtype, Int)`; `Int(32)` is
    `int32`, `Int()` the category `int_`. The dtype objects stay plain `Type`s (code that keys
    on `type(dtype) is Type` sees no change); `isinstance` recognises them by name."""

    __slots__ = ()

    def __new__(cls, nbits=None):
        if nbits is None:
            return int_
        if isinstance(nbits, bool) or not isinstance(nbits, (int, np.integer)):
            raise TypeError(f"For 'Int', 'nbits' must be an int, but got {type(nbits).__name__}")
        if nbits not in (8, 16, 32, 64):
            raise RuntimeError(f"For Int type only support number of 8bits, 16bits, 32bits and "
                               f"64bits, but got {nbits}bits")
        return _BY_NAME[f"int{nbits}"]

    def __init__(self, nbits=None):
        pass  # the object exists already


class TensorType(Type):
    """The type of a Tensor of element dtype `element` (`get_py_obj_dtype(tensor)`): prints
    `Tensor[Float32]`; `TensorType()` is the category `tensor_type`. One object per element
    dtype, so they compare by identity as every dtype does."""

    __slots__ = ("_element",)
    _cache = {}

    def __new__(cls, element=None):
        t = cls._cache.get(element)
        if t is None:
            if element is not None and (not isinstance(element, Type) or
                                        isinstance(element, TensorType)):
                raise TypeError(f"For 'TensorType', 'element' must be a MindSpore dtype, but "
                                f"got {type(element).__name__}")
            t = object.__new__(cls)
            if element is None:
                Type.__init__(t, "tensor", None, "Tensor")
            else:
                Type.__init__(t, f"tensor[{element._name}]", None, f"Tensor[{element}]")
            t._element = element
            cls._cache[element] = t
        return t

    def __init__(self, element=None):
        pass  # made by __new__

    def element_type(self):
        """The element dtype (None for the category)."""
        return self._element

    def __reduce__(self):
        return (TensorType, (self._element,))


class QuantDtype(enum.Enum):
    """Quantisation data types, INT1-INT16 and UINT1-UINT16; `value()` gives the number
    MindSpore serialises them by."""
    INT1, INT2, INT3, INT4, INT5, INT6, INT7, INT8 = range(0, 8)
    INT9, INT10, INT11, INT12, INT13, INT14, INT15, INT16 = range(8, 16)
    UINT1, UINT2, UINT3, UINT4, UINT5, UINT6, UINT7, UINT8 = range(100, 108)
    UINT9, UINT10, UINT11, UINT12, UINT13, UINT14, UINT15, UINT16 = range(108, 116)

    def __str__(self):
        return self.name

    def value(self):
        return self._value_


bool_ = Type("bool", np.bool_, "Bool")
int8 = Type("int8", np.int8, "Int8")
int16 = Type("int16", np.int16, "Int16")
int32 = Type("int32", np.int32, "Int32")
int64 = Type("int64", np.int64, "Int64")
uint8 = Type("uint8", np.uint8, "UInt8")
uint16 = Type("uint16", np.uint16, "UInt16")
uint32 = Type("uint32", np.uint32, "UInt32")
uint64 = Type("uint64", np.uint64, "UInt64")
float16 = Type("float16", np.float16, "Float16")
float32 = Type("float32", np.float32, "Float32")
float64 = Type("float64", np.float64, "Float64")
complex64 = Type("complex64", np.complex64, "Complex64")
complex128 = Type("complex128", np.complex128, "Complex128")
# NumPy has no bfloat16: the object exists so user code naming it imports, and any attempt to
# make a Tensor of it raises a TypeError that says so.
bfloat16 = Type("bfloat16", None, "BFloat16")
# float8: storage-only dtypes. A Tensor of one holds values rounded to it (NumPy dtypes from the
# optional package ml_dtypes) and converts them; no op computes with it, as on MindSpore's CPU
# backend, which has no float8 kernels.
float8_e4m3fn = Type("float8_e4m3fn", None, "Float8E4M3FN")
float8_e5m2 = Type("float8_e5m2", None, "Float8E5M2")
_STORAGE = (float8_e4m3fn, float8_e5m2)
half, single, double = float16, float32, float64
# C-style aliases, as MindSpore names them (`byte` is int8 there too)
byte, ubyte, short, ushort = int8, uint8, int16, uint16
intc, uintc, intp, uintp, long = int32, uint32, int64, uint64, int64
cfloat, cdouble = complex64, complex128
# MindSpore's generic category types: `ms.float_` prints `mindspore.float`, `ms.int_` `mindspore.int`.
float_ = Type("float", None, "Float")
int_ = Type("int", None, "Int")
uint = Type("uint", None, "UInt")
number = Type("number", None, "Number")
tensor_type = TensorType()
string = Type("string_", None, "String")  # the types of non-tensor values in MindSpore's graphs
list_ = Type("list_", None, "List")
tuple_ = Type("tuple_", None, "Tuple")
type_none = Type("type_none", None, "TypeNone")

# MindSpore's category tuples, used in user code as `if x.dtype in mstype.float_type:`.
int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)
float_type = (float16, float32, float64, bfloat16, float8_e4m3fn, float8_e5m2)
complex_type = (complex64, complex128)
number_type = int_type + uint_type + float_type + complex_type

_ALL = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
        float16, float32, float64, complex64, complex128)
_BY_NAME = {t._name: t for t in _ALL + _STORAGE + (bfloat16, float_, int_, uint, number,
                                                    tensor_type, string, list_, tuple_, type_none)}
NP_TO_MS = {t._np: t for t in _ALL}
_PY_TO_MS = {bool: bool_, int: int64, float: float64, complex: complex128}
# NumPy dtypes, NumPy scalar types and Python types that name a dtype minispore supports.
_NP_OF = {**{t._np: t._np for t in _ALL}, **{t._np.type: t._np for t in _ALL},
          **{py: t._np for py, t in _PY_TO_MS.items()}}


def dtype_to_nptype(type_):
    """The NumPy scalar type of a MindSpore dtype: `dtype_to_nptype(float16) is np.float16`."""
    return to_np(type_).type


def dtype_to_pytype(type_):
    """The Python type of a MindSpore dtype: `dtype_to_pytype(float32) is float`."""
    kind = to_np(type_).kind
    return bool if kind == "b" else int if kind in "iu" else float if kind == "f" else complex


def pytype_to_dtype(obj):
    """The MindSpore dtype of a Python or NumPy type: `pytype_to_dtype(float) is float64`."""
    if isinstance(obj, Type):
        return obj
    if obj in _PY_TO_MS:
        return _PY_TO_MS[obj]
    return from_np(np.dtype(obj))


_PY_OBJ = {list: list_, tuple: tuple_, str: string, type(None): type_none}


def get_py_obj_dtype(obj):
    """The type MindSpore gives a Python object: `TensorType(dtype)` for a Tensor (anything
    whose `dtype` is a MindSpore dtype), the dtype of a NumPy scalar or Python number,
    `list_` / `tuple_` / `string` / `type_none`. A NumPy array has none (NotImplementedError,
    as in MindSpore)."""
    dt = getattr(obj, "dtype", None)
    if isinstance(dt, Type):
        return TensorType(dt)
    if isinstance(obj, np.generic):
        return from_np(obj.dtype)
    if type(obj) in _PY_OBJ:
        return _PY_OBJ[type(obj)]
    if isinstance(obj, np.ndarray):
        raise NotImplementedError(f"The python type {type(obj)} cannot be converted to "
                                  "MindSpore type.")
    return pytype_to_dtype(type(obj))


def to_np(dtype):
    """NumPy dtype of a MindSpore dtype, NumPy dtype or type, dtype name or Python type;
    TypeError for anything else, and for dtypes MindSpore has no tensors of (str, object)."""
    if isinstance(dtype, Type):
        if dtype._np is None:
            if dtype is bfloat16:
                raise TypeError("bfloat16 tensors are not supported: NumPy has no bfloat16 type")
            if dtype in _STORAGE:
                raise TypeError(f"{dtype} is a storage-only dtype: Tensor(..., dtype={dtype!r}) "
                                f"and astype make tensors of it, astype and asnumpy read them, "
                                f"and no operation computes with it")
            raise TypeError(f"{dtype!r} is a dtype category, not a concrete dtype")
        return dtype._np
    try:
        np_dtype = _NP_OF.get(dtype)
        if np_dtype is not None:
            return np_dtype
        np_dtype = None if dtype is None else np.dtype(dtype)
    except TypeError:  # unhashable, or nothing NumPy knows as a dtype
        np_dtype = None
    if np_dtype not in NP_TO_MS:
        raise TypeError(f"expected a mindspore dtype (or a NumPy dtype of a number), got "
                        f"{dtype!r}")
    return np_dtype


def storage_np(dtype):
    """The NumPy dtype (from ml_dtypes) of a storage-only dtype, or None if `dtype` is not one."""
    if type(dtype) is not Type or dtype not in _STORAGE:  # (a NumPy dtype compares slowly)
        return None
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError(f"Tensors of {dtype} need the optional package ml_dtypes, which gives "
                        f"NumPy its float8 types: pip install 'minispore[float8]'") from None
    np_dtype = np.dtype(getattr(ml_dtypes, dtype._name))
    _STORAGE_OF_NP[np_dtype] = dtype
    return np_dtype


_STORAGE_OF_NP = {}  # filled by storage_np


def storage_type(np_dtype):
    """The storage-only dtype of a NumPy dtype (an ml_dtypes float8 one), or None."""
    t = _STORAGE_OF_NP.get(np_dtype)
    if t is None and np_dtype.type.__module__ == "ml_dtypes":
        t = _BY_NAME.get(np_dtype.name)
        if t not in _STORAGE:
            return None
        storage_np(t)
    return t


def from_np(np_dtype):
    """MindSpore dtype of a NumPy dtype; TypeError for types MindSpore has none of (str, object)."""
    try:
        return NP_TO_MS[np_dtype]
    except KeyError:
        raise TypeError(f"NumPy dtype {np_dtype} has no MindSpore equivalent") from None


# ---- promotion (MindSpore's, not NumPy's) -----------------------------------------------------
# Across categories the higher category's type wins as is (int64 + float16 -> float16, which NumPy
# would widen to float64); within a category NumPy's lattice applies (int8 + uint8 -> int16).

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
_promote_cache = {}


def promote(a, b):
    """Result dtype of a binary op on two tensors of NumPy dtypes `a` and `b`."""
    key = (a, b)
    r = _promote_cache.get(key)
    if r is None:
        ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
        r = (a if ca > cb else b) if ca != cb else np.promote_types(a, b)
        _promote_cache[key] = r
    return r


# Python scalars only decide the category: they never widen a tensor within it.
_SCALAR_CATEGORY = {bool: 0, int: 1, float: 2, complex: 3}
_SCALAR_DEFAULT = {0: np.dtype(np.bool_), 1: np.dtype(np.int64), 2: np.dtype(np.float32),
                   3: np.dtype(np.complex64)}


def promote_scalar(a, scalar_type):
    """Result dtype of a tensor of NumPy dtype `a` with a Python scalar of type `scalar_type`."""
    cs = _SCALAR_CATEGORY[scalar_type]
    return a if _CATEGORY[a.kind] >= cs else _SCALAR_DEFAULT[cs]

