"""Write mindspore_vision_signatures.json: the signature of every public class (`__init__`) and
function of MindSpore 2.10's `mindspore.dataset.vision`, for test_vision_extra.py. Run with
real MindSpore from a scratch folder."""
import inspect
import json
import os

from mindspore.dataset import vision

sigs = {}
for name in sorted(dir(vision)):
    obj = getattr(vision, name)
    if name.startswith("_") or inspect.ismodule(obj):
        continue
    if inspect.isclass(obj):
        if hasattr(obj, "__members__"):
            sigs[name] = {k: v.value for k, v in obj.__members__.items()}
            continue
        sigs[name] = str(inspect.signature(obj.__init__)).replace("self, ", "").replace(
            "(self)", "()")
    elif callable(obj):
        sigs[name] = str(inspect.signature(obj))
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_vision_signatures.json")
with open(path, "w") as f:
    json.dump(sigs, f, indent=1, sort_keys=True)
print(len(sigs), "names")
