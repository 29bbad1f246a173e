"""Mixed-precision training networks: `build_train_network` (what `Model` uses to wrap a network,
its loss and optimizer for the `amp_level` O0 / O1 / O2 / O3)."""
from ..amp.loss_scale_manager import DynamicLossScaleManager, LossScaleManager
from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..nn import layer as _layer
from ..nn.cell import Cell
from ..nn.optim.optimizer import Optimizer
from ..nn.wrap.cell_wrapper import TrainOneStepCell, WithLossCell
from ..nn.wrap.loss_scale import TrainOneStepWithLossScaleCell
from ..ops.operations.math_ops import cast

__all__ = ["build_train_network"]

_LEVELS = ("O0", "O1", "O2", "O3", "auto")
_BOOST_LEVELS = ("O0", "O1", "O2")

# MindSpore's O1 white list (cells computed in float16) and O2 black list (kept in float32),
# as far as minispore has these layers.
_WHITE_LIST = tuple(getattr(_layer, n) for n in (
    "Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose",
    "Dense", "LSTMCell", "RNNCell", "GRUCell") if hasattr(_layer, n))
_BLACK_LIST = tuple(getattr(_layer, n) for n in (
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm") if hasattr(_layer, n))


def _level_config(level):
    """Defaults per level: (cast_model_type, keep_batchnorm_fp32, loss_scale_manager)."""
    if level == "O2":
        return {"cast_model_type": mstype.float16, "keep_batchnorm_fp32": True,
                "loss_scale_manager": DynamicLossScaleManager()}
    if level == "O3":
        return {"cast_model_type": mstype.float16, "keep_batchnorm_fp32": False,
                "loss_scale_manager": None}
    return {"cast_model_type": mstype.float32, "keep_batchnorm_fp32": False,
            "loss_scale_manager": None}


def _cast_float(value, dtype):
    """Floating-point Tensors in `value` (a Tensor or nested tuple/list) cast to `dtype`."""
    if isinstance(value, Tensor):
        return cast(value, dtype) if value._data.dtype.kind == "f" and \
            value.dtype != dtype else value
    if isinstance(value, (tuple, list)):
        return type(value)(_cast_float(v, dtype) for v in value)
    return value


class _OutputTo16(Cell):
    """Runs `backbone` and casts its floating-point outputs to float16 (wraps a float32
    BatchNorm inside a float16 network)."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        return _cast_float(self._backbone(*args, **kwargs), mstype.float16)


class _OutputTo32(Cell):
    """Runs `backbone` and casts its floating-point outputs to float32."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        return _cast_float(self._backbone(*args, **kwargs), mstype.float32)


def _replace_children(network, kinds, wrap):
    """Replace every descendant cell of one of `kinds` by `wrap(cell)`, in place. Parameter
    names do not change (the wrapper adds no prefix)."""
    for name, child in list(network.name_cells().items()):
        if isinstance(child, (_OutputTo16, _OutputTo32)):
            continue
        if isinstance(child, kinds):
            replacement = wrap(child)
            network._cells[name] = replacement
            network.__dict__[name] = replacement
        else:
            _replace_children(child, kinds, wrap)


def _keep_batchnorm_fp32(network):
    _replace_children(network, _BLACK_LIST,
                      lambda cell: _OutputTo16(cell.to_float(mstype.float32)))


def _white_list_fp16(network):
    _replace_children(network, _WHITE_LIST,
                      lambda cell: _OutputTo32(cell.to_float(mstype.float16)))


class _AmpWithLossCell(Cell):
    """`loss_fn(float32(backbone(data)), float32(label))`: the loss of a float16 network is
    computed in float32."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = _cast_float(self._backbone(data), mstype.float32)
        return self._loss_fn(out, _cast_float(label, mstype.float32))

    @property
    def backbone_network(self):
        """The wrapped network."""
        return self._backbone


def _check_level(level, boost_level):
    if not isinstance(level, str):
        raise TypeError(f"For 'build_train_network', 'level' must be a str in {list(_LEVELS)}, "
                        f"but got {type(level).__name__}")
    if level not in _LEVELS:
        raise ValueError(f"For 'build_train_network', 'level' must be one of {list(_LEVELS)}, "
                         f"but got {level!r}")
    if level == "auto":
        raise NotImplementedError("For 'build_train_network', amp_level 'auto' (MindSpore's "
                                  "per-operator white and black lists) is not supported; use "
                                  "'O1', 'O2' or 'O3'")
    if boost_level not in _BOOST_LEVELS:
        raise ValueError(f"For 'build_train_network', 'boost_level' must be one of "
                         f"{list(_BOOST_LEVELS)}, but got {boost_level!r}")


def _check_kwargs(kwargs):
    for key, value in kwargs.items():
        if key not in ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"):
            raise ValueError(f"For 'build_train_network', unsupported argument {key!r}")
        if key == "cast_model_type" and value not in (mstype.float16, mstype.float32):
            raise TypeError(f"For 'build_train_network', 'cast_model_type' must be float16 or "
                            f"float32, but got {value!r}")
        if key == "keep_batchnorm_fp32" and not isinstance(value, bool):
            raise TypeError(f"For 'build_train_network', 'keep_batchnorm_fp32' must be a bool, "
                            f"but got {type(value).__name__}")
        if key == "loss_scale_manager" and value is not None and \
                not isinstance(value, LossScaleManager):
            raise TypeError(f"For 'build_train_network', 'loss_scale_manager' must be a "
                            f"LossScaleManager, but got {type(value).__name__}")


def _check_build_args(network, optimizer, loss_fn, level, boost_level, kwargs):
    """Every check of `build_train_network`, before anything is changed."""
    if not isinstance(network, Cell):
        raise TypeError(f"For 'build_train_network', 'network' must be a Cell, but got "
                        f"{type(network).__name__}")
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"For 'build_train_network', 'optimizer' must be an nn.Optimizer, but "
                        f"got {type(optimizer).__name__}")
    if loss_fn is not None and not callable(loss_fn):
        raise TypeError(f"For 'build_train_network', 'loss_fn' must be a Cell or a function, "
                        f"but got {type(loss_fn).__name__}")
    _check_level(level, boost_level)
    _check_kwargs(kwargs)


def _apply_precision(network, config, level):
    """Cast `network` in place as the level and its configuration say."""
    if config["cast_model_type"] == mstype.float16:
        network.to_float(mstype.float16)
        if config["keep_batchnorm_fp32"]:
            _keep_batchnorm_fp32(network)
    elif not config["keep_batchnorm_fp32"] and level == "O2":
        network.to_float(mstype.float16)
    elif level == "O1":
        _white_list_fp16(network)


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0",
                        **kwargs):
    """A training cell for `network` with mixed precision: `TrainOneStepCell` (or
    `TrainOneStepWithLossScaleCell` when the loss scale manager has an update cell) around
    `network` (with `loss_fn`, if given).

    Levels: 'O0' float32; 'O1' Dense, convolutions and RNN cells computed in float16, their
    outputs cast back to float32; 'O2' the network in float16 except BatchNorm/LayerNorm, with
    a `DynamicLossScaleManager`; 'O3' all of it in float16, no loss scaling. Parameters stay
    float32 (layers cast them as they compute) and keep their names; with O2/O3 the loss is
    computed in float32. The network is changed in place (as in MindSpore).

    Unlike MindSpore 2.10 on CPU, which refuses a loss scale manager with an update cell (its
    float-status kernels are missing), dynamic and fixed loss scaling work here. Not supported:
    amp_level 'auto', `boost_level` other than 'O0' (accepted, no effect), gradient
    accumulation and pipeline cells.

    Args:
        network (Cell): the network (with its loss if `loss_fn` is None).
        optimizer (nn.Optimizer): the optimizer.
        loss_fn (Union[Cell, function]): the loss. Default: None.
        level (str): 'O0' (default), 'O1', 'O2' or 'O3'.
        boost_level (str): 'O0', 'O1' or 'O2'. Default: 'O0'.
        cast_model_type (dtype), keep_batchnorm_fp32 (bool), loss_scale_manager
            (LossScaleManager): override the level's defaults.

    Raises:
        TypeError: a wrong argument type.
        ValueError: an unknown level or keyword.
        NotImplementedError: level 'auto'.
    """
    _check_build_args(network, optimizer, loss_fn, level, boost_level, kwargs)
    config = dict(_level_config(level), **kwargs)
    _apply_precision(network, config, level)
    if loss_fn is not None:
        if config["cast_model_type"] == mstype.float16:
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
