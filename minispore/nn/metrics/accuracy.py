"""`Accuracy`: the fraction of samples classified correctly."""
import numpy as np

from .metric import EvaluationBase, _labels, rearrange_inputs

__all__ = ["Accuracy"]


class Accuracy(EvaluationBase):
    """Accuracy over every `update` since the last `clear`.

    'classification': a sample counts as correct when the argmax over axis 1 of `y_pred`
    equals its label (class index, or one-hot); 'multilabel': when every one of its 0/1
    predictions equals its label.

    Args:
        eval_type (str): 'classification' (default) or 'multilabel'.

    Inputs (`update`):
        y_pred (Union[Tensor, list, numpy.ndarray]): scores `(N, C, ...)`, or 0/1 values of
            the labels' shape for 'multilabel'.
        y (Union[Tensor, list, numpy.ndarray]): class indices `(N, ...)` or one-hot `(N, C,
            ...)`.

    Raises:
        ValueError: not two inputs, shapes that do not match, non-0/1 multilabel values, a
            class count different from an earlier update.
        RuntimeError: `eval` before any sample was seen.

    Example:
        >>> m = Accuracy()
        >>> m.update(Tensor([[0.2, 0.5], [0.3, 0.1], [0.9, 0.1]]), Tensor([1, 0, 1]))
        >>> m.eval()
        0.6666666666666666
    """

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._correct_num = 0
        self._total_num = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch `(y_pred, y)`."""
        y_pred, y = self._arrays(inputs)
        if self._type == "classification":
            y = _labels(y_pred, y)
        self._check_pair(y_pred, y, self._class_num)
        class_num = y_pred.shape[1]
        if self._type == "classification":
            correct = (y_pred.argmax(axis=1) == y).reshape(-1)
        else:
            y_pred = np.moveaxis(y_pred, 1, -1).reshape(-1, class_num)
            y = np.moveaxis(y, 1, -1).reshape(-1, class_num)
            correct = (y_pred == y).all(axis=1)
        self._class_num = class_num
        self._correct_num += int(correct.sum())
        self._total_num += correct.shape[0]

    def eval(self):
        """The accuracy (a float)."""
        self._require_samples(self._total_num)
        return self._correct_num / self._total_num
