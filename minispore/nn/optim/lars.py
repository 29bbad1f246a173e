"""LARS: layer-wise adaptive rate scaling of the gradients handed to another optimizer."""
import numpy as np

from ..._validator import check_bool, check_callable, check_non_negative_float, check_type
from ...common.tensor import Tensor
from ..cell import Cell
from .optimizer import Optimizer

__all__ = ["LARS"]


def _default_lars_filter(param):
    return "LayerNorm" not in param.name and "bias" not in param.name


class LARS(Optimizer):
    """Wraps `optimizer`: each parameter the filter selects gets, in place of its gradient,
    `coeff * (g + wd * w)` with the trust ratio
    `coeff = coefficient * ||w|| / (||g|| + wd * ||w|| + epsilon)` (with `use_clip`,
    `coeff = clip(coeff / lr, 0, 1)`, `lr` the wrapped optimizer's rate); the others get their
    gradient unchanged. `wd` is the wrapped optimizer's weight decay (0 where its filter skips
    the parameter) and `g` is unscaled by its loss scale first. Then `optimizer` runs.

    As in MindSpore, wrapping takes the weight decay and loss scale over from `optimizer`
    (which no longer applies them itself), so parameters outside `lars_filter` get no weight
    decay at all; `global_step` and the state are the wrapped optimizer's.

    Args:
        optimizer (Optimizer): the optimizer to wrap.
        epsilon (float): added to the denominator, >= 0. Default: 1e-05.
        coefficient (float): the trust coefficient, >= 0. Default: 0.001.
        use_clip (bool): whether the trust ratio is divided by the learning rate and clipped to
            [0, 1]. Default: False.
        lars_filter (Callable[[Parameter], bool]): which parameters get LARS. Default: those
            whose names contain neither 'LayerNorm' nor 'bias'.

    MindSpore 2.10 has no CPU kernel for LARS (LARSUpdate); this follows the formula of its
    Ascend kernel, where a zero weight norm gives a zero ratio (no step). Its extra Parameters
    `fake_lr` and `fake_param` are not created.

    Example:
        >>> opt = nn.LARS(nn.Momentum(net.trainable_params(), 0.1, 0.9), coefficient=0.02)
        >>> opt(grads)
    """

    def __init__(self, optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False,
                 lars_filter=_default_lars_filter):
        Cell.__init__(self, auto_prefix=False)
        self._owner = "LARS"
        check_type(optimizer, Optimizer, "optimizer", "LARS", "an Optimizer")
        if isinstance(optimizer, LARS) or optimizer.__dict__.get("_wrapped_by_lars"):
            raise ValueError(f"For 'LARS', the optimizer {type(optimizer).__name__} is already "
                             f"wrapped by a LARS, which took its weight decay over")
        epsilon = check_non_negative_float(epsilon, "epsilon", "LARS", allow_int=False)
        coefficient = check_non_negative_float(coefficient, "coefficient", "LARS",
                                               allow_int=False)
        use_clip = check_bool(use_clip, "use_clip", "LARS")
        check_callable(lars_filter, "lars_filter", "LARS")
        flags = []
        for p in optimizer.parameters:
            flag = lars_filter(p)
            if not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"For 'LARS', the 'lars_filter' must return a bool, but returned "
                                f"{type(flag).__name__} for {p.name!r}")
            flags.append(bool(flag))
        if use_clip and optimizer.is_group_lr and optimizer.dynamic_lr:
            raise ValueError("For 'LARS', with 'use_clip' the wrapped optimizer cannot have both "
                             "a dynamic and a per-group learning rate")
        self.epsilon, self.coefficient, self.use_clip = epsilon, coefficient, use_clip
        self.lars_flag = tuple(flags)
        self.global_step = optimizer.global_step
        self.opt = optimizer
        self.__dict__["parameters"] = optimizer.parameters
        self.__dict__["_parameters"] = optimizer.parameters
        self.__dict__["learning_rate"] = optimizer.learning_rate
        for name in ("is_group", "is_group_lr", "dynamic_lr", "dynamic_weight_decay",
                     "_lr_sources", "weight_decay", "decay_flags", "exec_weight_decay",
                     "grad_centralization_flags", "loss_scale", "reciprocal_scale",
                     "need_scale"):
            self.__dict__[name] = getattr(optimizer, name)
        # The wrapped optimizer now sees already decayed, unscaled gradients.
        optimizer.decay_flags = (False,) * len(optimizer.parameters)
        optimizer.exec_weight_decay = False
        optimizer.reciprocal_scale = np.float32(1.0)
        optimizer.need_scale = False
        optimizer.__dict__["_wrapped_by_lars"] = True

    def construct(self, gradients):
        arrays = self._check_gradients(gradients)
        lrs = self._lr_values() if self.use_clip else None
        decays = self._weight_decay_values()
        scale = np.float32(self.loss_scale)
        out = []
        for k, (p, g, flag) in enumerate(zip(self.parameters, arrays, self.lars_flag)):
            if self.need_scale:
                g = g * g.dtype.type(self.reciprocal_scale)
            if flag:
                g = self._lars_gradient(p._data, g, decays[k] / scale,
                                        lrs[k] if self.use_clip else None)
            out.append(g)
        # The wrapped optimizer checks nothing that could fail now but its learning rate, which
        # it reads before writing anything.
        return self.opt(tuple(Tensor(g) for g in out))

    def _lars_gradient(self, w, g, wd, lr):
        dt = w.dtype.type
        w_norm = np.sqrt(np.vdot(w, w))
        g_norm = np.sqrt(np.vdot(g, g))
        coeff = dt(self.coefficient) * w_norm / (g_norm + dt(wd) * w_norm + dt(self.epsilon))
        if lr is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                coeff = np.clip(coeff / dt(lr), dt(0.0), dt(1.0))
        if not wd:
            return g * coeff
        update = w * dt(wd)
        update += g
        update *= coeff
        return update
