"""`minispore.train.metrics.precision`: see `minispore.nn.metrics.precision`."""
from ...nn.metrics.precision import Precision, Recall  # noqa: F401

__all__ = ["Precision", "Recall"]
