"""Random ops, all drawn from the framework's generators (reset by `minispore.set_seed`).

A function's `seed=None` draws from the global stream, any other seed from that seed's stream
(both derived from the global seed); `generator=` takes a NumPy Generator to draw from instead.
"""
import numpy as np

from ..._autodiff.tape import wrap
from ..._validator import check_bool, check_int, check_positive_int, check_type
from ...common import dtype as mstype
from ...common.seed import generator
from ...common.tensor import Tensor
from ..operations import random_ops as R

__all__ = ["rand", "randn", "uniform", "normal", "standard_normal", "randint", "bernoulli",
           "multinomial", "randperm", "rand_like", "randn_like", "randint_like", "shuffle",
           "bernoulli_ext", "choice_with_mask", "gamma", "laplace", "log_uniform_candidate_sampler",
           "multinomial_with_replacement", "poisson", "random_categorical", "random_gamma",
           "random_poisson", "standard_laplace", "uniform_candidate_sampler", "normal_",
           "uniform_", "random_", "exponential_", "bernoulli_"]


def _size(size, op):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for d in size:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"For '{op}', the size must hold ints, but got {size}")
        if d < 0:
            raise ValueError(f"For '{op}', the size must not be negative, but got {size}")
    return tuple(int(d) for d in size)


def _float_dtype(dtype, op):
    dt = np.dtype(np.float32) if dtype is None else mstype.to_np(dtype)
    if dt.kind != "f":
        raise TypeError(f"For '{op}', 'dtype' must be a floating-point type, got {dt}")
    return dt


def rand(*size, dtype=None, seed=None):
    """Uniform samples in [0, 1) (float32 by default)."""
    dt = _float_dtype(dtype, "rand")
    return wrap(generator(seed).random(_size(size, "rand")).astype(dt))


def randn(*size, dtype=None, seed=None):
    """Standard normal samples (float32 by default)."""
    dt = _float_dtype(dtype, "randn")
    return wrap(generator(seed).standard_normal(_size(size, "randn")).astype(dt))


def rand_like(input, seed=None, *, dtype=None):
    """Uniform samples in [0, 1) of input's shape (and dtype, unless `dtype`)."""
    return rand(*input.shape, dtype=dtype or input.dtype, seed=seed)


def randn_like(input, seed=None, *, dtype=None):
    """Standard normal samples of input's shape (and dtype, unless `dtype`)."""
    return randn(*input.shape, dtype=dtype or input.dtype, seed=seed)


def _value(v):
    return v._data if isinstance(v, Tensor) else v


def uniform(shape, minval, maxval, seed=None, dtype=mstype.float32):
    """Samples uniform in [minval, maxval) (integers when `dtype` is an integer type)."""
    shape = _size(tuple(shape), "uniform")
    lo, hi = _value(minval), _value(maxval)
    if np.any(np.asarray(lo) > np.asarray(hi)):
        raise ValueError(f"For 'uniform', 'minval' {lo} must not exceed 'maxval' {hi}")
    dt = mstype.to_np(dtype)
    g = generator(seed)
    if dt.kind in "iu":
        return wrap(g.integers(lo, hi, shape).astype(dt))
    return wrap(g.uniform(lo, hi, np.broadcast_shapes(shape, np.shape(lo), np.shape(hi)))
                .astype(dt))


def normal(shape, mean, stddev, seed=None):
    """Normal samples with `mean` and `stddev` (broadcast)."""
    shape = _size(tuple(shape), "normal")
    m, s = _value(mean), _value(stddev)
    if np.any(np.asarray(s) < 0):
        raise ValueError("For 'normal', 'stddev' must be non-negative")
    out = generator(seed).normal(m, s, np.broadcast_shapes(shape, np.shape(m), np.shape(s)))
    dt = np.result_type(np.asarray(m).dtype if isinstance(m, np.ndarray) else np.float32,
                        np.float32)
    return wrap(out.astype(dt))


def standard_normal(shape, seed=None):
    """float32 standard normal samples of `shape`."""
    return wrap(generator(seed).standard_normal(_size(tuple(shape), "standard_normal"))
                .astype(np.float32))


