"""Primitive: the base of every op with a forward on NumPy arrays and a bprop beside it, and
PRIMITIVES, the registry that the autodiff engine and the gradient tests both read."""
import functools
import inspect

import numpy as np

from .._autodiff.tape import apply, binary, call1
from ..common.tensor import Tensor

__all__ = ["Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register",
           "register", "PRIMITIVES", "bprop_getters"]

PRIMITIVES = {}  # name -> Primitive subclass


# The savers of a primitive without `saves` of its own (user subclasses, `bprop_getters`
# registrations): every input and the output, what a bprop(*inputs, out, dout) reads.
def _save_all(args, out):
    return (*args, out)


def _save_all1(x, out):
    return (x, out)


def _save_all2(x, y, out):
    return (x, y, out)


class Primitive:
    """A stateful op: configured once by `__init__` attributes, then called with tensors.

    Subclasses set `inputs` (names of the call's positional inputs, tensors or constants),
    `saves` (what `bprop` reads: input names, `"out"`, or `"<input>.shape"` / `"<input>.dtype"`),
    and define `forward(*arrays)` on NumPy arrays and `bprop(saved, dout, needs)`, which gets
    Tensors, uses minispore ops only (so it is differentiable again) and returns one gradient per
    input (None where `needs` is False or the input is a constant). A primitive that sets
    `broadcasts` may return gradients of the broadcast shape and promoted dtype: the engine sums
    and casts them back to each input's. Any other bprop returns exactly each input's shape and
    dtype.

    A class without a `bprop` of its own is differentiated by the autodiff layer, which sits above
    the primitives and gives this class its default `bprop` (`_autodiff/custom.py`): through the
    class's `reference`, if it names one, else by the rule registered in `bprop_getters`.
    """

    inputs = ("x",)
    saves = ()
    differentiable = True
    # True when bprop may return gradients of the broadcast shape or promoted dtype of the
    # inputs: the tape then records each input's shape and dtype for the engine to fit them back.
    broadcasts = False
    # Functions building the saved tuple for each call path: set by `register` from `saves`;
    # unregistered subclasses save every input and the output.
    save = staticmethod(_save_all)
    _save1 = staticmethod(_save_all1)
    _save2 = _save2_tf = _save2_ft = staticmethod(_save_all2)
    # `saves_for`: optionally, per input position, the `saves` entries its gradient reads. A
    # two-input node with one constant input then saves only those of the other (None in the
    # rest): a value that nothing reads is neither kept alive nor checked for writes.
    saves_for = None
    # A fused primitive (one NumPy pass for a composite formula) may name `reference`: the same
    # function written with minispore ops, taking what the primitive saves. Its gradient is then
    # the reference's, exact to any order. A reference that is itself a gradient takes it with
    # `self.vjp_of(fn, inputs, cotangents, needs)`, which the autodiff layer gives this class.
    reference = None
    # Metadata the layers above read. `amp_auto`: what amp_level 'auto' does with the floating
    # inputs ('low': cast to the low precision, 'full': to float32, 'promote': to the widest
    # one; None: compute in the inputs' dtypes). `keeps_inputs`: a running `to_float` cell never
    # casts the inputs (explicit casts; writes whose target keeps its dtype). `internal`: serves
    # other rules only and stays out of the `ops.operations` namespace.
    amp_auto = None
    keeps_inputs = False
    internal = False
    # `view_op`: the result (of a first input x) may share x's memory; it then becomes a view of
    # x (common/_views.py), made again by calling the primitive with the same other arguments.
    view_op = False
    # `derived_inputs`: positions of optional NumPy-array inputs that only cache what `forward`
    # would compute from the other inputs when given None (Conv2D's im2col patches). A graph-mode
    # replay passes None there, so the cache is made again from the new data.
    derived_inputs = ()

    def __init__(self, name=None):
        if name is not None:
            self.name = name

    @property
    def name(self):
        return self.__dict__.get("name", type(self).__name__)

    @name.setter
    def name(self, value):
        self.__dict__["name"] = value

    @property
    def attrs(self):
        """The configuration set in `__init__`, as MindSpore's `Primitive.attrs`."""
        return {k: v for k, v in vars(self).items() if not k.startswith("_") and k != "name"}

    def add_prim_attr(self, name, value):
        setattr(self, name, value)
        return self

    def init_prim_io_names(self, inputs, outputs):
        """Record the names of the inputs and outputs (MindSpore's metadata; informative)."""
        self.__dict__["_io_names"] = (list(inputs), list(outputs))

    def __call__(self, *args):
        return apply(self, args)

    def forward(self, *arrays):
        raise NotImplementedError(f"primitive '{self.name}' has no forward")

    def registered_rule(self):
        """The bprop function made by the `bprop_getters` getter for this primitive, or None; the
        getter runs once per instance."""
        getter = bprop_getters.find(self)
        if getter is None:
            return None
        made = self.__dict__.get("_bprop_fn")
        if made is None or made[0] is not getter:
            made = self.__dict__["_bprop_fn"] = (getter, getter(self))
        return made[1]

    def __repr__(self):
        attrs = ", ".join(f"{k}={v}" for k, v in self.attrs.items())
        return f"Prim[{self.name}]<{attrs}>" if attrs else f"Prim[{self.name}]"


