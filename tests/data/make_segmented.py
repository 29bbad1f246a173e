"""Two checkpoint segments of one network saved by MindSpore 2.10 (segmented/part_a.ckpt,
segmented/part_b.ckpt; part_b repeats one name with other values) and what
`load_segmented_checkpoints` returns for the directory (segmented.json):
`<venv with mindspore>/bin/python tests/data/make_segmented.py`."""
import json
import pathlib

import numpy as np
import mindspore as ms

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "segmented"
OUT.mkdir(exist_ok=True)
rng = np.random.default_rng(0)
ms.save_checkpoint([{"name": "fc.weight", "data": ms.Tensor(rng.random((3, 4), np.float32))},
                    {"name": "shared", "data": ms.Tensor(np.zeros(2, np.float32))}],
                   str(OUT / "part_a.ckpt"))
ms.save_checkpoint([{"name": "fc.bias", "data": ms.Tensor(rng.random(3, np.float32))},
                    {"name": "shared", "data": ms.Tensor(np.ones(2, np.float32))}],
                   str(OUT / "part_b.ckpt"))
loaded = ms.load_segmented_checkpoints(str(OUT))
errors = {}
for name, call in [("not a str", lambda: ms.load_segmented_checkpoints(1)),
                   ("missing", lambda: ms.load_segmented_checkpoints(str(OUT / "nothing")))]:
    try:
        call()
    except Exception as e:  # noqa: BLE001
        errors[name] = type(e).__name__
(HERE / "segmented.json").write_text(json.dumps(
    {"values": {k: v.asnumpy().tolist() for k, v in sorted(loaded.items())},
     "errors": errors}, indent=1) + "\n")
