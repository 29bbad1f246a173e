"""`minispore.common`: dtype, Tensor, Parameter, seeds, jit."""
from . import dtype
from .api import jit, jit_class
from .parameter import Parameter, ParameterTuple
from .seed import get_seed, set_seed
from .tensor import Tensor, from_numpy, is_tensor, tensor
