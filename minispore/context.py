"""Execution context: `set_context` / `get_context`, PYNATIVE_MODE and GRAPH_MODE.

Under GRAPH_MODE every outermost Cell call is captured on its first call for an input signature
and replayed after, bit for bit equal to PyNative, or run eagerly where it cannot be replayed
exactly (docs/graph_mode.md).
"""
import os
import threading

__all__ = ["COMPATIBLE", "GRAPH_MODE", "LAX", "PYNATIVE_MODE", "STRICT", "ParallelMode",
           "get_auto_parallel_context", "get_context", "get_current_device",
           "reset_auto_parallel_context", "set_auto_parallel_context", "set_context", "set_device"]

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
            "detect_anomaly": False, "save_graphs": 0, "save_graphs_path": "."}


def set_context(**kwargs):
    """Set context keys: `mode` (PYNATIVE_MODE, or GRAPH_MODE: outermost Cell calls are captured
    and replayed),
    `device_target` ('CPU'; 'GPU' and 'Ascend' are MindSpore targets this NumPy build does not
    have, and raise RuntimeError as on a CPU-only MindSpore install),
    `detect_anomaly` (minispore's own key, default False: the first primitive whose forward or
    backward turns finite values into NaN or infinity raises a RuntimeError naming it and the
    pass; costs nothing while off), and the other keys MindSpore accepts, which are recorded.
    `save_graphs` (bool or int up to 3; True is stored as 2, False as 0; any level above 0 makes
    `jit` write each trace's IR and generated code, docs/graph_mode.md "Dumps") and
    `save_graphs_path` (a non-empty str, made absolute and created; default ".").
    Unknown keys raise ValueError."""
    kwargs = dict(kwargs)
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
        elif key == "save_graphs":
            kwargs[key] = _save_graphs_level(value)
        elif key == "save_graphs_path":
            kwargs[key] = _graphs_directory(value)
        elif key not in _PASSIVE_KEYS:
            raise ValueError(f"For 'set_context', unknown key {key!r}")
    with _lock:
        _context.update(kwargs)
    for key, value in kwargs.items():
        for watcher in _watchers.get(key, ()):
            watcher(value)


def _save_graphs_level(value):
    if not isinstance(value, (bool, int)):
        raise TypeError(f"For 'set_context', 'save_graphs' must be a bool or an int, but got "
                        f"{type(value).__name__}")
    value = int(value) * 2 if isinstance(value, bool) else value
    if value > 3:
        raise ValueError(f"For 'set_context', 'save_graphs' must be in 0-3, but got {value}")
    return value


def _graphs_directory(path):
    if not isinstance(path, str):
        raise TypeError(f"For 'set_context', 'save_graphs_path' must be a str, but got "
                        f"{type(path).__name__}")
    if not path.strip():
        raise ValueError(f"For 'set_context', 'save_graphs_path' must be a non-empty string, "
                         f"but got {path!r}")
    path = os.path.realpath(path)
    os.makedirs(path, exist_ok=True)
    return path


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


class ParallelMode:
    """The `parallel_mode` values of `set_auto_parallel_context` (plain strings). minispore runs
    STAND_ALONE and DATA_PARALLEL (HYBRID_PARALLEL reduces gradients as DATA_PARALLEL does); the
    sharding modes are recorded only."""
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = (STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL)


