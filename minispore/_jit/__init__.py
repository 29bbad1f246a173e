"""Graph mode: capture a function's primitives once per input signature and replay them
(docs/graph_mode.md)."""
from .pipeline import JIT_BACKENDS
from .runtime import MAX_TRACES, Jitted, cell_stats, graph_call

__all__ = ["JIT_BACKENDS", "MAX_TRACES", "Jitted", "cell_stats", "graph_call"]
