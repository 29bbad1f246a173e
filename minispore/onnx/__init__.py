"""`minispore.onnx`: MindSpore's ONNX exporter module (`mindspore.onnx.export`), with its
options for input and output names, dynamic axes and parameters as graph inputs
(docs/export.md)."""
import os

from ..common.tensor import Tensor
from ..nn.cell import Cell
from ..train._export import capture_graph, onnx_format
from ..train._export.graph import input_names as _construct_names

__all__ = ["export"]


def _check_type(value, expected, arg):
    """MindSpore's check here raises ValueError for a wrong type."""
    if not isinstance(value, expected):
        raise ValueError(  # noqa: TRY004
            f"For 'onnx.export', the parameter '{arg}' must be isinstance of {expected}, but got "
            f"{value!r}")


def export(net, *inputs, file_name, input_names=None, output_names=None, export_params=True,
           keep_initializers_as_inputs=False, dynamic_axes=None):
    """Write Cell `net` as an ONNX model (opset 17), captured in inference mode for `inputs`.
    The shapes are those of `inputs`, except the axes `dynamic_axes` ({input name: {axis:
    axis name}}) makes dynamic. `input_names` / `output_names` name the graph's inputs and
    outputs (by default the parameters of `construct`, and generated names);
    `export_params=False` writes the parameters as graph inputs without values, and
    `keep_initializers_as_inputs=True` lists them as inputs with their values kept. '.onnx' is
    added to `file_name` when it has no suffix."""
    _check_type(net, Cell, "net")
    if not isinstance(file_name, str) or not file_name:
        raise ValueError(f"For 'onnx.export', 'file_name' must be a non-empty str, but got "
                         f"{file_name!r}")
    for value, arg in ((input_names, "input_names"), (output_names, "output_names")):
        if value is not None:
            _check_type(value, list, arg)
            if not all(isinstance(v, str) and v for v in value):
                raise ValueError(f"For 'onnx.export', '{arg}' must hold non-empty strs, but got "
                                 f"{value}")
    if dynamic_axes is not None:
        _check_type(dynamic_axes, dict, "dynamic_axes")
    for k, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'onnx.export', input {k} must be a Tensor, but got "
                            f"{type(t).__name__}")
    names = list(input_names) if input_names is not None else \
        _construct_names(net, len(inputs))
    if len(names) != len(inputs) or len(set(names)) != len(names):
        raise ValueError(f"For 'onnx.export', 'input_names' must name each of the {len(inputs)} "
                         f"inputs once, but got {names}")
    specs, dim_names = list(inputs), {}
    for key, axes in (dynamic_axes or {}).items():
        if key not in names:
            raise ValueError(f"For 'onnx.export', 'dynamic_axes' names input '{key}', but the "
                             f"inputs are {names}")
        _check_type(axes, dict, f"dynamic_axes['{key}']")
        k = names.index(key)
        shape = list(specs[k].shape)
        for axis, axis_name in axes.items():
            if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
                raise ValueError(f"For 'onnx.export', dynamic_axes['{key}'] has axis {axis!r} "
                                 f"for an input of rank {len(shape)}")
            shape[axis % len(shape)] = None
            dim_names.setdefault(k, {})[axis % len(shape)] = str(axis_name)
        specs[k] = Tensor(shape=shape, dtype=specs[k].dtype)
    onnx_format._import_onnx()
    graph = capture_graph(net, specs, "onnx.export", names)
    if output_names is not None and len(output_names) != len(graph.outputs):
        raise ValueError(f"For 'onnx.export', 'output_names' must name each of the "
                         f"{len(graph.outputs)} outputs, but got {output_names}")
    if not os.path.splitext(file_name)[1]:
        file_name += ".onnx"
    onnx_format.write_onnx(graph, file_name, output_names, dim_names, export_params,
                           keep_initializers_as_inputs)
