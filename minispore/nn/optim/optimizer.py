"""Optimizer: the base of MindSpore's `nn` optimizers (parameter groups, learning rates, weight
decay, loss scale) and the step helpers its subclasses share."""
import threading
from collections.abc import Iterable

import numpy as np

from ..._validator import check_bool, check_non_negative_float, check_positive_float, check_type
from ...common._writes import bump_version
from ...common.parameter import Parameter, ParameterTuple
from ...common.tensor import Tensor
from ..cell import Cell
from ..learning_rate_schedule import LearningRateSchedule

__all__ = ["Optimizer"]

_GROUP_KEYS = ("params", "lr", "weight_decay", "order_params", "grad_centralization")


class Optimizer(Cell):
    """Base class of the optimizers: subclasses define `construct(gradients)`.

    Args:
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): a fixed rate
            (>= 0, kept in the Parameter `learning_rate`), a 0-d Tensor (fixed), a 1-D Tensor or
            list (the rate of step `i` is item `i`; running past the end raises IndexError) or a
            `LearningRateSchedule` called with `global_step` before each update.
        parameters (Union[list[Parameter], list[dict]]): the Parameters to update, or groups
            `{'params': [...], 'lr': ..., 'weight_decay': ..., 'grad_centralization': bool}`
            plus optionally `{'order_params': [...]}`, which fixes the order of `parameters`
            (and so of the gradients the optimizer expects).
        weight_decay (Union[float, int, Cell]): added to the gradient as `weight_decay * w`.
            Without groups it skips parameters whose names contain 'beta' or 'gamma'; a group's
            weight decay applies to all its parameters. Default: 0.0.
        loss_scale (float): the gradients are divided by it. Default: 1.0.

    `optimizer(gradients)` takes a tuple ordered like `optimizer.parameters`, updates the
    Parameters and the optimizer's state in place and increments `global_step`.
    """

    _jit_host = True  # its updates are NumPy code on the Parameters: jit runs it as Python

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        owner = self._owner = type(self).__name__
        items = _as_nonempty_list(parameters, "params", owner)
        if all(isinstance(x, Parameter) for x in items):
            self.is_group = False
        elif all(isinstance(x, dict) for x in items):
            self.is_group = True
        else:
            kinds = sorted({type(x).__name__ for x in items})
            raise TypeError(f"For '{owner}', the 'params' must be a list of Parameters or a list "
                            f"of group dicts, but it holds {kinds}")
        self.loss_scale = check_positive_float(loss_scale, "loss_scale", owner)
        self.global_step = Parameter(np.zeros(1, np.int32), name="global_step")
        self.dynamic_lr = False
        self.dynamic_weight_decay = False
        default_lr = self._build_lr(learning_rate, "learning_rate")
        default_wd = self._build_weight_decay(weight_decay, "weight_decay")
        if self.is_group:
            params, lr_sources, decays, centralize = self._parse_groups(items, default_lr,
                                                                        default_wd)
            decay_flags = [_decays(wd) for wd in decays]
        else:
            params = items
            _check_unique(params, owner)
            lr_sources = [default_lr] * len(params)
            decays = [default_wd] * len(params)
            centralize = [False] * len(params)
            decay_flags = ["beta" not in p.name and "gamma" not in p.name for p in params]
        # ParameterTuple attributes rename unnamed parameters; the user's keep their names.
        self.__dict__["parameters"] = ParameterTuple(params)
        self.__dict__["_parameters"] = self.parameters
        self._lr_sources = lr_sources
        self.is_group_lr = self.is_group and any("lr" in g for g in items)
        self._register_learning_rate(default_lr)
        self.weight_decay = tuple(decays) if self.is_group else default_wd
        self.decay_flags = tuple(decay_flags)
        self.exec_weight_decay = any(flag and _decays(wd) for flag, wd in zip(decay_flags, decays))
        self.grad_centralization_flags = tuple(centralize)
        self.reciprocal_scale = np.float32(1.0 / self.loss_scale)
        self.need_scale = self.loss_scale != 1.0

    # ---- construction helpers ---------------------------------------------------------------
    def _build_lr(self, learning_rate, name):
        """A learning-rate source: a scalar Parameter, a per-step list cell or a schedule."""
        owner = self._owner
        if isinstance(learning_rate, LearningRateSchedule):
            self.dynamic_lr = True
            return learning_rate
        if isinstance(learning_rate, (bool, str, bytes)):
            raise TypeError(f"For '{owner}', the '{name}' must be a float, int, Tensor, list or "
                            f"LearningRateSchedule, but got {type(learning_rate).__name__}")
        if isinstance(learning_rate, (int, float, np.integer, np.floating)):
            value = check_non_negative_float(learning_rate, name, owner)
            return Parameter(np.asarray(value, np.float32), name=name)
        if isinstance(learning_rate, Tensor):
            values = learning_rate._data.astype(np.float32)
        elif isinstance(learning_rate, Iterable):
            try:
                values = np.asarray(list(learning_rate), np.float32)
            except (TypeError, ValueError):
                raise TypeError(f"For '{owner}', a list '{name}' must hold numbers, but got "
                                f"{learning_rate!r}") from None
        else:
            raise TypeError(f"For '{owner}', the '{name}' must be a float, int, Tensor, list or "
                            f"LearningRateSchedule, but got {type(learning_rate).__name__}")
        if values.ndim > 1:
            raise ValueError(f"For '{owner}', a Tensor '{name}' must be 0-d or 1-D, but got shape "
                             f"{values.shape}")
        if values.size == 0:
            raise ValueError(f"For '{owner}', the '{name}' list must not be empty")
        if np.any(~(values >= 0)):
            raise ValueError(f"For '{owner}', every '{name}' must be >= 0, but got "
                             f"{values.tolist()}")
        if values.ndim == 0:
            return Parameter(values, name=name)
        self.dynamic_lr = True
        return _IteratorLearningRate(values, name, owner)

    def _build_weight_decay(self, weight_decay, name):
        """A float already multiplied by `loss_scale` (decay is added before the gradients are
        unscaled), or a Cell of the step."""
        if isinstance(weight_decay, Cell):
            self.dynamic_weight_decay = True
            return _ScaledWeightDecay(weight_decay, self.loss_scale)
        return check_non_negative_float(weight_decay, name, self._owner) * self.loss_scale

    def _parse_groups(self, groups, default_lr, default_wd):
        owner = self._owner
        params, lr_sources, decays, centralize = [], [], [], []
        order = None
        lr_length = _lr_length(default_lr)
        for index, group in enumerate(groups):
            unknown = [k for k in group if k not in _GROUP_KEYS]
            if unknown:
                raise KeyError(f"For '{owner}', the keys of a parameter group must be among "
                               f"{list(_GROUP_KEYS)}, but got {unknown}")
            if "order_params" in group:
                if len(group) > 1:
                    raise ValueError(f"For '{owner}', the 'order_params' dict must hold only the "
                                     f"key 'order_params', but got {list(group)}")
                order = _as_nonempty_list(group["order_params"], "order_params", owner)
                continue
            if "params" not in group:
                raise KeyError(f"For '{owner}', parameter group {index} has no 'params' key")
            members = group["params"]
            members = [members] if isinstance(members, Parameter) else _as_nonempty_list(
                members, f"params of group {index}", owner)
            for k, p in enumerate(members):
                if not isinstance(p, Parameter):
                    raise TypeError(f"For '{owner}', the 'params' of group {index} must be "
                                    f"Parameters, but item {k} is a {type(p).__name__}")
            lr = default_lr
            if "lr" in group:
                lr = self._build_lr(group["lr"], f"learning_rate_group_{index}")
                length = _lr_length(lr)
                if length and lr_length and length != lr_length:
                    raise ValueError(f"For '{owner}', every list learning rate must have the same "
                                     f"length, but group {index} has {length} values and "
                                     f"another has {lr_length}")
                lr_length = lr_length or length
            wd = default_wd
            if "weight_decay" in group:
                wd = self._build_weight_decay(group["weight_decay"], "weight_decay")
            gc = False
            if "grad_centralization" in group:
                gc = check_bool(group["grad_centralization"], "grad_centralization", owner)
            params += members
            lr_sources += [lr] * len(members)
            decays += [wd] * len(members)
            centralize += [gc] * len(members)
        _check_unique(params, owner)
        if order is not None:
            params, lr_sources, decays, centralize = _apply_order(
                order, params, lr_sources, decays, centralize, owner)
        return params, lr_sources, decays, centralize

    def _register_learning_rate(self, default_lr):
        """`learning_rate` is the single source, or one per parameter when groups set 'lr';
        every source is registered so checkpoints carry it."""
        if not self.is_group_lr:
            self.learning_rate = self._lr_sources[0]
            return
        for source in {id(s): s for s in self._lr_sources}.values():
            if isinstance(source, Parameter):
                self._params[source.name] = source
            else:
                name = (source.learning_rate.name if isinstance(source, _IteratorLearningRate)
                        else f"learning_rate_schedule_{len(self._cells)}")
                self._cells[name] = source
        self.__dict__["learning_rate"] = tuple(self._lr_sources)

    def _new_state(self, prefix, fill=0.0):
        """One Parameter per optimized parameter, named `prefix.<name>` and filled with `fill`,
        registered in this cell so checkpoints carry it."""
        states = []
        for p in self.parameters:
            state = Parameter(np.full_like(p._data, fill), name=f"{prefix}.{p.name}",
                              requires_grad=p.requires_grad)
            self._params[state.name] = state
            states.append(state)
        return ParameterTuple(states)

    # ---- public API -------------------------------------------------------------------------
    @property
    def target(self):
        """Where the update runs: always 'CPU' here."""
        return "CPU"

    @property
    def unique(self):
        """Whether sparse gradients are deduplicated (kept for API compatibility)."""
        return self.__dict__.get("_unique", True)

    @unique.setter
    def unique(self, value):
        self.__dict__["_unique"] = check_bool(value, "unique", self._owner)

    def get_lr(self):
        """The learning rate of the current step: a float32 Tensor, or a tuple with one per
        parameter when groups set their own 'lr'."""
        values = self._lr_values()
        if self.is_group_lr:
            return tuple(Tensor(v) for v in values)
        return Tensor(values[0])

    def get_lr_parameter(self, param):
        """The learning-rate Parameter (or schedule) of `param`, or a list of them for a list."""
        params = param if isinstance(param, list) else [param]
        ids = [id(p) for p in self.parameters]
        out = []
        for p in params:
            check_type(p, Parameter, "param", "get_lr_parameter", "a Parameter or a list of them")
            if id(p) not in ids:
                raise ValueError(f"For 'get_lr_parameter', the parameter {p.name!r} is not "
                                 f"optimized by this {self._owner}")
            source = self._lr_sources[ids.index(id(p))]
            out.append(source.learning_rate if isinstance(source, _IteratorLearningRate)
                       else source)
        return out if isinstance(param, list) else out[0]

    def get_weight_decay(self):
        """The weight decay of the current step (times `loss_scale`), one per parameter with
        groups."""
        values = self._weight_decay_values()
        if self.is_group:
            return tuple(values)
        return values[0]

    def decay_weight(self, gradients):
        """`gradient + weight_decay * w` for the parameters that decay; a tuple of Tensors."""
        arrays = self._check_gradients(gradients)
        if self.exec_weight_decay:
            arrays = self._apply_weight_decay(arrays, self._weight_decay_values())
        return tuple(Tensor(a) for a in arrays)

    def gradients_centralization(self, gradients):
        """Subtract from each gradient of a `grad_centralization` group (with 2 or more dims)
        its mean over all axes but the first; a tuple of Tensors."""
        arrays = self._apply_centralization(self._check_gradients(gradients))
        return tuple(Tensor(a) for a in arrays)

    def scale_grad(self, gradients):
        """The gradients divided by `loss_scale`; a tuple of Tensors."""
        arrays = self._check_gradients(gradients)
        if self.need_scale:
            arrays = [g * g.dtype.type(self.reciprocal_scale) for g in arrays]
        return tuple(Tensor(a) for a in arrays)

    def flatten_gradients(self, gradients):
        """Parameters are never flattened here: the gradients are returned unchanged."""
        return gradients

    def construct(self, *hyper_params):
        raise NotImplementedError(f"'{self._owner}' must define construct(gradients)")

    # ---- step machinery for subclasses ------------------------------------------------------
    def _begin_step(self, gradients, preprocess=True):
        """Validate the gradients and read the step's learning rates (and weight decays) before
        anything is written, so a bad call changes nothing; then preprocess the gradients
        (decay, centralization, unscaling) unless the subclass does its own, and advance
        `global_step`. Returns (gradient arrays, lr per parameter, weight decay per parameter)."""
        arrays = self._check_gradients(gradients)
        lrs = self._lr_values()
        decays = self._weight_decay_values()
        if preprocess:
            if self.exec_weight_decay:
                arrays = self._apply_weight_decay(arrays, decays)
            arrays = self._apply_centralization(arrays)
            if self.need_scale:
                arrays = [g * g.dtype.type(self.reciprocal_scale) for g in arrays]
        step = self.global_step._data
        np.add(step, 1, out=step)
        bump_version(self.global_step)
        return arrays, lrs, decays

    def _end_step(self, *written):
        """Record the in-place writes to the parameters and the given state tuples; returns
        MindSpore's result, one True per parameter."""
        for p in self.parameters:
            bump_version(p)
        for states in written:
            for state in states:
                bump_version(state)
        return (True,) * len(self.parameters)

    def _check_gradients(self, gradients):
        return check_gradients(gradients, self.parameters, self._owner)

    def _lr_values(self):
        """The current learning rate of each parameter, as float32 0-d arrays."""
        cache = {}
        values = []
        for source in self._lr_sources:
            value = cache.get(id(source))
            if value is None:
                if isinstance(source, Parameter):
                    value = source._data.astype(np.float32).reshape(())
                else:
                    out = source(self.global_step)
                    value = np.asarray(out._data if isinstance(out, Tensor) else out, np.float32)
                    if value.size != 1:
                        raise ValueError(f"For '{self._owner}', the learning-rate schedule "
                                         f"{type(source).__name__} must return one value, but "
                                         f"returned shape {value.shape}")
                    value = value.reshape(())
                cache[id(source)] = value
            values.append(value)
        return values

    def _weight_decay_values(self):
        """The current weight decay (times loss_scale) of each parameter, zero where the
        parameter does not decay."""
        wds = self.weight_decay if self.is_group else (self.weight_decay,) * len(self.parameters)
        cache = {}
        values = []
        for wd, flag in zip(wds, self.decay_flags):
            if isinstance(wd, Cell):
                if id(wd) not in cache:
                    out = wd(self.global_step)
                    cache[id(wd)] = np.asarray(out._data if isinstance(out, Tensor) else out,
                                               np.float32).reshape(())
                wd = cache[id(wd)]
            values.append(np.float32(wd) if flag else np.float32(0.0))
        return values

    def _apply_weight_decay(self, arrays, decays):
        out = []
        for g, p, wd, flag in zip(arrays, self.parameters, decays, self.decay_flags):
            out.append(g + p._data * g.dtype.type(wd) if flag else g)
        return out

    def _apply_centralization(self, arrays):
        out = []
        for g, flag in zip(arrays, self.grad_centralization_flags):
            if flag and g.ndim > 1:
                g = g - g.mean(axis=tuple(range(1, g.ndim)), keepdims=True)
            out.append(g)
        return out


