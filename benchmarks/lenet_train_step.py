"""W3: one training step of LeNet-5 (conv 1->6 5x5, relu, maxpool 2, conv 6->16 5x5, relu,
maxpool 2, dense 256-120-84-10), batch 64 of 28x28 images, softmax cross-entropy, SGD.

minispore (nn layers, written as a MindSpore user writes them) beside a hand-written NumPy
version of the same math (im2col convolution by strided views and one GEMM, the floor) and
PyTorch CPU eager when installed, timed in alternation in one run.

Run: python benchmarks/lenet_train_step.py [--repeat N]
"""
import argparse
import os
import sys

# One BLAS thread for every contender: on 2 shared cores threads add noise, not information.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import as_strided  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import minispore as ms  # noqa: E402
from minispore import Tensor, nn  # noqa: E402

from _harness import (interleaved_rounds, malloc_setup, print_table,  # noqa: E402
                      torch_or_none)

BATCH, LR = 64, 0.01
SHAPES = {"conv1": (6, 1, 5, 5), "conv2": (16, 6, 5, 5), "fc1": (120, 256), "fc2": (84, 120),
          "fc3": (10, 84)}


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, BATCH).astype(np.int32)
    params = {}
    for name, shape in SHAPES.items():
        fan_in = int(np.prod(shape[1:]))
        bound = 1 / np.sqrt(fan_in)
        params[name] = (rng.uniform(-bound, bound, shape).astype(np.float32),
                        rng.uniform(-bound, bound, shape[0]).astype(np.float32))
    return x, y, params


# ---- the NumPy floor ---------------------------------------------------------------------------

def im2col(x, k):
    """Patches of NCHW x as rows laid out (kh, kw, c), read from x channels-last (runs of
    whole pixels: several times faster to copy than a (c, kh, kw) order)."""
    n, c, h, w = x.shape
    ho, wo = h - k + 1, w - k + 1
    xh = x.transpose(0, 2, 3, 1)
    if not xh.flags.c_contiguous:
        xh = np.ascontiguousarray(xh)
    s = xh.strides
    win = as_strided(xh, (n, ho, wo, k, k, c), (s[0], s[1], s[2], s[1], s[2], s[3]))
    return win.reshape(n * ho * wo, k * k * c), ho, wo


def col2im(g2, w, x_shape, ho, wo):
    """The input gradient from g2 (N*Ho*Wo, O): per-tap patch gradients from one batched GEMM,
    each added into a channels-last buffer as one contiguous block."""
    n, c, h, wd = x_shape
    o, _, k, _ = w.shape
    taps = np.matmul(g2, w.transpose(2, 3, 0, 1).reshape(k * k, o, c))  # (k*k, M, c)
    dx = np.zeros((n, h, wd, c), g2.dtype)
    for p in range(k):
        for q in range(k):
            dx[:, p:p + ho, q:q + wo, :] += taps[p * k + q].reshape(n, ho, wo, c)
    return dx.transpose(0, 3, 1, 2)


def weight_matrix(w):
    """(O, C, kh, kw) as (O, kh*kw*C), in im2col's column order."""
    return w.transpose(0, 2, 3, 1).reshape(w.shape[0], -1)


