"""Mixed precision for networks: `auto_mixed_precision` (levels O0-O3), `custom_mixed_precision`,
MindSpore's white and black lists, and `build_train_network`, which `Model(amp_level=...)` uses,
all on one set of casting wrappers."""
import warnings

from .. import nn, ops
from .._autodiff.tape import AutoCast
from .._validator import (check_bool, check_callable, check_class_list, check_one_of, check_type,
                          check_type_name)
from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..nn.cell import Cell
from ..nn.optim.optimizer import Optimizer
from ..nn.wrap.cell_wrapper import TrainOneStepCell, WithLossCell
from ..nn.wrap.loss_scale import TrainOneStepWithLossScaleCell
from ..ops.operations.math_ops import cast
from ..ops.primitive import Primitive
from .loss_scale_manager import DynamicLossScaleManager, LossScaleManager

__all__ = ["auto_mixed_precision", "custom_mixed_precision", "get_white_list", "get_black_list",
           "build_train_network"]

_LEVELS = ("O0", "O1", "O2", "O3", "auto")
_BOOST_LEVELS = ("O0", "O1", "O2")

# MindSpore 2.10's O1 white list (cells, then primitives) and O2 black list, by name: the classes
# minispore has are looked up when a list is asked for.
_WHITE_CELLS = ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose",
                "Conv3dTranspose", "Dense", "LSTMCell", "RNNCell", "GRUCell")
_WHITE_PRIMITIVES = ("Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose",
                     "Conv2DBackpropInput", "MatMul", "BatchMatMul", "PReLU", "ReLU", "Ger")
_BLACK_CELLS = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm")
# Cells that MindSpore computes with one primitive held as an attribute (`nn.ReLU` holds
# `ops.ReLU()`), which its O1 rewrite casts; minispore's versions call the functional op, so a
# listed primitive puts these cells on the list.
_PRIMITIVE_CELLS = {"ReLU": ("ReLU",), "PReLU": ("PReLU",)}


# amp_level 'auto' follows MindSpore 2.10's per-operator lists, kept on each primitive as its
# `amp_auto` ('low': Conv, MatMul, Dense...; 'full': the exp/log family, softmax, norms...;
# 'promote': Concat, Stack); its BatchNorm is BatchNormTraining here, ConvTranspose2D
# Conv2DBackpropInput, and the fused sparse softmax cross-entropy stands for MindSpore's LogSoftmax
# + NLLLoss. minispore's Dense is one fused primitive, bias included, so its output is float16
# where MindSpore's MatMul + BiasAdd promotes to the float32 bias.


def _classes(module, names):
    found = []
    for name in names:
        cls = getattr(module, name, None)
        if cls is not None and cls not in found:  # ops.Conv2DTranspose is Conv2DBackpropInput
            found.append(cls)
    return found


def get_white_list():
    """A copy of the list `auto_mixed_precision` uses at 'O1': MindSpore's cells (Conv1d ...
    Conv3dTranspose, Dense, LSTMCell, RNNCell, GRUCell) and primitives (Conv2D, Conv3D,
    Conv2DTranspose, Conv3DTranspose, Conv2DBackpropInput, MatMul, BatchMatMul, PReLU, ReLU,
    Ger), as far as minispore has them.

    Returns:
        list, classes.
    """
    return _classes(nn, _WHITE_CELLS) + _classes(ops, _WHITE_PRIMITIVES)


def get_black_list():
    """A copy of the list `auto_mixed_precision` keeps in float32 at 'O2': BatchNorm1d,
    BatchNorm2d, BatchNorm3d and LayerNorm, as far as minispore has them.

    Returns:
        list, classes.
    """
    return _classes(nn, _BLACK_CELLS)


# ---- casting wrappers ------------------------------------------------------------------------

