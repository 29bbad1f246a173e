"""The numba backend (docs/graph_mode.md, "Fusion, backends and the kernel cache"): each Fused
group becomes a numba kernel, generated as Python source (nested loops over the group's shape,
each operand indexed by its broadcast pattern, a reduction over the last axis accumulated in the
innermost loop), written to the kernel cache directory under a name hashed from the source and
the numba and NumPy versions, and compiled with `cache=True`, so a later process loads the
machine code from disk. numba is imported here, when a trace is compiled with this backend,
never at `import minispore`.

Results are within float tolerance of eager, not bitwise: numba's exp/log/erf and float64 tanh
are LLVM's and libm's, not NumPy's SIMD loops; float32 tanh is a polynomial (`_tanh_f32`);
helpers (sigmoid, GeLU) compute in float64 and round once; sums and means accumulate in float64
in index order, not NumPy's pairwise float32 sums. NumPy's
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
SIMD_BOUND = frozenset((_fuse.M.Exp, _fuse.M.Log, _fuse.M.Log1p, _fuse.M.Expm1, _fuse.M.Sin,
                        _fuse.M.Cos, _nn.Tanh))
SIMD_ELEMENTS = 4096
PACK_MIN = 4
ROUTE_MIN = 2
TANH_PER_LOOP = 8
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


@numba.njit(error_model="numpy")
def _tanh_f32(x):
    # float32 tanh from +, *, / in float64, which LLVM vectorises in a short loop (libm's tanhf
    # is an opaque call): u = expm1(-2|x|) by its Taylor polynomial at 1/64 of the argument,
    # doubled six times (expm1(2z) = u (u + 2)); tanh|x| = -u / (2 + u). Within 1 ulp of the
    # correctly rounded tanh (tested to 2); |x| > 9.5 rounds to 1; NaN stays NaN. Not
    # inline="always": a copy in every use made W1's kernel compile 3x slower than a call that
    # LLVM inlines where it pays (28 s against 14 s cold, replay 64 against 81 us).
    a = abs(np.float64(x))
    a = a if not a > 9.5 else 9.5
    z = a * (-2.0 / 64.0)
    u = z * (1.0 + z * (1.0 / 2 + z * (1.0 / 6 + z * (1.0 / 24 + z * (1.0 / 120 + z * (
        1.0 / 720 + z * (1.0 / 5040 + z * (1.0 / 40320 + z * (1.0 / 362880)))))))))
    u = u * (u + 2.0)
    u = u * (u + 2.0)
    u = u * (u + 2.0)
    u = u * (u + 2.0)
    u = u * (u + 2.0)
    u = u * (u + 2.0)
    return np.float32(math.copysign(-u / (2.0 + u), x))


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


def _places(group):
    """Where each member runs: ("row", p) once per row before the loop of phase p over the last
    axis, or ("loop", p) inside it (a reduction accumulates there; its result, a row value, is
    ready from phase p + 1). Phase p is the first whose inputs are all ready."""
    ready, places = {}, []
    tanhs = {}  # phase -> the float32 tanhs placed in its loop
    for m in group.members:
        p = max([ready[x] for x in m.ins if type(x) is int and x in ready], default=0)
        out = m.outs[0]
        if type(m.prim) in _fuse.REDUCTIONS:
            places.append(("loop", p))
            ready[out] = p + 1
        else:
            where = "loop" if group.meta[out][0] == group.shape else "row"
            places.append((where, p))
            ready[out] = p
            if where == "loop" and _fast_tanh(m, group.meta):
                # a loop ends after every TANH_PER_LOOP float32 tanhs: a short loop body
                # vectorises, a long chain of them in one body does not
                tanhs[p] = tanhs.get(p, 0) + 1
                if tanhs[p] == TANH_PER_LOOP:
                    ready[out] = p + 1
    return places


def _fast_tanh(m, meta):
    return type(m.prim) is _nn.Tanh and meta[m.outs[0]][1] == np.float32


def kernel_source(group, routes=None, n_packs=0):
    """The Python source of `group`'s numba kernel, a function `kernel(a0, a1, ..., p0, ...)` of
    the group's array inputs (scalar constants are literals) returning its outputs: per row (the
    outer loops), phases of a loop over the last axis, each reduction accumulated in one, the
    row values between them; a value made in one phase and read in a later one goes through a
    scratch row. An input in `routes` (value id -> (q, row)) is not an argument of its own: it
    is read as row `row` of the packed output `p{q}` of an earlier kernel (`n_packs` of them,
    after the `a` arguments)."""
    members, meta, full = group.members, group.meta, group.shape
    rank = len(full)
    last = f"i{rank - 1}"
    routes = routes or {}
    shapes = [meta[x][0] if type(x) is int else np.shape(x[1]) for x in group.ins]
    args = {x: k for k, x in enumerate(group.ins) if type(x) is int and _own(x, routes)}
    const_arg = {id(x[1]): k for k, x in enumerate(group.ins) if type(x) is not int}
    places = _places(group)
    phase_of = {m.outs[0]: p for m, (where, p) in zip(members, places) if where == "loop" and
                type(m.prim) not in _fuse.REDUCTIONS}
    scratch = set()
    blocks = {}  # (where, phase) -> [loads, body, loaded]

    def operand(m, j, block):
        x = m.ins[j]
        loads, _, loaded = block
        if type(x) is int:
            if x not in loaded:
                if x in args:
                    loads.append(f"v{x} = a{args[x]}{_index(meta[x][0], full)}")
                elif x in routes:
                    q, row = routes[x]
                    loads.append(f"v{x} = p{q}[{row}, {_index(meta[x][0], full)[1:]}")
                elif x in phase_of and phase_of[x] < current[0]:
                    scratch.add(x)
                    loads.append(f"v{x} = s{x}[{last}]")
                loaded.add(x)
            return f"v{x}", meta[x][1]
        a = np.asarray(x[1])
        if a.ndim == 0:
            return _literal(a), a.dtype
        return f"a{const_arg[id(x[1])]}{_index(a.shape, full)}", a.dtype

    current = [0]
    reductions = []
    for m, (where, p) in zip(members, places):
        block = blocks.setdefault((where, p), ([], [], set()))
        current[0] = p
        out = m.outs[0]
        t = meta[out][1]
        if type(m.prim) in _fuse.REDUCTIONS:
            v, _ = operand(m, 0, block)
            if type(m.prim) is R.ReduceMax:
                block[1].append(f"if {v} > acc{out} or {v} != {v}:")
                block[1].append(f"    acc{out} = {v}")
            else:
                block[1].append(f"acc{out} += {v}")
            reductions.append((m, p))
            continue
        kind, expr = _fuse.SCALAR[type(m.prim)]
        if _fast_tanh(m, meta):
            expr = "_tanh_f32({0})"
        want = _fuse.promoted(m, meta) if kind == "P" else t
        ops = []
        for j in _fuse._data_operands(m):
            src, have = operand(m, j, block)
            ops.append(src if kind == "S" and j == 0 else _convert(src, have, want))
        if type(m.prim) is _fuse.M.Cast:
            text = f"{ops[0]} != 0" if t == _fuse.BOOL else ops[0]
        else:
            text = expr.format(*ops, T=_np_name(t), a=getattr(m.prim, "approximate", ""))
        block[1].append(f"v{out} = {text}" if kind == "P" else f"v{out} = {_np_name(t)}({text})")
    flags = ", fastmath={\"reassoc\"}" if reductions else ""
    lines = [f"@numba.njit(cache=True, error_model=\"numpy\", nogil=True{flags})",
             f"def kernel({', '.join(_params(group.ins, routes, n_packs))}):"]
    if not rank:  # 0-d values: no loop; each output a new 0-d array
        loads, body, _ = blocks[("loop", 0)]
        lines += ["    " + x for x in loads + body]
        for i in group.outs:
            lines += [f"    o{i} = np.empty((), {_np_name(meta[i][1])})", f"    o{i}[()] = v{i}"]
        return _PREAMBLE + "\n".join(lines + [_returned(group.outs)]) + "\n"
    # the loop extents: each from an array input that is not broadcast along that axis
    extents = []
    for k in range(rank):
        src = str(full[k])
        for n, shape in enumerate(shapes):
            d = k - (rank - len(shape))
            if d >= 0 and shape[d] == full[k] and _own(group.ins[n], routes):
                src = f"a{n}.shape[{d}]"
                break
        else:
            if n_packs:  # every array input routed: a pack's rows have the group's shape
                src = f"p0.shape[{k + 1}]"
        extents.append(src)
    lines += [f"    n{k} = {e}" for k, e in enumerate(extents)]
    outer = [f"i{k}" for k in range(rank - 1)]
    index = {}  # value -> its output array and subscript there ("o3[i0, i1]")
    packed = packs(group)
    for row, i in enumerate(group.outs):
        shape = meta[i][0]
        dims = [f"n{k}" for k in range(rank - 1)]
        if shape == full:
            dims, sub = dims + [f"n{rank - 1}"], outer + [last]
        elif len(shape) == rank:
            dims, sub = dims + ["1"], outer + ["0"]
        else:
            sub = outer
        index[i] = f"o[{', '.join([str(row)] + sub)}]" if packed else f"o{i}[{', '.join(sub)}]"
        if not packed:
            lines.append(f"    o{i} = np.empty(({', '.join(dims)},), {_np_name(meta[i][1])})")
    if packed:
        lines.append(f"    o = np.empty(({len(group.outs)}, {', '.join(dims)}), "
                     f"{_np_name(meta[i][1])})")
    lines += [f"    s{x} = np.empty(n{rank - 1}, {_np_name(meta[x][1])})" for x in sorted(scratch)]
    pad = "    "
    for k in range(rank - 1):
        lines.append(f"{pad}for i{k} in range(n{k}):")
        pad += "    "
    stored = set()
    for p in range(max(p for _, p in places) + 1):
        loads, body, _ = blocks.get(("row", p), ([], [], None))
        lines += [pad + x for x in loads + body]
        for m, (where, q) in zip(members, places):
            if where == "row" and q == p and m.outs[0] in index:
                lines.append(f"{pad}{index[m.outs[0]]} = v{m.outs[0]}")
        if ("loop", p) not in blocks:
            continue
        mine = [m for m, q in reductions if q == p]
        for m in mine:
            start = "-np.inf" if type(m.prim) is R.ReduceMax else "0.0"
            lines.append(f"{pad}acc{m.outs[0]} = {start}")
        lines.append(f"{pad}for {last} in range(n{rank - 1}):")
        loads, body, _ = blocks[("loop", p)]
        inner = pad + "    "
        lines += [inner + x for x in loads + body]
        for m, (where, q) in zip(members, places):
            i = m.outs[0]
            if where != "loop" or q != p or type(m.prim) in _fuse.REDUCTIONS:
                continue
            if i in index and i not in stored:
                lines.append(f"{inner}{index[i]} = v{i}")
                stored.add(i)
            if i in scratch:
                lines.append(f"{inner}s{i}[{last}] = v{i}")
        for m in mine:
            i = m.outs[0]
            value = f"acc{i} / n{rank - 1}" if type(m.prim) is R.ReduceMean else f"acc{i}"
            lines.append(f"{pad}v{i} = {_np_name(meta[i][1])}({value})")
            if i in index:
                lines.append(f"{pad}{index[i]} = v{i}")
    return _PREAMBLE + "\n".join(lines + ["    return o" if packed else
                                          _returned(group.outs)]) + "\n"


def _own(x, routes):
    """Whether group input `x` (a value id or a ("c", constant)) is a kernel argument of its
    own, not a row of a pack in `routes`."""
    return type(x) is not int or x not in routes


def _params(ins, routes, n_packs):
    return [f"a{k}" for k, x in enumerate(ins) if _own(x, routes)] + \
        [f"p{q}" for q in range(n_packs)]


def _returned(outs):
    names = [f"o{i}" for i in outs]
    return "    return " + (names[0] if len(names) == 1 else "(" + ", ".join(names) + ")")


def packs(group):
    """Whether `group`'s kernel returns its outputs as the rows of one array (PACK_MIN or more
    outputs of one shape and dtype, not 0-d): numba boxes each returned array (~1 us), a row of
    the packed one costs an index in the replay."""
    outs = group.outs
    return len(outs) >= PACK_MIN and bool(group.shape) and \
        len({group.meta[i] for i in outs}) == 1


def _holds(path, source):
    """Whether the file at `path` holds exactly `source` (a cached kernel file is run only then:
    a truncated or edited file is written again, never imported)."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read() == source
    except (OSError, UnicodeDecodeError):
        return False


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
        if not _holds(path, source):  # absent, or not what its name promises: (re)written
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
    packed = {}  # value id -> (the numba group whose kernel packs it, its row)
    for group in _fuse.fused_groups(trace):
        group.routes, group.pack_sources = {}, ()
        slow = [type(m.prim).__name__ for m in group.members if type(m.prim) in SIMD_BOUND or
                getattr(m.prim, "approximate", None) == "tanh"]
        size = math.prod(group.shape)
        if slow and size > SIMD_ELEMENTS:
            group.backend = (f"numpy ({slow[0]} over {size} elements: NumPy's SIMD loop is "
                             "faster than a kernel's scalar code)")
            continue
        routes, sources = _routes(group, packed)
        try:
            source = kernel_source(group, routes, len(sources))
            fn = load(source)
            sample = [np.zeros(*group.meta[x]) if type(x) is int else x[1] for x in group.ins
                      if _own(x, routes)]
            sample += [np.zeros((len(p.outs), *p.shape), p.meta[p.outs[0]][1]) for p in sources]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = fn(*sample)
            got = tuple(got) if len(group.outs) > 1 else (got,)
            if [(a.shape, a.dtype) for a in got] != [group.meta[i] for i in group.outs]:
                raise TypeError(f"the kernel gave {[(a.shape, a.dtype) for a in got]}")
        except Exception as e:  # noqa: BLE001 (any failure keeps the group's NumPy calls)
            group.backend = f"numpy ({type(e).__name__}: {str(e).splitlines()[0][:200]})"
            continue
        group.kernel_source = source
        group.backend = "numba"
        group.kernel = fn
        group.forward = _unrouted(group, fn, sources) if routes else fn
        group.routes, group.pack_sources = routes, tuple(p.number for p in sources)
        if packs(group):
            packed.update((i, (group, row)) for row, i in enumerate(group.outs))
        made += 1
    return made


