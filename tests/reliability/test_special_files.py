"""Special files in dataset folders (docs/reliability.md §7): FIFOs, sockets, symlinks to
/dev/zero and /dev/urandom, symlink loops, symlinks escaping the dataset folder through `..`,
directories named like data files and files over the size a reader accepts.

Every reader (ImageFolderDataset raw and decoding, MnistDataset, FashionMnistDataset,
Cifar10Dataset, Cifar100Dataset) meets every case in a child process of its own, with a
time limit (SIGALRM after TIME_LIMIT s) and an address-space limit (RLIMIT_AS, MEMORY_LIMIT):
a reader that blocks on a FIFO, or reads /dev/zero until memory runs out, is killed or hits a
MemoryError there instead of taking the test run down. The children are forked, all at once,
from one helper process that has imported minispore, so the whole file takes about a second.

The expected outcome is a ValueError naming the file, or, for what the readers document as
skipped (symlinked folders are never followed; a real folder named like an image is walked as a
folder), the dataset without it. Two cases swap the file for a FIFO or a link to /dev/zero after
the dataset has checked it: the read itself must refuse it (the opened descriptor is checked).
"""
import json
import os
import re
import socket
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

from tests.dataset.files import write_cifar10, write_mnist

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not hasattr(os, "fork"),
                                reason="POSIX special files and fork")

TIME_LIMIT = 20  # s, per case
MEMORY_LIMIT = 1 << 30  # bytes of address space, per case
IMAGE_CAP = 256 << 20  # the readers' caps (checked against minispore.common._files below)
DATA_CAP = 2 << 30

# The helper process: imports minispore once, then forks one limited child per case and reports
# each child's outcome (rows read, the exception raised, or the signal that killed it).
_RUNNER = r"""
import json, os, resource, signal, sys, tempfile, time
import minispore.dataset as ds

specs, time_limit, memory_limit = json.load(sys.stdin)
out_dir = tempfile.mkdtemp(prefix="special-files-")
pids = {}
for spec in specs:
    pid = os.fork()
    if pid == 0:
        result = {}
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
            signal.alarm(time_limit)
            d = getattr(ds, spec["reader"])(spec["root"], **spec["kwargs"])
            if spec["swap"]:  # the file is replaced after the dataset has checked it
                path, to = spec["swap"]
                os.remove(path)
                os.mkfifo(path) if to == "fifo" else os.symlink(to, path)
            n = sum(1 for _ in d.create_tuple_iterator(output_numpy=True, num_epochs=1))
            result = {"outcome": "rows", "n": n}
            if spec["reader"] == "ImageFolderDataset":  # the reader with class folders
                result["classes"] = sorted(d.get_class_indexing())
        except BaseException as e:
            result = {"outcome": "raised", "type": type(e).__name__, "msg": str(e)[:4000]}
        with open(os.path.join(out_dir, spec["id"]), "w") as f:
            json.dump(result, f)
        os._exit(0)
    pids[pid] = spec["id"]
results, deadline = {}, time.monotonic() + time_limit + 10
while pids:
    pid, status = os.waitpid(-1, os.WNOHANG)
    if pid == 0:
        if time.monotonic() > deadline:
            for p in pids:
                os.kill(p, signal.SIGKILL)
            deadline = float("inf")
        time.sleep(0.01)
        continue
    case = pids.pop(pid)
    path = os.path.join(out_dir, case)
    if os.path.exists(path):
        with open(path) as f:
            results[case] = json.load(f)
    else:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        results[case] = {"outcome": "killed", "signal": sig, "status": status}
json.dump(results, sys.stdout)
"""


