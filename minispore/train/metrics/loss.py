"""`minispore.train.metrics.loss`: see `minispore.nn.metrics.loss`."""
from ...nn.metrics.loss import Loss  # noqa: F401

__all__ = ["Loss"]
