"""The process world under an MPI launcher (mpi4py's buffer API), or a world of one without it.

Every MPI call is made from the calling thread; every wait runs under a watchdog thread with a
deadline (`MINISPORE_COMM_TIMEOUT` seconds, default 600), so a rank whose peers died or left stops
with an error naming the collective instead of hanging. Importing this module under a launcher that shows
more than one rank installs an exception hook that aborts the whole job when any rank raises.
"""
import atexit
import os
import pickle
import sys
import threading
import time
import traceback
import zlib
from typing import ClassVar

import numpy as np

_LAUNCHER_VARS = (
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE"),
    ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
    ("PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_RANK", "PMIX_LOCAL_SIZE"),
)
DIST_EXTRA_HINT = "pip install 'minispore[dist]'  (mpi4py and an MPI such as the 'mpich' wheel)"


def launcher_world():
    """(rank, size, local_rank, local_size) from an MPI launcher's environment, or None."""
    for rank_var, size_var, local_var, local_size_var in _LAUNCHER_VARS:
        if rank_var in os.environ and size_var in os.environ:
            rank, size = int(os.environ[rank_var]), int(os.environ[size_var])
            local = int(os.environ.get(local_var, rank))
            local_size = int(os.environ.get(local_size_var, size))
            return rank, size, local, local_size
    return None


def comm_timeout():
    return float(os.environ.get("MINISPORE_COMM_TIMEOUT", "600"))


class CommError(RuntimeError):
    """A collective that could not complete (a peer left, or the deadline passed)."""


class Group:
    """A named communicator: `comm` (an mpi4py communicator, None in a world of one), the world
    ranks of its members, and this process's rank in it (None when not a member)."""

    def __init__(self, name, comm, world_ranks, rank):
        self.name, self.comm, self.world_ranks, self.rank = name, comm, list(world_ranks), rank

    @property
    def size(self):
        return len(self.world_ranks)


class _State:
    lock = threading.RLock()
    inited = False
    mpi = None
    world_rank, world_size, local_rank, local_size = 0, 1, 0, 1
    world = None     # Group over every rank, on a Dup of COMM_WORLD: data collectives
    control = None   # a second Dup: headers, barriers
    groups: ClassVar[dict] = {}


STATE = _State()


def mpi_module():
    try:
        from mpi4py import MPI
    except ImportError as err:
        raise ImportError(f"minispore's distributed backend needs mpi4py under an MPI launcher: "
                          f"{DIST_EXTRA_HINT}") from err
    return MPI


def start():
    """Open the world: MPI when a launcher started this process, else a world of one."""
    with STATE.lock:
        if STATE.inited:
            return
        found = launcher_world()
        if found is not None and found[1] > 1:
            MPI = mpi_module()
            base = MPI.COMM_WORLD
            data, control = base.Dup(), base.Dup()
            local = base.Split_type(MPI.COMM_TYPE_SHARED)
            STATE.mpi = MPI
            STATE.world_rank, STATE.world_size = base.Get_rank(), base.Get_size()
            STATE.local_rank, STATE.local_size = local.Get_rank(), local.Get_size()
            local.Free()
            STATE.world = Group("world", data, range(STATE.world_size), STATE.world_rank)
            STATE.control = control
            atexit.register(_exit_barrier)
        else:
            STATE.world = Group("world", None, [0], 0)
        STATE.inited = True


def stop():
    with STATE.lock:
        if not STATE.inited:
            return
        for group in STATE.groups.values():
            if group.comm is not None:
                group.comm.Free()
        STATE.groups = {}
        if STATE.world.comm is not None:
            STATE.world.comm.Free()
            STATE.control.Free()
        STATE.world = STATE.control = None
        STATE.inited = False


