"""Gradient accumulation: MindSpore's GradAccumulationCell (micro-batches of one call) and
GradAccumulator, a minispore helper that accumulates gradients across calls."""
import numpy as np

from ..._validator import check_bool, check_positive_int, check_type
from ...common.tensor import Tensor, from_numpy
from ...ops.operations import array_ops as A
from ..cell import Cell
from ..optim.optimizer import check_gradients
from .cell_wrapper import _check_optimizer

__all__ = ["GradAccumulationCell", "GradAccumulator"]


class GradAccumulationCell(Cell):
    """Splits every Tensor input along axis 0 into `micro_size` equal micro-batches, runs the
    network on each and returns the *sum* of the outputs (MindSpore's semantics: with a
    mean-reduced loss the result, and its gradients, are `micro_size` times the full batch's).

    Args:
        network (Cell): the network with its loss.
        micro_size (int): number of micro-batches, > 0.
    """

    def __init__(self, network, micro_size):
        super().__init__(auto_prefix=False)
        owner = type(self).__name__
        self.network = check_type(network, Cell, "network", owner)
        self.micro_size = check_positive_int(micro_size, "micro_size", owner)

    def _micro_batch(self, i, inputs):
        out = []
        for x in inputs:
            if not isinstance(x, Tensor):
                out.append(x)
                continue
            if x.ndim == 0 or x.shape[0] % self.micro_size:
                raise ValueError(f"For '{type(self).__name__}', axis 0 of every input must be "
                                 f"divisible by micro_size {self.micro_size}, but got an input "
                                 f"of shape {x.shape}")
            size = x.shape[0] // self.micro_size
            out.append(A.getitem(x, slice(i * size, (i + 1) * size)))
        return out

    def construct(self, *inputs):
        total = None
        for i in range(self.micro_size):
            out = self.network(*self._micro_batch(i, inputs))
            total = out if total is None else total + out
        return total


class GradAccumulator:
    """Accumulates gradients over `accumulation_steps` calls and then updates once.

    Each call adds `grads` (ordered like `optimizer.parameters`) into buffers the accumulator
    owns, in place (no allocation per step). Every `accumulation_steps`-th call passes the
    accumulated gradients to `optimizer`, divided by `accumulation_steps` when `mean` is True,
    and clears the buffers. With a mean-reduced loss over equal micro-batches, `mean=True`
    gives the parameters of one update on the k-times larger batch.

    This is a minispore helper: MindSpore 2.10's `nn.GradAccumulationCell` splits the batch of
    a single call for pipeline parallelism instead.

    Args:
        optimizer (Cell): the optimizer to apply the accumulated gradients with.
        accumulation_steps (int): micro-batches per update, > 0.
        mean (bool): average rather than sum the micro-batch gradients. Default: True.

    Example:
        >>> grad_fn = ms.value_and_grad(net_with_loss, None, optimizer.parameters)
        >>> accumulator = nn.GradAccumulator(optimizer, 4)
        >>> for data, label in micro_batches:
        ...     loss, grads = grad_fn(data, label)
        ...     accumulator(grads)    # updates on every 4th call
    """

    def __init__(self, optimizer, accumulation_steps, mean=True):
        owner = type(self).__name__
        self.optimizer = _check_optimizer(owner, optimizer)
        self.accumulation_steps = check_positive_int(accumulation_steps, "accumulation_steps",
                                                     owner)
        self.mean = check_bool(mean, "mean", owner)
        self._params = tuple(optimizer.parameters)
        # Two buffer sets: a call writes sum + grads into the spare set and only then swaps it
        # in, so a call that raises (bad gradients, a failing optimizer) changes nothing.
        self._sums, self._spare = ([np.zeros(p._data.shape, p._data.dtype)
                                    for p in optimizer.parameters] for _ in range(2))
        self._spare_grads = tuple(from_numpy(b) for b in self._spare)  # views of _spare
        self._sum_grads = tuple(from_numpy(b) for b in self._sums)
        self.pending = 0  # micro-batches summed since the last update

    def __call__(self, grads):
        """Add one micro-batch's gradients; returns True when this call updated the
        parameters."""
        arrays = check_gradients(grads, self._params, type(self).__name__, "grads")
        for total, spare, g in zip(self._sums, self._spare, arrays):
            np.add(total, g, out=spare)
        if self.pending + 1 < self.accumulation_steps:
            self._sums, self._spare = self._spare, self._sums
            self._sum_grads, self._spare_grads = self._spare_grads, self._sum_grads
            self.pending += 1
            return False
        if self.mean:
            for spare in self._spare:
                np.divide(spare, self.accumulation_steps, out=spare)
        self.optimizer(self._spare_grads)
        self.reset()
        return True

    def reset(self):
        """Drop the gradients accumulated since the last update."""
        for total in self._sums:
            total.fill(0)
        self.pending = 0
