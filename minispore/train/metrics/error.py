"""`minispore.train.metrics.error`: see `minispore.nn.metrics.error`."""
from ...nn.metrics.error import MAE, MSE  # noqa: F401

__all__ = ["MAE", "MSE"]
