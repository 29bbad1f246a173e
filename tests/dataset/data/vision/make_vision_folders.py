"""Write the tiny image-dataset folders under folders/ (VOC, COCO, CelebA, Caltech-256,
KMNIST layouts) used by test_vision_datasets.py. Plain Python + NumPy + Pillow; deterministic.
make_mindspore_vision_datasets.py then records what MindSpore 2.10 reads from them."""
import json
import os
import struct

import numpy as np
from PIL import Image

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "folders")
rng = np.random.default_rng(21)


def image(path, h, w, fmt="JPEG", mode="RGB"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shape = (h, w, 3) if mode == "RGB" else (h, w)
    Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8), mode).save(path, fmt)


def voc():
    base = os.path.join(ROOT, "voc")
    ids = ["2008_000001", "2008_000002", "2008_000003"]
    objects = {"2008_000001": [("dog", 1, 2, 20, 15, 0, 0), ("cat", 5, 6, 9, 12, 1, 0)],
               "2008_000002": [("person", 1, 1, 23, 17, 0, 1)],
               "2008_000003": [("cat", 3, 4, 10, 11, 0, 0), ("aeroplane", 2, 2, 7, 9, 0, 1),
                               ("dog", 11, 1, 22, 16, 1, 1)]}
    for i in ids:
        image(os.path.join(base, "JPEGImages", i + ".jpg"), 18, 24)
        image(os.path.join(base, "SegmentationClass", i + ".png"), 18, 24, "PNG", "L")
        objs = "".join(
            f"<object><name>{n}</name><pose>Left</pose><truncated>{t}</truncated>"
            f"<difficult>{d}</difficult><bndbox><xmin>{x0}</xmin><ymin>{y0}</ymin>"
            f"<xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object>"
            for n, x0, y0, x1, y1, d, t in objects[i])
        os.makedirs(os.path.join(base, "Annotations"), exist_ok=True)
        with open(os.path.join(base, "Annotations", i + ".xml"), "w") as f:
            f.write(f"<annotation><folder>VOC2012</folder><filename>{i}.jpg</filename><size>"
                    f"<width>24</width><height>18</height><depth>3</depth></size>{objs}"
                    f"</annotation>")
    for task in ("Segmentation", "Main"):
        os.makedirs(os.path.join(base, "ImageSets", task), exist_ok=True)
        for usage, names in (("train", ids[:2]), ("val", ids[2:])):
            with open(os.path.join(base, "ImageSets", task, usage + ".txt"), "w") as f:
                f.write("\n".join(names) + "\n")


def coco():
    base = os.path.join(ROOT, "coco")
    images = [{"id": 7, "file_name": "000007.jpg", "height": 16, "width": 20},
              {"id": 3, "file_name": "000003.jpg", "height": 16, "width": 20},
              {"id": 9, "file_name": "000009.jpg", "height": 16, "width": 20}]
    for im in images:
        image(os.path.join(base, "images", im["file_name"]), 16, 20)
    anns = [
        {"id": 1, "image_id": 7, "category_id": 18, "iscrowd": 0, "bbox": [1.5, 2, 10, 8],
         "area": 80.0, "segmentation": [[1, 2, 11, 2, 11, 10, 1, 10]],
         "keypoints": [3, 4, 2, 5, 6, 1], "num_keypoints": 2},
        {"id": 2, "image_id": 3, "category_id": 1, "iscrowd": 1, "bbox": [0, 0, 5, 5],
         "area": 25.0, "segmentation": {"counts": [0, 3, 17, 3, 297], "size": [16, 20]},
         "keypoints": [1, 1, 2, 0, 0, 0], "num_keypoints": 1},
        {"id": 3, "image_id": 7, "category_id": 1, "iscrowd": 0, "bbox": [4, 5, 6, 7],
         "area": 42.0, "segmentation": [[4, 5, 10, 5, 10, 12, 4, 12, 4, 6]],
         "keypoints": [7, 8, 2, 9, 9, 2], "num_keypoints": 2}]
    cats = [{"id": 1, "name": "person", "supercategory": "person"},
            {"id": 18, "name": "dog", "supercategory": "animal"}]
    with open(os.path.join(base, "annotations.json"), "w") as f:
        json.dump({"images": images, "annotations": anns, "categories": cats}, f)
    captions = [{"id": 1, "image_id": 7, "caption": "A dog on grass."},
                {"id": 2, "image_id": 3, "caption": "A person."},
                {"id": 3, "image_id": 7, "caption": "Two animals."}]
    with open(os.path.join(base, "captions.json"), "w") as f:
        json.dump({"images": images, "annotations": captions}, f)
    panoptic = [{"image_id": 7, "file_name": "000007.png", "segments_info": [
        {"id": 11, "category_id": 18, "iscrowd": 0, "bbox": [1, 2, 10, 8], "area": 80},
        {"id": 12, "category_id": 1, "iscrowd": 1, "bbox": [4, 5, 6, 7], "area": 42}]},
        {"image_id": 3, "file_name": "000003.png", "segments_info": [
            {"id": 13, "category_id": 1, "iscrowd": 0, "bbox": [0, 0, 5, 5], "area": 25}]}]
    with open(os.path.join(base, "panoptic.json"), "w") as f:
        json.dump({"images": images, "annotations": panoptic,
                   "categories": [dict(c, isthing=1) for c in cats]}, f)


