"""`minispore.train.metrics.confusion_matrix`: see `minispore.nn.metrics.confusion_matrix` and
`minispore.nn.metrics.confusion_matrix_metric`."""
from ...nn.metrics.confusion_matrix import ConfusionMatrix  # noqa: F401
from ...nn.metrics.confusion_matrix_metric import ConfusionMatrixMetric  # noqa: F401

__all__ = ["ConfusionMatrix", "ConfusionMatrixMetric"]
