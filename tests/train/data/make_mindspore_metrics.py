"""Make mindspore_metrics.npz: inputs and results of MindSpore 2.10's metrics and of a short
`Model` run, for tests/train/test_metrics.py and test_model.py to compare minispore against.
Run once in a separate venv with real MindSpore (`pip install mindspore "numpy<2"`):
python make_mindspore_metrics.py"""
import os

import mindspore as ms
import mindspore.dataset as ds
import numpy as np
from mindspore import Tensor, nn
from mindspore import train as T

rng = np.random.default_rng(7)
data = {}


def run(name, metric, batches, **eval_kwargs):
    """Feed `batches` (tuples of arrays) to `metric`, store inputs and `eval` result."""
    metric.clear()
    for k, batch in enumerate(batches):
        for j, arr in enumerate(batch):
            data[f"{name}_in{k}_{j}"] = arr
        metric.update(*[Tensor(a) for a in batch])
    data[f"{name}_out"] = np.asarray(metric.eval(**eval_kwargs), np.float64)


def scores(n, c):
    return rng.standard_normal((n, c)).astype(np.float32)


def labels(n, c):
    return rng.integers(0, c, n).astype(np.int32)


def binary(*shape):
    return rng.integers(0, 2, shape).astype(np.float32)


cls = [(scores(12, 4), labels(12, 4)), (scores(7, 4), labels(7, 4))]
onehot = [(scores(9, 3), np.eye(3, dtype=np.float32)[labels(9, 3)])]
spatial = [(rng.standard_normal((5, 3, 4)).astype(np.float32), labels(20, 3).reshape(5, 4))]
multi = [(binary(10, 5), binary(10, 5)), (binary(6, 5), binary(6, 5))]
multi3 = [(binary(4, 3, 2), binary(4, 3, 2))]

run("acc_cls", T.Accuracy(), cls)
run("acc_onehot", T.Accuracy(), onehot)
run("acc_spatial", T.Accuracy(), spatial)
run("acc_multi", T.Accuracy("multilabel"), multi)
run("acc_multi3", T.Accuracy("multilabel"), multi3)
for avg in (False, True):
    tag = "_avg" if avg else ""
    run(f"prec_cls{tag}", T.Precision(), cls, average=avg)
    run(f"rec_cls{tag}", T.Recall(), cls, average=avg)
    run(f"prec_multi{tag}", T.Precision("multilabel"), multi, average=avg)
    run(f"rec_multi{tag}", T.Recall("multilabel"), multi, average=avg)
    run(f"prec_onehot{tag}", T.Precision(), onehot, average=avg)
    run(f"f1_cls{tag}", T.F1(), cls, average=avg)
    run(f"fbeta05_cls{tag}", T.Fbeta(0.5), cls, average=avg)
    run(f"fbeta2_onehot{tag}", T.Fbeta(2), onehot, average=avg)
for k in (1, 2, 3):
    run(f"top{k}", T.TopKCategoricalAccuracy(k), cls)
run("top2_onehot", T.TopKCategoricalAccuracy(2), onehot)
run("top5", T.Top5CategoricalAccuracy(), [(scores(8, 7), labels(8, 7))])
for norm in ("no_norm", "target", "prediction", "all"):
    run(f"cm_scores_{norm}", T.ConfusionMatrix(4, norm), cls)
    run(f"cm_probs_{norm}", T.ConfusionMatrix(2, norm, 0.3),
        [(rng.random(10).astype(np.float32), binary(10))])
run("cm_int", T.ConfusionMatrix(3), [(labels(11, 3), labels(11, 3))])
run("loss", T.Loss(), [(np.array(0.5, np.float32),), (np.array([0.1, 0.2], np.float32),),
                       (rng.random(5).astype(np.float32),)])
reg = [(rng.standard_normal((6, 3)).astype(np.float32),
        rng.standard_normal((6, 3)).astype(np.float32)),
       (rng.standard_normal((4, 3)).astype(np.float32),
        rng.standard_normal(12).astype(np.float32))]
run("mae", T.MAE(), reg)
run("mse", T.MSE(), reg)
probs = rng.random((6, 4)).astype(np.float32)
probs /= probs.sum(axis=1, keepdims=True)
plabels = np.array([0, 3, 1, 2, 2, 1], np.int32)
run("ppl", T.Perplexity(), [(probs, plabels)])
run("ppl_ignore", T.Perplexity(ignore_label=2), [(probs, plabels)])

# ---- a short Model run: Dense(4, 3), Momentum, two epochs of three batches ------------------
x = rng.standard_normal((20, 4)).astype(np.float32)
y = (np.argmax(x[:, :3], axis=1)).astype(np.int32)
w0 = (0.3 * rng.standard_normal((3, 4))).astype(np.float32)
b0 = np.zeros(3, np.float32)
data.update(model_x=x, model_y=y, model_w0=w0, model_b0=b0)


def dataset():
    return ds.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False).batch(8)


def fresh():
    net = nn.Dense(4, 3)
    net.weight.set_data(Tensor(w0))
    net.bias.set_data(Tensor(b0))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    return net, T.Model(net, loss, opt, metrics={"acc", "loss"})


class Record(T.Callback):
    def __init__(self):
        self.losses = []

    def on_train_step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


net, model = fresh()
rec = Record()
model.train(2, dataset(), callbacks=[rec])
data["model_losses"] = np.array(rec.losses)
data["model_w_after"] = net.weight.asnumpy()
result = model.eval(dataset())
data["model_eval_acc"], data["model_eval_loss"] = result["acc"], result["loss"]
data["model_predict"] = model.predict(Tensor(x[:3])).asnumpy()

net, model = fresh()
history = T.History()
model.fit(2, dataset(), dataset(), callbacks=[history])
data["fit_acc"] = np.array(history.history["acc"])
data["fit_loss"] = np.array(history.history["loss"])

np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 "mindspore_metrics.npz"), **data)
print(len(data), "arrays,", ms.__version__)
