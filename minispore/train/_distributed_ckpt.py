"""Checkpoints of several ranks: `merge_sliced_parameter` (one parameter from its per-rank
slices) and `load_distributed_checkpoint` (a network from the checkpoints of data-parallel
ranks)."""
import os

import numpy as np

from .._validator import check_bool, check_one_of, type_name
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..nn.cell import Cell
from . import serialization

__all__ = ["load_distributed_checkpoint", "merge_sliced_parameter"]


def _layout_field(layout, key):
    """A layout entry: `layout[key]` of a dict, or `layout.<key>[0].dim` of MindSpore's
    ParallelLayouts message."""
    if isinstance(layout, dict):
        return layout.get(key)
    value = getattr(layout, key)
    if key == "field":
        return int(value)
    return list(value[0].dim) if len(value) else []


def _merge_with_layout(sliced_data, name, layout):
    """The whole array from slices in rank order, laid out by `layout`: a device matrix
    `dev_matrix` and, per tensor axis, `tensor_map` (the device axis counted from the right
    that splits it, -1 for none)."""
    owner = "merge_sliced_parameter"
    try:
        dev_matrix = [int(d) for d in _layout_field(layout, "dev_matrix")]
        tensor_map = [int(m) for m in _layout_field(layout, "tensor_map")]
        field = _layout_field(layout, "field") or 0
        split_shape = _layout_field(layout, "param_split_shape") or []
    except (AttributeError, TypeError, KeyError, IndexError) as err:
        raise ValueError(f"For '{owner}', the layout of {name!r} must give 'dev_matrix' and "
                         f"'tensor_map', but reading it failed: {err}") from err
    if field or split_shape:
        raise ValueError(f"For '{owner}', uneven ('param_split_shape') and field-split layouts "
                         f"are not supported, but {name!r} has one")
    device_count = int(np.prod(dev_matrix))
    if len(sliced_data) != device_count:
        raise ValueError(f"For '{owner}', the length of 'sliced_parameters' should be equal to "
                         f"device_count. The length of 'sliced_parameters' is "
                         f"{len(sliced_data)}, but device_count is {device_count}.")
    shape = sliced_data[0].shape
    if len(tensor_map) != len(shape) or any(m >= len(dev_matrix) for m in tensor_map):
        raise ValueError(f"For '{owner}', the 'tensor_map' {tensor_map} of {name!r} does not "
                         f"fit a slice of shape {shape} and the device matrix {dev_matrix}")
    if any(s.shape != shape for s in sliced_data):
        raise ValueError(f"For '{owner}', the slices of {name!r} must have one shape under an "
                         f"even layout")
    axes = [len(dev_matrix) - 1 - m if m >= 0 else None for m in tensor_map]
    full = np.empty(tuple(n * (dev_matrix[a] if a is not None else 1)
                          for n, a in zip(shape, axes)), dtype=sliced_data[0].dtype)
    for rank, data in enumerate(sliced_data):
        coords = np.unravel_index(rank, dev_matrix)
        region = tuple(slice(None) if a is None else slice(coords[a] * n, (coords[a] + 1) * n)
                       for n, a in zip(shape, axes))
        full[region] = data
    return full


def merge_sliced_parameter(sliced_parameters, strategy=None):
    """One Parameter from the slices of it that the ranks hold, in rank order.

    Without `strategy` the slices are concatenated along axis 0. With `strategy` (a dict
    parameter name -> layout, each layout a dict with 'dev_matrix' and 'tensor_map' or
    MindSpore's ParallelLayouts message) each slice is put where its rank's coordinates in the
    device matrix place it; ranks that differ only along unused device axes hold copies.

    Args:
        sliced_parameters (list[Parameter]): the slices, one name, one shape but for axis 0.
        strategy (dict): the layouts. Default: None.

    Returns:
        Parameter, named as the slices, with their `requires_grad` and `layerwise_parallel`.

    Raises:
        TypeError: `sliced_parameters` not a list of Parameters, `strategy` not a dict.
        ValueError: no slices, slices that do not agree, a layout that does not fit.
        KeyError: the parameter has no layout in `strategy`.
    """
    owner = "merge_sliced_parameter"
    if not isinstance(sliced_parameters, list):
        raise TypeError(f"For '{owner}', the argument 'sliced_parameters' should be list, but "
                        f"got {type_name(sliced_parameters)}")
    if not sliced_parameters:
        raise ValueError(f"For '{owner}', the argument 'sliced_parameters' should not be empty.")
    if strategy and not isinstance(strategy, dict):
        raise TypeError(f"For '{owner}', the argument 'strategy' should be dict, but got "
                        f"{type_name(strategy)}")
    for index, parameter in enumerate(sliced_parameters):
        if not isinstance(parameter, Parameter):
            raise TypeError(f"For '{owner}', the element in 'sliced_parameters' should be "
                            f"'Parameter', but got {type_name(parameter)} at index {index}.")
    first = sliced_parameters[0]
    name, shape = first.name, tuple(first.shape)
    for index, parameter in enumerate(sliced_parameters):
        if parameter.name != name or len(parameter.shape) != len(shape) or \
                tuple(parameter.shape[1:]) != shape[1:]:
            raise ValueError(f"For '{owner}', the slices must share the name, the number of "
                             f"dimensions and the shape but for axis 0 ({name}, {len(shape)}, "
                             f"{shape[1:]}), but got {parameter.name}, {len(parameter.shape)}, "
                             f"{tuple(parameter.shape[1:])} at index {index}.")
    sliced_data = [p.asnumpy() for p in sliced_parameters]
    if not strategy:
        merged = np.concatenate(sliced_data)
    else:
        if name not in strategy:
            raise KeyError(f"For '{owner}', the parameter name {name} should be a key in the "
                           f"'strategy'.")
        merged = _merge_with_layout(sliced_data, name, strategy[name])
    return Parameter(Tensor(merged, dtype=first.dtype), name, first.requires_grad,
                     first.layerwise_parallel)


