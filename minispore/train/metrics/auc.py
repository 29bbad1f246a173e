"""`minispore.train.metrics.auc`: see `minispore.nn.metrics.roc`."""
from ...nn.metrics.roc import auc  # noqa: F401

__all__ = ["auc"]
