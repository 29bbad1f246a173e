"""MindSpore 2.10's `mindspore.ops.communication` (also `ops.all_reduce`, `ops.new_group`, ...):
the process-group calls and collectives in the style of `torch.distributed`, on minispore's MPI
world (a world of one without a launcher).

As in MindSpore, the collectives work in place by default: `all_reduce(t)` overwrites `t` and
returns a handle (None unless `async_op=True`); `set_comm_ops_inplace(False)` makes the calls that
MindSpore lets go out of place return `(Tensor, handle)` instead, computed by the differentiable
primitives of `ops.operations.comm_ops`. In-place writes are not differentiated. `src`/`dst`/
`peer` are world ranks. An `async_op=True` all-reduce is a non-blocking MPI call completed by
`handle.wait()`; the other calls complete before they return and give an already finished
handle.
"""
import hashlib
import logging
import os
import pickle
from datetime import timedelta

import numpy as np

from .._autodiff.tape import wrap, write_in_place
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..communication import _backend
from ..communication import management as _mgmt
from ..communication.comm_func import CommHandle
from ..communication.management import GlobalComm
from .operations import comm_ops
from .operations.linalg_ops import MatMul

__all__ = ["P2POp", "all_gather", "all_gather_into_tensor", "all_gather_into_tensor_uneven",
           "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "all_to_all_v_c",
           "barrier", "batch_isend_irecv", "broadcast", "broadcast_object_list",
           "destroy_process_group", "gather", "gather_into_tensor", "gather_object", "get_backend",
           "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank",
           "get_world_size", "init_process_group", "irecv", "is_available", "is_initialized",
           "isend", "new_group", "recv", "recv_object_list", "reduce", "reduce_scatter",
           "reduce_scatter_tensor", "reduce_scatter_tensor_uneven", "scatter", "scatter_object_list",
           "scatter_tensor", "send", "send_object_list", "set_comm_ops_inplace"]

# in `ops` only (MindSpore's fused Ascend kernels), not in `ops.communication`
OPS_ONLY = ("all_gather_matmul", "matmul_reduce_scatter")
_log = logging.getLogger("minispore")
_INPLACE = dict.fromkeys((
    "all_reduce", "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_to_all",
    "all_to_all_single", "reduce_scatter_tensor", "reduce_scatter_tensor_uneven", "isend", "irecv",
    "send", "recv", "gather", "scatter", "all_gather", "reduce_scatter", "barrier", "broadcast",
    "reduce", "batch_isend_irecv", "all_gather_object", "broadcast_object_list", "gather_object",
    "scatter_object_list", "send_object_list", "recv_object_list", "gather_into_tensor",
    "scatter_tensor", "all_to_all_v_c"), True)
_OPS = ("sum", "prod", "min", "max", "avg")
_NO_OUT_OF_PLACE = "Non-inplace mode is currently not supported."


def set_comm_ops_inplace(is_enable, func_list=None):
    """Make the communication functions in `func_list` (default: all) work in place or not."""
    if not isinstance(is_enable, bool):
        raise TypeError(f"For 'set_comm_ops_inplace', the argument 'is_enable' must be type of "
                        f"bool, but got 'is_enable' type : {type(is_enable)}.")
    if func_list is None:
        for name in _INPLACE:
            _INPLACE[name] = is_enable
        return
    if not isinstance(func_list, (list, tuple)):
        raise TypeError(f"Expected list or tuple, but got {type(func_list)}.")
    for name in func_list:
        if name not in _INPLACE:
            raise ValueError(f"The function name in `func_list` must be correct, but got {name}.")
    for name in func_list:
        _INPLACE[name] = is_enable


# ---- checks -------------------------------------------------------------------------------------

def _group(group, async_op=False):
    if group is None:
        group = GlobalComm.WORLD_COMM_GROUP
    if not isinstance(group, str):
        raise TypeError(f"The argument 'group' must be type of string, but got 'group' type : "
                        f"{type(group)}.")
    if not isinstance(async_op, bool):
        raise TypeError(f"The argument 'async_op' must be a bool, but got {type(async_op)}.")
    return group


def _tensor(owner, t, which="input"):
    if not isinstance(t, Tensor):
        raise TypeError(f"For {owner}, the {which} tensor must be tensor")
    return t


def _int(owner, name, value):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"For {owner}, the {name} must be int")
    return value


def _op(owner, op, allowed=_OPS):
    if not isinstance(op, str):
        raise TypeError(f"For {owner}, the input op type must be str")
    if op not in allowed:
        raise TypeError(f"For {owner}, the input op value must be one of {', '.join(allowed)}")
    return op


def _tensors(tensor_list, same_shape=False):
    if not isinstance(tensor_list, (list, tuple)):
        raise TypeError(f"Expected list or tuple, but got {type(tensor_list)}.")
    for t in tensor_list:
        if not isinstance(t, Tensor):
            raise TypeError(f"Expected tensor, but got {type(t)}")
    for t in tensor_list[1:]:
        if t.dtype != tensor_list[0].dtype:
            raise TypeError(f"tensor_lists dtype must be the same, but got {tensor_list[0].dtype} "
                            f"and {t.dtype}.")
        if same_shape and t.shape != tensor_list[0].shape:
            raise TypeError(f"tensor_lists shape must be the same, but got {tensor_list[0].shape} "
                            f"and {t.shape}.")
    return tensor_list


def _list_len(tensor_list, size):
    if not tensor_list or len(tensor_list) != size:
        raise TypeError(f"The argument list tensor len must be equal to group rank size, but got "
                        f"{len(tensor_list)}.")


def _in_place(name):
    if not _INPLACE[name]:
        raise ValueError(_NO_OUT_OF_PLACE)


