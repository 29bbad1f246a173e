"""MindSpore's dtype type objects (`Int`, `TensorType`, `QuantDtype`) and `get_py_obj_dtype`
against MindSpore 2.10 (fixture: data/dtype_types.json, made by data/make_dtype_types.py)."""
import json
import pathlib
import pickle

import numpy as np
import pytest

import minispore as ms

from .data import dtype_types_cases as cases

EXPECTED = json.loads((pathlib.Path(__file__).parent / "data" / "dtype_types.json").read_text())


@pytest.mark.parametrize("case", cases.CASES, ids=lambda c: c.__name__)
def test_matches_mindspore(case):
    assert case(ms) == EXPECTED[case.__name__]


def test_one_object_per_type_survives_pickling():
    # minispore compares dtypes by identity: Int(n) and TensorType(d) give the one object
    assert ms.Int(32) is ms.int32 and ms.Int() is ms.int_
    tt = ms.TensorType(ms.float16)
    assert ms.TensorType(ms.float16) is tt
    assert pickle.loads(pickle.dumps(tt)) is tt
    assert pickle.loads(pickle.dumps(ms.int8)) is ms.int8


def test_tensor_type_is_no_tensor_dtype():
    with pytest.raises(TypeError):
        ms.Tensor(np.ones(2), dtype=ms.TensorType(ms.float32))
    assert ms.get_py_obj_dtype(ms.Tensor(np.ones(2, np.float64))).element_type() is ms.float64
