"""Shared benchmark plumbing: interleaved timing and the comparison table.

The machines are shared and noisy: contenders are timed in alternation (one call of each per
round), and each is reported by its best time and by the median, over rounds, of its time divided
by the floor's time in the same round (a slow spell hits both sides of that ratio alike)."""
import importlib.util
import os
import statistics
import time

_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def interleaved_rounds(cases, repeat, warmup=2):
    """Seconds per call of each zero-argument callable, one row per round."""
    for _ in range(warmup):
        for fn in cases:
            fn()
    rounds = []
    for _ in range(repeat):
        row = []
        for fn in cases:
            t0 = time.perf_counter()
            fn()
            row.append(time.perf_counter() - t0)
        rounds.append(row)
    return rounds


def interleaved_best(cases, repeat, warmup=2):
    """Min seconds per call of each callable, timed in alternation."""
    rounds = interleaved_rounds(cases, repeat, warmup)
    return [min(col) for col in zip(*rounds)]


def summarize(rounds, floor_index=0):
    """(best seconds, median ratio to the floor in the same round) per case."""
    best = [min(col) for col in zip(*rounds)]
    ratios = [statistics.median(r[k] / r[floor_index] for r in rounds)
              for k in range(len(rounds[0]))]
    return best, ratios


def print_table(title, names, rounds, floor_index=0, unit="ms", scale=1e3):
    """The table: best time, and the median over rounds of the ratio to the floor and (when
    PyTorch ran) to PyTorch eager."""
    best, ratios = summarize(rounds, floor_index)
    vs_torch = None
    if "pytorch eager" in names:
        vs_torch = summarize(rounds, names.index("pytorch eager"))[1]
    print(title)
    header = f"{'':18s} {'best ' + unit:>10s} {'x numpy (median of rounds)':>28s}"
    print(header + (f" {'x pytorch':>10s}" if vs_torch else ""))
    for k, (name, s, r) in enumerate(zip(names, best, ratios)):
        print(f"{name:18s} {s * scale:10.3f} {r:28.3f}"
              + (f" {vs_torch[k]:10.3f}" if vs_torch else ""))
    return best, ratios


def torch_or_none():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


# ---- peak memory -----------------------------------------------------------------------------------

def rss_kib(field="VmRSS"):
    """This process's resident set (or another /proc/self/status field, e.g. VmHWM) in KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def peak_extra_mib(step):
    """(peak RSS above the current one while `step()` runs, in MiB; step's result). Meant for the
    first step in a fresh process, so that no allocator has memory cached from an earlier one
    (the heap's free memory, kept by raised malloc thresholds, is handed back first)."""
    import gc
    gc.collect()
    allocator().release()
    before = rss_kib()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current RSS
    result = step()
    return (rss_kib("VmHWM") - before) / 1024, result


# ---- the allocator lever ---------------------------------------------------------------------------

def allocator():
    """minispore._allocator, loaded by path so that a contender process need not import
    minispore."""
    spec = importlib.util.spec_from_file_location(
        "_minispore_allocator", os.path.join(_ROOT, "minispore", "_allocator.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def malloc_setup():
    """Apply MINISPORE_MALLOC ('tuned' unless set to 'default') to this whole process, every
    contender alike, as importing minispore does; the mode in force, for the table's title."""
    return allocator().apply_default()


def numba_or_none():
    """numba's version when it is installed (the `jit` extra: `jit(backend="numba")`), else
    None."""
    try:
        import numba
    except ImportError:
        return None
    return numba.__version__


def first_calls(jitted, *args):
    """Seconds of the first call of a jitted function (capture, passes, fusion, the backend's
    kernels) and of the second (the first replay), and its fused (groups, nodes) per trace."""
    t0 = time.perf_counter()
    jitted(*args)
    t1 = time.perf_counter()
    jitted(*args)
    return t1 - t0, time.perf_counter() - t1, jitted.stats.get("fused")
