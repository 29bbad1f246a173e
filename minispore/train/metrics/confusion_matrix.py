"""`minispore.train.metrics.confusion_matrix`: see `minispore.nn.metrics.confusion_matrix`."""
from ...nn.metrics.confusion_matrix import ConfusionMatrix  # noqa: F401

__all__ = ["ConfusionMatrix"]
