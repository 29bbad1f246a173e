"""The TensorBoard event-file writer behind `SummaryRecord`: a background thread fed through a
bounded queue, so recording costs the training loop a copy of each value, never a disk write.

Protocol buffers come from `tensorboardX` (the `summary` extra). The thread builds the events
(histograms, image grids) and writes them. A failed write (a full disk), a removed directory or a
file over `max_file_size` gives one warning and the data is dropped; training goes on. With
`raise_exception=True` the error is raised instead, at the next call of the recording thread.
"""
import errno
import json
import os
import queue
import socket
import threading
import time
import warnings

import numpy as np

_QUEUE_SIZE = 256
_PUT_TIMEOUT = 2.0  # seconds the training loop may wait on a full queue before data is dropped
_RECORD_OVERHEAD = 16  # bytes framing each record in an event file (length, two CRCs)
_CHECK_SECONDS = 2.0  # how often the writer looks whether its file still exists

_TENSOR_DTYPES = {"float16": "DT_HALF", "float32": "DT_FLOAT", "float64": "DT_DOUBLE",
                  "int8": "DT_INT8", "int16": "DT_INT16", "int32": "DT_INT32",
                  "int64": "DT_INT64", "uint8": "DT_UINT8", "uint16": "DT_UINT16",
                  "uint32": "DT_UINT32", "uint64": "DT_UINT64", "bool": "DT_BOOL",
                  "complex64": "DT_COMPLEX64", "complex128": "DT_COMPLEX128"}


def import_tensorboardx(owner):
    try:
        import tensorboardX  # noqa: F401
    except ImportError:
        raise ImportError(f"{owner} writes TensorBoard event files through the 'tensorboardX' "
                          "package: pip install 'minispore[summary]' (or pip install "
                          "tensorboardX)") from None


def image_grid(batch):
    """(H', W', C) uint8 grid of an (N, C, H, W) batch: floats read in [0, 1], ints in [0, 255]."""
    a = np.asarray(batch)
    if a.dtype.kind == "f":
        a = np.nan_to_num(a.astype(np.float64), nan=0.0)
        a = np.clip(a, 0.0, 1.0) * 255.0 + 0.5
    a = np.clip(a, 0, 255).astype(np.uint8)
    n, c, h, w = a.shape
    cols = int(np.ceil(np.sqrt(n))) if n else 1
    rows = int(np.ceil(n / cols)) if n else 1
    grid = np.zeros((rows * h, cols * w, c), np.uint8)
    for k in range(n):
        r, q = divmod(k, cols)
        grid[r * h:(r + 1) * h, q * w:(q + 1) * w] = a[k].transpose(1, 2, 0)
    return grid


def _tensor_value(tag, array):
    from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
    from tensorboardX.proto.tensor_pb2 import TensorProto
    from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto
    a = np.ascontiguousarray(array)
    name = _TENSOR_DTYPES.get(a.dtype.name)
    if name is None:
        a, name = a.astype(np.float32), "DT_FLOAT"
    proto = TensorProto(dtype=name, tensor_content=a.tobytes(),
                        tensor_shape=TensorShapeProto(
                            dim=[TensorShapeProto.Dim(size=d) for d in a.shape]))
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="tensor"))
    return Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=meta)])


def build_summary(kind, tag, value):
    """The tensorboardX `Summary` proto for one value of `kind`."""
    from tensorboardX import summary as tbs
    if kind == "scalar":
        return tbs.scalar(tag, float(np.asarray(value).reshape(-1)[0]))
    if kind == "histogram":
        a = np.asarray(value, np.float64).reshape(-1)
        a = a[np.isfinite(a)]
        if a.size == 0:
            a = np.zeros(1)
        return tbs.histogram(tag, a, bins="auto", max_bins=64)
    if kind == "image":
        return tbs.image(tag, image_grid(value), dataformats="HWC")
    if kind == "tensor":
        return _tensor_value(tag, value)
    if kind == "text":
        return tbs.text(tag, value if isinstance(value, str) else json.dumps(value, default=str))
    raise ValueError(f"unknown summary kind {kind!r}")


