"""FTRL: follow-the-regularized-leader with per-element adaptive rates and L1/L2 shrinkage."""
import numpy as np

from ..._validator import (check_bool, check_float_range, check_non_negative_float,
                           check_positive_float)
from ._chunks import run_in_chunks
from .optimizer import Optimizer, _decays

__all__ = ["FTRL"]


class FTRL(Optimizer):
    """FTRL-proximal. With `p = -lr_power`, per element:
    `accum' = accum + g * g; linear += g - (accum'^p - accum^p) / lr * w;
    w = (sign(linear) * l1 - linear) / (accum'^p / lr + 2 * l2)` where `|linear| > l1`, else 0.

    Args:
        params (Union[list[Parameter], list[dict]]): the parameters or parameter groups (a
            group may not set 'lr').
        initial_accum (float): the accumulators' initial value, >= 0. Default: 0.1.
        learning_rate (float): > 0; a fixed float only (no list, Tensor or schedule).
            Default: 0.001.
        lr_power (float): <= 0; 0 keeps the rate fixed. Default: -0.5.
        l1 (float): L1 strength, >= 0. Default: 0.0.
        l2 (float): L2 strength, >= 0. Default: 0.0.
        use_locking (bool): accepted for compatibility. Default: False.
        loss_scale (float): the gradients are divided by it. Default: 1.0.
        weight_decay (Union[float, int, Cell]): added to the gradient. Unlike the other
            optimizers, without groups it applies to every parameter, 'beta' and 'gamma'
            included (as MindSpore's FTRL does). Default: 0.0.

    MindSpore 2.10's CPU kernel (ApplyFtrl) computes `l1 - linear` in place of
    `sign(linear) * l1 - linear`, which pushes weights with a negative `linear` away from 0 by
    `l1` instead of towards it; this follows the documented (FTRL-proximal) formula. With
    `l1 == 0` the two agree.

    State: `moments.<name>` (the accumulators), `linear.<name>`.

    Example:
        >>> opt = nn.FTRL(net.trainable_params(), learning_rate=0.1, l1=0.01)
        >>> opt(grads)
    """

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0,
                 l2=0.0, use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if self.dynamic_lr or self.is_group_lr:
            raise ValueError(f"For 'FTRL', a dynamic or per-group learning rate is not supported: "
                             f"got dynamic learning rate {self.dynamic_lr} and group learning "
                             f"rate {self.is_group_lr}")
        self.lr = check_positive_float(learning_rate, "learning_rate", "FTRL", allow_int=False)
        initial = check_non_negative_float(initial_accum, "initial_accum", "FTRL",
                                           allow_int=False)
        self.lr_power = check_float_range(lr_power, "lr_power", "FTRL", high=0.0,
                                          allow_int=False)
        self.l1 = check_non_negative_float(l1, "l1", "FTRL", allow_int=False)
        self.l2 = check_non_negative_float(l2, "l2", "FTRL", allow_int=False)
        self.use_locking = check_bool(use_locking, "use_locking", "FTRL")
        if not self.is_group:
            self.decay_flags = (True,) * len(self.parameters)
            self.exec_weight_decay = _decays(self.weight_decay)
        self.moments = self._new_state("moments", initial)
        self.linear = self._new_state("linear", 0.0)

    def construct(self, grads):
        arrays, _, _ = self._begin_step(grads)
        for p, g, moment, linear in zip(self.parameters, arrays, self.moments, self.linear):
            run_in_chunks(_ftrl_step, (p._data, g, moment._data, linear._data), self.lr,
                          self.lr_power, self.l1, self.l2)
        return self._end_step(self.moments, self.linear)


def _ftrl_step(w, g, accum, linear, lr, lr_power, l1, l2):
    """One FTRL update of `w`, `accum` and `linear` in place."""
    dt = w.dtype.type
    power = dt(-lr_power)
    old = np.sqrt(accum) if lr_power == -0.5 else np.power(accum, power)
    accum += g * g
    new = np.sqrt(accum) if lr_power == -0.5 else np.power(accum, power)
    # old <- sigma * w, with sigma = (new - old) / lr
    np.subtract(new, old, out=old)
    old /= dt(lr)
    old *= w
    linear += g
    linear -= old
    # new <- the quadratic term
    new /= dt(lr)
    new += dt(2.0 * l2)
    # clip(linear, -l1, l1) - linear is sign(linear) * l1 - linear where |linear| > l1 and
    # exactly 0 elsewhere
    np.clip(linear, dt(-l1), dt(l1), out=old)
    old -= linear
    if new.all():
        np.divide(old, new, out=w)
    else:
        # the quadratic term is 0 only where accum is (initial_accum 0, no gradient yet, no
        # l2); linear is 0 there too, and so is the weight (not 0/0)
        w.fill(0)
        np.divide(old, new, out=w, where=new != 0)
