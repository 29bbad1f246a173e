"""The random samplers: distributions (Kolmogorov-Smirnov and chi-square tests on fixed seeds, so
each check is deterministic yet fails for a wrong law), MindSpore's seeding contract, output
dtypes and shapes as MindSpore 2.10 gives them, in-place fills, and errors."""
import json
import os

import numpy as np
import pytest
from scipy import stats

import minispore as ms
from minispore import Tensor, ops

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_shape.npz"))
META = json.loads(str(DATA["random_meta"]))  # expression -> MindSpore's [shape, dtype] per output
N = 20000
P_MIN = 1e-4  # a correct sampler fails this on one seed in 10^4; a wrong law fails it surely


def f32(a):
    return Tensor(np.asarray(a, np.float32))


def i32(a):
    return Tensor(np.asarray(a, np.int32))


def i64(a):
    return Tensor(np.asarray(a, np.int64))


@pytest.fixture(autouse=True)
def _seeded():
    ms.set_seed(1234)


def ks(sample, cdf):
    p = stats.kstest(np.asarray(sample, np.float64).ravel(), cdf).pvalue
    assert p > P_MIN, f"Kolmogorov-Smirnov p-value {p}"


def chi2(counts, probs):
    counts = np.asarray(counts, np.float64)
    expected = np.asarray(probs, np.float64) * counts.sum()
    p = stats.chisquare(counts, expected).pvalue
    assert p > P_MIN, f"chi-square p-value {p}"


def counts_of(samples, k):
    return np.bincount(np.asarray(samples).ravel(), minlength=k)[:k]


@pytest.mark.parametrize("expr", sorted(META))
def test_shapes_and_dtypes_match_mindspore(expr):
    env = {"ops": ops, "ms": ms, "Tensor": Tensor, "np": np, "i32": i32, "i64": i64}
    out = eval(expr, env)
    outs = list(out) if isinstance(out, tuple) else [out]
    assert [[list(o.shape), str(o.dtype)] for o in outs] == META[expr]


# ---- continuous laws ----------------------------------------------------------------------------

def test_gamma_laws():
    out = ops.gamma((N, 2), f32([2.0, 0.5]), f32([[3.0], [3.0]])[0], seed=3)
    assert out.shape == (N, 2) and out.dtype == ms.float32
    ks(out.asnumpy()[:, 0], stats.gamma(2.0, scale=1 / 3.0).cdf)
    ks(out.asnumpy()[:, 1], stats.gamma(0.5, scale=1 / 3.0).cdf)
    y = ops.Gamma(seed=5)((N,), f32([1.5]), f32([2.0]))
    ks(y.asnumpy(), stats.gamma(1.5, scale=0.5).cdf)
    r = ops.random_gamma(i32([N]), f32([0.7, 4.0]))
    assert r.shape == (N, 2) and r.dtype == ms.float32
    ks(r.asnumpy()[:, 0], stats.gamma(0.7).cdf)
    ks(r.asnumpy()[:, 1], stats.gamma(4.0).cdf)
    r64 = ops.RandomGamma(seed=2)(i64([N]), Tensor(np.array([2.5])))
    assert r64.dtype == ms.float64
    ks(r64.asnumpy(), stats.gamma(2.5).cdf)


def test_laplace_and_cauchy_laws():
    ks(ops.standard_laplace((N,), seed=1).asnumpy(), stats.laplace.cdf)
    s = ops.StandardLaplace(seed=3)(i32([N, 2]))
    assert s.shape == (N, 2) and s.dtype == ms.float32
    ks(s.asnumpy(), stats.laplace.cdf)
    lap = ops.laplace((N, 1), f32([1.0, -2.0]), f32(0.5))
    assert lap.shape == (N, 2)
    ks(lap.asnumpy()[:, 1], stats.laplace(-2.0, 0.5).cdf)
    m, b = Tensor(np.array([0.5], np.float32)), Tensor(np.array([2.0], np.float32))
    z = (ops.laplace((3,), m, b, seed=7).asnumpy() - 0.5) / 2.0
    ms.set_seed(1234)
    dm, db = ms.grad(lambda u, v: ops.laplace((3,), u, v, seed=7).sum(), (0, 1))(m, b)
    np.testing.assert_allclose(dm.asnumpy(), [3.0])  # MindSpore's gradient in the mean
    np.testing.assert_allclose(db.asnumpy(), [z.sum()], rtol=1e-5)
    c = ops.Cauchy([N], 1.0, 2.0)()
    assert c.shape == (N,) and c.dtype == ms.float32
    ks(c.asnumpy(), stats.cauchy(1.0, 2.0).cdf)


