"""`set_cpu_affinity`: bind the process's compute to chosen CPU cores (docs/runtime.md).

MindSpore binds its modules' threads (main, runtime, pynative, minddata) to cores. minispore runs
every op on the calling thread, so the 'main' module is what there is to bind: the calling
thread is bound with `os.sched_setaffinity`, and threads and dataset workers it starts later
inherit its cores. The other modules have no threads of their own here; their entries are
checked as MindSpore checks them.
"""
import json
import os
import re
import threading
import warnings

from .context import get_context

__all__ = ["set_cpu_affinity"]

MODULES = ("main", "runtime", "pynative", "minddata")
_RANGES = re.compile(r"^(\d+-\d+|\d+)(,(\d+-\d+|\d+))*$")
_state = {"configured": False}
_lock = threading.Lock()


def _check_cpu_list(cpu_list):
    if cpu_list is None:
        return
    if not isinstance(cpu_list, list):
        raise TypeError(f"For 'set_cpu_affinity', 'affinity_cpu_list' must be a list, but got "
                        f"{type(cpu_list).__name__}")
    for item in cpu_list:
        if not isinstance(item, str):  # MindSpore 2.10 raises ValueError (its docs: TypeError)
            raise ValueError(f"For 'set_cpu_affinity', CPU range {item!r} in 'affinity_cpu_list' "
                            f"must be a str, but got {type(item).__name__}")
        if not _RANGES.match(item):
            raise ValueError(f"For 'set_cpu_affinity', CPU range {item!r} in "
                             "'affinity_cpu_list' must be in the format 'cpuidX-cpuidY' or "
                             "'cpuidX,cpuidY,cpuidZ'")


def _check_module_dict(module_dict):
    if module_dict is None:
        return
    if not isinstance(module_dict, dict):
        raise TypeError(f"For 'set_cpu_affinity', 'module_to_cpu_dict' must be a dict, but got "
                        f"{type(module_dict).__name__}")
    for module, indices in module_dict.items():
        if not isinstance(module, str):
            raise TypeError(f"For 'set_cpu_affinity', the keys of 'module_to_cpu_dict' must be "
                            f"str, but got {type(module).__name__}")
        if not isinstance(indices, list):  # ValueError in MindSpore 2.10 (its docs: TypeError)
            raise ValueError(f"For 'set_cpu_affinity', the value of module_to_cpu_dict[{module!r}] "
                            f"must be a list, but got {type(indices).__name__}")
        for k in indices:
            if isinstance(k, bool) or not isinstance(k, int) or k < 0:
                raise ValueError(f"For 'set_cpu_affinity', CPU index {k!r} of module {module!r} "
                                 "must be a non-negative int")


def _expand(ranges):
    """CPU ids of a range string such as '0-3,8'."""
    cpus = []
    for segment in str(ranges).split(","):
        segment = segment.strip()
        if not segment:
            continue
        lo, _, hi = segment.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


def _from_bind_file(path):
    """(affinity_cpu_list, module_to_cpu_dict) for this device from a bind JSON file, or None
    when the file binds no CPUs for it."""
    try:
        with open(path, encoding="utf-8") as f:
            content = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"For 'set_cpu_affinity', the bind_file {path!r} cannot be read as "
                         f"JSON: {e}") from None
    if str(content.get("bind_config", {}).get("bind_cpu_mode", "none")).lower() != "cpu":
        warnings.warn(f"bind_file {path!r} does not set 'bind_cpu_mode' to 'cpu': no CPUs "
                      "are bound")
        return None
    bind_cpu = content.get("bind_cpu", {})
    if not isinstance(bind_cpu, dict):
        raise ValueError(f"For 'set_cpu_affinity', 'bind_cpu' in bind_file {path!r} must be a "
                         "dict")
    device = get_context("device_id")
    entry = bind_cpu.get(f"device{device}", bind_cpu.get(f"device_{device}"))
    if not isinstance(entry, dict):
        warnings.warn(f"bind_file {path!r} binds no CPUs for device{device}")
        return None
    modules = {m: _expand(r) for m, r in entry.items()}
    cpus = sorted({c for ids in modules.values() for c in ids})
    index = {c: k for k, c in enumerate(cpus)}
    return [",".join(map(str, cpus))], {m: [index[c] for c in ids] for m, ids in modules.items()}


def set_cpu_affinity(enable_affinity, affinity_cpu_list=None, module_to_cpu_dict=None,
                     bind_file=None):
    """Bind the calling thread (MindSpore's 'main' module) to CPU cores, once per process.

    `affinity_cpu_list`: the cores to use, as range strings (`["0-3", "8,9"]`; a dict keys them
    by `"device<id>"`, as msrun writes them); None uses every core this process may run on.
    `module_to_cpu_dict`: per module, indices into those cores (`{"main": [0, 1]}`; without
    it 'main' takes them all). `bind_file`: a JSON file giving both per device (its
    `bind_cpu` table), which takes precedence.
    """
    # MindSpore 2.10 takes any truthy value for `enable_affinity` (its docs say a bool)
    if isinstance(affinity_cpu_list, dict):
        key = f"device{get_context('device_id')}"
        if key not in affinity_cpu_list:
            warnings.warn(f"set_cpu_affinity is not enabled: 'affinity_cpu_list' has no entry "
                          f"for {key}")
            return
        affinity_cpu_list = affinity_cpu_list[key]
    with _lock:
        if _state["configured"]:
            raise RuntimeError("The 'set_cpu_affinity' cannot be set repeatedly.")
        if not enable_affinity:
            _state["configured"] = True
            return
        if bind_file is not None:
            found = _from_bind_file(os.path.abspath(bind_file))
            if found is None:
                _state["configured"] = True
                return
            affinity_cpu_list, module_to_cpu_dict = found
        _check_cpu_list(affinity_cpu_list)
        _check_module_dict(module_to_cpu_dict)
        available = sorted(os.sched_getaffinity(0))
        if affinity_cpu_list:
            cpus = []
            for item in affinity_cpu_list:
                for c in _expand(item):
                    if c not in available:
                        raise RuntimeError(f"For 'set_cpu_affinity', CPU {c} of "
                                           f"'affinity_cpu_list' {affinity_cpu_list} is not "
                                           f"available to this process (available: "
                                           f"{available})")
                    cpus.append(c)
        else:
            cpus = available
        if module_to_cpu_dict:
            main = [cpus[k] for k in module_to_cpu_dict.get("main", ()) if k < len(cpus)]
        else:
            main = cpus
        _state["configured"] = True
        if main:
            os.sched_setaffinity(0, main)