def celeba():
    base = os.path.join(ROOT, "celeba")
    names = [f"00000{i}.jpg" for i in range(1, 5)]
    for n in names:
        image(os.path.join(base, n), 14, 12)
    attrs = ["5_o_Clock_Shadow", "Arched_Eyebrows", "Attractive"]
    values = rng.choice([-1, 1], (4, 3))
    with open(os.path.join(base, "list_attr_celeba.txt"), "w") as f:
        f.write("4\n" + " ".join(attrs) + "\n")
        for n, v in zip(names, values):
            f.write(n + "  " + " ".join(f"{x:2d}" for x in v) + "\n")
    with open(os.path.join(base, "list_eval_partition.txt"), "w") as f:
        f.write("".join(f"{n} {p}\n" for n, p in zip(names, [0, 1, 2, 0])))


def caltech256():
    base = os.path.join(ROOT, "caltech256")
    for k, cls in enumerate(["001.ak47", "002.american-flag", "257.clutter"]):
        for j in range(2):
            image(os.path.join(base, cls, f"{k + 1:03d}_{j + 1:04d}.jpg"), 10, 12)


def kmnist():
    base = os.path.join(ROOT, "kmnist")
    os.makedirs(base, exist_ok=True)
    for prefix, n in (("train", 5), ("t10k", 3)):
        imgs = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        with open(os.path.join(base, f"{prefix}-images-idx3-ubyte"), "wb") as f:
            f.write(struct.pack(">IIII", 0x803, n, 28, 28) + imgs.tobytes())
        with open(os.path.join(base, f"{prefix}-labels-idx1-ubyte"), "wb") as f:
            f.write(struct.pack(">II", 0x801, n) + rng.integers(0, 10, n, np.uint8).tobytes())


def idx(path, array, magic):
    with open(path, "wb") as f:
        f.write(struct.pack(">I", magic) + struct.pack(f">{array.ndim}I", *array.shape))
        f.write(array.astype(">i4" if array.dtype.kind == "i" else np.uint8).tobytes())


def mnist_variants():
    base = os.path.join(ROOT, "emnist")
    os.makedirs(base, exist_ok=True)
    for name in ("letters", "digits"):
        for usage, n in (("train", 4), ("test", 2)):
            idx(os.path.join(base, f"emnist-{name}-{usage}-images-idx3-ubyte"),
                rng.integers(0, 256, (n, 28, 28), dtype=np.uint8), 0x803)
            idx(os.path.join(base, f"emnist-{name}-{usage}-labels-idx1-ubyte"),
                rng.integers(0, 10, n).astype(np.uint8), 0x801)
    base = os.path.join(ROOT, "qmnist")
    os.makedirs(base, exist_ok=True)
    for stem, n in (("qmnist-train", 3), ("qmnist-test", 4), ("xnist", 2)):
        idx(os.path.join(base, f"{stem}-images-idx3-ubyte"),
            rng.integers(0, 256, (n, 28, 28), dtype=np.uint8), 0x803)
        idx(os.path.join(base, f"{stem}-labels-idx2-int"),
            rng.integers(0, 60000, (n, 8)).astype(np.int32), 0x0C02)


