"""Regenerates mindspore_misc.npz (run with MindSpore 2.10 CPU's python, from a scratch dir):
EditDistance, RaggedRange, NoRepeatNGram, SubAndFilter, MapUniform, FusedCastAdamWeightDecay
(the updated Parameters: its outputs are zeros), FusedAdaFactor(WithGlobalNorm) (two steps) and
LogSoftmaxExt (both in graph mode, the only mode where their CPU kernels run), the view classes
and the fallback (whole image) of SampleDistortedBoundingBoxV2 on fixed inputs, and the
signatures (RNNTLoss, ConfusionMatrix and FloatStatus have no CPU kernel in 2.10)."""
import inspect
import json
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, ops

ms.set_context(device_target="CPU")
rng = np.random.default_rng(13)
out = {}


def edit_case(name, h_idx, h_val, h_shape, t_idx, t_val, t_shape, normalize):
    args = [np.array(h_idx, np.int64).reshape(-1, len(h_shape)), np.array(h_val),
            np.array(h_shape, np.int64), np.array(t_idx, np.int64).reshape(-1, len(t_shape)),
            np.array(t_val), np.array(t_shape, np.int64)]
    res = ops.EditDistance(normalize)(*[Tensor(a) for a in args])
    for i, a in enumerate(args):
        out[f"{name}_in{i}"] = a
    out[f"{name}_out"] = res.asnumpy()


HYP_IDX = [[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]]
edit_case("ed_norm", HYP_IDX, np.float32([1, 2, 3, 4, 5, 6]), [4, 3],
          [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0]], np.float32([1, 3, 3, 3, 6]), [4, 3], True)
edit_case("ed_raw", HYP_IDX, np.int32([1, 2, 3, 4, 5, 6]), [3, 3],
          [[0, 0], [0, 1], [1, 0], [1, 1], [3, 0]], np.int32([1, 3, 3, 3, 6]), [4, 3], False)
edit_case("ed_3d", [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 0], [1, 1, 1], [1, 1, 2]],
          np.int64([7, 8, 7, 1, 2, 3]), [2, 2, 3],
          [[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 1, 0], [1, 1, 1]], np.int64([7, 7, 8, 2, 3]),
          [2, 2, 3], True)
edit_case("ed_empty", [[0, 0], [0, 1], [1, 0]], np.float32([1, 2, 3]), [3, 2], [[0, 0]],
          np.float32([1]), [3, 2], True)

for i, (dt, ts, s, l, d) in enumerate([
        (np.int32, ms.int64, [2, 5, 8], [3, 5, 12], [1, 1, 1]),
        (np.int64, ms.int32, [0, 10, -3, 4], [7, 0, 3, 4], [2, -3, 4, 1]),
        (np.float32, ms.int64, [0.0, 5.0, 1.0], [3.0, 1.0, 1.5], [1.5, -2.0, 0.2]),
        (np.float64, ms.int32, [0.5, -1.0], [-2.0, 2.0], [-0.75, 0.5])]):
    args = [np.array(v, dt) for v in (s, l, d)]
    splits, values = ops.RaggedRange(ts)(*[Tensor(a) for a in args])
    for j, a in enumerate(args):
        out[f"rr{i}_in{j}"] = a
    out[f"rr{i}_splits"] = splits.asnumpy()
    out[f"rr{i}_values"] = values.asnumpy()

for i, (n, dt) in enumerate([(1, np.float32), (2, np.float32), (3, np.float16), (2, np.float64),
                             (4, np.float32)]):
    seq = rng.integers(0, 4, (2, 3, 9)).astype(np.int32)
    logp = rng.standard_normal((2, 3, 6)).astype(dt)
    res = ops.NoRepeatNGram(n)(Tensor(seq), Tensor(logp))
    out[f"nr{i}_seq"], out[f"nr{i}_logp"], out[f"nr{i}_out"] = seq, logp, res.asnumpy()
    out[f"nr{i}_n"] = np.array(n)

