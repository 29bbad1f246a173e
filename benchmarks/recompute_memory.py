"""Recompute: peak extra memory (RSS) of one training step of a 16-block MLP (each block Dense
1024 -> 1024 + ReLU, then Dense -> 10), batch 4096, SGD, with and without recomputation, each
run in a fresh process; PyTorch's torch.utils.checkpoint beside it when installed.

Policies: "none" keeps every activation the backward pass reads; "per block" recomputes each
Dense+ReLU block; "4 segments" recomputes each run of 4 blocks (the sqrt(n) policy). A Dense+ReLU
block keeps only its input and its output, which is the next block's input, so recomputing single
blocks cannot save anything; segments keep 4 inputs instead of 16 activations.

The batch is large enough that activations, not the weight gradients (64 MiB), dominate; the
peak is measured as in memory_train_step.py (/proc/self/clear_refs, then VmHWM; glibc's mmap
threshold fixed so that RSS follows live memory). Also checks that the recomputed step gives the
same loss and parameters, bitwise.

Run: python benchmarks/recompute_memory.py
"""
import os
import subprocess
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

WIDTH, BLOCKS, BATCH, CLASSES, LR, SEGMENTS = 1024, 16, 4096, 10, 0.01, 4
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _harness import peak_extra_mib  # noqa: E402


def make_data():
    import numpy as np
    rng = np.random.default_rng(0)
    sizes = [WIDTH] * (BLOCKS + 1) + [CLASSES]
    weights = [((rng.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32),
                np.zeros(o, np.float32)) for i, o in zip(sizes, sizes[1:])]
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    y = rng.integers(0, CLASSES, BATCH)
    return weights, x, y


def groups(n_units):
    """Consecutive unit indices recomputed together: every unit alone, or SEGMENTS runs."""
    if n_units == BLOCKS:
        return [[k] for k in range(BLOCKS)]
    size = BLOCKS // SEGMENTS
    return [list(range(s, s + size)) for s in range(0, BLOCKS, size)]


def minispore_step(policy):
    sys.path.insert(0, os.path.join(HERE, ".."))
    import numpy as np
    import minispore as ms
    from minispore import Tensor, nn
    weights, x, y = make_data()
    denses = []
    for w, b in weights:
        dense = nn.Dense(w.shape[1], w.shape[0])
        dense.weight.set_data(Tensor(w))
        dense.bias.set_data(Tensor(b))
        denses.append(dense)
    blocks = [nn.SequentialCell([d, nn.ReLU()]) for d in denses[:-1]]
    units = [] if policy == "none" else [
        nn.SequentialCell([blocks[k] for k in g])
        for g in groups(BLOCKS if policy == "per block" else SEGMENTS)]
    head = denses[-1]
    net = nn.SequentialCell(blocks + [head])
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), learning_rate=LR)

    def forward(a, b):
        if policy == "none":
            return loss_fn(net(a), b)
        h = a
        for unit in units:
            h = ms.recompute(unit, h)
        return loss_fn(head(h), b)

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    xs, ys = Tensor(x), Tensor(y.astype("int32"))

    def step():
        loss, grads = grad_fn(xs, ys)
        opt(grads)
        return float(loss.asnumpy()), [p.asnumpy().copy() for p in opt.parameters]
    return step


def torch_step(policy):
    import torch
    from torch.utils.checkpoint import checkpoint
    torch.set_num_threads(1)
    weights, x, y = make_data()
    lins = []
    for w, b in weights:
        lin = torch.nn.Linear(w.shape[1], w.shape[0])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w))
            lin.bias.copy_(torch.from_numpy(b))
        lins.append(lin)
    blocks = [torch.nn.Sequential(lin, torch.nn.ReLU()) for lin in lins[:-1]]
    units = [] if policy == "none" else [
        torch.nn.Sequential(*[blocks[k] for k in g])
        for g in groups(BLOCKS if policy == "per block" else SEGMENTS)]
    head = lins[-1]
    params = [p for lin in lins for p in lin.parameters()]
    opt = torch.optim.SGD(params, lr=LR)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def step():
        opt.zero_grad(set_to_none=True)
        h = xt
        if policy == "none":
            for blk in blocks:
                h = blk(h)
        else:
            for unit in units:
                h = checkpoint(unit, h, use_reentrant=False)
        loss = torch.nn.functional.cross_entropy(head(h), yt)
        loss.backward()
        opt.step()
        return float(loss), []
    return step


POLICIES = ("none", "per block", f"{SEGMENTS} segments")
CONTENDERS = {"minispore": minispore_step, "pytorch": torch_step}


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        policy = sys.argv[3] if sys.argv[3] in ("none", "per block") else "segments"
        mib, (loss, params) = peak_extra_mib(CONTENDERS[sys.argv[2]](policy))
        print(f"{mib:.1f} {loss!r} {_digest(params)}")
        return
    try:
        import torch  # noqa: F401
        names = list(CONTENDERS)
    except ImportError:
        names = ["minispore"]
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="131072")
    results = {}
    for name in names:
        for policy in POLICIES:
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name,
                                  policy], capture_output=True, text=True, check=True, env=env)
            mib, loss, digest = out.stdout.strip().splitlines()[-1].split(" ", 2)
            results[name, policy] = (float(mib), loss, digest)
    print(f"Recompute: peak extra RSS of one train step, MLP {BLOCKS} x (Dense {WIDTH} + ReLU) "
          f"-> {CLASSES}, batch {BATCH} (fresh process each)")
    print(f"{'':12s} {'policy':>12s} {'MiB':>8s} {'vs none':>8s}  loss")
    for name in names:
        base = results[name, "none"][0]
        for policy in POLICIES:
            mib, loss, _ = results[name, policy]
            print(f"{name:12s} {policy:>12s} {mib:8.1f} {mib / base - 1:+8.0%}  {loss}")
    same = {results["minispore", p][1:] for p in POLICIES}
    print("minispore: loss and parameters after the step bitwise equal across policies:",
          len(same) == 1)


def _digest(params):
    import hashlib
    h = hashlib.sha256()
    for p in params:
        h.update(p.tobytes())
    return h.hexdigest()[:16]


if __name__ == "__main__":
    main()
