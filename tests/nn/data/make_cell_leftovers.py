"""Run the cases of cell_leftovers_cases.py on MindSpore 2.10 (CPU) into cell_leftovers.json:
`<venv with mindspore>/bin/python tests/nn/data/make_cell_leftovers.py`."""
import json
import pathlib
import sys

import mindspore

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cell_leftovers_cases import run_all  # noqa: E402

(HERE / "cell_leftovers.json").write_text(json.dumps(run_all(mindspore, mindspore.jit),
                                                     indent=1) + "\n")
