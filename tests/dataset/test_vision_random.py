"""Random, batch, bounding-box and augmentation-policy transforms of `dataset.vision`: a
degenerate range gives the deterministic transform (itself checked against MindSpore in
test_vision_extra.py), draws stay in their ranges and follow their distributions, results are
seeded, and the ops run inside a pipeline."""
import itertools

import numpy as np
import pytest

from minispore import dataset as ds
from minispore.dataset import vision

RNG = np.random.default_rng(11)
IMG = RNG.integers(0, 256, (24, 32, 3), dtype=np.uint8)
BOXES = np.array([[1, 2, 3, 4, 7], [0, 0, 32, 24, 1], [5.5, 3.25, 2, 2, 3]], np.float32)


@pytest.fixture(autouse=True)
def _seed():
    old = ds.config.get_seed()
    ds.config.set_seed(1234)
    yield
    ds.config.set_seed(old)


@pytest.mark.parametrize("random_op, fixed_op", [
    (vision.RandomAdjustSharpness(1.7, prob=1.0), vision.AdjustSharpness(1.7)),
    (vision.RandomAutoContrast(cutoff=2.0, prob=1.0), vision.AutoContrast(cutoff=2.0)),
    (vision.RandomEqualize(1.0), vision.Equalize()),
    (vision.RandomInvert(1.0), vision.Invert()),
    (vision.RandomColor((0.4, 0.4)), vision.AdjustSaturation(0.4)),
    (vision.RandomSharpness((1.5, 1.5)), vision.AdjustSharpness(1.5)),
    (vision.RandomPosterize((3, 3)), vision.Posterize(3)),
    (vision.RandomSolarize((90, 90)), vision.Solarize(90)),  # as MindSpore: [90, 255]
    (vision.RandomRotation((25, 25), vision.Inter.BILINEAR, True),
     vision.Rotate(25, vision.Inter.BILINEAR, True)),
    (vision.RandomAffine((10, 10), (0.1, 0.1, -0.2, -0.2), (1.2, 1.2), (5, 5, 3, 3)),
     vision.Affine(10, [0.1, -0.2], 1.2, [5.0, 3.0])),
    (vision.RandomResizedCrop((10, 12), scale=(1.0, 1.0), ratio=(4 / 3, 4 / 3)),
     vision.Resize((10, 12))),
])
def test_degenerate_ranges_give_the_fixed_transform(random_op, fixed_op):
    np.testing.assert_array_equal(random_op(IMG), fixed_op(IMG))


@pytest.mark.parametrize("op", [vision.RandomAdjustSharpness(0.0, prob=0.0),
                                vision.RandomAutoContrast(prob=0.0), vision.RandomEqualize(0.0),
                                vision.RandomInvert(0.0), vision.RandomGrayscale(0.0),
                                vision.RandomPerspective(prob=0.0),
                                vision.RandomColorAdjust(), vision.RandomLighting(0.0)])
def test_probability_zero_or_neutral_is_identity(op):
    np.testing.assert_array_equal(op(IMG), IMG)


def test_random_ops_are_seeded():
    ops = [vision.RandomRotation(40), vision.RandomAffine(30, (-0.2, 0.2), (0.8, 1.2), 10),
           vision.RandomColorAdjust(0.4, 0.4, 0.4, 0.2), vision.RandomResizedCrop(9),
           vision.RandAugment(), vision.TrivialAugmentWide(), vision.AutoAugment(),
           vision.RandomPerspective(prob=1.0), vision.RandomLighting(0.2), vision.CutOut(5, 3)]
    ds.config.set_seed(7)
    first = [op(IMG) for op in ops]
    ds.config.set_seed(7)
    again = [op(IMG) for op in ops]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


def test_random_color_adjust_applies_the_four_in_a_random_order():
    # MindSpore 2.10 does the same: its outputs with fixed factors match permutations of the
    # four deterministic adjustments, all of which are bit-exact with MindSpore.
    ops = {"b": vision.AdjustBrightness(1.3), "c": vision.AdjustContrast(0.5),
           "s": vision.AdjustSaturation(1.6), "h": vision.AdjustHue(0.1)}
    results = {}
    for perm in itertools.permutations("bcsh"):
        x = IMG
        for k in perm:
            x = ops[k](x)
        results[x.tobytes()] = "".join(perm)
    op = vision.RandomColorAdjust((1.3, 1.3), (0.5, 0.5), (1.6, 1.6), (0.1, 0.1))
    seen = {results[op(IMG).tobytes()] for _ in range(60)}
    assert len(seen) >= 10


