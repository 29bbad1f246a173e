"""Run the cases of device_ctx_cases.py on MindSpore 2.10 (CPU) into device_ctx.json:
`<venv with mindspore>/bin/python tests/common/data/make_device_ctx.py`."""
import json
import pathlib
import sys

import mindspore

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from device_ctx_cases import run_all  # noqa: E402

(HERE / "device_ctx.json").write_text(json.dumps(run_all(mindspore), indent=1) + "\n")
