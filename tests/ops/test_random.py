"""Random ops: reproducible after `set_seed`, distinct streams per seed, dtypes, shapes and
ranges right, and NumPy's global random state never touched."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

DRAWS = {
    "rand": lambda: ops.rand(2, 3),
    "rand_seeded": lambda: ops.rand((2, 3), seed=5),
    "randn": lambda: ops.randn(4),
    "rand_like": lambda: ops.rand_like(Tensor(np.zeros((2, 2)))),
    "randn_like": lambda: ops.randn_like(Tensor(np.zeros(3, np.float32))),
    "randint": lambda: ops.randint(0, 10, (5,)),
    "randint_like": lambda: ops.randint_like(Tensor(np.zeros(3, np.int32)), -5, 5),
    "uniform": lambda: ops.uniform((3,), Tensor(1.0), Tensor(2.0)),
    "normal": lambda: ops.normal((3,), Tensor(0.0), Tensor(1.0)),
    "standard_normal": lambda: ops.standard_normal((2, 2)),
    "bernoulli": lambda: ops.bernoulli(Tensor(np.zeros(8, np.float32)), 0.5),
    "multinomial": lambda: ops.multinomial(Tensor(np.array([[0.2, 0.8], [0.5, 0.5]])), 4),
    "shuffle": lambda: ops.shuffle(Tensor(np.arange(6))),
    "StandardNormal": lambda: ops.StandardNormal()((3,)),
    "UniformReal": lambda: ops.UniformReal(seed=2, seed2=3)((3,)),
}


def _run_all():
    return {name: draw().asnumpy() for name, draw in DRAWS.items()}


def test_same_seed_same_values_and_numpy_state_untouched():
    state = np.random.get_state()
    ms.set_seed(123)
    first = _run_all()
    second_round = _run_all()
    ms.set_seed(123)
    again = _run_all()
    after = np.random.get_state()
    assert state[0] == after[0] and np.array_equal(state[1], after[1]) and state[2:] == after[2:]
    for name in DRAWS:
        np.testing.assert_array_equal(first[name], again[name], err_msg=name)
    # Consecutive calls move the streams on.
    for name in ("rand", "rand_seeded", "randn", "standard_normal", "StandardNormal",
                 "UniformReal"):
        assert not np.array_equal(first[name], second_round[name]), name


def test_different_seeds_give_different_streams():
    ms.set_seed(1)
    a = ops.rand(16).asnumpy()
    a_op = ops.rand(16, seed=7).asnumpy()
    ms.set_seed(2)
    b = ops.rand(16).asnumpy()
    b_op = ops.rand(16, seed=7).asnumpy()
    assert not np.array_equal(a, b) and not np.array_equal(a_op, b_op)
    ms.set_seed(1)
    c_op = ops.rand(16, seed=8).asnumpy()
    assert not np.array_equal(a_op, c_op)


def test_randperm_is_a_function_of_seed_and_offset():
    p = ops.randperm(10, seed=3)
    assert p.dtype == ms.int64 and sorted(p.asnumpy().tolist()) == list(range(10))
    assert p.asnumpy().tolist() == ops.randperm(10, seed=3).asnumpy().tolist()
    assert p.asnumpy().tolist() != ops.randperm(10, seed=4).asnumpy().tolist()
    assert p.asnumpy().tolist() != ops.randperm(10, seed=3, offset=1).asnumpy().tolist()
    assert ops.randperm(4, dtype=ms.int32).dtype == ms.int32
    with pytest.raises(ValueError, match="randperm.*non-negative"):
        ops.randperm(-1)


def test_float_draws_dtypes_shapes_ranges():
    ms.set_seed(0)
    u = ops.rand(1000)
    assert u.dtype == ms.float32 and u.shape == (1000,)
    assert 0 <= u.asnumpy().min() and u.asnumpy().max() < 1
    assert ops.rand((2, 3), dtype=ms.float64).dtype == ms.float64
    n = ops.randn(4000).asnumpy()
    assert n.dtype == np.float32 and abs(n.mean()) < 0.1 and abs(n.std() - 1) < 0.1
    assert ops.rand_like(Tensor(np.zeros(2))).dtype == ms.float64
    assert ops.randn_like(Tensor(np.zeros(2, np.float32)), dtype=ms.float64).dtype == ms.float64
    v = ops.uniform((2, 500), Tensor(np.array([[-1.0], [10.0]], np.float32)),
                    Tensor(np.array([[0.0], [11.0]], np.float32))).asnumpy()
    assert v.dtype == np.float32 and (-1 <= v[0]).all() and (v[0] < 0).all()
    assert (10 <= v[1]).all() and (v[1] < 11).all()
    g = ops.normal((3000,), Tensor(5.0), Tensor(0.5)).asnumpy()
    assert g.dtype == np.float32 and abs(g.mean() - 5) < 0.1 and abs(g.std() - 0.5) < 0.05
    assert ops.normal((2, 3), Tensor(np.zeros(3)), Tensor(1.0)).shape == (2, 3)
    assert ops.standard_normal((2, 3)).dtype == ms.float32
    assert ops.StandardNormal(seed=1)((2, 3)).shape == (2, 3)
    r = ops.UniformReal()((100,)).asnumpy()
    assert r.dtype == np.float32 and 0 <= r.min() and r.max() < 1


def test_integer_and_discrete_draws():
    ms.set_seed(0)
    i = ops.randint(-3, 4, (1000,))
    assert i.dtype == ms.int64 and set(i.asnumpy().tolist()) == set(range(-3, 4))
    assert ops.randint(0, 5, (2,), dtype=ms.int32).dtype == ms.int32
    assert ops.randint_like(Tensor(np.zeros(2, np.int32)), 0, 3).dtype == ms.int32
    b = ops.bernoulli(Tensor(np.zeros(4000, np.float32)), 0.25).asnumpy()
    assert b.dtype == np.float32 and set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.25) < 0.03
    p = Tensor(np.array([0.0, 1.0, 0.5], np.float32))
    assert ops.bernoulli(Tensor(np.zeros(3, np.float32)), p).asnumpy()[:2].tolist() == [0.0, 1.0]
    m = ops.multinomial(Tensor(np.array([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])), 50)
    assert m.dtype == ms.int32 and m.shape == (2, 50)
    assert (m.asnumpy()[0] == 1).all() and set(m.asnumpy()[1].tolist()) == {0, 1}
    no_repeat = ops.multinomial(Tensor(np.array([1.0, 2.0, 3.0])), 3, False).asnumpy()
    assert sorted(no_repeat.tolist()) == [0, 1, 2]
    s = ops.shuffle(Tensor(np.arange(10)))
    assert sorted(s.asnumpy().tolist()) == list(range(10))


def test_random_op_errors():
    with pytest.raises(TypeError, match="rand.*floating"):
        ops.rand(2, dtype=ms.int32)
    with pytest.raises(ValueError, match="randn.*negative"):
        ops.randn(-1)
    with pytest.raises(TypeError, match="rand.*ints"):
        ops.rand(2.5)
    with pytest.raises(ValueError, match="randint.*greater"):
        ops.randint(5, 5, (3,))
    with pytest.raises(TypeError, match="randint.*tuple"):
        ops.randint(0, 5, 3)
    with pytest.raises(TypeError, match="randint_like.*integer"):
        ops.randint_like(Tensor(np.zeros(2, np.float32)), 0, 5)
    with pytest.raises(ValueError, match="uniform.*minval"):
        ops.uniform((2,), Tensor(1.0), Tensor(0.0))
    with pytest.raises(ValueError, match="normal.*stddev"):
        ops.normal((2,), Tensor(0.0), Tensor(-1.0))
    with pytest.raises(ValueError, match="bernoulli"):
        ops.bernoulli(Tensor(np.zeros(2)), 1.5)
    with pytest.raises(ValueError, match="multinomial.*without replacement"):
        ops.multinomial(Tensor(np.array([0.0, 1.0])), 2, False)
    with pytest.raises(ValueError, match="StandardNormal.*seed"):
        ops.StandardNormal(seed=-1)
