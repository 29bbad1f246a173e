"""Shape and layout functions: ops.hstack, ops.atleast_2d, ops.rot90, ops.moveaxis, ops.space_to_batch_nd, ops.strided_slice, ops.tensor_split, ..."""

__all__ = []

# User-facing Primitive classes defined here (MindSpore classes that are composites), exported
# by ops.operations.
PRIMITIVE_CLASSES = ()
