"""`minispore.amp`: loss scaling for mixed-precision training (`DynamicLossScaler`,
`StaticLossScaler`, `all_finite`, the loss scale managers)."""
from .loss_scaler import *  # noqa: F401,F403
from .loss_scale_manager import *  # noqa: F401,F403
from . import loss_scale_manager, loss_scaler

__all__ = loss_scaler.__all__ + loss_scale_manager.__all__
