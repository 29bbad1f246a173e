"""Make mindspore_text.npz: outputs of MindSpore 2.10's dataset.text and dataset.transforms ops
and of its text datasets on the fixture files of text/ (the cases are in text/text_cases.py),
and the signatures of the public names, for tests/dataset/test_text.py to compare against. Run
once in a separate venv with real MindSpore (`pip install mindspore "numpy<2"`), from a scratch
folder (MindSpore writes log files into the working directory):
python /path/to/make_mindspore_text.py"""
import inspect
import json
import os
import shutil
import sys
import tempfile

import mindspore as ms
import numpy as np
from mindspore import dataset as ds
from mindspore.dataset import text, transforms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "text"))
import text_cases as cases  # noqa: E402

data = {}
_vocab = text.SentencePieceVocab.from_file([os.path.join(HERE, "text", "sp_corpus.txt")], 40, 1.0,
                                           text.SentencePieceModel.UNIGRAM,
                                           {"normalization_rule_name": "identity"})
text.SentencePieceVocab.save_model(_vocab, os.path.join(HERE, "text"), "sp_unigram.model")


def put(prefix, result):
    if isinstance(result, tuple):
        for k, r in enumerate(result):
            data[f"{prefix}/{k}"] = np.asarray(r)
        data[f"{prefix}/n"] = np.array(len(result))
    else:
        data[f"{prefix}/0"] = np.asarray(result)
        data[f"{prefix}/n"] = np.array(-1)


def run(prefix, fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the error type is the result
        data[f"{prefix}/error"] = np.array(type(e).__name__)
        return
    put(prefix, out)


for name, fn in cases.transform_cases(ms, text, transforms).items():
    run(f"t/{name}", fn)
for name, fn in cases.vocab_cases(text, ds).items():
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001
        data[f"v/{name}/error"] = np.array(type(e).__name__)
        continue
    if isinstance(out, dict):
        items = sorted(out.items(), key=lambda kv: kv[1])
        data[f"v/{name}/keys"] = np.array([k for k, _ in items])
        data[f"v/{name}/ids"] = np.array([v for _, v in items], np.int64)
    else:
        data[f"v/{name}/list"] = np.array(out)
# MindSpore writes cleaned copies of the IWSLT files into the dataset folder: read a copy
scratch = tempfile.mkdtemp()
shutil.copytree(os.path.join(HERE, "text"), os.path.join(scratch, "text"))
for name, fn in cases.dataset_cases(ds, os.path.join(scratch, "text")).items():
    try:
        d = fn()
        data[f"d/{name}/columns"] = np.array(d.get_col_names())
        data[f"d/{name}/size"] = np.array(d.get_dataset_size())
        rows = list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))
    except Exception as e:  # noqa: BLE001
        data[f"d/{name}/error"] = np.array(type(e).__name__)
        continue
    data[f"d/{name}/rows"] = np.array(len(rows))
    for r, row in enumerate(rows):
        for c, col in enumerate(row):
            data[f"d/{name}/{r}/{c}"] = np.asarray(col)

for mod, names in ((text, text.__all__ if hasattr(text, "__all__") else dir(text)),
                   (transforms, dir(transforms))):
    for n in names:
        obj = getattr(mod, n, None)
        if n.startswith("_") or obj is None or inspect.ismodule(obj):
            continue
        try:
            data[f"sig/{mod.__name__}.{n}"] = np.array(str(inspect.signature(obj)))
        except (TypeError, ValueError):
            pass
for n in cases.DATASET_NAMES:
    data[f"sig/mindspore.dataset.{n}"] = np.array(str(inspect.signature(getattr(ds, n))))
for cls, meths in ((text.Vocab, ("from_list", "from_dict", "from_file", "from_dataset",
                                 "tokens_to_ids", "ids_to_tokens", "vocab")),
                   (text.SentencePieceVocab, ("from_file", "from_dataset", "save_model")),
                   (text.Vectors, ("from_file",)), (text.FastText, ("from_file",)),
                   (text.GloVe, ("from_file",)), (text.CharNGram, ("from_file",)),
                   (text.JiebaTokenizer, ("add_word", "add_dict"))):
    for m in meths:
        data[f"sig/{cls.__name__}.{m}"] = np.array(str(inspect.signature(getattr(cls, m))))

def encode(a):
    """An array as JSON: dtype, shape and values (floats exact as Python floats)."""
    values = a.reshape(-1).tolist()
    if a.dtype.kind == "S":
        values = [v.decode("latin-1") for v in values]
    return {"dtype": a.dtype.str, "shape": list(a.shape), "data": values}


# one JSON document in one array: a thousand small arrays would cost more in zip headers
shutil.rmtree(scratch)
out = os.path.join(HERE, "mindspore_text.npz")
doc = json.dumps({k: encode(v) for k, v in data.items()}, ensure_ascii=False)
np.savez_compressed(out, json=np.array(doc))
print(f"wrote {len(data)} arrays to {out}")
