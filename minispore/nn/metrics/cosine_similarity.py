"""CosineSimilarity: the similarity matrix of a batch of row vectors."""
import numpy as np

from ..._validator import check_bool, check_one_of, check_type
from .metric import Metric, rearrange_inputs


class CosineSimilarity(Metric):
    """The metric `mindspore.nn.CosineSimilarity`: `update(inputs)` takes an (N, D) matrix and
    `eval()` returns the (N, N) NumPy matrix of row similarities ('cosine' or 'dot'), the
    diagonal zeroed when `zero_diagonal`, reduced over the last axis by `reduction` ('none',
    'sum', 'mean'). Like MindSpore, each `update` replaces the previous one."""

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        super().__init__()
        owner = "CosineSimilarity"
        self.similarity = check_one_of(check_type(similarity, str, "similarity", owner),
                                       ("dot", "cosine"), "similarity", owner)
        self.reduction = check_one_of(check_type(reduction, str, "reduction", owner),
                                      ("none", "sum", "mean"), "reduction", owner)
        self.zero_diagonal = check_bool(zero_diagonal, "zero_diagonal", owner)
        self.clear()

    def clear(self):
        """Forget the last update."""
        self.sqr_mtx_res = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, inputs):
        """Compute the similarity matrix of the rows of `inputs` (Tensor, list or ndarray)."""
        data = self._convert_data(inputs)
        if self.similarity == "cosine":
            data = data / np.expand_dims(np.linalg.norm(data, ord=2, axis=1), 1)
        self.sqr_mtx_res = np.dot(data, data.T)
        self._is_update = True

    def eval(self):
        """The similarity matrix (reduced per row for 'sum' and 'mean')."""
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        res = self.sqr_mtx_res
        if self.zero_diagonal:
            np.fill_diagonal(res, 0)
        if self.reduction == "mean":
            res = np.mean(res, axis=-1)
        elif self.reduction == "sum":
            res = np.sum(res, axis=-1)
        self.sqr_mtx_res = res
        return res
