"""The rest of MindSpore's Tensor API, bound onto Tensor at import after `_tensor_methods` (the
operators, views, in-place writes and the core methods live there).

Most of these methods are a functional op with the tensor as its first argument
(`t.lgamma()` is `ops.lgamma(t)`): `_FORWARDED` lists them. The in-place `name_` forms are made by
`_tensor_methods._inplace`, as `add_` is (version bump; under a transform the tensor is
rebound). The rest are defined here, where the method's
signature differs from the function's.
"""
import numpy as np

from .._autodiff.tape import _state
from .._validator import check_int, type_name
from ..common import _writes
from ..common import dtype as mstype
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from . import function as F
from ._tensor_methods import _inplace, _write_back
from .operations.linalg_ops import MatrixTriangularSolve

# MindSpore Tensor methods that are `ops.<name>(self, ...)` with the same remaining arguments.
_FORWARDED = """
absolute acos acosh addbmm addcdiv addcmul addmm addmv adjoint aminmax angle approximate_equal
arccos arccosh arcsin arcsinh arctan arctan2 arctanh argsort argwhere asin asinh atan atan2 atanh
baddbmm bernoulli_ bincount bitwise_and bitwise_left_shift bitwise_or bitwise_right_shift
bitwise_xor bmm cholesky cholesky_inverse cholesky_solve col2im conj copysign cosh count_nonzero
cov cross cummax cummin cumprod deg2rad det diag diagflat diagonal_scatter digamma divide dot
dsplit eigvals eq erfc erfinv exponential_ fills fliplr flipud float_power floor_divide fmax fmin
fmod fold frac gather_elements gather_nd gcd ge geqrf ger greater greater_equal gt hardshrink
heaviside histc hsplit hypot i0 igamma igammac imag index_fill inner inplace_update inv inverse
invert is_complex isclose isneginf isposinf isreal lcm ldexp le lerp less less_equal lgamma log10
log2 log_matrix_determinant logaddexp logaddexp2 logcumsumexp logdet logical_and logical_or
logical_xor logit lstsq lt lu_solve masked_select matrix_determinant matrix_power median mm
moveaxis movedim msort multinomial multiply mvlgamma nan_to_num nanmean nanmedian nanquantile
nansum ne negative nextafter normal_ not_equal orgqr ormqr outer positive quantile rad2deg
random_ random_categorical ravel real remainder renorm reverse reverse_sequence roll rot90 scatter
select_scatter sgn signbit sinc sinh slice_scatter slogdet soft_shrink subtract svd swapdims t
tensor_split top_k tril triu true_divide trunc unfold uniform_ unique_consecutive unique_with_pad
unsorted_segment_max unsorted_segment_min unsorted_segment_prod vsplit xdivy xlogy
""".split()

# In-place forms: `t.exp_()` writes ops.exp(t) into t.
_IN_PLACE = {
    "addmm_": "addmm", "clamp_": "clamp", "erfinv_": "erfinv", "exp_": "exp", "floor_": "floor",
    "floor_divide_": "floor_divide", "log_": "log", "remainder_": "remainder",
    "sigmoid_": "sigmoid", "sign_": "sign", "tanh_": "tanh", "masked_fill_": "masked_fill",
    "index_fill_": "index_fill",
}


# ---- methods whose signature differs from the functional op's -----------------------------------

def addr(self, vec1, vec2, beta=1, alpha=1):
    return F.addr(self, vec1, vec2, beta=beta, alpha=alpha)


