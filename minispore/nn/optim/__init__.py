"""MindSpore's `nn` optimizers: `optimizer(grads)` updates the Parameters in place."""
from .ada_grad import Adagrad
from .adadelta import Adadelta
from .adafactor import AdaFactor
from .adam import Adam, AdamWeightDecay
from .adamax import AdaMax
from .asgd import ASGD
from .ftrl import FTRL
from .lamb import Lamb
from .lars import LARS
from .lazyadam import AdamOffload, LazyAdam
from .momentum import Momentum
from .optimizer import Optimizer
from .proximal_ada_grad import ProximalAdagrad
from .rmsprop import RMSProp
from .rprop import Rprop
from .sgd import SGD

__all__ = [
           "ASGD",
           "FTRL",
           "LARS",
           "SGD",
           "AdaFactor",
           "AdaMax",
           "Adadelta",
           "Adagrad",
           "Adam",
           "AdamOffload",
           "AdamWeightDecay",
           "Lamb",
           "LazyAdam",
           "Momentum",
           "Optimizer",
           "ProximalAdagrad",
           "RMSProp",
           "Rprop",
]
