"""The FLOPs line FlopsUtilizationCollector prints for each network of flops_cases.py, from
MindSpore 2.10 in graph mode, into flops.json:
`<venv with mindspore>/bin/python tests/train/data/make_flops.py`."""
import contextlib
import io
import json
import pathlib
import sys

import mindspore

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from flops_cases import CASES, train_once  # noqa: E402

mindspore.set_context(mode=mindspore.GRAPH_MODE)
lines = {}
for case in CASES:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        text = train_once(mindspore, case, buf.getvalue)
    lines[case.__name__] = [ln for ln in text.splitlines() if "flops is" in ln]
(HERE / "flops.json").write_text(json.dumps(lines, indent=1) + "\n")
