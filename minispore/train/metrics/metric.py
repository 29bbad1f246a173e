"""`minispore.train.metrics.metric`: see `minispore.nn.metrics.metric`."""
from ...nn.metrics.metric import Metric, rearrange_inputs  # noqa: F401

__all__ = ["Metric", "rearrange_inputs"]
