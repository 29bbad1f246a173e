"""Random-sampling primitives: multinomial, gamma, poisson, laplace, truncated normal, categorical,
shuffles and candidate samplers, seeded by set_seed and a per-op seed.

Seeding follows MindSpore's contract. A class configured with (seed, seed2) both 0 draws from
the global stream (reset by `set_seed`); any other pair gives the instance a stream of its own,
derived from the global seed and the pair, so two instances made alike draw alike and one
instance draws anew on every call. The counter-based ops (`Bernoulli` with a seed,
`MultinomialWithReplacement`, `RandpermV2`, the candidate samplers and `random_categorical` with
a seed) are pure functions of their (seed, offset): the same arguments give the same numbers.
Nothing here is differentiable: the samples are constants to the tape.
"""
import math

import numpy as np

from ..._autodiff.tape import wrap
from ..._validator import check_bool, check_int, check_type
from ...common import dtype as mstype
from ...common import seed as _seed
from ...common.tensor import Tensor
from ..primitive import Primitive

_MAX_SEED = 2 ** 63


# ---- argument helpers -------------------------------------------------------------------------------

def _array(x, op, arg):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x._data


def float_array(x, op, arg, kinds=(np.float16, np.float32, np.float64)):
    a = _array(x, op, arg)
    if a.dtype not in [np.dtype(k) for k in kinds]:
        names = ", ".join(str(mstype.from_np(np.dtype(k))) for k in kinds)
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor of {names}, but got "
                        f"{mstype.from_np(a.dtype)}")
    return a


def int_array(x, op, arg):
    a = _array(x, op, arg)
    if a.dtype not in (np.int32, np.int64):
        raise TypeError(f"For '{op}', '{arg}' must be an int32 or int64 Tensor, but got "
                        f"{mstype.from_np(a.dtype) if a.dtype.kind in 'biuf' else a.dtype}")
    return a


def shape_of(shape, op, arg="shape", tensor_only=False):
    """A shape given as a tuple of ints or (unless `tensor_only`) a 1-D integer Tensor."""
    if isinstance(shape, Tensor):
        a = int_array(shape, op, arg)
        if a.ndim > 1:
            raise ValueError(f"For '{op}', '{arg}' must be a 1-D Tensor, but got shape "
                             f"{a.shape}")
        dims = [int(v) for v in a.reshape(-1)]
    elif tensor_only:
        raise TypeError(f"For '{op}', '{arg}' must be an int32 or int64 Tensor, but got "
                        f"{type(shape).__name__}")
    else:
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
            shape = (int(shape),)
        check_type(shape, (tuple, list), arg, op)
        dims = [check_int(d, arg, op) for d in shape]
    if any(d < 0 for d in dims):
        raise ValueError(f"For '{op}', '{arg}' must not have negative sizes, but got {dims}")
    return tuple(dims)


def out_dtype(dtype, op, allowed):
    dt = mstype.to_np(dtype)
    if dt not in [np.dtype(a) for a in allowed]:
        names = ", ".join(str(mstype.from_np(np.dtype(a))) for a in allowed)
        raise TypeError(f"For '{op}', 'dtype' must be one of {names}, but got {dtype}")
    return dt


def check_seed(v, arg, op, low=0):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"For '{op}', '{arg}' must be an int, but got {type(v).__name__}")
    if not low <= v < _MAX_SEED:
        raise ValueError(f"For '{op}', '{arg}' must be in [{low}, 2**63), but got {v}")
    return int(v)


def counter_rng(*keys):
    """A fresh generator that is a pure function of `keys` (MindSpore's seed and offset)."""
    return np.random.default_rng([int(k) % _MAX_SEED for k in keys])


# ---- the samplers (NumPy in, NumPy out) -------------------------------------------------------------

def sample_multinomial(g, probs, num_samples, replacement, op):
    """Indices drawn from each row of the (unnormalised) probabilities `probs` (1-D or 2-D)."""
    p = np.asarray(probs, np.float64)
    if p.ndim not in (1, 2):
        raise ValueError(f"For '{op}', the probabilities must be 1-D or 2-D, but got shape "
                         f"{p.shape}")
    if np.any(p < 0) or not np.all(np.isfinite(p)):
        raise ValueError(f"For '{op}', the probabilities must be finite and non-negative")
    rows = p.reshape(-1, p.shape[-1])
    out = np.empty((rows.shape[0], num_samples), np.int64)
    for i, r in enumerate(rows):
        total = r.sum()
        if total <= 0:
            raise ValueError(f"For '{op}', each row needs a positive total probability")
        if not replacement and num_samples > np.count_nonzero(r):
            raise ValueError(f"For '{op}', without replacement 'num_samples' ({num_samples}) "
                             f"must not exceed the number of nonzero probabilities")
        out[i] = g.choice(r.size, num_samples, replace=replacement, p=r / total)
    return out.reshape(p.shape[:-1] + (num_samples,))


