"""`Precision` and `Recall`, per class (classification) or per sample (multilabel)."""
import sys

import numpy as np

from .metric import EvaluationBase, _class_indices, _labels, rearrange_inputs

__all__ = ["Precision", "Recall"]

_EPS = sys.float_info.min  # keeps 0/0 at 0 without changing any other quotient


def _counts(owner, y_pred, y, class_num, eval_type):
    """(predicted positives, actual positives, true positives): per class for
    'classification' (one-hot argmax predictions), per sample for 'multilabel'."""
    if eval_type == "classification":
        y = _class_indices(owner, y, class_num).reshape(-1)
        pred = y_pred.argmax(axis=1).reshape(-1)
        predicted = np.bincount(pred, minlength=class_num).astype(np.float64)
        actual = np.bincount(y, minlength=class_num).astype(np.float64)
        true = np.bincount(y[pred == y], minlength=class_num).astype(np.float64)
        return predicted, actual, true
    # multilabel: rows are samples (every position of the non-class axes), columns classes
    y_pred = np.moveaxis(y_pred, 1, -1).reshape(-1, class_num).astype(np.float64)
    y = np.moveaxis(y, 1, -1).reshape(-1, class_num).astype(np.float64)
    return y_pred.sum(axis=1), y.sum(axis=1), (y * y_pred).sum(axis=1)


class _PrecisionRecall(EvaluationBase):
    """Shared state: classification sums counts per class; multilabel keeps one ratio per
    sample seen."""

    _denominator = None  # index into _counts: 0 = predicted positives, 1 = actual positives

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.eps = _EPS
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._class_num = 0
        if self._type == "multilabel":
            self._true_positives = np.empty(0)
            self._denominators = np.empty(0)
        else:
            self._true_positives = 0
            self._denominators = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch `(y_pred, y)`."""
        owner = type(self).__name__
        y_pred, y = self._arrays(inputs)
        if self._type == "classification":
            y = _labels(y_pred, y)
        self._check_pair(y_pred, y, self._class_num)
        class_num = y_pred.shape[1]
        counts = _counts(f"{owner}.update", y_pred, y, class_num, self._type)
        true, denominator = counts[2], counts[self._denominator]
        self._class_num = class_num
        if self._type == "multilabel":
            self._true_positives = np.concatenate((self._true_positives, true))
            self._denominators = np.concatenate((self._denominators, denominator))
        else:
            self._true_positives = self._true_positives + true
            self._denominators = self._denominators + denominator

    def eval(self, average=False):
        """Per class (classification) or per sample (multilabel) as a float64 ndarray; with
        `average=True`, their mean (a float).

        Raises:
            TypeError: `average` not a bool.
            RuntimeError: `eval` before `update`.
        """
        owner = type(self).__name__
        self._require_samples(self._class_num)
        if not isinstance(average, bool):
            raise TypeError(f"For '{owner}.eval', 'average' must be a bool, but got "
                            f"{type(average).__name__}")
        result = self._true_positives / (self._denominators + self.eps)
        return float(result.mean()) if average else result


class Precision(_PrecisionRecall):
    """Precision `TP / (TP + FP)`: per class for 'classification' (the prediction is the argmax
    over axis 1), per sample for 'multilabel' (0/1 predictions). A class never predicted has
    precision 0.

    Args:
        eval_type (str): 'classification' (default) or 'multilabel'.

    Raises:
        ValueError: not two inputs, mismatched shapes, labels outside [0, C), non-0/1
            multilabel values, a class count different from an earlier update.
        RuntimeError: `eval` before `update`.

    Example:
        >>> m = Precision()
        >>> m.update(Tensor([[0.2, 0.5], [0.3, 0.1], [0.9, 0.1]]), Tensor([1, 0, 1]))
        >>> m.eval()
        array([0.5, 1. ])
    """

    _denominator = 0


class Recall(_PrecisionRecall):
    """Recall `TP / (TP + FN)`: per class for 'classification' (the prediction is the argmax
    over axis 1), per sample for 'multilabel' (0/1 predictions). A class that never occurs has
    recall 0.

    Args:
        eval_type (str): 'classification' (default) or 'multilabel'.

    Raises:
        ValueError: not two inputs, mismatched shapes, labels outside [0, C), non-0/1
            multilabel values, a class count different from an earlier update.
        RuntimeError: `eval` before `update`.

    Example:
        >>> m = Recall()
        >>> m.update(Tensor([[0.2, 0.5], [0.3, 0.1], [0.9, 0.1]]), Tensor([1, 0, 1]))
        >>> m.eval()
        array([1. , 0.5])
    """

    _denominator = 1
