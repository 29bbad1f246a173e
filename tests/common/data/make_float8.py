"""MindSpore 2.10's float8 conversions and printing (float8.npz: the float32 inputs `x`, the
bits MindSpore stores for each float8 dtype and the printed cases; float8.json: their repr texts):
`<venv with mindspore>/bin/python tests/common/data/make_float8.py`. MindSpore's `asnumpy` of a
float8 tensor gives a NumPy void array of itemsize 1, whose bytes are the float8 bits."""
import json
import pathlib

import numpy as np
import mindspore as ms

HERE = pathlib.Path(__file__).resolve().parent
NAMES = ("float8_e4m3fn", "float8_e5m2")
rng = np.random.default_rng(0)
special = [0.0, -0.0, 1000.0, -1000.0, 448.0, 464.0, 57344.0, 61440.0, 1e-9, np.inf, -np.inf,
           np.nan, 2**-9, 2**-10, 2**-16, 2**-17, 1.0625, 1.1875]
x = np.concatenate([np.array(special, np.float32),
                    rng.standard_normal(200).astype(np.float32) * 10.0 ** rng.integers(-4, 4, 200)])
x = x.astype(np.float32)
bits = {name: np.frombuffer(ms.Tensor(x, getattr(ms, name)).asnumpy().tobytes(), np.uint8)
        for name in NAMES}
cases = {"scalar": np.array(1.5, np.float32),
         "matrix": np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
         "line": np.arange(30, dtype=np.float32) * 3.3 - 40,
         "special": np.array([[np.nan, np.inf], [-0.0, 1e-3]], np.float32),
         "long": np.arange(2000, dtype=np.float32)}
texts = {f"{name}/{case}": repr(ms.Tensor(v, getattr(ms, name)))
         for name in NAMES for case, v in cases.items()}
np.savez(HERE / "float8.npz", x=x, **bits, **{f"case_{k}": v for k, v in cases.items()})
(HERE / "float8.json").write_text(json.dumps(texts, indent=1) + "\n")
