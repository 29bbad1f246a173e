"""Every collective on N ranks in float64, against its definition; gradients against MindSpore's
rules and, where the rule is the true adjoint, against finite differences of the global sum."""
import os
import runpy

import numpy as np

import minispore as mindspore
from minispore import Tensor
from minispore.communication import (comm_func, create_group, destroy_group,
                                     get_group_rank_from_world_rank, get_group_size,
                                     get_process_group_ranks, get_rank,
                                     get_world_rank_from_group_rank, init)
from minispore.ops.operations import comm_ops as C

init()
rank, n = get_rank(), get_group_size()


def inputs(shape, r):
    return np.random.default_rng(100 + r).standard_normal(shape)


def close(a, b, what, tol=1e-12):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and np.allclose(a, b, rtol=tol, atol=tol), (what, a, b)


def grad_of(fn, x, weight):
    """d(sum(weight * fn(x)))/dx on this rank."""
    def loss(t):
        out = fn(t)
        return (out * Tensor(weight)).sum()
    return mindspore.grad(loss)(Tensor(x)).asnumpy()


def global_loss(fn, xs, weights):
    """sum over ranks of sum(weight_r * fn(x_r)): each rank computes its term, all-reduced."""
    local = float((fn(Tensor(xs)).asnumpy() * weights).sum())
    return C.AllReduce()(Tensor(np.array([local])))[0].asnumpy()


def fd_check(fn, x, weight, grad, what, h=1e-6):
    """Perturb element 0 of rank 0's input: the finite difference of the global loss is rank 0's
    gradient there (ranks take part in every evaluation)."""
    for sign in (1, -1):
        xp = x.copy()
        if rank == 0:
            xp.reshape(-1)[0] += sign * h
        value = global_loss(fn, xp, weight)
        if sign == 1:
            plus = value
        else:
            minus = value
    fd = (plus - minus) / (2 * h)
    g0 = C.Broadcast(0)((Tensor(grad.reshape(-1)[:1].copy()),))[0].asnumpy()[0]
    assert abs(fd - g0) < 1e-6 * max(1.0, abs(fd)), (what, fd, g0)


all_x = [inputs((2, 3), r) for r in range(n)]
all_w = [inputs((2, 3), 50 + r) for r in range(n)]
x, w = all_x[rank], all_w[rank]

# AllReduce: values and gradients
for op, ref in (("sum", np.sum), ("max", np.max), ("min", np.min), ("prod", np.prod)):
    out = C.AllReduce(op)(Tensor(x)).asnumpy()
    close(out, ref(np.stack(all_x), axis=0), f"AllReduce {op}")
    g = grad_of(C.AllReduce(op), x, w)
    wsum = np.sum(all_w, axis=0)
    if op == "sum":
        rule = wsum
    elif op == "prod":
        rule = wsum * out / x
    else:
        rule = wsum * (x == out)
    close(g, rule, f"AllReduce {op} gradient")
    fd_check(C.AllReduce(op), x, w, g, f"AllReduce {op}")

# ties in max: every tied rank gets the full sum (MindSpore's rule)
tied = np.ones((2,))
g = grad_of(C.AllReduce("max"), tied, np.full(2, rank + 1.0))
close(g, np.full(2, n * (n + 1) / 2), "AllReduce max ties")

# second order through AllReduce(prod): d/dx of sum(dL/dx) is finite and the same on every rank
hess = mindspore.grad(lambda t: mindspore.grad(lambda u: C.AllReduce("prod")(u).sum())(t).sum())(
    Tensor(x)).asnumpy()
assert np.isfinite(hess).all()

# AllGather / ReduceScatter
gathered = C.AllGather()(Tensor(x)).asnumpy()
close(gathered, np.concatenate(all_x), "AllGather")
wg = inputs((2 * n, 3), 70 + rank)
all_wg = [inputs((2 * n, 3), 70 + r) for r in range(n)]
g = grad_of(C.AllGather(), x, wg)
close(g, np.sum(all_wg, axis=0)[2 * rank:2 * rank + 2], "AllGather gradient")
fd_check(C.AllGather(), x, wg, g, "AllGather")

big = inputs((2 * n, 3), 90 + rank)
all_big = [inputs((2 * n, 3), 90 + r) for r in range(n)]
close(C.ReduceScatter()(Tensor(big)).asnumpy(), np.sum(all_big, axis=0)[2 * rank:2 * rank + 2],
      "ReduceScatter")
