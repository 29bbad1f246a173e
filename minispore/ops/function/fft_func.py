"""FFT and complex-number functions: ops.fft, ops.rfft2, ops.fftshift, ops.stft, ops.real,
ops.angle, the window functions."""
import numpy as np

from ..._autodiff.tape import apply
from ..._validator import check_bool, check_float
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import fft_ops as FO
from ..operations.fft_ops import (Angle, BartlettWindow, BlackmanWindow, Conj,
                                  HammingWindow, Imag, Polar, Real)
from ..primitive import Primitive, shared
from .array_func import pad as _pad_modes, roll, stack

__all__ = [
    "fft", "fft2", "fftn", "ifft", "ifft2", "ifftn", "rfft", "rfft2", "rfftn", "irfft", "irfft2",
    "irfftn", "hfft", "hfft2", "hfftn", "ihfft", "ihfft2", "ihfftn", "fftshift", "ifftshift",
    "fftfreq", "rfftfreq", "stft", "angle", "conj", "imag", "real", "polar", "view_as_real",
    "is_complex", "isreal", "bartlett_window", "blackman_window", "hamming_window",
    "hann_window", "kaiser_window",
]

# User-facing Primitive classes defined here (MindSpore classes that are composites), exported
# by ops.operations.
PRIMITIVE_CLASSES = ("FFTWithSize", "STFT")

_NORMS = ("backward", "forward", "ortho")
_FFT_DTYPES = tuple(np.dtype(t) for t in (np.int16, np.int32, np.int64, np.float16, np.float32,
                                          np.float64, np.complex64, np.complex128))


# ---- argument checks --------------------------------------------------------------------------

def _fft_input(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the 'input' must be a Tensor, but got {type(x).__name__}")
    dt = x._data.dtype
    if dt not in _FFT_DTYPES:
        raise TypeError(f"For '{op}', the 'input' must be an int16, int32, int64, float or "
                        f"complex Tensor, but got {x.dtype}")
    if not 1 <= x.ndim <= 8:
        raise ValueError(f"For '{op}', the rank of 'input' must be in [1, 8], but got {x.ndim}")
    return x


def _norm(norm, op):
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f"For '{op}', the 'norm' must be one of {_NORMS} or None, but got "
                         f"{norm!r}")
    return norm


def _axis(dim, ndim, op):
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, (bool, np.bool_)):
        raise TypeError(f"For '{op}', each 'dim' must be an int, but got {type(dim).__name__}")
    if not -ndim <= dim < ndim:
        raise ValueError(f"For '{op}', the 'dim' must be in [{-ndim}, {ndim}), but got {dim}")
    return int(dim) % ndim


def _size(n, op, arg):
    if not isinstance(n, (int, np.integer)) or isinstance(n, (bool, np.bool_)):
        raise TypeError(f"For '{op}', the '{arg}' must be an int, but got {type(n).__name__}")
    if n <= 0:
        raise ValueError(f"For '{op}', the '{arg}' must be greater than 0, but got {n}")
    return int(n)


def _plan_1d(x, n, dim, op):
    axis = _axis(dim, x.ndim, op)
    size = x.shape[axis] if n is None else _size(n, op, "n")
    return (axis,), [size]


def _plan_nd(x, s, dim, op):
    """The transformed axes and their signal sizes for the 2-D and n-D forms."""
    if dim is not None:
        if not isinstance(dim, (tuple, list)):
            raise TypeError(f"For '{op}', the 'dim' must be a tuple or list of ints, but got "
                            f"{type(dim).__name__}")
        axes = tuple(_axis(d, x.ndim, op) for d in dim)
    if s is not None:
        if not isinstance(s, (tuple, list)):
            raise TypeError(f"For '{op}', the 's' must be a tuple or list of ints, but got "
                            f"{type(s).__name__}")
        sizes = [_size(v, op, "s") for v in s]
        if dim is None:
            if len(sizes) > x.ndim:
                raise ValueError(f"For '{op}', the 's' has more entries ({len(sizes)}) than "
                                 f"'input' has dimensions ({x.ndim})")
            axes = tuple(range(x.ndim - len(sizes), x.ndim))
        elif len(sizes) != len(axes):
            raise ValueError(f"For '{op}', the 'dim' and 's' must have the same length, but got "
                             f"{len(axes)} and {len(sizes)}")
    else:
        if dim is None:
            axes = tuple(range(x.ndim))
        sizes = [x.shape[a] for a in axes]
    if not axes:
        raise ValueError(f"For '{op}', the 'dim' must name at least one dimension")
    if len(set(axes)) != len(axes):
        raise ValueError(f"For '{op}', the 'dim' must be unique, but got {dim}")
    return axes, sizes


