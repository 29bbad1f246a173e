"""Regenerates mindspore_map_cache_idx.json (run with MindSpore 2.10 CPU's python, from a scratch
dir): sequences of MapCacheIdx calls on one hashmap (a Parameter, or a plain Tensor) in PyNative
mode. Each call records its inputs, the four outputs, the hashmap after it and, where the step is
a Tensor, the step after it (the kernel increments it in place). An int16 hashmap is computed
on a converted copy: its outputs are right but neither it nor the step is written (its
hashmap_after is the initial table each time). Then the errors: their exception types for bad
inputs."""
import json
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, ops

ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
rng = np.random.default_rng(13)
GOLDEN = 0.6180339


def home(key, rows):
    return int(((GOLDEN * key) - np.floor(GOLDEN * key)) * rows)


def filled(rows, slots, first_key, dtype):
    """A hashmap of `rows` rows whose cache slots 0..slots-1 hold keys first_key.. (placed by
    linear probing from their home rows), all at the initial step -5."""
    table = np.zeros((rows, 4), dtype)
    for slot in range(slots):
        key = first_key + slot
        row, tag = home(key, rows), 1
        while table[row, 3] != 0:
            row, tag = (row + 1) % rows, tag + 1
        table[row] = (key, slot, -5, tag)
    return table


def sequence(name, table, calls, dtype, as_parameter=True, step_tensor=False):
    hashmap = Parameter(Tensor(table), name=name) if as_parameter else Tensor(table)
    op = ops.MapCacheIdx()
    record = {"hashmap": table.tolist(), "dtype": str(np.dtype(dtype)),
              "parameter": as_parameter, "step_tensor": step_tensor, "calls": []}
    step_t = Tensor(np.array(calls[0][1], dtype)) if step_tensor else None
    for indices, step, emb_max_num, offset in calls:
        indices = np.asarray(indices, dtype)
        step_arg = step_t if step_tensor else step
        outs = op(hashmap, Tensor(indices), step_arg, emb_max_num, offset)
        call = {"indices": indices.tolist(), "shape": list(indices.shape), "step": step,
                "emb_max_num": emb_max_num, "cache_max_num": offset,
                "outputs": [o.asnumpy().tolist() for o in outs],
                "hashmap_after": hashmap.asnumpy().tolist()}
        if step_tensor:
            call["step_after"] = int(step_t.asnumpy())
        record["calls"].append(call)
    return record


out = {"sequences": {}, "errors": {}}
doc_table = np.array([[0, 0, 0, 0], [10, 5, -5, 1], [2, 1, -5, 1], [15, 7, -5, 2], [0, 0, 0, 0],
                      [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [3, 3, -5, 1], [21, 9, -5, 1]])
out["sequences"]["doc"] = sequence("doc", doc_table.astype(np.int32), [
    ([10, 2, 25, 5, 3], 0, 25, 10),
    ([10, 12, 31, 40], 1, 25, 10),
    ([[13, 13], [26, 26]], 3, 25, 10),
    ([11, 13, 14], 6, 25, 10),
    ([12], 7, 25, 10)], np.int32)

# Hits, misses, repeated keys (hit and miss) and keys out of range, from random draws.
for name, dtype, param, step_tensor in (("rand32", np.int32, True, False),
                                        ("rand64", np.int64, True, True),
                                        ("rand16", np.int16, True, False),
                                        ("tensor32", np.int32, False, True)):
    table = filled(40, 16, 300, dtype)
    calls = []
    for step in range(8):
        n = int(rng.integers(1, 7))
        indices = rng.integers(95, 125, size=n)
        if step % 3 == 1:
            indices[-1] = indices[0]
        if step == 5:
            indices = indices.reshape(1, n)
        calls.append((indices, step, 24, 100))
    out["sequences"][name] = sequence(name, table, calls, dtype, param, step_tensor)

# A step that does not start at 0 and skips values: entries used at step s-1 stay in the cache.
table = filled(12, 6, 50, np.int32)
out["sequences"]["skips"] = sequence("skips", table, [
    ([1, 2, 3], 10, 20, 0), ([4, 5, 1], 11, 20, 0), ([6, 7, 8], 12, 20, 0),
    ([9, 9, 10], 20, 20, 0), (7, 21, 20, 0), (np.zeros(0, np.int32), 22, 20, 0)], np.int32)


def error(name, make):
    try:
        make()
    except Exception as e:  # noqa: BLE001  (the type is what is recorded)
        out["errors"][name] = type(e).__name__
        return
    out["errors"][name] = None


def run(table, indices, step=0, emb=25, offset=10, idx_dtype=None):
    hashmap = Parameter(Tensor(table), name="e")
    idx = Tensor(np.asarray(indices, idx_dtype or table.dtype))
    return ops.MapCacheIdx()(hashmap, idx, step, emb, offset)


t32 = doc_table.astype(np.int32)
error("float_hashmap", lambda: run(t32.astype(np.float32), [10, 2]))
error("uint8_hashmap", lambda: run(t32.astype(np.uint8), [10, 2]))
error("int8_hashmap", lambda: run(t32.astype(np.int8), [10, 2]))
error("rank1_hashmap", lambda: run(np.zeros(8, np.int32), [10, 2]))
error("rank3_hashmap", lambda: run(np.zeros((2, 2, 4), np.int32), [10, 2]))
error("empty_hashmap", lambda: run(np.zeros((0, 4), np.int32), [10, 2]))
error("int64_indices_int32_hashmap", lambda: run(t32, [10, 2], idx_dtype=np.int64))
error("float_step", lambda: run(t32, [10, 2], step=1.5))
error("float_emb_max_num", lambda: run(t32, [10, 2], emb=2.5))
error("none_step", lambda: run(t32, [10, 2], step=None))
error("list_indices", lambda: ops.MapCacheIdx()(Parameter(Tensor(t32), name="l"), [10, 2], 0, 25,
                                                  10))
full = np.array([[i, i, 5, 1] for i in range(4)], np.int32)
error("search_full", lambda: run(full, [40, 41], step=9, emb=100, offset=0))
error("delete_full", lambda: run(np.concatenate([full, np.zeros((1, 4), np.int32)]),
                                 [0, 1, 2, 3, 4, 7], step=5, emb=100, offset=0))

path = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "mindspore_map_cache_idx.json")
with open(path, "w") as f:
    json.dump(out, f, separators=(",", ":"))
print("wrote", path, ms.__version__)
