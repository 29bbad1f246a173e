"""FFT, complex-number and window primitives: the DFT kernels of the fft/rfft/irfft/hfft
families (C2C, R2C, C2R), Complex, Real, Imag, Conj, Angle, ComplexAbs, Polar,
ConjugateTranspose and the window classes (stft, STFT and FFTWithSize are composites in
function/fft_func).

Gradients of complex values follow MindSpore's (and PyTorch's) convention: for a real loss L of
a complex z the gradient is dL/dRe(z) + i dL/dIm(z). A linear map's bprop is then its adjoint
for the real inner product Re(sum(conj(a) * b)): the DFT's is the inverse DFT under the dual
normalisation ("backward" <-> "forward", "ortho" <-> "ortho")."""
import numpy as np

from ..._autodiff.tape import apply, wrap
from ..._validator import check_float
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..primitive import Primitive, Unary, register, shared
from . import array_ops as A
from . import math_ops
from .math_ops import cast, cos, select, sin

PRIMITIVE_CLASSES = ("ConjugateTranspose",)

DUAL_NORM = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_C64, _C128 = np.dtype(np.complex64), np.dtype(np.complex128)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def complex_dtype(dt):
    """The complex dtype an FFT of dtype `dt` computes in (complex128 only from 64-bit input)."""
    return _C128 if dt in (_F64, _C128) else _C64


def real_dtype(dt):
    return _F64 if dt in (_F64, _C128) else _F32


def _as_complex(x):
    dt = complex_dtype(x.dtype)
    if x.dtype.kind not in "fc" or x.dtype.itemsize < 4:
        x = x.astype(_F32)
    return x.astype(dt, copy=False)


def _is_complex_dtype(dt):
    return np.dtype(mstype.to_np(dt)).kind == "c"


def _grad_to_input(g, dtype):
    """A complex gradient brought to a real input's dtype (its real part), or kept."""
    if _is_complex_dtype(dtype):
        return g
    return cast(real(g), dtype)


# ================================ discrete Fourier transforms =====================================

@register
class FFTC2C(Primitive):
    """The complex DFT over `axes` (inverse: the inverse DFT), normalised as `norm`; a real input
    is read as complex.  dx = the opposite transform of dout under the dual norm (its real part
    for a real x)."""

    internal = True
    saves = ("x.dtype",)

    def __init__(self, axes, inverse, norm):
        super().__init__()
        self.axes, self.inverse, self.norm = tuple(axes), bool(inverse), norm

    def forward(self, x):
        xc = _as_complex(x)
        fn = np.fft.ifftn if self.inverse else np.fft.fftn
        return fn(xc, axes=self.axes, norm=self.norm).astype(xc.dtype, copy=False)

    def bprop(self, saved, dout, needs):
        g = fft_c2c(dout, self.axes, not self.inverse, DUAL_NORM[self.norm])
        return (_grad_to_input(g, saved[0]),)


