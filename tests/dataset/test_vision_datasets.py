"""Image datasets read from their folder layouts (VOC, COCO, CelebA, Caltech-256, KMNIST),
compared row by row with what MindSpore 2.10 reads from the same tiny folders
(data/vision/make_vision_folders.py, data/vision/make_mindspore_vision_datasets.py)."""
import hashlib
import json
import os

import numpy as np
import pytest

from minispore.dataset import datasets_vision as dv

HERE = os.path.join(os.path.dirname(__file__), "data", "vision")
ROOT = os.path.join(HERE, "folders")
with open(os.path.join(HERE, "mindspore_vision_datasets.json")) as _f:
    MS = json.load(_f)
COCO = os.path.join(ROOT, "coco")


def _compare(key, dataset):
    """Rows equal to MindSpore's: dtype and shape, then the values (or their SHA-256)."""
    want = MS[key]
    want_cols = [c for c in want["columns"] if not c.startswith("_meta")]
    assert [c for c in dataset.get_col_names() if not c.startswith("_meta")] == want_cols
    rows = list(dataset.create_tuple_iterator(output_numpy=True, num_epochs=1))
    assert len(rows) == len(want["rows"])
    for i, (row, want_row) in enumerate(zip(rows, want["rows"])):
        for j, cell in enumerate(want_row[:len(want_cols)]):
            got = np.asarray(row[j])
            assert (got.dtype.str, list(got.shape)) == (cell["dtype"], cell["shape"]), (key, i, j)
            if "sha256" in cell:
                digest = hashlib.sha256(np.ascontiguousarray(got).tobytes()).hexdigest()
                assert digest == cell["sha256"], (key, i, j)
            else:
                np.testing.assert_array_equal(got, np.array(cell["data"], dtype=cell["dtype"]))


def _pil():
    pytest.importorskip("PIL")


def test_voc_segmentation():
    _pil()
    voc = os.path.join(ROOT, "voc")
    _compare("voc_seg", dv.VOCDataset(voc, "Segmentation", "train", shuffle=False))
    _compare("voc_seg_decode", dv.VOCDataset(voc, "Segmentation", "val", shuffle=False,
                                             decode=True))


def test_voc_detection():
    _pil()
    voc = os.path.join(ROOT, "voc")
    _compare("voc_det", dv.VOCDataset(voc, "Detection", "train", shuffle=False, decode=True))
    val = dv.VOCDataset(voc, "Detection", "val", shuffle=False)
    _compare("voc_det_val", val)
    assert sorted([k, str(v)] for k, v in val.get_class_indexing().items()) == \
        MS["voc_det_val__class_indexing"]
    _compare("voc_det_ci", dv.VOCDataset(voc, "Detection", "val", shuffle=False,
                                         class_indexing={"cat": 5, "dog": 2, "aeroplane": 9}))
    meta = dv.VOCDataset(voc, "Detection", "train", shuffle=False, extra_metadata=True)
    assert meta.get_col_names()[-1] == "_meta-filename"
    _compare("voc_det_meta", meta)
    with pytest.raises(ValueError, match="not in 'class_indexing'"):
        dv.VOCDataset(voc, "Detection", "val", class_indexing={"cat": 1})
    with pytest.raises(ValueError, match="does not exist"):
        dv.VOCDataset(voc, "Detection", "test")
    with pytest.raises(ValueError, match="only for task 'Detection'"):
        dv.VOCDataset(voc).get_class_indexing()


def test_voc_refuses_bad_annotations(tmp_path):
    for sub in ("ImageSets/Main", "JPEGImages", "Annotations"):
        (tmp_path / sub).mkdir(parents=True)
    (tmp_path / "ImageSets/Main/train.txt").write_text("a\n")
    (tmp_path / "JPEGImages/a.jpg").write_bytes(b"x")
    ann = tmp_path / "Annotations/a.xml"
    ann.write_text("<annotation><object><name>x</name><bndbox><xmin>0</xmin><ymin>1</ymin>"
                   "<xmax>3</xmax><ymax>4</ymax></bndbox></object></annotation>")
    with pytest.raises(ValueError, match="coordinates > 0"):
        dv.VOCDataset(str(tmp_path), "Detection")
    ann.write_text('<!DOCTYPE a [<!ENTITY x "y">]><annotation>&x;</annotation>')
    with pytest.raises(ValueError, match="DTD"):
        dv.VOCDataset(str(tmp_path), "Detection")
    ann.write_text("<annotation><object>")
    with pytest.raises(ValueError, match="not valid XML"):
        dv.VOCDataset(str(tmp_path), "Detection")


