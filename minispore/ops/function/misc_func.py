"""The last MindSpore ops classes that compose existing primitives: `LogSoftmaxExt`, the
mint-style log-softmax (a `dim` chosen as PyTorch's when omitted, an optional cast first), the
view classes `TransposeView`, `TransposeExtView`, `SelectView`, `CopyWithSlice` and `Reusing`."""
from ... import _validator as V
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import math_ops as M
from ..operations._kernels import normalize_axis
from ..primitive import Primitive
from . import array_func as AF
from . import graph_func as GF
from . import nn_func as NF

__all__ = []

PRIMITIVE_CLASSES = ("CopyWithSlice", "LogSoftmaxExt", "Reusing", "SelectView",
                     "TransposeExtView", "TransposeView")


def _default_softmax_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


class LogSoftmaxExt(Primitive):
    """`LogSoftmaxExt()(input, dim=None, dtype=None)`: input (cast to `dtype` first when given)
    minus its logsumexp along `dim`; without `dim`, 0 for 0-, 1- and 3-D inputs, else 1."""

    def __init__(self):
        super().__init__()

    def __call__(self, input, dim=None, dtype=None):
        V.check_type(input, Tensor, "input", "LogSoftmaxExt", "a Tensor")
        if dtype is not None:
            input = M.cast(input, dtype)
        if input.dtype not in mstype.float_type:
            raise TypeError(f"For 'LogSoftmaxExt', 'input' must be float16, float32, float64 or "
                            f"bfloat16, but got {input.dtype}")
        ndim = input.ndim
        dim = _default_softmax_dim(ndim) if dim is None else V.check_int(dim, "dim",
                                                                          "LogSoftmaxExt")
        if not -max(ndim, 1) <= dim < max(ndim, 1):
            raise ValueError(f"For 'LogSoftmaxExt', 'dim' must be in [{-max(ndim, 1)}, "
                             f"{max(ndim, 1)}), but got {dim}")
        return NF.log_softmax(input, dim)


class TransposeView(Primitive):
    """`TransposeView()(input, input_perm)`: input with its axes permuted by the tuple
    `input_perm` (negative axes count from the end)."""

    def __init__(self):
        super().__init__()

    def __call__(self, input, input_perm):
        V.check_type(input, Tensor, "input", "TransposeView", "a Tensor")
        V.check_type(input_perm, tuple, "input_perm", "TransposeView", "a tuple of int")
        perm = [normalize_axis(V.check_int(p, "input_perm", "TransposeView"), input.ndim,
                               "TransposeView") for p in input_perm]
        if sorted(perm) != list(range(input.ndim)):
            raise ValueError(f"For 'TransposeView', 'input_perm' must be a permutation of the "
                             f"{input.ndim} axes of 'input', but got {input_perm}")
        return AF.transpose(input, perm)


class TransposeExtView(Primitive):
    """`TransposeExtView()(input, dim0, dim1)`: input with axes dim0 and dim1 exchanged."""

    def __init__(self):
        super().__init__()

    def __call__(self, input, dim0, dim1):
        V.check_type(input, Tensor, "input", "TransposeExtView", "a Tensor")
        dim0 = V.check_int(dim0, "dim0", "TransposeExtView")
        dim1 = V.check_int(dim1, "dim1", "TransposeExtView")
        return AF.swapaxes(input, dim0, dim1)


class SelectView(Primitive):
    """`SelectView()(input, index, dim)`: the slice input[..., index, ...] at position `index`
    (0 <= index < size) of axis `dim`, that axis removed."""

    def __init__(self):
        super().__init__()

    def __call__(self, input, index, dim):
        V.check_type(input, Tensor, "input", "SelectView", "a Tensor")
        index = V.check_int(index, "index", "SelectView")
        dim = normalize_axis(V.check_int(dim, "dim", "SelectView"), input.ndim, "SelectView")
        if not 0 <= index < input.shape[dim]:
            raise IndexError(f"For 'SelectView', 'index' must be in [0, {input.shape[dim]}) for "
                             f"axis {dim} of 'input', but got {index}")
        return A.getitem(input, (slice(None),) * dim + (index,))


class CopyWithSlice(Primitive):
    """`CopyWithSlice()(self, src)`: writes `src` (same shape and dtype) into the Tensor
    `self` in place and returns it."""

    def __init__(self):
        super().__init__()

    def __call__(self, *args):
        if len(args) != 2:
            raise TypeError(f"For 'CopyWithSlice', the call takes 2 inputs (self, src), but got "
                            f"{len(args)}")
        target, src = args
        V.check_type(target, Tensor, "self", "CopyWithSlice", "a Tensor")
        V.check_type(src, Tensor, "src", "CopyWithSlice", "a Tensor")
        if target.shape != src.shape or target.dtype != src.dtype:
            raise ValueError(f"For 'CopyWithSlice', 'src' must have the shape and dtype of "
                             f"'self' {target.shape} {target.dtype}, but got {src.shape} "
                             f"{src.dtype}")
        return GF.assign(target, src)


class Reusing(Primitive):
    """`Reusing()(input_x)`: `input_x` itself. MindSpore labels a function so that graph
    compilation keeps it as one reusable subgraph; run eagerly (as in PyNative) the label has no
    effect and the argument comes back unchanged."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x):
        return input_x