def randint(low, high, size, seed=None, *, dtype=None):
    """Integers in [low, high) of shape `size` (a tuple; int64 by default)."""
    low, high = check_int(low, "low", "randint"), check_int(high, "high", "randint")
    check_type(size, (tuple, list), "size", "randint")
    if high <= low:
        raise ValueError(f"For 'randint', 'high' ({high}) must be greater than 'low' ({low})")
    dt = np.dtype(np.int64) if dtype is None else mstype.to_np(dtype)
    if dt.kind not in "iu":
        raise TypeError(f"For 'randint', 'dtype' must be an integer type, but got {dt}")
    return wrap(generator(seed).integers(low, high, _size(tuple(size), "randint")).astype(dt))


def randint_like(input, low, high, seed=None, *, dtype=None):
    """Integers in [low, high) of input's shape (and integer dtype, unless `dtype`)."""
    if dtype is None and input._data.dtype.kind not in "iu":
        raise TypeError(f"For 'randint_like', the dtype must be an integer type: pass 'dtype' "
                        f"for an input of dtype {input.dtype}")
    return randint(low, high, input.shape, seed, dtype=dtype or input.dtype)


def bernoulli(input, p=0.5, seed=None):
    """0/1 samples with probability `p` of 1, in input's shape and dtype."""
    p = _value(p)
    if np.any((np.asarray(p) < 0) | (np.asarray(p) > 1)):
        raise ValueError("For 'bernoulli', 'p' must be in [0, 1]")
    draws = generator(seed).random(input.shape) < p
    return wrap(draws.astype(input._data.dtype))


def multinomial(input, num_samples, replacement=True, seed=None):
    """int32 indices drawn from each row's (unnormalised) probabilities: shape input.shape[:-1]
    + (num_samples,)."""
    check_positive_int(num_samples, "num_samples", "multinomial")
    replacement = check_bool(replacement, "replacement", "multinomial")
    probs = np.asarray(input._data, np.float64)
    if np.any(probs < 0) or not np.all(np.isfinite(probs)):
        raise ValueError("For 'multinomial', probabilities must be finite and non-negative")
    rows = probs.reshape(-1, probs.shape[-1])
    g = generator(seed)
    out = []
    for r in rows:
        total = r.sum()
        if total <= 0:
            raise ValueError("For 'multinomial', each row needs a positive total probability")
        if not replacement and num_samples > np.count_nonzero(r):
            raise ValueError("For 'multinomial', without replacement 'num_samples' must not "
                             "exceed the number of nonzero probabilities")
        out.append(g.choice(r.size, num_samples, replace=replacement, p=r / total))
    res = np.asarray(out, np.int32)  # MindSpore's index dtype here
    return wrap(res.reshape(probs.shape[:-1] + (num_samples,)))


def randperm(n, seed=0, offset=0, dtype=mstype.int64):
    """A random permutation of 0..n-1, a function of (`seed`, `offset`) as in MindSpore's
    counter-based generator: the same arguments give the same permutation."""
    for arg, v in (("n", n), ("seed", seed), ("offset", offset)):
        if check_int(v, arg, "randperm") < 0:
            raise ValueError(f"For 'randperm', the '{arg}' must be non-negative, but got {v}")
    dt = mstype.to_np(dtype)
    if dt.kind not in "iuf" or (dt.kind in "iu" and n > np.iinfo(dt).max + 1):
        raise ValueError(f"For 'randperm', 'dtype' {dt} cannot hold the values 0..{n - 1}")
    return wrap(np.random.default_rng([int(seed), int(offset)]).permutation(n).astype(dt))


def shuffle(x, seed=None):
    """x with its first axis permuted at random."""
    perm = generator(seed).permutation(x.shape[0])
    return wrap(x._data[perm])


# ---- distributions -------------------------------------------------------------------------------

def gamma(shape, alpha, beta, seed=None):
    """float32 Gamma samples of shape `alpha` and rate (inverse scale) `beta` (float32
    Tensors), in the broadcast shape of the tuple `shape`, alpha's and beta's."""
    return wrap(R.draw_gamma(generator(seed), shape, alpha, beta, "gamma"))