class _IteratorLearningRate(LearningRateSchedule):
    """Per-step learning rates from a 1-D list, kept in a Parameter: item `global_step`."""

    def __init__(self, values, name, owner):
        super().__init__()
        self.learning_rate = Parameter(values, name=name)
        self._owner = owner

    def construct(self, global_step):
        step = int(np.asarray(global_step._data if isinstance(global_step, Tensor)
                              else global_step).reshape(-1)[0])
        count = self.learning_rate._data.shape[0]
        if not 0 <= step < count:
            raise IndexError(f"For '{self._owner}', the per-step 'learning_rate' has {count} "
                             f"values but step {step} needs value {step}: the list is exhausted")
        return Tensor(self.learning_rate._data[step].reshape(1))


class _ScaledWeightDecay(Cell):
    """A weight-decay Cell of the step, multiplied by the loss scale."""

    def __init__(self, weight_decay, loss_scale):
        super().__init__()
        self.weight_decay = weight_decay
        self.loss_scale = loss_scale

    def construct(self, global_step):
        out = self.weight_decay(global_step)
        value = np.asarray(out._data if isinstance(out, Tensor) else out, np.float32)
        return Tensor(value * np.float32(self.loss_scale))


_CHUNK = 32768  # elements: a float32 chunk (128 KiB) stays in L2 between its two passes
_AXPY_SCRATCH = threading.local()


