"""Bad input is a clear error at the call site, and nothing changes (docs/reliability.md §3).

Table-driven: each case makes one wrong call against a small training world and must raise the
named exception type, from that call, with a message naming the op and what was wrong. Then
every parameter, buffer, optimizer state, version counter, context key, the tape and the random
streams must be exactly as before, and a training step must give bitwise the same result as in a
world that never saw the error.
"""
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops

from ._world import World, diff, snapshot

f32 = np.float32


def t32(*shape, fill=0.5):
    return Tensor(np.full(shape, fill, f32))


def ints(values, dtype=np.int32):
    return Tensor(np.asarray(values, dtype))


@dataclass
class Case:
    id: str
    call: Callable  # call(world, prepared): the one wrong call
    exc: type
    words: tuple = ()  # what the message must name (op, argument, shapes, dtypes); any case
    setup: Optional[Callable] = None  # setup(world) -> prepared, run before the snapshot


def _sq(x):
    return (x * x).sum()


def _grads(w):
    return tuple(ms.grad(w.loss_net, None, w.opt.parameters)(w.x, w.y))


def _raise_after_ops(x):
    y = ops.exp(x) * x
    ops.tanh(y)
    raise KeyError("boom")


def _state_with_bad_last(w):
    sd = {k: Tensor(v.asnumpy().copy()) for k, v in w.net.state_dict().items()}
    for k in sd:
        sd[k] = Tensor(sd[k].asnumpy() + 1) if sd[k].dtype == ms.float32 else sd[k]
    sd["fc2.bias"] = t32(5)
    return sd


def _state_missing_last(w):
    sd = {k: Tensor(v.asnumpy() + 1) for k, v in w.net.state_dict().items()
          if v.dtype == ms.float32}
    del sd["fc2.bias"]
    return sd


def _params_with_bad_last(w):
    out = {p.name: Parameter(Tensor(p.asnumpy() + 1), name=p.name)
           for p in w.net.get_parameters()}
    out["fc2.bias"] = Parameter(t32(5), name="fc2.bias")
    return out


def _params_with_int_first_bias(w):
    out = {p.name: Parameter(Tensor(p.asnumpy() * 2), name=p.name)
           for p in w.net.get_parameters()}
    out["fc1.bias"] = Parameter(Tensor(np.ones(8, np.int32)), name="fc1.bias")
    return out


