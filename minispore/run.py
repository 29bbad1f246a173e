"""`python -m minispore.run`: msrun's command line, starting a script on N ranks under the
`mpiexec` of the installed MPI (the `mpich` wheel's, or Open MPI's).

    python -m minispore.run --worker_num=4 --join=True --log_dir=logs train.py --epochs 2

is `mpiexec -n 4 python train.py --epochs 2`, with each rank's output in
`logs/worker_<rank>.log`. Each rank runs the script through a small shim that aborts the whole job
when the script raises on any rank.
"""
import argparse
import os
import runpy
import shutil
import subprocess
import sys
import time

from .communication import _backend

__all__ = ["main", "mpiexec_command"]

_WORKER_FLAG = "--minispore-worker"


def _bool(text):
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected True or False, got {text!r}")


def _parser():
    p = argparse.ArgumentParser(prog="python -m minispore.run",
                                description="Start a data-parallel script on N ranks with MPI.")
    p.add_argument("--worker_num", type=int, default=8, help="total ranks (default 8)")
    p.add_argument("--local_worker_num", type=int, default=None,
                   help="ranks per machine (with --hostfile; default: worker_num)")
    p.add_argument("--master_addr", default="127.0.0.1", help="accepted; MPI needs no scheduler")
    p.add_argument("--master_port", type=int, default=8118, help="accepted; unused")
    p.add_argument("--node_rank", type=int, default=-1, help="accepted; unused")
    p.add_argument("--log_dir", default="", help="write each rank's output to "
                   "LOG_DIR/<worker_log_name or worker_RANK.log>; default: the terminal")
    p.add_argument("--join", type=_bool, default=False,
                   help="wait for the job and return its exit code (default False: return at "
                        "once)")
    p.add_argument("--cluster_time_out", type=int, default=600,
                   help="seconds a collective may wait for its peers before the job aborts")
    p.add_argument("--bind_core", type=_bool, default=False, help="bind each rank to a core")
    p.add_argument("--worker_log_name", default="", help="log file name (RANK is replaced)")
    p.add_argument("--tail_worker_log", default="-1", help="accepted; logs are complete files")
    p.add_argument("--hostfile", default="", help="MPI host file for a multi-machine job")
    p.add_argument("--mpiexec", default="", help="the mpiexec to use (default: next to Python, "
                                                 "then PATH)")
    p.add_argument("task_script", help="the script each rank runs")
    p.add_argument("task_script_args", nargs=argparse.REMAINDER)
    return p


def find_mpiexec():
    """The `mpiexec` installed beside this Python (the MPI wheels put it there), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(beside):
        return beside
    found = shutil.which("mpiexec") or shutil.which("mpirun")
    if found is None:
        raise RuntimeError(f"No mpiexec found beside {sys.executable} or on PATH: "
                           f"{_backend.DIST_EXTRA_HINT}")
    return found


def _flavour(mpiexec):
    text = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30,
                          check=False).stdout
    return "openmpi" if ("Open MPI" in text or "OpenRTE" in text) else "mpich"


def mpiexec_command(args, mpiexec=None):
    """The argument list that starts `args` (parsed options) under MPI."""
    mpiexec = mpiexec or args.mpiexec or find_mpiexec()
    flavour = _flavour(mpiexec)
    cmd = [mpiexec, "-n", str(args.worker_num)]
    if flavour == "openmpi":
        cmd.append("--oversubscribe")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
        if args.hostfile:
            cmd += ["--hostfile", args.hostfile]
            if args.local_worker_num:
                cmd += ["--map-by", f"ppr:{args.local_worker_num}:node"]
        if args.bind_core:
            cmd += ["--bind-to", "core"]
    else:
        if args.hostfile:
            cmd += ["-f", args.hostfile]
            if args.local_worker_num:
                cmd += ["-ppn", str(args.local_worker_num)]
        if args.bind_core:
            cmd += ["-bind-to", "core"]
    log_name = args.worker_log_name or "worker_RANK.log"
    log_path = os.path.join(os.path.abspath(args.log_dir), log_name) if args.log_dir else ""
    cmd += [sys.executable, "-m", "minispore.run", _WORKER_FLAG, log_path,
            os.path.abspath(args.task_script), *args.task_script_args]
    return cmd


def _run_worker(log_path, script, script_args):
    """One rank: its output to its log, MPI up before user code, the script as `__main__`."""
    found = _backend.launcher_world()
    rank = found[0] if found else 0
    if log_path:
        path = log_path.replace("RANK", str(rank))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    if found and found[1] > 1:
        _backend.mpi_module()
    sys.argv = [script, *script_args]
    sys.path.insert(0, os.path.dirname(script))
    runpy.run_path(script, run_name="__main__")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == _WORKER_FLAG:
        _run_worker(argv[1], argv[2], argv[3:])
        return 0
    args = _parser().parse_args(argv)
    if args.worker_num < 1:
        raise SystemExit("--worker_num must be positive")
    cmd = mpiexec_command(args)
    env = dict(os.environ, MINISPORE_COMM_TIMEOUT=str(args.cluster_time_out))
    if args.log_dir:
        os.makedirs(args.log_dir, exist_ok=True)
    if not args.join:
        if args.log_dir:
            with open(os.path.join(args.log_dir, "launcher.log"), "w") as log:
                proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        else:
            proc = subprocess.Popen(cmd, env=env, stdout=None, stderr=None,
                                    start_new_session=True)
        where = os.path.abspath(args.log_dir) if args.log_dir else "this terminal"
        print(f"Started {args.worker_num} workers (mpiexec pid {proc.pid}); logs: {where}")
        return 0
    start = time.monotonic()
    code = subprocess.run(cmd, env=env, check=False).returncode
    if code != 0:
        where = os.path.abspath(args.log_dir) if args.log_dir else "the output above"
        print(f"Distributed job exited with exception (exit code {code}, after "
              f"{time.monotonic() - start:.1f} s). Please check logs in {where}.",
              file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
