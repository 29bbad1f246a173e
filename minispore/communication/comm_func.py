"""MindSpore's `mindspore.communication.comm_func`: collectives as functions.

Synchronous calls run the collective primitives of `ops.operations.comm_ops` (so they are
differentiable); `async_op=True` starts a non-blocking MPI call and returns a `CommHandle` whose
`wait()` completes the output tensor. `src`/`dst` are world ranks, as in MindSpore.
"""
import numpy as np

from .._autodiff.tape import wrap
from ..common.tensor import Tensor
from ..ops.operations import comm_ops
from . import _backend
from .management import GlobalComm, get_group_rank_from_world_rank, group_of

__all__ = ["CommHandle", "all_gather_into_tensor", "all_reduce", "all_to_all_with_output_shape",
           "barrier", "broadcast", "gather_into_tensor", "irecv", "isend", "recv", "reduce",
           "reduce_scatter_tensor", "scatter_tensor", "send"]


class CommHandle:
    """The handle of an asynchronous collective: `wait()` blocks until its output is final."""

    def __init__(self, request=None, what="", finish=None):
        self._request, self._what, self._finish = request, what, finish

    def wait(self):
        if self._request is not None:
            _backend.wait(self._request, self._what)
            self._request = None
        if self._finish is not None:
            self._finish()
            self._finish = None

    def __repr__(self):
        return f"CommHandle(handle={'pending' if self._request is not None else None})"


def _check_tensor(owner, tensor):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For {owner}, the input tensor must be tensor")


def _check_rank(owner, name, value):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"For {owner}, the {name} must be int")


def all_reduce(tensor, op="sum", group=GlobalComm.WORLD_COMM_GROUP,
               async_op=False):
    """(the reduction of `tensor` over `group`, None); with `async_op`, (output, CommHandle):
    the output is final after `handle.wait()`."""
    _check_tensor("all_reduce", tensor)
    if not isinstance(op, str):
        raise TypeError("For all_reduce, the input op type must be str")
    if op not in ("sum", "prod", "min", "max"):
        raise TypeError("For all_reduce, the input op value must be one of sum, prod, min, max")
    if not async_op:
        return comm_ops.AllReduce(op, group)(tensor), None
    x = tensor._data
    grp = group_of(group, "all_reduce")
    _backend.check_same_shapes(grp, "all_reduce", x)
    request, buf = _backend.iallreduce(grp, x, op)
    out = wrap(np.empty(x.shape, x.dtype) if buf.dtype != x.dtype else buf)

    def finish():
        if buf.dtype != x.dtype:
            out._data[...] = buf.astype(x.dtype)
    return out, CommHandle(request, f"all_reduce on group '{grp.name}'", finish)


