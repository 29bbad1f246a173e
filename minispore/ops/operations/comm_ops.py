"""Collective communication primitives (`ops.AllReduce`, `AllGather`, ...) over the process
world of `minispore.communication`, with MindSpore's gradient rules. In a world of one every
collective is the identity. Any numeric dtype is accepted (float16 is reduced in float32)."""
import numpy as np

from ..._autodiff.tape import apply
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...communication import _backend
from ...communication.management import GlobalComm, group_of
from ..primitive import Primitive, register
from . import math_ops as M

__all__ = ["AllGather", "AllGatherV", "AllReduce", "AlltoAll", "AlltoAllV", "AlltoAllVC", "Barrier",
           "BatchISendIRecv", "Broadcast", "CollectiveGather", "CollectiveScatter",
           "NeighborExchange", "NeighborExchangeV2", "Receive", "Reduce", "ReduceOp",
           "ReduceScatter", "ReduceScatterV", "Send"]
PRIMITIVE_CLASSES = ("ReduceOp",)


class ReduceOp:
    """The reduction of `AllReduce` and `ReduceScatter` (plain strings, as in MindSpore)."""
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"
    AVG = "avg"


_OPS = (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD)


def _check_op(owner, op):
    if not isinstance(op, str):
        raise TypeError(f"For '{owner}', the 'op' must be a str, but got {type(op).__name__}")
    if op not in _OPS:
        raise ValueError(f"For '{owner}', the 'op' must be one of {_OPS}, but got {op!r}")
    return op


def _check_group(owner, group):
    if not isinstance(group, str):
        raise TypeError(f"For '{owner}', the 'group' must be a str, but got {type(group).__name__}")
    return group


def _check_input(owner, x, op=None):
    if x.dtype.kind not in "biufc":
        raise TypeError(f"For '{owner}', the input must be numeric or bool, but got {x.dtype}")
    if op in (ReduceOp.MAX, ReduceOp.MIN) and x.dtype.kind == "c":
        raise TypeError(f"For '{owner}', op '{op}' is not defined for complex input {x.dtype}")


def _reduce_sum_all(dout, group):
    return apply(AllReduce(ReduceOp.SUM, group), (dout,))


