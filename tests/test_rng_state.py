"""`minispore.get_rng_state` / `set_rng_state`: a restored state gives
the same draws bit for bit (initializers, dropout, ops.randn and op-seeded ops), getting a state
draws nothing, and a malformed state is a clear error that changes nothing."""
import inspect

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.common import seed as _seed


def draws():
    """One of everything that draws from the framework streams."""
    dense = nn.Dense(5, 4)  # HeUniform / Uniform initializers
    drop = nn.Dropout(p=0.5).set_train()
    normal = ops.StandardNormal(seed=2, seed2=7)
    return [dense.weight.asnumpy(), dense.bias.asnumpy(),
            drop(Tensor(np.ones((4, 6), np.float32))).asnumpy(),
            ops.randn(3, 2).asnumpy(), ops.rand((4,), seed=11).asnumpy(),
            normal((3,)).asnumpy(), ops.randint(0, 100, (5,)).asnumpy(),
            ops.dropout(Tensor(np.ones(8, np.float32)), p=0.3, seed=5).asnumpy()]


def assert_same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes()


def test_signatures_and_type_match_mindspore():
    assert str(inspect.signature(ms.get_rng_state)) == "()"
    assert str(inspect.signature(ms.set_rng_state)) == "(state)"
    state = ms.get_rng_state()
    assert isinstance(state, Tensor) and state.dtype == ms.uint8 and state.ndim == 1


def test_restored_state_reproduces_every_stream_bitwise():
    ms.set_seed(1)
    draws()  # the op-seeded streams now exist and have moved
    state = ms.get_rng_state()
    first = draws() + draws()
    ms.set_rng_state(state)
    assert_same(draws() + draws(), first)
    # and again from the same Tensor: restoring does not consume the state
    ms.set_rng_state(state)
    assert_same(draws() + draws(), first)


def test_op_seeded_streams_made_after_the_snapshot_start_over():
    ms.set_seed(4)
    state = ms.get_rng_state()
    a = ops.rand((3,), seed=99).asnumpy()
    ms.set_rng_state(state)
    assert ops.rand((3,), seed=99).asnumpy().tobytes() == a.tobytes()


def test_restore_after_set_seed_brings_the_seed_back():
    ms.set_seed(7)
    draws()
    state = ms.get_rng_state()
    first = draws()
    ms.set_seed(1234)
    draws()
    ms.set_rng_state(state)
    assert ms.get_seed() == 7
    assert_same(draws(), first)


def test_getting_a_state_draws_nothing():
    ms.set_seed(2)
    plain = draws()
    ms.set_seed(2)
    a, b = ms.get_rng_state(), ms.get_rng_state()
    assert a.asnumpy().tobytes() == b.asnumpy().tobytes()
    assert_same(draws(), plain)


def test_unseeded_state_round_trips():
    saved = ms.get_rng_state()
    try:
        _seed._seed = None  # as in a fresh process: fresh entropy, no seed
        _seed._global = np.random.default_rng()
        _seed._by_op_seed.clear()
        state = ms.get_rng_state()
        first = draws()
        ms.set_rng_state(state)
        assert ms.get_seed() is None
        assert_same(draws(), first)
    finally:
        ms.set_rng_state(saved)


def test_registered_streams_are_saved_and_restored():
    box = {"gen": np.random.default_rng(5)}
    _seed.register_stream("test/extra", lambda: box["gen"], lambda g: box.update(gen=g))
    try:
        ms.set_seed(3)
        state = ms.get_rng_state()
        first = box["gen"].random(4), ops.randn(2).asnumpy()
        ms.set_rng_state(state)
        assert box["gen"].random(4).tobytes() == first[0].tobytes()
        assert ops.randn(2).asnumpy().tobytes() == first[1].tobytes()
    finally:
        with _seed._lock:
            del _seed._streams["test/extra"]
    # a state naming a stream this process does not have is refused
    with pytest.raises(ValueError, match="set_rng_state.*test/extra"):
        ms.set_rng_state(state)
    with pytest.raises(ValueError, match="register_stream.*'global'"):
        _seed.register_stream("global", None, None)


def _record(name, state=1, inc=3, has_uint32=0, uinteger=0):
    raw = name.encode()
    return bytes([len(raw)]) + raw + _seed._PCG.pack(
        state.to_bytes(16, "little"), inc.to_bytes(16, "little"), has_uint32, uinteger)


def _state(seed, records, magic=_seed._MAGIC, count=None):
    head = _seed._HEAD.pack(magic, seed, len(records) if count is None else count)
    return Tensor(np.frombuffer(head + b"".join(records), np.uint8).copy())


def test_malformed_states_are_refused_and_change_nothing():
    ms.set_seed(11)
    draws()
    before = ms.get_rng_state().asnumpy().tobytes()
    good = ms.get_rng_state().asnumpy()
    bad_types = [good, good.tobytes(), None, Tensor(good.astype(np.float32)),
                 Tensor(good.reshape(1, -1))]
    for bad in bad_types:
        with pytest.raises(TypeError, match="set_rng_state.*state"):
            ms.set_rng_state(bad)
    bad_values = [
        (Tensor(good[:10]), "not a state"),
        (Tensor(good[:-1]), "truncated"),
        (Tensor(np.concatenate([good, good[:3]])), "3 bytes after"),
        (_state(1, [_record("global")], magic=b"MSPRNG\x00\x02"), "not a state"),
        (_state(-5, [_record("global")]), "seed -5"),
        (_state(1, [_record("global", inc=4)]), "'global'.*malformed"),
        (_state(1, [_record("global", has_uint32=2)]), "malformed"),
        (_state(1, [_record("global"), _record("global")]), "'global'.*malformed"),
        (_state(1, [_record("op/x1"), _record("global")]), "'op/x1'.*malformed"),
        (_state(1, [_record("op/5")]), "no global stream"),
        (_state(1, [_record("global")], count=2), "truncated"),
        (_state(1, [b"\x02\xff\xfe" + _record("")[1:]]), "malformed name"),
    ]
    for bad, message in bad_values:
        with pytest.raises(ValueError, match=f"set_rng_state.*{message}"):
            ms.set_rng_state(bad)
        assert ms.get_rng_state().asnumpy().tobytes() == before
    assert ms.get_seed() == 11
    expect = draws()
    ms.set_rng_state(Tensor(good))
    assert_same(draws(), expect)


def test_a_well_formed_hand_made_state_is_accepted():
    # every registered stream must be in it: minispore.dataset registers its eager stream
    records = [_record("global", state=123, inc=7), _record("op/3"), _record("dataset/eager")]
    ms.set_rng_state(_state(9, records))
    assert ms.get_seed() == 9
    a = ops.randn(3).asnumpy()
    ms.set_rng_state(_state(9, records))
    assert ops.randn(3).asnumpy().tobytes() == a.tobytes()


def test_restores_the_dataset_eager_stream():
    from minispore.dataset import vision
    ms.set_seed(3)
    img = np.random.default_rng(0).integers(0, 255, (8, 8, 3)).astype(np.uint8)
    state = ms.get_rng_state()
    first = [vision.RandomCrop(4)(img) for _ in range(3)]
    ms.set_rng_state(state)
    again = [vision.RandomCrop(4)(img) for _ in range(3)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
