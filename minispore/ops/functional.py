"""`mindspore.ops.functional` (`import mindspore.ops.functional as F`): the functional ops and
the function transforms, the same objects as `minispore.ops.<name>`."""
from .._autodiff.batching import vmap  # noqa: F401
from .._autodiff.engine import grad, value_and_grad  # noqa: F401
from .._autodiff.functional import derivative, jacfwd, jacrev, jet, jvp, linearize, vjp  # noqa: F401
from .._missing import missing_names
from .function import *  # noqa: F401,F403
from .function import __all__ as _functions
from ._tensor_api import FUNCTIONS as _METHOD_FUNCTIONS
from .._autodiff.engine import get_grad  # noqa: F401
from .operations import (AdaptiveMaxPool2D, Median, Roll, TensorToTuple,  # noqa: F401
                         UniqueConsecutive)  # classes MindSpore's ops.functional also holds

globals().update(_METHOD_FUNCTIONS)

__all__ = list(_functions) + ["vmap", "grad", "value_and_grad", "jacfwd", "jacrev", "jvp",
                              "linearize", "vjp", "jet", "derivative", "get_grad",
                              "AdaptiveMaxPool2D", "Median", "Roll", "TensorToTuple",
                              "UniqueConsecutive"] + list(_METHOD_FUNCTIONS)
__getattr__ = missing_names(__name__, globals())
