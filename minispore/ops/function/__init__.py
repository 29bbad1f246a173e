"""The functional API: `minispore.ops.add`, `ops.sum`, `ops.softmax`, `ops.conv2d`, ...
(MindSpore's names)."""
from .array_func import *  # noqa: F401,F403
from .clip_func import *  # noqa: F401,F403
from .creation_func import *  # noqa: F401,F403
from .layer_func import *  # noqa: F401,F403
from .linalg_func import *  # noqa: F401,F403
from .loss_func import *  # noqa: F401,F403
from .math_func import *  # noqa: F401,F403
from .nn_func import *  # noqa: F401,F403
from .random_func import *  # noqa: F401,F403
from . import (array_func, clip_func, creation_func, layer_func, linalg_func, loss_func, math_func,
               nn_func, random_func)
# MindSpore's ops.functional also holds the function transforms
from ..._autodiff.batching import vmap  # noqa: F401
from ..._autodiff.engine import grad, value_and_grad  # noqa: F401
from ..._autodiff.functional import jacfwd, jacrev, jvp, linearize, vjp  # noqa: F401

__all__ = (array_func.__all__ + clip_func.__all__ + creation_func.__all__ + layer_func.__all__ +
           linalg_func.__all__ + loss_func.__all__ + math_func.__all__ + nn_func.__all__ +
           random_func.__all__)
