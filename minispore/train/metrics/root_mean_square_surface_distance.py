"""`minispore.train.metrics.root_mean_square_surface_distance`: see `minispore.nn.metrics.surface_distance`."""
from ...nn.metrics.surface_distance import RootMeanSquareDistance  # noqa: F401

__all__ = ["RootMeanSquareDistance"]
