"""The Metric protocol, the standard metrics, and lookup by name (`names()`, `get_metric_fn(name)`)
for `Model(metrics={'acc', ...})`. MindSpore exports them from both `nn` and `train`; they depend
on Tensor only, so they live here and `minispore.train.metrics` re-exports them."""
from .accuracy import Accuracy
from .bleu_score import BleuScore
from .confusion_matrix import ConfusionMatrix
from .confusion_matrix_metric import ConfusionMatrixMetric
from .cosine_similarity import CosineSimilarity
from .dice import Dice
from .error import MAE, MSE
from .fbeta import F1, Fbeta
from .loss import Loss
from .metric import Metric, rearrange_inputs
from .occlusion_sensitivity import OcclusionSensitivity
from .perplexity import Perplexity
from .precision import Precision, Recall
from .roc import ROC, auc
from .surface_distance import HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance
from .topk import Top1CategoricalAccuracy, Top5CategoricalAccuracy, TopKCategoricalAccuracy

__all__ = [
    "names", "get_metric_fn", "get_metrics", "Metric", "rearrange_inputs", "Accuracy", "MAE",
    "MSE", "Precision", "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy",
    "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Loss", "Perplexity",
    "ConfusionMatrix", "CosineSimilarity", "ROC", "auc", "Dice", "BleuScore",
    "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance", "OcclusionSensitivity",
    "ConfusionMatrixMetric",
]

# MindSpore 2.10's names ('auc' is the function: get_metric_fn('auc', fpr, tpr) is the area).
_FACTORY = {
    "accuracy": Accuracy,
    "acc": Accuracy,
    "precision": Precision,
    "recall": Recall,
    "F1": F1,
    "topk": TopKCategoricalAccuracy,
    "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy,
    "mae": MAE,
    "mse": MSE,
    "loss": Loss,
    "perplexity": Perplexity,
    "confusion_matrix": ConfusionMatrix,
    "auc": auc,
    "roc": ROC,
    "dice": Dice,
    "bleu_score": BleuScore,
    "cosine_similarity": CosineSimilarity,
    "hausdorff_distance": HausdorffDistance,
    "mean_surface_distance": MeanSurfaceDistance,
    "root_mean_square_distance": RootMeanSquareDistance,
    "occlusion_sensitivity": OcclusionSensitivity,
    "confusion_matrix_metric": ConfusionMatrixMetric,
}


def names():
    """The metric names `get_metric_fn` accepts, sorted."""
    return sorted(_FACTORY)


def get_metric_fn(name, *args, **kwargs):
    """A new metric by name: `get_metric_fn('acc')` is `Accuracy()`; extra arguments go to the
    metric's constructor (`get_metric_fn('topk', 3)`).

    Raises:
        KeyError: an unknown name (see `names()`).
    """
    if not isinstance(name, str) or name not in _FACTORY:
        raise KeyError(f"For 'get_metric_fn', unsupported metric {name!r}; the supported names "
                       f"are {names()}")
    return _FACTORY[name](*args, **kwargs)


def get_metrics(metrics):
    """`metrics` as a dict name -> Metric: None stays None, a set of names is looked up, a dict
    of name -> Metric is returned as is.

    Raises:
        TypeError: another type, or a dict with a non-str key or a non-Metric value.
        KeyError: an unknown name in a set.
    """
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for name, metric in metrics.items():
            if not isinstance(name, str) or not isinstance(metric, Metric):
                raise TypeError(f"For 'get_metrics', a dict 'metrics' must map str to Metric, "
                                f"but got key {type(name).__name__} and value "
                                f"{type(metric).__name__}")
        return metrics
    if isinstance(metrics, set):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError(f"For 'get_metrics', 'metrics' must be None, a dict or a set, but got "
                    f"{type(metrics).__name__}")
