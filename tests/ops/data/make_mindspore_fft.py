"""Make mindspore_fft.npz: inputs, outputs, result dtypes and input gradients of MindSpore 2.10's
FFT family (ops.fft ... ops.ihfftn, fftshift, fftfreq), complex-number ops (angle, conj, real,
imag, polar, view_as_real, Complex, ComplexAbs), windows, stft / STFT and FFTWithSize, and the
signatures of those names, for tests/ops/test_fft_family.py. Run with real MindSpore (CPU):

    /tmp/msvenv/bin/python tests/ops/data/make_mindspore_fft.py

Each case is stored under `out|<key>` (and `dtype|<key>`, `grad|<key>` / `grad1|<key>`), the key
being `<function>|<input names>|<keyword arguments as JSON>`. The loss whose gradient is stored
is sum(Re(out) * cos(0.7 k + 0.3) + Im(out) * sin(1.3 k)) over the flat output index k.
"""
import inspect
import json
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, ops

rng = np.random.default_rng(0)
data = {}

INPUTS = {
    "xr": rng.standard_normal((3, 6)).astype(np.float32),
    "xp": rng.uniform(0.5, 2.0, (3, 6)).astype(np.float32),
    "zc": (rng.standard_normal((3, 6)) + 1j * rng.standard_normal((3, 6))).astype(np.complex64),
    "m3": rng.standard_normal((2, 3, 4)).astype(np.float32),
    "z3": (rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))).astype(
        np.complex64),
    "x64": rng.standard_normal((2, 5)),
    "sig": np.sin(np.arange(24) * 0.4).astype(np.float32) + rng.standard_normal(24).astype(
        np.float32) * 0.1,
    "sig2": rng.standard_normal((2, 20)).astype(np.float32),
}
for k, v in INPUTS.items():
    data[f"in|{k}"] = v


def weights(shape, dtype):
    k = np.arange(int(np.prod(shape)), dtype=np.float64)
    return (np.cos(0.7 * k + 0.3).reshape(shape).astype(dtype),
            np.sin(1.3 * k).reshape(shape).astype(dtype))


def loss_of(fn):
    def loss(*args):
        out = fn(*args)
        real_dt = ms.float64 if out.dtype in (ms.float64, ms.complex128) else ms.float32
        wr, wi = weights(out.shape, np.float64 if real_dt == ms.float64 else np.float32)
        if out.dtype in (ms.complex64, ms.complex128):
            return (ops.real(out) * Tensor(wr)).sum() + (ops.imag(out) * Tensor(wi)).sum()
        return (out * Tensor(wr)).sum()
    return loss


def case(name, fn, inputs, kwargs=None, grad=True, label=None):
    kwargs = kwargs or {}
    key = f"{name}|{','.join(inputs)}|{json.dumps(label or kwargs, sort_keys=True)}"
    args = [Tensor(INPUTS[i]) for i in inputs]
    call = (lambda *a: fn(*a, **kwargs))
    out = call(*args)
    data[f"out|{key}"] = out.asnumpy()
    data[f"dtype|{key}"] = np.array(str(out.dtype))
    if grad:
        if os.environ.get("FFT_TRACE"):
            print(key, flush=True)
        positions = tuple(range(len(args)))
        g = ms.grad(loss_of(call), grad_position=positions)(*args)
        g = g if isinstance(g, tuple) else (g,)
        for i, gi in enumerate(g):
            data[f"grad{i}|{key}"] = gi.asnumpy()


for name in ("fft", "ifft", "rfft", "ihfft"):
    for kw in ({}, {"n": 4}, {"n": 8, "dim": 0}, {"norm": "ortho"}, {"norm": "forward", "dim": 0}):
        case(name, getattr(ops, name), ["xr"], kw)
    for kw in ({}, {"n": 5, "norm": "ortho"}):
        case(name, getattr(ops, name), ["zc"], kw)
for name in ("irfft", "hfft"):
    for kw in ({}, {"n": 7}, {"n": 4, "dim": 0, "norm": "ortho"}, {"norm": "forward"}):
        case(name, getattr(ops, name), ["zc"], kw)
    case(name, getattr(ops, name), ["xr"], {})
for name in ("fft", "rfft", "irfft", "hfft", "ihfft"):
    case(name, getattr(ops, name), ["x64"], {}, grad=False)