def test_log_normal_and_truncated_normals():
    ln = ops.LogNormalReverse(1.0, 0.5)(f32(np.zeros(N)))
    assert ln.dtype == ms.float32
    ks(ln.asnumpy(), stats.lognorm(0.5, scale=np.exp(1.0)).cdf)
    assert ops.LogNormalReverse()(Tensor(np.zeros(3, np.float16))).dtype == ms.float16
    tn = ops.TruncatedNormal(seed=4)(i32([N]))
    assert tn.dtype == ms.float32 and np.all(np.abs(tn.asnumpy()) <= 2)
    ks(tn.asnumpy(), stats.truncnorm(-2, 2).cdf)
    assert ops.TruncatedNormal(ms.float64)(i32([2, 3])).dtype == ms.float64
    ptn = ops.ParameterizedTruncatedNormal(seed=1)(
        i32([2, N]), f32([0.0, 5.0]), f32([1.0, 2.0]), f32([-1.0, 4.0]), f32([1.0, 9.0]))
    y = ptn.asnumpy()
    assert ptn.dtype == ms.float32 and y.shape == (2, N)
    ks(y[0], stats.truncnorm(-1, 1).cdf)
    ks(y[1], stats.truncnorm(-0.5, 2.0, loc=5.0, scale=2.0).cdf)
    far = ops.ParameterizedTruncatedNormal()(i32([1, 100]), f32([0.0]), f32([1.0]),
                                             f32([40.0]), f32([41.0])).asnumpy()
    assert np.all((far >= 40.0) & (far <= 41.0))


# ---- discrete laws ------------------------------------------------------------------------------

def test_poisson_laws():
    p = ops.poisson((N,), f32([3.5]), seed=2)
    assert p.dtype == ms.float32
    chi2(counts_of(p.asnumpy().astype(int), 10)[:9],
         stats.poisson(3.5).pmf(np.arange(9)) / stats.poisson(3.5).cdf(8))
    q = ops.Poisson(seed=1)((N, 1), f32([2.0, 6.0]))
    assert q.shape == (N, 2) and q.dtype == ms.int32
    assert abs(q.asnumpy()[:, 1].mean() - 6.0) < 0.1
    r = ops.random_poisson(i32([N]), f32([1.0, 4.0]))
    assert r.shape == (N, 2) and r.dtype == ms.float32
    k = np.arange(8)
    chi2(counts_of(r.asnumpy()[:, 0].astype(int), 8),
         stats.poisson(1.0).pmf(k) / stats.poisson(1.0).cdf(7))
    assert ops.RandomPoisson()(i64([3]), f32([1.0])).dtype == ms.int64
    assert ops.random_poisson(i32([2]), f32([1.0]), dtype=ms.int32).dtype == ms.int32


def test_multinomial_family_laws():
    probs = np.array([0.1, 0.6, 0.3])
    m = ops.Multinomial(seed=7)(f32([probs, probs[::-1]]), N)
    assert m.shape == (2, N) and m.dtype == ms.int32
    chi2(counts_of(m.asnumpy()[0], 3), probs)
    chi2(counts_of(m.asnumpy()[1], 3), probs[::-1])
    assert ops.Multinomial(dtype=ms.int64)(f32(probs), 4).dtype == ms.int64
    w = ops.multinomial_with_replacement(f32([probs * 2]), 5, 0, N, True)
    assert w.shape == (1, N) and w.dtype == ms.int64
    chi2(counts_of(w.asnumpy(), 3), probs)
    logits = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, -1.0]])
    c = ops.random_categorical(f32(logits), N, 4)
    assert c.shape == (2, N) and c.dtype == ms.int64
    for row in range(2):
        chi2(counts_of(c.asnumpy()[row], 3), np.exp(logits[row]) / np.exp(logits[row]).sum())
    assert ops.RandomCategorical(ms.int32)(f32(logits), 3, 0).dtype == ms.int32