@pytest.mark.parametrize("task, annotation", [
    ("Detection", "annotations"), ("Stuff", "annotations"), ("Keypoint", "annotations"),
    ("Panoptic", "panoptic"), ("Captioning", "captions")])
def test_coco(task, annotation):
    _pil()
    d = dv.CocoDataset(os.path.join(COCO, "images"), os.path.join(COCO, annotation + ".json"),
                       task, shuffle=False, decode=task == "Detection")
    _compare(f"coco_{task}", d)
    if task in ("Detection", "Panoptic"):
        got = [[k] + [str(x) for x in v] for k, v in d.get_class_indexing().items()]
        assert got == MS[f"coco_{task}__class_indexing"]


def test_coco_metadata_and_errors(tmp_path):
    ann = os.path.join(COCO, "annotations.json")
    d = dv.CocoDataset(os.path.join(COCO, "images"), ann, extra_metadata=True, shuffle=False)
    assert d.get_col_names() == MS["coco_meta"]["columns"]
    names = [r[-1].item() for r in d.create_tuple_iterator(output_numpy=True)]
    assert names == ["000007.jpg", "000003.jpg"]
    with pytest.raises(ValueError, match="caption"):
        dv.CocoDataset(os.path.join(COCO, "images"), ann, "Captioning")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        dv.CocoDataset(os.path.join(COCO, "images"), str(bad))
    with pytest.raises(ValueError, match="task"):
        dv.CocoDataset(os.path.join(COCO, "images"), ann, "Segmentation")


@pytest.mark.parametrize("usage", ["all", "train", "valid", "test"])
def test_celeba(usage):
    _pil()
    d = dv.CelebADataset(os.path.join(ROOT, "celeba"), shuffle=False, usage=usage,
                         decode=usage == "train")
    _compare(f"celeba_{usage}", d)


def test_celeba_extensions():
    d = dv.CelebADataset(os.path.join(ROOT, "celeba"), shuffle=False, extensions=[".png"])
    assert d.get_dataset_size() == 0


def test_caltech256_and_kmnist():
    _compare("caltech256", dv.Caltech256Dataset(os.path.join(ROOT, "caltech256"), shuffle=False))
    _compare("kmnist_all", dv.KMnistDataset(os.path.join(ROOT, "kmnist"), shuffle=False))
    _compare("kmnist_test", dv.KMnistDataset(os.path.join(ROOT, "kmnist"), "test",
                                             shuffle=False))


def test_voc_pipeline_with_bbox_transforms():
    _pil()
    from minispore.dataset import vision
    d = dv.VOCDataset(os.path.join(ROOT, "voc"), "Detection", "train", decode=True,
                      shuffle=False)
    d = d.map([vision.RandomHorizontalFlipWithBBox(1.0), vision.ResizeWithBBox((36, 48))],
              ["image", "bbox"])
    image, bbox = next(d.create_tuple_iterator(output_numpy=True))[:2]
    assert image.shape == (36, 48, 3)
    np.testing.assert_allclose(bbox, [[8, 4, 38, 26], [30, 12, 8, 12]])


@pytest.mark.parametrize("name", ["letters", "digits"])
@pytest.mark.parametrize("usage", ["train", "test", "all"])
def test_emnist(name, usage):
    _compare(f"emnist_{name}_{usage}", dv.EMnistDataset(os.path.join(ROOT, "emnist"), name, usage,
                                                        shuffle=False))


@pytest.mark.parametrize("usage", ["train", "test", "nist", "all"])
@pytest.mark.parametrize("compat", [True, False])
def test_qmnist(usage, compat):
    _compare(f"qmnist_{usage}_{compat}", dv.QMnistDataset(os.path.join(ROOT, "qmnist"), usage,
                                                          compat, shuffle=False))


@pytest.mark.parametrize("usage", ["train", "test", "all"])
def test_usps(usage):
    _compare(f"usps_{usage}", dv.USPSDataset(os.path.join(ROOT, "usps"), usage, shuffle=False))


