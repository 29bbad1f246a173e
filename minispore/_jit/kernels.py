"""The numba backend (docs/graph_mode.md, "Fusion, backends and the kernel cache"): each Fused
group becomes a numba kernel, generated as Python source (nested loops over the group's shape,
each operand indexed by its broadcast pattern, a reduction over the last axis accumulated in the
innermost loop), written to the kernel cache directory under a name hashed from the source and
the numba and NumPy versions, and compiled with `cache=True`, so a later process loads the
machine code from disk. numba is imported here, when a trace is compiled with this backend,
never at `import minispore`.

Results are within float tolerance of eager, not bitwise: numba's exp/log/tanh/erf are LLVM's
and libm's, not NumPy's SIMD loops; helpers (sigmoid, GeLU) compute in float64 and round once;
sums and means accumulate in float64 in index order, not NumPy's pairwise float32 sums. NumPy's
floating-point warnings are not raised by a kernel.
"""
import hashlib
import importlib
import importlib.util
import math
import os
import sys
import threading
import warnings

import numpy as np

from ..ops.operations import nn_ops as _nn
from ..ops.operations import reduce_ops as R
from . import fuse as _fuse

CACHE_ENV = "MINISPORE_JIT_CACHE"
# Members whose scalar code in a kernel is far slower than NumPy's SIMD loops on large arrays
# (benchmarks: tanh of 524288 float32 30x slower, exp 3x): a group holding one and more than
# SIMD_ELEMENTS elements keeps its NumPy calls.
SIMD_BOUND = frozenset((_fuse.M.Exp, _fuse.M.Log, _fuse.M.Log1p, _fuse.M.Expm1, _nn.Tanh))
SIMD_ELEMENTS = 4096
_kernels = {}  # hash -> compiled dispatcher, per process
_lock = threading.Lock()

_PREAMBLE = f'''import math

import numba
import numpy as np

_S = {_nn._SQRT_2_OVER_PI!r}
_CS = {_nn._GELU_C * _nn._SQRT_2_OVER_PI!r}
_R2 = {_nn._INV_SQRT_2!r}
_R2PI = {_nn._INV_SQRT_2PI!r}
_inline = numba.njit(inline="always", error_model="numpy")


@_inline
def _sigmoid(x):
    e = np.exp(-abs(x))
    return (1.0 if x >= 0 else e) / (1.0 + e)


@_inline
def _gelu_tanh(x):
    t = np.tanh((x * x * _CS + _S) * x)
    return (t + 1.0) * x * 0.5


@_inline
def _gelu_none(x):
    return 0.5 * x * (1.0 + math.erf(x * _R2))


@_inline
def _gelu_grad_tanh(x, dy):
    t = np.tanh((x * x * _CS + _S) * x)
    return ((x * x * (1.5 * _CS) + 0.5 * _S) * x * (1.0 - t * t) + (t + 1.0) * 0.5) * dy


@_inline
def _gelu_grad_none(x, dy):
    return (0.5 * (1.0 + math.erf(x * _R2)) + x * np.exp(-0.5 * x * x) * _R2PI) * dy


'''


def numba_version():
    """numba's version, or None when it cannot be imported."""
    try:
        return importlib.import_module("numba").__version__
    except ImportError:
        return None


def cache_dir():
    """Where kernel sources and numba's cached machine code live: `$MINISPORE_JIT_CACHE`, else
    `~/.cache/minispore/jit`."""
    return os.environ.get(CACHE_ENV) or os.path.join(os.path.expanduser("~"), ".cache",
                                                     "minispore", "jit")


def _np_name(dt):
    return "np." + np.dtype(dt).name


def _literal(a):
    """Source for a 0-d constant, exactly (floats by their shortest repr)."""
    v = a.item()
    if a.dtype.kind == "b":
        return repr(bool(v))
    if a.dtype.kind != "f":
        return f"{_np_name(a.dtype)}({int(v)})"
    if math.isnan(v):
        text = "np.nan"
    elif math.isinf(v):
        text = "np.inf" if v > 0 else "-np.inf"
    else:
        text = repr(float(v))
    return f"{_np_name(a.dtype)}({text})"


