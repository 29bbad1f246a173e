"""Specs of the fft primitives (same format as specs.py).

The spec table's gradients are real-valued, so the complex primitives are checked through real
functions: a complex input is drawn as its real and imaginary parts joined by Complex, and a
complex output is returned as its (real, imaginary) pair. The gradients so checked are those of
MindSpore's convention dL/dRe(z) + i dL/dIm(z)."""
import numpy as np
from hypothesis import strategies as st

from minispore import Tensor
from minispore.common import dtype as mstype
from minispore.ops.operations import fft_ops as F

from ..helpers import strategies as S
from .specs import arr, spec

NORMS = ("backward", "forward", "ortho")
AWAY = S.Domain(0.3, 3)


def _parts(z):
    return F.real(z), F.imag(z)


def _np_parts(z):
    return np.real(z), np.imag(z)


def _draw_axes(data, shape):
    k = data.draw(st.integers(1, len(shape)))
    return tuple(data.draw(st.permutations(range(len(shape))))[:k])


def _draw_signal(data, min_last=1):
    shape = data.draw(S.shapes(1, 3, min_side=1, max_side=4))
    shape = shape[:-1] + (max(shape[-1], min_last),)
    return shape


def _draw_c2c(data):
    shape = _draw_signal(data)
    attrs = {"axes": _draw_axes(data, shape), "inverse": data.draw(st.booleans()),
             "norm": data.draw(st.sampled_from(NORMS)), "complex": data.draw(st.booleans())}
    args = [arr(data, shape)]
    if attrs["complex"]:
        args.append(arr(data, shape))
    return args, attrs


def _input(a, parts):
    return F.make_complex(*parts) if a["complex"] else parts[0]


def _np_input(a, parts):
    return parts[0] + 1j * parts[1] if a["complex"] else parts[0]


def _call_c2c(a, *parts):
    return _parts(F.FFTC2C(a["axes"], a["inverse"], a["norm"])(_input(a, parts)))


def _ref_c2c(a, *parts):
    fn = np.fft.ifftn if a["inverse"] else np.fft.fftn
    return _np_parts(fn(_np_input(a, parts), axes=a["axes"], norm=a["norm"]))


spec("FFTC2C", _draw_c2c, _call_c2c, _ref_c2c,
     notes="complex inputs enter through Complex and leave as (Real, Imag)")


def _draw_r2c(data):
    args, attrs = _draw_c2c(data)
    return args, attrs


def _call_r2c(a, *parts):
    return _parts(F.FFTR2C(a["axes"], a["inverse"], a["norm"])(_input(a, parts)))


