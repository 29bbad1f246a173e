"""Execution context: `set_context` / `get_context`, PYNATIVE_MODE and GRAPH_MODE.

minispore always executes eagerly. GRAPH_MODE is accepted (MindSpore scripts set it) and runs the
same code eagerly, with identical results.
"""
import threading

__all__ = ["PYNATIVE_MODE", "GRAPH_MODE", "set_context", "get_context", "set_device",
           "get_current_device", "STRICT", "COMPATIBLE", "LAX"]

GRAPH_MODE = 0
PYNATIVE_MODE = 1
STRICT, COMPATIBLE, LAX = 0, 1, 2

_DEVICE_TARGETS = ("CPU", "GPU", "Ascend")
# Keys MindSpore scripts set; minispore records them and changes nothing else.
_PASSIVE_KEYS = {
    "device_id", "jit_config", "jit_syntax_level", "pynative_synchronize", "deterministic",
    "max_device_memory", "save_graphs", "save_graphs_path", "enable_graph_kernel",
    "graph_kernel_flags", "enable_reduce_precision", "variable_memory_max_size", "mempool_block_size",
    "print_file_path", "max_call_depth", "enable_compile_cache", "compile_cache_path",
    "inter_op_parallel_num", "runtime_num_threads", "memory_optimize_level", "op_timeout",
    "enable_dump", "save_dump_path", "check_bprop", "ascend_config", "gpu_config",
    "disable_format_transform", "memory_offload", "aoe_tune_mode", "aoe_config",
    "enable_auto_mixed_precision", "reserve_class_name_in_scope", "env_config_path",
    "auto_tune_mode", "grad_for_scalar", "debug_level", "jit_level", "infer_precision_mode",
}

_lock = threading.Lock()
# key -> functions called with the new value after `set_context` sets it: the layers that act on a
# key (anomaly mode acts on 'detect_anomaly') sit above this module and register themselves.
_watchers = {}


def watch(key, fn):
    _watchers.setdefault(key, []).append(fn)

_context = {"mode": PYNATIVE_MODE, "device_target": "CPU", "device_id": 0,
            "detect_anomaly": False}


def set_context(**kwargs):
    """Set context keys: `mode` (PYNATIVE_MODE or GRAPH_MODE; both run eagerly here),
    `device_target` ('CPU'; 'GPU' and 'Ascend' are MindSpore targets this NumPy build does not
    have, and raise RuntimeError as on a CPU-only MindSpore install),
    `detect_anomaly` (minispore's own key, default False: the first primitive whose forward or
    backward turns finite values into NaN or infinity raises a RuntimeError naming it and the
    pass; costs nothing while off), and the other keys MindSpore accepts, which are recorded.
    Unknown keys raise ValueError."""
    for key, value in kwargs.items():
        if key == "mode":
            if value not in (GRAPH_MODE, PYNATIVE_MODE):
                raise ValueError(f"For 'set_context', 'mode' must be GRAPH_MODE (0) or "
                                 f"PYNATIVE_MODE (1), but got {value!r}")
        elif key == "device_target":
            if value not in _DEVICE_TARGETS:
                raise ValueError(f"For 'set_context', 'device_target' must be one of "
                                 f"{_DEVICE_TARGETS}, but got {value!r}")
            if value != "CPU":
                raise RuntimeError(f"Unsupported device target {value}: minispore runs on NumPy "
                                   f"and supports only 'CPU'")
        elif key == "detect_anomaly":
            if not isinstance(value, bool):
                raise TypeError(f"For 'set_context', 'detect_anomaly' must be a bool, but got "
                                f"{type(value).__name__}")
        elif key not in _PASSIVE_KEYS:
            raise ValueError(f"For 'set_context', unknown key {key!r}")
    with _lock:
        _context.update(kwargs)
    for key, value in kwargs.items():
        for watcher in _watchers.get(key, ()):
            watcher(value)


def get_context(attr_key):
    """The value of a context key ('mode' is PYNATIVE_MODE unless set)."""
    with _lock:
        if attr_key not in _context:
            if attr_key in _PASSIVE_KEYS:
                return None
            raise ValueError(f"For 'get_context', unknown key {attr_key!r}")
        return _context[attr_key]


def set_device(device_target, device_id=None):
    """Select the device: 'CPU' (the only target here; see `set_context`)."""
    set_context(device_target=device_target, device_id=0 if device_id is None else device_id)


def get_current_device():
    return _context["device_target"]
