"""Streams, events and runtime settings (`minispore.runtime`, exported at the top as in
MindSpore 2.10): host no-ops that keep their ordering semantics, host-clock event timing."""
import sys
import time

import pytest

import minispore as ms


def test_events_time_with_the_host_clock():
    start, end = ms.Event(enable_timing=True), ms.Event(enable_timing=True)
    start.record()
    time.sleep(0.02)
    end.record(ms.current_stream())
    assert 15 <= start.elapsed_time(end) < 2000
    assert start.query() and end.synchronize() is None
    with pytest.raises(RuntimeError, match="enable_timing"):
        ms.Event().elapsed_time(end)
    with pytest.raises(RuntimeError, match="recorded"):
        ms.Event(enable_timing=True).elapsed_time(end)


def test_streams_and_stream_context():
    s = ms.Stream(priority=1)
    assert ms.current_stream() is ms.default_stream() and s is not ms.default_stream()
    with ms.StreamCtx(s) as inside:
        assert inside is s and ms.current_stream() is s
    assert ms.current_stream() is ms.default_stream()
    ev = s.record_event()
    assert isinstance(ev, ms.Event) and s.query() and s.wait_event(ev) is None
    assert ms.synchronize() is None
    with pytest.raises(TypeError, match="Stream"):
        ms.set_cur_stream("stream")


def test_settings_and_run_check(capsys):
    ms.set_deterministic(True)
    with pytest.raises(TypeError, match="deterministic"):
        ms.set_deterministic(1)
    limit = sys.getrecursionlimit()
    ms.set_recursion_limit(limit + 10)
    assert sys.getrecursionlimit() == limit + 10
    sys.setrecursionlimit(limit)
    with pytest.raises(ValueError, match="recursion_limit"):
        ms.set_recursion_limit(0)
    assert ms.run_check() is True
    assert "installed on platform [CPU] successfully" in capsys.readouterr().out


def test_inline_hints_are_recorded():
    @ms.lazy_inline
    def f(x):
        return x

    @ms.no_inline()
    def g(x):
        return x
    assert f(1) == 1 and f._lazy_inline == {"attrs": None, "policy": None}
    assert g(2) == 2 and g._no_inline
