"""Training and evaluation wrappers: `nn.WithLossCell`, `nn.TrainOneStepCell`, loss scaling,
gradient accumulation, the data-parallel gradient reducer."""
from .cell_wrapper import *  # noqa: F401,F403
from .grad_reducer import *  # noqa: F401,F403
from .grad_accumulation import *  # noqa: F401,F403
from .loss_scale import *  # noqa: F401,F403
from . import cell_wrapper, grad_accumulation, grad_reducer, loss_scale

__all__ = (cell_wrapper.__all__ + grad_reducer.__all__ + grad_accumulation.__all__
           + loss_scale.__all__)
