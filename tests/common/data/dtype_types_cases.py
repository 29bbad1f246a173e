"""Cases for MindSpore's dtype type objects (`Int`, `TensorType`, `QuantDtype`) and
`get_py_obj_dtype`, written for MindSpore's or minispore's module (`ms`). make_dtype_types.py
runs them on MindSpore 2.10 into dtype_types.json; tests/common/test_dtype_types.py on
minispore."""
import numpy as np


def _error(fn):
    try:
        return repr(fn())
    except Exception as e:  # noqa: BLE001  (the case records which type)
        return type(e).__name__


def int_type(ms):
    Int = ms.Int
    return {"generic": [repr(Int()), str(Int()), Int() == ms.int_],
            "bits": [[repr(Int(b)), Int(b) == getattr(ms, f"int{b}")] for b in (8, 16, 32, 64)],
            "bad": [_error(lambda b=b: Int(b)) for b in (7, 128, -1, "a")],
            "members": [isinstance(d, Int) for d in (ms.int8, ms.int16, ms.int32, ms.int64,
                                                     ms.int_, ms.uint8, ms.bool_, ms.float32)],
            "is_type": isinstance(ms.int32, ms.common.dtype.Type),
            "nptype": str(ms.dtype_to_nptype(Int(32)))}


def tensor_type(ms):
    T = ms.TensorType
    tt = T(ms.float32)
    return {"float32": [repr(tt), str(tt), repr(tt.element_type()), tt == T(ms.float32),
                        tt == T(ms.float16), hash(tt) == hash(T(ms.float32))],
            "generic": [repr(T()), str(T()), T().element_type() is None, ms.tensor_type == T(),
                        isinstance(ms.tensor_type, T)],
            "others": [repr(T(d)) for d in (ms.int8, ms.uint64, ms.bool_, ms.complex128)],
            "is_type": [isinstance(tt, ms.common.dtype.Type), isinstance(ms.float32, T)],
            "bad": _error(lambda: T(3))}


def quant_dtype(ms):
    Q = ms.QuantDtype
    return {"members": [[m.name, m.value(), str(m)] for m in Q],
            "lookup": [Q(7).name, Q["UINT4"].value()]}


def py_obj_dtype(ms):
    objs = [ms.Tensor(np.ones(2, np.float32)), ms.Parameter(ms.Tensor(np.ones(2, np.int32)),
                                                            name="p"),
            np.float32(1), np.int8(1), 1, 1.0, True, [1], (1,), "a", None, np.ones(2)]
    return [_error(lambda o=o: ms.get_py_obj_dtype(o)) for o in objs]


CASES = [int_type, tensor_type, quant_dtype, py_obj_dtype]


def run_all(ms):
    return {case.__name__: case(ms) for case in CASES}
