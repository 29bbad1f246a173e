"""Normalisation layers: BatchNorm1d/2d, SyncBatchNorm, LayerNorm, GroupNorm, InstanceNorm1d/2d."""
import hashlib

import numpy as np

from ..._autodiff.tape import apply, wrap, write_in_place
from ..._validator import (check_bool, check_float_range, check_one_of, check_positive_float,
                           check_positive_int, check_type)
from ...common import dtype as mstype
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...communication.management import GlobalComm, create_group, get_group_size, get_rank
from ...ops.function import layer_func as LF
from ...ops.operations import array_ops as A
from ...ops.operations import math_ops as M
from ...ops.operations import reduce_ops as R
from ...ops.operations.comm_ops import AllReduce, ReduceOp
from ...ops.operations import norm_ops as Nn
from ...ops.primitive import data_function
from ..cell import Cell
from .basic import cast_params

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "InstanceNorm1d",
           "InstanceNorm2d", "SyncBatchNorm"]


def _momentum_write(param, batch, momentum):
    """param <- momentum * param + (1 - momentum) * batch (an untracked Tensor), in place
    (MindSpore's convention: `momentum` is the weight of the old value), by ops a graph capture
    records."""
    if batch._data.dtype != param._data.dtype:
        batch = M.cast(batch, param._data.dtype)
    write_in_place(param, param * momentum + batch * (1.0 - momentum))


def _instance_statistics(x, num_features):
    """The batch means of the per-instance means and unbiased variances over the spatial axes
    (zero variances for one spatial element): a DataFunction."""
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axis=axes).mean(axis=0)
    var = x.var(axis=axes, ddof=1).mean(axis=0) if np.prod(x.shape[2:]) > 1 \
        else np.zeros(num_features)
    return mean, var


def _norm_params(cell, num_features, affine, gamma_init, beta_init, mean_init, var_init, dtype):
    """The moving statistics (`mean`, `variance`) and the affine parameters (`gamma`, `beta`,
    trainable when `affine`) of a per-channel norm layer, set on `cell`."""
    shape = (num_features,)
    cell.moving_mean = Parameter(initializer(mean_init, shape, dtype), name="mean",
                                 requires_grad=False)
    cell.moving_variance = Parameter(initializer(var_init, shape, dtype), name="variance",
                                     requires_grad=False)
    cell.gamma = Parameter(initializer(gamma_init, shape, dtype), name="gamma",
                           requires_grad=affine)
    cell.beta = Parameter(initializer(beta_init, shape, dtype), name="beta", requires_grad=affine)


class _BatchNorm(Cell):
    _ranks = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        self.num_features = check_positive_int(num_features, "num_features", cls)
        self.momentum = check_float_range(momentum, "momentum", cls, 0.0, 1.0)
        self.eps = check_positive_float(eps, "eps", cls)
        if use_batch_statistics is not None:
            check_bool(use_batch_statistics, "use_batch_statistics", cls)
        check_one_of(data_format, ("NCHW",), "data_format", cls)
        self.affine, self.use_batch_statistics = affine, use_batch_statistics
        _norm_params(self, num_features, affine, gamma_init, beta_init, moving_mean_init,
                     moving_var_init, dtype)

    def construct(self, x):
        cls = type(self).__name__
        if x.ndim not in self._ranks or x.shape[1] != self.num_features:
            raise ValueError(f"For '{cls}', the input must be {' or '.join(map(str, self._ranks))}"
                             f"-D with {self.num_features} channels on axis 1, but got shape "
                             f"{x.shape}")
        gamma, beta = cast_params(self, self.gamma, self.beta)
        batch_stats = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        if batch_stats:
            y, mean, var = apply(Nn.BatchNormTraining(self.eps), (x, gamma, beta))
            m = x.size // x.shape[1]
            if self.training and m:  # an empty batch has no statistics: moving ones unchanged
                _momentum_write(self.moving_mean, wrap(mean._data), self.momentum)
                _momentum_write(self.moving_variance, wrap(var._data) * (m / max(m - 1, 1)),
                                self.momentum)
            return y
        cs = (1, self.num_features) + (1,) * (x.ndim - 2)
        mean, var = cast_params(self, self.moving_mean, self.moving_variance)
        scale = gamma * M.rsqrt(var + self.eps)
        return (x - A.reshape(mean, cs)) * A.reshape(scale, cs) + A.reshape(beta, cs)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma!r}, beta={self.beta!r}, moving_mean={self.moving_mean!r}, "
                f"moving_variance={self.moving_variance!r}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) input.

    momentum (0.9) is the weight of the old moving value: moving = 0.9 * moving + 0.1 * batch;
    the moving variance uses the unbiased batch variance, normalisation the biased one. Training
    mode uses batch statistics, eval mode the moving ones (unless `use_batch_statistics`)."""

    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) input; see BatchNorm1d for the conventions."""

    _ranks = (4,)