def random_gamma(shape, alpha, seed=None):
    """Gamma(alpha, 1) samples of shape shape + alpha.shape (`shape` an integer Tensor), in
    alpha's dtype."""
    return R.draw_random_gamma(generator(seed), shape, alpha, "random_gamma")


def poisson(shape, mean, seed=None):
    """float32 Poisson samples in the broadcast shape of the tuple `shape` and the float32
    Tensor mean's."""
    return wrap(R.draw_poisson(generator(seed), shape, mean, "poisson").astype(np.float32))


def random_poisson(shape, rate, seed=None, dtype=mstype.float32):
    """Poisson(rate) samples of shape shape + rate.shape (`shape` an integer Tensor), in
    `dtype`."""
    return R.draw_random_poisson(generator(seed), shape, rate, dtype, "random_poisson")


def standard_laplace(shape, seed=None):
    """float32 Laplace(0, 1) samples of `shape` (a tuple or an integer Tensor)."""
    dims = R.shape_of(shape, "standard_laplace")
    return wrap(generator(seed).laplace(0.0, 1.0, dims).astype(np.float32))


def laplace(shape, mean, lambda_param, seed=None):
    """float32 Laplace samples of location `mean` and scale `lambda_param` (float32 Tensors), in
    the broadcast shape of the tuple `shape` and theirs: mean + lambda_param * z for standard
    Laplace z, so differentiable in both parameters (as MindSpore's)."""
    check_type(shape, tuple, "shape", "laplace")
    dims = R.shape_of(shape, "laplace")
    m = R.float_array(mean, "laplace", "mean", (np.float32,))
    b = R.float_array(lambda_param, "laplace", "lambda_param", (np.float32,))
    if np.any(b <= 0):
        raise ValueError("For 'laplace', 'lambda_param' must be positive")
    try:
        out_shape = np.broadcast_shapes(dims, m.shape, b.shape)
    except ValueError:
        raise ValueError(f"For 'laplace', 'shape' {dims}, mean's {m.shape} and lambda_param's "
                         f"{b.shape} do not broadcast") from None
    z = wrap(generator(seed).laplace(0.0, 1.0, out_shape).astype(np.float32))
    return mean + lambda_param * z


def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64):
    """Class indices drawn from softmax(logits) per row of the 2-D logits, shape (batch,
    num_sample); a nonzero seed makes them a function of it."""
    return R.draw_categorical(logits, num_sample, seed, dtype, "random_categorical")


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """int64 class indices drawn from each row of the probabilities x, a function of
    (seed, offset) (seed -1 with offset 0 draws from the global stream)."""
    op = "multinomial_with_replacement"
    vals = []
    for arg, v in (("seed", seed), ("offset", offset)):
        if isinstance(v, Tensor):
            v = int(R.int_array(v, op, arg).reshape(-1)[0])
        vals.append(R.check_seed(v, arg, op, low=-1 if arg == "seed" else 0))
    numsamples = check_positive_int(numsamples, "numsamples", op)
    replacement = check_bool(replacement, "replacement", op)
    return R.multinomial_counter(x, vals[0], vals[1], numsamples, replacement, op)


def choice_with_mask(input_x, count=256, seed=None):
    """(index, mask): the coordinates of up to `count` True elements of the bool input_x in
    random order, int32 (count, ndim) zero-padded, and a bool (count,) mask of the valid rows."""
    count = check_int(count, "count", "choice_with_mask")
    return R.choice_with_mask(generator(seed), input_x, count, "choice_with_mask")


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """(sampled_candidates, true_expected_count, sampled_expected_count): `num_sampled` classes
    drawn uniformly from [0, range_max) (distinct with `unique`), in true_classes' integer
    dtype, and the expected counts num_sampled / range_max (float32). A nonzero seed makes the
    draw a function of it."""
    check_bool(remove_accidental_hits, "remove_accidental_hits", "uniform_candidate_sampler")
    return R.candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed,
                               False, "uniform_candidate_sampler", (np.int32, np.int64))


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True,
                                  range_max=5, seed=0):
    """As `uniform_candidate_sampler`, with class c drawn with probability
    log((c + 2) / (c + 1)) / log(range_max + 1) (int64 true_classes)."""
    return R.candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed,
                               True, "log_uniform_candidate_sampler")


