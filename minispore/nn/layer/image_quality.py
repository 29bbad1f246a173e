"""Image-quality cells: `PSNR`, `SSIM` and `MSSSIM` (multi-scale SSIM), differentiable in both
images."""
import numbers

import numpy as np

from ..._validator import check_float, check_int_range, check_positive_float, check_type
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...ops.function import array_func as AF
from ...ops.function import layer_func as LF
from ...ops.function import math_func as F
from ...ops.function import nn_func as NF
from ..cell import Cell

__all__ = ["MSSSIM", "PSNR", "SSIM"]


def _check_max_val(max_val, owner):
    if isinstance(max_val, bool) or not isinstance(max_val, numbers.Real):
        raise TypeError(f"For '{owner}', the 'max_val' must be an int or float, but got "
                        f"{type(max_val).__name__}")
    if not max_val > 0:
        raise ValueError(f"For '{owner}', the 'max_val' must be > 0, but got {max_val}")
    return max_val


def _check_pair(img1, img2, owner, dtypes=None):
    for name, img in (("img1", img1), ("img2", img2)):
        check_type(img, Tensor, name, owner, "a Tensor")
        if img.ndim != 4:
            raise ValueError(f"For '{owner}', the dimension of '{name}' must be 4d, but got "
                             f"{img.ndim}.")
    if dtypes is not None and img1.dtype not in dtypes:
        raise TypeError(f"For '{owner}', the dtype of 'img1' must be one of "
                        f"{[str(d) for d in dtypes]}, but got {img1.dtype}")
    if img1.dtype != img2.dtype:
        raise TypeError(f"For '{owner}', 'img1' and 'img2' must have the same dtype, but got "
                        f"{img1.dtype} and {img2.dtype}")
    if img1.shape != img2.shape:
        raise ValueError(f"For '{owner}', 'img1' and 'img2' must have the same shape, but got "
                         f"{img1.shape} and {img2.shape}")


def _as_float32(img1, img2, max_val):
    """Both images in float32 and `max_val` on their scale: integer images are divided by
    their dtype's maximum (and so is `max_val`), floating images are only cast."""
    np_dtype = mstype.dtype_to_nptype(img1.dtype)
    dtype_max = float(np.iinfo(np_dtype).max) if np.issubdtype(np_dtype, np.integer) else 1.0
    img1, img2 = F.cast(img1, mstype.float32), F.cast(img2, mstype.float32)
    if dtype_max > 1.0:
        scale = 1.0 / dtype_max
        return img1 * scale, img2 * scale, max_val * scale
    return img1, img2, float(max_val)


