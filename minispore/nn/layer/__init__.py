"""Layers (`minispore.nn.Dense`, `nn.Conv2d`, ...)."""
from .activation import *  # noqa: F401,F403
from .basic import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .extra import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .pooling3d import *  # noqa: F401,F403
from .rnns import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from . import activation, basic, container, conv, embedding, extra, normalization, padding
from . import pooling, pooling3d, rnns, transformer

__all__ = (activation.__all__ + basic.__all__ + container.__all__ + conv.__all__ +
           embedding.__all__ + normalization.__all__ + pooling.__all__)
__all__ += rnns.__all__ + transformer.__all__ + extra.__all__ + padding.__all__
__all__ += pooling3d.__all__
