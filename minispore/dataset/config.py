"""`mindspore.dataset.config`: the dataset seed, the default worker count, the prefetch size and
the other pipeline settings (timeouts, the process-worker start method, shared memory, ...).

Every random draw of the dataset package (shuffles, samplers, random transforms, `split`) comes
from generators derived here, never from NumPy's global state. `minispore.set_seed(n)` also sets
the dataset seed, as MindSpore's `set_seed` does; `config.set_seed` leaves the global seed alone.
"""
import enum
import json
import os
import threading

import numpy as np

from .._validator import check_bool, check_int, check_int_range, check_one_of, check_type
from ..common import seed as _global_seed

__all__ = ["ErrorSamplesMode", "get_auto_num_workers", "get_auto_offload",
           "get_autotune_interval", "get_callback_timeout", "get_debug_mode", "get_dynamic_shape",
           "get_enable_autotune", "get_enable_shared_mem", "get_enable_watchdog",
           "get_error_samples_mode", "get_fast_recovery", "get_iterator_mode",
           "get_monitor_sampling_interval", "get_multiprocessing_start_method",
           "get_multiprocessing_timeout_interval", "get_num_parallel_workers", "get_numa_enable",
           "get_prefetch_size", "get_seed", "get_video_backend", "load", "set_auto_num_workers",
           "set_auto_offload", "set_autotune_interval", "set_callback_timeout", "set_debug_mode",
           "set_dynamic_shape", "set_enable_autotune", "set_enable_shared_mem",
           "set_enable_watchdog", "set_error_samples_mode", "set_fast_recovery",
           "set_iterator_mode", "set_monitor_sampling_interval",
           "set_multiprocessing_start_method", "set_multiprocessing_timeout_interval",
           "set_num_parallel_workers", "set_numa_enable", "set_prefetch_size", "set_seed",
           "set_sending_batches", "set_video_backend"]

_UINT32_MAX = 2**32 - 1
_DEFAULT_SEED = 5489  # what MindSpore's get_seed() reports before set_seed (mt19937's default)

_lock = threading.Lock()
_seed = None
_eager = np.random.default_rng()  # eager random transforms and split(); reset by set_seed
_workers = 1  # see set_num_parallel_workers
_prefetch = 16


def set_seed(seed):
    """Seed the dataset pipeline: shuffles, samplers, random transforms and `split`.

    With a seed set, every new iterator over the same pipeline yields the same rows in the same
    order; epochs of one iterator differ from each other. Without one, each iterator draws fresh
    entropy, as MindSpore does.

    Raises:
        TypeError: `seed` is not an int. ValueError: it is outside [0, 2**32 - 1].
    """
    global _seed, _eager
    seed = check_int_range(seed, "seed", "set_seed", 0, _UINT32_MAX)
    with _lock:
        _seed = seed
        _eager = np.random.default_rng([seed, 0xDA7A])


def get_seed():
    """The dataset seed (5489, MindSpore's default value, when none was set)."""
    return _DEFAULT_SEED if _seed is None else _seed


def _pass_seed():
    """Base seed of a new pass over a pipeline: the set seed, else fresh entropy."""
    if _seed is not None:
        return _seed
    return int(np.random.SeedSequence().entropy % (2**63))


def _shared_seed():
    """Seed that processes must agree on without any set_seed (DistributedSampler's shuffle)."""
    return get_seed()


def _eager_rng():
    """Generator for random transforms called outside a pipeline and for `split`."""
    return _eager


def _set_eager(generator):
    global _eager
    _eager = generator


# get_rng_state / set_rng_state cover the eager stream too
_global_seed.register_stream("dataset/eager", _eager_rng, _set_eager)


def set_num_parallel_workers(num):
    """Default worker count of `map`, `batch`, `filter` and `ImageFolderDataset` decoding.

    Workers are threads: they pay off for transforms that release the GIL (large NumPy ops,
    FFTs, image decoding) and slow light per-row transforms down (measured in
    benchmarks/dataset_pipeline.py), so the default is 1 here, not MindSpore's min(8, CPUs)."""
    global _workers
    _workers = check_int_range(num, "num", "set_num_parallel_workers", 1, 2**31 - 1)


def get_num_parallel_workers():
    """The default worker count."""
    return _workers


def set_prefetch_size(size):
    """Accepted for compatibility: rows are produced on demand here, so nothing is prefetched."""
    global _prefetch
    _prefetch = check_int_range(size, "size", "set_prefetch_size", 1, 2**31 - 1)


