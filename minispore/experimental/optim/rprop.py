"""Rprop (torch-style): resilient backpropagation, a per-element step size driven by signs."""
import numpy as np

from ..._validator import check_bool, check_float, check_float_range, check_sequence
from ._checks import check_lr
from .optimizer import Optimizer

__all__ = ["Rprop"]


def _check_etas(etas, arg, owner):
    """(etaminus, etaplus) with 0 < etaminus < 1 < etaplus."""
    check_sequence(etas, arg, owner, lengths=(2,))
    return (check_float_range(etas[0], f"{arg}[0]", owner, low=0.0, high=1.0,
                              low_inclusive=False, high_inclusive=False),
            check_float_range(etas[1], f"{arg}[1]", owner, low=1.0, low_inclusive=False))


def _check_step_sizes(step_sizes, arg, owner):
    check_sequence(step_sizes, arg, owner, lengths=(2,))
    return tuple(check_float(s, f"{arg}[{k}]", owner) for k, s in enumerate(step_sizes))


class Rprop(Optimizer):
    """MindSpore 2.10's (and PyTorch's) Rprop: on the first step the step sizes start at `lr`;
    `s = sign(g * prev)`; the step size is multiplied by `etaplus` where `s > 0`, by `etaminus`
    where `s < 0`, and clipped to `step_sizes`; where `s < 0`, `g` is taken as 0;
    `prev = g`; `w -= sign(g) * step_size`.

    Args:
        params (Union[Iterable[Parameter], list[dict]]): parameters or parameter groups.
        lr (Union[float, int, Tensor]): the initial step size, > 0. Default: 1e-2.
        etas (Tuple[float, float]): (etaminus, etaplus), 0 < etaminus < 1 < etaplus.
            Default: (0.5, 1.2).
        step_sizes (Tuple[float, float]): the (minimal, maximal) step size. Default: (1e-6, 50).
        maximize (bool): keyword-only. Default: False.

    No weight decay (as in MindSpore). State: `prev.<name>`, `step_size.<name>`, `step_t`.
    """

    _checks = {"etas": _check_etas, "step_sizes": _check_step_sizes, "maximize": check_bool}

    _step_counter = "step_t"

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 maximize=False):
        check_lr(lr, "Rprop")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "maximize": maximize}
        super().__init__(params, defaults)
        self._new_state("prev", "prev", 0.0)
        self._new_state("step_size", "step_size", 0.0)
        self._new_counter("step_t")

    def _check_group(self, group):
        for key, check in self._checks.items():
            group[key] = check(group[key], key, self._owner)

    def _update_group(self, group, lr, indices, grads):
        etaminus, etaplus = group["etas"]
        low, high = group["step_sizes"]
        first = int(self.step_t._data) == 1
        for i, g in zip(indices, grads):
            w, prev, size = self.parameters[i]._data, self.prev[i]._data, self.step_size[i]._data
            dt = w.dtype.type
            if first:
                size[...] = dt(lr)
            s = np.sign(g * prev)
            factor = np.where(s > 0, dt(etaplus), np.where(s < 0, dt(etaminus), dt(1.0)))
            np.clip(size * factor, dt(low), dt(high), out=size)
            g = np.where(s < 0, dt(0.0), g)
            prev[...] = g
            w -= np.sign(g) * size
