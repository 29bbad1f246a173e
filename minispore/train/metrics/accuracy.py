"""`minispore.train.metrics.accuracy`: see `minispore.nn.metrics.accuracy`."""
from ...nn.metrics.accuracy import Accuracy  # noqa: F401

__all__ = ["Accuracy"]
