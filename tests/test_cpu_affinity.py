"""`set_cpu_affinity` binds the calling thread (MindSpore's 'main' module) to the chosen cores.
Its argument checks and errors follow MindSpore 2.10 (tests/data/cpu_affinity.json, made by
tests/data/make_cpu_affinity.py). MindSpore 2.10's CPU backend leaves the Python thread unbound,
so the cores bound here are this module's own promise. The cases run in one child interpreter
(binding is per process), which restores its cores and the once-per-process state after each."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "data"))
from make_cpu_affinity import AFFINITY_CASES  # noqa: E402

EXPECTED = json.loads((ROOT / "tests" / "data" / "cpu_affinity.json").read_text())
pytestmark = pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or
                                not {0, 1} <= os.sched_getaffinity(0),
                                reason="needs CPUs 0 and 1 available")
BOUND = {"set_cpu_affinity(True, ['0'])": [0],
         "set_cpu_affinity(True, ['0-1'], {'main': [1]})": [1],
         "set_cpu_affinity(True, {'device0': ['1']})": [1]}

CHILD = """
import json, os, sys
import minispore as ms
from minispore import _affinity
from minispore.runtime import set_cpu_affinity
start = os.sched_getaffinity(0)
results = []
for call in json.loads(sys.argv[1]):
    try:
        exec(call)
        results.append(sorted(os.sched_getaffinity(0)))
    except Exception as e:
        results.append(type(e).__name__)
    os.sched_setaffinity(0, start)
    _affinity._state["configured"] = False
print(json.dumps(results))
"""


def run_calls(calls):
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(calls)], capture_output=True,
                         text=True, timeout=300, cwd=ROOT, check=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return json.loads(out.stdout.splitlines()[-1])


def test_errors_follow_mindspore_and_main_is_bound():
    got = dict(zip(AFFINITY_CASES, run_calls(AFFINITY_CASES)))
    for call in AFFINITY_CASES:
        want = EXPECTED[call]
        if not isinstance(want, str):  # MindSpore leaves the thread as it was
            want = BOUND.get(call, sorted(os.sched_getaffinity(0)))
        assert got[call] == want, call


def test_bind_file_binds_main_for_this_device(tmp_path):
    on, off = tmp_path / "on.json", tmp_path / "off.json"
    on.write_text(json.dumps({"bind_config": {"bind_cpu_mode": "cpu"},
                              "bind_cpu": {"device0": {"main": "1", "minddata": "0"},
                                           "device1": {"main": "0"}}}))
    off.write_text(json.dumps({"bind_config": {"bind_cpu_mode": "none"},
                               "bind_cpu": {"device0": {"main": "1"}}}))
    calls = [f"set_cpu_affinity(True, bind_file={str(on)!r})",
             f"import warnings; warnings.simplefilter('ignore'); "
             f"set_cpu_affinity(True, bind_file={str(off)!r})",
             f"set_cpu_affinity(True, bind_file={str(tmp_path / 'missing.json')!r})"]
    assert run_calls(calls) == [[1], [0, 1], "ValueError"]
