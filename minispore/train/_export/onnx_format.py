"""ONNX writer: each primitive of an exported Graph lowered to ONNX operators (opset 17), a
composite where ONNX has no operator of its own. The `onnx` package (an optional extra) builds,
checks and shape-infers the model."""
import math

import numpy as np

from .graph import Dim, ExportError, Fill

OPSET = 17

_UNARY = {"ReLU": "Relu", "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Exp": "Exp", "Log": "Log",
          "Sqrt": "Sqrt", "Neg": "Neg", "Abs": "Abs", "Erf": "Erf", "Sin": "Sin", "Cos": "Cos",
          "Floor": "Floor", "Ceil": "Ceil", "Identity": "Identity", "Reciprocal": "Reciprocal",
          "Sign": "Sign", "Softplus": "Softplus", "LogicalNot": "Not", "Round": "Round"}
_BINARY = {"Add": "Add", "Sub": "Sub", "Mul": "Mul", "RealDiv": "Div",
           "Pow": "Pow", "Maximum": "Max", "Minimum": "Min", "Equal": "Equal", "Less": "Less",
           "Greater": "Greater", "LessEqual": "LessOrEqual", "GreaterEqual": "GreaterOrEqual",
           "LogicalAnd": "And", "LogicalOr": "Or"}
_REDUCE_ATTR = {"ReduceMean": "ReduceMean", "ReduceMax": "ReduceMax", "ReduceMin": "ReduceMin",
                "ReduceProd": "ReduceProd"}  # axes an attribute in opset 17
_REDUCE_INPUT = {"ReduceSum": "ReduceSum"}  # axes an input since opset 13


def _import_onnx():
    try:
        import onnx
        from onnx import helper, numpy_helper
    except ImportError:
        raise ImportError("For 'export', file_format='ONNX' needs the 'onnx' package "
                          "(pip install minispore[onnx])") from None
    return onnx, helper, numpy_helper


def supported_ops():
    """The primitive names this writer lowers."""
    return sorted({*_UNARY, *_BINARY, *_REDUCE_ATTR, *_REDUCE_INPUT, *_LOWER})


class _Builder:
    def __init__(self, graph, helper, numpy_helper):
        self.g, self.helper, self.nh = graph, helper, numpy_helper
        self.nodes, self.inits = [], []
        self.count = 0
        self.shape_cache = {}
        used = {x for n in graph.nodes for x in n.ins if type(x) is str}
        self.used = used | set(graph.outputs)

    def fresh(self, hint):
        self.count += 1
        return f"_{hint}_{self.count}"

    def add(self, op, ins, outs=None, **attrs):
        outs = outs if outs is not None else [self.fresh(op.lower())]
        self.nodes.append(self.helper.make_node(op, list(ins), list(outs), **attrs))
        return outs[0] if len(outs) == 1 else outs

    def const(self, arr, hint="c"):
        name = self.fresh(hint)
        self.inits.append(self.nh.from_array(np.ascontiguousarray(arr), name))
        return name

    def value(self, x, like=None):
        """The ONNX name of input `x` (a value name or ("c", constant)); a scalar constant takes
        the dtype of the value `like` (minispore's scalar promotion)."""
        if type(x) is str:
            return x
        c = x[1]
        if type(c) is Fill:
            return self.fill(c)
        arr = np.asarray(c)
        if like is not None and arr.ndim == 0:
            arr = arr.astype(self.g.dtypes[like])
        return self.const(arr)

    def fill(self, f):
        value = self.nh.from_array(np.asarray([f.value], f.dtype))
        return self.add("ConstantOfShape", [self.shape_of(f.shape)], value=value)

    def shape_of(self, dims):
        """A 1-D int64 tensor of `dims` (ints and `Dim`s)."""
        dims = tuple(dims)
        if all(type(d) is not Dim for d in dims):
            return self.const(np.asarray(dims, np.int64), "shape")
        key = dims
        if key in self.shape_cache:
            return self.shape_cache[key]
        parts = []
        for d in dims:
            if type(d) is Dim:
                part = self.add("Gather", [self.input_shape(d.arg),
                                           self.const(np.asarray([d.axis], np.int64))], axis=0)
                if d.mult != 1:
                    part = self.add("Mul", [part, self.const(np.asarray([d.mult], np.int64))])
                parts.append(part)
            else:
                parts.append(self.const(np.asarray([d], np.int64)))
        out = self.add("Concat", parts, axis=0)
        self.shape_cache[key] = out
        return out

    def input_shape(self, arg):
        key = ("shape", arg)
        if key not in self.shape_cache:
            self.shape_cache[key] = self.add("Shape", [self.g.inputs[arg][0]])
        return self.shape_cache[key]

    def rank(self, name):
        return len(self.g.shapes[name])

    def only_first_output(self, node, op):
        for extra in node.outs[1:]:
            if extra in self.used:
                raise ExportError(f"For 'export', the ONNX lowering of '{op}' gives only its "
                                  f"first output, but output '{extra}' is used")


