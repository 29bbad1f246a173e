"""MindIR: writing an exported Graph in MindSpore's conventions, and reading MindIR files
(minispore's and MindSpore's) into a `MindIRGraph` that `nn.GraphCell` runs with minispore ops.

Conventions followed (those of MindSpore 2.10's files): each node's `op_type` is
"REF::<primitive>" naming an entry of `ModelProto.primitives`; a PRIMITIVE keeps its settings as
attributes (Conv2D, MaxPool, AvgPool), a PRIMITIVE_FUNCTION takes them as trailing inputs made
by `Constant` nodes (MatMul's transpose flags, Reshape's shape); a multi-output node gives a
tuple read by `TupleGetItem`; parameters carry their Cell names in `ref_key`.

Reading never runs code from the file: op names are looked up in a fixed table, every tensor's
size is checked against its dims before any array is made, and anything else is refused with
a `ValueError` naming the node.
"""
import os

import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...ops import operations as P
from . import mindir_schema as schema
from .graph import Dim, ExportError, Fill

_T = {name: k for k, name in enumerate(schema.ATTRIBUTE_TYPES)}
_NP_TO_DATA_TYPE = {np.dtype(v): k for k, v in schema.DATA_TYPES.items() if k != 17}
MAX_FILE_BYTES = 1 << 32  # 4 GiB: protobuf's own message limit is 2 GiB
MAX_ELEMENTS = 1 << 31


# ---- writing ---------------------------------------------------------------------------------

