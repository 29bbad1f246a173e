"""`LearningRateScheduler`: sets the optimizer's learning rate from a function after each
step."""
import math

import numpy as np

from ..._validator import check_callable
from ...common.tensor import Tensor
from ._callback import Callback, _fixed_learning_rate

__all__ = ["LearningRateScheduler"]


class LearningRateScheduler(Callback):
    """After each training step, sets the optimizer's learning rate to
    `learning_rate_function(lr, cur_step_num)` (the current rate as a float and the global step
    count), when it differs from the current rate.

    Only a fixed learning rate (a scalar Parameter) can be changed, as in MindSpore.

    Args:
        learning_rate_function (callable): `(lr, cur_step_num) -> new lr`.

    Example:
        >>> def decay(lr, cur_step_num):
        ...     return lr * 0.1 if cur_step_num % 1000 == 0 else lr
        >>> model.train(1, dataset, callbacks=[LearningRateScheduler(decay)])

    Raises:
        TypeError: `learning_rate_function` not callable; during training, a function that does
            not return a number.
        ValueError: during training, an optimizer whose learning rate is dynamic or per group.
    """

    def __init__(self, learning_rate_function):
        super().__init__()
        self.learning_rate_function = check_callable(learning_rate_function,
                                                     "learning_rate_function",
                                                     "LearningRateScheduler")

    def step_end(self, run_context):
        """Apply the function to the current rate."""
        cb_params = run_context.original_args()
        lr = _fixed_learning_rate("LearningRateScheduler", cb_params.get("optimizer"))
        # MindSpore reads the rate through its printed form (8 significant digits); the
        # float32 value itself is used here.
        old = float(lr.asnumpy().reshape(()))
        new = self.learning_rate_function(old, cb_params.cur_step_num)
        if isinstance(new, Tensor):
            new = new.asnumpy()
        try:
            new = float(new)
        except (TypeError, ValueError):
            raise TypeError(f"For 'LearningRateScheduler', 'learning_rate_function' must return "
                            f"a number, but got {type(new).__name__}") from None
        if not math.isclose(old, new, rel_tol=1e-10):
            lr.assign_value(Tensor(np.full(lr.shape, new, np.float32)))
