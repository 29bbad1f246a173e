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

__all__ = ["AllGather", "AllReduce", "AlltoAll", "Barrier", "Broadcast", "Receive", "ReduceOp",
           "ReduceScatter", "Send"]
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
