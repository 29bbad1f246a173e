"""`minispore.nn`: Cell, layers, losses, optimizers and training wrappers."""
from .cell import Cell
from .loss import *  # noqa: F401,F403
