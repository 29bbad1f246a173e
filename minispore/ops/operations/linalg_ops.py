"""Linear-algebra primitives: MatMul and BatchMatMul (transposes as attributes, NumPy's
broadcasting of batch axes), and the singular values that norms use."""
import numpy as np

from ..._autodiff.tape import apply, recording
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..primitive import Primitive, register
from .math_ops import _const, _f32, cast

@register
class MatMul(Primitive):
    """2-D op(a) @ op(b), op = transpose when `transpose_a`/`transpose_b`.
    With no transposes: da = dout @ b^T;  db = a^T @ dout."""

    amp_auto = "low"
    inputs = ("a", "b")
    saves = ("a", "b")

    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__()
        self.transpose_a, self.transpose_b = bool(transpose_a), bool(transpose_b)

    def __call__(self, a, b):
        return apply(self, _matmul_operands(self.name, a, b))

    def forward(self, a, b):
        if a.ndim != 2 or b.ndim != 2:
            raise ValueError(f"For '{self.name}', the inputs must be 2-D, but got shapes "
                             f"{a.shape} and {b.shape}")
        return _matmul_nd(self, a, b)

    def bprop(self, saved, dout, needs):
        a, b = saved
        return _matmul_grads(type(self), self.transpose_a, self.transpose_b, a, b, dout, needs)


@register
class BatchMatMul(MatMul):
    """Batched op(a) @ op(b) on the last two dims; batch dims broadcast."""

    amp_auto = "low"
    broadcasts = True

    def forward(self, a, b):
        if a.ndim < 2 or b.ndim < 2:
            raise ValueError(f"For '{self.name}', the inputs must be at least 2-D, but got "
                             f"shapes {a.shape} and {b.shape}")
        return _matmul_nd(self, a, b)


def _matmul_operands(name, a, b):
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError(f"For '{name}', the inputs must be Tensors, but got "
                        f"{type(a).__name__} and {type(b).__name__}")
    if a._data.dtype != b._data.dtype:
        dt = mstype.promote(a._data.dtype, b._data.dtype)
        a, b = cast(a, dt), cast(b, dt)
    return a, b


def _matmul_nd(prim, a, b):
    if prim.transpose_a:
        a = np.swapaxes(a, -1, -2)
    if prim.transpose_b:
        b = np.swapaxes(b, -1, -2)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"For '{prim.name}', the contracted dimensions differ: shapes "
                         f"{a.shape} and {b.shape} (after transposes) cannot be multiplied")
    try:
        return np.matmul(a, b)
    except ValueError:
        raise ValueError(f"For '{prim.name}', the batch dimensions of {a.shape} and {b.shape} "
                         "do not broadcast") from None


_MATMUL_CACHE = {}


def _mm(cls, ta, tb):
    key = (cls, ta, tb)
    p = _MATMUL_CACHE.get(key)
    if p is None:
        p = _MATMUL_CACHE[key] = cls(ta, tb)
    return p


def _matmul_grads(cls, ta, tb, a, b, dout, needs):
    """da, db for out = op_a(a) @ op_b(b), each one matmul with transpose flags, no copies."""
    if not ta and not tb:
        da = _mm(cls, False, True)(dout, b) if needs[0] else None
        db = _mm(cls, True, False)(a, dout) if needs[1] else None
    elif ta and not tb:
        da = _mm(cls, False, True)(b, dout) if needs[0] else None
        db = _mm(cls, False, False)(a, dout) if needs[1] else None
    elif not ta and tb:
        da = _mm(cls, False, False)(dout, b) if needs[0] else None
        db = _mm(cls, True, False)(dout, a) if needs[1] else None
    else:
        da = _mm(cls, True, True)(b, dout) if needs[0] else None
        db = _mm(cls, True, True)(dout, a) if needs[1] else None
    return da, db


# ================================ linear-algebra helpers ==========================================

@register
class SingularValues(Primitive):
    """The singular values of the matrices in the last two axes, descending (for the spectral
    and nuclear norms).  dx = U diag(dout) V^T from x's thin SVD. Only first derivatives: the
    second needs the derivatives of U and V, which this rule does not build, so it refuses to
    run under an outer gradient transform instead of giving a wrong answer."""

    internal = True
    saves = ("x",)

    def forward(self, x):
        if x.ndim < 2:
            raise ValueError(f"For '{self.name}', the input must be at least 2-D, but got shape "
                             f"{x.shape}")
        return np.linalg.svd(x.astype(_f32) if x.dtype.kind not in "fc" else x,
                             compute_uv=False)

    def bprop(self, saved, dout, needs):
        if recording() is not None:
            raise RuntimeError("For 'norm', second derivatives of the spectral and nuclear "
                               "norms (ord=2, -2, 'nuc') are not implemented")
        x = saved[0]._data
        u, _, vt = np.linalg.svd(x, full_matrices=False)
        return (_const(np.matmul(u * dout._data[..., None, :], vt).astype(x.dtype, copy=False)),)
