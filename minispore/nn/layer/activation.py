"""Activation layers and `get_activation`."""
from ..._validator import check_positive_int, check_type
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...ops.function import math_func as F
from ...ops.function import nn_func as NF
from ..cell import Cell

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "PReLU", "ELU", "CELU", "SeLU", "GELU", "FastGelu",
           "SiLU", "Mish", "HSwish", "HSigmoid", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
           "Softmin", "Softsign", "Tanhshrink", "Hardtanh", "LogSigmoid", "GLU", "Softplus",
           "get_activation"]


class ReLU(Cell):
    """max(x, 0)."""

    def construct(self, input):
        return NF.relu(input)


class ReLU6(Cell):
    """min(max(x, 0), 6)."""

    def construct(self, x):
        return NF.relu6(x)


class LeakyReLU(Cell):
    """x where positive, else alpha * x."""

    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return NF.leaky_relu(x, self.alpha)

    def extend_repr(self):
        return f"alpha={self.alpha}"


class PReLU(Cell):
    """x where positive, else w * x with a learnable slope `w` (one, or one per channel)."""

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        check_positive_int(channel, "channel", "PReLU")
        self.w = Parameter(initializer(w, (channel,)), name="a")

    def construct(self, x):
        return NF.prelu(x, self.w)


class ELU(Cell):
    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, input_x):
        return NF.elu(input_x, self.alpha)


class CELU(Cell):
    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return NF.celu(x, self.alpha)


class SeLU(Cell):
    def construct(self, input_x):
        return NF.selu(input_x)


class GELU(Cell):
    """x * Phi(x); the tanh approximation by default (`ops.gelu` defaults to the exact form)."""

    def __init__(self, approximate=True):
        super().__init__()
        self.approximate = approximate

    def construct(self, x):
        return NF.gelu(x, "tanh" if self.approximate else "none")


class FastGelu(Cell):
    """x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)), MindSpore's fast approximation."""

    def construct(self, x):
        a = F.abs(x)
        return x / (F.exp(a * -1.702) + 1.0) * F.exp((x - a) * 0.851)


class SiLU(Cell):
    def construct(self, x):
        return NF.silu(x)


class Mish(Cell):
    def construct(self, x):
        return NF.mish(x)


class HSwish(Cell):
    def construct(self, x):
        return NF.hardswish(x)


class HSigmoid(Cell):
    def construct(self, input_x):
        return NF.hardsigmoid(input_x)


class Sigmoid(Cell):
    def construct(self, x):
        return F.sigmoid(x)


class Tanh(Cell):
    def construct(self, x):
        return F.tanh(x)


class Softmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return NF.softmax(x, self.axis)


class LogSoftmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return NF.log_softmax(x, self.axis)


class Softmin(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return NF.softmax(-x, self.axis)


class Softsign(Cell):
    def construct(self, x):
        return NF.softsign(x)


class Tanhshrink(Cell):
    def construct(self, x):
        return NF.tanhshrink(x)


class Hardtanh(Cell):
    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        self.min_val, self.max_val = min_val, max_val

    def construct(self, x):
        return NF.hardtanh(x, self.min_val, self.max_val)


class LogSigmoid(Cell):
    """log(sigmoid(x)) = -softplus(-x), finite for any x."""

    def construct(self, input_x):
        return -NF.softplus(-input_x)


class GLU(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return NF.glu(x, self.axis)


class Softplus(Cell):
    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def construct(self, input):
        return NF.softplus(input, self.beta, self.threshold)


_ACTIVATIONS = {
    "relu": ReLU, "relu6": ReLU6, "leakyrelu": LeakyReLU, "prelu": PReLU, "elu": ELU,
    "gelu": GELU, "fast_gelu": FastGelu, "silu": SiLU, "swish": SiLU, "mish": Mish,
    "hswish": HSwish, "hsigmoid": HSigmoid, "sigmoid": Sigmoid, "tanh": Tanh,
    "softmax": Softmax, "logsoftmax": LogSoftmax, "softsign": Softsign, "logsigmoid": LogSigmoid,
    "tanhshrink": Tanhshrink, "hardtanh": Hardtanh, "celu": CELU, "selu": SeLU,
}


def get_activation(name, prim_name=None):
    """The activation Cell for `name` ('relu', 'gelu', 'tanh', ...), or None for None."""
    if name is None:
        return None
    check_type(name, str, "name", "get_activation")
    cls = _ACTIVATIONS.get(name.lower())
    if cls is None:
        raise KeyError(f"For 'get_activation', unknown activation {name!r}; known: "
                       f"{sorted(_ACTIVATIONS)}")
    return cls()
