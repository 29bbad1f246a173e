"""The older gradient API and result structures: GradOperation with
get_all / get_by_list / sens_param, grad of a Cell, sens_param, return_ids and get_grad. The
expected text was printed by MindSpore 2.10 (CPU, PyNative) running these same calls."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops

EXPECTED = """\
GO default T[6.0, 20.0]
GO get_all tuple(T[6.0, 20.0], T[2.0, 10.0])
GO by_list tuple(T[3.0, 8.0], T[2.0])
GO both tuple(tuple(T[6.0, 20.0], T[2.0, 10.0]), tuple(T[3.0, 8.0], T[2.0]))
GO sens T[6.0, 200.0]
GO all sens tuple(T[6.0, 200.0], T[2.0, 100.0])
GO list sens tuple(T[3.0, 80.0], T[11.0])
GO list plain list tuple(T[3.0, 8.0], T[2.0])
GO get_all 1in tuple(T[2.0, 4.0])
grad net T[6.0, 20.0]
grad net w tuple(T[6.0, 20.0], tuple(T[3.0, 8.0], T[2.0]))
grad net None w tuple(T[3.0, 8.0], T[2.0])
grad sens tuple(T[6.0, 200.0], T[2.0, 100.0])
vag sens tuple(T[7.0, 41.0], tuple(T[6.0, 200.0], T[2.0, 100.0]))
grad ids pos tuple(tuple(0, T[6.0, 20.0]), tuple(1, T[2.0, 10.0]))
grad ids w tuple(tuple('w', T[3.0, 8.0]), tuple('b', T[2.0]))
grad ids both tuple(tuple(tuple(0, T[6.0, 20.0]), tuple(1, T[2.0, 10.0])), \
tuple(tuple('w', T[3.0, 8.0]), tuple('b', T[2.0])))
grad ids both int tuple(tuple(0, T[6.0, 20.0]), tuple(tuple('w', T[3.0, 8.0]), tuple('b', T[2.0])))
get_grad 1 T[2.0, 10.0]
get_grad param T[3.0, 8.0]
get_grad missing ERR RuntimeError
grad tuple out sens tuple(T[4.0, 50.0], T[2.0, 30.0])
grad sens list tuple(T[4.0, 50.0], T[2.0, 30.0])
grad has_aux sens tuple(tuple(T[3.0, 40.0], T[1.0, 20.0]), tuple(T[4.0, 6.0]))
vag has_aux sens tuple(tuple(T[3.0, 8.0], T[4.0, 6.0]), tuple(T[3.0, 40.0], T[1.0, 20.0]))
"""


def show(v):
    if isinstance(v, (tuple, list)):
        return type(v).__name__ + "(" + ", ".join(show(a) for a in v) + ")"
    if isinstance(v, Tensor):
        return "T" + str(np.round(v.asnumpy().astype(np.float64), 4).tolist())
    return repr(v)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([2., 5.], np.float32)), name="w")
        self.b = ms.Parameter(Tensor(np.array([1.], np.float32)), name="b")

    def construct(self, x, y):
        return x * self.w * y + self.b


def transcript():
    net = Net()
    x = Tensor(np.array([1., 2.], np.float32))
    y = Tensor(np.array([3., 4.], np.float32))
    sens = Tensor(np.array([1., 10.], np.float32))
    P = ms.ParameterTuple(net.trainable_params())
    lines = []

    def run(name, f):
        try:
            lines.append(f"{name} {show(f())}")
        except Exception as e:  # noqa: BLE001  (the transcript records the error type)
            lines.append(f"{name} ERR {type(e).__name__}")

    GO = ops.GradOperation
    run("GO default", lambda: GO()(net)(x, y))
    run("GO get_all", lambda: GO(get_all=True)(net)(x, y))
    run("GO by_list", lambda: GO(get_by_list=True)(net, P)(x, y))
    run("GO both", lambda: GO(get_all=True, get_by_list=True)(net, P)(x, y))
    run("GO sens", lambda: GO(sens_param=True)(net)(x, y, sens))
    run("GO all sens", lambda: GO(get_all=True, sens_param=True)(net)(x, y, sens))
    run("GO list sens", lambda: GO(get_by_list=True, sens_param=True)(net, P)(x, y, sens))
    run("GO list plain list", lambda: GO(get_by_list=True)(net, net.trainable_params())(x, y))
    run("GO get_all 1in", lambda: GO(get_all=True)(lambda a: (a * a).sum())(x))
    ws = net.trainable_params()
    run("grad net", lambda: ms.grad(net)(x, y))
    run("grad net w", lambda: ms.grad(net, weights=ws)(x, y))
    run("grad net None w", lambda: ms.grad(net, None, ws)(x, y))
    run("grad sens", lambda: ms.grad(net, (0, 1), sens_param=True)(x, y, sens))
    run("vag sens", lambda: ms.value_and_grad(net, (0, 1), sens_param=True)(x, y, sens))
    run("grad ids pos", lambda: ms.grad(net, (0, 1), return_ids=True)(x, y))
    run("grad ids w", lambda: ms.grad(net, None, ws, return_ids=True)(x, y))
    run("grad ids both", lambda: ms.grad(net, (0, 1), ws, return_ids=True)(x, y))
    run("grad ids both int", lambda: ms.grad(net, 0, ws, return_ids=True)(x, y))
    g = ms.grad(net, (0, 1), ws, return_ids=True)(x, y)
    run("get_grad 1", lambda: ms.get_grad(g, 1))
    run("get_grad param", lambda: ms.get_grad(g, net.w))
    run("get_grad missing", lambda: ms.get_grad(g, 7))

    def two(a, b):
        return a * b, a + b

    run("grad tuple out sens", lambda: ms.grad(two, (0, 1), sens_param=True)(x, y, (sens, sens)))
    run("grad sens list", lambda: ms.grad(two, (0, 1), sens_param=True)(x, y, [sens, sens]))
    run("grad has_aux sens",
        lambda: ms.grad(two, (0, 1), has_aux=True, sens_param=True)(x, y, sens))
    run("vag has_aux sens",
        lambda: ms.value_and_grad(two, (0, 1), has_aux=True, sens_param=True)(x, y, sens))
    return lines


def test_results_match_mindspore_line_by_line():
    got = transcript()
    want = EXPECTED.strip().splitlines()
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == w


def test_get_grad_also_takes_a_parameter_name():
    net = Net()
    x = Tensor(np.array([1., 2.], np.float32))
    g = ms.grad(net, (0, 1), net.trainable_params(), return_ids=True)(x, x)
    # MindSpore 2.10 accepts only a position or a Parameter here (TypeError for a str)
    np.testing.assert_array_equal(ms.get_grad(g, "w").asnumpy(), ms.get_grad(g, net.w).asnumpy())
    with pytest.raises(RuntimeError, match="get_grad.*'nope'"):
        ms.get_grad(g, "nope")


def test_grad_operation_argument_errors():
    with pytest.raises(TypeError, match="GradOperation.*get_all.*bool"):
        ops.GradOperation(get_all=1)
    with pytest.raises(ValueError, match="GradOperation.*get_by_list.*params"):
        ops.GradOperation(get_by_list=True)(Net())
    with pytest.raises(TypeError, match="GradOperation.*callable"):
        ops.GradOperation()(3)