CASES = [
    # ---- ops: shapes -----------------------------------------------------------------------
    Case("matmul-shapes", lambda w, s: ops.matmul(t32(2, 3), t32(4, 5)), ValueError,
         ("MatMul", "(2, 3)", "(4, 5)")),
    Case("add-broadcast", lambda w, s: t32(2, 3) + t32(4), ValueError, ("Add", "(2, 3)", "(4,)")),
    Case("mul-broadcast-functional", lambda w, s: ops.mul(t32(2, 3), t32(2, 2)), ValueError,
         ("Mul", "(2, 3)", "(2, 2)")),
    Case("reshape-size", lambda w, s: ops.reshape(t32(2, 3), (4, 2)), ValueError,
         ("Reshape", "(2, 3)", "(4, 2)")),
    Case("reshape-two-minus-one", lambda w, s: t32(2, 3).reshape(-1, -1), ValueError,
         ("Reshape",)),
    Case("transpose-perm", lambda w, s: ops.transpose(t32(2, 3), (0, 0)), ValueError,
         ("Transpose",)),
    Case("concat-shapes", lambda w, s: ops.concat((t32(2, 3), t32(2, 4)), 0), ValueError,
         ("Concat", "(2, 3)", "(2, 4)")),
    Case("stack-shapes", lambda w, s: ops.stack((t32(2, 3), t32(3, 2))), ValueError,
         ("Stack", "(2, 3)", "(3, 2)")),
    Case("sum-axis", lambda w, s: ops.sum(t32(2, 3), 2), ValueError, ("ReduceSum", "axis")),
    Case("softmax-axis", lambda w, s: ops.softmax(t32(2, 3), 5), ValueError, ("Softmax", "axis")),
    Case("expand-dims-axis", lambda w, s: ops.expand_dims(t32(2, 3), 4), ValueError,
         ("ExpandDims", "axis")),
    Case("broadcast-to", lambda w, s: ops.broadcast_to(t32(2, 3), (4, 3)), ValueError,
         ("BroadcastTo", "(2, 3)", "(4, 3)")),
    Case("split-uneven", lambda w, s: ops.split(t32(5, 2), [2, 2], 0), ValueError, ("split",)),
    Case("tile-multiples", lambda w, s: ops.tile(t32(2, 3), (2, -1)), ValueError, ("Tile",)),
    Case("topk-k", lambda w, s: ops.topk(t32(2, 3), 5), ValueError, ("TopK", "k")),
    Case("cumsum-axis", lambda w, s: ops.cumsum(t32(2, 3), 3), ValueError, ("CumSum", "axis")),
    Case("conv2d-channels", lambda w, s: ops.conv2d(t32(1, 3, 5, 5), t32(2, 4, 3, 3)), ValueError,
         ("Conv2D", "3", "4")),
    Case("pad-negative-beyond", lambda w, s: ops.pad(t32(2, 3), (-4, 0)), ValueError, ("Pad",)),
    Case("setitem-shape", lambda w, s: t32(2, 3).__setitem__(0, t32(4)), ValueError,
         ("__setitem__", "(4,)")),
    # ---- ops: types --------------------------------------------------------------------------
    Case("add-str", lambda w, s: t32(2) + "a", TypeError, ("Add", "str")),
    Case("tensor-from-str", lambda w, s: Tensor("abc"), TypeError, ("Tensor",)),
    Case("tensor-ragged", lambda w, s: Tensor([[1.0, 2.0], [3.0]]), ValueError, ("Tensor",)),
    Case("cast-bad-dtype", lambda w, s: ops.cast(t32(2), "float99"), TypeError,
         ("Cast", "float99")),
    Case("cell-numpy-input", lambda w, s: w.net(np.ones((2, 4), f32)), TypeError,
         ("Net", "NumPy")),
    Case("getitem-float-index", lambda w, s: t32(3)[1.5], IndexError, ("index",)),
    Case("item-many", lambda w, s: t32(3).item(), ValueError, ("item", "3")),
    Case("setitem-str-value", lambda w, s: t32(3).__setitem__(0, "x"), TypeError,
         ("__setitem__", "str")),
    # ---- ops: indices ------------------------------------------------------------------------
    Case("getitem-out-of-range", lambda w, s: t32(3)[5], IndexError, ("5", "3")),
    Case("setitem-out-of-range", lambda w, s: t32(3).__setitem__(7, 1.0), IndexError,
         ("__setitem__", "7")),
    Case("gather-out-of-range", lambda w, s: ops.gather(t32(3, 2), ints([0, 3]), 0), IndexError,
         ("Gather", "3")),
    Case("gather-negative", lambda w, s: ops.gather(t32(3, 2), ints([-4]), 0), IndexError,
         ("Gather", "-4")),
    Case("one-hot-depth", lambda w, s: ops.one_hot(ints([0, 1]), -1, Tensor(1.0), Tensor(0.0)),
         ValueError, ("depth",)),
    # ---- losses --------------------------------------------------------------------------------
    Case("cross-entropy-class-high", lambda w, s: ops.cross_entropy(t32(2, 3), ints([0, 3])),
         IndexError, ("cross_entropy", "3")),
    Case("cross-entropy-class-negative", lambda w, s: ops.cross_entropy(t32(2, 3), ints([-2, 0])),
         IndexError, ("cross_entropy", "-2")),
    Case("nll-class-high", lambda w, s: ops.nll_loss(t32(2, 3), ints([5, 0])), IndexError,
         ("nll_loss", "5")),
    Case("sparse-ce-cell-class", lambda w, s: w.loss_fn(t32(2, 3), ints([0, 9])), IndexError,
         ("SoftmaxCrossEntropyWithLogits", "9")),
    Case("cross-entropy-loss-cell", lambda w, s: nn.CrossEntropyLoss()(t32(2, 3), ints([0, 3])),
         IndexError, ("3",)),
    Case("ce-batch-mismatch", lambda w, s: ops.cross_entropy(t32(2, 3), ints([0, 1, 2])),
         ValueError, ("cross_entropy", "(2, 3)", "(3,)")),
    Case("mse-shapes", lambda w, s: ops.mse_loss(t32(2, 3), t32(3, 2)), ValueError,
         ("(2, 3)", "(3, 2)")),
    Case("bce-logits-shapes", lambda w, s: ops.binary_cross_entropy_with_logits(
        t32(2, 3), t32(3, 3), t32(3), t32(3)), ValueError, ("(2, 3)", "(3, 3)")),
    Case("ce-float-labels-shape", lambda w, s: ops.cross_entropy(t32(2, 3), t32(2, 4)),
         ValueError, ("cross_entropy", "(2, 3)", "(2, 4)")),
    # ---- cells ---------------------------------------------------------------------------------
    Case("dense-features", lambda w, s: w.net(t32(2, 5)), ValueError, ("Dense", "(2, 5)")),
    Case("train-step-features", lambda w, s: w.train(t32(6, 5), w.y), ValueError,
         ("Dense", "(6, 5)")),
    Case("train-step-label-range", lambda w, s: w.train(w.x, ints([0, 1, 2, 3, 4, 5])),
         IndexError, ("SoftmaxCrossEntropyWithLogits",)),
    Case("train-forward-label-range", lambda w, s: w.loss_net(w.x, ints([0, 1, 2, 3, 4, 5])),
         IndexError, ("SoftmaxCrossEntropyWithLogits",)),
    Case("conv2d-cell-channels", lambda w, s: s(t32(1, 4, 5, 5)), ValueError,
         ("Conv2d", "(1, 4, 5, 5)"), setup=lambda w: nn.Conv2d(3, 2, 3)),
    Case("batchnorm-features", lambda w, s: w.net.bn(t32(6, 5)), ValueError,
         ("BatchNorm", "5", "8")),
    Case("layernorm-shape", lambda w, s: s(t32(2, 3)), ValueError, ("LayerNorm", "(4,)"),
         setup=lambda w: nn.LayerNorm((4,))),
    Case("embedding-id-range", lambda w, s: s(ints([1, 4])), IndexError, ("embedding", "4"),
         setup=lambda w: nn.Embedding(4, 2)),
    Case("embedding-float-ids", lambda w, s: s(t32(2)), TypeError, ("Embedding", "Float32"),
         setup=lambda w: nn.Embedding(4, 2)),
    Case("dense-bad-construction", lambda w, s: nn.Dense(0, 3), ValueError, ("Dense",)),
    Case("lstm-input-size", lambda w, s: s(t32(2, 5, 6)), ValueError, ("LSTM", "3", "6"),
         setup=lambda w: nn.LSTM(3, 4, batch_first=True)),
    Case("dropout-p", lambda w, s: ops.dropout(t32(3), p=1.5), ValueError, ("dropout", "p")),
    # ---- autodiff API misuse -----------------------------------------------------------------
    Case("grad-position-range", lambda w, s: ms.grad(_sq, 3)(t32(2)), ValueError,
         ("grad", "grad_position", "3")),
    Case("grad-position-duplicate", lambda w, s: ms.grad(_sq, (0, 0)), ValueError,
         ("grad", "grad_position")),
    Case("grad-position-negative", lambda w, s: ms.grad(_sq, -1), ValueError,
         ("grad", "grad_position")),
    Case("grad-weights-tensor", lambda w, s: ms.grad(_sq, 0, [t32(2)]), TypeError,
         ("grad", "weights", "Tensor")),
    Case("grad-both-none", lambda w, s: ms.grad(_sq, None, None), ValueError,
         ("grad", "grad_position", "weights")),
    Case("grad-has-aux-single", lambda w, s: ms.grad(_sq, has_aux=True)(t32(2)), ValueError,
         ("grad", "has_aux")),
    Case("grad-returns-none", lambda w, s: ms.grad(lambda x: None)(t32(2)), TypeError,
         ("grad", "None")),
    Case("grad-int-input", lambda w, s: ms.grad(_sq)(ints([1, 2])), TypeError,
         ("grad", "Int32")),
    Case("grad-int-output", lambda w, s: ms.grad(lambda x: ops.cast(x, ms.int32).sum())(t32(2)),
         TypeError, ("grad", "Int64")),
    Case("grad-non-callable", lambda w, s: ms.value_and_grad(3), TypeError,
         ("value_and_grad", "fn")),
    Case("grad-sens-shape", lambda w, s: ms.grad(lambda x: x * 2, sens_param=True)(
        t32(3), t32(2)), ValueError, ("grad", "sens", "(3,)")),
    Case("grad-weights-of-net-bad-input", lambda w, s: ms.value_and_grad(
        w.loss_net, None, w.opt.parameters)(t32(6, 7), w.y), ValueError, ("Dense", "(6, 7)")),
    Case("grad-fn-raises-midway", lambda w, s: ms.grad(_raise_after_ops)(t32(3)), KeyError,
         ("boom",)),
    # ---- optimizers --------------------------------------------------------------------------
    Case("optimizer-grad-count", lambda w, s: w.opt(s[:-1]), ValueError,
         ("Momentum", "gradients"), setup=_grads),
    Case("optimizer-last-grad-shape", lambda w, s: w.opt(s[:-1] + (t32(7),)), ValueError,
         ("Momentum", "(7,)"), setup=_grads),
    Case("adam-last-grad-type", lambda w, s: w.adam(s[:-1] + ("g",)), TypeError,
         ("Adam", "str"), setup=_grads),
    Case("optimizer-not-tuple", lambda w, s: w.adam(s[0]), TypeError, ("Adam",), setup=_grads),
    Case("sgd-negative-lr", lambda w, s: nn.SGD(w.net.trainable_params(), -1.0), ValueError,
         ("SGD", "learning_rate")),
    Case("adam-params-tensors", lambda w, s: nn.Adam([t32(2)], 0.1), TypeError, ("Adam",)),
    # ---- parameters, state dicts, context, seeds --------------------------------------------
    Case("set-data-str", lambda w, s: w.net.fc1.weight.set_data("x"), TypeError,
         ("set_data", "str")),
    Case("parameter-name-type", lambda w, s: Parameter(t32(2), name=5), TypeError,
         ("Parameter", "name")),
    Case("assign-shape", lambda w, s: ops.assign(w.net.fc1.bias, t32(3)), ValueError,
         ("assign", "(3,)", "(8,)")),
    Case("load-state-dict-shape", lambda w, s: w.net.load_state_dict(s),
         RuntimeError, ("fc2.bias", "(5,)", "(3,)"), setup=lambda w: _state_with_bad_last(w)),
    Case("load-state-dict-missing", lambda w, s: w.net.load_state_dict(s),
         RuntimeError, ("Missing", "fc2.bias"), setup=lambda w: _state_missing_last(w)),
    Case("load-param-into-net-last-shape", lambda w, s: ms.load_param_into_net(w.net, s),
         ValueError, ("load_param_into_net", "fc2.bias", "(5,)", "(3,)"),
         setup=lambda w: _params_with_bad_last(w)),
    Case("load-param-into-net-int-into-float", lambda w, s: ms.load_param_into_net(w.net, s),
         TypeError, ("load_param_into_net", "fc1.bias", "Int32"),
         setup=lambda w: _params_with_int_first_bias(w)),
    Case("load-param-into-net-not-a-dict", lambda w, s: ms.load_param_into_net(w.net, [1]),
         TypeError, ("load_param_into_net", "dict")),
    Case("set-context-mode", lambda w, s: ms.set_context(device_target="CPU", mode=5), ValueError,
         ("set_context", "mode", "5")),
    Case("set-context-key", lambda w, s: ms.set_context(mode=ms.GRAPH_MODE, no_such_key=1),
         ValueError, ("set_context", "no_such_key")),
    Case("set-seed-negative", lambda w, s: ms.set_seed(-1), ValueError, ("set_seed", "-1")),
    Case("set-seed-type", lambda w, s: ms.set_seed(1.5), TypeError, ("set_seed", "float")),
]


def _world(case):
    world = World()
    return world, (case.setup(world) if case.setup is not None else None)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_bad_input(case):
    world, prepared = _world(case)
    before = snapshot(world)
    with pytest.raises(case.exc) as info:
        case.call(world, prepared)
    message = str(info.value).lower()
    missing = [w for w in case.words if w.lower() not in message]
    assert not missing, f"the message {message!r} does not name {missing}"
    changed = diff(before, snapshot(world))
    assert not changed, f"the failed call changed {changed}"
    # The next call works, and gives what it gives in a world that never saw the error.
    after = world.step()
    for got, expected in zip(after, _world(case)[0].step()):
        np.testing.assert_array_equal(got, expected)


def test_there_are_at_least_fifty_cases():
    assert len(CASES) >= 50
    assert len({c.id for c in CASES}) == len(CASES)
