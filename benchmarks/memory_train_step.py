"""W5: peak extra memory (RSS) of one training step of an MLP 2048 -> 8 x 2048 -> 10 (ReLU),
batch 1024, SGD, each contender in a fresh process.

"Extra" is the peak RSS during the step minus the RSS just before it (model, data and optimizer
state already allocated): the kernel's peak mark is reset (/proc/self/clear_refs) right before the
step. The NumPy floor keeps every activation the backward pass needs, frees each one once used,
collects every gradient and then updates (the structure any framework with value_and_grad + an
optimizer has). "minispore jit" is the same step under `jit`, measured at its second replay
(capture and first replay done before; the memory plan's buffers, kept between calls, are then
part of the RSS before the step, so it shows what a step adds once running); "minispore jit,
first replay" measures the first replay instead, the one that allocates those buffers. PyTorch
CPU is measured too when installed.

Run: python benchmarks/memory_train_step.py
"""
import os
import subprocess
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

WIDTH, DEPTH, BATCH, CLASSES, LR = 2048, 8, 1024, 10, 0.01
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _harness import malloc_setup, peak_extra_mib  # noqa: E402


def make_data():
    import numpy as np
    rng = np.random.default_rng(0)
    sizes = [WIDTH] * (DEPTH + 1) + [CLASSES]
    weights = [((rng.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32),
                np.zeros(o, np.float32)) for i, o in zip(sizes, sizes[1:])]
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    y = rng.integers(0, CLASSES, BATCH)
    # (a float64 scale applied after the cast would silently make NumPy 2 compute in float64)
    assert all(w.dtype == b.dtype == x.dtype for w, b in weights)
    return weights, x, y


def numpy_step():
    import numpy as np
    weights, x, y = make_data()

    def step():
        acts, h = [x], x
        for k, (w, b) in enumerate(weights):
            z = h @ w.T
            z += b
            if k < len(weights) - 1:
                np.maximum(z, 0, out=z)
            acts.append(z)
            h = z
        logits = acts.pop()
        g = np.exp(logits - logits.max(1, keepdims=True))
        g /= g.sum(1, keepdims=True)
        g[np.arange(BATCH), y] -= 1
        g /= BATCH
        del logits
        grads = []
        for k in range(len(weights) - 1, -1, -1):
            a = acts.pop()
            grads.append((g.T @ a, g.sum(0)))
            if k > 0:
                g = g @ weights[k][0]
                g *= a > 0
            del a
        for (w, b), (gw, gb) in zip(weights, reversed(grads)):
            w -= LR * gw
            b -= LR * gb
    return step


def minispore_step(jitted=False, replays=1):
    sys.path.insert(0, os.path.join(HERE, ".."))
    import minispore as ms
    from minispore import Tensor, nn
    weights, x, y = make_data()
    layers = []
    for k, (w, b) in enumerate(weights):
        dense = nn.Dense(w.shape[1], w.shape[0])
        dense.weight.set_data(Tensor(w))
        dense.bias.set_data(Tensor(b))
        layers.append(dense)
        if k < len(weights) - 1:
            layers.append(nn.ReLU())
    net = nn.SequentialCell(layers)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), learning_rate=LR)
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
    xs, ys = Tensor(x), Tensor(y.astype("int32"))

    def step():
        loss, grads = grad_fn(xs, ys)
        opt(grads)
    if jitted:  # captured (and replayed `replays` times) before the measured (replayed) step
        step = ms.jit(step)
        for _ in range(1 + replays):
            step()
        assert step.stats["replays"] == replays, step.stats
    return step


def minispore_jit_step():
    return minispore_step(jitted=True)


def minispore_jit_first_replay():
    return minispore_step(jitted=True, replays=0)


def torch_step():
    import torch
    torch.set_num_threads(1)
    weights, x, y = make_data()
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
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def step():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(net(xt), yt).backward()
        opt.step()
    return step


CONTENDERS = {"numpy (floor)": numpy_step, "minispore": minispore_step,
              "minispore jit": minispore_jit_step,
              "minispore jit, first replay": minispore_jit_first_replay, "pytorch eager": torch_step}


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        malloc_setup()
        print(f"{peak_extra_mib(CONTENDERS[sys.argv[2]]())[0]:.1f}")
        return
    try:
        import torch  # noqa: F401
        names = list(CONTENDERS)
    except ImportError:
        names = list(CONTENDERS)[:3]
    # MINISPORE_MALLOC=default: a fixed mmap threshold, every large block its own mapping,
    # returned to the system when freed, so RSS follows live memory instead of glibc's heap
    # history (the dynamic threshold grows after the first large free and keeps freed blocks
    # resident). Otherwise every contender runs under minispore's tuned thresholds (the mode
    # importing minispore applies), which keep freed blocks in the heap for reuse.
    malloc = os.environ.get("MINISPORE_MALLOC", "tuned")
    env = dict(os.environ, MINISPORE_MALLOC=malloc)
    if malloc == "default":
        env["MALLOC_MMAP_THRESHOLD_"] = "131072"
    results = {}
    for name in names:
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name],
                             capture_output=True, text=True, check=True, env=env)
        results[name] = float(out.stdout.strip().splitlines()[-1])
    floor = results["numpy (floor)"]
    print(f"W5: peak extra RSS of one train step, MLP {WIDTH} -> {DEPTH} x {WIDTH} -> {CLASSES}, "
          f"batch {BATCH} (fresh process each), malloc {malloc}")
    print(f"{'':28s} {'MiB':>8s} {'x numpy':>8s}")
    for name, mib in results.items():
        print(f"{name:28s} {mib:8.1f} {mib / floor:8.2f}")


if __name__ == "__main__":
    main()