close(C.ReduceScatter("max")(Tensor(big)).asnumpy(),
      np.max(all_big, axis=0)[2 * rank:2 * rank + 2], "ReduceScatter max")
g = grad_of(C.ReduceScatter(), big, w)
close(g, np.concatenate(all_w), "ReduceScatter gradient")
fd_check(C.ReduceScatter(), big, w, g, "ReduceScatter")

# Broadcast: values from the root; gradient passes through (MindSpore's rule)
root = n - 1
out = C.Broadcast(root)((Tensor(x), Tensor(w)))
close(out[0].asnumpy(), all_x[root], "Broadcast")
close(out[1].asnumpy(), all_w[root], "Broadcast second")
g = grad_of(lambda t: C.Broadcast(root)((t,))[0], x, w)
close(g, w, "Broadcast gradient")

# AlltoAll
a = inputs((3, 2 * n), 110 + rank)
all_a = [inputs((3, 2 * n), 110 + r) for r in range(n)]
out = C.AlltoAll(n, 1, 0)(Tensor(a)).asnumpy()
close(out, np.concatenate([all_a[k][:, 2 * rank:2 * rank + 2] for k in range(n)], axis=0),
      "AlltoAll")
wa = inputs((3 * n, 2), 130 + rank)
g = grad_of(C.AlltoAll(n, 1, 0), a, wa)
fd_check(C.AlltoAll(n, 1, 0), a, wa, g, "AlltoAll")

# dtypes: float16 through float32, ints, bools
h = np.full((2,), 30000.0 + rank, np.float16)
out = C.AllReduce()(Tensor(h)).asnumpy()
assert out.dtype == np.float16
with np.errstate(over="ignore"):  # 4 ranks overflow float16: inf, as MindSpore's cast gives
    expected = np.float16(sum(np.float32(30000.0 + r) for r in range(n)))
close(out.astype(np.float64), np.full(2, expected, np.float64), "float16")
i = C.AllReduce("max")(Tensor(np.array([rank, -rank], np.int32))).asnumpy()
assert i.dtype == np.int32 and i.tolist() == [n - 1, 0]
b = C.AllReduce("min")(Tensor(np.array([True, rank == 0]))).asnumpy()
assert b.tolist() == [True, n == 1]

# mismatched shapes: an error naming the op on every rank
try:
    C.AllReduce()(Tensor(np.zeros(2 + rank)))
except ValueError as err:
    assert "AllReduce" in str(err) and "rank 1" in str(err), err
else:
    raise AssertionError("mismatched shapes were not detected")

# Send / Receive around a ring (even ranks send first)
nxt, prv = (rank + 1) % n, (rank - 1) % n
recv = C.Receive(7, prv, [2, 3], mindspore.float64)
if rank % 2 == 0:
    C.Send(7, nxt)(Tensor(x))
    got = recv()
else:
    got = recv()
    C.Send(7, nxt)(Tensor(x))
close(got.asnumpy(), all_x[prv], "Send/Receive")
C.Barrier()()

# groups
create_group("first_two", [1, 0])
if rank < 2:
    close(C.AllReduce(group="first_two")(Tensor(x)).asnumpy(), all_x[0] + all_x[1], "group")
    assert get_rank("first_two") == rank and get_group_size("first_two") == 2
assert get_process_group_ranks("first_two") == [0, 1]
assert get_world_rank_from_group_rank("first_two", 1) == 1
assert get_group_rank_from_world_rank(1, "first_two") == 1
destroy_group("first_two")

# comm_func
out, handle = comm_func.all_reduce(Tensor(x), async_op=True)
handle.wait()
close(out.asnumpy(), np.sum(all_x, axis=0), "all_reduce async")
out, handle = comm_func.all_reduce(Tensor(x), "max")
assert handle is None
close(out.asnumpy(), np.max(all_x, axis=0), "all_reduce")
close(comm_func.all_gather_into_tensor(Tensor(x))[0].asnumpy(), np.concatenate(all_x),
      "all_gather_into_tensor")
close(comm_func.reduce_scatter_tensor(Tensor(big))[0].asnumpy(),
      np.sum(all_big, axis=0)[2 * rank:2 * rank + 2], "reduce_scatter_tensor")
