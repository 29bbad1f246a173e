"""Every registered primitive: forward against NumPy in float64, gradients against central
differences (order 1, and order 2 where the bprop is differentiable), driven by one registry.
Then the same draw in float32: the forward, the VJP and (where forward mode is checked) the JVP
must be float32 and match the float64 run on the same values within the spec's `tol32`."""
import contextlib
import inspect

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from minispore import Tensor
from minispore.ops.primitive import PRIMITIVES

from ..helpers.gradcheck import F32_EPS, check_float32, check_grads, to_float32, to_float64
from .spec_table import SPECS, Spec


def _to_tensors(args, spec):
    diff = spec.diff if spec.diff is not None else tuple(
        i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype == np.float64)
    tensors = [Tensor(a) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a
               for a in args]
    return tensors, diff


def _as_list(out):
    return list(out) if isinstance(out, tuple) else [out]


@contextlib.contextmanager
def counting_forward(cls):
    """Counts calls to one primitive class's forward, to prove a spec exercises it."""
    calls = []
    had_own = "forward" in cls.__dict__
    orig = inspect.getattr_static(cls, "forward")
    fn = orig.__func__ if isinstance(orig, staticmethod) else None

    def counted(self, *a):
        calls.append(1)
        return fn(*a) if fn is not None else orig(self, *a)
    cls.forward = counted
    try:
        yield calls
    finally:
        if had_own:
            cls.forward = orig
        else:
            del cls.forward


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
@given(data=st.data())
def test_primitive(spec, data):
    args, attrs = spec.draw(data)
    tensors, diff = _to_tensors(args, spec)
    with counting_forward(PRIMITIVES[spec.name]) as calls:
        out = spec.call(attrs, *tensors)
    assert calls, f"the spec for {spec.name} never ran the primitive"
    if spec.ref is not None:
        expected = _as_list(spec.ref(attrs, *args))
        got = _as_list(out)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            e = np.asarray(e)
            assert g.shape == e.shape, (g.shape, e.shape)
            np.testing.assert_allclose(g.asnumpy(), e, rtol=spec.rtol, atol=spec.atol)
    # forward mode transposes the VJP, so it needs a differentiable bprop (order 2)
    modes = ("rev", "fwd") if spec.order >= 2 else ("rev",)
    if spec.order and diff:
        check_grads(lambda *a: spec.call(attrs, *a), tensors, order=spec.order,
                    diff_argnums=diff, modes=modes)
    check_in_float32(spec, args, attrs, diff if spec.order else (), modes)


def check_in_float32(spec, args, attrs, diff, modes):
    """The float32 pass on the same draw (reusing it halves the cost): the float64 arrays in
    args and attrs cast to float32, against the float64 run on those (representable) values.
    Specs without a float input (the logical and bitwise ones) have nothing to run in float32."""
    if not any(isinstance(a, np.ndarray) and a.dtype == np.float64 for a in args):
        return
    attrs32 = {k: to_float32(v) for k, v in attrs.items()}
    attrs64 = {k: to_float64(v) for k, v in attrs32.items()}
    tol = spec.tol32
    if spec.cond32 is not None:
        tol *= max(1.0, spec.cond32(attrs, *args))
    try:
        check_float32(lambda *a: spec.call(attrs32, *a), args, diff, modes=modes,
                      tol=tol, fn64=lambda *a: spec.call(attrs64, *a))
    except AssertionError as e:
        raise AssertionError(f"float32 pass of {spec.name}: {e}") from None


def test_every_primitive_has_a_spec():
    missing = set(PRIMITIVES) - {s.name for s in SPECS}
    unknown = {s.name for s in SPECS} - set(PRIMITIVES)
    assert not missing, f"registered primitives without a spec: {sorted(missing)}"
    assert not unknown, f"specs for unregistered primitives: {sorted(unknown)}"


def test_float32_tolerances_are_declared():
    """A looser float32 tolerance is explicit, with its reason, and still tells float32 from
    half precision (float16's eps is 2**-10: a looser check could not see a half-precision
    kernel)."""
    default = Spec.__dataclass_fields__["tol32"].default
    for s in SPECS:
        if s.tol32 != default or s.cond32 is not None:
            assert s.tol32 >= default and s.why32, f"{s.name}: a float32 tolerance without a reason"
        assert s.tol32 * F32_EPS < 2.0 ** -11, f"{s.name}: tol32 {s.tol32} is half precision"


def test_non_differentiable_specs_match_the_registry():
    for s in SPECS:
        if not PRIMITIVES[s.name].differentiable:
            assert s.order == 0, f"{s.name} has no gradient but its spec checks order {s.order}"
