"""Loss cells (`minispore.nn.BCEWithLogitsLoss`, ...)."""
from .loss import *  # noqa: F401,F403
from .loss_more import *  # noqa: F401,F403
from . import loss, loss_more

__all__ = loss.__all__ + loss_more.__all__
