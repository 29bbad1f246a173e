"""Special functions and the remaining elementwise math: ops.lgamma, ops.bessel_j0, ops.igamma, ops.zeta, ops.gcd, ops.hypot, ops.xlogy, ops.nan_to_num, ops.nansum, ..."""

__all__ = []

# User-facing Primitive classes defined here (MindSpore classes that are composites), exported
# by ops.operations.
PRIMITIVE_CLASSES = ()