def usps_semeion_stl10_svhn():
    base = os.path.join(ROOT, "usps")
    os.makedirs(base, exist_ok=True)
    for name, n in (("usps", 3), ("usps.t", 2)):
        with open(os.path.join(base, name), "w") as f:
            for _ in range(n):
                vals = rng.uniform(-1, 1, 256).round(6)
                f.write(f"{rng.integers(1, 11)} " + " ".join(
                    f"{i + 1}:{v:.6f}" for i, v in enumerate(vals)) + " \n")
    base = os.path.join(ROOT, "semeion")
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, "semeion.data"), "w") as f:
        for _ in range(3):
            pix = rng.integers(0, 2, 256)
            lab = np.eye(10, dtype=int)[rng.integers(10)]
            f.write(" ".join(f"{p}.0000" for p in pix) + " " + " ".join(map(str, lab)) + " \n")
    base = os.path.join(ROOT, "stl10")
    os.makedirs(base, exist_ok=True)
    for usage, n in (("train", 1), ("test", 2)):
        rng.integers(0, 256, n * 3 * 96 * 96, dtype=np.uint8).tofile(
            os.path.join(base, f"{usage}_X.bin"))
        rng.integers(1, 11, n, dtype=np.uint8).tofile(os.path.join(base, f"{usage}_y.bin"))
    rng.integers(0, 256, 3 * 96 * 96, dtype=np.uint8).tofile(
        os.path.join(base, "unlabeled_X.bin"))
    from scipy.io import savemat
    base = os.path.join(ROOT, "svhn")
    os.makedirs(base, exist_ok=True)
    for usage, n in (("train", 3), ("test", 2), ("extra", 2)):
        savemat(os.path.join(base, f"{usage}_32x32.mat"),
                {"X": rng.integers(0, 256, (32, 32, 3, n), dtype=np.uint8),
                 "y": rng.integers(1, 11, (n, 1)).astype(np.uint8)})


def more_folders():
    base = os.path.join(ROOT, "rendered_sst2")
    for usage, n in (("train", 2), ("valid", 1), ("test", 1)):
        for cls in ("negative", "positive"):
            for j in range(n):
                image(os.path.join(base, usage, cls, f"{j + 1:04d}.png"), 6, 8, "PNG")
    base = os.path.join(ROOT, "food101")
    names = {"train": ["apple_pie/101", "baby_back_ribs/202", "apple_pie/103"],
             "test": ["baby_back_ribs/204", "apple_pie/105"]}
    os.makedirs(os.path.join(base, "meta"), exist_ok=True)
    for usage, items in names.items():
        with open(os.path.join(base, "meta", usage + ".txt"), "w") as f:
            f.write("\n".join(items) + "\n")
        for item in items:
            image(os.path.join(base, "images", item + ".jpg"), 6, 7)
    base = os.path.join(ROOT, "sun397")
    classes = ["/a/abbey", "/b/balcony/exterior", "/a/airport"]
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, "ClassName.txt"), "w") as f:
        f.write("\n".join(classes) + "\n")
    for k, c in enumerate(classes):
        for j in range(2):
            image(os.path.join(base, c.strip("/"), f"sun_{k}{j}.jpg"), 5, 6)
    base = os.path.join(ROOT, "omniglot")
    for part in ("images_background", "images_evaluation"):
        for alphabet in ("Alpha", "Beta"):
            for ch in ("character01", "character02"):
                for j in range(2):
                    image(os.path.join(base, part, alphabet, ch, f"{j + 1:02d}.png"), 5, 5,
                          "PNG", "L")
    base = os.path.join(ROOT, "sbu")
    urls = ["http://static.flickr.com/3326/3596303505_3ce4c20529.jpg",
            "http://static.flickr.com/2522/4182181099_c3c23ab1cc.jpg",
            "http://static.flickr.com/1111/2222_3333.jpg"]
    os.makedirs(os.path.join(base, "sbu_images"), exist_ok=True)
    with open(os.path.join(base, "SBU_captioned_photo_dataset_urls.txt"), "w") as f:
        f.write("\n".join(urls) + "\n")
    with open(os.path.join(base, "SBU_captioned_photo_dataset_captions.txt"), "w") as f:
        f.write("a red door\nthe sea at night \nmissing photo\n")
    for u in urls[:2]:
        image(os.path.join(base, "sbu_images", u[23:].replace("/", "_")), 5, 6)


