"""ASGD: averaged stochastic gradient descent (SGD with a decaying rate and a running average of
the weights)."""
import numpy as np

from ..._validator import check_non_negative_float
from ...common.parameter import Parameter, ParameterTuple
from .optimizer import Optimizer, add_scaled

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """At step `t` (1 on the first update) with learning rate `lr`:
    `w = w * (1 - lambd * eta) - eta * g`; `ax = w` while `mu == 1`, else
    `ax += mu * (w - ax)`; then `eta = lr / (1 + lambd * lr * t)^alpha` and
    `mu = 1 / max(1, t - t0)`. `eta` starts as the first step's learning rate.

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: 0.1.
        lambd (float): decay term, >= 0. Default: 1e-4.
        alpha (float): power of the `eta` decay, >= 0. Default: 0.75.
        t0 (float): the step at which averaging starts, >= 0. Default: 1e6.
        weight_decay (Union[float, int, Cell]): L2 penalty added to the gradient. Default: 0.0.

    (MindSpore checks only that `lambd`, `alpha` and `t0` are floats; negative values, which
    make `eta` grow or turn NaN, are rejected here.)

    State: `mu_<name>` and `eta_<name>` (float32 scalars), `ax_.<name>` (the averaged weights),
    named as MindSpore names them.

    Example:
        >>> opt = nn.ASGD(net.trainable_params(), learning_rate=0.05)
        >>> opt(grads)
    """

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.lambd = check_non_negative_float(lambd, "lambd", "ASGD", allow_int=False)
        self.alpha = check_non_negative_float(alpha, "alpha", "ASGD", allow_int=False)
        self.t0 = check_non_negative_float(t0, "t0", "ASGD", allow_int=False)
        self.mu = self._scalar_state("mu_", 1.0)
        self.eta = self._scalar_state("eta_", 0.0)
        self.ax = self._new_state("ax_", 0.0)

    def _scalar_state(self, prefix, fill):
        states = []
        for p in self.parameters:
            state = Parameter(np.asarray(fill, np.float32), name=f"{prefix}{p.name}",
                              requires_grad=p.requires_grad)
            self._params[state.name] = state
            states.append(state)
        return ParameterTuple(states)

    def construct(self, gradients):
        arrays, lrs, _ = self._begin_step(gradients)
        t = np.float32(self.global_step._data[0])
        lambd, one = np.float32(self.lambd), np.float32(1.0)
        # float32 scalars throughout, as MindSpore computes eta and mu
        mu_next = one / np.maximum(one, t - np.float32(self.t0))
        for p, g, lr, mu, eta, ax in zip(self.parameters, arrays, lrs, self.mu, self.eta,
                                         self.ax):
            w, average = p._data, ax._data
            dt = w.dtype.type
            if t == 1:
                eta._data[...] = lr
            rate = eta._data[()]
            w *= dt(one - lambd * rate)
            add_scaled(w, g, -rate)
            if mu._data != 1:
                average += (w - average) * dt(mu._data)
            else:
                np.copyto(average, w)
            eta._data[...] = lr / (one + lambd * lr * t) ** np.float32(self.alpha)
            mu._data[...] = mu_next
        return self._end_step(self.mu, self.eta, self.ax)
