"""`OcclusionSensitivity`: how much a classifier's score drops when each region of the input
is covered."""
import numbers

import numpy as np

from ..._validator import check_positive_int, check_type, type_name
from ...common.tensor import Tensor
from ..cell import Cell
from .metric import Metric, rearrange_inputs

__all__ = ["OcclusionSensitivity"]


def _bounding_box(b_box, im_shape):
    """`(low, high)` corners (inclusive) of the analysed region, or `(None, None)`."""
    if b_box is None:
        return None, None
    if len(b_box) != 2 * len(im_shape):
        raise ValueError(f"For 'OcclusionSensitivity', 'b_box' must hold a minimum and a maximum "
                         f"for each of the {len(im_shape)} non-batch dimensions, but got "
                         f"{len(b_box)} values")
    low, high = np.array(b_box[::2]), np.array(b_box[1::2])
    low[low < 0] = 0
    high[high < 0] = im_shape[high < 0] - 1
    if np.any(high >= im_shape):
        raise ValueError("For 'OcclusionSensitivity', the maximum of 'b_box' must be below the "
                         "image size in every dimension")
    if np.any(low > high):
        raise ValueError("For 'OcclusionSensitivity', the minimum of 'b_box' must not exceed "
                         "its maximum in any dimension")
    return low, high


class OcclusionSensitivity(Metric):
    """Occlusion sensitivity of `model` for one image: `update(model, x, label)` covers, for
    every position `i` of `x`'s non-batch dimensions (or of `b_box`), the region
    `[i - margin, i + margin)` with `pad_val` and records the model's score for `label`;
    `eval()` returns the unoccluded score minus those scores, shaped like the analysed region
    (size-1 axes squeezed). Higher values mark regions the decision depends on.

    Args:
        pad_val (float): the value covering the occluded region. Default: 0.0.
        margin (Union[int, list]): the half-width of the region, one for all dimensions or one
            per non-batch dimension. Default: 2.
        n_batch (int): occluded images per model call. Default: 128.
        b_box (list): `[min0, max0, min1, max1, ...]` (inclusive; a negative minimum means 0,
            a negative maximum the last index) over the non-batch dimensions. Default: None
            (the whole image).

    Raises:
        TypeError: a wrong argument type; at `update`, a model that is not a Cell.
        ValueError: at `update`, not three inputs, a bad `b_box`.
        RuntimeError: at `update`, a batch other than 1 or a label count other than 1; `eval`
            before `update`.
    """

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        super().__init__()
        owner = "OcclusionSensitivity"
        self.pad_val = check_type(pad_val, float, "pad_val", owner)
        if isinstance(margin, bool) or not isinstance(margin, (int, list)):
            raise TypeError(f"For '{owner}', the 'margin' must be an int or a list, but got "
                            f"{type_name(margin)}")
        self.margin = margin
        self.n_batch = check_positive_int(n_batch, "n_batch", owner)
        self.b_box = b_box if b_box is None else check_type(b_box, list, "b_box", owner)
        self.clear()

    def clear(self):
        """Forget the last update."""
        self._baseline = 0
        self._sensitivity_im = 0
        self._is_update = False

    def _margins(self, ndim):
        if isinstance(self.margin, int):
            return [self.margin] * ndim
        if len(self.margin) != ndim:
            raise ValueError(f"For 'OcclusionSensitivity', a list 'margin' needs one value per "
                             f"non-batch dimension ({ndim}), but got {len(self.margin)}")
        return list(self.margin)

    @rearrange_inputs
    def update(self, *inputs):
        """Occlude `x` (batch 1) everywhere and score `model` on `label`."""
        owner = "OcclusionSensitivity.update"
        if len(inputs) != 3:
            raise ValueError(f"For '{owner}', it needs 3 inputs (classification model, "
                             f"predicted value, label), but got {len(inputs)}")
        model = check_type(inputs[0], Cell, "model", owner, "an nn.Cell")
        image = self._convert_data(inputs[1])
        label = inputs[2]
        label = np.array(label) if isinstance(label, numbers.Integral) else \
            self._convert_data(label)
        if image.shape[0] != 1:
            raise RuntimeError(f"For '{owner}', the batch size of the image must be 1, but got "
                               f"{image.shape[0]}")
        if label.size != 1:
            raise RuntimeError(f"For '{owner}', one label is needed for the batch of 1, but got "
                               f"{label.size}")
        label = int(label.reshape(()))
        im_shape = np.array(image.shape[1:])
        low, high = _bounding_box(self.b_box, im_shape)
        out_shape = tuple(im_shape if low is None else high - low + 1)
        margins = self._margins(len(im_shape))
        self._baseline = model(Tensor(image)).asnumpy()[0, label].item()
        scores, batch = [], []
        total = int(np.prod(out_shape))
        for flat in range(total):
            idx = np.array(np.unravel_index(flat, out_shape))
            if low is not None:
                idx = idx + low
            region = tuple(slice(max(0, i - m), min(n, i + m))
                           for i, m, n in zip(idx, margins, im_shape))
            occluded = image.copy()
            occluded[(Ellipsis,) + region] = self.pad_val
            batch.append(occluded)
            if len(batch) == self.n_batch or flat == total - 1:
                scores.append(model(Tensor(np.concatenate(batch))).asnumpy()[:, label])
                batch = []
        self._sensitivity_im = np.concatenate(scores).reshape(out_shape)
        self._is_update = True

    def eval(self):
        """The score drop at each analysed position (numpy array)."""
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        return self._baseline - np.squeeze(self._sensitivity_im)
