"""What `set_cpu_affinity` does in MindSpore 2.10 for each call of AFFINITY_CASES, each in a
fresh interpreter (the binding is once per process), into cpu_affinity.json:
`<venv with mindspore>/bin/python tests/data/make_cpu_affinity.py`. A case records the error
type, or the calling thread's CPUs afterwards; it uses CPUs 0 and 1 (machines with two cores
or more)."""
import json
import os
import pathlib
import subprocess
import sys

AFFINITY_CASES = [
    "set_cpu_affinity(True, ['0'])",
    "set_cpu_affinity(True, ['0-1'], {'main': [1]})",
    "set_cpu_affinity(True, ['0,1'], {'minddata': [0]})",
    "set_cpu_affinity(False, ['0'])",
    "set_cpu_affinity(True, ['1']); set_cpu_affinity(True, ['0'])",
    "set_cpu_affinity(False); set_cpu_affinity(True, ['0'])",
    "set_cpu_affinity(1)",
    "set_cpu_affinity(True, '0')",
    "set_cpu_affinity(True, [0])",
    "set_cpu_affinity(True, ['0:1'])",
    "set_cpu_affinity(True, ['0'], [0])",
    "set_cpu_affinity(True, ['0'], {'main': 0})",
    "set_cpu_affinity(True, ['0'], {'main': [-1]})",
    "set_cpu_affinity(True, ['0-9999'])",
    "set_cpu_affinity(True, {'device0': ['1']})",
]

PROBE = """
import json, os, sys
import {module} as ms
try:
    {call}
    result = sorted(os.sched_getaffinity(0))
except Exception as e:
    result = type(e).__name__
print("RESULT" + json.dumps(result))
"""


def probe(module, call):
    src = PROBE.format(module=module, call=call.replace("set_cpu_affinity", "ms.runtime."
                                                        "set_cpu_affinity"))
    out = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ)).stdout
    return json.loads([ln for ln in out.splitlines() if ln.startswith("RESULT")][-1][6:])


if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("cpu_affinity.json")
    path.write_text(json.dumps({c: probe("mindspore", c) for c in AFFINITY_CASES}, indent=1)
                    + "\n")
