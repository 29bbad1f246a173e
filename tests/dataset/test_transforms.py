"""Transforms, eager and in a pipeline: outputs, dtypes and defaults as MindSpore 2.10 gives
them; vision ops compared with a fixture made by MindSpore (data/make_mindspore_vision.py)."""
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor
from minispore import dataset as ds
from minispore.dataset import transforms, vision

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_vision.npz"))
IMG = DATA["img"]


# ---- transforms -------------------------------------------------------------------------------

def test_typecast_mindspore_and_numpy_dtypes():
    out = transforms.TypeCast(ms.int32)(np.array([1.7, 2.2]))
    assert out.dtype == np.int32 and out.tolist() == [1, 2]
    assert transforms.TypeCast(np.float16)(np.array([1, 2])).dtype == np.float16
    assert transforms.TypeCast("int32")(np.array([1.5])).dtype == np.int32
    with pytest.raises(TypeError, match="TypeCast"):
        transforms.TypeCast("not a dtype")


def test_onehot():
    out = transforms.OneHot(5)(np.array(2))
    assert out.tolist() == [0, 0, 1, 0, 0] and out.dtype == np.int64
    out = transforms.OneHot(5)(np.array([1, 3], np.int32))
    assert out.dtype == np.int32 and out.shape == (2, 5)
    assert transforms.OneHot(5)(np.array(2, np.uint32)).dtype == np.uint32
    smooth = transforms.OneHot(3, smoothing_rate=0.1)(np.array(1))
    np.testing.assert_allclose(smooth, [0.1 / 3, 0.9 + 0.1 / 3, 0.1 / 3])
    assert smooth.dtype == np.float64
    with pytest.raises(ValueError, match="label 7 is outside"):
        transforms.OneHot(3)(np.array(7))
    with pytest.raises(ValueError, match="label -1"):  # MindSpore gives a zero row
        transforms.OneHot(3)(np.array(-1))
    with pytest.raises(TypeError, match="integers"):  # MindSpore crashes the process
        transforms.OneHot(3)(np.array(1.0))
    with pytest.raises(ValueError, match="num_classes"):
        transforms.OneHot(0)


def test_fill_duplicate_compose_random_apply_choice():
    out = transforms.Fill(3)(np.array([1.5, 2.5]))
    assert out.tolist() == [3.0, 3.0] and out.dtype == np.float64
    a, b = transforms.Duplicate()(np.array([1, 2]))
    assert a.tolist() == b.tolist() == [1, 2] and a is not b
    c = transforms.Compose([vision.Rescale(1 / 255.0, 0), vision.HWC2CHW()])(IMG)
    assert c.shape == (3, 7, 9) and c.dtype == np.float32
    assert transforms.Compose([transforms.Duplicate(), lambda x, y: x + y])(
        np.ones(2, np.uint8)).tolist() == [2, 2]
    assert transforms.RandomApply([lambda x: x + 1], prob=1.0)(np.array(1)) == 2
    assert transforms.RandomApply([lambda x: x + 1], prob=0.0)(np.array(1)) == 1
    assert transforms.RandomChoice([lambda x: x + 1, lambda x: x + 1])(np.array(1)) == 2
    with pytest.raises(TypeError, match="Compose"):
        transforms.Compose([])


# ---- vision: values against MindSpore ---------------------------------------------------------

SIZES = [(3, 4), (14, 18), (5, 13), (10, 3), (7, 9), (1, 1), 4, 11]
MODES = {"nearest": vision.Inter.NEAREST, "bilinear": vision.Inter.BILINEAR,
         "bicubic": vision.Inter.BICUBIC}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("index", range(len(SIZES)))
def test_resize_matches_mindspore(index, mode):
    size, inter = SIZES[index], MODES[mode]
    for kind, x in (("u8", IMG), ("f32", DATA["fimg"]), ("gray", DATA["gray"])):
        ref = DATA[f"resize_{index}_{mode}_{kind}"]
        got = vision.Resize(size, inter)(x)
        assert got.shape == ref.shape and got.dtype == ref.dtype
        if mode == "bicubic":  # OpenCV's cubic uses float32 and its own fixed point
            tol = 1 if kind != "f32" else 2e-4 * max(1.0, np.abs(ref).max())
            assert np.abs(got.astype(np.float64) - ref).max() <= tol
        else:  # bit for bit, uint8 fixed-point rounding included
            np.testing.assert_array_equal(got, ref)


def test_resize_defaults_and_int_size():
    assert vision.Resize((2, 2)).interpolation == vision.Inter.LINEAR == vision.Inter.BILINEAR
    shapes = [vision.Resize(s)(np.ones(shape + (3,), np.uint8)).shape for s, shape in
              ((3, (4, 7)), (3, (7, 4)), (5, (3, 7)), (4, (6, 9)))]
    assert shapes == [(3, 5, 3), (5, 3, 3), (5, 11, 3), (4, 6, 3)]
    assert vision.Resize((2, 2))(np.ones((4, 4, 3), np.float64)).dtype == np.float64
    with pytest.raises(ValueError, match="positive"):
        vision.Resize((0, 2))
    with pytest.raises(ValueError, match="HW or HWC"):
        vision.Resize((2, 2))(np.ones(4, np.uint8))


