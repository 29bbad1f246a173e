"""Normalisation layers: BatchNorm1d/2d, LayerNorm, GroupNorm, InstanceNorm1d/2d."""
import numpy as np

from ..._autodiff.tape import apply
from ..._validator import (check_bool, check_float_range, check_one_of, check_positive_float,
                           check_positive_int, check_type)
from ...common import dtype as mstype
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...ops.function import layer_func as LF
from ...ops.operations import array_ops as A
from ...ops.operations import math_ops as M
from ...ops.operations import norm_ops as Nn
from ..cell import Cell
from .basic import cast_params

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "InstanceNorm1d",
           "InstanceNorm2d"]


def _momentum_write(param, batch, momentum):
    """param <- momentum * param + (1 - momentum) * batch, in place (MindSpore's convention:
    `momentum` is the weight of the old value)."""
    new = param._data * momentum + batch.astype(param._data.dtype) * (1.0 - momentum)
    param._write(new)


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
                _momentum_write(self.moving_mean, mean._data, self.momentum)
                _momentum_write(self.moving_variance, var._data * (m / max(m - 1, 1)),
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
            axes = tuple(range(2, x.ndim))
            mean = x._data.mean(axis=axes).mean(axis=0)
            var = x._data.var(axis=axes, ddof=1).mean(axis=0) if np.prod(x.shape[2:]) > 1 \
                else np.zeros(self.num_features)
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