def add_scaled(w, g, alpha, op=np.add):
    """w += alpha * g in place (with `op` np.subtract: w -= alpha * g), without a temporary the
    size of w: chunk by chunk through a small per-thread buffer, the same in-place operations
    and bits. A parameter-sized temporary per parameter per step costs page faults that exceed
    the arithmetic (measured: 3x on an MLP's update); small parameters too, so a replayed train
    step allocates nothing here (docs/graph_mode.md, "Memory plan")."""
    alpha = w.dtype.type(alpha)
    if g.dtype != w.dtype or not (w.flags.c_contiguous and g.flags.c_contiguous):
        op(w, alpha * g, out=w)
        return
    flat_w, flat_g = w.reshape(-1), g.reshape(-1)
    buffers = _AXPY_SCRATCH.__dict__
    buf = buffers.get(w.dtype)
    if buf is None:
        buf = buffers[w.dtype] = np.empty(_CHUNK, w.dtype)
    for start in range(0, w.size, _CHUNK):
        stop = min(start + _CHUNK, w.size)
        part = buf[:stop - start]
        np.multiply(flat_g[start:stop], alpha, out=part)
        op(flat_w[start:stop], part, out=flat_w[start:stop])


def _decays(wd):
    return isinstance(wd, Cell) or wd > 0


