"""`mindspore.ops.composite` (`C`): `GradOperation` (MindSpore's older gradient API), the
type-dispatched functions optimizers are written with (`MultitypeFuncGraph`, `HyperMap`, `Map`)
and the composite functions MindSpore keeps in this module."""
import numbers

from .._autodiff.engine import _differentiate, _normalize_weights, _split_sens
from .._missing import missing_names
from .._validator import check_bool, check_callable, type_name
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from . import function as _functional

_FROM_FUNCTIONAL = ("add_flags", "batch_dot", "count_nonzero", "cummin", "dot", "gamma",
                    "hyper_add", "laplace", "matmul", "mm", "multinomial", "normal", "ones_like",
                    "poisson", "repeat_elements", "repeat_interleave", "sequence_mask",
                    "tensor_dot", "uniform", "vecdot", "zeros_like", "zip_operation")
globals().update({n: getattr(_functional, n) for n in _FROM_FUNCTIONAL
                  if hasattr(_functional, n)})
__all__ = ["GradOperation", "MultitypeFuncGraph", "HyperMap", "Map", "tail", "augassign_add",
           "augassign_sub", "augassign_mul", "augassign_div", "augassign_floordiv",
           "augassign_mod"] + [n for n in _FROM_FUNCTIONAL if n in globals()]