def _gaussian_window(size, sigma):
    """The `(1, 1, size, size)` normalised Gaussian window (MindSpore's grid: offsets
    `-size // 2 + 1 .. size // 2`)."""
    grid = np.arange(-size // 2 + 1, size // 2 + 1, dtype=np.float32)
    g = np.exp(-(grid[:, None] ** 2 + grid[None, :] ** 2) / (2 * sigma ** 2))
    return (g / np.sum(g)).astype(np.float32)[None, None]


def _ssim_and_cs(img1, img2, window, c1, c2):
    """Per image and channel `(N, C)`: the mean SSIM map and the mean contrast-structure map
    over the valid positions of the Gaussian window."""
    n, c, h, w = img1.shape
    x = AF.reshape(img1, (n * c, 1, h, w))
    y = AF.reshape(img2, (n * c, 1, h, w))

    def blur(t):
        return LF.conv2d(t, window)

    mu1, mu2 = blur(x), blur(y)
    mu1_sq, mu2_sq, mu1_mu2 = mu1 * mu1, mu2 * mu2, mu1 * mu2
    sigma1_sq = blur(x * x) - mu1_sq
    sigma2_sq = blur(y * y) - mu2_sq
    sigma12 = blur(x * y) - mu1_mu2
    v1 = 2 * sigma12 + c2
    v2 = sigma1_sq + sigma2_sq + c2
    ssim_map = ((2 * mu1_mu2 + c1) * v1) / ((mu1_sq + mu2_sq + c1) * v2)
    cs_map = v1 / v2
    out_shape = (n, c) + tuple(ssim_map.shape[2:])
    ssim = F.mean(AF.reshape(ssim_map, out_shape), (2, 3))
    cs = F.mean(AF.reshape(cs_map, out_shape), (2, 3))
    return ssim, cs


class PSNR(Cell):
    """Peak signal-to-noise ratio per image: `10 * log10(max_val ** 2 / mse)` over each image
    of `(N, C, H, W)` batches, a float32 `(N,)`. Integer images are compared on the scale of
    their dtype's maximum (`max_val` scaled with them).

    Args:
        max_val (Union[int, float]): the dynamic range of the pixels, > 0. Default: 1.0.

    Inputs:
        - **img1**, **img2** (Tensor) - 4-d, same dtype and shape.

    Raises:
        TypeError: `max_val` not a number; inputs not Tensors or of different dtypes.
        ValueError: `max_val` <= 0; inputs not 4-d or of different shapes.
    """

    def __init__(self, max_val=1.0):
        super().__init__()
        self.max_val = _check_max_val(max_val, "PSNR")

    def construct(self, img1, img2):
        _check_pair(img1, img2, "PSNR")
        img1, img2, max_val = _as_float32(img1, img2, self.max_val)
        mse = F.mean(F.square(img1 - img2), (-3, -2, -1))
        return 10 * F.log(max_val ** 2 / mse) / float(np.log(10.0))


class SSIM(Cell):
    """Structural similarity per image: the mean over channels of the mean SSIM map under a
    `filter_size` Gaussian window (std `filter_sigma`, valid positions only), with
    `C1 = (k1 * max_val) ** 2` and `C2 = (k2 * max_val) ** 2`; a float32 `(N,)`.

    Args:
        max_val (Union[int, float]): the dynamic range of the pixels, > 0. Default: 1.0.
        filter_size (int): the window size, >= 1. Default: 11.
        filter_sigma (float): the window's standard deviation, > 0. Default: 1.5.
        k1 (float): Default: 0.01.
        k2 (float): Default: 0.03.

    Inputs:
        - **img1**, **img2** (Tensor) - float32 or float16 `(N, C, H, W)`, same shape,
          H and W >= filter_size.

    Raises:
        TypeError: a wrong argument type or input dtype.
        ValueError: a bad argument value or input shape.
    """

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        owner = "SSIM"
        self.max_val = _check_max_val(max_val, owner)
        self.filter_size = check_int_range(filter_size, "filter_size", owner, low=1)
        self.filter_sigma = check_positive_float(filter_sigma, "filter_sigma", owner,
                                                 allow_int=False)
        self.k1 = check_float(k1, "k1", owner, allow_int=False)
        self.k2 = check_float(k2, "k2", owner, allow_int=False)
        self._window = Tensor(_gaussian_window(filter_size, filter_sigma))

    def construct(self, img1, img2):
        owner = "SSIM"
        _check_pair(img1, img2, owner, (mstype.float32, mstype.float16))
        if min(img1.shape[2:]) < self.filter_size:
            raise ValueError(f"For '{owner}', the height and width of 'img1' must be >= "
                             f"filter_size {self.filter_size}, but got shape {img1.shape}")
        img1, img2, max_val = _as_float32(img1, img2, self.max_val)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        ssim, _ = _ssim_and_cs(img1, img2, self._window, c1, c2)
        return F.mean(ssim, -1)


class MSSSIM(Cell):
    """Multi-scale structural similarity per image: over `len(power_factors)` scales (each half
    the last by 2x2 average pooling), the product of the contrast-structure terms of every
    scale but the last and the SSIM of the last, each clipped at 0 and raised to its power
    factor, averaged over channels; a float32 `(N,)`.

    Args:
        max_val (Union[int, float]): the dynamic range of the pixels, > 0. Default: 1.0.
        power_factors (Union[tuple, list]): one weight per scale.
            Default: (0.0448, 0.2856, 0.3001, 0.2363, 0.1333).
        filter_size (int): the window size, >= 1. Default: 11.
        filter_sigma (float): the window's standard deviation, > 0. Default: 1.5.
        k1 (float): Default: 0.01.
        k2 (float): Default: 0.03.

    Inputs:
        - **img1**, **img2** (Tensor) - float64, float32, float16 or uint8 `(N, C, H, W)`,
          same shape, large enough for the window at the coarsest scale.

    Raises:
        TypeError: a wrong argument type or input dtype.
        ValueError: a bad argument value or input shape.
    """

    def __init__(self, max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
                 filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        owner = "MSSSIM"
        self.max_val = _check_max_val(max_val, owner)
        check_type(power_factors, (tuple, list), "power_factors", owner)
        self.filter_size = check_int_range(filter_size, "filter_size", owner, low=1)
        self.filter_sigma = check_positive_float(filter_sigma, "filter_sigma", owner,
                                                 allow_int=False)
        self.k1 = check_float(k1, "k1", owner, allow_int=False)
        self.k2 = check_float(k2, "k2", owner, allow_int=False)
        self.level = len(power_factors)
        self._window = Tensor(_gaussian_window(filter_size, filter_sigma))
        self.weight_tensor = Tensor(np.array(power_factors, np.float32))

    def construct(self, img1, img2):
        owner = "MSSSIM"
        _check_pair(img1, img2, owner,
                    (mstype.float64, mstype.float32, mstype.float16, mstype.uint8))
        needed = self.filter_size * 2 ** (self.level - 1)
        if min(img1.shape[2:]) < needed:
            raise ValueError(f"For '{owner}', the height and width of 'img1' must be >= "
                             f"{needed} for {self.level} scales of filter_size "
                             f"{self.filter_size}, but got shape {img1.shape}")
        img1, img2, max_val = _as_float32(img1, img2, self.max_val)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        terms = []
        ssim = None
        for level in range(self.level):
            ssim, cs = _ssim_and_cs(img1, img2, self._window, c1, c2)
            if level < self.level - 1:
                terms.append(NF.relu(cs))
                img1 = LF.avg_pool2d(img1, kernel_size=2, stride=2)
                img2 = LF.avg_pool2d(img2, kernel_size=2, stride=2)
        terms.append(NF.relu(ssim))
        weighted = F.pow(AF.stack(terms, -1), self.weight_tensor)
        return F.mean(F.prod(weighted, -1), -1)