def _png(color, h=4, w=5):
    """A small, valid RGB PNG (written here: the raw-bytes cases need no Pillow)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + bytes([color]) * (3 * w) for _ in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _write_cifar100(root, n=3):
    rng = np.random.default_rng(0)
    labels = np.stack([rng.integers(0, 20, n), rng.integers(0, 100, n)], 1).astype(np.uint8)
    images = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
    (root / "train.bin").write_bytes(np.concatenate([labels, images], 1).tobytes())


# reader -> (dataset class, kwargs, data file that the case replaces, writer of a good folder)
def _image_folder(root):
    os.makedirs(root / "cat")
    (root / "cat" / "good.png").write_bytes(_png(10))
    (root / "cat" / "bad.png").write_bytes(_png(200))


READERS = {
    "folder": ("ImageFolderDataset", {"extensions": [".png"], "shuffle": False},
               "cat/bad.png", _image_folder),
    "folder_decode": ("ImageFolderDataset", {"extensions": [".png"], "decode": True,
                                             "shuffle": False}, "cat/bad.png", _image_folder),
    "mnist": ("MnistDataset", {"usage": "train"}, "train-images-idx3-ubyte",
              lambda root: write_mnist(root, n_train=6, n_test=None)),
    "fashion": ("FashionMnistDataset", {"usage": "train"}, "train-labels-idx1-ubyte",
                lambda root: write_mnist(root, n_train=6, n_test=None)),
    "cifar10": ("Cifar10Dataset", {"usage": "train"}, "data_batch_1.bin", write_cifar10),
    "cifar100": ("Cifar100Dataset", {"usage": "train"}, "train.bin", _write_cifar100),
}
GOOD_ROWS = {"folder": 2, "folder_decode": 2, "mnist": 6, "fashion": 6, "cifar10": 7,
             "cifar100": 3}


def _oversize(reader, path):
    """A sparse file just over what the reader accepts (with a header that matches its size)."""
    if reader.startswith("folder"):
        size = IMAGE_CAP + 1
    elif reader == "mnist":  # an images file: 16-byte header, then count x 1000 x 1000 pixels
        count = DATA_CAP // 10**6 + 1
        path.write_bytes(struct.pack(">IIII", 0x803, count, 1000, 1000))
        size = 16 + count * 10**6
        (path.parent / "train-labels-idx1-ubyte").write_bytes(
            struct.pack(">II", 0x801, count) + bytes(count))
    elif reader == "fashion":  # a labels file: 8-byte header, then count bytes
        count = DATA_CAP + 1
        path.write_bytes(struct.pack(">II", 0x801, count))
        size = 8 + count
    else:
        rec = 3073 if reader == "cifar10" else 3074
        size = (DATA_CAP // rec + 1) * rec
    with open(path, "ab") as f:
        f.truncate(size)


def _make(kind, reader, root, path, outside):
    """Turn the reader's data file `path` (in folder `root`) into the hostile case `kind`."""
    good = path.read_bytes()
    (outside / path.name).write_bytes(good)  # a good file, but outside the dataset folder
    os.remove(path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(path))
        except OSError as e:
            pytest.skip(f"cannot bind a unix socket at {path}: {e}")
        finally:
            sock.close()
    elif kind == "link_dev_zero":
        os.symlink("/dev/zero", path)
    elif kind == "link_dev_urandom":
        os.symlink("/dev/urandom", path)
    elif kind == "link_to_fifo":  # a link inside the folder, to a FIFO the reader does not list
        os.mkfifo(path.parent / "pipe")
        os.symlink("pipe", path)
    elif kind == "link_loop":
        os.symlink(path.name, path)
    elif kind == "link_loop2":
        os.symlink("other", path)
        os.symlink(path.name, path.parent / "other")
    elif kind == "link_dotdot":  # relative, through `..`, to a good file outside the folder
        os.symlink(os.path.relpath(outside / path.name, path.parent), path)
    elif kind == "link_inside":  # control: a link that stays inside the folder is read
        os.makedirs(path.parent / "store")  # (not a data file's name for any reader)
        (path.parent / "store" / "blob").write_bytes(good)
        os.symlink(os.path.join("store", "blob"), path)
    elif kind == "directory":
        os.mkdir(path)
    elif kind == "oversize":
        _oversize(reader, path)
    elif kind in SWAPS:
        path.write_bytes(good)  # good when the dataset is built; swapped in the child
    else:
        raise AssertionError(kind)


def _make_folder_only(kind, root, outside):
    """Folder-walking cases of ImageFolderDataset."""
    if kind == "dir_loop":  # links to folders above: never followed, so no loop
        os.symlink("..", root / "cat" / "up")
        os.symlink(".", root / "cat" / "self")
        os.symlink(".", root / "again")  # a class folder that is the root itself
    elif kind == "dir_escape":  # links to a folder of good images outside the root
        os.makedirs(outside / "imgs")
        (outside / "imgs" / "x.png").write_bytes((root / "cat" / "good.png").read_bytes())
        os.symlink(os.path.relpath(outside / "imgs", root), root / "evil")
        os.symlink(os.path.relpath(outside / "imgs", root / "cat"), root / "cat" / "sub")
    else:
        raise AssertionError(kind)


NOT_REGULAR = r"is not a regular file: it is "
OUTSIDE = r"is a symbolic link to .*, outside the dataset folder"
NO_TARGET = r"is a symbolic link that does not resolve \(dangling, or a loop\)"
# kind -> expected: a regex that a ValueError naming the file must match, or a row count.
KINDS = {
    "fifo": NOT_REGULAR + "a FIFO",
    "socket": NOT_REGULAR + "a socket",
    "link_dev_zero": "'/dev/zero'.*outside the dataset folder",
    "link_dev_urandom": "'/dev/urandom'.*outside the dataset folder",
    "link_to_fifo": NOT_REGULAR + "a FIFO",
    "link_loop": NO_TARGET,
    "link_loop2": NO_TARGET,
    "link_dotdot": OUTSIDE,
    "link_inside": "good",
    "directory": "is not a regular file: it is a directory",
    "oversize": r"has \d+ bytes, more than the \d+ bytes",
    "fifo_after_build": NOT_REGULAR + "a FIFO",
    "link_after_build": NOT_REGULAR + "a symbolic link",
}
# kind -> what the data file becomes after the dataset is built (before it is read)
SWAPS = {"fifo_after_build": "fifo", "link_after_build": "/dev/zero"}
FOLDER_KINDS = {"dir_loop": 1, "dir_escape": 1}

CASES = [(r, k) for r in READERS for k in KINDS] + [(r, k) for r in ("folder", "folder_decode")
                                                     for k in FOLDER_KINDS]


