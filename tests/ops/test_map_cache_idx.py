"""MapCacheIdx against MindSpore 2.10 CPU: sequences of calls on one hashmap (fixture made by
data/make_mindspore_map_cache_idx.py), the in-place writes under the version counters, and the
errors (MindSpore's exception types; the hashmap and the step left as they were)."""
import json
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, ops
from minispore.common import _writes

with open(os.path.join(os.path.dirname(__file__), "data", "mindspore_map_cache_idx.json")) as f:
    DATA = json.load(f)
SEQUENCES = DATA["sequences"]


WRITTEN = sorted(name for name, seq in SEQUENCES.items() if seq["dtype"] != "int16")


@pytest.mark.parametrize("name", WRITTEN)
def test_sequence_matches_mindspore(name):
    seq = SEQUENCES[name]
    dtype = np.dtype(seq["dtype"])
    table = np.array(seq["hashmap"], dtype)
    hashmap = Parameter(Tensor(table), name="hashmap") if seq["parameter"] else Tensor(table)
    first_step = seq["calls"][0]["step"]
    step_t = Tensor(np.array(first_step, dtype)) if seq["step_tensor"] else None
    op = ops.MapCacheIdx()
    for n, call in enumerate(seq["calls"]):
        indices = Tensor(np.array(call["indices"], dtype).reshape(call["shape"]))
        step = step_t if step_t is not None else call["step"]
        before = _writes.version_of(hashmap)
        outs = op(hashmap, indices, step, call["emb_max_num"], call["cache_max_num"])
        for k, (got, want) in enumerate(zip(outs, call["outputs"])):
            want = np.array(want, dtype)
            assert got.dtype == ms.common.dtype.from_np(dtype), (n, k)
            np.testing.assert_array_equal(got.asnumpy(), want.reshape(got.shape), err_msg=f"{n}/{k}")
            assert got.shape == (tuple(call["shape"]) if k == 0 else (want.size,)), (n, k)
        np.testing.assert_array_equal(hashmap.asnumpy(), np.array(call["hashmap_after"], dtype),
                                      err_msg=f"call {n}")
        assert _writes.version_of(hashmap) > before
        if step_t is not None:
            assert int(step_t.asnumpy()) == call["step_after"]


def test_int16_hashmap_is_written_in_place():
    """MindSpore 2.10 runs an int16 hashmap through a converted copy, so neither the hashmap nor
    the step changes (every call of the fixture sees the initial table); minispore writes it
    as for the other dtypes. The outputs of each call on the initial table match MindSpore's,
    and the table written is the int32 one, converted."""
    seq = SEQUENCES["rand16"]
    table = np.array(seq["hashmap"], np.int16)
    for n, call in enumerate(seq["calls"]):
        np.testing.assert_array_equal(call["hashmap_after"], table)
        results = []
        for dtype in (np.int16, np.int32):
            hashmap = Parameter(Tensor(table.astype(dtype)), name="hashmap")
            step = Tensor(np.array(call["step"], dtype))
            indices = Tensor(np.array(call["indices"], dtype).reshape(call["shape"]))
            outs = ops.MapCacheIdx()(hashmap, indices, step, call["emb_max_num"],
                                     call["cache_max_num"])
            assert int(step.asnumpy()) == call["step"] + 1
            results.append((outs, hashmap.asnumpy()))
        (outs16, table16), (outs32, table32) = results
        for got, got32, want in zip(outs16, outs32, call["outputs"]):
            assert got.dtype == ms.int16
            np.testing.assert_array_equal(got.asnumpy(), np.reshape(want, got.shape), f"call {n}")
            np.testing.assert_array_equal(got.asnumpy(), got32.asnumpy())
        np.testing.assert_array_equal(table16, table32)
        assert not np.array_equal(table16, table) or not call["outputs"][2]


def _doc_hashmap(dtype=np.int32):
    return Parameter(Tensor(np.array(SEQUENCES["doc"]["hashmap"], dtype)), name="hm")


def test_step_tensor_of_another_dtype_is_converted_not_written():
    hashmap = _doc_hashmap(np.int64)
    step = Tensor(np.array(3, np.int32))
    outs = ops.MapCacheIdx()(hashmap, Tensor(np.array([10, 2, 25, 5, 3], np.int32)), step, 25, 10)
    assert outs[0].asnumpy().tolist() == [5, -1, 7, -1, -1]
    assert outs[0].dtype == ms.int64
    assert int(step.asnumpy()) == 3
    step = Parameter(Tensor(np.array([3, 8], np.int64)), name="step")
    ops.MapCacheIdx()(_doc_hashmap(np.int64), Tensor(np.array([10], np.int64)), step, 25, 10)
    assert step.asnumpy().tolist() == [4, 8]


def test_scalar_inputs_wrap_to_the_hashmap_dtype():
    hashmap = _doc_hashmap()
    outs = ops.MapCacheIdx()(hashmap, Tensor(np.array([10, 2], np.int32)), True, 2 ** 40, 10)
    assert [o.asnumpy().tolist() for o in outs] == [[-1, -1], [], [], []]
    np.testing.assert_array_equal(hashmap.asnumpy(), SEQUENCES["doc"]["hashmap"])
    outs = ops.MapCacheIdx()(_doc_hashmap(), Tensor(np.array(12, np.int32)), 0,
                             Tensor(np.array([25, 3], np.int32)), Tensor(np.array(10, np.int32)))
    assert outs[0].shape == () and int(outs[0].asnumpy()) == 1


