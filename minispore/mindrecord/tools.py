"""Converters of common datasets into MindRecord files, MindSpore's `*ToMR` classes: MNIST
(gzipped IDX), CIFAR-10 / CIFAR-100 (the python version), ImageNet-style folders, CSV files and
TFRecord files of tf.train.Example records (parsed here, without TensorFlow).

Images are stored JPEG-encoded, as MindSpore does; the encoder here is Pillow's (MindSpore uses
OpenCV), so the JPEG bytes differ from MindSpore's while the schema, fields and row order are
the same. The CIFAR python batches are pickles: they are read with an unpickler that builds
nothing but dicts, lists, bytes, numbers and NumPy arrays (any other global is refused), and
their shapes are checked before use.
"""
import csv
import gzip
import io
import os
import pickle
import struct

import numpy as np

try:
    from numpy._core.multiarray import _reconstruct
except ImportError:  # NumPy 1.x
    from numpy.core.multiarray import _reconstruct

from ._errors import SUCCESS, ParamValueError
from .filewriter import FileWriter, check_filename

__all__ = ["Cifar10ToMR", "Cifar100ToMR", "CsvToMR", "ImageNetToMR", "MnistToMR", "TFRecordToMR"]

_BATCH = 256
_MAX_SOURCE_BYTES = 2 << 30


def _jpeg(image):
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("The MindRecord image converters need Pillow: pip install "
                          "'minispore[vision]' (or pip install pillow)") from None
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image)).save(out, format="JPEG", quality=95)
    return out.getvalue()


def _write(destination, schema, desc, index, rows, shard_num=1, large=True):
    writer = FileWriter(destination, shard_num)
    if large:
        writer.set_header_size(1 << 24)
        writer.set_page_size(1 << 26)
    writer.add_schema(schema, desc)
    if index:
        writer.add_index(list(index))
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) == _BATCH:
            writer.write_raw_data(batch)
            batch = []
    if batch:
        writer.write_raw_data(batch)
    writer.commit()


def _partition(partition_number):
    if partition_number is None or not isinstance(partition_number, int) or \
            isinstance(partition_number, bool):
        raise ValueError("The parameter partition_number must be int")
    return partition_number


def _check_fields(fields):
    if fields and not isinstance(fields, list):
        raise ValueError("The parameter fields should be None or list")


def _read_limited(path, opener=open):
    size = os.path.getsize(path)
    if size > _MAX_SOURCE_BYTES:
        raise ValueError(f"{path!r} has {size} bytes, more than the {_MAX_SOURCE_BYTES} "
                         f"accepted")
    with opener(path, "rb") as f:
        data = f.read(_MAX_SOURCE_BYTES + 1)
    if len(data) > _MAX_SOURCE_BYTES:
        raise ValueError(f"{path!r} expands to more than {_MAX_SOURCE_BYTES} bytes")
    return data


# ---- MNIST -------------------------------------------------------------------------------------

def _idx(path, ndim):
    data = _read_limited(path, gzip.open)
    if len(data) < 4 + 4 * ndim:
        raise ValueError(f"{path!r} is too short for an IDX file")
    magic = struct.unpack(">I", data[:4])[0]
    if magic != 0x0800 + ndim:
        raise ValueError(f"{path!r} is not an IDX file of {ndim} dimensions (magic {magic:#x})")
    dims = struct.unpack(f">{ndim}I", data[4:4 + 4 * ndim])
    body = data[4 + 4 * ndim:]
    if int(np.prod(dims)) != len(body):
        raise ValueError(f"{path!r}: the header says {dims}, but {len(body)} bytes follow")
    return np.frombuffer(body, np.uint8).reshape(dims)


