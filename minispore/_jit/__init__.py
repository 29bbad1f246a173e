"""Graph mode: capture a function's primitives once per input signature and replay them
(docs/graph_mode.md)."""
from .runtime import MAX_TRACES, Jitted, cell_stats, graph_call

__all__ = ["MAX_TRACES", "Jitted", "cell_stats", "graph_call"]
