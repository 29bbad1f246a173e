"""Counting the floating-point operations of the GEMM-like primitives (docs/flops.md).

`count()` is a context manager: while it is open, every MatMul, BatchMatMul, Dense, Conv2D/3D
and convolution-backprop primitive run (in the forward pass and inside bprops) adds its
multiply-add count times two to the open counters, computed from its operand shapes. Nothing is
installed otherwise: the wrappers go on the primitive classes when the first counter opens and
come off when the last closes.

"Model" FLOPs leave out the forward pass a recomputed block runs again in backward
(`Cell.recompute`, `ops.recompute`); "hardware" FLOPs count it. `flops_collection(phase)` reads
the counts `FlopsUtilizationCollector` measured last for a phase ('train' or 'eval').
"""
import math
import threading
import types

from .._autodiff import recompute as _recompute
from ..ops.operations import conv_ops, linalg_ops, nn_ops

__all__ = ["count", "flops_collection"]


class _Local(threading.local):
    rerun = 0  # depth of recomputed blocks running their forward again in this thread


_local = _Local()
_lock = threading.Lock()
_open = []  # the open counters, each a [model, hardware] list
_saved = {}  # (owner, attribute) -> (original, wrapper)
_measured = {}  # phase -> (model, hardware) of the last measured step


def _contracted(a, prim):
    return a.shape[-2] if getattr(prim, "transpose_a", False) else a.shape[-1]


def _matmul(prim, args, out):
    return 2 * out.size * _contracted(args[0], prim)


def _dense(prim, args, out):
    return 2 * out.size * args[1].shape[1]


def _conv(prim, args, out):
    w = args[1]  # (O, C/groups, *kernel): every output element takes C/groups * kernel MACs
    return 2 * out.size * math.prod(w.shape[1:])


def _conv_input(prim, args, out):
    g, w = args[0], args[1]  # the transposed convolution: one MAC per g element and w column
    return 2 * g.size * math.prod(w.shape[1:])


def _conv_filter(prim, args, out):
    g = args[0]  # dw[o, c, k] sums g[n, o, p] * x[n, c, p + k] over n and p
    return 2 * g.size * math.prod(out.shape[1:])


_RULES = [(linalg_ops.MatMul, _matmul), (linalg_ops.BatchMatMul, _matmul),
          (nn_ops.Dense, _dense), (conv_ops.Conv2D, _conv),
          (conv_ops.Conv2DBackpropInput, _conv_input),
          (conv_ops.Conv2DBackpropFilter, _conv_filter)]


def _add(n):
    with _lock:
        for c in _open:
            c[1] += n
            if not _local.rerun:
                c[0] += n


def _counted(rule, forward):
    def run(self, *arrays):
        out = forward(self, *arrays)
        if _open:
            _add(rule(self, arrays, out))
        return out
    return run


def _rerun_bprop(bprop):
    def run(self, saved, dout, needs):
        _local.rerun += 1
        try:
            return bprop(self, saved, dout, needs)
        finally:
            _local.rerun -= 1
    return run


def _walk_back(backward):
    def run(*args, **kwargs):
        depth, _local.rerun = _local.rerun, 0  # the walk back through the re-run is backward
        try:
            return backward(*args, **kwargs)
        finally:
            _local.rerun = depth
    return run


def _set(owner, name, wrapper):
    original = getattr(owner, name) if isinstance(owner, types.ModuleType) else \
        owner.__dict__[name]
    _saved[(owner, name)] = (original, wrapper)
    setattr(owner, name, wrapper)


def _install():
    seen = set()
    for cls, rule in _RULES:
        for sub in [cls] + [s for s in _subclasses(cls)]:
            if "forward" in sub.__dict__ and sub not in seen:
                seen.add(sub)
                _set(sub, "forward", _counted(rule, sub.__dict__["forward"]))
    _set(_recompute._Recomputed, "bprop", _rerun_bprop(_recompute._Recomputed.bprop))
    _set(_recompute, "backward", _walk_back(_recompute.backward))


def _subclasses(cls):
    out, todo = [], list(cls.__subclasses__())
    while todo:
        c = todo.pop()
        out.append(c)
        todo.extend(c.__subclasses__())
    return out


def _uninstall():
    for (owner, name), (original, wrapper) in _saved.items():
        current = getattr(owner, name) if isinstance(owner, types.ModuleType) else \
            owner.__dict__.get(name)
        if current is wrapper:  # another tool's wrapper on top stays; ours then idles
            setattr(owner, name, original)
    _saved.clear()


class count:
    """Context manager counting FLOPs while open: `model` and `hardware` after (or during)."""

    def __init__(self):
        self._counts = [0, 0]

    @property
    def model(self):
        return self._counts[0]

    @property
    def hardware(self):
        return self._counts[1]

    def __enter__(self):
        with _lock:
            if not _open:
                _install()
            _open.append(self._counts)
        return self

    def __exit__(self, *exc):
        with _lock:
            _open.remove(self._counts)
            if not _open:
                _uninstall()
        return False


def record(phase, model, hardware):
    _measured[phase] = (model, hardware)


def flops_collection(phase="train"):
    """(full model FLOPs, full hardware FLOPs, shard model FLOPs, shard hardware FLOPs,
    is dynamic shape) of one step of `phase`, as `FlopsUtilizationCollector` measured it last
    in this process. One process holds the whole model, so full and shard agree."""
    if phase not in _measured:
        raise RuntimeError(f"For 'flops_collection', no step of phase {phase!r} was measured: "
                           "train or evaluate with a FlopsUtilizationCollector callback first")
    model, hardware = _measured[phase]
    return model, hardware, model, hardware, False
