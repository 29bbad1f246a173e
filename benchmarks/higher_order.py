"""W4: higher-order derivatives.

W4a: the 4th derivative of sin(x) * exp(x) at x = 0.5 by nesting `grad` four times, on a 0-d
float64 tensor (float32 as a second row), beside PyTorch eager doing the same with
`torch.autograd.grad(create_graph=True)` four times. Goals: eager <= 200 us per call, under jit
<= 10 us. Rows `ms jit(grad^4)`: grad inside jit (the jitted fourth derivative, one straight-line
replay; `ms jit numba`: the same with the numba backend, the whole graph one fused kernel);
`ms grad^4(jit)`: jit under grad (the fourth derivative of a jitted f: above second order f's
forward replays and its nodes are put on the tape as eager records them; about eager's time).
"W4a second order": grad(grad(f)) eager against grad(grad(jit(f))) (the forward one node, the
first backward a jitted function, one node too).

W4b: the Hessian-vector product of the W2 loss (MLP 784-512-512-10, ReLU, batch 128, softmax
cross-entropy, float32) with respect to the first weight, reverse over reverse: minispore as a
MindSpore user writes it (`grad` of <grad, v> with `weights=`), and through `ops.hvp` on the loss
as a function of that weight; beside a hand-written NumPy R-operator pass (Pearlmutter: forward,
tangent forward, backward, tangent backward; the floor) and PyTorch eager (double backward).
Goal: <= 3.6 ms per call.

Then the cost of forward mode: jvp against the forward and against value_and_grad, jacfwd and
jacrev against one jvp / vjp.

Run: python benchmarks/higher_order.py [--repeat N]
"""
import argparse
import math
import os
import statistics
import sys

# One BLAS thread for every contender: on 2 shared cores threads add noise, not information.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import minispore as ms  # noqa: E402
from minispore import Tensor, nn, ops  # noqa: E402

from _harness import interleaved_rounds, numba_or_none, print_table, torch_or_none  # noqa: E402
from mlp_train_step import MLP, SIZES, make_data  # noqa: E402

X0 = 0.5


# ---- W4a -----------------------------------------------------------------------------------------

def ms_fourth(dtype, jitted=False, jit_inside=False, backend="numpy"):
    """`jitted`: jit of the fourth derivative (grad inside jit: the four nested walks captured
    once, replayed as straight-line code). `jit_inside`: the fourth derivative of jit(f) (jit
    under grad: above second order the jitted function's nodes are eager's, docs/graph_mode.md)."""
    def f(t):
        return ops.sin(t) * ops.exp(t)
    g = ms.jit(f) if jit_inside else f
    for _ in range(4):
        g = ms.grad(g)
    if jitted:
        g = ms.jit(g, backend=backend)
    x = Tensor(np.asarray(X0, dtype))
    return lambda: g(x)


def torch_fourth(torch, dtype):
    x = torch.tensor(X0, dtype=dtype, requires_grad=True)

    def run():
        y = torch.sin(x) * torch.exp(x)
        for _ in range(4):
            (y,) = torch.autograd.grad(y, x, create_graph=True)
        return y
    return run


