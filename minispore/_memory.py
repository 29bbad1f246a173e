"""MindSpore's memory-pool statistics, answered on the host (docs/memory.md).

minispore has no device memory pool: tensors live in NumPy arrays that the C library's allocator
serves, inside the process's memory. So each statistic gets the nearest host meaning:

- allocated: the bytes of data held by the Tensors (and Parameters) alive now, each buffer
  counted once however many tensors view it. Counted when asked, by walking the objects the
  garbage collector tracks: the ops pay nothing for it.
- reserved: the process's resident set size (what the system has given it and it holds), and its
  peak: the kernel's high-water mark, which `reset_max_memory_reserved` resets (Linux
  /proc/self/clear_refs).
- idle: what the allocator holds free inside the process (glibc `mallinfo2`), which
  `empty_cache` hands back to the system.

There is no peak of allocated bytes (it would need accounting on every op), so
`max_memory_allocated` is not offered. MindSpore's CPU backend answers 0 for all of these.
"""
import ctypes
import gc

import numpy as np

from . import _allocator
from .common.tensor import Tensor

__all__ = [
    "empty_cache",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "memory_summary",
    "ms_memory_recycle",
    "reset_max_memory_reserved",
    "reset_peak_memory_stats",
]



def _owner(arr):
    """The array that owns `arr`'s memory (the end of its chain of NumPy bases)."""
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


def memory_allocated():
    """Bytes of data held by the Tensors alive now (each buffer counted once)."""
    owners = {}
    tensor_types = (Tensor,)
    for obj in gc.get_objects():
        # the type, not isinstance: that reads `__class__`, which some objects compute (and warn)
        if issubclass(type(obj), tensor_types):
            data = getattr(obj, "_data", None)  # a lazy Parameter holds none yet
            if isinstance(data, np.ndarray):
                owner = _owner(data)
                owners[id(owner)] = owner.nbytes
    return sum(owners.values())


def _status_bytes(field):
    """A `VmXXX:  N kB` field of /proc/self/status, in bytes."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    raise RuntimeError(f"the process's {field} is unknown here: the memory statistics read "
                       "Linux's /proc/self/status")


def memory_reserved():
    """Bytes of memory the process holds now (its resident set size)."""
    return _status_bytes("VmRSS")


def max_memory_reserved():
    """The peak of `memory_reserved` since the process started or since the last
    `reset_max_memory_reserved` / `reset_peak_memory_stats` (the kernel's high-water mark)."""
    return _status_bytes("VmHWM")


def reset_max_memory_reserved():
    """Start the peak of `max_memory_reserved` again from the memory held now."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")  # the kernel resets the resident high-water mark
    except OSError as e:
        raise RuntimeError(f"For 'reset_max_memory_reserved', the kernel refused to reset the "
                           f"peak resident memory: {e}") from None


def reset_peak_memory_stats():
    """Reset every peak these statistics keep (the reserved peak)."""
    reset_max_memory_reserved()


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                 "uordblks", "fordblks", "keepcost")]


def _idle_bytes():
    """Bytes the allocator holds free inside the process (glibc), or 0 where unknown."""
    libc = _allocator._libc()
    fn = getattr(libc, "mallinfo2", None) if libc is not None else None
    if fn is None:
        return 0
    fn.restype = _MallInfo2
    return int(fn().fordblks)


def memory_stats():
    """The statistics as one dict, with MindSpore's keys (the pool sub-dicts describe the
    allocator's heap: one block, its size the heap's)."""
    allocated, reserved, idle = memory_allocated(), memory_reserved(), _idle_bytes()
    pool = {"block_unit_size": reserved, "block_counts": 1, "blocks_info": {}}
    return {"total_reserved_memory": reserved, "total_allocated_memory": allocated,
            "total_idle_memory": idle, "total_eager_free_memory": 0,
            "max_reserved_memory": max_memory_reserved(),
            "common_mem_pool_stats": pool,
            "persistent_mem_pool_stats": {"block_unit_size": 0, "block_counts": 0,
                                          "blocks_info": {}}}


def _format_size(n):
    """`n` bytes in the largest unit that keeps it at 768 or more of that unit."""
    units = ["B  ", "KB", "MB", "GB", "TB", "PB"]
    k, scaled = 0, float(n)
    while k + 1 < len(units) and scaled >= 768 * 1024:
        scaled /= 1024
        n //= 1024
        k += 1
    return f"{n:6d} {units[k]}"


def memory_summary():
    """`memory_stats` as a table, one row per statistic (MindSpore's layout)."""
    stats = memory_stats()
    rows = [("total_reserved_memory", "Reserved memory"),
            ("total_allocated_memory", "Allocated memory"),
            ("total_idle_memory", "Idle memory"),
            ("total_eager_free_memory", "Eager free memory"),
            ("max_reserved_memory", "Max reserved memory")]
    rule, title = "=" * 45, " {:^43} ".format("Memory summary")
    lines = [rule, title, rule, " {:<20} | {:<20} ".format("Metric", "Data")]
    for key, label in rows:
        lines.append("-" * 45)
        lines.append(f" {label:<20} | {_format_size(stats[key]):<20} ")
    lines.append(rule)
    return "|" + "|\n|".join(lines) + "|\n"


def empty_cache():
    """Hand the memory the allocator holds free back to the system (glibc `malloc_trim`)."""
    _allocator.release()


def ms_memory_recycle():
    """Free what earlier models left behind: collect unreachable objects (with their arrays),
    then hand the allocator's free memory back to the system."""
    gc.collect()
    _allocator.release()