def _lr_length(source):
    return source.learning_rate._data.shape[0] if isinstance(source, _IteratorLearningRate) else 0


def _as_nonempty_list(value, arg, owner):
    if value is None:
        raise ValueError(f"For '{owner}', the '{arg}' must not be None")
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise TypeError(f"For '{owner}', the '{arg}' must be a list, but got "
                        f"{type(value).__name__}")
    items = list(value)
    if not items:
        raise ValueError(f"For '{owner}', the '{arg}' must not be empty")
    return items


def check_gradients(gradients, params, owner, arg="gradients"):
    """The arrays of `gradients`, each in its parameter's dtype, after checking that they are a
    tuple (or list) of numeric Tensors, one per parameter of `params` and of its shape; checked
    before anything is written, so a bad call changes nothing."""
    check_type(gradients, (tuple, list), arg, owner,
               "a tuple of Tensors ordered like 'optimizer.parameters'")
    if len(gradients) != len(params):
        raise ValueError(f"For '{owner}', got {len(gradients)} gradients for {len(params)} "
                         f"parameters: the '{arg}' must be a tuple of {len(params)} gradients, "
                         f"one per parameter, ordered like 'optimizer.parameters'")
    arrays = []
    for k, (g, p) in enumerate(zip(gradients, params)):
        check_type(g, Tensor, f"gradient {k} (for {p.name})", owner)
        if g._data.shape != p._data.shape:
            raise ValueError(f"For '{owner}', gradient {k} has shape {g._data.shape} but "
                             f"parameter {p.name!r} has shape {p._data.shape}")
        if not (np.issubdtype(g._data.dtype, np.number) or g._data.dtype == np.bool_):
            raise TypeError(f"For '{owner}', gradient {k} (for {p.name!r}) must be numeric, "
                            f"but has dtype {g._data.dtype}")
        arrays.append(np.asarray(g._data, dtype=p._data.dtype))
    return arrays