class _Writer:
    def __init__(self, graph):
        C = schema.classes()
        self.C = C
        self.g = graph
        self.model = C["ModelProto"]()
        self.prims = {}
        self.count = 0
        self.shapes = {}  # graph input index -> its Shape node

    def fresh(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def attr(self, a, value, name=None):
        """Fill AttributeProto `a` with a Python value (MindSpore's encodings)."""
        if name is not None:
            a.name = name
        if value is None:
            a.type = _T["NONE"]
        elif isinstance(value, (bool, np.bool_)):
            a.type, a.i = _T["BOOL"], int(value)
        elif isinstance(value, (int, np.integer)):
            a.type, a.i = _T["INT64"], int(value)
        elif isinstance(value, (float, np.floating)):
            a.type, a.f = _T["FLOAT"], float(value)
        elif isinstance(value, str):
            a.type, a.s = _T["STRING"], value.encode()
        elif isinstance(value, (tuple, list)):
            a.type = _T["TUPLE"] if isinstance(value, tuple) else _T["LIST"]
            for v in value:
                item = a.values.add()
                self.attr(item, v)
                if item.type == _T["INT64"]:  # MindSpore writes a sequence's ints this way
                    item.ints.append(item.i)
                    item.ClearField("i")
        elif isinstance(value, np.ndarray):
            a.type = _T["TENSORS"]
            self.tensor(a.tensors.add(), value, "value0")
        elif type(value) in (Dim, Fill):
            raise ExportError("For 'export', MINDIR keeps a dynamic dimension only in a "
                              "Reshape target or the shape of a constant fill")
        else:
            raise ExportError(f"For 'export', no MINDIR encoding for the constant {value!r}")
        return a

    def tensor(self, t, arr, name):
        arr = np.ascontiguousarray(arr)
        code = _NP_TO_DATA_TYPE.get(arr.dtype)
        if code is None:
            raise ExportError(f"For 'export', MINDIR has no tensor type for dtype {arr.dtype}")
        t.dims.extend(arr.shape)
        t.data_type = code
        t.name = name
        t.raw_data = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        return t

    def const(self, value):
        name = self.fresh("ValueNode")
        node = self.graph_proto.node.add(output=[name], name=name, op_type="Constant")
        self.attr(node.attribute.add(), value, "value")
        return name

    def prim(self, op, kind, attrs=()):
        key = (op, kind, repr(attrs))
        if key not in self.prims:
            p = self.model.primitives.add(name=f"{op}:{len(self.prims) + 1}", op_type=op,
                                          prim_type=kind)
            for k, v in attrs:
                self.attr(p.attribute.add(), v, k)
            self.prims[key] = p.name
        return self.prims[key]

    def node(self, op, ins, attrs=(), kind=2, out=None):
        out = out or self.fresh(op)
        self.graph_proto.node.add(input=list(ins), output=[out], name=out,
                                  op_type="REF::" + self.prim(op, kind, tuple(attrs)))
        return out

    def value(self, x):
        if type(x) is str:
            return x
        if type(x[1]) is Fill:
            f = x[1]
            return self.node("FillV2", [self.shape_value(f.shape),
                                        self.const(np.asarray(f.value, f.dtype))], kind=1)
        return self.const(x[1])

    def shape_value(self, dims):
        """A tuple of ints and `Dim`s as MindSpore builds one: Shape, TupleGetItem, ScalarMul,
        MakeTuple."""
        if all(type(d) is not Dim for d in dims):
            return self.const(tuple(int(d) for d in dims))
        items = []
        for d in dims:
            if type(d) is not Dim:
                items.append(self.const(int(d)))
                continue
            shape = self.shapes.get(d.arg)
            if shape is None:
                shape = self.shapes[d.arg] = self.node("Shape", [self.g.inputs[d.arg][0]])
            item = self.node("TupleGetItem", [shape, self.const(d.axis)], kind=1)
            if d.mult != 1:
                item = self.node("ScalarMul", [item, self.const(d.mult)])
            items.append(item)
        return self.node("MakeTuple", items, kind=1)

    def write(self):
        g = self.g
        m = self.model
        m.ir_version, m.producer_name, m.model_version = "1.1", "minispore", "2.10.0"
        m.little_endian, m.mind_ir_version = True, 3
        gp = self.graph_proto = m.graph
        gp.name = "minispore_graph"
        for name, dt, shape in g.inputs:
            vi = gp.input.add(name=name)
            t = vi.tensor.add(data_type=_NP_TO_DATA_TYPE[np.dtype(dt)])
            t.dims.extend(-1 if d is None else d for d in shape)
        for name, arr in (*g.params.items(), *g.consts.items()):
            t = self.tensor(gp.parameter.add(), arr, name)
            t.ref_key = name
        for n in g.nodes:
            fn = _WRITE.get(n.op)
            if fn is None:
                raise ExportError(f"For 'export', the operator '{n.op}' has no MINDIR mapping, "
                                  f"so the network cannot be exported to MINDIR (mapped: "
                                  f"{', '.join(sorted(_WRITE))})")
            outs = fn(self, n, n.prim)
            if type(outs) is str:
                outs = [outs]
            if len(outs) == 1 and len(n.outs) == 1:
                self.rename(outs[0], n.outs[0])
            else:  # a tuple: TupleGetItem per output
                for k, o in enumerate(n.outs):
                    self.node("TupleGetItem", [outs[0], self.const(k)], kind=1, out=o)
        if len(g.outputs) == 1:
            out = g.outputs[0]
        else:
            out = self.node("MakeTuple", g.outputs, kind=1)
        vo = gp.output.add(name=out)
        if len(g.outputs) == 1:
            t = vo.tensor.add(data_type=_NP_TO_DATA_TYPE[np.dtype(g.dtypes[out])])
            t.dims.extend(-1 if d is None else d for d in g.shapes[out])
        return m

    def rename(self, made, want):
        node = self.graph_proto.node[-1]
        if node.output[0] == made:
            node.output[0] = node.name = want




def _w_conv2d(w, n, p):
    mode = p.pad_mode.lower()
    attrs = (("kernel_size", tuple(p.kernel_size)), ("mode", int(p.mode)),
             ("out_channel", int(p.out_channel)), ("pad", tuple(p.pad)), ("pad_mode", mode),
             ("format", p.data_format), ("pad_list", tuple(p.pad)), ("groups", int(p.group)),
             ("group", int(p.group)), ("stride", (1, 1, *p.stride[-2:])),
             ("dilation", (1, 1, *p.dilation[-2:])))
    return w.node("Conv2D", [w.value(n.ins[0]), w.value(n.ins[1])], attrs, kind=1)


def _w_maxpool(w, n, p):
    if tuple(getattr(p, "dilation", (1, 1))) not in ((1, 1), (1, 1, 1, 1)) or \
            p.pad_mode.upper() not in ("VALID", "SAME"):
        raise ExportError("For 'export', MINDIR MaxPool takes no dilation or explicit padding")
    attrs = (("pad_mode", p.pad_mode.upper()), ("kernel_size", (1, 1, *p.kernel_size[-2:])),
             ("format", p.data_format), ("strides", (1, 1, *p.strides[-2:])))
    return w.node("MaxPool", [w.value(n.ins[0])], attrs, kind=1)


_PAD_MODES = {"PAD": 0, "SAME": 1, "VALID": 2}  # MindSpore's PadMode enum
# MindSpore's TypeId numbers of the dtypes a Cast or a Zeros node names (as its files hold them).
_TYPE_IDS = {np.dtype(np.bool_): 30, np.dtype(np.int8): 32, np.dtype(np.int16): 33,
             np.dtype(np.int32): 34, np.dtype(np.int64): 35, np.dtype(np.uint8): 37,
             np.dtype(np.float16): 42, np.dtype(np.float32): 43, np.dtype(np.float64): 44}
_DTYPES = {v: k for k, v in _TYPE_IDS.items()}
_FORMATS = {"NCHW": 0, "NHWC": 1}


def _w_avgpool(w, n, p):
    if p.pad_mode.upper() != "VALID" or p.divisor_override is not None or any(p.ceil_extra):
        raise ExportError("For 'export', MINDIR AvgPool is mapped for pad_mode 'valid' without "
                          "ceil_mode or divisor_override")
    return w.node("AvgPool", [w.value(n.ins[0]), w.const(tuple(p.kernel_size[-2:])),
                              w.const(tuple(p.strides[-2:])), w.const(_PAD_MODES["VALID"]),
                              w.const(_FORMATS[p.data_format])])


def _w_same(op, consts=()):
    """A PRIMITIVE_FUNCTION taking the node's inputs, then constants from the primitive."""
    def write(w, n, p):
        ins = [w.value(x) for x in n.ins]
        ins += [w.const(c(p)) for c in consts]
        return w.node(op, ins)
    return write


def _w_dense(w, n, p):
    b = n.ins[2] if len(n.ins) > 2 else ("c", None)
    return w.node("Dense", [w.value(n.ins[0]), w.value(n.ins[1]), w.value(b)])


def _w_reshape(w, n, p):
    dims = tuple(n.ins[1][1])
    if sum(type(d) is Dim for d in dims) == 1 and -1 not in dims:  # as MindSpore writes it
        dims = tuple(-1 if type(d) is Dim else d for d in dims)
    return w.node("Reshape", [w.value(n.ins[0]), w.shape_value(dims)])


def _w_reduce(op):
    def write(w, n, p):
        axis = n.ins[1][1]
        axis = (axis,) if isinstance(axis, int) else tuple(axis)
        extra = [w.const(False)] if op == "ReduceSum" else []
        return w.node(op, [w.value(n.ins[0]), w.const(axis), w.const(bool(p.keep_dims)), *extra])
    return write


def _w_softmax(w, n, p):
    axis = p.axis if isinstance(p.axis, tuple) else (p.axis,)
    return w.node("Softmax", [w.value(n.ins[0]), w.const(axis)])


def _w_layernorm(w, n, p):
    return w.node("LayerNorm", [w.value(x) for x in n.ins] +
                  [w.const(int(p.begin_norm_axis)), w.const(int(p.begin_params_axis)),
                   w.const(float(p.epsilon))])


def _w_split_sizes(w, n, p):
    return w.node("SplitWithSize", [w.value(n.ins[0]), w.const(tuple(p.sizes)),
                                    w.const(int(p.axis))])


def _w_concat(w, n, p):
    tup = w.node("MakeTuple", [w.value(x) for x in n.ins], kind=1)
    return w.node("Concat", [tup, w.const(int(p.axis))])


def _w_stack(w, n, p):
    tup = w.node("MakeTuple", [w.value(x) for x in n.ins], kind=1)
    k = len(n.ins)
    return w.node("Stack", [tup], (("axis", int(p.axis)), ("N", k), ("num", k)), kind=1)


def _w_unstack(w, n, p):
    return w.node("Unstack", [w.value(n.ins[0])], (("axis", int(p.axis)),
                                                   ("num", len(n.outs))), kind=1)


def _w_getitem(w, n, p):
    """Basic indexing as StridedSlice(x, begin, end, strides, masks)."""
    index = n.ins[1][1]
    index = index if type(index) is tuple else (index,)
    begin, end, strides = [], [], []
    masks = [0, 0, 0, 0, 0]  # begin, end, ellipsis, new_axis, shrink_axis
    for k, i in enumerate(index):
        if i is Ellipsis:
            masks[2] |= 1 << k
            begin.append(0), end.append(0), strides.append(1)
        elif i is None:
            masks[3] |= 1 << k
            begin.append(0), end.append(1), strides.append(1)
        elif type(i) is int:
            masks[4] |= 1 << k
            begin.append(i), end.append(i + 1 if i != -1 else 0), strides.append(1)
            if i == -1:
                masks[1] |= 1 << k
        elif type(i) is slice and all(type(v) in (int, type(None)) for v in
                                      (i.start, i.stop, i.step)):
            if i.start is None:
                masks[0] |= 1 << k
            if i.stop is None:
                masks[1] |= 1 << k
            begin.append(i.start or 0), end.append(i.stop or 0), strides.append(i.step or 1)
        else:
            raise ExportError(f"For 'export', only basic indexing has a MINDIR mapping, but "
                              f"got {index!r}")
    return w.node("StridedSlice", [w.value(n.ins[0]), w.const(tuple(begin)),
                                   w.const(tuple(end)), w.const(tuple(strides)),
                                   *[w.const(m) for m in masks]])


def _w_clip(w, n, p):
    lo, hi = (np.asarray(x[1]).item() if type(x) is tuple else None for x in n.ins[1:])
    if lo is None or hi is None:
        raise ExportError("For 'export', MINDIR ClipByValue needs constant bounds")
    return w.node("ClampScalar", [w.value(n.ins[0]), w.const(lo), w.const(hi)])


def _w_gelu(w, n, p):
    if p.approximate != "tanh":
        raise ExportError("For 'export', MINDIR GeLU is the tanh approximation; "
                          "approximate='none' has no mapping")
    return w.node("GeLU", [w.value(n.ins[0])])


def _w_take(w, n, p):
    return w.node("Gather", [w.value(x) for x in n.ins] + [w.const(0)])


def _w_cast(w, n, p):
    dt = w.g.dtypes[n.outs[0]]
    if dt not in _TYPE_IDS:
        raise ExportError(f"For 'export', MINDIR Cast to {dt} is not mapped")
    return w.node("Cast", [w.value(n.ins[0]), w.const(_TYPE_IDS[dt])])


def _type_of(type_id):
    if type_id not in _DTYPES:
        raise ValueError(f"For 'GraphCell', the MindSpore type id {type_id} is not one minispore "
                         f"maps")
    return mstype.NP_TO_MS[_DTYPES[type_id]]


_UNARY = ("ReLU", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Rsqrt", "Neg", "Abs", "Erf", "Sin",
          "Cos", "Floor", "Square", "Reciprocal")
_BINARY = ("Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow", "Equal", "Less",
           "Greater")

_WRITE = {op: _w_same(op) for op in _UNARY + _BINARY}
_WRITE.update({
    "Conv2D": _w_conv2d, "MaxPool": _w_maxpool, "AvgPool": _w_avgpool,
    "Dense": _w_dense, "Reshape": _w_reshape,
    "MatMul": _w_same("MatMul", (lambda p: bool(p.transpose_a), lambda p: bool(p.transpose_b))),
    "BatchMatMul": _w_same("BatchMatMul", (lambda p: bool(p.transpose_a),
                                           lambda p: bool(p.transpose_b))),
    "Transpose": _w_same("Transpose"), "ReduceMean": _w_reduce("ReduceMean"),
    "ReduceSum": _w_reduce("ReduceSum"), "ReduceMax": _w_reduce("ReduceMax"),
    "Softmax": _w_softmax, "LayerNorm": _w_layernorm, "SplitSizes": _w_split_sizes,
    "Stack": _w_stack, "Concat": _w_concat,
    "Unstack": _w_unstack, "Getitem": _w_getitem, "ClipByValue": _w_clip, "GeLU": _w_gelu,
    "ExpandDims": _w_same("ExpandDims"), "Select": _w_same("Select"),
    "Take": _w_take, "Gather": _w_take, "Cast": _w_cast,
    "Squeeze": lambda w, n, p: w.node("Squeeze", [w.value(n.ins[0]), w.const(
        (p.axis,) if isinstance(p.axis, int) else tuple(p.axis))]),
})


def write_mindir(graph, file_name):
    model = _Writer(graph).write()
    with open(file_name, "wb") as f:
        f.write(model.SerializeToString())
    return model


# ---- reading ---------------------------------------------------------------------------------

_MONAD = object()


def _bad(file_name, what):
    return ValueError(f"For 'load', '{file_name}' is not a MindIR file minispore can read: "
                      f"{what}")


def _array(t, where, file_name):
    """The NumPy array of TensorProto `t`, its size checked against its dims first."""
    dt = schema.DATA_TYPES.get(t.data_type)
    if dt is None:
        raise _bad(file_name, f"{where} has tensor data type {t.data_type}, which minispore "
                              f"cannot hold")
    dims = list(t.dims)
    if any(d < 0 for d in dims):
        raise _bad(file_name, f"{where} has negative dims {dims}")
    count = 1
    for d in dims:
        count *= d
        if count > MAX_ELEMENTS:
            raise _bad(file_name, f"{where} declares {dims}: too many elements")
    dt = np.dtype(dt)
    if t.HasField("external_data"):
        raise _bad(file_name, f"{where} keeps its data in an external file (not supported)")
    if t.raw_data or count == 0:
        if len(t.raw_data) != count * dt.itemsize:
            raise _bad(file_name, f"{where} has {len(t.raw_data)} bytes of data, but dims "
                                  f"{dims} of {dt} need {count * dt.itemsize}")
        return np.frombuffer(t.raw_data, dt.newbyteorder("<")).astype(dt).reshape(dims)
    for field in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
        data = getattr(t, field)
        if len(data):
            if len(data) != count:
                raise _bad(file_name, f"{where} has {len(data)} values for dims {dims}")
            return np.asarray(data).astype(dt).reshape(dims)
    raise _bad(file_name, f"{where} has no data")


def _attr_value(a, where, file_name, depth=0):
    """The Python value of AttributeProto `a`."""
    if depth > 32:
        raise _bad(file_name, f"{where} nests sequences too deeply")
    kind = schema.ATTRIBUTE_TYPES[a.type] if a.type < len(schema.ATTRIBUTE_TYPES) else None
    if kind in ("FLOAT", "FLOAT16", "BFLOAT16"):
        return float(a.floats[0]) if len(a.floats) else float(a.f)
    if kind == "DOUBLE":
        return float(a.doubles[0]) if len(a.doubles) else float(a.d)
    if kind in ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"):
        return int(a.ints[0]) if len(a.ints) else int(a.i)
    if kind == "BOOL":
        return bool(a.ints[0]) if len(a.ints) else bool(a.i)
    if kind == "STRING":
        return (a.strings[0] if len(a.strings) else a.s).decode("utf-8", "replace")
    if kind in ("TUPLE", "LIST"):
        items = [_attr_value(v, where, file_name, depth + 1) for v in a.values]
        return tuple(items) if kind == "TUPLE" else items
    if kind == "TENSORS":
        if len(a.tensors) != 1:
            raise _bad(file_name, f"{where} holds {len(a.tensors)} tensors")
        return _array(a.tensors[0], where, file_name)
    if kind == "TENSOR":
        return _array(a.t, where, file_name)
    if kind == "NONE":
        return None
    if kind in ("UMONAD", "IOMONAD"):
        return _MONAD
    raise _bad(file_name, f"{where} has a value of type {kind or a.type} that minispore cannot "
                          f"read")


# The ops a MindIR graph may use: name -> fn(attrs, *inputs) on Tensors (and constants).
def _conv2d(a, x, w):
    prim = P.Conv2D(a["out_channel"], tuple(a["kernel_size"])[-2:], mode=a.get("mode", 1),
                    pad_mode=a.get("pad_mode", "valid").lower(), pad=tuple(a.get("pad", 0)),
                    stride=tuple(a.get("stride", (1, 1)))[-2:],
                    dilation=tuple(a.get("dilation", (1, 1)))[-2:],
                    group=a.get("group", a.get("groups", 1)), data_format=a.get("format", "NCHW"))
    return prim(x, w)


def _pool(cls):
    """MaxPool / AvgPool: settings as attributes (PRIMITIVE) or as inputs (kernel_size,
    strides, pad_mode and data_format as MindSpore's enums)."""
    modes = {v: k for k, v in _PAD_MODES.items()}
    formats = {v: k for k, v in _FORMATS.items()}

    def run(a, x, *settings):
        if settings:
            kernel, strides, mode, fmt = (settings + (2, 0))[:4]
            mode, fmt = modes.get(mode, mode), formats.get(fmt, fmt)
        else:
            kernel, strides = a["kernel_size"], a["strides"]
            mode, fmt = a.get("pad_mode", "VALID"), a.get("format", "NCHW")
        kernel = (kernel,) * 2 if isinstance(kernel, int) else tuple(kernel)[-2:]
        strides = (strides,) * 2 if isinstance(strides, int) else tuple(strides)[-2:]
        return cls(kernel, strides, str(mode).upper(), data_format=fmt)(x)
    return run


def _strided_slice(a, x, begin, end, strides, bm=0, em=0, elm=0, nam=0, sam=0):
    return P.StridedSlice(bm, em, elm, nam, sam)(x, tuple(begin), tuple(end), tuple(strides))


def _batch_norm(a, x, scale, bias, mean, var, training=False, eps=1e-5, momentum=0.1, fmt=0):
    if training:
        raise ValueError("For 'GraphCell', a BatchNorm in training mode cannot run in an "
                         "inference graph")
    shape = (1, -1) + (1,) * (x.ndim - 2)
    inv = ops.rsqrt(var + eps) * scale
    y = (x - mean.reshape(shape)) * inv.reshape(shape) + bias.reshape(shape)
    return (y, mean, var, mean, var)


def _gather(x, indices, axis, batch_dims):
    if batch_dims:
        raise ValueError(f"For 'GraphCell', Gather with batch_dims={batch_dims} is not supported")
    return ops.gather(x, indices, axis)


_MS_UNARY = {"ReLU": ops.relu, "Sigmoid": ops.sigmoid, "Tanh": ops.tanh, "Exp": ops.exp,
             "Log": ops.log, "Sqrt": ops.sqrt, "Rsqrt": ops.rsqrt, "Neg": ops.neg,
             "Abs": ops.abs, "Erf": ops.erf, "Sin": ops.sin, "Cos": ops.cos, "Floor": ops.floor,
             "Square": ops.square, "Reciprocal": ops.reciprocal, "ReLU6": ops.relu6,
             "GeLU": lambda x: ops.gelu(x, approximate="tanh"), "Flatten": ops.flatten}
_MS_BINARY = {"Add": ops.add, "Sub": ops.sub, "Mul": ops.mul, "RealDiv": ops.div,
              "Div": ops.div, "Divs": ops.div, "Muls": ops.mul, "Adds": ops.add,
              "Maximum": ops.maximum, "Minimum": ops.minimum, "Pow": ops.pow,
              "Equal": ops.equal, "Less": ops.less, "Greater": ops.greater}

def _unary(f):
    return lambda a, x: f(x)


def _binary(f):
    return lambda a, x, y: f(x, y)


_RUN = {op: _unary(f) for op, f in _MS_UNARY.items()}
_RUN.update({op: _binary(f) for op, f in _MS_BINARY.items()})
_RUN.update({
    "Conv2D": _conv2d, "MaxPool": _pool(P.MaxPool), "AvgPool": _pool(P.AvgPool),
    "MatMul": lambda a, x, y, ta=False, tb=False: P.MatMul(ta, tb)(x, y),
    "BatchMatMul": lambda a, x, y, ta=False, tb=False: P.BatchMatMul(ta, tb)(x, y),
    "Dense": lambda a, x, w, b=None: ops.dense(x, w, b),
    "BiasAdd": lambda a, x, b, fmt=0: ops.bias_add(x, b),
    "Reshape": lambda a, x, shape: ops.reshape(x, tuple(shape)),
    "Transpose": lambda a, x, perm: ops.transpose(x, tuple(perm)),
    "ReduceMean": lambda a, x, axis=(), keep=False: ops.mean(x, tuple(axis) or None, keep),
    "ReduceSum": lambda a, x, axis=(), keep=False, skip=False: ops.sum(x, tuple(axis) or None,
                                                                       keep),
    "ReduceMax": lambda a, x, axis=(), keep=False: ops.amax(x, tuple(axis) or None, keep),
    "Softmax": lambda a, x, axis=(-1,): ops.softmax(x, axis[0] if type(axis) in (tuple, list)
                                                      else axis),
    "LayerNorm": lambda a, x, g, b, bna=1, bpa=1, eps=1e-7: P.LayerNorm(bna, bpa, eps)(x, g, b),
    "BatchNorm": _batch_norm,
    "SplitWithSize": lambda a, x, sizes, axis=0: tuple(ops.split(x, list(sizes), axis)),
    "Stack": lambda a, xs, axis=None: ops.stack(list(xs), a.get("axis", 0) if axis is None
                                                else axis),
    "Concat": lambda a, xs, axis=0: ops.concat(list(xs), axis),
    "Unstack": lambda a, x: tuple(ops.unstack(x, a.get("axis", 0))),
    "StridedSlice": _strided_slice,
    "ClampScalar": lambda a, x, lo=None, hi=None: ops.clamp(x, lo, hi),
    "ExpandDims": lambda a, x, axis: ops.expand_dims(x, axis),
    "Select": lambda a, c, x, y: ops.select(c, x, y),
    "Cast": lambda a, x, type_id: ops.cast(x, _type_of(type_id)),
    "Squeeze": lambda a, x, axis=(): ops.squeeze(x, tuple(axis) if axis != () else None),
    "Zeros": lambda a, shape, type_id: ops.zeros(tuple(shape), _type_of(type_id)),
    "Gather": lambda a, x, indices, axis=0, batch_dims=0: _gather(x, indices, axis, batch_dims),
    "MakeTuple": lambda a, *xs: tuple(xs),
    "Shape": lambda a, x: tuple(x.shape),
    "ScalarMul": lambda a, x, y: x * y,
    "FillV2": lambda a, shape, value: ops.broadcast_to(value, tuple(shape)),
    "make_list": lambda a, *xs: list(xs),
    "TupleGetItem": lambda a, t, k: t[k],
    "Load": lambda a, x, *monad: x,
    "Depend": lambda a, x, *deps: x,
    "UpdateState": lambda a, *xs: _MONAD,
})


def supported_ops():
    """(the primitives written to MINDIR, the MindIR ops read)."""
    return sorted(_WRITE), sorted(_RUN)


class MindIRGraph:
    """A graph read from a MindIR file: what `load` returns and `nn.GraphCell` runs.

    inputs: [(name, np.dtype, shape with -1 where dynamic)]; params: {name: array} (the names
    the file gives in `ref_key`); outputs: value names (a tuple output when several)."""

    def __init__(self, inputs, params, param_keys, nodes, outputs, file_name):
        self.inputs, self.params = inputs, params
        self._param_keys, self._nodes, self.outputs = param_keys, nodes, outputs
        self.file_name = file_name

    def __repr__(self):
        return (f"MindIRGraph('{self.file_name}', inputs={[list(s) for _, _, s in self.inputs]},"
                f" {len(self._nodes)} nodes, {len(self.params)} parameters)")

    def constants(self):
        """The Tensors of the graph's Constant nodes (each node runs as this very Tensor)."""
        return [attrs for op, attrs, *_ in self._nodes if op == "Constant" and
                isinstance(attrs, Tensor)]

    def run(self, params, args):
        """The outputs for Tensors `args` with Parameter values `params` ({name: Tensor})."""
        if len(args) != len(self.inputs):
            raise TypeError(f"For 'GraphCell', the graph takes {len(self.inputs)} inputs, but "
                            f"got {len(args)}")
        vals = {}
        for (name, dt, shape), x in zip(self.inputs, args):
            if not isinstance(x, Tensor):
                raise TypeError(f"For 'GraphCell', input '{name}' must be a Tensor, but got "
                                f"{type(x).__name__}")
            if x.ndim != len(shape) or any(d >= 0 and d != s for d, s in zip(shape, x.shape)):
                raise ValueError(f"For 'GraphCell', input '{name}' must have shape "
                                 f"{list(shape)} (-1: any size), but got {list(x.shape)}")
            if mstype.to_np(x.dtype) != dt:
                raise TypeError(f"For 'GraphCell', input '{name}' must be {dt}, but got "
                                f"{x.dtype}")
            vals[name] = x
        for name, key in self._param_keys.items():
            vals[name] = params[key]
        for op, attrs, ins, out, node_name in self._nodes:
            if op == "Constant":
                vals[out] = attrs
                continue
            fn = _RUN[op]
            try:
                vals[out] = fn(attrs, *[vals[i] for i in ins])
            except (TypeError, ValueError, IndexError) as e:
                raise type(e)(f"For 'GraphCell', node '{node_name}' ({op}) failed: {e}") from e
            except (KeyError, AttributeError, ZeroDivisionError, OverflowError) as e:
                raise ValueError(f"For 'GraphCell', node '{node_name}' ({op}) failed: "
                                 f"{type(e).__name__}: {e}") from e
        outs = [vals[o] for o in self.outputs]
        return outs[0] if len(outs) == 1 else tuple(outs)


def read_model(file_name):
    """The ModelProto of a MindIR file (size checked first; a parse error is a ValueError)."""
    if not isinstance(file_name, str):
        raise TypeError(f"For 'load', 'file_name' must be a str, but got "
                        f"{type(file_name).__name__}")
    if not os.path.isfile(file_name):
        raise ValueError(f"For 'load', the file '{file_name}' does not exist")
    size = os.path.getsize(file_name)
    if size > MAX_FILE_BYTES:
        raise _bad(file_name, f"{size} bytes is more than the {MAX_FILE_BYTES} minispore reads")
    with open(file_name, "rb") as f:
        raw = f.read()
    model = schema.classes()["ModelProto"]()
    try:
        model.ParseFromString(raw)
    except Exception as e:  # noqa: BLE001  (protobuf's DecodeError, its C++ backend's errors)
        raise _bad(file_name, f"it does not parse as a mind_ir ModelProto ({e})") from None
    if not model.HasField("graph") or not len(model.graph.output):
        raise _bad(file_name, "it has no graph with outputs")
    return model


def read_graph(model, file_name):
    """The MindIRGraph of a parsed ModelProto; any structure minispore cannot follow (names
    that are not UTF-8, values of the wrong kind) is refused with a ValueError."""
    try:
        return _read_graph(model, file_name)
    except (TypeError, AttributeError, UnicodeError, KeyError, IndexError, OverflowError) as e:
        raise _bad(file_name, f"malformed graph ({type(e).__name__}: {e})") from None


def _read_graph(model, file_name):
    g = model.graph
    if len(model.functions):
        raise _bad(file_name, f"it holds {len(model.functions)} sub-graphs (control flow), "
                              f"which minispore does not run")
    prims = {p.name: p for p in model.primitives}
    defined = set()
    inputs = []
    for vi in g.input:
        if len(vi.tensor) != 1:
            raise _bad(file_name, f"input '{vi.name}' has no single tensor type")
        t = vi.tensor[0]
        dt = schema.DATA_TYPES.get(t.data_type)
        if dt is None:
            raise _bad(file_name, f"input '{vi.name}' has data type {t.data_type}")
        inputs.append((vi.name, np.dtype(dt), tuple(int(d) for d in t.dims)))
        defined.add(vi.name)
    params, keys = {}, {}
    for t in g.parameter:
        key = t.ref_key or t.name
        if key in params:
            raise _bad(file_name, f"parameter '{key}' appears twice")
        params[key] = _array(t, f"parameter '{key}'", file_name).copy()
        keys[t.name] = key
        defined.add(t.name)
    nodes = []
    for node in g.node:
        where = f"node '{node.name}'"
        if len(node.output) != 1:
            raise _bad(file_name, f"{where} has {len(node.output)} outputs")
        if node.op_type == "Constant":
            if len(node.attribute) != 1:
                raise _bad(file_name, f"{where} is a Constant without one value")
            value = _attr_value(node.attribute[0], where, file_name)
            if type(value) is np.ndarray:
                value = Tensor(value)
            nodes.append(("Constant", value, (), node.output[0], node.name))
        else:
            if node.op_type.startswith("REF::"):
                prim = prims.get(node.op_type[5:])
                if prim is None:
                    raise _bad(file_name, f"{where} names primitive '{node.op_type[5:]}', "
                                          f"which the file does not define")
                op, attr_list = prim.op_type, prim.attribute
            else:
                op, attr_list = node.op_type, node.attribute
            if op not in _RUN:
                raise _bad(file_name, f"{where} uses the operator '{op}', which minispore does "
                                      f"not run (it runs: {', '.join(sorted(_RUN))})")
            attrs = {a.name: _attr_value(a, f"{where} attribute '{a.name}'", file_name)
                     for a in attr_list if a.name not in ("input_names", "output_names")}
            for i in node.input:
                if i not in defined:
                    raise _bad(file_name, f"{where} reads '{i}' before it is defined")
            nodes.append((op, attrs, tuple(node.input), node.output[0], node.name))
        defined.add(node.output[0])
    outputs = [vo.name for vo in g.output]
    for o in outputs:
        if o not in defined:
            raise _bad(file_name, f"the output '{o}' is not defined")
    return MindIRGraph(inputs, params, keys, nodes, outputs, file_name)
