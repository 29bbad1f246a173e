"""Saved-tensor hook cases, written for MindSpore's or minispore's module (`ms`): each returns
a JSON-able record of what the hooks saw and the gradients. make_saved_hooks.py runs them on
MindSpore 2.10 into saved_hooks.json; tests/autodiff/test_saved_hooks.py runs them on minispore."""
import numpy as np


def _v(t):
    return np.asarray(t.asnumpy(), np.float64).round(5).tolist()


def _grads(g):
    return [_v(t) for t in g] if isinstance(g, tuple) else _v(g)


def _logging(log, tag, fn):
    def hook(t):
        log.append([tag, _v(t)])
        return fn(t)
    return hook


def _xy(ms):
    return (ms.Tensor(np.array([1.0, 2.0], np.float32)),
            ms.Tensor(np.array([3.0, 4.0], np.float32)))


def mul_both_inputs(ms):
    log = []
    pack, unpack = _logging(log, "pack", lambda t: t + 1), _logging(log, "unpack", lambda t: t)

    def f(x, y):
        with ms.saved_tensors_hooks(pack, unpack):
            out = x * y
        return out
    out, g = ms.value_and_grad(f, grad_position=(0, 1))(*_xy(ms))
    return {"out": _v(out), "grads": _grads(g), "log": log}


def exp_saves_output(ms):
    log = []
    pack, unpack = _logging(log, "pack", lambda t: t + 1), _logging(log, "unpack", lambda t: t)

    def f(x):
        with ms.saved_tensors_hooks(pack, unpack):
            out = ms.ops.exp(x)
        return out.sum()
    return {"grads": _grads(ms.grad(f)(_xy(ms)[0])), "log": log}


def innermost_hooks_apply(ms):
    log = []
    outer = _logging(log, "outer", lambda t: t + 1)
    inner = _logging(log, "inner", lambda t: t * 10)
    unpack = _logging(log, "unpack", lambda t: t)

    def f(x, y):
        with ms.saved_tensors_hooks(outer, unpack):
            with ms.saved_tensors_hooks(inner, unpack):
                out = x * y
        return out
    return {"grads": _grads(ms.grad(f)(*_xy(ms))), "log": log}


def packed_value_in_higher_order(ms):
    def f(x):
        with ms.saved_tensors_hooks(lambda t: t * 2, lambda p: p):
            return ms.ops.sin(x).sum()
    x = _xy(ms)[0]
    return {"first": _grads(ms.grad(f)(x)), "second": _grads(ms.grad(ms.grad(f))(x))}


def second_order_packs_forward_only(ms):
    log = []

    def f(x):
        with ms.saved_tensors_hooks(_logging(log, "pack", lambda t: t), lambda p: p):
            return (x * x * x).sum()
    return {"second": _grads(ms.grad(ms.grad(f))(_xy(ms)[0])), "log": log}


def cell_hooks(ms):
    log = []

    class Net(ms.nn.Cell):
        def construct(self, x, y):
            return x * y
    net = Net()
    net.register_saved_tensors_hooks(_logging(log, "pack", lambda t: t + 1),
                                     _logging(log, "unpack", lambda t: t))
    g = ms.grad(net, grad_position=(0, 1))(*_xy(ms))
    plain = net(*_xy(ms))  # outside a gradient nothing is saved
    return {"grads": _grads(g), "log": log, "plain": _v(plain)}


def no_gradient_no_packing(ms):
    log = []
    x, y = _xy(ms)
    with ms.saved_tensors_hooks(_logging(log, "pack", lambda t: t), lambda p: p):
        out = x * y
    return {"out": _v(out), "log": log}


def packed_as_other_objects(ms):
    def pack(t):
        return ("kept", t.asnumpy())

    def unpack(p):
        return ms.Tensor(p[1] * 2)

    def f(x, y):
        with ms.saved_tensors_hooks(pack, unpack):
            return x * y
    return {"grads": _grads(ms.grad(f, grad_position=(0, 1))(*_xy(ms)))}


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the case records which type)
        return type(e).__name__
    return None


def unpack_must_give_a_tensor(ms):
    def f(x, y):
        with ms.saved_tensors_hooks(lambda t: t, lambda p: p.asnumpy()):
            return x * y
    return {"error": _error(lambda: ms.grad(f)(*_xy(ms)))}


def hooks_must_be_callable(ms):
    def f(x, y):
        with ms.saved_tensors_hooks(1, 2):
            return x * y
    return {"error": _error(lambda: ms.grad(f)(*_xy(ms)))}


def custom_bprop_cell(ms):
    log = []

    class Scaled(ms.nn.Cell):
        def construct(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return dout * y * 10, dout * x

    def f(x, y):
        with ms.saved_tensors_hooks(_logging(log, "pack", lambda t: t),
                                    _logging(log, "unpack", lambda t: t)):
            return Scaled()(x, y)
    return {"grads": _grads(ms.grad(f, grad_position=(0, 1))(*_xy(ms))), "log": log}


def recomputed_cell(ms):
    log = []

    class Block(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.recompute()

        def construct(self, x):
            return ms.ops.sin(x) * x

    def f(x):
        with ms.saved_tensors_hooks(_logging(log, "pack", lambda t: t),
                                    _logging(log, "unpack", lambda t: t)):
            return Block()(x).sum()
    return {"grads": _grads(ms.grad(f)(_xy(ms)[0])), "log": log}


CASES = [custom_bprop_cell, recomputed_cell, mul_both_inputs, exp_saves_output, innermost_hooks_apply, packed_value_in_higher_order,
         second_order_packs_forward_only, cell_hooks, no_gradient_no_packing,
         packed_as_other_objects, unpack_must_give_a_tensor, hooks_must_be_callable]


def run_all(ms):
    return {case.__name__: case(ms) for case in CASES}
