"""Image, sampling and box functions: ops.grid_sample, ops.affine_grid, ops.crop_and_resize, ops.iou, ops.bounding_box_encode, ..."""

__all__ = []

# User-facing Primitive classes defined here (MindSpore classes that are composites), exported
# by ops.operations.
PRIMITIVE_CLASSES = ()