def test_posterize_and_solarize_draws_cover_their_ranges():
    seen = set()
    for _ in range(200):
        out = vision.RandomPosterize((2, 4))(IMG)
        low_bits = int(np.bitwise_or.reduce(out.reshape(-1)))
        seen.add(8 - (bin(low_bits)[::-1].index("1")))
    assert seen == {2, 3, 4}
    for _ in range(50):
        changed = IMG[vision.RandomSolarize((100, 150))(IMG) != IMG]
        if changed.size:
            low = changed.min()
            # a sub-range of [100, 150], or [t, 255] when both draws are t
            assert low >= 100
            assert changed.max() <= 150 or changed.size == (IMG >= low).sum()


def test_random_resized_crop_box_statistics():
    rng = np.random.default_rng(0)
    boxes = [vision._random._resized_crop_box(300, 300, (0.2, 0.6), (0.5, 2.0), 10, rng)
             for _ in range(2000)]
    top, left, h, w = np.array(boxes).T
    area = h * w / 90000.0
    ratio = w / h
    assert (top + h <= 300).all() and (left + w <= 300).all() and (top >= 0).all()
    assert 0.18 < area.min() and area.max() < 0.62
    assert 0.45 < ratio.min() and ratio.max() < 2.1
    assert abs(np.log(ratio).mean()) < 0.05  # log-uniform aspect ratio, centred at 1
    assert abs(area.mean() - 0.4) < 0.02
    top, left, h, w = vision._random._resized_crop_box(10, 100, (0.9, 1.0), (1.0, 1.0), 3, rng)
    assert (h, w) == (10, 10) and left == 45  # fallback: the central crop at the ratio bound


def test_random_rotation_angles_are_uniform():
    op = vision.RandomRotation((-30, 30), vision.Inter.BILINEAR)
    angles = np.linspace(-30, 30, 121)
    refs = np.stack([vision.Rotate(a, vision.Inter.BILINEAR)(IMG).astype(np.int64)
                     for a in angles])
    picks = []
    for _ in range(150):
        out = op(IMG).astype(np.int64)
        picks.append(angles[np.abs(refs - out).sum(axis=(1, 2, 3)).argmin()])
    picks = np.array(picks)
    assert picks.min() < -20 and picks.max() > 20 and abs(picks.mean()) < 5


def test_random_lighting_adds_one_colour_shift():
    out = vision.RandomLighting(0.5)(IMG.astype(np.float32))
    shift = out - IMG
    np.testing.assert_allclose(shift, np.broadcast_to(shift[0, 0], shift.shape), atol=1e-3)
    assert np.abs(shift[0, 0]).max() > 0


def test_random_erasing_chw():
    img = np.zeros((3, 40, 50), np.float32)
    out = vision.RandomErasing(prob=1.0, scale=(0.1, 0.1), ratio=(1.0, 1.0), value=(1, 2, 3))(img)
    mask = out[0] != 0
    rows, cols = np.nonzero(mask)
    assert mask.sum() == (rows.max() - rows.min() + 1) * (cols.max() - cols.min() + 1)
    assert abs(mask.sum() - 200) <= 30
    assert (out[1][mask] == 2).all() and (out[2][mask] == 3).all()
    noisy = vision.RandomErasing(prob=1.0, value="random")(img)
    assert noisy.std() > 0
    assert vision.RandomErasing(prob=0.0)(img) is img
    with pytest.raises(ValueError, match="random"):
        vision.RandomErasing(value="noise")


def test_cutout_patches():
    out = vision.CutOut(4, num_patches=1)(np.full((10, 12, 3), 9, np.uint8))
    assert (out == 0).all(-1).sum() == 16
    chw = vision.CutOut(3, 2, is_hwc=False)(np.full((3, 10, 12), 9, np.uint8))
    assert chw.shape == (3, 10, 12) and 9 <= (chw == 0).all(0).sum() <= 18


def test_random_grayscale_keeps_channels():
    out = vision.RandomGrayscale(1.0)(IMG)
    assert out.shape == IMG.shape and (out[..., 0] == out[..., 1]).all()


def test_random_select_subpolicy_and_uniform_augment():
    policy = [[(vision.Invert(), 1.0)], [(vision.HorizontalFlip(), 1.0), (vision.Invert(), 0.0)]]
    outs = {vision.RandomSelectSubpolicy(policy)(IMG).tobytes() for _ in range(40)}
    assert outs == {(255 - IMG).tobytes(), IMG[:, ::-1].tobytes()}
    uniform = vision.UniformAugment([vision.Invert(), vision.VerticalFlip()], num_ops=2)
    outs = {uniform(IMG).tobytes() for _ in range(60)}
    expected = {IMG.tobytes(), (255 - IMG).tobytes(), IMG[::-1].tobytes(),
                (255 - IMG)[::-1].tobytes()}
    assert outs == expected
    with pytest.raises(ValueError, match="num_ops"):
        vision.UniformAugment([vision.Invert()], num_ops=2)