def _routes(group, packed):
    """The inputs of `group` its kernel reads as rows of an earlier kernel's packed output (the
    replay passes that one array, not each row: numba unboxes every array argument, ~60 ns
    each): ({value id: (q, row)}, the producing groups, q their order). A pack is taken when
    ROUTE_MIN or more of the group's inputs are rows of it, of the group's own shape."""
    by_source = {}
    for x in group.ins:
        if type(x) is int and x in packed and group.meta[x][0] == group.shape:
            source, row = packed[x]
            if source.shape == group.shape:
                by_source.setdefault(source, []).append((x, row))
    sources = [p for p, rows in by_source.items() if len(rows) >= ROUTE_MIN]
    return {x: (q, row) for q, p in enumerate(sources) for x, row in by_source[p]}, sources


def _unrouted(group, fn, sources):
    """`group`'s forward on its inputs one array each (as Trace.interpret calls it): each pack
    its kernel reads is made again from the rows (the generated replay passes the packs)."""
    def forward(*arrays):
        packs = [np.empty((len(p.outs), *p.shape), p.meta[p.outs[0]][1]) for p in sources]
        own = []
        for x, a in zip(group.ins, arrays):
            if _own(x, group.routes):
                own.append(a)
            else:
                q, row = group.routes[x]
                packs[q][row] = a
        return fn(*own, *packs)
    return forward
