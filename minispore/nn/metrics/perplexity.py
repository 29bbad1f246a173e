"""`Perplexity`: exp of the mean negative log-probability of the labels."""
import math

import numpy as np

from .metric import Metric, _class_indices, rearrange_inputs

__all__ = ["Perplexity"]


class Perplexity(Metric):
    """Perplexity `exp(-mean(log p[label]))` over every label seen (probabilities are clipped
    below at 1e-10).

    Args:
        ignore_label (int): a label value to leave out of the mean. Default: None.

    Inputs (`update`):
        preds: probabilities `(..., C)`; labels: class indices of shape `(...)` (any shape with
            one element per row of `preds`).

    Raises:
        TypeError: `ignore_label` not an int.
        ValueError: not two inputs, a label count other than the number of rows of `preds`,
            labels outside [0, C).
        RuntimeError: `eval` before any label was counted.

    Example:
        >>> m = Perplexity(ignore_label=None)
        >>> m.update(Tensor([[0.6, 0.5, 0.1], [0.3, 0.6, 0.05]]), Tensor([2, 1]))
        >>> m.eval()   # exp(-(log 0.1 + log 0.6) / 2)
    """

    def __init__(self, ignore_label=None):
        super().__init__()
        if ignore_label is not None and (isinstance(ignore_label, bool) or
                                         not isinstance(ignore_label, int)):
            raise TypeError(f"For 'Perplexity', 'ignore_label' must be an int or None, but got "
                            f"{type(ignore_label).__name__}")
        self.ignore_label = ignore_label
        self.clear()

    def clear(self):
        """Reset the sum and the count."""
        self._sum_metric = 0.0
        self._num_inst = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch `(preds, labels)`."""
        owner = "Perplexity.update"
        pred, label = self._arrays(inputs, ("predicted value", "label"))
        label = label.reshape(-1)
        if pred.ndim < 1 or pred.shape[-1] == 0 or label.size * pred.shape[-1] != pred.size:
            raise ValueError(f"For '{owner}', preds must be (..., C) with one row per label, but "
                             f"got preds {pred.shape} and {label.size} labels")
        pred = pred.reshape(-1, pred.shape[-1])
        keep = np.ones(label.shape, bool) if self.ignore_label is None else \
            label != self.ignore_label
        index = _class_indices(owner, label[keep], pred.shape[1])
        picked = pred[np.flatnonzero(keep), index].astype(np.float64)
        self._sum_metric -= float(np.sum(np.log(np.maximum(1e-10, picked))))
        self._num_inst += int(picked.size)

    def eval(self):
        """The perplexity (a float)."""
        self._require_samples(self._num_inst)
        return math.exp(self._sum_metric / self._num_inst)
