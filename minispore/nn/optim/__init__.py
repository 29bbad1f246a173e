"""MindSpore's `nn` optimizers: `optimizer(grads)` updates the Parameters in place."""
from .ada_grad import Adagrad
from .adadelta import Adadelta
from .adam import Adam, AdamWeightDecay
from .adamax import AdaMax
from .lamb import Lamb
from .momentum import Momentum
from .optimizer import Optimizer
from .rmsprop import RMSProp
from .sgd import SGD

__all__ = [
           "SGD",
           "AdaMax",
           "Adadelta",
           "Adagrad",
           "Adam",
           "AdamWeightDecay",
           "Lamb",
           "Momentum",
           "Optimizer",
           "RMSProp",
]
