"""Ordered parallel execution of pipeline work on threads or processes, and the per-chunk random
streams that keep random transforms deterministic whatever the worker count."""
import collections
import multiprocessing
import pickle
import signal
import threading
import time
import traceback
import warnings
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import resource_tracker, shared_memory

import numpy as np

from . import config

# Rows are handed to workers in fixed-size chunks. Each chunk gets its own generator seeded from
# the op's stream in chunk order, so a random transform draws the same numbers for the same row
# with 1 worker or 8: the result depends on the chunk layout, never on thread scheduling.
CHUNK = 8

_local = threading.local()


def current_rng():
    """The generator a random transform draws from: the chunk's inside a pipeline, else the
    eager stream of `config` (reset by `set_seed`)."""
    key = getattr(_local, "key", None)
    if key is None:
        return config._eager_rng()
    rng = _local.rng
    if rng is None:  # made on first use: chunks without random transforms pay nothing
        rng = _local.rng = np.random.default_rng(key)
    return rng


class Stream:
    """The random stream of one chunk: its seed key and, once drawn from, its generator."""

    __slots__ = ("key", "rng")

    def __init__(self, key):
        self.key, self.rng = key, None


def run_in_stream(stream, fn, *args):
    """fn(*args) with `current_rng()` bound, on this thread, to `stream`; the stream keeps its
    position, so several calls in one stream draw what one call over all their rows would."""
    old = getattr(_local, "key", None), getattr(_local, "rng", None)
    _local.key, _local.rng = stream.key, stream.rng
    try:
        return fn(*args)
    finally:
        stream.rng = _local.rng
        _local.key, _local.rng = old


def run_with_rng(key, fn, *args):
    """fn(*args) with `current_rng()` bound, on this thread, to a generator seeded by `key` (a
    tuple of non-negative ints naming the pass, the op and the chunk)."""
    return run_in_stream(Stream(key), fn, *args)


def ordered_map(fn, items, workers):
    """fn(item) for each item, in order; on `workers` threads when workers > 1.

    `items` is pulled on the calling thread only, so upstream generators never run concurrently;
    at most 2 * workers calls are in flight. An exception from fn is raised here, in order.
    """
    if workers <= 1:
        for item in items:
            yield fn(item)
        return
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="minispore-dataset")
    pending = collections.deque()
    try:
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for fut in pending:
            fut.cancel()
        pool.shutdown(wait=False, cancel_futures=True)


def chunks(iterable, size):
    """Lists of up to `size` consecutive items."""
    buf = []
    for item in iterable:
        buf.append(item)
        if len(buf) == size:
            yield buf
            buf = []
    if buf:
        yield buf


# ---- process workers --------------------------------------------------------------------------

SHM_MIN_BYTES = 1 << 16  # arrays at least this large travel through shared memory


def _large_arrays(obj, out):
    if isinstance(obj, np.ndarray):
        if obj.nbytes >= SHM_MIN_BYTES and not obj.dtype.hasobject:
            out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            _large_arrays(o, out)
    return out


