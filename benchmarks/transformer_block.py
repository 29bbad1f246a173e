"""W6: forward + backward of a pre-LN transformer block: LayerNorm -> 4-head self-attention
(d = 128) -> residual -> LayerNorm -> FFN 128-512-128 with tanh-GELU -> residual; batch 16,
sequence 64; the gradient of sum(out * cotangent) w.r.t. every parameter.

minispore (nn.LayerNorm, nn.Dense, nn.GELU and ops, written as a user writes a block) beside a
hand-written NumPy forward + backward with fused LayerNorm, softmax and GELU gradients (the
floor), the gradient function under `jit` (NumPy backend; numba backend when numba is installed)
and PyTorch CPU eager when installed, timed in alternation in one run; then the first two calls of
each jitted function.

Run: python benchmarks/transformer_block.py [--repeat N]
"""
import argparse
import math
import os
import sys

# One BLAS thread for every contender: on 2 shared cores threads add noise, not information.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import minispore as ms  # noqa: E402
from minispore import Tensor, nn, ops  # noqa: E402

from _harness import (first_calls, interleaved_rounds, malloc_setup,  # noqa: E402
                      numba_or_none, print_table, torch_or_none)

B, T, D, H, FF = 16, 64, 128, 4, 512
DH = D // H
EPS = 1e-5
C_GELU = math.sqrt(2 / math.pi)


def make_params(seed=0):
    rng = np.random.default_rng(seed)

    def lin(o, i):
        bound = 1 / math.sqrt(i)
        return (rng.uniform(-bound, bound, (o, i)).astype(np.float32),
                rng.uniform(-bound, bound, o).astype(np.float32))
    p = {"qkv": lin(3 * D, D), "proj": lin(D, D), "fc1": lin(FF, D), "fc2": lin(D, FF),
         "ln1": (np.ones(D, np.float32), np.zeros(D, np.float32)),
         "ln2": (np.ones(D, np.float32), np.zeros(D, np.float32))}
    x = rng.standard_normal((B, T, D)).astype(np.float32)
    cot = rng.standard_normal((B, T, D)).astype(np.float32)
    return p, x, cot


# ---- the NumPy floor ---------------------------------------------------------------------------

def ln_fwd(x, g, b):
    xh = x - x.mean(-1, keepdims=True)
    rstd = 1 / np.sqrt(np.mean(xh * xh, -1, keepdims=True) + EPS)
    xh *= rstd
    y = xh * g
    y += b
    return y, (xh, rstd)


def ln_bwd(dy, g, cache):
    xh, rstd = cache
    dyx = dy * xh
    dg = dyx.sum((0, 1))
    db = dy.sum((0, 1))
    gdy = dy * g
    dx = gdy - gdy.mean(-1, keepdims=True)
    dx -= xh * (gdy * xh).mean(-1, keepdims=True)
    dx *= rstd
    return dx, dg, db


def mm(a, b):
    """a @ b for `a` (B, T, K) and `b` (K, N) as one GEMM (a batched matmul loops per batch)."""
    return (a.reshape(-1, a.shape[-1]) @ b).reshape(a.shape[:-1] + (b.shape[-1],))


def numpy_forward_backward(p, x, cot):
    (wqkv, bqkv), (wp, bp) = p["qkv"], p["proj"]
    (w1, b1), (w2, b2) = p["fc1"], p["fc2"]
    h1, c1 = ln_fwd(x, *p["ln1"])
    qkv = mm(h1, wqkv.T)
    qkv += bqkv
    q, k, v = (a.reshape(B, T, H, DH).transpose(0, 2, 1, 3) for a in np.split(qkv, 3, -1))
    s = q @ k.transpose(0, 1, 3, 2)
    s *= 1 / math.sqrt(DH)
    s -= s.max(-1, keepdims=True)
    att = np.exp(s)
    att /= att.sum(-1, keepdims=True)
    o = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, D)
    x1 = mm(o, wp.T)
    x1 += bp
    x1 += x
    h2, c2 = ln_fwd(x1, *p["ln2"])
    f = mm(h2, w1.T)
    f += b1
    f2 = f * f
    t = np.tanh(f * (C_GELU + C_GELU * 0.044715 * f2))
    gl = 1 + t
    gl *= f
    gl *= 0.5
    out = mm(gl, w2.T)
    out += b2
    out += x1
    # backward of sum(out * cot)
    dy = cot
    g = {"fc2": (dy.reshape(-1, D).T @ gl.reshape(-1, FF), dy.sum((0, 1)))}
    dgl = mm(dy, w2)
    dgelu = 1 - t * t
    dgelu *= f
    dgelu *= (0.5 * C_GELU) + (0.5 * C_GELU * 3 * 0.044715) * f2
    dgelu += 0.5 * (1 + t)
    df = dgl * dgelu
    g["fc1"] = (df.reshape(-1, FF).T @ h2.reshape(-1, D), df.sum((0, 1)))
    dx1, *g["ln2"] = ln_bwd(mm(df, w1), p["ln2"][0], c2)
    dx1 += dy
    g["proj"] = (dx1.reshape(-1, D).T @ o.reshape(-1, D), dx1.sum((0, 1)))
    do = mm(dx1, wp).reshape(B, T, H, DH).transpose(0, 2, 1, 3)
    dp = do @ v.transpose(0, 1, 3, 2)
    dv = att.transpose(0, 1, 3, 2) @ do
    dp -= (dp * att).sum(-1, keepdims=True)
    dp *= att
    ds = dp
    ds *= 1 / math.sqrt(DH)
    dq = ds @ k
    dk = ds.transpose(0, 1, 3, 2) @ q
    dqkv = np.concatenate([a.transpose(0, 2, 1, 3).reshape(B, T, D) for a in (dq, dk, dv)], -1)
    g["qkv"] = (dqkv.reshape(-1, 3 * D).T @ h1.reshape(-1, D), dqkv.sum((0, 1)))
    dx, *g["ln1"] = ln_bwd(mm(dqkv, wqkv), p["ln1"][0], c1)
    dx += dx1
    return out, g


