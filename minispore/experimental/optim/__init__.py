"""Torch-style optimizers (`lr=`, `betas=`, parameter groups as dicts) and learning-rate
schedulers, as in `mindspore.experimental.optim`."""
from . import lr_scheduler
from .asgd import ASGD
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler",
           "Adamax", "NAdam", "RAdam", "Adadelta", "Rprop", "ASGD"]
