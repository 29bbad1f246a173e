"""`nn.DistributedGradReducer`: gradients all-reduced over the data-parallel ranks, in buckets."""
import functools
import threading

import numpy as np

from ..._autodiff.engine import ready_hooks
from ..._autodiff.tape import recording, wrap
from ..._validator import check_bool
from ...common.tensor import Tensor
from ...communication import _backend
from ...communication.management import GlobalComm, get_group_size, group_of
from ...context import get_auto_parallel_context
from ...ops.operations import comm_ops
from ...ops.operations import math_ops as M
from ..cell import Cell

__all__ = ["DistributedGradReducer"]

# Collectives must run in the same order on every rank: two threads reducing at once would
# interleave them differently on each, so the second is refused.
_REDUCING = threading.Lock()
FIRST_BUCKET_BYTES = 1 << 20
BUCKET_BYTES = 4 << 20


def bucket_layout(shapes, dtypes, splits=(), first_cap=FIRST_BUCKET_BYTES, cap=BUCKET_BYTES):
    """Buckets of parameter indices: reverse parameter order (the order a backward walk makes
    gradients final), one dtype per bucket, a new bucket at each index in `splits` and when a
    bucket would pass its byte cap (`first_cap` for the first, `cap` after). Depends only on
    rank-independent facts, so every rank builds the same layout."""
    buckets, current, size, kind = [], [], 0, None
    splits = set(splits)
    for i in reversed(range(len(shapes))):
        nbytes = int(np.prod(shapes[i], dtype=np.int64)) * np.dtype(dtypes[i]).itemsize
        limit = first_cap if not buckets else cap
        boundary = (i + 1) in splits
        if current and (dtypes[i] != kind or size + nbytes > limit or boundary):
            buckets.append(current)
            current, size = [], 0
        current.append(i)
        size += nbytes
        kind = dtypes[i]
    if current:
        buckets.append(current)
    return buckets


