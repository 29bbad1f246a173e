"""Make mindspore_vision_extra.npz: the inputs of cases.py and MindSpore 2.10's output for each
deterministic case, for tests/dataset/test_vision_extra.py. Run with real MindSpore (a separate
venv: `pip install mindspore "numpy<2"`) from a scratch folder (MindSpore writes logs into the
working directory): python /path/to/make_mindspore_vision_extra.py"""
import os
import sys

import numpy as np
from mindspore.dataset import vision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cases import CASES, inputs

data = inputs()
out = {f"in_{k}": v for k, v in data.items()}
for key, (expr, name) in CASES.items():
    result = eval(expr, {"vision": vision, "np": np})(*[data[n].copy() for n in name.split("+")])
    if isinstance(result, (tuple, list)):
        for i, r in enumerate(result):
            out[f"out_{key}__{i}"] = np.asarray(r)
    else:
        out[f"out_{key}"] = np.asarray(result)
path = os.path.join(HERE, "mindspore_vision_extra.npz")
np.savez_compressed(path, **out)
print(f"wrote {len(out)} arrays to {path} ({os.path.getsize(path)} bytes)")
