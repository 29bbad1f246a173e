"""Hypothesis strategies for property-based gradient tests: shapes, broadcastable shapes,
arrays and tensors with per-input value domains. Needs the `hypothesis` package."""
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..common.tensor import Tensor

__all__ = ["shapes", "broadcastable_shapes", "arrays", "tensors", "axes", "Domain",
           "REALS", "POSITIVE", "UNIT", "AWAY_FROM_ZERO", "ABOVE_ONE"]


class Domain:
    """Where a function is smooth: values in [low, high], at least `gap` away from every point
    in `avoid` (kinks such as 0 for abs, or poles)."""

    def __init__(self, low=-3.0, high=3.0, avoid=(), gap=1e-2):
        self.low, self.high, self.avoid, self.gap = float(low), float(high), tuple(avoid), gap

    def fix(self, a):
        """Move values that sit too close to an avoided point away from it."""
        a = np.clip(a, self.low, self.high)
        for p in self.avoid:
            near = np.abs(a - p) < self.gap
            a = np.where(near, np.where(a >= p, p + self.gap, p - self.gap), a)
        return np.clip(a, self.low, self.high)

    def __repr__(self):
        return f"Domain({self.low}, {self.high}, avoid={self.avoid})"


REALS = Domain(-3, 3)
POSITIVE = Domain(0.1, 4)
UNIT = Domain(-0.9, 0.9)
AWAY_FROM_ZERO = Domain(-3, 3, avoid=(0.0,), gap=0.1)
ABOVE_ONE = Domain(1.1, 4)


def shapes(min_dims=0, max_dims=3, min_side=1, max_side=4):
    """Array shapes; with min_side=0 empty shapes appear, and 0-d shapes when min_dims=0."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=4):
    """A tuple of `num_shapes` mutually broadcastable shapes (size-1 and missing axes included)."""
    return hnp.mutually_broadcastable_shapes(num_shapes=num_shapes, min_dims=min_dims,
                                             max_dims=max_dims, min_side=min_side,
                                             max_side=max_side).map(lambda r: r.input_shapes)


def arrays(shape, domain=REALS, dtype=np.float64):
    """float arrays of `shape` with values in `domain` (drawn distinct enough to avoid ties)."""
    elements = st.floats(domain.low, domain.high, allow_nan=False, allow_infinity=False,
                         width=64)
    return hnp.arrays(np.float64, shape, elements=elements).map(
        lambda a: np.asarray(domain.fix(a), dtype))


def tensors(shape, domain=REALS, dtype=np.float64):
    """minispore Tensors of `shape` with values in `domain`."""
    return arrays(shape, domain, dtype).map(Tensor)


def axes(ndim, allow_none=True):
    """A reduction axis argument for rank `ndim`: None, an int, or a tuple of distinct ints."""
    options = []
    if allow_none:
        options.append(st.none())
    if ndim > 0:
        options.append(st.integers(-ndim, ndim - 1))
        options.append(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim,
                                unique=True).map(tuple))
    return st.one_of(*options) if options else st.none()
