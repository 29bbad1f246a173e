"""Make mindspore_vision.npz: inputs and outputs of MindSpore 2.10's vision transforms (Resize in
every supported mode and size, Normalize, Rescale, ToTensor, CenterCrop, Pad), for
tests/dataset/test_vision.py to compare minispore against. Run once in a separate venv with real
MindSpore (`pip install mindspore "numpy<2"`): python make_mindspore_vision.py"""
import os

import numpy as np
from mindspore.dataset import vision

rng = np.random.default_rng(0)
data = {}
img = rng.integers(0, 256, (7, 9, 3), dtype=np.uint8)
gray = rng.integers(0, 256, (6, 5), dtype=np.uint8)
fimg = rng.standard_normal((7, 9, 3)).astype(np.float32) * 50
data["img"], data["gray"], data["fimg"] = img, gray, fimg

SIZES = [(3, 4), (14, 18), (5, 13), (10, 3), (7, 9), (1, 1), 4, 11]
MODES = {"nearest": vision.Inter.NEAREST, "bilinear": vision.Inter.BILINEAR,
         "bicubic": vision.Inter.BICUBIC}
for i, size in enumerate(SIZES):
    for mode, inter in MODES.items():
        data[f"resize_{i}_{mode}_u8"] = vision.Resize(size, inter)(img)
        data[f"resize_{i}_{mode}_f32"] = vision.Resize(size, inter)(fimg)
        data[f"resize_{i}_{mode}_gray"] = vision.Resize(size, inter)(gray)
data["normalize"] = vision.Normalize([10.0, 120.5, 250.0], [1.5, 60.0, 200.0])(img)
data["normalize_chw"] = vision.Normalize([10.0, 120.5, 250.0], [1.5, 60.0, 200.0],
                                         is_hwc=False)(img.transpose(2, 0, 1).copy())
data["rescale"] = vision.Rescale(1.0 / 255.0, -0.5)(img)
data["totensor"] = vision.ToTensor()(img)
data["centercrop_4x5"] = vision.CenterCrop((4, 5))(img)
data["centercrop_10x12"] = vision.CenterCrop((10, 12))(img)
data["pad_1234_edge"] = vision.Pad([1, 2, 3, 4], padding_mode=vision.Border.EDGE)(img)
data["pad_2_reflect"] = vision.Pad(2, padding_mode=vision.Border.REFLECT)(img)
data["pad_2_fill"] = vision.Pad([2, 1], fill_value=(7, 8, 9))(img)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_vision.npz")
np.savez_compressed(out, **data)
print(f"wrote {len(data)} arrays to {out}")