def test_bernoulli_family():
    p = np.linspace(0.05, 0.95, 4)
    x = f32(np.tile(p, (N, 1)))
    b = ops.bernoulli_ext(x).asnumpy()
    assert b.dtype == np.float32 and set(np.unique(b)) <= {0.0, 1.0}
    np.testing.assert_allclose(b.mean(0), p, atol=0.015)
    bb = ops.Bernoulli(seed=3)(i32(np.zeros((N, 4))), f32(np.tile(p, (N, 1))))
    assert bb.dtype == ms.int32
    np.testing.assert_allclose(bb.asnumpy().mean(0), p, atol=0.015)
    assert ops.Bernoulli()(f32(np.zeros(N)), 0.25).asnumpy().mean() == pytest.approx(0.25,
                                                                                     abs=0.015)
    with pytest.raises(ValueError, match="Bernoulli"):
        ops.Bernoulli()(f32(np.zeros(3)), f32([0.1, 0.2]))


def test_uniform_int_and_nondeterministic_ints():
    u = ops.UniformInt(seed=2)((N,), i32(-3), i32(4))
    assert u.dtype == ms.int32
    chi2(counts_of(u.asnumpy() + 3, 7), np.full(7, 1 / 7))
    with pytest.raises(ValueError, match="minval"):
        ops.UniformInt()((2,), i32(4), i32(4))
    n = ops.NonDeterministicInts()(i32([2, 500]))
    assert n.shape == (2, 500) and n.dtype == ms.int64
    assert np.abs(n.asnumpy()).max() > 2 ** 62
    assert ops.NonDeterministicInts(ms.int32)(i64([3, 4])).dtype == ms.int32


# ---- permutations and choices -------------------------------------------------------------------

def test_shuffles_and_permutations():
    x = np.arange(12.0).reshape(6, 2)
    s = ops.RandomShuffle(seed=1)(Tensor(x)).asnumpy()
    assert sorted(s[:, 0].tolist()) == x[:, 0].tolist() and np.all(s[:, 1] == s[:, 0] + 1)
    firsts = [ops.RandomShuffle()(Tensor(np.arange(4))).asnumpy()[0] for _ in range(4000)]
    chi2(counts_of(firsts, 4), np.full(4, 0.25))
    r = ops.Randperm(max_length=6, pad=-1)(i32([4])).asnumpy()
    assert r.dtype == np.int32 and sorted(r[:4].tolist()) == [0, 1, 2, 3]
    assert r[4:].tolist() == [-1, -1]
    with pytest.raises(ValueError, match="max_length"):
        ops.Randperm(max_length=3)(i32([4]))
    a = ops.RandpermV2(1, 0)(5)
    assert a.dtype == ms.int64 and sorted(a.asnumpy().tolist()) == list(range(5))
    assert np.array_equal(a.asnumpy(), ops.RandpermV2(1, 0)(i64(5)).asnumpy())


def test_choice_with_mask():
    mask = np.array([[True, False, True], [False, True, False]])
    idx, valid = ops.choice_with_mask(Tensor(mask), 5)
    assert idx.shape == (5, 2) and idx.dtype == ms.int32
    assert valid.dtype == ms.bool_ and valid.asnumpy().tolist() == [True] * 3 + [False] * 2
    got = {tuple(r) for r in idx.asnumpy()[:3].tolist()}
    assert got == {(0, 0), (0, 2), (1, 1)} and idx.asnumpy()[3:].tolist() == [[0, 0]] * 2
    idx2, valid2 = ops.RandomChoiceWithMask(2, seed=1)(Tensor(np.array([True, False, True,
                                                                          True])))
    assert idx2.shape == (2, 1) and valid2.asnumpy().all()
    firsts = [int(ops.RandomChoiceWithMask(1)(Tensor(np.ones(3, bool)))[0].asnumpy()[0, 0])
              for _ in range(3000)]
    chi2(counts_of(firsts, 3), np.full(3, 1 / 3))
    with pytest.raises(TypeError, match="bool"):
        ops.choice_with_mask(f32([1.0, 0.0]))


