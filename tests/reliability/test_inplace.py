"""In-place writes are exact or loud (docs/reliability.md §2).

Every scenario writes in place somewhere inside a differentiated function. Each is either
"loud": the call raises (a RuntimeError from backward naming the primitive whose saved value
changed, or NumPy's read-only error for a write through `asnumpy()`), or "exact": the gradient
equals its closed form. A scenario that returns any other gradient is a silently wrong one.
"""
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, experimental, nn, ops
from minispore._autodiff import tape as tape_mod


def t(*values):
    return Tensor(np.array(values, np.float64))


@dataclass
class Scenario:
    id: str
    run: Callable  # returns the gradient (a Tensor or tuple of Tensors)
    loud: Optional[str] = None  # words the error must contain, if the scenario must raise
    exact: object = None  # else: the expected gradient


def _sgd_inside():
    net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    opt = nn.SGD(net.trainable_params(), 0.5)

    def f(x):
        out = net(x).sum()  # Dense saves the weight
        opt((Tensor(np.ones((1, 2), np.float32)), Tensor(np.ones(1, np.float32))))
        return out
    return ms.grad(f)(Tensor(np.ones((1, 2), np.float32)))


def _torch_style_inside():
    w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    opt = experimental.optim.SGD([w], lr=0.1)

    def f(x):
        out = (x * w).sum()
        opt((Tensor(np.ones(2, np.float32)),))
        return out
    return ms.grad(f)(Tensor(np.ones(2, np.float32)))


def _load_param_inside():
    net = nn.Dense(2, 1)
    values = {p.name: Parameter(Tensor(p.asnumpy() + 1), name=p.name)
              for p in net.get_parameters()}

    def f(x):
        out = net(x).sum()
        ms.load_param_into_net(net, values)
        return out
    return ms.grad(f)(Tensor(np.ones((1, 2), np.float32)))


def _load_state_dict_inside():
    net = nn.Dense(2, 1)
    values = {k: Tensor(v.asnumpy() * 2) for k, v in net.state_dict().items()}

    def f(x):
        out = net(x).sum()
        net.load_state_dict(values)
        return out
    return ms.grad(f)(Tensor(np.ones((1, 2), np.float32)))


def _batchnorm_twice():
    bn = nn.BatchNorm1d(2)
    bn.set_train()

    def f(x):
        y = (bn(x) * bn.moving_mean).sum()  # Mul saves moving_mean ...
        bn(x * 2.0)  # ... which this forward updates in place
        return y
    return ms.grad(f)(Tensor(np.array([[1.0, 2.0], [3.0, 5.0]], np.float32)))


def _cell_to_inside():
    net = nn.Dense(2, 1)

    def f(x):
        out = net(x).sum()
        net.to(ms.float64)
        return out
    return ms.grad(f)(Tensor(np.ones((1, 2), np.float32)))


def _nested_setitem():
    def f(x):
        y = x * x
        y[0] = ops.sin(x[0])  # overwrite before use
        return (y * x).sum()
    # f = sin(x0) x0 + x1^3: f'' = [2 cos x0 - x0 sin x0, 6 x1]
    return ms.grad(ms.grad(f))(t(0.5, 2.0))


def _stale_tape_write():
    c = t(1.0, 2.0)
    ms.grad(lambda x: (x * c).sum())(t(3.0, 4.0))
    c[0] = 10.0  # the first call is over: its tape is gone
    return ms.grad(lambda x: (x * c).sum())(t(3.0, 4.0))