def _write(t, values):
    """Overwrite Tensor `t` with `values` (cast to its dtype), as an in-place write."""
    write_in_place(t, wrap(np.asarray(values).reshape(t._data.shape)))


def _write_output(owner, output, out):
    """`_write(output, out)` after checking that `output` holds as many elements."""
    if out.size != output._data.size:
        raise ValueError(f"For {owner}, the output must hold {out.size} elements, but has shape "
                         f"{output.shape}")
    _write(output, out)


def _what(t):
    """How a shape-mismatch error names the tensor: a Parameter by its name."""
    return f"tensor '{t.name}'" if isinstance(t, Parameter) else "input"


def _done(async_op):
    return CommHandle() if async_op else None


def _world_rank_to_group(rank, group):
    return _mgmt.get_group_rank_from_world_rank(rank, group)


def _reduced(grp, x, op):
    """The element-wise reduction of array `x` over `grp` ('avg': the sum over the group size)."""
    out = _backend.allreduce(grp, x, "sum" if op == "avg" else op, f"all_reduce ({op})")
    if op == "avg":
        out = (out / grp.size).astype(x.dtype) if x.dtype.kind in "fc" else out // grp.size
    return out


# ---- process groups -----------------------------------------------------------------------------

def is_available():
    """Whether distributed communication can be used: always (a world of one without an MPI
    launcher, the MPI world under one)."""
    return True


def is_initialized():
    """Whether `init_process_group` (or `communication.init`) has opened the world."""
    return _backend.STATE.inited