class MnistToMR:
    """MNIST (the four gzipped IDX files in `source`) into `{destination}_train.mindrecord` and
    `{destination}_test.mindrecord`, rows {"label": int64, "data": JPEG bytes}.

    Args:
        source (str): the folder with train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz,
            t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz.
        destination (str): the prefix of the MindRecord files.
        partition_number (int): files per part (FileWriter's `shard_num`).
    """

    def __init__(self, source, destination, partition_number=1):
        check_filename(source)
        check_filename(destination)
        self.source, self.destination = source, destination
        self.partition_number = _partition(partition_number)
        self._files = {part: (os.path.join(source, f"{pre}-images-idx3-ubyte.gz"),
                              os.path.join(source, f"{pre}-labels-idx1-ubyte.gz"))
                       for part, pre in (("train", "train"), ("test", "t10k"))}
        for pair in self._files.values():
            for f in pair:
                check_filename(f)

    def run(self):
        """Convert; returns SUCCESS."""
        for part, (images, labels) in self._files.items():
            imgs, labs = _idx(images, 3), _idx(labels, 1)
            if len(imgs) != len(labs):
                raise ValueError(f"{images!r} has {len(imgs)} images but {labels!r} has "
                                 f"{len(labs)} labels")
            rows = ({"label": int(lab), "data": _jpeg(img)} for img, lab in zip(imgs, labs))
            _write(f"{self.destination}_{part}.mindrecord",
                   {"label": {"type": "int64"}, "data": {"type": "bytes"}}, "mnist_schema",
                   ["label"], rows, self.partition_number)
        return SUCCESS

    def transform(self):
        """Convert (as `run`)."""
        self.run()


# ---- CIFAR -------------------------------------------------------------------------------------

class _ArraysOnly(pickle.Unpickler):
    _ALLOWED = frozenset({("numpy.core.multiarray", "_reconstruct"),
                          ("numpy._core.multiarray", "_reconstruct"), ("numpy", "ndarray"),
                          ("numpy", "dtype")})

    def find_class(self, module, name):
        if (module, name) in self._ALLOWED:
            return _reconstruct if name == "_reconstruct" else getattr(np, name)
        raise pickle.UnpicklingError(f"global '{module}.{name}' is forbidden in a CIFAR batch")


def _cifar_batch(path, label_keys):
    try:
        batch = _ArraysOnly(io.BytesIO(_read_limited(path)), encoding="bytes").load()
    except Exception as e:  # noqa: BLE001 (any malformed pickle)
        raise RuntimeError(f"{path!r} is not a valid CIFAR python batch ({e})") from None
    if not isinstance(batch, dict) or b"data" not in batch:
        raise RuntimeError(f"{path!r} is not a valid CIFAR python batch (no b'data')")
    data = np.asarray(batch[b"data"])
    if data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != 3 * 32 * 32:
        raise RuntimeError(f"{path!r}: b'data' must be uint8 of shape (n, 3072), but got "
                           f"{data.dtype} {data.shape}")
    labels = []
    for key in label_keys:
        lab = np.asarray(batch.get(key, []), dtype=np.int64).reshape(-1)
        if len(lab) != len(data):
            raise RuntimeError(f"{path!r}: {len(lab)} {key!r} for {len(data)} images")
        labels.append(lab)
    return data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), labels


def _cifar_rows(images, labels, names):
    for i, img in enumerate(images):
        row = {"id": i, "data": _jpeg(img)}
        row.update({n: int(lab[i]) for n, lab in zip(names, labels)})
        yield row


class Cifar10ToMR:
    """CIFAR-10, python version (`source` holds data_batch_1..5 and test_batch), into
    `destination` (train) and `destination + "_test"`: rows {"id", "label": int64, "data":
    JPEG bytes}.

    Raises:
        ValueError: a bad `source` or `destination`, or a folder without the batches.
    """

    _names = ("label",)

    def __init__(self, source, destination):
        check_filename(source)
        check_filename(destination)
        files = os.listdir(source)
        if not any(f.startswith("data_batch_") for f in files) or "test_batch" not in files:
            raise ParamValueError(f"{source!r} must hold data_batch_* and test_batch files")
        self.source, self.destination = source, destination

    def _parts(self):
        train = sorted(f for f in os.listdir(self.source) if f.startswith("data_batch_"))
        return [(train, self.destination, "img_train"),
                (["test_batch"], self.destination + "_test", "img_test")]

    def run(self, fields=None):
        """Convert; `fields`: index fields (default: FileWriter's). Returns SUCCESS."""
        _check_fields(fields)
        schema = {"id": {"type": "int64"}, "data": {"type": "bytes"}}
        schema.update({n: {"type": "int64"} for n in self._names})
        keys = [n.encode() + b"s" for n in self._names]
        for files, dest, desc in self._parts():
            images, labels = [], [[] for _ in keys]
            for f in files:
                img, lab = _cifar_batch(os.path.join(self.source, f), keys)
                images.append(img)
                for acc, new in zip(labels, lab):
                    acc.append(new)
            images = np.concatenate(images)
            labels = [np.concatenate(acc) for acc in labels]
            _write(dest, schema, desc, fields, _cifar_rows(images, labels, self._names),
                   large=False)
        return SUCCESS

    def transform(self, fields=None):
        """Convert (as `run`)."""
        self.run(fields)


