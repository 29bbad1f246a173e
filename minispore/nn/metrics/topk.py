"""Top-k categorical accuracy: `TopKCategoricalAccuracy(k)`, `Top1CategoricalAccuracy`,
`Top5CategoricalAccuracy`."""
import numpy as np

from .metric import Metric, _labels, rearrange_inputs

__all__ = ["TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy"]


class TopKCategoricalAccuracy(Metric):
    """The fraction of samples whose label is among the `k` highest scores.

    Ties are ranked by class index (a stable sort of the scores, descending), so with equal
    scores the lower class index counts as the higher one; NaN scores rank last.

    Args:
        k (int): how many of the top scores count, >= 1.

    Inputs (`update`):
        y_pred: scores `(N, C)`; y: class indices `(N,)` or one-hot `(N, C)`. A label that is
            not a class index simply never matches.

    Raises:
        TypeError: `k` not an int.
        ValueError: `k` < 1; at `update`: not two inputs, shapes other than `(N, C)` and
            `(N,)`.
        RuntimeError: `eval` before any sample was seen.

    Example:
        >>> m = TopKCategoricalAccuracy(2)
        >>> m.update(Tensor([[0.2, 0.5, 0.3], [0.3, 0.1, 0.6]]), Tensor([0, 1]))
        >>> m.eval()
        0.5
    """

    def __init__(self, k):
        super().__init__()
        name = type(self).__name__
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"For '{name}', 'k' must be an int, but got {type(k).__name__}")
        if k < 1:
            raise ValueError(f"For '{name}', 'k' must be at least 1, but got {k}")
        self.k = k
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch `(y_pred, y)`."""
        name = type(self).__name__
        y_pred, y = self._arrays(inputs)
        y = _labels(y_pred, y)
        if y_pred.ndim != 2 or y.shape != (y_pred.shape[0],):
            raise ValueError(f"For '{name}.update', y_pred must be (N, C) and y (N,) or one-hot "
                             f"(N, C), but got y_pred {y_pred.shape} and y {y.shape}")
        scores = y_pred if y_pred.dtype.kind == "f" else y_pred.astype(np.float64)
        top = np.argsort(-scores, axis=1, kind="stable")[:, :self.k]
        correct = (top == y.reshape(-1, 1)).any(axis=1)
        self._correct_num += int(correct.sum())
        self._samples_num += y_pred.shape[0]

    def eval(self):
        """The top-k accuracy (a float)."""
        self._require_samples(self._samples_num)
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """`TopKCategoricalAccuracy(1)`: the argmax accuracy."""

    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """`TopKCategoricalAccuracy(5)`."""

    def __init__(self):
        super().__init__(5)
