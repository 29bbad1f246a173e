"""Regression metrics: `MAE` (mean absolute error) and `MSE` (mean squared error)."""
import numpy as np

from .metric import Metric, rearrange_inputs

__all__ = ["MAE", "MSE"]


class _ErrorMetric(Metric):
    """Sum of a per-element error over every update, divided by the number of samples (the
    first axis of `y`): per sample, the error is summed over its other axes."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        """Reset the sum and the count."""
        self._error_sum = 0.0
        self._samples_num = 0

    def _error(self, diff):
        raise NotImplementedError

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch `(y_pred, y)`; `y` may have any shape of `y_pred`'s size."""
        owner = type(self).__name__
        y_pred, y = self._arrays(inputs)
        if y.ndim == 0 or y.size != y_pred.size:
            raise ValueError(f"For '{owner}.update', y must have at least one dimension and as "
                             f"many elements as y_pred, but got y_pred {y_pred.shape} and y "
                             f"{y.shape}")
        error = self._error(y.reshape(y_pred.shape) - y_pred)
        self._error_sum += float(np.sum(error, dtype=np.float64))
        self._samples_num += y.shape[0]

    def eval(self):
        """The error per sample (a float)."""
        self._require_samples(self._samples_num)
        return self._error_sum / self._samples_num


class MAE(_ErrorMetric):
    """Mean absolute error: `sum(|y - y_pred|) / N`, N the number of samples (first axis of
    `y`) over every update.

    Example:
        >>> m = MAE()
        >>> m.update(Tensor([0.1, 0.2, 0.6, 0.9]), Tensor([0.1, 0.25, 0.7, 0.9]))
        >>> m.eval()   # 0.0375, up to float32 rounding
    """

    def _error(self, diff):
        return np.abs(diff)


class MSE(_ErrorMetric):
    """Mean squared error: `sum((y - y_pred) ** 2) / N`, N the number of samples (first axis
    of `y`) over every update.

    Example:
        >>> m = MSE()
        >>> m.update(Tensor([0.1, 0.2, 0.6, 0.9]), Tensor([0.1, 0.25, 0.7, 0.9]))
        >>> m.eval()   # 0.003125, up to float32 rounding
    """

    def _error(self, diff):
        return np.square(diff)
