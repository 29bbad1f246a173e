"""Parameter and ParameterTuple."""
import pickle

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, ParameterTuple, Tensor, ops


@pytest.mark.parametrize("data,dtype,shape", [
    (1.5, ms.float32, ()),
    (2, ms.int32, ()),
    (np.array([1.0, 2.0]), ms.float64, (2,)),
    (np.array([1, 2], np.int32), ms.int32, (2,)),
    (np.float64(1.5), ms.float32, ()),
    (Tensor([1.0, 2.0], ms.float16), ms.float16, (2,)),
    ([1.0, 2.0], ms.float32, (2,)),
    ([1, 2], ms.int64, (2,)),
], ids=repr)
def test_constructor_inputs_and_dtypes(data, dtype, shape):
    p = Parameter(data, name="p")
    assert isinstance(p, Parameter) and isinstance(p, Tensor)
    assert p.dtype is dtype and p.shape == shape
    np.testing.assert_array_equal(p.asnumpy(), np.asarray(data, dtype=p.asnumpy().dtype))


def test_constructor_copies_its_input():
    arr = np.array([1.0, 2.0])
    t = Tensor([1.0, 2.0])
    p, q = Parameter(arr, name="p"), Parameter(t, name="q")
    arr[0] = 9.0
    t[0] = 9.0
    assert p.asnumpy()[0] == 1.0 and q.asnumpy()[0] == 1.0


def test_constructor_from_an_initializer():
    from minispore.common.initializer import initializer
    p = Parameter(initializer("ones", (2, 3), ms.float32), name="w")
    assert p.shape == (2, 3) and p.dtype is ms.float32
    np.testing.assert_array_equal(p.asnumpy(), np.ones((2, 3)))


@pytest.mark.parametrize("data", [(1, 2), "abc", None], ids=repr)
def test_constructor_rejects_other_inputs(data):
    with pytest.raises(TypeError, match="default_input"):
        Parameter(data)


def test_defaults_and_parallel_knobs():
    p = Parameter(Tensor([1.0]), name="w")
    assert p.requires_grad is True
    assert p.layerwise_parallel is False and p.parallel_optimizer is True
    q = Parameter(Tensor([1.0]), "v", False, True, False)
    assert (q.name, q.requires_grad, q.layerwise_parallel, q.parallel_optimizer) == \
        ("v", False, True, False)


def test_unnamed_parameters_get_unique_numbered_names():
    first, second = Parameter(Tensor([1.0])), Parameter(Tensor([1.0]))
    assert first.name.startswith("Parameter#") and second.name.startswith("Parameter#")
    assert int(second.name[len("Parameter#"):]) > int(first.name[len("Parameter#"):])


def test_name_must_be_a_string():
    with pytest.raises(TypeError, match="'name' must be a str"):
        Parameter(Tensor([1.0]), name=1)


def test_name_and_requires_grad_are_settable():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    p.name = "z"
    p.requires_grad = False
    assert p.name == "z" and p.requires_grad is False
    assert repr(p) == "Parameter (name=z, shape=(2,), dtype=Float32, requires_grad=False)"
    p.requires_grad = np.bool_(True)
    assert p.requires_grad is True


@pytest.mark.parametrize("value", [0, 1, "yes", None], ids=repr)
def test_requires_grad_must_be_a_bool(value):
    p = Parameter(Tensor([1.0]), name="w")
    with pytest.raises(TypeError, match="'requires_grad' must be a bool"):
        p.requires_grad = value
    with pytest.raises(TypeError, match="'requires_grad' must be a bool"):
        Parameter(Tensor([1.0]), name="w", requires_grad=value)


# ---- set_data ------------------------------------------------------------------------------------

def test_set_data_keeps_the_parameter_dtype_and_returns_self():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    assert p.set_data(Tensor([3, 4])) is p
    assert p.dtype is ms.float32 and p.asnumpy().tolist() == [3.0, 4.0]
    p.set_data(Tensor([5.0, 6.0], ms.float64))
    assert p.dtype is ms.float32
    q = Parameter(Tensor([1, 2], ms.int32), name="q")
    q.set_data(Tensor([1.7, -2.2]))
    assert q.dtype is ms.int32 and q.asnumpy().tolist() == [1, -2]


def test_set_data_may_change_the_shape():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    p.set_data(Tensor([3.0, 4.0, 5.0]))
    assert p.shape == (3,)
    p.set_data(5.0)
    assert p.shape == () and p.item() == 5.0
    assert repr(p) == "Parameter (name=w, shape=(), dtype=Float32, requires_grad=True)"


def test_set_data_copies_its_source():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    src = Tensor([7.0, 8.0])
    p.set_data(src)
    src[0] = 100.0
    assert p.asnumpy().tolist() == [7.0, 8.0]


def test_set_data_from_another_parameter_keeps_the_name():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    p.set_data(Parameter(Tensor([3.0, 4.0]), name="u"))
    assert p.name == "w" and p.asnumpy().tolist() == [3.0, 4.0]


