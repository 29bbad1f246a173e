"""Loss cells (`minispore.nn.BCEWithLogitsLoss`, ...)."""
from .loss import *  # noqa: F401,F403
from .loss import __all__