def sample_truncated_normal(g, mean, std, low, high, shape):
    """Normal(mean, std) samples restricted to [low, high], by inverting the CDF."""
    from scipy.special import ndtr, ndtri
    a, b = (low - mean) / std, (high - mean) / std
    lo, hi = ndtr(a), ndtr(b)
    u = g.random(shape)
    z = ndtri(lo + u * (hi - lo))
    # far in a tail the CDF difference underflows: fall back to the nearer bound
    z = np.where(np.isfinite(z), z, np.where(np.abs(a) < np.abs(b), a, b))
    return mean + std * np.clip(z, a, b)


def sample_candidates(g, num_sampled, unique, range_max, probs):
    """(candidates, number of draws) from the class probabilities `probs`; with `unique`,
    distinct candidates by drawing until enough are new (each draw counted)."""
    if not unique:
        return g.choice(range_max, num_sampled, p=probs), num_sampled
    picked, seen, tries = [], set(), 0
    while len(picked) < num_sampled:
        batch = g.choice(range_max, max(num_sampled, 16), p=probs)
        for c in batch:
            tries += 1
            if c not in seen:
                seen.add(int(c))
                picked.append(int(c))
                if len(picked) == num_sampled:
                    break
    return np.asarray(picked, np.int64), tries


def log_uniform_probs(classes, range_max):
    c = np.asarray(classes, np.float64)
    return np.log((c + 2.0) / (c + 1.0)) / math.log(range_max + 1.0)


def accidental_hits(true_classes, sampled):
    rows, ids = [], []
    for i, row in enumerate(true_classes):
        for t in row:
            for k in np.nonzero(sampled == t)[0]:
                rows.append(i)
                ids.append(k)
    return np.asarray(rows, np.int32), np.asarray(ids, np.int64)


def choice_with_mask(g, mask, count, op):
    m = _array(mask, op, "input_x")
    if m.dtype != np.bool_:
        raise TypeError(f"For '{op}', 'input_x' must be a bool Tensor, but got "
                        f"{mstype.from_np(m.dtype) if m.dtype.kind in 'iuf' else m.dtype}")
    if not 1 <= m.ndim <= 5:
        raise ValueError(f"For '{op}', 'input_x' must have 1 to 5 axes, but got shape {m.shape}")
    if count <= 0:
        raise ValueError(f"For '{op}', 'count' must be positive, but got {count}")
    where = np.argwhere(m)
    where = where[g.permutation(len(where))][:count]
    index = np.zeros((count, m.ndim), np.int32)
    index[:len(where)] = where
    valid = np.zeros(count, np.bool_)
    valid[:len(where)] = True
    return wrap(index), wrap(valid)


# ---- the classes ------------------------------------------------------------------------------------

class SeededPrimitive(Primitive):
    """A random primitive with MindSpore's (seed, seed2): both 0 draws from the global stream,
    any other pair from a stream the instance owns (derived from the global seed and the pair)."""

    def _seeds(self, seed, seed2):
        self.seed = check_seed(seed, "seed", self.name)
        self.seed2 = check_seed(seed2, "seed2", self.name)

    def _generator(self):
        if self.seed == 0 and self.seed2 == 0:
            return _seed.generator(None)
        g = self.__dict__.get("_rng")
        if g is None:
            base = _seed.get_seed() or 0
            g = self.__dict__["_rng"] = np.random.default_rng([base, self.seed, self.seed2])
        return g


class DropoutKeep(Primitive):
    """Dropout's scaled keep mask of `shape`, drawn at every call from the global stream or the
    op-level `seed`'s: where `random(shape) >= p`, 1 / (1 - p), else 0; with `below`, where
    `random(shape) < p`, 1 / p. A primitive (no inputs) so a graph-mode replay draws anew."""

    inputs = ()
    differentiable = False

    def __init__(self, shape, p, dtype, seed=None, below=False):
        super().__init__()
        self.shape, self.p, self.dtype, self.seed, self.below = shape, p, dtype, seed, below

    def forward(self):
        r = _seed.generator(self.seed).random(self.shape)
        if self.below:
            return ((r < self.p) / self.p).astype(self.dtype)
        return ((r >= self.p) / (1.0 - self.p)).astype(self.dtype)


