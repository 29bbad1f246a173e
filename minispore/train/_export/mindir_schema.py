"""MindSpore's MindIR schema (package `mind_ir`, proto2), written out as field tables and built
into protobuf message classes at run time (no protoc, no generated code). Only the messages and
fields minispore reads or writes are declared; protobuf keeps the others of a file as unknown
fields and ignores them. The `protobuf` package is an optional extra (`minispore[onnx]`)."""

# message -> [(field, number, label, type, message or enum type)]; labels: o optional,
# r repeated; types: protobuf's scalar names, "msg" or "enum".
_MESSAGES = {
    "AttributeProto": [
        ("name", 1, "o", "string", None), ("f", 2, "o", "float", None),
        ("i", 3, "o", "int64", None), ("d", 4, "o", "double", None),
        ("s", 5, "o", "bytes", None), ("t", 6, "o", "msg", "TensorProto"),
        ("g", 7, "o", "msg", "GraphProto"), ("floats", 8, "r", "float", None),
        ("doubles", 9, "r", "double", None), ("ints", 10, "r", "int64", None),
        ("strings", 11, "r", "bytes", None), ("tensors", 12, "r", "msg", "TensorProto"),
        ("graphs", 13, "r", "msg", "GraphProto"), ("doc_string", 14, "o", "string", None),
        ("ref_attr_name", 15, "o", "string", None),
        ("type", 16, "o", "enum", "AttributeProto.AttributeType"),
        ("values", 17, "r", "msg", "AttributeProto"),
    ],
    "ValueInfoProto": [
        ("name", 1, "o", "string", None), ("tensor", 2, "r", "msg", "TensorProto"),
        ("doc_string", 3, "o", "string", None), ("denotation", 4, "o", "string", None),
        ("attr_info", 5, "o", "msg", "AttributeProto"),
    ],
    "NodeProto": [
        ("input", 1, "r", "string", None), ("output", 2, "r", "string", None),
        ("name", 3, "o", "string", None), ("op_type", 4, "o", "string", None),
        ("attribute", 5, "r", "msg", "AttributeProto"), ("doc_string", 6, "o", "string", None),
        ("domain", 7, "o", "string", None), ("node_attr", 8, "r", "msg", "AttributeProto"),
        ("primal_attr", 9, "r", "msg", "AttributeProto"),
    ],
    "ModelProto": [
        ("ir_version", 1, "o", "string", None), ("producer_name", 2, "o", "string", None),
        ("producer_version", 3, "o", "string", None), ("domain", 4, "o", "string", None),
        ("model_version", 5, "o", "string", None), ("doc_string", 6, "o", "string", None),
        ("graph", 7, "o", "msg", "GraphProto"), ("functions", 8, "r", "msg", "GraphProto"),
        ("little_endian", 10, "o", "bool", None),
        ("primitives", 12, "r", "msg", "PrimitiveProto"),
        ("mind_ir_version", 13, "o", "int64", None),
    ],
    "GraphProto": [
        ("node", 1, "r", "msg", "NodeProto"), ("name", 2, "o", "string", None),
        ("parameter", 3, "r", "msg", "TensorProto"), ("doc_string", 4, "o", "string", None),
        ("input", 5, "r", "msg", "ValueInfoProto"), ("output", 6, "r", "msg", "ValueInfoProto"),
        ("bprop_hash", 7, "o", "string", None), ("attribute", 8, "r", "msg", "AttributeProto"),
        ("bprop_filepath", 9, "o", "string", None),
    ],
    "TensorProto": [
        ("dims", 1, "r", "int64", None), ("data_type", 2, "o", "int32", None),
        ("float_data", 3, "r", "float", None), ("int32_data", 4, "r", "int32", None),
        ("string_data", 5, "r", "bytes", None), ("int64_data", 6, "r", "int64", None),
        ("name", 7, "o", "string", None), ("doc_string", 8, "o", "string", None),
        ("raw_data", 9, "o", "bytes", None), ("double_data", 10, "r", "double", None),
        ("uint64_data", 11, "r", "uint64", None),
        ("external_data", 12, "o", "msg", "TensorProto.ExternalDataProto"),
        ("ref_key", 13, "o", "string", None), ("min_dims", 14, "r", "int64", None),
        ("max_dims", 15, "r", "int64", None),
        ("compression_type", 16, "o", "enum", "TensorProto.CompressionType"),
    ],
    "TensorProto.ExternalDataProto": [
        ("location", 1, "o", "string", None), ("offset", 2, "o", "int64", None),
        ("length", 3, "o", "int64", None),
    ],
    "PrimitiveProto": [
        ("name", 1, "o", "string", None), ("op_type", 2, "o", "string", None),
        ("attribute", 3, "r", "msg", "AttributeProto"), ("instance_name", 4, "o", "string", None),
        ("prim_type", 5, "o", "enum", "PrimitiveProto.PrimType"),
    ],
}