class Cifar100ToMR(Cifar10ToMR):
    """CIFAR-100, python version (`source` holds `train` and `test`), into `destination` and
    `destination + "_test"`: rows {"id", "fine_label", "coarse_label": int64, "data": JPEG
    bytes}."""

    _names = ("fine_label", "coarse_label")

    def __init__(self, source, destination):  # CIFAR-100 has other files than CIFAR-10
        check_filename(source)
        check_filename(destination)
        files = os.listdir(source)
        if "train" not in files or "test" not in files:
            raise ParamValueError(f"{source!r} must hold the 'train' and 'test' files")
        self.source, self.destination = source, destination

    def _parts(self):
        return [(["train"], self.destination, "img_train"),
                (["test"], self.destination + "_test", "img_test")]


# ---- ImageNet-style folders --------------------------------------------------------------------

class ImageNetToMR:
    """Class folders of JPEG images into MindRecord: rows {"label": int32, "image": bytes,
    "file_name": string}.

    Args:
        map_file (str): lines "<folder name> <label>" (e.g. "n02119789 0").
        image_dir (str): the folder holding the class folders.
        destination (str): the MindRecord file. partition_number (int): files to write.
    """

    def __init__(self, map_file, image_dir, destination, partition_number=1):
        check_filename(map_file)
        check_filename(image_dir)
        check_filename(destination)
        self.map_file, self.image_dir, self.destination = map_file, image_dir, destination
        self.partition_number = _partition(partition_number)

    def _rows(self):
        if not os.path.exists(self.map_file):
            raise OSError(f"map file {self.map_file} not exists")
        folders = {}
        with open(self.map_file, encoding="utf-8") as f:
            for k, line in enumerate(f):
                parts = line.split()
                if not parts:
                    continue
                if len(parts) != 2:
                    raise ValueError(f"line {k + 1} of {self.map_file!r} must be '<folder> "
                                     f"<label>', but got {line.strip()!r}")
                folders[int(parts[1])] = parts[0]
        found = {lab: os.path.join(self.image_dir, d) for lab, d in folders.items()
                 if os.path.isdir(os.path.join(self.image_dir, d))}
        if not found:
            raise ParamValueError(f"not valid image dir in {self.image_dir}")
        for label, folder in found.items():
            for item in sorted(os.listdir(folder)):
                path = os.path.join(folder, item)
                if not item.endswith(("JPEG", "jpg")) or not os.path.isfile(path):
                    continue
                data = _read_limited(path)
                if data:
                    yield {"file_name": path, "label": label, "image": data}

    def run(self):
        """Convert; returns SUCCESS."""
        _write(self.destination, {"label": {"type": "int32"}, "image": {"type": "bytes"},
                                  "file_name": {"type": "string"}}, "imagenet_schema",
               ["label", "file_name"], self._rows(), self.partition_number)
        return SUCCESS

    def transform(self):
        """Convert (as `run`)."""
        self.run()


# ---- CSV ---------------------------------------------------------------------------------------

def _column_type(values):
    """MindRecord type of a CSV column, inferred as pandas.read_csv infers it."""
    if values and all(v in ("True", "False") for v in values):
        return "int32"
    try:
        for v in values:
            int(v)
        return "int64"
    except ValueError:
        pass
    try:
        for v in values:
            float(v) if v != "" else None
        return "float64"
    except ValueError:
        return "string"