def _axes(axis, rank):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return [a % rank for a in axes] if rank else list(axes)


def _conv2d(b, n, p):
    if p.data_format != "NCHW":
        raise ExportError("For 'export', ONNX Conv2D needs data_format 'NCHW'")
    x, w = b.value(n.ins[0]), b.value(n.ins[1])
    attrs = {"strides": list(p.stride[-2:]), "dilations": list(p.dilation[-2:]),
             "group": int(p.group)}
    mode = p.pad_mode.lower()
    if mode == "same":
        attrs["auto_pad"] = "SAME_UPPER"
    else:
        top, bottom, left, right = p.pad if mode == "pad" else (0, 0, 0, 0)
        attrs["pads"] = [top, left, bottom, right]
    b.add("Conv", [x, w], [n.outs[0]], **attrs)


def _pool(b, n, p, op):
    if p.data_format != "NCHW":
        raise ExportError(f"For 'export', ONNX {op} needs data_format 'NCHW'")
    attrs = {"kernel_shape": list(p.kernel_size[-2:]), "strides": list(p.strides[-2:])}
    dil = tuple(getattr(p, "dilation", (1, 1)))
    if any(d != 1 for d in dil):
        if op != "MaxPool":
            raise ExportError("For 'export', ONNX AvgPool has no dilation")
        attrs["dilations"] = list(dil[-2:])
    explicit = getattr(p, "_explicit_pad", None)
    if p.pad_mode.upper() == "SAME":
        attrs["auto_pad"] = "SAME_UPPER"
    elif explicit is not None and p.pad_mode.upper() == "PAD":
        top, bottom, left, right = explicit
        attrs["pads"] = [top, left, bottom, right]
    if op == "AveragePool":
        if p.divisor_override is not None or any(p.ceil_extra):
            raise ExportError("For 'export', AvgPool with divisor_override or ceil_mode has no "
                              "ONNX lowering")
        attrs["count_include_pad"] = int(bool(p.count_include_pad))
    b.add(op, [b.value(n.ins[0])], [n.outs[0]], **attrs)


def _dense(b, n, p):
    x, w = b.value(n.ins[0]), b.value(n.ins[1])
    bias = n.ins[2] if len(n.ins) > 2 and not (type(n.ins[2]) is tuple and n.ins[2][1] is None) \
        else None
    if b.rank(n.ins[0]) == 2 and bias is not None:
        b.add("Gemm", [x, w, b.value(bias)], [n.outs[0]], transB=1)
        return
    y = b.add("MatMul", [x, b.add("Transpose", [w], perm=[1, 0])],
              None if bias is not None else [n.outs[0]])
    if bias is not None:
        b.add("Add", [y, b.value(bias)], [n.outs[0]])


def _matmul(b, n, p):
    a, c = n.ins[0], n.ins[1]
    names = []
    for v, flag in ((a, p.transpose_a), (c, p.transpose_b)):
        name = b.value(v)
        if flag:
            r = b.rank(v)
            perm = list(range(r - 2)) + [r - 1, r - 2]
            name = b.add("Transpose", [name], perm=perm)
        names.append(name)
    b.add("MatMul", names, [n.outs[0]])