class NumpyLeNet:
    def __init__(self, params):
        self.p = {k: (w.copy(), b.copy()) for k, (w, b) in params.items()}

    def conv_relu_pool(self, x, name):
        w, b = self.p[name]
        o, _, k, _ = w.shape
        cols, ho, wo = im2col(x, k)
        z = cols @ weight_matrix(w).T
        z += b
        np.maximum(z, 0, out=z)
        n = x.shape[0]
        z4 = z.reshape(n, ho, wo, o)
        # 2x2 max as three elementwise maxima of strided taps (a reduction over the short tile
        # axes is several times slower)
        pooled = np.maximum(z4[:, 0::2, 0::2], z4[:, 0::2, 1::2])
        np.maximum(pooled, z4[:, 1::2, 0::2], out=pooled)
        np.maximum(pooled, z4[:, 1::2, 1::2], out=pooled)
        return pooled.transpose(0, 3, 1, 2), (cols, ho, wo, z4, pooled)

    def conv_relu_pool_back(self, g, x_shape, name, cache, need_dx):
        w, b = self.p[name]
        o, _, k, _ = w.shape
        cols, ho, wo, z4, pooled = cache
        n = x_shape[0]
        g = g.transpose(0, 2, 3, 1)  # (n, ho/2, wo/2, o)
        win = z4.reshape(n, ho // 2, 2, wo // 2, 2, o)
        mask = win == pooled[:, :, None, :, None, :]
        dz = (mask * g[:, :, None, :, None, :]).reshape(n * ho * wo, o)
        dz *= z4.reshape(-1, o) > 0
        gw = (dz.T @ cols).reshape(o, k, k, -1).transpose(0, 3, 1, 2)
        gb = np.ones(len(dz), dz.dtype) @ dz  # BLAS: NumPy sums this narrow axis 0 slowly
        dx = col2im(dz, w, x_shape, ho, wo) if need_dx else None
        return dx, gw, gb

    def step(self, x, y):
        h1, c1 = self.conv_relu_pool(x, "conv1")
        h2, c2 = self.conv_relu_pool(h1, "conv2")
        flat = h2.reshape(len(x), -1)
        acts = [flat]
        h = flat
        for k, name in enumerate(("fc1", "fc2", "fc3")):
            w, b = self.p[name]
            z = h @ w.T
            z += b
            if k < 2:
                np.maximum(z, 0, out=z)
            acts.append(z)
            h = z
        logits = h
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        sums = exp.sum(axis=1, keepdims=True)
        loss = float(np.mean(np.log(sums[:, 0]) - shifted[np.arange(len(y)), y]))
        g = exp / sums
        g[np.arange(len(y)), y] -= 1
        g /= len(y)
        grads = {}
        for k, name in ((2, "fc3"), (1, "fc2"), (0, "fc1")):
            w, _ = self.p[name]
            grads[name] = (g.T @ acts[k], g.sum(axis=0))
            g = g @ w
            if k > 0:
                g *= acts[k] > 0
        g = g.reshape(h2.shape)
        dh1, *grads["conv2"] = self.conv_relu_pool_back(g, h1.shape, "conv2", c2, True)
        _, *grads["conv1"] = self.conv_relu_pool_back(dh1, x.shape, "conv1", c1, False)
        for name, (gw, gb) in grads.items():
            w, b = self.p[name]
            w -= LR * gw  # (the weights are small: no temporary worth avoiding)
            b -= LR * gb
        return loss


# ---- minispore -----------------------------------------------------------------------------------

class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=True)
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=True)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(256, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def minispore_step_fn(params, jit_forward=False):
    """The step; `jit_forward`: `value_and_grad(jit(forward))` (docs/graph_mode.md, "Under a
    gradient transform")."""
    net = LeNet5()
    for name, (w, b) in params.items():
        getattr(net, name).weight.set_data(Tensor(w))
        getattr(net, name).bias.set_data(Tensor(b))
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


def torch_step_fn(torch, params):
    F = torch.nn.functional

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = torch.nn.Conv2d(1, 6, 5)
            self.conv2 = torch.nn.Conv2d(6, 16, 5)
            self.fc1 = torch.nn.Linear(256, 120)
            self.fc2 = torch.nn.Linear(120, 84)
            self.fc3 = torch.nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.flatten(1)
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

    net = Net()
    with torch.no_grad():
        for name, (w, b) in params.items():
            getattr(net, name).weight.copy_(torch.from_numpy(w))
            getattr(net, name).bias.copy_(torch.from_numpy(b))
    opt = torch.optim.SGD(net.parameters(), lr=LR)

    def step(data, label):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(net(data), label)
        loss.backward()
        opt.step()
        return loss
    return step


def check_same_math(x, y, params):
    floor, step = NumpyLeNet(params), minispore_step_fn(params)
    jitted = ms.jit(minispore_step_fn(params))
    under_grad = minispore_step_fn(params, jit_forward=True)
    xs, ys = Tensor(x), Tensor(y)
    for _ in range(3):
        a, b, c = floor.step(x, y), float(step(xs, ys)), float(jitted(xs, ys))
        d = float(under_grad(xs, ys))
        assert abs(a - b) < 1e-4 * max(1.0, abs(a)) and b == c == d, (a, b, c, d)
    assert jitted.stats["replays"] == 2, jitted.stats
    stats = under_grad.forward.stats
    assert stats["grad_replays"] == 2 and stats["vjp_replays"] == 1, stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    malloc = malloc_setup()
    x, y, params = make_data()
    check_same_math(x, y, params)
    floor, ms_step = NumpyLeNet(params), minispore_step_fn(params)
    xs, ys = Tensor(x), Tensor(y)
    jit_step = ms.jit(minispore_step_fn(params))  # the whole step captured once, replayed
    vg_jit_step = minispore_step_fn(params, jit_forward=True)  # value_and_grad(jit(forward))
    names = ["numpy (floor)", "minispore", "minispore jit", "minispore jit fwd"]
    cases = [lambda: floor.step(x, y), lambda: ms_step(xs, ys), lambda: jit_step(xs, ys),
             lambda: vg_jit_step(xs, ys)]
    torch = torch_or_none()
    if torch is not None:
        t_step = torch_step_fn(torch, params)
        xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))
        names.append("pytorch eager")
        cases.append(lambda: t_step(xt, yt))
    print_table(f"W3: LeNet-5, batch {BATCH}, softmax CE, SGD step, malloc {malloc}", names,
                interleaved_rounds(cases, args.repeat))


if __name__ == "__main__":
    main()
