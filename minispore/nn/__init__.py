"""`minispore.nn`: Cell, layers, losses, optimizers and training wrappers."""
from .cell import Cell
from .layer import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .optim import *  # noqa: F401,F403
from .learning_rate_schedule import *  # noqa: F401,F403
from .dynamic_lr import *  # noqa: F401,F403
from .wrap import *  # noqa: F401,F403

_METRIC_NAMES = frozenset((
    "names", "get_metric_fn", "get_metrics", "Accuracy", "MAE", "MSE", "Metric",
    "rearrange_inputs", "Precision", "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy",
    "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Loss", "Perplexity",
    "ConfusionMatrix"))


def __getattr__(name):
    # The metrics live in minispore.train (as in MindSpore, whose nn re-exports them); they are
    # imported on first use because train imports nn.
    if name == "metrics" or name in _METRIC_NAMES:
        import importlib
        metrics = importlib.import_module(".metrics", __name__)
        return metrics if name == "metrics" else getattr(metrics, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
