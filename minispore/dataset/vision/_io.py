"""Image and file I/O of `mindspore.dataset.vision.utils`: read_file / write_file,
read_image, encode_png / encode_jpeg, write_png / write_jpeg, get_image_size /
get_image_num_channels. Encoding and decoding need Pillow (`pip install 'minispore[vision]'`);
encoded bytes are valid PNG / JPEG but not byte-identical to MindSpore's (another encoder)."""
import io
import os

import numpy as np

from ..._validator import check_int_range, check_type
from ...common import _files
from ._enums import ImageReadMode

__all__ = ["encode_jpeg", "encode_png", "get_image_num_channels", "get_image_size",
           "read_file", "read_image", "write_file", "write_jpeg", "write_png"]


def _pil(owner):
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f"For '{owner}', Pillow is needed: pip install 'minispore[vision]'") \
            from None
    return Image


def _path(owner, filename):
    return os.fspath(check_type(filename, (str, os.PathLike), "filename", owner,
                                "a str or path"))


def _array(owner, x, name="image"):
    if type(x).__module__.startswith("PIL."):
        return np.asarray(x)
    if hasattr(x, "asnumpy"):
        return x.asnumpy()
    return np.asarray(check_type(x, np.ndarray, name, owner, "a numpy.ndarray"))


def read_file(filename):
    """The bytes of a regular file as a 1-D uint8 array (at most 256 MiB)."""
    path = _path("read_file", filename)
    try:
        f, size = _files.open_regular(path, "read_file", max_size=_files.MAX_IMAGE_BYTES)
    except FileNotFoundError:
        raise ValueError(f"For 'read_file', the file {path!r} does not exist") from None
    with f:
        return np.frombuffer(f.read(size), np.uint8).copy()


def write_file(filename, data):
    """Write a 1-D uint8 array to `filename` (replaced if it exists)."""
    path = _path("write_file", filename)
    arr = _array("write_file", data, "data")
    if arr.dtype != np.uint8 or arr.ndim != 1:
        raise ValueError(f"For 'write_file', 'data' must be a 1-D uint8 array, but got dtype "
                         f"{arr.dtype} of shape {arr.shape}")
    with open(path, "wb") as f:
        f.write(arr.tobytes())


def _gray_of(img):
    """Grey (H, W, 1) as OpenCV's readers give it: a JPEG's luma plane as decoded, PNG through
    libpng's floor((9798 R + 19235 G + 3735 B) / 2**15), others through cvtColor (rounded)."""
    if img.format == "JPEG" and img.mode in ("RGB", "L", "YCbCr"):
        img.draft("L", img.size)
        return np.asarray(img.convert("L"))[..., None].copy()
    if img.mode in ("L", "I;16", "I", "1"):
        return np.asarray(img.convert("L"))[..., None].copy()
    rgb = np.asarray(img.convert("RGB")).astype(np.int64)
    acc = rgb[..., 0] * 9798 + rgb[..., 1] * 19235 + rgb[..., 2] * 3735
    if img.format != "PNG":
        acc = acc + (1 << 14)
    return (acc >> 15).astype(np.uint8)[..., None]


def read_image(filename, mode=ImageReadMode.UNCHANGED):
    """Decode an image file to HWC uint8: `ImageReadMode.UNCHANGED` (default: grey stays
    (H, W, 1), colour gives RGB, alpha dropped), `GRAYSCALE` ((H, W, 1)) or `COLOR` (RGB)."""
    if not isinstance(mode, ImageReadMode):
        raise TypeError(f"For 'read_image', 'mode' must be an ImageReadMode, but got "
                        f"{type(mode).__name__}")
    data = read_file(filename)
    image = _pil("read_image")
    try:
        with image.open(io.BytesIO(data.tobytes())) as img:
            gray = img.mode in ("L", "I;16", "I", "1", "LA")
            if mode == ImageReadMode.GRAYSCALE or (mode == ImageReadMode.UNCHANGED and gray):
                return _gray_of(img)
            return np.asarray(img.convert("RGB")).copy()
    except OSError as e:
        raise ValueError(f"For 'read_image', {filename!r} is not a decodable image: {e}") \
            from None


def _encodable(owner, image):
    arr = _array(owner, image)
    if arr.dtype != np.uint8:
        raise TypeError(f"For '{owner}', the image must be uint8, but got {arr.dtype}")
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[..., 0]
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] != 3):
        raise ValueError(f"For '{owner}', the image must be HW, HW1 or HWC with 3 channels, but "
                         f"got shape {arr.shape}")
    return arr


def _encode(owner, image, fmt, **options):
    arr = _encodable(owner, image)
    buf = io.BytesIO()
    _pil(owner).fromarray(np.ascontiguousarray(arr)).save(buf, format=fmt, **options)
    return np.frombuffer(buf.getvalue(), np.uint8).copy()


def encode_png(image, compression_level=6):
    """PNG bytes (1-D uint8 array) of an HW / HWC uint8 RGB image; `compression_level` 0..9."""
    level = check_int_range(compression_level, "compression_level", "encode_png", 0, 9)
    return _encode("encode_png", image, "PNG", compress_level=level)


def encode_jpeg(image, quality=75):
    """JPEG bytes (1-D uint8 array) of an HW / HWC uint8 RGB image; `quality` 1..100."""
    quality = check_int_range(quality, "quality", "encode_jpeg", 1, 100)
    return _encode("encode_jpeg", image, "JPEG", quality=quality)


def write_png(filename, image, compression_level=6):
    """Encode as PNG and write to `filename`."""
    path = _path("write_png", filename)
    write_file(path, encode_png(image, compression_level))


def write_jpeg(filename, image, quality=75):
    """Encode as JPEG and write to `filename`."""
    path = _path("write_jpeg", filename)
    write_file(path, encode_jpeg(image, quality))


def _shape(owner, image):
    if type(image).__module__.startswith("PIL."):
        return None
    arr = _array(owner, image)
    if arr.ndim not in (2, 3):
        raise ValueError(f"For '{owner}', the image must be HW or HWC, but got shape "
                         f"{arr.shape}")
    return arr.shape


def get_image_size(image):
    """[height, width] of an HW / HWC array or a PIL image."""
    shape = _shape("get_image_size", image)
    if shape is None:
        return [image.size[1], image.size[0]]
    return [int(shape[0]), int(shape[1])]


def get_image_num_channels(image):
    """Channels of an HWC array (1 for HW) or a PIL image."""
    shape = _shape("get_image_num_channels", image)
    if shape is None:
        return len(image.getbands())
    return 1 if len(shape) == 2 else int(shape[2])