class EventWriter:
    """Writes (step, kind, tag, value) items to `{prefix}.out.tfevents.{time}.{host}{suffix}` in a
    background thread."""

    def __init__(self, log_dir, file_prefix, file_suffix, max_file_size=None,
                 raise_exception=False):
        from tensorboardX.event_file_writer import EventsWriter
        self._events_writer = EventsWriter
        self.log_dir = log_dir
        self.file_prefix = file_prefix
        self.file_suffix = file_suffix
        self.max_file_size = max_file_size
        self.raise_exception = raise_exception
        self._warned = set()
        self._error = None
        self._bytes = 0
        self._closed = False
        self._checked = time.monotonic()
        self._queue = queue.Queue(_QUEUE_SIZE)
        os.makedirs(log_dir, exist_ok=True)
        self._writer = self._open()
        self._thread = threading.Thread(target=self._run, name="minispore-summary-writer",
                                        daemon=True)
        self._thread.start()

    @property
    def file_path(self):
        return self._writer._file_name

    def _open(self):
        prefix = os.path.join(self.log_dir, self.file_prefix)
        host = socket.gethostname()
        deadline = time.monotonic() + 2.0
        # the file is named to the second: wait out a second whose name another record took
        while os.path.exists(f"{prefix}.out.tfevents.{str(time.time())[:10]}.{host}"
                             f"{self.file_suffix}") and time.monotonic() < deadline:
            time.sleep(0.05)
        writer = self._events_writer(prefix, self.file_suffix)
        writer.flush()
        self._bytes = os.path.getsize(writer._file_name)
        return writer

    # ---- the recording thread's side ----

    def put(self, step, kind, tag, value):
        """Queue one value; waits at most a moment when the writer is behind, then drops it."""
        self.raise_pending()
        if self._closed:
            return False
        try:
            self._queue.put(("value", (step, kind, tag, value, time.time())),
                            timeout=_PUT_TIMEOUT)
        except queue.Full:
            self._warn("behind", "the summary writer is behind (a slow or stalled disk): summary "
                       "data is being dropped")
            return False
        return True

    def flush(self, timeout=30.0):
        """Wait until everything queued so far is on disk."""
        if self._closed:
            return
        done = threading.Event()
        try:
            self._queue.put(("flush", done), timeout=timeout)
        except queue.Full:
            return
        done.wait(timeout)
        self.raise_pending()

    def close(self, timeout=30.0):
        if self._closed:
            return
        self.flush(timeout)
        self._closed = True
        self._queue.put(("close", None))
        self._thread.join(timeout)
        self.raise_pending()

    def raise_pending(self):
        if self.raise_exception and self._error is not None:
            error, self._error = self._error, None
            raise error

    # ---- the writer thread ----

    def _warn(self, key, message):
        if key not in self._warned:
            self._warned.add(key)
            warnings.warn(f"SummaryRecord ({self.log_dir}): {message}", RuntimeWarning,
                          stacklevel=2)

    def _fail(self, key, message, error):
        if self.raise_exception:
            if self._error is None:
                self._error = error
        else:
            self._warn(key, message)

    def _run(self):
        from tensorboardX.proto.event_pb2 import Event
        while True:
            what, item = self._queue.get()
            if what == "close":
                self._safe(self._writer.close)
                return
            if what == "flush":
                self._check_file()
                self._safe(self._writer.flush)
                item.set()
                continue
            step, kind, tag, value, wall_time = item
            try:
                summary = build_summary(kind, tag, value)
            except (ValueError, TypeError) as e:
                self._fail(("bad", tag), f"the value of '{tag}' could not be written ({e})", e)
                continue
            data = Event(wall_time=wall_time, step=int(step), summary=summary)
            size = data.ByteSize() + _RECORD_OVERHEAD
            if self.max_file_size is not None and self._bytes + size > self.max_file_size:
                self._fail("size", f"the event file reached max_file_size={self.max_file_size} "
                           "bytes: further summary data is dropped",
                           RuntimeError(f"For 'SummaryRecord', the event file reached "
                                        f"max_file_size={self.max_file_size} bytes"))
                continue
            if self._safe(self._writer.write_event, data):
                self._bytes += size
            now = time.monotonic()
            if now - self._checked > _CHECK_SECONDS:
                self._checked = now
                self._check_file()

    def _check_file(self):
        """Start a new file if the directory or the file was removed."""
        if os.path.exists(self._writer._file_name):
            return
        self._warn("removed", f"the event file {self._writer._file_name} was removed; a new "
                   "one is started")
        self._safe(self._writer.close)
        try:
            os.makedirs(self.log_dir, exist_ok=True)
            self._writer = self._open()
        except OSError as e:
            self._fail("reopen", f"no new event file could be made ({e}): summary data is "
                       "dropped", e)

    def _safe(self, fn, *args):
        try:
            fn(*args)
            return True
        except OSError as e:
            reason = "the disk is full" if e.errno == errno.ENOSPC else str(e)
            self._fail(("os", e.errno), f"writing the event file failed ({reason}): summary "
                       "data is dropped, training goes on", e)
            return False
