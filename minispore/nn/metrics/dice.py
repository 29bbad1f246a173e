"""`Dice`: the Dice coefficient of predictions and labels."""
import numpy as np

from ..._validator import check_positive_float
from .metric import Metric, rearrange_inputs

__all__ = ["Dice"]


class Dice(Metric):
    """The Dice coefficient `2 <p, t> / (<p, p> + <t, t> + smooth)` of each `update(y_pred, y)`
    batch (flattened), summed over updates and divided by the number of samples seen (the sum
    of the batches' first dimensions), as MindSpore does.

    Args:
        smooth (float): added to the denominator, > 0. Default: 1e-5.

    Raises:
        TypeError: `smooth` not a float.
        ValueError: `smooth` <= 0; at `update`, not two inputs or different shapes.
        RuntimeError: `eval` with no sample.
    """

    def __init__(self, smooth=1e-5):
        super().__init__()
        self.smooth = check_positive_float(smooth, "smooth", "Dice", allow_int=False)
        self.clear()

    def clear(self):
        """Reset the sums."""
        self._dice_coeff_sum = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add the batch `(y_pred, y)`, both of shape `(N, ...)`."""
        y_pred, y = self._arrays(inputs)
        if y_pred.shape != y.shape:
            raise ValueError(f"For 'Dice.update', the predicted value and the true value must "
                             f"have the same shape, but got {y_pred.shape} and {y.shape}")
        p, t = y_pred.reshape(-1), y.reshape(-1)
        union = float(np.dot(p, p) + np.dot(t, t))
        self._dice_coeff_sum += 2 * float(np.dot(p, t)) / (union + self.smooth)
        self._samples_num += y.shape[0]

    def eval(self):
        """The summed coefficients over the number of samples."""
        self._require_samples(self._samples_num)
        return self._dice_coeff_sum / float(self._samples_num)