def test_semeion():
    _compare("semeion", dv.SemeionDataset(os.path.join(ROOT, "semeion"), shuffle=False))


@pytest.mark.parametrize("usage", ["train", "test", "unlabeled", "train+unlabeled", "all"])
def test_stl10(usage):
    _compare(f"stl10_{usage}", dv.STL10Dataset(os.path.join(ROOT, "stl10"), usage, shuffle=False))


@pytest.mark.parametrize("usage", ["train", "test", "extra", "all"])
def test_svhn(usage):
    pytest.importorskip("scipy")
    _compare(f"svhn_{usage}", dv.SVHNDataset(os.path.join(ROOT, "svhn"), usage, shuffle=False))


def test_array_dataset_errors(tmp_path):
    (tmp_path / "semeion.data").write_text("1 0 1\n")
    with pytest.raises(ValueError, match="256 pixels"):
        list(dv.SemeionDataset(str(tmp_path)).create_tuple_iterator())
    (tmp_path / "train_X.bin").write_bytes(b"\0" * 100)
    with pytest.raises(ValueError, match="multiple"):
        dv.STL10Dataset(str(tmp_path), "train")
    with pytest.raises(ValueError, match="usage"):
        dv.QMnistDataset(str(tmp_path), "valid")


@pytest.mark.parametrize("usage", ["train", "val", "test", "all"])
def test_rendered_sst2(usage):
    if usage == "val":
        _pil()
    _compare(f"sst2_{usage}", dv.RenderedSST2Dataset(os.path.join(ROOT, "rendered_sst2"), usage,
                                                     shuffle=False, decode=usage == "val"))


@pytest.mark.parametrize("usage", ["train", "test", "all"])
def test_food101(usage):
    _compare(f"food101_{usage}", dv.Food101Dataset(os.path.join(ROOT, "food101"), usage,
                                                   shuffle=False))


def test_sun397_omniglot_sbu():
    _pil()
    _compare("sun397", dv.SUN397Dataset(os.path.join(ROOT, "sun397"), shuffle=False))
    for background in (None, True, False):
        _compare(f"omniglot_{background}", dv.OmniglotDataset(os.path.join(ROOT, "omniglot"),
                                                              background, shuffle=False))
    _compare("sbu", dv.SBUDataset(os.path.join(ROOT, "sbu"), shuffle=False, decode=True))


def test_fake_image_dataset():
    # MindSpore draws its own random pixels: shapes, dtypes and label range are compared.
    d = dv.FakeImageDataset(5, (6, 7, 3), 4, 3, shuffle=False)
    rows = list(d.create_tuple_iterator(output_numpy=True))
    assert len(rows) == len(MS["fake"]["rows"]) and d.get_col_names() == ["image", "label"]
    for i, (image, label) in enumerate(rows):
        assert list(image.shape) == MS["fake"]["rows"][i][0]["shape"] and image.dtype == np.uint8
        assert label.dtype == np.uint32 and 0 <= label < 4
    again = list(dv.FakeImageDataset(5, (6, 7, 3), 4, 3, shuffle=False)
                 .create_tuple_iterator(output_numpy=True))
    np.testing.assert_array_equal(rows[2][0], again[2][0])
    with pytest.raises(ValueError, match="num_images"):
        dv.FakeImageDataset(0)


def test_manifest():
    manifest = os.path.join(ROOT, "manifest", "manifest.json")
    for usage in ("train", "eval"):
        if usage == "eval":
            _pil()
        d = dv.ManifestDataset(manifest, usage, shuffle=False, decode=usage == "eval")
        _compare(f"manifest_{usage}", d)
        assert sorted([k, str(v)] for k, v in d.get_class_indexing().items()) == \
            MS[f"manifest_{usage}__class_indexing"]
    _compare("manifest_ci", dv.ManifestDataset(manifest, "train", shuffle=False,
                                               class_indexing={"dog": 4, "cat": 1, "bird": 0}))
    with pytest.raises(ValueError, match="class_indexing"):
        dv.ManifestDataset(manifest, class_indexing={"dog": 0})


def test_flickr():
    _pil()
    _compare("flickr", dv.FlickrDataset(os.path.join(ROOT, "flickr"),
                                        os.path.join(ROOT, "flickr", "captions.token"),
                                        shuffle=False, decode=True))


