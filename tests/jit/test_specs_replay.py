"""Every registered primitive's spec (tests/ops/specs.py) run eagerly and under `jit`: the capture,
then two replays on the same shapes with the values shuffled, all bitwise equal to eager (or
raising the same error, or running eagerly)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minispore as ms
from minispore import Tensor

from ..ops.spec_table import SPECS
from .test_capture import same


def _variants(args, seed):
    """`args` with the float64 arrays made Tensors, then twice more with their values shuffled."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(3):
        row = []
        for a in args:
            if isinstance(a, np.ndarray) and a.dtype == np.float64:
                b = a.copy()
                if k:
                    rng.shuffle(b.reshape(-1))
                row.append(Tensor(b))
            else:
                row.append(a)
        out.append(row)
    return out


def _run(fn, args):
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 (the error type is what is compared)
        return None, type(e)


def _equal(a, b):
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return same(a, b)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
@settings(max_examples=3)
@given(data=st.data())
def test_spec_replays_bitwise(spec, data):
    args, attrs = spec.draw(data)
    seed = data.draw(st.integers(0, 2 ** 31 - 1))

    def fn(*tensors):
        return spec.call(attrs, *tensors)
    jitted = ms.jit(fn)
    for row in _variants(args, seed):
        expected, error = _run(fn, row)
        got, got_error = _run(jitted, row)
        assert error is got_error, (error, got_error)
        if error is None:
            assert _equal(expected, got)