def _expected(reader, kind):
    if kind in FOLDER_KINDS:
        return FOLDER_KINDS[kind]
    if kind == "link_inside":
        return GOOD_ROWS[reader]
    if kind == "directory" and reader.startswith("folder"):
        return GOOD_ROWS[reader] - 1  # a folder named like an image is walked as a folder
    return KINDS[kind]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    base = tmp_path_factory.mktemp("special")
    specs = []
    for reader, kind in CASES:
        cls, kwargs, name, write = READERS[reader]
        case = f"{reader}-{kind}"
        root, outside = base / case / "root", base / case / "outside"
        os.makedirs(root)
        os.makedirs(outside)
        write(root)
        if kind in FOLDER_KINDS:
            os.remove(root / name)
            _make_folder_only(kind, root, outside)
        else:
            _make(kind, reader, root, root / name, outside)
        swap = [str(root / name), SWAPS[kind]] if kind in SWAPS else None
        specs.append({"id": case, "reader": cls, "root": str(root), "kwargs": kwargs,
                      "swap": swap})
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MALLOC_ARENA_MAX="2")
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", _RUNNER], check=False, input=json.dumps(
        [specs, TIME_LIMIT, MEMORY_LIMIT]), capture_output=True, text=True, cwd=repo, env=env,
        timeout=TIME_LIMIT + 60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize("reader, kind", CASES, ids=[f"{r}-{k}" for r, k in CASES])
def test_special_file(outcomes, reader, kind):
    if READERS[reader][1].get("decode"):
        pytest.importorskip("PIL")
    got = outcomes[f"{reader}-{kind}"]
    assert got["outcome"] != "killed", (
        f"the reader was killed (signal {got['signal']}: 14 is the {TIME_LIMIT} s alarm, i.e. "
        f"it hung)")
    want = _expected(reader, kind)
    if isinstance(want, int):
        assert got == {"outcome": "rows", "n": want, **(
            {"classes": ["cat"]} if reader.startswith("folder") else {})}
        return
    assert got["outcome"] == "raised" and got["type"] == "ValueError", got
    assert re.search(want, got["msg"]), got["msg"]
    name = READERS[reader][2].rpartition("/")[2]
    assert name in got["msg"], got["msg"]


# ---- the shared opener, in this process --------------------------------------------------------

def test_caps():
    from minispore.common import _files
    assert (_files.MAX_IMAGE_BYTES, _files.MAX_DATA_FILE_BYTES) == (IMAGE_CAP, DATA_CAP)


def test_open_regular_refuses_without_opening_or_waiting(tmp_path):
    from minispore.common import _files
    os.mkfifo(tmp_path / "fifo")  # opening it for reading must not wait for a writer
    with pytest.raises(ValueError, match="'f'.*fifo.*is not a regular file: it is a FIFO"):
        _files.open_regular(str(tmp_path / "fifo"), "f")
    with pytest.raises(ValueError, match="is not a regular file: it is a directory"):
        _files.open_regular(str(tmp_path), "f")
    if os.path.exists("/dev/zero"):
        with pytest.raises(ValueError, match="it is a character device"):
            _files.open_regular("/dev/zero", "f")


def test_open_regular_links_and_sizes(tmp_path):
    from minispore.common import _files
    (tmp_path / "a").write_bytes(b"12345")
    os.symlink("a", tmp_path / "link")
    f, size = _files.open_regular(str(tmp_path / "link"), "f")
    with f:
        assert (size, f.read()) == (5, b"12345")
    with pytest.raises(ValueError, match="it is a symbolic link"):
        _files.open_regular(str(tmp_path / "link"), "f", follow_symlinks=False)
    with pytest.raises(ValueError, match="has 5 bytes, more than the 4 bytes"):
        _files.open_regular(str(tmp_path / "a"), "f", max_size=4)

    class Custom(ValueError):
        pass

    with pytest.raises(Custom, match="'g'.* as shown"):
        _files.open_regular(str(tmp_path), "g", error=Custom, label="as shown")


def test_inside(tmp_path):
    from minispore.common import _files
    root = tmp_path / "root"
    os.makedirs(root / "d")
    (tmp_path / "out").write_bytes(b"x")
    (root / "d" / "in").write_bytes(b"x")
    os.symlink("../../out", root / "d" / "up")
    os.symlink("in", root / "d" / "ok")
    real_root = os.path.realpath(root)
    entry = os.path.join(real_root, "d", "in")
    assert _files.resolve_inside(real_root, entry, "f") == entry
    assert _files.resolve_inside(real_root, os.path.join(real_root, "d", "ok"), "f") == entry
    with pytest.raises(ValueError, match="'f'.* is a symbolic link to .*out', outside the "
                                         "dataset folder"):
        _files.resolve_inside(real_root, os.path.join(real_root, "d", "up"), "f")


def test_decode_takes_bytes_never_a_path(tmp_path):
    from minispore.dataset import vision
    os.mkfifo(tmp_path / "x.png")
    with pytest.raises(TypeError, match="encoded bytes"):
        vision.Decode()(str(tmp_path / "x.png"))