def _layernorm(b, n, p):
    x = n.ins[0]
    r = b.rank(x)
    if p.begin_norm_axis % r != p.begin_params_axis % r:
        raise ExportError("For 'export', ONNX LayerNormalization needs begin_params_axis equal to "
                          "begin_norm_axis")
    b.only_first_output(n, "LayerNorm")
    b.add("LayerNormalization", [b.value(x), b.value(n.ins[1]), b.value(n.ins[2])],
          [n.outs[0]], axis=int(p.begin_norm_axis), epsilon=float(p.epsilon))


def _softmax(b, n, p, op):
    axis = p.axis
    if not isinstance(axis, int):
        if len(axis) != 1:
            raise ExportError(f"For 'export', ONNX {op} takes one axis, but got {axis}")
        axis = axis[0]
    b.add(op, [b.value(n.ins[0])], [n.outs[0]], axis=int(axis))


def _reshape(b, n, p):
    b.add("Reshape", [b.value(n.ins[0]), b.shape_of(n.ins[1][1])], [n.outs[0]])


def _transpose(b, n, p):
    b.add("Transpose", [b.value(n.ins[0])], [n.outs[0]], perm=[int(a) for a in n.ins[1][1]])


def _split_sizes(b, n, p):
    b.add("Split", [b.value(n.ins[0]), b.const(np.asarray(p.sizes, np.int64))], list(n.outs),
          axis=int(p.axis))


def _unstack(b, n, p):
    x = n.ins[0]
    axis = p.axis % b.rank(x)
    k = len(n.outs)
    parts = b.add("Split", [b.value(x), b.const(np.ones(k, np.int64))],
                  [b.fresh("part") for _ in range(k)], axis=axis)
    parts = parts if k > 1 else [parts]
    ax = b.const(np.asarray([axis], np.int64))
    for part, out in zip(parts, n.outs):
        b.add("Squeeze", [part, ax], [out])


def _stack(b, n, p):
    r = b.rank(n.outs[0])
    ax = b.const(np.asarray([p.axis % r], np.int64))
    parts = [b.add("Unsqueeze", [b.value(x), ax]) for x in n.ins]
    b.add("Concat", parts, [n.outs[0]], axis=int(p.axis % r))


def _concat(b, n, p):
    r = b.rank(n.outs[0])
    b.add("Concat", [b.value(x) for x in n.ins], [n.outs[0]], axis=int(p.axis % r))


def _clip(b, n, p):
    x = n.ins[0]
    b.add("Clip", [b.value(x), b.value(n.ins[1], like=x), b.value(n.ins[2], like=x)],
          [n.outs[0]])


def _rsqrt(b, n, p):
    b.add("Reciprocal", [b.add("Sqrt", [b.value(n.ins[0])])], [n.outs[0]])


def _square(b, n, p):
    x = b.value(n.ins[0])
    b.add("Mul", [x, x], [n.outs[0]])


def _cast(b, n, p):
    from_np = b.helper.np_dtype_to_tensor_dtype
    b.add("Cast", [b.value(n.ins[0])], [n.outs[0]],
          to=int(from_np(np.dtype(b.g.dtypes[n.outs[0]]))))


def _expand_dims(b, n, p):
    r = b.rank(n.outs[0])
    b.add("Unsqueeze", [b.value(n.ins[0]), b.const(np.asarray(_axes(n.ins[1][1], r), np.int64))],
          [n.outs[0]])


def _squeeze(b, n, p):
    x = n.ins[0]
    shape = b.g.shapes[x]
    axes = _axes(p.axis, len(shape)) if p.axis != () else \
        [k for k, d in enumerate(shape) if d == 1]
    b.add("Squeeze", [b.value(x), b.const(np.asarray(axes, np.int64))], [n.outs[0]])


