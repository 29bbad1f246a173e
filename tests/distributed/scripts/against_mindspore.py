"""On 2 ranks, the collectives, their gradients and DistributedGradReducer against MindSpore
2.10's own 2-worker run (data/mindspore_comm_2ranks.npz, from make_mindspore_comm_msrun.py)."""
import os

import numpy as np

import minispore as ms
from minispore import Tensor, nn
from minispore.communication import get_rank, init
from minispore.context import ParallelMode, set_auto_parallel_context
from minispore.ops.operations import comm_ops as C

set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)
init()
rank = get_rank()
ref = np.load(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                           "mindspore_comm_2ranks.npz"))
xs, ws = ref["xs"], ref["ws"]
x, w = Tensor(xs[rank]), Tensor(ws[rank])
got = {
    "all_reduce": C.AllReduce()(x),
    "all_gather": C.AllGather()(x),
    "broadcast": C.Broadcast(1)((x,))[0],
    "grad_all_reduce": ms.grad(lambda t: (C.AllReduce()(t) * w).sum())(x),
    "grad_broadcast": ms.grad(lambda t: (C.Broadcast(1)((t,))[0] * w).sum())(x),
}
net = nn.Dense(4, 3)
reducer = nn.DistributedGradReducer(net.trainable_params())
got["reduced_0"], got["reduced_1"] = reducer((Tensor(ws[rank]),
                                              Tensor(ws[rank][0, :3].copy())))
for name, value in got.items():
    expected = ref[name][rank]
    assert value.dtype == ms.float32, (name, value.dtype)
    np.testing.assert_allclose(value.asnumpy(), expected, rtol=1e-6, atol=1e-6, err_msg=name)
print(f"rank {rank}: matches MindSpore", flush=True)
