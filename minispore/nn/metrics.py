"""`minispore.nn.metrics`: the metrics of `minispore.train.metrics`, also reachable from `nn` as
in MindSpore (`nn.Accuracy is train.Accuracy`)."""
from ..train.metrics import (F1, MAE, MSE, Accuracy, ConfusionMatrix, Fbeta, Loss, Metric,
                             Perplexity, Precision, Recall, Top1CategoricalAccuracy,
                             Top5CategoricalAccuracy, TopKCategoricalAccuracy, get_metric_fn,
                             get_metrics, names, rearrange_inputs)

__all__ = ["names", "get_metric_fn", "get_metrics", "Accuracy", "MAE", "MSE", "Metric",
           "rearrange_inputs", "Precision", "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy",
           "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Loss", "Perplexity",
           "ConfusionMatrix"]
