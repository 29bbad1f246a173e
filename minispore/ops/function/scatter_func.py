"""Scatter, gather, segment, index and search functions: ops.scatter_add, ops.tensor_scatter_max, ops.index_add, ops.unsorted_segment_sum, ops.bincount, ops.searchsorted, ..."""

__all__ = []

# User-facing Primitive classes defined here (MindSpore classes that are composites), exported
# by ops.operations.
PRIMITIVE_CLASSES = ()