def w4a(repeat, torch):
    exact = -4 * math.exp(X0) * math.sin(X0)
    names, cases, pairs = [], [], []
    for label, dt in (("float64", np.float64), ("float32", np.float32)):
        first = len(cases)
        fn, jfn = ms_fourth(dt), ms_fourth(dt, jitted=True)
        ifn = ms_fourth(dt, jit_inside=True)
        value = float(fn().asnumpy())
        assert abs(value - exact) <= (1e-12 if dt is np.float64 else 1e-5) * abs(exact), value
        assert float(jfn().asnumpy()) == value == float(jfn().asnumpy())
        assert float(ifn().asnumpy()) == value == float(ifn().asnumpy())
        names += [f"minispore {label}", f"ms jit(grad^4) {label[-2:]}",
                  f"ms grad^4(jit) {label[-2:]}"]
        cases += [fn, jfn, ifn]
        if numba_or_none() is not None:  # one fused kernel: within float tolerance
            nfn = ms_fourth(dt, jitted=True, backend="numba")
            assert abs(float(nfn().asnumpy()) - value) <= 1e-12 * abs(value) * (
                1 if dt is np.float64 else 1e7)
            names.append(f"ms jit numba {label[-2:]}")
            cases.append(nfn)
        if torch is not None:
            tfn = torch_fourth(torch, getattr(torch, label))
            assert abs(float(tfn().detach()) - exact) <= 1e-5 * abs(exact)
            names.append(f"pytorch {label}")
            cases.append(tfn)
            pairs += [(k, len(cases) - 1) for k in range(first, len(cases) - 1)]
    rounds = interleaved_rounds(cases, repeat, warmup=20)
    print(f"W4a: d^4/dx^4 [sin(x) exp(x)] at x = {X0}, nested grad x4 (0-d tensor)")
    print(f"{'':20s} {'best us':>9s} {'median us':>10s} {'x pytorch (median of rounds)':>30s}")
    ratio = {}
    for i, j in pairs:
        ratio[i] = statistics.median(r[i] / r[j] for r in rounds)
        ratio[j] = 1.0
    for k, name in enumerate(names):
        col = [r[k] for r in rounds]
        extra = f"{ratio[k]:30.3f}" if k in ratio else f"{'':>30s}"
        print(f"{name:20s} {min(col) * 1e6:9.1f} {statistics.median(col) * 1e6:10.1f} {extra}")


def w4a_first(repeat):
    """First derivatives, eager and jit under grad (the forward replayed as one tape node, its
    backward the replayed VJP trace): of the same f, and of a chain of 50 tanh layers on 16
    floats (op overhead dominates both)."""
    def f(t):
        return ops.sin(t) * ops.exp(t)

    def chain(t):
        return _tanh_chain(t).sum()
    names, cases = [], []
    for label, fn, x in (("sin exp f64", f, Tensor(np.asarray(X0, np.float64))),
                         ("sin exp f32", f, Tensor(np.asarray(X0, np.float32))),
                         ("tanh x50 f32", chain,
                          Tensor(np.linspace(-1, 1, 16, dtype=np.float32)))):
        eager, compiled = ms.grad(fn), ms.grad(ms.jit(fn))
        assert np.array_equal(eager(x).asnumpy(), compiled(x).asnumpy())
        names += [f"{label}", f"{label} grad(jit)"]
        cases += [lambda g=eager, x=x: g(x), lambda g=compiled, x=x: g(x)]
    rounds = interleaved_rounds(cases, repeat, warmup=20)
    print("W4a first order: d/dx of sin(x) exp(x) at x = 0.5 (0-d), and of tanh x50 on (16,)")
    _print_pairs(names, rounds)


def w4a_second(repeat):
    """Second derivatives, eager and jit under grad of grad (the forward one tape node, the
    first backward a jitted function, also one node): sin(x) exp(x) on a 0-d tensor, the chain
    of 50 tanh layers on 16 floats, and a gradient-norm penalty of a small MLP (the squared
    gradient by its weights, differentiated by the weights and the input)."""
    def f(t):
        return ops.sin(t) * ops.exp(t)

    def chain(t):
        return _tanh_chain(t).sum()
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(32, 64), nn.Tanh(), nn.Dense(64, 10)])
    weights = net.trainable_params()

    def mlp(t):
        return (net(t) ** 2).mean()

    def grad2(fn):
        return ms.grad(ms.grad(fn))

    def penalty(fn):
        return ms.value_and_grad(
            lambda t: sum([(g * g).sum() for g in ms.grad(fn, None, weights)(t)]), 0, weights)
    rng = np.random.default_rng(0)
    names, cases = [], []
    for label, make, fn, x in (
            ("sin exp f64", grad2, f, Tensor(np.asarray(X0, np.float64))),
            ("tanh x50 f32", grad2, chain, Tensor(np.linspace(-1, 1, 16, dtype=np.float32))),
            ("MLP penalty f32", penalty, mlp,
             Tensor(rng.standard_normal((16, 32)).astype(np.float32)))):
        jitted = ms.jit(fn)
        eager, compiled = make(fn), make(jitted)
        a = eager(x)
        compiled(x)  # captures the forward, then the first backward
        assert _same_tree(a, compiled(x)) and _same_tree(a, compiled(x)), label
        assert jitted.stats["grad2_bwd_replays"] >= 1, jitted.stats  # the compiled path
        names += [f"{label}", f"{label} (jit)"]
        cases += [lambda g=eager, x=x: g(x), lambda g=compiled, x=x: g(x)]
    rounds = interleaved_rounds(cases, repeat, warmup=20)
    print("W4a second order: grad(grad(f)) of sin(x) exp(x) at x = 0.5 (0-d) and of tanh x50 on "
          "(16,); value_and_grad of an MLP 32-64-10 gradient penalty (batch 16)")
    _print_pairs(names, rounds)