for name in ("fft2", "ifft2", "rfft2", "ihfft2", "fftn", "ifftn", "rfftn", "ihfftn"):
    kws = ({}, {"s": [2, 5]}, {"dim": [0, 2], "norm": "ortho"}) if name.endswith("2") else \
        ({}, {"s": [3, 3]}, {"dim": [2, 0], "norm": "forward"})
    for kw in kws:
        case(name, getattr(ops, name), ["m3"], kw)
    case(name, getattr(ops, name), ["z3"], {})
for name in ("irfft2", "hfft2", "irfftn", "hfftn"):
    kws = ({}, {"s": [4, 5]}, {"dim": [0, 1], "norm": "ortho"})
    if name.endswith("n"):
        kws += ({"s": [3, 2, 6]},)
    for kw in kws:
        # MindSpore 2.10's CPU backward of irfftn/hfftn with `s` crashes (segfault): values only
        case(name, getattr(ops, name), ["z3"], kw, grad=not (name.endswith("n") and "s" in kw))
for name in ("fftshift", "ifftshift"):
    for kw in ({}, {"dim": 1}, {"dim": [0]}):
        case(name, getattr(ops, name), ["xr"], kw)
for name, kw in (("fftfreq", {"n": 5}), ("fftfreq", {"n": 4, "d": 0.5, "dtype": "float64"}),
                 ("rfftfreq", {"n": 5}), ("rfftfreq", {"n": 4, "d": 0.1, "dtype": "float64"})):
    args = dict(kw)
    if "dtype" in args:
        args["dtype"] = getattr(ms, args["dtype"])
    out = getattr(ops, name)(**args)
    key = f"{name}||{json.dumps(kw, sort_keys=True)}"
    data[f"out|{key}"] = out.asnumpy()
    data[f"dtype|{key}"] = np.array(str(out.dtype))

# complex numbers
for name in ("angle", "conj", "real", "imag", "view_as_real"):
    case(name, getattr(ops, name), ["zc"])
for name in ("conj", "real", "imag"):
    case(name, getattr(ops, name), ["xr"], grad=False)
case("polar", ops.polar, ["xp", "xr"])
case("Complex", lambda a, b: ops.Complex()(a, b), ["xr", "xp"])
case("ComplexAbs", lambda z: ops.ComplexAbs()(z), ["zc"])
case("ConjugateTranspose", lambda z: ops.ConjugateTranspose()(z, (1, 0)), ["zc"], grad=False)
case("abs_fft", lambda x: ops.real(ops.abs(ops.fft(x))), ["xr"])  # its abs is complex

# windows
for name in ("hann_window", "hamming_window", "kaiser_window"):
    for n in (0, 1, 2, 5, 8):
        for periodic in (True, False):
            out = getattr(ops, name)(n, periodic)
            key = f"{name}||{json.dumps({'window_length': n, 'periodic': periodic})}"
            data[f"out|{key}"], data[f"dtype|{key}"] = out.asnumpy(), np.array(str(out.dtype))
for name, kw in (("hamming_window", {"alpha": 0.5, "beta": 0.5}), ("kaiser_window", {"beta": 3.0}),
                 ("hann_window", {"dtype": "float32"}), ("kaiser_window", {"dtype": "float16"})):
    args = dict(kw)
    if "dtype" in args:
        args["dtype"] = getattr(ms, args["dtype"])
    out = getattr(ops, name)(7, False, **args)
    key = f"{name}||{json.dumps(dict(kw, window_length=7, periodic=False), sort_keys=True)}"
    data[f"out|{key}"], data[f"dtype|{key}"] = out.asnumpy(), np.array(str(out.dtype))
for name in ("bartlett_window", "blackman_window"):
    for n in (0, 1, 2, 5, 8):
        for periodic in (True, False):
            out = getattr(ops, name)(Tensor(n), periodic)
            key = f"{name}||{json.dumps({'window_length': n, 'periodic': periodic})}"
            data[f"out|{key}"], data[f"dtype|{key}"] = out.asnumpy(), np.array(str(out.dtype))