class DistributedGradReducer(Cell):
    """All-reduces (sums) gradients over the ranks of `group` for data-parallel training, then
    multiplies them by 1/`degree` when `mean`. Gradients travel in buckets (one MPI call each,
    in reverse parameter order, split by dtype, size and `all_reduce_fusion_config`); float16 is
    summed in float32; every other dtype in its own (float64 stays float64).

    Args:
        parameters (list): the parameters whose gradients are reduced, in the order of the
            gradients given to `construct`.
        mean (bool): divide by `degree`. Default: None (the context's `gradients_mean`).
        degree (int): the divisor of the mean. Default: None (the group size).
        fusion_type (int): MindSpore's fusion id (one id here: the buckets follow sizes).
        group (str): the communication group. Default: the world.

    Raises:
        TypeError: `mean` not a bool.
        ValueError: `degree` not a positive int; parameter shapes differing across ranks (at
            the first call, naming the parameter).
        RuntimeError: called before `communication.init()` under a launcher.
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1,
                 group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(auto_prefix=False)
        owner = type(self).__name__
        self.mean = get_auto_parallel_context("gradients_mean") if mean is None else mean
        check_bool(self.mean, "mean", owner)
        if degree is None:
            degree = get_group_size(group)
        if not isinstance(degree, int) or isinstance(degree, bool) or degree <= 0:
            raise ValueError(f"For '{owner}', the 'degree' must be a positive int, but got "
                             f"{degree!r}")
        self.degree = degree
        self.fusion_type = fusion_type
        self.group = group
        params = list(parameters)
        self._param_ids = [id(p) for p in params]  # the keys of a tape's weight slots
        self._names = [getattr(p, "name", f"gradient {k}") for k, p in enumerate(params)]
        self._shapes = [tuple(p.shape) for p in params]
        self._dtypes = [np.dtype(p._data.dtype) for p in params]
        splits = get_auto_parallel_context("all_reduce_fusion_config")
        self.buckets = bucket_layout(self._shapes, self._dtypes, splits)
        self.overlap = True
        self._step = None  # the reduction started during the backward walk, until `construct`
        self.trace = None  # a list to record ("start", bucket) / ("wait", bucket) events in
        self._checked = False
        self._slot = ("DistributedGradReducer", id(self))
        self.bytes_per_step = sum(int(np.prod(s, dtype=np.int64)) * d.itemsize
                                  for s, d in zip(self._shapes, self._dtypes))

    def _world(self):
        found = _backend.launcher_world()
        if not _backend.STATE.inited and (found is None or found[1] == 1):
            return None
        return group_of(self.group, type(self).__name__)

    def _check_shapes(self, group):
        """Every rank holds the same parameters: ValueError naming the first that differs."""
        rows = np.full((len(self._shapes), 10), -1, np.int64)
        for k, (shape, dtype) in enumerate(zip(self._shapes, self._dtypes)):
            rows[k, 0], rows[k, 1] = dtype.num, len(shape)
            rows[k, 2:2 + min(len(shape), 8)] = shape[:8]
        count = np.array([len(self._shapes)], np.int64)
        counts = np.empty(group.size, np.int64)
        owner = type(self).__name__
        _backend.wait(group.comm.Iallgather(count, counts), f"{owner} parameter check")
        if (counts != count[0]).any():
            raise ValueError(f"For '{owner}', the ranks hold different numbers of parameters: "
                             f"{dict(zip(group.world_ranks, counts.tolist()))}")
        everyone = np.empty((group.size,) + rows.shape, np.int64)
        _backend.wait(group.comm.Iallgather(rows, everyone), f"{owner} parameter check")
        for k in range(len(self._shapes)):
            if not (everyone[:, k] == rows[k]).all():
                seen = {f"rank {group.world_ranks[r]}": tuple(int(v) for v in
                                                             everyone[r, k, 2:2 + everyone[r, k, 1]])
                        for r in range(group.size)}
                raise ValueError(f"For '{owner}', parameter '{self._names[k]}' has different "
                                 f"shapes or dtypes across ranks: {seen}")

    def construct(self, grads):
        grads = grads if isinstance(grads, tuple) else tuple(grads)
        owner = type(self).__name__
        if len(grads) != len(self._shapes):
            raise ValueError(f"For '{owner}', expected {len(self._shapes)} gradients (one per "
                             f"parameter), but got {len(grads)}")
        if self._step is not None:
            return tuple(wrap(r) for r in self._finish_step())
        group = self._world()
        if (group is None or group.comm is None) and not self.mean:
            return grads  # a world of one sums nothing
        if any(isinstance(g, Tensor) and g._tape is not None for g in grads):
            return self._recorded(grads)
        if group is not None and group.comm is not None and not self._checked:
            self._check_shapes(group)
            self._checked = True
        arrays = [np.asarray(g._data if isinstance(g, Tensor) else g) for g in grads]
        for k, a in enumerate(arrays):
            if a.shape != self._shapes[k]:
                raise ValueError(f"For '{owner}', the gradient of '{self._names[k]}' has shape "
                                 f"{a.shape}, but the parameter has shape {self._shapes[k]}")
        if group is None or group.comm is None:
            return tuple(wrap(r) for r in self.reduce_arrays(arrays, group))
        if not _REDUCING.acquire(blocking=False):
            raise RuntimeError(f"For '{owner}', another thread of this process is reducing "
                               f"gradients: collectives must run in the same order on every rank, "
                               f"so data-parallel steps cannot run in two threads at once")
        try:
            reduced = self.reduce_arrays(arrays, group)
        finally:
            _REDUCING.release()
        return tuple(wrap(r) for r in reduced)

    def reduce_arrays(self, arrays, group, on_started=None):
        """Sum `arrays` over `group` bucket by bucket, all started before any is waited on;
        then the mean. `on_started(k)` is called as bucket k starts. Buckets travel in buffers
        reused across steps; the gradients returned are new arrays."""
        starts = []
        for k, bucket in enumerate(self.buckets):
            if group is None or group.comm is None:
                flat = np.concatenate([arrays[i].reshape(-1) for i in bucket]) \
                    if len(bucket) > 1 else arrays[bucket[0]].reshape(-1)
                starts.append((None, flat.astype(np.float32) if flat.dtype == np.float16
                               else flat))
            else:
                flat = self._pack_buffer(k)
                np.concatenate([arrays[i].reshape(-1) for i in bucket], out=flat,
                               casting="same_kind")
                starts.append(self._start_bucket(group, k, flat))
            if on_started is not None:
                on_started(k)
        return self._unpack(starts, [a.dtype for a in arrays])

    def _pack_buffer(self, k):
        bucket = self.buckets[k]
        dtype = np.float32 if self._dtypes[bucket[0]] == np.float16 else self._dtypes[bucket[0]]
        size = sum(int(np.prod(self._shapes[i], dtype=np.int64)) for i in bucket)
        return _backend.scratch((self._slot, k, "pack"), dtype, size)

    def _start_bucket(self, group, k, flat):
        """Every path reduces a bucket with this one call, so the bits never depend on the path."""
        if self.trace is not None:
            self.trace.append(("start", k))
        return _backend.iallreduce(group, flat, "sum", slot=(self._slot, k))

    def _unpack(self, starts, dtypes):
        """Wait for each bucket in order; its pieces (times 1/degree when `mean`) as new arrays."""
        out = [None] * len(self._shapes)
        for k, (bucket, (request, flat)) in enumerate(zip(self.buckets, starts)):
            _backend.wait(request, f"{type(self).__name__} bucket {k} (parameters "
                                   f"{[self._names[i] for i in bucket][:3]}...)", flat.nbytes)
            if self.trace is not None:
                self.trace.append(("wait", k))
            offset = 0
            for i in bucket:
                n = int(np.prod(self._shapes[i], dtype=np.int64))
                piece = flat[offset:offset + n].reshape(self._shapes[i])
                offset += n
                if self.mean:
                    piece = piece * np.asarray(1.0 / self.degree, piece.dtype)
                out[i] = piece.astype(dtypes[i], copy=request is not None and not self.mean)
        return out

    # ---- overlap: buckets started during the backward walk --------------------------------

    def start_during_backward(self):
        """Called by a data-parallel step after its forward, while the tape records: the backward
        walk that follows starts each bucket's all-reduce (non-blocking, in bucket order) as soon
        as the gradients of its parameters are final, and the next call of this reducer waits
        for them instead of reducing. Returns False, leaving the reduction to that call, when
        there is nothing to overlap: a world of one, a walk nested in another transform,
        parameters with tensor hooks or not differentiated, or `overlap` off."""
        self._drop_stale_step()
        tape = recording()
        group = self._world() if self.overlap and tape is not None and tape.depth == 1 else None
        if group is None or group.comm is None or group.size == 1:
            return False
        slots = [tape.params.get(k) for k in self._param_ids]
        if None in slots or len(set(slots)) != len(slots) or \
                any(s in tape.hooks for s in slots) or tape in ready_hooks:
            return False
        if not self._checked:
            self._check_shapes(group)
            self._checked = True
        if not _REDUCING.acquire(blocking=False):
            return False  # `construct` reports the concurrent step
        bucket_of, offset_of = {}, {}
        for k, bucket in enumerate(self.buckets):
            offset = 0
            for i in bucket:
                bucket_of[i], offset_of[i] = k, offset
                offset += int(np.prod(self._shapes[i], dtype=np.int64))
        self._step = _Step(group, [len(b) for b in self.buckets],
                           [self._pack_buffer(k) for k in range(len(self.buckets))],
                           bucket_of, offset_of)
        ready_hooks[tape] = {slot: functools.partial(self._ready, i)
                             for i, slot in enumerate(slots)}
        return True

    def _ready(self, i, grad):
        """Parameter i's gradient is final: pack it; start every bucket that is now complete
        and whose predecessors have started (the same order on every rank)."""
        step = self._step
        k = step.bucket_of[i]
        n = int(np.prod(self._shapes[i], dtype=np.int64))
        view = step.flats[k][step.offset_of[i]:step.offset_of[i] + n]
        if grad is None:
            view[...] = 0
        else:
            view[...] = grad._data.reshape(-1)
        step.pending[k] -= 1
        while step.started < len(self.buckets) and step.pending[step.started] == 0:
            b = step.started
            step.starts.append(self._start_bucket(step.group, b, step.flats[b]))
            step.started += 1
        for request, _ in step.starts:  # MPI progresses only inside MPI calls
            if request is not None:
                request.Test()

    def _finish_step(self):
        step, self._step = self._step, None
        try:
            if step.started < len(self.buckets):
                raise RuntimeError(f"For '{type(self).__name__}', the backward walk did not make "
                                   f"every gradient final ({step.started} of "
                                   f"{len(self.buckets)} buckets started)")
            return self._unpack(step.starts, self._dtypes)
        finally:
            _REDUCING.release()

    def _drop_stale_step(self):
        """A step whose backward raised: complete what it started (its peers started the same
        buckets), so the next step's collectives stay matched."""
        step, self._step = self._step, None
        if step is None:
            return
        try:
            for k, (request, flat) in enumerate(step.starts):
                _backend.wait(request, f"{type(self).__name__} bucket {k} of an unfinished step",
                              flat.nbytes)
        finally:
            _REDUCING.release()

    def _recorded(self, grads):
        """The same reduction as recorded primitives, for gradients that are differentiated
        again."""
        op = comm_ops.AllReduce(comm_ops.ReduceOp.SUM, self.group)
        out = []
        for g in grads:
            r = op(g)
            if self.mean:
                r = M.mul(r, Tensor(np.asarray(1.0 / self.degree, g._data.dtype)))
            out.append(r)
        return tuple(out)


class _Step:
    """A reduction in flight during one backward walk."""

    __slots__ = ("bucket_of", "flats", "group", "offset_of", "pending", "started", "starts")

    def __init__(self, group, pending, flats, bucket_of, offset_of):
        self.group, self.pending, self.flats = group, pending, flats
        self.bucket_of, self.offset_of = bucket_of, offset_of
        self.started, self.starts = 0, []


def broadcast_parameters(parameters, root=0, group=GlobalComm.WORLD_COMM_GROUP):
    """Overwrite every rank's `parameters` with rank `root`'s, in place (one call per dtype)."""
    grp = group_of(group, "parameter_broadcast")
    if grp.comm is None or grp.size == 1:
        return
    params = list(parameters)
    by_dtype = {}
    for p in params:
        by_dtype.setdefault(np.dtype(p._data.dtype), []).append(p)
    for dtype, members in by_dtype.items():
        flat = np.concatenate([np.asarray(p._data, dtype).reshape(-1) for p in members])
        flat = _backend.broadcast(grp, flat, root, "parameter_broadcast")
        offset = 0
        for p in members:
            n = p._data.size
            p.set_data(Tensor(flat[offset:offset + n].reshape(p.shape).copy()))
            offset += n