def annotated_folders():
    base = os.path.join(ROOT, "manifest")
    os.makedirs(base, exist_ok=True)
    lines = []
    for k, (usage, labels) in enumerate([("train", ["dog"]), ("train", ["cat", "dog"]),
                                         ("eval", ["cat"]), ("train", ["bird"])]):
        image(os.path.join(base, f"img{k}.jpg"), 5, 6)
        lines.append(json.dumps({"source": f"img{k}.jpg", "usage": usage, "annotation": [
            {"type": "modelarts/image_classification", "name": n} for n in labels]}))
    with open(os.path.join(base, "manifest.json"), "w") as f:
        f.write("\n".join(lines) + "\n")
    base = os.path.join(ROOT, "flickr")
    os.makedirs(base, exist_ok=True)
    caps = []
    for name in ("1000.jpg", "2000.jpg"):
        image(os.path.join(base, name), 5, 6)
        caps += [f"{name}#{i}\tcaption {i} of {name} ." for i in range(5)]
    with open(os.path.join(base, "captions.token"), "w") as f:
        f.write("\n".join(caps) + "\n")
    base = os.path.join(ROOT, "widerface")
    split = os.path.join(base, "wider_face_split")
    os.makedirs(split, exist_ok=True)
    gt = {"train": [("0--Parade/0_Parade_1.jpg", [[1, 2, 3, 4, 0, 0, 0, 0, 0, 0],
                                                   [5, 1, 2, 2, 1, 0, 1, 0, 2, 0]]),
                    ("1--Handshaking/1_Hand_2.jpg", [[0, 0, 5, 6, 2, 1, 0, 1, 0, 1]])],
          "val": [("0--Parade/0_Parade_3.jpg", [[2, 2, 3, 3, 0, 0, 0, 0, 1, 0]]),
                  ("1--Handshaking/1_Hand_4.jpg", [[1, 1, 4, 4, 0, 1, 0, 0, 0, 0]])]}
    for usage, items in gt.items():
        folder = "WIDER_train" if usage == "train" else "WIDER_val"
        with open(os.path.join(split, f"wider_face_{usage}_bbx_gt.txt"), "w") as f:
            for name, boxes in items:
                image(os.path.join(base, folder, "images", name), 8, 9)
                f.write(name + "\n" + str(len(boxes)) + "\n")
                f.write("".join(" ".join(map(str, b)) + " \n" for b in boxes))
    image(os.path.join(base, "WIDER_test", "images", "0--Parade", "0_Parade_9.jpg"), 8, 9)
    image(os.path.join(base, "WIDER_test", "images", "1--Handshaking", "1_Hand_8.jpg"), 8, 9)
    with open(os.path.join(split, "wider_face_test_filelist.txt"), "w") as f:
        f.write("0--Parade/0_Parade_9.jpg\n1--Handshaking/1_Hand_8.jpg\n")
    base = os.path.join(ROOT, "div2k")
    for usage, ids in (("train", ["0001", "0002"]), ("valid", ["0801"])):
        for i in ids:
            image(os.path.join(base, f"DIV2K_{usage}_HR", i + ".png"), 8, 12, "PNG")
            image(os.path.join(base, f"DIV2K_{usage}_LR_bicubic", "X2", i + "x2.png"), 4, 6,
                  "PNG")
            image(os.path.join(base, f"DIV2K_{usage}_LR_mild", i + "x4m.png"), 2, 3, "PNG")


