"""Run the saved-tensor hook cases on MindSpore 2.10 (CPU) into saved_hooks.json:
`<venv with mindspore>/bin/python tests/autodiff/data/make_saved_hooks.py`."""
import json
import pathlib
import sys

import mindspore

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from saved_hooks_cases import run_all  # noqa: E402

(HERE / "saved_hooks.json").write_text(json.dumps(run_all(mindspore), indent=1) + "\n")
