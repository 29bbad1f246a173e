"""The process allocator lever: glibc malloc thresholds for eager training loops.

Eager training frees and reallocates the same large NumPy buffers (activations, gradients,
GEMM outputs) on every step. glibc serves blocks above its mmap threshold (128 KiB at start,
raised dynamically up to 32 MiB) with fresh `mmap` pages, which the kernel zero-fills and
faults in on first touch, every step; and it returns the top of the heap to the system once more
than the trim threshold lies free there. Raising both thresholds keeps those blocks in the heap,
so a step reuses the pages the previous step freed.

The trade-off: up to `trim_threshold` bytes of freed memory stay mapped to the process after a
step (not a higher peak: the peak is what the step holds alive at once), and blocks below
`mmap_threshold` are served from the heap, where fragmentation can keep freed holes mapped.
`release()` hands the free memory back (glibc `malloc_trim`).

Only glibc (Linux) offers these knobs; elsewhere every function here is a no-op that says so.
"""
import ctypes
import os
import platform

M_TRIM_THRESHOLD = -1
M_TOP_PAD = -2
M_MMAP_THRESHOLD = -3

MIB = 1 << 20
MAX_MMAP_THRESHOLD = 32 * MIB  # glibc refuses more on 64-bit (HEAP_MAX_SIZE / 2)
TUNED = {"mmap_threshold": 32 * MIB, "trim_threshold": 256 * MIB, "top_pad": 16 * MIB}
GLIBC_DEFAULTS = {"mmap_threshold": 128 * 1024, "trim_threshold": 128 * 1024, "top_pad": 128 * 1024}
ENV_VAR = "MINISPORE_MALLOC"

_state = {"mode": "default", "settings": None}


def _libc():
    """glibc's handle, or None where the C library is not glibc."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        libc.mallopt.restype = ctypes.c_int
        libc.malloc_trim.argtypes = (ctypes.c_size_t,)
        libc.malloc_trim.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


def available():
    """Whether this process's allocator can be tuned (glibc)."""
    return _libc() is not None


def tune(mmap_threshold=TUNED["mmap_threshold"], trim_threshold=TUNED["trim_threshold"],
         top_pad=TUNED["top_pad"]):
    """Set glibc's mmap threshold, trim threshold and top pad (bytes) for the whole process.
    Returns True when applied, False where glibc is absent. Setting the mmap threshold turns
    glibc's dynamic threshold off."""
    for name, value in (("mmap_threshold", mmap_threshold), ("trim_threshold", trim_threshold),
                        ("top_pad", top_pad)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise TypeError(f"For 'tune', '{name}' must be a non-negative int, but got "
                            f"{value!r}")
    if mmap_threshold > MAX_MMAP_THRESHOLD:
        raise ValueError(f"For 'tune', 'mmap_threshold' must be at most {MAX_MMAP_THRESHOLD} "
                         f"(glibc's limit), but got {mmap_threshold}")
    if trim_threshold >= 1 << 31 or top_pad >= 1 << 31:
        raise ValueError(f"For 'tune', 'trim_threshold' and 'top_pad' must be below 2 GiB, but "
                         f"got {trim_threshold} and {top_pad}")
    libc = _libc()
    if libc is None:
        return False
    ok = (libc.mallopt(M_MMAP_THRESHOLD, mmap_threshold)
          and libc.mallopt(M_TRIM_THRESHOLD, trim_threshold)
          and libc.mallopt(M_TOP_PAD, top_pad))
    if not ok:
        raise RuntimeError("glibc refused the malloc settings "
                           f"{(mmap_threshold, trim_threshold, top_pad)}")
    settings = {"mmap_threshold": mmap_threshold, "trim_threshold": trim_threshold,
                "top_pad": top_pad}
    _state["settings"] = settings
    _state["mode"] = "tuned" if settings == TUNED else "custom"
    return True


def restore():
    """glibc's start-up thresholds (the dynamic mmap threshold stays off once set), then
    `release()`. Returns True when applied."""
    if not tune(**GLIBC_DEFAULTS):
        return False
    _state["mode"] = "default"
    release()
    return True


def release():
    """Hand the heap's free memory back to the system (glibc `malloc_trim(0)`). Returns True
    when some memory was released."""
    libc = _libc()
    return bool(libc is not None and libc.malloc_trim(0))


def configure(mode):
    """'tuned' (TUNED's thresholds) or 'default' (glibc's own). Returns True when applied."""
    if mode not in ("tuned", "default"):
        raise ValueError(f"For 'configure', 'mode' must be 'tuned' or 'default', but got "
                         f"{mode!r}")
    return tune() if mode == "tuned" else restore()


def state():
    """{'available', 'mode', 'settings'}: what this module last set (None: untouched)."""
    return {"available": available(), "mode": _state["mode"],
            "settings": None if _state["settings"] is None else dict(_state["settings"])}


def apply_default():
    """What importing minispore applies: 'tuned' unless the environment variable
    MINISPORE_MALLOC is 'default' (or '0'/'off'). Leaves a process untouched where glibc is
    absent. Returns the mode in force."""
    choice = os.environ.get(ENV_VAR, "tuned").strip().lower()
    if choice in ("default", "0", "off", "false", "no"):
        return "default"
    if choice not in ("tuned", "1", "on", "true", "yes", ""):
        raise ValueError(f"{ENV_VAR} must be 'tuned' or 'default', but got {choice!r}")
    return "tuned" if tune() else "default"