def flowers_kitti():
    from scipy.io import savemat
    base = os.path.join(ROOT, "flowers102")
    for i in range(1, 6):
        image(os.path.join(base, "jpg", f"image_{i:05d}.jpg"), 5, 6)
        image(os.path.join(base, "segmim", f"segmim_{i:05d}.jpg"), 5, 6)
    savemat(os.path.join(base, "imagelabels.mat"), {"labels": np.array([[3, 1, 102, 7, 3]])})
    savemat(os.path.join(base, "setid.mat"), {"trnid": np.array([[2, 4]]),
                                              "valid": np.array([[5]]),
                                              "tstid": np.array([[1, 3]])})
    base = os.path.join(ROOT, "kitti")
    labels = {"000000": [("Car 0.00 0 -1.58 587.01 173.33 614.12 200.12 1.65 1.67 3.64 -0.65 "
                          "1.71 46.70 -1.59"),
                         ("Pedestrian 0.50 2 0.21 10.5 20.25 30.75 60.5 1.8 0.6 0.9 1.0 2.0 "
                          "3.0 0.5")],
              "000001": ["DontCare -1 -1 -10 5.0 6.0 7.0 8.0 -1 -1 -1 -1000 -1000 -1000 -10"]}
    for name, objs in labels.items():
        image(os.path.join(base, "data_object_image_2", "training", "image_2", name + ".png"),
              6, 8, "PNG")
        folder = os.path.join(base, "data_object_label_2", "training", "label_2")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name + ".txt"), "w") as f:
            f.write("\n".join(objs) + "\n")
    image(os.path.join(base, "data_object_image_2", "testing", "image_2", "000000.png"), 6, 8,
          "PNG")


def caltech101():
    from scipy.io import savemat
    base = os.path.join(ROOT, "caltech101")
    for cls, ann, n in (("Faces", "Faces_2", 2), ("accordion", "accordion", 1),
                        ("BACKGROUND_Google", None, 1)):
        for k in range(1, n + 1):
            image(os.path.join(base, "101_ObjectCategories", cls, f"image_{k:04d}.jpg"), 5, 6)
            if ann:
                os.makedirs(os.path.join(base, "Annotations", ann), exist_ok=True)
                savemat(os.path.join(base, "Annotations", ann, f"annotation_{k:04d}.mat"),
                        {"obj_contour": rng.uniform(0, 5, (2, 3 + k)).round(2),
                         "box_coord": np.array([[1, 4, 1, 5]])})


def sbd():
    from scipy.io import savemat
    from scipy.sparse import csc_matrix
    base = os.path.join(ROOT, "sbd")
    os.makedirs(os.path.join(base, "cls"), exist_ok=True)
    names = {"train": ["2008_000002", "2008_000003"], "val": ["2008_000007"],
             "train_noval": ["2008_000002"]}
    for usage, items in names.items():
        with open(os.path.join(base, usage + ".txt"), "w") as f:
            f.write("\n".join(items) + "\n")
    for name in names["train"] + names["val"]:
        image(os.path.join(base, "img", name + ".jpg"), 5, 6)
        cells = np.empty((20, 1), dtype=object)
        for c in range(20):
            cells[c, 0] = csc_matrix((rng.random((5, 6)) > 0.8).astype(np.uint8))
        seg = rng.integers(0, 21, (5, 6)).astype(np.uint8)
        savemat(os.path.join(base, "cls", name + ".mat"),
                {"GTcls": {"Boundaries": cells, "Segmentation": seg,
                           "CategoriesPresent": np.array([[1]], np.uint8)}})