def test_candidate_samplers():
    true = i64([[1], [3]])
    s, te, se = ops.uniform_candidate_sampler(true, 1, 3, True, 4, 1, True)
    assert s.dtype == ms.int64 and len(set(s.asnumpy().tolist())) == 3
    assert te.dtype == ms.float32 and te.shape == (2, 1) and se.shape == (3,)
    np.testing.assert_allclose(te.asnumpy(), 0.75) and np.testing.assert_allclose(se.asnumpy(),
                                                                                   0.75)
    s32 = ops.uniform_candidate_sampler(i32([[1], [3]]), 1, 3, False, 4)[0]
    assert s32.dtype == ms.int32
    draws = ops.UniformCandidateSampler(1, N, False, 5)(true)[0].asnumpy()
    chi2(counts_of(draws, 5), np.full(5, 0.2))
    c = np.arange(6)
    p = np.log((c + 2) / (c + 1)) / np.log(7)
    s, te, se = ops.log_uniform_candidate_sampler(true, 1, N, False, 6, 2)
    chi2(counts_of(s.asnumpy(), 6), p / p.sum())
    np.testing.assert_allclose(te.asnumpy()[:, 0], N * p[[1, 3]], rtol=1e-6)
    # MindSpore 2.10's values for the same configuration (non-unique expected counts are exact)
    _, te, _ = ops.log_uniform_candidate_sampler(true, 1, 3, False, 6, 1)
    np.testing.assert_allclose(te.asnumpy()[:, 0], [0.6251036, 0.3440193], rtol=1e-6)
    s, te, se = ops.LogUniformCandidateSampler(2, 5, True, 5)(i64([[1, 7], [0, 4]]))
    assert sorted(s.asnumpy().tolist()) == [0, 1, 2, 3, 4]
    tries = np.log(-te.asnumpy()[0, 0] + 1) / np.log1p(-np.log(3 / 2) / np.log(6))
    assert tries >= 5 and abs(tries - round(tries)) < 1e-3
    with pytest.raises(ValueError, match="num_sampled"):
        ops.uniform_candidate_sampler(true, 1, 5, True, 4)
    with pytest.raises(TypeError, match="true_classes"):
        ops.log_uniform_candidate_sampler(i32([[1]]))


def test_compute_accidental_hits():
    idx, ids, w = ops.ComputeAccidentalHits(2)(i64([[1, 2], [0, 4], [3, 3]]),
                                               i64([0, 1, 2, 3, 4]))
    assert idx.asnumpy().tolist() == [0, 0, 1, 1, 2, 2] and idx.dtype == ms.int32
    assert ids.asnumpy().tolist() == [1, 2, 0, 4, 3, 3] and ids.dtype == ms.int64
    assert w.dtype == ms.float32 and np.all(w.asnumpy() == -np.finfo(np.float32).max)


# ---- seeding --------------------------------------------------------------------------------------

