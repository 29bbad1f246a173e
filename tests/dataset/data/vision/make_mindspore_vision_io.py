"""Make the I/O fixtures of test_vision_extra.py with real MindSpore 2.10 (a separate venv:
`pip install mindspore "numpy<2"`; run from a scratch folder, MindSpore writes logs into the
working directory): PNG and JPEG files written by `vision.write_png` / `write_jpeg`, and
mindspore_vision_io.npz with the image they hold, what `read_image` returns in each mode and
the bytes of `encode_png` / `encode_jpeg`."""
import os

import numpy as np
from mindspore.dataset import vision

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(5)
img = rng.integers(0, 256, (9, 13, 3), dtype=np.uint8)
gray = rng.integers(0, 256, (7, 6), dtype=np.uint8)
vision.write_png(os.path.join(HERE, "ms_rgb.png"), img)
vision.write_png(os.path.join(HERE, "ms_gray.png"), gray[..., None], compression_level=9)
vision.write_jpeg(os.path.join(HERE, "ms_rgb.jpg"), img, quality=90)
out = {"img": img, "gray": gray,
       "encode_png": vision.encode_png(img), "encode_jpeg": vision.encode_jpeg(img, 80),
       "read_file": vision.read_file(os.path.join(HERE, "ms_gray.png"))}
for name in ("ms_rgb.png", "ms_gray.png", "ms_rgb.jpg"):
    for mode in vision.ImageReadMode:
        key = f"read_{name.replace('.', '_')}_{mode.name}"
        out[key] = vision.read_image(os.path.join(HERE, name), mode)
for name in ("clip.avi", "clip.mov"):
    key = name.replace(".", "_")
    path = os.path.join(HERE, name)
    video, audio, meta = vision.read_video(path)
    out[f"{key}_video"], out[f"{key}_audio"] = video, audio
    out[f"{key}_meta"] = np.array(sorted(meta.items()), dtype=object).astype(str)
    pts, fps = vision.read_video_timestamps(path)
    out[f"{key}_pts"], out[f"{key}_fps"] = np.array(pts), np.array(fps)
    secs, _ = vision.read_video_timestamps(path, "sec")
    out[f"{key}_secs"] = np.array([float(s) for s in secs])
    part = vision.read_video(path, 1, 2)[0]
    out[f"{key}_video_1_2"] = part
    out[f"{key}_video_sec"] = vision.read_video(path, 0.15, 0.45, "sec")[0]
    v2, a2 = vision.DecodeVideo()(np.fromfile(path, np.uint8))
    out[f"{key}_decode_video"], out[f"{key}_decode_audio"] = v2, a2
np.savez_compressed(os.path.join(HERE, "mindspore_vision_io.npz"), **out)
print(sorted((k, v.shape) for k, v in out.items()))
