"""`ops.communication` (MindSpore's torch.distributed-style calls) against their definitions, on
any number of ranks (a plain run is a world of one). Rank r's inputs are built from r, so every
rank knows what every other rank sent. Prints "rank R of N: ops.communication OK"."""
import numpy as np

import minispore as mindspore
from minispore import Tensor, ops
from minispore.ops import communication as dist

dist.init_process_group()
assert dist.is_available() and dist.is_initialized()
rank, n = dist.get_rank(), dist.get_world_size()
dist.init_process_group(world_size=n)  # a second call is a no-op; the size must match
ranks = range(n)


def x_of(r, rows=3):
    return np.arange(rows * 2, dtype=np.float64).reshape(rows, 2) + 10.0 * r + 1


def T(a):
    return Tensor(np.array(a))


# all_reduce, in place, every op; async; out of place (differentiable)
everyone = np.stack([x_of(r) for r in ranks])
for op, ref in (("sum", everyone.sum(0)), ("prod", everyone.prod(0)), ("min", everyone.min(0)),
                ("max", everyone.max(0)), ("avg", everyone.mean(0))):
    t = T(x_of(rank))
    assert dist.all_reduce(t, op) is None
    np.testing.assert_allclose(t.asnumpy(), ref, rtol=1e-12, err_msg=op)
t = T(x_of(rank))
handle = dist.all_reduce(t, async_op=True)
handle.wait()
np.testing.assert_allclose(t.asnumpy(), everyone.sum(0))
dist.set_comm_ops_inplace(False, ["all_reduce"])
w = T(np.full((3, 2), 2.0))


def weighted(x):
    out, h = dist.all_reduce(x)
    assert h is None
    return (out * w).sum()


value, grad = mindspore.value_and_grad(weighted)(T(x_of(rank)))
np.testing.assert_allclose(value.asnumpy(), (everyone.sum(0) * 2).sum())
np.testing.assert_allclose(grad.asnumpy(), np.full((3, 2), 2.0 * n))  # all-reduce of dout
dist.set_comm_ops_inplace(True)

# gathers and scatters into tensors
out = T(np.zeros((3 * n, 2)))
dist.all_gather_into_tensor(out, T(x_of(rank)))
np.testing.assert_array_equal(out.asnumpy(), np.concatenate([x_of(r) for r in ranks]))
out = T(np.zeros((sum(r + 1 for r in ranks), 2)))
dist.all_gather_into_tensor_uneven(out, T(x_of(rank, rank + 1)), [r + 1 for r in ranks])
np.testing.assert_array_equal(out.asnumpy(), np.concatenate([x_of(r, r + 1) for r in ranks]))
big = np.stack([x_of(r, 2 * n) for r in ranks])
out = T(np.zeros((2, 2)))
dist.reduce_scatter_tensor(out, T(big[rank]))
np.testing.assert_allclose(out.asnumpy(), big.sum(0)[2 * rank:2 * rank + 2])
dist.reduce_scatter_tensor(out, T(big[rank]), "max")
np.testing.assert_allclose(out.asnumpy(), big.max(0)[2 * rank:2 * rank + 2])
sizes = [1 + r % 2 for r in ranks]
uneven = np.stack([x_of(r, sum(sizes)) for r in ranks])
out = T(np.zeros((sizes[rank], 2)))
dist.reduce_scatter_tensor_uneven(out, T(uneven[rank]), sizes, "avg")
start = sum(sizes[:rank])
np.testing.assert_allclose(out.asnumpy(), uneven.mean(0)[start:start + sizes[rank]])
t = T(x_of(rank))
dist.reduce(t, n - 1)
np.testing.assert_allclose(t.asnumpy(), everyone.sum(0) if rank == n - 1 else x_of(rank))
t = T(x_of(rank))
dist.broadcast(t, n - 1)
np.testing.assert_array_equal(t.asnumpy(), x_of(n - 1))
assert dist.barrier(async_op=True).wait() is None and dist.barrier() is None
out = T(np.full((3 * n, 2), -1.0))
dist.gather_into_tensor(out, T(x_of(rank)), dst=0)
np.testing.assert_array_equal(out.asnumpy(), np.concatenate([x_of(r) for r in ranks])
                              if rank == 0 else np.full((3 * n, 2), -1.0))