class UniformDraw(Primitive):
    """`shape` draws from the global stream at every call, cast to `dtype`: random(shape) in
    [0, 1), or uniform(low, high, shape) when `low` is given. A primitive without inputs, so a
    graph-mode replay draws anew (RReLU's slopes, fractional max pooling's samples,
    gumbel_softmax's noise)."""

    inputs = ()
    differentiable = False

    def __init__(self, shape, dtype, low=None, high=None):
        super().__init__()
        self.shape, self.dtype, self.low, self.high = shape, dtype, low, high

    def forward(self):
        g = _seed.generator()
        r = g.random(self.shape) if self.low is None else g.uniform(self.low, self.high,
                                                                      self.shape)
        return r.astype(self.dtype, copy=False)


class Bernoulli(Primitive):
    """`Bernoulli(seed=-1, offset=0)(x, p)`: 0/1 samples, 1 with probability p (a number, or a
    Tensor of x's shape or of one element), in x's shape and dtype. seed -1 draws from the
    global stream; any other seed makes the samples a function of (seed, offset)."""

    def __init__(self, seed=-1, offset=0):
        super().__init__()
        self.seed = check_seed(seed, "seed", "Bernoulli", low=-1)
        self.offset = check_seed(offset, "offset", "Bernoulli")

    def __call__(self, x, p=0.5):
        a = _array(x, "Bernoulli", "x")
        if isinstance(p, Tensor):
            pv = p._data
            if pv.shape != a.shape and pv.size != 1:
                raise ValueError(f"For 'Bernoulli', 'p' must have x's shape {a.shape} or one "
                                 f"element, but got shape {pv.shape}")
            pv = pv.reshape(a.shape) if pv.shape == a.shape else pv.reshape(())
        else:
            pv = check_type(p, (float, int), "p", "Bernoulli")
        if np.any((np.asarray(pv) < 0) | (np.asarray(pv) > 1)):
            raise ValueError("For 'Bernoulli', 'p' must lie in [0, 1]")
        g = _seed.generator(None) if self.seed == -1 else counter_rng(self.seed, self.offset)
        return wrap((g.random(a.shape) < pv).astype(a.dtype))


class Cauchy(Primitive):
    """`Cauchy(size, median=0.0, sigma=1.0)()`: float32 Cauchy samples of shape `size`."""

    def __init__(self, size, median=0.0, sigma=1.0):
        super().__init__()
        check_type(size, (tuple, list), "size", "Cauchy")
        self.size = list(shape_of(tuple(size), "Cauchy", "size"))
        if not self.size or any(d <= 0 for d in self.size):
            raise ValueError(f"For 'Cauchy', 'size' must hold positive ints, but got {size}")
        self.median = float(check_type(median, (float, int), "median", "Cauchy"))
        self.sigma = float(check_type(sigma, (float, int), "sigma", "Cauchy"))
        if self.sigma <= 0:
            raise ValueError(f"For 'Cauchy', 'sigma' must be positive, but got {sigma}")

    def __call__(self):
        g = _seed.generator(None)
        return wrap((self.median + self.sigma * g.standard_cauchy(self.size))
                    .astype(np.float32))


class Gamma(SeededPrimitive):
    """`Gamma(seed=0, seed2=0)(shape, alpha, beta)`: float32 Gamma samples of shape alpha and
    rate (inverse scale) beta, in the broadcast shape of `shape`, alpha and beta."""

    def __init__(self, seed=0, seed2=0):
        super().__init__()
        self._seeds(seed, seed2)

    def __call__(self, shape, alpha, beta):
        return wrap(draw_gamma(self._generator(), shape, alpha, beta, "Gamma"))


def draw_gamma(g, shape, alpha, beta, op):
    check_type(shape, tuple, "shape", op)
    dims = shape_of(shape, op)
    a = float_array(alpha, op, "alpha", (np.float32,))
    b = float_array(beta, op, "beta", (np.float32,))
    if np.any(a <= 0) or np.any(b <= 0):
        raise ValueError(f"For '{op}', 'alpha' and 'beta' must be positive")
    try:
        out_shape = np.broadcast_shapes(dims, a.shape, b.shape)
    except ValueError:
        raise ValueError(f"For '{op}', 'shape' {dims}, alpha's {a.shape} and beta's {b.shape} "
                         f"do not broadcast") from None
    a = np.broadcast_to(a.astype(np.float64), out_shape)
    b = np.broadcast_to(b.astype(np.float64), out_shape)
    return g.gamma(a, 1.0 / b).astype(np.float32)


