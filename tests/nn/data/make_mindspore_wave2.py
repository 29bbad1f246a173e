"""Make mindspore_wave2.npz: inputs, parameters, outputs and input gradients of MindSpore 2.10's
wave-2 nn cells (layers, losses, optimizer steps) and their constructor signatures, for
tests/nn/test_layers_wave2.py, test_losses_wave2.py and test_optim_wave2.py. Run with real
MindSpore (CPU), from a scratch directory (MindSpore writes stray files into the cwd):

    cd /tmp/scratch && /tmp/msvenv/bin/python /work/main/tests/nn/data/make_mindspore_wave2.py

The cases are defined once, in `cases(ms)`, over a module that is MindSpore here and
minispore in the tests (`import minispore as mindspore`); `Draw` makes the random arrays here
and reads them back from the npz there.
"""
import inspect
import os
import zlib

import numpy as np

SIGNATURE_NAMES = ["AdaFactor", "AdamOffload", "AvgPool1dExt", "AvgPool2dExt", "AvgPool3dExt", "BiDense", "CentralCrop", "Conv1dTranspose", "Conv2dBnAct", "DenseBnAct", "DiGamma", "Dropout2dExt", "Dropout3d", "DropoutExt", "EmbeddingExt", "EmbeddingLookup", "FractionalMaxPool2d", "FractionalMaxPool3d", "IGamma", "ImageGradients", "Jvp", "L1LossExt", "L1Regularizer", "LBeta", "LGamma", "LPPool1d", "LPPool2d", "LRN", "LayerNormExt", "LazyAdam", "Linear", "LogSoftmaxExt", "MatDet", "MatInverse", "MatMul", "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "MaxPool2dExt", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "MultiFieldEmbeddingLookup", "PReLUExt", "ParameterUpdate", "ReduceLogSumExp", "SampledSoftmaxLoss", "SparseTensorDenseMatmul", "SparseToDense", "SyncBatchNorm", "TimeDistributed", "Unflatten", "Unfold", "Vjp"]
# MindSpore wraps these constructors in a decorator that hides the signature; the real one:
HIDDEN_SIGNATURES = {
    "AdaFactor": "(params, learning_rate=None, eps=(1e-30, 0.001), clip_threshold=1.0, "
                 "decay_rate=0.8, beta1=0.9, weight_decay=0.0, scale_parameter=True, "
                 "relative_step=True, warmup_init=False, compression=False, loss_scale=1.0)",
    "LazyAdam": "(params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, "
                "use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0)",
}


def init_signature(cls):
    sig = inspect.signature(cls.__init__)
    return str(sig.replace(parameters=list(sig.parameters.values())[1:]))


class Draw:
    """Named random arrays: made (and kept in `store`) when `store` is writable, else read."""

    def __init__(self, case, store, make):
        self.rng = np.random.default_rng(zlib.crc32(case.encode()))
        self.case, self.store, self.make = case, store, make

    def __call__(self, key, shape, kind="normal", low=0.0, high=1.0, dtype=np.float32):
        full = f"{self.case}__{key}"
        if not self.make:
            return self.store[full]
        if kind == "normal":
            a = self.rng.standard_normal(shape)
        elif kind == "uniform":
            a = self.rng.uniform(low, high, shape)
        else:
            a = self.rng.integers(low, high, shape)
        a = np.asarray(a).astype(dtype)
        self.store[full] = a
        return a


def cases(ms):
    """name -> builder(draw) returning (function of the inputs, input arrays, positions of the
    inputs to differentiate)."""
    nn, T = ms.nn, ms.Tensor
    out = {}

    def case(fn):
        out[fn.__name__] = fn
        return fn

    @case
    def linear(d):
        cell = nn.Linear(4, 3, weight_init=T(d("w", (3, 4))), bias_init=T(d("b", (3,))))
        return cell, [d("x", (2, 5, 4))], (0,)

    @case
    def bidense(d):
        cell = nn.BiDense(3, 4, 2, weight_init=T(d("w", (2, 3, 4))), bias_init=T(d("b", (2,))))
        return cell, [d("x1", (2, 5, 3)), d("x2", (2, 5, 4))], (0, 1)

    @case
    def matrix_diag(d):
        return nn.MatrixDiag(), [d("x", (2, 3))], (0,)

    @case
    def matrix_diag_part(d):
        return nn.MatrixDiagPart(), [d("x", (2, 3, 4))], (0,)

    @case
    def matrix_set_diag(d):
        return nn.MatrixSetDiag(), [d("x", (2, 4, 3)), d("diag", (2, 3))], (0, 1)

    def spd(d):
        a = d("a", (2, 3, 3))
        return a @ a.transpose(0, 2, 1) + 3 * np.eye(3, dtype=np.float32)

    @case
    def mat_det(d):
        return nn.MatDet(), [spd(d)], (0,)

    @case
    def mat_inverse(d):
        return nn.MatInverse(), [spd(d)], (0,)

    @case
    def matmul_t(d):
        return nn.MatMul(transpose_x1=True), [d("x1", (2, 1, 4, 3)), d("x2", (3, 4, 2))], (0, 1)

    @case
    def matmul_vec(d):
        return nn.MatMul(), [d("x1", (4,)), d("x2", (2, 4, 3))], (0, 1)

    @case
    def reduce_logsumexp(d):
        return nn.ReduceLogSumExp((1, 2), keep_dims=True), [d("x", (2, 3, 4))], (0,)

    @case
    def reduce_logsumexp_all(d):
        return nn.ReduceLogSumExp(()), [d("x", (2, 3))], (0,)

    @case
    def digamma(d):
        return nn.DiGamma(), [d("x", (2, 3), "uniform", 0.3, 5.0)], (0,)

    @case
    def lgamma(d):
        return nn.LGamma(), [d("x", (2, 3), "uniform", 0.3, 5.0)], (0,)

    @case
    def igamma(d):
        return nn.IGamma(), [d("a", (2, 3), "uniform", 0.5, 3.0),
                             d("x", (2, 3), "uniform", 0.2, 4.0)], (1,)

    @case
    def lbeta(d):
        return nn.LBeta(), [d("x", (2, 3), "uniform", 0.5, 12.0),
                            d("y", (2, 3), "uniform", 0.5, 12.0)], (0, 1)

    @case
    def central_crop(d):
        return nn.CentralCrop(0.6), [d("x", (2, 3, 7, 6))], (0,)

    @case
    def image_gradients(d):
        return nn.ImageGradients(), [d("x", (1, 2, 4, 5))], (0,)

    @case
    def unfold(d):
        return nn.Unfold([1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], "valid"), \
            [d("x", (1, 2, 6, 7))], (0,)

    @case
    def unfold_same(d):
        return nn.Unfold([1, 3, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "same"), \
            [d("x", (2, 3, 5, 5))], (0,)

    @case
    def unflatten(d):
        return nn.Unflatten(1, (2, 3)), [d("x", (2, 6, 2))], (0,)

    @case
    def l1_regularizer(d):
        return nn.L1Regularizer(0.3), [d("x", (3, 4))], (0,)

    @case
    def time_distributed(d):
        dense = nn.Dense(4, 3, weight_init=T(d("w", (3, 4))), bias_init=T(d("b", (3,))))
        return nn.TimeDistributed(dense, time_axis=1), [d("x", (2, 5, 4))], (0,)

    @case
    def time_distributed_reshape(d):
        dense = nn.Dense(4, 3, weight_init=T(d("w", (3, 4))), bias_init=T(d("b", (3,))))
        return nn.TimeDistributed(dense, time_axis=1, reshape_with_axis=0), \
            [d("x", (2, 5, 4))], (0,)

    @case
    def lrn(d):
        return nn.LRN(depth_radius=2, bias=1.5, alpha=0.3, beta=0.75), \
            [d("x", (2, 5, 3, 3))], (0,)

    @case
    def lp_pool1d(d):
        return nn.LPPool1d(2, 3, 2), [d("x", (2, 3, 8), "uniform", 0.1, 2.0)], (0,)

    @case
    def lp_pool2d(d):
        return nn.LPPool2d(3, (2, 2), 2, ceil_mode=True), \
            [d("x", (1, 2, 5, 5), "uniform", 0.1, 2.0)], (0,)

    @case
    def max_unpool1d(d):
        idx = np.array([[[1, 2, 5], [0, 3, 4]]], np.int64)
        return nn.MaxUnpool1d(2, 2), [d("x", (1, 2, 3)), idx], (0,)

    @case
    def max_unpool2d(d):
        idx = np.array([[[[0, 3], [9, 14]]]], np.int64)
        return nn.MaxUnpool2d(2, 2), [d("x", (1, 1, 2, 2)), idx], (0,)

    @case
    def max_unpool3d(d):
        idx = np.arange(8, dtype=np.int64).reshape(1, 1, 2, 2, 2) * 7
        return nn.MaxUnpool3d(2), [d("x", (1, 1, 2, 2, 2)), idx], (0,)

    @case
    def fractional_max_pool2d(d):
        samples = d("samples", (1, 2, 2), "uniform", 0.0, 1.0)
        # no gradient: MindSpore 2.10's CPU FractionalMaxPoolGradWithFixedKsize rejects it
        return nn.FractionalMaxPool2d(2, output_size=(3, 3), _random_samples=T(samples)), \
            [d("x", (1, 2, 6, 7))], ()

    @case
    def fractional_max_pool3d(d):
        samples = d("samples", (1, 2, 3), "uniform", 0.0, 1.0)
        return nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 0.5),
                                      _random_samples=T(samples)), \
            [d("x", (1, 2, 4, 6, 6))], (0,)

    @case
    def avg_pool1d_ext(d):
        return nn.AvgPool1dExt(3, 2, 1, count_include_pad=False), [d("x", (2, 3, 8))], (0,)

    @case
    def avg_pool2d_ext(d):
        return nn.AvgPool2dExt(3, 2, 1, ceil_mode=True, divisor_override=4), \
            [d("x", (1, 2, 6, 5))], (0,)

    @case
    def avg_pool3d_ext(d):
        return nn.AvgPool3dExt(2, padding=1, count_include_pad=False), \
            [d("x", (1, 2, 3, 4, 4))], (0,)

    @case
    def max_pool2d_ext(d):
        return nn.MaxPool2dExt(3, 2, 1, dilation=1, return_indices=True), \
            [d("x", (1, 2, 6, 7))], (0,)

    @case
    def dropout3d_eval(d):
        cell = nn.Dropout3d(0.4)
        cell.set_train(False)
        return cell, [d("x", (1, 2, 2, 2, 2))], (0,)

    @case
    def layer_norm_ext(d):
        return nn.LayerNormExt((3, 4), eps=1e-4), [d("x", (2, 3, 4))], (0,)

    @case
    def prelu_ext(d):
        return nn.PReLUExt(3, 0.1), [d("x", (2, 3, 4))], (0,)

    @case
    def log_softmax_ext(d):
        return nn.LogSoftmaxExt(dim=1), [d("x", (2, 5))], (0,)

    @case
    def embedding_ext(d):
        table = d("w", (6, 3))
        ids = np.array([[0, 2, 5], [3, 3, 1]], np.int32)
        return nn.EmbeddingExt(6, 3, padding_idx=3, _weight=T(table)), [ids], ()

    @case
    def embedding_lookup(d):
        table = d("w", (5, 3))
        ids = np.array([[0, 4], [2, 7]], np.int32)
        return nn.EmbeddingLookup(5, 3, param_init=T(table)), [ids], ()

    @case
    def embedding_lookup_max_norm(d):
        table = d("w", (5, 3))
        ids = np.array([[0, 4], [2, 1]], np.int32)
        return nn.EmbeddingLookup(5, 3, param_init=T(table), max_norm=0.8), [ids], ()

    for op in ("SUM", "MEAN", "MAX"):
        def multi_field(d, op=op):
            table = d("w", (6, 2))
            ids = np.array([[0, 1, 2, 5], [3, 4, 4, 0]], np.int32)
            values = np.array([[1.0, 2.0, 0.0, 0.5], [1.0, -1.0, 3.0, 2.0]], np.float32)
            fields = np.array([[0, 0, 1, 2], [2, 2, 0, 0]], np.int32)
            cell = nn.MultiFieldEmbeddingLookup(6, 2, 3, param_init=T(table), operator=op)
            return cell, [ids, values, fields], ()
        out[f"multi_field_{op.lower()}"] = multi_field

    for mode, pad in (("same", 0), ("valid", 0), ("pad", 1)):
        def conv1d_t(d, mode=mode, pad=pad):
            cell = nn.Conv1dTranspose(4, 6, 3, stride=2, pad_mode=mode, padding=pad,
                                      has_bias=True, weight_init=T(d("w", (4, 6, 3))),
                                      bias_init=T(d("b", (6,))))
            return cell, [d("x", (2, 4, 5))], (0,)
        out[f"conv1d_transpose_{mode}"] = conv1d_t

    @case
    def sync_batch_norm(d):
        cell = nn.SyncBatchNorm(3, gamma_init=T(d("g", (3,))), beta_init=T(d("b", (3,))))
        cell.set_train(True)
        return cell, [d("x", (4, 3, 2, 2))], (0,)

    @case
    def conv2d_bn_act(d):
        cell = nn.Conv2dBnAct(2, 3, 3, weight_init=T(d("w", (3, 2, 3, 3))), has_bn=True,
                              activation="leakyrelu", alpha=0.1)
        cell.set_train(True)
        return cell, [d("x", (2, 2, 4, 4))], (0,)

    @case
    def dense_bn_act(d):
        cell = nn.DenseBnAct(4, 3, weight_init=T(d("w", (3, 4))), has_bn=True,
                             activation="tanh")
        cell.set_train(False)
        return cell, [d("x", (5, 4))], (0,)

    @case
    def sparse_dense_matmul(d):
        idx = np.array([[0, 1], [1, 0], [2, 3]], np.int64)
        cell = nn.SparseTensorDenseMatmul(adjoint_st=True)
        return (lambda v, dense: cell(T(idx), v, (3, 4), dense)), \
            [d("v", (3,)), d("dense", (3, 2))], (0, 1)

    @case
    def sparse_to_dense(d):
        idx = np.array([[0, 1], [1, 2]], np.int64)
        cell = nn.SparseToDense()
        return (lambda v: cell(ms.COOTensor(T(idx), v, (3, 4)))), [d("v", (2,))], (0,)

    @case
    def jvp(d):
        cell = nn.Jvp(_Cube(nn))
        tangent = d("v", (2, 3))
        return (lambda x, y: cell(x, y, (T(tangent), T(tangent)))), \
            [d("x", (2, 3)), d("y", (2, 3))], ()

    @case
    def vjp(d):
        cell = nn.Vjp(_Cube(nn))
        cot = d("v", (2, 3))
        return (lambda x, y: cell(x, y, T(cot))), [d("x", (2, 3)), d("y", (2, 3))], ()

    @case
    def micro_batch_interleaved(d):
        loss = _DenseLoss(nn, T(d("w", (2, 3))))
        return nn.MicroBatchInterleaved(loss, 2), [d("x", (4, 3)), d("y", (4, 2))], (0, 1)

    @case
    def pipeline_cell(d):
        loss = _DenseLoss(nn, T(d("w", (2, 3))))
        return nn.PipelineCell(loss, 3), [d("x", (6, 3)), d("y", (6, 2))], (0, 1)

    @case
    def virtual_dataset_triple(d):
        return nn.VirtualDatasetCellTriple(_Triple(nn)), \
            [d("a", (2, 3)), d("b", (2, 3)), d("c", (2, 3))], (0, 1, 2)

    @case
    def l1_loss_ext(d):
        return nn.L1LossExt("sum"), [d("x", (2, 3)), d("y", (2, 3))], (0,)

    @case
    def sampled_softmax(d):
        sampled = np.array([0, 4, 6], np.int32)
        tec = d("tec", (3, 1), "uniform", 0.1, 0.9)
        sec = d("sec", (3,), "uniform", 0.1, 0.9)
        cell = nn.SampledSoftmaxLoss(3, 7, sampled_values=(T(sampled), T(tec), T(sec)))
        return cell, [d("w", (7, 4)), d("b", (7,)), np.array([[1], [2], [5]], np.int32),
                      d("x", (3, 4))], (0, 1, 3)

    @case
    def sampled_softmax_two_true(d):
        sampled = np.array([0, 3], np.int32)
        tec = d("tec", (2, 2), "uniform", 0.1, 0.9)
        sec = d("sec", (2,), "uniform", 0.1, 0.9)
        cell = nn.SampledSoftmaxLoss(2, 6, num_true=2,
                                     sampled_values=(T(sampled), T(tec), T(sec)))
        return cell, [d("w", (6, 3)), d("b", (6,)), np.array([[1, 2], [4, 5]], np.int32),
                      d("x", (2, 3))], (0, 3)

    return out