SCENARIOS = [
    # ---- loud: a value saved for backward was written -------------------------------------------
    Scenario("setitem-saved-output", lambda: ms.grad(
        lambda x: _do(ops.tanh(x), lambda y: y.__setitem__(0, 5.0)).sum())(t(0.1, 0.2)),
        loud="Tanh"),
    Scenario("setitem-tracked-input-saved-by-mul", lambda: ms.grad(
        lambda x: _then(x * x, lambda: x.__setitem__(1, 7.0)).sum())(t(1.0, 2.0)), loud="Mul"),
    Scenario("setitem-saved-constant", lambda: _const_write(lambda c: c.__setitem__(0, 50.0)),
             loud="Mul"),
    Scenario("add_-saved-constant", lambda: _const_write(lambda c: c.add_(1.0)), loud="Mul"),
    Scenario("sub_-saved-constant", lambda: _const_write(lambda c: c.sub_(1.0)), loud="Mul"),
    Scenario("div_-saved-constant", lambda: _const_write(lambda c: c.div_(2.0)), loud="Mul"),
    Scenario("fill_-saved-constant", lambda: _const_write(lambda c: c.fill_(3.0)), loud="Mul"),
    Scenario("zero_-saved-constant", lambda: _const_write(lambda c: c.zero_()), loud="Mul"),
    Scenario("copy_-saved-constant", lambda: _const_write(lambda c: c.copy_(t(0.0, 0.0))),
             loud="Mul"),
    Scenario("assign_value-saved-constant", lambda: _const_write(
        lambda c: c.assign_value(t(4.0, 4.0))), loud="Mul"),
    Scenario("mul_-saved-output", lambda: ms.grad(
        lambda x: _do(ops.exp(x), lambda y: y.mul_(2.0)).sum())(t(0.1, 0.2)), loud="Exp"),
    Scenario("set_data-saved-parameter", lambda: _param_write(
        lambda p: p.set_data(t(9.0, 9.0))), loud="Mul"),
    Scenario("ops.assign-saved-parameter", lambda: _param_write(
        lambda p: ops.assign(p, t(5.0, 5.0))), loud="Mul"),
    Scenario("assign_value-saved-parameter", lambda: _param_write(
        lambda p: p.assign_value(t(5.0, 5.0))), loud="Mul"),
    Scenario("setitem-saved-parameter", lambda: _param_write(
        lambda p: p.__setitem__(0, 3.0)), loud="Mul"),
    Scenario("setitem-parameter-being-differentiated", lambda: ms.grad(
        lambda x, p: _then(x * p, lambda: p.__setitem__(0, 1.0)).sum(), 0,
        _PARAM_HOLDER.fresh())(t(1.0, 2.0), _PARAM_HOLDER.last), loud="cannot be written"),
    Scenario("optimizer-step-inside", _sgd_inside, loud="Dense"),
    Scenario("torch-style-optimizer-step-inside", _torch_style_inside, loud="Mul"),
    Scenario("load_param_into_net-inside", _load_param_inside, loud="Dense"),
    Scenario("load_state_dict-inside", _load_state_dict_inside, loud="Dense"),
    Scenario("batchnorm-moving-mean-updated-after-use", _batchnorm_twice, loud="Mul"),
    Scenario("cell.to-inside", _cell_to_inside, loud="Dense"),
    Scenario("asnumpy-write-saved-output", lambda: ms.grad(
        lambda x: _do(ops.tanh(x), lambda y: y.asnumpy().__setitem__(0, 5.0)).sum())(
        t(0.1, 0.2)), loud="read-only"),
    Scenario("asnumpy-write-saved-constant", lambda: _const_write(
        lambda c: c.asnumpy().__setitem__(0, 50.0)), loud="read-only"),
    Scenario("write-to-view-of-saved-constant", lambda: _view_write(), loud="Mul"),
    Scenario("copy_-base-of-saved-view", lambda: _base_write(), loud="MatMul"),
    Scenario("np.asarray-write-saved-output", lambda: ms.grad(
        lambda x: _do(ops.exp(x), lambda y: np.asarray(y).__setitem__(0, 5.0)).sum())(
        t(0.1, 0.2)), loud="read-only"),
    # ---- exact: the write does not touch anything saved ---------------------------------------
    Scenario("setitem-unsaved-intermediate", lambda: ms.grad(
        lambda a: _square_sum(_do(a * 1.0, lambda b: b.__setitem__(0, 0.0))))(t(1.0, 2.0, 3.0)),
        exact=[0.0, 4.0, 6.0]),
    Scenario("mul_-unsaved-intermediate", lambda: ms.grad(
        lambda x: _square_sum(_do(x * 2.0, lambda y: y.mul_(3.0))))(t(1.0, 2.0)),
        exact=[72.0, 144.0]),
    Scenario("rebinding-is-not-in-place", lambda: _rebind(), exact=[1.0, 2.0]),
    Scenario("write-before-use", lambda: _const_write_first(), exact=[5.0, 2.0]),
    Scenario("setitem-with-tracked-value", lambda: ms.grad(
        lambda x: _do(x * 2.0, lambda y: y.__setitem__(0, x[0] ** 3)).sum())(t(2.0, 3.0)),
        exact=[12.0, 2.0]),
    Scenario("second-order-through-setitem", _nested_setitem,
             exact=[2 * np.cos(0.5) - 0.5 * np.sin(0.5), 12.0]),
    Scenario("write-after-an-earlier-call", _stale_tape_write, exact=[10.0, 2.0]),
]