class LogNormalReverse(Primitive):
    """`LogNormalReverse(mean=1.0, std=2.0)(input)`: log-normal samples exp(N(mean, std^2)) in
    input's shape and (float16 or float32) dtype."""

    def __init__(self, mean=1.0, std=2.0):
        super().__init__()
        self.mean = float(check_type(mean, (float, int), "mean", "LogNormalReverse"))
        self.std = float(check_type(std, (float, int), "std", "LogNormalReverse"))
        if self.std <= 0:
            raise ValueError(f"For 'LogNormalReverse', 'std' must be positive, but got {std}")

    def __call__(self, input):
        a = float_array(input, "LogNormalReverse", "input", (np.float16, np.float32))
        g = _seed.generator(None)
        return wrap(g.lognormal(self.mean, self.std, a.shape).astype(a.dtype))


class Multinomial(SeededPrimitive):
    """`Multinomial(seed=0, seed2=0, dtype=int32)(x, num_samples)`: class indices drawn with
    replacement from each row of the 1-D or 2-D (unnormalised) probabilities x."""

    def __init__(self, seed=0, seed2=0, dtype=mstype.int32):
        super().__init__()
        self._seeds(seed, seed2)
        out_dtype(dtype, "Multinomial", (np.int32, np.int64))
        self.dtype = dtype

    def __call__(self, x, num_samples):
        p = float_array(x, "Multinomial", "x")
        n = check_int(num_samples, "num_samples", "Multinomial")
        if n <= 0:
            raise ValueError(f"For 'Multinomial', 'num_samples' must be positive, but got {n}")
        out = sample_multinomial(self._generator(), p, n, True, "Multinomial")
        return wrap(out.astype(mstype.to_np(self.dtype)))


def multinomial_counter(x, seed, offset, numsamples, replacement, op):
    p = float_array(x, op, "x")
    if seed == -1 and offset == 0:
        g = _seed.generator(None)
    else:
        g = counter_rng(seed, offset)
    if not replacement and numsamples > p.shape[-1]:
        raise ValueError(f"For '{op}', without replacement 'numsamples' ({numsamples}) must not "
                         f"exceed the number of classes {p.shape[-1]}")
    return wrap(sample_multinomial(g, p, numsamples, replacement, op))


class MultinomialWithReplacement(Primitive):
    """`MultinomialWithReplacement(numsamples, replacement=False)(x, seed, offset)`: int64 class
    indices drawn from each row of x, a function of (seed, offset) (one-element Tensors;
    seed -1 with offset 0 draws from the global stream)."""

    def __init__(self, numsamples, replacement=False):
        super().__init__()
        self.numsamples = check_int(numsamples, "numsamples", "MultinomialWithReplacement")
        if self.numsamples <= 0:
            raise ValueError(f"For 'MultinomialWithReplacement', 'numsamples' must be positive, "
                             f"but got {numsamples}")
        self.replacement = check_bool(replacement, "replacement", "MultinomialWithReplacement")

    def __call__(self, x, seed, offset):
        op = "MultinomialWithReplacement"
        s = int(int_array(seed, op, "seed").reshape(-1)[0])
        o = int(int_array(offset, op, "offset").reshape(-1)[0])
        return multinomial_counter(x, s, o, self.numsamples, self.replacement, op)


class NonDeterministicInts(Primitive):
    """`NonDeterministicInts(dtype=int64)(shape)`: integers over the whole range of int32 or
    int64, from fresh operating-system entropy (no seed reproduces them)."""

    def __init__(self, dtype=mstype.int64):
        super().__init__()
        out_dtype(dtype, "NonDeterministicInts", (np.int32, np.int64))
        self.dtype = dtype

    def __call__(self, shape):
        dims = shape_of(shape, "NonDeterministicInts", tensor_only=True)
        dt = mstype.to_np(self.dtype)
        info = np.iinfo(dt)
        g = np.random.default_rng()
        return wrap(g.integers(info.min, info.max, dims, dtype=dt, endpoint=True))