close(comm_func.broadcast(Tensor(x), src=root).asnumpy(), all_x[root], "broadcast")
comm_func.barrier()
pending = comm_func.isend(Tensor(x), dst=nxt, tag=3)
got, handle = comm_func.irecv(Tensor(np.zeros((2, 3))), src=prv, tag=3)
handle.wait()
pending.wait()
close(got.asnumpy(), all_x[prv], "isend/irecv")
outs, _ = comm_func.all_to_all_with_output_shape(
    [(1, k + 1) for k in range(n)],
    [Tensor(np.full((1, rank + 1), 10.0 * rank + k)) for k in range(n)])
for k, o in enumerate(outs):
    close(o.asnumpy(), np.full((1, k + 1), 10.0 * k + rank), "all_to_all_with_output_shape")
dst = n - 1
out = comm_func.reduce(Tensor(x), dst, "max")
if rank == dst:
    close(out.asnumpy(), np.max(all_x, axis=0), "reduce")
else:
    assert out.shape == (1,)
out = comm_func.gather_into_tensor(Tensor(x), dst=1)
if rank == 1:
    close(out.asnumpy(), np.concatenate(all_x), "gather_into_tensor")
else:
    assert out.shape == (1,)
source = big if rank == 1 else np.zeros_like(big)
close(comm_func.scatter_tensor(Tensor(source), src=1).asnumpy(), all_big[1][2 * rank:2 * rank + 2],
      "scatter_tensor")

# rooted primitives: Reduce, CollectiveGather, CollectiveScatter (gradients are true adjoints)
dst = n - 1
for name, fn, expected in (
        ("Reduce", lambda t: C.Reduce(dst)(t), np.sum(all_x, axis=0)),
        ("CollectiveGather", lambda t: C.CollectiveGather(dst)(t), np.concatenate(all_x))):
    out = fn(Tensor(x)).asnumpy()
    close(out, expected if rank == dst else np.zeros(1), name)
    wd = all_w[dst] if name == "Reduce" else np.concatenate(all_w)  # dst's weight
    weight = wd if rank == dst else np.zeros(1)
    g = grad_of(fn, x, weight)
    close(g, wd if name == "Reduce" else wd[2 * rank:2 * rank + 2], f"{name} gradient")
    fd_check(fn, x, weight, g, name)
src_x = np.stack([inputs((2 * n, 3), r) for r in range(n)])
fn = C.CollectiveScatter(1)
close(fn(Tensor(src_x[rank])).asnumpy(), src_x[1][2 * rank:2 * rank + 2], "CollectiveScatter")
blocks_w = [inputs((2, 3), 90 + r) for r in range(n)]
g = grad_of(fn, src_x[rank], blocks_w[rank])
close(g, np.concatenate(blocks_w) if rank == 1 else np.zeros((2 * n, 3)), "CollectiveScatter grad")
fd_check(fn, src_x[rank], blocks_w[rank], g, "CollectiveScatter")

# uneven primitives: rank r gives r + 1 elements; (i -> j) exchanges carry (i + j) % 3 elements
sizes = [r + 1 for r in range(n)]
flat_x = [inputs((sizes[r],), 200 + r) for r in range(n)]
total = sum(sizes)
flat_w = [inputs((total,), 300 + r) for r in range(n)]
fn = lambda t: C.AllGatherV()(t, sizes)  # noqa: E731
close(fn(Tensor(flat_x[rank])).asnumpy(), np.concatenate(flat_x), "AllGatherV")
g = grad_of(fn, flat_x[rank], flat_w[rank])
start = sum(sizes[:rank])
close(g, np.sum(flat_w, axis=0)[start:start + sizes[rank]], "AllGatherV gradient")
fd_check(fn, flat_x[rank], flat_w[rank], g, "AllGatherV")
whole = [inputs((total,), 400 + r) for r in range(n)]
fn = lambda t: C.ReduceScatterV()(t, sizes)  # noqa: E731
close(fn(Tensor(whole[rank])).asnumpy(), np.sum(whole, axis=0)[start:start + sizes[rank]],
      "ReduceScatterV")
g = grad_of(fn, whole[rank], flat_x[rank])
close(g, np.concatenate(flat_x), "ReduceScatterV gradient")
fd_check(fn, whole[rank], flat_x[rank], g, "ReduceScatterV")
count = [[(i + j) % 3 for j in range(n)] for i in range(n)]
send_x = [inputs((sum(count[i]),), 500 + i) for i in range(n)]


def piece(i, j):
    return send_x[i][sum(count[i][:j]):sum(count[i][:j + 1])]