class GradOperation:
    """`GradOperation(get_all=False, get_by_list=False, sens_param=False)(fn[, params])` returns
    a function computing gradients:

    - default: the gradient w.r.t. the first input (a Tensor);
    - `get_all`: a tuple with the gradient of every Tensor input (a 1-tuple for one input);
    - `get_by_list`: a tuple with the gradient of every Parameter in `params`;
    - both: `(input_gradients, parameter_gradients)`;
    - `sens_param`: the caller passes the output sensitivity as the last argument.
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        self.get_all = check_bool(get_all, "get_all", "GradOperation")
        self.get_by_list = check_bool(get_by_list, "get_by_list", "GradOperation")
        self.sens_param = check_bool(sens_param, "sens_param", "GradOperation")

    def __call__(self, fn, weights=None):
        what = "GradOperation"
        check_callable(fn, "fn", what)
        if self.get_by_list:
            if weights is None:
                raise ValueError(f"For '{what}' with get_by_list=True, pass the parameters: "
                                 "GradOperation(get_by_list=True)(fn, params)")
            params, _ = _normalize_weights(
                tuple(weights) if not isinstance(weights, (list, tuple)) and
                hasattr(weights, "__iter__") else weights, what)
            if isinstance(weights, Tensor):
                params = (weights,)
        else:
            params = None
        get_all, sens_param = self.get_all, self.sens_param

        def grad_fn(*args, **kwargs):
            args, sens = _split_sens(args, sens_param, what)
            if get_all:
                positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
            elif self.get_by_list:
                positions = None
            else:
                positions = (0,)
            _, in_grads, w_grads = _differentiate(fn, args, kwargs, positions, params, False, sens,
                                                  what)
            if get_all and params is not None:
                return in_grads, w_grads
            if get_all:
                return in_grads
            if params is not None:
                return w_grads
            return in_grads[0]

        return grad_fn


def _plain(kind):
    return lambda v: isinstance(v, kind)


# MultitypeFuncGraph's type names and what each matches
_TYPE_CHECKS = {
    "Tensor": _plain(Tensor), "Parameter": _plain(Parameter),
    "Number": lambda v: isinstance(v, numbers.Number) and not isinstance(v, Tensor),
    "Bool": _plain(bool),
    "Int": lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool),
    "Float": lambda v: isinstance(v, numbers.Real) and not isinstance(v, numbers.Integral),
    "Function": lambda v: callable(v) and not isinstance(v, Tensor),
    "Tuple": _plain(tuple), "List": _plain(list), "Dict": _plain(dict), "String": _plain(str),
    "Slice": _plain(slice), "None": _plain(type(None)),
}


class MultitypeFuncGraph:
    """A function with one implementation per signature of argument types, chosen at call time:
    `f = MultitypeFuncGraph("f")`, then `@f.register("Tensor", "Number")` on each
    implementation. Type names: Tensor, Parameter, Number, Int, Float, Bool, Tuple, List, Dict,
    String, Slice, None, Function. The first registered signature that matches wins."""

    def __init__(self, name, read_value=False):
        self.name = name
        self.read_value = read_value
        self.entries = []

    def register(self, *type_names):
        for t in type_names:
            if not isinstance(t, str):
                raise TypeError(f"For 'MultitypeFuncGraph.register', the types must be names "
                                f"such as 'Tensor', but got {type_name(t)}")
            if t not in _TYPE_CHECKS:
                raise ValueError(f"For 'MultitypeFuncGraph', unknown type name {t!r}; known: "
                                 f"{sorted(_TYPE_CHECKS)}")

        def deco(fn):
            self.entries.append((type_names, fn))
            return fn
        return deco

    def __call__(self, *args):
        for names, fn in self.entries:
            if len(names) == len(args) and all(_TYPE_CHECKS[n](a) for a, n in zip(args, names)):
                return fn(*args)
        got = tuple(type_name(a) for a in args)
        raise ValueError(f"For 'MultitypeFuncGraph' '{self.name}', no registered function "
                         f"matches the argument types {got}; registered: "
                         f"{[names for names, _ in self.entries]}")


class _Mapper:
    def __init__(self, ops=None, reverse=False):
        if ops is not None:
            check_callable(ops, "ops", type(self).__name__)
        self.ops = ops
        self.reverse = check_bool(reverse, "reverse", type(self).__name__)

    def __call__(self, *args):
        fn, seqs = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        check_callable(fn, "fn", type(self).__name__)
        return self._map(fn, seqs)

    def _map(self, fn, seqs):
        if not seqs or not isinstance(seqs[0], (tuple, list)):
            return fn(*seqs)
        kind, n = type(seqs[0]), len(seqs[0])
        for s in seqs:
            if not isinstance(s, (tuple, list)) or len(s) != n:
                raise ValueError(f"For '{type(self).__name__}', the sequences must have the "
                                 f"same length, but got {[len(x) if isinstance(x, (tuple, list)) else type_name(x) for x in seqs]}")
        order = range(n - 1, -1, -1) if self.reverse else range(n)
        out = {i: self._element(fn, tuple(s[i] for s in seqs)) for i in order}
        return kind(out[i] for i in range(n))


class HyperMap(_Mapper):
    """`HyperMap(ops=None, reverse=False)`: applies `ops` (or the first call argument) to
    corresponding elements of tuples or lists, recursing into nested ones; `reverse` visits
    the elements last to first (the results keep their places)."""

    def _element(self, fn, items):
        return self._map(fn, items)


class Map(_Mapper):
    """`Map(ops=None, reverse=False)`: applies `ops` to corresponding elements of tuples or
    lists, one level deep."""

    def _element(self, fn, items):
        return fn(*items)


def tail(x):
    """All but the first element of a tuple or list."""
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"For 'tail', the input must be a tuple or list, but got {type_name(x)}")
    return x[1:]


def _augassign(name, op, *more):
    """`x op= y` as MindSpore's MultitypeFuncGraph: numbers and Tensors (and `more`)."""
    f = MultitypeFuncGraph(name)
    for sig in (("Number", "Number"), ("Tensor", "Tensor"), ("Tensor", "Number"),
                ("Number", "Tensor")) + more:
        f.register(*sig)(op)
    return f


augassign_add = _augassign("augassign_add", lambda x, y: x + y, ("Tuple", "Tuple"),
                           ("List", "List"), ("String", "String"))
augassign_sub = _augassign("augassign_sub", lambda x, y: x - y)
augassign_mul = _augassign("augassign_mul", lambda x, y: x * y)
augassign_div = _augassign("augassign_div", lambda x, y: x / y)
augassign_floordiv = _augassign("augassign_floordiv", lambda x, y: x // y)
augassign_mod = _augassign("augassign_mod", lambda x, y: x % y)

__getattr__ = missing_names(__name__, globals())