def _print_pairs(names, rounds):
    """Rows of (eager, jitted) pairs: best and median us, and each one over its pair's eager."""
    print(f"{'':24s} {'best us':>9s} {'median us':>10s} {'x eager (median of rounds)':>28s}")
    for k, name in enumerate(names):
        col = [r[k] for r in rounds]
        ratio = statistics.median(r[k] / r[k - k % 2] for r in rounds)
        print(f"{name:24s} {min(col) * 1e6:9.1f} {statistics.median(col) * 1e6:10.1f} "
              f"{ratio:28.3f}")


def _same_tree(a, b):
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same_tree(x, y) for x, y in zip(a, b))
    return np.array_equal(a.asnumpy(), b.asnumpy()) and a.dtype == b.dtype


# ---- W4b -----------------------------------------------------------------------------------------

def numpy_hvp(x, y, weights, v):
    """H v for the loss's Hessian in the first weight: R-operator forward and backward passes
    (Pearlmutter 1994). ReLU's second derivative is 0, and only W1 moves (RW2 = RW3 = 0)."""
    (w1, b1), (w2, b2), (w3, b3) = weights
    n = len(y)
    z1 = x @ w1.T + b1
    m1 = z1 > 0
    h1 = z1 * m1
    z2 = h1 @ w2.T + b2
    m2 = z2 > 0
    h2 = z2 * m2
    z3 = h2 @ w3.T + b3
    e = np.exp(z3 - z3.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    # tangent forward along V
    rz1 = x @ v.T
    rh1 = rz1 * m1
    rz2 = rh1 @ w2.T
    rh2 = rz2 * m2
    rz3 = rh2 @ w3.T
    # backward of the tangent: R{dL/dz3} = (diag(p) - p p^T) rz3 / n, then through the layers
    prz = p * rz3
    rg = (prz - p * prz.sum(axis=1, keepdims=True)) / n
    rg = (rg @ w3) * m2
    rg = (rg @ w2) * m1
    return rg.T @ x


def ms_hvp_nested(weights, x, y, v):
    """As a MindSpore user writes it: grad (w.r.t. the weight) of <grad w.r.t. the weight, v>."""
    net = MLP(weights)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    w1 = net.layers[0].weight

    def forward(data, label):
        return loss_fn(net(data), label)

    grad_w = ms.grad(forward, None, w1)

    def directional(data, label):
        return (grad_w(data, label) * v).sum()

    hvp_fn = ms.grad(directional, None, w1)
    return lambda: hvp_fn(x, y)


def ms_hvp_functional(weights, x, y, v):
    """ops.hvp on the loss as a function of the first weight."""
    (_, b1), (w2, b2), (w3, b3) = [tuple(Tensor(a) for a in wb) for wb in weights]
    w1 = Tensor(weights[0][0])

    def loss(w):
        h = ops.relu(ops.dense(x, w, b1))
        h = ops.relu(ops.dense(h, w2, b2))
        return ops.cross_entropy(ops.dense(h, w3, b3), y)

    return lambda: ops.hvp(loss, w1, v)[1]


def torch_hvp(torch, weights, x, y, v):
    (w1, b1), (w2, b2), (w3, b3) = [tuple(torch.from_numpy(a.copy()) for a in wb)
                                    for wb in weights]
    w1.requires_grad_(True)
    xt, yt, vt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64)), torch.from_numpy(v)
    F = torch.nn.functional

    def run():
        h = F.relu(F.linear(xt, w1, b1))
        h = F.relu(F.linear(h, w2, b2))
        loss = F.cross_entropy(F.linear(h, w3, b3), yt)
        (g,) = torch.autograd.grad(loss, w1, create_graph=True)
        (hv,) = torch.autograd.grad((g * vt).sum(), w1)
        return hv
    return run


