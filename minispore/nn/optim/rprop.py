"""Rprop: resilient backpropagation, per-element step sizes driven by gradient signs only."""
import numpy as np

from ..._validator import check_float, check_float_range, check_type
from ._chunks import run_in_chunks
from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Per element, with `s = sign(g * prev)`: the step size is multiplied by `etaplus` where
    `s > 0`, by `etaminus` where `s < 0`, and clipped to `step_sizes`; where `s < 0` the
    gradient is taken as 0 (no move, and `prev = 0` so the next step neither grows nor shrinks);
    then `w -= sign(g) * step_size; prev = g`. The step sizes start at the learning rate of the
    first step; later learning rates are not used.

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): the initial
            step size. Default: 0.1.
        etas (tuple[float, float]): `(etaminus, etaplus)`, with `0 < etaminus < 1 < etaplus`.
            Default: (0.5, 1.2).
        step_sizes (tuple[float, float]): `(min_step_size, max_step_size)`, with
            `0 <= min <= max`. Default: (1e-6, 50.0).
        weight_decay (Union[float, int, Cell]): L2 penalty added to the gradient. Default: 0.0.

    State: `prev.<name>` (the last gradient used), `step_size.<name>`.

    Example:
        >>> opt = nn.Rprop(net.trainable_params(), learning_rate=0.01)
        >>> opt(grads)
    """

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0),
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        etaminus, etaplus = _pair(etas, "etas")
        self.etaminus = check_float_range(etaminus, "etaminus", "Rprop", 0.0, 1.0, False, False,
                                          allow_int=False)
        self.etaplus = check_float_range(etaplus, "etaplus", "Rprop", low=1.0,
                                         low_inclusive=False, allow_int=False)
        low, high = _pair(step_sizes, "step_sizes")
        self.step_size_min = check_float(low, "min_step_sizes", "Rprop", allow_int=False)
        self.step_size_max = check_float(high, "max_step_sizes", "Rprop", allow_int=False)
        # MindSpore checks only min <= max; a negative step would climb the loss.
        if not 0.0 <= self.step_size_min <= self.step_size_max:
            raise ValueError(f"For 'Rprop', the 'step_sizes' must satisfy 0 <= min <= max, but "
                             f"got {step_sizes}")
        self.prev = self._new_state("prev", 0.0)
        self.step_size = self._new_state("step_size", 0.0)

    def construct(self, gradients):
        arrays, lrs, _ = self._begin_step(gradients)
        first = int(self.global_step._data[0]) == 1
        for p, g, lr, prev, step_size in zip(self.parameters, arrays, lrs, self.prev,
                                             self.step_size):
            w, last, size = p._data, prev._data, step_size._data
            if first:
                size.fill(w.dtype.type(lr))
            run_in_chunks(_rprop_step, (w, g, last, size), self.etaminus, self.etaplus,
                          self.step_size_min, self.step_size_max)
        return self._end_step(self.prev, self.step_size)


def _rprop_step(w, g, prev, size, etaminus, etaplus, size_min, size_max):
    """One update of `w`, `prev` and `size` in place. Signs come from comparisons and the
    factor from sums of exact products with 0/1 masks: np.sign and np.where branch per element
    and run 3-5x slower on mixed signs."""
    dt = w.dtype.type
    product = g * prev
    grow = np.greater(product, 0)
    shrink = np.less(product, 0)
    factor = np.multiply(grow, dt(etaplus), dtype=dt)
    factor += np.multiply(shrink, dt(etaminus), dtype=dt)
    np.logical_or(grow, shrink, out=grow)
    factor += np.logical_not(grow, out=grow)             # 1 where g * prev == 0
    size *= factor
    np.clip(size, dt(size_min), dt(size_max), out=size)
    # prev = g, but 0 where the sign flipped
    np.multiply(g, np.logical_not(shrink, out=shrink), out=prev)
    np.subtract(np.greater(prev, 0), np.less(prev, 0), out=factor, dtype=dt)
    factor *= size
    w -= factor


def _pair(value, arg):
    if len(check_type(value, tuple, arg, "Rprop")) != 2:
        raise ValueError(f"For 'Rprop', the '{arg}' must be a tuple of 2 floats, but got "
                         f"{len(value)} items")
    return value