def _ref_r2c(a, *parts):
    x = _np_input(a, parts)
    fn = np.fft.ifftn if a["inverse"] else np.fft.fftn
    full = fn(x, axes=a["axes"], norm=a["norm"])
    last = a["axes"][-1]
    index = [slice(None)] * x.ndim
    index[last] = slice(0, x.shape[last] // 2 + 1)
    return _np_parts(full[tuple(index)])


spec("FFTR2C", _draw_r2c, _call_r2c, _ref_r2c,
     notes="MindSpore's rfft of a complex input keeps the first half of its full DFT")


def _draw_c2r(data):
    shape = _draw_signal(data)
    axes = _draw_axes(data, shape)
    n = data.draw(st.integers(1, 7))
    shape = list(shape)
    shape[axes[-1]] = n // 2 + 1
    attrs = {"axes": axes, "n": n, "norm": data.draw(st.sampled_from(NORMS)),
             "complex": data.draw(st.booleans())}
    args = [arr(data, tuple(shape))]
    if attrs["complex"]:
        args.append(arr(data, tuple(shape)))
    return args, attrs


def _call_c2r(a, *parts):
    return F.FFTC2R(a["axes"], a["n"], a["norm"])(_input(a, parts))


def _ref_c2r(a, *parts):
    x = _np_input(a, parts).astype(complex)
    sizes = [x.shape[ax] for ax in a["axes"][:-1]] + [a["n"]]
    return np.fft.irfftn(x, s=sizes, axes=a["axes"], norm=a["norm"])


spec("FFTC2R", _draw_c2r, _call_c2r, _ref_c2r,
     notes="the imaginary parts of the zero and Nyquist bins have zero gradient")


# ---- complex numbers --------------------------------------------------------------------------

def _draw_pair(domain=S.REALS):
    def draw(data):
        shape = data.draw(S.shapes(0, 3))
        return [arr(data, shape, domain), arr(data, shape, domain)], {}
    return draw


def _draw_complex_or_real(data):
    shape = data.draw(S.shapes(0, 3))
    attrs = {"complex": data.draw(st.booleans())}
    args = [arr(data, shape)]
    if attrs["complex"]:
        args.append(arr(data, shape))
    return args, attrs


spec("Real", _draw_complex_or_real, lambda a, *p: F.Real()(_input(a, p)),
     lambda a, *p: np.real(_np_input(a, p)))
spec("Imag", _draw_complex_or_real, lambda a, *p: F.Imag()(_input(a, p)),
     lambda a, *p: np.imag(_np_input(a, p)) if a["complex"] else np.zeros_like(p[0]))
spec("Conj", _draw_complex_or_real,
     lambda a, *p: _parts(F.Conj()(_input(a, p))) if a["complex"] else F.Conj()(p[0]),
     lambda a, *p: _np_parts(np.conj(_np_input(a, p))) if a["complex"] else p[0])


def _draw_complex_broadcast(data):
    sx, sy = data.draw(S.broadcastable_shapes(2))
    return [arr(data, sx), arr(data, sy)], {}


spec("Complex", _draw_complex_broadcast, lambda a, x, y: _parts(F.Complex()(x, y)),
     lambda a, x, y: tuple(np.broadcast_arrays(x, y)))
spec("Angle", _draw_pair(S.AWAY_FROM_ZERO),
     lambda a, x, y: F.Angle()(F.make_complex(x, y)), lambda a, x, y: np.angle(x + 1j * y),
     notes="parts away from zero: the phase is singular at the origin")
spec("ComplexAbs", _draw_pair(S.AWAY_FROM_ZERO),
     lambda a, x, y: F.ComplexAbs()(F.make_complex(x, y)), lambda a, x, y: np.hypot(x, y),
     notes="parts away from zero: the modulus has a kink at the origin")
spec("Polar", _draw_pair(), lambda a, r, t: _parts(F.Polar()(r, t)),
     lambda a, r, t: (r * np.cos(t), r * np.sin(t)))


# ---- windows (integer lengths: no gradient) ------------------------------------------------------

def _draw_window(data):
    return [], {"n": data.draw(st.integers(0, 9)), "periodic": data.draw(st.booleans()),
                "dtype": mstype.float64}


def _sym(window):
    def ref(a):
        n = a["n"]
        if n <= 1:
            return np.ones(n)
        return window(n + 1)[:n] if a["periodic"] else window(n)
    return ref


def _call_window(cls):
    return lambda a: cls(a["periodic"], a["dtype"])(Tensor(np.int64(a["n"])))


spec("BartlettWindow", _draw_window, _call_window(F.BartlettWindow), _sym(np.bartlett),
     order=0)
spec("BlackmanWindow", _draw_window, _call_window(F.BlackmanWindow), _sym(np.blackman),
     order=0)


def _draw_hamming(data):
    args, attrs = _draw_window(data)
    attrs["alpha"] = data.draw(st.floats(0.3, 0.7))
    attrs["beta"] = 1.0 - attrs["alpha"]
    return args, attrs


def _ref_hamming(a):
    n = a["n"]
    if n <= 1:
        return np.ones(n)
    m = n + 1 if a["periodic"] else n
    return (a["alpha"] - a["beta"] * np.cos(2 * np.pi * np.arange(m) / (m - 1)))[:n]


spec("HammingWindow", _draw_hamming,
     lambda a: F.HammingWindow(a["periodic"], a["alpha"], a["beta"], a["dtype"])(
         Tensor(np.array([a["n"]], np.int32))),
     _ref_hamming, order=0)
