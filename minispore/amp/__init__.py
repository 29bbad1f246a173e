"""`minispore.amp`: mixed precision (`auto_mixed_precision`, `custom_mixed_precision`, the white
and black lists, `build_train_network`) and loss scaling (`DynamicLossScaler`, `StaticLossScaler`,
`all_finite`, the loss scale managers)."""
from .loss_scaler import *  # noqa: F401,F403
from .loss_scale_manager import *  # noqa: F401,F403
from .mixed_precision import *  # noqa: F401,F403
from . import loss_scale_manager, loss_scaler, mixed_precision

__all__ = loss_scaler.__all__ + loss_scale_manager.__all__ + mixed_precision.__all__