got = np.concatenate([piece(i, rank) for i in range(n)])
recv_w = inputs((got.size,), 600 + rank)
for name, fn in (
        ("AlltoAllV", lambda t: C.AlltoAllV()(t, count[rank], [count[i][rank] for i in range(n)])),
        ("AlltoAllVC", lambda t: C.AlltoAllVC()(t, [c for row in count for c in row]))):
    out = fn(Tensor(send_x[rank])).asnumpy()
    close(out, got if got.size else np.zeros(()), name)
    g = grad_of(fn, send_x[rank], recv_w if got.size else np.zeros(()))
    everyone_w = [inputs((sum(count[i][r] for i in range(n)),), 600 + r) for r in range(n)]
    # rank j's weight holds, in source order, the pieces it received: ours starts after the
    # pieces of the ranks before us
    expect = np.concatenate([everyone_w[j][sum(count[i][j] for i in range(rank)):
                                           sum(count[i][j] for i in range(rank + 1))]
                             for j in range(n)])
    close(g, expect, f"{name} gradient")

# NeighborExchange on a ring: a (2, 3) block to the right, a (k + 1,) vector to the left
right, left = (rank + 1) % n, (rank - 1) % n
op = C.NeighborExchange([right, left], [left, right], [[2, 3], [right + 1]],
                        [[2, 3], [rank + 1]], mindspore.float64)
ring_x = [inputs((2, 3), 700 + r) for r in range(n)]
ring_v = [inputs((r + 1,), 800 + r) for r in range(n)]
got_block, got_vec = op((Tensor(ring_x[rank]), Tensor(ring_v[rank])))
close(got_block.asnumpy(), ring_x[left], "NeighborExchange block")
close(got_vec.asnumpy(), ring_v[right], "NeighborExchange vector")
wb = [inputs((2, 3), 900 + r) for r in range(n)]
gx, gv = mindspore.grad(lambda a, b: sum((o * Tensor(w)).sum() for o, w in zip(
    op((a, b)), (wb[rank], np.arange(right + 1.0)))), (0, 1))(Tensor(ring_x[rank]),
                                                               Tensor(ring_v[rank]))
close(gx.asnumpy(), wb[right], "NeighborExchange block gradient")  # who got ours: the right
close(gv.asnumpy(), np.arange(rank + 1.0), "NeighborExchange vector gradient")
batch = C.BatchISendIRecv(["irecv", "isend"], [left, right], [[2, 3]], [mindspore.float64])
got = batch((Tensor(ring_x[rank]),))
assert got[1].shape == () and len(got) == 2
close(got[0].asnumpy(), ring_x[left], "BatchISendIRecv")

# NeighborExchangeV2 on a grid of ranks (2 x 2 for 4 ranks, 2 x 1 for 2): each rank holds a tile
# of one global map and receives a band of 1 from every neighbour; the result is its window of
# the global map. The gradient is the adjoint: sum of <out, w> over ranks = sum of <x, grad>.
grid = (2, 2) if n == 4 else (n, 1)
row, col = divmod(rank, grid[1])
steps = [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)]
ids = [(row + dr) * grid[1] + col + dc if 0 <= row + dr < grid[0] and 0 <= col + dc < grid[1]
       else -1 for dr, dc in steps]
H, W = 3, 4
whole = inputs((1, 2, H * grid[0], W * grid[1]), 1000)
tile = whole[:, :, row * H:(row + 1) * H, col * W:(col + 1) * W]
op = C.NeighborExchangeV2(ids, [1, 1, 1, 1], ids, [1, 1, 1, 1], "NCHW")
out = op(Tensor(tile)).asnumpy()
top, left = int(row > 0), int(col > 0)
bottom, right = int(row < grid[0] - 1), int(col < grid[1] - 1)
close(out, whole[:, :, row * H - top:(row + 1) * H + bottom, col * W - left:(col + 1) * W + right],
      "NeighborExchangeV2")
w_out = inputs(out.shape, 1100 + rank)
g = grad_of(lambda t: op(t), tile, w_out)
both = C.AllReduce()(Tensor(np.array([(out * w_out).sum(), (tile * g).sum()]))).asnumpy()
close(both[0], both[1], "NeighborExchangeV2 adjoint", 1e-10)
fd_check(lambda t: op(t), tile, w_out, g, "NeighborExchangeV2")
print(f"rank {rank} of {n}: collectives OK", flush=True)
# ops.communication's functions in the same launch (MPI start-up is the slow part of a test)
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "comm_functions.py"),
               run_name="__main__")
