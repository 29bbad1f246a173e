"""`minispore.train.metrics.mean_surface_distance`: see `minispore.nn.metrics.surface_distance`."""
from ...nn.metrics.surface_distance import MeanSurfaceDistance  # noqa: F401

__all__ = ["MeanSurfaceDistance"]
