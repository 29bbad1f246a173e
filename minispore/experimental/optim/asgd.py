"""ASGD (torch-style): averaged stochastic gradient descent."""
import numpy as np

from ..._validator import check_bool, check_float
from ...common._writes import bump_version
from ...common.parameter import Parameter
from ._checks import check_lr
from .optimizer import Optimizer

__all__ = ["ASGD"]


def _check_strict_float(value, arg, owner):
    """MindSpore 2.10 wants a float here (an int is a TypeError)."""
    return check_float(value, arg, owner, allow_int=False)


class ASGD(Optimizer):
    """MindSpore 2.10's (and PyTorch's) ASGD: `g += weight_decay * w`; on the first step
    `eta = lr`; `w = w * (1 - lambd * eta) - eta * g`; `ax += (w - ax) * mu` (or `ax = w` when
    `mu == 1`); then `eta = lr / (1 + lambd * lr * t)^alpha`, `mu = 1 / max(1, t - t0)`.

    Args:
        params (Union[Iterable[Parameter], list[dict]]): parameters or parameter groups.
        lr (Union[float, int, Tensor]): > 0. Default: 1e-2.
        lambd (float): the decay term (a float). Default: 1e-4.
        alpha (float): the power of the eta update. Default: 0.75.
        t0 (float): the step at which averaging starts (a float). Default: 1e6.
        weight_decay (float): L2 penalty, >= 0. Default: 0.0.
        maximize (bool): Default: False.

    State: `ax.<name>`, `step_t`; the scalars `eta_<name>` and `mu_<name>` (lists `eta`, `mu`)
    are kept outside `get_parameters()`, as in MindSpore.
    """

    _checks = {**Optimizer._checks, "lambd": _check_strict_float, "t0": _check_strict_float,
               "alpha": check_float, "maximize": check_bool}

    _step_counter = "step_t"

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0,
                 maximize=False):
        check_lr(lr, "ASGD")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "maximize": maximize}
        self.__dict__["mu"] = []
        self.__dict__["eta"] = []
        super().__init__(params, defaults)
        self._new_state("ax", "ax", 0.0)
        self._new_counter("step_t")

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        for p in self.param_groups[-1]["params"]:
            self.mu.append(Parameter(np.ones((), np.float32), name=f"mu_{p.name}",
                                     requires_grad=False))
            self.eta.append(Parameter(np.zeros((), np.float32), name=f"eta_{p.name}",
                                      requires_grad=False))

    def _after_groups(self):
        super()._after_groups()
        for s in self.mu + self.eta:
            bump_version(s)

    def _update_group(self, group, lr, indices, grads):
        f32 = np.float32
        t = f32(self.step_t._data)
        lambd = f32(group["lambd"])
        new_eta = lr / (f32(1.0) + lambd * lr * t) ** f32(group["alpha"])
        new_mu = f32(1.0) / max(f32(1.0), t - f32(group["t0"]))
        grads = self._decayed(grads, [self.parameters[i] for i in indices], group["weight_decay"])
        for i, g in zip(indices, grads):
            w, ax = self.parameters[i]._data, self.ax[i]._data
            eta, mu = self.eta[i]._data, self.mu[i]._data
            dt = w.dtype.type
            if t == 1:
                eta[...] = lr
            w[...] = w * (dt(1.0) - dt(lambd * f32(eta))) - dt(eta) * g
            if mu != 1:
                ax += (w - ax) * dt(mu)
            else:
                ax[...] = w
            eta[...] = new_eta
            mu[...] = new_mu