def test_set_seed_reproduces_every_sampler():
    def draw():
        return [ops.standard_laplace((4,)), ops.gamma((3,), f32([2.0]), f32([1.0])),
                ops.random_poisson(i32([3]), f32([2.0])), ops.StandardLaplace()((3,)),
                ops.TruncatedNormal()(i32([3])), ops.Multinomial()(f32([0.5, 0.5]), 4),
                ops.choice_with_mask(Tensor(np.ones(5, bool)), 3)[0],
                ops.bernoulli_ext(f32([0.5] * 8))]
    ms.set_seed(9)
    a = [t.asnumpy() for t in draw()]
    ms.set_seed(9)
    b = [t.asnumpy() for t in draw()]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_seeded_instances_and_counter_based_ops():
    p = ops.StandardLaplace(seed=1)
    first, second = p((6,)).asnumpy(), p((6,)).asnumpy()
    assert not np.array_equal(first, second)  # one instance: a stream
    np.testing.assert_array_equal(ops.StandardLaplace(seed=1)((6,)).asnumpy(), first)
    assert not np.array_equal(ops.StandardLaplace(seed=1, seed2=2)((6,)).asnumpy(), first)
    a = ops.standard_laplace((6,), seed=3).asnumpy()
    assert not np.array_equal(a, ops.standard_laplace((6,), seed=3).asnumpy())
    # counter-based: a function of (seed, offset)
    b = ops.Bernoulli(seed=1)
    x = f32(np.full(32, 0.5))
    np.testing.assert_array_equal(b(x, 0.5).asnumpy(), b(x, 0.5).asnumpy())
    assert not np.array_equal(b(x, 0.5).asnumpy(), ops.Bernoulli(1, 1)(x, 0.5).asnumpy())
    pr = f32([[0.2, 0.3, 0.5]])
    np.testing.assert_array_equal(ops.multinomial_with_replacement(pr, 5, 0, 8, True).asnumpy(),
                                  ops.MultinomialWithReplacement(8, True)(pr, i64(5),
                                                                          i64(0)).asnumpy())
    assert not np.array_equal(ops.multinomial_with_replacement(pr, 5, 1, 64, True).asnumpy(),
                              ops.multinomial_with_replacement(pr, 5, 0, 64, True).asnumpy())
    lg = f32([[0.0, 1.0, 2.0]])
    np.testing.assert_array_equal(ops.random_categorical(lg, 16, 3).asnumpy(),
                                  ops.RandomCategorical()(lg, 16, 3).asnumpy())
    t = i64([[1], [3]])
    np.testing.assert_array_equal(ops.uniform_candidate_sampler(t, 1, 3, True, 6, 2)[0].asnumpy(),
                                  ops.uniform_candidate_sampler(t, 1, 3, True, 6, 2)[0].asnumpy())


# ---- in-place fills -------------------------------------------------------------------------------

def test_in_place_fills_write_the_tensor():
    x = Tensor(np.zeros(N, np.float32))
    assert ops.normal_(x, 2.0, 0.5) is x
    assert x.dtype == ms.float32
    ks(x.asnumpy(), stats.norm(2.0, 0.5).cdf)
    assert ops.uniform_(x, -1.0, 3.0) is x
    ks(x.asnumpy(), stats.uniform(-1.0, 4.0).cdf)
    assert ops.exponential_(x, 2.0) is x
    ks(x.asnumpy(), stats.expon(scale=0.5).cdf)
    assert ops.bernoulli_(x, 0.3) is x
    assert set(np.unique(x.asnumpy())) == {0.0, 1.0}
    assert x.asnumpy().mean() == pytest.approx(0.3, abs=0.015)
    y = Tensor(np.zeros(N, np.int32))
    assert ops.random_(y, 2, 7) is y
    chi2(counts_of(y.asnumpy() - 2, 5), np.full(5, 0.2))
    g = np.random.default_rng(5)
    z = ops.normal_(Tensor(np.zeros(4)), generator=g).asnumpy()
    np.testing.assert_allclose(z, np.random.default_rng(5).normal(0, 1, 4))
    with pytest.raises(TypeError, match="normal_"):
        ops.normal_(Tensor(np.zeros(3, np.int32)))


# ---- argument errors and dtypes as MindSpore ------------------------------------------------------

def test_errors():
    with pytest.raises(TypeError, match="Tensor"):
        ops.random_gamma((2, 3), f32([1.0]))
    with pytest.raises(TypeError, match="Float32"):
        ops.gamma((3,), Tensor(np.array([1.0])), Tensor(np.array([1.0])))
    with pytest.raises(TypeError, match="shape"):
        ops.random_poisson((2,), f32([1.0]))
    with pytest.raises(ValueError, match="numsamples"):
        ops.MultinomialWithReplacement(4)(f32([[0.1, 0.9]]), i64(1), i64(0))
    with pytest.raises(ValueError, match="broadcast"):
        ops.Gamma()((2, 3), f32([1.0, 2.0]), f32([1.0]))
    with pytest.raises(TypeError, match="int64"):
        ops.ComputeAccidentalHits(1)(Tensor(np.array([[1]], np.float32)), i64([1]))
    with pytest.raises(ValueError, match="seed"):
        ops.StandardLaplace(seed=-1)
    with pytest.raises(TypeError, match="dtype"):
        ops.TruncatedNormal(ms.int32)
