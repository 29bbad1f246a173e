"""Shared benchmark plumbing: interleaved timing and the comparison table.

The machines are shared and noisy: contenders are timed in alternation (one call of each per
round), and each is reported by its best time and by the median, over rounds, of its time divided
by the floor's time in the same round (a slow spell hits both sides of that ratio alike)."""
import statistics
import time


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
    best, ratios = summarize(rounds, floor_index)
    print(title)
    print(f"{'':18s} {'best ' + unit:>10s} {'x numpy (median of rounds)':>28s}")
    for name, s, r in zip(names, best, ratios):
        print(f"{name:18s} {s * scale:10.3f} {r:28.3f}")
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
    first step in a fresh process, so that no allocator has memory cached from an earlier one."""
    import gc
    gc.collect()
    before = rss_kib()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current RSS
    result = step()
    return (rss_kib("VmHWM") - before) / 1024, result
