"""`bprop_getters` where MindSpore 1.x code imports it from:
`from mindspore.ops._grad.grad_base import bprop_getters` (the same registry as 2.x's path)."""
from ..primitive import BpropRegistry, bprop_getters

__all__ = ["bprop_getters", "BpropRegistry"]
