"""`minispore.communication`: the process world (MPI under a launcher, else one process), its
groups, and collectives as functions (`comm_func`)."""
from . import comm_func, management  # noqa: F401  (comm_func: `communication.comm_func`)
from .management import *  # noqa: F403

__all__ = list(management.__all__)