def get_prefetch_size():
    """The value given to `set_prefetch_size` (16 by default)."""
    return _prefetch


# MindSpore's `mindspore.set_seed` seeds the dataset pipeline too (checked against 2.10).
_global_seed.on_seed(lambda s: set_seed(s % (_UINT32_MAX + 1)))


# ---- the other settings -----------------------------------------------------------------------

class ErrorSamplesMode(enum.IntEnum):
    """What a pipeline does with a row whose transform raises: RETURN raises (the default)."""
    RETURN = 0
    REPLACE = 1
    SKIP = 2


_settings = {
    "callback_timeout": 60, "monitor_sampling_interval": 1000, "autotune_interval": 0,
    "auto_num_workers": False, "enable_autotune": False, "enable_shared_mem": True,
    "enable_watchdog": True, "multiprocessing_timeout_interval": 300, "numa_enable": False,
    "dynamic_shape": False, "fast_recovery": True, "auto_offload": False,
    "error_samples_mode": ErrorSamplesMode.RETURN, "multiprocessing_start_method": "fork",
    "video_backend": "CPU", "debug_mode": False, "sending_batches": 0,
    "iterator_mode": {"do_copy": False, "parallel_convert": False},
}


def set_auto_num_workers(enable):
    """Let the pipeline choose worker counts (recorded: workers here are what you set)."""
    _settings["auto_num_workers"] = check_bool(enable, "enable", "set_auto_num_workers")


def set_enable_shared_mem(enable):
    """Whether process workers (`map(..., python_multiprocessing=True)`) return large arrays
    through shared memory (True by default) instead of pickling them through a pipe."""
    _settings["enable_shared_mem"] = check_bool(enable, "enable", "set_enable_shared_mem")


def set_enable_watchdog(enable):
    """Whether a process-worker pool checks that its workers are alive while waiting (True by
    default): a dead worker then raises RuntimeError at once instead of after the timeout."""
    _settings["enable_watchdog"] = check_bool(enable, "enable", "set_enable_watchdog")


def get_auto_num_workers():
    return _settings["auto_num_workers"]


def get_enable_shared_mem():
    return _settings["enable_shared_mem"]


def get_enable_watchdog():
    return _settings["enable_watchdog"]


def set_numa_enable(numa_enable):
    """Bind workers to NUMA nodes (recorded; there is no NUMA binding here)."""
    _settings["numa_enable"] = check_bool(numa_enable, "numa_enable", "set_numa_enable")


def get_numa_enable():
    return _settings["numa_enable"]


def set_dynamic_shape(is_dynamic):
    """Recorded: shapes are always taken from the data here."""
    _settings["dynamic_shape"] = check_bool(is_dynamic, "is_dynamic", "set_dynamic_shape")


def get_dynamic_shape():
    return _settings["dynamic_shape"]


def set_fast_recovery(fast_recovery):
    """Recorded: a pipeline restarted at a step replays its rows here."""
    _settings["fast_recovery"] = check_bool(fast_recovery, "fast_recovery", "set_fast_recovery")


def get_fast_recovery():
    return _settings["fast_recovery"]


def set_auto_offload(offload):
    """Recorded: there is no device to offload transforms to here."""
    _settings["auto_offload"] = check_bool(offload, "offload", "set_auto_offload")


def get_auto_offload():
    return _settings["auto_offload"]


def set_callback_timeout(timeout):
    """Seconds a `WaitedDSCallback` waits for the training step before going on (60)."""
    _settings["callback_timeout"] = _positive(timeout, "timeout", "set_callback_timeout")


def get_callback_timeout():
    return _settings["callback_timeout"]


def set_monitor_sampling_interval(interval):
    """Profiler sampling interval in ms (recorded; there is no pipeline profiler here)."""
    _settings["monitor_sampling_interval"] = _positive(interval, "interval",
                                                       "set_monitor_sampling_interval")


def get_monitor_sampling_interval():
    return _settings["monitor_sampling_interval"]


def set_autotune_interval(interval):
    """Autotune interval in steps, 0 for once per epoch (recorded; nothing autotunes here)."""
    _settings["autotune_interval"] = check_int_range(interval, "interval",
                                                     "set_autotune_interval", 0, 2**31 - 1)


def get_autotune_interval():
    return _settings["autotune_interval"]


def set_enable_autotune(enable, filepath_prefix=None):
    """Turn pipeline autotuning on or off (recorded; worker counts are what you set here)."""
    _settings["enable_autotune"] = check_bool(enable, "enable", "set_enable_autotune")
    if filepath_prefix is not None:
        check_type(filepath_prefix, str, "filepath_prefix", "set_enable_autotune")


