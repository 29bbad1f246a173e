"""Data parallel on real MPI: scripts under `mpiexec -n N` on this machine (2-4 ranks).

Skipped when mpi4py or an mpiexec is missing (`pip install 'minispore[dist]'`), except under
CI=true, where that is a failure. Each launch is bounded by a subprocess timeout, and collectives
by MINISPORE_COMM_TIMEOUT.
"""
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

SCRIPTS = os.path.join(os.path.dirname(__file__), "scripts")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCH_TIMEOUT = 240


def _mpiexec():
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return beside if os.path.exists(beside) else shutil.which("mpiexec")


def _available():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "mpi4py is not installed (pip install 'minispore[dist]')"
    if _mpiexec() is None:
        return "no mpiexec beside Python or on PATH (pip install mpich)"
    return None


_MISSING = _available()
if _MISSING and os.environ.get("CI") == "true":
    raise RuntimeError(f"CI installs the dist extra, but {_MISSING}")
pytestmark = pytest.mark.skipif(_MISSING is not None, reason=_MISSING or "")


def _env(timeout=30):
    env = dict(os.environ, MINISPORE_COMM_TIMEOUT=str(timeout), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", PYTHONPATH=ROOT + os.pathsep +
               os.environ.get("PYTHONPATH", ""))
    for var in ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                "RANK_ID", "RANK_SIZE"):
        env.pop(var, None)
    return env


def mpirun(n, script, *args, timeout=30, cwd=None):
    cmd = [_mpiexec(), "-n", str(n), sys.executable, os.path.join(SCRIPTS, script), *args]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=LAUNCH_TIMEOUT,
                          env=_env(timeout), cwd=cwd, check=False)
    return proc, time.monotonic() - start


def plain(script, *args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *args],
                          capture_output=True, text=True, timeout=LAUNCH_TIMEOUT, env=_env(),
                          check=False)


