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
import os
import re
import stat
import struct
import threading

import numpy as np

from .._validator import check_bool, check_int, check_one_of, check_sequence, check_type
from ..common import _files
from ._base import MappableDataset, check_workers
from .samplers import select_sampler

__all__ = ["Cifar10Dataset", "Cifar100Dataset", "FashionMnistDataset", "ImageFolderDataset",
           "MnistDataset"]


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


def _idx_header(owner, root, path, magic, ndim):
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
        raise ValueError(f"For '{owner}', {path!r} is not an IDX {ndim}-d ubyte file: magic "
                         f"number {got:#010x}, expected {magic:#010x}")
    dims = struct.unpack(f">{ndim}I", head[4:])
    if ndim == 3 and (dims[1] == 0 or dims[2] == 0):
        raise ValueError(f"For '{owner}', {path!r} declares images of {dims[1]}x{dims[2]} pixels")
    need = head_len + int(np.prod(dims, dtype=object))  # Python ints: no overflow
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
