"""Gradient and forward hooks: Tensor.register_hook, HookBackward,
InsertGradientOf, Cell forward pre/post hooks and backward pre/post hooks; return-value
semantics, removal, nested transforms. Expected values were checked against MindSpore 2.10
where it is not buggy (noted where minispore differs on purpose)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops


def t(*v):
    return Tensor(np.array(v, np.float32))


def close(a, expected):
    np.testing.assert_allclose(a.asnumpy(), np.asarray(expected, np.float32), rtol=1e-6)


def arr(g):
    return None if g is None else g.asnumpy().tolist()


# ---- Tensor.register_hook --------------------------------------------------------------------

def test_hook_on_an_intermediate_sees_the_summed_gradient_once_and_replaces_it():
    seen = []

    def f(x):
        y = x * 2
        y.register_hook(lambda g: seen.append(arr(g)) or g * 10)
        return (y * y + y).sum()  # dL/dy = 2y + 1, from two uses

    close(ms.grad(f)(t(1, 2)), [100, 180])
    assert seen == [[5, 9]]


def test_hook_returning_none_keeps_the_gradient():
    seen = []

    def f(x):
        y = x * 2
        y.register_hook(seen.append)
        return (y * y).sum()

    close(ms.grad(f)(t(1, 2)), [8, 16])
    assert len(seen) == 1 and arr(seen[0]) == [4, 8]


def test_hooks_chain_in_registration_order():
    def f(x):
        y = x * 2
        y.register_hook(lambda g: g * 10)
        y.register_hook(lambda g: g + 1)
        return (y * y).sum()

    close(ms.grad(f)(t(1, 2)), [82, 162])  # 2 * (10 * 2y + 1)


def test_hook_on_an_input_outside_the_function_applies_until_removed():
    x = t(1, 2)
    seen = []
    handle = x.register_hook(lambda g: seen.append(arr(g)) or g * 10)
    f = ms.grad(lambda a: (a * a).sum())
    close(f(x), [20, 40])
    close(f(x), [20, 40])
    assert seen == [[2, 4], [2, 4]]
    handle.remove()
    handle.remove()  # a second remove is a no-op
    close(f(x), [2, 4])
    assert len(seen) == 2


def test_hook_registered_inside_on_the_argument_applies_to_that_call_only():
    x = t(1, 2)

    def f(a):
        a.register_hook(lambda g: g * 10)
        return (a * a).sum()

    close(ms.grad(f)(x), [20, 40])
    close(ms.grad(lambda a: (a * a).sum())(x), [2, 4])  # (MindSpore keeps it on x: a leak)


def test_hook_on_a_parameter_with_weights():
    w = Parameter(t(1, 2), name="w")
    handle = w.register_hook(lambda g: g * 10)
    try:
        close(ms.grad(lambda a: (a * w * w).sum(), None, w)(t(1, 1)), [20, 40])
    finally:
        handle.remove()
    close(ms.grad(lambda a: (a * w * w).sum(), None, w)(t(1, 1)), [2, 4])


def test_hook_on_the_output_and_on_a_multi_output_primitive():
    def f(x):
        out = (x * x).sum()
        out.register_hook(lambda g: g * 3)
        return out

    close(ms.grad(f)(t(1, 2)), [6, 12])

    def g(x):
        idx, val = ops.ArgMaxWithValue(axis=0)(x)
        val.register_hook(lambda d: d * 5)
        return val * 1

    close(ms.grad(g)(t(1, 3, 2)), [0, 5, 0])


def test_hook_under_nested_grad_applies_in_both_passes():
    calls = []

    def inner(x):
        y = x * x
        y.register_hook(lambda g: calls.append(1) or g * 3)
        return (y * x).sum()  # first pass: 3 * x * 2x + x^2 = 7 x^2

    close(ms.grad(inner)(t(1, 2)), [7, 28])
    calls.clear()
    # the outer pass meets y again (through the first pass's dx = dout * y): 12x + 3 * 2x
    close(ms.grad(ms.grad(inner))(t(1, 2)), [18, 36])
    assert len(calls) == 2


def test_hook_errors_name_the_hook_and_leave_nothing_behind():
    def bad_shape(x):
        y = x * 2
        y.register_hook(lambda g: Tensor(np.ones(3, np.float32)))
        return y.sum()

    def bad_type(x):
        y = x * 2
        y.register_hook(lambda g: 3.0)
        return y.sum()

    with pytest.raises(ValueError, match=r"register_hook.*\(3,\).*\(2,\)"):
        ms.grad(bad_shape)(t(1, 2))
    with pytest.raises(TypeError, match="register_hook.*Tensor or None.*float"):
        ms.grad(bad_type)(t(1, 2))
    with pytest.raises(TypeError, match="callable"):
        t(1).register_hook(3)
    close(ms.grad(lambda a: (a * a).sum())(t(1, 2)), [2, 4])


def test_hook_result_is_cast_to_the_gradient_dtype():
    def f(x):
        y = x * 2
        y.register_hook(lambda g: Tensor(np.ones(2, np.float64)))
        return y.sum()

    g = ms.grad(f)(t(1, 2))
    assert g.dtype == ms.float32
    close(g, [2, 2])


def test_hook_that_removes_itself():
    x = t(1, 2)
    handles = []
    handles.append(x.register_hook(lambda g: handles[0].remove() or g * 10))
    close(ms.grad(lambda a: (a * a).sum())(x), [20, 40])
    close(ms.grad(lambda a: (a * a).sum())(x), [2, 4])


# ---- HookBackward / InsertGradientOf ----------------------------------------------------------

def test_hook_backward_gets_a_tuple_for_several_inputs():
    seen = []
    hb = ops.HookBackward(lambda grads: seen.append(tuple(arr(g) for g in grads)))

    def f(a, b):
        a2, b2 = hb(a, b)
        return (a2 * b2 * 2).sum()

    ga, gb = ms.grad(f, (0, 1))(t(1, 2), t(3, 4))
    close(ga, [6, 8])
    close(gb, [2, 4])
    assert seen == [([6, 8], [2, 4])]


def test_insert_gradient_of_returning_none_keeps_the_gradient():
    seen = []
    ig = ops.InsertGradientOf(seen.append)
    close(ms.grad(lambda a: (ig(a) * 3).sum())(t(1, 2)), [3, 3])
    assert len(seen) == 1


def test_insert_gradient_of_under_nested_grad():
    ig = ops.InsertGradientOf(lambda g: g * 10)
    # MindSpore 2.10 gives [60, 120]: the hook applies in both passes
    close(ms.grad(ms.grad(lambda a: (ig(a * a) * a).sum()))(t(1, 2)), [60, 120])


# ---- Cell forward hooks ------------------------------------------------------------------------

class Scale(nn.Cell):
    def construct(self, a, b=None, scale=1.0):
        return a * scale if b is None else a * b * scale


def test_forward_pre_hook_replaces_inputs_and_forward_hook_the_output():
    c = Scale()
    log = []
    h1 = c.register_forward_pre_hook(lambda cell, inputs: log.append(("pre", len(inputs))))
    h2 = c.register_forward_pre_hook(lambda cell, inputs: inputs[0] * 10)  # bare -> 1-tuple
    h3 = c.register_forward_hook(lambda cell, inputs, out: log.append(("post", arr(inputs[0]))))
    h4 = c.register_forward_hook(lambda cell, inputs, out: out + 1)
    close(c(t(1, 2)), [11, 21])
    close(c(t(1, 2), scale=2.0), [21, 41])  # kwargs pass through
    assert log == [("pre", 1), ("post", [10, 20])] * 2
    for h in (h1, h2, h3, h4):
        h.remove()
    close(c(t(1, 2)), [1, 2])
    assert c._fast  # removing every hook restores the fast path


def test_forward_pre_hook_tuple_replaces_all_inputs():
    c = Scale()
    c.register_forward_pre_hook(lambda cell, inputs: (inputs[0] * 100,))
    close(c(t(1, 2), t(5, 5)), [100, 200])


def test_forward_hooks_with_kwargs_and_prepend():
    c = Scale()
    log = []
    c.register_forward_pre_hook(lambda cell, args, kwargs: (args, {"scale": 5.0}),
                                with_kwargs=True)
    c.register_forward_hook(lambda cell, args, kwargs, out: log.append(kwargs["scale"]),
                            with_kwargs=True)
    c.register_forward_pre_hook(lambda cell, args: log.append("first"), prepend=True)
    close(c(t(1, 2), scale=2.0), [5, 10])
    assert log == ["first", 5.0]


def test_forward_hook_always_call_runs_when_construct_raises():
    c = Scale()
    log = []
    c.register_forward_hook(lambda cell, i, o: log.append(("always", o)), always_call=True)
    c.register_forward_hook(lambda cell, i, o: log.append("plain"))
    with pytest.raises(TypeError):
        c(t(1, 2), "not a tensor")
    assert log == [("always", None)]


def test_forward_hooks_are_differentiated_through():
    c = Scale()
    c.register_forward_hook(lambda cell, i, o: o * 3)
    close(ms.grad(lambda a: c(a).sum())(t(1, 2)), [3, 3])
    c2 = Scale()
    c2.register_forward_pre_hook(lambda cell, i: (i[0] * i[0],))
    close(ms.grad(lambda a: c2(a).sum())(t(1, 2)), [2, 4])


def test_hook_registration_errors():
    c = Scale()
    for register in (c.register_forward_pre_hook, c.register_forward_hook,
                     c.register_backward_pre_hook, c.register_backward_hook):
        with pytest.raises(TypeError, match="callable hook function"):
            register(3)
    c.register_forward_pre_hook(lambda cell, args, kwargs: "junk", with_kwargs=True)
    with pytest.raises(TypeError, match="Scale.*with_kwargs.*\\(args, kwargs\\)"):
        c(t(1))


# ---- Cell backward hooks -----------------------------------------------------------------------

class Two(nn.Cell):
    def construct(self, a, b):
        return a * b * 3, a + b


class Cube(nn.Cell):
    def construct(self, a):
        return a * a * a


class WithWeight(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(t(2, 5), name="w")

    def construct(self, a, b):
        return a * self.w * b


def test_backward_hook_sees_grad_input_and_grad_output_per_call():
    c = Two()
    log = []
    c.register_backward_hook(
        lambda cell, gi, go: log.append((type(cell).__name__, tuple(map(arr, gi)),
                                         tuple(map(arr, go)))))
    ga, gb = ms.grad(lambda a, b: (c(a, b)[0] * 2).sum() + c(a, b)[1].sum() * 5,
                     (0, 1))(t(1, 2), t(3, 6))
    close(ga, [23, 41])
    close(gb, [11, 17])
    # as MindSpore: the later call first; None for the output that got no gradient
    assert log == [("Two", ([5, 5], [5, 5]), (None, [5, 5])),
                   ("Two", ([18, 36], [6, 12]), ([2, 2], None))]


def test_backward_pre_hook_then_backward_hook_and_replacements():
    log = []
    c = Cube()
    c.register_backward_pre_hook(lambda cell, go: log.append(("pre", arr(go[0]))))
    c.register_backward_hook(lambda cell, gi, go: log.append(("bh", arr(gi[0]), arr(go[0]))))
    close(ms.grad(lambda a: (c(a) * 2).sum())(t(1, 2)), [6, 24])
    assert log == [("pre", [2, 2]), ("bh", [6, 24], [2, 2])]

    c2 = Cube()
    c2.register_backward_hook(lambda cell, gi, go: (gi[0] * 100,))
    close(ms.grad(lambda a: c2(a).sum())(t(1, 2)), [300, 1200])
    c3 = Cube()
    c3.register_backward_pre_hook(lambda cell, go: (go[0] * 100,))
    close(ms.grad(lambda a: c3(a).sum())(t(1, 2)), [300, 1200])


def test_backward_hook_fires_once_for_an_output_used_twice():
    log = []
    c = Cube()
    c.register_backward_hook(lambda cell, gi, go: log.append(arr(go[0])))

    def f(a):
        z = c(a)
        return (z * 2).sum() + (z * 3).sum()

    close(ms.grad(f)(t(1, 2)), [15, 60])
    assert log == [[5, 5]]


def test_backward_hook_inputs_that_need_no_gradient_get_none():
    log = []
    p = WithWeight()
    p.register_backward_hook(lambda cell, gi, go: log.append(tuple(map(arr, gi))))
    gw = ms.grad(lambda a, b: (p(a, b) * 2).sum(), None, p.trainable_params())(t(1, 2), t(3, 4))
    close(gw[0], [6, 16])
    ms.grad(lambda a: (p(a, t(1, 1)) * 2).sum())(t(1, 2))
    ms.grad(lambda a, b: (p(a, b) * 2).sum(), 1)(t(1, 2), t(3, 4))
    # (MindSpore gives (None,) for the first and differentiates `a` in the third anyway)
    assert log == [(None, None), ([4, 10], None), (None, [4, 20])]


def test_backward_hook_does_not_touch_weight_gradients():
    p = WithWeight()
    p.register_backward_hook(lambda cell, gi, go: (gi[0] * 0, None))
    gx, (gw,) = ms.grad(lambda a: (p(a, t(1, 1)) * 2).sum(), 0, p.trainable_params())(t(1, 2))
    close(gx, [0, 0])
    close(gw, [2, 4])


def test_backward_hook_bad_replacements():
    two = WithWeight()
    two.register_backward_hook(lambda cell, gi, go: (gi[0],))
    with pytest.raises(ValueError, match="WithWeight.register_backward_hook.*1 gradients.*2"):
        ms.grad(lambda a, b: two(a, b).sum(), (0, 1))(t(1, 2), t(3, 4))
    one = Cube()
    one.register_backward_hook(lambda cell, gi, go: (Tensor(np.ones(3, np.float32)),))
    with pytest.raises(ValueError, match=r"Cube.register_backward_hook.*\(3,\)"):
        ms.grad(lambda a: one(a).sum())(t(1, 2))


def test_backward_hooks_removed_and_nested_cells():
    log = []

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Cube()

        def construct(self, a):
            return self.inner(a) * 2

    o = Outer()
    h1 = o.inner.register_backward_hook(lambda c, gi, go: log.append(("inner", arr(gi[0]))))
    h2 = o.register_backward_hook(lambda c, gi, go: log.append(("outer", arr(gi[0]))))
    close(ms.grad(lambda a: o(a).sum())(t(1, 2)), [6, 24])
    assert log == [("inner", [6, 24]), ("outer", [6, 24])]
    h1.remove()
    h2.remove()
    log.clear()
    close(ms.grad(lambda a: o(a).sum())(t(1, 2)), [6, 24])
    assert log == [] and o._fast and o.inner._fast


def test_backward_hook_under_nested_grad_keeps_values():
    log = []
    c = Cube()
    c.register_backward_hook(lambda cell, gi, go: log.append((arr(gi[0]), arr(go[0]))))
    close(ms.grad(ms.grad(lambda a: c(a).sum()))(t(1, 2)), [6, 12])
    # the second pass reaches the inputs through the first pass's gradient only
    assert log == [([3, 12], [1, 1]), ([6, 12], None)]


def test_hooks_outside_a_transform_and_in_inference():
    c = Cube()
    c.register_backward_hook(lambda cell, gi, go: pytest.fail("no backward pass ran"))
    close(c(t(1, 2)), [1, 8])
