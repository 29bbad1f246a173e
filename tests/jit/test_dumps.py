"""IR dumps of jitted functions: `ir(stage)` and the files `set_context(save_graphs=...)` writes
(docs/graph_mode.md, "Dumps"), and the context keys' checks (MindSpore's types and range)."""
import os
import re

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, context, ops


@pytest.fixture
def graphs_context():
    """The two keys as they were (the defaults: 0 and ".", which set_context would make absolute)."""
    saved = {k: context._context[k] for k in ("save_graphs", "save_graphs_path")}
    yield
    context._context.update(saved)


def predict(x):
    y = ops.tanh(-x * 1)
    unused = ops.exp(y)  # noqa: F841
    return ops.softmax(y, -1)


def test_ir_stages_show_the_trace_before_and_after_the_passes():
    jitted = ms.jit(predict)
    x = Tensor(np.ones((2, 3), np.float32))
    jitted(x)
    [captured] = jitted.ir("captured")
    [optimized] = jitted.ir("optimized")
    [source] = jitted.ir("replay")
    assert captured.startswith("# graph predict  trace 0  stage captured  nodes 5 (captured 5)")
    assert optimized.startswith("# graph predict  trace 0  stage optimized  nodes 3 (captured 5)")
    assert "Prim[Exp]" in captured and "Prim[Exp]" not in optimized
    assert "Prim[Mul]" not in optimized and "Prim[Softmax]<axis=-1>" in optimized
    assert optimized.split("\n", 1)[1] == jitted.graphs()[0] + "\n"
    assert source.startswith("def replay(args):")
    assert len(set(re.findall(r"\bf(\d+)\(", source))) == 3  # three primitives called
    assert jitted.stats["nodes"] == [(5, 3)]
    jitted(Tensor(np.full((2, 3), -0.5, np.float32)))
    assert jitted.stats["replays"] == 1 and jitted.ir("replay") == [source]
    with pytest.raises(ValueError, match="'stage' must be one of"):
        jitted.ir("parse")


def test_save_graphs_writes_each_stage_numbered(tmp_path, graphs_context):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path / "ir"))
    jitted = ms.jit(predict)
    jitted(Tensor(np.ones((2, 3), np.float32)))
    jitted(Tensor(np.ones((4, 3), np.float32)))  # a second signature: a second trace
    names = sorted(os.listdir(tmp_path / "ir"))
    assert len(names) == 8
    pattern = re.compile(r"predict_(\d{4})_(\d{2})_(captured|optimized|fused|replay)\.(ir|py)$")
    matches = [pattern.match(n) for n in names]
    assert all(matches)
    serials = sorted({m.group(1) for m in matches})
    assert len(serials) == 2
    assert [m.group(2) + m.group(3) for m in matches[:4]] == ["00captured", "01optimized",
                                                               "02fused", "03replay"]
    for k, serial in enumerate(serials):
        for n, stage in enumerate(("captured", "optimized", "fused")):
            text = (tmp_path / "ir" / f"predict_{serial}_{n:02d}_{stage}.ir").read_text()
            assert text == jitted.ir(stage)[k]
        py = (tmp_path / "ir" / f"predict_{serial}_03_replay.py").read_text()
        assert py == jitted.ir("replay")[k]
        compile(py, "replay.py", "exec")


def test_no_files_without_save_graphs(tmp_path, graphs_context):
    ms.set_context(save_graphs_path=str(tmp_path))
    for level in (False, 0, -1):
        ms.set_context(save_graphs=level)
        jitted = ms.jit(predict)
        jitted(Tensor(np.ones((2, 3), np.float32)))
    assert os.listdir(tmp_path) == []


def test_context_keys_are_checked_as_mindspore_does(tmp_path, graphs_context):
    assert ms.get_context("save_graphs") == 0 and ms.get_context("save_graphs_path") == "."
    ms.set_context(save_graphs=True)
    assert ms.get_context("save_graphs") == 2
    ms.set_context(save_graphs=3)
    assert ms.get_context("save_graphs") == 3
    for bad in ("2", 1.5, None):
        with pytest.raises(TypeError, match="'save_graphs'"):
            ms.set_context(save_graphs=bad)
    with pytest.raises(ValueError, match="'save_graphs'"):
        ms.set_context(save_graphs=4)
    assert ms.get_context("save_graphs") == 3
    target = tmp_path / "a" / "b"
    ms.set_context(save_graphs_path=str(target))
    assert target.is_dir() and ms.get_context("save_graphs_path") == os.path.realpath(target)
    with pytest.raises(ValueError, match="'save_graphs_path'"):
        ms.set_context(save_graphs_path="  ")
    with pytest.raises(TypeError, match="'save_graphs_path'"):
        ms.set_context(save_graphs_path=3)