for i, (x, max_num, offset) in enumerate([(np.int32([1, 3, 5, 8, 9, 16]), 10, 5),
                                          (np.int64([[1, 3], [5, 8]]), 4, 2),
                                          (np.int32([1, 2]), 1, 5)]):
    res, idx = ops.SubAndFilter()(Tensor(x), max_num, offset)
    out[f"sf{i}_x"], out[f"sf{i}_args"] = x, np.array([max_num, offset])
    out[f"sf{i}_res"], out[f"sf{i}_idx"] = res.asnumpy(), idx.asnumpy()

for i, (x, size, groups) in enumerate([(np.int32([0, 1, 2, 3, 4, 5, 6, 7]), 4, 2),
                                       (np.int64([[0, 1], [2, 5]]), 3, 2),
                                       (np.int16([-5, -1, 1, 4]), 2, 3)]):
    res = ops.MapUniform()(Tensor(x), size, groups)
    out[f"mu{i}_x"], out[f"mu{i}_args"], out[f"mu{i}_out"] = x, np.array([size, groups]), \
        res.asnumpy()

for i, (var_dtype, decay) in enumerate([(np.float16, 0.1), (np.float32, 0.0), (np.float32, 0.1)]):
    var0 = rng.standard_normal(4).astype(var_dtype)
    m0 = rng.standard_normal(4).astype(np.float32)
    v0 = rng.random(4).astype(np.float32)
    g = rng.standard_normal(4).astype(np.float32)
    var, m, v = Parameter(Tensor(var0), name="var"), Parameter(Tensor(m0), name="m"), \
        Parameter(Tensor(v0), name="v")
    ops.FusedCastAdamWeightDecay()(var, m, v, Tensor(0.1, ms.float32), Tensor(0.9, ms.float32),
                                   Tensor(0.999, ms.float32), Tensor(1e-8, ms.float32),
                                   Tensor(decay, ms.float32), Tensor(g), Tensor(2.0, ms.float32))
    out[f"fc{i}_in"] = np.stack([var0.astype(np.float32), m0, v0, g])
    out[f"fc{i}_decay"] = np.array(decay)
    out[f"fc{i}_var"], out[f"fc{i}_m"], out[f"fc{i}_v"] = var.asnumpy(), m.asnumpy(), v.asnumpy()

x = rng.standard_normal((2, 3, 4)).astype(np.float32)
cot = rng.standard_normal((2, 4)).astype(np.float32)
out["view_x"], out["view_cot"] = x, cot
out["select_out"] = ops.SelectView()(Tensor(x), 2, 1).asnumpy()
out["select_dx"] = ms.grad(lambda a: (ops.SelectView()(a, 2, 1) * Tensor(cot)).sum())(
    Tensor(x)).asnumpy()
out["transpose_out"] = ops.TransposeView()(Tensor(x), (2, 0, -2)).asnumpy()
out["transpose_ext_out"] = ops.TransposeExtView()(Tensor(x), 0, -1).asnumpy()

for i, (size, boxes, covered, kw) in enumerate([
        (np.int32([60, 40, 3]), [[[0.0, 0.0, 1.0, 1.0]]], 0.9, {"area_range": (0.05, 0.1)}),
        (np.int64([30, 50, 1]), [[[0.1, 0.2, 0.9, 0.95]], [[0.0, 0.0, 1.0, 1.0]]], 1.0,
         {"area_range": (0.1, 0.5)}),
        (np.uint8([20, 20, 3]), [[[0.0, 0.0, 1.0, 1.0]]], 1.0, {"area_range": (0.5, 0.9)})]):
    boxes = np.array(boxes, np.float32)
    res = ops.SampleDistortedBoundingBoxV2(seed=1, seed2=2, max_attempts=20, **kw)(
        Tensor(size), Tensor(boxes), Tensor(np.array([covered], np.float32)))
    out[f"sd{i}_size"], out[f"sd{i}_boxes"], out[f"sd{i}_covered"] = size, boxes, np.array(covered)
    out[f"sd{i}_area"] = np.array(kw["area_range"])
    for j, r in enumerate(res):
        out[f"sd{i}_out{j}"] = r.asnumpy()