def _convert(kind, value):
    if kind == "int32":
        return int(value == "True")
    if kind == "int64":
        return int(value)
    if kind == "float64":
        return float(value) if value != "" else float("nan")
    return value


class CsvToMR:
    """A CSV file (first line: column names) into MindRecord; column types are inferred as
    pandas does (integers: int64, numbers: float64, True/False: int32, else string), and every
    column is indexed.

    Args:
        source (str): the CSV file. destination (str): the MindRecord file.
        columns_list (list[str], optional): the columns to keep (default all).
        partition_number (int): files to write.
    """

    def __init__(self, source, destination, columns_list=None, partition_number=1):
        if not isinstance(source, str):
            raise ValueError("The parameter source must be str.")  # noqa: TRY004 (as MindSpore)
        check_filename(source)
        if columns_list and (not isinstance(columns_list, list) or
                             not all(isinstance(c, str) for c in columns_list)):
            raise ValueError("The parameter columns_list must be list of str.")
        if not isinstance(destination, str):
            raise ValueError("The parameter destination must be str.")  # noqa: TRY004
        check_filename(destination)
        self.source, self.destination = source, destination
        self.columns_list = columns_list
        self.partition_number = _partition(partition_number)

    def run(self):
        """Convert; returns SUCCESS."""
        if not os.path.exists(self.source):
            raise OSError(f"Csv file {self.source} do not exist.")
        text = _read_limited(self.source).decode("utf-8")
        reader = csv.reader(io.StringIO(text))
        header = next(reader, None)
        if not header:
            raise RuntimeError("Failed to generate schema from csv file.")
        body = [r for r in reader if r]
        for k, r in enumerate(body):
            if len(r) != len(header):
                raise ValueError(f"line {k + 2} of {self.source!r} has {len(r)} values for "
                                 f"{len(header)} columns")
        columns = self.columns_list or header
        for col in columns:
            if col not in header:
                raise RuntimeError(f"The parameter columns_list is illegal, column {col} does "
                                   f"not exist.")
            if col.isdigit():
                raise ValueError(f"The first line content: {col} of the CSV file is used as a "
                                 f"column name and does not allow starting with a number.")
        pos = {c: header.index(c) for c in columns}
        kinds = {c: _column_type([r[pos[c]] for r in body]) for c in columns}
        rows = ({c: _convert(kinds[c], r[pos[c]]) for c in columns} for r in body)
        _write(self.destination, {c: {"type": kinds[c]} for c in columns}, "csv_schema",
               columns, rows, self.partition_number)
        return SUCCESS

    def transform(self):
        """Convert (as `run`)."""
        self.run()


# ---- TFRecord ----------------------------------------------------------------------------------

_PUNCTUATION = set("!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~ ")
_TF_TYPES = {"string": "string", "int8": "int32", "int16": "int32", "int32": "int32",
             "int64": "int64", "uint8": "int32", "uint16": "int32", "uint32": "int64",
             "uint64": "int64", "float16": "float32", "float32": "float32", "float64": "float64",
             "double": "float64", "bool": "int32"}
_CRC32C_TABLE = []


def _crc32c(data):
    if not _CRC32C_TABLE:
        for n in range(256):
            c = n
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            _CRC32C_TABLE.append(c)
    crc = 0xFFFFFFFF
    for b in data:
        crc = _CRC32C_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _masked_crc(data):
    crc = _crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _cast_name(key):
    return "".join("_" if c in _PUNCTUATION else c for c in key)


def _varint(buf, pos, end):
    value, shift = 0, 0
    while True:
        if pos >= end or shift > 63:
            raise ValueError("a truncated or overlong protobuf varint")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7


def _fields(buf, pos, end):
    """(field number, wire type, value or (start, stop) of a length-delimited field)."""
    while pos < end:
        key, pos = _varint(buf, pos, end)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos, end)
        elif wire == 1:
            if pos + 8 > end:
                raise ValueError("a truncated protobuf fixed64 field")
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            n, pos = _varint(buf, pos, end)
            if n > end - pos:
                raise ValueError(f"a protobuf field of {n} bytes runs past its message")
            value, pos = (pos, pos + n), pos + n
        elif wire == 5:
            if pos + 4 > end:
                raise ValueError("a truncated protobuf fixed32 field")
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield num, wire, value


