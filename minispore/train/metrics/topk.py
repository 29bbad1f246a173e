"""`minispore.train.metrics.topk`: see `minispore.nn.metrics.topk`."""
from ...nn.metrics.topk import (  # noqa: F401
    Top1CategoricalAccuracy, Top5CategoricalAccuracy, TopKCategoricalAccuracy)

__all__ = ["Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "TopKCategoricalAccuracy"]