def _check_unique(params, owner):
    ids, names = set(), set()
    for p in params:
        if id(p) in ids:
            raise ValueError(f"For '{owner}', the parameter {p.name!r} is given twice in "
                             f"'params'")
        if p.name in names:
            raise ValueError(f"For '{owner}', two parameters are named {p.name!r}: optimizer "
                             f"state is keyed by parameter name, so names must be unique")
        ids.add(id(p))
        names.add(p.name)


def _apply_order(order, params, lr_sources, decays, centralize, owner):
    """Reorder the per-parameter lists to follow `order_params`."""
    for k, p in enumerate(order):
        if not isinstance(p, Parameter):
            raise TypeError(f"For '{owner}', the 'order_params' must be Parameters, but item {k} "
                            f"is a {type(p).__name__}")
    if len(order) != len(params):
        raise ValueError(f"For '{owner}', the 'order_params' must list every grouped parameter "
                         f"once: it has {len(order)} entries for {len(params)} parameters")
    position = {id(p): k for k, p in enumerate(params)}
    missing = [p.name for p in order if id(p) not in position]
    if missing or len({id(p) for p in order}) != len(order):
        raise ValueError(f"For '{owner}', the 'order_params' must list exactly the grouped "
                         f"parameters, but {missing or 'a duplicate'} is not among them")
    index = [position[id(p)] for p in order]
    return ([params[i] for i in index], [lr_sources[i] for i in index],
            [decays[i] for i in index], [centralize[i] for i in index])