def _index(shape, full):
    """The subscript of an operand of `shape` at the loop indices of `full` (broadcast dims 0)."""
    if not shape:
        return "[()]"
    skip = len(full) - len(shape)
    return "[" + ", ".join(f"i{skip + d}" if s == full[skip + d] else "0"
                           for d, s in enumerate(shape)) + "]"


def _convert(expr, have, want):
    return expr if np.dtype(have) == np.dtype(want) else f"{_np_name(want)}({expr})"


def kernel_source(group):
    """The Python source of `group`'s numba kernel, a function `kernel(a0, a1, ...)` of the
    group's array inputs (scalar constants are literals) returning its outputs."""
    members, meta, full = group.members, group.meta, group.shape
    rank = len(full)
    reduce = members[-1] if type(members[-1].prim) in _fuse.REDUCTIONS else None
    shapes = [meta[x][0] if type(x) is int else np.shape(x[1]) for x in group.ins]
    args = {x: k for k, x in enumerate(group.ins) if type(x) is int}
    const_arg = {id(x[1]): k for k, x in enumerate(group.ins) if type(x) is not int}
    loads, body = [], []
    loaded = set()

    def operand(m, j):
        x = m.ins[j]
        if type(x) is int:
            if x in args and x not in loaded:
                loaded.add(x)
                loads.append(f"v{x} = a{args[x]}{_index(meta[x][0], full)}")
            return f"v{x}", meta[x][1]
        a = np.asarray(x[1])
        if a.ndim == 0:
            return _literal(a), a.dtype
        return f"a{const_arg[id(x[1])]}{_index(a.shape, full)}", a.dtype

    for m in members:
        if m is reduce:
            break
        kind, expr = _fuse.SCALAR[type(m.prim)]
        out = m.outs[0]
        t = meta[out][1]
        want = _fuse.promoted(m, meta) if kind == "P" else t
        ops = []
        for j in _fuse._data_operands(m):
            src, have = operand(m, j)
            ops.append(src if kind == "S" and j == 0 else _convert(src, have, want))
        if type(m.prim) is _fuse.M.Cast:
            text = f"{ops[0]} != 0" if t == _fuse.BOOL else ops[0]
        else:
            text = expr.format(*ops, T=_np_name(t), a=getattr(m.prim, "approximate", ""))
        body.append(f"v{out} = {text}" if kind == "P" else f"v{out} = {_np_name(t)}({text})")
    # the loop extents: each from an array input that is not broadcast along that axis
    extents = []
    for k in range(rank):
        src = str(full[k])
        for n, shape in enumerate(shapes):
            d = k - (rank - len(shape))
            if d >= 0 and shape[d] == full[k]:
                src = f"a{n}.shape[{d}]"
                break
        extents.append(src)
    names = [f"a{k}" for k in range(len(group.ins))]
    lines = ["@numba.njit(cache=True, error_model=\"numpy\", nogil=True)",
             f"def kernel({', '.join(names)}):"]
    lines += [f"    n{k} = {e}" for k, e in enumerate(extents)]
    dims = ", ".join(f"n{k}" for k in range(rank))
    for i in group.outs:
        if reduce is not None and i == reduce.outs[0]:
            rshape = meta[i][0]
            rdims = ", ".join([f"n{k}" for k in range(rank - 1)] +
                              (["1"] if len(rshape) == rank else []))
            lines.append(f"    o{i} = np.empty(({rdims},), {_np_name(meta[i][1])})")
        else:
            lines.append(f"    o{i} = np.empty(({dims},), {_np_name(meta[i][1])})")
    pad = "    "
    for k in range(rank - 1):
        lines.append(f"{pad}for i{k} in range(n{k}):")
        pad += "    "
    if reduce is not None:
        lines.append(f"{pad}acc = " + ("-np.inf" if type(reduce.prim) is R.ReduceMax else "0.0"))
    lines.append(f"{pad}for i{rank - 1} in range(n{rank - 1}):")
    inner = pad + "    "
    lines += [inner + s for s in loads + body]
    idx = "[" + ", ".join(f"i{k}" for k in range(rank)) + "]"
    for i in group.outs:
        if reduce is None or i != reduce.outs[0]:
            lines.append(f"{inner}o{i}{idx} = v{i}")
    if reduce is not None:
        v = f"v{reduce.ins[0]}"
        if type(reduce.prim) is R.ReduceMax:
            lines.append(f"{inner}if {v} > acc or {v} != {v}:")
            lines.append(f"{inner}    acc = {v}")
        else:
            lines.append(f"{inner}acc += {v}")
        r = reduce.outs[0]
        ridx = [f"i{k}" for k in range(rank - 1)] + \
            (["0"] if len(meta[r][0]) == rank else [])
        value = f"acc / n{rank - 1}" if type(reduce.prim) is R.ReduceMean else "acc"
        if r in group.outs:
            lines.append(f"{pad}o{r}[{', '.join(ridx)}] = {_np_name(meta[r][1])}({value})")
    outs = [f"o{i}" for i in group.outs]
    lines.append("    return " + (outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"))
    return _PREAMBLE + "\n".join(lines) + "\n"


def load(source):
    """The compiled kernel of `source`: from this process's table, else imported from its file
    in the cache directory (written once, atomically), numba's `cache=True` keeping the machine
    code beside it."""
    numba = importlib.import_module("numba")
    key = hashlib.sha256(f"{source}\0{numba.__version__}\0{np.__version__}"
                         .encode()).hexdigest()[:32]
    fn = _kernels.get(key)
    if fn is not None:
        return fn
    with _lock:
        fn = _kernels.get(key)
        if fn is not None:
            return fn
        directory = cache_dir()
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, f"k_{key}.py")
        if not os.path.exists(path):
            tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(source)
            os.replace(tmp, path)
        spec = importlib.util.spec_from_file_location(f"minispore_jit_k_{key}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # numba's cache finds the kernel's globals by name
        spec.loader.exec_module(module)
        fn = _kernels[key] = module.kernel
    return fn


def attach(trace):
    """Give each Fused node of `trace` its numba kernel as `forward`, compiled (or loaded from
    the cache) now by a call on zeros of the captured shapes. A group left to NumPy (a
    transcendental over a large array, or a kernel that cannot be made) keeps its NumPy
    forward, the reason in `prim.backend`. Returns the number of kernels."""
    made = 0
    for group in _fuse.fused_groups(trace):
        slow = [type(m.prim).__name__ for m in group.members if type(m.prim) in SIMD_BOUND or
                getattr(m.prim, "approximate", None) == "tanh"]
        size = math.prod(group.shape)
        if slow and size > SIMD_ELEMENTS:
            group.backend = (f"numpy ({slow[0]} over {size} elements: NumPy's SIMD loop is "
                             "faster than a kernel's scalar code)")
            continue
        try:
            source = kernel_source(group)
            fn = load(source)
            sample = [np.zeros(*group.meta[x]) if type(x) is int else x[1] for x in group.ins]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = fn(*sample)
            got = got if len(group.outs) > 1 else (got,)
            if [(a.shape, a.dtype) for a in got] != [group.meta[i] for i in group.outs]:
                raise TypeError(f"the kernel gave {[(a.shape, a.dtype) for a in got]}")
        except Exception as e:  # noqa: BLE001 (any failure keeps the group's NumPy calls)
            group.backend = f"numpy ({type(e).__name__}: {str(e).splitlines()[0][:200]})"
            continue
        group.kernel_source = source
        group.backend = "numba"
        group.forward = fn
        made += 1
    return made