def init_process_group(backend="hccl", init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Open the communication world (the MPI world under a launcher, else a world of one).

    MindSpore accepts only `backend='hccl'` and, on CPU, then fails; here 'hccl' opens the CPU
    world. The ranks always meet through the MPI launcher: `init_method` (a `tcp://` address) is
    not needed, but `world_size` and `rank`, when given, must match the launched world. `timeout`
    sets the collectives' deadline. `store` (a TCPStore) is not supported.

    Raises:
        TypeError: an argument of the wrong type, or a `store`.
        ValueError: another backend, `init_method` without positive `world_size` and non-negative
            `rank`, or a `world_size`/`rank` other than the launched world's.
    """
    for name, value, kind in (("init_method", init_method, str), ("timeout", timeout, timedelta),
                              ("world_size", world_size, int), ("rank", rank, int),
                              ("group_name", group_name, str)):
        if value is not None and not isinstance(value, kind):
            raise TypeError(f"The parameter '{name}' must be {kind.__name__}, but got "
                            f"{type(value).__name__}")
    if store is not None:
        raise TypeError("For 'init_process_group', a TCPStore 'store' is not supported: the ranks "
                        "meet through the MPI launcher")
    if pg_options is not None:
        _log.warning("pg_options is ignored, setting is invalid")
    if device_id is not None:
        _log.warning("device_id is ignored, setting is invalid")
    if backend != "hccl":
        raise ValueError("Only support hccl now, please setting backend to hccl or using default "
                         "value")
    if init_method is not None:
        if world_size <= 0:
            raise ValueError("Specified world_size must be a positive integer.")
        if rank < 0:
            raise ValueError("Specified rank must be a non-negative integer.")
    if timeout is not None:
        os.environ["MINISPORE_COMM_TIMEOUT"] = str(timeout.total_seconds())
    _mgmt.init()
    size = _mgmt.get_group_size(group_name) if group_name else _mgmt.get_group_size()
    if world_size not in (-1, size):
        raise ValueError(f"world_size is wrong, please using default value or setting: {size}")
    if rank not in (-1, _mgmt.get_rank()):
        raise ValueError(f"rank is wrong: this process is rank {_mgmt.get_rank()} of the "
                         f"launched world")


def destroy_process_group(group=None):
    """Close the world (group None or the world group) or destroy one group."""
    if group is None or group == GlobalComm.WORLD_COMM_GROUP:
        _mgmt.release()
    elif not isinstance(group, str):
        raise TypeError(f"For 'destroy_group', the argument 'group' must be type of string or "
                        f"None, but got 'group' type : {type(group)}.")
    else:
        _mgmt.destroy_group(group)


def _or_minus_one(fn, owner, group):
    if group is None:
        group = GlobalComm.WORLD_COMM_GROUP
    if not isinstance(group, str):
        raise TypeError(f"For '{owner}', the argument 'group' must be type of string, but got "
                        f"'group' type : {type(group)}.")
    try:
        return fn(group)
    except RuntimeError as err:
        _log.warning(str(err))
        return -1


def get_rank(group=None):
    """This process's rank in `group` (default the world); -1, with a warning, when it cannot be
    known (a group this rank is not in)."""
    return _or_minus_one(_mgmt.get_rank, "get_rank", group)


def get_world_size(group=None):
    """The number of ranks in `group` (default the world); -1, with a warning, when unknown."""
    return _or_minus_one(_mgmt.get_group_size, "get_world_size", group)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None):
    """A group of the world ranks `ranks` (every world rank calls it), named as MindSpore names
    it: `{backend}_{len(ranks)}_{sha1 of the ranks}`; None gives the world group. Returns '' (with
    a warning) when the group cannot be created."""
    if ranks is None:
        return GlobalComm.WORLD_COMM_GROUP
    if not isinstance(ranks, list):
        raise TypeError(f"ranks must be list, but got {type(ranks)}")
    ranks = sorted(ranks)
    backend = "hccl" if backend is None else backend
    if not isinstance(backend, str) or backend not in ("hccl", "mccl"):
        raise TypeError(f"the input backend must be hccl or mccl, but got {backend}")
    name = f"{backend}_{len(ranks)}_" + hashlib.sha1("_".join(map(str, ranks)).encode()).hexdigest()
    try:
        _mgmt.create_group(name, ranks)
    except RuntimeError as err:
        _log.warning(str(err))
        return ""
    return name


def get_backend(group=None):
    """The backend name of `group` as MindSpore reports it: 'hccl' for None or a name holding
    'hccl', 'mccl' for a name holding 'mccl', else the world's backend."""
    if group is None:
        return "hccl"
    if not isinstance(group, str):
        raise TypeError(f"For 'get_backend', the argument 'group' must be type of string or None, "
                        f"but got 'group' type : {type(group)}.")
    if "hccl" in group:
        return "hccl"
    if "mccl" in group:
        return "mccl"
    return GlobalComm.BACKEND


def get_global_rank(group, group_rank):
    """The world rank of rank `group_rank` of `group`."""
    if not isinstance(group_rank, int):
        raise TypeError(f"The group_rank argument must be integer, but got {type(group_rank)}.")
    if group is None or group == GlobalComm.WORLD_COMM_GROUP:
        return group_rank
    if not isinstance(group, str):
        raise TypeError(f"For 'get_global_rank', the argument 'group' must be type of string or "
                        f"None, but got 'group' type : {type(group)}.")
    return _mgmt.get_world_rank_from_group_rank(group, group_rank)


def get_group_rank(group, global_rank):
    """The rank in `group` of world rank `global_rank`."""
    if not isinstance(global_rank, int):
        raise TypeError(f"The global_rank argument must be integer, but got {type(global_rank)}.")
    if group is None:
        group = GlobalComm.WORLD_COMM_GROUP
    if not isinstance(group, str):
        raise TypeError(f"For 'get_group_rank_from_world_rank', the argument 'group' must be type "
                        f"of string, but got 'group' type : {type(group)}.")
    return _mgmt.get_group_rank_from_world_rank(global_rank, group)


def get_process_group_ranks(group=None):
    """The world ranks of `group`'s members, in group rank order."""
    if group is None:
        group = GlobalComm.WORLD_COMM_GROUP
    if not isinstance(group, str):
        raise TypeError(f"For 'get_process_group_ranks', the argument 'group' must be type of "
                        f"string or None, but got 'group' type : {type(group)}.")
    return _mgmt.get_process_group_ranks(group)


# ---- collectives --------------------------------------------------------------------------------

def all_reduce(tensor, op="sum", group=None, async_op=False):
    """Reduce `tensor` over the group ('sum', 'prod', 'min', 'max' or 'avg'). In place: the
    tensor holds the result (after `wait()` with `async_op`); returns the handle. Out of place:
    `(result, handle)`, differentiable for sum/prod/min/max."""
    _tensor("all_reduce", tensor)
    _op("all_reduce", op)
    group = _group(group, async_op)
    grp = _mgmt.group_of(group, "all_reduce")
    x = tensor._data
    _backend.check_same_shapes(grp, "all_reduce", x, _what(tensor))
    if not _INPLACE["all_reduce"]:
        if op == "avg":
            return wrap(_reduced(grp, x, op)), _done(async_op)
        return comm_ops.AllReduce(op, group)(tensor), _done(async_op)
    if async_op and op != "avg":
        request, buf = _backend.iallreduce(grp, x, op)
        return CommHandle(request, f"all_reduce on group '{grp.name}'",
                          finish=lambda: _write(tensor, buf))
    _write(tensor, _reduced(grp, x, op))
    return _done(async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """The inputs of the group's ranks concatenated on axis 0 into `output_tensor` (in place), or
    returned with the handle (out of place, differentiable)."""
    _tensor("all_gather_into_tensor", input_tensor)
    inplace = _INPLACE["all_gather_into_tensor"]
    if inplace:
        _tensor("all_gather_into_tensor", output_tensor, "output")
    group = _group(group, async_op)
    if not inplace:
        return comm_ops.AllGather(group)(input_tensor), _done(async_op)
    grp = _mgmt.group_of(group, "all_gather_into_tensor")
    out = _backend.allgather(grp, input_tensor._data, "all_gather_into_tensor")
    _check_out("all_gather_into_tensor", output_tensor, out)
    _write(output_tensor, out)
    return _done(async_op)


def _check_out(owner, output, values):
    if output.shape != values.shape:
        raise TypeError(f"For {owner}, the output shape should be {values.shape}, but got "
                        f"{output.shape}.")
    if output._data.dtype != values.dtype:
        raise TypeError(f"For {owner}, the output dtype should be {values.dtype}, but got "
                        f"{output.dtype}.")


def _first_dim_counts(owner, grp, x, sizes, name):
    """Elements per rank for blocks of rows `sizes` (None: the same number from every rank)."""
    row = int(np.prod(x.shape[1:], dtype=np.int64))
    if not sizes:
        return None, row
    if not isinstance(sizes, (list, tuple)) or len(sizes) != grp.size or \
            not all(isinstance(s, int) and s >= 0 for s in sizes):
        raise ValueError(f"For {owner}, '{name}' must be a list of {grp.size} non-negative ints "
                         f"(one per rank), but got {sizes}")
    return [s * row for s in sizes], row


def all_gather_into_tensor_uneven(output, input, output_split_sizes=None, group=None,
                                  async_op=False):
    """The inputs of the group's ranks, rank k contributing `output_split_sizes[k]` rows (default:
    equal), concatenated on axis 0 into `output`."""
    _in_place("all_gather_into_tensor_uneven")
    owner = "all_gather_into_tensor_uneven"
    _tensor(owner, input)
    _tensor(owner, output, "output")
    group = _group(group, async_op)
    grp = _mgmt.group_of(group, owner)
    x = input._data if input.ndim else input._data.reshape(1)
    counts, row = _first_dim_counts(owner, grp, x, output_split_sizes, "output_split_sizes")
    if counts is None:
        counts = [x.size] * grp.size
    if x.size != counts[grp.rank]:
        raise ValueError(f"For {owner}, this rank's input has {x.shape[0]} rows, but "
                         f"'output_split_sizes' gives it {counts[grp.rank] // max(row, 1)}")
    out = _backend.allgatherv(grp, x, counts, owner)
    _write_output(owner, output, out)
    return _done(async_op)


def reduce_scatter_tensor(output, input, op="sum", group=None, async_op=False):
    """Reduce `input` over the group and give rank k the k-th block of rows, into `output` (in
    place) or returned with the handle (out of place, differentiable for 'sum')."""
    owner = "reduce_scatter_tensor"
    _tensor(owner, input)
    inplace = _INPLACE[owner]
    if inplace:
        _tensor(owner, output, "output")
    _op(owner, op)
    group = _group(group, async_op)
    grp = _mgmt.group_of(group, owner)
    if input.ndim == 0 or input.shape[0] % grp.size:
        raise ValueError(f"For {owner}, the first dimension of the input must be divisible by the "
                         f"group size {grp.size}, but got shape {input.shape}")
    if not inplace and op != "avg":
        return comm_ops.ReduceScatter(op, group)(input), _done(async_op)
    _backend.check_same_shapes(grp, owner, input._data, _what(input))
    out = _backend.reduce_scatter(grp, input._data, "sum" if op == "avg" else op, owner)
    if op == "avg":
        out = (out / grp.size).astype(out.dtype) if out.dtype.kind in "fc" else out // grp.size
    if not inplace:
        return wrap(out), _done(async_op)
    _check_out(owner, output, out)
    _write(output, out)
    return _done(async_op)


def reduce_scatter_tensor_uneven(output, input, input_split_sizes=None, op="sum", group=None,
                                 async_op=False):
    """Reduce `input` over the group and give rank k its block of `input_split_sizes[k]` rows
    (default: equal blocks), into `output`."""
    owner = "reduce_scatter_tensor_uneven"
    _in_place(owner)
    _op(owner, op, ("sum", "min", "max", "avg"))
    group = _group(group, async_op)
    _tensor(owner, input)
    _tensor(owner, output, "output")
    grp = _mgmt.group_of(group, owner)
    x = input._data
    counts, _ = _first_dim_counts(owner, grp, x, input_split_sizes, "input_split_sizes")
    if counts is None:
        if x.ndim == 0 or x.shape[0] % grp.size:
            raise ValueError(f"For {owner}, the first dimension of the input must be divisible "
                             f"by the group size {grp.size}, but got shape {input.shape}")
        counts = [x.size // grp.size] * grp.size
    if sum(counts) != x.size:
        raise ValueError(f"For {owner}, 'input_split_sizes' {input_split_sizes} must add up to "
                         f"the input's first dimension {x.shape[0]}")
    _backend.check_same_shapes(grp, owner, x)
    out = _backend.reduce_scatter_v(grp, x, counts, "sum" if op == "avg" else op, owner)
    if op == "avg":
        out = (out / grp.size).astype(x.dtype) if x.dtype.kind in "fc" else out // grp.size
    _write_output(owner, output, out)
    return _done(async_op)


def reduce(tensor, dst, op="sum", group=None, async_op=False):
    """Reduce `tensor` over the group into world rank `dst`'s `tensor` (the others keep theirs)."""
    _in_place("reduce")
    _tensor("reduce", tensor)
    _int("reduce", "dst", dst)
    _op("reduce", op)
    group = _group(group, async_op)
    grp = _mgmt.group_of(group, "reduce")
    root = _world_rank_to_group(dst, group)
    x = tensor._data
    _backend.check_same_shapes(grp, "reduce", x, _what(tensor))
    out = _backend.reduce_to(grp, x, "sum" if op == "avg" else op, root)
    if out is not None:
        if op == "avg":
            out = (out / grp.size).astype(x.dtype) if x.dtype.kind in "fc" else out // grp.size
        _write(tensor, out)
    return _done(async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """World rank `src`'s `tensor`, written into `tensor` on every rank of the group."""
    _in_place("broadcast")
    _tensor("broadcast", tensor)
    _int("broadcast", "src", src)
    group = _group(group, async_op)
    grp = _mgmt.group_of(group, "broadcast")
    root = _world_rank_to_group(src, group)
    _backend.check_same_shapes(grp, "broadcast", tensor._data, _what(tensor))
    _write(tensor, _backend.broadcast(grp, tensor._data, root, "broadcast"))
    return _done(async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of the group arrives."""
    group = _group(group, async_op)
    _backend.barrier(_mgmt.group_of(group, "barrier"), "barrier")
    return _done(async_op)


def gather_into_tensor(output_tensor, input_tensor, dst=0, group=None, async_op=False):
    """The inputs of the group's ranks concatenated on axis 0, into world rank `dst`'s
    `output_tensor` (the other ranks' outputs are left as they are)."""
    owner = "gather_into_tensor"
    _in_place(owner)
    _tensor(owner, input_tensor)
    _tensor(owner, output_tensor, "output")
    _int(owner, "dst", dst)
    group = _group(group, async_op)
    grp = _mgmt.group_of(group, owner)
    root = _world_rank_to_group(dst, group)
    x = input_tensor._data if input_tensor.ndim else input_tensor._data.reshape(1)
    _backend.check_same_shapes(grp, owner, x)
    out = _backend.gather_to(grp, x, root, owner)
    if out is not None:
        _check_out(owner, output_tensor, out.reshape(output_tensor.shape)
                   if out.size == output_tensor._data.size else out)
        _write(output_tensor, out)
    return _done(async_op)


def scatter_tensor(output_tensor, input_tensor, src=0, group=None, async_op=False):
    """World rank `src`'s `input_tensor` split evenly on axis 0: block k written into group rank
    k's `output_tensor` (every rank passes an input of the source's shape and dtype)."""
    owner = "scatter_tensor"
    _in_place(owner)
    _tensor(owner, input_tensor)
    _tensor(owner, output_tensor, "output")
    _int(owner, "src", src)
    group = _group(group, async_op)
    grp = _mgmt.group_of(group, owner)
    root = _world_rank_to_group(src, group)
    x = input_tensor._data
    if x.ndim == 0 or x.shape[0] % grp.size:
        raise ValueError(f"For {owner}, the first dimension of the input must be divisible by the "
                         f"group size {grp.size}, but got shape {input_tensor.shape}")
    _backend.check_same_shapes(grp, owner, x)
    out = _backend.scatter_from(grp, x, root, owner)
    _check_out(owner, output_tensor, out)
    _write(output_tensor, out)
    return _done(async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's `tensor`, written into `tensor_list[k]` for group rank k."""
    _in_place("all_gather")
    _tensors(tensor_list)
    _tensor("all_gather", tensor)
    group = _group(group, async_op)
    grp = _mgmt.group_of(group, "all_gather")
    _list_len(tensor_list, grp.size)
    _check_out("all_gather", tensor_list[grp.rank], tensor._data)
    counts = [t._data.size for t in tensor_list]
    flat = _backend.allgatherv(grp, tensor._data, counts, "all_gather")
    offset = 0
    for t, n in zip(tensor_list, counts):
        _write(t, flat[offset:offset + n])
        offset += n
    return _done(async_op)


def reduce_scatter(output, input_list, op="sum", group=None, async_op=False):
    """Reduce `input_list[k]` over the group into group rank k's `output`."""
    owner = "reduce_scatter"
    _in_place(owner)
    _tensors(input_list)
    _tensor(owner, output, "output")
    _op(owner, op)
    group = _group(group, async_op)
    grp = _mgmt.group_of(group, owner)
    _list_len(input_list, grp.size)
    _check_out(owner, output, input_list[grp.rank]._data)
    flat = np.concatenate([t._data.reshape(-1) for t in input_list])
    _backend.check_same_shapes(grp, owner, flat)
    out = _backend.reduce_scatter_v(grp, flat, [t._data.size for t in input_list],
                                    "sum" if op == "avg" else op, owner)
    if op == "avg":
        out = (out / grp.size).astype(flat.dtype) if flat.dtype.kind in "fc" else out // grp.size
    _write(output, out)
    return _done(async_op)


def scatter(tensor, scatter_list, src=0, group=None, async_op=False):
    """World rank `src`'s `scatter_list[k]` written into group rank k's `tensor` (the other ranks'
    lists are ignored but give the shapes)."""
    _in_place("scatter")
    _tensors(scatter_list, same_shape=True)
    _tensor("scatter_tensor", tensor, "output")
    _int("scatter_tensor", "src", src)
    group = _group(group, async_op)
    grp = _mgmt.group_of(group, "scatter")
    root = _world_rank_to_group(src, group)
    if grp.rank == root:
        _list_len(scatter_list, grp.size)
        _check_out("scatter", tensor, scatter_list[0]._data)
    stacked = np.stack([t._data for t in scatter_list]) if grp.rank == root else \
        np.zeros((grp.size,) + tensor.shape, tensor._data.dtype)
    _write(tensor, _backend.scatter_from(grp, stacked, root, "scatter")[0])
    return _done(async_op)


def gather(tensor, gather_list, dst=0, group=None, async_op=False):
    """Every rank's `tensor` written into world rank `dst`'s `gather_list[k]` for group rank k."""
    _in_place("gather")
    _tensor("gather", tensor)
    _tensors(gather_list, same_shape=True)
    _int("gather", "dst", dst)
    group = _group(group, async_op)
    grp = _mgmt.group_of(group, "gather")
    root = _world_rank_to_group(dst, group)
    if grp.rank == root:
        _list_len(gather_list, grp.size)
        _check_out("gather", gather_list[0], tensor._data)
    _backend.check_same_shapes(grp, "gather", tensor._data, _what(tensor))
    out = _backend.gather_to(grp, tensor._data[None], root, "gather")
    if out is not None:
        for t, piece in zip(gather_list, out):
            _write(t, piece)
    return _done(async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Rank k sends `input_tensor_list[j]` to rank j and receives rank j's into
    `output_tensor_list[j]` (in place). Out of place the output list holds tensors or shapes and
    `(tuple of received tensors, handle)` is returned."""
    group = _group(group, async_op)
    _tensors(input_tensor_list)
    grp = _mgmt.group_of(group, "all_to_all")
    _list_len(input_tensor_list, grp.size)
    inplace = _INPLACE["all_to_all"]
    if inplace:
        _tensors(output_tensor_list)
        shapes = [t.shape for t in output_tensor_list]
    else:
        shapes = [tuple(t.shape) if isinstance(t, Tensor) else tuple(t)
                  for t in output_tensor_list]
    _list_len(output_tensor_list, grp.size)
    flat = np.concatenate([t._data.reshape(-1) for t in input_tensor_list])
    recv = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    out = _backend.alltoallv(grp, flat, [t._data.size for t in input_tensor_list], recv,
                             "all_to_all")
    pieces = np.split(out, np.cumsum(recv)[:-1])
    if not inplace:
        return tuple(wrap(p.reshape(s)) for p, s in zip(pieces, shapes)), _done(async_op)
    for t, piece in zip(output_tensor_list, pieces):
        _write(t, piece)
    return _done(async_op)


def _split_counts(owner, grp, t, sizes, name):
    counts, row = _first_dim_counts(owner, grp, t._data, sizes, name)
    if counts is None:
        if t.ndim == 0 or t.shape[0] % grp.size:
            raise ValueError(f"{name.split('_')[0]} shape at dim 0 must be divided by world_size, "
                             f"but got {t.shape[0] if t.ndim else 0} and {grp.size}.")
        counts = [t._data.size // grp.size] * grp.size
    return counts, row


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """Rank k sends its `input_split_sizes[j]` rows of `input` (default equal blocks) to rank j
    and receives `output_split_sizes[j]` rows from rank j, concatenated on axis 0 into `output`
    (in place), or returned with the handle (out of place; `output` then only gives the shape)."""
    _tensors([input])
    group = _group(group, async_op)
    grp = _mgmt.group_of(group, "all_to_all_single")
    inplace = _INPLACE["all_to_all_single"]
    if inplace:
        _tensors([output])
    out_like = output if isinstance(output, Tensor) else input
    send, _ = _split_counts("all_to_all_single", grp, input, input_split_sizes,
                            "input_split_sizes")
    recv, _ = _split_counts("all_to_all_single", grp, out_like, output_split_sizes,
                            "output_split_sizes")
    if sum(send) != input._data.size:
        raise ValueError(f"For all_to_all_single, 'input_split_sizes' {input_split_sizes} must "
                         f"add up to the input's first dimension {input.shape[0]}")
    out = _backend.alltoallv(grp, input._data, send, recv, "all_to_all_single")
    if not inplace:
        return wrap(out.reshape((-1,) + tuple(out_like.shape[1:]))), _done(async_op)
    _write_output("all_to_all_single", output, out)
    return _done(async_op)


def all_to_all_v_c(output, input, send_count_matrix, group=None, async_op=False):
    """All-to-all with a known count matrix: `send_count_matrix[i * N + j]` rows go from rank i to
    rank j (N ranks); rank k receives, in rank order, into `output`."""
    _in_place("all_to_all_v_c")
    _tensors([input])
    _tensors([output])
    group = _group(group, async_op)
    if not isinstance(send_count_matrix, list):
        raise TypeError(f"send_count_matrix must be list, but got {type(send_count_matrix)}")
    if not all(isinstance(x, int) for x in send_count_matrix):
        raise TypeError("send_count_matrix elements must be of type int")
    grp = _mgmt.group_of(group, "all_to_all_v_c")
    n = grp.size
    if n * n != len(send_count_matrix):
        raise TypeError(f"send_count_matrix must be square matrix, but got "
                        f"{len(send_count_matrix)}.")
    row_in = int(np.prod(input.shape[1:], dtype=np.int64))
    row_out = int(np.prod(output.shape[1:], dtype=np.int64))
    if row_in != row_out:
        raise ValueError(f"The input and output dimensions except 0 must be of equal size, but "
                         f"got {row_in} and {row_out}.")
    matrix = np.asarray(send_count_matrix, np.int64).reshape(n, n) * row_in
    send, recv = matrix[grp.rank], matrix[:, grp.rank]
    if send.sum() > input._data.size or recv.sum() != output._data.size:
        raise ValueError(f"For all_to_all_v_c, rank {grp.rank} sends {send.sum()} and receives "
                         f"{recv.sum()} elements, but the input has {input._data.size} and the "
                         f"output {output._data.size}")
    _write(output, _backend.alltoallv(grp, input._data.reshape(-1)[:send.sum()], send, recv,
                                      "all_to_all_v_c"))
    return _done(async_op)


# ---- point to point -----------------------------------------------------------------------------

def _peer(owner, t, rank, name, group):
    _tensor(owner, t)
    _int(owner, name, rank)
    group = _group(group)
    if name == "dst" and rank == _mgmt.get_rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as "
                         "the rank of the current process.")
    return _mgmt.group_of(group, owner), _world_rank_to_group(rank, group)


def _start_send(owner, tensor, dst, group, tag):
    grp, peer = _peer(owner, tensor, dst, "dst", group)
    started = _backend.send(grp, tensor._data, peer, tag)
    if started is None:
        return CommHandle()
    request, buf = started
    return CommHandle(request, f"send to rank {dst} (tag {tag}) on group '{grp.name}'",
                      finish=lambda: buf)


def _start_recv(owner, tensor, src, group, tag, into):
    grp, peer = _peer(owner, tensor, src, "src", group)
    request, buf = _backend.recv(grp, tensor.shape, tensor._data.dtype, peer, tag)
    finish = (lambda: _write(tensor, buf)) if into else None
    return buf, CommHandle(request, f"recv from rank {src} (tag {tag}) on group '{grp.name}'",
                           finish=finish)


def send(tensor, dst=0, group=None, tag=0):
    """Send `tensor` to world rank `dst`; returns once it is handed over."""
    _start_send("send", tensor, dst, group, tag).wait()


def isend(tensor, dst=0, group=None, tag=0):
    """Start sending `tensor` to world rank `dst`; returns the handle."""
    return _start_send("isend", tensor, dst, group, tag)


def recv(tensor, src=0, group=None, tag=0):
    """Receive from world rank `src` into `tensor` (in place; returns 0), or a new tensor of its
    shape and dtype (out of place)."""
    buf, handle = _start_recv("recv", tensor, src, group, tag, _INPLACE["recv"])
    handle.wait()
    return 0 if _INPLACE["recv"] else wrap(buf)


def irecv(tensor, src=0, group=None, tag=0):
    """Start receiving from world rank `src`: into `tensor` once `wait()` returns (in place;
    returns the handle), or `(output, handle)` out of place."""
    buf, handle = _start_recv("irecv", tensor, src, group, tag, _INPLACE["irecv"])
    return handle if _INPLACE["irecv"] else (wrap(buf), handle)


class P2POp:
    """One point-to-point operation for `batch_isend_irecv`: `op` is 'isend'/'irecv' (or those
    functions), `peer` a world rank; `tag` must be 0, as in MindSpore."""

    def __init__(self, op, tensor, peer, group=None, tag=0):
        if isinstance(op, str):
            if op not in ("isend", "irecv"):
                raise TypeError(f"Expected op to be of type isend or irecv, but got {op}")
        elif op not in (isend, irecv):
            raise TypeError(f"Expected op to be of type isend or irecv, but got {op}")
        if not isinstance(tensor, Tensor):
            raise TypeError(f"Expected tensor to be Tensor, but got {type(tensor)}.")
        if not isinstance(peer, int):
            raise TypeError("For P2POp, the peer must be int")
        if tag != 0:
            raise NotImplementedError("tag is not support yet.")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag


class _Batch:
    """The requests of one `batch_isend_irecv`, completed together."""

    def __init__(self, handles):
        self.handles = handles

    def wait(self):
        for h in self.handles:
            h.wait()


def batch_isend_irecv(p2p_op_list):
    """Start every send and receive of `p2p_op_list` (one group); returns `[handle]`, whose
    `wait()` completes them all (received values land in their tensors)."""
    _in_place("batch_isend_irecv")
    if not p2p_op_list:
        raise TypeError("p2p_op_list can not be empty list.")
    for p in p2p_op_list:
        if not isinstance(p, P2POp):
            raise TypeError("The elements in p2p_op_list must be type of P2POp.")
    if any(p.group != p2p_op_list[0].group for p in p2p_op_list):
        raise TypeError("The group name in p2p_op_list must be consistent.")
    handles = []
    for p in p2p_op_list:  # receives first: MPI matches them whatever the peers' order
        if (p.op if isinstance(p.op, str) else p.op.__name__) == "irecv":
            handles.append(_start_recv("batch_isend_irecv", p.tensor, p.peer, p.group, 0, True)[1])
    for p in p2p_op_list:
        if (p.op if isinstance(p.op, str) else p.op.__name__) == "isend":
            handles.append(_start_send("batch_isend_irecv", p.tensor, p.peer, p.group, 0))
    return [_Batch(handles)]


# ---- Python objects -----------------------------------------------------------------------------

def _object_group(owner, group):
    if group is None:
        group = GlobalComm.WORLD_COMM_GROUP
    if not isinstance(group, str):
        raise TypeError(f"For '{owner}', the argument 'group' must be type of string, but got "
                        f"'group' type : {type(group)}.")
    return _mgmt.group_of(group, owner)


def all_gather_object(object_list, obj, group=None):
    """Every rank's picklable `obj`, written into `object_list[k]` for group rank k."""
    _in_place("all_gather_object")
    grp = _object_group("all_gather_object", group)
    if not isinstance(object_list, list) or len(object_list) != grp.size:
        raise TypeError(f"The len of argument object_list must be equal to group rank size, but "
                        f"got {len(object_list) if isinstance(object_list, list) else object_list}.")
    object_list[:] = _backend.allgather_object(grp, obj, "all_gather_object")


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """Every rank's picklable `obj`, written into world rank `dst`'s `object_gather_list`."""
    _in_place("gather_object")
    grp = _object_group("gather_object", group)
    _int("gather_object", "dst", dst)
    root = _world_rank_to_group(dst, group or GlobalComm.WORLD_COMM_GROUP)
    if grp.rank == root and (not isinstance(object_gather_list, list) or
                             len(object_gather_list) != grp.size):
        raise TypeError(f"The len of object_gather_list must be equal to group rank size, but "
                        f"got {object_gather_list!r}.")
    everyone = _backend.allgather_object(grp, obj, "gather_object")
    if grp.rank == root:
        object_gather_list[:] = everyone


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """World rank `src`'s `object_list` items, written into every rank's `object_list`."""
    _in_place("broadcast_object_list")
    grp = _object_group("broadcast_object_list", group)
    _int("broadcast_object_list", "src", src)
    if not isinstance(object_list, list) or not object_list:
        raise TypeError("The object_list can not be empty.")
    root = _world_rank_to_group(src, group or GlobalComm.WORLD_COMM_GROUP)
    holder = [None]
    _broadcast_object(grp, root, holder, list(object_list) if grp.rank == root else None)
    object_list[:] = holder[0]


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0, group=None):
    """World rank `src`'s `scatter_object_input_list[k]` written into group rank k's
    `scatter_object_output_list[0]`."""
    _in_place("scatter_object_list")
    grp = _object_group("scatter_object_list", group)
    if not isinstance(scatter_object_output_list, list) or not scatter_object_output_list:
        raise TypeError("The scatter_object_output_list can not be empty.")
    _int("scatter_object_list", "src", src)
    root = _world_rank_to_group(src, group or GlobalComm.WORLD_COMM_GROUP)
    if grp.rank == root and (not isinstance(scatter_object_input_list, list) or
                             len(scatter_object_input_list) != grp.size):
        raise TypeError(f"The len of scatter_object_input_list must be equal to group rank size, "
                        f"but got {scatter_object_input_list!r}.")
    items = scatter_object_input_list if grp.rank == root else None
    everyone = [None]
    _broadcast_object(grp, root, everyone, items)
    scatter_object_output_list[0] = everyone[0][grp.rank]


def _broadcast_object(grp, root, holder, value):
    """holder[0] = root's `value` on every rank of `grp`."""
    data = pickle.dumps(value)
    if grp.comm is not None:
        size = _backend.broadcast(grp, np.array([len(data)], np.int64), root, "object broadcast")
        buf = np.zeros(int(size[0]), np.uint8)
        if grp.rank == root:
            buf[...] = np.frombuffer(data, np.uint8)
        data = _backend.broadcast(grp, buf, root, "object broadcast").tobytes()
    holder[0] = pickle.loads(data)


def send_object_list(object_list, dst, group=None, device=None):
    """Send the picklable items of `object_list` to world rank `dst`."""
    _in_place("send_object_list")
    _int("send_object_list", "dst", dst)
    group = _group(group)
    if not isinstance(object_list, list):
        raise TypeError("For send_object_list, the object_list must be a list")
    data = np.frombuffer(pickle.dumps(list(object_list)), np.uint8)
    send(Tensor(np.array([data.size], np.int64)), dst, group)
    send(Tensor(data.copy()), dst, group)


def recv_object_list(object_list, src=0, group=None, device=None):
    """Receive from world rank `src` the items it sent with `send_object_list`, written into
    `object_list` (of the same length); returns 0."""
    _in_place("recv_object_list")
    _int("recv_object_list", "src", src)
    group = _group(group)
    if not isinstance(object_list, list):
        raise TypeError("For recv_object_list, the object_list must be a list")
    size = Tensor(np.zeros(1, np.int64))
    recv(size, src, group)
    data = Tensor(np.zeros(int(size._data[0]), np.uint8))
    recv(data, src, group)
    items = pickle.loads(data._data.tobytes())
    object_list[:len(items)] = items
    return 0


# ---- the fused communication and matmul kernels of `ops` ----------------------------------------

def _fused_checks(owner, input, x2, group, world_size, bias, comm_turn, trans_input):
    for name, t in (("input", input), ("x2", x2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{owner}', the '{name}' must be a Tensor, but got "
                            f"{type(t).__name__}")
    if not isinstance(group, str):
        raise TypeError(f"For '{owner}', the 'group' must be a str, but got {type(group).__name__}")
    if not isinstance(world_size, int) or isinstance(world_size, bool):
        raise TypeError(f"For '{owner}', the 'world_size' must be an int, but got "
                        f"{type(world_size).__name__}")
    if input.ndim != 2 or x2.ndim != 2:
        raise RuntimeError(f"For '{owner}', the shapes of 'input' and 'x2' must be 2-dimensional, "
                           f"but got {input.shape} and {x2.shape}")
    if input.dtype != x2.dtype or input._data.dtype.kind != "f":
        raise RuntimeError(f"For '{owner}', 'input' and 'x2' must have the same floating-point "
                           f"dtype, but got {input.dtype} and {x2.dtype}")
    if bias is not None:
        raise RuntimeError(f"For '{owner}', only bias=None is supported")
    if comm_turn != 0 or trans_input:
        raise RuntimeError(f"For '{owner}', only comm_turn=0 and trans_input=False are supported, "
                           f"but got {comm_turn} and {trans_input}")
    grp = _mgmt.group_of(group, owner)
    if world_size != grp.size:
        raise RuntimeError(f"For '{owner}', the 'world_size' ({world_size}) must be the size of "
                           f"group '{group}' ({grp.size})")
    return grp


def _k_check(owner, input, x2, trans_x2):
    k2 = x2.shape[1] if trans_x2 else x2.shape[0]
    if input.shape[1] != k2:
        raise RuntimeError(f"For '{owner}', the k axes of 'input' {input.shape} and 'x2' "
                           f"{x2.shape} (trans_x2={trans_x2}) must be equal")


def all_gather_matmul(input, x2, group, world_size, *, bias=None, gather_index=0,
                      gather_output=True, comm_turn=0, trans_input=False, trans_x2=False):
    """`(allgather(input) @ x2, allgather(input))`: the rows of every rank's `input` gathered in
    rank order, then multiplied by `x2` (transposed with `trans_x2`); the second result is a
    shape-(0,) tensor when `gather_output` is False. MindSpore fuses the two in one Ascend kernel
    (float16/bfloat16, k in [256, 65535)); here they are the two differentiable primitives, for
    any floating-point dtype and size. `world_size` must be the group's size."""
    owner = "all_gather_matmul"
    _fused_checks(owner, input, x2, group, world_size, bias, comm_turn, trans_input)
    if gather_index != 0:
        raise RuntimeError(f"For '{owner}', only gather_index=0 is supported, but got "
                           f"{gather_index}")
    _k_check(owner, input, x2, trans_x2)
    gathered = comm_ops.AllGather(group)(input)
    out = MatMul(transpose_b=bool(trans_x2))(gathered, x2)
    return out, gathered if gather_output else wrap(np.zeros((0,), input._data.dtype))


def matmul_reduce_scatter(input, x2, group, world_size, *, reduce_op="sum", bias=None,
                          comm_turn=0, trans_input=False, trans_x2=False):
    """`reducescatter(input @ x2)`: every rank's product summed, rank k keeping the k-th block of
    rows (the rows of `input` must divide by `world_size`). MindSpore fuses the two in one
    Ascend kernel; here they are the two differentiable primitives, for any floating-point dtype
    and size."""
    owner = "matmul_reduce_scatter"
    grp = _fused_checks(owner, input, x2, group, world_size, bias, comm_turn, trans_input)
    if reduce_op != "sum":
        raise RuntimeError(f"For '{owner}', only reduce_op='sum' is supported, but got "
                           f"{reduce_op!r}")
    _k_check(owner, input, x2, trans_x2)
    if input.shape[0] % grp.size:
        raise RuntimeError(f"For '{owner}', the rows of 'input' ({input.shape[0]}) must be a "
                           f"multiple of world_size {grp.size}")
    return comm_ops.ReduceScatter("sum", group)(MatMul(transpose_b=bool(trans_x2))(input, x2))