def _DenseLoss(nn, weight):
    class DenseLoss(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 2, weight_init=weight, has_bias=False)
            self.loss = nn.MSELoss()

        def construct(self, x, y):
            return self.loss(self.dense(x), y)
    return DenseLoss()


def _Triple(nn):
    class Triple(nn.Cell):
        def construct(self, a, b, c):
            return a * b + c
    return Triple()


def _Cube(nn):
    class Cube(nn.Cell):
        def construct(self, x, y):
            return x * x * x + 2 * y
    return Cube()


def optimizer_cases(ms):
    """name -> builder(draw) returning (optimizer factory over params, parameter arrays,
    gradient arrays per step)."""
    nn = ms.nn

    def adafactor_rel(params):
        return nn.AdaFactor(params)

    def adafactor_lr(params):
        return nn.AdaFactor(params, learning_rate=0.05, relative_step=False, beta1=0.0,
                            weight_decay=0.1, scale_parameter=False)

    def adafactor_warm(params):
        return nn.AdaFactor(params, warmup_init=True, clip_threshold=0.5, decay_rate=0.6)

    def lazy_adam(params):
        return nn.LazyAdam(params, learning_rate=0.05, weight_decay=0.01)

    def adam_offload(params):
        return nn.AdamOffload(params, learning_rate=0.05, use_nesterov=True)

    return {"adafactor_rel": adafactor_rel, "adafactor_lr": adafactor_lr,
            "adafactor_warm": adafactor_warm, "lazy_adam": lazy_adam,
            "adam_offload": adam_offload}


