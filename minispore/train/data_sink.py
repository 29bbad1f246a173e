"""`data_sink`: a step function that feeds itself from a dataset, `sink_size` steps per call,
run as one loop on the host (MindSpore sinks the data to an Ascend/GPU device; the steps and
their results are the same)."""
import functools

from .._validator import check_callable, type_name
from .dataset_helper import _BatchStream, _check_dataset

__all__ = ["data_sink"]


def data_sink(fn, dataset, sink_size=1, jit_config=None, input_signature=None):
    """Wrap the step function `fn`: each call of the result runs `fn(*batch)` on the next
    `sink_size` batches of `dataset` (passes follow one another without end) and returns the
    last output.

    Args:
        fn (Callable): the step, called with one batch's columns.
        dataset (Dataset): the data.
        sink_size (int): steps per call, > 0. Default: 1.
        jit_config (JitConfig): MindSpore's graph-compilation options; accepted, unused (steps
            run eagerly). Default: None.
        input_signature (Union[Tensor, list, tuple]): MindSpore's dynamic-shape description of
            the inputs; accepted, unused. Default: None.

    Returns:
        Function, taking no data arguments.

    Raises:
        TypeError: `fn` not callable, `dataset` not a dataset, `sink_size` not an int.
        ValueError: `sink_size` <= 0.

    Example:
        >>> sink_step = data_sink(train_step, dataset, sink_size=4)
        >>> loss = sink_step()   # four steps, the fourth step's loss
    """
    owner = "data_sink"
    check_callable(fn, "fn", owner)
    _check_dataset(dataset, owner)
    if isinstance(sink_size, bool) or not isinstance(sink_size, int):
        raise TypeError(f"For '{owner}', the 'sink_size' must be an int, but got "
                        f"{type_name(sink_size)}")
    if sink_size <= 0:
        raise ValueError(f"The 'sink_size' must be positive, but got sink_size {sink_size}.")
    stream = []

    @functools.wraps(fn)
    def sink_process(*args, **kwargs):  # MindSpore ignores call arguments too
        if not stream:
            stream.append(_BatchStream(dataset))
        out = None
        for _ in range(sink_size):
            out = fn(*stream[0].next())
        return out

    return sink_process
