"""`ConfusionMatrix`: counts of (true class, predicted class) pairs."""
import numbers
import os

import numpy as np

from .metric import Metric, _class_indices, rearrange_inputs

__all__ = ["ConfusionMatrix"]

_NORMALIZE = ("no_norm", "target", "prediction", "all")


class ConfusionMatrix(Metric):
    """The `(num_classes, num_classes)` confusion matrix: row = true class, column = predicted
    class, summed over every update.

    Predictions are scores `(N, C, ...)` (their argmax over axis 1 is taken), class indices of
    the labels' shape, or floating-point probabilities of the labels' shape (binary: 1 where
    `>= threshold`).

    Args:
        num_classes (int): number of classes, > 0.
        normalize (str): 'no_norm' (counts, default), 'target' (each row sums to 1),
            'prediction' (each column sums to 1) or 'all' (the matrix sums to 1); an empty row or
            column normalises to zeros.
        threshold (float): cut-off for floating-point predictions of the labels' shape.
            Default: 0.5.

    Raises:
        TypeError: `num_classes` not an int, `threshold` not a number.
        ValueError: `num_classes` < 1, unknown `normalize`; at `update`: not two inputs,
            mismatched shapes, values outside [0, num_classes).
        RuntimeError: `eval` before `update`.

    Example:
        >>> m = ConfusionMatrix(2)
        >>> m.update(Tensor([0, 1, 1, 0]), Tensor([0, 1, 0, 0]))
        >>> m.eval()
        array([[2., 1.],
               [0., 1.]])
    """

    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        super().__init__()
        if isinstance(num_classes, bool) or not isinstance(num_classes, int):
            raise TypeError(f"For 'ConfusionMatrix', 'num_classes' must be an int, but got "
                            f"{type(num_classes).__name__}")
        if num_classes < 1:
            raise ValueError(f"For 'ConfusionMatrix', 'num_classes' must be positive, but got "
                             f"{num_classes}")
        if normalize not in _NORMALIZE:
            raise ValueError(f"For 'ConfusionMatrix', 'normalize' must be one of "
                             f"{list(_NORMALIZE)}, but got {normalize!r}")
        if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
            raise TypeError(f"For 'ConfusionMatrix', 'threshold' must be a float, but got "
                            f"{type(threshold).__name__}")
        self.num_classes = num_classes
        self.normalize = normalize
        self.threshold = threshold
        self.clear()

    def clear(self):
        """Reset the matrix to zeros."""
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch `(y_pred, y)`."""
        owner = "ConfusionMatrix.update"
        y_pred, y = self._arrays(inputs)
        if y_pred.ndim == y.ndim + 1:
            if y_pred.shape[1] == 0 or y_pred.shape[:1] + y_pred.shape[2:] != y.shape:
                raise ValueError(f"For '{owner}', scores y_pred must be y's shape with a class "
                                 f"axis 1 inserted, but got y_pred {y_pred.shape} and y "
                                 f"{y.shape}")
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.shape != y.shape:
            raise ValueError(f"For '{owner}', y_pred must have y's shape (or y's shape with a "
                             f"class axis 1), but got y_pred {y_pred.shape} and y {y.shape}")
        elif y_pred.dtype.kind == "f":
            y_pred = (y_pred >= self.threshold).astype(np.int64)
        n = self.num_classes
        y = _class_indices(owner, y.reshape(-1), n)
        y_pred = _class_indices(owner, y_pred.reshape(-1), n, "predictions")
        counts = np.bincount(y * n + y_pred, minlength=n * n).reshape(n, n)
        self.confusion_matrix = self.confusion_matrix + counts
        self._is_update = True

    def eval(self):
        """The matrix (float64 ndarray), normalised as `normalize` says."""
        if not self._is_update:
            raise RuntimeError("For 'ConfusionMatrix', call the 'update' method before the "
                               "'eval' method")
        matrix = self.confusion_matrix.astype(np.float64)
        if self.normalize == "no_norm":
            return matrix
        if self.normalize == "target":
            total = matrix.sum(axis=1, keepdims=True)
        elif self.normalize == "prediction":
            total = matrix.sum(axis=0, keepdims=True)
        else:
            total = matrix.sum()
        return np.divide(matrix, total, out=np.zeros_like(matrix), where=total != 0)

    def plot(self, path, class_names=None, title=None, cmap="Blues"):
        """Write a heat-map PNG of `eval()` to `path` (its directory is made if missing): rows
        are true classes, columns predicted ones, each cell labelled with its value. The figure
        is `max(4, 0.5 * num_classes + 2)` inches square at 100 dpi. Returns `path`. Needs
        matplotlib (`pip install 'minispore[plot]'`).

        Args:
            path (str): the PNG file.
            class_names (list[str]): one label per class; None: the class indices.
            title (str): None: 'Confusion matrix' with the normalisation.
            cmap (str): a matplotlib colour map. Default: 'Blues'.

        Raises:
            TypeError: `path` not a str, `class_names` not a list of str.
            ValueError: `class_names` not of `num_classes` entries.
            RuntimeError: `plot` before `update`.
            ImportError: matplotlib is not installed.
        """
        owner = "ConfusionMatrix.plot"
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"For '{owner}', 'path' must be a str, but got "
                            f"{type(path).__name__}")
        n = self.num_classes
        if class_names is None:
            class_names = [str(k) for k in range(n)]
        if not isinstance(class_names, (list, tuple)) or not all(
                isinstance(c, str) for c in class_names):
            raise TypeError(f"For '{owner}', 'class_names' must be a list of str, but got "
                            f"{class_names!r}")
        if len(class_names) != n:
            raise ValueError(f"For '{owner}', 'class_names' must have num_classes={n} entries, "
                             f"but got {len(class_names)}")
        matrix = self.eval()
        try:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure
        except ImportError:
            raise ImportError(f"{owner} draws with the 'matplotlib' package: pip install "
                              "'minispore[plot]' (or pip install matplotlib)") from None
        side = max(4.0, 0.5 * n + 2.0)
        figure = Figure(figsize=(side, side), dpi=100)
        FigureCanvasAgg(figure)
        axes = figure.add_subplot(1, 1, 1)
        image = axes.imshow(matrix, cmap=cmap, interpolation="nearest")
        figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04)
        long_names = n > 6 and max(len(c) for c in class_names) > 2
        axes.set_xticks(range(n), labels=class_names, rotation=45 if long_names else 0,
                        ha="right" if long_names else "center")
        axes.set_yticks(range(n), labels=class_names)
        axes.set_xlabel("predicted class")
        axes.set_ylabel("true class")
        norm = "" if self.normalize == "no_norm" else f" (normalised: {self.normalize})"
        axes.set_title(title if title is not None else f"Confusion matrix{norm}")
        if n <= 30:
            high = matrix.max() if matrix.size else 0.0
            integral = self.normalize == "no_norm"
            for (i, j), value in np.ndenumerate(matrix):
                text = f"{int(value)}" if integral else f"{value:.2f}"
                axes.text(j, i, text, ha="center", va="center", fontsize=8 if n > 12 else 10,
                          color="white" if high and value > 0.5 * high else "black")
        figure.tight_layout()
        folder = os.path.dirname(os.fspath(path))
        if folder:
            os.makedirs(folder, exist_ok=True)
        figure.savefig(path, format="png")
        return path
