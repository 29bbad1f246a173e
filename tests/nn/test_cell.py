"""nn.Cell registration and MindSpore's parameter naming rules, each
checked against MindSpore 2.10."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, ParameterTuple, Tensor, nn


def p(v, name=None, requires_grad=True):
    return Parameter(Tensor(np.array([v], np.float32)), name=name, requires_grad=requires_grad)


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = p(1.0, name="foo")
        self.v = p(2.0)

    def construct(self, x):
        return x * self.w + self.v


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = p(1.0)
        self.inner = Inner()
        self.b = p(3.0, name="bee")

    def construct(self, x):
        return self.inner(x) * self.a * self.b


def test_root_keeps_explicit_names_and_names_the_rest_by_attribute():
    assert [q.name for q in Inner().get_parameters()] == ["foo", "v"]


def test_nested_names_are_attribute_paths_own_parameters_first():
    o = Outer()
    assert [q.name for q in o.get_parameters()] == ["a", "bee", "inner.w", "inner.v"]
    assert [n for n, _ in o.parameters_and_names()] == ["a", "b", "inner.w", "inner.v"]
    assert list(o.parameters_dict()) == ["a", "bee", "inner.w", "inner.v"]


def test_nesting_renames_the_child_parameters():
    o = Outer()
    assert [q.name for q in o.inner.get_parameters()] == ["inner.w", "inner.v"]


def test_cells_and_names_depth_first():
    class Deep(nn.Cell):
        def __init__(self):
            super().__init__()
            self.o = Outer()
            self.i = Inner()
    assert [n for n, _ in Deep().cells_and_names()] == ["", "o", "o.inner", "i"]


def test_auto_prefix_false_stops_prefixing_its_own_children():
    class Leaf(nn.Cell):
        def __init__(self):
            super().__init__()
            self.weight = p(1.0)
            self.bias = p(0.0)

    class NoPrefix(nn.Cell):
        def __init__(self):
            super().__init__(auto_prefix=False)
            self.d = Leaf()

    class Parent(nn.Cell):
        def __init__(self):
            super().__init__()
            self.np = NoPrefix()

    assert [q.name for q in NoPrefix().get_parameters()] == ["weight", "bias"]
    assert [q.name for q in Parent().get_parameters()] == ["np.d.weight", "np.d.bias"]


def test_shared_child_is_renamed_by_the_last_assignment_and_listed_once():
    class Shared(nn.Cell):
        def __init__(self):
            super().__init__()
            child = Inner()
            self.x = child
            self.y = child

    s = Shared()
    assert [q.name for q in s.get_parameters()] == ["y.w", "y.v"]
    assert [n for n, _ in s.parameters_and_names()] == ["x.w", "x.v"]
    assert [n for n, _ in s.cells_and_names()] == ["", "x"]


def test_trainable_and_untrainable():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.t = p(1.0)
            self.f = p(2.0, requires_grad=False)
    n = Net()
    assert [q.name for q in n.trainable_params()] == ["t"]
    assert [q.name for q in n.untrainable_params()] == ["f"]


def test_set_train_is_recursive_and_cells_start_in_eval_mode():
    o = Outer()
    assert o.training is False and o.inner.training is False
    assert o.set_train() is o
    assert o.training and o.inner.training
    o.set_train(False)
    assert not o.inner.training


def test_cells_and_name_cells():
    o = Outer()
    assert o.cells() == [o.inner]
    assert list(o.name_cells()) == ["inner"]


def test_update_parameters_name():
    i = Inner()
    i.update_parameters_name("net.")
    assert [q.name for q in i.get_parameters()] == ["net.foo", "net.v"]


def test_insert_param_and_child():
    c = nn.Cell()
    q = p(5.0, name="kept")
    c.insert_param_to_cell("extra", q)
    assert c.extra is q and q.name == "kept"
    with pytest.raises(KeyError, match="'.'"):
        c.insert_param_to_cell("a.b", p(1.0))
    with pytest.raises(TypeError, match="Parameter"):
        c.insert_param_to_cell("z", Tensor([1.0]))
    c.insert_child_to_cell("kid", Inner())
    assert [n for n, _ in c.parameters_and_names()] == ["extra", "kid.w", "kid.v"]


def test_reassigning_a_parameter_attribute_to_another_type_is_an_error():
    i = Inner()
    with pytest.raises(TypeError, match="Parameter"):
        i.w = 3
    i.w = None
    assert [n for n, _ in i.parameters_and_names()] == ["v"]


def test_assigning_before_super_init_is_a_clear_error():
    class Bad(nn.Cell):
        def __init__(self):
            self.w = p(1.0)
            super().__init__()
    with pytest.raises(AttributeError, match="super"):
        Bad()


def test_numpy_input_is_a_type_error():
    with pytest.raises(TypeError, match="Tensor"):
        Inner()(np.ones(1, np.float32))


def test_call_runs_construct_and_passes_kwargs():
    class K(nn.Cell):
        def construct(self, x, scale=1.0):
            return x * scale
    np.testing.assert_allclose(K()(Tensor([2.0]), scale=3.0).asnumpy(), [6.0])


def test_construct_is_required():
    with pytest.raises(NotImplementedError, match="construct"):
        nn.Cell()(Tensor([1.0]))


def test_repr_lists_children():
    class WithExtra(nn.Cell):
        def __init__(self):
            super().__init__()
            self.i = Inner()

        def extend_repr(self):
            return "hello=1"

    class Leaf(nn.Cell):
        def extend_repr(self):
            return "x=2"

    assert repr(Outer()) == "Outer(\n  (inner): Inner()\n)"
    assert repr(WithExtra()) == "WithExtra(\n  hello=1\n  (i): Inner()\n)"
    assert repr(Leaf()) == "Leaf(x=2)"


def test_parameter_tuple_attribute_registers_its_parameters():
    # as in MindSpore 2.10: the tuple's Parameters join the cell's own, in assignment order,
    # keyed by their names; unnamed ones are named after the attribute and index
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = p(1.0, name="w")
            self.pt = ParameterTuple([p(2.0), p(3.0, name="named")])
            self.d = nn.Dense(2, 2)

    net = Net()
    assert [q.name for q in net.trainable_params()] == ["w", "pt.0", "named", "d.weight", "d.bias"]

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Net()

    assert [q.name for q in Outer().get_parameters()][:3] == ["inner.w", "inner.pt.0", "inner.named"]
    grads = ms.grad(lambda x: (net.pt[0] * x + net.pt[1]).sum(), None, net.trainable_params())(
        Tensor(np.float32(2.0)))
    assert [float(g.asnumpy().sum()) for g in grads] == [0.0, 2.0, 1.0, 0.0, 0.0]
    net.pt = None  # reassigning the attribute drops the tuple's registrations
    assert [q.name for q in net.trainable_params()] == ["w", "d.weight", "d.bias"]
    net.pt = ParameterTuple([p(4.0, name="again")])
    del net.pt
    assert [q.name for q in net.trainable_params()] == ["w", "d.weight", "d.bias"]