def w4b(repeat, torch):
    x, y, weights = make_data()
    v = np.random.default_rng(1).standard_normal(weights[0][0].shape).astype(np.float32)
    floor = numpy_hvp(x, y, weights, v)
    xs, ys, vs = Tensor(x), Tensor(y), Tensor(v)
    names = ["numpy (floor)", "minispore grad^2", "minispore hvp"]
    cases = [lambda: numpy_hvp(x, y, weights, v), ms_hvp_nested(weights, xs, ys, vs),
             ms_hvp_functional(weights, xs, ys, vs)]
    if torch is not None:
        names.append("pytorch eager")
        cases.append(torch_hvp(torch, weights, x, y, v))
    scale = np.abs(floor).max()
    for name, fn in zip(names[1:], cases[1:]):
        got = fn()
        got = got.asnumpy() if isinstance(got, Tensor) else got.detach().numpy()
        err = np.abs(got - floor).max() / scale
        assert err < 1e-4, (name, err)
    rounds = interleaved_rounds(cases, repeat)
    print_table(f"W4b: Hessian-vector product of the MLP {'-'.join(map(str, SIZES))} loss "
                "w.r.t. the first weight (reverse over reverse)", names, rounds)


# ---- forward-mode cost -----------------------------------------------------------------------

def _tanh_chain(x):
    for _ in range(50):
        x = ops.tanh(x * 1.01 + 0.1)
    return x


def mode_costs(repeat):
    """jvp against the forward and against value_and_grad; jacfwd and jacrev against one
    jvp / vjp (each records the function once and walks the record per column / row)."""
    rng = np.random.default_rng(0)
    w1 = Tensor(rng.standard_normal((64, 32)).astype(np.float32) * 0.2)
    w2 = Tensor(rng.standard_normal((10, 64)).astype(np.float32) * 0.2)

    def mlp(x):
        return ops.matmul(ops.tanh(ops.matmul(x, w1.T)), w2.T)

    def sin_exp(x):
        return ops.sin(x) * ops.exp(x)

    print(f"{'function':28s} {'fwd us':>8s} {'jvp/fwd':>8s} {'vg/fwd':>8s} {'jvp/vg':>8s}")
    for name, f, shape in (("tanh chain x50, (16,)", _tanh_chain, (16,)),
                           ("MLP 32-64-10, batch 128", mlp, (128, 32)),
                           ("sin(x) exp(x), 0-d", sin_exp, ())):
        x = Tensor(rng.standard_normal(shape).astype(np.float32))
        v = Tensor(np.ones(shape, np.float32))
        vg = ms.value_and_grad(lambda t, f=f: f(t).sum())
        rounds = interleaved_rounds([lambda: f(x), lambda: ms.jvp(f, x, v), lambda: vg(x)],
                                    repeat)
        r = [statistics.median(row[k] / row[0] for row in rounds) for k in range(3)]
        print(f"{name:28s} {min(row[0] for row in rounds) * 1e6:8.1f} {r[1]:8.2f} {r[2]:8.2f} "
              f"{r[1] / r[2]:8.2f}")
    a = Tensor(rng.standard_normal((4, 8)).astype(np.float32))

    def g(t):
        return ops.tanh(ops.matmul(a, ops.sin(t)))
    x, v, u = (Tensor(rng.standard_normal(8).astype(np.float32)),
               Tensor(np.ones(8, np.float32)), Tensor(np.ones(4, np.float32)))
    rounds = interleaved_rounds([lambda: ms.jvp(g, x, v), lambda: ms.jacfwd(g)(x),
                                 lambda: ms.vjp(g, x)[1](u), lambda: ms.jacrev(g)(x)], repeat)
    fwd = statistics.median(row[1] / row[0] for row in rounds)
    rev = statistics.median(row[3] / row[2] for row in rounds)
    print(f"R^8 -> R^4: jacfwd = {fwd:.2f} jvp (8 columns), jacrev = {rev:.2f} vjp (4 rows)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="rounds for W4a (W4b: 1/5)")
    args = parser.parse_args()
    torch = torch_or_none()
    w4a(args.repeat, torch)
    print()
    w4a_first(args.repeat)
    print()
    w4a_second(args.repeat)
    print()
    w4b(max(args.repeat // 5, 5), torch)
    print()
    print("Forward mode and Jacobians: cost ratios (median over rounds)")
    mode_costs(max(args.repeat // 4, 10))


if __name__ == "__main__":
    main()