out = T(np.zeros((2, 2)))
dist.scatter_tensor(out, T(x_of(0, 2 * n) if rank == 0 else np.zeros((2 * n, 2))), src=0)
np.testing.assert_array_equal(out.asnumpy(), x_of(0, 2 * n)[2 * rank:2 * rank + 2])

# list forms
outs = [T(np.zeros((3, 2))) for _ in ranks]
dist.all_gather(outs, T(x_of(rank)))
for r in ranks:
    np.testing.assert_array_equal(outs[r].asnumpy(), x_of(r))
out = T(np.zeros((3, 2)))
dist.reduce_scatter(out, [T(x_of(rank + 5 * j)) for j in ranks])
np.testing.assert_allclose(out.asnumpy(), sum(x_of(r + 5 * rank) for r in ranks))
out = T(np.zeros((3, 2)))
dist.scatter(out, [T(x_of(j)) for j in ranks] if rank == 0 else [T(np.zeros((3, 2)))] * n, src=0)
np.testing.assert_array_equal(out.asnumpy(), x_of(rank))
outs = [T(np.zeros((3, 2))) for _ in ranks]
dist.gather(T(x_of(rank)), outs, dst=n - 1)
for r in ranks:
    np.testing.assert_array_equal(outs[r].asnumpy(), x_of(r) if rank == n - 1 else 0)

# all-to-all: piece (i -> j) has j + 1 rows and values 100 i + j
outs = [T(np.zeros((rank + 1, 2))) for _ in ranks]
dist.all_to_all(outs, [T(np.full((j + 1, 2), 100.0 * rank + j)) for j in ranks])
for i in ranks:
    np.testing.assert_array_equal(outs[i].asnumpy(), np.full((rank + 1, 2), 100.0 * i + rank))
dist.set_comm_ops_inplace(False, ["all_to_all", "all_to_all_single"])
got, handle = dist.all_to_all([(rank + 1, 2)] * n,
                              [T(np.full((j + 1, 2), 100.0 * rank + j)) for j in ranks])
assert handle is None and all(np.all(g.asnumpy() == 100.0 * i + rank) for i, g in enumerate(got))
single, _ = dist.all_to_all_single(T(np.zeros((2 * n, 2))), T(x_of(rank, 2 * n)))
np.testing.assert_array_equal(single.asnumpy(), np.concatenate(
    [x_of(i, 2 * n)[2 * rank:2 * rank + 2] for i in ranks]))
dist.set_comm_ops_inplace(True)
send_sizes = [j + 1 for j in ranks]
source = np.concatenate([np.full((j + 1, 2), 100.0 * rank + j) for j in ranks])
out = T(np.zeros(((rank + 1) * n, 2)))
dist.all_to_all_single(out, T(source), [rank + 1] * n, send_sizes)
np.testing.assert_array_equal(out.asnumpy(), np.concatenate(
    [np.full((rank + 1, 2), 100.0 * i + rank) for i in ranks]))
matrix = [j + 1 for i in ranks for j in ranks]  # rank i sends j + 1 rows to rank j
out = T(np.zeros(((rank + 1) * n, 2)))
dist.all_to_all_v_c(out, T(source), matrix)
np.testing.assert_array_equal(out.asnumpy(), np.concatenate(
    [np.full((rank + 1, 2), 100.0 * i + rank) for i in ranks]))

# mismatched shapes: every rank raises, naming the op and the tensor
if n > 1:
    try:
        dist.all_reduce(mindspore.Parameter(T(np.ones(2 + rank)), name="moment.layer1"))
    except ValueError as err:
        assert "all_reduce" in str(err) and "'moment.layer1'" in str(err), err
        assert f"'rank {n - 1}': ('float64', ({n + 1},))" in str(err), err
    else:
        raise AssertionError("mismatched shapes were not detected")

# point to point on a ring
if n > 1:
    right, left = (rank + 1) % n, (rank - 1) % n
    got = T(np.zeros((3, 2)))
    handle = dist.irecv(got, left)
    dist.send(T(x_of(rank)), right)
    handle.wait()
    np.testing.assert_array_equal(got.asnumpy(), x_of(left))
    got = T(np.zeros((3, 2)))
    handle = dist.isend(T(x_of(rank) * 2), right, tag=3)
    assert dist.recv(got, left, tag=3) == 0
    handle.wait()
    np.testing.assert_array_equal(got.asnumpy(), x_of(left) * 2)
    got = T(np.zeros((3, 2)))
    handles = dist.batch_isend_irecv([dist.P2POp("isend", T(x_of(rank) * 3), right),
                                      dist.P2POp(dist.irecv, got, left)])
    assert len(handles) == 1
    handles[0].wait()
    np.testing.assert_array_equal(got.asnumpy(), x_of(left) * 3)
    items = [None, None]
    if rank % 2 == 0 and rank + 1 < n:
        dist.send_object_list([{"from": rank}, "hello"], rank + 1)
    elif rank % 2 == 1:
        assert dist.recv_object_list(items, rank - 1) == 0
        assert items == [{"from": rank - 1}, "hello"]

