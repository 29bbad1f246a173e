"""Records MindSpore 2.10's collective values and gradients on 2 CPU workers (msrun), for
tests/distributed/scripts/against_mindspore.py. Run from a scratch directory:
    /tmp/msvenv/bin/msrun --worker_num=2 --local_worker_num=2 --join=True \
        /work/main/tests/distributed/data/make_mindspore_comm_msrun.py
Rank 0 writes data/mindspore_comm_2ranks.npz."""
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops
from mindspore.communication import get_rank, init

ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
init()
rank = get_rank()
rng = np.random.default_rng(7)
xs = rng.standard_normal((2, 3, 4)).astype(np.float32)
ws = rng.standard_normal((2, 3, 4)).astype(np.float32)
x, w = Tensor(xs[rank]), Tensor(ws[rank])
all_reduce, all_gather = ops.AllReduce(), ops.AllGather()
out = {}
out["all_reduce"] = all_reduce(x).asnumpy()
out["all_gather"] = all_gather(x).asnumpy()
out["broadcast"] = ops.Broadcast(1)((x,))[0].asnumpy()
out["grad_all_reduce"] = ms.grad(lambda t: (all_reduce(t) * w).sum())(x).asnumpy()
# AllGather's gradient is a ReduceScatter, which MindSpore 2.10 has no CPU kernel for.
out["grad_broadcast"] = ms.grad(lambda t: (ops.Broadcast(1)((t,))[0] * w).sum())(x).asnumpy()
net = nn.Dense(4, 3)
reducer = nn.DistributedGradReducer(net.trainable_params())
grads = (Tensor(ws[rank]), Tensor(ws[rank][0, :3].copy()))
out["reduced_0"], out["reduced_1"] = (g.asnumpy() for g in reducer(grads))
gathered = {k: all_gather(Tensor(v[None])).asnumpy() for k, v in out.items()
            }
if rank == 0:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_comm_2ranks.npz")
    np.savez(path, xs=xs, ws=ws, **gathered)
    print("wrote", path)
