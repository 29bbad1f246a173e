"""Optimizer: the base of the torch-style optimizers in `experimental.optim` (parameter groups as
dicts with `lr`, `betas`, ...; one learning-rate Parameter per group)."""
from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from ..._validator import check_non_negative_float, check_type
from ...common._writes import bump_version
from ...common.parameter import Parameter, ParameterTuple
from ...common.tensor import Tensor
from ...nn.cell import Cell
from ...nn.optim.optimizer import check_gradients

__all__ = ["Optimizer"]


class Optimizer(Cell):
    """Base class of the torch-style optimizers: subclasses define `_update_group`.

    Args:
        params (Union[Iterable[Parameter], list[dict]]): the parameters, or groups
            `{'params': [...], 'lr': ..., ...}` whose missing keys take the `defaults`.
        defaults (dict): the optimizer's hyper-parameters.

    Each group's `lr` becomes the Parameter `learning_rate_group_<i>` (what the schedulers in
    `lr_scheduler` update); setting `group['lr']` to a number also works, as in PyTorch.
    `optimizer(gradients)` takes a tuple ordered like `optimizer.parameters` and returns True.
    """

    def __init__(self, params, defaults):
        super().__init__(auto_prefix=False)
        self._owner = type(self).__name__
        if params is None:
            raise ValueError(f"For '{self._owner}', the 'params' must not be None")
        if isinstance(params, (Parameter, str, dict)) or not isinstance(params, Iterable):
            raise TypeError(f"For '{self._owner}', the 'params' must be an iterable of "
                            f"Parameters or of group dicts, but got {type(params).__name__}")
        if isinstance(params, set):
            raise TypeError(f"For '{self._owner}', the 'params' must be an ordered collection: "
                            "a set changes order between runs; use a list")
        groups = list(params)
        if not groups:
            raise ValueError(f"For '{self._owner}', the 'params' must not be empty")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        self.lrs = []
        self.group_start_id = [0]
        self.__dict__["parameters"] = ParameterTuple(())
        self._state_specs = []
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Append a group; keys it lacks take the optimizer's defaults."""
        owner = self._owner
        check_type(param_group, dict, "param_group", owner)
        if "params" not in param_group:
            raise KeyError(f"For '{owner}', a parameter group needs the key 'params'")
        members = param_group["params"]
        if isinstance(members, Parameter):
            members = [members]
        elif isinstance(members, set):
            raise TypeError(f"For '{owner}', the 'params' must be an ordered collection: a set "
                            "changes order between runs; use a list")
        else:
            members = list(members)
        for k, p in enumerate(members):
            if not isinstance(p, Parameter):
                raise TypeError(f"For '{owner}', the optimizer can only optimize Parameters, "
                                f"but item {k} of 'params' is a {type(p).__name__}")
        taken = {id(p) for p in self.parameters}
        if len({id(p) for p in members}) != len(members) or any(id(p) in taken for p in members):
            raise ValueError(f"For '{owner}', some parameters appear twice, or in more than one "
                             "parameter group")
        group = dict(param_group, params=members)
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        self._check_group(group)
        group_id = len(self.param_groups)
        group["lr"] = self._lr_parameter(group["lr"], f"learning_rate_group_{group_id}")
        self.lrs.append(group["lr"])
        self.param_groups.append(group)
        self.group_start_id.append(self.group_start_id[-1] + len(members))
        self.__dict__["parameters"] = ParameterTuple(tuple(self.parameters) + tuple(members))
        for attr, prefix, fill in self._state_specs:
            self._extend_state(attr, prefix, fill, members)

    # The hyper-parameters checked in every group (after its missing keys take the defaults):
    # name -> a `_validator` check, called as check(value, name, owner), whose result is kept.
    _checks = {"weight_decay": check_non_negative_float}

    def _check_group(self, group):
        """Validate a group's hyper-parameters by `_checks`; subclasses extend it."""
        group.setdefault("weight_decay", 0.0)
        for key, check in self._checks.items():
            if key in group:
                group[key] = check(group[key], key, self._owner)

    def _lr_parameter(self, lr, name):
        if isinstance(lr, Tensor):
            if lr._data.ndim != 0:
                raise ValueError(f"For '{self._owner}', a Tensor 'lr' must be a scalar, but got "
                                 f"shape {lr._data.shape}")
            lr = float(lr._data)
        value = check_non_negative_float(lr, "lr", self._owner)
        return Parameter(np.asarray(value, np.float32), name=name)

    def _new_state(self, attr, prefix, fill=0.0):
        """Create the state `prefix.<name>` (filled with `fill`) for every parameter, as the
        ParameterTuple attribute `attr`; groups added later get theirs too."""
        self.__dict__[attr] = ParameterTuple(())
        self._state_specs.append((attr, prefix, fill))
        self._extend_state(attr, prefix, fill, self.parameters)

    def _extend_state(self, attr, prefix, fill, members):
        states = []
        for p in members:
            state = Parameter(np.full_like(p._data, fill), name=f"{prefix}.{p.name}",
                              requires_grad=p.requires_grad)
            self._params[state.name] = state
            states.append(state)
        self.__dict__[attr] = ParameterTuple(tuple(self.__dict__[attr]) + tuple(states))

    def _new_counter(self, name):
        counter = Parameter(np.zeros((), np.int32), name=name)
        setattr(self, name, counter)
        return counter

    # ---- stepping ---------------------------------------------------------------------------
    def construct(self, gradients):
        arrays = self._check_gradients(gradients)
        lrs = [self._group_lr(group) for group in self.param_groups]
        self._before_groups()
        for group_id, (group, lr) in enumerate(zip(self.param_groups, lrs)):
            start, end = self.group_start_id[group_id], self.group_start_id[group_id + 1]
            grads = arrays[start:end]
            if group.get("maximize", False):
                grads = [-g for g in grads]
            self._update_group(group, lr, range(start, end), grads)
        self._after_groups()
        for p in self.parameters:
            bump_version(p)
        for attr, _, _ in self._state_specs:
            for state in self.__dict__[attr]:
                bump_version(state)
        return True

    # The name of the counter (made by `_new_counter`) that counts the steps before the groups
    # update, for optimizers whose update reads the step number; None for the others.
    _step_counter = None

    def _before_groups(self):
        """Hook run once per step before the groups are updated: advances the step counter."""
        if self._step_counter is not None:
            step = getattr(self, self._step_counter)._data
            np.add(step, 1, out=step)

    def _after_groups(self):
        """Hook run once per step after the groups are updated."""
        if self._step_counter is not None:
            bump_version(getattr(self, self._step_counter))

    def _update_group(self, group, lr, indices, grads):
        raise NotImplementedError(f"'{self._owner}' must define _update_group")

    def _group_lr(self, group):
        lr = group["lr"]
        value = float(lr._data) if isinstance(lr, Tensor) else lr
        return np.float32(check_non_negative_float(value, "lr", self._owner))

    def _check_gradients(self, gradients):
        return check_gradients(gradients, self.parameters, self._owner)

    @staticmethod
    def _decayed(grads, params, weight_decay):
        """L2 weight decay: `g + weight_decay * w`."""
        if weight_decay == 0.0:
            return grads
        return [g + p._data * g.dtype.type(weight_decay) for g, p in zip(grads, params)]

    def __repr__(self):
        lines = [f"{self._owner} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                value = group[key]
                if isinstance(value, Tensor):
                    value = float(value._data)
                lines.append(f"    {key}: {value}")
        return "\n".join(lines) + "\n)"
