"""Image datasets read from their real file formats: MNIST / Fashion-MNIST (IDX), CIFAR-10 /
CIFAR-100 (binary version) and class folders of image files.

Files are data, never code: nothing is unpickled, every header is checked against the file's
size before anything is allocated, and a corrupt, truncated, empty or mismatched file raises a
ValueError naming the file (and the sample, where one is at fault). Data is read on first use
and shared by the datasets derived from one source.

Special files and links (docs/reliability.md §7). Only regular files are read: a FIFO, socket,
device or directory where a data file or an image is expected is refused, never opened or waited
on (`_files.open_regular`: O_NONBLOCK, then fstat of the opened descriptor). Sizes are checked
before reading: a data file must match its header or record size and hold at most
`_files.MAX_DATA_FILE_BYTES` (2 GiB), an image file at most `_files.MAX_IMAGE_BYTES` (256 MiB).
The dataset folder may itself be a symbolic link; it is resolved once, and below it:
- a symbolic link to a file is read only if its fully resolved target lies inside the folder; a
  link that leaves it (through `..`, an absolute path, /dev/zero...), dangles or loops is
  refused with a ValueError naming it, when the dataset is built;
- symbolic links to folders are never followed (skipped, like `os.walk` and `find` do), so a
  walk cannot loop or leave the folder; no folder is walked twice (bind mounts), and a real
  folder named like an image is walked as a folder.
"""
import io
import json
import os
import re
import stat
import struct
import threading
import xml.etree.ElementTree as ET

import numpy as np

from .._validator import check_bool, check_int, check_one_of, check_sequence, check_type
from ..common import _files
from ._base import MappableDataset, check_workers
from .samplers import select_sampler

__all__ = [
    "Caltech101Dataset",
    "Caltech256Dataset",
    "CelebADataset",
    "Cifar10Dataset",
    "Cifar100Dataset",
    "CityscapesDataset",
    "CocoDataset",
    "DIV2KDataset",
    "EMnistDataset",
    "FakeImageDataset",
    "FashionMnistDataset",
    "FlickrDataset",
    "Flowers102Dataset",
    "Food101Dataset",
    "ImageFolderDataset",
    "KITTIDataset",
    "KMnistDataset",
    "LFWDataset",
    "LSUNDataset",
    "ManifestDataset",
    "MnistDataset",
    "OmniglotDataset",
    "Places365Dataset",
    "QMnistDataset",
    "RenderedSST2Dataset",
    "SBDataset",
    "SBUDataset",
    "STL10Dataset",
    "SUN397Dataset",
    "SVHNDataset",
    "SemeionDataset",
    "USPSDataset",
    "VOCDataset",
    "WIDERFaceDataset",
]


def _check_dir(owner, dataset_dir):
    """(the folder as given, the folder fully resolved: where everything is read from)."""
    path = os.fspath(check_type(dataset_dir, (str, os.PathLike), "dataset_dir", owner,
                                "a str or path"))
    if not os.path.isdir(path):
        raise ValueError(f"For '{owner}', 'dataset_dir' {path!r} does not exist or is not a "
                         f"directory")
    return path, os.path.realpath(path)


def _check_usage(owner, usage, allowed=("train", "test", "all")):
    return check_one_of("all" if usage is None else usage, allowed, "usage", owner)


def _open_data(owner, path, target):
    """(binary file, size) of the data file `path`, opened as `target` (see _data_file)."""
    try:
        return _files.open_regular(target, owner, follow_symlinks=False,
                                   max_size=_files.MAX_DATA_FILE_BYTES,
                                   label=_files.describe(path, target), what="a data file")
    except OSError as e:
        raise ValueError(f"For '{owner}', cannot read the data file {path!r}: {e}") from None


def _data_file(owner, root, path):
    """(path to open, size) of the data file `path` in the resolved folder `root`: a regular
    file, or a symbolic link to one inside `root`, of at most MAX_DATA_FILE_BYTES."""
    if not os.path.lexists(path):
        raise ValueError(f"For '{owner}', the data file {path!r} does not exist")
    target = _files.resolve_inside(root, path, owner)
    f, size = _open_data(owner, path, target)
    f.close()
    return target, size


def _read_exact(owner, path, target, size):
    """The bytes of the data file `path` (opened as `target`), which must be exactly `size` (it
    may have changed since it was checked)."""
    f, now = _open_data(owner, path, target)
    with f:
        data = f.read(size + 1) if now == size else b""
    if len(data) != size:
        raise ValueError(f"For '{owner}', {path!r} changed while being read: expected {size} "
                         f"bytes, it has {now}")
    return data


class _Lazy:
    """Loads once, on first use, under a lock; shared by copies of a source (split, samplers)."""

    def __init__(self, load):
        self._load, self._value, self._lock = load, None, threading.Lock()

    def get(self):
        if self._value is None:
            with self._lock:
                if self._value is None:
                    self._value = self._load()
        return self._value


# ---- MNIST / Fashion-MNIST (IDX) --------------------------------------------------------------

_IDX_IMAGES, _IDX_LABELS = 0x00000803, 0x00000801  # ubyte data, 3 and 1 dimensions


def _idx_header(owner, root, path, magic, ndim, itemsize=1):
    """(dims, header length, path to open) of an IDX file, checked: magic, positive image dims,
    exact size."""
    if not os.path.lexists(path):
        raise ValueError(f"For '{owner}', the data file {path!r} does not exist")
    target = _files.resolve_inside(root, path, owner)
    f, size = _open_data(owner, path, target)
    head_len = 4 + 4 * ndim
    with f:
        head = f.read(head_len)
    if size < head_len or len(head) < head_len:
        raise ValueError(f"For '{owner}', {path!r} is too short for an IDX header: {size} bytes, "
                         f"need at least {head_len}")
    (got,) = struct.unpack(">I", head[:4])
    if got != magic:
        raise ValueError(f"For '{owner}', {path!r} is not an IDX {ndim}-d file of that type: "
                         f"magic number {got:#010x}, expected {magic:#010x}")
    dims = struct.unpack(f">{ndim}I", head[4:])
    if ndim == 3 and (dims[1] == 0 or dims[2] == 0):
        raise ValueError(f"For '{owner}', {path!r} declares images of {dims[1]}x{dims[2]} pixels")
    need = head_len + int(np.prod(dims, dtype=object)) * itemsize  # Python ints: no overflow
    if need != size:
        what = "truncated" if size < need else "longer than its header says"
        raise ValueError(f"For '{owner}', {path!r} is {what}: its header declares dims {dims} "
                         f"({need} bytes) but the file has {size} bytes")
    return dims, head_len, target