class ParameterizedTruncatedNormal(SeededPrimitive):
    """`ParameterizedTruncatedNormal(seed=0, seed2=0)(shape, mean, stdevs, min, max)`: samples
    of `shape` = (batch, ...), row b normal with mean[b] and stdevs[b] restricted to
    [min[b], max[b]] (parameters of one element apply to every row), in mean's dtype."""

    def __init__(self, seed=0, seed2=0):
        super().__init__()
        self._seeds(seed, seed2)

    def __call__(self, shape, mean, stdevs, min, max):
        op = "ParameterizedTruncatedNormal"
        dims = shape_of(shape, op, tensor_only=True)
        if not dims:
            raise ValueError(f"For '{op}', 'shape' must have a batch axis")
        params = [float_array(v, op, k) for k, v in (("mean", mean), ("stdevs", stdevs),
                                                     ("min", min), ("max", max))]
        if len({p.dtype for p in params}) > 1:
            raise TypeError(f"For '{op}', 'mean', 'stdevs', 'min' and 'max' must share one "
                            f"dtype")
        batch = dims[0]
        cols = []
        for name, p in zip(("mean", "stdevs", "min", "max"), params):
            if p.ndim > 1 or p.size not in (1, batch):
                raise ValueError(f"For '{op}', '{name}' must be 1-D of size 1 or the batch size "
                                 f"{batch}, but got shape {p.shape}")
            cols.append(np.broadcast_to(p.astype(np.float64).reshape(-1), (batch,)))
        m, s, lo, hi = (c.reshape((batch,) + (1,) * (len(dims) - 1)) for c in cols)
        if np.any(s <= 0) or np.any(lo >= hi):
            raise ValueError(f"For '{op}', 'stdevs' must be positive and 'min' below 'max'")
        out = sample_truncated_normal(self._generator(), m, s, lo, hi, dims)
        return wrap(out.astype(params[0].dtype))


class Poisson(SeededPrimitive):
    """`Poisson(seed=0, seed2=0)(shape, mean)`: int32 Poisson samples in the broadcast shape of
    `shape` and mean's."""

    def __init__(self, seed=0, seed2=0):
        super().__init__()
        self._seeds(seed, seed2)

    def __call__(self, shape, mean):
        return wrap(draw_poisson(self._generator(), shape, mean, "Poisson").astype(np.int32))


def draw_poisson(g, shape, mean, op):
    check_type(shape, tuple, "shape", op)
    dims = shape_of(shape, op)
    m = float_array(mean, op, "mean", (np.float32,))
    if np.any(m < 0):
        raise ValueError(f"For '{op}', 'mean' must be non-negative")
    try:
        out_shape = np.broadcast_shapes(dims, m.shape)
    except ValueError:
        raise ValueError(f"For '{op}', 'shape' {dims} and mean's {m.shape} do not "
                         f"broadcast") from None
    return g.poisson(np.broadcast_to(m.astype(np.float64), out_shape))


def draw_categorical(logits, num_sample, seed, dtype, op):
    lg = float_array(logits, op, "logits")
    if lg.ndim != 2:
        raise ValueError(f"For '{op}', 'logits' must be 2-D (batch, classes), but got shape "
                         f"{lg.shape}")
    n = check_int(num_sample, "num_sample", op)
    if n <= 0:
        raise ValueError(f"For '{op}', 'num_sample' must be positive, but got {n}")
    seed = check_seed(seed, "seed", op)
    dt = out_dtype(dtype, op, (np.int16, np.int32, np.int64))
    g = _seed.generator(None) if seed == 0 else counter_rng(seed)
    z = lg.astype(np.float64)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    return wrap(sample_multinomial(g, p, n, True, op).astype(dt))


class RandomCategorical(Primitive):
    """`RandomCategorical(dtype=int64)(logits, num_sample, seed=0)`: class indices drawn from
    softmax(logits) per row of the 2-D logits; a nonzero seed makes them a function of it."""

    def __init__(self, dtype=mstype.int64):
        super().__init__()
        out_dtype(dtype, "RandomCategorical", (np.int16, np.int32, np.int64))
        self.dtype = dtype

    def __call__(self, logits, num_sample, seed=0):
        return draw_categorical(logits, num_sample, seed, self.dtype, "RandomCategorical")


class RandomChoiceWithMask(SeededPrimitive):
    """`RandomChoiceWithMask(count=256, seed=0, seed2=0)(input_x)`: (index, mask): the
    coordinates of up to `count` True elements of the bool input_x in random order, int32
    (count, ndim) zero-padded, and a bool (count,) mask of the valid rows."""

    def __init__(self, count=256, seed=0, seed2=0):
        super().__init__()
        self.count = check_int(count, "count", "RandomChoiceWithMask")
        if self.count <= 0:
            raise ValueError(f"For 'RandomChoiceWithMask', 'count' must be positive, but got "
                             f"{count}")
        self._seeds(seed, seed2)

    def __call__(self, input_x):
        return choice_with_mask(self._generator(), input_x, self.count, "RandomChoiceWithMask")


def draw_random_gamma(g, shape, alpha, op):
    dims = shape_of(shape, op, tensor_only=True)
    a = float_array(alpha, op, "alpha")
    if np.any(a <= 0):
        raise ValueError(f"For '{op}', 'alpha' must be positive")
    out = g.standard_gamma(np.broadcast_to(a.astype(np.float64), dims + a.shape))
    return wrap(out.astype(a.dtype))


