"""Memory soak: train an MLP (784 -> 256 -> 256 -> 10, ReLU, batch 64, Momentum) for many steps
and report how resident memory and the number of live Tensors change between step `--from`
(default 200, once allocators have warmed up) and the last step.

The same script runs on real MindSpore (`--framework mindspore`, in an environment where it is
installed): the training code is MindSpore's API either way. Goal for minispore: under 1 MiB of
growth over the whole run (MindSpore 2.10 on CPU grows about 33.5 KB per step).

RSS is read from /proc/self/status (Linux); `--tracemalloc` also reports the growth of the bytes
Python and NumPy hold (exact, but it slows the run several times).

Run: python benchmarks/memory_soak.py [--steps 2000] [--from 200] [--framework minispore]
"""
import argparse
import gc
import importlib
import os
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

SIZES = (784, 256, 256, 10)
BATCH = 64


def rss_kib():
    """Resident set size of this process in KiB (Linux), or None where /proc is missing."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def live_tensors(ms):
    gc.collect()
    count = 0
    for o in gc.get_objects():
        try:
            count += isinstance(o, ms.Tensor)
        except ReferenceError:  # a dead weak proxy among the objects (MindSpore has some)
            pass
    return count


def build(ms):
    nn = ms.nn

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(SIZES[0], SIZES[1])
            self.fc2 = nn.Dense(SIZES[1], SIZES[2])
            self.fc3 = nn.Dense(SIZES[2], SIZES[3])
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))

    ms.set_seed(0)
    net = MLP()
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                 reduction="mean"))
    train = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    train.set_train()
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((BATCH, SIZES[0])).astype(np.float32))
    y = ms.Tensor(rng.integers(0, SIZES[-1], BATCH).astype(np.int32))
    return train, x, y


def soak(steps=2000, start=200, framework="minispore", trace=False):
    """Train `steps` steps; returns a dict of the figures between step `start` and the end."""
    ms = importlib.import_module(framework)
    train, x, y = build(ms)
    if trace:
        import tracemalloc
        tracemalloc.start()
    first = last = None
    t0 = time.perf_counter()
    for step in range(1, steps + 1):
        loss = train(x, y)
        if step == start:
            first = (rss_kib(), live_tensors(ms), _traced(trace), float(loss.asnumpy()))
    last = (rss_kib(), live_tensors(ms), _traced(trace), float(loss.asnumpy()))
    seconds = time.perf_counter() - t0
    if trace:
        import tracemalloc
        tracemalloc.stop()
    n = steps - start
    result = {
        "framework": framework, "steps": steps, "from_step": start, "seconds": seconds,
        "tensors_at_start": first[1], "tensors_at_end": last[1],
        "loss_at_start": first[3], "loss_at_end": last[3],
    }
    if first[0] is not None:
        result["rss_growth_kib"] = last[0] - first[0]
        result["rss_kb_per_step"] = (last[0] - first[0]) * 1.024 / n
    if trace:
        result["traced_growth_bytes"] = last[2] - first[2]
        result["traced_bytes_per_step"] = (last[2] - first[2]) / n
    return result


def _traced(trace):
    if not trace:
        return None
    import tracemalloc
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--from", dest="start", type=int, default=200)
    parser.add_argument("--framework", default="minispore", choices=("minispore", "mindspore"))
    parser.add_argument("--tracemalloc", action="store_true")
    args = parser.parse_args()
    r = soak(args.steps, args.start, args.framework, args.tracemalloc)
    print(f"memory soak: {r['framework']}, MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, "
          f"{r['steps']} steps in {r['seconds']:.1f} s "
          f"(loss {r['loss_at_start']:.4f} at step {r['from_step']}, {r['loss_at_end']:.4f} "
          "at the end)")
    if "rss_kb_per_step" in r:
        print(f"RSS growth, step {r['from_step']} to {r['steps']}: {r['rss_growth_kib']} KiB "
              f"total, {r['rss_kb_per_step']:.3f} KB per step")
    print(f"live Tensors: {r['tensors_at_start']} at step {r['from_step']}, "
          f"{r['tensors_at_end']} at the end")
    if "traced_bytes_per_step" in r:
        print(f"traced (Python + NumPy) growth: {r['traced_growth_bytes']} bytes total, "
              f"{r['traced_bytes_per_step']:.1f} bytes per step")


if __name__ == "__main__":
    main()
