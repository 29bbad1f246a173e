"""Random ops, all drawn from the framework's generators (reset by `minispore.set_seed`)."""
import numpy as np

from ..._autodiff.tape import wrap
from ..._validator import check_bool, check_int, check_positive_int, check_type
from ...common import dtype as mstype
from ...common.seed import generator
from ...common.tensor import Tensor

__all__ = ["rand", "randn", "uniform", "normal", "standard_normal", "randint", "bernoulli",
           "multinomial", "randperm", "rand_like", "randn_like", "randint_like", "shuffle"]


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