OPT_SHAPES = ((3, 4), (4,), (2, 2, 3))
OPT_STEPS = 3


def as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def flat_outputs(out):
    flat = []
    for o in as_list(out):
        flat.extend(flat_outputs(o) if isinstance(o, (tuple, list)) else [o])
    return flat


def run_case(ms, name, store, make):
    """{key: array} of case `name`'s outputs (`__out<i>`) and input gradients (`__grad<p>`),
    computed by `ms` (the random arrays are made into, or read from, `store`)."""
    d = Draw(name, store, make)
    fn, inputs, positions = cases(ms)[name](d)
    args = [ms.Tensor(a) for a in inputs]
    outs = flat_outputs(fn(*args))
    result = {f"{name}__out{i}": o.asnumpy() for i, o in enumerate(outs)}
    if isinstance(fn, ms.nn.Cell):
        result[f"{name}__params"] = np.array(
            sorted(f"{n}:{tuple(p.shape)}" for n, p in fn.parameters_and_names()))
    if positions:
        sens = [d(f"sens{i}", o.shape) for i, o in enumerate(outs)]

        def loss(*a):
            res = flat_outputs(fn(*a))
            total = (res[0] * ms.Tensor(sens[0])).sum()
            for r, s in zip(res[1:], sens[1:]):
                total = total + (r * ms.Tensor(s)).sum()
            return total
        grads = ms.grad(loss, positions)(*args)
        for p, g in zip(positions, as_list(grads)):
            result[f"{name}__grad{p}"] = g.asnumpy()
    return result


