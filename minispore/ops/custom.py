"""`ops.Custom`: a user operator from a Python (NumPy) function, with an optional Python bprop;
`ops.Morph`: a user function of minispore ops used as one operator in graph code."""
import numpy as np

from .. import context
from .._autodiff.custom import call_with_bprop, user_grads
from .._autodiff.tape import _state, apply
from .._validator import check_callable, check_one_of
from ..common import dtype as mstype
from .primitive import Primitive

__all__ = ["Custom", "Morph"]

# MindSpore's func_type values; only "pyfunc" runs without a device compiler.
_FUNC_TYPES = ("hybrid", "akg", "tbe", "aicpu", "aot", "pyfunc")


class Custom(Primitive):
    """`Custom(func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None,
    reg_info=None)`: an operator running `func` on the NumPy arrays of its inputs.

    Args:
        func (callable): the forward, NumPy arrays in, an array (or a tuple of arrays) out.
        out_shape: the output shape (a tuple of ints; a tuple of shapes for several outputs), or
            a callable taking the input shapes and returning it. None: not checked.
        out_dtype: the output dtype (a tuple of dtypes for several outputs), or a callable taking
            the input dtypes. The result is cast to it. None: as `func` returns it.
        func_type (str): only "pyfunc" is supported; MindSpore's other kinds ("hybrid", "akg",
            "tbe", "aicpu", "aot") compile device kernels, which minispore cannot.
        bprop (callable): `bprop(*inputs, out, dout)` returning one gradient per input, written
            with minispore ops (then it is differentiable again). Without it, differentiating
            the operator raises RuntimeError in the backward pass, as in MindSpore.
        reg_info: kernel registration info; accepted and ignored.

    Raises:
        ValueError: an unknown or unsupported `func_type` (MindSpore raises ValueError for an
            unknown one and fails at compile time for the others); at call time, an output of
            another shape than `out_shape`.
        TypeError: `func` or `bprop` not callable, a malformed `out_shape` or `out_dtype`.

    Example:
        >>> double = ops.Custom(lambda x: x * 2, out_shape=lambda s: s, out_dtype=lambda d: d,
        ...                     bprop=lambda x, out, dout: (dout * 2,))
    """

    inputs = "*"

    def __init__(self, func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None,
                 reg_info=None):
        super().__init__()
        check_one_of(func_type, _FUNC_TYPES, "func_type", "Custom")
        if func_type != "pyfunc":
            raise ValueError(f"For 'Custom', func_type {func_type!r} builds a device kernel, "
                             "which minispore cannot compile: only 'pyfunc' (a NumPy function) "
                             "is supported")
        check_callable(func, "func", "Custom")
        if bprop is not None:
            check_callable(bprop, "bprop", "Custom")
        self.func_name = getattr(func, "__name__", type(func).__name__)
        self.func_type = func_type
        self._func = func
        self._out_shape = _check_shape_spec(out_shape)
        self._out_dtype = _check_dtype_spec(out_dtype)
        self._bprop = bprop

    def __call__(self, *inputs):
        return apply(self, inputs)

    def forward(self, *arrays):
        out = self._func(*arrays)
        shape, dtype = self._out_shape, self._out_dtype
        if callable(shape):
            shape = _check_shape_spec(shape(*[tuple(np.shape(a)) for a in arrays]))
        if callable(dtype):
            dtype = _check_dtype_spec(dtype(*[mstype.NP_TO_MS.get(np.asarray(a).dtype)
                                              for a in arrays]))
        multi = isinstance(out, (tuple, list))
        outs = list(out) if multi else [out]
        shapes = _per_output(shape, len(outs), multi, "out_shape", _is_shape)
        dtypes = _per_output(dtype, len(outs), multi, "out_dtype", lambda d: not isinstance(
            d, (tuple, list)))
        for k, (o, s, d) in enumerate(zip(outs, shapes, dtypes)):
            o = np.asarray(o)
            if s is not None and o.shape != tuple(s):
                raise ValueError(f"For 'Custom' ({self.func_name}), output {k} has shape "
                                 f"{o.shape}, but out_shape says {tuple(s)}")
            if d is not None:
                o = o.astype(mstype.to_np(d), copy=False)
            outs[k] = o
        return tuple(outs) if multi else outs[0]

    def bprop(self, saved, dout, needs):
        if self._bprop is None:
            raise RuntimeError(f"For 'Custom' ({self.func_name}), no bprop was given, so it has "
                               "no gradient: pass bprop=... to differentiate it")
        inputs, out = saved[:-1], saved[-1]
        return user_grads(f"Custom ({self.func_name})", self._bprop(*inputs, out, dout), inputs,
                          needs)


