"""`minispore.train.metrics.hausdorff_distance`: see `minispore.nn.metrics.surface_distance`."""
from ...nn.metrics.surface_distance import HausdorffDistance  # noqa: F401

__all__ = ["HausdorffDistance"]
