"""What happens to a trace between its capture and its first replay: the passes, the node counts
in `stats["nodes"]`, the stages kept for `ir(stage)`, the dumps."""
from . import dump
from .passes import node_count, optimize


def compile_trace(jitted, trace):
    """The optimised `trace`, recorded on `jitted` (stats and stages) and dumped when asked."""
    optimized = optimize(trace)
    jitted.stats["nodes"].append((node_count(trace), node_count(optimized)))
    jitted.stages.append({"captured": trace, "optimized": optimized})
    dump.save(jitted, len(jitted.stages) - 1)
    return optimized
