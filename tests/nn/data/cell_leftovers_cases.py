"""Cases for `Cell.register_parameter_forward_hook`, `Cell.to_empty`, `nn.no_init_parameters` and
`requires_grad_`, written for MindSpore's or minispore's module (`ms`, with `jit` standing for
how the module runs parameter hooks: MindSpore applies them only under `ms.jit`).
make_cell_leftovers.py runs them on MindSpore 2.10 into cell_leftovers.json;
tests/nn/test_cell_leftovers.py runs them on minispore."""
import importlib

import numpy as np


def _v(t):
    return np.asarray(t.asnumpy(), np.float64).round(5).tolist()


def _nest(x):
    return [_nest(i) for i in x] if isinstance(x, tuple) else _v(x)


def _net(ms):
    class Inner(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.c = ms.Parameter(ms.Tensor(np.float32(5.0)), name="c")

        def construct(self, x):
            return x * self.c

    class Outer(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.weight = ms.Parameter(ms.Tensor(np.float32(2.0)), name="w")
            self.b = ms.Parameter(ms.Tensor(np.float32(1.0)), name="b")
            self.inner = Inner()

        def construct(self, x):
            return self.inner(x * self.weight + self.b)
    return Outer()


def times10(p):
    return p * 10


def plus1(p):
    return p + 1


def _run(ms, jit, net):
    data = ms.Tensor(np.float32(3.0))
    return _nest(jit(ms.value_and_grad(net, grad_position=0, weights=net.trainable_params()))(data))


def param_hook_chosen(ms, jit):
    net = _net(ms)
    net.register_parameter_forward_hook([{"params": [net.weight], "hook": times10}])
    return _run(ms, jit, net)


def param_hook_all(ms, jit):
    net = _net(ms)
    net.register_parameter_forward_hook(plus1)
    return _run(ms, jit, net)


def param_hook_on_a_child(ms, jit):
    net = _net(ms)
    net.inner.register_parameter_forward_hook(plus1)
    return _run(ms, jit, net)


def param_hook_chosen_beats_all(ms, jit):
    net = _net(ms)
    net.register_parameter_forward_hook(plus1)
    net.register_parameter_forward_hook([{"params": [net.weight], "hook": times10}])
    return _run(ms, jit, net)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the case records which type)
        return type(e).__name__
    return None


def param_hook_errors(ms, jit):
    net = _net(ms)
    return [_error(lambda: net.register_parameter_forward_hook([{"params": [1], "hook": plus1}])),
            _error(lambda: net.register_parameter_forward_hook([{"hook": plus1}])),
            _error(lambda: net.register_parameter_forward_hook([{"params": [net.b],
                                                                  "hook": 3}])),
            _error(lambda: net.register_parameter_forward_hook(3)),
            _error(lambda: net.register_parameter_forward_hook([3]))]


def no_init(ms, jit):
    utils = importlib.import_module(ms.__name__ + ".nn.utils")
    initializer = ms.common.initializer.initializer
    with ms.nn.no_init_parameters():
        dense = ms.nn.Dense(3, 2)
        made = ms.Parameter(initializer("ones", [2], ms.float32), name="made")
        given = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="given")
        later = ms.Parameter(initializer("ones", [2], ms.float32), name="later")
        replaced = ms.Parameter(initializer("ones", [2], ms.float32), name="replaced")
    flags = [dense.weight.has_init, dense.bias.has_init, made.has_init, given.has_init,
             ms.Parameter.init_param, utils.no_init_parameters is ms.nn.no_init_parameters]
    shape_dtype = [list(made.shape), str(made.dtype), repr(made)]
    out = dense(ms.Tensor(np.ones((1, 3), np.float32)))
    after_use = [dense.weight.has_init, list(out.shape)]
    later_values = _v(later.init_data())
    replaced.set_data(ms.Tensor(np.array([5.0, 6.0], np.float32)))
    return {"flags": flags, "shape_dtype": shape_dtype, "after_use": after_use,
            "later": [later_values, later.has_init],
            "replaced": [_v(replaced), replaced.has_init]}


def no_init_cell_data(ms, jit):
    with ms.nn.no_init_parameters():
        net = ms.nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    net.init_parameters_data()
    return [net.weight.has_init, _v(net.weight), _v(net.bias)]


def to_empty(ms, jit):
    class WithBuffer(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = ms.nn.Dense(2, 2)
            self.w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
            self.register_buffer("buf", ms.Tensor(np.ones(3, np.float32)))
    cell = WithBuffer()
    w, buf = cell.w, cell.buf
    top = cell.to_empty(recurse=False)
    shallow = [top is cell, cell.w is w, cell.buf is buf, list(cell.buf.shape), str(cell.buf.dtype)]
    cell.to_empty(device="CPU")
    deep = [cell.dense.weight.name, list(cell.dense.weight.shape), str(cell.dense.weight.dtype)]
    errors = [_error(lambda: cell.to_empty(device="foo")), _error(lambda: cell.to_empty(device=1))]
    return {"shallow": shallow, "deep": deep, "errors": errors}


def requires_grad_(ms, jit):
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")
    r = p.requires_grad_(False)
    first = [p.requires_grad, r]
    p.requires_grad_()
    t = ms.Tensor(np.ones(2, np.float32))
    plain = [t.requires_grad_(), _v(t)]
    net = ms.nn.Dense(2, 2)
    net.bias.requires_grad_(False)
    return {"first": first, "again": p.requires_grad, "plain": plain,
            "trainable": [q.name for q in net.trainable_params()]}


CASES = [param_hook_chosen, param_hook_all, param_hook_on_a_child, param_hook_chosen_beats_all,
         param_hook_errors, no_init, no_init_cell_data, to_empty, requires_grad_]


def run_all(ms, jit):
    return {case.__name__: case(ms, jit) for case in CASES}
