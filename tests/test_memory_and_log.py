"""The memory statistics answered on the host (minispore/_memory.py, docs/memory.md) and the
logger's configuration from MindSpore's environment variables (minispore/log.py, checked against
MindSpore 2.10 on tests/data/log_config.json, made by tests/data/make_log_config.py)."""
import gc
import json
import os
import pathlib
import sys

import numpy as np
import pytest

import minispore as ms

sys.path.insert(0, str(pathlib.Path(__file__).parent / "data"))
from make_log_config import LOG_ENVS, probe  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
MIB = 1 << 20


def test_allocated_counts_live_tensor_buffers_once():
    gc.collect()
    before = ms.memory_allocated()
    t = ms.Tensor(np.ones((256, 1024), np.float32))  # 1 MiB
    views = [t[1:], t.reshape(-1)]  # share t's buffer
    assert ms.memory_allocated() - before == MIB
    views.append(ms.Tensor(t.asnumpy()[::2]))  # a copy: a buffer of its own
    assert ms.memory_allocated() - before == MIB + MIB // 2
    p = ms.Parameter(ms.Tensor(np.zeros(MIB // 8, np.float64)), name="p")
    assert ms.memory_allocated() - before == 2 * MIB + MIB // 2
    del t, views, p
    gc.collect()
    assert ms.memory_allocated() == before


def test_reserved_is_resident_memory_with_a_resettable_peak():
    ms.reset_peak_memory_stats()
    base = ms.memory_reserved()
    assert 0 < base <= ms.max_memory_reserved()
    block = np.ones(64 * MIB // 8)  # touched: resident
    assert ms.memory_reserved() >= base + 48 * MIB
    peak = ms.max_memory_reserved()
    assert peak >= base + 48 * MIB
    del block
    ms.empty_cache()
    # the peak stays until reset (the kernel folds the resident count into it lazily: a page
    # counted in a read just before the free may be missing after it)
    assert ms.max_memory_reserved() >= peak - MIB
    ms.reset_max_memory_reserved()
    assert ms.max_memory_reserved() < peak - 32 * MIB


def test_empty_cache_hands_freed_heap_memory_back():
    blocks = [np.ones(MIB // 8) for _ in range(96)]  # below the mmap threshold: the heap's
    held = ms.memory_reserved()
    del blocks
    gc.collect()
    ms.empty_cache()
    assert ms.memory_reserved() < held - 64 * MIB


def test_stats_keys_and_summary_layout_follow_mindspore():
    stats = ms.memory_stats()
    # MindSpore 2.10's keys, but for 'max_allocated_memory' (no peak of tensor bytes is kept)
    assert set(stats) == {"total_reserved_memory", "total_allocated_memory", "total_idle_memory",
                          "total_eager_free_memory", "max_reserved_memory",
                          "common_mem_pool_stats", "persistent_mem_pool_stats"}
    assert set(stats["common_mem_pool_stats"]) == {"block_unit_size", "block_counts",
                                                   "blocks_info"}
    summary = ms.memory_summary()
    lines = summary.splitlines()
    assert lines[0] == "|" + "=" * 45 + "|" and "Memory summary" in lines[1]
    labels = [ln.split("|")[1].strip() for ln in lines[3:] if "|" in ln[1:-1]]
    assert labels == ["Metric", "Reserved memory", "Allocated memory", "Idle memory",
                      "Eager free memory", "Max reserved memory"]
    assert all(len(ln) == 47 for ln in lines)
    assert ms.runtime.memory_allocated is ms.memory_allocated


def test_size_format_switches_unit_at_768():
    from minispore._memory import _format_size
    assert _format_size(0) == "     0 B  "
    assert _format_size(768 * 1024 - 1) == "786431 B  "
    assert _format_size(768 * 1024) == "   768 KB"
    assert _format_size(5 * 1024 ** 3) == "  5120 MB"


def test_ms_memory_recycle_collects_cycles():
    class Holder:
        pass
    a, b = Holder(), Holder()
    a.other, b.other = b, a
    a.t = ms.Tensor(np.ones(MIB // 4, np.float32))
    gc.collect()
    before = ms.memory_allocated()
    del a, b
    ms.ms_memory_recycle()
    assert ms.memory_allocated() == before - MIB


@pytest.fixture
def fresh_logger(monkeypatch):
    """The logger made again from the environment the test sets (it is made once per process)."""
    import minispore.log as log
    for var in list(os.environ):
        if var.startswith(("GLOG_", "logger_")) or var in ("RANK_ID", "MS_NODE_ID",
                                                           "OMPI_COMM_WORLD_RANK"):
            monkeypatch.delenv(var)
    monkeypatch.setattr(log, "_logger", [])
    yield log
    if log._logger:
        for h in log._logger[0].handlers:
            h.close()


@pytest.mark.parametrize("k", range(len(LOG_ENVS)))
def test_log_config_matches_mindspore(k, tmp_path, monkeypatch, fresh_logger):
    expected = json.loads((ROOT / "tests" / "data" / "log_config.json").read_text())[k]
    for var, value in LOG_ENVS[k].items():
        monkeypatch.setenv(var, value.replace("{dir}", str(tmp_path)))
    try:
        got = json.loads(json.dumps([ms.get_level(), ms.get_log_config()])
                         .replace(str(tmp_path), "{dir}"))
    except ValueError:
        got = ["ValueError"]
    assert got == expected


def test_the_first_use_reads_the_environment_in_a_fresh_process(tmp_path):
    env = {"GLOG_v": "1", "GLOG_logtostderr": "0", "GLOG_log_dir": "{dir}"}
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(ROOT)
    try:
        got = probe("minispore", env, str(tmp_path))
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    assert got == ["1", {"GLOG_v": "1", "GLOG_logtostderr": "0",
                         "GLOG_log_dir": "{dir}/rank_0/logs", "logger_maxBytes": 52428800,
                         "logger_backupCount": 30, "GLOG_stderrthreshold": "2"}]


def test_file_logging_rotates_and_copies_to_stderr_from_threshold(tmp_path, monkeypatch,
                                                                  fresh_logger):
    log = fresh_logger
    for var, value in {"GLOG_v": "1", "GLOG_logtostderr": "0", "GLOG_log_dir": str(tmp_path),
                       "logger_maxBytes": "400", "logger_backupCount": "2",
                       "GLOG_stderrthreshold": "3", "RANK_ID": "5"}.items():
        monkeypatch.setenv(var, value)
    for k in range(12):
        log.info("step %d done", k)
    log.debug("not written")
    files = sorted(os.listdir(tmp_path / "rank_5" / "logs"))
    assert len(files) == 3  # the file and its two backups
    text = (tmp_path / "rank_5" / "logs" / files[0]).read_text()
    assert "step 11 done" in text and "[INFO]" in text and "not written" not in text
    assert ms.get_log_config()["GLOG_stderrthreshold"] == "3"
