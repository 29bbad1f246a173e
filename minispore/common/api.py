"""`jit`: MindSpore's graph-compilation decorator. A jitted function is captured on its first call
for each input signature and replayed after (docs/graph_mode.md); what cannot be replayed exactly
runs eagerly."""
import functools

from .._jit import JIT_BACKENDS, Jitted

__all__ = ["JitConfig", "jit", "jit_class"]


def jit(function=None, *, capture_mode="ast", jit_level="O0", dynamic=0, fullgraph=False,
        backend="", **options):
    """Compile `function` by capture and replay: the first call for an input signature (tensor
    shapes and dtypes, Python scalars by value, argument structure, Parameter identity, a Cell's
    training flag) runs eagerly while every primitive is recorded; later calls replay the
    primitives' forwards on the new inputs, optimised (folding, exact simplification, CSE, DCE,
    a memory plan). Gradients taken inside (`grad`, `value_and_grad`), BatchNorm's statistics
    writes and optimizer updates (run as Python at every replay) are part of the capture, so a
    whole train step is one graph. Tensor-to-Python conversions (`bool`, `int`, `float`, `item`,
    `tolist`) are guards: a different value captures again (at most 8 captures per function,
    then eager). Functions that write tensors in place otherwise, read tensor data into NumPy or
    print, or change Python state run eagerly; `jitted.stats` says why. Called under `grad` or
    `value_and_grad`, the replayed forward is one tape node whose backward replays the captured
    VJP graph; under grad of grad that node's first backward is a jitted function too (one
    node whose bprop replays its VJP graph); above that and under `jvp`, `vjp`, `linearize`,
    the Jacobians and `hvp` the forward replays and eager's nodes are put on the tape
    (gradients equal eager's to any order).

    Usable as `@jit` or `@jit(...)`. `capture_mode` ('ast', 'bytecode', 'trace') all capture by
    tracing; every `jit_level` runs the same exact passes; `dynamic` is accepted and checked, not
    acted on. `backend`: MindSpore's "ms_backend" and "GE" (and "") take the process default,
    `$MINISPORE_JIT_BACKEND` ("numpy" unless set); minispore adds "numpy" (replay bitwise equal
    to eager) and "numba" (fused groups run as compiled numba kernels, within float tolerance;
    the `jit` extra) (docs/graph_mode.md, "Fusion, backends and the kernel cache");
    `fullgraph=True` raises RuntimeError where the function would run eagerly.
    """
    if backend not in JIT_BACKENDS:
        raise ValueError(f"For 'jit', 'backend' must be one of {JIT_BACKENDS}, but got "
                         f"{backend!r}")
    if capture_mode not in ("ast", "bytecode", "trace"):
        raise ValueError(f"For 'jit', 'capture_mode' must be 'ast', 'bytecode' or 'trace', but "
                         f"got {capture_mode!r}")

    def wrap(fn):
        if not callable(fn):
            raise TypeError(f"For 'jit', the decorated object must be callable, but got "
                            f"{type(fn).__name__}")
        compiled = Jitted(fn, fullgraph=bool(fullgraph), backend=backend)

        @functools.wraps(fn)
        def jitted(*args, **kwargs):
            return compiled(*args, **kwargs)
        jitted.stats = compiled.stats
        jitted.graphs = compiled.graphs
        jitted.ir = compiled.ir
        jitted.compiled = compiled
        return jitted

    return wrap if function is None else wrap(function)


def jit_class(cls):
    """Accepted for compatibility; returns the class unchanged."""
    return cls


class JitConfig:
    """Options for compiling a Cell (`cell.set_jit_config(JitConfig(jit_level="O1"))`), kept in
    `jit_config_dict`. The options are recorded, checked and reported; graph capture (GRAPH_MODE,
    `jit`) runs the same exact passes whatever they say."""

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE",
                 infer_boost="off", **kwargs):
        for name, value, allowed in (("jit_level", jit_level, ("", "O0", "O1", "O2")),
                                     ("exc_mode", exc_mode, ("auto", "sink", "no_sink")),
                                     ("jit_syntax_level", jit_syntax_level,
                                      ("", "STRICT", "COMPATIBLE", "LAX")),
                                     ("debug_level", debug_level, ("RELEASE", "DEBUG")),
                                     ("infer_boost", infer_boost, ("on", "off"))):
            if value not in allowed:
                raise ValueError(f"For 'JitConfig', '{name}' must be one of {allowed}, but got "
                                 f"{value!r}")
        self.jit_config_dict = {"jit_level": jit_level, "exc_mode": exc_mode,
                                "jit_syntax_level": jit_syntax_level, "debug_level": debug_level,
                                "infer_boost": infer_boost, **kwargs}
