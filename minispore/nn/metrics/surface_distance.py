"""Distances between the surfaces of two segmentations: `HausdorffDistance`,
`MeanSurfaceDistance` and `RootMeanSquareDistance` (SciPy's distance transforms; install
`minispore[metrics]`)."""
import numbers

import numpy as np

from ..._validator import check_bool, check_one_of, check_type, type_name
from .metric import Metric, rearrange_inputs

__all__ = ["HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]

_DISTANCES = ("euclidean", "chessboard", "taxicab")


def _ndimage():
    try:
        from scipy import ndimage
    except ImportError as err:
        raise ImportError("The surface-distance metrics need SciPy: pip install "
                          "'minispore[metrics]' (or pip install scipy)") from err
    return ndimage


def _check_distance(distance_metric, owner):
    check_type(distance_metric, str, "distance_metric", owner)
    return check_one_of(distance_metric, _DISTANCES, "distance_metric", owner)


def _edges(mask):
    """The boundary of a binary mask: the mask minus its erosion (cross structuring element)."""
    return _ndimage().binary_erosion(mask) ^ mask


def _surface_distances(from_edges, to_edges, distance_metric):
    """The distance of every point of `from_edges` to the nearest point of `to_edges` (inf
    when `to_edges` is empty; an empty array when `from_edges` is)."""
    if not np.any(from_edges):
        return np.array([])
    if not np.any(to_edges):
        return np.full(int(np.count_nonzero(from_edges)), np.inf)
    ndimage = _ndimage()
    if distance_metric == "euclidean":
        dist = ndimage.distance_transform_edt(~to_edges)
    else:
        dist = ndimage.distance_transform_cdt(~to_edges, metric=distance_metric)
    return dist[from_edges]


class _SurfaceMetric(Metric):
    """`update(y_pred, y, label_idx)`: the masks `y_pred == label_idx` and `y == label_idx`."""

    _label_error = ValueError

    def clear(self):
        """Forget the last update."""
        self._y_pred_edges = 0
        self._y_edges = 0
        self._is_update = False

    def _masks(self, inputs):
        owner = f"{type(self).__name__}.update"
        if len(inputs) != 3:
            raise ValueError(f"For '{owner}', it needs 3 inputs (predicted value, true value, "
                             f"label index), but got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        label_idx = inputs[2]
        if isinstance(label_idx, bool) or not isinstance(label_idx, numbers.Real):
            raise self._label_error(f"For '{owner}', the label index (input[2]) must be an int "
                                    f"or float, but got {type_name(label_idx)}")
        if label_idx not in y_pred and label_idx not in y:
            raise ValueError(f"For '{owner}', the label index (input[2]) must occur in the "
                             f"predicted value or the true value, but {label_idx} does not")
        if y_pred.size == 0 or y_pred.shape != y.shape:
            raise ValueError(f"For '{owner}', the predicted value and the true value must be "
                             f"non-empty and of the same shape, but got {y_pred.shape} and "
                             f"{y.shape}")
        return y_pred == label_idx, y == label_idx

    def _require_update(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")


class HausdorffDistance(_SurfaceMetric):
    """The Hausdorff distance between the boundaries of `y_pred == label_idx` and
    `y == label_idx` (`update(y_pred, y, label_idx)`; each update replaces the last):
    `max(h(pred, true), h(true, pred))` where `h(A, B)` is the largest distance from a boundary
    point of A to the boundary of B (or its `percentile`).

    Args:
        distance_metric (str): 'euclidean', 'chessboard' or 'taxicab'. Default: 'euclidean'.
        percentile (float): a percentile in [0, 100] of the distances instead of their maximum
            (0 or None: the maximum). Default: None.
        directed (bool): only `h(pred, true)`. Default: False.
        crop (bool): crop both masks to the bounding box of their union first (size-1 axes of
            the box are then dropped, as MindSpore does). Default: True.

    Raises:
        TypeError: a wrong argument type.
        ValueError: an unknown `distance_metric`; at `update`, a bad label or shapes; at
            `eval`, a percentile outside [0, 100].
        RuntimeError: `eval` before `update`.
    """

    def __init__(self, distance_metric="euclidean", percentile=None, directed=False, crop=True):
        super().__init__()
        owner = "HausdorffDistance"
        self.distance_metric = _check_distance(distance_metric, owner)
        if percentile is not None:
            check_type(percentile, float, "percentile", owner)
        self.percentile = percentile
        self.directed = check_bool(directed, "directed", owner)
        self.crop = check_bool(crop, "crop", owner)
        self.clear()

    @rearrange_inputs
    def update(self, *inputs):
        """Replace the data with the boundaries of `(y_pred, y)` for `label_idx`."""
        y_pred, y = self._masks(inputs)
        if self.crop:
            union = y_pred | y
            if not np.any(union):
                self._y_pred_edges, self._y_edges = np.zeros_like(y_pred), np.zeros_like(y)
                self._is_update = True
                return
            box = tuple(slice(idx.min(), idx.max() + 1) for idx in np.nonzero(union))
            y_pred, y = np.squeeze(y_pred[box]), np.squeeze(y[box])
        self._y_pred_edges, self._y_edges = _edges(y_pred), _edges(y)
        self._is_update = True

    def _directed(self, from_edges, to_edges):
        dist = _surface_distances(from_edges, to_edges, self.distance_metric)
        if dist.size == 0:
            return np.inf
        if not self.percentile:
            return dist.max()
        if 0 <= self.percentile <= 100:
            return np.percentile(dist, self.percentile)
        raise ValueError(f"For 'HausdorffDistance', the 'percentile' must be in [0, 100], but "
                         f"got {self.percentile}")

    def eval(self):
        """The (directed or symmetric) Hausdorff distance, a numpy float64 (inf for an empty
        boundary)."""
        self._require_update()
        forward = self._directed(self._y_pred_edges, self._y_edges)
        if self.directed:
            return forward
        return max(forward, self._directed(self._y_edges, self._y_pred_edges))


class _AverageSurfaceMetric(_SurfaceMetric):
    def __init__(self, symmetric=False, distance_metric="euclidean"):
        super().__init__()
        owner = type(self).__name__
        self.distance_metric = _check_distance(distance_metric, owner)
        self.symmetric = check_bool(symmetric, "symmetric", owner)
        self.clear()

    @rearrange_inputs
    def update(self, *inputs):
        """Replace the data with the boundaries of `(y_pred, y)` for `label_idx`."""
        y_pred, y = self._masks(inputs)
        self._y_pred_edges, self._y_edges = _edges(y_pred), _edges(y)
        self._is_update = True

    def _both_ways(self, reduce):
        """`reduce` of the distances pred -> true, and of true -> pred when symmetric."""
        self._require_update()
        dist = _surface_distances(self._y_pred_edges, self._y_edges, self.distance_metric)
        if dist.size == 0:
            return None
        forward = reduce(dist)
        if not self.symmetric:
            return (forward,)
        back = _surface_distances(self._y_edges, self._y_pred_edges, self.distance_metric)
        if back.size == 0:
            return None
        return forward, reduce(back)


class MeanSurfaceDistance(_AverageSurfaceMetric):
    """The mean distance from the boundary of `y_pred == label_idx` to that of `y == label_idx`
    (`update(y_pred, y, label_idx)`; each update replaces the last); with `symmetric`, the mean
    of that and the reverse mean.

    Args:
        symmetric (bool): average both directions. Default: False.
        distance_metric (str): 'euclidean', 'chessboard' or 'taxicab'. Default: 'euclidean'.

    Raises:
        TypeError: a wrong argument type.
        ValueError: an unknown `distance_metric`; at `update`, a bad label or shapes.
        RuntimeError: `eval` before `update`.
    """

    def eval(self):
        """The mean surface distance (inf for an empty boundary)."""
        means = self._both_ways(np.mean)
        if means is None:
            return np.inf
        return means[0] if len(means) == 1 else np.mean(means)


class RootMeanSquareDistance(_AverageSurfaceMetric):
    """The mean squared distance from the boundary of `y_pred == label_idx` to that of
    `y == label_idx` (`update(y_pred, y, label_idx)`; each update replaces the last, and
    without `symmetric` no root is taken, as in MindSpore); with `symmetric`, the square root
    of the mean of both directions' mean squares.

    Args:
        symmetric (bool): both directions, and the root. Default: False.
        distance_metric (str): 'euclidean', 'chessboard' or 'taxicab'. Default: 'euclidean'.

    Raises:
        TypeError: a wrong argument type or label type.
        ValueError: an unknown `distance_metric`; at `update`, a bad label or shapes.
        RuntimeError: `eval` before `update`.
    """

    _label_error = TypeError

    def eval(self):
        """The (root) mean square surface distance (inf for an empty boundary)."""
        squares = self._both_ways(lambda d: np.mean(d ** 2))
        if squares is None:
            return np.inf
        return squares[0] if len(squares) == 1 else np.sqrt(np.mean(squares))
