"""Threads (docs/reliability.md §5): the tape and every mode flag are thread-local, the
registries do not change after import; threads computing different gradients at once get
exactly the single-threaded results, inference beside training is safe, nothing deadlocks.
Every wait has a timeout, so a deadlock fails the test instead of hanging it."""
import sys
import threading

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore._autodiff import tape as tape_mod
from minispore.ops.primitive import PRIMITIVES

CALLS = 150
TIMEOUT = 60


def run_threads(targets, timeout=TIMEOUT):
    """Run each target in its own thread, started together; returns the errors raised."""
    errors = []
    barrier = threading.Barrier(len(targets))

    def wrap(target):
        def run():
            try:
                barrier.wait(timeout)
                target()
            except BaseException as e:  # noqa: BLE001  (reported to the test)
                errors.append(e)
        return run

    threads = [threading.Thread(target=wrap(t), daemon=True) for t in targets]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads every few bytecodes: races show up
    try:
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout)
    finally:
        sys.setswitchinterval(interval)
    assert not any(th.is_alive() for th in threads), "a thread is still running: deadlock?"
    return errors


def mlp_loss(x, w1, w2):
    h = ops.tanh(ops.matmul(x, w1))
    return ops.log_softmax(ops.matmul(h, w2), -1).sum() * -1.0


def conv_loss(x, k):
    y = ops.conv2d(x, k, pad_mode="pad", padding=1)
    return (ops.sin(y) * ops.exp(y * 0.1)).mean() + ops.max_pool2d(y, 2, 2).sum()


def _inputs():
    rng = np.random.default_rng(0)
    a = [Tensor(rng.standard_normal(s)) for s in ((8, 5), (5, 6), (6, 3))]
    b = [Tensor(rng.standard_normal(s)) for s in ((2, 2, 6, 6), (3, 2, 3, 3))]
    return a, b


def _as_arrays(value_and_grads):
    value, grads = value_and_grads
    return [value.asnumpy().copy()] + [g.asnumpy().copy() for g in grads]


def test_two_threads_compute_different_gradients_exactly(record_property):
    a, b = _inputs()
    f = ms.value_and_grad(mlp_loss, (0, 1, 2))
    g = ms.value_and_grad(conv_loss, (0, 1))
    expected_a, expected_b = _as_arrays(f(*a)), _as_arrays(g(*b))
    mismatches = []

    def worker(fn, args, expected):
        def run():
            for _ in range(CALLS):
                got = _as_arrays(fn(*args))
                if not all(np.array_equal(x, y) for x, y in zip(got, expected)):
                    mismatches.append(fn)
                assert tape_mod._state.tape is None
        return run

    registry = dict(PRIMITIVES)
    errors = run_threads([worker(f, a, expected_a), worker(g, b, expected_b)])
    assert not errors, errors
    assert not mismatches, f"{len(mismatches)} results differ from the single-threaded ones"
    assert PRIMITIVES == registry  # read-only after import
    assert tape_mod._active == 0
    record_property("threads", 2)
    record_property("calls_per_thread", CALLS)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 16)
        self.fc2 = nn.Dense(16, 3)

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


def _training(steps):
    ms.set_seed(3)
    net = _Net()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                                nn.Momentum(net.trainable_params(), 0.05, 0.9))
    rng = np.random.default_rng(1)
    x = Tensor(rng.standard_normal((12, 6)).astype(np.float32))
    y = Tensor(rng.integers(0, 3, 12).astype(np.int32))
    return net, lambda: [float(train(x, y).asnumpy()) for _ in range(steps)]


def test_inference_beside_training_is_safe(record_property):
    _, solo = _training(60)
    expected = solo()
    net, run = _training(60)
    losses, seen = [], []
    done = threading.Event()

    def train():
        try:
            losses.extend(run())
        finally:
            done.set()

    def infer():
        x = Tensor(np.ones((4, 6), np.float32))
        while not done.is_set():
            out = net(x)  # the same parameters, read while the other thread updates them
            assert out._tape is None and out.shape == (4, 3)
            assert np.isfinite(out.asnumpy()).all()
            seen.append(1)

    errors = run_threads([train, infer])
    assert not errors, errors
    assert losses == expected  # inference changed nothing in training, bitwise
    assert seen
    record_property("inference_calls", len(seen))


def test_anomaly_mode_is_thread_local():
    inside, outside = threading.Event(), threading.Event()
    raised, quiet = [], []

    def with_mode():
        with ms.detect_anomaly():
            inside.set()
            outside.wait(TIMEOUT)
            try:
                ops.log(Tensor(np.zeros(2, np.float32)))
            except RuntimeError as e:
                raised.append(str(e))

    def without_mode():
        inside.wait(TIMEOUT)
        for _ in range(50):
            quiet.append(float(ops.log(Tensor(np.zeros(1, np.float32))).asnumpy()[0]))
        outside.set()

    errors = run_threads([with_mode, without_mode])
    assert not errors, errors
    assert raised and "Log" in raised[0] and "forward" in raised[0]
    assert quiet == [-np.inf] * 50


def test_recording_pauses_are_thread_local():
    release = threading.Event()
    seen = {}

    def recorder():
        def f(x):
            release.wait(TIMEOUT)
            return (x * x).sum()
        seen["grad"] = ms.grad(f)(Tensor(np.array([3.0])))

    def pauser():
        from minispore._autodiff.tape import pause_recording
        with pause_recording():
            y = Tensor(np.array([1.0])) * 2
            seen["untracked"] = y._tape is None
        release.set()

    errors = run_threads([recorder, pauser])
    assert not errors, errors
    assert seen["untracked"]
    np.testing.assert_array_equal(seen["grad"].asnumpy(), [6.0])


@pytest.mark.parametrize("n_threads", [4])
def test_many_threads_share_a_parameter(n_threads):
    p = ms.Parameter(Tensor(np.array([1.5, -2.0])), name="p")
    results = {}

    def worker(k):
        def run():
            x = Tensor(np.array([float(k), 1.0]))
            for _ in range(40):
                g = ms.grad(lambda t: (ops.sin(t * p) * p).sum(), None, p)(x)
                results.setdefault(k, set()).add(g.asnumpy().tobytes())
        return run

    errors = run_threads([worker(k) for k in range(n_threads)])
    assert not errors, errors
    pv = p.asnumpy()
    for k in range(n_threads):
        x = np.array([float(k), 1.0])
        expected = np.cos(x * pv) * x * pv + np.sin(x * pv)
        assert len(results[k]) == 1
        np.testing.assert_allclose(np.frombuffer(results[k].pop()), expected, rtol=1e-14)
