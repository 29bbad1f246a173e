"""Write the small videos of test_vision_extra.py with PyAV (`pip install av`): raw RGB frames
(no colour conversion to differ on) and 16-bit PCM sound, in AVI; and a video-only MOV with PNG
frames. make_mindspore_vision_io.py then records what MindSpore reads from them."""
import fractions
import os

import av
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(9)


def write(name, codec, pix_fmt, frames, fps, audio=None):
    with av.open(os.path.join(HERE, name), "w") as out:
        video = out.add_stream(codec, rate=fps)
        video.width, video.height, video.pix_fmt = frames.shape[2], frames.shape[1], pix_fmt
        sound = None
        if audio is not None:
            sound = out.add_stream("pcm_s16le", rate=8000)
            sound.layout = "mono" if audio.shape[0] == 1 else "stereo"
        for f in frames:
            for packet in video.encode(av.VideoFrame.from_ndarray(f, format="rgb24")):
                out.mux(packet)
        for packet in video.encode():
            out.mux(packet)
        if sound is not None:
            frame = av.AudioFrame.from_ndarray(audio, format="s16p", layout=sound.layout.name)
            frame.sample_rate = 8000
            frame.time_base = fractions.Fraction(1, 8000)
            frame.pts = 0
            for packet in sound.encode(frame):
                out.mux(packet)
            for packet in sound.encode():
                out.mux(packet)


frames = rng.integers(0, 256, (4, 6, 8, 3), dtype=np.uint8)
audio = (rng.standard_normal((2, 800)) * 3000).astype(np.int16)
write("clip.avi", "rawvideo", "rgb24", frames, 5, audio)
write("clip.mov", "png", "rgb24", frames[:3], 10)
print("wrote clip.avi, clip.mov")
