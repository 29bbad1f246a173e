"""grad / value_and_grad: MindSpore's result structures, misuse errors,
outputs, sensitivities and has_aux."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, ParameterTuple, Tensor, nn, ops


def f2(x, y):
    return (x * x * y).sum()


X = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
Y = Tensor(np.array([0.5, -1.0, 2.0], np.float32))
W = Parameter(Tensor(np.array([1.0, -2.0], np.float32)), name="w")
V = Parameter(Tensor(np.array([3.0], np.float32)), name="v")


def fw(x):
    return (x.sum() * W).sum() + (V * V).sum()


def close(t, expected):
    np.testing.assert_allclose(t.asnumpy(), np.asarray(expected, np.float32), rtol=1e-6)


# ---- structures ------------------------------------------------------------------------------------

def test_int_position_gives_a_tensor():
    g = ms.grad(f2, 0)(X, Y)
    assert isinstance(g, Tensor)
    close(g, 2 * X.asnumpy() * Y.asnumpy())


def test_default_position_is_zero():
    close(ms.grad(f2)(X, Y), 2 * X.asnumpy() * Y.asnumpy())


def test_one_tuple_position_gives_a_bare_tensor():
    assert isinstance(ms.grad(f2, (1,))(X, Y), Tensor)


def test_tuple_positions_give_a_tuple_in_the_requested_order():
    gy, gx = ms.grad(f2, (1, 0))(X, Y)
    close(gx, 2 * X.asnumpy() * Y.asnumpy())
    close(gy, X.asnumpy() ** 2)


def test_weights_only_single_parameter_gives_a_tensor():
    g = ms.grad(fw, None, W)(X)
    assert isinstance(g, Tensor)
    close(g, [6.0, 6.0])


def test_weights_only_list_of_one_gives_a_one_tuple():
    g = ms.grad(fw, None, [W])(X)
    assert isinstance(g, tuple) and len(g) == 1
    close(g[0], [6.0, 6.0])


def test_weights_as_parameter_tuple_in_given_order():
    gv, gw = ms.grad(fw, None, ParameterTuple([V, W]))(X)
    close(gv, [6.0])
    close(gw, [6.0, 6.0])


def test_int_position_and_list_weights():
    gx, gws = ms.grad(fw, 0, [W, V])(X)
    close(gx, [-1.0, -1.0, -1.0])
    assert isinstance(gws, tuple) and len(gws) == 2


def test_tuple_positions_and_list_weights():
    def f(x, y):
        return (x * y).sum() * W.sum()
    (gx, gy), (gw,) = ms.grad(f, (0, 1), [W])(X, Y)
    close(gx, Y.asnumpy() * -1.0)
    close(gy, X.asnumpy() * -1.0)
    close(gw, [(X.asnumpy() * Y.asnumpy()).sum()] * 2)


def test_int_position_and_single_weight():
    gx, gw = ms.grad(fw, 0, W)(X)
    assert isinstance(gx, Tensor) and isinstance(gw, Tensor)


def test_value_and_grad_returns_the_raw_value():
    v, g = ms.value_and_grad(f2, (0, 1))(X, Y)
    close(v, f2(X, Y).asnumpy())
    assert isinstance(g, tuple) and len(g) == 2


# ---- outputs ---------------------------------------------------------------------------------------

def test_non_scalar_output_uses_ones_sensitivity():
    g = ms.grad(lambda x: x * x)(X)
    close(g, 2 * X.asnumpy())


def test_several_outputs_are_summed():
    g = ms.grad(lambda x: (x.sum(), x * 3))(X)
    close(g, [4.0, 4.0, 4.0])


def test_list_outputs_are_summed_like_tuples():
    g = ms.grad(lambda x: [x.sum(), x * 3])(X)
    close(g, [4.0, 4.0, 4.0])


def test_has_aux_grad_returns_grads_and_aux_tuple():
    def f(x):
        return (x * x).sum(), x * 3
    g, aux = ms.grad(f, has_aux=True)(X)
    close(g, 2 * X.asnumpy())
    assert isinstance(aux, tuple) and len(aux) == 1
    close(aux[0], 3 * X.asnumpy())


def test_has_aux_value_and_grad_value_is_flat():
    def f(x):
        return (x * x).sum(), x * 3, {"k": 1}
    (loss, a, d), g = ms.value_and_grad(f, has_aux=True)(X)
    close(loss, (X.asnumpy() ** 2).sum())
    close(a, 3 * X.asnumpy())
    assert d == {"k": 1}
    close(g, 2 * X.asnumpy())


def test_has_aux_outputs_never_contribute():
    g, _ = ms.grad(lambda x: (x.sum(), (x * x).sum()), has_aux=True)(X)
    close(g, [1.0, 1.0, 1.0])


def test_has_aux_aux_is_stop_gradient_for_an_outer_transform():
    def inner(x):
        _, aux = ms.grad(lambda y: (y.sum(), y * y), has_aux=True)(x)
        return aux[0].sum() + x.sum()
    close(ms.grad(inner)(X), [1.0, 1.0, 1.0])


@pytest.mark.parametrize("ret", [lambda x: x.sum(), lambda x: [x.sum(), x]])
def test_has_aux_needs_a_tuple_of_two_or_more(ret):
    with pytest.raises(ValueError, match="has_aux"):
        ms.grad(ret, has_aux=True)(X)


def test_sens_param():
    def f(x):
        return x * 2
    g = ms.grad(f, sens_param=True)(X, Tensor(np.array([1.0, 0.0, 3.0], np.float32)))
    close(g, [2.0, 0.0, 6.0])
    v, g = ms.value_and_grad(f, sens_param=True)(X, Tensor(np.array([1.0, 1.0, 1.0], np.float32)))
    close(v, 2 * X.asnumpy())


def test_sens_param_with_several_outputs():
    def f(x):
        return x * 2, x.sum()
    g = ms.grad(f, sens_param=True)(X, (Tensor(np.ones(3, np.float32)), Tensor(np.float32(2.0))))
    close(g, [4.0, 4.0, 4.0])


def test_return_ids():
    gs = ms.grad(f2, (0, 1), return_ids=True)(X, Y)
    assert gs[0][0] == 0 and gs[1][0] == 1
    close(gs[1][1], X.asnumpy() ** 2)
    gw = ms.grad(fw, None, [W, V], return_ids=True)(X)
    assert [n for n, _ in gw] == ["w", "v"]
    both = ms.grad(fw, (0,), [W], return_ids=True)(X)
    assert both[0][0] == 0 and both[1][0][0] == "w"
    assert ms.get_grad(gw, "v") is gw[1][1]
    assert ms.get_grad(gw, V) is gw[1][1]
    with pytest.raises(RuntimeError, match="get_grad"):
        ms.get_grad(gw, "nope")


# ---- gradient values and dtypes --------------------------------------------------------------------

def test_unused_inputs_get_zeros_of_their_shape_and_dtype():
    def f(x, y, z):
        return x.sum()
    z = Tensor(np.ones((2, 2), np.float64))
    gx, gy, gz = ms.grad(f, (0, 1, 2))(X, Y, z)
    close(gy, [0, 0, 0])
    assert gz.shape == (2, 2) and gz.dtype == ms.float64 and not gz.asnumpy().any()


def test_unused_weight_gets_zeros():
    g = ms.grad(lambda x: x.sum(), None, [W])(X)
    close(g[0], [0.0, 0.0])


def test_gradient_has_the_input_dtype():
    x16 = Tensor(np.array([1.0, 2.0], np.float16))
    g = ms.grad(lambda x: (x * Tensor(np.array([3.0, 4.0], np.float32))).sum())(x16)
    assert g.dtype == ms.float16
    np.testing.assert_array_equal(g.asnumpy(), np.array([3.0, 4.0], np.float16))


def test_gradient_through_a_cast_flows_back_in_the_original_dtype():
    g = ms.grad(lambda x: ops.cast(x, ms.float64).sum() * 2)(X)
    assert g.dtype == ms.float32
    close(g, [2.0, 2.0, 2.0])


def test_broadcast_inputs_sum_back_to_their_shapes():
    a = Tensor(np.ones((1, 3), np.float32))
    b = Tensor(np.float32(2.0))
    ga, gb = ms.grad(lambda a, b, c: (a * b * c).sum(), (0, 1))(a, b, Tensor(np.ones((4, 3), np.float32)))
    assert ga.shape == (1, 3) and gb.shape == ()
    close(ga, [[8.0, 8.0, 8.0]])
    close(gb, 12.0)


def test_keyword_arguments_pass_through_and_are_not_differentiated():
    def f(x, *, scale):
        return (x * scale).sum()
    close(ms.grad(f)(X, scale=Tensor(np.float32(3.0))), [3.0, 3.0, 3.0])


def test_gradient_functions_are_reusable_and_see_current_parameter_values():
    p = Parameter(Tensor(np.array([2.0], np.float32)), name="p")
    gf = ms.grad(lambda x: (x * p).sum(), 0)
    close(gf(X), [2.0, 2.0, 2.0])
    p.set_data(Tensor(np.array([5.0], np.float32)))
    close(gf(X), [5.0, 5.0, 5.0])


def test_grad_of_a_cell_differentiates_its_first_input():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([2.0, 3.0, 4.0], np.float32)), name="w")

        def construct(self, x):
            return (x * self.w).sum()
    close(ms.grad(Net())(X), [2.0, 3.0, 4.0])


def test_python_control_flow_records_the_executed_path():
    def f(x):
        return (x * x).sum() if float(x.sum()) > 0 else x.sum()
    close(ms.grad(f)(X), 2 * X.asnumpy())
    close(ms.grad(f)(-X), [1.0, 1.0, 1.0])


def test_asnumpy_round_trip_is_a_constant():
    close(ms.grad(lambda x: (Tensor(x.asnumpy()) * x).sum())(X), X.asnumpy())


def test_stop_gradient():
    a = Tensor(np.array([1.5, -2.0], np.float32))
    close(ms.grad(lambda a: (a * ops.stop_gradient(a)).sum())(a), a.asnumpy())


def test_output_that_does_not_depend_on_the_input_gives_zeros():
    close(ms.grad(lambda x: Y.sum() * 2)(X), [0.0, 0.0, 0.0])


# ---- misuse ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("make,exc,words", [
    (lambda: ms.grad(f2, None, None), ValueError, "can not be None at the same time"),
    (lambda: ms.grad(f2, -1), ValueError, "non-negative"),
    (lambda: ms.grad(f2, (0, 0)), ValueError, "repeat"),
    (lambda: ms.grad(f2, ()), ValueError, "empty"),
    (lambda: ms.grad(f2, 1.5), TypeError, "grad_position"),
    (lambda: ms.grad(f2, True), TypeError, "grad_position"),
    (lambda: ms.grad(f2, ("0",)), TypeError, "grad_position"),
    (lambda: ms.grad(f2, 0, [W, X]), TypeError, "weights"),
    (lambda: ms.grad(f2, 0, X), TypeError, "weights"),
    (lambda: ms.grad(f2, 0, "w"), TypeError, "weights"),
    (lambda: ms.grad(42), TypeError, "callable"),
    (lambda: ms.value_and_grad(f2, None, None), ValueError, "can not be None"),
])
def test_bad_transform_arguments_raise_at_once(make, exc, words):
    with pytest.raises(exc, match=words):
        make()


def test_position_past_the_arguments_names_the_position():
    with pytest.raises(ValueError, match="'grad_position' 2"):
        ms.grad(f2, 2)(X, Y)


def test_integer_input_at_a_position_is_a_type_error():
    with pytest.raises(TypeError, match="floating-point"):
        ms.grad(lambda x: x.sum())(Tensor([1, 2, 3]))


def test_non_tensor_at_a_position_is_a_type_error():
    with pytest.raises(TypeError, match="must be a Tensor"):
        ms.grad(lambda x, y: y.sum(), (0, 1))(3.0, Y)


def test_function_returning_none():
    with pytest.raises(TypeError, match="returned None"):
        ms.grad(lambda x: None)(X)


def test_integer_output():
    with pytest.raises(TypeError, match="floating point"):
        ms.grad(lambda x: (x > 1).sum())(X)


def test_non_tensor_output():
    with pytest.raises(TypeError, match="must be a Tensor"):
        ms.grad(lambda x: 3.0)(X)


def test_sens_of_another_float_precision_is_cast_to_the_output_dtype():
    g = ms.grad(lambda x: x * 2, sens_param=True)(X, Tensor(np.array([1.0, 0.0, 3.0])))
    assert g.dtype == ms.float32
    np.testing.assert_array_equal(g.asnumpy(), np.array([2.0, 0.0, 6.0], np.float32))
    # and under a nested transform the cast is differentiated through
    x64 = Tensor(np.array([0.5, 1.0]))
    inner = ms.grad(lambda x: (x * x).astype(ms.float32), sens_param=True)
    gg = ms.grad(lambda x: inner(x, Tensor(np.ones(2, np.float16))).sum())(x64)
    np.testing.assert_allclose(gg.asnumpy(), [2.0, 2.0])


@pytest.mark.parametrize("sens, error", [(np.ones(3, np.float32), TypeError),
                                         (Tensor(np.ones(3, np.int32)), TypeError)])
def test_sens_that_is_not_a_float_tensor(sens, error):
    with pytest.raises(error, match="For 'grad', 'sens'"):
        ms.grad(lambda x: x * 2, sens_param=True)(X, sens)


def test_sens_of_the_wrong_shape():
    with pytest.raises(ValueError, match="sens"):
        ms.grad(lambda x: x * 2, sens_param=True)(X, Tensor(np.ones(2, np.float32)))
