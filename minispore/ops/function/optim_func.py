"""Functional forms of the optimizer-update primitives and assign_add / assign_sub."""
from ..operations import optim_ops as O

__all__ = ["assign_add", "assign_sub"]

# User-facing Primitive classes defined here (MindSpore classes that are composites), exported
# by ops.operations.
PRIMITIVE_CLASSES = ()

_ASSIGN_ADD, _ASSIGN_SUB = O.AssignAdd(), O.AssignSub()


def assign_add(variable, value):
    """variable += value, in place (a Parameter or Tensor; value of the same shape, its dtype no
    wider than variable's); returns the new value."""
    return _ASSIGN_ADD(variable, value)


def assign_sub(variable, value):
    """variable -= value, in place (a Parameter or Tensor; value of the same shape, its dtype no
    wider than variable's); returns the new value."""
    return _ASSIGN_SUB(variable, value)