def new_group(name, world_ranks):
    """A sub-communicator of the listed world ranks; collective over its members only."""
    with STATE.lock:
        if STATE.mpi is None:
            STATE.groups[name] = Group(name, None, world_ranks, 0 if 0 in world_ranks else None)
            return
        members = list(world_ranks)
        mine = STATE.world_rank in members
        comm = None
        if mine:
            base = STATE.world.comm
            sub = base.Get_group().Incl(members)
            comm = base.Create_group(sub, tag=zlib.crc32(name.encode()) % 32768)
            sub.Free()
        STATE.groups[name] = Group(name, comm, members,
                                   members.index(STATE.world_rank) if mine else None)


def free_group(name):
    with STATE.lock:
        group = STATE.groups.pop(name)
        if group.comm is not None:
            group.comm.Free()


class _Watchdog:
    """One daemon thread watching the wait in progress: a warning once it has stalled, `Abort` at
    the deadline. The waiting thread only records what it waits for, so a wait costs what MPI's
    own `Wait` costs (a `Test()` loop took 1.6x as long for a 2.7 MB all-reduce here)."""

    def __init__(self):
        self.current = None  # (what, nbytes, start, deadline)
        self.thread = None
        self.lock = threading.Lock()

    def watch(self, what, nbytes, grace=0.0):
        if self.thread is None:
            with self.lock:
                if self.thread is None:
                    self.thread = threading.Thread(target=self._run, name="minispore-comm-watchdog",
                                                   daemon=True)
                    self.thread.start()
        self.current = (what, nbytes, time.monotonic(), comm_timeout() + grace)

    def done(self):
        self.current = None

    def _run(self):
        warned = None
        while True:
            time.sleep(0.05)
            current = self.current
            if current is None:
                continue
            what, nbytes, start, deadline = current
            elapsed = time.monotonic() - start
            if warned is not current and elapsed > min(60.0, deadline / 2):
                warned = current
                sys.stderr.write(f"[minispore rank {STATE.world_rank}] {what} ({nbytes} bytes) "
                                 f"has waited {elapsed:.1f} s for its peers\n")
                sys.stderr.flush()
            if elapsed > deadline and self.current is current:
                sys.stderr.write(f"[minispore rank {STATE.world_rank}] {what} timed out after "
                                 f"{elapsed:.1f} s (MINISPORE_COMM_TIMEOUT={deadline:g}): a peer "
                                 f"rank has failed or left; aborting the job\n")
                sys.stderr.flush()
                STATE.mpi.COMM_WORLD.Abort(3)


_WATCHDOG = _Watchdog()


def wait(request, what, nbytes=0, grace=0.0):
    """Complete `request` (an mpi4py Request or a `_Held` one; None is already done), under the
    watchdog: a warning when it stalls, the job aborted at the deadline (plus `grace` seconds),
    both naming `what`."""
    if request is None or request.Test():
        return
    _WATCHDOG.watch(what, nbytes, grace)
    try:
        request.Wait()
    finally:
        _WATCHDOG.done()


def _exit_barrier():
    """At exit, every rank meets the others: an early exit becomes a named timeout, not a hang."""
    if STATE.inited and STATE.control is not None:
        # later than a collective's deadline, so a rank stuck in one reports it first
        wait(STATE.control.Ibarrier(), "the exit barrier (a rank left early or is still in a "
                                       "collective)", grace=max(5.0, comm_timeout() / 2))


# ---- collectives on NumPy arrays ---------------------------------------------------------------

_REDUCE_NAMES = ("sum", "max", "min", "prod")


def _mpi_op(op, dtype):
    MPI = STATE.mpi
    if dtype == np.bool_:
        return {"sum": MPI.LOR, "max": MPI.LOR, "min": MPI.LAND, "prod": MPI.LAND}[op]
    return {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}[op]


def _wire(x):
    """The array as sent: contiguous; float16 travels (and is reduced) as float32."""
    x = np.asarray(x)
    return np.require(x, np.float32 if x.dtype == np.float16 else x.dtype, "C")


