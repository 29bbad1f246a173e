"""ModelCheckpoint in data parallel: `python checkpoints.py OUT_DIR` under mpirun.

Three callbacks: one directory shared by every rank (rank 0 writes each file once), one
directory per rank (each rank writes its own), and one that only rank 0 creates. Each rank
records which files it wrote itself and saves its parameters to OUT_DIR/params_<rank>.npz."""
import json
import os
import sys

import numpy as np

import minispore as mindspore
import minispore.dataset as ds
from minispore import nn
from minispore.communication import get_group_size, get_rank, init
from minispore.context import ParallelMode, set_auto_parallel_context
from minispore.train import CheckpointConfig, Model, ModelCheckpoint
from minispore.train import serialization

out = sys.argv[1]
set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)
init()
mindspore.set_seed(1)
rank, size = get_rank(), get_group_size()

written = []
save = serialization.save_checkpoint


def counted(save_obj, ckpt_file_name, *args, **kwargs):
    written.append(os.path.relpath(ckpt_file_name, out))
    return save(save_obj, ckpt_file_name, *args, **kwargs)


serialization.save_checkpoint = counted

rng = np.random.default_rng(0)
data = {"x": rng.standard_normal((32, 8)).astype(np.float32),
        "y": rng.standard_normal((32, 4)).astype(np.float32)}
dataset = ds.NumpySlicesDataset(data, shuffle=False, num_shards=size, shard_id=rank).batch(4)
net = nn.Dense(8, 4)
model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.05, 0.9))
config = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2)
callbacks = [ModelCheckpoint("shared", os.path.join(out, "shared"), config),
             ModelCheckpoint("mine", os.path.join(out, f"rank_{rank}"), config)]
if rank == 0:
    callbacks.append(ModelCheckpoint("only", os.path.join(out, "only_rank_0"), config))
model.train(1, dataset, callbacks=callbacks)
# after train returns, every rank sees rank 0's files
assert os.path.exists(callbacks[0].latest_ckpt_file_name), callbacks[0].latest_ckpt_file_name
np.savez(os.path.join(out, f"params_{rank}.npz"),
         **{p.name: p.asnumpy() for p in model.train_network.get_parameters()})
print(f"rank {rank} WROTE {json.dumps(sorted(written))}", flush=True)