PrimitiveWithInfer = PrimitiveWithCheck = Primitive


class BpropRegistry(dict):
    """MindSpore's `bprop_getters` (importable from `minispore.ops._grad_experimental.grad_base`
    and `minispore.ops._grad.grad_base`, as from MindSpore's).

    `@bprop_getters.register(MyPrim)` on `get_bprop(self)`: the getter gets a primitive instance
    (once per instance) and returns `bprop(*inputs, out, dout)`, which returns one gradient per
    input (None or zeros for non-differentiable ones). The rule then replaces any rule the class
    had; written with minispore ops it is differentiable again. A primitive class or its name.
    """

    def register(self, prim):
        def deco(getter):
            if not callable(getter):
                raise TypeError(f"For 'bprop_getters.register', the getter must be callable, "
                                f"but got {type(getter).__name__}")
            if isinstance(prim, str):
                self[prim] = getter
                cls = PRIMITIVES.get(prim)
            elif isinstance(prim, type) and issubclass(prim, Primitive):
                self[prim] = self[prim.__name__] = getter
                cls = prim
            else:
                raise TypeError(f"For 'bprop_getters.register', 'prim' must be a Primitive "
                                f"subclass or its name, but got {prim!r}")
            if cls is not None:  # its own rule and savers give way to the getter's
                cls.bprop = Primitive.bprop
                cls.reference = None
                cls.save = staticmethod(_save_all)
                cls._save1 = staticmethod(_save_all1)
                cls._save2 = cls._save2_tf = cls._save2_ft = staticmethod(_save_all2)
                cls.differentiable = True
            return getter
        return deco

    def find(self, prim):
        """The getter for primitive instance `prim` (by class, its bases, then its name)."""
        for klass in type(prim).__mro__:
            getter = self.get(klass)
            if getter is not None:
                return getter
        return self.get(type(prim).__name__)


bprop_getters = BpropRegistry()


def shared(cls, *args, **kwargs):
    """`cls(*args, **kwargs)`, made once per configuration and reused: layers call this on every
    forward, and configuring a primitive (argument checks, geometry) costs as much as running a
    small one. Only for primitives whose instances hold no per-call state, with arguments the
    caller has already checked and normalised (Python ints, not bools: `True == 1` would find
    the primitive made for 1)."""
    key = (cls, args, tuple(kwargs.items()))
    try:
        prim = _SHARED.get(key)
    except TypeError:  # an unhashable argument: no caching
        return cls(*args, **kwargs)
    if prim is None:
        prim = cls(*args, **kwargs)
        if len(_SHARED) >= 1024:
            _SHARED.clear()
        _SHARED[key] = prim
    return prim


_SHARED = {}


