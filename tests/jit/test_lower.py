"""The generated replay code (minispore/_jit/lower.py): which checks it writes, and where it
leaves NumPy's warnings on."""
import numpy as np
import pytest

from minispore import Tensor
from minispore.ops.operations.array_ops import Reshape
from minispore.ops.operations.math_ops import Exp, Mul
from minispore.ops.operations.nn_ops import Tanh

from .test_passes import Graph, c


def source_of(trace):
    trace.lower()
    return trace.source


def test_only_outputs_that_input_shapes_do_not_fix_are_checked():
    x = np.linspace(-1, 1, 8).astype(np.float32)
    g = Graph(x)
    e = g.op(Exp(), 0)  # a FRESH primitive of a checked argument: its shape is known
    r = g.op(Reshape(), e, c((2, 4)))  # may return a view: checked
    t = g.op(Tanh(), r)
    tr = g.trace(t)
    src = source_of(tr)
    assert "if v0.shape != as0: return None" in src
    assert f"v{e}.shape != s{e}" not in src and f"v{t}.shape != s{t}" not in src
    assert f"v{r}.shape != s{r}" in src
    [got] = tr.replay([x], [Tensor(x)])
    assert np.array_equal(got, np.tanh(np.exp(x).reshape(2, 4)))
    assert tr.replay([np.zeros(4, np.float32)], [Tensor(np.zeros(4, np.float32))]) is None


def test_a_0d_output_is_still_made_an_array():
    x = np.float32(0.5) * np.ones((), np.float32)
    g = Graph(x)
    tr = g.trace(g.op(Tanh(), g.op(Exp(), 0)))
    [got] = tr.lower()([x])
    assert type(got) is np.ndarray and got.shape == () and got == np.tanh(np.exp(x))


def test_a_quiet_region_goes_on_over_primitives_that_raise_no_flags():
    x = np.array([1.0, 100.0], np.float32)
    g = Graph(x)
    a = g.op(Mul(), 0, c(np.array(2.0, np.float32)), quiet=True)
    t = g.op(Tanh(), a, quiet=False)  # raises no flag: the region goes on
    b = g.op(Mul(), t, c(np.array(1e30, np.float32)), quiet=True)
    # a bare multiply that overflows: run with warnings on, as eager runs it
    tr = g.trace(g.op(Mul(), b, c(np.array(1e30, np.float32)), quiet=False))
    src = source_of(tr)
    assert src.count("tok = _set(_IGNORE)") == 1 and src.count("_reset(tok); tok = None") == 1
    assert src.index("_reset(tok); tok = None") > src.index(f"v{b} = ")
    with pytest.warns(RuntimeWarning, match="overflow"):
        tr.replay([x], [Tensor(x)])