def _gelu(b, n, p):
    x = n.ins[0]
    xs = b.value(x)
    dt = b.g.dtypes[x]
    half, one = b.const(np.asarray(0.5, dt)), b.const(np.asarray(1.0, dt))
    if p.approximate == "tanh":
        cube = b.add("Mul", [b.add("Mul", [xs, xs]), xs])
        inner = b.add("Add", [xs, b.add("Mul", [cube, b.const(np.asarray(0.044715, dt))])])
        t = b.add("Tanh", [b.add("Mul", [inner, b.const(np.asarray(math.sqrt(2 / math.pi), dt))])])
    else:
        t = b.add("Erf", [b.add("Mul", [xs, b.const(np.asarray(1 / math.sqrt(2), dt))])])
    b.add("Mul", [b.add("Mul", [xs, half]), b.add("Add", [t, one])], [n.outs[0]])


def _take(b, n, p):
    x = n.ins[0]
    b.add("Gather", [b.value(x), b.value(n.ins[1])], [n.outs[0]],
          axis=int(n.ins[2][1]) % b.rank(x))


def _select(b, n, p):
    b.add("Where", [b.value(x) for x in n.ins], [n.outs[0]])


def _tile(b, n, p):
    b.add("Tile", [b.value(n.ins[0]), b.shape_of(n.ins[1][1])], [n.outs[0]])


_INT_MAX = np.iinfo(np.int64).max


def _getitem(b, n, p):
    """Basic indexing (ints, slices, None, Ellipsis) as Slice, Squeeze and Unsqueeze."""
    x = n.ins[0]
    index = n.ins[1][1]
    index = index if type(index) is tuple else (index,)
    rank = b.rank(x)
    if sum(1 for i in index if i is Ellipsis) > 1 or not all(
            i is None or i is Ellipsis or type(i) in (int, slice) for i in index):
        raise ExportError(f"For 'export', only basic indexing (ints, slices, None, ...) has an "
                          f"ONNX lowering, but got {index!r}")
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    full = []
    for i in index:
        if i is Ellipsis:
            full.extend([slice(None)] * (rank - used))
        else:
            full.append(i)
    starts, ends, axes, steps, squeeze, unsqueeze = [], [], [], [], [], []
    axis = 0
    out_axis = 0
    for i in full:
        if i is None:
            unsqueeze.append(out_axis)
            out_axis += 1
            continue
        if type(i) is int:
            starts.append(i)
            ends.append(i + 1 if i != -1 else _INT_MAX)
            axes.append(axis)
            steps.append(1)
            squeeze.append(axis)
        elif i != slice(None):
            if any(type(v) is Dim for v in (i.start, i.stop, i.step)):
                raise ExportError("For 'export', a slice bound that depends on a dynamic "
                                  "dimension has no ONNX lowering")
            step = 1 if i.step is None else i.step
            lo, hi = (0, _INT_MAX) if step > 0 else (-1, -_INT_MAX)
            starts.append(lo if i.start is None else i.start)
            ends.append(hi if i.stop is None else i.stop)
            axes.append(axis)
            steps.append(step)
            out_axis += 1
        else:
            out_axis += 1
        axis += 1
    y = b.value(x)
    if axes:
        as_i64 = lambda v: b.const(np.asarray(v, np.int64))
        y = b.add("Slice", [y, as_i64(starts), as_i64(ends), as_i64(axes), as_i64(steps)])
    if squeeze:
        y = b.add("Squeeze", [y, b.const(np.asarray(squeeze, np.int64))])
    if unsqueeze:
        y = b.add("Unsqueeze", [y, b.const(np.asarray(unsqueeze, np.int64))])
    b.add("Identity", [y], [n.outs[0]])


