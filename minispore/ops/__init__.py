"""`minispore.ops`: the functional API (`ops.matmul`, `ops.sum`, ...) and the Primitive classes
users instantiate (`ops.Add()`, `ops.MatMul(transpose_b=True)`), one implementation underneath."""
from . import operations  # the primitive classes first: the functional layer is built on them
from . import function
from . import _tensor_methods  # noqa: F401  (binds Tensor operators and methods)
from . import _tensor_api  # noqa: F401  (binds the rest of MindSpore's Tensor API)
from ._tensor_api import FUNCTIONS as _IN_PLACE_FUNCTIONS
from .composite import GradOperation
from .custom import Custom, Morph
from .function import *  # noqa: F401,F403
from .operations import *  # noqa: F401,F403
from .primitive import PRIMITIVES, Primitive, PrimitiveWithCheck, PrimitiveWithInfer, \
    prim_attr_register
from . import composite, functional
from .composite import (HyperMap, Map, MultitypeFuncGraph, augassign_add, augassign_div,  # noqa: F401
                        augassign_floordiv, augassign_mod, augassign_mul, augassign_sub, tail)
from .._autodiff.engine import get_grad, grad, value_and_grad
from .._autodiff.functional import derivative, hvp, jacfwd, jacrev, jet, jvp, linearize, vjp
from .._autodiff.batching import vmap
from .._missing import missing_names

globals().update(_IN_PLACE_FUNCTIONS)

from . import communication  # noqa: E402  (MindSpore's ops.all_reduce, ops.new_group, ...)

# ops.gather and ops.scatter stay the array ops; the collectives of those names live in
# ops.communication only, as in MindSpore
globals().update({n: getattr(communication, n) for n in communication.__all__ + list(
    communication.OPS_ONLY) if n not in ("gather", "scatter")})

__getattr__ = missing_names(__name__, globals())