def test_set_data_rejects_non_tensors():
    with pytest.raises(TypeError, match="set_data"):
        Parameter(Tensor([1.0]), name="w").set_data("abc")


# ---- clone, data, value --------------------------------------------------------------------------

def test_clone_has_the_same_name_and_a_copy_of_the_value():
    p = Parameter(Tensor([1.0, 2.0]), name="w", requires_grad=False)
    q = p.clone()
    assert type(q) is Parameter and q is not p
    assert q.name == "w" and q.requires_grad is False
    q[0] = 9.0
    assert p.asnumpy().tolist() == [1.0, 2.0]
    assert p.copy().name == "w"


def test_data_shares_memory_and_value_is_a_copy():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    d, v = p.data, p.value()
    assert type(d) is Tensor and type(v) is Tensor and d is not p
    d[0] = 5.0
    assert p.asnumpy().tolist() == [5.0, 2.0]
    v[1] = 6.0
    assert p.asnumpy().tolist() == [5.0, 2.0]
    assert v.asnumpy().tolist() == [1.0, 6.0]


def test_in_place_writes():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    p.assign_value(Tensor([5.0, 6.0]))
    assert p.asnumpy().tolist() == [5.0, 6.0]
    ops.assign(p, Tensor([7.0, 8.0]))
    assert p.asnumpy().tolist() == [7.0, 8.0]
    p[0] = 1.0
    assert type(p) is Parameter and p.asnumpy().tolist() == [1.0, 8.0]
    assert p.add_(1.0) is p and p.asnumpy().tolist() == [2.0, 9.0]
    with pytest.raises(ValueError, match="shape"):
        p.assign_value(Tensor([1.0, 2.0, 3.0]))


# ---- arithmetic ----------------------------------------------------------------------------------

def test_arithmetic_on_a_parameter_returns_a_plain_tensor():
    p = Parameter(Tensor([[1.0, 2.0]]), name="w")
    for out in (p * 2, p + 1, 1 - p, -p, p[0], p.sum(), p.reshape(2, 1), p.astype(ms.float64),
                p.T, ops.exp(p), p @ Tensor([[1.0], [1.0]])):
        assert type(out) is Tensor
    assert (p * 2).asnumpy().tolist() == [[2.0, 4.0]]


def test_augmented_assignment_rebinds_to_a_tensor():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    original = p
    p += 1
    assert type(p) is Tensor and p.asnumpy().tolist() == [2.0, 3.0]
    assert original.asnumpy().tolist() == [1.0, 2.0]


def test_gradients_with_respect_to_parameters():
    w = Parameter(Tensor([1.0, 2.0]), name="w")

    def loss(x):
        return (w * x).sum()

    g = ms.grad(loss, grad_position=None, weights=[w])(Tensor([3.0, 4.0]))
    assert isinstance(g, tuple) and len(g) == 1
    assert g[0].asnumpy().tolist() == [3.0, 4.0]


def test_pickle_keeps_name_and_value():
    p = pickle.loads(pickle.dumps(Parameter(Tensor([1.0, 2.0]), name="w", requires_grad=False)))
    assert type(p) is Parameter and p.name == "w" and p.requires_grad is False
    assert p.asnumpy().tolist() == [1.0, 2.0]


# ---- ParameterTuple ------------------------------------------------------------------------------

def test_parameter_tuple():
    a, b = Parameter(Tensor([1.0]), name="a"), Parameter(Tensor([2.0]), name="b")
    pt = ParameterTuple([a, b])
    assert isinstance(pt, tuple) and type(pt) is ParameterTuple
    assert len(pt) == 2 and pt[0] is a and pt[1] is b
    assert len(ParameterTuple(p for p in [a])) == 1


def test_parameter_tuple_names_must_be_unique():
    a, b = Parameter(Tensor([1.0]), name="a"), Parameter(Tensor([2.0]), name="a")
    with pytest.raises(ValueError, match="'a'"):
        ParameterTuple([a, b])


def test_parameter_tuple_holds_only_parameters():
    with pytest.raises(TypeError, match="Parameter"):
        ParameterTuple([Parameter(Tensor([1.0]), name="a"), Tensor([1.0])])


def test_parameter_tuple_clone():
    a, b = Parameter(Tensor([1.0]), name="a"), Parameter(Tensor([2.0]), name="b")
    cloned = ParameterTuple([a, b]).clone("x")
    assert type(cloned) is ParameterTuple
    assert [p.name for p in cloned] == ["x.a", "x.b"]
    assert cloned[0] is not a and cloned[0].asnumpy().tolist() == [1.0]


def test_parameter_tuple_as_weights():
    w = Parameter(Tensor(2.0), name="w")
    b = Parameter(Tensor(1.0), name="b")
    weights = ParameterTuple([w, b])
    gw, gb = ms.grad(lambda x: w * x + b, grad_position=None, weights=weights)(Tensor(3.0))
    assert gw.item() == 3.0 and gb.item() == 1.0