def _cast_float(value, dtype):
    """Floating-point Tensors in `value` (a Tensor or nested tuple/list) cast to `dtype`."""
    if isinstance(value, Tensor):
        return cast(value, dtype) if value._data.dtype.kind == "f" and \
            value.dtype != dtype else value
    if isinstance(value, (tuple, list)):
        return type(value)(_cast_float(v, dtype) for v in value)
    return value


class _OutputTo16(Cell):
    """Runs `backbone` and casts its floating-point outputs to `dtype` (a float32 BatchNorm
    inside a float16 network)."""

    def __init__(self, backbone, dtype=mstype.float16):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._dtype = dtype
        _copy_amp_level(self, backbone)

    def construct(self, *args, **kwargs):
        return _cast_float(self._backbone(*args, **kwargs), self._dtype)


class _OutputTo32(Cell):
    """Runs `backbone` and casts its floating-point outputs to float32."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        _copy_amp_level(self, backbone)

    def construct(self, *args, **kwargs):
        return _cast_float(self._backbone(*args, **kwargs), mstype.float32)


class _CastPrimitive:
    """A white-listed primitive held by a cell, under O1: floating-point inputs are cast to
    `dtype` and outputs back to float32 (the casts MindSpore's rewrite puts around the call).
    Other attributes are the primitive's."""

    __slots__ = ("primitive", "dtype")

    def __init__(self, primitive, dtype):
        self.primitive = primitive
        self.dtype = dtype

    def __call__(self, *args):
        out = self.primitive(*(_cast_float(a, self.dtype) for a in args))
        return _cast_float(out, mstype.float32)

    def __getattr__(self, name):
        if name in _CastPrimitive.__slots__:  # not set yet (copy, pickle)
            raise AttributeError(name)
        return getattr(self.primitive, name)

    def __repr__(self):
        return f"{self.primitive!r} (in {self.dtype}, out Float32)"


def _copy_amp_level(wrapper, backbone):
    level = backbone.__dict__.get("_amp_level")
    if level is not None:
        wrapper.__dict__["_amp_level"] = level


def _replace(parent, name, new):
    """parent's child `name` is now `new`; no parameter is renamed (wrappers add no prefix)."""
    parent._cells[name] = new
    parent.__dict__[name] = new


def _white_list_lower(cell, cells, primitives, dtype, done):
    """O1 / a custom white list, in place under `cell`: listed cells compute in `dtype` with
    float32 outputs, and so do listed primitives held as attributes. Subtrees whose precision
    was set with `to_float` stay as they are (as in MindSpore)."""
    if primitives:
        for name, value in list(vars(cell).items()):
            if isinstance(value, primitives):
                cell.__dict__[name] = _CastPrimitive(value, dtype)
    for name, child in list(cell.name_cells().items()):
        if id(child) in done:  # a cell shared by two parents gets one wrapper
            _replace(cell, name, done[id(child)])
        elif child._compute_dtype is None:
            if isinstance(child, cells):
                done[id(child)] = wrapper = _OutputTo32(child.to_float(dtype))
                _replace(cell, name, wrapper)
            else:
                done[id(child)] = child
                _white_list_lower(child, cells, primitives, dtype, done)


def _keep_full_precision(cell, black_list, dtype, done):
    """Listed cells under `cell` (already cast to `dtype`) compute in float32 again and hand
    `dtype` outputs on. A wrapper left by an earlier call is reused, not nested."""
    for name, child in list(cell.name_cells().items()):
        if id(child) in done:
            _replace(cell, name, done[id(child)])
        elif isinstance(child, _OutputTo16) and isinstance(child._backbone, black_list):
            child._backbone.to_float(mstype.float32)
            done[id(child)] = child
        elif isinstance(child, black_list):
            done[id(child)] = wrapper = _OutputTo16(child.to_float(mstype.float32), dtype)
            _replace(cell, name, wrapper)
        else:
            done[id(child)] = child
            _keep_full_precision(child, black_list, dtype, done)


def _white_list_network(network, white_list, dtype):
    cells = tuple(c for c in white_list if issubclass(c, Cell))
    primitives = tuple(c for c in white_list if issubclass(c, Primitive))
    by_name = {c.__name__ for c in primitives}
    cells += tuple(c for p, names in _PRIMITIVE_CELLS.items() if p in by_name
                   for c in _classes(nn, names) if c not in cells)
    if network._compute_dtype is not None:
        return network
    if isinstance(network, cells):
        return _OutputTo32(network.to_float(dtype))
    _white_list_lower(network, cells, primitives, dtype, {id(network): network})
    return network


def _black_list_network(network, black_list, dtype):
    """Everything in `dtype` but the listed cells; float32 outputs."""
    network.to_float(dtype)
    _keep_full_precision(network, tuple(black_list), dtype, {id(network): network})
    return network if isinstance(network, _OutputTo32) else _OutputTo32(network)


# ---- argument checks -------------------------------------------------------------------------

def _check_dtype(owner, dtype):
    if dtype is mstype.bfloat16:
        raise TypeError(f"For '{owner}', dtype bfloat16 is not supported: NumPy has no "
                        "bfloat16 type; use float16")
    check_one_of(dtype, (mstype.float16,), "dtype", owner)


def _check_amp_levels(level, boost_level, owner, arg="amp_level"):
    """The mixed-precision level (a str) and the boost level, for `build_train_network` and
    `Model`."""
    check_one_of(check_type(level, str, arg, owner), _LEVELS, arg, owner)
    check_one_of(boost_level, _BOOST_LEVELS, "boost_level", owner)


# ---- public API ------------------------------------------------------------------------------

def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    """The network with mixed precision at `amp_level`.

    - 'O0': unchanged.
    - 'O1': cells and primitives of `get_white_list()` compute in `dtype` (inputs and weights
      cast), with float32 outputs; the rest stays float32. Primitives count when a cell holds
      them as attributes (`self.matmul = ops.MatMul()`), not when called inline.
    - 'O2': everything computes in `dtype` but the cells of `get_black_list()`; outputs float32.
    - 'O3': everything computes in `dtype`; outputs float32.

    Parameters stay float32 (layers cast them as they compute) and keep their names; their
    gradients are float32. The network is changed in place (O2/O3 wrap it in a cell that casts
    its outputs; O1 wraps the listed children). Applying a level again warns and applies it on
    top, without nesting the wrappers further.
    - 'auto': per primitive, MindSpore's lists: matrix products and convolutions compute in
      `dtype`, exp/log-like ops, softmax, norms and losses in float32, concatenation in the widest
      input dtype, everything else in its inputs' dtypes. The network itself is returned.

    Args:
        network (Cell): the network.
        amp_level (str): 'O0' (default), 'O1', 'O2', 'O3' or 'auto'.
        dtype (dtype): the low precision, float16 (default); bfloat16 is refused here.

    Returns:
        Cell, the network to call.

    Raises:
        TypeError: `network` is not a Cell; `dtype` is bfloat16.
        ValueError: an unknown `amp_level`; `dtype` is not float16 or bfloat16.

    Example:
        >>> net = amp.auto_mixed_precision(LeNet5(), "O2")
    """
    owner = "auto_mixed_precision"
    check_type(network, Cell, "network", owner)
    _check_dtype(owner, dtype)
    check_one_of(amp_level, _LEVELS, "amp_level", owner)
    if amp_level == "O0":
        return network
    if amp_level == "auto":
        network.__dict__["_compute_policy"] = AutoCast(mstype.to_np(dtype))
        network._refresh_call_path()
        network.__dict__["_amp_level"] = amp_level
        return network
    previous = network.__dict__.get("_amp_level")
    if previous is not None:
        warnings.warn(f"For '{owner}', the network's mixed-precision level goes from "
                      f"{previous!r} to {amp_level!r}: the new level is applied on top",
                      RuntimeWarning, stacklevel=2)
    if amp_level == "O1":
        network = _white_list_network(network, get_white_list(), dtype)
    elif amp_level == "O2":
        network = _black_list_network(network, get_black_list(), dtype)
    else:
        network.to_float(dtype)
        if not isinstance(network, _OutputTo32):
            network = _OutputTo32(network)
    network.__dict__["_amp_level"] = amp_level
    return network


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=mstype.float16):
    """Mixed precision from your own list: with `white_list`, its cells and primitives compute
    in `dtype` (as 'O1' does with `get_white_list()`); with `black_list`, everything but its
    cells does (as 'O2' does with `get_black_list()`), and the outputs are float32. Give exactly
    one of the two. The network is changed in place.

    Args:
        network (Cell): the network.
        white_list (list[type]): Cell and Primitive subclasses. Default: None.
        black_list (list[type]): Cell subclasses. Default: None.
        dtype (dtype): float16 (default); bfloat16 is refused here.

    Returns:
        Cell, the network to call.

    Raises:
        TypeError: `network` is not a Cell; a list is not a list of such classes; bfloat16.
        ValueError: neither or both lists given; another `dtype`.

    Example:
        >>> net = amp.custom_mixed_precision(net, white_list=amp.get_white_list() + [nn.Flatten])
    """
    owner = "custom_mixed_precision"
    check_type(network, Cell, "network", owner)
    if white_list is None and black_list is None:
        raise ValueError(f"For '{owner}', one of 'white_list' and 'black_list' must be given")
    if white_list is not None and black_list is not None:
        raise ValueError(f"For '{owner}', 'white_list' and 'black_list' cannot both be given")
    _check_dtype(owner, dtype)
    if white_list is not None:
        check_class_list(white_list, (Cell, Primitive), "white_list", owner)
        return _white_list_network(network, white_list, dtype)
    check_class_list(black_list, Cell, "black_list", owner)
    return _black_list_network(network, black_list, dtype)