@pytest.mark.parametrize("usage", ["train", "valid", "test", "all"])
def test_widerface(usage):
    _compare(f"widerface_{usage}", dv.WIDERFaceDataset(os.path.join(ROOT, "widerface"), usage,
                                                       shuffle=False))


@pytest.mark.parametrize("usage, downgrade, scale", [
    ("train", "bicubic", 2), ("valid", "bicubic", 2), ("all", "bicubic", 2), ("train", "mild", 4)])
def test_div2k(usage, downgrade, scale):
    _compare(f"div2k_{usage}_{downgrade}", dv.DIV2KDataset(os.path.join(ROOT, "div2k"), usage,
                                                           downgrade, scale, shuffle=False))
    with pytest.raises(ValueError, match="scale"):
        dv.DIV2KDataset(os.path.join(ROOT, "div2k"), usage, "mild", 2)


@pytest.mark.parametrize("task", ["Classification", "Segmentation"])
@pytest.mark.parametrize("usage", ["train", "valid", "test", "all"])
def test_flowers102(task, usage):
    pytest.importorskip("scipy")
    if usage == "valid":
        _pil()
    _compare(f"flowers_{task}_{usage}", dv.Flowers102Dataset(
        os.path.join(ROOT, "flowers102"), task, usage, shuffle=False, decode=usage == "valid"))


@pytest.mark.parametrize("usage", ["train", "test"])
def test_kitti(usage):
    _compare(f"kitti_{usage}", dv.KITTIDataset(os.path.join(ROOT, "kitti"), usage, shuffle=False))


@pytest.mark.parametrize("target", ["category", "annotation", "all"])
def test_caltech101(target):
    pytest.importorskip("scipy")
    if target == "all":
        _pil()
    _compare(f"caltech101_{target}", dv.Caltech101Dataset(
        os.path.join(ROOT, "caltech101"), target, shuffle=False, decode=target == "all"))


@pytest.mark.parametrize("task", ["Boundaries", "Segmentation"])
@pytest.mark.parametrize("usage", ["train", "val", "train_noval", "all"])
def test_sbd(task, usage):
    pytest.importorskip("scipy")
    if usage == "val":
        _pil()
    _compare(f"sbd_{task}_{usage}", dv.SBDataset(os.path.join(ROOT, "sbd"), task, usage,
                                                 shuffle=False, decode=usage == "val"))


@pytest.mark.parametrize("usage, small", [("train-standard", True), ("val", True),
                                          ("train-standard", False)])
def test_places365(usage, small):
    if usage == "val":
        _pil()
    _compare(f"places365_{usage}_{small}", dv.Places365Dataset(
        os.path.join(ROOT, "places365"), usage, small, shuffle=False, decode=usage == "val"))


@pytest.mark.parametrize("usage, task, decode", [
    ("train", "instance", False), ("val", "semantic", True), ("all", "color", False),
    ("train", "polygon", False), ("test", "instance", None)])
def test_cityscapes(usage, task, decode):
    if decode:
        _pil()
    _compare(f"cityscapes_{usage}_{task}", dv.CityscapesDataset(
        os.path.join(ROOT, "cityscapes"), usage, "fine", task, shuffle=False, decode=decode))


@pytest.mark.parametrize("usage, classes", [
    ("train", None), ("valid", None), ("test", None), ("all", None),
    ("all", ["classroom", "bedroom"]), ("train", ["classroom"])])
def test_lsun(usage, classes):
    if usage == "test":
        _pil()
    _compare(f"lsun_{usage}_{classes}", dv.LSUNDataset(os.path.join(ROOT, "lsun"), usage, classes,
                                                        shuffle=False, decode=usage == "test"))


@pytest.mark.parametrize("task, usage, image_set", [
    ("people", "train", None), ("people", "test", "original"), ("people", "all", "deepfunneled"),
    ("people", "10fold", None), ("pairs", "train", None), ("pairs", "test", None),
    ("pairs", "all", None), ("pairs", "10fold", "original")])
def test_lfw(task, usage, image_set):
    if usage == "test":
        _pil()
    _compare(f"lfw_{task}_{usage}_{image_set}", dv.LFWDataset(
        os.path.join(ROOT, "lfw"), task, usage, image_set, shuffle=False, decode=usage == "test"))
