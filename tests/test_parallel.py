"""`mindspore.parallel`'s `Layout` against MindSpore 2.10 (tests/data/layout.json, made by
tests/data/make_layout.py) and `shard`, which returns the function as MindSpore does in a world
of one, and checks the plan first with several ranks."""
import json
import pathlib
import sys

import numpy as np
import pytest

import minispore as ms

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "data"))
from layout_cases import CALLS, run_all  # noqa: E402

EXPECTED = json.loads((ROOT / "data" / "layout.json").read_text())


def test_layouts_match_mindspore():
    got = run_all(ms)
    for call in CALLS:
        assert got[call] == EXPECTED[call], call


def test_a_layout_call_leaves_the_layout_unapplied():
    base = ms.Layout((2, 2), ("dp", "mp"))
    applied = base("mp", "None")
    assert applied.to_dict()["tensor_map"] == (0, -1)
    with pytest.raises(ValueError, match="tensor map"):
        base.to_dict()


def test_shard_returns_the_function_in_a_world_of_one():
    net = ms.nn.Dense(4, 3)
    assert ms.shard(net, in_strategy=((1, 1),)) is net
    fn = lambda x: x * 2  # noqa: E731
    assert ms.shard(fn, "not even checked") is fn  # MindSpore checks nothing with one rank
    x = ms.Tensor(np.ones((2, 4), np.float32))
    assert ms.parallel.shard(net, ((2, 1),))(x).shape == (2, 3)


def test_shard_checks_the_plan_with_several_ranks(monkeypatch):
    monkeypatch.setattr(ms.parallel, "get_group_size", lambda: 2)
    net = ms.nn.Dense(4, 3)
    layout = ms.Layout((2, 1), ("dp", "mp"))
    assert ms.shard(net, in_strategy=(layout("dp", "None"),), out_strategy=((2, 1),)) is net
    with pytest.raises(TypeError, match="'in_strategy' must be a tuple"):
        ms.shard(net, [(2, 1)])
    with pytest.raises(TypeError, match="each item of 'out_strategy'"):
        ms.shard(net, ((2, 1),), out_strategy=(3,))
    with pytest.raises(TypeError, match="'parameter_plan'"):
        ms.shard(net, ((2, 1),), parameter_plan=[1])
    with pytest.raises(TypeError, match="'fn'"):
        ms.shard(3, ((2, 1),))


def test_load_segmented_checkpoints_reads_mindspore_segments():
    expected = json.loads((ROOT / "data" / "segmented.json").read_text())
    folder = str(ROOT / "data" / "segmented")
    loaded = ms.load_segmented_checkpoints(folder)
    assert sorted(loaded) == sorted(expected["values"])
    for name, values in expected["values"].items():
        np.testing.assert_array_equal(loaded[name].asnumpy(), np.array(values, np.float32))

    class Holder(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 3)
    net = Holder()
    ms.load_segmented_checkpoints(folder, net)
    np.testing.assert_array_equal(net.fc.weight.asnumpy(),
                                  np.array(expected["values"]["fc.weight"], np.float32))
    np.testing.assert_array_equal(net.fc.bias.asnumpy(),
                                  np.array(expected["values"]["fc.bias"], np.float32))
    chosen = ms.load_segmented_checkpoints(folder, choice_func=lambda n: n != "fc.weight")
    assert sorted(chosen) == ["fc.bias", "shared"]
    with pytest.raises(TypeError):
        ms.load_segmented_checkpoints(1)
    assert expected["errors"] == {"not a str": "TypeError", "missing": "ValueError"}
    with pytest.raises(ValueError, match="not a directory"):
        ms.load_segmented_checkpoints(folder + "/nothing")
