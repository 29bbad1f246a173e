"""parameter_broadcast makes every rank start from rank 0's weights; the reducer's result does not
depend on its bucket layout or on reducing tensor by tensor (bitwise, on the MPICH wheel)."""
import numpy as np

import minispore as mindspore
from minispore import Tensor, nn
from minispore.communication import get_group_size, get_rank, init
from minispore.context import ParallelMode, set_auto_parallel_context
from minispore.nn.wrap.grad_reducer import bucket_layout
from minispore.ops.operations import comm_ops as C

init()
rank, size = get_rank(), get_group_size()
mindspore.set_seed(100 + rank)
set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True,
                          parameter_broadcast=True)
net = nn.SequentialCell(nn.Dense(300, 200), nn.ReLU(), nn.Dense(200, 10))
step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                           nn.Momentum(net.trainable_params(), 0.1, 0.9))
for p in net.trainable_params():
    everyone = C.AllGather()(Tensor(p.asnumpy()[None])).asnumpy()
    assert all(np.array_equal(everyone[0], e) for e in everyone), p.name

params = net.trainable_params()
rng = np.random.default_rng(rank)
grads = tuple(Tensor(rng.standard_normal(p.shape).astype(np.float32)) for p in params)
default = nn.DistributedGradReducer(params, mean=True)
fused = nn.DistributedGradReducer(params, mean=True)
fused.buckets = bucket_layout(fused._shapes, fused._dtypes, (), 1 << 40, 1 << 40)
tiny = nn.DistributedGradReducer(params, mean=True)
tiny.buckets = bucket_layout(tiny._shapes, tiny._dtypes, (), 1, 1)
assert len(fused.buckets) == 1 and len(tiny.buckets) == len(params)
results = [r(grads) for r in (default, fused, tiny)]
one_by_one = [C.AllReduce()(g).asnumpy() * np.float32(1 / size) for g in grads]
for k in range(len(params)):
    for r in results[1:]:
        assert np.array_equal(results[0][k].asnumpy(), r[k].asnumpy()), k
    assert np.array_equal(results[0][k].asnumpy(), one_by_one[k]), k
print(f"rank {rank}: reducer paths OK", flush=True)

# Overlap: each bucket's all-reduce starts during the backward walk, as soon as its gradients
# are final, and the result is bitwise the blocking reduction's.
set_auto_parallel_context(parameter_broadcast=False)
trace = []


class Probe(nn.Cell):
    """The identity, whose bprop notes in `trace` when the walk passes it."""

    def __init__(self, name):
        super().__init__()
        self.label = name

    def construct(self, x):
        return x

    def bprop(self, x, out, dout):
        trace.append(self.label)
        return (dout,)


def probed_net(dtype):
    mindspore.set_seed(7)
    return nn.SequentialCell(nn.Dense(30, 20, dtype=dtype), Probe("walk passed layer 2"),
                             nn.ReLU(), nn.Dense(20, 20, dtype=dtype),
                             Probe("walk passed layer 3"), nn.ReLU(), nn.Dense(20, 5, dtype=dtype))


def train(dtype, overlap, caps, steps=3):
    net = probed_net(dtype)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    reducer = step.grad_reducer
    reducer.overlap = overlap
    reducer.buckets = bucket_layout(reducer._shapes, reducer._dtypes, (), *caps)
    reducer.trace = trace
    data = np.random.default_rng(rank)
    for _ in range(steps):
        del trace[:]
        x = data.standard_normal((8, 30))
        y = data.standard_normal((8, 5))
        step(Tensor(x, dtype), Tensor(y, dtype))
    return [p.asnumpy() for p in net.trainable_params()], list(trace), len(reducer.buckets)


for dtype in (mindspore.float32, mindspore.float64):
    blocking, blocking_trace, _ = train(dtype, False, (1, 1))
    # blocking: every bucket starts after the walk has ended
    assert blocking_trace[:2] == ["walk passed layer 3", "walk passed layer 2"], blocking_trace
    for caps in ((1, 1), (1 << 40, 1 << 40), (900, 900)):
        overlapped, events, n = train(dtype, True, caps)
        for a, b in zip(overlapped, blocking):
            assert np.array_equal(a, b), (dtype, caps)
        if caps == (1, 1):  # one bucket per parameter, in reverse order: b3 W3 b2 W2 b1 W1
            assert events == [("start", 0), ("start", 1), "walk passed layer 3", ("start", 2),
                              ("start", 3), "walk passed layer 2", ("start", 4), ("start", 5),
                              *[("wait", k) for k in range(6)]], events
        else:  # every bucket starts before the reducer is called after the walk; with several,
            # the first starts while the walk still has layers to pass
            starts = [e for e in events if e[0] == "start"]
            assert len(starts) == n and events.index(("wait", 0)) > events.index(starts[-1]), events
            assert n == 1 or events.index(("start", 0)) < events.index("walk passed layer 2"), \
                events
print(f"rank {rank}: overlap OK", flush=True)