ATTRIBUTE_TYPES = ["UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16", "TENSOR", "GRAPH", "TENSORS", "TUPLE", "LIST", "DICT", "UMONAD", "IOMONAD", "NONE", "PRIMITIVECLOSURE", "FUNCCLOSURE", "PARTIALCLOSURE", "UNIONFUNCCLOSURE", "CSR_TENSOR", "COO_TENSOR", "ROW_TENSOR", "CLASS_TYPE", "NAME_SPACE", "SYMBOL", "TYPE_NULL", "MAP_TENSOR", "FUNCTOR", "SCALAR", "SCALAR_GRAPH_HOLDER"]
_ENUMS = {
    "AttributeProto.AttributeType": list(enumerate(ATTRIBUTE_TYPES)),
    "TensorProto.CompressionType": list(enumerate(
        ["NO_COMPRESSION", "INDEXING", "SPARSE", "FSE", "BIT_PACKING", "FSE_INT", "FSE_INFER"])),
    "PrimitiveProto.PrimType": [(1, "PRIMITIVE"), (2, "PRIMITIVE_FUNCTION")],
}

# TensorProto.data_type -> NumPy dtype name (BFLOAT16 and QINT4X2 have no NumPy dtype).
DATA_TYPES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32",
              7: "int64", 9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64",
              14: "complex64", 15: "complex128", 17: "float64"}

_classes = None


def classes():
    """{message name: class} of the schema (built once; needs the `protobuf` package)."""
    global _classes
    if _classes is not None:
        return _classes
    try:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    except ImportError:
        raise ImportError("MindIR files need the 'protobuf' package "
                          "(pip install minispore[onnx])") from None
    F = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="minispore_mind_ir.proto", package="mind_ir",
                                               syntax="proto2")
    made = {}

    def message(path):
        if path in made:
            return made[path]
        outer, _, inner = path.rpartition(".")
        parent = message(outer).nested_type if outer else proto.message_type
        made[path] = parent.add(name=inner)
        return made[path]

    for path, values in _ENUMS.items():
        outer, _, inner = path.rpartition(".")
        enum = message(outer).enum_type.add(name=inner)
        for number, name in values:
            enum.value.add(name=name, number=number)
    for path, fields in _MESSAGES.items():
        msg = message(path)
        for name, number, label, kind, ref in fields:
            f = msg.field.add(name=name, number=number,
                              label=F.LABEL_REPEATED if label == "r" else F.LABEL_OPTIONAL)
            if kind == "msg":
                f.type, f.type_name = F.TYPE_MESSAGE, ".mind_ir." + ref
            elif kind == "enum":
                f.type, f.type_name = F.TYPE_ENUM, ".mind_ir." + ref
            else:
                f.type = getattr(F, "TYPE_" + kind.upper())
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    get = getattr(message_factory, "GetMessageClass", None)
    if get is None:  # protobuf < 4.21
        factory = message_factory.MessageFactory(pool)
        get = factory.GetPrototype
    _classes = {path: get(pool.FindMessageTypeByName("mind_ir." + path)) for path in _MESSAGES}
    return _classes
