"""Opening files that come from elsewhere (dataset files, checkpoints): only a regular file is
ever read, nothing is ever waited on, and the size is known, and capped, before a byte is read.
Shared by the dataset readers and the checkpoint loader (train/_ckpt_format.py).

`open_regular` stats the path first, so a FIFO, device, socket or directory is refused without
being opened at all (opening some devices has effects of its own); then it opens the path with
O_NONBLOCK (a FIFO swapped in meanwhile cannot block the open) and checks the opened descriptor
with fstat: what is read is what was checked, whatever happens to the path in between.

`resolve_inside` confines a dataset folder's entries to that folder: a symbolic link is followed
only to a target inside it, never through a dangling link or a loop. The readers' policy for
folders (symbolic links to folders are never followed) is in datasets_vision.py.
"""
import errno
import os
import stat

__all__ = ["MAX_DATA_FILE_BYTES", "MAX_IMAGE_BYTES", "describe", "kind_of", "open_regular",
           "resolve_inside"]

# An encoded image larger than this is refused before it is read: Pillow's own decompression-
# bomb limit (about 179 million pixels) is reached by far smaller files of any real format.
MAX_IMAGE_BYTES = 256 << 20
# A data file (IDX, CIFAR binary) larger than this is refused before it is read; the largest
# real ones are a few hundred MiB (CIFAR-100's train.bin: 150 MiB; EMNIST's: 550 MiB).
MAX_DATA_FILE_BYTES = 2 << 30

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link, not followed here"))
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def kind_of(mode):
    """What a file of st_mode `mode` is, in words ("a FIFO (named pipe)", ...)."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a special file"


def describe(path, target):
    """How a message names the entry `path` that is opened as `target`."""
    return repr(path) if target == path else f"{path!r} (a symbolic link to {target!r})"


def open_regular(path, func, error=ValueError, *, follow_symlinks=True, max_size=None,
                 label=None, what="a file"):
    """(binary file, size) of the regular file at `path`.

    A directory, FIFO, device or socket (or, with follow_symlinks=False, a symbolic link) raises
    `error` naming the file, as does a size over `max_size` bytes (`what` says what the cap is
    for); nothing is read or waited on. `label` names the file in messages (default: its path).
    Other OSErrors (a missing file, no permission) propagate.
    """
    shown = repr(os.fspath(path)) if label is None else label

    def refuse(detail):
        return error(f"For '{func}', {shown} {detail}")

    try:
        info = os.stat(path, follow_symlinks=follow_symlinks)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise refuse("is a symbolic link that does not resolve (a loop)") from None
        raise
    if not stat.S_ISREG(info.st_mode):  # refused before it is opened
        raise refuse(f"is not a regular file: it is {kind_of(info.st_mode)}")
    flags = _FLAGS | (0 if follow_symlinks else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):  # swapped since the stat
            raise refuse("is not a regular file (it was replaced while being opened)") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise refuse(f"is not a regular file: it is {kind_of(info.st_mode)}")
        if max_size is not None and info.st_size > max_size:
            raise refuse(f"has {info.st_size} bytes, more than the {max_size} bytes "
                         f"({max_size / (1 << 20):g} MiB) accepted for {what}: it is not read")
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return f, info.st_size


def resolve_inside(root, path, func, error=ValueError):
    """The path to open for `path`, an entry of a real folder inside `root` (a fully resolved
    folder, as os.path.realpath gives): `path` itself, or, if it is a symbolic link, its fully
    resolved target, which must lie inside `root`. A link that does not resolve (dangling, or a
    loop) or resolves outside `root` (through `..`, an absolute path, /dev/zero...) raises
    `error` naming the link."""
    if not os.path.islink(path):
        return path
    try:
        real = os.path.realpath(path, strict=True)
    except OSError:
        raise error(f"For '{func}', {path!r} is a symbolic link that does not resolve "
                    f"(dangling, or a loop)") from None
    if os.path.commonpath([root, real]) != root:
        raise error(f"For '{func}', {path!r} is a symbolic link to {real!r}, outside the "
                    f"dataset folder {root!r}: it is not read")
    return real
