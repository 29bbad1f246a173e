"""The functional API: `minispore.ops.add`, `ops.sum`, `ops.softmax`, `ops.conv2d`, ...
(MindSpore's names). Each family module lists its public functions in `__all__`; a module that
also defines user-facing Primitive classes (MindSpore classes that are composites) names them in
`PRIMITIVE_CLASSES`, which `ops.operations` exports."""
from . import (array_func, clip_func, creation_func, fft_func, graph_func, image_func, layer_func,
               linalg_func, loss_func, math_func, misc_func, nn_func, optim_func, random_func,
               scatter_func, shape_func, sparse_func, special_func)
from .array_func import *  # noqa: F401,F403
from .clip_func import *  # noqa: F401,F403
from .creation_func import *  # noqa: F401,F403
from .fft_func import *  # noqa: F401,F403
from .graph_func import *  # noqa: F401,F403
from .image_func import *  # noqa: F401,F403
from .layer_func import *  # noqa: F401,F403
from .linalg_func import *  # noqa: F401,F403
from .loss_func import *  # noqa: F401,F403
from .math_func import *  # noqa: F401,F403
from .misc_func import *  # noqa: F401,F403
from .nn_func import *  # noqa: F401,F403
from .optim_func import *  # noqa: F401,F403
from .random_func import *  # noqa: F401,F403
from .scatter_func import *  # noqa: F401,F403
from .shape_func import *  # noqa: F401,F403
from .sparse_func import *  # noqa: F401,F403
from .special_func import *  # noqa: F401,F403

FAMILIES = (array_func, clip_func, creation_func, fft_func, graph_func, image_func, layer_func,
            linalg_func, loss_func, math_func, misc_func, nn_func, optim_func, random_func,
            scatter_func, shape_func, sparse_func, special_func)
__all__ = [name for family in FAMILIES for name in family.__all__]