def places365():
    base = os.path.join(ROOT, "places365")
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, "categories_places365.txt"), "w") as f:
        f.write("/a/airfield 0\n/b/bakery/shop 1\n")
    train = [("/a/airfield/00000001.jpg", 0), ("/b/bakery/shop/00000001.jpg", 1),
             ("/a/airfield/00000002.jpg", 0)]
    with open(os.path.join(base, "places365_train_standard.txt"), "w") as f:
        f.write("".join(f"{p} {k}\n" for p, k in train))
    for p, _ in train:
        image(os.path.join(base, "data_256_standard", p.strip("/")), 5, 6)
        image(os.path.join(base, "data_large_standard", p.strip("/")), 10, 12)
    val = [("Places365_val_00000001.jpg", 1), ("Places365_val_00000002.jpg", 0)]
    with open(os.path.join(base, "places365_val.txt"), "w") as f:
        f.write("".join(f"{p} {k}\n" for p, k in val))
    for p, _ in val:
        image(os.path.join(base, "val_256", p), 5, 6)


def cityscapes():
    base = os.path.join(ROOT, "cityscapes")
    items = {"train": [("aachen", "aachen_000000_000019"), ("bochum", "bochum_000000_000313"),
                       ("aachen", "aachen_000001_000019")],
             "val": [("lindau", "lindau_000000_000019")], "test": [("bonn", "bonn_000000_000019")]}
    for usage, names in items.items():
        for city, stem in names:
            image(os.path.join(base, "leftImg8bit", usage, city, stem + "_leftImg8bit.png"), 4, 6,
                  "PNG")
            folder = os.path.join(base, "gtFine", usage, city)
            for kind, mode in (("instanceIds", "L"), ("labelIds", "L"), ("color", "RGB")):
                image(os.path.join(folder, f"{stem}_gtFine_{kind}.png"), 4, 6, "PNG", mode)
            with open(os.path.join(folder, f"{stem}_gtFine_polygons.json"), "w") as f:
                json.dump({"imgHeight": 4, "imgWidth": 6, "objects": [
                    {"label": "road", "polygon": [[0, 0], [5, 0], [5, 3]]}]}, f)


def lsun():
    base = os.path.join(ROOT, "lsun")
    for folder, n in (("bedroom_train", 2), ("bedroom_val", 1), ("classroom_train", 1),
                      ("classroom_val", 2), ("test", 1)):
        for k in range(n):
            image(os.path.join(base, folder, f"{k + 1}_{k + 2}.jpg"), 4, 5)


def lfw():
    base = os.path.join(ROOT, "lfw")
    people = {"Aaron_Eckhart": 1, "Abbas_Kiarostami": 2, "Zico": 3}
    for folder in ("lfw", "lfw_funneled", "lfw-deepfunneled"):
        for name, n in people.items():
            for k in range(1, n + 1):
                image(os.path.join(base, folder, name, f"{name}_{k:04d}.jpg"), 4, 4)
    with open(os.path.join(base, "lfw-names.txt"), "w") as f:
        f.write("".join(f"{n}\t{c}\n" for n, c in people.items()))
    with open(os.path.join(base, "peopleDevTrain.txt"), "w") as f:
        f.write("2\nAbbas_Kiarostami\t2\nZico\t3\n")
    with open(os.path.join(base, "peopleDevTest.txt"), "w") as f:
        f.write("1\nAaron_Eckhart\t1\n")
    with open(os.path.join(base, "people.txt"), "w") as f:
        f.write("2\n1\nZico\t3\n2\nAaron_Eckhart\t1\nAbbas_Kiarostami\t2\n")
    with open(os.path.join(base, "pairsDevTrain.txt"), "w") as f:
        f.write("1\nZico\t1\t3\nAaron_Eckhart\t1\tAbbas_Kiarostami\t2\n")
    with open(os.path.join(base, "pairsDevTest.txt"), "w") as f:
        f.write("1\nAbbas_Kiarostami\t1\t2\nZico\t2\tAaron_Eckhart\t1\n")
    with open(os.path.join(base, "pairs.txt"), "w") as f:
        f.write("1\t1\nZico\t2\t3\nAbbas_Kiarostami\t2\tZico\t1\n")


if __name__ == "__main__":
    lfw()
    lsun()
    cityscapes()
    places365()
    sbd()
    caltech101()
    flowers_kitti()
    annotated_folders()
    more_folders()
    mnist_variants()
    usps_semeion_stl10_svhn()
    voc()
    coco()
    celeba()
    caltech256()
    kmnist()
    print("wrote", ROOT)
