"""minispore._allocator: glibc malloc thresholds, checked in child processes (the settings are
process-wide and must not leak into the test session)."""
import os
import subprocess
import sys
import textwrap

import pytest

from minispore import _allocator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
glibc_only = pytest.mark.skipif(not _allocator.available(), reason="needs glibc")


def run_child(code, **env):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], check=False,
                         capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, **env), timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()


PAGE_FAULTS_OF_REALLOC = """
    import resource
    import numpy as np
    from minispore import _allocator
    {setup}
    def faults_of_steps(steps=20, n=2 << 20):
        np.ones(n)  # first touch, warm-up
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(steps):
            a = np.ones(n)  # 16 MiB: above glibc's start-up mmap threshold
            del a
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    print(faults_of_steps())
"""


@glibc_only
def test_tuned_thresholds_reuse_freed_pages():
    """Freed 16 MiB blocks are reused from the heap instead of mapped (and faulted) afresh."""
    untuned = int(run_child(PAGE_FAULTS_OF_REALLOC.format(
        setup="_allocator.tune(128 * 1024, 128 * 1024, 128 * 1024)"))[-1])
    tuned = int(run_child(PAGE_FAULTS_OF_REALLOC.format(setup="_allocator.tune()"))[-1])
    assert untuned > 20 * 100  # (NumPy asks for huge pages: fewer faults than 4 KiB pages)
    assert tuned < untuned // 10, (tuned, untuned)


@glibc_only
def test_state_and_configure_round_trip():
    lines = run_child("""
        from minispore import _allocator
        print(_allocator.state()["mode"])
        assert _allocator.configure("tuned")
        s = _allocator.state()
        print(s["mode"], s["settings"] == _allocator.TUNED)
        assert _allocator.configure("default")
        print(_allocator.state()["mode"], _allocator.state()["settings"]["mmap_threshold"])
        assert _allocator.tune(1 << 20, 8 << 20, 0)
        print(_allocator.state()["mode"])
        _allocator.release()
    """, MINISPORE_MALLOC="default")
    assert lines == ["default", "tuned True", f"default {128 * 1024}", "custom"]


@pytest.mark.parametrize("env, expected", [({}, "tuned"), ({"MINISPORE_MALLOC": "default"},
                                                            "default"),
                                           ({"MINISPORE_MALLOC": "off"}, "default"),
                                           ({"MINISPORE_MALLOC": "tuned"}, "tuned")])
def test_apply_default_follows_environment(env, expected):
    if expected == "tuned" and not _allocator.available():
        expected = "default"
    env = dict(env)
    env.setdefault("MINISPORE_MALLOC", "")
    lines = run_child("""
        from minispore import _allocator
        print(_allocator.apply_default())
    """, **env)
    assert lines[-1] == expected


def test_bad_environment_value_is_refused(monkeypatch):
    monkeypatch.setenv("MINISPORE_MALLOC", "fast")
    with pytest.raises(ValueError, match="MINISPORE_MALLOC"):
        _allocator.apply_default()


@pytest.mark.parametrize("kwargs, exc", [({"mmap_threshold": -1}, TypeError),
                                         ({"mmap_threshold": 1.5}, TypeError),
                                         ({"trim_threshold": True}, TypeError),
                                         ({"mmap_threshold": 64 << 20}, ValueError),
                                         ({"top_pad": 1 << 31}, ValueError)])
def test_bad_settings_are_refused_before_any_change(kwargs, exc):
    before = _allocator.state()
    with pytest.raises(exc, match="For 'tune'"):
        _allocator.tune(**kwargs)
    assert _allocator.state() == before


def test_bad_mode_is_refused():
    with pytest.raises(ValueError, match="'tuned' or 'default'"):
        _allocator.configure("fast")


def test_results_do_not_depend_on_the_allocator_mode():
    """One LeNet-like conv step, bitwise the same under both modes."""
    code = """
        import numpy as np
        from minispore import _allocator
        _allocator.configure({mode!r})
        import minispore as ms
        from minispore import nn, Tensor
        rng = np.random.default_rng(0)
        net = nn.SequentialCell([nn.Conv2d(1, 4, 3, pad_mode="valid"), nn.ReLU(),
                                 nn.MaxPool2d(2, 2), nn.Flatten(), nn.Dense(4 * 13 * 13, 10)])
        for p in net.trainable_params():
            p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.1))
        x = Tensor(rng.standard_normal((8, 1, 28, 28)).astype(np.float32))
        loss, grads = ms.value_and_grad(lambda a: net(a).sum(), None,
                                        net.trainable_params())(x)
        print(np.concatenate([g.asnumpy().ravel() for g in grads] +
                             [loss.asnumpy().ravel()]).tobytes().hex())
    """
    tuned = run_child(code.format(mode="tuned"))[-1]
    default = run_child(code.format(mode="default"))[-1]
    assert tuned == default