def _feature_values(buf, start, stop):
    """('bytes' | 'float' | 'int64', values) of one tf.train.Feature."""
    for num, wire, value in _fields(buf, start, stop):
        if wire != 2 or num not in (1, 2, 3):
            continue
        out = []
        for inner, iwire, ivalue in _fields(buf, *value):
            if inner != 1:
                continue
            if num == 1 and iwire == 2:
                out.append(bytes(buf[ivalue[0]:ivalue[1]]))
            elif num == 2 and iwire == 2:
                raw = bytes(buf[ivalue[0]:ivalue[1]])
                if len(raw) % 4:
                    raise ValueError("a packed float list whose size is not a multiple of 4")
                out.extend(np.frombuffer(raw, "<f4").tolist())
            elif num == 2 and iwire == 5:
                out.append(struct.unpack("<f", ivalue)[0])
            elif num == 3 and iwire == 2:
                p, e = ivalue
                while p < e:
                    v, p = _varint(buf, p, e)
                    out.append(v - (1 << 64) if v >= 1 << 63 else v)
            elif num == 3 and iwire == 0:
                out.append(ivalue - (1 << 64) if ivalue >= 1 << 63 else ivalue)
        return ("bytes", "float", "int64")[num - 1], out
    return None, []


def _example(record):
    """{name: (kind, values)} of one serialized tf.train.Example."""
    buf = memoryview(record)
    out = {}
    for num, wire, value in _fields(buf, 0, len(buf)):
        if num != 1 or wire != 2:
            continue
        for fnum, fwire, entry in _fields(buf, *value):
            if fnum != 1 or fwire != 2:
                continue
            key, feature = None, None
            for enum_, ewire, evalue in _fields(buf, *entry):
                if enum_ == 1 and ewire == 2:
                    key = bytes(buf[evalue[0]:evalue[1]]).decode("utf-8")
                elif enum_ == 2 and ewire == 2:
                    feature = evalue
            if key is not None:
                out[key] = _feature_values(buf, *feature) if feature else (None, [])
    return out


