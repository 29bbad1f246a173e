"""MindSpore 2.10's `Tensor.view(dtype)` (view_dtype.json: shape, dtype and values of each case,
or the exception's type): `<venv with mindspore>/bin/python tests/common/data/make_view_dtype.py`.
Each case runs in its own process: after a failed view MindSpore 2.10 raises the same error from
every later operation."""
import json
import pathlib
import subprocess
import sys

import numpy as np  # noqa: F401  (the cases are NumPy expressions, evaluated below)

HERE = pathlib.Path(__file__).resolve().parent
CASES = {"float32 2x2": "np.array([[1.0, -2.5], [3.0, 0.5]], np.float32)",
         "float32 3": "np.arange(3, dtype=np.float32)",
         "bool 2": "np.array([True, False])",
         "float32 2x3 transposed": "np.arange(6, dtype=np.float32).reshape(2, 3).T",
         "float32 0-d": "np.array(1.0, np.float32)"}
DTYPES = ("int32", "uint8", "float16", "int64", "float32")


def one(case, dt):
    import mindspore as ms
    try:
        r = ms.Tensor(eval(CASES[case])).view(getattr(ms, dt))
        return {"shape": list(r.shape), "dtype": str(r.dtype),
                "values": r.asnumpy().ravel().tolist()}
    except (ValueError, TypeError, RuntimeError) as e:
        return {"error": type(e).__name__}


if __name__ == "__main__":
    if len(sys.argv) == 3:
        print(json.dumps(one(sys.argv[1], sys.argv[2])))
    else:
        out = {}
        for case in CASES:
            for dt in DTYPES:
                run = subprocess.run([sys.executable, __file__, case, dt], capture_output=True,
                                     text=True, check=True)
                out[f"{case} as {dt}"] = json.loads(run.stdout.strip().splitlines()[-1])
        (HERE / "view_dtype.json").write_text(json.dumps(out, indent=1) + "\n")
