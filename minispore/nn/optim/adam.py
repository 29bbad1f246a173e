"""Adam (L2 weight decay, optional AMSGrad and Nesterov) and AdamWeightDecay (decoupled decay, no
bias correction)."""
import numpy as np

from ..._validator import check_bool, check_float_range, check_positive_float
from ...common.parameter import Parameter
from .optimizer import Optimizer

__all__ = ["Adam", "AdamWeightDecay"]


def _check_betas_eps(beta1, beta2, eps, owner):
    beta1 = check_float_range(beta1, "beta1", owner, 0.0, 1.0, False, False, allow_int=False)
    beta2 = check_float_range(beta2, "beta2", owner, 0.0, 1.0, False, False, allow_int=False)
    eps = check_positive_float(eps, "eps", owner, allow_int=False)
    return beta1, beta2, eps


def _update_moments(m, v, g, beta1, beta2):
    """m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g, in place.

    Written as `m += (g - m) * (1 - beta1)`, the form MindSpore's CPU kernels round like."""
    dt = m.dtype.type
    m += (g - m) * (dt(1.0) - dt(beta1))
    v += (g * g - v) * (dt(1.0) - dt(beta2))


def _adam_step(w, m, v, g, step_size, beta1, eps, nesterov):
    """w -= step_size * m / (sqrt(v) + eps), with Nesterov's `beta1 * m + (1 - beta1) * g` in
    place of `m` when `nesterov`."""
    dt = w.dtype.type
    numerator = m * dt(beta1) + g * (dt(1.0) - dt(beta1)) if nesterov else m
    w -= step_size * numerator / (np.sqrt(v) + dt(eps))


class Adam(Optimizer):
    """Adam: `m, v` are exponential averages of `g` and `g * g`;
    `w -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps)`.

    Weight decay is L2, added to the gradient (for decoupled decay use `AdamWeightDecay`).
    With `use_amsgrad`, `vhat = max(vhat, v)` replaces `v` in the denominator; with
    `use_nesterov` the numerator is `beta1 * m + (1 - beta1) * g`.

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: 1e-3.
        beta1 (float): in (0, 1). Default: 0.9.
        beta2 (float): in (0, 1). Default: 0.999.
        eps (float): > 0. Default: 1e-8.
        use_locking (bool): accepted for compatibility. Default: False.
        use_nesterov (bool): Default: False.
        weight_decay (Union[float, int, Cell]): Default: 0.0.
        loss_scale (float): the gradients are divided by it. Default: 1.0.
        use_amsgrad (bool): Default: False.
        kwargs: `use_lazy` and `use_offload` (bools) are accepted; for dense gradients they
            compute the same update.

    State: `beta1_power`, `beta2_power`, `moment1.<name>`, `moment2.<name>` (and `vhat.<name>`).
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
                 use_amsgrad=False, **kwargs):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        unknown = set(kwargs) - {"use_lazy", "use_offload"}
        if unknown:
            raise KeyError(f"For 'Adam', the only extra keyword arguments are 'use_lazy' and "
                           f"'use_offload', but got {sorted(unknown)}")
        self.beta1, self.beta2, self.eps = _check_betas_eps(beta1, beta2, eps, "Adam")
        self.use_locking = check_bool(use_locking, "use_locking", "Adam")
        self.use_nesterov = check_bool(use_nesterov, "use_nesterov", "Adam")
        self.use_amsgrad = check_bool(use_amsgrad, "use_amsgrad", "Adam")
        self.use_lazy = check_bool(kwargs.get("use_lazy", False), "use_lazy", "Adam")
        self.use_offload = check_bool(kwargs.get("use_offload", False), "use_offload", "Adam")
        if self.use_lazy and self.use_offload:
            raise ValueError("For 'Adam', 'use_lazy' and 'use_offload' cannot both be True")
        if self.use_amsgrad and (self.use_lazy or self.use_offload):
            raise ValueError("For 'Adam', 'use_amsgrad' cannot be combined with 'use_lazy' or "
                             "'use_offload'")
        self.beta1_power = Parameter(np.ones((), np.float32), name="beta1_power")
        self.beta2_power = Parameter(np.ones((), np.float32), name="beta2_power")
        self.moment1 = self._new_state("moment1", 0.0)
        self.moment2 = self._new_state("moment2", 0.0)
        if self.use_amsgrad:
            self.vhat = self._new_state("vhat", 0.0)

    def construct(self, gradients):
        grads, lrs, _ = self._begin_step(gradients)
        beta1_power, beta2_power = self.beta1_power._data, self.beta2_power._data
        np.multiply(beta1_power, np.float32(self.beta1), out=beta1_power)
        np.multiply(beta2_power, np.float32(self.beta2), out=beta2_power)
        one = np.float32(1.0)
        correction = np.sqrt(one - beta2_power) / (one - beta1_power)
        vhats = self.vhat if self.use_amsgrad else [None] * len(grads)
        for p, g, lr, m1, m2, vhat in zip(self.parameters, grads, lrs, self.moment1,
                                          self.moment2, vhats):
            w, m, v = p._data, m1._data, m2._data
            dt = w.dtype.type
            _update_moments(m, v, g, self.beta1, self.beta2)
            if vhat is not None:
                np.maximum(vhat._data, v, out=vhat._data)
                v = vhat._data
            _adam_step(w, m, v, g, dt(lr * correction), self.beta1, self.eps, self.use_nesterov)
        written = [self.moment1, self.moment2, (self.beta1_power, self.beta2_power)]
        if self.use_amsgrad:
            written.append(self.vhat)
        return self._end_step(*written)


class AdamWeightDecay(Optimizer):
    """MindSpore's AdamW: `m, v` as in Adam, **no bias correction**, and decoupled decay:
    `w -= lr * (m / (sqrt(v) + eps) + weight_decay * w)`.

    Without groups, parameters whose names contain 'beta' or 'gamma' do not decay.

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: 1e-3.
        beta1 (float): in (0, 1). Default: 0.9.
        beta2 (float): in (0, 1). Default: 0.999.
        eps (float): > 0. Default: 1e-6.
        weight_decay (Union[float, int, Cell]): Default: 0.0.

    State: `adam_m.<name>`, `adam_v.<name>`.
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = _check_betas_eps(beta1, beta2, eps,
                                                            "AdamWeightDecay")
        self.moments1 = self._new_state("adam_m", 0.0)
        self.moments2 = self._new_state("adam_v", 0.0)

    def construct(self, gradients):
        grads, lrs, decays = self._begin_step(gradients, preprocess=False)
        for p, g, lr, wd, m1, m2 in zip(self.parameters, grads, lrs, decays, self.moments1,
                                        self.moments2):
            w, m, v = p._data, m1._data, m2._data
            dt = w.dtype.type
            _update_moments(m, v, g, self.beta1, self.beta2)
            update = m / (np.sqrt(v) + dt(self.eps))
            if wd:
                update += dt(wd) * w
            w -= dt(lr) * update
        return self._end_step(self.moments1, self.moments2)
