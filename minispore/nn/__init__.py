"""`minispore.nn`: Cell, layers, losses, optimizers and training wrappers."""
from .cell import Cell
from .graph_cell import GraphCell
from .layer import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .optim import *  # noqa: F401,F403
from .learning_rate_schedule import *  # noqa: F401,F403
from .dynamic_lr import *  # noqa: F401,F403
from .wrap import *  # noqa: F401,F403
from .metrics import *  # noqa: F401,F403
from . import metrics
from . import utils
from .utils import no_init_parameters