class RandomGamma(SeededPrimitive):
    """`RandomGamma(seed=0, seed2=0)(shape, alpha)`: Gamma(alpha, 1) samples of shape
    shape + alpha.shape (`shape` an integer Tensor), in alpha's dtype."""

    def __init__(self, seed=0, seed2=0):
        super().__init__()
        self._seeds(seed, seed2)

    def __call__(self, shape, alpha):
        return draw_random_gamma(self._generator(), shape, alpha, "RandomGamma")


_POISSON_OUT = (np.float16, np.float32, np.float64, np.int32, np.int64)


def draw_random_poisson(g, shape, rate, dtype, op):
    dims = shape_of(shape, op, tensor_only=True)
    r = float_array(rate, op, "rate", (np.float16, np.float32, np.float64, np.int32, np.int64))
    dt = out_dtype(dtype, op, _POISSON_OUT)
    if np.any(r < 0):
        raise ValueError(f"For '{op}', 'rate' must be non-negative")
    out = g.poisson(np.broadcast_to(r.astype(np.float64), dims + r.shape))
    return wrap(out.astype(dt))


class RandomPoisson(SeededPrimitive):
    """`RandomPoisson(seed=0, seed2=0, dtype=int64)(shape, rate)`: Poisson(rate) samples of
    shape shape + rate.shape (`shape` an integer Tensor), in `dtype`."""

    def __init__(self, seed=0, seed2=0, dtype=mstype.int64):
        super().__init__()
        self._seeds(seed, seed2)
        out_dtype(dtype, "RandomPoisson", _POISSON_OUT)
        self.dtype = dtype

    def __call__(self, shape, rate):
        return draw_random_poisson(self._generator(), shape, rate, self.dtype, "RandomPoisson")


class RandomShuffle(SeededPrimitive):
    """`RandomShuffle(seed=0, seed2=0)(x)`: x with its first axis randomly permuted."""

    def __init__(self, seed=0, seed2=0):
        super().__init__()
        self._seeds(seed, seed2)

    def __call__(self, x):
        a = _array(x, "RandomShuffle", "x")
        if a.ndim == 0:
            return wrap(a.copy())
        return wrap(a[self._generator().permutation(a.shape[0])])


_PERM_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                np.uint64)


class Randperm(Primitive):
    """`Randperm(max_length=1, pad=-1, dtype=int32)(n)`: a random permutation of 0..n-1 (n a
    one-element integer Tensor) followed by `pad` up to length `max_length`."""

    def __init__(self, max_length=1, pad=-1, dtype=mstype.int32):
        super().__init__()
        self.max_length = check_int(max_length, "max_length", "Randperm")
        if self.max_length <= 0:
            raise ValueError(f"For 'Randperm', 'max_length' must be positive, but got "
                             f"{max_length}")
        self.pad = check_int(pad, "pad", "Randperm")
        out_dtype(dtype, "Randperm", _PERM_DTYPES)
        self.dtype = dtype

    def __call__(self, n):
        a = int_array(n, "Randperm", "n")
        if a.size != 1:
            raise ValueError(f"For 'Randperm', 'n' must have one element, but got shape "
                             f"{a.shape}")
        count = int(a.reshape(-1)[0])
        if count < 0 or count > self.max_length:
            raise ValueError(f"For 'Randperm', 'n' ({count}) must lie in [0, max_length "
                             f"{self.max_length}]")
        dt = mstype.to_np(self.dtype)
        info = np.iinfo(dt)
        if count > 0 and count - 1 > info.max or not info.min <= self.pad <= info.max:
            raise ValueError(f"For 'Randperm', {dt} cannot hold the values 0..{count - 1} and "
                             f"pad {self.pad}")
        out = np.full(self.max_length, self.pad, dt)
        out[:count] = _seed.generator(None).permutation(count)
        return wrap(out)


def randperm_counter(n, seed, offset, dtype, op):
    if isinstance(n, Tensor):
        n = int(int_array(n, op, "n").reshape(-1)[0])
    n = check_int(n, "n", op)
    if n < 0:
        raise ValueError(f"For '{op}', 'n' must be non-negative, but got {n}")
    dt = mstype.to_np(dtype)
    if dt.kind not in "iuf" or (dt.kind in "iu" and n > np.iinfo(dt).max + 1):
        raise ValueError(f"For '{op}', 'dtype' {dt} cannot hold the values 0..{n - 1}")
    g = _seed.generator(None) if seed == -1 else counter_rng(seed, offset)
    return wrap(g.permutation(n).astype(dt))


