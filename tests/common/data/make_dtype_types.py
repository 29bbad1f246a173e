"""Run the cases of dtype_types_cases.py on MindSpore 2.10 (CPU) into dtype_types.json:
`<venv with mindspore>/bin/python tests/common/data/make_dtype_types.py`."""
import json
import pathlib
import sys

import mindspore

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from dtype_types_cases import run_all  # noqa: E402

(HERE / "dtype_types.json").write_text(json.dumps(run_all(mindspore), indent=1) + "\n")