def _resize(x, axes, sizes):
    """x zero-padded or cropped at the end of each axis to its size."""
    pads = [(0, 0)] * x.ndim
    for a, n in zip(axes, sizes):
        pads[a] = (0, n - x.shape[a])
    if all(p == (0, 0) for p in pads):
        return x
    return A.pad(x, pads, 0)


def _c2c(x, axes, sizes, inverse, norm):
    return FO.fft_c2c(_resize(x, axes, sizes), axes, inverse, norm)


def _r2c(x, axes, sizes, inverse, norm):
    return apply(shared(FO.FFTR2C, axes, inverse, norm), (_resize(x, axes, sizes),))


def _c2r(x, axes, sizes, norm, op, conjugate=False):
    """irfftn of x; `sizes` are the output sizes (None for the last: 2 * (bins - 1))."""
    n = sizes[-1]
    if n is None:
        n = 2 * (x.shape[axes[-1]] - 1)
        if n <= 0:
            raise ValueError(f"For '{op}', the output length 2 * (bins - 1) must be positive, "
                             f"but the last transformed axis of shape {x.shape} has one bin")
    x = _resize(x, axes, list(sizes[:-1]) + [n // 2 + 1])
    if conjugate:
        x = FO.conj(x)
    return apply(shared(FO.FFTC2R, axes, n, norm), (x,))


# ---- one-dimensional transforms ------------------------------------------------------------------

def fft(input, n=None, dim=-1, norm=None):
    """The 1-D discrete Fourier transform along `dim`, the signal zero-padded or cut to `n`;
    `norm`: 'backward' (default, no scaling), 'forward' (1/n) or 'ortho' (1/sqrt(n))."""
    x = _fft_input(input, "fft")
    axes, sizes = _plan_1d(x, n, dim, "fft")
    return _c2c(x, axes, sizes, False, _norm(norm, "fft"))


def ifft(input, n=None, dim=-1, norm=None):
    """The 1-D inverse discrete Fourier transform along `dim` ('backward' scales by 1/n)."""
    x = _fft_input(input, "ifft")
    axes, sizes = _plan_1d(x, n, dim, "ifft")
    return _c2c(x, axes, sizes, True, _norm(norm, "ifft"))


def rfft(input, n=None, dim=-1, norm=None):
    """The 1-D DFT of a real signal along `dim`: the n // 2 + 1 non-negative frequency bins."""
    x = _fft_input(input, "rfft")
    axes, sizes = _plan_1d(x, n, dim, "rfft")
    return _r2c(x, axes, sizes, False, _norm(norm, "rfft"))


def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of rfft: a real signal of length `n` (default 2 * (bins - 1)) from its
    non-negative frequency bins along `dim`."""
    x = _fft_input(input, "irfft")
    axes = (_axis(dim, x.ndim, "irfft"),)
    sizes = [None if n is None else _size(n, "irfft", "n")]
    return _c2r(x, axes, sizes, _norm(norm, "irfft"), "irfft")


def hfft(input, n=None, dim=-1, norm=None):
    """The 1-D DFT of a Hermitian-symmetric signal given by its first half along `dim`: real,
    of length `n` (default 2 * (len - 1))."""
    x = _fft_input(input, "hfft")
    axes = (_axis(dim, x.ndim, "hfft"),)
    sizes = [None if n is None else _size(n, "hfft", "n")]
    return _c2r(x, axes, sizes, FO.DUAL_NORM[_norm(norm, "hfft")], "hfft", conjugate=True)


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of hfft: the first n // 2 + 1 bins of the inverse DFT along `dim`."""
    x = _fft_input(input, "ihfft")
    axes, sizes = _plan_1d(x, n, dim, "ihfft")
    return _r2c(x, axes, sizes, True, _norm(norm, "ihfft"))


# ---- two- and n-dimensional transforms -----------------------------------------------------------

def _nd(kind, op, input, s, dim, norm):
    x = _fft_input(input, op)
    norm = _norm(norm, op)
    if kind in ("irfft", "hfft"):
        axes, sizes = _plan_nd(x, s, dim, op)
        if s is None:
            sizes[-1] = None
        return _c2r(x, axes, sizes, norm if kind == "irfft" else FO.DUAL_NORM[norm], op,
                    conjugate=kind == "hfft")
    axes, sizes = _plan_nd(x, s, dim, op)
    if kind in ("fft", "ifft"):
        return _c2c(x, axes, sizes, kind == "ifft", norm)
    return _r2c(x, axes, sizes, kind == "ihfft", norm)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D discrete Fourier transform over `dim`, each axis padded or cut to `s`."""
    return _nd("fft", "fft2", input, s, dim, norm)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D inverse discrete Fourier transform over `dim`."""
    return _nd("ifft", "ifft2", input, s, dim, norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D DFT of a real signal; the last axis of `dim` keeps n // 2 + 1 bins."""
    return _nd("rfft", "rfft2", input, s, dim, norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of rfft2: a real signal of sizes `s` (last default 2 * (bins - 1))."""
    return _nd("irfft", "irfft2", input, s, dim, norm)


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D DFT of a Hermitian-symmetric signal given by its half: real, of sizes `s`."""
    return _nd("hfft", "hfft2", input, s, dim, norm)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of hfft2: the half spectrum of the 2-D inverse DFT."""
    return _nd("ihfft", "ihfft2", input, s, dim, norm)


def fftn(input, s=None, dim=None, norm=None):
    """The n-D discrete Fourier transform over `dim` (default: the last len(s) axes, or all)."""
    return _nd("fft", "fftn", input, s, dim, norm)


def ifftn(input, s=None, dim=None, norm=None):
    """The n-D inverse discrete Fourier transform over `dim`."""
    return _nd("ifft", "ifftn", input, s, dim, norm)


def rfftn(input, s=None, dim=None, norm=None):
    """The n-D DFT of a real signal; the last axis of `dim` keeps n // 2 + 1 bins."""
    return _nd("rfft", "rfftn", input, s, dim, norm)


def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of rfftn: a real signal of sizes `s` (last default 2 * (bins - 1))."""
    return _nd("irfft", "irfftn", input, s, dim, norm)


def hfftn(input, s=None, dim=None, norm=None):
    """The n-D DFT of a Hermitian-symmetric signal given by its half: real, of sizes `s`."""
    return _nd("hfft", "hfftn", input, s, dim, norm)


def ihfftn(input, s=None, dim=None, norm=None):
    """The inverse of hfftn: the half spectrum of the n-D inverse DFT."""
    return _nd("ihfft", "ihfftn", input, s, dim, norm)


# ---- shifts and frequencies ----------------------------------------------------------------------

def _shift(input, dim, op, sign):
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{op}', the 'input' must be a Tensor, but got "
                        f"{type(input).__name__}")
    if input.ndim == 0:
        return input
    if dim is None:
        axes = tuple(range(input.ndim))
    else:
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        axes = tuple(_axis(d, input.ndim, op) for d in dims)
    shifts = tuple(sign * (input.shape[a] // 2) for a in axes)
    return roll(input, shifts, axes)


def fftshift(input, dim=None):
    """input rolled so that the zero-frequency bin is in the middle of each axis of `dim`."""
    return _shift(input, dim, "fftshift", 1)


def ifftshift(input, dim=None):
    """The inverse of fftshift."""
    return _shift(input, dim, "ifftshift", -1)


def _freq(n, d, dtype, op, values):
    if not isinstance(n, (int, np.integer)) or isinstance(n, (bool, np.bool_)):
        raise TypeError(f"For '{op}', the 'n' must be an int, but got {type(n).__name__}")
    if n <= 0:
        raise ValueError(f"For '{op}', the 'n' must be greater than 0, but got {n}")
    if isinstance(d, Tensor):
        d = d.item()
    elif not isinstance(d, (float, np.floating)):
        raise TypeError(f"For '{op}', the 'd' must be a float or a Tensor, but got "
                        f"{type(d).__name__}")
    dtype = mstype.float32 if dtype is None else dtype
    return Tensor(values(int(n), float(d)).astype(mstype.to_np(dtype)))


def fftfreq(n, d=1.0, dtype=None):
    """The sample frequencies of an n-point DFT with sample spacing d: [0, 1, ..., -1] / (d n)."""
    return _freq(n, d, dtype, "fftfreq", np.fft.fftfreq)


def rfftfreq(n, d=1.0, dtype=None):
    """The non-negative sample frequencies of an n-point rfft: [0, 1, ..., n // 2] / (d n)."""
    return _freq(n, d, dtype, "rfftfreq", np.fft.rfftfreq)


# ---- complex numbers -----------------------------------------------------------------------------

def angle(input):
    """The argument (phase) of each element of a complex tensor."""
    return Angle()(input)


def conj(input):
    """The complex conjugate (a real tensor is returned as it is)."""
    return Conj()(input)


def real(input):
    """The real part (a real tensor is returned as it is)."""
    return Real()(input)


def imag(input):
    """The imaginary part (zeros for a real tensor)."""
    return Imag()(input)


def polar(abs, angle):
    """The complex tensor abs * (cos(angle) + i sin(angle))."""
    return Polar()(abs, angle)


def view_as_real(input):
    """A complex tensor as a real one with a last axis of 2: (real, imag)."""
    if not isinstance(input, Tensor) or input._data.dtype.kind != "c":
        got = input.dtype if isinstance(input, Tensor) else type(input).__name__
        raise TypeError(f"For 'view_as_real', the 'input' must be a complex Tensor, but got "
                        f"{got}")
    return stack([FO.real(input), FO.imag(input)], -1)


def is_complex(input):
    """Whether a tensor's dtype is complex (a Python bool)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'is_complex', the 'input' must be a Tensor, but got "
                        f"{type(input).__name__}")
    return input._data.dtype.kind == "c"


def isreal(input):
    """Elementwise: whether the value has a zero imaginary part (all True for real dtypes)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'isreal', the 'input' must be a Tensor, but got "
                        f"{type(input).__name__}")
    data = input._data
    return Tensor(np.imag(data) == 0 if data.dtype.kind == "c" else np.ones(data.shape, bool))


# ---- windows ------------------------------------------------------------------------------------

def _window_length(n, op):
    if not isinstance(n, (int, np.integer)) or isinstance(n, (bool, np.bool_)):
        raise TypeError(f"For '{op}', the 'window_length' must be a non-negative int, but got "
                        f"{type(n).__name__}")
    if n < 0:
        raise ValueError(f"For '{op}', the 'window_length' must be a non-negative int, but got "
                         f"{n}")
    return int(n)


def _window_dtype(dtype, default, op):
    dtype = default if dtype is None else dtype
    if dtype not in (mstype.float16, mstype.float32, mstype.float64):
        raise TypeError(f"For '{op}', the 'dtype' must be a floating point dtype, but got "
                        f"{dtype}")
    return dtype


def bartlett_window(window_length, periodic=True, *, dtype=None):
    """The triangular window; `window_length` is a 0-d int32 or int64 tensor."""
    return BartlettWindow(periodic, mstype.float32 if dtype is None else dtype)(window_length)


def blackman_window(window_length, periodic=True, *, dtype=None):
    """The Blackman window; `window_length` is a 0-d int32 or int64 tensor."""
    return BlackmanWindow(periodic, mstype.float32 if dtype is None else dtype)(window_length)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """The window alpha - beta cos(2 pi k / (N - 1)) (float32 by default; MindSpore gives the
    empty and one-point windows in float64)."""
    n = _window_length(window_length, "hamming_window")
    check_bool(periodic, "periodic", "hamming_window")
    for value, arg in ((alpha, "alpha"), (beta, "beta")):
        if not isinstance(value, (float, np.floating)):
            raise TypeError(f"For 'hamming_window', the '{arg}' must be a float, but got "
                            f"{type(value).__name__}")
    default = mstype.float64 if n <= 1 else mstype.float32
    dtype = _window_dtype(dtype, default, "hamming_window")
    return HammingWindow(periodic, float(alpha), float(beta), dtype)(
        Tensor(np.array([n], np.int64)))


def _creation_window(kind, op, window_length, periodic, dtype, **params):
    n = _window_length(window_length, op)
    check_bool(periodic, "periodic", op)
    dtype = _window_dtype(dtype, mstype.float64, op)
    return Tensor(FO.window_values(kind, n, periodic, **params).astype(mstype.to_np(dtype)))


def hann_window(window_length, periodic=True, *, dtype=None):
    """The Hann window 0.5 - 0.5 cos(2 pi k / (N - 1)) (float64 by default, as MindSpore's)."""
    return _creation_window("hann", "hann_window", window_length, periodic, dtype)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """The Kaiser window I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta) (float64 by
    default, as MindSpore's)."""
    beta = check_float(beta, "beta", "kaiser_window")
    return _creation_window("kaiser", "kaiser_window", window_length, periodic, dtype,
                            beta=beta)


# ---- short-time Fourier transform ---------------------------------------------------------------

def _stft_frames(x, window, n_fft, hop, normalized, onesided, op):
    """The DFT of the windowed frames of x (..., L): complex, of shape (..., bins, frames)."""
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise ValueError(f"For '{op}', the 'n_fft' must be in (0, {length}], but got {n_fft}")
    count = 1 + (length - n_fft) // hop
    index = np.arange(count)[:, None] * hop + np.arange(n_fft)
    frames = A.gather(x, index, x.ndim - 1) * window
    norm = "ortho" if normalized else "backward"
    axes = (frames.ndim - 1,)
    if onesided:
        spec = apply(shared(FO.FFTR2C, axes, False, norm), (frames,))
    else:
        spec = FO.fft_c2c(frames, axes, False, norm)
    perm = tuple(range(spec.ndim - 2)) + (spec.ndim - 1, spec.ndim - 2)
    return A.transpose(spec, perm)


def _stft_window(window, win_length, n_fft, x, op):
    if window is None:
        window = Tensor(np.ones(win_length, FO.real_dtype(x._data.dtype)))
    elif not isinstance(window, Tensor):
        raise TypeError(f"For '{op}', the 'window' must be a Tensor or None, but got "
                        f"{type(window).__name__}")
    if window.shape != (win_length,):
        raise ValueError(f"For '{op}', the 'window' must be 1-D of length win_length = "
                         f"{win_length}, but got shape {window.shape}")
    left = (n_fft - win_length) // 2
    if left or win_length != n_fft:
        window = A.pad(window, [(left, n_fft - win_length - left)], 0)
    return window


def _stft_input(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the 'x' must be a Tensor, but got {type(x).__name__}")
    if x._data.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
        raise TypeError(f"For '{op}', the 'x' must be a float32, float64, complex64 or "
                        f"complex128 Tensor, but got {x.dtype}")
    if x.ndim not in (1, 2):
        raise ValueError(f"For '{op}', the 'x' must be a 1-D or 2-D tensor, but got {x.ndim}-D")
    return x


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="REFLECT", normalized=False, onesided=None, return_complex=None):
    """The short-time Fourier transform of 1-D or batched (2-D) signals: the DFT of frames of
    n_fft samples every hop_length (default n_fft // 4), each multiplied by `window` (default
    rectangular, win_length long, centred in the frame). `center` pads the signal by n_fft // 2
    on both sides ('REFLECT' or 'CONSTANT'). Shape (..., bins, frames): complex with
    return_complex, else (..., bins, frames, 2) real."""
    x = _stft_input(x, "stft")
    n_fft = _size(n_fft, "stft", "n_fft")
    hop = _size(n_fft // 4 if hop_length is None else hop_length, "stft", "hop_length")
    win_length = n_fft if win_length is None else _size(win_length, "stft", "win_length")
    if win_length > n_fft:
        raise ValueError(f"For 'stft', the 'win_length' must be at most n_fft = {n_fft}, but "
                         f"got {win_length}")
    window = _stft_window(window, win_length, n_fft, x, "stft")
    complex_input = x._data.dtype.kind == "c" or window._data.dtype.kind == "c"
    if onesided is None:
        onesided = not complex_input
    elif check_bool(onesided, "onesided", "stft") and complex_input:
        raise ValueError("For 'stft', the 'onesided' must be False for a complex input")
    check_bool(normalized, "normalized", "stft")
    if center:
        if pad_mode not in ("REFLECT", "CONSTANT"):
            raise ValueError(f"For 'stft', the 'pad_mode' must be 'REFLECT' or 'CONSTANT', but "
                             f"got {pad_mode!r}")
        half = n_fft // 2
        x = _pad_modes(x, (half, half), mode="reflect" if pad_mode == "REFLECT" else "constant")
    out = _stft_frames(x, window, n_fft, hop, normalized, onesided, "stft")
    return out if return_complex else view_as_real(out)


class STFT(Primitive):
    """`STFT(n_fft, hop_length, win_length, normalized, onesided, return_complex)(x, window)`:
    the short-time Fourier transform without centre padding; `window` is win_length long and
    centred in each n_fft frame."""

    def __init__(self, n_fft, hop_length, win_length, normalized, onesided, return_complex):
        super().__init__()
        self.n_fft = _size(n_fft, "STFT", "n_fft")
        self.hop_length = _size(hop_length, "STFT", "hop_length")
        self.win_length = _size(win_length, "STFT", "win_length")
        self.normalized = check_bool(normalized, "normalized", "STFT")
        self.onesided = check_bool(onesided, "onesided", "STFT")
        self.return_complex = check_bool(return_complex, "return_complex", "STFT")

    def __call__(self, x, window):
        x = _stft_input(x, "STFT")
        window = _stft_window(window, self.win_length, self.n_fft, x, "STFT")
        onesided = self.onesided and x._data.dtype.kind != "c"
        out = _stft_frames(x, window, self.n_fft, self.hop_length, self.normalized, onesided,
                           "STFT")
        return out if self.return_complex else view_as_real(out)


class FFTWithSize(Primitive):
    """`FFTWithSize(signal_ndim, inverse, real, norm='backward', onesided=True,
    signal_sizes=())(x)`: the DFT over the last `signal_ndim` axes. real=False: fftn (ifftn when
    inverse) of a complex x; real=True: rfftn of a real x (the full fftn unless onesided), or
    when inverse irfftn back to a real signal of `signal_sizes` (default last size
    2 * (bins - 1))."""

    def __init__(self, signal_ndim, inverse, real, norm="backward", onesided=True,
                 signal_sizes=()):
        super().__init__()
        if not isinstance(signal_ndim, int) or isinstance(signal_ndim, bool) \
                or not 1 <= signal_ndim <= 3:
            raise ValueError(f"For 'FFTWithSize', the 'signal_ndim' must be 1, 2 or 3, but got "
                             f"{signal_ndim!r}")
        self.signal_ndim = signal_ndim
        self.inverse = check_bool(inverse, "inverse", "FFTWithSize")
        self.real = check_bool(real, "real", "FFTWithSize")
        if norm not in _NORMS:
            raise ValueError(f"For 'FFTWithSize', the 'norm' must be one of {_NORMS}, but got "
                             f"{norm!r}")
        self.norm = norm
        self.onesided = check_bool(onesided, "onesided", "FFTWithSize")
        self.signal_sizes = tuple(signal_sizes)

    def __call__(self, x):
        op = "FFTWithSize"
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{op}', the 'x' must be a Tensor, but got {type(x).__name__}")
        if x.ndim < self.signal_ndim:
            raise ValueError(f"For '{op}', the 'x' must have at least signal_ndim = "
                             f"{self.signal_ndim} dimensions, but got shape {x.shape}")
        axes = tuple(range(x.ndim - self.signal_ndim, x.ndim))
        sizes = [x.shape[a] for a in axes]
        is_complex_input = x._data.dtype.kind == "c"
        if not self.real or self.inverse:
            if not is_complex_input:
                raise TypeError(f"For '{op}', the 'x' must be complex64 or complex128 in "
                                f"fft/ifft/irfft mode, but got {x.dtype}")
        elif is_complex_input:
            raise TypeError(f"For '{op}', the 'x' must be real in rfft mode, but got {x.dtype}")
        if not self.real:
            return FO.fft_c2c(x, axes, self.inverse, self.norm)
        if not self.inverse:
            if self.onesided:
                return _r2c(x, axes, sizes, False, self.norm)
            return FO.fft_c2c(x, axes, False, self.norm)
        if not self.onesided:
            return FO.real(FO.fft_c2c(x, axes, True, self.norm))
        last = 2 * (sizes[-1] - 1)
        out_sizes = sizes[:-1] + [last]
        if self.signal_sizes:
            valid = (tuple(sizes[:-1]) + (last,), tuple(sizes[:-1]) + (last + 1,))
            if self.signal_sizes not in valid:
                raise ValueError(f"For '{op}', got invalid signal_sizes {self.signal_sizes}: "
                                 f"a valid one is {valid[0]} or {valid[1]}")
            out_sizes = list(self.signal_sizes)
        return _c2r(x, axes, out_sizes, self.norm, op)