# ---- sampling into a tensor ----------------------------------------------------------------------

def _rng(gen, op):
    if gen is None:
        return generator(None)
    if isinstance(gen, np.random.Generator):
        return gen
    raise TypeError(f"For '{op}', 'generator' must be None or a numpy.random.Generator, but got "
                    f"{type(gen).__name__}")


def bernoulli_ext(input, *, generator=None):
    """0/1 samples, 1 with the probability held by each element of `input` (in [0, 1]), in
    input's shape and dtype."""
    p = R.float_array(input, "bernoulli_ext", "input")
    if np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
        raise ValueError("For 'bernoulli_ext', the probabilities must lie in [0, 1]")
    return wrap((_rng(generator, "bernoulli_ext").random(p.shape) < p).astype(p.dtype))


def _fill(input, values):
    input[...] = values.astype(input._data.dtype)
    return input


def normal_(input, mean=0, std=1, *, generator=None):
    """Fill the floating-point `input` in place with Normal(mean, std) samples; returns it."""
    a = R.float_array(input, "normal_", "input")
    if std < 0:
        raise ValueError(f"For 'normal_', 'std' must be non-negative, but got {std}")
    return _fill(input, _rng(generator, "normal_").normal(mean, std, a.shape))


def uniform_(input, from_=0, to=1, *, generator=None):
    """Fill the floating-point `input` in place with samples uniform in [from_, to); returns
    it."""
    a = R.float_array(input, "uniform_", "input")
    if from_ > to:
        raise ValueError(f"For 'uniform_', 'from_' ({from_}) must not exceed 'to' ({to})")
    return _fill(input, _rng(generator, "uniform_").uniform(from_, to, a.shape))


def random_(input, from_=0, to=None, *, generator=None):
    """Fill `input` in place with integers uniform in [from_, to); without `to`, up to the
    largest integer its dtype holds exactly (its maximum for integer dtypes, 2**(mantissa + 1)
    for floating ones). Returns it."""
    dt = input._data.dtype if isinstance(input, Tensor) else None
    if dt is None or dt.kind not in "iuf":
        raise TypeError("For 'random_', 'input' must be a Tensor of a numeric dtype")
    from_ = check_int(from_, "from_", "random_")
    if to is None:
        to = int(np.iinfo(dt).max) + 1 if dt.kind in "iu" else 2 ** (np.finfo(dt).nmant + 1) + 1
    to = check_int(to, "to", "random_")
    if from_ >= to:
        raise ValueError(f"For 'random_', 'from_' ({from_}) must be below 'to' ({to})")
    values = _rng(generator, "random_").integers(from_, to, input.shape)
    return _fill(input, values)


def exponential_(input, lambd=1, *, generator=None):
    """Fill the floating-point `input` in place with Exponential(rate lambd) samples; returns
    it."""
    a = R.float_array(input, "exponential_", "input")
    if lambd <= 0:
        raise ValueError(f"For 'exponential_', 'lambd' must be positive, but got {lambd}")
    return _fill(input, _rng(generator, "exponential_").exponential(1.0 / lambd, a.shape))


def bernoulli_(input, p=0.5, *, generator=None):
    """Fill `input` in place with 0/1 samples, 1 with probability p (a number or a Tensor that
    broadcasts to input); returns it."""
    pv = p._data if isinstance(p, Tensor) else p
    if np.any((np.asarray(pv) < 0) | (np.asarray(pv) > 1)):
        raise ValueError("For 'bernoulli_', 'p' must lie in [0, 1]")
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'bernoulli_', 'input' must be a Tensor, but got "
                        f"{type(input).__name__}")
    return _fill(input, _rng(generator, "bernoulli_").random(input.shape) < pv)