def _parallel_defaults():
    return {
        "device_num": 1, "global_rank": 0, "gradients_mean": False, "gradient_fp32_sync": True,
        "loss_repeated_mean": True, "parallel_mode": ParallelMode.STAND_ALONE,
        "search_mode": "recursive_programming", "auto_parallel_search_mode":
        "recursive_programming", "parameter_broadcast": False, "strategy_ckpt_load_file": "",
        "strategy_ckpt_save_file": "", "full_batch": False, "dataset_strategy": "data_parallel",
        "enable_parallel_optimizer": False, "enable_alltoall": False,
        "all_reduce_fusion_config": [], "pipeline_stages": 1, "pipeline_result_broadcast": False,
        "grad_accumulation_step": 1, "parallel_optimizer_config": {}, "comm_fusion": {
            "openstate": True, "allreduce": {"mode": "auto", "config": None},
            "allgather": {"mode": "auto", "config": None},
            "reducescatter": {"mode": "auto", "config": None}},
        "strategy_ckpt_config": {}, "group_ckpt_save_file": "", "auto_pipeline": False,
        "dump_local_norm": False, "dump_local_norm_path": "", "dump_device_local_norm": False,
        "pipeline_config": {}, "optimizer_weight_shard_size": -1,
        "sharding_propagation": False, "enable_reduce_precision": False,
    }


_parallel = _parallel_defaults()
_parallel_set = set()  # keys a user has set since the last reset
_BOOL_KEYS = ("gradients_mean", "gradient_fp32_sync", "loss_repeated_mean",
              "parameter_broadcast", "full_batch", "enable_parallel_optimizer", "enable_alltoall",
              "pipeline_result_broadcast", "auto_pipeline", "sharding_propagation")


def _check_parallel(key, value):
    if key not in _parallel:
        raise ValueError(f"Set context keyword {key} is not recognized!")
    if key == "parallel_mode":
        if value not in ParallelMode.MODE_LIST:
            raise ValueError(f"The context configuration parameter 'parallel_mode' only support "
                             f"'stand_alone', 'data_parallel', 'hybrid_parallel', "
                             f"'semi_auto_parallel' and 'auto_parallel', but got the value : "
                             f"{value}.")
    elif key in _BOOL_KEYS:
        if not isinstance(value, bool):
            raise TypeError(f"The parameter '{key}' must be {bool}, but got {type(value)}")
    elif key == "device_num":
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 4096:
            raise ValueError(f"The context configuration parameter 'device_num' must be a "
                             f"positive integer, but got the value of device_num : {value}.")
    elif key == "global_rank":
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 4096:
            raise ValueError(f"The context configuration parameter 'global_rank' must be an "
                             f"integer in [0, 4096), but got the value of global_rank : {value}.")
    elif key == "all_reduce_fusion_config":
        if not isinstance(value, (list, tuple)) or any(
                not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in value):
            raise TypeError(f"The 'all_reduce_fusion_config' must be a list of non-negative "
                            f"ints, but got {value!r}")
        if list(value) != sorted(set(value)):
            raise ValueError(f"The 'all_reduce_fusion_config' must be strictly increasing, but "
                             f"got {value!r}")
        return list(value)
    return value


def set_auto_parallel_context(**kwargs):
    """Set the parallel context: `parallel_mode` (`ParallelMode`; DATA_PARALLEL makes
    `TrainOneStepCell` and `Model` all-reduce gradients), `gradients_mean`, `device_num` (the
    reducers' degree; default: the group size), `global_rank`, `parameter_broadcast` (every rank
    starts from rank 0's weights), `all_reduce_fusion_config` (parameter indices where a new
    gradient bucket starts), and the other keys MindSpore accepts, which are recorded.

    Raises:
        ValueError: an unknown key or a bad value.
        TypeError: a flag that is not a bool.
    """
    checked = {key: _check_parallel(key, value) for key, value in kwargs.items()}
    with _lock:
        _parallel.update(checked)
        _parallel_set.update(checked)


def parallel_key_is_set(key):
    """Whether `set_auto_parallel_context` set `key` since the last reset."""
    return key in _parallel_set


def get_auto_parallel_context(attr_key):
    """The value of a parallel-context key."""
    with _lock:
        if attr_key not in _parallel:
            raise ValueError(f"Get context keyword {attr_key} is not recognized!")
        return _parallel[attr_key]


def reset_auto_parallel_context():
    """Every parallel-context key back to its default (`parallel_mode` 'stand_alone')."""
    with _lock:
        _parallel.clear()
        _parallel.update(_parallel_defaults())
        _parallel_set.clear()