def _pack(obj, shared):
    """`obj` (nested tuples/lists of arrays and plain values) with its large arrays copied into
    one shared-memory block and named in their place; the receiver copies them out and unlinks
    the block."""
    large = _large_arrays(obj, []) if shared else []
    if not large:
        return obj
    offsets, total = {}, 0
    for a in large:
        offsets[id(a)] = total
        total += -(-a.nbytes // 64) * 64
    block = shared_memory.SharedMemory(create=True, size=total)
    try:
        for a in large:
            start = offsets[id(a)]
            np.ndarray(a.shape, a.dtype, buffer=block.buf, offset=start)[...] = a
    finally:
        block.close()

    def swap(o):
        if isinstance(o, np.ndarray) and id(o) in offsets:
            return _SharedArray(offsets[id(o)], o.shape, o.dtype.str)
        if isinstance(o, (tuple, list)):
            return type(o)(swap(x) for x in o)
        return o

    return _Packed(block.name, swap(obj))


class _Packed:
    """A message whose large arrays live in the shared-memory block `name`."""

    __slots__ = ("name", "value")

    def __init__(self, name, value):
        self.name, self.value = name, value

    def __reduce__(self):
        return _Packed, (self.name, self.value)


class _SharedArray:
    """Where an array lies in a message's shared-memory block."""

    __slots__ = ("dtype", "offset", "shape")

    def __init__(self, offset, shape, dtype):
        self.offset, self.shape, self.dtype = offset, shape, dtype

    def __reduce__(self):
        return _SharedArray, (self.offset, self.shape, self.dtype)


def _unpack(obj):
    if not isinstance(obj, _Packed):
        return obj
    block = shared_memory.SharedMemory(name=obj.name)
    try:
        def take(o):
            if isinstance(o, _SharedArray):
                return np.array(np.ndarray(o.shape, np.dtype(o.dtype), buffer=block.buf,
                                           offset=o.offset))
            if isinstance(o, (tuple, list)):
                return type(o)(take(x) for x in o)
            return o

        return take(obj.value)
    finally:
        block.close()
        block.unlink()


def _discard(obj):
    """Unlink the shared-memory block of a packed message that will never be unpacked."""
    if not isinstance(obj, _Packed):
        return
    try:
        block = shared_memory.SharedMemory(name=obj.name)
    except FileNotFoundError:
        return
    block.close()
    block.unlink()


def _worker_main(conn, fn, shared):
    """A worker process: run fn on each task until the None sentinel (or the pipe closes)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        key, payload = task
        try:
            result = ("ok", _pack(run_with_rng(key, fn, _unpack(payload)), shared))
        except BaseException as e:  # noqa: BLE001 (sent to the parent, which raises it)
            text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
            try:
                pickle.dumps(e)
                result = ("error", (e, text))
            except Exception:  # noqa: BLE001 (an unpicklable exception travels as text)
                result = ("error", (None, text))
        conn.send(result)


class WorkerDied(RuntimeError):
    """A process worker of a pipeline op exited while it held work."""


def process_ordered_map(fn, items, workers, owner="map"):
    """fn(payload) under `run_with_rng(key, ...)` for each (key, payload) item, in order, on
    `workers` processes (the start method of `config`).

    Each worker holds one task at a time; the parent sends the next only after reading the
    worker's result, so neither side can block the other on a full pipe. Large arrays travel
    through shared memory (`config.set_enable_shared_mem`). A worker that dies raises
    `WorkerDied` within a fraction of a second; an exception in `fn` is raised here with the
    worker's traceback as a note.
    """
    method = config.get_multiprocessing_start_method()
    ctx = multiprocessing.get_context(method)
    shared = config.get_enable_shared_mem()
    if shared:
        resource_tracker.ensure_running()
    procs, conns = [], []
    in_flight = collections.deque()  # (worker index, payload) per task sent, oldest first
    try:
        for _ in range(workers):
            parent_end, child_end = ctx.Pipe()
            try:
                proc = ctx.Process(target=_worker_main, args=(child_end, fn, shared),
                                   daemon=True, name="minispore-dataset-worker")
                proc.start()
            except (pickle.PicklingError, AttributeError, TypeError) as e:
                raise RuntimeError(f"For '{owner}', the operations cannot be sent to 'spawn' "
                                   f"worker processes ({e}): use picklable operations (no "
                                   f"lambdas or local functions), or the 'fork' start "
                                   f"method") from None
            finally:
                child_end.close()
            procs.append(proc)
            conns.append(parent_end)
        items = iter(items)

        def send(w):
            item = next(items, None)
            if item is None:
                return
            key, payload = item
            packed = _pack(payload, shared)
            in_flight.append((w, packed))
            try:
                conns[w].send((key, packed))
            except (BrokenPipeError, OSError):
                _raise_died(owner, procs[w])

        for w in range(workers):
            send(w)
        while in_flight:
            w, _ = in_flight[0]
            status, value = _receive(owner, conns[w], procs[w])
            in_flight.popleft()
            if status == "error":
                exc, text = value
                if exc is None:
                    raise RuntimeError(f"For '{owner}', a worker process raised:\n{text}")
                if hasattr(exc, "add_note"):
                    exc.add_note(f"(in a '{owner}' worker process)\n{text}")
                raise exc
            result = _unpack(value)
            send(w)
            yield result
    finally:
        for w, packed in in_flight:
            _discard(packed)
        for conn in conns:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for proc in procs:
            proc.join(timeout=1)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=1)
        for w, conn in enumerate(conns):
            _drain(conn)
            conn.close()


def _drain(conn):
    """Unlink the shared memory of results left unread in a closing pipe."""
    try:
        while conn.poll(0):
            status, value = conn.recv()
            if status == "ok":
                _discard(value)
    except (EOFError, OSError):
        pass


def _receive(owner, conn, proc):
    warned_at = time.monotonic()
    while True:
        if conn.poll(0.05):
            try:
                return conn.recv()
            except (EOFError, OSError):
                _raise_died(owner, proc)
        if not proc.is_alive() and not conn.poll(0):
            _raise_died(owner, proc)
        interval = config.get_multiprocessing_timeout_interval()
        if time.monotonic() - warned_at > interval:
            warned_at = time.monotonic()
            warnings.warn(f"For '{owner}', worker process {proc.pid} has been busy for over "
                          f"{interval} s", stacklevel=2)


def _raise_died(owner, proc):
    proc.join(timeout=0.5)
    code = proc.exitcode
    how = f"was killed by signal {-code}" if code is not None and code < 0 else \
        f"exited with code {code}"
    raise WorkerDied(f"For '{owner}', worker process {proc.pid} {how} while processing rows "
                     f"(out of memory, a crash in native code, or os._exit in an operation?); "
                     f"the pipeline stopped")
