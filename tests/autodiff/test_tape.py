"""Tape hygiene: nothing recorded outside transforms, nothing of a call survives it, long chains,
clean state after errors, in-place writes detected, thread-local recording."""
import gc
import threading
import weakref

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, ops
from minispore._autodiff import tape as tape_mod


def transform_state():
    return tape_mod._state.tape, tape_mod._active


def test_nothing_is_recorded_outside_a_transform():
    x = Tensor(np.ones(3, np.float32))
    y = ops.tanh(x * 2 + 1)
    assert y._tape is None
    assert transform_state() == (None, 0)


def test_ten_thousand_op_chain_has_no_recursion_limit():
    def f(x):
        y = x
        for _ in range(10_000):
            y = y * 1.0001
        return y.sum()
    g = ms.grad(f)(Tensor(np.float64(1.0)))
    np.testing.assert_allclose(g.asnumpy(), 1.0001 ** 10_000, rtol=1e-10)


def test_no_intermediate_survives_value_and_grad():
    refs = []

    def f(x):
        y = ops.exp(x * 2.0)
        z = ops.tanh(y) * y
        refs.extend([weakref.ref(y), weakref.ref(z), weakref.ref(y._data), weakref.ref(z._data)])
        return z.sum()

    value, grad = ms.value_and_grad(f)(Tensor(np.linspace(-1, 1, 5)))
    del value, grad
    gc.collect()
    assert all(r() is None for r in refs)
    assert transform_state() == (None, 0)


def test_no_intermediate_survives_a_nested_transform():
    refs = []

    def f(x):
        y = ops.sin(x) * x
        refs.append(weakref.ref(y))
        return y.sum()

    g2 = ms.grad(ms.grad(f))(Tensor(np.float64(0.4)))
    del g2
    gc.collect()
    assert all(r() is None for r in refs)


def test_saved_arrays_are_freed_as_backward_passes():
    seen = []

    class Spy:
        def __init__(self, arr):
            self.ref = weakref.ref(arr)

    def f(x):
        y = ops.exp(x)
        seen.append(Spy(y._data))
        return (y * y).sum()

    ms.grad(f)(Tensor(np.ones(4)))
    gc.collect()
    assert seen[0].ref() is None


def test_state_is_clean_after_an_error_inside_the_function():
    p = Parameter(Tensor(np.ones(2, np.float32)), name="p")

    def bad(x):
        y = x * p
        raise KeyError("boom")

    with pytest.raises(KeyError):
        ms.grad(bad, 0, [p])(Tensor(np.ones(2, np.float32)))
    assert transform_state() == (None, 0)
    assert p._tape is None
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(ms.grad(lambda t: (t[1] * t).sum())(x).asnumpy(), [2.0, 5.0])


def test_state_is_clean_after_an_error_in_a_nested_transform():
    def outer(x):
        def inner(y):
            raise ValueError("inner failed")
        try:
            ms.grad(inner)(x)
        except ValueError:
            pass
        return (x * x).sum()

    np.testing.assert_allclose(ms.grad(outer)(Tensor(np.float64(3.0))).asnumpy(), 6.0)
    assert transform_state() == (None, 0)


def test_parameters_are_untracked_after_the_transform():
    p = Parameter(Tensor(np.ones(2, np.float32)), name="p")
    ms.grad(lambda x: (x * p).sum(), 0, p)(Tensor(np.ones(2, np.float32)))
    assert p._tape is None
    assert (p * 2)._tape is None


def test_in_place_write_to_a_saved_tensor_is_loud():
    def f(x):
        y = ops.tanh(x)  # Tanh saves its output
        y[0] = 5.0
        return y.sum()

    with pytest.raises(RuntimeError, match="Tanh"):
        ms.grad(f)(Tensor(np.array([0.1, 0.2], np.float32)))
    assert transform_state() == (None, 0)


def test_set_data_on_a_saved_parameter_is_loud():
    p = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="p")

    def f(x):
        out = (x * p).sum()  # Mul saves p
        p.set_data(Tensor(np.array([9.0, 9.0], np.float32)))
        return out

    with pytest.raises(RuntimeError, match="Mul"):
        ms.grad(f)(Tensor(np.array([3.0, 4.0], np.float32)))


def test_setitem_on_a_tensor_not_saved_is_exact():
    def f(a):
        b = a * 1
        b[0] = 0.0
        return (b * b).sum()
    g = ms.grad(f)(Tensor(np.array([1.0, 2.0, 3.0], np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [0.0, 4.0, 6.0])


def test_setitem_under_a_transform_writes_through_views():
    # As in eager execution, a write into a view writes its base; a base saved for backward
    # and then changed makes backward refuse (the gradient would use the new values).
    const = Tensor(np.array([1.0, 2.0, 3.0], np.float32))

    def f(x):
        y = x * const  # saves const
        view = const[0:2]
        view[0] = 100.0
        return y.sum()

    with pytest.raises(RuntimeError, match="modified in place"):
        ms.grad(f)(Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(const.asnumpy(), [1.0, 2.0, 3.0])  # the failed call rolled back

    scale = Tensor(np.array([1.0, 2.0, 3.0], np.float32))

    def g(x):
        scale[0:2][0] = 100.0  # before any use: the product sees the written value
        return (x * scale).sum()

    np.testing.assert_allclose(ms.grad(g)(Tensor(np.ones(3, np.float32))).asnumpy(),
                               [100.0, 2.0, 3.0])


def test_recording_is_thread_local():
    started, release = threading.Event(), threading.Event()
    seen = {}

    def other_thread():
        started.wait()
        y = Tensor(np.ones(2, np.float32)) * 2
        seen["tape"] = y._tape
        seen["state"] = tape_mod._state.tape
        release.set()

    t = threading.Thread(target=other_thread)
    t.start()

    def f(x):
        started.set()
        release.wait(10)
        return (x * x).sum()

    g = ms.grad(f)(Tensor(np.array([1.0, 2.0], np.float32)))
    t.join()
    assert seen == {"tape": None, "state": None}
    np.testing.assert_allclose(g.asnumpy(), [2.0, 4.0])


def test_two_threads_differentiate_the_same_parameter():
    p = Parameter(Tensor(np.array([2.0], np.float64)), name="p")
    errors, results = [], {}
    barrier = threading.Barrier(2)

    def work(k):
        try:
            barrier.wait(10)
            for _ in range(50):
                x = Tensor(np.array([float(k)], np.float64))
                g = ms.grad(lambda t: (t * p * p).sum(), None, p)(x)
                results.setdefault(k, set()).add(float(g.asnumpy()[0]))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in (1, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results == {1: {4.0}, 3: {12.0}}