@pytest.mark.parametrize("n", [2, 4])
def test_collectives_match_their_definitions(n):
    proc, _ = mpirun(n, "collectives.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for rank in range(n):
        assert f"rank {rank} of {n}: collectives OK" in proc.stdout
        assert f"rank {rank} of {n}: ops.communication OK" in proc.stdout


@pytest.mark.parametrize("mode,dtype,n", [("cell", "float32", 2), ("functional", "float64", 2),
                                          ("cell-graph", "float32", 2),
                                          ("model", "float32", 2), ("cell", "float64", 4),
                                          ("functional", "float32", 4)])
def test_data_parallel_equals_one_process_on_the_full_batch(tmp_path, mode, dtype, n):
    out = str(tmp_path)
    single = plain("train_dp.py", mode, dtype, out)
    assert single.returncode == 0, single.stdout + single.stderr
    proc, _ = mpirun(n, "train_dp.py", mode, dtype, out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    one = np.load(os.path.join(out, f"{mode}_{dtype}_1_0.npz"))
    ranks = [np.load(os.path.join(out, f"{mode}_{dtype}_{n}_{r}.npz")) for r in range(n)]
    names = [k for k in one.files if k not in ("losses", "seen")]
    tol = 1e-5 if dtype == "float32" else 1e-10
    for name in names:
        for r in ranks[1:]:
            assert np.array_equal(r[name], ranks[0][name]), f"{name} differs across ranks"
        np.testing.assert_allclose(ranks[0][name], one[name], rtol=tol, atol=tol, err_msg=name)
    if mode != "model":  # 'cell-graph' too: every rank ran the step under GRAPH_MODE
        assert not np.array_equal(ranks[0]["losses"], ranks[1]["losses"])
        seen = [set(r["seen"].tolist()) for r in ranks]
        assert all(seen[i].isdisjoint(seen[j]) for i in range(n) for j in range(i + 1, n))
        assert set().union(*seen) == set(range(64))


@pytest.mark.parametrize("mode", ["raise", "kill", "exit"])
def test_a_failing_rank_stops_the_job(mode):
    proc, elapsed = mpirun(2, "faults.py", mode, timeout=3)
    assert proc.returncode != 0
    assert "passed the collective" not in proc.stdout
    assert elapsed < 60
    text = proc.stdout + proc.stderr
    if mode == "raise":
        assert "[rank 1] RuntimeError: rank 1 failed on purpose" in text
    if mode == "exit":  # the waiting rank names its collective; under heavy load the early
        # rank's exit barrier (whose deadline is later) can still time out first and say so, or
        # the job is torn down while the waiting rank has only reported its wait so far
        assert "timed out" in text or "has waited" in text, text
        assert "AllReduce" in text or "exit barrier" in text, text


def test_mismatched_parameter_shapes_name_the_parameter():
    proc, _ = mpirun(2, "faults.py", "shapes")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for rank in range(2):
        assert f"rank {rank} SHAPE_ERROR For 'DistributedGradReducer', parameter 'weight'" \
            in proc.stdout


def _launcher(*args, cwd):
    return subprocess.run([sys.executable, "-m", "minispore.run", *args], capture_output=True,
                          text=True, timeout=LAUNCH_TIMEOUT, env=_env(), cwd=cwd, check=False)


def test_launcher_joins_and_writes_one_log_per_rank(tmp_path):
    out = tmp_path / "params"
    proc = _launcher("--worker_num=2", "--join=True", f"--log_dir={tmp_path / 'logs'}",
                     os.path.join(SCRIPTS, "train_dp.py"), "functional", "float32", str(out),
                     cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for rank in range(2):
        log = (tmp_path / "logs" / f"worker_{rank}.log").read_text()
        assert f"rank {rank} of 2: functional done" in log
        assert (out / f"functional_float32_2_{rank}.npz").exists()


def test_launcher_reports_a_failed_job(tmp_path):
    proc = _launcher("--worker_num=2", "--join=True", "--cluster_time_out=3",
                     os.path.join(SCRIPTS, "faults.py"), "raise", cwd=str(tmp_path))
    assert proc.returncode != 0
    assert "Distributed job exited with exception" in proc.stderr


def test_launcher_returns_at_once_without_join(tmp_path):
    start = time.monotonic()
    proc = _launcher("--worker_num=2", f"--log_dir={tmp_path / 'logs'}",
                     os.path.join(SCRIPTS, "collectives.py"), cwd=str(tmp_path))
    assert proc.returncode == 0 and "Started 2 workers" in proc.stdout
    assert time.monotonic() - start < 30
    deadline = time.monotonic() + LAUNCH_TIMEOUT
    log = tmp_path / "logs" / "worker_1.log"
    while time.monotonic() < deadline:
        if log.exists() and "collectives OK" in log.read_text():
            break
        time.sleep(0.5)
    assert "collectives OK" in log.read_text()


def test_two_ranks_match_mindspore():
    proc, _ = mpirun(2, "against_mindspore.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "rank 0: matches MindSpore" in proc.stdout and "rank 1: matches MindSpore" in proc.stdout


@pytest.mark.parametrize("n", [2, 4])
def test_parameter_broadcast_and_bucket_layouts(n):
    proc, _ = mpirun(n, "reducer_paths.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for rank in range(n):
        assert f"rank {rank}: reducer paths OK" in proc.stdout
        assert f"rank {rank}: overlap OK" in proc.stdout


def test_model_checkpoint_in_data_parallel_writes_shared_files_once(tmp_path):
    import json

    from minispore.train.serialization import load_checkpoint

    proc, _ = mpirun(2, "checkpoints.py", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the ranks' lines may interleave in the launcher's output
    wrote = {int(r): json.loads(files)
             for r, files in re.findall(r"rank (\d+) WROTE (\[[^\]]*\])", proc.stdout)}
    steps = ("2", "4")  # 16 rows per rank in batches of 4: 4 steps, a file every 2 steps
    assert wrote[0] == sorted([f"shared/shared-1_{s}.ckpt" for s in steps] +
                              [f"rank_0/mine-1_{s}.ckpt" for s in steps] +
                              [f"only_rank_0/only-1_{s}.ckpt" for s in steps])
    assert wrote[1] == sorted(f"rank_1/mine-1_{s}.ckpt" for s in steps)
    assert sorted(os.listdir(tmp_path / "shared")) == ["shared-1_2.ckpt", "shared-1_4.ckpt"]
    ranks = [np.load(tmp_path / f"params_{r}.npz") for r in range(2)]
    for path in ("shared/shared-1_4.ckpt", "rank_1/mine-1_4.ckpt"):
        loaded = load_checkpoint(str(tmp_path / path))  # in this one plain process
        for name in ranks[0].files:
            for r in ranks:
                np.testing.assert_array_equal(loaded[name].asnumpy(), r[name], err_msg=name)