def _call(table, indices, step=0, emb=25, offset=10, idx_dtype=None, hashmap=None):
    hashmap = hashmap if hashmap is not None else Parameter(Tensor(table), name="e")
    idx = indices if not isinstance(indices, (list, np.ndarray)) else Tensor(
        np.asarray(indices, idx_dtype or hashmap.asnumpy().dtype))
    return ops.MapCacheIdx()(hashmap, idx, step, emb, offset)


T32 = np.array(SEQUENCES["doc"]["hashmap"], np.int32)
FULL = np.array([[i, i, 5, 1] for i in range(4)], np.int32)
ERRORS = {
    "float_hashmap": (lambda: _call(T32.astype(np.float32), [10, 2]), "'hashmap' must be int8"),
    "uint8_hashmap": (lambda: _call(T32.astype(np.uint8), [10, 2]), "but got UInt8"),
    "int8_hashmap": (lambda: _call(T32.astype(np.int8), [10, 2]), "no int8 'hashmap'"),
    "rank1_hashmap": (lambda: _call(np.zeros(8, np.int32), [10, 2]), "must be equal to 2, but got: 1"),
    "rank3_hashmap": (lambda: _call(np.zeros((2, 2, 4), np.int32), [10, 2]), "but got: 3"),
    "empty_hashmap": (lambda: _call(np.zeros((0, 4), np.int32), [10, 2]), "greater than 0"),
    "int64_indices_int32_hashmap": (lambda: _call(T32, [10, 2], idx_dtype=np.int64),
                                    "Int32 cannot be converted to 'indices''s Int64"),
    "float_step": (lambda: _call(T32, [10, 2], step=1.5), "float of 'step'"),
    "float_emb_max_num": (lambda: _call(T32, [10, 2], emb=2.5), "float of 'emb_max_num'"),
    "none_step": (lambda: _call(T32, [10, 2], step=None), "'step' must be a Tensor or an int"),
    "list_indices": (lambda: _call(T32, (10, 2)), "'indices' must be a Tensor or an int, but got tuple"),
    "search_full": (lambda: _call(FULL, [40, 41], step=9, emb=100, offset=0),
                    "hashmap is full, search cache idx failed"),
    "delete_full": (lambda: _call(np.concatenate([FULL, np.zeros((1, 4), np.int32)]),
                                  [0, 1, 2, 3, 4, 7], step=5, emb=100, offset=0),
                    "hashmap is full, delete old key failed"),
}


def test_error_cases_are_the_fixture_cases():
    assert sorted(ERRORS) == sorted(DATA["errors"])


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_mindspore_types(name):
    make, message = ERRORS[name]
    kind = {"TypeError": TypeError, "ValueError": ValueError, "RuntimeError": RuntimeError}
    with pytest.raises(kind[DATA["errors"][name]], match=message) as e:
        make()
    assert "MapCacheIdx" in str(e.value)


@pytest.mark.parametrize("table, indices, step", [
    (np.concatenate([FULL, np.zeros((1, 4), np.int32)]), [0, 1, 2, 3, 4, 7], 5),
    (np.concatenate([FULL, np.zeros((2, 4), np.int32)]), [1, 2, 40, 41, 42], 9),
    (FULL, [1, 2, 40, 41], 9)])
def test_full_hashmap_leaves_hashmap_and_step_untouched(table, indices, step):
    hashmap = Parameter(Tensor(table.copy()), name="h")
    step_t = Tensor(np.array(step, np.int32))
    version = _writes.version_of(hashmap)
    with pytest.raises(RuntimeError, match="hashmap is full"):
        ops.MapCacheIdx()(hashmap, Tensor(np.array(indices, np.int32)), step_t, 100, 0)
    np.testing.assert_array_equal(hashmap.asnumpy(), table)
    assert _writes.version_of(hashmap) == version
    assert int(step_t.asnumpy()) == step


def test_other_bad_inputs():
    with pytest.raises(TypeError, match="'hashmap' must be a Parameter or Tensor, but got ndarray"):
        ops.MapCacheIdx()(T32, Tensor(np.array([1], np.int32)), 0, 25, 10)
    with pytest.raises(ValueError, match=r"shape must be \(rows, 4\), but got \(8, 3\)"):
        _call(np.zeros((8, 3), np.int32), [10])
    with pytest.raises(ValueError, match="'step' must hold a value"):
        _call(T32, [10], step=Tensor(np.zeros(0, np.int32)))


def test_exported_where_mindspore_has_it():
    assert ops.MapCacheIdx is ops.operations.MapCacheIdx
    assert not getattr(ops.MapCacheIdx(), "differentiable", True)


def test_sequence_under_jit_matches_mindspore():
    seq = SEQUENCES["rand32"]
    hashmap = Parameter(Tensor(np.array(seq["hashmap"], np.int32)), name="hashmap")
    op = ops.MapCacheIdx()

    @ms.jit
    def lookup(indices, step):
        return op(hashmap, indices, step, 24, 100)

    for n, call in enumerate(seq["calls"]):
        outs = lookup(Tensor(np.array(call["indices"], np.int32).reshape(call["shape"])),
                      Tensor(np.array(call["step"], np.int32)))
        for got, want in zip(outs, call["outputs"]):
            np.testing.assert_array_equal(got.asnumpy(), np.reshape(want, got.shape), f"call {n}")
        np.testing.assert_array_equal(hashmap.asnumpy(), call["hashmap_after"], f"call {n}")
