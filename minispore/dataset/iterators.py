"""Iterators over a pipeline: rows as lists (`TupleIterator`) or dicts (`DictIterator`) of
Tensors or NumPy arrays, for a bounded or unbounded number of epochs."""
from .._validator import check_bool, check_int
from ..common.tensor import Tensor, from_numpy
from . import config

__all__ = ["DictIterator", "TupleIterator"]


class _Iterator:
    _owner = "create_tuple_iterator"

    def __init__(self, dataset, num_epochs=-1, output_numpy=False, do_copy=False):
        num_epochs = check_int(num_epochs, "num_epochs", self._owner)
        if num_epochs == 0 or num_epochs < -1:
            raise ValueError(f"For '{self._owner}', the 'num_epochs' must be -1 or positive, but "
                             f"got {num_epochs}")
        self._dataset = dataset
        self._num_epochs = num_epochs
        self._output_numpy = check_bool(output_numpy, "output_numpy", self._owner)
        self._do_copy = check_bool(do_copy, "do_copy", self._owner)
        self._names = dataset.get_col_names()
        # One base seed per iterator: a new iterator replays the same epochs (given a seed),
        # while the epochs of one iterator differ.
        self._base = config._pass_seed()
        self._epoch = 0
        self._rows = None
        self._skip = 0
        init_step = dataset.get_init_step()
        if init_step:
            size = dataset.get_dataset_size()
            self._epoch, self._skip = divmod(init_step, size) if size else (0, 0)

    def __iter__(self):
        return self

    def __next__(self):
        if self._rows is None:
            if self._num_epochs != -1 and self._epoch >= self._num_epochs:
                raise RuntimeError(
                    f"For '{self._owner}', all {self._num_epochs} epoch(s) of this iterator "
                    f"have been read: create it with a larger 'num_epochs' (or -1), or create a "
                    f"new iterator")
            p = self._dataset._new_pass(self._epoch, self._base)
            self._rows = self._dataset._rows(p)
            for _ in range(self._skip):
                if next(self._rows, None) is None:
                    break
            self._skip = 0
        try:
            row = next(self._rows)
        except BaseException:
            # The epoch is over, normally (StopIteration) or by an error: the next call starts
            # the next epoch.
            self._rows = None
            self._epoch += 1
            raise
        return self._convert(row)

    def _column(self, arr):
        if self._output_numpy or arr.dtype.kind in "US":
            return arr
        return Tensor(arr) if self._do_copy else from_numpy(arr)

    def stop(self):
        """End the current epoch early and release its resources (worker threads)."""
        if self._rows is not None:
            self._rows.close()
            self._rows = None
            self._epoch += 1


class TupleIterator(_Iterator):
    """Yields each row as a list of Tensors (NumPy arrays with `output_numpy=True`)."""

    def _convert(self, row):
        return [self._column(a) for a in row]


class DictIterator(_Iterator):
    """Yields each row as a dict {column name: Tensor (or NumPy array)}."""

    _owner = "create_dict_iterator"

    def _convert(self, row):
        return {name: self._column(a) for name, a in zip(self._names, row)}
