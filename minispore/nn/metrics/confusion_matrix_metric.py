"""`ConfusionMatrixMetric`: rates derived from true/false positive/negative counts (sensitivity,
specificity, precision, F1, MCC, ...) over one-hot predictions and labels."""
import numpy as np

from ..._validator import check_bool, check_one_of, check_type
from .metric import Metric, rearrange_inputs

__all__ = ["ConfusionMatrixMetric"]

_DECREASES = ("none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel")

_ALIASES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate", "tpr"),
    "tnr": ("specificity", "selectivity", "true_negative_rate", "tnr"),
    "ppv": ("precision", "positive_predictive_value", "ppv"),
    "npv": ("negative_predictive_value", "npv"),
    "fnr": ("miss_rate", "false_negative_rate", "fnr"),
    "fpr": ("fall_out", "false_positive_rate", "fpr"),
    "fdr": ("false_discovery_rate", "fdr"),
    "for": ("false_omission_rate", "for"),
    "pt": ("prevalence_threshold", "pt"),
    "ts": ("threat_score", "critical_success_index", "ts", "csi"),
    "acc": ("accuracy", "acc"),
    "ba": ("balanced_accuracy", "ba"),
    "f1": ("f1_score", "f1"),
    "mcc": ("matthews_correlation_coefficient", "mcc"),
    "fm": ("fowlkes_mallows_index", "fm"),
    "bm": ("informedness", "bookmaker_informedness", "bm"),
    "mk": ("markedness", "deltap", "mk"),
}
_CANONICAL = {alias: key for key, aliases in _ALIASES.items() for alias in aliases}


def _canonical_name(metric_name):
    key = _CANONICAL.get(metric_name.replace(" ", "_").lower())
    if key is None:
        raise ValueError(f"For 'ConfusionMatrixMetric', the 'metric_name' must be one of "
                         f"{sorted(_CANONICAL)} (any case, spaces for underscores), but got "
                         f"{metric_name!r}")
    return key


def _ratio(a, b):
    """a / b, NaN where b is 0."""
    b = np.asarray(b, dtype=float)
    safe = np.where(b != 0, b, 1.0)
    return np.where(b != 0, a / safe, np.nan)


def _rate(name, counts):
    """The rate `name` from `counts[..., 0:4]` = (tp, fp, tn, fn); NaN where undefined."""
    tp, fp, tn, fn = (counts[..., i] for i in range(4))
    p, n = tp + fn, fp + tn
    if name in ("pt", "ba", "bm"):
        tpr, tnr = _ratio(tp, p), _ratio(tn, n)
        if name == "ba":
            return (tpr + tnr) / 2.0
        if name == "bm":
            return tpr + tnr - 1.0
        return _ratio(np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0)
    if name == "fm":
        return np.sqrt(_ratio(tp, tp + fp) * _ratio(tp, p))
    if name == "mk":
        return _ratio(tp, tp + fp) + _ratio(tn, tn + fn) - 1.0
    if name == "mcc":
        return _ratio(tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))
    numerator, denominator = {
        "tpr": (tp, p), "tnr": (tn, n), "ppv": (tp, tp + fp), "npv": (tn, tn + fn),
        "fnr": (fn, p), "fpr": (fp, n), "fdr": (fp, fp + tp), "for": (fn, fn + tn),
        "ts": (tp, tp + fn + fp), "acc": (tp + tn, p + n), "f1": (2.0 * tp, 2.0 * tp + fn + fp),
    }[name]
    return _ratio(numerator, denominator)


def _reduce(chart, decrease):
    """`(value, count)`: the `(batch, class)` scores reduced by `decrease`, NaNs left out, and
    the number of values that counted."""
    valid = ~np.isnan(chart)
    chart = np.where(valid, chart, 0.0)
    valid = valid.astype(float)
    if decrease == "none":
        return chart, valid
    if decrease == "sum":
        return chart.sum(), valid.sum()
    if decrease in ("sum_batch", "sum_channel"):
        axis = 0 if decrease == "sum_batch" else 1
        return chart.sum(axis=axis), valid.sum(axis=axis)
    if decrease in ("mean_batch", "mean_channel"):
        axis = 0 if decrease == "mean_batch" else 1
        count = valid.sum(axis=axis)
        return np.where(count > 0, _ratio(chart.sum(axis=axis), count), 0.0), count
    per_sample_count = valid.sum(axis=1)
    per_sample = np.where(per_sample_count > 0, _ratio(chart.sum(axis=1), per_sample_count), 0.0)
    count = float((per_sample_count > 0).sum())
    return (per_sample.sum() / count if count > 0 else 0.0), count