def _check_filenames(checkpoint_filenames):
    owner = "load_distributed_checkpoint"
    if not isinstance(checkpoint_filenames, (list, tuple)) or not checkpoint_filenames:
        raise TypeError(f"For '{owner}', 'checkpoint_filenames' must be a non-empty list of "
                        f"str, but got {checkpoint_filenames!r}")
    for name in checkpoint_filenames:
        if not isinstance(name, str):
            raise TypeError(f"For '{owner}', each of 'checkpoint_filenames' must be a str, but "
                            f"got {type_name(name)}")
        if not os.path.isfile(name):
            raise ValueError(f"For '{owner}', the checkpoint file {name!r} does not exist")


def load_distributed_checkpoint(network, checkpoint_filenames=None, predict_strategy=None,
                                train_strategy_filename=None, strict_load=False, dec_key=None,
                                dec_mode="AES-GCM", format="ckpt", unified_safetensors_dir=None,
                                dst_safetensors_dir=None, rank_id=None,
                                output_format="safetensors", name_map=None, max_process_num=64,
                                return_param_dict=False):
    """Load into `network` the checkpoints saved by the ranks of a data-parallel run (one file
    per rank, in rank order): every rank holds the whole parameters, so the files must agree on
    the names and shapes; the values of rank 0's file are loaded.

    Only this case is supported: model-parallel strategy files (`train_strategy_filename`,
    `predict_strategy`), encrypted checkpoints (`dec_key`) and the unified-safetensors
    arguments raise ValueError (merge model-parallel slices with `merge_sliced_parameter`).

    Args:
        network (Cell): the network to load into.
        checkpoint_filenames (list[str]): the ranks' checkpoint files.
        strict_load (bool): see `load_param_into_net`. Default: False.
        format (str): 'ckpt' or 'safetensors', the files' format. Default: 'ckpt'.
        return_param_dict (bool): return the loaded dict name -> Parameter instead of True.
            Default: False.
        predict_strategy, train_strategy_filename, dec_key, dec_mode, unified_safetensors_dir,
        dst_safetensors_dir, rank_id, output_format, name_map, max_process_num: MindSpore's
            model-parallel and encryption options; must be left at their defaults.

    Returns:
        True, or the dict of loaded parameters with `return_param_dict`.

    Raises:
        TypeError: `network` not a Cell, bad `checkpoint_filenames`.
        ValueError: a missing file, files that disagree, an unsupported option.
    """
    owner = "load_distributed_checkpoint"
    check_one_of(format, ("ckpt", "safetensors"), "format", owner)
    check_one_of(output_format, ("ckpt", "safetensors"), "output_format", owner)
    unsupported = {"predict_strategy": predict_strategy,
                   "train_strategy_filename": train_strategy_filename, "dec_key": dec_key,
                   "unified_safetensors_dir": unified_safetensors_dir,
                   "dst_safetensors_dir": dst_safetensors_dir, "rank_id": rank_id,
                   "name_map": name_map}
    for arg, value in unsupported.items():
        if value is not None:
            raise ValueError(f"For '{owner}', only data-parallel checkpoints are supported: "
                             f"'{arg}' must be None, but got {value!r}")
    if not isinstance(network, Cell):
        raise TypeError(f"For '{owner}', the 'network' must be a Cell, but got "
                        f"{type_name(network)}")
    check_bool(strict_load, "strict_load", owner)
    check_bool(return_param_dict, "return_param_dict", owner)
    _check_filenames(checkpoint_filenames)
    dicts = [serialization.load_checkpoint(name, format=format) for name in checkpoint_filenames]
    reference = {k: tuple(v.shape) for k, v in dicts[0].items() if isinstance(v, Tensor)}
    for name, loaded in zip(checkpoint_filenames[1:], dicts[1:]):
        shapes = {k: tuple(v.shape) for k, v in loaded.items() if isinstance(v, Tensor)}
        if shapes != reference:
            differing = sorted(set(shapes.items()) ^ set(reference.items()))[:3]
            raise ValueError(f"For '{owner}', the data-parallel checkpoints must hold the same "
                             f"parameters with the same shapes, but {name!r} differs from "
                             f"{checkpoint_filenames[0]!r} at {differing}")
    params = {k: v for k, v in dicts[0].items() if isinstance(v, Parameter)}
    serialization.load_param_into_net(network, params, strict_load=strict_load)
    return params if return_param_dict else True
