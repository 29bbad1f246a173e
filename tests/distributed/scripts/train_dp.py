"""A data-parallel training script written as MindSpore's distributed tutorial teaches: parallel
context, init(), a sharded dataset, Momentum; a TrainOneStepCell loop ('cell'), a Model.train
loop ('model') or a value_and_grad + DistributedGradReducer loop ('functional').

    python train_dp.py MODE DTYPE OUT_DIR [GLOBAL_BATCH]

MODE 'cell-graph' runs the 'cell' loop under set_context(mode=GRAPH_MODE).

Run plainly it is one process on the global batch; under mpirun each of N ranks takes
GLOBAL_BATCH / N rows per step. Each rank saves its parameters, losses and sample ids.
"""
import os
import sys

import numpy as np

import minispore as mindspore
import minispore.dataset as ds
from minispore import nn
from minispore.communication import get_group_size, get_rank, init
from minispore.context import ParallelMode, set_auto_parallel_context

run_name, dtype_name, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
mode, _, graph = run_name.partition("-")  # 'cell-graph': the 'cell' loop under GRAPH_MODE
global_batch = int(sys.argv[4]) if len(sys.argv) > 4 else 16
dtype = mindspore.float32 if dtype_name == "float32" else mindspore.float64
np_dtype = np.float32 if dtype_name == "float32" else np.float64

mindspore.set_context(mode=mindspore.GRAPH_MODE if graph else mindspore.PYNATIVE_MODE)
set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)
init()
mindspore.set_seed(1)
rank, size = get_rank(), get_group_size()

data_rng = np.random.default_rng(0)
features = data_rng.standard_normal((64, 8)).astype(np_dtype)
labels = data_rng.standard_normal((64, 4)).astype(np_dtype)
dataset = ds.NumpySlicesDataset({"x": features, "y": labels, "idx": np.arange(64)},
                                shuffle=False, num_shards=size, shard_id=rank)
dataset = dataset.batch(global_batch // size, drop_remainder=True)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(8, 16, dtype=dtype)
        self.act = nn.ReLU()
        self.fc2 = nn.Dense(16, 4, dtype=dtype)

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


net = Net()
loss_fn = nn.MSELoss()
optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
losses, seen = [], []

if mode == "cell":
    train_step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)
    assert isinstance(train_step.grad_reducer, nn.DistributedGradReducer)
    for epoch in range(2):
        for batch in dataset.create_dict_iterator():
            losses.append(float(train_step(batch["x"], batch["y"]).asnumpy()))
            seen.append(batch["idx"].asnumpy())
elif mode == "model":
    model = mindspore.train.Model(net, loss_fn, optimizer)
    model.train(2, dataset.project(["x", "y"]), dataset_sink_mode=False)
    losses.append(0.0)
    seen.append(np.arange(rank, 64, size))
else:
    def forward_fn(x, y):
        logits = net(x)
        return loss_fn(logits, y), logits

    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
    grad_reducer = nn.DistributedGradReducer(optimizer.parameters)
    for epoch in range(2):
        for batch in dataset.create_dict_iterator():
            (loss, _), grads = grad_fn(batch["x"], batch["y"])
            grads = grad_reducer(grads)
            optimizer(grads)
            losses.append(float(loss.asnumpy()))
            seen.append(batch["idx"].asnumpy())

os.makedirs(out_dir, exist_ok=True)
params = {p.name: p.asnumpy() for p in net.trainable_params()}
np.savez(os.path.join(out_dir, f"{run_name}_{dtype_name}_{size}_{rank}.npz"), losses=np.array(losses),
         seen=np.concatenate(seen), **params)
print(f"rank {rank} of {size}: {mode} done, last loss {losses[-1]:.6f}", flush=True)
