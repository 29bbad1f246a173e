"""What a profiler writes: the per-op table (CSV and text) and the Chrome trace-event JSON."""
import csv
import json
import os

OP_CATEGORIES = ("forward", "backward", "bprop")
TRACE_FILE = "trace_view.json"
TABLE_CSV = "op_statistic.csv"
TABLE_TEXT = "op_table.txt"
EVENTS_FILE = "minispore_events.json"
CSV_HEADER = ("Op Name", "Category", "Calls", "Total Time(us)", "Avg Time(us)", "Min Time(us)",
              "Max Time(us)", "Ratio(%)", "Output Bytes")


def op_rows(events, categories=OP_CATEGORIES):
    """Per (name, category), sorted by total self time (descending): dicts with 'name',
    'category', 'calls', 'total_us', 'mean_us', 'min_us', 'max_us', 'share' (percent of the
    summed total of these rows) and 'bytes'."""
    groups = {}
    for name, category, _, _, self_ns, _, nbytes in events:
        if category not in categories:
            continue
        g = groups.get((name, category))
        if g is None:
            groups[(name, category)] = [1, self_ns, self_ns, self_ns, nbytes]
        else:
            g[0] += 1
            g[1] += self_ns
            g[2] = min(g[2], self_ns)
            g[3] = max(g[3], self_ns)
            g[4] += nbytes
    total = sum(g[1] for g in groups.values()) or 1
    rows = [{"name": name, "category": category, "calls": g[0], "total_us": g[1] / 1e3,
             "mean_us": g[1] / g[0] / 1e3, "min_us": g[2] / 1e3, "max_us": g[3] / 1e3,
             "share": 100.0 * g[1] / total, "bytes": g[4]}
            for (name, category), g in groups.items()]
    rows.sort(key=lambda r: (-r["total_us"], r["name"], r["category"]))
    return rows


def span_rows(events, categories):
    """Per (name, category) of containers (cells, dataset stages): inclusive times."""
    groups = {}
    for name, category, _, duration, _, _, _ in events:
        if category in categories:
            g = groups.setdefault((name, category), [0, 0])
            g[0] += 1
            g[1] += duration
    rows = [{"name": n, "category": c, "calls": g[0], "total_us": g[1] / 1e3,
             "mean_us": g[1] / g[0] / 1e3} for (n, c), g in groups.items()]
    rows.sort(key=lambda r: (-r["total_us"], r["name"]))
    return rows


def trace(events, origin_ns, pid, metadata, thread_names):
    """The Chrome trace-event document (complete 'X' events in microseconds from `origin_ns`;
    marks as instant 'i' events)."""
    out = [{"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
            "args": {"name": "minispore"}}]
    tids = {}
    for tid in sorted({e[5] for e in events}):
        tids[tid] = len(tids) + 1
        out.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tids[tid],
                    "args": {"name": thread_names.get(tid, f"thread {tid}")}})
    for name, category, start, duration, self_ns, tid, nbytes in events:
        event = {"name": name, "cat": category, "pid": pid, "tid": tids[tid],
                 "ts": (start - origin_ns) / 1e3}
        if category == "mark":
            event.update(ph="i", s="t")
        else:
            event.update(ph="X", dur=duration / 1e3)
            if category in OP_CATEGORIES:
                event["args"] = {"self_us": self_ns / 1e3, "output_bytes": nbytes}
        out.append(event)
    return {"traceEvents": out, "displayTimeUnit": "ms", "otherData": metadata}


def _format_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def text_table(ops, containers, wall_us, step_count):
    """The human-readable report: the op table, then cells, optimizer steps and dataset stages."""
    op_total = sum(r["total_us"] for r in ops)
    lines = [f"minispore profile: {wall_us / 1e3:.3f} ms recorded"
             + (f" over {step_count} steps" if step_count else "")
             + f"; primitives {op_total / 1e3:.3f} ms"
             + (f" ({100 * op_total / wall_us:.1f} % of it)" if wall_us else ""),
             "",
             (f"{'Op':<32} {'Category':<9} {'Calls':>7} {'Total ms':>10} {'Mean us':>10} "
              f"{'Share %':>8} {'Output':>10}")]
    lines.append("-" * len(lines[-1]))
    for r in ops:
        lines.append(f"{r['name'][:32]:<32} {r['category']:<9} {r['calls']:>7} "
                     f"{r['total_us'] / 1e3:>10.3f} {r['mean_us']:>10.2f} {r['share']:>8.2f} "
                     f"{_format_bytes(r['bytes']):>10}")
    if containers:
        lines += ["", "Cells, optimizer steps, dataset stages and ranges (inclusive times):",
                  f"{'Name':<41} {'Category':<9} {'Calls':>7} {'Total ms':>10} {'Mean us':>10}"]
        lines.append("-" * len(lines[-1]))
        for r in containers:
            lines.append(f"{r['name'][:41]:<41} {r['category']:<9} {r['calls']:>7} "
                         f"{r['total_us'] / 1e3:>10.3f} {r['mean_us']:>10.2f}")
    return "\n".join(lines) + "\n"


def write(folder, events, origin_ns, wall_ns, pid, metadata, thread_names, pretty=False):
    """Write the trace, the CSV and text tables and the raw events into `folder`."""
    os.makedirs(folder, exist_ok=True)
    ops = op_rows(events)
    containers = span_rows(events, ("cell", "optimizer", "dataset", "range"))
    steps = sum(1 for e in events if e[1] == "step")
    with open(os.path.join(folder, TRACE_FILE), "w", encoding="utf-8") as f:
        json.dump(trace(events, origin_ns, pid, metadata, thread_names), f,
                  indent=2 if pretty else None)
    with open(os.path.join(folder, TABLE_CSV), "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_HEADER)
        for r in ops:
            writer.writerow((r["name"], r["category"], r["calls"], f"{r['total_us']:.3f}",
                             f"{r['mean_us']:.3f}", f"{r['min_us']:.3f}", f"{r['max_us']:.3f}",
                             f"{r['share']:.3f}", r["bytes"]))
    with open(os.path.join(folder, TABLE_TEXT), "w", encoding="utf-8") as f:
        f.write(text_table(ops, containers, wall_ns / 1e3, steps))
    with open(os.path.join(folder, EVENTS_FILE), "w", encoding="utf-8") as f:
        json.dump({"origin_ns": origin_ns, "wall_ns": wall_ns, "pid": pid,
                   "metadata": metadata,
                   "thread_names": {str(k): v for k, v in thread_names.items()},
                   "events": [list(e) for e in events]}, f)
    return ops


def rewrite(folder, pretty=False, step_list=None):
    """Write the outputs of `folder` again from its raw events (offline analysis)."""
    with open(os.path.join(folder, EVENTS_FILE), encoding="utf-8") as f:
        raw = json.load(f)
    events = [tuple(e) for e in raw["events"]]
    if step_list is not None:
        events = select_steps(events, step_list)
    write(folder, events, raw["origin_ns"], raw["wall_ns"], raw["pid"], raw["metadata"],
          {int(k): v for k, v in raw["thread_names"].items()}, pretty)


def select_steps(events, step_list):
    """The events that start inside the steps numbered in `step_list` (the 'step N' spans)."""
    wanted = {f"step {k}" for k in step_list}
    spans = [(e[2], e[2] + e[3]) for e in events if e[1] == "step" and e[0] in wanted]
    return [e for e in events if any(a <= e[2] < b for a, b in spans)]