for name in ("BartlettWindow", "BlackmanWindow", "HammingWindow"):
    for periodic in (True, False):
        length = Tensor(np.array([6] if name == "HammingWindow" else 6, np.int64))
        out = getattr(ops, name)(periodic, dtype=ms.float64)(length)
        key = f"{name}||{json.dumps({'periodic': periodic})}"
        data[f"out|{key}"], data[f"dtype|{key}"] = out.asnumpy(), np.array(str(out.dtype))

# stft (MindSpore's STFT has no bprop: values only)
HANN8 = np.hanning(10)[1:-1].astype(np.float32)
STFT_CASES = {
    "default": dict(n_fft=8),
    "complex": dict(n_fft=8, return_complex=True),
    "hop_win": dict(n_fft=8, hop_length=3, win_length=6, window="ones6", return_complex=True),
    "hann_constant": dict(n_fft=8, hop_length=4, window="hann8", pad_mode="CONSTANT",
                          normalized=True, return_complex=True),
    "twosided": dict(n_fft=6, hop_length=5, onesided=False, center=False, return_complex=True),
}
for sig in ("sig", "sig2"):
    for name, kw in STFT_CASES.items():
        args = dict(kw)
        if "window" in args:
            args["window"] = Tensor(np.ones(6, np.float32) if args["window"] == "ones6"
                                    else HANN8)
        out = ops.stft(Tensor(INPUTS[sig]), **args)
        key = f"stft|{sig}|{json.dumps(kw, sort_keys=True)}"
        data[f"out|{key}"], data[f"dtype|{key}"] = out.asnumpy(), np.array(str(out.dtype))
data["in|hann8"] = HANN8
for name, attrs in {"prim": (8, 2, 8, False, True, True), "prim_norm": (8, 3, 8, True, False, True),
                    "prim_real": (6, 2, 6, False, True, False)}.items():
    window = Tensor(HANN8[:attrs[2]] if attrs[2] == 8 else np.ones(attrs[2], np.float32))
    out = ops.STFT(*attrs)(Tensor(INPUTS["sig"]), window)
    key = f"STFT|sig|{json.dumps(list(attrs))}"
    data[f"out|{key}"], data[f"dtype|{key}"] = out.asnumpy(), np.array(str(out.dtype))

# FFTWithSize
FWS = {
    "c2c": (dict(signal_ndim=2, inverse=False, real=False), "z3"),
    "ic2c": (dict(signal_ndim=1, inverse=True, real=False, norm="ortho"), "z3"),
    "r2c": (dict(signal_ndim=2, inverse=False, real=True), "m3"),
    "r2c_full": (dict(signal_ndim=1, inverse=False, real=True, norm="forward", onesided=False),
                 "m3"),
    "c2r": (dict(signal_ndim=2, inverse=True, real=True), "z3"),
    "c2r_sizes": (dict(signal_ndim=1, inverse=True, real=True, signal_sizes=(7,)), "z3"),
}
for name, (attrs, inp) in FWS.items():
    case("FFTWithSize", lambda x, attrs=attrs: ops.FFTWithSize(**attrs)(x), [inp],
         label={"attrs": {k: list(v) if isinstance(v, tuple) else v for k, v in attrs.items()}})

# signatures
names = ["fft", "fft2", "fftn", "ifft", "ifft2", "ifftn", "rfft", "rfft2", "rfftn", "irfft",
         "irfft2", "irfftn", "hfft", "hfft2", "hfftn", "ihfft", "ihfft2", "ihfftn", "fftshift",
         "ifftshift", "fftfreq", "rfftfreq", "stft", "angle", "conj", "imag", "real", "polar",
         "view_as_real", "is_complex", "isreal", "bartlett_window", "blackman_window",
         "hamming_window", "hann_window", "kaiser_window"]
classes = ["FFTWithSize", "STFT", "Angle", "Complex", "ComplexAbs", "Conj", "ConjugateTranspose",
           "Imag", "Real", "Polar", "BartlettWindow", "BlackmanWindow", "HammingWindow"]
sigs = {n: str(inspect.signature(getattr(ops, n))) for n in names}
sigs.update({n: str(inspect.signature(getattr(ops, n).__init__)).replace("(self, ", "(")
             .replace("(self)", "()") for n in classes})
data["signatures"] = np.array(json.dumps(sigs))

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_fft.npz")
np.savez_compressed(path, **data)
print(path, len(data), os.path.getsize(path))
