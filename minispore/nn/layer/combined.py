"""Conv2dBnAct and DenseBnAct: a convolution or dense layer, an optional batch norm and an
optional activation, applied in that order."""
from ..._validator import check_bool
from ...ops.primitive import Primitive
from ..cell import Cell
from .activation import LeakyReLU, get_activation
from .basic import Dense
from .conv import Conv2d
from .normalization import BatchNorm1d, BatchNorm2d

__all__ = ["Conv2dBnAct", "DenseBnAct"]


def _activation(activation, alpha, owner):
    if activation == "leakyrelu":
        return LeakyReLU(alpha)
    act = get_activation(activation) if isinstance(activation, str) else activation
    if act is not None and not isinstance(act, (Cell, Primitive)):
        raise TypeError(f"For '{owner}', the 'activation' must be str or Cell or Primitive, but "
                        f"got {type(activation).__name__}.")
    return act


class Conv2dBnAct(Cell):
    """Conv2d (weights 'normal', bias 'zeros' by default), then BatchNorm2d(out_channels, eps,
    momentum) when `has_bn`, then `activation` ('leakyrelu' uses `alpha`). `after_fake` is
    accepted for quantisation-aware training, which minispore does not do."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init="normal",
                 bias_init="zeros", has_bn=False, momentum=0.997, eps=1e-5, activation=None,
                 alpha=0.2, after_fake=True):
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride,
                           pad_mode=pad_mode, padding=padding, dilation=dilation, group=group,
                           has_bias=has_bias, weight_init=weight_init, bias_init=bias_init)
        self.has_bn = check_bool(has_bn, "has_bn", "Conv2dBnAct")
        self.after_fake = check_bool(after_fake, "after_fake", "Conv2dBnAct")
        if has_bn:
            self.batchnorm = BatchNorm2d(out_channels, eps, momentum)
        self.activation = _activation(activation, alpha, "Conv2dBnAct")
        self.has_act = activation is not None

    def construct(self, x):
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        return self.activation(x) if self.has_act else x


class DenseBnAct(Cell):
    """Dense (weights 'normal', bias 'zeros' by default), then BatchNorm1d(out_channels, eps,
    momentum) when `has_bn`, then `activation` ('leakyrelu' uses `alpha`)."""

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros",
                 has_bias=True, has_bn=False, momentum=0.9, eps=1e-5, activation=None,
                 alpha=0.2, after_fake=True):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn = check_bool(has_bn, "has_bn", "DenseBnAct")
        self.after_fake = check_bool(after_fake, "after_fake", "DenseBnAct")
        if has_bn:
            self.batchnorm = BatchNorm1d(out_channels, eps, momentum)
        self.activation = _activation(activation, alpha, "DenseBnAct")
        self.has_act = activation is not None

    def construct(self, x):
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        return self.activation(x) if self.has_act else x