def _is_shape(s):
    return isinstance(s, (tuple, list)) and all(
        isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in s)


def _check_shape_spec(spec):
    if spec is None or callable(spec) or _is_shape(spec):
        return spec
    if isinstance(spec, (tuple, list)) and spec and all(_is_shape(s) for s in spec):
        return spec
    raise TypeError(f"For 'Custom', 'out_shape' must be a tuple of ints, a tuple of such tuples "
                    f"or a callable, but got {spec!r}")


def _check_dtype_spec(spec):
    if spec is None or (callable(spec) and not isinstance(spec, (mstype.Type, np.dtype, type))):
        return spec  # (dtype classes such as np.float32 are callable too)
    for d in spec if isinstance(spec, (tuple, list)) else (spec,):
        try:
            mstype.to_np(d)
        except TypeError:
            raise TypeError(f"For 'Custom', 'out_dtype' must be a dtype, a tuple of dtypes or a "
                            f"callable, but got {spec!r}") from None
    return spec


def _per_output(spec, n, multi, name, is_single):
    """`spec` (None, one value, or one per output) as a list with one entry per output."""
    if spec is None:
        return [None] * n
    if is_single(spec):
        if multi:
            raise ValueError(f"For 'Custom', the function returned {n} outputs but '{name}' "
                             "describes one")
        return [spec]
    if not multi or len(spec) != n:
        got = n if multi else 1
        raise ValueError(f"For 'Custom', the function returned {got} output(s) but '{name}' "
                         f"describes {len(spec)}")
    return list(spec)


class Morph(Primitive):
    """`Morph(fn, infer_shape, infer_dtype, bprop_fn=None)`: `fn` (written with minispore ops)
    used as one operator. As in MindSpore it runs only in graph code: inside a `jit` function or
    a Cell call under GRAPH_MODE (elsewhere RuntimeError). The call is `fn` applied to the
    inputs, so gradients flow through `fn`'s ops, unless `bprop_fn(*inputs, out, dout)` gives
    them (one per input). `infer_shape` and `infer_dtype` are kept as attributes; as in
    MindSpore 2.10, the output is `fn`'s whatever they return."""

    def __init__(self, fn, infer_shape, infer_dtype, bprop_fn=None):
        super().__init__()
        for name, f in (("fn", fn), ("infer_shape", infer_shape), ("infer_dtype", infer_dtype)):
            check_callable(f, name, "Morph")
        if bprop_fn is not None:
            check_callable(bprop_fn, "bprop_fn", "Morph")
        self.__dict__["_fn"] = fn
        self.__dict__["infer_shape"] = infer_shape
        self.__dict__["infer_dtype"] = infer_dtype
        self.__dict__["bprop_fn"] = bprop_fn

    def __call__(self, *args):
        if not _state.jit_depth and context.get_context("mode") != context.GRAPH_MODE:
            raise RuntimeError("Morph is only supported in GRAPH_MODE.")
        if self.bprop_fn is None:
            return self._fn(*args)
        return call_with_bprop(_MorphBprop(self.bprop_fn), self._fn, args, {})


class _MorphBprop:
    """What `call_with_bprop` reads of a Cell with a `bprop`: the user's backward function."""

    __slots__ = ("bprop",)

    def __init__(self, bprop):
        self.bprop = bprop


_MorphBprop.__name__ = "Morph"  # the node's name in gradient errors: 'Morph.bprop'
