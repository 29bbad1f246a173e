"""IR dumps (docs/graph_mode.md, "Dumps"): each trace's IR text as captured, as optimised and
with its fused groups (each group's nodes listed below the trace), and the generated replay
source, kept per jitted function (`ir(stage)`) and written to files when
`set_context(save_graphs=...)` is above 0."""
import itertools
import os
import re

from .. import context
from .capture import _const_text
from .fuse import fused_groups
from .passes import node_count

STAGES = ("captured", "optimized", "fused", "replay")
_serial = itertools.count()


def source(trace):
    """The generated replay source of `trace` (lowered now if no replay has lowered it yet)."""
    trace.lower()
    return trace.source


def text(name, number, stage, trace, captured):
    """The IR of one stage of one trace, with a header naming the function and node counts."""
    head = (f"# graph {name}  trace {number}  stage {stage}  nodes {node_count(trace)} "
            f"(captured {node_count(captured)})")
    return head + "\n" + trace.text() + "\n" + groups_text(trace)


def groups_text(trace):
    """Each fused group of `trace`: its shape, backend and nodes, as comment lines."""
    lines = []
    for g in fused_groups(trace):
        lines.append(f"# {g!r}: {len(g.members)} nodes over {list(g.shape)}, backend "
                     f"{g.backend}, outputs " + ", ".join(f"%{i}" for i in g.outs))
        for m in g.members:
            ins = ", ".join(f"%{x}" if type(x) is int else _const_text(x[1]) for x in m.ins)
            outs = ", ".join(f"%{i}" for i in m.outs)
            lines.append(f"#   {outs} = {m.prim!r}({ins})")
    return "".join(line + "\n" for line in lines)


def stage_text(name, number, stage, stages):
    captured = stages["captured"]
    if stage == "replay":
        return source(stages.get("run", stages["optimized"]))
    return text(name, number, stage, stages[stage], captured)


def ir(jitted, stage="optimized"):
    """Each trace of `jitted`, in capture order, at `stage`: 'captured', 'optimized' and 'fused'
    give IR text, 'replay' the generated Python source of the trace the backend replays."""
    if stage not in STAGES:
        raise ValueError(f"For 'ir', 'stage' must be one of {STAGES}, but got {stage!r}")
    name = function_name(jitted.fn)
    return [stage_text(name, k, stage, stages) for k, stages in enumerate(jitted.stages)]


def function_name(fn):
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    return re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_") or "fn"


def save(jitted, number):
    """Write trace `number` of `jitted` at every stage into `save_graphs_path` when `save_graphs`
    is set: `<fn>_<serial>_<nn>_<stage>.ir` (and `.py` for the replay source), the serial counting
    the traces of the process, `nn` the stage's position. Returns the paths written."""
    if (context.get_context("save_graphs") or 0) < 1:
        return []
    directory = context.get_context("save_graphs_path")
    os.makedirs(directory, exist_ok=True)
    name = function_name(jitted.fn)
    serial = next(_serial)
    stages = jitted.stages[number]
    paths = []
    for n, stage in enumerate(STAGES):
        ext = ".py" if stage == "replay" else ".ir"
        path = os.path.join(directory, f"{name}_{serial:04d}_{n:02d}_{stage}{ext}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(stage_text(name, number, stage, stages))
        paths.append(path)
    return paths