def test_random_resize_uses_each_interpolation():
    outs = {vision.RandomResize((13, 17))(IMG).tobytes() for _ in range(80)}
    refs = {vision.Resize((13, 17), m)(IMG).tobytes()
            for m in (vision.Inter.NEAREST, vision.Inter.BILINEAR, vision.Inter.BICUBIC,
                      vision.Inter.AREA)}
    assert outs == refs


def test_random_crop_decode_resize():
    pytest.importorskip("PIL")
    png = vision.encode_png(IMG)
    out = vision.RandomCropDecodeResize((8, 9), scale=(1.0, 1.0), ratio=(4 / 3, 4 / 3))(png)
    np.testing.assert_array_equal(out, vision.Resize((8, 9))(IMG))


# ---- batches -----------------------------------------------------------------------------------

def _batch():
    images = RNG.integers(0, 256, (6, 8, 10, 3), dtype=np.uint8)
    labels = np.eye(3, dtype=np.int32)[[0, 1, 2, 1, 0, 2]]
    return images, labels


def test_mixup_batch_mixes_pairs_with_one_lambda():
    images, labels = _batch()
    out, lab = vision.MixUpBatch(0.5)(images, labels)
    assert out.dtype == np.uint8 and lab.dtype == np.float32 and out.shape == images.shape
    np.testing.assert_allclose(lab.sum(1), 1.0, rtol=1e-6)
    for i in range(len(images)):
        partner = int(np.argmax(np.where(np.arange(3) == labels[i].argmax(), -1, lab[i])))
        lam = lab[i, labels[i].argmax()]
        if lam < 0.999 and lab[i, partner] > 0:
            j = next(k for k in range(len(images)) if labels[k].argmax() == partner and
                     np.array_equal(np.rint(lam * images[i] + (1 - lam) * images[k].astype(float)),
                                    out[i]))
            assert labels[j].argmax() == partner
    with pytest.raises(ValueError, match="one-hot"):
        vision.MixUpBatch()(images, np.array([0, 1, 2, 1, 0, 2]))


def test_cutmix_batch_label_weights_match_the_pasted_area():
    images = np.arange(6, dtype=np.uint8)[:, None, None, None] * np.ones((1, 8, 10, 3), np.uint8)
    labels = np.eye(6, dtype=np.float32)
    out, lab = vision.CutMixBatch(vision.ImageBatchFormat.NHWC, 1.0, 1.0)(images, labels)
    for i in range(6):
        own = (out[i] == i).all(-1).mean()
        assert lab[i, i] == pytest.approx(own if own < 1 else 1.0, abs=1e-6) or \
            (own == 1 and lab[i].max() == pytest.approx(1.0))
    nchw, lab2 = vision.CutMixBatch(vision.ImageBatchFormat.NCHW, 1.0, 0.0)(
        images.transpose(0, 3, 1, 2), labels)
    np.testing.assert_array_equal(nchw, images.transpose(0, 3, 1, 2))
    np.testing.assert_array_equal(lab2, labels)


def test_mixup_single_and_continuous():
    images, labels = _batch()
    img, lab = vision.MixUp(6, 0.4)(images, labels)
    assert img.dtype == np.float64 and lab.shape == (6, 3)
    np.testing.assert_allclose(lab.sum(1), 1.0)
    cont = vision.MixUp(6, 0.4, is_single=False)
    first, _ = cont(images, labels)
    np.testing.assert_allclose(first, images)
    second, lab2 = cont(images[::-1], labels[::-1])
    assert second.shape == images.shape and np.allclose(lab2.sum(1), 1.0)


# ---- bounding boxes ---------------------------------------------------------------------------

def test_bbox_flips_and_resize():
    img, b = vision.RandomHorizontalFlipWithBBox(1.0)(IMG, BOXES)
    np.testing.assert_array_equal(img, IMG[:, ::-1])
    np.testing.assert_allclose(b[:, 0], [28, 0, 24.5])
    np.testing.assert_array_equal(b[:, 4], BOXES[:, 4])
    img, b = vision.RandomVerticalFlipWithBBox(1.0)(IMG, BOXES)
    np.testing.assert_allclose(b[:, 1], [18, 0, 18.75])
    img, b = vision.ResizeWithBBox((12, 64))(IMG, BOXES)
    assert img.shape == (12, 64, 3)
    np.testing.assert_allclose(b[:, :4], BOXES[:, :4] * [2, 0.5, 2, 0.5])
    assert vision.RandomResizeWithBBox((12, 64))(IMG, BOXES)[1].tolist() == b.tolist()
    with pytest.raises(TypeError, match="float32"):
        vision.RandomHorizontalFlipWithBBox(1.0)(IMG, BOXES.astype(np.int32))
    with pytest.raises(ValueError, match="out of the image"):
        vision.RandomHorizontalFlipWithBBox(1.0)(IMG, np.array([[30, 0, 5, 5]], np.float32))


