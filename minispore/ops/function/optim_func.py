"""Functional forms of the optimizer-update primitives and assign_add / assign_sub."""

__all__ = []

# User-facing Primitive classes defined here (MindSpore classes that are composites), exported
# by ops.operations.
PRIMITIVE_CLASSES = ()