# ---- training networks -----------------------------------------------------------------------

def _level_config(level):
    """Defaults per level: cast_model_type, keep_batchnorm_fp32, loss_scale_manager."""
    if level == "O2":
        return {"cast_model_type": mstype.float16, "keep_batchnorm_fp32": True,
                "loss_scale_manager": DynamicLossScaleManager()}
    if level == "O3":
        return {"cast_model_type": mstype.float16, "keep_batchnorm_fp32": False,
                "loss_scale_manager": None}
    return {"cast_model_type": mstype.float32, "keep_batchnorm_fp32": False,
            "loss_scale_manager": None}


class _AmpWithLossCell(Cell):
    """`loss_fn(float32(backbone(data)), float32(label))`: the loss of a float16 network is
    computed in float32."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn
        _copy_amp_level(self, backbone)

    def construct(self, data, label):
        out = _cast_float(self._backbone(data), mstype.float32)
        return self._loss_fn(out, _cast_float(label, mstype.float32))

    @property
    def backbone_network(self):
        """The wrapped network."""
        return self._backbone


def _check_kwargs(kwargs, owner):
    """The keyword arguments that override a level's configuration, normalised."""
    for key in kwargs:
        check_one_of(key, ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"),
                     "kwargs", owner)
    if "cast_model_type" in kwargs:
        check_type_name(kwargs["cast_model_type"], (mstype.float16, mstype.float32),
                        "cast_model_type", owner)
    if "keep_batchnorm_fp32" in kwargs:
        kwargs["keep_batchnorm_fp32"] = check_bool(kwargs["keep_batchnorm_fp32"],
                                                   "keep_batchnorm_fp32", owner)
    if kwargs.get("loss_scale_manager") is not None:
        check_type(kwargs["loss_scale_manager"], LossScaleManager, "loss_scale_manager", owner)
    return kwargs


