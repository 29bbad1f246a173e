"""Layers (`minispore.nn.Dense`, `nn.Conv2d`, ...)."""
from .activation import *  # noqa: F401,F403
from .basic import *  # noqa: F401,F403
from .basic_more import *  # noqa: F401,F403
from .combined import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .embedding_lookup import *  # noqa: F401,F403
from .extra import *  # noqa: F401,F403
from .grad_cells import *  # noqa: F401,F403
from .image_quality import MSSSIM, PSNR, SSIM  # noqa: F401
from .math_cells import *  # noqa: F401,F403
from .micro_batch import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .pooling3d import *  # noqa: F401,F403
from .pooling_more import *  # noqa: F401,F403
from .rnns import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from . import activation, basic, container, conv, embedding, extra, normalization, padding
from . import pooling, pooling3d, rnns, transformer
from . import basic_more, combined, embedding_lookup, grad_cells, math_cells, micro_batch
from . import pooling_more, sparse

__all__ = (activation.__all__ + basic.__all__ + container.__all__ + conv.__all__ +
           embedding.__all__ + normalization.__all__ + pooling.__all__)
__all__ += rnns.__all__ + transformer.__all__ + extra.__all__ + padding.__all__
__all__ += pooling3d.__all__
__all__ += (basic_more.__all__ + combined.__all__ + embedding_lookup.__all__ +
            grad_cells.__all__ + math_cells.__all__ + micro_batch.__all__ + pooling_more.__all__ +
            sparse.__all__)
__all__ += ["PSNR", "SSIM", "MSSSIM"]
