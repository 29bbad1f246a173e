"""Datasets for the Model and callback tests: a minimal double with MindSpore's dataset
interface (`create_tuple_iterator`, `get_dataset_size`, `get_batch_size`), and `batches(x, y,
batch_size)`, a `minispore.dataset.NumpySlicesDataset` in batches."""
import numpy as np

from minispore import Tensor


class _Iterator:
    """MindSpore's iterator protocol: each `for` over it is one epoch (ending with
    StopIteration), `num_epochs` of them."""

    def __init__(self, dataset, num_epochs, output_numpy):
        self._dataset, self._left, self._numpy = dataset, num_epochs, output_numpy
        self._rows = None

    def __iter__(self):
        return self

    def __next__(self):
        if self._rows is None:
            if self._left == 0:
                raise RuntimeError("every epoch of this iterator has been read")
            self._left -= 1
            self._rows = self._dataset._rows(self._numpy)
        try:
            return next(self._rows)
        except StopIteration:
            self._rows = None
            raise

    def stop(self):
        self._dataset.stopped += 1
        self._rows = None


class ArrayDataset:
    """Rows of `columns` (arrays of one length) in batches, in order; counts the iterators
    made and the passes stopped early."""

    def __init__(self, *columns, batch_size=1, as_numpy=False):
        self.columns = columns
        self.batch_size = batch_size
        self.as_numpy = as_numpy
        self.iterators = []
        self.stopped = 0

    def get_dataset_size(self):
        return -(-len(self.columns[0]) // self.batch_size)

    def get_batch_size(self):
        return self.batch_size

    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=False):
        self.iterators.append(num_epochs)
        return _Iterator(self, num_epochs, output_numpy)

    def _rows(self, output_numpy):
        for start in range(0, len(self.columns[0]), self.batch_size):
            row = [c[start:start + self.batch_size] for c in self.columns]
            yield row if self.as_numpy or output_numpy else [Tensor(a) for a in row]


def batches(x, y, batch_size, shuffle=False):
    """(x, y) as a NumpySlicesDataset in batches of `batch_size`."""
    from minispore.dataset import NumpySlicesDataset
    return NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=shuffle).batch(batch_size)


def blobs(n=64, seed=0):
    """A separable 2-class problem: 4 features, label = sign of a fixed projection."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5, 1.5]) > 0).astype(np.int32)
    return x, y