_LOWER = {
    "Conv2D": _conv2d,
    "MaxPool": lambda b, n, p: _pool(b, n, p, "MaxPool"),
    "AvgPool": lambda b, n, p: _pool(b, n, p, "AveragePool"),
    "Dense": _dense,
    "MatMul": _matmul,
    "BatchMatMul": _matmul,
    "LayerNorm": _layernorm,
    "Softmax": lambda b, n, p: _softmax(b, n, p, "Softmax"),
    "LogSoftmax": lambda b, n, p: _softmax(b, n, p, "LogSoftmax"),
    "Reshape": _reshape,
    "Transpose": _transpose,
    "SplitSizes": _split_sizes,
    "Unstack": _unstack,
    "Stack": _stack,
    "Concat": _concat,
    "ClipByValue": _clip,
    "Rsqrt": _rsqrt,
    "Square": _square,
    "Cast": _cast,
    "ExpandDims": _expand_dims,
    "Squeeze": _squeeze,
    "GeLU": _gelu,
    "Select": _select,
    "Take": _take,
    "Gather": _take,
    "Tile": _tile,
    "Getitem": _getitem,
}


def _lower_node(b, n):
    op = n.op
    p = n.prim
    if op in _UNARY:
        b.add(_UNARY[op], [b.value(n.ins[0])], [n.outs[0]])
    elif op in _BINARY:
        x, y = n.ins
        like = x if type(x) is str else y if type(y) is str else None
        b.add(_BINARY[op], [b.value(x, like), b.value(y, like)], [n.outs[0]])
    elif op in _REDUCE_ATTR or op in _REDUCE_INPUT:
        x = n.ins[0]
        axis = n.ins[1][1]
        r = b.rank(x)
        axes = _axes(axis, r) if axis != () else list(range(r))
        keep = int(bool(p.keep_dims))
        if op in _REDUCE_ATTR:
            b.add(_REDUCE_ATTR[op], [b.value(x)], [n.outs[0]], axes=axes, keepdims=keep)
        else:
            b.add("ReduceSum", [b.value(x), b.const(np.asarray(axes, np.int64))], [n.outs[0]],
                  keepdims=keep)
    elif op in _LOWER:
        _LOWER[op](b, n, p)
    else:
        raise ExportError(f"For 'export', the operator '{op}' has no ONNX lowering, so the "
                          f"network cannot be exported to ONNX (lowered: "
                          f"{', '.join(supported_ops())})")


def write_onnx(graph, file_name, output_names=None, dim_names=None, export_params=True,
               keep_initializers_as_inputs=False):
    """Lower `graph` and save it. `output_names` rename the outputs; `dim_names`
    ({input index: {axis: name}}) name dynamic axes (default '<input>_dim<axis>');
    `export_params=False` makes the parameters graph inputs without values;
    `keep_initializers_as_inputs` lists them as inputs too, values kept."""
    onnx, helper, numpy_helper = _import_onnx()
    b = _Builder(graph, helper, numpy_helper)
    for n in graph.nodes:
        _lower_node(b, n)
    to_onnx = helper.np_dtype_to_tensor_dtype
    dim_names = dim_names or {}

    def info(name, shape, dt, dims_of=None):
        dims_of = dims_of or {}
        dims = [dims_of.get(k, f"{name}_dim{k}") if d is None else int(d)
                for k, d in enumerate(shape)]
        return helper.make_tensor_value_info(name, to_onnx(np.dtype(dt)), dims)

    inputs = [info(name, shape, dt, dim_names.get(k))
              for k, (name, dt, shape) in enumerate(graph.inputs)]
    params = [numpy_helper.from_array(np.ascontiguousarray(a), name)
              for name, a in graph.params.items()]
    consts = [numpy_helper.from_array(np.ascontiguousarray(a), name)
              for name, a in graph.consts.items()]
    if not export_params or keep_initializers_as_inputs:
        inputs += [info(name, a.shape, a.dtype) for name, a in graph.params.items()]
    outputs = list(graph.outputs)
    if output_names is not None:
        for old, new in zip(graph.outputs, output_names):
            b.add("Identity", [old], [new])
        outputs = list(output_names)
    values = [info(o, graph.shapes[old], graph.dtypes[old])
              for o, old in zip(outputs, graph.outputs)]
    inits = (params if export_params else []) + consts + b.inits
    g = helper.make_graph(b.nodes, "minispore", inputs, values, inits)
    model = helper.make_model(g, producer_name="minispore",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = min(model.ir_version, 8)
    onnx.checker.check_model(model)
    model = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    onnx.save(model, file_name)
    return model
