"""`Fbeta` and `F1`: the weighted harmonic mean of precision and recall, per class."""
import numbers

import numpy as np

from .metric import (Metric, _check_class_num, _check_classification_shapes,
                     _labels, rearrange_inputs)
from .precision import _EPS, _counts

__all__ = ["Fbeta", "F1"]


class Fbeta(Metric):
    """F-beta per class: `(1 + beta^2) TP / (beta^2 (TP + FN) + TP + FP)` summed over every
    update, with the argmax over axis 1 as the prediction. A class with no predictions and no
    samples scores 0.

    Args:
        beta (Union[float, int]): weight of recall relative to precision, > 0.

    Inputs (`update`):
        y_pred: scores `(N, C, ...)`; y: class indices `(N, ...)` or one-hot `(N, C, ...)`.

    Raises:
        TypeError: `beta` not a number.
        ValueError: `beta` <= 0; at `update`: not two inputs, mismatched shapes, labels outside
            [0, C), a class count different from an earlier update.
        RuntimeError: `eval` before `update`.

    Example:
        >>> m = Fbeta(0.5)
        >>> m.update(Tensor([[0.2, 0.5], [0.3, 0.1], [0.9, 0.1]]), Tensor([1, 0, 1]))
        >>> m.eval()
        array([0.55555556, 0.83333333])
    """

    def __init__(self, beta):
        super().__init__()
        name = type(self).__name__
        if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
            raise TypeError(f"For '{name}', 'beta' must be a number, but got "
                            f"{type(beta).__name__}")
        if not beta > 0:
            raise ValueError(f"For '{name}', 'beta' must be greater than 0, but got {beta}")
        self.eps = _EPS
        self.beta = beta
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._true_positives = 0
        self._actual_positives = 0
        self._positives = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch `(y_pred, y)`."""
        owner = f"{type(self).__name__}.update"
        y_pred, y = self._arrays(inputs)
        y = _labels(y_pred, y)
        if y_pred.ndim < 2 or y_pred.shape[1] == 0:
            raise ValueError(f"For '{owner}', the predicted value must have a non-empty class "
                             f"axis 1, but got shape {y_pred.shape}")
        _check_classification_shapes(owner, y_pred, y)
        _check_class_num(owner, self._class_num, y_pred.shape[1])
        class_num = y_pred.shape[1]
        positives, actual, true = _counts(owner, y_pred, y, class_num, "classification")
        self._class_num = class_num
        self._true_positives = self._true_positives + true
        self._positives = self._positives + positives
        self._actual_positives = self._actual_positives + actual

    def eval(self, average=False):
        """F-beta per class (float64 ndarray); with `average=True`, their mean (a float).

        Raises:
            TypeError: `average` not a bool.
            RuntimeError: `eval` before `update`.
        """
        name = type(self).__name__
        if not isinstance(average, bool):
            raise TypeError(f"For '{name}.eval', 'average' must be a bool, but got "
                            f"{type(average).__name__}")
        self._require_samples(self._class_num)
        b2 = self.beta ** 2
        fbeta = (1.0 + b2) * self._true_positives / (
            b2 * self._actual_positives + self._positives + self.eps)
        return float(np.mean(fbeta)) if average else fbeta


class F1(Fbeta):
    """F1 per class: `Fbeta` with beta = 1, the harmonic mean of precision and recall."""

    def __init__(self):
        super().__init__(1.0)
