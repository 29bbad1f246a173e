"""User-written backward rules: Cell.bprop, bprop_getters
registrations on user primitives, ops.Custom with a Python bprop. Values match MindSpore 2.10;
the error types follow our rules (MindSpore raises RuntimeError from C++ for all of them)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.ops._grad.grad_base import bprop_getters as bprop_getters_1x
from minispore.ops._grad_experimental.grad_base import bprop_getters
from minispore.testing import check_grads


def t(*v, dtype=np.float32):
    return Tensor(np.array(v, dtype))


def close(a, expected, rtol=1e-6):
    np.testing.assert_allclose(a.asnumpy(), np.asarray(expected), rtol=rtol)


# ---- Cell.bprop ------------------------------------------------------------------------------

class Scaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(t(2, 5), name="w")
        self.seen = []

    def construct(self, a, b):
        return a * self.w * b

    def bprop(self, a, b, out, dout):
        self.seen.append((a.asnumpy().tolist(), b.asnumpy().tolist(), out.asnumpy().tolist(),
                          dout.asnumpy().tolist()))
        return dout * 10, dout * b


def test_cell_bprop_replaces_autodiff_and_zeroes_inner_parameter_gradients():
    c = Scaled()
    (ga, gb), (gw,) = ms.grad(lambda a, b: (c(a, b) * 2).sum(), (0, 1),
                              c.trainable_params())(t(1, 2), t(3, 6))
    close(ga, [20, 20])
    close(gb, [6, 12])
    close(gw, [0, 0])  # as MindSpore: the cell's own parameters get nothing
    assert c.seen == [([1, 2], [3, 6], [6, 60], [2, 2])]


def test_parameter_used_inside_and_outside_gets_the_outside_part_only():
    w = Parameter(t(2, 5), name="ww")

    class Inner(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = w

        def construct(self, a):
            return a * self.w

        def bprop(self, a, out, dout):
            return (dout,)

    inner = Inner()
    (gw,) = ms.grad(lambda a: (inner(a) + a * w).sum(), None, [w])(t(1, 2))
    close(gw, [1, 2])


def test_cell_bprop_bare_tensor_tuple_outputs_kwargs_and_constants():
    class One(nn.Cell):
        def construct(self, a):
            return a * a

        def bprop(self, a, out, dout):
            return dout * a * 3  # a bare Tensor for a one-input cell

    close(ms.grad(lambda a: One()(a).sum())(t(1, 2)), [3, 6])

    douts = []

    class Pair(nn.Cell):
        def construct(self, a):
            return a * 2, a * 3

        def bprop(self, a, out, dout):
            douts.append([d.asnumpy().tolist() for d in dout])
            return (dout[0] + dout[1],)

    close(ms.grad(lambda a: Pair()(a)[0].sum())(t(1, 2)), [1, 1])
    assert douts == [[[1, 1], [0, 0]]]  # zeros for the output that got no gradient

    class KW(nn.Cell):
        def construct(self, a, b=None, n=1):
            return a * n

        def bprop(self, a, b, n, out, dout):  # kwargs come after the positional inputs
            return dout * 5, None, 0

    close(ms.grad(lambda a: KW()(a, b=t(1, 1), n=3).sum())(t(1, 2)), [5, 5])

    class Const(nn.Cell):
        def construct(self, a, b):
            return a * b

        def bprop(self, a, b, out, dout):
            return dout * 7, None  # None: no gradient (zeros)

    ga, gb = ms.grad(lambda a, b: Const()(a, b).sum(), (0, 1))(t(1, 2), t(3, 4))
    close(ga, [7, 7])
    close(gb, [0, 0])


def test_cell_bprop_gradient_is_summed_back_and_cast():
    class Broad(nn.Cell):
        def construct(self, a):
            return a * 2

        def bprop(self, a, out, dout):
            return (Tensor(np.ones((3, 2), np.float64)),)  # broadcast shape, float64

    g = ms.grad(lambda a: Broad()(a).sum())(t(1, 2))
    assert g.dtype == ms.float32
    close(g, [3, 3])


def test_cell_bprop_is_differentiable_again():
    class Cube(nn.Cell):
        def construct(self, a):
            return a * a * a

        def bprop(self, a, out, dout):
            return (dout * 3 * a * a,)

    class CubeOut(nn.Cell):
        def construct(self, a):
            return a * a * a

        def bprop(self, a, out, dout):
            return (dout * 3 * out / a,)  # through `out` too

    for cell in (Cube(), CubeOut()):
        close(ms.grad(ms.grad(lambda a: cell(a).sum()))(t(1, 2)), [6, 12])

    x64 = Tensor(np.array([0.3, -1.2, 2.0]))
    check_grads(lambda a: Cube()(a), [x64], order=2)


def test_cell_bprop_runs_construct_unrecorded():
    seen = []

    class HookIn(nn.Cell):
        def construct(self, a):
            z = a * 2
            z.register_hook(lambda g: seen.append(g))  # never fires: nothing is recorded
            return z * 3

        def bprop(self, a, out, dout):
            return (dout,)

    close(ms.grad(lambda a: HookIn()(a).sum())(t(1, 2)), [1, 1])
    assert seen == []
    close(HookIn()(t(1, 2)), [6, 12])  # outside a transform: just construct


def test_cell_bprop_errors():
    class Short(nn.Cell):
        def construct(self, a, b):
            return a * b

        def bprop(self, a, b, out, dout):
            return (dout,)

    class WrongShape(nn.Cell):
        def construct(self, a):
            return a * 2

        def bprop(self, a, out, dout):
            return (Tensor(np.ones(3, np.float32)),)

    class NotTensor(nn.Cell):
        def construct(self, a):
            return a * 2

        def bprop(self, a, out, dout):
            return (2.0,)

    with pytest.raises(ValueError, match="Short.bprop.*1 gradients for 2 inputs"):
        ms.grad(lambda a, b: Short()(a, b).sum(), (0, 1))(t(1, 2), t(3, 4))
    with pytest.raises(ValueError, match=r"WrongShape.bprop.*\(3,\).*\(2,\)"):
        ms.grad(lambda a: WrongShape()(a).sum())(t(1, 2))
    with pytest.raises(TypeError, match="NotTensor.bprop.*Tensor.*float"):
        ms.grad(lambda a: NotTensor()(a).sum())(t(1, 2))
    close(ms.grad(lambda a: (a * a).sum())(t(1, 2)), [2, 4])  # the next call works


# ---- bprop_getters -----------------------------------------------------------------------------

class MulAdd(ops.PrimitiveWithInfer):
    """A user primitive: x * y + scale."""

    @ops.prim_attr_register
    def __init__(self, scale=1.0):
        pass

    def forward(self, x, y):
        return x * y + self.scale


@bprop_getters.register(MulAdd)
def get_bprop_mul_add(self):
    def bprop(x, y, out, dout):
        return dout * y * 2, dout * x * self.scale  # reads the instance's attribute
    return bprop


def test_bprop_getters_paths_are_one_registry():
    assert bprop_getters is bprop_getters_1x


def test_registered_bprop_of_a_user_primitive():
    m = MulAdd(scale=3.0)
    assert repr(m) == "Prim[MulAdd]<scale=3.0>"
    close(m(t(1, 2), t(3, 4)), [6, 11])
    ga, gb = ms.grad(lambda a, b: m(a, b).sum(), (0, 1))(t(1, 2), t(3, 4))
    close(ga, [6, 8])
    close(gb, [3, 6])
    # second order through the registered rule and `out`: d/db sum(4 out y) = 16ab + 12
    gg = ms.grad(lambda a, b: ms.grad(lambda a, b: (m(a, b) ** 2).sum(), 0)(a, b).sum(), 1)
    close(gg(t(1, 2), t(3, 4)), [60, 140])


def test_getter_runs_once_per_instance():
    calls = []

    class Twice(ops.Primitive):
        def forward(self, x):
            return x * 2

    @bprop_getters.register(Twice)
    def get_bprop(self):
        calls.append(self)

        def bprop(x, out, dout):
            return (dout * 2,)
        return bprop

    p = Twice()
    for _ in range(3):
        close(ms.grad(lambda a: p(a).sum())(t(1, 2)), [2, 2])
    assert calls == [p]


def test_registering_on_a_subclass_of_a_builtin_and_by_name():
    class MyReLU(ops.ReLU):
        pass

    @bprop_getters.register(MyReLU)
    def get_bprop(self):
        def bprop(x, out, dout):
            return (dout * 5,)
        return bprop

    close(ms.grad(lambda a: MyReLU()(a).sum())(t(1, -2)), [5, 5])
    close(ms.grad(lambda a: ops.ReLU()(a).sum())(t(1, -2)), [1, 0])  # the builtin is untouched

    class ByName(ops.Primitive):
        def forward(self, x):
            return x + 1

    @bprop_getters.register("ByName")
    def get_by_name(self):
        return lambda x, out, dout: (dout * 4,)

    close(ms.grad(lambda a: ByName()(a).sum())(t(1, 2)), [4, 4])


def test_user_primitive_without_a_rule():
    class NoGrad(ops.Primitive):
        def forward(self, x):
            return x * 2

    close(NoGrad()(t(1, 2)), [2, 4])
    with pytest.raises(RuntimeError, match="NoGrad.*no gradient"):
        ms.grad(lambda a: NoGrad()(a).sum())(t(1, 2))
    with pytest.raises(TypeError, match="Primitive subclass"):
        bprop_getters.register(int)(lambda self: None)


# ---- ops.Custom ------------------------------------------------------------------------------

def mul_plus_one(x, y):
    return x * y + 1.0


def mul_bprop(x, y, out, dout):
    return dout * y, dout * x * 2


def test_custom_pyfunc_with_bprop():
    c = ops.Custom(mul_plus_one, out_shape=lambda a, b: a, out_dtype=lambda a, b: a,
                   func_type="pyfunc", bprop=mul_bprop)
    assert repr(c) == "Prim[Custom]<func_name=mul_plus_one, func_type=pyfunc>"
    close(c(t(1, 2), t(3, 4)), [4, 9])
    ga, gb = ms.grad(lambda a, b: c(a, b).sum(), (0, 1))(t(1, 2), t(3, 4))
    close(ga, [3, 4])
    close(gb, [2, 4])
    c2 = ops.Custom(mul_plus_one, out_shape=(2,), out_dtype=ms.float32, bprop=mul_bprop)
    # MindSpore 2.10 gives [20, 50]: the bprop is differentiated again, through `out` too
    gg = ms.grad(lambda a, b: ms.grad(lambda a, b: (c2(a, b) ** 2).sum(), 0)(a, b).sum(), 1)
    close(gg(t(1, 2), t(3, 4)), [20, 50])


def test_custom_casts_to_out_dtype_and_checks_out_shape():
    double64 = ops.Custom(lambda x: x.astype(np.float64) * 2, out_shape=(2,),
                          out_dtype=ms.float32)
    out = double64(t(1, 2))
    assert out.dtype == ms.float32
    close(out, [2, 4])
    wrong = ops.Custom(lambda x: x * 2, out_shape=(3,), out_dtype=ms.float32)
    with pytest.raises(ValueError, match=r"Custom.*shape \(2,\).*\(3,\)"):
        wrong(t(1, 2))


def test_custom_several_outputs():
    c = ops.Custom(lambda x: (x * 2, x + 1), out_shape=((2,), (2,)),
                   out_dtype=(ms.float32, ms.float32),
                   bprop=lambda x, out, dout: (dout[0] * 2 + dout[1],))
    a, b = c(t(1, 2))
    close(a, [2, 4])
    close(b, [2, 3])
    close(ms.grad(lambda x: c(x)[0].sum())(t(1, 2)), [2, 2])
    one = ops.Custom(lambda x: (x, x), out_shape=(2,))
    with pytest.raises(ValueError, match="Custom.*2 outputs.*out_shape"):
        one(t(1, 2))


def test_custom_without_bprop_and_bad_arguments():
    c = ops.Custom(mul_plus_one, out_shape=(2,), out_dtype=ms.float32)
    close(c(t(1, 2), t(3, 4)), [4, 9])
    with pytest.raises(RuntimeError, match="Custom.*mul_plus_one.*no bprop"):
        ms.grad(lambda a, b: c(a, b).sum())(t(1, 2), t(3, 4))
    with pytest.raises(ValueError, match="func_type.*must be one of"):
        ops.Custom(mul_plus_one, func_type="julia")
    for kind in ("aot", "akg", "hybrid", "tbe", "aicpu"):
        with pytest.raises(ValueError, match=f"func_type '{kind}'.*only 'pyfunc'"):
            ops.Custom(mul_plus_one, func_type=kind)
    with pytest.raises(TypeError, match="'func' must be callable"):
        ops.Custom("file.so:fn")
    with pytest.raises(TypeError, match="'bprop' must be callable"):
        ops.Custom(mul_plus_one, bprop=3)
    with pytest.raises(TypeError, match="out_shape"):
        ops.Custom(mul_plus_one, out_shape="2")
    with pytest.raises(TypeError, match="out_dtype"):
        ops.Custom(mul_plus_one, out_dtype="no such dtype")


def test_custom_gradcheck_float64():
    c = ops.Custom(lambda x: np.sin(x), out_shape=lambda s: s, out_dtype=lambda d: d,
                   bprop=lambda x, out, dout: (dout * ops.cos(x),))
    check_grads(lambda a: c(a), [Tensor(np.array([0.1, -0.7, 1.3]))], order=2)
