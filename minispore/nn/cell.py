"""Cell: the base of every network, with MindSpore's registration and parameter naming rules."""
import enum
import functools
import time
from collections import OrderedDict, namedtuple
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from .. import context as _context
from .._autodiff import hooks as _hooks
from .._autodiff.custom import call_with_bprop
from .._autodiff.recompute import run_recomputed
from .._autodiff import tape as _tape
from .._autodiff.saved_hooks import saved_tensors_hooks
from .._autodiff.tape import compute_in, recording
from .._jit import graph_call
from .._validator import check_type
from ..common import _writes, dtype as mstype
from ..common import seed as _seed
from ..common.parameter import Parameter, ParameterTuple, on_meta
from ..common.tensor import Tensor
from ..ops.operations.math_ops import cast

__all__ = ["Cell"]

_DEFAULT_NAME_PREFIX = "Parameter#"


class MixedPrecisionType(enum.Enum):
    """What `Cell.get_mixed_precision_type` reports: the dtype `to_float` made the cell compute
    in (NOTSET when it computes in its inputs' dtypes)."""
    NOTSET = 0
    FP16 = 1
    FP32 = 2
    BF16 = 3
_EXTRA_STATE = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `load_state_dict` returns: the keys the cell expected and did not get, and the keys
    it got and does not have."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


def _compute_construct(np_dtype, construct, *args, **kwargs):
    return compute_in(np_dtype, construct, args, kwargs)


def _with_saved_hooks(hooks, construct, *args, **kwargs):
    with saved_tensors_hooks(*hooks):
        return construct(*args, **kwargs)


def _with_param_hooks(cell, hooks, construct, *args, **kwargs):
    """construct(*args, **kwargs) with each hooked parameter attribute of `cell` and its
    descendants reading as `hook(parameter)` (recorded ops: gradients reach the parameter)."""
    by_param, for_all = hooks
    swapped = []
    try:
        for _, c in cell.cells_and_names():
            d = c.__dict__
            for name, p in c._params.items():
                hook = by_param.get(id(p), (None, for_all))[1]
                if hook is not None and d.get(name) is p:
                    d[name] = hook(p)
                    swapped.append((d, name, p))
        return construct(*args, **kwargs)
    finally:
        for d, name, p in swapped:
            d[name] = p


def _join(prefix, path):
    return f"{prefix}{path}." if path else prefix


# [True] under set_context(mode=GRAPH_MODE): an outermost Cell call goes through graph_call
_graph_mode = [False]


def _watch_mode(mode):
    _graph_mode[0] = mode == _context.GRAPH_MODE


_context.watch("mode", _watch_mode)
_watch_mode(_context.get_context("mode"))