_DTYPE_NAMES = {np.dtype(t).num: np.dtype(t).name for t in (
    np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128)}


def check_same_shapes(group, opname, x, tensor_name="input"):
    """Exchange (dtype, shape) across the group; every rank raises ValueError on a mismatch."""
    if group.comm is None or group.size == 1:
        return
    header = np.full(18, -1, np.int64)
    header[0] = np.dtype(x.dtype).num
    header[1] = x.ndim
    header[2:2 + min(x.ndim, 16)] = x.shape[:16]
    everyone = np.empty((group.size, 18), np.int64)
    wait(group.comm.Iallgather(header, everyone), f"{opname} header on group '{group.name}'")
    if not (everyone == header).all():
        shapes = {f"rank {group.world_ranks[i]}":
                  (_DTYPE_NAMES.get(int(h[0]), int(h[0])), tuple(int(v) for v in h[2:2 + h[1]]))
                  for i, h in enumerate(everyone)}
        raise ValueError(f"For '{opname}', the {tensor_name} must have the same dtype and shape on "
                         f"every rank of group '{group.name}', but got {shapes}")


class _Held:
    """A request and the buffers it reads or writes, kept alive until it completes."""

    __slots__ = ("buffers", "request")

    def __init__(self, request, *buffers):
        self.request, self.buffers = request, buffers

    def Test(self):
        return self.request.Test()

    def Wait(self):
        return self.request.Wait()


_SCRATCH = {}


def scratch(slot, dtype, size):
    """A buffer reused across calls for `slot` (MPICH took 5x longer to all-reduce into freshly
    allocated memory than into memory it had used before)."""
    key = (slot, np.dtype(dtype), size)
    buf = _SCRATCH.get(key)
    if buf is None:
        if len(_SCRATCH) > 256:
            _SCRATCH.clear()
        buf = _SCRATCH[key] = np.empty(size, dtype)
    return buf


def iallreduce(group, x, op="sum", slot=None):
    """Start an all-reduce of array `x`: returns (request, result); the result is final once the
    request completes (`wait`). float16 is reduced in float32 (the result stays float32). With a
    `slot`, the send and result buffers are reused per slot: the caller consumes the result
    before its next call with that slot."""
    x = np.asarray(x)
    wire = np.float32 if x.dtype == np.float16 else x.dtype
    if group.comm is None or group.size == 1:
        return None, np.array(x, wire, order="C")
    if slot is None:
        send = np.require(x, wire, "C")
        recv = np.empty(x.shape, wire)
    else:
        send = scratch((slot, "send"), wire, x.size).reshape(x.shape)
        send[...] = x
        recv = scratch((slot, "recv"), wire, x.size).reshape(x.shape)
    return _Held(group.comm.Iallreduce(send, recv, _mpi_op(op, send.dtype)), send, recv), recv


def allreduce(group, x, op="sum", what="AllReduce"):
    request, out = iallreduce(group, x, op, slot="allreduce")
    wait(request, f"{what} on group '{group.name}'", out.nbytes)
    return out.astype(np.asarray(x).dtype, copy=True)


def allgather(group, x, what="AllGather"):
    send = _wire(x)
    if group.comm is None or group.size == 1:
        out = send.copy()
    else:
        out = np.empty((group.size,) + send.shape, send.dtype)
        wait(group.comm.Iallgather(send, out), f"{what} on group '{group.name}'", out.nbytes)
        out = out.reshape((group.size * send.shape[0],) + send.shape[1:])
    return out.astype(np.asarray(x).dtype, copy=False)


