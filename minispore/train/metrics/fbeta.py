"""`minispore.train.metrics.fbeta`: see `minispore.nn.metrics.fbeta`."""
from ...nn.metrics.fbeta import F1, Fbeta  # noqa: F401

__all__ = ["F1", "Fbeta"]