def run_optimizer(ms, name, store, make):
    """{key: array}: the parameters after each of OPT_STEPS steps of optimizer case `name`,
    and the sorted names of the optimizer's parameters."""
    d = Draw(name, store, make)
    params = [ms.Parameter(ms.Tensor(d(f"p{i}", s)), name=f"p{i}")
              for i, s in enumerate(OPT_SHAPES)]
    opt = optimizer_cases(ms)[name](params)
    result = {}
    for step in range(OPT_STEPS):
        grads = tuple(ms.Tensor(d(f"g{step}_{i}", s)) for i, s in enumerate(OPT_SHAPES))
        opt(grads)
        for i, p in enumerate(params):
            result[f"{name}__w{step}_{i}"] = p.asnumpy()
    result[f"{name}__state_names"] = np.array(sorted(p.name for p in opt.get_parameters()))
    return result


def main():
    import mindspore as ms

    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    store, failures = {}, {}
    for name in cases(ms):
        try:
            store.update(run_case(ms, name, store, True))
        except Exception as e:  # noqa: BLE001 -- recorded, the test documents each one
            failures[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    for name in optimizer_cases(ms):
        store.update(run_optimizer(ms, name, store, True))
    sigs = {}
    for n in SIGNATURE_NAMES:
        sigs[n] = HIDDEN_SIGNATURES.get(n) or init_signature(getattr(ms.nn, n))
    store["signatures"] = np.array([f"{k}={v}" for k, v in sigs.items()])
    store["failures"] = np.array([f"{k}={v}" for k, v in failures.items()])
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_wave2.npz")
    np.savez_compressed(path, **store)
    print("failures:", failures)


if __name__ == "__main__":
    main()