def test_normalize_rescale_totensor_match_mindspore():
    mean, std = [10.0, 120.5, 250.0], [1.5, 60.0, 200.0]
    np.testing.assert_allclose(vision.Normalize(mean, std)(IMG), DATA["normalize"], rtol=1e-6)
    chw = IMG.transpose(2, 0, 1).copy()
    np.testing.assert_allclose(vision.Normalize(mean, std, is_hwc=False)(chw),
                               DATA["normalize_chw"], rtol=1e-6)
    out = vision.Rescale(1.0 / 255.0, -0.5)(IMG)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, DATA["rescale"], atol=1e-7)
    out = vision.ToTensor()(IMG)
    assert out.dtype == np.float32 and out.shape == (3, 7, 9)
    np.testing.assert_allclose(out, DATA["totensor"], atol=1e-7)


def test_crop_and_pad_match_mindspore():
    np.testing.assert_array_equal(vision.CenterCrop((4, 5))(IMG), DATA["centercrop_4x5"])
    np.testing.assert_array_equal(vision.CenterCrop((10, 12))(IMG), DATA["centercrop_10x12"])
    np.testing.assert_array_equal(vision.Pad([1, 2, 3, 4], padding_mode=vision.Border.EDGE)(IMG),
                                  DATA["pad_1234_edge"])
    np.testing.assert_array_equal(vision.Pad(2, padding_mode=vision.Border.REFLECT)(IMG),
                                  DATA["pad_2_reflect"])
    np.testing.assert_array_equal(vision.Pad([2, 1], fill_value=(7, 8, 9))(IMG),
                                  DATA["pad_2_fill"])


# ---- vision: behaviour ------------------------------------------------------------------------

def test_dtype_and_layout_rules():
    assert vision.Rescale(2, 1)(np.array([1, 2], np.int32)).tolist() == [3.0, 5.0]
    assert vision.Normalize([0.5], [2.0])(np.ones((4, 4, 1), np.uint8)).dtype == np.float32
    assert vision.Normalize([1], [2])(np.ones((4, 4, 3), np.float32)).shape == (4, 4, 3)
    with pytest.raises(ValueError, match="2 channels.*3 values"):
        vision.Normalize([1, 2, 3], [2, 2, 2])(np.ones((4, 4, 2), np.float32))
    with pytest.raises(ValueError, match="std"):
        vision.Normalize([0.5], [0])
    out = vision.HWC2CHW()(IMG)
    assert out.shape == (3, 7, 9) and out.flags["C_CONTIGUOUS"] and out.dtype == np.uint8
    assert vision.HWC2CHW()(IMG[..., 0]).shape == (7, 9)
    with pytest.raises(ValueError, match="HWC2CHW"):
        vision.HWC2CHW()(np.ones((2, 2, 2, 2)))
    assert vision.ToTensor()(IMG[..., 0]).shape == (1, 7, 9)
    assert vision.ToTensor(np.float64)(IMG).dtype == np.float64


def test_random_crop_and_flips():
    img = np.arange(4 * 6 * 3, dtype=np.uint8).reshape(4, 6, 3)
    assert vision.RandomCrop(2)(img).shape == (2, 2, 3)
    assert vision.RandomCrop((2, 3), padding=1)(img).shape == (2, 3, 3)
    assert vision.RandomCrop(10, pad_if_needed=True)(img).shape == (10, 10, 3)
    with pytest.raises(ValueError, match="larger than"):
        vision.RandomCrop(10)(img)
    crop = vision.RandomCrop((4, 6))(img)
    np.testing.assert_array_equal(crop, img)
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(0.0)(img), img)
    np.testing.assert_array_equal(vision.RandomVerticalFlip(1.0)(img), img[::-1])
    assert vision.RandomHorizontalFlip().prob == 0.5
    with pytest.raises(ValueError, match="prob"):
        vision.RandomHorizontalFlip(1.5)


def test_inputs_numpy_tensor_pil_and_bad():
    out = vision.Rescale(0.5, 0)(Tensor(np.ones((2, 2, 1), np.uint8)))
    assert isinstance(out, np.ndarray)
    with pytest.raises(TypeError, match="Rescale"):
        vision.Rescale(0.5, 0)(object())
    pil = pytest.importorskip("PIL.Image")
    image = pil.fromarray(np.full((3, 4), 255, np.uint8))
    assert vision.Rescale(1 / 255.0, 0)(image).max() == pytest.approx(1.0)


def test_decode_with_pillow():
    pil = pytest.importorskip("PIL.Image")
    import io
    buf = io.BytesIO()
    pil.fromarray(np.full((3, 4), 9, np.uint8)).save(buf, format="PNG")
    out = vision.Decode()(np.frombuffer(buf.getvalue(), np.uint8))
    assert out.shape == (3, 4, 3) and out.dtype == np.uint8 and out[0, 0, 0] == 9
    assert vision.Decode()(buf.getvalue()).shape == (3, 4, 3)
    with pytest.raises(ValueError, match="not a decodable image"):
        vision.Decode()(np.frombuffer(b"garbage", np.uint8))


def test_transforms_in_a_pipeline():
    d = ds.NumpySlicesDataset({"image": np.stack([IMG] * 3), "label": [1, 2, 0]}, shuffle=False)
    d = d.map([vision.Resize((4, 4)), vision.Rescale(1 / 255.0, 0), vision.HWC2CHW()], "image")
    d = d.map(transforms.OneHot(3), "label").batch(3)
    image, label = next(d.create_tuple_iterator(output_numpy=True))
    assert image.shape == (3, 3, 4, 4) and image.dtype == np.float32
    assert label.tolist() == [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
