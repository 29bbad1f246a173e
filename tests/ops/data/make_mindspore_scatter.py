"""Make mindspore_scatter.npz: inputs, outputs and gradients of MindSpore 2.10's scatter, gather,
segment, index and search ops, and the signatures of their classes and functions, for
tests/ops/test_scatter_family.py. Run with real MindSpore (CPU):

    /tmp/msvenv/bin/python tests/ops/data/make_mindspore_scatter.py

A case whose MindSpore CPU kernel fails is left out (the test skips it) and printed here.
"""
import inspect
import json
import os

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, ops

rng = np.random.default_rng(0)
data = {}
signatures = {}


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def save_inputs(name, inputs):
    for k, a in enumerate(inputs):
        if isinstance(a, np.ndarray):
            data[f"{name}/in{k}"] = a


def to_ms(a):
    return Tensor(a) if isinstance(a, np.ndarray) else a


def record(name, fn, *inputs, grad=()):
    """Outputs of fn(*inputs) and, for the positions in `grad`, the gradients of
    sum(out * cotangent)."""
    save_inputs(name, inputs)
    args = [to_ms(a) for a in inputs]
    try:
        out = fn(*args)
    except Exception as e:  # a missing or failing CPU kernel
        print(f"skip {name}: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
        return
    outs = out if isinstance(out, (tuple, list)) else (out,)
    for k, o in enumerate(outs):
        data[f"{name}/out{k}"] = o.asnumpy() if isinstance(o, Tensor) else np.asarray(o)
    if grad:
        cot = rng.standard_normal(outs[0].shape).astype(np.float32)
        data[f"{name}/cot"] = cot

        def loss(*diff):
            full = list(args)
            for p, d in zip(grad, diff):
                full[p] = d
            res = fn(*full)
            res = res[0] if isinstance(res, (tuple, list)) else res
            return (res * Tensor(cot)).sum()
        try:
            gs = ms.grad(loss, tuple(range(len(grad))))(*[args[p] for p in grad])
        except Exception as e:
            print(f"no grad {name}: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
            return
        gs = gs if isinstance(gs, tuple) else (gs,)
        for p, g in zip(grad, gs):
            data[f"{name}/grad{p}"] = g.asnumpy()


def record_in_place(name, fn, x, *inputs):
    """The Parameter x after fn(x, *inputs) wrote into it."""
    save_inputs(name, (x,) + inputs)
    p = Parameter(Tensor(x.copy()), name="p")
    try:
        fn(p, *[to_ms(a) for a in inputs])
    except Exception as e:
        print(f"skip {name}: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
        return
    data[f"{name}/out0"] = p.asnumpy()


# ---- segment reductions ----------------------------------------------------------------------
x = f32(6, 3)
x[1, 0] = x[4, 0]  # a tie in segment 0
x[2, 1] = 0.0  # a zero in segment 1
ids = np.array([0, 1, 1, 3, 0, 1], np.int32)
for name in ("unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
             "unsorted_segment_prod"):
    record(name, lambda a, i, f=getattr(ops, name): f(a, i, 4), x, ids, grad=(0,))
ids2 = np.array([[0, 1, 1], [2, 0, 2]], np.int32)
record("unsorted_segment_sum_2d", lambda a, i: ops.unsorted_segment_sum(a, i, 3), f32(2, 3, 2),
       ids2, grad=(0,))
xs = f32(5, 2)
sids = np.array([0, 0, 2, 2, 3], np.int32)
for name in ("SegmentSum", "SegmentMax", "SegmentMin", "SegmentProd", "SegmentMean"):
    record(name, lambda a, i, c=getattr(ops, name): c()(a, i), xs, sids, grad=(0,))
record("SegmentMean_int", lambda a, i: ops.SegmentMean()(a, i),
       np.array([1, 2, -3, -4, 7], np.int32), np.array([0, 0, 1, 1, 1], np.int32))

# ---- N-D scatters ------------------------------------------------------------------------------
xt = f32(3, 4)
nd_idx = np.array([[0, 1], [2, 3], [1, 0]], np.int32)
nd_dup = np.array([[0, 1], [2, 3], [0, 1]], np.int32)
upd = f32(3)
for name in ("tensor_scatter_sub", "tensor_scatter_mul", "tensor_scatter_div",
             "tensor_scatter_max", "tensor_scatter_min"):
    fn = getattr(ops, name)
    record(name, fn, xt, nd_idx, upd, grad=(0, 2))
    record(name + "_dup", fn, xt, nd_dup, upd)
row_idx = np.array([[2], [0]], np.int32)
record("tensor_scatter_mul_rows", ops.tensor_scatter_mul, xt, row_idx, f32(2, 4), grad=(0, 2))
record("tensor_scatter_int_div", ops.tensor_scatter_div, np.array([[7, -7], [3, 4]], np.int32),
       np.array([[0, 0], [0, 1]], np.int32), np.array([2, 2], np.int32))
xe = f32(3, 4)
e_idx = np.array([[0, 3], [2, -1], [1, 1]], np.int32)
e_upd = f32(3, 2)
e_once = np.array([[0, 3], [2, -1], [1, 0]], np.int32)
record("tensor_scatter_elements_none", lambda a, i, u: ops.tensor_scatter_elements(a, i, u, 1),
       xe, e_once, e_upd, grad=(0, 2))
record("tensor_scatter_elements_add",
       lambda a, i, u: ops.tensor_scatter_elements(a, i, u, 1, "add"), xe, e_idx, e_upd,
       grad=(0, 2))
record("gather_nd", ops.gather_nd, f32(3, 4, 2), np.array([[0, 1], [2, 3], [0, 1]], np.int32),
       grad=(0,))
record("gather_nd_rows", ops.gather_nd, f32(3, 4), np.array([[2], [0]], np.int64), grad=(0,))

# ---- scatters into a Parameter -----------------------------------------------------------------
xp = f32(4, 3)
p_idx = np.array([[1, 3], [1, 0]], np.int32)
p_upd = f32(2, 2, 3)
for name in ("scatter_add", "scatter_mul", "scatter_div", "scatter_max", "scatter_min",
             "scatter_update"):
    record_in_place(name, getattr(ops, name), xp, p_idx, p_upd)
record_in_place("ScatterSub", ops.ScatterSub(), xp, p_idx, p_upd)
record_in_place("scatter_div_int", ops.scatter_div, np.array([[7, -7], [3, 4]], np.int32),
                np.array([0], np.int32), np.array([[2, 2]], np.int32))
xn = f32(4, 3)
n_idx = np.array([[1], [3], [1]], np.int32)
n_upd = f32(3, 3)
for name in ("scatter_nd_add", "scatter_nd_sub", "scatter_nd_mul", "scatter_nd_div",
             "scatter_nd_max", "scatter_nd_min", "scatter_nd_update"):
    record_in_place(name, getattr(ops, name), xn, n_idx, n_upd)
record("ScatterAddWithAxis", ops.ScatterAddWithAxis(1), xe, e_idx, e_upd)  # not in place
record_in_place("index_add", lambda p, i, y: ops.index_add(p, i, y, 1), xp,
                np.array([2, 0, 2], np.int32), f32(4, 3))
record_in_place("InplaceIndexAdd", ops.InplaceIndexAdd(0), xp, np.array([3, 3], np.int32),
                f32(2, 3))

# ---- out-of-place row updates, index fill and put ----------------------------------------------
# MindSpore's gradients of InplaceAdd/Sub/Update(V2) are zeros, and IndexFill's gradient to its
# value is zero: those are not recorded.
xr = f32(4, 3)
vr = f32(3, 3)
record("inplace_add", lambda a, v: ops.inplace_add(a, v, (1, 3, 1)), xr, vr)
record("inplace_sub", lambda a, v: ops.inplace_sub(a, v, (1, 3, 1)), xr, vr)
record("inplace_update", lambda a, v: ops.inplace_update(a, v, (1, 3, 0)), xr, vr)
record("InplaceUpdateV2", lambda a, v: ops.InplaceUpdateV2()(a, Tensor(np.array([2], np.int32)),
                                                            v), xr, f32(1, 3))
record("index_fill", lambda a, v: ops.index_fill(a, 1, Tensor(np.array([0, -1], np.int32)), v),
       xr, np.array(2.5, np.float32), grad=(0,))
record("IndexPut", lambda a, v: ops.IndexPut(0)(a, v, [Tensor(np.array([0, 3], np.int32)),
                                                      Tensor(np.array([2, 0], np.int32))]),
       xr, f32(2), grad=(0, 1))
record("IndexPut_acc", lambda a, v: ops.IndexPut(1)(a, v, [Tensor(np.array([1, 1], np.int32))]),
       xr, f32(3), grad=(0, 1))
mask = np.array([True, False, True])
record("MaskedScatter", lambda a, s: ops.MaskedScatter()(a, Tensor(mask), s), xr, f32(9),
       grad=(0, 1))
record("argwhere", ops.argwhere, np.array([[1.0, 0.0], [0.0, 2.0]], np.float32))

# ---- counting and searching --------------------------------------------------------------------
ints = np.array([1, 1, 3, 0, 5, 3], np.int32)
record("bincount", ops.bincount, ints)
record("bincount_w", lambda a, w: ops.bincount(a, w, 8), ints, f32(6))
record("Bincount", lambda a, w: ops.Bincount()(a, Tensor(np.array(4, np.int32)), w), ints,
       f32(6))
vals = np.array([[0.0, 1.0, 4.0], [6.0, 3.0, 2.5]], np.float32)
record("bucketize", lambda a: ops.bucketize(a, [1.0, 3.0, 5.0]), vals)
record("bucketize_right", lambda a: ops.bucketize(a, [1.0, 3.0, 5.0], right=True), vals)
record("Bucketize", ops.Bucketize([1.0, 3.0, 5.0]), vals)
seq = np.array([[1.0, 3.0, 5.0, 7.0], [2.0, 4.0, 6.0, 8.0]], np.float32)
record("searchsorted", lambda s, v: ops.searchsorted(s, v, out_int32=True), seq, vals)
record("searchsorted_right", lambda s, v: ops.searchsorted(s, v, side="right", out_int32=True),
       seq, vals)
record("searchsorted_1d", lambda s, v: ops.searchsorted(s, v, right=True, out_int32=True),
       seq[0], vals)
record("SearchSorted", ops.SearchSorted(ms.int32, True), seq, vals)
record("LowerBound", ops.LowerBound(), seq, vals)
record("UpperBound", ops.UpperBound(ms.int64), seq, vals)
hx = np.array([1.0, 2.0, 1.0, 4.0, -1.0, 2.9, 3.0], np.float32)
record("histc", lambda a: ops.histc(a, 4, 0.0, 3.0), hx)
record("histc_auto", lambda a: ops.histc(a, 5), hx)
record("histc_int", lambda a: ops.histc(a, 4), np.array([1, 2, 1, 4], np.int32))
record("Histogram", ops.Histogram(4, 0.0, 3.0), hx)
record("HistogramFixedWidth", lambda a: ops.HistogramFixedWidth(5)(
    a, Tensor(np.array([0.0, 5.0], np.float32))), hx)
runs = np.array([1, 1, 2, 2, 3, 1, 1], np.int32)
record("unique_consecutive", ops.unique_consecutive, runs)
record("unique_consecutive_inv", lambda a: ops.unique_consecutive(a, True), runs)
record("unique_consecutive_all", lambda a: ops.unique_consecutive(a, True, True), runs)
rows = np.array([[1, 2], [1, 2], [3, 4], [1, 2]], np.int64)
record("unique_consecutive_dim", lambda a: ops.unique_consecutive(a, True, True, 0), rows)
record("UniqueConsecutive", ops.UniqueConsecutive(True, True, 1), rows.T.copy())
record("unique_with_pad", lambda a: ops.unique_with_pad(a, 8),
       np.array([1, 1, 5, 5, 4, 4, 3, 3, 2, 2], np.int32))
record("unique_with_pad_i64", lambda a: ops.unique_with_pad(a, Tensor(np.array(0, np.int64))),
       np.array([3, 1, 3], np.int64))
record("UnravelIndex", lambda a, d: ops.UnravelIndex()(a, d), np.array([5, 7, 0], np.int32),
       np.array([3, 3], np.int32))
record("NthElement", lambda a: ops.NthElement()(a, 1), f32(2, 4), grad=(0,))
record("NthElement_rev", lambda a: ops.NthElement(True)(a, 0), f32(2, 4), grad=(0,))
record("ListDiff", ops.ListDiff(), np.array([1, 2, 3, 4, 5, 6], np.int32),
       np.array([1, 3, 5], np.int32))
record("FillDiagonal", ops.FillDiagonal(9.0), f32(5, 3), grad=(0,))
record("FillDiagonal_wrap", ops.FillDiagonal(9.0, True), f32(7, 3))
record("FillDiagonal_3d", ops.FillDiagonal(9.0), f32(2, 2, 2))
record("EmbeddingLookup", lambda a, i: ops.EmbeddingLookup()(a, i, 1), f32(3, 2),
       np.array([[0, 2], [3, -1]], np.int32), grad=(0,))
scores = np.array([[1.0, 3.0, 3.0, 0.5], [4.0, 5.0, 6.0, 7.0]], np.float32)
targets = np.array([2, 1], np.int32)
for k in (1, 2, 3):
    record(f"intopk_{k}", lambda a, t, k=k: ops.intopk(a, t, k), scores, targets)
record("InTopK", ops.InTopK(2), scores, targets)
record("msort", ops.msort, f32(3, 2), grad=(0,))
record("top_k", lambda a: ops.top_k(a, 2), f32(2, 4), grad=(0,))
record("select_scatter", lambda a, s: ops.select_scatter(a, s, 1, 1), f32(2, 3), f32(2),
       grad=(0, 1))
record("slice_scatter", lambda a, s: ops.slice_scatter(a, s, 1, 0, 4, 2), f32(2, 4), f32(2, 2),
       grad=(0, 1))
data["InvertPermutation"] = np.array(ops.InvertPermutation()((3, 4, 0, 2, 1)))

# ---- signatures --------------------------------------------------------------------------------
CLASSES = """ScatterAdd ScatterAddWithAxis ScatterDiv ScatterMax ScatterMin ScatterMul ScatterNdAdd
ScatterNdDiv ScatterNdMax ScatterNdMin ScatterNdMul ScatterNdSub ScatterNdUpdate
ScatterNonAliasingAdd ScatterSub ScatterUpdate TensorScatterDiv TensorScatterElements
TensorScatterMax TensorScatterMin TensorScatterMul TensorScatterSub GatherNd GatherV2
SparseGatherV2 IndexAdd IndexFill IndexPut InplaceAdd InplaceIndexAdd InplaceSub InplaceUpdate
InplaceUpdateV2 MaskedFill MaskedScatter MaskedSelect SegmentMax SegmentMean SegmentMin
SegmentProd SegmentSum UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentProd
UnsortedSegmentSum UniqueConsecutive UniqueWithPad Bincount Bucketize SearchSorted
HistogramFixedWidth Histogram NonZero InvertPermutation UnravelIndex LowerBound UpperBound
NthElement ListDiff FillDiagonal EmbeddingLookup InTopK""".split()
FUNCTIONS = """scatter_add scatter_div scatter_max scatter_min scatter_mul scatter_update
scatter_nd_add scatter_nd_div scatter_nd_max scatter_nd_min scatter_nd_mul scatter_nd_sub
tensor_scatter_div tensor_scatter_elements tensor_scatter_max tensor_scatter_min
tensor_scatter_mul tensor_scatter_sub index_add index_fill inplace_add inplace_index_add
inplace_sub inplace_update gather_nd take bincount bucketize histc searchsorted
unique_consecutive unique_with_pad unsorted_segment_max unsorted_segment_min
unsorted_segment_prod unsorted_segment_sum argwhere select_scatter slice_scatter intopk msort
top_k""".split()
for name in CLASSES:
    cls = getattr(ops, name)
    signatures[f"{name}.__init__"] = str(inspect.signature(cls.__init__))
    call = str(inspect.signature(cls.__call__))
    if call != "(self, *args)":  # MindSpore names the call's inputs for these only
        signatures[f"{name}.__call__"] = call
for name in FUNCTIONS:
    signatures[name] = str(inspect.signature(getattr(ops, name)))
data["signatures"] = np.array(json.dumps(signatures, sort_keys=True))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_scatter.npz")
np.savez_compressed(out, **data)
print(f"wrote {out}: {len(data)} arrays")
