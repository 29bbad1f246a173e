"""Record what MindSpore 2.10 reads from the folders of make_vision_folders.py (shuffle off,
decode on and off) into mindspore_vision_datasets.json, for test_vision_datasets.py. Run with
real MindSpore from a scratch folder."""
import hashlib
import json
import os

import mindspore.dataset as ds
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "folders")
out = {}


def record(key, dataset):
    """Columns and rows of a dataset: each value's dtype and shape, with its data (small
    arrays) or its SHA-256 (larger ones)."""
    rows = []
    for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
        cells = []
        for col in row:
            cell = {"dtype": col.dtype.str, "shape": list(col.shape)}
            if col.size > 64:
                cell["sha256"] = hashlib.sha256(np.ascontiguousarray(col).tobytes()).hexdigest()
            else:
                cell["data"] = col.tolist()
            cells.append(cell)
        rows.append(cells)
    out[key] = {"columns": list(dataset.get_col_names()), "rows": rows}


voc = os.path.join(ROOT, "voc")
record("voc_seg", ds.VOCDataset(voc, "Segmentation", "train", shuffle=False))
record("voc_seg_decode", ds.VOCDataset(voc, "Segmentation", "val", shuffle=False, decode=True))
record("voc_det", ds.VOCDataset(voc, "Detection", "train", shuffle=False, decode=True))
det_val = ds.VOCDataset(voc, "Detection", "val", shuffle=False)
record("voc_det_val", det_val)
out["voc_det_val__class_indexing"] = sorted([k, str(v)] for k, v in
                                            det_val.get_class_indexing().items())
record("voc_det_ci", ds.VOCDataset(voc, "Detection", "val", shuffle=False,
                                   class_indexing={"cat": 5, "dog": 2, "aeroplane": 9}))
record("voc_det_meta", ds.VOCDataset(voc, "Detection", "train", shuffle=False,
                                     extra_metadata=True))
coco = os.path.join(ROOT, "coco")
ann = os.path.join(coco, "annotations.json")
for task, name in (("Detection", "annotations"), ("Stuff", "annotations"),
                   ("Keypoint", "annotations"), ("Panoptic", "panoptic"),
                   ("Captioning", "captions")):
    d = ds.CocoDataset(os.path.join(coco, "images"), os.path.join(coco, name + ".json"), task,
                       shuffle=False, decode=task == "Detection")
    record(f"coco_{task}", d)
    if task in ("Detection", "Panoptic"):
        out[f"coco_{task}__class_indexing"] = [[k] + [str(x) for x in v]
                                               for k, v in d.get_class_indexing().items()]
record("coco_meta", ds.CocoDataset(os.path.join(coco, "images"), ann, "Detection",
                                   shuffle=False, extra_metadata=True))
celeba = os.path.join(ROOT, "celeba")
for usage in ("all", "train", "valid", "test"):
    record(f"celeba_{usage}", ds.CelebADataset(celeba, shuffle=False, usage=usage,
                                               decode=usage == "train"))
record("caltech256", ds.Caltech256Dataset(os.path.join(ROOT, "caltech256"), shuffle=False))
record("kmnist_all", ds.KMnistDataset(os.path.join(ROOT, "kmnist"), shuffle=False))
record("kmnist_test", ds.KMnistDataset(os.path.join(ROOT, "kmnist"), "test", shuffle=False))
for name in ("letters", "digits"):
    for usage in ("train", "test", "all"):
        record(f"emnist_{name}_{usage}", ds.EMnistDataset(os.path.join(ROOT, "emnist"), name,
                                                          usage, shuffle=False))
for usage in ("train", "test", "nist", "all"):
    for compat in (True, False):
        record(f"qmnist_{usage}_{compat}", ds.QMnistDataset(
            os.path.join(ROOT, "qmnist"), usage, compat, shuffle=False))
for usage in ("train", "test", "all"):
    record(f"usps_{usage}", ds.USPSDataset(os.path.join(ROOT, "usps"), usage, shuffle=False))
record("semeion", ds.SemeionDataset(os.path.join(ROOT, "semeion"), shuffle=False))
for usage in ("train", "test", "unlabeled", "train+unlabeled", "all"):
    record(f"stl10_{usage}", ds.STL10Dataset(os.path.join(ROOT, "stl10"), usage, shuffle=False))
for usage in ("train", "test", "extra", "all"):
    record(f"svhn_{usage}", ds.SVHNDataset(os.path.join(ROOT, "svhn"), usage, shuffle=False))
for usage in ("train", "val", "test", "all"):
    record(f"sst2_{usage}", ds.RenderedSST2Dataset(os.path.join(ROOT, "rendered_sst2"), usage,
                                                   shuffle=False, decode=usage == "val"))
