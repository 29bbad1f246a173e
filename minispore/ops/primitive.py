"""Primitive: the base of every op with a forward on NumPy arrays and a bprop beside it, and
PRIMITIVES, the registry that the autodiff engine and the gradient tests both read."""
import functools
import inspect

from .._autodiff.tape import apply, binary, call1
from ..common.tensor import Tensor

__all__ = ["Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register",
           "register", "PRIMITIVES"]

PRIMITIVES = {}  # name -> Primitive subclass


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
    """

    inputs = ("x",)
    saves = ()
    differentiable = True
    # True when bprop may return gradients of the broadcast shape or promoted dtype of the
    # inputs: the tape then records each input's shape and dtype for the engine to fit them back.
    broadcasts = False
    # Set by `register` from `saves`: functions building the saved tuple for each call path.
    _save1 = _save2 = save = None

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

    def bprop(self, saved, dout, needs):
        raise RuntimeError(f"For '{self.name}', no gradient is defined")

    def __repr__(self):
        attrs = ", ".join(f"{k}={v}" for k, v in self.attrs.items())
        return f"Prim[{self.name}]<{attrs}>" if attrs else f"Prim[{self.name}]"


PrimitiveWithInfer = PrimitiveWithCheck = Primitive


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
        if cls.saves and cls.save is None:
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
    exec("".join(src), env)
    if "save" not in cls.__dict__:
        cls.save = staticmethod(env["save"])
    for name in ("_save1", "_save2"):
        if name in env:
            setattr(cls, name, staticmethod(env[name]))


def register(cls):
    """Class decorator: add a primitive to PRIMITIVES and build its savers."""
    name = cls.__name__
    if name in PRIMITIVES:
        raise ValueError(f"primitive {name!r} is registered twice")
    _make_savers(cls)
    PRIMITIVES[name] = cls
    return cls
