"""Data-parallel step times for the W2 MLP (784-512-512-10, ReLU, softmax cross-entropy, SGD).

    OPENBLAS_NUM_THREADS=2 python bench_data_parallel.py 256          # 1 process x 2 threads
    OPENBLAS_NUM_THREADS=1 mpiexec -n 2 python bench_data_parallel.py 128   # 2 ranks x 1 thread

Per step: the backward, then the gradient reduction (none / one fused all-reduce / buckets), then
the update. The reduction's time includes waiting for the slowest rank's backward; the last
variant meets at a barrier first, so its reduction time is the all-reduce alone. Prints medians (ms) on rank 0 and the bytes all-reduced per step.
"""
import sys
import time

import numpy as np

import minispore as ms
from minispore import Tensor, nn
from minispore.communication import get_group_size, get_rank, init
from minispore.nn.wrap import grad_reducer as GR
from minispore.ops.operations import comm_ops as ops

batch = int(sys.argv[1]) if len(sys.argv) > 1 else 128
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 40
init()
rank, size = get_rank(), get_group_size()
ms.set_seed(0)
net = nn.SequentialCell(nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(),
                        nn.Dense(512, 10))
loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.SGD(net.trainable_params(), 0.01)
grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
rng = np.random.default_rng(rank)
x = Tensor(rng.standard_normal((batch, 784)).astype(np.float32))
y = Tensor(rng.integers(0, 10, batch).astype(np.int32))


def make(first_cap, cap):
    r = nn.DistributedGradReducer(opt.parameters, mean=True)
    r.buckets = GR.bucket_layout(r._shapes, r._dtypes, (), first_cap, cap)
    return r


variants = {"no communication": None, "one fused all-reduce": make(1 << 40, 1 << 40),
            "buckets (1 MB, then 4 MB)": make(GR.FIRST_BUCKET_BYTES, GR.BUCKET_BYTES),
            "barrier, then buckets": make(GR.FIRST_BUCKET_BYTES, GR.BUCKET_BYTES)}
barrier = ops.Barrier()
results = {}
for name, reducer in variants.items():
    back, red, total = [], [], []
    for step in range(steps + 5):
        t0 = time.perf_counter()
        loss, grads = grad_fn(x, y)
        if name.startswith("barrier"):
            barrier()
        t1 = time.perf_counter()
        if reducer is not None:
            grads = reducer(grads)
        t2 = time.perf_counter()
        opt(grads)
        t3 = time.perf_counter()
        if step >= 5:
            back.append(t1 - t0)
            red.append(t2 - t1)
            total.append(t3 - t0)
    results[name] = [1e3 * float(np.median(v)) for v in (total, back, red)]
    nbuckets = len(reducer.buckets) if reducer is not None else 0
    results[name].append(nbuckets)
if rank == 0:
    payload = variants["one fused all-reduce"].bytes_per_step
    print(f"{size} process(es), batch {batch} per rank; all-reduced per step: "
          f"{payload / 1e6:.2f} MB (ring traffic per rank {2 * (size - 1) / size * payload / 1e6:.2f}"
          f" MB)")
    print(f"{'variant':30s} {'step ms':>8s} {'fwd+bwd':>8s} {'reduce':>8s} {'buckets':>7s}")
    for name, (total, back, red, nb) in results.items():
        print(f"{name:30s} {total:8.2f} {back:8.2f} {red:8.2f} {nb:7d}")
