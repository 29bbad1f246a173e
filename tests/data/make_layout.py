"""MindSpore 2.10's `Layout(...)(...).to_dict()` (or error type) for each call of
layout_cases.CALLS, into layout.json: `<venv with mindspore>/bin/python tests/data/make_layout.py`."""
import json
import pathlib
import sys

import mindspore

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from layout_cases import run_all  # noqa: E402

(HERE / "layout.json").write_text(json.dumps(run_all(mindspore), indent=1) + "\n")
