"""Video reading of `mindspore.dataset.vision`: read_video, read_video_timestamps, DecodeVideo
and VideoDecoder, through PyAV (FFmpeg; `pip install av`, the `video` extra). Frames come out
as RGB uint8 (T, H, W, C); sound as (channels, samples) in the stream's sample type."""
import fractions
import io
import os

import numpy as np

from ..._validator import check_one_of, check_type
from ...common import _files
from ..transforms.transforms import TensorOperation, _to_array

__all__ = ["DecodeVideo", "VideoDecoder", "read_video", "read_video_timestamps"]

_END = 2147483647.0


def _av(owner):
    try:
        import av
    except ImportError:
        raise ImportError(f"For '{owner}', reading video needs PyAV: pip install "
                          f"'minispore[video]' (or av)") from None
    return av


def _open(owner, source):
    """A PyAV container of a path (a regular file) or of bytes."""
    av = _av(owner)
    if isinstance(source, (bytes, bytearray)):
        data = io.BytesIO(bytes(source))
        where = "the input"
    else:
        try:
            f, size = _files.open_regular(source, owner, max_size=_files.MAX_DATA_FILE_BYTES,
                                          what="a video file")
        except FileNotFoundError:
            raise ValueError(f"For '{owner}', the file {source!r} does not exist") from None
        with f:
            data = io.BytesIO(f.read(size))
        where = repr(source)
    try:
        return av.open(data)
    except (av.error.FFmpegError, ValueError) as e:
        raise ValueError(f"For '{owner}', {where} is not a readable video: {e}") from None


def _seconds(pts, time_base):
    """pts in seconds as MindSpore gives them (the time base as float32)."""
    return pts * float(np.float32(time_base))


def _audio_array(frames):
    """(channels, samples) of decoded audio frames, in their sample type; float32 (1, 0) when
    there are none."""
    parts = []
    for frame in frames:
        arr = frame.to_ndarray()
        channels = len(frame.layout.channels)
        if not frame.format.is_planar:
            arr = arr.reshape(-1, channels).T
        parts.append(arr)
    if not parts:
        return np.zeros((1, 0), np.float32)
    return np.ascontiguousarray(np.concatenate(parts, axis=1))


def _decode(owner, container, start=0.0, end=_END, unit="pts"):
    """(video, audio, metadata) of a container, frames whose pts (or time) lie in
    [start, end]."""
    av = _av(owner)
    video_streams, audio_streams = container.streams.video, container.streams.audio
    meta, frames, sound = {}, [], []
    try:
        if video_streams:
            stream = video_streams[0]
            rate = stream.average_rate or stream.guessed_rate
            meta["video_fps"] = float(rate) if rate else 0.0
            for frame in container.decode(video=0):
                t = frame.pts if unit == "pts" else _seconds(frame.pts, stream.time_base)
                if t is not None and start <= t <= end:
                    frames.append(frame.to_ndarray(format="rgb24"))
        if audio_streams:
            stream = audio_streams[0]
            meta["audio_fps"] = int(stream.rate)
            window = None
            if (start, end) != (0.0, _END):
                scale = 1.0 if unit == "sec" or not video_streams else float(np.float32(
                    video_streams[0].time_base))
                window = (start * scale, end * scale)
            container.seek(0)
            for frame in container.decode(audio=0):
                t = _seconds(frame.pts or 0, frame.time_base or stream.time_base)
                if window is None or window[0] <= t <= window[1]:
                    sound.append(frame)
    except av.error.FFmpegError as e:
        raise ValueError(f"For '{owner}', the video cannot be decoded: {e}") from None
    finally:
        container.close()
    if frames:
        video = np.stack(frames)
    else:
        h = video_streams[0].codec_context.height if video_streams else 0
        w = video_streams[0].codec_context.width if video_streams else 0
        video = np.zeros((0, h, w, 3), np.uint8)
    return video, _audio_array(sound), meta


def _check_pts(start_pts, end_pts, pts_unit):
    for name, value in (("start_pts", start_pts), ("end_pts", end_pts)):
        if value is not None and (isinstance(value, bool) or not isinstance(
                value, (int, float, fractions.Fraction))):
            raise TypeError(f"For 'read_video', '{name}' must be an int, float or Fraction, but "
                            f"got {type(value).__name__}")
    if start_pts < 0:
        raise ValueError(f"For 'read_video', 'start_pts' must be >= 0, but got {start_pts}")
    end_pts = _END if end_pts is None else end_pts
    if end_pts < start_pts:
        raise ValueError(f"For 'read_video', 'end_pts' {end_pts} must be >= 'start_pts' "
                         f"{start_pts}")
    check_type(pts_unit, str, "pts_unit", "read_video")
    return float(start_pts), float(end_pts), check_one_of(pts_unit, ("pts", "sec"), "pts_unit",
                                                          "read_video")