_SYNC_GROUPS = {}


def _sync_group(ranks):
    """The name of the communication group of world `ranks` that SyncBatchNorm layers share,
    created (collectively, on every rank) the first time."""
    key = "_".join(str(r) for r in ranks)
    if key not in _SYNC_GROUPS:
        name = f"{len(ranks)}_{hashlib.sha256(key.encode()).hexdigest()}"
        create_group(name, list(ranks))
        _SYNC_GROUPS[key] = name
    return _SYNC_GROUPS[key]


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, H, W) input whose training statistics are taken
    over the whole batch of a group of devices: the per-channel sums and sums of squares are
    all-reduced (differentiably) over `process_groups` (lists of world rank ids, every rank in
    at most one; None: the world; 0: no synchronisation). In a world of one process, or on a
    rank alone in its group, it is BatchNorm2d. See BatchNorm1d for the conventions."""

    _ranks = (2, 4)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, process_groups=None, dtype=mstype.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init,
                         moving_mean_init, moving_var_init, use_batch_statistics, dtype=dtype)
        self.is_global, self.group_name = False, None
        self.process_groups = process_groups
        if process_groups == 0:
            return
        self.rank_id, self.rank_size = get_rank(), get_group_size()
        if process_groups is not None:
            check_type(process_groups, list, "process_groups", "SyncBatchNorm")
            self._check_rank_ids(process_groups)
            for group in process_groups:
                if len(group) > 1:
                    name = _sync_group(group)
                    if self.rank_id in group:
                        self.is_global, self.group_name = True, name
        elif self.rank_size > 1:
            self.is_global, self.group_name = True, GlobalComm.WORLD_COMM_GROUP

    def _check_rank_ids(self, process_groups):
        seen = set()
        for group in process_groups:
            check_type(group, list, "sub group", "SyncBatchNorm")
            for rid in group:
                if isinstance(rid, bool) or not isinstance(rid, int) or \
                        not 0 <= rid < self.rank_size:
                    raise ValueError(f"For 'SyncBatchNorm', the rank id in process_groups must "
                                     f"be in [0, {self.rank_size}), but got {rid}")
                if rid in seen:
                    raise ValueError(f"For 'SyncBatchNorm', rank id in 'process_groups' must "
                                     f"not be duplicated, but got {process_groups}.")
                seen.add(rid)

    def construct(self, x):
        batch_stats = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        if not (self.is_global and batch_stats):
            return super().construct(x)
        if x.ndim not in self._ranks or x.shape[1] != self.num_features:
            raise ValueError(f"For 'SyncBatchNorm', the input must be 2 or 4-D with "
                             f"{self.num_features} channels on axis 1, but got shape {x.shape}")
        gamma, beta = cast_params(self, self.gamma, self.beta)
        axes = (0,) + tuple(range(2, x.ndim))
        reduce = AllReduce(ReduceOp.SUM, self.group_name)
        local = np.array([x.size // x.shape[1]], np.float64)
        count = float(reduce(Tensor(local))._data[0])
        total = reduce(R.reduce_sum(x, axes))
        total_sq = reduce(R.reduce_sum(x * x, axes))
        mean = total / count
        var = total_sq / count - mean * mean
        cs = (1, self.num_features) + (1,) * (x.ndim - 2)
        scale = gamma * M.rsqrt(var + self.eps)
        y = (x - A.reshape(mean, cs)) * A.reshape(scale, cs) + A.reshape(beta, cs)
        if self.training and count:
            _momentum_write(self.moving_mean, wrap(mean._data), self.momentum)
            _momentum_write(self.moving_variance, wrap(var._data) * (count / max(count - 1, 1)),
                            self.momentum)
        return y


class LayerNorm(Cell):
    """Normalisation over the axes from `begin_norm_axis` on, then gamma * x + beta with gamma,
    beta of shape `normalized_shape` (the axes from `begin_params_axis` on). epsilon 1e-7."""

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
                 gamma_init="ones", beta_init="zeros", epsilon=1e-7, dtype=mstype.float32):
        super().__init__()
        self.normalized_shape = tuple(check_type(normalized_shape, (tuple, list),
                                                 "normalized_shape", "LayerNorm"))
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = float(epsilon)
        self.gamma = Parameter(initializer(gamma_init, self.normalized_shape, dtype),
                               name="gamma")
        self.beta = Parameter(initializer(beta_init, self.normalized_shape, dtype), name="beta")

    def construct(self, input_x):
        gamma, beta = cast_params(self, self.gamma, self.beta)
        return Nn.layer_norm(input_x, gamma, beta, self.begin_norm_axis, self.begin_params_axis,
                             self.epsilon)

    def extend_repr(self):
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis="
                f"{self.begin_norm_axis}, begin_params_axis={self.begin_params_axis}, "
                f"gamma={self.gamma!r}, beta={self.beta!r}")


class GroupNorm(Cell):
    """Normalisation over groups of `num_channels // num_groups` channels and the spatial axes,
    then per-channel gamma and beta."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=mstype.float32):
        super().__init__()
        self.num_groups = check_positive_int(num_groups, "num_groups", "GroupNorm")
        self.num_channels = check_positive_int(num_channels, "num_channels", "GroupNorm")
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', num_channels ({num_channels}) must divide by "
                             f"num_groups ({num_groups})")
        self.eps, self.affine = float(eps), affine
        self.gamma = Parameter(initializer(gamma_init, (num_channels,), dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, (num_channels,), dtype), name="beta",
                              requires_grad=affine)

    def construct(self, x):
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise ValueError(f"For 'GroupNorm', the input must have {self.num_channels} channels "
                             f"on axis 1, but got shape {x.shape}")
        gamma, beta = cast_params(self, self.gamma, self.beta)
        return LF.group_norm(x, self.num_groups, gamma, beta, self.eps)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class _InstanceNorm(Cell):
    _rank = 4

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        self.num_features = check_positive_int(num_features, "num_features", cls)
        self.eps = check_positive_float(eps, "eps", cls)
        self.momentum = check_float_range(momentum, "momentum", cls, 0.0, 1.0)
        self.affine = affine
        _norm_params(self, num_features, affine, gamma_init, beta_init, "zeros", "ones", dtype)

    def construct(self, x):
        cls = type(self).__name__
        if x.ndim != self._rank or x.shape[1] != self.num_features:
            raise ValueError(f"For '{cls}', the input must be {self._rank}-D with "
                             f"{self.num_features} channels, but got shape {x.shape}")
        if self.training and x.size:  # running averages of the per-instance statistics
            # a recorded node: a graph-mode replay computes the new data's statistics
            mean, var = data_function(_instance_statistics, x, static=(self.num_features,))
            _momentum_write(self.moving_mean, mean, 1.0 - self.momentum)
            _momentum_write(self.moving_variance, var, 1.0 - self.momentum)
        gamma, beta = cast_params(self, self.gamma, self.beta)
        return LF.instance_norm(x, gamma, beta, self.eps)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma!r}, beta={self.beta!r}, moving_mean={self.moving_mean!r}, "
                f"moving_variance={self.moving_variance!r}")


class InstanceNorm2d(_InstanceNorm):
    """Normalisation over H and W of each channel of each sample (N, C, H, W); the moving
    statistics (momentum 0.1, PyTorch's convention here, as in MindSpore) are kept for
    inspection."""

    _rank = 4


class InstanceNorm1d(_InstanceNorm):
    """Normalisation over L of each channel of each sample (N, C, L)."""

    _rank = 3
