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
