"""Names at the top of `minispore` that MindSpore 2.10 has there: dtype aliases, the Generator
API, sparse tensor classes, context constants, and the error for a name not implemented."""
import numpy as np
import pytest

import minispore as ms


def test_dtype_aliases_are_mindspores():
    # MindSpore 2.10: byte is int8 (not uint8), intp and long are int64, cfloat is complex64
    assert (ms.byte, ms.ubyte, ms.short, ms.ushort) == (ms.int8, ms.uint8, ms.int16, ms.uint16)
    assert (ms.intc, ms.uintc, ms.intp, ms.uintp, ms.long) == \
        (ms.int32, ms.uint32, ms.int64, ms.uint64, ms.int64)
    assert (ms.cfloat, ms.cdouble) == (ms.complex64, ms.complex128)
    assert [str(t) for t in (ms.string, ms.list_, ms.tuple_, ms.type_none)] == \
        ["String", "List", "Tuple", "TypeNone"]
    import pickle
    assert pickle.loads(pickle.dumps(ms.tuple_)) is ms.tuple_


def test_generator_api():
    g = ms.Generator()
    assert g.initial_seed() == 0
    g.manual_seed(3)
    state = g.get_state()
    first = g._rng.random(4)
    g.set_state(state)
    np.testing.assert_array_equal(g._rng.random(4), first)
    assert g.initial_seed() == 3
    s = g.seed()
    assert g.initial_seed() == s and 0 <= s < 2 ** 32
    with pytest.raises(ValueError, match="manual_seed"):
        g.manual_seed(-1)


def test_default_generator_is_the_global_stream():
    ms.default_generator.manual_seed(11)
    assert ms.get_seed() == 11 and ms.initial_seed() == 11
    a = ms.ops.rand(3)
    ms.set_seed(11)
    np.testing.assert_array_equal(ms.ops.rand(3).asnumpy(), a.asnumpy())
    state = ms.default_generator.get_state()
    b = ms.ops.rand(2)
    ms.default_generator.set_state(state)
    np.testing.assert_array_equal(ms.ops.rand(2).asnumpy(), b.asnumpy())
    assert isinstance(ms.seed(), int)


def test_context_constants_and_sparse_classes():
    assert (ms.STRICT, ms.COMPATIBLE, ms.LAX) == (0, 1, 2)
    assert ms.get_current_device() == "CPU"
    assert ms.SparseTensor is ms.COOTensor
    assert ms.COOTensor.__module__ == "minispore.ops.function.sparse_func"


def test_missing_top_level_name():
    with pytest.raises(AttributeError, match="part of MindSpore 2.10 but not implemented"):
        ms.export_split_mindir  # noqa: B018
    with pytest.raises(AttributeError, match="Did you mean: 'Tensor'"):
        ms.Tensr  # noqa: B018