def test_random_crop_with_bbox_clips_and_drops():
    img, b = vision.RandomCropWithBBox((26, 34), padding=1)(IMG, BOXES)
    assert img.shape == (26, 34, 3)
    np.testing.assert_allclose(b[:, :4], BOXES[:, :4] + [1, 1, 0, 0])
    for _ in range(30):
        img, b = vision.RandomCropWithBBox((6, 6))(IMG, BOXES)
        assert img.shape == (6, 6, 3)
        assert (b[:, 0] >= 0).all() and (b[:, 0] + b[:, 2] <= 6 + 1e-6).all()
        assert (b[:, 2] > 0).all() and (b[:, 3] > 0).all() and 1 in b[:, 4]


def test_random_resized_crop_with_bbox_full_image():
    op = vision.RandomResizedCropWithBBox((12, 16), scale=(1.0, 1.0), ratio=(4 / 3, 4 / 3))
    img, b = op(IMG, BOXES)
    np.testing.assert_array_equal(img, vision.Resize((12, 16))(IMG))
    np.testing.assert_allclose(b[:, :4], BOXES[:, :4] * 0.5)


def test_bounding_box_augment_touches_only_boxes():
    img, b = vision.BoundingBoxAugment(vision.Invert(), 1.0)(IMG, BOXES[:1])
    changed = (img != IMG).any(-1)
    assert changed[2:6, 1:4].all() and changed.sum() == 12
    np.testing.assert_array_equal(b, BOXES[:1])


# ---- policies ---------------------------------------------------------------------------------

@pytest.mark.parametrize("op", [vision.AutoAugment(vision.AutoAugmentPolicy.CIFAR10),
                                vision.AutoAugment(vision.AutoAugmentPolicy.SVHN,
                                                   vision.Inter.BILINEAR, (10, 20, 30)),
                                vision.RandAugment(3, 5, 11), vision.TrivialAugmentWide(8)])
def test_policies_keep_shape_and_change_images(op):
    outs = [op(IMG) for _ in range(20)]
    assert all(o.shape == IMG.shape and o.dtype == np.uint8 for o in outs)
    assert sum(not np.array_equal(o, IMG) for o in outs) >= 5


def test_policy_operations():
    apply = vision._augment._apply_op
    np.testing.assert_array_equal(apply(IMG, "Invert", 0, vision.Inter.NEAREST, (0, 0, 0)),
                                  255 - IMG)
    np.testing.assert_array_equal(apply(IMG, "Brightness", 0.5, vision.Inter.NEAREST, (0,) * 3),
                                  vision.AdjustBrightness(1.5)(IMG))
    shifted = apply(IMG, "TranslateX", 4.0, vision.Inter.NEAREST, (0, 0, 0))
    np.testing.assert_array_equal(shifted[:, 4:], IMG[:, :-4])
    assert (shifted[:, :4] == 0).all()
    space = vision._augment._space(31, 24, 32, wide=False)
    assert space["Posterize"][0] == 8 and space["Posterize"][-1] == 4
    assert vision._augment._space(31, 24, 32, wide=True)["Posterize"][-1] == 2
    with pytest.raises(ValueError, match="magnitude"):
        vision.RandAugment(magnitude=31)


# ---- pipelines --------------------------------------------------------------------------------

def test_in_a_pipeline_with_workers():
    images = RNG.integers(0, 256, (8, 16, 20, 3), dtype=np.uint8)
    boxes = np.tile(np.array([[1, 1, 4, 4]], np.float32), (8, 1, 1))

    def run(workers):
        d = ds.NumpySlicesDataset({"image": images, "bbox": boxes}, shuffle=False)
        d = d.map([vision.RandomHorizontalFlipWithBBox(), vision.RandomCropWithBBox(12)],
                  ["image", "bbox"], num_parallel_workers=workers)
        d = d.map([vision.RandAugment(), vision.RandomColorAdjust(0.3, 0.3)], "image",
                  num_parallel_workers=workers)
        return [(r["image"], r["bbox"]) for r in d.create_dict_iterator(output_numpy=True)]

    ds.config.set_seed(3)
    one = run(1)
    ds.config.set_seed(3)
    two = run(2)
    assert len(one) == 8
    for (a, b), (c, e) in zip(one, two):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, e)