class Cell:
    """Base class of networks: subclasses define `construct` and assign Parameters and child
    Cells as attributes, which registers them.

    Parameter names follow MindSpore: on the root cell a Parameter keeps an explicit name and an
    unnamed one takes its attribute name; when a cell is assigned into a parent (with
    `auto_prefix=True`) every parameter in it is renamed to its attribute path from the parent
    (`inner.w`, `seq.0.weight`). A cell's own parameters are listed before its children's.

    Args:
        auto_prefix (bool): whether this cell renames the parameters of cells assigned into it.
        flags (dict): extra attributes, set on the cell.

    Cells start in eval mode (`training` is False): call `set_train()` to train.

    A subclass may define `bprop(self, *inputs, out, dout)` to replace autodiff for the whole
    `construct`: the call becomes one node whose backward returns `bprop(...)`, one gradient per
    positional input; parameters used inside get zero gradients (as in MindSpore).
    """

    T_destination = TypeVar("T_destination", bound=dict)  # state_dict's `destination` type

    # True while __call__ may go straight to construct (no hooks, bprop, recompute, to_float);
    # a class attribute so that cells that skip Cell.__init__ still have it.
    _fast = True
    # True for Cells that a graph-mode capture records as one host call, run as Python at every
    # replay (optimizers: their in-place Parameter updates are NumPy code, not primitives).
    _jit_host = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if callable(getattr(cls, "bprop", None)) or cls._jit_host:
            cls._fast = False

    def __init__(self, auto_prefix=True, flags=None):
        d = self.__dict__
        d["_params"] = OrderedDict()
        d["_cells"] = OrderedDict()
        d["_auto_prefix"] = auto_prefix
        d["_buffers"] = OrderedDict()
        d["_compute_dtype"] = None  # set by to_float: inputs (and layer weights) cast to it
        d["_create_time"] = time.time()
        d["training"] = False
        if flags:
            for k, v in flags.items():
                setattr(self, k, v)

    # ---- registration -----------------------------------------------------------------------
    def __setattr__(self, name, value):
        d = self.__dict__
        if "_params" not in d:
            raise AttributeError(f"'{type(self).__name__}' has no parameter registry: call "
                                 "super().__init__() in __init__ before assigning attributes")
        params, cells = d["_params"], d["_cells"]
        if name in d.get("_tuple_keys", ()):
            self._unregister_tuple(name)
        if isinstance(value, Parameter):
            cells.pop(name, None)
            params[name] = value
            if value.name.startswith(_DEFAULT_NAME_PREFIX):
                value.name = name
        elif isinstance(value, Cell):
            params.pop(name, None)
            cells[name] = value
            if self._auto_prefix:
                for path, p in value.parameters_and_names():
                    p.name = f"{name}.{path}"
        elif isinstance(value, ParameterTuple):
            params.pop(name, None)
            cells.pop(name, None)
            self._register_tuple(name, value)
        else:
            if name in params:
                if value is not None:
                    raise TypeError(f"For '{type(self).__name__}', the attribute '{name}' holds "
                                    f"a Parameter and cannot be set to a "
                                    f"{type(value).__name__}")
                del params[name]
            elif name in cells:
                if value is not None:
                    raise TypeError(f"For '{type(self).__name__}', the attribute '{name}' holds "
                                    f"a Cell and cannot be set to a {type(value).__name__}")
                del cells[name]
        d[name] = value

    def _register_tuple(self, name, value):
        """The Parameters of a ParameterTuple attribute join this cell's own, as in MindSpore,
        keyed by their names (unnamed ones are named `<attribute>.<index>`)."""
        params, keys = self.__dict__["_params"], []
        for k, p in enumerate(value):
            if p.name.startswith(_DEFAULT_NAME_PREFIX):
                p.name = f"{name}.{k}"
            key = p.name
            if params.get(key, p) is not p:  # another Parameter has this name here
                key = f"{name}.{k}"
            if key not in params:
                params[key] = p
                keys.append(key)
        self.__dict__.setdefault("_tuple_keys", {})[name] = keys

    def _unregister_tuple(self, name):
        params = self.__dict__["_params"]
        for key in self.__dict__["_tuple_keys"].pop(name):
            params.pop(key, None)

    def __delattr__(self, name):
        if name in self.__dict__.get("_tuple_keys", ()):
            self._unregister_tuple(name)
        self.__dict__["_params"].pop(name, None)
        self.__dict__["_cells"].pop(name, None)
        del self.__dict__[name]

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        """Add `param` as attribute `param_name`; the Parameter keeps its own name."""
        if not isinstance(param_name, str) or not param_name:
            raise KeyError(f"For 'insert_param_to_cell', 'param_name' must be a non-empty str, "
                           f"but got {param_name!r}")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"For 'insert_param_to_cell', 'param_name' must not contain '.': "
                           f"{param_name!r}")
        if not isinstance(param, Parameter) and param is not None:
            raise TypeError(f"For 'insert_param_to_cell', 'param' must be a Parameter, but got "
                            f"{type(param).__name__}")
        if hasattr(self, param_name) and param_name not in self._params:
            raise KeyError(f"For 'insert_param_to_cell', the attribute {param_name!r} already "
                           "exists")
        self._params[param_name] = param
        self.__dict__[param_name] = param

    def insert_child_to_cell(self, child_name, child_cell):
        """Add `child_cell` as attribute `child_name` (renaming its parameters as assignment
        does)."""
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(f"For 'insert_child_to_cell', 'child_name' must be a non-empty str "
                           f"without '.', but got {child_name!r}")
        if not isinstance(child_cell, Cell) and child_cell is not None:
            raise TypeError(f"For 'insert_child_to_cell', 'child_cell' must be a Cell, but got "
                            f"{type(child_cell).__name__}")
        setattr(self, child_name, child_cell)

    def update_parameters_name(self, prefix="", recurse=True):
        """Prepend `prefix` to the name of every parameter."""
        if not isinstance(prefix, str):
            raise TypeError(f"For 'update_parameters_name', 'prefix' must be a str, got "
                            f"{type(prefix).__name__}")
        for p in self.get_parameters(expand=recurse):
            p.name = prefix + p.name
        self.__dict__["_param_prefix"] = prefix

    # ---- traversal --------------------------------------------------------------------------
    def parameters_and_names(self, name_prefix="", expand=True):
        """(attribute path, Parameter) pairs: own parameters first, then children's, each
        Parameter once."""
        seen = set()
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        for path, cell in cells:
            for name, p in cell._params.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{path}.{name}" if path else name), p

    def get_parameters(self, expand=True):
        """Every Parameter (children's too when `expand`)."""
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse=True):
        """The Parameters with `requires_grad=True`, as a list."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        """The Parameters with `requires_grad=False` (BatchNorm statistics, frozen weights)."""
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        """OrderedDict of parameter name -> Parameter."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def cells_and_names(self, cells=None, name_prefix=""):
        """(path, Cell) pairs: ('', self) first, then descendants depth-first, each once."""
        seen = set() if cells is None else {id(c) for c in cells}
        stack = [(name_prefix, self)]
        while stack:
            path, cell = stack.pop()
            if id(cell) in seen:
                continue
            seen.add(id(cell))
            yield path, cell
            children = [(f"{path}.{n}" if path else n, c) for n, c in cell._cells.items()
                        if c is not None]
            stack.extend(reversed(children))

    def cells(self):
        """The direct children."""
        return [c for c in self._cells.values() if c is not None]

    def name_cells(self):
        """OrderedDict of direct child name -> Cell."""
        return OrderedDict((n, c) for n, c in self._cells.items() if c is not None)

    def get_flags(self):
        """The flags set by `add_flags` (a dict)."""
        return dict(self.__dict__.get("_flags", {}))

    def add_flags(self, **flags):
        """Set each flag as an attribute of this cell and record it (see `get_flags`);
        returns self."""
        self.__dict__.setdefault("_flags", {}).update(flags)
        for k, v in flags.items():
            object.__setattr__(self, k, v)
        return self

    def add_flags_recursive(self, **flags):
        """`add_flags` on this cell and every descendant; returns self."""
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    @property
    def cls_name(self):
        return type(self).__name__

    @property
    def create_time(self):
        """When the cell was made (seconds since the epoch)."""
        return self.__dict__.get("_create_time", 0.0)

    @property
    def param_prefix(self):
        """The prefix last given to this cell's parameter names by `update_parameters_name`."""
        return self.__dict__.get("_param_prefix", "")

    def update_cell_type(self, cell_type):
        """Record the cell's type tag (MindSpore uses it to pick quantisation passes)."""
        self.__dict__["cell_type"] = cell_type

    def check_names(self):
        """Raise ValueError if two parameters of this cell share a name (a checkpoint could not
        tell them apart)."""
        seen = set()
        for p in self.get_parameters():
            if p.name in seen:
                raise ValueError(f"For '{type(self).__name__}', the parameter name {p.name!r} is "
                                 f"used more than once")
            seen.add(p.name)

    @property
    def exist_names(self):
        """The parameter names of this cell, as a set."""
        return {p.name for p in self.get_parameters()}

    def get_sub_cell(self, target):
        """The descendant at the dotted attribute path `target` ('' is this cell)."""
        cell = self
        for part in target.split(".") if target else ():
            child = cell._cells.get(part)
            if child is None:
                raise AttributeError(f"{type(cell).__name__} has no attribute `{part}`")
            cell = child
        return cell

    def get_buffer(self, target):
        """The buffer at the dotted path `target` ('block.running_mean')."""
        path, _, name = target.rpartition(".")
        cell = self.get_sub_cell(path)
        if name not in cell._buffers:
            raise AttributeError(f"{type(cell).__name__} has no buffer `{name}`")
        return cell.__dict__[name]

    def init_parameters_data(self, auto_parallel_mode=False):
        """Draw the values of every parameter still lazy (made from `initializer(...)` or
        `Tensor(shape=..., init=...)`); returns {parameter: parameter}."""
        return {p.init_data(): p for p in self.get_parameters()}

    def set_inputs(self, *inputs, **kwargs):
        """Declare the inputs' shapes (a None or -1 dimension is dynamic), as graph mode uses them;
        recorded and returned by `get_inputs`."""
        self.__dict__["_declared_inputs"] = inputs
        self.__dict__["_declared_kwargs"] = kwargs

    def get_inputs(self):
        """The inputs given to `set_inputs`, or None."""
        return self.__dict__.get("_declared_inputs")

    def compile(self, *args, **kwargs):
        """Capture this Cell's graph for these inputs, as GRAPH_MODE does on a first call, so the
        next call with inputs of the same signature replays it. The capture runs `construct`
        once; every Parameter's value and the random streams are then put back, so nothing
        that the call wrote stays written."""
        params = self.get_parameters()
        saved = [(p, p._data.copy()) for p in params]
        rng = _seed.get_rng_state()
        try:
            graph_call(self, args, kwargs)
        finally:
            for p, value in saved:
                if p._data.shape != value.shape or not np.array_equal(p._data, value,
                                                                      equal_nan=True):
                    p._write(value)
            _seed.set_rng_state(rng)

    def compile_and_run(self, *args, **kwargs):
        """Run this Cell through its graph (captured on the first call for an input signature,
        replayed after), in either mode; returns the outputs."""
        return graph_call(self, args, kwargs)

    def shard(self, in_strategy, out_strategy=None, parameter_plan=None):
        """MindSpore's operator-sharding plan for semi-automatic parallel runs. One process holds
        the whole cell, so the plan is checked and recorded, and changes nothing."""
        if not isinstance(in_strategy, tuple):
            raise TypeError(f"For 'Cell.shard', 'in_strategy' must be a tuple, but got "
                            f"{type(in_strategy).__name__}")
        if out_strategy is not None and not isinstance(out_strategy, tuple):
            raise TypeError(f"For 'Cell.shard', 'out_strategy' must be a tuple or None, but got "
                            f"{type(out_strategy).__name__}")
        self.__dict__["_shard_plan"] = (in_strategy, out_strategy, parameter_plan)

    @property
    def jit_config_dict(self):
        """The options given by `set_jit_config`, as a dict ({} when none)."""
        return dict(self.__dict__.get("_jit_config", {}))

    def set_jit_config(self, jit_config):
        """Record a `JitConfig` (its options are read by `jit_config_dict`)."""
        options = getattr(jit_config, "jit_config_dict", None)
        if not isinstance(options, dict):
            raise TypeError(f"For 'Cell.set_jit_config', 'jit_config' must be a JitConfig, but "
                            f"got {type(jit_config).__name__}")
        self.__dict__["_jit_config"] = dict(options)

    @property
    def enable_backward_hook(self):
        """Whether a backward hook is registered on this cell."""
        hooks = self.__dict__.get("_cell_hooks")
        return bool(hooks is not None and (hooks.backward or hooks.backward_pre))

    # ---- buffers and state ----------------------------------------------------------------
    def register_buffer(self, name, tensor, persistent=True):
        """Register a Tensor that is state but not a parameter (saved by state_dict when
        `persistent`)."""
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"For 'register_buffer', 'name' must be a non-empty str without '.', "
                           f"but got {name!r}")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"For 'register_buffer', 'tensor' must be a Tensor or None, but got "
                            f"{type(tensor).__name__}")
        if name in self._params or name in self._cells:
            raise KeyError(f"For 'register_buffer', the attribute {name!r} already exists")
        self._buffers[name] = (tensor, persistent)
        self.__dict__[name] = tensor

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """(path, Tensor) pairs of registered buffers."""
        seen = set()
        cells = self.cells_and_names(name_prefix=prefix) if recurse else [(prefix, self)]
        for path, cell in cells:
            for name in cell._buffers:
                t = cell.__dict__.get(name)
                if t is None or (remove_duplicate and id(t) in seen):
                    continue
                seen.add(id(t))
                yield (f"{path}.{name}" if path else name), t

    def buffers(self, recurse=True):
        for _, t in self.named_buffers(recurse=recurse):
            yield t

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """OrderedDict of the extra states (`get_extra_state` of cells that define it, under
        `path._extra_state`), then parameter name -> Parameter, then persistent buffer path ->
        Tensor. Hooks registered with `register_state_dict_pre_hook` run first, with
        (cell, prefix, keep_vars); `register_state_dict_post_hook` ones last, with (cell,
        state_dict, prefix, {})."""
        cells = list(self.cells_and_names())
        for path, cell in cells:
            for hook in cell._state_hooks("state_pre").values():
                hook(cell, _join(prefix, path), keep_vars)
        out = self._collect_state(cells, destination, prefix)
        for path, cell in cells:
            for hook in cell._state_hooks("state_post").values():
                hook(cell, out, _join(prefix, path), {})
        return out

    def _collect_state(self, cells, destination=None, prefix=""):
        out = OrderedDict() if destination is None else destination
        for path, cell in cells:
            if type(cell).get_extra_state is not Cell.get_extra_state:
                out[_join(prefix, path) + _EXTRA_STATE] = cell.get_extra_state()
        for p in self.get_parameters():
            out[prefix + p.name] = p
        for path, cell in cells:
            for name, (_, persistent) in cell._buffers.items():
                t = cell.__dict__.get(name)
                if persistent and t is not None:
                    out[prefix + (f"{path}.{name}" if path else name)] = t
        return out

    def get_extra_state(self):
        """Override to add a picklable value to `state_dict` (key `_extra_state`), given back to
        `set_extra_state` by `load_state_dict`."""
        raise RuntimeError(f"{type(self).__name__}.get_extra_state() is called only when a "
                           f"subclass defines it")

    def set_extra_state(self, state):
        """Override together with `get_extra_state`: receives the saved value."""
        raise RuntimeError(f"{type(self).__name__}.set_extra_state() is called only when a "
                           f"subclass defines it, and the state_dict has an '_extra_state' for it")

    def _state_hooks(self, kind):
        tables = self.__dict__.setdefault("_state_dict_hooks", {})
        table = tables.get(kind)
        if table is None:
            table = tables[kind] = _hooks.HookTable()
        return table

    def _add_state_hook(self, kind, hook):
        check_type(hook, Callable, "hook", "Cell", "a callable hook function")
        table = self._state_hooks(kind)
        return _hooks.HookHandle(table, table.add(hook))

    def register_state_dict_pre_hook(self, hook):
        """`hook(cell, prefix, keep_vars)` runs before `state_dict` collects; returns a handle
        with `remove()`."""
        return self._add_state_hook("state_pre", hook)

    def register_state_dict_post_hook(self, hook):
        """`hook(cell, state_dict, prefix, local_metadata)` runs after `state_dict` collects (it
        may edit the dict in place); returns a handle with `remove()`."""
        return self._add_state_hook("state_post", hook)

    def register_load_state_dict_pre_hook(self, hook):
        """`hook(cell, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)` runs before `load_state_dict` checks (it may edit the
        dict); returns a handle with `remove()`."""
        return self._add_state_hook("load_pre", hook)

    def register_load_state_dict_post_hook(self, hook):
        """`hook(cell, incompatible_keys)` runs after `load_state_dict` wrote the values (it may
        edit the two key lists); returns a handle with `remove()`."""
        return self._add_state_hook("load_post", hook)

    def load_state_dict(self, state_dict, strict=True):
        """Copy values from `state_dict` (name -> Tensor) into this cell's parameters and
        buffers. Everything is checked first: a missing key (with `strict`), an unexpected key
        (with `strict`) or a shape mismatch raises and nothing is written.
        Returns (missing_keys, unexpected_keys), a named tuple. Extra states (`_extra_state`
        keys) go to `set_extra_state` of the cells that define it."""
        cells = list(self.cells_and_names())
        for path, cell in cells:
            for hook in cell._state_hooks("load_pre").values():
                hook(cell, state_dict, _join("", path), {}, strict, [], [], [])
        own = self._collect_state(cells)
        extra = {k: own.pop(k) for k in list(own) if k.rpartition(".")[2] == _EXTRA_STATE}
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own and k not in extra]
        problems = []
        if strict and missing:
            problems.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing))
        if strict and unexpected:
            problems.append("Unexpected key(s) in state_dict: " +
                            ", ".join(f'"{k}"' for k in unexpected))
        values = {}
        for k, target in own.items():
            if k not in state_dict:
                continue
            v = state_dict[k]
            arr = v._data if isinstance(v, Tensor) else np.asarray(v)
            if arr.shape != target._data.shape:
                problems.append(f'size mismatch for "{k}": the checkpoint has shape {arr.shape}, '
                                f"the cell has {target._data.shape}")
            values[k] = arr
        if problems:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" +
                               "\n\t".join(problems))
        for k, arr in values.items():
            target = own[k]
            if isinstance(target, Parameter):
                target._write(arr)
            else:
                target.assign_value(Tensor(arr))
        for path, cell in cells:
            key = _join("", path) + _EXTRA_STATE
            if key in state_dict and key in extra:
                cell.set_extra_state(state_dict[key])
        result = _IncompatibleKeys(missing, unexpected)
        for path, cell in cells:
            for hook in cell._state_hooks("load_post").values():
                hook(cell, result)
        return result

    def apply(self, fn):
        """Call fn(cell) on every descendant, then on this cell; returns self."""
        for c in self.cells():
            c.apply(fn)
        fn(self)
        return self

    def to_float(self, dst_type):
        """Compute this cell (and its descendants) in `dst_type`: float inputs are cast to it on
        entry and built-in layers cast their weights; parameters keep their dtype. Returns self."""
        if dst_type not in (mstype.float16, mstype.float32, mstype.float64):
            raise ValueError(f"For 'to_float', 'dst_type' must be float16, float32 or float64, "
                             f"but got {dst_type!r}")
        for _, c in self.cells_and_names():
            c.__dict__["_compute_dtype"] = dst_type
            c._refresh_call_path()
        return self

    def get_mixed_precision_type(self):
        """MixedPrecisionType.FP16 / FP32 after `to_float(float16 / float32)`, else NOTSET."""
        return {mstype.float16: MixedPrecisionType.FP16,
                mstype.float32: MixedPrecisionType.FP32}.get(
                    self.__dict__.get("_compute_dtype"), MixedPrecisionType.NOTSET)

    def set_mixed_precision_type(self, mixed_type):
        """Make this cell alone compute in FP16 or FP32 (NOTSET: its inputs' dtypes), as
        `to_float` does for a whole subtree. BF16 has no NumPy dtype and is refused."""
        if not isinstance(mixed_type, MixedPrecisionType):
            raise TypeError(f"For 'set_mixed_precision_type', 'mixed_type' must be a "
                            f"MixedPrecisionType, but got {type(mixed_type).__name__}")
        if mixed_type is MixedPrecisionType.BF16:
            raise ValueError("For 'set_mixed_precision_type', BF16 is not supported: NumPy has "
                             "no bfloat16")
        self.__dict__["_compute_dtype"] = {MixedPrecisionType.FP16: mstype.float16,
                                           MixedPrecisionType.FP32: mstype.float32}.get(mixed_type)
        self._refresh_call_path()

    def to(self, dtype):
        """Cast every floating-point parameter and buffer to `dtype`; returns self."""
        np_dtype = mstype.to_np(dtype)
        for p in self.get_parameters():
            if p._data.dtype.kind == "f":
                p._data = p._data.astype(np_dtype)
                _writes.bump_version(p)
        for t in self.buffers():
            if t._data.dtype.kind == "f":
                t._data = t._data.astype(np_dtype)
                _writes.bump_version(t)
        return self

    def to_empty(self, *, device=None, recurse=True):
        """Give every parameter (kept as the same object) and buffer (a new Tensor) fresh,
        uninitialised storage of its shape and dtype, without reading the old values (a
        parameter still undrawn from `no_init_parameters` is never drawn). `device`: 'CPU' (any
        case), or None to keep each one's device: as in MindSpore 2.10, parameters made under
        `DeviceCtx("meta")` then stay without values. Returns self."""
        if device is not None:
            if not isinstance(device, str):
                raise TypeError(f"For 'Cell.to_empty', 'device' must be a str or None, but got "
                                f"{type(device).__name__}")
            if device.upper() in ("ASCEND", "GPU"):
                raise RuntimeError(f"For 'Cell.to_empty', the device {device!r} is not "
                                   "available: minispore runs on NumPy and supports only 'CPU'")
            if device.upper() != "CPU":
                raise ValueError(f"For 'Cell.to_empty', 'device' must be 'CPU', 'Ascend' or "
                                 f"'GPU', but got {device!r}")
        for p in self.get_parameters(expand=recurse):
            if device is None and on_meta(p):
                continue
            p._data = np.empty(p.shape, mstype.to_np(p.dtype))
            _writes.bump_version(p)
        cells = [c for _, c in self.cells_and_names()] if recurse else [self]
        for cell in cells:
            for name, (t, persistent) in list(cell._buffers.items()):
                if t is not None:
                    fresh = Tensor.from_numpy(np.empty(t.shape, mstype.to_np(t.dtype)))
                    cell._buffers[name] = (fresh, persistent)
                    cell.__dict__[name] = fresh
        return self

    def cast_inputs(self, inputs, dst_type):
        """`inputs` with every floating-point Tensor cast to `dst_type`."""
        return tuple(cast(x, dst_type) if isinstance(x, Tensor) and x._data.dtype.kind == "f"
                     else x for x in inputs)

    # ---- modes ------------------------------------------------------------------------------
    def set_train(self, mode=True):
        """Set training mode on this cell and every descendant; returns self."""
        for _, c in self.cells_and_names():
            c.__dict__["training"] = bool(mode)
        return self

    def set_grad(self, requires_grad=True):
        """Graph-mode knob in MindSpore; a no-op for a tape. Returns self."""
        return self

    # ---- calling ----------------------------------------------------------------------------
    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"'{type(self).__name__}' must define construct()")

    def __call__(self, *args, **kwargs):
        for a in args:
            if type(a) is np.ndarray:
                raise TypeError(f"For '{type(self).__name__}', inputs must be Tensors, but got "
                                "a NumPy array: wrap it with Tensor(...)")
        log = _writes._log
        if log.entries is not None:  # inside an outer call, which keeps the undo log
            if _graph_mode[0] and _tape._active and not _tape._state.jit_depth and \
                    not type(self)._jit_host:  # the outermost Cell inside a gradient transform
                return graph_call(self, args, kwargs)
            if self._fast:  # perf: the common case goes straight to construct
                return self.construct(*args, **kwargs)
            return self._call_slow(args, kwargs)
        if _graph_mode[0] and not type(self)._jit_host:  # captured once, then replayed
            return graph_call(self, args, kwargs)
        return self._outermost_call(args, kwargs)

    def _outermost_call(self, args, kwargs):
        # The outermost call: a failure rolls back its in-place writes (BatchNorm statistics).
        # Inlined rather than `with _writes.guarded()`: this is every training step's entry point.
        log = _writes._log
        log.entries = []
        try:
            out = self.construct(*args, **kwargs) if self._fast else \
                self._call_slow(args, kwargs)
        except BaseException:
            entries, log.entries = log.entries, None
            _writes.rollback(entries)
            raise
        log.entries = None
        return out

    def _call_slow(self, args, kwargs):
        """A call with forward/backward hooks, a custom bprop, recompute or to_float, or of a
        host-call Cell."""
        if _tape._capturing and type(self)._jit_host:
            rec = _tape._state.capture
            if rec is not None:
                return rec.host_call(self, args, kwargs)
        hooks = self.__dict__.get("_cell_hooks")
        if hooks is not None and hooks.forward_pre:
            args, kwargs = _hooks.run_forward_pre_hooks(self, hooks.forward_pre, args, kwargs)
        tape = recording() if hooks is not None and (hooks.backward or hooks.backward_pre) \
            else None
        if tape is not None:
            state, args = _hooks.wrap_inputs(self, hooks, tape, args)
        try:
            out = self._run_construct(args, kwargs)
        except BaseException:
            if hooks is not None and hooks.forward:
                _hooks.run_forward_hooks(self, hooks.forward, args, kwargs, None, failed=True)
            raise
        if hooks is not None and hooks.forward:
            out = _hooks.run_forward_hooks(self, hooks.forward, args, kwargs, out)
        if tape is not None:
            out = _hooks.wrap_outputs(state, tape, out)
        return out

    def _run_construct(self, args, kwargs):
        construct = self.construct
        if self._compute_dtype is not None:
            args = self.cast_inputs(args, self._compute_dtype)
            # every op inside computes in the cell's dtype, as in MindSpore
            construct = functools.partial(_compute_construct, mstype.to_np(self._compute_dtype),
                                          construct)
        elif "_compute_policy" in self.__dict__:  # amp_level 'auto': per-primitive lists
            construct = functools.partial(_compute_construct, self.__dict__["_compute_policy"],
                                          construct)
        param_hooks = self.__dict__.get("_param_forward_hooks")
        if param_hooks is not None:
            construct = functools.partial(_with_param_hooks, self, param_hooks, construct)
        saved_hooks = self.__dict__.get("_saved_tensors_hooks")
        if saved_hooks is not None:
            construct = functools.partial(_with_saved_hooks, saved_hooks, construct)
        if callable(getattr(type(self), "bprop", None)):
            return call_with_bprop(self, construct, args, kwargs)
        if self.__dict__.get("_recompute"):
            return run_recomputed(construct, args, kwargs)
        return construct(*args, **kwargs)

    def _refresh_call_path(self):
        d = self.__dict__
        d["_fast"] = (type(self)._fast and d.get("_compute_dtype") is None and
                      "_compute_policy" not in d and
                      not d.get("_recompute") and not d.get("_cell_hooks") and
                      "_saved_tensors_hooks" not in d and "_param_forward_hooks" not in d)

    # ---- hooks and recompute -------------------------------------------------------------------
    def _hook_tables(self):
        hooks = self.__dict__.get("_cell_hooks")
        if hooks is None:
            hooks = self.__dict__["_cell_hooks"] = _hooks.CellHooks()
        return hooks

    def _add_hook(self, table, entry, prepend=False):
        check_type(entry[0], Callable, "hook_fn", "Cell", "a callable hook function")
        key = table.add(entry, prepend)
        self._refresh_call_path()
        return _hooks.HookHandle(table, key, self)

    def register_parameter_forward_hook(self, hook):
        """Make the parameters read inside `construct` (this cell's and its descendants') read
        as `hook(parameter)`. `hook` is a callable for every parameter, or a list of
        `{"params": [Parameter, ...], "hook": callable}` dicts for chosen ones (which take
        precedence). The hook's ops are recorded, so gradients reach the parameter through it.
        (MindSpore applies these hooks only in graph mode; here both modes run them.)"""
        by_param, for_all = self.__dict__.get("_param_forward_hooks", ({}, None))
        if isinstance(hook, list):
            for item in hook:
                if not isinstance(item, dict):
                    raise TypeError(f"For 'register_parameter_forward_hook', each item of the "
                                    f"hook list must be a dict, but got {type(item).__name__}")
                if "params" not in item or "hook" not in item:
                    raise ValueError("For 'register_parameter_forward_hook', each dict of the "
                                     "hook list must have both 'params' and 'hook' keys")
                if not callable(item["hook"]):
                    raise TypeError(f"For 'register_parameter_forward_hook', 'hook' must be "
                                    f"callable, but got {type(item['hook']).__name__}")
                for p in item["params"]:
                    if not isinstance(p, Parameter):
                        raise TypeError(f"For 'register_parameter_forward_hook', every item of "
                                        f"'params' must be a Parameter, but got "
                                        f"{type(p).__name__}")
            by_param = dict(by_param)
            for item in hook:
                for p in item["params"]:
                    by_param[id(p)] = (p, item["hook"])  # the Parameter keeps its id valid
        elif callable(hook):
            for_all = hook
        else:
            raise TypeError(f"For 'register_parameter_forward_hook', 'hook' must be a callable "
                            f"or a list of dicts, but got {type(hook).__name__}")
        self.__dict__["_param_forward_hooks"] = (by_param, for_all)
        self._refresh_call_path()

    def register_saved_tensors_hooks(self, pack_hook, unpack_hook):
        """Run `construct` inside `saved_tensors_hooks(pack_hook, unpack_hook)`: the tensors its
        ops save for backward are packed and unpacked by these hooks. Registering again replaces
        them."""
        saved_tensors_hooks(pack_hook, unpack_hook)  # checks both are callable
        self.__dict__["_saved_tensors_hooks"] = (pack_hook, unpack_hook)
        self._refresh_call_path()

    def register_forward_pre_hook(self, hook_fn, *, prepend=False, with_kwargs=False):
        """Call `hook_fn(cell, inputs)` before each `construct`; a non-None result replaces the
        positional inputs (a non-tuple result becomes a 1-tuple). With `with_kwargs=True` it is
        `hook_fn(cell, args, kwargs)` returning None or `(args, kwargs)`. `prepend` puts it
        before the hooks already registered. Returns a handle whose `remove()` unregisters it.
        """
        return self._add_hook(self._hook_tables().forward_pre, (hook_fn, with_kwargs, False),
                              prepend)

    def register_forward_hook(self, hook_fn, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """Call `hook_fn(cell, inputs, output)` after each `construct` (`hook_fn(cell, args,
        kwargs, output)` with `with_kwargs=True`); a non-None result replaces the output. With
        `always_call=True` it also runs, with output None, when construct raised. Returns a
        handle whose `remove()` unregisters it."""
        return self._add_hook(self._hook_tables().forward, (hook_fn, with_kwargs, always_call),
                              prepend)

    def register_backward_pre_hook(self, hook_fn):
        """Call `hook_fn(cell, grad_output)` when the gradients of this cell's outputs are known
        in a backward pass (`grad_output`: a tuple, one entry per output, None where no
        gradient arrived); a non-None tuple replaces them. Returns a handle with `remove()`."""
        return self._add_hook(self._hook_tables().backward_pre, (hook_fn, False, False))

    def register_backward_hook(self, hook_fn):
        """Call `hook_fn(cell, grad_input, grad_output)` once per call of this cell in a backward
        pass, when the gradients of its inputs are known. `grad_input` has one entry per
        positional Tensor input (None for inputs that need no gradient), `grad_output` one per
        output; a non-None tuple returned replaces `grad_input`. Returns a handle whose
        `remove()` unregisters it.

        Unlike MindSpore, which differentiates every input of the cell, inputs that the running
        transform does not differentiate get None.
        """
        return self._add_hook(self._hook_tables().backward, (hook_fn, False, False))

    def recompute(self, *, use_reentrant=True, output_recompute=False, early_stop=True,
                  context_fn=None, **kwargs):
        """Recompute this cell in the backward pass instead of keeping its intermediate values
        (see `minispore.recompute`): values and gradients are unchanged, memory is lower. The
        keyword options are MindSpore's, accepted for compatibility."""
        self.__dict__["_recompute"] = True
        self._refresh_call_path()

    # ---- printing ---------------------------------------------------------------------------
    def extend_repr(self):
        """Extra text inside this cell's repr, e.g. 'in_channels=2, out_channels=3'."""
        return ""

    def __repr__(self):
        extra = self.extend_repr()
        lines = extra.split("\n") if extra else []
        children = [f"({n}): " + repr(c).replace("\n", "\n  ")
                    for n, c in self._cells.items() if c is not None]
        if not children and len(lines) <= 1:
            return f"{type(self).__name__}({extra})"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines + children) + "\n)"

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)

