"""`Loss`: the mean of the per-batch losses."""

from .metric import Metric, rearrange_inputs

__all__ = ["Loss"]


class Loss(Metric):
    """The average over `update` calls of each batch's mean loss (every batch weighs the same,
    whatever its size).

    Inputs (`update`):
        loss (Union[Tensor, list, numpy.ndarray]): a scalar or a 1-D array of losses.

    Raises:
        ValueError: not one input, or an input with more than one dimension.
        RuntimeError: `eval` before `update`.

    Example:
        >>> m = Loss()
        >>> m.update(Tensor(0.5)); m.update(Tensor([0.1, 0.2]))
        >>> m.eval()
        0.32500000298023224
    """

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        """Reset the sum and the count."""
        self._sum_loss = 0.0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add one batch's loss."""
        (loss,) = self._arrays(inputs, ("loss",))
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the loss must be a scalar or 1-D, but got "
                             f"shape {loss.shape}")
        if loss.size == 0:
            raise ValueError("For 'Loss.update', the loss must not be empty")
        # The batch mean in the loss's own precision (as MindSpore takes it), summed in float64.
        self._sum_loss += float(loss.mean(-1))
        self._total_num += 1

    def eval(self):
        """The mean loss (a float)."""
        self._require_samples(self._total_num)
        return self._sum_loss / self._total_num
