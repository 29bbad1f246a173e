"""`minispore.train.metrics.roc`: see `minispore.nn.metrics.roc`."""
from ...nn.metrics.roc import ROC  # noqa: F401

__all__ = ["ROC"]