# ---- minispore -----------------------------------------------------------------------------------

class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm((D,), epsilon=EPS)
        self.qkv = nn.Dense(D, 3 * D)
        self.proj = nn.Dense(D, D)
        self.ln2 = nn.LayerNorm((D,), epsilon=EPS)
        self.fc1 = nn.Dense(D, FF)
        self.gelu = nn.GELU()
        self.fc2 = nn.Dense(FF, D)

    def heads(self, a):
        return a.reshape(B, T, H, DH).transpose(0, 2, 1, 3)

    def construct(self, x):
        q, k, v = ops.split(self.qkv(self.ln1(x)), D, axis=-1)
        q, k, v = self.heads(q), self.heads(k), self.heads(v)
        att = ops.softmax(ops.matmul(q, k.transpose(0, 1, 3, 2)) * (1 / math.sqrt(DH)), -1)
        o = ops.matmul(att, v).transpose(0, 2, 1, 3).reshape(B, T, D)
        x = x + self.proj(o)
        return x + self.fc2(self.gelu(self.fc1(self.ln2(x))))


def minispore_fn(params):
    block = Block()
    for name, (a, b) in params.items():
        cell = getattr(block, name)
        if name.startswith("ln"):
            cell.gamma.set_data(Tensor(a))
            cell.beta.set_data(Tensor(b))
        else:
            cell.weight.set_data(Tensor(a))
            cell.bias.set_data(Tensor(b))
    grad_fn = ms.value_and_grad(lambda x, c: (block(x) * c).sum(), None,
                                block.trainable_params())
    return grad_fn, block


def torch_fn(torch, params):
    F = torch.nn.functional
    tp = {k: tuple(torch.from_numpy(v.copy()).requires_grad_(True) for v in pair)
          for k, pair in params.items()}

    def run(x, cot):
        for pair in tp.values():
            for t in pair:
                t.grad = None
        h = F.layer_norm(x, (D,), *tp["ln1"], eps=EPS)
        q, k, v = F.linear(h, *tp["qkv"]).split(D, -1)
        q, k, v = (a.reshape(B, T, H, DH).transpose(1, 2) for a in (q, k, v))
        att = torch.softmax(q @ k.transpose(-1, -2) * (1 / math.sqrt(DH)), -1)
        o = (att @ v).transpose(1, 2).reshape(B, T, D)
        x1 = x + F.linear(o, *tp["proj"])
        f = F.linear(F.layer_norm(x1, (D,), *tp["ln2"], eps=EPS), *tp["fc1"])
        out = x1 + F.linear(F.gelu(f, approximate="tanh"), *tp["fc2"])
        (out * cot).sum().backward()
        return out
    return run


def check_same_math(params, x, cot):
    out, g = numpy_forward_backward(params, x, cot)
    grad_fn, block = minispore_fn(params)
    value, grads = grad_fn(Tensor(x), Tensor(cot))
    assert np.allclose(value.asnumpy(), (out * cot).sum(), rtol=1e-4)
    by_name = dict(zip([p.name for p in block.trainable_params()], grads))
    for name, (gw, gb) in g.items():
        w_name, b_name = (f"{name}.gamma", f"{name}.beta") if name.startswith("ln") else \
            (f"{name}.weight", f"{name}.bias")
        assert np.allclose(by_name[w_name].asnumpy(), gw, rtol=2e-3, atol=2e-3), name
        assert np.allclose(by_name[b_name].asnumpy(), gb, rtol=2e-3, atol=2e-3), name


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    malloc = malloc_setup()
    params, x, cot = make_params()
    check_same_math(params, x, cot)
    grad_fn, _ = minispore_fn(params)
    xs, cs = Tensor(x), Tensor(cot)
    names = ["numpy (floor)", "minispore", "minispore jit"]
    jitted = ms.jit(minispore_fn(params)[0], backend="numpy")
    firsts = [("jit", first_calls(jitted, xs, cs))]
    value = grad_fn(xs, cs)[0].asnumpy()
    assert jitted(xs, cs)[0].asnumpy() == value  # the NumPy backend: bit for bit
    cases = [lambda: numpy_forward_backward(params, x, cot), lambda: grad_fn(xs, cs),
             lambda: jitted(xs, cs)]
    if numba_or_none() is not None:
        fused = ms.jit(minispore_fn(params)[0], backend="numba")
        firsts.append(("jit numba", first_calls(fused, xs, cs)))
        assert np.allclose(fused(xs, cs)[0].asnumpy(), value, rtol=1e-5)
        names.append("minispore jit numba")
        cases.append(lambda: fused(xs, cs))
    torch = torch_or_none()
    if torch is not None:
        run = torch_fn(torch, params)
        xt, ct = torch.from_numpy(x), torch.from_numpy(cot)
        names.append("pytorch eager")
        cases.append(lambda: run(xt, ct))
    print_table(f"W6: pre-LN transformer block (d={D}, {H} heads, FFN {FF}, tanh-GELU), "
                f"batch {B}, seq {T}, forward+backward, malloc {malloc}", names,
                interleaved_rounds(cases, args.repeat))
    for name, (first, second, groups) in firsts:
        print(f"{name}: first call (capture, passes, fusion, kernels) {first * 1e3:.0f} ms, "
              f"second (first replay) {second * 1e3:.1f} ms, fused groups {groups}")


if __name__ == "__main__":
    main()