def prim_attr_register(fn):
    """Decorator for a user primitive's `__init__`, as in MindSpore: every argument of the call
    (defaults included) becomes an attribute, and so part of `attrs`, before the body runs."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def init(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            if signature.parameters[name].kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                       inspect.Parameter.VAR_KEYWORD):
                setattr(self, name, value)
        fn(self, *args, **kwargs)
    return init


class Unary(Primitive):
    """One tensor input, elementwise (the output has the input's shape): calls take the fast
    one-input path."""

    def __call__(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{self.name}', the input must be a Tensor, "
                            f"but got {type(x).__name__}")
        return call1(self, x)


class Binary(Primitive):
    """Two broadcasting operands, Tensors or Python scalars, with MindSpore's type promotion."""

    inputs = ("x", "y")
    broadcasts = True

    def __call__(self, x, y):
        return binary(self, x, y)


# ---- registration: turn `saves` into savers once per class ---------------------------------------

def _getter(name, inputs):
    if name == "out":
        return "_result"
    base, _, attr = name.partition(".")
    if base not in inputs:
        raise ValueError(f"saves entry {name!r} names no input of {inputs}")
    arg = inputs[inputs.index(base)]
    if not attr:
        return arg
    if attr == "shape":
        return f"_shape({arg})"
    if attr == "dtype":
        return f"_dtype({arg})"
    raise ValueError(f"saves entry {name!r}: only .shape and .dtype may follow an input name")


def _shape(v):
    return v._data.shape if isinstance(v, Tensor) else ()


def _dtype(v):
    return v.dtype if isinstance(v, Tensor) else None


def _make_savers(cls):
    if cls.inputs != "*" and "out" in cls.inputs:
        raise ValueError(f"{cls.__name__}: an input may not be named 'out', which `saves` "
                         "reserves for the primitive's output")
    # Like namedtuple and dataclasses, compile tiny functions once per class: the savers run on
    # every recorded call, and a generic loop over `saves` costs several times a tuple display.
    inputs = cls.inputs if cls.inputs != "*" else ()
    if cls.inputs == "*":
        if cls.saves and cls.save is _save_all:
            raise TypeError(f"{cls.__name__}: variadic primitives define their own save()")
        items = ()
    else:
        items = [_getter(s, inputs) for s in cls.saves]
    body = "(" + "".join(e + ", " for e in items) + ")"
    env = {"_shape": _shape, "_dtype": _dtype}
    args = ", ".join(inputs)
    src = [f"def save(args, _result):\n    {args}{',' if len(inputs) == 1 else ''} = args\n"
           f"    return {body}\n" if inputs else "def save(args, _result):\n    return ()\n"]
    if len(inputs) == 1:
        src.append(f"def _save1({inputs[0]}, _result):\n    return {body}\n")
    if len(inputs) == 2:
        src.append(f"def _save2({inputs[0]}, {inputs[1]}, _result):\n    return {body}\n")
        for name, k in (("_save2_tf", 0), ("_save2_ft", 1)):
            if cls.saves_for is not None:
                part = "(" + "".join((e if s in cls.saves_for[k] else "None") + ", "
                                     for s, e in zip(cls.saves, items)) + ")"
                src.append(f"def {name}({inputs[0]}, {inputs[1]}, _result):\n"
                           f"    return {part}\n")
    exec("".join(src), env)
    if "save" not in cls.__dict__:
        cls.save = staticmethod(env["save"])
    for name in ("_save1", "_save2", "_save2_tf", "_save2_ft"):
        if name in env:
            setattr(cls, name, staticmethod(env[name]))
    if len(inputs) == 2 and cls.saves_for is None:  # one constant input changes nothing saved
        cls._save2_tf = cls._save2_ft = cls.__dict__["_save2"]


def register(cls):
    """Class decorator: add a primitive to PRIMITIVES and build its savers."""
    name = cls.__name__
    if name in PRIMITIVES:
        raise ValueError(f"primitive {name!r} is registered twice")
    _make_savers(cls)
    PRIMITIVES[name] = cls
    return cls


@register
class DataFunction(Primitive):
    """`fn(*arrays, *static)` of its inputs' data, without a gradient: a mask, index or weight
    that a bprop reads. Made a recorded node (rather than a constant wrapped from NumPy) so a
    graph-mode replay computes it again from the new data (docs/graph_mode.md)."""

    inputs = ("*arrays",)
    differentiable = False
    internal = True

    def __init__(self, fn, *static):
        super().__init__(fn.__name__)
        self.fn = fn
        self.static = static

    def forward(self, *arrays):
        return self.fn(*arrays, *self.static)


def data_function(fn, *tensors, static=()):
    """`fn(*(t._data for t in tensors), *static)` as a Tensor made by a DataFunction node."""
    return apply(shared(DataFunction, fn, *static), tensors)


def data_flag(fn, *tensors, static=()):
    """`bool(fn(...))` of the tensors' data (see `data_function`): a Python branch on tensor
    values that graph mode records as a guard, so a replay checks the branch again."""
    return bool(data_function(fn, *tensors, static=static))


def any_nonzero(*arrays):
    """Whether any element of any of the arrays is nonzero (for `data_flag`)."""
    return np.array(any(a.any() for a in arrays))
