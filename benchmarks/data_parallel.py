"""Data parallel on MPI: the W2 MLP step (784-512-512-10, ReLU, softmax cross-entropy, SGD),
global batch 256, as 1 process x 2 BLAS threads against 2 processes x 1 thread with batch 128
each, the second without communication, with a blocking reduction after the backward, and with
buckets started during the backward walk (overlap).

Run: python benchmarks/data_parallel.py [--runs 3] [--steps 20] [--rounds 5]

Each run starts a fresh job (`python` for 1 process, `mpiexec -n 2` for 2); inside a job the
variants are timed in alternation (`--steps` steps each, `--rounds` times). Reported: the median
step time of each run, as a range over runs; for the 2-process variants also the time the step
spends in the reducer after the walk (the wait left: the whole reduction when blocking, what the
started buckets still need when overlapped), the hidden share
1 - (T_overlap - T_none) / (T_blocking - T_none), and the bytes all-reduced per step.
Needs the dist extra (mpi4py and an MPI: pip install 'minispore[dist]').
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
GLOBAL_BATCH = 256


def worker(batch, steps, rounds):
    import numpy as np

    sys.path.insert(0, ROOT)
    import minispore as ms
    from minispore import Tensor, nn
    from minispore.communication import get_group_size, get_rank, init
    from minispore.context import ParallelMode, set_auto_parallel_context

    init()
    rank, size = get_rank(), get_group_size()
    rng = np.random.default_rng(rank)
    x = Tensor(rng.standard_normal((batch, 784)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, batch).astype(np.int32))
    waits = {}

    class TimedReducer(nn.DistributedGradReducer):
        """The reducer, noting how long each call (the part of the step after the walk) takes."""

        def construct(self, grads):
            t0 = time.perf_counter()
            out = super().construct(grads)
            waits[self.label].append(time.perf_counter() - t0)
            return out

    def build(label, overlap=None):
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(),
                                nn.Dense(512, 10))
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                                   nn.SGD(net.trainable_params(), 0.01))
        if overlap is not None:
            step.grad_reducer = TimedReducer(step.weights, step.mean, step.degree)
            step.grad_reducer.label = label
            step.grad_reducer.overlap = overlap
            waits[label] = []
        return step

    variants = {"no communication": build("no communication")}
    payload = 0
    if size > 1:
        set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)
        variants["blocking reduction"] = build("blocking reduction", overlap=False)
        variants["buckets during the walk"] = build("buckets during the walk", overlap=True)
        payload = variants["blocking reduction"].grad_reducer.bytes_per_step
        buckets = len(variants["blocking reduction"].grad_reducer.buckets)
    times = {name: [] for name in variants}
    for step in variants.values():  # warm-up
        for _ in range(3):
            step(x, y)
    for _ in range(rounds):
        for name, step in variants.items():
            for _ in range(steps):
                t0 = time.perf_counter()
                step(x, y)
                times[name].append(time.perf_counter() - t0)
    if rank == 0:
        result = {name: {"step": statistics.median(v),
                         "wait": statistics.median(waits[name]) if name in waits else 0.0}
                  for name, v in times.items()}
        result["bytes"] = payload
        result["buckets"] = buckets if size > 1 else 0
        print("RESULT " + json.dumps(result), flush=True)


def _mpiexec():
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return beside if os.path.exists(beside) else shutil.which("mpiexec")


def _job(cmd, threads):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, check=False)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")


def _span(values, scale=1e3):
    lo, hi = min(values) * scale, max(values) * scale
    return f"{lo:.2f}" if round(lo, 2) == round(hi, 2) else f"{lo:.2f}-{hi:.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker, args.steps, args.rounds)
        return
    mpiexec = _mpiexec()
    if mpiexec is None:
        sys.exit("no mpiexec beside Python or on PATH: pip install 'minispore[dist]'")
    me = [sys.executable, os.path.abspath(__file__), "--steps", str(args.steps),
          "--rounds", str(args.rounds), "--worker"]
    single, double = [], []
    for _ in range(args.runs):
        single.append(_job(me + [str(GLOBAL_BATCH)], 2))
        double.append(_job([mpiexec, "-n", "2"] + me + [str(GLOBAL_BATCH // 2)], 1))
    base = [r["no communication"]["step"] for r in single]
    print(f"W2 step, global batch {GLOBAL_BATCH}; ranges over {args.runs} runs of the median "
          f"step time ({args.rounds} x {args.steps} steps per variant and run)")
    print(f"{'setting':58s} {'step ms':>13s} {'wait after walk ms':>19s} {'x 1x2 threads':>14s}")
    print(f"{'1 process x 2 threads, batch 256':58s} {_span(base):>13s} {'-':>19s} {'1':>14s}")
    for name in ("no communication", "blocking reduction", "buckets during the walk"):
        steps = [r[name]["step"] for r in double]
        ratio = [s / b for s, b in zip(steps, base)]
        wait = _span([r[name]["wait"] for r in double]) if name != "no communication" else "-"
        print(f"{'2 processes x 1 thread, batch 128: ' + name:58s} {_span(steps):>13s} "
              f"{wait:>19s} {_span(ratio, 1):>14s}")
    hidden = []
    for r in double:
        none = r["no communication"]["step"]
        cost = r["blocking reduction"]["step"] - none
        if cost > 0:
            hidden.append(1 - (r["buckets during the walk"]["step"] - none) / cost)
    payload = double[0]["bytes"]
    print(f"all-reduced per step: {payload / 1e6:.2f} MB in {double[0]['buckets']} buckets "
          f"(ring traffic per rank at N ranks: 2(N-1)/N x that, {payload / 1e6:.2f} MB at N=2)")
    if hidden:
        print(f"communication hidden by the overlap: {_span(hidden, 100)} % "
              f"(1 - (overlap - none) / (blocking - none), per run)")


if __name__ == "__main__":
    main()