# Python objects
objs = [None] * n
dist.all_gather_object(objs, {"rank": rank, "tail": [rank] * rank})
assert objs == [{"rank": r, "tail": [r] * r} for r in ranks]
objs = [None] * n
dist.gather_object(("r", rank), objs if rank == 0 else None, dst=0)
assert objs == ([("r", r) for r in ranks] if rank == 0 else [None] * n)
items = [1, "two", {3: 4}] if rank == n - 1 else [None, None, None]
dist.broadcast_object_list(items, src=n - 1)
assert items == [1, "two", {3: 4}]
mine = [None]
dist.scatter_object_list(mine, [f"for {r}" for r in ranks] if rank == 0 else None, src=0)
assert mine == [f"for {rank}"]


# the fused kernels of ops: all_gather_matmul and matmul_reduce_scatter, with their gradients
world = "hccl_world_group"
x2 = np.arange(6.0).reshape(2, 3) / 7
parts = [x_of(r) for r in ranks]  # (3, 2) each
out, gathered = ops.all_gather_matmul(T(x_of(rank)), T(x2), world, n)
np.testing.assert_allclose(out.asnumpy(), np.concatenate(parts) @ x2, rtol=1e-12)
np.testing.assert_array_equal(gathered.asnumpy(), np.concatenate(parts))
out, empty = ops.all_gather_matmul(T(x_of(rank)), T(x2.T), world, n, gather_output=False,
                                   trans_x2=True)
assert empty.shape == (0,)
np.testing.assert_allclose(out.asnumpy(), np.concatenate(parts) @ x2, rtol=1e-12)
ws = [np.full((3 * n, 3), 1.0 + r) for r in ranks]
grad = mindspore.grad(lambda a: (ops.all_gather_matmul(a, T(x2), world, n)[0] *
                                 T(ws[rank])).sum())(T(x_of(rank)))
np.testing.assert_allclose(grad.asnumpy(), (sum(ws) @ x2.T)[3 * rank:3 * rank + 3], rtol=1e-12)
tall = [x_of(r, 2 * n) for r in ranks]
out = ops.matmul_reduce_scatter(T(tall[rank]), T(x2), world, n)
np.testing.assert_allclose(out.asnumpy(), (sum(tall) @ x2)[2 * rank:2 * rank + 2], rtol=1e-12)
grad = mindspore.grad(lambda a: (ops.matmul_reduce_scatter(a, T(x2), world, n) *
                                 T(np.full((2, 3), 1.0 + rank))).sum())(T(tall[rank]))
w_all = np.concatenate([np.full((2, 3), 1.0 + r) for r in ranks])
np.testing.assert_allclose(grad.asnumpy(), w_all @ x2.T, rtol=1e-12)

# groups: the even world ranks
evens = [r for r in ranks if r % 2 == 0]
name = dist.new_group(evens)
assert name.startswith(f"hccl_{len(evens)}_") and dist.get_backend(name) == "hccl"
assert dist.new_group() == "mccl_world_group"  # None: the world (the CPU backend's, once open)
if rank % 2 == 0:
    assert dist.get_process_group_ranks(name) == evens
    assert dist.get_rank(name) == evens.index(rank) and dist.get_world_size(name) == len(evens)
    assert dist.get_global_rank(name, dist.get_group_rank(name, rank)) == rank
    t = T(x_of(rank))
    dist.all_reduce(t, group=name)
    np.testing.assert_allclose(t.asnumpy(), sum(x_of(r) for r in evens))
else:
    assert dist.get_rank(name) == -1  # not a member: MindSpore's -1 with a warning
dist.destroy_process_group(name)
dist.barrier()
print(f"rank {rank} of {n}: ops.communication OK", flush=True)
assert ops.all_reduce is dist.all_reduce and ops.gather is not dist.gather
