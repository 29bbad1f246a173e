"""What happens to a trace between its capture and its first replay: the passes, fusion, the
backend's kernels, the node counts in `stats`, the stages kept for `ir(stage)`, the dumps."""
import os
import warnings

from . import dump, kernels
from .fuse import expand, fuse, fused_groups
from .passes import node_count, optimize

BACKEND_ENV = "MINISPORE_JIT_BACKEND"
# MindSpore's names ("ms_backend", "GE") and "" take the process default ($MINISPORE_JIT_BACKEND)
JIT_BACKENDS = ("", "ms_backend", "GE", "numpy", "numba")
_warned = set()


def _warn_once(message):
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, RuntimeWarning, stacklevel=4)


def resolve_backend(requested, kernels_needed=True):
    """"numpy" or "numba": `requested` when it names one, else `$MINISPORE_JIT_BACKEND`, else
    "numpy"; "numba" without an importable numba gives "numpy" (with a warning, once). numba is
    imported only when `kernels_needed` (a trace with fused groups)."""
    name = requested if requested in ("numpy", "numba") else \
        os.environ.get(BACKEND_ENV, "") or "numpy"
    if name not in ("numpy", "numba"):
        _warn_once(f"{BACKEND_ENV}={name!r} is not 'numpy' or 'numba'; using 'numpy'")
        return "numpy"
    if name == "numba" and kernels_needed and kernels.numba_version() is None:
        _warn_once("the jit backend 'numba' needs numba (pip install minispore[jit]); the "
                   "fused groups run as NumPy calls")
        return "numpy"
    return name


def compile_trace(jitted, trace):
    """The trace to replay for the captured `trace`: optimised, and with the numba backend its
    fused groups as kernels; recorded on `jitted` (stats and stages) and dumped when asked. The
    NumPy backend replays the optimised trace (the fused stage is kept for the dumps only)."""
    optimized = optimize(trace)
    fused = fuse(optimized)
    groups = fused_groups(fused)
    backend = resolve_backend(getattr(jitted, "backend", ""), bool(groups))
    run = optimized
    if backend == "numba" and groups:
        kernels.attach(fused)
        # the groups left to NumPy run as their members, under the memory plan
        run = expand(fused, lambda g: g.backend == "numba")
        if not fused_groups(run):
            run = optimized
    stats = jitted.stats
    stats["nodes"].append((node_count(trace), node_count(optimized)))
    stats.setdefault("fused", []).append((len(groups), sum(len(g.members) for g in groups)))
    stats["backend"] = backend
    jitted.stages.append({"captured": trace, "optimized": optimized, "fused": fused, "run": run})
    dump.save(jitted, len(jitted.stages) - 1)
    return run
