"""`bprop_getters`, the registry of Python backward rules, where MindSpore 2.x users import it
from: `from mindspore.ops._grad_experimental.grad_base import bprop_getters`."""
from ..primitive import BpropRegistry, bprop_getters

__all__ = ["bprop_getters", "BpropRegistry"]
