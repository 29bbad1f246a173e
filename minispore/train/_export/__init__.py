"""`export`, `load`, `load_mindir`, `save_mindir`: a network captured in inference mode and
written as MINDIR or ONNX; MINDIR files read back into graphs that `nn.GraphCell` runs
(docs/export.md)."""
import os
import stat

from ...common.tensor import Tensor
from ...nn.cell import Cell
from . import mindir, mindir_schema, onnx_format
from .graph import ExportError, trace_graph

__all__ = ["ExportError", "export", "load", "load_mindir", "save_mindir"]

_SUFFIX = {"MINDIR": ".mindir", "ONNX": ".onnx"}
_KWARGS = ("enc_key", "enc_mode", "dataset", "incremental", "custom_func", "obf_config")


def _specs(net, inputs):
    """The input Tensors to capture with: `inputs`, where `net.set_inputs` declared dynamic
    dimensions those replace the example's sizes."""
    specs = list(inputs)
    declared = net.get_inputs() if isinstance(net, Cell) else None
    if not specs:
        if not declared:
            raise ValueError("For 'export', 'inputs' must be given (or declared with "
                             "net.set_inputs)")
        specs = list(declared)
    for k, t in enumerate(specs):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'export', input {k} must be a Tensor, but got "
                            f"{type(t).__name__}")
    if declared and specs is not declared:
        if len(declared) != len(specs):
            raise ValueError(f"For 'export', net.set_inputs declared {len(declared)} inputs, "
                             f"but {len(specs)} were given")
        for k, (d, t) in enumerate(zip(declared, specs)):
            ok = len(d.shape) == len(t.shape) and d.dtype == t.dtype and all(
                a < 0 or a == b for a, b in zip(d.shape, t.shape))
            if not ok:
                raise ValueError(f"For 'export', input {k} has shape {list(t.shape)} and dtype "
                                 f"{t.dtype}, but net.set_inputs declared {list(d.shape)}, "
                                 f"{d.dtype}")
            if any(a < 0 for a in d.shape):
                specs[k] = d
    return specs


def capture_graph(net, specs, name, names=None):
    """The Graph of `net` for input specs `specs`, captured in inference mode (each Cell's
    training flag restored afterwards)."""
    modes = [(c, c.training) for _, c in net.cells_and_names()] if isinstance(net, Cell) else []
    if modes:
        net.set_train(False)
    try:
        return trace_graph(net, specs, name, names)
    finally:
        for cell, mode in modes:  # parents first: each sub-Cell ends with its own flag
            cell.set_train(mode)


def export(net, *inputs, file_name, file_format, **kwargs):
    """Write `net` (a Cell or function) as a graph file: captured in inference mode
    (`set_train(False)` while capturing, restored after) for the example `inputs`; a
    dimension given as None (`Tensor(shape=[None, 3], dtype=...)`, or declared by
    `net.set_inputs`) stays dynamic. `file_format`: 'MINDIR' or 'ONNX' ('AIR' needs
    MindSpore's Ascend backend). The suffix '.mindir' / '.onnx' is added when missing; the
    file is left read-only (0400), as MindSpore leaves it.
    Parameters are embedded under their Cell names. An operator without a mapping to the
    format raises `ExportError` naming it."""
    if not isinstance(file_name, str) or not file_name:
        raise TypeError(f"For 'export', 'file_name' must be a non-empty str, but got "
                        f"{file_name!r}")
    if file_format == "AIR":
        raise ValueError("For 'export', 'AIR' files need MindSpore's Ascend backend; use "
                         "'MINDIR' or 'ONNX'")
    if file_format not in _SUFFIX:
        raise ValueError(f"For 'export', 'file_format' must be one of 'AIR', 'ONNX', 'MINDIR', "
                         f"but got {file_format!r}")
    for key, value in kwargs.items():
        if key not in _KWARGS:
            raise TypeError(f"For 'export', unexpected keyword argument '{key}'")
        if value is not None:
            raise ValueError(f"For 'export', '{key}' (encryption, dataset preprocessing, "
                             f"obfuscation) is not supported by minispore")
    if not callable(net):
        raise TypeError(f"For 'export', 'net' must be a Cell or a function, but got "
                        f"{type(net).__name__}")
    if file_format == "ONNX":
        onnx_format._import_onnx()
    else:
        mindir_schema.classes()
    specs = _specs(net, inputs)
    graph = capture_graph(net, specs, "export")
    if not file_name.endswith(_SUFFIX[file_format]):
        file_name += _SUFFIX[file_format]
    directory = os.path.dirname(os.path.abspath(file_name))
    os.makedirs(directory, exist_ok=True)
    if os.path.exists(file_name):  # MindSpore leaves its files read-only; exporting again works
        os.chmod(file_name, stat.S_IRUSR | stat.S_IWUSR)
    if file_format == "ONNX":
        onnx_format.write_onnx(graph, file_name)
    else:
        mindir.write_mindir(graph, file_name)
    os.chmod(file_name, stat.S_IRUSR)


def load(file_name, **kwargs):
    """The graph of a MINDIR file (minispore's, or MindSpore's for operators minispore has):
    run it with `nn.GraphCell(graph)`. Reading never runs code from the file; a malformed file
    raises ValueError."""
    for key, value in kwargs.items():
        if key not in ("dec_key", "dec_mode", "obf_func"):
            raise TypeError(f"For 'load', unexpected keyword argument '{key}'")
        if value is not None and not (key == "dec_mode" and value == "AES-GCM"):
            raise ValueError(f"For 'load', '{key}' (encrypted or obfuscated files) is not "
                             f"supported by minispore")
    if not isinstance(file_name, str) or not file_name.endswith(".mindir"):
        raise ValueError(f"For 'load', only MINDIR files ('.mindir') can be loaded, but got "
                         f"{file_name!r}")
    model = mindir.read_model(file_name)
    return mindir.read_graph(model, file_name)


def load_mindir(file_name):
    """The mind_ir ModelProto (a protobuf message) of a MINDIR file."""
    return mindir.read_model(file_name)


def save_mindir(model, file_name):
    """Write mind_ir ModelProto `model` (e.g. from `load_mindir`, edited) to `file_name`
    ('.mindir' added when missing)."""
    if not hasattr(model, "SerializeToString") or type(model).__name__ != "ModelProto":
        raise TypeError(f"For 'save_mindir', 'model' must be a mind_ir ModelProto, but got "
                        f"{type(model).__name__}")
    if not isinstance(file_name, str) or not file_name:
        raise TypeError(f"For 'save_mindir', 'file_name' must be a non-empty str, but got "
                        f"{file_name!r}")
    if not file_name.endswith(".mindir"):
        file_name += ".mindir"
    with open(file_name, "wb") as f:
        f.write(model.SerializeToString())
