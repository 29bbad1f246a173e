"""`minispore.experimental`: MindSpore's experimental APIs (torch-style optimizers)."""
from . import optim

__all__ = ["optim"]