def reduce_scatter(group, x, op="sum", what="ReduceScatter"):
    send = _wire(x)
    n = group.size
    if group.comm is None or n == 1:
        out = send.copy()
    else:
        out = np.empty((send.shape[0] // n,) + send.shape[1:], send.dtype)
        wait(group.comm.Ireduce_scatter_block(send, out, _mpi_op(op, send.dtype)),
             f"{what} on group '{group.name}'", send.nbytes)
    return out.astype(np.asarray(x).dtype, copy=False)


def reduce_to(group, x, op, root, what="reduce"):
    """The reduction of `x` over `group` on rank `root`; None on the other ranks."""
    x = np.asarray(x)
    send = _wire(x)
    if group.comm is None or group.size == 1:
        return send.astype(x.dtype)
    recv = np.empty_like(send) if group.rank == root else None
    wait(group.comm.Ireduce(send, recv, _mpi_op(op, send.dtype), root=root),
         f"{what} on group '{group.name}'", send.nbytes)
    return recv.astype(x.dtype, copy=False) if recv is not None else None


def gather_to(group, x, root, what="gather"):
    """The inputs of `group`'s ranks concatenated on axis 0 on rank `root`; None elsewhere."""
    x = np.require(x, requirements="C")
    if group.comm is None or group.size == 1:
        return x.copy()
    recv = np.empty((group.size,) + x.shape, x.dtype) if group.rank == root else None
    wait(group.comm.Igather(x, recv, root=root), f"{what} on group '{group.name}'", x.nbytes)
    return recv.reshape((-1,) + x.shape[1:]) if recv is not None else None


def scatter_from(group, x, root, what="scatter"):
    """Rank `root`'s `x` split evenly on axis 0: block k to rank k (every rank passes an `x` of
    the root's shape and dtype)."""
    x = np.require(x, requirements="C")
    if group.comm is None or group.size == 1:
        return x.copy()
    recv = np.empty((x.shape[0] // group.size,) + x.shape[1:], x.dtype)
    wait(group.comm.Iscatter(x if group.rank == root else None, recv, root=root),
         f"{what} on group '{group.name}'", recv.nbytes)
    return recv


def broadcast(group, x, root, what="Broadcast"):
    buf = np.array(x, copy=True, order="C")
    if group.comm is not None and group.size > 1:
        wait(group.comm.Ibcast(buf, root=root), f"{what} on group '{group.name}'", buf.nbytes)
    return buf


def alltoall(group, x, split_dim, concat_dim, what="AlltoAll"):
    n = group.size
    chunks = np.ascontiguousarray(np.stack(np.split(np.asarray(x), n, axis=split_dim)))
    if group.comm is None or n == 1:
        got = chunks.copy()
    else:
        got = np.empty_like(chunks)
        wait(group.comm.Ialltoall(chunks, got), f"{what} on group '{group.name}'", chunks.nbytes)
    return np.concatenate(list(got), axis=concat_dim)


def send(group, x, dest, tag, what="Send"):
    buf = np.require(x, requirements="C")
    if group.comm is None:
        _LOOPBACK.setdefault((group.name, tag), []).append(buf.copy())
        return None
    return group.comm.Isend(buf, dest=dest, tag=tag), buf


def recv(group, shape, dtype, src, tag, what="Receive"):
    if group.comm is None:
        queue = _LOOPBACK.get((group.name, tag))
        if not queue:
            raise CommError(f"For '{what}', nothing was sent to this rank with tag {tag} in a "
                            f"world of one")
        return None, queue.pop(0).reshape(shape).astype(dtype, copy=False)
    buf = np.empty(shape, dtype)
    return group.comm.Irecv(buf, source=src, tag=tag), buf


_LOOPBACK = {}  # a world of one: what a rank sent to itself, by (group, tag)


def allgather_bytes(comm, data, size, what):
    """Every rank's `data` (bytes of any length), in rank order: lengths first, then the bytes."""
    counts = np.empty(size, np.int64)
    wait(comm.Iallgather(np.array([len(data)], np.int64), counts), what)
    buf = np.empty(int(counts.sum()), np.uint8)
    wait(comm.Iallgatherv(np.frombuffer(data, np.uint8), [buf, counts]), what, buf.nbytes)
    ends = np.cumsum(counts)
    return [buf[end - n:end].tobytes() for n, end in zip(counts, ends)]


def allgather_object(group, obj, what="all_gather_object", control=False):
    """Every rank's picklable `obj`, in group rank order (`control`: on the world's control
    communicator, out of the way of data collectives)."""
    if group.comm is None or group.size == 1:
        return [pickle.loads(pickle.dumps(obj))]
    comm = STATE.control if control else group.comm
    return [pickle.loads(b) for b in
            allgather_bytes(comm, pickle.dumps(obj), group.size, f"{what} on group '{group.name}'")]


def _as_bytes(x):
    return np.ascontiguousarray(x).reshape(-1).view(np.uint8)


def allgatherv(group, x, counts, what="all_gather"):
    """The flat inputs of the group's ranks concatenated, rank k contributing `counts[k]`
    elements (any dtype: moved as bytes)."""
    x = np.ascontiguousarray(x).reshape(-1)
    if group.comm is None or group.size == 1:
        return x.copy()
    size = x.dtype.itemsize
    out = np.empty(int(sum(counts)), x.dtype)
    nbytes = [int(c) * size for c in counts]
    wait(group.comm.Iallgatherv(_as_bytes(x), [out.view(np.uint8), nbytes]),
         f"{what} on group '{group.name}'", out.nbytes)
    return out


def alltoallv(group, x, send_counts, recv_counts, what="all_to_all"):
    """Rank k sends the next `send_counts[j]` elements of flat `x` to rank j and receives
    `recv_counts[j]` elements from rank j, in rank order."""
    x = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(int(sum(recv_counts)), x.dtype)
    if group.comm is None or group.size == 1:
        out[...] = x[:out.size]
        return out
    size = x.dtype.itemsize
    wait(group.comm.Ialltoallv([_as_bytes(x), [int(c) * size for c in send_counts]],
                               [out.view(np.uint8), [int(c) * size for c in recv_counts]]),
         f"{what} on group '{group.name}'", out.nbytes)
    return out


def reduce_scatter_v(group, x, counts, op="sum", what="reduce_scatter"):
    """This rank's block (`counts[rank]` elements, in rank order) of the element-wise reduction
    of flat `x` over the group."""
    x = np.asarray(x).reshape(-1)
    send = _wire(x)
    if group.comm is None or group.size == 1:
        return send[:int(counts[0])].astype(x.dtype)
    out = np.empty(int(counts[group.rank]), send.dtype)
    wait(group.comm.Ireduce_scatter(send, out, [int(c) for c in counts], _mpi_op(op, send.dtype)),
         f"{what} on group '{group.name}'", send.nbytes)
    return out.astype(x.dtype, copy=False)


def barrier(group, what="Barrier"):
    if group.comm is not None and group.size > 1:
        wait(group.comm.Ibarrier(), f"{what} on group '{group.name}'")


# ---- fault handling -------------------------------------------------------------------------------

def _abort_on_uncaught(exc_type, exc, tb):
    rank = launcher_world()[0]
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    sys.stderr.write("".join(f"[rank {rank}] {line}\n" for line in text.rstrip().splitlines()))
    sys.stderr.write(f"[rank {rank}] aborting the distributed job\n")
    sys.stderr.flush()
    try:
        MPI = mpi_module()
        MPI.COMM_WORLD.Abort(130 if issubclass(exc_type, KeyboardInterrupt) else 1)
    except ImportError:
        os._exit(1)


def _export_launcher_env():
    found = launcher_world()
    if found is None:
        return
    rank, size, local, _ = found
    os.environ.setdefault("RANK_ID", str(rank))
    os.environ.setdefault("RANK_SIZE", str(size))
    os.environ.setdefault("DEVICE_ID", str(local))
    if size > 1 and sys.excepthook is sys.__excepthook__:
        sys.excepthook = _abort_on_uncaught


_export_launcher_env()
