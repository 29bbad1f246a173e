"""W2: one training step of an MLP 784-512-512-10 (ReLU), batch 128, softmax cross-entropy, SGD.

minispore (nn.Dense, nn.ReLU, nn.SoftmaxCrossEntropyWithLogits, value_and_grad, nn.SGD, written as
a MindSpore user writes it) beside a hand-written NumPy forward + backward + update of the same math
(the floor), `jit` with the NumPy backend and, with numba installed, the numba backend, and PyTorch
CPU eager when installed, timed in alternation in one run; then the first two calls of each jitted
step (the first captures, optimises, fuses and compiles or loads the kernels from
`$MINISPORE_JIT_CACHE`: run twice on an empty cache directory for the cold and the warm time).

Run: python benchmarks/mlp_train_step.py [--repeat N]
"""
import argparse
import os
import sys

# One BLAS thread for every contender: on 2 shared cores threads add noise, not information.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import minispore as ms  # noqa: E402
from minispore import Tensor, nn  # noqa: E402

from _harness import (first_calls, interleaved_rounds, malloc_setup,  # noqa: E402
                      numba_or_none, print_table, torch_or_none)

SIZES = (784, 512, 512, 10)
BATCH, LR = 128, 0.01


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], BATCH).astype(np.int32)
    weights = []
    for fan_in, fan_out in zip(SIZES, SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        weights.append((rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32),
                        rng.uniform(-bound, bound, fan_out).astype(np.float32)))
    return x, y, weights


class NumpyMLP:
    """The floor: forward, backward and SGD by hand, in place where natural."""

    def __init__(self, weights):
        self.params = [(w.copy(), b.copy()) for w, b in weights]

    def step(self, x, y):
        acts, h = [x], x
        for k, (w, b) in enumerate(self.params):
            z = h @ w.T
            z += b
            if k < len(self.params) - 1:
                np.maximum(z, 0, out=z)
            acts.append(z)
            h = z
        logits = acts[-1]
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        sums = exp.sum(axis=1, keepdims=True)
        loss = float(np.mean(np.log(sums[:, 0]) - shifted[np.arange(len(y)), y]))
        g = exp / sums
        g[np.arange(len(y)), y] -= 1.0
        g /= len(y)
        for k in range(len(self.params) - 1, -1, -1):
            w, b = self.params[k]
            a = acts[k]
            gw = g.T @ a
            gb = g.sum(axis=0)
            if k > 0:
                g = g @ w
                g *= acts[k] > 0
            gw *= LR  # in place: no temporary the size of the weight
            w -= gw
            b -= LR * gb
        return loss


class MLP(nn.Cell):
    def __init__(self, weights):
        super().__init__()
        layers = []
        for k, (w, b) in enumerate(weights):
            dense = nn.Dense(w.shape[1], w.shape[0])
            dense.weight.set_data(Tensor(w))
            dense.bias.set_data(Tensor(b))
            layers.append(dense)
            if k < len(weights) - 1:
                layers.append(nn.ReLU())
        self.layers = nn.SequentialCell(layers)

    def construct(self, x):
        return self.layers(x)


def minispore_step_fn(weights, jit_forward=False):
    """The step; `jit_forward`: `value_and_grad(jit(forward))`, the forward replayed as one
    tape node whose backward replays its captured VJP graph (docs/graph_mode.md)."""
    net = MLP(weights)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.SGD(net.trainable_params(), learning_rate=LR)

    def forward(data, label):
        return loss_fn(net(data), label)

    if jit_forward:
        forward = ms.jit(forward)
    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

    def step(data, label):
        loss, grads = grad_fn(data, label)
        optimizer(grads)
        return loss
    step.forward = forward
    return step


def torch_step_fn(torch, weights):
    layers = []
    for k, (w, b) in enumerate(weights):
        lin = torch.nn.Linear(w.shape[1], w.shape[0])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w))
            lin.bias.copy_(torch.from_numpy(b))
        layers.append(lin)
        if k < len(weights) - 1:
            layers.append(torch.nn.ReLU())
    net = torch.nn.Sequential(*layers)
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(data, label):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(data), label)
        loss.backward()
        opt.step()
        return loss
    return step


def check_same_math(x, y, weights):
    floor = NumpyMLP(weights)
    step = minispore_step_fn(weights)
    jitted = ms.jit(minispore_step_fn(weights))
    under_grad = minispore_step_fn(weights, jit_forward=True)
    xs, ys = Tensor(x), Tensor(y)
    for _ in range(3):
        a = floor.step(x, y)
        b = float(step(xs, ys))
        c = float(jitted(xs, ys))
        d = float(under_grad(xs, ys))
        assert abs(a - b) < 1e-4 * max(1.0, abs(a)) and b == c == d, (a, b, c, d)
    assert jitted.stats["replays"] == 2, jitted.stats
    stats = under_grad.forward.stats
    assert stats["grad_replays"] == 2 and stats["vjp_replays"] == 1, stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()
    malloc = malloc_setup()
    x, y, weights = make_data()
    check_same_math(x, y, weights)
    floor = NumpyMLP(weights)
    ms_step = minispore_step_fn(weights)
    xs, ys = Tensor(x), Tensor(y)
    jit_step = ms.jit(minispore_step_fn(weights), backend="numpy")  # captured once, replayed
    vg_jit_step = minispore_step_fn(weights, jit_forward=True)  # value_and_grad(jit(forward))
    names = ["numpy (floor)", "minispore", "minispore jit", "minispore jit fwd"]
    cases = [lambda: floor.step(x, y), lambda: ms_step(xs, ys), lambda: jit_step(xs, ys),
             lambda: vg_jit_step(xs, ys)]
    firsts = [("jit", first_calls(jit_step, xs, ys))]
    if numba_or_none() is not None:
        numba_step = ms.jit(minispore_step_fn(weights), backend="numba")
        firsts.append(("jit numba", first_calls(numba_step, xs, ys)))
        names.append("minispore jit numba")
        cases.append(lambda: numba_step(xs, ys))
    torch = torch_or_none()
    if torch is not None:
        t_step = torch_step_fn(torch, weights)
        xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))
        names.append("pytorch eager")
        cases.append(lambda: t_step(xt, yt))
    rounds = interleaved_rounds(cases, args.repeat)
    print_table(f"W2: MLP {'-'.join(map(str, SIZES))} ReLU, batch {BATCH}, softmax CE, SGD step, malloc {malloc}",
                names, rounds)
    for name, (first, second, fused) in firsts:
        print(f"{name}: first call (capture, passes, fusion, kernels) {first * 1e3:.0f} ms, "
              f"second (first replay) {second * 1e3:.1f} ms, fused groups {fused}")


if __name__ == "__main__":
    main()
