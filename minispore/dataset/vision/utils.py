"""`mindspore.dataset.vision.utils`: the enums of the transforms' modes, and image and file
I/O (reading, writing, encoding; image size and channels)."""
from . import _enums, _io
from ._enums import *
from ._io import *
from ._video import VideoDecoder, read_video, read_video_timestamps

__all__ = _enums.__all__ + _io.__all__ + ["VideoDecoder", "read_video", "read_video_timestamps"]