class _ParamHolder:
    last = None

    def fresh(self):
        self.last = Parameter(t(1.0, 2.0), name="p")
        return self.last


_PARAM_HOLDER = _ParamHolder()


def _do(y, write):
    write(y)
    return y


def _then(y, write):
    write()
    return y


def _square_sum(y):
    return (y * y).sum()


def _const_write(write):
    c = t(1.0, 2.0)

    def f(x):
        y = x * c  # Mul saves c
        write(c)
        return y.sum()
    return ms.grad(f)(t(0.1, 0.2))


def _const_write_first():
    c = t(1.0, 2.0)

    def f(x):
        c[0] = 5.0
        return (x * c).sum()
    return ms.grad(f)(t(0.1, 0.2))


def _param_write(write):
    p = Parameter(t(1.0, 2.0), name="p")

    def f(x):
        y = (x * p).sum()  # Mul saves p
        write(p)
        return y
    return ms.grad(f)(t(0.1, 0.2))


def _view_write():
    const = t(1.0, 2.0, 3.0)

    def f(x):
        y = x * const
        view = const[0:2]
        view[0] = 100.0  # writes const, as in eager execution: Mul's saved value changed
        return y.sum()
    return ms.grad(f)(t(1.0, 1.0, 1.0))


def _base_write():
    c = t(1.0, 2.0)
    column = c.reshape(2, 1)

    def f(x):
        y = ops.matmul(x.reshape(1, 2), column)  # MatMul saves the view
        c.copy_(t(0.0, 0.0))  # which shows the write, as in eager execution
        return y.sum()
    return ms.grad(f)(t(0.1, 0.2))


def _rebind():
    holder = [t(1.0, 2.0)]

    def f(x):
        y = x * holder[0]
        holder[0] += 1  # a new tensor; the saved one is untouched
        return y.sum()
    return ms.grad(f)(t(0.1, 0.2))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_in_place_write_is_exact_or_loud(scenario, record_property):
    if scenario.loud is not None:
        with pytest.raises((RuntimeError, ValueError)) as info:
            scenario.run()
        assert scenario.loud.lower() in str(info.value).lower(), str(info.value)
        if isinstance(info.value, RuntimeError) and "saved" in str(info.value):
            assert "in place" in str(info.value)
        record_property("outcome", "loud")
    else:
        g = scenario.run()
        np.testing.assert_allclose(g.asnumpy(), scenario.exact, rtol=1e-12)
        record_property("outcome", "exact")
    # Nothing of the call is left behind, and the next call works.
    assert tape_mod._state.tape is None and tape_mod._active == 0
    np.testing.assert_array_equal(ms.grad(lambda x: (x * x).sum())(t(1.0, 3.0)).asnumpy(),
                                  [2.0, 6.0])


def test_at_least_fifteen_scenarios_both_kinds():
    assert len(SCENARIOS) >= 15 and len({s.id for s in SCENARIOS}) == len(SCENARIOS)
    assert sum(s.loud is not None for s in SCENARIOS) >= 15


def test_every_in_place_entry_point_bumps_the_version():
    p = Parameter(t(1.0, 2.0), name="p")
    c = t(1.0, 2.0)
    net = nn.Dense(2, 1)
    writes = [
        (c, lambda: c.__setitem__(0, 1.0)), (c, lambda: c.add_(1.0)), (c, lambda: c.fill_(2.0)),
        (c, lambda: c.copy_(t(3.0, 4.0))), (c, lambda: c.assign_value(t(1.0, 1.0))),
        (p, lambda: p.set_data(t(0.0, 0.0))), (p, lambda: ops.assign(p, t(1.0, 1.0))),
        (p, lambda: p.assign_value(t(2.0, 2.0))), (p, lambda: p.__setitem__(1, 0.0)),
        (net.weight, lambda: nn.SGD(net.trainable_params(), 0.1)(
            (Tensor(np.ones((1, 2), np.float32)), Tensor(np.ones(1, np.float32))))),
        (net.bias, lambda: ms.load_param_into_net(
            net, {"bias": Parameter(Tensor(np.ones(1, np.float32)), name="bias")})),
    ]
    for tensor, write in writes:
        before = tensor._version
        write()
        assert tensor._version > before