class MnistDataset(MappableDataset):
    """MNIST from its IDX files in `dataset_dir`: `train-images-idx3-ubyte`,
    `train-labels-idx1-ubyte`, `t10k-images-idx3-ubyte`, `t10k-labels-idx1-ubyte`.

    Columns: `image` uint8 (28, 28, 1) HWC and `label` uint32 scalar (hence the tutorial's
    `TypeCast(int32)`); shuffled unless `shuffle=False`.

    Args:
        dataset_dir (str): the folder of the files.
        usage (str, optional): 'train', 'test' or 'all' (None: 'all'; with 'all' the test files,
            if present, come first, as in MindSpore).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as usual.

    Raises:
        ValueError: a missing folder or file, a file that is not a regular file (a FIFO, device,
            socket, directory) or is a symbolic link leaving `dataset_dir`, dangling or looping,
            a bad magic number, a size that does not match the header or is over 2 GiB, or image
            and label files with different counts (naming the files).
    """

    _owner = "MnistDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.usage = _check_usage(owner, usage)
        prefixes = {"train": ["train"], "test": ["t10k"], "all": ["t10k", "train"]}[self.usage]
        parts = []
        for prefix in prefixes:
            img = os.path.join(root, f"{prefix}-images-idx3-ubyte")
            lab = os.path.join(root, f"{prefix}-labels-idx1-ubyte")
            if self.usage == "all" and not os.path.lexists(img) and not os.path.lexists(lab):
                continue
            (count, rows, cols), img_off, img_at = _idx_header(owner, root, img, _IDX_IMAGES, 3)
            (lcount,), lab_off, lab_at = _idx_header(owner, root, lab, _IDX_LABELS, 1)
            if count != lcount:
                raise ValueError(f"For '{owner}', {img!r} holds {count} images but {lab!r} holds "
                                 f"{lcount} labels")
            parts.append(((img, img_at), img_off, count, rows, cols, (lab, lab_at), lab_off))
        if not parts:
            raise ValueError(f"For '{owner}', no MNIST files (train-images-idx3-ubyte, "
                             f"t10k-images-idx3-ubyte, ...) found in {root!r}")
        self._parts = parts
        self._offsets = np.cumsum([0] + [p[2] for p in parts])
        self._store = _Lazy(self._load)
        super().__init__(check_workers(owner, num_parallel_workers),
                         select_sampler(owner, num_samples, shuffle, sampler, num_shards,
                                        shard_id))

    def _load(self):
        out = []
        for img, img_off, count, rows, cols, lab, lab_off in self._parts:
            images = np.frombuffer(
                _read_exact(self._owner, *img, img_off + count * rows * cols), np.uint8,
                offset=img_off).reshape(count, rows, cols, 1)
            labels = np.frombuffer(_read_exact(self._owner, *lab, lab_off + count), np.uint8,
                                   offset=lab_off)
            out.append((images, labels))
        return out

    def _columns(self):
        return ["image", "label"]

    def _num_rows(self):
        return int(self._offsets[-1])

    def _get_row(self, index):
        k = int(np.searchsorted(self._offsets, index, side="right")) - 1
        images, labels = self._store.get()[k]
        i = index - int(self._offsets[k])
        return images[i].copy(), np.array(labels[i], dtype=np.uint32)


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST: the same IDX files and columns as `MnistDataset`."""

    _owner = "FashionMnistDataset"


# ---- CIFAR (binary version) -------------------------------------------------------------------

def _natural_key(name):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


class _CifarBase(MappableDataset):
    _owner = "Cifar10Dataset"
    _label_bytes = 1
    _num_classes = (10,)
    _label_names = ("label",)

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.usage = _check_usage(owner, usage)
        names = sorted(os.listdir(root), key=_natural_key)
        train = [n for n in names if self._train_re.match(n)]
        test = [n for n in names if self._test_re.match(n)]
        files = {"train": train, "test": test, "all": train + test}[self.usage]
        if not files:
            raise ValueError(f"For '{owner}', no {self._what} files for usage '{self.usage}' in "
                             f"{root!r}")
        rec = self._label_bytes + 3072
        self._files, counts = [], []
        for name in files:
            path = os.path.join(root, name)
            target, size = _data_file(owner, root, path)
            if size == 0 or size % rec:
                raise ValueError(f"For '{owner}', {path!r} has {size} bytes, which is not a "
                                 f"positive multiple of the {rec}-byte record: the file is empty, "
                                 f"truncated or not the binary version of the dataset")
            self._files.append((path, target, size))
            counts.append(size // rec)
        self._offsets = np.cumsum([0] + counts)
        self._store = _Lazy(self._load)
        super().__init__(check_workers(owner, num_parallel_workers),
                         select_sampler(owner, num_samples, shuffle, sampler, num_shards,
                                        shard_id))

    def _load(self):
        out, lb = [], self._label_bytes
        for path, target, size in self._files:
            recs = np.frombuffer(_read_exact(self._owner, path, target, size), np.uint8).reshape(
                -1, lb + 3072)
            labels = recs[:, :lb]
            for j, limit in enumerate(self._num_classes):
                bad = np.flatnonzero(labels[:, j] >= limit)
                if len(bad):
                    raise ValueError(f"For '{self._owner}', {path!r}: sample {int(bad[0])} has "
                                     f"{self._label_names[j]} {int(labels[bad[0], j])}, outside "
                                     f"[0, {limit})")
            images = recs[:, lb:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)  # CHW -> HWC
            out.append((images, labels))
        return out

    def _columns(self):
        return ["image", *self._label_names]

    def _num_rows(self):
        return int(self._offsets[-1])

    def _get_row(self, index):
        k = int(np.searchsorted(self._offsets, index, side="right")) - 1
        images, labels = self._store.get()[k]
        i = index - int(self._offsets[k])
        return (np.ascontiguousarray(images[i]),) + tuple(
            np.array(v, dtype=np.uint32) for v in labels[i])


class Cifar10Dataset(_CifarBase):
    """CIFAR-10, binary version: `data_batch_1.bin` ... `data_batch_5.bin` and `test_batch.bin`
    in `dataset_dir`.

    Columns: `image` uint8 (32, 32, 3) HWC and `label` uint32 scalar; shuffled by default.
    `usage` 'train', 'test' or 'all' (None: 'all', train files first). Unlike MindSpore 2.10,
    which needs exactly 10000 records per file, any whole number of records is accepted.

    Raises:
        ValueError: a missing folder, no matching files, a file that is not a regular file or is
            a symbolic link leaving `dataset_dir` (as MnistDataset), a size that is not a whole
            number of 3073-byte records or is over 2 GiB, or a label outside [0, 10) (naming
            the file and the sample).
    """

    _train_re = re.compile(r"^data_batch_\d+\.bin$")
    _test_re = re.compile(r"^test_batch\.bin$")
    _what = "CIFAR-10 (data_batch_*.bin / test_batch.bin)"


class Cifar100Dataset(_CifarBase):
    """CIFAR-100, binary version: `train.bin` and `test.bin` in `dataset_dir`.

    Columns: `image` uint8 (32, 32, 3), `coarse_label` and `fine_label` uint32 scalars.
    """

    _owner = "Cifar100Dataset"
    _label_bytes = 2
    _num_classes = (20, 100)
    _label_names = ("coarse_label", "fine_label")
    _train_re = re.compile(r"^train\.bin$")
    _test_re = re.compile(r"^test\.bin$")
    _what = "CIFAR-100 (train.bin / test.bin)"


# ---- class folders ----------------------------------------------------------------------------

def _list(owner, folder):
    """The entries of `folder`, sorted by name."""
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError as e:
        raise ValueError(f"For '{owner}', cannot list the folder {folder!r}: {e}") from None


def _image_files(owner, root, top, extensions, seen):
    """(path, path to open) of the files under `top`, a real folder inside the resolved folder
    `root`, in os.walk's order with sorted names: a folder's files, then its subfolders, depth
    first. Symbolic links to folders are not followed and no folder is walked twice (`seen`
    holds (device, inode) pairs), so the walk ends and stays inside `root`; a symbolic link to
    a file is resolved inside `root` (or refused); a FIFO, socket or device is refused."""
    out, stack = [], [top]
    while stack:
        folder = stack.pop()
        try:
            info = os.stat(folder, follow_symlinks=False)
        except OSError as e:
            raise ValueError(f"For '{owner}', cannot list the folder {folder!r}: {e}") from None
        if (info.st_dev, info.st_ino) in seen:
            continue
        seen.add((info.st_dev, info.st_ino))
        subfolders = []
        for entry in _list(owner, folder):
            try:
                if entry.is_dir(follow_symlinks=False):
                    subfolders.append(entry.path)
                    continue
                if extensions is not None and not entry.name.lower().endswith(extensions):
                    continue
                if entry.is_symlink():
                    if os.path.isdir(entry.path):  # (False for a loop: refused below)
                        continue  # a symbolic link to a folder: never followed
                    target = _files.resolve_inside(root, entry.path, owner)
                    mode = os.stat(target, follow_symlinks=False).st_mode
                else:
                    target = entry.path
                    mode = stat.S_IFREG if entry.is_file(follow_symlinks=False) else \
                        entry.stat(follow_symlinks=False).st_mode
            except OSError as e:
                raise ValueError(f"For '{owner}', cannot read {entry.path!r}: {e}") from None
            if not stat.S_ISREG(mode):
                raise ValueError(f"For '{owner}', {_files.describe(entry.path, target)} is not a "
                                 f"regular file: it is {_files.kind_of(mode)}")
            out.append((entry.path, target))
        stack.extend(reversed(subfolders))
    return out


def _decode_image(owner, data, where):
    """HWC uint8 RGB array of an encoded image (Pillow)."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f"For '{owner}', decoding images needs Pillow: pip install "
                          f"'minispore[vision]' (or pillow)") from None
    try:
        with Image.open(io.BytesIO(bytes(data))) as img:
            return np.asarray(img.convert("RGB")).copy()
    except Exception as e:  # noqa: BLE001  (Pillow raises many types for bad data)
        raise ValueError(f"For '{owner}', {where} is not a decodable image: "
                         f"{type(e).__name__}: {e}") from None


class ImageFolderDataset(MappableDataset):
    """Images in class folders: `dataset_dir/<class>/<file>`.

    Labels are int32 class indices: the class folders sorted by name get 0, 1, ... unless
    `class_indexing` maps folder names to labels (then only those folders are read). Files are
    read in sorted order, recursively inside each class folder. Symbolic links to folders (class
    folders included) are not followed; a symbolic link to a file is read only if it resolves
    inside `dataset_dir`; only regular files of at most 256 MiB are read (module docstring).

    Args:
        dataset_dir (str): the root folder.
        num_samples, num_parallel_workers, shuffle (default True), sampler, num_shards,
            shard_id: as usual.
        extensions (list[str], optional): file endings to read, e.g. ['.jpg', '.png'] (case
            insensitive); default every file.
        class_indexing (dict[str, int], optional): folder name -> label (MindSpore 2.10 then
            still counts the other folders in get_dataset_size; here the size is what is read).
        decode (bool): decode to HWC uint8 RGB (needs Pillow, the `vision` extra); default False:
            `image` is the file's raw bytes as a 1-D uint8 array.

    Raises:
        ValueError: a missing folder, no files, a `class_indexing` folder that does not exist,
            a FIFO, socket or device, a symbolic link that leaves `dataset_dir`, dangles or
            loops (when the dataset is built); an image file over 256 MiB, an undecodable
            image (when it is read; naming the file and the sample).
        ImportError: `decode=True` without Pillow.
    """

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, extensions=None, class_indexing=None, decode=False,
                 num_shards=None, shard_id=None, cache=None, decrypt=None):
        owner = "ImageFolderDataset"
        given, root = _check_dir(owner, dataset_dir)
        if check_bool(decode, "decode", owner):
            try:
                import PIL  # noqa: F401
            except ImportError:
                raise ImportError(f"For '{owner}', decode=True needs Pillow: pip install "
                                  f"'minispore[vision]' (or pillow)") from None
        if extensions is not None:
            extensions = check_sequence(extensions, "extensions", owner, expected="a list of str")
            extensions = tuple(check_type(e, str, f"extensions[{k}]", owner).lower()
                               for k, e in enumerate(extensions))
        entries = _list(owner, root)
        folders = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
        if class_indexing is None:
            class_indexing = {d: i for i, d in enumerate(folders)}
        else:
            check_type(class_indexing, dict, "class_indexing", owner, "a dict of str to int")
            for k, v in class_indexing.items():
                check_type(k, str, "class_indexing key", owner)
                check_int(v, f"class_indexing[{k!r}]", owner)
            missing = [k for k in class_indexing if k not in folders]
            if missing:
                links = {e.name for e in entries if e.is_symlink()}
                note = "" if links.isdisjoint(missing) else (
                    f" ({sorted(links.intersection(missing))} are symbolic links, and symbolic "
                    f"links to folders are not followed)")
                raise ValueError(f"For '{owner}', 'class_indexing' names folders {missing} that "
                                 f"are not in {root!r}{note}")
            folders = [d for d in folders if d in class_indexing]
        files, labels, targets, seen = [], [], {}, set()
        for d in folders:
            for path, target in _image_files(owner, root, os.path.join(root, d), extensions,
                                             seen):
                if target != path:
                    targets[len(files)] = target
                files.append(path)
                labels.append(class_indexing[d])
        if not files:
            raise ValueError(f"For '{owner}', no image files found in the class folders of "
                             f"{root!r}")
        self.dataset_dir, self.decode = given, bool(decode)
        self._class_indexing = dict(class_indexing)
        self._files, self._labels, self._targets = files, labels, targets
        super().__init__(check_workers(owner, num_parallel_workers),
                         select_sampler(owner, num_samples, shuffle, sampler, num_shards,
                                        shard_id))

    def get_class_indexing(self):
        """{class folder name: label}."""
        return dict(self._class_indexing)

    def _columns(self):
        return ["image", "label"]

    def _num_rows(self):
        return len(self._files)

    def _source_workers(self):
        # Decoding releases the GIL inside Pillow, so threads pay off; raw reads stay serial.
        return self._workers() if self.decode else 1

    def _get_row(self, index):
        path = self._files[index]
        target = self._targets.get(index, path)
        where = f"{_files.describe(path, target)} (sample {index})"
        try:
            f, size = _files.open_regular(target, "ImageFolderDataset", follow_symlinks=False,
                                          max_size=_files.MAX_IMAGE_BYTES, label=where,
                                          what="an image file")
            with f:
                data = f.read(size + 1)
        except OSError as e:
            raise ValueError(f"For 'ImageFolderDataset', cannot read {where}: {e}") from None
        if len(data) != size:
            raise ValueError(f"For 'ImageFolderDataset', {where} changed while being read: "
                             f"expected {size} bytes, got {len(data)}")
        if self.decode:
            image = _decode_image("ImageFolderDataset", data, where)
        else:
            image = np.frombuffer(data, np.uint8).copy()
        return image, np.array(self._labels[index], dtype=np.int32)


# ---- shared by the datasets below -------------------------------------------------------------

def _image_bytes(owner, path, target, where):
    """The bytes of the image file `path` (opened as `target`), at most MAX_IMAGE_BYTES."""
    try:
        f, size = _files.open_regular(target, owner, follow_symlinks=False,
                                      max_size=_files.MAX_IMAGE_BYTES, label=where,
                                      what="an image file")
        with f:
            data = f.read(size + 1)
    except OSError as e:
        raise ValueError(f"For '{owner}', cannot read {where}: {e}") from None
    if len(data) != size:
        raise ValueError(f"For '{owner}', {where} changed while being read: expected {size} "
                         f"bytes, got {len(data)}")
    return data


