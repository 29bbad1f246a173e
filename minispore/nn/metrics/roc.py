"""`ROC` (the receiver operating characteristic curve, binary or one-vs-rest) and `auc` (the
area under a curve by the trapezoidal rule)."""
import numpy as np

from ..._validator import type_name
from .metric import Metric, rearrange_inputs

__all__ = ["ROC", "auc"]


def _optional_int(value, arg):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(f"For 'ROC', the '{arg}' must be None or an int, but got "
                        f"{type_name(value)}")
    return value


def _curve_inputs(y_pred, y, class_num, pos_label):
    """Flattened `(y_pred, y)` with the resolved `class_num` and `pos_label`: scores of the
    labels' shape are one binary problem (`pos_label` 1 by default); scores with an extra class
    axis 1 are `class_num` one-vs-rest problems."""
    if y_pred.ndim == y.ndim:
        if class_num is not None and class_num != 1:
            raise ValueError(f"For 'ROC', when the predicted value and the true value have the "
                             f"same number of dimensions, 'class_num' must be 1, but got "
                             f"{class_num}")
        return y_pred.reshape(-1), y.reshape(-1), 1, 1 if pos_label is None else pos_label
    if y_pred.ndim == y.ndim + 1:
        if pos_label is not None:
            raise ValueError(f"For 'ROC', with a class axis in the predicted value (one more "
                             f"dimension than the true value) 'pos_label' must be None, but got "
                             f"{pos_label}")
        if class_num != y_pred.shape[1]:
            raise ValueError(f"For 'ROC', 'class_num' must equal the number of classes of the "
                             f"predicted value, but got 'class_num' {class_num} and "
                             f"{y_pred.shape[1]} classes")
        scores = np.moveaxis(y_pred, 1, -1).reshape(-1, class_num)
        return scores, y.reshape(-1), class_num, pos_label
    raise ValueError(f"For 'ROC', the predicted value must have the true value's number of "
                     f"dimensions or one more, but got {y_pred.ndim} and {y.ndim}")


def _binary_curve(scores, target, pos_label):
    """False and true positive counts at each distinct score (descending), and those scores."""
    order = np.argsort(-scores, kind="stable")
    scores = scores[order]
    positive = (target[order] == pos_label).astype(np.int64)
    ends = np.append(np.flatnonzero(np.diff(scores)), scores.shape[0] - 1)
    tps = np.cumsum(positive)[ends]
    fps = ends + 1 - tps
    return fps, tps, scores[ends]


def _roc_one(scores, target, pos_label):
    fps, tps, thresholds = _binary_curve(scores, target, pos_label)
    fps = np.concatenate([[0], fps])
    tps = np.concatenate([[0], tps])
    thresholds = np.concatenate([thresholds[:1] + 1, thresholds])
    if fps[-1] <= 0:
        raise ValueError("For 'ROC.eval', the true value has no negative samples: the false "
                         "positive rate is undefined")
    if tps[-1] <= 0:
        raise ValueError("For 'ROC.eval', the true value has no positive samples: the true "
                         "positive rate is undefined")
    return fps / fps[-1], tps / tps[-1], thresholds


class ROC(Metric):
    """The ROC curve of the last `update(y_pred, y)`: `eval()` returns `(fpr, tpr, thresholds)`,
    NumPy arrays over the distinct scores in descending order (the first threshold is the top
    score + 1, where both rates are 0).

    Scores of the labels' shape make one binary problem, positive where `y == pos_label`
    (default 1). Scores `(N, C, ...)` with labels `(N, ...)` make `C` one-vs-rest problems
    (`class_num` must be `C`, `pos_label` None); each of the three results is then a list of
    `C` arrays. (MindSpore 2.10 reshapes `(N, C)` scores to `(C, N)` instead of transposing
    them, so its multiclass curves score scrambled columns against the first C labels; the
    curves here are the one-vs-rest curves its documentation describes.)

    Args:
        class_num (int): the number of classes (1 or None for a binary problem). Default: None.
        pos_label (int): the positive label of a binary problem. Default: None (1).

    Raises:
        TypeError: `class_num` or `pos_label` not None or int.
        ValueError: at `update`, mismatched shapes or arguments; at `eval`, no negative or no
            positive sample.
        RuntimeError: `eval` before `update`.
    """

    def __init__(self, class_num=None, pos_label=None):
        super().__init__()
        self.class_num = _optional_int(class_num, "class_num")
        self.pos_label = _optional_int(pos_label, "pos_label")
        self.clear()

    def clear(self):
        """Forget the last update."""
        self.y_pred = 0
        self.y = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        """Replace the data with the batch `(y_pred, y)`."""
        y_pred, y = self._arrays(inputs)
        self.y_pred, self.y, self.class_num, self.pos_label = _curve_inputs(
            y_pred, y, self.class_num, self.pos_label)
        self._is_update = True

    def eval(self):
        """`(fpr, tpr, thresholds)`: arrays, or lists of arrays per class."""
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        y_pred, y = np.squeeze(self.y_pred), np.squeeze(self.y)
        if self.class_num == 1:
            if y_pred.ndim > y.ndim:
                y_pred = y_pred[:, 0]
            return _roc_one(y_pred.reshape(-1), y.reshape(-1), self.pos_label)
        curves = [_roc_one(y_pred[:, c], y, c) for c in range(self.class_num)]
        return tuple(list(part) for part in zip(*curves))


def _as_curve_axis(a, name):
    if a.ndim == 1 or (a.ndim == 2 and a.shape[1] == 1):
        return a.reshape(-1)
    raise ValueError(f"For 'auc', '{name}' must be 1-d or of shape (N, 1), but got shape "
                     f"{a.shape}")


def auc(x, y, reorder=False):
    """The area under the curve through the points `(x[i], y[i])` by the trapezoidal rule
    (`auc(fpr, tpr)` is the ROC AUC).

    Args:
        x (numpy.ndarray): the abscissae, `(N,)` or `(N, 1)`, N >= 2; monotonic unless
            `reorder`.
        y (numpy.ndarray): the ordinates, same length.
        reorder (bool): sort the points by x (then y) first. Default: False.

    Returns:
        float, the area (positive for a decreasing `x` too).

    Raises:
        TypeError: `x` or `y` not a numpy.ndarray, or 0-d.
        ValueError: lengths differ, fewer than 2 points, a bad shape, a non-monotonic `x`
            without `reorder`.
    """
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"For 'auc', 'x' and 'y' must both be numpy.ndarray, but got "
                        f"{type_name(x)} and {type_name(y)}")
    if x.ndim == 0 or y.ndim == 0:
        raise TypeError("For 'auc', 'x' and 'y' must be arrays of points, but got a 0-d array")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"For 'auc', 'x' and 'y' must have the same number of points, but got "
                         f"{x.shape[0]} and {y.shape[0]}")
    x, y = _as_curve_axis(x, "x"), _as_curve_axis(y, "y")
    if x.shape[0] < 2:
        raise ValueError(f"For 'auc', at least 2 points are needed, but got {x.shape[0]}")
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        steps = np.diff(x)
        if np.any(steps < 0):
            if not np.all(steps <= 0):
                raise ValueError(f"For 'auc', without 'reorder' 'x' must be increasing or "
                                 f"decreasing, but got {x}")
            direction = -1
    widths = np.diff(x)
    return direction * np.sum(widths * (y[1:] + y[:-1]) / 2.0)