@register
class AllReduce(Primitive):
    """Reduces `x` over the ranks of `group` (`op`: 'sum', 'max', 'min', 'prod'); every rank gets
    the result. Gradient (MindSpore's rule): 'sum' all-reduces dout; 'max'/'min' all-reduce dout,
    then mask it where x equals the result (every tied rank gets the full sum); 'prod'
    all-reduces dout * out, divided by x."""

    saves = ("x", "out")

    def __init__(self, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        self.op = _check_op("AllReduce", op)
        self.group = _check_group("AllReduce", group)

    def __call__(self, x):
        return apply(self, (x,))

    def forward(self, x):
        _check_input("AllReduce", x, self.op)
        group = group_of(self.group, "AllReduce")
        _backend.check_same_shapes(group, "AllReduce", x)
        return _backend.allreduce(group, x, self.op)

    def bprop(self, saved, dout, needs):
        x, out = saved
        if self.op == ReduceOp.SUM:
            return (_reduce_sum_all(dout, self.group),)
        if self.op == ReduceOp.PROD:
            return (apply(M.RealDiv(), (_reduce_sum_all(M.mul(dout, out), self.group), x)),)
        tied = Tensor((x._data == out._data).astype(dout._data.dtype))
        return (M.mul(_reduce_sum_all(dout, self.group), tied),)


def _split_rows(owner, x, n):
    if x.ndim == 0:
        raise ValueError(f"For '{owner}', the input must have at least 1 dimension, but got a "
                         f"scalar")
    if x.shape[0] % n:
        raise ValueError(f"For '{owner}', the first dimension of the input ({x.shape[0]}) must be "
                         f"divisible by the group size {n}, but got shape {x.shape}")


@register
class AllGather(Primitive):
    """Concatenates along axis 0 the inputs of the ranks of `group`, in rank order.
    Gradient: reduce-scatter (sum) of dout."""

    def __init__(self, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        self.group = _check_group("AllGather", group)
        self.rank_size = None

    def __call__(self, x):
        return apply(self, (x,))

    def forward(self, x):
        _check_input("AllGather", x)
        if x.ndim == 0:
            raise ValueError("For 'AllGather', the input must have at least 1 dimension, but got "
                             "a scalar")
        group = group_of(self.group, "AllGather")
        _backend.check_same_shapes(group, "AllGather", x)
        return _backend.allgather(group, x)

    def bprop(self, saved, dout, needs):
        return (apply(ReduceScatter(ReduceOp.SUM, self.group), (dout,)),)


@register
class ReduceScatter(Primitive):
    """Reduces `x` over the ranks of `group` (`op`), then gives rank k the k-th of equal blocks
    along axis 0. Gradient (for 'sum'): all-gather of dout."""

    def __init__(self, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        self.op = _check_op("ReduceScatter", op)
        self.group = _check_group("ReduceScatter", group)

    def __call__(self, input_x):
        return apply(self, (input_x,))

    def forward(self, x):
        _check_input("ReduceScatter", x, self.op)
        group = group_of(self.group, "ReduceScatter")
        _split_rows("ReduceScatter", x, group.size)
        _backend.check_same_shapes(group, "ReduceScatter", x)
        return _backend.reduce_scatter(group, x, self.op)

    def bprop(self, saved, dout, needs):
        if self.op != ReduceOp.SUM:
            raise RuntimeError(f"For 'ReduceScatter', the gradient is defined only for op 'sum', "
                               f"but got op '{self.op}'")
        return (apply(AllGather(self.group), (dout,)),)


@register
class Broadcast(Primitive):
    """Every rank of `group` receives rank `root_rank`'s tensors: a tuple in, a tuple out.
    Gradient (MindSpore's rule): dout passes through unchanged."""

    inputs = "*"

    def __init__(self, root_rank, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        if not isinstance(root_rank, int) or isinstance(root_rank, bool):
            raise TypeError(f"For 'Broadcast', the 'root_rank' must be an int, but got "
                            f"{type(root_rank).__name__}")
        self.root_rank = root_rank
        self.group = _check_group("Broadcast", group)

    def __call__(self, input_x):
        if not isinstance(input_x, (tuple, list)) or not input_x:
            raise TypeError(f"For 'Broadcast', the input must be a non-empty tuple of Tensors, but "
                            f"got {type(input_x).__name__}")
        return apply(self, tuple(input_x))

    def forward(self, *xs):
        group = group_of(self.group, "Broadcast")
        if not 0 <= self.root_rank < group.size:
            raise ValueError(f"For 'Broadcast', the 'root_rank' must be in [0, {group.size}), but "
                             f"got {self.root_rank}")
        outs = []
        for k, x in enumerate(xs):
            _check_input("Broadcast", x)
            _backend.check_same_shapes(group, "Broadcast", x, f"input {k}")
            outs.append(_backend.broadcast(group, x, self.root_rank))
        return tuple(outs)

    def bprop(self, saved, dout, needs):
        return tuple(dout)


@register
class AlltoAll(Primitive):
    """Splits x along `split_dim` into `split_count` blocks (the group size), sends block k to
    rank k, and concatenates the blocks received along `concat_dim`.
    Gradient: AlltoAll of dout with `split_dim` and `concat_dim` swapped."""

    def __init__(self, split_count, split_dim, concat_dim, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        for name, value in (("split_count", split_count), ("split_dim", split_dim),
                            ("concat_dim", concat_dim)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"For 'AlltoAll', the '{name}' must be an int, but got "
                                f"{type(value).__name__}")
        if split_count < 1:
            raise ValueError(f"For 'AlltoAll', the 'split_count' must be positive, but got "
                             f"{split_count}")
        self.split_count, self.split_dim, self.concat_dim = split_count, split_dim, concat_dim
        self.group = _check_group("AlltoAll", group)

    def __call__(self, x):
        return apply(self, (x,))

    def forward(self, x):
        _check_input("AlltoAll", x)
        group = group_of(self.group, "AlltoAll")
        if self.split_count != group.size:
            raise ValueError(f"For 'AlltoAll', the 'split_count' must equal the group size "
                             f"{group.size}, but got {self.split_count}")
        for name in ("split_dim", "concat_dim"):
            dim = getattr(self, name)
            if not -x.ndim <= dim < x.ndim:
                raise ValueError(f"For 'AlltoAll', the '{name}' must be in [{-x.ndim}, {x.ndim}), "
                                 f"but got {dim}")
        if x.shape[self.split_dim] % self.split_count:
            raise ValueError(f"For 'AlltoAll', the input's dimension {self.split_dim} "
                             f"({x.shape[self.split_dim]}) must be divisible by 'split_count' "
                             f"{self.split_count}")
        _backend.check_same_shapes(group, "AlltoAll", x)
        return _backend.alltoall(group, x, self.split_dim, self.concat_dim)

    def bprop(self, saved, dout, needs):
        back = AlltoAll(self.split_count, self.concat_dim, self.split_dim, self.group)
        return (apply(back, (dout,)),)


@register
class Send(Primitive):
    """Sends `x` to rank `dest_rank` of `group` with tag `sr_tag` (a matching `Receive` there
    takes it); returns x. Not differentiated: the peer's backward cannot be driven from here."""

    differentiable = False

    def __init__(self, sr_tag, dest_rank, group=GlobalComm.WORLD_COMM_GROUP,
                 group_back=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        for name, value in (("sr_tag", sr_tag), ("dest_rank", dest_rank)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise TypeError(f"For 'Send', the '{name}' must be a non-negative int, but got "
                                f"{value!r}")
        self.sr_tag, self.dest_rank = sr_tag, dest_rank
        self.group = _check_group("Send", group)
        self.group_back = _check_group("Send", group_back)

    def __call__(self, input_x):
        return apply(self, (input_x,))

    def forward(self, x):
        _check_input("Send", x)
        group = group_of(self.group, "Send")
        if not 0 <= self.dest_rank < group.size:
            raise ValueError(f"For 'Send', the 'dest_rank' must be in [0, {group.size}), but got "
                             f"{self.dest_rank}")
        started = _backend.send(group, x, self.dest_rank, self.sr_tag)
        if started is not None:
            _backend.wait(started[0], f"Send to rank {self.dest_rank} (tag {self.sr_tag}) on "
                                      f"group '{group.name}'", x.nbytes)
        return x.copy()


@register
class Receive(Primitive):
    """Receives a tensor of `shape` and `dtype` sent by rank `src_rank` of `group` with tag
    `sr_tag`; called with no input. Not differentiated (see `Send`)."""

    inputs = ()
    differentiable = False

    def __init__(self, sr_tag, src_rank, shape, dtype, group=GlobalComm.WORLD_COMM_GROUP,
                 group_back=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        for name, value in (("sr_tag", sr_tag), ("src_rank", src_rank)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise TypeError(f"For 'Receive', the '{name}' must be a non-negative int, but got "
                                f"{value!r}")
        if not isinstance(shape, (list, tuple)) or any(
                not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in shape):
            raise TypeError(f"For 'Receive', the 'shape' must be a list of non-negative ints, but "
                            f"got {shape!r}")
        if not isinstance(dtype, mstype.Type):
            raise TypeError(f"For 'Receive', the 'dtype' must be a mindspore dtype, but got "
                            f"{dtype!r}")
        self.sr_tag, self.src_rank, self.shape, self.dtype = sr_tag, src_rank, list(shape), dtype
        self.group = _check_group("Receive", group)
        self.group_back = _check_group("Receive", group_back)

    def __call__(self):
        return apply(self, ())

    def forward(self):
        group = group_of(self.group, "Receive")
        if not 0 <= self.src_rank < group.size:
            raise ValueError(f"For 'Receive', the 'src_rank' must be in [0, {group.size}), but "
                             f"got {self.src_rank}")
        request, buf = _backend.recv(group, tuple(self.shape), mstype.to_np(self.dtype),
                                     self.src_rank, self.sr_tag)
        _backend.wait(request, f"Receive from rank {self.src_rank} (tag {self.sr_tag}) on group "
                               f"'{group.name}'", buf.nbytes)
        return buf


@register
class Barrier(Primitive):
    """Waits until every rank of `group` reaches it; returns a float32 tensor of shape (1,)."""

    inputs = ()
    differentiable = False

    def __init__(self, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        self.group = _check_group("Barrier", group)

    def __call__(self):
        return apply(self, ())

    def forward(self):
        _backend.barrier(group_of(self.group, "Barrier"))
        return np.zeros((1,), np.float32)


# ---- rooted and uneven collectives ---------------------------------------------------------------

def _check_rank_arg(owner, name, value):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"For '{owner}', the '{name}' must be an int, but got "
                        f"{type(value).__name__}")
    return value


def _root_of(owner, group, rank, name):
    if not 0 <= rank < group.size:
        raise ValueError(f"For '{owner}', the '{name}' must be in [0, {group.size}), but got "
                         f"{rank}")
    return rank


def _broadcast_as(root, group, dout, like):
    """Rank `root`'s `dout` on every rank, each rank starting from a tensor of `like`'s shape
    (the ranks that are not the root hold a placeholder gradient of another shape)."""
    mine = group_of(group, "Broadcast").rank
    start = dout if mine == root else Tensor(np.zeros(like, dout._data.dtype))
    return apply(Broadcast(root, group), (start,))


@register
class Reduce(Primitive):
    """Reduces `x` over `group` (`op`) onto group rank `dest_rank`; the other ranks get a
    meaningless tensor of shape (1,), as in MindSpore. Gradient (MindSpore's rule): rank
    `dest_rank`'s dout broadcast to every rank."""

    inputs = ("input_x",)
    saves = ("input_x.shape",)

    def __init__(self, dest_rank, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        self.dest_rank = _check_rank_arg("Reduce", "dest_rank", dest_rank)
        self.op = _check_op("Reduce", op)
        self.group = _check_group("Reduce", group)

    def __call__(self, input_x):
        return apply(self, (input_x,))

    def forward(self, x):
        _check_input("Reduce", x, self.op)
        group = group_of(self.group, "Reduce")
        root = _root_of("Reduce", group, self.dest_rank, "dest_rank")
        _backend.check_same_shapes(group, "Reduce", x)
        out = _backend.reduce_to(group, x, self.op, root, "Reduce")
        return out if out is not None else np.zeros((1,), x.dtype)

    def bprop(self, saved, dout, needs):
        if self.op != ReduceOp.SUM:
            raise RuntimeError(f"For 'Reduce', the gradient is defined only for op 'sum', but got "
                               f"op '{self.op}'")
        return (_broadcast_as(self.dest_rank, self.group, dout, saved[0])[0],)


@register
class CollectiveGather(Primitive):
    """The inputs of `group`'s ranks (one shape) concatenated on axis 0, on group rank
    `dest_rank`; the other ranks get a meaningless tensor of shape (1,). Gradient (MindSpore's
    rule): rank `dest_rank`'s dout broadcast to every rank, each taking its own block."""

    inputs = ("input_x",)
    saves = ("input_x.shape",)

    def __init__(self, dest_rank, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        self.dest_rank = _check_rank_arg("CollectiveGather", "dest_rank", dest_rank)
        self.group = _check_group("CollectiveGather", group)

    def __call__(self, input_x):
        return apply(self, (input_x,))

    def forward(self, x):
        _check_input("CollectiveGather", x)
        if x.ndim == 0:
            raise ValueError("For 'CollectiveGather', the input must have at least 1 dimension, "
                             "but got a scalar")
        group = group_of(self.group, "CollectiveGather")
        root = _root_of("CollectiveGather", group, self.dest_rank, "dest_rank")
        _backend.check_same_shapes(group, "CollectiveGather", x)
        out = _backend.gather_to(group, x, root, "CollectiveGather")
        return out if out is not None else np.zeros((1,), x.dtype)

    def bprop(self, saved, dout, needs):
        shape = saved[0]
        group = group_of(self.group, "CollectiveGather")
        whole = _broadcast_as(self.dest_rank, self.group, dout,
                              (shape[0] * group.size,) + tuple(shape[1:]))[0]
        return (whole[group.rank * shape[0]:(group.rank + 1) * shape[0]],)


@register
class CollectiveScatter(Primitive):
    """Group rank `src_rank`'s input split evenly on axis 0: block k to rank k (every rank passes
    a tensor of the source's shape). Gradient (MindSpore's rule): the blocks' douts gathered on
    `src_rank`; zeros on the other ranks."""

    inputs = ("input_x",)
    saves = ("input_x.shape",)

    def __init__(self, src_rank=0, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        self.src_rank = _check_rank_arg("CollectiveScatter", "src_rank", src_rank)
        self.group = _check_group("CollectiveScatter", group)

    def __call__(self, input_x):
        return apply(self, (input_x,))

    def forward(self, x):
        _check_input("CollectiveScatter", x)
        group = group_of(self.group, "CollectiveScatter")
        root = _root_of("CollectiveScatter", group, self.src_rank, "src_rank")
        _split_rows("CollectiveScatter", x, group.size)
        _backend.check_same_shapes(group, "CollectiveScatter", x)
        return _backend.scatter_from(group, x, root, "CollectiveScatter")

    def bprop(self, saved, dout, needs):
        gathered = apply(CollectiveGather(self.src_rank, self.group), (dout,))
        if group_of(self.group, "CollectiveScatter").rank == self.src_rank:
            return (gathered,)
        return (Tensor(np.zeros(saved[0], dout._data.dtype)),)


def _counts(owner, name, value, size):
    """A list of `size` non-negative element counts from a list, tuple or Tensor."""
    if isinstance(value, Tensor):
        value = value._data.tolist()
    elif isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or len(value) != size or any(
            not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0 for v in value):
        raise ValueError(f"For '{owner}', the '{name}' must be {size} non-negative ints (one per "
                         f"rank of the group), but got {value!r}")
    return [int(v) for v in value]


def _flat_input(owner, x):
    _check_input(owner, x)
    if x.ndim > 1:
        raise ValueError(f"For '{owner}', the input must be a flattened (1-D) tensor, but got "
                         f"shape {x.shape}")
    return x.reshape(-1)


def _maybe_empty(out):
    """MindSpore gives a shape-() tensor when nothing is received."""
    return out if out.size else np.zeros((), out.dtype)


def _flat_dout(dout, sizes):
    """The gradient of an uneven collective's output as the flat vector it stands for (the
    shape-() output of an empty result stands for no elements)."""
    if dout.ndim == 0 and sum(sizes) == 0:
        return Tensor(np.zeros((0,), dout._data.dtype))
    return dout


def _shaped(g, shape):
    """The gradient of an input of `shape`: a shape-() result of an empty exchange is empty."""
    return Tensor(np.zeros(shape, g._data.dtype)) if g.ndim == 0 and shape != () else g


@register
class AllGatherV(Primitive):
    """The flat inputs of `group`'s ranks concatenated, rank k contributing
    `output_split_sizes[k]` elements. Gradient (MindSpore's rule): ReduceScatterV('sum') of dout
    with the same sizes."""

    inputs = ("input_x", "output_split_sizes")
    saves = ("output_split_sizes", "input_x.shape")

    def __init__(self, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        self.group = _check_group("AllGatherV", group)

    def __call__(self, input_x, output_split_sizes):
        return apply(self, (input_x, output_split_sizes))

    def forward(self, x, output_split_sizes):
        flat = _flat_input("AllGatherV", x)
        group = group_of(self.group, "AllGatherV")
        sizes = _counts("AllGatherV", "output_split_sizes", output_split_sizes, group.size)
        if sizes[group.rank] != flat.size:
            raise ValueError(f"For 'AllGatherV', this rank ({group.rank}) gives {flat.size} "
                             f"elements, but 'output_split_sizes' says {sizes[group.rank]}")
        return _maybe_empty(_backend.allgatherv(group, flat, sizes, "AllGatherV"))

    def bprop(self, saved, dout, needs):
        sizes = _counts("AllGatherV", "output_split_sizes", saved[0], len(saved[0]) if not
                        isinstance(saved[0], Tensor) else saved[0].size)
        g = apply(ReduceScatterV(ReduceOp.SUM, self.group), (_flat_dout(dout, sizes), saved[0]))
        return _shaped(g, saved[1]), None


@register
class ReduceScatterV(Primitive):
    """The element-wise reduction (`op`) of the flat inputs over `group`; rank k gets its block of
    `input_split_sizes[k]` elements, in rank order. Gradient (for 'sum', MindSpore's rule):
    AllGatherV of dout with the same sizes."""

    inputs = ("input_x", "input_split_sizes")
    saves = ("input_split_sizes", "input_x.shape")

    def __init__(self, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        self.op = _check_op("ReduceScatterV", op)
        self.group = _check_group("ReduceScatterV", group)

    def __call__(self, input_x, input_split_sizes):
        return apply(self, (input_x, input_split_sizes))

    def forward(self, x, input_split_sizes):
        flat = _flat_input("ReduceScatterV", x)
        _check_input("ReduceScatterV", x, self.op)
        group = group_of(self.group, "ReduceScatterV")
        sizes = _counts("ReduceScatterV", "input_split_sizes", input_split_sizes, group.size)
        if sum(sizes) != flat.size:
            raise ValueError(f"For 'ReduceScatterV', the 'input_split_sizes' {sizes} must add up "
                             f"to the input's {flat.size} elements")
        _backend.check_same_shapes(group, "ReduceScatterV", flat)
        return _maybe_empty(_backend.reduce_scatter_v(group, flat, sizes, self.op,
                                                      "ReduceScatterV"))

    def bprop(self, saved, dout, needs):
        if self.op != ReduceOp.SUM:
            raise RuntimeError("The reducescatter bprop only support ReduceOp.SUM until now.")
        mine = _counts("ReduceScatterV", "input_split_sizes", saved[0], len(saved[0]) if not
                       isinstance(saved[0], Tensor) else saved[0].size)
        mine = [mine[group_of(self.group, "ReduceScatterV").rank]]
        g = apply(AllGatherV(self.group), (_flat_dout(dout, mine), saved[0]))
        return _shaped(g, saved[1]), None


def _block_size(owner, block_size):
    if not isinstance(block_size, int) or isinstance(block_size, bool):
        raise TypeError(f"For '{owner}', the 'block_size' must be an int, but got "
                        f"{type(block_size).__name__}")
    if block_size < 1:
        raise ValueError(f"For '{owner}', the 'block_size' must be positive, but got {block_size}")
    return block_size


def _exchange(owner, group, flat, send, recv):
    if sum(send) != flat.size:
        raise ValueError(f"For '{owner}', this rank sends {sum(send)} elements, but the input has "
                         f"{flat.size}")
    return _maybe_empty(_backend.alltoallv(group, flat, send, recv, owner))


@register
class AlltoAllV(Primitive):
    """Rank k sends the next `send_numel_list[j] * block_size` elements of its flat input to rank
    j and receives `recv_numel_list[j] * block_size` from rank j, concatenated in rank order.
    Gradient (MindSpore's rule): AlltoAllV of dout with the two lists swapped."""

    inputs = ("input_x", "send_numel_list", "recv_numel_list")
    saves = ("send_numel_list", "recv_numel_list", "input_x.shape")

    def __init__(self, group=GlobalComm.WORLD_COMM_GROUP, block_size=1):
        super().__init__()
        self.group = GlobalComm.WORLD_COMM_GROUP if group is None else \
            _check_group("AlltoAllV", group)
        self.block_size = _block_size("AlltoAllV", block_size)

    def __call__(self, input_x, send_numel_list, recv_numel_list):
        return apply(self, (input_x, send_numel_list, recv_numel_list))

    def forward(self, x, send_numel_list, recv_numel_list):
        flat = _flat_input("AlltoAllV", x)
        group = group_of(self.group, "AlltoAllV")
        send = [c * self.block_size for c in
                _counts("AlltoAllV", "send_numel_list", send_numel_list, group.size)]
        recv = [c * self.block_size for c in
                _counts("AlltoAllV", "recv_numel_list", recv_numel_list, group.size)]
        if flat.size == 0 and x.ndim == 0:
            flat = flat[:0]
        return _exchange("AlltoAllV", group, flat, send, recv)

    def bprop(self, saved, dout, needs):
        send, recv, shape = saved
        got = _counts("AlltoAllV", "recv_numel_list", recv, len(recv) if not
                      isinstance(recv, Tensor) else recv.size)
        dout = _flat_dout(dout, got)
        back = AlltoAllV(self.group, self.block_size)
        return _shaped(apply(back, (dout, recv, send)), shape), None, None


@register
class AlltoAllVC(Primitive):
    """All-to-all with every rank's counts given: `send_count_matrix[i * N + j] * block_size`
    elements go from rank i to rank j (N ranks; `transpose` reads the matrix transposed); rank k
    receives, in rank order. Gradient (MindSpore's rule): AlltoAllVC of dout with the matrix
    transposed."""

    inputs = ("input_x", "send_count_matrix")
    saves = ("send_count_matrix", "input_x.shape")

    def __init__(self, group=GlobalComm.WORLD_COMM_GROUP, block_size=1, transpose=False):
        super().__init__()
        self.group = GlobalComm.WORLD_COMM_GROUP if group is None else \
            _check_group("AlltoAllVC", group)
        self.block_size = _block_size("AlltoAllVC", block_size)
        if not isinstance(transpose, bool):
            raise TypeError(f"For 'AlltoAllVC', the 'transpose' must be a bool, but got "
                            f"{type(transpose).__name__}")
        self.transpose = transpose

    def __call__(self, input_x, send_count_matrix):
        return apply(self, (input_x, send_count_matrix))

    def forward(self, x, send_count_matrix):
        flat = _flat_input("AlltoAllVC", x)
        group = group_of(self.group, "AlltoAllVC")
        n = group.size
        matrix = np.array(_counts("AlltoAllVC", "send_count_matrix", send_count_matrix, n * n),
                          np.int64).reshape(n, n) * self.block_size
        if self.transpose:
            matrix = matrix.T
        if flat.size == 0 and x.ndim == 0:
            flat = flat[:0]
        return _exchange("AlltoAllVC", group, flat, matrix[group.rank].tolist(),
                         matrix[:, group.rank].tolist())

    def bprop(self, saved, dout, needs):
        group = group_of(self.group, "AlltoAllVC")
        n = group.size
        matrix = np.array(_counts("AlltoAllVC", "send_count_matrix", saved[0], n * n)).reshape(n, n)
        got = (matrix.T if self.transpose else matrix)[:, group.rank].tolist()
        dout = _flat_dout(dout, got)
        back = AlltoAllVC(self.group, self.block_size, not self.transpose)
        return _shaped(apply(back, (dout, saved[0])), saved[1]), None


# ---- point-to-point exchanges ------------------------------------------------------------------

_EXCHANGE_TAG = 7717  # one tag: MPI keeps messages between two ranks in order


def _rank_list(owner, name, ranks, size):
    if not isinstance(ranks, (list, tuple)) or any(
            not isinstance(r, int) or isinstance(r, bool) for r in ranks):
        raise TypeError(f"For '{owner}', the '{name}' must be a list of ints, but got {ranks!r}")
    if size is not None and any(not 0 <= r < size for r in ranks):
        raise ValueError(f"For '{owner}', every rank in '{name}' must be in [0, {size}), but got "
                         f"{list(ranks)}")
    return list(ranks)


def _shape_list(owner, name, shapes):
    if not isinstance(shapes, (list, tuple)) or any(
            not isinstance(s, (list, tuple)) or any(
                not isinstance(d, int) or isinstance(d, bool) or d < 0 for d in s)
            for s in shapes):
        raise TypeError(f"For '{owner}', the '{name}' must be a list of shapes (lists of "
                        f"non-negative ints), but got {shapes!r}")
    return [tuple(s) for s in shapes]


def _exchange_p2p(owner, group, sends, receives):
    """Post every receive [(rank, shape, dtype)], then every send [(rank, array)]; wait for all.
    Returns the received arrays."""
    posted = [_backend.recv(group, shape, dtype, peer, _EXCHANGE_TAG)
              for peer, shape, dtype in receives] if group.comm is not None else []
    started = [_backend.send(group, np.ascontiguousarray(x), peer, _EXCHANGE_TAG)
               for peer, x in sends]
    if group.comm is None:  # a world of one: every message goes to this rank itself
        posted = [_backend.recv(group, shape, dtype, peer, _EXCHANGE_TAG)
                  for peer, shape, dtype in receives]
    for request, buf in posted:
        _backend.wait(request, f"{owner} receive on group '{group.name}'", buf.nbytes)
    for s in started:
        if s is not None:
            _backend.wait(s[0], f"{owner} send on group '{group.name}'", s[1].nbytes)
    return [buf for _, buf in posted]


@register
class NeighborExchange(Primitive):
    """Sends `input_x[k]` (of shape `send_shapes[k]`) to rank `send_rank_ids[k]` and receives,
    from each rank `recv_rank_ids[k]`, a tensor of shape `recv_shapes[k]` and dtype `recv_type`:
    a tuple in, a tuple out. Messages between two ranks match in order. Gradient (MindSpore's
    rule): NeighborExchange of the output gradients with the send and receive sides swapped."""

    inputs = "*"

    def __init__(self, send_rank_ids, recv_rank_ids, recv_shapes, send_shapes, recv_type,
                 group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        owner = "NeighborExchange"
        self.send_rank_ids = _rank_list(owner, "send_rank_ids", send_rank_ids, None)
        self.recv_rank_ids = _rank_list(owner, "recv_rank_ids", recv_rank_ids, None)
        self.recv_shapes = _shape_list(owner, "recv_shapes", recv_shapes)
        self.send_shapes = _shape_list(owner, "send_shapes", send_shapes)
        if len(self.send_shapes) != len(self.send_rank_ids) or \
                len(self.recv_shapes) != len(self.recv_rank_ids):
            raise ValueError(f"For '{owner}', 'send_shapes' and 'recv_shapes' must have one shape "
                             f"per rank in 'send_rank_ids' and 'recv_rank_ids', but got "
                             f"{len(self.send_shapes)} for {len(self.send_rank_ids)} and "
                             f"{len(self.recv_shapes)} for {len(self.recv_rank_ids)}")
        if not isinstance(recv_type, mstype.Type):
            raise TypeError(f"For '{owner}', the 'recv_type' must be a mindspore dtype, but got "
                            f"{recv_type!r}")
        self.recv_type = recv_type
        self.group = _check_group(owner, group)

    def __call__(self, input_x):
        if not isinstance(input_x, (tuple, list)):
            raise TypeError(f"For 'NeighborExchange', the input must be a tuple of Tensors, but "
                            f"got {type(input_x).__name__}")
        return apply(self, tuple(input_x))

    def forward(self, *xs):
        owner = "NeighborExchange"
        group = group_of(self.group, owner)
        _rank_list(owner, "send_rank_ids", self.send_rank_ids, group.size)
        _rank_list(owner, "recv_rank_ids", self.recv_rank_ids, group.size)
        if len(xs) != len(self.send_rank_ids):
            raise ValueError(f"For '{owner}', expected {len(self.send_rank_ids)} input tensors (one "
                             f"per rank in 'send_rank_ids'), but got {len(xs)}")
        for k, (x, shape) in enumerate(zip(xs, self.send_shapes)):
            _check_input(owner, x)
            if x.shape != shape:
                raise ValueError(f"For '{owner}', input {k} must have the shape {shape} given in "
                                 f"'send_shapes', but got {x.shape}")
        dtype = mstype.to_np(self.recv_type)
        return tuple(_exchange_p2p(owner, group, list(zip(self.send_rank_ids, xs)),
                                   [(r, s, dtype) for r, s in
                                    zip(self.recv_rank_ids, self.recv_shapes)]))

    def bprop(self, saved, dout, needs):
        douts = dout if isinstance(dout, tuple) else (dout,)
        dtype = douts[0]._data.dtype if douts else np.dtype(np.float32)
        back = NeighborExchange(self.recv_rank_ids, self.send_rank_ids, self.send_shapes,
                                self.recv_shapes, mstype.pytype_to_dtype(dtype), self.group)
        douts = tuple(Tensor(np.zeros(s, dtype)) if d is None else d
                      for d, s in zip(douts, self.recv_shapes))
        return apply(back, douts)


@register
class BatchISendIRecv(Primitive):
    """Runs the sends and receives listed in `op_types` ('isend'/'irecv') with the ranks in
    `remote_ranks` as one batch: the inputs are the tensors to send, in order; the output has one
    tensor per entry, the received tensor (of the next `receive_shapes`/`receive_dtypes`) at an
    'irecv' and a meaningless scalar at an 'isend'. Not differentiated (MindSpore defines no
    gradient)."""

    inputs = "*"
    differentiable = False

    def __init__(self, op_types, remote_ranks, receive_shapes=None, receive_dtypes=None,
                 group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        owner = "BatchISendIRecv"
        receive_shapes = () if receive_shapes is None else receive_shapes
        receive_dtypes = () if receive_dtypes is None else receive_dtypes
        for name, value in (("receive_shapes", receive_shapes), ("receive_dtypes", receive_dtypes),
                            ("op_types", op_types), ("remote_ranks", remote_ranks)):
            if not isinstance(value, (tuple, list)):
                raise TypeError(f"For '{owner}', the '{name}' must be a tuple or list, but got "
                                f"{type(value).__name__}")
        if len(receive_shapes) != len(receive_dtypes):
            raise ValueError(f"length of receive_shapes and receive_shapes must be the same, but "
                             f"got receive_shapes: {len(receive_shapes)}  and receive_shapes: "
                             f"{receive_dtypes}")
        if len(op_types) != len(remote_ranks):
            raise ValueError("length of op_types and remote_ranks must be the same.")
        if any(t not in ("isend", "irecv") for t in op_types):
            raise ValueError(f"For '{owner}', every entry of 'op_types' must be 'isend' or "
                             f"'irecv', but got {list(op_types)}")
        if sum(t == "irecv" for t in op_types) != len(receive_shapes):
            raise ValueError(f"For '{owner}', 'receive_shapes' must give one shape per 'irecv' "
                             f"in 'op_types', but got {len(receive_shapes)}")
        self.op_types, self.remote_ranks = list(op_types), _rank_list(owner, "remote_ranks",
                                                                      remote_ranks, None)
        self.receive_shapes = _shape_list(owner, "receive_shapes", receive_shapes)
        for d in receive_dtypes:
            if not isinstance(d, mstype.Type):
                raise TypeError(f"For '{owner}', every entry of 'receive_dtypes' must be a "
                                f"mindspore dtype, but got {d!r}")
        self.receive_dtypes = list(receive_dtypes)
        self.group = GlobalComm.WORLD_COMM_GROUP if group is None else _check_group(owner, group)

    def __call__(self, input_x):
        if not isinstance(input_x, (tuple, list)):
            raise TypeError(f"For 'BatchISendIRecv', the input must be a tuple of Tensors, but got "
                            f"{type(input_x).__name__}")
        return apply(self, tuple(t for t in input_x if t is not None))

    def forward(self, *xs):
        owner = "BatchISendIRecv"
        group = group_of(self.group, owner)
        _rank_list(owner, "remote_ranks", self.remote_ranks, group.size)
        sends = [r for t, r in zip(self.op_types, self.remote_ranks) if t == "isend"]
        if len(xs) != len(sends):
            raise RuntimeError(f"For '{owner}', the number of input tensors ({len(xs)}) must be "
                               f"the number of 'isend' in 'op_types' ({len(sends)})")
        receives = [(r, s, mstype.to_np(d)) for r, s, d in zip(
            [r for t, r in zip(self.op_types, self.remote_ranks) if t == "irecv"],
            self.receive_shapes, self.receive_dtypes)]
        got = iter(_exchange_p2p(owner, group, list(zip(sends, xs)), receives))
        sent = iter(xs)
        return tuple(next(got) if t == "irecv" else np.zeros((), next(sent).dtype)
                     for t in self.op_types)


# ---- halo exchange of NCHW feature maps ----------------------------------------------------------
# Directions, clockwise from the top: 0 top, 1 top-right, 2 right, 3 bottom-right, 4 bottom,
# 5 bottom-left, 6 left, 7 top-left. lens are [top, bottom, left, right]. A block sent in
# direction d lands in the receiver's halo on the opposite side, (d + 4) % 8: the messages are
# tagged with that direction, so any number of directions may join the same two ranks.
_ROWS = {0: "top", 1: "top", 7: "top", 3: "bottom", 4: "bottom", 5: "bottom"}
_COLS = {1: "right", 2: "right", 3: "right", 5: "left", 6: "left", 7: "left"}
_HALO_TAG = 7800


def _check_halo_args(owner, send_rank_ids, send_lens, recv_rank_ids, recv_lens, data_format):
    for name, ids in (("send_rank_ids", send_rank_ids), ("recv_rank_ids", recv_rank_ids)):
        if not isinstance(ids, list) or len(ids) != 8 or any(
                not isinstance(r, int) or isinstance(r, bool) for r in ids):
            raise TypeError(f"For '{owner}', the '{name}' must be a list of 8 ints (one rank per "
                            f"direction, -1 for none), but got {ids!r}")
        if any(r < -1 for r in ids):
            raise ValueError(f"For '{owner}', the '{name}' can not hold values less than -1, but "
                             f"got {ids}")
        real = [r for r in ids if r != -1]
        if len(set(real)) != len(real):
            raise ValueError(f"For '{owner}', the '{name}' can not hold repeated ranks, but got "
                             f"{ids}")
    for name, lens in (("send_lens", send_lens), ("recv_lens", recv_lens)):
        if not isinstance(lens, list) or len(lens) != 4 or any(
                not isinstance(v, int) or isinstance(v, bool) for v in lens):
            raise TypeError(f"For '{owner}', the '{name}' must be a list of 4 ints [top, bottom, "
                            f"left, right], but got {lens!r}")
        if any(v < 0 for v in lens):
            raise ValueError(f"For '{owner}', the '{name}' can not hold values less than 0, but "
                             f"got {lens}")
    if data_format != "NCHW":
        raise ValueError(f"For '{owner}', the 'data_format' must be 'NCHW', but got "
                         f"{data_format!r}")


def _halo(ids, lens):
    """The [top, bottom, left, right] widths that `ids`' live directions use (0 elsewhere)."""
    live = [d for d in range(8) if ids[d] != -1]
    side = {"top": 0, "bottom": 1, "left": 2, "right": 3}
    used = {_ROWS[d] for d in live if d in _ROWS} | {_COLS[d] for d in live if d in _COLS}
    return [lens[i] if name in used else 0 for name, i in side.items()]


def _region(d, shape, halo, inner):
    """The index of direction d's block: the input's edge block (inner=True) of widths `halo`,
    or the halo band around an input of spatial `shape` in the padded output (inner=False)."""
    h, w = shape
    top, bottom, left, right = halo
    if inner:
        rows = {"top": slice(0, top), "bottom": slice(h - bottom, h), None: slice(0, h)}
        cols = {"left": slice(0, left), "right": slice(w - right, w), None: slice(0, w)}
    else:
        rows = {"top": slice(0, top), "bottom": slice(top + h, top + h + bottom),
                None: slice(top, top + h)}
        cols = {"left": slice(0, left), "right": slice(left + w, left + w + right),
                None: slice(left, left + w)}
    return (slice(None), slice(None), rows[_ROWS.get(d)], cols[_COLS.get(d)])


def _halo_exchange(owner, group, x, sends, send_halo, recvs, recv_halo, out_shape, inner_out):
    """Send x's block for each live direction of `sends`, receive each live direction of `recvs`
    into a zero array of `out_shape` (halo bands, or edge blocks added in when `inner_out`)."""
    spatial_in = x.shape[2:] if not inner_out else tuple(
        s - a - b for s, a, b in zip(x.shape[2:], send_halo[::2], send_halo[1::2]))
    for r in sends + recvs:
        if r >= group.size:
            raise ValueError(f"For '{owner}', every rank id must be in [-1, {group.size}), but "
                             f"got {r}")
    out = np.zeros(out_shape, x.dtype)
    receives = []
    for d in range(8):
        if recvs[d] != -1:
            index = _region(d, out_shape[2:] if inner_out else spatial_in, recv_halo, inner_out)
            block = np.empty(out[index].shape, x.dtype)
            receives.append((d, index, _backend.recv(group, block.shape, x.dtype, recvs[d],
                                                     _HALO_TAG + d) if group.comm else None))
    started = []
    for d in range(8):
        if sends[d] != -1:
            block = x[_region(d, spatial_in if inner_out else x.shape[2:], send_halo, not inner_out)]
            started.append(_backend.send(group, np.ascontiguousarray(block), sends[d],
                                         _HALO_TAG + (d + 4) % 8))
    for d, index, posted in receives:
        if posted is None:  # a world of one: this rank sent it to itself
            posted = _backend.recv(group, out[index].shape, x.dtype, recvs[d], _HALO_TAG + d)
        request, buf = posted
        _backend.wait(request, f"{owner} receive (direction {d}) on group '{group.name}'",
                      buf.nbytes)
        if inner_out:
            out[index] += buf
        else:
            out[index] = buf
    for s in started:
        if s is not None:
            _backend.wait(s[0], f"{owner} send on group '{group.name}'", s[1].nbytes)
    return out


@register
class NeighborExchangeV2(Primitive):
    """Halo exchange of an NCHW feature map with up to 8 neighbours (`send_rank_ids` and
    `recv_rank_ids` hold a rank or -1 per direction, clockwise from the top; `send_lens` and
    `recv_lens` are [top, bottom, left, right] widths): the output is the input surrounded by the
    bands received (zeros where nothing is received). MindSpore runs it only in graph mode on
    Ascend. Gradient: NeighborExchangeV2Grad, its adjoint (each band's gradient returns to the
    rank that sent it and is added to the edge block it came from)."""

    inputs = ("input_x",)

    def __init__(self, send_rank_ids, send_lens, recv_rank_ids, recv_lens, data_format,
                 group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        _check_halo_args("NeighborExchangeV2", send_rank_ids, send_lens, recv_rank_ids,
                         recv_lens, data_format)
        self.send_rank_ids, self.send_lens = list(send_rank_ids), list(send_lens)
        self.recv_rank_ids, self.recv_lens = list(recv_rank_ids), list(recv_lens)
        self.data_format = self.format = data_format
        self.group = _check_group("NeighborExchangeV2", group)

    def __call__(self, input_x):
        return apply(self, (input_x,))

    def forward(self, x):
        owner = "NeighborExchangeV2"
        _check_input(owner, x)
        if x.ndim != 4:
            raise ValueError(f"For '{owner}', the input must be NCHW (4-D), but got shape "
                             f"{x.shape}")
        send_halo = _halo(self.send_rank_ids, self.send_lens)
        recv_halo = _halo(self.recv_rank_ids, self.recv_lens)
        if send_halo[0] + send_halo[1] > x.shape[2] or send_halo[2] + send_halo[3] > x.shape[3]:
            raise ValueError(f"For '{owner}', the 'send_lens' {self.send_lens} do not fit an input "
                             f"of shape {x.shape}")
        top, bottom, left, right = recv_halo
        out_shape = x.shape[:2] + (x.shape[2] + top + bottom, x.shape[3] + left + right)
        out = _halo_exchange(owner, group_of(self.group, owner), x, self.send_rank_ids,
                             send_halo, self.recv_rank_ids, recv_halo, out_shape, False)
        out[:, :, top:top + x.shape[2], left:left + x.shape[3]] = x
        return out

    def bprop(self, saved, dout, needs):
        back = NeighborExchangeV2Grad(self.recv_rank_ids, self.recv_lens, self.send_rank_ids,
                                      self.send_lens, self.data_format, self.group)
        return (apply(back, (dout,)),)


@register
class NeighborExchangeV2Grad(Primitive):
    """The gradient of NeighborExchangeV2 (built with the forward's send and receive sides
    swapped): each halo band of `dy` goes back to the rank in `send_rank_ids` it came from, the
    bands received are added to the edge blocks they cover, and the centre is kept. Gradient:
    NeighborExchangeV2 with the sides swapped back (the two are adjoint)."""

    inputs = ("dy",)

    def __init__(self, send_rank_ids, send_lens, recv_rank_ids, recv_lens, data_format,
                 group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        _check_halo_args("NeighborExchangeV2Grad", send_rank_ids, send_lens, recv_rank_ids,
                         recv_lens, data_format)
        self.send_rank_ids, self.send_lens = list(send_rank_ids), list(send_lens)
        self.recv_rank_ids, self.recv_lens = list(recv_rank_ids), list(recv_lens)
        self.data_format = self.format = data_format
        self.group = _check_group("NeighborExchangeV2Grad", group)

    def __call__(self, dy):
        return apply(self, (dy,))

    def forward(self, dy):
        owner = "NeighborExchangeV2Grad"
        _check_input(owner, dy)
        if dy.ndim != 4:
            raise ValueError(f"For '{owner}', the input must be NCHW (4-D), but got shape "
                             f"{dy.shape}")
        band = _halo(self.send_rank_ids, self.send_lens)  # the bands of dy, sent back
        top, bottom, left, right = band
        h, w = dy.shape[2] - top - bottom, dy.shape[3] - left - right
        if h < 0 or w < 0:
            raise ValueError(f"For '{owner}', the 'send_lens' {self.send_lens} do not fit a "
                             f"gradient of shape {dy.shape}")
        edge = _halo(self.recv_rank_ids, self.recv_lens)  # the edge blocks they are added to
        out_shape = dy.shape[:2] + (h, w)
        dx = _halo_exchange(owner, group_of(self.group, owner), dy, self.send_rank_ids, band,
                            self.recv_rank_ids, edge, out_shape, True)
        dx += dy[:, :, top:top + h, left:left + w]
        return dx

    def bprop(self, saved, dout, needs):
        back = NeighborExchangeV2(self.recv_rank_ids, self.recv_lens, self.send_rank_ids,
                                  self.send_lens, self.data_format, self.group)
        return (apply(back, (dout,)),)
