"""MindSpore 2.10's answers of `get_level` / `get_log_config` (or the error type) under each
environment of LOG_ENVS, into log_config.json: `<venv with mindspore>/bin/python
tests/data/make_log_config.py`. Each runs in a fresh interpreter (the logger reads its settings
once); `{dir}` stands for a temporary directory."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

LOG_ENVS = [
    {},
    {"GLOG_v": "0"},
    {"GLOG_v": "1"},
    {"GLOG_v": "3"},
    {"GLOG_v": "4"},
    {"GLOG_v": "3", "GLOG_logtostderr": "0", "GLOG_log_dir": "{dir}", "logger_maxBytes": "1000",
     "logger_backupCount": "3", "GLOG_stderrthreshold": "1"},
    {"GLOG_logtostderr": "0", "GLOG_log_dir": "{dir}"},
    {"GLOG_v": "7"},
    {"GLOG_logtostderr": "0"},
    {"GLOG_logtostderr": "2"},
    {"GLOG_stderrthreshold": "9", "GLOG_logtostderr": "0", "GLOG_log_dir": "{dir}"},
]

PROBE = """
import json, sys
try:
    import {module} as ms
    result = [ms.get_level(), ms.get_log_config()]
except Exception as e:
    result = [type(e).__name__]
print("RESULT" + json.dumps(result))
"""


def probe(module, env, workdir):
    full = {k: v for k, v in os.environ.items()
            if not k.startswith(("GLOG_", "logger_")) and k not in ("RANK_ID", "MS_NODE_ID",
                                                                      "OMPI_COMM_WORLD_RANK")}
    full.update({k: v.replace("{dir}", workdir) for k, v in env.items()})
    out = subprocess.run([sys.executable, "-c", PROBE.format(module=module)], env=full,
                         capture_output=True, text=True, cwd=os.getcwd(), timeout=300).stdout
    line = [ln for ln in out.splitlines() if ln.startswith("RESULT")][-1]
    return json.loads(line[len("RESULT"):].replace(workdir, "{dir}"))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        results = [probe("mindspore", env, d) for env in LOG_ENVS]
    path = pathlib.Path(__file__).with_name("log_config.json")
    path.write_text(json.dumps(results, indent=1) + "\n")