def _path(owner, filename):
    filename = check_type(filename, str, "filename", owner)
    if not os.path.exists(filename):
        raise ValueError(f"For '{owner}', the file {filename!r} does not exist")
    return filename


def read_video(filename, start_pts=0, end_pts=None, pts_unit="pts"):
    """(video uint8 (T, H, W, 3) RGB, audio (C, L), metadata {'video_fps', 'audio_fps'}) of a
    video file; frames with start_pts <= pts <= end_pts (in stream units, or seconds with
    pts_unit='sec')."""
    start, end, unit = _check_pts(start_pts, end_pts, pts_unit)
    path = _path("read_video", filename)
    return _decode("read_video", _open("read_video", path), start, end, unit)


def read_video_timestamps(filename, pts_unit="pts"):
    """(frame timestamps, video fps) of a video file; timestamps in stream units, or seconds
    with pts_unit='sec'; ([], None) without frames."""
    check_type(pts_unit, str, "pts_unit", "read_video_timestamps")
    check_one_of(pts_unit, ("pts", "sec"), "pts_unit", "read_video_timestamps")
    path = _path("read_video_timestamps", filename)
    container = _open("read_video_timestamps", path)
    try:
        if not container.streams.video:
            return [], None
        stream = container.streams.video[0]
        pts = [int(p.pts) for p in container.demux(stream) if p.pts is not None]
        rate = stream.average_rate or stream.guessed_rate
        time_base = stream.time_base  # PyAV >= 18 refuses stream attributes once closed
    finally:
        container.close()
    pts.sort()
    if not pts:
        return [], None
    fps = float(rate) if rate else None
    if pts_unit == "pts":
        return pts, fps
    return [_seconds(p, time_base) for p in pts], fps


class DecodeVideo(TensorOperation):
    """Decode a video file's bytes (a 1-D uint8 array) to (video (T, H, W, 3) uint8 RGB,
    audio (C, L))."""

    def __call__(self, video):
        arr = _to_array("DecodeVideo", video, "video")
        if arr.dtype != np.uint8 or arr.ndim != 1:
            raise TypeError(f"For 'DecodeVideo', the input must be the file's bytes as a 1-D "
                            f"uint8 array, but got dtype {arr.dtype} of shape {arr.shape}")
        video, audio, _ = _decode("DecodeVideo", _open("DecodeVideo", arr.tobytes()))
        return video, audio


class VideoDecoder:
    """Frames of one video file by index: `metadata` (width, height, duration_seconds,
    num_frames, average_fps) and `get_frames_at(indices)` (uint8 (T, H, W, 3) RGB). MindSpore
    decodes on Ascend only; here on CPU through PyAV."""

    def __init__(self, source):
        self.source = _path("VideoDecoder", source)
        self._frames = None
        self._metadata = self.metadata

    @property
    def metadata(self):
        """{'width', 'height', 'duration_seconds', 'num_frames', 'average_fps'}."""
        container = _open("VideoDecoder", self.source)
        try:
            if not container.streams.video:
                raise ValueError(f"For 'VideoDecoder', {self.source!r} has no video stream")
            stream = container.streams.video[0]
            count = sum(1 for p in container.demux(stream) if p.size)
            rate = float(stream.average_rate or stream.guessed_rate or 0)
            duration = (float(stream.duration * stream.time_base) if stream.duration
                        else (count / rate if rate else 0.0))
            return {"width": stream.codec_context.width, "height": stream.codec_context.height,
                    "duration_seconds": duration, "num_frames": count, "average_fps": rate}
        finally:
            container.close()

    def get_frames_at(self, indices):
        """The frames at `indices` (a list of ints in [0, num_frames))."""
        check_type(indices, list, "indices", "VideoDecoder.get_frames_at")
        for i in indices:
            check_type(i, int, "indices", "VideoDecoder.get_frames_at")
        if self._frames is None:
            self._frames = _decode("VideoDecoder", _open("VideoDecoder", self.source))[0]
        n = len(self._frames)
        bad = [i for i in indices if not 0 <= i < n]
        if bad:
            raise ValueError(f"For 'VideoDecoder.get_frames_at', indices {bad} are not in "
                             f"[0, {n})")
        if not indices:
            return np.empty((0,) + self._frames.shape[1:], np.uint8)
        return self._frames[indices]