def expand(self, *size):
    """This tensor broadcast to `size` (given as ints or one tuple; -1 keeps a dimension)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return F.broadcast_to(self, tuple(size))


def qr(self, some=True):
    """(Q, R); `some=False` gives the complete Q."""
    return F.qr(self, "reduced" if some else "complete")


def searchsorted(self, v, side="left", sorter=None):
    """Where the values `v` would be inserted into this sorted 1-D tensor (int32 positions, as
    MindSpore's method returns)."""
    return F.searchsorted(self, v, out_int32=True, side=side, sorter=sorter)


def trace(self, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum of the diagonal at `offset` of the (axis1, axis2) planes."""
    out = F.diagonal(self, offset, axis1, axis2).sum(-1)
    return out if dtype is None else out.astype(dtype)


def select(self, *args):
    """`select(dim, index)`: the slice at `index` along `dim`; `select(condition, y)`: this
    tensor where `condition` holds, else `y`."""
    if len(args) != 2:
        raise TypeError(f"For 'Tensor.select', expected (dim, index) or (condition, y), but got "
                        f"{len(args)} arguments")
    if isinstance(args[0], Tensor):
        return F.select(args[0], self, args[1])
    dim = check_int(args[0], "dim", "Tensor.select")
    index = check_int(args[1], "index", "Tensor.select")
    return F.gather(self, Tensor(np.int64(index)), dim)


def take(self, indices, axis=None, mode="clip"):
    """Elements by flat index (`axis=None`) or along `axis`; `mode` 'clip', 'wrap' or 'raise'
    handles indices out of range."""
    idx = np.asarray(indices._data if isinstance(indices, Tensor) else indices)
    n = self.size if axis is None else self.shape[axis]
    if mode == "clip":
        idx = np.clip(idx, 0, n - 1)
    elif mode == "wrap":
        idx = np.mod(idx, n)
    elif mode != "raise":
        raise ValueError(f"For 'Tensor.take', 'mode' must be 'clip', 'wrap' or 'raise', but got "
                         f"{mode!r}")
    if axis is None:
        return F.take(self, Tensor(idx))
    return F.gather(self, Tensor(idx), axis)


def index_add(self, *args, **kwargs):
    """`index_add(dim, index, source, *, alpha=1)` (a new tensor) or MindSpore's older
    `index_add(indices, y, axis)`."""
    if args and isinstance(args[0], (int, np.integer)) and not isinstance(args[0], bool):
        dim, index, source = args[:3]
        alpha = kwargs.get("alpha", 1)
        src = source if alpha == 1 else source * alpha
        return F.index_add(F.identity(self), index, src, dim)
    return F.index_add(F.identity(self), *args, **kwargs)


def index_add_(self, dim, index, source, *, alpha=1):
    return _write_back_self(self, index_add(self, dim, index, source, alpha=alpha), "index_add_")


def _write_back_self(self, out, name):
    _write_back(self, out, name)
    return self


def _tensor_scatter(fn, name):
    def method(self, indices, updates):
        return fn(self, indices, updates)
    method.__name__ = name
    method.__doc__ = f"A new tensor: this one with `updates` combined at `indices` " \
                     f"(`ops.{fn.__name__}`; MindSpore's Tensor.{name} does not write in place)."
    return method


def scatter_(self, dim, index, src):
    return _write_back_self(self, F.scatter(self, dim, index, src), "scatter_")


def scatter_add_(self, dim, index, src):
    """In place: `src` added at `index` along `dim` (duplicates accumulate)."""
    out = F.tensor_scatter_elements(self, index, src, dim, "add")
    return _write_back_self(self, out, "scatter_add_")


def masked_scatter(self, mask, source):
    """A new tensor: the elements of `source`, in order, where `mask` holds."""
    return F.scatter_func.MaskedScatter()(self, mask, source)


def masked_scatter_(self, mask, source):
    return _write_back_self(self, masked_scatter(self, mask, source), "masked_scatter_")


def index_put(self, indices, values, accumulate=False):
    """A new tensor: `values` written (or added, with `accumulate`) at the positions named by
    the tuple of index tensors `indices`."""
    index = tuple(i._data if isinstance(i, Tensor) else np.asarray(i) for i in indices)
    flat = np.ravel_multi_index(index, self.shape)
    base = F.reshape(self, (-1,))
    values = F.broadcast_to(values.astype(self.dtype), flat.shape)
    positions = Tensor(flat.reshape(-1, 1).astype(np.int64))
    if accumulate:
        out = F.tensor_scatter_add(base, positions, values)
    else:
        out = F.tensor_scatter_update(base, positions, values)
    return F.reshape(out, self.shape)


def index_put_(self, indices, values, accumulate=False):
    return _write_back_self(self, index_put(self, indices, values, accumulate), "index_put_")


def fill_diagonal(self, fill_value, wrap=False):
    """A new tensor: this one with its main diagonal set to `fill_value` (for a tall 2-D
    matrix, `wrap` restarts the diagonal every n + 1 rows, as NumPy's fill_diagonal)."""
    arr = np.zeros(self.shape, np.bool_)
    np.fill_diagonal(arr, True, wrap=wrap)
    return F.masked_fill(self, Tensor(arr), fill_value)


def fill_diagonal_(self, fill_value, wrap=False):
    return _write_back_self(self, fill_diagonal(self, fill_value, wrap), "fill_diagonal_")


def put_(self, index, source, accumulate=False):
    """In place: `source` written (or added, with `accumulate`) at the flat `index`."""
    flat = np.unravel_index(np.asarray(index._data).reshape(-1), self.shape)
    return index_put_(self, tuple(Tensor(i) for i in flat), F.reshape(source, (-1,)),
                      accumulate)


def itemset(self, *args):
    """In place: `itemset(value)` for a one-element tensor, `itemset(index, value)` otherwise;
    returns the tensor."""
    if len(args) == 1:
        if self.size != 1:
            raise ValueError(f"For 'Tensor.itemset', a tensor of {self.size} elements needs an "
                             f"index")
        index, value = (0,) * self.ndim, args[0]
    elif len(args) == 2:
        index, value = args
        if isinstance(index, (int, np.integer)):
            index = np.unravel_index(int(index), self.shape)
    else:
        raise TypeError(f"For 'Tensor.itemset', expected 1 or 2 arguments, but got {len(args)}")
    self[tuple(index)] = value
    return self


# ---- new tensors like this one ----------------------------------------------------------------------

def _size_args(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def new_zeros(self, size, dtype=None):
    return F.zeros(_size_args((size,)), self.dtype if dtype is None else dtype)


def new_ones(self, size, dtype=None):
    return F.ones(_size_args((size,)), self.dtype if dtype is None else dtype)


def new_full(self, size, fill_value, dtype=None):
    return F.full(_size_args((size,)), fill_value, dtype=self.dtype if dtype is None else dtype)


def new_empty(self, size, dtype=None):
    """A new tensor of `size` (zeros here: NumPy-backed memory is never left uninitialised)."""
    return new_zeros(self, size, dtype)


# ---- conversions and queries ------------------------------------------------------------------------

def type(self, dtype=None):
    """With no argument, the dtype's name ('Float32'); else this tensor cast to `dtype`."""
    return str(self.dtype) if dtype is None else self.astype(dtype)


def type_as(self, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"For 'Tensor.type_as', 'other' must be a Tensor, but got "
                        f"{type_name(other)}")
    return self.astype(other.dtype)


def reshape_as(self, other):
    return self.reshape(other.shape)


def value(self):
    """This tensor (MindSpore's accessor for a Parameter's or a lazy tensor's value)."""
    return self.init_data()


def numpy(self):
    return self.asnumpy()


def ndimension(self):
    return self.ndim


def is_signed(self):
    return self._data.dtype.kind in "ifc"


def ptp(self, axis=None, keepdims=False):
    """Peak to peak: max - min over `axis` (all elements by default)."""
    return F.amax(self, axis, keepdims) - F.amin(self, axis, keepdims)


def stride(self, dim=None):
    """Elements (not bytes) between neighbours along each dim of the contiguous layout."""
    steps = [s // self.itemsize for s in self.strides]
    return steps if dim is None else steps[dim]


def storage_offset(self):
    return 0


def sum_to_size(self, *size):
    """The sum of this tensor down to the broadcast-compatible `size`."""
    size = _size_args(size)
    lead = self.ndim - len(size)
    if lead < 0:
        raise ValueError(f"For 'Tensor.sum_to_size', size {size} has more dims than the tensor "
                         f"{self.shape}")
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(size)
                                      if n == 1 and self.shape[lead + i] != 1)
    out = self.sum(axes, keepdims=True) if axes else self
    return out.reshape(size)


def resize(self, *new_shape):
    """A new tensor of `new_shape` holding this one's elements in order, repeated or cut to fit
    (NumPy's resize)."""
    shape = _size_args(new_shape)
    n = int(np.prod(shape, dtype=np.int64))
    flat = F.reshape(self, (-1,))
    if self.size == 0 or n == 0:
        return F.zeros(shape, self.dtype)
    reps = -(-n // self.size)
    return F.reshape(F.tile(flat, (reps,))[:n], shape)


def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element is close (`isclose`) to `other`."""
    return bool(F.isclose(self, other, rtol, atol, equal_nan).all())


def diff(self, n=1, axis=-1, prepend=None, append=None):
    """The n-th forward difference along `axis`."""
    x = self
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, self, append) if p is not None]
        x = F.concat([p if isinstance(p, Tensor) else Tensor(p, self.dtype) for p in parts], axis)
    for _ in range(check_int(n, "n", "Tensor.diff")):
        length = x.shape[axis]
        x = F.narrow(x, axis, 1, length - 1) - F.narrow(x, axis, 0, length - 1)
    return x


def _arg_with_value(arg_fn, values_fn):
    def method(self, axis=0, keep_dims=False):
        return values_fn(self, axis, keep_dims), arg_fn(self, axis, keep_dims).astype(
            mstype.int64)
    return method


def to_coo(self):
    """The nonzero entries of this 2-D tensor as a COOTensor."""
    return F.dense_to_sparse_coo(self)


def to_csr(self):
    """The nonzero entries of this 2-D tensor as a CSRTensor."""
    return F.dense_to_sparse_csr(self)


def move_to(self, to="CPU", blocking=True):
    """This tensor on `to`: 'CPU' is where every tensor lives here."""
    if to != "CPU":
        raise ValueError(f"For 'Tensor.move_to', 'to' must be 'CPU' (the only device of "
                         f"minispore), but got {to!r}")
    return self


def log_normal(self, mean=1.0, std=2.0):
    """A new tensor of this shape and dtype drawn from the log-normal distribution."""
    return F.exp(F.normal(self.shape, mean, std)).astype(self.dtype)


def cauchy(self, median=0.0, sigma=1.0):
    """A new tensor of this shape and dtype drawn from the Cauchy distribution."""
    u = F.rand(self.shape, dtype=mstype.float64)
    return (median + sigma * F.tan(np.pi * (u - 0.5))).astype(self.dtype)


def choose(self, choices, mode="clip"):
    """NumPy's choose with this integer tensor as the index: element i comes from
    `choices[self[i]]` (the choices broadcast together with this tensor); `mode` 'clip',
    'wrap' or 'raise' handles indices out of range. Differentiable in the choices."""
    if self._data.dtype.kind not in "iu":
        raise TypeError(f"For 'Tensor.choose', the tensor must be of an integer dtype, but got "
                        f"{self.dtype}")
    parts = [c if isinstance(c, Tensor) else Tensor(c) for c in choices]
    idx = self._data.astype(np.int64)
    n = len(parts)
    if mode == "clip":
        idx = np.clip(idx, 0, n - 1)
    elif mode == "wrap":
        idx = np.mod(idx, n)
    elif mode != "raise" or (idx < 0).any() or (idx >= n).any():
        raise ValueError(f"For 'Tensor.choose', 'mode' must be 'clip', 'wrap' or 'raise' (with "
                         f"indices in [0, {n})), but got mode={mode!r}")
    shape = np.broadcast_shapes(idx.shape, *(c.shape for c in parts))
    stacked = F.stack([F.broadcast_to(c, shape) for c in parts])
    index = Tensor(np.broadcast_to(idx, shape)[None])
    return F.gather_elements(stacked, 0, index)[0]


def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
    """(X, A) with A X = self for the triangular A (its other triangle is ignored);
    `transpose` solves A^T X = self, `unitriangular` takes A's diagonal as ones."""
    if unitriangular:
        eye = Tensor(np.eye(A.shape[-1], dtype=A._data.dtype))
        A = A * (1 - eye) + eye
    solver = MatrixTriangularSolve(lower=not upper, adjoint=transpose)
    return solver(A, self), A


def set_dtype(self, dtype):
    """Convert this tensor to `dtype` in place (a new buffer; the tensor counts as written);
    returns the dtype."""
    tape = _state.tape
    if tape is not None and self._tape is tape.token:
        raise RuntimeError("For 'Tensor.set_dtype', the tensor is being differentiated: cast a "
                           "copy with astype instead")
    arr = self._data.astype(mstype.to_np(dtype))
    _writes.record(self, in_place=False)
    self._data = arr
    _writes.bump_version(self)
    return self.dtype


def index_copy_(self, dim, index, tensor):
    """In place: the slices of `tensor` along `dim` copied to positions `index` of this
    tensor."""
    dim = check_int(dim, "dim", "Tensor.index_copy_") % max(self.ndim, 1)
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.ndim != 1 or idx.dtype.kind not in "iu":
        raise TypeError("For 'Tensor.index_copy_', 'index' must be a 1-D integer Tensor")
    if tensor.shape[dim] != idx.shape[0]:
        raise ValueError(f"For 'Tensor.index_copy_', 'tensor' has {tensor.shape[dim]} slices "
                         f"along dim {dim} for {idx.shape[0]} indices")
    key = (slice(None),) * dim + (Tensor(idx.astype(np.int64)),)
    self[key] = tensor
    return self


def _draw_uniform(shape, generator):
    """float64 U[0, 1) samples of `shape`: from a `minispore.Generator` when given, else from
    the global stream that `set_seed` seeds."""
    if generator is None:
        return F.rand(shape, dtype=mstype.float64)._data
    rng = getattr(generator, "_rng", None)
    if rng is None:
        raise TypeError(f"'generator' must be a minispore.Generator, but got "
                        f"{type_name(generator)}")
    return rng.random(shape)


def bernoulli(self, *, generator=None):
    """A new tensor of 0s and 1s (this tensor's dtype), 1 with probability given by each element
    of this tensor (in [0, 1])."""
    p = self._data
    if p.dtype.kind != "f" or ((p < 0) | (p > 1)).any():
        raise ValueError("For 'Tensor.bernoulli', the tensor must hold floating-point "
                         "probabilities in [0, 1]")
    return Tensor((_draw_uniform(p.shape, generator) < p).astype(p.dtype))


def uniform(self, from_=0.0, to=1.0, generator=None):
    """A new tensor of this shape and dtype drawn uniformly from [from_, to)."""
    if not from_ <= to:
        raise ValueError(f"For 'Tensor.uniform', 'from_' must not exceed 'to', but got {from_} "
                         f"and {to}")
    u = _draw_uniform(self.shape, generator)
    return Tensor((from_ + (to - from_) * u).astype(self._data.dtype))


def _bitwise_not(self):
    if self._data.dtype.kind not in "iub":
        raise TypeError(f"For 'Tensor.bitwise_not', the tensor must be of an integer or bool "
                        f"dtype, but got {self.dtype}")
    return F.invert(self)


_IN_PLACE_METHODS = {name: _inplace(getattr(F, fn), name) for name, fn in _IN_PLACE.items()}


def _bind():
    for name in _FORWARDED:
        setattr(Tensor, name, getattr(F, name))
    for name, method in _IN_PLACE_METHODS.items():
        setattr(Tensor, name, method)
    for name, fn in (("scatter_add", F.tensor_scatter_add), ("scatter_sub", F.tensor_scatter_sub),
                     ("scatter_mul", F.tensor_scatter_mul), ("scatter_div", F.tensor_scatter_div),
                     ("scatter_max", F.tensor_scatter_max), ("scatter_min", F.tensor_scatter_min)):
        setattr(Tensor, name, _tensor_scatter(fn, name))
    own = (addr, expand, qr, searchsorted, trace, select, take, index_add, index_add_, scatter_,
           scatter_add_, masked_scatter, masked_scatter_, index_put, index_put_, fill_diagonal, fill_diagonal_,
           put_, itemset, new_zeros, new_ones, new_full, new_empty, type, type_as, reshape_as,
           value, numpy, ndimension, is_signed, ptp, stride, storage_offset, sum_to_size, resize,
           allclose, diff, to_coo, to_csr, move_to, log_normal, cauchy, choose, triangular_solve,
           set_dtype, index_copy_, bernoulli, uniform)
    for fn in own:
        setattr(Tensor, fn.__name__, fn)
    Tensor.bitwise_not = _bitwise_not
    Tensor.argmax_with_value = _arg_with_value(F.argmax, F.amax)
    Tensor.argmin_with_value = _arg_with_value(F.argmin, F.amin)
    Tensor.byte = lambda self: self.astype(mstype.uint8)
    Tensor.short = lambda self: self.astype(mstype.int16)
    Tensor.H = property(lambda self: F.swapaxes(F.conj(self), 0, 1) if self.ndim == 2 else
                        _not_a_matrix("H", self))
    Tensor.mH = property(lambda self: F.swapaxes(F.conj(self), -1, -2))
    Tensor.device = property(lambda self: "CPU")
    Tensor.data = property(lambda self: self)


# ---- the functional forms MindSpore also exports (`ops.clamp_(x, 0, 1)` is `x.clamp_(0, 1)`) -----

def _method_as_function(method, name, doc):
    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"For '{name}', 'input' must be a Tensor, but got {type_name(input)}")
        return method(input, *args, **kwargs)
    fn.__name__, fn.__doc__ = name, doc
    return fn


def _functions():
    table = {
        "clamp_": (_IN_PLACE_METHODS["clamp_"], "In place: input limited to [min, max]."),
        "inplace_sigmoid": (_IN_PLACE_METHODS["sigmoid_"], "In place: sigmoid(input)."),
        "tanh_": (_IN_PLACE_METHODS["tanh_"], "In place: tanh(input)."),
        "zero_": (Tensor.zero_, "In place: input filled with zeros."),
        "put_": (put_, "In place: `source` written (or added) at the flat `index`."),
        "type_as": (type_as, "input cast to other's dtype."),
        "move_to": (move_to, "input on `to` ('CPU', the only device here)."),
        "diff": (diff, "The n-th forward difference along `axis`."),
    }
    out = {name: _method_as_function(m, name, doc) for name, (m, doc) in table.items()}
    out["diff_ext"] = _method_as_function(
        lambda input, n=1, dim=-1, prepend=None, append=None: diff(input, n, dim, prepend,
                                                                   append),
        "diff_ext", "The n-th forward difference along `dim`.")
    return out


def _not_a_matrix(name, t):
    raise ValueError(f"For 'Tensor.{name}', the tensor must be 2-D, but got shape {t.shape}")


_bind()
FUNCTIONS = _functions()
globals().update(FUNCTIONS)
