"""`mindspore.ops.functional` (`import mindspore.ops.functional as F`): the functional ops and
the function transforms, the same objects as `minispore.ops.<name>`."""
from .._autodiff.batching import vmap  # noqa: F401
from .._autodiff.engine import grad, value_and_grad  # noqa: F401
from .._autodiff.functional import derivative, jacfwd, jacrev, jet, jvp, linearize, vjp  # noqa: F401
from .._missing import missing_names
from .function import *  # noqa: F401,F403
from .function import __all__ as _functions

__all__ = list(_functions) + ["vmap", "grad", "value_and_grad", "jacfwd", "jacrev", "jvp",
                              "linearize", "vjp", "jet", "derivative"]
__getattr__ = missing_names(__name__, globals())