class RandpermV2(Primitive):
    """`RandpermV2(seed=0, offset=0, dtype=int64)(n)`: a random permutation of 0..n-1, a
    function of (seed, offset) (seed -1: from the global stream)."""

    def __init__(self, seed=0, offset=0, dtype=mstype.int64):
        super().__init__()
        self.seed = check_seed(seed, "seed", "RandpermV2", low=-1)
        self.offset = check_seed(offset, "offset", "RandpermV2")
        out_dtype(dtype, "RandpermV2", _PERM_DTYPES + (np.float16, np.float32, np.float64))
        self.dtype = dtype

    def __call__(self, n):
        return randperm_counter(n, self.seed, self.offset, self.dtype, "RandpermV2")


class StandardLaplace(SeededPrimitive):
    """`StandardLaplace(seed=0, seed2=0)(shape)`: float32 Laplace(0, 1) samples of `shape` (a
    tuple or an integer Tensor)."""

    def __init__(self, seed=0, seed2=0):
        super().__init__()
        self._seeds(seed, seed2)

    def __call__(self, shape):
        dims = shape_of(shape, "StandardLaplace")
        return wrap(self._generator().laplace(0.0, 1.0, dims).astype(np.float32))


class TruncatedNormal(SeededPrimitive):
    """`TruncatedNormal(dtype=float32, seed=0, seed2=0)(shape)`: standard normal samples
    restricted to [-2, 2], of `shape` (an integer Tensor)."""

    def __init__(self, dtype=mstype.float32, seed=0, seed2=0):
        super().__init__()
        out_dtype(dtype, "TruncatedNormal", (np.float16, np.float32, np.float64))
        self.dtype = dtype
        self._seeds(seed, seed2)

    def __call__(self, shape):
        dims = shape_of(shape, "TruncatedNormal", tensor_only=True)
        out = sample_truncated_normal(self._generator(), 0.0, 1.0, -2.0, 2.0, dims)
        return wrap(out.astype(mstype.to_np(self.dtype)))


class UniformInt(SeededPrimitive):
    """`UniformInt(seed=0, seed2=0)(shape, minval, maxval)`: int32 samples uniform in
    [minval, maxval) (one-element int32 Tensors)."""

    def __init__(self, seed=0, seed2=0):
        super().__init__()
        self._seeds(seed, seed2)

    def __call__(self, shape, minval, maxval):
        dims = shape_of(shape, "UniformInt")
        lo, hi = (int(int_array(v, "UniformInt", k).reshape(-1)[0])
                  for k, v in (("minval", minval), ("maxval", maxval)))
        if lo >= hi:
            raise ValueError(f"For 'UniformInt', 'minval' ({lo}) must be below 'maxval' ({hi})")
        return wrap(self._generator().integers(lo, hi, dims).astype(np.int32))


def check_sampler_args(true_classes, num_true, num_sampled, unique, range_max, seed, op,
                       kinds=(np.int64,)):
    t = _array(true_classes, op, "true_classes")
    if t.dtype not in [np.dtype(k) for k in kinds]:
        raise TypeError(f"For '{op}', 'true_classes' must be an integer Tensor of "
                        f"{', '.join(str(mstype.from_np(np.dtype(k))) for k in kinds)}, but got "
                        f"{mstype.from_np(t.dtype) if t.dtype.kind in 'biuf' else t.dtype}")
    num_true = check_int(num_true, "num_true", op)
    num_sampled = check_int(num_sampled, "num_sampled", op)
    range_max = check_int(range_max, "range_max", op)
    check_bool(unique, "unique", op)
    check_seed(seed, "seed", op)
    if num_true <= 0 or num_sampled <= 0 or range_max <= 0:
        raise ValueError(f"For '{op}', 'num_true', 'num_sampled' and 'range_max' must be "
                         f"positive")
    if t.ndim != 2 or t.shape[1] != num_true:
        raise ValueError(f"For '{op}', 'true_classes' must have shape (batch, num_true="
                         f"{num_true}), but got {t.shape}")
    if unique and num_sampled > range_max:
        raise ValueError(f"For '{op}', with 'unique' 'num_sampled' ({num_sampled}) must not "
                         f"exceed 'range_max' ({range_max})")
    return t


def candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed, log_uniform,
                      op, kinds=(np.int64,)):
    t = check_sampler_args(true_classes, num_true, num_sampled, unique, range_max, seed, op,
                           kinds)
    g = _seed.generator(None) if seed == 0 else counter_rng(seed)
    classes = np.arange(range_max)
    if log_uniform:
        probs = log_uniform_probs(classes, range_max)
        probs = probs / probs.sum()
    else:
        probs = np.full(range_max, 1.0 / range_max)
    sampled, tries = sample_candidates(g, num_sampled, unique, range_max, probs)

    def expected(c):
        p = log_uniform_probs(c, range_max) if log_uniform else np.full(np.shape(c),
                                                                        1.0 / range_max)
        if unique and log_uniform:
            return -np.expm1(tries * np.log1p(-p))
        return num_sampled * p
    return (wrap(sampled.astype(t.dtype)), wrap(expected(t).astype(np.float32)),
            wrap(expected(sampled).astype(np.float32)))


