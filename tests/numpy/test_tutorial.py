"""The "Tensor and Parameter" tutorial's kind of code, with its tensors made by
`mindspore.numpy` (run under `import minispore as mindspore`): values and dtypes equal
MindSpore's."""
import json
import os
import sys

import numpy as np

import minispore as mindspore
import minispore.numpy as mnp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
from numpy_cases import tensor_tutorial

DATA = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                            "mindspore_numpy.npz"))


def test_tutorial_matches_mindspore():
    dtypes = json.loads(str(DATA["tut_meta"]))
    got = tensor_tutorial(mindspore, mnp)
    assert sorted(got) == sorted(dtypes)
    for name, value in got.items():
        assert str(value.dtype) == dtypes[name], name
        np.testing.assert_array_equal(value.asnumpy(), DATA[f"tut_{name}"], err_msg=name)


def test_numpy_is_a_submodule_attribute():
    assert mindspore.numpy is mnp