def _tfrecords(path):
    """The records of a TFRecord file (lengths and their CRCs checked before reading)."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        pos = 0
        while pos < size:
            head = f.read(12)
            if len(head) != 12:
                raise ValueError(f"{path!r} is truncated at offset {pos}")
            n, crc = struct.unpack("<QI", head)
            if crc != _masked_crc(head[:8]):
                raise ValueError(f"{path!r}: corrupt record length at offset {pos}")
            if n + 16 > size - pos:
                raise ValueError(f"{path!r}: a record of {n} bytes at offset {pos} runs past "
                                 f"the end of the file")
            data = f.read(n)
            f.read(4)  # the data's CRC; the protobuf parse checks every length itself
            pos += 16 + n
            yield data


def _tf_type(dtype):
    name = getattr(dtype, "name", dtype)
    if name not in _TF_TYPES:
        raise ValueError(f"Type {dtype!r} is not supported in MindRecord.")
    return _TF_TYPES[name]


class TFRecordToMR:
    """A TFRecord file of tf.train.Example records into MindRecord (TensorFlow is not needed:
    the records are parsed here).

    Args:
        source (str): the TFRecord file. destination (str): the MindRecord file.
        feature_dict (dict): {name: tf.io.FixedLenFeature(shape, dtype, default_value)} (or
            any object with `shape`, `dtype` and optional `default_value`; dtype may be a
            TensorFlow dtype or its name). Shape [] is a scalar, [n] a list of n numbers.
            Names have punctuation replaced by '_' in the schema, as MindSpore does.
        bytes_fields (list[str], optional): scalar string features to store as `bytes`
            (images); other string features are stored as UTF-8 `string`.

    Raises:
        ValueError: bad arguments, or a record whose features do not match `feature_dict`.
    """

    def __init__(self, source, destination, feature_dict, bytes_fields=None):
        if not isinstance(source, str):
            raise ValueError("Parameter source must be string.")  # noqa: TRY004 (as MindSpore)
        check_filename(source, "source")
        if not isinstance(destination, str):
            raise ValueError("Parameter destination must be string.")  # noqa: TRY004
        check_filename(destination, "destination")
        if not isinstance(feature_dict, dict) or not feature_dict:
            raise ValueError("Parameter feature_dict is None or not dict.")
        for key, spec in feature_dict.items():
            if not hasattr(spec, "shape") or not hasattr(spec, "dtype"):
                raise ValueError(f"Parameter feature_dict: {key!r} only support FixedLenFeature.")
        bytes_fields = [] if bytes_fields is None else bytes_fields
        if not isinstance(bytes_fields, list):
            raise ValueError(  # noqa: TRY004 (as MindSpore)
                f"Parameter bytes_fields: {bytes_fields} must be list(str).")
        for item in bytes_fields:
            if not isinstance(item, str) or item not in feature_dict:
                raise ValueError(f"Parameter bytes_fields's item: {item} is not in "
                                 f"feature_dict.")
            if _tf_type(feature_dict[item].dtype) != "string":
                raise ValueError(f"Parameter bytes_field: {item} should be tf.string in "
                                 f"feature_dict.")
        self.source, self.destination = source, destination
        self.feature_dict, self.bytes_fields = feature_dict, list(bytes_fields)
        self.schema = {}
        for key, spec in feature_dict.items():
            shape = list(spec.shape) if spec.shape is not None else []
            kind = _tf_type(spec.dtype)
            if not shape:
                self.schema[_cast_name(key)] = {"type": "bytes" if key in self.bytes_fields
                                                else kind}
                continue
            if len(shape) != 1 or not isinstance(shape[0], int) or shape[0] < 1:
                raise ValueError(f"Parameter feature_dict[{key}].shape should be [n] with "
                                 f"n > 0, but got {shape}")
            if kind == "string":
                raise ValueError(f"Parameter feature_dict[{key}].dtype is tf.string which "
                                 f"shape[0] is not None. It is not supported.")
            self.schema[_cast_name(key)] = {"type": kind, "shape": [shape[0]]}

    def _row(self, record, k):
        try:
            features = _example(record)
        except (ValueError, UnicodeDecodeError) as e:
            raise ValueError(f"record {k} of {self.source!r} is not a valid tf.train.Example "
                             f"({e})") from None
        row = {}
        for key, spec in self.feature_dict.items():
            name = _cast_name(key)
            kind, values = features.get(key, (None, []))
            if kind is None:
                default = getattr(spec, "default_value", None)
                if default is None:
                    raise ValueError(f"TFRecord feature_dict parameter error: record {k} has no "
                                     f"feature {key!r}")
                values = list(np.asarray(default).reshape(-1))
            want = self.schema[name]
            count = want["shape"][0] if "shape" in want else 1
            if len(values) != count:
                raise ValueError(f"TFRecord feature_dict parameter error: feature {key!r} of "
                                 f"record {k} has {len(values)} values, expected {count}")
            if "shape" in want:
                row[name] = np.asarray(values, dtype=want["type"])
            elif want["type"] == "bytes":
                row[name] = bytes(values[0])
            elif want["type"] == "string":
                row[name] = values[0].decode("utf-8") if isinstance(values[0], bytes) \
                    else str(values[0])
            elif want["type"].startswith("int"):
                row[name] = int(values[0])
            else:
                row[name] = float(np.float32(values[0])) if want["type"] == "float32" \
                    else float(values[0])
        return row

    def tfrecord_iterator(self):
        """The rows, one dict per record."""
        for k, record in enumerate(_tfrecords(self.source)):
            yield self._row(record, k)

    def run(self):
        """Convert; returns SUCCESS."""
        _write(self.destination, self.schema, "TFRecord to MindRecord", None,
               self.tfrecord_iterator(), large=False)
        return SUCCESS

    def transform(self):
        """Convert (as `run`)."""
        self.run()