def all_gather_into_tensor(tensor, group=GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """(the inputs of `group`'s ranks concatenated on axis 0, handle or None)."""
    _check_tensor("all_gather_into_tensor", tensor)
    return comm_ops.AllGather(group)(tensor), (CommHandle() if async_op else None)


def reduce_scatter_tensor(tensor, op="sum", group=GlobalComm.WORLD_COMM_GROUP,
                          async_op=False):
    """(this rank's block of the reduction over `group`, split on axis 0; handle or None)."""
    _check_tensor("reduce_scatter_tensor", tensor)
    return comm_ops.ReduceScatter(op, group)(tensor), (CommHandle() if async_op else None)


def broadcast(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP):
    """World rank `src`'s `tensor`, on every rank of `group`."""
    _check_tensor("broadcast", tensor)
    _check_rank("broadcast", "src", src)
    root = get_group_rank_from_world_rank(src, group)
    return comm_ops.Broadcast(root, group)((tensor,))[0]


def _rooted(owner, tensor, rank, name, group):
    _check_tensor(owner, tensor)
    _check_rank(owner, name, rank)
    grp = group_of(group, owner)
    return grp, get_group_rank_from_world_rank(rank, group)


def _placeholder(dtype):
    return wrap(np.zeros((1,), dtype))


def reduce(tensor, dst, op="sum", group=GlobalComm.WORLD_COMM_GROUP):
    """The reduction of `tensor` over `group` on world rank `dst`; the other ranks get a tensor
    of shape (1,) with no meaning, as in MindSpore. Not differentiated."""
    grp, root = _rooted("reduce", tensor, dst, "dst", group)
    if op not in ("sum", "prod", "min", "max"):
        raise TypeError("For reduce, the input op value must be one of sum, prod, min, max")
    _backend.check_same_shapes(grp, "reduce", tensor._data)
    out = _backend.reduce_to(grp, tensor._data, op, root)
    return wrap(out) if out is not None else _placeholder(tensor._data.dtype)


def gather_into_tensor(tensor, dst=0, group=GlobalComm.WORLD_COMM_GROUP):
    """The tensors of `group`'s ranks concatenated on axis 0, on world rank `dst`; the other ranks
    get a tensor of shape (1,) with no meaning, as in MindSpore. Not differentiated."""
    grp, root = _rooted("gather_into_tensor", tensor, dst, "dst", group)
    if tensor.ndim == 0:
        raise ValueError("For gather_into_tensor, the input must have at least 1 dimension")
    _backend.check_same_shapes(grp, "gather_into_tensor", tensor._data)
    out = _backend.gather_to(grp, tensor._data, root)
    return wrap(out) if out is not None else _placeholder(tensor._data.dtype)


def scatter_tensor(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP):
    """World rank `src`'s `tensor` split evenly on axis 0, block k to group rank k (every rank
    passes a tensor of the same shape). Not differentiated."""
    grp, root = _rooted("scatter_tensor", tensor, src, "src", group)
    if tensor.ndim == 0 or tensor.shape[0] % grp.size:
        raise ValueError(f"For scatter_tensor, the first dimension of the input must be divisible "
                         f"by the group size {grp.size}, but got shape {tensor.shape}")
    _backend.check_same_shapes(grp, "scatter_tensor", tensor._data)
    return wrap(_backend.scatter_from(grp, tensor._data, root))


def barrier(group=GlobalComm.WORLD_COMM_GROUP):
    """Wait until every rank of `group` arrives."""
    if not isinstance(group, str):
        raise TypeError(f"group must be type of string, but got {type(group)}")
    comm_ops.Barrier(group)()


def _p2p(owner, tensor, peer, group):
    _check_tensor(owner, tensor)
    _check_rank(owner, "dst" if owner in ("send", "isend") else "src", peer)
    grp = group_of(group, owner)
    return grp, get_group_rank_from_world_rank(peer, group)


def send(tensor, dst=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """Send `tensor` to world rank `dst` (blocks until the message is handed over)."""
    isend(tensor, dst, group, tag).wait()


def isend(tensor, dst=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """Start sending `tensor` to world rank `dst`; returns a CommHandle."""
    grp, peer = _p2p("isend", tensor, dst, group)
    started = _backend.send(grp, tensor._data, peer, tag)
    if started is None:
        return CommHandle()
    request, buf = started
    return CommHandle(request, f"send to rank {dst} (tag {tag}) on group '{grp.name}'",
                      finish=lambda: buf)


def recv(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """A tensor of `tensor`'s shape and dtype received from world rank `src`."""
    out, handle = irecv(tensor, src, group, tag)
    handle.wait()
    return out


def irecv(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """Start receiving from world rank `src` a tensor of `tensor`'s shape and dtype: (output,
    CommHandle); the output is final after `wait()`."""
    grp, peer = _p2p("irecv", tensor, src, group)
    request, buf = _backend.recv(grp, tensor.shape, tensor._data.dtype, peer, tag)
    return wrap(buf), CommHandle(request, f"recv from rank {src} (tag {tag}) on group "
                                          f"'{grp.name}'")


def all_to_all_with_output_shape(output_shape_list, input_tensor_list, group=None, async_op=False):
    """Rank k sends `input_tensor_list[j]` to rank j and receives from rank j a tensor of shape
    `output_shape_list[j]` (a shape or a Tensor giving it): (tuple of received tensors, handle)."""
    group = GlobalComm.WORLD_COMM_GROUP if group is None else group
    grp = group_of(group, "all_to_all_with_output_shape")
    if len(input_tensor_list) != grp.size or len(output_shape_list) != grp.size:
        raise ValueError(f"For all_to_all_with_output_shape, both lists must have one entry per "
                         f"rank of the group ({grp.size}), but got {len(output_shape_list)} and "
                         f"{len(input_tensor_list)}")
    for t in input_tensor_list:
        _check_tensor("all_to_all_with_output_shape", t)
    dtype = input_tensor_list[0]._data.dtype
    shapes = [tuple(s.shape) if isinstance(s, Tensor) else tuple(s) for s in output_shape_list]
    outs, requests = [], []
    for peer in range(grp.size):
        request, buf = _backend.recv(grp, shapes[peer], dtype, peer, 7919) if peer != grp.rank \
            else (None, None)
        outs.append(buf)
        requests.append(request)
    sends = [_backend.send(grp, input_tensor_list[peer]._data, peer, 7919)
             for peer in range(grp.size) if peer != grp.rank]
    outs[grp.rank] = np.array(input_tensor_list[grp.rank]._data, copy=True)
    what = f"all_to_all_with_output_shape on group '{grp.name}'"
    for request in requests + [s[0] for s in sends if s is not None]:
        _backend.wait(request, what)
    result = tuple(wrap(o.reshape(shapes[k])) for k, o in enumerate(outs))
    return result, (CommHandle() if async_op else None)