def get_enable_autotune():
    return _settings["enable_autotune"]


def set_multiprocessing_timeout_interval(interval):
    """Seconds between the warnings a pipeline prints while it waits on a process worker."""
    _settings["multiprocessing_timeout_interval"] = _positive(
        interval, "interval", "set_multiprocessing_timeout_interval", high=2**31 - 2)


def get_multiprocessing_timeout_interval():
    return _settings["multiprocessing_timeout_interval"]


def set_multiprocessing_start_method(start_method="fork"):
    """How process workers start: 'fork' (the default) or 'spawn'."""
    check_type(start_method, str, "start_method", "set_multiprocessing_start_method")
    _settings["multiprocessing_start_method"] = check_one_of(
        start_method, ("fork", "spawn"), "start_method", "set_multiprocessing_start_method")


def get_multiprocessing_start_method():
    return _settings["multiprocessing_start_method"]


def set_error_samples_mode(error_samples_mode):
    """Recorded: a failing transform always raises here (ErrorSamplesMode.RETURN)."""
    check_type(error_samples_mode, ErrorSamplesMode, "error_samples_mode",
               "set_error_samples_mode")
    _settings["error_samples_mode"] = error_samples_mode


def get_error_samples_mode():
    return _settings["error_samples_mode"]


def set_video_backend(backend):
    """'CPU' or 'Ascend' (recorded; video decoding runs on the CPU here)."""
    check_type(backend, str, "backend", "set_video_backend")
    _settings["video_backend"] = check_one_of(backend, ("CPU", "Ascend"), "backend",
                                              "set_video_backend")


def get_video_backend():
    return _settings["video_backend"]


def set_debug_mode(debug_mode_flag: bool, debug_hook_list: list = None):  # noqa: RUF013
    """Debug mode runs the pipeline in order on one worker: map, batch and filter then ignore
    their `num_parallel_workers`."""
    _settings["debug_mode"] = check_bool(debug_mode_flag, "debug_mode_flag", "set_debug_mode")
    if debug_hook_list is not None:
        check_type(debug_hook_list, list, "debug_hook_list", "set_debug_mode")


def get_debug_mode():
    return _settings["debug_mode"]


def set_iterator_mode(do_copy=False, parallel_convert=False):
    """The defaults iterators use for copying rows into Tensors (recorded)."""
    _settings["iterator_mode"] = {
        "do_copy": check_bool(do_copy, "do_copy", "set_iterator_mode"),
        "parallel_convert": check_bool(parallel_convert, "parallel_convert",
                                       "set_iterator_mode")}


def get_iterator_mode():
    return dict(_settings["iterator_mode"])


def set_sending_batches(batch_num):
    """Batches a device queue sends before pausing (recorded; there is no device queue)."""
    _settings["sending_batches"] = check_int(batch_num, "batch_num", "set_sending_batches")


def _positive(value, arg, owner, high=2**31 - 1):
    return check_int_range(value, arg, owner, 0, high, low_inclusive=False)


_LOAD_KEYS = {"numParallelWorkers": set_num_parallel_workers, "seed": set_seed,
              "opConnectorSize": set_prefetch_size, "callbackTimeout": set_callback_timeout,
              "monitorSamplingInterval": set_monitor_sampling_interval,
              "multiprocessingTimeoutInterval": set_multiprocessing_timeout_interval}


def load(file):
    """Read settings from a JSON file with any of the keys numParallelWorkers, seed,
    opConnectorSize (the prefetch size), callbackTimeout, monitorSamplingInterval and
    multiprocessingTimeoutInterval; other keys (logFilePath, rowsPerBuffer, ...) are ignored.

    Raises:
        RuntimeError: the file cannot be read or is not a JSON object.
    """
    path = os.fspath(check_type(file, (str, os.PathLike), "file", "load"))
    try:
        with open(path, encoding="utf-8") as f:
            values = json.load(f)
    except (OSError, ValueError) as e:
        raise RuntimeError(f"For 'load', the config file {path!r} cannot be read: {e}") from None
    if not isinstance(values, dict):
        raise RuntimeError(  # noqa: TRY004 (a bad file, as MindSpore reports it)
            f"For 'load', the config file {path!r} must hold a JSON object")
    for key, setter in _LOAD_KEYS.items():
        if key in values:
            setter(values[key])