def _check_build_args(network, optimizer, loss_fn, level, boost_level, kwargs):
    """Every check of `build_train_network`, before anything is changed; the keyword
    arguments normalised."""
    owner = "build_train_network"
    check_type(network, Cell, "network", owner)
    check_type(optimizer, Optimizer, "optimizer", owner, "an nn.Optimizer")
    if loss_fn is not None:
        check_callable(loss_fn, "loss_fn", owner)
    _check_amp_levels(level, boost_level, owner, "level")
    return _check_kwargs(kwargs, owner)


def _apply_precision(network, config, level):
    """Cast `network` as the level and its configuration say (MindSpore's order of cases: a
    float16 `cast_model_type` casts the network itself, with no float32 output wrapper, since
    the loss cell casts; O2 without float32 BatchNorm does the same; O1 goes through
    `auto_mixed_precision`)."""
    if config["cast_model_type"] == mstype.float16:
        network.to_float(mstype.float16)
        if config["keep_batchnorm_fp32"]:
            _keep_full_precision(network, tuple(get_black_list()), mstype.float16,
                                 {id(network): network})
    elif not config["keep_batchnorm_fp32"] and level == "O2":
        network.to_float(mstype.float16)
    elif level not in ("O2", "O3"):  # O2/O3 with a float32 cast_model_type: unchanged
        network = auto_mixed_precision(network, level)
    return network


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0",
                        **kwargs):
    """A training cell for `network` with mixed precision: `TrainOneStepCell` (or
    `TrainOneStepWithLossScaleCell` when the loss scale manager has an update cell) around
    `network` (with `loss_fn`, if given).

    Levels: 'O0' float32; 'O1' and 'auto' as `auto_mixed_precision(network, level)`; 'O2' the
    network in
    float16 except BatchNorm/LayerNorm, with a `DynamicLossScaleManager`; 'O3' all of it in
    float16, no loss scaling. Parameters stay float32 (layers cast them as they compute) and keep
    their names; with O2/O3 (or a network converted by `auto_mixed_precision` at those levels)
    the loss is computed in float32. The network is changed in place (as in MindSpore); unlike
    `auto_mixed_precision`, O2/O3 leave its outputs float16.

    Unlike MindSpore 2.10 on CPU, which refuses a loss scale manager with an update cell (its
    float-status kernels are missing), dynamic and fixed loss scaling work here. Not supported:
    `boost_level` other than 'O0' (accepted, no effect), gradient accumulation and pipeline
    cells.

    Args:
        network (Cell): the network (with its loss if `loss_fn` is None).
        optimizer (nn.Optimizer): the optimizer.
        loss_fn (Union[Cell, function]): the loss. Default: None.
        level (str): 'O0' (default), 'O1', 'O2', 'O3' or 'auto'.
        boost_level (str): 'O0', 'O1' or 'O2'. Default: 'O0'.
        cast_model_type (dtype), keep_batchnorm_fp32 (bool), loss_scale_manager
            (LossScaleManager): override the level's defaults.

    Raises:
        TypeError: a wrong argument type.
        ValueError: an unknown level or keyword.
    """
    kwargs = _check_build_args(network, optimizer, loss_fn, level, boost_level, kwargs)
    config = dict(_level_config(level), **kwargs)
    network = _apply_precision(network, config, level)
    if loss_fn is not None:
        if config["cast_model_type"] == mstype.float16 or \
                network.__dict__.get("_amp_level") in ("O2", "O3", "auto"):
            network = _AmpWithLossCell(network, loss_fn)
        else:
            network = WithLossCell(network, loss_fn)
    manager = config["loss_scale_manager"]
    loss_scale = None
    if manager is not None:
        loss_scale = manager.get_loss_scale()
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            return TrainOneStepWithLossScaleCell(network, optimizer,
                                                 scale_sense=update_cell).set_train()
    return TrainOneStepCell(network, optimizer, loss_scale).set_train()