@register
class FFTR2C(Primitive):
    """The DFT over `axes` (inverse: the inverse DFT) keeping the first n // 2 + 1 bins of the
    last axis: rfftn for a real x (a complex x is transformed whole, then cut, as MindSpore's).
    dx = the opposite transform, under the dual norm, of dout zero-padded back to n bins."""

    internal = True
    saves = ("x.dtype", "x.shape")

    def __init__(self, axes, inverse, norm):
        super().__init__()
        self.axes, self.inverse, self.norm = tuple(axes), bool(inverse), norm

    def forward(self, x):
        last = self.axes[-1]
        if x.dtype.kind != "c" and not self.inverse:
            xr = x.astype(real_dtype(x.dtype), copy=False)
            return np.fft.rfftn(xr, axes=self.axes, norm=self.norm).astype(
                complex_dtype(x.dtype), copy=False)
        xc = _as_complex(x)
        fn = np.fft.ifftn if self.inverse else np.fft.fftn
        out = fn(xc, axes=self.axes, norm=self.norm).astype(xc.dtype, copy=False)
        index = [slice(None)] * x.ndim
        index[last] = slice(0, x.shape[last] // 2 + 1)
        return np.ascontiguousarray(out[tuple(index)])

    def bprop(self, saved, dout, needs):
        dtype, shape = saved
        last = self.axes[-1]
        pads = [(0, 0)] * len(shape)
        pads[last] = (0, shape[last] - dout.shape[last])
        g = fft_c2c(A.pad(dout, pads, 0), self.axes, not self.inverse, DUAL_NORM[self.norm])
        return (_grad_to_input(g, dtype),)


@register
class FFTC2R(Primitive):
    """irfftn over `axes`: the inverse DFT of the Hermitian signal whose first half (n // 2 + 1
    bins on the last axis) x holds, real, `n` long on the last axis (the imaginary parts of the
    zero and Nyquist bins are ignored).  dx = c * rfftn(dout) under the dual norm, c = 2 on the
    bins that stand for two (1 on the zero and Nyquist bins)."""

    internal = True
    saves = ("x.dtype",)

    def __init__(self, axes, n, norm):
        super().__init__()
        self.axes, self.n, self.norm = tuple(axes), int(n), norm

    def forward(self, x):
        last = self.axes[-1]
        if x.shape[last] != self.n // 2 + 1:
            raise ValueError(f"For 'irfft', the last transformed axis must hold n // 2 + 1 = "
                             f"{self.n // 2 + 1} bins for n = {self.n}, but got shape {x.shape}")
        xc = _as_complex(x)
        sizes = [x.shape[a] for a in self.axes[:-1]] + [self.n]
        return np.fft.irfftn(xc, s=sizes, axes=self.axes, norm=self.norm).astype(
            real_dtype(xc.dtype), copy=False)

    def bprop(self, saved, dout, needs):
        g = apply(shared(FFTR2C, self.axes, False, DUAL_NORM[self.norm]), (dout,))
        last = self.axes[-1]
        bins = self.n // 2 + 1
        weight = np.full(bins, 2.0, real_dtype(dout._data.dtype))
        weight[0] = 1.0
        if self.n % 2 == 0:
            weight[-1] = 1.0
        weight = weight.reshape((bins,) + (1,) * (dout.ndim - 1 - last))
        return (_grad_to_input(g * wrap(weight), saved[0]),)


def fft_c2c(x, axes, inverse, norm):
    return apply(shared(FFTC2C, tuple(axes), bool(inverse), norm), (x,))


# ================================ complex numbers =================================================

def _tensor_arg(x, op, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def _check_complex(x, op, arg="input"):
    if _tensor_arg(x, op, arg)._data.dtype.kind != "c":
        raise TypeError(f"For '{op}', the '{arg}' must be a complex64 or complex128 Tensor, but "
                        f"got {x.dtype}")
    return x


def _check_float_pair(a, b, op, names):
    for v, n in zip((a, b), names):
        if _tensor_arg(v, op, n)._data.dtype not in (_F32, _F64):
            raise TypeError(f"For '{op}', the '{n}' must be a float32 or float64 Tensor, but "
                            f"got {v.dtype}")
    if a._data.dtype != b._data.dtype:
        raise TypeError(f"For '{op}', the '{names[0]}' and '{names[1]}' must have the same "
                        f"dtype, but got {a.dtype} and {b.dtype}")


@register
class Real(Primitive):
    """The real part of a complex input (a real input is returned as it is).
    dx = dout as a complex number (dout itself for a real x)."""

    saves = ("x.dtype",)

    def __init__(self):
        super().__init__()

    def __call__(self, input):
        return apply(self, (_tensor_arg(input, "Real"),))

    def forward(self, x):
        return np.real(x).copy()

    def bprop(self, saved, dout, needs):
        if _is_complex_dtype(saved[0]):
            return (make_complex(dout, A.zeros_like(dout)),)
        return (dout,)


@register
class Imag(Primitive):
    """The imaginary part of a complex input (zeros for a real input).
    dx = i * dout (zero for a real x)."""

    saves = ("x.dtype",)

    def __init__(self):
        super().__init__()

    def __call__(self, input):
        return apply(self, (_tensor_arg(input, "Imag"),))

    def forward(self, x):
        return np.imag(x).copy() if x.dtype.kind == "c" else np.zeros_like(x)

    def bprop(self, saved, dout, needs):
        if _is_complex_dtype(saved[0]):
            return (make_complex(A.zeros_like(dout), dout),)
        return (A.zeros_like(dout),)


@register
class Complex(Primitive):
    """real + i * imag from two float32 or float64 tensors of one dtype (broadcast).
    d_real = Re(dout);  d_imag = Im(dout)."""

    inputs = ("real", "imag")
    broadcasts = True

    def __init__(self):
        super().__init__()

    def __call__(self, real, imag):
        _check_float_pair(real, imag, "Complex", ("real", "imag"))
        return apply(self, (real, imag))

    def forward(self, re, im):
        out = np.empty(np.broadcast_shapes(re.shape, im.shape), complex_dtype(re.dtype))
        out.real, out.imag = re, im
        return out

    def bprop(self, saved, dout, needs):
        return (real(dout) if needs[0] else None), (imag(dout) if needs[1] else None)


@register
class Conj(Unary):
    """The complex conjugate (a real input is returned as it is).  dx = conj(dout)."""

    def __init__(self):
        super().__init__()

    def __call__(self, input):
        x = _tensor_arg(input, "Conj")
        if x._data.dtype.kind not in "fciu":
            raise TypeError(f"For 'Conj', the 'input' must be a numeric Tensor, but got {x.dtype}")
        return apply(self, (x,))

    def forward(self, x):
        return np.conj(x) if x.dtype.kind == "c" else x.copy()

    def bprop(self, saved, dout, needs):
        return (conj(dout),)


@register
class Angle(Primitive):
    """The argument atan2(Im z, Re z) of a complex input.
    dz = dout * (-Im z + i Re z) / |z|^2."""

    saves = ("x",)

    def __init__(self):
        super().__init__()

    def __call__(self, input):
        return apply(self, (_check_complex(input, "Angle"),))

    def forward(self, z):
        return np.angle(z).astype(real_dtype(z.dtype), copy=False)

    def bprop(self, saved, dout, needs):
        z = saved[0]
        x, y = real(z), imag(z)
        scale = dout / (x * x + y * y)
        return (make_complex(-y * scale, x * scale),)


@register
class ComplexAbs(Primitive):
    """The modulus |z| of a complex input.  dz = dout * z / |z| (0 at z = 0)."""

    saves = ("x", "out")

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        return apply(self, (_check_complex(x, "ComplexAbs", "x"),))

    def forward(self, z):
        return np.abs(z).astype(real_dtype(z.dtype), copy=False)

    def bprop(self, saved, dout, needs):
        z, r = saved
        scale = dout / select(r == 0, A.ones_like(r), r)
        return (make_complex(real(z) * scale, imag(z) * scale),)


@register
class Polar(Primitive):
    """abs * (cos(angle) + i sin(angle)) from two float tensors of one dtype and shape.
    d_abs = Re(dout) cos + Im(dout) sin;  d_angle = abs * (Im(dout) cos - Re(dout) sin)."""

    inputs = ("abs", "angle")
    saves = ("abs", "angle")

    def __init__(self):
        super().__init__()

    def __call__(self, abs, angle):
        _check_float_pair(abs, angle, "Polar", ("abs", "angle"))
        if abs.shape != angle.shape:
            raise ValueError(f"For 'Polar', the 'abs' and 'angle' must have the same shape, but "
                             f"got {abs.shape} and {angle.shape}")
        return apply(self, (abs, angle))

    def forward(self, r, theta):
        out = np.empty(r.shape, complex_dtype(r.dtype))
        out.real, out.imag = r * np.cos(theta), r * np.sin(theta)
        return out

    def bprop(self, saved, dout, needs):
        r, theta = saved
        gr, gi = real(dout), imag(dout)
        c, s = cos(theta), sin(theta)
        d_abs = gr * c + gi * s if needs[0] else None
        d_angle = r * (gi * c - gr * s) if needs[1] else None
        return d_abs, d_angle


class ConjugateTranspose(Primitive):
    """`ConjugateTranspose()(x, perm)`: conj(transpose(x, perm))."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, perm):
        x = _tensor_arg(x, "ConjugateTranspose", "x")
        return conj(A.transpose(x, tuple(perm)))


_REAL, _IMAG, _COMPLEX, _CONJ = Real(), Imag(), Complex(), Conj()


def real(x):
    return apply(_REAL, (x,))


def imag(x):
    return apply(_IMAG, (x,))


def make_complex(re, im):
    return apply(_COMPLEX, (re, im))


def conj(x):
    return apply(_CONJ, (x,))


# ================================ windows =========================================================

_WINDOW_DTYPES = (mstype.float16, mstype.float32, mstype.float64)


def window_values(kind, n, periodic, alpha=0.54, beta=0.46):
    """The float64 window `kind` of length n (periodic: the first n points of the symmetric
    window of length n + 1). `beta` is Kaiser's shape parameter for kind 'kaiser'."""
    if n <= 1:
        return np.ones(n)
    m = n + 1 if periodic else n
    k = np.arange(m) / (m - 1)
    if kind == "hann":
        w = 0.5 - 0.5 * np.cos(2 * np.pi * k)
    elif kind == "hamming":
        w = alpha - beta * np.cos(2 * np.pi * k)
    elif kind == "blackman":
        w = 0.42 - 0.5 * np.cos(2 * np.pi * k) + 0.08 * np.cos(4 * np.pi * k)
    elif kind == "bartlett":
        w = 1.0 - np.abs(2.0 * k - 1.0)
    elif kind == "kaiser":
        w = np.i0(beta * np.sqrt(np.clip(1.0 - (2.0 * k - 1.0) ** 2, 0.0, None))) / np.i0(beta)
    else:
        raise ValueError(f"unknown window {kind!r}")
    return w[:n]


def check_window_dtype(dtype, op):
    if dtype not in _WINDOW_DTYPES:
        raise TypeError(f"For '{op}', the 'dtype' should be one of [mindspore.float16, "
                        f"mindspore.float32, mindspore.float64], but got '{dtype}'")
    return dtype


class _Window(Primitive):
    """A window of the length a 0-d integer tensor holds (not differentiable)."""

    kind = None
    differentiable = False
    inputs = ("window_length",)
    length_ndim = 0

    def __init__(self, periodic=True, dtype=mstype.float32):
        super().__init__()
        if not isinstance(periodic, (bool, np.bool_)):
            raise TypeError(f"For '{self.name}', the type of 'periodic' should be 'bool', but "
                            f"got type '{type(periodic).__name__}'")
        self.periodic = bool(periodic)
        self.dtype = check_window_dtype(dtype, self.name)

    def __call__(self, window_length):
        if not isinstance(window_length, Tensor):
            raise TypeError(f"For '{self.name}', the 'window_length' must be a Tensor, but got "
                            f"{type(window_length).__name__}")
        dt = window_length._data.dtype
        if dt.kind not in "iu" or (self.length_ndim == 0 and dt not in (np.int32, np.int64)):
            raise TypeError(f"For '{self.name}', the 'window_length' must be an integer Tensor, "
                            f"but got {window_length.dtype}")
        if window_length.ndim != self.length_ndim or window_length._data.size != 1:
            raise ValueError(f"For '{self.name}', the 'window_length' must be a "
                             f"{self.length_ndim}-D tensor of one element, but got shape "
                             f"{window_length.shape}")
        n = int(np.ravel(window_length.tolist())[0])
        if not 0 <= n <= 1000000:
            raise ValueError(f"For '{self.name}', the value of 'window_length' must be in "
                             f"[0, 1000000], but got {n}")
        return apply(self, (window_length,))

    def forward(self, length):
        n = int(length.reshape(-1)[0])
        return window_values(self.kind, n, self.periodic, **self._params()).astype(
            mstype.to_np(self.dtype))

    def _params(self):
        return {}


@register
class BartlettWindow(_Window):
    """`BartlettWindow(periodic=True, dtype=mstype.float32)(window_length)`: the triangular
    window 1 - |2k / (N - 1) - 1|."""

    kind = "bartlett"


@register
class BlackmanWindow(_Window):
    """`BlackmanWindow(periodic=True, dtype=mstype.float32)(window_length)`: the window
    0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))."""

    kind = "blackman"


@register
class HammingWindow(_Window):
    """`HammingWindow(periodic=True, alpha=0.54, beta=0.46, dtype=mstype.float32)(length)`:
    alpha - beta cos(2 pi k / (N - 1)); `length` is a 1-D integer tensor of one element."""

    kind = "hamming"
    inputs = ("length",)
    length_ndim = 1

    def __init__(self, periodic=True, alpha=0.54, beta=0.46, dtype=mstype.float32):
        super().__init__(periodic, dtype)
        self.alpha = check_float(alpha, "alpha", self.name)
        self.beta = check_float(beta, "beta", self.name)

    def _params(self):
        return {"alpha": self.alpha, "beta": self.beta}


math_ops.use_conj(Conj())  # the product rule's conjugates for complex gradients