class UniformCandidateSampler(Primitive):
    """`UniformCandidateSampler(num_true, num_sampled, unique, range_max, seed=0,
    remove_accidental_hits=False)(true_classes)`: (sampled_candidates, true_expected_count,
    sampled_expected_count): `num_sampled` classes drawn uniformly from [0, range_max)
    (distinct with `unique`), and the expected counts num_sampled / range_max of the true and
    sampled classes. A nonzero seed makes the draw a function of it."""

    def __init__(self, num_true, num_sampled, unique, range_max, seed=0,
                 remove_accidental_hits=False):
        super().__init__()
        op = "UniformCandidateSampler"
        self.num_true = check_int(num_true, "num_true", op)
        self.num_sampled = check_int(num_sampled, "num_sampled", op)
        self.unique = check_bool(unique, "unique", op)
        self.range_max = check_int(range_max, "range_max", op)
        self.seed = check_seed(seed, "seed", op)
        self.remove_accidental_hits = check_bool(remove_accidental_hits,
                                                 "remove_accidental_hits", op)

    def __call__(self, true_classes):
        return candidate_sampler(true_classes, self.num_true, self.num_sampled, self.unique,
                                 self.range_max, self.seed, False, "UniformCandidateSampler",
                                 (np.int32, np.int64))


class LogUniformCandidateSampler(Primitive):
    """`LogUniformCandidateSampler(num_true=1, num_sampled=5, unique=True, range_max=5,
    seed=0)(true_classes)`: like UniformCandidateSampler, with class c drawn with probability
    log((c + 2) / (c + 1)) / log(range_max + 1); with `unique` the expected counts are
    1 - (1 - p) ** (number of draws made)."""

    def __init__(self, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
        super().__init__()
        op = "LogUniformCandidateSampler"
        self.num_true = check_int(num_true, "num_true", op)
        self.num_sampled = check_int(num_sampled, "num_sampled", op)
        self.unique = check_bool(unique, "unique", op)
        self.range_max = check_int(range_max, "range_max", op)
        self.seed = check_seed(seed, "seed", op)

    def __call__(self, true_classes):
        return candidate_sampler(true_classes, self.num_true, self.num_sampled, self.unique,
                                 self.range_max, self.seed, True, "LogUniformCandidateSampler")


class ComputeAccidentalHits(Primitive):
    """`ComputeAccidentalHits(num_true=1)(true_classes, sampled_candidates)`: (indices, ids,
    weights) of every sampled candidate equal to a true class: the row of true_classes (int32),
    the position in sampled_candidates (int64), and the weight -FLT_MAX (float32)."""

    def __init__(self, num_true=1):
        super().__init__()
        self.num_true = check_int(num_true, "num_true", "ComputeAccidentalHits")
        if self.num_true <= 0:
            raise ValueError(f"For 'ComputeAccidentalHits', 'num_true' must be positive, but "
                             f"got {num_true}")

    def __call__(self, true_classes, sampled_candidates):
        op = "ComputeAccidentalHits"
        t = int_array(true_classes, op, "true_classes")
        s = int_array(sampled_candidates, op, "sampled_candidates")
        if t.ndim != 2 or t.shape[1] != self.num_true:
            raise ValueError(f"For '{op}', 'true_classes' must have shape (batch, num_true="
                             f"{self.num_true}), but got {t.shape}")
        if s.ndim != 1:
            raise ValueError(f"For '{op}', 'sampled_candidates' must be 1-D, but got shape "
                             f"{s.shape}")
        rows, ids = accidental_hits(t, s)
        weights = np.full(rows.shape, -np.finfo(np.float32).max, np.float32)
        return wrap(rows), wrap(ids), wrap(weights)


PRIMITIVE_CLASSES = (
    "Bernoulli", "Cauchy", "Gamma", "LogNormalReverse", "LogUniformCandidateSampler",
    "Multinomial", "MultinomialWithReplacement", "NonDeterministicInts",
    "ParameterizedTruncatedNormal", "Poisson", "RandomCategorical", "RandomChoiceWithMask",
    "RandomGamma", "RandomPoisson", "RandomShuffle", "Randperm", "RandpermV2",
    "StandardLaplace", "TruncatedNormal", "UniformCandidateSampler", "UniformInt",
    "ComputeAccidentalHits",
)