def _inside(owner, root, path, what="file"):
    """(path, path to open) of a file that must exist inside the resolved folder `root`."""
    if not os.path.lexists(path):
        raise ValueError(f"For '{owner}', the {what} {path!r} does not exist")
    return path, _files.resolve_inside(root, path, owner)


def _text_file(owner, root, path, max_bytes=_files.MAX_DATA_FILE_BYTES):
    """The text of a list / annotation file inside `root` (UTF-8)."""
    path, target = _inside(owner, root, path)
    f, size = _open_data(owner, path, target)
    with f:
        data = f.read(min(size, max_bytes) + 1)
    if len(data) > max_bytes:
        raise ValueError(f"For '{owner}', {path!r} is larger than {max_bytes} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"For '{owner}', {path!r} is not UTF-8 text: {e}") from None


def _check_decode(owner, decode):
    decode = bool(check_bool(decode, "decode", owner))
    if decode:
        try:
            import PIL  # noqa: F401
        except ImportError:
            raise ImportError(f"For '{owner}', decode=True needs Pillow: pip install "
                              f"'minispore[vision]' (or pillow)") from None
    return decode


class _ImageRowsDataset(MappableDataset):
    """Rows made of image files (read on demand, raw bytes or decoded) and prepared columns."""

    _owner = ""

    def _setup(self, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id):
        super().__init__(check_workers(self._owner, num_parallel_workers),
                         select_sampler(self._owner, num_samples, shuffle, sampler, num_shards,
                                        shard_id))

    def _source_workers(self):
        return self._workers() if self.decode else 1

    def _num_rows(self):
        return len(self._entries)

    def _image(self, path, target, index, decode=None):
        where = f"{_files.describe(path, target)} (sample {index})"
        data = _image_bytes(self._owner, path, target, where)
        if self.decode if decode is None else decode:
            return _decode_image(self._owner, data, where)
        return np.frombuffer(data, np.uint8).copy()


# ---- VOC --------------------------------------------------------------------------------------

def _xml_root(owner, text, path):
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise ValueError(f"For '{owner}', {path!r} declares a DTD or entities, which are not "
                         f"read")
    try:
        return ET.fromstring(text)
    except ET.ParseError as e:
        raise ValueError(f"For '{owner}', {path!r} is not valid XML: {e}") from None


def _voc_objects(owner, text, path):
    """[(name, (xmin, ymin, xmax, ymax), difficult, truncated)] of a VOC annotation."""
    out = []
    for obj in _xml_root(owner, text, path).iter("object"):
        name = (obj.findtext("name") or "").strip()
        box = obj.find("bndbox")
        if not name or box is None:
            raise ValueError(f"For '{owner}', an object of {path!r} lacks its name or bndbox")
        try:
            coords = tuple(float(box.findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax"))
        except (TypeError, ValueError):
            raise ValueError(f"For '{owner}', a bndbox of {path!r} lacks a number among xmin, "
                             f"ymin, xmax, ymax") from None
        if min(coords) <= 0 or coords[2] < coords[0] or coords[3] < coords[1]:
            raise ValueError(f"For '{owner}', a bndbox of {path!r} must have coordinates > 0 "
                             f"and max >= min, but got {coords}")
        flags = []
        for tag in ("difficult", "truncated"):
            value = (obj.findtext(tag) or "0").strip()
            if value not in ("0", "1"):
                raise ValueError(f"For '{owner}', <{tag}> of {path!r} must be 0 or 1, but got "
                                 f"{value!r}")
            flags.append(int(value))
        out.append((name, coords, flags[0], flags[1]))
    return out


class VOCDataset(_ImageRowsDataset):
    """PASCAL VOC in its folder layout: `ImageSets/{Segmentation,Main}/<usage>.txt` lists the
    ids, `JPEGImages/<id>.jpg` the images, `SegmentationClass/<id>.png` the masks and
    `Annotations/<id>.xml` the objects.

    Columns: task 'Segmentation': `image`, `target` (raw bytes, or HWC uint8 RGB with
    `decode`); task 'Detection': `image`, `bbox` float32 (N, 4) (xmin, ymin, width, height),
    `label`, `difficult`, `truncate` uint32 (N, 1). Labels follow `class_indexing` (name ->
    id; default: the object names of the listed annotations, sorted, numbered from 0). With
    `extra_metadata` a `_meta-filename` column (the id) follows.

    Raises:
        ValueError: a missing folder or file, an unknown usage, a bad or hostile annotation
            (DTD / entities, a bndbox with a coordinate <= 0, as MindSpore), an object whose
            name is not in `class_indexing`.
    """

    _owner = "VOCDataset"

    def __init__(self, dataset_dir, task="Segmentation", usage="train", class_indexing=None,
                 num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None, extra_metadata=False,
                 decrypt=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.task = check_one_of(task, ("Segmentation", "Detection"), "task", owner)
        self.usage = check_type(usage, str, "usage", owner)
        self.decode = _check_decode(owner, decode)
        self.extra_metadata = check_bool(extra_metadata, "extra_metadata", owner)
        if class_indexing is not None:
            if self.task != "Detection":
                raise ValueError(f"For '{owner}', 'class_indexing' is only for task "
                                 f"'Detection'")
            check_type(class_indexing, dict, "class_indexing", owner, "a dict of str to int")
            for k, v in class_indexing.items():
                check_type(k, str, "class_indexing key", owner)
                check_int(v, f"class_indexing[{k!r}]", owner)
        sets = "Segmentation" if self.task == "Segmentation" else "Main"
        listing = os.path.join(root, "ImageSets", sets, self.usage + ".txt")
        ids = [line.strip() for line in _text_file(owner, root, listing).splitlines()
               if line.strip()]
        if not ids:
            raise ValueError(f"For '{owner}', {listing!r} lists no images")
        rows = []
        for i in ids:
            image = _inside(owner, root, os.path.join(root, "JPEGImages", i + ".jpg"), "image")
            if self.task == "Segmentation":
                rows.append((i, image, _inside(owner, root, os.path.join(
                    root, "SegmentationClass", i + ".png"), "mask")))
            else:
                ann = os.path.join(root, "Annotations", i + ".xml")
                rows.append((i, image, _voc_objects(owner, _text_file(owner, root, ann), ann)))
        if self.task == "Detection":
            if class_indexing is None:
                names = sorted({o[0] for _, _, objs in rows for o in objs})
                class_indexing = {n: k for k, n in enumerate(names)}
            for i, _, objs in rows:
                unknown = [o[0] for o in objs if o[0] not in class_indexing]
                if unknown:
                    raise ValueError(f"For '{owner}', annotation {i!r} names classes {unknown} "
                                     f"that are not in 'class_indexing'")
        self._class_indexing = class_indexing
        self._entries = rows
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def get_class_indexing(self):
        """{class name: label} (task 'Detection' only)."""
        if self.task != "Detection":
            raise ValueError("For 'VOCDataset', get_class_indexing is only for task 'Detection'")
        return dict(self._class_indexing)

    def _columns(self):
        cols = (["image", "target"] if self.task == "Segmentation"
                else ["image", "bbox", "label", "difficult", "truncate"])
        return cols + (["_meta-filename"] if self.extra_metadata else [])

    def _get_row(self, index):
        name, (path, target), extra = self._entries[index]
        image = self._image(path, target, index)
        if self.task == "Segmentation":
            row = (image, self._image(*extra, index))
        else:
            boxes = np.array([[x0, y0, x1 - x0, y1 - y0] for _, (x0, y0, x1, y1), _, _ in extra],
                             np.float32).reshape(-1, 4)
            col = lambda vals: np.array(vals, np.uint32).reshape(-1, 1)
            row = (image, boxes, col([self._class_indexing[o[0]] for o in extra]),
                   col([o[2] for o in extra]), col([o[3] for o in extra]))
        return row + ((np.array(name),) if self.extra_metadata else ())


# ---- COCO -------------------------------------------------------------------------------------

def _number_list(owner, value, what):
    try:
        return [float(v) for v in value]
    except (TypeError, ValueError):
        raise ValueError(f"For '{owner}', {what} must be a list of numbers, but got "
                         f"{value!r:.80}") from None


class CocoDataset(_ImageRowsDataset):
    """COCO: images in `dataset_dir`, annotations in the JSON `annotation_file`. Images without
    annotations are left out; order: the annotation file's `images`.

    Columns by `task`: 'Detection': `image`, `bbox` float32 (N, 4) (x, y, w, h), `category_id`,
    `iscrowd` uint32 (N, 1); 'Stuff': `image`, `segmentation` float32 (N, L) (each polygon set
    flattened, or an RLE's counts, padded with -1), `iscrowd`; 'Keypoint': `image`,
    `keypoints` float32 (N, 3K), `num_keypoints` uint32 (N, 1); 'Panoptic': `image`, `bbox`,
    `category_id`, `iscrowd`, `area` (from `segments_info`); 'Captioning': `image`, `captions`
    str (N, 1). `image` is raw bytes, or HWC uint8 RGB with `decode`; `extra_metadata` adds
    `_meta-filename`.
    """

    _owner = "CocoDataset"
    _TASKS = ("Detection", "Stuff", "Keypoint", "Panoptic", "Captioning")

    def __init__(self, dataset_dir, annotation_file, task="Detection", num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None, cache=None, extra_metadata=False, decrypt=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.task = check_one_of(task, self._TASKS, "task", owner)
        self.decode = _check_decode(owner, decode)
        self.extra_metadata = check_bool(extra_metadata, "extra_metadata", owner)
        ann_path = os.fspath(check_type(annotation_file, (str, os.PathLike), "annotation_file",
                                        owner, "a str or path"))
        ann_root = os.path.dirname(os.path.realpath(ann_path))
        try:
            doc = json.loads(_text_file(owner, ann_root, ann_path))
        except json.JSONDecodeError as e:
            raise ValueError(f"For '{owner}', {ann_path!r} is not valid JSON: {e}") from None
        well_formed = isinstance(doc, dict) and isinstance(doc.get("images"), list) and \
            isinstance(doc.get("annotations"), list)
        if not well_formed:
            raise ValueError(f"For '{owner}', {ann_path!r} must hold 'images' and 'annotations' "
                             f"lists")
        per_image = {}
        for ann in doc["annotations"]:
            if not isinstance(ann, dict) or "image_id" not in ann:
                raise ValueError(f"For '{owner}', an annotation of {ann_path!r} lacks 'image_id'")
            per_image.setdefault(ann["image_id"], []).append(ann)
        rows = []
        for im in doc["images"]:
            if not isinstance(im, dict) or "id" not in im or "file_name" not in im:
                raise ValueError(f"For '{owner}', an image of {ann_path!r} lacks 'id' or "
                                 f"'file_name'")
            anns = per_image.get(im["id"])
            if not anns:
                continue
            file = os.path.join(root, str(im["file_name"]))
            rows.append((str(im["file_name"]), _inside(owner, root, file, "image"),
                         self._fields(anns, ann_path)))
        if not rows:
            raise ValueError(f"For '{owner}', {ann_path!r} annotates no image")
        cats = doc.get("categories", [])
        self._class_indexing = {}
        for c in cats if isinstance(cats, list) else []:
            if isinstance(c, dict) and "name" in c and "id" in c:
                value = [int(c["id"])] + ([int(c.get("isthing", 0))]
                                          if self.task == "Panoptic" else [])
                self._class_indexing[str(c["name"])] = value
        self._entries = rows
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _fields(self, anns, path):
        owner = self._owner
        col = lambda vals: np.array(vals, np.uint32).reshape(-1, 1)

        def need(ann, key):
            if key not in ann:
                raise ValueError(f"For '{owner}', an annotation of {path!r} lacks '{key}' "
                                 f"(task {self.task!r})")
            return ann[key]

        if self.task == "Captioning":
            return (np.array([str(need(a, "caption")) for a in anns]).reshape(-1, 1),)
        if self.task == "Panoptic":
            segs = [s for a in anns for s in need(a, "segments_info")]
            boxes = [_number_list(owner, need(s, "bbox"), "a bbox") for s in segs]
            return (np.array(boxes, np.float32).reshape(-1, 4),
                    col([need(s, "category_id") for s in segs]),
                    col([need(s, "iscrowd") for s in segs]), col([need(s, "area") for s in segs]))
        if self.task == "Detection":
            boxes = [_number_list(owner, need(a, "bbox"), "a bbox") for a in anns]
            if any(len(b) != 4 for b in boxes):
                raise ValueError(f"For '{owner}', a bbox of {path!r} is not [x, y, w, h]")
            return (np.array(boxes, np.float32).reshape(-1, 4),
                    col([need(a, "category_id") for a in anns]),
                    col([a.get("iscrowd", 0) for a in anns]))
        if self.task == "Keypoint":
            points = [_number_list(owner, need(a, "keypoints"), "keypoints") for a in anns]
            width = max(len(p) for p in points)
            arr = np.array([p + [0.0] * (width - len(p)) for p in points], np.float32)
            return arr, col([need(a, "num_keypoints") for a in anns])
        segs = []
        for a in anns:
            seg = need(a, "segmentation")
            if int(a.get("iscrowd", 0)):
                counts = seg.get("counts") if isinstance(seg, dict) else None
                if not isinstance(counts, list):
                    raise ValueError(f"For '{owner}', a crowd annotation of {path!r} needs an "
                                     f"RLE with a 'counts' list")
                segs.append(_number_list(owner, counts, "RLE counts"))
            else:
                if not isinstance(seg, list):
                    raise ValueError(f"For '{owner}', a segmentation of {path!r} must be a "
                                     f"list of polygons")
                segs.append([v for poly in seg for v in _number_list(owner, poly, "a polygon")])
        width = max(len(s) for s in segs)
        arr = np.array([s + [-1.0] * (width - len(s)) for s in segs], np.float32)
        return arr, col([a.get("iscrowd", 0) for a in anns])

    def get_class_indexing(self):
        """{category name: [id]} ([id, isthing] for task 'Panoptic')."""
        if self.task == "Captioning":
            raise ValueError("For 'CocoDataset', get_class_indexing is not for task "
                             "'Captioning'")
        return {k: list(v) for k, v in self._class_indexing.items()}

    def _columns(self):
        cols = {"Detection": ["image", "bbox", "category_id", "iscrowd"],
                "Stuff": ["image", "segmentation", "iscrowd"],
                "Keypoint": ["image", "keypoints", "num_keypoints"],
                "Panoptic": ["image", "bbox", "category_id", "iscrowd", "area"],
                "Captioning": ["image", "captions"]}[self.task]
        return cols + (["_meta-filename"] if self.extra_metadata else [])

    def _get_row(self, index):
        name, (path, target), fields = self._entries[index]
        row = (self._image(path, target, index),) + tuple(f.copy() for f in fields)
        return row + ((np.array(name),) if self.extra_metadata else ())


# ---- CelebA -----------------------------------------------------------------------------------

class CelebADataset(_ImageRowsDataset):
    """CelebA: `list_attr_celeba.txt` (count, attribute names, then `<file> <+1/-1 ...>`) and
    the images in `dataset_dir`; `usage` 'train' / 'valid' / 'test' selects by
    `list_eval_partition.txt` (0 / 1 / 2), 'all' takes every row. Columns: `image` (raw bytes
    or decoded HWC RGB) and `attr` uint32 (one 0/1 per attribute). `extensions` keeps files
    with those endings."""

    _owner = "CelebADataset"

    def __init__(self, dataset_dir, num_parallel_workers=None, shuffle=None, usage="all",
                 sampler=None, decode=False, extensions=None, num_samples=None, num_shards=None,
                 shard_id=None, cache=None, decrypt=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.usage = check_one_of(usage, ("all", "train", "valid", "test"), "usage", owner)
        self.decode = _check_decode(owner, decode)
        if extensions is not None:
            extensions = tuple(check_type(e, str, "extensions", owner).lower()
                               for e in check_sequence(extensions, "extensions", owner,
                                                       expected="a list of str"))
        attr_path = os.path.join(root, "list_attr_celeba.txt")
        lines = _text_file(owner, root, attr_path).splitlines()
        if len(lines) < 2:
            raise ValueError(f"For '{owner}', {attr_path!r} needs a count line and an "
                             f"attribute-name line")
        self.attr_names = lines[1].split()
        keep = None
        if self.usage != "all":
            wanted = {"train": "0", "valid": "1", "test": "2"}[self.usage]
            part_path = os.path.join(root, "list_eval_partition.txt")
            keep = {p[0] for p in (line.split() for line in
                                   _text_file(owner, root, part_path).splitlines())
                    if len(p) == 2 and p[1] == wanted}
        rows = []
        for n, line in enumerate(lines[2:], start=3):
            parts = line.split()
            if not parts:
                continue
            name, values = parts[0], parts[1:]
            if len(values) != len(self.attr_names) or any(v not in ("1", "-1") for v in values):
                raise ValueError(f"For '{owner}', line {n} of {attr_path!r} must hold a file "
                                 f"name and {len(self.attr_names)} values of 1 or -1")
            if keep is not None and name not in keep:
                continue
            if extensions is not None and not name.lower().endswith(extensions):
                continue
            attrs = np.array([v == "1" for v in values], np.uint32)
            rows.append((_inside(owner, root, os.path.join(root, name), "image"), attrs))
        self._entries = rows
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _columns(self):
        return ["image", "attr"]

    def _get_row(self, index):
        (path, target), attrs = self._entries[index]
        return self._image(path, target, index), attrs.copy()


# ---- more folder layouts ----------------------------------------------------------------------

class Caltech256Dataset(ImageFolderDataset):
    """Caltech-256: class folders (`001.ak47`, ...) of JPEG images; `label` int32 is the
    folder's index in name order. Columns `image` (raw bytes or decoded), `label`."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler,
                         [".jpg", ".jpeg"], None, decode, num_shards, shard_id)


class KMnistDataset(MnistDataset):
    """Kuzushiji-MNIST: the same IDX files and columns as `MnistDataset`."""

    _owner = "KMnistDataset"


# ---- array files: MNIST variants, USPS, Semeion, STL-10, SVHN ----------------------------------

class _ArraysDataset(MappableDataset):
    """Rows from arrays loaded once on first use: `_load()` returns a list of columns."""

    _owner = ""

    def _setup(self, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id):
        self._store = _Lazy(self._load)
        super().__init__(check_workers(self._owner, num_parallel_workers),
                         select_sampler(self._owner, num_samples, shuffle, sampler, num_shards,
                                        shard_id))

    def _columns(self):
        return ["image", "label"]

    def _num_rows(self):
        return len(self._store.get()[0])

    def _get_row(self, index):
        return tuple(np.array(c[index]) for c in self._store.get())


def _idx_array(owner, root, path, magic, ndim, dtype):
    """The array of an IDX file (checked as `_idx_header`) with its dims."""
    dims, off, target = _idx_header(owner, root, path, magic, ndim, np.dtype(dtype).itemsize)
    data = _read_exact(owner, path, target, off + int(np.prod(dims)) * np.dtype(dtype).itemsize)
    return np.frombuffer(data, dtype, offset=off).reshape(dims)


class EMnistDataset(_ArraysDataset):
    """EMNIST from its IDX files `emnist-<name>-<train|test>-{images-idx3,labels-idx1}-ubyte`
    (`name`: byclass, bymerge, balanced, letters, digits or mnist). Columns: `image` uint8
    (28, 28, 1), `label` uint32; usage 'all' puts the test files first."""

    _owner = "EMnistDataset"

    def __init__(self, dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, self._root = _check_dir(owner, dataset_dir)
        self.name = check_one_of(name, ("byclass", "bymerge", "balanced", "letters", "digits",
                                        "mnist"), "name", owner)
        self.usage = _check_usage(owner, usage)
        parts = {"train": ["train"], "test": ["test"], "all": ["test", "train"]}[self.usage]
        self._files = []
        for part in parts:
            stem = os.path.join(self._root, f"emnist-{self.name}-{part}")
            img, lab = stem + "-images-idx3-ubyte", stem + "-labels-idx1-ubyte"
            _idx_header(owner, self._root, img, _IDX_IMAGES, 3)
            _idx_header(owner, self._root, lab, _IDX_LABELS, 1)
            self._files.append((img, lab))
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _load(self):
        images, labels = [], []
        for img, lab in self._files:
            x = _idx_array(self._owner, self._root, img, _IDX_IMAGES, 3, np.uint8)
            y = _idx_array(self._owner, self._root, lab, _IDX_LABELS, 1, np.uint8)
            if len(x) != len(y):
                raise ValueError(f"For '{self._owner}', {img!r} holds {len(x)} images but "
                                 f"{lab!r} holds {len(y)} labels")
            images.append(x[..., None])
            labels.append(y.astype(np.uint32))
        return [np.concatenate(images), np.concatenate(labels)]


_IDX_INT2 = 0x00000C02  # int32 data, 2 dimensions


class QMnistDataset(_ArraysDataset):
    """QMNIST: `qmnist-{train,test}-images-idx3-ubyte` / `-labels-idx2-int` and
    `xnist-...` (usage 'nist'); 'test10k' / 'test50k' are the first 10000 / the other test rows,
    'all' is train, test, nist. `label` uint32: the class (`compat=True`) or all 8 fields."""

    _owner = "QMnistDataset"

    def __init__(self, dataset_dir, usage=None, compat=True, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, self._root = _check_dir(owner, dataset_dir)
        self.usage = check_one_of("all" if usage is None else usage,
                                  ("train", "test", "test10k", "test50k", "nist", "all"),
                                  "usage", owner)
        self.compat = check_bool(compat, "compat", owner)
        stems = {"train": ["qmnist-train"], "test": ["qmnist-test"],
                 "test10k": ["qmnist-test"], "test50k": ["qmnist-test"], "nist": ["xnist"],
                 "all": ["qmnist-train", "qmnist-test", "xnist"]}[self.usage]
        self._files = []
        for stem in stems:
            img = os.path.join(self._root, stem + "-images-idx3-ubyte")
            lab = os.path.join(self._root, stem + "-labels-idx2-int")
            _idx_header(owner, self._root, img, _IDX_IMAGES, 3)
            _idx_header(owner, self._root, lab, _IDX_INT2, 2, 4)
            self._files.append((img, lab))
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _load(self):
        images, labels = [], []
        for img, lab in self._files:
            x = _idx_array(self._owner, self._root, img, _IDX_IMAGES, 3, np.uint8)
            y = _idx_array(self._owner, self._root, lab, _IDX_INT2, 2, ">i4")
            if len(x) != len(y):
                raise ValueError(f"For '{self._owner}', {img!r} holds {len(x)} images but "
                                 f"{lab!r} holds {len(y)} labels")
            images.append(x[..., None])
            labels.append(y.astype(np.uint32))
        x, y = np.concatenate(images), np.concatenate(labels)
        if self.usage == "test10k":
            x, y = x[:10000], y[:10000]
        elif self.usage == "test50k":
            x, y = x[10000:], y[10000:]
        return [x, y[:, 0] if self.compat else y]


class USPSDataset(_ArraysDataset):
    """USPS from its text files `usps` (train) and `usps.t` (test): lines `label i:v ...` with
    256 values in [-1, 1]. Columns: `image` uint8 (16, 16, 1) = int((v + 1) / 2 * 255),
    `label` uint32 = label - 1. Usage 'all' interleaves the two files row by row, as MindSpore
    does."""

    _owner = "USPSDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=True, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, self._root = _check_dir(owner, dataset_dir)
        self.usage = _check_usage(owner, usage)
        names = {"train": ["usps"], "test": ["usps.t"], "all": ["usps", "usps.t"]}[self.usage]
        self._paths = [_inside(owner, self._root, os.path.join(self._root, n))[0] for n in names]
        shuffle = None if shuffle is True or shuffle is None else shuffle
        self._setup(num_samples, num_parallel_workers, shuffle, None, num_shards, shard_id)

    def _load(self):
        per_file = []
        for path in self._paths:
            images, labels = [], []
            per_file.append((images, labels))
            for n, line in enumerate(_text_file(self._owner, self._root, path).splitlines(), 1):
                parts = line.split()
                if not parts:
                    continue
                try:
                    label = int(float(parts[0]))
                    values = np.zeros(256)
                    for item in parts[1:]:
                        k, v = item.split(":")
                        values[int(k) - 1] = float(v)
                except (ValueError, IndexError):
                    raise ValueError(f"For '{self._owner}', line {n} of {path!r} is not "
                                     f"'label index:value ...' with indices 1..256") from None
                if not 1 <= label <= 10:
                    raise ValueError(f"For '{self._owner}', line {n} of {path!r} has label "
                                     f"{label}, expected 1..10")
                images.append(((values + 1) / 2 * 255).astype(np.uint8).reshape(16, 16, 1))
                labels.append(label - 1)
        order = [(f, i) for i in range(max(len(p[0]) for p in per_file))
                 for f in range(len(per_file)) if i < len(per_file[f][0])]
        images = [per_file[f][0][i] for f, i in order]
        labels = [per_file[f][1][i] for f, i in order]
        return [np.array(images, np.uint8).reshape(-1, 16, 16, 1), np.array(labels, np.uint32)]


class SemeionDataset(_ArraysDataset):
    """Semeion handwritten digits from `semeion.data`: 256 pixel values (0 / 1) and a one-hot
    label of 10 per line. Columns: `image` uint8 (16, 16), `label` uint32."""

    _owner = "SemeionDataset"

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir, self._root = _check_dir(self._owner, dataset_dir)
        self._path = _inside(self._owner, self._root, os.path.join(self._root,
                                                                   "semeion.data"))[0]
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _load(self):
        images, labels = [], []
        for n, line in enumerate(_text_file(self._owner, self._root, self._path).splitlines(),
                                 1):
            if not line.strip():
                continue
            try:
                values = np.array(line.split(), np.float64)
            except ValueError:
                values = np.zeros(0)
            hot = values[256:]
            if values.size != 266 or (hot != 0).sum() != 1:
                raise ValueError(f"For '{self._owner}', line {n} of {self._path!r} must hold "
                                 f"256 pixels and a one-hot label of 10")
            images.append(values[:256].astype(np.uint8).reshape(16, 16))
            labels.append(int(np.argmax(hot)))
        return [np.array(images, np.uint8).reshape(-1, 16, 16), np.array(labels, np.uint32)]


class STL10Dataset(_ArraysDataset):
    """STL-10 binaries: `<usage>_X.bin` (96x96 RGB images, column-major planes) and
    `<usage>_y.bin` (labels 1..10). usage 'train', 'test', 'unlabeled' (label -1),
    'train+unlabeled' or 'all' (test, train, unlabeled, as MindSpore). Columns: `image` uint8
    (96, 96, 3), `label` int32 (0..9)."""

    _owner = "STL10Dataset"
    _SIZE = 3 * 96 * 96

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, self._root = _check_dir(owner, dataset_dir)
        self.usage = check_one_of("all" if usage is None else usage,
                                  ("train", "test", "unlabeled", "train+unlabeled", "all"),
                                  "usage", owner)
        parts = {"train": ["train"], "test": ["test"], "unlabeled": ["unlabeled"],
                 "train+unlabeled": ["train", "unlabeled"],
                 "all": ["test", "train", "unlabeled"]}[self.usage]
        self._parts = []
        for part in parts:
            x_path = os.path.join(self._root, f"{part}_X.bin")
            x = _data_file(owner, self._root, x_path)
            if x[1] % self._SIZE:
                raise ValueError(f"For '{owner}', {x_path!r} has {x[1]} bytes, not a multiple "
                                 f"of {self._SIZE} (96x96x3 images)")
            y = None
            if part != "unlabeled":
                y_path = os.path.join(self._root, f"{part}_y.bin")
                y = (y_path,) + _data_file(owner, self._root, y_path)
                if y[2] != x[1] // self._SIZE:
                    raise ValueError(f"For '{owner}', {y_path!r} holds {y[2]} labels for "
                                     f"{x[1] // self._SIZE} images")
            self._parts.append(((x_path,) + x, y))
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _load(self):
        images, labels = [], []
        for (x_path, x_target, x_size), y in self._parts:
            raw = np.frombuffer(_read_exact(self._owner, x_path, x_target, x_size), np.uint8)
            images.append(raw.reshape(-1, 3, 96, 96).transpose(0, 3, 2, 1))
            n = len(images[-1])
            if y is None:
                labels.append(np.full(n, -1, np.int32))
            else:
                lab = np.frombuffer(_read_exact(self._owner, *y), np.uint8).astype(np.int32)
                labels.append(lab - 1)
        return [np.ascontiguousarray(np.concatenate(images)), np.concatenate(labels)]


class SVHNDataset(_ArraysDataset):
    """SVHN's MATLAB files `<usage>_32x32.mat` (train, test, extra; 'all' in that order):
    `image` uint8 (32, 32, 3), `label` uint32 (10 read as 0). Needs SciPy to read .mat."""

    _owner = "SVHNDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        owner = self._owner
        self.dataset_dir, self._root = _check_dir(owner, dataset_dir)
        self.usage = check_one_of("all" if usage is None else usage,
                                  ("train", "test", "extra", "all"), "usage", owner)
        parts = ["train", "test", "extra"] if self.usage == "all" else [self.usage]
        self._paths = [(p,) + _data_file(owner, self._root, p) for p in
                       (os.path.join(self._root, f"{u}_32x32.mat") for u in parts)]
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _load(self):
        try:
            from scipy.io import loadmat
        except ImportError:
            raise ImportError(f"For '{self._owner}', reading .mat files needs SciPy: pip "
                              f"install scipy") from None
        images, labels = [], []
        for path, target, size in self._paths:
            try:
                mat = loadmat(io.BytesIO(_read_exact(self._owner, path, target, size)))
                x, y = np.asarray(mat["X"]), np.asarray(mat["y"]).reshape(-1)
            except (KeyError, ValueError, TypeError, NotImplementedError) as e:
                raise ValueError(f"For '{self._owner}', {path!r} is not an SVHN .mat file with "
                                 f"'X' and 'y': {e}") from None
            if x.ndim != 4 or x.shape[:3] != (32, 32, 3) or x.shape[3] != y.size:
                raise ValueError(f"For '{self._owner}', {path!r} holds X of shape {x.shape} "
                                 f"and {y.size} labels, expected (32, 32, 3, N) and N")
            images.append(np.transpose(x, (3, 0, 1, 2)).astype(np.uint8))
            lab = y.astype(np.uint32)
            lab[lab == 10] = 0
            labels.append(lab)
        return [np.ascontiguousarray(np.concatenate(images)), np.concatenate(labels)]


# ---- more folder layouts ----------------------------------------------------------------------

def _files_below(owner, root, folder, extensions=None):
    """(path, path to open) of the files under `folder` (inside `root`), sorted by their path
    below it (symbolic links to folders never followed)."""
    if not os.path.isdir(folder):
        raise ValueError(f"For '{owner}', the folder {folder!r} does not exist")
    found = _image_files(owner, root, folder, extensions, set())
    return sorted(found, key=lambda pt: os.path.relpath(pt[0], folder).split(os.sep))


def _label_rows(owner, rows, empty_what):
    if not rows:
        raise ValueError(f"For '{owner}', no {empty_what} found")
    return rows


class _LabelledImages(_ImageRowsDataset):
    """Rows (path, path to open, label array): columns `image`, `label`."""

    def _columns(self):
        return ["image", "label"]

    def _get_row(self, index):
        path, target, label = self._entries[index]
        return self._image(path, target, index), np.array(label)


class RenderedSST2Dataset(_LabelledImages):
    """Rendered SST-2: `<train|valid|test>/<negative|positive>/*.png`; `label` uint32 (negative 0,
    positive 1). usage 'train', 'val', 'test' or 'all' (folders in name order: test, train,
    valid)."""

    _owner = "RenderedSST2Dataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.usage = check_one_of("all" if usage is None else usage,
                                  ("train", "val", "test", "all"), "usage", owner)
        self.decode = _check_decode(owner, decode)
        parts = {"train": ["train"], "val": ["valid"], "test": ["test"],
                 "all": ["test", "train", "valid"]}[self.usage]
        rows = []
        for part in parts:
            for label, cls in enumerate(("negative", "positive")):
                for path, target in _files_below(owner, root, os.path.join(root, part, cls)):
                    rows.append((path, target, np.uint32(label)))
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)


class Food101Dataset(_LabelledImages):
    """Food-101: `meta/<train|test>.txt` list `class/id`, images at `images/class/id.jpg`;
    `label` is the class name (str). usage 'train', 'test' or 'all' (train, then test)."""

    _owner = "Food101Dataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.usage = _check_usage(owner, usage)
        self.decode = _check_decode(owner, decode)
        rows = []
        for part in (["train", "test"] if self.usage == "all" else [self.usage]):
            listing = os.path.join(root, "meta", part + ".txt")
            for line in _text_file(owner, root, listing).splitlines():
                item = line.strip()
                if not item:
                    continue
                if item.count("/") != 1:
                    raise ValueError(f"For '{owner}', {listing!r} must list 'class/id', but has "
                                     f"{item!r}")
                path = os.path.join(root, "images", item + ".jpg")
                rows.append(_inside(owner, root, path, "image") + (np.array(item.split("/")[0]),))
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)


class SUN397Dataset(_LabelledImages):
    """SUN397: `ClassName.txt` lists the classes (`/a/abbey`, ...), images lie in those folders;
    `label` uint32 is the class's line index; files in path order."""

    _owner = "SUN397Dataset"

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.decode = _check_decode(owner, decode)
        classes = [c.strip() for c in _text_file(owner, root, os.path.join(
            root, "ClassName.txt")).splitlines() if c.strip()]
        rows = []
        for label, cls in enumerate(classes):
            folder = os.path.join(root, *cls.strip("/").split("/"))
            for path, target in _files_below(owner, root, folder, (".jpg", ".jpeg")):
                if os.path.dirname(path) == folder:
                    rows.append((path, target, np.uint32(label)))
        rows.sort(key=lambda r: os.path.relpath(r[0], root).split(os.sep))
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)


class OmniglotDataset(_LabelledImages):
    """Omniglot: `images_background/` (`background` True or None) or `images_evaluation/`
    (False), each `<alphabet>/<character>/*.png`; `label` int32 numbers the characters in path
    order."""

    _owner = "OmniglotDataset"

    def __init__(self, dataset_dir, background=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.background = True if background is None else check_bool(background, "background",
                                                                      owner)
        self.decode = _check_decode(owner, decode)
        part = os.path.join(root, "images_background" if self.background
                            else "images_evaluation")
        rows, labels = [], {}
        for path, target in _files_below(owner, root, part):
            character = os.path.dirname(path)
            label = labels.setdefault(character, len(labels))
            rows.append((path, target, np.int32(label)))
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)


class SBUDataset(_ImageRowsDataset):
    """SBU captioned photos: `SBU_captioned_photo_dataset_urls.txt` and `..._captions.txt` (line
    by line), images in `sbu_images/` named from the URL (its path after the host, '/' -> '_');
    photos not downloaded are left out. Columns `image`, `caption` (str, stripped)."""

    _owner = "SBUDataset"

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.decode = _check_decode(owner, decode)
        urls = _text_file(owner, root, os.path.join(
            root, "SBU_captioned_photo_dataset_urls.txt")).splitlines()
        captions = _text_file(owner, root, os.path.join(
            root, "SBU_captioned_photo_dataset_captions.txt")).splitlines()
        if len(urls) != len(captions):
            raise ValueError(f"For '{owner}', the url and caption files have {len(urls)} and "
                             f"{len(captions)} lines")
        rows = []
        for url, caption in zip(urls, captions):
            url = url.strip()
            if not url:
                continue
            name = url.split("://", 1)[-1].split("/", 1)[-1].replace("/", "_")
            path = os.path.join(root, "sbu_images", "m_" + name if not name.startswith("m_")
                                else name)
            if os.path.lexists(path):
                rows.append(_inside(owner, root, path, "image") + (caption.strip(),))
        self._entries = _label_rows(owner, rows, "downloaded images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _columns(self):
        return ["image", "caption"]

    def _get_row(self, index):
        path, target, caption = self._entries[index]
        return self._image(path, target, index), np.array(caption)


class FakeImageDataset(MappableDataset):
    """`num_images` random uint8 images of `image_size` (HWC) and uint32 labels below
    `num_classes`, made from `base_seed` + the row index (the same rows every pass)."""

    _owner = "FakeImageDataset"

    def __init__(self, num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0,
                 num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.num_images = check_int(num_images, "num_images", owner)
        if self.num_images <= 0:
            raise ValueError(f"For '{owner}', 'num_images' must be positive, but got "
                             f"{num_images}")
        self.image_size = tuple(check_sequence(image_size, "image_size", owner, check_int, 3,
                                               expected="a sequence of 3 positive ints"))
        if min(self.image_size) <= 0:
            raise ValueError(f"For '{owner}', 'image_size' must be positive, but got "
                             f"{image_size}")
        self.num_classes = check_int(num_classes, "num_classes", owner)
        if self.num_classes <= 0:
            raise ValueError(f"For '{owner}', 'num_classes' must be positive, but got "
                             f"{num_classes}")
        self.base_seed = check_int(base_seed, "base_seed", owner)
        super().__init__(check_workers(owner, num_parallel_workers),
                         select_sampler(owner, num_samples, shuffle, sampler, num_shards,
                                        shard_id))

    def _columns(self):
        return ["image", "label"]

    def _num_rows(self):
        return self.num_images

    def _get_row(self, index):
        rng = np.random.default_rng((self.base_seed % 2**63, index))
        image = rng.integers(0, 256, self.image_size, dtype=np.uint8)
        return image, np.array(rng.integers(self.num_classes), np.uint32)


class ManifestDataset(_ImageRowsDataset):
    """A manifest file (JSON lines: `source` image path, relative ones from the manifest's
    folder, `usage`, `annotation` list of {name}) filtered by `usage`. `label` int32: the
    class id (an array for several annotations); `class_indexing` maps names to ids (default:
    the names of the selected rows, sorted)."""

    _owner = "ManifestDataset"

    def __init__(self, dataset_file, usage="train", num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, class_indexing=None, decode=False, num_shards=None,
                 shard_id=None, cache=None):
        owner = self._owner
        path = os.fspath(check_type(dataset_file, (str, os.PathLike), "dataset_file", owner,
                                    "a str or path"))
        self.dataset_file = path
        self.usage = check_one_of(usage, ("train", "eval", "inference"), "usage", owner)
        self.decode = _check_decode(owner, decode)
        folder = os.path.dirname(os.path.realpath(path))
        rows = []
        for n, line in enumerate(_text_file(owner, folder, path).splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                source, names = item["source"], [a["name"] for a in item.get("annotation", [])]
            except (json.JSONDecodeError, KeyError, TypeError):
                raise ValueError(f"For '{owner}', line {n} of {path!r} is not a JSON object "
                                 f"with 'source' and 'annotation' names") from None
            if str(item.get("usage", "")).lower() != self.usage:
                continue
            image = os.path.join(folder, str(source))
            if not os.path.lexists(image):
                raise ValueError(f"For '{owner}', the image {image!r} (line {n}) does not exist")
            rows.append((image, os.path.realpath(image), [str(x) for x in names]))
        if class_indexing is None:
            names = sorted({x for _, _, ns in rows for x in ns})
            class_indexing = {x: k for k, x in enumerate(names)}
        else:
            check_type(class_indexing, dict, "class_indexing", owner, "a dict of str to int")
        for _, _, ns in rows:
            unknown = [x for x in ns if x not in class_indexing]
            if unknown:
                raise ValueError(f"For '{owner}', labels {unknown} are not in 'class_indexing'")
        self._class_indexing = dict(class_indexing)
        self._entries = _label_rows(owner, rows, f"rows of usage {self.usage!r}")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def get_class_indexing(self):
        """{label name: id}."""
        return dict(self._class_indexing)

    def _columns(self):
        return ["image", "label"]

    def _get_row(self, index):
        path, target, names = self._entries[index]
        ids = [self._class_indexing[x] for x in names]
        label = np.array(ids[0] if len(ids) == 1 else ids, np.int32)
        return self._image(path, target, index), label


class FlickrDataset(_ImageRowsDataset):
    """Flickr8k / Flickr30k: `annotation_file` lines `<image>#<k>\\t<caption>`, images in
    `dataset_dir`. Columns `image`, `annotation` (the image's captions, str), images in order of
    first mention."""

    _owner = "FlickrDataset"

    def __init__(self, dataset_dir, annotation_file, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.decode = _check_decode(owner, bool(decode))
        ann = os.fspath(check_type(annotation_file, (str, os.PathLike), "annotation_file", owner,
                                   "a str or path"))
        captions = {}
        for n, line in enumerate(_text_file(owner, os.path.dirname(os.path.realpath(ann)),
                                            ann).splitlines(), 1):
            if not line.strip():
                continue
            key, sep, caption = line.partition("\t")
            if not sep or "#" not in key:
                raise ValueError(f"For '{owner}', line {n} of {ann!r} is not "
                                 f"'<image>#<k>\\t<caption>'")
            captions.setdefault(key.rsplit("#", 1)[0], []).append(caption.strip())
        rows = [_inside(owner, root, os.path.join(root, name), "image") + (caps,)
                for name, caps in captions.items()]
        self._entries = _label_rows(owner, rows, "captions")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _columns(self):
        return ["image", "annotation"]

    def _get_row(self, index):
        path, target, caps = self._entries[index]
        return self._image(path, target, index), np.array(caps)


_WIDER_FIELDS = ("blur", "expression", "illumination", "occlusion", "pose", "invalid")


class WIDERFaceDataset(_ImageRowsDataset):
    """WIDER FACE: `WIDER_{train,val,test}/images/...` and `wider_face_split/` lists. usage
    'train', 'valid', 'test' (image only) or 'all' (train and valid). Columns: `image`, `bbox`
    int32 (N, 4), then `blur`, `expression`, `illumination`, `occlusion`, `pose`, `invalid`
    int32 (N,): the ground-truth fields after the box, taken in that order as MindSpore does."""

    _owner = "WIDERFaceDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.usage = check_one_of("all" if usage is None else usage,
                                  ("train", "valid", "test", "all"), "usage", owner)
        self.decode = _check_decode(owner, decode)
        split = os.path.join(root, "wider_face_split")
        rows = []
        if self.usage == "test":
            listing = os.path.join(split, "wider_face_test_filelist.txt")
            for name in _text_file(owner, root, listing).split():
                rows.append(_inside(owner, root, os.path.join(
                    root, "WIDER_test", "images", name), "image") + (None,))
        else:
            for part in (["train", "val"] if self.usage == "all"
                         else ["val" if self.usage == "valid" else "train"]):
                rows += self._ground_truth(root, split, part)
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _ground_truth(self, root, split, part):
        owner = self._owner
        path = os.path.join(split, f"wider_face_{part}_bbx_gt.txt")
        lines = _text_file(owner, root, path).splitlines()
        rows, i = [], 0
        while i < len(lines):
            name = lines[i].strip()
            i += 1
            if not name:
                continue
            try:
                count = int(lines[i])
                boxes = [[int(v) for v in lines[i + 1 + k].split()[:10]]
                         for k in range(max(count, 1))]
            except (IndexError, ValueError):
                raise ValueError(f"For '{owner}', {path!r} is malformed after {name!r}: "
                                 f"expected a count and that many lines of 10 ints") from None
            i += 1 + max(count, 1)
            boxes = np.array(boxes[:count], np.int32).reshape(-1, 10)
            if boxes.shape[1] != 10:
                raise ValueError(f"For '{owner}', a box line of {name!r} in {path!r} lacks "
                                 f"fields")
            image = os.path.join(root, f"WIDER_{part}", "images", name)
            rows.append(_inside(owner, root, image, "image") + (boxes,))
        return rows

    def _columns(self):
        return ["image"] if self.usage == "test" else ["image", "bbox", *_WIDER_FIELDS]

    def _get_row(self, index):
        path, target, boxes = self._entries[index]
        image = self._image(path, target, index)
        if boxes is None:
            return (image,)
        return (image, boxes[:, :4].copy()) + tuple(boxes[:, 4 + k].copy() for k in range(6))


class DIV2KDataset(_ImageRowsDataset):
    """DIV2K: `DIV2K_<usage>_HR/<id>.png` with its low-resolution twin,
    `DIV2K_<usage>_LR_<downgrade>/X<scale>/<id>x<scale>.png` (bicubic, unknown) or
    `DIV2K_<usage>_LR_<downgrade>/<id>x4<m|d|w>.png` (mild, difficult, wild). usage 'train',
    'valid' or 'all'. Columns `hr_image`, `lr_image` (raw bytes, or decoded)."""

    _owner = "DIV2KDataset"

    def __init__(self, dataset_dir, usage="train", downgrade="bicubic", scale=2,
                 num_samples=None, num_parallel_workers=None, shuffle=None, decode=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.usage = check_one_of(usage, ("train", "valid", "all"), "usage", owner)
        self.downgrade = check_one_of(downgrade, ("bicubic", "unknown", "mild", "difficult",
                                                  "wild"), "downgrade", owner)
        self.scale = check_one_of(scale, (2, 3, 4, 8), "scale", owner)
        if (downgrade == "unknown" and scale == 8) or (downgrade in ("mild", "difficult", "wild")
                                                      and scale != 4):
            raise ValueError(f"For '{owner}', scale {scale} is not available with downgrade "
                             f"{downgrade!r}")
        self.decode = _check_decode(owner, bool(decode))
        rows = []
        for part in (["train", "valid"] if self.usage == "all" else [self.usage]):
            for hr, hr_target in _files_below(owner, root, os.path.join(
                    root, f"DIV2K_{part}_HR"), (".png",)):
                stem = os.path.splitext(os.path.basename(hr))[0]
                lr_dir = os.path.join(root, f"DIV2K_{part}_LR_{downgrade}")
                if downgrade in ("bicubic", "unknown"):
                    lr = os.path.join(lr_dir, f"X{scale}", f"{stem}x{scale}.png")
                else:
                    lr = os.path.join(lr_dir, f"{stem}x4{downgrade[0]}.png")
                rows.append(((hr, hr_target), _inside(owner, root, lr, "low-resolution image")))
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _columns(self):
        return ["hr_image", "lr_image"]

    def _get_row(self, index):
        hr, lr = self._entries[index]
        return self._image(*hr, index), self._image(*lr, index)


class Flowers102Dataset(_ImageRowsDataset):
    """Oxford 102 Flowers: `jpg/image_<k>.jpg`, `segmim/segmim_<k>.jpg`, `imagelabels.mat`
    (labels 1..102, read as 0..101) and `setid.mat` (trnid, valid, tstid; 'all' in that order:
    train, test, valid). Columns `image`, [`segmentation` for task 'Segmentation'], `label`
    uint32. Needs SciPy to read .mat."""

    _owner = "Flowers102Dataset"

    def __init__(self, dataset_dir, task="Classification", usage="all", num_samples=None,
                 num_parallel_workers=1, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.task = check_one_of(task, ("Classification", "Segmentation"), "task", owner)
        self.usage = check_one_of(usage, ("train", "valid", "test", "all"), "usage", owner)
        self.decode = _check_decode(owner, decode)
        labels = self._mat(root, "imagelabels.mat")["labels"].reshape(-1)
        setid = self._mat(root, "setid.mat")
        keys = {"train": ["trnid"], "test": ["tstid"], "valid": ["valid"],
                "all": ["trnid", "tstid", "valid"]}[self.usage]
        rows = []
        for key in keys:
            for k in np.asarray(setid[key]).reshape(-1).tolist():
                if not 1 <= k <= labels.size:
                    raise ValueError(f"For '{owner}', image id {k} of setid.mat has no label")
                image = _inside(owner, root, os.path.join(root, "jpg", f"image_{k:05d}.jpg"),
                                "image")
                seg = None if self.task == "Classification" else _inside(
                    owner, root, os.path.join(root, "segmim", f"segmim_{k:05d}.jpg"),
                    "segmentation")
                rows.append((image, seg, np.uint32(labels[k - 1] - 1)))
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _mat(self, root, name):
        try:
            from scipy.io import loadmat
        except ImportError:
            raise ImportError(f"For '{self._owner}', reading .mat files needs SciPy: pip "
                              f"install scipy") from None
        path, target, size = (os.path.join(root, name),) + _data_file(
            self._owner, root, os.path.join(root, name))
        try:
            return loadmat(io.BytesIO(_read_exact(self._owner, path, target, size)))
        except (ValueError, TypeError, NotImplementedError) as e:
            raise ValueError(f"For '{self._owner}', {path!r} is not a readable .mat file: "
                             f"{e}") from None

    def _columns(self):
        return ["image", "label"] if self.task == "Classification" else \
            ["image", "segmentation", "label"]

    def _get_row(self, index):
        image, seg, label = self._entries[index]
        row = (self._image(*image, index),)
        if seg is not None:
            row += (self._image(*seg, index),)
        return row + (np.array(label),)


class KITTIDataset(_ImageRowsDataset):
    """KITTI object detection: `data_object_image_2/{training,testing}/image_2/*.png` and
    `data_object_label_2/training/label_2/*.txt` (one object per line: type, truncated,
    occluded, alpha, bbox x1 y1 x2 y2, dimensions, location, rotation_y). usage 'train'
    (default) or 'test' (image only). `label` uint32 numbers the types of the label files,
    sorted; `occluded` uint32 (-1 wraps as in MindSpore); the rest float32."""

    _owner = "KITTIDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.usage = check_one_of("train" if usage is None else usage, ("train", "test"),
                                  "usage", owner)
        self.decode = _check_decode(owner, decode)
        part = "training" if self.usage == "train" else "testing"
        images = _files_below(owner, root, os.path.join(root, "data_object_image_2", part,
                                                        "image_2"), (".png",))
        rows = []
        for path, target in images:
            if self.usage == "test":
                rows.append((path, target, None))
                continue
            stem = os.path.splitext(os.path.basename(path))[0]
            label_path = os.path.join(root, "data_object_label_2", part, "label_2",
                                      stem + ".txt")
            objects = []
            for n, line in enumerate(_text_file(owner, root, label_path).splitlines(), 1):
                parts = line.split()
                if not parts:
                    continue
                try:
                    values = [float(v) for v in parts[1:15]]
                except ValueError:
                    values = []
                if len(values) != 14:
                    raise ValueError(f"For '{owner}', line {n} of {label_path!r} must hold a "
                                     f"type and 14 numbers")
                objects.append((parts[0], values))
            rows.append((path, target, objects))
        if self.usage == "train":
            names = sorted({o[0] for _, _, objs in rows for o in objs})
            self._class_indexing = {x: k for k, x in enumerate(names)}
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _columns(self):
        return ["image"] if self.usage == "test" else [
            "image", "label", "truncated", "occluded", "alpha", "bbox", "dimensions",
            "location", "rotation_y"]

    def _get_row(self, index):
        path, target, objects = self._entries[index]
        image = self._image(path, target, index)
        if objects is None:
            return (image,)
        v = np.array([o[1] for o in objects], np.float64).reshape(-1, 14)
        col = lambda a: a.astype(np.float32).reshape(len(v), -1)
        label = np.array([self._class_indexing[o[0]] for o in objects], np.uint32).reshape(-1, 1)
        occluded = v[:, 1].astype(np.int64).astype(np.uint32).reshape(-1, 1)
        return (image, label, col(v[:, 0]), occluded, col(v[:, 2]), col(v[:, 3:7]),
                col(v[:, 7:10]), col(v[:, 10:13]), col(v[:, 13]))


_CALTECH101_ANNOTATIONS = {"Faces": "Faces_2", "Faces_easy": "Faces_3",
                           "Motorbikes": "Motorbikes_16", "airplanes": "Airplanes_Side_2"}


class Caltech101Dataset(_ImageRowsDataset):
    """Caltech-101: `101_ObjectCategories/<class>/image_<k>.jpg` (BACKGROUND_Google left out)
    and `Annotations/<class>/annotation_<k>.mat` (Faces, Faces_easy, Motorbikes and airplanes
    under their annotation names). `target_type` 'category' (default), 'annotation' or 'all':
    columns `image`, `category` int64 (the class's index in name order, as MindSpore gives it),
    `annotation` float64 (2, K) contour. Needs SciPy for annotations."""

    _owner = "Caltech101Dataset"

    def __init__(self, dataset_dir, target_type=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.target_type = check_one_of("category" if target_type is None else target_type,
                                        ("category", "annotation", "all"), "target_type", owner)
        self.decode = _check_decode(owner, decode)
        images = os.path.join(root, "101_ObjectCategories")
        classes = [e.name for e in _list(owner, images) if e.is_dir(follow_symlinks=False)
                   and e.name != "BACKGROUND_Google"]
        rows = []
        for label, cls in enumerate(classes):
            count = len(_list(owner, os.path.join(images, cls)))
            for k in range(1, count + 1):
                image = _inside(owner, root, os.path.join(images, cls, f"image_{k:04d}.jpg"),
                                "image")
                ann = None
                if self.target_type != "category":
                    ann = _inside(owner, root, os.path.join(
                        root, "Annotations", _CALTECH101_ANNOTATIONS.get(cls, cls),
                        f"annotation_{k:04d}.mat"), "annotation")
                rows.append((image, label, ann))
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _columns(self):
        return {"category": ["image", "category"], "annotation": ["image", "annotation"],
                "all": ["image", "category", "annotation"]}[self.target_type]

    def _contour(self, path, target):
        try:
            from scipy.io import loadmat
        except ImportError:
            raise ImportError(f"For '{self._owner}', reading .mat files needs SciPy: pip "
                              f"install scipy") from None
        f, size = _open_data(self._owner, path, target)
        with f:
            data = f.read(size)
        try:
            return np.asarray(loadmat(io.BytesIO(data))["obj_contour"])
        except (KeyError, ValueError, TypeError, NotImplementedError) as e:
            raise ValueError(f"For '{self._owner}', {path!r} is not an annotation .mat with "
                             f"'obj_contour': {e}") from None

    def _get_row(self, index):
        image, label, ann = self._entries[index]
        row = (self._image(*image, index),)
        if self.target_type != "annotation":
            row += (np.array(label, np.int64),)
        if ann is not None:
            row += (self._contour(*ann),)
        return row


class SBDataset(_ImageRowsDataset):
    """Semantic Boundaries Dataset: `<usage>.txt` lists ids ('all': train then val), images
    `img/<id>.jpg`, ground truth `cls/<id>.mat` (struct GTcls). Columns `image` and `task`:
    task 'Boundaries' gives the 20 class boundary maps uint8 (20, H, W), 'Segmentation' the
    class map uint8 (H, W). Needs SciPy."""

    _owner = "SBDataset"

    def __init__(self, dataset_dir, task="Boundaries", usage="all", num_samples=None,
                 num_parallel_workers=1, shuffle=None, decode=None, sampler=None,
                 num_shards=None, shard_id=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.task = check_one_of(task, ("Boundaries", "Segmentation"), "task", owner)
        self.usage = check_one_of(usage, ("train", "val", "train_noval", "all"), "usage", owner)
        self.decode = _check_decode(owner, bool(decode))
        rows = []
        for part in (["train", "val"] if self.usage == "all" else [self.usage]):
            listing = os.path.join(root, part + ".txt")
            for name in (x.strip() for x in _text_file(owner, root, listing).splitlines()):
                if name:
                    rows.append((_inside(owner, root, os.path.join(root, "img", name + ".jpg"),
                                         "image"),
                                 _inside(owner, root, os.path.join(root, "cls", name + ".mat"),
                                         "ground truth")))
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _columns(self):
        return ["image", "task"]

    def _truth(self, path, target):
        try:
            from scipy.io import loadmat
        except ImportError:
            raise ImportError(f"For '{self._owner}', reading .mat files needs SciPy: pip "
                              f"install scipy") from None
        f, size = _open_data(self._owner, path, target)
        with f:
            data = f.read(size)
        try:
            field = loadmat(io.BytesIO(data))["GTcls"][0][self.task][0]
            if self.task == "Segmentation":
                return np.ascontiguousarray(np.asarray(field, np.uint8))
            maps = [field[i][0].toarray() for i in range(20)]
            return np.stack(maps).astype(np.uint8)
        except (KeyError, IndexError, ValueError, TypeError, AttributeError,
                NotImplementedError) as e:
            raise ValueError(f"For '{self._owner}', {path!r} is not an SBD ground-truth .mat "
                             f"(GTcls with {self.task}): {type(e).__name__}: {e}") from None

    def _get_row(self, index):
        image, truth = self._entries[index]
        return self._image(*image, index), self._truth(*truth)


class Places365Dataset(_LabelledImages):
    """Places365: list files `places365_train_standard.txt`, `places365_train_challenge.txt`
    (`/a/airfield/00000001.jpg <label>`) and `places365_val.txt`, images under
    `data_{256,large}_{standard,challenge}/` and `val_{256,large}/` (`small` picks 256).
    Columns `image`, `label` uint32."""

    _owner = "Places365Dataset"

    def __init__(self, dataset_dir, usage=None, small=True, decode=False, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.usage = check_one_of("train-standard" if usage is None else usage,
                                  ("train-standard", "train-challenge", "val"), "usage", owner)
        self.small = check_bool(small, "small", owner)
        self.decode = _check_decode(owner, decode)
        size = "256" if self.small else "large"
        if self.usage == "val":
            listing, folder = "places365_val.txt", f"val_{size}"
        else:
            kind = self.usage.split("-")[1]
            listing, folder = f"places365_train_{kind}.txt", f"data_{size}_{kind}"
        rows = []
        path = os.path.join(root, listing)
        for n, line in enumerate(_text_file(owner, root, path).splitlines(), 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 2 or not parts[1].isdigit():
                raise ValueError(f"For '{owner}', line {n} of {path!r} must be '<image> <label>'")
            image = os.path.join(root, folder, *parts[0].strip("/").split("/"))
            rows.append(_inside(owner, root, image, "image") + (np.uint32(int(parts[1])),))
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)


_CITYSCAPES_TASKS = {"instance": "instanceIds.png", "semantic": "labelIds.png",
                     "color": "color.png", "polygon": "polygons.json"}


class CityscapesDataset(_ImageRowsDataset):
    """Cityscapes: `leftImg8bit/<usage>/<city>/<name>_leftImg8bit.png` with its ground truth
    `gtFine/...` (`quality_mode` 'fine') or `gtCoarse/...` ('coarse'): `<name>_gt*_instanceIds`,
    `_labelIds`, `_color` PNGs or `_polygons.json` (task 'instance', 'semantic', 'color',
    'polygon'). usage 'train', 'val', 'test' (fine) or 'train_extra' (coarse), or 'all' (in
    that order). Columns `image`, `task` (bytes or decoded; polygons as compact JSON text)."""

    _owner = "CityscapesDataset"

    def __init__(self, dataset_dir, usage="train", quality_mode="fine", task="instance",
                 num_samples=None, num_parallel_workers=None, shuffle=None, decode=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.quality_mode = check_one_of(quality_mode, ("fine", "coarse"), "quality_mode", owner)
        splits = (["train", "test", "val"] if self.quality_mode == "fine"
                  else ["train", "train_extra", "val"])
        self.usage = check_one_of(usage, splits + ["all"], "usage", owner)
        self.task = check_one_of(task, tuple(_CITYSCAPES_TASKS), "task", owner)
        self.decode = _check_decode(owner, bool(decode))
        gt = "gtFine" if self.quality_mode == "fine" else "gtCoarse"
        rows = []
        for part in (splits if self.usage == "all" else [self.usage]):
            for path, target in _files_below(owner, root, os.path.join(root, "leftImg8bit",
                                                                       part), (".png",)):
                name = os.path.basename(path)
                if not name.endswith("_leftImg8bit.png"):
                    continue
                city = os.path.basename(os.path.dirname(path))
                truth = os.path.join(root, gt, part, city, name[:-len("leftImg8bit.png")]
                                     + f"{gt}_{_CITYSCAPES_TASKS[self.task]}")
                rows.append(((path, target), _inside(owner, root, truth, "ground truth")))
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _columns(self):
        return ["image", "task"]

    def _get_row(self, index):
        image, truth = self._entries[index]
        if self.task != "polygon":
            return self._image(*image, index), self._image(*truth, index)
        text = _text_file(self._owner, os.path.dirname(truth[1]), truth[1])
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"For '{self._owner}', {truth[0]!r} is not valid JSON: {e}") \
                from None
        compact = json.dumps(doc, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        return self._image(*image, index), np.array(compact)


class LSUNDataset(_LabelledImages):
    """LSUN scenes as image folders `<class>_train/`, `<class>_val/` and `test/`. usage 'train',
    'valid', 'test' or 'all' (train and valid); `classes` (a list) selects classes (default:
    every class found). `label` uint32 is the index of the image's folder among the selected
    folders in name order, as MindSpore numbers them."""

    _owner = "LSUNDataset"

    def __init__(self, dataset_dir, usage=None, classes=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.usage = check_one_of("all" if usage is None else usage,
                                  ("train", "valid", "test", "all"), "usage", owner)
        self.decode = _check_decode(owner, decode)
        names = [e.name for e in _list(owner, root) if e.is_dir(follow_symlinks=False)]
        if classes is None:
            classes = sorted({n.rsplit("_", 1)[0] for n in names
                              if n.endswith(("_train", "_val"))})
        else:
            check_type(classes, list, "classes", owner, "a list of str")
            for c in classes:
                check_type(c, str, "classes", owner)
        self.classes = list(classes)
        if self.usage == "test":
            folders = ["test"]
        else:
            suffixes = {"train": ["train"], "valid": ["val"], "all": ["train", "val"]}[self.usage]
            folders = sorted(f"{c}_{s}" for c in self.classes for s in suffixes)
        rows = []
        for label, folder in enumerate(folders):
            for path, target in _files_below(owner, root, os.path.join(root, folder)):
                rows.append((path, target, np.uint32(label)))
        self._entries = _label_rows(owner, rows, "images")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)


_LFW_FOLDERS = {"original": "lfw", "funneled": "lfw_funneled", "deepfunneled": "lfw-deepfunneled"}


class LFWDataset(_ImageRowsDataset):
    """Labeled Faces in the Wild: `lfw/`, `lfw_funneled/` or `lfw-deepfunneled/` (`image_set`
    'original', 'funneled' (default), 'deepfunneled') of `<name>/<name>_<k>.jpg`, with the
    split lists. task 'people': columns `image`, `label` uint32 (the person's line in
    `lfw-names.txt`), rows from `peopleDevTrain.txt` / `peopleDevTest.txt` (usage 'train',
    'test', 'all') or the folds of `people.txt` ('10fold'); task 'pairs': columns `image1`,
    `image2`, `label` uint32 (1: same person), from `pairsDevTrain.txt` / `pairsDevTest.txt` /
    `pairs.txt`."""

    _owner = "LFWDataset"

    def __init__(self, dataset_dir, task=None, usage=None, image_set=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        owner = self._owner
        self.dataset_dir, root = _check_dir(owner, dataset_dir)
        self.task = check_one_of("people" if task is None else task, ("people", "pairs"),
                                 "task", owner)
        self.usage = check_one_of("all" if usage is None else usage,
                                  ("10fold", "train", "test", "all"), "usage", owner)
        self.image_set = check_one_of("funneled" if image_set is None else image_set,
                                      tuple(_LFW_FOLDERS), "image_set", owner)
        self.decode = _check_decode(owner, decode)
        self._root, self._folder = root, os.path.join(root, _LFW_FOLDERS[self.image_set])
        stem = "people" if self.task == "people" else "pairs"
        lists = {"train": [f"{stem}DevTrain.txt"], "test": [f"{stem}DevTest.txt"],
                 "all": [f"{stem}DevTrain.txt", f"{stem}DevTest.txt"],
                 "10fold": [f"{stem}.txt"]}[self.usage]
        rows = []
        if self.task == "people":
            names = [line.split()[0] for line in _text_file(owner, root, os.path.join(
                root, "lfw-names.txt")).splitlines() if line.strip()]
            index = {n: k for k, n in enumerate(names)}
            for listing in lists:
                for name, count in self._people(os.path.join(root, listing)):
                    if name not in index:
                        raise ValueError(f"For '{owner}', {name!r} of {listing!r} is not in "
                                         f"lfw-names.txt")
                    for k in range(1, count + 1):
                        rows.append((self._face(name, k), np.uint32(index[name])))
        else:
            for listing in lists:
                for a, i, b, j, same in self._pairs(os.path.join(root, listing)):
                    rows.append((self._face(a, i), self._face(b, j), np.uint32(same)))
        self._entries = _label_rows(owner, rows, "faces")
        self._setup(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _face(self, name, k):
        return _inside(self._owner, self._root, os.path.join(self._folder, name,
                                                             f"{name}_{k:04d}.jpg"), "image")

    def _lines(self, path):
        return [line.split() for line in _text_file(self._owner, self._root, path).splitlines()
                if line.strip()]

    def _people(self, path):
        lines = self._lines(path)
        try:
            if self.usage == "10fold":
                out, at = [], 1
                for _ in range(int(lines[0][0])):
                    n = int(lines[at][0])
                    out += [(p[0], int(p[1])) for p in lines[at + 1:at + 1 + n]]
                    at += 1 + n
                return out
            return [(p[0], int(p[1])) for p in lines[1:1 + int(lines[0][0])]]
        except (IndexError, ValueError):
            raise ValueError(f"For '{self._owner}', {path!r} is not a list of "
                             f"'<name> <count>' lines with their counts") from None

    def _pairs(self, path):
        lines = self._lines(path)
        try:
            folds, n = (int(lines[0][0]), int(lines[0][1])) if self.usage == "10fold" \
                else (1, int(lines[0][0]))
            out = []
            for f in range(folds):
                block = lines[1 + 2 * n * f:1 + 2 * n * (f + 1)]
                out += [(p[0], int(p[1]), p[0], int(p[2]), 1) for p in block[:n]]
                out += [(p[0], int(p[1]), p[2], int(p[3]), 0) for p in block[n:2 * n]]
            return out
        except (IndexError, ValueError):
            raise ValueError(f"For '{self._owner}', {path!r} is not a pairs list (a count, "
                             f"then matched and mismatched pairs)") from None

    def _columns(self):
        return ["image", "label"] if self.task == "people" else ["image1", "image2", "label"]

    def _get_row(self, index):
        entry = self._entries[index]
        return tuple(self._image(*e, index) for e in entry[:-1]) + (np.array(entry[-1]),)