class _AdaFactorStep(ms.nn.Cell):
    """FusedAdaFactor runs on CPU in graph mode only (PyNative cannot select its kernel)."""

    def __init__(self, flags, global_norm, param, shape):
        super().__init__()
        cls = ops.FusedAdaFactorWithGlobalNorm if global_norm else ops.FusedAdaFactor
        self.op, self.global_norm = cls(*flags), global_norm
        factored = len(shape) >= 2
        self.param = Parameter(Tensor(param), name="param")
        self.exp_avg = Parameter(Tensor(np.zeros(shape, np.float32)), name="exp_avg")
        self.row = Parameter(Tensor(np.zeros(shape[:-1] if factored else (1,), np.float32)),
                             name="row")
        self.col = Parameter(Tensor(np.zeros(shape[:-2] + shape[-1:] if factored else (1,),
                                             np.float32)), name="col")
        self.sq = Parameter(Tensor(np.zeros(shape if not factored else (1,), np.float32)),
                            name="sq")

    def construct(self, eps, clip, beta1, beta2t, decay, lr, grad, norm):
        args = (eps, clip, beta1, beta2t, decay, lr, grad, self.param, self.exp_avg, self.row,
                self.col, self.sq)
        if self.global_norm:
            return self.op(*args, norm)
        return self.op(*args)


ADA_CASES = [((2, 3), (False, False, False), 0.0), ((2, 3), (True, True, True), 0.0),
             ((4,), (False, False, False), 0.0), ((4,), (True, True, True), 2.0),
             ((2, 3, 2), (True, False, True), 0.5), ((3, 2), (False, True, False), 2.0)]
ms.set_context(mode=ms.GRAPH_MODE)
for i, (shape, flags, norm) in enumerate(ADA_CASES):
    param0 = rng.standard_normal(shape).astype(np.float32)
    net = _AdaFactorStep(flags, norm, param0, shape)
    grads = rng.standard_normal((2,) + shape).astype(np.float32)
    for step in range(2):
        net(Tensor(np.array([1e-30, 1e-3], np.float32)), Tensor(1.0, ms.float32),
            Tensor(0.9, ms.float32), Tensor(0.8 if step == 0 else 0.7, ms.float32),
            Tensor(0.05, ms.float32), Tensor(0.1, ms.float32), Tensor(grads[step]),
            Tensor(norm, ms.float32))
    out[f"af{i}_param0"], out[f"af{i}_grads"] = param0, grads
    for key in ("param", "exp_avg", "row", "col", "sq"):
        out[f"af{i}_{key}"] = getattr(net, key).asnumpy()


class _LogSoftmaxExt(ms.nn.Cell):
    """LogSoftmaxExt's CPU kernel is registered for graph mode only."""

    def __init__(self, dim, dtype):
        super().__init__()
        self.op, self.dim, self.dtype = ops.LogSoftmaxExt(), dim, dtype

    def construct(self, x):
        return self.op(x, self.dim, self.dtype)


LS_CASES = [((5,), None, None), ((3, 4), None, None), ((2, 3, 4), None, None),
            ((2, 3, 4, 2), None, None), ((2, 3, 4), -1, ms.float64), ((3, 4), 0, None)]
for i, (shape, dim, dtype) in enumerate(LS_CASES):
    x = rng.standard_normal(shape).astype(np.float32)
    out[f"ls{i}_x"], out[f"ls{i}_out"] = x, _LogSoftmaxExt(dim, dtype)(Tensor(x)).asnumpy()
ms.set_context(mode=ms.PYNATIVE_MODE)

names = ["EditDistance", "RaggedRange", "NoRepeatNGram", "RNNTLoss", "ConfusionMatrix",
         "FloatStatus", "LogSoftmaxExt", "SubAndFilter", "MapUniform", "FusedCastAdamWeightDecay",
         "TransposeView", "TransposeExtView", "SelectView", "CopyWithSlice",
         "SampleDistortedBoundingBoxV2", "FusedAdaFactor", "FusedAdaFactorWithGlobalNorm",
         "Reusing"]
sigs = {n: str(inspect.signature(getattr(ops, n).__init__)) for n in names}
for n in ("LogSoftmaxExt", "TransposeView", "TransposeExtView"):
    sigs[f"{n}.__call__"] = str(inspect.signature(getattr(ops, n).__call__))
out["signatures"] = np.array(json.dumps(sigs))
np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])),
                                 "mindspore_misc.npz"), **out)
print(json.dumps(sigs, indent=1))