for usage in ("train", "test", "all"):
    record(f"food101_{usage}", ds.Food101Dataset(os.path.join(ROOT, "food101"), usage,
                                                 shuffle=False))
record("sun397", ds.SUN397Dataset(os.path.join(ROOT, "sun397"), shuffle=False))
for background in (None, True, False):
    record(f"omniglot_{background}", ds.OmniglotDataset(os.path.join(ROOT, "omniglot"),
                                                        background, shuffle=False))
record("sbu", ds.SBUDataset(os.path.join(ROOT, "sbu"), shuffle=False, decode=True))
fake = ds.FakeImageDataset(5, (6, 7, 3), 4, 3, shuffle=False)
record("fake", fake)
manifest = os.path.join(ROOT, "manifest", "manifest.json")
scratch = os.getcwd()
os.chdir(os.path.dirname(manifest))  # MindSpore resolves relative sources from the cwd
for usage in ("train", "eval"):
    d = ds.ManifestDataset(manifest, usage, shuffle=False, decode=usage == "eval")
    record(f"manifest_{usage}", d)
    out[f"manifest_{usage}__class_indexing"] = sorted(
        [k, str(v)] for k, v in d.get_class_indexing().items())
record("manifest_ci", ds.ManifestDataset(manifest, "train", shuffle=False,
                                         class_indexing={"dog": 4, "cat": 1, "bird": 0}))
os.chdir(scratch)
record("flickr", ds.FlickrDataset(os.path.join(ROOT, "flickr"),
                                  os.path.join(ROOT, "flickr", "captions.token"), shuffle=False,
                                  decode=True))
for usage in ("train", "valid", "test", "all"):
    record(f"widerface_{usage}", ds.WIDERFaceDataset(os.path.join(ROOT, "widerface"), usage,
                                                     shuffle=False))
for usage, downgrade, scale in (("train", "bicubic", 2), ("valid", "bicubic", 2),
                                ("all", "bicubic", 2), ("train", "mild", 4)):
    record(f"div2k_{usage}_{downgrade}", ds.DIV2KDataset(
        os.path.join(ROOT, "div2k"), usage, downgrade, scale, shuffle=False))
for task in ("Classification", "Segmentation"):
    for usage in ("train", "valid", "test", "all"):
        record(f"flowers_{task}_{usage}", ds.Flowers102Dataset(
            os.path.join(ROOT, "flowers102"), task, usage, shuffle=False,
            decode=usage == "valid"))
for usage in ("train", "test"):
    try:
        record(f"kitti_{usage}", ds.KITTIDataset(os.path.join(ROOT, "kitti"), usage,
                                                 shuffle=False))
    except Exception as e:  # noqa: BLE001
        print("kitti", usage, str(e)[-400:])
for target in ("category", "annotation", "all"):
    record(f"caltech101_{target}", ds.Caltech101Dataset(
        os.path.join(ROOT, "caltech101"), target, shuffle=False, decode=target == "all"))
for task in ("Boundaries", "Segmentation"):
    for usage in ("train", "val", "train_noval", "all"):
        record(f"sbd_{task}_{usage}", ds.SBDataset(os.path.join(ROOT, "sbd"), task, usage,
                                                   shuffle=False, decode=usage == "val"))
for usage, small in (("train-standard", True), ("val", True), ("train-standard", False)):
    record(f"places365_{usage}_{small}", ds.Places365Dataset(
        os.path.join(ROOT, "places365"), usage, small, shuffle=False, decode=usage == "val"))
for usage, task, decode in (("train", "instance", False), ("val", "semantic", True),
                            ("all", "color", False), ("train", "polygon", False),
                            ("test", "instance", None)):
    record(f"cityscapes_{usage}_{task}", ds.CityscapesDataset(
        os.path.join(ROOT, "cityscapes"), usage, "fine", task, shuffle=False, decode=decode))
for usage, classes in (("train", None), ("valid", None), ("test", None), ("all", None),
                       ("all", ["classroom", "bedroom"]), ("train", ["classroom"])):
    record(f"lsun_{usage}_{classes}", ds.LSUNDataset(os.path.join(ROOT, "lsun"), usage, classes,
                                                      shuffle=False, decode=usage == "test"))
for task, usage, image_set in (("people", "train", None), ("people", "test", "original"),
                               ("people", "all", "deepfunneled"), ("people", "10fold", None),
                               ("pairs", "train", None), ("pairs", "test", None),
                               ("pairs", "all", None), ("pairs", "10fold", "original")):
    record(f"lfw_{task}_{usage}_{image_set}", ds.LFWDataset(
        os.path.join(ROOT, "lfw"), task, usage, image_set, shuffle=False,
        decode=usage == "test"))
with open(os.path.join(HERE, "mindspore_vision_datasets.json"), "w") as f:
    json.dump(out, f, separators=(",", ":"), sort_keys=True)
print(len(out), "datasets")
