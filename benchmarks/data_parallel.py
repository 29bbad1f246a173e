"""Data parallel on MPI: the W2 MLP step (784-512-512-10, ReLU, softmax cross-entropy, SGD),
global batch 256, as 1 process x 2 BLAS threads against 2 processes x 1 thread with batch 128
each, the second without communication, with a blocking reduction after the backward, and with
buckets started during the backward walk (overlap).

Run: python benchmarks/data_parallel.py [--runs 3] [--steps 20] [--rounds 5]

Each run starts a fresh job (`python` for 1 process, `mpiexec -n 2` for 2); inside a job the
variants are timed in alternation (`--steps` steps each, `--rounds` times). Reported: the median
step time of each run, as the median and the range over runs; for the 2-process variants also
the time the step spends in the reducer after the walk (the wait left: the whole reduction when
blocking, what the started buckets still need when overlapped), the hidden share
1 - (T_overlap - T_none) / (T_blocking - T_none), and the bytes all-reduced per step. Per bucket:
its bytes, the backward time left after it starts (what it can hide behind) and the time of its
all-reduce alone (after a barrier), the inputs of the scaling model in the README.
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

    starts = {}  # (variant, bucket) -> [backward time left after it started]

    class Events(list):
        """The reducer's trace, with the time of each bucket's start."""

        def append(self, event):
            if event[0] == "start":
                super().append((event[1], time.perf_counter()))

    class TimedReducer(nn.DistributedGradReducer):
        """The reducer, noting how long each call (the part of the step after the walk) takes
        and, with overlap, how much of the walk was left after each bucket started."""

        def construct(self, grads):
            t0 = time.perf_counter()
            if self.trace is not None:
                for k, t in self.trace:
                    starts.setdefault((self.label, k), []).append(t0 - t)
                del self.trace[:]
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
            step.grad_reducer.trace = Events() if overlap else None
            waits[label] = []
        return step

    variants = {"no communication": build("no communication")}
    payload = 0
    if size > 1:
        set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)
        variants["blocking reduction"] = build("blocking reduction", overlap=False)
        variants["buckets during the walk"] = build("buckets during the walk", overlap=True)
        # one bucket per layer (MindSpore's all_reduce_fusion_config): the second layer's
        # weight no longer waits in the first layer's bucket
        set_auto_parallel_context(all_reduce_fusion_config=[2, 4])
        variants["per-layer buckets during the walk"] = build("per-layer buckets during the walk",
                                                              overlap=True)
        set_auto_parallel_context(all_reduce_fusion_config=[])
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
    bucket_times = {}
    if size > 1:
        from minispore.communication import _backend
        from minispore.ops.operations import comm_ops

        group = _backend.STATE.world
        for label in ("buckets during the walk", "per-layer buckets during the walk"):
            reducer = variants[label].grad_reducer
            bucket_times[label] = []
            for k in range(len(reducer.buckets)):
                flat = np.ones(reducer._pack_buffer(k).size, np.float32)
                alone = []
                for _ in range(30):
                    comm_ops.Barrier()()
                    t0 = time.perf_counter()
                    request, _ = _backend.iallreduce(group, flat, "sum", slot=("bench", k))
                    _backend.wait(request, "benchmark all-reduce")
                    alone.append(time.perf_counter() - t0)
                bucket_times[label].append({
                    "bytes": flat.nbytes, "alone": statistics.median(alone),
                    "left": statistics.median(starts.get((label, k), [0.0]))})
    if rank == 0:
        result = {name: {"step": statistics.median(v),
                         "wait": statistics.median(waits[name]) if name in waits else 0.0}
                  for name, v in times.items()}
        result["bytes"] = payload
        result["buckets"] = bucket_times
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
    """'median (min-max)' of `values` times `scale`."""
    mid, lo, hi = (statistics.median(values) * scale, min(values) * scale, max(values) * scale)
    return f"{mid:.2f}" if round(lo, 2) == round(hi, 2) else f"{mid:.2f} ({lo:.2f}-{hi:.2f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=6)
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
    print(f"W2 step, global batch {GLOBAL_BATCH}: median (min-max) over {args.runs} runs of the "
          f"median step time ({args.rounds} x {args.steps} steps per variant and run)")
    print(f"{'setting':66s} {'step ms':>20s} {'wait after walk ms':>20s} {'x 1x2 threads':>18s}")
    print(f"{'1 process x 2 threads, batch 256':66s} {_span(base):>20s} {'-':>20s} {'1':>18s}")
    for name in ("no communication", "blocking reduction", "buckets during the walk",
                 "per-layer buckets during the walk"):
        steps = [r[name]["step"] for r in double]
        ratio = [s / b for s, b in zip(steps, base)]
        wait = _span([r[name]["wait"] for r in double]) if name != "no communication" else "-"
        print(f"{'2 processes x 1 thread, batch 128: ' + name:66s} {_span(steps):>20s} "
              f"{wait:>20s} {_span(ratio, 1):>18s}")
    payload = double[0]["bytes"]
    print(f"all-reduced per step: {payload / 1e6:.2f} MB (ring traffic per rank at N ranks: "
          f"2(N-1)/N x that, {payload / 1e6:.2f} MB at N=2)")
    for label in double[0]["buckets"]:
        hidden = []
        for r in double:
            none = r["no communication"]["step"]
            cost = r["blocking reduction"]["step"] - none
            if cost > 0:
                hidden.append(1 - (r[label]["step"] - none) / cost)
        print(f"{label}: communication hidden {_span(hidden, 100) if hidden else '-'} % "
              f"(1 - (overlap - none) / (blocking - none))")
        for k in range(len(double[0]["buckets"][label])):
            rows = [r["buckets"][label][k] for r in double]
            print(f"  bucket {k}: {rows[0]['bytes'] / 1e6:.3f} MB; backward left after it starts "
                  f"{_span([b['left'] for b in rows])} ms; its all-reduce alone "
                  f"{_span([b['alone'] for b in rows])} ms")


if __name__ == "__main__":
    main()
