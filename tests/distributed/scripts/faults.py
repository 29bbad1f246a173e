"""A rank that fails: `python faults.py MODE` under mpirun, MODE one of
raise (rank 1 raises), kill (rank 1 kills itself), exit (rank 1 returns early),
shapes (rank 1's parameter has another shape: every rank reports it and exits 0)."""
import os
import signal
import sys

import numpy as np

import minispore as mindspore
from minispore import Tensor, nn
from minispore.communication import get_rank, init
from minispore.ops.operations import comm_ops as C

mode = sys.argv[1]
init()
rank = get_rank()
if mode == "shapes":
    net = nn.Dense(3, 2 + rank)
    reducer = nn.DistributedGradReducer(net.trainable_params(), mean=True)
    try:
        reducer(tuple(mindspore.ops.zeros_like(p) for p in net.trainable_params()))
    except ValueError as err:
        print(f"rank {rank} SHAPE_ERROR {err}", flush=True)
        sys.exit(0)
    raise AssertionError("mismatched parameter shapes were not detected")
if rank == 1:
    if mode == "raise":
        raise RuntimeError("rank 1 failed on purpose")
    if mode == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "exit":
        sys.exit(0)
C.AllReduce()(Tensor(np.ones(3)))
print(f"rank {rank} passed the collective", flush=True)
