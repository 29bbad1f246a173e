"""SGD (torch-style): momentum, dampening, Nesterov, weight decay, maximize."""
from ..._validator import check_bool, check_non_negative_float
from ...nn.optim.sgd import _sgd_step, check_nesterov
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, PyTorch's rule: `g += weight_decay * w`; with momentum the
    buffer takes `g` on its first step, then `buf = momentum * buf + (1 - dampening) * g`;
    `w -= lr * buf` (Nesterov: `w -= lr * (g + momentum * buf)`).

    Args:
        params (Union[Iterable[Parameter], list[dict]]): parameters or parameter groups.
        lr (Union[float, int, Tensor]): the learning rate (required, as in MindSpore 2.10).
        momentum (float): Default: 0.
        dampening (float): Default: 0.
        weight_decay (float): Default: 0.0.
        nesterov (bool): Default: False.
        maximize (bool): ascend instead of descend. Default: False.

    State: `accum.<name>` (the buffer), `stat.<name>` (1 until the buffer is filled).
    """

    _checks = {**Optimizer._checks, "momentum": check_non_negative_float,
               "dampening": check_non_negative_float, "nesterov": check_bool,
               "maximize": check_bool}

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0.0, nesterov=False, *,
                 maximize=False):
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "grad_centralization": False}
        super().__init__(params, defaults)
        self._new_state("accum", "accum", 0.0)
        self._new_state("stat", "stat", 1.0)

    def _check_group(self, group):
        super()._check_group(group)
        check_nesterov(group["nesterov"], group["momentum"], group["dampening"], "SGD")

    def _update_group(self, group, lr, indices, grads):
        grads = self._decayed(grads, [self.parameters[i] for i in indices], group["weight_decay"])
        for i, g in zip(indices, grads):
            _sgd_step(self.parameters[i]._data, g, lr, self.accum[i]._data, self.stat[i]._data,
                      group["momentum"], group["dampening"], group["nesterov"])
