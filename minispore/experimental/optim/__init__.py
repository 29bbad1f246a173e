"""Torch-style optimizers (`lr=`, `betas=`, parameter groups as dicts) and learning-rate
schedulers, as in `mindspore.experimental.optim`."""
from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