class ConfusionMatrixMetric(Metric):
    """A rate from the confusion counts of one-hot (0/1) predictions and labels of shape
    `(N, C, ...)` (`update(y_pred, y)`).

    With `calculation_method=False` (default) the true/false positive/negative counts are summed
    over every sample, class, position and update, and `eval()` returns the rate of the totals
    (an array of one value). With `calculation_method=True` the rate is computed per sample and
    class, reduced by `decrease` over each batch ('mean': mean over classes then over samples,
    'sum': the sum), and `eval()` returns the running `sum(reduced * count) / sum(count)`
    where `count` is the number of defined (non-NaN) rates of each batch, as MindSpore does.

    Note: as in MindSpore 2.10, `skip_channel=False` drops channel 0 (when there are several)
    and `skip_channel=True` keeps every channel.

    Args:
        skip_channel (bool): see the note. Default: True.
        metric_name (str): one of 'sensitivity' (recall, hit_rate, tpr), 'specificity' (tnr),
            'precision' (ppv), 'negative_predictive_value', 'miss_rate', 'fall_out',
            'false_discovery_rate', 'false_omission_rate', 'prevalence_threshold',
            'threat_score', 'accuracy', 'balanced_accuracy', 'f1_score',
            'matthews_correlation_coefficient', 'fowlkes_mallows_index', 'informedness',
            'markedness' or another of their usual aliases. Default: 'sensitivity'.
        calculation_method (bool): per-sample rates. Default: False.
        decrease (str): 'none', 'mean', 'sum', 'mean_batch', 'sum_batch', 'mean_channel' or
            'sum_channel' (with `calculation_method`, each batch must reduce to one value).
            Default: 'mean'.

    Raises:
        TypeError: a wrong argument type.
        ValueError: an unknown `metric_name` or `decrease`; at `update`, labels that are not
            0/1, fewer than 2 dimensions, different shapes, a reduction to several values.
        RuntimeError: `eval` with `calculation_method` before any defined rate.
    """

    def __init__(self, skip_channel=True, metric_name="sensitivity", calculation_method=False,
                 decrease="mean"):
        super().__init__()
        owner = "ConfusionMatrixMetric"
        self.skip_channel = check_bool(skip_channel, "skip_channel", owner)
        self.calculation_method = check_bool(calculation_method, "calculation_method", owner)
        self.metric_name = check_type(metric_name, str, "metric_name", owner)
        self._rate_name = _canonical_name(metric_name)
        check_type(decrease, str, "decrease", owner)
        self.decrease = check_one_of(decrease, _DECREASES, "decrease", owner)
        self.clear()

    def clear(self):
        """Reset the totals."""
        self._total_num = 0
        self._class_num = 0
        self._totals = np.zeros(4)

    def _counts(self, y_pred, y):
        """`(batch, class, 4)` counts (tp, fp, tn, fn)."""
        owner = "ConfusionMatrixMetric.update"
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError(f"For '{owner}', the true value must be binary (0/1)")
        if y_pred.ndim < 2:
            raise ValueError(f"For '{owner}', the predicted value must have at least 2 "
                             f"dimensions, but got {y_pred.ndim}")
        if y_pred.shape != y.shape:
            raise ValueError(f"For '{owner}', the predicted value and the true value must have "
                             f"the same shape, but got {y_pred.shape} and {y.shape}")
        if not self.skip_channel and y.shape[1] > 1:
            y_pred, y = y_pred[:, 1:], y[:, 1:]
        batch, classes = y_pred.shape[:2]
        y_pred = y_pred.astype(float).reshape(batch, classes, -1)
        y = y.astype(float).reshape(batch, classes, -1)
        tp = ((y_pred + y) == 2).sum(axis=2).astype(float)
        tn = ((y_pred + y) == 0).sum(axis=2).astype(float)
        positives = y.sum(axis=2)
        negatives = y.shape[-1] - positives
        return np.stack([tp, negatives - tn, tn, positives - tp], axis=-1)

    @rearrange_inputs
    def update(self, *inputs):
        """Add the batch `(y_pred, y)`."""
        y_pred, y = self._arrays(inputs)
        counts = self._counts(y_pred, y)
        if not self.calculation_method:
            self._totals += counts.sum(axis=(0, 1))
            return
        with np.errstate(divide="ignore", invalid="ignore"):
            value, count = _reduce(_rate(self._rate_name, counts), self.decrease)
        value, count = np.asarray(value), np.asarray(count)
        if value.size != 1 or count.size != 1:
            raise ValueError(f"For 'ConfusionMatrixMetric.update', with calculation_method=True "
                             f"each batch must reduce to one value, but decrease "
                             f"{self.decrease!r} gave shape {value.shape}")
        count = int(count.item())
        self._total_num += value.item() * count
        self._class_num += count

    def eval(self):
        """The rate: an array of one value, or a float with `calculation_method`."""
        if self.calculation_method:
            if self._class_num == 0:
                raise RuntimeError("The 'ConfusionMatrixMetric' can not be calculated, because "
                                   "no defined rate was seen: call 'update' with a non-empty "
                                   "batch before 'eval'")
            return self._total_num / self._class_num
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.atleast_1d(_rate(self._rate_name, self._totals[None, :]))
